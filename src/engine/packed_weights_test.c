/* packed_weights_test.c — GPTQ and AWQ checkpoints as published, built here by a packer written
 * from the formats (packed_weights.h names the sources read): the Qwen2 and Llama fixtures'
 * projection matrices quantized (asymmetric, GPTQ's min/max rule), packed as GPTQ 4-bit v1
 * (zeros − 1, sequential g_idx), GPTQ 8-bit v2 (one group per row), AWQ 4-bit GEMM (the
 * 0 2 4 6 1 3 5 7 interleave) and GPTQ 4-bit and 8-bit with desc_act (act order: each group's
 * channels spread over the row by a shuffle, g_idx naming them), written as safetensors with a
 * quantization_config. Each loads, its served weights dequantize bit-exactly to the expected f32
 * matrices (act order: column j through the served permutation), and it runs the f32 model of
 * those dequantized matrices' logits (≤ 1e-4 × max) and 16 greedy tokens exactly, through the
 * engine and through an exported bundle. Qwen2-VL with every linear packed, tower and projector
 * included (GPTQ and AWQ): the same image rows (engine and a bundle's vision.main), image-prompt
 * logits and greedy tokens as the dequantized f32 model. The fixtures made with transformers by
 * tools/fixtures/make_packed_fixture.py (a second packer, in Python): exact dequantization and
 * transformers' logits and 16 tokens on the dequantized model. Unsupported variants (other
 * methods, AWQ GEMV, 3-bit, other checkpoint formats) and malformed act orders are refused by
 * name. */
#include "cpu/kernels.h"
#include "engine/model.h"
#include "engine/vision.h"
#include "engine/quantized_weights.h"
#include "check.h"
#include "fixture_compare.h"

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

static ts_context *ctx;

typedef struct {
    char name[256]; /* a checkpoint name (< 200 bytes here) and a suffix */
    const char *dtype;
    int n_dims;
    int64_t shape[TS_MAX_DIMS]; /* a conv kernel (the tower's patch embedding) is 5-D */
    const void *data;
    size_t bytes;
    void *owned;
} out_tensor;

static bool write_safetensors(const char *path, const out_tensor *t, int n)
{
    size_t cap = 1 << 20, hlen = 0, offset = 0;
    char *h = malloc(cap);
    hlen += (size_t)snprintf(h, cap, "{");
    for (int i = 0; i < n; i++) {
        hlen += (size_t)snprintf(h + hlen, cap - hlen, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "", t[i].name, t[i].dtype);
        for (int d = 0; d < t[i].n_dims; d++) hlen += (size_t)snprintf(h + hlen, cap - hlen, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        hlen += (size_t)snprintf(h + hlen, cap - hlen, "],\"data_offsets\":[%zu,%zu]}", offset, offset + t[i].bytes);
        offset += t[i].bytes;
    }
    hlen += (size_t)snprintf(h + hlen, cap - hlen, "}");
    while ((8 + hlen) % 64) h[hlen++] = ' ';
    FILE *f = fopen(path, "wb");
    uint64_t h64 = hlen;
    bool ok = f && fwrite(&h64, 8, 1, f) == 1 && fwrite(h, 1, hlen, f) == hlen;
    for (int i = 0; ok && i < n; i++) ok = fwrite(t[i].data, 1, t[i].bytes, f) == t[i].bytes;
    if (f) ok = fclose(f) == 0 && ok;
    free(h);
    return ok;
}

/* config.json of the fixture, with `extra` (a JSON member, or "") added before the final brace. */
static bool write_config(const char *fixture, const char *dir, const char *extra)
{
    char path[300];
    snprintf(path, sizeof(path), "tests/fixtures/%s/model/config.json", fixture);
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char *text = calloc(1, 1 << 16);
    size_t len = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    char *end = strrchr(text, '}');
    bool ok = end != NULL;
    snprintf(path, sizeof(path), "%s/config.json", dir);
    f = ok ? fopen(path, "wb") : NULL;
    ok = f && fwrite(text, 1, (size_t)(end - text), f) == (size_t)(end - text) && fprintf(f, "%s}\n", extra) > 0;
    if (f) ok = fclose(f) == 0 && ok;
    (void)len;
    free(text);
    return ok;
}

typedef enum { GPTQ4_V1, GPTQ8_V2, AWQ4, GPTQ4_DESC_ACT, GPTQ8_DESC_ACT, FORMATS } format;
static const int awq_order[8] = {0, 2, 4, 6, 1, 3, 5, 7}; /* nibble i holds column awq_order[i] */

/* Quantizes w [out, in] in groups along the input (GPTQ's rule: the range [min(w, 0), max(w, 0)]
 * over maxq steps, zero = round(−min / scale)), packs it as `fmt`, and writes the expected
 * dequantized matrix to deq. Adds the packed tensors (prefix.qweight, .qzeros, .scales, .g_idx)
 * to t. */
static int fmt_bits(format fmt) { return fmt == GPTQ8_V2 || fmt == GPTQ8_DESC_ACT ? 8 : 4; }

/* Which matrices a checkpoint packs: the language model's projections (as the text fixtures'
 * GPTQ/AWQ checkpoints), or every linear of the model, tower and projector included, in groups of
 * 16 (the tiny tower is 48 wide). */
typedef enum { LM_PROJECTIONS, EVERY_LINEAR } scope;

static int64_t fmt_group(format fmt, scope sc, int64_t in)
{
    if (fmt == GPTQ8_V2) return in;
    return fmt == GPTQ8_DESC_ACT || sc == EVERY_LINEAR ? 16 : 32;
}

static int pack(format fmt, const char *prefix, const float *w, int64_t out, int64_t in, int64_t group, float *deq,
                out_tensor *t)
{
    int bits = fmt_bits(fmt), per = 32 / bits, maxq = (1 << bits) - 1;
    int64_t groups = in / group;
    uint32_t *qw = calloc((size_t)(out * in / per), 4), *qz = calloc((size_t)(groups * out / per), 4);
    uint16_t *sc = malloc(sizeof(uint16_t) * (size_t)(groups * out));
    int32_t *gi = malloc(sizeof(int32_t) * (size_t)in);
    /* Group g's channels: member[g·group … (g + 1)·group − 1]; act order spreads them by a
     * shuffle (as GPTQ orders channels by the Hessian's diagonal), else g·group onwards. */
    int64_t *member = malloc(sizeof(int64_t) * (size_t)in);
    for (int64_t k = 0; k < in; k++) member[k] = k;
    if (fmt == GPTQ4_DESC_ACT || fmt == GPTQ8_DESC_ACT) {
        uint64_t state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(out * 31 + in);
        for (int64_t k = in - 1; k > 0; k--) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            int64_t r = (int64_t)((state >> 33) % (uint64_t)(k + 1)), tmp = member[k];
            member[k] = member[r], member[r] = tmp;
        }
    }
    for (int64_t j = 0; j < in; j++) gi[member[j]] = (int32_t)(j / group);
    for (int64_t o = 0; o < out; o++)
        for (int64_t g = 0; g < groups; g++) {
            float lo = 0, hi = 0;
            for (int64_t i = g * group; i < (g + 1) * group; i++) {
                int64_t k = member[i];
                lo = fminf(lo, w[o * in + k]), hi = fmaxf(hi, w[o * in + k]);
            }
            uint16_t s16 = ts_f32_to_f16((hi - lo) / (float)maxq);
            float s = ts_f16_to_f32_scalar(s16);
            int z = s > 0 ? (int)roundf(-lo / s) : 0;
            z = z < 0 ? 0 : z > maxq ? maxq : z;
            sc[g * out + o] = s16;
            unsigned zs = fmt == GPTQ4_V1 || fmt == GPTQ4_DESC_ACT ? (unsigned)(z - 1) & (unsigned)maxq : (unsigned)z;
            if (fmt == AWQ4) {
                int i = 0;
                while (awq_order[i] != o % 8) i++;
                qz[g * (out / 8) + o / 8] |= zs << (4 * i);
            } else {
                qz[g * (out / per) + o / per] |= zs << (bits * (o % per));
            }
            for (int64_t i = g * group; i < (g + 1) * group; i++) {
                int64_t k = member[i];
                int q = s > 0 ? (int)roundf(w[o * in + k] / s) + z : z;
                q = q < 0 ? 0 : q > maxq ? maxq : q;
                deq[o * in + k] = (float)(q - z) * s;
                if (fmt == AWQ4) {
                    int i = 0;
                    while (awq_order[i] != o % 8) i++;
                    qw[k * (out / 8) + o / 8] |= (uint32_t)q << (4 * i);
                } else {
                    qw[(k / per) * out + o] |= (uint32_t)q << (bits * (k % per));
                }
            }
        }
    free(member);
    int n = 0;
    out_tensor *x = &t[n++];
    *x = (out_tensor){.dtype = "I32", .n_dims = 2, .data = qw, .bytes = (size_t)(out * in / per) * 4, .owned = qw,
                      .shape = {fmt == AWQ4 ? in : in / per, fmt == AWQ4 ? out / 8 : out}};
    snprintf(x->name, sizeof(x->name), "%s.qweight", prefix);
    x = &t[n++];
    *x = (out_tensor){.dtype = "I32", .n_dims = 2, .data = qz, .bytes = (size_t)(groups * out / per) * 4, .owned = qz,
                      .shape = {groups, out / per}};
    snprintf(x->name, sizeof(x->name), "%s.qzeros", prefix);
    x = &t[n++];
    *x = (out_tensor){.dtype = "F16", .n_dims = 2, .data = sc, .bytes = sizeof(uint16_t) * (size_t)(groups * out), .owned = sc,
                      .shape = {groups, out}};
    snprintf(x->name, sizeof(x->name), "%s.scales", prefix);
    if (fmt == AWQ4) {
        free(gi);
    } else {
        x = &t[n++];
        *x = (out_tensor){.dtype = "I32", .n_dims = 1, .data = gi, .bytes = sizeof(int32_t) * (size_t)in, .owned = gi, .shape = {in}};
        snprintf(x->name, sizeof(x->name), "%s.g_idx", prefix);
    }
    return n;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

static bool packs(const ts_tensor_info *t, scope sc)
{
    if (t->n_dims != 2) return false;
    if (sc == LM_PROJECTIONS) return ends_with(t->name, "proj.weight") && !strstr(t->name, "visual.");
    return ends_with(t->name, ".weight") && !strstr(t->name, "embed_tokens") && !strstr(t->name, "lm_head");
}

static void greedy(ts_model *m, const int32_t *ids, int64_t n, float *logits, int32_t *tokens)
{
    ts_error err;
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t vocab = ts_model_vocab_size(m);
    ts_sequence *seq;
    REQUIRE_INT_EQ(ts_sequence_create(m, n + 16, &seq, &err), TS_OK);
    CHECK_INT_EQ(ts_model_prefill(m, seq, ids, (size_t)n, logits, &err), TS_OK);
    float *step = malloc(sizeof(float) * (size_t)vocab);
    memcpy(step, logits, sizeof(float) * (size_t)vocab);
    for (int i = 0; i < 16; i++) {
        tokens[i] = ts_argmax_masked(step, vocab, cfg->eos_token_ids, cfg->n_eos_token_ids);
        if (i < 15) CHECK_INT_EQ(ts_model_decode(m, &seq, &tokens[i], 1, step, &err), TS_OK);
    }
    free(step);
    ts_sequence_destroy(seq);
}

/* Whether the model serves matrix `name` [out, in] as bits-wide integers in groups of `group`
 * that dequantize to exactly `want`: column j of the integers is input channel perm[j] (act order;
 * else j itself), its group j / group, and perm lists each group's channels ascending (g_idx's).
 * *perm: the served permutation, or NULL. */
static bool served_exactly(ts_model *q, const char *name, int64_t out, int64_t in, int bits, int64_t group, const float *want,
                           const ts_tensor_info **perm_out)
{
    char key[300];
    const ts_weight_source *ws = ts_model_weights(q);
    int64_t g = in / group, qd[2] = {out, bits == 8 ? in : in / 2}, sd[2] = {out, g};
    snprintf(key, sizeof(key), "%s:q%d", name, bits);
    const ts_tensor_info *tq = ws->find(ws->self, key, 2, qd);
    snprintf(key, sizeof(key), "%s:q%d.scale", name, bits);
    const ts_tensor_info *ts = ws->find(ws->self, key, 2, sd);
    snprintf(key, sizeof(key), "%s:q%d.zero", name, bits);
    const ts_tensor_info *tz = ws->find(ws->self, key, 2, sd);
    snprintf(key, sizeof(key), "%s:q%d.perm", name, bits);
    const ts_tensor_info *tp = ws->find(ws->self, key, 1, &in);
    *perm_out = tp;
    if (!tq || !ts || !tz) return false;
    const int32_t *perm = tp ? tp->data : NULL;
    bool exact = true;
    for (int64_t j = 1; perm && j < in && exact; j++) exact = j % group == 0 || perm[j] > perm[j - 1];
    for (int64_t o = 0; o < out && exact; o++)
        for (int64_t j = 0; j < in && exact; j++) {
            const uint8_t *qb = (const uint8_t *)tq->data + o * qd[1];
            int64_t k = perm ? perm[j] : j;
            float v = bits == 8 ? (float)((const int8_t *)qb)[j] : (float)(j % 2 ? qb[j / 2] >> 4 : qb[j / 2] & 15);
            float z = (float)((const int8_t *)tz->data)[o * g + j / group];
            float s = ts_f16_to_f32_scalar(((const uint16_t *)ts->data)[o * g + j / group]);
            exact = k >= 0 && k < in && (v - z) * s == want[o * in + k];
        }
    return exact;
}

/* The GPTQ/AWQ fixtures made with transformers (tools/fixtures/make_packed_fixture.py: a packer in
 * Python, written from the published formats apart from this file's and the unpacker's): every
 * served matrix dequantizes exactly to the generator's dequantized.<name>, and the checkpoint
 * gives transformers' prefill logits (≤ 1e-4 × max) and 16 greedy tokens on the dequantized
 * model, from the source case's prompt. `group`: the checkpoint's group size (-1: a row);
 * act_order: every matrix served with a permutation. */
static void check_transformers_fixture(const char *fixture_case, int bits, int64_t group, bool act_order)
{
    char dir[160], path[200];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", fixture_case);
    snprintf(path, sizeof(path), "tests/fixtures/%s/reference.safetensors", fixture_case);
    ts_error err;
    ts_checkpoint *ref;
    ts_model *q;
    REQUIRE_INT_EQ(ts_checkpoint_open(path, &ref, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &q, &err), TS_OK);
    int matrices = 0, exact = 0, permuted = 0;
    for (size_t i = 0; i < ts_checkpoint_tensor_count(ref); i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(ref, i), *perm;
        if (strncmp(t->name, "dequantized.", 12) != 0) continue;
        REQUIRE(t->dtype == TS_DTYPE_F32 && t->n_dims == 2);
        int64_t out = t->shape[0], in = t->shape[1];
        matrices++;
        exact += served_exactly(q, t->name + 12, out, in, bits, group > 0 ? group : in, t->data, &perm);
        permuted += perm != NULL;
    }
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids"),
                         *last = ts_checkpoint_find(ref, "prefill_last_logits");
    REQUIRE(ids64 && gen && last && gen->shape[0] == 16);
    int64_t len = ids64->shape[1], vocab = ts_model_vocab_size(q);
    REQUIRE(last->shape[0] == vocab);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)len), tokens[16];
    for (int64_t i = 0; i < len; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    float *logits = malloc(sizeof(float) * (size_t)vocab);
    greedy(q, ids, len, logits, tokens);
    double diff = rel_max_diff(logits, last->data, (size_t)vocab);
    int agree = 0;
    for (int i = 0; i < 16; i++) agree += tokens[i] == (int32_t)((const int64_t *)gen->data)[i];
    fprintf(stderr, "  %s: %d/%d matrices dequantize exactly to the generator's (%d in act order); prefill logits within "
            "%.1e (of max) of transformers' on the dequantized model; greedy tokens %d/16 as transformers'\n    %s\n",
            fixture_case, exact, matrices, permuted, diff, agree, ts_model_quantization_summary(q));
    CHECK(matrices > 0 && exact == matrices);
    CHECK_INT_EQ(permuted, act_order ? matrices : 0);
    CHECK(diff <= 1e-4);
    CHECK_INT_EQ(agree, 16);
    free(ids), free(logits);
    ts_model_destroy(q);
    ts_checkpoint_close(ref);
}

static void test_transformers_fixtures(void)
{
    check_transformers_fixture("qwen2-gptq4-act_order", 4, 32, true);
    check_transformers_fixture("llama-awq4", 4, 32, false);
    check_transformers_fixture("qwen3-gptq8", 8, -1, false);
}

/* A checkpoint whose tower and projector are packed too: the packed model's image rows and its
 * image prompt's prefill logits and 16 greedy tokens equal the f32 model of the dequantized
 * weights' (the reference's prompt ids and image). */
static void check_image(const char *fixture, const char *pdir, const char *what, ts_model *q, ts_model *d)
{
    char dir[128], path[200];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", fixture);
    ts_error err;
    ts_preprocessor_config pc;
    ts_image img;
    ts_pixel_values pv;
    REQUIRE_INT_EQ(ts_preprocessor_config_load(dir, &pc, &err), TS_OK);
    snprintf(path, sizeof(path), "tests/fixtures/%s/chelsea.png", fixture);
    REQUIRE_INT_EQ(ts_image_load(path, NULL, &img, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(q);
    REQUIRE_INT_EQ(ts_preprocess_image(&pc, cfg->family, img.rgb, img.width, img.height, NULL, &pv, &err), TS_OK);
    ts_image_free(&img);
    float *rows[2];
    int64_t n_rows[2];
    ts_model *models[2] = {q, d};
    for (int i = 0; i < 2; i++) REQUIRE_INT_EQ(ts_vision_encode(ts_model_vision(models[i]), &pv, 1, &rows[i], &n_rows[i], &err), TS_OK);
    REQUIRE(n_rows[0] == n_rows[1]);
    double tower = rel_max_diff(rows[0], rows[1], (size_t)(n_rows[0] * cfg->text.hidden_size));
    CHECK(tower <= 1e-4);
    /* The checkpoint's bundle with a vision.main for this image: its packed tower matrices in the
     * bundle's integer weights, the same rows as the engine's. */
    char bundle[] = "/tmp/ts_packed_vision_XXXXXX", cmd[128];
    REQUIRE(mkdtemp(bundle) != NULL);
    const int64_t caps[1] = {128}, patches[1] = {pv.shape[0]};
    ts_bundle_options bo = {.capacities = caps, .n_capacities = 1, .prefill_capacity = 128, .slots = 1,
                            .vision_patches = patches, .n_vision_patches = 1};
    ts_bundle *b = NULL;
    double through_bundle = INFINITY;
    CHECK_INT_EQ(ts_bundle_export(pdir, bundle, &bo, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_open(ctx, bundle, pdir, &b, &err), TS_OK);
    ts_encoded_media bm = {0};
    if (b && ts_bundle_encode_images(b, &pv, 1, &bm, &err) == TS_OK && bm.n_rows == n_rows[0])
        through_bundle = rel_max_diff(bm.rows, rows[0], (size_t)(n_rows[0] * cfg->text.hidden_size));
    CHECK(through_bundle <= 1e-5);
    ts_encoded_media_free(&bm);
    ts_bundle_close(b);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", bundle);
    CHECK(system(cmd) == 0);

    ts_checkpoint *ref;
    snprintf(path, sizeof(path), "tests/fixtures/%s/reference.safetensors", fixture);
    REQUIRE_INT_EQ(ts_checkpoint_open(path, &ref, &err), TS_OK);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids");
    REQUIRE(ids64 != NULL);
    int64_t len = ids64->shape[1], vocab = ts_model_vocab_size(q);
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)len), tokens[2][16];
    for (int64_t i = 0; i < len; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    float *logits[2] = {malloc(sizeof(float) * (size_t)vocab), malloc(sizeof(float) * (size_t)vocab)};
    float *first = malloc(sizeof(float) * (size_t)vocab); /* the packed model's prefill logits */
    double prefill = 0;
    for (int m = 0; m < 2; m++) {
        ts_sequence *seq;
        REQUIRE_INT_EQ(ts_sequence_create(models[m], len + 16, &seq, &err), TS_OK);
        REQUIRE_INT_EQ(ts_model_prefill_images(models[m], seq, ids, (size_t)len, &pv, 1, logits[m], &err), TS_OK);
        if (m == 0) memcpy(first, logits[0], sizeof(float) * (size_t)vocab);
        else prefill = rel_max_diff(first, logits[1], (size_t)vocab);
        for (int i = 0; i < 16; i++) {
            tokens[m][i] = ts_argmax_masked(logits[m], vocab, cfg->eos_token_ids, cfg->n_eos_token_ids);
            if (i < 15) REQUIRE_INT_EQ(ts_model_decode(models[m], &seq, &tokens[m][i], 1, logits[m], &err), TS_OK);
        }
        ts_sequence_destroy(seq);
    }
    bool same = memcmp(tokens[0], tokens[1], sizeof(tokens[0])) == 0;
    fprintf(stderr, "    %s with its tower packed: %lld image rows within %.1e (through a bundle's vision.main: %.1e), "
            "image prompt's prefill logits within %.1e (of max) of the dequantized f32 model's; 16 greedy tokens %s\n", what,
            (long long)n_rows[0], tower, through_bundle, prefill, same ? "identical" : "DIFFER");
    CHECK(prefill <= 1e-4);
    CHECK(same);
    free(ids), free(first), free(logits[0]), free(logits[1]), free(rows[0]), free(rows[1]);
    ts_pixel_values_free(&pv);
    ts_checkpoint_close(ref);
}

/* The checkpoint exported as a bundle (its matrices quantized as published: the unpacked integer
 * weights, scales and zero points in the bundle's own file) and run by the bundle runtime: the
 * engine's 16 greedy tokens. The export, our runtime and the external compilers read the same
 * files (tests/iree_oracle_text_test.sh and tests/xla_oracle_test.sh run such a bundle of the
 * GPTQ 4-bit act-order fixture, tests/fixtures/qwen2-gptq4-act_order: its modules gather each
 * linear's input channels, then dequantize). */
/* The bundle's own file with one act-order permutation damaged (its second channel made its
 * first's: the bytes found by value, `perm` being the engine's copy): the bundle is refused at
 * open, naming the tensor. */
static void check_damaged_permutation(const char *bundle, const char *model, const ts_tensor_info *perm)
{
    char path[300];
    snprintf(path, sizeof(path), "%s/quantized.safetensors", bundle);
    FILE *f = fopen(path, "rb");
    REQUIRE(f != NULL);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *bytes = malloc((size_t)size);
    CHECK(fread(bytes, 1, (size_t)size, f) == (size_t)size);
    fclose(f);
    char *at = memmem(bytes, (size_t)size, perm->data, perm->n_bytes);
    CHECK(at != NULL);
    if (at) memcpy(at + 4, at, 4);
    f = fopen(path, "wb");
    CHECK(f && fwrite(bytes, 1, (size_t)size, f) == (size_t)size);
    if (f) fclose(f);
    free(bytes);
    ts_bundle *b = NULL;
    ts_error err;
    CHECK_INT_EQ(ts_bundle_open(ctx, bundle, model, &b, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, perm->name);
    CHECK_CONTAINS(err.message, "is not a permutation of 0 … ");
    fprintf(stderr, "    a damaged permutation in the bundle's file: %s\n", err.message);
    ts_bundle_close(b);
}

static void check_bundle(const char *model, const char *what, const int32_t *ids, int64_t n, const int32_t *engine,
                         const ts_tensor_info *perm)
{
    char bundle[] = "/tmp/ts_packed_bundle_XXXXXX", cmd[128];
    REQUIRE(mkdtemp(bundle) != NULL);
    const int64_t caps[1] = {32};
    ts_bundle_options o = {.capacities = caps, .n_capacities = 1, .prefill_capacity = 16, .slots = 1};
    ts_error err;
    ts_bundle *b = NULL;
    CHECK_INT_EQ(ts_bundle_export(model, bundle, &o, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_open(ctx, bundle, model, &b, &err), TS_OK);
    if (b) {
        ts_generate_params p = {.max_tokens = 16, .ignore_eos = true};
        ts_sampling_params_default(&p.sampling);
        p.sampling.temperature = 0;
        ts_generation out = {0};
        CHECK_INT_EQ(ts_bundle_generate(b, ids, (size_t)n, &p, &out, &err), TS_OK);
        bool same = out.n_ids == 16 && memcmp(out.ids, engine, sizeof(int32_t) * 16) == 0;
        fprintf(stderr, "    %s through a bundle: 16 greedy tokens %s the engine's\n", what, same ? "equal" : "DIFFER FROM");
        CHECK(same);
        ts_generation_free(&out);
        ts_bundle_close(b);
    }
    char path[200];
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    FILE *f = fopen(path, "rb");
    char text[1 << 15] = "";
    size_t got = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    text[got] = 0;
    if (f) fclose(f);
    CHECK(strstr(text, "\"zero_points\":\ttrue") != NULL); /* GPTQ and AWQ carry zero points */
    CHECK((strstr(text, "\"act_order\":\ttrue") != NULL) == (perm != NULL));
    if (perm) check_damaged_permutation(bundle, model, perm);
    o.quantize = "q8"; /* quantized twice: refused */
    CHECK_INT_EQ(ts_bundle_export(model, bundle, &o, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "--quantize q8: the checkpoint is already quantized");
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", bundle);
    CHECK(system(cmd) == 0);
}

static const char *const format_names[FORMATS] = {"GPTQ 4-bit v1", "GPTQ 8-bit v2", "AWQ 4-bit GEMM", "GPTQ 4-bit desc_act",
                                                  "GPTQ 8-bit desc_act"};

/* A malformed act order to write instead (test_act_order_refused): g_idx's first value set to
 * −1 (not a group), or the first channel of another group moved to channel 0's (overfull). */
typedef enum { INTACT, GROUP_OUT_OF_RANGE, GROUP_OVERFULL } g_idx_damage;

/* The quantization_config a checkpoint of `fmt` declares. */
static void qconfig(format fmt, scope sc, char *buf, size_t cap)
{
    long long g = fmt == GPTQ8_V2 ? -1 : (long long)fmt_group(fmt, sc, 0);
    const char *head = ",\n  \"quantization_config\": {\"quant_method\": ";
    switch (fmt) {
    case GPTQ4_V1:
        snprintf(buf, cap, "%s\"gptq\", \"bits\": 4, \"group_size\": %lld, \"desc_act\": false, \"sym\": false}", head, g);
        break;
    case GPTQ8_V2:
        snprintf(buf, cap, "%s\"gptq\", \"bits\": 8, \"group_size\": %lld, \"desc_act\": false, \"checkpoint_format\": \"gptq_v2\"}",
                 head, g);
        break;
    case AWQ4:
        snprintf(buf, cap, "%s\"awq\", \"bits\": 4, \"group_size\": %lld, \"version\": \"gemm\", \"zero_point\": true}", head, g);
        break;
    case GPTQ4_DESC_ACT:
        snprintf(buf, cap, "%s\"gptq\", \"bits\": 4, \"group_size\": %lld, \"desc_act\": true}", head, g);
        break;
    default:
        snprintf(buf, cap, "%s\"gptq\", \"bits\": 8, \"group_size\": %lld, \"desc_act\": true, \"checkpoint_format\": \"gptq_v2\"}",
                 head, g);
    }
}

static void check_format_damaged(const char *fixture, format fmt, g_idx_damage damage, scope sc)
{
    char src[200], pdir[] = "/tmp/ts_packed_XXXXXX", ddir[] = "/tmp/ts_deq_XXXXXX", path[300];
    snprintf(src, sizeof(src), "tests/fixtures/%s/model", fixture);
    ts_error err;
    ts_checkpoint *ck;
    REQUIRE_INT_EQ(ts_checkpoint_open(src, &ck, &err), TS_OK);
    CHECK(mkdtemp(pdir) && mkdtemp(ddir));
    size_t n = ts_checkpoint_tensor_count(ck);
    out_tensor *packed = calloc(n * 4, sizeof(out_tensor)), *plain = calloc(n, sizeof(out_tensor));
    int np = 0, nm = 0;
    float **deq = calloc(n, sizeof(float *));
    for (size_t i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(ck, i);
        out_tensor copy = {.dtype = "F32", .n_dims = t->n_dims, .data = t->data, .bytes = t->n_bytes};
        snprintf(copy.name, sizeof(copy.name), "%s", t->name);
        for (int d = 0; d < t->n_dims; d++) copy.shape[d] = t->shape[d];
        plain[i] = copy;
        if (!packs(t, sc)) {
            packed[np++] = copy;
            continue;
        }
        int64_t out = t->shape[0], in = t->shape[1];
        deq[i] = malloc(sizeof(float) * (size_t)(out * in));
        char prefix[200];
        snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(t->name) - 7), t->name);
        np += pack(fmt, prefix, t->data, out, in, fmt_group(fmt, sc, in), deq[i], packed + np);
        plain[i].data = deq[i];
        nm++;
    }
    const char *damaged = NULL;
    for (int i = 0; damage && i < np && !damaged; i++)
        if (strstr(packed[i].name, ".g_idx")) {
            int32_t *gi = packed[i].owned;
            if (damage == GROUP_OUT_OF_RANGE) gi[0] = -1;
            else
                for (int64_t k = 1; k < packed[i].shape[0]; k++)
                    if (gi[k] != gi[0]) {
                        gi[k] = gi[0];
                        break;
                    }
            damaged = packed[i].name;
        }
    snprintf(path, sizeof(path), "%s/model.safetensors", pdir);
    CHECK(write_safetensors(path, packed, np));
    char qc[400];
    qconfig(fmt, sc, qc, sizeof(qc));
    CHECK(write_config(fixture, pdir, qc));
    snprintf(path, sizeof(path), "%s/model.safetensors", ddir);
    CHECK(write_safetensors(path, plain, (int)n));
    CHECK(write_config(fixture, ddir, ""));

    ts_model *q = NULL, *d = NULL;
    bool act_order = fmt == GPTQ4_DESC_ACT || fmt == GPTQ8_DESC_ACT;
    ts_status loaded = ts_model_load(ctx, pdir, NULL, &q, &err);
    if (damaged) {
        /* refused, naming the tensor and the channel */
        CHECK_INT_EQ(loaded, TS_ERR_FORMAT);
        CHECK_CONTAINS(err.message, damaged);
        CHECK_CONTAINS(err.message, damage == GROUP_OUT_OF_RANGE ? "g_idx[0] = -1 is not a group (0 … " : "would have more than 32 channels");
        fprintf(stderr, "  damaged act order refused: %s\n", err.message);
    } else {
        if (loaded != TS_OK) fprintf(stderr, "%s: %s\n", format_names[fmt], err.message);
        CHECK(q != NULL);
    }
    REQUIRE_INT_EQ(ts_model_load(ctx, ddir, NULL, &d, &err), TS_OK);
    if (q && d) {
        /* The served tensors dequantize to exactly the matrices the packer meant: column j of
         * the integer weights is input channel perm[j] (j in act order, else j itself), its
         * group j / group, and perm lists each group's channels (g_idx's, ascending). */
        bool exact = true;
        const ts_tensor_info *first_perm = NULL;
        for (size_t i = 0; i < n && exact; i++) {
            if (!deq[i]) continue;
            const ts_tensor_info *t = ts_checkpoint_tensor_at(ck, i), *perm = NULL;
            exact = served_exactly(q, t->name, t->shape[0], t->shape[1], fmt_bits(fmt), fmt_group(fmt, sc, t->shape[1]), deq[i],
                                   &perm) &&
                    (perm != NULL) == act_order;
            if (!first_perm) first_perm = perm;
        }
        CHECK(exact);
        int32_t ids[7] = {9707, 11, 1879, 0, 42, 7, 300}, tq[16], td[16];
        int64_t vocab = ts_model_vocab_size(q);
        for (int i = 0; i < 7; i++) ids[i] %= (int32_t)vocab;
        float *lq = malloc(sizeof(float) * (size_t)vocab), *ld = malloc(sizeof(float) * (size_t)vocab);
        greedy(q, ids, 7, lq, tq);
        greedy(d, ids, 7, ld, td);
        double diff = 0, scale = 0;
        for (int64_t i = 0; i < vocab; i++) diff = fmax(diff, fabs((double)lq[i] - ld[i])), scale = fmax(scale, fabs(ld[i]));
        bool same = memcmp(tq, td, sizeof(tq)) == 0;
        fprintf(stderr, "  %s %s (%d matrices): dequantization %s; logits max |diff| %.2e of %.2f vs the f32 model of the dequantized "
                "weights; 16 greedy tokens %s\n    %s\n", fixture, format_names[fmt], nm, exact ? "exact" : "WRONG", diff, scale,
                same ? "identical" : "DIFFER", ts_model_quantization_summary(q));
        CHECK(diff <= 1e-4 * fmax(1.0, scale));
        CHECK(same);
        free(lq), free(ld);
        if (sc == EVERY_LINEAR) check_image(fixture, pdir, format_names[fmt], q, d);
        check_bundle(pdir, format_names[fmt], ids, 7, tq, first_perm);
    }
    ts_model_destroy(q);
    ts_model_destroy(d);
    for (int i = 0; i < np; i++) free(packed[i].owned);
    for (size_t i = 0; i < n; i++) free(deq[i]);
    free(deq), free(packed), free(plain);
    ts_checkpoint_close(ck);
    const char *dirs[2] = {pdir, ddir};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof(path), "%s/model.safetensors", dirs[i]);
        remove(path);
        snprintf(path, sizeof(path), "%s/config.json", dirs[i]);
        remove(path);
        rmdir(dirs[i]);
    }
}

static void check_format(const char *fixture, format fmt) { check_format_damaged(fixture, fmt, INTACT, LM_PROJECTIONS); }

static void test_gptq4(void) { check_format("qwen2", GPTQ4_V1), check_format("llama", GPTQ4_V1); }
static void test_gptq8(void) { check_format("qwen2", GPTQ8_V2); }
static void test_awq4(void) { check_format("qwen2", AWQ4), check_format("llama", AWQ4); }
static void test_act_order(void)
{
    check_format("qwen2", GPTQ4_DESC_ACT), check_format("llama", GPTQ4_DESC_ACT), check_format("qwen2", GPTQ8_DESC_ACT);
}

/* A VLM whose tower and projector the checkpoint packs as well (GPTQ 4-bit, with and without act
 * order, and AWQ 4-bit). */
static void test_packed_tower(void)
{
    check_format_damaged("qwen2_vl", GPTQ4_V1, INTACT, EVERY_LINEAR);
    check_format_damaged("qwen2_vl", GPTQ4_DESC_ACT, INTACT, EVERY_LINEAR);
    check_format_damaged("qwen2_vl", AWQ4, INTACT, EVERY_LINEAR);
}

static void test_act_order_refused(void)
{
    check_format_damaged("qwen2", GPTQ4_DESC_ACT, GROUP_OUT_OF_RANGE, LM_PROJECTIONS);
    check_format_damaged("qwen2", GPTQ4_DESC_ACT, GROUP_OVERFULL, LM_PROJECTIONS);
}

/* A config naming an unsupported variant is refused before any tensor is read. */
static void expect_refused(const char *qconfig, const char *what)
{
    char dir[] = "/tmp/ts_refuse_XXXXXX", path[300];
    REQUIRE(mkdtemp(dir) != NULL);
    CHECK(write_config("qwen2", dir, qconfig));
    ts_error err;
    ts_model *m = NULL;
    ts_model_options o = {.weights = "tests/fixtures/qwen2/model/model.safetensors"};
    CHECK(ts_model_load(ctx, dir, &o, &m, &err) == TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, what);
    ts_model_destroy(m);
    snprintf(path, sizeof(path), "%s/config.json", dir);
    remove(path);
    rmdir(dir);
}

static void test_refusals(void)
{
    expect_refused(", \"quantization_config\": {\"quant_method\": \"bitsandbytes\", \"load_in_4bit\": true}",
                   "quant_method 'bitsandbytes' is not supported (gptq, awq)");
    expect_refused(", \"quantization_config\": {\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, \"version\": \"gemv\"}",
                   "AWQ version 'gemv' is not supported (gemm)");
    expect_refused(", \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 3, \"group_size\": 128}",
                   "GPTQ with bits 3 is not supported (4 or 8)");
    expect_refused(", \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"checkpoint_format\": \"marlin\"}",
                   "checkpoint_format 'marlin' is not supported");
    /* A GPTQ config over a float checkpoint: no .qweight to unpack. */
    char dir[] = "/tmp/ts_refuse_XXXXXX", path[300];
    REQUIRE(mkdtemp(dir) != NULL);
    CHECK(write_config("qwen2", dir, ", \"quantization_config\": {\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 32}"));
    ts_error err;
    ts_model *m = NULL;
    ts_model_options o = {.weights = "tests/fixtures/qwen2/model/model.safetensors"};
    CHECK(ts_model_load(ctx, dir, &o, &m, &err) == TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "declares gptq quantization but the checkpoint has no .qweight tensor");
    snprintf(path, sizeof(path), "%s/config.json", dir);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_gptq4);
    RUN(test_gptq8);
    RUN(test_awq4);
    RUN(test_refusals);
    RUN(test_act_order);
    RUN(test_act_order_refused);
    RUN(test_packed_tower);
    RUN(test_transformers_fixtures);
    ts_context_destroy(ctx);
    return check_finish();
}
