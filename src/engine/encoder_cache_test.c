/* encoder_cache_test.c — the LRU: byte budget, recency, eviction order, keys over every field. */
#include "check.h"
#include "engine/encoder_cache.h"

#include <string.h>

static void key_of(float fill, uint8_t key[32])
{
    float data[8];
    for (int i = 0; i < 8; i++)
        data[i] = fill;
    ts_pixel_values pv = {.data = data, .n_dims = 2, .shape = {2, 4}, .grid_thw = {1, 1, 2}};
    ts_pixel_values_digest(&pv, key);
}

static void test_lru(void)
{
    ts_encoder_cache *c;
    ts_error err;
    float rows[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        rows[i] = (float)i;
    uint8_t k[4][32];
    for (int i = 0; i < 4; i++)
        key_of((float)i, k[i]);
    /* Room for three entries of 1000 floats (plus their headers), not four. */
    REQUIRE_INT_EQ(ts_encoder_cache_create(3 * 4000 + 3 * 64 + 100, &c, &err), TS_OK);
    CHECK(!ts_encoder_cache_get(c, k[0], out, 1000));
    for (int i = 0; i < 3; i++)
        ts_encoder_cache_put(c, k[i], rows, 1000);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).entries, 3);
    CHECK(ts_encoder_cache_get(c, k[0], out, 1000)); /* 0 is now the most recent: 1 goes next */
    CHECK(memcmp(out, rows, sizeof(rows)) == 0);
    ts_encoder_cache_put(c, k[3], rows, 1000);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).evictions, 1);
    CHECK(!ts_encoder_cache_get(c, k[1], out, 1000));
    CHECK(ts_encoder_cache_get(c, k[0], out, 1000));
    CHECK(ts_encoder_cache_get(c, k[2], out, 1000));
    CHECK(ts_encoder_cache_get(c, k[3], out, 1000));
    CHECK(
        !ts_encoder_cache_get(c, k[3], out, 999)); /* another size is a miss, never a short copy */
    CHECK(ts_encoder_cache_get_stats(c).bytes <= ts_encoder_cache_get_stats(c).capacity);
    /* Replacing a key keeps one entry for it. */
    rows[0] = -1;
    ts_encoder_cache_put(c, k[3], rows, 1000);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).entries, 3);
    CHECK(ts_encoder_cache_get(c, k[3], out, 1000) && out[0] == -1);
    /* Larger than the budget: not kept, nothing evicted for it. */
    static float big[4000];
    ts_encoder_cache_put(c, k[1], big, 4000);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).entries, 3);
    ts_encoder_cache_resize(c, 4000 + 64 + 10);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).entries, 1);
    CHECK(ts_encoder_cache_get(c, k[3], out, 1000)); /* the most recent survives */
    ts_encoder_cache_resize(c, 0);
    CHECK_INT_EQ(ts_encoder_cache_get_stats(c).entries, 0);
    CHECK_INT_EQ((int64_t)ts_encoder_cache_get_stats(c).bytes, 0);
    ts_encoder_cache_destroy(c);
}

static void test_keys(void)
{
    float data[8] = {0};
    ts_pixel_values pv = {.data = data, .n_dims = 2, .shape = {2, 4}, .grid_thw = {1, 1, 2}};
    uint8_t a[32], b[32];
    ts_pixel_values_digest(&pv, a);
    ts_pixel_values_digest(&pv, b);
    CHECK(memcmp(a, b, 32) == 0);
    data[7] = 1e-30f; /* one value */
    ts_pixel_values_digest(&pv, b);
    CHECK(memcmp(a, b, 32) != 0);
    data[7] = 0;
    pv.grid_thw[1] = 2, pv.grid_thw[2] = 1; /* same pixels, another grid */
    ts_pixel_values_digest(&pv, b);
    CHECK(memcmp(a, b, 32) != 0);
    pv.grid_thw[1] = 1, pv.grid_thw[2] = 2, pv.shape[0] = 4, pv.shape[1] = 2; /* another shape */
    ts_pixel_values_digest(&pv, b);
    CHECK(memcmp(a, b, 32) != 0);
}

int main(void)
{
    RUN(test_lru);
    RUN(test_keys);
    return check_finish();
}
