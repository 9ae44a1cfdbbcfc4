/* test_pausehist: the small pause histogram — 1-2-5 bins from the shortest pause's to
 * the longest's with the empty ones between, decades for a wide spread, the shortest
 * squeezed into the first bin beyond that, nothing for no pauses. */
#include "pausehist.h"
#include "tests.h"

#define US UINT64_C(1000)

START_TEST(test_pausehist_ladder)
{
    const uint64_t p[] = { 500, 1500, 3 * US, 7 * US, 7 * US, 15 * US };
    pausehist h;
    pausehist_build(&h, p, sizeof p / sizeof p[0]);
    ck_assert_uint_eq(h.n_bins, 4);
    const uint64_t lo[] = { 0, 2 * US, 5 * US, 10 * US }, hi[] = { 2 * US, 5 * US, 10 * US,
                                                                   20 * US };
    const size_t count[] = { 2, 1, 2, 1 };
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(h.bins[i].lo_ns, lo[i]);
        ck_assert_uint_eq(h.bins[i].hi_ns, hi[i]);
        ck_assert_uint_eq(h.bins[i].count, count[i]);
    }
    ck_assert_uint_eq(h.total, 6);
    ck_assert_uint_eq(h.max_count, 2);
}
END_TEST

START_TEST(test_pausehist_gaps_kept)
{
    /* 120 us and 30 ms: every 1-2-5 bin between them, empty ones included. */
    const uint64_t p[] = { 30000 * US, 120 * US };
    pausehist h;
    pausehist_build(&h, p, 2);
    ck_assert_uint_eq(h.n_bins, 8);     /* 100u 200u 500u 1m 2m 5m 10m 20m .. 50m */
    ck_assert_uint_eq(h.bins[0].lo_ns, 100 * US);
    ck_assert_uint_eq(h.bins[7].lo_ns, 20000 * US);
    ck_assert_uint_eq(h.bins[7].hi_ns, 50000 * US);
    ck_assert_uint_eq(h.bins[0].count, 1);
    ck_assert_uint_eq(h.bins[7].count, 1);
    for (size_t i = 1; i < 7; i++)
        ck_assert_uint_eq(h.bins[i].count, 0);
}
END_TEST

START_TEST(test_pausehist_wide_and_empty)
{
    /* 1 us .. 10 s: 22 ladder bins, so decades (8 bins). */
    const uint64_t p[] = { 1 * US, 10000000 * US };
    pausehist h;
    pausehist_build(&h, p, 2);
    ck_assert_uint_eq(h.n_bins, 8);
    ck_assert_uint_eq(h.bins[0].lo_ns, 0);
    ck_assert_uint_eq(h.bins[1].lo_ns, 10 * US);
    ck_assert_uint_eq(h.bins[7].hi_ns, 100000000 * US);
    /* 1 us .. 10^15 ns: 13 decades, so the shortest share the first of 12 bins. */
    const uint64_t q[] = { 1 * US, UINT64_C(1000000000000000), 5 * US };
    pausehist_build(&h, q, 3);
    ck_assert_uint_eq(h.n_bins, PAUSEHIST_MAX_BINS);
    ck_assert_uint_eq(h.bins[0].lo_ns, 0);
    ck_assert_uint_eq(h.bins[0].count, 2);
    ck_assert_uint_eq(h.bins[PAUSEHIST_MAX_BINS - 1].count, 1);
    pausehist_build(&h, q, 0);
    ck_assert_uint_eq(h.n_bins, 0);
    ck_assert_uint_eq(h.total, 0);
}
END_TEST

Suite *
test_pausehist_suite(void)
{
    Suite *s = suite_create("pausehist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_pausehist_ladder);
    tcase_add_test(tc, test_pausehist_gaps_kept);
    tcase_add_test(tc, test_pausehist_wide_and_empty);
    suite_add_tcase(s, tc);
    return s;
}
