/* qwen3_vl_moe_test.c — Qwen3-VL-MoE's language model (a sparse MoE block in every layer)
 * against tests/fixtures/qwen3_vl_moe, with the F32 weights and a BF16 copy of them.
 *
 * The fixture's prompt holds an image, and the reference adds DeepStack features at the image
 * rows after layers 0 and 1, which is not built yet. So the reference's merged input embeddings
 * and M-RoPE positions are prefilled and what DeepStack cannot reach is compared:
 *   every position: hidden_state_0 (its text rows are embed_tokens rows), router_probs_0,
 *     kv_key_0, kv_value_0 and hidden_state_1 (layer 0's output, before the first DeepStack add);
 *   positions before the first image token (attention is causal, so nothing there sees an image
 *     row): hidden_state_2, hidden_state_3, router_probs_1, router_probs_2, the K/V of layers 1
 *     and 2, and the prefill logits.
 * Each within max |ours − ref| ≤ 1e-4 × max(1, max |ref| over the compared part).
 * Then a text-only check the reference cannot give: batched decode equals decoding alone, token
 * for token and logit for logit.
 */
#include "engine/model.h"
#include "models/decoder.h"
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static ts_context *ctx;

/* Compares `blocks` runs of `len` floats, `stride` apart; prints the result, false past the
 * tolerance. */
static bool compare(const char *stage, const float *ours, const float *ref, int64_t blocks,
                    int64_t stride, int64_t len)
{
    double max_ref = 0, max_diff = 0;
    for (int64_t b = 0; b < blocks; b++)
        for (int64_t i = 0; i < len; i++) {
            double r = ref[b * stride + i], d = fabs((double)ours[b * stride + i] - r);
            max_ref = fmax(max_ref, fabs(r));
            if (!(d <= max_diff)) max_diff = isnan(d) ? INFINITY : d;
        }
    double tol = 1e-4 * fmax(1.0, max_ref);
    bool ok = max_diff <= tol;
    fprintf(stderr, "    %-28s max |diff| %.3g (tolerance %.3g)%s\n", stage, max_diff, tol,
            ok ? "" : "  DIVERGES");
    return ok;
}

static const float *ref_floats(const ts_checkpoint *ref, const char *fmt, int64_t l)
{
    char name[64];
    snprintf(name, sizeof(name), fmt, (long long)l);
    const ts_tensor_info *t = ts_checkpoint_find(ref, name);
    if (!t) fprintf(stderr, "reference has no %s\n", name);
    return t ? t->data : NULL;
}

/* The fixture has no model-bf16/: every weight is bf16-representable (checked), so the BF16 file
 * is the top half of each F32 value, written to `path`. */
static bool write_bf16_copy(const char *path)
{
    ts_checkpoint *src;
    ts_error err;
    if (ts_checkpoint_open("tests/fixtures/qwen3_vl_moe/model", &src, &err) != TS_OK) return false;
    size_t n = ts_checkpoint_tensor_count(src), at = 0;
    char *header = malloc(1 << 20);
    uint64_t offset = 0;
    bool exact = true;
    at += (size_t)sprintf(header, "{");
    for (size_t i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(src, i);
        exact &= t->dtype == TS_DTYPE_F32;
        at += (size_t)sprintf(header + at, "%s\"%s\":{\"dtype\":\"BF16\",\"shape\":[", i ? "," : "",
                              t->name);
        for (int d = 0; d < t->n_dims; d++)
            at += (size_t)sprintf(header + at, "%s%lld", d ? "," : "", (long long)t->shape[d]);
        at += (size_t)sprintf(header + at, "],\"data_offsets\":[%llu,%llu]}",
                              (unsigned long long)offset,
                              (unsigned long long)(offset + t->n_bytes / 2));
        offset += t->n_bytes / 2;
    }
    at += (size_t)sprintf(header + at, "}");
    while (at % 8)
        header[at++] = ' ';
    FILE *f = fopen(path, "wb");
    uint64_t len = at;
    exact &= f && fwrite(&len, 8, 1, f) == 1 && fwrite(header, 1, at, f) == at;
    for (size_t i = 0; exact && i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(src, i);
        for (size_t k = 0; k < t->n_bytes / 4; k++) {
            uint32_t bits;
            memcpy(&bits, (const uint8_t *)t->data + 4 * k, 4);
            uint16_t top = (uint16_t)(bits >> 16);
            exact &= (bits & 0xffff) == 0 && fwrite(&top, 2, 1, f) == 1;
        }
    }
    if (f) fclose(f);
    free(header);
    ts_checkpoint_close(src);
    return exact;
}

static void check_language_model(bool bf16)
{
    const char *dir = "tests/fixtures/qwen3_vl_moe/model";
    char weights[64] = "/tmp/ts_moe_bf16_XXXXXX";
    if (bf16) {
        int fd = mkstemp(weights);
        if (fd >= 0) close(fd);
        CHECK(fd >= 0 && write_bf16_copy(weights));
    }
    ts_model_options opt = {.weights = bf16 ? weights : NULL};
    ts_error err;
    ts_model *m;
    ts_checkpoint *ref;
    if (ts_model_load(ctx, dir, &opt, &m, &err) != TS_OK) {
        fprintf(stderr, "load: %s\n", err.message);
        CHECK(false);
        return;
    }
    CHECK_INT_EQ(
        ts_checkpoint_open("tests/fixtures/qwen3_vl_moe/reference.safetensors", &ref, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    const ts_weight_source *w = ts_model_weights(m);
    const ts_tensor_info *experts_0 =
        w->find(w->self, "model.language_model.layers.0.mlp.experts.gate_up_proj", 0, NULL);
    CHECK(experts_0 && experts_0->dtype == (bf16 ? TS_DTYPE_BF16 : TS_DTYPE_F32));
    const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds"),
                         *pos64 = ts_checkpoint_find(ref, "position_ids");
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"),
                         *visual = ts_checkpoint_find(ref, "visual_pos_masks");
    int64_t n = emb->shape[1], h = cfg->text.hidden_size, layers = cfg->text.num_hidden_layers,
            experts = cfg->text.num_experts;
    int64_t vocab = ts_model_vocab_size(m), kvh = ts_model_kv_heads(m), hd = ts_model_head_dim(m);
    /* Rows before the first image row: untouched by DeepStack in every layer. */
    int64_t text_rows = 0;
    while (text_rows < n && ((const int64_t *)visual->data)[text_rows] == 0)
        text_rows++;
    CHECK(text_rows > 0 && text_rows < n);

    int32_t *positions = malloc(sizeof(int32_t) * (size_t)(3 * n)),
            *ids = malloc(sizeof(int32_t) * (size_t)n);
    for (int64_t i = 0; i < 3 * n; i++)
        positions[i] = (int32_t)((const int64_t *)pos64->data)[i];
    for (int64_t i = 0; i < n; i++)
        ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    float *logits = malloc(sizeof(float) * (size_t)(n * vocab)),
          *rows = malloc(sizeof(float) * (size_t)(n * h));
    float **hid = malloc(sizeof(float *) * (size_t)(layers + 1)),
          **router = malloc(sizeof(float *) * (size_t)layers);
    for (int64_t l = 0; l <= layers; l++)
        hid[l] = malloc(sizeof(float) * (size_t)(n * h));
    for (int64_t l = 0; l < layers; l++)
        router[l] = malloc(sizeof(float) * (size_t)(n * experts));
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, n, &seq, &err), TS_OK);
    ts_diagnostic_prefill d = {.logits = logits,
                               .hidden = hid,
                               .embeddings = emb->data,
                               .positions = positions,
                               .router_probs = router};
    CHECK_INT_EQ(ts_model_prefill_diagnostic(m, seq, NULL, (size_t)n, &d, &err), TS_OK);
    fprintf(stderr, "  qwen3_vl_moe (%s weights), %lld rows, %lld before the first image row:\n",
            bf16 ? "bf16" : "f32", (long long)n, (long long)text_rows);

    bool ok = true;
    /* hidden_state_0 is the input we fed; its text rows must be our own embed_tokens rows. */
    const float *h0 = ref_floats(ref, "hidden_state_%lld", 0);
    CHECK_INT_EQ(ts_model_embed_tokens(m, ids, (size_t)n, rows, &err), TS_OK);
    bool text_same = true;
    for (int64_t i = 0; i < n; i++)
        if (ids[i] != cfg->image_token_id)
            text_same &= memcmp(rows + i * h, h0 + i * h, sizeof(float) * (size_t)h) == 0;
    CHECK(text_same);
    ok &= compare("hidden_state_0", hid[0], h0, 1, 0, n * h);
    ok &= compare("router_probs_0", router[0], ref_floats(ref, "router_probs_%lld", 0), 1, 0,
                  n * experts);
    ok &= compare("hidden_state_1", hid[1], ref_floats(ref, "hidden_state_%lld", 1), 1, 0, n * h);
    /* K/V: the reference is [kv_heads, L, head_dim]; ours [capacity, kv_heads, head_dim]. */
    float *kv = malloc(sizeof(float) * (size_t)(kvh * n * hd));
    for (int64_t l = 0; l < layers; l++)
        for (int value = 0; value < 2; value++) {
            const float *cache = ts_sequence_cache(seq, (int)l, value);
            for (int64_t hh = 0; hh < kvh; hh++)
                for (int64_t p = 0; p < n; p++)
                    memcpy(kv + (hh * n + p) * hd, cache + (p * kvh + hh) * hd,
                           sizeof(float) * (size_t)hd);
            char stage[64];
            snprintf(stage, sizeof(stage), "kv_%s_%lld%s", value ? "value" : "key", (long long)l,
                     l ? " (text rows)" : "");
            ok &= compare(stage, kv, ref_floats(ref, value ? "kv_value_%lld" : "kv_key_%lld", l),
                          kvh, n * hd, (l ? text_rows : n) * hd);
        }
    for (int64_t l = 1; l < layers; l++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "router_probs_%lld (text rows)", (long long)l);
        ok &= compare(stage, router[l], ref_floats(ref, "router_probs_%lld", l), 1, 0,
                      text_rows * experts);
    }
    for (int64_t l = 2; l <= layers; l++) {
        char stage[64];
        snprintf(stage, sizeof(stage), "hidden_state_%lld (text rows)", (long long)l);
        ok &= compare(stage, hid[l], ref_floats(ref, "hidden_state_%lld", l), 1, 0, text_rows * h);
    }
    ok &= compare("prefill_logits (text rows)", logits,
                  ts_checkpoint_find(ref, "prefill_logits")->data, 1, 0, text_rows * vocab);
    CHECK(ok);

    free(kv), free(positions), free(ids), free(logits), free(rows);
    for (int64_t l = 0; l <= layers; l++)
        free(hid[l]);
    for (int64_t l = 0; l < layers; l++)
        free(router[l]);
    free(hid), free(router);
    ts_sequence_destroy(seq);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    if (bf16) unlink(weights);
}

static void test_language_model_f32(void)
{
    check_language_model(false);
}
static void test_language_model_bf16(void)
{
    check_language_model(true);
}

/* Three text prompts decoded alone and then together: the MoE kernel's result for a token does
 * not depend on which tokens share its step (its routing groups them differently). */
static void test_batched_decode_matches_single(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen3_vl_moe/model", NULL, &m, &err), TS_OK);
    enum { B = 3, STEPS = 8, CAP = 32 };
    static const int32_t prompts[B][6] = {
        {1281, 872, 198, 1107}, {54, 1247, 264, 557, 371, 13}, {9, 14}};
    static const int lens[B] = {4, 6, 2};
    int64_t v = ts_model_vocab_size(m);
    float *alone = malloc(sizeof(float) * (size_t)(B * STEPS * v)),
          *together = malloc(sizeof(float) * (size_t)(B * STEPS * v));
    int32_t tokens[B][STEPS];
    for (int b = 0; b < B; b++) {
        ts_sequence *s;
        ts_sequence_create(m, CAP, &s, &err);
        float *out = alone + (size_t)(b * STEPS) * (size_t)v;
        CHECK_INT_EQ(ts_model_prefill(m, s, prompts[b], (size_t)lens[b], out, &err), TS_OK);
        for (int i = 0; i + 1 < STEPS; i++) {
            tokens[b][i] = ts_argmax_masked(out + i * v, v, NULL, 0);
            REQUIRE_INT_EQ(ts_model_decode(m, &s, &tokens[b][i], 1, out + (i + 1) * v, &err),
                           TS_OK);
        }
        ts_sequence_destroy(s);
    }
    ts_sequence *seqs[B];
    float *step = malloc(sizeof(float) * (size_t)(B * v));
    for (int b = 0; b < B; b++) {
        ts_sequence_create(m, CAP, &seqs[b], &err);
        CHECK_INT_EQ(ts_model_prefill(m, seqs[b], prompts[b], (size_t)lens[b],
                                      together + (size_t)(b * STEPS) * (size_t)v, &err),
                     TS_OK);
    }
    for (int i = 0; i + 1 < STEPS; i++) {
        int32_t next[B];
        for (int b = 0; b < B; b++)
            next[b] = tokens[b][i];
        REQUIRE_INT_EQ(ts_model_decode(m, seqs, next, B, step, &err), TS_OK);
        for (int b = 0; b < B; b++)
            memcpy(together + ((size_t)(b * STEPS + i + 1)) * (size_t)v, step + b * v,
                   sizeof(float) * (size_t)v);
    }
    CHECK(memcmp(alone, together, sizeof(float) * (size_t)(B * STEPS * v)) == 0);
    for (int b = 0; b < B; b++)
        ts_sequence_destroy(seqs[b]);
    free(alone), free(together), free(step);
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_language_model_f32);
    RUN(test_language_model_bf16);
    RUN(test_batched_decode_matches_single);
    ts_context_destroy(ctx);
    return check_finish();
}
