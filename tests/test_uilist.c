/* tests/test_uilist: the popup list — filtering (ASCII case folding, UTF-8 text matched
 * as is), selection kept across filter changes, paging and clamping with 0, 1 and 100k
 * rows, and drawing checked cell by cell, down to boxes too small for a border. */
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests.h"
#include "uilist.h"
#include "xalloc.h"

/* Columns [col, col + n) of line `line` as UTF-8 (static buffer, overwritten by the
 * next call). */
static const char *
ul_text(const surface *s, int col, int line, int n)
{
    static char buf[4096];
    size_t len = 0;
    for (int c = col; c < col + n && len + 4 < sizeof buf; c++)
        len += surface_utf8_encode(surface_get(s, c, line).cp, buf + len);
    buf[len] = '\0';
    return buf;
}

static const char *
ul_line(const surface *s, int line)
{
    return ul_text(s, 0, line, surface_cols(s));
}

/* A surface filled with '.' so that any stray write shows. */
static surface *
ul_dotted(int cols, int lines)
{
    surface *s = surface_new(cols, lines);
    surface_fill_rect(s, 0, 0, cols, lines, '.', STYLE_DEFAULT);
    return s;
}

/* Every cell outside the box (col, line, cols, lines) is still an untouched '.'. */
static void
ul_assert_outside_untouched(const surface *s, int col, int line, int cols, int lines)
{
    for (int y = 0; y < surface_lines(s); y++) {
        for (int x = 0; x < surface_cols(s); x++) {
            bool inside = cols > 0 && lines > 0 && x >= col && x < col + cols && y >= line &&
                          y < line + lines;
            if (inside)
                continue;
            surface_cell c = surface_get(s, x, y);
            ck_assert_msg(c.cp == '.' && c.style == STYLE_DEFAULT,
                          "box %dx%d at (%d,%d) wrote outside itself at (%d,%d)", cols, lines,
                          col, line, x, y);
        }
    }
}

static uint64_t
ul_sel(const uilist *l)
{
    uint64_t p = UINT64_MAX;
    ck_assert_msg(uilist_selected(l, &p), "no selection");
    return p;
}

START_TEST(test_uilist_empty)
{
    uilist *l = uilist_new("Markers");
    ck_assert_uint_eq(uilist_n_items(l), 0);
    ck_assert_uint_eq(uilist_n_visible(l), 0);
    ck_assert(!uilist_selected(l, NULL));
    uilist_move(l, 3);
    uilist_move(l, -3);
    uilist_page(l, 1, 10);
    uilist_page(l, -1, 0);
    uilist_first(l);
    uilist_last(l);
    ck_assert(!uilist_select_payload(l, 0));
    uilist_filter_erase_char(l);
    ck_assert_str_eq(uilist_filter(l), "");
    uilist_filter_append(l, "x");
    ck_assert_str_eq(uilist_filter(l), "x");
    ck_assert(!uilist_selected(l, NULL));
    ck_assert_ptr_null(uilist_visible_text(l, 0));
    uilist_filter_clear(l);

    surface *s = ul_dotted(24, 6);
    uilist_draw(l, s, 0, 0, 24, 6);
    ck_assert_str_eq(ul_line(s, 0), "┌─ Markers ────────────┐");
    ck_assert_str_eq(ul_line(s, 1), "│ (empty)              │");
    ck_assert_str_eq(ul_line(s, 5), "└─ type to filt ─ 0/0 ─┘");
    surface_free(s);
    uilist_free(l);
    uilist_free(NULL);
}
END_TEST

START_TEST(test_uilist_one_row)
{
    uilist *l = uilist_new(NULL);
    uilist_add(l, "only row", 42);
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_uint_eq(ul_sel(l), 42);
    uilist_move(l, 5);
    ck_assert_uint_eq(ul_sel(l), 42);
    uilist_move(l, -5);
    uilist_page(l, 1, 3);
    uilist_last(l);
    ck_assert_uint_eq(uilist_selected_pos(l), 0);
    uilist_filter_append(l, "ONLY");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    uilist_filter_append(l, "x");
    ck_assert_uint_eq(uilist_n_visible(l), 0);
    ck_assert(!uilist_selected(l, NULL));
    uilist_filter_erase_char(l);
    ck_assert_str_eq(uilist_filter(l), "ONLY");
    ck_assert_uint_eq(ul_sel(l), 42);
    uilist_add(l, NULL, 7);         /* NULL text is an empty row: it does not match */
    ck_assert_uint_eq(uilist_n_items(l), 2);
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    uilist_filter_clear(l);
    ck_assert_uint_eq(uilist_n_visible(l), 2);
    ck_assert_str_eq(uilist_visible_text(l, 1), "");
    uilist_free(l);
}
END_TEST

START_TEST(test_uilist_filter_case_and_utf8)
{
    static const char *rows[] = {
        "Alpha phase", "beta", "GAMMA ray", "λ-calculus", "Λ upper", "naïve",
    };
    uilist *l = uilist_new("t");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        uilist_add(l, rows[i], i);

    uilist_filter_append(l, "gam");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_str_eq(uilist_visible_text(l, 0), "GAMMA ray");
    uilist_filter_clear(l);
    uilist_filter_append(l, "PHA");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_filter_clear(l);

    /* 'a' and 'A': every row with either. */
    uilist_filter_append(l, "A");
    ck_assert_uint_eq(uilist_n_visible(l), 5);
    ck_assert_str_eq(uilist_visible_text(l, 4), "naïve");
    uilist_filter_clear(l);

    /* Non-ASCII is matched exactly: λ finds λ, not Λ (ASCII folding only). */
    uilist_filter_append(l, "λ");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_str_eq(uilist_visible_text(l, 0), "λ-calculus");
    ck_assert_uint_eq(ul_sel(l), 3);
    /* One erase removes the whole two-byte character. */
    uilist_filter_erase_char(l);
    ck_assert_str_eq(uilist_filter(l), "");
    ck_assert_uint_eq(uilist_n_visible(l), 6);
    uilist_filter_append(l, "ï");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_uint_eq(ul_sel(l), 5);
    uilist_filter_clear(l);
    uilist_filter_append(l, "Ï");
    ck_assert_uint_eq(uilist_n_visible(l), 0);
    uilist_filter_clear(l);

    /* Typing one character at a time equals the whole filter at once. */
    uilist_filter_append(l, "c");
    uilist_filter_append(l, "A");
    uilist_filter_append(l, "l");
    ck_assert_str_eq(uilist_filter(l), "cAl");
    ck_assert_uint_eq(uilist_n_visible(l), 1);
    ck_assert_str_eq(uilist_visible_text(l, 0), "λ-calculus");
    /* Control characters are not filter text. */
    uilist_filter_append(l, "\t\x1b\x7f");
    ck_assert_str_eq(uilist_filter(l), "cAl");
    /* A row added while filtering shows at once when it matches. */
    uilist_add(l, "CALL", 99);
    uilist_add(l, "nope", 100);
    ck_assert_uint_eq(uilist_n_visible(l), 2);
    ck_assert_str_eq(uilist_visible_text(l, 1), "CALL");
    uilist_free(l);
}
END_TEST

START_TEST(test_uilist_selection_stable)
{
    uilist *l = uilist_new("t");
    char buf[32];
    for (int i = 0; i < 10; i++) {
        snprintf(buf, sizeof buf, "row %d", i);
        uilist_add(l, buf, (uint64_t)i + 100);
    }
    uilist_move(l, 7);
    ck_assert_uint_eq(ul_sel(l), 107);
    uilist_filter_append(l, "7");
    ck_assert_uint_eq(ul_sel(l), 107);
    uilist_filter_clear(l);
    ck_assert_uint_eq(ul_sel(l), 107);     /* still visible: still selected */
    ck_assert_uint_eq(uilist_selected_pos(l), 7);

    /* Filtered out: the selection goes to the first match and stays there. */
    uilist_filter_append(l, "3");
    ck_assert_uint_eq(ul_sel(l), 103);
    uilist_filter_erase_char(l);
    ck_assert_uint_eq(ul_sel(l), 103);
    ck_assert_uint_eq(uilist_selected_pos(l), 3);

    /* Nothing visible, then visible again: the first match. */
    uilist_filter_append(l, "zz");
    ck_assert(!uilist_selected(l, NULL));
    uilist_filter_clear(l);
    ck_assert_uint_eq(ul_sel(l), 100);

    ck_assert(uilist_select_payload(l, 105));
    ck_assert_uint_eq(uilist_selected_pos(l), 5);
    ck_assert(!uilist_select_payload(l, 5));
    ck_assert_uint_eq(ul_sel(l), 105);
    uilist_free(l);
}
END_TEST

START_TEST(test_uilist_paging_clamps)
{
    uilist *l = uilist_new("t");
    char buf[32];
    for (int i = 0; i < 100; i++) {
        snprintf(buf, sizeof buf, "item %02d", i);
        uilist_add(l, buf, (uint64_t)i);
    }
    uilist_page(l, 1, 10);
    ck_assert_uint_eq(ul_sel(l), 10);
    uilist_page(l, -1, 10);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_page(l, -1, 10);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_move(l, INT_MAX);
    ck_assert_uint_eq(ul_sel(l), 99);
    uilist_move(l, 1);
    ck_assert_uint_eq(ul_sel(l), 99);
    uilist_page(l, 1, 10);
    ck_assert_uint_eq(ul_sel(l), 99);
    uilist_move(l, INT_MIN);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_move(l, -1);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_last(l);
    ck_assert_uint_eq(ul_sel(l), 99);
    uilist_first(l);
    ck_assert_uint_eq(ul_sel(l), 0);
    uilist_page(l, 0, 10);
    ck_assert_uint_eq(ul_sel(l), 0);

    /* Page size 0: a page is what the last draw showed (8 body rows here), 1 before. */
    uilist_page(l, 1, 0);
    ck_assert_uint_eq(ul_sel(l), 1);
    surface *s = surface_new(30, 10);
    uilist_draw(l, s, 0, 0, 30, 10);
    uilist_page(l, 1, 0);
    ck_assert_uint_eq(ul_sel(l), 9);
    uilist_free(l);
    surface_free(s);
}
END_TEST

START_TEST(test_uilist_100k_rows)
{
    enum { N = 100000 };
    uilist *l = uilist_new("Collections");
    char buf[64];
    for (int i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "GC %06d gen %d pause %dus", i, i % 2, (i * 7) % 1000);
        uilist_add(l, buf, (uint64_t)i);
    }
    ck_assert_uint_eq(uilist_n_visible(l), N);
    uilist_move(l, 54321);
    clock_t t0 = clock();
    /* Brute-force the expected count for each prefix of the filter. */
    const char *typed = "99";
    for (size_t k = 1; k <= strlen(typed); k++) {
        uilist_filter_append(l, (char[]){ typed[k - 1], 0 });
        size_t want = 0;
        for (int i = 0; i < N; i++) {
            snprintf(buf, sizeof buf, "GC %06d gen %d pause %dus", i, i % 2, (i * 7) % 1000);
            char pre[8];
            memcpy(pre, typed, k);
            pre[k] = '\0';
            want += strstr(buf, pre) != NULL;
        }
        ck_assert_uint_eq(uilist_n_visible(l), want);
    }
    /* 54321 has no "99": the selection went to the first match. */
    ck_assert_uint_eq(uilist_selected_pos(l), 0);
    ck_assert_ptr_nonnull(strstr(uilist_visible_text(l, 0), "99"));
    uilist_filter_clear(l);
    uilist_filter_append(l, "GEN 1");
    ck_assert_uint_eq(uilist_n_visible(l), N / 2);
    uilist_last(l);
    ck_assert_uint_eq(ul_sel(l), N - 1);
    for (int i = 0; i < 20; i++) {
        uilist_filter_erase_char(l);
        uilist_filter_append(l, "1");
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_msg(secs < 2.0 * test_time_scale(), "filtering 100k rows took %.2fs", secs);

    surface *s = surface_new(40, 12);
    uilist_draw(l, s, 0, 0, 40, 12);
    /* The last row is selected and on the last body line. */
    ck_assert_str_eq(ul_text(s, 2, 10, 26), "GC 099999 gen 1 pause 993u");
    ck_assert_uint_eq(surface_get(s, 2, 10).style, STYLE_POPUP_SEL);
    ck_assert_str_eq(ul_text(s, 2, 9, 9), "GC 099997");
    ck_assert_ptr_nonnull(strstr(ul_line(s, 11), "50000/100000"));
    surface_free(s);
    uilist_free(l);
}
END_TEST

START_TEST(test_uilist_draw_layout)
{
    surface *s = ul_dotted(40, 12);
    uilist *l = uilist_new("Markers");
    uilist_set_columns_header(l, "time     text");
    uilist_add(l, "1.000ms  alpha", 0);
    uilist_add(l, "2.000ms  beta", 1);
    uilist_add(l, "3.000ms  gamma", 2);
    uilist_draw(l, s, 2, 1, 30, 8);
    ul_assert_outside_untouched(s, 2, 1, 30, 8);
    ck_assert_str_eq(ul_text(s, 2, 1, 30), "┌─ Markers ──────────────────┐");
    ck_assert_str_eq(ul_text(s, 2, 2, 30), "│ time     text              │");
    ck_assert_str_eq(ul_text(s, 2, 3, 30), "│ 1.000ms  alpha             │");
    ck_assert_str_eq(ul_text(s, 2, 4, 30), "│ 2.000ms  beta              │");
    ck_assert_str_eq(ul_text(s, 2, 6, 30), "│                            │");
    ck_assert_str_eq(ul_text(s, 2, 8, 30), "└─ type to filter ───── 3/3 ─┘");
    ck_assert_uint_eq(surface_get(s, 2, 1).style, STYLE_POPUP);
    ck_assert_uint_eq(surface_get(s, 5, 1).style, STYLE_POPUP_TITLE);
    ck_assert_uint_eq(surface_get(s, 4, 2).style, STYLE_POPUP_TITLE);
    /* The selected row is highlighted across the whole inside, and only it. */
    for (int x = 3; x < 31; x++) {
        ck_assert_uint_eq(surface_get(s, x, 3).style, STYLE_POPUP_SEL);
        ck_assert_uint_eq(surface_get(s, x, 4).style, STYLE_POPUP);
    }
    ck_assert_uint_eq(surface_get(s, 31, 3).style, STYLE_POPUP);

    uilist_filter_append(l, "BE");
    uilist_move(l, 1);
    uilist_draw(l, s, 2, 1, 30, 8);
    ck_assert_str_eq(ul_text(s, 2, 3, 30), "│ 2.000ms  beta              │");
    ck_assert_uint_eq(surface_get(s, 5, 3).style, STYLE_POPUP_SEL);
    ck_assert_str_eq(ul_text(s, 2, 4, 30), "│                            │");
    ck_assert_str_eq(ul_text(s, 2, 8, 30), "└─ filter: BE ───────── 1/3 ─┘");

    uilist_filter_append(l, "zz");
    uilist_set_ascii(l, true);
    uilist_draw(l, s, 2, 1, 30, 8);
    ck_assert_str_eq(ul_text(s, 2, 1, 30), "+- Markers ------------------+");
    ck_assert_str_eq(ul_text(s, 2, 3, 30), "| (no match)                 |");
    ck_assert_str_eq(ul_text(s, 2, 8, 30), "+- filter: BEzz ------- 0/3 -+");
    ul_assert_outside_untouched(s, 2, 1, 30, 8);
    uilist_free(l);
    surface_free(s);
}
END_TEST

START_TEST(test_uilist_draw_scroll_and_clip)
{
    uilist *l = uilist_new("a title much longer than the box is wide");
    char buf[300];
    for (int i = 0; i < 50; i++) {
        snprintf(buf, sizeof buf, "row %02d %0200d", i, 0);
        uilist_add(l, buf, (uint64_t)i);
    }
    surface *s = ul_dotted(24, 9);
    uilist_move(l, 30);
    uilist_draw(l, s, 2, 1, 20, 7);     /* 5 body rows */
    ul_assert_outside_untouched(s, 2, 1, 20, 7);
    /* Scrolled just enough: rows 26..30, the selection on the last body line. */
    ck_assert_str_eq(ul_text(s, 2, 2, 20), "│ row 26 000000000 │");
    ck_assert_str_eq(ul_text(s, 2, 6, 20), "│ row 30 000000000 │");
    ck_assert_uint_eq(surface_get(s, 4, 6).style, STYLE_POPUP_SEL);
    ck_assert_str_eq(ul_text(s, 2, 1, 20), "┌─ a title much l ─┐");
    uilist_move(l, -10);
    uilist_draw(l, s, 2, 1, 20, 7);
    ck_assert_str_eq(ul_text(s, 2, 2, 20), "│ row 20 000000000 │");
    ck_assert_uint_eq(surface_get(s, 4, 2).style, STYLE_POPUP_SEL);
    /* Narrowing the filter does not leave empty rows below the last match. */
    uilist_last(l);
    uilist_draw(l, s, 2, 1, 20, 7);
    uilist_filter_append(l, "row 4");
    uilist_draw(l, s, 2, 1, 20, 7);
    ck_assert_str_eq(ul_text(s, 2, 2, 20), "│ row 45 000000000 │");
    ck_assert_str_eq(ul_text(s, 2, 6, 20), "│ row 49 000000000 │");
    uilist_free(l);
    surface_free(s);
}
END_TEST

START_TEST(test_uilist_draw_tiny)
{
    static const int sizes[][2] = {
        { 1, 1 }, { 3, 2 }, { 2, 1 }, { 1, 3 }, { 2, 2 }, { 4, 3 }, { 5, 4 }, { 0, 0 },
        { -1, 5 }, { 5, -1 }, { 7, 5 },
    };
    uilist *l = uilist_new("Threads");
    uilist_set_columns_header(l, "id name");
    uilist_add(l, "1 main", 1);
    uilist_add(l, "2 helper", 2);
    uilist_filter_append(l, "i");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (int ascii = 0; ascii < 2; ascii++) {
            surface *s = ul_dotted(10, 8);
            uilist_set_ascii(l, ascii);
            uilist_draw(l, s, 3, 2, sizes[i][0], sizes[i][1]);
            ul_assert_outside_untouched(s, 3, 2, sizes[i][0], sizes[i][1]);
            if (sizes[i][0] == 3 && sizes[i][1] == 2 && !ascii) {
                ck_assert_str_eq(ul_text(s, 3, 2, 3), "┌─┐");
                ck_assert_str_eq(ul_text(s, 3, 3, 3), "└─┘");
            }
            if (sizes[i][0] == 1 && sizes[i][1] == 1)
                ck_assert_str_eq(ul_text(s, 3, 2, 1), "T");
            surface_free(s);
        }
    }
    /* Partly off the surface on every side. */
    surface *s = ul_dotted(10, 6);
    uilist_draw(l, s, 6, 3, 10, 6);
    ul_assert_outside_untouched(s, 6, 3, 10, 6);
    ck_assert_str_eq(ul_text(s, 6, 3, 4), "+- T");
    surface_fill_rect(s, 0, 0, 10, 6, '.', STYLE_DEFAULT);
    uilist_draw(l, s, -5, -2, 9, 5);
    ul_assert_outside_untouched(s, -5, -2, 9, 5);
    ck_assert_uint_eq(surface_get(s, 3, 2).cp, '+');
    ck_assert_uint_eq(surface_get(s, 3, 1).cp, '|');
    surface_free(s);
    uilist_free(l);
}
END_TEST

/* --- model comparison: lazy rows and the per-length row sets against a brute-force
 * filter of the same rows, over random rows and random edit sequences --------------- */

typedef struct model_rows {
    char (*text)[8];
    size_t n;
} model_rows;

static void
model_text(void *ctx, size_t row, strbuf *out)
{
    const model_rows *m = ctx;
    strbuf_puts(out, m->text[row]);
}

static uint64_t
model_payload(void *ctx, size_t row)
{
    (void)ctx;
    return 1000 + row;
}

static bool
model_match(const char *hay, const char *needle)
{
    size_t n = strlen(hay), k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++) {
        size_t j = 0;
        while (j < k && tolower((unsigned char)hay[i + j]) == tolower((unsigned char)needle[j]))
            j++;
        if (j == k)
            return true;
    }
    return false;
}

START_TEST(test_uilist_lazy_model)
{
    srand(17);
    for (int round = 0; round < 40; round++) {
        model_rows m = { .n = (size_t)(rand() % 300) };
        m.text = xcalloc(m.n + 1, sizeof *m.text);
        for (size_t i = 0; i < m.n; i++)
            for (int j = 0; j < 1 + rand() % 6; j++)
                m.text[i][j] = "abAB1-"[rand() % 6];
        uilist_rows rows = { .n_rows = m.n, .ctx = &m, .text = model_text,
                             .payload = model_payload };
        uilist *lazy = uilist_new_rows("t", &rows);
        uilist *eager = uilist_new("t");
        for (size_t i = 0; i < m.n; i++)
            uilist_add(eager, m.text[i], 1000 + i);
        char filter[64] = "";
        size_t sel_row = SIZE_MAX;      /* the model's selection, as a row */
        for (int step = 0; step < 120; step++) {
            int op = rand() % 10;
            size_t len = strlen(filter);
            if (op < 5 && len + 1 < sizeof filter) {
                char c[2] = { "abAB1-"[rand() % 6], 0 };
                filter[len] = c[0];
                filter[len + 1] = 0;
                uilist_filter_append(lazy, c);
                uilist_filter_append(eager, c);
            } else if (op < 8) {
                if (len)
                    filter[len - 1] = 0;
                uilist_filter_erase_char(lazy);
                uilist_filter_erase_char(eager);
            } else if (op < 9) {
                filter[0] = 0;
                uilist_filter_clear(lazy);
                uilist_filter_clear(eager);
            } else {
                int d = rand() % 7 - 3;
                uilist_move(lazy, d);
                uilist_move(eager, d);
            }
            /* The model: rows containing the filter; the selection stays on its row if
             * still visible, else goes to the first. */
            size_t n_vis = 0, first = SIZE_MAX;
            bool sel_vis = false;
            for (size_t i = 0; i < m.n; i++) {
                if (!model_match(m.text[i], filter))
                    continue;
                if (first == SIZE_MAX)
                    first = i;
                sel_vis |= i == sel_row;
                n_vis++;
            }
            uint64_t p = 0;
            if (op < 9)
                sel_row = sel_vis ? sel_row : first;
            else if (uilist_selected(lazy, &p))
                sel_row = (size_t)(p - 1000);
            ck_assert_uint_eq(uilist_n_visible(lazy), n_vis);
            ck_assert_uint_eq(uilist_n_visible(eager), n_vis);
            ck_assert_str_eq(uilist_filter(lazy), filter);
            size_t pos = 0;
            for (size_t i = 0; i < m.n; i++) {
                if (!model_match(m.text[i], filter))
                    continue;
                ck_assert_str_eq(uilist_visible_text(lazy, pos), m.text[i]);
                ck_assert_str_eq(uilist_visible_text(eager, pos), m.text[i]);
                pos++;
            }
            bool has = uilist_selected(lazy, &p);
            ck_assert_int_eq(has, n_vis > 0);
            if (has) {
                ck_assert_uint_eq(p, 1000 + sel_row);
                uint64_t q;
                ck_assert(uilist_selected(eager, &q));
                ck_assert_uint_eq(q, p);
            }
        }
        uilist_free(lazy);
        uilist_free(eager);
        x_free(m.text);
    }
}
END_TEST

Suite *
test_uilist_suite(void)
{
    Suite *s = suite_create("uilist");
    TCase *tc = tcase_create("uilist");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_uilist_empty);
    tcase_add_test(tc, test_uilist_one_row);
    tcase_add_test(tc, test_uilist_filter_case_and_utf8);
    tcase_add_test(tc, test_uilist_selection_stable);
    tcase_add_test(tc, test_uilist_paging_clamps);
    tcase_add_test(tc, test_uilist_100k_rows);
    tcase_add_test(tc, test_uilist_lazy_model);
    tcase_add_test(tc, test_uilist_draw_layout);
    tcase_add_test(tc, test_uilist_draw_scroll_and_clip);
    tcase_add_test(tc, test_uilist_draw_tiny);
    suite_add_tcase(s, tc);
    return s;
}
