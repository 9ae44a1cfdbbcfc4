/* test_threadlife: a thread's life (runs on every HEC, creation and its creator,
 * labels, wake-ups and their waker, migrations, stop statuses) against the ghc-events
 * dump of the same log, read line by line here and replayed per capability. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evindex.h"
#include "runlane.h"
#include "tests.h"
#include "threadlife.h"
#include "xalloc.h"

#define REF_MAX 4096

/* What the dump says about one thread. */
typedef struct ref_life {
    size_t n_runs;
    uint64_t first_run_ns, last_run_ns;
    uint16_t first_run_cap;
    uint64_t create_ns;
    uint16_t create_cap;
    uint32_t create_by;
    size_t n_labels, n_wakeups, n_migrations;
    uint64_t wake_ns[REF_MAX];
    uint32_t wake_by[REF_MAX];
    uint16_t wake_cap[REF_MAX], wake_other[REF_MAX];
    uint64_t mig_ns[REF_MAX];
    uint16_t mig_from[REF_MAX], mig_to[REF_MAX];
    size_t n_stack_overflows;   /* "stopping thread N (stack overflow" */
} ref_life;

/* Replay `rel`'s dump for thread `tid`: the thread running on each cap (0: none) is
 * tracked so that a creation or a wake-up names the thread that posted it. */
static void
ref_read(const char *rel, uint32_t tid, ref_life *r)
{
    memset(r, 0, sizeof *r);
    r->create_ns = UINT64_MAX;
    char *path = test_path(rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    uint32_t running[64] = { 0 };
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long long t;
        unsigned cap, a, b;
        int n = 0;
        if (sscanf(line, "%llu: cap %u: %n", &t, &cap, &n) != 2 || n == 0 || cap >= 64)
            continue;
        const char *e = line + n;
        if (sscanf(e, "running thread %u", &a) == 1) {
            running[cap] = a;
            if (a == tid) {
                if (!r->n_runs++) {
                    r->first_run_ns = t;
                    r->first_run_cap = (uint16_t)cap;
                }
                r->last_run_ns = t;
            }
        } else if (sscanf(e, "stopping thread %u", &a) == 1) {
            running[cap] = 0;
            if (a == tid && strstr(e, "(stack overflow"))
                r->n_stack_overflows++;
        } else if (sscanf(e, "creating thread %u", &a) == 1 && a == tid) {
            r->create_ns = t;
            r->create_cap = (uint16_t)cap;
            r->create_by = running[cap];
        } else if (sscanf(e, "thread %u has label", &a) == 1 && a == tid) {
            r->n_labels++;
        } else if (sscanf(e, "waking up thread %u on cap %u", &a, &b) == 2 && a == tid &&
                   r->n_wakeups < REF_MAX) {
            r->wake_ns[r->n_wakeups] = t;
            r->wake_by[r->n_wakeups] = running[cap];
            r->wake_cap[r->n_wakeups] = (uint16_t)cap;
            r->wake_other[r->n_wakeups++] = (uint16_t)b;
        } else if (sscanf(e, "migrating thread %u to cap %u", &a, &b) == 2 && a == tid &&
                   r->n_migrations < REF_MAX) {
            r->mig_ns[r->n_migrations] = t;
            r->mig_from[r->n_migrations] = (uint16_t)cap;
            r->mig_to[r->n_migrations++] = (uint16_t)b;
        }
    }
    fclose(f);
    x_free(path);
}

/* Check every thread `tids` of `fixture` against its dump. */
static void
check_fixture(const char *fixture, const uint32_t *tids, size_t n_tids)
{
    char ref_rel[256];
    snprintf(ref_rel, sizeof ref_rel, "%s.ref017", fixture);
    evlog *log = test_open_log(fixture);
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    ck_assert_ptr_nonnull(ix);
    for (size_t k = 0; k < n_tids; k++) {
        uint32_t tid = tids[k];
        ref_life *rp = xcalloc(1, sizeof *rp);     /* freed below */
        ref_read(ref_rel, tid, rp);
        threadlife *tl = threadlife_new(ix, tid);
        ck_assert_uint_eq(threadlife_tid(tl), tid);
        ck_assert_uint_eq(threadlife_n_runs(tl), rp->n_runs);
        if (rp->n_runs) {
            ck_assert_uint_eq(threadlife_run_at(tl, 0)->start_ns, rp->first_run_ns);
            ck_assert_uint_eq(threadlife_run_at(tl, 0)->cap, rp->first_run_cap);
            ck_assert_uint_eq(threadlife_run_at(tl, rp->n_runs - 1)->start_ns, rp->last_run_ns);
        }
        size_t so = 0, creates = 0, labels = 0, wakes = 0, migs = 0;
        for (size_t i = 0; i < threadlife_n_runs(tl); i++) {
            const threadlife_run *run = threadlife_run_at(tl, i);
            so += run->status == 2 && !(run->flags & RUNLANE_F_OPEN);
            if (i)  /* start order, never overlapping */
                ck_assert_uint_ge(run->start_ns, threadlife_run_at(tl, i - 1)->end_ns);
            ck_assert(threadlife_runs_in(tl, run->cap_lane, run->start_ns, run->start_ns + 1));
            ck_assert_uint_eq(threadlife_run_containing(tl, run->start_ns), i);
            ck_assert_uint_eq(threadlife_step(tl, run->start_ns, -1),
                              i ? i - 1 : SIZE_MAX);
            ck_assert_uint_eq(threadlife_step(tl, run->start_ns ? run->start_ns - 1 : 0, 1),
                              run->start_ns ? i : (i + 1 < rp->n_runs ? i + 1 : SIZE_MAX));
        }
        ck_assert_uint_eq(so, rp->n_stack_overflows);
        for (size_t i = 0; i < threadlife_n_events(tl); i++) {
            const threadlife_event *e = threadlife_event_at(tl, i);
            if (i)
                ck_assert_uint_ge(e->time_ns, threadlife_event_at(tl, i - 1)->time_ns);
            switch (e->kind) {
            case THREADLIFE_CREATE:
                creates++;
                ck_assert_uint_eq(e->time_ns, rp->create_ns);
                ck_assert_uint_eq(e->cap, rp->create_cap);
                ck_assert_uint_eq(e->by_tid, rp->create_by);
                break;
            case THREADLIFE_LABEL: labels++; break;
            case THREADLIFE_WAKEUP:
                ck_assert_uint_lt(wakes, rp->n_wakeups);
                ck_assert_uint_eq(e->time_ns, rp->wake_ns[wakes]);
                ck_assert_uint_eq(e->cap, rp->wake_cap[wakes]);
                ck_assert_uint_eq(e->other_cap, rp->wake_other[wakes]);
                ck_assert_uint_eq(e->by_tid, rp->wake_by[wakes] == tid ? 0 : rp->wake_by[wakes]);
                wakes++;
                break;
            default:
                ck_assert_uint_lt(migs, rp->n_migrations);
                ck_assert_uint_eq(e->time_ns, rp->mig_ns[migs]);
                ck_assert_uint_eq(e->cap, rp->mig_from[migs]);
                ck_assert_uint_eq(e->other_cap, rp->mig_to[migs]);
                migs++;
                break;
            }
        }
        ck_assert_uint_eq(creates, rp->create_ns != UINT64_MAX);
        ck_assert_uint_eq(labels, rp->n_labels);
        ck_assert_uint_eq(wakes, rp->n_wakeups);
        ck_assert_uint_eq(migs, rp->n_migrations);
        threadlife_free(tl);
        x_free(rp);
    }
    evindex_free(ix);
    evlog_close(log);
}

START_TEST(test_threadlife_n4)
{
    /* 12: worker-5, created by thread 7, five migrations and five wake-ups (two of them
     * with no thread running on the waking cap); 1: main, woken hundreds of times;
     * 999: never seen. */
    static const uint32_t tids[] = { 1, 2, 3, 7, 12, 14, 20, 999 };
    check_fixture("fixtures/threaded-n4.eventlog", tids, sizeof tids / sizeof tids[0]);
}
END_TEST

START_TEST(test_threadlife_sparks)
{
    static const uint32_t tids[] = { 1, 2, 3, 4, 5 };
    check_fixture("fixtures/sparks.eventlog", tids, sizeof tids / sizeof tids[0]);
}
END_TEST

START_TEST(test_threadlife_never_ran)
{
    evlog *log = test_open_log("fixtures/demo.eventlog");
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    threadlife *tl = threadlife_new(ix, 123456);
    ck_assert_uint_eq(threadlife_n_runs(tl), 0);
    ck_assert_uint_eq(threadlife_n_events(tl), 0);
    ck_assert_uint_eq(threadlife_step(tl, 0, 1), SIZE_MAX);
    ck_assert_uint_eq(threadlife_step(tl, UINT64_MAX, -1), SIZE_MAX);
    ck_assert(!threadlife_runs_in(tl, 0, 0, UINT64_MAX));
    threadlife_free(tl);
    threadlife_free(NULL);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* The two steps: the runs alone (statuses as the lanes have them, no instants), a walk
 * told to stop gives nothing, a full one makes the same life as threadlife_new. */
START_TEST(test_threadlife_two_steps)
{
    ref_life *rp = xcalloc(1, sizeof *rp);
    ref_read("fixtures/threaded-n4.eventlog.ref017", 12, rp);
    evlog *log = test_open_log("fixtures/threaded-n4.eventlog");
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    threadlife *tl = threadlife_new_runs(ix, 12, NULL);
    ck_assert(!threadlife_complete(tl));
    ck_assert_uint_eq(threadlife_n_runs(tl), rp->n_runs);
    ck_assert_uint_eq(threadlife_run_at(tl, 0)->start_ns, rp->first_run_ns);
    ck_assert_uint_eq(threadlife_n_events(tl), 0);
    atomic_bool stop = true;
    ck_assert_ptr_null(threadlife_read(tl, &stop));
    atomic_store(&stop, false);
    threadlife_take(tl, threadlife_read(tl, &stop));
    ck_assert(threadlife_complete(tl));
    threadlife *whole = threadlife_new(ix, 12);
    ck_assert_uint_eq(threadlife_n_events(tl), threadlife_n_events(whole));
    ck_assert_uint_eq(threadlife_n_events(tl),
                      1 + rp->n_labels + rp->n_wakeups + rp->n_migrations);
    for (size_t i = 0; i < threadlife_n_runs(tl); i++)
        ck_assert_mem_eq(threadlife_run_at(tl, i), threadlife_run_at(whole, i),
                         sizeof(threadlife_run));
    threadlife_free(whole);
    threadlife_free(tl);
    evindex_free(ix);
    evlog_close(log);
    x_free(rp);
}
END_TEST

/* Seeking a run without the thread's life: from every run's start, forward and back, the
 * same run as stepping through the gathered life; the first run is the dump's. */
START_TEST(test_threadlife_seek_run)
{
    evlog *log = test_open_log("fixtures/threaded-n4.eventlog");
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    static const uint32_t tids[] = { 1, 7, 12, 16 };
    for (size_t k = 0; k < sizeof tids / sizeof tids[0]; k++) {
        ref_life *rp = xcalloc(1, sizeof *rp);
        ref_read("fixtures/threaded-n4.eventlog.ref017", tids[k], rp);
        threadlife *tl = threadlife_new(ix, tids[k]);
        threadlife_run r;
        ck_assert(threadlife_seek_run(ix, tids[k], 0, 1, &r));
        ck_assert_uint_eq(r.start_ns, rp->first_run_ns);
        ck_assert_uint_eq(r.cap, rp->first_run_cap);
        for (size_t i = 0; i < threadlife_n_runs(tl); i++) {
            const threadlife_run *w = threadlife_run_at(tl, i);
            uint64_t t = w->start_ns;
            for (int dir = -1; dir <= 1; dir += 2) {
                size_t want = threadlife_step(tl, t, dir);
                bool got = threadlife_seek_run(ix, tids[k], dir > 0 ? t + 1 : t, dir, &r);
                ck_assert_msg(got == (want != SIZE_MAX), "thread %u run %zu dir %d", tids[k],
                              i, dir);
                if (got)
                    ck_assert_msg(memcmp(&r, threadlife_run_at(tl, want), sizeof r) == 0 ||
                                  (r.start_ns == threadlife_run_at(tl, want)->start_ns &&
                                   r.cap_lane == threadlife_run_at(tl, want)->cap_lane &&
                                   r.run_index == threadlife_run_at(tl, want)->run_index),
                                  "thread %u run %zu dir %d: another run", tids[k], i, dir);
            }
        }
        threadlife_free(tl);
        x_free(rp);
    }
    threadlife_run r;
    ck_assert(!threadlife_seek_run(ix, 20, 0, 1, &r));     /* created, never ran */
    ck_assert(!threadlife_seek_run(ix, 999, 0, 1, &r));
    ck_assert(!threadlife_seek_run(ix, 1, 0, -1, &r));
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

Suite *
test_threadlife_suite(void)
{
    Suite *s = suite_create("threadlife");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_threadlife_n4);
    tcase_add_test(tc, test_threadlife_sparks);
    tcase_add_test(tc, test_threadlife_never_ran);
    tcase_add_test(tc, test_threadlife_two_steps);
    tcase_add_test(tc, test_threadlife_seek_run);
    suite_add_tcase(s, tc);
    return s;
}
