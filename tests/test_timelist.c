/* tests/test_timelist: the compact sorted time list against a plain array — random
 * sequences with gaps beyond 32 bits, duplicates, chunk edges — and its checker. */
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

Suite *
test_timelist_suite(void)
{
    Suite *s = suite_create("timelist");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_timelist_vs_array);
    tcase_add_test(tc, test_timelist_edges);
    suite_add_tcase(s, tc);
    return s;
}
