/* jsonv: a strict JSON (RFC 8259) parser for the tests, written apart from anything the
 * program uses to write JSON, so a test of our output does not share its mistakes:
 * the whole text must be one value, strings must be valid UTF-8 with legal escapes,
 * numbers must follow the grammar. Parses into a small tree. */
#ifndef ELOG_JSONV_H
#define ELOG_JSONV_H

#include <stdbool.h>
#include <stddef.h>

typedef enum jsonv_type {
    JSONV_NULL, JSONV_FALSE, JSONV_TRUE, JSONV_NUMBER, JSONV_STRING, JSONV_ARRAY,
    JSONV_OBJECT,
} jsonv_type;

typedef struct jsonv jsonv;
struct jsonv {
    jsonv_type type;
    char *text;         /* STRING: decoded UTF-8 (NUL-terminated; may hold NULs, see len);
                         * NUMBER: the number's own characters */
    size_t len;         /* bytes of text */
    jsonv *items;       /* ARRAY and OBJECT: n values */
    char **keys;        /* OBJECT: n decoded keys */
    size_t n;
};

/* Parse `len` bytes. NULL on any error, with a message and the byte offset in `why`.
 * Caller frees with jsonv_free. */
jsonv *jsonv_parse(const char *text, size_t len, char *why, size_t why_len);
void jsonv_free(jsonv *v);
/* The member `key` of an object, or NULL (also when v is not an object). */
const jsonv *jsonv_get(const jsonv *v, const char *key);
/* A member's string, or NULL if absent or not a string. */
const char *jsonv_str(const jsonv *v, const char *key);
/* A number written with no exponent and at most `decimals` fractional digits, as an
 * integer scaled by 10^decimals ("12.5" with decimals 3 is 12500). False if `v` is
 * not such a number (negative numbers included). */
bool jsonv_fixed(const jsonv *v, unsigned decimals, unsigned long long *out);

#endif
