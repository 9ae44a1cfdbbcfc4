/* checkfail: how the index structures' invariant checkers report the first violation
 * they find — a formatted message into the caller's buffer, and false. */
#ifndef ELOG_CHECKFAIL_H
#define ELOG_CHECKFAIL_H

#include <stdbool.h>
#include <stddef.h>

/* Format into why (why_len bytes; NULL or 0 writes nothing) and return false. */
bool checkfail(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
