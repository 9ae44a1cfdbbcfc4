/* sparklanes: ThreadScope's per-HEC spark graphs — sparks created and converted (run
 * locally or stolen and run) in a time range, and the spark pool's size — from the
 * per-spark events (-lf) when the log has them, else from the SPARK_COUNTERS samples
 * (cumulative counts, read as growing at a steady rate between two samples). Pure
 * functions of the index; the lanes module draws them, the detail pane names them. */
#ifndef ELOG_SPARKLANES_H
#define ELOG_SPARKLANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "detail.h"
#include "evindex.h"
#include "lanes.h"

/* Whether evindex lane `li` ever created, converted or pooled a spark (its counters
 * above zero, or spark events on it): only such HECs get spark lanes. */
bool sparklanes_cap_active(const evindex *ix, size_t li);
/* The log has per-spark events (-lf) on some capability: counts are then exact. */
bool sparklanes_exact(const evindex *ix);

/* Sparks created on lane `li` in [t0, t1): SPARK_CREATE events there, or the rise of
 * its counter (interpolated between samples). */
double sparklanes_created(const evindex *ix, size_t li, uint64_t t0, uint64_t t1);
/* Sparks converted on it: SPARK_RUN + SPARK_STEAL events (a stolen spark is converted
 * by the thief, which posts the event), or the rise of its counter. */
double sparklanes_converted(const evindex *ix, size_t li, uint64_t t0, uint64_t t1);
/* sparklanes_created (converted when `converted`) of each of n columns [t[c], t[c + 1])
 * into out[c], t ascending (n + 1 times): each boundary looked up once. */
void sparklanes_cols(const evindex *ix, size_t li, bool converted, const uint64_t *t,
                     size_t n, double *out);
/* The largest spark pool size in [t0, t1), counting the value in force at t0; false
 * before the first SPARK_COUNTERS sample of that capability. */
bool sparklanes_pool(const evindex *ix, size_t li, uint64_t t0, uint64_t t1, uint64_t *out);

/* One capability's SPARK_COUNTERS as posted: cumulative counts and the pool then. */
typedef struct sparklanes_counters {
    uint64_t created, dud, overflowed, converted, gcd, fizzled, remaining;
} sparklanes_counters;
/* The counters lane `li` had posted by time t (the last SPARK_COUNTERS at or before t,
 * re-read from the log); all zero, and false, before its first. */
bool sparklanes_counters_at(const evindex *ix, size_t li, uint64_t t, sparklanes_counters *out);
/* What the counters say happened in [t0, t1), summed over capabilities: each one's
 * counters by t1 - 1 minus those before t0 (remaining: the pools by t1 - 1). False when
 * the log has no spark counters above zero. */
bool sparklanes_range_counters(const evindex *ix, uint64_t t0, uint64_t t1,
                               sparklanes_counters *out);

/* Detail pane lines for a spark lane (LANE_SPARK_*) at the cursor's column [t0, t1):
 * created / converted in the column with their rates, the pool, and the HEC's totals
 * (created, converted, fizzled, GC'd, dud, overflowed). */
void sparklanes_detail(detail_lines *out, const evindex *ix, const lane *l, uint64_t t0,
                       uint64_t t1, uint64_t cursor_ns);
/* The status line's words for the same: "12 sparks created in the column (3.4/ms)". */
void sparklanes_status(strbuf *out, const evindex *ix, const lane *l, uint64_t t0,
                       uint64_t t1);

#endif
