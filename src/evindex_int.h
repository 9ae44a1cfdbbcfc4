/* evindex_int: the index's private layout, shared by the pass that builds it
 * (evindex.c) and the step that joins per-capability GC phases into collections
 * (evindex_join.c). Not part of the public contract. */
#ifndef ELOG_EVINDEX_INT_H
#define ELOG_EVINDEX_INT_H

#include "evindex.h"
#include "gcpack.h"
#include "ipe.h"
#include "ticky.h"
#include "timeprof.h"
#include "heapprof.h"
#include "timelist.h"

/* One capability's GC_START .. GC_END, compact while it waits for the join (20 bytes,
 * 4-byte aligned): its end as an offset from its start, its work in 32 bits (its wait
 * is the rest: a span's phases tile it, so wait = end - start - work), and in `aux`
 * whether it is open and either its GC_STATS or (until a GC_STATS claims it: only a
 * span no GC_STATS claimed needs it) its first GC_WORK as an offset. While it is open
 * its wait is counted in its lane's build state, not here. A span whose values do not
 * all fit (end_off == EVINDEX_SPAN_WIDE: rare, e.g. a GC longer than 4.3 s, or phases
 * that do not tile it when times go backwards) keeps them all in its lane's side table
 * (`wide`), at index `work`. Read and write them only through the evindex_span_*
 * functions below. */
typedef struct evindex_span {
    uint32_t start_lo, start_hi;
    uint32_t end_off;           /* end - start, or EVINDEX_SPAN_WIDE */
    uint32_t work;              /* GC_WORK time; wide: the side index */
    uint32_t aux;               /* bit 31: open (no GC_END: closed at the end of the
                                 * log); bit 30 set: below it, 1 + index of its GC_STATS;
                                 * else below it its first GC_WORK - start + 1, or 0 */
} evindex_span;

#define EVINDEX_SPAN_WIDE UINT32_MAX
#define EVINDEX_SPAN_OPEN 0x80000000u
#define EVINDEX_SPAN_STATS 0x40000000u
#define EVINDEX_SPAN_LOW 0x3fffffffu

/* A wide span's values. */
typedef struct evindex_span_wide {
    uint64_t end_ns, work_ns, wait_ns;
    uint64_t first_work_ns;     /* its first GC_WORK, or 0 (as evindex_span_first_work) */
    uint32_t stats;             /* 1 + index of its GC_STATS, or 0 */
    bool open;
} evindex_span_wide;

/* One GC_STATS event, as the join reads it. */
typedef struct evindex_stats {
    uint64_t time_ns;           /* kept only while it claims no span (else 0) */
    uint64_t copied, slop, frag, par_max, par_tot, par_bal;
    uint32_t par_threads;
    uint16_t gen, cap;          /* cap: kept only while it claims no span (else 0) */
    bool has_bal;
    bool claimed;               /* it claimed its leader's span (the span has its time
                                 * and cap) */
} evindex_stats;

/* A GC_STATS event as it waits for the join (28 bytes, 4-byte aligned): its byte
 * counts in 32 bits; in `bits` whether it has a balance figure, whether it is wide,
 * whether it claimed a span, its generation and its thread count. Only the join's
 * GC_STATS-only collections need a GC_STATS's time and cap, so a claimed one keeps
 * neither; one that claims no span when pushed, or whose values do not all fit (rare),
 * keeps its values in the side table (wide), at index `copied`. Through the
 * evindex_stats_* functions only. */
typedef struct evindex_stats_c {
    uint32_t copied, slop, frag, par_max, par_tot, par_bal;
    uint32_t bits;              /* EVINDEX_STATS_* flags, gen << 16, par_threads */
} evindex_stats_c;

#define EVINDEX_STATS_BAL 0x80000000u
#define EVINDEX_STATS_WIDE 0x40000000u
#define EVINDEX_STATS_CLAIMED 0x20000000u
#define EVINDEX_STATS_GEN_MAX 0x1fffu       /* gen in bits 16..28 */
#define EVINDEX_STATS_PAR_MAX 0xffffu       /* par_threads in bits 0..15 */

/* The GC_STATS events in file order; owned by the builder. */
typedef struct evindex_statsv {
    evindex_stats_c *v;
    size_t n, cap;
    evindex_stats *wide;        /* the wide ones' values */
    size_t n_wide, cap_wide;
} evindex_statsv;

/* Append *st (st->claimed: it claimed a span); event i's values into *out. */
void evindex_stats_push(evindex_statsv *sv, const evindex_stats *st);
static inline void
evindex_stats_get(const evindex_statsv *sv, size_t i, evindex_stats *out)
{
    const evindex_stats_c *c = &sv->v[i];
    if (c->bits & EVINDEX_STATS_WIDE) {
        *out = sv->wide[c->copied];
    } else {
        *out = (evindex_stats){ 0, c->copied, c->slop, c->frag, c->par_max, c->par_tot,
                                c->par_bal, c->bits & EVINDEX_STATS_PAR_MAX,
                                (uint16_t)(c->bits >> 16 & EVINDEX_STATS_GEN_MAX), 0,
                                (c->bits & EVINDEX_STATS_BAL) != 0, false };
    }
    out->claimed = (c->bits & EVINDEX_STATS_CLAIMED) != 0;
}
static inline bool
evindex_stats_claimed(const evindex_statsv *sv, size_t i)
{
    return (sv->v[i].bits & EVINDEX_STATS_CLAIMED) != 0;
}
/* Event i claims a span after all (a later worker's head, at the stitch). */
static inline void
evindex_stats_claim(evindex_statsv *sv, size_t i)
{
    sv->v[i].bits |= EVINDEX_STATS_CLAIMED;
}
/* Append src's events to dst's: src's array is given back to the system as it is
 * copied, so src must only be freed after (never read). */
void evindex_stats_append(evindex_statsv *dst, evindex_statsv *src);
void evindex_stats_free(evindex_statsv *sv);

/* REQUEST_SEQ_GC / REQUEST_PAR_GC / GC_GLOBAL_SYNC, as it waits for the join (12 bytes,
 * 4-byte aligned: its time in two halves); its time through evindex_gcmark_time. */
typedef struct evindex_gcmark {
    uint32_t time_lo, time_hi;
    uint16_t cap;
    uint8_t what;               /* 0 seq request, 1 par request, 2 global sync */
} evindex_gcmark;

static inline uint64_t
evindex_gcmark_time(const evindex_gcmark *m)
{
    return (uint64_t)m->time_hi << 32 | m->time_lo;
}

/* Where a heap-profile census ran: HEAP_PROF_SAMPLE_BEGIN .. HEAP_PROF_SAMPLE_END; a
 * biographical one (written at the end of the run) from its own time field on, and
 * one with no SAMPLE_END, end UINT64_MAX: to the end of the collection it lies in. */
typedef struct evindex_census_win {
    uint64_t begin_ns, end_ns;
    bool bio;
} evindex_census_win;

typedef struct evindex_lane {
    evindex_cap pub;            /* what evindex_cap_at hands out */
    runlane *runs;
    ivtrack *gc;
    /* This cap's per-spark events by kind, in its own time order (a time earlier than
     * the last is kept at the last: see timelist_append). Ranges sum over caps. */
    timelist *sparks[EVINDEX_N_SPARK_KINDS];
    /* This cap's own SPARK_COUNTERS samples (evindex_cap_spark order: created, converted,
     * remaining). */
    series *spark_series[EVINDEX_N_CAP_SPARK];
    evindex_span *spans;
    size_t n_spans, cap_spans;
    evindex_span_wide *wide;    /* owned; the wide spans' values (rare) */
    size_t n_wide, cap_wide;
    size_t n_spans_closed;      /* spans [0, n) that have ended (the join takes only them) */
    size_t span_from;           /* spans before it are in final collections */
    size_t spans_reffed;        /* spans from here on have no GC refs on their phases */
} evindex_lane;

/* A lane's span i, whatever its form. Setters (evindex.c) widen a span on a value
 * that does not fit. */
static inline const evindex_span_wide *
evindex_span_wide_of(const evindex_lane *lane, size_t i)
{
    const evindex_span *sp = &lane->spans[i];
    return sp->end_off == EVINDEX_SPAN_WIDE ? &lane->wide[sp->work] : NULL;
}
static inline uint64_t
evindex_span_start(const evindex_lane *lane, size_t i)
{
    const evindex_span *sp = &lane->spans[i];
    return (uint64_t)sp->start_hi << 32 | sp->start_lo;
}
static inline uint64_t
evindex_span_end(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    return w ? w->end_ns : evindex_span_start(lane, i) + lane->spans[i].end_off;
}
static inline uint64_t
evindex_span_work(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    return w ? w->work_ns : lane->spans[i].work;
}
/* Its wait: only once it is closed (evindex_span_set_end). */
static inline uint64_t
evindex_span_wait(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    return w ? w->wait_ns : (uint64_t)lane->spans[i].end_off - lane->spans[i].work;
}
/* Its first GC_WORK, or 0; only while no GC_STATS claims it (then unspecified). */
static inline uint64_t
evindex_span_first_work(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    if (w)
        return w->first_work_ns;
    uint32_t a = lane->spans[i].aux;
    if (a & EVINDEX_SPAN_STATS || !(a & EVINDEX_SPAN_LOW))
        return 0;
    return evindex_span_start(lane, i) + (a & EVINDEX_SPAN_LOW) - 1;
}
static inline uint32_t
evindex_span_stats(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    if (w)
        return w->stats;
    uint32_t a = lane->spans[i].aux;
    return a & EVINDEX_SPAN_STATS ? a & EVINDEX_SPAN_LOW : 0;
}
static inline bool
evindex_span_open(const evindex_lane *lane, size_t i)
{
    const evindex_span_wide *w = evindex_span_wide_of(lane, i);
    return w ? w->open : (lane->spans[i].aux & EVINDEX_SPAN_OPEN) != 0;
}
/* Append a span starting at t (ending there, no work, wait or GC_STATS). */
void evindex_span_push(evindex_lane *lane, uint64_t t);
/* Close span i at end_ns with `wait_ns` of wait (counted by the caller while it was
 * open); widened when that is not the rest of it after its work. */
void evindex_span_set_end(evindex_lane *lane, size_t i, uint64_t end_ns, bool open,
                          uint64_t wait_ns);
void evindex_span_add_work(evindex_lane *lane, size_t i, uint64_t ns);
void evindex_span_set_first_work(evindex_lane *lane, size_t i, uint64_t t);
void evindex_span_set_stats(evindex_lane *lane, size_t i, uint32_t stats);
/* Append src's spans to dst's: src's array is given back to the system as it is
 * copied, so src's spans must only be freed after (never read). */
void evindex_span_append(evindex_lane *dst, evindex_lane *src);

struct evindex {
    const evlog *log;
    diag ending;
    bool truncated;
    uint64_t first_ns, last_ns, n_events;
    unsigned n_gens;
    unsigned threads_used;

    evindex_lane *lanes;        /* ascending cap */
    size_t n_lanes;

    gcpack *gcs;                /* owned; the collections and their parts */

    ivtrack *nm;
    evindex_nm_cycle *nm_cycles;
    size_t n_nm_cycles;
    evindex_nm_census *nm_census;
    size_t n_nm_census;
    evindex_instant *nm_flushes;
    size_t n_nm_flushes;
    series *nm_pruned;
    series *nm_free_segments;   /* NONMOVING_PRUNED_SEGMENTS: free segments retained */
    heapprof *heap;             /* heap-profile bands and censuses */
    ipe_table *ipe;             /* info-table provenance (IPE events) */
    ticky *ticky;               /* ticky-ticky counters and samples */
    timeprof *timeprof;         /* time-profile samples (+RTS -p) */
    /* timeprof_seal runs once, at the end of the build: until then (a growing index) the
     * API shows timeprof_none, an empty sealed profile. Both owned by the index. */
    timeprof *timeprof_none;
    bool timeprof_sealed;

    msgtab *msgs;               /* all messages and markers, time order once sealed */

    threadtab *threads;
    series *series[EVINDEX_N_SERIES];
    evindex_program program;
    evseek *seek;
};

/* The join's state between the steps of a growing index: collections [0, n_final)
 * are final; the rest are joined again each step from the lanes' spans starting at or
 * after from_ns. */
typedef struct evindex_join {
    size_t n_final, parts_final;
    uint64_t from_ns;           /* start of the first cluster of spans not final */
    uint64_t prev_end;          /* end of the last final collection that had spans */
    uint64_t *clus;             /* owned; per collection: its first span's start (a
                                 * GC_STATS-only one: its time); nondecreasing */
    size_t cap_clus;
    uint32_t *stats_only;       /* owned; the GC_STATS that claimed no span (rare) */
    size_t n_stats_only, cap_stats_only, stats_seen;
    uint64_t n_spans_joined;    /* work done, over every call (tests, bench) */
    uint64_t n_rollbacks;
    /* The last join's second thread, if it had one (else 0): its CPU and wall time
     * (the build's profile). */
    uint64_t helper_cpu_ns, helper_wall_ns;
} evindex_join;

/* Order of marks and census windows the join wants (total orders: equal keys are
 * equal records, so every build sorts them alike). */
int evindex_gcmark_cmp(const void *a, const void *b);
int evindex_census_cmp(const void *a, const void *b);

/* Join the collections (ix->gcs, with their parts) from the lanes' closed spans, the GC_STATS
 * events (file order), the request/sync marks and the heap censuses (both sorted by
 * the orders above), and set the GC tracks' refs; needs the heap series. Collections
 * before j->from_ns are kept unless `late_ns` (the earliest input that came since the
 * last call) is before it: then they are joined again from the one before late_ns.
 * Unless `final`, the collections whose next cluster starts before `horizon_ns` (no
 * input can come before it any more) become final. A fresh j (zeroed) with `final`
 * is the one-shot join. A `final` join gives the lanes' spans back to the system as it
 * joins them and packs the GC tracks' refs as it goes: the spans must not be read after
 * it (only freed), and their refs are not set again. With `helper`, a final join of
 * many spans makes its collections on a second thread while this one stores them
 * (refs, censuses, packing); the answers are the same. Cost: the spans joined again,
 * O(k log k). */
void evindex_join_grow(evindex *ix, evindex_join *j, const evindex_statsv *stats,
                       const evindex_gcmark *marks, size_t n_marks,
                       const evindex_census_win *census, size_t n_census, uint64_t late_ns,
                       uint64_t horizon_ns, bool final, bool helper);
void evindex_join_free(evindex_join *j);

#endif
