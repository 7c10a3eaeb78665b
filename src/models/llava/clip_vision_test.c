/* clip_vision_test.c — LLaVA's image path (CLIP tower, SigLIP tower, projector) and Gemma3's
 * (SigLIP, average-pool projector) against transformers' outputs in tests/fixtures/llava,
 * tests/fixtures/llava_siglip and tests/fixtures/gemma3, from each
 * fixture's pixel_values: vision_patch_embed, vision_pre_layernorm (CLIP), vision_blocks_input,
 * every vision_block_i and image_embeds within 1e-4 × max(1, max |ref|), the first divergent
 * stage reported by name. The same graph decomposed to primitives and run by the reference
 * evaluator agrees with the fused run within 1e-5 × max(1, max |fused|) on every output, and
 * printed as StableHLO and read back it runs to the same bits. The spec follows the config
 * (feature layer, strategy, token count); a bad checkpoint fails naming the tensor.
 */
#include "models/clip_vision.h"
#include "check.h"
#include "fixture_compare.h"
#include "graph_roundtrip.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "export/printer.h"
#include "export/reader.h"
#include "graph/decompose.h"

#include <math.h>

static ts_context *ctx;

/* A checkpoint as a weight source; `drop` hides one tensor, `bend` reports one with its first
 * dimension doubled (the bad-checkpoint cases). */
typedef struct {
    const ts_checkpoint *ckpt;
    const char *drop, *bend;
    ts_tensor_info bent;
} source;

static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    source *s = self;
    if (s->drop && strcmp(name, s->drop) == 0) return NULL;
    const ts_tensor_info *t = ts_checkpoint_find(s->ckpt, name);
    if (t && s->bend && strcmp(name, s->bend) == 0) {
        s->bent = *t;
        s->bent.shape[0] *= 2;
        return &s->bent;
    }
    return t;
}

static void test_spec(void)
{
    ts_model_config cfg;
    ts_clip_vision_spec spec;
    ts_error err;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/llava/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.kind, TS_VIT_CLIP);
    CHECK_INT_EQ(spec.positions, 17); /* (56 / 14)² patches + the class token */
    CHECK_INT_EQ(spec.feature_layer, 2); /* −2 of hidden_states[0..3]: the output of block 1 */
    CHECK(spec.drop_first);
    CHECK_INT_EQ(spec.tokens, 16);
    CHECK_INT_EQ(spec.activation, TS_ACT_QUICK_GELU);
    CHECK_INT_EQ(spec.projector_activation, TS_ACT_GELU);
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/llava_siglip/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(spec.kind, TS_VIT_SIGLIP);
    CHECK_INT_EQ(spec.positions, 16);
    CHECK_INT_EQ(spec.feature_layer, 3);
    CHECK(!spec.drop_first);
    CHECK_INT_EQ(spec.tokens, 16);
    CHECK_INT_EQ(spec.activation, TS_ACT_GELU_TANH);
    /* The config parser bounds the layer; a spec from an edited config must not trust it. */
    cfg.vision_feature_layer = -5;
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "vision_feature_layer -5 is outside the 3-block tower");
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/qwen2_vl/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_ERR_UNSUPPORTED);
}

typedef ts_status (*spec_init_fn)(const ts_model_config *cfg, ts_clip_vision_spec *spec,
                                  ts_error *err);

static void check_case_with(const char *name, spec_init_fn init)
{
    char dir[256], refpath[256];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model_config cfg;
    ts_clip_vision_spec spec;
    ts_checkpoint *weights = NULL, *ref = NULL;
    ts_graph *g = NULL;
    bool opened =
        ts_model_config_load(dir, &cfg, &err) == TS_OK && init(&cfg, &spec, &err) == TS_OK &&
        ts_checkpoint_open(dir, &weights, &err) == TS_OK &&
        ts_checkpoint_open(refpath, &ref, &err) == TS_OK && ts_graph_create(&g, &err) == TS_OK;
    source src = {weights, NULL, NULL, {0}};
    ts_weight_source ws = {find, &src};
    opened = opened && ts_clip_vision_build(g, &spec, &ws, true, &err) == TS_OK;
    if (!opened) fprintf(stderr, "%s: %s\n", name, err.message);
    CHECK(opened);
    const ts_tensor_info *pv = opened ? ts_checkpoint_find(ref, "pixel_values") : NULL;
    CHECK(pv && pv->n_dims == 4 && pv->shape[0] == 1 && pv->shape[1] == spec.in_channels && pv->shape[2] == spec.image);
    void **params = opened ? calloc((size_t)g->n_parameters, sizeof(void *)) : NULL;
    bool bound = params && pv;
    for (int32_t i = 0; bound && i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        void **slot = &params[n->attrs.parameter.index];
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT) *slot = (void *)ts_checkpoint_find(weights, n->name)->data;
        else if (strcmp(n->name, "pixel_values") == 0) *slot = (void *)pv->data;
    }
    for (int32_t i = 0; bound && i < g->n_parameters; i++) bound = params[i] != NULL;
    CHECK(bound);
    ts_program *prog = NULL;
    const void *outs[3 + TS_MAX_LAYERS];
    bool ran = bound && ts_program_create(g, ctx, &prog, &err) == TS_OK && ts_program_run(prog, params, outs, &err) == TS_OK;
    if (bound && !ran) fprintf(stderr, "%s: %s\n", name, err.message);
    CHECK(ran);
    if (!ran) goto done;

    /* Stages in the order the tower computes them (graph outputs: image_embeds, patch_embed,
     * blocks_input, blocks): the first past tolerance is the culprit. CLIP's blocks input is
     * pre_layrnorm's output, stored under both names. */
    int depth = (int)spec.depth, n_stages = depth + 4;
    char first_bad[64] = "";
    for (int s = 0; s < n_stages; s++) {
        char stage[64];
        int out;
        if (s == 0) out = 1, snprintf(stage, sizeof(stage), "vision_patch_embed");
        else if (s == 1) {
            if (spec.kind != TS_VIT_CLIP) continue;
            out = 2, snprintf(stage, sizeof(stage), "vision_pre_layernorm");
        } else if (s == 2) out = 2, snprintf(stage, sizeof(stage), "vision_blocks_input");
        else if (s < depth + 3) out = s, snprintf(stage, sizeof(stage), "vision_block_%d", s - 3);
        else out = 0, snprintf(stage, sizeof(stage), "image_embeds");
        const ts_tensor_info *t = ts_checkpoint_find(ref, stage);
        const ts_type *ty = ts_graph_type(g, g->outputs[out]);
        /* The reference keeps the batch axis: [1, rows, width]. */
        bool shape_ok = t && t->n_dims == 3 && t->shape[0] == 1 && t->shape[1] == ty->dims[0] && t->shape[2] == ty->dims[1];
        if (!shape_ok) fprintf(stderr, "  %s: missing or shaped unlike [1, %lld, %lld]\n", stage, (long long)ty->dims[0], (long long)ty->dims[1]);
        CHECK(shape_ok);
        if (!shape_ok) continue;
        double scale, d = max_diff(outs[out], t->data, (size_t)ts_type_elements(ty), &scale);
        bool ok = d <= 1e-4 * scale;
        fprintf(stderr, "  %-20s max |diff| %.3g (tolerance %.3g)%s\n", stage, d, 1e-4 * scale, ok ? "" : "  DIVERGES");
        if (!ok && !first_bad[0]) snprintf(first_bad, sizeof(first_bad), "%s", stage);
    }
    if (first_bad[0]) fprintf(stderr, "  first divergent stage: %s\n", first_bad);
    CHECK(!first_bad[0]);
    fprintf(stderr, "  %s: %s tower, %lld positions, %lld blocks, feature layer %lld, %lld image tokens: %s\n", name,
            spec.kind == TS_VIT_CLIP ? "CLIP" : "SigLIP", (long long)spec.positions, (long long)spec.depth,
            (long long)spec.feature_layer, (long long)spec.tokens, first_bad[0] ? "DIVERGES" : "all stages match");

    /* Decomposed and exported: its one input is the processor's pixel tensor, the patch
     * rearrangement is in the module. */
    check_graph_roundtrip(g, params, outs, ctx, name, "image_embeds", 1e-5);
done:
    ts_program_destroy(prog);
    free(params);
    ts_graph_destroy(g);
    if (ref) ts_checkpoint_close(ref);
    if (weights) ts_checkpoint_close(weights);
}

static void check_case(const char *name)
{
    check_case_with(name, ts_clip_vision_spec_init);
}

static void test_clip(void) { check_case("llava"); }
/* Gemma3: SigLIP's blocks, post-layernorm, then the 4×4 → 2×2 average pool projector. */
static void test_gemma3(void)
{
    check_case_with("gemma3", ts_clip_vision_pool_spec_init);
}
static void test_siglip(void) { check_case("llava_siglip"); }

/* Without diagnostics the graph stops at the feature layer: block 2 of the CLIP fixture is
 * neither computed nor declared. */
static void test_stops_at_feature_layer(void)
{
    ts_model_config cfg;
    ts_clip_vision_spec spec;
    ts_checkpoint *ckpt;
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/llava/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open("tests/fixtures/llava/model", &ckpt, &err), TS_OK);
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    source src = {ckpt, "vision_tower.vision_model.encoder.layers.2.mlp.fc2.bias", NULL, {0}};
    ts_weight_source ws = {find, &src};
    CHECK_INT_EQ(ts_clip_vision_build(g, &spec, &ws, false, &err), TS_OK);
    CHECK_INT_EQ(g->n_outputs, 1);
    const ts_type *t = ts_graph_type(g, g->outputs[0]);
    CHECK(t->rank == 2 && t->dims[0] == 16 && t->dims[1] == 64);
    for (int32_t i = 0; i < g->n_nodes; i++)
        CHECK(g->nodes[i].op != TS_OP_PARAMETER || strstr(g->nodes[i].name, "layers.2.") == NULL);
    ts_graph_destroy(g);
    ts_checkpoint_close(ckpt);
}

static void build_with(const char *fixture, const char *drop, const char *bend, ts_status want, const char *message)
{
    char dir[128];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", fixture);
    ts_model_config cfg;
    ts_clip_vision_spec spec;
    ts_checkpoint *ckpt;
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_model_config_load(dir, &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_clip_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(dir, &ckpt, &err), TS_OK);
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    source src = {ckpt, drop, bend, {0}};
    ts_weight_source ws = {find, &src};
    CHECK_INT_EQ(ts_clip_vision_build(g, &spec, &ws, false, &err), want);
    CHECK_CONTAINS(err.message, message);
    /* Nothing past the weights was declared: the input comes after every check. */
    for (int32_t i = 0; i < g->n_nodes; i++)
        CHECK(g->nodes[i].op == TS_OP_PARAMETER && g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT);
    ts_graph_destroy(g);
    ts_checkpoint_close(ckpt);
}

static void test_bad_checkpoint(void)
{
    build_with("llava", "vision_tower.vision_model.pre_layrnorm.bias", NULL, TS_ERR_NOT_FOUND,
               "checkpoint has no tensor vision_tower.vision_model.pre_layrnorm.bias");
    build_with("llava", "vision_tower.vision_model.embeddings.class_embedding", NULL, TS_ERR_NOT_FOUND,
               "checkpoint has no tensor vision_tower.vision_model.embeddings.class_embedding");
    build_with("llava_siglip", "vision_tower.vision_model.embeddings.patch_embedding.bias", NULL, TS_ERR_NOT_FOUND,
               "checkpoint has no tensor vision_tower.vision_model.embeddings.patch_embedding.bias");
    build_with("llava", NULL, "vision_tower.vision_model.embeddings.patch_embedding.weight", TS_ERR_FORMAT,
               "tensor vision_tower.vision_model.embeddings.patch_embedding.weight has shape [96, 3, 14, 14]; the config implies [48, 3, 14, 14]");
    build_with("llava_siglip", NULL, "multi_modal_projector.linear_1.weight", TS_ERR_FORMAT,
               "tensor multi_modal_projector.linear_1.weight has shape [128, 48]");
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_spec);
    RUN(test_clip);
    RUN(test_siglip);
    RUN(test_gemma3);
    RUN(test_stops_at_feature_layer);
    RUN(test_bad_checkpoint);
    ts_context_destroy(ctx);
    return check_finish();
}
