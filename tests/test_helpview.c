/* tests/test_helpview: the help screen lists every key of every mode's table with its
 * action's help, from the keymap itself; mouse and legend sections; drawing with keys in
 * STYLE_HELP_KEY and swatches in their lane styles, scrolling clamped, tiny boxes safe. */
#include <stdlib.h>
#include <string.h>

#include "detail.h"
#include "helpview.h"
#include "keymap.h"
#include "tests.h"
#include "xalloc.h"

/* Every line, its kind and its span, collected. */
typedef struct hv_lines {
    strbuf text[512];
    helpview_line line[512];
    size_t n;
} hv_lines;

static void
hv_collect(void *ctx, const helpview_line *l)
{
    hv_lines *h = ctx;
    ck_assert_uint_lt(h->n, 512);
    strbuf_init(&h->text[h->n]);
    strbuf_puts(&h->text[h->n], l->text);
    h->line[h->n] = *l;
    h->line[h->n].text = NULL;
    ck_assert_uint_le(l->span_start, l->span_end);
    ck_assert_uint_le(l->span_end, strlen(l->text));
    h->n++;
}

static hv_lines *
hv_get(bool ascii)
{
    hv_lines *h = xcalloc(1, sizeof *h);
    size_t n = helpview_lines(ascii, hv_collect, h);
    ck_assert_uint_eq(n, h->n);
    ck_assert_uint_eq(helpview_lines(ascii, NULL, NULL), n);
    return h;
}

static void
hv_free(hv_lines *h)
{
    for (size_t i = 0; i < h->n; i++)
        strbuf_free(&h->text[i]);
    x_free(h);
}

/* The span of line i as a string (static buffer). */
static const char *
hv_span(const hv_lines *h, size_t i)
{
    static char buf[256];
    size_t n = h->line[i].span_end - h->line[i].span_start;
    ck_assert_uint_lt(n, sizeof buf);
    memcpy(buf, h->text[i].data + h->line[i].span_start, n);
    buf[n] = '\0';
    return buf;
}

/* Whether `key` is one of the space-separated words of `keys`. */
static bool
hv_has_word(const char *keys, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = keys; *p;) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == kl && memcmp(p, key, n) == 0)
            return true;
        p += n;
        while (*p == ' ')
            p++;
    }
    return false;
}

START_TEST(test_helpview_every_binding)
{
    hv_lines *h = hv_get(false);
    /* For each mode: its title line, then each bound key in a KEYS line of that section
     * whose text holds the action's help. */
    for (int m = 0; m < MODE__COUNT; m++) {
        const char *title = keymap_mode_title((keymap_mode)m);
        size_t start = SIZE_MAX;
        for (size_t i = 0; i < h->n && start == SIZE_MAX; i++)
            if (h->line[i].kind == HELPVIEW_TITLE && strcmp(h->text[i].data, title) == 0)
                start = i;
        ck_assert_msg(start != SIZE_MAX, "no section \"%s\"", title);
        ck_assert_uint_eq(h->line[start].span_style, STYLE_POPUP_TITLE);
        size_t n;
        const keymap_binding *b = keymap_table((keymap_mode)m, &n);
        ck_assert_uint_gt(n, 0);
        for (size_t k = 0; k < n; k++) {
            bool found = false;
            for (size_t i = start + 1; i < h->n && h->line[i].kind != HELPVIEW_BLANK; i++) {
                ck_assert_int_eq(h->line[i].kind, HELPVIEW_KEYS);
                ck_assert_uint_eq(h->line[i].span_style, STYLE_HELP_KEY);
                if (hv_has_word(hv_span(h, i), b[k].key)) {
                    const char *help = keymap_action_help(b[k].action);
                    const char *rest = h->text[i].data + h->line[i].span_end;
                    ck_assert_msg(strstr(rest, help) != NULL, "%s: key %s shows \"%s\"",
                                  title, b[k].key, h->text[i].data);
                    found = true;
                    break;
                }
            }
            ck_assert_msg(found, "%s: key \"%s\" (%s) missing from help", title, b[k].key,
                          keymap_action_name(b[k].action));
        }
    }
    hv_free(h);
}
END_TEST

START_TEST(test_helpview_mouse_and_legend)
{
    hv_lines *h = hv_get(false);
    static const char *gestures[] = { "click", "drag", "wheel" };
    for (size_t g = 0; g < 3; g++) {
        bool found = false;
        for (size_t i = 0; i < h->n; i++)
            found |= h->line[i].kind == HELPVIEW_KEYS && strcmp(hv_span(h, i), gestures[g]) == 0;
        ck_assert_msg(found, "mouse gesture %s missing", gestures[g]);
    }
    static const uint8_t lanes[] = { STYLE_RUNNING, STYLE_GC_WORK, STYLE_GC_WAIT,
                                     STYLE_NM_MARK, STYLE_NM_SYNC, STYLE_NM_SWEEP,
                                     STYLE_MARKER, STYLE_MARKER_TEXT };
    for (size_t k = 0; k < sizeof lanes; k++) {
        size_t hits = 0;
        for (size_t i = 0; i < h->n; i++)
            hits += h->line[i].kind == HELPVIEW_LEGEND && h->line[i].span_style == lanes[k];
        ck_assert_msg(hits == 1, "legend of %s: %zu lines", theme_style_name(lanes[k]), hits);
    }
    hv_free(h);
    /* ASCII mode: no byte above 0x7f in the legend. */
    h = hv_get(true);
    for (size_t i = 0; i < h->n; i++)
        if (h->line[i].kind == HELPVIEW_LEGEND)
            for (const char *p = h->text[i].data; *p; p++)
                ck_assert_msg((unsigned char)*p < 0x80, "non-ASCII legend \"%s\"",
                              h->text[i].data);
    hv_free(h);
}
END_TEST

/* The terms: the clock every time is on, and the range statistics' mutator share, named
 * as the detail pane names it and defined exactly once, never as "Productivity". */
START_TEST(test_helpview_terms)
{
    hv_lines *h = hv_get(false);
    size_t share = 0, times = 0, prod_def = 0;
    for (size_t i = 0; i < h->n; i++) {
        if (h->line[i].kind != HELPVIEW_KEYS)
            continue;
        share += strcmp(hv_span(h, i), DETAIL_MUTATOR_SHARE) == 0;
        times += strcmp(hv_span(h, i), "times") == 0;
        prod_def += strcmp(hv_span(h, i), "Productivity") == 0;
    }
    ck_assert_uint_eq(share, 1);
    ck_assert_uint_eq(times, 1);
    ck_assert_uint_eq(prod_def, 0);
    bool clock = false;
    for (size_t i = 0; i < h->n; i++)
        clock |= strstr(h->text[i].data, "ns since the RTS started") != NULL;
    ck_assert(clock);
    /* Whole on an 80-column terminal (a 76-column box, 72 columns of text). */
    size_t i = 0;
    while (i < h->n && strcmp(h->text[i].data, "Times and range statistics") != 0)
        i++;
    ck_assert_uint_lt(i, h->n);
    for (; i < h->n; i++)
        ck_assert_msg(strlen(h->text[i].data) <= 72, "too wide: \"%s\"", h->text[i].data);
    hv_free(h);
}
END_TEST

/* Text of columns [col, col + n) of a line (static buffer). */
static const char *
hv_cells(const surface *s, int col, int line, int n)
{
    static char buf[4096];
    size_t len = 0;
    for (int c = col; c < col + n && len + 4 < sizeof buf; c++)
        len += surface_utf8_encode(surface_get(s, c, line).cp, buf + len);
    buf[len] = '\0';
    return buf;
}

START_TEST(test_helpview_draw)
{
    hv_lines *h = hv_get(false);
    surface *s = surface_new(70, 20);
    int n = helpview_draw(s, 0, 0, 70, 20, 0, false);
    ck_assert_int_eq(n, (int)h->n);
    ck_assert_str_eq(hv_cells(s, 0, 0, 3), "┌─ ");
    ck_assert_str_eq(hv_cells(s, 3, 0, 13), "elog-tui help");
    /* Line 0 of the text is the first section title, then key lines. */
    ck_assert_str_eq(hv_cells(s, 2, 1, (int)h->text[0].len), h->text[0].data);
    ck_assert_uint_eq(surface_get(s, 2, 1).style, STYLE_POPUP_TITLE);
    ck_assert_str_eq(hv_cells(s, 2, 2, (int)h->text[1].len), h->text[1].data);
    ck_assert_uint_eq(surface_get(s, 4, 2).style, STYLE_HELP_KEY);
    ck_assert_uint_eq(surface_get(s, 2 + (int)h->line[1].span_end + 3, 2).style, STYLE_POPUP);
    ck_assert_msg(strstr(hv_cells(s, 0, 19, 70), "1-18/") != NULL, "footer \"%s\"",
                  hv_cells(s, 0, 19, 70));
    ck_assert_msg(strstr(hv_cells(s, 0, 19, 70), "Escape q ?: close") != NULL, "footer \"%s\"",
                  hv_cells(s, 0, 19, 70));

    /* Scrolled past the end: clamped so the last line is on the last row. */
    surface_clear(s, STYLE_DEFAULT);
    helpview_draw(s, 0, 0, 70, 20, 100000, false);
    size_t last = h->n - 1;
    ck_assert_uint_eq(h->line[last].kind, HELPVIEW_KEYS);  /* the terms section ends it */
    char *want = h->text[last].data;
    ck_assert_uint_le(strlen(want), 66);              /* the box's text width: all of it */
    ck_assert_int_eq(strncmp(hv_cells(s, 2, 18, 66), want, strlen(want)), 0);
    /* Every legend swatch on screen is drawn in its style, the text after it is not. */
    size_t n_legend = 0;
    for (size_t i = h->n - 18; i < h->n; i++) {
        int y = 1 + (int)(i - (h->n - 18));
        if (h->line[i].kind != HELPVIEW_LEGEND)
            continue;
        n_legend++;
        ck_assert_uint_eq(surface_get(s, 2 + (int)h->line[i].span_start, y).style,
                          h->line[i].span_style);
        ck_assert_uint_eq(surface_get(s, 4 + 3 + 2, y).style, STYLE_POPUP);
    }
    ck_assert_uint_gt(n_legend, 0);
    /* Negative scroll is the top. */
    helpview_draw(s, 0, 0, 70, 20, -5, true);
    ck_assert_str_eq(hv_cells(s, 0, 0, 3), "+- ");
    ck_assert_str_eq(hv_cells(s, 2, 1, (int)h->text[0].len), h->text[0].data);
    surface_free(s);
    hv_free(h);
}
END_TEST

START_TEST(test_helpview_draw_tiny)
{
    static const int sizes[][2] = {
        { 1, 1 }, { 3, 2 }, { 2, 3 }, { 4, 3 }, { 5, 3 }, { 0, 0 }, { -1, -1 }, { 9, 4 },
    };
    int total = (int)helpview_lines(false, NULL, NULL);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        surface *s = surface_new(14, 8);
        surface_fill_rect(s, 0, 0, 14, 8, '.', STYLE_DEFAULT);
        ck_assert_int_eq(helpview_draw(s, 3, 2, w, h, 7, i % 2), total);
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 14; x++) {
                bool inside = w > 0 && h > 0 && x >= 3 && x < 3 + w && y >= 2 && y < 2 + h;
                surface_cell c = surface_get(s, x, y);
                if (!inside)
                    ck_assert_msg(c.cp == '.' && c.style == STYLE_DEFAULT,
                                  "%dx%d help wrote at (%d,%d)", w, h, x, y);
            }
        }
        if (w == 3 && h == 2)
            ck_assert_str_eq(hv_cells(s, 3, 2, 3), i % 2 ? "+-+" : "┌─┐");
        surface_free(s);
    }
    /* Off the surface on the left and top. */
    surface *s = surface_new(10, 5);
    helpview_draw(s, -20, -30, 25, 40, 0, false);
    surface_free(s);
}
END_TEST

Suite *
test_helpview_suite(void)
{
    Suite *s = suite_create("helpview");
    TCase *tc = tcase_create("helpview");
    tcase_add_test(tc, test_helpview_every_binding);
    tcase_add_test(tc, test_helpview_mouse_and_legend);
    tcase_add_test(tc, test_helpview_terms);
    tcase_add_test(tc, test_helpview_draw);
    tcase_add_test(tc, test_helpview_draw_tiny);
    suite_add_tcase(s, tc);
    return s;
}
