/* file.h — whole-file reads and read-only mappings.
 *
 * ts_file_read returns an owned, NUL-terminated copy (free()). ts_mapping maps a file read-only;
 * the bytes stay valid until ts_mapping_close. Errors name the path and the errno text.
 */
#ifndef TS_BASE_FILE_H
#define TS_BASE_FILE_H

#include "tessera.h"

ts_status ts_file_read(const char *path, char **data, size_t *len, ts_error *err);
bool ts_file_exists(const char *path);
/* The SHA-256 of a whole file, as 64 lowercase hex digits. */
ts_status ts_file_sha256(const char *path, char out[65], ts_error *err);
/* dir + "/" + name into buf; an error if it does not fit. */
ts_status ts_path_join(char *buf, size_t cap, const char *dir, const char *name, ts_error *err);

typedef struct ts_mapping {
    const uint8_t *data;
    size_t size;
} ts_mapping;

ts_status ts_mapping_open(const char *path, ts_mapping *map, ts_error *err);
void ts_mapping_close(ts_mapping *map);

#endif
