/* tests/test_xalloc: big blocks (x_big_resize) through every move between the heap and
 * a mapping of their own — contents kept, new room zero (also where a shrink left old
 * bytes in the last page), the doubling growth, and freeing either kind. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "xalloc.h"

/* Bytes [from, n) of p get the pattern (i * 31 + 7) & 0xff. */
static void
xa_fill(unsigned char *p, size_t from, size_t n)
{
    for (size_t i = from; i < n; i++)
        p[i] = (unsigned char)((i * 31 + 7) & 0xff);
}

static bool
xa_pattern(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)((i * 31 + 7) & 0xff))
            return false;
    return true;
}

static bool
xa_zero(const unsigned char *p, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (p[i])
            return false;
    return true;
}

/* Sizes on both sides of where blocks are mapped, and across page ends. */
START_TEST(test_xalloc_big_resize)
{
    static const size_t steps[] = {
        0,       100,     4096,    200000,  262143,  262144,  262145,  300001,
        1 << 20, 1000003, 2500000, 1000000, 999999,  300000,  262144,  5000,
        262145,  4 << 20, 100,     0,       700000,
    };
    unsigned char *p = NULL;
    size_t have = 0;
    for (size_t k = 1; k < sizeof steps / sizeof steps[0]; k++) {
        size_t to = steps[k];
        p = x_big_resize(p, have, to);
        ck_assert_ptr_nonnull(p);
        size_t kept = have < to ? have : to;
        ck_assert_msg(xa_pattern(p, kept), "step %zu: %zu -> %zu lost contents", k, have, to);
        ck_assert_msg(xa_zero(p, kept, to), "step %zu: %zu -> %zu new room not zero", k, have,
                      to);
        xa_fill(p, 0, to);      /* every byte written: a later shrink leaves them behind */
        have = to;
    }
    x_big_free(p, have);
    x_big_free(NULL, 1 << 20);
}
END_TEST

/* A shrink inside a mapped block's last page, then a growth: the bytes the shrink left
 * in that page come back as zeros. */
START_TEST(test_xalloc_big_regrow_in_page)
{
    size_t big = (1 << 20) + 3000;
    unsigned char *p = x_big_resize(NULL, 0, big);
    xa_fill(p, 0, big);
    p = x_big_resize(p, big, big - 2000);
    ck_assert(xa_pattern(p, big - 2000));
    p = x_big_resize(p, big - 2000, big + 10000);
    ck_assert(xa_pattern(p, big - 2000));
    ck_assert(xa_zero(p, big - 2000, big + 10000));
    x_big_free(p, big + 10000);
}
END_TEST

/* x_big_growarray doubles from `first` and keeps what was there. */
START_TEST(test_xalloc_big_growarray)
{
    uint64_t *a = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 100000; n++) {
        x_big_growarray((void **)&a, &cap, n + 1, 64, sizeof *a);
        ck_assert_uint_ge(cap, n + 1);
        a[n] = n * 977;
    }
    ck_assert_uint_eq(cap, 131072);     /* 64 doubled 11 times */
    for (size_t n = 0; n < 100000; n++)
        ck_assert_uint_eq(a[n], n * 977);
    x_big_free(a, cap * sizeof *a);
}
END_TEST

Suite *
test_xalloc_suite(void)
{
    Suite *s = suite_create("xalloc");
    TCase *tc = tcase_create("big");
    tcase_add_test(tc, test_xalloc_big_resize);
    tcase_add_test(tc, test_xalloc_big_regrow_in_page);
    tcase_add_test(tc, test_xalloc_big_growarray);
    suite_add_tcase(s, tc);
    return s;
}
