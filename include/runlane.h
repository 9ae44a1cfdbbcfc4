/* runlane: one capability's thread runs as a compact, time-sorted array of
 * non-overlapping intervals (bit-packed per chunk, about 6-8 bytes a run), with per-chunk
 * prefix sums so the busy time inside any [t0, t1) is O(log n) plus one chunk scan. */
#ifndef ELOG_RUNLANE_H
#define ELOG_RUNLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs per packed chunk (each with its own bit widths, prefix sum and in-chunk
 * checkpoints): a partial-chunk scan touches at most a few of its runs. */
#define RUNLANE_CHUNK 64
/* Runs between two of a chunk's in-chunk checkpoints (the start and the run time before
 * runs RUNLANE_CP_STEP, 2 * RUNLANE_CP_STEP, ... of the chunk). */
#define RUNLANE_CP_STEP 16

/* One run as handed in and out (a plain value). */
typedef struct runlane_run {
    uint64_t start_ns;
    uint64_t end_ns;            /* > start_ns is not required: zero-length runs exist */
    uint32_t tid;
    uint8_t stop;               /* STOP_THREAD status (saturated at 255) */
    uint8_t flags;              /* RUNLANE_F_* */
} runlane_run;

enum {
    RUNLANE_F_OPEN = 1,         /* no STOP_THREAD: closed at the log's last timestamp */
    RUNLANE_F_CLIPPED = 2,      /* start moved forward to the previous run's end */
};

typedef struct runlane runlane;

/* Empty lane. Caller frees with runlane_free. */
runlane *runlane_new(void);
void runlane_free(runlane *rl);

/* Append a run. Runs must come in start order; one that starts before the previous
 * run's end is clipped to start there (flag RUNLANE_F_CLIPPED) and one that then has
 * end < start is dropped. Returns false if dropped. Of the caller's flags only
 * RUNLANE_F_OPEN is kept: RUNLANE_F_CLIPPED is set exactly when this call clipped. */
bool runlane_append(runlane *rl, const runlane_run *run);
/* runlane_append of the run {start_ns, end_ns, tid, stop, flags}, its fields passed
 * as they are (no runlane_run built and read back on the walk's way of every run). */
bool runlane_append_fields(runlane *rl, uint64_t start_ns, uint64_t end_ns, uint32_t tid,
                           uint8_t stop, uint8_t flags);
/* Append every run of src (left as it is) after dst's, as runlane_append would have
 * taken them: the first may be clipped to dst's last end; the flags src set are kept.
 * O(runs of src). */
void runlane_append_lane(runlane *dst, const runlane *src);
/* The same in steps, so that the bulk can be re-encoded on another thread: the first
 * k = runlane_join_at(dst, src) runs of src go onto dst one by one (then dst holds
 * whole chunks), the rest in ranges whose lengths are multiples of RUNLANE_CHUNK,
 * either appended (runlane_append_range: src's runs [from, to)) or re-encoded into a
 * new lane (runlane_copy_range, src only read, caller frees) that runlane_splice(dst, t)
 * then moves onto dst (which must hold whole chunks; t is freed). When k is 0 src
 * itself can be spliced: chunks are RUNLANE_CHUNK runs from the lane's start, so only
 * a src that starts where dst's chunks end can be spliced unchanged. */
size_t runlane_join_at(const runlane *dst, const runlane *src);
void runlane_append_range(runlane *dst, const runlane *src, size_t from, size_t to);
runlane *runlane_copy_range(const runlane *src, size_t from, size_t to);
void runlane_splice(runlane *dst, runlane *src);
/* Done appending: packs the last runs and trims spare capacity. Queries are valid before
 * and after; appending after seal is allowed (it unpacks the last short chunk). */
void runlane_seal(runlane *rl);

size_t runlane_count(const runlane *rl);
/* Run i (< count); an out-of-range i gives an all-zero run. A packed run's start is
 * summed from the chunk's nearest start checkpoint: up to RUNLANE_CHUNK / 4 steps. */
void runlane_get(const runlane *rl, size_t i, runlane_run *out);
/* The caller's memory of the last run runlane_get_seq read (zero it before the first
 * call), so that runs read in order cost a step each: run i + 1 starts at run i's end
 * plus its gap. */
typedef struct runlane_seq {
    const runlane *rl;          /* the lane of the last read, or NULL */
    size_t next;                /* the index after it */
    uint64_t end_ns;            /* its end */
} runlane_seq;
/* As runlane_get, fast when i is the run after the last one read through seq. */
void runlane_get_seq(const runlane *rl, size_t i, runlane_run *out, runlane_seq *seq);
/* Whole-lane passes read the runs a block at a time (block b = runs
 * [b * RUNLANE_CHUNK, ...), up to RUNLANE_CHUNK of them), unpacked into columns. */
typedef struct runlane_block {
    size_t first, len;          /* index of its first run; runs in it */
    uint64_t start_ns[RUNLANE_CHUNK];
    uint64_t dur_ns[RUNLANE_CHUNK];     /* end_ns = start_ns + dur_ns */
    uint32_t tid[RUNLANE_CHUNK];
    uint8_t stop[RUNLANE_CHUNK];        /* as runlane_run.stop */
    uint8_t flags[RUNLANE_CHUNK];       /* as runlane_run.flags */
} runlane_block;
size_t runlane_n_blocks(const runlane *rl);
/* Start of block b's first run (b < n_blocks), read from its header without unpacking
 * it: a pass over many lanes can take their blocks in time order. */
uint64_t runlane_block_start_ns(const runlane *rl, size_t b);
/* Bounds of block b's tids (b < n_blocks) without unpacking it: every tid of the block
 * is in [*lo, *hi] (the bounds may be wider than the tids), so a pass interested in some
 * threads only can skip the block. */
void runlane_block_tids(const runlane *rl, size_t b, uint32_t *lo, uint32_t *hi);
/* Whether block b (< n_blocks) holds a run of a thread in [lo, hi], from its header, its
 * tid window and its few patched tids, without unpacking the tid column: true may be
 * wrong (the window is a bound), false is not. Tighter than runlane_block_tids when a few
 * long-lived threads' runs are among many short-lived ones'. */
bool runlane_block_has_tid_in(const runlane *rl, size_t b, uint32_t lo, uint32_t hi);
/* Block b (< n_blocks) into *out: first, len and the columns named in `cols` (an OR of
 * RUNLANE_COL_*; the others are left as they were). O(RUNLANE_CHUNK), a few ns a run;
 * durations, tids and stops each read only their own packed column, starts the gaps and
 * the durations too (a start is the previous run's end plus its gap). */
enum {
    RUNLANE_COL_START = 1,
    RUNLANE_COL_DUR = 2,
    RUNLANE_COL_TID = 4,
    RUNLANE_COL_STOP = 8,       /* stop and flags */
    RUNLANE_COL_ALL = 15,
};
void runlane_block_get(const runlane *rl, size_t b, runlane_block *out, unsigned cols);
/* Per-thread sums straight from block b's packed columns: each run whose tid is in
 * [tid_lo, tid_lo + n) adds its duration to sum[tid - tid_lo] and one to
 * count[tid - tid_lo]; other runs are passed over. */
void runlane_block_add_by_tid(const runlane *rl, size_t b, uint32_t tid_lo, size_t n,
                              uint64_t *sum, uint32_t *count);
/* Index of the first run with end_ns > t (count if none): the first one that can
 * overlap [t, ...). Zero-length runs at t count as ending after t when start == t. */
size_t runlane_first_after(const runlane *rl, uint64_t t);
/* Index of the last run with start_ns <= t, or SIZE_MAX if none. */
size_t runlane_last_starting_by(const runlane *rl, uint64_t t);

/* A sweep over (mostly) increasing times: it keeps the packed chunk it last answered
 * from unpacked, so queries that land in it cost a binary search over plain starts,
 * and moves on to a later chunk by galloping. Any order of times gives exact answers.
 * It borrows rl, which must not change while it lives. Caller frees: runlane_sweep_free. */
typedef struct runlane_sweep runlane_sweep;
runlane_sweep *runlane_sweep_new(const runlane *rl);
void runlane_sweep_free(runlane_sweep *sw);
/* runlane_last_starting_by(rl, t); *end_ns gets that run's end (untouched on SIZE_MAX). */
size_t runlane_sweep_last_starting_by(runlane_sweep *sw, uint64_t t, uint64_t *end_ns);
/* Sum over runs of |run ∩ [t0, t1)|, in ns. O(log n + RUNLANE_CHUNK). */
uint64_t runlane_busy_ns(const runlane *rl, uint64_t t0, uint64_t t1);
/* out[m] = sum over runs of |run ∩ [0, t[m])| for n ascending times (a screen's column
 * boundaries): one sweep, about O(n + log runs) chunk steps, a time in the chunk of the
 * one before walked on from its answer. Times out of order are answered too. */
void runlane_busy_upto_many(const runlane *rl, const uint64_t *t, size_t n, uint64_t *out);
/* The same for one time t: sum over runs of |run ∩ [0, t)|. O(log n + RUNLANE_CHUNK). */
uint64_t runlane_busy_upto(const runlane *rl, uint64_t t);
/* Bounds on runlane_busy_upto(rl, t[m]) for n times (best in ascending order: the search
 * gallops on from the last answer), from the chunks' headers alone, without reading a
 * packed run: lo[m] <= busy <= hi[m], both exact (equal) where the time is past the
 * packed runs or before them. The gap hi - lo is at most the run time and the idle time
 * of the chunk holding t[m], whichever is smaller: a screen column spanning many chunks
 * is known to within a few of its eighths without a chunk read. O(n + log n_runs).
 * When `at` is not NULL, at[m] gets where t[m] falls, for runlane_busy_bounds_near_many. */
void runlane_busy_bounds_many(const runlane *rl, const uint64_t *t, size_t n, uint64_t *lo,
                              uint64_t *hi, size_t *at);
/* Tighter bounds on runlane_busy_upto(rl, t[m]) for n times (any order), each at least
 * as tight as runlane_busy_bounds_many's: also from the in-chunk checkpoints of the chunk
 * holding t[m] (read from its packed words, not its runs), so the gap hi - lo is at most
 * the run time and the idle time of the RUNLANE_CP_STEP runs around t[m], whichever is
 * smaller. at[m] is where runlane_busy_bounds_many said t[m] falls: then O(1) a time (the
 * chunks' checkpoint words are asked for together); any other value costs a search. For
 * the few times the coarse bounds leave open, before reading them exactly. */
void runlane_busy_bounds_near_many(const runlane *rl, const uint64_t *t, const size_t *at,
                                   size_t n, uint64_t *lo, uint64_t *hi);
/* Number of runs that overlap [t0, t1) (a zero-length run at t counts if t0 <= t < t1). */
size_t runlane_count_in(const runlane *rl, uint64_t t0, uint64_t t1);
/* runlane_count_in to within two chunks, never below it: count_in <= about <= count_in +
 * 2 * RUNLANE_CHUNK. From chunk searches alone (no chunk's columns read, which cold
 * costs a wait a load): for choosing how to read a view, not for drawing it. */
size_t runlane_count_in_about(const runlane *rl, uint64_t t0, uint64_t t1);
/* Total run time of runs [0, i) — the prefix sum, O(log n + RUNLANE_CHUNK).
 * i > count is taken as count. */
uint64_t runlane_prefix_ns(const runlane *rl, size_t i);

/* Heap bytes owned by the lane. */
size_t runlane_bytes(const runlane *rl);
/* Invariant checker (tests): sorted, non-overlapping, summaries equal to a recount,
 * chunk headers consistent with their packed columns (canonical widths, base, tid_min).
 * Returns true if sound; else writes the first violation into why. */
bool runlane_check(const runlane *rl, char *why, size_t why_len);

/* Tests only: damage one internal summary or field near run i so a test can show
 * that runlane_check notices. False if the lane has nothing there to damage. */
typedef enum runlane_corrupt {
    RUNLANE_CORRUPT_ORDER,      /* run i starts before run i-1 ends */
    RUNLANE_CORRUPT_PREFIX,     /* the prefix sum of run i's chunk (or the open chunk's)
                                 * is off by one */
    RUNLANE_CORRUPT_BASE,       /* run i's packed chunk base is not its first run's start */
    RUNLANE_CORRUPT_FLAGS,      /* run i is marked clipped without starting at i-1's end */
    RUNLANE_CORRUPT_TOTAL,      /* the lane's total run time is off by one */
    RUNLANE_CORRUPT_WIDTH,      /* run i's packed chunk header says its duration column is
                                 * one bit narrower than the words it holds */
    RUNLANE_CORRUPT_CHECKPOINT, /* the first busy-time checkpoint of run i's packed chunk is
                                 * off by one */
    RUNLANE_CORRUPT_TIDMIN,     /* run i's packed chunk has tid_min one below its smallest
                                 * tid: queries still work, but the packing is not the
                                 * canonical one */
} runlane_corrupt;
bool runlane_test_corrupt(runlane *rl, runlane_corrupt what, size_t i);

#endif
