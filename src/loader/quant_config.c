/* quant_config.c — quantization_config from config.json (see quant_config.h). */
#include "loader/quant_config.h"
#include "base/error.h"
#include "base/file.h"
#include "loader/json_fields.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *ts_quant_method_name(ts_quant_method m)
{
    return m == TS_QUANT_GPTQ ? "gptq" : m == TS_QUANT_AWQ ? "awq" : "none";
}

static ts_status parse(const cJSON *root, const char *origin, ts_quant_config *q, ts_error *err)
{
    const cJSON *qc = ts_json_member(root, "quantization_config");
    if (!qc) return TS_OK;
    ts_json_reader r = {origin, "quantization_config.", err};
    if (!cJSON_IsObject(qc)) return ts_json_wrong_type(&(ts_json_reader){origin, "", err}, "quantization_config", "an object");
    char method[32], format[32], version[32];
    int64_t bits;
    TS_TRY(ts_json_string(&r, qc, "quant_method", "", method, sizeof(method)));
    TS_TRY(ts_json_int(&r, qc, "bits", 0, &bits));
    TS_TRY(ts_json_int(&r, qc, "group_size", -1, &q->group_size));
    if (strcmp(method, "gptq") == 0) {
        q->method = TS_QUANT_GPTQ;
        TS_TRY(ts_json_bool(&r, qc, "desc_act", false, &q->desc_act));
        TS_TRY(ts_json_string(&r, qc, "checkpoint_format", "gptq", format, sizeof(format)));
        if (strcmp(format, "gptq") && strcmp(format, "gptq_v2"))
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: quantization_config.checkpoint_format '%s' is not supported (gptq, gptq_v2)", origin, format);
        q->zeros_minus_one = strcmp(format, "gptq") == 0;
        if (bits != 4 && bits != 8)
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: GPTQ with bits %lld is not supported (4 or 8)", origin, (long long)bits);
    } else if (strcmp(method, "awq") == 0) {
        q->method = TS_QUANT_AWQ;
        bool zero_point;
        TS_TRY(ts_json_string(&r, qc, "version", "gemm", version, sizeof(version)));
        TS_TRY(ts_json_bool(&r, qc, "zero_point", true, &zero_point));
        if (strcasecmp(version, "gemm"))
            return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: AWQ version '%s' is not supported (gemm)", origin, version);
        if (!zero_point) return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: AWQ without zero points is not supported", origin);
        if (bits != 4) return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: AWQ with bits %lld is not supported (4)", origin, (long long)bits);
    } else {
        return ts_error_set(err, TS_ERR_UNSUPPORTED, "%s: quantization_config.quant_method '%s' is not supported (gptq, awq)", origin, method);
    }
    if (q->group_size == 0 || q->group_size < -1)
        return ts_error_set(err, TS_ERR_RANGE, "%s: quantization_config.group_size %lld (positive or -1)", origin, (long long)q->group_size);
    q->bits = (int)bits;
    return TS_OK;
}

ts_status ts_quant_config_load(const char *dir, ts_quant_config *out, ts_error *err)
{
    memset(out, 0, sizeof(*out));
    char path[4096];
    TS_TRY(ts_path_join(path, sizeof(path), dir, "config.json", err));
    cJSON *root = NULL;
    ts_status st = ts_json_read_file(path, &root, err);
    if (!st) st = parse(root, path, out, err);
    cJSON_Delete(root);
    if (st) memset(out, 0, sizeof(*out));
    return st;
}
