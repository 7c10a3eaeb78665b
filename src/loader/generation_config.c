/* generation_config.c — generation_config.json → ts_generation_config.
 *
 * Defaults are transformers' GenerationConfig ones (greedy, temperature 1, top_p 1, top_k 50,
 * repetition_penalty 1); max_new_tokens 0 means the file does not cap generation. An absent file
 * is not an error: many text checkpoints ship none. A present but malformed one is.
 */
#include "base/error.h"
#include "base/file.h"
#include "loader/json_fields.h"

#include <stdlib.h>
#include <string.h>

static void set_defaults(ts_generation_config *g)
{
    memset(g, 0, sizeof(*g));
    g->bos_token_id = -1;
    g->pad_token_id = -1;
    g->temperature = 1.0;
    g->top_p = 1.0;
    g->top_k = 50;
    g->repetition_penalty = 1.0;
}

static ts_status parse_root(const cJSON *root, const char *origin, ts_generation_config *g,
                            ts_error *err)
{
    ts_json_reader r = {origin, "", err};
    if (!cJSON_IsObject(root))
        return ts_error_set(err, TS_ERR_FORMAT, "%s: expected a JSON object at the top level", origin);
    TS_TRY(ts_json_int(&r, root, "bos_token_id", -1, &g->bos_token_id));
    TS_TRY(ts_json_int(&r, root, "pad_token_id", -1, &g->pad_token_id));
    TS_TRY(
        ts_json_int_list(&r, root, "eos_token_id", true, g->eos_token_ids, 8, &g->n_eos_token_ids));
    TS_TRY(ts_json_bool(&r, root, "do_sample", false, &g->do_sample));
    TS_TRY(ts_json_double(&r, root, "temperature", 1.0, &g->temperature));
    TS_TRY(ts_json_double(&r, root, "top_p", 1.0, &g->top_p));
    TS_TRY(ts_json_int(&r, root, "top_k", 50, &g->top_k));
    TS_TRY(ts_json_double(&r, root, "repetition_penalty", 1.0, &g->repetition_penalty));
    TS_TRY(ts_json_int(&r, root, "max_new_tokens", 0, &g->max_new_tokens));
    if (g->temperature < 0 || g->top_p < 0 || g->top_p > 1 || g->top_k < 0 ||
        g->repetition_penalty <= 0 || g->max_new_tokens < 0)
        return ts_error_set(err, TS_ERR_RANGE,
                            "%s: sampling settings out of range (temperature %g, top_p %g, top_k "
                            "%lld, repetition_penalty %g, max_new_tokens %lld)",
                            origin, g->temperature, g->top_p, (long long)g->top_k,
                            g->repetition_penalty, (long long)g->max_new_tokens);
    return TS_OK;
}

ts_status ts_generation_config_load(const char *dir, ts_generation_config *out, ts_error *err)
{
    set_defaults(out);
    char path[4096];
    TS_TRY(ts_path_join(path, sizeof(path), dir, "generation_config.json", err));
    if (!ts_file_exists(path)) return TS_OK;
    cJSON *root = NULL;
    ts_status st = ts_json_read_file(path, &root, err);
    if (!st) st = parse_root(root, path, out, err);
    cJSON_Delete(root);
    if (st) set_defaults(out);
    return st;
}
