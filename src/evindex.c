/* evindex: the build of the timeline index — one builder, fed the whole file at once
 * or a growing log block by block (evindex_grow). Events are taken in file order; a
 * capability's events come in its own blocks in the order it posted them, so each
 * capability's runs and GC phases are built by a small state machine per lane and only
 * append. Everything global (markers, series, flushes, collections) is placed by
 * builder_publish: in time order up to a placement horizon, late items merged in, the
 * collections joined again from the first that can still change. The one-shot build is
 * one walk and one final publish; the parallel one walks whole caps or ranges of blocks
 * on threads and stitches the builders before that publish (see "the parallel build"). */
#include "evindex.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "decode.h"
#include "evindex_int.h"
#include "radixsort.h"
#include "samplebuf.h"
#include "xalloc.h"

/* Append a slot to a growable array (owned by the index or builder) and point at it. */
#define EVINDEX_PUSH(arr, n, cap) \
    (xgrowarray((void **)&(arr), &(cap), (n) + 1, 64, sizeof *(arr)), &(arr)[(n)++])

/* GC phase of a capability while it is inside GC_START .. GC_END. */
enum evindex_phase { PH_WAIT, PH_WORK };

/* Per-lane state while building. */
typedef struct lane_state {
    bool run_open;
    bool run_any;               /* run_tid holds a thread already in the thread table */
    uint32_t run_tid;
    uint64_t run_start;

    bool in_gc;
    bool any_sub;               /* a GC_WORK/GC_IDLE/GC_DONE was seen in this GC */
    uint8_t phase;
    uint64_t phase_start;
    size_t span;                /* index of the open span */
    uint64_t span_wait;         /* its wait so far (evindex_span keeps no wait) */

    uint64_t alloc_last, spark_last[3];     /* summed series: this cap's last value */
    uint64_t alloc_first_ns;    /* time of its first HEAP_ALLOCATED fed, 0: none */
    uint64_t block_end_ns;      /* the latest end time its block markers claim, or 0 */
    /* What the lane's state is known to be: a builder that starts mid-log (a block
     * split's later worker) knows neither whether a run nor whether a GC is open; the
     * events that depend on it are kept as heads (lane_head) until the first event that
     * settles it. */
    uint8_t known;
} lane_state;

enum { LANE_KNOWN_RUN = 1, LANE_KNOWN_GC = 2, LANE_KNOWN_ALL = 3 };

/* What a lane's event did to a state its (mid-log) builder did not know; replayed
 * against the previous worker's tail state when the builders are stitched. */
enum lane_head_kind {
    HEAD_RUN_CUT,               /* RUN_THREAD or GC_START: an open run ends here (open) */
    HEAD_STOP,                  /* STOP_THREAD: an open run ends here with `status` */
    HEAD_GC_RESTART,            /* GC_START: an open GC ends here, flagged open */
    HEAD_GC_END,                /* GC_END: an open GC ends here */
    HEAD_GC_SUB,                /* GC_WORK/IDLE/DONE (`status` = type) in an open GC */
    HEAD_STATS,                 /* GC_STATS (local index `stats`) claims the open span */
};

typedef struct lane_head {
    uint64_t time_ns;
    uint32_t stats;
    uint16_t cap, status;
    uint8_t kind;
} lane_head;

/* Inputs to the GC join older than this are late: they change collections already
 * joined for good, which are joined again from before them (evindex_join_grow). */
static inline void
builder_late_at(uint64_t *late_ns, uint64_t t)
{
    if (t < *late_ns)
        *late_ns = t;
}

/* A sample of a summed or plain series, sorted by time before it is stored. */
typedef struct raw_sample {
    uint64_t time_ns, offset, value;
    uint32_t cap;               /* the lane's capability, for the per-cap ones */
    uint8_t id;                 /* evindex_series_id, or RAW_* below */
} raw_sample;

enum { RAW_ALLOC_CAP = EVINDEX_N_SERIES };

/* One SPARK_COUNTERS event's three counters (created, converted, remaining), sorted by
 * (time, offset) like the samples: one record where three samples took twice the room. */
typedef struct raw_spark {
    uint64_t time_ns, offset;
    uint64_t value[3];
    uint32_t cap;               /* the lane's capability */
} raw_spark;


typedef struct evindex_caplife {
    uint64_t time_ns;
    uint16_t cap, type;
} evindex_caplife;

typedef struct builder {
    evindex *ix;
    uint32_t *lane_of;          /* 65536 entries: 1 + lane index, 0 = none yet */
    lane_state *ls;
    size_t cap_lanes;

    evindex_statsv stats;       /* GC_STATS events, file order */
    evindex_gcmark *marks;
    size_t n_marks, cap_marks;
    raw_sample *samples;
    size_t n_samples, cap_samples;
    raw_spark *sparks;          /* SPARK_COUNTERS not yet in the series, file order */
    size_t n_sparks, cap_sparks;
    /* A one-shot builder's samples and spark counters instead (a growing one keeps them
     * in the arrays above): delta-encoded streams keyed by (series id << 16 | the
     * block's cap) and by cap, placed once, at the end. Owned, made at the first. */
    samplebuf *sample_q, *spark_q;
    size_t cap_census, cap_flushes, cap_cycles;
    /* CAP_CREATE/DELETE/DISABLE/ENABLE, applied to the lanes when the build finishes
     * (a global event must not create lanes: parallel builders own disjoint caps). */
    evindex_caplife *caplife;
    size_t n_caplife, cap_caplife;
    /* A builder that starts mid-log (block split): its lanes start unknown, and their
     * heads wait for the stitch, in file order. */
    bool mid;
    /* A mid-log builder met a non-moving phase, ticky or IPE event: built by one builder
     * only (GHC writes them in the global block), so its stitch fails (builder_stitch). */
    bool solo_seen;
    lane_head *heads;
    size_t n_heads, cap_heads;

    /* Non-moving state. */
    bool nm_cycle_open, nm_phase_open;
    uint8_t nm_phase;
    uint64_t nm_phase_start;

    /* Heap-profile census in progress, and every census's BEGIN .. END window. */
    bool hp_open;
    uint64_t hp_time, hp_total;
    bool hp_bio;                /* a biographical census: hp_time is its own field */
    /* A mid-log builder does not know whether a census is open where it starts, until its
     * first SAMPLE_BEGIN or SAMPLE_END (hp_known): the samples before it go to a head
     * census (census 0 of ix->heap, hp_head), their bytes to hp_head_total, and that
     * first BEGIN or END (hp_head_end: an END) at hp_head_offset, hp_head_time closes
     * the previous worker's census at the stitch (builder_stitch_heap). */
    bool hp_known, hp_head, hp_head_end;
    uint64_t hp_head_total, hp_head_offset, hp_head_time;
    evindex_census_win *hp_wins;
    size_t n_hp_wins, cap_hp_wins;

    /* What is walked but not yet placed in the index (builder_publish places it):
     * messages (a growing builder's; a one-shot one adds them to ix->msgs as they
     * come), remembered-set flushes, and the tails of marks and hp_wins past their
     * sorted prefixes; samples (above) hold those not yet in the series. */
    evindex_msg *pend_msgs;
    size_t n_pend_msgs, cap_pend_msgs;
    evindex_instant *pend_flushes;
    size_t n_pend_flushes, cap_pend_flushes;
    size_t n_marks_sorted, n_hp_wins_sorted;
    size_t n_caplife_applied;
    size_t nm_counted;          /* cycles before this have their final flush count */
    /* Series state carried from one publish to the next. */
    bool growing;               /* publishes before the end: keeps `placed` */
    bool side_dirty;            /* heap profile or IPE data since the last seal */
    bool ticky_dirty;           /* ticky data since the last seal */
    raw_sample *placed;         /* samples in the series, time order (growing only) */
    size_t n_placed, cap_placed;
    raw_spark *placed_sparks;   /* spark counters in the series, likewise */
    size_t n_placed_sparks, cap_placed_sparks;
    uint64_t alloc_sum, spark_sum[3];
    /* Placement: 1 + the newest time each capability wrote (0: none), 65536 entries. */
    uint64_t *newest;
    uint64_t horizon_ns;        /* the last publish's placement horizon */
    evindex_join join;
    uint64_t late_ns;           /* earliest join input since the last join (builder_late_at) */
    evindex_grow_work work;
    evindex_prof *prof;         /* borrowed from the options, or NULL */
    /* Threads known to be in ix->threads, direct-mapped: 1 + tid at tid % EVINDEX_SEEN
     * (0: none), so that a run of a thread the table holds skips its lookup. */
    uint32_t seen_tid[4096];
    /* Where the thread table's pages of the threads met are (threadtab_near). */
    threadtab_near tt_near;
} builder;

#define EVINDEX_SEEN 4096u

/* ---- the build's profile (evindex_prof) ------------------------------------------ */

/* A stage's start: this thread's CPU clock and the wall clock (zero without a profile). */
typedef struct prof_mark {
    uint64_t cpu_ns, wall_ns;
} prof_mark;

static uint64_t
prof_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static prof_mark
prof_start(const evindex_prof *p)
{
    if (!p)
        return (prof_mark){ 0, 0 };
    return (prof_mark){ prof_clock_ns(CLOCK_THREAD_CPUTIME_ID), prof_clock_ns(CLOCK_MONOTONIC) };
}

/* Record a stage that took cpu_ns of its thread's CPU and wall_ns. */
static void
prof_put(evindex_prof *p, const char *name, uint64_t cpu_ns, uint64_t wall_ns,
         unsigned section, unsigned lane)
{
    unsigned i = atomic_fetch_add(&p->n, 1);
    if (i < EVINDEX_PROF_MAX)
        p->stage[i] = (evindex_prof_stage){ name, cpu_ns, wall_ns, section, lane };
}

/* Record the stage begun at *m and start the next one there. */
static void
prof_stage(evindex_prof *p, prof_mark *m, const char *name, unsigned section, unsigned lane)
{
    if (!p)
        return;
    prof_mark now = prof_start(p);
    prof_put(p, name, now.cpu_ns - m->cpu_ns, now.wall_ns - m->wall_ns, section, lane);
    *m = now;
}

/* A new section number for stages that run beside each other (0 without a profile). */
static unsigned
prof_section(evindex_prof *p)
{
    return p ? atomic_fetch_add(&p->sections, 1) + 1 : 0;
}

uint64_t
evindex_prof_critical_ns(const evindex_prof *p)
{
    unsigned n = atomic_load(&p->n), n_sec = atomic_load(&p->sections);
    if (n > EVINDEX_PROF_MAX)
        n = EVINDEX_PROF_MAX;
    uint64_t total = 0;
    for (unsigned i = 0; i < n; i++)
        if (p->stage[i].section == 0)
            total += p->stage[i].cpu_ns;
    for (unsigned sec = 1; sec <= n_sec; sec++) {
        uint64_t most = 0;
        for (unsigned lane = 0; lane < EVINDEX_PROF_MAX; lane++) {
            uint64_t sum = 0;
            for (unsigned i = 0; i < n; i++)
                if (p->stage[i].section == sec && p->stage[i].lane == lane)
                    sum += p->stage[i].cpu_ns;
            most = sum > most ? sum : most;
        }
        total += most;
    }
    return total;
}

uint64_t
evindex_prof_cpu_ns(const evindex_prof *p)
{
    unsigned n = atomic_load(&p->n);
    uint64_t total = 0;
    for (unsigned i = 0; i < n && i < EVINDEX_PROF_MAX; i++)
        total += p->stage[i].cpu_ns;
    return total;
}

/* ---- payload reads (fields past the payload read as 0) ---------------------------- */

static inline uint16_t
pl16(const evlog_event *ev, size_t off)
{
    return off + 2 <= ev->payload_len ? cursor_be16(ev->payload + off) : 0;
}

static inline uint32_t
pl32(const evlog_event *ev, size_t off)
{
    return off + 4 <= ev->payload_len ? cursor_be32(ev->payload + off) : 0;
}

static inline uint64_t
pl64(const evlog_event *ev, size_t off)
{
    return off + 8 <= ev->payload_len ? cursor_be64(ev->payload + off) : 0;
}

/* ---- lanes ------------------------------------------------------------------------- */

/* Room for a lane at its place in ascending cap order (lanes only ever come, so the
 * index is in cap order at any time): lanes after it, their states and lane_of move
 * up one. Returns its index; the slot and its state are left to the caller. */
static size_t
builder_lane_slot(builder *b, uint16_t cap)
{
    evindex *ix = b->ix;
    size_t i = ix->n_lanes;
    while (i > 0 && ix->lanes[i - 1].pub.cap > cap)
        i--;
    size_t old_cap = b->cap_lanes;
    xgrowarray((void **)&ix->lanes, &b->cap_lanes, ix->n_lanes + 1, 64, sizeof *ix->lanes);
    if (b->cap_lanes != old_cap || !b->ls)
        b->ls = xreallocarray(b->ls, b->cap_lanes, sizeof *b->ls);   /* as lanes */
    memmove(&ix->lanes[i + 1], &ix->lanes[i], (ix->n_lanes - i) * sizeof *ix->lanes);
    memmove(&b->ls[i + 1], &b->ls[i], (ix->n_lanes - i) * sizeof *b->ls);
    ix->n_lanes++;
    for (size_t k = i + 1; k < ix->n_lanes; k++)
        b->lane_of[ix->lanes[k].pub.cap] = (uint32_t)k + 1;
    b->lane_of[cap] = (uint32_t)i + 1;
    return i;
}

static size_t
builder_lane(builder *b, uint16_t cap)
{
    uint32_t l = b->lane_of[cap];
    if (l)
        return l - 1;
    evindex *ix = b->ix;
    size_t i = builder_lane_slot(b, cap);
    evindex_lane *lane = &ix->lanes[i];
    memset(lane, 0, sizeof *lane);
    lane->runs = runlane_new();
    for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
        lane->sparks[k] = timelist_new();
    for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++)
        lane->spark_series[k] = series_new();
    lane->gc = ivtrack_new();
    lane->pub.cap = cap;
    lane->pub.created_ns = EVINDEX_NO_TIME;
    lane->pub.deleted_ns = EVINDEX_NO_TIME;
    lane->pub.runs = lane->runs;
    lane->pub.gc = lane->gc;
    memset(&b->ls[i], 0, sizeof b->ls[i]);
    b->ls[i].known = b->mid ? 0 : LANE_KNOWN_ALL;
    return i;
}

static void
builder_sample(builder *b, const evlog_event *ev, uint8_t id, uint64_t value, uint32_t cap)
{
    if (!b->growing) {
        if (!b->sample_q)
            b->sample_q = samplebuf_new(1);
        /* A per-cap sample's stream is its cap's; a global one's, its block's. */
        uint32_t key = (uint32_t)id << 16 | (id == RAW_ALLOC_CAP ? cap : ev->cap);
        samplebuf_push(b->sample_q, key, ev->time_ns, ev->offset, &value);
        return;
    }
    raw_sample *s = EVINDEX_PUSH(b->samples, b->n_samples, b->cap_samples);
    s->time_ns = ev->time_ns;
    s->offset = ev->offset;
    s->value = value;
    s->cap = cap;
    s->id = id;
}

/* Keep what an event did to lane li's unknown state (see lane_state.known). */
static void
builder_head(builder *b, size_t li, uint8_t kind, uint64_t t, uint16_t status, uint32_t stats)
{
    *EVINDEX_PUSH(b->heads, b->n_heads, b->cap_heads) =
        (lane_head){ t, stats, b->ix->lanes[li].pub.cap, status, kind };
}

/* ---- thread runs -------------------------------------------------------------------- */

static inline void
lane_close_run(builder *b, size_t li, uint64_t end_ns, uint16_t status, uint8_t flags)
{
    lane_state *s = &b->ls[li];
    uint64_t start = s->run_start;
    builder_late_at(&b->late_ns, start);        /* a capability's stop time in a GC */
    s->run_open = false;
    runlane_append_fields(b->ix->lanes[li].runs, start, end_ns < start ? start : end_ns,
                          s->run_tid, status > 255 ? 255 : (uint8_t)status, flags);
}

/* on_run when the lane's run state is unknown, a run is open or the thread may be new:
 * kept out of line so that the usual RUN_THREAD saves no registers. */
static __attribute__((noinline)) void
on_run_slow(builder *b, size_t li, const evlog_event *ev)
{
    lane_state *s = &b->ls[li];
    if (!(s->known & LANE_KNOWN_RUN)) {
        builder_head(b, li, HEAD_RUN_CUT, ev->time_ns, 0, 0);
        s->known |= LANE_KNOWN_RUN;
    }
    if (s->run_open)
        lane_close_run(b, li, ev->time_ns, 0, RUNLANE_F_OPEN);
    /* A growing index's run opened behind the placement horizon (its capability was
     * quiet long enough to be left out of it, and has written on since): while open it
     * is in no lane, yet it is when its capability stopped for the collections after
     * it, which the join may have made final without it. */
    if (ev->time_ns < b->horizon_ns)
        builder_late_at(&b->late_ns, ev->time_ns);
    uint32_t tid = pl32(ev, 0);
    /* Every thread that runs gets a record, found again only when the lane switches
     * threads (its run totals come from the runs themselves: threadstats). */
    if ((!s->run_any || tid != s->run_tid) && b->seen_tid[tid % EVINDEX_SEEN] != tid + 1) {
        threadtab_add_near(b->ix->threads, tid, &b->tt_near);
        b->seen_tid[tid % EVINDEX_SEEN] = tid + 1;
    }
    s->run_any = true;
    s->run_open = true;
    s->run_tid = tid;
    s->run_start = ev->time_ns;
}

static void
on_run(builder *b, size_t li, const evlog_event *ev)
{
    lane_state *s = &b->ls[li];
    uint32_t tid = pl32(ev, 0);
    if (!(s->known & LANE_KNOWN_RUN) || s->run_open || ev->time_ns < b->horizon_ns ||
        ((!s->run_any || tid != s->run_tid) && b->seen_tid[tid % EVINDEX_SEEN] != tid + 1)) {
        on_run_slow(b, li, ev);
        return;
    }
    s->run_any = true;
    s->run_open = true;
    s->run_tid = tid;
    s->run_start = ev->time_ns;
}

static void
on_stop(builder *b, size_t li, const evlog_event *ev)
{
    lane_state *s = &b->ls[li];
    if (!(s->known & LANE_KNOWN_RUN)) {
        builder_head(b, li, HEAD_STOP, ev->time_ns, pl16(ev, 4), 0);
        s->known |= LANE_KNOWN_RUN;
        return;
    }
    if (!s->run_open)
        return;                 /* the log starts inside this run: nothing to draw */
    lane_close_run(b, li, ev->time_ns, pl16(ev, 4), 0);
}

/* ---- GC phases ---------------------------------------------------------------------- */

/* Span i's values into its lane's side table (it takes them from now on). */
static evindex_span_wide *
span_widen(evindex_lane *lane, size_t i)
{
    evindex_span *sp = &lane->spans[i];
    if (sp->end_off == EVINDEX_SPAN_WIDE)
        return &lane->wide[sp->work];
    /* An open span's wait is not known here: evindex_span_set_end sets it. */
    evindex_span_wide w = { evindex_span_end(lane, i), sp->work,
                            sp->end_off >= sp->work ? sp->end_off - sp->work : 0,
                            evindex_span_first_work(lane, i), evindex_span_stats(lane, i),
                            evindex_span_open(lane, i) };
    size_t k = lane->n_wide;
    *EVINDEX_PUSH(lane->wide, lane->n_wide, lane->cap_wide) = w;
    sp->end_off = EVINDEX_SPAN_WIDE;
    sp->work = (uint32_t)k;     /* < 2^32: one a span */
    sp->aux = 0;
    return &lane->wide[k];
}

void
evindex_span_push(evindex_lane *lane, uint64_t t)
{
    *EVINDEX_PUSH(lane->spans, lane->n_spans, lane->cap_spans) =
        (evindex_span){ (uint32_t)t, (uint32_t)(t >> 32), 0, 0, 0 };
}

void
evindex_span_set_end(evindex_lane *lane, size_t i, uint64_t end_ns, bool open,
                     uint64_t wait_ns)
{
    evindex_span *sp = &lane->spans[i];
    uint64_t start = evindex_span_start(lane, i);
    if (sp->end_off != EVINDEX_SPAN_WIDE && end_ns >= start &&
        end_ns - start < EVINDEX_SPAN_WIDE && end_ns - start >= sp->work &&
        end_ns - start - sp->work == wait_ns) {
        sp->end_off = (uint32_t)(end_ns - start);
        sp->aux = (sp->aux & ~EVINDEX_SPAN_OPEN) | (open ? EVINDEX_SPAN_OPEN : 0);
        return;
    }
    evindex_span_wide *w = span_widen(lane, i);
    w->end_ns = end_ns;
    w->wait_ns = wait_ns;
    w->open = open;
}

void
evindex_span_add_work(evindex_lane *lane, size_t i, uint64_t ns)
{
    evindex_span *sp = &lane->spans[i];
    if (sp->end_off != EVINDEX_SPAN_WIDE && ns <= UINT32_MAX - sp->work) {
        sp->work += (uint32_t)ns;
        return;
    }
    span_widen(lane, i)->work_ns += ns;
}

void
evindex_span_set_first_work(evindex_lane *lane, size_t i, uint64_t t)
{
    evindex_span *sp = &lane->spans[i];
    uint64_t start = evindex_span_start(lane, i);
    if (sp->end_off != EVINDEX_SPAN_WIDE && sp->aux & EVINDEX_SPAN_STATS)
        return;                 /* claimed: not needed */
    if (sp->end_off != EVINDEX_SPAN_WIDE &&
        (t == 0 || (t >= start && t - start < EVINDEX_SPAN_LOW))) {
        sp->aux = (sp->aux & EVINDEX_SPAN_OPEN) | (t ? (uint32_t)(t - start + 1) : 0);
        return;
    }
    span_widen(lane, i)->first_work_ns = t;
}

void
evindex_span_set_stats(evindex_lane *lane, size_t i, uint32_t stats)
{
    evindex_span *sp = &lane->spans[i];
    if (sp->end_off != EVINDEX_SPAN_WIDE && stats && stats <= EVINDEX_SPAN_LOW) {
        sp->aux = (sp->aux & EVINDEX_SPAN_OPEN) | EVINDEX_SPAN_STATS | stats;
        return;
    }
    span_widen(lane, i)->stats = stats;
}

void
evindex_span_append(evindex_lane *dst, evindex_lane *src)
{
    size_t n0 = dst->n_spans, w0 = dst->n_wide;
    xgrowarray_release((void **)&dst->spans, &dst->cap_spans, n0 + src->n_spans, 64,
                       sizeof *dst->spans);
    if (src->n_spans)
        x_copy_release(dst->spans + n0, src->spans, src->n_spans * sizeof *src->spans);
    dst->n_spans += src->n_spans;
    if (!src->n_wide)
        return;
    for (size_t k = n0; k < dst->n_spans; k++)
        if (dst->spans[k].end_off == EVINDEX_SPAN_WIDE)
            dst->spans[k].work += (uint32_t)w0;
    xgrowarray((void **)&dst->wide, &dst->cap_wide, w0 + src->n_wide, 16, sizeof *dst->wide);
    memcpy(dst->wide + w0, src->wide, src->n_wide * sizeof *src->wide);
    dst->n_wide += src->n_wide;
}

/* ---- GC_STATS events, compact ------------------------------------------------------- */

void
evindex_stats_push(evindex_statsv *sv, const evindex_stats *st)
{
    evindex_stats_c *c = EVINDEX_PUSH(sv->v, sv->n, sv->cap);
    const uint32_t m = UINT32_MAX;
    uint32_t claimed = st->claimed ? EVINDEX_STATS_CLAIMED : 0;
    if (st->claimed && st->copied <= m && st->slop <= m && st->frag <= m &&
        st->par_max <= m && st->par_tot <= m && st->par_bal <= m &&
        st->par_threads <= EVINDEX_STATS_PAR_MAX && st->gen <= EVINDEX_STATS_GEN_MAX) {
        *c = (evindex_stats_c){ (uint32_t)st->copied, (uint32_t)st->slop, (uint32_t)st->frag,
                                (uint32_t)st->par_max, (uint32_t)st->par_tot,
                                (uint32_t)st->par_bal,
                                claimed | (st->has_bal ? EVINDEX_STATS_BAL : 0) |
                                    (uint32_t)st->gen << 16 | st->par_threads };
        return;
    }
    size_t k = sv->n_wide;
    *EVINDEX_PUSH(sv->wide, sv->n_wide, sv->cap_wide) = *st;
    *c = (evindex_stats_c){ .copied = (uint32_t)k, .bits = EVINDEX_STATS_WIDE | claimed };
}

void
evindex_stats_append(evindex_statsv *dst, evindex_statsv *src)
{
    size_t n0 = dst->n, w0 = dst->n_wide;
    xgrowarray_release((void **)&dst->v, &dst->cap, n0 + src->n, 64, sizeof *dst->v);
    if (src->n)
        x_copy_release(dst->v + n0, src->v, src->n * sizeof *src->v);
    dst->n += src->n;
    if (!src->n_wide)
        return;
    for (size_t k = n0; k < dst->n; k++)
        if (dst->v[k].bits & EVINDEX_STATS_WIDE)
            dst->v[k].copied += (uint32_t)w0;
    xgrowarray((void **)&dst->wide, &dst->cap_wide, w0 + src->n_wide, 16, sizeof *dst->wide);
    memcpy(dst->wide + w0, src->wide, src->n_wide * sizeof *src->wide);
    dst->n_wide += src->n_wide;
}

void
evindex_stats_free(evindex_statsv *sv)
{
    x_free(sv->v);
    x_free(sv->wide);
    memset(sv, 0, sizeof *sv);
}

/* Close the current sub-phase at t and start `next`. */
static void
lane_phase(builder *b, size_t li, uint64_t t, uint8_t next)
{
    lane_state *s = &b->ls[li];
    evindex_lane *lane = &b->ix->lanes[li];
    if (t > s->phase_start) {
        ivtrack_iv iv = { s->phase_start, t, UINT32_MAX,
                          s->phase == PH_WORK ? EVINDEX_GC_WORK : EVINDEX_GC_WAIT, 0 };
        ivtrack_append(lane->gc, &iv);
        if (s->phase == PH_WORK)
            evindex_span_add_work(lane, s->span, t - s->phase_start);
        else
            s->span_wait += t - s->phase_start;
        s->phase_start = t;
    }
    s->phase = next;
}

static void
lane_end_gc(builder *b, size_t li, uint64_t t, bool open)
{
    lane_state *s = &b->ls[li];
    evindex_lane *lane = &b->ix->lanes[li];
    if (t < evindex_span_start(lane, s->span))
        t = evindex_span_start(lane, s->span);
    if (!s->any_sub)
        s->phase = PH_WORK;     /* no sub-phase events (non-threaded RTS): all work */
    lane_phase(b, li, t, PH_WAIT);
    evindex_span_set_end(lane, s->span, t, open, s->span_wait);
    s->in_gc = false;
}

static void
on_gc_start(builder *b, size_t li, const evlog_event *ev)
{
    lane_state *s = &b->ls[li];
    evindex_lane *lane = &b->ix->lanes[li];
    if (s->known != LANE_KNOWN_ALL) {
        if (!(s->known & LANE_KNOWN_RUN))
            builder_head(b, li, HEAD_RUN_CUT, ev->time_ns, 0, 0);
        if (!(s->known & LANE_KNOWN_GC))
            builder_head(b, li, HEAD_GC_RESTART, ev->time_ns, 0, 0);
        s->known = LANE_KNOWN_ALL;
    }
    if (s->run_open)            /* a GC cannot run inside a thread run */
        lane_close_run(b, li, ev->time_ns, 0, RUNLANE_F_OPEN);
    if (s->in_gc)
        lane_end_gc(b, li, ev->time_ns, true);
    s->span = lane->n_spans;
    evindex_span_push(lane, ev->time_ns);
    builder_late_at(&b->late_ns, ev->time_ns);
    s->in_gc = true;
    s->any_sub = false;
    s->phase = PH_WAIT;
    s->phase_start = ev->time_ns;
    s->span_wait = 0;
}

static void
on_gc_end(builder *b, size_t li, const evlog_event *ev)
{
    if (!(b->ls[li].known & LANE_KNOWN_GC)) {
        builder_head(b, li, HEAD_GC_END, ev->time_ns, 0, 0);
        b->ls[li].known |= LANE_KNOWN_GC;
        return;
    }
    if (b->ls[li].in_gc)
        lane_end_gc(b, li, ev->time_ns, false);
}

static void
on_gc_sub(builder *b, size_t li, const evlog_event *ev)
{
    lane_state *s = &b->ls[li];
    if (!(s->known & LANE_KNOWN_GC)) {
        builder_head(b, li, HEAD_GC_SUB, ev->time_ns, ev->type, 0);
        return;
    }
    if (!s->in_gc)
        return;
    s->any_sub = true;
    evindex_lane *lane = &b->ix->lanes[li];
    if (ev->type == EV_GC_WORK && !evindex_span_first_work(lane, s->span))
        evindex_span_set_first_work(lane, s->span, ev->time_ns);
    lane_phase(b, li, ev->time_ns, ev->type == EV_GC_WORK ? PH_WORK : PH_WAIT);
}

static void
on_gc_stats(builder *b, size_t li, const evlog_event *ev)
{
    evindex_lane *lane = &b->ix->lanes[li];
    evindex_stats st_buf, *st = &st_buf;
    memset(st, 0, sizeof *st);
    st->time_ns = ev->time_ns;
    st->cap = lane->pub.cap;
    st->gen = pl16(ev, 4);
    st->copied = pl64(ev, 6);
    st->slop = pl64(ev, 14);
    st->frag = pl64(ev, 22);
    st->par_threads = pl32(ev, 30);
    st->par_max = pl64(ev, 34);
    st->par_tot = pl64(ev, 42);
    st->has_bal = ev->payload_len >= 58;
    st->par_bal = pl64(ev, 50);
    /* The leader's latest GC_START (docs/stats-semantics.md §1), if not yet claimed. */
    if (b->mid && !lane->n_spans) {  /* the span is the previous worker's, if any */
        evindex_stats_push(&b->stats, st);
        builder_head(b, li, HEAD_STATS, ev->time_ns, 0, (uint32_t)(b->stats.n - 1));
    } else if (lane->n_spans && !evindex_span_stats(lane, lane->n_spans - 1)) {
        st->claimed = true;
        evindex_stats_push(&b->stats, st);
        evindex_span_set_stats(lane, lane->n_spans - 1, (uint32_t)b->stats.n);
        builder_late_at(&b->late_ns, evindex_span_start(lane, lane->n_spans - 1));
    } else {
        evindex_stats_push(&b->stats, st);
        builder_late_at(&b->late_ns, ev->time_ns);
    }
}

static void
on_gc_mark(builder *b, size_t li, const evlog_event *ev)
{
    evindex_gcmark *m = EVINDEX_PUSH(b->marks, b->n_marks, b->cap_marks);
    m->time_lo = (uint32_t)ev->time_ns;
    m->time_hi = (uint32_t)(ev->time_ns >> 32);
    m->cap = b->ix->lanes[li].pub.cap;
    m->what = ev->type == EV_REQUEST_SEQ_GC ? 0 : ev->type == EV_REQUEST_PAR_GC ? 1 : 2;
    builder_late_at(&b->late_ns, ev->time_ns);
}

/* A capability's block marker: the block's end time bounds a run the data leaves open. */
static void
on_block(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    if (ev->cap == EVLOG_NO_CAP || ev->payload_len < 12)
        return;
    size_t lane = builder_lane(b, ev->cap);     /* may move b->ls */
    lane_state *s = &b->ls[lane];
    uint64_t end = pl64(ev, 4);
    if (end > s->block_end_ns)
        s->block_end_ns = end;
}

/* ---- threads -------------------------------------------------------------------------- */

static void
on_create_thread(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    threadtab_created_near(b->ix->threads, pl32(ev, 0), ev->time_ns, ev->cap, &b->tt_near);
}

static void
on_migrate(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    threadtab_migrated_near(b->ix->threads, pl32(ev, 0), &b->tt_near);
}

static void
on_wakeup(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    threadtab_woken_near(b->ix->threads, pl32(ev, 0), &b->tt_near);
}

static void
on_label(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    threadtab_labelled(b->ix->threads, pl32(ev, 0), ev->offset);
}

/* ---- markers and messages --------------------------------------------------------------- */

/* A growing builder's message, placed later by its horizon: out of line, so that
 * on_msg's one-shot path saves no registers. */
static __attribute__((noinline)) void
builder_pend_msg(builder *b, const evlog_event *ev, unsigned kind)
{
    *EVINDEX_PUSH(b->pend_msgs, b->n_pend_msgs, b->cap_pend_msgs) = (evindex_msg){
        .time_ns = ev->time_ns, .offset = ev->offset, .cap = ev->cap, .kind = kind };
}

static void
on_msg(builder *b, size_t li, const evlog_event *ev)
{
    if (ev->offset >> 40)
        return;                 /* beyond evindex_msg's 40-bit offset: a 1 TiB log */
    (void)li;
    unsigned kind = ev->type == EV_USER_MARKER  ? EVINDEX_MSG_MARKER
                    : ev->type == EV_USER_MSG   ? EVINDEX_MSG_USER
                    : ev->type == EV_LOG_MSG    ? EVINDEX_MSG_LOG
                                                : EVINDEX_MSG_BINARY;
    /* A growing builder places them by its horizon; a one-shot one packs them per
     * capability as they come (merged at the seal), its fields handed over as they are
     * (no evindex_msg's bit fields built and read back). */
    if (b->growing)
        builder_pend_msg(b, ev, kind);
    else
        msgtab_add_fields(b->ix->msgs, ev->time_ns, ev->offset, ev->cap, kind);
}

/* ---- capabilities and program info ------------------------------------------------------- */

static void
on_cap_life(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    evindex_caplife *c = EVINDEX_PUSH(b->caplife, b->n_caplife, b->cap_caplife);
    c->time_ns = ev->time_ns;
    c->cap = pl16(ev, 0);
    c->type = ev->type;
}

static void
builder_apply_caplife(builder *b)
{
    for (size_t i = b->n_caplife_applied; i < b->n_caplife; i++) {
        const evindex_caplife *l = &b->caplife[i];
        size_t lane = builder_lane(b, l->cap);   /* may move b->ix->lanes */
        evindex_cap *c = &b->ix->lanes[lane].pub;
        switch (l->type) {
        case EV_CAP_CREATE: c->created_ns = l->time_ns; break;
        case EV_CAP_DELETE: c->deleted_ns = l->time_ns; break;
        case EV_CAP_DISABLE: c->n_disable++; break;
        default: c->n_enable++; break;
        }
    }
    b->n_caplife_applied = b->n_caplife;
}

static void
on_program(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    evindex_program *p = &b->ix->program;
    switch (ev->type) {
    case EV_RTS_IDENTIFIER: p->rts_id_offset = ev->offset; break;
    case EV_PROGRAM_ARGS: p->args_offset = ev->offset; break;
    case EV_PROGRAM_ENV: p->env_offset = ev->offset; break;
    case EV_OSPROCESS_PID: p->pid = pl32(ev, 4); break;
    case EV_OSPROCESS_PPID: p->ppid = pl32(ev, 4); break;
    case EV_WALL_CLOCK_TIME:
        p->wall_sec = pl64(ev, 4);
        p->wall_nsec = pl32(ev, 12);
        p->wall_time_ns = ev->time_ns;
        break;
    case EV_CAPSET_CREATE: p->n_capsets++; break;
    case EV_TASK_CREATE: p->n_tasks++; break;
    case EV_HEAP_PROF_COST_CENTRE: {
        p->hp_cost_centres++;
        b->side_dirty = true;
        cursor c;
        cursor_init(&c, ev->payload, ev->payload_len);
        uint32_t id = cursor_u32(&c);
        const uint8_t *label = NULL, *module = NULL, *srcloc = NULL;
        size_t nl = 0, nm = 0, ns = 0;
        if (cursor_cstr(&c, &label, &nl) && cursor_cstr(&c, &module, &nm) &&
            cursor_cstr(&c, &srcloc, &ns)) {
            uint8_t flags = cursor_u8(&c);
            heapprof_cost_centre(b->ix->heap, id, label, nl, module, nm, srcloc, ns,
                                 !c.failed && (flags & 1));
        }
        break;
    }
    default: break;
    }
}

static void
on_heap_info(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    uint16_t gens = pl16(ev, 4);
    if (gens >= 1 && gens <= 64)
        b->ix->n_gens = gens;
}

/* ---- heap and sparks ---------------------------------------------------------------------- */

static void
on_heap(builder *b, size_t li, const evlog_event *ev)
{
    /* li is a lane only for HEAP_ALLOCATED (see evindex_lane_types). */
    switch (ev->type) {
    case EV_HEAP_SIZE: builder_sample(b, ev, EVINDEX_S_HEAP_SIZE, pl64(ev, 4), 0); break;
    case EV_HEAP_LIVE: builder_sample(b, ev, EVINDEX_S_HEAP_LIVE, pl64(ev, 4), 0); break;
    case EV_BLOCKS_SIZE: builder_sample(b, ev, EVINDEX_S_BLOCKS_SIZE, pl64(ev, 4), 0); break;
    case EV_HEAP_ALLOCATED:
        builder_sample(b, ev, RAW_ALLOC_CAP, pl64(ev, 4), b->ix->lanes[li].pub.cap);
        break;
    case EV_MEM_RETURN:
        builder_sample(b, ev, EVINDEX_S_MEM_CURRENT, pl32(ev, 4), 0);
        builder_sample(b, ev, EVINDEX_S_MEM_NEEDED, pl32(ev, 8), 0);
        builder_sample(b, ev, EVINDEX_S_MEM_RETURNED, pl32(ev, 12), 0);
        break;
    default: break;
    }
}

static void
on_spark_counters(builder *b, size_t li, const evlog_event *ev)
{
    /* File field order: created, dud, overflowed, converted, GC'd, fizzled, remaining. */
    if (!b->growing) {
        if (!b->spark_q)
            b->spark_q = samplebuf_new(3);
        const uint64_t v[3] = { pl64(ev, 0), pl64(ev, 24), pl64(ev, 48) };
        samplebuf_push(b->spark_q, b->ix->lanes[li].pub.cap, ev->time_ns, ev->offset, v);
        return;
    }
    raw_spark *r = EVINDEX_PUSH(b->sparks, b->n_sparks, b->cap_sparks);
    *r = (raw_spark){ ev->time_ns, ev->offset, { pl64(ev, 0), pl64(ev, 24), pl64(ev, 48) },
                      b->ix->lanes[li].pub.cap };
}

static void
on_spark(builder *b, size_t li, const evlog_event *ev)
{
    unsigned k = (unsigned)(ev->type - EV_SPARK_CREATE);
    timelist_append(b->ix->lanes[li].sparks[k], ev->time_ns);
}

/* Close the census in progress: its series sample (at its own time; `offset` orders
 * ties) and where it ran, BEGIN .. end_ns. A census with no SAMPLE_END (GHC 8.2/8.4
 * write none) or a biographical one (written at the end of the run, placed by its own
 * time) ran to the end of the collection it lies in: end_ns UINT64_MAX. */
static void
builder_census_close(builder *b, uint64_t offset, uint64_t end_ns)
{
    evlog_event at = { .time_ns = b->hp_time, .offset = offset };
    builder_sample(b, &at, EVINDEX_S_HEAP_PROF, b->hp_total, 0);
    *EVINDEX_PUSH(b->hp_wins, b->n_hp_wins, b->cap_hp_wins) =
        (evindex_census_win){ b->hp_time, b->hp_bio ? UINT64_MAX : end_ns, b->hp_bio };
    builder_late_at(&b->late_ns, b->hp_time);
    b->hp_open = false;
}

static void
on_heap_prof(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    b->side_dirty = true;
    bool unknown = b->mid && !b->hp_known;  /* whether a census is open here */
    switch (ev->type) {
    case EV_HEAP_PROF_SAMPLE_BEGIN:
    case EV_HEAP_BIO_PROF_SAMPLE_BEGIN:
        if (unknown) {
            b->hp_known = true;
            b->hp_head_offset = ev->offset;
        } else if (b->hp_open) {                /* the last one had no SAMPLE_END */
            builder_census_close(b, ev->offset, UINT64_MAX);
        }
        b->ix->program.hp_censuses++;
        b->hp_open = true;
        /* A biographical census is written at the end of the run; its second field
         * is when it was taken. The series' samples are sorted by time later. */
        b->hp_bio = ev->type == EV_HEAP_BIO_PROF_SAMPLE_BEGIN && ev->payload_len >= 16;
        b->hp_time = b->hp_bio ? pl64(ev, 8) : ev->time_ns;
        b->hp_total = 0;
        heapprof_census_begin(b->ix->heap, b->hp_time);
        break;
    case EV_HEAP_PROF_SAMPLE_COST_CENTRE:
    case EV_HEAP_PROF_SAMPLE_STRING: {
        if (!b->hp_open && !unknown)
            break;
        /* u8 profile id (reserved), u64 bytes, then the string or the stack. */
        if (ev->payload_len < 9)
            break;
        uint64_t bytes = cursor_be64(ev->payload + 1);
        if (unknown) {
            b->hp_head_total += bytes;
            if (!b->hp_head)
                heapprof_head_begin(b->ix->heap);
            b->hp_head = true;
        } else {
            b->hp_total += bytes;
        }
        if (ev->type == EV_HEAP_PROF_SAMPLE_STRING) {   /* the hot one: -hT, -hi, -hd, -hy */
            heapprof_sample_cstr(b->ix->heap, ev->payload + 9, ev->payload_len - 9, bytes);
            break;
        }
        size_t depth = ev->payload_len > 9 ? ev->payload[9] : 0;   /* u8 depth, u32 ids */
        if (ev->payload_len < 10 || (ev->payload_len - 10) / 4 < depth)
            break;
        uint32_t stack[255];
        for (size_t i = 0; i < depth; i++)
            stack[i] = cursor_be32(ev->payload + 10 + 4 * i);
        heapprof_sample_stack(b->ix->heap, stack, depth, bytes);
        break;
    }
    default:                    /* SAMPLE_END */
        if (unknown) {
            b->hp_known = true;
            b->hp_head_end = true;
            b->hp_head_offset = ev->offset;
            b->hp_head_time = ev->time_ns;
        } else if (b->hp_open) {
            builder_census_close(b, ev->offset, ev->time_ns);
        }
        heapprof_census_end(b->ix->heap);
        break;
    }
}

/* ---- info-table provenance, ticky counters ---------------------------------------------------- */

static void
on_ipe(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    b->side_dirty = true;
    b->solo_seen |= b->mid;
    ipe_table_add(b->ix->ipe, ev->payload, ev->payload_len);
}

static void
on_ticky(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    b->ticky_dirty = true;
    b->solo_seen |= b->mid;
    ticky *t = b->ix->ticky;
    switch (ev->type) {
    case EV_TICKY_COUNTER_DEF: ticky_add_def(t, ev->payload, ev->payload_len); break;
    case EV_TICKY_BEGIN_SAMPLE: ticky_begin_sample(t, ev->time_ns); break;
    default:
        if (ev->payload_len >= 32)
            ticky_add_sample(t, ev->time_ns, pl64(ev, 0), pl64(ev, 8), pl64(ev, 16),
                             pl64(ev, 24));
        break;
    }
}

/* PROF_BEGIN (u64 tick interval) and PROF_SAMPLE_COST_CENTRE: the time profile. */
static void
on_time_prof(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    if (ev->type == EV_PROF_BEGIN) {
        if (ev->payload_len >= 8)
            timeprof_begin(b->ix->timeprof, ev->time_ns, pl64(ev, 0));
    } else {
        timeprof_add_sample(b->ix->timeprof, ev->offset, ev->time_ns, ev->payload,
                            ev->payload_len);
    }
}

/* HEAP_PROF_BEGIN: the breakdown (u8 profile id, u64 period, u32 breakdown, ...). */
static void
on_heap_prof_begin(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    b->side_dirty = true;
    if (ev->payload_len >= 13)
        heapprof_set_breakdown(b->ix->heap, pl32(ev, 9));
}

/* ---- non-moving collector ------------------------------------------------------------------ */

static evindex_nm_cycle *
nm_cycle(builder *b, uint64_t t)
{
    evindex *ix = b->ix;
    if (!b->nm_cycle_open) {
        evindex_nm_cycle *c = EVINDEX_PUSH(ix->nm_cycles, ix->n_nm_cycles, b->cap_cycles);
        memset(c, 0, sizeof *c);
        c->start_ns = c->end_ns = t;
        b->nm_cycle_open = true;
    }
    return &ix->nm_cycles[ix->n_nm_cycles - 1];
}

static void
nm_close_phase(builder *b, uint64_t t, bool open)
{
    if (!b->nm_phase_open)
        return;
    evindex_nm_cycle *c = nm_cycle(b, b->nm_phase_start);
    uint64_t end = t < b->nm_phase_start ? b->nm_phase_start : t;
    ivtrack_iv iv = { b->nm_phase_start, end, (uint32_t)(b->ix->n_nm_cycles - 1), b->nm_phase,
                      open ? IVTRACK_F_OPEN : 0 };
    ivtrack_append(b->ix->nm, &iv);
    uint64_t d = end - b->nm_phase_start;
    if (b->nm_phase == EVINDEX_NM_MARK)
        c->mark_ns += d;
    else if (b->nm_phase == EVINDEX_NM_SYNC)
        c->sync_ns += d;
    else
        c->sweep_ns += d;
    if (end > c->end_ns)
        c->end_ns = end;
    if (open)
        c->flags |= EVINDEX_GC_F_OPEN;
    b->nm_phase_open = false;
}

static void
on_nonmoving(builder *b, size_t li, const evlog_event *ev)
{
    (void)li;
    evindex *ix = b->ix;
    uint64_t t = ev->time_ns;
    b->solo_seen |= b->mid && ev->type != EV_CONC_UPD_REM_SET_FLUSH;
    switch (ev->type) {
    case EV_CONC_MARK_BEGIN:
    case EV_CONC_SYNC_BEGIN:
    case EV_CONC_SWEEP_BEGIN:
        /* GHC posts each sync's BEGIN and END twice and runs the final mark rounds
         * inside it: neither splits the sync (docs/stats-semantics.md §5). */
        if (b->nm_phase_open && b->nm_phase == EVINDEX_NM_SYNC &&
            ev->type != EV_CONC_SWEEP_BEGIN) {
            if (ev->type == EV_CONC_MARK_BEGIN)
                nm_cycle(b, t)->n_marks++;
            break;
        }
        nm_close_phase(b, t, true);
        nm_cycle(b, t);
        b->nm_phase_open = true;
        b->nm_phase_start = t;
        b->nm_phase = ev->type == EV_CONC_MARK_BEGIN   ? EVINDEX_NM_MARK
                      : ev->type == EV_CONC_SYNC_BEGIN ? EVINDEX_NM_SYNC
                                                       : EVINDEX_NM_SWEEP;
        if (b->nm_phase == EVINDEX_NM_MARK)
            nm_cycle(b, t)->n_marks++;
        break;
    case EV_CONC_MARK_END:
        if (b->nm_phase_open && b->nm_phase != EVINDEX_NM_SWEEP)
            nm_cycle(b, t)->marked_objects += pl32(ev, 0);
        if (!b->nm_phase_open || b->nm_phase != EVINDEX_NM_SYNC)
            nm_close_phase(b, t, false);
        break;
    case EV_CONC_SYNC_END:
        nm_close_phase(b, t, false);
        break;
    case EV_CONC_SWEEP_END:
        nm_close_phase(b, t, false);
        b->nm_cycle_open = false;   /* the sweep ends a cycle */
        break;
    case EV_CONC_UPD_REM_SET_FLUSH: {
        evindex_instant *f = EVINDEX_PUSH(b->pend_flushes, b->n_pend_flushes,
                                          b->cap_pend_flushes);
        f->time_ns = t;
        f->cap = ev->cap;
        break;
    }
    case EV_NONMOVING_HEAP_CENSUS: {
        evindex_nm_census *c = EVINDEX_PUSH(ix->nm_census, ix->n_nm_census, b->cap_census);
        /* Block size: a u8 log2 in the 13-byte layout (GHC 8.10 .. 9.8), the u16 size
         * itself in the 14-byte one (9.10+, GHC #23340: sizes not powers of two). */
        bool wide = ev->payload_len >= 14;
        unsigned at = wide ? 2 : 1;
        uint32_t lg = ev->payload_len ? ev->payload[0] : 0;
        c->time_ns = t;
        c->blk_size = wide ? pl16(ev, 0) : lg < 32 ? 1u << lg : 0;
        c->active = pl32(ev, at);
        c->filled = pl32(ev, at + 4);
        c->live = pl32(ev, at + 8);
        break;
    }
    default:                    /* NONMOVING_PRUNED_SEGMENTS */
        series_append(ix->nm_pruned, t, pl32(ev, 0));
        series_append(ix->nm_free_segments, t, pl32(ev, 4));
        break;
    }
}

/* ---- the handler table ---------------------------------------------------------------------- */

typedef void (*evindex_handler)(builder *b, size_t lane, const evlog_event *ev);

/* Events the index reads, by type; every other type only counts and is seekable. */
static const evindex_handler evindex_handlers[256] = {
    [EV_BLOCK_MARKER] = on_block,
    [EV_CREATE_THREAD] = on_create_thread,
    [EV_RUN_THREAD] = on_run,
    [EV_STOP_THREAD] = on_stop,
    [EV_MIGRATE_THREAD] = on_migrate,
    [EV_THREAD_WAKEUP] = on_wakeup,
    [EV_THREAD_LABEL] = on_label,
    [EV_GC_START] = on_gc_start,
    [EV_GC_END] = on_gc_end,
    [EV_GC_WORK] = on_gc_sub,
    [EV_GC_IDLE] = on_gc_sub,
    [EV_GC_DONE] = on_gc_sub,
    [EV_GC_STATS_GHC] = on_gc_stats,
    [EV_REQUEST_SEQ_GC] = on_gc_mark,
    [EV_REQUEST_PAR_GC] = on_gc_mark,
    [EV_GC_GLOBAL_SYNC] = on_gc_mark,
    [EV_USER_MARKER] = on_msg,
    [EV_USER_MSG] = on_msg,
    [EV_LOG_MSG] = on_msg,
    [EV_USER_BINARY_MSG] = on_msg,
    [EV_CAP_CREATE] = on_cap_life,
    [EV_CAP_DELETE] = on_cap_life,
    [EV_CAP_DISABLE] = on_cap_life,
    [EV_CAP_ENABLE] = on_cap_life,
    [EV_RTS_IDENTIFIER] = on_program,
    [EV_PROGRAM_ARGS] = on_program,
    [EV_PROGRAM_ENV] = on_program,
    [EV_OSPROCESS_PID] = on_program,
    [EV_OSPROCESS_PPID] = on_program,
    [EV_WALL_CLOCK_TIME] = on_program,
    [EV_CAPSET_CREATE] = on_program,
    [EV_TASK_CREATE] = on_program,
    [EV_HEAP_PROF_COST_CENTRE] = on_program,
    [EV_HEAP_INFO_GHC] = on_heap_info,
    [EV_HEAP_SIZE] = on_heap,
    [EV_HEAP_LIVE] = on_heap,
    [EV_BLOCKS_SIZE] = on_heap,
    [EV_HEAP_ALLOCATED] = on_heap,
    [EV_MEM_RETURN] = on_heap,
    [EV_SPARK_COUNTERS] = on_spark_counters,
    [EV_SPARK_CREATE] = on_spark,
    [EV_SPARK_DUD] = on_spark,
    [EV_SPARK_OVERFLOW] = on_spark,
    [EV_SPARK_RUN] = on_spark,
    [EV_SPARK_STEAL] = on_spark,
    [EV_SPARK_FIZZLE] = on_spark,
    [EV_SPARK_GC] = on_spark,
    [EV_HEAP_PROF_SAMPLE_BEGIN] = on_heap_prof,
    [EV_HEAP_BIO_PROF_SAMPLE_BEGIN] = on_heap_prof,
    [EV_HEAP_PROF_SAMPLE_COST_CENTRE] = on_heap_prof,
    [EV_HEAP_PROF_SAMPLE_STRING] = on_heap_prof,
    [EV_HEAP_PROF_SAMPLE_END] = on_heap_prof,
    [EV_CONC_MARK_BEGIN] = on_nonmoving,
    [EV_CONC_MARK_END] = on_nonmoving,
    [EV_CONC_SYNC_BEGIN] = on_nonmoving,
    [EV_CONC_SYNC_END] = on_nonmoving,
    [EV_CONC_SWEEP_BEGIN] = on_nonmoving,
    [EV_CONC_SWEEP_END] = on_nonmoving,
    [EV_CONC_UPD_REM_SET_FLUSH] = on_nonmoving,
    [EV_NONMOVING_HEAP_CENSUS] = on_nonmoving,
    [EV_NONMOVING_PRUNED_SEGMENTS] = on_nonmoving,
    [EV_IPE] = on_ipe,
    [EV_TICKY_COUNTER_DEF] = on_ticky,
    [EV_TICKY_COUNTER_SAMPLE] = on_ticky,
    [EV_TICKY_BEGIN_SAMPLE] = on_ticky,
    [EV_HEAP_PROF_BEGIN] = on_heap_prof_begin,
    [EV_PROF_BEGIN] = on_time_prof,
    [EV_PROF_SAMPLE_COST_CENTRE] = on_time_prof,
};

/* Types whose handler works on the event's capability lane (created on first use,
 * also for the no-capability stretches of old logs); the others get lane SIZE_MAX.
 * A table beside the handlers', read by the walk for every event. */
static const bool evindex_lane_types[256] = {
    [EV_RUN_THREAD] = true, [EV_STOP_THREAD] = true,
    [EV_GC_START] = true, [EV_GC_END] = true, [EV_GC_WORK] = true, [EV_GC_IDLE] = true,
    [EV_GC_DONE] = true, [EV_GC_STATS_GHC] = true, [EV_REQUEST_SEQ_GC] = true,
    [EV_REQUEST_PAR_GC] = true, [EV_GC_GLOBAL_SYNC] = true, [EV_HEAP_ALLOCATED] = true,
    [EV_SPARK_COUNTERS] = true, [EV_SPARK_CREATE] = true, [EV_SPARK_DUD] = true,
    [EV_SPARK_OVERFLOW] = true, [EV_SPARK_RUN] = true, [EV_SPARK_STEAL] = true,
    [EV_SPARK_FIZZLE] = true, [EV_SPARK_GC] = true,
};

/* ---- placing: what was walked goes into the index -------------------------------------- */

/* How many of the n elements of `size` bytes at `base`, in ascending order of the
 * uint64_t time at byte `time_off` of each, come before t. O(log n). */
static size_t
builder_count_before(const void *base, size_t n, size_t size, size_t time_off, uint64_t t)
{
    const char *a = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v;
        memcpy(&v, a + mid * size + time_off, sizeof v);
        if (v < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* (time, file offset) order: the order of the time-sorted lists the builder places. */
static int
time_offset_cmp(uint64_t ta, uint64_t oa, uint64_t tb, uint64_t ob)
{
    if (ta != tb)
        return ta < tb ? -1 : 1;
    return oa < ob ? -1 : oa > ob;
}

static int
msg_cmp(const void *a, const void *b)
{
    const evindex_msg *x = a, *y = b;
    return time_offset_cmp(x->time_ns, x->offset, y->time_ns, y->offset);
}

static int
raw_sample_cmp(const void *a, const void *b)
{
    const raw_sample *x = a, *y = b;
    return time_offset_cmp(x->time_ns, x->offset, y->time_ns, y->offset);
}

static int
raw_spark_cmp(const void *a, const void *b)
{
    const raw_spark *x = a, *y = b;
    return time_offset_cmp(x->time_ns, x->offset, y->time_ns, y->offset);
}

static int
instant_cmp(const void *a, const void *b)
{
    const evindex_instant *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->cap < y->cap ? -1 : x->cap > y->cap;
}

/* Sort samples by (time, offset): they come in file (offset) order, so a stable radix
 * sort on time alone does it. */
static void
raw_sample_sort(raw_sample *a, size_t n)
{
    radixsort_by_u64(a, n, sizeof *a, offsetof(raw_sample, time_ns));
}

/* Spark counters likewise (the parallel build hands them over in file order too; equal
 * times keep file order, and the runs of equal times are short). */
static void
raw_spark_sort(raw_spark *a, size_t n)
{
    radixsort_by_u64_ties(a, n, sizeof *a, offsetof(raw_spark, time_ns), raw_spark_cmp);
}

/* Messages by (time, offset), as msg_cmp: a stable radix sort on time, then runs of
 * equal times put in offset order (they are short). */
static void
msg_sort(evindex_msg *a, size_t n)
{
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = msg_cmp(&a[i - 1], &a[i]) <= 0;
    if (sorted)
        return;
    radixsort_by_u64_ties(a, n, sizeof *a, offsetof(evindex_msg, time_ns), msg_cmp);
}

/* a[0, n_old) and a[n_old, n) are each sorted by cmp: make a[0, n) one sorted run (the
 * old before the new on ties), moving only the old elements later than the first new
 * one. Returns the first index whose element changed (n_old when the new ones only
 * follow). *moved gets the number of old elements moved. */
static size_t
tail_merge(void *base, size_t n_old, size_t n, size_t size,
           int (*cmp)(const void *, const void *), uint64_t *moved)
{
    char *a = base;
    if (n_old == 0 || n == n_old || cmp(a + (n_old - 1) * size, a + n_old * size) <= 0)
        return n_old;
    size_t lo = 0, hi = n_old;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(a + mid * size, a + n_old * size) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n_tail = n_old - lo;
    char *tail = xmalloc(n_tail * size);    /* freed below */
    memcpy(tail, a + lo * size, n_tail * size);
    size_t i = 0, j = n_old, k = lo;
    while (i < n_tail && j < n) {
        if (cmp(tail + i * size, a + j * size) <= 0)
            memcpy(a + k * size, tail + i++ * size, size);
        else
            memcpy(a + k * size, a + j++ * size, size);
        k++;
    }
    memcpy(a + k * size, tail + i * size, (n_tail - i) * size);
    x_free(tail);
    *moved += n_tail;
    return lo;
}

/* Sort a[n_sorted, n) and merge it into the sorted a[0, n_sorted). */
static size_t
sort_new_tail(void *a, size_t n_sorted, size_t n, size_t size,
              int (*cmp)(const void *, const void *), uint64_t *moved)
{
    if (n - n_sorted > 1)
        qsort((char *)a + n_sorted * size, n - n_sorted, size, cmp);
    return tail_merge(a, n_sorted, n, size, cmp, moved);
}

/* One sample into the series; summed series keep each lane's latest value. */
static void
builder_feed_sample(builder *b, const raw_sample *s)
{
    evindex *ix = b->ix;
    if (s->id < EVINDEX_N_SERIES) {
        series_append(ix->series[s->id], s->time_ns, s->value);
        return;
    }
    size_t li = b->lane_of[s->cap] - 1;
    lane_state *l = &b->ls[li];
    if (s->id == RAW_ALLOC_CAP) {
        b->alloc_sum += s->value - l->alloc_last;   /* u64 wrap-around cancels out */
        l->alloc_last = s->value;
        if (!l->alloc_first_ns)
            l->alloc_first_ns = s->time_ns + 1;
        series_append(ix->series[EVINDEX_S_ALLOCATED], s->time_ns, b->alloc_sum);
    }
}

/* One SPARK_COUNTERS into its lane's three series and the three summed ones (each
 * lane's latest value kept). */
static void
builder_feed_spark(builder *b, const raw_spark *r)
{
    evindex *ix = b->ix;
    size_t li = b->lane_of[r->cap] - 1;
    lane_state *l = &b->ls[li];
    static const uint8_t ids[3] = { EVINDEX_S_SPARKS_CREATED, EVINDEX_S_SPARKS_CONVERTED,
                                    EVINDEX_S_SPARK_POOL };
    for (unsigned k = 0; k < 3; k++) {
        b->spark_sum[k] += r->value[k] - l->spark_last[k];
        l->spark_last[k] = r->value[k];
        series_append(ix->lanes[li].spark_series[k], r->time_ns, r->value[k]);
        series_append(ix->series[ids[k]], r->time_ns, b->spark_sum[k]);
    }
}

static uint64_t
series_last_value(const series *s)
{
    size_t n = series_count(s);
    return n ? series_get(s, n - 1).value : 0;
}

/* Take every sample at or after t out of the series fed from samples, and set the
 * running sums and each lane's last values to what they were before it (placed[0,
 * from) are the samples before t): to feed them again from `from` on, with a late
 * sample merged in. O(the samples taken out, and back to each lane's last allocation
 * report). */
static void
builder_rewind_series(builder *b, uint64_t t, size_t from)
{
    evindex *ix = b->ix;
    for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
        series_truncate(ix->series[i], series_lower_bound(ix->series[i], t));
    size_t missing = 0;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        lane_state *l = &b->ls[li];
        for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++) {
            series *sp = ix->lanes[li].spark_series[k];
            series_truncate(sp, series_lower_bound(sp, t));
            l->spark_last[k] = series_last_value(sp);
        }
        l->alloc_last = 0;
        if (l->alloc_first_ns && l->alloc_first_ns - 1 >= t)
            l->alloc_first_ns = 0;
        missing += l->alloc_first_ns != 0;
    }
    /* Each lane's last HEAP_ALLOCATED before t: back through the placed samples. */
    bool *found = xcalloc(ix->n_lanes + 1, sizeof *found);     /* freed below */
    for (size_t i = from; i-- > 0 && missing;) {
        const raw_sample *r = &b->placed[i];
        if (r->id != RAW_ALLOC_CAP)
            continue;
        size_t li = b->lane_of[r->cap] - 1;
        if (!found[li] && b->ls[li].alloc_first_ns) {
            found[li] = true;
            b->ls[li].alloc_last = r->value;
            missing--;
        }
    }
    x_free(found);
    b->alloc_sum = series_last_value(ix->series[EVINDEX_S_ALLOCATED]);
    b->spark_sum[0] = series_last_value(ix->series[EVINDEX_S_SPARKS_CREATED]);
    b->spark_sum[1] = series_last_value(ix->series[EVINDEX_S_SPARKS_CONVERTED]);
    b->spark_sum[2] = series_last_value(ix->series[EVINDEX_S_SPARK_POOL]);
}

/* Append src[0, k) to the growing placed array *dst and merge it into its sorted run:
 * returns the first index that changed (n_old when the new ones only follow). */
static size_t
place_append(builder *b, void **dst, size_t *n_dst, size_t *cap_dst, const void *src, size_t k,
             size_t size, int (*cmp)(const void *, const void *))
{
    size_t n_old = *n_dst;
    if (!k)
        return n_old;
    xgrowarray(dst, cap_dst, n_old + k, 256, size);
    memcpy((char *)*dst + n_old * size, src, k * size);
    *n_dst = n_old + k;
    return tail_merge(*dst, n_old, *n_dst, size, cmp, &b->work.items_moved);
}

/* A drain of queued samples: the builder, and the earliest time it fed (a drain on a
 * thread of its own keeps its own, taken into the builder's late_ns after it). */
typedef struct place_ctx {
    builder *b;
    uint64_t late_ns;
} place_ctx;

/* A one-shot builder's queued sample and spark counters, in (time, offset) order. */
static void
builder_feed_queued_sample(void *ctx, const samplebuf_rec *r)
{
    place_ctx *pc = ctx;
    raw_sample s = { r->time_ns, r->offset, r->value[0], r->key & 0xffff,
                     (uint8_t)(r->key >> 16) };
    builder_late_at(&pc->late_ns, r->time_ns);
    builder_feed_sample(pc->b, &s);
}

static void
builder_feed_queued_spark(void *ctx, const samplebuf_rec *r)
{
    place_ctx *pc = ctx;
    raw_spark s = { r->time_ns, r->offset, { r->value[0], r->value[1], r->value[2] }, r->key };
    builder_late_at(&pc->late_ns, r->time_ns);
    builder_feed_spark(pc->b, &s);
}

/* A one-shot build places its samples on two threads when each side has at least this
 * many: the summed allocation (one series, fed from every capability's reports, with
 * the running sum) on the building thread, every other series and the spark counters
 * beside it. They share nothing but the builder's late_ns (kept apart: place_ctx). */
#define EVINDEX_SAMPLES_SPLIT_MIN 65536

typedef struct place_rest {
    place_ctx ctx;
    samplebuf *rest;            /* owned: the queue's series other than the allocation */
    samplebuf *sparks;          /* the builder's spark queue, or NULL */
    unsigned section;           /* of the profile */
} place_rest;

static void
place_rest_run(place_rest *pr)
{
    if (pr->rest)
        samplebuf_drain(pr->rest, 16, builder_feed_queued_sample, &pr->ctx);
    if (pr->sparks)
        samplebuf_drain(pr->sparks, 32, builder_feed_queued_spark, &pr->ctx);
}

static void *
place_rest_main(void *arg)
{
    place_rest *pr = arg;
    evindex_prof *prof = pr->ctx.b->prof;
    prof_mark pm = prof_start(prof);
    place_rest_run(pr);
    prof_stage(prof, &pm, "samples_rest", pr->section, 2);
    return NULL;
}

/* A one-shot build's queued samples and spark counters into the series, freed as they
 * are read; on a second thread for half of them when `helper` and both halves are big
 * (section: the profile's). */
static void
builder_drain_samples(builder *b, bool helper, unsigned section)
{
    place_ctx here = { b, UINT64_MAX };
    place_rest pr = { { b, UINT64_MAX }, NULL, b->spark_q, section };
    bool threaded = false;
    pthread_t th;
    if (helper && b->sample_q) {
        size_t all = samplebuf_count(b->sample_q) + samplebuf_count(b->spark_q);
        pr.rest = samplebuf_split_off(b->sample_q, 0, ((uint32_t)RAW_ALLOC_CAP << 16) - 1);
        size_t other = samplebuf_count(pr.rest) + samplebuf_count(b->spark_q);
        threaded = other >= EVINDEX_SAMPLES_SPLIT_MIN &&
                   all - other >= EVINDEX_SAMPLES_SPLIT_MIN &&
                   pthread_create(&th, NULL, place_rest_main, &pr) == 0;
    }
    if (b->sample_q)
        samplebuf_drain(b->sample_q, 16, builder_feed_queued_sample, &here);
    if (threaded)
        pthread_join(th, NULL);
    else
        place_rest_run(&pr);    /* what was split off, and the spark counters, here */
    samplebuf_free(pr.rest);
    builder_late_at(&b->late_ns, here.late_ns);
    builder_late_at(&b->late_ns, pr.ctx.late_ns);
}

/* Put the samples and spark counters earlier than `horizon` (all if final) into the
 * series in time order. A growing builder keeps them (placed, placed_sparks): one that
 * comes before a placed one — a capability that wrote late — is merged in and the
 * series are fed again from its time. A one-shot build feeds them and frees them, on
 * a second thread for half of them when `helper` (section: the profile's). */
static void
builder_place_samples(builder *b, uint64_t horizon, bool final, bool helper, unsigned section)
{
    if (!b->growing) {
        /* One-shot (final): each series' streams merged into it, their bytes given
         * back as they are read. Series are independent: one at a time, on one thread
         * or (the allocation sum apart) on two. */
        builder_drain_samples(b, helper, section);
        return;
    }
    if (!b->n_samples && !b->n_sparks)
        return;
    raw_sample_sort(b->samples, b->n_samples);
    raw_spark_sort(b->sparks, b->n_sparks);
    size_t k = b->n_samples, ks = b->n_sparks;
    if (!final) {
        k = builder_count_before(b->samples, k, sizeof *b->samples,
                                 offsetof(raw_sample, time_ns), horizon);
        ks = builder_count_before(b->sparks, ks, sizeof *b->sparks,
                                  offsetof(raw_spark, time_ns), horizon);
    }
    if (!k && !ks)
        return;
    if (k)
        builder_late_at(&b->late_ns, b->samples[0].time_ns);
    if (ks)
        builder_late_at(&b->late_ns, b->sparks[0].time_ns);
    if (b->growing) {
        size_t n_old = b->n_placed, ns_old = b->n_placed_sparks;
        size_t at = place_append(b, (void **)&b->placed, &b->n_placed, &b->cap_placed,
                                 b->samples, k, sizeof *b->placed, raw_sample_cmp);
        size_t at_s = place_append(b, (void **)&b->placed_sparks, &b->n_placed_sparks,
                                   &b->cap_placed_sparks, b->sparks, ks,
                                   sizeof *b->placed_sparks, raw_spark_cmp);
        if (at < n_old || at_s < ns_old) {  /* a late one: the series go back before it */
            /* From the earliest item of either list not fed yet: a late spark counter
             * must not send back past new samples that came before it (nor a late
             * sample past new spark counters). */
            uint64_t t = UINT64_MAX;
            if (at < b->n_placed)
                t = b->placed[at].time_ns;
            if (at_s < b->n_placed_sparks && b->placed_sparks[at_s].time_ns < t)
                t = b->placed_sparks[at_s].time_ns;
            at = builder_count_before(b->placed, b->n_placed, sizeof *b->placed,
                                      offsetof(raw_sample, time_ns), t);
            at_s = builder_count_before(b->placed_sparks, b->n_placed_sparks,
                                        sizeof *b->placed_sparks, offsetof(raw_spark, time_ns), t);
            builder_rewind_series(b, t, at);
            b->work.series_rebuilds++;
        }
        for (size_t i = at; i < b->n_placed; i++)
            builder_feed_sample(b, &b->placed[i]);
        for (size_t i = at_s; i < b->n_placed_sparks; i++)
            builder_feed_spark(b, &b->placed_sparks[i]);
    } else {
        for (size_t i = 0; i < k; i++)
            builder_feed_sample(b, &b->samples[i]);
        for (size_t i = 0; i < ks; i++)
            builder_feed_spark(b, &b->sparks[i]);
    }
    if (k)
        memmove(b->samples, b->samples + k, (b->n_samples - k) * sizeof *b->samples);
    b->n_samples -= k;
    if (ks)
        memmove(b->sparks, b->sparks + ks, (b->n_sparks - ks) * sizeof *b->sparks);
    b->n_sparks -= ks;
}

/* The messages earlier than `horizon` (all if final) into ix->msgs (a growing builder's:
 * a one-shot one added them as they came), merged in where late. */
static void
builder_place_msgs(builder *b, uint64_t horizon, bool final, uint64_t *moved)
{
    evindex *ix = b->ix;
    if (!b->n_pend_msgs) {
        if (final)
            msgtab_trim(ix->msgs);  /* seals a one-shot build's per-cap lists */
        else
            msgtab_seal(ix->msgs);
        return;
    }
    msg_sort(b->pend_msgs, b->n_pend_msgs);
    size_t k = final ? b->n_pend_msgs
                     : builder_count_before(b->pend_msgs, b->n_pend_msgs, sizeof *b->pend_msgs,
                                            offsetof(evindex_msg, time_ns), horizon);
    msgtab_append_sorted(ix->msgs, b->pend_msgs, k, moved);
    memmove(b->pend_msgs, b->pend_msgs + k, (b->n_pend_msgs - k) * sizeof *b->pend_msgs);
    b->n_pend_msgs -= k;
    if (final)
        msgtab_trim(ix->msgs);
}

/* Flushes come from capability blocks, the phases from the global block, which GHC
 * writes last: flushes go in by time, and each cycle counts its own by time, not file
 * order (the cycles whose count can have changed: those ending at or after the first
 * flush placed, and the newest). */
static void
builder_place_flushes(builder *b, uint64_t *moved)
{
    evindex *ix = b->ix;
    size_t at = ix->n_nm_flushes;
    if (b->n_pend_flushes) {
        size_t n_old = ix->n_nm_flushes;
        xgrowarray((void **)&ix->nm_flushes, &b->cap_flushes, n_old + b->n_pend_flushes, 64,
                   sizeof *ix->nm_flushes);
        memcpy(ix->nm_flushes + n_old, b->pend_flushes,
               b->n_pend_flushes * sizeof *ix->nm_flushes);
        ix->n_nm_flushes = n_old + b->n_pend_flushes;
        b->n_pend_flushes = 0;
        at = sort_new_tail(ix->nm_flushes, n_old, ix->n_nm_flushes, sizeof *ix->nm_flushes,
                           instant_cmp, moved);
    }
    size_t from = b->nm_counted;
    if (at < ix->n_nm_flushes)
        while (from > 0 && ix->nm_cycles[from - 1].end_ns >= ix->nm_flushes[at].time_ns)
            from--;
    if (from + 1 > ix->n_nm_cycles)
        from = ix->n_nm_cycles ? ix->n_nm_cycles - 1 : 0;
    for (size_t i = from; i < ix->n_nm_cycles; i++) {
        evindex_nm_cycle *c = &ix->nm_cycles[i];
        size_t lo = builder_count_before(ix->nm_flushes, ix->n_nm_flushes,
                                         sizeof *ix->nm_flushes,
                                         offsetof(evindex_instant, time_ns), c->start_ns);
        c->n_flushes = 0;
        for (size_t k = lo; k < ix->n_nm_flushes && ix->nm_flushes[k].time_ns <= c->end_ns; k++)
            c->n_flushes++;
    }
    b->nm_counted = ix->n_nm_cycles ? ix->n_nm_cycles - 1 : 0;   /* the last may grow */
}

/* The GC marks and the census windows that came since the last publish into their
 * sorted prefixes, for the join. */
static void
builder_sort_marks(builder *b, uint64_t *moved)
{
    sort_new_tail(b->marks, b->n_marks_sorted, b->n_marks, sizeof *b->marks, evindex_gcmark_cmp,
                  moved);
    b->n_marks_sorted = b->n_marks;
    sort_new_tail(b->hp_wins, b->n_hp_wins_sorted, b->n_hp_wins, sizeof *b->hp_wins,
                  evindex_census_cmp, moved);
    b->n_hp_wins_sorted = b->n_hp_wins;
}

/* Logs with fewer events place everything on the building thread (unless the walk
 * took threads already). */
#define EVINDEX_SIDE_SEAL_EVENTS 1000000

/* The final publish's side: what the series and the lanes do not read — flushes,
 * threads, messages, the seek table and the side tables, and the GC marks and census
 * windows the join wants sorted — placed, sorted and sealed on a thread of its own
 * while the building thread places the samples. It touches nothing of the builder but
 * these, and counts what it moved in its own `moved`. */
typedef struct publish_side {
    builder *b;
    uint64_t moved;
    unsigned section;           /* of the profile */
    msgtab_split *msplit;       /* a message seal in halves: half 1 here, half 0 here
                                 * or on the building thread, whichever is free first */
} publish_side;

static void *
publish_side_main(void *arg)
{
    publish_side *ps = arg;
    builder *b = ps->b;
    evindex *ix = b->ix;
    evindex_prof *prof = b->prof;
    prof_mark pm = prof_start(prof);
    builder_place_flushes(b, &ps->moved);
    prof_stage(prof, &pm, "flushes", ps->section, 1);
    threadtab_seal(ix->threads);
    prof_stage(prof, &pm, "threads_seal", ps->section, 1);
    if (ps->msplit)
        msgtab_split_run(ps->msplit, 1);    /* half 0: whichever thread is free first */
    else
        builder_place_msgs(b, UINT64_MAX, true, &ps->moved);
    prof_stage(prof, &pm, "msgs", ps->section, 1);
    evseek_seal(ix->seek);
    series_seal(ix->nm_pruned);
    series_seal(ix->nm_free_segments);
    heapprof_seal(ix->heap);
    ipe_table_seal(ix->ipe);
    ticky_seal(ix->ticky);
    timeprof_seal(ix->timeprof);    /* once: a growing index shows none before */
    ix->timeprof_sealed = true;
    ivtrack_seal(ix->nm);
    prof_stage(prof, &pm, "side_seals", ps->section, 1);
    builder_sort_marks(b, &ps->moved);
    prof_stage(prof, &pm, "marks", ps->section, 1);
    if (ps->msplit && msgtab_split_run(ps->msplit, 0))
        prof_stage(prof, &pm, "msgs_lo", ps->section, 1);
    return NULL;
}

/* A GC span as a bound on when every capability had stopped: the leader posts
 * GC_START only once all have (and a span whose GC_STATS was cut off may be the
 * leader's too); a worker's GC_START may come earlier, but it starts working only
 * after the leader started, so its first GC_WORK (else its end) is after it. */
typedef struct stop_bound {
    uint64_t start_ns, by_ns;
} stop_bound;

static int
stop_bound_cmp(const void *a, const void *b)
{
    const stop_bound *x = a, *y = b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

/* Close the runs the data left open (a log cut short, or a run still going at exit).
 * Every capability stops before a collection starts, so an open run ends no later
 * than the first collection after it began (its stop_bound), nor after its
 * capability's last block ended (that block was written then), nor after the last
 * timestamp, but not before the capability's last event. Its end stays unknown:
 * RUNLANE_F_OPEN. */
static void
builder_close_open_runs(builder *b, uint64_t end)
{
    evindex *ix = b->ix;
    size_t n_open = 0, n_spans = 0;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        n_open += b->ls[li].run_open;
        n_spans += ix->lanes[li].n_spans;
    }
    if (!n_open)
        return;
    stop_bound *sb = xmalloc((n_spans + 1) * sizeof *sb);     /* freed below */
    size_t k = 0;
    for (size_t li = 0; li < ix->n_lanes; li++)
        for (size_t j = 0; j < ix->lanes[li].n_spans; j++) {
            const evindex_lane *lane = &ix->lanes[li];
            uint64_t start = evindex_span_start(lane, j);
            uint64_t first_work = evindex_span_first_work(lane, j);
            sb[k++] = (stop_bound){ start, evindex_span_stats(lane, j) ? start
                                           : first_work ? first_work
                                           : evindex_span_end(lane, j) };
        }
    qsort(sb, n_spans, sizeof *sb, stop_bound_cmp);
    for (size_t i = n_spans; i-- > 1;)         /* by_ns: the least from here on */
        if (sb[i].by_ns < sb[i - 1].by_ns)
            sb[i - 1].by_ns = sb[i].by_ns;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        const lane_state *s = &b->ls[li];
        if (!s->run_open)
            continue;
        uint64_t t = end;
        size_t lo = 0, hi = n_spans;            /* the first span starting after the run */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sb[mid].start_ns <= s->run_start)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_spans && sb[lo].by_ns < t)
            t = sb[lo].by_ns;
        if (s->block_end_ns > s->run_start && s->block_end_ns < t)
            t = s->block_end_ns;
        /* Never before an event its capability posted (a log that breaks the rule). */
        uint64_t seen = evseek_cap_last_ns(ix->seek, ix->lanes[li].pub.cap);
        if (seen > t)
            t = seen;
        lane_close_run(b, li, t, 0, RUNLANE_F_OPEN);
    }
    x_free(sb);
}

/* A capability writes its events in time order but for a few microseconds (see
 * livemerge.h); one that wrote nothing for this long behind the newest is quiet and
 * holds nothing back (should it write older events after all, the join takes them in
 * late, and the series are fed again). */
#define EVINDEX_GROW_SLACK_NS ((uint64_t)10000000)        /* 10 ms */
#define EVINDEX_GROW_QUIET_NS ((uint64_t)1000000000)      /* 1 s */

/* The placement horizon: no event earlier than it is expected any more — the oldest
 * of the capabilities' newest times, less the slack. A capability the log created
 * that has written nothing yet holds it at 0; one that wrote nothing for
 * EVINDEX_GROW_QUIET_NS behind the newest is left out. A log without capability
 * blocks has one writer: its newest time. */
static uint64_t
builder_horizon(const builder *b, uint64_t walked_last_ns)
{
    const evindex *ix = b->ix;
    uint64_t newest = 0, h = UINT64_MAX;
    for (size_t li = 0; li < ix->n_lanes; li++)
        if (b->newest[ix->lanes[li].pub.cap] > newest)
            newest = b->newest[ix->lanes[li].pub.cap];
    if (!newest)
        return walked_last_ns > EVINDEX_GROW_SLACK_NS ? walked_last_ns - EVINDEX_GROW_SLACK_NS
                                                      : 0;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        uint64_t nw = b->newest[ix->lanes[li].pub.cap];
        if (nw + EVINDEX_GROW_QUIET_NS >= newest && (nw ? nw - 1 : 0) < h)
            h = nw ? nw - 1 : 0;
    }
    return h > EVINDEX_GROW_SLACK_NS ? h - EVINDEX_GROW_SLACK_NS : 0;
}

/* What one walk over (part of) the file saw. */
typedef struct walk {
    uint64_t first, last, n;
    bool have_first;
    bool cancelled;
} walk;

/* Place what was walked so far: the index then answers for every event walked. Per
 * capability everything was appended during the walk; here the global, time-sorted
 * parts take the new items in. With `final` (the data ended) everything still open is
 * closed first, as at the end of a log, every item is placed and the index is trimmed;
 * otherwise items later than the placement horizon wait. `it` (NULL if final) is the
 * walk's iterator, standing before the next event. */
static void
builder_publish(builder *b, const evlog_iter *it, const walk *w, bool final)
{
    evindex *ix = b->ix;
    evindex_prof *prof = b->prof;
    prof_mark pm = prof_start(prof);
    ix->first_ns = w->have_first ? w->first : 0;
    ix->last_ns = w->last;
    ix->n_events = w->n;
    builder_apply_caplife(b);
    if (final) {
        uint64_t end = ix->last_ns;
        builder_close_open_runs(b, end);
        for (size_t li = 0; li < ix->n_lanes; li++)
            if (b->ls[li].in_gc) {
                builder_late_at(&b->late_ns, evindex_span_start(&ix->lanes[li], b->ls[li].span));
                lane_end_gc(b, li, end, true);
            }
        nm_close_phase(b, end, true);
        if (b->hp_open)
            builder_census_close(b, UINT64_MAX, UINT64_MAX);
    }
    prof_stage(prof, &pm, "close", 0, 0);
    /* Never back: a capability that comes (or wakes) late gives late items, merged in
     * as such, rather than holding back what was placed. */
    uint64_t horizon = final ? UINT64_MAX : builder_horizon(b, w->last);
    if (!final && horizon < b->horizon_ns)
        horizon = b->horizon_ns;
    b->horizon_ns = horizon;
    publish_side side = { b, 0, 0, NULL };
    pthread_t sider;
    bool side_on = false;
    /* Worth a second thread: the final publish's side, and a one-shot build's join,
     * which makes its collections on it (a growing index's last join is of its tail
     * alone). */
    bool two_cores = final &&
                     (ix->threads_used > 1 || ix->n_events >= EVINDEX_SIDE_SEAL_EVENTS);
    if (final) {
        side.section = prof_section(prof);
        if (!b->n_pend_msgs)
            side.msplit = msgtab_split_begin(ix->msgs, MSGTAB_SPLIT_MIN);
        side_on = two_cores && pthread_create(&sider, NULL, publish_side_main, &side) == 0;
        if (!side_on)
            publish_side_main(&side);
        builder_place_samples(b, horizon, true, two_cores, side.section);
        /* In the series now, and nothing comes late any more: not kept through the
         * GC join. */
        x_free(b->samples);
        x_free(b->sparks);
        x_free(b->placed);
        x_free(b->placed_sparks);
        samplebuf_free(b->sample_q);
        samplebuf_free(b->spark_q);
        b->sample_q = b->spark_q = NULL;
        b->samples = NULL;
        b->sparks = NULL;
        b->placed = NULL;
        b->placed_sparks = NULL;
        b->n_samples = b->cap_samples = b->n_sparks = b->cap_sparks = 0;
        b->n_placed = b->cap_placed = b->n_placed_sparks = b->cap_placed_sparks = 0;
        prof_stage(prof, &pm, "samples", side.section, 0);
        for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
            series_seal(ix->series[i]);
        for (size_t li = 0; li < ix->n_lanes; li++) {
            evindex_lane *lane = &ix->lanes[li];
            runlane_seal(lane->runs);
            for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
                timelist_seal(lane->sparks[k]);
            for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++)
                series_seal(lane->spark_series[k]);
            ivtrack_seal(lane->gc);
        }
        x_trim();               /* the placed samples and their sort, before the join */
        prof_stage(prof, &pm, "seals", side.section, 0);
    } else {
        builder_place_flushes(b, &b->work.items_moved);
        threadtab_seal(ix->threads);
        builder_place_samples(b, horizon, false, false, 0);
        /* The heap profile, IPE and ticky tables sort on sealing: only when they
         * changed, and not inside a census (a ticky sample in progress stays open). */
        if (b->side_dirty && !b->hp_open) {
            heapprof_seal(ix->heap);
            ipe_table_seal(ix->ipe);
            b->side_dirty = false;
        }
        if (b->ticky_dirty) {
            ticky_publish(ix->ticky);
            b->ticky_dirty = false;
        }
    }
    for (size_t li = 0; li < ix->n_lanes; li++) {      /* spark series may be new */
        ix->lanes[li].pub.runs = ix->lanes[li].runs;
        ix->lanes[li].pub.gc = ix->lanes[li].gc;
    }
    if (!final) {
        builder_place_msgs(b, horizon, false, &b->work.items_moved);
        evseek_publish(ix->seek, it);
        builder_sort_marks(b, &b->work.items_moved);
    }
    /* The earlier half of a split message seal, unless the side has taken it (it seals
     * the table if it finishes last; msgtab_split_end runs any half not taken). */
    if (side.msplit && msgtab_split_run(side.msplit, 0))
        prof_stage(prof, &pm, "msgs_lo", side.section, 0);
    /* The side is done before the join: the marks are its (and while the join makes
     * collections on a second thread, two threads are enough). */
    if (side_on)
        pthread_join(sider, NULL);
    if (side.msplit)
        msgtab_split_end(ix->msgs, side.msplit);
    b->work.items_moved += side.moved;
    prof_stage(prof, &pm, "side_wait", side.section, 0);
    uint64_t join_horizon = horizon;
    if (b->hp_open && b->hp_time < join_horizon)
        join_horizon = b->hp_time;      /* its window joins a collection when it ends */
    for (size_t li = 0; li < ix->n_lanes; li++) {
        evindex_lane *lane = &ix->lanes[li];
        const lane_state *s = &b->ls[li];
        lane->n_spans_closed = s->in_gc ? s->span : lane->n_spans;
        /* An open GC span or thread run (its capability has not written past it, even
         * a quiet one) can still change the collections after its start. */
        if (s->in_gc && evindex_span_start(lane, s->span) < join_horizon)
            join_horizon = evindex_span_start(lane, s->span);
        if (s->run_open && s->run_start < join_horizon)
            join_horizon = s->run_start;
    }
    prof_stage(prof, &pm, "join_horizon", side.section, 0);
    evindex_join_grow(ix, &b->join, &b->stats, b->marks, b->n_marks, b->hp_wins,
                      b->n_hp_wins, b->late_ns, join_horizon, final,
                      two_cores && !b->growing);
    prof_stage(prof, &pm, "join", side.section, 0);
    if (prof && b->join.helper_wall_ns)
        prof_put(prof, "join_make", b->join.helper_cpu_ns, b->join.helper_wall_ns,
                 side.section, 1);
    b->late_ns = UINT64_MAX;
    b->work.spans_joined = b->join.n_spans_joined;
    b->work.join_rollbacks = b->join.n_rollbacks;
    b->work.gcs_final = b->join.n_final;
    b->work.steps++;
    b->work.events_walked = w->n;
    if (final)
        /* The collections' parts now hold everything the spans said; the GC phases'
         * refs are final. */
        for (size_t li = 0; li < ix->n_lanes; li++) {
            ivtrack_pack_refs(ix->lanes[li].gc);
            x_free(ix->lanes[li].spans);
            ix->lanes[li].spans = NULL;
            ix->lanes[li].n_spans = ix->lanes[li].cap_spans = 0;
            x_free(ix->lanes[li].wide);
            ix->lanes[li].wide = NULL;
            ix->lanes[li].n_wide = ix->lanes[li].cap_wide = 0;
            ix->lanes[li].n_spans_closed = ix->lanes[li].span_from = 0;
        }
    prof_stage(prof, &pm, "spans_free", 0, 0);
}

static void
builder_free(builder *b)
{
    x_free(b->lane_of);
    x_free(b->ls);
    evindex_stats_free(&b->stats);
    x_free(b->marks);
    x_free(b->samples);
    x_free(b->sparks);
    x_free(b->caplife);
    x_free(b->heads);
    x_free(b->hp_wins);
    x_free(b->pend_msgs);
    x_free(b->pend_flushes);
    x_free(b->placed);
    x_free(b->placed_sparks);
    samplebuf_free(b->sample_q);
    samplebuf_free(b->spark_q);
    x_free(b->newest);
    evindex_join_free(&b->join);
}

static evindex *
evindex_alloc(const evlog *log)
{
    evindex *ix = xcalloc(1, sizeof *ix);
    ix->log = log;
    ix->n_gens = 2;
    ix->threads = threadtab_new();
    ix->nm = ivtrack_new();
    ix->gcs = gcpack_new();
    ix->msgs = msgtab_new(EVINDEX_MSG_MARKER);
    ix->nm_pruned = series_new();
    ix->nm_free_segments = series_new();
    ix->heap = heapprof_new();
    ix->ipe = ipe_table_new();
    ix->ticky = ticky_new();
    ix->timeprof = timeprof_new(log);
    ix->timeprof_none = timeprof_new(log);
    timeprof_seal(ix->timeprof_none);
    ix->seek = evseek_new();
    for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
        ix->series[i] = series_new();
    return ix;
}

/* Index the events from `it` on while they start before end_pos (UINT64_MAX: to the
 * end of the data). Progress is added to opts->progress_bytes as bytes walked since
 * the last report. */
/* Events a walk takes from the iterator at once (evlog_iter_next_run). */
#define EVINDEX_WALK_RUN 256

/* Hand the n events of a run (n >= 1) to their handlers; *first_ns and *last_ns get
 * their least and greatest times. Apart from builder_walk, so that its loop keeps
 * what it uses in registers. */
static void
builder_walk_run(builder *b, const evlog_event *run, size_t n, uint64_t *first_ns,
                 uint64_t *last_ns)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    /* The run's lane, found at its first event that works on one: its events share a
     * capability, and no handler makes a lane for another (a block marker, always
     * first, makes this one's), so no lane moves under it. */
    size_t li = SIZE_MAX;
    for (const evlog_event *ev = run, *end = run + n; ev < end; ev++) {
        lo = ev->time_ns < lo ? ev->time_ns : lo;
        hi = ev->time_ns > hi ? ev->time_ns : hi;
        unsigned type = ev->type;
        /* The two events most logs are made of, called directly (inlined). */
        if (type == EV_RUN_THREAD || type == EV_STOP_THREAD) {
            if (li == SIZE_MAX)
                li = builder_lane(b, run->cap);
            if (type == EV_RUN_THREAD)
                on_run(b, li, ev);
            else
                on_stop(b, li, ev);
            continue;
        }
        if (type >= 256)
            continue;
        evindex_handler h = evindex_handlers[type];
        if (h) {
            if (!evindex_lane_types[type])
                h(b, SIZE_MAX, ev);
            else {
                if (li == SIZE_MAX)
                    li = builder_lane(b, run->cap);
                h(b, li, ev);
            }
        }
    }
    *first_ns = lo;
    *last_ns = hi;
}

static void
builder_walk(builder *b, evlog_iter *it, uint64_t end_pos, const evindex_opts *opts, walk *w)
{
    evlog_event run[EVINDEX_WALK_RUN];
    uint64_t reported = it->pos, next_report = it->pos + (1u << 20);
    uint64_t *newest = b->newest;
    uint64_t first = w->have_first ? w->first : UINT64_MAX, last = w->last, n0 = w->n;
    size_t n;
    while ((n = evlog_iter_next_run(it, run, EVINDEX_WALK_RUN, end_pos)) > 0) {
        w->n += n;
        uint64_t run_first, run_last;
        builder_walk_run(b, run, n, &run_first, &run_last);
        /* The handlers leave the iterator and the seek table alone. */
        evseek_note_run(b->ix->seek, it, run, n, run_first, run_last);
        if (run_first < first)
            first = run_first;
        /* A run's events share a capability (evlog_iter_next_run). */
        if (run[0].cap != EVLOG_NO_CAP && run_last >= newest[run[0].cap])
            newest[run[0].cap] = run_last + 1;
        if (run_last > last)
            last = run_last;
        if (it->pos >= next_report) {
            if (opts->progress_bytes)
                atomic_fetch_add(opts->progress_bytes, it->pos - reported);
            reported = it->pos;
            if (opts->cancel && atomic_load(opts->cancel)) {
                w->cancelled = true;
                break;
            }
            next_report = it->pos + (1u << 20);
        }
    }
    if (w->n > n0) {
        w->first = first;
        w->have_first = true;
    }
    w->last = last;
    if (!w->cancelled && opts->progress_bytes && it->pos > reported)
        atomic_fetch_add(opts->progress_bytes, it->pos - reported);
}

static builder *
builder_new(const evlog *log)
{
    builder *b = xcalloc(1, sizeof *b);         /* caller frees: builder_destroy */
    b->ix = evindex_alloc(log);
    b->lane_of = xcalloc(65536, sizeof *b->lane_of);
    b->newest = xcalloc(65536, sizeof *b->newest);
    b->late_ns = UINT64_MAX;
    return b;
}

/* Free a builder and the index it holds (an abandoned build). */
static void
builder_destroy(builder *b)
{
    if (!b)
        return;
    builder_free(b);
    evindex_free(b->ix);
    x_free(b);
}

/* Place everything (final), give the finished index to the caller and free the rest
 * of the builder. */
static evindex *
builder_finish_take(builder *b, const walk *w, const evindex_opts *opts, diag *ending)
{
    evindex *ix = b->ix;
    evindex_prof *prof = b->prof;
    builder_publish(b, NULL, w, true);
    prof_mark pm = prof_start(prof);
    builder_free(b);
    x_free(b);
    x_trim();                   /* the spans, stats and marks the join read */
    prof_stage(prof, &pm, "builder_free", 0, 0);
    if (opts->progress_bytes)
        atomic_store(opts->progress_bytes, evlog_size(ix->log));
    if (ending)
        *ending = ix->ending;
    return ix;
}

/* ---- the growing index: the builder kept between steps ------------------------------- */

struct evindex_grow {
    builder *b;
    evlog_iter it;
    walk w;
};

evindex_grow *
evindex_grow_new(const evlog *log)
{
    evindex_grow *g = xcalloc(1, sizeof *g);   /* caller frees: evindex_grow_finish/free */
    g->b = builder_new(log);
    g->b->growing = true;
    g->b->ix->threads_used = 1;
    evlog_iter_init(&g->it, log);
    return g;
}

bool
evindex_grow_step(evindex_grow *g, uint64_t max_bytes)
{
    static const evindex_opts none = { 0 };
    evlog_iter_resume(&g->it);
    uint64_t end = max_bytes > UINT64_MAX - g->it.pos ? UINT64_MAX : g->it.pos + max_bytes;
    builder_walk(g->b, &g->it, end, &none, &g->w);
    evindex *ix = g->b->ix;
    evlog_iter_ending(&g->it, &ix->ending);
    ix->truncated = g->it.state != EVLOG_ITER_END;
    builder_publish(g->b, &g->it, &g->w, false);
    return g->it.state == EVLOG_ITER_OK && g->it.pos < evlog_size(ix->log);
}

const evindex *evindex_grow_index(const evindex_grow *g) { return g->b->ix; }
uint64_t evindex_grow_bytes(const evindex_grow *g) { return g->it.pos; }

bool
evindex_grow_ended(const evindex_grow *g)
{
    return g->it.state == EVLOG_ITER_END || g->it.state == EVLOG_ITER_ERROR;
}

void
evindex_grow_work_get(const evindex_grow *g, evindex_grow_work *w)
{
    *w = g->b->work;
}

evindex *
evindex_grow_finish(evindex_grow *g, diag *ending)
{
    static const evindex_opts none = { 0 };
    evlog_iter_resume(&g->it);
    builder_walk(g->b, &g->it, UINT64_MAX, &none, &g->w);
    evlog_iter_ending(&g->it, &g->b->ix->ending);
    g->b->ix->truncated = g->it.state != EVLOG_ITER_END;
    evindex *ix = builder_finish_take(g->b, &g->w, &none, ending);
    x_free(g);
    return ix;
}

void
evindex_grow_free(evindex_grow *g)
{
    if (!g)
        return;
    builder_destroy(g->b);
    x_free(g);
}

/* The serial build over the data as if the file ended at byte `end`: the growing
 * builder fed once. */
static evindex *
evindex_build_serial(const evlog *log, const evindex_opts *opts, uint64_t end, diag *ending)
{
    prof_mark pm = prof_start(opts->prof);
    builder *b = builder_new(log);
    b->prof = opts->prof;
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_iter_cut(&it, end);
    walk w = { 0 };
    builder_walk(b, &it, UINT64_MAX, opts, &w);
    prof_stage(opts->prof, &pm, "walk", 0, 0);
    if (w.cancelled) {
        builder_destroy(b);
        return NULL;
    }
    evlog_iter_ending(&it, &b->ix->ending);
    b->ix->truncated = it.state != EVLOG_ITER_END;
    b->ix->threads_used = 1;
    return builder_finish_take(b, &w, opts, ending);
}

/* ---- the parallel build: a block split ----------------------------------------------------- */

/* The file's capability blocks are cut into contiguous ranges, one per worker, sized by
 * bytes; worker 0 also takes every global stretch (the global block and events outside
 * blocks: non-moving phases, heap-profile censuses, ticky, IPE, program facts), so
 * that whatever GHC writes only there is built by one builder — unless the global
 * stretches are the bulk of the file (a heap profile's bands, user events): then the
 * ranges cut them too, a later worker keeps what it did before it met a census's BEGIN
 * or END as a head like a lane's, and if one met a non-moving phase, ticky or IPE
 * event the build starts again the first way (par_assign). A later worker starts
 * mid-log: its lanes' states are unknown, and the events that depend on them are kept
 * as heads. Stitching worker k onto the builder of workers 0 .. k-1 replays k's heads
 * against that builder's tail state, then appends k's runs, phases, spans and spark
 * times per lane and merges the rest (builder_stitch). The result is the serial
 * build's index. */

/* A stretch of the file for one worker: a capability block (from its marker) or a run
 * of events outside any block. */
typedef struct par_seg {
    uint64_t start, end;
    uint16_t cap;
    uint16_t owner;             /* the worker that walks it */
} par_seg;

/* Cut the data into blocks by hopping from marker to marker (block sizes are in the
 * markers), O(blocks). False when the layout is anything but clean — a partial event,
 * a block running past the file or an undeclared type — so the serial build, which
 * reports such things exactly, takes over. */
static bool
par_plan(const evlog *log, par_seg **out, size_t *n_out)
{
    size_t n = 0, cap = 0;
    par_seg *segs = NULL;
    uint64_t pos = evlog_data_start(log), size = evlog_size(log);
    const uint8_t *data = evlog_bytes(log);
    bool ok = false;
    for (;;) {
        if (pos + 2 <= size && cursor_be16(data + pos) == EVLOG_DATA_END) {
            ok = true;
            break;
        }
        evlog_event ev;
        if (!evlog_event_at(log, pos, EVLOG_NO_CAP, &ev))
            break;
        if (ev.type == EV_BLOCK_MARKER && ev.et->size != EVLOG_VARIABLE_SIZE &&
            ev.payload_len >= 14) {
            uint64_t end = pos + cursor_be32(ev.payload);
            if (end < pos + ev.size || end > size)
                break;
            par_seg *sg = EVINDEX_PUSH(segs, n, cap);
            *sg = (par_seg){ pos, end, cursor_be16(ev.payload + 12), 0 };
            pos = end;
        } else {
            if (n && segs[n - 1].cap == EVLOG_NO_CAP && segs[n - 1].end == pos)
                segs[n - 1].end = pos + ev.size;
            else
                *EVINDEX_PUSH(segs, n, cap) = (par_seg){ pos, pos + ev.size, EVLOG_NO_CAP, 0 };
            pos += ev.size;
        }
    }
    if (!ok || n < 2) {         /* no blocks (old GHC): nothing to share out */
        x_free(segs);
        return false;
    }
    *out = segs;
    *n_out = n;
    return true;
}

typedef struct par_worker {
    const evlog *log;
    const evindex_opts *opts;
    const par_seg *segs;
    size_t n_segs;
    unsigned id, n_workers;
    builder *b;
    walk w;
    bool clean;                 /* every segment was walked to its end */
    unsigned section;           /* of the profile */
} par_worker;

/* A capability split is even enough when no worker walks more than this many
 * thousandths of the bytes an even share would be. */
#define EVINDEX_PAR_EVEN_PERMILLE 1080

/* Share the segments out: global ones to worker 0; when the capabilities' bytes share
 * out evenly (capability c to worker c mod n), that way — every worker builds whole
 * lanes from the start, and the stitch only moves them; else the capability blocks in
 * file order in contiguous ranges, worker 0's range shortened by the global bytes it
 * walks (each worker about the same bytes), and the later workers start mid-log. When
 * the global bytes alone are more than a worker's share (a heap profile's bands, user
 * events) and `split_global`, the ranges take every segment in file order, global ones
 * too: the heap profile is stitched at the seams like the lanes (builder_stitch_heap).
 * With `split_at` (tests) always by ranges, worker k's starting at the first capability
 * block (with `split_global`, segment) at or after split_at[k - 1]. Returns whether it
 * split by ranges; *global_split whether a later worker walks a global segment. */
static bool
par_assign(par_seg *segs, size_t n, unsigned n_workers, const uint64_t *split_at,
           bool split_global, bool *global_split)
{
    uint64_t global = 0, total = 0;
    uint64_t *by_cap = xcalloc(n_workers, sizeof *by_cap);     /* freed below */
    *global_split = false;
    for (size_t i = 0; i < n; i++) {
        total += segs[i].end - segs[i].start;
        if (segs[i].cap == EVLOG_NO_CAP)
            global += segs[i].end - segs[i].start;
        else
            by_cap[segs[i].cap % n_workers] += segs[i].end - segs[i].start;
    }
    by_cap[0] += global;
    uint64_t most = 0;
    for (unsigned w = 0; w < n_workers; w++)
        most = by_cap[w] > most ? by_cap[w] : most;
    x_free(by_cap);
    if (!split_at && most * n_workers * 1000 <= total * EVINDEX_PAR_EVEN_PERMILLE) {
        for (size_t i = 0; i < n; i++)
            segs[i].owner = segs[i].cap == EVLOG_NO_CAP ? 0 : segs[i].cap % n_workers;
        return false;
    }
    uint64_t share = total / n_workers;
    bool all = split_global && (split_at || global > share);
    uint64_t load = all ? 0 : global;
    unsigned w = 0;
    for (size_t i = 0; i < n; i++) {
        par_seg *sg = &segs[i];
        if (sg->cap == EVLOG_NO_CAP && !all) {
            sg->owner = 0;
            continue;
        }
        if (split_at) {
            while (w + 1 < n_workers && sg->start >= split_at[w])
                w++;
        } else if (w + 1 < n_workers && load >= share) {
            w++;
            load = 0;
        }
        sg->owner = (uint16_t)w;
        *global_split |= sg->cap == EVLOG_NO_CAP && w > 0;
        load += sg->end - sg->start;
    }
    return true;
}

static void *
par_worker_main(void *arg)
{
    par_worker *pw = arg;
    prof_mark pm = prof_start(pw->opts->prof);
    pw->clean = true;
    for (size_t i = 0; i < pw->n_segs && !pw->w.cancelled; i++) {
        const par_seg *sg = &pw->segs[i];
        if (sg->owner != pw->id)
            continue;
        evlog_iter it;
        evlog_iter_init_at(&it, pw->log, sg->start);
        builder_walk(pw->b, &it, sg->end, pw->opts, &pw->w);
        if (it.pos != sg->end)
            pw->clean = false;
    }
    prof_stage(pw->opts->prof, &pm, "walk", pw->section, pw->id);
    return NULL;
}

/* Replay one head of a later worker against dst's state of that lane (dst knows it):
 * what the event did in the serial build. */
static void
builder_replay_head(builder *dst, const lane_head *h, uint32_t stats0)
{
    size_t li = builder_lane(dst, h->cap);
    lane_state *s = &dst->ls[li];
    evindex_lane *lane = &dst->ix->lanes[li];
    switch ((enum lane_head_kind)h->kind) {
    case HEAD_RUN_CUT:
        if (s->run_open)
            lane_close_run(dst, li, h->time_ns, 0, RUNLANE_F_OPEN);
        break;
    case HEAD_STOP:
        if (s->run_open)
            lane_close_run(dst, li, h->time_ns, h->status, 0);
        break;
    case HEAD_GC_RESTART:
    case HEAD_GC_END:
        if (s->in_gc)
            lane_end_gc(dst, li, h->time_ns, h->kind == HEAD_GC_RESTART);
        break;
    case HEAD_GC_SUB: {
        evlog_event ev = { .time_ns = h->time_ns, .type = h->status };
        on_gc_sub(dst, li, &ev);
        break;
    }
    case HEAD_STATS:
        if (lane->n_spans && !evindex_span_stats(lane, lane->n_spans - 1)) {
            evindex_stats_claim(&dst->stats, stats0 + h->stats);
            evindex_span_set_stats(lane, lane->n_spans - 1, stats0 + h->stats + 1);
        }
        break;
    }
}

/* The bulk of a later worker's runs on one lane, re-encoded where dst's chunks end,
 * in two halves: the second into a lane of its own (runlane_copy_range) on a helper
 * thread while the stitch goes on, the first straight onto dst's lane on the stitching
 * thread after the rest of the stitch; then the second is spliced on. */
typedef struct stitch_job {
    runlane **src;              /* the later worker's lane's slot (freed once copied) */
    size_t from, mid;           /* runs [from, mid) and [mid, count) of src */
    runlane *out;               /* the second half, owned by the job until spliced */
    uint16_t cap;               /* its lane's */
} stitch_job;

typedef struct stitch_jobs {
    stitch_job *v;
    size_t n;
    threadtab *threads, *src_threads;   /* merged here too (threadtab_merge_take) */
    evseek *seek, *src_seek;            /* likewise (evseek_merge) */
    evindex_prof *prof;
    unsigned section;
} stitch_jobs;

/* The stitch's helper: the second halves of the runs, and the thread tables and seek
 * tables merged, while the stitching thread merges the rest. */
static void *
stitch_jobs_second(void *arg)
{
    stitch_jobs *js = arg;
    prof_mark pm = prof_start(js->prof);
    for (size_t i = 0; i < js->n; i++)
        js->v[i].out = runlane_copy_range(*js->v[i].src, js->v[i].mid, SIZE_MAX);
    prof_stage(js->prof, &pm, "stitch_copy", js->section, 1);
    threadtab_merge_take(js->threads, js->src_threads);
    evseek_merge(js->seek, js->src_seek);
    prof_stage(js->prof, &pm, "stitch_threads", js->section, 1);
    return NULL;
}

/* Append a later worker's lane `sl` (its state `ss`) to dst's lane of the same cap:
 * dst's tail state was brought up to date by the heads; what ss knows replaces it.
 * Its runs: taken whole by a lane with none, spliced unchanged where dst's chunks end,
 * else the first few appended here and the rest left as a job (*job, run later). */
static void
builder_stitch_lane(builder *dst, evindex_lane *sl, const lane_state *ss, uint32_t stats0,
                    stitch_job *job)
{
    size_t li = builder_lane(dst, sl->pub.cap);
    evindex_lane *dl = &dst->ix->lanes[li];
    lane_state *ds = &dst->ls[li];
    size_t spans0 = dl->n_spans;
    for (size_t k = 0; k < sl->n_spans; k++)
        if (evindex_span_stats(sl, k))
            evindex_span_set_stats(sl, k, evindex_span_stats(sl, k) + stats0);
    if (!dl->n_spans && !dl->n_wide) {          /* taken whole */
        x_free(dl->spans);
        dl->spans = sl->spans;
        dl->cap_spans = sl->cap_spans;
        dl->n_spans = sl->n_spans;
        x_free(dl->wide);
        dl->wide = sl->wide;
        dl->cap_wide = sl->cap_wide;
        dl->n_wide = sl->n_wide;
    } else {
        evindex_span_append(dl, sl);
        x_free(sl->spans);     /* copied: none of src's lists is kept beside its copy */
        x_free(sl->wide);
    }
    sl->spans = NULL;
    sl->n_spans = sl->cap_spans = 0;
    sl->wide = NULL;
    sl->n_wide = sl->cap_wide = 0;
    /* A lane dst has nothing of yet takes src's lists whole. */
    job->src = NULL;
    if (runlane_count(dl->runs)) {
        size_t k = runlane_join_at(dl->runs, sl->runs);
        if (k == 0) {
            runlane_splice(dl->runs, sl->runs);
            sl->runs = runlane_new();
        } else {
            runlane_append_range(dl->runs, sl->runs, 0, k);
            size_t n = runlane_count(sl->runs);
            if (k < n)
                *job = (stitch_job){ &sl->runs, k,
                                     k + (n - k) / (2 * RUNLANE_CHUNK) * RUNLANE_CHUNK, NULL,
                                     sl->pub.cap };
        }
    } else {
        runlane *t = dl->runs;
        dl->runs = sl->runs;
        sl->runs = t;
    }
    if (ivtrack_count(dl->gc)) {
        ivtrack_append_track(dl->gc, sl->gc);
        ivtrack_free(sl->gc);
        sl->gc = ivtrack_new();
    } else {
        ivtrack *t = dl->gc;
        dl->gc = sl->gc;
        sl->gc = t;
    }
    for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++) {
        if (timelist_count(dl->sparks[k])) {
            timelist_append_list(dl->sparks[k], sl->sparks[k]);
            timelist_free(sl->sparks[k]);
            sl->sparks[k] = timelist_new();
        } else {
            timelist *t = dl->sparks[k];
            dl->sparks[k] = sl->sparks[k];
            sl->sparks[k] = t;
        }
    }
    dl->pub.runs = dl->runs;
    dl->pub.gc = dl->gc;
    if (ss->known & LANE_KNOWN_RUN) {
        ds->run_open = ss->run_open;
        ds->run_any = ss->run_any;
        ds->run_tid = ss->run_tid;
        ds->run_start = ss->run_start;
    }
    if (ss->known & LANE_KNOWN_GC) {
        ds->in_gc = ss->in_gc;
        ds->any_sub = ss->any_sub;
        ds->phase = ss->phase;
        ds->phase_start = ss->phase_start;
        ds->span = ss->span + spans0;
        ds->span_wait = ss->span_wait;
    }
    if (ss->block_end_ns > ds->block_end_ns)
        ds->block_end_ns = ss->block_end_ns;
}

/* Append src's array `arr` (n, cap its count and room) to dst's and free it: never
 * kept beside its copy. */
static void
builder_append_take(void **dst, size_t *n_dst, size_t *cap_dst, void **src, size_t *n_src,
                    size_t *cap_src, size_t size)
{
    if (*n_src) {
        xgrowarray_release(dst, cap_dst, *n_dst + *n_src, 64, size);
        x_copy_release((char *)*dst + *n_dst * size, *src, *n_src * size);
        *n_dst += *n_src;
    }
    x_free(*src);
    *src = NULL;
    *n_src = *cap_src = 0;
}

#define STITCH_TAKE(dst, src, arr, n, cap)                                                   \
    builder_append_take((void **)&(dst)->arr, &(dst)->n, &(dst)->cap, (void **)&(src)->arr, \
                        &(src)->n, &(src)->cap, sizeof *(dst)->arr)

/* Append the queue *src to *dst (taken whole when dst has none); *src ends NULL. */
static void
builder_take_queue(samplebuf **dst, samplebuf **src)
{
    if (!*src)
        return;
    if (!*dst) {
        *dst = *src;
    } else {
        samplebuf_append_take(*dst, *src);
        samplebuf_free(*src);
    }
    *src = NULL;
}

/* Stitch the heap profile of a later worker `src` onto dst: src's head (the samples it
 * took and the census BEGIN or END it met before it knew whether a census was open)
 * does to dst's open census what it did in the serial build; then src's state is dst's
 * and its censuses, bands and census windows follow dst's. */
static void
builder_stitch_heap(builder *dst, builder *src)
{
    if (dst->hp_open)
        dst->hp_total += src->hp_head_total;
    if (src->hp_known) {
        if (dst->hp_open)
            builder_census_close(dst, src->hp_head_offset,
                                 src->hp_head_end ? src->hp_head_time : UINT64_MAX);
        if (!src->hp_head)      /* else heapprof_append closes it after the head's samples */
            heapprof_census_end(dst->ix->heap);
        dst->hp_open = src->hp_open;
        dst->hp_time = src->hp_time;
        dst->hp_total = src->hp_total;
        dst->hp_bio = src->hp_bio;
    }
    heapprof_append(dst->ix->heap, src->ix->heap, src->hp_head);
    heapprof_free(src->ix->heap);
    src->ix->heap = heapprof_new();
    STITCH_TAKE(dst, src, hp_wins, n_hp_wins, cap_hp_wins);
    dst->side_dirty |= src->side_dirty;
}

/* Stitch a later worker `src` (a mid-log builder whose blocks all follow dst's) onto
 * `dst`, both unfinished: src's heads replayed against dst's tail states, then its
 * lanes appended and everything else merged in file order. False if src holds
 * something only one builder may build (non-moving cycles, ticky, IPE: GHC writes them
 * in the global block, which worker 0 owns unless the global stretches are split). */
static bool
builder_stitch(builder *dst, builder *src)
{
    evindex *d = dst->ix, *s = src->ix;
    prof_mark pm = prof_start(dst->prof);
    if (s->n_nm_cycles || s->n_nm_census || series_count(s->nm_pruned) ||
        !ipe_table_empty(s->ipe) || !ticky_empty(s->ticky) || src->nm_phase_open ||
        src->nm_cycle_open || src->solo_seen)
        return false;
    /* The heap profile first: the census src's head closes puts its series sample in
     * dst's stream before src's samples join. */
    builder_stitch_heap(dst, src);
    prof_stage(dst->prof, &pm, "stitch_heap", 0, 0);
    uint32_t stats0 = (uint32_t)dst->stats.n;
    if (!dst->stats.n && !dst->stats.n_wide) {         /* taken whole */
        evindex_stats_free(&dst->stats);
        dst->stats = src->stats;
    } else {
        evindex_stats_append(&dst->stats, &src->stats);
        evindex_stats_free(&src->stats);
    }
    memset(&src->stats, 0, sizeof src->stats);
    for (size_t i = 0; i < src->n_heads; i++)
        builder_replay_head(dst, &src->heads[i], stats0);
    x_free(src->heads);
    src->heads = NULL;
    src->n_heads = src->cap_heads = 0;
    stitch_jobs js = { xcalloc(s->n_lanes + 1, sizeof *js.v), 0,  /* freed below */
                       d->threads, s->threads, d->seek, s->seek, dst->prof, 0 };
    for (size_t li = 0; li < s->n_lanes; li++) {
        builder_stitch_lane(dst, &s->lanes[li], &src->ls[li], stats0, &js.v[js.n]);
        js.n += js.v[js.n].src != NULL;
    }
    prof_stage(dst->prof, &pm, "stitch_lanes", 0, 0);
    js.section = prof_section(dst->prof);
    pthread_t helper;
    bool helper_on = pthread_create(&helper, NULL, stitch_jobs_second, &js) == 0;
    if (!helper_on) {
        stitch_jobs_second(&js);
        pm = prof_start(dst->prof);
    }
    STITCH_TAKE(dst, src, marks, n_marks, cap_marks);
    /* Each of src's sample streams after dst's of its key (src's blocks all follow
     * dst's), src's freed as they are taken. */
    builder_take_queue(&dst->sample_q, &src->sample_q);
    builder_take_queue(&dst->spark_q, &src->spark_q);
    prof_stage(dst->prof, &pm, "stitch_samples", js.section, 0);
    STITCH_TAKE(dst, src, caplife, n_caplife, cap_caplife);
    STITCH_TAKE(dst, src, pend_msgs, n_pend_msgs, cap_pend_msgs);
    msgtab_merge(d->msgs, s->msgs);
    prof_stage(dst->prof, &pm, "stitch_msgs", js.section, 0);
    STITCH_TAKE(dst, src, pend_flushes, n_pend_flushes, cap_pend_flushes);
    for (size_t c = 0; c < 65536; c++)
        if (src->newest[c] > dst->newest[c])
            dst->newest[c] = src->newest[c];
    timeprof_merge(d->timeprof, s->timeprof);
    evindex_program *dp = &d->program;
    const evindex_program *sp = &s->program;
    if (sp->rts_id_offset)
        dp->rts_id_offset = sp->rts_id_offset;
    if (sp->args_offset)
        dp->args_offset = sp->args_offset;
    if (sp->env_offset)
        dp->env_offset = sp->env_offset;
    if (sp->pid)
        dp->pid = sp->pid;
    if (sp->ppid)
        dp->ppid = sp->ppid;
    if (sp->wall_sec || sp->wall_nsec) {
        dp->wall_sec = sp->wall_sec;
        dp->wall_nsec = sp->wall_nsec;
        dp->wall_time_ns = sp->wall_time_ns;
    }
    dp->n_capsets += sp->n_capsets;
    dp->n_tasks += sp->n_tasks;
    dp->hp_censuses += sp->hp_censuses;
    dp->hp_cost_centres += sp->hp_cost_centres;
    if (s->n_gens != 2)
        d->n_gens = s->n_gens;
    for (size_t i = 0; i < js.n; i++)
        runlane_append_range(d->lanes[dst->lane_of[js.v[i].cap] - 1].runs, *js.v[i].src,
                             js.v[i].from, js.v[i].mid);
    prof_stage(dst->prof, &pm, "stitch_rest", js.section, 0);
    if (helper_on)
        pthread_join(helper, NULL);
    for (size_t i = 0; i < js.n; i++) {
        runlane_free(*js.v[i].src);         /* copied: not kept beside the copy */
        *js.v[i].src = runlane_new();
        evindex_lane *dl = &d->lanes[dst->lane_of[js.v[i].cap] - 1];
        runlane_splice(dl->runs, js.v[i].out);
        dl->pub.runs = dl->runs;
    }
    x_free(js.v);
    prof_stage(dst->prof, &pm, "stitch_splice", 0, 0);
    return true;
}

/* Below this size the serial build is as fast as starting threads. */
#define EVINDEX_PAR_MIN_BYTES (8u << 20)
#define EVINDEX_PAR_MAX_WORKERS 8

/* The log's pages mapped in from its end backwards, on another thread, while the plan
 * reads its block headers from the start: reading them faults in the whole file (each
 * fault maps its neighbours too), so the two meet about halfway and the plan stops it.
 * One read per PAR_POPULATE_STRIDE bytes (the kernel maps that many around a fault). */
#define PAR_POPULATE_STRIDE ((uint64_t)1 << 16)
#define PAR_POPULATE_STEP ((uint64_t)1 << 20)

typedef struct par_populate {
    const evlog *log;
    atomic_bool stop;           /* the plan is done */
} par_populate;

static void *
par_populate_main(void *arg)
{
    par_populate *pp = arg;
    const volatile uint8_t *d = evlog_bytes(pp->log);
    uint64_t at = evlog_size(pp->log);
    while (at > 0 && !atomic_load_explicit(&pp->stop, memory_order_relaxed)) {
        uint64_t lo = at > PAR_POPULATE_STEP ? at - PAR_POPULATE_STEP : 0;
        for (uint64_t p = lo; p < at; p += PAR_POPULATE_STRIDE)
            (void)d[p];
        at = lo;
    }
    return NULL;
}

/* NULL with *fallback set when the serial build must do it; NULL without it when
 * cancelled. */
static evindex *
evindex_build_parallel(const evlog *log, const evindex_opts *opts, unsigned n_workers,
                       bool split_global, diag *ending, bool *fallback, bool *global_split)
{
    *fallback = true;
    *global_split = false;
    evindex_prof *prof = opts->prof;
    prof_mark pm = prof_start(prof);
    par_seg *segs;
    size_t n_segs;
    par_populate pop = { .log = log };
    atomic_init(&pop.stop, false);
    pthread_t pop_th;
    bool pop_on = pthread_create(&pop_th, NULL, par_populate_main, &pop) == 0;
    bool planned = par_plan(log, &segs, &n_segs);
    if (pop_on) {
        atomic_store(&pop.stop, true);
        pthread_join(pop_th, NULL);
    }
    if (!planned)
        return NULL;
    bool by_range = par_assign(segs, n_segs, n_workers, opts->split_at, split_global,
                               global_split);
    prof_stage(prof, &pm, "plan", 0, 0);
    unsigned walk_sec = prof_section(prof);
    par_worker *pw = xcalloc(n_workers, sizeof *pw);        /* freed below */
    pthread_t *th = xcalloc(n_workers, sizeof *th);         /* freed below */
    bool *started = xcalloc(n_workers, sizeof *started);    /* freed below */
    for (unsigned i = 0; i < n_workers; i++) {
        pw[i] = (par_worker){ .log = log, .opts = opts, .segs = segs, .n_segs = n_segs,
                              .id = i, .n_workers = n_workers, .b = builder_new(log),
                              .section = walk_sec };
        pw[i].b->mid = by_range && i > 0;
        if (i > 0)
            started[i] = pthread_create(&th[i], NULL, par_worker_main, &pw[i]) == 0;
    }
    par_worker_main(&pw[0]);
    for (unsigned i = 1; i < n_workers; i++) {
        if (started[i])
            pthread_join(th[i], NULL);
        else
            par_worker_main(&pw[i]);    /* no thread: do its share here */
    }
    x_free(segs);
    bool cancelled = false, ok = true;
    for (unsigned i = 0; i < n_workers; i++) {
        cancelled |= pw[i].w.cancelled;
        ok &= pw[i].clean;
    }
    builder *b = pw[0].b;
    b->prof = prof;
    walk w = pw[0].w;
    for (unsigned i = 1; i < n_workers && ok && !cancelled; i++) {
        ok = builder_stitch(b, pw[i].b);
        if (pw[i].w.have_first) {
            if (!w.have_first || pw[i].w.first < w.first)
                w.first = pw[i].w.first;
            w.have_first = true;
        }
        if (pw[i].w.last > w.last)
            w.last = pw[i].w.last;
        w.n += pw[i].w.n;
    }
    pm = prof_start(prof);
    for (unsigned i = 1; i < n_workers; i++)
        builder_destroy(pw[i].b);
    x_trim();                   /* the workers' freed blocks, before the publish */
    prof_stage(prof, &pm, "workers_free", 0, 0);
    x_free(pw);
    x_free(th);
    x_free(started);
    if (cancelled || !ok) {
        builder_destroy(b);
        *fallback = !cancelled;
        if (*fallback && opts->progress_bytes)
            atomic_store(opts->progress_bytes, 0);
        return NULL;
    }
    *fallback = false;
    diag_clear(&b->ix->ending);
    b->ix->truncated = false;
    b->ix->threads_used = n_workers;
    return builder_finish_take(b, &w, opts, ending);
}

evindex *
evindex_build(const evlog *log, const evindex_opts *opts, diag *ending)
{
    evindex_opts none = { 0 };
    if (!opts)
        opts = &none;
    if (opts->progress_bytes)
        atomic_store(opts->progress_bytes, 0);
    evlog_advise_sequential(log);
    unsigned n = opts->threads;
    if (n == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        n = evlog_size(log) >= EVINDEX_PAR_MIN_BYTES && cores > 1 ? (unsigned)cores : 1;
    }
    if (n > EVINDEX_PAR_MAX_WORKERS)
        n = EVINDEX_PAR_MAX_WORKERS;
    if (opts->split_at)
        n = (unsigned)opts->n_split + 1;
    evindex *ix = NULL;
    bool fallback = true;
    if (n > 1) {
        bool global_split;
        ix = evindex_build_parallel(log, opts, n, true, ending, &fallback, &global_split);
        /* A later worker met something only one builder builds (non-moving cycles,
         * ticky, IPE) in the global stretches it took: again with them all on worker 0. */
        if (!ix && fallback && global_split)
            ix = evindex_build_parallel(log, opts, n, false, ending, &fallback, &global_split);
    }
    if (!ix && fallback)
        ix = evindex_build_serial(log, opts, UINT64_MAX, ending);
    /* Cut while we read it: what was indexed from the lost bytes is not the file's (they
     * read as zeros up to the page's end, then as the end marker), nor, if it was read
     * before the cut, what the file now holds. Index again up to the cut, as if the file
     * had been cut beforehand; again if it was cut further meanwhile. */
    uint64_t read_to = evlog_size(log), cut;
    while (ix && evlog_changed(log, &cut) && cut < read_to) {
        evindex_free(ix);
        if (opts->progress_bytes)
            atomic_store(opts->progress_bytes, 0);
        ix = evindex_build_serial(log, opts, cut, ending);
        read_to = cut;
    }
    return ix;
}

void
evindex_free(evindex *ix)
{
    if (!ix)
        return;
    for (size_t i = 0; i < ix->n_lanes; i++) {
        runlane_free(ix->lanes[i].runs);
        for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
            timelist_free(ix->lanes[i].sparks[k]);
        for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++)
            series_free(ix->lanes[i].spark_series[k]);
        ivtrack_free(ix->lanes[i].gc);
        x_free(ix->lanes[i].spans);
        x_free(ix->lanes[i].wide);
    }
    x_free(ix->lanes);
    gcpack_free(ix->gcs);
    ivtrack_free(ix->nm);
    x_free(ix->nm_cycles);
    x_free(ix->nm_census);
    x_free(ix->nm_flushes);
    series_free(ix->nm_pruned);
    series_free(ix->nm_free_segments);
    heapprof_free(ix->heap);
    ipe_table_free(ix->ipe);
    ticky_free(ix->ticky);
    timeprof_free(ix->timeprof);
    timeprof_free(ix->timeprof_none);
    msgtab_free(ix->msgs);
    threadtab_free(ix->threads);
    for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
        series_free(ix->series[i]);
    evseek_free(ix->seek);
    x_free(ix);
}

/* ---- accessors ---------------------------------------------------------------------------------- */

const evlog *evindex_log(const evindex *ix) { return ix->log; }
bool evindex_truncated(const evindex *ix) { return ix->truncated; }
const diag *evindex_ending(const evindex *ix) { return &ix->ending; }
uint64_t evindex_first_ns(const evindex *ix) { return ix->first_ns; }
uint64_t evindex_last_ns(const evindex *ix) { return ix->last_ns; }
uint64_t evindex_n_events(const evindex *ix) { return ix->n_events; }
unsigned evindex_threads_used(const evindex *ix) { return ix->threads_used; }
unsigned evindex_n_gens(const evindex *ix) { return ix->n_gens; }

size_t
evindex_bytes(const evindex *ix)
{
    size_t n = sizeof *ix + ix->n_lanes * sizeof *ix->lanes;
    for (size_t i = 0; i < ix->n_lanes; i++)
        n += runlane_bytes(ix->lanes[i].runs) + ivtrack_bytes(ix->lanes[i].gc) +
             ix->lanes[i].n_spans * sizeof(evindex_span) +
             ix->lanes[i].n_wide * sizeof(evindex_span_wide);
    n += gcpack_bytes(ix->gcs);
    n += ivtrack_bytes(ix->nm) + ix->n_nm_cycles * sizeof *ix->nm_cycles +
         ix->n_nm_census * sizeof *ix->nm_census + ix->n_nm_flushes * sizeof *ix->nm_flushes +
         series_bytes(ix->nm_pruned) + heapprof_bytes(ix->heap) +
         series_bytes(ix->nm_free_segments) + ipe_table_bytes(ix->ipe) + ticky_bytes(ix->ticky) +
         timeprof_bytes(ix->timeprof);
    n += msgtab_bytes(ix->msgs);
    n += threadtab_bytes(ix->threads) + evseek_bytes(ix->seek);
    for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
        n += series_bytes(ix->series[i]);
    n += evindex_spark_bytes(ix);
    return n;
}

size_t evindex_n_caps(const evindex *ix) { return ix->n_lanes; }

const evindex_cap *
evindex_cap_at(const evindex *ix, size_t i)
{
    return &ix->lanes[i].pub;
}

size_t
evindex_lane_of(const evindex *ix, uint16_t cap)
{
    size_t lo = 0, hi = ix->n_lanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->lanes[mid].pub.cap < cap)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->n_lanes && ix->lanes[lo].pub.cap == cap ? lo : SIZE_MAX;
}

size_t evindex_n_gcs(const evindex *ix) { return gcpack_n_gcs(ix->gcs); }

const evindex_gc *
evindex_gc_get(const evindex *ix, size_t i, evindex_gc *buf)
{
    return gcpack_gc(ix->gcs, i, buf);
}

evindex_gc_brief
evindex_gc_brief_at(const evindex *ix, size_t i)
{
    evindex_gc_brief b;
    gcpack_gc_brief(ix->gcs, i, &b);
    return b;
}

const evindex_gc_part *
evindex_gc_part_get(const evindex *ix, size_t i, evindex_gc_part *buf)
{
    return gcpack_part(ix->gcs, i, buf);
}

size_t evindex_gc_bytes(const evindex *ix) { return gcpack_bytes(ix->gcs); }

size_t
evindex_gc_first_from(const evindex *ix, uint64_t t)
{
    size_t lo = 0, hi = gcpack_n_gcs(ix->gcs);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gcpack_gc_start(ix->gcs, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t
evindex_gc_containing(const evindex *ix, uint64_t t)
{
    size_t i = evindex_gc_first_from(ix, t + (t != UINT64_MAX));
    /* Pauses do not overlap, so only the last one starting at or before t can hold t. */
    if (i == 0)
        return SIZE_MAX;
    evindex_gc_brief g;
    gcpack_gc_brief(ix->gcs, i - 1, &g);
    return t >= g.start_ns && (t < g.end_ns || t == g.start_ns) ? i - 1 : SIZE_MAX;
}

const ivtrack *evindex_nm_track(const evindex *ix) { return ix->nm; }
size_t evindex_n_nm_cycles(const evindex *ix) { return ix->n_nm_cycles; }
const evindex_nm_cycle *evindex_nm_cycle_at(const evindex *ix, size_t i) { return &ix->nm_cycles[i]; }
size_t evindex_n_nm_census(const evindex *ix) { return ix->n_nm_census; }
const evindex_nm_census *evindex_nm_census_at(const evindex *ix, size_t i) { return &ix->nm_census[i]; }
size_t evindex_n_nm_flushes(const evindex *ix) { return ix->n_nm_flushes; }
const evindex_instant *evindex_nm_flush_at(const evindex *ix, size_t i) { return &ix->nm_flushes[i]; }
const series *evindex_nm_pruned(const evindex *ix) { return ix->nm_pruned; }
const heapprof *evindex_heap_profile(const evindex *ix) { return ix->heap; }

size_t evindex_n_markers(const evindex *ix) { return msgtab_n_markers(ix->msgs); }
size_t evindex_n_msgs(const evindex *ix) { return msgtab_count(ix->msgs); }
evindex_msg evindex_msg_at(const evindex *ix, size_t i) { return msgtab_at(ix->msgs, i); }
size_t
evindex_msgs_at(const evindex *ix, size_t i, size_t n, evindex_msg *out)
{
    return msgtab_range(ix->msgs, i, n, out);
}

evindex_msg
evindex_marker_at(const evindex *ix, size_t i)
{
    return msgtab_at(ix->msgs, msgtab_marker_index(ix->msgs, i));
}

size_t
evindex_msg_first_from(const evindex *ix, uint64_t t)
{
    return msgtab_first_from(ix->msgs, t);
}

size_t
evindex_marker_first_from(const evindex *ix, uint64_t t)
{
    return msgtab_markers_before(ix->msgs, msgtab_first_from(ix->msgs, t));
}

/* The last text-or-bytes field of the event at `offset`. */
static bool
evindex_text_field(const evindex *ix, uint64_t offset, unsigned field, const uint8_t **text,
                   size_t *len)
{
    evlog_event ev;
    if (!offset || !evlog_event_at(ix->log, offset, EVLOG_NO_CAP, &ev))
        return false;
    /* A first field that takes the rest of the payload is the whole payload: what
     * decode_event would slice, without decoding the event (a search reads millions). */
    const evtype_desc *desc = ev.et->known;
    if (desc && field == 0 && desc->n_fields >= 1 &&
        (desc->fields[0] == EVF_TEXT_REST || desc->fields[0] == EVF_LATIN1_REST ||
         desc->fields[0] == EVF_BYTES_REST)) {
        *text = ev.payload;
        *len = ev.payload_len;
        return *text != NULL || *len == 0;
    }
    /* The same for a second field after a 32-bit one (a thread's label after its id). */
    if (desc && field == 1 && desc->n_fields >= 2 && desc->fields[0] == EVF_U32 &&
        (desc->fields[1] == EVF_TEXT_REST || desc->fields[1] == EVF_LATIN1_REST ||
         desc->fields[1] == EVF_BYTES_REST)) {
        if (ev.payload_len < 4 || !ev.payload)
            return false;
        *text = ev.payload + 4;
        *len = ev.payload_len - 4u;
        return true;
    }
    evdecoded d;
    decode_event(&ev, &d);
    if (!d.desc || d.n_present <= field)
        return false;
    /* The file may have changed since it was indexed: another event can be there now,
     * and an integer field has no slice (decode's fast path leaves p and len unset). */
    switch ((enum evfield_kind)d.desc->fields[field]) {
    case EVF_TEXT_REST: case EVF_LATIN1_REST: case EVF_LATIN1_BUT4: case EVF_CSTR:
    case EVF_BYTES_REST:
        break;
    default:
        return false;
    }
    *text = d.f[field].p;
    *len = d.f[field].len;
    return *text != NULL || *len == 0;
}

bool
evindex_msg_text(const evindex *ix, const evindex_msg *m, const uint8_t **text, size_t *len)
{
    return evindex_text_field(ix, m->offset, 0, text, len);
}

const threadtab *evindex_threads(const evindex *ix) { return ix->threads; }

bool
evindex_thread_label(const evindex *ix, const threadtab_thread *t, const uint8_t **text,
                     size_t *len)
{
    return t->label_offset && evindex_text_field(ix, t->label_offset, 1, text, len);
}

const series *
evindex_series(const evindex *ix, enum evindex_series_id id)
{
    return ix->series[id < EVINDEX_N_SERIES ? id : 0];
}

const char *
evindex_series_name(enum evindex_series_id id)
{
    static const char *const names[EVINDEX_N_SERIES] = {
        [EVINDEX_S_HEAP_SIZE] = "heap size",
        [EVINDEX_S_HEAP_LIVE] = "live bytes",
        [EVINDEX_S_BLOCKS_SIZE] = "blocks size",
        [EVINDEX_S_ALLOCATED] = "allocated",
        [EVINDEX_S_MEM_CURRENT] = "mblocks current",
        [EVINDEX_S_MEM_NEEDED] = "mblocks needed",
        [EVINDEX_S_MEM_RETURNED] = "mblocks returned",
        [EVINDEX_S_SPARK_POOL] = "spark pool",
        [EVINDEX_S_SPARKS_CREATED] = "sparks created",
        [EVINDEX_S_SPARKS_CONVERTED] = "sparks converted",
        [EVINDEX_S_HEAP_PROF] = "heap profile",
    };
    return id < EVINDEX_N_SERIES ? names[id] : "?";
}

uint64_t
evindex_spark_count(const evindex *ix, enum evindex_spark_kind kind, uint64_t t0, uint64_t t1)
{
    if (kind >= EVINDEX_N_SPARK_KINDS)
        return 0;
    uint64_t n = 0;
    for (size_t li = 0; li < ix->n_lanes; li++)
        n += timelist_count_in(ix->lanes[li].sparks[kind], t0, t1);
    return n;
}

size_t
evindex_spark_bytes(const evindex *ix)
{
    size_t n = 0;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
            n += timelist_bytes(ix->lanes[li].sparks[k]);
        for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++)
            n += series_bytes(ix->lanes[li].spark_series[k]);
    }
    return n;
}

uint64_t
evindex_spark_total(const evindex *ix, enum evindex_spark_kind kind)
{
    if (kind >= EVINDEX_N_SPARK_KINDS)
        return 0;
    uint64_t n = 0;
    for (size_t li = 0; li < ix->n_lanes; li++)
        n += timelist_count(ix->lanes[li].sparks[kind]);
    return n;
}

uint64_t
evindex_cap_spark_count(const evindex *ix, size_t lane, enum evindex_spark_kind kind,
                        uint64_t t0, uint64_t t1)
{
    if (lane >= ix->n_lanes || kind >= EVINDEX_N_SPARK_KINDS)
        return 0;
    return timelist_count_in(ix->lanes[lane].sparks[kind], t0, t1);
}

void
evindex_cap_spark_before_many(const evindex *ix, size_t lane, enum evindex_spark_kind kind,
                              const uint64_t *t, size_t n, size_t *out)
{
    if (lane >= ix->n_lanes || kind >= EVINDEX_N_SPARK_KINDS) {
        memset(out, 0, n * sizeof *out);
        return;
    }
    timelist_count_before_many(ix->lanes[lane].sparks[kind], t, n, out);
}

uint64_t
evindex_cap_spark_total(const evindex *ix, size_t lane, enum evindex_spark_kind kind)
{
    if (lane >= ix->n_lanes || kind >= EVINDEX_N_SPARK_KINDS)
        return 0;
    return timelist_count(ix->lanes[lane].sparks[kind]);
}

const series *
evindex_cap_spark_series(const evindex *ix, size_t lane, enum evindex_cap_spark which)
{
    if (lane >= ix->n_lanes || which >= EVINDEX_N_CAP_SPARK)
        return NULL;
    return ix->lanes[lane].spark_series[which];
}

const evindex_program *evindex_program_info(const evindex *ix) { return &ix->program; }
const ipe_table *evindex_ipe(const evindex *ix) { return ix->ipe; }
const ticky *evindex_ticky(const evindex *ix) { return ix->ticky; }
const timeprof *
evindex_timeprof(const evindex *ix)
{
    return ix->timeprof_sealed ? ix->timeprof : ix->timeprof_none;
}
const series *evindex_nm_free_segments(const evindex *ix) { return ix->nm_free_segments; }

bool
evindex_event_text(const evindex *ix, uint64_t offset, const uint8_t **text, size_t *len)
{
    return evindex_text_field(ix, offset, 1, text, len);
}

const evseek *evindex_seek(const evindex *ix) { return ix->seek; }

bool
evindex_check(const evindex *ix, char *why, size_t why_len)
{
    if (!heapprof_check(ix->heap, why, why_len) || !ticky_check(ix->ticky, why, why_len) ||
        !timeprof_check(evindex_timeprof(ix), why, why_len))
        return false;
    for (size_t i = 0; i < ix->n_lanes; i++) {
        const evindex_lane *l = &ix->lanes[i];
        if (i && ix->lanes[i - 1].pub.cap >= l->pub.cap) {
            snprintf(why, why_len, "lanes not in ascending cap order at %zu", i);
            return false;
        }
        if (!runlane_check(l->runs, why, why_len) || !ivtrack_check(l->gc, why, why_len))
            return false;
        for (size_t k = 0; k < ivtrack_count(l->gc); k++) {
            uint32_t ref = ivtrack_get(l->gc, k, &(ivtrack_iv){ 0 })->ref;
            if (ref != UINT32_MAX && ref >= gcpack_n_gcs(ix->gcs)) {
                snprintf(why, why_len, "cap %u GC phase %zu refers to GC %u of %zu",
                         l->pub.cap, k, ref, gcpack_n_gcs(ix->gcs));
                return false;
            }
        }
    }
    if (!gcpack_check(ix->gcs, why, why_len))
        return false;
    evindex_gc prev = { 0 };
    for (size_t i = 0; i < gcpack_n_gcs(ix->gcs); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = gcpack_gc(ix->gcs, i, &g_buf);
        if (g->end_ns < g->start_ns || g->request_ns > g->start_ns ||
            (size_t)g->first_part + g->n_parts > gcpack_n_parts(ix->gcs)) {
            snprintf(why, why_len, "GC %zu is malformed", i);
            return false;
        }
        if (i && prev.start_ns > g->start_ns) {
            snprintf(why, why_len, "GC %zu starts before GC %zu", i, i - 1);
            return false;
        }
        if (i && prev.end_ns > g->start_ns) {
            snprintf(why, why_len, "GC %zu overlaps GC %zu", i, i - 1);
            return false;
        }
        prev = *g;
    }
    if (!msgtab_check(ix->msgs, why, why_len) || !ivtrack_check(ix->nm, why, why_len) || !threadtab_check(ix->threads, why, why_len) ||
        !evseek_check(ix->seek, why, why_len))
        return false;
    for (size_t i = 0; i < EVINDEX_N_SERIES; i++)
        if (!series_check(ix->series[i], why, why_len))
            return false;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        for (size_t k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
            if (!timelist_check(ix->lanes[li].sparks[k], why, why_len))
                return false;
        for (size_t k = 0; k < EVINDEX_N_CAP_SPARK; k++)
            if (!series_check(ix->lanes[li].spark_series[k], why, why_len))
                return false;
    }
    return true;
}
