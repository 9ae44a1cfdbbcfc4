/* tests/test_threadtab: the thread table — stop-status classes, per-thread counters,
 * extreme and colliding ids, and 100k random operations against a brute-force model
 * (sorted operation list aggregated by tid). */
#include <stdlib.h>
#include <string.h>

#include "tests.h"
#include "threadtab.h"
#include "xalloc.h"

static uint64_t
tt_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void
tt_assert_ok(const threadtab *tt)
{
    char why[200];
    ck_assert_msg(threadtab_check(tt, why, sizeof why), "threadtab_check: %s", why);
}

START_TEST(test_threadtab_stop_classes)
{
    static const struct { uint16_t status; enum threadtab_stop_class c; } want[] = {
        { 0, THREADTAB_STOP_OTHER },     { 1, THREADTAB_STOP_HEAP_OVERFLOW },
        { 2, THREADTAB_STOP_STACK_OVERFLOW }, { 3, THREADTAB_STOP_YIELD },
        { 4, THREADTAB_STOP_BLOCKED },   { 5, THREADTAB_STOP_FINISHED },
        { 6, THREADTAB_STOP_FOREIGN },   { 7, THREADTAB_STOP_MVAR },
        { 8, THREADTAB_STOP_BLACKHOLE }, { 9, THREADTAB_STOP_IO },
        { 10, THREADTAB_STOP_IO },       { 11, THREADTAB_STOP_IO },
        { 12, THREADTAB_STOP_STM },      { 13, THREADTAB_STOP_IO },
        { 14, THREADTAB_STOP_OTHER },    { 15, THREADTAB_STOP_OTHER },
        { 16, THREADTAB_STOP_FOREIGN },  { 17, THREADTAB_STOP_FOREIGN },
        { 18, THREADTAB_STOP_THROWTO },  { 19, THREADTAB_STOP_OTHER },
        { 20, THREADTAB_STOP_MVAR },     { 21, THREADTAB_STOP_OTHER },
        { 0xffff, THREADTAB_STOP_OTHER },
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(threadtab_stop_class(want[i].status) == want[i].c,
                      "status %u: class %d, want %d", want[i].status,
                      (int)threadtab_stop_class(want[i].status), (int)want[i].c);
    static const char *const names[THREADTAB_N_STOP_CLASSES] = {
        "heap", "stack", "yield", "blackhole", "mvar", "stm",
        "io", "foreign", "throwto", "blocked", "finished", "other",
    };
    for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++)
        ck_assert_str_eq(threadtab_stop_class_name((enum threadtab_stop_class)c), names[c]);
    ck_assert_ptr_nonnull(threadtab_stop_class_name(THREADTAB_N_STOP_CLASSES));
}
END_TEST

START_TEST(test_threadtab_counters)
{
    threadtab *tt = threadtab_new();
    ck_assert_uint_eq(threadtab_count(tt), 0);
    ck_assert_ptr_null(threadtab_find(tt, 1));
    ck_assert_uint_eq(threadtab_index_of(tt, 1), SIZE_MAX);

    threadtab_thread *fresh = threadtab_get_or_add(tt, 42);
    ck_assert_uint_eq(fresh->tid, 42);
    ck_assert_uint_eq(fresh->create_cap, 0xffff);
    ck_assert_uint_eq(fresh->last_cap, 0xffff);
    ck_assert_uint_eq(fresh->create_ns, THREADTAB_NO_TIME);
    ck_assert_uint_eq(fresh->first_run_ns, THREADTAB_NO_TIME);
    ck_assert_uint_eq(fresh->n_runs, 0);

    threadtab_created(tt, 7, 500, 2);
    threadtab_created(tt, 7, 300, 1);           /* earlier report from another cap wins */
    threadtab_created(tt, 7, 900, 3);
    threadtab_run(tt, 7, 1000, 1400, 1, 3);     /* 400 ns, yield */
    threadtab_run(tt, 7, 2000, 2100, 0, 8);     /* 100 ns, black hole */
    threadtab_run(tt, 7, 600, 700, 3, 7);       /* earlier start, ends before 2100 */
    threadtab_run(tt, 7, 3000, 2500, 2, 5);     /* end < start: no time, still a run */
    threadtab_migrated(tt, 7);
    threadtab_migrated(tt, 7);
    threadtab_woken(tt, 7);
    threadtab_labelled(tt, 7, 1234);
    threadtab_labelled(tt, 7, 5678);
    threadtab_seal(tt);
    tt_assert_ok(tt);

    ck_assert_uint_eq(threadtab_count(tt), 2);
    const threadtab_thread *t = threadtab_find(tt, 7);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(t->create_ns, 300);
    ck_assert_uint_eq(t->create_cap, 1);
    ck_assert_uint_eq(t->run_ns, 600);
    ck_assert_uint_eq(t->n_runs, 4);
    ck_assert_uint_eq(t->first_run_ns, 600);
    ck_assert_uint_eq(t->last_end_ns, 2500);
    ck_assert_uint_eq(t->last_cap, 2);
    ck_assert_uint_eq(t->stops[THREADTAB_STOP_YIELD], 1);
    ck_assert_uint_eq(t->stops[THREADTAB_STOP_BLACKHOLE], 1);
    ck_assert_uint_eq(t->stops[THREADTAB_STOP_MVAR], 1);
    ck_assert_uint_eq(t->stops[THREADTAB_STOP_FINISHED], 1);
    ck_assert_uint_eq(t->stops[THREADTAB_STOP_OTHER], 0);
    ck_assert_uint_eq(t->n_migrations, 2);
    ck_assert_uint_eq(t->n_wakeups, 1);
    ck_assert_uint_eq(t->label_offset, 5678);

    /* Ascending order after seal, whatever the insertion order. */
    ck_assert_uint_eq(threadtab_at(tt, 0)->tid, 7);
    ck_assert_uint_eq(threadtab_at(tt, 1)->tid, 42);
    ck_assert_uint_eq(threadtab_index_of(tt, 7), 0);
    ck_assert_uint_eq(threadtab_index_of(tt, 42), 1);
    ck_assert_ptr_eq(threadtab_find(tt, 42), threadtab_at(tt, 1));
    ck_assert_ptr_null(threadtab_find(tt, 8));
    threadtab_free(tt);

    /* Two runs ending at the same time: the one reported last is the latest. */
    tt = threadtab_new();
    threadtab_run(tt, 9, 10, 50, 4, 1);
    threadtab_run(tt, 9, 20, 50, 5, 1);
    ck_assert_uint_eq(threadtab_find(tt, 9)->last_cap, 5);
    ck_assert_uint_eq(threadtab_find(tt, 9)->stops[THREADTAB_STOP_HEAP_OVERFLOW], 2);
    threadtab_free(tt);
}
END_TEST

START_TEST(test_threadtab_extreme_ids)
{
    threadtab *tt = threadtab_new();
    static const uint32_t ids[] = { 0xffffffffu, 0, 0x80000000u, 1, 0xfffffffeu };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        threadtab_run(tt, ids[i], 10 * i, 10 * i + 5, (uint16_t)i, 1);
    /* A run at the end of time: no overflow, no sentinel confusion in the checker. */
    threadtab_run(tt, 0xffffffffu, UINT64_MAX - 1, UINT64_MAX, 9, 2);
    threadtab_seal(tt);
    tt_assert_ok(tt);
    ck_assert_uint_eq(threadtab_count(tt), 5);
    static const uint32_t sorted[] = { 0, 1, 0x80000000u, 0xfffffffeu, 0xffffffffu };
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(threadtab_at(tt, i)->tid, sorted[i]);
        ck_assert_uint_eq(threadtab_index_of(tt, sorted[i]), i);
    }
    ck_assert_ptr_null(threadtab_at(tt, 5));
    const threadtab_thread *top = threadtab_find(tt, 0xffffffffu);
    ck_assert_uint_eq(top->n_runs, 2);
    ck_assert_uint_eq(top->run_ns, 6);
    ck_assert_uint_eq(top->last_end_ns, UINT64_MAX);
    ck_assert_uint_eq(top->last_cap, 9);
    ck_assert_uint_eq(top->stops[THREADTAB_STOP_STACK_OVERFLOW], 1);
    /* Memory follows the number of threads, not the id values. */
    ck_assert_uint_lt(threadtab_bytes(tt), 4096);
    threadtab_free(tt);
}
END_TEST

START_TEST(test_threadtab_colliding_ids)
{
    /* Ids that share their low bits (a weak hash would put them in one chain). */
    threadtab *tt = threadtab_new();
    for (uint32_t i = 0; i < 4096; i++)
        threadtab_woken(tt, i << 20 | 0x5);
    for (uint32_t i = 0; i < 4096; i++)
        threadtab_woken(tt, i << 20 | 0x5);
    tt_assert_ok(tt);
    threadtab_seal(tt);
    tt_assert_ok(tt);
    ck_assert_uint_eq(threadtab_count(tt), 4096);
    for (uint32_t i = 0; i < 4096; i++) {
        const threadtab_thread *t = threadtab_at(tt, i);
        if (t->tid != (i << 20 | 0x5) || t->n_wakeups != 2)
            ck_abort_msg("thread #%u: tid %u, %u wakeups", i, t->tid, t->n_wakeups);
    }
    ck_assert_ptr_null(threadtab_find(tt, 0x6));
    ck_assert_uint_lt(threadtab_bytes(tt), 4096 * 160);
    threadtab_free(tt);
}
END_TEST

START_TEST(test_threadtab_add_after_seal)
{
    threadtab *tt = threadtab_new();
    threadtab_woken(tt, 30);
    threadtab_woken(tt, 10);
    threadtab_seal(tt);
    threadtab_woken(tt, 40);                    /* still ascending */
    tt_assert_ok(tt);
    threadtab_woken(tt, 20);                    /* unseals */
    tt_assert_ok(tt);
    threadtab_seal(tt);
    tt_assert_ok(tt);
    static const uint32_t sorted[] = { 10, 20, 30, 40 };
    ck_assert_uint_eq(threadtab_count(tt), 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(threadtab_at(tt, i)->tid, sorted[i]);
        ck_assert_uint_eq(threadtab_index_of(tt, sorted[i]), i);
    }
    threadtab_free(tt);
}
END_TEST

/* One operation of the random test, replayed into the model after sorting by tid. */
typedef struct tt_op {
    uint32_t tid;
    uint32_t seq;               /* keeps per-tid order for "latest" fields */
    uint8_t kind;               /* 0 create, 1 run, 2 migrate, 3 wake, 4 label */
    uint16_t cap, status;
    uint64_t a, b;
} tt_op;

static int
tt_op_cmp(const void *x, const void *y)
{
    const tt_op *p = x, *q = y;
    if (p->tid != q->tid)
        return p->tid < q->tid ? -1 : 1;
    return p->seq < q->seq ? -1 : p->seq > q->seq;
}

/* Field by field: struct padding is not part of the contract. */
static bool
tt_same(const threadtab_thread *x, const threadtab_thread *y)
{
    if (x->tid != y->tid || x->create_cap != y->create_cap || x->last_cap != y->last_cap ||
        x->create_ns != y->create_ns || x->first_run_ns != y->first_run_ns ||
        x->last_end_ns != y->last_end_ns || x->run_ns != y->run_ns ||
        x->label_offset != y->label_offset || x->n_runs != y->n_runs ||
        x->n_migrations != y->n_migrations || x->n_wakeups != y->n_wakeups)
        return false;
    for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++)
        if (x->stops[c] != y->stops[c])
            return false;
    return true;
}

START_TEST(test_threadtab_random_vs_model)
{
    enum { N_OPS = 100000 };
    uint64_t s = 0x9e3779b97f4a7c15u;
    tt_op *ops = xcalloc(N_OPS, sizeof *ops);   /* freed below */
    threadtab *tt = threadtab_new();
    for (uint32_t i = 0; i < N_OPS; i++) {
        tt_op *o = &ops[i];
        uint64_t r = tt_rng(&s);
        /* Half the ids from a small pool (repeats), half anywhere in 32 bits. */
        o->tid = (r & 1) ? (uint32_t)(r >> 8) % 5000 : (uint32_t)(r >> 20);
        o->seq = i;
        o->kind = (uint8_t)(tt_rng(&s) % 5);
        o->cap = (uint16_t)(tt_rng(&s) % 8);
        o->status = (uint16_t)(tt_rng(&s) % 24);
        o->a = tt_rng(&s) % 1000000;
        o->b = tt_rng(&s) % 1000000;
        switch (o->kind) {
        case 0: threadtab_created(tt, o->tid, o->a, o->cap); break;
        case 1: threadtab_run(tt, o->tid, o->a, o->b, o->cap, o->status); break;
        case 2: threadtab_migrated(tt, o->tid); break;
        case 3: threadtab_woken(tt, o->tid); break;
        default: threadtab_labelled(tt, o->tid, o->a + 1); break;
        }
        if (i % 25000 == 0)
            tt_assert_ok(tt);
    }
    threadtab_seal(tt);
    tt_assert_ok(tt);

    qsort(ops, N_OPS, sizeof *ops, tt_op_cmp);
    size_t n_threads = 0;
    for (size_t i = 0; i < N_OPS;) {
        threadtab_thread m;
        memset(&m, 0, sizeof m);
        m.tid = ops[i].tid;
        m.create_cap = m.last_cap = 0xffff;
        m.create_ns = m.first_run_ns = m.last_end_ns = THREADTAB_NO_TIME;
        for (; i < N_OPS && ops[i].tid == m.tid; i++) {
            const tt_op *o = &ops[i];
            switch (o->kind) {
            case 0:
                if (m.create_ns == THREADTAB_NO_TIME || o->a < m.create_ns) {
                    m.create_ns = o->a;
                    m.create_cap = o->cap;
                }
                break;
            case 1:
                m.run_ns += o->b > o->a ? o->b - o->a : 0;
                m.n_runs++;
                m.stops[threadtab_stop_class(o->status)]++;
                if (m.first_run_ns == THREADTAB_NO_TIME || o->a < m.first_run_ns)
                    m.first_run_ns = o->a;
                if (m.last_end_ns == THREADTAB_NO_TIME || o->b >= m.last_end_ns) {
                    m.last_end_ns = o->b;
                    m.last_cap = o->cap;
                }
                break;
            case 2: m.n_migrations++; break;
            case 3: m.n_wakeups++; break;
            default: m.label_offset = o->a + 1; break;
            }
        }
        /* Plain checks in hot loops: every ck_assert call costs Check a write(2). */
        const threadtab_thread *t = threadtab_at(tt, n_threads);
        if (!t || threadtab_find(tt, m.tid) != t ||
            threadtab_index_of(tt, m.tid) != n_threads || !tt_same(t, &m))
            ck_abort_msg("thread %u (#%zu) differs from the model", m.tid, n_threads);
        n_threads++;
    }
    ck_assert_uint_eq(threadtab_count(tt), n_threads);
    ck_assert_uint_gt(n_threads, 40000);
    /* Ids never mentioned are absent. */
    for (int k = 0; k < 1000; k++) {
        uint32_t tid = (uint32_t)tt_rng(&s);
        tt_op key = { .tid = tid };
        bool present = false;
        size_t lo = 0, hi = N_OPS;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (tt_op_cmp(&ops[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        present = lo < N_OPS && ops[lo].tid == tid;
        if ((threadtab_find(tt, tid) != NULL) != present)
            ck_abort_msg("tid %u: found %d, want %d", tid, !present, present);
    }
    /* Compact: at most ~300 bytes per thread (record 112 + hash slots). */
    ck_assert_uint_lt(threadtab_bytes(tt), 300 * n_threads);
    threadtab_free(tt);
    x_free(ops);
}
END_TEST

Suite *
test_threadtab_suite(void)
{
    Suite *s = suite_create("threadtab");
    TCase *tc = tcase_create("threadtab");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_threadtab_stop_classes);
    tcase_add_test(tc, test_threadtab_counters);
    tcase_add_test(tc, test_threadtab_extreme_ids);
    tcase_add_test(tc, test_threadtab_colliding_ids);
    tcase_add_test(tc, test_threadtab_add_after_seal);
    tcase_add_test(tc, test_threadtab_random_vs_model);
    suite_add_tcase(s, tc);
    return s;
}
