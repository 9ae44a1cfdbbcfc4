/* tests/test_threadtab: the thread table — stop-status classes, per-thread counters,
 * extreme, colliding and strided ids, memory per thread, and 100k random operations
 * against a brute-force model (sorted operation list aggregated by tid). */
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

/* The i-th thread / the thread `tid`, which must exist. */
static threadtab_thread
tt_at(const threadtab *tt, size_t i)
{
    threadtab_thread t;
    memset(&t, 0, sizeof t);
    ck_assert_msg(threadtab_at(tt, i, &t), "no thread #%zu", i);
    return t;
}

static threadtab_thread
tt_find(const threadtab *tt, uint32_t tid)
{
    threadtab_thread t;
    memset(&t, 0, sizeof t);
    ck_assert_msg(threadtab_find(tt, tid, &t), "no thread %u", tid);
    return t;
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
    ck_assert(!threadtab_find(tt, 1, NULL));
    ck_assert_uint_eq(threadtab_index_of(tt, 1), SIZE_MAX);

    threadtab_add(tt, 42);
    threadtab_thread fresh;
    ck_assert(threadtab_find(tt, 42, &fresh));
    ck_assert_uint_eq(fresh.tid, 42);
    ck_assert_uint_eq(fresh.create_cap, 0xffff);
    ck_assert_uint_eq(fresh.create_ns, THREADTAB_NO_TIME);
    ck_assert_uint_eq(fresh.n_wakeups, 0);
    ck_assert_uint_eq(fresh.label_offset, 0);

    threadtab_created(tt, 7, 500, 2);
    threadtab_created(tt, 7, 300, 1);           /* earlier report from another cap wins */
    threadtab_created(tt, 7, 900, 3);
    threadtab_migrated(tt, 7);
    threadtab_migrated(tt, 7);
    threadtab_woken(tt, 7);
    threadtab_labelled(tt, 7, 1234);
    threadtab_labelled(tt, 7, 5678);
    threadtab_seal(tt);
    tt_assert_ok(tt);

    ck_assert_uint_eq(threadtab_count(tt), 2);
    threadtab_thread t7 = tt_find(tt, 7);
    const threadtab_thread *t = &t7;
    ck_assert_uint_eq(t->create_ns, 300);
    ck_assert_uint_eq(t->create_cap, 1);
    ck_assert_uint_eq(t->n_migrations, 2);
    ck_assert_uint_eq(t->n_wakeups, 1);
    ck_assert_uint_eq(t->label_offset, 5678);

    /* Ascending order after seal, whatever the insertion order. */
    ck_assert_uint_eq(tt_at(tt, 0).tid, 7);
    ck_assert_uint_eq(tt_at(tt, 1).tid, 42);
    ck_assert_uint_eq(threadtab_index_of(tt, 7), 0);
    ck_assert_uint_eq(threadtab_index_of(tt, 42), 1);
    ck_assert_uint_eq(tt_find(tt, 42).tid, tt_at(tt, 1).tid);
    ck_assert(!threadtab_find(tt, 8, NULL));
    threadtab_free(tt);
}
END_TEST

START_TEST(test_threadtab_extreme_ids)
{
    threadtab *tt = threadtab_new();
    static const uint32_t ids[] = { 0xffffffffu, 0, 0x80000000u, 1, 0xfffffffeu };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        threadtab_created(tt, ids[i], 10 * i, (uint16_t)i);
    /* A creation at the end of time: no sentinel confusion. */
    threadtab_created(tt, 0xffffffffu, UINT64_MAX - 1, 9);
    threadtab_seal(tt);
    tt_assert_ok(tt);
    ck_assert_uint_eq(threadtab_count(tt), 5);
    static const uint32_t sorted[] = { 0, 1, 0x80000000u, 0xfffffffeu, 0xffffffffu };
    for (size_t i = 0; i < 5; i++) {
        ck_assert_uint_eq(tt_at(tt, i).tid, sorted[i]);
        ck_assert_uint_eq(threadtab_index_of(tt, sorted[i]), i);
    }
    threadtab_thread none;
    ck_assert(!threadtab_at(tt, 5, &none));
    ck_assert_uint_eq(tt_find(tt, 0xffffffffu).create_ns, 0);
    /* Memory follows the number of threads, not the id values. */
    ck_assert_uint_lt(threadtab_bytes(tt), 4096);
    threadtab_free(tt);
}
END_TEST

/* GHC numbers threads 1, 2, 3, ...: a million churned threads (created microseconds
 * apart on two caps, woken once or twice, some migrated, every 10th labelled) cost at
 * most 10 bytes each, and read back exactly. Ids in strides, sparse or descending
 * (one id per 64: a page each) stay correct and bounded too. */
START_TEST(test_threadtab_memory_per_thread)
{
    enum { N = 1000000 };
    threadtab *tt = threadtab_new();
    for (uint32_t tid = 1; tid <= N; tid++) {
        threadtab_created(tt, tid, 5000000000ull + 1500ull * tid, (uint16_t)(tid % 2));
        threadtab_woken(tt, tid);
        if (tid % 3 == 0)
            threadtab_woken(tt, tid);
        if (tid % 7 == 0)
            threadtab_migrated(tt, tid);
        if (tid % 10 == 0)
            threadtab_labelled(tt, tid, 100ull * tid);
    }
    threadtab_seal(tt);
    tt_assert_ok(tt);
    ck_assert_uint_eq(threadtab_count(tt), N);
    ck_assert_uint_le(threadtab_bytes(tt), (size_t)10 * N);
    for (uint32_t tid = 1; tid <= N; tid += 9973) {
        threadtab_thread t = tt_find(tt, tid);
        if (t.create_ns != 5000000000ull + 1500ull * tid || t.create_cap != tid % 2 ||
            t.n_wakeups != 1u + (tid % 3 == 0) || t.n_migrations != (tid % 7 == 0) ||
            t.label_offset != (tid % 10 == 0 ? 100ull * tid : 0) ||
            threadtab_index_of(tt, tid) != tid - 1)
            ck_abort_msg("thread %u read back wrong", tid);
    }
    threadtab_free(tt);

    /* Stride 2 from the end of the dense array: each id lands just past it. */
    static const uint32_t strides[] = { 2, 3, 1000 };
    for (size_t k = 0; k < sizeof strides / sizeof strides[0]; k++) {
        tt = threadtab_new();
        for (uint32_t i = 0; i < 200000; i++)
            threadtab_woken(tt, 256 + strides[k] * i);
        threadtab_seal(tt);
        tt_assert_ok(tt);
        ck_assert_uint_eq(threadtab_count(tt), 200000);
        for (uint32_t i = 0; i < 200000; i += 997)
            ck_assert_uint_eq(threadtab_index_of(tt, 256 + strides[k] * i), i);
        ck_assert_uint_le(threadtab_bytes(tt), (size_t)112 * 200000);
        threadtab_free(tt);
    }
    tt = threadtab_new();
    for (uint32_t i = 300000; i > 0; i--)
        threadtab_woken(tt, i);
    threadtab_seal(tt);
    tt_assert_ok(tt);
    ck_assert_uint_eq(tt_at(tt, 0).tid, 1);
    ck_assert_uint_le(threadtab_bytes(tt), (size_t)80 * 300000);
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
        threadtab_thread t = tt_at(tt, i);
        if (t.tid != (i << 20 | 0x5) || t.n_wakeups != 2)
            ck_abort_msg("thread #%u: tid %u, %u wakeups", i, t.tid, t.n_wakeups);
    }
    ck_assert(!threadtab_find(tt, 0x6, NULL));
    ck_assert_uint_lt(threadtab_bytes(tt), 4096 * 112);
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
        ck_assert_uint_eq(tt_at(tt, i).tid, sorted[i]);
        ck_assert_uint_eq(threadtab_index_of(tt, sorted[i]), i);
    }
    threadtab_free(tt);
}
END_TEST

/* One operation of the random test, replayed into the model after sorting by tid. */
typedef struct tt_op {
    uint32_t tid;
    uint32_t seq;               /* keeps per-tid order for "latest" fields */
    uint8_t kind;               /* 0 create, 1 mention, 2 migrate, 3 wake, 4 label */
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
    return x->tid == y->tid && x->create_cap == y->create_cap &&
           x->create_ns == y->create_ns && x->label_offset == y->label_offset &&
           x->n_migrations == y->n_migrations && x->n_wakeups == y->n_wakeups;
}

/* Two tables merged by threadtab_merge_take (the parallel build's way, freeing the
 * source page by page) equal one table fed everything, and equal threadtab_merge's
 * result; the source is left an empty table that still works. */
START_TEST(test_threadtab_merge_take)
{
    enum { N_OPS = 60000 };
    uint64_t s = 0x243f6a8885a308d3u;
    threadtab *whole = threadtab_new(), *a = threadtab_new(), *b = threadtab_new();
    threadtab *a2 = threadtab_new(), *b2 = threadtab_new();
    for (uint32_t i = 0; i < N_OPS; i++) {
        uint64_t r = tt_rng(&s);
        uint32_t tid = (r & 1) ? (uint32_t)(r >> 8) % 3000 : (uint32_t)(r >> 20);
        unsigned kind = (unsigned)(tt_rng(&s) % 5);
        uint64_t t = tt_rng(&s) % 1000000;
        uint16_t cap = (uint16_t)(tt_rng(&s) % 8);
        bool first = i < N_OPS / 2;
        threadtab *tabs[3] = { whole, first ? a : b, first ? a2 : b2 };
        for (int k = 0; k < 3; k++) {
            switch (kind) {
            case 0: threadtab_created(tabs[k], tid, t, cap); break;
            case 1: threadtab_add(tabs[k], tid); break;
            case 2: threadtab_migrated(tabs[k], tid); break;
            case 3: threadtab_woken(tabs[k], tid); break;
            default: threadtab_labelled(tabs[k], tid, 16 + i); break;   /* file order */
            }
        }
    }
    threadtab_merge_take(a, b);
    threadtab_merge(a2, b2);
    threadtab_seal(whole);
    threadtab_seal(a);
    threadtab_seal(a2);
    threadtab_seal(b);
    tt_assert_ok(a);
    tt_assert_ok(b);
    ck_assert_uint_gt(threadtab_count(whole), 1000);
    ck_assert_uint_eq(threadtab_count(a), threadtab_count(whole));
    ck_assert_uint_eq(threadtab_count(a2), threadtab_count(whole));
    for (size_t i = 0; i < threadtab_count(whole); i++) {
        threadtab_thread w = tt_at(whole, i), x = tt_at(a, i), y = tt_at(a2, i);
        ck_assert_msg(tt_same(&w, &x), "thread %u differs after merge_take", w.tid);
        ck_assert_msg(tt_same(&w, &y), "thread %u differs after merge", w.tid);
    }
    ck_assert_uint_eq(threadtab_count(b), 0);
    threadtab_created(b, 42, 7, 1);
    threadtab_seal(b);
    tt_assert_ok(b);
    ck_assert_uint_eq(threadtab_count(b), 1);
    ck_assert_uint_eq(tt_find(b, 42).create_ns, 7);
    threadtab_free(whole);
    threadtab_free(a);
    threadtab_free(b);
    threadtab_free(a2);
    threadtab_free(b2);
}
END_TEST

/* The _near calls leave a table as the plain ones do, whatever the caller's slots hold:
 * one set of slots is shared by two tables fed in turn (each slot then often names the
 * other table's page, or a place past this table's pages), and one table is emptied by
 * threadtab_merge_take under its slots; every thread, the count and the bytes equal a
 * table fed by the plain calls. */
START_TEST(test_threadtab_near_same)
{
    enum { N_OPS = 8000 };
    uint64_t s = 0x13198a2e03707344u;
    threadtab *plain[2] = { threadtab_new(), threadtab_new() };
    threadtab *near[2] = { threadtab_new(), threadtab_new() };
    threadtab_near slots;
    memset(&slots, 0, sizeof slots);
    for (uint32_t i = 0; i < N_OPS; i++) {
        uint64_t r = tt_rng(&s);
        /* Ids of a few hundred pages, some sharing a slot (page numbers 64 apart). */
        uint32_t tid = (r & 1) ? (uint32_t)(r >> 8) % 20000 : (uint32_t)(r >> 40) % 6000000;
        unsigned kind = (unsigned)(tt_rng(&s) % 4);
        uint64_t t = tt_rng(&s) % 1000000;
        uint16_t cap = (uint16_t)(tt_rng(&s) % 8);
        int k = (tt_rng(&s) >> 7) % 2;
        switch (kind) {
        case 0:
            threadtab_created(plain[k], tid, t, cap);
            threadtab_created_near(near[k], tid, t, cap, &slots);
            break;
        case 1:
            threadtab_add(plain[k], tid);
            threadtab_add_near(near[k], tid, &slots);
            break;
        case 2:
            threadtab_migrated(plain[k], tid);
            threadtab_migrated_near(near[k], tid, &slots);
            break;
        default:
            threadtab_woken(plain[k], tid);
            threadtab_woken_near(near[k], tid, &slots);
            break;
        }
        if (i == N_OPS / 2) {   /* table 1 emptied into table 0, its slots left stale */
            threadtab_merge_take(plain[0], plain[1]);
            threadtab_merge_take(near[0], near[1]);
        }
    }
    for (int k = 0; k < 2; k++) {
        threadtab_seal(plain[k]);
        threadtab_seal(near[k]);
        tt_assert_ok(near[k]);
        ck_assert_uint_gt(threadtab_count(plain[k]), 1000);
        ck_assert_uint_eq(threadtab_count(near[k]), threadtab_count(plain[k]));
        ck_assert_uint_eq(threadtab_bytes(near[k]), threadtab_bytes(plain[k]));
        for (size_t i = 0; i < threadtab_count(plain[k]); i++) {
            threadtab_thread w = tt_at(plain[k], i), x = tt_at(near[k], i);
            ck_assert_msg(tt_same(&w, &x), "table %d: thread %u differs", k, w.tid);
        }
        threadtab_free(plain[k]);
        threadtab_free(near[k]);
    }
}
END_TEST

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
        case 1: threadtab_add(tt, o->tid); break;
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
        m.create_cap = 0xffff;
        m.create_ns = THREADTAB_NO_TIME;
        for (; i < N_OPS && ops[i].tid == m.tid; i++) {
            const tt_op *o = &ops[i];
            switch (o->kind) {
            case 0:
                if (m.create_ns == THREADTAB_NO_TIME || o->a < m.create_ns) {
                    m.create_ns = o->a;
                    m.create_cap = o->cap;
                }
                break;
            case 1: break;
            case 2: m.n_migrations++; break;
            case 3: m.n_wakeups++; break;
            default: m.label_offset = o->a + 1; break;
            }
        }
        /* Plain checks in hot loops: every ck_assert call costs Check a write(2). */
        threadtab_thread t, f;
        if (!threadtab_at(tt, n_threads, &t) || !threadtab_find(tt, m.tid, &f) ||
            !tt_same(&t, &f) || threadtab_index_of(tt, m.tid) != n_threads || !tt_same(&t, &m))
            ck_abort_msg("thread %u (#%zu) differs from the model", m.tid, n_threads);
        n_threads++;
    }
    ck_assert_uint_eq(threadtab_count(tt), n_threads);
    ck_assert_uint_gt(n_threads, 40000);
    /* Iteration gives every thread in order with its index; labelled_only exactly the
     * labelled ones. */
    threadtab_iter it = { 0, 0, false }, itl = { 0, 0, false };
    threadtab_thread t, tl;
    size_t idx, n_it = 0, n_lab = 0, idx_l;
    size_t *lab = xcalloc(n_threads + 1, sizeof *lab);    /* labelled indexes; freed below */
    while (threadtab_next(tt, &it, false, &t, &idx)) {
        threadtab_thread at = tt_at(tt, n_it);
        if (idx != n_it || !tt_same(&t, &at))
            ck_abort_msg("iteration #%zu differs", n_it);
        if (t.label_offset) {
            if (!threadtab_next(tt, &itl, true, &tl, &idx_l) || idx_l != idx ||
                !tt_same(&tl, &t))
                ck_abort_msg("labelled iteration differs at #%zu", n_it);
            lab[n_lab++] = idx;
        }
        n_it++;
    }
    ck_assert_uint_eq(n_it, n_threads);
    ck_assert(!threadtab_next(tt, &itl, true, &tl, &idx_l));
    ck_assert_uint_gt(n_lab, 1000);
    /* An iterator started at index i goes on from the i-th thread (labelled_only: the
     * first labelled one at or after it), across pages, to the end; past the end it
     * hands out nothing. */
    size_t first_lab = 0;
    for (size_t i = 0; i <= n_threads + 2; i += i % 61 == 0 ? 1 : 211) {
        while (first_lab < n_lab && lab[first_lab] < i)
            first_lab++;
        threadtab_iter ia, il;
        threadtab_iter_at(tt, i, false, &ia);
        threadtab_iter_at(tt, i, true, &il);
        for (size_t k = 0; k < 40; k++) {
            bool got = threadtab_next(tt, &ia, false, &t, &idx);
            if (got != (i + k < n_threads) || (got && idx != i + k))
                ck_abort_msg("iterator at %zu: step %zu differs", i, k);
            threadtab_thread at = got ? tt_at(tt, idx) : t;
            if (got && !tt_same(&t, &at))
                ck_abort_msg("iterator at %zu: thread %zu differs", i, idx);
            got = threadtab_next(tt, &il, true, &tl, &idx_l);
            if (got != (first_lab + k < n_lab) || (got && idx_l != lab[first_lab + k]))
                ck_abort_msg("labelled iterator at %zu: step %zu differs", i, k);
        }
    }
    x_free(lab);
    /* The remembered-page lookup agrees with the plain one, for ids present or not,
     * near each other or far apart. */
    threadtab_hint hint = { 0, 0, 0 };
    for (int k = 0; k < 20000; k++) {
        uint32_t tid = k % 3 ? (uint32_t)(tt_rng(&s) % 6000) : (uint32_t)tt_rng(&s);
        if (threadtab_index_of_hint(tt, tid, &hint) != threadtab_index_of(tt, tid))
            ck_abort_msg("tid %u: hinted index differs", tid);
    }
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
        if (threadtab_find(tt, tid, NULL) != present)
            ck_abort_msg("tid %u: found %d, want %d", tid, !present, present);
    }
    /* Bounded even when most ids are alone in their page of 64 (page, slot, hash). */
    ck_assert_uint_lt(threadtab_bytes(tt), 112 * n_threads);
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
    tcase_add_test(tc, test_threadtab_memory_per_thread);
    tcase_add_test(tc, test_threadtab_colliding_ids);
    tcase_add_test(tc, test_threadtab_add_after_seal);
    tcase_add_test(tc, test_threadtab_random_vs_model);
    tcase_add_test(tc, test_threadtab_merge_take);
    tcase_add_test(tc, test_threadtab_near_same);
    suite_add_tcase(s, tc);
    return s;
}
