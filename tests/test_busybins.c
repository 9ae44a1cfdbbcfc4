/* busybins: the bounds its bins give always hold the run time the runs themselves give,
 * are exact at the bins' edges, and the bins keep within their budget. */
#include <check.h>
#include <stdlib.h>

#include "busybins.h"
#include "runlane.h"
#include "tests.h"
#include "xalloc.h"

static uint64_t
bb_rng(uint64_t *s)
{
    *s = *s * 6364136223846793005u + 1442695040888963407u;
    return *s >> 33;
}

/* A lane of n runs from `at` on: gaps and lengths of every size (none, a few ns, long),
 * zero-length runs among them; sealed when `seal`, else its last chunk left open. Its
 * last end into *end. */
static runlane *
bb_lane(uint64_t seed, size_t n, uint64_t at, bool seal, uint64_t *end)
{
    runlane *rl = runlane_new();
    uint64_t s = seed * 0x9e3779b97f4a7c15u + 7, t = at;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bb_rng(&s);
        uint64_t gap = r % 5 == 0 ? 0 : r % 5 == 1 ? r % 4 : r % 5 == 2 ? 5000 + r % 90000 : r % 300;
        uint64_t len = r % 7 == 0 ? 0 : r % 7 == 1 ? 20000 + r % 50000 : 1 + r % 700;
        t += gap;
        ck_assert(runlane_append_fields(rl, t, t + len, (uint32_t)(i % 9 + 1), 1, 0));
        t += len;
    }
    if (seal)
        runlane_seal(rl);
    *end = t;
    return rl;
}

/* Every lane's bounds at every kind of time (its edges, next to them, inside, the
 * ends, before and after the log) hold runlane_busy_upto, and are equal at the edges; the widths are powers of
 * two of about two runs a bin. */
START_TEST(test_busybins_bounds_hold)
{
    enum { N_LANES = 4, N_T = 700 };
    runlane *rl[N_LANES];
    uint64_t first = 1000, last = first, end;
    size_t runs[N_LANES] = { 3000, 200, 3, 0 };
    for (size_t i = 0; i < N_LANES; i++) {
        rl[i] = bb_lane(i + 1, runs[i], first + i * 17, i % 2 == 0, &end);
        last = end > last ? end : last;
    }
    busybins *b = busybins_make((const runlane *const *)rl, N_LANES, first, last, 1u << 20, NULL);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(busybins_n_lanes(b), N_LANES);
    ck_assert_uint_eq(busybins_width_ns(b, 2), 0);      /* 3 runs: no bins */
    ck_assert_uint_eq(busybins_width_ns(b, 3), 0);      /* none */
    uint64_t t0 = first, lo[1], hi[1];
    ck_assert(!busybins_bounds(b, 3, &t0, 1, UINT64_MAX, lo, hi));
    uint64_t s = 99;
    for (size_t i = 0; i < 2; i++) {
        uint64_t w = busybins_width_ns(b, i);
        ck_assert_uint_gt(w, 0);
        ck_assert_uint_eq(w & (w - 1), 0);
        /* About two runs a bin: at least one, fewer than four. */
        uint64_t bins = (last - first + 1) / w;
        ck_assert_uint_le(bins, runs[i] / 2);
        ck_assert_uint_ge(bins * 4, runs[i] / 2);
        ck_assert(!busybins_bounds(b, i, &t0, 1, w - 1, lo, hi));   /* wider than asked */
        uint64_t t[N_T], l[N_T], h[N_T];
        for (size_t m = 0; m < N_T; m++) {
            uint64_t k = bb_rng(&s) % (bins + 1), edge = first + k * w;
            switch (m % 6) {
            case 0: t[m] = edge; break;
            case 1: t[m] = edge > first ? edge - 1 : first; break;
            case 2: t[m] = edge + 1 <= last + 1 ? edge + 1 : last + 1; break;
            case 3: t[m] = first + bb_rng(&s) % (last - first + 2); break;
            case 4: t[m] = m % 12 == 4 ? first : last + 1; break;
            default: t[m] = edge + w / 2 <= last + 1 ? edge + w / 2 : last; break;
            }
        }
        ck_assert(busybins_bounds(b, i, t, N_T, w, l, h));
        for (size_t m = 0; m < N_T; m++) {
            uint64_t want = runlane_busy_upto(rl[i], t[m]);
            if (l[m] > want || h[m] < want)
                ck_abort_msg("lane %zu t %llu: [%llu, %llu], run time %llu", i,
                             (unsigned long long)t[m], (unsigned long long)l[m],
                             (unsigned long long)h[m], (unsigned long long)want);
            if ((t[m] - first) % w == 0)
                ck_assert_uint_eq(l[m], h[m]);
        }
        /* Outside the log: none before it, all of it after. */
        uint64_t out[3] = { 0, first - 1, last + 5 * w };
        ck_assert(busybins_bounds(b, i, out, 3, w, l, h));
        ck_assert_uint_eq(l[0], 0);
        ck_assert_uint_eq(h[1], 0);
        ck_assert_uint_eq(l[2], runlane_busy_upto(rl[i], last + 1));
        ck_assert_uint_eq(h[2], l[2]);
    }
    busybins_free(b);
    for (size_t i = 0; i < N_LANES; i++)
        runlane_free(rl[i]);
}
END_TEST

/* The bins of all lanes together keep within max_bins (8 bytes each), the lane with
 * more runs getting more; a cancelled make gives nothing. */
START_TEST(test_busybins_budget_cancel)
{
    uint64_t end0, end1;
    runlane *rl[2] = { bb_lane(5, 4000, 0, true, &end0), bb_lane(6, 1000, 0, true, &end1) };
    uint64_t last = end0 > end1 ? end0 : end1;
    busybins *all = busybins_make((const runlane *const *)rl, 2, 0, last, 1u << 20, NULL);
    busybins *few = busybins_make((const runlane *const *)rl, 2, 0, last, 300, NULL);
    ck_assert_ptr_nonnull(all);
    ck_assert_ptr_nonnull(few);
    size_t n_few = 0;
    for (size_t i = 0; i < 2; i++) {
        uint64_t w = busybins_width_ns(few, i);
        ck_assert_uint_gt(w, busybins_width_ns(all, i));
        n_few += (size_t)(last / w) + 2;
    }
    ck_assert_uint_le(n_few, 300 + 2 * 2);
    ck_assert_uint_le(busybins_width_ns(few, 0), busybins_width_ns(few, 1));
    ck_assert_uint_lt(busybins_bytes(few), busybins_bytes(all));
    atomic_bool cancel;
    atomic_init(&cancel, true);
    ck_assert_ptr_null(busybins_make((const runlane *const *)rl, 2, 0, last, 1u << 20, &cancel));
    busybins_free(all);
    busybins_free(few);
    runlane_free(rl[0]);
    runlane_free(rl[1]);
}
END_TEST

Suite *
test_busybins_suite(void)
{
    Suite *s = suite_create("busybins");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_busybins_bounds_hold);
    tcase_add_test(tc, test_busybins_budget_cancel);
    suite_add_tcase(s, tc);
    return s;
}
