/* test_focus_live: a thread focused in a live view stays focused as the log grows — its
 * life is extended by each swap of the grown index (inline, or on the worker while the
 * old life stays shown), never gathered again from scratch; the pane and the marks show
 * the runs and instants that came; a different index still gathers afresh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "../ui/app_int.h"
#include "evindex.h"
#include "evlog.h"
#include "surface.h"
#include "theme.h"
#include "tests.h"
#include "threadlife.h"
#include "xalloc.h"

#define FL_COLS 140
#define FL_LINES 44
#define FL_PLOT0 10         /* LANES_LABEL_COLS */
#define FL_TID 7            /* "pinger" of threaded-n4: runs and wake-ups all along */

static bool
fl_has(const surface *s, const char *text)
{
    char *dump = surface_dump(s);
    bool has = strstr(dump, text) != NULL;
    x_free(dump);
    return has;
}

/* Cells drawn as the focused thread's runs in the plot's columns [c0, c1). */
static int
fl_marked(const surface *s, int c0, int c1)
{
    int n = 0;
    for (int line = 0; line < FL_LINES; line++)
        for (int c = FL_PLOT0 + c0; c < FL_PLOT0 + c1 && c < FL_COLS; c++)
            n += surface_get(s, c, line).style == STYLE_THREAD_FOCUS;
    return n;
}

static void
fl_keys(app *a, const char *keys)
{
    char *copy = xstrdup(keys), *save = NULL;
    for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
        app_key(a, k);
    x_free(copy);
}

/* Poll until the background work is taken (bounded). */
static void
fl_settle(app *a)
{
    for (int i = 0; i < 2000 && app_totals_pending(a); i++) {
        struct timespec ts = { 0, 5 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        app_poll_totals(a);
    }
    app_poll_totals(a);
    ck_assert(!app_totals_pending(a));
}

/* The pane's counts for the thread as a fresh gather over `ix` has them. */
static void
fl_pane_shows(const surface *s, const evindex *ix)
{
    threadlife *fresh = threadlife_new(ix, FL_TID);
    char want[96];
    snprintf(want, sizeof want, " · %zu runs, run time ", threadlife_n_runs(fresh));
    ck_assert_msg(fl_has(s, want), "pane lacks \"%s\"", want);
    snprintf(want, sizeof want, "Focus: its life, %zu entries",
                 threadlife_n_runs(fresh) + threadlife_n_events(fresh));
    ck_assert_msg(fl_has(s, want), "pane lacks \"%s\"", want);
    ck_assert(!fl_has(s, "reading the log"));
    threadlife_free(fresh);
}

/* threaded-n4 written in pieces into a growing file, the viewer over its growing index
 * with "pinger" focused from the first third on; `worker`: the interactive loop's
 * background work, extensions on the worker. */
static void
fl_run(bool worker)
{
    char *path = test_path("fixtures/threaded-n4.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    ck_assert_ptr_nonnull(data);
    char tmp[] = "/tmp/elog-focuslive.XXXXXX";
    int fd = mkstemp(tmp);
    ck_assert(fd >= 0);
    unlink(tmp);
    size_t have = len / 3;
    ck_assert(write(fd, data, have) == (ssize_t)have);
    diag d;
    bool short_header;
    evlog *log = evlog_open_growing(fd, have, (size_t)1 << 30, &d, &short_header);
    ck_assert_ptr_nonnull(log);
    evindex_grow *g = evindex_grow_new(log);
    while (evindex_grow_step(g, UINT64_MAX))
        ;
    const evindex *ix = evindex_grow_index(g);
    app_opts ao = { .mouse = false, .async_totals = worker };
    app *a = app_new(ix, "live", FL_COLS, FL_LINES, &ao);
    a->live = true;
    a->focus_inline_bytes = worker ? 1 : 0;
    surface *s = surface_new(FL_COLS, FL_LINES);
    fl_keys(a, "t");
    fl_settle(a);               /* the thread list's counts */
    fl_keys(a, "p i n g e r Enter");
    fl_settle(a);               /* its life */
    ck_assert_ptr_nonnull(a->focus);
    ck_assert_uint_eq(threadlife_tid(a->focus), FL_TID);
    ck_assert_uint_eq(a->focus_gathers, 1);
    size_t runs_then = threadlife_n_runs(a->focus);
    size_t events_then = threadlife_n_events(a->focus);
    ck_assert_uint_gt(runs_then, 0);
    fl_keys(a, "0");            /* the whole log in view, following its end */
    app_draw(a, s);
    fl_pane_shows(s, ix);
    /* The log grows in pieces, each swapped in as applive does. */
    const threadlife *tl = a->focus;
    uint64_t s_rand = 7;
    int swaps = 0;
    while (have < len) {
        s_rand = s_rand * 6364136223846793005ull + 1442695040888963407ull;
        size_t piece = 1 + (size_t)((s_rand >> 33) % (len / 8));
        if (piece > len - have)
            piece = len - have;
        ck_assert(write(fd, data + have, piece) == (ssize_t)piece);
        have += piece;
        ck_assert(evlog_grow(log, have, &d));
        while (evindex_grow_step(g, UINT64_MAX))
            ;
        app_swap_index(a, ix);
        swaps++;
        /* Meanwhile (the worker reading what was added) the life so far stays shown. */
        ck_assert_ptr_eq(a->focus, tl);
        ck_assert(threadlife_complete(a->focus));
        app_draw(a, s);
        ck_assert(!fl_has(s, "reading the log"));
        ck_assert_int_gt(fl_marked(s, 0, FL_COLS - FL_PLOT0), 0);
        fl_settle(a);
        app_draw(a, s);
        fl_pane_shows(s, ix);
        ck_assert_ptr_eq(a->focus, tl);     /* the same life, extended */
    }
    ck_assert_int_ge(swaps, 3);
    diag e;
    evindex *done = evindex_grow_finish(g, &e);
    ck_assert_ptr_eq(done, ix);
    app_swap_index(a, done);
    fl_settle(a);
    fl_keys(a, "0");
    app_draw(a, s);
    fl_pane_shows(s, done);
    /* Gathered once; every log byte walked once (a gather per swap walks it all again). */
    ck_assert_uint_eq(a->focus_gathers, 1);
    ck_assert_uint_le(threadlife_walked_bytes(a->focus), len);
    ck_assert_uint_gt(threadlife_n_runs(a->focus), runs_then);
    ck_assert_uint_gt(threadlife_n_events(a->focus), events_then);
    /* The runs that came are marked: the last run's column, on its HEC's line. */
    const threadlife_run *last = threadlife_run_at(a->focus, threadlife_n_runs(a->focus) - 1);
    const timeview *v = app_view(a);
    ck_assert(last->start_ns >= v->t0_ns && last->start_ns < v->t1_ns);
    int col = -1;
    for (int c = 0; c < v->width && col < 0; c++) {
        uint64_t t0, t1;
        timeview_col_range(v, c, &t0, &t1);
        if (last->start_ns >= t0 && last->start_ns < t1)
            col = c;
    }
    ck_assert_int_ge(col, 0);
    if (v->cursor_ns < last->start_ns || v->cursor_ns > last->end_ns)
        ck_assert_int_gt(fl_marked(s, col, col + 1), 0);
    /* It equals a fresh gather over the whole log. */
    threadlife *fresh = threadlife_new(done, FL_TID);
    ck_assert_uint_eq(threadlife_n_runs(a->focus), threadlife_n_runs(fresh));
    ck_assert_uint_eq(threadlife_n_events(a->focus), threadlife_n_events(fresh));
    for (size_t i = 0; i < threadlife_n_runs(fresh); i++) {
        ck_assert_uint_eq(threadlife_run_at(a->focus, i)->start_ns,
                          threadlife_run_at(fresh, i)->start_ns);
        ck_assert_uint_eq(threadlife_run_at(a->focus, i)->info,
                          threadlife_run_at(fresh, i)->info);
    }
    threadlife_free(fresh);
    /* A different index (not the same one grown): gathered afresh. */
    evlog *other_log = evlog_open_bytes(data, len, &d);
    evindex *other = evindex_build(other_log, NULL, &d);
    app_swap_index(a, other);
    fl_settle(a);
    ck_assert_uint_eq(a->focus_gathers, 2);
    ck_assert_ptr_nonnull(a->focus);
    ck_assert_uint_eq(threadlife_tid(a->focus), FL_TID);
    app_free(a);
    surface_free(s);
    evindex_free(other);
    evlog_close(other_log);
    evindex_free(done);
    evlog_close(log);
    close(fd);
    free(data);
    free(path);
}

START_TEST(test_focus_live_inline)
{
    fl_run(false);
}
END_TEST

START_TEST(test_focus_live_worker)
{
    fl_run(true);
}
END_TEST

Suite *
test_focus_live_suite(void)
{
    Suite *s = suite_create("focus_live");
    TCase *tc = tcase_create("focus_live");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_focus_live_inline);
    tcase_add_test(tc, test_focus_live_worker);
    suite_add_tcase(s, tc);
    return s;
}
