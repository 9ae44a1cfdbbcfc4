/* livemerge: the events of a log still being written, in the time order `merge` gives
 * the whole file (stable: ties keep file order), each released as soon as it can be
 * placed — once every capability (and the global, capability-less stream) has written
 * an event LIVEMERGE_SLACK_NS after its time: each writes in time order but for a few
 * microseconds (measured on GHC 9.0 and 9.2 logs: at most 37 us). Events are
 * read as the log grows (evlog_grow, then livemerge_feed). At the end of the stream
 * every held event is released; the output for a finished stream is then exactly
 * merge's for the same bytes. Memory: 16 bytes per held event, at most max_pending;
 * past that, reading pauses and the rest comes from a merge of the finished file. */
#ifndef ELOG_LIVEMERGE_H
#define ELOG_LIVEMERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "evlog.h"

typedef struct livemerge livemerge;

#define LIVEMERGE_SLACK_NS ((uint64_t)10000000)     /* 10 ms */

/* Over `log` (borrowed, a growing log; must outlive the merge); max_pending 0: merge's
 * default. Caller frees. */
livemerge *livemerge_new(const evlog *log, size_t max_pending);
/* Read the events the log holds now (up to its current size). */
void livemerge_feed(livemerge *m);
/* Next event that can be placed into *ev; false when none can yet. With `final` (the
 * stream is over: no byte will come), every event read is placed; call
 * livemerge_feed once before. */
bool livemerge_next(livemerge *m, bool final, evlog_event *ev);
/* The data reached its end-of-data marker, or malformed data (no more is read). */
bool livemerge_done(const livemerge *m);
/* How the data read so far ends: DIAG_OK at the end marker, else the truncation (a
 * stream that stopped early) or error. */
void livemerge_ending(const livemerge *m, diag *ending);
/* Events placed so far. */
size_t livemerge_n_out(const livemerge *m);
/* Events that came after a later event had been placed (a writer more than
 * LIVEMERGE_SLACK_NS out of order): the placed order differs from merge's there. */
size_t livemerge_n_late(const livemerge *m);
/* Events read so far, placed or not. */
size_t livemerge_n_read(const livemerge *m);
/* Events may be placed up to this time (the slowest writer's newest time less the
 * slack); 0 while some writer has written nothing, or the log has no blocks. */
uint64_t livemerge_placed_ns(const livemerge *m);
void livemerge_free(livemerge *m);

#endif
