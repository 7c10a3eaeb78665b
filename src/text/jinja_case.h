/* jinja_case.h — the case mappings Python applies beyond one-to-one (ß → SS, İ → i̇, ﬁ → Fi).
 *
 * utf8proc gives the simple mappings; str.upper/lower/title and capitalize also apply
 * SpecialCasing's unconditional expansions, which this table holds (regenerate with:
 * [(c, chr(c).upper()) for c in range(0x110000) if len(chr(c).upper()) > 1], same for lower
 * and title). Pure data, no state.
 */
#ifndef TS_TEXT_JINJA_CASE_H
#define TS_TEXT_JINJA_CASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ts_jinja_case { TS_JINJA_UPPER, TS_JINJA_LOWER, TS_JINJA_TITLE } ts_jinja_case;

/* Writes the expansion of cp (2 or 3 code points) to out and returns its length; 0 when cp
 * has no multi-code-point mapping in that mode. */
size_t ts_jinja_special_case(int32_t cp, ts_jinja_case mode, int32_t out[3]);

/* Python's cased property beyond the Lu/Ll/Lt categories (Other_Lowercase/Other_Uppercase). */
bool ts_jinja_is_extra_cased(int32_t cp);

#endif
