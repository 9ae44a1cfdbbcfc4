/* tests/test_app: the viewer's state and frame, headless — actions driven by key
 * names on real fixtures (GC and marker jumps, zoom, lists, search, selection, event
 * pane, help, resizing to nothing) and the frame rendered through a TickitMockTerm,
 * asserting cell text and pens. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../ui/termio_mock.h"
#include "app.h"
#include "../ui/app_int.h"
#include "decode.h"
#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "surface.h"
#include "tests.h"
#include "theme.h"
#include "timefmt.h"
#include "lanes.h"
#include "pausehist.h"
#include "strbuf.h"
#include "threadstats.h"
#include "threadtab.h"
#include "xalloc.h"

typedef struct app_fx {
    evlog *log;
    evindex *ix;
    app *a;
    surface *s;
} app_fx;

static void
fx_open_opts(app_fx *f, const char *fixture, int cols, int lines, const app_opts *o);

static void
fx_open(app_fx *f, const char *fixture, int cols, int lines, bool ascii)
{
    app_opts o = { .ascii = ascii };
    fx_open_opts(f, fixture, cols, lines, &o);
}

static void
fx_open_opts(app_fx *f, const char *fixture, int cols, int lines, const app_opts *o)
{
    char *path = test_path(fixture);
    f->log = test_open_log(fixture);
    diag d;
    f->ix = evindex_build(f->log, NULL, &d);
    ck_assert_ptr_nonnull(f->ix);
    f->a = app_new(f->ix, path, cols, lines, o);
    f->s = surface_new(cols, lines);
    app_draw(f->a, f->s);
    free(path);
}

static void
fx_close(app_fx *f)
{
    surface_free(f->s);
    app_free(f->a);
    evindex_free(f->ix);
    evlog_close(f->log);
}

/* A GHC log written into memory (*bytes, *len, through the stream *fp), its data begun:
 * events go in with evwrite_*, then fx_open_written. */
static evwrite *
fx_writer(FILE **fp, char **bytes, size_t *len)
{
    *fp = open_memstream(bytes, len);
    ck_assert_ptr_nonnull(*fp);
    evwrite *w = evwrite_new(*fp);
    ck_assert_int_eq(evwrite_declare_ghc(w), EVWRITE_OK);
    ck_assert_int_eq(evwrite_begin_data(w), EVWRITE_OK);
    return w;
}

/* Finish the log w writes into the memory stream fp (over *bytes, *len) and open a
 * 100x30 viewer on it named `name`; the bytes stay the caller's (free after fx_close). */
static void
fx_open_written(app_fx *f, evwrite *w, FILE *fp, char **bytes, size_t *len, const char *name)
{
    ck_assert_int_eq(evwrite_finish(w), EVWRITE_OK);
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(fp), 0);
    diag d;
    f->log = evlog_open_bytes((const uint8_t *)*bytes, *len, &d);
    ck_assert_ptr_nonnull(f->log);
    f->ix = evindex_build(f->log, NULL, &d);
    f->a = app_new(f->ix, name, 100, 30, NULL);
    f->s = surface_new(100, 30);
}

/* Press keys (space-separated names), then draw. */
static void
fx_keys(app_fx *f, const char *keys)
{
    char *copy = strdup(keys), *save = NULL;
    for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
        app_key(f->a, k);
    free(copy);
    app_draw(f->a, f->s);
}

static bool
fx_screen_has(app_fx *f, const char *text)
{
    char *dump = surface_dump(f->s);
    bool has = strstr(dump, text) != NULL;
    free(dump);
    return has;
}

/* Wait (up to 10 s) until the background thread totals have arrived and been taken. */
static void
fx_wait_totals(app_fx *f)
{
    bool ready = false;
    for (int i = 0; i < 1000 && !ready; i++) {
        /* Both steps of the count taken (here, or the first already by the thread
         * list when the count beat the key). */
        app_poll_totals(f->a);
        ready = !app_totals_pending(f->a);
        if (!ready) {
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
    }
    ck_assert(ready);
}

/* The interactive loop counts the threads' run totals in the background: the run
 * detail says so until they arrive, then shows them; freeing the app mid-count is safe. */
START_TEST(test_app_async_totals)
{
    app_fx f;
    app_opts o = { .async_totals = true };
    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    fx_close(&f);                               /* possibly still counting */

    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    /* Walk the cursor over HEC 0 until it stands on a run. */
    fx_keys(&f, "j");
    for (int i = 0; i < 200 && !fx_screen_has(&f, "Thread runs: "); i++)
        fx_keys(&f, "Right");
    ck_assert(fx_screen_has(&f, "Thread runs: "));
    fx_wait_totals(&f);
    ck_assert(!app_poll_totals(f.a));           /* taken once */
    app_draw(f.a, f.s);
    ck_assert(fx_screen_has(&f, "Thread runs: "));
    ck_assert(!fx_screen_has(&f, "Thread runs: counting"));
    ck_assert(fx_screen_has(&f, "Thread stops: "));
    fx_close(&f);
}
END_TEST

/* The background count leaves the rows of every thread (80 bytes each) uncounted until a
 * run's detail asks for them: the thread list's totals come, the rows do not; then the
 * detail says they are being counted, and shows them once they are. */
START_TEST(test_app_rows_when_asked)
{
    app_fx f;
    app_opts o = { .async_totals = true };
    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    ck_assert(!fx_screen_has(&f, "Thread runs: "));
    fx_wait_totals(&f);
    ck_assert_ptr_null(f.a->thread_memo.rows);
    ck_assert_uint_gt(f.a->brief.n, 0);
    fx_keys(&f, "j");
    for (int i = 0; i < 200 && !fx_screen_has(&f, "Thread runs: "); i++)
        fx_keys(&f, "Right");
    ck_assert(fx_screen_has(&f, "Thread runs: counting"));
    ck_assert(app_totals_pending(f.a));
    fx_wait_totals(&f);
    ck_assert_ptr_nonnull(f.a->thread_memo.rows);
    app_draw(f.a, f.s);
    ck_assert(!fx_screen_has(&f, "Thread runs: counting"));
    ck_assert(fx_screen_has(&f, "Thread stops: "));
    fx_close(&f);
}
END_TEST

/* Once the thread list's totals are in, the interactive loop makes the lanes' bins in
 * the background and hands them to the lanes (none before); the screens drawn with them
 * are those drawn without, at every zoom; freeing the app while they are made is safe. */
START_TEST(test_app_async_bins)
{
    app_fx f, g;
    app_opts o = { .async_totals = true };
    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    for (int i = 0; i < 50 && !f.a->bins_running; i++)
        app_poll_totals(f.a);               /* the totals taken, the bins started */
    fx_close(&f);                           /* possibly still making them */

    /* 60 columns: at the whole log, a column spans four bins and more. */
    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 60, 40, &o);
    fx_open_opts(&g, "fixtures/threaded-n4.eventlog", 60, 40, &o);
    g.a->bins_done = true;                  /* the same app, never given bins */
    ck_assert(!lanes_memo_has_bins(f.a->lanes_memo, f.a->ix));
    fx_wait_totals(&f);
    fx_wait_totals(&g);
    ck_assert(lanes_memo_has_bins(f.a->lanes_memo, f.a->ix));
    ck_assert(!lanes_memo_has_bins(g.a->lanes_memo, g.a->ix));
    static const char *const steps[] = { "", "+", "+ +", "l l", "+ + +", "h", "- - -", "0" };
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        fx_keys(&f, steps[i]);
        fx_keys(&g, steps[i]);
        char *a = surface_dump(f.s), *b = surface_dump(g.s);
        size_t k = 0, line = 0, at = 0;
        for (; a[k] && a[k] == b[k]; k++)
            if (a[k] == '\n') {
                line++;
                at = k + 1;
            }
        ck_assert_msg(a[k] == b[k], "after \"%s\", line %zu: %.160s\nwithout bins: %.160s",
                      steps[i], line, a + at, b + at);
        free(a);
        free(b);
    }
    fx_close(&g);
    fx_close(&f);
}
END_TEST

/* THREAD_LABEL events of the log whose text contains `part`. */
static size_t
fx_labels_with(const evlog *log, const char *part)
{
    size_t n = 0, plen = strlen(part);
    evlog_iter it;
    evlog_event ev;
    evlog_iter_init(&it, log);
    while (evlog_iter_next(&it, &ev)) {
        if (ev.type != EV_THREAD_LABEL)
            continue;
        evdecoded dec;
        decode_event(&ev, &dec);
        ck_assert_uint_ge(dec.n_present, 2);
        for (size_t k = 0; k + plen <= dec.f[1].len; k++)
            if (memcmp(dec.f[1].p + k, part, plen) == 0) {
                n++;
                break;
            }
    }
    return n;
}

/* The thread list on a log of many short-lived threads (elog-synth --churn: every 10th
 * labelled "request-K"): `t` opens at once while the totals are still being counted,
 * the filter typed meanwhile is kept (no key lost), and once they arrive the list holds
 * exactly the threads whose label contains the filter — counted here from the log's
 * THREAD_LABEL events, not from the tool. */
START_TEST(test_app_thread_list_churn)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char dir[] = "/tmp/elog-app.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char path[64], cmd[256];
    snprintf(path, sizeof path, "%s/churn.eventlog", dir);
    snprintf(cmd, sizeof cmd, "'%s' --churn 20000 -o '%s' 2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth --churn failed");

    diag d;
    diag_clear(&d);
    app_fx f;
    f.log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(f.log);
    size_t n_threads = 0;
    evlog_iter it;
    evlog_event ev;
    evlog_iter_init(&it, f.log);
    while (evlog_iter_next(&it, &ev))
        n_threads += ev.type == EV_CREATE_THREAD;
    size_t want = fx_labels_with(f.log, "request-199");
    ck_assert_uint_eq(want, 11);                /* request-1990, 19900 .. 19990 */
    f.ix = evindex_build(f.log, NULL, &d);
    ck_assert_ptr_nonnull(f.ix);
    app_opts o = { .async_totals = true };
    f.a = app_new(f.ix, path, 100, 30, &o);
    f.s = surface_new(100, 30);
    fx_keys(&f, "t r e q u e s t - 1 9 9");
    ck_assert(fx_screen_has(&f, "threads by run time"));
    ck_assert(fx_screen_has(&f, "filter: request-199"));
    fx_wait_totals(&f);
    app_draw(f.a, f.s);
    ck_assert(fx_screen_has(&f, "filter: request-199"));
    char count[32];
    snprintf(count, sizeof count, " %zu/%zu ", want, n_threads);
    ck_assert_msg(fx_screen_has(&f, count), "no \"%s\" on the list", count);
    ck_assert(fx_screen_has(&f, "request-19970"));
    ck_assert(!fx_screen_has(&f, "request-2"));
    /* Erasing two characters widens the match back ("request-1": 1111 of them). */
    fx_keys(&f, "Backspace Backspace");
    ck_assert(fx_screen_has(&f, "filter: request-1 "));
    snprintf(count, sizeof count, " %zu/%zu ", fx_labels_with(f.log, "request-1"), n_threads);
    ck_assert_msg(fx_screen_has(&f, count), "no \"%s\" on the list", count);
    fx_close(&f);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* On a log of more threads than the list's first rows (3,000 > 1,024), the thread list
 * opens on the count's first rows while the rest is ranked: the title says so, its top
 * row is the thread with the most run time (from threadstats_all, ties to the earlier
 * thread), and when the whole order comes the list is made again with the filter typed
 * meanwhile kept and every match of it (counted from the log's THREAD_LABEL events).
 * The count's worker is held after its first rows (top_hold) so the stage can be seen. */
START_TEST(test_app_thread_list_first_rows)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char dir[] = "/tmp/elog-app.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char path[64], cmd[256];
    snprintf(path, sizeof path, "%s/churn.eventlog", dir);
    snprintf(cmd, sizeof cmd, "'%s' --churn 3000 -o '%s' 2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth --churn failed");
    diag d;
    diag_clear(&d);
    app_fx f;
    f.log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(f.log);
    f.ix = evindex_build(f.log, NULL, &d);
    ck_assert_ptr_nonnull(f.ix);
    app_opts o = { .async_totals = true };
    f.a = app_new(f.ix, path, 100, 30, &o);
    f.s = surface_new(100, 30);
    fx_wait_totals(&f);
    /* A new index (the same log built again) counts again, held after the first rows. */
    evindex *ix2 = evindex_build(f.log, NULL, &d);
    ck_assert_ptr_nonnull(ix2);
    atomic_store(&f.a->top_hold, true);
    app_swap_index(f.a, ix2);
    for (int i = 0; i < 1000 && !atomic_load(&f.a->top_ready); i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    ck_assert(atomic_load(&f.a->top_ready));
    const threadtab *tt = evindex_threads(ix2);
    size_t n = threadtab_count(tt);
    ck_assert_uint_gt(n, 1024);
    fx_keys(&f, "t");
    char want[96];
    snprintf(want, sizeof want, "threads by run time (the first 1024 of %zu; ranking the rest", n);
    ck_assert_msg(fx_screen_has(&f, want), "no \"%s\"", want);
    /* The top row: the most run time. */
    threadstats_row *rows = threadstats_all(ix2);
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (rows[i].run_ns > rows[best].run_ns)
            best = i;
    x_free(rows);
    threadtab_iter it = { 0 };
    threadtab_thread th;
    size_t idx;
    uint32_t best_tid = 0;
    while (threadtab_next(tt, &it, false, &th, &idx))
        if (idx == best)
            best_tid = th.tid;
    ck_assert_uint_ne(best_tid, 0);
    fx_keys(&f, "Enter");
    snprintf(want, sizeof want, "thread %u focused", best_tid);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    /* Back to the list (still the first rows), a filter typed, then the whole order. */
    fx_keys(&f, "Escape t r e q u e s t - 1");
    ck_assert(fx_screen_has(&f, "ranking the rest"));
    atomic_store(&f.a->top_hold, false);
    fx_wait_totals(&f);
    app_draw(f.a, f.s);
    ck_assert(!fx_screen_has(&f, "ranking the rest"));
    ck_assert(fx_screen_has(&f, "filter: request-1"));
    snprintf(want, sizeof want, " %zu/%zu ", fx_labels_with(f.log, "request-1"), n);
    ck_assert_msg(fx_screen_has(&f, want), "no \"%s\" on the list", want);
    fx_close(&f);
    evindex_free(ix2);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(test_app_gc_navigation)
{
    app_fx f;
    fx_open(&f, "fixtures/threaded-n4.eventlog", 120, 40, false);
    fx_keys(&f, "]");
    evindex_gc g0_buf;
    const evindex_gc *g0 = evindex_gc_get(f.ix, 0, &g0_buf);
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, g0->start_ns);
    ck_assert_msg(strstr(app_status(f.a), "GC gen 0") != NULL, "status: %s", app_status(f.a));
    fx_keys(&f, "] ]");
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, evindex_gc_brief_at(f.ix, 2).start_ns);
    fx_keys(&f, "[");
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, evindex_gc_brief_at(f.ix, 1).start_ns);
    /* The detail pane breaks the GC down. */
    ck_assert(fx_screen_has(&f, "Time to stop:"));
    ck_assert(fx_screen_has(&f, "Copied:"));
    /* p lists every GC by pause; Enter jumps to the longest. */
    fx_keys(&f, "p");
    ck_assert(fx_screen_has(&f, "collections by pause"));
    fx_keys(&f, "Enter");
    size_t longest = 0;
    for (size_t i = 1; i < evindex_n_gcs(f.ix); i++) {
        const evindex_gc *a = evindex_gc_get(f.ix, i, &(evindex_gc){ 0 });
        const evindex_gc *b = evindex_gc_get(f.ix, longest, &(evindex_gc){ 0 });
        if (a->end_ns - a->start_ns > b->end_ns - b->start_ns)
            longest = i;
    }
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, evindex_gc_brief_at(f.ix, longest).start_ns);
    ck_assert(!fx_screen_has(&f, "collections by pause"));
    fx_close(&f);
}
END_TEST

START_TEST(test_app_markers_and_search)
{
    app_fx f;
    fx_open(&f, "fixtures/markers.eventlog", 100, 30, false);
    fx_keys(&f, "n");
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, evindex_marker_at(f.ix, 0).time_ns);
    ck_assert_msg(strstr(app_status(f.a), "marker 1/125") != NULL, "%s", app_status(f.a));
    ck_assert_msg(strstr(app_status(f.a), "phase:start") != NULL, "%s", app_status(f.a));
    fx_keys(&f, "n n N");
    ck_assert_uint_eq(app_view(f.a)->cursor_ns, evindex_marker_at(f.ix, 1).time_ns);
    /* Search: matches become what n/N step through; Escape gives n back to markers. */
    fx_keys(&f, "/ h e l p e r - b : t i c k Space 2 Enter");
    ck_assert_msg(strstr(app_status(f.a), "helper-b:tick 2") != NULL, "%s", app_status(f.a));
    uint64_t at = app_view(f.a)->cursor_ns;
    fx_keys(&f, "Escape n");
    ck_assert(app_view(f.a)->cursor_ns > at);
    ck_assert_msg(strstr(app_status(f.a), "marker ") != NULL, "%s", app_status(f.a));
    /* The marker list filters as you type (UTF-8 too) and Enter jumps. */
    fx_keys(&f, "m");
    ck_assert(fx_screen_has(&f, "markers"));
    fx_keys(&f, "λ Enter");
    const uint8_t *p;
    size_t len;
    size_t mi = evindex_marker_first_from(f.ix, app_view(f.a)->cursor_ns);
    ck_assert(mi < evindex_n_markers(f.ix));
    const evindex_msg msg_v = evindex_marker_at(f.ix, mi);
    ck_assert(evindex_msg_text(f.ix, &msg_v, &p, &len));
    bool has_lambda = false;
    for (size_t i = 0; i + 1 < len; i++)
        has_lambda |= p[i] == 0xce && p[i + 1] == 0xbb;
    ck_assert_msg(has_lambda, "jumped to a marker without λ");
    fx_close(&f);
}
END_TEST

START_TEST(test_app_zoom_and_select)
{
    app_fx f;
    fx_open(&f, "fixtures/demo.eventlog", 120, 40, false);
    timeview *v = app_view(f.a);
    uint64_t span = v->t1_ns - v->t0_ns;
    fx_keys(&f, "+");
    ck_assert(v->t1_ns - v->t0_ns < span * 6 / 10 && v->t1_ns - v->t0_ns > span * 4 / 10);
    fx_keys(&f, "- 0");
    ck_assert_uint_eq(v->t1_ns - v->t0_ns, span);
    /* A selection over the first GC's neighbourhood shows range statistics. */
    fx_keys(&f, "] Space > > > > Space");
    ck_assert(!v->sel.active && timeview_has_selection(v));
    ck_assert(fx_screen_has(&f, "Collections"));
    fx_keys(&f, "z");
    ck_assert(v->t1_ns - v->t0_ns < span);
    fx_keys(&f, "Escape");
    ck_assert(!timeview_has_selection(v));
    /* Events pane and help open and close. */
    fx_keys(&f, "e");
    ck_assert(fx_screen_has(&f, "events near"));
    fx_keys(&f, "e ?");
    ck_assert(fx_screen_has(&f, "zoom in 2x"));
    fx_keys(&f, "Escape t");
    ck_assert(fx_screen_has(&f, "threads by run time"));
    fx_keys(&f, "Enter");
    ck_assert_msg(strstr(app_status(f.a), " focused: ") != NULL, "%s",
                  app_status(f.a));
    fx_keys(&f, "q");
    ck_assert(app_quit_requested(f.a));
    fx_close(&f);
}
END_TEST

/* A search over more messages than one thread reads (APP_SEARCH_SPLIT, 65,536) is
 * shared by two, in units; its matches must be exactly the brute-force ones, in time
 * order, with units' seams inside a run of matches and a thread label among them. */
START_TEST(test_app_search_split)
{
    enum { N = 70001 };
    char *bytes = NULL;
    size_t len = 0;
    FILE *fp;
    evwrite *w = fx_writer(&fp, &bytes, &len);
    ck_assert_int_eq(evwrite_create_thread(w, 0, 500, 7), EVWRITE_OK);
    ck_assert_int_eq(evwrite_thread_label(w, 0, 600, 7, "Needle-thread"), EVWRITE_OK);
    size_t want = 0;
    for (size_t i = 0; i < N; i++) {
        char text[48];
        /* every 97th, and every one around the middle, where the halves meet */
        bool hit = i % 97 == 0 || (i > N / 2 - 300 && i < N / 2 + 300);
        snprintf(text, sizeof text, "%s %zu", hit ? (i % 2 ? "a nEEdle" : "NEEDLE") : "hay", i);
        want += hit;
        uint16_t cap = (uint16_t)(i % 2);
        uint64_t t = 1000 + (uint64_t)i * 10;
        ck_assert_int_eq(i % 3 ? evwrite_user_msg(w, cap, t, text)
                               : evwrite_user_marker(w, cap, t, text), EVWRITE_OK);
    }
    app_fx f;
    fx_open_written(&f, w, fp, &bytes, &len, "split.eventlog");
    ck_assert_uint_eq(evindex_n_msgs(f.ix), N);
    fx_keys(&f, "/ n e e d l e Enter");
    /* Brute force: every message's text, in index (time) order, and the label. */
    ck_assert_uint_eq(f.a->n_matches, want + 1);
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        evindex_msg m;
        ck_assert_uint_eq(evindex_msgs_at(f.ix, i, 1, &m), 1);
        const uint8_t *p;
        size_t n;
        ck_assert(evindex_msg_text(f.ix, &m, &p, &n));
        char text[64];
        snprintf(text, sizeof text, "%.*s", (int)n, (const char *)p);
        for (char *c = text; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (!strstr(text, "needle"))
            continue;
        if (k == 0) {           /* the label, created before every message */
            ck_assert(f.a->matches[k].is_thread);
            ck_assert_uint_eq(f.a->matches[k].time_ns, 500);
            k++;
        }
        ck_assert_msg(!f.a->matches[k].is_thread && f.a->matches[k].index == i &&
                      f.a->matches[k].time_ns == m.time_ns,
                      "match %zu: index %zu, want message %zu", k,
                      (size_t)f.a->matches[k].index, i);
        k++;
    }
    ck_assert_uint_eq(k, want + 1);
    char msg[64];
    snprintf(msg, sizeof msg, "/%zu at ", want + 1);     /* "match K/N at T: text" */
    ck_assert_msg(strstr(app_status(f.a), msg) != NULL, "%s", app_status(f.a));
    fx_close(&f);
    free(bytes);
}
END_TEST

/* A search's thread events, written in time order on their own capability. */
typedef struct fx_thread_ev {
    uint64_t time_ns;
    int kind;                   /* 0 create, 1 label, 2 run, 3 stop */
    uint32_t tid;
} fx_thread_ev;

static int
fx_thread_ev_cmp(const void *x, const void *y)
{
    const fx_thread_ev *p = x, *q = y;
    if (p->time_ns != q->time_ns)
        return p->time_ns < q->time_ns ? -1 : 1;
    return p->kind != q->kind ? p->kind - q->kind : (p->tid > q->tid) - (p->tid < q->tid);
}

/* A match as the brute force below wants it; ordered by time, a message before a thread
 * at the same time. */
static int
fx_match_cmp(const void *x, const void *y)
{
    const app_match *p = x, *q = y;
    if (p->time_ns != q->time_ns)
        return p->time_ns < q->time_ns ? -1 : 1;
    if (p->is_thread != q->is_thread)
        return p->is_thread ? 1 : -1;
    return (p->index > q->index) - (p->index < q->index);
}

/* A search over many messages and more thread ids than one unit of work holds, shared
 * by two threads: exactly the brute-force matches in time order, the thread labels
 * among the messages (threads created out of id order; some never created: found at
 * their first run, or at the log's start). */
START_TEST(test_app_search_threads)
{
    enum { N_MSGS = 46000, N_THREADS = 20000 };
    char *bytes = NULL;
    size_t len = 0;
    FILE *fp;
    evwrite *w = fx_writer(&fp, &bytes, &len);
    app_match *want = xcalloc(N_MSGS + N_THREADS, sizeof *want);    /* freed below */
    fx_thread_ev *ev = xcalloc(3 * N_THREADS, sizeof *ev);          /* freed below */
    size_t n_want = 0, n_ev = 0;
    for (uint32_t tid = 1; tid <= N_THREADS; tid++) {
        uint64_t create = tid % 2 ? 500 + 25 * (uint64_t)tid
                                  : 500 + 25 * (uint64_t)(N_THREADS - tid) + 13;
        bool labelled = tid % 3 == 0, hit = labelled && tid % 7 == 0;
        bool run_only = labelled && tid % 11 == 5;     /* never created: found at its run */
        uint64_t run = 700 + 25 * (uint64_t)tid + 7;
        if (tid == 42) {                /* neither created nor run: the log's start */
            ev[n_ev++] = (fx_thread_ev){ 600, 1, tid };
        } else if (run_only) {
            ev[n_ev++] = (fx_thread_ev){ run - 1, 1, tid };
            ev[n_ev++] = (fx_thread_ev){ run, 2, tid };
            ev[n_ev++] = (fx_thread_ev){ run + 2, 3, tid };
        } else {
            ev[n_ev++] = (fx_thread_ev){ create, 0, tid };
            if (labelled)
                ev[n_ev++] = (fx_thread_ev){ create + 1, 1, tid };
        }
        if (hit && tid != 42)
            want[n_want++] = (app_match){ run_only ? run : create, tid, true };
    }
    qsort(ev, n_ev, sizeof *ev, fx_thread_ev_cmp);
    for (size_t i = 0; i < n_ev; i++) {
        char label[32];
        uint32_t tid = ev[i].tid;
        snprintf(label, sizeof label, tid % 7 ? "worker %u" : tid % 2 ? "NeEdle %u" : "a needle",
                 tid);
        int st = ev[i].kind == 0   ? evwrite_create_thread(w, 2, ev[i].time_ns, tid)
                 : ev[i].kind == 1 ? evwrite_thread_label(w, 2, ev[i].time_ns, tid, label)
                 : ev[i].kind == 2 ? evwrite_run_thread(w, 2, ev[i].time_ns, tid)
                                   : evwrite_stop_thread(w, 2, ev[i].time_ns, tid, 5, 0);
        if (st != EVWRITE_OK)
            ck_abort_msg("thread event %zu: %d", i, st);
    }
    for (size_t i = 0; i < N_MSGS; i++) {
        char text[48];
        bool hit = i % 13 == 0;
        snprintf(text, sizeof text, "%s %zu", hit ? "NEEDLE" : "hay", i);
        uint64_t t = 1000 + (uint64_t)i * 10;
        if ((i % 3 ? evwrite_user_msg(w, (uint16_t)(i % 2), t, text)
                   : evwrite_user_marker(w, (uint16_t)(i % 2), t, text)) != EVWRITE_OK)
            ck_abort_msg("message %zu", i);
        if (hit)
            want[n_want++] = (app_match){ t, i, false };
    }
    app_fx f;
    fx_open_written(&f, w, fp, &bytes, &len, "threads.eventlog");
    ck_assert_uint_eq(evindex_n_msgs(f.ix), N_MSGS);
    ck_assert_uint_eq(threadtab_count(evindex_threads(f.ix)), N_THREADS);
    want[n_want++] = (app_match){ f.a->v.log_start_ns, 42, true };
    qsort(want, n_want, sizeof *want, fx_match_cmp);
    fx_keys(&f, "/ n e e d l e Enter");
    ck_assert_uint_eq(f.a->n_matches, n_want);
    for (size_t k = 0; k < n_want; k++) {
        const app_match *m = &f.a->matches[k];
        if (m->is_thread != want[k].is_thread || m->index != want[k].index ||
            m->time_ns != want[k].time_ns)
            ck_abort_msg("match %zu: %s %zu at %llu, want %s %zu at %llu", k,
                         m->is_thread ? "thread" : "message", (size_t)m->index,
                         (unsigned long long)m->time_ns,
                         want[k].is_thread ? "thread" : "message", (size_t)want[k].index,
                         (unsigned long long)want[k].time_ns);
    }
    fx_close(&f);
    free(bytes);
    x_free(want);
    x_free(ev);
}
END_TEST

/* The GC list opened, then the viewer given another index (a log grown or read again)
 * with more collections: the list opened again ranks the new collections (the longest
 * pause first) and its histogram counts them, not the first index's. */
START_TEST(test_app_gc_list_new_index)
{
    app_fx f;
    fx_open(&f, "fixtures/sparks.eventlog", 100, 40, true);
    fx_keys(&f, "p Escape");
    evlog *log1 = f.log;
    evindex *ix1 = f.ix;
    f.log = test_open_log("fixtures/memreturn.eventlog");
    diag d;
    f.ix = evindex_build(f.log, NULL, &d);
    ck_assert_ptr_nonnull(f.ix);
    size_t n = evindex_n_gcs(f.ix), best = 0;
    ck_assert_uint_gt(n, 2 * evindex_n_gcs(ix1));
    app_swap_index(f.a, f.ix);
    fx_keys(&f, "p");
    uint64_t best_pause = 0;
    for (size_t i = 0; i < n; i++) {
        evindex_gc_brief g = evindex_gc_brief_at(f.ix, i);
        if (g.end_ns - g.start_ns > best_pause) {
            best_pause = g.end_ns - g.start_ns;
            best = i;
        }
    }
    uint64_t sel;
    ck_assert(uilist_selected(f.a->list, &sel));
    ck_assert_uint_eq(sel, best);
    pausehist h;
    pausehist_from_index(&h, f.ix, 0, UINT64_MAX);
    char want[32];
    snprintf(want, sizeof want, " %-4u %6llu", 0u, (unsigned long long)h.gens[0].n);
    ck_assert_msg(fx_screen_has(&f, want), "no \"%s\"", want);
    fx_close(&f);
    evindex_free(ix1);
    evlog_close(log1);
}
END_TEST

/* Markers close together on a log starting late: each `n` names its marker's time on the
 * log's clock, rounded (half up), with as many digits as tell it from its neighbours —
 * 63.981 ms is "63.981ms", not "0.063s" nor the time since the first event; markers 1 us
 * and 1 ns apart differ; the m list shows the same times. */
START_TEST(test_app_marker_times)
{
    static const uint64_t at[] = { 63981000, 63982000, 63982001, 68981499 };
    static const char *const want[] = { "63.981ms", "63.982000ms", "63.982001ms", "68.981ms" };
    char *bytes = NULL;
    size_t len = 0;
    FILE *fp;
    evwrite *w = fx_writer(&fp, &bytes, &len);
    ck_assert_int_eq(evwrite_user_msg(w, 0, 60000000, "start"), EVWRITE_OK);
    for (size_t i = 0; i < 4; i++) {
        char name[16];
        snprintf(name, sizeof name, "m%zu", i);
        ck_assert_int_eq(evwrite_user_marker(w, 0, at[i], name), EVWRITE_OK);
    }
    ck_assert_int_eq(evwrite_user_msg(w, 0, 70000000, "end"), EVWRITE_OK);
    app_fx f;
    fx_open_written(&f, w, fp, &bytes, &len, "late.eventlog");
    ck_assert_uint_eq(evindex_first_ns(f.ix), 60000000);
    for (size_t i = 0; i < 4; i++) {
        fx_keys(&f, "n");
        ck_assert_uint_eq(app_view(f.a)->cursor_ns, at[i]);
        char msg[64];
        snprintf(msg, sizeof msg, "marker %zu/4 at %s: m%zu", i + 1, want[i], i);
        ck_assert_msg(strstr(app_status(f.a), msg) != NULL, "status \"%s\", want \"%s\"",
                      app_status(f.a), msg);
        uint64_t back = 0;
        ck_assert(timefmt_parse(want[i], &back));
        ck_assert_uint_le((back > at[i] ? back - at[i] : at[i] - back) * 2, 1000);
    }
    /* Without a message the status line names the cursor's time the same way. */
    fx_keys(&f, "Down");
    ck_assert_msg(strstr(app_status(f.a), " \xc2\xb7 68.981ms \xc2\xb7 marker: m3") != NULL,
                  "status \"%s\"", app_status(f.a));
    fx_keys(&f, "m");
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(fx_screen_has(&f, want[i]), "the marker list lacks %s", want[i]);
    fx_close(&f);
    free(bytes);
}
END_TEST

/* Every size from nothing up, with every pane: never a crash, nothing outside. */
START_TEST(test_app_tiny_sizes)
{
    app_fx f;
    fx_open(&f, "fixtures/threaded-n2.eventlog", 80, 24, false);
    static const char *const modes[] = { "", "e", "?", "p", "m", "/" };
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        fx_keys(&f, "Escape");
        if (modes[m][0])
            fx_keys(&f, modes[m]);
        for (int w = 0; w <= 12; w++)
            for (int h = 0; h <= 8; h++) {
                app_resize(f.a, w, h);
                app_draw(f.a, f.s);
                ck_assert(surface_cols(f.s) <= 12 && surface_lines(f.s) <= 8);
            }
    }
    fx_keys(&f, "Escape Escape");
    app_resize(f.a, 80, 24);
    app_draw(f.a, f.s);
    ck_assert(fx_screen_has(&f, "HEC 1"));
    fx_close(&f);
}
END_TEST

/* --ascii: not one byte outside ASCII anywhere on the screen, in any mode. */
START_TEST(test_app_ascii_only)
{
    app_fx f;
    fx_open(&f, "fixtures/markers.eventlog", 100, 30, true);
    static const char *const keys[] = { "", "n", "e", "? Escape", "m", "Escape p", "Escape t",
                                        "Escape ] Space > >" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        fx_keys(&f, keys[k]);
        for (int y = 0; y < surface_lines(f.s); y++)
            for (int x = 0; x < surface_cols(f.s); x++)
                ck_assert_msg(surface_get(f.s, x, y).cp < 128,
                              "non-ASCII U+%04X at %d,%d after \"%s\"",
                              surface_get(f.s, x, y).cp, x, y, keys[k]);
    }
    fx_close(&f);
}
END_TEST

/* The frame through the tickit mock terminal: lane labels as text, GC cells with the
 * GC pen, the status line's pen. */
START_TEST(test_app_mock_terminal)
{
    app_fx f;
    fx_open(&f, "fixtures/threaded-n4.eventlog", 100, 30, false);
    termio_opts o = termio_default_opts();
    o.force_theme = true;
    o.theme = THEME_256;
    termio *t = termio_open_mock(100, 30, &o);
    TickitMockTerm *mt = termio_mock_term(t);
    termio_present(t, f.s);
    /* Find the HEC 0 row and its GC row on the screen. */
    int hec_line = -1;
    char buf[128];
    for (int y = 0; y < 30 && hec_line < 0; y++) {
        tickit_mockterm_get_display_text(mt, buf, sizeof buf - 1, y, 0, 8);
        if (strncmp(buf, "HEC 0", 5) == 0)
            hec_line = y;
    }
    ck_assert_int_ge(hec_line, 0);
    tickit_mockterm_get_display_text(mt, buf, sizeof buf - 1, hec_line + 1, 0, 8);
    ck_assert_msg(strstr(buf, "gc") != NULL, "no GC row under HEC 0: \"%s\"", buf);
    int gc_cells = 0;
    theme_look work = theme_get(THEME_256, STYLE_GC_WORK);
    theme_look wait = theme_get(THEME_256, STYLE_GC_WAIT);
    for (int x = 9; x < 100; x++) {
        surface_cell c = surface_get(f.s, x, hec_line + 1);
        if (c.style != STYLE_GC_WORK && c.style != STYLE_GC_WAIT)
            continue;
        TickitPen *pen = tickit_mockterm_get_display_pen(mt, hec_line + 1, x);
        int fg = tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG);
        ck_assert_int_eq(fg, c.style == STYLE_GC_WORK ? work.fg : wait.fg);
        gc_cells++;
    }
    ck_assert_int_gt(gc_cells, 10);
    TickitPen *st = tickit_mockterm_get_display_pen(mt, 29, 0);
    ck_assert_int_eq(tickit_pen_get_colour_attr(st, TICKIT_PEN_BG),
                     theme_get(THEME_256, STYLE_STATUS).bg);
    /* A pan sends only what changed, less than the whole screen. */
    fx_keys(&f, "l");
    termio_present(t, f.s);
    ck_assert_uint_lt(termio_cells_sent(t), 100 * 30);
    termio_free(t);
    fx_close(&f);
}
END_TEST

/* Characters (UTF-8 sequences) in [from, to). */
static int
fx_cols_between(const char *from, const char *to)
{
    int n = 0;
    for (const char *p = from; p < to; p++)
        n += ((unsigned char)*p & 0xc0) != 0x80;
    return n;
}

/* The times of the first two `marker:` lines of a fixture's ghc-events dump. */
static void
fx_dump_markers(const char *fixture, uint64_t *m1, uint64_t *m2)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s.ref017", fixture);
    char *path = test_path(rel);
    size_t len = 0;
    char *dump = (char *)test_read_file(path, &len);
    ck_assert_ptr_nonnull(dump);
    uint64_t *out[2] = { m1, m2 };
    int n = 0;
    for (char *line = dump; n < 2 && line && line < dump + len;) {
        char *nl = memchr(line, '\n', (size_t)(dump + len - line));
        if (nl)
            *nl = '\0';
        if (strstr(line, ": marker: "))
            *out[n++] = strtoull(line, NULL, 10);
        line = nl ? nl + 1 : NULL;
    }
    ck_assert_int_eq(n, 2);
    free(dump);
    free(path);
}

/* Space on a marker, n, Space: the range is exactly the two markers' time difference as
 * the dump gives them — not widened to the edges of their columns (3.15 ms each at 80
 * columns: the first two markers share none, and the old range was 6.3 ms). */
START_TEST(test_app_exact_selection)
{
    uint64_t m1 = 0, m2 = 0;
    fx_dump_markers("fixtures/threaded-n4.eventlog", &m1, &m2);
    app_fx f;
    fx_open(&f, "fixtures/threaded-n4.eventlog", 80, 24, false);
    fx_keys(&f, "n Space n Space");
    timeview *v = app_view(f.a);
    ck_assert(!v->sel.active);
    ck_assert_uint_eq(v->sel.a_ns, m1);
    ck_assert_uint_eq(v->sel.b_ns, m2);
    ck_assert_uint_eq(v->cursor_ns, m2);
    /* The pane's range line gives it to the nanosecond. */
    char want[128];
    strbuf sb;
    strbuf_init(&sb);
    timefmt_append_res(&sb, m2 - m1, 1);
    snprintf(want, sizeof want, "(%s)", sb.data);
    strbuf_free(&sb);
    ck_assert_msg(fx_screen_has(&f, want), "no %s in the range line", want);
    /* Backwards too, from a GC's start (]) to the marker before it. */
    fx_keys(&f, "Escape ] Space N Space");
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(f.ix, evindex_gc_first_from(f.ix, m2 + 1), &g_buf);
    ck_assert_uint_eq(v->sel.b_ns, g->start_ns);
    ck_assert_uint_eq(v->sel.a_ns, m2);
    fx_close(&f);
}
END_TEST

/* `/` opens the search from the focused event pane (it used to do nothing, and what was
 * typed then ran as commands: the 'e' of "helper" closed the pane); Enter goes back to
 * the pane, on the match; n steps from there. */
START_TEST(test_app_search_from_pane)
{
    app_fx f;
    fx_open(&f, "fixtures/markers.eventlog", 100, 30, false);
    fx_keys(&f, "e Tab / h e l p e r - b : t i c k");
    ck_assert_msg(strcmp(app_status(f.a), "/helper-b:tick") == 0, "status: %s", app_status(f.a));
    fx_keys(&f, "Enter");
    ck_assert_msg(strstr(app_status(f.a), "helper-b:tick 1") != NULL, "status: %s",
                  app_status(f.a));
    ck_assert(fx_screen_has(&f, "events near"));
    ck_assert(!app_quit_requested(f.a));
    uint64_t at = app_view(f.a)->cursor_ns;
    fx_keys(&f, "n");
    ck_assert(app_view(f.a)->cursor_ns > at);
    ck_assert_msg(strstr(app_status(f.a), "helper-b:tick 2") != NULL, "status: %s",
                  app_status(f.a));
    /* Still the pane's keys: j moves its selection, not the lane. */
    fx_keys(&f, "Escape /");
    ck_assert_str_eq(app_status(f.a), "/");
    fx_keys(&f, "Escape q");
    ck_assert(app_quit_requested(f.a));
    fx_close(&f);
}
END_TEST

/* At 30x8 the four HECs do not fit: a row says how many lanes are hidden and which, Down
 * scrolls the lanes with the selected one down to HEC 3, and then the row counts those
 * above. */
START_TEST(test_app_small_lanes_scroll)
{
    app_fx f;
    fx_open(&f, "fixtures/threaded-n4.eventlog", 30, 8, false);
    ck_assert(fx_screen_has(&f, "HEC 1"));
    ck_assert(!fx_screen_has(&f, "HEC 3 "));
    ck_assert_msg(fx_screen_has(&f, "\u2193 4 more: HEC 2, HEC 3,"), "no count of hidden lanes");
    fx_keys(&f, "Down Down Down");
    ck_assert(fx_screen_has(&f, "HEC 3 "));
    ck_assert(fx_screen_has(&f, "\u2191 2 more"));
    ck_assert(fx_screen_has(&f, "\u2193 2 more: markers,"));
    /* Every lane reached, then back up: none is left out. */
    fx_keys(&f, "Down Down");
    ck_assert(fx_screen_has(&f, "heap "));
    ck_assert(!fx_screen_has(&f, "\u2193"));
    fx_keys(&f, "Up Up Up Up Up Up");
    ck_assert(fx_screen_has(&f, "activity"));
    ck_assert(!fx_screen_has(&f, "\u2191"));
    /* Tall enough, no such row. */
    app_resize(f.a, 100, 40);
    app_draw(f.a, f.s);
    ck_assert(!fx_screen_has(&f, " more"));
    fx_close(&f);
}
END_TEST

/* A status line cut at the screen's width ends with an ellipsis, "..." in ASCII. */
START_TEST(test_app_status_ellipsis)
{
    for (int ascii = 0; ascii <= 1; ascii++) {
        app_fx f;
        fx_open(&f, "fixtures/threaded-n4.eventlog", 30, 8, ascii);
        fx_keys(&f, "]");
        ck_assert_int_gt((int)strlen(app_status(f.a)), 30);
        if (ascii) {
            for (int x = 27; x < 30; x++)
                ck_assert_uint_eq(surface_get(f.s, x, 7).cp, '.');
        } else {
            ck_assert_uint_eq(surface_get(f.s, 29, 7).cp, 0x2026);
        }
        /* A status that fits is not cut. */
        app_resize(f.a, 200, 8);
        app_draw(f.a, f.s);
        ck_assert_uint_ne(surface_get(f.s, 199, 7).cp, ascii ? '.' : 0x2026);
        ck_assert_uint_ne(surface_get(f.s, (int)strlen(app_status(f.a)) - 1, 7).cp, 0x2026);
        fx_close(&f);
    }
}
END_TEST

/* The `p` list gives bytes copied as the detail pane does (binary units), right-aligned:
 * the longest pause copied 1412448 bytes (the dump's GC stats after it), 1.3 MiB. */
START_TEST(test_app_gc_list_bytes)
{
    app_fx f;
    fx_open(&f, "fixtures/threaded-n4.eventlog", 100, 30, false);
    fx_keys(&f, "p");
    ck_assert(fx_screen_has(&f, "collections by pause"));
    ck_assert(!fx_screen_has(&f, "1412448"));
    char *dump = surface_dump(f.s);
    const char *row = strstr(dump, "5.058ms ");
    ck_assert_ptr_nonnull(row);
    const char *hdr = strstr(dump, "copied");
    ck_assert_ptr_nonnull(hdr);
    /* "1.3 MiB" ends in the header's column. */
    const char *line_start = row;
    while (line_start > dump && line_start[-1] != '\n')
        line_start--;
    const char *hdr_start = hdr;
    while (hdr_start > dump && hdr_start[-1] != '\n')
        hdr_start--;
    const char *bytes = strstr(row, "1.3 MiB");
    ck_assert_ptr_nonnull(bytes);
    ck_assert_int_eq(fx_cols_between(line_start, bytes + 7),
                     fx_cols_between(hdr_start, hdr + 6));
    free(dump);
    fx_close(&f);
}
END_TEST

/* A mouse drag selects from where the button went down to where it came up, and leaves
 * the cursor there, as an editor does; dragging back left works the same. */
START_TEST(test_app_mouse_drag)
{
    app_fx f;
    app_opts o = { .mouse = true };
    fx_open_opts(&f, "fixtures/threaded-n4.eventlog", 100, 30, &o);
    timeview *v = app_view(f.a);
    int line = 5;                               /* a lane row */
    termio_event ev = { .kind = TERMIO_EV_MOUSE, .button = 1, .line = line };
    ev.action = TERMIO_MOUSE_PRESS;
    ev.col = LANES_LABEL_COLS + 10;
    app_mouse(f.a, &ev);
    ev.action = TERMIO_MOUSE_DRAG;
    for (int c = 11; c <= 30; c++) {
        ev.col = LANES_LABEL_COLS + c;
        app_mouse(f.a, &ev);
    }
    ev.action = TERMIO_MOUSE_RELEASE;
    app_mouse(f.a, &ev);
    app_draw(f.a, f.s);
    ck_assert(!v->sel.active);
    ck_assert_uint_eq(v->sel.a_ns, timeview_hit_test(v, 10));
    ck_assert_uint_eq(v->sel.b_ns, timeview_hit_test(v, 30));
    ck_assert_uint_eq(v->cursor_ns, timeview_hit_test(v, 30));
    ck_assert_int_eq(timeview_col_of(v, v->cursor_ns), 30);
    /* Right to left: the cursor ends on the left. */
    ev.action = TERMIO_MOUSE_PRESS;
    ev.col = LANES_LABEL_COLS + 40;
    app_mouse(f.a, &ev);
    ev.action = TERMIO_MOUSE_DRAG;
    ev.col = LANES_LABEL_COLS + 20;
    app_mouse(f.a, &ev);
    ev.action = TERMIO_MOUSE_RELEASE;
    app_mouse(f.a, &ev);
    ck_assert_uint_eq(v->cursor_ns, timeview_hit_test(v, 20));
    ck_assert_uint_eq(v->sel.a_ns, timeview_hit_test(v, 20));
    ck_assert_uint_eq(v->sel.b_ns, timeview_hit_test(v, 40));
    /* A click alone moves the cursor and leaves the selection be. */
    ev.action = TERMIO_MOUSE_PRESS;
    ev.col = LANES_LABEL_COLS + 50;
    app_mouse(f.a, &ev);
    ev.action = TERMIO_MOUSE_RELEASE;
    app_mouse(f.a, &ev);
    ck_assert_uint_eq(v->cursor_ns, timeview_hit_test(v, 50));
    ck_assert_uint_eq(v->sel.b_ns, timeview_hit_test(v, 40));
    ck_assert_ptr_null(timeview_check(v));
    fx_close(&f);
}
END_TEST

Suite *
test_app_suite(void)
{
    Suite *s = suite_create("app");
    TCase *tc = tcase_create("viewer");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_app_gc_navigation);
    tcase_add_test(tc, test_app_async_totals);
    tcase_add_test(tc, test_app_rows_when_asked);
    tcase_add_test(tc, test_app_async_bins);
    tcase_add_test(tc, test_app_thread_list_churn);
    tcase_add_test(tc, test_app_thread_list_first_rows);
    tcase_add_test(tc, test_app_markers_and_search);
    tcase_add_test(tc, test_app_marker_times);
    tcase_add_test(tc, test_app_zoom_and_select);
    tcase_add_test(tc, test_app_tiny_sizes);
    tcase_add_test(tc, test_app_ascii_only);
    tcase_add_test(tc, test_app_mock_terminal);
    tcase_add_test(tc, test_app_exact_selection);
    tcase_add_test(tc, test_app_search_from_pane);
    tcase_add_test(tc, test_app_search_split);
    tcase_add_test(tc, test_app_search_threads);
    tcase_add_test(tc, test_app_gc_list_new_index);
    tcase_add_test(tc, test_app_small_lanes_scroll);
    tcase_add_test(tc, test_app_status_ellipsis);
    tcase_add_test(tc, test_app_gc_list_bytes);
    tcase_add_test(tc, test_app_mouse_drag);
    suite_add_tcase(s, tc);
    return s;
}
