/* diag: error values carrying a code, a byte offset and a message. */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

void
diag_clear(diag *d)
{
    d->code = DIAG_OK;
    d->offset = DIAG_NO_OFFSET;
    d->msg[0] = '\0';
}

bool
diag_set(diag *d, enum diag_code code, uint64_t offset, const char *fmt, ...)
{
    if (!d)
        return false;
    d->code = code;
    d->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return false;
}

void
diag_format(const diag *d, const char *file, char *buf, unsigned buf_len)
{
    if (d->offset == DIAG_NO_OFFSET)
        snprintf(buf, buf_len, "%s: %s", file, d->msg);
    else
        snprintf(buf, buf_len, "%s: %s at byte %llu", file, d->msg,
                 (unsigned long long)d->offset);
}
