/* strbuf: a growable byte buffer for building output text without per-piece
 * allocation. */
#ifndef ELOG_STRBUF_H
#define ELOG_STRBUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct strbuf {
    char *data;     /* owned; NUL-terminated after every append */
    size_t len;
    size_t cap;
} strbuf;

/* Start empty (no allocation until the first append). Free with strbuf_free. */
void strbuf_init(strbuf *sb);
void strbuf_free(strbuf *sb);
void strbuf_reset(strbuf *sb);
/* Make room for `n` more bytes. */
void strbuf_reserve(strbuf *sb, size_t n);
void strbuf_puts(strbuf *sb, const char *s);

static inline void
strbuf_append(strbuf *sb, const void *p, size_t n)
{
    if (sb->len + n + 1 > sb->cap)
        strbuf_reserve(sb, n);
    if (n)
        memcpy(sb->data + sb->len, p, n);
    sb->len += n;
    sb->data[sb->len] = '\0';
}

static inline void
strbuf_putc(strbuf *sb, char ch)
{
    if (sb->len + 2 > sb->cap)
        strbuf_reserve(sb, 1);
    sb->data[sb->len++] = ch;
    sb->data[sb->len] = '\0';
}

void strbuf_u64(strbuf *sb, uint64_t v);
void strbuf_i64(strbuf *sb, int64_t v);
/* Lowercase hexadecimal, no prefix or padding. */
void strbuf_hex(strbuf *sb, uint64_t v);
void strbuf_printf(strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
