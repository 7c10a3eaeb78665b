/* image.c — ts_image_decode/load/free: limits, sniffing, dispatch to a codec, orientation. */
#include "base/error.h"
#include "media/codec.h"
#include "media/image_format.h"
#include "media/orient.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* "400 MP", "1.5 MP" or "135300 pixels": a figure people read at a glance. */
static void format_pixels(char *buf, size_t cap, int64_t pixels)
{
    if (pixels >= 1000000 && pixels % 1000000 == 0)
        snprintf(buf, cap, "%lld MP", (long long)(pixels / 1000000));
    else if (pixels >= 1000000)
        snprintf(buf, cap, "%.1f MP", (double)pixels / 1e6);
    else
        snprintf(buf, cap, "%lld pixels", (long long)pixels);
}

ts_status ts_image_check_dims(const char *format, int64_t width, int64_t height,
                              const ts_image_limits *limits, ts_error *err)
{
    if (width <= 0 || height <= 0)
        return ts_error_set(err, TS_ERR_FORMAT, "%s: image has zero size (%lld×%lld)", format,
                            (long long)width, (long long)height);
    /* Both come from 16- or 32-bit header fields, so the product fits in int64_t. */
    int64_t pixels = width * height;
    if (pixels > limits->max_pixels || width > INT32_MAX / 4 || height > INT32_MAX / 4) {
        char have[32], limit[32];
        format_pixels(have, sizeof(have), pixels);
        format_pixels(limit, sizeof(limit), limits->max_pixels);
        return ts_error_set(err, TS_ERR_RANGE, "%s: image is %lld×%lld = %s, over the %s limit",
                            format, (long long)width, (long long)height, have, limit);
    }
    return TS_OK;
}

ts_status ts_image_alloc(ts_image *img, int width, int height, ts_error *err)
{
    size_t bytes = (size_t)width * (size_t)height * 3;
    img->rgb = malloc(bytes);
    if (!img->rgb) {
        img->width = img->height = 0;
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY,
                            "cannot allocate %zu bytes for a %d×%d image", bytes, width, height);
    }
    img->width = width;
    img->height = height;
    return TS_OK;
}

void ts_image_free(ts_image *img)
{
    if (!img) return;
    free(img->rgb);
    img->rgb = NULL;
    img->width = img->height = 0;
}

static ts_status resolve_limits(const ts_image_limits *given, ts_image_limits *out, ts_error *err)
{
    out->max_bytes = given && given->max_bytes ? given->max_bytes : TS_IMAGE_DEFAULT_MAX_BYTES;
    out->max_pixels = given && given->max_pixels ? given->max_pixels : TS_IMAGE_DEFAULT_MAX_PIXELS;
    if (out->max_pixels < 0)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT,
                            "image limits: max_pixels is negative (%lld)",
                            (long long)out->max_pixels);
    return TS_OK;
}

static ts_status check_bytes(size_t len, const ts_image_limits *limits, ts_error *err)
{
    if (len > limits->max_bytes)
        return ts_error_set(err, TS_ERR_RANGE, "image data is %zu bytes, over the %zu-byte limit",
                            len, limits->max_bytes);
    return TS_OK;
}

static ts_status decode(const uint8_t *data, size_t len, const ts_image_limits *limits,
                        ts_image *out, ts_error *err)
{
    ts_status st = check_bytes(len, limits, err);
    if (st != TS_OK) return st;
    if (len == 0) return ts_error_set(err, TS_ERR_FORMAT, "image data is empty (0 bytes)");
    ts_image_format format = ts_image_format_sniff(data, len);
    int orientation = 1;
    switch (format) {
    case TS_IMAGE_FORMAT_JPEG:
        st = ts_jpeg_decode(data, len, limits, out, &orientation, err);
        break;
    case TS_IMAGE_FORMAT_PNG:
        st = ts_png_decode(data, len, limits, out, &orientation, err);
        break;
    case TS_IMAGE_FORMAT_WEBP:
        st = ts_webp_decode(data, len, limits, out, &orientation, err);
        break;
    case TS_IMAGE_FORMAT_UNKNOWN: {
        char hex[3 * 8 + 1] = "";
        size_t n = len < 8 ? len : 8, at = 0;
        for (size_t i = 0; i < n; i++)
            at += (size_t)snprintf(hex + at, sizeof(hex) - at, i ? " %02x" : "%02x", data[i]);
        return ts_error_set(
            err, TS_ERR_UNSUPPORTED,
            "unknown image format (first bytes %s); JPEG, PNG and WebP are supported", hex);
    }
    default:
        return ts_error_set(err, TS_ERR_UNSUPPORTED,
                            "%s images are not supported (JPEG, PNG and WebP are)",
                            ts_image_format_name(format));
    }
    if (st != TS_OK) return st;
    st = ts_image_orient(out, orientation, err);
    if (st != TS_OK) ts_image_free(out);
    return st;
}

ts_status ts_image_decode(const void *data, size_t len, const ts_image_limits *limits,
                          ts_image *out, ts_error *err)
{
    out->width = out->height = 0;
    out->rgb = NULL;
    if (!data && len)
        return ts_error_set(err, TS_ERR_INVALID_ARGUMENT, "image data is NULL with length %zu",
                            len);
    ts_image_limits resolved;
    ts_status st = resolve_limits(limits, &resolved, err);
    if (st != TS_OK) return st;
    return decode(data, len, &resolved, out, err);
}

/* Reads with read(), not mmap: a file truncated while mapped would SIGBUS instead of failing. */
ts_status ts_image_load(const char *path, const ts_image_limits *limits, ts_image *out,
                        ts_error *err)
{
    out->width = out->height = 0;
    out->rgb = NULL;
    ts_image_limits resolved;
    ts_status st = resolve_limits(limits, &resolved, err);
    if (st != TS_OK) return st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ts_error_set(err, errno == ENOENT ? TS_ERR_NOT_FOUND : TS_ERR_IO, "%s: %s", path,
                            strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return ts_error_set(err, TS_ERR_IO, "%s: not a regular file", path);
    }
    size_t size = (size_t)sb.st_size;
    if ((st = check_bytes(size, &resolved, err)) != TS_OK) {
        close(fd);
        return ts_error_prefix(err, "%s: ", path);
    }
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        return ts_error_set(err, TS_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes", path, size);
    }
    size_t got = 0;
    int read_errno = 0;
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) read_errno = errno;
        if (n <= 0)
            break; /* a file that shrank is decoded as it is; the codec calls it truncated */
        got += (size_t)n;
    }
    close(fd);
    if (read_errno) {
        free(buf);
        return ts_error_set(err, TS_ERR_IO, "%s: read: %s", path, strerror(read_errno));
    }
    st = decode(buf, got, &resolved, out, err);
    free(buf);
    if (st != TS_OK && err) ts_error_prefix(err, "%s: ", path);
    return st;
}
