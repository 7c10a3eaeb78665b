/* utf8.c — strict UTF-8 checks and lossy repair (see utf8.h). */
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

/* For a lead byte: sequence length and the allowed range of the second byte (Unicode table 3-7),
 * which is what rules out overlongs, surrogates and values above U+10FFFF. */
static int lead_info(uint8_t b, uint8_t *lo, uint8_t *hi)
{
    *lo = 0x80, *hi = 0xBF;
    if (b < 0x80) return 1;
    if (b < 0xC2) return 0;
    if (b < 0xE0) return 2;
    if (b == 0xE0) *lo = 0xA0;
    if (b == 0xED) *hi = 0x9F;
    if (b < 0xF0) return 3;
    if (b == 0xF0) *lo = 0x90;
    if (b == 0xF4) *hi = 0x8F;
    if (b < 0xF5) return 4;
    return 0;
}

/* Number of bytes of the sequence at s that are a valid prefix (its full length when complete). */
static size_t valid_prefix(const uint8_t *s, size_t len, int *need)
{
    uint8_t lo, hi;
    int n = lead_info(s[0], &lo, &hi);
    *need = n;
    if (n <= 1) return (size_t)n;
    size_t k = 1;
    if (k < len && s[1] >= lo && s[1] <= hi) {
        k = 2;
        while ((int)k < n && k < len && (s[k] & 0xC0) == 0x80)
            k++;
    }
    return k;
}

size_t ts_utf8_validate(const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        int need;
        size_t k = valid_prefix(s + i, len - i, &need);
        if (need == 0 || (int)k != need) return i;
        i += k;
    }
    return len;
}

size_t ts_utf8_sequence(const uint8_t *s, size_t len)
{
    if (!len) return 0;
    int need;
    size_t k = valid_prefix(s, len, &need);
    return need != 0 && (int)k == need ? k : 0;
}

size_t ts_utf8_decode(const uint8_t *s, size_t len, uint32_t *cp)
{
    uint8_t b = s[0];
    if (b < 0x80 || len < 2) {
        *cp = b;
        return 1;
    }
    if (b < 0xE0) {
        *cp = ((uint32_t)(b & 0x1F) << 6) | (s[1] & 0x3F);
        return 2;
    }
    if (b < 0xF0 && len >= 3) {
        *cp = ((uint32_t)(b & 0x0F) << 12) | ((uint32_t)(s[1] & 0x3F) << 6) | (s[2] & 0x3F);
        return 3;
    }
    if (len >= 4) {
        *cp = ((uint32_t)(b & 0x07) << 18) | ((uint32_t)(s[1] & 0x3F) << 12) |
              ((uint32_t)(s[2] & 0x3F) << 6) | (s[3] & 0x3F);
        return 4;
    }
    *cp = b;
    return 1;
}

size_t ts_utf8_encode(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

size_t ts_utf8_incomplete_tail(const uint8_t *s, size_t len)
{
    /* A sequence is at most 4 bytes, so only the last 3 can start an unfinished one. */
    for (size_t back = 1; back <= 3 && back <= len; back++) {
        size_t at = len - back;
        if ((s[at] & 0xC0) == 0x80) continue;
        int need;
        size_t k = valid_prefix(s + at, back, &need);
        return (need > 1 && k == back && (int)back < need) ? back : 0;
    }
    return 0;
}

bool ts_utf8_lossy(const uint8_t *s, size_t len, ts_buf *out)
{
    static const char replacement[] = "\xEF\xBF\xBD";
    if (!ts_buf_reserve(out, len)) return false;
    size_t i = 0, run = 0;
    while (i < len) {
        int need = 1;
        size_t k = s[i] < 0x80 ? 1 : valid_prefix(s + i, len - i, &need);
        if (need != 0 && (int)k == need) {
            i += k;
            continue;
        }
        if (!ts_buf_append(out, s + run, i - run)) return false;
        if (!ts_buf_append(out, replacement, 3)) return false;
        i += k ? k : 1;
        run = i;
    }
    return ts_buf_append(out, s + run, len - run);
}

bool ts_utf8_is_whitespace(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
           cp == 0x205F || cp == 0x3000;
}

char *ts_utf8_clean(const char *s, size_t len)
{
    char *out = malloc(len * 3 + 1); /* every byte may become the 3-byte U+FFFD */
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t k = ts_utf8_sequence((const uint8_t *)s + i, len - i);
        if (k) {
            memcpy(out + o, s + i, k), o += k, i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3, i++;
        }
    }
    out[o] = '\0';
    return out;
}
