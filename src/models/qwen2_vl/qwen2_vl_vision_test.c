/* qwen2_vl_vision_test.c — the Qwen2-VL vision tower against transformers' outputs in
 * tests/fixtures (one image; two images = two attention segments) and the Qwen2.5-VL tower (window
 * order, window attention) on its fixture, from each fixture's pixel_values: vision_patch_embed,
 * vision_blocks_input, every vision_block_i, (Qwen2.5-VL) vision_merger_window_order and
 * image_embeds within 1e-4 × max(1, max |ref|), the first divergent stage reported by name, with
 * the F32 and the BF16 weight files. The same graph decomposed to primitives and run by the
 * reference evaluator agrees with the fused run within 1e-5 × max(1, max |fused|) on every
 * output, and printed as StableHLO and read back it runs to the same bits. The grid layout
 * helpers are checked against hand-computed values; a bad checkpoint fails naming the tensor.
 */
#include "models/qwen2_vl/qwen2_vl_vision.h"
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

/* ---------------------------------------------------------------- layout */

static void test_layout_one_grid(void)
{
    /* (1, 4, 4) with merge 2: four 2×2 blocks in raster order, raster inside each. */
    static const int32_t want[16][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3},
                                        {2, 0}, {2, 1}, {3, 0}, {3, 1}, {2, 2}, {2, 3}, {3, 2}, {3, 3}};
    ts_vision_grid grid = {1, 4, 4};
    int64_t rows, frames, cu[2];
    ts_error err;
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(&grid, 1, 2, &rows, &frames, &err), TS_OK);
    CHECK_INT_EQ(rows, 16);
    CHECK_INT_EQ(frames, 1);
    int32_t pos[16][2], seg[16];
    ts_qwen2_vl_vision_layout(&grid, 1, 2, &pos[0][0], seg, cu);
    CHECK(memcmp(pos, want, sizeof(want)) == 0);
    for (int r = 0; r < 16; r++) CHECK_INT_EQ(seg[r], 0);
    CHECK_INT_EQ(cu[0], 0);
    CHECK_INT_EQ(cu[1], 16);
}

static void test_layout_frames_and_images(void)
{
    /* A two-frame 2×2 video, then a 2×4 image: frames are segments, each frame repeats its
     * positions (cu_seqlens = cumsum(repeat_interleave(h·w, t))). */
    ts_vision_grid grids[2] = {{2, 2, 2}, {1, 2, 4}};
    static const int32_t want[16][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 0}, {0, 1}, {1, 0}, {1, 1},
                                        {0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    static const int32_t want_seg[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2};
    static const int64_t want_cu[4] = {0, 4, 8, 16};
    int64_t rows, frames, cu[4];
    ts_error err;
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(grids, 2, 2, &rows, &frames, &err), TS_OK);
    CHECK_INT_EQ(rows, 16);
    CHECK_INT_EQ(frames, 3);
    int32_t pos[16][2], seg[16];
    ts_qwen2_vl_vision_layout(grids, 2, 2, &pos[0][0], seg, cu);
    CHECK(memcmp(pos, want, sizeof(want)) == 0);
    CHECK(memcmp(seg, want_seg, sizeof(want_seg)) == 0);
    CHECK(memcmp(cu, want_cu, sizeof(want_cu)) == 0);
}

static void test_layout_windows(void)
{
    /* Qwen2.5-VL, merge 2, windows of 2×2 units. A 4×6 image has 2×3 units: window (0, 0) holds
     * units 0, 1, 3, 4; window (0, 1) units 2, 5 (partial); the reference's padding adds a row of
     * empty windows, which get no number. Then a 2×2 image: one unit, one window, frame 1. */
    ts_vision_grid grids[2] = {{1, 4, 6}, {1, 2, 2}};
    static const int32_t want_index[7] = {0, 1, 3, 4, 2, 5, 6};
    static const int32_t want_pos[28][2] = {
        {0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 0}, {2, 1}, {3, 0}, {3, 1}, {2, 2}, {2, 3},
        {3, 2}, {3, 3}, {0, 4}, {0, 5}, {1, 4}, {1, 5}, {2, 4}, {2, 5}, {3, 4}, {3, 5}, {0, 0}, {0, 1}, {1, 0}, {1, 1}};
    int64_t rows, frames;
    ts_error err;
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(grids, 2, 2, &rows, &frames, &err), TS_OK);
    CHECK_INT_EQ(rows, 28);
    int32_t pos[28][2], seg[28], win[28], index[7];
    ts_qwen2_5_vl_vision_layout(grids, 2, 2, 2, &pos[0][0], seg, win, index);
    CHECK(memcmp(index, want_index, sizeof(want_index)) == 0);
    CHECK(memcmp(pos, want_pos, sizeof(want_pos)) == 0);
    for (int r = 0; r < 28; r++) {
        CHECK_INT_EQ(seg[r], r < 24 ? 0 : 1);
        CHECK_INT_EQ(win[r], r < 16 ? 0 : r < 24 ? 1 : 2);
    }
    /* A two-frame video: windows never span frames, and units count on through the frames. */
    ts_vision_grid video = {2, 2, 4};
    static const int32_t want_video_pos[16][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3},
                                                  {0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}};
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(&video, 1, 2, &rows, &frames, &err), TS_OK);
    CHECK_INT_EQ(rows, 16);
    ts_qwen2_5_vl_vision_layout(&video, 1, 2, 2, &pos[0][0], seg, win, index);
    for (int u = 0; u < 4; u++) CHECK_INT_EQ(index[u], u);
    CHECK(memcmp(pos, want_video_pos, sizeof(want_video_pos)) == 0);
    for (int r = 0; r < 16; r++) {
        CHECK_INT_EQ(seg[r], r / 8);
        CHECK_INT_EQ(win[r], r / 8);
    }
}

static void test_layout_rejects_bad_grids(void)
{
    ts_vision_grid odd = {1, 4, 3}, empty = {0, 4, 4};
    int64_t rows, frames;
    ts_error err;
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(&odd, 1, 2, &rows, &frames, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "grid 0 is 4×3 patches; both sides must be multiples of the merge size 2");
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(&empty, 1, 2, &rows, &frames, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "grid 0 is (0, 4, 4)");
    CHECK_INT_EQ(ts_qwen2_vl_vision_count(&odd, 0, 2, &rows, &frames, &err), TS_ERR_INVALID_ARGUMENT);
}

/* ---------------------------------------------------------------- fixtures */

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

typedef struct {
    ts_qwen2_vl_vision_spec spec;
    ts_checkpoint *weights, *ref;
    ts_graph *g;
    void **params;
    int32_t *positions, *segments, *windows, *window_index;
} fixture;

static void fixture_close(fixture *f)
{
    free(f->params);
    free(f->positions);
    free(f->segments);
    free(f->windows);
    free(f->window_index);
    ts_graph_destroy(f->g);
    if (f->ref) ts_checkpoint_close(f->ref);
    if (f->weights) ts_checkpoint_close(f->weights);
}

/* Loads the case, builds the diagnostic graph and binds every parameter. */
static bool fixture_open(fixture *f, const char *name, const char *weights_file)
{
    memset(f, 0, sizeof(*f));
    char dir[256], refpath[256];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(refpath, sizeof(refpath), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model_config cfg;
    if (ts_model_config_load(dir, &cfg, &err) != TS_OK || ts_qwen2_vl_vision_spec_init(&cfg, &f->spec, &err) != TS_OK ||
        ts_checkpoint_open(weights_file ? weights_file : dir, &f->weights, &err) != TS_OK ||
        ts_checkpoint_open(refpath, &f->ref, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    const ts_tensor_info *thw = ref_tensor(f->ref, "image_grid_thw");
    if (!thw || thw->dtype != TS_DTYPE_I64 || thw->n_dims != 2 || thw->shape[1] != 3 || thw->shape[0] > 16) return false;
    ts_vision_grid grids[16];
    int n_grids = (int)thw->shape[0];
    for (int i = 0; i < n_grids; i++) {
        const int64_t *row = (const int64_t *)thw->data + 3 * i;
        grids[i] = (ts_vision_grid){row[0], row[1], row[2]};
    }
    int64_t rows, frames;
    if (ts_qwen2_vl_vision_count(grids, n_grids, f->spec.merge, &rows, &frames, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    f->positions = malloc(sizeof(int32_t) * 2 * (size_t)rows);
    f->segments = malloc(sizeof(int32_t) * (size_t)rows);
    if (f->spec.windowed) {
        f->windows = malloc(sizeof(int32_t) * (size_t)rows);
        f->window_index = malloc(sizeof(int32_t) * (size_t)(rows / (f->spec.merge * f->spec.merge)));
        ts_qwen2_5_vl_vision_layout(grids, n_grids, f->spec.merge, f->spec.window, f->positions, f->segments, f->windows,
                                    f->window_index);
    } else {
        ts_qwen2_vl_vision_layout(grids, n_grids, f->spec.merge, f->positions, f->segments, NULL);
    }
    const ts_tensor_info *pv = ref_tensor(f->ref, "pixel_values");
    if (!pv || pv->n_dims != 2 || pv->shape[0] != rows || pv->shape[1] != f->spec.patch_dim) return false;

    source src = {f->weights, NULL, NULL, {0}};
    ts_weight_source ws = {find, &src};
    if (ts_graph_create(&f->g, &err) != TS_OK ||
        ts_qwen2_vl_vision_build(f->g, &f->spec, &ws, rows, true, &err) != TS_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        return false;
    }
    f->params = calloc((size_t)f->g->n_parameters, sizeof(void *));
    for (int32_t i = 0; i < f->g->n_nodes; i++) {
        const ts_node *n = &f->g->nodes[i];
        if (n->op != TS_OP_PARAMETER) continue;
        void **slot = &f->params[n->attrs.parameter.index];
        if (n->attrs.parameter.role == TS_PARAM_WEIGHT) *slot = (void *)ts_checkpoint_find(f->weights, n->name)->data;
        else if (strcmp(n->name, "pixel_values") == 0) *slot = (void *)pv->data;
        else if (strcmp(n->name, "positions") == 0) *slot = f->positions;
        else if (strcmp(n->name, "segments") == 0) *slot = f->segments;
        else if (strcmp(n->name, "windows") == 0) *slot = f->windows;
        else if (strcmp(n->name, "window_index") == 0) *slot = f->window_index;
    }
    for (int32_t i = 0; i < f->g->n_parameters; i++)
        if (!f->params[i]) return false;
    return true;
}

static void check_case(const char *name, const char *weights_file)
{
    fixture f;
    bool opened = fixture_open(&f, name, weights_file);
    CHECK(opened);
    if (!opened) {
        fixture_close(&f);
        return;
    }
    ts_error err;
    ts_program *prog;
    const void *outs[4 + TS_MAX_LAYERS];
    CHECK_INT_EQ(ts_program_create(f.g, ctx, &prog, &err), TS_OK);
    CHECK_INT_EQ(ts_program_run(prog, (void *const *)f.params, outs, &err), TS_OK);

    /* Stages in the order the tower computes them (graph outputs: image_embeds, patch_embed,
     * blocks_input, blocks, merger output): the first past tolerance is the culprit. */
    bool windowed = f.spec.windowed;
    int depth = (int)f.spec.depth, n_stages = depth + 4;
    char first_bad[64] = "";
    for (int s = 0; s < n_stages; s++) {
        if (!windowed && s == depth + 2) continue; /* no separate merger order: it is image_embeds */
        char stage[64];
        int out = s == n_stages - 1 ? 0 : s + 1;
        if (s == 0) snprintf(stage, sizeof(stage), "vision_patch_embed");
        else if (s == 1) snprintf(stage, sizeof(stage), "vision_blocks_input");
        else if (s < depth + 2) snprintf(stage, sizeof(stage), "vision_block_%d", s - 2);
        else if (s == depth + 2) snprintf(stage, sizeof(stage), "vision_merger_window_order");
        else snprintf(stage, sizeof(stage), "image_embeds");
        const ts_tensor_info *t = ref_tensor(f.ref, stage);
        const ts_type *ty = ts_graph_type(f.g, f.g->outputs[out]);
        bool shape_ok = t && t->n_dims == ty->rank && t->shape[0] == ty->dims[0] && t->shape[1] == ty->dims[1];
        CHECK(shape_ok);
        if (!shape_ok) continue;
        double scale, d = max_diff(outs[out], t->data, (size_t)ts_type_elements(ty), &scale);
        bool ok = d <= 1e-4 * scale;
        fprintf(stderr, "  %-20s max |diff| %.3g (tolerance %.3g)%s\n", stage, d, 1e-4 * scale, ok ? "" : "  DIVERGES");
        if (!ok && !first_bad[0]) snprintf(first_bad, sizeof(first_bad), "%s", stage);
    }
    if (first_bad[0]) fprintf(stderr, "  first divergent stage: %s\n", first_bad);
    CHECK(!first_bad[0]);
    fprintf(stderr, "  %s (%s weights): %lld patches, %lld blocks: %s\n", name, weights_file ? "bf16" : "f32",
            (long long)f.g->nodes[f.g->outputs[1]].type.dims[0], (long long)f.spec.depth,
            first_bad[0] ? "DIVERGES" : "all stages match");

    /* Decomposed and exported: its inputs are the pixels and the small integer layout, nothing
     * computed outside. */
    check_graph_roundtrip(f.g, f.params, outs, ctx, name, "image_embeds", 1e-5);
    ts_program_destroy(prog);
    fixture_close(&f);
}

static void test_one_image(void) { check_case("qwen2_vl", NULL); }
static void test_two_images(void) { check_case("qwen2_vl-two-images", NULL); }
static void test_qwen2_5_vl(void) { check_case("qwen2_5_vl", NULL); }

static void test_bf16_weights(void)
{
    static const char *const cases[] = {"qwen2_vl", "qwen2_5_vl"};
    for (int c = 0; c < 2; c++) {
        char path[160];
        snprintf(path, sizeof(path), "tests/fixtures/%s/model-bf16/model.safetensors", cases[c]);
        FILE *probe = fopen(path, "rb");
        CHECK(probe != NULL);
        if (!probe) continue;
        fclose(probe);
        check_case(cases[c], path);
    }
}

/* ---------------------------------------------------------------- bad checkpoints */

static void build_with(const char *drop, const char *bend, ts_status want, const char *message)
{
    ts_model_config cfg;
    ts_qwen2_vl_vision_spec spec;
    ts_checkpoint *ckpt;
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/qwen2_vl/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_qwen2_vl_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open("tests/fixtures/qwen2_vl/model", &ckpt, &err), TS_OK);
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    source src = {ckpt, drop, bend, {0}};
    ts_weight_source ws = {find, &src};
    CHECK_INT_EQ(ts_qwen2_vl_vision_build(g, &spec, &ws, 216, false, &err), want);
    CHECK_CONTAINS(err.message, message);
    /* Nothing past the weights was declared: inputs come after every check. */
    for (int32_t i = 0; i < g->n_nodes; i++)
        CHECK(g->nodes[i].op == TS_OP_PARAMETER && g->nodes[i].attrs.parameter.role == TS_PARAM_WEIGHT);
    ts_graph_destroy(g);
    ts_checkpoint_close(ckpt);
}

static void test_bad_checkpoint(void)
{
    build_with("visual.blocks.1.mlp.fc2.bias", NULL, TS_ERR_NOT_FOUND, "checkpoint has no tensor visual.blocks.1.mlp.fc2.bias");
    build_with(NULL, "visual.patch_embed.proj.weight", TS_ERR_FORMAT,
               "tensor visual.patch_embed.proj.weight has shape [96, 3, 2, 14, 14]; the config implies [48, 3, 2, 14, 14]");
    build_with(NULL, "visual.merger.mlp.0.weight", TS_ERR_FORMAT, "tensor visual.merger.mlp.0.weight has shape [384, 192]");

    ts_model_config cfg;
    ts_qwen2_vl_vision_spec spec;
    ts_graph *g;
    ts_error err;
    CHECK_INT_EQ(ts_model_config_load("tests/fixtures/qwen2_vl/model", &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_qwen2_vl_vision_spec_init(&cfg, &spec, &err), TS_OK);
    CHECK_INT_EQ(ts_graph_create(&g, &err), TS_OK);
    ts_weight_source none = {find, NULL};
    CHECK_INT_EQ(ts_qwen2_vl_vision_build(g, &spec, &none, 6, false, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "6 patches is not a positive multiple of merge² = 4");
    ts_graph_destroy(g);
}

int main(void)
{
    ts_error err;
    ts_context_options o = {.n_threads = 2, .log_level = TS_LOG_WARN};
    if (ts_context_create(&o, &ctx, &err) != TS_OK) return 1;
    RUN(test_layout_one_grid);
    RUN(test_layout_frames_and_images);
    RUN(test_layout_windows);
    RUN(test_layout_rejects_bad_grids);
    RUN(test_one_image);
    RUN(test_two_images);
    RUN(test_qwen2_5_vl);
    RUN(test_bf16_weights);
    RUN(test_bad_checkpoint);
    ts_context_destroy(ctx);
    return check_finish();
}
