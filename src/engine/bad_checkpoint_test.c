/* bad_checkpoint_test.c — a checkpoint that does not fit its config fails at load, before any
 * compute, with a message naming the tensor: missing tensor, wrong shape, wrong dtype, and a
 * config.json that contradicts the weights. Each case rewrites the qwen2 fixture (or, for the MoE
 * tensors, qwen3_vl_moe) into a temp dir. */
#include "check.h"
#include "tessera.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static ts_context *ctx;
static char tmp[64];

typedef enum { KEEP, DROP, RESHAPE, RETYPE } edit;

/* Writes dir/model.safetensors from the fixture's model/ with one tensor edited (by name). */
static void write_checkpoint(const char *fixture, const char *dir, const char *target, edit how)
{
    ts_checkpoint *src;
    ts_error err;
    char model[128];
    snprintf(model, sizeof(model), "tests/fixtures/%s/model", fixture);
    if (ts_checkpoint_open(model, &src, &err) != TS_OK) return;
    size_t n = ts_checkpoint_tensor_count(src);
    char *header = malloc(1 << 20);
    size_t at = (size_t)sprintf(header, "{");
    uint64_t offset = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(src, i);
        bool is_target = strcmp(t->name, target) == 0;
        if (is_target && how == DROP) continue;
        const char *dtype = is_target && how == RETYPE ? "I32" : ts_dtype_name(t->dtype);
        at += (size_t)sprintf(header + at, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", at > 1 ? "," : "", t->name, dtype);
        int64_t shape[TS_MAX_DIMS];
        memcpy(shape, t->shape, sizeof(shape));
        int rank = t->n_dims;
        if (is_target && how == RESHAPE) { /* same bytes, transposed dims */
            int64_t s0 = shape[0];
            shape[0] = shape[rank - 1];
            shape[rank - 1] = s0;
            if (rank == 1) shape[0] = s0, rank = 2, shape[1] = 1;
        }
        for (int d = 0; d < rank; d++) at += (size_t)sprintf(header + at, "%s%lld", d ? "," : "", (long long)shape[d]);
        at += (size_t)sprintf(header + at, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)offset,
                              (unsigned long long)(offset + t->n_bytes));
        offset += t->n_bytes;
    }
    at += (size_t)sprintf(header + at, "}");
    while (at % 8) header[at++] = ' ';
    char path[256];
    snprintf(path, sizeof(path), "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    uint64_t len = at;
    fwrite(&len, 8, 1, f);
    fwrite(header, 1, at, f);
    for (size_t i = 0; i < n; i++) {
        const ts_tensor_info *t = ts_checkpoint_tensor_at(src, i);
        if (strcmp(t->name, target) == 0 && how == DROP) continue;
        fwrite(t->data, 1, t->n_bytes, f);
    }
    fclose(f);
    free(header);
    ts_checkpoint_close(src);
}

static void copy_config(const char *fixture, const char *dir, const char *from, const char *to)
{
    char *text, source[128];
    size_t len;
    snprintf(source, sizeof(source), "tests/fixtures/%s/model/config.json", fixture);
    FILE *in = fopen(source, "rb");
    fseek(in, 0, SEEK_END);
    len = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);
    text = calloc(1, len + 64);
    if (fread(text, 1, len, in) != len) len = 0;
    fclose(in);
    char *hit = from ? strstr(text, from) : NULL;
    char path[256];
    snprintf(path, sizeof(path), "%s/config.json", dir);
    FILE *out = fopen(path, "wb");
    if (hit) {
        fwrite(text, 1, (size_t)(hit - text), out);
        fputs(to, out);
        fputs(hit + strlen(from), out);
    } else {
        fwrite(text, 1, len, out);
    }
    fclose(out);
    free(text);
}

static ts_status load_fixture_case(const char *fixture, const char *name, const char *target,
                                   edit how, const char *config_from, const char *config_to,
                                   ts_error *err)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
    mkdir(dir, 0700);
    write_checkpoint(fixture, dir, target, how);
    copy_config(fixture, dir, config_from, config_to);
    ts_model *m = NULL;
    ts_status st = ts_model_load(ctx, dir, NULL, &m, err);
    ts_model_destroy(m);
    return st;
}

static ts_status load_case(const char *name, const char *target, edit how, const char *config_from,
                           const char *config_to, ts_error *err)
{
    return load_fixture_case("qwen2", name, target, how, config_from, config_to, err);
}

static void test_bad_checkpoints_are_named(void)
{
    ts_error err;
    CHECK_INT_EQ(load_case("intact", "", KEEP, NULL, NULL, &err), TS_OK);

    CHECK_INT_EQ(load_case("missing", "model.layers.1.self_attn.k_proj.bias", DROP, NULL, NULL, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "checkpoint has no tensor model.layers.1.self_attn.k_proj.bias");

    CHECK_INT_EQ(load_case("shape", "model.layers.2.mlp.down_proj.weight", RESHAPE, NULL, NULL, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "tensor model.layers.2.mlp.down_proj.weight has shape [160, 64]; the config implies [64, 160]");

    CHECK_INT_EQ(load_case("dtype", "model.norm.weight", RETYPE, NULL, NULL, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "tensor model.norm.weight has dtype I32; weights must be F32, BF16 or F16");

    /* The config claims 4 layers: layer 3 is named as missing. */
    CHECK_INT_EQ(load_case("layers", "", KEEP, "\"num_hidden_layers\": 3", "\"num_hidden_layers\": 4", &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "model.layers.3.input_layernorm.weight");

    /* The config claims a wider MLP than the weights have. */
    CHECK_INT_EQ(load_case("inter", "", KEEP, "\"intermediate_size\": 160", "\"intermediate_size\": 192", &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "tensor model.layers.0.mlp.gate_proj.weight has shape [160, 64]; the config implies [192, 64]");

    /* Untied embeddings need lm_head.weight. */
    CHECK_INT_EQ(load_case("untied", "", KEEP, "\"tie_word_embeddings\": true", "\"tie_word_embeddings\": false", &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "lm_head.weight");
}

/* Qwen3-VL-MoE's fused 3-D expert tensors and router, checked against the config. */
static void test_bad_moe_checkpoints_are_named(void)
{
    ts_error err;
    const char *f = "qwen3_vl_moe";
    CHECK_INT_EQ(load_fixture_case(f, "moe-intact", "", KEEP, NULL, NULL, &err), TS_OK);

    CHECK_INT_EQ(load_fixture_case(f, "moe-shape",
                                   "model.language_model.layers.1.mlp.experts.gate_up_proj",
                                   RESHAPE, NULL, NULL, &err),
                 TS_ERR_FORMAT);
    CHECK_CONTAINS(
        err.message,
        "tensor model.language_model.layers.1.mlp.experts.gate_up_proj has shape [96, 64, 4]; "
        "the config implies [4, 64, 96]");

    CHECK_INT_EQ(load_fixture_case(f, "moe-missing",
                                   "model.language_model.layers.2.mlp.experts.down_proj", DROP,
                                   NULL, NULL, &err),
                 TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message,
                   "checkpoint has no tensor model.language_model.layers.2.mlp.experts.down_proj");

    CHECK_INT_EQ(load_fixture_case(f, "moe-dtype", "model.language_model.layers.0.mlp.gate.weight",
                                   RETYPE, NULL, NULL, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message,
                   "tensor model.language_model.layers.0.mlp.gate.weight has dtype I32");

    /* The config claims wider experts, or more of them, than the weights have. */
    CHECK_INT_EQ(load_fixture_case(f, "moe-inter", "", KEEP, "\"moe_intermediate_size\": 48",
                                   "\"moe_intermediate_size\": 40", &err),
                 TS_ERR_FORMAT);
    CHECK_CONTAINS(
        err.message,
        "tensor model.language_model.layers.0.mlp.experts.gate_up_proj has shape [4, 64, 96]; "
        "the config implies [4, 64, 80]");
    CHECK_INT_EQ(load_fixture_case(f, "moe-experts", "", KEEP, "\"num_experts\": 4",
                                   "\"num_experts\": 8", &err),
                 TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "tensor model.language_model.layers.0.mlp.gate.weight has shape "
                                "[4, 64]; the config implies [8, 64]");
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 1};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    strcpy(tmp, "/tmp/ts_badckpt_XXXXXX");
    if (!mkdtemp(tmp)) return 1;
    RUN(test_bad_checkpoints_are_named);
    RUN(test_bad_moe_checkpoints_are_named);
    nftw(tmp, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    ts_context_destroy(ctx);
    return check_finish();
}
