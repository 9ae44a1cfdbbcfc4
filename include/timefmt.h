/* timefmt: durations and timestamps for users — parse "1.5s", "200ms", "35us",
 * "120ns" or a plain number of nanoseconds, and format nanoseconds with an
 * adaptive unit that the parser reads back. */
#ifndef ELOG_TIMEFMT_H
#define ELOG_TIMEFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"

/* Parse all of `s`: digits, an optional fraction, then a unit (s, ms, us, ns);
 * without a unit the number is whole nanoseconds. Digits below 1 ns are dropped.
 * False (and *ns untouched) if `s` is malformed or exceeds UINT64_MAX ns. */
bool timefmt_parse(const char *s, uint64_t *ns);

/* Append `ns` in the largest unit in which it is at least 1, with 3 decimals:
 * "999ns", "35.120us", "200.000ms", "1.500s". */
void timefmt_append(strbuf *sb, uint64_t ns);

#endif
