/* bundle_quant.c — a bundle's quantized weights (see bundle_quant.h). */
#include "bundle/bundle_quant.h"
#include "base/error.h"
#include "loader/safetensors_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PART_Q, PART_SCALE, PART_ZERO, PART_PERM, PART_COUNT };

static const char *const part_suffix[PART_COUNT] = {"", ".scale", ".zero", ".perm"};

/* The tensor name of one part of a matrix. */
static const char *part_name(const ts_quant_weight *w, int part, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s:q%d%s", w->weight, w->bits, part_suffix[part]);
    return buf;
}

/* The type a part must have, given what the manifest says of its matrix. */
static ts_type part_type(const ts_quant_weight *w, int part)
{
    if (part == PART_PERM) return ts_type_make(TS_DTYPE_I32, 1, &w->in);
    int64_t dims[2] = {w->out, part == PART_Q ? (w->bits == 4 ? w->in / 2 : w->in) : w->in / w->block};
    ts_dtype dtype = part == PART_Q ? (w->bits == 8 ? TS_DTYPE_I8 : TS_DTYPE_U8) : part == PART_SCALE ? w->scale_dtype : TS_DTYPE_I8;
    return ts_type_make(dtype, 2, dims);
}

static bool has_part(const ts_quant_weight *w, int part)
{
    return part == PART_ZERO ? w->zero_points : part == PART_PERM ? w->act_order : true;
}

/* "8-bit, blocks of 32, F16 scales, zero points" */
static const char *claim(const ts_quant_weight *w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%d-bit, blocks of %lld, %s scales%s%s", w->bits, (long long)w->block, ts_dtype_name(w->scale_dtype),
             w->zero_points ? ", zero points" : "", w->act_order ? ", act order" : "");
    return buf;
}

/* The language model's weight schema, then vision.main's: the quantized matrices of both are
 * described in the one quantization object and held in the one file. */
static int schema_count(const ts_manifest *m) { return m->n_weights + m->vision.n_weights; }

static const ts_descriptor *schema_at(const ts_manifest *m, int i)
{
    return i < m->n_weights ? &m->weights[i] : &m->vision.weights[i - m->n_weights];
}

static const ts_descriptor *schema_find(const ts_manifest *m, const char *name)
{
    for (int i = 0; i < schema_count(m); i++)
        if (strcmp(schema_at(m, i)->name, name) == 0) return schema_at(m, i);
    return NULL;
}

/* Whether schema weight i is a quantized matrix ("W:q8" / "W:q4") not already met in the schema
 * before it (a name in both schemas is one tensor of the file). */
static bool quantized_matrix(const ts_manifest *m, int i)
{
    const char *name = schema_at(m, i)->name, *at = strstr(name, ":q");
    if (!at || (strcmp(at, ":q8") != 0 && strcmp(at, ":q4") != 0)) return false;
    return schema_find(m, name) == schema_at(m, i);
}

ts_status ts_bundle_quant_describe(ts_manifest *m, const char *method, ts_error *err)
{
    int n = 0;
    for (int i = 0; i < schema_count(m); i++)
        n += quantized_matrix(m, i);
    if (!n) return TS_OK;
    ts_quant_manifest *q = &m->quant;
    q->weights = calloc((size_t)n, sizeof(ts_quant_weight));
    if (!q->weights) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "manifest: out of memory");
    q->version = TS_BUNDLE_QUANT_VERSION;
    snprintf(q->method, sizeof(q->method), "%s", method);
    snprintf(q->file, sizeof(q->file), "%s", TS_BUNDLE_QUANT_FILE);
    for (int i = 0; i < schema_count(m); i++) {
        if (!quantized_matrix(m, i)) continue;
        const ts_descriptor *d = schema_at(m, i);
        const char *at = strstr(d->name, ":q");
        ts_quant_weight *w = &q->weights[q->n_weights];
        size_t len = (size_t)(at - d->name);
        if (len >= sizeof(w->weight)) return ts_error_set(err, TS_ERR_INTERNAL, "quantization: %s: name too long", d->name);
        memcpy(w->weight, d->name, len);
        w->bits = at[2] - '0';
        char name[300];
        const ts_descriptor *scale = schema_find(m, part_name(w, PART_SCALE, name, sizeof(name)));
        if (!scale || d->type.rank != 2 || scale->type.rank != 2 || scale->type.dims[1] < 1)
            return ts_error_set(err, TS_ERR_INTERNAL, "quantization: %s has no scales in the weight schema", d->name);
        w->out = d->type.dims[0];
        w->in = w->bits == 8 ? d->type.dims[1] : 2 * d->type.dims[1];
        w->block = w->in / scale->type.dims[1];
        w->scale_dtype = scale->type.dtype;
        w->zero_points = schema_find(m, part_name(w, PART_ZERO, name, sizeof(name))) != NULL;
        w->act_order = schema_find(m, part_name(w, PART_PERM, name, sizeof(name))) != NULL;
        q->n_weights++;
    }
    return TS_OK;
}

ts_status ts_bundle_quant_write(const ts_manifest *m, const ts_weight_source *source, const char *bundle_dir, ts_error *err)
{
    const ts_quant_manifest *q = &m->quant;
    if (!q->version) return TS_OK;
    const ts_tensor_info **all = malloc(sizeof(*all) * (size_t)q->n_weights * PART_COUNT);
    if (!all) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "quantization: out of memory");
    size_t n = 0;
    ts_status st = TS_OK;
    for (int i = 0; i < q->n_weights && st == TS_OK; i++)
        for (int p = 0; p < PART_COUNT && st == TS_OK; p++) {
            if (!has_part(&q->weights[i], p)) continue;
            char name[300];
            ts_type t = part_type(&q->weights[i], p);
            const ts_tensor_info *info = source->find(source->self, part_name(&q->weights[i], p, name, sizeof(name)), t.rank, t.dims);
            if (!info || !info->data) st = ts_error_set(err, TS_ERR_INTERNAL, "quantization: %s: no data", name);
            else all[n++] = info;
        }
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", bundle_dir, q->file);
    if (st == TS_OK) st = ts_safetensors_write(path, all, n, err);
    free(all);
    return st;
}

bool ts_bundle_quant_owns(const ts_manifest *m, const char *tensor)
{
    const ts_quant_manifest *q = &m->quant;
    for (int i = 0; i < q->n_weights; i++) {
        size_t len = strlen(q->weights[i].weight);
        if (strncmp(tensor, q->weights[i].weight, len) != 0 || tensor[len] != ':') continue;
        for (int p = 0; p < PART_COUNT; p++) {
            char name[300];
            if (has_part(&q->weights[i], p) && strcmp(tensor, part_name(&q->weights[i], p, name, sizeof(name))) == 0) return true;
        }
    }
    return false;
}

/* An act order's channels: each of 0 … in − 1 exactly once. */
static ts_status check_permutation(const ts_quant_weight *w, const char *name, const char *file, const int32_t *perm, ts_error *err)
{
    uint8_t *seen = calloc((size_t)w->in, 1);
    if (!seen) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "quantization: out of memory");
    int64_t j = 0;
    for (; j < w->in; j++) {
        if (perm[j] < 0 || perm[j] >= w->in || seen[perm[j]]) break;
        seen[perm[j]] = 1;
    }
    free(seen);
    if (j == w->in) return TS_OK;
    return ts_error_set(err, TS_ERR_FORMAT, "quantization: %s in %s is not a permutation of 0 … %lld: element %lld is %d", name, file,
                        (long long)w->in - 1, (long long)j, perm[j]);
}

ts_status ts_bundle_quant_check(const ts_manifest *m, const ts_checkpoint *file, ts_error *err)
{
    const ts_quant_manifest *q = &m->quant;
    for (int i = 0; i < q->n_weights; i++) {
        const ts_quant_weight *w = &q->weights[i];
        char says[128], name[300], want[128], got[128];
        claim(w, says, sizeof(says));
        ts_dtype sd = w->scale_dtype;
        if ((w->bits != 8 && w->bits != 4) || w->in % w->block || (w->bits == 4 && w->block % 2) ||
            (sd != TS_DTYPE_F16 && sd != TS_DTYPE_BF16 && sd != TS_DTYPE_F32))
            return ts_error_set(err, TS_ERR_FORMAT,
                                "quantization: %s [%lld, %lld] (%s): not a format Tessera runs (8 or 4 bits, a block dividing the "
                                "input width, even for 4-bit, F16/BF16/F32 scales)",
                                w->weight, (long long)w->out, (long long)w->in, says);
        for (int p = 0; p < PART_COUNT; p++) {
            if (!has_part(w, p)) continue;
            ts_type t = part_type(w, p);
            part_name(w, p, name, sizeof(name));
            ts_type_string(&t, want, sizeof(want));
            const ts_descriptor *d = schema_find(m, name);
            if (!d)
                return ts_error_set(err, TS_ERR_FORMAT, "quantization: %s (%s): the weight schema has no %s", w->weight, says, name);
            if (!ts_type_equal(&d->type, &t))
                return ts_error_set(err, TS_ERR_FORMAT, "quantization: %s (%s): %s must be %s, the weight schema declares %s", w->weight,
                                    says, name, want, ts_type_string(&d->type, got, sizeof(got)));
            const ts_tensor_info *info = ts_checkpoint_find(file, name);
            if (!info) return ts_error_set(err, TS_ERR_FORMAT, "quantization: %s (%s): %s is not in %s", w->weight, says, name, q->file);
            ts_type actual = ts_type_make(info->dtype, info->n_dims, info->shape);
            if (!ts_type_equal(&actual, &t) || info->n_bytes != ts_type_bytes(&t))
                return ts_error_set(err, TS_ERR_FORMAT, "quantization: %s (%s): %s in %s is %s (%zu bytes); it must be %s (%zu bytes)",
                                    w->weight, says, name, q->file, ts_type_string(&actual, got, sizeof(got)), info->n_bytes, want,
                                    ts_type_bytes(&t));
            if (p == PART_PERM) {
                /* a gather clamps, so a repeated or out-of-range channel would run, wrongly */
                ts_status st = check_permutation(w, name, q->file, info->data, err);
                if (st != TS_OK) return st;
            }
        }
    }
    return TS_OK;
}

ts_status ts_bundle_quant_check_module(const ts_manifest *m, const ts_graph *g, const char *entry, ts_error *err)
{
    const ts_quant_manifest *q = &m->quant;
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_QLINEAR) continue;
        const ts_node *qn = ts_graph_node(g, n->inputs[1]);
        const ts_quant_weight *w = NULL;
        char name[300], says[128];
        for (int k = 0; qn->op == TS_OP_PARAMETER && !w && k < q->n_weights; k++)
            if (strcmp(qn->name, part_name(&q->weights[k], PART_Q, name, sizeof(name))) == 0) w = &q->weights[k];
        if (!w)
            return ts_error_set(err, TS_ERR_FORMAT, "%s: a tessera.qlinear takes %s, which the manifest's quantization does not describe",
                                entry, qn->op == TS_OP_PARAMETER ? qn->name : "a computed value");
        const ts_quant_weight module = {.bits = n->attrs.qlinear.bits, .block = n->attrs.qlinear.block,
                                        .scale_dtype = ts_graph_type(g, n->inputs[2])->dtype, .zero_points = n->attrs.qlinear.has_zero};
        char has[128];
        if (module.bits != w->bits || module.block != w->block || module.zero_points != w->zero_points ||
            module.scale_dtype != w->scale_dtype)
            return ts_error_set(err, TS_ERR_FORMAT, "%s: the tessera.qlinear over %s is %s; the manifest says %s", entry, w->weight,
                                claim(&module, has, sizeof(has)), claim(w, says, sizeof(says)));
        /* act order: the linear's input is x gathered by the matrix's permutation */
        const ts_node *xn = ts_graph_node(g, n->inputs[0]);
        const ts_node *pn = xn->op == TS_OP_GATHER ? ts_graph_node(g, xn->inputs[1]) : NULL;
        bool gathered = pn && pn->op == TS_OP_PARAMETER && strcmp(pn->name, part_name(w, PART_PERM, name, sizeof(name))) == 0;
        if (gathered != w->act_order)
            return ts_error_set(err, TS_ERR_FORMAT, "%s: the tessera.qlinear over %s %s its input by %s; the manifest says %s", entry,
                                w->weight, gathered ? "gathers" : "does not gather", part_name(w, PART_PERM, name, sizeof(name)),
                                claim(w, says, sizeof(says)));
    }
    return TS_OK;
}
