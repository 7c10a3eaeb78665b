/* mrope_index.c — M-RoPE positions for a prompt with images (see mrope_index.h). */
#include "models/qwen2_vl/mrope_index.h"
#include "base/error.h"

ts_status ts_mrope_index(const int32_t *ids, int64_t n, int32_t image_token_id, const ts_vision_grid *grids, int n_grids,
                         int64_t merge, int64_t tokens_per_second, int32_t *positions, int64_t *delta, ts_error *err)
{
    if (merge < 1) return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "M-RoPE: merge size %lld", (long long)merge);
    int32_t *t_row = positions, *h_row = positions + n, *w_row = positions + 2 * n;
    int64_t next = 0, max_pos = -1, at = 0;
    int grid = 0;
    while (at < n) {
        if (ids[at] != image_token_id) {
            t_row[at] = h_row[at] = w_row[at] = (int32_t)next;
            max_pos = next > max_pos ? next : max_pos;
            next++, at++;
            continue;
        }
        int64_t run = 0;
        while (at + run < n && ids[at + run] == image_token_id) run++;
        if (grid == n_grids)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "M-RoPE: image run %d at token %lld has no grid (%d grids given)", grid + 1,
                                (long long)at, n_grids);
        const ts_vision_grid *g = &grids[grid];
        if (g->t < 1 || g->h < 1 || g->w < 1 || g->h % merge || g->w % merge)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "M-RoPE: grid %d (%lld, %lld, %lld) is not a whole number of %lld×%lld merges",
                                grid, (long long)g->t, (long long)g->h, (long long)g->w, (long long)merge, (long long)merge);
        int64_t gh = g->h / merge, gw = g->w / merge, tokens = g->t * gh * gw;
        if (run != tokens)
            return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "M-RoPE: image %d has %lld placeholder tokens, its grid (%lld, %lld, %lld) needs %lld",
                                grid, (long long)run, (long long)g->t, (long long)g->h, (long long)g->w, (long long)tokens);
        int64_t start = next, t_value = tokens_per_second ? start * tokens_per_second : start;
        for (int64_t t = 0; t < g->t; t++)
            for (int64_t y = 0; y < gh; y++)
                for (int64_t x = 0; x < gw; x++, at++) {
                    /* Still images only (t = 1): a video's per-frame T ids are not implemented. */
                    t_row[at] = (int32_t)(t_value + t);
                    h_row[at] = (int32_t)(start + y);
                    w_row[at] = (int32_t)(start + x);
                    int64_t m = t_value + t > start + y ? t_value + t : start + y;
                    m = m > start + x ? m : start + x;
                    max_pos = m > max_pos ? m : max_pos;
                }
        next = start + (gh > gw ? gh : gw);
        grid++;
    }
    if (grid != n_grids)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "M-RoPE: %d grids given, the prompt has %d image runs", n_grids, grid);
    *delta = max_pos + 1 - n;
    return TS_OK;
}
