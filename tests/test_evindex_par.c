/* tests/test_evindex_par: the parallel index build (capabilities shared out between
 * threads, results merged) gives exactly the serial build's index — on every fixture,
 * every corpus log and synthetic logs with many capabilities — and falls back to the
 * serial build on logs it cannot lay out (cut short, no blocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "tests.h"

static evindex *
par_build(const evlog *log, unsigned threads)
{
    evindex_opts o = { .threads = threads };
    diag d;
    evindex *ix = evindex_build(log, &o, &d);
    ck_assert_ptr_nonnull(ix);
    char why[256];
    ck_assert_msg(evindex_check(ix, why, sizeof why), "threads %u: %s", threads, why);
    return ix;
}

/* Field by field: the structs have padding, which memcmp would compare too. */
static bool
iv_same(const ivtrack_iv *x, const ivtrack_iv *y)
{
    return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->ref == y->ref &&
           x->kind == y->kind && x->flags == y->flags;
}

static bool
gc_same(const evindex_gc *x, const evindex_gc *y)
{
    return x->start_ns == y->start_ns && x->end_ns == y->end_ns &&
           x->request_ns == y->request_ns && x->stopping_ns == y->stopping_ns &&
           x->census_ns == y->census_ns &&
           x->global_sync_ns == y->global_sync_ns && x->copied == y->copied &&
           x->slop == y->slop && x->frag == y->frag && x->par_max_copied == y->par_max_copied &&
           x->par_tot_copied == y->par_tot_copied && x->par_balanced == y->par_balanced &&
           x->live_after == y->live_after && x->heap_after == y->heap_after &&
           x->allocated_before == y->allocated_before && x->par_threads == y->par_threads &&
           x->first_part == y->first_part && x->n_parts == y->n_parts && x->gen == y->gen &&
           x->leader_cap == y->leader_cap && x->request_cap == y->request_cap &&
           x->slowest_cap == y->slowest_cap && x->flags == y->flags;
}

static bool
part_same(const evindex_gc_part *x, const evindex_gc_part *y)
{
    return x->cap == y->cap && x->stop_ns == y->stop_ns && x->start_ns == y->start_ns &&
           x->end_ns == y->end_ns && x->work_ns == y->work_ns && x->wait_ns == y->wait_ns;
}

static bool
msg_same(evindex_msg x, evindex_msg y)
{
    return x.time_ns == y.time_ns && x.offset == y.offset && x.cap == y.cap &&
           x.kind == y.kind;
}

static bool
cycle_same(const evindex_nm_cycle *x, const evindex_nm_cycle *y)
{
    return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->mark_ns == y->mark_ns &&
           x->sync_ns == y->sync_ns && x->sweep_ns == y->sweep_ns &&
           x->marked_objects == y->marked_objects && x->n_marks == y->n_marks &&
           x->n_flushes == y->n_flushes && x->flags == y->flags;
}

static bool
run_same(const runlane_run *x, const runlane_run *y)
{
    return x->start_ns == y->start_ns && x->end_ns == y->end_ns && x->tid == y->tid &&
           x->stop == y->stop && x->flags == y->flags;
}

static bool
thread_same(const threadtab_thread *x, const threadtab_thread *y)
{
    return x->tid == y->tid && x->create_cap == y->create_cap &&
           x->create_ns == y->create_ns && x->label_offset == y->label_offset &&
           x->n_migrations == y->n_migrations && x->n_wakeups == y->n_wakeups;
}

/* Every structure of two indexes of the same log, compared (tests.h). */
void
test_evindex_same(const char *name, const evindex *a, const evindex *b)
{
    ck_assert_msg(evindex_n_events(a) == evindex_n_events(b), "%s: events", name);
    ck_assert_msg(evindex_first_ns(a) == evindex_first_ns(b), "%s: first", name);
    ck_assert_msg(evindex_last_ns(a) == evindex_last_ns(b), "%s: last", name);
    ck_assert_msg(evindex_truncated(a) == evindex_truncated(b), "%s: truncated", name);
    ck_assert_msg(evindex_n_caps(a) == evindex_n_caps(b), "%s: caps", name);
    for (size_t i = 0; i < evindex_n_caps(a); i++) {
        const evindex_cap *x = evindex_cap_at(a, i), *y = evindex_cap_at(b, i);
        ck_assert_msg(x->cap == y->cap && x->created_ns == y->created_ns &&
                      x->deleted_ns == y->deleted_ns && x->n_disable == y->n_disable,
                      "%s: lane %zu", name, i);
        ck_assert_msg(runlane_count(x->runs) == runlane_count(y->runs), "%s: runs", name);
        for (size_t r = 0; r < runlane_count(x->runs); r++) {
            runlane_run p, q;
            runlane_get(x->runs, r, &p);
            runlane_get(y->runs, r, &q);
            if (!run_same(&p, &q))
                ck_abort_msg("%s: cap %u run %zu differs", name, x->cap, r);
        }
        ck_assert_msg(ivtrack_count(x->gc) == ivtrack_count(y->gc), "%s: phases", name);
        for (size_t r = 0; r < ivtrack_count(x->gc); r++)
            if (!iv_same(ivtrack_get(x->gc, r, &(ivtrack_iv){ 0 }),
                         ivtrack_get(y->gc, r, &(ivtrack_iv){ 0 })))
                ck_abort_msg("%s: cap %u GC phase %zu differs", name, x->cap, r);
    }
    ck_assert_msg(evindex_n_gcs(a) == evindex_n_gcs(b), "%s: gcs %zu vs %zu", name,
                  evindex_n_gcs(a), evindex_n_gcs(b));
    for (size_t i = 0; i < evindex_n_gcs(a); i++) {
        const evindex_gc *x = evindex_gc_get(a, i, &(evindex_gc){ 0 });
        const evindex_gc *y = evindex_gc_get(b, i, &(evindex_gc){ 0 });
        if (!gc_same(x, y))
            ck_abort_msg("%s: GC %zu differs", name, i);
        for (uint32_t p = 0; p < x->n_parts; p++)
            if (!part_same(evindex_gc_part_get(a, x->first_part + p, &(evindex_gc_part){ 0 }),
                           evindex_gc_part_get(b, y->first_part + p, &(evindex_gc_part){ 0 })))
                ck_abort_msg("%s: GC %zu part %u differs", name, i, p);
    }
    ck_assert_msg(evindex_n_msgs(a) == evindex_n_msgs(b), "%s: msgs", name);
    for (size_t i = 0; i < evindex_n_msgs(a); i++)
        if (!msg_same(evindex_msg_at(a, i), evindex_msg_at(b, i)))
            ck_abort_msg("%s: message %zu differs", name, i);
    const threadtab *ta = evindex_threads(a), *tb = evindex_threads(b);
    ck_assert_msg(threadtab_count(ta) == threadtab_count(tb), "%s: threads", name);
    for (size_t i = 0; i < threadtab_count(ta); i++) {
        threadtab_thread x, y;
        if (!threadtab_at(ta, i, &x) || !threadtab_at(tb, i, &y) || !thread_same(&x, &y))
            ck_abort_msg("%s: thread %zu differs", name, i);
    }
    for (int k = 0; k < EVINDEX_N_SERIES; k++) {
        const series *x = evindex_series(a, (enum evindex_series_id)k);
        const series *y = evindex_series(b, (enum evindex_series_id)k);
        ck_assert_msg(series_count(x) == series_count(y), "%s: series %d", name, k);
        for (size_t i = 0; i < series_count(x); i++) {
            series_sample p = series_get(x, i), q = series_get(y, i);
            if (p.time_ns != q.time_ns || p.value != q.value)
                ck_abort_msg("%s: series %d sample %zu differs", name, k, i);
        }
    }
    for (int k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
        ck_assert_msg(evindex_spark_total(a, (enum evindex_spark_kind)k) ==
                      evindex_spark_total(b, (enum evindex_spark_kind)k), "%s: sparks", name);
    ck_assert_msg(evindex_n_nm_cycles(a) == evindex_n_nm_cycles(b), "%s: nm cycles", name);
    for (size_t i = 0; i < evindex_n_nm_cycles(a); i++)
        if (!cycle_same(evindex_nm_cycle_at(a, i), evindex_nm_cycle_at(b, i)))
            ck_abort_msg("%s: nm cycle %zu differs", name, i);
    const evindex_program *pa = evindex_program_info(a), *pb = evindex_program_info(b);
    ck_assert_msg(pa->rts_id_offset == pb->rts_id_offset && pa->args_offset == pb->args_offset &&
                  pa->env_offset == pb->env_offset && pa->pid == pb->pid &&
                  pa->n_capsets == pb->n_capsets && pa->n_tasks == pb->n_tasks &&
                  pa->hp_censuses == pb->hp_censuses && pa->wall_sec == pb->wall_sec,
                  "%s: program info differs", name);
    /* The seek tables answer alike. */
    evseek_hit h1[300], h2[300];
    uint64_t f = evindex_first_ns(a), span = evindex_last_ns(a) - f + 1;
    for (int q = 0; q < 8; q++) {
        uint64_t t0 = f + span / 8 * (uint64_t)q, t1 = t0 + span / 50 + 1;
        bool m1, m2;
        size_t n1 = evseek_range(evindex_seek(a), evindex_log(a), t0, t1, h1, 300, &m1);
        size_t n2 = evseek_range(evindex_seek(b), evindex_log(b), t0, t1, h2, 300, &m2);
        ck_assert_msg(n1 == n2 && m1 == m2, "%s: seek range %d differs", name, q);
        for (size_t i = 0; i < n1; i++)
            if (h1[i].time_ns != h2[i].time_ns || h1[i].offset != h2[i].offset ||
                h1[i].cap != h2[i].cap)
                ck_abort_msg("%s: seek range %d hit %zu differs", name, q, i);
    }
}

/* Returns how many threads the parallel builds used (1 when they fell back). */
static unsigned
par_compare_file(const char *path, const char *name)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    if (!log)
        return 0;               /* the bad-input suites cover unreadable logs */
    evindex *serial = par_build(log, 1);
    ck_assert_uint_eq(evindex_threads_used(serial), 1);
    unsigned used = 0;
    for (unsigned t = 2; t <= 3; t++) {
        evindex *par = par_build(log, t);
        used = evindex_threads_used(par);
        test_evindex_same(name, serial, par);
        evindex_free(par);
    }
    evindex_free(serial);
    evlog_close(log);
    return used;
}

/* Whether a two-thread build of path placed its samples on two threads (the summed
 * allocation here, the other series beside it). */
static bool
par_samples_beside(const char *path)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(log);
    evindex_prof p = { 0 };
    evindex *ix = evindex_build(log, &(evindex_opts){ .threads = 2, .prof = &p }, &d);
    ck_assert_ptr_nonnull(ix);
    bool beside = false;
    for (unsigned i = 0; i < p.n && i < EVINDEX_PROF_MAX; i++)
        beside |= strcmp(p.stage[i].name, "samples_rest") == 0;
    evindex_free(ix);
    evlog_close(log);
    return beside;
}

START_TEST(test_par_fixtures_and_corpus)
{
    char *dir = test_path("fixtures");
    size_t n;
    char **names = test_list_dir(dir, ".eventlog", &n);
    ck_assert_uint_ge(n, 10);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unsigned used = par_compare_file(path, names[i]);
        /* Every real log but the killed one is laid out cleanly: built in parallel. */
        bool killed = strstr(names[i], "killed") != NULL;
        ck_assert_msg(used == (killed ? 1u : 3u), "%s: built with %u threads", names[i], used);
    }
    test_free_names(names, n);
    free(dir);
    char *corpus = test_corpus_dir();
    if (corpus) {
        names = test_list_dir(corpus, ".eventlog", &n);
        for (size_t i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", corpus, names[i]);
            par_compare_file(path, names[i]);
        }
        test_free_names(names, n);
        free(corpus);
    }
}
END_TEST

/* Synthetic logs from elog-synth with many capabilities, sparks, heap, labels, the
 * non-moving collector and small blocks; plus shapes the parallel build must hand to
 * the serial one (cut short, no blocks). */
START_TEST(test_par_synthetic)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    static const char *const shapes[] = {
        "--caps 5 --size 1M --seed 11 --sparks --heap --labels",
        "--caps 16 --size 1M --seed 12 --nonmoving --block-bytes 2048",
        "--caps 3 --size 512K --seed 13 --global-block --unknown-types",
        "--caps 4 --size 512K --seed 14 --truncate",
        "--caps 4 --size 512K --seed 15 --no-blocks",
        "--caps 2 --size 512K --seed 16 --out-of-order",
        /* Samples by the hundred thousand: the merge of the workers' lists gives back
         * the pages of the part it has merged as it goes. */
        "--caps 2 --size 12M --seed 17 --heap --gc-every 200us",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char path[] = "/tmp/elog-par-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, shapes[i], path);
        ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", shapes[i]);
        unsigned used = par_compare_file(path, shapes[i]);
        bool serial_only = strstr(shapes[i], "--truncate") || strstr(shapes[i], "--no-blocks");
        ck_assert_msg(used == (serial_only ? 1u : 3u), "%s: built with %u threads", shapes[i],
                      used);
        if (strstr(shapes[i], "--size 12M"))
            /* The serial build (under a million events) places the samples on one
             * thread, the parallel ones on two: the indexes above were equal. */
            ck_assert_msg(par_samples_beside(path), "%s: samples placed on one thread",
                          shapes[i]);
        unlink(path);
    }
}
END_TEST

/* Whether the build profiled in p made its collections on a second thread. */
static bool
par_joined_beside(const evindex_prof *p)
{
    for (unsigned i = 0; i < p->n && i < EVINDEX_PROF_MAX; i++)
        if (strcmp(p->stage[i].name, "join_make") == 0)
            return true;
    return false;
}

/* Builds `path` serially and with two threads: the parallel build's final join
 * makes its collections on a second thread, and its index is exactly the serial one's.
 * Returns the collections with a census inside the pause. */
static size_t
par_join_beside_file(const char *path, const char *name)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(log);
    evindex_prof sp = { 0 }, pp = { 0 };
    evindex *serial = evindex_build(log, &(evindex_opts){ .threads = 1, .prof = &sp }, &d);
    evindex *par = evindex_build(log, &(evindex_opts){ .threads = 2, .prof = &pp }, &d);
    ck_assert_ptr_nonnull(serial);
    ck_assert_ptr_nonnull(par);
    ck_assert_uint_eq(evindex_threads_used(par), 2);
    ck_assert_msg(!par_joined_beside(&sp), "%s: the serial build joined on two threads", name);
    ck_assert_msg(par_joined_beside(&pp), "%s: the join ran on one thread", name);
    char why[256];
    ck_assert_msg(evindex_check(par, why, sizeof why), "%s: %s", name, why);
    test_evindex_same(name, serial, par);
    size_t n_census = 0;
    for (size_t i = 0; i < evindex_n_gcs(par); i++)
        n_census += evindex_gc_get(par, i, &(evindex_gc){ 0 })->census_ns > 0;
    evindex_free(par);
    evindex_free(serial);
    evlog_close(log);
    return n_census;
}

/* A parallel build's final join of many collections makes them on a second thread
 * while the building thread stores them (the GC phases' refs, the censuses, the heap
 * figures, the packed records), in batches: the index is still exactly the serial
 * build's (which joins on one thread), with non-moving cycles, and with heap censuses
 * inside the pauses. */
START_TEST(test_par_join_beside)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char path[] = "/tmp/elog-par-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    /* 351 collections: more batches than the queue holds. */
    const char *shape = "--caps 2 --size 160K --seed 18 --nonmoving --gc-every 100us";
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, shape, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", shape);
    par_join_beside_file(path, shape);
    unlink(path);
    char *fx = test_path("fixtures/heapprof-hc.eventlog");
    ck_assert_uint_gt(par_join_beside_file(fx, "heapprof-hc"), 0);
    free(fx);
}
END_TEST

Suite *
test_evindex_par_suite(void)
{
    Suite *s = suite_create("evindex_par");
    TCase *tc = tcase_create("parallel");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_par_fixtures_and_corpus);
    tcase_add_test(tc, test_par_synthetic);
    tcase_add_test(tc, test_par_join_beside);
    suite_add_tcase(s, tc);
    return s;
}
