/* tests/test_merge: the streaming time-order merge against a brute-force stable
 * sort, on random logs with interleaved per-cap blocks, out-of-order events,
 * equal timestamps and events outside blocks; and its memory bound. */
#include <stdlib.h>
#include <string.h>

#include "evlog.h"
#include "merge.h"
#include "tests.h"
#include "xalloc.h"

typedef struct ref_event {
    uint64_t time, offset;
    uint16_t cap;
} ref_event;

static int
ref_cmp(const void *a, const void *b)
{
    const ref_event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static uint64_t
rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random log: n_caps caps each advancing its own clock, blocks of 1..max_block
 * events interleaved in file order, a few events swapped or equal in time. */
static void
random_log(tlog *t, uint64_t seed, int n_caps, int n_blocks, int max_block, bool loose)
{
    uint64_t s = seed * 2654435761u + 1;
    tlog_header_begin(t);
    tlog_type(t, EV_RUN_THREAD, 4, "Run thread");
    tlog_type(t, EV_BLOCK_MARKER, 14, "Block marker");
    tlog_header_end(t);
    uint64_t clock[16] = { 0 };
    for (int b = 0; b < n_blocks; b++) {
        if (loose && rng_next(&s) % 5 == 0) {  /* events outside any block */
            for (int k = 0; k < 2; k++) {
                tlog_event(t, EV_RUN_THREAD, clock[0] + rng_next(&s) % 50);
                tlog_u32(t, 7);
            }
        }
        int cap = (int)(rng_next(&s) % (uint64_t)n_caps);
        int n = 1 + (int)(rng_next(&s) % (uint64_t)max_block);
        uint64_t times[256];
        for (int k = 0; k < n; k++) {
            clock[cap] += rng_next(&s) % 4;     /* zero steps make equal timestamps */
            times[k] = clock[cap];
        }
        for (int k = 0; k + 1 < n; k++)          /* GHC's slight disorder */
            if (rng_next(&s) % 7 == 0) {
                uint64_t tmp = times[k];
                times[k] = times[k + 1];
                times[k + 1] = tmp;
            }
        tlog_block(t, times[0], (uint32_t)n * 14u, clock[cap], (uint16_t)cap);
        for (int k = 0; k < n; k++) {
            tlog_event(t, EV_RUN_THREAD, times[k]);
            tlog_u32(t, (uint32_t)k);
        }
    }
    tlog_end(t);
}

/* The merge of `t` holding at most max_pending events (0: the default) against the
 * brute-force sort; *selected tells whether it went over to selection passes. */
static void
check_bounded(const tlog *t, size_t max_pending, size_t *peak, size_t *total, bool *selected)
{
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t->b.data, t->b.len, &d);
    ck_assert_ptr_nonnull(log);
    size_t n = 0, cap = 1024;
    ref_event *ref = xreallocarray(NULL, cap, sizeof *ref);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (n == cap) {
            cap *= 2;
            ref = xreallocarray(ref, cap, sizeof *ref);
        }
        ref[n++] = (ref_event){ ev.time_ns, ev.offset, ev.cap };
    }
    /* qsort with the offset tie-break is exactly a stable sort by time. */
    qsort(ref, n, sizeof *ref, ref_cmp);
    diag ending;
    merge *m = max_pending ? merge_new_bounded(log, max_pending, &ending)
                           : merge_new(log, &ending);
    ck_assert_int_eq(ending.code, DIAG_OK);
    ck_assert_uint_eq(merge_n_events(m), n);
    size_t i = 0;
    while (merge_next(m, &ev)) {
        ck_assert_uint_lt(i, n);
        ck_assert_msg(ev.offset == ref[i].offset && ev.time_ns == ref[i].time &&
                          ev.cap == ref[i].cap,
                      "position %zu: got offset %llu time %llu, want offset %llu time %llu", i,
                      (unsigned long long)ev.offset, (unsigned long long)ev.time_ns,
                      (unsigned long long)ref[i].offset, (unsigned long long)ref[i].time);
        i++;
    }
    ck_assert_uint_eq(i, n);
    *peak = merge_peak_pending(m);
    *total = n;
    *selected = merge_selected(m);
    merge_free(m);
    x_free(ref);
    evlog_close(log);
}

static void
check_against_reference(const tlog *t, size_t *peak, size_t *total)
{
    bool selected;
    check_bounded(t, 0, peak, total, &selected);
    ck_assert(!selected);
}

START_TEST(test_merge_matches_stable_sort)
{
    for (uint64_t seed = 1; seed <= 200; seed++) {
        tlog t;
        tlog_init(&t);
        random_log(&t, seed, 1 + (int)(seed % 5), 1 + (int)(seed % 40), 1 + (int)(seed % 60),
                   seed % 3 == 0);
        size_t peak, total;
        check_against_reference(&t, &peak, &total);
        tlog_free(&t);
    }
}
END_TEST

START_TEST(test_merge_memory_is_bounded_by_blocks_in_flight)
{
    tlog t;
    tlog_init(&t);
    random_log(&t, 99, 4, 4000, 50, false);
    size_t peak, total;
    check_against_reference(&t, &peak, &total);
    ck_assert_uint_gt(total, 50000);
    /* Four caps advancing at the same rate: only a few blocks are ever pending. */
    ck_assert_msg(peak < total / 20, "peak %zu of %zu events", peak, total);
    tlog_free(&t);
}
END_TEST

/* A log with no blocks and `n` events (old GHC, or a hostile file of zeros): times
 * rising with slight disorder (`scrambled`: random over the whole log). */
static void
flat_log(tlog *t, uint64_t seed, size_t n, bool scrambled)
{
    uint64_t s = seed * 2654435761u + 1, clock = 0;
    tlog_header_begin(t);
    tlog_type(t, EV_RUN_THREAD, 4, "Run thread");
    tlog_header_end(t);
    for (size_t k = 0; k < n; k++) {
        clock += rng_next(&s) % 3;
        uint64_t time = scrambled ? rng_next(&s) % (n * 2) : clock + rng_next(&s) % 2;
        tlog_event(t, EV_RUN_THREAD, time);
        tlog_u32(t, (uint32_t)k);
    }
    tlog_end(t);
}

/* No blocks at all: the whole file was one run of 16 bytes per event; now at most a
 * chunk or two (65536 events each) are pending whatever the file's size. */
START_TEST(test_merge_no_blocks_is_bounded)
{
    tlog t;
    tlog_init(&t);
    flat_log(&t, 5, 200000, false);
    size_t peak, total;
    bool selected;
    check_bounded(&t, 0, &peak, &total, &selected);
    ck_assert_uint_eq(total, 200000);
    ck_assert_msg(peak <= 2 * 65536 && !selected, "peak %zu of %zu events", peak, total);
    tlog_free(&t);
}
END_TEST

/* Timestamps scrambled over the whole log: every chunk overlaps every other, so no
 * merge can release anything early; the bound holds through selection passes and the
 * order is still exactly the stable sort. Also the switch to them mid-stream, on
 * ordinary block layouts with tiny bounds. */
START_TEST(test_merge_scrambled_stays_within_bound)
{
    tlog t;
    tlog_init(&t);
    flat_log(&t, 9, 60000, true);
    size_t peak, total;
    bool selected;
    check_bounded(&t, 5000, &peak, &total, &selected);
    ck_assert(selected);
    ck_assert_msg(peak <= 5000, "peak %zu", peak);
    tlog_free(&t);
    static const size_t bounds[] = { 1, 2, 7, 100, 5000 };
    for (uint64_t seed = 1; seed <= 40; seed++) {
        tlog_init(&t);
        random_log(&t, seed, 1 + (int)(seed % 5), 1 + (int)(seed % 40), 1 + (int)(seed % 60),
                   seed % 3 == 0);
        size_t bound = bounds[seed % 5];
        check_bounded(&t, bound, &peak, &total, &selected);
        ck_assert_msg(peak <= bound, "seed %llu: peak %zu over %zu",
                      (unsigned long long)seed, peak, bound);
        tlog_free(&t);
    }
}
END_TEST

Suite *
test_merge_suite(void)
{
    Suite *s = suite_create("merge");
    TCase *tc = tcase_create("merge");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_merge_matches_stable_sort);
    tcase_add_test(tc, test_merge_memory_is_bounded_by_blocks_in_flight);
    tcase_add_test(tc, test_merge_no_blocks_is_bounded);
    tcase_add_test(tc, test_merge_scrambled_stays_within_bound);
    suite_add_tcase(s, tc);
    return s;
}
