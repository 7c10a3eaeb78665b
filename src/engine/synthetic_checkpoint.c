/* synthetic_checkpoint.c — a synthetic preset written out as a checkpoint folder, so the paths
 * that read a folder (bundle export and open, other runtimes) can run at a published shape.
 *
 * The weights are the ones ts_model_create_synthetic makes (same seed, same bytes), the config is
 * the preset's published config.json text. model.safetensors is written by ts_safetensors_write
 * (sorted by name), so the same preset and dtype always give the same files.
 */
#include "base/error.h"
#include "base/file.h"
#include "engine/model.h"
#include "engine/synthetic.h"
#include "loader/safetensors_write.h"
#include "models/decoder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static ts_status write_bytes(FILE *f, const char *path, const void *data, size_t n, ts_error *err)
{
    if (n && fwrite(data, 1, n, f) != n) return ts_error_set(err, TS_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return TS_OK;
}

ts_status ts_synthetic_weights_write_checkpoint(const ts_synthetic_weights *w, const char *config_json, const char *dir,
                                                ts_error *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) return ts_error_set(err, TS_ERR_IO, "%s: %s", dir, strerror(errno));
    char path[1024];
    ts_status st = ts_path_join(path, sizeof(path), dir, "config.json", err);
    FILE *f = st == TS_OK ? fopen(path, "wb") : NULL;
    if (st == TS_OK && !f) st = ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    if (st == TS_OK) st = write_bytes(f, path, config_json, strlen(config_json), err);
    if (st == TS_OK) st = write_bytes(f, path, "\n", 1, err);
    if (f && fclose(f) != 0 && st == TS_OK) st = ts_error_set(err, TS_ERR_IO, "%s: %s", path, strerror(errno));
    if (st != TS_OK) return st;

    size_t n = ts_synthetic_weights_count(w);
    const ts_tensor_info **all = malloc(sizeof(*all) * (n ? n : 1));
    if (!all) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "synthetic checkpoint: out of memory");
    for (size_t i = 0; i < n; i++) all[i] = ts_synthetic_weights_at(w, i);
    st = ts_path_join(path, sizeof(path), dir, "model.safetensors", err);
    if (st == TS_OK) st = ts_safetensors_write(path, all, n, err);
    free(all);
    return st;
}

ts_status ts_model_write_synthetic_checkpoint(ts_context *ctx, const char *preset, ts_dtype dtype, const char *dir, ts_error *err)
{
    ts_model *m;
    ts_status st = ts_model_create_synthetic(ctx, preset, dtype, &m, err);
    if (st != TS_OK) return st;
    /* The model asked its store for every weight it uses (decoder and tower): the store is the checkpoint. */
    const ts_weight_source *src = ts_model_weights(m);
    if (src->find != ts_synthetic_weights_find) st = ts_error_set(err, TS_ERR_INTERNAL, "synthetic %s: not a synthetic model", preset);
    if (st == TS_OK) st = ts_synthetic_weights_write_checkpoint(src->self, ts_synthetic_preset_json(preset), dir, err);
    if (st != TS_OK) ts_error_prefix(err, "synthetic %s: ", preset);
    ts_model_destroy(m);
    return st;
}
