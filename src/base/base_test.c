/* base_test.c — errors, arena (alignment, reset, injected failure), pool, files. */
#include "base/arena.h"
#include "base/error.h"
#include "base/file.h"
#include "base/pages.h"
#include "base/pool.h"
#include "base/sha256.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

static void test_error_format_and_prefix(void)
{
    ts_error err;
    ts_status st = ts_error_set(&err, TS_ERR_FORMAT, "tensor %s: expected %d bytes", "w", 16);
    CHECK_INT_EQ(st, TS_ERR_FORMAT);
    CHECK_STR_EQ(err.message, "tensor w: expected 16 bytes");
    CHECK_INT_EQ(ts_error_prefix(&err, "%s: ", "model.safetensors"), TS_ERR_FORMAT);
    CHECK_STR_EQ(err.message, "model.safetensors: tensor w: expected 16 bytes");
    CHECK_INT_EQ(ts_error_set(NULL, TS_ERR_IO, "ignored"), TS_ERR_IO);
    CHECK_STR_EQ(ts_status_name(TS_ERR_NOT_FOUND), "not found");
    CHECK_STR_EQ(ts_status_name((ts_status)999), "unknown status");

    /* A long prefix truncates instead of overflowing. */
    char big[2000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    ts_error_set(&err, TS_ERR_IO, "tail");
    ts_error_prefix(&err, "%s", big);
    CHECK_INT_EQ(strlen(err.message), TS_ERROR_MESSAGE_MAX - 1);
}

static void test_arena(void)
{
    ts_arena arena;
    ts_arena_init(&arena, 256);
    void *a = ts_arena_alloc(&arena, 10);
    void *b = ts_arena_alloc_aligned(&arena, 100, 64);
    void *c = ts_arena_alloc(&arena, 1000); /* larger than a block */
    void *d = ts_arena_alloc(&arena, 8);
    CHECK(a && b && c && d);
    CHECK_INT_EQ((uintptr_t)a % 16, 0);
    CHECK_INT_EQ((uintptr_t)b % 64, 0);
    CHECK_INT_EQ((uintptr_t)d % 16, 0);
    CHECK((char *)d >= (char *)b + 100 || (char *)d + 8 <= (char *)b); /* no overlap */
    unsigned char *z = c;
    int zeroed = 1;
    for (int i = 0; i < 1000; i++) zeroed &= z[i] == 0;
    CHECK(zeroed);
    CHECK_INT_EQ(arena.bytes_used, 10 + 100 + 1000 + 8);
    char *s = ts_arena_strndup(&arena, "hello world", 5);
    CHECK_STR_EQ(s, "hello");
    ts_arena_reset(&arena);
    CHECK_INT_EQ(arena.bytes_used, 0);
    CHECK(ts_arena_alloc(&arena, 32) != NULL);

    arena.fail_after = 3;
    CHECK(ts_arena_alloc(&arena, 1) != NULL);
    CHECK(ts_arena_alloc(&arena, 1) != NULL);
    CHECK(ts_arena_alloc(&arena, 1) == NULL); /* the injected failure */
    CHECK(ts_arena_alloc(&arena, 1) != NULL);
    ts_arena_fini(&arena);
}

typedef struct {
    atomic_int hits[1000];
    atomic_int workers_seen;
} pool_job;

static void mark(void *arg, int64_t task, int worker)
{
    pool_job *job = arg;
    atomic_fetch_add(&job->hits[task], 1);
    atomic_fetch_or(&job->workers_seen, 1 << worker);
}

static void test_pool(void)
{
    for (int n = 1; n <= 4; n++) {
        ts_pool *pool;
        ts_error err;
        REQUIRE_INT_EQ(ts_pool_create(n, &pool, &err), TS_OK);
        CHECK_INT_EQ(ts_pool_size(pool), n);
        for (int round = 0; round < 20; round++) {
            static pool_job job;
            memset(&job, 0, sizeof(job));
            int64_t n_tasks = 1 + round * 47 % 1000;
            ts_pool_run(pool, mark, &job, n_tasks);
            int exact = 1;
            for (int64_t t = 0; t < 1000; t++)
                exact &= atomic_load(&job.hits[t]) == (t < n_tasks ? 1 : 0);
            CHECK(exact);
        }
        ts_pool_destroy(pool);
    }
    ts_pool *pool;
    ts_error err;
    CHECK_INT_EQ(ts_pool_create(5000, &pool, &err), TS_ERR_RANGE);
    CHECK_CONTAINS(err.message, "5000");
}

static void test_files(void)
{
    char dir[] = "/tmp/ts_base_test_XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL);
    char path[512];
    ts_error err;
    CHECK_INT_EQ(ts_path_join(path, sizeof(path), dir, "a.txt", &err), TS_OK);
    FILE *f = fopen(path, "wb");
    fputs("abc", f);
    fclose(f);
    char *data;
    size_t len;
    REQUIRE_INT_EQ(ts_file_read(path, &data, &len, &err), TS_OK);
    CHECK_INT_EQ(len, 3);
    CHECK_STR_EQ(data, "abc");
    free(data);
    ts_mapping map;
    REQUIRE_INT_EQ(ts_mapping_open(path, &map, &err), TS_OK);
    CHECK_INT_EQ(map.size, 3);
    CHECK(memcmp(map.data, "abc", 3) == 0);
    ts_mapping_close(&map);
    CHECK(ts_file_exists(path));
    unlink(path);
    CHECK(!ts_file_exists(path));
    CHECK_INT_EQ(ts_file_read(path, &data, &len, &err), TS_ERR_NOT_FOUND);
    CHECK_CONTAINS(err.message, "a.txt");
    CHECK_INT_EQ(ts_file_read(dir, &data, &len, &err), TS_ERR_IO);
    CHECK_CONTAINS(err.message, "not a regular file");
    char tiny[8];
    CHECK_INT_EQ(ts_path_join(tiny, sizeof(tiny), "long-directory", "x", &err), TS_ERR_RANGE);
    rmdir(dir);
}

static void test_cpu_features(void)
{
    unsigned f = ts_cpu_features();
    /* Levels nest: each implies the one before. */
    if (f & TS_CPU_AVX512) CHECK(f & TS_CPU_AVX2);
    if (f & TS_CPU_AVX512_BF16) CHECK(f & TS_CPU_AVX512);
    if (f & TS_CPU_AMX_BF16) CHECK(f & TS_CPU_AVX512);
    CHECK_INT_EQ(ts_cpu_features(), f);
    CHECK_STR_EQ(ts_cpu_features_string(TS_CPU_AVX2 | TS_CPU_AVX512), "x86-64 avx2 avx512");
}

static void test_context_cpu_level(void)
{
    ts_context *ctx;
    ts_error err;
    ts_context_options opt = {.n_threads = 2, .log_level = TS_LOG_WARN, .cpu_level = "portable"};
    REQUIRE_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_OK);
    CHECK_INT_EQ(ts_context_cpu_features(ctx), 0);
    CHECK_INT_EQ(ts_context_threads(ctx), 2);
    ts_context_destroy(ctx);
    /* auto: what the CPU has, capped by $TESSERA_CPU (the suite runs once more under
     * TESSERA_CPU=portable); an explicit level is not capped. */
    const char *env = getenv("TESSERA_CPU");
    char *saved = env ? strdup(env) : NULL;
    unsetenv("TESSERA_CPU");
    opt.cpu_level = NULL;
    REQUIRE_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_OK);
    CHECK_INT_EQ(ts_context_cpu_features(ctx), ts_cpu_features());
    ts_context_destroy(ctx);
    setenv("TESSERA_CPU", "portable", 1);
    REQUIRE_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_OK);
    CHECK_INT_EQ(ts_context_cpu_features(ctx), 0);
    ts_context_destroy(ctx);
    if (ts_cpu_features() & TS_CPU_AVX2) {
        opt.cpu_level = "avx2";
        REQUIRE_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_OK);
        CHECK_INT_EQ(ts_context_cpu_features(ctx), TS_CPU_AVX2);
        ts_context_destroy(ctx);
        opt.cpu_level = NULL;
    }
    setenv("TESSERA_CPU", "avx9", 1);
    CHECK_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "unknown cpu level 'avx9'");
    if (saved) setenv("TESSERA_CPU", saved, 1);
    else unsetenv("TESSERA_CPU");
    free(saved);
    opt.cpu_level = "avx9";
    CHECK_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(err.message, "unknown cpu level 'avx9'");
    if (!(ts_cpu_features() & TS_CPU_AMX_BF16)) {
        opt.cpu_level = "amx";
        CHECK_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_ERR_UNSUPPORTED);
        CHECK_CONTAINS(err.message, "'amx' is not available");
    }
    if (ts_cpu_features() & TS_CPU_AVX512) {
        opt.cpu_level = "avx2";
        REQUIRE_INT_EQ(ts_context_create(&opt, &ctx, &err), TS_OK);
        CHECK_INT_EQ(ts_context_cpu_features(ctx), TS_CPU_AVX2);
        ts_context_destroy(ctx);
    }
}

/* ts_pages_alloc: 2 MB aligned from 2 MB on (so its whole huge pages can be granted), 64-byte
 * aligned below, every byte usable, freed by free(); a zero-byte request still a pointer. */
static void test_pages(void)
{
    static const size_t sizes[] = {0, 1, 100, (1u << 21) - 1, 1u << 21, (3u << 20) + 5};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        size_t n = sizes[i];
        unsigned char *p = ts_pages_alloc(n);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK((uintptr_t)p % (n >= (1u << 21) ? (1u << 21) : 64) == 0);
        memset(p, 0xa5, n);
        CHECK(n == 0 || (p[0] == 0xa5 && p[n - 1] == 0xa5));
        free(p);
    }
    CHECK(ts_pages_alloc(SIZE_MAX - 9) == NULL); /* its rounding up would wrap */
}

/* FIPS 180-4 examples and a million-'a' message (crosses every block boundary case). */
static void test_sha256(void)
{
    char hex[65];
    ts_sha256_hex("", 0, hex);
    CHECK_STR_EQ(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    ts_sha256_hex("abc", 3, hex);
    CHECK_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    ts_sha256_hex(two, strlen(two), hex);
    CHECK_STR_EQ(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    ts_sha256 h;
    ts_sha256_init(&h);
    char a[1000];
    memset(a, 'a', sizeof(a));
    for (int i = 0; i < 1000; i++) ts_sha256_update(&h, a, sizeof(a));
    ts_sha256_final_hex(&h, hex);
    CHECK_STR_EQ(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

int main(void)
{
    RUN(test_sha256);
    RUN(test_pages);
    RUN(test_context_cpu_level);
    RUN(test_error_format_and_prefix);
    RUN(test_arena);
    RUN(test_pool);
    RUN(test_files);
    RUN(test_cpu_features);
    return check_finish();
}
