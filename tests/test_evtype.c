/* tests/test_evtype: the event-type table is well formed — sorted unique ids,
 * consistent field counts, and every template valid for its fields. */
#include "evtype.h"
#include "render.h"
#include "tests.h"

START_TEST(test_evtype_table_sorted_and_consistent)
{
    unsigned n;
    const evtype_desc *t = evtype_table_all(&n);
    ck_assert_uint_gt(n, 100);
    for (unsigned i = 0; i < n; i++) {
        if (i > 0)
            ck_assert_msg(t[i - 1].id < t[i].id, "ids out of order at %s", t[i].name);
        ck_assert_msg(t[i].n_required <= t[i].n_fields, "%s", t[i].name);
        ck_assert_msg(t[i].n_fields <= EVTYPE_MAX_FIELDS, "%s", t[i].name);
        ck_assert_ptr_eq(evtype_lookup(t[i].id), &t[i]);
        char why[200];
        ck_assert_msg(render_template_check(&t[i], why, sizeof why), "%s", why);
    }
    ck_assert_ptr_null(evtype_lookup(250));
    ck_assert_ptr_null(evtype_lookup(0xffff));
}
END_TEST

START_TEST(test_evtype_sizes_match_ghc)
{
    /* Header sizes GHC writes for these types. */
    static const struct { uint16_t id; unsigned size; } ghc[] = {
        { EV_STOP_THREAD, 10 },   { EV_GC_STATS_GHC, 58 },   { EV_HEAP_INFO_GHC, 38 },
        { EV_TASK_CREATE, 18 },   { EV_SPARK_COUNTERS, 56 }, { EV_BLOCK_MARKER, 14 },
        { EV_WALL_CLOCK_TIME, 16 }, { EV_MEM_RETURN, 16 },   { EV_TICKY_COUNTER_SAMPLE, 32 },
        { EV_SEND_MESSAGE, 19 },  { EV_RECEIVE_MESSAGE, 23 },
    };
    for (size_t i = 0; i < sizeof ghc / sizeof ghc[0]; i++) {
        const evtype_desc *d = evtype_lookup(ghc[i].id);
        ck_assert_ptr_nonnull(d);
        ck_assert_msg(evtype_fixed_size(d, d->n_fields) == ghc[i].size, "%s: %u", d->name,
                      evtype_fixed_size(d, d->n_fields));
    }
    /* GC_STATS_GHC's balanced-copied field is an optional extension (50-byte logs). */
    ck_assert_uint_eq(evtype_fixed_size(evtype_lookup(EV_GC_STATS_GHC), 8), 50);
}
END_TEST

Suite *
test_evtype_suite(void)
{
    Suite *s = suite_create("evtype");
    TCase *tc = tcase_create("evtype");
    tcase_add_test(tc, test_evtype_table_sorted_and_consistent);
    tcase_add_test(tc, test_evtype_sizes_match_ghc);
    suite_add_tcase(s, tc);
    return s;
}
