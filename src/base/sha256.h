/* sha256.h — SHA-256 (FIPS 180-4) for content digests: config digests, artifact identity.
 * Incremental: init, update any number of times, final writes 32 bytes (or 64 hex chars). */
#ifndef TS_BASE_SHA256_H
#define TS_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct ts_sha256 {
    uint32_t state[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} ts_sha256;

void ts_sha256_init(ts_sha256 *h);
void ts_sha256_update(ts_sha256 *h, const void *data, size_t len);
void ts_sha256_final(ts_sha256 *h, uint8_t out[32]);
/* Lower-case hex of the digest of data, NUL-terminated (65 bytes). */
void ts_sha256_hex(const void *data, size_t len, char out[65]);
void ts_sha256_final_hex(ts_sha256 *h, char out[65]);

#endif
