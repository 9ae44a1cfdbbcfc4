/* busybins: the bounds its bins give always hold the run time (GC time) the runs (phases)
 * themselves give, are exact at the bins' edges, and the bins keep within their budget. */
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

/* A GC track of n phases from `at` on (kinds 0 to 3 in turn, some back to back, some
 * apart, of every length); its last end into *end. */
static ivtrack *
bb_track(uint64_t seed, size_t n, uint64_t at, uint64_t *end)
{
    ivtrack *tr = ivtrack_new();
    uint64_t s = seed * 0x2545f4914f6cdd1du + 3, t = at;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = bb_rng(&s);
        t += r % 3 == 0 ? 0 : r % 3 == 1 ? r % 50 : 2000 + r % 40000;
        uint64_t len = 1 + r % 900;
        ivtrack_iv iv = { t, t + len, UINT32_MAX, (uint8_t)(i % IVTRACK_KINDS), 0 };
        ck_assert(ivtrack_append(tr, &iv));
        t += len;
    }
    ivtrack_seal(tr);
    *end = t;
    return tr;
}

/* A GC track's time of `kind` inside [0, t), from its phases one by one. */
static uint64_t
bb_gc_upto(const ivtrack *tr, unsigned kind, uint64_t t)
{
    uint64_t sum = 0;
    for (size_t j = 0; j < ivtrack_count(tr); j++) {
        ivtrack_iv buf;
        const ivtrack_iv *iv = ivtrack_get(tr, j, &buf);
        if (iv->kind == kind && iv->start_ns < t)
            sum += (iv->end_ns < t ? iv->end_ns : t) - iv->start_ns;
    }
    return sum;
}

/* Times of every kind for bins of width w from first to last: edges, next to them,
 * inside, anywhere, the ends. */
static void
bb_times(uint64_t *t, size_t n, uint64_t first, uint64_t last, uint64_t w, uint64_t *s)
{
    uint64_t bins = (last - first + 1) / w;
    for (size_t m = 0; m < n; m++) {
        uint64_t k = bb_rng(s) % (bins + 1), edge = first + k * w;
        switch (m % 6) {
        case 0: t[m] = edge; break;
        case 1: t[m] = edge > first ? edge - 1 : first; break;
        case 2: t[m] = edge + 1 <= last + 1 ? edge + 1 : last + 1; break;
        case 3: t[m] = first + bb_rng(s) % (last - first + 2); break;
        case 4: t[m] = m % 12 == 4 ? first : last + 1; break;
        default: t[m] = edge + w / 2 <= last + 1 ? edge + w / 2 : last; break;
        }
    }
}

static const unsigned bb_kinds[2] = { 2, 0 };

/* A bin width w over [first, last] for `count` runs (phases): a power of two, about two
 * of them a bin (at least one, fewer than four). */
static void
bb_assert_width(uint64_t w, uint64_t first, uint64_t last, size_t count)
{
    ck_assert_uint_gt(w, 0);
    ck_assert_uint_eq(w & (w - 1), 0);
    uint64_t bins = (last - first + 1) / w;
    ck_assert_uint_le(bins, count / 2);
    ck_assert_uint_ge(bins * 4, count / 2);
}

/* Every lane's bounds at every kind of time (its edges, next to them, inside, the
 * ends, before and after the log) hold runlane_busy_upto, and are equal at the edges; the widths are powers of
 * two of about two runs a bin. */
START_TEST(test_busybins_bounds_hold)
{
    enum { N_LANES = 4, N_T = 700 };
    runlane *rl[N_LANES];
    ivtrack *gc[N_LANES];
    busybins_src src[N_LANES];
    uint64_t first = 1000, last = first, end;
    size_t runs[N_LANES] = { 3000, 200, 3, 0 }, phases[N_LANES] = { 0, 2500, 900, 1 };
    for (size_t i = 0; i < N_LANES; i++) {
        rl[i] = bb_lane(i + 1, runs[i], first + i * 17, i % 2 == 0, &end);
        last = end > last ? end : last;
        gc[i] = bb_track(i + 1, phases[i], first + 5 + i, &end);
        last = end > last ? end : last;
        src[i] = (busybins_src){ rl[i], i == 0 ? NULL : gc[i] };
    }
    busybins *b = busybins_make(src, N_LANES, bb_kinds, first, last, 1u << 20, NULL);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(busybins_n_lanes(b), N_LANES);
    ck_assert_uint_eq(busybins_width_ns(b, 2), 0);      /* 3 runs: no bins */
    ck_assert_uint_eq(busybins_width_ns(b, 3), 0);      /* none */
    uint64_t t0 = first, lo[1], hi[1];
    ck_assert(!busybins_bounds(b, 3, &t0, 1, UINT64_MAX, lo, hi));
    uint64_t s = 99;
    for (size_t i = 0; i < 2; i++) {
        uint64_t w = busybins_width_ns(b, i);
        bb_assert_width(w, first, last, runs[i]);
        ck_assert(!busybins_bounds(b, i, &t0, 1, w - 1, lo, hi));   /* wider than asked */
        uint64_t t[N_T], l[N_T], h[N_T];
        bb_times(t, N_T, first, last, w, &s);
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
    /* GC bins: none for lane 0 (no track given) and lane 3 (one phase). */
    ck_assert_uint_eq(busybins_gc_width_ns(b, 0), 0);
    ck_assert_uint_eq(busybins_gc_width_ns(b, 3), 0);
    for (size_t i = 1; i < 3; i++) {
        uint64_t w = busybins_gc_width_ns(b, i);
        bb_assert_width(w, first, last, phases[i]);
        uint64_t t[N_T], l0[N_T], h0[N_T], l1[N_T], h1[N_T];
        uint64_t *const gl[2] = { l0, l1 }, *const gh[2] = { h0, h1 };
        ck_assert(!busybins_gc_bounds(b, i, t, 0, w - 1, gl, gh));
        bb_times(t, N_T, first, last, w, &s);
        t[0] = 0;                       /* before the log */
        ck_assert(busybins_gc_bounds(b, i, t, N_T, w, gl, gh));
        for (size_t m = 0; m < N_T; m++)
            for (size_t v = 0; v < 2; v++) {
                uint64_t want = bb_gc_upto(gc[i], bb_kinds[v], t[m]);
                if (gl[v][m] > want || gh[v][m] < want)
                    ck_abort_msg("lane %zu kind %u t %llu: [%llu, %llu], GC time %llu", i,
                                 bb_kinds[v], (unsigned long long)t[m],
                                 (unsigned long long)gl[v][m], (unsigned long long)gh[v][m],
                                 (unsigned long long)want);
                if (t[m] < first || (t[m] - first) % w == 0)
                    ck_assert_uint_eq(gl[v][m], gh[v][m]);
            }
    }
    busybins_free(b);
    for (size_t i = 0; i < N_LANES; i++) {
        runlane_free(rl[i]);
        ivtrack_free(gc[i]);
    }
}
END_TEST

/* The bins of all lanes together keep within max_bins (8 bytes each), the lane with
 * more runs getting more; a cancelled make gives nothing. */
START_TEST(test_busybins_budget_cancel)
{
    uint64_t end0, end1;
    runlane *rl[2] = { bb_lane(5, 4000, 0, true, &end0), bb_lane(6, 1000, 0, true, &end1) };
    uint64_t last = end0 > end1 ? end0 : end1;
    busybins_src src[2] = { { rl[0], NULL }, { rl[1], NULL } };
    busybins *all = busybins_make(src, 2, bb_kinds, 0, last, 1u << 20, NULL);
    busybins *few = busybins_make(src, 2, bb_kinds, 0, last, 300, NULL);
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
    ck_assert_ptr_null(busybins_make(src, 2, bb_kinds, 0, last, 1u << 20, &cancel));
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
