/* checkpoint.c — a model's weights: one safetensors file, or shards named by an index.
 *
 * Every shard stays mapped read-only until ts_checkpoint_close, and ts_tensor_info.data points into
 * those mappings. The tensor table is sorted by name so lookups are a binary search. With an index,
 * the index and the shards must agree exactly: a tensor listed but absent from its shard, or
 * present in a shard but not listed there, is an error (a silently missing weight would surface
 * much later as wrong output).
 */
#include "base/error.h"
#include "base/file.h"
#include "base/pages.h"
#include "loader/json_fields.h"
#include "loader/safetensors.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SINGLE_FILE "model.safetensors"
#define INDEX_FILE "model.safetensors.index.json"

typedef struct shard {
    char *path;
    ts_mapping map;
    ts_safetensors_header header;
} shard;

struct ts_checkpoint {
    shard *shards;
    size_t n_shards;
    ts_tensor_info *tensors; /* sorted by name */
    size_t n_tensors;
};

/* One weight_map row: tensor name → index into shards. */
typedef struct listed {
    const char *name;
    size_t shard;
} listed;

void ts_checkpoint_close(ts_checkpoint *ckpt)
{
    if (!ckpt) return;
    for (size_t i = 0; i < ckpt->n_shards; i++) {
        ts_safetensors_header_fini(&ckpt->shards[i].header);
        ts_mapping_close(&ckpt->shards[i].map);
        free(ckpt->shards[i].path);
    }
    free(ckpt->shards);
    free(ckpt->tensors);
    free(ckpt);
}

static ts_status open_shard(shard *s, const char *path, ts_error *err)
{
    s->path = strdup(path);
    if (!s->path) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    ts_status st = ts_mapping_open(path, &s->map, err);
    if (st) return st;
    /* The weights used in place from this mapping are what a decode step streams: pages read in
     * through it come as 2 MB folios, one page-table entry each (pages.h). */
    ts_pages_advise((void *)s->map.data, s->map.size);
    return ts_safetensors_parse(s->map.data, s->map.size, path, &s->header, err);
}

static int compare_info(const void *a, const void *b)
{
    return strcmp(((const ts_tensor_info *)a)->name, ((const ts_tensor_info *)b)->name);
}

static int compare_listed(const void *a, const void *b)
{
    return strcmp(((const listed *)a)->name, ((const listed *)b)->name);
}

/* Gathers every shard's tensors into one name-sorted table; a name in two shards is an error. */
static ts_status build_table(ts_checkpoint *ckpt, ts_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < ckpt->n_shards; i++) total += ckpt->shards[i].header.n_entries;
    ckpt->tensors = calloc(total ? total : 1, sizeof(*ckpt->tensors));
    if (!ckpt->tensors)
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "out of memory for %zu tensors", total);
    for (size_t i = 0; i < ckpt->n_shards; i++) {
        shard *s = &ckpt->shards[i];
        for (size_t j = 0; j < s->header.n_entries; j++) {
            const ts_safetensors_entry *e = &s->header.entries[j];
            ts_tensor_info *t = &ckpt->tensors[ckpt->n_tensors++];
            t->name = e->name;
            t->dtype = e->dtype;
            t->n_dims = e->n_dims;
            memcpy(t->shape, e->shape, sizeof(t->shape));
            t->data = s->map.data + s->header.data_start + e->begin;
            t->n_bytes = (size_t)(e->end - e->begin);
            t->file = s->path;
        }
    }
    qsort(ckpt->tensors, ckpt->n_tensors, sizeof(*ckpt->tensors), compare_info);
    for (size_t i = 1; i < ckpt->n_tensors; i++) {
        if (strcmp(ckpt->tensors[i - 1].name, ckpt->tensors[i].name) == 0)
            return ts_error_set(err, TS_ERR_FORMAT, "tensor '%s' is in both %s and %s",
                                ckpt->tensors[i].name, ckpt->tensors[i - 1].file,
                                ckpt->tensors[i].file);
    }
    return TS_OK;
}

static ts_status open_single(ts_checkpoint *ckpt, const char *path, ts_error *err)
{
    ckpt->shards = calloc(1, sizeof(*ckpt->shards));
    if (!ckpt->shards) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    ckpt->n_shards = 1;
    ts_status st = open_shard(&ckpt->shards[0], path, err);
    if (st) return st;
    return build_table(ckpt, err);
}

static size_t shard_slot(char **names, size_t *n_names, const char *name)
{
    for (size_t i = 0; i < *n_names; i++)
        if (strcmp(names[i], name) == 0) return i;
    names[*n_names] = (char *)name;
    return (*n_names)++;
}

/* Walks the name-sorted weight_map and tensor table together; both must list the same names
 * with the same shard. */
static ts_status cross_check(const ts_checkpoint *ckpt, const listed *rows, size_t n_rows,
                             const char *index_path, ts_error *err)
{
    size_t i = 0, j = 0;
    while (i < n_rows || j < ckpt->n_tensors) {
        int c = i == n_rows ? 1 : j == ckpt->n_tensors ? -1
                                : strcmp(rows[i].name, ckpt->tensors[j].name);
        if (c < 0)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: tensor '%s' is listed in shard %s but that shard does not "
                                "contain it",
                                index_path, rows[i].name, ckpt->shards[rows[i].shard].path);
        if (c > 0)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: tensor '%s' in shard %s is not listed in the weight_map",
                                index_path, ckpt->tensors[j].name, ckpt->tensors[j].file);
        const char *listed_in = ckpt->shards[rows[i].shard].path;
        if (listed_in != ckpt->tensors[j].file)
            return ts_error_set(err, TS_ERR_FORMAT,
                                "%s: tensor '%s' is listed in shard %s but found in %s", index_path,
                                rows[i].name, listed_in, ckpt->tensors[j].file);
        i++;
        j++;
    }
    return TS_OK;
}

static ts_status open_index(ts_checkpoint *ckpt, const char *dir, const char *index_path,
                            ts_error *err)
{
    cJSON *root = NULL;
    listed *rows = NULL;
    char **names = NULL;
    ts_status st = ts_json_read_file(index_path, &root, err);
    if (st) goto done;
    const cJSON *map = ts_json_member(root, "weight_map");
    if (!map) {
        st = ts_error_set(err, TS_ERR_FORMAT, "%s: missing \"weight_map\"", index_path);
        goto done;
    }
    if (!cJSON_IsObject(map)) {
        st = ts_error_set(err, TS_ERR_FORMAT, "%s: weight_map: expected an object", index_path);
        goto done;
    }
    size_t n_rows = (size_t)cJSON_GetArraySize(map);
    if (n_rows == 0) {
        st = ts_error_set(err, TS_ERR_FORMAT, "%s: weight_map lists no tensors", index_path);
        goto done;
    }
    rows = calloc(n_rows ? n_rows : 1, sizeof(*rows));
    names = calloc(n_rows ? n_rows : 1, sizeof(*names));
    if (!rows || !names) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", index_path);
        goto done;
    }
    size_t n_names = 0, r = 0;
    for (const cJSON *item = map->child; item; item = item->next, r++) {
        if (!cJSON_IsString(item)) {
            st = ts_error_set(err, TS_ERR_FORMAT, "%s: weight_map.%s: expected a shard file name",
                              index_path, item->string);
            goto done;
        }
        /* Shards live beside the index; a path that climbs out of the folder is refused. */
        const char *file = item->valuestring;
        if (!file[0] || strchr(file, '/') || strcmp(file, ".") == 0 || strcmp(file, "..") == 0) {
            st = ts_error_set(err, TS_ERR_FORMAT,
                              "%s: weight_map.%s: shard \"%s\" is not a file name in the folder",
                              index_path, item->string, file);
            goto done;
        }
        rows[r].name = item->string;
        rows[r].shard = shard_slot(names, &n_names, file);
    }
    qsort(rows, n_rows, sizeof(*rows), compare_listed);
    for (size_t i = 1; i < n_rows; i++) {
        if (strcmp(rows[i - 1].name, rows[i].name) == 0) {
            st = ts_error_set(err, TS_ERR_FORMAT, "%s: weight_map lists tensor '%s' twice",
                              index_path, rows[i].name);
            goto done;
        }
    }
    ckpt->shards = calloc(n_names ? n_names : 1, sizeof(*ckpt->shards));
    if (!ckpt->shards) {
        st = ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", index_path);
        goto done;
    }
    for (size_t i = 0; i < n_names; i++) {
        char path[4096];
        st = ts_path_join(path, sizeof(path), dir, names[i], err);
        if (st) goto done;
        ckpt->n_shards++;
        if (!ts_file_exists(path)) {
            st = ts_error_set(err, TS_ERR_NOT_FOUND,
                              "%s: shard %s named in the weight_map does not exist", index_path,
                              path);
            goto done;
        }
        st = open_shard(&ckpt->shards[i], path, err);
        if (st) goto done;
    }
    st = build_table(ckpt, err);
    if (st) goto done;
    st = cross_check(ckpt, rows, n_rows, index_path, err);
done:
    free(names);
    free(rows);
    cJSON_Delete(root);
    return st;
}

ts_status ts_checkpoint_open(const char *path, ts_checkpoint **out, ts_error *err)
{
    *out = NULL;
    struct stat st_path;
    if (stat(path, &st_path) != 0)
        return ts_error_set(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO, "%s: %s", path,
                            strerror(errno));
    ts_checkpoint *ckpt = calloc(1, sizeof(*ckpt));
    if (!ckpt) return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    ts_status st;
    if (S_ISDIR(st_path.st_mode)) {
        char single[4096], index[4096];
        st = ts_path_join(single, sizeof(single), path, SINGLE_FILE, err);
        if (!st) st = ts_path_join(index, sizeof(index), path, INDEX_FILE, err);
        if (st) {
        } else if (ts_file_exists(single)) {
            st = open_single(ckpt, single, err);
        } else if (ts_file_exists(index)) {
            st = open_index(ckpt, path, index, err);
        } else {
            st = ts_error_set(err, TS_ERR_NOT_FOUND, "%s: neither %s nor %s in the folder", path,
                              SINGLE_FILE, INDEX_FILE);
        }
    } else {
        st = open_single(ckpt, path, err);
    }
    if (st) {
        ts_checkpoint_close(ckpt);
        return st;
    }
    *out = ckpt;
    return TS_OK;
}

size_t ts_checkpoint_tensor_count(const ts_checkpoint *ckpt) { return ckpt->n_tensors; }

const ts_tensor_info *ts_checkpoint_tensor_at(const ts_checkpoint *ckpt, size_t index)
{
    return index < ckpt->n_tensors ? &ckpt->tensors[index] : NULL;
}

const ts_tensor_info *ts_checkpoint_find(const ts_checkpoint *ckpt, const char *name)
{
    size_t lo = 0, hi = ckpt->n_tensors;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ckpt->tensors[mid].name, name);
        if (c == 0) return &ckpt->tensors[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}
