/* ivtrack: a plain sorted array of kinded intervals (GC phases are few) with, per
 * interval, the time of each kind before it, so per-kind time in a window is two
 * binary searches and two clipped edge intervals. */
#include "ivtrack.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checkfail.h"
#include "xalloc.h"

#define IVTRACK_FLAG_MASK (IVTRACK_F_OPEN | IVTRACK_F_CLIPPED)

typedef struct ivtrack_cum {
    uint64_t ns[IVTRACK_KINDS];
} ivtrack_cum;

struct ivtrack {
    ivtrack_iv *iv;             /* owned */
    ivtrack_cum *cum;           /* owned; cum[i]: time of each kind in intervals [0, i) */
    size_t n, cap;
    ivtrack_cum total;          /* time of each kind in all intervals */
};

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
    x_free(tr->cum);
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
        tr->cum = xreallocarray(tr->cum, tr->cap, sizeof *tr->cum);  /* owned by tr */
    }
    tr->cum[tr->n] = tr->total;
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
    tr->cum = xreallocarray(tr->cum, tr->n, sizeof *tr->cum);
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

/* Number of intervals with start < t (inclusive: start <= t). */
static size_t
ivtrack_count_starts(const ivtrack *tr, uint64_t t, bool inclusive)
{
    size_t lo = 0, hi = tr->n;
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

/* Time of `kind` inside [0, t). */
static uint64_t
ivtrack_kind_before(const ivtrack *tr, unsigned kind, uint64_t t)
{
    size_t k = ivtrack_count_starts(tr, t, false);
    if (k == 0)
        return 0;
    const ivtrack_iv *v = &tr->iv[k - 1];
    uint64_t sum = tr->cum[k - 1].ns[kind];
    if (v->kind == kind)
        sum += (v->end_ns < t ? v->end_ns : t) - v->start_ns;
    return sum;
}

uint64_t
ivtrack_kind_ns(const ivtrack *tr, unsigned kind, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1 || kind >= IVTRACK_KINDS)
        return 0;
    return ivtrack_kind_before(tr, kind, t1) - ivtrack_kind_before(tr, kind, t0);
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
    return sizeof *tr + tr->cap * (sizeof *tr->iv + sizeof *tr->cum);
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
        for (unsigned k = 0; k < IVTRACK_KINDS; k++)
            if (tr->cum[i].ns[k] != sum.ns[k])
                return checkfail(why, why_len, "interval %zu: kind %u prefix %llu, recount"
                                    " %llu", i, k, (unsigned long long)tr->cum[i].ns[k],
                                    (unsigned long long)sum.ns[k]);
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
        return true;
    case IVTRACK_CORRUPT_KIND:
        v->kind = IVTRACK_KINDS;
        return true;
    case IVTRACK_CORRUPT_FLAGS:
        v->flags |= 0x80;
        return true;
    case IVTRACK_CORRUPT_PREFIX:
        tr->cum[i].ns[v->kind]++;
        return true;
    }
    return false;
}
