/* threadlife: a thread's runs collected from every run lane, merged into start order,
 * with per-lane index arrays for O(log n) "does it run in this column" queries, and its
 * instants (create, label, wake-up, migrate) from a walk over the events, each
 * STOP_THREAD matched to the run it ended — the walk apart, so it can run on a worker
 * while the runs are already in use. Over an index that grows (a live log) a life is
 * extended by what was added: the runs placed since (each lane only appends) and the
 * log bytes written since, its unmatched stops and unsettled wakers tried again. */
#include "threadlife.h"

#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "runlane.h"
#include "xalloc.h"

/* A STOP_THREAD of the thread whose run is not placed yet (kept to be matched later). */
typedef struct threadlife_stop {
    uint64_t time_ns;
    uint32_t info;
    uint16_t cap, status;
} threadlife_stop;

/* An instant by its place in the time order (time, file offset). */
typedef struct threadlife_key {
    uint64_t time_ns, offset;
} threadlife_key;

/* The runs of one lane, as indexes into tl->runs in start order. */
typedef struct threadlife_lane {
    uint16_t cap;
    size_t seen;                /* the lane's runs gathered: its runlane_count then */
    size_t *runs;               /* owned */
    size_t n, cap_runs;
} threadlife_lane;

struct threadlife {
    const evindex *ix;          /* borrowed */
    uint32_t tid;
    threadlife_run *runs;       /* owned, order (start, lane, run index) */
    size_t n_runs, cap_runs;
    threadlife_lane *lanes;     /* owned: the index's lanes at the last gather, cap order */
    size_t n_lanes;
    threadlife_event *events;   /* owned, time order */
    size_t n_events, cap_events;
    uint64_t run_ns;
    bool complete;              /* the instants and stop details were read */
    bool walked;                /* `it` is where the walk over the events stopped */
    uint64_t walked_bytes;      /* log bytes walked by every pass so far */
    evlog_iter it;
    threadlife_stop *stops;     /* owned: STOP_THREADs whose run is not placed yet */
    size_t n_stops;
    threadlife_key *unsettled;  /* owned: CREATE/WAKEUP instants whose cap may still get
                                 * a run at their time (their by_tid may change) */
    size_t n_unsettled;
};

/* A fix to a run found by the walk: its STOP_THREAD's status and blocked-on field. */
typedef struct threadlife_fix {
    size_t run;
    uint32_t info;
    uint16_t status;
} threadlife_fix;

/* A waker found again for an unsettled instant of tl->events. */
typedef struct threadlife_refix {
    size_t event;
    uint32_t by_tid;
} threadlife_refix;

/* What a pass over what was added finds (threadlife_read): runs placed since the last
 * gather, the instants in the bytes written since, the fixes to the runs it had. */
struct threadlife_extra {
    threadlife_run *runs;       /* owned; new runs, order (start, lane, run index) */
    size_t n_runs, cap_runs;
    threadlife_lane *lanes;     /* owned; the index's lanes now (runs unused) */
    size_t n_lanes;
    threadlife_fix *fixes;      /* owned; to tl's runs (indexes before the merge) */
    size_t n_fixes, cap_fixes;
    threadlife_event *events;   /* owned; new instants, time order */
    size_t n_events, cap_events;
    threadlife_refix *refixes;  /* owned */
    size_t n_refixes, cap_refixes;
    threadlife_stop *stops;     /* owned; still unmatched after this pass */
    size_t n_stops, cap_stops;
    threadlife_key *unsettled;  /* owned; still unsettled after this pass */
    size_t n_unsettled, cap_unsettled;
    evlog_iter it;              /* where the walk stopped */
    uint64_t walked_bytes;
};

static int
threadlife_event_cmp(const void *x, const void *y)
{
    const threadlife_event *p = x, *q = y;
    if (p->time_ns != q->time_ns)
        return p->time_ns < q->time_ns ? -1 : 1;
    return p->offset < q->offset ? -1 : p->offset > q->offset;
}

/* The runs' order: start, then lane, then the run's place on its lane (what merging
 * the lanes' start-ordered stretches, lower lanes first on ties, gives). */
static bool
threadlife_run_before(const threadlife_run *p, const threadlife_run *q)
{
    if (p->start_ns != q->start_ns)
        return p->start_ns < q->start_ns;
    if (p->cap != q->cap)
        return p->cap < q->cap;     /* lanes are in cap order */
    return p->run_index < q->run_index;
}

/* Runs [a, m) and [m, b) of `runs`, each in order, merged into order through tmp. */
static void
threadlife_merge(threadlife_run *runs, threadlife_run *tmp, size_t a, size_t m, size_t b)
{
    if (a == m || m == b)
        return;             /* one side empty: already in order */
    size_t i = a, j = m, k = a;
    while (i < m && j < b)
        tmp[k++] = threadlife_run_before(&runs[j], &runs[i]) ? runs[j++] : runs[i++];
    while (i < m)
        tmp[k++] = runs[i++];
    while (j < b)
        tmp[k++] = runs[j++];
    memcpy(runs + a, tmp + a, (b - a) * sizeof *runs);
}

/* tl's lane of capability `cap`, SIZE_MAX if it had none. */
static size_t
threadlife_lane_of(const threadlife *tl, uint16_t cap)
{
    size_t lo = 0, hi = tl->n_lanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->lanes[mid].cap < cap)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < tl->n_lanes && tl->lanes[lo].cap == cap ? lo : SIZE_MAX;
}

/* The runs of the thread placed on every lane since tl's last gather, into x (with the
 * index's lanes now): only the blocks past what was seen whose tid bounds hold it are
 * read, and of those only the ones whose tids have it in full. Runs come lane by lane,
 * each lane's in start order, and are merged lane pair by lane pair (a thread of
 * millions of runs is not sorted from scratch). With *stop set it gives up: the runs
 * are then incomplete and the caller throws them away. */
static void
threadlife_collect_runs(const threadlife *tl, threadlife_extra *x, const atomic_bool *stop)
{
    const evindex *ix = tl->ix;
    size_t n_caps = evindex_n_caps(ix);
    x->n_lanes = n_caps;
    x->lanes = xcalloc(n_caps + 1, sizeof *x->lanes);              /* owned by x */
    size_t *lane_end = xcalloc(n_caps + 1, sizeof *lane_end);      /* freed below */
    runlane_block *bl = xmalloc(sizeof *bl);                        /* freed below */
    for (size_t li = 0; li < n_caps; li++) {
        const evindex_cap *c = evindex_cap_at(ix, li);
        size_t old = tl->n_lanes ? threadlife_lane_of(tl, c->cap) : SIZE_MAX;
        size_t from = old == SIZE_MAX ? 0 : tl->lanes[old].seen;
        x->lanes[li].cap = c->cap;
        x->lanes[li].seen = runlane_count(c->runs);
        size_t n_blocks = runlane_n_blocks(c->runs);
        for (size_t b = from / RUNLANE_CHUNK; b < n_blocks; b++) {
            if (stop && b % 1024 == 0 && atomic_load(stop))
                break;
            uint32_t lo, hi;
            runlane_block_tids(c->runs, b, &lo, &hi);
            if (tl->tid < lo || tl->tid > hi)
                continue;
            runlane_block_get(c->runs, b, bl, RUNLANE_COL_TID);
            size_t j0 = bl->first < from ? from - bl->first : 0;
            bool any = false;
            for (size_t j = j0; j < bl->len && !any; j++)
                any = bl->tid[j] == tl->tid;
            if (!any)
                continue;
            runlane_block_get(c->runs, b, bl,
                              RUNLANE_COL_START | RUNLANE_COL_DUR | RUNLANE_COL_STOP);
            for (size_t j = j0; j < bl->len; j++) {
                if (bl->tid[j] != tl->tid)
                    continue;
                xgrowarray((void **)&x->runs, &x->cap_runs, x->n_runs + 1, 16,
                           sizeof *x->runs);
                x->runs[x->n_runs++] = (threadlife_run){
                    .start_ns = bl->start_ns[j], .end_ns = bl->start_ns[j] + bl->dur_ns[j],
                    .cap_lane = li, .run_index = bl->first + j, .cap = c->cap,
                    .status = bl->stop[j], .flags = bl->flags[j],
                };
            }
        }
        lane_end[li + 1] = x->n_runs;
    }
    x_free(bl);
    /* Merge the lanes' sorted stretches: pairs of lanes, then pairs of pairs ... */
    threadlife_run *tmp = xmalloc((x->n_runs + 1) * sizeof *tmp);     /* freed below */
    for (size_t w = 1; w < n_caps; w *= 2)
        for (size_t l0 = 0; l0 + w < n_caps; l0 += 2 * w) {
            size_t l2 = l0 + 2 * w < n_caps ? l0 + 2 * w : n_caps;
            threadlife_merge(x->runs, tmp, lane_end[l0], lane_end[l0 + w], lane_end[l2]);
        }
    x_free(tmp);
    x_free(lane_end);
}

/* The index's lanes as x found them become tl's: lanes new since are put in their
 * places (cap order; lanes only ever come) and every run's lane number follows. */
static void
threadlife_relane(threadlife *tl, threadlife_extra *x)
{
    if (x->n_lanes == tl->n_lanes) {
        for (size_t li = 0; li < tl->n_lanes; li++)
            tl->lanes[li].seen = x->lanes[li].seen;
        return;
    }
    threadlife_lane *lanes = x->lanes;
    for (size_t li = 0, k = 0; li < x->n_lanes; li++)
        if (k < tl->n_lanes && tl->lanes[k].cap == lanes[li].cap) {
            size_t seen = lanes[li].seen;
            lanes[li] = tl->lanes[k++];     /* takes its run indexes */
            lanes[li].seen = seen;
        }
    x_free(tl->lanes);
    tl->lanes = lanes;                      /* owned by tl */
    tl->n_lanes = x->n_lanes;
    x->lanes = NULL;
    for (size_t i = 0; i < tl->n_runs; i++)
        tl->runs[i].cap_lane = threadlife_lane_of(tl, tl->runs[i].cap);
}

static void
threadlife_lane_push(threadlife_lane *l, size_t run)
{
    xgrowarray((void **)&l->runs, &l->cap_runs, l->n + 1, 16, sizeof *l->runs);
    l->runs[l->n++] = run;
}

/* x's new runs merged into tl's: only the tail of tl's runs that starts after the first
 * new one moves, and the lanes' index arrays are redone from there. */
static void
threadlife_take_runs(threadlife *tl, threadlife_extra *x)
{
    threadlife_relane(tl, x);
    for (size_t k = 0; k < x->n_fixes; k++) {
        tl->runs[x->fixes[k].run].status = x->fixes[k].status;
        tl->runs[x->fixes[k].run].info = x->fixes[k].info;
    }
    if (x->n_runs == 0)
        return;
    size_t lo = 0, hi = tl->n_runs;         /* the first old run after the first new */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (threadlife_run_before(&x->runs[0], &tl->runs[mid]))
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t p = lo, n = tl->n_runs + x->n_runs, n_tail = tl->n_runs - p;
    xgrowarray((void **)&tl->runs, &tl->cap_runs, n + 1, 16, sizeof *tl->runs);
    threadlife_run *tail = xmalloc((n_tail + 1) * sizeof *tail);    /* freed below */
    memcpy(tail, tl->runs + p, n_tail * sizeof *tail);
    size_t i = 0, j = 0, k = p;
    while (i < n_tail && j < x->n_runs)
        tl->runs[k++] = threadlife_run_before(&x->runs[j], &tail[i]) ? x->runs[j++] : tail[i++];
    while (i < n_tail)
        tl->runs[k++] = tail[i++];
    while (j < x->n_runs)
        tl->runs[k++] = x->runs[j++];
    x_free(tail);
    for (size_t r = 0; r < x->n_runs; r++)
        tl->run_ns += x->runs[r].end_ns - x->runs[r].start_ns;
    tl->n_runs = n;
    for (size_t li = 0; li < tl->n_lanes; li++) {
        threadlife_lane *l = &tl->lanes[li];
        while (l->n && l->runs[l->n - 1] >= p)
            l->n--;
    }
    for (size_t r = p; r < n; r++)
        threadlife_lane_push(&tl->lanes[tl->runs[r].cap_lane], r);
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

static void
threadlife_push(threadlife_extra *x, const threadlife_event *e)
{
    xgrowarray((void **)&x->events, &x->cap_events, x->n_events + 1, 16, sizeof *x->events);
    x->events[x->n_events++] = *e;
}

/* Of lane l's runs (indexes into runs, in start order, so ends ascend too) the first
 * not left open whose end is t, as its index into runs; SIZE_MAX if none. */
static size_t
threadlife_run_ending(const threadlife_run *runs, const size_t *lane, size_t n, uint64_t t)
{
    if (n == 0 || runs[lane[n - 1]].end_ns < t)
        return SIZE_MAX;    /* (a stop read with its run, after every run of the lane) */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (runs[lane[mid]].end_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < n; lo++) {
        const threadlife_run *r = &runs[lane[lo]];
        if (r->end_ns != t)
            break;
        if (!(r->flags & RUNLANE_F_OPEN))
            return lane[lo];
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

/* The waker of an instant of `tid` posted on cap at t (threadlife_running_on; 0 for the
 * thread itself: its own run ending at the instant is not "by"), and whether that is
 * known for good (*settled): a run placed on the cap's lane starts after t (lanes only
 * append runs, in start order). One search for both. */
static uint32_t
threadlife_by(const evindex *ix, uint32_t tid, uint16_t cap, uint64_t t, bool *settled)
{
    *settled = false;
    size_t li = evindex_lane_of(ix, cap);
    if (li == SIZE_MAX)
        return 0;
    const runlane *rl = evindex_cap_at(ix, li)->runs;
    size_t i = runlane_last_starting_by(rl, t);
    *settled = (i == SIZE_MAX ? 0 : i + 1) < runlane_count(rl);
    if (i == SIZE_MAX)
        return 0;
    runlane_run r;
    runlane_get(rl, i, &r);
    return r.end_ns >= t && r.tid != tid ? r.tid : 0;
}

uint32_t
threadlife_running_on(const evindex *ix, uint16_t cap, uint64_t t)
{
    bool settled;
    return threadlife_by(ix, 0, cap, t, &settled);  /* no thread has id 0 */
}

static void
threadlife_keep_unsettled(threadlife_extra *x, uint64_t time_ns, uint64_t offset)
{
    xgrowarray((void **)&x->unsettled, &x->cap_unsettled, x->n_unsettled + 1, 16,
               sizeof *x->unsettled);
    x->unsettled[x->n_unsettled++] = (threadlife_key){ time_ns, offset };
}

/* x's new runs grouped by lane (as the old code's lane arrays): for matching stops. */
typedef struct threadlife_newlanes {
    size_t *first;              /* owned: n_lanes + 1 offsets into runs */
    size_t *runs;               /* owned */
} threadlife_newlanes;

static void
threadlife_newlanes_make(const threadlife_extra *x, threadlife_newlanes *nl)
{
    nl->first = xcalloc(x->n_lanes + 2, sizeof *nl->first);     /* freed by caller */
    nl->runs = xmalloc((x->n_runs + 1) * sizeof *nl->runs);     /* freed by caller */
    for (size_t i = 0; i < x->n_runs; i++)
        nl->first[x->runs[i].cap_lane + 1]++;
    for (size_t li = 0; li < x->n_lanes; li++)
        nl->first[li + 1] += nl->first[li];
    size_t *fill = xcalloc(x->n_lanes + 1, sizeof *fill);       /* freed below */
    for (size_t i = 0; i < x->n_runs; i++) {
        size_t li = x->runs[i].cap_lane;
        nl->runs[nl->first[li] + fill[li]++] = i;
    }
    x_free(fill);
}

/* A STOP_THREAD of the thread: it fixes the run it ended, first among tl's runs (lower
 * on their lane), then among x's new ones; a stop whose run is not placed yet is kept
 * in x to be matched when the run comes. */
static void
threadlife_match_stop(const threadlife *tl, threadlife_extra *x, const threadlife_newlanes *nl,
                      const threadlife_stop *st)
{
    size_t li = threadlife_lane_of(tl, st->cap);
    size_t r = li == SIZE_MAX ? SIZE_MAX
                              : threadlife_run_ending(tl->runs, tl->lanes[li].runs,
                                                      tl->lanes[li].n, st->time_ns);
    if (r != SIZE_MAX) {
        xgrowarray((void **)&x->fixes, &x->cap_fixes, x->n_fixes + 1, 16, sizeof *x->fixes);
        x->fixes[x->n_fixes++] = (threadlife_fix){ r, st->info, st->status };
        return;
    }
    li = evindex_lane_of(tl->ix, st->cap);
    r = li == SIZE_MAX || li >= x->n_lanes
            ? SIZE_MAX
            : threadlife_run_ending(x->runs, nl->runs + nl->first[li],
                                    nl->first[li + 1] - nl->first[li], st->time_ns);
    if (r != SIZE_MAX) {
        x->runs[r].status = st->status;
        x->runs[r].info = st->info;
        return;
    }
    xgrowarray((void **)&x->stops, &x->cap_stops, x->n_stops + 1, 16, sizeof *x->stops);
    x->stops[x->n_stops++] = *st;
}

/* Events between two looks at the stop flag. */
#define THREADLIFE_STOP_EVERY 16384u

/* The instants and stops in the log bytes after x->it (set to where the last walk
 * stopped); false if *stop came. */
static bool
threadlife_walk(const threadlife *tl, threadlife_extra *x, const threadlife_newlanes *nl,
                const atomic_bool *stop)
{
    const evindex *ix = tl->ix;
    evlog_iter_mark m0, m1;
    evlog_iter_save(&x->it, &m0);
    evlog_event ev;
    for (unsigned k = 0; evlog_iter_next(&x->it, &ev); k++) {
        if (stop && k % THREADLIFE_STOP_EVERY == 0 && atomic_load(stop))
            return false;
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
        case EV_STOP_THREAD:
            if (dec.n_present >= 2) {
                threadlife_stop st = {
                    .time_ns = ev.time_ns, .cap = ev.cap, .status = (uint16_t)dec.f[1].u,
                    .info = dec.n_present >= 3 ? (uint32_t)dec.f[2].u : 0,
                };
                threadlife_match_stop(tl, x, nl, &st);
            }
            continue;
        case EV_CREATE_THREAD:
            e.kind = THREADLIFE_CREATE;
            break;
        case EV_THREAD_LABEL:
            e.kind = THREADLIFE_LABEL;
            break;
        case EV_THREAD_WAKEUP:
            e.kind = THREADLIFE_WAKEUP;
            e.other_cap = dec.n_present >= 2 ? (uint16_t)dec.f[1].u : ev.cap;
            break;
        default:        /* EV_MIGRATE_THREAD */
            e.kind = THREADLIFE_MIGRATE;
            e.other_cap = dec.n_present >= 2 ? (uint16_t)dec.f[1].u : ev.cap;
            break;
        }
        if (e.kind == THREADLIFE_CREATE || e.kind == THREADLIFE_WAKEUP) {
            bool settled;
            e.by_tid = threadlife_by(ix, tl->tid, ev.cap, ev.time_ns, &settled);
            if (!settled)
                threadlife_keep_unsettled(x, ev.time_ns, ev.offset);
        }
        threadlife_push(x, &e);
    }
    evlog_iter_save(&x->it, &m1);
    x->walked_bytes = m1.pos > m0.pos ? m1.pos - m0.pos : 0;
    return true;
}

/* Index of the instant of tl at key k, SIZE_MAX if none. */
static size_t
threadlife_event_find(const threadlife *tl, const threadlife_key *k)
{
    threadlife_event key = { .time_ns = k->time_ns, .offset = k->offset };
    const threadlife_event *e = bsearch(&key, tl->events, tl->n_events, sizeof *tl->events,
                                        threadlife_event_cmp);
    return e ? (size_t)(e - tl->events) : SIZE_MAX;
}

threadlife_extra *
threadlife_read(const threadlife *tl, const atomic_bool *stop)
{
    threadlife_extra *x = xcalloc(1, sizeof *x);    /* caller frees: threadlife_take */
    threadlife_collect_runs(tl, x, stop);
    if (stop && atomic_load(stop)) {
        threadlife_extra_free(x);
        return NULL;
    }
    const evindex *ix = tl->ix;
    threadlife_newlanes nl;
    threadlife_newlanes_make(x, &nl);
    /* Stops kept from before, in file order ahead of the new bytes' own. */
    for (size_t i = 0; i < tl->n_stops; i++)
        threadlife_match_stop(tl, x, &nl, &tl->stops[i]);
    /* Wakers not known for good last time, looked up again. */
    for (size_t i = 0; i < tl->n_unsettled; i++) {
        const threadlife_key *k = &tl->unsettled[i];
        size_t j = threadlife_event_find(tl, k);
        if (j == SIZE_MAX)
            continue;
        const threadlife_event *e = &tl->events[j];
        bool settled;
        uint32_t by = threadlife_by(ix, tl->tid, e->cap, e->time_ns, &settled);
        if (by != e->by_tid) {
            xgrowarray((void **)&x->refixes, &x->cap_refixes, x->n_refixes + 1, 16,
                       sizeof *x->refixes);
            x->refixes[x->n_refixes++] = (threadlife_refix){ j, by };
        }
        if (!settled)
            threadlife_keep_unsettled(x, k->time_ns, k->offset);
    }
    const evlog *log = evindex_log(ix);
    if (tl->walked) {
        x->it = tl->it;
        evlog_iter_resume(&x->it);      /* on to the log's size now */
    } else {
        evlog_iter_init(&x->it, log);
    }
    uint64_t cut = UINT64_MAX;
    if (evlog_changed(log, &cut))
        evlog_iter_cut(&x->it, cut);
    bool done = threadlife_walk(tl, x, &nl, stop);
    x_free(nl.first);
    x_free(nl.runs);
    if (!done) {
        threadlife_extra_free(x);
        return NULL;
    }
    if (x->n_events > 1)
        qsort(x->events, x->n_events, sizeof *x->events, threadlife_event_cmp);
    return x;
}

/* x's new instants merged into tl's (they may come before the newest ones: caps write
 * out of time order): only the tail after the first new one moves. */
static void
threadlife_take_events(threadlife *tl, threadlife_extra *x)
{
    for (size_t k = 0; k < x->n_refixes; k++)
        tl->events[x->refixes[k].event].by_tid = x->refixes[k].by_tid;
    if (x->n_events == 0)
        return;
    size_t lo = 0, hi = tl->n_events;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (threadlife_event_cmp(&x->events[0], &tl->events[mid]) < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    size_t p = lo, n = tl->n_events + x->n_events;
    xgrowarray((void **)&tl->events, &tl->cap_events, n + 1, 16, sizeof *tl->events);
    threadlife_event *tail = xmalloc((tl->n_events - p + 1) * sizeof *tail);  /* freed below */
    memcpy(tail, tl->events + p, (tl->n_events - p) * sizeof *tail);
    size_t i = 0, j = 0, k = p, n_tail = tl->n_events - p;
    while (i < n_tail && j < x->n_events)
        tl->events[k++] = threadlife_event_cmp(&x->events[j], &tail[i]) < 0 ? x->events[j++]
                                                                           : tail[i++];
    while (i < n_tail)
        tl->events[k++] = tail[i++];
    while (j < x->n_events)
        tl->events[k++] = x->events[j++];
    x_free(tail);
    tl->n_events = n;
}

void
threadlife_take(threadlife *tl, threadlife_extra *x)
{
    if (!x)
        return;
    threadlife_take_runs(tl, x);
    threadlife_take_events(tl, x);
    x_free(tl->stops);
    tl->stops = x->stops;
    tl->n_stops = x->n_stops;
    x->stops = NULL;
    x_free(tl->unsettled);
    tl->unsettled = x->unsettled;
    tl->n_unsettled = x->n_unsettled;
    x->unsettled = NULL;
    tl->it = x->it;
    tl->walked = true;
    tl->walked_bytes += x->walked_bytes;
    tl->complete = true;
    threadlife_extra_free(x);
}

static void
threadlife_lanes_free(threadlife_lane *lanes, size_t n)
{
    for (size_t li = 0; lanes && li < n; li++)
        x_free(lanes[li].runs);
    x_free(lanes);
}

void
threadlife_extra_free(threadlife_extra *x)
{
    if (!x)
        return;
    x_free(x->runs);
    threadlife_lanes_free(x->lanes, x->n_lanes);
    x_free(x->fixes);
    x_free(x->events);
    x_free(x->refixes);
    x_free(x->stops);
    x_free(x->unsettled);
    x_free(x);
}

threadlife *
threadlife_new_runs(const evindex *ix, uint32_t tid, const atomic_bool *stop)
{
    threadlife *tl = xcalloc(1, sizeof *tl);    /* caller frees: threadlife_free */
    tl->ix = ix;
    tl->tid = tid;
    threadlife_extra *x = xcalloc(1, sizeof *x);  /* freed below */
    threadlife_collect_runs(tl, x, stop);
    threadlife_take_runs(tl, x);
    threadlife_extra_free(x);
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
threadlife_extend(threadlife *tl)
{
    threadlife_take(tl, threadlife_read(tl, NULL));
}

uint64_t
threadlife_behind_bytes(const threadlife *tl)
{
    const evlog *log = evindex_log(tl->ix);
    uint64_t from = evlog_data_start(log);
    if (tl->walked) {
        evlog_iter_mark m;
        evlog_iter_save(&tl->it, &m);
        from = m.pos;
    }
    size_t size = evlog_size(log);
    return size > from ? size - from : 0;
}

uint64_t threadlife_walked_bytes(const threadlife *tl) { return tl->walked_bytes; }

void
threadlife_free(threadlife *tl)
{
    if (!tl)
        return;
    x_free(tl->runs);
    threadlife_lanes_free(tl->lanes, tl->n_lanes);
    x_free(tl->events);
    x_free(tl->stops);
    x_free(tl->unsettled);
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
    /* The index may have got lanes since the last gather: tl's lane of the same cap. */
    size_t li = tl->n_lanes == evindex_n_caps(tl->ix)
                    ? cap_lane
                    : threadlife_lane_of(tl, evindex_cap_at(tl->ix, cap_lane)->cap);
    if (li == SIZE_MAX)
        return false;
    const threadlife_lane *l = &tl->lanes[li];
    size_t lo = 0, hi = l->n;
    /* Ends ascend within a lane (its runs never overlap): the first that reaches a. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->runs[l->runs[mid]].end_ns < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < l->n; lo++) {
        const threadlife_run *r = &tl->runs[l->runs[lo]];
        if (r->start_ns >= b)
            return false;
        if (r->end_ns > a || (r->start_ns == r->end_ns && r->start_ns >= a))
            return true;
    }
    return false;
}
