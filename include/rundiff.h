/* rundiff: two runs side by side (`elog-tui diff A B`) — the `+RTS -s` rows each log can
 * know with the change from A to B, pause percentiles and histograms per generation, the
 * durations between markers matched by name and occurrence, and the MMU at a few window
 * lengths. Pure formatting of two gcstats reports and two indexes. A change column says
 * "=" where the two values are the same, so `diff A A` shows no change anywhere. */
#ifndef ELOG_RUNDIFF_H
#define ELOG_RUNDIFF_H

#include "evindex.h"
#include "gcstats.h"
#include "strbuf.h"

typedef struct rundiff_side {
    const char *name;           /* shown in the title */
    const gcstats_report *r;    /* whole run (gcstats_finish) */
    const evindex *ix;
} rundiff_side;

/* Append the whole comparison. */
void rundiff_report(strbuf *out, const rundiff_side *a, const rundiff_side *b);

#endif
