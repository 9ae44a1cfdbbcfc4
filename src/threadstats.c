/* threadstats: per-thread run totals computed from the index's runlanes, one pass
 * over every run, for the `threads` report, the viewer's thread list and the run
 * detail pane. */
#include "threadstats.h"

#include <string.h>

#include "stopstatus.h"
#include "xalloc.h"

void
threadstats_init(threadstats_row *row)
{
    memset(row, 0, sizeof *row);
    row->first_run_ns = THREADTAB_NO_TIME;
    row->last_end_ns = THREADTAB_NO_TIME;
    row->last_cap = 0xffff;
}

static void
threadstats_add(threadstats_row *row, const runlane_run *r, uint16_t cap, stopstatus_era era)
{
    row->run_ns += r->end_ns - r->start_ns;
    row->n_runs++;
    row->stops[stopstatus_class(era, r->stop)]++;
    if (row->first_run_ns == THREADTAB_NO_TIME || r->start_ns < row->first_run_ns)
        row->first_run_ns = r->start_ns;
    /* Lanes are visited in cap order and runs in time order: ">=" makes the later
     * report win a tie, as the build's event order would. */
    if (row->last_end_ns == THREADTAB_NO_TIME || r->end_ns >= row->last_end_ns) {
        row->last_end_ns = r->end_ns;
        row->last_cap = cap;
    }
}

/* Add every run of the log to its row: rows[threadtab index] when `one` is NULL, else
 * only the runs of thread `tid` to *one. */
static void
threadstats_scan(const evindex *ix, threadstats_row *rows, threadstats_row *one, uint32_t tid)
{
    const threadtab *tt = evindex_threads(ix);
    stopstatus_era era = stopstatus_era_of(evindex_log(ix));
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        size_t count = runlane_count(cap->runs);
        for (size_t i = 0; i < count; i++) {
            runlane_run r;
            runlane_get(cap->runs, i, &r);
            if (one) {
                if (r.tid == tid)
                    threadstats_add(one, &r, cap->cap, era);
                continue;
            }
            size_t ti = threadtab_index_of(tt, r.tid);
            if (ti != SIZE_MAX)
                threadstats_add(&rows[ti], &r, cap->cap, era);
        }
    }
}

threadstats_row *
threadstats_all(const evindex *ix)
{
    size_t n = threadtab_count(evindex_threads(ix));
    if (!n)
        return NULL;
    threadstats_row *rows = xmalloc(n * sizeof *rows);     /* caller frees */
    for (size_t i = 0; i < n; i++)
        threadstats_init(&rows[i]);
    threadstats_scan(ix, rows, NULL, 0);
    return rows;
}

void
threadstats_of(const evindex *ix, uint32_t tid, threadstats_row *out)
{
    threadstats_init(out);
    threadstats_scan(ix, NULL, out, tid);
}
