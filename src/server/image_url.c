/* image_url.c — an image part's URL to its encoded bytes: data: decoded, file:// read under the
 * media root, anything else refused with the reason (see image_url.h). */
#include "server/image_url.h"
#include "base/text_escape.h"
#include "server/base64.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static bool has_prefix(const char *s, const char *prefix)
{
    return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static int load_data_url(const char *url, const char *where, const char *param,
                         const srv_limits *limits, uint8_t **out, size_t *out_len, srv_error *err)
{
    const char *meta = url + strlen("data:");
    const char *comma = strchr(meta, ',');
    size_t mime_len = strcspn(meta, ";,");
    char shown[SRV_CLIP];
    if (mime_len <= strlen("image/") || !has_prefix(meta, "image/"))
        return srv_fail(err, 400, param, "%s: the data: URL is not an image (data:%s)", where,
                        srv_clip(shown, sizeof shown, meta, mime_len));
    /* RFC 2397: ";base64" is the last parameter, right before the comma. */
    size_t meta_len = comma ? (size_t)(comma - meta) : 0;
    if (!comma || meta_len < 7 || strncasecmp(comma - 7, ";base64", 7) != 0)
        return srv_fail(err, 400, param,
                        "%s: the data: URL must be base64 (data:<image type>;base64,<data>)",
                        where);
    return srv_base64_decode(comma + 1, where, param, "image", limits->max_image_bytes, out, out_len, err);
}

/* The path of file://[localhost]/path, percent-decoded; owned. Query and fragment are dropped
 * as URL syntax says (a '?' or '#' in a file name must be written %3F, %23). */
static int file_url_path(const char *url, const char *where, const char *param, char **out,
                         srv_error *err)
{
    const char *rest = url + strlen("file://");
    size_t host = strcspn(rest, "/");
    char shown[SRV_CLIP];
    if (host && !(host == 9 && strncasecmp(rest, "localhost", 9) == 0))
        return srv_fail(err, 400, param,
                        "%s: file:// URL names the host \"%s\"; only local files (file:///path) "
                        "are read",
                        where, srv_clip(shown, sizeof shown, rest, host));
    const char *path = rest + host;
    size_t n = strcspn(path, "?#");
    if (n == 0) return srv_fail(err, 400, param, "%s: file:// URL has no path", where);
    char *decoded = malloc(n + 1);
    if (!decoded) return srv_fail(err, 500, "", "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (path[i] != '%') {
            decoded[k++] = path[i];
            continue;
        }
        int hi = i + 2 < n ? ts_hex_value(path[i + 1]) : -1;
        int lo = hi >= 0 ? ts_hex_value(path[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
            free(decoded);
            return srv_fail(err, 400, param,
                            "%s: file:// URL has a bad percent escape at offset %zu of the path",
                            where, i);
        }
        decoded[k++] = (char)(hi << 4 | lo);
        i += 2;
    }
    decoded[k] = '\0';
    *out = decoded;
    return 0;
}

/* Reads a file:// image only when its real path (symlinks resolved) lies strictly under the
 * real media root. A missing file and one outside the root get the same answer, so the server
 * is no oracle for what exists elsewhere on the machine. */
static int load_file_url(const char *url, const char *where, const char *param,
                         const srv_limits *limits, uint8_t **out, size_t *out_len, srv_error *err)
{
    if (!limits->media_root)
        return srv_fail(err, 400, param,
                        "%s: file:// image URLs are refused: this server has no media root; send "
                        "the image as a data: URL",
                        where);
    char *path = NULL;
    if (file_url_path(url, where, param, &path, err)) return -1;
    char *root = realpath(limits->media_root, NULL);
    if (!root) {
        free(path);
        return srv_fail(err, 500, "", "the media root cannot be resolved: %s", strerror(errno));
    }
    char *real = realpath(path, NULL);
    free(path);
    size_t root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
    bool inside = real && strncmp(real, root, root_len) == 0 && real[root_len] == '/' &&
                  real[root_len + 1] != '\0';
    free(root);
    char shown[SRV_CLIP];
    srv_clip(shown, sizeof shown, url, strlen(url));
    if (!inside) {
        free(real);
        return srv_fail(err, 400, param, "%s: %s is not a file under the media root", where, shown);
    }
    /* O_NOFOLLOW: the checked path must be the file opened, not a link swapped in since. */
    int fd = open(real, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    free(real);
    if (fd < 0)
        return srv_fail(err, 400, param, "%s: cannot open %s: %s", where, shown, strerror(errno));
    struct stat st;
    int rc = 0;
    uint8_t *bytes = NULL;
    if (fstat(fd, &st) != 0) {
        rc = srv_fail(err, 400, param, "%s: cannot stat %s: %s", where, shown, strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        rc = srv_fail(err, 400, param, "%s: %s is not a regular file", where, shown);
    } else if (st.st_size == 0) {
        rc = srv_fail(err, 400, param, "%s: image file %s is empty", where, shown);
    } else if ((uintmax_t)st.st_size > limits->max_image_bytes) {
        rc = srv_fail(err, 400, param, "%s: image file %s is %lld bytes, at most %zu", where, shown,
                      (long long)st.st_size, limits->max_image_bytes);
    } else if (!(bytes = malloc((size_t)st.st_size))) {
        rc = srv_fail(err, 500, "", "out of memory");
    } else {
        size_t got = 0, want = (size_t)st.st_size;
        while (got < want) {
            ssize_t r = read(fd, bytes + got, want - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += (size_t)r;
        }
        if (got < want) {
            rc = srv_fail(err, 400, param, "%s: could not read all of %s", where, shown);
        } else {
            *out = bytes;
            *out_len = want;
            bytes = NULL;
        }
    }
    free(bytes);
    close(fd);
    return rc;
}

int srv_image_url_load(const char *url, const char *where, const char *param,
                       const srv_limits *limits, uint8_t **out, size_t *out_len, srv_error *err)
{
    int rc;
    if (has_prefix(url, "data:")) {
        rc = load_data_url(url, where, param, limits, out, out_len, err);
    } else if (has_prefix(url, "file://")) {
        rc = load_file_url(url, where, param, limits, out, out_len, err);
    } else if (has_prefix(url, "http://") || has_prefix(url, "https://")) {
        rc = srv_fail(err, 400, param,
                      "%s: remote image URLs are not fetched by this server; send the image as a "
                      "data: URL",
                      where);
    } else {
        size_t scheme = strcspn(url, ":/?#");
        char shown[SRV_CLIP];
        if (url[scheme] == ':' && scheme > 0)
            rc = srv_fail(err, 400, param,
                          "%s: image URL scheme \"%s\" is not supported; send the image as a "
                          "data: URL",
                          where, srv_clip(shown, sizeof shown, url, scheme));
        else
            rc = srv_fail(err, 400, param,
                          "%s: the image URL is not a data: URL (nor file://); send the image as "
                          "a data: URL",
                          where);
    }
    return rc;
}
