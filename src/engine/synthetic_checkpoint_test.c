/* synthetic_checkpoint_test.c — a synthetic store written as a checkpoint folder reads back
 * tensor for tensor (names, dtypes, shapes, bytes), writes the same bytes twice, and loads as a
 * model; an unknown preset is refused with the list of presets. The store is shaped by the tiny
 * qwen2 fixture's config (the presets are hundreds of MB). */
#include "base/context.h"
#include "base/file.h"
#include "engine/synthetic.h"
#include "models/decoder.h"
#include "check.h"

#include <math.h>
#include <unistd.h>

static void test_round_trip(void)
{
    ts_error err;
    char *json;
    size_t len;
    REQUIRE_INT_EQ(ts_file_read("tests/fixtures/qwen2/model/config.json", &json, &len, &err),
                   TS_OK);
    ts_model_config cfg;
    ts_decoder_spec spec;
    REQUIRE_INT_EQ(ts_model_config_parse(json, len, "config.json", &cfg, &err), TS_OK);
    REQUIRE_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    ts_synthetic_weights *w;
    REQUIRE_INT_EQ(ts_synthetic_weights_create(TS_DTYPE_BF16, 0x7e55e7a, &w, &err), TS_OK);
    ts_weight_source src = {ts_synthetic_weights_find, w};
    ts_graph *g;
    ts_graph_create(&g, &err);
    ts_step_shape probe = {.n_seqs = 1, .n_tokens = {1}, .capacity = 1};
    CHECK_INT_EQ(ts_decoder_build(g, &spec, &src, &probe, &err), TS_OK); /* asks the store for every weight */
    ts_graph_destroy(g);
    size_t n = ts_synthetic_weights_count(w);
    CHECK_INT_EQ(n, 2 + 12 * 3); /* embed_tokens, norm; 12 per layer (q/k/v with biases, o, two norms, MLP) */

    char a[64], b[64];
    snprintf(a, sizeof(a), "/tmp/ts_synth_%d_a", (int)getpid());
    snprintf(b, sizeof(b), "/tmp/ts_synth_%d_b", (int)getpid());
    CHECK_INT_EQ(ts_synthetic_weights_write_checkpoint(w, json, a, &err), TS_OK);
    CHECK_INT_EQ(ts_synthetic_weights_write_checkpoint(w, json, b, &err), TS_OK);

    ts_checkpoint *ck;
    char path[128];
    snprintf(path, sizeof(path), "%s/model.safetensors", a);
    ts_status opened = ts_checkpoint_open(path, &ck, &err);
    if (opened != TS_OK) fprintf(stderr, "  %s\n", err.message);
    CHECK_INT_EQ(opened, TS_OK);
    if (opened != TS_OK) return;
    CHECK_INT_EQ(ts_checkpoint_tensor_count(ck), n);
    int same = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_synthetic_weights_at(w, i), *r = ts_checkpoint_find(ck, t->name);
        bool ok = r && r->dtype == TS_DTYPE_BF16 && r->n_dims == t->n_dims && r->n_bytes == t->n_bytes &&
                  memcmp(r->shape, t->shape, sizeof(int64_t) * (size_t)t->n_dims) == 0 && memcmp(r->data, t->data, t->n_bytes) == 0;
        same += ok;
    }
    CHECK_INT_EQ(same, n);
    const ts_tensor_info *embed = ts_checkpoint_find(ck, "model.embed_tokens.weight");
    CHECK(embed && embed->n_dims == 2 && embed->shape[0] == 1344 && embed->shape[1] == 64);
    ts_checkpoint_close(ck);

    /* Deterministic: both folders hold the same bytes. */
    char pa[128], pb[128];
    const char *files[2] = {"config.json", "model.safetensors"};
    for (int f = 0; f < 2; f++) {
        char *x, *y;
        size_t nx, ny;
        snprintf(pa, sizeof(pa), "%s/%s", a, files[f]);
        snprintf(pb, sizeof(pb), "%s/%s", b, files[f]);
        REQUIRE_INT_EQ(ts_file_read(pa, &x, &nx, &err), TS_OK);
        REQUIRE_INT_EQ(ts_file_read(pb, &y, &ny, &err), TS_OK);
        CHECK(nx == ny && memcmp(x, y, nx) == 0);
        if (f == 1) CHECK_INT_EQ(((unsigned char)x[0] | (unsigned char)x[1] << 8) % 8, 0); /* header length: a multiple of 8 */
        free(x), free(y);
    }

    /* The folder is a model: it loads and its first prefill gives finite logits. */
    ts_context *ctx;
    ts_context_options o = {.n_threads = 1, .log_level = TS_LOG_WARN};
    REQUIRE_INT_EQ(ts_context_create(&o, &ctx, &err), TS_OK);
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, a, NULL, &m, &err), TS_OK);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, 8, &seq, &err), TS_OK);
    float logits[1344];
    int32_t ids[3] = {5, 17, 900};
    CHECK_INT_EQ(ts_model_prefill(m, seq, ids, 3, logits, &err), TS_OK);
    int finite = 0;
    for (int i = 0; i < 1344; i++) finite += isfinite(logits[i]) != 0;
    CHECK_INT_EQ(finite, 1344);
    ts_sequence_destroy(seq);
    ts_model_destroy(m);

    /* An unknown preset names the presets. */
    CHECK_INT_EQ(ts_model_write_synthetic_checkpoint(ctx, "qwen9-1t", TS_DTYPE_BF16, a, &err), TS_ERR_NOT_FOUND);
    CHECK(strstr(err.message, "qwen2.5-0.5b") != NULL);
    ts_context_destroy(ctx);

    for (int d = 0; d < 2; d++)
        for (int f = 0; f < 2; f++) {
            snprintf(pa, sizeof(pa), "%s/%s", d ? b : a, files[f]);
            remove(pa);
        }
    rmdir(a), rmdir(b);
    ts_synthetic_weights_destroy(w);
    free(json);
}

int main(void)
{
    RUN(test_round_trip);
    return check_finish();
}
