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

/* One capability's GC_START .. GC_END. */
typedef struct evindex_span {
    uint64_t start_ns, end_ns;
    uint64_t work_ns, wait_ns;
    uint64_t first_work_ns;     /* its first GC_WORK, or 0 */
    uint32_t stats;             /* 1 + index of the GC_STATS it belongs to, or 0 */
    bool open;                  /* no GC_END: closed at the end of the log */
} evindex_span;

/* One GC_STATS event. */
typedef struct evindex_stats {
    uint64_t time_ns;
    uint64_t copied, slop, frag, par_max, par_tot, par_bal;
    uint32_t par_threads;
    uint32_t span;              /* 1 + index into its cap's spans, or 0 */
    uint16_t gen, cap;
    bool has_bal;
} evindex_stats;

/* REQUEST_SEQ_GC / REQUEST_PAR_GC / GC_GLOBAL_SYNC. */
typedef struct evindex_gcmark {
    uint64_t time_ns;
    uint16_t cap;
    uint8_t what;               /* 0 seq request, 1 par request, 2 global sync */
} evindex_gcmark;

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
    size_t n_spans_closed;      /* spans [0, n) that have ended (the join takes only them) */
    size_t span_from;           /* spans before it are in final collections */
    size_t spans_reffed;        /* spans from here on have no GC refs on their phases */
} evindex_lane;

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
 * it (only freed), and their refs are not set again. Cost: the spans joined again,
 * O(k log k). */
void evindex_join_grow(evindex *ix, evindex_join *j, const evindex_stats *stats,
                       size_t n_stats, const evindex_gcmark *marks, size_t n_marks,
                       const evindex_census_win *census, size_t n_census, uint64_t late_ns,
                       uint64_t horizon_ns, bool final);
void evindex_join_free(evindex_join *j);

#endif
