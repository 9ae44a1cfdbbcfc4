/* tests/test_timeview: the view math — fit, zoom, pan, resize, cursor, selection, the
 * column grid — on worked examples, then fixed-seed random operation sequences checking
 * the invariants, exact column tiling, anchored zoom and zoom in/out reversibility. */
#include <stdlib.h>

#include "tests.h"
#include "timeview.h"

#define TV_L40 (UINT64_C(1) << 40)

/* Assert without Check's per-pass bookkeeping (a write per assertion), for hot loops. */
#define TV_REQUIRE(expr, ...) \
    do { \
        if (!(expr)) \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

static void
tv_ok(const timeview *v)
{
    const char *why = timeview_check(v);
    TV_REQUIRE(why == NULL, "invariant broken: %s (t0 %llu t1 %llu cur %llu w %d)", why,
                  (unsigned long long)v->t0_ns, (unsigned long long)v->t1_ns,
                  (unsigned long long)v->cursor_ns, v->width);
}

/* Columns tile [t0, t1) with no gap, overlap or empty column, and col_of inverts them. */
static void
tv_tiles(const timeview *v)
{
    uint64_t prev_b = v->t0_ns;
    for (int c = 0; c < v->width; c++) {
        uint64_t a = 0, b = 0;
        TV_REQUIRE(timeview_col_range(v, c, &a, &b), "no range for column %d", c);
        TV_REQUIRE(a == prev_b && a < b, "column %d: [%llu,%llu) after %llu", c,
                   (unsigned long long)a, (unsigned long long)b, (unsigned long long)prev_b);
        TV_REQUIRE(timeview_col_of(v, a) == c && timeview_col_of(v, b - 1) == c,
                   "column %d: col_of %d, %d", c, timeview_col_of(v, a),
                   timeview_col_of(v, b - 1));
        prev_b = b;
    }
    TV_REQUIRE(prev_b == v->t1_ns, "columns end at %llu", (unsigned long long)prev_b);
    TV_REQUIRE(timeview_col_of(v, v->t1_ns) == v->width, "t1 on screen");
    TV_REQUIRE(v->t0_ns == 0 || timeview_col_of(v, v->t0_ns - 1) == -1, "t0 - 1 on screen");
}

START_TEST(test_timeview_init_fit)
{
    timeview v;
    timeview_init(&v, 1000, 1999, 100);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, 1000);
    ck_assert_uint_eq(v.t1_ns, 2000);           /* the log end is on screen */
    ck_assert_uint_eq(v.cursor_ns, 1000);
    ck_assert(!timeview_has_selection(&v));
    ck_assert_int_eq(timeview_col_of(&v, 1999), 99);
    ck_assert_int_eq(timeview_col_of(&v, 1000), 0);
    tv_tiles(&v);

    timeview_zoom(&v, 0.5, 1500);
    ck_assert_uint_eq(v.t1_ns - v.t0_ns, 500);
    timeview_fit(&v);
    ck_assert_uint_eq(v.t0_ns, 1000);
    ck_assert_uint_eq(v.t1_ns, 2000);

    /* Reversed bounds and a zero width are repaired. */
    timeview_init(&v, 50, 10, 0);
    tv_ok(&v);
    ck_assert_int_eq(v.width, 1);
    ck_assert_uint_eq(v.log_end_ns, 50);
}
END_TEST

START_TEST(test_timeview_tiny)
{
    timeview v;
    /* A zero-length log on a 1-column plot. */
    timeview_init(&v, 5, 5, 1);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, 5);
    ck_assert_uint_eq(v.t1_ns, 6);
    ck_assert_int_eq(timeview_col_of(&v, 5), 0);
    ck_assert_uint_eq(timeview_hit_test(&v, 0), 5);
    timeview_zoom(&v, 0.5, 5);
    timeview_zoom(&v, 2, 5);
    timeview_pan_fraction(&v, 0.125);
    timeview_pan_views(&v, -3);
    timeview_cursor_move(&v, 4);
    timeview_cursor_move(&v, -4);
    timeview_end(&v);
    timeview_select_start(&v, 99);             /* the anchor clamped into the log */
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.anchor_ns, 5);
    ck_assert(!timeview_has_selection(&v));     /* from the cursor to itself */
    tv_tiles(&v);

    /* A zero-length log on a wide plot: 1 ns per column from the start, the cursor pinned. */
    timeview_init(&v, 5, 5, 80);
    tv_ok(&v);
    ck_assert_uint_eq(v.t1_ns, 85);
    timeview_cursor_move(&v, 10);
    ck_assert_uint_eq(v.cursor_ns, 5);
    ck_assert_uint_eq(timeview_hit_test(&v, 70), 5);
    tv_tiles(&v);

    /* Width 1 on a big log: the one column is the whole view. */
    timeview_init(&v, 0, TV_L40 - 1, 1);
    uint64_t a = 0, b = 0;
    ck_assert(timeview_col_range(&v, 0, &a, &b));
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, TV_L40);
    ck_assert(!timeview_col_range(&v, 1, &a, &b));
    ck_assert(!timeview_col_range(&v, -1, &a, &b));
    for (int i = 0; i < 60; i++)
        timeview_zoom(&v, 0.5, TV_L40 / 3);
    tv_ok(&v);
    ck_assert_uint_eq(v.t1_ns - v.t0_ns, 1);
    ck_assert_uint_eq(v.t0_ns, v.cursor_ns);
}
END_TEST

START_TEST(test_timeview_zoom)
{
    timeview v;
    timeview_init(&v, 0, TV_L40 - 1, 128);
    timeview_zoom(&v, 0.5, TV_L40 / 2);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, TV_L40 / 4);
    ck_assert_uint_eq(v.t1_ns, TV_L40 / 4 * 3);
    /* Anchored off-centre: the anchor's column is kept. */
    uint64_t anchor = TV_L40 / 4 + TV_L40 / 16;
    int col = timeview_col_of(&v, anchor);
    ck_assert_int_eq(col, 16);
    timeview_zoom(&v, 0.5, anchor);
    ck_assert_int_eq(timeview_col_of(&v, anchor), 16);
    timeview_zoom(&v, 2, anchor);
    ck_assert_uint_eq(v.t0_ns, TV_L40 / 4);
    ck_assert_uint_eq(v.t1_ns, TV_L40 / 4 * 3);
    /* Down to the floor: 1 ns per column, never less. */
    for (int i = 0; i < 50; i++)
        timeview_zoom(&v, 0.5, anchor);
    tv_ok(&v);
    ck_assert_uint_eq(v.t1_ns - v.t0_ns, 128);
    ck_assert_int_ge(timeview_col_of(&v, anchor), 15);
    ck_assert_int_le(timeview_col_of(&v, anchor), 17);
    ck_assert_double_eq(timeview_ns_per_col(&v), 1.0);
    /* And out to the whole log, nothing beyond. */
    for (int i = 0; i < 50; i++)
        timeview_zoom(&v, 2, anchor);
    ck_assert_uint_eq(v.t0_ns, 0);
    ck_assert_uint_eq(v.t1_ns, TV_L40);
    timeview_zoom(&v, 0.5, 0);              /* zooming out further did not pile up */
    ck_assert_uint_eq(v.t1_ns, TV_L40 / 2);
    timeview_zoom(&v, 2, 0);
    /* Nonsense factors change nothing. */
    timeview_zoom(&v, 0, anchor);
    timeview_zoom(&v, -2, anchor);
    ck_assert_uint_eq(v.t1_ns, TV_L40);
}
END_TEST

START_TEST(test_timeview_zoom_to)
{
    timeview v;
    timeview_init(&v, 1000, 1000 + 999999, 100);
    timeview_zoom_to(&v, 5000, 3000);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, 3000);
    ck_assert_uint_eq(v.t1_ns, 5000);
    ck_assert_uint_eq(v.cursor_ns, 3000);       /* dragged into the view */
    /* Narrower than 1 ns per column: widened about the middle. */
    timeview_zoom_to(&v, 10010, 10020);
    ck_assert_uint_eq(v.t0_ns, 9965);
    ck_assert_uint_eq(v.t1_ns, 10065);
    /* Past the log: clamped. */
    timeview_zoom_to(&v, 0, UINT64_MAX);
    ck_assert_uint_eq(v.t0_ns, 1000);
    ck_assert_uint_eq(v.t1_ns, 1001000);
    tv_ok(&v);
}
END_TEST

START_TEST(test_timeview_pan)
{
    timeview v;
    timeview_init(&v, 0, 799999, 80);
    timeview_zoom_to(&v, 400000, 480000);
    timeview_set_cursor(&v, 440000);
    ck_assert_int_eq(timeview_col_of(&v, v.cursor_ns), 40);
    timeview_pan_fraction(&v, 0.125);
    ck_assert_uint_eq(v.t0_ns, 410000);
    ck_assert_uint_eq(v.t1_ns, 490000);
    ck_assert_uint_eq(v.cursor_ns, 450000);     /* same column */
    timeview_pan_fraction(&v, -0.125);
    timeview_pan_fraction(&v, -0.125);
    ck_assert_uint_eq(v.t0_ns, 390000);
    timeview_pan_views(&v, 1);
    ck_assert_uint_eq(v.t0_ns, 470000);
    ck_assert_uint_eq(v.t1_ns, 550000);
    timeview_pan_views(&v, 100);                /* stops at the end */
    ck_assert_uint_eq(v.t1_ns, 800000);
    ck_assert_uint_eq(v.t0_ns, 720000);
    ck_assert_uint_eq(v.cursor_ns, 799999);
    tv_ok(&v);
    timeview_pan_views(&v, -100);
    ck_assert_uint_eq(v.t0_ns, 0);
    ck_assert_uint_eq(v.cursor_ns, 0);
    tv_ok(&v);
    timeview_end(&v);
    ck_assert_uint_eq(v.t1_ns, 800000);
    ck_assert_uint_eq(v.cursor_ns, 799999);
    timeview_home(&v);
    ck_assert_uint_eq(v.t0_ns, 0);
    ck_assert_uint_eq(v.t1_ns, 80000);
    ck_assert_uint_eq(v.cursor_ns, 0);
}
END_TEST

START_TEST(test_timeview_resize)
{
    timeview v;
    timeview_init(&v, 0, 999999, 100);
    timeview_zoom_to(&v, 2000, 7000);
    timeview_set_width(&v, 37);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, 2000);
    ck_assert_uint_eq(v.t1_ns, 7000);
    tv_tiles(&v);
    /* Below 1 ns per column the range grows to the new minimum. */
    timeview_zoom_to(&v, 5000, 5100);
    timeview_set_width(&v, 300);
    tv_ok(&v);
    ck_assert_uint_eq(v.t0_ns, 5000);
    ck_assert_uint_eq(v.t1_ns, 5300);
    timeview_set_width(&v, 0);
    ck_assert_int_eq(v.width, 1);
    tv_ok(&v);
}
END_TEST

START_TEST(test_timeview_columns)
{
    timeview v;
    /* 10 ns over 3 columns: [0,3) [3,6) [6,10). */
    timeview_init(&v, 0, 9, 3);
    uint64_t a = 0, b = 0;
    ck_assert(timeview_col_range(&v, 0, &a, &b));
    ck_assert_uint_eq(a, 0);
    ck_assert_uint_eq(b, 3);
    ck_assert(timeview_col_range(&v, 2, &a, &b));
    ck_assert_uint_eq(a, 6);
    ck_assert_uint_eq(b, 10);
    ck_assert_int_eq(timeview_col_of(&v, 5), 1);
    ck_assert_int_eq(timeview_col_of(&v, 6), 2);
    ck_assert_int_eq(timeview_col_of(&v, 10), 3);
    ck_assert_uint_eq(timeview_hit_test(&v, 2), 6);
    ck_assert_uint_eq(timeview_hit_test(&v, -5), 0);
    ck_assert_uint_eq(timeview_hit_test(&v, 99), 6);

    timeview_init(&v, 100, 100 + TV_L40 - 1, 217);
    timeview_zoom_to(&v, 100 + 12345, 100 + 12345 + 999983);
    ck_assert_int_eq(timeview_col_of(&v, 100), -1);
    ck_assert_int_eq(timeview_col_of(&v, UINT64_MAX), 217);
    tv_tiles(&v);
    ck_assert_int_eq(timeview_grid_col(0, 10, 3, 9), 2);
    ck_assert_int_eq(timeview_grid_col(7, 10, 3, 6), -1);
}
END_TEST

START_TEST(test_timeview_cursor)
{
    timeview v;
    timeview_init(&v, 0, 999999, 100);
    timeview_zoom_to(&v, 10000, 20000);         /* 100 ns per column */
    timeview_set_cursor(&v, 15050);
    ck_assert_uint_eq(v.cursor_ns, 15050);
    ck_assert_uint_eq(v.t0_ns, 10000);          /* visible: no scroll */
    timeview_cursor_move(&v, 1);
    ck_assert_uint_eq(v.cursor_ns, 15100);      /* start of the next column */
    timeview_cursor_move(&v, -3);
    ck_assert_uint_eq(v.cursor_ns, 14800);
    /* Off the right edge: scroll by whole columns, just enough. */
    timeview_set_cursor(&v, 19950);
    timeview_cursor_move(&v, 2);
    ck_assert_uint_eq(v.t0_ns, 10200);
    ck_assert_uint_eq(v.t1_ns, 20200);
    ck_assert_uint_eq(v.cursor_ns, 20100);
    timeview_set_cursor(&v, 10200);
    timeview_cursor_move(&v, -1);
    ck_assert_uint_eq(v.t0_ns, 10100);
    ck_assert_uint_eq(v.cursor_ns, 10100);
    /* set_cursor scrolls minimally like less, in both directions. */
    timeview_set_cursor(&v, 50000);
    ck_assert_uint_eq(v.t1_ns, 50001);
    ck_assert_uint_eq(v.cursor_ns, 50000);
    timeview_set_cursor(&v, 3000);
    ck_assert_uint_eq(v.t0_ns, 3000);
    timeview_set_cursor(&v, UINT64_MAX);
    ck_assert_uint_eq(v.cursor_ns, 999999);
    ck_assert_uint_eq(v.t1_ns, 1000000);
    tv_ok(&v);
    /* At the log edges the cursor stops. */
    timeview_cursor_move(&v, 5);
    tv_ok(&v);
    ck_assert_uint_eq(v.t1_ns, 1000000);
    timeview_home(&v);
    timeview_cursor_move(&v, -5);
    ck_assert_uint_eq(v.cursor_ns, 0);
    ck_assert_uint_eq(v.t0_ns, 0);
}
END_TEST

START_TEST(test_timeview_center)
{
    timeview v;
    timeview_init(&v, 0, 999999, 100);
    timeview_zoom_to(&v, 10000, 20000);
    timeview_center_on(&v, 12000);              /* visible: only the cursor moves */
    ck_assert_uint_eq(v.t0_ns, 10000);
    ck_assert_uint_eq(v.cursor_ns, 12000);
    timeview_center_on(&v, 500000);             /* off screen: centred, zoom kept */
    ck_assert_uint_eq(v.cursor_ns, 500000);
    ck_assert_uint_eq(v.t1_ns - v.t0_ns, 10000);
    ck_assert_int_eq(timeview_col_of(&v, 500000), 50);
    timeview_center_on(&v, 999000);             /* near the end: as centred as the log allows */
    ck_assert_uint_eq(v.t1_ns, 1000000);
    ck_assert_uint_eq(v.cursor_ns, 999000);
    timeview_set_cursor(&v, 991000);
    timeview_recenter(&v);
    ck_assert_int_eq(timeview_col_of(&v, 991000), 50);
    tv_ok(&v);
}
END_TEST

START_TEST(test_timeview_selection)
{
    timeview v;
    timeview_init(&v, 0, 999999, 100);
    timeview_zoom_to(&v, 10000, 20000);         /* 100 ns per column */
    timeview_set_cursor(&v, 12050);             /* inside column 20, not at its edge */
    timeview_select_start(&v, v.cursor_ns);
    tv_ok(&v);
    ck_assert(v.sel.active);
    ck_assert(!timeview_has_selection(&v));     /* nothing yet: from the cursor to itself */
    ck_assert_uint_eq(v.sel.a_ns, 12050);
    timeview_cursor_move(&v, 3);                /* an active selection follows the cursor */
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.a_ns, 12050);       /* the anchor's exact time */
    ck_assert_uint_eq(v.sel.b_ns, 12300);       /* the cursor's: column 23's start */
    timeview_cursor_move(&v, -10);
    ck_assert_uint_eq(v.sel.a_ns, 11300);
    ck_assert_uint_eq(v.sel.b_ns, 12050);
    timeview_set_cursor(&v, 17777);             /* an item's time, mid-column */
    ck_assert_uint_eq(v.sel.a_ns, 12050);
    ck_assert_uint_eq(v.sel.b_ns, 17777);
    timeview_select_end(&v);
    ck_assert(!v.sel.active);
    timeview_cursor_move(&v, 50);
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.a_ns, 12050);
    ck_assert_uint_eq(v.sel.b_ns, 17777);
    ck_assert(timeview_has_selection(&v));
    timeview_zoom_to(&v, v.sel.a_ns, v.sel.b_ns);
    ck_assert_uint_eq(v.t0_ns, 12050);
    ck_assert_uint_eq(v.t1_ns, 17777);
    timeview_select_clear(&v);
    ck_assert(!timeview_has_selection(&v));
    ck_assert(!v.sel.active);

    /* Two items' exact times, as n n between markers leaves them: the difference exactly,
     * however wide the columns (the old selection widened both ends to their columns). */
    timeview_fit(&v);                           /* 10000 ns per column */
    timeview_center_on(&v, 1287);
    timeview_select_start(&v, v.cursor_ns);
    timeview_center_on(&v, 5781);
    timeview_select_end(&v);
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.b_ns - v.sel.a_ns, 5781 - 1287);

    /* Off-screen ends are exact too, and the cursor may go before the anchor. */
    timeview_zoom_to(&v, 10000, 20000);
    timeview_set_cursor(&v, 15050);
    timeview_select_start(&v, 500);
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.a_ns, 500);
    ck_assert_uint_eq(v.sel.b_ns, 15050);
    timeview_end(&v);
    tv_ok(&v);
    ck_assert_uint_eq(v.sel.b_ns, 999999);
    timeview_select_clear(&v);
    tv_ok(&v);
}
END_TEST

/* ---- property tests ------------------------------------------------------------------ */

static uint64_t
tv_rand(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint64_t
tv_rand_in(uint64_t *s, uint64_t lo, uint64_t hi)      /* inclusive */
{
    return lo + (hi - lo == UINT64_MAX ? tv_rand(s) : tv_rand(s) % (hi - lo + 1));
}

/* A time: mostly inside the view (where the user acts), sometimes anywhere or beyond. */
static uint64_t
tv_rand_time(uint64_t *s, const timeview *v)
{
    switch (tv_rand(s) % 4) {
    case 0:
        return tv_rand_in(s, v->log_start_ns, v->log_end_ns + 10);
    case 1:
        return tv_rand(s) % 8 == 0 ? 0 : v->cursor_ns;
    default:
        return tv_rand_in(s, v->t0_ns, v->t1_ns - 1);
    }
}

static int
tv_absdiff_le1(uint64_t a, uint64_t b)
{
    return (a > b ? a - b : b - a) <= 1;
}

/* The view touches neither log edge and is above the minimum span: no clamp acted. */
static int
tv_free(const timeview *v)
{
    return v->t0_ns > v->log_start_ns && v->t1_ns < v->log_end_ns + 1
           && v->t1_ns - v->t0_ns > (uint64_t)v->width;
}

typedef struct tv_stats {
    long round_trips, exact_round_trips, anchored;
} tv_stats;

static void
tv_random_op(uint64_t *s, timeview *v, tv_stats *st)
{
    switch (tv_rand(s) % 16) {
    case 0:
    case 1: {       /* zoom in then out at one anchor */
        uint64_t anchor = tv_rand_in(s, v->t0_ns, v->t1_ns - 1);
        anchor = anchor > v->log_end_ns ? v->log_end_ns : anchor;
        timeview before = *v;
        int col = timeview_col_of(v, anchor);
        timeview_zoom(v, 0.5, anchor);
        if (!tv_free(v) || (before.t1_ns - before.t0_ns) < 2 * (uint64_t)v->width + 2)
            break;
        st->anchored++;
        int col_in = timeview_col_of(v, anchor);
        TV_REQUIRE(col_in >= col - 1 && col_in <= col + 1, "anchor col %d -> %d", col, col_in);
        timeview_zoom(v, 2, anchor);
        st->round_trips++;
        TV_REQUIRE(tv_absdiff_le1(v->t0_ns, before.t0_ns)
                   && tv_absdiff_le1(v->t1_ns, before.t1_ns),
                   "in+out: [%llu,%llu) -> [%llu,%llu)", (unsigned long long)before.t0_ns,
                   (unsigned long long)before.t1_ns, (unsigned long long)v->t0_ns,
                   (unsigned long long)v->t1_ns);
        if (v->t0_ns == before.t0_ns && v->t1_ns == before.t1_ns)
            st->exact_round_trips++;
        break;
    }
    case 2: {       /* anchored zoom by another factor */
        uint64_t anchor = v->cursor_ns;
        int col = timeview_col_of(v, anchor);
        double f = (tv_rand(s) % 2) ? 0.3 : 1.7;
        timeview_zoom(v, f, anchor);
        if (tv_free(v)) {
            int now = timeview_col_of(v, anchor);
            TV_REQUIRE(now >= col - 1 && now <= col + 1, "anchor col %d -> %d", col, now);
        }
        break;
    }
    case 3:
        timeview_zoom(v, (tv_rand(s) % 2) ? 0.5 : 2, tv_rand_time(s, v));
        break;
    case 4:
        timeview_pan_fraction(v, (tv_rand(s) % 2) ? 0.125 : -0.125);
        break;
    case 5:
        timeview_pan_views(v, (int)(tv_rand(s) % 5) - 2);
        break;
    case 6:
        timeview_set_width(v, (int)tv_rand_in(s, 1, 400));
        break;
    case 7:
        if (tv_rand(s) % 4 == 0)
            timeview_fit(v);
        else if (tv_rand(s) % 2)
            timeview_home(v);
        else
            timeview_end(v);
        break;
    case 8:
        timeview_cursor_move(v, (int)(tv_rand(s) % 21) - 10);
        break;
    case 9: {
        uint64_t t = tv_rand_time(s, v);
        timeview_set_cursor(v, t);
        uint64_t want = t < v->log_start_ns ? v->log_start_ns
                        : t > v->log_end_ns ? v->log_end_ns : t;
        TV_REQUIRE(v->cursor_ns == want, "cursor %llu, wanted %llu",
                   (unsigned long long)v->cursor_ns, (unsigned long long)want);
        break;
    }
    case 10:
        timeview_center_on(v, tv_rand_time(s, v));
        break;
    case 11: {
        uint64_t a = tv_rand_time(s, v), b = tv_rand_time(s, v);
        timeview_zoom_to(v, a, b);
        break;
    }
    case 12:
        timeview_select_start(v, v->cursor_ns);
        break;
    case 13:
        if (tv_rand(s) % 2)
            timeview_select_end(v);
        else
            timeview_select_clear(v);
        break;
    case 14:
        timeview_select_start(v, tv_rand_time(s, v));      /* anchored anywhere */
        break;
    default:
        timeview_recenter(v);
        break;
    }
}

START_TEST(test_timeview_random_ops)
{
    static const uint64_t lens[] = { 1, 2, 57, 1000, 1000003, TV_L40, TV_L40 + 12345,
                                     (UINT64_C(1) << 53) - 1 };
    static const uint64_t starts[] = { 0, 17, UINT64_C(123456789012) };
    uint64_t seed = 42;
    tv_stats st = { 0, 0, 0 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        for (size_t j = 0; j < sizeof starts / sizeof starts[0]; j++) {
            timeview v;
            int width = (int)tv_rand_in(&seed, 1, 300);
            timeview_init(&v, starts[j], starts[j] + lens[i] - 1, width);
            tv_ok(&v);
            for (int k = 0; k < 400; k++) {
                tv_random_op(&seed, &v, &st);
                tv_ok(&v);
                if (k % 8 == 0)
                    tv_tiles(&v);
            }
        }
    }
    /* The sequences really exercised unclamped zooms, and doubles made most exact. */
    ck_assert_int_gt(st.anchored, 200);
    ck_assert_int_gt(st.round_trips, 200);
    ck_assert_int_ge(st.exact_round_trips * 10, st.round_trips * 9);
}
END_TEST

Suite *
test_timeview_suite(void)
{
    Suite *s = suite_create("timeview");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_timeview_init_fit);
    tcase_add_test(tc, test_timeview_tiny);
    tcase_add_test(tc, test_timeview_zoom);
    tcase_add_test(tc, test_timeview_zoom_to);
    tcase_add_test(tc, test_timeview_pan);
    tcase_add_test(tc, test_timeview_resize);
    tcase_add_test(tc, test_timeview_columns);
    tcase_add_test(tc, test_timeview_cursor);
    tcase_add_test(tc, test_timeview_center);
    tcase_add_test(tc, test_timeview_selection);
    tcase_add_test(tc, test_timeview_random_ops);
    suite_add_tcase(s, tc);
    return s;
}
