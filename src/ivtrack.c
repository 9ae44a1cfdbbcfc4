/* ivtrack: a plain sorted array of kinded intervals (GC phases are few) cut into chunks
 * of IVTRACK_CHUNK, each with a header (first start, time of each kind before it). A
 * search goes over the small header array, then inside one chunk; per-kind time in a
 * window scans from each end to the nearer chunk edge, or clips a narrow window's few. */
#include "ivtrack.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checkfail.h"
#include "xalloc.h"

#define IVTRACK_FLAG_MASK (IVTRACK_F_OPEN | IVTRACK_F_CLIPPED)

_Static_assert(IVTRACK_CHUNK > 0 && (IVTRACK_CHUNK & (IVTRACK_CHUNK - 1)) == 0,
               "IVTRACK_CHUNK must be a power of two");

typedef struct ivtrack_cum {
    uint64_t ns[IVTRACK_KINDS];
} ivtrack_cum;

/* Header of chunk c, which holds intervals [c * IVTRACK_CHUNK, (c + 1) * IVTRACK_CHUNK). */
typedef struct ivtrack_chunk {
    uint64_t start_ns;          /* start of the chunk's first interval */
    ivtrack_cum before;         /* time of each kind in the intervals before the chunk */
} ivtrack_chunk;

struct ivtrack {
    ivtrack_iv *iv;             /* owned; cap entries, n used */
    ivtrack_chunk *ch;          /* owned; ivtrack_chunks(cap) entries, ivtrack_chunks(n) used */
    size_t n, cap;
    ivtrack_cum total;          /* time of each kind in all intervals */
};

/* Chunks covering n intervals (no overflow near SIZE_MAX). */
static size_t
ivtrack_chunks(size_t n)
{
    return n / IVTRACK_CHUNK + (n % IVTRACK_CHUNK != 0);
}

ivtrack *
ivtrack_new(void)
{
    ivtrack *tr = xcalloc(1, sizeof *tr);   /* caller frees with ivtrack_free */
    return tr;
}

void
ivtrack_free(ivtrack *tr)
{
    if (!tr)
        return;
    x_free(tr->iv);
    x_free(tr->ch);
    x_free(tr);
}

bool
ivtrack_append(ivtrack *tr, const ivtrack_iv *iv)
{
    if (iv->kind >= IVTRACK_KINDS)
        return false;
    ivtrack_iv v = *iv;
    v.flags &= IVTRACK_F_OPEN;
    if (tr->n > 0 && v.start_ns < tr->iv[tr->n - 1].end_ns) {
        v.start_ns = tr->iv[tr->n - 1].end_ns;
        v.flags |= IVTRACK_F_CLIPPED;
    }
    if (v.end_ns < v.start_ns)
        return false;
    if (tr->n == tr->cap) {
        tr->cap = tr->cap < 16 ? 16 : tr->cap * 2;
        tr->iv = xreallocarray(tr->iv, tr->cap, sizeof *tr->iv);     /* owned by tr */
        tr->ch = xreallocarray(tr->ch, ivtrack_chunks(tr->cap),
                               sizeof *tr->ch);                      /* owned by tr */
    }
    if (tr->n % IVTRACK_CHUNK == 0)
        tr->ch[tr->n / IVTRACK_CHUNK] = (ivtrack_chunk){ v.start_ns, tr->total };
    tr->iv[tr->n++] = v;
    tr->total.ns[v.kind] += v.end_ns - v.start_ns;
    return true;
}

void
ivtrack_seal(ivtrack *tr)
{
    if (tr->cap == tr->n || tr->n == 0)
        return;
    tr->iv = xreallocarray(tr->iv, tr->n, sizeof *tr->iv);
    tr->ch = xreallocarray(tr->ch, ivtrack_chunks(tr->n), sizeof *tr->ch);
    tr->cap = tr->n;
}

size_t
ivtrack_count(const ivtrack *tr)
{
    return tr->n;
}

const ivtrack_iv *
ivtrack_get(const ivtrack *tr, size_t i)
{
    return i < tr->n ? &tr->iv[i] : NULL;
}

void
ivtrack_set_ref(ivtrack *tr, size_t i, uint32_t ref)
{
    if (i < tr->n)
        tr->iv[i].ref = ref;
}

/* Number of intervals with start < t (inclusive: start <= t): first the last chunk
 * whose first interval counts, then within it. */
static size_t
ivtrack_count_starts_from(const ivtrack *tr, uint64_t t, bool inclusive, size_t c_from)
{
    size_t lo = 0, hi = ivtrack_chunks(tr->n);
    /* Chunk c_from's first interval is known to count: gallop forward from there. */
    if (c_from > 0 && c_from < hi) {
        size_t step = 1;
        lo = c_from + 1;
        while (lo + step < hi && (tr->ch[lo + step - 1].start_ns < t ||
                                  (inclusive && tr->ch[lo + step - 1].start_ns == t))) {
            lo += step;
            step *= 2;
        }
        if (lo + step < hi)
            hi = lo + step;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = tr->ch[mid].start_ns;
        if (s < t || (inclusive && s == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    /* Chunk lo - 1's first interval counts and chunk lo's (if any) does not. */
    hi = tr->n / IVTRACK_CHUNK >= lo ? lo * IVTRACK_CHUNK : tr->n;
    lo = (lo - 1) * IVTRACK_CHUNK + 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = tr->iv[mid].start_ns;
        if (s < t || (inclusive && s == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t
ivtrack_count_starts(const ivtrack *tr, uint64_t t, bool inclusive)
{
    return ivtrack_count_starts_from(tr, t, inclusive, 0);
}

size_t
ivtrack_first_after(const ivtrack *tr, uint64_t t)
{
    /* Of the intervals starting before t only the last can still be open at t. */
    size_t k = ivtrack_count_starts(tr, t, false);
    return k > 0 && tr->iv[k - 1].end_ns > t ? k - 1 : k;
}

size_t
ivtrack_last_starting_by(const ivtrack *tr, uint64_t t)
{
    size_t k = ivtrack_count_starts(tr, t, true);
    return k ? k - 1 : SIZE_MAX;
}

/* Time of `kind` in intervals [lo, hi). */
static uint64_t
ivtrack_scan(const ivtrack *tr, unsigned kind, size_t lo, size_t hi)
{
    uint64_t sum = 0;
    for (size_t i = lo; i < hi; i++) {
        const ivtrack_iv *v = &tr->iv[i];
        sum += v->kind == kind ? v->end_ns - v->start_ns : 0;
    }
    return sum;
}

/* Time of `kind` in intervals [0, j), j < n: from j's chunk's stored sum forwards, or
 * from the next chunk's (or the total, past the last chunk) backwards, whichever edge
 * is nearer. The backward difference is exact: every partial sum fits in uint64_t. */
static uint64_t
ivtrack_prefix(const ivtrack *tr, unsigned kind, size_t j)
{
    size_t c = j / IVTRACK_CHUNK, lo = c * IVTRACK_CHUNK;
    size_t hi = tr->n - lo > IVTRACK_CHUNK ? lo + IVTRACK_CHUNK : tr->n;
    if (j - lo <= hi - j)
        return tr->ch[c].before.ns[kind] + ivtrack_scan(tr, kind, lo, j);
    const ivtrack_cum *next = hi < tr->n ? &tr->ch[c + 1].before : &tr->total;
    return next->ns[kind] - ivtrack_scan(tr, kind, j, hi);
}

/* Time of `kind` inside [0, t), k being the number of intervals starting before t. */
static uint64_t
ivtrack_kind_before(const ivtrack *tr, unsigned kind, uint64_t t, size_t k)
{
    if (k == 0)
        return 0;
    const ivtrack_iv *v = &tr->iv[k - 1];
    uint64_t sum = ivtrack_prefix(tr, kind, k - 1);
    if (v->kind == kind)
        sum += (v->end_ns < t ? v->end_ns : t) - v->start_ns;
    return sum;
}

void
ivtrack_kinds_upto_many(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out)
{
    size_t c_from = 0;
    for (size_t m = 0; m < n; m++) {
        size_t k = ivtrack_count_starts_from(tr, t[m], false, c_from);
        /* Chunk (k - 1) / CHUNK's first interval starts before t[m]. */
        c_from = k ? (k - 1) / IVTRACK_CHUNK : 0;
        for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++)
            out[m * IVTRACK_KINDS + kind] = ivtrack_kind_before(tr, kind, t[m], k);
    }
}

uint64_t
ivtrack_kind_ns(const ivtrack *tr, unsigned kind, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1 || kind >= IVTRACK_KINDS)
        return 0;
    size_t k0 = ivtrack_count_starts(tr, t0, false), k1 = ivtrack_count_starts(tr, t1, false);
    if (k1 - k0 > IVTRACK_CHUNK / 2)
        return ivtrack_kind_before(tr, kind, t1, k1) - ivtrack_kind_before(tr, kind, t0, k0);
    /* A narrow window (a screen column when zoomed in): clip the few intervals in it
     * rather than scan from both ends to chunk edges. */
    uint64_t sum = 0;
    for (size_t i = k0 ? k0 - 1 : 0; i < k1; i++) {
        const ivtrack_iv *v = &tr->iv[i];
        uint64_t s = v->start_ns > t0 ? v->start_ns : t0, e = v->end_ns < t1 ? v->end_ns : t1;
        sum += v->kind == kind && e > s ? e - s : 0;
    }
    return sum;
}

size_t
ivtrack_count_in(const ivtrack *tr, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    size_t hi = ivtrack_count_starts(tr, t1, false);
    size_t lo = ivtrack_first_after(tr, t0);
    return hi > lo ? hi - lo : 0;
}

size_t
ivtrack_bytes(const ivtrack *tr)
{
    return sizeof *tr + tr->cap * sizeof *tr->iv + ivtrack_chunks(tr->cap) * sizeof *tr->ch;
}

bool
ivtrack_check(const ivtrack *tr, char *why, size_t why_len)
{
    if (tr->n > tr->cap)
        return checkfail(why, why_len, "count %zu beyond capacity %zu", tr->n, tr->cap);
    ivtrack_cum sum;
    memset(&sum, 0, sizeof sum);
    for (size_t i = 0; i < tr->n; i++) {
        const ivtrack_iv *v = &tr->iv[i];
        if (v->end_ns < v->start_ns)
            return checkfail(why, why_len, "interval %zu: ends before it starts", i);
        if (i > 0 && v->start_ns < tr->iv[i - 1].end_ns)
            return checkfail(why, why_len, "interval %zu: starts at %llu before interval"
                                " %zu ends at %llu", i, (unsigned long long)v->start_ns, i - 1,
                                (unsigned long long)tr->iv[i - 1].end_ns);
        if (v->kind >= IVTRACK_KINDS)
            return checkfail(why, why_len, "interval %zu: kind %u", i, (unsigned)v->kind);
        if (v->flags & ~(unsigned)IVTRACK_FLAG_MASK)
            return checkfail(why, why_len, "interval %zu: unknown flags %#x", i,
                                (unsigned)v->flags);
        if ((v->flags & IVTRACK_F_CLIPPED) &&
            (i == 0 || v->start_ns != tr->iv[i - 1].end_ns))
            return checkfail(why, why_len, "interval %zu: clipped but does not start at"
                                " the previous interval's end", i);
        if (i % IVTRACK_CHUNK == 0) {
            const ivtrack_chunk *c = &tr->ch[i / IVTRACK_CHUNK];
            if (c->start_ns != v->start_ns)
                return checkfail(why, why_len, "chunk %zu: start %llu, interval %zu starts"
                                    " at %llu", i / IVTRACK_CHUNK,
                                    (unsigned long long)c->start_ns, i,
                                    (unsigned long long)v->start_ns);
            for (unsigned k = 0; k < IVTRACK_KINDS; k++)
                if (c->before.ns[k] != sum.ns[k])
                    return checkfail(why, why_len, "chunk %zu (interval %zu): kind %u prefix"
                                        " %llu, recount %llu", i / IVTRACK_CHUNK, i, k,
                                        (unsigned long long)c->before.ns[k],
                                        (unsigned long long)sum.ns[k]);
        }
        sum.ns[v->kind] += v->end_ns - v->start_ns;
    }
    for (unsigned k = 0; k < IVTRACK_KINDS; k++)
        if (tr->total.ns[k] != sum.ns[k])
            return checkfail(why, why_len, "kind %u total %llu, recount %llu", k,
                                (unsigned long long)tr->total.ns[k],
                                (unsigned long long)sum.ns[k]);
    return true;
}

bool
ivtrack_test_corrupt(ivtrack *tr, ivtrack_corrupt what, size_t i)
{
    if (i >= tr->n)
        return false;
    ivtrack_iv *v = &tr->iv[i];
    switch (what) {
    case IVTRACK_CORRUPT_ORDER:
        if (i == 0 || tr->iv[i - 1].end_ns == tr->iv[i - 1].start_ns)
            return false;
        v->start_ns = tr->iv[i - 1].start_ns;
        if (i % IVTRACK_CHUNK == 0)             /* keep the header in step: order only */
            tr->ch[i / IVTRACK_CHUNK].start_ns = v->start_ns;
        return true;
    case IVTRACK_CORRUPT_KIND:
        v->kind = IVTRACK_KINDS;
        return true;
    case IVTRACK_CORRUPT_FLAGS:
        v->flags |= 0x80;
        return true;
    case IVTRACK_CORRUPT_PREFIX:
        tr->ch[i / IVTRACK_CHUNK].before.ns[v->kind]++;
        return true;
    case IVTRACK_CORRUPT_CHUNK_START:
        tr->ch[i / IVTRACK_CHUNK].start_ns ^= 1;
        return true;
    }
    return false;
}
