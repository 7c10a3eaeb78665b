/* exif.h — the orientation tag (0x0112) of an EXIF block, read defensively.
 *
 * Input is the TIFF structure as found in a JPEG APP1 "Exif\0\0" segment, a PNG eXIf chunk or a
 * WebP EXIF chunk; a leading "Exif\0\0" is skipped (PIL's Exif.load does the same). Every read is
 * bounds-checked against len. Returns 0 when there is no orientation tag (or no readable
 * block), 1..8 when there is one; a tag that is not a single SHORT/LONG in 1..8 counts as 1 (as
 * stored), which is what PIL's exif_transpose makes of it. A broken EXIF block is metadata damage
 * and does not fail the decode: PIL's getexif keeps what it could read.
 */
#ifndef TS_MEDIA_EXIF_H
#define TS_MEDIA_EXIF_H

#include <stddef.h>
#include <stdint.h>

int ts_exif_orientation(const uint8_t *data, size_t len);

#endif
