"""host.py — what the host computes for a bundle's entries, as Tessera's C runtime feeds them:

  mrope_index       M-RoPE positions [3, n] and the rope delta (src/models/mrope_index.c): text
                    tokens take one position on t, h and w; an image run takes (t, start + y,
                    start + x) in merge units; the next text continues at start + max(gh, gw)
  vision_layout     vision.main's patch positions [rows, 2] (h, w) and segments (frame index) in
                    merge-block order (ts_qwen2_vl_vision_layout)
  window_layout     patch_rows_windowed's rows in window order: positions [rows, 2], segments
                    (frame), windows and window_index [rows / merge²] (ts_qwen2_5_vl_vision_layout)
  qwen3_pos_taps    Qwen3-VL's four position-table taps per patch row with their bilinear
                    weights, in f32 as torch computes them (ts_qwen3_vl_vision_pos_taps)
  phi4_hd_args      hd_views' positions, key_bias and layout for a Phi-4-multimodal HD image from
                    its crop masks (the processor's image_attention_mask) and its canvas size, in a
                    bucket of V views (the NaViT buckets of Phi4MultimodalVisionEmbeddings, the
                    HD layout of Phi4MultimodalImageEmbedding as row indices)
  merge_embeddings  embed_tokens(ids) with the image-token rows replaced by the tower's rows
  causal_bias       prefill_embeddings.main's additive bias: 0 on and below the diagonal, -inf above
  image_block_bias  the same with each run of image tokens visible to itself (manifest
                    mask.image_blocks, Gemma3: transformers' token_type_ids or_mask;
                    ts_mm_inputs_build)
"""
import numpy as np

F = np.float32


def mrope_index(ids, image_token_id, grids, merge, tokens_per_second=0):
    n = len(ids)
    pos = np.zeros((3, n), np.int32)
    nxt, max_pos, at, g = 0, -1, 0, 0
    while at < n:
        if ids[at] != image_token_id:
            pos[:, at] = nxt
            max_pos = max(max_pos, nxt)
            nxt += 1
            at += 1
            continue
        run = 0
        while at + run < n and ids[at + run] == image_token_id:
            run += 1
        if g == len(grids):
            raise ValueError(f"M-RoPE: image run {g + 1} at token {at} has no grid ({len(grids)} grids given)")
        t, h, w = (int(x) for x in grids[g])
        gh, gw = h // merge, w // merge
        if run != t * gh * gw:
            raise ValueError(f"M-RoPE: image {g} has {run} placeholder tokens, its grid ({t}, {h}, {w}) needs {t * gh * gw}")
        start = nxt
        t_value = start * tokens_per_second if tokens_per_second else start
        for ti in range(t):
            for y in range(gh):
                for x in range(gw):
                    pos[:, at] = (t_value + ti, start + y, start + x)
                    max_pos = max(max_pos, t_value + ti, start + y, start + x)
                    at += 1
        nxt = start + max(gh, gw)
        g += 1
    if g != len(grids):
        raise ValueError(f"M-RoPE: {len(grids)} grids given, the prompt has {g} image runs")
    return pos, max_pos + 1 - n


def vision_layout(grids, merge):
    positions, segments, frame = [], [], 0
    for t, h, w in grids:
        for _ in range(int(t)):
            for bh in range(h // merge):
                for bw in range(w // merge):
                    for ih in range(merge):
                        for iw in range(merge):
                            positions.append((bh * merge + ih, bw * merge + iw))
                            segments.append(frame)
            frame += 1
    return np.array(positions, np.int32).reshape(-1, 2), np.array(segments, np.int32)


def window_layout(grids, merge, window):
    """get_window_index: per grid and frame, windows of window×window merge units from the top
    left in raster order, units in raster order inside a window; window_index[k] is the unit (over
    all grids, processor order) at slot k. positions, segments (frame) and windows (the window's
    number over all frames) per row, in window order."""
    unit = merge * merge
    positions, segments, windows, index = [], [], [], []
    first, frame, n_windows = 0, 0, 0
    for t, h, w in grids:
        uh, uw = h // merge, w // merge
        for ti in range(int(t)):
            for wr in range(uh // window + 1):
                for wc in range(uw // window + 1):
                    any_unit = False
                    for r in range(wr * window, min((wr + 1) * window, uh)):
                        for c in range(wc * window, min((wc + 1) * window, uw)):
                            any_unit = True
                            index.append(first + (ti * uh + r) * uw + c)
                            for k in range(unit):
                                positions.append((r * merge + k // merge, c * merge + k % merge))
                                segments.append(frame)
                                windows.append(n_windows)
                    n_windows += any_unit
            frame += 1
        first += int(t) * uh * uw
    return (np.array(positions, np.int32).reshape(-1, 2), np.array(segments, np.int32), np.array(windows, np.int32),
            np.array(index, np.int32))


def _linspace(end, n, i):
    """torch.linspace(0, end, n, dtype=float32)[i] (torch ≥ 2.1: each element alone)."""
    if n <= 1:
        return F(0)
    step = F(end) / F(n - 1)
    return step * F(i) if i < n // 2 else F(end) - step * F(n - i - 1)


def qwen3_pos_taps(grids, merge, position_embeddings, rows):
    """pos_index i32[4, rows], pos_weight f32[4, rows]; rows past the images keep the filler 0."""
    side = int(np.sqrt(position_embeddings))
    index, weight = np.zeros((4, rows), np.int32), np.zeros((4, rows), F)
    r = 0
    for t, h, w in grids:
        for _ in range(int(t)):
            for by in range(h // merge):
                for bx in range(w // merge):
                    for k in range(merge * merge):
                        y, x = by * merge + k // merge, bx * merge + k % merge
                        hv, wv = _linspace(side - 1, h, y), _linspace(side - 1, w, x)
                        h0, w0 = int(hv), int(wv)
                        h1, w1 = min(h0 + 1, side - 1), min(w0 + 1, side - 1)
                        dh, dw = F(hv - F(h0)), F(wv - F(w0))
                        ch, cw = F(F(1) - dh), F(F(1) - dw)
                        index[:, r] = (h0 * side + w0, h0 * side + w1, h1 * side + w0, h1 * side + w1)
                        weight[:, r] = (ch * cw, ch * dw, dh * cw, dh * dw)
                        r += 1
    return index, weight


def merge_embeddings(table, ids, image_token_id, image_rows):
    ids = np.asarray(ids)
    is_image = ids == image_token_id
    if int(is_image.sum()) != (0 if image_rows is None else len(image_rows)):
        raise ValueError(f"prefill: the prompt has {int(is_image.sum())} image tokens, the images make "
                         f"{0 if image_rows is None else len(image_rows)}")
    out = np.asarray(table[np.where(is_image, 0, ids)], F)
    if image_rows is not None:
        out[is_image] = image_rows
    return out


def phi4_hd_args(mask, canvas_hw, crop, views):
    """mask [v, side, side] (0/1, global view first), canvas (h, w) px, crop px, V >= v.
    Returns positions i32[V, side²], key_bias f32[V, side²], layout i32[R] and the image's token
    count (its first rows of layout; R = V·half² + V·half + 1)."""
    mask = np.asarray(mask).astype(bool)
    v, side = mask.shape[0], mask.shape[1]
    half, n = side // 2, side * side
    gh, gw = int(canvas_hw[0]) // crop, int(canvas_hw[1]) // crop
    assert v == 1 + gh * gw and views >= v, (v, gh, gw, views)
    positions, key_bias = np.zeros((views, n), np.int32), np.zeros((views, n), F)
    bounds = np.arange(1, side, dtype=F) * F(1.0 / side)
    for i in range(v):
        m = mask[i]
        nh, nw = int(m[:, 0].sum()), int(m[0, :].sum())
        frac_h = np.minimum(np.arange(nh, dtype=F) * F(1.0 / nh), F(1 - 1e-6))
        frac_w = np.minimum(np.arange(nw, dtype=F) * F(1.0 / nw), F(1 - 1e-6))
        bh, bw = np.searchsorted(bounds, frac_h, "right"), np.searchsorted(bounds, frac_w, "right")
        pos = np.zeros((side, side), np.int32)
        pos[:nh, :nw] = bh[:, None] * side + bw[None, :]
        positions[i] = np.where(m, pos, 0).reshape(-1)
        key_bias[i] = np.where(m, F(0), F(-np.inf)).reshape(-1)
    # The crops' downsampled masks as one (gh·half) × (gw·half) grid, cut to its useful part.
    grid = np.zeros((gh * half, gw * half), bool)
    for y in range(gh):
        for x in range(gw):
            grid[y * half:(y + 1) * half, x * half:(x + 1) * half] = mask[1 + y * gw + x, 0::2, 0::2]
    uh, uw = int(grid[:, 0].sum()), int(grid[0, :].sum())
    sub, glob = views * half * half, views * half * half + 1
    rows = []
    for y in range(uh):
        rows += [(1 + (y // half) * gw + x // half) * half * half + (y % half) * half + x % half for x in range(uw)]
        rows.append(sub)
    rows.append(glob)
    for y in range(half):
        rows += [y * half + x for x in range(half)] + [sub]
    total = views * half * half + views * half + 1
    layout = np.zeros(total, np.int32)
    layout[:len(rows)] = rows
    return positions, key_bias, layout, len(rows)


def causal_bias(n):
    return np.triu(np.full((n, n), -np.inf, F), 1)


def image_block_bias(ids, image_token_id, n):
    """[n, n] for the prompt ids (len(ids) <= n, the rest causal padding): a new image group
    starts where an image token follows a text token; q sees k when k <= q or both are in one
    group."""
    bias = causal_bias(n)
    at = 0
    while at < len(ids):
        if ids[at] != image_token_id:
            at += 1
            continue
        end = at
        while end < len(ids) and ids[end] == image_token_id:
            end += 1
        bias[at:end, at:end] = 0
        at = end
    return bias
