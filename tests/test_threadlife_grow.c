/* test_threadlife_grow: a thread's life extended over an index that grows (a live log
 * written in random pieces, indexed after each by one evindex_grow, sometimes only
 * part of the way) equals, at every snapshot and at the end, the life gathered afresh
 * over the same index — runs, their stop statuses and blocked-on fields, instants and
 * their wakers — and costs only what was added (each log byte walked once). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "tests.h"
#include "threadlife.h"
#include "xalloc.h"

static uint64_t
tg_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* Two lives alike in every field a viewer shows. */
static void
tg_same(const char *what, const threadlife *a, const threadlife *b)
{
    uint32_t tid = threadlife_tid(a);
    ck_assert_msg(threadlife_n_runs(a) == threadlife_n_runs(b), "%s: thread %u: %zu runs vs %zu",
                  what, tid, threadlife_n_runs(a), threadlife_n_runs(b));
    ck_assert_msg(threadlife_run_ns(a) == threadlife_run_ns(b), "%s: thread %u: run time",
                  what, tid);
    for (size_t i = 0; i < threadlife_n_runs(a); i++) {
        const threadlife_run *x = threadlife_run_at(a, i), *y = threadlife_run_at(b, i);
        ck_assert_msg(x->start_ns == y->start_ns && x->end_ns == y->end_ns &&
                          x->cap_lane == y->cap_lane && x->run_index == y->run_index &&
                          x->cap == y->cap && x->flags == y->flags,
                      "%s: thread %u: run %zu at %llu vs %llu", what, tid, i,
                      (unsigned long long)x->start_ns, (unsigned long long)y->start_ns);
        ck_assert_msg(x->status == y->status && x->info == y->info,
                      "%s: thread %u: run %zu at %llu: status %u/%u vs %u/%u", what, tid, i,
                      (unsigned long long)x->start_ns, x->status, x->info, y->status, y->info);
    }
    ck_assert_msg(threadlife_n_events(a) == threadlife_n_events(b),
                  "%s: thread %u: %zu instants vs %zu", what, tid, threadlife_n_events(a),
                  threadlife_n_events(b));
    for (size_t i = 0; i < threadlife_n_events(a); i++) {
        const threadlife_event *x = threadlife_event_at(a, i), *y = threadlife_event_at(b, i);
        ck_assert_msg(x->time_ns == y->time_ns && x->offset == y->offset && x->kind == y->kind &&
                          x->cap == y->cap && x->other_cap == y->other_cap,
                      "%s: thread %u: instant %zu", what, tid, i);
        ck_assert_msg(x->by_tid == y->by_tid, "%s: thread %u: instant %zu at %llu by %u vs %u",
                      what, tid, i, (unsigned long long)x->time_ns, x->by_tid, y->by_tid);
    }
    ck_assert(threadlife_complete(a) == threadlife_complete(b));
}

/* Feed `data` to a grower in random pieces (seed); after each piece the index grows,
 * sometimes only by a small budget (the walk over the log then runs ahead of the runs
 * placed), and the lives of `tids`, gathered at the first step, are extended. Every
 * `snap_every` steps and at the end each equals a fresh gather; the finished one also
 * equals a fresh gather over the index of the whole bytes built at once. Returns the
 * number of runs and instants seen, summed over the threads. */
static size_t
tg_feed(const char *name, const uint8_t *data, size_t len, uint64_t seed, size_t max_piece,
        const uint32_t *tids, size_t n_tids, int snap_every)
{
    ck_assert(n_tids <= 16);
    diag d;
    int fd = test_unlinked_tempfile();
    evlog *log = NULL;
    evindex_grow *g = NULL;
    threadlife *tl[16] = { NULL };
    size_t have = 0, steps = 0;
    uint64_t s = seed;
    while (have < len) {
        size_t piece;
        switch (tg_rand(&s) % 4) {
        case 0: piece = 1 + (size_t)(tg_rand(&s) % 16); break;          /* mid-event */
        case 1: piece = 1 + (size_t)(tg_rand(&s) % 4096); break;
        default: piece = 1 + (size_t)(tg_rand(&s) % max_piece); break;
        }
        if (piece > len - have)
            piece = len - have;
        test_write_all(fd, data + have, piece);
        have += piece;
        if (!log) {
            bool short_header;
            log = evlog_open_growing(fd, have, (size_t)1 << 30, &d, &short_header);
            if (!log)
                continue;
            g = evindex_grow_new(log);
        } else {
            ck_assert(evlog_grow(log, have, &d));
        }
        if (tg_rand(&s) % 3 == 0)
            evindex_grow_step(g, 1 + tg_rand(&s) % 2000);   /* behind the bytes */
        else
            while (evindex_grow_step(g, UINT64_MAX))
                ;
        steps++;
        const evindex *ix = evindex_grow_index(g);
        for (size_t k = 0; k < n_tids; k++) {
            if (!tl[k])
                tl[k] = threadlife_new(ix, tids[k]);
            else
                threadlife_extend(tl[k]);
        }
        if (snap_every && steps % (size_t)snap_every == 0)
            for (size_t k = 0; k < n_tids; k++) {
                threadlife *fresh = threadlife_new(ix, tids[k]);
                char what[128];
                snprintf(what, sizeof what, "%s at %zu bytes", name, have);
                tg_same(what, tl[k], fresh);
                threadlife_free(fresh);
            }
    }
    ck_assert_msg(g != NULL, "%s: no header", name);
    diag ge;
    evindex *grown = evindex_grow_finish(g, &ge);
    evlog *whole = evlog_open_bytes(data, len, &d);
    ck_assert_ptr_nonnull(whole);
    evindex_opts serial = { .threads = 1 };
    evindex *ref = evindex_build(whole, &serial, &d);
    size_t seen = 0;
    for (size_t k = 0; k < n_tids; k++) {
        threadlife_extend(tl[k]);
        threadlife *fresh = threadlife_new(grown, tids[k]);
        threadlife *fromfile = threadlife_new(ref, tids[k]);
        char what[128];
        snprintf(what, sizeof what, "%s finished", name);
        tg_same(what, tl[k], fresh);
        snprintf(what, sizeof what, "%s vs the file's index", name);
        tg_same(what, tl[k], fromfile);
        /* Each byte walked once: no pass went over the whole log again. */
        ck_assert_msg(threadlife_walked_bytes(tl[k]) <= len, "%s: thread %u: %llu bytes walked "
                      "for a log of %zu", name, tids[k],
                      (unsigned long long)threadlife_walked_bytes(tl[k]), len);
        ck_assert_uint_eq(threadlife_behind_bytes(tl[k]), 0);
        seen += threadlife_n_runs(tl[k]) + threadlife_n_events(tl[k]);
        threadlife_free(fresh);
        threadlife_free(fromfile);
        threadlife_free(tl[k]);
    }
    evindex_free(ref);
    evlog_close(whole);
    evindex_free(grown);
    evlog_close(log);
    close(fd);
    return seen;
}

/* Thread ids of the ping-pong log. */
enum { PP_MAIN = 1, PP_PING = 2, PP_PONG = 3, PP_LATE = 5, PP_IDLE = 6 };
#define PP_ROUNDS 3000u

/* A ping-pong log over four caps in small blocks (so caps' blocks come out of time
 * order): ping on caps 0/1 wakes pong, pong on caps 2/3 (migrating every 50 rounds)
 * wakes ping and stops blocked on an MVar; a thread created and labelled halfway (by
 * ping) that stops on a black hole owned by pong; a thread created at the start that
 * first runs three quarters in. Caller frees. */
static uint8_t *
tg_pingpong(size_t *len)
{
    char *bytes = NULL;
    FILE *fp = open_memstream(&bytes, len);
    ck_assert_ptr_nonnull(fp);
    evwrite *w = evwrite_new(fp);
    ck_assert_int_eq(evwrite_declare_ghc(w), EVWRITE_OK);
    ck_assert_int_eq(evwrite_set_block_bytes(w, 256), EVWRITE_OK);
    ck_assert_int_eq(evwrite_begin_data(w), EVWRITE_OK);
    evwrite_run_thread(w, 0, 100, PP_MAIN);
    evwrite_create_thread(w, 0, 200, PP_PING);
    evwrite_create_thread(w, 0, 300, PP_PONG);
    evwrite_create_thread(w, 0, 400, PP_IDLE);
    evwrite_stop_thread(w, 0, 900, PP_MAIN, 7, 0);
    uint16_t pong_cap = 2;
    for (uint32_t k = 0; k < PP_ROUNDS; k++) {
        uint64_t t = 1000 + (uint64_t)k * 1000;
        uint16_t a = (uint16_t)(k % 2), a_next = (uint16_t)((k + 1) % 2);
        evwrite_run_thread(w, a, t, PP_PING);
        evwrite_thread_wakeup(w, a, t + 100, PP_PONG, pong_cap);
        if (k == PP_ROUNDS / 2) {
            evwrite_create_thread(w, a, t + 200, PP_LATE);
            evwrite_thread_label(w, a, t + 210, PP_LATE, "late worker");
        }
        evwrite_stop_thread(w, a, t + 300, PP_PING, 8, PP_LATE);
        uint16_t other = pong_cap == 2 ? 3 : 2;
        if (k > PP_ROUNDS / 2 && k % 3 == 0) {
            evwrite_run_thread(w, other, t + 100, PP_LATE);
            evwrite_stop_thread(w, other, t + 250, PP_LATE, 8, PP_PONG);
        }
        if (k >= PP_ROUNDS * 3 / 4 && k % 5 == 0) {
            evwrite_run_thread(w, (uint16_t)(1 - a), t + 400, PP_IDLE);
            evwrite_stop_thread(w, (uint16_t)(1 - a), t + 600, PP_IDLE, 3, 0);
        }
        evwrite_run_thread(w, pong_cap, t + 400, PP_PONG);
        evwrite_thread_wakeup(w, pong_cap, t + 500, PP_PING, a_next);
        evwrite_stop_thread(w, pong_cap, t + 700, PP_PONG, 7, 0);
        if (k % 50 == 49) {
            evwrite_migrate_thread(w, pong_cap, t + 800, PP_PONG, other);
            pong_cap = other;
        }
    }
    evwrite_run_thread(w, 0, 1000 + (uint64_t)PP_ROUNDS * 1000, PP_MAIN);
    evwrite_stop_thread(w, 0, 1500 + (uint64_t)PP_ROUNDS * 1000, PP_MAIN, 5, 0);
    ck_assert_int_eq(evwrite_finish(w), EVWRITE_OK);
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(fp), 0);
    return (uint8_t *)bytes;
}

static const uint32_t pp_tids[] = { PP_MAIN, PP_PING, PP_PONG, PP_LATE, PP_IDLE, 99 };

START_TEST(test_tlgrow_pingpong)
{
    size_t len;
    uint8_t *data = tg_pingpong(&len);
    size_t seen = tg_feed("ping-pong", data, len, 11 + (uint64_t)_i, len / 40, pp_tids,
                          sizeof pp_tids / sizeof *pp_tids, 7);
    /* ping: every round's run and wake-up; pong too; late and idle threads: theirs. */
    ck_assert_uint_ge(seen, 4 * PP_ROUNDS);
    free(data);
}
END_TEST

/* A STOP_THREAD read before the index has placed its run (the walk runs ahead of the
 * grower) still fixes the run once it is placed: the blocked-on owner shows. */
START_TEST(test_tlgrow_stop_before_run)
{
    size_t len;
    uint8_t *data = tg_pingpong(&len);
    int fd = test_unlinked_tempfile();
    test_write_all(fd, data, len);
    diag d;
    bool short_header;
    evlog *log = evlog_open_growing(fd, len, (size_t)1 << 30, &d, &short_header);
    ck_assert_ptr_nonnull(log);
    evindex_grow *g = evindex_grow_new(log);
    ck_assert(evindex_grow_step(g, len / 3));      /* a third indexed, every byte there */
    threadlife *tl = threadlife_new(evindex_grow_index(g), PP_PING);
    size_t runs_before = threadlife_n_runs(tl);
    while (evindex_grow_step(g, UINT64_MAX))
        ;
    threadlife_extend(tl);
    ck_assert_uint_gt(threadlife_n_runs(tl), runs_before);
    threadlife *fresh = threadlife_new(evindex_grow_index(g), PP_PING);
    tg_same("stops read before their runs", tl, fresh);
    /* Every run of ping but the ones in flight at a third ended blocked on the late
     * thread's black hole, as its STOP_THREAD says. */
    for (size_t i = runs_before; i < threadlife_n_runs(tl); i++) {
        const threadlife_run *r = threadlife_run_at(tl, i);
        ck_assert_msg(r->status == 8 && r->info == PP_LATE, "run %zu at %llu: %u/%u", i,
                      (unsigned long long)r->start_ns, r->status, r->info);
    }
    /* The bytes were walked once, by the first gather. */
    ck_assert_uint_le(threadlife_walked_bytes(tl), len);
    threadlife_free(fresh);
    threadlife_free(tl);
    evindex_grow_free(g);
    evlog_close(log);
    close(fd);
    free(data);
}
END_TEST

START_TEST(test_tlgrow_n4)
{
    char *path = test_path("fixtures/threaded-n4.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    /* The main thread, the IO managers (labelled), workers created late. */
    static const uint32_t tids[] = { 1, 2, 4, 9, 14, 17 };
    tg_feed("threaded-n4", data, len, 3 + (uint64_t)_i, len / 10, tids,
            sizeof tids / sizeof *tids, 3);
    free(data);
    free(path);
}
END_TEST

/* Many short-lived threads (a server's thread per request), labelled. */
START_TEST(test_tlgrow_churn)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char path[] = "/tmp/elog-tlgrow-churn-XXXXXX";
    int tfd = mkstemp(path);
    ck_assert(tfd >= 0);
    close(tfd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --churn 4000 --caps 4 --labels --block-bytes 2048 "
             "-o '%s' 2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth --churn failed");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    unlink(path);
    static const uint32_t tids[] = { 1, 2, 10, 1500, 3990, 4003 };
    tg_feed("churn", data, len, 5, len / 30, tids, sizeof tids / sizeof *tids, 5);
    free(data);
}
END_TEST

Suite *
test_threadlife_grow_suite(void)
{
    Suite *s = suite_create("threadlife_grow");
    TCase *tc = tcase_create("grow");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_tlgrow_pingpong, 0, 3);
    tcase_add_test(tc, test_tlgrow_stop_before_run);
    tcase_add_loop_test(tc, test_tlgrow_n4, 0, 3);
    tcase_add_test(tc, test_tlgrow_churn);
    suite_add_tcase(s, tc);
    return s;
}
