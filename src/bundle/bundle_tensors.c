/* bundle_tensors.c — see bundle_tensors.h. */
#include "bundle/bundle_tensors.h"
#include "base/error.h"
#include "bundle/bundle_quant.h"
#include "loader/safetensors_write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const ts_descriptor *schema_weight(const ts_manifest *m, const char *name)
{
    for (int i = 0; i < m->n_weights; i++)
        if (strcmp(m->weights[i].name, name) == 0) return &m->weights[i];
    for (int i = 0; i < m->vision.n_weights; i++)
        if (strcmp(m->vision.weights[i].name, name) == 0) return &m->vision.weights[i];
    return NULL;
}

bool ts_bundle_tensors_owns(const ts_manifest *m, const char *name)
{
    for (int i = 0; i < m->tensors.n; i++)
        if (strcmp(m->tensors.names[i], name) == 0) return true;
    return false;
}

ts_status ts_bundle_tensors_describe(ts_manifest *m, bool (*in_checkpoint)(void *self, const char *name), void *self, ts_error *err)
{
    if (!in_checkpoint) return TS_OK;
    int total = m->n_weights + m->vision.n_weights;
    ts_tensors_manifest *t = &m->tensors;
    t->names = calloc((size_t)(total ? total : 1), sizeof(*t->names));
    if (!t->names) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle weights: out of memory");
    for (int i = 0; i < total; i++) {
        const char *name = i < m->n_weights ? m->weights[i].name : m->vision.weights[i - m->n_weights].name;
        if (in_checkpoint(self, name) || ts_bundle_quant_owns(m, name) || ts_bundle_tensors_owns(m, name)) continue;
        snprintf(t->names[t->n++], sizeof(t->names[0]), "%s", name);
    }
    if (t->n) {
        t->version = TS_BUNDLE_TENSORS_VERSION;
        snprintf(t->file, sizeof(t->file), "%s", TS_BUNDLE_TENSORS_FILE);
    }
    return TS_OK;
}

ts_status ts_bundle_tensors_write(const ts_manifest *m, const ts_weight_source *source, const char *bundle_dir, ts_error *err)
{
    const ts_tensors_manifest *t = &m->tensors;
    if (!t->version) return TS_OK;
    ts_tensor_info *infos = calloc((size_t)t->n, sizeof(*infos));
    const ts_tensor_info **all = calloc((size_t)t->n, sizeof(*all));
    ts_status st = infos && all ? TS_OK : ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "bundle weights: out of memory");
    for (int i = 0; i < t->n && st == TS_OK; i++) {
        const ts_descriptor *d = schema_weight(m, t->names[i]);
        const ts_tensor_info *info = d ? source->find(source->self, d->name, d->type.rank, d->type.dims) : NULL;
        if (!info || !info->data) {
            st = ts_error_set(err, TS_ERR_INTERNAL, "bundle weights: %s: no data", t->names[i]);
            break;
        }
        /* The schema's name and shape (a derived view may be declared in another shape with the
         * same elements, as the schema check allows). */
        infos[i] = *info;
        infos[i].name = d->name;
        infos[i].n_dims = d->type.rank;
        for (int k = 0; k < d->type.rank; k++) infos[i].shape[k] = d->type.dims[k];
        all[i] = &infos[i];
    }
    char path[1200];
    snprintf(path, sizeof(path), "%s/%s", bundle_dir, t->file);
    if (st == TS_OK) st = ts_safetensors_write(path, all, (size_t)t->n, err);
    free(all);
    free(infos);
    return st;
}

ts_status ts_bundle_tensors_check(const ts_manifest *m, const ts_checkpoint *file, ts_error *err)
{
    for (int i = 0; i < m->tensors.n; i++) {
        const char *name = m->tensors.names[i];
        if (!schema_weight(m, name))
            return ts_error_set(err, TS_ERR_FORMAT, "bundle_weights.tensors[%d] %s: no module takes it (not in the weight schema)", i, name);
        if (ts_bundle_quant_owns(m, name))
            return ts_error_set(err, TS_ERR_FORMAT, "bundle_weights.tensors[%d] %s: also a quantized tensor", i, name);
        if (!ts_checkpoint_find(file, name))
            return ts_error_set(err, TS_ERR_NOT_FOUND, "bundle_weights: %s is not in the bundle's %s", name, m->tensors.file);
    }
    return TS_OK;
}
