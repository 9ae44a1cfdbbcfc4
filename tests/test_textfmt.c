/* tests/test_textfmt: UTF-8 replacement, Latin-1, Haskell `show` escaping rules
 * and ghc-events' binary-message rendering. */
#include <string.h>

#include "tests.h"
#include "textfmt.h"

typedef void (*textfmt_fn)(strbuf *, const uint8_t *, size_t);

static void
check_fmt(textfmt_fn fn, const char *in, size_t n, const char *want)
{
    strbuf sb;
    strbuf_init(&sb);
    fn(&sb, (const uint8_t *)in, n);
    ck_assert_msg(sb.len == strlen(want) && memcmp(sb.data, want, sb.len) == 0,
                  "got [%s] want [%s]", sb.data ? sb.data : "", want);
    strbuf_free(&sb);
}

START_TEST(test_textfmt_utf8_valid_and_invalid)
{
    check_fmt(textfmt_append_utf8, "h\xc3\xa9llo", 6, "h\xc3\xa9llo");
    check_fmt(textfmt_append_utf8, "a\xff" "b", 3, "a\xef\xbf\xbd" "b");
    /* overlong, surrogate, truncated sequence: each bad byte becomes U+FFFD */
    check_fmt(textfmt_append_utf8, "\xc0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd");
    check_fmt(textfmt_append_utf8, "\xed\xa0\x80", 3,
              "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    check_fmt(textfmt_append_utf8, "x\xe2\x82", 3, "x\xef\xbf\xbd\xef\xbf\xbd");
    check_fmt(textfmt_append_utf8, "\xf0\x9f\x98\x80", 4, "\xf0\x9f\x98\x80");
}
END_TEST

START_TEST(test_textfmt_latin1)
{
    check_fmt(textfmt_append_latin1, "a\xe9", 2, "a\xc3\xa9");
}
END_TEST

START_TEST(test_textfmt_haskell_show)
{
    check_fmt(textfmt_append_hs_show, "plain", 5, "\"plain\"");
    check_fmt(textfmt_append_hs_show, "q\"b\\", 4, "\"q\\\"b\\\\\"");
    check_fmt(textfmt_append_hs_show, "\n\t\x01\x7f", 4, "\"\\n\\t\\SOH\\DEL\"");
    /* numeric escapes protect a following digit, \SO protects a following H */
    check_fmt(textfmt_append_hs_show, "\xc3\xa9" "1", 3, "\"\\233\\&1\"");
    check_fmt(textfmt_append_hs_show, "\xc3\xa9x", 3, "\"\\233x\"");
    check_fmt(textfmt_append_hs_show, "\x0eH", 2, "\"\\SO\\&H\"");
    check_fmt(textfmt_append_hs_show, "\x0e" "A", 2, "\"\\SOA\"");
    check_fmt(textfmt_append_hs_show, "'", 1, "\"'\"");
    check_fmt(textfmt_append_hs_show, "\xe2\x82\xac", 3, "\"\\8364\"");
}
END_TEST

START_TEST(test_textfmt_haskell_list)
{
    check_fmt(textfmt_append_hs_list, "prog\0+RTS\0-l\0", 13, "[\"prog\",\"+RTS\",\"-l\"]");
    check_fmt(textfmt_append_hs_list, "", 0, "[\"\"]");
    check_fmt(textfmt_append_hs_list, "a\0\0b", 4, "[\"a\",\"\",\"b\"]");
}
END_TEST

START_TEST(test_textfmt_binary)
{
    check_fmt(textfmt_append_binary, "Hi\x00\x7f\x80\xc3\xa9", 7, "Hi...\xc3\xa9");
    check_fmt(textfmt_append_binary, "\xc2\x85", 2, ".");  /* U+0085 is a control */
}
END_TEST

START_TEST(test_textfmt_is_print)
{
    ck_assert(textfmt_is_print('a'));
    ck_assert(textfmt_is_print(' '));
    ck_assert(!textfmt_is_print('\n'));
    ck_assert(!textfmt_is_print(0x9f));
    ck_assert(textfmt_is_print(0xe9));
    ck_assert(!textfmt_is_print(0x200b));
    ck_assert(!textfmt_is_print(0xe000));
    ck_assert(textfmt_is_print(0x1f600));
}
END_TEST

Suite *
test_textfmt_suite(void)
{
    Suite *s = suite_create("textfmt");
    TCase *tc = tcase_create("textfmt");
    tcase_add_test(tc, test_textfmt_utf8_valid_and_invalid);
    tcase_add_test(tc, test_textfmt_latin1);
    tcase_add_test(tc, test_textfmt_haskell_show);
    tcase_add_test(tc, test_textfmt_haskell_list);
    tcase_add_test(tc, test_textfmt_binary);
    tcase_add_test(tc, test_textfmt_is_print);
    suite_add_tcase(s, tc);
    return s;
}
