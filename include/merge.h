/* merge: the log's events in time order (stable: ties keep file order), streamed in
 * bounded memory whatever the layout.
 * Pass 1 walks the file once to cut it into chunks — its blocks, several small blocks
 * together, or at most 65536 events of a big block or of a log with no blocks — and
 * learn each chunk's time range. Pass 2 loads chunks in order of their earliest
 * timestamp (not file order: GHC writes the global block last although it starts
 * first), sorts each (GHC writes blocks nearly sorted) and k-way merges them, releasing
 * an event as soon as no unloaded chunk can precede it. Pending events cost 16 bytes
 * each; when loading the next chunk would hold more than max_pending of them (chunks
 * overlapping in time, as only scrambled timestamps make them), the rest comes from
 * selection passes, each a read of the file that keeps the max_pending next events.
 * So memory is max_pending entries plus the chunk table (56 bytes per 1024 events at
 * most), never 16 bytes per event of the file; and the mapping's pages are let go
 * once read (evlog_release), so a file bigger than memory does not count as ours. */
#ifndef ELOG_MERGE_H
#define ELOG_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "evlog.h"

typedef struct merge merge;

/* Prepare a merged stream over `log` (borrowed; must outlive the merge). How the
 * data ends is reported in *ending: DIAG_OK for a clean end-of-data marker,
 * DIAG_TRUNCATED or DIAG_BAD_DATA (with offset) otherwise; the stream then holds
 * every complete event before that point. Caller frees with merge_free. */
merge *merge_new(const evlog *log, diag *ending);
/* At most this many events pending by default: 64 MB. */
#define MERGE_DEFAULT_MAX_PENDING ((size_t)1 << 22)
/* Same, holding at most `max_pending` events at once (tests use small bounds). */
merge *merge_new_bounded(const evlog *log, size_t max_pending, diag *ending);
/* Next event in time order; false when done. */
bool merge_next(merge *m, evlog_event *ev);
/* Number of events in the stream (known after pass 1). */
size_t merge_n_events(const merge *m);
/* High-water mark of events held in memory at once (at most max_pending). */
size_t merge_peak_pending(const merge *m);
/* The merge went over to selection passes (tests). */
bool merge_selected(const merge *m);
void merge_free(merge *m);

#endif
