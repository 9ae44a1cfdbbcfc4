/* tests/test_evlog: header parsing and the file-order iterator — capability
 * assignment from block markers (ghc-events' rules), end and error states. */
#include <string.h>

#include "evlog.h"
#include "tests.h"

static void
small_header(tlog *t)
{
    tlog_header_begin(t);
    tlog_type(t, EV_RUN_THREAD, 4, "Run thread");
    tlog_type(t, EV_BLOCK_MARKER, 14, "Block marker");
    tlog_type(t, EV_USER_MARKER, EVLOG_VARIABLE_SIZE, "User marker");
    tlog_header_end(t);
}

static void
run(tlog *t, uint64_t time, uint32_t tid)
{
    tlog_event(t, EV_RUN_THREAD, time);
    tlog_u32(t, tid);
}

#define RUN_BYTES 14u

START_TEST(test_evlog_header)
{
    tlog t;
    tlog_init(&t);
    small_header(&t);
    tlog_end(&t);
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d);
    ck_assert_ptr_nonnull(log);
    ck_assert_uint_eq(evlog_n_types(log), 3);
    ck_assert_uint_eq(evlog_type_at(log, 2)->id, EV_USER_MARKER);
    ck_assert_uint_eq(evlog_type_at(log, 2)->size, EVLOG_VARIABLE_SIZE);
    ck_assert_ptr_nonnull(evlog_type_of(log, EV_RUN_THREAD)->known);
    ck_assert_ptr_null(evlog_type_of(log, EV_CREATE_THREAD));
    ck_assert_ptr_null(evlog_type_of(log, 60000));
    ck_assert_uint_eq(evlog_data_start(log), t.b.len - 2);
    evlog_close(log);
    tlog_free(&t);
}
END_TEST

START_TEST(test_evlog_caps_from_blocks)
{
    tlog t;
    tlog_init(&t);
    small_header(&t);
    run(&t, 1, 100);                          /* before any block: no cap */
    tlog_block(&t, 2, 2 * RUN_BYTES, 3, 1);   /* cap 1 block of two events */
    run(&t, 2, 101);
    run(&t, 3, 102);
    run(&t, 4, 103);                          /* past the block's end: no cap */
    tlog_block(&t, 5, RUN_BYTES, 5, EVLOG_NO_CAP);  /* global block */
    run(&t, 5, 104);
    tlog_block(&t, 6, 0, 6, 2);               /* zero-size block: first event still cap 2 */
    run(&t, 6, 105);
    run(&t, 7, 106);
    tlog_end(&t);
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d);
    ck_assert_ptr_nonnull(log);
    static const struct { uint16_t type, cap; } want[] = {
        { EV_RUN_THREAD, EVLOG_NO_CAP }, { EV_BLOCK_MARKER, 1 }, { EV_RUN_THREAD, 1 },
        { EV_RUN_THREAD, 1 },            { EV_RUN_THREAD, EVLOG_NO_CAP },
        { EV_BLOCK_MARKER, EVLOG_NO_CAP }, { EV_RUN_THREAD, EVLOG_NO_CAP },
        { EV_BLOCK_MARKER, 2 },          { EV_RUN_THREAD, 2 },
        { EV_RUN_THREAD, EVLOG_NO_CAP },
    };
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    size_t i = 0;
    while (evlog_iter_next(&it, &ev)) {
        ck_assert_uint_lt(i, sizeof want / sizeof want[0]);
        ck_assert_msg(ev.type == want[i].type && ev.cap == want[i].cap,
                      "event %zu: type %u cap %u", i, ev.type, ev.cap);
        i++;
    }
    ck_assert_uint_eq(i, sizeof want / sizeof want[0]);
    ck_assert_int_eq(it.state, EVLOG_ITER_END);
    evlog_close(log);
    tlog_free(&t);
}
END_TEST

START_TEST(test_evlog_undeclared_type_is_an_error_with_offset)
{
    tlog t;
    tlog_init(&t);
    small_header(&t);
    run(&t, 1, 1);
    size_t bad_at = t.b.len;
    tlog_event(&t, 77, 2);
    tlog_u32(&t, 0);
    tlog_end(&t);
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    ck_assert(evlog_iter_next(&it, &ev));
    ck_assert(!evlog_iter_next(&it, &ev));
    ck_assert_int_eq(it.state, EVLOG_ITER_ERROR);
    ck_assert_int_eq(it.diag.code, DIAG_BAD_DATA);
    ck_assert_uint_eq(it.diag.offset, bad_at);
    ck_assert(strstr(it.diag.msg, "77") != NULL);
    evlog_close(log);
    tlog_free(&t);
}
END_TEST

START_TEST(test_evlog_truncation_states)
{
    tlog t;
    tlog_init(&t);
    small_header(&t);
    run(&t, 1, 1);
    tlog_event(&t, EV_USER_MARKER, 2);
    tlog_u16(&t, 5);
    tlog_bytes(&t, "hello", 5);
    size_t full = t.b.len;                    /* no DATA_END */
    diag d;
    for (size_t cut = full - 6; cut <= full; cut++) {
        evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, cut, &d);
        evlog_iter it;
        evlog_iter_init(&it, log);
        evlog_event ev;
        size_t n = 0;
        while (evlog_iter_next(&it, &ev))
            n++;
        ck_assert_int_eq(it.state, EVLOG_ITER_TRUNCATED);
        ck_assert_int_eq(it.diag.code, DIAG_TRUNCATED);
        ck_assert_uint_eq(n, cut == full ? 2 : 1);
        ck_assert_uint_eq(it.diag.offset, cut == full ? full : full - 17);
        evlog_close(log);
    }
    tlog_free(&t);
}
END_TEST

START_TEST(test_evlog_header_errors)
{
    diag d;
    ck_assert_ptr_null(evlog_open_bytes((const uint8_t *)"", 0, &d));
    ck_assert_int_eq(d.code, DIAG_NOT_EVENTLOG);
    ck_assert_ptr_null(evlog_open_bytes((const uint8_t *)"hello world", 11, &d));
    ck_assert_int_eq(d.code, DIAG_NOT_EVENTLOG);
    ck_assert_uint_eq(d.offset, 0);
    /* A description length pointing past the end of the file. */
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_u32(&t, EVLOG_ET_BEGIN);
    tlog_u16(&t, 1);
    tlog_u16(&t, 4);
    tlog_u32(&t, 0xfffffff0u);
    tlog_bytes(&t, "Run", 3);
    ck_assert_ptr_null(evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d));
    ck_assert_int_eq(d.code, DIAG_BAD_HEADER);
    ck_assert_uint_eq(d.offset, 20);
    tlog_free(&t);
}
END_TEST

Suite *
test_evlog_suite(void)
{
    Suite *s = suite_create("evlog");
    TCase *tc = tcase_create("evlog");
    tcase_add_test(tc, test_evlog_header);
    tcase_add_test(tc, test_evlog_caps_from_blocks);
    tcase_add_test(tc, test_evlog_undeclared_type_is_an_error_with_offset);
    tcase_add_test(tc, test_evlog_truncation_states);
    tcase_add_test(tc, test_evlog_header_errors);
    suite_add_tcase(s, tc);
    return s;
}
