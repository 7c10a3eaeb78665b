/* qwen3_vl_vision_test.c — the Qwen3-VL vision tower against transformers' outputs in
 * tests/fixtures/qwen3_vl and qwen3_vl_moe (whose towers have the same shape and their own
 * weights), from each fixture's pixel_values: vision_patch_embed, vision_blocks_input, every
 * vision_block_i, deepstack_j (after its block) and image_embeds within 1e-4 × max(1, max |ref|),
 * the first divergent stage reported by name, with F32 weights and the same values as BF16 (the
 * fixtures ship no model-bf16, so the F32 tensors are narrowed here: exact, as every fixture
 * weight is bf16-representable). The interpolated position table is checked bit for bit: with
 * torch 1.13's vectorised linspace (the fixtures' torch) patch_embed_ref + ours rounds to exactly
 * vision_blocks_input_ref in every element. The graph decomposed to primitives agrees with the
 * fused run, and printed as StableHLO and read back it runs to the same bits.
 *
 * Then the engine's tower (ts_vision_encode_deepstack) from our own processor's pixel values
 * (equal to the reference's bit for bit) gives the same stages; two images in one call give each
 * image's rows as when alone; the cache keeps main and DeepStack rows together; image prefill is
 * refused while the DeepStack injection is not built. Host helpers (linspace, taps) are checked
 * against hand-computed values; a bad checkpoint fails naming the tensor.
 */
#include "models/qwen3_vl/qwen3_vl_vision.h"
#include "check.h"
#include "fixture_compare.h"
#include "cpu/executor.h"
#include "cpu/reference.h"
#include "engine/model.h"
#include "engine/vision.h"
#include "export/printer.h"
#include "export/reader.h"
#include "models/family.h"
#include "graph/decompose.h"
#include "models/qwen2_vl/qwen2_vl_vision.h"

#include <math.h>

static ts_context *ctx;

static uint32_t bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

/* ---------------------------------------------------------------- host helpers */

static void test_linspace(void)
{
    /* torch.linspace(0, 7, 18): index 13 is end − 4·step under the scalar rule; torch 1.13's
     * second 8-wide vector starts at 8·step and adds 5·step (values from torch, as bits). */
    CHECK_INT_EQ(bits(ts_qwen3_vl_linspace(7.0f, 18, 13, TS_LINSPACE_TORCH)), 0x40ab4b4b);
    CHECK_INT_EQ(bits(ts_qwen3_vl_linspace(7.0f, 18, 13, TS_LINSPACE_TORCH_VEC8)), 0x40ab4b4c);
    for (int64_t n = 1; n <= 40; n++) {
        bool same = true;
        for (int64_t i = 0; i < n; i++)
            same &= ts_qwen3_vl_linspace(7.0f, n, i, TS_LINSPACE_TORCH) ==
                    ts_qwen3_vl_linspace(7.0f, n, i, TS_LINSPACE_TORCH_VEC8);
        if (n < 16) CHECK(same); /* shorter than two vectors: scalar in both */
        CHECK(ts_qwen3_vl_linspace(7.0f, n, 0, TS_LINSPACE_TORCH) == 0.0f);
        if (n > 1) CHECK(ts_qwen3_vl_linspace(7.0f, n, n - 1, TS_LINSPACE_TORCH) == 7.0f);
    }
    /* 48 positions over a 48-wide table: step 1, every value exact. */
    for (int64_t i = 0; i < 48; i++)
        CHECK(ts_qwen3_vl_linspace(47.0f, 48, i, TS_LINSPACE_TORCH) == (float)i);
}

static void test_pos_taps(void)
{
    /* A 8×8 table, one 2×4 image, merge 2: h = linspace(0, 7, 2) = {0, 7}, w = linspace(0, 7, 4)
     * = {0, 7/3, 7 − 7/3, 7}; rows in merge-block order (0,0) (0,1) (1,0) (1,1) (0,2) (0,3) (1,2)
     * (1,3). */
    ts_qwen3_vl_vision_spec spec = {.grid_side = 8, .merge = 2, .linspace = TS_LINSPACE_TORCH};
    ts_vision_grid grid = {1, 2, 4};
    int32_t index[4][8];
    float weight[4][8];
    ts_qwen3_vl_vision_pos_taps(&spec, &grid, 1, 8, &index[0][0], &weight[0][0]);
    const float third = 7.0f / 3.0f, d1 = third - 2.0f, d2 = (7.0f - third) - 4.0f;
    static const int32_t want_index[8][4] = {{0, 1, 8, 9},     {2, 3, 10, 11},  {56, 57, 56, 57},
                                             {58, 59, 58, 59}, {4, 5, 12, 13},  {7, 7, 15, 15},
                                             {60, 61, 60, 61}, {63, 63, 63, 63}};
    const float want_w[8] = {0.0f, d1,   0.0f, d1,
                             d2,   0.0f, d2,   0.0f}; /* dw per row; dh = 0 everywhere */
    for (int r = 0; r < 8; r++) {
        for (int k = 0; k < 4; k++)
            CHECK_INT_EQ(index[k][r], want_index[r][k]);
        CHECK(weight[0][r] == 1.0f * (1.0f - want_w[r]) && weight[1][r] == 1.0f * want_w[r]);
        CHECK(weight[2][r] == 0.0f && weight[3][r] == 0.0f);
    }
    /* A two-frame video repeats its frame's taps. */
    ts_vision_grid video = {2, 2, 2};
    int32_t vi[4][8];
    float vw[4][8];
    ts_qwen3_vl_vision_pos_taps(&spec, &video, 1, 8, &vi[0][0], &vw[0][0]);
    for (int k = 0; k < 4; k++)
        for (int r = 0; r < 4; r++)
            CHECK(vi[k][r] == vi[k][r + 4] && vw[k][r] == vw[k][r + 4]);
}

/* ---------------------------------------------------------------- weights */

/* A checkpoint as a weight source. bf16: every tensor narrowed to BF16 (its top 16 bits; `inexact`
 * counts values that were not bf16-representable). drop hides one tensor, bend reports one with its
 * first dimension doubled. */
typedef struct {
    const ts_checkpoint *ckpt;
    bool bf16;
    const char *drop, *bend;
    ts_tensor_info bent;
    ts_tensor_info narrowed[256];
    int n_narrowed;
    int64_t inexact;
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
    if (!t || !s->bf16 || t->dtype != TS_DTYPE_F32) return t;
    for (int i = 0; i < s->n_narrowed; i++)
        if (strcmp(s->narrowed[i].name, name) == 0) return &s->narrowed[i];
    if (s->n_narrowed == 256) return NULL;
    size_t n = t->n_bytes / 4;
    uint16_t *data = malloc(2 * n);
    if (!data) return NULL;
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, (const char *)t->data + 4 * i, 4);
        data[i] = (uint16_t)(u >> 16);
        s->inexact += (u & 0xffff) != 0;
    }
    ts_tensor_info *b = &s->narrowed[s->n_narrowed++];
    *b = *t;
    b->dtype = TS_DTYPE_BF16, b->data = data, b->n_bytes = 2 * n;
    return b;
}

static void source_free(source *s)
{
    for (int i = 0; i < s->n_narrowed; i++)
        free((void *)s->narrowed[i].data);
    s->n_narrowed = 0;
}

/* ---------------------------------------------------------------- fixtures */

typedef struct {
    ts_model_config cfg;
    ts_qwen3_vl_vision_spec spec;
    ts_checkpoint *weights, *ref;
    source src;
    ts_weight_source ws;
    ts_vision_grid grids[16];
    int n_grids;
    int64_t rows;
    ts_graph *g;
    void **params;
    int32_t *positions, *segments, *pos_index;
    float *pos_weight;
} fixture;

static void fixture_close(fixture *f)
{
    free(f->params);
    free(f->positions), free(f->segments), free(f->pos_index), free(f->pos_weight);
    ts_graph_destroy(f->g);
    source_free(&f->src);
    if (f->ref) ts_checkpoint_close(f->ref);
    if (f->weights) ts_checkpoint_close(f->weights);
}

/* Loads the case: config, spec, weights (as a source), reference, grids. */
static bool fixture_load(fixture *f, const char *name, bool bf16)
{
    memset(f, 0, sizeof(*f));
    char dir[256], refpath[256];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    if (ts_model_config_load(dir, &f->cfg, &err) != TS_OK ||
        ts_qwen3_vl_vision_spec_init(&f->cfg, &f->spec, &err) != TS_OK ||
        ts_checkpoint_open(dir, &f->weights, &err) != TS_OK ||
        ts_checkpoint_open(refpath, &f->ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    f->src = (source){.ckpt = f->weights, .bf16 = bf16};
    f->ws = (ts_weight_source){find, &f->src};
    const ts_tensor_info *thw = ref_tensor(f->ref, "image_grid_thw");
    if (!thw || thw->dtype != TS_DTYPE_I64 || thw->n_dims != 2 || thw->shape[1] != 3 ||
        thw->shape[0] > 16)
        return false;
    f->n_grids = (int)thw->shape[0];
    for (int i = 0; i < f->n_grids; i++) {
        const int64_t *row = (const int64_t *)thw->data + 3 * i;
        f->grids[i] = (ts_vision_grid){row[0], row[1], row[2]};
    }
    int64_t frames;
    if (ts_qwen2_vl_vision_count(f->grids, f->n_grids, f->spec.merge, &f->rows, &frames, &err) !=
        TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    return true;
}

/* Builds the diagnostic graph and binds every parameter (taps under spec.linspace). */
static bool fixture_open(fixture *f, const char *name, bool bf16)
{
    if (!fixture_load(f, name, bf16)) return false;
    ts_error err;
    int64_t rows = f->rows;
    f->positions = malloc(sizeof(int32_t) * 2 * (size_t)rows);
    f->segments = malloc(sizeof(int32_t) * (size_t)rows);
    f->pos_index = malloc(sizeof(int32_t) * 4 * (size_t)rows);
    f->pos_weight = malloc(sizeof(float) * 4 * (size_t)rows);
    ts_qwen2_vl_vision_layout(f->grids, f->n_grids, f->spec.merge, f->positions, f->segments, NULL);
    ts_qwen3_vl_vision_pos_taps(&f->spec, f->grids, f->n_grids, rows, f->pos_index, f->pos_weight);
    const ts_tensor_info *pv = ref_tensor(f->ref, "pixel_values");
    if (!pv || pv->n_dims != 2 || pv->shape[0] != rows || pv->shape[1] != f->spec.patch_dim)
        return false;
    if (ts_graph_create(&f->g, &err) != TS_OK ||
        ts_qwen3_vl_vision_build(f->g, &f->spec, &f->ws, rows, true, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    f->params = calloc((size_t)f->g->n_parameters, sizeof(void *));
    for (int32_t i = 0; i < f->g->n_nodes; i++) {
        const ts_node *n = &f->g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        void **slot = &f->params[n->attrs.parameter.index];
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT)
            *slot = (void *)find(&f->src, n->name, 0, NULL)->data;
        else if (strcmp(n->name, "pixel_values") == 0)
            *slot = (void *)pv->data;
        else if (strcmp(n->name, "positions") == 0)
            *slot = f->positions;
        else if (strcmp(n->name, "segments") == 0)
            *slot = f->segments;
        else if (strcmp(n->name, "pos_index") == 0)
            *slot = f->pos_index;
        else if (strcmp(n->name, "pos_weight") == 0)
            *slot = f->pos_weight;
    }
    for (int32_t i = 0; i < f->g->n_parameters; i++)
        if (!f->params[i]) return false;
    return true;
}

/* Compares one stage; returns whether it is within tolerance and notes the first that is not. */
static bool stage(const char *name, const float *ours, const ts_tensor_info *ref, int64_t elements,
                  char *first_bad, size_t cap)
{
    bool shape_ok = ref && ref->dtype == TS_DTYPE_F32 && (int64_t)(ref->n_bytes / 4) == elements;
    CHECK(shape_ok);
    if (!shape_ok) {
        fprintf(stderr, "  %-20s missing or of another size\n", name);
        if (!first_bad[0]) snprintf(first_bad, cap, "%s", name);
        return false;
    }
    double scale, d = max_diff(ours, ref->data, (size_t)elements, &scale);
    bool ok = d <= 1e-4 * scale;
    fprintf(stderr, "  %-20s max |diff| %.3g (tolerance %.3g)%s\n", name, d, 1e-4 * scale,
            ok ? "" : "  DIVERGES");
    if (!ok && !first_bad[0]) snprintf(first_bad, cap, "%s", name);
    return ok;
}

/* The stages of one run, in the order the tower computes them: graph outputs are image_embeds,
 * deepstack [K, U, O], patch_embed, pos_embed, blocks_input, blocks. Returns the first divergent
 * stage's name into first_bad ("" when all match). */
static void compare_stages(const fixture *f, const void *const *outs, char *first_bad, size_t cap)
{
    const ts_qwen3_vl_vision_spec *s = &f->spec;
    int64_t n = f->rows, d = s->width, units = n / (s->merge * s->merge),
            level = units * s->out_hidden;
    first_bad[0] = '\0';
    stage("vision_patch_embed", outs[2], ref_tensor(f->ref, "vision_patch_embed"), n * d, first_bad,
          cap);
    stage("vision_blocks_input", outs[4], ref_tensor(f->ref, "vision_blocks_input"), n * d,
          first_bad, cap);
    int feature = 0;
    for (int i = 0; i < s->depth; i++) {
        char name[48];
        snprintf(name, sizeof(name), "vision_block_%d", i);
        stage(name, outs[5 + i], ref_tensor(f->ref, name), n * d, first_bad, cap);
        for (int j = 0; j < s->n_deepstack; j++)
            if (s->deepstack_block[j] == i) {
                snprintf(name, sizeof(name), "deepstack_%d", feature);
                stage(name, (const float *)outs[1] + feature * level, ref_tensor(f->ref, name),
                      level, first_bad, cap);
                feature++;
            }
    }
    stage("image_embeds", outs[0], ref_tensor(f->ref, "image_embeds"), level, first_bad, cap);
}

/* Elements where (float)(patch_embed_ref + pos_embed) is not vision_blocks_input_ref exactly. */
static int64_t inexact_positions(const fixture *f, const float *pos_embed)
{
    const ts_tensor_info *pe = ts_checkpoint_find(f->ref, "vision_patch_embed"),
                         *bi = ts_checkpoint_find(f->ref, "vision_blocks_input");
    int64_t n = f->rows * f->spec.width, wrong = 0;
    if (!pe || !bi || (int64_t)(pe->n_bytes / 4) != n || (int64_t)(bi->n_bytes / 4) != n) return -1;
    for (int64_t i = 0; i < n; i++) {
        float sum = ((const float *)pe->data)[i] + pos_embed[i];
        wrong += bits(sum) != bits(((const float *)bi->data)[i]);
    }
    return wrong;
}

static void check_case(const char *name, bool bf16, bool round_trip)
{
    fixture f;
    bool opened = fixture_open(&f, name, bf16);
    CHECK(opened);
    if (!opened) {
        fixture_close(&f);
        return;
    }
    if (bf16) CHECK_INT_EQ(f.src.inexact, 0);
    ts_error err;
    ts_program *prog;
    const void *outs[5 + TS_MAX_LAYERS];
    CHECK_INT_EQ(ts_program_create(f.g, ctx, &prog, &err), TS_OK);
    CHECK_INT_EQ(ts_program_run(prog, (void *const *)f.params, outs, &err), TS_OK);
    char first_bad[64];
    compare_stages(&f, outs, first_bad, sizeof(first_bad));
    if (first_bad[0]) fprintf(stderr, "  first divergent stage: %s\n", first_bad);
    CHECK(!first_bad[0]);
    fprintf(stderr, "  %s (%s weights): %lld patches, %lld blocks, %d DeepStack levels: %s\n", name,
            bf16 ? "bf16" : "f32", (long long)f.rows, (long long)f.spec.depth, f.spec.n_deepstack,
            first_bad[0] ? "DIVERGES" : "all stages match");

    /* The position table bit for bit: the same graph with torch 1.13's linspace taps (the
     * fixtures' torch) makes the reference's sum exactly; torch ≥ 2.1's differs in the one index
     * the two linspaces round apart (w = 18, index 13), by an ulp of the index. */
    int64_t scalar_wrong = inexact_positions(&f, outs[3]);
    fprintf(stderr, "  with torch 1.13's linspace:\n");
    f.spec.linspace = TS_LINSPACE_TORCH_VEC8;
    ts_qwen3_vl_vision_pos_taps(&f.spec, f.grids, f.n_grids, f.rows, f.pos_index, f.pos_weight);
    const void *vec_outs[5 + TS_MAX_LAYERS];
    CHECK_INT_EQ(ts_program_run(prog, (void *const *)f.params, vec_outs, &err), TS_OK);
    int64_t vec_wrong = inexact_positions(&f, vec_outs[3]);
    fprintf(stderr,
            "  patch_embed_ref + pos_embed ≠ blocks_input_ref in %lld of %lld elements (torch 1.13 "
            "linspace), %lld (torch ≥ 2.1)\n",
            (long long)vec_wrong, (long long)(f.rows * f.spec.width), (long long)scalar_wrong);
    CHECK_INT_EQ(vec_wrong, 0);
    CHECK(scalar_wrong >= 0);
    compare_stages(&f, vec_outs, first_bad, sizeof(first_bad));
    CHECK(!first_bad[0]);
    f.spec.linspace = TS_LINSPACE_TORCH;
    ts_qwen3_vl_vision_pos_taps(&f.spec, f.grids, f.n_grids, f.rows, f.pos_index, f.pos_weight);
    CHECK_INT_EQ(ts_program_run(prog, (void *const *)f.params, outs, &err), TS_OK);

    if (round_trip) {
        /* The decomposed graph (what the exporter prints) computes the same thing. */
        ts_graph *dg = NULL;
        void **vals = NULL;
        CHECK_INT_EQ(ts_graph_decompose(f.g, &dg, NULL, &err), TS_OK);
        bool ran = dg && ts_reference_run(dg, (const void *const *)f.params, &vals, &err) == TS_OK;
        CHECK(ran);
        if (!ran) fprintf(stderr, "  decomposed: %s\n", err.message);
        bool primitive = ran;
        for (int32_t i = 0; ran && i < dg->n_nodes; i++)
            primitive &= !ts_op_get_info(dg->nodes[i].op)->composite;
        CHECK(primitive);
        for (int o = 0; ran && o < dg->n_outputs; o++) {
            double scale,
                d = max_diff(vals[dg->outputs[o]], outs[o],
                             (size_t)ts_type_elements(ts_graph_type(dg, dg->outputs[o])), &scale);
            if (o <= 1)
                fprintf(stderr, "  decomposed vs fused: %s max |diff| %.3g\n",
                        o ? "deepstack" : "image_embeds", d);
            if (!(d <= 1e-5 * scale))
                fprintf(stderr, "  decomposed output %d differs by %.3g\n", o, d);
            CHECK(d <= 1e-5 * scale);
        }
        if (vals) ts_reference_free(dg, vals);
        ts_graph_destroy(dg);

        /* Exported as StableHLO and read back, the module runs to the same bits. */
        char *text = NULL;
        size_t len = 0;
        ts_graph *back = NULL;
        ts_program *back_prog = NULL;
        const void *back_outs[5 + TS_MAX_LAYERS];
        bool exported =
            ts_stablehlo_print(f.g, name, &text, &len, &err) == TS_OK &&
            ts_stablehlo_read(text, len, name, &back, &err) == TS_OK &&
            ts_program_create(back, ctx, &back_prog, &err) == TS_OK &&
            ts_program_run(back_prog, (void *const *)f.params, back_outs, &err) == TS_OK;
        if (!exported) fprintf(stderr, "  StableHLO round trip: %s\n", err.message);
        CHECK(exported);
        for (int o = 0; exported && o < f.g->n_outputs; o++)
            CHECK(memcmp(back_outs[o], outs[o],
                         ts_type_bytes(ts_graph_type(f.g, f.g->outputs[o]))) == 0);
        if (exported)
            fprintf(stderr, "  StableHLO round trip (%zu bytes of text): same outputs\n", len);
        ts_program_destroy(back_prog);
        ts_graph_destroy(back);
        free(text);
    }
    ts_program_destroy(prog);
    fixture_close(&f);
}

static void test_qwen3_vl(void)
{
    check_case("qwen3_vl", false, true);
}
static void test_qwen3_vl_moe(void)
{
    check_case("qwen3_vl_moe", false, false);
}
static void test_bf16_weights(void)
{
    check_case("qwen3_vl", true, false);
    check_case("qwen3_vl_moe", true, false);
}

/* ---------------------------------------------------------------- through the engine */

/* Our processor's pixel values for a PNG under `config_fixture`'s preprocessor_config (budget may
 * be NULL). */
static bool preprocess(const char *config_fixture, ts_family family, const char *png,
                       const ts_image_budget *budget, ts_pixel_values *pv)
{
    char dir[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", config_fixture);
    ts_preprocessor_config pc;
    ts_image img;
    ts_error err;
    if (ts_preprocessor_config_load(dir, &pc, &err) != TS_OK ||
        ts_image_load(png, NULL, &img, &err) != TS_OK) {
        fprintf(stderr, "  %s: %s\n", png, err.message);
        return false;
    }
    ts_status st =
        ts_preprocess_image(&pc, family, img.rgb, img.width, img.height, budget, pv, &err);
    if (st != TS_OK) fprintf(stderr, "  %s: %s\n", png, err.message);
    ts_image_free(&img);
    return st == TS_OK;
}

static void engine_case(const char *name)
{
    fixture f;
    bool loaded = fixture_load(&f, name, false);
    CHECK(loaded);
    ts_vision *v = NULL;
    ts_error err;
    ts_pixel_values pv = {0};
    char png[160];
    snprintf(png, sizeof(png), "tests/fixtures/%s/chelsea.png", name);
    bool ready = loaded && preprocess(name, f.cfg.family, png, NULL, &pv);
    CHECK(ready);
    CHECK(ts_vision_has_tower(&f.cfg));
    CHECK(ts_vision_has_image_prefill(&f.cfg));
    if (ready) CHECK_INT_EQ(ts_vision_create(ctx, &f.cfg, &f.ws, NULL, NULL, &v, &err), TS_OK);
    if (!v) {
        ts_pixel_values_free(&pv);
        fixture_close(&f);
        return;
    }
    CHECK_INT_EQ(ts_vision_deepstack_levels(v), f.spec.n_deepstack);

    /* The processor's pixel values are the reference's, bit for bit, with its grid. */
    const ts_tensor_info *want = ref_tensor(f.ref, "pixel_values");
    bool same_pixels = want && pv.n_dims == 2 && pv.shape[0] == f.rows &&
                       pv.shape[1] == f.spec.patch_dim &&
                       memcmp(pv.data, want->data, want->n_bytes) == 0;
    CHECK(same_pixels);
    CHECK(pv.grid_thw[0] == f.grids[0].t && pv.grid_thw[1] == f.grids[0].h &&
          pv.grid_thw[2] == f.grids[0].w);
    CHECK_INT_EQ(ts_vision_image_tokens(v, &pv), f.rows / 4);

    /* Encoded from them, main rows and every DeepStack level match the reference. */
    float *embeds = NULL, *deep = NULL;
    int k = -1;
    int64_t rows = 0, level = f.rows / 4 * f.spec.out_hidden;
    CHECK_INT_EQ(ts_vision_encode_deepstack(v, &pv, 1, &embeds, &deep, &k, &rows, &err), TS_OK);
    CHECK_INT_EQ(k, f.spec.n_deepstack);
    CHECK_INT_EQ(rows, f.rows / 4);
    char first_bad[64] = "";
    if (embeds && deep && k == f.spec.n_deepstack) {
        stage("image_embeds", embeds, ref_tensor(f.ref, "image_embeds"), level, first_bad,
              sizeof(first_bad));
        for (int j = 0; j < k; j++) {
            char stage_name[32];
            snprintf(stage_name, sizeof(stage_name), "deepstack_%d", j);
            stage(stage_name, deep + j * level, ref_tensor(f.ref, stage_name), level, first_bad,
                  sizeof(first_bad));
        }
    }
    CHECK(!first_bad[0]);
    fprintf(stderr, "  %s through ts_vision_encode_deepstack: %s\n", name,
            first_bad[0] ? first_bad : "all match");

    /* Served again from the encoder cache: the same bits, main rows alone or with DeepStack. */
    float *again = NULL, *again_deep = NULL, *main_only = NULL;
    int64_t rows2 = 0, rows3 = 0;
    int k2 = 0;
    CHECK_INT_EQ(ts_vision_encode(v, &pv, 1, &main_only, &rows3, &err), TS_OK);
    CHECK_INT_EQ(ts_vision_encode_deepstack(v, &pv, 1, &again, &again_deep, &k2, &rows2, &err),
                 TS_OK);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(ts_vision_cache(v)).hits, 2);
    CHECK(rows2 == rows && rows3 == rows && k2 == k);
    if (embeds && main_only && again && deep && again_deep) {
        CHECK(memcmp(main_only, embeds, sizeof(float) * (size_t)level) == 0);
        CHECK(memcmp(again, embeds, sizeof(float) * (size_t)level) == 0);
        CHECK(memcmp(again_deep, deep, sizeof(float) * (size_t)(level * k)) == 0);
    }
    free(embeds), free(deep), free(again), free(again_deep), free(main_only);
    ts_pixel_values_free(&pv);
    ts_vision_destroy(v);
    fixture_close(&f);
}

static void test_engine(void)
{
    engine_case("qwen3_vl");
    engine_case("qwen3_vl_moe");
}

/* Two images in one call: each image's rows (main and DeepStack) are those it makes alone. */
static void test_cross_image_isolation(void)
{
    fixture f;
    bool loaded = fixture_load(&f, "qwen3_vl", false);
    CHECK(loaded);
    /* The second image on a smaller budget, so the two grids (and position taps) differ. */
    ts_pixel_values pv[2] = {{0}, {0}};
    ts_image_budget small = {.min_pixels = 32 * 32, .max_pixels = 32 * 32 * 30};
    bool ready = loaded &&
                 preprocess("qwen3_vl", ts_family_find("qwen3_vl"), "tests/fixtures/qwen3_vl/chelsea.png",
                            NULL, &pv[0]) &&
                 preprocess("qwen3_vl", ts_family_find("qwen3_vl"),
                            "tests/fixtures/qwen2_vl-two-images/coffee.png", &small, &pv[1]);
    CHECK(ready);
    ts_vision *v = NULL;
    ts_error err;
    if (ready) CHECK_INT_EQ(ts_vision_create(ctx, &f.cfg, &f.ws, NULL, NULL, &v, &err), TS_OK);
    if (v) {
        ts_encoder_cache_resize(ts_vision_cache(v), 0); /* the tower itself must keep them apart */
        float *both = NULL, *both_deep = NULL, *alone[2] = {NULL, NULL},
              *alone_deep[2] = {NULL, NULL};
        int64_t rows = 0, alone_rows[2] = {0, 0};
        int k = 0, ka = 0;
        CHECK_INT_EQ(ts_vision_encode_deepstack(v, pv, 2, &both, &both_deep, &k, &rows, &err),
                     TS_OK);
        for (int i = 0; i < 2; i++)
            CHECK_INT_EQ(ts_vision_encode_deepstack(v, &pv[i], 1, &alone[i], &alone_deep[i], &ka,
                                                    &alone_rows[i], &err),
                         TS_OK);
        CHECK_INT_EQ(rows, alone_rows[0] + alone_rows[1]);
        CHECK(pv[0].grid_thw[1] != pv[1].grid_thw[1] ||
              pv[0].grid_thw[2] != pv[1].grid_thw[2]); /* two different grids */
        int64_t width = f.spec.out_hidden;
        double worst = 0;
        bool all = both && both_deep && alone[0] && alone[1] && alone_deep[0] && alone_deep[1] &&
                   rows == alone_rows[0] + alone_rows[1];
        for (int i = 0, at = 0; all && i < 2; at += (int)alone_rows[i], i++)
            for (int l = 0; l <= k; l++) {
                const float *mine =
                    l == 0 ? alone[i] : alone_deep[i] + (l - 1) * alone_rows[i] * width;
                const float *together =
                    l == 0 ? both + at * width : both_deep + (l - 1) * rows * width + at * width;
                double scale, d = max_diff(together, mine, (size_t)(alone_rows[i] * width), &scale);
                worst = fmax(worst, d / scale);
            }
        CHECK(all);
        fprintf(stderr,
                "  two images (grids %lldx%lld, %lldx%lld) in one call vs each alone: max |diff| / "
                "max(1, |row|) %.3g\n",
                (long long)pv[0].grid_thw[1], (long long)pv[0].grid_thw[2],
                (long long)pv[1].grid_thw[1], (long long)pv[1].grid_thw[2], worst);
        CHECK(worst <= 1e-5);
        free(both), free(both_deep);
        for (int i = 0; i < 2; i++)
            free(alone[i]), free(alone_deep[i]);
    }
    ts_vision_destroy(v);
    for (int i = 0; i < 2; i++)
        ts_pixel_values_free(&pv[i]);
    fixture_close(&f);
}

/* Image prompts go through the DeepStack path: the predicate says image, prefill_images and
 * ts_mm_inputs_build work (the side inputs are the image tokens' DeepStack rows), and assembling
 * the main rows alone is refused rather than prefilled wrong. */
static void test_image_paths(void)
{
    ts_model *m = NULL;
    ts_error err;
    CHECK_INT_EQ(ts_model_load(ctx, "tests/fixtures/qwen3_vl/model", NULL, &m, &err), TS_OK);
    if (!m) return;
    CHECK(ts_model_vision(m) != NULL);
    CHECK_INT_EQ(ts_model_supported_modalities(ts_model_get_config(m)), TS_MODALITY_TEXT | TS_MODALITY_IMAGE);
    ts_pixel_values pv = {0};
    CHECK(preprocess("qwen3_vl", ts_family_find("qwen3_vl"), "tests/fixtures/qwen3_vl/chelsea.png", NULL,
                     &pv));
    int64_t tokens = ts_model_image_tokens(m, &pv);
    CHECK_INT_EQ(tokens, 54);
    int32_t ids[60];
    for (int i = 0; i < 60; i++)
        ids[i] = i < 3 || i >= 57 ? 100 + i : (int32_t)ts_model_get_config(m)->image_token_id;
    ts_sequence *seq = NULL;
    CHECK_INT_EQ(ts_sequence_create(m, 64, &seq, &err), TS_OK);
    float *logits = malloc(sizeof(float) * (size_t)ts_model_vocab_size(m));
    CHECK_INT_EQ(ts_model_prefill_images(m, seq, ids, 60, &pv, 1, logits, &err), TS_OK);
    CHECK_INT_EQ(ts_sequence_length(seq), 60);
    ts_encoded_media media;
    CHECK_INT_EQ(ts_model_encode_images(m, &pv, 1, &media, &err), TS_OK);
    CHECK_INT_EQ(media.n_rows, 54);
    CHECK_INT_EQ(media.deepstack_levels, 2);
    ts_mm_inputs inputs;
    CHECK_INT_EQ(ts_mm_inputs_build(m, ids, 60, &pv, 1, &media, &inputs, &err), TS_OK);
    CHECK_INT_EQ(inputs.position_rows, 3);
    CHECK_INT_EQ(inputs.side_kind, TS_SIDE_DEEPSTACK);
    CHECK(inputs.deepstack.n_visual == 54 && inputs.deepstack.visual_positions &&
          inputs.deepstack.visual_positions[0] == 3 && inputs.deepstack.visual_positions[53] == 56);
    ts_mm_inputs_free(&inputs);
    /* The main rows alone would make a wrong prefill: refused, naming DeepStack. */
    ts_encoded_media main_only = {.rows = media.rows, .n_rows = media.n_rows, .hidden = media.hidden};
    CHECK_INT_EQ(ts_mm_inputs_build(m, ids, 60, &pv, 1, &main_only, &inputs, &err),
                 TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "DeepStack");
    ts_encoded_media_free(&media);
    free(logits);
    ts_sequence_destroy(seq);
    ts_pixel_values_free(&pv);
    ts_model_destroy(m);
}

/* ---------------------------------------------------------------- bad checkpoints */

static void build_with(const char *drop, const char *bend, ts_status want, const char *message)
{
    fixture f;
    bool loaded = fixture_load(&f, "qwen3_vl", false);
    CHECK(loaded);
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    f.src.drop = drop, f.src.bend = bend;
    CHECK_INT_EQ(ts_qwen3_vl_vision_build(g, &f.spec, &f.ws, 216, false, &err), want);
    CHECK_CONTAINS(err.message, message);
    /* Nothing past the weights was declared: inputs come after every check. */
    for (int32_t i = 0; i < g->n_nodes; i++)
        CHECK(g->nodes[i].op == TS_OP_PARAMETER &&
              g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT);
    ts_graph_destroy(g);
    fixture_close(&f);
}

static void test_bad_checkpoint(void)
{
    build_with("model.visual.deepstack_merger_list.1.norm.bias", NULL, TS_ERR_NOT_FOUND,
               "checkpoint has no tensor model.visual.deepstack_merger_list.1.norm.bias");
    build_with("model.visual.patch_embed.proj.bias", NULL, TS_ERR_NOT_FOUND,
               "checkpoint has no tensor model.visual.patch_embed.proj.bias");
    build_with(
        NULL, "model.visual.pos_embed.weight", TS_ERR_FORMAT,
        "tensor model.visual.pos_embed.weight has shape [128, 48]; the config implies [64, 48]");
    build_with(NULL, "model.visual.blocks.2.mlp.linear_fc1.weight", TS_ERR_FORMAT,
               "tensor model.visual.blocks.2.mlp.linear_fc1.weight has shape [192, 48]");

    fixture f;
    bool loaded = fixture_load(&f, "qwen3_vl", false);
    CHECK(loaded);
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    CHECK_INT_EQ(ts_qwen3_vl_vision_build(g, &f.spec, &f.ws, 6, false, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "6 patches is not a positive multiple of merge² = 4");
    ts_graph_destroy(g);
    /* Configs the tower cannot take. */
    ts_model_config cfg = f.cfg;
    ts_qwen3_vl_vision_spec spec;
    cfg.vision.num_position_embeddings = 0;
    CHECK_INT_EQ(ts_qwen3_vl_vision_spec_init(&cfg, &spec, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "num_position_embeddings 0");
    cfg = f.cfg;
    cfg.vision.deepstack_visual_indexes[1] = cfg.vision.deepstack_visual_indexes[0];
    CHECK_INT_EQ(ts_qwen3_vl_vision_spec_init(&cfg, &spec, &err), TS_ERR_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "names block 1 twice");
    cfg = f.cfg;
    cfg.family = ts_family_find("qwen2_vl");
    CHECK_INT_EQ(ts_qwen3_vl_vision_spec_init(&cfg, &spec, &err), TS_ERR_UNSUPPORTED);
    fixture_close(&f);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_linspace);
    RUN(test_pos_taps);
    RUN(test_qwen3_vl);
    RUN(test_qwen3_vl_moe);
    RUN(test_bf16_weights);
    RUN(test_engine);
    RUN(test_cross_image_isolation);
    RUN(test_image_paths);
    RUN(test_bad_checkpoint);
    ts_context_destroy(ctx);
    return check_finish();
}
