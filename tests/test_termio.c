/* tests/test_termio: the theme table, and the termio layer through the libtickit
 * backend on a TickitMockTerm — cell text and pens per style in all three modes,
 * incremental presents, resize, key names, mouse, quit signals and closing. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../ui/termio_int.h"
#include "../ui/termio_mock.h"
#include "surface.h"
#include "termio.h"
#include "tests.h"
#include "theme.h"

/* Text of `width` cells of the mock from (line, col); static buffer. */
static const char *
tt_text(termio *t, int line, int col, int width)
{
    static char buf[512];
    /* get_display_text writes a NUL one past the length it is given. */
    size_t n = tickit_mockterm_get_display_text(termio_mock_term(t), buf, sizeof buf - 1, line,
                                                col, width);
    buf[n < sizeof buf ? n : sizeof buf - 1] = '\0';
    return buf;
}

static termio *
tt_open(int cols, int lines, bool force, theme_mode mode)
{
    termio_opts o = termio_default_opts();
    o.force_theme = force;
    o.theme = mode;
    termio *t = termio_open_mock(cols, lines, &o);
    ck_assert_ptr_nonnull(termio_mock_term(t));
    return t;
}

/* Number of log entries of `type` since the last clearlog. */
static int
tt_log_count(termio *t, int type)
{
    TickitMockTerm *mt = termio_mock_term(t);
    int n = 0;
    for (int i = 0; i < tickit_mockterm_loglen(mt); i++)
        if ((int)tickit_mockterm_peeklog(mt, i)->type == type)
            n++;
    return n;
}

static int64_t
tt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- theme --- */

START_TEST(test_theme_table_complete)
{
    for (int i = 0; i < STYLE_COUNT; i++) {
        const char *name = theme_style_name((unsigned)i);
        ck_assert_ptr_nonnull(name);
        ck_assert_int_eq(theme_style_lookup(name), i);
        theme_look l256 = theme_get(THEME_256, (unsigned)i);
        theme_look l8 = theme_get(THEME_8, (unsigned)i);
        theme_look lmono = theme_get(THEME_MONO, (unsigned)i);
        ck_assert_msg(l256.fg >= -1 && l256.fg <= 255 && l256.bg >= -1 && l256.bg <= 255,
                      "%s: 256-colour value out of range", name);
        ck_assert_msg(l8.fg >= -1 && l8.fg <= 7 && l8.bg >= -1 && l8.bg <= 7,
                      "%s: 8-colour value out of range", name);
        ck_assert_msg(lmono.fg == -1 && lmono.bg == -1, "%s: mono has a colour", name);
        unsigned all = THEME_BOLD | THEME_UNDER | THEME_REVERSE;
        ck_assert((l256.attrs & ~all) == 0 && (l8.attrs & ~all) == 0 &&
                  (lmono.attrs & ~all) == 0);
        /* A style with a colour of its own must still be visible without colour. */
        bool coloured = l256.fg != -1 || l256.bg != -1;
        /* Lane styles are exempt: in monochrome their glyphs tell them apart. */
        bool lane = i == STYLE_IDLE || i == STYLE_RUNNING || i == STYLE_GC_WAIT ||
                    i == STYLE_NM_MARK || i == STYLE_NM_SWEEP;
        if (coloured && !lane && i != STYLE_AXIS && i != STYLE_LANE_LABEL &&
            i != STYLE_ACTIVITY && i != STYLE_HEAP_SIZE && i != STYLE_SPARKS &&
            i != STYLE_BAND_OTHER && i != STYLE_MEMORY && i != STYLE_TICKY &&
            i != STYLE_DETAIL && i != STYLE_EVENT_LIST)
            ck_assert_msg(lmono.attrs != 0, "%s has no monochrome attributes", name);
    }
    ck_assert_ptr_null(theme_style_name(STYLE_COUNT));
    ck_assert_int_eq(theme_style_lookup("running_hl"), STYLE_RUNNING_HL);
    ck_assert_int_eq(theme_style_lookup("NOPE"), -1);
    ck_assert_int_eq(theme_style_lookup(NULL), -1);
    theme_look unknown = theme_get(THEME_256, 250);
    theme_look def = theme_get(THEME_256, STYLE_DEFAULT);
    ck_assert(unknown.fg == def.fg && unknown.bg == def.bg && unknown.attrs == def.attrs);
    ck_assert_str_eq(theme_mode_name(THEME_8), "8");
}
END_TEST

/* Runs, GC and idle time must never look alike, in any mode. */
START_TEST(test_theme_lanes_distinct)
{
    static const style_id lanes[] = {
        STYLE_IDLE, STYLE_RUNNING, STYLE_RUNNING_HL, STYLE_GC_WORK,
        STYLE_GC_WAIT, STYLE_NM_MARK, STYLE_NM_SYNC, STYLE_NM_SWEEP,
    };
    size_t n = sizeof lanes / sizeof lanes[0];
    for (int mode = THEME_256; mode <= THEME_MONO; mode++) {
        for (size_t i = 0; i < n; i++) {
            for (size_t j = i + 1; j < n; j++) {
                theme_look a = theme_get((theme_mode)mode, lanes[i]);
                theme_look b = theme_get((theme_mode)mode, lanes[j]);
                /* Lanes are block glyphs coloured by the foreground; in mono only
                 * their glyphs differ, which the lanes tests check. */
                if (mode == THEME_MONO)
                    continue;
                bool differ = a.fg != b.fg || a.bg != b.bg;
                ck_assert_msg(differ, "%s and %s look alike in %s mode",
                              theme_style_name(lanes[i]), theme_style_name(lanes[j]),
                              theme_mode_name((theme_mode)mode));
            }
        }
    }
}
END_TEST

START_TEST(test_theme_choose)
{
    ck_assert_int_eq(theme_choose(NULL, 256), THEME_256);
    ck_assert_int_eq(theme_choose(NULL, 16777216), THEME_256);
    ck_assert_int_eq(theme_choose(NULL, 88), THEME_8);
    ck_assert_int_eq(theme_choose(NULL, 8), THEME_8);
    ck_assert_int_eq(theme_choose(NULL, 2), THEME_MONO);
    ck_assert_int_eq(theme_choose(NULL, -1), THEME_MONO);
    ck_assert_int_eq(theme_choose("", 256), THEME_256);
    ck_assert_int_eq(theme_choose("1", 256), THEME_MONO);
    ck_assert_int_eq(theme_choose("0", 8), THEME_MONO);
}
END_TEST

/* --- mock backend --- */

/* Draw every style once, present, and check each cell's pen against the theme. */
static void
tt_check_pens(bool force, theme_mode mode)
{
    termio *t = tt_open(16, 4, force, mode);
    ck_assert_int_eq(termio_theme_mode(t), mode);
    surface *s = surface_new(16, 4);
    for (int i = 0; i < STYLE_COUNT; i++)
        surface_put(s, i % 16, i / 16, 'A' + (uint32_t)i % 26, (uint8_t)i);
    termio_present(t, s);
    TickitMockTerm *mt = termio_mock_term(t);
    for (int i = 0; i < STYLE_COUNT; i++) {
        theme_look want = theme_get(mode, (unsigned)i);
        TickitPen *pen = tickit_mockterm_get_display_pen(mt, i / 16, i % 16);
        const char *name = theme_style_name((unsigned)i);
        ck_assert_msg(tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG) == want.fg,
                      "%s fg %d want %d", name, tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG),
                      want.fg);
        ck_assert_msg(tickit_pen_get_colour_attr(pen, TICKIT_PEN_BG) == want.bg, "%s bg", name);
        ck_assert_msg(tickit_pen_get_bool_attr(pen, TICKIT_PEN_BOLD) ==
                      !!(want.attrs & THEME_BOLD), "%s bold", name);
        ck_assert_msg(tickit_pen_get_bool_attr(pen, TICKIT_PEN_REVERSE) ==
                      !!(want.attrs & THEME_REVERSE), "%s reverse", name);
        ck_assert_msg((tickit_pen_get_int_attr(pen, TICKIT_PEN_UNDER) > 0) ==
                      !!(want.attrs & THEME_UNDER), "%s underline", name);
        char ch[2] = { (char)('A' + i % 26), '\0' };
        ck_assert_str_eq(tt_text(t, i / 16, i % 16, 1), ch);
    }
    surface_free(s);
    termio_free(t);
}

START_TEST(test_termio_pens_256)
{
    tt_check_pens(false, THEME_256);
    /* Spot checks against literal values, so a broken table cannot pass by itself. */
    termio *t = tt_open(4, 1, false, THEME_256);
    surface *s = surface_new(4, 1);
    surface_put(s, 0, 0, ' ', STYLE_RUNNING);
    surface_put(s, 1, 0, ' ', STYLE_GC_WORK);
    termio_present(t, s);
    TickitPen *run = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 0);
    TickitPen *gc = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 1);
    TickitPen *def = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 2);
    ck_assert_int_eq(tickit_pen_get_colour_attr(run, TICKIT_PEN_FG), 34);
    ck_assert_int_eq(tickit_pen_get_colour_attr(gc, TICKIT_PEN_FG), 202);
    ck_assert_int_eq(tickit_pen_get_colour_attr(def, TICKIT_PEN_BG), -1);
    ck_assert_int_eq(tickit_pen_get_colour_attr(def, TICKIT_PEN_FG), -1);
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_pens_8)
{
    tt_check_pens(true, THEME_8);
    termio *t = tt_open(4, 1, true, THEME_8);
    surface *s = surface_new(4, 1);
    surface_put(s, 0, 0, ' ', STYLE_RUNNING_HL);
    termio_present(t, s);
    TickitPen *hl = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 0);
    ck_assert_int_eq(tickit_pen_get_colour_attr(hl, TICKIT_PEN_FG), 7);
    ck_assert(tickit_pen_get_bool_attr(hl, TICKIT_PEN_BOLD));
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_pens_mono)
{
    tt_check_pens(true, THEME_MONO);
    /* NO_COLOR alone selects monochrome too. */
    setenv("NO_COLOR", "1", 1);
    termio *t = termio_open_mock(4, 1, NULL);
    unsetenv("NO_COLOR");
    ck_assert_int_eq(termio_theme_mode(t), THEME_MONO);
    surface *s = surface_new(4, 1);
    surface_put(s, 0, 0, ' ', STYLE_RUNNING);
    surface_put(s, 1, 0, ' ', STYLE_GC_WORK);
    surface_put(s, 2, 0, ' ', STYLE_GC_WAIT);
    termio_present(t, s);
    TickitMockTerm *mt = termio_mock_term(t);
    ck_assert(!tickit_pen_get_bool_attr(tickit_mockterm_get_display_pen(mt, 0, 0),
                                        TICKIT_PEN_REVERSE));
    ck_assert(!tickit_pen_get_bool_attr(tickit_mockterm_get_display_pen(mt, 0, 0),
                                        TICKIT_PEN_BOLD));
    ck_assert(tickit_pen_get_bool_attr(tickit_mockterm_get_display_pen(mt, 0, 1),
                                       TICKIT_PEN_BOLD));
    ck_assert_int_eq(tickit_pen_get_colour_attr(tickit_mockterm_get_display_pen(mt, 0, 1),
                                                TICKIT_PEN_BG), -1);
    ck_assert_int_gt(tickit_pen_get_int_attr(tickit_mockterm_get_display_pen(mt, 0, 2),
                                             TICKIT_PEN_UNDER), 0);
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_present_text)
{
    termio *t = tt_open(12, 3, false, THEME_256);
    int cols = 0, lines = 0;
    termio_size(t, &cols, &lines);
    ck_assert_int_eq(cols, 12);
    ck_assert_int_eq(lines, 3);
    ck_assert_str_eq(termio_backend_name(t), "mock");
    surface *s = surface_new(12, 3);
    surface_text(s, 1, 0, "héllo ─▌⠿", STYLE_STATUS, -1);
    surface_text(s, 0, 2, "bottom-right", STYLE_DETAIL, -1);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 36);
    ck_assert_str_eq(tt_text(t, 0, 0, 12), " héllo ─▌⠿  ");
    ck_assert_str_eq(tt_text(t, 1, 0, 12), "            ");
    ck_assert_str_eq(tt_text(t, 2, 0, 12), "bottom-right");
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_present_incremental)
{
    termio *t = tt_open(10, 3, false, THEME_256);
    TickitMockTerm *mt = termio_mock_term(t);
    surface *s = surface_new(10, 3);
    surface_text(s, 0, 0, "aaaaaaaaaa", STYLE_RUNNING, -1);
    surface_text(s, 0, 1, "bbbbbbbbbb", STYLE_GC_WORK, -1);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 30);

    /* Nothing changed: nothing printed. */
    tickit_mockterm_clearlog(mt);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 0);
    ck_assert_int_eq(tt_log_count(t, LOG_PRINT), 0);
    ck_assert_int_eq(tt_log_count(t, LOG_CLEAR), 0);

    /* Two cells on two lines, plus a style-only change: exactly those are sent. */
    surface_put(s, 3, 0, 'X', STYLE_RUNNING);
    surface_put(s, 9, 2, 'Y', STYLE_MARKER);
    surface_put(s, 5, 1, 'b', STYLE_GC_WAIT);
    tickit_mockterm_clearlog(mt);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 3);
    ck_assert_int_eq(tt_log_count(t, LOG_CLEAR), 0);
    ck_assert_int_eq(tt_log_count(t, LOG_PRINT), 3);
    size_t printed = 0;
    for (int i = 0; i < tickit_mockterm_loglen(mt); i++) {
        TickitMockTermLogEntry *e = tickit_mockterm_peeklog(mt, i);
        if (e->type == LOG_PRINT)
            printed += strlen(e->str);
    }
    ck_assert_uint_eq(printed, 3);
    ck_assert_str_eq(tt_text(t, 0, 0, 10), "aaaXaaaaaa");
    ck_assert_str_eq(tt_text(t, 1, 0, 10), "bbbbbbbbbb");
    ck_assert_str_eq(tt_text(t, 2, 0, 10), "         Y");
    ck_assert_int_eq(tickit_pen_get_colour_attr(tickit_mockterm_get_display_pen(mt, 1, 5),
                                                TICKIT_PEN_FG), 180);

    /* A forced redraw clears and sends everything. */
    termio_force_redraw(t);
    tickit_mockterm_clearlog(mt);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 30);
    ck_assert_int_eq(tt_log_count(t, LOG_CLEAR), 1);
    ck_assert_str_eq(tt_text(t, 0, 0, 10), "aaaXaaaaaa");

    /* A differently sized surface is a full redraw too. */
    surface_resize(s, 4, 2);
    surface_text(s, 0, 0, "zz", STYLE_DEFAULT, -1);
    tickit_mockterm_clearlog(mt);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 8);
    ck_assert_int_eq(tt_log_count(t, LOG_CLEAR), 1);
    ck_assert_str_eq(tt_text(t, 0, 0, 10), "zz        ");
    ck_assert_str_eq(tt_text(t, 2, 0, 10), "          ");
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_resize)
{
    termio *t = tt_open(20, 4, false, THEME_256);
    surface *s = surface_new(20, 4);
    surface_text(s, 0, 0, "first frame", STYLE_DEFAULT, -1);
    termio_present(t, s);
    termio_event ev;
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);

    termio_mock_resize(t, 30, 6);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_RESIZE);
    ck_assert_int_eq(ev.cols, 30);
    ck_assert_int_eq(ev.lines, 6);
    int cols, lines;
    termio_size(t, &cols, &lines);
    ck_assert_int_eq(cols, 30);
    ck_assert_int_eq(lines, 6);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);

    /* Same-size surface after a resize still goes out in full. */
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 80);
    surface_resize(s, 30, 6);
    surface_text(s, 0, 5, "last line", STYLE_DEFAULT, -1);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 180);
    ck_assert_str_eq(tt_text(t, 5, 0, 9), "last line");

    /* Two resizes before a poll give one event with the final size. */
    termio_mock_resize(t, 8, 2);
    termio_mock_resize(t, 9, 3);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_RESIZE);
    ck_assert_int_eq(ev.cols, 9);
    ck_assert_int_eq(ev.lines, 3);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);

    /* The surface is now bigger than the terminal: clipped, not wrapped. */
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 27);
    ck_assert_str_eq(tt_text(t, 2, 0, 9), "         ");
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_tiny)
{
    termio *t = termio_open_mock(0, -5, NULL);
    int cols, lines;
    termio_size(t, &cols, &lines);
    ck_assert_int_eq(cols, 1);
    ck_assert_int_eq(lines, 1);
    surface *s = surface_new(1, 1);
    surface_text(s, 0, 0, "Q", STYLE_STATUS_WARN, -1);
    termio_present(t, s);
    ck_assert_str_eq(tt_text(t, 0, 0, 1), "Q");
    surface_resize(s, 5, 5);
    surface_text(s, 0, 0, "RSTUV", STYLE_STATUS, -1);
    termio_present(t, s);
    ck_assert_str_eq(tt_text(t, 0, 0, 1), "R");
    surface_resize(s, 0, 0);
    termio_present(t, s);
    ck_assert_uint_eq(termio_cells_sent(t), 0);
    ck_assert_str_eq(tt_text(t, 0, 0, 1), " ");
    surface_free(s);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_keys)
{
    static const struct {
        const char *bytes;
        const char *name;
        int mods;
    } keys[] = {
        { "\x1b[B", "Down", 0 }, { "\x1b[A", "Up", 0 }, { "\x1b[C", "Right", 0 },
        { "\x1b[D", "Left", 0 }, { "a", "a", 0 }, { "+", "+", 0 }, { "?", "?", 0 },
        { "/", "/", 0 }, { "]", "]", 0 }, { ".", ".", 0 }, { " ", "Space", 0 },
        { "\x0c", "C-l", TERMIO_MOD_CTRL }, { "\x03", "C-c", TERMIO_MOD_CTRL },
        { "\r", "Enter", 0 }, { "\t", "Tab", 0 }, { "\x7f", "Backspace", 0 },
        { "\x1b[5~", "PageUp", 0 }, { "\x1b[6~", "PageDown", 0 }, { "\x1b[H", "Home", 0 },
        { "\x1b[F", "End", 0 }, { "\x1b[3~", "Delete", 0 }, { "\x1bOP", "F1", 0 },
        { "\x1b[15~", "F5", 0 }, { "\x1b[Z", "S-Tab", TERMIO_MOD_SHIFT },
        { "\x1b[1;5D", "C-Left", TERMIO_MOD_CTRL }, { "\x1b" "a", "M-a", TERMIO_MOD_ALT },
        { "\x1b ", "M-Space", TERMIO_MOD_ALT }, { "é", "é", 0 },
    };
    termio *t = tt_open(10, 2, false, THEME_256);
    termio_event ev;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        termio_mock_input(t, keys[i].bytes, strlen(keys[i].bytes));
        ck_assert_msg(termio_poll(t, 0, &ev) == 1, "no event for key %zu", i);
        ck_assert_int_eq(ev.kind, TERMIO_EV_KEY);
        ck_assert_str_eq(ev.key, keys[i].name);
        ck_assert_int_eq(ev.mods, keys[i].mods);
        ck_assert_msg(termio_poll(t, 0, &ev) == 0, "extra event after key %zu", i);
    }
    /* C-Space is a NUL byte. */
    termio_mock_input(t, "\0", 1);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_str_eq(ev.key, "C-Space");

    /* Several keys in one read arrive in order. */
    termio_mock_input(t, "q\x1b[6~z", 6);
    const char *want[] = { "q", "PageDown", "z" };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
        ck_assert_str_eq(ev.key, want[i]);
    }
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);

    /* A lone ESC is Escape once the escape delay has passed. */
    termio_mock_input(t, "\x1b", 1);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);
    ck_assert_int_eq(termio_poll(t, 500, &ev), 1);
    ck_assert_str_eq(ev.key, "Escape");
    termio_free(t);
}
END_TEST

/* The last key of everything queued ("" if none). */
static const char *
tt_last_key(termio *t)
{
    static char last[TERMIO_KEY_MAX];
    last[0] = '\0';
    termio_event ev;
    while (termio_poll(t, 0, &ev))
        if (ev.kind == TERMIO_EV_KEY)
            memcpy(last, ev.key, sizeof last);
    return last;
}

/* Feed `bytes` (len) then, once input has been quiet, `q`: q must come out last. */
static void
tt_then_q(termio *t, const char *bytes, size_t len, const char *what)
{
    termio_mock_input(t, bytes, len);
    tt_last_key(t);
    termio_mock_advance(t, TERMIO_SEQ_DELAY_MS);
    tt_last_key(t);
    termio_mock_input(t, "q", 1);
    ck_assert_msg(strcmp(tt_last_key(t), "q") == 0, "q lost after %s", what);
    ck_assert_uint_eq(termio_mock_termkey_resets(t), 0);
}

/* Issue 17 #1: libtermkey 0.22 keeps 256 bytes; an escape sequence longer than that
 * used to fill it for good (no key worked again, the backend spun at 100% CPU). */
START_TEST(test_termio_long_sequences)
{
    termio *t = tt_open(20, 4, false, THEME_256);
    char buf[1200];
    size_t n = 0;
    n += (size_t)sprintf(buf, "\x1b[");
    for (int i = 0; i < 300; i++)
        n += (size_t)sprintf(buf + n, "1;");
    tt_then_q(t, buf, n, "a CSI of 602 bytes with no end");
    n = (size_t)sprintf(buf, "\x1b]2;");
    memset(buf + n, 'A', 500);
    tt_then_q(t, buf, n + 500, "an OSC of 500 bytes with no ST");
    /* Ended but too long: dropped whole, the key after it arrives at once. */
    n = (size_t)sprintf(buf, "\x1b[");
    memset(buf + n, '9', 300);
    n += 300;
    n += (size_t)sprintf(buf + n, "mj");
    termio_mock_input(t, buf, n);
    ck_assert_str_eq(tt_last_key(t), "j");
    /* The same in C1 form, and a flood of ESC bytes. */
    buf[0] = (char)0x9b;
    memset(buf + 1, '1', 400);
    tt_then_q(t, buf, 401, "a C1 CSI of 401 bytes");
    memset(buf, 0x1b, 1000);
    tt_then_q(t, buf, 1000, "1000 ESC bytes");
    termio_free(t);
}
END_TEST

/* CSIs libtermkey 0.22 reads out of bounds (found by fuzz_keys_tickit): ESC [ SP A
 * indexes its cursor-key table with the intermediate byte folded in and crashed the
 * viewer; 17 arguments overflow its argument array. Dropped before it sees them. */
START_TEST(test_termio_termkey_traps)
{
    termio *t = tt_open(20, 4, false, THEME_256);
    static const char *const traps[] = {
        "\x1b[ A", "\x1b[?A", "\x1b[<R", "\x1b[*F", "\x9b H",
        "\x1b[1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1;1A", "\x1b[27~",
        "\x1bO\x90", "\xc3\x1b[ A",
    };
    for (size_t i = 0; i < sizeof traps / sizeof traps[0]; i++)
        tt_then_q(t, traps[i], strlen(traps[i]), traps[i]);
    /* Keys around them still arrive. */
    termio_mock_input(t, "a\x1b[ Ab", 6);
    termio_event ev;
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_str_eq(ev.key, "a");
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_str_eq(ev.key, "b");
    termio_free(t);
}
END_TEST

/* Issue 11 #6: Home and End in every common encoding. */
START_TEST(test_termio_home_end)
{
    static const struct {
        const char *bytes, *name;
    } keys[] = {
        { "\x1b[1~", "Home" }, { "\x1b[7~", "Home" }, { "\x1b[H", "Home" }, { "\x1bOH", "Home" },
        { "\x1b[4~", "End" },  { "\x1b[8~", "End" },  { "\x1b[F", "End" },  { "\x1bOF", "End" },
        { "\x1b[1;5~", "C-Home" }, { "\x1b[4;2~", "S-End" },
    };
    termio *t = tt_open(20, 4, false, THEME_256);
    termio_event ev;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        termio_mock_input(t, keys[i].bytes, strlen(keys[i].bytes));
        ck_assert_msg(termio_poll(t, 0, &ev) == 1, "no event for %s", keys[i].name);
        ck_assert_str_eq(ev.key, keys[i].name);
    }
    termio_free(t);
}
END_TEST

/* The same encodings through ncursesw (on a pipe, as TERM=xterm-256color, whose
 * terminfo knows only ESC O H / ESC O F), and an unknown sequence dropped whole. */
START_TEST(test_termio_curses_keys)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    int out = open("/dev/null", O_WRONLY);
    char err[256] = "";
    termio *t = termio_open_curses_fds(p[0], out, "xterm-256color", err, sizeof err);
    ck_assert_msg(t != NULL, "%s", err);
    static const struct {
        const char *bytes, *name;
    } keys[] = {
        { "\x1b[1~", "Home" }, { "\x1b[7~", "Home" }, { "\x1b[H", "Home" }, { "\x1bOH", "Home" },
        { "\x1b[4~", "End" },  { "\x1b[8~", "End" },  { "\x1b[F", "End" },  { "\x1bOF", "End" },
        { "\x1b[A", "Up" }, { "\x1b[99;99;99mq", "q" }, { "x", "x" },
    };
    termio_event ev;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        ck_assert_int_eq(write(p[1], keys[i].bytes, strlen(keys[i].bytes)),
                         (ssize_t)strlen(keys[i].bytes));
        ck_assert_msg(termio_poll(t, 200, &ev) == 1, "no event for %s", keys[i].name);
        ck_assert_str_eq(ev.key, keys[i].name);
    }
    termio_free(t);
    close(p[1]);
}
END_TEST

START_TEST(test_termio_mouse)
{
    termio *t = tt_open(20, 10, false, THEME_256);
    termio_event ev;
    termio_mock_mouse(t, TICKIT_MOUSEEV_WHEEL, TICKIT_MOUSEWHEEL_UP, 2, 5, 0);
    termio_mock_mouse(t, TICKIT_MOUSEEV_WHEEL, TICKIT_MOUSEWHEEL_DOWN, 3, 6, TICKIT_MOD_CTRL);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_MOUSE);
    ck_assert_int_eq(ev.action, TERMIO_MOUSE_WHEEL_UP);
    ck_assert_int_eq(ev.line, 2);
    ck_assert_int_eq(ev.col, 5);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.action, TERMIO_MOUSE_WHEEL_DOWN);
    ck_assert_int_eq(ev.line, 3);
    ck_assert_int_eq(ev.col, 6);
    ck_assert_int_eq(ev.mods, TERMIO_MOD_CTRL);

    termio_mock_mouse(t, TICKIT_MOUSEEV_PRESS, 1, 4, 1, 0);
    termio_mock_mouse(t, TICKIT_MOUSEEV_DRAG, 1, 4, 7, TICKIT_MOD_SHIFT);
    termio_mock_mouse(t, TICKIT_MOUSEEV_RELEASE, 1, 4, 9, 0);
    const termio_mouse_action acts[] = {
        TERMIO_MOUSE_PRESS, TERMIO_MOUSE_DRAG, TERMIO_MOUSE_RELEASE,
    };
    const int cols[] = { 1, 7, 9 };
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
        ck_assert_int_eq(ev.kind, TERMIO_EV_MOUSE);
        ck_assert_int_eq(ev.action, acts[i]);
        ck_assert_int_eq(ev.button, 1);
        ck_assert_int_eq(ev.col, cols[i]);
        ck_assert_int_eq(ev.mods, i == 1 ? TERMIO_MOD_SHIFT : 0);
    }
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);
    termio_free(t);
}
END_TEST

START_TEST(test_termio_quit_signal)
{
    struct sigaction before, during, after;
    sigaction(SIGTERM, NULL, &before);
    termio *t = termio_open_mock(5, 2, NULL);
    sigaction(SIGTERM, NULL, &during);
    ck_assert_ptr_ne((void *)during.sa_handler, (void *)before.sa_handler);

    termio_event ev;
    raise(SIGTERM);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_QUIT);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 0);
    /* Quit wins over queued input. */
    termio_mock_input(t, "x", 1);
    raise(SIGINT);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_QUIT);
    ck_assert_int_eq(termio_poll(t, 0, &ev), 1);
    ck_assert_str_eq(ev.key, "x");
    raise(SIGHUP);
    ck_assert_int_eq(termio_poll(t, -1, &ev), 1);
    ck_assert_int_eq(ev.kind, TERMIO_EV_QUIT);

    termio_free(t);
    sigaction(SIGTERM, NULL, &after);
    ck_assert_ptr_eq((void *)after.sa_handler, (void *)before.sa_handler);
}
END_TEST

START_TEST(test_termio_close_idempotent)
{
    struct sigaction before;
    sigaction(SIGINT, NULL, &before);
    termio *a = termio_open_mock(5, 2, NULL);
    termio *b = termio_open_mock(5, 2, NULL);
    surface *s = surface_new(5, 2);
    termio_close(a);
    termio_close(a);
    /* b still holds the signal handlers. */
    struct sigaction sa;
    sigaction(SIGINT, NULL, &sa);
    ck_assert_ptr_ne((void *)sa.sa_handler, (void *)before.sa_handler);
    termio_event ev;
    termio_mock_input(a, "k", 1);
    ck_assert_int_eq(termio_poll(a, 100, &ev), 0);
    surface_text(s, 0, 0, "gone", STYLE_DEFAULT, -1);
    termio_present(a, s);
    ck_assert_uint_eq(termio_cells_sent(a), 0);
    termio_free(a);
    termio_free(b);
    termio_free(NULL);
    sigaction(SIGINT, NULL, &sa);
    ck_assert_ptr_eq((void *)sa.sa_handler, (void *)before.sa_handler);
    surface_free(s);
}
END_TEST

START_TEST(test_termio_poll_does_not_hang)
{
    termio *t = termio_open_mock(5, 2, NULL);
    termio_event ev;
    int64_t t0 = tt_now_ms();
    ck_assert_int_eq(termio_poll(t, 1000, &ev), 0);
    ck_assert_int_lt(tt_now_ms() - t0, 500);
    termio_free(t);
}
END_TEST

/* Without a terminal the real backends refuse cleanly instead of exiting. */
START_TEST(test_termio_no_tty)
{
    int saved = dup(STDIN_FILENO);
    int null_fd = open("/dev/null", O_RDONLY);
    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(null_fd, 0);
    dup2(null_fd, STDIN_FILENO);
    char err[128] = "";
    termio *c = termio_open_curses(NULL, err, sizeof err);
    bool curses_failed = c == NULL && strstr(err, "terminal") != NULL;
    err[0] = '\0';
    termio *k = termio_open_tickit(NULL, err, sizeof err);
    bool tickit_failed = k == NULL && strstr(err, "terminal") != NULL;
    dup2(saved, STDIN_FILENO);
    close(saved);
    close(null_fd);
    termio_free(c);
    termio_free(k);
    ck_assert(curses_failed);
    ck_assert(tickit_failed);
}
END_TEST

Suite *
test_termio_suite(void)
{
    Suite *s = suite_create("termio");
    TCase *theme = tcase_create("theme");
    tcase_add_test(theme, test_theme_table_complete);
    tcase_add_test(theme, test_theme_lanes_distinct);
    tcase_add_test(theme, test_theme_choose);
    suite_add_tcase(s, theme);
    TCase *mock = tcase_create("mock");
    tcase_add_test(mock, test_termio_pens_256);
    tcase_add_test(mock, test_termio_pens_8);
    tcase_add_test(mock, test_termio_pens_mono);
    tcase_add_test(mock, test_termio_present_text);
    tcase_add_test(mock, test_termio_present_incremental);
    tcase_add_test(mock, test_termio_resize);
    tcase_add_test(mock, test_termio_tiny);
    tcase_add_test(mock, test_termio_keys);
    tcase_add_test(mock, test_termio_long_sequences);
    tcase_add_test(mock, test_termio_termkey_traps);
    tcase_add_test(mock, test_termio_home_end);
    tcase_add_test(mock, test_termio_curses_keys);
    tcase_add_test(mock, test_termio_mouse);
    tcase_add_test(mock, test_termio_quit_signal);
    tcase_add_test(mock, test_termio_close_idempotent);
    tcase_add_test(mock, test_termio_poll_does_not_hang);
    tcase_add_test(mock, test_termio_no_tty);
    suite_add_tcase(s, mock);
    return s;
}
