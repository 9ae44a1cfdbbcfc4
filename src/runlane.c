/* runlane: a capability's thread runs in structure-of-arrays form (13 bytes a run:
 * u32 start offset, u32 duration, u32 tid, one stop+flags byte) in chunks with a u64
 * base and a prefix sum each; rare wide values live in small sorted side tables. */
#include "runlane.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checkfail.h"
#include "xalloc.h"

/* A duration field of RUNLANE_DUR_ESC means "look it up in the long-run table". */
#define RUNLANE_DUR_ESC UINT32_MAX
/* The stop+flags byte: stop in the low 6 bits (RUNLANE_STOP_ESC: in the stop table),
 * flags in the top 2. */
#define RUNLANE_STOP_BITS 6
#define RUNLANE_STOP_ESC ((1u << RUNLANE_STOP_BITS) - 1)
#define RUNLANE_FLAG_MASK (RUNLANE_F_OPEN | RUNLANE_F_CLIPPED)

typedef struct runlane_chunk {
    uint64_t base_ns;           /* start of the chunk's first run */
    uint64_t prefix_ns;         /* total run time of runs [0, first) */
    size_t first;               /* index of the chunk's first run */
} runlane_chunk;

/* A side-table entry: run index and its wide value. Sorted by idx, unique. */
typedef struct runlane_side {
    size_t idx;
    uint64_t val;
} runlane_side;

typedef struct runlane_sidetab {
    runlane_side *e;            /* owned */
    size_t n, cap;
} runlane_sidetab;

struct runlane {
    uint32_t *off;              /* owned; start - chunk base */
    uint32_t *dur;              /* owned; end - start, or RUNLANE_DUR_ESC */
    uint32_t *tid;              /* owned */
    uint8_t *sf;                /* owned; stop | flags << RUNLANE_STOP_BITS */
    size_t n, cap;
    runlane_chunk *chunks;      /* owned */
    size_t n_chunks, cap_chunks;
    runlane_sidetab longs;      /* durations >= RUNLANE_DUR_ESC */
    runlane_sidetab stops;      /* stops >= RUNLANE_STOP_ESC */
    uint64_t total_ns;          /* total run time of all runs */
    uint64_t last_end_ns;       /* end of run n-1 (valid when n > 0) */
};

runlane *
runlane_new(void)
{
    runlane *rl = xcalloc(1, sizeof *rl);   /* caller frees with runlane_free */
    return rl;
}

void
runlane_free(runlane *rl)
{
    if (!rl)
        return;
    x_free(rl->off);
    x_free(rl->dur);
    x_free(rl->tid);
    x_free(rl->sf);
    x_free(rl->chunks);
    x_free(rl->longs.e);
    x_free(rl->stops.e);
    x_free(rl);
}

static void
runlane_side_push(runlane_sidetab *t, size_t idx, uint64_t val)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4;
        t->e = xreallocarray(t->e, t->cap, sizeof *t->e);   /* owned by the table */
    }
    t->e[t->n++] = (runlane_side){ idx, val };
}

/* Position of the first entry with idx >= i. */
static size_t
runlane_side_lower(const runlane_sidetab *t, size_t i)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->e[mid].idx < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Value stored for run i; 0 if the table has none (only a corrupt lane). */
static uint64_t
runlane_side_get(const runlane_sidetab *t, size_t i)
{
    size_t k = runlane_side_lower(t, i);
    return k < t->n && t->e[k].idx == i ? t->e[k].val : 0;
}

static void
runlane_side_trim(runlane_sidetab *t)
{
    if (t->cap == t->n)
        return;
    if (t->n)
        t->e = xreallocarray(t->e, t->n, sizeof *t->e);
    else {
        x_free(t->e);
        t->e = NULL;
    }
    t->cap = t->n;
}

static uint64_t
runlane_dur(const runlane *rl, size_t i)
{
    return rl->dur[i] == RUNLANE_DUR_ESC ? runlane_side_get(&rl->longs, i) : rl->dur[i];
}

/* Sum of durations of runs [from, to), a span inside one chunk. */
static uint64_t
runlane_sum_dur(const runlane *rl, size_t from, size_t to)
{
    uint64_t sum = 0;
    size_t k = SIZE_MAX;        /* side-table cursor, found at the first escape */
    for (size_t i = from; i < to; i++) {
        if (rl->dur[i] != RUNLANE_DUR_ESC) {
            sum += rl->dur[i];
            continue;
        }
        if (k == SIZE_MAX)
            k = runlane_side_lower(&rl->longs, i);
        while (k < rl->longs.n && rl->longs.e[k].idx < i)
            k++;
        if (k < rl->longs.n && rl->longs.e[k].idx == i)
            sum += rl->longs.e[k].val;
    }
    return sum;
}

static size_t
runlane_chunk_end(const runlane *rl, size_t c)
{
    return c + 1 < rl->n_chunks ? rl->chunks[c + 1].first : rl->n;
}

/* The chunk holding run i (< n). */
static size_t
runlane_chunk_of(const runlane *rl, size_t i)
{
    size_t lo = 0, hi = rl->n_chunks;       /* answer: last chunk with first <= i */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (rl->chunks[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Number of runs with start < t (inclusive: start <= t); *chunk gets the chunk of
 * the last such run when there is one. */
static size_t
runlane_count_starts(const runlane *rl, uint64_t t, bool inclusive, size_t *chunk)
{
    size_t lo = 0, hi = rl->n_chunks;       /* count chunks whose base qualifies */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t b = rl->chunks[mid].base_ns;
        if (b < t || (inclusive && b == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t c = lo - 1;
    *chunk = c;
    size_t first = rl->chunks[c].first, end = runlane_chunk_end(rl, c);
    uint64_t d = t - rl->chunks[c].base_ns;
    /* Offsets are u32: a distance beyond that range takes the whole chunk. */
    if (d > UINT32_MAX)
        return end;
    uint32_t d32 = (uint32_t)d;
    size_t a = first, z = end;
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (rl->off[mid] < d32 || (inclusive && rl->off[mid] == d32))
            a = mid + 1;
        else
            z = mid;
    }
    return a;
}

static void
runlane_grow(runlane *rl)
{
    size_t cap = rl->cap < 64 ? 64 : rl->cap + rl->cap / 2;
    /* All four arrays stay owned by the lane. */
    rl->off = xreallocarray(rl->off, cap, sizeof *rl->off);
    rl->dur = xreallocarray(rl->dur, cap, sizeof *rl->dur);
    rl->tid = xreallocarray(rl->tid, cap, sizeof *rl->tid);
    rl->sf = xreallocarray(rl->sf, cap, sizeof *rl->sf);
    rl->cap = cap;
}

static void
runlane_new_chunk(runlane *rl, uint64_t base_ns)
{
    if (rl->n_chunks == rl->cap_chunks) {
        rl->cap_chunks = rl->cap_chunks < 16 ? 16 : rl->cap_chunks * 2;
        rl->chunks = xreallocarray(rl->chunks, rl->cap_chunks, sizeof *rl->chunks);  /* owned */
    }
    rl->chunks[rl->n_chunks++] = (runlane_chunk){ base_ns, rl->total_ns, rl->n };
}

bool
runlane_append(runlane *rl, const runlane_run *run)
{
    uint64_t start = run->start_ns, end = run->end_ns;
    uint8_t flags = run->flags & RUNLANE_F_OPEN;
    if (rl->n > 0 && start < rl->last_end_ns) {
        start = rl->last_end_ns;
        flags |= RUNLANE_F_CLIPPED;
    }
    if (end < start)
        return false;

    if (rl->n_chunks == 0)
        runlane_new_chunk(rl, start);
    else {
        const runlane_chunk *ck = &rl->chunks[rl->n_chunks - 1];
        if (rl->n - ck->first >= RUNLANE_CHUNK || start - ck->base_ns > UINT32_MAX)
            runlane_new_chunk(rl, start);
    }
    if (rl->n == rl->cap)
        runlane_grow(rl);

    size_t i = rl->n;
    uint64_t dur = end - start;
    rl->off[i] = (uint32_t)(start - rl->chunks[rl->n_chunks - 1].base_ns);
    if (dur >= RUNLANE_DUR_ESC) {
        rl->dur[i] = RUNLANE_DUR_ESC;
        runlane_side_push(&rl->longs, i, dur);
    } else
        rl->dur[i] = (uint32_t)dur;
    rl->tid[i] = run->tid;
    unsigned stop = run->stop;
    if (stop >= RUNLANE_STOP_ESC) {
        runlane_side_push(&rl->stops, i, stop);
        stop = RUNLANE_STOP_ESC;
    }
    rl->sf[i] = (uint8_t)(stop | (unsigned)flags << RUNLANE_STOP_BITS);
    rl->n++;
    rl->total_ns += dur;
    rl->last_end_ns = end;
    return true;
}

void
runlane_seal(runlane *rl)
{
    if (rl->cap > rl->n) {
        size_t cap = rl->n ? rl->n : 1;
        rl->off = xreallocarray(rl->off, cap, sizeof *rl->off);
        rl->dur = xreallocarray(rl->dur, cap, sizeof *rl->dur);
        rl->tid = xreallocarray(rl->tid, cap, sizeof *rl->tid);
        rl->sf = xreallocarray(rl->sf, cap, sizeof *rl->sf);
        rl->cap = cap;
    }
    if (rl->cap_chunks > rl->n_chunks && rl->n_chunks) {
        rl->chunks = xreallocarray(rl->chunks, rl->n_chunks, sizeof *rl->chunks);
        rl->cap_chunks = rl->n_chunks;
    }
    runlane_side_trim(&rl->longs);
    runlane_side_trim(&rl->stops);
}

size_t
runlane_count(const runlane *rl)
{
    return rl->n;
}

static uint64_t
runlane_start_in(const runlane *rl, size_t c, size_t i)
{
    return rl->chunks[c].base_ns + rl->off[i];
}

void
runlane_get(const runlane *rl, size_t i, runlane_run *out)
{
    memset(out, 0, sizeof *out);
    if (i >= rl->n)
        return;
    size_t c = runlane_chunk_of(rl, i);
    out->start_ns = runlane_start_in(rl, c, i);
    out->end_ns = out->start_ns + runlane_dur(rl, i);
    out->tid = rl->tid[i];
    unsigned stop = rl->sf[i] & RUNLANE_STOP_ESC;
    out->stop = (uint8_t)(stop == RUNLANE_STOP_ESC ? runlane_side_get(&rl->stops, i) : stop);
    out->flags = (uint8_t)(rl->sf[i] >> RUNLANE_STOP_BITS);
}

size_t
runlane_first_after(const runlane *rl, uint64_t t)
{
    /* Runs starting before t: all but the last end by t (they do not overlap), so
     * only that one can still be running at t. Runs starting at or after t qualify. */
    size_t c = 0;
    size_t k = runlane_count_starts(rl, t, false, &c);
    if (k == 0)
        return 0;
    uint64_t end = runlane_start_in(rl, c, k - 1) + runlane_dur(rl, k - 1);
    return end > t ? k - 1 : k;
}

size_t
runlane_last_starting_by(const runlane *rl, uint64_t t)
{
    size_t c = 0;
    size_t k = runlane_count_starts(rl, t, true, &c);
    return k ? k - 1 : SIZE_MAX;
}

/* Run time inside [0, t): whole runs before the last one starting before t, from
 * the prefix sums, plus that run clipped at t. */
static uint64_t
runlane_busy_before(const runlane *rl, uint64_t t)
{
    size_t c = 0;
    size_t k = runlane_count_starts(rl, t, false, &c);
    if (k == 0)
        return 0;
    size_t i = k - 1;
    uint64_t start = runlane_start_in(rl, c, i);
    uint64_t end = start + runlane_dur(rl, i);
    uint64_t before = rl->chunks[c].prefix_ns + runlane_sum_dur(rl, rl->chunks[c].first, i);
    return before + ((end < t ? end : t) - start);
}

uint64_t
runlane_busy_ns(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    return runlane_busy_before(rl, t1) - runlane_busy_before(rl, t0);
}

size_t
runlane_count_in(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    /* Overlapping runs are those from the first that can overlap [t0, ...) up to the
     * last that starts before t1. */
    size_t c = 0;
    size_t hi = runlane_count_starts(rl, t1, false, &c);
    size_t lo = runlane_first_after(rl, t0);
    return hi > lo ? hi - lo : 0;
}

uint64_t
runlane_prefix_ns(const runlane *rl, size_t i)
{
    if (i >= rl->n)
        return rl->total_ns;
    size_t c = runlane_chunk_of(rl, i);
    return rl->chunks[c].prefix_ns + runlane_sum_dur(rl, rl->chunks[c].first, i);
}

size_t
runlane_bytes(const runlane *rl)
{
    return sizeof *rl +
           rl->cap * (sizeof *rl->off + sizeof *rl->dur + sizeof *rl->tid + sizeof *rl->sf) +
           rl->cap_chunks * sizeof *rl->chunks + rl->longs.cap * sizeof *rl->longs.e +
           rl->stops.cap * sizeof *rl->stops.e;
}

/* A side table is sorted, in range, marked by `esc` in its runs and holds only
 * values that need it. */
static bool
runlane_check_side(const runlane *rl, const runlane_sidetab *t, const char *name,
                   bool is_long, char *why, size_t why_len)
{
    if (t->n > t->cap)
        return checkfail(why, why_len, "%s table: n %zu > cap %zu", name, t->n, t->cap);
    size_t marked = 0;
    for (size_t i = 0; i < rl->n; i++)
        marked += is_long ? rl->dur[i] == RUNLANE_DUR_ESC
                          : (rl->sf[i] & RUNLANE_STOP_ESC) == RUNLANE_STOP_ESC;
    if (marked != t->n)
        return checkfail(why, why_len, "%s table: %zu entries but %zu escaped runs", name,
                            t->n, marked);
    for (size_t k = 0; k < t->n; k++) {
        const runlane_side *e = &t->e[k];
        if (e->idx >= rl->n)
            return checkfail(why, why_len, "%s table entry %zu: run %zu out of range",
                                name, k, e->idx);
        if (k > 0 && e->idx <= t->e[k - 1].idx)
            return checkfail(why, why_len, "%s table entry %zu: not sorted", name, k);
        bool esc = is_long ? rl->dur[e->idx] == RUNLANE_DUR_ESC
                           : (rl->sf[e->idx] & RUNLANE_STOP_ESC) == RUNLANE_STOP_ESC;
        if (!esc)
            return checkfail(why, why_len, "%s table entry %zu: run %zu is not escaped",
                                name, k, e->idx);
        bool fits = is_long ? e->val >= RUNLANE_DUR_ESC
                            : e->val >= RUNLANE_STOP_ESC && e->val <= UINT8_MAX;
        if (!fits)
            return checkfail(why, why_len, "%s table entry %zu: value %llu out of range",
                                name, k, (unsigned long long)e->val);
    }
    return true;
}

bool
runlane_check(const runlane *rl, char *why, size_t why_len)
{
    if (rl->n > rl->cap || rl->n_chunks > rl->cap_chunks)
        return checkfail(why, why_len, "count beyond capacity");
    if ((rl->n == 0) != (rl->n_chunks == 0))
        return checkfail(why, why_len, "%zu runs in %zu chunks", rl->n, rl->n_chunks);
    if (!runlane_check_side(rl, &rl->longs, "long-run", true, why, why_len) ||
        !runlane_check_side(rl, &rl->stops, "stop", false, why, why_len))
        return false;

    uint64_t sum = 0, prev_end = 0;
    for (size_t c = 0; c < rl->n_chunks; c++) {
        const runlane_chunk *ck = &rl->chunks[c];
        size_t end = runlane_chunk_end(rl, c);
        if (c == 0 && ck->first != 0)
            return checkfail(why, why_len, "chunk 0 starts at run %zu", ck->first);
        /* Chunk c-1 was checked to end after it starts, so this also orders firsts. */
        if (end > rl->n)
            return checkfail(why, why_len, "chunk %zu: ends at run %zu of %zu", c, end,
                                rl->n);
        if (end <= ck->first || end - ck->first > RUNLANE_CHUNK)
            return checkfail(why, why_len, "chunk %zu: %zu runs", c,
                                end > ck->first ? end - ck->first : 0);
        if (rl->off[ck->first] != 0)
            return checkfail(why, why_len, "chunk %zu: base %llu is not run %zu's start",
                                c, (unsigned long long)ck->base_ns, ck->first);
        if (ck->prefix_ns != sum)
            return checkfail(why, why_len, "chunk %zu: prefix %llu, recount %llu", c,
                                (unsigned long long)ck->prefix_ns, (unsigned long long)sum);
        if (c > 0) {
            /* A chunk ends early only when its next start is out of u32 offset range. */
            const runlane_chunk *pk = &rl->chunks[c - 1];
            if (ck->first - pk->first < RUNLANE_CHUNK &&
                ck->base_ns - pk->base_ns <= UINT32_MAX)
                return checkfail(why, why_len, "chunk %zu: split early without cause", c);
        }
        for (size_t i = ck->first; i < end; i++) {
            if (ck->base_ns > UINT64_MAX - rl->off[i])
                return checkfail(why, why_len, "run %zu: start overflows", i);
            uint64_t start = ck->base_ns + rl->off[i];
            uint64_t dur = runlane_dur(rl, i);
            if (start > UINT64_MAX - dur)
                return checkfail(why, why_len, "run %zu: end overflows", i);
            if (i > 0 && start < prev_end)
                return checkfail(why, why_len, "run %zu: starts at %llu before run %zu ends"
                                    " at %llu", i, (unsigned long long)start, i - 1,
                                    (unsigned long long)prev_end);
            unsigned flags = rl->sf[i] >> RUNLANE_STOP_BITS;
            if (flags & ~(unsigned)RUNLANE_FLAG_MASK)
                return checkfail(why, why_len, "run %zu: unknown flags %#x", i, flags);
            if ((flags & RUNLANE_F_CLIPPED) && (i == 0 || start != prev_end))
                return checkfail(why, why_len, "run %zu: clipped but does not start at"
                                    " the previous run's end", i);
            sum += dur;
            prev_end = start + dur;
        }
    }
    if (rl->total_ns != sum)
        return checkfail(why, why_len, "total %llu, recount %llu",
                            (unsigned long long)rl->total_ns, (unsigned long long)sum);
    if (rl->n > 0 && rl->last_end_ns != prev_end)
        return checkfail(why, why_len, "last end %llu, recount %llu",
                            (unsigned long long)rl->last_end_ns, (unsigned long long)prev_end);
    return true;
}

bool
runlane_test_corrupt(runlane *rl, runlane_corrupt what, size_t i)
{
    if (i >= rl->n)
        return false;
    size_t c = runlane_chunk_of(rl, i);
    size_t first = rl->chunks[c].first;
    switch (what) {
    case RUNLANE_CORRUPT_ORDER:
        /* Move run i back onto run i-1, which must have length to overlap. */
        if (i == first || runlane_dur(rl, i - 1) == 0)
            return false;
        rl->off[i] = rl->off[i - 1];
        return true;
    case RUNLANE_CORRUPT_PREFIX:
        rl->chunks[c].prefix_ns++;
        return true;
    case RUNLANE_CORRUPT_BASE:
        rl->off[first] = 1;
        return true;
    case RUNLANE_CORRUPT_FLAGS: {
        uint64_t start = runlane_start_in(rl, c, i);
        if (i > 0) {
            size_t pc = runlane_chunk_of(rl, i - 1);
            if (runlane_start_in(rl, pc, i - 1) + runlane_dur(rl, i - 1) == start)
                return false;
        }
        rl->sf[i] |= RUNLANE_F_CLIPPED << RUNLANE_STOP_BITS;
        return true;
    }
    case RUNLANE_CORRUPT_LONG:
        if (rl->dur[i] == RUNLANE_DUR_ESC)
            return false;
        rl->dur[i] = RUNLANE_DUR_ESC;
        return true;
    case RUNLANE_CORRUPT_TOTAL:
        rl->total_ns++;
        return true;
    case RUNLANE_CORRUPT_SPLIT: {
        if (i == first)
            return false;
        size_t end = runlane_chunk_end(rl, c);
        uint64_t prefix = rl->chunks[c].prefix_ns + runlane_sum_dur(rl, first, i);
        uint32_t shift = rl->off[i];
        runlane_new_chunk(rl, 0);               /* room for one more */
        memmove(&rl->chunks[c + 2], &rl->chunks[c + 1],
                (rl->n_chunks - c - 2) * sizeof *rl->chunks);
        rl->chunks[c + 1] = (runlane_chunk){ rl->chunks[c].base_ns + shift, prefix, i };
        for (size_t j = i; j < end; j++)
            rl->off[j] -= shift;
        return true;
    }
    }
    return false;
}
