/* bundle_test.c — export, open and run StableHLO bundles of the text fixtures.
 *
 * Generation through the bundle equals generation through the engine's graph (greedy tokens
 * identical, logits within 1e-5); token prefill and embeddings prefill (embed[tokens] with a
 * causal bias) agree bit for bit; admission picks the smallest bucket or refuses with the
 * numbers; and every way a bundle or a call can be wrong is rejected with its own message. */
#include "base/context.h"
#include "base/file.h"
#include "bundle/bundle.h"
#include "bundle/bundle_internal.h"
#include "bundle/manifest.h"
#include "engine/model.h"
#include "engine/vision.h"
#include "export/printer.h"
#include "export/reader.h"
#include "check.h"

#include <ftw.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

static ts_context *ctx;
static char tmp[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    fputs(text, f);
    fclose(f);
}

__attribute__((noinline)) static char *read_text(const char *path)
{
    char *t = NULL;
    size_t n;
    ts_error err;
    ts_file_read(path, &t, &n, &err);
    return t;
}

static ts_tensor_arg arg_i32(const char *name, const int32_t *data, int rank, int64_t d0)
{
    ts_tensor_arg a = {.name = name, .dtype = TS_DTYPE_I32, .rank = rank, .data = data};
    if (rank) a.dims[0] = d0;
    a.n_bytes = sizeof(int32_t) * (size_t)(rank ? d0 : 1);
    return a;
}

static ts_tensor_arg arg_f32(const char *name, const float *data, int rank, const int64_t *dims)
{
    ts_tensor_arg a = {.name = name, .dtype = TS_DTYPE_F32, .rank = rank, .data = data};
    size_t n = 1;
    for (int i = 0; i < rank; i++) a.dims[i] = dims[i], n *= (size_t)dims[i];
    a.n_bytes = n * sizeof(float);
    return a;
}

static int argmax(const float *x, int64_t n, const int64_t *eos, int n_eos)
{
    int best = -1;
    for (int64_t i = 0; i < n; i++) {
        bool masked = false;
        for (int e = 0; e < n_eos; e++) masked |= eos[e] == i;
        if (!masked && (best < 0 || x[i] > x[best])) best = (int)i;
    }
    return best;
}

static float max_diff(const float *a, const float *b, int64_t n)
{
    float worst = 0;
    for (int64_t i = 0; i < n; i++) worst = fmaxf(worst, fabsf(a[i] - b[i]));
    return worst;
}

/* The fixtures' tolerance: 1e-4 × max(1, max |ref|). */
static float tolerance_of(const float *ref, int64_t n)
{
    float limit = 1;
    for (int64_t i = 0; i < n; i++) limit = fmaxf(limit, fabsf(ref[i]));
    return 1e-4f * limit;
}

static const int64_t caps[2] = {32, 64};

/* quantize: NULL, or "q8"/"q4" (a quantized bundle). */
static bool export_case(const char *name, const char *bundle, const char *quantize)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    ts_bundle_options o = {.capacities = caps, .n_capacities = 2, .prefill_capacity = 32, .slots = 1, .quantize = quantize};
    ts_error err;
    if (ts_bundle_export(dir, bundle, &o, &err) != TS_OK) {
        fprintf(stderr, "export: %s\n", err.message);
        return false;
    }
    return true;
}

/* Greedy generation through the bundle vs the engine: tokens identical, logits bit for bit. With
 * `quantize` ("q8"/"q4") both are the quantized model (the bundle's integer weights are the
 * engine's), both with f32 activations (the context's default compute); the reference's tokens
 * (the float model's) are then not asked for. */
static void generation_matches_engine_as(const char *name, const char *quantize)
{
    char dir[128], bundle[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(bundle, sizeof(bundle), "%s/%s%s", tmp, name, quantize ? quantize : "");
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    CHECK(export_case(name, bundle, quantize));
    ts_error err;
    ts_bundle *b;
    if (ts_bundle_open(ctx, bundle, dir, &b, &err) != TS_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        CHECK(false);
        return;
    }
    ts_checkpoint *ref;
    ts_checkpoint_open(refpath, &ref, &err);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    int32_t n = (int32_t)ids64->shape[1], n_new = (int32_t)gen->shape[0];
    int bucket;
    CHECK_INT_EQ(ts_bundle_admit(b, n, n_new, &bucket, &err), TS_OK);
    int64_t cap, lp, slots;
    ts_bundle_bucket(b, bucket, &cap, &lp, &slots);
    int32_t tokens[64] = {0};
    for (int i = 0; i < n; i++) tokens[i] = (int32_t)((const int64_t *)ids64->data)[i];

    ts_model *m;
    ts_model_options mo = {.quantize = quantize};
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, &mo, &m, &err), TS_OK);
    const ts_model_config *cfg = ts_model_get_config(m);
    int64_t V = ts_model_vocab_size(m);
    ts_sequence *seq;
    ts_sequence_create(m, cap, &seq, &err);
    float *engine = malloc(sizeof(float) * (size_t)V);
    CHECK_INT_EQ(ts_model_prefill(m, seq, tokens, (size_t)n, engine, &err), TS_OK);

    ts_tensor_arg pre[2] = {arg_i32("tokens", tokens, 1, lp), arg_i32("length", &n, 0, 0)};
    const void *outs[3];
    CHECK_INT_EQ(ts_bundle_run(b, bucket, "prefill.main", pre, 2, outs, &err), TS_OK);
    int64_t layers = cfg->text.num_hidden_layers, kvh = cfg->text.num_key_value_heads;
    int64_t hd = cfg->text.head_dim ? cfg->text.head_dim : cfg->text.hidden_size / cfg->text.num_attention_heads;
    size_t cache = (size_t)(layers * cap * kvh * hd);
    float *k = malloc(sizeof(float) * cache), *v = malloc(sizeof(float) * cache);
    memcpy(k, outs[1], sizeof(float) * cache);
    memcpy(v, outs[2], sizeof(float) * cache);
    const float *logits = outs[0];
    double worst = 0;
    bool same = true;
    int in_place = 0;
    for (int32_t i = 0; i < n_new; i++) {
        for (int64_t j = 0; j < V; j++) worst = fmax(worst, fabs((double)logits[j] - engine[j]));
        int32_t tok = argmax(logits, V, cfg->eos_token_ids, cfg->n_eos_token_ids);
        same &= tok == argmax(engine, V, cfg->eos_token_ids, cfg->n_eos_token_ids);
        same &= quantize || tok == (int32_t)((const int64_t *)gen->data)[i];
        if (i + 1 == n_new) break;
        int32_t pos = n + i, delta = 0, len = n + i;
        int64_t kd[5] = {1, layers, cap, kvh, hd};
        ts_tensor_arg dec[6] = {arg_i32("tokens", &tok, 1, 1), arg_i32("positions", &pos, 1, 1), arg_i32("rope_delta", &delta, 1, 1),
                                arg_i32("cache_len", &len, 1, 1), arg_f32("k", k, 5, kd), arg_f32("v", v, 5, kd)};
        CHECK_INT_EQ(ts_bundle_run(b, bucket, "decode.main", dec, 6, outs, &err), TS_OK);
        in_place += outs[1] == (const void *)k && outs[2] == (const void *)v; /* donated: the caches were updated in place */
        logits = outs[0];
        REQUIRE_INT_EQ(ts_model_decode(m, &seq, &tok, 1, engine, &err), TS_OK);
    }
    fprintf(stderr, "  %s%s%s: bundle greedy tokens (%d) %s the engine's%s; max |logit diff| %.2g\n", name, quantize ? " " : "",
            quantize ? quantize : "", n_new, same ? "equal" : "DIFFER FROM", quantize ? " (quantized alike)" : " and the reference's", worst);
    CHECK(same);
    CHECK(worst == 0); /* bit for bit: the bundle runs the engine's layer stack and kernels */
    CHECK_INT_EQ(in_place, n_new - 1);

    /* Token prefill vs embeddings prefill with embed[tokens] and a causal bias: bit-identical. */
    const ts_tensor_info *table = ts_checkpoint_find(ref, "hidden_state_0"); /* = embed[tokens] for text models */
    int64_t H = cfg->text.hidden_size;
    float *emb = calloc((size_t)(lp * H), sizeof(float)), *bias = malloc(sizeof(float) * (size_t)(lp * lp));
    memcpy(emb, table->data, sizeof(float) * (size_t)(n * H));
    int32_t positions[64];
    for (int i = 0; i < lp; i++) {
        positions[i] = i;
        for (int j = 0; j < lp; j++) bias[i * lp + j] = j <= i ? 0.0f : -INFINITY;
    }
    CHECK_INT_EQ(ts_bundle_run(b, bucket, "prefill.main", pre, 2, outs, &err), TS_OK);
    float *tok_logits = malloc(sizeof(float) * (size_t)V), *tok_k = malloc(sizeof(float) * cache), *tok_v = malloc(sizeof(float) * cache);
    memcpy(tok_logits, outs[0], sizeof(float) * (size_t)V);
    memcpy(tok_k, outs[1], sizeof(float) * cache);
    memcpy(tok_v, outs[2], sizeof(float) * cache);
    int64_t ed[2] = {lp, H}, bd[2] = {lp, lp};
    ts_tensor_arg pe[4] = {arg_f32("embeddings", emb, 2, ed), arg_i32("positions", positions, 1, lp), arg_f32("bias", bias, 2, bd),
                           arg_i32("length", &n, 0, 0)};
    CHECK_INT_EQ(ts_bundle_run(b, bucket, "prefill_embeddings.main", pe, 4, outs, &err), TS_OK);
    CHECK(memcmp(outs[0], tok_logits, sizeof(float) * (size_t)V) == 0);
    CHECK(memcmp(outs[1], tok_k, sizeof(float) * cache) == 0);
    CHECK(memcmp(outs[2], tok_v, sizeof(float) * cache) == 0);

    free(tok_logits), free(tok_k), free(tok_v), free(emb), free(bias), free(k), free(v), free(engine);
    ts_sequence_destroy(seq);
    ts_model_destroy(m);
    ts_checkpoint_close(ref);
    ts_bundle_close(b);
}

static void generation_matches_engine(const char *name) { generation_matches_engine_as(name, NULL); }

static void test_qwen2(void) { generation_matches_engine("qwen2"); }
static void test_qwen3(void) { generation_matches_engine("qwen3"); }
static void test_llama(void) { generation_matches_engine("llama"); }

/* Quantized bundles (tessera export --quantize): the modules take the integer weights and scales,
 * never the float matrices, and dequantize them in the graph (tessera.qlinear); run by our
 * runtime they give the quantized engine's logits bit for bit and its greedy tokens. */
static void test_quantized(void)
{
    static const char *const names[2] = {"qwen2", "llama"}, *const formats[2] = {"q8", "q4"};
    for (int i = 0; i < 2; i++)
        for (int f = 0; f < 2; f++) generation_matches_engine_as(names[i], formats[f]);
    char path[256];
    snprintf(path, sizeof(path), "%s/qwen2q4/c32/decode.mlir", tmp);
    char *text = read_text(path);
    CHECK(text && strstr(text, "stablehlo.composite \"tessera.qlinear\"") &&
          strstr(text, "tessera.name = \"model.layers.0.mlp.down_proj.weight:q4\"") &&
          strstr(text, "tensor<64x80xui8> {tessera.name = \"model.layers.0.mlp.down_proj.weight:q4\"") && !strstr(text, "tessera.name = \"model.layers.0.mlp.down_proj.weight\""));
    free(text);
    snprintf(path, sizeof(path), "%s/qwen2q8/manifest.json", tmp);
    text = read_text(path);
    CHECK(text && strstr(text, "\"quantization\":\t{\n\t\t\"version\":\t1,\n\t\t\"method\":\t\"q8\",\n\t\t\"file\":\t\"quantized.safetensors\""));
    free(text);
}

/* The emitted text of each fixture's modules equals the committed golden files byte for byte,
 * and print → read → print reproduces every module exactly (qwen3_vl_moe: the moe_mlp composite
 * with its decomposition, interleaved M-RoPE positions; qwen3_vl and qwen3_vl_moe: also
 * prefill_embeddings_deepstack.main with its scatter-adds and the manifest's DeepStack layers;
 * qwen3_vl: also vision.main of its tower for 16 patches, with the manifest's vision section). */
static void test_golden_and_round_trip(void)
{
    static const char *const cases[] = {"qwen2", "qwen3", "llama", "qwen3_vl_moe", "qwen3_vl"};
    static const char *const files[] = {"manifest.json", "c32/prefill.mlir", "c32/prefill_embeddings.mlir", "c32/decode.mlir",
                                        "c32/prefill_embeddings_deepstack.mlir", "vision/p16.mlir"};
    for (int c = 0; c < 5; c++) {
        char dir[128], out[128];
        snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", cases[c]);
        snprintf(out, sizeof(out), "%s/golden-%s", tmp, cases[c]);
        int64_t cap = 32;
        /* qwen3_vl also has its tower's vision.main (one 16-patch bucket; layout patch_rows_deepstack). */
        static const int64_t vision_patches[1] = {16};
        bool vision = strcmp(cases[c], "qwen3_vl") == 0;
        ts_bundle_options o = {.capacities = &cap, .n_capacities = 1, .prefill_capacity = 16, .slots = 2,
                               .vision_patches = vision ? vision_patches : NULL, .n_vision_patches = vision ? 1 : 0};
        ts_error err;
        REQUIRE_INT_EQ(ts_bundle_export(dir, out, &o, &err), TS_OK);
        /* Only the Qwen3-VL models declare DeepStack: they alone have the fifth file. */
        bool deepstack = strncmp(cases[c], "qwen3_vl", 8) == 0;
        char extra[256];
        snprintf(extra, sizeof(extra), "%s/%s", out, files[4]);
        CHECK_INT_EQ(access(extra, F_OK) == 0, deepstack);
        for (int f = 0; f < (vision ? 6 : deepstack ? 5 : 4); f++) {
            char a[256], g[256];
            snprintf(a, sizeof(a), "%s/%s", out, files[f]);
            snprintf(g, sizeof(g), "tests/golden/%s/%s", cases[c], files[f]);
            char *ours = read_text(a), *golden = read_text(g);
            bool same = ours && golden && strcmp(ours, golden) == 0;
            if (!same) fprintf(stderr, "  %s differs from the golden %s (regenerate with tessera export only for an intended change)\n", a, g);
            CHECK(same);
            if (f > 0 && ours) {
                ts_graph *graph;
                char *again = NULL;
                size_t len;
                REQUIRE_INT_EQ(ts_stablehlo_read(ours, strlen(ours), files[f], &graph, &err),
                               TS_OK);
                char name[64] = "";
                sscanf(ours, "module @%63s", name);
                CHECK_INT_EQ(ts_stablehlo_print(graph, name, &again, &len, &err), TS_OK);
                CHECK(again && strcmp(again, ours) == 0);
                free(again);
                ts_graph_destroy(graph);
            }
            free(ours);
            free(golden);
        }
    }
}

static void test_admission(void)
{
    char bundle[128];
    snprintf(bundle, sizeof(bundle), "%s/qwen2", tmp);
    ts_error err;
    ts_bundle *b;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, "tests/fixtures/qwen2/model", &b, &err), TS_OK);
    int bucket = -1;
    CHECK_INT_EQ(ts_bundle_admit(b, 23, 9, &bucket, &err), TS_OK);
    CHECK_INT_EQ(bucket, 0);
    CHECK_INT_EQ(ts_bundle_admit(b, 23, 10, &bucket, &err), TS_OK);
    CHECK_INT_EQ(bucket, 1);
    CHECK_INT_EQ(ts_bundle_admit(b, 30, 40, &bucket, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "30 prompt tokens + 40 new tokens = 70 do not fit the largest bucket (capacity 64, prefill 32)");
    CHECK_INT_EQ(ts_bundle_admit(b, 33, 1, &bucket, &err), TS_ERR_RANGE);
    ts_bundle_close(b);
}

/* Rewrites a bundle file and re-seals the manifest identity, so the damage reaches the check
 * behind the identity (reader, module signature) instead of stopping at the hash. */
static void reseal(const char *bundle)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    char *json = read_text(path);
    ts_manifest m;
    ts_error err;
    if (!json || ts_manifest_read(json, strlen(json), "manifest.json", &m, &err) != TS_OK) return free(json);
    char *texts[TS_BUNDLE_MAX_BUCKETS * (TS_ENTRY_COUNT + 1)] = {0};
    for (int i = 0; i < ts_manifest_module_count(&m); i++) {
        char mp[256];
        snprintf(mp, sizeof(mp), "%s/%s", bundle, ts_manifest_module_file(&m, i));
        texts[i] = read_text(mp);
    }
    char *out;
    if (ts_manifest_write(&m, (const char *const *)texts, &out, &err) == TS_OK) {
        write_text(path, out);
        free(out);
    }
    for (int i = 0; i < TS_BUNDLE_MAX_BUCKETS * (TS_ENTRY_COUNT + 1); i++) free(texts[i]);
    ts_manifest_fini(&m);
    free(json);
}

/* Copies the qwen2 bundle to a scratch folder for one negative case. */
static void fresh_copy(const char *name, char *out)
{
    sprintf(out, "%s/%s", tmp, name);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/qwen2' '%s'", out, tmp, out);
    CHECK(system(cmd) == 0);
}

static void replace_in_file(const char *path, const char *from, const char *to)
{
    char *t = read_text(path);
    char *hit = t ? strstr(t, from) : NULL;
    CHECK(hit != NULL);
    if (!hit) return free(t);
    FILE *f = fopen(path, "wb");
    fwrite(t, 1, (size_t)(hit - t), f);
    fputs(to, f);
    fputs(hit + strlen(from), f);
    fclose(f);
    free(t);
}

/* Whether dir_a/file and dir_b/file hold the same text; text_a (optional) gets dir_a's (free). */
static bool same_text(const char *dir_a, const char *dir_b, const char *file, char **text_a)
{
    char a[256], b[256];
    snprintf(a, sizeof(a), "%s/%s", dir_a, file);
    snprintf(b, sizeof(b), "%s/%s", dir_b, file);
    char *x = read_text(a), *y = read_text(b);
    bool same = x && y && strcmp(x, y) == 0;
    if (text_a) *text_a = x;
    else free(x);
    free(y);
    return same;
}

static ts_status open_status(const char *bundle, const char *model, ts_error *err)
{
    ts_bundle *b = NULL;
    ts_status st = ts_bundle_open(ctx, bundle, model, &b, err);
    ts_bundle_close(b);
    return st;
}

/* A quantized bundle whose manifest or weight file says something else than its modules and
 * bytes is refused at open, naming the matrix (the edits re-sealed, so only these checks see them). */
static void test_bad_quantized_bundles(void)
{
    ts_error err;
    char bundle[160], path[256], cmd[1024];
    const char *model = "tests/fixtures/qwen2/model";
    const char *q_proj = "model.layers.0.self_attn.q_proj.weight";
    struct {
        const char *name, *from, *to, *message;
    } cases[] = {
        {"qblock", "\"block\":\t32", "\"block\":\t64",
         "quantization: model.layers.0.self_attn.q_proj.weight (8-bit, blocks of 64, F16 scales): "
         "model.layers.0.self_attn.q_proj.weight:q8.scale must be F16[64, 1], the weight schema declares F16[64, 2]"},
        {"qbits", "\"bits\":\t8", "\"bits\":\t4",
         "quantization: model.layers.0.self_attn.q_proj.weight (4-bit, blocks of 32, F16 scales): the weight schema has no "
         "model.layers.0.self_attn.q_proj.weight:q4"},
        {"qscale", "\"scale_dtype\":\t\"F16\"", "\"scale_dtype\":\t\"BF16\"", "q_proj.weight:q8.scale must be BF16[64, 2]"},
        {"qzero", "\"zero_points\":\tfalse", "\"zero_points\":\ttrue", "the weight schema has no model.layers.0.self_attn.q_proj.weight:q8.zero"},
        {"qversion", "\"version\":\t1", "\"version\":\t2", "quantization.version 2 (this build reads version 1)"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        snprintf(bundle, sizeof(bundle), "%s/%s", tmp, cases[i].name);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/qwen2q8' '%s'", bundle, tmp, bundle);
        CHECK(system(cmd) == 0);
        snprintf(path, sizeof(path), "%s/manifest.json", bundle);
        replace_in_file(path, cases[i].from, cases[i].to);
        reseal(bundle);
        CHECK(open_status(bundle, model, &err) != TS_OK);
        CHECK_CONTAINS(err.message, cases[i].message);
    }
    /* The weight file cut short: its last tensor's bytes are missing. */
    snprintf(bundle, sizeof(bundle), "%s/qshort", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/qwen2q8' '%s' && truncate -s -100 '%s/quantized.safetensors'", bundle, tmp, bundle,
             bundle);
    CHECK(system(cmd) == 0);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "quantization: ");
    CHECK_CONTAINS(err.message, "quantized.safetensors: tensor 'model.layers.2.self_attn.v_proj.weight:q8.scale': data_offsets end");
    /* A tensor of the file replaced by one of another shape (same bytes), file and manifest kept. */
    snprintf(bundle, sizeof(bundle), "%s/qshape", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/qwen2q8' '%s'", bundle, tmp, bundle);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/quantized.safetensors", bundle);
    char shape_from[200], shape_to[200];
    snprintf(shape_from, sizeof(shape_from), "\"%s:q8.scale\":{\"dtype\":\"F16\",\"shape\":[64,2]", q_proj);
    snprintf(shape_to, sizeof(shape_to), "\"%s:q8.scale\":{\"dtype\":\"F16\",\"shape\":[32,4]", q_proj);
    FILE *f = fopen(path, "r+b");
    char header[1 << 16];
    size_t got = f ? fread(header, 1, sizeof(header) - 1, f) : 0;
    header[got] = 0;
    char *hit = got > 8 ? strstr(header + 8, shape_from) : NULL; /* past the binary header length */
    CHECK(hit != NULL);
    if (hit && f) {
        fseek(f, (long)(hit - header), SEEK_SET);
        fwrite(shape_to, 1, strlen(shape_to), f); /* the same length: the header stays valid */
    }
    if (f) fclose(f);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "model.layers.0.self_attn.q_proj.weight:q8.scale in quantized.safetensors is F16[32, 4] (256 bytes); it "
                                "must be F16[64, 2] (256 bytes)");
    /* No weight file at all. */
    snprintf(cmd, sizeof(cmd), "rm '%s/quantized.safetensors'", bundle);
    CHECK(system(cmd) == 0);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "quantization: ");
}

static void test_bad_bundles(void)
{
    ts_error err;
    char bundle[128], path[256];
    const char *model = "tests/fixtures/qwen2/model";

    /* 1. identity: a module edited behind the manifest's back. */
    fresh_copy("edited", bundle);
    snprintf(path, sizeof(path), "%s/c32/decode.mlir", bundle);
    FILE *f = fopen(path, "ab");
    fputs("// edited\n", f);
    fclose(f);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "identity differs");

    /* 2. identity (capacity): the manifest's capacity changed without re-sealing. */
    fresh_copy("capacity", bundle);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    replace_in_file(path, "\"capacity\":\t64", "\"capacity\":\t65");
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "identity differs");

    /* 3. capacity drift that is re-sealed: the module no longer matches its descriptor. */
    fresh_copy("shape", bundle);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    char *json = read_text(path);
    char *at = strstr(json, "\"module\":\t\"c32/prefill.mlir\"");
    char *tok = at ? strstr(at, "\"shape\":\t[32]") : NULL;
    REQUIRE(tok != NULL);
    if (tok) memcpy(tok, "\"shape\":\t[16]", 13);
    write_text(path, json);
    free(json);
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "prefill.main argument");
    CHECK_CONTAINS(err.message, "declared I32[16], found I32[32]");

    /* 4. config: the model folder's config.json differs from the one exported. */
    char model2[128];
    snprintf(model2, sizeof(model2), "%s/model-eps", tmp);
    mkdir(model2, 0755);
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "cp %s/*.json '%s' && ln -sf \"$PWD/%s/model.safetensors\" '%s/model.safetensors'", model, model2, model, model2);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/config.json", model2);
    replace_in_file(path, "\"rms_norm_eps\": 1e-06", "\"rms_norm_eps\": 1e-05");
    snprintf(bundle, sizeof(bundle), "%s/qwen2", tmp);
    CHECK_INT_EQ(open_status(bundle, model2, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "config_digest differs");

    /* 5. weights: the same config with the bf16 checkpoint. */
    char model3[128];
    snprintf(model3, sizeof(model3), "%s/model-bf16", tmp);
    mkdir(model3, 0755);
    snprintf(cmd, sizeof(cmd), "cp %s/*.json '%s' && ln -sf \"$PWD/tests/fixtures/qwen2/model-bf16/model.safetensors\" '%s/model.safetensors'",
             model, model3, model3);
    CHECK(system(cmd) == 0);
    CHECK_INT_EQ(open_status(bundle, model3, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "weight schema: weights[0] model.embed_tokens.weight: declared F32[1344, 64], found BF16[1344, 64]");

    /* 6. truncated module (re-sealed, so the reader sees it). */
    fresh_copy("truncated", bundle);
    snprintf(path, sizeof(path), "%s/c32/prefill.mlir", bundle);
    char *text = read_text(path);
    text[strlen(text) / 2] = '\0';
    write_text(path, text);
    free(text);
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "c32/prefill.mlir: line");

    /* 7. unknown op. */
    fresh_copy("unknown-op", bundle);
    snprintf(path, sizeof(path), "%s/c32/decode.mlir", bundle);
    replace_in_file(path, "stablehlo.add ", "stablehlo.frobnicate ");
    reseal(bundle);
    CHECK(open_status(bundle, model, &err) != TS_OK);
    CHECK_CONTAINS(err.message, "stablehlo.frobnicate");

    /* 8. missing entry. */
    fresh_copy("missing-entry", bundle);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    replace_in_file(path, "\"decode.main\":\t{", "\"decode.mine\":\t{");
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "entries.decode.main: missing entry");

    /* 9. argument order in the module (two arguments swapped, re-sealed). */
    fresh_copy("order", bundle);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    replace_in_file(path, "\"name\":\t\"positions\"", "\"name\":\t\"rope_delta_\"");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "argument order mismatch");

    /* 10. decode.main without its donation (re-sealed): refused, naming the argument and result. */
    fresh_copy("no-donation", bundle);
    snprintf(path, sizeof(path), "%s/c32/decode.mlir", bundle);
    replace_in_file(path, "\"k\", tessera.role = \"state\", tf.aliasing_output = 1 : i32}", "\"k\", tessera.role = \"state\"}");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "decode.main argument 42 (k) must be donated to result 1 (tf.aliasing_output = 1 : i32); the module does not declare it");

    /* 11. k and v donated to each other's results (same types, so the text reads): refused. */
    fresh_copy("swapped-donation", bundle);
    snprintf(path, sizeof(path), "%s/c64/decode.mlir", bundle);
    replace_in_file(path, "\"k\", tessera.role = \"state\", tf.aliasing_output = 1", "\"k\", tessera.role = \"state\", tf.aliasing_output = 2");
    replace_in_file(path, "\"v\", tessera.role = \"state\", tf.aliasing_output = 2", "\"v\", tessera.role = \"state\", tf.aliasing_output = 1");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "decode.main argument 42 (k) is donated to result 2; the contract donates it to result 1");

    /* 12. a donation outside the contract: prefill.main's caches are not donated. A state
     * argument does not exist there, so the text names an input: the reader refuses it. */
    fresh_copy("prefill-donation", bundle);
    snprintf(path, sizeof(path), "%s/c32/prefill.mlir", bundle);
    replace_in_file(path, "\"tokens\", tessera.role = \"input\"}", "\"tokens\", tessera.role = \"input\", tf.aliasing_output = 0 : i32}");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "argument tokens: tf.aliasing_output on a non-state argument");

    /* 13. a donation to a result that does not exist. */
    fresh_copy("missing-result", bundle);
    snprintf(path, sizeof(path), "%s/c32/decode.mlir", bundle);
    replace_in_file(path, "tf.aliasing_output = 2 : i32", "tf.aliasing_output = 7 : i32");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "argument v: tf.aliasing_output = 7, but @main has 3 results");
}

static void test_bad_calls(void)
{
    char bundle[128];
    snprintf(bundle, sizeof(bundle), "%s/qwen2", tmp);
    ts_error err;
    ts_bundle *b;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, "tests/fixtures/qwen2/model", &b, &err), TS_OK);
    int32_t tokens[32] = {0}, n = 5, zero = 0, big = 32;
    const void *outs[3];
    ts_tensor_arg ok[2] = {arg_i32("tokens", tokens, 1, 32), arg_i32("length", &n, 0, 0)};
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", ok, 2, outs, &err), TS_OK);

    ts_tensor_arg a[2];
    memcpy(a, ok, sizeof(a));
    a[0].dtype = TS_DTYPE_I64;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", a, 2, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "prefill.main: tokens has dtype I64, expected I32");

    memcpy(a, ok, sizeof(a));
    a[0].n_bytes = 100;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", a, 2, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "tokens has 100 bytes, expected 128");

    memcpy(a, ok, sizeof(a));
    a[0].dims[0] = 31;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", a, 2, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "tokens has shape I32[31], expected I32[32]");

    ts_tensor_arg swapped[2] = {ok[1], ok[0]};
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", swapped, 2, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "argument 0 is 'length', expected 'tokens' (argument order)");

    memcpy(a, ok, sizeof(a));
    a[1].data = &zero;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", a, 2, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "prefill.main: length[0] = 0 is outside 1..32");

    tokens[3] = 1344;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill.main", ok, 2, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "tokens[3] = 1344 is outside 0..1343");
    tokens[3] = 0;

    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefil.main", ok, 2, outs, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "no entry 'prefil.main'");
    CHECK_INT_EQ(ts_bundle_run(b, 7, "prefill.main", ok, 2, outs, &err), TS_ERR_RANGE);

    /* decode: position and cache_len must stay inside the capacity. */
    int64_t kd[5] = {1, 3, 32, 2, 16};
    float *kv = calloc(2 * 3 * 32 * 2 * 16, sizeof(float));
    int32_t tok = 1, pos = 5, delta = 0, len = 5;
    ts_tensor_arg dec[6] = {arg_i32("tokens", &tok, 1, 1), arg_i32("positions", &pos, 1, 1), arg_i32("rope_delta", &delta, 1, 1),
                            arg_i32("cache_len", &len, 1, 1), arg_f32("k", kv, 5, kd), arg_f32("v", kv + 3 * 32 * 2 * 16, 5, kd)};
    CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_OK);
    CHECK(outs[1] == (const void *)kv && outs[2] == (const void *)(kv + 3 * 32 * 2 * 16)); /* donated: updated in place */
    /* Donated buffers must be the caller's own: k and v in one buffer, or k over cache_len, are refused. */
    dec[5].data = kv;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "decode.main: k is donated (updated in place) and shares bytes with v");
    dec[5].data = kv + 3 * 32 * 2 * 16;
    int32_t *inside = (int32_t *)(kv + 7);
    *inside = 5;
    dec[3].data = inside;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "decode.main: k is donated (updated in place) and shares bytes with cache_len");
    dec[3].data = &len;
    dec[1].data = &big;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "decode.main: positions[0] = 32 is outside 0..31");
    dec[1].data = &pos;
    dec[3].data = &big;
    CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "cache_len[0] = 32 is outside 0..31");

    /* NaN embeddings. */
    int64_t ed[2] = {32, 64}, bd[2] = {32, 32};
    float *emb = calloc(32 * 64, sizeof(float)), *bias = calloc(32 * 32, sizeof(float));
    int32_t positions[32] = {0};
    emb[70] = NAN;
    ts_tensor_arg pe[4] = {arg_f32("embeddings", emb, 2, ed), arg_i32("positions", positions, 1, 32), arg_f32("bias", bias, 2, bd),
                           arg_i32("length", &n, 0, 0)};
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings.main", pe, 4, outs, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "embeddings[70] is NaN");
    free(emb), free(bias), free(kv);
    ts_bundle_close(b);
}

/* vision.main: the two-image Qwen2-VL fixture's own pixel values through the bundle's tower give
 * the reference's image_embeds, for both images together (432 rows padded to the 512 bucket)
 * and for the first alone (216 rows padded to 256); more rows than the largest bucket, a
 * bundle without vision entries and an edited vision module are refused. */
static void test_vision_entries(void)
{
    const char *model = "tests/fixtures/qwen2_vl-two-images/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen2_vl_vision", tmp);
    static const int64_t patches[2] = {256, 512};
    ts_bundle_options o = {.capacities = caps, .n_capacities = 1, .prefill_capacity = 32, .slots = 1,
                           .vision_patches = patches, .n_vision_patches = 2};
    ts_error err;
    REQUIRE_INT_EQ(ts_bundle_export(model, bundle, &o, &err), TS_OK);
    ts_bundle *b = NULL;
    if (ts_bundle_open(ctx, bundle, model, &b, &err) != TS_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        CHECK(false);
        return;
    }
    const int64_t *listed;
    CHECK_INT_EQ(ts_bundle_vision_buckets(b, &listed), 2);
    CHECK_INT_EQ(listed[1], 512);
    ts_checkpoint *ref;
    REQUIRE_INT_EQ(
        ts_checkpoint_open("tests/fixtures/qwen2_vl-two-images/reference.safetensors", &ref, &err),
        TS_OK);
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"), *want = ts_checkpoint_find(ref, "image_embeds");
    int64_t half = pv->shape[0] / 2, dim = pv->shape[1], hidden = want->shape[1];
    ts_pixel_values images[3];
    for (int i = 0; i < 3; i++)
        images[i] = (ts_pixel_values){.data = (float *)pv->data + (i % 2) * half * dim, .n_dims = 2, .shape = {half, dim},
                                      .grid_thw = {1, 12, 18}};
    const float *ref_rows = want->data;
    float tolerance = tolerance_of(ref_rows, want->shape[0] * hidden);
    for (int n_images = 2; n_images >= 1; n_images--) {
        ts_encoded_media media;
        REQUIRE_INT_EQ(ts_bundle_encode_images(b, images, n_images, &media, &err), TS_OK);
        float *embeds = media.rows;
        int64_t rows = media.n_rows;
        CHECK_INT_EQ(rows, n_images * want->shape[0] / 2);
        CHECK(media.deepstack == NULL && media.deepstack_levels == 0 && media.hidden == hidden);
        float worst = embeds ? max_diff(embeds, ref_rows, rows * hidden) : INFINITY;
        fprintf(stderr, "vision.main %d image(s): max |ours - ref| = %g (tolerance %g)\n", n_images, worst, tolerance);
        CHECK(embeds && worst <= tolerance);
        ts_encoded_media_free(&media);
    }
    ts_encoded_media media;
    CHECK_INT_EQ(ts_bundle_encode_images(b, images, 3, &media, &err), TS_ERR_RANGE);
    CHECK(strstr(err.message, "648 patches") && strstr(err.message, "256, 512"));
    ts_pixel_values wrong = images[0];
    wrong.grid_thw[2] = 17;
    CHECK_INT_EQ(ts_bundle_encode_images(b, &wrong, 1, &media, &err), TS_ERR_INVALID_ARGUMENT);
    ts_bundle_close(b);
    ts_checkpoint_close(ref);

    /* A text-only bundle has no tower to run. */
    char text_only[160];
    snprintf(text_only, sizeof(text_only), "%s/qwen2_vl_text", tmp);
    o.n_vision_patches = 0;
    REQUIRE_INT_EQ(ts_bundle_export(model, text_only, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_open(ctx, text_only, model, &b, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_vision_buckets(b, NULL), 0);
    CHECK_INT_EQ(ts_bundle_encode_images(b, images, 1, &media, &err), TS_ERR_UNSUPPORTED);
    ts_bundle_close(b);

    /* A resealed manifest whose buckets do not match the modules' shapes, or do not ascend. */
    char copy[200], path[256], cmd[600];
    snprintf(copy, sizeof(copy), "%s/qwen2_vl_vision_bad", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", copy, bundle, copy);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/manifest.json", copy);
    replace_in_file(path, "\"patches\":\t512", "\"patches\":\t128");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "vision bucket 1: 128 patches (buckets ascend") != NULL);
    replace_in_file(path, "\"patches\":\t128", "\"patches\":\t1024");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(
        err.message,
        "vision.main (layout patch_rows) must take pixel_values F32[1024, D], positions I32[1024, "
        "2], segments I32[1024], count I32[] and return image_embeds F32[256, 64]");

    /* An edited vision module breaks the identity. */
    snprintf(path, sizeof(path), "%s/vision/p256.mlir", bundle);
    replace_in_file(path, "stablehlo.add", "stablehlo.subtract");
    CHECK_INT_EQ(open_status(bundle, model, &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "identity") != NULL);
}


/* A fixture exported to TMP/NAME-SUFFIX (one bucket of capacity 192, prefill 160, one slot; with
 * draft_width, decode_k.main) and opened, with its reference and (with_model) the model. */
static bool open_case(const char *name, const char *suffix, int64_t draft_width, const int64_t *patches, int n_patches,
                      bool with_model, ts_bundle **b, ts_model **m, ts_checkpoint **ref)
{
    char dir[128], bundle[160], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(bundle, sizeof(bundle), "%s/%s-%s", tmp, name, suffix);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    static const int64_t capacity[1] = {192};
    ts_bundle_options o = {.capacities = capacity, .n_capacities = 1, .prefill_capacity = 160, .slots = 1, .draft_width = draft_width,
                           .vision_patches = patches, .n_vision_patches = n_patches};
    ts_error err;
    if (ts_bundle_export(dir, bundle, &o, &err) != TS_OK || ts_bundle_open(ctx, bundle, dir, b, &err) != TS_OK ||
        (with_model && ts_model_load(ctx, dir, NULL, m, &err) != TS_OK) || ts_checkpoint_open(refpath, ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        CHECK(false);
        return false;
    }
    return true;
}
/* A Qwen2-VL fixture end to end through the bundle: its pixel values through vision.main, the
 * merged embeddings and M-RoPE positions into prefill_embeddings.main (causal bias), then
 * decode.main with the rope delta. Merged embeddings and prefill logits within the fixture
 * tolerance of the reference's; greedy tokens identical to its generated_ids. */
static void vlm_through_bundle(const char *name, const int64_t *patches, int n_patches)
{
    ts_error err;
    ts_bundle *b = NULL;
    ts_model *m = NULL;
    ts_checkpoint *ref = NULL;
    if (!open_case(name, "vlm", 0, patches, n_patches, true, &b, &m, &ref)) goto out;
    const ts_model_config *cfg = ts_model_get_config(m);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"), *grid = ts_checkpoint_find(ref, "image_grid_thw");
    const ts_tensor_info *merged = ts_checkpoint_find(ref, "lm_inputs_embeds"), *last = ts_checkpoint_find(ref, "prefill_last_logits");
    int32_t n = (int32_t)ids64->shape[1], n_new = (int32_t)gen->shape[0];
    int64_t cap, lp, H = cfg->text.hidden_size, V = ts_model_vocab_size(m);
    ts_bundle_bucket(b, 0, &cap, &lp, NULL);
    CHECK(n <= lp && n + n_new <= cap);
    int32_t ids[160];
    for (int i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_pixel_values images[4];
    int n_images = grid ? (int)grid->shape[0] : 1;
    const int64_t *g = grid ? grid->data : NULL;
    if (!grid) /* LLaVA: one [1, C, S, S] image */
        images[0] = (ts_pixel_values){.data = (float *)pv->data, .n_dims = 4, .shape = {pv->shape[0], pv->shape[1], pv->shape[2], pv->shape[3]}};
    for (int i = 0, row = 0; grid && i < n_images; i++) {
        int64_t rows = g[3 * i] * g[3 * i + 1] * g[3 * i + 2];
        images[i] = (ts_pixel_values){.data = (float *)pv->data + row * pv->shape[1], .n_dims = 2, .shape = {rows, pv->shape[1]},
                                      .grid_thw = {g[3 * i], g[3 * i + 1], g[3 * i + 2]}};
        row += (int)rows;
    }
    float *emb = calloc((size_t)(lp * H), sizeof(float)),
          *bias = malloc(sizeof(float) * (size_t)(lp * lp));
    int32_t *mrope = malloc(sizeof(int32_t) * 3 * (size_t)n), *positions = calloc(3 * (size_t)lp, sizeof(int32_t));
    int64_t delta = 0;
    ts_encoded_media media;
    ts_mm_inputs mm = {0};
    REQUIRE_INT_EQ(ts_bundle_encode_images(b, images, n_images, &media, &err), TS_OK);
    const ts_tensor_info *image_embeds = ts_checkpoint_find(ref, "image_embeds");
    if (image_embeds &&
        (int64_t)(image_embeds->n_bytes / sizeof(float)) == media.n_rows * media.hidden) {
        /* The tower's rows alone, before they are merged. */
        int64_t values = media.n_rows * media.hidden;
        float rows_diff = max_diff(media.rows, image_embeds->data, values),
              rows_tol = tolerance_of(image_embeds->data, values);
        fprintf(
            stderr,
            "  %s vision.main: %lld image rows, max |bundle - image_embeds| = %.3g (tol %.3g)\n",
            name, (long long)media.n_rows, rows_diff, rows_tol);
        CHECK(rows_diff <= rows_tol);
    }
    REQUIRE_INT_EQ(ts_mm_inputs_build(m, ids, (size_t)n, images, n_images, &media, &mm, &err), TS_OK);
    /* Gemma3's image blocks: the bundle says it takes them, the prompt's bias goes in as is. */
    CHECK_INT_EQ(mm.side_kind, ts_bundle_side_inputs(b, NULL, NULL));
    CHECK_INT_EQ(mm.position_rows, ts_bundle_position_rows(b));
    for (int64_t i = 0; i < lp; i++)
        for (int64_t j = 0; j < lp; j++)
            bias[i * lp + j] = j <= i ? 0.0f : -INFINITY;
    for (int64_t i = 0; mm.side_kind == TS_SIDE_ATTENTION_BIAS && i < n; i++)
        memcpy(bias + i * lp, mm.attention.bias + i * n, sizeof(float) * (size_t)n);
    if (mm.embeddings) {
        memcpy(emb, mm.embeddings, sizeof(float) * (size_t)(n * H));
        memcpy(mrope, mm.positions, sizeof(int32_t) * (size_t)(mm.position_rows * n));
        delta = mm.rope_delta;
    }
    ts_encoded_media_free(&media);
    ts_mm_inputs_free(&mm);
    const ts_tensor_info *deltas = ts_checkpoint_find(ref, "rope_deltas");
    CHECK_INT_EQ(delta, deltas ? ((const int64_t *)deltas->data)[0] : 0);
    int rows = ts_bundle_position_rows(b);
    float emb_diff = max_diff(emb, merged->data, n * H), emb_tol = tolerance_of(merged->data, n * H);
    for (int r = 0; r < rows; r++)
        memcpy(positions + r * lp, mrope + r * n, sizeof(int32_t) * (size_t)n);
    int64_t ed[2] = {lp, H}, bd[2] = {lp, lp};
    ts_tensor_arg pe[4] = {arg_f32("embeddings", emb, 2, ed),
                           rows == 3 ? (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {3, lp}, positions, sizeof(int32_t) * 3 * (size_t)lp}
                                     : arg_i32("positions", positions, 1, lp),
                           arg_f32("bias", bias, 2, bd), arg_i32("length", &n, 0, 0)};
    const void *outs[3];
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings.main", pe, 4, outs, &err), TS_OK);
    float logit_diff = max_diff(outs[0], last->data, V), logit_tol = tolerance_of(last->data, V);
    int64_t layers = cfg->text.num_hidden_layers, kvh = cfg->text.num_key_value_heads;
    int64_t hd = cfg->text.head_dim ? cfg->text.head_dim : cfg->text.hidden_size / cfg->text.num_attention_heads;
    size_t cache = (size_t)(layers * cap * kvh * hd);
    float *k = malloc(sizeof(float) * cache), *v = malloc(sizeof(float) * cache);
    memcpy(k, outs[1], sizeof(float) * cache);
    memcpy(v, outs[2], sizeof(float) * cache);
    const float *logits = outs[0];
    int same = 0;
    for (int32_t i = 0; i < n_new; i++) {
        int32_t tok = argmax(logits, V, NULL, 0);
        same += tok == (int32_t)((const int64_t *)gen->data)[i];
        if (i + 1 == n_new) break;
        int32_t pos[3] = {n + i, n + i, n + i}, rope_delta = (int32_t)delta, len = n + i;
        int64_t kd[5] = {1, layers, cap, kvh, hd};
        ts_tensor_arg dec[6] = {arg_i32("tokens", &tok, 1, 1),
                                rows == 3 ? (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {3, 1}, pos, sizeof(pos)} : arg_i32("positions", pos, 1, 1),
                                arg_i32("rope_delta", &rope_delta, 1, 1), arg_i32("cache_len", &len, 1, 1), arg_f32("k", k, 5, kd),
                                arg_f32("v", v, 5, kd)};
        CHECK_INT_EQ(ts_bundle_run(b, 0, "decode.main", dec, 6, outs, &err), TS_OK);
        CHECK(outs[1] == (const void *)k && outs[2] == (const void *)v); /* donated: updated in place */
        logits = outs[0];
    }
    fprintf(stderr, "  %s through the bundle: merged embeddings %.2g (tol %.2g), prefill logits %.2g (tol %.2g), %d/%d greedy tokens\n",
            name, emb_diff, emb_tol, logit_diff, logit_tol, same, n_new);
    CHECK(emb_diff <= emb_tol);
    CHECK(logit_diff <= logit_tol);
    CHECK_INT_EQ(same, n_new);
    free(emb), free(bias), free(mrope), free(positions), free(k), free(v);
out:
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

static const int64_t qwen_patches[2] = {256, 512}, llava_patches[1] = {16}; /* LLaVA: a 56×56 image of 14-pixel patches */
static void test_qwen2_vl_through_bundle(void) { vlm_through_bundle("qwen2_vl", qwen_patches, 2); }
static void test_qwen2_vl_two_images_through_bundle(void) { vlm_through_bundle("qwen2_vl-two-images", qwen_patches, 2); }
static void test_qwen2_5_vl_through_bundle(void)
{
    vlm_through_bundle("qwen2_5_vl", qwen_patches, 2);
}
static void test_llava_through_bundle(void) { vlm_through_bundle("llava", llava_patches, 1); }
static void test_llava_siglip_through_bundle(void) { vlm_through_bundle("llava_siglip", llava_patches, 1); }

/* Qwen2.5-VL's windowed vision.main (layout patch_rows_windowed; the bundle of
 * test_qwen2_5_vl_through_bundle): two images (the fixture's image twice: 432 rows, the 512
 * bucket) give each image's reference image_embeds and the engine tower's rows; then direct calls,
 * a valid one and one fault at a time in the window inputs, each refused with its message. */
static void test_qwen2_5_vl_windowed_vision(void)
{
    const char *model = "tests/fixtures/qwen2_5_vl/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen2_5_vl-vlm", tmp);
    ts_bundle *b = NULL;
    ts_model *m = NULL;
    ts_checkpoint *ref = NULL;
    ts_error err;
    if (ts_bundle_open(ctx, bundle, model, &b, &err) != TS_OK ||
        ts_model_load(ctx, model, NULL, &m, &err) != TS_OK ||
        ts_checkpoint_open("tests/fixtures/qwen2_5_vl/reference.safetensors", &ref, &err) !=
            TS_OK) {
        fprintf(stderr, "qwen2_5_vl vision: %s\n", err.message);
        CHECK(false);
        goto out;
    }
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"),
                         *grid = ts_checkpoint_find(ref, "image_grid_thw"),
                         *embeds = ts_checkpoint_find(ref, "image_embeds");
    const int64_t *g = grid->data;
    ts_pixel_values image = {.data = (float *)pv->data,
                             .n_dims = 2,
                             .shape = {pv->shape[0], pv->shape[1]},
                             .grid_thw = {g[0], g[1], g[2]}};
    ts_pixel_values two[2] = {image, image};
    ts_encoded_media ours, engine;
    REQUIRE_INT_EQ(ts_bundle_encode_images(b, two, 2, &ours, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_encode_images(m, two, 2, &engine, &err), TS_OK);
    int64_t per = embeds->shape[0] * embeds->shape[1];
    CHECK_INT_EQ(ours.n_rows, 2 * embeds->shape[0]);
    CHECK_INT_EQ(engine.n_rows, ours.n_rows);
    float tol = tolerance_of(embeds->data, per), worst = 0;
    for (int i = 0; i < 2; i++)
        worst = fmaxf(worst, max_diff(ours.rows + i * per, embeds->data, per));
    float vs_engine = max_diff(ours.rows, engine.rows, 2 * per);
    fprintf(stderr,
            "  qwen2_5_vl vision.main, two images: max |bundle - image_embeds| = %.3g (tol %.3g), "
            "max |bundle - engine| = %.3g\n",
            worst, tol, vs_engine);
    CHECK(worst <= tol);
    CHECK(vs_engine <= tol);
    ts_encoded_media_free(&ours);
    ts_encoded_media_free(&engine);

    /* Direct calls on the 256 bucket: the image's own inputs, then one fault at a time. */
    enum { N = 256, D = 1176, COUNT = 216, UNITS = N / 4, REAL = COUNT / 4 };
    int32_t positions[2 * N] = {0}, segments[N], windows[N], index[UNITS], count = COUNT;
    float *pixels = calloc((size_t)N * D, sizeof(float));
    for (int r = 0; r < N; r++)
        segments[r] = r < COUNT ? 0 : -1, windows[r] = r < COUNT ? r / 64 : -1;
    for (int k = 0; k < UNITS; k++)
        index[k] = k < REAL ? REAL - 1 - k : k;
    int64_t pd[2] = {N, D};
    ts_tensor_arg args[6] = {arg_f32("pixel_values", pixels, 2, pd),
                             {"positions", TS_DTYPE_I32, 2, {N, 2}, positions, sizeof(positions)},
                             arg_i32("segments", segments, 1, N),
                             arg_i32("windows", windows, 1, N),
                             arg_i32("window_index", index, 1, UNITS),
                             arg_i32("count", &count, 0, 0)};
    const void *outs[1];
    int refusals = 0;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_OK);
    const float *rows = outs[0];
    CHECK(rows[(REAL - 1) * 64] == rows[(REAL - 1) * 64] &&
          rows[REAL * 64] == 0.0f); /* rows past count / 4 are zero */
    index[3] = index[4];            /* a unit twice */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    refusals++;
    CHECK_CONTAINS(
        err.message,
        "window_index[4] = 49: the first 54 slots must be a permutation of the image units 0..53");
    index[3] = REAL - 4;
    index[60] = 61, index[61] = 60; /* padding units moved */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    refusals++;
    CHECK_CONTAINS(
        err.message,
        "window_index[60] = 61: padding units (at or past count / 4 = 54) stay in place");
    index[60] = 60, index[61] = 61;
    index[0] = 64;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_RANGE);
    refusals++;
    CHECK_CONTAINS(err.message, "window_index[0] = 64 is outside 0..63");
    index[0] = REAL - 1;
    windows[230] = 3; /* a padding row in a window of image rows */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    refusals++;
    CHECK_CONTAINS(
        err.message,
        "row 230 is padding (count = 216): its segment and window must be -1 (they are -1, 3)");
    windows[230] = -1;
    segments[5] = -1; /* an image row hidden as padding */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    refusals++;
    CHECK_CONTAINS(err.message, "row 5 is an image row (count = 216)");
    segments[5] = 0;
    windows[7] = N;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_RANGE);
    refusals++;
    CHECK_CONTAINS(err.message, "windows[7] = 256 is outside -1..255");
    windows[7] = 0;
    args[3].name = "window_index";
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT);
    refusals++;
    CHECK_CONTAINS(err.message, "argument 3 is 'window_index', expected 'windows'");
    args[3].name = "windows";
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_OK);
    free(pixels);
    fprintf(stderr, "  qwen2_5_vl vision.main: %d bad calls refused with their messages\n",
            refusals);

    /* Bad manifests: a window of 0 merge units, a layout no table entry has, and a windowed
     * vision.main whose window_index is not [N / merge²]. */
    char copy[200], cmd[600], path[256];
    snprintf(copy, sizeof(copy), "%s/qwen2_5_vl-vision-bad", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", copy, bundle, copy);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/manifest.json", copy);
    replace_in_file(path, "\"window\":\t4", "\"window\":\t0");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "vision.window: out of range");
    replace_in_file(path, "\"window\":\t0", "\"window\":\t4");
    replace_in_file(path, "\"layout\":\t\"patch_rows_windowed\"",
                    "\"layout\":\t\"patch_rows_tiled\"");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "vision.layout: expected \"patch_rows\", \"patch_rows_windowed\"");
    replace_in_file(path, "\"layout\":\t\"patch_rows_tiled\"",
                    "\"layout\":\t\"patch_rows_windowed\"");
    replace_in_file(path, "[64],\n\t\t\t\t\t\t\t\"name\":\t\"window_index\"",
                    "[65],\n\t\t\t\t\t\t\t\"name\":\t\"window_index\"");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message,
                   "vision.main (layout patch_rows_windowed) must take pixel_values F32[256, D], "
                   "positions I32[256, 2], segments I32[256], windows I32[256], window_index "
                   "I32[64], count I32[] and return image_embeds F32[64, 64]");
out:
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

/* Gemma3: its fixed-image vision.main (SigLIP + pool), and prefill_embeddings.main's bias with the
 * image's bidirectional block. */
static void test_gemma3_through_bundle(void)
{
    vlm_through_bundle("gemma3", llava_patches, 1);
}

/* Gemma3's bias at the bundle's boundary: a wrong shape, NaN, +inf or a hidden diagonal is refused
 * before prefill_embeddings.main runs, the slot left empty; the good bias then prefills. */
static void test_gemma3_bias_refusals(void)
{
    char bundle[128];
    snprintf(bundle, sizeof(bundle), "%s/gemma3-bias", tmp);
    static const int64_t capacity[1] = {48}, patches[1] = {16};
    ts_bundle_options o = {.capacities = capacity,
                           .n_capacities = 1,
                           .prefill_capacity = 32,
                           .slots = 2,
                           .vision_patches = patches,
                           .n_vision_patches = 1};
    const char *dir = "tests/fixtures/gemma3/model";
    ts_error err;
    ts_bundle *b = NULL;
    ts_model *m = NULL;
    ts_checkpoint *ref = NULL;
    ts_bundle_slots *slots = NULL;
    REQUIRE_INT_EQ(ts_bundle_export(dir, bundle, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    REQUIRE_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    REQUIRE_INT_EQ(ts_checkpoint_open("tests/fixtures/gemma3/reference.safetensors", &ref, &err),
                   TS_OK);
    CHECK_INT_EQ(ts_bundle_side_inputs(b, NULL, NULL), TS_SIDE_ATTENTION_BIAS);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"),
                         *pv = ts_checkpoint_find(ref, "pixel_values"),
                         *last = ts_checkpoint_find(ref, "prefill_last_logits");
    size_t n = (size_t)ids64->shape[1];
    int32_t ids[64];
    REQUIRE(n <= 32);
    for (size_t i = 0; i < n; i++)
        ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_pixel_values image = {.data = (float *)pv->data,
                             .n_dims = 4,
                             .shape = {pv->shape[0], pv->shape[1], pv->shape[2], pv->shape[3]}};
    ts_encoded_media media;
    ts_mm_inputs mm;
    REQUIRE_INT_EQ(ts_bundle_encode_images(b, &image, 1, &media, &err), TS_OK);
    REQUIRE_INT_EQ(ts_mm_inputs_build(m, ids, n, &image, 1, &media, &mm, &err), TS_OK);
    ts_encoded_media_free(&media);
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
    int64_t H = mm.hidden, V = ts_model_vocab_size(m);
    float *logits = malloc(sizeof(float) * (size_t)V), *bias = malloc(sizeof(float) * n * n);
    ts_attention_bias ab = {bias, {1, 1, (int64_t)n, (int64_t)n - 1}};
    ts_side_inputs side = {TS_SIDE_ATTENTION_BIAS, NULL, &ab};
    memcpy(bias, mm.attention.bias, sizeof(float) * n * n);
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, mm.embeddings, n, H, mm.positions, 0,
                                                    &side, logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "attention bias: shape");
    ab.shape[3] = (int64_t)n;
    const float poison[3] = {NAN, INFINITY, -INFINITY};
    const size_t at[3] = {2 * n + 9, 5 * n + 20, 7 * n + 7};
    for (int i = 0; i < 3; i++) {
        memcpy(bias, mm.attention.bias, sizeof(float) * n * n);
        bias[at[i]] = poison[i];
        CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, mm.embeddings, n, H, mm.positions,
                                                        0, &side, logits, &err),
                     TS_ERR_RANGE);
        CHECK_CONTAINS(err.message, "attention bias: value at");
        CHECK_INT_EQ(ts_bundle_slots_length(slots, 0), 0);
    }
    side = ts_mm_inputs_side(&mm);
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, mm.embeddings, n, H, mm.positions, 0,
                                                    &side, logits, &err),
                 TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_length(slots, 0), (int64_t)n);
    float diff = max_diff(logits, last->data, V), tol = tolerance_of(last->data, V);
    CHECK(diff <= tol);
    fprintf(stderr,
            "  gemma3 bias refusals: slot empty after each; the good bias: last logits %.2g (tol "
            "%.2g)\n",
            diff, tol);
    free(logits), free(bias);
    ts_mm_inputs_free(&mm);
    ts_bundle_slots_destroy(slots);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

/* A text-only prompt to the Qwen2-VL fixture through the bundle's token path (prefill.main, and
 * decode.main with [3, B] positions): the reference's 16 greedy tokens. */
static void test_qwen2_vl_text_only_through_bundle(void)
{
    const char *dir = "tests/fixtures/qwen2_vl-text-only/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen2_vl-text-only", tmp);
    ts_bundle_options o = {.capacities = caps, .n_capacities = 2, .prefill_capacity = 48, .slots = 1};
    ts_error err;
    ts_bundle *b = NULL;
    ts_checkpoint *ref = NULL;
    REQUIRE_INT_EQ(ts_bundle_export(dir, bundle, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    REQUIRE_INT_EQ(
        ts_checkpoint_open("tests/fixtures/qwen2_vl-text-only/reference.safetensors", &ref, &err),
        TS_OK);
    if (!b || !ref) goto out;
    CHECK_INT_EQ(ts_bundle_position_rows(b), 3);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    int32_t prompt[64];
    size_t n = (size_t)ids64->shape[1];
    for (size_t i = 0; i < n; i++) prompt[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_generate_params p = {.max_tokens = gen->shape[0], .ignore_eos = true};
    ts_sampling_params_default(&p.sampling);
    p.sampling.temperature = 0;
    ts_generation out = {0};
    CHECK_INT_EQ(ts_bundle_generate(b, prompt, n, &p, &out, &err), TS_OK);
    CHECK_INT_EQ((int64_t)out.n_ids, gen->shape[0]);
    int same = 0;
    for (size_t i = 0; i < out.n_ids; i++) same += out.ids[i] == (int32_t)((const int64_t *)gen->data)[i];
    CHECK_INT_EQ(same, gen->shape[0]);
    ts_generation_free(&out);
out:
    ts_checkpoint_close(ref);
    ts_bundle_close(b);
}

/* Qwen3-VL-MoE (moe_mlp composites, interleaved M-RoPE) through the bundle: the fixture's prompt
 * with its vision tokens taken out, prefill.main then decode.main with [3, 1] positions, against
 * the engine: logits within 1e-5 at every step, greedy tokens identical. */
static void test_qwen3_vl_moe_text_through_bundle(void)
{
    const char *dir = "tests/fixtures/qwen3_vl_moe/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen3_vl_moe", tmp);
    ts_error err;
    ts_bundle *b = NULL;
    ts_checkpoint *ref = NULL;
    ts_model *m = NULL;
    ts_sequence *seq = NULL;
    float *engine = NULL, *k = NULL, *v = NULL;
    CHECK(export_case("qwen3_vl_moe", bundle, NULL));
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    CHECK_INT_EQ(
        ts_checkpoint_open("tests/fixtures/qwen3_vl_moe/reference.safetensors", &ref, &err), TS_OK);
    CHECK_INT_EQ(ts_model_load(ctx, dir, NULL, &m, &err), TS_OK);
    if (!b || !ref || !m) goto out;
    CHECK_INT_EQ(ts_bundle_position_rows(b), 3);
    const ts_model_config *cfg = ts_model_get_config(m);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids");
    int32_t tokens[32] = {0}, n = 0;
    for (int64_t i = 0; i < ids64->shape[1] && n < 32; i++) {
        int32_t id = (int32_t)((const int64_t *)ids64->data)[i];
        if (id != cfg->image_token_id && id != cfg->vision_start_token_id &&
            id != cfg->vision_end_token_id)
            tokens[n++] = id;
    }
    enum { STEPS = 8 };
    int bucket;
    CHECK_INT_EQ(ts_bundle_admit(b, n, STEPS, &bucket, &err), TS_OK);
    int64_t cap, lp, slots, V = ts_model_vocab_size(m), layers = cfg->text.num_hidden_layers,
                            kvh = cfg->text.num_key_value_heads;
    int64_t hd = cfg->text.head_dim;
    ts_bundle_bucket(b, bucket, &cap, &lp, &slots);
    ts_sequence_create(m, cap, &seq, &err);
    engine = malloc(sizeof(float) * (size_t)V);
    CHECK_INT_EQ(ts_model_prefill(m, seq, tokens, (size_t)n, engine, &err), TS_OK);
    ts_tensor_arg pre[2] = {arg_i32("tokens", tokens, 1, lp), arg_i32("length", &n, 0, 0)};
    const void *outs[3];
    CHECK_INT_EQ(ts_bundle_run(b, bucket, "prefill.main", pre, 2, outs, &err), TS_OK);
    size_t cache = (size_t)(layers * cap * kvh * hd);
    k = malloc(sizeof(float) * cache), v = malloc(sizeof(float) * cache);
    memcpy(k, outs[1], sizeof(float) * cache);
    memcpy(v, outs[2], sizeof(float) * cache);
    double worst = 0;
    bool same = true;
    for (int32_t i = 0; i < STEPS; i++) {
        const float *logits = outs[0];
        for (int64_t j = 0; j < V; j++)
            worst = fmax(worst, fabs((double)logits[j] - engine[j]));
        int32_t tok = argmax(logits, V, NULL, 0);
        same &= tok == argmax(engine, V, NULL, 0);
        if (i + 1 == STEPS) break;
        int32_t pos[3] = {n + i, n + i, n + i}, delta = 0, len = n + i;
        int64_t kd[5] = {1, layers, cap, kvh, hd};
        ts_tensor_arg positions = arg_i32("positions", pos, 2, 3);
        positions.dims[1] = 1;
        ts_tensor_arg dec[6] = {arg_i32("tokens", &tok, 1, 1),
                                positions,
                                arg_i32("rope_delta", &delta, 1, 1),
                                arg_i32("cache_len", &len, 1, 1),
                                arg_f32("k", k, 5, kd),
                                arg_f32("v", v, 5, kd)};
        CHECK_INT_EQ(ts_bundle_run(b, bucket, "decode.main", dec, 6, outs, &err), TS_OK);
        CHECK(outs[1] == (const void *)k && outs[2] == (const void *)v); /* donated: updated in place */
        REQUIRE_INT_EQ(ts_model_decode(m, &seq, &tok, 1, engine, &err), TS_OK);
    }
    fprintf(stderr,
            "  qwen3_vl_moe (%d text tokens): bundle greedy tokens %s the engine's; max |logit "
            "diff| %.2g\n",
            n, same ? "equal" : "DIFFER FROM", worst);
    CHECK(same);
    CHECK(worst == 0); /* bit for bit: the bundle runs the engine's layer stack and kernels */
out:
    free(engine), free(k), free(v);
    ts_sequence_destroy(seq);
    ts_model_destroy(m);
    ts_checkpoint_close(ref);
    ts_bundle_close(b);
}

/* Greedy tokens of `prompt` in `slot`, decoded step by step with the other slots' tokens in
 * `others` fed alongside when others_active (a second request sharing every decode.main call). */
static int argmax_of(const float *row, int64_t vocab)
{
    int best = 0;
    for (int64_t i = 1; i < vocab; i++)
        if (row[i] > row[best]) best = (int)i;
    return best;
}

/* ts_bundle_slots: two requests in slots 0 and 2, the second joining three steps late, each give
 * the tokens they give alone in a fresh set of slots; a reset slot serves a new request as a fresh
 * one; misuse is refused. */
static void test_slots(void)
{
    const char *dir = "tests/fixtures/qwen2/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen2-slots", tmp);
    ts_bundle_options o = {.capacities = caps + 1, .n_capacities = 1, .prefill_capacity = 32, .slots = 3};
    ts_error err;
    ts_bundle *b = NULL;
    ts_bundle_slots *solo = NULL, *shared = NULL;
    REQUIRE_INT_EQ(ts_bundle_export(dir, bundle, &o, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    if (!b) return;
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &solo, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &shared, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_count(shared), 3);
    int64_t vocab, layers, heads, hd;
    ts_bundle_kv_shape(b, &vocab, &layers, &heads, &hd, &err);
    float *logits = malloc(sizeof(float) * (size_t)vocab * 3);
    const int32_t a[] = {5, 17, 301, 42, 9, 77, 1000, 3}, c[] = {900, 12, 12, 640, 1};
    enum { STEPS = 10, LATE = 3 };
    int want_a[STEPS], want_c[STEPS], got_a[STEPS], got_c[STEPS];
    bool active[3] = {true, false, false};
    int32_t tokens[3] = {0};
    /* Alone: each prompt in slot 0 of `solo`, reset in between. */
    for (int which = 0; which < 2; which++) {
        int *want = which ? want_c : want_a;
        CHECK_INT_EQ(ts_bundle_slots_prefill(solo, 0, which ? c : a, which ? 5 : 8, logits, &err), TS_OK);
        for (int i = 0; i < STEPS; i++) {
            want[i] = tokens[0] = argmax_of(logits, vocab);
            if (i + 1 < STEPS) CHECK_INT_EQ(ts_bundle_slots_decode(solo, tokens, active, logits, &err), TS_OK);
        }
        ts_bundle_slots_reset(solo, 0);
        CHECK_INT_EQ(ts_bundle_slots_length(solo, 0), 0);
    }
    /* Together: c joins in slot 2 after LATE steps of a; a then sits out two steps (inactive while
     * holding its sequence: the steps write its row 0, which must come back) and resumes. */
    CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 0, a, 8, logits, &err), TS_OK);
    got_a[0] = argmax_of(logits, vocab);
    int na = 1, nc = 0;
    for (int step = 0; na < STEPS || nc < STEPS; step++) {
        if (step == LATE) {
            CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 2, c, 5, logits + 2 * vocab, &err), TS_OK);
            got_c[nc++] = argmax_of(logits + 2 * vocab, vocab);
        }
        active[0] = na < STEPS && (step < LATE || step > LATE + 1), active[2] = nc > 0 && nc < STEPS;
        tokens[0] = got_a[na - 1], tokens[2] = nc ? got_c[nc - 1] : 0;
        REQUIRE_INT_EQ(ts_bundle_slots_decode(shared, tokens, active, logits, &err), TS_OK);
        if (active[0]) got_a[na++] = argmax_of(logits, vocab);
        if (active[2]) got_c[nc++] = argmax_of(logits + 2 * vocab, vocab);
    }
    CHECK(!memcmp(got_a, want_a, sizeof(got_a)));
    CHECK(!memcmp(got_c, want_c, sizeof(got_c)));
    /* Slot 0 reused after a reset: as fresh. */
    ts_bundle_slots_reset(shared, 0);
    CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 0, c, 5, logits, &err), TS_OK);
    CHECK_INT_EQ(argmax_of(logits, vocab), want_c[0]);
    /* Misuse. */
    CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 0, a, 8, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "already holds");
    CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 3, a, 8, logits, &err), TS_ERR_RANGE);
    int32_t long_prompt[40] = {0};
    CHECK_INT_EQ(ts_bundle_slots_prefill(shared, 1, long_prompt, 40, logits, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "prefill capacity");
    bool none[3] = {false, false, false}, empty_slot[3] = {false, true, false};
    CHECK_INT_EQ(ts_bundle_slots_decode(shared, tokens, none, logits, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_INT_EQ(ts_bundle_slots_decode(shared, tokens, empty_slot, logits, &err), TS_ERR_RANGE);
    ts_bundle_slots *none_such = NULL;
    CHECK_INT_EQ(ts_bundle_slots_create(b, 1, &none_such, &err), TS_ERR_RANGE);
    CHECK(none_such == NULL);
    free(logits);
    ts_bundle_slots_destroy(shared);
    ts_bundle_slots_destroy(solo);
    ts_bundle_close(b);
}

/* ---------------------------------------------------------------- decode_k.main (speculation) */

/* decode_k.main on the qwen2 fixture, 2 slots, K = 4: the rows of a verify call give decode.main's
 * logits step by step (within the fixture tolerance, argmax equal), a slot with fewer rows and an
 * inactive one keep their state, and after rolling back (truncate) the stale rows past the length
 * change nothing: decode.main and a second verify continue as the plain run. */
static void test_decode_k_rows(void)
{
    const char *dir = "tests/fixtures/qwen2/model";
    char bundle[160], plain_bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen2-decode-k", tmp);
    snprintf(plain_bundle, sizeof(plain_bundle), "%s/qwen2-decode-k-plain", tmp);
    ts_bundle_options o = {.capacities = caps + 1, .n_capacities = 1, .prefill_capacity = 32, .slots = 2, .draft_width = 4};
    ts_error err;
    ts_bundle *b = NULL;
    ts_bundle_slots *plain = NULL, *spec = NULL;
    REQUIRE_INT_EQ(ts_bundle_export(dir, bundle, &o, &err), TS_OK);
    /* The entries every bundle has are the same modules with and without decode_k.main. */
    ts_bundle_options o_plain = o;
    o_plain.draft_width = 0;
    REQUIRE_INT_EQ(ts_bundle_export(dir, plain_bundle, &o_plain, &err), TS_OK);
    static const char *const files[] = {"c64/prefill.mlir", "c64/prefill_embeddings.mlir", "c64/decode.mlir"};
    for (int f = 0; f < 3; f++) CHECK(same_text(bundle, plain_bundle, files[f], NULL));
    REQUIRE_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_draft_width(b), 4);
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &plain, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &spec, &err), TS_OK);
    int64_t vocab, layers, heads, hd;
    ts_bundle_kv_shape(b, &vocab, &layers, &heads, &hd, &err);
    enum { STEPS = 10, K = 4 };
    const int32_t a[] = {5, 17, 301, 42, 9, 77, 1000, 3}, c[] = {900, 12, 12, 640, 1};
    float *want = malloc(sizeof(float) * (size_t)(vocab * STEPS)), *logits = malloc(sizeof(float) * (size_t)(vocab * 2 * K));
    int32_t tok[STEPS], tokens[2 * K] = {0};
    bool active[2] = {true, false};
    /* Plain: prompt a in slot 0, then decode.main; want[i] = the logits after token i. */
    CHECK_INT_EQ(ts_bundle_slots_prefill(plain, 0, a, 8, want, &err), TS_OK);
    for (int i = 0; i + 1 < STEPS; i++) {
        tokens[0] = tok[i] = argmax_of(want + i * vocab, vocab);
        CHECK_INT_EQ(ts_bundle_slots_decode(plain, tokens, active, want + (i + 1) * vocab, &err), TS_OK);
    }
    tok[STEPS - 1] = argmax_of(want + (STEPS - 1) * vocab, vocab);
    /* Speculative: slot 0 verifies tok[0..2] and a wrong draft; slot 1 (prompt c) two rows. */
    float diff = 0, tol = 0;
    int agree = 0, compared = 0;
    CHECK_INT_EQ(ts_bundle_slots_prefill(spec, 0, a, 8, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_prefill(spec, 1, c, 5, logits, &err), TS_OK);
    int32_t c_next = argmax_of(logits, vocab);
    int n_rows[2] = {K, 2};
    tokens[0] = tok[0], tokens[1] = tok[1], tokens[2] = tok[2], tokens[3] = (tok[3] + 1) % (int32_t)vocab;
    tokens[K] = c_next, tokens[K + 1] = 7;
    REQUIRE_INT_EQ(ts_bundle_slots_verify(spec, tokens, n_rows, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_length(spec, 0), 8 + K);
    CHECK_INT_EQ(ts_bundle_slots_length(spec, 1), 5 + 2);
    for (int j = 0; j < 3; j++) {
        float d = max_diff(logits + j * vocab, want + (j + 1) * vocab, vocab), t = tolerance_of(want + (j + 1) * vocab, vocab);
        diff = d > diff ? d : diff, tol = t > tol ? t : tol;
        agree += argmax_of(logits + j * vocab, vocab) == tok[j + 1], compared++;
    }
    /* Accept tok[0] only: the rows of tok[1], tok[2] and the wrong draft stay behind, stale. */
    CHECK_INT_EQ(ts_bundle_slots_truncate(spec, 0, 8 + 1, &err), TS_OK);
    active[0] = true, active[1] = false;
    tokens[0] = tok[1];
    CHECK_INT_EQ(ts_bundle_slots_decode(spec, tokens, active, logits, &err), TS_OK);
    float d = max_diff(logits, want + 2 * vocab, vocab);
    diff = d > diff ? d : diff;
    agree += argmax_of(logits, vocab) == tok[2], compared++;
    /* Slot 0 verifies tok[2..5] (all right), slot 1 sits out (its rows 0..K-1 come back). */
    n_rows[0] = K, n_rows[1] = 0;
    for (int j = 0; j < K; j++) tokens[j] = tok[2 + j];
    REQUIRE_INT_EQ(ts_bundle_slots_verify(spec, tokens, n_rows, logits, &err), TS_OK);
    for (int j = 0; j < K; j++) {
        float dj = max_diff(logits + j * vocab, want + (3 + j) * vocab, vocab);
        diff = dj > diff ? dj : diff;
        agree += argmax_of(logits + j * vocab, vocab) == tok[3 + j], compared++;
    }
    /* Slot 1 continues alone: the same logits as prompt c decoded plainly in a fresh slot. */
    float *c_want[2] = {malloc(sizeof(float) * (size_t)vocab), malloc(sizeof(float) * (size_t)vocab)};
    ts_bundle_slots_reset(plain, 0);
    CHECK_INT_EQ(ts_bundle_slots_prefill(plain, 0, c, 5, logits, &err), TS_OK);
    int32_t ptok[2] = {c_next, 7};
    for (int i = 0; i < 2; i++) {
        tokens[0] = ptok[i];
        CHECK_INT_EQ(ts_bundle_slots_decode(plain, tokens, (bool[]){true, false}, c_want[i], &err), TS_OK);
    }
    tokens[0] = 0, tokens[1] = argmax_of(c_want[1], vocab);
    CHECK_INT_EQ(ts_bundle_slots_decode(spec, tokens, (bool[]){false, true}, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_decode(plain, tokens + 1, (bool[]){true, false}, c_want[0], &err), TS_OK);
    d = max_diff(logits + vocab, c_want[0], vocab);
    diff = d > diff ? d : diff;
    fprintf(stderr, "  qwen2 decode_k.main (K = %d, 2 slots): %d/%d rows' argmax as decode.main's, max |logit diff| %.3g (tol %.3g)\n", K, agree,
            compared, diff, tol);
    CHECK_INT_EQ(agree, compared);
    CHECK(diff <= tol);
    /* Misuse: too many rows, no room for K rows, truncating forward, a bundle without the entry. */
    n_rows[0] = K + 1, n_rows[1] = 0;
    CHECK_INT_EQ(ts_bundle_slots_verify(spec, tokens, n_rows, logits, &err), TS_ERR_RANGE);
    CHECK_INT_EQ(ts_bundle_slots_truncate(spec, 0, 64, &err), TS_ERR_RANGE);
    int32_t long_prompt[32] = {0};
    ts_bundle_slots_reset(spec, 0);
    CHECK_INT_EQ(ts_bundle_slots_prefill(spec, 0, long_prompt, 32, logits, &err), TS_OK);
    for (int i = 0; i < 29; i++) CHECK_INT_EQ(ts_bundle_slots_decode(spec, tokens, (bool[]){true, false}, logits, &err), TS_OK);
    n_rows[0] = 1;
    CHECK_INT_EQ(ts_bundle_slots_verify(spec, tokens, n_rows, logits, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "no room for 4 rows");
    ts_bundle_slots_destroy(spec);
    ts_bundle_slots_destroy(plain);
    ts_bundle_close(b);
    ts_bundle *pb = NULL;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, plain_bundle, dir, &pb, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_draft_width(pb), 0);
    ts_bundle_slots *ps = NULL;
    REQUIRE_INT_EQ(ts_bundle_slots_create(pb, 0, &ps, &err), TS_OK);
    int one[2] = {1, 0};
    CHECK_INT_EQ(ts_bundle_slots_verify(ps, tokens, one, want, &err), TS_ERR_UNSUPPORTED);
    ts_bundle_slots_destroy(ps);
    ts_bundle_close(pb);
    free(want), free(logits), free(c_want[0]), free(c_want[1]);
}

/* Greedy generation through a bundle with decode_k.main: with drafts (n-gram lookup, verified K
 * rows a call) the tokens are the reference's and the plain run's, and some drafts were verified;
 * `images`: the fixture's image prompt (M-RoPE positions [3, B, K] and the rope delta). */
static void speculative_through_bundle(const char *name, bool images, const int64_t *patches, int n_patches)
{
    ts_error err;
    ts_bundle *b = NULL;
    ts_model *m = NULL;
    ts_checkpoint *ref = NULL;
    if (!open_case(name, "spec", 4, patches, n_patches, images, &b, &m, &ref)) goto out;
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"), *grid = ts_checkpoint_find(ref, "image_grid_thw");
    size_t n = (size_t)ids64->shape[1];
    int32_t ids[160];
    for (size_t i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_pixel_values image[4];
    int n_images = images ? (int)grid->shape[0] : 0;
    for (int i = 0, row = 0; i < n_images; i++) {
        const int64_t *g = grid->data;
        int64_t rows = g[3 * i] * g[3 * i + 1] * g[3 * i + 2];
        image[i] = (ts_pixel_values){.data = (float *)pv->data + row * pv->shape[1], .n_dims = 2, .shape = {rows, pv->shape[1]},
                                     .grid_thw = {g[3 * i], g[3 * i + 1], g[3 * i + 2]}};
        row += (int)rows;
    }
    /* Plain; drafts looked up in the prompt followed by the reference's tokens (all right); and
     * in a copy with every third token wrong (rejections and rollbacks). */
    int64_t n_gen = gen->shape[0];
    int32_t context[2][200];
    for (int v = 0; v < 2; v++) {
        memcpy(context[v], ids, sizeof(int32_t) * n);
        for (int64_t i = 0; i < n_gen; i++) {
            int32_t t = (int32_t)((const int64_t *)gen->data)[i];
            context[v][n + (size_t)i] = v && i % 3 == 2 ? (t + 1) % 100 : t;
        }
    }
    ts_generation out[3] = {{0}};
    for (int r = 0; r < 3; r++) {
        ts_generate_params p = {.max_tokens = n_gen, .ignore_eos = true, .draft_tokens = r ? 3 : 0,
                                .draft_context = r ? context[r - 1] : NULL, .n_draft_context = r ? n + (size_t)n_gen : 0};
        ts_sampling_params_default(&p.sampling);
        p.sampling.temperature = 0;
        ts_status st = images ? ts_bundle_generate_images(b, m, ids, n, image, n_images, &p, &out[r], &err)
                              : ts_bundle_generate(b, ids, n, &p, &out[r], &err);
        if (st != TS_OK) fprintf(stderr, "  %s: %s\n", name, err.message);
        CHECK_INT_EQ(st, TS_OK);
    }
    for (int r = 1; r < 3; r++) {
        int same = 0, same_plain = 0;
        for (size_t i = 0; i < out[r].n_ids && (int64_t)i < n_gen; i++) {
            same += out[r].ids[i] == (int32_t)((const int64_t *)gen->data)[i];
            same_plain += i < out[0].n_ids && out[r].ids[i] == out[0].ids[i];
        }
        fprintf(stderr,
                "  %s through decode_k.main (%s drafts): %d/%lld greedy tokens as the reference, %d as decode.main alone; %zu verify "
                "steps, %zu of %zu drafts accepted, %zu forward passes (plain %zu)\n",
                name, r == 1 ? "right" : "partly wrong", same, (long long)n_gen, same_plain, out[r].verify_steps, out[r].accepted,
                out[r].drafted, out[r].forwards, out[0].forwards);
        CHECK_INT_EQ((int64_t)out[r].n_ids, n_gen);
        CHECK_INT_EQ(same, n_gen);
        CHECK_INT_EQ(same_plain, n_gen);
        CHECK_INT_EQ(out[r].draft_tokens, 3);
        CHECK(out[r].verify_steps > 0 && out[r].accepted > 0);
        CHECK(r == 1 || out[r].accepted < out[r].drafted);
        CHECK(out[r].forwards < out[0].forwards);
    }
    CHECK_INT_EQ(out[0].verify_steps, 0);
    ts_generation_free(&out[2]);
    ts_generation_free(&out[0]);
    ts_generation_free(&out[1]);
out:
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

static void test_qwen2_speculative_through_bundle(void) { speculative_through_bundle("qwen2", false, NULL, 0); }
static void test_qwen2_vl_speculative_through_bundle(void) { speculative_through_bundle("qwen2_vl", true, qwen_patches, 2); }

/* A manifest's decode_k object and entries disagreeing, or a version this build does not read. */
static void test_decode_k_bad_manifest(void)
{
    char bundle[160], cmd[512], path[256];
    const char *model = "tests/fixtures/qwen2/model";
    snprintf(bundle, sizeof(bundle), "%s/dk-bad", tmp);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    ts_error err;
    static const char *const from[] = {"\"version\":\t1,\n\t\t\"k\":\t4", "\"version\":\t1,\n\t\t\"k\":\t4", "\"decode_k\":\t{"};
    static const char *const to[] = {"\"version\":\t2,\n\t\t\"k\":\t4", "\"version\":\t1,\n\t\t\"k\":\t3", "\"decode_k_off\":\t{"};
    static const ts_status want[] = {TS_ERR_UNSUPPORTED, TS_ERR_FORMAT, TS_ERR_FORMAT};
    static const char *const message[] = {"decode_k.version 2 (this build reads version 1)",
                                          "decode_k.main: expected decode.main's arguments and results with 3 rows per slot",
                                          "entries.decode_k.main: not an entry of this bundle"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/qwen2-decode-k' '%s'", bundle, tmp, bundle);
        CHECK(system(cmd) == 0);
        replace_in_file(path, from[i], to[i]);
        reseal(bundle);
        CHECK_INT_EQ(open_status(bundle, model, &err), want[i]);
        CHECK_CONTAINS(err.message, message[i]);
    }
}

/* ---------------------------------------------------------------- DeepStack (Qwen3-VL) */

static const int64_t ds_capacity[1] = {128}; /* the fixtures' image prompt: 75 tokens + 16 new */

/* A Qwen3-VL fixture's image prompt through the bundle: its pixel values through the model's
 * tower (main and DeepStack rows), the merged embeddings, M-RoPE positions and the image tokens'
 * rows into prefill_embeddings_deepstack.main — prefill logits within the fixture tolerance of
 * prefill_last_logits — then ts_bundle_generate_images: the 16 greedy tokens of generated_ids. */
static const int64_t ds_patches[1] = {256}; /* the fixtures' image: 216 patches, 40 padding rows */

/* With vision: the bundle also holds vision.main (patch bucket 256): image_embeds and the DeepStack
 * rows through it within the fixture tolerance of the reference's image_embeds, deepstack_0/1 and
 * within f32 rounding of the model's tower; those rows feed the prefill, and
 * ts_bundle_generate_images encodes through vision.main. */
static void deepstack_through_bundle(const char *name, bool with_vision)
{
    char dir[128], bundle[128], refpath[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(bundle, sizeof(bundle), "%s/%s-ds%s", tmp, name, with_vision ? "-vision" : "");
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_bundle_options o = {.capacities = ds_capacity, .n_capacities = 1, .prefill_capacity = 96, .slots = 1,
                           .vision_patches = with_vision ? ds_patches : NULL, .n_vision_patches = with_vision ? 1 : 0};
    ts_error err;
    ts_bundle *b = NULL;
    ts_model *m = NULL;
    ts_checkpoint *ref = NULL;
    ts_bundle_slots *slots = NULL;
    if (ts_bundle_export(dir, bundle, &o, &err) != TS_OK || ts_bundle_open(ctx, bundle, dir, &b, &err) != TS_OK ||
        ts_model_load(ctx, dir, NULL, &m, &err) != TS_OK || ts_checkpoint_open(refpath, &ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        CHECK(false);
        goto out;
    }
    int n_layers = 0, model_layers = 0;
    const int32_t *layers = NULL, *want = NULL;
    CHECK_INT_EQ(ts_bundle_side_inputs(b, &layers, &n_layers), TS_SIDE_DEEPSTACK);
    CHECK_INT_EQ(ts_model_side_inputs(m, &want, &model_layers), TS_SIDE_DEEPSTACK);
    CHECK(n_layers == 2 && model_layers == 2 && layers[0] == want[0] && layers[1] == want[1]);
    CHECK_INT_EQ(ts_bundle_visual_capacity(b, 0), 96);
    CHECK_INT_EQ(ts_bundle_vision_buckets(b, NULL), with_vision ? 1 : 0);
    CHECK_INT_EQ(ts_bundle_vision_levels(b), with_vision ? 2 : 0);
    const ts_model_config *cfg = ts_model_get_config(m);
    const ts_tensor_info *ids64 = ts_checkpoint_find(ref, "input_ids"), *gen = ts_checkpoint_find(ref, "generated_ids");
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"), *grid = ts_checkpoint_find(ref, "image_grid_thw");
    const ts_tensor_info *last = ts_checkpoint_find(ref, "prefill_last_logits");
    int32_t n = (int32_t)ids64->shape[1], n_new = (int32_t)gen->shape[0];
    int64_t H = cfg->text.hidden_size, V = ts_model_vocab_size(m);
    int32_t ids[96];
    for (int i = 0; i < n && i < 96; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    const int64_t *g = grid->data;
    ts_pixel_values image = {.data = (float *)pv->data, .n_dims = 2, .shape = {pv->shape[0], pv->shape[1]}, .grid_thw = {g[0], g[1], g[2]}};
    ts_vision *v = ts_model_vision(m);
    float *rows = NULL, *features = NULL, *emb = malloc(sizeof(float) * (size_t)(n * H)), *logits = malloc(sizeof(float) * (size_t)V);
    int32_t *positions = malloc(sizeof(int32_t) * 3 * (size_t)n), visual[96];
    int levels = 0;
    int64_t n_rows = 0, delta = 0, n_visual = 0;
    REQUIRE_INT_EQ(
        ts_vision_encode_deepstack(v, &image, 1, &rows, &features, &levels, &n_rows, &err), TS_OK);
    if (with_vision) {
        /* The same rows through vision.main: against the reference and against the engine's tower. */
        ts_encoded_media b_media;
        REQUIRE_INT_EQ(ts_bundle_encode_images(b, &image, 1, &b_media, &err), TS_OK);
        float *b_rows = b_media.rows, *b_features = b_media.deepstack;
        int b_levels = b_media.deepstack_levels;
        int64_t b_n = b_media.n_rows;
        CHECK_INT_EQ(b_levels, 2);
        CHECK_INT_EQ(b_n, n_rows);
        const ts_tensor_info *want_rows[3] = {ts_checkpoint_find(ref, "image_embeds"), ts_checkpoint_find(ref, "deepstack_0"),
                                              ts_checkpoint_find(ref, "deepstack_1")};
        int64_t width = cfg->vision.out_hidden_size, level = n_rows * width;
        for (int k = 0; k < 3 && b_rows && b_features && rows && features; k++) {
            const float *ours = k ? b_features + (k - 1) * level : b_rows, *engine = k ? features + (k - 1) * level : rows;
            CHECK(want_rows[k] && want_rows[k]->shape[0] * want_rows[k]->shape[1] == level);
            float ref_diff = max_diff(ours, want_rows[k]->data, level), ref_tol = tolerance_of(want_rows[k]->data, level);
            float eng_diff = max_diff(ours, engine, level), eng_tol = 1e-5f * (ref_tol / 1e-4f);
            fprintf(stderr, "  %s vision.main %s: max |bundle - ref| = %.3g (tol %.3g), max |bundle - engine tower| = %.3g\n", name,
                    k ? (k == 1 ? "deepstack_0" : "deepstack_1") : "image_embeds", ref_diff, ref_tol, eng_diff);
            CHECK(ref_diff <= ref_tol);
            CHECK(eng_diff <= eng_tol);
        }
        /* From here on the prompt takes the bundle's rows. */
        if (b_rows && b_features) {
            free(rows), free(features);
            rows = b_rows, features = b_features;
        } else {
            free(b_rows), free(b_features);
        }
    }
    ts_encoded_media media = {.rows = rows, .n_rows = n_rows, .hidden = H, .deepstack = features, .deepstack_levels = levels};
    ts_mm_inputs mm = {0};
    REQUIRE_INT_EQ(ts_mm_inputs_build(m, ids, (size_t)n, &image, 1, &media, &mm, &err), TS_OK);
    if (mm.embeddings) {
        memcpy(emb, mm.embeddings, sizeof(float) * (size_t)(n * H));
        memcpy(positions, mm.positions, sizeof(int32_t) * 3 * (size_t)n);
        delta = mm.rope_delta;
    }
    for (int32_t i = 0; i < n; i++)
        if (ids[i] == cfg->image_token_id) visual[n_visual++] = i;
    CHECK_INT_EQ(n_visual, n_rows);
    /* The built side inputs are this payload: the image tokens' positions and the tower's levels.
     */
    CHECK_INT_EQ(mm.side_kind, TS_SIDE_DEEPSTACK);
    CHECK(mm.deepstack.n_visual == n_visual && mm.deepstack.n_layers == n_layers &&
          !memcmp(mm.deepstack.visual_positions, visual, sizeof(int32_t) * (size_t)n_visual) &&
          !memcmp(mm.deepstack.layer_features, features,
                  sizeof(float) * (size_t)(n_layers * n_visual * H)));
    ts_mm_inputs_free(&mm);
    ts_deepstack ds = {visual, n_visual, features, layers, n_layers};
    ts_side_inputs side = {TS_SIDE_DEEPSTACK, &ds, NULL};
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, emb, (size_t)n, H, positions, delta,
                                                    &side, logits, &err),
                 TS_OK);
    float logit_diff = max_diff(logits, last->data, V), logit_tol = tolerance_of(last->data, V);
    /* Without its DeepStack rows the same prompt is another computation: the entry is not a no-op. */
    ts_bundle_slots_reset(slots, 0);
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, emb, (size_t)n, H, positions, delta,
                                                    NULL, logits, &err),
                 TS_OK);
    float plain_diff = max_diff(logits, last->data, V);
    ts_generate_params p = {.max_tokens = n_new, .ignore_eos = true};
    ts_sampling_params_default(&p.sampling);
    p.sampling.temperature = 0;
    ts_generation out = {0};
    CHECK_INT_EQ(ts_bundle_generate_images(b, m, ids, (size_t)n, &image, 1, &p, &out, &err), TS_OK);
    int same = 0;
    for (size_t i = 0; i < out.n_ids && i < (size_t)n_new; i++) same += out.ids[i] == (int32_t)((const int64_t *)gen->data)[i];
    fprintf(stderr, "  %s through prefill_embeddings_deepstack.main: %lld image rows, prefill logits %.2g (tol %.2g; %.2g without DeepStack), "
            "%d/%d greedy tokens\n", name, (long long)n_visual, logit_diff, logit_tol, plain_diff, same, n_new);
    CHECK(logit_diff <= logit_tol);
    CHECK(plain_diff > logit_tol);
    CHECK_INT_EQ((int64_t)out.n_ids, n_new);
    CHECK_INT_EQ(same, n_new);
    ts_generation_free(&out);
    free(rows), free(features), free(emb), free(logits), free(positions);
out:
    ts_bundle_slots_destroy(slots);
    ts_checkpoint_close(ref);
    ts_model_destroy(m);
    ts_bundle_close(b);
}

static void test_qwen3_vl_deepstack_through_bundle(void) { deepstack_through_bundle("qwen3_vl", false); }
static void test_qwen3_vl_moe_deepstack_through_bundle(void) { deepstack_through_bundle("qwen3_vl_moe", false); }
static void test_qwen3_vl_vision_main_through_bundle(void) { deepstack_through_bundle("qwen3_vl", true); }
static void test_qwen3_vl_moe_vision_main_through_bundle(void) { deepstack_through_bundle("qwen3_vl_moe", true); }

/* Qwen3-VL's vision.main refuses what it cannot run, in both layers: images past the largest patch
 * bucket (the message lists the buckets), padded taps that are not the filler (pos_index 0,
 * pos_weight 0), real taps outside the position table or not finite; and a manifest whose
 * vision.main DeepStack levels are not the language side's. Uses the qwen3_vl bundle of
 * test_qwen3_vl_vision_main_through_bundle. */
static void test_qwen3_vl_vision_refusals(void)
{
    const char *model = "tests/fixtures/qwen3_vl/model";
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/qwen3_vl-ds-vision", tmp);
    ts_bundle *b = NULL;
    ts_checkpoint *ref = NULL;
    ts_error err;
    if (ts_bundle_open(ctx, bundle, model, &b, &err) != TS_OK ||
        ts_checkpoint_open("tests/fixtures/qwen3_vl/reference.safetensors", &ref, &err) != TS_OK) {
        fprintf(stderr, "qwen3_vl vision: %s\n", err.message);
        CHECK(false);
        goto out;
    }
    const ts_tensor_info *pv = ts_checkpoint_find(ref, "pixel_values"), *grid = ts_checkpoint_find(ref, "image_grid_thw");
    const int64_t *g = grid->data;
    ts_pixel_values image = {.data = (float *)pv->data, .n_dims = 2, .shape = {pv->shape[0], pv->shape[1]}, .grid_thw = {g[0], g[1], g[2]}};
    ts_pixel_values two[2] = {image, image};
    ts_encoded_media media = {.rows = (float *)1, .n_rows = 1, .hidden = 1, .deepstack = (float *)1, .deepstack_levels = -1};
    int refusals = 0;
    CHECK_INT_EQ(ts_bundle_encode_images(b, two, 2, &media, &err), TS_ERR_RANGE);
    refusals++;
    CHECK(strstr(err.message, "432 patches do not fit the bundle's vision buckets (256)") != NULL);
    CHECK(media.rows == NULL && media.deepstack == NULL && media.deepstack_levels == 0);
    CHECK_INT_EQ(ts_bundle_encode_images(b, two, 2, &media, &err), TS_ERR_RANGE);
    refusals++;

    /* Direct calls: a valid one (216 real rows of zero pixels, one frame), then one fault at a time. */
    enum { N = 256, D = 1536, COUNT = 216 };
    float *pixels = calloc((size_t)N * D, sizeof(float)), weight[4 * N];
    int32_t positions[2 * N] = {0}, segments[N], index[4 * N];
    for (int r = 0; r < N; r++) segments[r] = r < COUNT ? 0 : -1;
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < N; r++) index[k * N + r] = r < COUNT ? 5 : 0, weight[k * N + r] = r < COUNT ? 0.25f : 0.0f;
    int32_t count = COUNT;
    int64_t pd[2] = {N, D}, sd[1] = {N}, td[2] = {4, N};
    ts_tensor_arg args[6] = {arg_f32("pixel_values", pixels, 2, pd),
                             {"positions", TS_DTYPE_I32, 2, {N, 2}, positions, sizeof(positions)},
                             {"segments", TS_DTYPE_I32, 1, {sd[0]}, segments, sizeof(segments)},
                             {"pos_index", TS_DTYPE_I32, 2, {td[0], td[1]}, index, sizeof(index)},
                             arg_f32("pos_weight", weight, 2, td),
                             arg_i32("count", &count, 0, 0)};
    const void *outs[2];
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_OK);
    weight[2 * N + 240] = 0.5f; /* a padding row's tap */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT); refusals++;
    CHECK(strstr(err.message, "row 240 is padding (at or past count = 216): its taps must be the "
                                "filler pos_index 0, pos_weight 0") != NULL);
    weight[2 * N + 240] = 0.0f;
    index[3 * N + 255] = 7;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT); refusals++;
    CHECK(strstr(err.message, "row 255 is padding") != NULL);
    index[3 * N + 255] = 0;
    index[N + 3] = 64; /* the fixture's table has 8² = 64 rows */
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_RANGE); refusals++;
    CHECK(strstr(err.message, "pos_index[1][3] = 64 is outside the position table 0..63") !=
            NULL);
    index[N + 3] = 5;
    weight[10] = NAN;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_RANGE); refusals++;
    CHECK(strstr(err.message, "pos_weight[0][10] is NaN") != NULL);
    weight[10] = 0.25f;
    count = 218;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_RANGE); refusals++;
    CHECK(strstr(err.message, "count = 218 is not a multiple of 4") != NULL);
    count = COUNT;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 5, outs, &err), TS_ERR_INVALID_ARGUMENT); refusals++;
    args[3].name = "pos_weight";
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT); refusals++;
    CHECK(strstr(err.message, "argument 3 is 'pos_weight', expected 'pos_index'") != NULL);
    args[3].name = "pos_index";
    args[4].dims[1] = 128;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_ERR_INVALID_ARGUMENT); refusals++;
    args[4].dims[1] = N;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 1, args, 6, outs, &err), TS_ERR_RANGE); refusals++;
    CHECK_INT_EQ(ts_bundle_run_vision(b, 0, args, 6, outs, &err), TS_OK);
    free(pixels);
    fprintf(stderr, "  qwen3_vl vision.main: %d bad calls refused with their messages\n", refusals);

    /* A manifest whose vision.main gives other DeepStack levels than the language side takes. */
    char copy[200], cmd[600], path[256];
    snprintf(copy, sizeof(copy), "%s/qwen3_vl-ds-vision-bad", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", copy, bundle, copy);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/manifest.json", copy);
    replace_in_file(path, "\"deepstack_levels\":\t2", "\"deepstack_levels\":\t1");
    reseal(copy);
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "vision.main gives 1 DeepStack levels, the bundle's "
                                "prefill_embeddings_deepstack.main takes 2") != NULL);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s' '%s'", copy, bundle, copy);
    CHECK(system(cmd) == 0);
    replace_in_file(path, "\"deepstack_levels\":\t2,\n", "");
    CHECK_INT_EQ(open_status(copy, model, &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "vision.deepstack_levels") != NULL);
out:
    ts_checkpoint_close(ref);
    ts_bundle_close(b);
}

/* Declaring DeepStack changes nothing of the ordinary entries: the qwen3_vl export and the export
 * of the same checkpoint whose config lacks deepstack_visual_indexes have byte-identical
 * prefill.main, prefill_embeddings.main and decode.main; only the former has the fourth entry. */
static void test_deepstack_leaves_ordinary_modules(void)
{
    char model[160], with[160], without[160], cmd[1024];
    snprintf(model, sizeof(model), "%s/qwen3_vl-no-deepstack", tmp);
    snprintf(with, sizeof(with), "%s/ds-with", tmp);
    snprintf(without, sizeof(without), "%s/ds-without", tmp);
    snprintf(cmd, sizeof(cmd),
             "mkdir -p '%s' && for f in tests/fixtures/qwen3_vl/model/*; do ln -sf \"$PWD/$f\" '%s/'; done && rm '%s/config.json' && "
             "python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); del c[\"vision_config\"][\"deepstack_visual_indexes\"]; "
             "json.dump(c, open(sys.argv[2], \"w\"), indent=2)' tests/fixtures/qwen3_vl/model/config.json '%s/config.json'",
             model, model, model, model);
    CHECK(system(cmd) == 0);
    int64_t cap = 32;
    ts_bundle_options o = {.capacities = &cap, .n_capacities = 1, .prefill_capacity = 16, .slots = 2};
    ts_error err;
    REQUIRE_INT_EQ(ts_bundle_export("tests/fixtures/qwen3_vl/model", with, &o, &err), TS_OK);
    REQUIRE_INT_EQ(ts_bundle_export(model, without, &o, &err), TS_OK);
    static const char *const files[] = {"c32/prefill.mlir", "c32/prefill_embeddings.mlir", "c32/decode.mlir"};
    int same = 0;
    for (int f = 0; f < 3; f++) {
        char *x = NULL;
        bool equal = same_text(with, without, files[f], &x);
        CHECK(equal);
        same += equal;
        CHECK(x && !strstr(x, "stablehlo.scatter") && !strstr(x, "visual_positions"));
        free(x);
    }
    char a[256];
    snprintf(a, sizeof(a), "%s/c32/prefill_embeddings_deepstack.mlir", without);
    CHECK(access(a, F_OK) != 0);
    snprintf(a, sizeof(a), "%s/manifest.json", without);
    char *manifest = read_text(a);
    CHECK(manifest && !strstr(manifest, "deepstack") && !strstr(manifest, "visual_capacity"));
    free(manifest);
    fprintf(stderr, "  %d/3 ordinary modules identical with and without DeepStack declared\n", same);
    CHECK_INT_EQ(same, 3);
    /* The bundle without the entry refuses it by name, listing what it has. */
    ts_bundle *b = NULL;
    REQUIRE_INT_EQ(ts_bundle_open(ctx, without, model, &b, &err), TS_OK);
    if (b) {
        const void *outs[3];
        CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings_deepstack.main", NULL, 0, outs, &err), TS_ERR_NOT_FOUND);
        CHECK(strstr(err.message, "no entry 'prefill_embeddings_deepstack.main' (entries: prefill.main, prefill_embeddings.main, decode.main)"));
        int n_layers = 1;
        const int32_t *layers = (const int32_t *)&n_layers;
        CHECK(ts_bundle_side_inputs(b, &layers, &n_layers) == TS_SIDE_NONE);
        CHECK(layers == NULL && n_layers == 0);
    }
    ts_bundle_close(b);
}

/* A valid prefill_embeddings_deepstack.main call on the qwen3_vl bundle (Lp = Nv_max = 16,
 * length 8, two image rows), then each way its payload can be wrong, refused with its message
 * before anything runs. */
typedef struct {
    float emb[16 * 64], bias[16 * 16], features[2 * 16 * 64];
    int32_t positions[3 * 16], visual[16], length, count;
    ts_tensor_arg args[7];
} ds_call;

static void ds_call_init(ds_call *c)
{
    memset(c, 0, sizeof(*c));
    for (int i = 0; i < 16 * 64; i++) c->emb[i] = 0.01f * (float)(i % 97) - 0.3f;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 16; j++) c->bias[i * 16 + j] = j <= i ? 0.0f : -INFINITY;
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 16; i++) c->positions[r * 16 + i] = i;
    c->length = 8, c->count = 2, c->visual[0] = 3, c->visual[1] = 5;
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 64; i++) c->features[(k * 16 + j) * 64 + i] = 0.5f - 0.01f * (float)i;
    int64_t ed[2] = {16, 64}, bd[2] = {16, 16}, fd[3] = {2, 16, 64};
    c->args[0] = arg_f32("embeddings", c->emb, 2, ed);
    c->args[1] = (ts_tensor_arg){"positions", TS_DTYPE_I32, 2, {3, 16}, c->positions, sizeof(c->positions)};
    c->args[2] = arg_f32("bias", c->bias, 2, bd);
    c->args[3] = arg_i32("length", &c->length, 0, 0);
    c->args[4] = arg_i32("visual_positions", c->visual, 1, 16);
    c->args[5] = arg_f32("layer_features", c->features, 3, fd);
    c->args[6] = arg_i32("visual_count", &c->count, 0, 0);
}

static void expect_ds_refusal(ts_bundle *b, ds_call *c, const char *message)
{
    ts_error err = {0};
    const void *outs[3];
    ts_status st = ts_bundle_run(b, 0, "prefill_embeddings_deepstack.main", c->args, 7, outs, &err);
    bool named = st != TS_OK && strstr(err.message, message);
    if (!named) fprintf(stderr, "  expected a refusal naming '%s', got %d: %s\n", message, (int)st, st == TS_OK ? "(ok)" : err.message);
    CHECK(named);
    ds_call_init(c);
}

static void test_deepstack_bad_calls(void)
{
    char bundle[160];
    snprintf(bundle, sizeof(bundle), "%s/ds-with", tmp); /* from test_deepstack_leaves_ordinary_modules */
    const char *dir = "tests/fixtures/qwen3_vl/model";
    ts_bundle *b = NULL;
    ts_bundle_slots *slots = NULL;
    ts_error err;
    CHECK_INT_EQ(ts_bundle_open(ctx, bundle, dir, &b, &err), TS_OK);
    if (!b) return;
    CHECK_INT_EQ(ts_bundle_visual_capacity(b, 0), 16);
    ds_call *c = malloc(sizeof(*c));
    ds_call_init(c);
    const void *outs[3];
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings_deepstack.main", c->args, 7, outs, &err), TS_OK);
    /* With no image rows the entry is prefill_embeddings.main. */
    float with_rows = ((const float *)outs[0])[0];
    c->count = 0;
    memset(c->visual, 0, sizeof(c->visual)), memset(c->features, 0, sizeof(c->features));
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings_deepstack.main", c->args, 7, outs, &err), TS_OK);
    float *empty = malloc(sizeof(float) * 1344);
    memcpy(empty, outs[0], sizeof(float) * 1344);
    CHECK_INT_EQ(ts_bundle_run(b, 0, "prefill_embeddings.main", c->args, 4, outs, &err), TS_OK);
    CHECK(memcmp(empty, outs[0], sizeof(float) * 1344) == 0);
    CHECK(empty[0] != with_rows);
    free(empty);
    ds_call_init(c);
    int refusals = 0;
    c->visual[1] = 3;
    expect_ds_refusal(b, c, "visual_positions[1] = 3 repeats visual_positions[0] = 3"), refusals++;
    c->visual[0] = 5, c->visual[1] = 3;
    expect_ds_refusal(b, c, "visual_positions[1] = 3 comes before visual_positions[0] = 5"), refusals++;
    c->visual[1] = 8;
    expect_ds_refusal(b, c, "visual_positions[1] = 8 is outside the prompt rows 0..7"), refusals++;
    c->visual[0] = -1;
    expect_ds_refusal(b, c, "visual_positions[0] = -1 is outside the prompt rows 0..7"), refusals++;
    c->count = 17;
    expect_ds_refusal(b, c, "visual_count = 17 is outside 0..16 (the bucket's static maximum Nv_max)"), refusals++;
    c->count = -1;
    expect_ds_refusal(b, c, "visual_count = -1 is outside 0..16"), refusals++;
    c->length = 1;
    expect_ds_refusal(b, c, "visual_count = 2 exceeds length = 1"), refusals++;
    c->count = 1; /* the payload has two rows */
    expect_ds_refusal(b, c, "visual_positions[1] = 5 is padding (at or past visual_count = 1) and must be 0"), refusals++;
    c->count = 3; /* the payload has two rows: the third is the filler */
    expect_ds_refusal(b, c, "visual_positions[2] = 0 comes before visual_positions[1] = 5"), refusals++;
    c->visual[9] = 7;
    expect_ds_refusal(b, c, "visual_positions[9] = 7 is padding (at or past visual_count = 2) and must be 0"), refusals++;
    c->features[(1 * 16 + 4) * 64 + 10] = 1e-30f;
    expect_ds_refusal(b, c, "layer_features[1][4][10] is padding (at or past visual_count = 2) and must be 0"), refusals++;
    c->features[(0 * 16 + 1) * 64 + 2] = NAN;
    expect_ds_refusal(b, c, "layer_features[66] is NaN"), refusals++;
    c->features[(1 * 16 + 0) * 64 + 3] = INFINITY;
    expect_ds_refusal(b, c, "layer_features[1][0][3] is infinite"), refusals++;
    c->args[5].n_bytes -= 4;
    expect_ds_refusal(b, c, "layer_features has 8188 bytes, expected 8192"), refusals++;
    c->args[4].n_bytes = 4 * 15;
    expect_ds_refusal(b, c, "visual_positions has 60 bytes, expected 64"), refusals++;
    c->args[4].dims[0] = 15;
    expect_ds_refusal(b, c, "visual_positions has shape I32[15], expected I32[16]"), refusals++;
    c->args[5].dims[0] = 3;
    expect_ds_refusal(b, c, "layer_features has shape F32[3, 16, 64], expected F32[2, 16, 64]"), refusals++;
    c->args[6].name = "count";
    expect_ds_refusal(b, c, "argument 6 is 'count', expected 'visual_count'"), refusals++;
    /* The slots API pads the compact payload itself and holds it to the bundle's layers and Nv_max. */
    REQUIRE_INT_EQ(ts_bundle_slots_create(b, 0, &slots, &err), TS_OK);
    int n_layers = 0;
    const int32_t *layers = NULL;
    CHECK_INT_EQ(ts_bundle_side_inputs(b, &layers, &n_layers), TS_SIDE_DEEPSTACK);
    int32_t wrong_layers[2] = {0, 2}, many[17], pos[3 * 8];
    for (int i = 0; i < 17; i++) many[i] = i;
    for (int i = 0; i < 24; i++) pos[i] = i % 8;
    float *logits = malloc(sizeof(float) * 1344), *feat = calloc(2 * 17 * 64, sizeof(float));
    ts_deepstack ds = {c->visual, 2, feat, wrong_layers, 2};
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "layer_indices[1] = 2, the bundle's layer is 1")); refusals++;
    ds.layer_indices = layers, ds.n_layers = 1;
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "layer_indices has 1 entries, the bundle's DeepStack layers 2")); refusals++;
    ds.n_layers = 2, ds.visual_positions = many, ds.n_visual = 17;
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_ERR_RANGE);
    CHECK(strstr(err.message, "17 image rows exceed the bucket's static maximum Nv_max = 16")); refusals++;
    ds.n_visual = 2, ds.visual_positions = NULL;
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(err.message, "visual_positions is NULL")); refusals++;
    ds.visual_positions = many, ds.n_visual = 9; /* rows 0 … 8 of an 8-row prompt: the entry says so */
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_ERR_RANGE);
    CHECK(strstr(err.message, "visual_count = 9 exceeds length = 8")); refusals++;
    CHECK_INT_EQ(ts_bundle_slots_length(slots, 0), 0);
    ds.n_visual = 2;
    CHECK_INT_EQ(ts_bundle_slots_prefill_embeddings(slots, 0, c->emb, 8, 64, pos, 0,
                                                    &(ts_side_inputs){TS_SIDE_DEEPSTACK, &ds, NULL},
                                                    logits, &err),
                 TS_OK);
    CHECK_INT_EQ(ts_bundle_slots_length(slots, 0), 8);
    fprintf(stderr, "  prefill_embeddings_deepstack.main: %d bad payloads refused with their messages\n", refusals);
    free(logits), free(feat), free(c);
    ts_bundle_slots_destroy(slots);
    ts_bundle_close(b);
}

/* The manifest's DeepStack layers are the model's: a bundle whose manifest says otherwise (resealed,
 * so the identity holds) is refused at open. */
static void test_deepstack_bad_manifest(void)
{
    char bundle[160], cmd[512], path[256];
    snprintf(bundle, sizeof(bundle), "%s/ds-bad-layers", tmp);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/ds-with' '%s'", bundle, tmp, bundle);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof(path), "%s/manifest.json", bundle);
    replace_in_file(path, "\"layers\":\t[0, 1]", "\"layers\":\t[0, 2]");
    reseal(bundle);
    ts_error err;
    CHECK_INT_EQ(open_status(bundle, "tests/fixtures/qwen3_vl/model", &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "deepstack: the manifest's DeepStack layers [0, 2] are not the model config's [0, 1]"));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/ds-with' '%s'", bundle, tmp, bundle);
    CHECK(system(cmd) == 0);
    replace_in_file(path, "\"visual_capacity\":\t16", "\"visual_capacity\":\t17");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, "tests/fixtures/qwen3_vl/model", &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "visual_capacity: out of range"));
    snprintf(cmd, sizeof(cmd), "rm -rf '%s' && cp -r '%s/ds-with' '%s'", bundle, tmp, bundle);
    CHECK(system(cmd) == 0);
    replace_in_file(path, "\"visual_capacity\":\t16", "\"visual_capacity\":\t15");
    reseal(bundle);
    CHECK_INT_EQ(open_status(bundle, "tests/fixtures/qwen3_vl/model", &err), TS_ERR_FORMAT);
    CHECK(strstr(err.message, "prefill_embeddings_deepstack.main must take prefill_embeddings.main's arguments, then visual_positions i32[15]"));
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    strcpy(tmp, "/tmp/ts_bundle_XXXXXX");
    if (!mkdtemp(tmp)) return 1;
    RUN(test_qwen2);
    RUN(test_qwen3);
    RUN(test_llama);
    RUN(test_golden_and_round_trip);
    RUN(test_quantized);
    RUN(test_bad_quantized_bundles);
    RUN(test_admission);
    RUN(test_bad_bundles);
    RUN(test_bad_calls);
    RUN(test_vision_entries);
    RUN(test_qwen2_vl_through_bundle);
    RUN(test_qwen2_vl_two_images_through_bundle);
    RUN(test_qwen2_5_vl_through_bundle);
    RUN(test_qwen2_5_vl_windowed_vision);
    RUN(test_llava_through_bundle);
    RUN(test_llava_siglip_through_bundle);
    RUN(test_gemma3_through_bundle);
    RUN(test_gemma3_bias_refusals);
    RUN(test_qwen2_vl_text_only_through_bundle);
    RUN(test_decode_k_rows);
    RUN(test_decode_k_bad_manifest);
    RUN(test_qwen2_speculative_through_bundle);
    RUN(test_qwen2_vl_speculative_through_bundle);
    RUN(test_qwen3_vl_moe_text_through_bundle);
    RUN(test_slots);
    RUN(test_qwen3_vl_deepstack_through_bundle);
    RUN(test_qwen3_vl_moe_deepstack_through_bundle);
    RUN(test_qwen3_vl_vision_main_through_bundle);
    RUN(test_qwen3_vl_moe_vision_main_through_bundle);
    RUN(test_qwen3_vl_vision_refusals);
    RUN(test_deepstack_leaves_ordinary_modules);
    RUN(test_deepstack_bad_calls);
    RUN(test_deepstack_bad_manifest);
    nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    ts_context_destroy(ctx);
    return check_finish();
}
