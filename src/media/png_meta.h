/* png_meta.h — the EXIF orientation PIL finds in a PNG's metadata chunks.
 *
 * Walks every chunk up to IEND (bounds-checked; a chunk running past the end stops the walk) and
 * follows PIL 9's getexif: the last eXIf chunk, else a "Raw profile type exif" text chunk
 * (ImageMagick's hex dump), gives the EXIF block; if that has no orientation tag, the
 * "XML:com.adobe.xmp" text chunk's tiff:Orientation does. Text may be tEXt, zTXt or iTXt
 * (compressed text is inflated up to 1 MB, PIL's cap). Returns 1..8, or 0 for none. Never fails.
 */
#ifndef TS_MEDIA_PNG_META_H
#define TS_MEDIA_PNG_META_H

#include <stddef.h>
#include <stdint.h>

int ts_png_orientation(const uint8_t *data, size_t len);

#endif
