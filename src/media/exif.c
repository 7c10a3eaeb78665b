/* exif.c — TIFF header and IFD0 walk for the orientation tag. */
#include "media/exif.h"

#include <string.h>

enum { TAG_ORIENTATION = 0x0112, TYPE_SHORT = 3, TYPE_LONG = 4, TYPE_SSHORT = 8, TYPE_SLONG = 9 };

typedef struct tiff {
    const uint8_t *data;
    size_t len;
    int big_endian;
} tiff;

/* Each reader reports failure instead of touching bytes past len. */
static int read_u16(const tiff *t, size_t at, uint32_t *v)
{
    if (at > t->len || t->len - at < 2) return 0;
    const uint8_t *p = t->data + at;
    *v = t->big_endian ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
    return 1;
}

static int read_u32(const tiff *t, size_t at, uint32_t *v)
{
    if (at > t->len || t->len - at < 4) return 0;
    const uint8_t *p = t->data + at;
    *v = t->big_endian ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                       : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
    return 1;
}

int ts_exif_orientation(const uint8_t *data, size_t len)
{
    if (!data) return 0;
    if (len >= 6 && memcmp(data, "Exif\0\0", 6) == 0) {
        data += 6;
        len -= 6;
    }
    tiff t = {data, len, 0};
    if (len >= 4 && memcmp(data, "II*\0", 4) == 0) {
        t.big_endian = 0;
    } else if (len >= 4 && memcmp(data, "MM\0*", 4) == 0) {
        t.big_endian = 1;
    } else {
        return 0;
    }
    uint32_t ifd, count;
    if (!read_u32(&t, 4, &ifd) || !read_u16(&t, ifd, &count)) return 0;
    int orientation = 0;
    for (uint32_t i = 0; i < count; i++) {
        size_t entry = (size_t)ifd + 2 + (size_t)i * 12;
        uint32_t tag, type, n, value;
        /* A directory cut short keeps what was read before the cut, as PIL does. */
        if (!read_u16(&t, entry, &tag) || !read_u16(&t, entry + 2, &type) ||
            !read_u32(&t, entry + 4, &n) || !read_u32(&t, entry + 8, &value))
            break;
        if (tag != TAG_ORIENTATION) continue;
        /* Later duplicates win (PIL's tag dict overwrites). Anything but one integer is present
         * yet means nothing (PIL gets bytes or a tuple and its transpose lookup misses). */
        orientation = 1;
        if (n != 1) continue;
        if (type == TYPE_SHORT || type == TYPE_SSHORT) {
            value = t.big_endian ? value >> 16 : value & 0xffff;
            if (type == TYPE_SSHORT && value >= 0x8000) continue;
        } else if (type != TYPE_LONG && type != TYPE_SLONG) {
            continue;
        }
        if (value >= 1 && value <= 8) orientation = (int)value;
    }
    return orientation;
}
