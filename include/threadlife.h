/* threadlife: one Haskell thread's life, gathered for the viewer's thread focus — every
 * run on every capability in time order (with the STOP_THREAD status and blocked-on
 * field that ended it) and the instants around them: its creation (and by which thread),
 * labels, wake-ups (and which thread woke it), migrations. Runs come from the index's
 * run lanes; the instants from one walk over the log's events. Over an index that grows
 * (evindex_grow: a live log) the life is extended by what was added since, at the cost
 * of that alone, and equals a fresh gather over the grown index. */
#ifndef ELOG_THREADLIFE_H
#define ELOG_THREADLIFE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"

typedef struct threadlife threadlife;

/* One run of the thread. */
typedef struct threadlife_run {
    uint64_t start_ns, end_ns;
    size_t cap_lane;            /* evindex lane (evindex_cap_at) */
    size_t run_index;           /* the run on that lane's runlane */
    uint16_t cap;               /* capability number (EVINDEX_NO_CAP for "global") */
    uint16_t status;            /* STOP_THREAD status; the run lane's when not re-read */
    uint32_t info;              /* STOP_THREAD's blocked-on field (a thread id for a
                                 * black hole), 0 if none */
    uint8_t flags;              /* RUNLANE_F_* */
} threadlife_run;

enum threadlife_kind {
    THREADLIFE_CREATE,          /* CREATE_THREAD; by: the thread running on cap then */
    THREADLIFE_LABEL,           /* THREAD_LABEL; offset: the event (evindex_event_text
                                 * does not apply: read it with evlog_event_at) */
    THREADLIFE_WAKEUP,          /* THREAD_WAKEUP posted on cap; other_cap: the thread's
                                 * cap; by: the thread running on cap then */
    THREADLIFE_MIGRATE,         /* MIGRATE_THREAD from cap to other_cap */
};

/* One instant of the thread's life. */
typedef struct threadlife_event {
    uint64_t time_ns;
    uint64_t offset;            /* of the event in the file */
    uint32_t by_tid;            /* CREATE, WAKEUP: the thread running on `cap` at that
                                 * time, 0 if none (the RTS itself, e.g. the scheduler) */
    uint16_t cap;               /* the capability that posted it */
    uint16_t other_cap;         /* WAKEUP: the woken thread's cap; MIGRATE: the new cap */
    uint8_t kind;               /* threadlife_kind */
} threadlife_event;

/* Gather thread `tid`'s life from `ix` (borrowed; it must outlive the result): a pass
 * over every run lane and one over the log's events. Caller frees with threadlife_free. */
threadlife *threadlife_new(const evindex *ix, uint32_t tid);
/* threadlife_free(NULL) is a no-op. */
void threadlife_free(threadlife *tl);

/* The same in two steps, so the slow one can run on another thread: threadlife_new_runs
 * gathers only the runs (quick: the run lanes' blocks that can hold the thread), with
 * no instants and each run's status as its lane has it (no blocked-on field);
 * threadlife_read reads what tl lacks, only reading tl (so tl may be queried meanwhile,
 * not changed): the runs placed on the index's lanes since tl was gathered and the
 * log's events after where its last walk stopped (all of them the first time), and
 * gives up, returning NULL, soon after *stop (stop may be NULL) becomes true
 * (threadlife_new_runs then returns at once with runs missing: throw it away);
 * threadlife_take puts what it read into tl (consumes x; NULL is a no-op).
 * threadlife_complete: taken at least once.
 * A STOP_THREAD read before its run is placed is kept and matched when the run comes;
 * a creation's or wake-up's waker (by_tid) is looked up again while its cap may still
 * get a run at its time. */
typedef struct threadlife_extra threadlife_extra;
threadlife *threadlife_new_runs(const evindex *ix, uint32_t tid, const atomic_bool *stop);
threadlife_extra *threadlife_read(const threadlife *tl, const atomic_bool *stop);
void threadlife_take(threadlife *tl, threadlife_extra *x);
/* Both steps at once: tl extended over its index grown since (evindex_grow_step, more
 * log bytes). Costs the runs and bytes added, not the whole log. */
void threadlife_extend(threadlife *tl);
/* Log bytes the next threadlife_read walks (the log's size past where the last walk
 * stopped): what an extension will cost. */
uint64_t threadlife_behind_bytes(const threadlife *tl);
/* Log bytes walked by every read taken into tl so far (tests: no walk from scratch). */
uint64_t threadlife_walked_bytes(const threadlife *tl);
/* Without gathering a thread's life (one of millions of runs takes seconds): its run
 * that starts first at or after t (dir > 0) or last before t (dir < 0), on any lane, as
 * threadlife_step would give it, into *out; false if none. Reads only the run-lane blocks
 * whose tid bounds can hold the thread, from t on. */
bool threadlife_seek_run(const evindex *ix, uint32_t tid, uint64_t t, int dir,
                         threadlife_run *out);
/* Free what threadlife_read gave without taking it; NULL is a no-op. */
void threadlife_extra_free(threadlife_extra *x);
bool threadlife_complete(const threadlife *tl);

uint32_t threadlife_tid(const threadlife *tl);
/* Runs in start order (they never overlap: a thread runs on one cap at a time). */
size_t threadlife_n_runs(const threadlife *tl);
const threadlife_run *threadlife_run_at(const threadlife *tl, size_t i);
/* Instants in time order (ties: file order). */
size_t threadlife_n_events(const threadlife *tl);
const threadlife_event *threadlife_event_at(const threadlife *tl, size_t i);

/* Index of the first run starting after t (dir > 0) or the last one starting before t
 * (dir < 0); SIZE_MAX if none. O(log n). */
size_t threadlife_step(const threadlife *tl, uint64_t t, int dir);
/* Index of the run containing t (start <= t < end, or start == t), else SIZE_MAX. */
size_t threadlife_run_containing(const threadlife *tl, uint64_t t);
/* Whether the thread runs on evindex lane `cap_lane` during [a, b) (a zero-length run at
 * t counts when a <= t < b). O(log n) whatever the zoom. */
bool threadlife_runs_in(const threadlife *tl, size_t cap_lane, uint64_t a, uint64_t b);
/* The thread running on capability `cap` at time t (a run with start <= t <= end), 0 if
 * none: who posted an event there then. O(log n). */
uint32_t threadlife_running_on(const evindex *ix, uint16_t cap, uint64_t t);
/* Sum of the thread's run time. */
uint64_t threadlife_run_ns(const threadlife *tl);

#endif
