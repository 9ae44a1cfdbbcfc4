/* tests/test_decode: decoding and ghc-events-compatible rendering per event
 * family, plus the size rules — unknown types, oversized and undersized layouts. */
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "evlog.h"
#include "render.h"
#include "tests.h"
#include "xalloc.h"

/* Render the single event of a log whose header declares `type` with `hsize`
 * (EVLOG_VARIABLE_SIZE for variable) and whose payload is p[0..n). Caller frees. */
static char *
render_with(uint16_t type, uint16_t hsize, const char *desc, const void *p, size_t n)
{
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_type(&t, type, hsize, desc);
    tlog_header_end(&t);
    tlog_event(&t, type, 1000);
    if (hsize == EVLOG_VARIABLE_SIZE)
        tlog_u16(&t, (uint16_t)n);
    tlog_bytes(&t, p, n);
    tlog_end(&t);
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d);
    ck_assert_msg(log != NULL, "%s", d.msg);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    ck_assert(evlog_iter_next(&it, &ev));
    strbuf sb;
    strbuf_init(&sb);
    render *r = render_new();
    render_event_text(r, &sb, &ev);
    render_free(r);
    ck_assert(!evlog_iter_next(&it, &ev));
    ck_assert_int_eq(it.state, EVLOG_ITER_END);
    evlog_close(log);
    tlog_free(&t);
    if (!sb.data)
        return xstrdup("");
    return sb.data;
}

/* Payload bytes built with tlog, then rendered with the standard size for `type`. */
static void
expect(uint16_t type, uint16_t hsize, const tlog *payload, const char *want)
{
    char *got = render_with(type, hsize, "DESC", payload->b.data ? payload->b.data : "",
                            payload->b.len);
    ck_assert_msg(strcmp(got, want) == 0, "type %u: got [%s] want [%s]", type, got, want);
    x_free(got);
}

#define PAYLOAD(name) tlog name; tlog_init(&name)
#define VAR EVLOG_VARIABLE_SIZE

START_TEST(test_decode_scheduler)
{
    PAYLOAD(p);
    tlog_u32(&p, 42);
    expect(EV_CREATE_THREAD, 4, &p, "creating thread 42");
    expect(EV_RUN_THREAD, 4, &p, "running thread 42");
    expect(EV_THREAD_RUNNABLE, 4, &p, "thread 42 is runnable");
    tlog_u16(&p, 3);
    expect(EV_MIGRATE_THREAD, 6, &p, "migrating thread 42 to cap 3");
    expect(EV_THREAD_WAKEUP, 6, &p, "waking up thread 42 on cap 3");
    tlog_free(&p);

    static const struct { uint16_t status; uint32_t info; const char *text; } stops[] = {
        { 1, 0, "heap overflow" },         { 2, 4096, "stack overflow, size 4096" },
        { 3, 0, "thread yielding" },       { 5, 0, "thread finished" },
        { 6, 0, "making a foreign call" }, { 7, 0, "blocked on an MVar" },
        { 8, 9, "blocked on black hole owned by thread 9" },
        { 11, 0, "blocked on threadDelay" }, { 12, 0, "blocked in STM retry" },
        { 18, 0, "blocked in throwTo" },   { 20, 0, "blocked reading an MVar" },
        { 0, 0, "No stop thread status" }, { 99, 0, "unknown stop status 99" },
    };
    for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
        PAYLOAD(q);
        tlog_u32(&q, 7);
        tlog_u16(&q, stops[i].status);
        tlog_u32(&q, stops[i].info);
        char want[120];
        snprintf(want, sizeof want, "stopping thread 7 (%s)", stops[i].text);
        expect(EV_STOP_THREAD, 10, &q, want);
        tlog_free(&q);
    }
}
END_TEST

START_TEST(test_decode_gc)
{
    PAYLOAD(none);
    expect(EV_GC_START, 0, &none, "starting GC");
    expect(EV_GC_END, 0, &none, "finished GC");
    expect(EV_GC_WORK, 0, &none, "GC working");
    expect(EV_GC_IDLE, 0, &none, "GC idle");
    expect(EV_GC_DONE, 0, &none, "GC done");
    expect(EV_GC_GLOBAL_SYNC, 0, &none, "all caps stopped for GC");
    expect(EV_REQUEST_PAR_GC, 0, &none, "requesting parallel GC");
    expect(EV_REQUEST_SEQ_GC, 0, &none, "requesting sequential GC");

    PAYLOAD(st);
    tlog_u32(&st, 0);
    tlog_u16(&st, 1);
    tlog_u64(&st, 100);
    tlog_u64(&st, 200);
    tlog_u64(&st, 300);
    tlog_u32(&st, 2);
    tlog_u64(&st, 60);
    tlog_u64(&st, 100);
    const char *base = "GC stats for heap capset 0: generation 1, 100 bytes copied, "
                       "200 bytes slop, 300 bytes fragmentation, 2 par threads, "
                       "60 bytes max par copied, 100 bytes total par copied";
    expect(EV_GC_STATS_GHC, 50, &st, base);   /* older 50-byte layout */
    tlog_u64(&st, 55);
    char want[400];
    snprintf(want, sizeof want, "%s, 55 bytes balanced par copied", base);
    expect(EV_GC_STATS_GHC, 58, &st, want);
    tlog_free(&st);

    PAYLOAD(mr);
    tlog_u32(&mr, 0);
    tlog_u32(&mr, 10);
    tlog_u32(&mr, 8);
    tlog_u32(&mr, 2);
    expect(EV_MEM_RETURN, 16, &mr, "memory returned (mblocks): current(10) needed(8) returned(2)");
    tlog_free(&mr);
}
END_TEST

START_TEST(test_decode_heap)
{
    PAYLOAD(p);
    tlog_u32(&p, 0);
    tlog_u64(&p, 1048576);
    expect(EV_HEAP_SIZE, 12, &p, "size of heap capset 0: 1048576 bytes");
    expect(EV_HEAP_LIVE, 12, &p, "live data in heap capset 0: 1048576 bytes");
    expect(EV_BLOCKS_SIZE, 12, &p, "blocks size of heap capset 0: 1048576 bytes");
    expect(EV_HEAP_ALLOCATED, 12, &p, "allocated on heap capset 0: 1048576 total bytes till now");
    tlog_free(&p);
    PAYLOAD(info);
    tlog_u32(&info, 0);
    tlog_u16(&info, 2);
    tlog_u64(&info, 0);
    tlog_u64(&info, 4194304);
    tlog_u64(&info, 1048576);
    tlog_u64(&info, 4096);
    expect(EV_HEAP_INFO_GHC, 38, &info,
           "heap stats for heap capset 0: generations 2, 0 bytes max heap size, 4194304 bytes "
           "alloc area size, 1048576 bytes mblock size, 4096 bytes block size");
    tlog_free(&info);
}
END_TEST

START_TEST(test_decode_sparks)
{
    PAYLOAD(c);
    for (uint64_t v = 1; v <= 7; v++)
        tlog_u64(&c, v);
    expect(EV_SPARK_COUNTERS, 56, &c,
           "spark stats: 1 created, 4 converted, 7 remaining (3 overflowed, 2 dud, 5 GC'd, "
           "6 fizzled)");
    tlog_free(&c);
    PAYLOAD(none);
    expect(EV_SPARK_CREATE, 0, &none, "spark created");
    expect(EV_SPARK_DUD, 0, &none, "dud spark discarded");
    expect(EV_SPARK_OVERFLOW, 0, &none, "overflowed spark discarded");
    expect(EV_SPARK_RUN, 0, &none, "running a local spark");
    expect(EV_SPARK_FIZZLE, 0, &none, "spark fizzled");
    expect(EV_SPARK_GC, 0, &none, "spark GCed");
    PAYLOAD(steal);
    tlog_u16(&steal, 2);
    expect(EV_SPARK_STEAL, 2, &steal, "stealing a spark from cap 2");
    tlog_free(&steal);
}
END_TEST

START_TEST(test_decode_caps_tasks_program)
{
    PAYLOAD(cs);
    tlog_u32(&cs, 0);
    tlog_u16(&cs, 2);
    expect(EV_CAPSET_CREATE, 6, &cs, "created capset 0 of type CapsetOsProcess");
    expect(EV_CAPSET_ASSIGN_CAP, 6, &cs, "assigned cap 2 to capset 0");
    expect(EV_CAPSET_REMOVE_CAP, 6, &cs, "removed cap 2 from capset 0");
    tlog_free(&cs);
    PAYLOAD(cap);
    tlog_u16(&cap, 3);
    expect(EV_CAP_CREATE, 2, &cap, "created cap 3");
    expect(EV_CAP_DISABLE, 2, &cap, "disabled cap 3");
    tlog_free(&cap);
    PAYLOAD(task);
    tlog_u64(&task, 0x7f00deadbeefull);
    tlog_u16(&task, 1);
    tlog_u64(&task, 12345);
    expect(EV_TASK_CREATE, 18, &task,
           "task 0x7f00deadbeef created on cap 1 with OS kernel thread 12345");
    tlog_free(&task);
    PAYLOAD(args);
    tlog_u32(&args, 0);
    tlog_bytes(&args, "./prog\0+RTS\0-l\0", 15);
    expect(EV_PROGRAM_ARGS, VAR, &args, "capset 0: args: [\"./prog\",\"+RTS\",\"-l\"]");
    tlog_free(&args);
    PAYLOAD(rts);
    tlog_u32(&rts, 0);
    tlog_bytes(&rts, "GHC-9.0.2 rts_thr_l", 19);
    expect(EV_RTS_IDENTIFIER, VAR, &rts, "capset 0: RTS version \"GHC-9.0.2 rts_thr_l\"");
    tlog_free(&rts);
    PAYLOAD(wall);
    tlog_u32(&wall, 0);
    tlog_u64(&wall, 1700000000);
    tlog_u32(&wall, 5);
    expect(EV_WALL_CLOCK_TIME, 16, &wall, "capset 0: wall clock time 1700000000s 5ns (unix epoch)");
    tlog_free(&wall);
}
END_TEST

START_TEST(test_decode_messages)
{
    PAYLOAD(m);
    tlog_bytes(&m, "phase \xce\xbb", 8);
    expect(EV_USER_MARKER, VAR, &m, "marker: phase \xce\xbb");
    expect(EV_USER_MSG, VAR, &m, "phase \xce\xbb");
    expect(EV_LOG_MSG, VAR, &m, "phase \xce\xbb");
    tlog_free(&m);
    PAYLOAD(bad);                       /* non-UTF-8 text: replaced, never dropped */
    tlog_bytes(&bad, "x\xff", 2);
    expect(EV_USER_MSG, VAR, &bad, "x\xef\xbf\xbd");
    tlog_free(&bad);
    PAYLOAD(bin);
    tlog_bytes(&bin, "ok\x00\xff", 4);
    expect(EV_USER_BINARY_MSG, VAR, &bin, "binary message ok..");
    tlog_free(&bin);
    PAYLOAD(label);
    tlog_u32(&label, 5);
    tlog_bytes(&label, "worker-1", 8);
    expect(EV_THREAD_LABEL, VAR, &label, "thread 5 has label \"worker-1\"");
    tlog_free(&label);
    PAYLOAD(empty);
    expect(EV_USER_MARKER, VAR, &empty, "marker: ");
}
END_TEST

START_TEST(test_decode_heap_profiling)
{
    PAYLOAD(begin);
    tlog_u8(&begin, 0);
    tlog_u64(&begin, 100000000);
    tlog_u32(&begin, 7);
    tlog_bytes(&begin, "Main\0\0\0\0\0\0\0", 11);
    expect(EV_HEAP_PROF_BEGIN, VAR, &begin,
           "start heap profiling 0 at sampling period 100000000 broken down by closure type "
           "filtered by Main, ");
    tlog_free(&begin);
    PAYLOAD(cc);
    tlog_u32(&cc, 12);
    tlog_bytes(&cc, "main\0Main\0Main.hs:3:1-20\0", 25);
    tlog_u8(&cc, 1);
    expect(EV_HEAP_PROF_COST_CENTRE, VAR, &cc, "cost centre 12 main in Main at Main.hs:3:1-20 CAF");
    tlog_free(&cc);
    PAYLOAD(ccs);
    tlog_u8(&ccs, 0);
    tlog_u64(&ccs, 4096);
    tlog_u8(&ccs, 3);
    tlog_u32(&ccs, 3);
    tlog_u32(&ccs, 2);
    tlog_u32(&ccs, 1);
    expect(EV_HEAP_PROF_SAMPLE_COST_CENTRE, VAR, &ccs,
           "heap prof sample 0, residency 4096, cost centre stack 3, 2, 1");
    tlog_free(&ccs);
    PAYLOAD(str);
    tlog_u8(&str, 0);
    tlog_u64(&str, 96);
    tlog_bytes(&str, "ghc-prim:GHC.Types.:\0", 21);
    expect(EV_HEAP_PROF_SAMPLE_STRING, VAR, &str,
           "heap prof sample 0, residency 96, label ghc-prim:GHC.Types.:");
    tlog_free(&str);
    PAYLOAD(sb);
    tlog_u64(&sb, 4);
    expect(EV_HEAP_PROF_SAMPLE_BEGIN, 8, &sb, "start heap prof sample 4");
    expect(EV_HEAP_PROF_SAMPLE_END, 8, &sb, "end prof sample 4");
    tlog_u64(&sb, 777);
    expect(EV_HEAP_BIO_PROF_SAMPLE_BEGIN, 16, &sb, "start heap prof sample 4 at time 777");
    tlog_free(&sb);
}
END_TEST

START_TEST(test_decode_ipe_and_time_profile)
{
    PAYLOAD(ipe);
    tlog_u64(&ipe, 0x4a2b10);
    tlog_bytes(&ipe, "Main.foo_info\0" "21\0" "Int\0" "foo\0" "Main\0" "Main.hs:4:1\0", 42);
    expect(EV_IPE, VAR, &ipe, "Info Table: 4a2b10:21:Main.foo_info - Main.hs:4:1");
    tlog_free(&ipe);
    PAYLOAD(ps);
    tlog_u32(&ps, 0x10001);           /* ghc-events keeps the low 16 bits */
    tlog_u64(&ps, 99);
    tlog_u8(&ps, 2);
    tlog_u32(&ps, 8);
    tlog_u32(&ps, 9);
    expect(EV_PROF_SAMPLE_COST_CENTRE, VAR, &ps,
           "cap no 1, prof sample 99, cost centre stack 8, 9");
    tlog_free(&ps);
    PAYLOAD(pb);
    tlog_u64(&pb, 20000000);
    expect(EV_PROF_BEGIN, 8, &pb, "start time profiling, tick interval 20000000 (ns)");
    tlog_free(&pb);
}
END_TEST

START_TEST(test_decode_ticky_old_and_new)
{
    PAYLOAD(oldd);                    /* GHC 9.1: no info table, no JSON */
    tlog_u64(&oldd, 3);
    tlog_u16(&oldd, 2);
    tlog_bytes(&oldd, "pp\0f\0", 5);
    expect(EV_TICKY_COUNTER_DEF, VAR, &oldd,
           "ticky counter definition 3, arity: 2, def kinds: pp, name: f, itbl: 0");
    tlog_free(&oldd);
    PAYLOAD(newd);                    /* GHC 9.4+: info table pointer and JSON */
    tlog_u64(&newd, 3);
    tlog_u16(&newd, 2);
    tlog_bytes(&newd, "pp\0f\0", 5);
    tlog_u64(&newd, 0xabc);
    tlog_bytes(&newd, "{\"type\":\"fun\"}\0", 15);
    expect(EV_TICKY_COUNTER_DEF, VAR, &newd,
           "ticky counter definition 3, arity: 2, def kinds: pp, name: f, itbl: abc");
    tlog_free(&newd);
    PAYLOAD(s);
    for (uint64_t v = 1; v <= 4; v++)
        tlog_u64(&s, v);
    expect(EV_TICKY_COUNTER_SAMPLE, 32, &s,
           "ticky counter sample 1: entry count: 2, 3 allocs, 4 allocd");
    tlog_free(&s);
}
END_TEST

START_TEST(test_decode_nonmoving)
{
    PAYLOAD(none);
    expect(EV_CONC_MARK_BEGIN, 0, &none, "concurrent mark began");
    expect(EV_CONC_SYNC_BEGIN, 0, &none, "post-mark synchronization began");
    expect(EV_CONC_SWEEP_END, 0, &none, "concurrent sweep ended");
    PAYLOAD(me);
    tlog_u32(&me, 1234);
    expect(EV_CONC_MARK_END, 4, &me, "concurrent mark ended: marked 1234 objects");
    tlog_free(&me);
    PAYLOAD(c13);                     /* before GHC #23340: log2 of the block size */
    tlog_u8(&c13, 3);
    tlog_u32(&c13, 1);
    tlog_u32(&c13, 2);
    tlog_u32(&c13, 3);
    expect(EV_NONMOVING_HEAP_CENSUS, 13, &c13,
           "nonmoving heap census 8: 1 active segments, 2 filled segments, 3 live blocks");
    tlog_free(&c13);
    PAYLOAD(c14);
    tlog_u16(&c14, 24);
    tlog_u32(&c14, 1);
    tlog_u32(&c14, 2);
    tlog_u32(&c14, 3);
    expect(EV_NONMOVING_HEAP_CENSUS, 14, &c14,
           "nonmoving heap census 24: 1 active segments, 2 filled segments, 3 live blocks");
    tlog_free(&c14);
    PAYLOAD(pr);
    tlog_u32(&pr, 0);
    tlog_u32(&pr, 8);
    expect(EV_NONMOVING_PRUNED_SEGMENTS, 8, &pr,
           "nonmoving segments pruned: 0 pruned segments, 8 free segments retained");
    tlog_free(&pr);
}
END_TEST

START_TEST(test_decode_size_rules)
{
    /* A type we do not know prints the header's description. */
    PAYLOAD(u);
    tlog_u32(&u, 1);
    char *got = render_with(250, 4, "Future event", u.b.data, u.b.len);
    ck_assert_str_eq(got, "Future event");
    x_free(got);
    /* Oversized known type: trailing bytes are ignored. */
    tlog_u32(&u, 0xdeadbeef);
    got = render_with(EV_CREATE_THREAD, 8, "Create thread", u.b.data, u.b.len);
    ck_assert_str_eq(got, "creating thread 1");
    x_free(got);
    tlog_free(&u);
    /* Undersized (old 6-byte STOP_THREAD): ghc-events prints the description, but the
     * fields that fit are still decoded for the index. */
    PAYLOAD(s);
    tlog_u32(&s, 9);
    tlog_u16(&s, 5);
    got = render_with(EV_STOP_THREAD, 6, "Stop thread", s.b.data, s.b.len);
    ck_assert_str_eq(got, "Stop thread");
    x_free(got);
    tlog_free(&s);
    /* A fixed type declared variable in the header: description, no misparse. */
    PAYLOAD(v);
    tlog_u32(&v, 3);
    got = render_with(EV_RUN_THREAD, VAR, "Run thread", v.b.data, v.b.len);
    ck_assert_str_eq(got, "Run thread");
    x_free(got);
    tlog_free(&v);
}
END_TEST

START_TEST(test_decode_partial_fields)
{
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_type(&t, EV_STOP_THREAD, 6, "Stop thread");
    tlog_header_end(&t);
    tlog_event(&t, EV_STOP_THREAD, 5);
    tlog_u32(&t, 9);
    tlog_u16(&t, 5);
    tlog_end(&t);
    diag d;
    evlog *log = evlog_open_bytes((const uint8_t *)t.b.data, t.b.len, &d);
    ck_assert_ptr_nonnull(log);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    ck_assert(evlog_iter_next(&it, &ev));
    evdecoded dec;
    decode_event(&ev, &dec);
    ck_assert_uint_eq(dec.n_present, 2);
    ck_assert(!dec.printable);
    ck_assert_uint_eq(dec.f[0].u, 9);
    ck_assert_uint_eq(dec.f[1].u, 5);
    evlog_close(log);
    tlog_free(&t);
}
END_TEST

Suite *
test_decode_suite(void)
{
    Suite *s = suite_create("decode");
    TCase *tc = tcase_create("families");
    tcase_add_test(tc, test_decode_scheduler);
    tcase_add_test(tc, test_decode_gc);
    tcase_add_test(tc, test_decode_heap);
    tcase_add_test(tc, test_decode_sparks);
    tcase_add_test(tc, test_decode_caps_tasks_program);
    tcase_add_test(tc, test_decode_messages);
    tcase_add_test(tc, test_decode_heap_profiling);
    tcase_add_test(tc, test_decode_ipe_and_time_profile);
    tcase_add_test(tc, test_decode_ticky_old_and_new);
    tcase_add_test(tc, test_decode_nonmoving);
    tcase_add_test(tc, test_decode_size_rules);
    tcase_add_test(tc, test_decode_partial_fields);
    suite_add_tcase(s, tc);
    return s;
}
