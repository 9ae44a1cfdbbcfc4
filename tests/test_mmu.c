/* Tests of mmu: the exact sweep against a brute-force definition (every integer window
 * start, stopped time counted nanosecond by nanosecond) on random pause sets with
 * overlapping and touching pauses, windows longer than the range and ranges with no
 * GC; then the worst disjoint windows against a brute-force greedy choice. */
#include <stdlib.h>
#include <string.h>

#include "mmu.h"
#include "tests.h"

#define BF_MAX 400

typedef struct bf {
    uint64_t from, to;
    bool stopped[BF_MAX];       /* ns from-relative */
} bf;

static void
bf_build(bf *b, const mmu_span *v, size_t n, uint64_t from, uint64_t to)
{
    memset(b, 0, sizeof *b);
    b->from = from;
    b->to = to;
    for (size_t i = 0; i < n; i++)
        for (uint64_t t = v[i].start_ns; t < v[i].end_ns; t++)
            if (t >= from && t < to)
                b->stopped[t - from] = true;
}

static uint64_t
bf_paused(const bf *b, uint64_t a, uint64_t e)
{
    uint64_t p = 0;
    for (uint64_t t = a; t < e; t++)
        p += t >= b->from && t < b->to && b->stopped[t - b->from];
    return p;
}

/* The brute-force worst window over the starts allowed by `taken` (n of them). */
static bool
bf_best(const bf *b, uint64_t w, const uint64_t *taken, size_t n, uint64_t *t_out,
        uint64_t *p_out)
{
    bool found = false;
    *t_out = *p_out = 0;
    for (uint64_t t = b->from; t + w <= b->to; t++) {
        bool ok = true;
        for (size_t k = 0; k < n; k++)
            if ((t < taken[k] && taken[k] - t < w) || (t >= taken[k] && t - taken[k] < w))
                ok = false;
        if (!ok)
            continue;
        uint64_t p = bf_paused(b, t, t + w);
        if (!found || p > *p_out) {
            *t_out = t;
            *p_out = p;
            found = true;
        }
    }
    return found;
}

static uint64_t
rnd(uint64_t *s, uint64_t n)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return n ? (*s >> 33) % n : 0;
}

/* A random pause set: many overlapping, touching and duplicate spans, some outside the
 * range, some empty. */
static size_t
rand_spans(uint64_t *seed, mmu_span *v, uint64_t span)
{
    size_t n = rnd(seed, 12);
    for (size_t i = 0; i < n; i++) {
        uint64_t s = rnd(seed, span + 20);
        uint64_t len = rnd(seed, 4) == 0 ? rnd(seed, 60) : rnd(seed, 8);
        v[i] = (mmu_span){ s, s + len };
        if (i > 0 && rnd(seed, 4) == 0)         /* touching the previous one */
            v[i] = (mmu_span){ v[i - 1].end_ns, v[i - 1].end_ns + 1 + rnd(seed, 6) };
        if (i > 0 && rnd(seed, 6) == 0)         /* a duplicate */
            v[i] = v[i - 1];
    }
    return n;
}

START_TEST(test_mmu_vs_bruteforce)
{
    uint64_t seed = 12345;
    for (int iter = 0; iter < 1500; iter++) {
        mmu_span v[16];
        uint64_t from = rnd(&seed, 30), len = rnd(&seed, 5) == 0 ? rnd(&seed, 4) : rnd(&seed, 200);
        size_t n = rand_spans(&seed, v, from + len);
        bf b;
        bf_build(&b, v, n, from, from + len);
        mmu *m = mmu_new(v, n, from, from + len);
        ck_assert_uint_eq(mmu_paused_total(m), bf_paused(&b, from, from + len));
        for (uint64_t w = 1; w <= len + 3; w++) {
            mmu_point p = mmu_at(m, w);
            ck_assert_uint_eq(p.window_ns, w);
            if (w >= len) {
                /* Longer than the range: the whole range. */
                ck_assert_uint_eq(p.worst_start_ns, from);
                ck_assert_uint_eq(p.paused_ns, bf_paused(&b, from, from + len));
                continue;
            }
            uint64_t bt = 0, bp = 0;
            ck_assert(bf_best(&b, w, NULL, 0, &bt, &bp));
            ck_assert_msg(p.paused_ns == bp && p.worst_start_ns == bt,
                          "iter %d w %llu: got start %llu paused %llu, want %llu %llu", iter,
                          (unsigned long long)w, (unsigned long long)p.worst_start_ns,
                          (unsigned long long)p.paused_ns, (unsigned long long)bt,
                          (unsigned long long)bp);
            ck_assert(p.mmu >= 0.0 && p.mmu <= 1.0);
            ck_assert_double_eq_tol(p.mmu, 1.0 - (double)bp / (double)w, 1e-12);
        }
        /* Stopped time in random sub-ranges. */
        for (int k = 0; k < 10; k++) {
            uint64_t a = rnd(&seed, from + len + 10), e = a + rnd(&seed, 50);
            ck_assert_uint_eq(mmu_paused_in(m, a, e), bf_paused(&b, a, e));
        }
        mmu_free(m);
    }
}
END_TEST

START_TEST(test_mmu_worst_vs_bruteforce)
{
    uint64_t seed = 777;
    for (int iter = 0; iter < 600; iter++) {
        mmu_span v[16];
        uint64_t from = rnd(&seed, 30), len = 20 + rnd(&seed, 200);
        size_t n = rand_spans(&seed, v, from + len);
        bf b;
        bf_build(&b, v, n, from, from + len);
        mmu *m = mmu_new(v, n, from, from + len);
        uint64_t w = 1 + rnd(&seed, len / 2);
        mmu_point got[6];
        size_t k = mmu_worst(m, w, 6, got);
        uint64_t taken[6];
        size_t nt = 0;
        for (;;) {
            uint64_t t = 0, p = 0;
            if (nt == 6 || !bf_best(&b, w, taken, nt, &t, &p) || p == 0)
                break;
            ck_assert_msg(nt < k, "iter %d: only %zu windows, brute force has more", iter, k);
            ck_assert_msg(got[nt].worst_start_ns == t && got[nt].paused_ns == p,
                          "iter %d window %zu (w %llu): got %llu/%llu want %llu/%llu", iter, nt,
                          (unsigned long long)w, (unsigned long long)got[nt].worst_start_ns,
                          (unsigned long long)got[nt].paused_ns, (unsigned long long)t,
                          (unsigned long long)p);
            taken[nt++] = t;
        }
        ck_assert_uint_eq(k, nt);
        mmu_free(m);
    }
}
END_TEST

START_TEST(test_mmu_no_gc)
{
    mmu *m = mmu_new(NULL, 0, 1000, 5000);
    mmu_point p = mmu_at(m, 100);
    ck_assert_double_eq(p.mmu, 1.0);
    ck_assert_uint_eq(p.paused_ns, 0);
    ck_assert_uint_eq(p.worst_start_ns, 1000);
    mmu_point w[3];
    ck_assert_uint_eq(mmu_worst(m, 100, 3, w), 0);
    uint64_t ws[64];
    size_t n = mmu_curve_windows(m, ws, 64);
    /* No pause: from 1 us, then 2, 5 us... and the range (4 us) itself. */
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(ws[0], 1000);
    ck_assert_uint_eq(ws[1], 2000);
    ck_assert_uint_eq(ws[2], 4000);
    mmu_free(m);
    /* Pauses only outside the range count for nothing. */
    mmu_span out[2] = { { 0, 900 }, { 6000, 7000 } };
    m = mmu_new(out, 2, 1000, 5000);
    ck_assert_uint_eq(mmu_n_spans(m), 0);
    ck_assert_double_eq(mmu_at(m, 10).mmu, 1.0);
    mmu_free(m);
    /* An empty range. */
    m = mmu_new(out, 2, 5000, 5000);
    ck_assert_double_eq(mmu_at(m, 10).mmu, 1.0);
    ck_assert_uint_eq(mmu_curve_windows(m, ws, 64), 0);
    mmu_free(m);
}
END_TEST

START_TEST(test_mmu_curve_windows)
{
    /* Shortest pause 37 us: 20, 50, 100 us ... 500 ms, then the range, 1.2 s. */
    mmu_span v[2] = { { 1000000, 1037000 }, { 5000000, 9000000 } };
    mmu *m = mmu_new(v, 2, 0, 1200000000);
    uint64_t ws[64];
    size_t n = mmu_curve_windows(m, ws, 64);
    ck_assert_uint_eq(ws[0], 20000);
    ck_assert_uint_eq(ws[1], 50000);
    ck_assert_uint_eq(ws[2], 100000);
    ck_assert_uint_eq(ws[n - 2], 1000000000);
    ck_assert_uint_eq(ws[n - 1], 1200000000);
    ck_assert_uint_eq(n, 16);
    /* A longer window's worst holds at least as much stopped time. */
    for (size_t i = 1; i < n; i++)
        ck_assert_uint_ge(mmu_at(m, ws[i]).paused_ns, mmu_at(m, ws[i - 1]).paused_ns);
    /* A window inside the 4 ms pause is stopped all through. */
    mmu_point p = mmu_at(m, 2000000);
    ck_assert_double_eq(p.mmu, 0.0);
    ck_assert_uint_eq(p.worst_start_ns, 5000000);
    mmu_free(m);
}
END_TEST

/* A million pauses: the curve well under a second (also `make bench`). */
START_TEST(test_mmu_million)
{
    size_t n = 1000000;
    mmu_span *v = malloc(n * sizeof *v);
    uint64_t seed = 99, t = 0;
    for (size_t i = 0; i < n; i++) {
        t += 50000 + rnd(&seed, 1000000);
        v[i] = (mmu_span){ t, t + 20000 + rnd(&seed, 400000) };
    }
    mmu *m = mmu_new(v, n, 0, t + 1000000);
    uint64_t ws[64];
    size_t k = mmu_curve_windows(m, ws, 64);
    ck_assert_uint_gt(k, 20);
    for (size_t i = 0; i < k; i++) {
        mmu_point p = mmu_at(m, ws[i]);
        ck_assert(p.mmu >= 0.0 && p.mmu <= 1.0);
    }
    mmu_free(m);
    free(v);
}
END_TEST

Suite *
test_mmu_suite(void)
{
    Suite *s = suite_create("mmu");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_mmu_vs_bruteforce);
    tcase_add_test(tc, test_mmu_worst_vs_bruteforce);
    tcase_add_test(tc, test_mmu_no_gc);
    tcase_add_test(tc, test_mmu_curve_windows);
    tcase_set_timeout(tc, 30 * test_time_scale());
    tcase_add_test(tc, test_mmu_million);
    suite_add_tcase(s, tc);
    return s;
}
