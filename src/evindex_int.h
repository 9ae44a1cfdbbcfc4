/* evindex_int: the index's private layout, shared by the pass that builds it
 * (evindex.c) and the step that joins per-capability GC phases into collections
 * (evindex_join.c). Not part of the public contract. */
#ifndef ELOG_EVINDEX_INT_H
#define ELOG_EVINDEX_INT_H

#include "evindex.h"
#include "ipe.h"
#include "ticky.h"
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

    evindex_gc *gcs;
    size_t n_gcs;
    evindex_gc_part *parts;
    size_t n_parts;

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

    msgtab *msgs;               /* all messages and markers, time order once sealed */

    threadtab *threads;
    series *series[EVINDEX_N_SERIES];
    evindex_program program;
    evseek *seek;
};

/* Build the collections (ix->gcs, ix->parts) from the lanes' spans, the GC_STATS
 * events, the request/sync marks and the heap censuses (each in any order), and set
 * the GC tracks' refs. Needs the heap series (live/heap after, allocation). */
void evindex_join_gcs(evindex *ix, const evindex_stats *stats, size_t n_stats,
                      const evindex_gcmark *marks, size_t n_marks,
                      const evindex_census_win *census, size_t n_census);

#endif
