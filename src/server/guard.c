/* guard.c — header-only request checks: API key, Host/Origin, framing. See guard.h. */
#include "server/guard.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool srv_guard_key_matches(const char *authorization, const char *key)
{
    if (!authorization || !key) return false;
    if (strncasecmp(authorization, "Bearer", 6) || (authorization[6] != ' ' && authorization[6] != '\t')) return false;
    const char *given = authorization + 6;
    while (*given == ' ' || *given == '\t') given++;
    /* Every byte of the longer string is visited and the lengths are folded into the difference,
     * so the time says nothing about the first differing byte or the key's length. */
    size_t n_given = strlen(given), n_key = strlen(key), n = n_given > n_key ? n_given : n_key;
    volatile uint8_t diff = (uint8_t)(n_given != n_key);
    for (size_t i = 0; i < n; i++) {
        uint8_t a = i < n_given ? (uint8_t)given[i] : 0, b = i < n_key ? (uint8_t)key[i] : 0;
        diff |= (uint8_t)(a ^ b);
    }
    return diff == 0;
}

static bool decimal(const char *v)
{
    while (*v == ' ' || *v == '\t') v++;
    if (!isdigit((unsigned char)*v)) return false;
    while (isdigit((unsigned char)*v)) v++;
    while (*v == ' ' || *v == '\t') v++;
    return *v == 0;
}

int srv_guard_framing(const char *const *content_length, int n_content_length, const char *const *transfer_encoding,
                      int n_transfer_encoding, srv_error *err)
{
    for (int i = 0; i < n_content_length; i++) {
        if (!decimal(content_length[i]))
            return srv_fail(err, 400, "", "Content-Length '%.40s' is not a decimal number of bytes", content_length[i]);
        if (i && strtoull(content_length[i], NULL, 10) != strtoull(content_length[0], NULL, 10))
            return srv_fail(err, 400, "", "two different Content-Length headers (%.40s and %.40s): the request is ambiguous",
                            content_length[0], content_length[i]);
    }
    if (n_transfer_encoding && n_content_length)
        return srv_fail(err, 400, "", "Content-Length and Transfer-Encoding together: the request is ambiguous");
    if (n_transfer_encoding > 1) return srv_fail(err, 400, "", "more than one Transfer-Encoding header");
    if (n_transfer_encoding) {
        const char *v = transfer_encoding[0];
        while (*v == ' ' || *v == '\t') v++;
        size_t n = strlen(v);
        while (n && (v[n - 1] == ' ' || v[n - 1] == '\t')) n--;
        if (n != 7 || strncasecmp(v, "chunked", 7))
            return srv_fail(err, 400, "", "Transfer-Encoding '%.40s' is not supported (only chunked)", transfer_encoding[0]);
    }
    return 0;
}

bool srv_guard_is_loopback(const char *host)
{
    return !host || !strncmp(host, "127.", 4) || !strcmp(host, "::1") || !strcmp(host, "localhost");
}

/* The host part of a Host header or of an Origin's authority: "[::1]:8080" → "[::1]". */
static size_t host_part(const char *v)
{
    if (*v == '[') {
        const char *close = strchr(v, ']');
        return close ? (size_t)(close - v) + 1 : strlen(v);
    }
    return strcspn(v, ":");
}

static bool local_name(const char *v, size_t n)
{
    if (n == 9 && !strncasecmp(v, "localhost", 9)) return true;
    if (n == 5 && !strncmp(v, "[::1]", 5)) return true;
    if (n < 4 || n > 15 || strncmp(v, "127.", 4)) return false;
    for (size_t i = 4; i < n; i++)
        if (!isdigit((unsigned char)v[i]) && v[i] != '.') return false;
    return true;
}

static bool listed(const char *origin, const char *allowed)
{
    size_t n = strlen(origin);
    for (const char *p = allowed; p && *p;) {
        while (*p == ' ' || *p == ',') p++;
        size_t m = strcspn(p, ",");
        size_t t = m;
        while (t && p[t - 1] == ' ') t--;
        if ((t == 1 && *p == '*') || (t == n && !strncmp(p, origin, n))) return true;
        p += m;
    }
    return false;
}

int srv_guard_origin(const char *host_header, const char *origin, const char *allowed, srv_error *err)
{
    if (allowed && listed("*", allowed)) return 0;
    if (!host_header || !local_name(host_header, host_part(host_header)))
        return srv_fail(err, 403, "", "Host '%.80s' is not this machine: a keyless loopback server answers only local names "
                                      "(--api-key, or --allowed-origins '*', to serve others)",
                        host_header ? host_header : "");
    if (origin && !listed(origin, allowed))
        return srv_fail(err, 403, "", "Origin '%.80s' is not allowed: a keyless loopback server refuses web pages' requests "
                                      "(--allowed-origins ORIGIN to admit it)",
                        origin);
    return 0;
}
