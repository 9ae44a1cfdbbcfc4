/* evindex: the timeline index, built in one file-order pass over the mapped log and
 * never copying its events: per-capability thread runs and GC phases, one record per
 * collection with its pause breakdown, non-moving GC phases, markers and messages,
 * threads, heap and spark series, capabilities, program info, and a seek table for
 * the events of any time range. Everything the viewer and the `gc`, `markers`,
 * `threads` commands ask is answered from here. */
#ifndef ELOG_EVINDEX_H
#define ELOG_EVINDEX_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "evlog.h"
#include "evseek.h"
#include "ivtrack.h"
#include "msgtab.h"
#include "heapprof.h"
#include "ipe.h"
#include "runlane.h"
#include "series.h"
#include "threadtab.h"
#include "ticky.h"
#include "timeprof.h"

#define EVINDEX_NO_TIME UINT64_MAX
#define EVINDEX_NO_CAP 0xffffu

typedef struct evindex evindex;

/* Build options; every field may be NULL. */
typedef struct evindex_opts {
    /* Bytes of the file walked so far, added to now and then (for a progress bar read
     * by another thread while the build runs; reset to 0 when the build starts). */
    _Atomic uint64_t *progress_bytes;
    /* When another thread sets it non-zero the build stops early; evindex_build then
     * returns NULL. */
    _Atomic int *cancel;
    /* Threads to build with: 0 chooses (one per core for logs of 8 MB and more), 1 is
     * the serial build. The file's capability blocks are split into contiguous ranges
     * of about equal bytes, one per thread (the first also walks the global block);
     * the results are stitched at the seams, and equal the serial build's. Logs whose
     * blocks cannot be laid out cleanly (cut short, corrupt, no blocks) are built
     * serially. */
    unsigned threads;
    /* Tests: the seams of the block split, n_split sorted file offsets (n_split + 1
     * threads, `threads` is then ignored); thread k's range starts at the first
     * capability block at or after split_at[k - 1]. NULL: ranges of equal bytes. */
    const uint64_t *split_at;
    size_t n_split;
    /* Bench: where the build's time went, filled in when not NULL (see below). */
    struct evindex_prof *prof;
} evindex_opts;

/* Where a build's time went, stage by stage (bench and tuning, not tests: timings
 * vary). A stage ran on one thread; `cpu_ns` is that thread's CPU time in it (user
 * and system). Stages of section 0 ran one after another on the building thread;
 * those of a section k > 0 ran beside each other, lane by lane (lane 0 the building
 * thread), each lane's stages one after another. */
#define EVINDEX_PROF_MAX 48
typedef struct evindex_prof_stage {
    const char *name;           /* static */
    uint64_t cpu_ns, wall_ns;
    unsigned section, lane;
} evindex_prof_stage;

typedef struct evindex_prof {
    evindex_prof_stage stage[EVINDEX_PROF_MAX];
    _Atomic unsigned n;         /* stages filled (those past the room are dropped) */
    _Atomic unsigned sections;  /* sections handed out so far */
} evindex_prof;

/* The build's critical path in CPU: section 0's stages plus, for every other section,
 * its busiest lane's. */
uint64_t evindex_prof_critical_ns(const evindex_prof *p);
/* The sum of every stage's CPU. */
uint64_t evindex_prof_cpu_ns(const evindex_prof *p);

/* Index `log` (borrowed: it must outlive the index). Always returns an index of
 * every complete event before the data ended; *ending says how it ended (DIAG_OK at
 * the end marker, DIAG_TRUNCATED or DIAG_BAD_DATA with the offset otherwise). NULL
 * only if cancelled. Caller frees with evindex_free. */
evindex *evindex_build(const evlog *log, const evindex_opts *opts, diag *ending);
void evindex_free(evindex *ix);

const evlog *evindex_log(const evindex *ix);
/* The data stopped before its end marker (a killed program) or at bad data. GCs still
 * open then are closed at the last timestamp and flagged; a thread run still open
 * (RUNLANE_F_OPEN: its end is unknown) ends no later than the start of the first
 * collection after it began (every capability stops before a collection starts), its
 * capability's last block end time, or the last timestamp, whichever is first. */
bool evindex_truncated(const evindex *ix);
const diag *evindex_ending(const evindex *ix);
/* First and last event timestamps (0, 0 for a log with no events). */
uint64_t evindex_first_ns(const evindex *ix);
uint64_t evindex_last_ns(const evindex *ix);
uint64_t evindex_n_events(const evindex *ix);
/* Threads the build used (1: the serial build). */
unsigned evindex_threads_used(const evindex *ix);
/* Heap bytes the index owns (bench: compared with the file size). */
size_t evindex_bytes(const evindex *ix);

/* --- capabilities: one lane each, in ascending cap order ------------------------- */

/* GC sub-phase kinds on a capability's GC track (ivtrack kinds). */
enum evindex_gc_kind {
    EVINDEX_GC_WORK = 0,        /* copying / marking (GC_WORK .. GC_IDLE or GC_DONE) */
    EVINDEX_GC_WAIT = 1,        /* in the GC but not working: before GC_WORK, GC_IDLE,
                                 * after GC_DONE */
};

typedef struct evindex_cap {
    uint16_t cap;               /* EVINDEX_NO_CAP for events outside capability blocks */
    uint64_t created_ns;        /* CAP_CREATE, EVINDEX_NO_TIME if absent */
    uint64_t deleted_ns;        /* CAP_DELETE, EVINDEX_NO_TIME if absent */
    uint32_t n_disable, n_enable;
    const runlane *runs;        /* thread runs */
    const ivtrack *gc;          /* GC sub-phases; ref = GC record index */
} evindex_cap;

size_t evindex_n_caps(const evindex *ix);
/* Lane i (< evindex_n_caps), borrowed. */
const evindex_cap *evindex_cap_at(const evindex *ix, size_t i);
/* Lane of capability `cap`, or SIZE_MAX. */
size_t evindex_lane_of(const evindex *ix, uint16_t cap);

/* --- collections ----------------------------------------------------------------- */

enum {
    EVINDEX_GC_F_PAR_REQUEST = 1,   /* requested with REQUEST_PAR_GC */
    EVINDEX_GC_F_OPEN = 2,          /* no end: closed at the log's last timestamp */
    EVINDEX_GC_F_NO_STATS = 4,      /* no GC_STATS (log cut inside it, or an old GHC):
                                     * gen/copied/... unknown */
    EVINDEX_GC_F_NO_START = 8,      /* GC_STATS with no GC_START before it: no pause */
    EVINDEX_GC_F_MAJOR = 16,        /* gen is the oldest generation */
    EVINDEX_GC_F_HAS_BALANCE = 32,  /* par_balanced is known */
    EVINDEX_GC_F_BIO_CENSUS = 64,   /* its census is biographical (-hb): census_ns runs
                                     * from the leader's last GC phase change before the
                                     * census's own time to the pause's end, an upper
                                     * bound that also holds the LDV pass GHC counts as
                                     * GC time */
};

#define EVINDEX_GEN_UNKNOWN 0xffffu

/* One collection. Times in ns. The pause is the leader's GC_START .. GC_END, which is
 * what the RTS's own statistics measure (docs/stats-semantics.md §1). The leader posts
 * GC_START only once every capability has stopped, so a collection is, on one clock:
 * request_ns .. start_ns (time to stop: stopping_ns), then start_ns .. end_ns (the
 * pause: every capability stopped), of which census_ns was the heap profiler's. */
typedef struct evindex_gc {
    uint64_t start_ns, end_ns;      /* the pause */
    uint64_t request_ns;            /* REQUEST_SEQ/PAR_GC, or start_ns if none */
    uint64_t stopping_ns;           /* time to stop: request_ns .. start_ns, as GHC's own
                                     * sync_elapsed_ns; EVINDEX_NO_TIME with no request
                                     * (the non-threaded RTS posts none) */
    uint64_t census_ns;             /* heap-profile census time inside the pause (the
                                     * leader's; out of its part's wait_ns), else 0 */
    uint64_t global_sync_ns;        /* GC_GLOBAL_SYNC's time, or EVINDEX_NO_TIME */
    uint64_t copied, slop, frag;
    uint64_t par_max_copied, par_tot_copied, par_balanced;
    uint64_t live_after;            /* HEAP_LIVE after a major GC, else EVINDEX_NO_TIME */
    uint64_t heap_after;            /* HEAP_SIZE after it, or EVINDEX_NO_TIME */
    uint64_t allocated_before;      /* bytes allocated since the previous collection,
                                     * or EVINDEX_NO_TIME */
    uint32_t par_threads;
    uint32_t first_part, n_parts;   /* its capabilities: evindex_gc_part_get(first + i) */
    uint16_t gen;                   /* EVINDEX_GEN_UNKNOWN without GC_STATS */
    uint16_t leader_cap, request_cap, slowest_cap;  /* EVINDEX_NO_CAP when unknown */
    uint8_t flags;                  /* EVINDEX_GC_F_* */
} evindex_gc;

/* One capability's part in a collection. */
typedef struct evindex_gc_part {
    uint16_t cap;
    uint64_t stop_ns;               /* when it stopped mutating for this GC: the end of
                                     * the run it had at the request, else the request */
    uint64_t start_ns, end_ns;      /* its own GC_START .. GC_END */
    uint64_t work_ns, wait_ns;      /* GC work and waiting inside them (the leader's
                                     * heap census is in neither: evindex_gc.census_ns) */
} evindex_gc_part;

size_t evindex_n_gcs(const evindex *ix);
/* Collection i (< evindex_n_gcs, in start order) into *buf, returning buf; NULL (buf
 * untouched) otherwise. The index keeps them packed (about 28 bytes each; see gcpack.h),
 * so readers decode into their own buffers and any thread may read. */
const evindex_gc *evindex_gc_get(const evindex *ix, size_t i, evindex_gc *buf);
/* What scans over every collection mostly want (a pause list, a histogram, MMU), read
 * several times cheaper than the whole record. */
typedef struct evindex_gc_brief {
    uint64_t start_ns, end_ns, request_ns;
    uint16_t gen;
    uint8_t flags;
} evindex_gc_brief;
/* Collection i's (< evindex_n_gcs) fields as evindex_gc_get gives them. */
evindex_gc_brief evindex_gc_brief_at(const evindex *ix, size_t i);
/* Part i (a collection's first_part + k, k < n_parts) into *buf, as evindex_gc_get. */
const evindex_gc_part *evindex_gc_part_get(const evindex *ix, size_t i, evindex_gc_part *buf);
/* Heap bytes the collections and their parts take (bench: part of evindex_bytes). */
size_t evindex_gc_bytes(const evindex *ix);
/* Index of the first collection starting at or after t (n_gcs if none). */
size_t evindex_gc_first_from(const evindex *ix, uint64_t t);
/* Index of the collection whose pause contains t, or SIZE_MAX. */
size_t evindex_gc_containing(const evindex *ix, uint64_t t);
/* Number of generations (HEAP_INFO_GHC, default 2). */
unsigned evindex_n_gens(const evindex *ix);

/* --- non-moving collector --------------------------------------------------------- */

enum evindex_nm_kind {
    EVINDEX_NM_MARK = 0,            /* concurrent mark */
    EVINDEX_NM_SYNC = 1,            /* post-mark synchronisation (stop-the-world) */
    EVINDEX_NM_SWEEP = 2,           /* concurrent sweep */
};

/* One non-moving cycle: marks, then sync, then sweep. */
typedef struct evindex_nm_cycle {
    uint64_t start_ns, end_ns;      /* first mark began .. sweep ended (or last phase) */
    uint64_t mark_ns, sync_ns, sweep_ns;    /* time in each phase */
    uint64_t marked_objects;        /* sum over CONC_MARK_END */
    uint32_t n_marks, n_flushes;    /* mark rounds; remembered-set flushes in the cycle */
    uint8_t flags;                  /* EVINDEX_GC_F_OPEN if cut short */
} evindex_nm_cycle;

typedef struct evindex_nm_census {
    uint64_t time_ns;
    uint32_t blk_size;              /* block size of the allocator census'd */
    uint32_t active, filled, live;  /* segments, segments, blocks */
} evindex_nm_census;

/* The phases as one track (ref = cycle index); empty without non-moving events. */
const ivtrack *evindex_nm_track(const evindex *ix);
size_t evindex_n_nm_cycles(const evindex *ix);
const evindex_nm_cycle *evindex_nm_cycle_at(const evindex *ix, size_t i);
size_t evindex_n_nm_census(const evindex *ix);
const evindex_nm_census *evindex_nm_census_at(const evindex *ix, size_t i);
/* Remembered-set flushes: time and capability. */
typedef struct evindex_instant {
    uint64_t time_ns;
    uint16_t cap;
} evindex_instant;
size_t evindex_n_nm_flushes(const evindex *ix);
const evindex_instant *evindex_nm_flush_at(const evindex *ix, size_t i);
/* NONMOVING_PRUNED_SEGMENTS: series of pruned segment counts (may be empty). */
const series *evindex_nm_pruned(const evindex *ix);
/* NONMOVING_PRUNED_SEGMENTS: free segments retained after each pruning (same times). */
const series *evindex_nm_free_segments(const evindex *ix);

/* --- heap profile (+RTS -h...) ------------------------------------------------------- */

/* Censuses broken down by cost-centre stack or description (see heapprof.h); empty
 * when the program was not heap-profiled. Borrowed. */
const heapprof *evindex_heap_profile(const evindex *ix);

/* Info-table provenance (IPE events, GHC 9.2+ with -finfo-table-map), for naming -hi
 * bands and ticky counters; empty without them. Borrowed. */
const ipe_table *evindex_ipe(const evindex *ix);
/* Ticky-ticky counters (see ticky.h); empty without ticky events. Borrowed. */
const ticky *evindex_ticky(const evindex *ix);
/* Time-profile samples (see timeprof.h; +RTS -p -l); empty without them. Cost-centre
 * names: evindex_heap_profile's. Borrowed. */
const timeprof *evindex_timeprof(const evindex *ix);

/* --- markers and messages ---------------------------------------------------------- */

enum evindex_msg_kind {
    EVINDEX_MSG_MARKER,             /* USER_MARKER (traceMarker) */
    EVINDEX_MSG_USER,               /* USER_MSG (traceEvent) */
    EVINDEX_MSG_LOG,                /* LOG_MSG (the RTS's own) */
    EVINDEX_MSG_BINARY,             /* USER_BINARY_MSG */
};

/* A message or marker as handed out (by value: the index keeps them packed, about 6
 * bytes each; see msgtab.h): time, offset (40 bits), cap, kind (evindex_msg_kind). */
typedef msgtab_msg evindex_msg;

/* USER_MARKERs in time order. */
size_t evindex_n_markers(const evindex *ix);
evindex_msg evindex_marker_at(const evindex *ix, size_t i);
/* Index of the first marker at or after t (n_markers if none). */
size_t evindex_marker_first_from(const evindex *ix, uint64_t t);
/* Every message and marker in time order. */
size_t evindex_n_msgs(const evindex *ix);
evindex_msg evindex_msg_at(const evindex *ix, size_t i);
/* Messages [i, i + n) into out[], as evindex_msg_at gives them; returns how many there
 * are (fewer past the end). A pass over many reads them this way, a chunk at a time. */
size_t evindex_msgs_at(const evindex *ix, size_t i, size_t n, evindex_msg *out);
/* Index of the first message at or after t (n_msgs if none). */
size_t evindex_msg_first_from(const evindex *ix, uint64_t t);
/* The raw text bytes of a marker or message (a slice of the mapping; binary messages
 * are bytes). False if the event cannot be re-read. */
bool evindex_msg_text(const evindex *ix, const evindex_msg *m, const uint8_t **text,
                      size_t *len);

/* --- threads ------------------------------------------------------------------------- */

const threadtab *evindex_threads(const evindex *ix);
/* A thread's label text (slice of the mapping), false if it has none. */
bool evindex_thread_label(const evindex *ix, const threadtab_thread *t, const uint8_t **text,
                          size_t *len);

/* --- heap and sparks ------------------------------------------------------------------ */

enum evindex_series_id {
    EVINDEX_S_HEAP_SIZE,            /* HEAP_SIZE bytes */
    EVINDEX_S_HEAP_LIVE,            /* HEAP_LIVE bytes */
    EVINDEX_S_BLOCKS_SIZE,          /* BLOCKS_SIZE bytes */
    EVINDEX_S_ALLOCATED,            /* all caps' HEAP_ALLOCATED summed: bytes so far */
    EVINDEX_S_MEM_CURRENT,          /* MEM_RETURN current, needed, returned (mblocks) */
    EVINDEX_S_MEM_NEEDED,
    EVINDEX_S_MEM_RETURNED,
    EVINDEX_S_SPARK_POOL,           /* SPARK_COUNTERS remaining, all caps summed */
    EVINDEX_S_SPARKS_CREATED,       /* SPARK_COUNTERS created, all caps summed */
    EVINDEX_S_SPARKS_CONVERTED,     /* SPARK_COUNTERS converted, all caps summed */
    EVINDEX_S_HEAP_PROF,            /* heap-profile census: total residency sampled */
    EVINDEX_N_SERIES
};

/* A series (possibly empty), borrowed. */
const series *evindex_series(const evindex *ix, enum evindex_series_id id);
/* Short name of a series ("heap size", ...), static text. */
const char *evindex_series_name(enum evindex_series_id id);

/* Per-spark events (-lf): SPARK_CREATE .. SPARK_GC. */
enum evindex_spark_kind {
    EVINDEX_SPARK_CREATE, EVINDEX_SPARK_DUD, EVINDEX_SPARK_OVERFLOW, EVINDEX_SPARK_RUN,
    EVINDEX_SPARK_STEAL, EVINDEX_SPARK_FIZZLE, EVINDEX_SPARK_GC, EVINDEX_N_SPARK_KINDS
};
/* Number of spark events of `kind` with time in [t0, t1), O(log n). */
uint64_t evindex_spark_count(const evindex *ix, enum evindex_spark_kind kind, uint64_t t0,
                             uint64_t t1);
uint64_t evindex_spark_total(const evindex *ix, enum evindex_spark_kind kind);
/* The same per capability: lane `lane` (evindex_cap_at) only; 0 for a bad lane. */
uint64_t evindex_cap_spark_count(const evindex *ix, size_t lane, enum evindex_spark_kind kind,
                                 uint64_t t0, uint64_t t1);
uint64_t evindex_cap_spark_total(const evindex *ix, size_t lane, enum evindex_spark_kind kind);
/* Lane `lane`'s sparks of `kind` before each of the n increasing times t[], into out[]
 * (all 0 for a bad lane): a screen row's column edges in one sweep. */
void evindex_cap_spark_before_many(const evindex *ix, size_t lane, enum evindex_spark_kind kind,
                                   const uint64_t *t, size_t n, size_t *out);
/* One capability's SPARK_COUNTERS, as posted (cumulative created and converted, and the
 * pool's size then): one series each, borrowed; NULL for a bad lane. */
enum evindex_cap_spark {
    EVINDEX_CS_CREATED, EVINDEX_CS_CONVERTED, EVINDEX_CS_POOL, EVINDEX_N_CAP_SPARK
};
const series *evindex_cap_spark_series(const evindex *ix, size_t lane,
                                       enum evindex_cap_spark which);
/* Heap bytes holding the spark event times (bench breakdown). */
size_t evindex_spark_bytes(const evindex *ix);

/* --- program, capsets, heap profile -------------------------------------------------- */

typedef struct evindex_program {
    uint64_t rts_id_offset;         /* RTS_IDENTIFIER event, 0 if absent */
    uint64_t args_offset;           /* PROGRAM_ARGS event, 0 if absent */
    uint64_t env_offset;            /* PROGRAM_ENV event, 0 if absent */
    uint64_t pid, ppid;             /* 0 if absent */
    uint64_t wall_sec;              /* WALL_CLOCK_TIME of the log's time 0, 0 if absent */
    uint32_t wall_nsec;
    uint64_t wall_time_ns;          /* the event's own timestamp */
    uint32_t n_capsets;
    uint32_t n_tasks;               /* TASK_CREATE events */
    uint64_t hp_censuses;           /* heap-profile censuses (plain or biographical) */
    uint64_t hp_cost_centres;       /* HEAP_PROF_COST_CENTRE definitions */
} evindex_program;

const evindex_program *evindex_program_info(const evindex *ix);
/* Text of a program-info event (RTS id, or the args/env list with NUL separators), a
 * slice of the mapping; false if absent. */
bool evindex_event_text(const evindex *ix, uint64_t offset, const uint8_t **text, size_t *len);

/* --- events by time ---------------------------------------------------------------------- */

/* The recorded stretches of the file (see evseek.h): events of a time range. */
const evseek *evindex_seek(const evindex *ix);

/* Invariant checker over every structure (tests). */
bool evindex_check(const evindex *ix, char *why, size_t why_len);

/* --- an index that grows (live logs) ------------------------------------------------
 * The builder evindex_build runs, kept between steps: each step walks the events that
 * came since the last one (the log grew: evlog_grow) through the same per-capability
 * state machines, and publishes them. Per-capability structures only append; the
 * time-sorted global ones (messages, series, collections, flushes, seek stretches)
 * have the new items merged into their tails. Each step costs the new data plus the
 * unplaced tail, never the whole log. The published index answers every query; it
 * holds every event walked except runs, GC phases and non-moving phases still open
 * (drawn once they end), and collections are joined again near the end until every
 * capability has written past them. evindex_grow_finish gives the index
 * evindex_build gives for the same bytes. */
typedef struct evindex_grow evindex_grow;

/* Work done so far (tests check that growth is not a rebuild; bench). */
typedef struct evindex_grow_work {
    uint64_t steps;
    uint64_t events_walked;     /* each event once */
    uint64_t items_moved;       /* messages, samples, flushes moved to merge late ones in */
    uint64_t series_rebuilds;   /* a sample came before the placed ones: series redone */
    uint64_t spans_joined;      /* GC spans joined (again) */
    uint64_t join_rollbacks;    /* a late input undid final collections */
    uint64_t gcs_final;         /* collections [0, this) will not change any more */
} evindex_grow_work;

/* Over `log` (borrowed; it may grow between steps and must outlive the grower). Caller
 * frees with evindex_grow_finish or evindex_grow_free. */
evindex_grow *evindex_grow_new(const evlog *log);
/* Index the events the log holds now, at most about `max_bytes` of them (UINT64_MAX:
 * all), and publish. True if it is not caught up: bytes are left to walk. */
bool evindex_grow_step(evindex_grow *g, uint64_t max_bytes);
/* The published index, owned by g. Changed in place by the next step: no reader may
 * hold it across a step (nor use it on another thread during one). */
const evindex *evindex_grow_index(const evindex_grow *g);
/* Log bytes walked so far. */
uint64_t evindex_grow_bytes(const evindex_grow *g);
/* The data ended: end marker or bad data (nothing more will be walked). */
bool evindex_grow_ended(const evindex_grow *g);
void evindex_grow_work_get(const evindex_grow *g, evindex_grow_work *w);
/* Walk what is left and close everything as evindex_build does at the data's end:
 * the index of every event walked, equal to evindex_build's for the same bytes.
 * Consumes g; the caller frees the index. *ending as evindex_build's. */
evindex *evindex_grow_finish(evindex_grow *g, diag *ending);
/* Free a grower and its index; NULL is a no-op. */
void evindex_grow_free(evindex_grow *g);

#endif
