/* tests/test_surface: the cell grid — clipping at every edge (down to 0x0 and 1x1),
 * UTF-8 decoding with U+FFFD for malformed input, '?' for controls and wide
 * characters, and agreement of the narrow-character table with wcwidth and libtickit. */
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <tickit.h>

#include "surface.h"
#include "tests.h"
#include "xalloc.h"

/* Line `line` of `s` as UTF-8 (static buffer, overwritten by the next call). */
static const char *
ts_line(const surface *s, int line)
{
    static char buf[1024];
    size_t len = 0;
    for (int col = 0; col < surface_cols(s) && len + 4 < sizeof buf; col++)
        len += surface_utf8_encode(surface_get(s, col, line).cp, buf + len);
    buf[len] = '\0';
    return buf;
}

START_TEST(test_surface_new_blank)
{
    surface *s = surface_new(5, 2);
    ck_assert_int_eq(surface_cols(s), 5);
    ck_assert_int_eq(surface_lines(s), 2);
    for (int line = 0; line < 2; line++) {
        for (int col = 0; col < 5; col++) {
            surface_cell c = surface_get(s, col, line);
            ck_assert_uint_eq(c.cp, ' ');
            ck_assert_uint_eq(c.style, STYLE_DEFAULT);
        }
    }
    surface_put(s, 4, 1, 'z', STYLE_GC_WORK);
    surface_resize(s, 3, 3);
    ck_assert_int_eq(surface_cols(s), 3);
    ck_assert_int_eq(surface_lines(s), 3);
    ck_assert_str_eq(ts_line(s, 2), "   ");
    surface_free(s);

    s = surface_new(-3, -1);
    ck_assert_int_eq(surface_cols(s), 0);
    ck_assert_int_eq(surface_lines(s), 0);
    surface_resize(s, 100000, 2);
    ck_assert_int_eq(surface_cols(s), SURFACE_MAX_DIM);
    surface_free(s);
    surface_free(NULL);
}
END_TEST

START_TEST(test_surface_put_clips)
{
    surface *s = surface_new(4, 2);
    surface_put(s, -1, 0, 'a', STYLE_AXIS);
    surface_put(s, 4, 0, 'a', STYLE_AXIS);
    surface_put(s, 0, -1, 'a', STYLE_AXIS);
    surface_put(s, 0, 2, 'a', STYLE_AXIS);
    surface_put(s, -2147483647 - 1, 2147483647, 'a', STYLE_AXIS);
    ck_assert_str_eq(ts_line(s, 0), "    ");
    ck_assert_str_eq(ts_line(s, 1), "    ");
    surface_put(s, 3, 1, 'q', STYLE_MARKER);
    ck_assert_uint_eq(surface_get(s, 3, 1).cp, 'q');
    ck_assert_uint_eq(surface_get(s, 3, 1).style, STYLE_MARKER);
    /* Reading outside gives a blank default cell. */
    ck_assert_uint_eq(surface_get(s, 9, 9).cp, ' ');
    ck_assert_uint_eq(surface_get(s, -1, 0).style, STYLE_DEFAULT);

    surface_fill(s, -2, 0, 4, '=', STYLE_IDLE);
    ck_assert_str_eq(ts_line(s, 0), "==  ");
    surface_fill(s, 2, 0, 2147483647, '-', STYLE_IDLE);
    ck_assert_str_eq(ts_line(s, 0), "==--");
    surface_fill(s, 1, 0, -5, '!', STYLE_IDLE);
    ck_assert_str_eq(ts_line(s, 0), "==--");
    surface_fill_rect(s, -1, -1, 3, 5, '#', STYLE_POPUP);
    ck_assert_str_eq(ts_line(s, 0), "##--");
    ck_assert_str_eq(ts_line(s, 1), "## q");
    ck_assert_uint_eq(surface_get(s, 1, 1).style, STYLE_POPUP);
    surface_clear(s, STYLE_STATUS);
    ck_assert_str_eq(ts_line(s, 1), "    ");
    ck_assert_uint_eq(surface_get(s, 3, 1).style, STYLE_STATUS);
    surface_free(s);
}
END_TEST

START_TEST(test_surface_tiny)
{
    surface *s = surface_new(1, 1);
    ck_assert_int_eq(surface_text(s, 0, 0, "hello", STYLE_STATUS, -1), 1);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, 'h');
    ck_assert_int_eq(surface_text(s, 1, 0, "hello", STYLE_STATUS, -1), 0);
    ck_assert_int_eq(surface_text(s, 0, 1, "hello", STYLE_STATUS, -1), 1);
    surface_fill(s, 0, 0, 1000, 'x', STYLE_IDLE);
    surface_fill_rect(s, 0, 0, 1000, 1000, 'y', STYLE_IDLE);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, 'y');
    char *d = surface_dump(s);
    ck_assert_str_eq(d, "y\n");
    x_free(d);

    surface *z = surface_new(0, 0);
    ck_assert_int_eq(surface_text(z, 0, 0, "abc", STYLE_DEFAULT, -1), 0);
    surface_put(z, 0, 0, 'a', STYLE_DEFAULT);
    surface_fill_rect(z, 0, 0, 3, 3, 'a', STYLE_DEFAULT);
    surface_clear(z, STYLE_STATUS);
    d = surface_dump(z);
    ck_assert_str_eq(d, "");
    x_free(d);
    ck_assert(!surface_row_equal(z, z, 0));
    surface_copy(z, s);
    ck_assert_int_eq(surface_cols(z), 1);
    ck_assert_uint_eq(surface_get(z, 0, 0).cp, 'y');
    surface_free(z);
    surface_free(s);
}
END_TEST

START_TEST(test_surface_text_clips)
{
    surface *s = surface_new(5, 1);
    ck_assert_int_eq(surface_text(s, 3, 0, "abcdef", STYLE_LANE_LABEL, -1), 2);
    ck_assert_str_eq(ts_line(s, 0), "   ab");
    ck_assert_uint_eq(surface_get(s, 4, 0).style, STYLE_LANE_LABEL);
    ck_assert_uint_eq(surface_get(s, 2, 0).style, STYLE_DEFAULT);

    surface_clear(s, STYLE_DEFAULT);
    ck_assert_int_eq(surface_text(s, 0, 0, "abcdef", STYLE_DEFAULT, 2), 2);
    ck_assert_str_eq(ts_line(s, 0), "ab   ");
    ck_assert_int_eq(surface_text(s, 0, 0, "xyz", STYLE_DEFAULT, 0), 0);
    ck_assert_str_eq(ts_line(s, 0), "ab   ");

    /* Left of column 0: skipped, but the columns count. */
    surface_clear(s, STYLE_DEFAULT);
    ck_assert_int_eq(surface_text(s, -2, 0, "abcd", STYLE_DEFAULT, -1), 4);
    ck_assert_str_eq(ts_line(s, 0), "cd   ");
    ck_assert_int_eq(surface_text(s, -10, 0, "abcd", STYLE_DEFAULT, -1), 4);
    ck_assert_str_eq(ts_line(s, 0), "cd   ");

    /* Off-surface line: nothing drawn, same width reported. */
    ck_assert_int_eq(surface_text(s, 1, 7, "abcd", STYLE_DEFAULT, 3), 3);
    ck_assert_str_eq(ts_line(s, 0), "cd   ");

    /* Explicit length: stops at len and shows a NUL as '?'. */
    surface_clear(s, STYLE_DEFAULT);
    ck_assert_int_eq(surface_textn(s, 0, 0, "a\0bcd", 3, STYLE_DEFAULT, -1), 3);
    ck_assert_str_eq(ts_line(s, 0), "a?b  ");
    surface_free(s);
}
END_TEST

START_TEST(test_surface_utf8)
{
    surface *s = surface_new(12, 1);
    /* Latin-1, box drawing, eighth block, braille, arrow are all one column. */
    ck_assert_int_eq(surface_text(s, 0, 0, "é─▏⠿→█", STYLE_DEFAULT, -1), 6);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, 0xE9);
    ck_assert_uint_eq(surface_get(s, 1, 0).cp, 0x2500);
    ck_assert_uint_eq(surface_get(s, 2, 0).cp, 0x258F);
    ck_assert_uint_eq(surface_get(s, 3, 0).cp, 0x283F);
    ck_assert_uint_eq(surface_get(s, 4, 0).cp, 0x2192);
    ck_assert_uint_eq(surface_get(s, 5, 0).cp, 0x2588);
    ck_assert_str_eq(ts_line(s, 0), "é─▏⠿→█      ");

    /* Wide (CJK, emoji), combining and control characters become '?'. */
    surface_clear(s, STYLE_DEFAULT);
    const char *odd = "中😀e\xcc\x81\t\n\x1b\x7f\xc2\x85";
    ck_assert_int_eq(surface_text(s, 0, 0, odd, STYLE_DEFAULT, -1), 9);
    ck_assert_str_eq(ts_line(s, 0), "??e??????   ");

    /* Malformed UTF-8: one U+FFFD per maximal invalid subpart. */
    static const struct {
        const char *in;
        const char *out;
    } bad[] = {
        { "\xff", "\xef\xbf\xbd" },
        { "a\xe2\x82", "a\xef\xbf\xbd" },              /* truncated 3-byte sequence */
        { "\xe2\x82" "a", "\xef\xbf\xbd" "a" },
        { "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },     /* overlong '/' */
        { "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },  /* surrogate */
        { "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
        { "\x80" "b", "\xef\xbf\xbd" "b" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        surface_clear(s, STYLE_DEFAULT);
        int want = surface_text_cols(bad[i].out);
        ck_assert_int_eq(surface_text(s, 0, 0, bad[i].in, STYLE_DEFAULT, -1), want);
        ck_assert_int_eq(surface_text_cols(bad[i].in), want);
        const char *line = ts_line(s, 0);
        ck_assert_msg(strncmp(line, bad[i].out, strlen(bad[i].out)) == 0,
                      "case %zu: got \"%s\"", i, line);
    }

    /* Direct puts get the same treatment. */
    surface_put(s, 0, 0, 0xD800, STYLE_DEFAULT);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, SURFACE_REPLACEMENT);
    surface_put(s, 0, 0, 0x110000, STYLE_DEFAULT);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, SURFACE_REPLACEMENT);
    surface_put(s, 0, 0, 0x1F600, STYLE_DEFAULT);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, '?');
    surface_put(s, 0, 0, 7, STYLE_DEFAULT);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, '?');
    surface_free(s);

    ck_assert_int_eq(surface_text_cols(""), 0);
    ck_assert_int_eq(surface_text_cols("héllo"), 5);
}
END_TEST

START_TEST(test_surface_utf8_round_trip)
{
    char buf[4];
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF)
            continue;
        size_t n = surface_utf8_encode(cp, buf);
        uint32_t back = 0;
        /* Plain ifs: every ck_assert writes a checkpoint to Check's pipe. */
        size_t used = surface_utf8_decode(buf, n, &back);
        if (used != n || back != cp)
            ck_abort_msg("U+%04X decoded as U+%04X from %zu of %zu bytes", (unsigned)cp,
                         (unsigned)back, used, n);
    }
    ck_assert_uint_eq(surface_utf8_encode(0xDC00, buf), 3);
    ck_assert(memcmp(buf, "\xef\xbf\xbd", 3) == 0);
    uint32_t cp = 1;
    ck_assert_uint_eq(surface_utf8_decode("", 0, &cp), 0);
}
END_TEST

/* Everything the surface keeps must be one column for ncursesw (glibc wcwidth) and
 * libtickit, or the two backends would draw different screens. */
START_TEST(test_surface_narrow_table)
{
    bool have_wcwidth = setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8");
    size_t kept = 0;
    for (uint32_t cp = 0x20; cp < 0x30000; cp++) {
        if (surface_displayable(cp) != cp)
            continue;
        kept++;
        if (have_wcwidth && wcwidth((wchar_t)cp) != 1)
            ck_abort_msg("U+%04X kept but wcwidth is %d", (unsigned)cp, wcwidth((wchar_t)cp));
        char buf[5] = { 0 };
        buf[surface_utf8_encode(cp, buf)] = '\0';
        if (tickit_utf8_mbswidth(buf) != 1)
            ck_abort_msg("U+%04X kept but libtickit width is %d", (unsigned)cp,
                         tickit_utf8_mbswidth(buf));
    }
    ck_assert_uint_gt(kept, 3000);
    setlocale(LC_CTYPE, "C");
}
END_TEST

START_TEST(test_surface_row_equal_copy_dump)
{
    surface *a = surface_new(3, 2);
    surface *b = surface_new(3, 2);
    ck_assert(surface_row_equal(a, b, 0));
    ck_assert(surface_row_equal(a, b, 1));
    ck_assert(!surface_row_equal(a, b, 2));
    surface_put(b, 2, 1, ' ', STYLE_CURSOR);  /* same character, other style */
    ck_assert(surface_row_equal(a, b, 0));
    ck_assert(!surface_row_equal(a, b, 1));
    surface_text(b, 0, 0, "ab", STYLE_DEFAULT, -1);
    surface_copy(a, b);
    ck_assert(surface_row_equal(a, b, 0));
    ck_assert(surface_row_equal(a, b, 1));
    char *d = surface_dump(a);
    ck_assert_str_eq(d, "ab \n   \n");
    x_free(d);
    surface *c = surface_new(4, 2);
    ck_assert(!surface_row_equal(a, c, 0));
    surface_free(a);
    surface_free(b);
    surface_free(c);
}
END_TEST

Suite *
test_surface_suite(void)
{
    Suite *s = suite_create("surface");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_surface_new_blank);
    tcase_add_test(tc, test_surface_put_clips);
    tcase_add_test(tc, test_surface_tiny);
    tcase_add_test(tc, test_surface_text_clips);
    tcase_add_test(tc, test_surface_utf8);
    tcase_add_test(tc, test_surface_utf8_round_trip);
    tcase_add_test(tc, test_surface_narrow_table);
    tcase_add_test(tc, test_surface_row_equal_copy_dump);
    suite_add_tcase(s, tc);
    return s;
}
