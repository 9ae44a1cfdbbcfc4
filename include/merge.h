/* merge: the log's events in time order (stable: ties keep file order), streamed.
 * Pass 1 walks the file once to cut it into blocks and learn each block's earliest
 * timestamp. Pass 2 loads blocks in order of that timestamp (not file order: GHC
 * writes the global block last although it starts first), sorts each (GHC writes
 * blocks nearly sorted) and k-way merges them, releasing an event as soon as no
 * unloaded block can precede it. Memory is bounded by the blocks in flight (16 bytes
 * per pending event), not by the file. */
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
/* Next event in time order; false when done. */
bool merge_next(merge *m, evlog_event *ev);
/* Number of events in the stream (known after pass 1). */
size_t merge_n_events(const merge *m);
/* High-water mark of events held in memory at once. */
size_t merge_peak_pending(const merge *m);
void merge_free(merge *m);

#endif
