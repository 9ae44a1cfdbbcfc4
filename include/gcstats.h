/* gcstats: GHC's `+RTS -s` statistics rebuilt from an eventlog, plus pause
 * percentiles and the longest pauses. A pure accumulator: feed it every event in
 * time order (the merge stream), then read one plain gcstats_report. The rules for
 * every number are in docs/stats-semantics.md; section numbers below refer to it. */
#ifndef ELOG_GCSTATS_H
#define ELOG_GCSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evlog.h"

typedef struct gcstats gcstats;

/* How far a figure is known from the log. */
typedef enum gcstats_known {
    GCSTATS_EXACT,              /* as the rule says */
    GCSTATS_AT_MOST,            /* an upper bound: a part the log lacks is left in */
    GCSTATS_AT_LEAST,           /* a lower bound */
    GCSTATS_UNKNOWN,            /* not in the log */
} gcstats_known;

/* Rows are kept for generations 0 .. GCSTATS_MAX_GENS-1; a log claiming more
 * (untrusted input) has the extra collections counted in n_gcs_bad_gen only. */
#define GCSTATS_MAX_GENS 8
#define GCSTATS_N_LONGEST 5

/* A half-open time range [from_ns, to_ns). The whole run is { 0, UINT64_MAX }.
 *
 * What each row means for a window (the whole run is the window [0, end)):
 *   - Gen rows, copied, slop, work balance, percentiles, longest pauses, time to
 *     stop, census per generation, syncs, concurrent cycles: the collections (syncs,
 *     cycles) whose pause STARTS inside the window, each counted whole even when it
 *     runs past `to_ns`.
 *   - bytes allocated: per cap, the last HEAP_ALLOCATED before to_ns minus the last
 *     before from_ns, summed. HEAP_ALLOCATED is posted at GCs, so the edges snap
 *     to the collections nearest inside the window.
 *   - max residency / samples / total memory: HEAP_LIVE / major GCs / HEAP_SIZE
 *     whose time is inside the window.
 *   - INIT, MUT, GC, EXIT, Total elapsed: the run's phases clipped to the window.
 *     Total = the length of [from, min(to, end of run)); GC = every pause's overlap
 *     with the window (whatever window its start lies in) minus PROF; MUT and EXIT
 *     likewise lose the overlap of the pauses inside them. They add up as in §4.
 *     PROF = the censuses' overlap with the window.
 *   - TASKS and SPARKS: always the whole run (their counters are not windowed). */
typedef struct gcstats_window {
    uint64_t from_ns;
    uint64_t to_ns;
} gcstats_window;

/* One row `Gen N` (§1). Times in ns. */
typedef struct gcstats_gen {
    uint64_t colls;
    uint64_t par_colls;         /* GC_STATS par_n_threads > 1 */
    uint64_t elapsed_ns;        /* sum of the pauses */
    uint64_t avg_pause_ns;      /* elapsed_ns / colls, integer division (0 if none) */
    uint64_t max_pause_ns;
    uint64_t n_unpaired;        /* collections with no GC_START: counted, no pause */
    uint64_t n_closed_at_end;   /* no GC_END (truncated log): closed at last_ns */
    /* Pause percentiles (nearest rank over the paired pauses; 0 when none). */
    uint64_t p50_ns, p90_ns, p99_ns;
    /* Time to stop (§1): REQUEST_SEQ_GC/REQUEST_PAR_GC -> the leader's GC_START, the
     * RTS's own sync_elapsed, over the n_stop collections that have a request event
     * (none in a non-threaded RTS: then n_stop is 0 and the figures are unknown). */
    uint64_t n_stop;
    uint64_t stop_ns, stop_max_ns;
    /* Heap censuses inside this generation's collections (§4 census): n_census
     * collections held one; census_ns is their time, clipped to the pauses. It is
     * part of elapsed_ns, as in the RTS's Gen rows. */
    uint64_t n_census;
    uint64_t census_ns, census_max_ns;
} gcstats_gen;

/* One of the longest pauses. */
typedef struct gcstats_pause {
    uint64_t start_ns;
    uint64_t pause_ns;
    uint16_t gen;
    uint16_t cap;               /* the leader */
} gcstats_pause;

/* Memory the OS sees (§2 memory): GHC 9.2+ writes MEM_RETURN after each major GC and
 * BLOCKS_SIZE after every GC. */
typedef struct gcstats_memory {
    bool has_mem_return;        /* MEM_RETURN events in the window */
    bool has_blocks_size;       /* BLOCKS_SIZE events in the window */
    uint64_t n_mem_return;
    uint64_t max_current_mblocks;   /* largest MEM_RETURN current */
    uint64_t last_current_mblocks, last_needed_mblocks;
    uint64_t returned_mblocks;  /* summed over the window */
    uint64_t max_blocks_bytes;  /* largest BLOCKS_SIZE: the allocated blocks' high-water
                                 * mark as the log sees it (after each GC) */
    uint64_t mblock_bytes, block_bytes;     /* HEAP_INFO_GHC, else 1 MiB and 4 KiB */
    uint64_t peak_mblocks;      /* max(HEAP_SIZE / mblock, MEM_RETURN current) */
    bool has_frag;              /* BLOCKS_SIZE seen: fragmentation can be told */
    uint64_t frag_mib;          /* (peak_mblocks x blocks per mblock x block - max
                                 * blocks size) / 2^20, GHC's formula (§2) */
} gcstats_memory;

#define GCSTATS_NM_MAX_ALLOCS 64

/* One allocator's line of a non-moving heap census. */
typedef struct gcstats_nm_alloc {
    uint32_t blk_size;          /* bytes (the 14-byte layout), or 2^log2 (13-byte) */
    uint32_t active, filled, live;  /* segments, segments, blocks */
} gcstats_nm_alloc;

/* Non-moving heap censuses (-xn with -ln) and free-list pruning (GHC 9.12+, event 208). */
typedef struct gcstats_nonmoving_detail {
    uint64_t n_census_events;   /* NONMOVING_HEAP_CENSUS events */
    uint64_t n_censuses;        /* censuses (a run over the allocators, a block size
                                 * seen again starting the next) */
    bool wide_census;           /* 14-byte layout (block size in bytes, GHC 9.10+) */
    gcstats_nm_alloc last[GCSTATS_NM_MAX_ALLOCS];   /* the last census, its allocators */
    unsigned n_last;
    uint64_t n_prunes;          /* NONMOVING_PRUNED_SEGMENTS events */
    uint64_t pruned_segments;   /* summed */
    uint64_t last_free_segments, max_free_segments;
} gcstats_nonmoving_detail;

typedef struct gcstats_report {
    /* What the log is, and so which rows it can know (§0 unknowns). */
    bool has_gc_events;         /* any GC_STATS: without class `g` there are no GC rows */
    bool has_sched;             /* scheduler events (class `s`) */
    bool has_tasks;             /* task events: TASKS can be known (a cut log may have
                                 * scheduler events but lose the task events, which
                                 * the RTS writes from its global buffer at exit) */
    bool has_sparks;            /* SPARK_COUNTERS (class `p`) or per-spark events (`f`) */
    bool sparks_from_events;    /* no counters: SPARKS counted from per-spark events */
    bool threaded;              /* RTS flavour has _thr, else more than one cap seen */
    bool profiled;              /* RTS flavour ends in _p: there is a PROF row */
    bool nonmoving;             /* nonmoving collector events seen (§5) */
    char rts_version[96];       /* RTS_IDENTIFIER text (truncated), "" if absent */
    unsigned n_gens;            /* rows in gens[] */
    unsigned n_caps;            /* `-N`: CAP_CREATE count, else max cap + 1 */
    gcstats_window window;      /* as given; the whole run is { 0, UINT64_MAX } */
    bool windowed;              /* window is not the whole run */

    /* How the log ends. */
    bool truncated;             /* the data stopped early (as told to gcstats_finish) */
    bool partial;               /* truncated and no exit report batch: INIT/EXIT
                                 * approximated, no EXIT (§6) */
    bool end_is_last_event;     /* no exit report batch: Total is the last event */
    uint64_t last_ns;           /* last timestamp seen */
    uint64_t n_gcs_cut;         /* collections seen (the caps' GC_START..GC_END spans)
                                 * with no GC_STATS: cut by the end of the data, or
                                 * led by a cap whose buffer was never written. They
                                 * are in no row */
    uint64_t n_gcs_bad_gen;     /* GC_STATS with gen >= GCSTATS_MAX_GENS */

    /* Byte rows (§2). */
    uint64_t bytes_allocated;
    uint64_t bytes_copied;
    uint64_t max_residency;
    uint64_t residency_samples; /* major collections */
    uint64_t max_slop;          /* over major collections, u64 (it can wrap) */
    uint64_t max_heap_bytes;    /* largest HEAP_SIZE */
    uint64_t total_mem_mib;     /* max(max_heap_bytes, peak MEM_RETURN current x mblock)
                                 * / 2^20 */
    bool total_mem_at_least;    /* total_mem_mib is only a lower bound: a major GC with
                                 * no MEM_RETURN (GHC < 9.2), whose peak before it gave
                                 * memory back is in no event (§2) */
    gcstats_memory mem;
    gcstats_nonmoving_detail nm;

    /* Collections (§1). */
    gcstats_gen gens[GCSTATS_MAX_GENS];
    uint64_t n_gcs;             /* all collections counted in gens[] */
    gcstats_pause longest[GCSTATS_N_LONGEST];
    unsigned n_longest;

    /* Parallel GC, tasks, sparks (§3). */
    bool has_work_balance;      /* some par collection with the balanced field */
    double work_balance;        /* 0..1 */
    uint64_t tasks_total, tasks_bound, peak_workers, workers_total;  /* if has_tasks */
    uint64_t sparks_created;    /* created + dud + overflowed, as the RTS prints */
    uint64_t sparks_converted, sparks_overflowed, sparks_dud, sparks_gcd, sparks_fizzled;

    /* Phases (§4), ns. end_init/start_exit are the boundaries used. An unknown
     * INIT or EXIT is 0 and stays inside MUT (the printout says so). */
    uint64_t end_init_ns, start_exit_ns;
    bool has_init;              /* end_init_ns was found (scheduler events) */
    bool has_exit;              /* start_exit_ns was found */
    uint64_t init_ns, mut_ns, gc_ns, prof_ns, exit_ns, total_ns;
    /* PROF is unknown for a biographical profile (-hb: the censuses are written at
     * the end of the run, not where they ran); GC then keeps the census time. For a
     * retainer profile (-hr) RP cannot be told apart: PROF holds RP + PROF. */
    bool prof_known;
    bool prof_has_rp;
    /* (Total - GC - INIT - EXIT) / Total, 0..1: GHC's definition (§4). Without
     * INIT or EXIT it is an upper bound; without GC events it is unknown. */
    double productivity;
    gcstats_known productivity_known;
    uint64_t n_censuses;        /* HEAP_PROF_SAMPLE_BEGIN .. END pairs */
    uint64_t n_censuses_in_gc;  /* of those, inside a collection (§4 census) */
    uint64_t census_ns;         /* Σ gens[].census_ns: census time inside collections */

    /* Nonmoving (§5). */
    uint64_t sync_count;        /* syncs seen; the RTS prints major colls instead */
    uint64_t sync_elapsed_ns, sync_max_ns;
    /* Concurrent cycles (§5): from the first CONC_MARK_BEGIN after the previous
     * CONC_SWEEP_END to the next CONC_SWEEP_END. conc_cycles_run counts every cycle
     * of the run (one mark thread each, §3 TASKS); the others the cycles starting in
     * the window. A cycle cut short (no sweep end: stopped at exit, or the log
     * ends) ends at its last concurrent event and is counted in conc_cycles_cut. */
    uint64_t conc_cycles_run;
    uint64_t conc_cycles, conc_cycles_cut;
    uint64_t conc_wall_ns, conc_wall_max_ns;  /* wall clock, not the RTS's (§5) */
} gcstats_report;

/* A fresh accumulator. `window` may be NULL for the whole run; it is copied.
 * Caller frees with gcstats_free. */
gcstats *gcstats_new(const gcstats_window *window);
void gcstats_free(gcstats *g);
/* Account one event (borrowed). Events must come in time order. */
void gcstats_add(gcstats *g, const evlog_event *ev);
/* Compute the report into *out once every event is added. `truncated`: the data
 * stopped before its end marker. A collection with GC_STATS still waiting for its
 * GC_END is closed at the last timestamp (n_closed_at_end). */
void gcstats_finish(gcstats *g, bool truncated, gcstats_report *out);

#endif
