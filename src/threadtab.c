/* threadtab: 32-byte per-thread records in a growable array, found by thread id
 * through a dense array for small ids and an open-addressing (linear probing) hash of
 * 8-byte slots for the rest. Memory is proportional to the number of distinct ids,
 * never to an id's value. */
#include "threadtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define THREADTAB_NO_CAP 0xffffu
#define THREADTAB_MIN_SLOTS 16u
#define THREADTAB_DENSE_MIN 256u

/* A hash slot: the id and 1 + the index of its record; idx1 == 0 marks an empty slot. */
typedef struct threadtab_slot {
    uint32_t tid;
    uint32_t idx1;
} threadtab_slot;

struct threadtab {
    threadtab_thread *threads;  /* owned; insertion order, ascending tid once sealed */
    size_t n_threads, cap_threads;
    threadtab_slot *slots;      /* owned; ids >= dense_len; a power of two, load <= 1/2 */
    size_t n_slots, n_hashed;
    /* GHC numbers threads 1, 2, 3, ...: ids below dense_len are kept in dense[tid]
     * (1 + index, 0 = absent) instead of the hash, one cache miss instead of a probe.
     * dense_len is at most 2 * n_threads + THREADTAB_DENSE_MIN, so memory still
     * follows the number of threads, not the ids' values. */
    uint32_t *dense;            /* owned */
    size_t dense_len;
    size_t n_at_rehash;         /* n_threads at the last rebuild */
    bool sealed;                /* threads[] is sorted and no thread was added since */
};

static const char *const threadtab_class_names[THREADTAB_N_STOP_CLASSES] = {
    [THREADTAB_STOP_HEAP_OVERFLOW] = "heap",
    [THREADTAB_STOP_STACK_OVERFLOW] = "stack",
    [THREADTAB_STOP_YIELD] = "yield",
    [THREADTAB_STOP_BLACKHOLE] = "blackhole",
    [THREADTAB_STOP_MVAR] = "mvar",
    [THREADTAB_STOP_STM] = "stm",
    [THREADTAB_STOP_IO] = "io",
    [THREADTAB_STOP_FOREIGN] = "foreign",
    [THREADTAB_STOP_THROWTO] = "throwto",
    [THREADTAB_STOP_BLOCKED] = "blocked",
    [THREADTAB_STOP_FINISHED] = "finished",
    [THREADTAB_STOP_OTHER] = "other",
};

enum threadtab_stop_class
threadtab_stop_class(uint16_t status)
{
    switch (status) {
    case 1: return THREADTAB_STOP_HEAP_OVERFLOW;
    case 2: return THREADTAB_STOP_STACK_OVERFLOW;
    case 3: return THREADTAB_STOP_YIELD;
    case 4: return THREADTAB_STOP_BLOCKED;
    case 5: return THREADTAB_STOP_FINISHED;
    case 6: case 16: case 17: return THREADTAB_STOP_FOREIGN;
    case 7: case 20: return THREADTAB_STOP_MVAR;
    case 8: return THREADTAB_STOP_BLACKHOLE;
    case 9: case 10: case 11: case 13: return THREADTAB_STOP_IO;
    case 12: return THREADTAB_STOP_STM;
    case 18: return THREADTAB_STOP_THROWTO;
    default: return THREADTAB_STOP_OTHER;
    }
}

const char *
threadtab_stop_class_name(enum threadtab_stop_class c)
{
    if ((unsigned)c >= THREADTAB_N_STOP_CLASSES)
        return "?";
    return threadtab_class_names[c];
}

/* Ids are untrusted and often consecutive: mix all bits (murmur3 finalizer) so that
 * neither runs nor strided ids pile up in one probe chain. */
static inline size_t
threadtab_hash(uint32_t tid)
{
    uint32_t h = tid;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

/* The slot holding `tid`, or the empty slot where it would go. */
static threadtab_slot *
threadtab_probe(const threadtab *tt, uint32_t tid)
{
    size_t mask = tt->n_slots - 1;
    for (size_t i = threadtab_hash(tid) & mask;; i = (i + 1) & mask) {
        threadtab_slot *sl = &tt->slots[i];
        if (sl->idx1 == 0 || sl->tid == tid)
            return sl;
    }
}

/* Smallest power of two >= 2 * n_hashed (and >= THREADTAB_MIN_SLOTS). */
static size_t
threadtab_slots_for(size_t n_hashed)
{
    size_t n = THREADTAB_MIN_SLOTS;
    while (n < 2 * n_hashed)
        n *= 2;
    return n;
}

/* Rebuild the dense array (`dense_len` entries) and the hash from threads[], after
 * growth or a sort. The hash gets as many slots as the ids beyond the dense array need. */
static void
threadtab_rehash(threadtab *tt, size_t dense_len)
{
    x_free(tt->dense);
    tt->dense = xcalloc(dense_len, sizeof *tt->dense);  /* owned by tt */
    tt->dense_len = dense_len;
    size_t n_hashed = 0;
    for (size_t i = 0; i < tt->n_threads; i++)
        n_hashed += tt->threads[i].tid >= dense_len;
    x_free(tt->slots);
    tt->n_slots = threadtab_slots_for(n_hashed);
    tt->slots = xcalloc(tt->n_slots, sizeof *tt->slots);   /* owned by tt */
    tt->n_hashed = n_hashed;
    tt->n_at_rehash = tt->n_threads;
    for (size_t i = 0; i < tt->n_threads; i++) {
        uint32_t tid = tt->threads[i].tid;
        if (tid < dense_len) {
            tt->dense[tid] = (uint32_t)(i + 1);
            continue;
        }
        threadtab_slot *sl = threadtab_probe(tt, tid);
        sl->tid = tid;
        sl->idx1 = (uint32_t)(i + 1);
    }
}

/* 1 + index of `tid`'s record, or 0. */
static inline uint32_t
threadtab_lookup(const threadtab *tt, uint32_t tid)
{
    if (tid < tt->dense_len)
        return tt->dense[tid];
    return threadtab_probe(tt, tid)->idx1;
}

threadtab *
threadtab_new(void)
{
    threadtab *tt = xcalloc(1, sizeof *tt);             /* caller frees: threadtab_free */
    threadtab_rehash(tt, THREADTAB_DENSE_MIN);
    tt->sealed = true;                                  /* empty is sorted */
    return tt;
}

void
threadtab_free(threadtab *tt)
{
    if (!tt)
        return;
    x_free(tt->threads);
    x_free(tt->slots);
    x_free(tt->dense);
    x_free(tt);
}

threadtab_thread *
threadtab_get_or_add(threadtab *tt, uint32_t tid)
{
    uint32_t found = threadtab_lookup(tt, tid);
    if (found)
        return &tt->threads[found - 1];
    if (tt->n_threads == tt->cap_threads) {
        tt->cap_threads = tt->cap_threads ? 2 * tt->cap_threads : 16;
        /* owned by tt */
        tt->threads = xreallocarray(tt->threads, tt->cap_threads, sizeof *tt->threads);
    }
    /* idx1 is 32-bit: 2^32 - 1 threads would need ~128 GiB, so it cannot overflow. */
    threadtab_thread *th = &tt->threads[tt->n_threads++];
    memset(th, 0, sizeof *th);
    th->tid = tid;
    th->create_cap = THREADTAB_NO_CAP;
    th->create_ns = THREADTAB_NO_TIME;
    /* A longer dense array when the ids so far are dense enough and the table grew by a
     * quarter since the last rebuild (so any order of ids costs amortised O(1) rebuilds
     * a thread); else the hash, rebuilt with room to spare when full. Either rebuild
     * places the new record too. */
    size_t dense_want = 2 * tt->n_threads + THREADTAB_DENSE_MIN;
    bool longer = tid < dense_want && 4 * tt->n_threads >= 5 * tt->n_at_rehash;
    if (tid < tt->dense_len) {
        tt->dense[tid] = (uint32_t)tt->n_threads;
    } else if (longer || 2 * (tt->n_hashed + 1) > tt->n_slots) {
        threadtab_rehash(tt, longer ? dense_want : tt->dense_len);
    } else {
        threadtab_slot *sl = threadtab_probe(tt, tid);
        sl->tid = tid;
        sl->idx1 = (uint32_t)tt->n_threads;
        tt->n_hashed++;
    }
    if (tt->sealed && tt->n_threads > 1 && tt->threads[tt->n_threads - 2].tid > tid)
        tt->sealed = false;
    return th;
}

/* Keeps the earliest creation: caps report in their own order, not globally sorted. */
void
threadtab_created(threadtab *tt, uint32_t tid, uint64_t time_ns, uint16_t cap)
{
    threadtab_thread *th = threadtab_get_or_add(tt, tid);
    if (th->create_ns == THREADTAB_NO_TIME || time_ns < th->create_ns) {
        th->create_ns = time_ns;
        th->create_cap = cap;
    }
}

void
threadtab_migrated(threadtab *tt, uint32_t tid)
{
    threadtab_get_or_add(tt, tid)->n_migrations++;
}

void
threadtab_woken(threadtab *tt, uint32_t tid)
{
    threadtab_get_or_add(tt, tid)->n_wakeups++;
}

void
threadtab_labelled(threadtab *tt, uint32_t tid, uint64_t label_offset)
{
    threadtab_get_or_add(tt, tid)->label_offset = label_offset;
}

void
threadtab_merge(threadtab *dst, const threadtab *src)
{
    for (size_t i = 0; i < src->n_threads; i++) {
        const threadtab_thread *s = &src->threads[i];
        threadtab_thread *d = threadtab_get_or_add(dst, s->tid);
        if (s->create_ns != THREADTAB_NO_TIME &&
            (d->create_ns == THREADTAB_NO_TIME || s->create_ns < d->create_ns)) {
            d->create_ns = s->create_ns;
            d->create_cap = s->create_cap;
        }
        d->n_migrations += s->n_migrations;
        d->n_wakeups += s->n_wakeups;
        if (s->label_offset > d->label_offset)
            d->label_offset = s->label_offset;
    }
}

/* Sort key: sorting moves (tid, index) pairs, then the records once each. */
typedef struct threadtab_key {
    uint32_t tid, idx;
} threadtab_key;

static int
threadtab_cmp_key(const void *a, const void *b)
{
    const threadtab_key *x = a, *y = b;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void
threadtab_seal(threadtab *tt)
{
    if (!tt->sealed) {
        size_t n = tt->n_threads;
        threadtab_key *keys = xmalloc((n + 1) * sizeof *keys);             /* freed below */
        for (size_t i = 0; i < n; i++)
            keys[i] = (threadtab_key){ tt->threads[i].tid, (uint32_t)i };
        qsort(keys, n, sizeof *keys, threadtab_cmp_key);
        threadtab_thread *sorted = xmalloc((n + 1) * sizeof *sorted);      /* owned by tt */
        for (size_t i = 0; i < n; i++)
            sorted[i] = tt->threads[keys[i].idx];
        x_free(keys);
        x_free(tt->threads);
        tt->threads = sorted;
        tt->cap_threads = n + 1;
        tt->sealed = true;
    }
    if (tt->cap_threads > tt->n_threads && tt->n_threads > 0) {
        tt->threads = xreallocarray(tt->threads, tt->n_threads, sizeof *tt->threads);
        tt->cap_threads = tt->n_threads;
    }
    /* New indices; the dense array cut to the largest id it holds, the hash sized to fit. */
    size_t dense_len = 0;
    for (size_t i = 0; i < tt->n_threads; i++)
        if (tt->threads[i].tid < tt->dense_len && tt->threads[i].tid >= dense_len)
            dense_len = (size_t)tt->threads[i].tid + 1;
    threadtab_rehash(tt, dense_len < THREADTAB_DENSE_MIN ? THREADTAB_DENSE_MIN : dense_len);
}

size_t
threadtab_count(const threadtab *tt)
{
    return tt->n_threads;
}

const threadtab_thread *
threadtab_at(const threadtab *tt, size_t i)
{
    return i < tt->n_threads ? &tt->threads[i] : NULL;
}

const threadtab_thread *
threadtab_find(const threadtab *tt, uint32_t tid)
{
    uint32_t found = threadtab_lookup(tt, tid);
    return found ? &tt->threads[found - 1] : NULL;
}

size_t
threadtab_index_of(const threadtab *tt, uint32_t tid)
{
    uint32_t found = threadtab_lookup(tt, tid);
    return found ? (size_t)found - 1 : SIZE_MAX;
}

size_t
threadtab_bytes(const threadtab *tt)
{
    return sizeof *tt + tt->cap_threads * sizeof *tt->threads +
           tt->n_slots * sizeof *tt->slots + tt->dense_len * sizeof *tt->dense;
}

static bool
threadtab_fail(char *why, size_t why_len, const char *msg, uint32_t tid)
{
    if (why && why_len)
        snprintf(why, why_len, "%s (tid %u)", msg, tid);
    return false;
}

bool
threadtab_check(const threadtab *tt, char *why, size_t why_len)
{
    if (tt->n_slots < THREADTAB_MIN_SLOTS || (tt->n_slots & (tt->n_slots - 1)) != 0)
        return threadtab_fail(why, why_len, "slot count is not a power of two", 0);
    if (tt->n_threads > tt->cap_threads && tt->n_threads > 0)
        return threadtab_fail(why, why_len, "more threads than capacity", 0);
    if (2 * tt->n_hashed > tt->n_slots)
        return threadtab_fail(why, why_len, "hash more than half full", 0);
    if (tt->dense_len > 2 * tt->n_threads + THREADTAB_DENSE_MIN)
        return threadtab_fail(why, why_len, "dense array longer than the ids need", 0);
    size_t used = 0;
    for (size_t i = 0; i < tt->n_slots; i++) {
        const threadtab_slot *sl = &tt->slots[i];
        if (sl->idx1 == 0)
            continue;
        used++;
        if (sl->idx1 > tt->n_threads || tt->threads[sl->idx1 - 1].tid != sl->tid)
            return threadtab_fail(why, why_len, "slot points at the wrong record", sl->tid);
    }
    size_t dense_used = 0;
    for (size_t i = 0; i < tt->dense_len; i++)
        dense_used += tt->dense[i] != 0;
    size_t dense_want = 0;
    for (size_t i = 0; i < tt->n_threads; i++)
        dense_want += tt->threads[i].tid < tt->dense_len;
    if (dense_used != dense_want)
        return threadtab_fail(why, why_len, "dense table has stray entries", 0);
    if (used + dense_want != tt->n_threads || used != tt->n_hashed)
        return threadtab_fail(why, why_len, "slot count differs from thread count", 0);
    for (size_t i = 0; i < tt->n_threads; i++) {
        const threadtab_thread *th = &tt->threads[i];
        /* Probing must reach the record: no empty slot breaks its chain. */
        if (th->tid >= tt->dense_len && threadtab_probe(tt, th->tid)->idx1 != i + 1)
            return threadtab_fail(why, why_len, "record not found through the hash", th->tid);
        if (th->tid < tt->dense_len && tt->dense[th->tid] != i + 1)
            return threadtab_fail(why, why_len, "dense entry points at the wrong record",
                                  th->tid);
        if (threadtab_index_of(tt, th->tid) != i)
            return threadtab_fail(why, why_len, "record not found through the hash", th->tid);
        if (tt->sealed && i > 0 && tt->threads[i - 1].tid >= th->tid)
            return threadtab_fail(why, why_len, "sealed table not in ascending tid order",
                                  th->tid);
    }
    return true;
}
