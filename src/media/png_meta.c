/* png_meta.c — eXIf, "Raw profile type exif" and XMP orientation from PNG chunks. */
#include "media/png_meta.h"
#include "base/text_escape.h"

#include "media/exif.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

enum { MAX_TEXT = 1024 * 1024 }; /* PIL's MAX_TEXT_CHUNK: larger text is dropped */

/* A text chunk's value: either borrowed from the file or inflated into `owned`. */
typedef struct text {
    const uint8_t *data;
    size_t len;
    uint8_t *owned;
} text;

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int inflate_text(const uint8_t *in, size_t len, text *out)
{
    uint8_t *buf = malloc(MAX_TEXT);
    if (!buf) return 0;
    z_stream z = {0};
    if (inflateInit(&z) != Z_OK) {
        free(buf);
        return 0;
    }
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)(len > UINT32_MAX ? UINT32_MAX : len);
    z.next_out = buf;
    z.avail_out = MAX_TEXT;
    int rc = inflate(&z, Z_FINISH);
    size_t produced = MAX_TEXT - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) { /* corrupt, truncated or over the cap: PIL drops it too */
        free(buf);
        return 0;
    }
    out->data = out->owned = buf;
    out->len = produced;
    return 1;
}

/* The value of a tEXt/zTXt/iTXt chunk named `keyword`, or 0 if it is another or unreadable. */
static int text_value(const char *type, const uint8_t *body, size_t len, const char *keyword,
                      text *out)
{
    size_t k = strlen(keyword);
    if (len < k + 1 || memcmp(body, keyword, k) != 0 || body[k] != 0) return 0;
    const uint8_t *p = body + k + 1, *end = body + len;
    if (memcmp(type, "tEXt", 4) == 0) {
        out->data = p;
        out->len = (size_t)(end - p);
        return 1;
    }
    if (memcmp(type, "zTXt", 4) == 0) /* method byte, then zlib data */
        return end - p >= 1 && p[0] == 0 && inflate_text(p + 1, (size_t)(end - p - 1), out);
    if (memcmp(type, "iTXt", 4) != 0 || end - p < 2) return 0;
    int compressed = p[0], method = p[1];
    p += 2;
    for (int field = 0; field < 2; field++) { /* language tag, translated keyword */
        const uint8_t *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) return 0;
        p = nul + 1;
    }
    if (!compressed) {
        out->data = p;
        out->len = (size_t)(end - p);
        return 1;
    }
    return method == 0 && inflate_text(p, (size_t)(end - p), out);
}

static void text_replace(text *slot, text value)
{
    free(slot->owned);
    *slot = value;
}

/* PIL: bytes.fromhex("".join(value.split("\n")[3:])), i.e. skip three lines ("", "exif",
 * the length), then hex with whitespace ignored. Invalid hex gives no EXIF. */
static int raw_profile_orientation(const text *t)
{
    const uint8_t *p = t->data, *end = t->data + t->len;
    for (int line = 0; line < 3; line++) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) return 0;
        p = nl + 1;
    }
    uint8_t *bytes = malloc((size_t)(end - p) / 2 + 1);
    if (!bytes) return 0;
    size_t n = 0;
    int high = -1, ok = 1;
    for (; p < end && ok; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') {
            ok = high < 0; /* fromhex allows space only between byte pairs */
            continue;
        }
        int d = ts_hex_value(*p);
        if (d < 0) {
            ok = 0;
        } else if (high < 0) {
            high = d;
        } else {
            bytes[n++] = (uint8_t)(high << 4 | d);
            high = -1;
        }
    }
    int orientation = ok && high < 0 ? ts_exif_orientation(bytes, n) : 0;
    free(bytes);
    return orientation;
}

/* PIL: re.search(r'tiff:Orientation(="|>)([0-9])', xmp), the first match. */
static int xmp_orientation(const text *t)
{
    static const char needle[] = "tiff:Orientation";
    const size_t k = sizeof(needle) - 1;
    for (size_t i = 0; t->len >= k && i + k <= t->len; i++) {
        if (memcmp(t->data + i, needle, k) != 0) continue;
        size_t at = i + k;
        if (at < t->len && t->data[at] == '>')
            at += 1;
        else if (at + 1 < t->len && t->data[at] == '=' && t->data[at + 1] == '"')
            at += 2;
        else
            continue;
        /* 0 and 9 are found, and mean nothing: exif_transpose has no method for them. */
        if (at < t->len && t->data[at] >= '1' && t->data[at] <= '8') return t->data[at] - '0';
        if (at < t->len && (t->data[at] == '0' || t->data[at] == '9')) return 1;
    }
    return 0;
}

int ts_png_orientation(const uint8_t *data, size_t len)
{
    /* PIL reads the chunks before the image data when it opens the file; getexif() loads the rest
     * only when no eXIf came before it. */
    const uint8_t *exif = NULL, *exif_after = NULL;
    size_t exif_len = 0, exif_after_len = 0;
    bool after_image = false;
    text raw = {0}, xmp = {0};
    for (size_t at = 8; len >= at && len - at >= 12;) {
        size_t n = be32(data + at);
        if (n > len - at - 12) break;
        const char *type = (const char *)data + at + 4;
        const uint8_t *body = data + at + 8;
        text value = {0};
        if (memcmp(type, "IEND", 4) == 0) break;
        if (memcmp(type, "IDAT", 4) == 0) after_image = true;
        if (memcmp(type, "eXIf", 4) == 0 && !after_image) { /* later chunks overwrite earlier ones in PIL */
            exif = body;
            exif_len = n;
        } else if (memcmp(type, "eXIf", 4) == 0) {
            exif_after = body;
            exif_after_len = n;
        } else if (text_value(type, body, n, "Raw profile type exif", &value)) {
            text_replace(&raw, value);
        } else if (text_value(type, body, n, "XML:com.adobe.xmp", &value)) {
            text_replace(&xmp, value);
        }
        at += 12 + n;
    }
    int orientation = 0;
    if (!exif) exif = exif_after, exif_len = exif_after_len;
    if (exif)
        orientation = ts_exif_orientation(exif, exif_len);
    else if (raw.data)
        orientation = raw_profile_orientation(&raw);
    if (orientation == 0 && xmp.data) orientation = xmp_orientation(&xmp);
    free(raw.owned);
    free(xmp.owned);
    return orientation;
}
