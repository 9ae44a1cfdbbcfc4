/* tests/test_timefmt: duration parsing (units, fractions, overflow, junk) and
 * adaptive formatting, including rounding across a unit boundary and round trips. */
#include <stdlib.h>

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
    tcase_add_test(tc, test_timefmt_format);
    tcase_add_test(tc, test_timefmt_round_trip);
    suite_add_tcase(s, tc);
    return s;
}
