/* guard.h — the checks a request passes on its headers alone, before any byte of its body is kept:
 * the API key, the Host and Origin of a keyless loopback server, and unambiguous message framing.
 *
 * Pure functions over header values (the HTTP layer gathers them), so each is unit-tested alone.
 * Each returns 0, or fills *err (status, message naming the header) and returns -1.
 */
#ifndef TS_SERVER_GUARD_H
#define TS_SERVER_GUARD_H

#include "server/request.h"

#include <stdbool.h>
#include <stddef.h>

/* `Authorization: Bearer KEY` (the scheme in any case, one or more spaces): the key is compared in
 * time that depends on neither where it differs nor the key's length. NULL authorization: false. */
bool srv_guard_key_matches(const char *authorization, const char *key);

/* Message framing (RFC 9112 §6.3): every Content-Length value equal and a plain decimal number,
 * no Content-Length beside Transfer-Encoding, and `chunked` as the only coding. 400 otherwise —
 * a second, different length is how requests are smuggled past a proxy. */
int srv_guard_framing(const char *const *content_length, int n_content_length, const char *const *transfer_encoding,
                      int n_transfer_encoding, srv_error *err);

/* Whether `host` (the listen address) is a loopback address. */
bool srv_guard_is_loopback(const char *host);

/* A keyless loopback server answers only requests whose Host names this machine (localhost,
 * 127.x.y.z, [::1], any port) and whose Origin, when present, is in `allowed` (comma-separated
 * exact values; "*" admits any): a web page elsewhere cannot drive it (CSRF, DNS rebinding). 403. */
int srv_guard_origin(const char *host_header, const char *origin, const char *allowed, srv_error *err);

#endif
