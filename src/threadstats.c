/* threadstats: per-thread run totals computed from the index's runlanes, one pass
 * over every run, the lanes' blocks taken in time order (two halves of the threads in
 * parallel when there are many), for the `threads` report (a range of the table at a
 * time), the viewer's thread list and the run detail pane. */
#include "threadstats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "radixsort.h"
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

/* The stop class of every stop byte a runlane can hold, for one log's numbering. */
typedef struct threadstats_classes {
    uint8_t of[256];
} threadstats_classes;

static void
threadstats_classes_init(threadstats_classes *cl, const evindex *ix)
{
    stopstatus_era era = stopstatus_era_of(evindex_log(ix));
    for (unsigned s = 0; s < 256; s++)
        cl->of[s] = (uint8_t)stopstatus_class(era, (uint16_t)s);
}

/* Add run j of block bl (on cap `cap`) to its thread's row. */
static inline void
threadstats_add(threadstats_row *row, const runlane_block *bl, size_t j, uint16_t cap,
                const threadstats_classes *cl)
{
    uint64_t start = bl->start_ns[j], end = start + bl->dur_ns[j];
    row->run_ns += bl->dur_ns[j];
    row->stops[cl->of[bl->stop[j]]]++;
    if (row->n_runs++ == 0) {   /* rows start zeroed: the first run sets the times */
        row->first_run_ns = start;
        row->last_end_ns = end;
        row->last_cap = cap;
        return;
    }
    if (start < row->first_run_ns)
        row->first_run_ns = start;
    /* A tie goes to the higher cap, and on one cap to the later run (runs of a lane come
     * in time order), as the build's event order would: the same whatever order the
     * lanes' blocks are visited in. */
    if (end > row->last_end_ns || (end == row->last_end_ns && cap >= row->last_cap)) {
        row->last_end_ns = end;
        row->last_cap = cap;
    }
}

/* Whether row a ranks before row b: more run time, or as much and a lower index (the
 * order of radixsort_rank_desc). */
static inline bool
threadstats_before(const uint64_t *key, size_t a, size_t b)
{
    return key[a] > key[b] || (key[a] == key[b] && a < b);
}

/* Sift heap[i] down a heap of n rows whose root ranks last of them. */
static void
threadstats_heap_down(const uint64_t *key, size_t *heap, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && threadstats_before(key, heap[m], heap[l]))
            m = l;
        if (r < n && threadstats_before(key, heap[m], heap[r]))
            m = r;
        if (m == i)
            return;
        size_t t = heap[i];
        heap[i] = heap[m];
        heap[m] = t;
        i = m;
    }
}

/* The first min(k, hi - lo) rows of [lo, hi) in ranking order into out[]: one pass
 * keeping the k best in a heap (rows come in index order, so a tie never displaces),
 * then the heap emptied from its last-ranked end. Returns how many. */
static size_t
threadstats_top_range(const uint64_t *key, size_t lo, size_t hi, size_t k, size_t *out)
{
    size_t n = 0;
    for (size_t i = lo; i < hi && k > 0; i++) {
        if (n < k) {
            out[n++] = i;
            for (size_t c = n - 1; c > 0 && threadstats_before(key, out[(c - 1) / 2], out[c]);
                 c = (c - 1) / 2) {
                size_t t = out[c];
                out[c] = out[(c - 1) / 2];
                out[(c - 1) / 2] = t;
            }
        } else if (key[i] > key[out[0]]) {
            out[0] = i;
            threadstats_heap_down(key, out, n, 0);
        }
    }
    for (size_t m = n; m > 1; m--) {
        size_t t = out[0];
        out[0] = out[m - 1];
        out[m - 1] = t;
        threadstats_heap_down(key, out, m - 1, 0);
    }
    return n;
}

/* The shares' first rows, met once both have counted. */
typedef struct threadstats_topsync {
    atomic_uint arrived;        /* shares done counting */
    unsigned parties;           /* shares counting */
    size_t k;
    size_t *rows[2];            /* owned; each share's first k rows, ranked */
    size_t n_rows[2];
    const uint64_t *key;
    threadstats_top_fn *fn;
    void *ctx;
} threadstats_topsync;

/* A share's count is done: rank its first rows and, the last to arrive, merge both
 * shares' and hand them on. */
static void
threadstats_top_arrive(threadstats_topsync *ts, unsigned slot, size_t lo, size_t hi)
{
    ts->rows[slot] = xmalloc((ts->k + 1) * sizeof *ts->rows[slot]);    /* freed below */
    ts->n_rows[slot] = threadstats_top_range(ts->key, lo, hi, ts->k, ts->rows[slot]);
    if (atomic_fetch_add_explicit(&ts->arrived, 1, memory_order_acq_rel) + 1 != ts->parties)
        return;
    size_t *top = xmalloc((ts->k + 1) * sizeof *top);      /* the callee's */
    const size_t *a = ts->rows[0], *b = ts->rows[1];
    size_t na = a ? ts->n_rows[0] : 0, nb = b ? ts->n_rows[1] : 0, ia = 0, ib = 0, n = 0;
    while (n < ts->k && (ia < na || ib < nb))
        top[n++] = ib == nb || (ia < na && threadstats_before(ts->key, a[ia], b[ib])) ? a[ia++]
                                                                                     : b[ib++];
    ts->fn(ts->ctx, top, n);
}

/* One share of a pass: the threads with ids in [tid_lo, tid_hi], whose rows are
 * [lo, hi) (the table is in ascending id order). It fills full rows (rows), or only
 * run time and runs (run_ns, n_runs: a brief pass); with `one`, only thread tid_lo,
 * into rows[0]. */
typedef struct threadstats_share {
    const evindex *ix;
    threadstats_row *rows;      /* thread ti's row: rows[ti - base], or with row_of, */
    size_t base;
    const uint32_t *row_of;     /* rows[row_of[ti - base]] (UINT32_MAX: not wanted) */
    uint64_t *run_ns;
    uint32_t *n_runs;
    size_t lo, hi;
    uint32_t tid_lo, tid_hi;
    bool one;
    size_t n;                   /* every thread (a brief pass) */
    size_t *words, *tmp;        /* with them, a brief pass ranks its rows [lo, hi) there */
    radixsort_part *part;       /* ... as this part (the share's own) */
    threadstats_topsync *top;   /* with it, first the first rows of the share, ranked */
    unsigned slot;              /* the share's place in top */
    struct threadstats_halves *halves;  /* a brief pass by halves of the runs */
} threadstats_share;

/* Every lane's blocks in order of their first starts (ties: the lower lane first), so a
 * pass over many lanes meets the threads alive at a time together: the totals of the
 * threads of one stretch of time stay in cache instead of every lane sweeping all of
 * them again. A heap of the lanes keyed by their next block's start. */
typedef struct threadstats_merge {
    const evindex *ix;
    size_t *heap;               /* owned; lanes with blocks left, the earliest first */
    size_t n_heap;
    size_t *next;               /* owned; per lane, its next block */
    size_t *end;                /* owned; per lane, the block after its last one taken */
    uint64_t *key;              /* owned; per lane, that block's first start */
    bool by_time;
} threadstats_merge;

static inline bool
threadstats_merge_less(const threadstats_merge *m, size_t a, size_t b)
{
    return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && a < b);
}

static void
threadstats_merge_down(threadstats_merge *m, size_t i)
{
    size_t *h = m->heap, n = m->n_heap;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, s = i;
        if (l < n && threadstats_merge_less(m, h[l], h[s]))
            s = l;
        if (r < n && threadstats_merge_less(m, h[r], h[s]))
            s = r;
        if (s == i)
            return;
        size_t t = h[i];
        h[i] = h[s];
        h[s] = t;
        i = s;
    }
}

/* by_time false: lane after lane instead (each lane's key its place), for a pass that
 * touches a few threads only. Of each lane only part `part` of `n_parts` (its blocks
 * [nb * part / n_parts, nb * (part + 1) / n_parts)): halves of the runs for two
 * counters. */
static void
threadstats_merge_init_part(threadstats_merge *m, const evindex *ix, bool by_time,
                            size_t part, size_t n_parts)
{
    size_t n = evindex_n_caps(ix);
    m->ix = ix;
    m->by_time = by_time;
    m->heap = xmalloc((n + 1) * sizeof *m->heap);      /* freed by threadstats_merge_free */
    m->next = xcalloc(n + 1, sizeof *m->next);         /* freed by threadstats_merge_free */
    m->end = xcalloc(n + 1, sizeof *m->end);           /* freed by threadstats_merge_free */
    m->key = xmalloc((n + 1) * sizeof *m->key);        /* freed by threadstats_merge_free */
    m->n_heap = 0;
    for (size_t li = 0; li < n; li++) {
        const runlane *rl = evindex_cap_at(ix, li)->runs;
        size_t nb = runlane_n_blocks(rl);
        m->next[li] = nb * part / n_parts;
        m->end[li] = nb * (part + 1) / n_parts;
        if (m->next[li] >= m->end[li])
            continue;
        m->key[li] = by_time ? runlane_block_start_ns(rl, m->next[li]) : li;
        m->heap[m->n_heap++] = li;
    }
    for (size_t i = m->n_heap / 2; i-- > 0;)
        threadstats_merge_down(m, i);
}

static void
threadstats_merge_init(threadstats_merge *m, const evindex *ix, bool by_time)
{
    threadstats_merge_init_part(m, ix, by_time, 0, 1);
}

/* Blocks taken from a lane at a time: enough runs (1024) in a row for the memory to
 * stream them, few enough that the threads they touch are still the ones in cache
 * (caps64-1024M's brief pass: 1 block 256 ms CPU, 16 138 ms, 256 177 ms). */
#define THREADSTATS_MERGE_RUN 16
/* The next blocks in start order into *li (their lane) and [*b, *b_end); false when
 * none is left. */
static inline bool
threadstats_merge_next(threadstats_merge *m, size_t *li, size_t *b, size_t *b_end)
{
    if (m->n_heap == 0)
        return false;
    size_t l = m->heap[0];
    const runlane *rl = evindex_cap_at(m->ix, l)->runs;
    size_t nb = m->end[l];
    *li = l;
    *b = m->next[l];
    m->next[l] = nb - *b > THREADSTATS_MERGE_RUN ? *b + THREADSTATS_MERGE_RUN : nb;
    *b_end = m->next[l];
    if (m->next[l] < nb) {
        if (m->by_time)
            m->key[l] = runlane_block_start_ns(rl, m->next[l]);
    } else {
        m->heap[0] = m->heap[--m->n_heap];
    }
    threadstats_merge_down(m, 0);
    return true;
}

static void
threadstats_merge_free(threadstats_merge *m)
{
    x_free(m->heap);
    x_free(m->next);
    x_free(m->end);
    x_free(m->key);
}

/* A brief share has counted its threads [lo, hi): their first rows, then their ranking
 * as its part, when the pass wants them. */
static void
threadstats_brief_done(const threadstats_share *sh)
{
    if (sh->top)
        threadstats_top_arrive(sh->top, sh->slot, sh->lo, sh->hi);
    if (sh->words) {
        sh->part->lo = sh->lo, sh->part->hi = sh->hi;
        radixsort_rank_part(sh->run_ns, sh->n, sh->words, sh->tmp, sh->part);
    }
}

/* Every block of every lane whose tids can fall in the share, unpacked once; blocks of
 * other threads only (most of them, on a log of many short-lived threads) are skipped
 * from their bounds. `brief` is a constant at each call, so each kind of pass gets a
 * loop of its own. */
static inline __attribute__((always_inline)) void
threadstats_pass(const threadstats_share *sh, bool brief)
{
    const threadtab *tt = evindex_threads(sh->ix);
    threadstats_classes cl;
    if (!brief)
        threadstats_classes_init(&cl, sh->ix);
    /* GHC numbers threads densely: when the share's ids have no gap, a thread's row is
     * its id's distance from the first, with no table lookup. */
    bool dense = false;
    if (!sh->one && sh->hi > sh->lo) {
        threadtab_thread t0, t1;
        threadtab_at(tt, sh->lo, &t0);
        threadtab_at(tt, sh->hi - 1, &t1);
        dense = t0.tid == sh->tid_lo && t1.tid == sh->tid_hi &&
                (size_t)(t1.tid - t0.tid) == sh->hi - 1 - sh->lo;
    }
    runlane_block *bl = xmalloc(sizeof *bl);     /* freed below */
    /* Two pages remembered, the latest first: runs of a few long-lived threads between
     * those of many short-lived ones (a server's log) keep both pages at hand. */
    threadtab_hint hint[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
    threadstats_merge mg;
    threadstats_merge_init(&mg, sh->ix, !sh->one);
    size_t li, b0, b_end;
    while (threadstats_merge_next(&mg, &li, &b0, &b_end)) {
        const evindex_cap *cap = evindex_cap_at(sh->ix, li);
        for (size_t b = b0; b < b_end; b++) {
            uint32_t lo, hi;
            runlane_block_tids(cap->runs, b, &lo, &hi);
            if (hi < sh->tid_lo || lo > sh->tid_hi)
                continue;
            bool all_in = lo >= sh->tid_lo && hi <= sh->tid_hi;
            /* A block the bounds let through may still miss the share's threads: worth
             * a look at its tid window and patched tids before unpacking all of it, not
             * before the brief sums (they read only two columns). */
            if (!brief && !all_in &&
                !runlane_block_has_tid_in(cap->runs, b, sh->tid_lo, sh->tid_hi))
                continue;
            if (brief && dense) {   /* rows are ids from tid_lo: no unpacking, no lookup */
                runlane_block_add_by_tid(cap->runs, b, sh->tid_lo, sh->hi - sh->lo,
                                         sh->run_ns + sh->lo, sh->n_runs + sh->lo);
                continue;
            }
            runlane_block_get(cap->runs, b, bl, brief ? RUNLANE_COL_DUR | RUNLANE_COL_TID
                                                    : RUNLANE_COL_ALL);
            for (size_t j = 0; j < bl->len; j++) {
                uint32_t tid = bl->tid[j];
                if (!all_in && (tid < sh->tid_lo || tid > sh->tid_hi))
                    continue;
                size_t ti = 0;
                if (dense) {
                    ti = sh->lo + (tid - sh->tid_lo);
                } else if (!sh->one) {
                    uint32_t pn1 = (tid >> THREADTAB_PAGE_BITS) + 1;
                    if (hint[0].page_no1 != pn1) {
                        threadtab_hint t = hint[1];
                        hint[1] = hint[0];
                        hint[0] = t;
                    }
                    ti = threadtab_index_of_hint(tt, tid, &hint[0]);
                }
                if (ti == SIZE_MAX)
                    continue;
                if (brief) {
                    sh->run_ns[ti] += bl->dur_ns[j];
                    sh->n_runs[ti]++;
                } else if (!sh->row_of) {
                    threadstats_add(&sh->rows[ti - sh->base], bl, j, cap->cap, &cl);
                } else if (sh->row_of[ti - sh->base] != UINT32_MAX) {
                    threadstats_add(&sh->rows[sh->row_of[ti - sh->base]], bl, j, cap->cap, &cl);
                }
            }
        }
    }
    threadstats_merge_free(&mg);
    x_free(bl);
    if (brief)
        threadstats_brief_done(sh);
    for (size_t i = sh->lo; !brief && !sh->row_of && i < sh->hi; i++)
        if (sh->rows[i - sh->base].n_runs == 0)
            threadstats_init(&sh->rows[i - sh->base]);
}

static void *
threadstats_share_main(void *arg)
{
    threadstats_pass(arg, false);
    return NULL;
}

static void *
threadstats_share_brief(void *arg)
{
    threadstats_pass(arg, true);
    return NULL;
}

/* Below this many threads one pass is as quick as starting a second thread. */
#define THREADSTATS_SPLIT_MIN 65536u

/* Two shares, one on another thread, when there are many threads: each looks up and
 * adds only its half of the threads, and unpacks only the blocks that hold some of
 * them. `tmpl` holds the outputs; the shares get their thread ranges. */
static void
threadstats_split(const evindex *ix, const threadstats_share *tmpl, void *(*fn)(void *),
                  bool may_split)
{
    const threadtab *tt = evindex_threads(ix);
    size_t lo = tmpl->lo, hi = tmpl->hi, n = hi - lo;
    threadtab_thread first, mid, last;
    threadtab_at(tt, lo, &first);
    threadtab_at(tt, lo + n / 2, &mid);
    threadtab_at(tt, hi - 1, &last);
    threadstats_share sh[2] = { *tmpl, *tmpl };
    if (tmpl->part)
        sh[0].part = &tmpl->part[0], sh[1].part = &tmpl->part[1];
    sh[0].lo = lo, sh[0].hi = lo + n / 2, sh[0].tid_lo = first.tid, sh[0].tid_hi = mid.tid - 1;
    sh[1].lo = lo + n / 2, sh[1].hi = hi, sh[1].tid_lo = mid.tid, sh[1].tid_hi = last.tid;
    sh[0].slot = 0, sh[1].slot = 1;
    if (tmpl->top)
        tmpl->top->parties = 2;
    pthread_t th;
    bool split = may_split && n >= THREADSTATS_SPLIT_MIN &&
                 pthread_create(&th, NULL, fn, &sh[0]) == 0;
    if (!split) {
        if (tmpl->top)
            tmpl->top->parties = 1;
        sh[1].lo = lo, sh[1].tid_lo = first.tid;
        if (sh[0].part)         /* the first part stays empty */
            *sh[0].part = (radixsort_part){ 0, 0, 0, true };
    }
    fn(&sh[1]);
    if (split)
        pthread_join(th, NULL);
}

/* A brief pass over a table whose ids have no gap, split by runs instead of threads:
 * each of two counters takes half of every lane's blocks (in time order) and counts
 * every thread of them, the first into the pass's arrays, the second into arrays of
 * its own; once both are done each adds the second's counts of one half of the threads
 * to the first's and ranks that half. Every run is read once, however the threads'
 * runs mix in the blocks (on churn-2000000thr, halves of the threads read 29.5 M runs
 * for 17.3 M: the long-lived low ids widen most blocks' bounds), and the counters'
 * work is even whatever the threads' shares of the runs. */
typedef struct threadstats_halves {
    uint64_t *run_ns2;          /* owned; the second counter's counts */
    uint32_t *n_runs2;          /* owned */
    size_t n_parts;             /* counters: 2, or 1 when no thread could be started */
    pthread_barrier_t met;      /* both have counted (n_parts 2) */
} threadstats_halves;

static void *
threadstats_halves_main(void *arg)
{
    const threadstats_share *sh = arg;
    threadstats_halves *h = sh->halves;
    size_t part = h->n_parts == 2 ? sh->slot : 0;
    uint64_t *run_ns = part ? h->run_ns2 : sh->run_ns;
    uint32_t *n_runs = part ? h->n_runs2 : sh->n_runs;
    threadstats_merge mg;
    threadstats_merge_init_part(&mg, sh->ix, true, part, h->n_parts);
    size_t li, b0, b_end;
    while (threadstats_merge_next(&mg, &li, &b0, &b_end)) {
        const runlane *rl = evindex_cap_at(sh->ix, li)->runs;
        for (size_t b = b0; b < b_end; b++)
            runlane_block_add_by_tid(rl, b, sh->tid_lo, sh->n, run_ns, n_runs);
    }
    threadstats_merge_free(&mg);
    if (h->n_parts == 2) {
        pthread_barrier_wait(&h->met);
        for (size_t i = sh->lo; i < sh->hi; i++) {
            sh->run_ns[i] += h->run_ns2[i];
            sh->n_runs[i] += h->n_runs2[i];
        }
    }
    threadstats_brief_done(sh);
    return NULL;
}

/* The brief pass of `tmpl` (every thread, tmpl->n of them) by halves of the runs when
 * the ids are dense and many; false, and nothing done, otherwise. */
static bool
threadstats_brief_halves(const evindex *ix, const threadstats_share *tmpl)
{
    const threadtab *tt = evindex_threads(ix);
    size_t n = tmpl->n;
    if (n < THREADSTATS_SPLIT_MIN)
        return false;
    threadtab_thread first, last;
    threadtab_at(tt, 0, &first);
    threadtab_at(tt, n - 1, &last);
    if ((size_t)(last.tid - first.tid) != n - 1)
        return false;
    threadstats_halves h = { .n_parts = 2 };
    threadstats_share sh[2] = { *tmpl, *tmpl };
    for (unsigned k = 0; k < 2; k++) {
        sh[k].halves = &h;
        sh[k].slot = k;
        sh[k].tid_lo = first.tid;
        if (tmpl->part)
            sh[k].part = &tmpl->part[k];
    }
    sh[0].lo = 0, sh[0].hi = n / 2;
    sh[1].lo = n / 2, sh[1].hi = n;
    h.run_ns2 = xcalloc(n, sizeof *h.run_ns2);          /* freed below */
    h.n_runs2 = xcalloc(n, sizeof *h.n_runs2);          /* freed below */
    if (tmpl->top)
        tmpl->top->parties = 2;
    pthread_t th;
    bool two = pthread_barrier_init(&h.met, NULL, 2) == 0;
    if (two && pthread_create(&th, NULL, threadstats_halves_main, &sh[0]) != 0) {
        pthread_barrier_destroy(&h.met);
        two = false;
    }
    if (!two) {                 /* one counter: every run, every thread */
        h.n_parts = 1;
        if (tmpl->top)
            tmpl->top->parties = 1;
        sh[1].lo = 0;
        if (sh[0].part)         /* the first part stays empty */
            *sh[0].part = (radixsort_part){ 0, 0, 0, true };
    }
    threadstats_halves_main(&sh[1]);
    if (two) {
        pthread_join(th, NULL);
        pthread_barrier_destroy(&h.met);
    }
    x_free(h.run_ns2);
    x_free(h.n_runs2);
    return true;
}

static threadstats_row *
threadstats_rows(const evindex *ix, bool may_split)
{
    size_t n = threadtab_count(evindex_threads(ix));
    if (!n)
        return NULL;
    /* Zeroed (fresh zero pages for a large table: no pass to clear it). Caller frees. */
    threadstats_row *rows = xcalloc(n, sizeof *rows);
    threadstats_share tmpl = { .ix = ix, .rows = rows, .lo = 0, .hi = n };
    threadstats_split(ix, &tmpl, threadstats_share_main, may_split);
    return rows;
}

threadstats_row *
threadstats_all(const evindex *ix)
{
    return threadstats_rows(ix, true);
}

threadstats_row *
threadstats_all_serial(const evindex *ix)
{
    return threadstats_rows(ix, false);
}

bool
threadstats_brief_all(const evindex *ix, threadstats_brief *out)
{
    *out = (threadstats_brief){ NULL, NULL, 0 };
    size_t n = threadtab_count(evindex_threads(ix));
    if (!n)
        return false;
    out->n = n;
    out->run_ns = xcalloc(n, sizeof *out->run_ns);     /* caller frees */
    out->n_runs = xcalloc(n, sizeof *out->n_runs);     /* caller frees */
    threadstats_share tmpl = { .ix = ix, .run_ns = out->run_ns, .n_runs = out->n_runs,
                               .n = n, .lo = 0, .hi = n };
    if (!threadstats_brief_halves(ix, &tmpl))
        threadstats_split(ix, &tmpl, threadstats_share_brief, true);
    return true;
}

bool
threadstats_brief_ranked(const evindex *ix, threadstats_brief *out, size_t **order)
{
    return threadstats_brief_ranked_top(ix, out, order, 0, NULL, NULL);
}

bool
threadstats_brief_ranked_top(const evindex *ix, threadstats_brief *out, size_t **order,
                             size_t k, threadstats_top_fn *top, void *ctx)
{
    *out = (threadstats_brief){ NULL, NULL, 0 };
    *order = NULL;
    size_t n = threadtab_count(evindex_threads(ix));
    if (!n)
        return false;
    out->n = n;
    out->run_ns = xcalloc(n, sizeof *out->run_ns);     /* caller frees */
    out->n_runs = xcalloc(n, sizeof *out->n_runs);     /* caller frees */
    size_t *words = xmalloc(n * sizeof *words);        /* freed below */
    size_t *tmp = xmalloc(n * sizeof *tmp);            /* the sorts' scratch; then *order */
    radixsort_part part[2];
    threadstats_topsync ts = { .k = k, .key = out->run_ns, .fn = top, .ctx = ctx };
    atomic_init(&ts.arrived, 0);
    threadstats_share tmpl = { .ix = ix, .run_ns = out->run_ns, .n_runs = out->n_runs,
                               .n = n, .words = words, .tmp = tmp, .part = part, .lo = 0, .hi = n,
                               .top = top ? &ts : NULL };
    if (!threadstats_brief_halves(ix, &tmpl))
        threadstats_split(ix, &tmpl, threadstats_share_brief, true);
    x_free(ts.rows[0]);
    x_free(ts.rows[1]);
    radixsort_rank_merge(out->run_ns, n, words, part, 2, tmp);
    *order = tmp;                                      /* caller frees */
    x_free(words);
    return true;
}

void
threadstats_range(const evindex *ix, size_t lo, size_t hi, threadstats_row *rows)
{
    if (hi <= lo)
        return;
    memset(rows, 0, (hi - lo) * sizeof *rows);
    threadstats_share tmpl = { .ix = ix, .rows = rows, .base = lo, .lo = lo, .hi = hi };
    threadstats_split(ix, &tmpl, threadstats_share_main, true);
}

void
threadstats_pick(const evindex *ix, const size_t *idx, size_t k, threadstats_row *rows)
{
    if (k == 0)
        return;
    size_t lo = idx[0], hi = idx[0] + 1;
    for (size_t j = 1; j < k; j++) {
        lo = idx[j] < lo ? idx[j] : lo;
        hi = idx[j] + 1 > hi ? idx[j] + 1 : hi;
    }
    uint32_t *row_of = xmalloc((hi - lo) * sizeof *row_of);   /* freed below */
    memset(row_of, 0xff, (hi - lo) * sizeof *row_of);
    for (size_t j = 0; j < k; j++)
        row_of[idx[j] - lo] = (uint32_t)j;
    memset(rows, 0, k * sizeof *rows);
    threadstats_share tmpl = { .ix = ix, .rows = rows, .base = lo, .row_of = row_of, .lo = lo,
                               .hi = hi };
    threadstats_split(ix, &tmpl, threadstats_share_main, true);
    x_free(row_of);
    for (size_t j = 0; j < k; j++)
        if (rows[j].n_runs == 0)
            threadstats_init(&rows[j]);
}

void
threadstats_brief_free(threadstats_brief *b)
{
    x_free(b->run_ns);
    x_free(b->n_runs);
    *b = (threadstats_brief){ NULL, NULL, 0 };
}

void
threadstats_of(const evindex *ix, uint32_t tid, threadstats_row *out)
{
    memset(out, 0, sizeof *out);
    threadstats_share sh = { .ix = ix, .rows = out, .lo = 0, .hi = 1, .tid_lo = tid,
                             .tid_hi = tid, .one = true };
    threadstats_share_main(&sh);
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
    threadstats_classes cl;
    threadstats_classes_init(&cl, ix);
    runlane_block *bl = xmalloc(sizeof *bl);     /* freed below */
    threadtab_hint hint = { 0, 0, 0 };
    size_t k = 0;               /* both lists are in ascending cap order */
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const evindex_cap *cap = evindex_cap_at(ix, li);
        while (k < m->n && m->caps[k] < cap->cap)
            k++;
        size_t from = k < m->n && m->caps[k] == cap->cap ? m->runs[k] : 0;
        size_t n_blocks = runlane_n_blocks(cap->runs);
        /* Only the runs added since the mark: from the block holding run `from` on. */
        for (size_t b = from / RUNLANE_CHUNK; b < n_blocks; b++) {
            runlane_block_get(cap->runs, b, bl, RUNLANE_COL_ALL);
            for (size_t r = 0; r < bl->len; r++) {
                if (bl->first + r < from)
                    continue;
                size_t ti = threadtab_index_of_hint(tt, bl->tid[r], &hint);
                if (ti != SIZE_MAX)
                    threadstats_add(&rows[ti], bl, r, cap->cap, &cl);
            }
        }
    }
    x_free(bl);
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
