/* safetensors_test.c — the safetensors parser and ts_checkpoint on good and malformed files.
 *
 * Every malformed case is written to a fresh temp folder and opened through the public
 * ts_checkpoint_open, and must fail with its own status and a message naming the file and the
 * problem. The positive cases check dtypes, shapes, byte ranges and data contents.
 */
#include "check.h"
#include "loader/dtype.h"
#include "loader/safetensors.h"
#include "tessera.h"

#include <ftw.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_dir[64];

static void write_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    if (len) fwrite(bytes, 1, len, f);
    fclose(f);
}

/* 8-byte little-endian length `declared`, then `header`, then `data_len` bytes of `data` (or a
 * counting pattern when data is NULL). */
static void write_st_raw(const char *path, uint64_t declared, const char *header, size_t data_len,
                         const uint8_t *data)
{
    size_t hlen = strlen(header);
    size_t total = 8 + hlen + data_len;
    uint8_t *buf = malloc(total);
    for (int i = 0; i < 8; i++) buf[i] = (uint8_t)(declared >> (8 * i));
    memcpy(buf + 8, header, hlen);
    for (size_t i = 0; i < data_len; i++) buf[8 + hlen + i] = data ? data[i] : (uint8_t)i;
    write_bytes(path, buf, total);
    free(buf);
}

static void write_st(const char *path, const char *header, size_t data_len, const uint8_t *data)
{
    write_st_raw(path, strlen(header), header, data_len, data);
}

static void tmp_path(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", tmp_dir, name);
}

static ts_status open_status(const char *path, ts_error *err)
{
    ts_checkpoint *ckpt = (ts_checkpoint *)1;
    ts_status st = ts_checkpoint_open(path, &ckpt, err);
    if (st == TS_OK) ts_checkpoint_close(ckpt);
    else if (ckpt != NULL) return TS_ERR_INTERNAL; /* must be cleared on failure */
    return st;
}

/* Writes `header` (+ data) as NAME.safetensors and expects the open to fail with `status` and a
 * message that contains both the path and `needle`. */
#define EXPECT_BAD(name, header, data_len, status, needle)                                         \
    do {                                                                                           \
        char path_[256];                                                                           \
        tmp_path(path_, sizeof(path_), name ".safetensors");                                       \
        write_st(path_, header, data_len, NULL);                                                   \
        ts_error err_ = {0};                                                                       \
        CHECK_INT_EQ(open_status(path_, &err_), status);                                           \
        CHECK_CONTAINS(err_.message, path_);                                                       \
        CHECK_CONTAINS(err_.message, needle);                                                      \
    } while (0)

#define EXPECT_PATH_FAIL(path, status, needle)                                                     \
    do {                                                                                           \
        ts_error err_ = {0};                                                                       \
        CHECK_INT_EQ(open_status(path, &err_), status);                                            \
        CHECK_CONTAINS(err_.message, needle);                                                      \
    } while (0)

/* ------------------------------------------------------------------ framing */

static void test_short_and_empty_files(void)
{
    char path[256];
    tmp_path(path, sizeof(path), "short.safetensors");
    write_bytes(path, "\x05\0\0\0\0", 5);
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, "file is 5 bytes, shorter than the 8-byte header length");
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, path);

    tmp_path(path, sizeof(path), "empty.safetensors");
    write_bytes(path, "", 0);
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, "empty file");
}

static void test_header_length_bounds(void)
{
    char path[256];
    tmp_path(path, sizeof(path), "zero_len.safetensors");
    write_st_raw(path, 0, "{}", 0, NULL);
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, "header length is 0");

    tmp_path(path, sizeof(path), "len_beyond.safetensors");
    write_st_raw(path, 100, "{}", 4, NULL);
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, "header length 100 is beyond the end of the file (6 bytes");

    tmp_path(path, sizeof(path), "len_over_bound.safetensors");
    write_st_raw(path, 200000000, "{}", 0, NULL);
    EXPECT_PATH_FAIL(path, TS_ERR_RANGE, "header length 200000000 exceeds the 100000000-byte limit");

    /* Exactly the whole rest of the file is fine; one more byte is not. */
    tmp_path(path, sizeof(path), "len_exact.safetensors");
    write_st_raw(path, 2, "{}", 0, NULL);
    EXPECT_PATH_FAIL(path, TS_OK, "");
    tmp_path(path, sizeof(path), "len_plus_one.safetensors");
    write_st_raw(path, 3, "{}", 0, NULL);
    EXPECT_PATH_FAIL(path, TS_ERR_FORMAT, "header length 3 is beyond the end of the file (2 bytes");
}

static void test_json_errors(void)
{
    EXPECT_BAD("not_json", "hello!!!", 0, TS_ERR_FORMAT, "not valid JSON: error at byte 0 of the header");
    EXPECT_BAD("not_object", "[1, 2]", 0, TS_ERR_FORMAT, "header is not a JSON object (found an array)");
    /* 19 bytes; cJSON stops at the last one it could not complete. */
    EXPECT_BAD("truncated", "{\"a\":{\"dtype\":\"F32\"", 0, TS_ERR_FORMAT,
               "not valid JSON: error at byte 18 of the header (19 bytes)");
    EXPECT_BAD("garbage_after", "{}  x", 0, TS_ERR_FORMAT,
               "extra bytes after the JSON object at byte 4 of the header");
    char path[256];
    tmp_path(path, sizeof(path), "padded.safetensors");
    write_st(path, "{}      ", 0, NULL);
    EXPECT_PATH_FAIL(path, TS_OK, ""); /* space padding is part of the format */
}

/* ------------------------------------------------------------------ entries */

static void test_entry_errors(void)
{
    EXPECT_BAD("entry_not_object", "{\"a\": 5}", 0, TS_ERR_FORMAT,
               "tensor 'a': expected an object, found a number");
    EXPECT_BAD("unknown_dtype", "{\"w\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", 8,
               TS_ERR_UNSUPPORTED, "tensor 'w': unsupported dtype \"F64\"");
    EXPECT_BAD("dtype_not_string", "{\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4,
               TS_ERR_FORMAT, "tensor 'w': dtype: expected a string, found a number");
    EXPECT_BAD("missing_dtype", "{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4, TS_ERR_FORMAT,
               "tensor 'w': missing \"dtype\"");
    EXPECT_BAD("missing_shape", "{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4, TS_ERR_FORMAT,
               "tensor 'w': missing \"shape\"");
    EXPECT_BAD("missing_offsets", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4, TS_ERR_FORMAT,
               "tensor 'w': missing \"data_offsets\"");
    EXPECT_BAD("negative_dim", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,-3],\"data_offsets\":[0,4]}}", 4,
               TS_ERR_FORMAT, "tensor 'w': shape[1] is -3, expected a non-negative integer");
    EXPECT_BAD("fractional_dim", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1.5],\"data_offsets\":[0,4]}}", 4,
               TS_ERR_FORMAT, "tensor 'w': shape[0] is 1.5, expected a non-negative integer");
    EXPECT_BAD("shape_not_array", "{\"w\":{\"dtype\":\"F32\",\"shape\":\"2x2\",\"data_offsets\":[0,16]}}",
               16, TS_ERR_FORMAT, "tensor 'w': shape: expected an array, found a string");
    EXPECT_BAD("too_many_dims",
               "{\"w\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1,
               TS_ERR_UNSUPPORTED, "tensor 'w': shape has 9 dims, more than the 8 supported");
    EXPECT_BAD("shape_overflow",
               "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}",
               4, TS_ERR_RANGE, "tensor 'w': shape is too large (byte count overflows 64 bits)");
}

static void test_offset_errors(void)
{
    EXPECT_BAD("offsets_one", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4,
               TS_ERR_FORMAT, "tensor 'w': data_offsets: expected [begin, end], two non-negative integers");
    EXPECT_BAD("offsets_three", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8,
               TS_ERR_FORMAT, "tensor 'w': data_offsets: expected [begin, end]");
    EXPECT_BAD("offsets_strings", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",\"4\"]}}",
               4, TS_ERR_FORMAT, "tensor 'w': data_offsets: expected [begin, end]");
    EXPECT_BAD("offsets_negative", "{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[-4,0]}}", 4,
               TS_ERR_FORMAT, "tensor 'w': data_offsets: expected [begin, end]");
    EXPECT_BAD("begin_after_end", "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,4]}}", 8,
               TS_ERR_FORMAT, "tensor 'w': data_offsets [8, 4]: begin is after end");
    EXPECT_BAD("end_beyond_data", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8,
               TS_ERR_FORMAT, "tensor 'w': data_offsets end 16 is beyond the data section (8 bytes)");
    EXPECT_BAD("count_mismatch", "{\"w\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8,
               TS_ERR_FORMAT, "tensor 'w': data_offsets span 8 bytes but a F32 tensor of this shape needs 12");
    EXPECT_BAD("bf16_mismatch", "{\"w\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,16]}}", 16,
               TS_ERR_FORMAT, "span 16 bytes but a BF16 tensor of this shape needs 8");
}

static void test_duplicates_overlaps_metadata(void)
{
    EXPECT_BAD("duplicate",
               "{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
               "\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[2,4]}}",
               4, TS_ERR_FORMAT, "tensor 'a' appears twice in the header");
    EXPECT_BAD("overlap",
               "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
               "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}",
               12, TS_ERR_FORMAT, "tensors 'a' [0, 8) and 'b' [4, 12) overlap");
    /* A tensor nested inside a longer one overlaps it even though its neighbour ends earlier. */
    EXPECT_BAD("overlap_nested",
               "{\"big\":{\"dtype\":\"U8\",\"shape\":[10],\"data_offsets\":[0,10]},"
               "\"x\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]},"
               "\"y\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[5,7]}}",
               10, TS_ERR_FORMAT, "tensors 'big' [0, 10) and 'x' [1, 3) overlap");
    EXPECT_BAD("metadata_number", "{\"__metadata__\":{\"format\":\"pt\",\"n\":3}}", 0, TS_ERR_FORMAT,
               "__metadata__.n: expected a string, found a number");
    EXPECT_BAD("metadata_array", "{\"__metadata__\":[\"pt\"]}", 0, TS_ERR_FORMAT,
               "__metadata__: expected an object, found an array");
    EXPECT_BAD("empty_name", "{\"\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1,
               TS_ERR_FORMAT, "a tensor has an empty name");
}

/* ------------------------------------------------------------------ folders and indexes */

static void make_dir(char *buf, size_t cap, const char *name)
{
    tmp_path(buf, cap, name);
    if (mkdir(buf, 0755) != 0) perror(buf);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    write_bytes(path, text, strlen(text));
}

static const char *shard1_header =
    "{\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
    "\"c.weight\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
static const char *shard2_header =
    "{\"b.weight\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[0,6]}}";
static const char *shard_index =
    "{\"metadata\":{\"total_size\":18},\"weight_map\":{"
    "\"a.weight\":\"model-00001-of-00002.safetensors\","
    "\"b.weight\":\"model-00002-of-00002.safetensors\","
    "\"c.weight\":\"model-00001-of-00002.safetensors\"}}";

static void write_shards(const char *dir, const char *s1, const char *s2)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/model-00001-of-00002.safetensors", dir);
    write_st(path, s1, 12, NULL);
    snprintf(path, sizeof(path), "%s/model-00002-of-00002.safetensors", dir);
    if (s2) write_st(path, s2, 6, NULL);
}

static void test_folder_errors(void)
{
    char dir[256];
    make_dir(dir, sizeof(dir), "empty_dir");
    EXPECT_PATH_FAIL(dir, TS_ERR_NOT_FOUND,
                     "neither model.safetensors nor model.safetensors.index.json in the folder");
    EXPECT_PATH_FAIL(dir, TS_ERR_NOT_FOUND, dir);

    char missing[300];
    snprintf(missing, sizeof(missing), "%s/no_such.safetensors", tmp_dir);
    EXPECT_PATH_FAIL(missing, TS_ERR_NOT_FOUND, "no_such.safetensors");

    make_dir(dir, sizeof(dir), "missing_shard");
    write_shards(dir, shard1_header, NULL);
    write_text(dir, "model.safetensors.index.json", shard_index);
    EXPECT_PATH_FAIL(dir, TS_ERR_NOT_FOUND,
                     "model-00002-of-00002.safetensors named in the weight_map does not exist");
    EXPECT_PATH_FAIL(dir, TS_ERR_NOT_FOUND, "missing_shard/model.safetensors.index.json");

    make_dir(dir, sizeof(dir), "weight_map_array");
    write_text(dir, "model.safetensors.index.json", "{\"weight_map\":[\"model.safetensors\"]}");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "model.safetensors.index.json: weight_map: expected an object");

    make_dir(dir, sizeof(dir), "empty_weight_map");
    write_text(dir, "model.safetensors.index.json", "{\"weight_map\":{}}");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "model.safetensors.index.json: weight_map lists no tensors");

    make_dir(dir, sizeof(dir), "no_weight_map");
    write_text(dir, "model.safetensors.index.json", "{\"metadata\":{}}");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "model.safetensors.index.json: missing \"weight_map\"");

    make_dir(dir, sizeof(dir), "index_not_json");
    write_text(dir, "model.safetensors.index.json", "{\"weight_map\": {");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "model.safetensors.index.json: not valid JSON");

    make_dir(dir, sizeof(dir), "shard_escape");
    write_text(dir, "model.safetensors.index.json", "{\"weight_map\":{\"a\":\"../x.safetensors\"}}");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "weight_map.a: shard \"../x.safetensors\" is not a file name");

    make_dir(dir, sizeof(dir), "shard_not_string");
    write_text(dir, "model.safetensors.index.json", "{\"weight_map\":{\"a\":1}}");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "weight_map.a: expected a shard file name");

    make_dir(dir, sizeof(dir), "listed_not_present");
    write_shards(dir, "{\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                 shard2_header);
    write_text(dir, "model.safetensors.index.json", shard_index);
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT,
                     "tensor 'c.weight' is listed in shard");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT,
                     "model-00001-of-00002.safetensors but that shard does not contain it");

    make_dir(dir, sizeof(dir), "present_not_listed");
    write_shards(dir,
                 "{\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                 "\"c.weight\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[8,12]},"
                 "\"d.weight\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[12,12]}}",
                 shard2_header);
    write_text(dir, "model.safetensors.index.json", shard_index);
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "tensor 'd.weight' in shard");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "is not listed in the weight_map");

    make_dir(dir, sizeof(dir), "wrong_shard");
    write_shards(dir, "{\"a.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
                 "{\"b.weight\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[0,6]},"
                 "\"c.weight\":{\"dtype\":\"I32\",\"shape\":[0],\"data_offsets\":[6,6]}}");
    write_text(dir, "model.safetensors.index.json", shard_index);
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "tensor 'c.weight' is listed in shard");
    EXPECT_PATH_FAIL(dir, TS_ERR_FORMAT, "but found in");

    make_dir(dir, sizeof(dir), "bad_shard_header");
    write_shards(dir, shard1_header, "{\"b.weight\":{\"dtype\":\"F8\",\"shape\":[3],\"data_offsets\":[0,3]}}");
    write_text(dir, "model.safetensors.index.json", shard_index);
    EXPECT_PATH_FAIL(dir, TS_ERR_UNSUPPORTED, "model-00002-of-00002.safetensors: tensor 'b.weight': unsupported dtype \"F8\"");
}

/* ------------------------------------------------------------------ good files */

static void test_every_dtype_round_trips(void)
{
    static const char *names[] = {"F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"};
    static const size_t sizes[] = {4, 2, 2, 8, 4, 2, 1, 1, 1};
    CHECK_INT_EQ(TS_DTYPE_COUNT, 9);
    for (int d = 0; d < TS_DTYPE_COUNT; d++) {
        CHECK_STR_EQ(ts_dtype_name((ts_dtype)d), names[d]);
        CHECK_INT_EQ(ts_dtype_size((ts_dtype)d), sizes[d]);
        ts_dtype parsed = TS_DTYPE_COUNT;
        CHECK(ts_dtype_parse(names[d], strlen(names[d]), &parsed));
        CHECK_INT_EQ(parsed, d);

        size_t n_bytes = 6 * sizes[d];
        uint8_t data[48];
        for (size_t i = 0; i < n_bytes; i++) data[i] = (uint8_t)(i * 7 + (size_t)d);
        char header[256], path[256], file[64];
        snprintf(header, sizeof(header),
                 "{\"__metadata__\":{\"format\":\"pt\"},\"t\":{\"dtype\":\"%s\",\"shape\":[2,3],"
                 "\"data_offsets\":[0,%zu]}}",
                 names[d], n_bytes);
        snprintf(file, sizeof(file), "dtype_%s.safetensors", names[d]);
        tmp_path(path, sizeof(path), file);
        write_st(path, header, n_bytes, data);
        ts_checkpoint *ckpt = NULL;
        ts_error err = {0};
        CHECK_INT_EQ(ts_checkpoint_open(path, &ckpt, &err), TS_OK);
        if (!ckpt) continue;
        CHECK_INT_EQ(ts_checkpoint_tensor_count(ckpt), 1);
        const ts_tensor_info *t = ts_checkpoint_find(ckpt, "t");
        REQUIRE(t != NULL);
        if (t) {
            CHECK_INT_EQ(t->dtype, d);
            CHECK_INT_EQ(t->n_dims, 2);
            CHECK_INT_EQ(t->shape[0], 2);
            CHECK_INT_EQ(t->shape[1], 3);
            CHECK_INT_EQ(t->n_bytes, n_bytes);
            CHECK(memcmp(t->data, data, n_bytes) == 0);
            CHECK_STR_EQ(t->file, path);
        }
        ts_checkpoint_close(ckpt);
    }
    ts_dtype unused;
    CHECK(!ts_dtype_parse("F64", 3, &unused));
    CHECK(!ts_dtype_parse("f32", 3, &unused));
    CHECK(!ts_dtype_parse("F3", 2, &unused));
}

static void test_zero_size_and_scalar(void)
{
    char path[256];
    tmp_path(path, sizeof(path), "zero_size.safetensors");
    /* Empty tensors own no bytes, so one may sit at an offset inside another tensor. */
    write_st(path,
             "{\"empty\":{\"dtype\":\"F32\",\"shape\":[0,4],\"data_offsets\":[4,4]},"
             "\"scalar\":{\"dtype\":\"I64\",\"shape\":[],\"data_offsets\":[8,16]},"
             "\"v\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
             "\"tail\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[16,16]}}",
             16, NULL);
    ts_checkpoint *ckpt = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_checkpoint_open(path, &ckpt, &err), TS_OK);
    if (!ckpt) return;
    CHECK_INT_EQ(ts_checkpoint_tensor_count(ckpt), 4);
    const ts_tensor_info *e = ts_checkpoint_find(ckpt, "empty");
    CHECK(e && e->n_bytes == 0 && e->n_dims == 2 && e->shape[0] == 0 && e->shape[1] == 4);
    const ts_tensor_info *s = ts_checkpoint_find(ckpt, "scalar");
    CHECK(s && s->n_dims == 0 && s->n_bytes == 8 && ((const uint8_t *)s->data)[0] == 8);
    const ts_tensor_info *tail = ts_checkpoint_find(ckpt, "tail");
    CHECK(tail && tail->n_bytes == 0);
    /* Name order: empty, scalar, tail, v. */
    CHECK_STR_EQ(ts_checkpoint_tensor_at(ckpt, 0)->name, "empty");
    CHECK_STR_EQ(ts_checkpoint_tensor_at(ckpt, 3)->name, "v");
    CHECK(ts_checkpoint_tensor_at(ckpt, 4) == NULL);
    ts_checkpoint_close(ckpt);
}

static void test_memory_parser_and_metadata(void)
{
    const char *header = "{\"__metadata__\":{\"format\":\"pt\",\"case\":\"x\"},"
                         "\"w\":{\"dtype\":\"F16\",\"shape\":[3],\"data_offsets\":[2,8]},"
                         "\"u\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}";
    size_t hlen = strlen(header);
    uint8_t buf[512] = {0};
    buf[0] = (uint8_t)hlen;
    memcpy(buf + 8, header, hlen);
    ts_safetensors_header h;
    ts_error err = {0};
    REQUIRE_INT_EQ(ts_safetensors_parse(buf, 8 + hlen + 8, "mem", &h, &err), TS_OK);
    CHECK_INT_EQ(h.n_entries, 2);
    CHECK_INT_EQ(h.n_metadata, 2);
    CHECK_INT_EQ(h.data_start, 8 + hlen);
    CHECK_INT_EQ(h.data_size, 8);
    if (h.n_metadata == 2) {
        CHECK_STR_EQ(h.metadata_keys[1], "case");
        CHECK_STR_EQ(h.metadata_values[1], "x");
    }
    if (h.n_entries == 2) {
        CHECK_STR_EQ(h.entries[0].name, "w");
        CHECK_INT_EQ(h.entries[0].dtype, TS_DTYPE_F16);
        CHECK_INT_EQ(h.entries[0].begin, 2);
        CHECK_INT_EQ(h.entries[0].end, 8);
    }
    ts_safetensors_header_fini(&h);

    /* The same bytes one short: the data section no longer holds w. */
    CHECK_INT_EQ(ts_safetensors_parse(buf, 8 + hlen + 7, "mem", &h, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "mem: tensor 'w': data_offsets end 8 is beyond the data section (7 bytes)");
    CHECK_INT_EQ(ts_safetensors_parse(buf, 3, "mem", &h, &err), TS_ERR_FORMAT);
    CHECK_CONTAINS(err.message, "mem: file is 3 bytes");
}

static void test_fixture_checkpoint(void)
{
    const char *root = getenv("TS_ROOT");
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/tests/fixtures/qwen2/model", root ? root : ".");
    ts_checkpoint *ckpt = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_checkpoint_open(dir, &ckpt, &err), TS_OK);
    if (!ckpt) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_INT_EQ(ts_checkpoint_tensor_count(ckpt), 38);
    const ts_tensor_info *embed = ts_checkpoint_find(ckpt, "model.embed_tokens.weight");
    REQUIRE(embed != NULL);
    if (embed) {
        CHECK_INT_EQ(embed->dtype, TS_DTYPE_F32);
        CHECK_INT_EQ(embed->n_dims, 2);
        CHECK_INT_EQ(embed->shape[0], 1344);
        CHECK_INT_EQ(embed->shape[1], 64);
        CHECK_INT_EQ(embed->n_bytes, 344064);
        CHECK_CONTAINS(embed->file, "qwen2/model/model.safetensors");
    }
    const ts_tensor_info *gate = ts_checkpoint_find(ckpt, "model.layers.0.mlp.gate_proj.weight");
    CHECK(gate && gate->shape[0] == 160 && gate->shape[1] == 64 && gate->n_bytes == 40960);
    /* Offsets in the header: embed at [0, 344064), gate at [385280, 426240) of the data. */
    if (embed && gate) CHECK_INT_EQ((const uint8_t *)gate->data - (const uint8_t *)embed->data, 385280);
    CHECK(ts_checkpoint_find(ckpt, "lm_head.weight") == NULL); /* tied */
    CHECK(ts_checkpoint_find(ckpt, "") == NULL);
    bool sorted = true;
    for (size_t i = 1; i < ts_checkpoint_tensor_count(ckpt); i++)
        if (strcmp(ts_checkpoint_tensor_at(ckpt, i - 1)->name, ts_checkpoint_tensor_at(ckpt, i)->name) >= 0)
            sorted = false;
    CHECK(sorted);
    ts_checkpoint_close(ckpt);
}

static void test_sharded_checkpoint(void)
{
    char dir[256];
    make_dir(dir, sizeof(dir), "sharded");
    write_shards(dir, shard1_header, shard2_header);
    write_text(dir, "model.safetensors.index.json", shard_index);
    ts_checkpoint *ckpt = NULL;
    ts_error err = {0};
    CHECK_INT_EQ(ts_checkpoint_open(dir, &ckpt, &err), TS_OK);
    if (!ckpt) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    CHECK_INT_EQ(ts_checkpoint_tensor_count(ckpt), 3);
    const ts_tensor_info *a = ts_checkpoint_find(ckpt, "a.weight");
    const ts_tensor_info *b = ts_checkpoint_find(ckpt, "b.weight");
    const ts_tensor_info *c = ts_checkpoint_find(ckpt, "c.weight");
    CHECK(a && b && c);
    if (a && b && c) {
        CHECK_CONTAINS(a->file, "model-00001-of-00002.safetensors");
        CHECK_CONTAINS(b->file, "model-00002-of-00002.safetensors");
        CHECK_INT_EQ(b->dtype, TS_DTYPE_BF16);
        CHECK_INT_EQ(b->shape[0], 3);
        CHECK_INT_EQ(b->n_bytes, 6);
        /* The data sections were filled with 0, 1, 2, …: c starts at byte 8 of shard 1. */
        CHECK_INT_EQ(((const uint8_t *)c->data)[0], 8);
        CHECK_INT_EQ(((const uint8_t *)b->data)[5], 5);
    }
    CHECK_STR_EQ(ts_checkpoint_tensor_at(ckpt, 1)->name, "b.weight");
    ts_checkpoint_close(ckpt);

    /* model.safetensors wins over an index when both exist, as in transformers. */
    make_dir(dir, sizeof(dir), "both");
    char path[512];
    snprintf(path, sizeof(path), "%s/model.safetensors", dir);
    write_st(path, "{\"only\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, NULL);
    write_text(dir, "model.safetensors.index.json", shard_index);
    REQUIRE_INT_EQ(ts_checkpoint_open(dir, &ckpt, &err), TS_OK);
    if (ckpt) {
        CHECK_INT_EQ(ts_checkpoint_tensor_count(ckpt), 1);
        CHECK(ts_checkpoint_find(ckpt, "only") != NULL);
        ts_checkpoint_close(ckpt);
    }
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

int main(void)
{
    snprintf(tmp_dir, sizeof(tmp_dir), "/tmp/ts_safetensors_XXXXXX");
    if (!mkdtemp(tmp_dir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(test_short_and_empty_files);
    RUN(test_header_length_bounds);
    RUN(test_json_errors);
    RUN(test_entry_errors);
    RUN(test_offset_errors);
    RUN(test_duplicates_overlaps_metadata);
    RUN(test_folder_errors);
    RUN(test_every_dtype_round_trips);
    RUN(test_zero_size_and_scalar);
    RUN(test_memory_parser_and_metadata);
    RUN(test_fixture_checkpoint);
    RUN(test_sharded_checkpoint);
    nftw(tmp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return check_finish();
}
