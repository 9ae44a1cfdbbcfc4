/* Golden tests of the GC analysis (mmu, worst windows, pause histograms) on the real
 * fixtures. The expected figures come from each fixture's `ghc-events show` dump
 * (fixtures/NAME.eventlog.ref017), read here with the rule of docs/stats-semantics.md §1
 * (a collection is a "GC stats" line; its pause runs from its cap's latest "starting
 * GC" to that cap's "finished GC"), and an MMU computed directly: every candidate start
 * tried against every pause, no sweep, no shared code with src/mmu.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../ui/termio_mock.h"
#include "app.h"
#include "evindex.h"
#include "evlog.h"
#include "gcreport.h"
#include "mmu.h"
#include "mmusrc.h"
#include "merge.h"
#include "pausehist.h"
#include "rundiff.h"
#include "strbuf.h"
#include "surface.h"
#include "termio.h"
#include "tests.h"
#include "theme.h"
#include "timefmt.h"
#include "xalloc.h"

#define GA_CAPS 64

typedef struct ga_pause {
    uint64_t start, end;
    unsigned gen;
    uint64_t request;           /* with its time to stop: the request, else start */
} ga_pause;

typedef struct ga_dump {
    ga_pause *p;                /* leader pauses, in "GC stats" order */
    size_t n;
    ga_pause *cap_spans;        /* one cap's own starting .. finished GC */
    size_t n_cap;
    uint64_t first, last;       /* first and last event time */
} ga_dump;

/* Read the dump; cap_spans are those of capability `cap`. Caller frees p, cap_spans. */
static void
ga_read(const char *fix, unsigned cap_of_interest, ga_dump *d)
{
    memset(d, 0, sizeof *d);
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s.eventlog.ref017", fix);
    char *path = test_path(rel);
    size_t len;
    char *text = (char *)test_read_file(path, &len);
    ck_assert_msg(text != NULL, "cannot read %s", path);
    uint64_t last_start[GA_CAPS] = { 0 }, last_end[GA_CAPS] = { 0 };
    bool has_start[GA_CAPS] = { false };
    size_t pending[GA_CAPS] = { 0 };
    size_t cap_p = 0, cap_c = 0;
    bool in_events = false, any = false, has_req = false;
    uint64_t req = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!in_events) {
            in_events = strcmp(line, "Events:") == 0;
            continue;
        }
        uint64_t t;
        int off = 0, c = -1, off2 = 0;
        if (sscanf(line, " %" SCNu64 ": %n", &t, &off) != 1 || !off)
            continue;
        if (!any || t < d->first)
            d->first = t;
        if (!any || t > d->last)
            d->last = t;
        any = true;
        const char *body = line + off;
        if (sscanf(body, "cap %d: %n", &c, &off2) != 1 || !off2 || c < 0 || c >= GA_CAPS)
            continue;
        body += off2;
        if (strncmp(body, "requesting ", 11) == 0) {
            req = t;
            has_req = true;
        }
        if (strncmp(body, "starting GC", 11) == 0) {
            last_start[c] = t;
            has_start[c] = true;
        } else if (strncmp(body, "finished GC", 11) == 0) {
            if ((unsigned)c == cap_of_interest && has_start[c]) {
                void *v = d->cap_spans;
                xgrowarray(&v, &cap_c, d->n_cap + 1, 64, sizeof *d->cap_spans);
                d->cap_spans = v;
                d->cap_spans[d->n_cap++] = (ga_pause){ last_start[c], t, 0, last_start[c] };
            }
            last_end[c] = t;
            if (pending[c])
                d->p[pending[c] - 1].end = t;
            pending[c] = 0;
        } else if (strncmp(body, "GC stats for heap capset", 24) == 0) {
            const char *g = strstr(body, "generation ");
            ck_assert_ptr_nonnull(g);
            void *v = d->p;
            xgrowarray(&v, &cap_p, d->n + 1, 64, sizeof *d->p);
            d->p = v;
            ga_pause *p = &d->p[d->n++];
            *p = (ga_pause){ last_start[c], 0, (unsigned)strtoul(g + 11, NULL, 10),
                             last_start[c] };
            if (last_end[c] >= p->start)
                p->end = last_end[c];
            else
                pending[c] = d->n;
            /* The request (§1): the latest on any cap after the previous collection's
             * end and not after this one's start. */
            uint64_t prev_end = d->n > 1 ? d->p[d->n - 2].end : 0;
            if (has_req && req <= p->start && (d->n == 1 || req > prev_end))
                p->request = req;
            has_req = false;
        }
    }
    x_free(text);
    x_free(path);
}

/* Stopped time of the spans (disjoint after the union) in [a, b). */
static uint64_t
ga_paused(const mmu_span *u, size_t n, uint64_t a, uint64_t b)
{
    uint64_t p = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = u[i].start_ns > a ? u[i].start_ns : a;
        uint64_t e = u[i].end_ns < b ? u[i].end_ns : b;
        p += e > s ? e - s : 0;
    }
    return p;
}

static int
ga_span_cmp(const void *x, const void *y)
{
    const mmu_span *a = x, *b = y;
    return (a->start_ns > b->start_ns) - (a->start_ns < b->start_ns);
}

/* The direct MMU: union the spans, then try every start where a window begins at a
 * pause's start or ends at a pause's end, and the range's ends. */
static void
ga_mmu(const ga_pause *p, size_t n, uint64_t from, uint64_t to, uint64_t w, uint64_t *best_t,
       uint64_t *best_p)
{
    mmu_span *u = xmalloc((n + 1) * sizeof *u);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        u[k++] = (mmu_span){ p[i].start, p[i].end };
    qsort(u, k, sizeof *u, ga_span_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m && u[i].start_ns <= u[m - 1].end_ns) {
            if (u[i].end_ns > u[m - 1].end_ns)
                u[m - 1].end_ns = u[i].end_ns;
        } else {
            u[m++] = u[i];
        }
    }
    if (w >= to - from) {
        *best_t = from;
        *best_p = ga_paused(u, m, from, to);
        x_free(u);
        return;
    }
    *best_t = from;
    *best_p = ga_paused(u, m, from, from + w);
    for (size_t i = 0; i < 2 * m + 1; i++) {
        uint64_t t = i == 2 * m ? to - w : i % 2 ? u[i / 2].end_ns - w : u[i / 2].start_ns;
        if ((i % 2 && u[i / 2].end_ns < from + w) || t < from || t > to - w)
            continue;
        uint64_t pp = ga_paused(u, m, t, t + w);
        if (pp > *best_p || (pp == *best_p && t < *best_t)) {
            *best_t = t;
            *best_p = pp;
        }
    }
    x_free(u);
}

static evindex *
ga_index(const char *fix, evlog **log)
{
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s.eventlog", fix);
    *log = test_open_log(rel);
    diag ending;
    evindex *ix = evindex_build(*log, NULL, &ending);
    ck_assert_ptr_nonnull(ix);
    return ix;
}

static const char *const ga_fixtures[] = {
    "threaded-n2", "threaded-n4", "demo", "markers", "sparks", "nonmoving", "heapprof-hc",
};

/* MMU at every curve window equals the one computed from the dump's pauses. */
START_TEST(test_ga_mmu_golden)
{
    const char *fix = ga_fixtures[_i];
    ga_dump d;
    ga_read(fix, 1, &d);
    evlog *log;
    evindex *ix = ga_index(fix, &log);
    /* The index also knows the block markers, which the 0.17 dump does not print. */
    ck_assert_uint_le(evindex_first_ns(ix), d.first);
    ck_assert_uint_ge(evindex_last_ns(ix), d.last);
    mmusrc_opts o = { 0 };
    mmu *m = mmusrc_new(ix, &o, d.first, d.last);
    uint64_t ws[96];
    size_t nw = mmu_curve_windows(m, ws, 96);
    ck_assert_uint_gt(nw, 5);
    for (size_t i = 0; i < nw; i++) {
        uint64_t t, p;
        ga_mmu(d.p, d.n, d.first, d.last, ws[i], &t, &p);
        mmu_point got = mmu_at(m, ws[i]);
        ck_assert_msg(got.paused_ns == p && got.worst_start_ns == t,
                      "%s window %" PRIu64 ": got %" PRIu64 " at %" PRIu64 ", dump %" PRIu64
                      " at %" PRIu64, fix, ws[i], got.paused_ns, got.worst_start_ns, p, t);
    }
    /* A sub-range given by times. */
    uint64_t a = d.first + (d.last - d.first) / 3, b = d.first + (d.last - d.first) / 2;
    mmu *sub = mmusrc_new(ix, &o, a, b);
    for (uint64_t w = 1000000; w < b - a; w *= 3) {
        uint64_t t, p;
        ga_mmu(d.p, d.n, a, b, w, &t, &p);
        ck_assert_uint_eq(mmu_at(sub, w).paused_ns, p);
        ck_assert_uint_eq(mmu_at(sub, w).worst_start_ns, t);
    }
    mmu_free(sub);
    /* --with-stop: from each collection's request. */
    ga_pause *ws_p = xmalloc((d.n + 1) * sizeof *ws_p);
    for (size_t i = 0; i < d.n; i++)
        ws_p[i] = (ga_pause){ d.p[i].request, d.p[i].end, d.p[i].gen, d.p[i].request };
    mmusrc_opts os = { .with_stop = true };
    mmu *ms = mmusrc_new(ix, &os, d.first, d.last);
    ck_assert_uint_ge(mmu_paused_total(ms), mmu_paused_total(m));
    for (size_t i = 0; i < nw; i++) {
        uint64_t t, p;
        ga_mmu(ws_p, d.n, d.first, d.last, ws[i], &t, &p);
        mmu_point got = mmu_at(ms, ws[i]);
        ck_assert_msg(got.paused_ns == p && got.worst_start_ns == t,
                      "%s --with-stop window %" PRIu64 ": got %" PRIu64 " at %" PRIu64
                      ", dump %" PRIu64 " at %" PRIu64, fix, ws[i], got.paused_ns,
                      got.worst_start_ns, p, t);
    }
    mmu_free(ms);
    x_free(ws_p);
    /* One capability's own GC time (cap 1, where the log has one). */
    if (evindex_lane_of(ix, 1) != SIZE_MAX) {
        mmusrc_opts oc = { .per_cap = true, .cap = 1 };
        mmu *mc = mmusrc_new(ix, &oc, d.first, d.last);
        for (uint64_t w = 100000; w < d.last - d.first; w *= 10) {
            uint64_t t, p;
            ga_mmu(d.cap_spans, d.n_cap, d.first, d.last, w, &t, &p);
            ck_assert_msg(mmu_at(mc, w).paused_ns == p, "%s cap 1 window %" PRIu64, fix, w);
        }
        mmu_free(mc);
    }
    mmu_free(m);
    evindex_free(ix);
    evlog_close(log);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* Histogram counts and totals per bucket equal the dump's pauses bucketed here. */
START_TEST(test_ga_histogram_golden)
{
    const char *fix = ga_fixtures[_i];
    ga_dump d;
    ga_read(fix, 0, &d);
    evlog *log;
    evindex *ix = ga_index(fix, &log);
    pausehist h;
    pausehist_from_index(&h, ix, 0, UINT64_MAX);
    uint64_t count[4][64] = { { 0 } }, total[4][64] = { { 0 } };
    for (size_t i = 0; i < d.n; i++) {
        uint64_t pause = d.p[i].end - d.p[i].start;
        /* Bucket 0 is under 1 us; bucket b >= 1 holds [2^(b-1), 2^b) microseconds. */
        unsigned b = pause < 1000 ? 0 : 1;
        while (b && pause >= (1000ull << b))
            b++;
        ck_assert_uint_lt(d.p[i].gen, 4);
        count[d.p[i].gen][b]++;
        total[d.p[i].gen][b] += pause;
    }
    for (unsigned g = 0; g < 4; g++)
        for (unsigned b = 0; b < PAUSEHIST_N_BUCKETS; b++) {
            uint64_t hc = g < h.n_gens ? h.gens[g].count[b] : 0;
            uint64_t ht = g < h.n_gens ? h.gens[g].total_ns[b] : 0;
            ck_assert_msg(hc == count[g][b] && ht == total[g][b],
                          "%s gen %u bucket %u: %" PRIu64 "/%" PRIu64 " vs dump %" PRIu64
                          "/%" PRIu64, fix, g, b, hc, ht, count[g][b], total[g][b]);
        }
    evindex_free(ix);
    evlog_close(log);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* threaded-n2's histogram text as read off the dump by hand: Gen 0's 271 pauses, 177 of
 * them in [64 us, 128 us); the one of 2.323 ms alone in [2.048 ms, 4.096 ms). */
START_TEST(test_ga_histogram_text)
{
    evlog *log;
    evindex *ix = ga_index("threaded-n2", &log);
    pausehist h;
    pausehist_from_index(&h, ix, 0, UINT64_MAX);
    strbuf sb;
    strbuf_init(&sb);
    pausehist_text(&sb, &h, 10, 0);
    ck_assert_ptr_nonnull(strstr(sb.data, "Gen 0: 271 pauses"));
    ck_assert_ptr_nonnull(strstr(sb.data, "Gen 1: 16 pauses"));
    ck_assert_ptr_nonnull(strstr(sb.data, "  64us .. 128us" "        "
                                          "     177  ##########  16.822ms\n"));
    ck_assert_ptr_nonnull(strstr(sb.data, "  2.048ms .. 4.096ms" "   "
                                          "       1  #           2.323ms\n"));
    strbuf_reset(&sb);
    pausehist_json(&sb, &h);
    ck_assert_ptr_nonnull(strstr(sb.data, "{\"lo_ns\":2048000,\"hi_ns\":4096000,\"count\":1,"
                                          "\"total_ns\":2323106}"));
    strbuf_free(&sb);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* The worst 10 ms windows of threaded-n2: disjoint, worst first, each one's stopped time
 * the dump's pauses inside it, and the collections listed those overlapping it. */
START_TEST(test_ga_worst_golden)
{
    ga_dump d;
    ga_read("threaded-n2", 0, &d);
    evlog *log;
    evindex *ix = ga_index("threaded-n2", &log);
    mmusrc_opts o = { 0 };
    mmu *m = mmusrc_new(ix, &o, d.first, d.last);
    mmu_point w[5];
    uint64_t len = 10000000;
    size_t n = mmu_worst(m, len, 5, w);
    ck_assert_uint_eq(n, 5);
    uint64_t t, p;
    ga_mmu(d.p, d.n, d.first, d.last, len, &t, &p);
    ck_assert_uint_eq(w[0].worst_start_ns, t);
    ck_assert_uint_eq(w[0].paused_ns, p);
    for (size_t i = 0; i < n; i++) {
        uint64_t paused = 0;
        size_t in = 0;
        for (size_t k = 0; k < d.n; k++) {
            uint64_t s = d.p[k].start > w[i].worst_start_ns ? d.p[k].start : w[i].worst_start_ns;
            uint64_t e = d.p[k].end < w[i].worst_start_ns + len ? d.p[k].end
                                                                : w[i].worst_start_ns + len;
            paused += e > s ? e - s : 0;
            in += e > s;
        }
        ck_assert_uint_eq(w[i].paused_ns, paused);
        if (i)
            ck_assert_uint_le(w[i].paused_ns, w[i - 1].paused_ns);
        for (size_t j = 0; j < i; j++) {
            uint64_t a = w[i].worst_start_ns, b = w[j].worst_start_ns;
            ck_assert_uint_ge(a > b ? a - b : b - a, len);
        }
        strbuf sb;
        strbuf_init(&sb);
        gcreport_worst(&sb, ix, m, &o, len, i + 1, true);
        /* The last window's collections in the JSON: count "index" after its start. */
        char key[64];
        snprintf(key, sizeof key, "{\"start_ns\":%" PRIu64 ",", w[i].worst_start_ns);
        const char *at = strstr(sb.data, key);
        ck_assert_ptr_nonnull(at);
        size_t listed = 0;
        for (const char *q = at; (q = strstr(q, "\"index\":")); q++)
            listed++;
        ck_assert_uint_eq(listed, in);
        strbuf_free(&sb);
    }
    mmu_free(m);
    evindex_free(ix);
    evlog_close(log);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* ---- diff ------------------------------------------------------------------------------- */

typedef struct gd_side {
    evlog *log;
    evindex *ix;
    gcstats_report r;
} gd_side;

static void
gd_load(const char *fix, gd_side *d)
{
    d->ix = ga_index(fix, &d->log);
    diag ending;
    merge *m = merge_new(d->log, &ending);
    gcstats *g = gcstats_new(NULL);
    evlog_event ev;
    while (merge_next(m, &ev))
        gcstats_add(g, &ev);
    merge_free(m);
    gcstats_finish(g, ending.code != DIAG_OK, &d->r);
    gcstats_free(g);
}

static void
gd_free(gd_side *d)
{
    evindex_free(d->ix);
    evlog_close(d->log);
}

static char *
gd_report(const char *fa, const char *fb)
{
    gd_side a, b;
    gd_load(fa, &a);
    gd_load(fb, &b);
    rundiff_side sa = { fa, &a.r, a.ix }, sb = { fb, &b.r, b.ix };
    strbuf out;
    strbuf_init(&out);
    rundiff_report(&out, &sa, &sb);
    gd_free(&a);
    gd_free(&b);
    return out.data;            /* caller frees */
}

/* diff A A: every row, of every section, says "=". */
START_TEST(test_gd_same)
{
    static const char *const fixes[] = { "threaded-n2", "markers", "nonmoving", "heapprof-hc" };
    for (size_t f = 0; f < sizeof fixes / sizeof fixes[0]; f++) {
        char *text = gd_report(fixes[f], fixes[f]);
        size_t rows = 0;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            /* Rows: indented lines, but for the files, a marker pair's own line, the
             * marker counts and the column heads. */
            if (strncmp(line, "  ", 2) != 0 || strstr(line, " -> ") ||
                strncmp(line, "  A:", 4) == 0 || strncmp(line, "  B:", 4) == 0 ||
                strncmp(line, "  markers:", 10) == 0 || line[strspn(line, " ")] == 'A')
                continue;
            size_t len = strlen(line);
            ck_assert_msg(len > 3 && strcmp(line + len - 3, "  =") == 0,
                          "%s: a change in diff A A: \"%s\"", fixes[f], line);
            rows++;
        }
        ck_assert_uint_gt(rows, 20);
        x_free(text);
    }
}
END_TEST

/* The row "  LABEL  A  B  change" of `text` is exactly `want` (without the newline). */
static void
gd_row_is(const char *text, const char *label, const char *want)
{
    char key[128];
    snprintf(key, sizeof key, "\n  %s ", label);
    const char *at = strstr(text, key);
    ck_assert_msg(at != NULL, "no row \"%s\"", label);
    at++;
    size_t len = strcspn(at, "\n");
    ck_assert_msg(strlen(want) == len && strncmp(at, want, len) == 0, "row \"%.*s\", want \"%s\"",
                  (int)len, at, want);
}

/* threaded-n2 against threaded-n4: the +RTS -s rows as GHC printed them for each run
 * (the fixtures' .rts-s.txt reports), marker durations from the dumps. */
START_TEST(test_gd_golden)
{
    char *text = gd_report("threaded-n2", "threaded-n4");
    gd_row_is(text, "bytes allocated in the heap",
              "  bytes allocated in the heap          517,211,648     517,240,080   +28,432 "
              "(+0.0%)");
    gd_row_is(text, "bytes copied during GC",
              "  bytes copied during GC                69,806,808     347,958,016   +278,151,208 "
              "(+398.5%)");
    gd_row_is(text, "maximum residency",
              "  maximum residency                        948,344       1,307,640   +359,296 "
              "(+37.9%)");
    gd_row_is(text, "Gen 1 colls",
              "  Gen 1 colls                                   16              61   +45 (+281.2%)");
    gd_row_is(text, "Gen 1 par",
              "  Gen 1 par                                     15              60   +45 (+300.0%)");
    gd_row_is(text, "parallel GC work balance",
              "  parallel GC work balance                  68.63%          69.26%   +0.64 points");
    /* Markers from the dumps: phase:collected -> phase:end, 123738426 .. 133982716 in
     * threaded-n2, 200634453 .. 210899634 in threaded-n4. */
    const char *m = strstr(text, "  phase:collected -> phase:end");
    ck_assert_ptr_nonnull(m);
    strbuf want;
    strbuf_init(&want);
    strbuf_puts(&want, "  phase:collected -> phase:end            ");
    timefmt_append(&want, 133982716 - 123738426);
    strbuf_puts(&want, "        ");
    timefmt_append(&want, 210899634 - 200634453);
    ck_assert_msg(strncmp(m, want.data, want.len) == 0, "%.100s\nwant %s", m, want.data);
    strbuf_free(&want);
    ck_assert_ptr_nonnull(strstr(text, "markers: 5 in A, 5 in B, 5 matched"));
    x_free(text);
}
END_TEST

/* ---- the viewer: u, W, p -------------------------------------------------------------- */

typedef struct gv_fx {
    evlog *log;
    evindex *ix;
    app *a;
    surface *s;
    int cols, lines;
} gv_fx;

static void
gv_open(gv_fx *f, const char *fix, int cols, int lines)
{
    f->ix = ga_index(fix, &f->log);
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s.eventlog", fix);
    app_opts o = { .mono = true };
    f->a = app_new(f->ix, rel, cols, lines, &o);
    f->s = surface_new(cols, lines);
    f->cols = cols;
    f->lines = lines;
    app_draw(f->a, f->s);
}

static void
gv_close(gv_fx *f)
{
    surface_free(f->s);
    app_free(f->a);
    evindex_free(f->ix);
    evlog_close(f->log);
}

static void
gv_keys(gv_fx *f, const char *keys)
{
    char *copy = xstrdup(keys), *save = NULL;
    for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
        app_key(f->a, k);
    x_free(copy);
    app_draw(f->a, f->s);
}

static bool
gv_has(const gv_fx *f, const char *text)
{
    char *dump = surface_dump(f->s);
    bool has = strstr(dump, text) != NULL;
    if (!has)
        fprintf(stderr, "screen lacks \"%s\":\n%s\n", text, dump);
    x_free(dump);
    return has;
}

/* The screen line holding `text`, or -1. */
static int
gv_line_of(const gv_fx *f, const char *text)
{
    char *dump = surface_dump(f->s);
    const char *at = strstr(dump, text);
    int line = -1;
    if (at) {
        line = 0;
        for (const char *q = dump; q < at; q++)
            line += *q == '\n';
    }
    x_free(dump);
    return line;
}

/* u on threaded-n2: the plot opens on 10 ms with the dump's MMU and worst window; the
 * bars go from 0 (the shortest windows sit inside a pause) to the whole range's share;
 * Enter selects exactly the dump's worst window; the mock terminal shows the chosen bar's
 * mark in the cursor's pen. */
START_TEST(test_gv_mmu_plot)
{
    ga_dump d;
    ga_read("threaded-n2", 0, &d);
    gv_fx f;
    gv_open(&f, "threaded-n2", 110, 32);
    gv_keys(&f, "u");
    ck_assert(gv_has(&f, "minimum mutator utilisation: whole log"));
    /* The viewer's range is the index's first .. last event (block markers included,
     * which the dump omits); no pause lies in the difference. */
    uint64_t t, p;
    ga_mmu(d.p, d.n, evindex_first_ns(f.ix), evindex_last_ns(f.ix), 10000000, &t, &p);
    strbuf want;
    strbuf_init(&want);
    strbuf_printf(&want, "window 10.000ms: MMU %.2f%%, worst window from ",
                  100.0 * (1.0 - (double)p / 1e7));
    timefmt_append_res(&want, t, 1);
    ck_assert(gv_has(&f, want.data));
    /* The y axis, the 0% row's first bar a floor mark (MMU 0 at 10 us: the shortest
     * pause is 12.859 us), the last bar full at the bottom and empty at the top. */
    int top = gv_line_of(&f, "100% ");
    int bottom = gv_line_of(&f, "  0% ");
    ck_assert_int_gt(top, 0);
    ck_assert_int_gt(bottom, top + 5);
    int x0 = -1;
    for (int x = 0; x < f.cols && x0 < 0; x++)
        if (surface_get(f.s, x, top).cp == 0x2502 && x > 10)
            x0 = x + 1;
    ck_assert_int_gt(x0, 0);
    ck_assert_uint_eq(surface_get(f.s, x0, bottom).cp, '_');
    int xl = x0;        /* the last plot column: before the box's right border */
    while (xl + 1 < f.cols && surface_get(f.s, xl + 1, bottom).cp != 0x2502)
        xl++;
    ck_assert_uint_eq(surface_get(f.s, xl, bottom).cp, 0x2588);
    ck_assert_uint_eq(surface_get(f.s, xl, top).cp, ' ');
    /* The mock terminal: the chosen point's mark in STYLE_CURSOR's colours. */
    termio_opts o = termio_default_opts();
    o.force_theme = true;
    o.theme = THEME_256;
    termio *term = termio_open_mock(f.cols, f.lines, &o);
    TickitMockTerm *mt = termio_mock_term(term);
    termio_present(term, f.s);
    int mark_x = -1;
    for (int x = 0; x < f.cols; x++)
        if (surface_get(f.s, x, bottom + 1).cp == 0x25b2) {
            mark_x = x;
            break;
        }
    ck_assert_int_gt(mark_x, x0);
    char cell[16];
    tickit_mockterm_get_display_text(mt, cell, sizeof cell - 1, bottom + 1, mark_x, 1);
    ck_assert_str_eq(cell, "\u25b2");
    TickitPen *pen = tickit_mockterm_get_display_pen(mt, bottom + 1, mark_x);
    ck_assert_int_eq(tickit_pen_get_colour_attr(pen, TICKIT_PEN_BG),
                     theme_get(THEME_256, STYLE_CURSOR).bg);
    termio_free(term);
    /* Right moves to a longer window: the mark moves right. */
    gv_keys(&f, "Right");
    ck_assert_uint_ne(surface_get(f.s, mark_x, bottom + 1).cp, 0x25b2);
    gv_keys(&f, "Left Enter");
    /* Enter: the worst 10 ms window is the selection, shown in the range statistics. */
    strbuf_reset(&want);
    strbuf_puts(&want, "Range: ");
    timefmt_append_res(&want, t, 1);
    strbuf_puts(&want, " .. ");
    timefmt_append_res(&want, t + 10000000, 1);
    ck_assert(gv_has(&f, want.data));
    ck_assert(gv_has(&f, "worst 10.000ms window: mutator"));
    strbuf_free(&want);
    gv_close(&f);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* In the interactive loop (async_totals) the plot's points come from a worker thread:
 * the same figures once it is done; freeing the app while it works is safe. */
START_TEST(test_gv_mmu_plot_async)
{
    char *want = NULL;
    for (int async = 0; async < 2; async++) {
        evlog *log;
        evindex *ix = ga_index("threaded-n2", &log);
        app_opts o = { .mono = true, .async_totals = async == 1 };
        app *a = app_new(ix, "threaded-n2.eventlog", 110, 32, &o);
        surface *s = surface_new(110, 32);
        app_key(a, "u");
        for (int i = 0; i < 10000 && app_totals_pending(a); i++) {
            app_poll_totals(a);
            usleep(1000);
        }
        app_poll_totals(a);
        ck_assert(!app_totals_pending(a));
        app_draw(a, s);
        char *dump = surface_dump(s);
        const char *at = strstr(dump, "window 10.000ms: MMU ");
        ck_assert_ptr_nonnull(at);
        char *line = strndup(at, strcspn(at, "\n"));
        if (!want)
            want = line;
        else {
            ck_assert_str_eq(line, want);
            free(line);
        }
        free(dump);
        /* Free while the worker runs. */
        app_key(a, "Escape");
        app_key(a, "u");
        app_free(a);
        surface_free(s);
        evindex_free(ix);
        evlog_close(log);
    }
    free(want);
}
END_TEST

/* W: the worst 10 ms windows as a list; Enter on the second selects it. */
START_TEST(test_gv_worst_list)
{
    ga_dump d;
    ga_read("threaded-n2", 0, &d);
    gv_fx f;
    gv_open(&f, "threaded-n2", 110, 32);
    gv_keys(&f, "W");
    ck_assert(gv_has(&f, "worst 10.000ms windows"));
    uint64_t t, p;
    ga_mmu(d.p, d.n, evindex_first_ns(f.ix), evindex_last_ns(f.ix), 10000000, &t, &p);
    strbuf want;
    strbuf_init(&want);
    strbuf_puts(&want, "  1  ");
    timefmt_append_res(&want, t, 1000);
    ck_assert(gv_has(&f, want.data));
    gv_keys(&f, "Down Enter");
    ck_assert(gv_has(&f, "worst window #2: mutator"));
    ck_assert(gv_has(&f, "Range: "));
    strbuf_free(&want);
    gv_close(&f);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* p: the pause histogram above the list; its fullest bucket as counted from the dump. */
START_TEST(test_gv_gc_list_histogram)
{
    ga_dump d;
    ga_read("threaded-n2", 0, &d);
    uint64_t in64 = 0;
    for (size_t i = 0; i < d.n; i++)
        in64 += d.p[i].gen == 0 && d.p[i].end - d.p[i].start >= 64000 &&
                d.p[i].end - d.p[i].start < 128000;
    gv_fx f;
    gv_open(&f, "threaded-n2", 110, 32);
    gv_keys(&f, "p");
    ck_assert(gv_has(&f, "pauses by length"));
    ck_assert(gv_has(&f, "collections by pause"));
    char want[64];
    snprintf(want, sizeof want, "most 64us..128us (%llu)", (unsigned long long)in64);
    ck_assert(gv_has(&f, want));
    gv_close(&f);
    x_free(d.p);
    x_free(d.cap_spans);
}
END_TEST

/* The column of the first `cp` on screen line `line` at or after column `from`, or -1. */
static int
gv_col_of(const gv_fx *f, int line, uint32_t cp, int from)
{
    for (int x = from; x < f->cols; x++)
        if (surface_get(f->s, x, line).cp == cp)
            return x;
    return -1;
}

/* The two-log view: threaded-n2 over threaded-n4 aligned at phase:ping-pong-done. Every
 * lane says its log; the offset is the difference of the marker's times in the two
 * dumps (123736844 and 45837934 ns); the marker's tick is in the same column in both
 * logs' marker lanes, before and after zooming in around it (one zoom for both). */
START_TEST(test_gv_two_logs)
{
    gv_fx f;
    gv_open(&f, "threaded-n2", 120, 40);
    evlog *log2;
    evindex *ix2 = ga_index("threaded-n4", &log2);
    char why[128];
    ck_assert(!app_set_second(f.a, ix2, "fixtures/threaded-n4.eventlog", "no-such-marker", why,
                              sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "no marker named \"no-such-marker\""));
    ck_assert(app_set_second(f.a, ix2, "fixtures/threaded-n4.eventlog", "phase:ping-pong-done",
                             why, sizeof why));
    app_draw(f.a, f.s);
    ck_assert(gv_has(&f, "A HEC 0"));
    ck_assert(gv_has(&f, "B HEC 3"));
    strbuf want;
    strbuf_init(&want);
    strbuf_puts(&want, "B: threaded-n4.eventlog, aligned at marker \"phase:ping-pong-done\" "
                       "(B's time = A's - ");
    timefmt_append_res(&want, 123736844 - 45837934, 1);
    ck_assert(gv_has(&f, want.data));
    strbuf_free(&want);
    /* Put the cursor on A's third marker, phase:ping-pong-done, and zoom in around it. */
    for (int zoom = 0; zoom < 2; zoom++) {
        if (zoom)
            gv_keys(&f, "n n n + + + + + +");
        int la = gv_line_of(&f, "A markers"), lb = gv_line_of(&f, "B markers");
        ck_assert_int_gt(la, 0);
        ck_assert_int_gt(lb, la);
        /* The tick in A's lane nearest to the marker's time, then B's in that column. */
        int col = -1;
        for (int x = 10; x < f.cols && col < 0; x++) {
            uint64_t a0, b0;
            if (!timeview_col_range(app_view(f.a), x - 10, &a0, &b0))
                break;
            if (a0 <= 123736844 && 123736844 < b0)
                col = x;
        }
        ck_assert_int_gt(col, 0);
        ck_assert_int_eq(gv_col_of(&f, la, 0x25bc, col), col);
        ck_assert_int_eq(gv_col_of(&f, lb, 0x25bc, col), col);
    }
    gv_close(&f);
    evindex_free(ix2);
    evlog_close(log2);
}
END_TEST

/* tests/e2e/gc.sh: u, W and p in the real binary under tmux, both backends. */
START_TEST(test_gv_e2e)
{
    test_e2e_script("gc", "");
}
END_TEST

Suite *
test_gcanalysis_suite(void)
{
    Suite *s = suite_create("gcanalysis");
    TCase *tc = tcase_create("fixtures");
    tcase_set_timeout(tc, 60 * test_time_scale());
    size_t nf = sizeof ga_fixtures / sizeof ga_fixtures[0];
    tcase_add_loop_test(tc, test_ga_mmu_golden, 0, (int)nf);
    tcase_add_loop_test(tc, test_ga_histogram_golden, 0, (int)nf);
    tcase_add_test(tc, test_ga_histogram_text);
    tcase_add_test(tc, test_ga_worst_golden);
    tcase_add_test(tc, test_gd_same);
    tcase_add_test(tc, test_gd_golden);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("viewer");
    tcase_set_timeout(tv, 120 * test_time_scale());
    tcase_add_test(tv, test_gv_mmu_plot);
    tcase_add_test(tv, test_gv_mmu_plot_async);
    tcase_add_test(tv, test_gv_worst_list);
    tcase_add_test(tv, test_gv_gc_list_histogram);
    tcase_add_test(tv, test_gv_two_logs);
    tcase_add_test(tv, test_gv_e2e);
    suite_add_tcase(s, tv);
    return s;
}
