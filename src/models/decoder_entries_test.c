/* decoder_entries_test.c — the bundle entries (prefill, prefill_embeddings, decode) run on the
 * CPU executor against the transformers fixtures: padded prefill gives the reference last logits
 * and KV (padding rows zero); prefill from embeddings with an additive causal bias gives the same;
 * decode over two slots with ragged cache lengths reproduces the reference decode logits and
 * greedy tokens for one slot and the engine's own tokens for the other. longrope's bundles are
 * held to original_max_position_embeddings. */
#include "base/context.h"
#include "cpu/executor.h"
#include "engine/model.h"
#include "models/decoder_entries.h"
#include "check.h"

#include <math.h>

static ts_context *ctx;

static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    return ts_checkpoint_find(self, name);
}

typedef struct {
    ts_graph *g;
    ts_program *prog;
    void **params;
    int32_t first_input;
} entry_run;

static bool build(entry_run *r, const ts_decoder_spec *spec, ts_checkpoint *ck, ts_entry e, const ts_entry_shape *shape)
{
    ts_error err;
    ts_graph_create(&r->g, &err);
    ts_weight_source src = {find, ck};
    if (ts_decoder_build_entry(r->g, spec, &src, e, shape, &err) != TS_OK || ts_program_create(r->g, ctx, &r->prog, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", ts_entry_name(e), err.message);
        return false;
    }
    r->params = calloc((size_t)r->g->n_parameters, sizeof(void *));
    r->first_input = -1;
    for (int32_t i = 0; i < r->g->n_nodes; i++) {
        const ts_node *n = &r->g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT) r->params[n->attrs.parameter.index] = (void *)ts_checkpoint_find(ck, n->name)->data;
        else if (r->first_input < 0) r->first_input = n->attrs.parameter.index;
    }
    return true;
}

static void release(entry_run *r)
{
    ts_program_destroy(r->prog);
    ts_graph_destroy(r->g);
    free(r->params);
}

static double max_abs_diff(const float *a, const float *b, size_t n, double *max_ref)
{
    double d = 0;
    *max_ref = 0;
    for (size_t i = 0; i < n; i++) {
        d = fmax(d, fabs((double)a[i] - b[i]));
        *max_ref = fmax(*max_ref, fabs(b[i]));
    }
    return d;
}

static bool within(const char *what, const float *ours, const float *ref, size_t n)
{
    double max_ref, d = max_abs_diff(ours, ref, n, &max_ref);
    if (d > 1e-4 * fmax(1.0, max_ref)) {
        fprintf(stderr, "  %s: max |diff| %.3g\n", what, d);
        return false;
    }
    return true;
}

static int argmax(const float *x, int64_t n)
{
    int best = 0;
    for (int64_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = (int)i;
    return best;
}

static void check_family(const char *name)
{
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec spec;
    ts_checkpoint *ck, *ref;
    CHECK_INT_EQ(ts_model_config_load(dir, &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(dir, &ck, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids");
    int32_t n = (int32_t)ids64->shape[1];
    enum { LP = 32, C = 48 };
    int64_t V = spec.vocab, HKV = spec.kv_heads, D = spec.head_dim, L = spec.layers, H = spec.hidden;
    int32_t tokens[LP] = {0};
    for (int i = 0; i < n; i++) tokens[i] = (int32_t)((const int64_t *)ids64->data)[i];

    /* prefill.main */
    ts_entry_shape shape = {.capacity = C, .prefill_capacity = LP, .slots = 2};
    entry_run pre;
    if (!build(&pre, &spec, ck, TS_ENTRY_PREFILL, &shape)) {
        CHECK(false);
        return;
    }
    pre.params[pre.first_input] = tokens;
    pre.params[pre.first_input + 1] = &n;
    const void *outs[3];
    CHECK_INT_EQ(ts_program_run(pre.prog, pre.params, outs, &err), TS_OK);
    CHECK(within("prefill.main last_logits", outs[0], ts_checkpoint_find(ref, "prefill_last_logits")->data, (size_t)V));
    size_t cache_floats = (size_t)(L * C * HKV * D);
    float *k_cache = malloc(sizeof(float) * cache_floats), *v_cache = malloc(sizeof(float) * cache_floats);
    memcpy(k_cache, outs[1], sizeof(float) * cache_floats);
    memcpy(v_cache, outs[2], sizeof(float) * cache_floats);
    bool kv_ok = true, padding_zero = true;
    for (int64_t l = 0; l < L; l++)
        for (int value = 0; value < 2; value++) {
            char nm[32];
            snprintf(nm, sizeof(nm), "kv_%s_%lld", value ? "value" : "key", (long long)l);
            const float *r = ts_checkpoint_find(ref, nm)->data; /* [HKV, n, D] */
            const float *ours = (value ? v_cache : k_cache) + l * C * HKV * D;
            for (int64_t p = 0; p < C; p++)
                for (int64_t h = 0; h < HKV; h++)
                    for (int64_t d = 0; d < D; d++) {
                        float o = ours[(p * HKV + h) * D + d];
                        if (p >= n) padding_zero &= o == 0.0f;
                        else kv_ok &= fabs(o - r[(h * n + p) * D + d]) <= 1e-4 * 10;
                    }
        }
    CHECK(kv_ok);
    CHECK(padding_zero);

    /* prefill_embeddings.main: embeddings looked up here, causal bias with padding. */
    entry_run emb;
    CHECK(build(&emb, &spec, ck, TS_ENTRY_PREFILL_EMBEDDINGS, &shape));
    const ts_tensor_info *table = ts_checkpoint_find(ck, "model.embed_tokens.weight");
    float *embeddings = calloc((size_t)(LP * H), sizeof(float));
    int32_t positions[LP];
    float *bias = malloc(sizeof(float) * LP * LP);
    for (int i = 0; i < LP; i++) {
        positions[i] = i;
        if (i < n) memcpy(embeddings + i * H, (const float *)table->data + tokens[i] * H, sizeof(float) * (size_t)H);
        for (int j = 0; j < LP; j++) bias[i * LP + j] = j <= i ? 0.0f : -INFINITY;
    }
    emb.params[emb.first_input] = embeddings;
    emb.params[emb.first_input + 1] = positions;
    emb.params[emb.first_input + 2] = bias;
    emb.params[emb.first_input + 3] = &n;
    CHECK_INT_EQ(ts_program_run(emb.prog, emb.params, outs, &err), TS_OK);
    CHECK(within("prefill_embeddings.main last_logits", outs[0], ts_checkpoint_find(ref, "prefill_last_logits")->data, (size_t)V));
    CHECK(within("prefill_embeddings.main k", outs[1], k_cache, cache_floats));

    /* decode.main over 2 slots: slot 0 continues the fixture; slot 1 holds the first 7 prompt
     * tokens (prefilled by the engine) — ragged cache lengths. */
    entry_run dec;
    CHECK(build(&dec, &spec, ck, TS_ENTRY_DECODE, &shape));
    float *k_slots = calloc(2 * cache_floats, sizeof(float)), *v_slots = calloc(2 * cache_floats, sizeof(float));
    memcpy(k_slots, k_cache, sizeof(float) * cache_floats);
    memcpy(v_slots, v_cache, sizeof(float) * cache_floats);
    int32_t short_n = 7;
    pre.params[pre.first_input + 1] = &short_n;
    CHECK_INT_EQ(ts_program_run(pre.prog, pre.params, outs, &err), TS_OK);
    memcpy(k_slots + cache_floats, outs[1], sizeof(float) * cache_floats);
    memcpy(v_slots + cache_floats, outs[2], sizeof(float) * cache_floats);
    int32_t next1 = argmax(outs[0], V);

    /* The engine's own continuation of the 7-token prompt, for slot 1. */
    ts_model *m;
    CHECK_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    ts_sequence *seq;
    ts_sequence_create(m, C, &seq, &err);
    float *lg = malloc(sizeof(float) * (size_t)V);
    ts_model_prefill(m, seq, tokens, 7, lg, &err);
    int32_t engine_tokens[8];
    for (int i = 0; i < 8; i++) {
        engine_tokens[i] = argmax(lg, V);
        ts_model_decode(m, &seq, &engine_tokens[i], 1, lg, &err);
    }

    const ts_tensor_info *gen = ts_checkpoint_find(ref, "generated_ids"), *dl = ts_checkpoint_find(ref, "decode_logits");
    int32_t slot_tokens[2] = {(int32_t)((const int64_t *)gen->data)[0], next1};
    int32_t cache_len[2] = {n, short_n}, pos[2], delta[2] = {0, 0};
    bool ref_ok = true, engine_ok = next1 == engine_tokens[0];
    for (int step = 1; step < 8; step++) {
        pos[0] = cache_len[0], pos[1] = cache_len[1];
        dec.params[dec.first_input] = slot_tokens;
        dec.params[dec.first_input + 1] = pos;
        dec.params[dec.first_input + 2] = delta;
        dec.params[dec.first_input + 3] = cache_len;
        dec.params[dec.first_input + 4] = k_slots;
        dec.params[dec.first_input + 5] = v_slots;
        CHECK_INT_EQ(ts_program_run(dec.prog, dec.params, outs, &err), TS_OK);
        const float *logits = outs[0];
        ref_ok &= within("decode.main slot 0", logits, (const float *)dl->data + step * V, (size_t)V);
        memcpy(k_slots, outs[1], sizeof(float) * 2 * cache_floats);
        memcpy(v_slots, outs[2], sizeof(float) * 2 * cache_floats);
        cache_len[0]++, cache_len[1]++;
        slot_tokens[0] = (int32_t)((const int64_t *)gen->data)[step];
        ref_ok &= argmax(logits, V) == slot_tokens[0];
        slot_tokens[1] = argmax(logits + V, V);
        engine_ok &= slot_tokens[1] == engine_tokens[step];
    }
    CHECK(ref_ok);
    CHECK(engine_ok);
    fprintf(stderr, "  %s: prefill, prefill_embeddings and 2-slot ragged decode %s\n", name, ref_ok && engine_ok && kv_ok ? "match" : "DIVERGE");
    free(lg);
    ts_sequence_destroy(seq);
    ts_model_destroy(m);
    free(k_slots), free(v_slots), free(k_cache), free(v_cache), free(embeddings), free(bias);
    release(&dec);
    release(&emb);
    release(&pre);
    ts_checkpoint_close(ck);
    ts_checkpoint_close(ref);
}

/* The language side of the Qwen-VL fixtures through the bundle entries: the reference's merged
 * embeddings (image rows already in place) and 3-axis M-RoPE positions into
 * prefill_embeddings.main with a causal bias, then decode.main with the reference's rope_delta:
 * last logits, every layer's K/V, each decode step's logits and the 16 greedy tokens. */
static void check_mrope_case(const char *name)
{
    char dir[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec spec;
    ts_checkpoint *ck, *ref;
    CHECK_INT_EQ(ts_model_config_load(dir, &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK(spec.mrope);
    CHECK_INT_EQ(ts_checkpoint_open(dir, &ck, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(refpath, &ref, &err), TS_OK);
    const ts_tensor_info *emb = ts_checkpoint_find(ref, "lm_inputs_embeds"), *pos64 = ts_checkpoint_find(ref, "position_ids");
    const ts_tensor_info *delta64 = ts_checkpoint_find(ref, "rope_deltas"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *dl = ts_checkpoint_find(ref, "decode_logits");
    int32_t n = (int32_t)emb->shape[1];
    int64_t H = spec.hidden, V = spec.vocab, L = spec.layers, HKV = spec.kv_heads, D = spec.head_dim;
    int64_t lp = n + 3, c = n + 20; /* padded prefill, room for the decode steps */
    ts_entry_shape shape = {.capacity = c, .prefill_capacity = lp, .slots = 1};
    entry_run pre, dec;
    if (!build(&pre, &spec, ck, TS_ENTRY_PREFILL_EMBEDDINGS, &shape) || !build(&dec, &spec, ck, TS_ENTRY_DECODE, &shape)) {
        CHECK(false);
        return;
    }
    float *e = calloc((size_t)(lp * H), sizeof(float)), *bias = malloc(sizeof(float) * (size_t)(lp * lp));
    int32_t *positions = calloc((size_t)(3 * lp), sizeof(int32_t));
    memcpy(e, emb->data, sizeof(float) * (size_t)(n * H));
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < n; i++) positions[a * lp + i] = (int32_t)((const int64_t *)pos64->data)[a * n + i];
    for (int64_t i = 0; i < lp; i++)
        for (int64_t j = 0; j < lp; j++) bias[i * lp + j] = j <= i ? 0.0f : -INFINITY;
    pre.params[pre.first_input] = e;
    pre.params[pre.first_input + 1] = positions;
    pre.params[pre.first_input + 2] = bias;
    pre.params[pre.first_input + 3] = &n;
    const void *outs[3];
    CHECK_INT_EQ(ts_program_run(pre.prog, pre.params, outs, &err), TS_OK);
    bool ok = within("prefill_embeddings.main last_logits (M-RoPE)", outs[0], ts_checkpoint_find(ref, "prefill_last_logits")->data, (size_t)V);
    size_t cache = (size_t)(L * c * HKV * D);
    float *k = malloc(sizeof(float) * cache), *v = malloc(sizeof(float) * cache);
    memcpy(k, outs[1], sizeof(float) * cache);
    memcpy(v, outs[2], sizeof(float) * cache);
    for (int64_t l = 0; l < L && ok; l++) { /* keys after M-RoPE: the axis selection is exercised here */
        char nm[32];
        snprintf(nm, sizeof(nm), "kv_key_%lld", (long long)l);
        const float *r = ts_checkpoint_find(ref, nm)->data;
        for (int64_t h = 0; h < HKV; h++)
            for (int64_t p = 0; p < n; p++)
                for (int64_t d = 0; d < D; d++) ok &= fabsf(k[((l * c + p) * HKV + h) * D + d] - r[(h * n + p) * D + d]) <= 1e-3f;
        if (!ok) fprintf(stderr, "  kv_key_%lld differs\n", (long long)l);
    }
    int32_t delta = (int32_t)((const int64_t *)delta64->data)[0];
    int32_t tok = (int32_t)((const int64_t *)gen->data)[0], len = n, pos3[3];
    bool tokens_ok = argmax(outs[0], V) == tok;
    for (int step = 1; step < gen->shape[0]; step++) {
        pos3[0] = pos3[1] = pos3[2] = len; /* decode: cache position; the delta is added in the graph */
        dec.params[dec.first_input] = &tok;
        dec.params[dec.first_input + 1] = pos3;
        dec.params[dec.first_input + 2] = &delta;
        dec.params[dec.first_input + 3] = &len;
        dec.params[dec.first_input + 4] = k;
        dec.params[dec.first_input + 5] = v;
        CHECK_INT_EQ(ts_program_run(dec.prog, dec.params, outs, &err), TS_OK);
        ok &= within("decode.main logits (M-RoPE)", outs[0], (const float *)dl->data + step * V, (size_t)V);
        memcpy(k, outs[1], sizeof(float) * cache);
        memcpy(v, outs[2], sizeof(float) * cache);
        len++;
        tok = (int32_t)((const int64_t *)gen->data)[step];
        tokens_ok &= argmax(outs[0], V) == tok;
    }
    CHECK(ok);
    CHECK(tokens_ok);
    fprintf(stderr, "  %s: M-RoPE prefill from embeddings and %lld decode steps %s (rope_delta %d)\n", name,
            (long long)gen->shape[0] - 1, ok && tokens_ok ? "match" : "DIVERGE", delta);
    free(e), free(bias), free(positions), free(k), free(v);
    release(&pre);
    release(&dec);
    ts_checkpoint_close(ck);
    ts_checkpoint_close(ref);
}

static void test_mrope_qwen2_vl(void) { check_mrope_case("qwen2_vl"); }
static void test_mrope_qwen2_vl_two_images(void) { check_mrope_case("qwen2_vl-two-images"); }
static void test_mrope_qwen2_5_vl(void) { check_mrope_case("qwen2_5_vl"); }

static void test_entries_qwen2(void) { check_family("qwen2"); }
static void test_entries_qwen3(void) { check_family("qwen3"); }
static void test_entries_llama(void) { check_family("llama"); }

/* decode.main donates k and v (results 1, 2) and its plan honours it at any capacity: the caches
 * are updated in place, and the workspace — every intermediate of a step — grows from 48 to 4096
 * rows only by attention's score row per worker, less than one slot-layer block [C, Hkv, D] (no
 * block of the cache is copied per step). */
static void test_decode_plan_independent_of_capacity(void)
{
    ts_error err;
    ts_model_config cfg;
    ts_decoder_spec spec;
    ts_checkpoint *ck;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/qwen2/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open("tests/fixtures/qwen2/model", &ck, &err), TS_OK);
    size_t workspace[2] = {0, 0};
    static const int64_t capacities[2] = {48, 4096};
    for (int c = 0; c < 2; c++) {
        ts_entry_shape shape = {.capacity = capacities[c], .prefill_capacity = 32, .slots = 2};
        entry_run dec;
        if (!build(&dec, &spec, ck, TS_ENTRY_DECODE, &shape)) {
            CHECK(false);
            continue;
        }
        int k = dec.first_input + 4, v = dec.first_input + 5; /* tokens, positions, rope_delta, cache_len, k, v */
        CHECK(ts_program_output_in_place(dec.prog, 1, k) && ts_program_output_in_place(dec.prog, 2, v));
        int donated = 0;
        for (int32_t i = 0; i < dec.g->n_nodes; i++)
            if (dec.g->nodes[i].op == TS_OP_PARAMETER && ts_graph_parameter_alias(dec.g, i) >= 0)
                donated += ts_graph_parameter_alias(dec.g, i) == 1 + (dec.g->nodes[i].attrs.parameter.index == v);
        CHECK_INT_EQ(donated, 2);
        workspace[c] = ts_program_workspace_bytes(dec.prog);
        release(&dec);
    }
    size_t block = (size_t)((4096 - 48) * spec.kv_heads * spec.head_dim) * sizeof(float);
    fprintf(stderr, "  decode.main workspace: %zu bytes at capacity 48, %zu at 4096 (one slot-layer block grows by %zu)\n", workspace[0],
            workspace[1], block);
    CHECK(workspace[0] > 0);
    CHECK(workspace[1] >= workspace[0] && workspace[1] - workspace[0] < block);
    ts_checkpoint_close(ck);
}

/* longrope: entries rotate with the short factors only, so a capacity past
 * original_max_position_embeddings (32 in phi4_mm-longrope-cross) is refused by name; up to it
 * they build. */
static void test_longrope_capacity(void)
{
    ts_error err;
    ts_model *m;
    REQUIRE_INT_EQ(ts_model_load(ctx, "tests/fixtures/phi4_mm-longrope-cross/model", NULL, &m, &err), TS_OK);
    ts_model_config cfg;
    ts_decoder_spec spec;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/phi4_mm-longrope-cross/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_decoder_spec_init(&cfg, &spec, &err), TS_OK);
    for (int c = 0; c < 2; c++) {
        ts_entry_shape shape = {.capacity = c ? 33 : 32, .prefill_capacity = 16, .slots = 1};
        ts_graph *g;
        REQUIRE_INT_EQ(ts_graph_create(&g, &err), TS_OK);
        ts_status st = ts_decoder_build_entry(g, &spec, ts_model_weights(m), TS_ENTRY_DECODE, &shape, &err);
        if (c) {
            CHECK_INT_EQ(st, TS_ERR_UNSUPPORTED);
            CHECK_CONTAINS(err.message, "decode.main: capacity 33 passes original_max_position_embeddings 32 "
                                        "(longrope's long factors are not built for bundles");
        } else {
            CHECK_INT_EQ(st, TS_OK);
        }
        ts_graph_destroy(g);
    }
    ts_model_destroy(m);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_entries_qwen2);
    RUN(test_entries_qwen3);
    RUN(test_entries_llama);
    RUN(test_decode_plan_independent_of_capacity);
    RUN(test_mrope_qwen2_vl);
    RUN(test_mrope_qwen2_vl_two_images);
    RUN(test_mrope_qwen2_5_vl);
    RUN(test_longrope_capacity);
    ts_context_destroy(ctx);
    return check_finish();
}
