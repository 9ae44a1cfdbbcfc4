/* tests/test_cursor: the bounds-checked big-endian cursor — values, sticky
 * failure at the end, NUL-terminated strings. */
#include "cursor.h"
#include "tests.h"

START_TEST(test_cursor_reads_big_endian)
{
    const uint8_t b[] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b,
                          0x0c, 0x0d, 0x0e, 0x0f };
    cursor c;
    cursor_init(&c, b, sizeof b);
    ck_assert_uint_eq(cursor_u8(&c), 0x01);
    ck_assert_uint_eq(cursor_u16(&c), 0x0203);
    ck_assert_uint_eq(cursor_u32(&c), 0x04050607);
    ck_assert_uint_eq(cursor_u64(&c), 0x08090a0b0c0d0e0full);
    ck_assert(!c.failed);
    ck_assert_uint_eq(cursor_left(&c), 0);
}
END_TEST

START_TEST(test_cursor_failure_is_sticky)
{
    const uint8_t b[] = { 0xff, 0xee, 0xdd };
    cursor c;
    cursor_init(&c, b, sizeof b);
    ck_assert_uint_eq(cursor_u16(&c), 0xffee);
    ck_assert_uint_eq(cursor_u32(&c), 0);     /* only one byte left */
    ck_assert(c.failed);
    ck_assert_uint_eq(cursor_u8(&c), 0);      /* stays failed even though a byte was left */
    ck_assert_ptr_null(cursor_take(&c, 0));
}
END_TEST

START_TEST(test_cursor_take_never_wraps)
{
    const uint8_t b[4] = { 0 };
    cursor c;
    cursor_init(&c, b, sizeof b);
    ck_assert_ptr_null(cursor_take(&c, SIZE_MAX));
    ck_assert(c.failed);
}
END_TEST

START_TEST(test_cursor_cstr)
{
    const uint8_t b[] = { 'a', 'b', 0, 0, 'c' };
    cursor c;
    cursor_init(&c, b, sizeof b);
    const uint8_t *s;
    size_t n;
    ck_assert(cursor_cstr(&c, &s, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_mem_eq(s, "ab", 2);
    ck_assert(cursor_cstr(&c, &s, &n));
    ck_assert_uint_eq(n, 0);
    ck_assert(!cursor_cstr(&c, &s, &n));      /* "c" has no terminator */
    ck_assert(c.failed);
}
END_TEST

Suite *
test_cursor_suite(void)
{
    Suite *s = suite_create("cursor");
    TCase *tc = tcase_create("cursor");
    tcase_add_test(tc, test_cursor_reads_big_endian);
    tcase_add_test(tc, test_cursor_failure_is_sticky);
    tcase_add_test(tc, test_cursor_take_never_wraps);
    tcase_add_test(tc, test_cursor_cstr);
    suite_add_tcase(s, tc);
    return s;
}
