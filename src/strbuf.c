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
strbuf_append(strbuf *sb, const void *p, size_t n)
{
    strbuf_reserve(sb, n);
    if (n)
        memcpy(sb->data + sb->len, p, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

void
strbuf_puts(strbuf *sb, const char *s)
{
    strbuf_append(sb, s, strlen(s));
}

void
strbuf_putc(strbuf *sb, char ch)
{
    strbuf_reserve(sb, 1);
    sb->data[sb->len++] = ch;
    sb->data[sb->len] = '\0';
}

void
strbuf_u64(strbuf *sb, uint64_t v)
{
    char tmp[24];
    int i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    strbuf_append(sb, tmp + i, sizeof tmp - (size_t)i);
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
