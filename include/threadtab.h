/* threadtab: the log's Haskell threads keyed by thread id — creation, label,
 * migrations and wakeups: what the runs cannot tell (run time, run counts and stop
 * reasons are derived from the capabilities' runs by threadstats). GHC numbers threads
 * 1, 2, 3, ...: the table stores them in pages of 64 consecutive ids at about 8 bytes a
 * thread when nothing unusual happened to it; ids come from untrusted input, so any
 * id works, at more bytes a thread when ids are sparse. */
#ifndef ELOG_THREADTAB_H
#define ELOG_THREADTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why runs stopped, in classes a user reads (STOP_THREAD statuses grouped). */
enum threadtab_stop_class {
    THREADTAB_STOP_HEAP_OVERFLOW,   /* 1 */
    THREADTAB_STOP_STACK_OVERFLOW,  /* 2 */
    THREADTAB_STOP_YIELD,           /* 3 */
    THREADTAB_STOP_BLACKHOLE,       /* 8 */
    THREADTAB_STOP_MVAR,            /* 7, 20 */
    THREADTAB_STOP_STM,             /* 12 */
    THREADTAB_STOP_IO,              /* 9, 10, 11 (threadDelay), 13 */
    THREADTAB_STOP_FOREIGN,         /* 6, 16, 17 */
    THREADTAB_STOP_THROWTO,         /* 18 */
    THREADTAB_STOP_BLOCKED,         /* 4: blocked, reason not given */
    THREADTAB_STOP_FINISHED,        /* 5 */
    THREADTAB_STOP_OTHER,           /* 0, 19, unknown */
    THREADTAB_N_STOP_CLASSES
};

/* Class of a STOP_THREAD status. */
enum threadtab_stop_class threadtab_stop_class(uint16_t status);
/* Short column name of a class ("heap", "stack", "yield", "blackhole", "mvar", "stm",
 * "io", "foreign", "throwto", "blocked", "finished", "other"); static text. */
const char *threadtab_stop_class_name(enum threadtab_stop_class c);

#define THREADTAB_NO_TIME UINT64_MAX

/* A thread as handed out (a plain value, assembled from the compact storage). */
typedef struct threadtab_thread {
    uint32_t tid;
    uint16_t create_cap;        /* EVLOG_NO_CAP (0xffff) if no CREATE_THREAD was seen */
    uint32_t n_migrations, n_wakeups;
    uint64_t create_ns;         /* THREADTAB_NO_TIME if no CREATE_THREAD */
    uint64_t label_offset;      /* file offset of its latest THREAD_LABEL event, 0 if none */
} threadtab_thread;

typedef struct threadtab threadtab;

/* Empty table. Caller frees with threadtab_free. */
threadtab *threadtab_new(void);
void threadtab_free(threadtab *tt);

/* Record `tid` (zero counts, no creation time, cap 0xffff) if it is new: a thread that
 * only runs still gets a record. Adding a thread below the largest id so far unseals
 * the table. */
void threadtab_add(threadtab *tt, uint32_t tid);
/* Events, in the order they happen on each capability. A thread created twice keeps
 * its earliest creation. */
void threadtab_created(threadtab *tt, uint32_t tid, uint64_t time_ns, uint16_t cap);
void threadtab_migrated(threadtab *tt, uint32_t tid);
void threadtab_woken(threadtab *tt, uint32_t tid);
void threadtab_labelled(threadtab *tt, uint32_t tid, uint64_t label_offset);
/* The same four, given the caller's memory of where the pages (of 64 ids) it met are in
 * the table (zero it before the first call): a walk's events about the threads of a
 * few pages skip the hash. Only a speed-up: a slot that names another page, or one of
 * another table, is found out and replaced. Tables are left as the calls above leave
 * them. */
#define THREADTAB_NEAR 64
typedef struct threadtab_near {
    uint32_t page_idx1[THREADTAB_NEAR]; /* by page number % THREADTAB_NEAR: 1 + the
                                         * place of a page in the table, or 0 */
} threadtab_near;
void threadtab_add_near(threadtab *tt, uint32_t tid, threadtab_near *near);
void threadtab_created_near(threadtab *tt, uint32_t tid, uint64_t time_ns, uint16_t cap,
                            threadtab_near *near);
void threadtab_migrated_near(threadtab *tt, uint32_t tid, threadtab_near *near);
void threadtab_woken_near(threadtab *tt, uint32_t tid, threadtab_near *near);
/* Add everything `src` recorded into `dst` (src is left as it was): counts add up,
 * the earliest creation wins, the label recorded latest in the file wins. For builds
 * that split the log. */
void threadtab_merge(threadtab *dst, const threadtab *src);
/* The same, emptying src as it goes (each of its pages freed once added to dst, so the
 * two tables are never both held whole): src is then an empty table. */
void threadtab_merge_take(threadtab *dst, threadtab *src);
/* Done adding (for now): positions (threadtab_at, threadtab_index_of) are valid until
 * the next add. Adding more and sealing again is allowed (a growing log). O(threads/64). */
void threadtab_seal(threadtab *tt);

size_t threadtab_count(const threadtab *tt);
/* The i-th thread in ascending tid order (after threadtab_seal) into *out; false (and
 * *out untouched) if i >= count. O(log(threads/64)). */
bool threadtab_at(const threadtab *tt, size_t i, threadtab_thread *out);
/* Every thread in ascending tid order (after threadtab_seal), O(1) a thread: zero the
 * iterator, then each call fills *out and its index; false at the end. With
 * `labelled_only`, only the threads that have a label (the pages without skipped). */
typedef struct threadtab_iter {
    size_t page;                /* position in page order */
    uint64_t left;              /* bits of that page not yet handed out */
    bool started;
} threadtab_iter;
bool threadtab_next(const threadtab *tt, threadtab_iter *it, bool labelled_only,
                    threadtab_thread *out, size_t *index);
/* Start *it at index i (after threadtab_seal): threadtab_next, given the same
 * `labelled_only`, then hands out the threads from the i-th on (none if i >= count).
 * O(log(threads/64)); lets a pass over the table be cut into ranges. */
void threadtab_iter_at(const threadtab *tt, size_t i, bool labelled_only, threadtab_iter *it);
/* The thread with id `tid` into *out (out may be NULL: a presence test); false if
 * absent. */
bool threadtab_find(const threadtab *tt, uint32_t tid, threadtab_thread *out);
/* Index (in ascending order, after threadtab_seal) of `tid`, or SIZE_MAX. */
size_t threadtab_index_of(const threadtab *tt, uint32_t tid);
/* The same, remembering the last page of 64 ids looked up in *hint (zero it before the
 * first call): a pass over runs of nearby threads skips the hash. */
typedef struct threadtab_hint {
    uint32_t page_no1;          /* 1 + the page number remembered; 0: none */
    uint32_t rank;
    uint64_t present;
} threadtab_hint;
size_t threadtab_index_of_hint(const threadtab *tt, uint32_t tid, threadtab_hint *hint);
/* The ids of a page are those with the same tid >> THREADTAB_PAGE_BITS: a caller keeping
 * several hints picks the one for a tid with it (a wrong pick is only slower). */
#define THREADTAB_PAGE_BITS 6

size_t threadtab_bytes(const threadtab *tt);
bool threadtab_check(const threadtab *tt, char *why, size_t why_len);

#endif
