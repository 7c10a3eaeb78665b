/* mrope_index_test.c — get_rope_index's positions and rope deltas for every Qwen-VL fixture
 * (one image, two images, Qwen2.5-VL's scaled temporal ids, Qwen3-VL, text only), and the errors
 * for mismatched placeholders and grids. */
#include "models/qwen2_vl/mrope_index.h"
#include "check.h"

static void check_fixture(const char *name, int64_t tokens_per_second)
{
    char dir[128], ref[160];
    snprintf(dir, sizeof(dir), "tests/fixtures/%s/model", name);
    snprintf(ref, sizeof(ref), "tests/fixtures/%s/reference.safetensors", name);
    ts_error err;
    ts_model_config cfg;
    ts_checkpoint *r;
    CHECK_INT_EQ(ts_model_config_load(dir, &cfg, &err), TS_OK);
    CHECK_INT_EQ(ts_checkpoint_open(ref, &r, &err), TS_OK);
    const ts_tensor_info *ids64 = ts_checkpoint_find(r, "input_ids"), *pos = ts_checkpoint_find(r, "position_ids");
    const ts_tensor_info *grid = ts_checkpoint_find(r, "image_grid_thw"), *delta = ts_checkpoint_find(r, "rope_deltas");
    int64_t n = ids64->shape[1];
    int32_t *ids = malloc(sizeof(int32_t) * (size_t)n), *out = malloc(sizeof(int32_t) * (size_t)(3 * n));
    for (int64_t i = 0; i < n; i++) ids[i] = (int32_t)((const int64_t *)ids64->data)[i];
    ts_vision_grid grids[8];
    int n_grids = grid ? (int)grid->shape[0] : 0;
    for (int g = 0; g < n_grids; g++) {
        const int64_t *v = (const int64_t *)grid->data + 3 * g;
        grids[g] = (ts_vision_grid){v[0], v[1], v[2]};
    }
    int64_t d = 99;
    CHECK_INT_EQ(ts_mrope_index(ids, n, (int32_t)cfg.image_token_id, grids, n_grids, cfg.vision.spatial_merge_size, tokens_per_second,
                                out, &d, &err),
                 TS_OK);
    bool same = true;
    for (int64_t i = 0; i < 3 * n; i++) same &= out[i] == (int32_t)((const int64_t *)pos->data)[i];
    CHECK(same);
    CHECK_INT_EQ(d, delta ? ((const int64_t *)delta->data)[0] : 0);
    fprintf(stderr, "  %s: %lld positions, %d image(s), rope delta %lld: %s\n", name, (long long)n, n_grids, (long long)d,
            same ? "match" : "DIFFER");
    free(ids), free(out);
    ts_checkpoint_close(r);
}

static void test_fixtures(void)
{
    check_fixture("qwen2_vl", 0);
    check_fixture("qwen2_vl-two-images", 0);
    check_fixture("qwen2_vl-text-only", 0);
    check_fixture("qwen2_5_vl", 2); /* vision_config.tokens_per_second */
    check_fixture("qwen3_vl", 0);
}

static void test_errors(void)
{
    int32_t ids[8] = {5, 9, 9, 9, 6, 9, 9, 7}, pos[24];
    int64_t d;
    ts_error err;
    ts_vision_grid g[2] = {{1, 2, 4}, {1, 2, 4}}; /* 1 × 1 × 2 = 2 merged tokens each */
    CHECK_INT_EQ(ts_mrope_index(ids, 8, 9, g, 2, 2, 0, pos, &d, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "image 0 has 3 placeholder tokens, its grid (1, 2, 4) needs 2");
    int32_t two[8] = {5, 9, 9, 6, 9, 9, 7, 8};
    CHECK_INT_EQ(ts_mrope_index(two, 8, 9, g, 1, 2, 0, pos, &d, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "image run 2 at token 4 has no grid (1 grids given)");
    CHECK_INT_EQ(ts_mrope_index(two, 8, 9, g, 2, 2, 0, pos, &d, &err), TS_OK);
    /* Text 0; image at start 1: H 1, W 1..2; text resumes at 1 + max(1, 2) = 3; the second image
     * starts at 4 (W 4..5); the last two text tokens are 6 and 7: delta = 7 + 1 − 8 = 0. */
    CHECK(pos[0] == 0 && pos[1] == 1 && pos[8 + 1] == 1 && pos[16 + 2] == 2 && pos[3] == 3);
    CHECK(pos[4] == 4 && pos[16 + 5] == 5 && pos[6] == 6 && pos[7] == 7);
    CHECK_INT_EQ(d, 0);
    ts_vision_grid odd = {1, 3, 4};
    CHECK_INT_EQ(ts_mrope_index(two, 8, 9, &odd, 1, 2, 0, pos, &d, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "is not a whole number of 2×2 merges");
}

int main(void)
{
    RUN(test_fixtures);
    RUN(test_errors);
    return check_finish();
}
