/* strbuf: growable output buffer with fast integer formatting. */
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "xalloc.h"

void
strbuf_init(strbuf *sb)
{
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

void
strbuf_free(strbuf *sb)
{
    x_free(sb->data);
    strbuf_init(sb);
}

void
strbuf_reset(strbuf *sb)
{
    sb->len = 0;
    if (sb->data)
        sb->data[0] = '\0';
}

void
strbuf_reserve(strbuf *sb, size_t n)
{
    if (sb->len + n + 1 <= sb->cap)
        return;
    size_t cap = sb->cap ? sb->cap : 256;
    while (cap < sb->len + n + 1)
        cap *= 2;
    sb->data = xreallocarray(sb->data, cap, 1);
    sb->cap = cap;
}

void
strbuf_puts(strbuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
}

static const char strbuf_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

void
strbuf_u64(strbuf *sb, uint64_t v)
{
    static const uint64_t pow10[] = {
        10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
        1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
        10000000000000ull, 100000000000000ull, 1000000000000000ull,
        10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
        10000000000000000000ull,
    };
    unsigned digits = 1;
    while (digits < 20 && v >= pow10[digits - 1])
        digits++;
    if (sb->len + digits + 1 > sb->cap)
        strbuf_reserve(sb, digits);
    char *end = sb->data + sb->len + digits;
    char *p = end;
    while (v >= 100) {
        uint64_t q = v / 100;
        unsigned pair = (unsigned)(v - q * 100) * 2;
        v = q;
        *--p = strbuf_digit_pairs[pair + 1];
        *--p = strbuf_digit_pairs[pair];
    }
    if (v >= 10) {
        *--p = strbuf_digit_pairs[v * 2 + 1];
        *--p = strbuf_digit_pairs[v * 2];
    } else {
        *--p = (char)('0' + v);
    }
    sb->len += digits;
    *end = '\0';
}

void
strbuf_i64(strbuf *sb, int64_t v)
{
    if (v < 0) {
        strbuf_putc(sb, '-');
        strbuf_u64(sb, (uint64_t)0 - (uint64_t)v);
    } else {
        strbuf_u64(sb, (uint64_t)v);
    }
}

void
strbuf_hex(strbuf *sb, uint64_t v)
{
    char tmp[17];
    int i = sizeof tmp;
    do {
        tmp[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    strbuf_append(sb, tmp + i, sizeof tmp - (size_t)i);
}

void
strbuf_printf(strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        strbuf_append(sb, small, (size_t)n);
        return;
    }
    strbuf_reserve(sb, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}
