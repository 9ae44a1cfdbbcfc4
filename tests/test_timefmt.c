/* tests/test_timefmt: duration parsing (units, hours and minutes, fractions, overflow,
 * junk) and adaptive formatting, fixed-precision and at a resolution, including
 * half-up rounding across a unit boundary, neighbours told apart, and round trips. */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "timefmt.h"

static uint64_t
tf_parse_ok(const char *s)
{
    uint64_t ns = 12345;
    ck_assert_msg(timefmt_parse(s, &ns), "\"%s\" should parse", s);
    return ns;
}

START_TEST(test_timefmt_parse_units)
{
    ck_assert_uint_eq(tf_parse_ok("1.5s"), 1500000000u);
    ck_assert_uint_eq(tf_parse_ok("200ms"), 200000000u);
    ck_assert_uint_eq(tf_parse_ok("35us"), 35000u);
    ck_assert_uint_eq(tf_parse_ok("120ns"), 120u);
    ck_assert_uint_eq(tf_parse_ok("42"), 42u);
    ck_assert_uint_eq(tf_parse_ok("0"), 0u);
    ck_assert_uint_eq(tf_parse_ok("0.001s"), 1000000u);
    ck_assert_uint_eq(tf_parse_ok(".5ms"), 500000u);
    ck_assert_uint_eq(tf_parse_ok("2.s"), 2000000000u);
    ck_assert_uint_eq(tf_parse_ok("1.2345us"), 1234u);            /* below 1 ns dropped */
    ck_assert_uint_eq(tf_parse_ok("1.0000000009s"), 1000000000u);
    ck_assert_uint_eq(tf_parse_ok("18446744073709551615"), UINT64_MAX);
    ck_assert_uint_eq(tf_parse_ok("18446744073s"), 18446744073000000000u);
    ck_assert_uint_eq(tf_parse_ok("250\xc2\xb5s"), 250000u);    /* the axis' "µs" */
}
END_TEST

/* Hours and minutes as the axis labels write them. */
START_TEST(test_timefmt_parse_hours_minutes)
{
    ck_assert_uint_eq(tf_parse_ok("1m"), UINT64_C(60000000000));
    ck_assert_uint_eq(tf_parse_ok("1m30s"), UINT64_C(90000000000));
    ck_assert_uint_eq(tf_parse_ok("1m0.5s"), UINT64_C(60500000000));
    ck_assert_uint_eq(tf_parse_ok("2m3ms"), UINT64_C(120003000000));
    ck_assert_uint_eq(tf_parse_ok("1h"), UINT64_C(3600000000000));
    ck_assert_uint_eq(tf_parse_ok("1h5m"), UINT64_C(3900000000000));
    ck_assert_uint_eq(tf_parse_ok("1h0m5s"), UINT64_C(3605000000000));
    ck_assert_uint_eq(tf_parse_ok("5124095h34m33.709551615s"), UINT64_MAX);
    ck_assert_uint_eq(tf_parse_ok("5ms"), 5000000u);              /* not 5 minutes */
    static const char *const bad[] = {
        "1h5", "1m5", "1.5m", "1.5h", "m", "h", "1m1m", "1s1m", "1hms", "5124095h35m",
        "1h ", "1m-1s",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns = 777;
        ck_assert_msg(!timefmt_parse(bad[i], &ns), "\"%s\" should be rejected", bad[i]);
        ck_assert_uint_eq(ns, 777u);
    }
}
END_TEST

START_TEST(test_timefmt_parse_rejects)
{
    static const char *const bad[] = {
        "", "s", ".", ".s", "1.5", "abc", "1x", "-1s", "1.5.2s", " 1s", "1s ", "1 s", "1S",
        "1sec", "18446744073709551616", "18446744074s", "99999999999999999999ns",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t ns = 777;
        ck_assert_msg(!timefmt_parse(bad[i], &ns), "\"%s\" should be rejected", bad[i]);
        ck_assert_uint_eq(ns, 777u);
    }
}
END_TEST

static void
tf_format_is(uint64_t ns, const char *want)
{
    strbuf sb;
    strbuf_init(&sb);
    timefmt_append(&sb, ns);
    ck_assert_str_eq(sb.data, want);
    strbuf_free(&sb);
}

START_TEST(test_timefmt_format)
{
    tf_format_is(0, "0ns");
    tf_format_is(999, "999ns");
    tf_format_is(1000, "1.000us");
    tf_format_is(35120, "35.120us");
    tf_format_is(999999, "999.999us");
    tf_format_is(9999995, "10.000ms");          /* half rounds up */
    tf_format_is(9999499, "9.999ms");
    tf_format_is(999999999, "1.000s");          /* 1000.000ms moves to seconds */
    tf_format_is(1500000000, "1.500s");
    tf_format_is(763119952, "763.120ms");
    tf_format_is(UINT64_MAX, "18446744073.710s");
}
END_TEST

static void
tf_res_is(uint64_t ns, uint64_t res, const char *want)
{
    strbuf sb;
    strbuf_init(&sb);
    timefmt_append_res(&sb, ns, res);
    ck_assert_msg(strcmp(sb.data, want) == 0, "%llu at %llu: \"%s\", want \"%s\"",
                  (unsigned long long)ns, (unsigned long long)res, sb.data, want);
    strbuf_free(&sb);
}

START_TEST(test_timefmt_res)
{
    ck_assert_uint_eq(timefmt_res(0), 1);
    ck_assert_uint_eq(timefmt_res(1), 1);
    ck_assert_uint_eq(timefmt_res(9), 1);
    ck_assert_uint_eq(timefmt_res(10), 10);
    ck_assert_uint_eq(timefmt_res(999), 100);
    ck_assert_uint_eq(timefmt_res(1000), 1000);
    ck_assert_uint_eq(timefmt_res(12500), 10000);
    ck_assert_uint_eq(timefmt_res(UINT64_MAX), UINT64_C(10000000000000000000));

    tf_res_is(63981000, 1000, "63.981ms");      /* not "0.063s": rounded, and enough digits */
    tf_res_is(63981499, 1000, "63.981ms");
    tf_res_is(63981500, 1000, "63.982ms");      /* half rounds up */
    tf_res_is(24450248, 1, "24.450248ms");
    tf_res_is(24450248, 0, "24.450248ms");
    tf_res_is(24450248, 999, "24.4502ms");      /* 100 ns: the power of ten below 999 */
    tf_res_is(24450248, 10000000, "20ms");      /* coarser than the unit: no decimals */
    tf_res_is(25000000, 10000000, "30ms");
    tf_res_is(1000001000, 1000, "1.000001s");
    tf_res_is(999999600, 1000, "1.000000s");    /* rounds up into the next unit */
    tf_res_is(999999400, 1000, "999.999ms");
    tf_res_is(999600, 1000, "1.000ms");
    tf_res_is(499, 1000, "0ns");
    tf_res_is(500, 1000, "1us");
    tf_res_is(0, 1, "0ns");
    tf_res_is(999, 1, "999ns");
    tf_res_is(999, 100, "1.0us");
    tf_res_is(950, 100, "1.0us");
    tf_res_is(949, 100, "900ns");
    tf_res_is(1500000000, 1000000000, "2s");
    tf_res_is(UINT64_C(90000000000), 1000000, "90.000s");
    tf_res_is(UINT64_MAX, 1, "18446744073.709551615s");
    tf_res_is(UINT64_MAX, 1000, "18446744073.709552s");
    tf_res_is(UINT64_MAX, UINT64_MAX, "20000000000s");  /* rounding past UINT64_MAX */
}
END_TEST

/* Neighbours at least `res` apart print differently, and every printed time reads back
 * to within half the resolution (exactly, at 1 ns). */
START_TEST(test_timefmt_res_apart)
{
    uint64_t seed = 11;
    for (int i = 0; i < 20000; i++) {
        seed = seed * UINT64_C(6364136223846793005) + 1442695040888963407u;
        uint64_t t = (seed >> 8) % UINT64_C(100000000000);
        uint64_t gap = 1 + (seed >> 40) % (i % 3 == 0 ? 10 : i % 3 == 1 ? 2000 : 3000000);
        uint64_t res = timefmt_res(gap);
        strbuf a, b;
        strbuf_init(&a);
        strbuf_init(&b);
        timefmt_append_res(&a, t, res);
        timefmt_append_res(&b, t + gap, res);
        if (strcmp(a.data, b.data) == 0)
            ck_abort_msg("%llu and %llu both print %s", (unsigned long long)t,
                         (unsigned long long)(t + gap), a.data);
        uint64_t back = 0;
        if (!timefmt_parse(a.data, &back))
            ck_abort_msg("\"%s\" does not parse", a.data);
        uint64_t err = back > t ? back - t : t - back;
        if (err * 2 > res || (res == 1 && err))
            ck_abort_msg("%llu at %llu printed %s, reads back %llu", (unsigned long long)t,
                         (unsigned long long)res, a.data, (unsigned long long)back);
        strbuf_free(&a);
        strbuf_free(&b);
    }
    /* Two markers 1 us apart. */
    strbuf a, b;
    strbuf_init(&a);
    strbuf_init(&b);
    timefmt_append_res(&a, 63981000, timefmt_res(1000));
    timefmt_append_res(&b, 63982000, timefmt_res(1000));
    ck_assert_str_ne(a.data, b.data);
    strbuf_free(&a);
    strbuf_free(&b);
}
END_TEST

/* What we print reads back to within the printed precision. */
START_TEST(test_timefmt_round_trip)
{
    static const uint64_t v[] = { 0, 1, 999, 1000, 1499, 123456, 987654321, 1234567890123 };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        strbuf sb;
        strbuf_init(&sb);
        timefmt_append(&sb, v[i]);
        uint64_t back = 0;
        ck_assert(timefmt_parse(sb.data, &back));
        uint64_t err = back > v[i] ? back - v[i] : v[i] - back;
        ck_assert_msg(err * 1000 <= v[i] || err == 0, "%s vs %llu", sb.data,
                      (unsigned long long)v[i]);
        strbuf_free(&sb);
    }
}
END_TEST

Suite *
test_timefmt_suite(void)
{
    Suite *s = suite_create("timefmt");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_timefmt_parse_units);
    tcase_add_test(tc, test_timefmt_parse_rejects);
    tcase_add_test(tc, test_timefmt_parse_hours_minutes);
    tcase_add_test(tc, test_timefmt_format);
    tcase_add_test(tc, test_timefmt_round_trip);
    tcase_add_test(tc, test_timefmt_res);
    tcase_add_test(tc, test_timefmt_res_apart);
    suite_add_tcase(s, tc);
    return s;
}
