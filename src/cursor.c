/* cursor: out-of-line parts of the bounds-checked big-endian reader. */
#include "cursor.h"

#include <string.h>

bool
cursor_cstr(cursor *c, const uint8_t **s, size_t *n)
{
    if (c->failed)
        return false;
    const uint8_t *start = c->base + c->pos;
    const uint8_t *nul = memchr(start, 0, c->len - c->pos);
    if (!nul) {
        c->failed = true;
        c->pos = c->len;
        return false;
    }
    *s = start;
    *n = (size_t)(nul - start);
    c->pos += *n + 1;
    return true;
}
