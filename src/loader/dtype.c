/* dtype.c — safetensors dtype names and item sizes. */
#include "loader/dtype.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [TS_DTYPE_F32] = {"F32", 4}, [TS_DTYPE_F16] = {"F16", 2}, [TS_DTYPE_BF16] = {"BF16", 2},
    [TS_DTYPE_I64] = {"I64", 8}, [TS_DTYPE_I32] = {"I32", 4}, [TS_DTYPE_I16] = {"I16", 2},
    [TS_DTYPE_I8] = {"I8", 1},   [TS_DTYPE_U8] = {"U8", 1},   [TS_DTYPE_BOOL] = {"BOOL", 1},
};
_Static_assert(sizeof(dtypes) / sizeof(dtypes[0]) == TS_DTYPE_COUNT, "dtypes out of step with ts_dtype");

const char *ts_dtype_name(ts_dtype dtype)
{
    if ((unsigned)dtype >= TS_DTYPE_COUNT) return "unknown dtype";
    return dtypes[dtype].name;
}

size_t ts_dtype_size(ts_dtype dtype)
{
    if ((unsigned)dtype >= TS_DTYPE_COUNT) return 0;
    return dtypes[dtype].size;
}

bool ts_dtype_parse(const char *name, size_t len, ts_dtype *out)
{
    for (int i = 0; i < TS_DTYPE_COUNT; i++) {
        if (strlen(dtypes[i].name) == len && memcmp(dtypes[i].name, name, len) == 0) {
            *out = (ts_dtype)i;
            return true;
        }
    }
    return false;
}
