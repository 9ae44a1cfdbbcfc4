/* threadlife: a thread's runs collected from every run lane, merged into start order,
 * with per-lane index arrays for O(log n) "does it run in this column" queries, and its
 * instants (create, label, wake-up, migrate) from one walk over the events, each
 * STOP_THREAD matched to the run it ended. */
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
    size_t n_events, events_cap;
    uint64_t run_ns;
};

static int
threadlife_run_cmp(const void *x, const void *y)
{
    const threadlife_run *p = x, *q = y;
    if (p->start_ns != q->start_ns)
        return p->start_ns < q->start_ns ? -1 : 1;
    return p->cap_lane < q->cap_lane ? -1 : p->cap_lane > q->cap_lane;
}

static int
threadlife_event_cmp(const void *x, const void *y)
{
    const threadlife_event *p = x, *q = y;
    if (p->time_ns != q->time_ns)
        return p->time_ns < q->time_ns ? -1 : 1;
    return p->offset < q->offset ? -1 : p->offset > q->offset;
}

/* Every run of the thread on every lane. */
static void
threadlife_collect_runs(threadlife *tl)
{
    const evindex *ix = tl->ix;
    size_t n_caps = evindex_n_caps(ix), cap = 0;
    tl->lane_first = xcalloc(n_caps + 1, sizeof *tl->lane_first);   /* owned by tl */
    for (size_t li = 0; li < n_caps; li++) {
        const evindex_cap *c = evindex_cap_at(ix, li);
        size_t n = runlane_count(c->runs);
        runlane_seq seq = { 0 };
        for (size_t i = 0; i < n; i++) {
            runlane_run r;
            runlane_get_seq(c->runs, i, &r, &seq);
            if (r.tid != tl->tid)
                continue;
            xgrowarray((void **)&tl->runs, &cap, tl->n_runs + 1, 16, sizeof *tl->runs);
            tl->runs[tl->n_runs++] = (threadlife_run){
                .start_ns = r.start_ns, .end_ns = r.end_ns, .cap_lane = li, .run_index = i,
                .cap = c->cap, .status = r.stop, .flags = r.flags,
            };
            tl->run_ns += r.end_ns - r.start_ns;
        }
    }
    if (tl->n_runs > 1)
        qsort(tl->runs, tl->n_runs, sizeof *tl->runs, threadlife_run_cmp);
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
threadlife_push(threadlife *tl, const threadlife_event *e)
{
    xgrowarray((void **)&tl->events, &tl->events_cap, tl->n_events + 1, 16,
               sizeof *tl->events);
    tl->events[tl->n_events++] = *e;
}

/* The run ending at t on lane li, by binary search over the thread's runs of that lane. */
static threadlife_run *
threadlife_run_ending(threadlife *tl, size_t li, uint64_t t)
{
    if (li == SIZE_MAX)
        return NULL;
    size_t lo = tl->lane_first[li], hi = tl->lane_first[li + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->runs[tl->lane_runs[mid]].end_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < tl->lane_first[li + 1]; lo++) {
        threadlife_run *r = &tl->runs[tl->lane_runs[lo]];
        if (r->end_ns != t)
            break;
        if (!(r->flags & RUNLANE_F_OPEN))
            return r;
    }
    return NULL;
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

/* One walk over the log's events for those naming the thread. */
static void
threadlife_collect_events(threadlife *tl)
{
    const evindex *ix = tl->ix;
    const evlog *log = evindex_log(ix);
    uint64_t cut = UINT64_MAX;
    evlog_iter it;
    evlog_iter_init(&it, log);
    if (evlog_changed(log, &cut))
        evlog_iter_cut(&it, cut);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
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
            threadlife_run *r = threadlife_run_ending(tl, evindex_lane_of(ix, ev.cap),
                                                      ev.time_ns);
            if (r && dec.n_present >= 2) {
                r->status = (uint16_t)dec.f[1].u;
                r->info = dec.n_present >= 3 ? (uint32_t)dec.f[2].u : 0;
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
        threadlife_push(tl, &e);
    }
    if (tl->n_events > 1)
        qsort(tl->events, tl->n_events, sizeof *tl->events, threadlife_event_cmp);
}

threadlife *
threadlife_new(const evindex *ix, uint32_t tid)
{
    threadlife *tl = xcalloc(1, sizeof *tl);    /* caller frees: threadlife_free */
    tl->ix = ix;
    tl->tid = tid;
    threadlife_collect_runs(tl);
    threadlife_collect_events(tl);
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
