/* test_radixsort: the radix sort against a plain stable insertion sort on random keys of
 * narrow and full 64-bit spans, elements of several sizes with the key at several
 * offsets, and the descending rank with ties in index order. */
#include <stdlib.h>
#include <string.h>

#include "radixsort.h"
#include "tests.h"
#include "xalloc.h"

/* An element of 24 bytes: a tag (its original position), the key, a filler. */
typedef struct rs_elem {
    uint32_t tag;
    uint64_t key;
    uint64_t fill;
} rs_elem;

static uint64_t
rs_rand(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

static void
rs_reference(rs_elem *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && a[j - 1].key > a[j].key; j--) {
            rs_elem t = a[j - 1];
            a[j - 1] = a[j];
            a[j] = t;
        }
}

START_TEST(test_radixsort_matches_stable_sort)
{
    uint64_t st = 0x9e3779b97f4a7c15u;
    static const uint64_t spans[] = { 1, 7, 2048, 1u << 20, UINT64_C(1) << 40, 0 };
    for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++) {
        for (size_t n = 0; n < 700; n += 1 + n / 3) {
            rs_elem *a = xmalloc((n + 1) * sizeof *a), *b = xmalloc((n + 1) * sizeof *b);
            uint64_t base = rs_rand(&st);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = rs_rand(&st);
                a[i] = (rs_elem){ (uint32_t)i, spans[si] ? base / 2 + r % spans[si] : r, r };
            }
            memcpy(b, a, n * sizeof *a);
            radixsort_by_u64(a, n, sizeof *a, offsetof(rs_elem, key));
            rs_reference(b, n);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(a[i].tag == b[i].tag && a[i].key == b[i].key &&
                                  a[i].fill == b[i].fill, "span %llu n %zu: element %zu differs",
                              (unsigned long long)spans[si], n, i);
            x_free(a);
            x_free(b);
        }
    }
}
END_TEST

/* Elements of 80 bytes (more than the swap's 64-byte buffer): key, then a tie-breaker. */
typedef struct rs_wide {
    uint64_t key, tie;
    uint32_t tag;
    unsigned char fill[60];
} rs_wide;

static int
rs_wide_cmp(const void *x, const void *y)
{
    const rs_wide *p = x, *q = y;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
    return p->tie < q->tie ? -1 : p->tie > q->tie;
}

/* Few distinct keys, many ties: the result is the (key, tie) order of qsort, and each
 * element arrives whole (its tag and filler with it). */
START_TEST(test_radixsort_ties_by_cmp)
{
    uint64_t st = 0x2545f4914f6cdd1du;
    for (size_t n = 0; n < 400; n += 1 + n / 4) {
        rs_wide *a = xmalloc((n + 1) * sizeof *a), *b = xmalloc((n + 1) * sizeof *b);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = rs_rand(&st);
            a[i] = (rs_wide){ .key = r % 5, .tie = (r >> 8) % 1000003, .tag = (uint32_t)i };
            memset(a[i].fill, (int)(i & 0xff), sizeof a[i].fill);
        }
        memcpy(b, a, n * sizeof *a);
        radixsort_by_u64_ties(a, n, sizeof *a, offsetof(rs_wide, key), rs_wide_cmp);
        qsort(b, n, sizeof *b, rs_wide_cmp);
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(a[i].key == b[i].key && a[i].tie == b[i].tie,
                          "n %zu: element %zu out of order", n, i);
            ck_assert_msg(a[i].fill[59] == (unsigned char)(a[i].tag & 0xff),
                          "n %zu: element %zu torn", n, i);
        }
        x_free(a);
        x_free(b);
    }
}
END_TEST

/* A bare array of keys (size 8, offset 0): sorted ascending. */
START_TEST(test_radixsort_plain_keys)
{
    uint64_t k[] = { 5, UINT64_MAX, 0, 5, 1u << 30, 3 };
    radixsort_by_u64(k, 6, sizeof k[0], 0);
    static const uint64_t want[] = { 0, 3, 5, 5, 1u << 30, UINT64_MAX };
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(k[i], want[i]);
}
END_TEST

START_TEST(test_radixsort_rank_desc)
{
    static const uint64_t key[] = { 3, 9, 3, 0, 9, UINT64_MAX, 1 };
    size_t *r = radixsort_rank_desc(key, 7);
    static const size_t want[] = { 5, 1, 4, 0, 2, 6, 3 };     /* ties keep index order */
    for (size_t i = 0; i < 7; i++)
        ck_assert_uint_eq(r[i], want[i]);
    x_free(r);
    r = radixsort_rank_desc(key, 0);
    ck_assert_ptr_nonnull(r);
    x_free(r);
}
END_TEST

/* The rank against a stable insertion sort of (key, index) pairs, largest key first, on
 * spans narrow enough for the one-word path and too wide for it (keys of 64 bits). */
START_TEST(test_radixsort_rank_matches_reference)
{
    uint64_t st = 0x2545f4914f6cdd1du;
    static const uint64_t spans[] = { 1, 3, 5000, UINT64_C(1) << 33, UINT64_C(1) << 50, 0 };
    for (size_t si = 0; si < sizeof spans / sizeof spans[0]; si++) {
        for (size_t n = 1; n < 3000; n += 1 + n / 2) {
            uint64_t *key = xmalloc(n * sizeof *key);
            rs_elem *ref = xmalloc(n * sizeof *ref);
            uint64_t base = rs_rand(&st) / 4;
            for (size_t i = 0; i < n; i++) {
                uint64_t r = rs_rand(&st);
                key[i] = spans[si] ? base + r % spans[si] : r;
                ref[i] = (rs_elem){ (uint32_t)i, UINT64_MAX - key[i], 0 };
            }
            rs_reference(ref, n);
            size_t *r = radixsort_rank_desc(key, n);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(r[i] == ref[i].tag, "span %llu n %zu: rank %zu is %zu, want %u",
                              (unsigned long long)spans[si], n, i, r[i], ref[i].tag);
            x_free(r);
            /* In parts (one of them empty) merged: the same order. */
            size_t *words = xmalloc(n * sizeof *words);
            r = xmalloc(n * sizeof *r);
            radixsort_part part[3] = { { 0, n / 3, 0, false }, { n / 3, n / 3, 0, false },
                                       { n / 3, n, 0, false } };
            for (int k = 0; k < 3; k++)
                radixsort_rank_part(key, n, words, r, &part[k]);
            radixsort_rank_merge(key, n, words, part, 3, r);
            for (size_t i = 0; i < n; i++)
                ck_assert_msg(r[i] == ref[i].tag, "span %llu n %zu: merged rank %zu is %zu, "
                              "want %u", (unsigned long long)spans[si], n, i, r[i], ref[i].tag);
            x_free(r);
            x_free(words);
            x_free(ref);
            x_free(key);
        }
    }
}
END_TEST

Suite *
test_radixsort_suite(void)
{
    Suite *s = suite_create("radixsort");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_radixsort_matches_stable_sort);
    tcase_add_test(tc, test_radixsort_plain_keys);
    tcase_add_test(tc, test_radixsort_ties_by_cmp);
    tcase_add_test(tc, test_radixsort_rank_desc);
    tcase_add_test(tc, test_radixsort_rank_matches_reference);
    suite_add_tcase(s, tc);
    return s;
}
