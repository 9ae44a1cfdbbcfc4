/* timeprof: the time profile a profiled program writes with `+RTS -p -l` — the tick
 * interval (PROF_BEGIN) and, at every tick, each capability's current cost-centre stack
 * (PROF_SAMPLE_COST_CENTRE: capability, tick number, the stack's cost-centre ids from
 * the innermost outwards; the RTS stops before MAIN, so the empty stack is MAIN) — and
 * the flat profile over any time range: per cost centre, the samples it was innermost
 * in (individual) and the samples it was anywhere on the stack in (inherited). The
 * cost centres' names are heapprof_cost_centre_find's (HEAP_PROF_COST_CENTRE).
 * A sample is kept as its place in the log (delta-coded file offsets) and read back from
 * the log on demand: the log must outlive the timeprof and stay as it was indexed. */
#ifndef ELOG_TIMEPROF_H
#define ELOG_TIMEPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evlog.h"

/* The cost centre of a sample whose stack is empty (the RTS's CCS_MAIN). */
#define TIMEPROF_MAIN UINT32_MAX
/* timeprof_flat: samples of every capability. */
#define TIMEPROF_ANY_CAP UINT32_MAX
/* The deepest stack a sample can hold (its depth is one byte). */
#define TIMEPROF_MAX_DEPTH 255
/* timeprof_rank saturates here. */
#define TIMEPROF_RANK_MAX 15

/* One sample as read back from the log (a value: nothing borrowed). */
typedef struct timeprof_sample {
    uint64_t time_ns;
    uint64_t tick;              /* the RTS's tick count when it was taken */
    uint64_t offset;            /* the event's file offset */
    uint32_t cap;               /* the capability it was taken on */
    uint32_t depth;             /* 0: MAIN */
} timeprof_sample;

/* One cost centre in a flat profile. */
typedef struct timeprof_row {
    uint32_t cc;                /* cost-centre id, or TIMEPROF_MAIN */
    uint64_t individual;        /* samples it was the innermost cost centre of */
    uint64_t inherited;         /* samples it was on the stack of (once per sample, how
                                 * deep a recursion ever; MAIN: every sample) */
} timeprof_row;

typedef struct timeprof timeprof;

/* Empty, reading samples back from `log` (borrowed; it outlives the timeprof). Caller
 * frees with timeprof_free (NULL is a no-op). */
timeprof *timeprof_new(const evlog *log);
void timeprof_free(timeprof *tp);

/* Building, in file order. PROF_BEGIN's tick interval (the first one stays). */
void timeprof_begin(timeprof *tp, uint64_t time_ns, uint64_t interval_ns);
/* The PROF_SAMPLE_COST_CENTRE event at file offset `offset` with this time and payload
 * (u32 cap, u64 tick, u8 depth, depth u32 ids); false (and nothing kept) if the payload
 * is shorter than its depth says. */
bool timeprof_add_sample(timeprof *tp, uint64_t offset, uint64_t time_ns,
                         const uint8_t *payload, size_t len);
/* Moves src's samples and interval into dst (both unsealed, same log); src is left
 * empty. For a build shared out among workers. */
void timeprof_merge(timeprof *dst, timeprof *src);
/* Done: samples in time order (file order among equal times). */
void timeprof_seal(timeprof *tp);

bool timeprof_empty(const timeprof *tp);
/* PROF_BEGIN's interval in ns and its time; false when the log has none. */
bool timeprof_interval(const timeprof *tp, uint64_t *interval_ns, uint64_t *begin_ns);
size_t timeprof_n_samples(const timeprof *tp);
/* Sample i (i < timeprof_n_samples), read from the log; all zero if the log no longer
 * holds it. */
timeprof_sample timeprof_sample_at(const timeprof *tp, size_t i);
/* Sample i's cost-centre ids, innermost first, into ids; returns their count. */
uint32_t timeprof_stack(const timeprof *tp, size_t i, uint32_t ids[TIMEPROF_MAX_DEPTH]);
/* Sample i's innermost cost centre (TIMEPROF_MAIN for the empty stack). */
uint32_t timeprof_innermost(const timeprof *tp, size_t i);
/* The place of sample i's innermost cost centre in the whole log's flat profile (0: the
 * most individual samples; timeprof_flat's order), TIMEPROF_RANK_MAX for that place and
 * any later one: the viewer colours by it. */
uint32_t timeprof_rank(const timeprof *tp, size_t i);
/* The first sample at or after `from` (wrapping round to 0 after the last) whose
 * innermost cost centre is cc; SIZE_MAX if none is. */
size_t timeprof_find_innermost(const timeprof *tp, size_t from, uint32_t cc);
/* Index of the first sample at or after t (timeprof_n_samples if none); of the last
 * at or before t (SIZE_MAX if none). O(log n). */
size_t timeprof_first_from(const timeprof *tp, uint64_t t);
size_t timeprof_last_by(const timeprof *tp, uint64_t t);
/* Capabilities that took samples (distinct cap numbers). */
size_t timeprof_n_caps(const timeprof *tp);
/* Whether capability `cap` took any sample. */
bool timeprof_has_cap(const timeprof *tp, uint32_t cap);

/* The flat profile of the samples with from_ns <= time <= to_ns taken on `cap` (or
 * TIMEPROF_ANY_CAP): one row per cost centre seen, most individual samples first (ties:
 * most inherited, then lower id; MAIN last among equals). *n_rows receives the rows'
 * count, *n_samples the samples counted. Caller frees (x_free); never NULL. */
timeprof_row *timeprof_flat(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, uint32_t cap,
                            size_t *n_rows, uint64_t *n_samples);

size_t timeprof_bytes(const timeprof *tp);
/* Invariant checker (tests): every sample read back, in time order; the checkpointed
 * profile of a few ranges equals a recount of their samples. */
bool timeprof_check(const timeprof *tp, char *why, size_t why_len);

#endif
