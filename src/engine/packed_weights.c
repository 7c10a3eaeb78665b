/* packed_weights.c — GPTQ/AWQ unpacking into the qlinear layout (see packed_weights.h). */
#include "engine/packed_weights.h"
#include "base/error.h"
#include "base/pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *weight_name;             /* "<P>.weight" */
    ts_tensor_info virtual_weight; /* data-less F16 [out, in] */
    ts_tensor_info q, scale, zero, perm;
    char *names[4];
    void *data[4];
    int64_t group;
    bool permuted; /* act order: q's columns in perm's order */
} entry;

struct ts_packed_weights {
    const ts_checkpoint *ckpt;
    ts_pool *pool; /* borrowed, may be NULL */
    ts_quant_config qc;
    entry *entries;
    int n;
};

static const int awq_reverse[8] = {0, 4, 1, 5, 2, 6, 3, 7};

static bool shape_is(const ts_tensor_info *t, ts_dtype dtype, int64_t a, int64_t b)
{
    return t && t->dtype == dtype && t->n_dims == 2 && t->shape[0] == a && t->shape[1] == b;
}

static ts_status bad_shape(const ts_tensor_info *t, const char *name, const char *dtype, int64_t a, int64_t b, ts_error *err)
{
    if (!t) return ts_error_set(err, TS_ERR_NOT_FOUND, "checkpoint has no tensor %s (its .qweight needs it)", name);
    return ts_error_set(err, TS_ERR_FORMAT, "tensor %s is %s %s [%lld, %lld]; the packed format implies %s [%lld, %lld]", name,
                        ts_dtype_name(t->dtype), t->n_dims == 2 ? "" : "(not 2-D)", (long long)t->shape[0],
                        (long long)(t->n_dims > 1 ? t->shape[1] : 0), dtype, (long long)a, (long long)b);
}

/* The `bits`-wide field `index` of a packed int32 word. */
static unsigned field(const int32_t *words, int64_t word, int shift_fields, int bits)
{
    return ((uint32_t)words[word] >> (bits * shift_fields)) & ((1u << bits) - 1);
}

/* One matrix's output rows o, unpacked into the served layout (rows independent: pool tasks). */
typedef struct {
    bool gptq, zeros_minus_one;
    int bits, pack;
    int64_t in, out, groups;
    const int32_t *qwords, *zwords;
    const uint16_t *scales;
    const int32_t *perm;
    uint8_t *q;
    uint16_t *s;
    int8_t *z;
} unpack_job;

#define UNPACK_ROWS 64

static void unpack_task(void *arg, int64_t task, int worker)
{
    (void)worker;
    const unpack_job *j = arg;
    int bits = j->bits, pack = j->pack;
    int64_t in = j->in, out = j->out, groups = j->groups;
    unsigned mask = (1u << bits) - 1;
    int64_t o1 = (task + 1) * UNPACK_ROWS < out ? (task + 1) * UNPACK_ROWS : out;
    for (int64_t o = task * UNPACK_ROWS; o < o1; o++) {
        for (int64_t g = 0; g < groups; g++) {
            unsigned zv = j->gptq ? field(j->zwords, g * (out / pack) + o / pack, (int)(o % pack), bits)
                                  : field(j->zwords, g * (out / 8) + o / 8, awq_reverse[o % 8], 4);
            if (j->gptq && j->zeros_minus_one) zv = (zv + 1) & mask;
            j->z[o * groups + g] = (int8_t)(bits == 8 ? (int)zv - 128 : (int)zv);
            j->s[o * groups + g] = j->scales[g * out + o];
        }
        for (int64_t c = 0; c < in; c++) {
            int64_t k = j->perm ? j->perm[c] : c; /* column c holds input channel k */
            unsigned v = j->gptq ? field(j->qwords, (k / pack) * out + o, (int)(k % pack), bits)
                                 : field(j->qwords, k * (out / 8) + o / 8, awq_reverse[o % 8], 4);
            if (bits == 8) ((int8_t *)j->q)[o * in + c] = (int8_t)((int)v - 128);
            else if (c % 2) j->q[o * (in / 2) + c / 2] |= (uint8_t)(v << 4);
            else j->q[o * (in / 2) + c / 2] = (uint8_t)v;
        }
    }
}

static ts_status unpack_one(ts_packed_weights *p, const char *prefix, entry *e, ts_error *err)
{
    const ts_quant_config *qc = &p->qc;
    char name[4][300];
    static const char *const suffix[4] = {".qweight", ".qzeros", ".scales", ".g_idx"};
    const ts_tensor_info *t[4];
    for (int i = 0; i < 4; i++) {
        snprintf(name[i], sizeof(name[i]), "%s%s", prefix, suffix[i]);
        t[i] = ts_checkpoint_find(p->ckpt, name[i]);
    }
    int bits = qc->bits, pack = 32 / bits;
    const ts_tensor_info *qw = t[0], *sc = t[2];
    if (qw->n_dims != 2 || qw->dtype != TS_DTYPE_I32)
        return ts_error_set(err, TS_ERR_FORMAT, "tensor %s must be I32 2-D (is %s)", name[0], ts_dtype_name(qw->dtype));
    bool gptq = qc->method == TS_QUANT_GPTQ;
    int64_t in = gptq ? qw->shape[0] * pack : qw->shape[0], out = gptq ? qw->shape[1] : qw->shape[1] * pack;
    int64_t group = qc->group_size == -1 ? in : qc->group_size;
    if (in % group || (bits == 4 && group % 2) || out % pack)
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: group size %lld does not divide %lld input channels (or %lld outputs not a multiple of %d)",
                            name[0], (long long)group, (long long)in, (long long)out, pack);
    int64_t groups = in / group;
    if (!shape_is(t[1], TS_DTYPE_I32, groups, out / pack)) return bad_shape(t[1], name[1], "I32", groups, out / pack, err);
    if (!shape_is(sc, TS_DTYPE_F16, groups, out)) return bad_shape(sc, name[2], "F16", groups, out, err);
    /* g_idx: channel k's group. Sequential (k / group) or act order (desc_act: each group's
     * channels anywhere, `group` of them); then perm lists the channels group by group, in
     * channel order within a group, and q's columns are stored in that order. */
    int32_t *perm = NULL;
    if (t[3]) {
        if (!gptq) return ts_error_set(err, TS_ERR_UNSUPPORTED, "tensor %s: AWQ checkpoints have no g_idx", name[3]);
        if (t[3]->dtype != TS_DTYPE_I32 || t[3]->n_dims != 1 || t[3]->shape[0] != in)
            return ts_error_set(err, TS_ERR_FORMAT, "tensor %s must be I32 [%lld]", name[3], (long long)in);
        const int32_t *gi = t[3]->data;
        bool sequential = true;
        for (int64_t k = 0; k < in && sequential; k++) sequential = gi[k] == k / group;
        if (!sequential) {
            int64_t *next = calloc((size_t)groups, sizeof(int64_t));
            perm = e->data[3] = malloc(sizeof(int32_t) * (size_t)in);
            if (!next || !perm) {
                free(next);
                return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", name[3]);
            }
            for (int64_t k = 0; k < in; k++) {
                if (gi[k] < 0 || gi[k] >= groups) {
                    free(next);
                    return ts_error_set(err, TS_ERR_FORMAT, "tensor %s: g_idx[%lld] = %d is not a group (0 … %lld)", name[3],
                                        (long long)k, gi[k], (long long)groups - 1);
                }
                if (next[gi[k]] == group) {
                    free(next);
                    return ts_error_set(err, TS_ERR_FORMAT, "tensor %s: g_idx[%lld] = %d: group %d would have more than %lld channels",
                                        name[3], (long long)k, gi[k], gi[k], (long long)group);
                }
                perm[gi[k] * group + next[gi[k]]++] = (int32_t)k;
            }
            free(next);
        }
    }
    size_t qbytes = (size_t)(out * (bits == 8 ? in : in / 2)), gbytes = (size_t)(out * groups);
    e->data[0] = ts_pages_alloc(qbytes); /* what a decode step streams */
    e->data[1] = malloc(gbytes * 2 + 1);
    e->data[2] = malloc(gbytes + 1);
    size_t len = strlen(prefix) + 32;
    e->weight_name = malloc(len);
    for (int i = 0; i < 4; i++) e->names[i] = malloc(len);
    if (!e->data[0] || !e->data[1] || !e->data[2] || !e->weight_name || !e->names[0] || !e->names[1] || !e->names[2] || !e->names[3])
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", name[0]);
    snprintf(e->weight_name, len, "%s.weight", prefix);
    snprintf(e->names[0], len, "%s.weight:q%d", prefix, bits);
    snprintf(e->names[1], len, "%s.weight:q%d.scale", prefix, bits);
    snprintf(e->names[2], len, "%s.weight:q%d.zero", prefix, bits);
    snprintf(e->names[3], len, "%s.weight:q%d.perm", prefix, bits);
    unpack_job job = {gptq, qc->zeros_minus_one, bits, pack, in, out, groups, qw->data, t[1]->data, sc->data, perm,
                      e->data[0], e->data[1], e->data[2]};
    int64_t tasks = (out + UNPACK_ROWS - 1) / UNPACK_ROWS;
    ts_pool_run(p->pool, unpack_task, &job, tasks);
    e->group = group;
    e->permuted = perm != NULL;
    e->perm = (ts_tensor_info){.name = e->names[3], .dtype = TS_DTYPE_I32, .n_dims = 1, .shape = {in}, .data = perm,
                               .n_bytes = perm ? sizeof(int32_t) * (size_t)in : 0};
    e->virtual_weight = (ts_tensor_info){.name = e->weight_name, .dtype = TS_DTYPE_F16, .n_dims = 2, .shape = {out, in}};
    e->q = (ts_tensor_info){.name = e->names[0], .dtype = bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8, .n_dims = 2,
                            .shape = {out, bits == 8 ? in : in / 2}, .data = e->data[0], .n_bytes = qbytes};
    e->scale = (ts_tensor_info){.name = e->names[1], .dtype = TS_DTYPE_F16, .n_dims = 2, .shape = {out, groups}, .data = e->data[1],
                                .n_bytes = gbytes * 2};
    e->zero = (ts_tensor_info){.name = e->names[2], .dtype = TS_DTYPE_I8, .n_dims = 2, .shape = {out, groups}, .data = e->data[2],
                               .n_bytes = gbytes};
    return TS_OK;
}

ts_status ts_packed_weights_create(const ts_checkpoint *ckpt, ts_pool *pool, const ts_quant_config *qc,
                                   ts_packed_weights **out, ts_error *err)
{
    *out = NULL;
    if (qc->method == TS_QUANT_NONE) return ts_error_set(err, TS_ERR_INTERNAL, "packed weights: no quantization_config");
    ts_packed_weights *p = calloc(1, sizeof(*p));
    size_t n = ts_checkpoint_tensor_count(ckpt);
    if (p) p->entries = calloc(n ? n : 1, sizeof(entry));
    if (!p || !p->entries) {
        free(p);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "packed weights: out of memory");
    }
    p->ckpt = ckpt;
    p->pool = pool;
    p->qc = *qc;
    ts_status st = TS_OK;
    for (size_t i = 0; i < n && st == TS_OK; i++) {
        const char *name = ts_checkpoint_tensor_at(ckpt, i)->name;
        size_t len = strlen(name);
        if (len <= 8 || strcmp(name + len - 8, ".qweight")) continue;
        char prefix[300];
        if (len - 8 >= sizeof(prefix)) {
            st = ts_error_set(err, TS_ERR_RANGE, "tensor name %s is too long", name);
            break;
        }
        memcpy(prefix, name, len - 8);
        prefix[len - 8] = '\0';
        st = unpack_one(p, prefix, &p->entries[p->n++], err);
    }
    if (st == TS_OK && p->n == 0)
        st = ts_error_set(err, TS_ERR_FORMAT, "config.json declares %s quantization but the checkpoint has no .qweight tensor",
                          ts_quant_method_name(qc->method));
    if (st != TS_OK) {
        ts_packed_weights_destroy(p);
        return st;
    }
    *out = p;
    return TS_OK;
}

void ts_packed_weights_destroy(ts_packed_weights *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        free(p->entries[i].weight_name);
        for (int k = 0; k < 4; k++) free(p->entries[i].names[k]), free(p->entries[i].data[k]);
    }
    free(p->entries);
    free(p);
}

static const ts_tensor_info *find(void *self, const char *name, int rank, const int64_t *dims)
{
    (void)rank, (void)dims;
    ts_packed_weights *p = self;
    for (int i = 0; i < p->n; i++) {
        entry *e = &p->entries[i];
        if (strcmp(name, e->weight_name) == 0) return &e->virtual_weight;
        if (strcmp(name, e->names[0]) == 0) return &e->q;
        if (strcmp(name, e->names[1]) == 0) return &e->scale;
        if (strcmp(name, e->names[2]) == 0) return &e->zero;
        if (e->permuted && strcmp(name, e->names[3]) == 0) return &e->perm;
    }
    return ts_checkpoint_find(p->ckpt, name);
}

ts_weight_source ts_packed_weights_source(ts_packed_weights *p) { return (ts_weight_source){find, p}; }

bool ts_packed_weights_choose(void *self, const char *name, int64_t out, int64_t in, ts_quant_choice *choice)
{
    ts_packed_weights *p = self;
    for (int i = 0; i < p->n; i++)
        if (strcmp(name, p->entries[i].weight_name) == 0 && p->entries[i].virtual_weight.shape[0] == out &&
            p->entries[i].virtual_weight.shape[1] == in) {
            *choice = (ts_quant_choice){.bits = p->qc.bits, .block = p->entries[i].group, .has_zero = true,
                                        .has_perm = p->entries[i].permuted};
            return true;
        }
    return false;
}

int ts_packed_weights_count(const ts_packed_weights *p) { return p->n; }

int ts_packed_weights_permuted(const ts_packed_weights *p)
{
    int n = 0;
    for (int i = 0; i < p->n; i++) n += p->entries[i].permuted;
    return n;
}

int64_t ts_packed_weights_bytes(const ts_packed_weights *p)
{
    int64_t b = 0;
    for (int i = 0; i < p->n; i++) b += (int64_t)(p->entries[i].q.n_bytes + p->entries[i].scale.n_bytes + p->entries[i].zero.n_bytes +
                       p->entries[i].perm.n_bytes);
    return b;
}
