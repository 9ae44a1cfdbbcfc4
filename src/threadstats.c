/* threadstats: per-thread run totals computed from the index's runlanes, a batch of
 * runs at a time, for the `threads` report, the viewer's thread list and the run
 * detail pane. */
#include "threadstats.h"

#include <string.h>

#include "xalloc.h"

#define THREADSTATS_BATCH 256

/* Runs [first, first + max) of rl into out; how many were read. */
static size_t
threadstats_read(const runlane *rl, size_t first, runlane_run *out, size_t max)
{
    size_t n = runlane_count(rl), got = 0;
    for (size_t i = first; i < n && got < max; i++)
        runlane_get(rl, i, &out[got++]);
    return got;
}

void
threadstats_init(threadstats_row *row)
{
    memset(row, 0, sizeof *row);
    row->first_run_ns = THREADTAB_NO_TIME;
    row->last_end_ns = THREADTAB_NO_TIME;
    row->last_cap = 0xffff;
}

static void
threadstats_add(threadstats_row *row, const runlane_run *r, uint16_t cap)
{
    row->run_ns += r->end_ns - r->start_ns;
    row->n_runs++;
    row->stops[threadtab_stop_class(r->stop)]++;
    if (row->first_run_ns == THREADTAB_NO_TIME || r->start_ns < row->first_run_ns)
        row->first_run_ns = r->start_ns;
    /* Lanes are visited in cap order and runs in time order: ">=" makes the later
     * report win a tie, as the build's event order would. */
    if (row->last_end_ns == THREADTAB_NO_TIME || r->end_ns >= row->last_end_ns) {
        row->last_end_ns = r->end_ns;
        row->last_cap = cap;
    }
}

threadstats_row *
threadstats_all(const evindex *ix)
{
    const threadtab *tt = evindex_threads(ix);
    size_t n = threadtab_count(tt);
    if (!n)
        return NULL;
    threadstats_row *rows = xmalloc(n * sizeof *rows);     /* caller frees */
    for (size_t i = 0; i < n; i++)
        threadstats_init(&rows[i]);
    runlane_run batch[THREADSTATS_BATCH];
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        size_t count = runlane_count(cap->runs);
        for (size_t i = 0; i < count;) {
            size_t got = threadstats_read(cap->runs, i, batch, THREADSTATS_BATCH);
            for (size_t k = 0; k < got; k++) {
                size_t ti = threadtab_index_of(tt, batch[k].tid);
                if (ti != SIZE_MAX)
                    threadstats_add(&rows[ti], &batch[k], cap->cap);
            }
            i += got;
        }
    }
    return rows;
}

void
threadstats_of(const evindex *ix, uint32_t tid, threadstats_row *out)
{
    threadstats_init(out);
    runlane_run batch[THREADSTATS_BATCH];
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        size_t count = runlane_count(cap->runs);
        for (size_t i = 0; i < count;) {
            size_t got = threadstats_read(cap->runs, i, batch, THREADSTATS_BATCH);
            for (size_t k = 0; k < got; k++)
                if (batch[k].tid == tid)
                    threadstats_add(out, &batch[k], cap->cap);
            i += got;
        }
    }
}
