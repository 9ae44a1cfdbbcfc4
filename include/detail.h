/* detail: the words behind the timeline — the detail pane's "Key: value" lines for the
 * item under the cursor (a thread run, a collection, a non-moving phase, a marker) or a
 * lane's values at the cursor, the statistics of a selected range, and the one-line
 * status summary. Pure functions of the index: no terminal, no view. */
#ifndef ELOG_DETAIL_H
#define ELOG_DETAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "lanes.h"
#include "strbuf.h"
#include "threadstats.h"

/* Lines of text, each owned by the array. A line is "Key: value" (the app styles the
 * text before the first ": " as STYLE_DETAIL_KEY); a line that starts with a space
 * continues the previous one (wrapped text) and has no key. Text from the log is valid
 * UTF-8 (invalid bytes as U+FFFD) without control characters. */
typedef struct detail_lines {
    char **lines;
    size_t n, cap;
} detail_lines;

/* Wrapped text lines hold at most this many characters. */
#define DETAIL_WRAP_COLS 72

/* Start empty (no allocation). Free with detail_lines_free, which leaves it empty and
 * reusable. */
void detail_lines_init(detail_lines *d);
void detail_lines_free(detail_lines *d);
/* Append one formatted line (copied). */
void detail_lines_add(detail_lines *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every thread's run totals, kept between frames by the caller: made by one pass over
 * all runs (threadstats_all) the first time a run's detail needs them, then read in
 * O(1). Start zeroed; the caller frees `rows` (x_free) and zeroes it again when the
 * index changes. A `lazy` caller counts them elsewhere once asked: a run's detail then
 * sets `wanted` and says they are being counted. */
typedef struct detail_thread_memo {
    threadstats_row *rows;      /* owned by the caller; threadtab order */
    bool pending;               /* the caller is counting them elsewhere: say so meanwhile */
    bool lazy;                  /* the caller counts them when wanted, not the detail */
    bool wanted;                /* a run's detail asked for them (lazy) */
} detail_thread_memo;

/* Append the lines describing `it` on lane `l` (it->kind LANE_ITEM_NONE: the lane's
 * values at the cursor, over [it->start_ns, it->end_ns) where a range is needed — as
 * lanes_item_at leaves it). Times are the log's clock (ns since the RTS started, as
 * `ghc-events show` and `elog-tui gc` print them), exact to the nanosecond.
 *  - run: thread, label, HEC, start, duration, why it stopped (the STOP_THREAD event
 *    re-read for its blocked-on field), the thread's totals (through `memo`, which
 *    may be NULL: then this thread's are computed afresh);
 *  - GC: number, generation, pause, request, sync and slowest HEC, each HEC's work and
 *    idle time and how late it stopped, bytes, parallel balance, flags;
 *  - non-moving phase: its cycle, the phase, the cycle's phase times, marked objects;
 *  - marker / message: time, HEC, kind, its whole text wrapped;
 *  - heap, sparks and activity lanes add their values at the cursor after any item. */
void detail_item(detail_lines *out, const evindex *ix, const lane *l, const lane_item *it,
                 uint64_t cursor_ns, detail_thread_memo *memo);

/* The range statistics' name for 1 - (GC pause time in the range) / (range length). It is
 * not GHC's "Productivity" ((elapsed - GC - INIT - EXIT) / elapsed), which `stats`
 * prints; the help screen (helpview.c) defines it. */
#define DETAIL_MUTATOR_SHARE "Mutator share"

/* Append the statistics of [a_ns, b_ns) (either order): its ends and duration exact to
 * the nanosecond (the selection's ends are exact times, and `stats --from A --to B` given
 * them finds what the range holds), per-HEC run and GC shares, mutator and GC time
 * (summed over HECs, and as elapsed pause time), the mutator share, the collections
 * starting in the range per generation with total / average / max pause and p50 / p90 /
 * p99 (nearest rank), a pause histogram of them (pausehist.h: bars, then each bin's
 * "lo count," and the last bin's upper edge), bytes copied, the non-moving collector's mark / sync / sweep time
 * inside the range with how many of each overlap it and the cycles starting in it,
 * bytes allocated, largest heap size and live bytes, markers and per-spark events (by
 * kind: created, dud, overflowed, run, stolen, fizzled, GC'd) in the range. */
void detail_range(detail_lines *out, const evindex *ix, uint64_t a_ns, uint64_t b_ns);

/* Append one line (no newline) summarising the lane, the cursor time and the item, e.g.
 * "HEC 1 · 1.2346s · thread 12 (worker-5) ran 3.200ms, stopped: heap overflow". The cursor
 * time is rounded to res_ns (the app passes a column's width), or finer when the cursor is
 * on an item: to detail_item_res, so that neighbouring items never show the same time. */
void detail_status(strbuf *out, const evindex *ix, const lane *l, const lane_item *it,
                   uint64_t cursor_ns, uint64_t res_ns);

/* The time profile of [a_ns, b_ns] (the prof lane's view or selection, named by `what`:
 * "the view", "the selection"): its samples and its first cost centres by individual
 * samples, each with its individual and inherited share (timeprof_flat). */
void detail_prof_range(detail_lines *out, const evindex *ix, uint64_t a_ns, uint64_t b_ns,
                       const char *what);
/* Append cost centre cc's label (where: with its module and source location), "MAIN"
 * for TIMEPROF_MAIN, "#id" for one the log never defined. */
void detail_cost_centre(strbuf *out, const evindex *ix, uint32_t cc, bool where);

/* Helpers shared with the app. */
/* "1.5 MiB", "812.0 KiB", "999 B" (binary units, one decimal). */
void detail_bytes(strbuf *out, uint64_t bytes);

/* Printing resolutions for an item's time (timefmt_append_res): fine enough that the item
 * and its neighbours of the same kind never print the same time, and never coarser than
 * DETAIL_ITEM_RES_NS. */
#define DETAIL_ITEM_RES_NS UINT64_C(1000)
/* For time t_ns between neighbours at prev_ns and next_ns (UINT64_MAX: none). */
uint64_t detail_res_near(uint64_t t_ns, uint64_t prev_ns, uint64_t next_ns);
/* For marker i (evindex_marker_at), collection i's start (evindex_gc_at). */
uint64_t detail_marker_res(const evindex *ix, size_t i);
uint64_t detail_gc_res(const evindex *ix, size_t i);
/* For item `it` on lane `l`: markers, messages, collections and runs against their
 * neighbours; other items DETAIL_ITEM_RES_NS. */
uint64_t detail_item_res(const evindex *ix, const lane *l, const lane_item *it);

#endif
