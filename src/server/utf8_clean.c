/* utf8_clean.c — see utf8_clean.h. Well-formed means RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF. */
#include "server/utf8_clean.h"

#include <stdlib.h>
#include <string.h>

/* The length of the well-formed sequence at s (n bytes available), or 0. */
static size_t sequence(const unsigned char *s, size_t n)
{
    if (s[0] < 0x80) return 1;
    size_t need = (s[0] >> 5) == 6 ? 2 : (s[0] >> 4) == 14 ? 3 : (s[0] >> 3) == 30 ? 4 : 0;
    if (!need || need > n || s[0] < 0xC2 || s[0] > 0xF4) return 0;
    for (size_t i = 1; i < need; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (s[0] == 0xE0 && s[1] < 0xA0) return 0; /* overlong */
    if (s[0] == 0xED && s[1] > 0x9F) return 0; /* surrogate */
    if (s[0] == 0xF0 && s[1] < 0x90) return 0; /* overlong */
    if (s[0] == 0xF4 && s[1] > 0x8F) return 0; /* above U+10FFFF */
    return need;
}

char *srv_utf8_clean(const char *s, size_t n)
{
    char *out = malloc(n * 3 + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = sequence((const unsigned char *)s + i, n - i);
        if (k) {
            memcpy(out + o, s + i, k), o += k, i += k;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3), o += 3, i++;
        }
    }
    out[o] = '\0';
    return out;
}
