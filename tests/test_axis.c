/* tests/test_axis: the step ladder, label formats (units, trimmed decimals, minutes, the
 * ASCII variant, read-back through timefmt), a worked tick layout on the log's clock, and a
 * sweep of widths, spans and late starts asserting labels never overlap. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "axis.h"
#include "tests.h"
#include "timefmt.h"
#include "timeview.h"

/* Assert without Check's per-pass bookkeeping (a write per assertion), for hot loops. */
#define AX_REQUIRE(expr, ...) \
    do { \
        if (!(expr)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

static void
ax_label_is(uint64_t rel_ns, unsigned flags, const char *want, int want_cols)
{
    char buf[AXIS_LABEL_MAX];
    int cols = axis_label(buf, rel_ns, flags);
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(cols, want_cols);
}

START_TEST(test_axis_labels)
{
    ax_label_is(0, 0, "0", 1);
    ax_label_is(1, 0, "1ns", 3);
    ax_label_is(999, 0, "999ns", 5);
    ax_label_is(1000, 0, "1\xc2\xb5s", 3);
    ax_label_is(250000, 0, "250\xc2\xb5s", 5);
    ax_label_is(250000, AXIS_ASCII, "250us", 5);
    ax_label_is(1250, AXIS_ASCII, "1.25us", 6);
    ax_label_is(1500000, 0, "1.5ms", 5);
    ax_label_is(1000001, 0, "1.000001ms", 10);
    ax_label_is(2000000000, 0, "2s", 2);
    ax_label_is(2500000000u, 0, "2.5s", 4);
    ax_label_is(UINT64_C(59999999999), 0, "59.999999999s", 13);
    ax_label_is(UINT64_C(60000000000), 0, "1m", 2);
    ax_label_is(UINT64_C(90000000000), 0, "1m30s", 5);
    ax_label_is(UINT64_C(60500000000), 0, "1m0.5s", 6);
    ax_label_is(UINT64_C(3600000000000), 0, "1h", 2);
    ax_label_is(UINT64_C(3900000000000), 0, "1h5m", 4);
    ax_label_is(UINT64_C(3605000000000), 0, "1h0m5s", 6);
    ax_label_is(UINT64_MAX, 0, "5124095h34m33.709551615s", 24);
}
END_TEST

/* Every label, ASCII or not, minutes and hours too, reads back exactly through timefmt:
 * a time read off the axis can be given to `stats --from`. */
START_TEST(test_axis_labels_parse_back)
{
    uint64_t seed = 7;
    for (int i = 0; i < 4000; i++) {
        seed = seed * UINT64_C(6364136223846793005) + 1442695040888963407u;
        uint64_t v = i % 4 == 3 ? seed : (seed >> 20) % UINT64_C(60000000000) * (i % 4 + 1);
        v -= v % (i % 2 ? 1 : 250000);
        char buf[AXIS_LABEL_MAX];
        axis_label(buf, v, i % 3 ? AXIS_ASCII : 0);
        uint64_t back = 1;
        AX_REQUIRE(timefmt_parse(buf, &back) && back == v, "\"%s\" reads back as %llu", buf,
                   (unsigned long long)back);
    }
}
END_TEST

START_TEST(test_axis_steps)
{
    ck_assert_uint_eq(axis_step(0), 1);
    ck_assert_uint_eq(axis_step(1), 2);
    ck_assert_uint_eq(axis_step(2), 5);
    ck_assert_uint_eq(axis_step(3), 10);
    size_t i = 0;
    bool saw_50s = false, saw_1m = false, saw_1h = false;
    for (; axis_step(i + 1) != 0; i++) {
        ck_assert_uint_lt(axis_step(i), axis_step(i + 1));
        saw_50s |= axis_step(i) == UINT64_C(50000000000);
        saw_1m |= axis_step(i) == UINT64_C(60000000000);
        saw_1h |= axis_step(i) == UINT64_C(3600000000000);
    }
    ck_assert(saw_50s && saw_1m && saw_1h);
    ck_assert_uint_gt(axis_step(i), UINT64_C(1) << 62);
}
END_TEST

START_TEST(test_axis_layout_example)
{
    axis_tick t[64];
    uint64_t step = 0;
    /* 1 ms over 100 columns: 50µs would be 5 columns apart, too tight for "50µs" + gap. */
    size_t n = axis_ticks(0, 1000000, 100, 0, t, 64, &step);
    ck_assert_uint_eq(step, 100000);
    ck_assert_uint_eq(n, 10);
    ck_assert_int_eq(t[0].col, 0);
    ck_assert_str_eq(t[0].label, "0");
    ck_assert_int_eq(t[3].col, 30);
    ck_assert_uint_eq(t[3].t_ns, 300000);
    ck_assert_str_eq(t[3].label, "300\xc2\xb5s");
    ck_assert_int_eq(t[3].label_cols, 5);
    ck_assert_str_eq(t[9].label, "900\xc2\xb5s");
    /* A view starting late (a log whose first event is at 24.3 ms): ticks at multiples of
     * the step on the log's clock, labelled with their time, not with the time since the
     * view's or the log's start. */
    n = axis_ticks(24300000, 24400000, 100, AXIS_ASCII, t, 64, &step);
    ck_assert_uint_eq(step, 10000);
    ck_assert_uint_eq(n, 10);
    ck_assert_uint_eq(t[0].t_ns, 24300000);
    ck_assert_str_eq(t[0].label, "24.3ms");
    ck_assert_int_eq(t[0].col, 0);
    ck_assert_str_eq(t[1].label, "24.31ms");
    ck_assert_int_eq(t[1].col, 10);
    ck_assert_str_eq(t[5].label, "24.35ms");
    n = axis_ticks(24305000, 24405000, 100, AXIS_ASCII, t, 64, &step);
    ck_assert_uint_eq(t[0].t_ns, 24310000);         /* the first multiple in the view */
    ck_assert_str_eq(t[0].label, "24.31ms");
    ck_assert_int_eq(t[0].col, 5);
    n = axis_ticks(UINT64_C(1500000000), UINT64_C(2500000000), 80, AXIS_ASCII, t, 64, &step);
    ck_assert_uint_eq(step, 100000000);
    ck_assert_uint_eq(n, 10);
    ck_assert_str_eq(t[0].label, "1.5s");
    ck_assert_str_eq(t[5].label, "2s");
    ck_assert_int_eq(t[5].col, 40);
    /* A label that would run off the right edge is left out; its tick stays. */
    n = axis_ticks(0, 1100, 14, 0, t, 64, &step);
    ck_assert_uint_eq(step, 500);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(t[0].label, "0");
    ck_assert_int_eq(t[1].col, 6);
    ck_assert_str_eq(t[1].label, "500ns");
    ck_assert_int_eq(t[2].col, 12);
    ck_assert_str_eq(t[2].label, "");
    ck_assert_int_eq(t[2].label_cols, 0);
    /* The cap is respected; an empty view has no ticks. */
    ck_assert_uint_eq(axis_ticks(5000, 5000 + 1000000, 100, 0, t, 3, NULL), 3);
    ck_assert_uint_eq(axis_ticks(9, 9, 100, 0, t, 64, &step), 0);
    ck_assert_uint_eq(step, 0);
    ck_assert_uint_eq(axis_ticks(0, 9, 0, 0, t, 64, NULL), 0);
}
END_TEST

/* Every property of one layout; returns the number of labelled ticks. */
static size_t
ax_check_layout(uint64_t t0, uint64_t t1, int width, unsigned flags, bool *non_ascii)
{
    axis_tick t[400];
    uint64_t step = 0;
    size_t n = axis_ticks(t0, t1, width, flags, t, 400, &step);
    AX_REQUIRE(n <= (size_t)(width / (AXIS_GAP + 1) + 1), "%zu ticks on %d columns", n, width);
    AX_REQUIRE(step > 0, "no step");
    int free_col = 0, prev_col = -1;
    size_t labelled = 0;
    for (size_t i = 0; i < n; i++) {
        const axis_tick *k = &t[i];
        AX_REQUIRE(k->t_ns >= t0 && k->t_ns < t1, "tick %llu outside the view",
                   (unsigned long long)k->t_ns);
        AX_REQUIRE(k->t_ns % step == 0, "tick off the step");
        uint64_t back = 0;
        AX_REQUIRE(!k->label_cols || (timefmt_parse(k->label, &back) && back == k->t_ns),
                   "label \"%s\" is not its tick's time", k->label);
        AX_REQUIRE(k->col == timeview_grid_col(t0, t1 - t0, width, k->t_ns), "tick column");
        AX_REQUIRE(k->col > prev_col, "columns not increasing");
        prev_col = k->col;
        AX_REQUIRE(((int)strlen(k->label) > 0) == (k->label_cols > 0), "label width");
        if (k->label_cols == 0)
            continue;
        labelled++;
        AX_REQUIRE(k->col >= free_col, "label \"%s\" at %d overlaps (free from %d), "
                   "span %llu width %d", k->label, k->col, free_col,
                   (unsigned long long)(t1 - t0), width);
        AX_REQUIRE(k->col + k->label_cols <= width, "label \"%s\" off the edge", k->label);
        free_col = k->col + k->label_cols + AXIS_GAP;
        for (const char *p = k->label; *p; p++)
            if ((unsigned char)*p >= 0x80)
                *non_ascii = true;
    }
    return labelled;
}

START_TEST(test_axis_no_overlap)
{
    uint64_t seed = 99;
    bool non_ascii[2] = { false, false };
    long labelled = 0, layouts = 0;
    for (int width = 10; width <= 300; width++) {
        /* Spans from 1 ns to 10^13 ns in steps of about x3.2, at assorted offsets. */
        uint64_t span = 1 + (uint64_t)width % 3;
        for (; span <= UINT64_C(10000000000000); span = span * 16 / 5 + 1) {
            seed = seed * UINT64_C(6364136223846793005) + 1442695040888963407u;
            /* Starts from 0 up to far beyond the span (late logs, zoomed in). */
            uint64_t late = (seed >> 5) & 2 ? (seed >> 17) % UINT64_C(4000000000000) : 0;
            uint64_t t0 = late + (seed >> 33) % 1000 + (seed >> 13) % (span * 4 + 1);
            unsigned flags = (seed >> 7) & 1 ? AXIS_ASCII : 0;
            labelled += (long)ax_check_layout(t0, t0 + span, width, flags, &non_ascii[flags]);
            layouts++;
        }
    }
    ck_assert(!non_ascii[AXIS_ASCII]);
    ck_assert(non_ascii[0]);                    /* "µs" did occur in the UTF-8 runs */
    ck_assert_int_gt(labelled, layouts);        /* on average more than one label each */
}
END_TEST

Suite *
test_axis_suite(void)
{
    Suite *s = suite_create("axis");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_axis_labels);
    tcase_add_test(tc, test_axis_labels_parse_back);
    tcase_add_test(tc, test_axis_steps);
    tcase_add_test(tc, test_axis_layout_example);
    tcase_add_test(tc, test_axis_no_overlap);
    suite_add_tcase(s, tc);
    return s;
}
