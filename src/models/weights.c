/* weights.c — checked weight parameters (see weights.h). */
#include "models/weights.h"
#include "base/error.h"

#include <stdio.h>
#include <string.h>

static void format_dims(char *buf, size_t cap, int rank, const int64_t *dims)
{
    buf[0] = '\0';
    for (int i = 0; i < rank; i++) snprintf(buf + strlen(buf), cap - strlen(buf), "%s%lld", i ? ", " : "", (long long)dims[i]);
}

ts_value ts_weight_param(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, const char *name,
                         int rank, const int64_t *dims, int as_rank, const int64_t *as_dims)
{
    if (*status != TS_OK) return TS_NO_VALUE;
    const ts_tensor_info *t = source->find(source->self, name, rank, dims);
    if (!t) {
        *status = ts_error_set(err, TS_ERR_NOT_FOUND, "checkpoint has no tensor %s", name);
        return TS_NO_VALUE;
    }
    bool same = t->n_dims == rank;
    for (int i = 0; same && i < rank; i++) same = t->shape[i] == dims[i];
    if (!same) {
        char want[128], got[128];
        format_dims(want, sizeof(want), rank, dims);
        format_dims(got, sizeof(got), t->n_dims, t->shape);
        *status = ts_error_set(err, TS_ERR_FORMAT, "tensor %s has shape [%s]; the config implies [%s]", name, got, want);
        return TS_NO_VALUE;
    }
    if (t->dtype != TS_DTYPE_F32 && t->dtype != TS_DTYPE_BF16 && t->dtype != TS_DTYPE_F16) {
        *status = ts_error_set(err, TS_ERR_UNSUPPORTED, "tensor %s has dtype %s; weights must be F32, BF16 or F16", name,
                               ts_dtype_name(t->dtype));
        return TS_NO_VALUE;
    }
    return ts_graph_parameter(g, name, TS_PARAM_WEIGHT, ts_type_make(t->dtype, as_rank, as_dims));
}

ts_value ts_weight_paramv(ts_graph *g, const ts_weight_source *source, ts_status *status, ts_error *err, int rank,
                          const int64_t *dims, int as_rank, const int64_t *as_dims, const char *fmt, va_list ap)
{
    if (*status != TS_OK) return TS_NO_VALUE;
    char name[256];
    int len = vsnprintf(name, sizeof(name), fmt, ap);
    if (len < 0 || (size_t)len >= sizeof(name)) {
        *status = ts_error_set(err, TS_ERR_RANGE, "weights: tensor name longer than %zu bytes", sizeof(name) - 1);
        return TS_NO_VALUE;
    }
    return ts_weight_param(g, source, status, err, name, rank, dims, as_rank, as_dims);
}

ts_status ts_weights_bind(const ts_graph *g, const ts_weight_source *source, void **params, ts_error *err)
{
    for (int32_t i = 0; i < g->n_nodes; i++) {
        const ts_node *n = &g->nodes[i];
        if (n->op != TS_OP_PARAMETER || n->attrs.parameter.role != TS_PARAM_WEIGHT) continue;
        const ts_tensor_info *t = source->find(source->self, n->name, n->type.rank, n->type.dims);
        if (!t) return ts_error_set(err, TS_ERR_NOT_FOUND, "weight %s: the weight source cannot give it", n->name);
        if (!t->data)
            return ts_error_set(err, TS_ERR_UNSUPPORTED,
                                "weight %s has no float data here: the checkpoint stores it packed (GPTQ/AWQ), "
                                "and this part of the model reads it only as floats",
                                n->name);
        params[n->attrs.parameter.index] = (void *)t->data;
    }
    return TS_OK;
}
