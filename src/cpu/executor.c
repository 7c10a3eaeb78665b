/* executor.c — buffer planning and the node loop.
 *
 * Planning, in node order:
 *  1. every value's last use (graph outputs live to the end);
 *  2. aliases: a reshape shares its operand's bytes, and so does a slice whose window is one
 *     contiguous run of them (a view at an offset: a KV cache's [slot, layer] block); a
 *     dynamic_update_slice whose operand is a state parameter (or a workspace value) used nowhere
 *     else — no alias of it read later either — writes in place (a donated cache is updated one
 *     row at a time, never copied);
 *  3. workspace offsets: first-fit over freed blocks, an alias group freed when its last member
 *     dies. Outputs never share bytes with their node's inputs, so kernels need not care.
 * Composites get scratch right after their output, released after the node.
 *
 * One peephole, after planning: a spelled-out SiLU, x · logistic(x), or quick GELU,
 * x · logistic(x · c) with c a broadcast scalar constant, and the product with up that follows
 * it in a gated MLP (quantized models run their MLP as its parts), each intermediate used once
 * and not an output, runs as one pass at the last multiply (ts_cpu_silu_mul: the same bits);
 * the nodes it absorbs are skipped. At a prefill's [rows, intermediate] size the three passes
 * each streamed ~10 MB through memory (a 1024-patch tower's quick GELU: four of ~20 MB).
 */
#include "cpu/executor.h"
#include "cpu/lora.h"
#include "base/context.h"
#include "base/error.h"
#include "base/pages.h"
#include "cpu/onednn.h"
#include "cpu/ops.h"
#include "cpu/reference.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef enum { PLACE_PARAM, PLACE_CONST, PLACE_WORK, PLACE_ALIAS } place_kind;

typedef enum { FUSE_NONE, FUSE_SKIP, FUSE_SILU, FUSE_SILU_MUL } fuse_kind;

typedef struct {
    place_kind kind;
    uint8_t fuse;   /* fuse_kind */
    int32_t silu_x; /* FUSE_SILU(_MUL): the SiLU's input; FUSE_SILU_MUL: up in silu_u */
    int32_t silu_u;
    float silu_scale; /* FUSE_SILU(_MUL): c of x · logistic(x · c), 1 for a SiLU (x · 1 = x exactly) */
    int32_t root;   /* PLACE_ALIAS: the value whose bytes are shared … */
    size_t view;    /* … from this byte offset (a slice view; 0 otherwise) */
    size_t offset;  /* PLACE_WORK */
    size_t scratch; /* composites: scratch offset */
    int32_t last_use;
} place;

struct ts_program {
    const ts_graph *graph;
    ts_context *ctx;
    ts_cpu cpu;
    ts_cpu_act act; /* cpu.act: the bf16 copies of matmul inputs */
    int64_t runs;   /* stamps act.want: a value's copy never outlives its run */
    place *places;
    void **ptrs; /* per value, during a run */
    uint8_t *workspace;
    size_t workspace_bytes;
};

typedef struct {
    size_t offset, size;
} block;

typedef struct {
    block *free_blocks;
    int n_free, cap_free;
    size_t high_water;
    size_t peak; /* high_water shrinks when the top block is freed; the workspace needs the peak */
} allocator;

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

static bool alloc_take(allocator *a, size_t size, size_t *offset)
{
    size = round64(size ? size : 1);
    for (int i = 0; i < a->n_free; i++) {
        if (a->free_blocks[i].size < size) continue;
        *offset = a->free_blocks[i].offset;
        a->free_blocks[i].offset += size;
        a->free_blocks[i].size -= size;
        if (a->free_blocks[i].size == 0) a->free_blocks[i] = a->free_blocks[--a->n_free];
        return true;
    }
    *offset = a->high_water;
    a->high_water += size;
    if (a->high_water > a->peak) a->peak = a->high_water;
    return true;
}

static bool alloc_give(allocator *a, size_t offset, size_t size)
{
    size = round64(size ? size : 1);
    /* Merge with neighbours so blocks do not fragment into slivers. */
    for (int i = 0; i < a->n_free; i++) {
        block *b = &a->free_blocks[i];
        if (b->offset + b->size == offset) {
            b->size += size;
            for (int k = 0; k < a->n_free; k++)
                if (k != i && a->free_blocks[k].offset == b->offset + b->size) {
                    b->size += a->free_blocks[k].size;
                    a->free_blocks[k] = a->free_blocks[--a->n_free];
                    break;
                }
            return true;
        }
        if (offset + size == b->offset) {
            b->offset = offset;
            b->size += size;
            return true;
        }
    }
    if (offset + size == a->high_water) {
        a->high_water = offset;
        return true;
    }
    if (a->n_free == a->cap_free) {
        int cap = a->cap_free ? a->cap_free * 2 : 64;
        block *nb = realloc(a->free_blocks, sizeof(block) * (size_t)cap);
        if (!nb) return false;
        a->free_blocks = nb;
        a->cap_free = cap;
    }
    a->free_blocks[a->n_free++] = (block){offset, size};
    return true;
}

static int32_t root_of(const place *places, int32_t v)
{
    while (places[v].kind == PLACE_ALIAS) v = places[v].root;
    return v;
}

/* A unit-stride slice whose window is one contiguous run of its operand's bytes (axes before the
 * first one wider than 1 taken once, every axis after it whole): its byte offset, or false. */
static bool slice_view(const ts_graph *g, const ts_node *n, size_t *offset)
{
    const ts_type *t = ts_graph_type(g, n->inputs[0]);
    const ts_dims *start = &n->attrs.slice.start, *limit = &n->attrs.slice.limit, *strides = &n->attrs.slice.strides;
    int wide = t->rank;
    for (int d = 0; d < t->rank; d++) {
        if (strides->n > d && strides->v[d] != 1) return false;
        if (wide == t->rank && limit->v[d] - start->v[d] > 1) wide = d;
        else if (d > wide && (start->v[d] != 0 || limit->v[d] != t->dims[d])) return false;
    }
    int64_t at = 0, stride = 1;
    for (int d = t->rank - 1; d >= 0; d--) {
        at += start->v[d] * stride;
        stride *= t->dims[d];
    }
    *offset = (size_t)at * ts_dtype_size(t->dtype);
    return true;
}

/* A qlinear node's operands as the kernel's shape. */
static ts_qlinear_shape qlinear_shape_of(const ts_graph *g, const ts_node *n)
{
    const ts_type *x = ts_graph_type(g, n->inputs[0]);
    const ts_type *b = n->attrs.qlinear.has_bias ? ts_graph_type(g, n->inputs[n->n_inputs - 1]) : NULL;
    ts_qlinear_shape s = {ts_type_elements(x) / x->dims[x->rank - 1], x->dims[x->rank - 1], n->type.dims[n->type.rank - 1], n->attrs.qlinear.block,
                          n->attrs.qlinear.bits, ts_graph_type(g, n->inputs[2])->dtype, b ? b->dtype : TS_DTYPE_F32};
    return s;
}

static size_t scratch_bytes(const ts_program *p, const ts_node *n)
{
    const ts_graph *g = p->graph;
    switch (n->op) {
    case TS_OP_ATTENTION: {
        const ts_type *q = ts_graph_type(g, n->inputs[0]), *k = ts_graph_type(g, n->inputs[1]), *v = ts_graph_type(g, n->inputs[2]);
        ts_attention_shape s = {.lq = q->dims[0], .lk = k->dims[0], .q_heads = q->dims[1], .kv_heads = k->dims[1],
                                .head_dim = q->dims[2], .v_dim = v->dims[2]};
        return ts_cpu_attention_scratch_bytes(&p->cpu, &s);
    }
    case TS_OP_GATED_MLP: {
        const ts_type *x = ts_graph_type(g, n->inputs[0]), *wg = ts_graph_type(g, n->inputs[1]);
        return ts_cpu_gated_mlp_scratch_bytes(ts_type_elements(x) / x->dims[x->rank - 1], wg->dims[0]);
    }
    case TS_OP_MOE_MLP: {
        const ts_type *x = ts_graph_type(g, n->inputs[0]), *r = ts_graph_type(g, n->inputs[1]),
                      *gu = ts_graph_type(g, n->inputs[2]);
        return ts_cpu_moe_mlp_scratch_bytes(ts_type_elements(x) / x->dims[x->rank - 1],
                                            x->dims[x->rank - 1], r->dims[0], gu->dims[2] / 2,
                                            n->attrs.moe.top_k, ts_pool_size(p->cpu.pool));
    }
    case TS_OP_QLINEAR: {
        ts_qlinear_shape s = qlinear_shape_of(g, n);
        return ts_cpu_qlinear_scratch_bytes(&s, ts_pool_size(p->cpu.pool));
    }
    case TS_OP_LORA_LINEAR: {
        const ts_type *x = ts_graph_type(g, n->inputs[0]), *a = ts_graph_type(g, n->inputs[2]);
        ts_lora_shape s = {x->dims[0], x->dims[1], n->type.dims[1], a->dims[0], a->dims[1], a->dtype};
        return ts_cpu_lora_scratch_bytes(&s);
    }
    default: return 0;
    }
}

/* An f32 elementwise node of n elements (no broadcast: operands of its own type). */
static bool f32_elementwise(const ts_graph *g, const ts_node *n)
{
    if (n->type.dtype != TS_DTYPE_F32) return false;
    for (int k = 0; k < n->n_inputs; k++)
        if (ts_type_elements(ts_graph_type(g, n->inputs[k])) != ts_type_elements(&n->type) ||
            ts_graph_type(g, n->inputs[k])->dtype != TS_DTYPE_F32)
            return false;
    return true;
}

/* Whether node k is x · broadcast(c) (either order) of an f32 rank-0 constant c, elementwise:
 * the broadcast's index, c in *c; else −1. */
static int32_t scaled_by_constant(const ts_graph *g, int32_t k, int32_t x, float *c)
{
    const ts_node *kn = &g->nodes[k];
    if (kn->op != TS_OP_MULTIPLY || kn->n_inputs != 2 || !f32_elementwise(g, kn)) return -1;
    for (int side = 0; side < 2; side++) {
        if (kn->inputs[1 - side] != x) continue;
        int32_t b = kn->inputs[side];
        const ts_node *bn = &g->nodes[b];
        if (bn->op != TS_OP_BROADCAST_IN_DIM || bn->type.dtype != TS_DTYPE_F32) continue;
        const ts_node *cn = &g->nodes[bn->inputs[0]];
        if (cn->op != TS_OP_CONSTANT || cn->type.dtype != TS_DTYPE_F32 || cn->type.rank != 0) continue;
        __builtin_memcpy(c, cn->attrs.constant.data, sizeof(float));
        return b;
    }
    return -1;
}

/* The SiLU peephole (see the top of the file), before planning: the absorbing multiply reads the
 * SiLU's input itself, so that input must live until then (plan extends its last use). uses[v]:
 * how many node inputs read v, outputs counting as uses too, so a value anything else reads is
 * never absorbed. */
static ts_status fuse_silu(ts_program *p, ts_error *err)
{
    const ts_graph *g = p->graph;
    int32_t n = g->n_nodes;
    int32_t *uses = calloc((size_t)(n ? n : 1), sizeof(int32_t));
    if (!uses) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "plan: out of memory");
    for (int32_t i = 0; i < n; i++)
        for (int k = 0; k < g->nodes[i].n_inputs; k++) uses[g->nodes[i].inputs[k]]++;
    for (int32_t k = 0; k < g->n_outputs; k++) uses[g->outputs[k]]++;
    place *pl = p->places;
    for (int32_t i = 0; i < n; i++) {
        const ts_node *m = &g->nodes[i];
        if (m->op != TS_OP_MULTIPLY || m->n_inputs != 2 || !f32_elementwise(g, m)) continue;
        for (int side = 0; side < 2; side++) {
            int32_t l = m->inputs[side], x = m->inputs[1 - side];
            const ts_node *ln = &g->nodes[l];
            if (ln->op != TS_OP_LOGISTIC || uses[l] != 1 || !f32_elementwise(g, ln)) continue;
            float c;
            int32_t k = ln->inputs[0], b = scaled_by_constant(g, k, x, &c);
            if (k != x && (b < 0 || uses[k] != 1 || uses[b] != 1)) continue;
            pl[l].fuse = FUSE_SKIP;
            pl[i].fuse = FUSE_SILU, pl[i].silu_x = x, pl[i].silu_scale = 1.0f;
            if (k != x) { /* quick GELU: the product and its broadcast constant run in the pass too */
                pl[k].fuse = pl[b].fuse = FUSE_SKIP;
                pl[i].silu_scale = c;
            }
            break;
        }
    }
    /* A fused SiLU used once, by a multiply with another value: that multiply takes it over. */
    for (int32_t i = 0; i < n; i++) {
        const ts_node *m = &g->nodes[i];
        if (m->op != TS_OP_MULTIPLY || m->n_inputs != 2 || !f32_elementwise(g, m)) continue;
        for (int side = 0; side < 2; side++) {
            int32_t s = m->inputs[side], u = m->inputs[1 - side];
            if (pl[s].fuse != FUSE_SILU || uses[s] != 1 || u == s) continue;
            pl[s].fuse = FUSE_SKIP;
            pl[i].fuse = FUSE_SILU_MUL, pl[i].silu_x = pl[s].silu_x, pl[i].silu_u = u;
            pl[i].silu_scale = pl[s].silu_scale;
            break;
        }
    }
    free(uses);
    return TS_OK;
}

static ts_status plan(ts_program *p, ts_error *err)
{
    const ts_graph *g = p->graph;
    int32_t n = g->n_nodes;
    place *pl = p->places;
    for (int32_t i = 0; i < n; i++) {
        pl[i].last_use = i;
        for (int k = 0; k < g->nodes[i].n_inputs; k++) pl[g->nodes[i].inputs[k]].last_use = i;
    }
    for (int32_t k = 0; k < g->n_outputs; k++) pl[g->outputs[k]].last_use = n;
    ts_status st = fuse_silu(p, err);
    if (st != TS_OK) return st;
    for (int32_t i = 0; i < n; i++) /* an absorbing multiply reads the SiLU's input */
        if ((pl[i].fuse == FUSE_SILU || pl[i].fuse == FUSE_SILU_MUL) && pl[pl[i].silu_x].last_use < i) pl[pl[i].silu_x].last_use = i;

    /* Places in node order. A root's last_use grows to cover its aliases as they appear, so when a
     * dynamic_update_slice is reached, the root's last_use says whether anything other than this
     * node still reads the old contents (through the operand or any alias of it): only then may
     * the update be written in place. */
    for (int32_t i = 0; i < n; i++) {
        const ts_node *node = &g->nodes[i];
        int32_t own_last = pl[i].last_use;
        bool alias = false;
        size_t view = 0;
        if (node->op == TS_OP_PARAMETER) pl[i].kind = PLACE_PARAM;
        else if (node->op == TS_OP_CONSTANT) pl[i].kind = PLACE_CONST;
        else if (node->op == TS_OP_RESHAPE) alias = true;
        else if (node->op == TS_OP_SLICE) {
            alias = slice_view(g, node, &view);
            if (!alias) pl[i].kind = PLACE_WORK;
        } else if (node->op == TS_OP_DYNAMIC_UPDATE_SLICE) {
            /* In place only when nothing reads the old bytes after this node and the update is
             * not itself a view of them. */
            int32_t r = root_of(pl, node->inputs[0]);
            bool state = g->nodes[r].op == TS_OP_PARAMETER && g->nodes[r].attrs.parameter.role == TS_PARAM_STATE;
            alias = (state || pl[r].kind == PLACE_WORK) && pl[r].last_use <= i && root_of(pl, node->inputs[1]) != r;
            if (!alias) pl[i].kind = PLACE_WORK;
        } else pl[i].kind = PLACE_WORK;
        if (alias) {
            pl[i] = (place){.kind = PLACE_ALIAS, .root = node->inputs[0], .view = view, .last_use = own_last};
            int32_t r = root_of(pl, i);
            if (own_last > pl[r].last_use) pl[r].last_use = own_last;
        }
    }

    /* dies[i]: roots whose group ends at node i, freed after it runs. */
    int32_t *dies_head = malloc(sizeof(int32_t) * (size_t)(n + 1)), *dies_next = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    allocator a = {0};
    if (!dies_head || !dies_next) {
        free(dies_head), free(dies_next);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "plan: out of memory");
    }
    for (int32_t i = 0; i <= n; i++) dies_head[i] = -1;
    for (int32_t i = 0; i < n; i++)
        if (pl[i].kind == PLACE_WORK) {
            dies_next[i] = dies_head[pl[i].last_use];
            dies_head[pl[i].last_use] = i;
        }
    for (int32_t i = 0; i < n; i++) {
        const ts_node *node = &g->nodes[i];
        if (pl[i].kind == PLACE_WORK) alloc_take(&a, ts_type_bytes(&node->type), &pl[i].offset);
        size_t scratch = scratch_bytes(p, node);
        if (scratch) {
            alloc_take(&a, scratch, &pl[i].scratch);
            alloc_give(&a, pl[i].scratch, scratch);
        }
        for (int32_t v = dies_head[i]; v >= 0; v = dies_next[v]) alloc_give(&a, pl[v].offset, ts_type_bytes(&g->nodes[v].type));
    }
    free(dies_head);
    free(dies_next);
    free(a.free_blocks);
    p->workspace_bytes = a.peak;
    return TS_OK;
}

/* Whether some matmul of g has bf16 or quantized weights (then the bf16 policy's attention may
 * round as its matmuls do; an f32-weight model keeps f32 attention under "auto"). */
static bool reduced_weights(const ts_graph *g)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        bool matmul = n->op == TS_OP_LINEAR || n->op == TS_OP_LORA_LINEAR || n->op == TS_OP_GATED_MLP;
        if (n->op == TS_OP_QLINEAR || (matmul && ts_graph_type(g, n->inputs[1])->dtype == TS_DTYPE_BF16) ||
            (n->op == TS_OP_MOE_MLP && ts_graph_type(g, n->inputs[2])->dtype == TS_DTYPE_BF16))
            return true;
    }
    return false;
}

ts_status ts_program_create(const ts_graph *g, ts_context *ctx, ts_program **out, ts_error *err)
{
    *out = NULL;
    if (ts_graph_status(g, err) != TS_OK) return g->error.status;
    ts_program *p = calloc(1, sizeof(*p));
    if (!p) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "program: out of memory");
    p->graph = g;
    p->ctx = ctx;
    p->cpu.kernels = ts_kernels_select(ctx->cpu_features);
    p->cpu.pool = ctx->pool;
    size_t n = (size_t)(g->n_nodes ? g->n_nodes : 1);
    p->places = calloc(n, sizeof(place));
    p->ptrs = calloc(n, sizeof(void *));
    if (!p->places || !p->ptrs) {
        ts_program_destroy(p);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "program: out of memory");
    }
    p->cpu.bf16_passes = ctx->compute_bf16;
    p->act.want = p->act.key = -1;
    p->cpu.bf16_attention = ctx->compute_bf16 == 1 && reduced_weights(g);
    p->cpu.act = &p->act;
    p->cpu.int8_act = ctx->compute_int8;
    /* bf16 matmuls: oneDNN where it has AMX tiles (or where we have no bf16 kernel), our own
     * kernel on AVX512_BF16 without AMX (VDPBF16PS, or FMA on Intel cores; on our pool, not
     * OpenMP). */
    bool use_onednn = ctx->compute_bf16 && ((ctx->cpu_features & TS_CPU_AMX_BF16) || !p->cpu.kernels->gemm_bf16);
    ts_status st = use_onednn ? ts_onednn_create(ts_pool_size(ctx->pool), &p->cpu.onednn, err) : TS_OK;
    if (st == TS_OK) st = plan(p, err);
    if (st == TS_OK && p->workspace_bytes) {
        /* In 2 MB pages where the kernel grants them: a tower's or a prefill's activations are
         * tens of MB, each GEMM tile's rows on pages of their own in 4 KB ones (a 2B VLM's
         * tower, 1024 patches, 2 threads, 6 alternating pairs at q8: 5 faster, by 0–25%;
         * bf16: 2 of 3 by 10%; in a later, faster phase of the host, equal: 1.89 against
         * 1.91 ms/patch). */
        p->workspace = ts_pages_alloc(round64(p->workspace_bytes));
        if (!p->workspace) st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "program: cannot allocate a %zu-byte workspace", p->workspace_bytes);
    }
    if (st != TS_OK) {
        ts_program_destroy(p);
        return st;
    }
    *out = p;
    return TS_OK;
}

void ts_program_destroy(ts_program *p)
{
    if (!p) return;
    ts_onednn_destroy(p->cpu.onednn);
    free(p->act.buf);
    free(p->places);
    free(p->ptrs);
    free(p->workspace);
    free(p);
}

ts_status ts_program_set_row_segments(ts_program *p, const int64_t *rows, int n, bool decode_rows, ts_error *err)
{
    int cap = (int)(sizeof(p->cpu.segments) / sizeof(p->cpu.segments[0]));
    if (n < 0 || n > cap)
        return ts_error_set(err, TS_ERR_RANGE, "program: %d row segments (0..%d allowed)", n, cap);
    int64_t total = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i] < 1)
            return ts_error_set(err, TS_ERR_RANGE, "program: row segment %d has %lld rows", i,
                                (long long)rows[i]);
        p->cpu.segments[i] = rows[i];
        total += rows[i];
    }
    p->cpu.n_segments = n;
    p->cpu.segment_rows = total;
    p->cpu.decode_rows = decode_rows;
    return TS_OK;
}

size_t ts_program_workspace_bytes(const ts_program *p) { return p->workspace_bytes; }

bool ts_program_output_in_place(const ts_program *p, int output, int parameter)
{
    const ts_graph *g = p->graph;
    if (output < 0 || output >= g->n_outputs) return false;
    int32_t v = g->outputs[output];
    size_t view = 0;
    while (p->places[v].kind == PLACE_ALIAS) view += p->places[v].view, v = p->places[v].root;
    return view == 0 && p->places[v].kind == PLACE_PARAM && g->nodes[v].attrs.parameter.index == parameter &&
           ts_type_bytes(&g->nodes[v].type) == ts_type_bytes(ts_graph_type(g, g->outputs[output]));
}

static int64_t rows_of(const ts_type *t) { return t->rank ? ts_type_elements(t) / t->dims[t->rank - 1] : 1; }
static int64_t last_dim(const ts_type *t) { return t->rank ? t->dims[t->rank - 1] : 1; }

static ts_status run_node(ts_program *p, int32_t i, ts_error *err)
{
    const ts_graph *g = p->graph;
    const ts_node *n = &g->nodes[i];
    void *out = p->ptrs[i];
    void *const *v = p->ptrs;
    const ts_cpu *cpu = &p->cpu;
    const ts_type *t0 = n->n_inputs ? ts_graph_type(g, n->inputs[0]) : NULL;
    void *scratch = p->workspace ? p->workspace + p->places[i].scratch : NULL;
    const place *f = &p->places[i];
    if (f->fuse == FUSE_SILU || f->fuse == FUSE_SILU_MUL) { /* a multiply that absorbed its SiLU */
        ts_cpu_silu_mul(cpu, v[f->silu_x], f->silu_scale != 1.0f ? &f->silu_scale : NULL, f->fuse == FUSE_SILU_MUL ? v[f->silu_u] : NULL,
                        out, ts_type_elements(&n->type));
        return TS_OK;
    }
    switch (n->op) {
    case TS_OP_PARAMETER:
    case TS_OP_CONSTANT:
    case TS_OP_RESHAPE: return TS_OK; /* bound or aliased */

    case TS_OP_DYNAMIC_UPDATE_SLICE: {
        /* In place when planned so (out == operand); the kernel copies the operand otherwise. */
        const ts_type *st = ts_graph_type(g, n->inputs[2]);
        if (ts_cpu_update_rows(g, n, v[n->inputs[0]], v[n->inputs[1]],
                               (int64_t)ts_reference_get(st->dtype, v[n->inputs[2]], 0), out))
            return TS_OK;
        return ts_reference_eval(g, n, v, out, err);
    }
    case TS_OP_DYNAMIC_SLICE: {
        /* Starts clamped as StableHLO does, then the contiguous copy a static slice makes. */
        int64_t start[TS_MAX_DIMS], unit[TS_MAX_DIMS];
        for (int d = 0; d < t0->rank; d++) {
            const ts_type *st = ts_graph_type(g, n->inputs[1 + d]);
            int64_t s = (int64_t)ts_reference_get(st->dtype, v[n->inputs[1 + d]], 0),
                    hi = t0->dims[d] - n->type.dims[d];
            start[d] = s < 0 ? 0 : s > hi ? hi : s;
            unit[d] = 1;
        }
        ts_cpu_slice_contiguous(t0, &n->type, start, unit, v[n->inputs[0]], out);
        return TS_OK;
    }
    case TS_OP_GATHER:
        if (ts_cpu_gather_rows(g, n, v[n->inputs[0]], v[n->inputs[1]], out) ||
            ts_cpu_gather_columns(cpu, g, n, v[n->inputs[0]], v[n->inputs[1]], out))
            return TS_OK;
        return ts_reference_eval(g, n, v, out, err);
    case TS_OP_BROADCAST_IN_DIM:
        if (n->type.dtype == TS_DTYPE_F32 && t0->rank == 0) { /* a scalar splat */
            ts_cpu_fill(out, *(const float *)v[n->inputs[0]], ts_type_elements(&n->type));
            return TS_OK;
        }
        return ts_reference_eval(g, n, v, out, err);
    case TS_OP_SLICE:
        if (p->places[i].kind == PLACE_ALIAS) return TS_OK; /* a view */
        if (ts_cpu_slice_contiguous(t0, &n->type, n->attrs.slice.start.v, n->attrs.slice.strides.v, v[n->inputs[0]], out)) return TS_OK;
        return ts_reference_eval(g, n, v, out, err);
    case TS_OP_SCATTER_ADD:
        if (ts_cpu_scatter_add_rows(g, n, v[n->inputs[0]], v[n->inputs[1]], v[n->inputs[2]], out))
            return TS_OK;
        return ts_reference_eval(g, n, v, out, err);
    case TS_OP_LINEAR: {
        const ts_type *w = ts_graph_type(g, n->inputs[1]);
        const ts_type *b = n->n_inputs > 2 ? ts_graph_type(g, n->inputs[2]) : NULL;
        return ts_cpu_linear(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]], w->dtype, w->dims[0],
                             b ? v[n->inputs[2]] : NULL, b ? b->dtype : TS_DTYPE_F32, out, err);
    }
    case TS_OP_LORA_LINEAR: {
        const ts_type *w = ts_graph_type(g, n->inputs[1]), *a = ts_graph_type(g, n->inputs[2]);
        ts_status st = ts_cpu_linear(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]],
                                     w->dtype, w->dims[0], NULL, TS_DTYPE_F32, out, err);
        if (st != TS_OK) return st;
        ts_lora_shape s = {rows_of(t0), last_dim(t0), w->dims[0], a->dims[0], a->dims[1], a->dtype};
        return ts_cpu_lora_delta(cpu, &s, v[n->inputs[0]], v[n->inputs[2]], v[n->inputs[3]],
                                 v[n->inputs[4]], v[n->inputs[5]], out, scratch, err);
    }
    case TS_OP_RMS_NORM:
        ts_cpu_rms_norm(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]],
                        ts_graph_type(g, n->inputs[1])->dtype, n->attrs.norm.eps, n->attrs.norm.weight_offset, out);
        return TS_OK;
    case TS_OP_LAYER_NORM:
        ts_cpu_layer_norm(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]],
                          ts_graph_type(g, n->inputs[1])->dtype, v[n->inputs[2]], ts_graph_type(g, n->inputs[2])->dtype,
                          n->attrs.norm.eps, out);
        return TS_OK;
    case TS_OP_SOFTMAX:
        ts_cpu_softmax(cpu, v[n->inputs[0]], n->n_inputs > 1 ? v[n->inputs[1]] : NULL, rows_of(t0), last_dim(t0), out);
        return TS_OK;
    case TS_OP_ROPE:
        ts_cpu_rope(cpu, v[n->inputs[0]], t0->dims[0], t0->dims[1], t0->dims[2], v[n->inputs[1]], v[n->inputs[2]],
                    n->attrs.rope.rotary_dim, n->attrs.rope.interleaved, out);
        return TS_OK;
    case TS_OP_ATTENTION: {
        const ts_type *k = ts_graph_type(g, n->inputs[1]), *vt = ts_graph_type(g, n->inputs[2]);
        int at = 3;
        const float *bias = n->attrs.attention.has_bias ? v[n->inputs[at++]] : NULL;
        int64_t q_start = n->attrs.attention.causal ? *(const int32_t *)v[n->inputs[at]] : -1;
        if (n->attrs.attention.causal && q_start < 0)
            return ts_error_set(err, TS_ERR_RANGE, "attention: negative query start %lld", (long long)q_start);
        ts_attention_shape s = {t0->dims[0], k->dims[0], t0->dims[1], k->dims[1], t0->dims[2], vt->dims[2], k->dtype,
                                q_start, n->attrs.attention.scale, n->attrs.attention.softcap};
        ts_cpu_attention(cpu, &s, v[n->inputs[0]], v[n->inputs[1]], v[n->inputs[2]], bias, out, scratch);
        return TS_OK;
    }
    case TS_OP_GATED_MLP: {
        const ts_type *wg = ts_graph_type(g, n->inputs[1]);
        const ts_type *wu = ts_graph_type(g, n->inputs[2]), *wd = ts_graph_type(g, n->inputs[3]);
        if (wu->dtype != wg->dtype || wd->dtype != wg->dtype)
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "gated_mlp: mixed weight dtypes");
        return ts_cpu_gated_mlp(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]], v[n->inputs[2]],
                                v[n->inputs[3]], wg->dtype, wg->dims[0], n->attrs.mlp.activation, out, scratch, err);
    }
    case TS_OP_MOE_MLP: {
        const ts_type *r = ts_graph_type(g, n->inputs[1]), *gu = ts_graph_type(g, n->inputs[2]);
        return ts_cpu_moe_mlp(cpu, v[n->inputs[0]], rows_of(t0), last_dim(t0), v[n->inputs[1]],
                              r->dtype, v[n->inputs[2]], v[n->inputs[3]], gu->dtype, r->dims[0],
                              gu->dims[2] / 2, n->attrs.moe.top_k, n->attrs.moe.normalize,
                              n->attrs.moe.activation, out, scratch, err);
    }
    case TS_OP_QLINEAR: {
        ts_qlinear_shape s = qlinear_shape_of(g, n);
        const int8_t *zero = n->attrs.qlinear.has_zero ? v[n->inputs[3]] : NULL;
        const void *bias = n->attrs.qlinear.has_bias ? v[n->inputs[n->n_inputs - 1]] : NULL;
        ts_cpu_qlinear(cpu, &s, v[n->inputs[0]], v[n->inputs[1]], v[n->inputs[2]], zero, bias, out, scratch);
        return TS_OK;
    }
    case TS_OP_EMBEDDING: {
        const ts_type *ids = ts_graph_type(g, n->inputs[1]);
        ts_cpu_embedding(cpu, v[n->inputs[0]], t0->dtype, t0->dims[0], t0->dims[1], v[n->inputs[1]], ts_type_elements(ids), out);
        return TS_OK;
    }
    default:
        if (n->type.dtype == TS_DTYPE_F32 && ts_cpu_elementwise_supported(n->op)) {
            ts_cpu_elementwise(cpu, n->op, v[n->inputs[0]], n->n_inputs > 1 ? v[n->inputs[1]] : NULL, out, ts_type_elements(&n->type));
            return TS_OK;
        }
        return ts_reference_eval(g, n, v, out, err);
    }
}

ts_status ts_program_run(ts_program *p, void *const *params, const void **outputs, ts_error *err)
{
    const ts_graph *g = p->graph;
    p->runs++;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        const place *pl = &p->places[i];
        /* The matmuls of one input value share its bf16 copy (ts_cpu_act); no other node does. */
        bool matmul = n->op == TS_OP_LINEAR || n->op == TS_OP_LORA_LINEAR || n->op == TS_OP_GATED_MLP;
        p->act.want = matmul ? (p->runs << 32 | n->inputs[0]) : -1;
        switch (pl->kind) {
        case PLACE_PARAM:
            p->ptrs[i] = params[n->attrs.parameter.index];
            if (!p->ptrs[i] && ts_type_bytes(&n->type))
                return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "parameter %d (%s) is not bound", n->attrs.parameter.index, n->name);
            break;
        case PLACE_CONST: p->ptrs[i] = (void *)n->attrs.constant.data; break;
        case PLACE_ALIAS: p->ptrs[i] = (uint8_t *)p->ptrs[pl->root] + pl->view; break;
        case PLACE_WORK: p->ptrs[i] = p->workspace + pl->offset; break;
        }
        if (pl->fuse == FUSE_SKIP) continue; /* computed by the node that absorbed it */
        struct timespec t0, t1;
        /* CPU time of the whole process (every pool thread): on a shared machine, what the op
         * cost rather than how long other work kept it waiting. */
        if (p->ctx->profile) clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
        ts_status st = run_node(p, i, err);
        if (p->ctx->profile) {
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
            p->ctx->profile_ns[n->op] += (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
            p->ctx->profile_calls[n->op]++;
        }
        if (st != TS_OK) {
            ts_error_prefix(err, "%s%s%s: ", n->name ? n->name : "", n->name ? " " : "", ts_op_get_info(n->op)->name);
            return st;
        }
    }
    for (int32_t k = 0; k < g->n_outputs; k++) outputs[k] = p->ptrs[g->outputs[k]];
    return TS_OK;
}
