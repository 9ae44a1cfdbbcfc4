/* tests/test_series: sample series — edge cases (empty, equal and out-of-order times,
 * half-open ranges, extremes), range/at/lower_bound/get against a brute-force array on
 * seeded random series at every chunk edge and across many pyramid levels, sealed or
 * not, each packed coding, bytes a sample, and the checker catching damage. */
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "tests.h"
#include "xalloc.h"

/* A passing ck_assert records a checkpoint with the runner; the comparison loops
 * test first and only then fail. */
#define SE_EXPECT(cond, ...)                                                              \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

static uint64_t
se_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t
se_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void
se_assert_sound(const series *s)
{
    char why[256] = "";
    ck_assert_msg(series_check(s, why, sizeof why), "series_check: %s", why);
}

/* ---- brute-force model ---- */

typedef struct se_model {
    series_sample *v;           /* owned */
    size_t n, cap;
} se_model;

static void
se_model_append(se_model *m, uint64_t t, uint64_t value)
{
    if (m->n > 0 && t < m->v[m->n - 1].time_ns)
        t = m->v[m->n - 1].time_ns;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->v = xreallocarray(m->v, m->cap, sizeof *m->v);
    }
    m->v[m->n++] = (series_sample){ t, value };
}

static bool
bf_range(const se_model *m, uint64_t t0, uint64_t t1, uint64_t *mn, uint64_t *mx)
{
    bool any = false;
    for (size_t i = 0; i < m->n; i++) {
        if (m->v[i].time_ns < t0 || m->v[i].time_ns >= t1)
            continue;
        uint64_t v = m->v[i].value;
        if (!any || v < *mn)
            *mn = v;
        if (!any || v > *mx)
            *mx = v;
        any = true;
    }
    return any;
}

static size_t
bf_lower_bound(const se_model *m, uint64_t t)
{
    size_t i = 0;
    while (i < m->n && m->v[i].time_ns < t)
        i++;
    return i;
}

static size_t
bf_at(const se_model *m, uint64_t t)
{
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].time_ns <= t)
            k = i;
    return k;
}

static void
se_random_series(uint64_t seed, size_t n, series *s, se_model *m)
{
    uint64_t r = seed * 0xA24BAED4963EE407u + 11;
    static const uint64_t bases[] = { 0, 1000000, UINT64_MAX - 100000, UINT64_MAX - 50 };
    uint64_t clock = bases[seed % 4], level = se_rng(&r) % 1000000;
    for (size_t k = 0; k < n; k++) {
        uint64_t c = se_rng(&r) % 100, t;
        if (c < 60)
            t = se_sat_add(clock, se_rng(&r) % 100);
        else if (c < 80)
            t = clock;                                              /* equal times */
        else if (c < 90)
            t = clock - (clock < 200 ? clock : se_rng(&r) % 200);   /* out of order */
        else
            t = se_sat_add(clock, se_rng(&r) % 10000);
        uint64_t v = se_rng(&r) % 100;
        if (v < 5)
            level = 0;
        else if (v < 10)
            level = UINT64_MAX - se_rng(&r) % 3;
        else if (v < 60)
            level += se_rng(&r) % 1000;
        else
            level = se_rng(&r);
        series_append(s, t, level);
        se_model_append(m, t, level);
        clock = m->v[m->n - 1].time_ns;
    }
}

static uint64_t
se_pick_time(const se_model *m, uint64_t *r)
{
    uint64_t c = se_rng(r) % 10;
    if (m->n == 0 || c == 0)
        return (uint64_t[]){ 0, 1, UINT64_MAX - 1, UINT64_MAX }[se_rng(r) % 4];
    uint64_t t = m->v[se_rng(r) % m->n].time_ns;
    if (c < 8) {
        int delta = (int)(se_rng(r) % 3) - 1;
        if (delta < 0 && t > 0)
            t--;
        else if (delta > 0 && t < UINT64_MAX)
            t++;
        return t;
    }
    uint64_t lo = m->v[0].time_ns, hi = m->v[m->n - 1].time_ns;
    return hi > lo ? lo + se_rng(r) % (hi - lo) : lo;
}

static void
se_compare(const series *s, const se_model *m, uint64_t seed, int n_queries)
{
    SE_EXPECT(series_count(s) == m->n, "seed %llu count", (unsigned long long)seed);
    uint64_t mx = 0;
    for (size_t i = 0; i < m->n; i++) {
        series_sample g = series_get(s, i);
        SE_EXPECT(g.time_ns == m->v[i].time_ns && g.value == m->v[i].value,
                      "seed %llu sample %zu", (unsigned long long)seed, i);
        if (m->v[i].value > mx)
            mx = m->v[i].value;
    }
    SE_EXPECT(series_max(s) == mx, "seed %llu max", (unsigned long long)seed);
    uint64_t r = seed + 31337;
    for (int q = 0; q < n_queries; q++) {
        uint64_t t0 = se_pick_time(m, &r), t1 = se_pick_time(m, &r);
        if (se_rng(&r) % 4 != 0 && t0 > t1) {
            uint64_t tmp = t0;
            t0 = t1;
            t1 = tmp;
        }
        uint64_t gmin = 7, gmax = 7, wmin = 7, wmax = 7;
        bool got = series_range(s, t0, t1, &gmin, &gmax);
        bool want = bf_range(m, t0, t1, &wmin, &wmax);
        SE_EXPECT(got == want && gmin == wmin && gmax == wmax,
                      "seed %llu range [%llu,%llu): %d %llu..%llu, want %d %llu..%llu",
                      (unsigned long long)seed, (unsigned long long)t0, (unsigned long long)t1,
                      got, (unsigned long long)gmin, (unsigned long long)gmax, want,
                      (unsigned long long)wmin, (unsigned long long)wmax);
        SE_EXPECT(series_lower_bound(s, t0) == bf_lower_bound(m, t0),
                  "seed %llu lower_bound %llu", (unsigned long long)seed,
                  (unsigned long long)t0);
        SE_EXPECT(series_at(s, t0) == bf_at(m, t0), "seed %llu at %llu",
                  (unsigned long long)seed, (unsigned long long)t0);
    }
}

/* ---- unit tests ---- */

START_TEST(test_series_empty)
{
    series *s = series_new();
    uint64_t mn = 3, mx = 4;
    ck_assert_uint_eq(series_count(s), 0);
    ck_assert(!series_range(s, 0, UINT64_MAX, &mn, &mx));
    ck_assert_uint_eq(mn, 3);                   /* left alone */
    ck_assert_uint_eq(mx, 4);
    ck_assert_uint_eq(series_at(s, UINT64_MAX), SIZE_MAX);
    ck_assert_uint_eq(series_lower_bound(s, 0), 0);
    ck_assert_uint_eq(series_max(s), 0);
    ck_assert_uint_eq(series_get(s, 0).time_ns, 0);
    se_assert_sound(s);
    series_seal(s);
    se_assert_sound(s);
    ck_assert_uint_gt(series_bytes(s), 0);
    series_free(s);
    series_free(NULL);
}
END_TEST

START_TEST(test_series_boundaries)
{
    series *s = series_new();
    series_append(s, 100, 5);
    series_append(s, 100, 9);                   /* equal time */
    series_append(s, 200, 1);
    series_append(s, 150, 7);                   /* out of order: stored at 200 */
    series_append(s, 300, 0);
    ck_assert_uint_eq(series_count(s), 5);
    ck_assert_uint_eq(series_get(s, 3).time_ns, 200);
    ck_assert_uint_eq(series_get(s, 3).value, 7);
    uint64_t mn = 0, mx = 0;
    ck_assert(series_range(s, 100, 101, &mn, &mx));
    ck_assert_uint_eq(mn, 5);
    ck_assert_uint_eq(mx, 9);
    ck_assert(!series_range(s, 101, 200, &mn, &mx));
    ck_assert(!series_range(s, 0, 100, &mn, &mx));
    ck_assert(series_range(s, 200, 300, &mn, &mx));
    ck_assert_uint_eq(mn, 1);
    ck_assert_uint_eq(mx, 7);
    ck_assert(series_range(s, 0, UINT64_MAX, &mn, &mx));
    ck_assert_uint_eq(mn, 0);
    ck_assert_uint_eq(mx, 9);
    ck_assert(!series_range(s, 300, 300, &mn, &mx));
    ck_assert(!series_range(s, 301, 100, &mn, &mx));
    ck_assert(series_range(s, 0, 101, NULL, NULL));
    ck_assert_uint_eq(series_lower_bound(s, 100), 0);
    ck_assert_uint_eq(series_lower_bound(s, 101), 2);
    ck_assert_uint_eq(series_lower_bound(s, 301), 5);
    ck_assert_uint_eq(series_at(s, 99), SIZE_MAX);
    ck_assert_uint_eq(series_at(s, 100), 1);
    ck_assert_uint_eq(series_at(s, 250), 3);
    ck_assert_uint_eq(series_at(s, UINT64_MAX), 4);
    ck_assert_uint_eq(series_max(s), 9);
    se_assert_sound(s);
    series_free(s);
}
END_TEST

/* Samples at UINT64_MAX lie beyond every half-open range but are still the value in
 * force there. */
START_TEST(test_series_extremes)
{
    series *s = series_new();
    series_append(s, UINT64_MAX - 1, UINT64_MAX);
    series_append(s, UINT64_MAX, 3);
    uint64_t mn = 0, mx = 0;
    ck_assert(series_range(s, 0, UINT64_MAX, &mn, &mx));
    ck_assert_uint_eq(mn, UINT64_MAX);
    ck_assert_uint_eq(mx, UINT64_MAX);
    ck_assert(!series_range(s, UINT64_MAX - 0, UINT64_MAX, &mn, &mx));
    ck_assert_uint_eq(series_at(s, UINT64_MAX), 1);
    ck_assert_uint_eq(series_lower_bound(s, UINT64_MAX), 1);
    ck_assert_uint_eq(series_max(s), UINT64_MAX);
    se_assert_sound(s);
    series_free(s);
}
END_TEST

/* Ranges whose whole-chunk part is answered by several pyramid levels. */
START_TEST(test_series_many_chunks)
{
    series *s = series_new();
    size_t n = 64 * 37 + 5;
    for (size_t i = 0; i < n; i++)
        series_append(s, 10 * i, (uint64_t)(i * 7919 % 10007));
    se_assert_sound(s);
    for (size_t a = 0; a < n; a += 61) {
        for (size_t b = a + 1; b <= n; b += 67) {
            uint64_t wmin = UINT64_MAX, wmax = 0;
            for (size_t i = a; i < b; i++) {
                uint64_t v = i * 7919 % 10007;
                wmin = v < wmin ? v : wmin;
                wmax = v > wmax ? v : wmax;
            }
            uint64_t mn = 0, mx = 0;
            bool any = series_range(s, 10 * a, 10 * b - 9, &mn, &mx);
            SE_EXPECT(any && mn == wmin && mx == wmax, "[%zu,%zu)", a, b);
        }
    }
    series_free(s);

    /* A power-of-two number of chunks: whole-chunk ranges reach the pyramid's top. */
    s = series_new();
    n = 64 * 8;
    for (size_t i = 0; i < n; i++)
        series_append(s, i, i == 100 ? 1 : i == 400 ? UINT64_MAX : 1000 + i);
    se_assert_sound(s);
    for (size_t a = 0; a < n; a += 64) {
        for (size_t b = a + 64; b <= n; b += 64) {
            uint64_t wmin = a <= 100 && 100 < b ? 1 : 1000 + a;
            uint64_t wmax = a <= 400 && 400 < b ? UINT64_MAX : 1000 + b - 1;
            uint64_t mn = 0, mx = 0;
            bool any = series_range(s, a, b, &mn, &mx);
            SE_EXPECT(any && mn == wmin && mx == wmax, "aligned [%zu,%zu)", a, b);
        }
    }
    series_free(s);
}
END_TEST

/* Enough samples that the packed words and chunk headers outgrow the size from which
 * they are mapped on their own and grow by moving (x_big_resize): every sample still
 * reads back, after a cut back into the middle with different samples appended, and
 * after the seal gives the spare room back. */
START_TEST(test_series_big)
{
    enum { N = 150000, CUT = 61237 };
    uint64_t seed = 99, *t = malloc(N * sizeof *t), *v = malloc(N * sizeof *v);
    ck_assert_ptr_nonnull(t);
    ck_assert_ptr_nonnull(v);
    series *s = series_new();
    uint64_t at = 1000;
    for (size_t i = 0; i < N; i++) {
        at += se_rng(&seed) % 5000;
        t[i] = at;
        v[i] = se_rng(&seed) >> 30;
        series_append(s, t[i], v[i]);
    }
    ck_assert_uint_gt(series_bytes(s), 1u << 20);
    for (size_t i = 0; i < N; i += 7) {
        series_sample smp = series_get(s, i);
        SE_EXPECT(smp.time_ns == t[i] && smp.value == v[i], "sample %zu", i);
    }
    series_truncate(s, CUT);
    ck_assert_uint_eq(series_count(s), CUT);
    at = t[CUT - 1];
    for (size_t i = CUT; i < N; i++) {
        at += se_rng(&seed) % 3000;
        t[i] = at;
        v[i] = se_rng(&seed) >> 20;
        series_append(s, t[i], v[i]);
    }
    size_t before = series_bytes(s);
    series_seal(s);
    ck_assert_uint_le(series_bytes(s), before);
    se_assert_sound(s);
    ck_assert_uint_eq(series_count(s), N);
    for (size_t i = 0; i < N; i++) {
        series_sample smp = series_get(s, i);
        SE_EXPECT(smp.time_ns == t[i] && smp.value == v[i], "sample %zu after the cut", i);
    }
    series_free(s);
    free(t);
    free(v);
}
END_TEST

START_TEST(test_series_matches_brute_force)
{
    for (uint64_t seed = 1; seed <= 200; seed++) {
        series *s = series_new();
        se_model m = { 0 };
        se_random_series(seed, seed % 11 == 0 ? seed % 3 : 1 + seed * 53 % 3000, s, &m);
        se_assert_sound(s);
        se_compare(s, &m, seed, 120);
        if (seed % 2 == 0) {
            series_seal(s);
            se_assert_sound(s);
            se_random_series(seed + 500, 100, s, &m);   /* appends after a seal */
            se_assert_sound(s);
            se_compare(s, &m, seed, 30);
        }
        x_free(m.v);
        series_free(s);
    }
}
END_TEST

/* The sweep's lower_bound and at (with their samples) against the model: times mostly
 * increasing (a join's), some going back, on random series with packed and open
 * chunks, equal times across chunk edges, sealed or not. */
START_TEST(test_series_sweep)
{
    for (uint64_t seed = 1; seed <= 120; seed++) {
        series *s = series_new();
        se_model m = { 0 };
        se_random_series(seed, seed % 13 == 0 ? seed % 3 : 1 + seed * 37 % 1500, s, &m);
        if (seed % 3 == 0)
            series_seal(s);
        series_sweep *sw = series_sweep_new(s);
        uint64_t r = seed + 77, t = m.n ? m.v[0].time_ns - (m.v[0].time_ns > 0) : 0;
        for (int q = 0; q < 300; q++) {
            uint64_t c = se_rng(&r) % 10;
            if (c < 6 && m.n)
                t = se_sat_add(t, se_rng(&r) % 3 == 0 ? 0 : se_rng(&r) % 300);
            else if (c < 8 && m.n)
                t = m.v[se_rng(&r) % m.n].time_ns;
            else
                t = se_pick_time(&m, &r);
            series_sample got = { 7, 7 };
            size_t lb = series_sweep_lower_bound(sw, t, &got), want = bf_lower_bound(&m, t);
            SE_EXPECT(lb == want, "seed %llu sweep lower_bound %llu: %zu, want %zu",
                      (unsigned long long)seed, (unsigned long long)t, lb, want);
            SE_EXPECT(lb == m.n || (got.time_ns == m.v[lb].time_ns &&
                                    got.value == m.v[lb].value),
                      "seed %llu sweep lower_bound %llu sample", (unsigned long long)seed,
                      (unsigned long long)t);
            got = (series_sample){ 7, 7 };
            size_t at = series_sweep_at(sw, t, &got);
            want = bf_at(&m, t);
            SE_EXPECT(at == want, "seed %llu sweep at %llu: %zu, want %zu",
                      (unsigned long long)seed, (unsigned long long)t, at, want);
            SE_EXPECT(at == SIZE_MAX || (got.time_ns == m.v[at].time_ns &&
                                         got.value == m.v[at].value),
                      "seed %llu sweep at %llu sample", (unsigned long long)seed,
                      (unsigned long long)t);
        }
        series_sweep_free(sw);
        x_free(m.v);
        series_free(s);
    }
}
END_TEST

/* series_col_max_many(s, t, n) against the model m, column by column: the value in
 * force at each column's start (the last sample at or before it) and the samples inside
 * it; series_col_max_some's answers for a mask of the columns (from seed) the same there
 * and 0 elsewhere; series_col_bounds_many's bounds around them. */
static void
se_expect_col_max(const series *s, const se_model *m, const uint64_t *t, size_t n,
                  uint64_t seed)
{
    uint64_t *mx = xcalloc(n + 1, sizeof *mx), *some = xcalloc(n + 1, sizeof *some);
    uint64_t *lo = xcalloc(n + 1, sizeof *lo), *hi = xcalloc(n + 1, sizeof *hi);
    bool *any = xcalloc(n + 1, sizeof *any), *any_some = xcalloc(n + 1, sizeof *any_some);
    bool *any_b = xcalloc(n + 1, sizeof *any_b), *want = xcalloc(n + 1, sizeof *want);
    uint64_t r = seed * 0x2545F4914F6CDD1Du + n;
    for (size_t c = 0; c < n; c++)
        want[c] = se_rng(&r) % 3 != 0;
    series_col_max_many(s, t, n, mx, any);
    series_col_max_some(s, t, n, want, some, any_some);
    series_col_bounds_many(s, t, n, lo, hi, any_b);
    for (size_t c = 0; c < n; c++) {
        bool want_any = false;
        uint64_t v = 0;
        size_t in_force = SIZE_MAX;
        for (size_t i = 0; i < m->n; i++)
            if (m->v[i].time_ns <= t[c])
                in_force = i;
        for (size_t i = 0; i < m->n; i++) {
            bool counts = i == in_force || (m->v[i].time_ns >= t[c] && m->v[i].time_ns < t[c + 1]);
            if (counts && (!want_any || m->v[i].value > v))
                v = m->v[i].value;
            want_any = want_any || counts;
        }
        SE_EXPECT(any[c] == want_any && mx[c] == v,
                  "seed %llu column %zu of %zu [%llu, %llu): got %d %llu, want %d %llu",
                  (unsigned long long)seed, c, n, (unsigned long long)t[c],
                  (unsigned long long)t[c + 1], any[c], (unsigned long long)mx[c],
                  want_any, (unsigned long long)v);
        SE_EXPECT(any_some[c] == want_any && some[c] == (want[c] ? v : 0),
                  "seed %llu column %zu of %zu (wanted %d): some %d %llu, want %d %llu",
                  (unsigned long long)seed, c, n, want[c], any_some[c],
                  (unsigned long long)some[c], want_any, (unsigned long long)v);
        SE_EXPECT(any_b[c] == want_any && (want_any ? lo[c] <= v && v <= hi[c]
                                           : lo[c] == 0 && hi[c] == 0),
                  "seed %llu column %zu of %zu: bounds %d [%llu, %llu], max %d %llu",
                  (unsigned long long)seed, c, n, any_b[c], (unsigned long long)lo[c],
                  (unsigned long long)hi[c], want_any, (unsigned long long)v);
    }
    x_free(want);
    x_free(any_b);
    x_free(any_some);
    x_free(any);
    x_free(hi);
    x_free(lo);
    x_free(some);
    x_free(mx);
}

/* Sort t[0..n) and drop repeats; the count left. */
static size_t
se_sort_unique(uint64_t *t, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && t[j - 1] > t[j]; j--) {
            uint64_t y = t[j];
            t[j] = t[j - 1];
            t[j - 1] = y;
        }
    size_t w = n ? 1 : 0;
    for (size_t i = 1; i < n; i++)
        if (t[i] != t[w - 1])
            t[w++] = t[i];
    return w;
}

/* series_col_max_many against the model on random series (long runs of equal times,
 * packed and open chunks) and random edges, many of them right at a sample's time or
 * next to it. */
START_TEST(test_series_col_max_many)
{
    for (uint64_t seed = 1; seed <= 120; seed++) {
        series *s = series_new();
        se_model m = { 0 };
        se_random_series(seed, 1 + seed * 37 % 2500, s, &m);
        if (seed % 3 == 0)
            series_seal(s);
        uint64_t r = seed * 0x9E3779B97F4A7C15u + 5;
        enum { MAX_EDGES = 80 };
        uint64_t t[MAX_EDGES];
        size_t n_t = 0;
        for (size_t k = 0; k < MAX_EDGES; k++) {
            r = r * 6364136223846793005u + 1442695040888963407u;
            uint64_t x = m.v[(r >> 33) % m.n].time_ns;
            unsigned how = (unsigned)(r >> 20) % 4;     /* at a sample, just before, after */
            x = how == 1 && x > 0 ? x - 1 : how == 2 && x < UINT64_MAX ? x + 1 : x;
            if (how == 3)
                x = r;                                  /* anywhere */
            t[n_t++] = x;
        }
        n_t = se_sort_unique(t, n_t);
        if (n_t >= 2)
            se_expect_col_max(s, &m, t, n_t - 1, seed);
        x_free(m.v);
        series_free(s);
    }
}
END_TEST

/* Columns many chunks wide, where the whole chunks inside a column answer it unless an
 * edge chunk may hold more: values rising (the right edge chunk holds the most), falling
 * (the value in force), flat with one spike, or random, with runs of equal times across
 * chunk boundaries; edges at chunks' first times, one ns either side, at the first and
 * last sample and outside them, on packed chunks alone and with an open one. */
START_TEST(test_series_col_max_wide)
{
    for (uint64_t seed = 1; seed <= 64; seed++) {
        series *s = series_new();
        se_model m = { 0 };
        uint64_t r = seed * 0xD1B54A32D192ED03u + 7;
        size_t n = 64 * (2 + seed % 40) + (seed % 2 ? se_rng(&r) % 64 : 0);
        unsigned shape = (unsigned)(seed % 4);
        uint64_t clock = 1000, spike = se_rng(&r) % n;
        for (size_t i = 0; i < n; i++) {
            clock += se_rng(&r) % 4 == 0 ? 0 : 1 + se_rng(&r) % 50;    /* equal runs */
            uint64_t v = shape == 0 ? i * 10 + se_rng(&r) % 5
                       : shape == 1 ? (n - i) * 10 + se_rng(&r) % 5
                       : shape == 2 ? (i == spike ? 999999 : 500)
                       : se_rng(&r) % 100000;
            series_append(s, clock, v);
            se_model_append(&m, clock, v);
        }
        if (seed % 3 == 0)
            series_seal(s);
        enum { MAX_EDGES = 14 };
        uint64_t t[MAX_EDGES];
        size_t n_t = 0;
        t[n_t++] = seed % 5 == 0 ? 0 : m.v[0].time_ns - (seed % 2);
        t[n_t++] = m.v[n - 1].time_ns + 1 + seed % 7;
        while (n_t < 2 + seed % (MAX_EDGES - 1)) {
            size_t k = se_rng(&r) % ((n + 63) / 64);
            uint64_t x = m.v[k * 64].time_ns;
            unsigned how = (unsigned)(se_rng(&r) % 4);
            x = how == 1 ? x - 1 : how == 2 ? x + 1 : how == 3 ? m.v[se_rng(&r) % n].time_ns : x;
            t[n_t++] = x;
        }
        n_t = se_sort_unique(t, n_t);
        se_expect_col_max(s, &m, t, n_t - 1, seed);
        /* And a column edge past the last sample only, and one before the first only. */
        uint64_t late[2] = { m.v[n - 1].time_ns + 1, m.v[n - 1].time_ns + 100 };
        se_expect_col_max(s, &m, late, 1, seed);
        uint64_t early[3] = { 1, m.v[0].time_ns, m.v[n / 2].time_ns };
        se_expect_col_max(s, &m, early, 2, seed);
        x_free(m.v);
        series_free(s);
    }
}
END_TEST

/* Every sample sits in a full chunk of 64 (the chunk is packed), unless open_tail. */
static series *
se_victim(size_t open_tail)
{
    series *s = series_new();
    for (uint64_t i = 0; i < 64 * 9 + open_tail; i++)
        series_append(s, 1000 + 3 * i, 50 + (i * 31 % 97));
    se_assert_sound(s);
    return s;
}

START_TEST(test_series_check_detects_damage)
{
    static const struct {
        series_corrupt what;
        size_t at, open_tail;
        const char *says;
    } cases[] = {
        { SERIES_CORRUPT_ORDER, 200, 0, "before sample" },
        { SERIES_CORRUPT_ORDER, 192, 0, "sample 192: time" },      /* across chunks */
        { SERIES_CORRUPT_ORDER, 64 * 9, 5, "sample 576: time" },   /* packed, then open */
        { SERIES_CORRUPT_ORDER, 64 * 9 + 3, 5, "sample 579: time" },   /* open chunk */
        { SERIES_CORRUPT_CHUNK_MIN, 300, 0, "chunk 4" },
        { SERIES_CORRUPT_TOP_MAX, 0, 0, "level" },
        { SERIES_CORRUPT_MAX, 0, 0, "max" },
        { SERIES_CORRUPT_WIDTH, 100, 0, "chunk 1: " },
        { SERIES_CORRUPT_WIDTH, 64 * 8, 0, "chunk 8: coding runs past" },
        { SERIES_CORRUPT_SLACK, 0, 3, "past the end" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        for (int sealed = 0; sealed < 2; sealed++) {
            series *s = se_victim(cases[k].open_tail);
            if (sealed)
                series_seal(s);
            ck_assert_msg(series_test_corrupt(s, cases[k].what, cases[k].at), "case %zu", k);
            char why[256] = "";
            ck_assert_msg(!series_check(s, why, sizeof why), "case %zu not detected", k);
            ck_assert_msg(strstr(why, cases[k].says), "case %zu: %s", k, why);
            series_free(s);
        }
    }
    series *s = se_victim(7);
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_ORDER, 0));
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_MAX, 64 * 9 + 7));
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_CHUNK_MIN, 64 * 9));   /* open chunk */
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_WIDTH, 64 * 9 + 6));
    se_assert_sound(s);
    series_free(s);
    s = series_new();
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_TOP_MAX, 0));
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_SLACK, 0));
    series_append(s, 1, 2);
    ck_assert(!series_test_corrupt(s, SERIES_CORRUPT_TOP_MAX, 0));    /* nothing packed */
    series_free(s);
}
END_TEST

/* Queries at every chunk edge, before and after a seal: counts 0, 1, 63, 64, 65 and
 * on, each prefix compared with the model while the series is still being built. */
START_TEST(test_series_chunk_edges)
{
    static const size_t stops[] = { 0, 1, 2, 63, 64, 65, 127, 128, 129, 191, 192, 193,
                                    64 * 8 - 1, 64 * 8, 64 * 8 + 1, 64 * 21 + 17 };
    size_t n_stops = sizeof stops / sizeof stops[0];
    for (uint64_t seed = 1; seed <= 24; seed++) {
        series *s = series_new();
        se_model m = { 0 };
        se_model all = { 0 };
        se_random_series(seed, stops[n_stops - 1], s, &all);   /* the same samples */
        series_free(s);
        s = series_new();
        size_t next = 0;
        for (size_t k = 0; k < n_stops; k++) {
            for (; next < stops[k]; next++) {
                /* The model clamps like the series, so append its stored samples. */
                series_append(s, all.v[next].time_ns, all.v[next].value);
                se_model_append(&m, all.v[next].time_ns, all.v[next].value);
            }
            se_assert_sound(s);
            se_compare(s, &m, seed * 100 + k, 40);
            if (seed % 3 == 0) {
                series_seal(s);                 /* then more appends */
                se_assert_sound(s);
                se_compare(s, &m, seed * 100 + k, 10);
            }
        }
        x_free(m.v);
        x_free(all.v);
        series_free(s);
    }
}
END_TEST

/* Samples that take each coding (FOR, DELTA, widths 0 and 64, deltas of 2^63, wrapping
 * spans) code back exactly. */
static void
se_pattern(int kind, size_t i, uint64_t *r, uint64_t *t, uint64_t *v)
{
    const uint64_t top = UINT64_C(1) << 63;
    switch (kind) {
    case 0: *t = 5; *v = 0; break;                                   /* all width 0 */
    case 1: *t = 7 * i; *v = 1000 * i; break;                        /* constant deltas */
    case 2: *t = i % 64 < 32 && i < 64 ? 0 : UINT64_MAX; *v = i & 1 ? UINT64_MAX : 0; break;
    case 3: *t = UINT64_MAX - 300 + i / 2; *v = UINT64_MAX - i; break;  /* descending */
    case 4: *t = i; *v = i & 1 ? top : 0; break;                     /* deltas of 2^63 */
    case 5: *t = se_rng(r); *v = se_rng(r); break;                   /* clamped; random */
    case 6: *t = i * (UINT64_C(1) << 50); *v = top - 40 + i % 80; break;
    case 7: *t = i * i * i; *v = i % 5 ? UINT64_MAX - 1 : UINT64_MAX; break;
    case 8: *t = i << 56; *v = se_rng(r) >> (i % 64); break;
    default: *t = 1000000 * i + se_rng(r) % 1000; *v = (i * i) << 20; break;
    }
}

START_TEST(test_series_codings)
{
    for (int kind = 0; kind < 10; kind++) {
        for (size_t n = 63; n <= 64 * 5 + 1; n += 64 * 2 + 1) {
            series *s = series_new();
            se_model m = { 0 };
            uint64_t r = (uint64_t)kind * 77 + n;
            for (size_t i = 0; i < n; i++) {
                uint64_t t, v;
                se_pattern(kind, i, &r, &t, &v);
                series_append(s, t, v);
                se_model_append(&m, t, v);
            }
            se_assert_sound(s);
            se_compare(s, &m, (uint64_t)kind * 1000 + n, 200);
            series_seal(s);
            se_assert_sound(s);
            se_compare(s, &m, (uint64_t)kind * 1000 + n, 50);
            x_free(m.v);
            series_free(s);
        }
    }
}
END_TEST

/* The point of the packing: realistic series take about 6 bytes a sample, not 16+. */
START_TEST(test_series_bytes_per_sample)
{
    for (int kind = 0; kind < 2; kind++) {
        series *s = series_new();
        uint64_t r = 12345, t = 1000000000, v = kind ? 500u << 20 : 0;
        size_t n = 100000;
        for (size_t i = 0; i < n; i++) {
            t += 250000 + se_rng(&r) % 500001;                 /* about every 500 us */
            if (kind == 0) {
                v += se_rng(&r) % ((4u << 20) + 1);          /* bytes allocated so far */
            } else {
                uint64_t step = se_rng(&r) % (16u << 20);    /* heap size: a random walk */
                bool up = se_rng(&r) & 1;
                if (up ? v + step > (2048u << 20) : v < (10u << 20) + step)
                    up = !up;
                v = up ? v + step : v - step;
            }
            series_append(s, t, v);
        }
        series_seal(s);
        se_assert_sound(s);
        double per = (double)series_bytes(s) / (double)series_count(s);
        ck_assert_msg(per <= 7.0, "%s: %.2f bytes a sample", kind ? "heap" : "alloc", per);
        series_free(s);
    }
}
END_TEST

/* Truncating then appending gives the series that had only those samples appended:
 * every count and cut point across chunk and pyramid-level edges, the same queries and
 * a clean invariant check. */
START_TEST(test_series_truncate)
{
    uint64_t seed = 77;
    static const size_t sizes[] = { 0, 1, 63, 64, 65, 128, 129, 300, 1000, 4097 };
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint64_t *t = malloc((n + 200) * sizeof *t), *v = malloc((n + 200) * sizeof *v);
        uint64_t now = 1000;
        for (size_t i = 0; i < n + 200; i++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            now += (seed >> 40) % 5000;
            t[i] = now;
            v[i] = (seed >> 20) % (i % 3 ? 1000 : 1u << 30);
        }
        for (size_t cut = 0; cut <= n; cut += 1 + cut / 3) {
            series *a = series_new(), *b = series_new();
            for (size_t i = 0; i < n; i++)
                series_append(a, t[i], v[i]);
            if (cut % 2)
                series_seal(a);
            series_truncate(a, cut);
            for (size_t i = 0; i < cut; i++)
                series_append(b, t[i], v[i]);
            for (size_t i = cut; i < cut + 150; i++) {
                series_append(a, t[i], v[i] + 7);
                series_append(b, t[i], v[i] + 7);
            }
            char why[256];
            ck_assert_msg(series_check(a, why, sizeof why), "n %zu cut %zu: %s", n, cut, why);
            ck_assert_uint_eq(series_count(a), series_count(b));
            ck_assert_uint_eq(series_max(a), series_max(b));
            for (size_t i = 0; i < series_count(a); i++) {
                series_sample x = series_get(a, i), y = series_get(b, i);
                ck_assert(x.time_ns == y.time_ns && x.value == y.value);
            }
            for (size_t q = 0; q + 1 < cut + 150; q += 1 + q / 2) {
                uint64_t mn1 = 0, mx1 = 0, mn2 = 0, mx2 = 0;
                bool h1 = series_range(a, t[q], t[q] + (t[q + 1] - t[q]) * 40, &mn1, &mx1);
                bool h2 = series_range(b, t[q], t[q] + (t[q + 1] - t[q]) * 40, &mn2, &mx2);
                ck_assert(h1 == h2 && mn1 == mn2 && mx1 == mx2);
            }
            series_free(a);
            series_free(b);
        }
        free(t);
        free(v);
    }
}
END_TEST

Suite *
test_series_suite(void)
{
    Suite *s = suite_create("series");
    TCase *tc = tcase_create("unit");
    tcase_add_test(tc, test_series_empty);
    tcase_add_test(tc, test_series_boundaries);
    tcase_add_test(tc, test_series_extremes);
    tcase_add_test(tc, test_series_many_chunks);
    tcase_add_test(tc, test_series_check_detects_damage);
    tcase_add_test(tc, test_series_codings);
    tcase_add_test(tc, test_series_bytes_per_sample);
    tcase_add_test(tc, test_series_big);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("property");
    tcase_set_timeout(tp, 60);
    tcase_add_test(tp, test_series_matches_brute_force);
    tcase_add_test(tp, test_series_col_max_many);
    tcase_add_test(tp, test_series_col_max_wide);
    tcase_add_test(tp, test_series_sweep);
    tcase_add_test(tp, test_series_chunk_edges);
    tcase_add_test(tp, test_series_truncate);
    suite_add_tcase(s, tp);
    return s;
}
