/* json_strings.h — refuses a request body whose JSON strings hold what a C string cannot carry
 * intact: an escaped NUL (\u0000), which would cut the string where it stands, and raw control
 * bytes (below 0x20), which JSON itself forbids. Run on the raw body before it is parsed, so no
 * string is ever silently truncated ("user\u0000x" is not "user").
 *
 * Returns 0, or a 400 in *err whose param names the field ("messages[1].content") and -1.
 * Anything else that is malformed is left for the JSON parser to report.
 */
#ifndef TS_SERVER_JSON_STRINGS_H
#define TS_SERVER_JSON_STRINGS_H

#include "server/request.h"

#include <stddef.h>

int srv_json_check_strings(const char *body, size_t len, srv_error *err);

#endif
