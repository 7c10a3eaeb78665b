/* json_fields.h — typed reads of config keys with messages that name the file and the key.
 *
 * Every config reader in src/loader goes through these so a wrong type or a missing key always
 * reads "ORIGIN: PREFIX.KEY: expected an integer" / "ORIGIN: PREFIX.KEY: missing". A reader
 * carries the origin (file path), the key prefix of the object being read ("text_config.") and
 * the caller's ts_error. Optional getters leave *out at the given default when the key is absent
 * or null; *_required getters fail with TS_ERR_NOT_FOUND instead. Wrong types are TS_ERR_FORMAT.
 * Nothing is allocated: strings are copied into caller buffers (too long → TS_ERR_RANGE).
 */
#ifndef TS_LOADER_JSON_FIELDS_H
#define TS_LOADER_JSON_FIELDS_H

#include "tessera.h"

#include <cjson/cJSON.h>

typedef struct ts_json_reader {
    const char *origin;
    const char *prefix; /* "" or "text_config." */
    ts_error *err;
} ts_json_reader;

/* Absent or JSON null. */
bool ts_json_absent(const cJSON *obj, const char *key);
/* The member, or NULL when absent or null. Case-sensitive, as Python's json is. */
const cJSON *ts_json_member(const cJSON *obj, const char *key);

ts_status ts_json_missing(const ts_json_reader *r, const char *key);
ts_status ts_json_wrong_type(const ts_json_reader *r, const char *key, const char *expected);

ts_status ts_json_int(const ts_json_reader *r, const cJSON *obj, const char *key, int64_t def,
                      int64_t *out);
ts_status ts_json_int_required(const ts_json_reader *r, const cJSON *obj, const char *key,
                               int64_t *out);
/* Integers are accepted where a float is expected (JSON "rope_theta": 5000000). */
ts_status ts_json_double(const ts_json_reader *r, const cJSON *obj, const char *key, double def,
                         double *out);
ts_status ts_json_bool(const ts_json_reader *r, const cJSON *obj, const char *key, bool def,
                       bool *out);
ts_status ts_json_string(const ts_json_reader *r, const cJSON *obj, const char *key,
                         const char *def, char *out, size_t cap);
/* An array of integers, or with `scalar_ok` a single integer (eos_token_id: 2 or [1, 2]).
 * Absent leaves *n at 0. More than `cap` values is TS_ERR_RANGE. */
ts_status ts_json_int_list(const ts_json_reader *r, const cJSON *obj, const char *key,
                           bool scalar_ok, int64_t *out, int cap, int *n);
/* Same for floats (image_mean). */
ts_status ts_json_double_list(const ts_json_reader *r, const cJSON *obj, const char *key,
                              double *out, int cap, int *n);

/* Parses JSON text; a syntax error names the byte offset. *root owned, free with cJSON_Delete. */
ts_status ts_json_parse_text(const char *text, size_t len, const char *origin, cJSON **root,
                             ts_error *err);
/* Reads the file at `path` and parses it (ts_json_parse_text with the path as origin); the
 * errors of ts_file_read and ts_json_parse_text. *root owned, free with cJSON_Delete. */
ts_status ts_json_read_file(const char *path, cJSON **root, ts_error *err);

#endif
