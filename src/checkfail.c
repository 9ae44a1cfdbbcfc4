/* checkfail: the invariant checkers' one way to say what is wrong. */
#include "checkfail.h"

#include <stdarg.h>
#include <stdio.h>

bool
checkfail(char *why, size_t why_len, const char *fmt, ...)
{
    if (why && why_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return false;
}
