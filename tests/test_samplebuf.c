/* test_samplebuf: the sample streams against a plain array sorted by (group, time,
 * offset, key, push order) — streams in and out of order, values that wrap, two buffers
 * joined by samplebuf_append_take, one split by samplebuf_split_off — and the key range
 * query. */
#include <stdlib.h>
#include <string.h>

#include "samplebuf.h"
#include "tests.h"
#include "xalloc.h"

typedef struct sbt_rec {
    samplebuf_rec r;
    size_t seq;                 /* push order */
} sbt_rec;

static uint64_t
sbt_rand(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

static int
sbt_cmp(const void *a, const void *b)
{
    const sbt_rec *x = a, *y = b;
    uint32_t gx = x->r.key >> 16, gy = y->r.key >> 16;
    if (gx != gy)
        return gx < gy ? -1 : 1;
    if (x->r.time_ns != y->r.time_ns)
        return x->r.time_ns < y->r.time_ns ? -1 : 1;
    if (x->r.offset != y->r.offset)
        return x->r.offset < y->r.offset ? -1 : 1;
    if (x->r.key != y->r.key)
        return x->r.key < y->r.key ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct sbt_out {
    samplebuf_rec *v;
    size_t n;
} sbt_out;

static void
sbt_take(void *ctx, const samplebuf_rec *r)
{
    sbt_out *o = ctx;
    o->v[o->n++] = *r;
}

START_TEST(test_samplebuf_drain_matches_sort)
{
    enum { N = 6000 };
    uint64_t st = 0x2545f4914f6cdd1du;
    for (unsigned nv = 1; nv <= SAMPLEBUF_MAX_VALUES; nv += 2) {
        sbt_rec *ref = xcalloc(2 * N, sizeof *ref);
        samplebuf *a = samplebuf_new(nv), *b = samplebuf_new(nv);
        uint64_t t[64] = { 0 };
        size_t n = 0;
        for (int half = 0; half < 2; half++) {
            samplebuf *sb = half ? b : a;
            for (size_t i = 0; i < N; i++, n++) {
                uint64_t r = sbt_rand(&st);
                /* 3 groups x 5 streams; stream 4 of each group out of order, ties on
                 * time across streams, offsets in file order (later for half 1). */
                uint32_t s = (uint32_t)(r % 15), key = (s / 5) << 16 | (s % 5);
                uint64_t dt = (r >> 8) % 4 == 0 ? 0 : (r >> 12) % 5000;
                t[s] = s % 5 == 4 ? (r >> 20) % 100000 : t[s] + dt;
                sbt_rec *x = &ref[n];
                x->seq = n;
                x->r.key = key;
                x->r.time_ns = t[s] / 64 * 64;
                x->r.offset = 1000 + n * 7;
                for (unsigned k = 0; k < nv; k++)
                    x->r.value[k] = k == 0 ? sbt_rand(&st) : k == 1 ? UINT64_MAX - (r % 3) : r % 9;
                samplebuf_push(sb, key, x->r.time_ns, x->r.offset, x->r.value);
            }
        }
        ck_assert_uint_eq(samplebuf_count(a), N);
        ck_assert(samplebuf_any(b, 2u << 16, (2u << 16) | 0xffff));
        ck_assert(!samplebuf_any(b, 3u << 16, (3u << 16) | 0xffff));
        samplebuf_append_take(a, b);
        ck_assert_uint_eq(samplebuf_count(a), 2 * N);
        ck_assert_uint_eq(samplebuf_count(b), 0);
        ck_assert(!samplebuf_any(b, 0, UINT32_MAX));
        qsort(ref, n, sizeof *ref, sbt_cmp);
        sbt_out out = { xcalloc(n, sizeof *out.v), 0 };
        samplebuf_drain(a, 16, sbt_take, &out);
        ck_assert_uint_eq(out.n, n);
        ck_assert_uint_eq(samplebuf_count(a), 0);
        for (size_t i = 0; i < n; i++) {
            const samplebuf_rec *g = &out.v[i], *w = &ref[i].r;
            ck_assert_msg(g->key == w->key && g->time_ns == w->time_ns &&
                              g->offset == w->offset, "values %u: record %zu is key %x "
                          "t %llu off %llu, want key %x t %llu off %llu", nv, i, g->key,
                          (unsigned long long)g->time_ns, (unsigned long long)g->offset,
                          w->key, (unsigned long long)w->time_ns,
                          (unsigned long long)w->offset);
            for (unsigned k = 0; k < nv; k++)
                ck_assert_msg(g->value[k] == w->value[k], "values %u: record %zu value %u",
                              nv, i, k);
        }
        x_free(out.v);
        x_free(ref);
        samplebuf_free(a);
        samplebuf_free(b);
    }
}
END_TEST

/* One group (a shift of 32) merges every stream; a drained buffer takes records again. */
START_TEST(test_samplebuf_one_group_and_reuse)
{
    samplebuf *sb = samplebuf_new(1);
    for (int round = 0; round < 2; round++) {
        for (uint64_t i = 0; i < 100; i++) {
            uint64_t v = i;
            samplebuf_push(sb, (uint32_t)(i % 3) << 16, 10 * (i / 3) + (i % 3), i, &v);
        }
        samplebuf_rec got[100];
        sbt_out out = { got, 0 };
        samplebuf_drain(sb, 32, sbt_take, &out);
        ck_assert_uint_eq(out.n, 100);
        for (size_t i = 0; i < 100; i++)
            ck_assert_msg(got[i].value[0] == i, "round %d: record %zu is %llu", round, i,
                          (unsigned long long)got[i].value[0]);
    }
    samplebuf_free(sb);
}
END_TEST

/* A buffer split by key range drains, side by side, exactly what it held, and each
 * side takes later pushes to its own streams (old keys and new ones). */
START_TEST(test_samplebuf_split_off)
{
    enum { N = 3000 };
    uint64_t st = 31;
    samplebuf *whole = samplebuf_new(2), *sb = samplebuf_new(2);
    for (size_t i = 0; i < 2 * N; i++) {
        /* Groups 0..5, four capabilities each; the second half pushed after the split. */
        uint32_t key = (uint32_t)(sbt_rand(&st) % 6) << 16 | (uint32_t)(i % 4);
        uint64_t v[2] = { sbt_rand(&st), i };
        if (i == N) {
            samplebuf *lo = samplebuf_split_off(sb, 0, (2u << 16) - 1);     /* groups 0, 1 */
            ck_assert_uint_eq(samplebuf_count(lo) + samplebuf_count(sb), N);
            ck_assert(!samplebuf_any(sb, 0, (2u << 16) - 1));
            ck_assert(!samplebuf_any(lo, 2u << 16, UINT32_MAX));
            /* A range of no key: an empty buffer, drained as such. */
            samplebuf *none = samplebuf_split_off(sb, 6u << 16, UINT32_MAX);
            ck_assert_uint_eq(samplebuf_count(none), 0);
            sbt_out nothing = { NULL, 0 };
            samplebuf_drain(none, 16, sbt_take, &nothing);
            ck_assert_uint_eq(nothing.n, 0);
            samplebuf_free(none);
            /* Later pushes of groups 0 and 1 go to lo, the rest to sb. */
            for (size_t j = N; j < 2 * N; j++) {
                uint32_t k = (uint32_t)(sbt_rand(&st) % 6) << 16 | (uint32_t)(j % 5);
                uint64_t w[2] = { sbt_rand(&st), j };
                uint64_t t = j * 10 + (k >> 16);
                samplebuf_push(whole, k, t, j, w);
                samplebuf_push(k < (2u << 16) ? lo : sb, k, t, j, w);
            }
            samplebuf_rec *a = malloc(2 * N * sizeof *a), *b = malloc(2 * N * sizeof *b);
            ck_assert_ptr_nonnull(a);
            ck_assert_ptr_nonnull(b);
            sbt_out oa = { a, 0 }, ob = { b, 0 };
            samplebuf_drain(whole, 16, sbt_take, &oa);
            samplebuf_drain(lo, 16, sbt_take, &ob);     /* lo's groups come first */
            samplebuf_drain(sb, 16, sbt_take, &ob);
            ck_assert_uint_eq(oa.n, 2 * N);
            ck_assert_uint_eq(ob.n, 2 * N);
            for (size_t j = 0; j < 2 * N; j++)
                ck_assert_msg(a[j].key == b[j].key && a[j].time_ns == b[j].time_ns &&
                              a[j].offset == b[j].offset && a[j].value[0] == b[j].value[0] &&
                              a[j].value[1] == b[j].value[1], "record %zu differs", j);
            free(a);
            free(b);
            samplebuf_free(lo);
            break;
        }
        samplebuf_push(whole, key, i * 10 + (key >> 16), i, v);
        samplebuf_push(sb, key, i * 10 + (key >> 16), i, v);
    }
    samplebuf_free(whole);
    samplebuf_free(sb);
}
END_TEST

Suite *
test_samplebuf_suite(void)
{
    Suite *s = suite_create("samplebuf");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_samplebuf_drain_matches_sort);
    tcase_add_test(tc, test_samplebuf_one_group_and_reuse);
    tcase_add_test(tc, test_samplebuf_split_off);
    suite_add_tcase(s, tc);
    return s;
}
