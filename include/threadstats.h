/* threadstats: what a thread's runs say about it — run time, number of runs, first run,
 * latest run and why its runs stopped — derived on demand from the index's
 * per-capability runs, so the index keeps each run once (in the runlanes) and the
 * thread table only what the runs cannot tell. */
#ifndef ELOG_THREADSTATS_H
#define ELOG_THREADSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "threadtab.h"

typedef struct threadstats_row {
    uint64_t run_ns;            /* total time running */
    uint64_t first_run_ns;      /* THREADTAB_NO_TIME if it never ran */
    uint64_t last_end_ns;       /* end of the latest run, THREADTAB_NO_TIME if none */
    uint32_t n_runs;
    uint16_t last_cap;          /* cap of the latest run (ending last; ties: higher
                                 * lane), 0xffff if it never ran */
    uint32_t stops[THREADTAB_N_STOP_CLASSES];   /* runs by stop class; an open run
                                                 * (cut by the log's end) is "other" */
} threadstats_row;

/* The row of a thread that never ran. */
void threadstats_init(threadstats_row *row);

/* Rows for every thread of the index, in thread-table order (row i is
 * threadtab_at(evindex_threads(ix), i)). One pass over all runs. Caller frees with
 * x_free; NULL when the log has no threads. */
threadstats_row *threadstats_all(const evindex *ix);
/* The same on the calling thread alone: a background count that leaves the other core
 * to the viewer. */
threadstats_row *threadstats_all_serial(const evindex *ix);
/* The rows of threads [lo, hi) of the table (rows[k]: thread lo + k; lo < hi <=
 * threadtab_count), equal to threadstats_all's rows lo..hi-1, into the caller's
 * rows[0, hi - lo): a pass over the blocks whose tids can fall in the range, so a table
 * written a piece at a time needs the rows of one piece only. */
void threadstats_range(const evindex *ix, size_t lo, size_t hi, threadstats_row *rows);
/* The rows of the k threads idx[0, k) (distinct table indexes in any order; rows[j]:
 * thread idx[j]), equal to threadstats_all's, into the caller's rows[0, k): a pass over
 * the blocks whose tids can fall between the least and the greatest, with a map of
 * 4 bytes a thread of that span (freed before it returns). */
void threadstats_pick(const evindex *ix, const size_t *idx, size_t k, threadstats_row *rows);

/* Only what a ranking by run time needs, for every thread in thread-table order:
 * 12 bytes a thread where a row takes 80, so a log of millions of threads has them in a
 * fraction of threadstats_all's time. */
typedef struct threadstats_brief {
    uint64_t *run_ns;           /* owned; run_ns[i]: thread i's total time running */
    uint32_t *n_runs;           /* owned; n_runs[i]: its runs */
    size_t n;                   /* threads */
} threadstats_brief;

/* Fill *out for every thread of the index (one pass over the runs, as threadstats_all).
 * False, and *out empty, when the log has no threads. Free with threadstats_brief_free. */
bool threadstats_brief_all(const evindex *ix, threadstats_brief *out);
/* The same, and *order the threads ranked by run time as radixsort_rank_desc ranks
 * run_ns (each half ranked by the thread that counted it, then merged). Caller frees
 * *order (x_free; NULL when false). */
bool threadstats_brief_ranked(const evindex *ix, threadstats_brief *out, size_t **order);
/* threadstats_brief_ranked, telling `top` as soon as every thread's run time and runs
 * are in *out, before the ranking is done: the first min(k, n) threads of the ranking in
 * a new array (the callee's to keep, x_free), called once, on whichever thread finishes
 * counting last; *out is read-only from then on (the ranking still reads it). Lets a list
 * show its first screen before the whole order. */
typedef void threadstats_top_fn(void *ctx, size_t *top, size_t n_top);
bool threadstats_brief_ranked_top(const evindex *ix, threadstats_brief *out, size_t **order,
                                  size_t k, threadstats_top_fn *top, void *ctx);
void threadstats_brief_free(threadstats_brief *b);

/* The row of thread `tid` (the row of a thread that never ran if it is unknown). One
 * pass over the runs. */
void threadstats_of(const evindex *ix, uint32_t tid, threadstats_row *out);

/* --- an index that grows (live logs): rows carried forward ----------------------------
 * What rows made over an index hold: each capability's run count and the thread table
 * then. Caller-owned; zero it before the first take, free with threadstats_mark_free. */
typedef struct threadstats_mark {
    uint16_t *caps;             /* owned */
    size_t *runs;               /* owned; runs counted, per caps[i] */
    size_t n, cap;
    uint32_t *tids;             /* owned; the thread table's ids then, in order */
    size_t n_threads, cap_threads;
    bool valid;
} threadstats_mark;

/* Record what `ix` holds now (rows about to be made over it, or just carried to it). */
void threadstats_mark_take(const evindex *ix, threadstats_mark *m);
/* Rows made over the index as `m` recorded it, carried to the grown `ix` (runs only
 * append per capability, threads are only added): the rows move to their threads'
 * new places and only the runs added since are walked. O(threads + new runs).
 * Consumes `rows`; caller frees the result with x_free. */
threadstats_row *threadstats_extend(const evindex *ix, threadstats_row *rows,
                                    const threadstats_mark *m);
void threadstats_mark_free(threadstats_mark *m);

#endif
