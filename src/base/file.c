/* file.c — whole-file reads and read-only mappings. */
#include "base/file.h"
#include "base/sha256.h"
#include "base/error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

ts_status ts_file_read(const char *path, char **data, size_t *len, ts_error *err)
{
    *data = NULL;
    if (len) *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return ts_error_set(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return ts_error_set(err, TS_ERR_IO, "%s: not a regular file", path);
    }
    size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 1);
    if (!buf) {
        fclose(f);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes", path, size);
    }
    size_t got = fread(buf, 1, size, f);
    fclose(f);
    if (got != size) {
        free(buf);
        return ts_error_set(err, TS_ERR_IO, "%s: short read (%zu of %zu bytes)", path, got, size);
    }
    buf[size] = '\0';
    *data = buf;
    if (len) *len = size;
    return TS_OK;
}

bool ts_file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

ts_status ts_path_join(char *buf, size_t cap, const char *dir, const char *name, ts_error *err)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap)
        return ts_error_set(err, TS_ERR_RANGE, "path too long: %s/%s", dir, name);
    return TS_OK;
}

ts_status ts_mapping_open(const char *path, ts_mapping *map, ts_error *err)
{
    map->data = NULL;
    map->size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ts_error_set(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return ts_error_set(err, TS_ERR_IO, "%s: not a regular file", path);
    }
    if (st.st_size == 0) {
        close(fd);
        return TS_OK; /* an empty file maps to nothing; callers check the size */
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int saved = errno;
    close(fd);
    if (p == MAP_FAILED) return ts_error_set(err, TS_ERR_IO, "%s: mmap: %s", path, strerror(saved));
    map->data = p;
    map->size = (size_t)st.st_size;
    return TS_OK;
}

void ts_mapping_close(ts_mapping *map)
{
    if (map->data) munmap((void *)map->data, map->size);
    map->data = NULL;
    map->size = 0;
}

ts_status ts_file_sha256(const char *path, char out[65], ts_error *err)
{
    char *data;
    size_t len;
    ts_status st = ts_file_read(path, &data, &len, err);
    if (st != TS_OK) return st;
    ts_sha256_hex(data, len, out);
    free(data);
    return TS_OK;
}
