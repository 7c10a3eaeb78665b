/* base64.c — the strict base64 of data: image URLs and input_audio data (see base64.h). */
#include "server/base64.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

int srv_base64_decode(const char *s, const char *where, const char *param, const char *what,
                      size_t max_bytes, uint8_t **out, size_t *out_len, srv_error *err)
{
    size_t n = strlen(s), data = n;
    while (data > 0 && s[data - 1] == '=')
        data--;
    for (size_t i = 0; i < data; i++) {
        unsigned char c = (unsigned char)s[i];
        if (base64_value(c) >= 0) continue;
        if (c == '=')
            return srv_fail(err, 400, param,
                            "%s: bad base64 padding: '=' at offset %zu of the data", where, i);
        char shown[8];
        snprintf(shown, sizeof shown, c >= 0x21 && c < 0x7F ? "'%c'" : "\\x%02X", c);
        return srv_fail(err, 400, param,
                        "%s: invalid base64 character %s at offset %zu of the data", where, shown,
                        i);
    }
    size_t pad = n - data;
    if (pad > 2 || (pad && n % 4 != 0) || data % 4 == 1)
        return srv_fail(
            err, 400, param,
            "%s: bad base64 padding or length (%zu characters, %zu of them '=' at the end)", where,
            n, pad);
    size_t len = data / 4 * 3 + (data % 4 ? data % 4 - 1 : 0);
    if (len == 0) return srv_fail(err, 400, param, "%s: %s data is empty", where, what);
    if (len > max_bytes)
        return srv_fail(err, 400, param, "%s: %s is %zu bytes, at most %zu", where, what, len,
                        max_bytes);
    uint8_t *bytes = malloc(len);
    if (!bytes) return srv_fail(err, 500, "", "out of memory");
    uint32_t acc = 0;
    size_t k = 0;
    for (size_t i = 0; i < data; i++) {
        acc = acc << 6 | (uint32_t)base64_value((unsigned char)s[i]);
        if (i % 4 == 3) {
            bytes[k++] = (uint8_t)(acc >> 16);
            bytes[k++] = (uint8_t)(acc >> 8);
            bytes[k++] = (uint8_t)acc;
            acc = 0;
        }
    }
    if (data % 4 == 2) {
        bytes[k++] = (uint8_t)(acc >> 4);
    } else if (data % 4 == 3) {
        bytes[k++] = (uint8_t)(acc >> 10);
        bytes[k++] = (uint8_t)(acc >> 2);
    }
    *out = bytes;
    *out_len = k;
    return 0;
}
