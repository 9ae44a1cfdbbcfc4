/* timefmt: durations and timestamps for users — parse "1.5s", "200ms", "35us",
 * "120ns", "1m30s" or a plain number of nanoseconds, and format nanoseconds with an
 * adaptive unit that the parser reads back. Timestamps are the log's own clock (ns since
 * the RTS started, as `ghc-events show` prints them); nothing here subtracts a start. */
#ifndef ELOG_TIMEFMT_H
#define ELOG_TIMEFMT_H

#include <stdbool.h>
#include <stdint.h>

#include "strbuf.h"

/* Parse all of `s`: digits, an optional fraction, then a unit (s, ms, us or µs, ns);
 * without a unit the number is whole nanoseconds. Whole hours and minutes may come first,
 * as the axis writes them: "1h", "1h5m", "2m0.5s", "1h0m5s". Digits below 1 ns are dropped.
 * False (and *ns untouched) if `s` is malformed or exceeds UINT64_MAX ns. */
bool timefmt_parse(const char *s, uint64_t *ns);

/* Append `ns` in the largest unit in which it is at least 1, with 3 decimals:
 * "999ns", "35.120us", "200.000ms", "1.500s". */
void timefmt_append(strbuf *sb, uint64_t ns);

/* Append `ns` rounded half-up to a multiple of r, the largest power of ten not above
 * `res_ns` (r = 1 for 0 or 1), in the largest unit in which the rounded value is at least
 * 1, with exactly the decimals r needs (none if r is a whole number of the unit):
 * res 1000 gives "63.981ms", "1.000001s", "999.999us", "0ns"; res 1 "24.450248ms";
 * res 10^7 "20ms". Two times at least res_ns apart never print the same. */
void timefmt_append_res(strbuf *sb, uint64_t ns, uint64_t res_ns);

/* The largest power of ten not above `ns` (1 for 0): the resolution at which times
 * `ns` apart (neighbouring items, screen columns) print differently. */
uint64_t timefmt_res(uint64_t ns);

#endif
