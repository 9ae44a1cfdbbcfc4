/* cursor: the one bounds-checked big-endian reader over untrusted bytes. A read
 * past the end sets a sticky `failed` flag and yields zeros; callers check once. */
#ifndef ELOG_CURSOR_H
#define ELOG_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cursor {
    const uint8_t *base;   /* borrowed; not owned */
    size_t len;
    size_t pos;
    bool failed;
} cursor;

static inline void
cursor_init(cursor *c, const uint8_t *base, size_t len)
{
    c->base = base;
    c->len = len;
    c->pos = 0;
    c->failed = false;
}

static inline size_t
cursor_left(const cursor *c)
{
    return c->len - c->pos;
}

/* Claim `n` bytes: a pointer to them, or NULL (and failed) if fewer remain. */
static inline const uint8_t *
cursor_take(cursor *c, size_t n)
{
    if (c->failed || n > c->len - c->pos) {
        c->failed = true;
        c->pos = c->len;
        return NULL;
    }
    const uint8_t *p = c->base + c->pos;
    c->pos += n;
    return p;
}

static inline uint8_t
cursor_u8(cursor *c)
{
    const uint8_t *p = cursor_take(c, 1);
    return p ? p[0] : 0;
}

static inline uint16_t
cursor_u16(cursor *c)
{
    const uint8_t *p = cursor_take(c, 2);
    return p ? (uint16_t)((p[0] << 8) | p[1]) : 0;
}

static inline uint32_t
cursor_u32(cursor *c)
{
    const uint8_t *p = cursor_take(c, 4);
    return p ? ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]
             : 0;
}

static inline uint64_t
cursor_u64(cursor *c)
{
    const uint8_t *p = cursor_take(c, 8);
    if (!p)
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

/* A NUL-terminated string: sets *s and *n (length without the NUL) and consumes
 * the NUL. Fails (returns false, sets failed) if no NUL remains in range. */
bool cursor_cstr(cursor *c, const uint8_t **s, size_t *n);

/* Big-endian helpers for raw pointers already bounds-checked by the caller. */
static inline uint16_t
cursor_be16(const uint8_t *p)
{
    return (uint16_t)((p[0] << 8) | p[1]);
}

static inline uint32_t
cursor_be32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline uint64_t
cursor_be64(const uint8_t *p)
{
    return ((uint64_t)cursor_be32(p) << 32) | cursor_be32(p + 4);
}

#endif
