/* tests/test_timelist: the Elias–Fano time list against a plain sorted array — dense,
 * equal, bursty and huge-gapped times, sizes at chunk edges, sealed or not — its checker
 * against planted damage, and its size on a realistic dense list. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests.h"
#include "timelist.h"

static uint64_t
tl_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

START_TEST(test_timelist_vs_array)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t rs = seed * 0x9e3779b97f4a7c15ull;
        size_t n = (size_t)(tl_rand(&rs) % 20000);
        uint64_t *a = malloc((n + 1) * sizeof *a);
        timelist *tl = timelist_new();
        uint64_t t = tl_rand(&rs) % 1000;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = tl_rand(&rs) % 100;
            /* Mostly small steps, some repeats, a few gaps of more than 2^32 ns. */
            t += r < 10 ? 0 : r < 97 ? tl_rand(&rs) % 5000 : (UINT64_C(1) << 32) + tl_rand(&rs) % 9;
            a[i] = t;
            timelist_append(tl, t);
        }
        if (seed % 2)
            timelist_seal(tl);
        char why[256];
        ck_assert_msg(timelist_check(tl, why, sizeof why), "seed %llu: %s",
                      (unsigned long long)seed, why);
        ck_assert_uint_eq(timelist_count(tl), n);
        for (size_t i = 0; i < n; i++)
            if (timelist_get(tl, i) != a[i])
                ck_abort_msg("seed %llu: time %zu differs", (unsigned long long)seed, i);
        for (int q = 0; q < 500; q++) {
            uint64_t x = n ? a[tl_rand(&rs) % n] + tl_rand(&rs) % 3 - 1 : tl_rand(&rs);
            uint64_t y = x + tl_rand(&rs) % 100000;
            size_t want = 0;
            for (size_t i = 0; i < n; i++)
                want += a[i] >= x && a[i] < y;
            if (timelist_count_in(tl, x, y) != want)
                ck_abort_msg("seed %llu: count in [%llu, %llu) is %zu, want %zu",
                             (unsigned long long)seed, (unsigned long long)x,
                             (unsigned long long)y, timelist_count_in(tl, x, y), want);
        }
        /* The sweep over increasing times (a screen row's edges, some inside one chunk,
         * some chunks apart, some at a time exactly) counts as the array does. */
        enum { N_EDGES = 300 };
        uint64_t edge[N_EDGES];
        size_t got[N_EDGES];
        uint64_t e = n ? a[0] - (a[0] > 0) : 0;
        for (size_t k = 0; k < N_EDGES; k++) {
            uint64_t r = tl_rand(&rs) % 10;
            e += r < 3 ? 1 : r < 6 ? tl_rand(&rs) % 3000 : r < 9 ? tl_rand(&rs) % 200000
                                                                  : (UINT64_C(1) << 32);
            uint64_t at = n ? a[tl_rand(&rs) % n] : 0;
            if (n && r == 0 && at > e)
                e = at;                                                 /* at a time */
            edge[k] = e;
        }
        timelist_count_before_many(tl, edge, N_EDGES, got);
        for (size_t k = 0, lo = 0; k < N_EDGES; k++) {
            while (lo < n && a[lo] < edge[k])
                lo++;
            if (got[k] != lo)
                ck_abort_msg("seed %llu: sweep edge %zu (%llu): %zu before, want %zu",
                             (unsigned long long)seed, k, (unsigned long long)edge[k], got[k], lo);
        }
        ck_assert_uint_eq(timelist_count_in(tl, 5, 5), 0);
        ck_assert_uint_eq(timelist_count_before(tl, UINT64_MAX), n && a[n - 1] == UINT64_MAX ? n - 1 : n);
        timelist_free(tl);
        free(a);
    }
}
END_TEST

START_TEST(test_timelist_edges)
{
    timelist *tl = timelist_new();
    char why[128];
    ck_assert(timelist_check(tl, why, sizeof why));
    ck_assert_uint_eq(timelist_count_before(tl, 10), 0);
    /* An earlier time is stored as the last one: the list stays sorted. */
    timelist_append(tl, 100);
    timelist_append(tl, 50);
    ck_assert_uint_eq(timelist_get(tl, 1), 100);
    /* Exactly a chunk, then one more. */
    for (int i = 0; i < TIMELIST_CHUNK - 1; i++)
        timelist_append(tl, 200);
    timelist_append(tl, UINT64_MAX - 1);
    ck_assert(timelist_check(tl, why, sizeof why));
    ck_assert_uint_eq(timelist_count_in(tl, 200, 201), TIMELIST_CHUNK - 1);
    ck_assert_uint_eq(timelist_count_in(tl, 201, UINT64_MAX), 1);
    ck_assert_uint_gt(timelist_bytes(tl), 4 * (TIMELIST_CHUNK + 1));
    timelist_free(tl);
}
END_TEST

/* Model: the number of a[0..n) below t, by binary search on the plain array. */
static size_t
tl_model_before(const uint64_t *a, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Every query of tl against the model a[0..n): each time, every stored time and its
 * neighbours (wrapping at 0 and UINT64_MAX) and the extremes as probes, ranges between
 * probes, and a linear count for a sample of ranges. */
static void
tl_check_model(const timelist *tl, const uint64_t *a, size_t n, uint64_t *rs, const char *what)
{
    char why[256];
    ck_assert_msg(timelist_check(tl, why, sizeof why), "%s: %s", what, why);
    ck_assert_msg(timelist_count(tl) == n, "%s: count %zu, want %zu", what,
                  timelist_count(tl), n);
    for (size_t i = 0; i < n; i++)
        if (timelist_get(tl, i) != a[i])
            ck_abort_msg("%s: time %zu is %llu, want %llu", what, i,
                         (unsigned long long)timelist_get(tl, i), (unsigned long long)a[i]);
    ck_assert_uint_eq(timelist_get(tl, n), 0);
    static const uint64_t fixed[] = { 0, 1, 2, UINT64_C(1) << 32, UINT64_C(1) << 63,
                                      (UINT64_C(1) << 63) - 1, UINT64_MAX - 1, UINT64_MAX };
    size_t n_fixed = sizeof fixed / sizeof fixed[0];
    uint64_t prev_probe = 0;
    for (size_t q = 0; q < 3 * n + n_fixed + 64; q++) {
        uint64_t t = q < 3 * n ? a[q / 3] + (uint64_t)(q % 3) - 1
                   : q < 3 * n + n_fixed ? fixed[q - 3 * n] : tl_rand(rs);
        size_t want = tl_model_before(a, n, t), got = timelist_count_before(tl, t);
        if (got != want)
            ck_abort_msg("%s: count before %llu is %zu, want %zu", what,
                         (unsigned long long)t, got, want);
        uint64_t t0 = prev_probe < t ? prev_probe : t, t1 = prev_probe < t ? t : prev_probe;
        want = tl_model_before(a, n, t1) - tl_model_before(a, n, t0);
        if (q % 97 == 0) {
            size_t lin = 0;
            for (size_t i = 0; i < n; i++)
                lin += a[i] >= t0 && a[i] < t1;
            ck_assert_uint_eq(lin, want);
        }
        got = timelist_count_in(tl, t0, t1);
        if (got != want)
            ck_abort_msg("%s: count in [%llu, %llu) is %zu, want %zu", what,
                         (unsigned long long)t0, (unsigned long long)t1, got, want);
        ck_assert_uint_eq(timelist_count_in(tl, t1, t0), 0);
        prev_probe = t;
    }
}

enum { TL_DENSE, TL_TINY, TL_EQUAL, TL_HUGE, TL_TOP, TL_BURSTY, TL_SPLIT, TL_UNIFORM,
       TL_N_KINDS };

static int
tl_u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* n times of one kind; they may go down (TL_SPLIT), as the list must cope with. */
static void
tl_gen(int kind, uint64_t *a, size_t n, uint64_t *rs)
{
    uint64_t t = kind == TL_HUGE ? (UINT64_C(1) << 63) - 12345
               : kind == TL_TOP ? UINT64_MAX - 3 * (uint64_t)n
               : kind == TL_EQUAL ? (uint64_t[]){ 0, 7, UINT64_C(1) << 63, UINT64_MAX }
                                    [tl_rand(rs) % 4]
               : tl_rand(rs) % 1000;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = tl_rand(rs), step = 0;
        switch (kind) {
        case TL_DENSE:
            step = r % 36000;
            break;
        case TL_TINY:
            step = r % 4;
            break;
        case TL_HUGE:
            /* Small steps, and now and then up to 2^62: it saturates at UINT64_MAX. */
            step = r % 16 ? r % 100 : r >> 2;
            break;
        case TL_TOP:
            step = r % 5;
            break;
        case TL_BURSTY:
            step = r % 64 ? r % 3 : (UINT64_C(1) << 30) + (r >> 24);
            break;
        case TL_SPLIT:
            /* One jump across the whole range, mid-chunk. */
            t = i < n / 2 + 3 ? 0 : UINT64_MAX - (r % 3);
            break;
        case TL_UNIFORM:
            t = r;
            break;
        }
        t = step > UINT64_MAX - t ? UINT64_MAX : t + step;
        a[i] = t;
    }
}

/* Every kind of time sequence, at sizes around chunk edges, sealed, unsealed, and sealed
 * part-way then appended to. */
START_TEST(test_timelist_model)
{
    static const size_t sizes[] = { 0, 1, 2, TIMELIST_CHUNK - 1, TIMELIST_CHUNK,
                                    TIMELIST_CHUNK + 1, 2 * TIMELIST_CHUNK - 1,
                                    2 * TIMELIST_CHUNK, 3 * TIMELIST_CHUNK + 17,
                                    5 * TIMELIST_CHUNK + 3 };
    int kind = _i;
    uint64_t rs = 0x2545f4914f6cdd1dull * (uint64_t)(kind + 1);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        uint64_t *raw = malloc((n + 1) * sizeof *raw);    /* freed below */
        uint64_t *a = malloc((n + 1) * sizeof *a);        /* freed below: the model */
        tl_gen(kind, raw, n, &rs);
        if (kind == TL_UNIFORM)
            qsort(raw, n, sizeof *raw, tl_u64_cmp);
        /* The list stores an earlier time as the last one; so does the model. */
        for (size_t i = 0; i < n; i++)
            a[i] = i && raw[i] < a[i - 1] ? a[i - 1] : raw[i];
        for (int mode = 0; mode < 3; mode++) {
            char what[96];
            snprintf(what, sizeof what, "kind %d, %zu times, mode %d", kind, n, mode);
            timelist *tl = timelist_new();
            size_t cut = mode == 2 ? n / 3 + (n > 5) : n;
            for (size_t i = 0; i < cut; i++)
                timelist_append(tl, raw[i]);
            if (mode == 2) {
                timelist_seal(tl);
                tl_check_model(tl, a, cut, &rs, what);
                for (size_t i = cut; i < n; i++)
                    timelist_append(tl, raw[i]);
            }
            if (mode >= 1)
                timelist_seal(tl);
            tl_check_model(tl, a, n, &rs, what);
            timelist_free(tl);
        }
        free(raw);
        free(a);
    }
}
END_TEST

/* Sealing twice, or with nothing in it, changes nothing; an earlier time after a seal is
 * clamped to the last one. */
START_TEST(test_timelist_reseal)
{
    timelist *tl = timelist_new();
    timelist_seal(tl);
    timelist_seal(tl);
    ck_assert_uint_eq(timelist_count(tl), 0);
    ck_assert_uint_eq(timelist_count_in(tl, 0, UINT64_MAX), 0);
    uint64_t a[TIMELIST_CHUNK + 3];
    size_t n = 0;
    for (; n < 10; n++)
        timelist_append(tl, a[n] = 1000 + n);
    timelist_seal(tl);
    timelist_seal(tl);
    timelist_append(tl, 5);
    a[n++] = 1009;
    for (; n < TIMELIST_CHUNK + 3; n++)
        timelist_append(tl, a[n] = 2000 + 7 * n);
    uint64_t rs = 99;
    tl_check_model(tl, a, n, &rs, "resealed");
    timelist_seal(tl);
    tl_check_model(tl, a, n, &rs, "resealed, sealed");
    timelist_free(tl);
}
END_TEST

/* Each kind of planted damage is caught, in a coded chunk and in the buffered tail. */
START_TEST(test_timelist_corrupt)
{
    static const timelist_corrupt kinds[] = { TIMELIST_CORRUPT_BASE, TIMELIST_CORRUPT_HIGH_BIT,
                                              TIMELIST_CORRUPT_TAIL };
    for (size_t w = 0; w < sizeof kinds / sizeof kinds[0]; w++)
        for (size_t at = 0; at < 3; at++) {
            timelist *tl = timelist_new();
            uint64_t t = 1000;
            for (size_t i = 0; i < 3 * TIMELIST_CHUNK + 10; i++)
                timelist_append(tl, t += i % 5 ? 20 : 3000);
            size_t i = at == 0 ? 5 : at == 1 ? TIMELIST_CHUNK + 100 : 3 * TIMELIST_CHUNK + 4;
            char why[256];
            ck_assert(timelist_check(tl, why, sizeof why));
            bool done = timelist_test_corrupt(tl, kinds[w], i);
            /* The tail is only in the buffer; the chunks' damage only in chunks with a
             * successor. */
            ck_assert_int_eq(done, kinds[w] == TIMELIST_CORRUPT_TAIL ? at == 2 : at < 2);
            if (done)
                ck_assert_msg(!timelist_check(tl, why, sizeof why), "damage %zu at %zu unseen",
                              w, i);
            timelist_free(tl);
        }
    timelist *tl = timelist_new();
    ck_assert(!timelist_test_corrupt(tl, TIMELIST_CORRUPT_HIGH_BIT, 0));
    timelist_free(tl);
}
END_TEST

/* A million spark times with exponential gaps of mean 18 us (a busy program): at most
 * 2.5 bytes each, and still exact. */
START_TEST(test_timelist_dense_bytes)
{
    enum { N = 1000000 };
    uint64_t *a = malloc(N * sizeof *a);      /* freed below */
    uint64_t rs = 12345, t = UINT64_C(1) << 40;
    timelist *tl = timelist_new();
    for (size_t i = 0; i < N; i++) {
        double u = ((double)(tl_rand(&rs) >> 11) + 1.0) / 9007199254740992.0;   /* (0, 1] */
        t += (uint64_t)(-18000.0 * log(u));
        a[i] = t;
        timelist_append(tl, t);
    }
    timelist_seal(tl);
    double per = (double)timelist_bytes(tl) / N;
    ck_assert_msg(per <= 2.5, "%.3f bytes per time", per);
    char why[256];
    ck_assert_msg(timelist_check(tl, why, sizeof why), "%s", why);
    for (size_t i = 0; i < N; i += 997)
        ck_assert_uint_eq(timelist_get(tl, i), a[i]);
    for (int q = 0; q < 2000; q++) {
        size_t i = (size_t)(tl_rand(&rs) % N);
        ck_assert_uint_eq(timelist_count_before(tl, a[i]), tl_model_before(a, N, a[i]));
        ck_assert_uint_eq(timelist_count_before(tl, a[i] + 1), tl_model_before(a, N, a[i] + 1));
    }
    timelist_free(tl);
    free(a);
}
END_TEST

Suite *
test_timelist_suite(void)
{
    Suite *s = suite_create("timelist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_timelist_vs_array);
    tcase_add_test(tc, test_timelist_edges);
    tcase_add_loop_test(tc, test_timelist_model, 0, TL_N_KINDS);
    tcase_add_test(tc, test_timelist_reseal);
    tcase_add_test(tc, test_timelist_corrupt);
    tcase_add_test(tc, test_timelist_dense_bytes);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}
