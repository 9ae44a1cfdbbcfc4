/* threadlife: a thread's runs collected from every run lane, merged into start order,
 * with per-lane index arrays for O(log n) "does it run in this column" queries, and its
 * instants (create, label, wake-up, migrate) from one walk over the events, each
 * STOP_THREAD matched to the run it ended — the walk apart, so it can run on a worker
 * while the runs are already in use. */
#include "threadlife.h"

#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "runlane.h"
#include "xalloc.h"

struct threadlife {
    const evindex *ix;          /* borrowed */
    uint32_t tid;
    threadlife_run *runs;       /* owned, start order */
    size_t n_runs;
    size_t *lane_first;         /* owned: n_caps + 1 offsets into lane_runs */
    size_t *lane_runs;          /* owned: run indexes grouped by lane, start order */
    threadlife_event *events;   /* owned, time order */
    size_t n_events;
    uint64_t run_ns;
    bool complete;              /* the instants and stop details were read */
};

/* What the walk over the events finds: the instants, and each run's STOP_THREAD status
 * and blocked-on field (as the lane has them where no STOP_THREAD matched). */
struct threadlife_extra {
    threadlife_event *events;   /* owned, time order */
    size_t n_events, events_cap;
    uint16_t *status;           /* owned, one per run */
    uint32_t *info;             /* owned, one per run */
};

static int
threadlife_event_cmp(const void *x, const void *y)
{
    const threadlife_event *p = x, *q = y;
    if (p->time_ns != q->time_ns)
        return p->time_ns < q->time_ns ? -1 : 1;
    return p->offset < q->offset ? -1 : p->offset > q->offset;
}

/* Runs [a, m) and [m, b) of `runs`, each in start order, merged into start order (ties:
 * the first stretch's first, so lane order is kept), through tmp. */
static void
threadlife_merge(threadlife_run *runs, threadlife_run *tmp, size_t a, size_t m, size_t b)
{
    if (a == m || m == b)
        return;             /* one side empty: already in order */
    size_t i = a, j = m, k = a;
    while (i < m && j < b)
        tmp[k++] = runs[j].start_ns < runs[i].start_ns ? runs[j++] : runs[i++];
    while (i < m)
        tmp[k++] = runs[i++];
    while (j < b)
        tmp[k++] = runs[j++];
    memcpy(runs + a, tmp + a, (b - a) * sizeof *runs);
}

/* Every run of the thread on every lane: only the blocks whose tid bounds hold it are
 * read, and of those only the ones whose tids have it in full. Runs come lane by lane,
 * each lane's in start order, and are merged lane pair by lane pair (a thread of
 * millions of runs is not sorted from scratch). With *stop set it gives up: the runs
 * are then incomplete and the caller throws them away. */
static void
threadlife_collect_runs(threadlife *tl, const atomic_bool *stop)
{
    const evindex *ix = tl->ix;
    size_t n_caps = evindex_n_caps(ix), cap = 0;
    tl->lane_first = xcalloc(n_caps + 1, sizeof *tl->lane_first);   /* owned by tl */
    runlane_block *bl = xmalloc(sizeof *bl);                        /* freed below */
    for (size_t li = 0; li < n_caps; li++) {
        const evindex_cap *c = evindex_cap_at(ix, li);
        size_t n_blocks = runlane_n_blocks(c->runs);
        for (size_t b = 0; b < n_blocks; b++) {
            if (stop && b % 1024 == 0 && atomic_load(stop))
                break;
            uint32_t lo, hi;
            runlane_block_tids(c->runs, b, &lo, &hi);
            if (tl->tid < lo || tl->tid > hi)
                continue;
            runlane_block_get(c->runs, b, bl, RUNLANE_COL_TID);
            bool any = false;
            for (size_t j = 0; j < bl->len && !any; j++)
                any = bl->tid[j] == tl->tid;
            if (!any)
                continue;
            runlane_block_get(c->runs, b, bl,
                              RUNLANE_COL_START | RUNLANE_COL_DUR | RUNLANE_COL_STOP);
            for (size_t j = 0; j < bl->len; j++) {
                if (bl->tid[j] != tl->tid)
                    continue;
                xgrowarray((void **)&tl->runs, &cap, tl->n_runs + 1, 16, sizeof *tl->runs);
                tl->runs[tl->n_runs++] = (threadlife_run){
                    .start_ns = bl->start_ns[j], .end_ns = bl->start_ns[j] + bl->dur_ns[j],
                    .cap_lane = li, .run_index = bl->first + j, .cap = c->cap,
                    .status = bl->stop[j], .flags = bl->flags[j],
                };
                tl->run_ns += bl->dur_ns[j];
            }
        }
        tl->lane_first[li + 1] = tl->n_runs;     /* for now: where lane li's runs end */
    }
    x_free(bl);
    /* Merge the lanes' sorted stretches: pairs of lanes, then pairs of pairs ... */
    threadlife_run *tmp = xmalloc((tl->n_runs + 1) * sizeof *tmp);     /* freed below */
    for (size_t w = 1; w < n_caps; w *= 2)
        for (size_t l0 = 0; l0 + w < n_caps; l0 += 2 * w) {
            size_t l2 = l0 + 2 * w < n_caps ? l0 + 2 * w : n_caps;
            threadlife_merge(tl->runs, tmp, tl->lane_first[l0], tl->lane_first[l0 + w],
                             tl->lane_first[l2]);
        }
    x_free(tmp);
    memset(tl->lane_first, 0, (n_caps + 1) * sizeof *tl->lane_first);
    /* Counting sort of the run indexes by lane; start order is kept inside a lane. */
    for (size_t i = 0; i < tl->n_runs; i++)
        tl->lane_first[tl->runs[i].cap_lane + 1]++;
    for (size_t li = 0; li < n_caps; li++)
        tl->lane_first[li + 1] += tl->lane_first[li];
    tl->lane_runs = xmalloc((tl->n_runs + 1) * sizeof *tl->lane_runs);     /* owned by tl */
    size_t *fill = xcalloc(n_caps + 1, sizeof *fill);                      /* freed below */
    for (size_t i = 0; i < tl->n_runs; i++) {
        size_t li = tl->runs[i].cap_lane;
        tl->lane_runs[tl->lane_first[li] + fill[li]++] = i;
    }
    x_free(fill);
}

/* Lane li's run of `tid` nearest to run index k: the first at or after k (dir > 0) or
 * the last before k (dir < 0), reading only the blocks whose tid bounds hold it. */
static bool
threadlife_seek_lane(const evindex *ix, size_t li, uint32_t tid, size_t k, int dir,
                     runlane_block *bl, threadlife_run *out)
{
    const evindex_cap *c = evindex_cap_at(ix, li);
    size_t n = runlane_count(c->runs);
    if (dir > 0 ? k >= n : k == 0)
        return false;
    size_t first = dir > 0 ? k : k - 1;     /* the run looked at first */
    size_t n_blocks = runlane_n_blocks(c->runs);
    for (size_t b = first / RUNLANE_CHUNK; b < n_blocks; b = dir > 0 ? b + 1 : b - 1) {
        uint32_t lo, hi;
        runlane_block_tids(c->runs, b, &lo, &hi);
        if (tid < lo || tid > hi)
            continue;
        runlane_block_get(c->runs, b, bl, RUNLANE_COL_TID);
        size_t j = b == first / RUNLANE_CHUNK ? first % RUNLANE_CHUNK
                                              : dir > 0 ? 0 : bl->len - 1;
        for (; j < bl->len && bl->tid[j] != tid; j = dir > 0 ? j + 1 : j - 1)
            ;
        if (j >= bl->len)
            continue;       /* (j wrapped below 0 going back) */
        runlane_block_get(c->runs, b, bl, RUNLANE_COL_START | RUNLANE_COL_DUR | RUNLANE_COL_STOP);
        *out = (threadlife_run){
            .start_ns = bl->start_ns[j], .end_ns = bl->start_ns[j] + bl->dur_ns[j],
            .cap_lane = li, .run_index = bl->first + j, .cap = c->cap,
            .status = bl->stop[j], .flags = bl->flags[j],
        };
        return true;
    }
    return false;           /* (b wrapped below 0 going back) */
}

bool
threadlife_seek_run(const evindex *ix, uint32_t tid, uint64_t t, int dir, threadlife_run *out)
{
    runlane_block *bl = xmalloc(sizeof *bl);    /* freed below */
    bool found = false;
    for (size_t li = 0; li < evindex_n_caps(ix); li++) {
        const runlane *rl = evindex_cap_at(ix, li)->runs;
        /* The lane's runs that start before t: where the search begins either way. */
        size_t k = t == 0 ? 0 : runlane_last_starting_by(rl, t - 1) + 1;
        threadlife_run r;
        if (!threadlife_seek_lane(ix, li, tid, k, dir, bl, &r))
            continue;
        /* Ties in start order as threadlife_step has them: lane order. */
        if (!found || (dir > 0 ? r.start_ns < out->start_ns : r.start_ns >= out->start_ns)) {
            *out = r;
            found = true;
        }
    }
    x_free(bl);
    return found;
}

uint32_t
threadlife_running_on(const evindex *ix, uint16_t cap, uint64_t t)
{
    size_t li = evindex_lane_of(ix, cap);
    if (li == SIZE_MAX)
        return 0;
    const runlane *rl = evindex_cap_at(ix, li)->runs;
    size_t i = runlane_last_starting_by(rl, t);
    if (i == SIZE_MAX)
        return 0;
    runlane_run r;
    runlane_get(rl, i, &r);
    return r.end_ns >= t ? r.tid : 0;
}

static void
threadlife_push(threadlife_extra *x, const threadlife_event *e)
{
    xgrowarray((void **)&x->events, &x->events_cap, x->n_events + 1, 16, sizeof *x->events);
    x->events[x->n_events++] = *e;
}

/* Index of the run ending at t on lane li, by binary search over the thread's runs of
 * that lane; SIZE_MAX if none. */
static size_t
threadlife_run_ending(const threadlife *tl, size_t li, uint64_t t)
{
    if (li == SIZE_MAX)
        return SIZE_MAX;
    size_t lo = tl->lane_first[li], hi = tl->lane_first[li + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->runs[tl->lane_runs[mid]].end_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < tl->lane_first[li + 1]; lo++) {
        const threadlife_run *r = &tl->runs[tl->lane_runs[lo]];
        if (r->end_ns != t)
            break;
        if (!(r->flags & RUNLANE_F_OPEN))
            return tl->lane_runs[lo];
    }
    return SIZE_MAX;
}

/* The big-endian u32 at the start of a payload (every event this pass wants begins with
 * the thread id). */
static bool
threadlife_first_u32(const evlog_event *ev, uint32_t *v)
{
    if (ev->payload_len < 4)
        return false;
    const uint8_t *p = ev->payload;
    *v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return true;
}

/* Events between two looks at the stop flag. */
#define THREADLIFE_STOP_EVERY 16384u

threadlife_extra *
threadlife_read(const threadlife *tl, const atomic_bool *stop)
{
    threadlife_extra *x = xcalloc(1, sizeof *x);    /* caller frees: threadlife_take */
    x->status = xmalloc((tl->n_runs + 1) * sizeof *x->status);
    x->info = xmalloc((tl->n_runs + 1) * sizeof *x->info);
    for (size_t i = 0; i < tl->n_runs; i++) {
        x->status[i] = tl->runs[i].status;
        x->info[i] = tl->runs[i].info;
    }
    const evindex *ix = tl->ix;
    const evlog *log = evindex_log(ix);
    uint64_t cut = UINT64_MAX;
    evlog_iter it;
    evlog_iter_init(&it, log);
    if (evlog_changed(log, &cut))
        evlog_iter_cut(&it, cut);
    evlog_event ev;
    for (unsigned k = 0; evlog_iter_next(&it, &ev); k++) {
        if (stop && k % THREADLIFE_STOP_EVERY == 0 && atomic_load(stop)) {
            threadlife_extra_free(x);
            return NULL;
        }
        uint32_t tid;
        switch (ev.type) {
        case EV_CREATE_THREAD: case EV_THREAD_WAKEUP: case EV_MIGRATE_THREAD:
        case EV_THREAD_LABEL: case EV_STOP_THREAD:
            break;
        default:
            continue;
        }
        if (!threadlife_first_u32(&ev, &tid) || tid != tl->tid)
            continue;
        evdecoded dec;
        decode_event(&ev, &dec);
        threadlife_event e = { .time_ns = ev.time_ns, .offset = ev.offset, .cap = ev.cap };
        switch (ev.type) {
        case EV_STOP_THREAD: {
            size_t r = threadlife_run_ending(tl, evindex_lane_of(ix, ev.cap), ev.time_ns);
            if (r != SIZE_MAX && dec.n_present >= 2) {
                x->status[r] = (uint16_t)dec.f[1].u;
                x->info[r] = dec.n_present >= 3 ? (uint32_t)dec.f[2].u : 0;
            }
            continue;
        }
        case EV_CREATE_THREAD:
            e.kind = THREADLIFE_CREATE;
            e.by_tid = threadlife_running_on(ix, ev.cap, ev.time_ns);
            break;
        case EV_THREAD_LABEL:
            e.kind = THREADLIFE_LABEL;
            break;
        case EV_THREAD_WAKEUP:
            e.kind = THREADLIFE_WAKEUP;
            e.other_cap = dec.n_present >= 2 ? (uint16_t)dec.f[1].u : ev.cap;
            e.by_tid = threadlife_running_on(ix, ev.cap, ev.time_ns);
            break;
        default:        /* EV_MIGRATE_THREAD */
            e.kind = THREADLIFE_MIGRATE;
            e.other_cap = dec.n_present >= 2 ? (uint16_t)dec.f[1].u : ev.cap;
            break;
        }
        if (e.by_tid == tl->tid)
            e.by_tid = 0;       /* a thread's own run ending at the instant is not "by" */
        threadlife_push(x, &e);
    }
    if (x->n_events > 1)
        qsort(x->events, x->n_events, sizeof *x->events, threadlife_event_cmp);
    return x;
}

void
threadlife_take(threadlife *tl, threadlife_extra *x)
{
    if (!x)
        return;
    for (size_t i = 0; i < tl->n_runs; i++) {
        tl->runs[i].status = x->status[i];
        tl->runs[i].info = x->info[i];
    }
    x_free(tl->events);
    tl->events = x->events;
    tl->n_events = x->n_events;
    tl->complete = true;
    x->events = NULL;
    threadlife_extra_free(x);
}

void
threadlife_extra_free(threadlife_extra *x)
{
    if (!x)
        return;
    x_free(x->events);
    x_free(x->status);
    x_free(x->info);
    x_free(x);
}

threadlife *
threadlife_new_runs(const evindex *ix, uint32_t tid, const atomic_bool *stop)
{
    threadlife *tl = xcalloc(1, sizeof *tl);    /* caller frees: threadlife_free */
    tl->ix = ix;
    tl->tid = tid;
    threadlife_collect_runs(tl, stop);
    return tl;
}

threadlife *
threadlife_new(const evindex *ix, uint32_t tid)
{
    threadlife *tl = threadlife_new_runs(ix, tid, NULL);  /* caller frees: threadlife_free */
    threadlife_take(tl, threadlife_read(tl, NULL));
    return tl;
}

void
threadlife_free(threadlife *tl)
{
    if (!tl)
        return;
    x_free(tl->runs);
    x_free(tl->lane_first);
    x_free(tl->lane_runs);
    x_free(tl->events);
    x_free(tl);
}

bool threadlife_complete(const threadlife *tl) { return tl->complete; }
uint32_t threadlife_tid(const threadlife *tl) { return tl->tid; }
size_t threadlife_n_runs(const threadlife *tl) { return tl->n_runs; }
size_t threadlife_n_events(const threadlife *tl) { return tl->n_events; }
uint64_t threadlife_run_ns(const threadlife *tl) { return tl->run_ns; }

const threadlife_run *
threadlife_run_at(const threadlife *tl, size_t i)
{
    return i < tl->n_runs ? &tl->runs[i] : NULL;
}

const threadlife_event *
threadlife_event_at(const threadlife *tl, size_t i)
{
    return i < tl->n_events ? &tl->events[i] : NULL;
}

/* Number of runs starting at or before t (strictly before when `strict`). */
static size_t
threadlife_count_starting(const threadlife *tl, uint64_t t, bool strict)
{
    size_t lo = 0, hi = tl->n_runs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = tl->runs[mid].start_ns;
        if (strict ? s < t : s <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t
threadlife_step(const threadlife *tl, uint64_t t, int dir)
{
    if (dir > 0) {
        size_t i = threadlife_count_starting(tl, t, false);
        return i < tl->n_runs ? i : SIZE_MAX;
    }
    size_t i = threadlife_count_starting(tl, t, true);
    return i > 0 ? i - 1 : SIZE_MAX;
}

size_t
threadlife_run_containing(const threadlife *tl, uint64_t t)
{
    size_t i = threadlife_count_starting(tl, t, false);
    if (i == 0)
        return SIZE_MAX;
    const threadlife_run *r = &tl->runs[i - 1];
    return t < r->end_ns || t == r->start_ns ? i - 1 : SIZE_MAX;
}

bool
threadlife_runs_in(const threadlife *tl, size_t cap_lane, uint64_t a, uint64_t b)
{
    if (cap_lane >= evindex_n_caps(tl->ix) || a >= b)
        return false;
    size_t lo = tl->lane_first[cap_lane], end = tl->lane_first[cap_lane + 1], hi = end;
    /* Ends ascend within a lane (its runs never overlap): the first that reaches a. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->runs[tl->lane_runs[mid]].end_ns < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < end; lo++) {
        const threadlife_run *r = &tl->runs[tl->lane_runs[lo]];
        if (r->start_ns >= b)
            return false;
        if (r->end_ns > a || (r->start_ns == r->end_ns && r->start_ns >= a))
            return true;
    }
    return false;
}
