/* textfmt: text from the log into output — UTF-8 validation with replacement,
 * Latin-1 conversion, Haskell `show` escaping, and ghc-events' rendering of
 * binary messages. The log's bytes are untrusted and may be any bytes. */
#ifndef ELOG_TEXTFMT_H
#define ELOG_TEXTFMT_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Decode one code point at p[*i] (n bytes total); advances *i. Returns the code point,
 * or -1 for an invalid byte (then *i advances by exactly one byte). */
int32_t textfmt_utf8_next(const uint8_t *p, size_t n, size_t *i);
/* Append UTF-8 `p[0..n)`, each invalid byte replaced by U+FFFD. */
void textfmt_append_utf8(strbuf *sb, const uint8_t *p, size_t n);
/* Append Latin-1 bytes as UTF-8. */
void textfmt_append_latin1(strbuf *sb, const uint8_t *p, size_t n);
/* Append a code point as UTF-8. */
void textfmt_append_cp(strbuf *sb, uint32_t cp);
/* Append Haskell's `show` of the string (quotes and escapes included). */
void textfmt_append_hs_show(strbuf *sb, const uint8_t *p, size_t n);
/* Append Haskell's `show` of the list of NUL-separated strings in `p` (trailing NULs
 * dropped first), e.g. ["prog","+RTS","-l"]. */
void textfmt_append_hs_list(strbuf *sb, const uint8_t *p, size_t n);
/* Append a binary payload as ghc-events prints it: UTF-8 decoded, every invalid
 * byte and every non-printable character shown as '.'. */
void textfmt_append_binary(strbuf *sb, const uint8_t *p, size_t n);
/* Approximation of Haskell's Data.Char.isPrint for a code point. */
int textfmt_is_print(uint32_t cp);

#endif
