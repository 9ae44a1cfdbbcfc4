/* threadstats: per-thread run totals computed from the index's runlanes, one pass
 * over every run (two halves of the threads in parallel when there are many), for the `threads` report, the viewer's thread list and the run
 * detail pane. */
#include "threadstats.h"

#include <pthread.h>
#include <stdbool.h>
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
    threadtab_hint hint = { 0, 0, 0 };
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        size_t count = runlane_count(cap->runs);
        runlane_seq seq = { 0 };
        for (size_t i = 0; i < count; i++) {
            runlane_run r;
            runlane_get_seq(cap->runs, i, &r, &seq);
            if (one) {
                if (r.tid == tid)
                    threadstats_add(one, &r, cap->cap, era);
                continue;
            }
            size_t ti = threadtab_index_of_hint(tt, r.tid, &hint);
            if (ti != SIZE_MAX)
                threadstats_add(&rows[ti], &r, cap->cap, era);
        }
    }
}

/* One share of threadstats_all: rows [lo, hi), the threads with ids in
 * [tid_lo, tid_hi] (the table is in ascending id order). */
typedef struct threadstats_share {
    const evindex *ix;
    threadstats_row *rows;
    size_t lo, hi;
    uint32_t tid_lo, tid_hi;
} threadstats_share;

static void *
threadstats_share_main(void *arg)
{
    const threadstats_share *sh = arg;
    const threadtab *tt = evindex_threads(sh->ix);
    stopstatus_era era = stopstatus_era_of(evindex_log(sh->ix));
    for (size_t i = sh->lo; i < sh->hi; i++)
        threadstats_init(&sh->rows[i]);
    threadtab_hint hint = { 0, 0, 0 };
    for (size_t li = 0; li < evindex_n_caps(sh->ix); li++) {
        const evindex_cap *cap = evindex_cap_at(sh->ix, li);
        size_t count = runlane_count(cap->runs);
        runlane_seq seq = { 0 };
        for (size_t i = 0; i < count; i++) {
            runlane_run r;
            runlane_get_seq(cap->runs, i, &r, &seq);
            if (r.tid < sh->tid_lo || r.tid > sh->tid_hi)
                continue;
            size_t ti = threadtab_index_of_hint(tt, r.tid, &hint);
            if (ti != SIZE_MAX)
                threadstats_add(&sh->rows[ti], &r, cap->cap, era);
        }
    }
    return NULL;
}

/* Below this many threads one pass is as quick as starting a second thread. */
#define THREADSTATS_SPLIT_MIN 65536u

/* Two shares, one on another thread, when there are many threads: each walks every run
 * but looks up and adds only its half of the threads (the costly part). */
threadstats_row *
threadstats_all(const evindex *ix)
{
    const threadtab *tt = evindex_threads(ix);
    size_t n = threadtab_count(tt);
    if (!n)
        return NULL;
    threadstats_row *rows = xmalloc(n * sizeof *rows);     /* caller frees */
    threadtab_thread first, mid, last;
    threadtab_at(tt, 0, &first);
    threadtab_at(tt, n / 2, &mid);
    threadtab_at(tt, n - 1, &last);
    threadstats_share sh[2] = {
        { ix, rows, 0, n / 2, first.tid, mid.tid - 1 },
        { ix, rows, n / 2, n, mid.tid, last.tid },
    };
    pthread_t th;
    bool split = n >= THREADSTATS_SPLIT_MIN &&
                 pthread_create(&th, NULL, threadstats_share_main, &sh[0]) == 0;
    if (!split)
        sh[1] = (threadstats_share){ ix, rows, 0, n, first.tid, last.tid };
    threadstats_share_main(&sh[1]);
    if (split)
        pthread_join(th, NULL);
    return rows;
}

void
threadstats_of(const evindex *ix, uint32_t tid, threadstats_row *out)
{
    threadstats_init(out);
    threadstats_scan(ix, NULL, out, tid);
}

void
threadstats_mark_take(const evindex *ix, threadstats_mark *m)
{
    size_t n = evindex_n_caps(ix);
    if (n > m->cap) {
        m->caps = xreallocarray(m->caps, n, sizeof *m->caps);     /* owned by m */
        m->runs = xreallocarray(m->runs, n, sizeof *m->runs);     /* owned by m */
        m->cap = n;
    }
    for (size_t li = 0; li < n; li++) {
        const evindex_cap *c = evindex_cap_at(ix, li);
        m->caps[li] = c->cap;
        m->runs[li] = runlane_count(c->runs);
    }
    m->n = n;
    const threadtab *tt = evindex_threads(ix);
    size_t nt = threadtab_count(tt);
    if (nt > m->cap_threads) {
        m->tids = xreallocarray(m->tids, nt, sizeof *m->tids);     /* owned by m */
        m->cap_threads = nt;
    }
    threadtab_iter it = { 0 };
    threadtab_thread th;
    size_t i, k = 0;
    while (k < nt && threadtab_next(tt, &it, false, &th, &i))
        m->tids[k++] = th.tid;
    m->n_threads = k;
    m->valid = k == nt;
}

threadstats_row *
threadstats_extend(const evindex *ix, threadstats_row *rows, const threadstats_mark *m)
{
    const threadtab *tt = evindex_threads(ix);
    size_t n = threadtab_count(tt);
    if (!rows || !m->valid || n < m->n_threads) {
        x_free(rows);
        return threadstats_all(ix);
    }
    if (!n)
        return rows;
    /* Old rows to their threads' places in the grown table (ids only come), moved
     * within the same array from the end (a place is never before its old one): no
     * second copy of the rows to fault in at every step. */
    uint64_t *fresh = xmalloc((n / 64 + 1) * sizeof *fresh);   /* freed below */
    memset(fresh, 0xff, (n / 64 + 1) * sizeof *fresh);
    threadtab_iter it = { 0 };
    threadtab_thread th;
    size_t j, o = 0;
    while (threadtab_next(tt, &it, false, &th, &j) && j < n)
        if (o < m->n_threads && m->tids[o] == th.tid) {
            fresh[j / 64] &= ~(UINT64_C(1) << (j % 64));
            o++;
        }
    if (o != m->n_threads) {        /* not the table the rows were made for */
        x_free(fresh);
        x_free(rows);
        return threadstats_all(ix);
    }
    rows = xreallocarray(rows, n, sizeof *rows);   /* caller frees */
    for (size_t i = n; i-- > 0;) {
        if (fresh[i / 64] >> (i % 64) & 1)
            threadstats_init(&rows[i]);
        else
            rows[i] = rows[--o];
    }
    x_free(fresh);
    stopstatus_era era = stopstatus_era_of(evindex_log(ix));
    threadtab_hint hint = { 0, 0, 0 };
    size_t k = 0;               /* both lists are in ascending cap order */
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        while (k < m->n && m->caps[k] < cap->cap)
            k++;
        size_t from = k < m->n && m->caps[k] == cap->cap ? m->runs[k] : 0;
        size_t count = runlane_count(cap->runs);
        runlane_seq seq = { 0 };        /* the runs added, read in order: a step each */
        for (size_t i = from; i < count; i++) {
            runlane_run r;
            runlane_get_seq(cap->runs, i, &r, &seq);
            size_t ti = threadtab_index_of_hint(tt, r.tid, &hint);
            if (ti != SIZE_MAX)
                threadstats_add(&rows[ti], &r, cap->cap, era);
        }
    }
    return rows;
}

void
threadstats_mark_free(threadstats_mark *m)
{
    x_free(m->caps);
    x_free(m->runs);
    x_free(m->tids);
    memset(m, 0, sizeof *m);
}
