/* series: (time, value) samples in time order with a min/max pyramid: level 0 holds
 * each 64-sample chunk's min/max, level L+1 pairs of level L, so a range query scans
 * at most two partial chunks and O(log n) pyramid nodes. */
#include "series.h"

#include <stdio.h>
#include <string.h>

#include "checkfail.h"
#include "xalloc.h"

#define SERIES_CHUNK_SHIFT 6
#define SERIES_CHUNK ((size_t)1 << SERIES_CHUNK_SHIFT)
/* Level L has ceil(n / 64 / 2^L) nodes; 64 levels cover any size_t count. */
#define SERIES_MAX_LEVELS 64

typedef struct series_mm {
    uint64_t min, max;
} series_mm;

typedef struct series_level {
    series_mm *mm;              /* owned */
    size_t n, cap;
} series_level;

struct series {
    series_sample *s;           /* owned */
    size_t n, cap;
    series_level lv[SERIES_MAX_LEVELS];
    unsigned n_levels;          /* levels in use: 1 + the top, whose size is 1 */
    uint64_t max_value;         /* 0 while empty */
};

series *
series_new(void)
{
    series *s = xcalloc(1, sizeof *s);      /* caller frees with series_free */
    return s;
}

void
series_free(series *s)
{
    if (!s)
        return;
    x_free(s->s);
    for (unsigned l = 0; l < SERIES_MAX_LEVELS; l++)
        x_free(s->lv[l].mm);
    x_free(s);
}

static void
series_mm_fold(series_mm *m, uint64_t v)
{
    if (v < m->min)
        m->min = v;
    if (v > m->max)
        m->max = v;
}

/* Fold value v into node j of level l, creating the node if it is the next one. */
static void
series_level_fold(series_level *lv, size_t j, uint64_t v)
{
    if (j < lv->n) {
        series_mm_fold(&lv->mm[j], v);
        return;
    }
    if (lv->n == lv->cap) {
        lv->cap = lv->cap < 8 ? 8 : lv->cap * 2;
        lv->mm = xreallocarray(lv->mm, lv->cap, sizeof *lv->mm);   /* owned by the level */
    }
    lv->mm[lv->n++] = (series_mm){ v, v };
}

void
series_append(series *s, uint64_t time_ns, uint64_t value)
{
    if (s->n > 0 && time_ns < s->s[s->n - 1].time_ns)
        time_ns = s->s[s->n - 1].time_ns;
    if (s->n == s->cap) {
        s->cap = s->cap < 64 ? 64 : s->cap + s->cap / 2;
        s->s = xreallocarray(s->s, s->cap, sizeof *s->s);   /* owned by s */
    }
    size_t i = s->n++;
    s->s[i] = (series_sample){ time_ns, value };
    if (value > s->max_value)
        s->max_value = value;
    /* Every ancestor of sample i covers it. A level appears when the one below gets
     * its second node; its root then covers both. */
    size_t j = i >> SERIES_CHUNK_SHIFT;
    for (unsigned l = 0;; l++) {
        series_level *lv = &s->lv[l];
        series_level_fold(lv, j, value);
        if (s->n_levels < l + 1)
            s->n_levels = l + 1;
        if (lv->n < 2 || l + 1 == SERIES_MAX_LEVELS)
            break;
        series_level *up = &s->lv[l + 1];
        if (up->n == 0) {
            series_level_fold(up, 0, lv->mm[0].min);
            series_level_fold(up, 0, lv->mm[0].max);
            series_level_fold(up, 0, lv->mm[1].min);
            series_level_fold(up, 0, lv->mm[1].max);
            s->n_levels = l + 2;
            break;
        }
        j >>= 1;
    }
}

void
series_seal(series *s)
{
    if (s->cap > s->n && s->n) {
        s->s = xreallocarray(s->s, s->n, sizeof *s->s);
        s->cap = s->n;
    }
    for (unsigned l = 0; l < s->n_levels; l++) {
        series_level *lv = &s->lv[l];
        if (lv->cap > lv->n && lv->n) {
            lv->mm = xreallocarray(lv->mm, lv->n, sizeof *lv->mm);
            lv->cap = lv->n;
        }
    }
}

size_t
series_count(const series *s)
{
    return s->n;
}

series_sample
series_get(const series *s, size_t i)
{
    return i < s->n ? s->s[i] : (series_sample){ 0, 0 };
}

/* Number of samples with time < t (inclusive: time <= t). */
static size_t
series_count_before(const series *s, uint64_t t, bool inclusive)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t x = s->s[mid].time_ns;
        if (x < t || (inclusive && x == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t
series_lower_bound(const series *s, uint64_t t)
{
    return series_count_before(s, t, false);
}

size_t
series_at(const series *s, uint64_t t)
{
    size_t k = series_count_before(s, t, true);
    return k ? k - 1 : SIZE_MAX;
}

static void
series_fold_samples(const series *s, size_t from, size_t to, series_mm *acc)
{
    for (size_t i = from; i < to; i++)
        series_mm_fold(acc, s->s[i].value);
}

bool
series_range(const series *s, uint64_t t0, uint64_t t1, uint64_t *min, uint64_t *max)
{
    if (t0 >= t1)
        return false;
    size_t lo = series_count_before(s, t0, false);
    size_t hi = series_count_before(s, t1, false);
    if (lo >= hi)
        return false;
    series_mm acc = { UINT64_MAX, 0 };
    size_t c0 = (lo + SERIES_CHUNK - 1) >> SERIES_CHUNK_SHIFT;     /* first whole chunk */
    size_t c1 = hi >> SERIES_CHUNK_SHIFT;                           /* past the last */
    if (c0 >= c1) {
        series_fold_samples(s, lo, hi, &acc);
    } else {
        series_fold_samples(s, lo, c0 << SERIES_CHUNK_SHIFT, &acc);
        series_fold_samples(s, c1 << SERIES_CHUNK_SHIFT, hi, &acc);
        /* Whole chunks [c0, c1) bottom-up: an odd edge node is taken at its level,
         * the rest is covered by parents. */
        for (unsigned l = 0; c0 < c1 && l < s->n_levels; l++) {
            const series_mm *mm = s->lv[l].mm;
            if (c0 & 1) {
                series_mm_fold(&acc, mm[c0].min);
                series_mm_fold(&acc, mm[c0].max);
                c0++;
            }
            if (c1 & 1) {
                c1--;
                series_mm_fold(&acc, mm[c1].min);
                series_mm_fold(&acc, mm[c1].max);
            }
            c0 >>= 1;
            c1 >>= 1;
        }
    }
    if (min)
        *min = acc.min;
    if (max)
        *max = acc.max;
    return true;
}

uint64_t
series_max(const series *s)
{
    return s->max_value;
}

size_t
series_bytes(const series *s)
{
    size_t b = sizeof *s + s->cap * sizeof *s->s;
    for (unsigned l = 0; l < s->n_levels; l++)
        b += s->lv[l].cap * sizeof *s->lv[l].mm;
    return b;
}

bool
series_check(const series *s, char *why, size_t why_len)
{
    if (s->n > s->cap)
        return checkfail(why, why_len, "count %zu beyond capacity %zu", s->n, s->cap);
    uint64_t mx = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (i > 0 && s->s[i].time_ns < s->s[i - 1].time_ns)
            return checkfail(why, why_len, "sample %zu: time %llu before sample %zu's %llu",
                               i, (unsigned long long)s->s[i].time_ns, i - 1,
                               (unsigned long long)s->s[i - 1].time_ns);
        if (s->s[i].value > mx)
            mx = s->s[i].value;
    }
    if (s->max_value != mx)
        return checkfail(why, why_len, "max %llu, recount %llu",
                           (unsigned long long)s->max_value, (unsigned long long)mx);

    /* Recount every pyramid node straight from the samples it covers. */
    size_t want = (s->n + SERIES_CHUNK - 1) >> SERIES_CHUNK_SHIFT;
    unsigned levels = 0;
    for (unsigned l = 0; l < SERIES_MAX_LEVELS; l++) {
        const series_level *lv = &s->lv[l];
        bool used = l == 0 ? want > 0 : s->lv[l - 1].n > 1;
        size_t expect = used ? want : 0;
        if (lv->n != expect)
            return checkfail(why, why_len, "level %u: %zu nodes, want %zu", l, lv->n,
                               expect);
        if (lv->n > lv->cap)
            return checkfail(why, why_len, "level %u: beyond capacity", l);
        if (!used)
            break;
        levels = l + 1;
        unsigned shift = SERIES_CHUNK_SHIFT + l;
        for (size_t j = 0; j < lv->n; j++) {
            /* Node counts are checked, so j << shift < n and nothing overflows. */
            size_t from = j << shift, span = (size_t)1 << shift;
            size_t to = s->n - from < span ? s->n : from + span;
            series_mm r = { UINT64_MAX, 0 };
            series_fold_samples(s, from, to, &r);
            if (lv->mm[j].min != r.min || lv->mm[j].max != r.max)
                return checkfail(why, why_len, "level %u node %zu: min/max %llu/%llu,"
                                   " recount %llu/%llu", l, j,
                                   (unsigned long long)lv->mm[j].min,
                                   (unsigned long long)lv->mm[j].max,
                                   (unsigned long long)r.min, (unsigned long long)r.max);
        }
        want = (want + 1) / 2;
    }
    if (s->n_levels != levels)
        return checkfail(why, why_len, "%u levels, recount %u", s->n_levels, levels);
    return true;
}

bool
series_test_corrupt(series *s, series_corrupt what, size_t i)
{
    if (i >= s->n)
        return false;
    switch (what) {
    case SERIES_CORRUPT_ORDER:
        if (i == 0 || s->s[i].time_ns == UINT64_MAX)
            return false;
        s->s[i - 1].time_ns = s->s[i].time_ns + 1;
        return true;
    case SERIES_CORRUPT_CHUNK_MIN: {
        series_mm *m = &s->lv[0].mm[i >> SERIES_CHUNK_SHIFT];
        if (m->min == 0)
            return false;
        m->min--;
        return true;
    }
    case SERIES_CORRUPT_TOP_MAX:
        s->lv[s->n_levels - 1].mm[0].max ^= 1;
        return true;
    case SERIES_CORRUPT_MAX:
        s->max_value ^= 1;
        return true;
    }
    return false;
}
