/* tests/test_detail: the detail pane and status text — every collection of threaded-n4
 * against the golden `elog-tui gc` table, stop reasons with their blocked-on field, open
 * runs, labels and message text with invalid UTF-8, wrapping of long markers, the range
 * statistics against the RTS's own numbers, and lane values at the cursor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detail.h"
#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "gcstats.h"
#include "lanes.h"
#include "merge.h"
#include "tests.h"
#include "timefmt.h"
#include "xalloc.h"

#define EW(call) ck_assert_int_eq((call), EVWRITE_OK)

/* ---- logs ------------------------------------------------------------------------------- */

typedef struct td_case {
    char *bytes;                /* open_memstream's buffer (free()), NULL for a file */
    size_t len;
    FILE *f;
    evlog *log;
    evindex *ix;
    lane lanes[32];
    size_t n_lanes;
} td_case;

static evwrite *
td_writer(td_case *c)
{
    memset(c, 0, sizeof *c);
    c->f = open_memstream(&c->bytes, &c->len);
    ck_assert_ptr_nonnull(c->f);
    evwrite *w = evwrite_new(c->f);
    EW(evwrite_declare_ghc(w));
    EW(evwrite_begin_data(w));
    return w;
}

static void
td_index(td_case *c)
{
    diag ending;
    c->ix = evindex_build(c->log, NULL, &ending);
    ck_assert_ptr_nonnull(c->ix);
    c->n_lanes = lanes_build(c->ix, c->lanes, sizeof c->lanes / sizeof c->lanes[0]);
}

/* Finish (or truncate, dropping the last event's end) and index. */
static void
td_open(td_case *c, evwrite *w, bool truncate)
{
    if (truncate)
        EW(evwrite_finish_truncated(w, SIZE_MAX));
    else
        EW(evwrite_finish(w));
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(c->f), 0);
    diag d;
    c->log = evlog_open_bytes((const uint8_t *)c->bytes, c->len, &d);
    ck_assert_msg(c->log != NULL, "evlog_open_bytes: %s", d.msg);
    td_index(c);
}

static void
td_fixture(td_case *c, const char *name)
{
    memset(c, 0, sizeof *c);
    char rel[128];
    snprintf(rel, sizeof rel, "fixtures/%s", name);
    c->log = test_open_log(rel);
    td_index(c);
}

static void
td_close(td_case *c)
{
    evindex_free(c->ix);
    evlog_close(c->log);
    free(c->bytes);
}

static const lane *
td_lane(const td_case *c, const char *label)
{
    for (size_t i = 0; i < c->n_lanes; i++)
        if (strcmp(c->lanes[i].label, label) == 0)
            return &c->lanes[i];
    ck_abort_msg("no lane %s", label);
    return NULL;
}

/* Index of the line equal to `want`, or SIZE_MAX. */
static size_t
td_find(const detail_lines *d, const char *want)
{
    for (size_t i = 0; i < d->n; i++)
        if (strcmp(d->lines[i], want) == 0)
            return i;
    return SIZE_MAX;
}

static void
td_assert_line(const detail_lines *d, const char *want)
{
    if (td_find(d, want) != SIZE_MAX)
        return;
    strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < d->n; i++)
        strbuf_printf(&sb, "  | %s\n", d->lines[i]);
    ck_abort_msg("no line \"%s\" in:\n%s", want, sb.data);
    strbuf_free(&sb);
}

/* Index of the first line starting with `prefix`, or SIZE_MAX. */
static size_t
td_find_prefix(const detail_lines *d, const char *prefix)
{
    for (size_t i = 0; i < d->n; i++)
        if (strncmp(d->lines[i], prefix, strlen(prefix)) == 0)
            return i;
    return SIZE_MAX;
}

/* A duration as timefmt writes it (static buffer: one use per expression). */
static const char *
td_dur(uint64_t ns, char *buf, size_t len)
{
    strbuf sb;
    strbuf_init(&sb);
    timefmt_append(&sb, ns);
    snprintf(buf, len, "%s", sb.data);
    strbuf_free(&sb);
    return buf;
}

/* No line holds a control character, and every line is valid UTF-8. */
static void
td_assert_clean(const detail_lines *d)
{
    for (size_t i = 0; i < d->n; i++) {
        const unsigned char *p = (const unsigned char *)d->lines[i];
        for (size_t k = 0; p[k]; k++)
            ck_assert_msg(p[k] >= 0x20 && p[k] != 0x7f, "control byte in line %zu: %s", i,
                          d->lines[i]);
    }
}

/* ---- lines and formats ------------------------------------------------------------------ */

START_TEST(test_detail_lines_basics)
{
    detail_lines d;
    detail_lines_init(&d);
    ck_assert_uint_eq(d.n, 0);
    detail_lines_free(&d);                      /* empty: fine */
    for (int i = 0; i < 100; i++)
        detail_lines_add(&d, "Line: %d", i);
    ck_assert_uint_eq(d.n, 100);
    ck_assert_str_eq(d.lines[42], "Line: 42");
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    detail_lines_add(&d, "Big: %s", big);
    ck_assert_uint_eq(strlen(d.lines[100]), 5 + sizeof big - 1);
    detail_lines_add(&d, "%s", "");
    ck_assert_str_eq(d.lines[101], "");
    detail_lines_free(&d);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_ptr_null(d.lines);
    detail_lines_add(&d, "Again: %s", "yes");   /* reusable after free */
    ck_assert_str_eq(d.lines[0], "Again: yes");
    detail_lines_free(&d);
}
END_TEST

START_TEST(test_detail_formats)
{
    strbuf sb;
    strbuf_init(&sb);
    detail_bytes(&sb, 999);
    ck_assert_str_eq(sb.data, "999 B");
    strbuf_reset(&sb);
    detail_bytes(&sb, 1536);
    ck_assert_str_eq(sb.data, "1.5 KiB");
    strbuf_reset(&sb);
    detail_bytes(&sb, 347958016);
    ck_assert_str_eq(sb.data, "331.8 MiB");
    strbuf_reset(&sb);
    detail_bytes(&sb, UINT64_MAX);
    ck_assert_str_eq(sb.data, "16.0 EiB");

    td_case c;
    evwrite *w = td_writer(&c);
    EW(evwrite_user_marker(w, 0, 1000, "a"));
    EW(evwrite_user_marker(w, 0, 1234568789, "b"));
    td_open(&c, w, false);
    /* Item times: never coarser than 1 us, finer as the neighbours come closer. */
    ck_assert_uint_eq(detail_marker_res(c.ix, 0), 1000);
    ck_assert_uint_eq(detail_marker_res(c.ix, 1), 1000);
    ck_assert_uint_eq(detail_marker_res(c.ix, 2), 1000);         /* no such marker */
    ck_assert_uint_eq(detail_res_near(5000, UINT64_MAX, UINT64_MAX), 1000);
    ck_assert_uint_eq(detail_res_near(5000, 4990, UINT64_MAX), 10);
    ck_assert_uint_eq(detail_res_near(5000, 4000, 5350), 100);
    ck_assert_uint_eq(detail_res_near(5000, UINT64_MAX, 5000), 1);  /* equal times */
    ck_assert_uint_eq(detail_res_near(5000, 3000, 9000), 1000);
    strbuf_free(&sb);
    td_close(&c);
}
END_TEST

/* ---- collections ------------------------------------------------------------------------ */

/* Every row of the golden `elog-tui gc` table of threaded-n4 (fixtures/threaded-n4.gc.tsv)
 * appears in the detail of the matching collection: pause, generation, sync with the
 * slowest HEC, the requesting HEC, and each listed HEC's work and idle time. */
START_TEST(test_detail_gc_golden)
{
    td_case c;
    td_fixture(&c, "threaded-n4.eventlog");
    char *path = test_path("fixtures/threaded-n4.gc.tsv");
    size_t len;
    char *tsv = (char *)test_read_file(path, &len);
    ck_assert_ptr_nonnull(tsv);
    x_free(path);
    const lane *act = td_lane(&c, "activity"), *hec0 = td_lane(&c, "HEC 0");
    size_t row = 0;
    char *save = NULL;
    char *line = strtok_r(tsv, "\n", &save);
    ck_assert_ptr_nonnull(line);                        /* the header */
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char *f[17];
        size_t nf = 0;
        char *fs = NULL;
        for (char *tok = strtok_r(line, "\t", &fs); tok && nf < 17; tok = strtok_r(NULL, "\t", &fs))
            f[nf++] = tok;
        ck_assert_uint_eq(nf, 17);
        ck_assert_uint_lt(row, evindex_n_gcs(c.ix));
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(c.ix, row, &g_buf);
        ck_assert_uint_eq(g->start_ns, strtoull(f[0], NULL, 10));

        lane_item it = { .kind = LANE_ITEM_GC, .start_ns = g->start_ns, .end_ns = g->end_ns,
                         .index = row };
        detail_lines d;
        detail_lines_init(&d);
        detail_item(&d, c.ix, act, &it, g->start_ns, NULL);
        char want[256], dur[64], dur2[64], dur3[64];
        bool major = strstr(f[14], "major") != NULL;
        snprintf(want, sizeof want, "GC #%zu: gen %s%s, pause %s", row + 1, f[5],
                 major ? " (major)" : "", td_dur(strtoull(f[1], NULL, 10), dur, sizeof dur));
        ck_assert_str_eq(d.lines[0], want);
        /* Time to stop (request .. the leader's GC_START), then stopped .. end, total;
         * slowest_cap "-": no HEC was still running at the request. */
        uint64_t to_stop = strtoull(f[2], NULL, 10), pause = strtoull(f[1], NULL, 10);
        ck_assert_str_ne(f[2], "-");                    /* threaded: every GC has a request */
        ck_assert_uint_eq(to_stop, g->start_ns - strtoull(f[4], NULL, 10));
        ck_assert_str_eq(f[3], "0");                    /* not heap-profiled: no census */
        bool no_slowest = strcmp(f[13], "-") == 0;
        char last[48] = "no HEC was running at the request";
        if (!no_slowest)
            snprintf(last, sizeof last, "last to stop: HEC %s", f[13]);
        snprintf(want, sizeof want, "Time to stop: %s (%s); stopped .. end %s, total %s",
                 td_dur(to_stop, dur, sizeof dur), last, td_dur(pause, dur2, sizeof dur2),
                 td_dur(to_stop + pause, dur3, sizeof dur3));
        td_assert_line(&d, want);
        snprintf(want, sizeof want, "Request: HEC %s at ", f[12]);
        ck_assert_uint_ne(td_find_prefix(&d, want), SIZE_MAX);
        /* work_ns / idle_ns: "cap:ns,cap:ns" in the same order. */
        char *ws = NULL, *is = NULL;
        char *wt = strtok_r(f[15], ",", &ws), *itok = strtok_r(f[16], ",", &is);
        for (; wt && itok; wt = strtok_r(NULL, ",", &ws), itok = strtok_r(NULL, ",", &is)) {
            unsigned cap = (unsigned)atoi(wt);
            snprintf(want, sizeof want, "HEC %u: work %s, idle %s", cap,
                     td_dur(strtoull(strchr(wt, ':') + 1, NULL, 10), dur, sizeof dur),
                     td_dur(strtoull(strchr(itok, ':') + 1, NULL, 10), dur2, sizeof dur2));
            size_t at = td_find_prefix(&d, want);
            ck_assert_msg(at != SIZE_MAX, "gc %zu: no line starting %s", row, want);
        }
        td_assert_clean(&d);

        /* The times are `gc`'s start_ns on the same clock: exact in the pane, and in the
         * status line (a zoomed-out view: 10 ms a column) rounded to what tells this
         * collection from its neighbours, and read back by timefmt_parse (`stats --from`)
         * to within half that. */
        uint64_t start = strtoull(f[0], NULL, 10);
        strbuf sb, exp;
        strbuf_init(&sb);
        strbuf_init(&exp);
        strbuf_puts(&exp, "Pause: ");
        timefmt_append_res(&exp, start, 1);
        strbuf_puts(&exp, " .. ");
        ck_assert_msg(td_find_prefix(&d, exp.data) != SIZE_MAX, "gc %zu: no %s", row, exp.data);
        detail_lines_free(&d);
        strbuf_reset(&exp);
        uint64_t res = detail_gc_res(c.ix, row);
        ck_assert_uint_le(res, 1000);
        detail_status(&sb, c.ix, hec0, &it, g->start_ns, UINT64_C(10000000));
        strbuf_puts(&exp, "HEC 0 · ");
        size_t t_at = exp.len;
        timefmt_append_res(&exp, start, res);
        uint64_t back = 0;
        strbuf_putc(&exp, '\0');
        ck_assert(timefmt_parse(exp.data + t_at, &back));
        ck_assert_uint_le((back > start ? back - start : start - back) * 2, res);
        exp.len--;
        strbuf_printf(&exp, " · GC gen %s%s pause %s to stop %s", f[5],
                      major ? " (major)" : "", td_dur(pause, dur, sizeof dur),
                      td_dur(to_stop, dur2, sizeof dur2));
        if (!no_slowest)
            strbuf_printf(&exp, " (last HEC %s)", f[13]);
        ck_assert_str_eq(sb.data, exp.data);
        strbuf_free(&sb);
        strbuf_free(&exp);
        row++;
    }
    ck_assert_uint_eq(row, evindex_n_gcs(c.ix));
    ck_assert_uint_eq(row, 367);
    free(tsv);
    td_close(&c);
}
END_TEST

/* A collection's per-HEC lines are in HEC order, and the HECs that took no part are
 * named as such. GC #1 of threaded-n4, from its dump: between "requesting parallel GC"
 * and "finished GC" only caps 0 and 2 post "starting GC" (cap 2 first); caps 1 and 3
 * took no part. Then every collection: each HEC of the log on exactly one line, in order. */
START_TEST(test_detail_gc_hec_order)
{
    char *path = test_path("fixtures/threaded-n4.eventlog.ref017");
    size_t len;
    char *dump = (char *)test_read_file(path, &len);
    ck_assert_ptr_nonnull(dump);
    x_free(path);
    bool started[4] = { false };
    int first_cap = -1;
    const char *req = strstr(dump, ": requesting parallel GC");
    ck_assert_ptr_nonnull(req);
    const char *end = strstr(req, ": finished GC");
    ck_assert_ptr_nonnull(end);
    for (const char *p = strstr(req, ": starting GC"); p && p < end;
         p = strstr(p + 1, ": starting GC")) {
        const char *ln = p;
        while (ln > dump && ln[-1] != '\n')
            ln--;
        const char *capp = strstr(ln, "cap ");
        ck_assert_ptr_nonnull(capp);
        int cap = atoi(capp + 4);
        ck_assert(cap >= 0 && cap < 4);
        started[cap] = true;
        if (first_cap < 0)
            first_cap = cap;
    }
    ck_assert_int_eq(first_cap, 2);             /* stored in this order, shown by HEC */
    free(dump);

    td_case c;
    td_fixture(&c, "threaded-n4.eventlog");
    const lane *act = td_lane(&c, "activity");
    for (size_t gi = 0; gi < evindex_n_gcs(c.ix); gi++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(c.ix, gi, &g_buf);
        lane_item it = { .kind = LANE_ITEM_GC, .start_ns = g->start_ns, .end_ns = g->end_ns,
                         .index = gi };
        detail_lines d;
        detail_lines_init(&d);
        detail_item(&d, c.ix, act, &it, g->start_ns, NULL);
        int next = 0;           /* every HEC once, in order */
        for (size_t i = 0; i < d.n; i++) {
            const char *l = d.lines[i];
            if (strncmp(l, "HEC ", 4) != 0)
                continue;
            char *rest;
            long a = strtol(l + 4, &rest, 10), b = a;
            if (*rest == '-')
                b = strtol(rest + 1, &rest, 10);
            else if (rest[0] == ',' && rest[1] == ' ')
                b = strtol(rest + 2, &rest, 10);
            ck_assert_msg(a == next && b >= a, "GC #%zu: \"%s\" where HEC %d was due", gi + 1,
                          l, next);
            ck_assert(strncmp(rest, ": work ", 7) == 0 || strcmp(rest, ": took no part") == 0);
            ck_assert(b == a || strcmp(rest, ": took no part") == 0);
            next = (int)b + 1;
            if (gi == 0)
                ck_assert_msg(started[a] == (strncmp(rest, ": work ", 7) == 0), "GC #1: %s", l);
        }
        ck_assert_int_eq(next, 4);
        detail_lines_free(&d);
    }
    td_close(&c);
}
END_TEST

/* A heap census inside a collection is its own part of the pause. heapprof-hc's
 * collection at 301938742 ns: the dump has its last "GC done" at 304362728, then the
 * census ("start heap prof sample 0" at 307571241 .. "end prof sample 0" at 307579974),
 * then "finished GC": 307579974 - 304362728 = 3217246 ns of census, which the leader's
 * idle time must not hold. The non-threaded RTS posts no GC request: time to stop is
 * unknown, never 0. */
START_TEST(test_detail_gc_census)
{
    td_case c;
    td_fixture(&c, "heapprof-hc.eventlog");
    size_t gi = evindex_gc_containing(c.ix, 301938742);
    ck_assert_uint_ne(gi, SIZE_MAX);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(c.ix, gi, &g_buf);
    ck_assert_uint_eq(g->start_ns, 301938742);
    ck_assert_uint_eq(g->census_ns, 3217246);
    ck_assert_uint_eq(g->stopping_ns, EVINDEX_NO_TIME);
    ck_assert_uint_eq(g->n_parts, 1);
    evindex_gc_part p_buf;
    const evindex_gc_part *p = evindex_gc_part_get(c.ix, g->first_part, &p_buf);
    ck_assert_uint_eq(p->work_ns + p->wait_ns + g->census_ns, g->end_ns - g->start_ns);
    ck_assert_uint_lt(p->wait_ns, 200000);      /* the GC's own idle is short */
    lane_item it = { .kind = LANE_ITEM_GC, .start_ns = g->start_ns, .end_ns = g->end_ns,
                     .index = gi };
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, td_lane(&c, "HEC 0"), &it, g->start_ns, NULL);
    td_assert_line(&d, "Heap census: 3.217ms of the pause, on HEC 0 (not in its work or idle "
                       "below)");
    td_assert_line(&d, "Time to stop: unknown (no request event)");
    detail_lines_free(&d);
    /* Every census of the run is inside a collection: the dump has 39 censuses. */
    size_t with_census = 0;
    for (size_t i = 0; i < evindex_n_gcs(c.ix); i++)
        with_census += evindex_gc_get(c.ix, i, &(evindex_gc){ 0 })->census_ns > 0;
    ck_assert_uint_eq(with_census, 39);
    td_close(&c);

    /* Biographical censuses are written at the end of the run, each with the time it
     * was taken ("start heap prof sample 31 at time 71694947"): that one ran in the
     * collection 64668471 .. 74673983, from its last "GC done" at 68664164 to its end. */
    td_fixture(&c, "heapprof-hb.eventlog");
    gi = evindex_gc_containing(c.ix, 71694947);
    ck_assert_uint_ne(gi, SIZE_MAX);
    g = evindex_gc_get(c.ix, gi, &g_buf);
    ck_assert_uint_eq(g->start_ns, 64668471);
    ck_assert_uint_eq(g->census_ns, 74673983 - 68664164);
    with_census = 0;
    for (size_t i = 0; i < evindex_n_gcs(c.ix); i++)
        with_census += evindex_gc_get(c.ix, i, &(evindex_gc){ 0 })->census_ns > 0;
    ck_assert_uint_eq(with_census, 30);         /* the dump's 30 censuses */
    td_close(&c);
}
END_TEST

/* The third collection of threaded-n4 in full, as `elog-tui gc` shows it: a major GC
 * requested by HEC 0 at 3665728 ns (the dump's "requesting parallel GC"), started by
 * the leader at 3986445 once HEC 2, the last, had stopped: 320.717 us to stop, then
 * paused 815.693 us. */
START_TEST(test_detail_gc_known)
{
    td_case c;
    td_fixture(&c, "threaded-n4.eventlog");
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(c.ix, 2, &g_buf);
    ck_assert_uint_eq(g->start_ns, 3986445);
    lane_item it;
    ck_assert(lanes_item_at(c.ix, td_lane(&c, "heap"), 3986445 + 100, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert_uint_eq(it.index, 2);
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, td_lane(&c, "heap"), &it, 3986445 + 100, NULL);
    ck_assert_str_eq(d.lines[0], "GC #3: gen 1 (major), pause 815.693us");
    td_assert_line(&d, "Time to stop: 320.717us (last to stop: HEC 2); stopped .. end "
                       "815.693us, total 1.136ms");
    td_assert_line(&d, "Request: HEC 0 at 3.665728ms, parallel");   /* gc.tsv's request_ns */
    ck_assert_uint_ne(td_find_prefix(&d, "HEC 0: work 630.508us, idle 185.185us (stopped +"),
                      SIZE_MAX);
    ck_assert_uint_ne(td_find_prefix(&d, "HEC 3: work 140.389us, idle 1.338ms (stopped +"),
                      SIZE_MAX);
    td_assert_line(&d, "Copied: 738.2 KiB, live after: 731.6 KiB, heap after: 6.0 MiB, "
                       "allocated before: 2.0 MiB");
    char want[64];
    snprintf(want, sizeof want, "Parallel: 4 threads, work balance %.1f%%",
             100.0 * (double)g->par_balanced / (double)g->copied);
    td_assert_line(&d, want);
    /* The heap lane adds its values at the cursor. */
    ck_assert_uint_ne(td_find_prefix(&d, "Heap size: "), SIZE_MAX);
    ck_assert_uint_ne(td_find_prefix(&d, "Allocated so far: "), SIZE_MAX);
    detail_lines_free(&d);
    td_close(&c);
}
END_TEST

/* ---- runs ------------------------------------------------------------------------------- */

/* Thread 3 ("wk" + an invalid byte) blocks on a black hole owned by thread 42; thread 4
 * overflows its stack; thread 5 is cut off by a run of thread 6 with no stop; thread 6
 * is still running when the log ends. */
static void
td_run_log(td_case *c, bool truncate)
{
    evwrite *w = td_writer(c);
    EW(evwrite_create_thread(w, 0, 0, 3));
    EW(evwrite_thread_label(w, 0, 0, 3, "wk\xff"));
    EW(evwrite_run_thread(w, 0, 1000, 3));
    EW(evwrite_stop_thread(w, 0, 2000, 3, 8, 42));
    EW(evwrite_run_thread(w, 0, 3000, 4));
    EW(evwrite_stop_thread(w, 0, 4000, 4, 2, 1024));
    EW(evwrite_run_thread(w, 0, 5000, 5));
    EW(evwrite_run_thread(w, 0, 6000, 6));
    EW(evwrite_user_msg(w, 0, 9000, "end"));
    td_open(c, w, truncate);
}

static void
td_run_detail(const td_case *c, size_t run, detail_lines *d)
{
    lane_item it;
    const lane *l = td_lane(c, "HEC 0");
    runlane_run r;
    runlane_get(evindex_cap_at(c->ix, l->cap_lane)->runs, run, &r);
    ck_assert(lanes_item_at(c->ix, l, r.start_ns, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_RUN);
    ck_assert_uint_eq(it.index, run);
    detail_lines_init(d);
    detail_item(d, c->ix, l, &it, r.start_ns, NULL);
    td_assert_clean(d);
}

START_TEST(test_detail_runs)
{
    td_case c;
    td_run_log(&c, false);
    detail_lines d;
    td_run_detail(&c, 0, &d);
    ck_assert_str_eq(d.lines[0], "Thread: 3 (wk\xEF\xBF\xBD)");
    td_assert_line(&d, "HEC: 0");
    td_assert_line(&d, "Start: 1.000us");
    td_assert_line(&d, "Duration: 1.000us");
    td_assert_line(&d, "Stopped: blocked on black hole owned by thread 42");
    td_assert_line(&d, "Thread runs: 1, run time 1.000us (11.1% of the log)");
    td_assert_line(&d, "Thread stops: blackhole 1");
    td_assert_line(&d, "Thread created: 0ns on HEC 0");
    detail_lines_free(&d);

    td_run_detail(&c, 1, &d);
    td_assert_line(&d, "Stopped: stack overflow, size 1024");
    detail_lines_free(&d);
    td_run_detail(&c, 2, &d);
    td_assert_line(&d, "Stopped: no stop event (the next run or a GC began)");
    detail_lines_free(&d);
    td_run_detail(&c, 3, &d);
    td_assert_line(&d, "Stopped: still running at the end of the log");
    detail_lines_free(&d);

    /* The status line of the first run. */
    lane_item it;
    const lane *l = td_lane(&c, "HEC 0");
    ck_assert(lanes_item_at(c.ix, l, 1500, 0, &it));
    strbuf sb;
    strbuf_init(&sb);
    detail_status(&sb, c.ix, l, &it, 1500, 1);
    ck_assert_str_eq(sb.data, "HEC 0 · 1.500us · thread 3 (wk\xEF\xBF\xBD) ran 1.000us, "
                              "stopped: blocked on black hole owned by thread 42");
    /* At 1 us a column, rounded (half up), not truncated. */
    strbuf_reset(&sb);
    detail_status(&sb, c.ix, l, &it, 1500, 1000);
    ck_assert(strncmp(sb.data, "HEC 0 · 2us · thread 3 ", strlen("HEC 0 · 2us · thread 3 ")) == 0);
    /* Nothing under the cursor. */
    ck_assert(!lanes_item_at(c.ix, l, 2500, 100, &it));
    strbuf_reset(&sb);
    detail_status(&sb, c.ix, l, &it, 2500, 1000);
    ck_assert_str_eq(sb.data, "HEC 0 · 3us · idle");
    strbuf_reset(&sb);
    detail_status(&sb, c.ix, l, &it, 2499, 100);
    ck_assert_str_eq(sb.data, "HEC 0 · 2.5us · idle");
    detail_lines_init(&d);
    detail_item(&d, c.ix, l, &it, 2500, NULL);
    td_assert_line(&d, "HEC: 0, nothing at the cursor");
    td_assert_line(&d, "Cursor column: run 0.0%, GC 0.0%");
    detail_lines_free(&d);
    memset(&it, 0, sizeof it);
    it.kind = LANE_ITEM_NONE;
    it.start_ns = 1500;
    it.end_ns = 2500;
    detail_lines_init(&d);
    detail_item(&d, c.ix, l, &it, 1500, NULL);
    td_assert_line(&d, "Cursor column: run 50.0%, GC 0.0%");
    detail_lines_free(&d);
    strbuf_free(&sb);
    td_close(&c);

    /* Cut short: the last run has no stop because the log has no end. */
    td_run_log(&c, true);
    ck_assert(evindex_truncated(c.ix));
    td_run_detail(&c, 3, &d);
    td_assert_line(&d, "Stopped: end unknown: the log was cut short during this run");
    detail_lines_free(&d);
    td_close(&c);
}
END_TEST

/* ---- markers and messages --------------------------------------------------------------- */

/* The 1,100-character marker of markers.eventlog wraps into lines of at most
 * DETAIL_WRAP_COLS characters that put back together give the text; the UTF-8 marker
 * comes out whole. */
START_TEST(test_detail_marker_wrap)
{
    td_case c;
    td_fixture(&c, "markers.eventlog");
    const lane *mk = td_lane(&c, "markers");
    size_t long_k = SIZE_MAX, utf_k = SIZE_MAX;
    for (size_t i = 0; i < evindex_n_markers(c.ix); i++) {
        const uint8_t *p;
        size_t n;
        const evindex_msg msg_v = evindex_marker_at(c.ix, i);
        ck_assert(evindex_msg_text(c.ix, &msg_v, &p, &n));
        if (n > 1000)
            long_k = i;
        if (n > 14 && memcmp(p, "phase:unicode ", 14) == 0)
            utf_k = i;
    }
    ck_assert_uint_ne(long_k, SIZE_MAX);
    ck_assert_uint_ne(utf_k, SIZE_MAX);

    evindex_msg m_v = evindex_marker_at(c.ix, long_k);
    const evindex_msg *m = &m_v;
    lane_item it;
    ck_assert(lanes_item_at(c.ix, mk, m->time_ns, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_MARKER);
    ck_assert_uint_eq(it.index, long_k);
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, mk, &it, m->time_ns, NULL);
    td_assert_clean(&d);
    char want[128];
    snprintf(want, sizeof want, "Marker: #%zu of %zu", long_k + 1, evindex_n_markers(c.ix));
    ck_assert_str_eq(d.lines[0], want);
    td_assert_line(&d, "Kind: marker (traceMarker)");
    size_t at = td_find_prefix(&d, "Text: ");
    ck_assert_uint_ne(at, SIZE_MAX);
    strbuf joined;
    strbuf_init(&joined);
    strbuf_puts(&joined, d.lines[at] + 6);
    ck_assert_uint_le(strlen(d.lines[at] + 6), DETAIL_WRAP_COLS);
    size_t n_lines = 1;
    for (size_t i = at + 1; i < d.n && d.lines[i][0] == ' '; i++, n_lines++) {
        ck_assert(strncmp(d.lines[i], "  ", 2) == 0);
        ck_assert_uint_le(strlen(d.lines[i] + 2), DETAIL_WRAP_COLS);   /* ASCII text */
        ck_assert_ptr_null(strstr(d.lines[i], ": "));
        strbuf_puts(&joined, d.lines[i] + 2);
    }
    const uint8_t *p;
    size_t n;
    ck_assert(evindex_msg_text(c.ix, m, &p, &n));
    ck_assert_uint_ge(n_lines, n / DETAIL_WRAP_COLS);
    ck_assert_uint_eq(joined.len, n);
    ck_assert(memcmp(joined.data, p, n) == 0);
    strbuf_free(&joined);
    detail_lines_free(&d);

    m_v = evindex_marker_at(c.ix, utf_k);
    ck_assert(lanes_item_at(c.ix, mk, m->time_ns, 0, &it));
    detail_lines_init(&d);
    detail_item(&d, c.ix, mk, &it, m->time_ns, NULL);
    ck_assert(evindex_msg_text(c.ix, m, &p, &n));
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "Text: ");
    strbuf_append(&sb, p, n);
    td_assert_line(&d, sb.data);
    strbuf_reset(&sb);
    detail_status(&sb, c.ix, mk, &it, m->time_ns, 1000);
    ck_assert_ptr_nonnull(strstr(sb.data, " · marker: phase:unicode r\xC3\xA9sum\xC3\xA9"));
    strbuf_free(&sb);
    detail_lines_free(&d);
    td_close(&c);
}
END_TEST

/* Words wrap at spaces, greedily, keeping every character: each line but the last ends
 * in the space it broke after; a word longer than a line is cut. */
START_TEST(test_detail_wrap_words)
{
    td_case c;
    evwrite *w = td_writer(&c);
    strbuf text;
    strbuf_init(&text);
    for (int i = 0; i < 40; i++)
        strbuf_printf(&text, "word%d ", i * 37 % 1000);
    for (int i = 0; i < 100; i++)
        strbuf_putc(&text, (char)('a' + i % 26));
    EW(evwrite_user_marker(w, 0, 1000, text.data));
    td_open(&c, w, false);
    lane_item it;
    ck_assert(lanes_item_at(c.ix, td_lane(&c, "markers"), 1000, 0, &it));
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, td_lane(&c, "markers"), &it, 1000, NULL);
    size_t at = td_find_prefix(&d, "Text: ");
    ck_assert_uint_ne(at, SIZE_MAX);
    strbuf joined;
    strbuf_init(&joined);
    size_t n_lines = d.n - at;
    for (size_t i = at; i < d.n; i++) {
        const char *body = d.lines[i] + (i == at ? 6 : 2);
        size_t len = strlen(body);
        ck_assert_uint_le(len, DETAIL_WRAP_COLS);
        /* Greedy: the next line's first word would not have fitted. */
        if (i + 1 < d.n && strchr(d.lines[i + 1] + 2, ' ')) {
            ck_assert_msg(body[len - 1] == ' ', "line %zu does not break at a space: %s", i,
                          body);
            size_t next_word = (size_t)(strchr(d.lines[i + 1] + 2, ' ') - (d.lines[i + 1] + 2));
            ck_assert_uint_gt(len + next_word, DETAIL_WRAP_COLS);
        }
        strbuf_puts(&joined, body);
    }
    ck_assert_str_eq(joined.data, text.data);
    ck_assert_uint_ge(n_lines, text.len / DETAIL_WRAP_COLS + 1);
    strbuf_free(&joined);
    strbuf_free(&text);
    detail_lines_free(&d);
    td_close(&c);
}
END_TEST

/* Invalid UTF-8 and control characters in messages; a binary message. */
START_TEST(test_detail_message_text)
{
    td_case c;
    evwrite *w = td_writer(&c);
    static const char text[] = "a\xff" "b\tc\nd";
    EW(evwrite_text(w, 0, EV_USER_MSG, 1000, text, sizeof text - 1));
    static const uint8_t bin[] = { 'h', 0x00, 0xff };
    EW(evwrite_event(w, 0, EV_USER_BINARY_MSG, 2000, bin, sizeof bin));
    td_open(&c, w, false);
    const lane *mk = td_lane(&c, "markers");
    lane_item it;
    ck_assert(lanes_item_at(c.ix, mk, 1000, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_MSG);
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, mk, &it, 1000, NULL);
    td_assert_clean(&d);
    ck_assert_str_eq(d.lines[0], "Message: #1 of 2");
    td_assert_line(&d, "Kind: user message (traceEvent)");
    size_t at = td_find(&d, "Text: a\xEF\xBF\xBD" "b c");
    ck_assert_uint_ne(at, SIZE_MAX);
    ck_assert_uint_lt(at + 1, d.n);
    ck_assert_str_eq(d.lines[at + 1], "  d");
    strbuf sb;
    strbuf_init(&sb);
    detail_status(&sb, c.ix, mk, &it, 1000, 1);
    ck_assert_str_eq(sb.data, "markers · 1.000us · message: a\xEF\xBF\xBD" "b c d");
    detail_lines_free(&d);

    ck_assert(lanes_next_item(c.ix, mk, 1000, 1, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_MSG);
    detail_lines_init(&d);
    detail_item(&d, c.ix, mk, &it, 2000, NULL);
    td_assert_clean(&d);
    td_assert_line(&d, "Kind: binary message");
    td_assert_line(&d, "Bytes: 3");
    td_assert_line(&d, "Text: h..");
    detail_lines_free(&d);
    strbuf_free(&sb);
    td_close(&c);
}
END_TEST

/* ---- ranges ----------------------------------------------------------------------------- */

/* Over the whole log the range counts every collection; threaded-n4's numbers are the
 * RTS's own (`+RTS -s` and `elog-tui stats`). */
START_TEST(test_detail_range_whole)
{
    static const char *const files[] = {
        "threaded-n4.eventlog", "threaded-n2.eventlog", "nonmoving.eventlog", "sparks.eventlog",
        "demo.eventlog", "markers.eventlog", "killed.eventlog", "heapprof-hc.eventlog",
    };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        td_case c;
        td_fixture(&c, files[f]);
        detail_lines d;
        detail_lines_init(&d);
        detail_range(&d, c.ix, evindex_first_ns(c.ix), evindex_last_ns(c.ix) + 1);
        td_assert_clean(&d);
        size_t at = td_find_prefix(&d, "Collections: ");
        ck_assert_uint_ne(at, SIZE_MAX);
        ck_assert_uint_eq(strtoull(d.lines[at] + 13, NULL, 10), evindex_n_gcs(c.ix));
        if (f == 0) {
            ck_assert_str_eq(d.lines[at],
                             "Collections: 367 starting in the range, gen 0: 306, gen 1: 61");
            ck_assert_uint_ne(td_find_prefix(&d, "Gen 0: 306, pause total 61.546ms, "), SIZE_MAX);
            td_assert_line(&d, "Gen 0: 306, pause total 61.546ms, avg 201.129us, max 5.058ms; "
                               "p50 162.031us, p90 275.520us, p99 528.547us");
            td_assert_line(&d, "Gen 1: 61, pause total 17.092ms, avg 280.194us, max 994.760us; "
                               "p50 227.048us, p90 464.772us, p99 994.760us");
            td_assert_line(&d, "Copied: 331.8 MiB by 367 collections (366 parallel)");
            td_assert_line(&d, "Max live bytes: 1.2 MiB");
            td_assert_line(&d, "Max heap size: 8.0 MiB");
            ck_assert_uint_ne(td_find_prefix(&d, "Allocated: 493.3 MiB ("), SIZE_MAX);
            td_assert_line(&d, "Markers: 5, messages: 16; first: phase:start");
            ck_assert_uint_ne(td_find_prefix(&d, "HEC 3: run "), SIZE_MAX);
        }
        /* Per-spark events by kind: the whole log gives the totals; the first half of it
         * what the index counts there, and the two halves add up. */
        uint64_t created = evindex_spark_total(c.ix, EVINDEX_SPARK_CREATE);
        size_t sp = td_find_prefix(&d, "Spark events: ");
        ck_assert_uint_eq(sp != SIZE_MAX, created > 0 || evindex_spark_total(c.ix,
                          EVINDEX_SPARK_RUN) > 0);
        if (created) {
            char want[64];
            snprintf(want, sizeof want, "Spark events: created %llu", (unsigned long long)created);
            ck_assert_msg(strncmp(d.lines[sp], want, strlen(want)) == 0, "%s: %s", files[f],
                          d.lines[sp]);
            uint64_t mid = evindex_first_ns(c.ix) / 2 + evindex_last_ns(c.ix) / 2;
            uint64_t half = evindex_spark_count(c.ix, EVINDEX_SPARK_CREATE, 0, mid);
            ck_assert_uint_gt(half, 0);
            ck_assert_uint_lt(half, created);
            ck_assert_uint_eq(half + evindex_spark_count(c.ix, EVINDEX_SPARK_CREATE, mid,
                                                         UINT64_MAX), created);
            detail_lines_free(&d);
            detail_lines_init(&d);
            detail_range(&d, c.ix, evindex_first_ns(c.ix), mid);
            snprintf(want, sizeof want, "Spark events: created %llu", (unsigned long long)half);
            sp = td_find_prefix(&d, want);
            ck_assert_msg(sp != SIZE_MAX, "%s: no \"%s\"", files[f], want);
        }
        detail_lines_free(&d);
        td_close(&c);
    }
}
END_TEST

START_TEST(test_detail_range_parts)
{
    td_case c;
    td_fixture(&c, "threaded-n4.eventlog");
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(c.ix, 12, &g_buf);       /* the 5 ms pause */
    detail_lines d;
    detail_lines_init(&d);
    /* Inside one pause: no mutator time elapsed, one collection if it starts inside. */
    detail_range(&d, c.ix, g->start_ns + 10, g->end_ns - 10);
    td_assert_line(&d, "Mutator share: 0.0%");
    /* Never named like GHC's figure, which `stats` prints with another definition. */
    for (size_t i = 0; i < d.n; i++)
        ck_assert_ptr_null(strstr(d.lines[i], "roductivity"));
    td_assert_line(&d, "Collections: 0 starting in the range");
    detail_lines_free(&d);
    detail_range(&d, c.ix, g->end_ns, g->start_ns);      /* either order */
    td_assert_line(&d, "Mutator share: 0.0%");
    td_assert_line(&d, "Collections: 1 starting in the range, gen 0: 1");
    detail_lines_free(&d);
    /* Between two pauses: all mutator. */
    evindex_gc h_buf;
    const evindex_gc *h = evindex_gc_get(c.ix, 13, &h_buf);
    detail_range(&d, c.ix, g->end_ns, h->start_ns);
    td_assert_line(&d, "Mutator share: 100.0%");
    td_assert_line(&d, "Collections: 0 starting in the range");
    detail_lines_free(&d);
    /* Half in the pause, half after it (the next collection is 383 us later). */
    ck_assert_uint_gt(h->start_ns, g->end_ns + 100000);
    detail_range(&d, c.ix, g->end_ns - 100000, g->end_ns + 100000);
    td_assert_line(&d, "Mutator share: 50.0%");
    detail_lines_free(&d);
    /* Empty. */
    detail_range(&d, c.ix, 5000, 5000);
    ck_assert_uint_eq(d.n, 1);
    ck_assert_str_eq(d.lines[0], "Range: 5.000us .. 5.000us (0ns)");
    detail_lines_free(&d);
    /* The ends on the log's clock, exact to the nanosecond, and so the duration. */
    detail_range(&d, c.ix, g->start_ns, h->start_ns);
    ck_assert_uint_eq(g->start_ns, 13180742);          /* fixtures/threaded-n4.gc.tsv */
    ck_assert_uint_eq(h->start_ns, 18622387);
    ck_assert_str_eq(d.lines[0], "Range: 13.180742ms .. 18.622387ms (5.441645ms)");
    detail_lines_free(&d);
    td_close(&c);
}
END_TEST

/* Windows of threaded-n4 against gcstats, which reads the events themselves: the number
 * of collections starting in the window, each generation's percentiles and maximum,
 * and the bytes allocated (HEAP_ALLOCATED before the end minus before the start). */
START_TEST(test_detail_range_vs_gcstats)
{
    td_case c;
    td_fixture(&c, "threaded-n4.eventlog");
    size_t n = evindex_n_gcs(c.ix);
    const size_t cuts[][2] = { { 5, 200 }, { 0, 50 }, { 100, 101 }, { 300, 366 } };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        ck_assert_uint_lt(cuts[k][1], n);
        uint64_t a = evindex_gc_get(c.ix, cuts[k][0], &(evindex_gc){ 0 })->start_ns - 1000;
        uint64_t b = evindex_gc_get(c.ix, cuts[k][1], &(evindex_gc){ 0 })->start_ns + 1000;
        gcstats_window win = { a, b };
        diag ending;
        merge *m = merge_new(c.log, &ending);
        gcstats *g = gcstats_new(&win);
        evlog_event ev;
        while (merge_next(m, &ev))
            gcstats_add(g, &ev);
        gcstats_report r;
        gcstats_finish(g, ending.code != DIAG_OK, &r);
        gcstats_free(g);
        merge_free(m);

        detail_lines d;
        detail_lines_init(&d);
        detail_range(&d, c.ix, a, b);
        size_t at = td_find_prefix(&d, "Collections: ");
        ck_assert_uint_ne(at, SIZE_MAX);
        ck_assert_uint_eq(strtoull(d.lines[at] + 13, NULL, 10), r.n_gcs);
        ck_assert_uint_eq(r.n_gcs, cuts[k][1] - cuts[k][0] + 1);
        for (unsigned gen = 0; gen < r.n_gens; gen++) {
            const gcstats_gen *gg = &r.gens[gen];
            if (!gg->colls)
                continue;
            char want[256], a1[32], a2[32], a3[32], a4[32];
            snprintf(want, sizeof want, "Gen %u: %llu, pause total %s", gen,
                     (unsigned long long)gg->colls, td_dur(gg->elapsed_ns, a1, sizeof a1));
            at = td_find_prefix(&d, want);
            ck_assert_msg(at != SIZE_MAX, "window %zu: no line starting %s", k, want);
            snprintf(want, sizeof want, "max %s; p50 %s, p90 %s, p99 %s",
                     td_dur(gg->max_pause_ns, a1, sizeof a1), td_dur(gg->p50_ns, a2, sizeof a2),
                     td_dur(gg->p90_ns, a3, sizeof a3), td_dur(gg->p99_ns, a4, sizeof a4));
            ck_assert_msg(strstr(d.lines[at], want), "window %zu: %s lacks %s", k, d.lines[at],
                          want);
        }
        strbuf sb;
        strbuf_init(&sb);
        strbuf_puts(&sb, "Allocated: ");
        detail_bytes(&sb, r.bytes_allocated);
        ck_assert_uint_gt(r.bytes_allocated, 0);
        ck_assert_msg(td_find_prefix(&d, sb.data) != SIZE_MAX, "window %zu: no %s", k, sb.data);
        strbuf_free(&sb);
        detail_lines_free(&d);
    }
    td_close(&c);
}
END_TEST

/* ---- lanes at the cursor ---------------------------------------------------------------- */

START_TEST(test_detail_lane_values)
{
    td_case c;
    evwrite *w = td_writer(&c);
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 0, 0, 3u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 0, 0, 1000));
    EW(evwrite_run_thread(w, 0, 0, 1));
    EW(evwrite_stop_thread(w, 0, 1000, 1, 5, 0));
    EW(evwrite_run_thread(w, 1, 0, 2));
    EW(evwrite_stop_thread(w, 1, 500, 2, 5, 0));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 1500, 0, 5u << 20));
    EW(evwrite_user_msg(w, 0, 2000, "end"));
    td_open(&c, w, false);
    const lane *heap = td_lane(&c, "heap"), *act = td_lane(&c, "activity");
    lane_item it;
    ck_assert(!lanes_item_at(c.ix, heap, 1000, 0, &it));
    detail_lines d;
    detail_lines_init(&d);
    detail_item(&d, c.ix, heap, &it, 1000, NULL);
    td_assert_line(&d, "Heap size: 3.0 MiB (largest 5.0 MiB)");
    td_assert_line(&d, "Allocated so far: 1000 B");
    detail_lines_free(&d);
    strbuf sb;
    strbuf_init(&sb);
    detail_status(&sb, c.ix, heap, &it, 1600, 1000);
    ck_assert_str_eq(sb.data, "heap · 2us · heap 5.0 MiB");

    ck_assert(!lanes_item_at(c.ix, act, 250, 500, &it));     /* [250, 750) */
    detail_lines_init(&d);
    detail_item(&d, c.ix, act, &it, 250, NULL);
    td_assert_line(&d, "At cursor: 2 of 2 HECs running, 0 in GC");
    td_assert_line(&d, "Utilisation: 75.0% over the cursor column (500ns)");
    detail_lines_free(&d);
    strbuf_reset(&sb);
    detail_status(&sb, c.ix, act, &it, 700, 1000);
    ck_assert_str_eq(sb.data, "activity · 1us · 1 of 2 HECs running");
    strbuf_free(&sb);
    td_close(&c);
}
END_TEST

/* Non-moving phases of the nonmoving fixture: the detail names the phase and repeats
 * the cycle's own numbers. */
START_TEST(test_detail_nonmoving)
{
    td_case c;
    td_fixture(&c, "nonmoving.eventlog");
    const lane *nm = td_lane(&c, "nonmoving");
    lane_item it;
    ck_assert(lanes_next_item(c.ix, nm, 0, 1, &it));
    size_t seen_sync = 0, steps = 0;
    do {
        ck_assert_int_eq(it.kind, LANE_ITEM_NM);
        const evindex_nm_cycle *cy = evindex_nm_cycle_at(c.ix, it.index);
        const ivtrack *tr = evindex_nm_track(c.ix);
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv =
            ivtrack_get(tr, ivtrack_last_starting_by(tr, it.start_ns), &iv_buf);
        detail_lines d;
        detail_lines_init(&d);
        detail_item(&d, c.ix, nm, &it, it.start_ns, NULL);
        char want[256], a[64], b[64], s3[64];
        static const char *const names[] = { "mark", "sync", "sweep" };
        snprintf(want, sizeof want, "Non-moving: cycle #%zu, %s phase (%s)", it.index + 1,
                 names[iv->kind], iv->kind == EVINDEX_NM_SYNC ? "stop-the-world" : "concurrent");
        ck_assert_str_eq(d.lines[0], want);
        snprintf(want, sizeof want, "Mark: %s in %u round%s, sync %s, sweep %s",
                 td_dur(cy->mark_ns, a, sizeof a), (unsigned)cy->n_marks,
                 cy->n_marks == 1 ? "" : "s", td_dur(cy->sync_ns, b, sizeof b),
                 td_dur(cy->sweep_ns, s3, sizeof s3));
        td_assert_line(&d, want);
        snprintf(want, sizeof want, "Marked objects: %llu, remembered-set flushes: %u",
                 (unsigned long long)cy->marked_objects, (unsigned)cy->n_flushes);
        td_assert_line(&d, want);
        seen_sync += iv->kind == EVINDEX_NM_SYNC;
        detail_lines_free(&d);
        steps++;
    } while (steps < 40 && lanes_next_item(c.ix, nm, it.start_ns, 1, &it));
    ck_assert_uint_gt(seen_sync, 0);
    td_close(&c);
}
END_TEST

Suite *
test_detail_suite(void)
{
    Suite *s = suite_create("detail");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_detail_lines_basics);
    tcase_add_test(tc, test_detail_formats);
    tcase_add_test(tc, test_detail_gc_golden);
    tcase_add_test(tc, test_detail_gc_known);
    tcase_add_test(tc, test_detail_gc_census);
    tcase_add_test(tc, test_detail_gc_hec_order);
    tcase_add_test(tc, test_detail_runs);
    tcase_add_test(tc, test_detail_marker_wrap);
    tcase_add_test(tc, test_detail_wrap_words);
    tcase_add_test(tc, test_detail_message_text);
    tcase_add_test(tc, test_detail_range_whole);
    tcase_add_test(tc, test_detail_range_parts);
    tcase_add_test(tc, test_detail_range_vs_gcstats);
    tcase_add_test(tc, test_detail_lane_values);
    tcase_add_test(tc, test_detail_nonmoving);
    suite_add_tcase(s, tc);
    return s;
}
