/* statsfmt: a gcstats_report as text — the rows of GHC's `+RTS -s` that an eventlog
 * can know, in the RTS's layout and number formats (CPU columns print "n/a"), then
 * elog-tui's own section: pause percentiles and the longest pauses. */
#ifndef ELOG_STATSFMT_H
#define ELOG_STATSFMT_H

#include <stdint.h>

#include "gcstats.h"
#include "strbuf.h"

/* Append the whole report to `sb` (lines end in '\n'). */
void statsfmt_report(strbuf *sb, const gcstats_report *r);

/* Append `v` with thousands separators: 517,211,648. */
void statsfmt_commas(strbuf *sb, uint64_t v);

#endif
