/* gcreport: the text and JSON of the GC analysis commands — the MMU curve (`mmu`) and the
 * worst windows with the collections in each (`worst`). Pure formatting of an mmu and
 * the index; times are the log's clock, as `gc` prints them. */
#ifndef ELOG_GCREPORT_H
#define ELOG_GCREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "mmu.h"
#include "mmusrc.h"
#include "strbuf.h"

/* What the spans were, for the titles: "stop-the-world pauses", "... with time to
 * stop", "HEC N's GC time". Static or in `buf`. */
const char *gcreport_source_name(const mmusrc_opts *o, char *buf, size_t len);

/* The curve at mmu_curve_windows' lengths: text (a table: window, MMU %, stopped time
 * in the worst window, its start) or JSON (an array of {"window_ns", "mmu",
 * "worst_start_ns", "paused_ns"}, mmu a fraction 0..1). */
void gcreport_mmu(strbuf *out, const mmu *m, const mmusrc_opts *o, bool json);

/* The `top` disjoint worst windows of length window_ns (mmu_worst), each with the
 * collections whose span (as `o` defines it) overlaps it: text or JSON (an array of
 * {"start_ns", "end_ns", "mmu", "paused_ns", "collections": [{"index", "start_ns",
 * "pause_ns", "stopping_ns", "gen", "leader_cap"}]}). */
void gcreport_worst(strbuf *out, const evindex *ix, const mmu *m, const mmusrc_opts *o,
                    uint64_t window_ns, size_t top, bool json);

/* Indexes [*first, *last) of the collections whose span overlaps [a, b) (with_stop:
 * from the request). The caller checks each against per-cap spans itself. */
void gcreport_gcs_in(const evindex *ix, bool with_stop, uint64_t a, uint64_t b, size_t *first,
                     size_t *last);

#endif
