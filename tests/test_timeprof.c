/* tests/test_timeprof: time-profile samples (+RTS -p -l) — the flat profile of the peer
 * suite's time-prof log against awk counts of its `ghc-events show` dump
 * (tests/golden/mkgolden.sh), a two-capability log written here with recursion, an
 * empty (MAIN) stack, samples out of file order and a truncated sample, counted by hand,
 * and random logs whose profiles over random ranges and caps are recounted directly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "detail.h"
#include "evindex.h"
#include "evlog.h"
#include "evtype.h"
#include "evwrite.h"
#include "lanes.h"
#include "reports.h"
#include "surface.h"
#include "tests.h"
#include "timeprof.h"
#include "xalloc.h"

#define EW(call) ck_assert_int_eq((call), EVWRITE_OK)

typedef struct tp_log {
    evlog *log;
    evindex *ix;
    uint8_t *bytes;             /* owned when written here */
} tp_log;

static bool
tp_open_corpus(tp_log *l, const char *name)
{
    memset(l, 0, sizeof *l);
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "timeprof: corpus not found, %s SKIPPED\n", name);
        return false;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.eventlog", dir, name);
    diag d;
    l->log = evlog_open(path, &d);
    ck_assert_msg(l->log != NULL, "cannot open %s", path);
    l->ix = evindex_build(l->log, NULL, &d);
    char why[256];
    ck_assert_msg(evindex_check(l->ix, why, sizeof why), "%s: %s", name, why);
    free(dir);
    return true;
}

static void
tp_close(tp_log *l)
{
    evindex_free(l->ix);
    evlog_close(l->log);
    x_free(l->bytes);
}

static char *
tp_golden(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "tests/golden/%s", name);
    char *path = test_path(rel);
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    ck_assert_msg(b != NULL, "cannot read %s", path);
    char *s = xmalloc(len + 1);
    memcpy(s, b, len);
    s[len] = '\0';
    free(b);
    free(path);
    return s;
}

START_TEST(test_timeprof_golden)
{
    tp_log l;
    if (!tp_open_corpus(&l, "time-prof"))
        return;
    const timeprof *tp = evindex_timeprof(l.ix);
    ck_assert_uint_eq(timeprof_n_samples(tp), 340);     /* prof sample 1 .. 340 */
    uint64_t iv, at;
    ck_assert(timeprof_interval(tp, &iv, &at));
    ck_assert_uint_eq(iv, 1000000);
    ck_assert_uint_eq(at, 33037929);
    /* The dump's first sample: tick 1 at 34087986, stack fib, main, CAF (innermost
     * first, as the spec and the RTS write it). */
    timeprof_sample s0 = timeprof_sample_at(tp, 0);
    ck_assert_uint_eq(s0.time_ns, 34087986);
    ck_assert_uint_eq(s0.tick, 1);
    uint32_t st[TIMEPROF_MAX_DEPTH];
    uint32_t depth = timeprof_stack(tp, 0, st);
    ck_assert_uint_eq(depth, 3);
    ck_assert_uint_eq(st[0], 1);
    ck_assert_uint_eq(st[2], 3);
    ck_assert_uint_eq(timeprof_innermost(tp, 339), 115);    /* the last: GC */

    static const struct { const char *golden; uint64_t from, to; uint32_t cap; } cases[] = {
        { "time-prof.prof.tsv", 0, UINT64_MAX, TIMEPROF_ANY_CAP },
        { "time-prof.prof-window.tsv", 100000000, 200000000, 0 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint64_t from = cases[k].from, to = cases[k].to;
        if (to == UINT64_MAX) {
            from = evindex_first_ns(l.ix);
            to = evindex_last_ns(l.ix);
        }
        reports_opts o;
        memset(&o, 0, sizeof o);
        strbuf out;
        strbuf_init(&out);
        reports_prof(&out, l.ix, &o, from, to, cases[k].cap);
        char *want = tp_golden(cases[k].golden);
        ck_assert_msg(strlen(want) > 200, "%s: golden too short", cases[k].golden);
        ck_assert_str_eq(out.data, want);
        x_free(want);
        strbuf_free(&out);
    }
    tp_close(&l);
}
END_TEST

/* A GHC 9.0.2 time profile (fixtures/heapprof-p): the header's count of samples outside
 * the RTS's own cost centres (the .prof file's total ticks) and each cost centre's
 * individual samples, counted from the dump's "cost centre N LABEL in MODULE" and
 * "prof sample" lines. */
START_TEST(test_timeprof_fixture_rts_ccs)
{
    char *path = test_path("fixtures/heapprof-p.eventlog.ref017");
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    ck_assert_ptr_nonnull(b);
    free(path);
    char *text = xmalloc(len + 1);
    memcpy(text, b, len);
    text[len] = '\0';
    free(b);
    static bool rts[4096];
    static uint64_t inner[4096];
    memset(rts, 0, sizeof rts);
    memset(inner, 0, sizeof inner);
    uint64_t n = 0, program = 0;
    for (char *save = NULL, *ln = strtok_r(text, "\n", &save); ln;
         ln = strtok_r(NULL, "\n", &save)) {
        unsigned id;
        char label[64], module[64];
        const char *cc = strstr(ln, ": cost centre ");
        const char *st = strstr(ln, ", cost centre stack ");
        if (cc && sscanf(cc, ": cost centre %u %63s in %63s", &id, label, module) == 3 &&
            id < 4096) {
            rts[id] = (strcmp(label, "GC") == 0 && strcmp(module, "GC") == 0) ||
                      (strcmp(label, "SYSTEM") == 0 && strcmp(module, "SYSTEM") == 0) ||
                      (strcmp(label, "IDLE") == 0 && strcmp(module, "IDLE") == 0) ||
                      (strcmp(label, "OVERHEAD_of") == 0 && strcmp(module, "PROFILING") == 0) ||
                      (strcmp(label, "DONT_CARE") == 0 && strcmp(module, "MAIN") == 0);
        } else if (st && strstr(ln, "prof sample")) {
            n++;
            if (sscanf(st, ", cost centre stack %u", &id) == 1 && id < 4096) {
                inner[id]++;
                program += !rts[id];
            } else {
                program++;          /* MAIN */
            }
        }
    }
    x_free(text);
    ck_assert_uint_eq(n, 2158);
    ck_assert_uint_lt(program, n);          /* the log has GC and SYSTEM samples */
    tp_log l;
    memset(&l, 0, sizeof l);
    l.log = test_open_log("fixtures/heapprof-p.eventlog");
    diag d;
    l.ix = evindex_build(l.log, NULL, &d);
    reports_opts o;
    memset(&o, 0, sizeof o);
    strbuf out;
    strbuf_init(&out);
    reports_prof(&out, l.ix, &o, 0, UINT64_MAX, TIMEPROF_ANY_CAP);
    char want[256];
    snprintf(want, sizeof want, " ns; %llu outside the RTS's own cost centres",
             (unsigned long long)program);
    ck_assert_msg(strstr(out.data, want), "%s", out.data);
    /* Every row: its individual samples as counted, and prof_time_pct over `program`
     * ("-" for the RTS's own). */
    size_t rows = 0;
    for (char *save = NULL, *ln = strtok_r(out.data, "\n", &save); ln;
         ln = strtok_r(NULL, "\n", &save)) {
        unsigned id;
        char f[11][128];
        if (ln[0] < '0' || ln[0] > '9')
            continue;
        int k = 0;
        for (char *c = ln, *t; k < 12 && c; k++, c = t ? t + 1 : NULL) {
            t = strchr(c, '\t');
            if (k < 11)
                snprintf(f[k], sizeof f[k], "%.*s", (int)(t ? t - c : (long)strlen(c)), c);
            else
                snprintf(want, sizeof want, "%s", c);
        }
        ck_assert_int_eq(k, 12);
        id = (unsigned)strtoul(f[0], NULL, 10);
        ck_assert_uint_lt(id, 4096);
        ck_assert_uint_eq(strtoull(f[5], NULL, 10), inner[id]);
        if (rts[id]) {
            ck_assert_str_eq(want, "-");
        } else {
            char pct[32];
            snprintf(pct, sizeof pct, "%.1f", 100.0 * (double)inner[id] / (double)program);
            ck_assert_str_eq(want, pct);
        }
        rows++;
    }
    ck_assert_uint_gt(rows, 10);
    strbuf_free(&out);
    tp_close(&l);
}
END_TEST

/* A cost-centre definition payload: id, label, module, source, flags (1: CAF). */
static size_t
tp_cc(uint8_t *b, uint32_t id, const char *label, const char *module, const char *src,
      bool caf)
{
    size_t n = 0;
    for (int k = 3; k >= 0; k--)
        b[n++] = (uint8_t)(id >> (8 * k));
    const char *parts[3] = { label, module, src };
    for (int p = 0; p < 3; p++) {
        size_t len = strlen(parts[p]) + 1;
        memcpy(b + n, parts[p], len);
        n += len;
    }
    b[n++] = caf ? 1 : 0;
    return n;
}

/* A PROF_SAMPLE_COST_CENTRE payload; `declared` may exceed the ids given (truncated). */
static size_t
tp_sample(uint8_t *b, uint32_t cap, uint64_t tick, unsigned declared, const uint32_t *ids,
          unsigned n_ids)
{
    size_t n = 0;
    for (int k = 3; k >= 0; k--)
        b[n++] = (uint8_t)(cap >> (8 * k));
    for (int k = 7; k >= 0; k--)
        b[n++] = (uint8_t)(tick >> (8 * k));
    b[n++] = (uint8_t)declared;
    for (unsigned i = 0; i < n_ids; i++)
        for (int k = 3; k >= 0; k--)
            b[n++] = (uint8_t)(ids[i] >> (8 * k));
    return n;
}

/* Two caps; cap 1's block is written first, so the samples meet out of time order. */
static void
tp_open_written(tp_log *l, bool with_begin)
{
    memset(l, 0, sizeof *l);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    evwrite *w = evwrite_new(f);
    EW(evwrite_declare_ghc_version(w, 902));
    EW(evwrite_begin_data(w));
    const uint16_t G = EVLOG_NO_CAP;
    uint8_t b[256];
    size_t n;
    if (with_begin) {
        uint8_t iv[8] = { 0, 0, 0, 0, 0, 0, 0x03, 0xe8 };   /* 1000 ns */
        EW(evwrite_event(w, G, EV_PROF_BEGIN, 10, iv, sizeof iv));
    }
    n = tp_cc(b, 1, "f", "M", "a.hs:1:1-5", false);
    EW(evwrite_event(w, G, EV_HEAP_PROF_COST_CENTRE, 20, b, n));
    n = tp_cc(b, 2, "g", "M", "a.hs:2:1-5", false);
    EW(evwrite_event(w, G, EV_HEAP_PROF_COST_CENTRE, 21, b, n));
    n = tp_cc(b, 3, "CAF", "M", "<entire-module>", true);
    EW(evwrite_event(w, G, EV_HEAP_PROF_COST_CENTRE, 22, b, n));
    static const uint32_t s123[] = { 1, 2, 3 }, s13[] = { 1, 3 }, s2123[] = { 2, 1, 2, 3 };
    n = tp_sample(b, 1, 2, 2, s13, 2);
    EW(evwrite_event(w, 1, EV_PROF_SAMPLE_COST_CENTRE, 200, b, n));
    n = tp_sample(b, 1, 4, 3, s123, 3);
    EW(evwrite_event(w, 1, EV_PROF_SAMPLE_COST_CENTRE, 400, b, n));
    EW(evwrite_flush_cap(w, 1));
    n = tp_sample(b, 0, 1, 3, s123, 3);
    EW(evwrite_event(w, 0, EV_PROF_SAMPLE_COST_CENTRE, 100, b, n));
    n = tp_sample(b, 0, 3, 4, s2123, 4);
    EW(evwrite_event(w, 0, EV_PROF_SAMPLE_COST_CENTRE, 300, b, n));
    n = tp_sample(b, 0, 5, 0, NULL, 0);
    EW(evwrite_event(w, 0, EV_PROF_SAMPLE_COST_CENTRE, 500, b, n));
    n = tp_sample(b, 0, 6, 3, s123, 2);         /* says 3 ids, holds 2: dropped */
    EW(evwrite_event(w, 0, EV_PROF_SAMPLE_COST_CENTRE, 600, b, n));
    EW(evwrite_finish(w));
    evwrite_destroy(w);
    long len = ftell(f);
    ck_assert_int_gt(len, 0);
    l->bytes = xmalloc((size_t)len);
    rewind(f);
    ck_assert_uint_eq(fread(l->bytes, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    diag d;
    l->log = evlog_open_bytes(l->bytes, (size_t)len, &d);
    ck_assert_ptr_nonnull(l->log);
    l->ix = evindex_build(l->log, NULL, &d);
    char why[256];
    ck_assert_msg(evindex_check(l->ix, why, sizeof why), "%s", why);
}

typedef struct tp_want {
    uint32_t cc;
    uint64_t individual, inherited;
} tp_want;

static void
tp_expect(const timeprof *tp, uint64_t from, uint64_t to, uint32_t cap, uint64_t samples,
          const tp_want *want, size_t n_want)
{
    size_t n;
    uint64_t counted;
    timeprof_row *rows = timeprof_flat(tp, from, to, cap, &n, &counted);
    ck_assert_uint_eq(counted, samples);
    ck_assert_uint_eq(n, n_want);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(rows[i].cc == want[i].cc, "row %zu: cc %u, want %u", i, rows[i].cc,
                      want[i].cc);
        ck_assert_uint_eq(rows[i].individual, want[i].individual);
        ck_assert_uint_eq(rows[i].inherited, want[i].inherited);
    }
    x_free(rows);
}

START_TEST(test_timeprof_written)
{
    tp_log l;
    tp_open_written(&l, true);
    const timeprof *tp = evindex_timeprof(l.ix);
    ck_assert_uint_eq(timeprof_n_samples(tp), 5);
    ck_assert_uint_eq(timeprof_n_caps(tp), 2);
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(timeprof_sample_at(tp, i).time_ns, 100 * (i + 1));
    ck_assert_uint_eq(timeprof_innermost(tp, 4), TIMEPROF_MAIN);
    ck_assert_uint_eq(timeprof_last_by(tp, 99), SIZE_MAX);
    ck_assert_uint_eq(timeprof_last_by(tp, 250), 1);
    ck_assert_uint_eq(timeprof_first_from(tp, 250), 2);
    /* All: f innermost at 100, 200, 400; g at 300 (and again outside f: counted once);
     * MAIN at 500 and the root of all five. */
    static const tp_want all[] = {
        { 1, 3, 4 }, { TIMEPROF_MAIN, 1, 5 }, { 2, 1, 3 }, { 3, 0, 4 },
    };
    tp_expect(tp, 0, UINT64_MAX, TIMEPROF_ANY_CAP, 5, all, 4);
    static const tp_want cap1[] = { { 1, 2, 2 }, { 3, 0, 2 }, { 2, 0, 1 } };
    tp_expect(tp, 0, UINT64_MAX, 1, 2, cap1, 3);
    static const tp_want mid[] = { { 1, 1, 2 }, { 2, 1, 1 }, { 3, 0, 2 } };
    tp_expect(tp, 150, 350, TIMEPROF_ANY_CAP, 2, mid, 3);
    tp_expect(tp, 501, 10000, TIMEPROF_ANY_CAP, 0, NULL, 0);

    reports_opts o;
    memset(&o, 0, sizeof o);
    strbuf out;
    strbuf_init(&out);
    reports_prof(&out, l.ix, &o, 0, 1000, TIMEPROF_ANY_CAP);
    ck_assert_msg(strstr(out.data, "# time profile: 5 samples on 2 capabilities, tick interval "
                         "1000 ns (5000 ns sampled), 0..1000 ns; 5 outside the RTS's own cost "
                         "centres (the .prof's total ticks)\n"), "%s", out.data);
    ck_assert_msg(strstr(out.data,
                         "\n1\tf\tM\ta.hs:1:1-5\tno\t3\t60.0\t4\t80.0\t3000\t4000\t60.0\n"),
                  "%s", out.data);
    ck_assert_msg(strstr(out.data, "\nMAIN\tMAIN\tMAIN\t<built-in>\tno\t1\t20.0\t5\t100.0\t"),
                  "%s", out.data);
    ck_assert_msg(strstr(out.data, "\n3\tCAF\tM\t<entire-module>\tyes\t0\t0.0\t4\t80.0\t0\t"),
                  "%s", out.data);
    strbuf_reset(&out);
    o.json = true;
    o.limit = 1;
    reports_prof(&out, l.ix, &o, 0, 1000, 0);  /* f, g, MAIN one each: MAIN inherits most */
    ck_assert_str_eq(out.data,
                     "{\"interval_ns\":1000,\"samples\":3,\"program_samples\":3,"
                     "\"from_ns\":0,\"to_ns\":1000,\"cap\":0,"
                     "\"cost_centres\":[\n"
                     "{\"cost_centre\":null,\"label\":\"MAIN\",\"module\":\"MAIN\",\"src_loc\":"
                     "\"<built-in>\",\"is_caf\":false,\"individual\":1,\"individual_pct\":33.3,"
                     "\"inherited\":3,\"inherited_pct\":100.0,\"individual_ns\":1000,"
                     "\"inherited_ns\":3000,\"prof_time_pct\":33.3}\n]}\n");
    strbuf_free(&out);
    tp_close(&l);

    /* Without PROF_BEGIN: no interval, times "-". */
    tp_open_written(&l, false);
    ck_assert(!timeprof_interval(evindex_timeprof(l.ix), NULL, NULL));
    strbuf_init(&out);
    o.json = false;
    o.limit = 0;
    reports_prof(&out, l.ix, &o, 0, 1000, TIMEPROF_ANY_CAP);
    ck_assert_msg(strstr(out.data, "no tick interval in the log") &&
                  strstr(out.data, "\t80.0\t-\t-\t0.0\n"), "%s", out.data);
    strbuf_free(&out);
    tp_close(&l);
}
END_TEST


/* ---- the sample lanes step their own samples ('.' and ',') --------------------------------- */

/* The distinct times, in order, of the dump lines holding `pattern` (a `ghc-events show`
 * dump lists events in time order). Caller frees; *n the count. */
static uint64_t *
tp_ref_times(const char *path, const char *pattern, size_t *n)
{
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    ck_assert_msg(b != NULL, "cannot read %s", path);
    char *text = xmalloc(len + 1);
    memcpy(text, b, len);
    text[len] = '\0';
    free(b);
    size_t cap = 64;
    uint64_t *t = xmalloc(cap * sizeof *t);
    *n = 0;
    for (char *save = NULL, *ln = strtok_r(text, "\n", &save); ln;
         ln = strtok_r(NULL, "\n", &save)) {
        char *end;
        unsigned long long v = strtoull(ln, &end, 10);
        if (end == ln || *end != ':' || !strstr(end, pattern))
            continue;
        if (*n && t[*n - 1] == v)
            continue;
        ck_assert_msg(*n == 0 || v > t[*n - 1], "%s: dump not in time order", path);
        if (*n == cap)
            t = xreallocarray(t, cap *= 2, sizeof *t);
        t[(*n)++] = v;
    }
    x_free(text);
    return t;
}

typedef struct tp_lane_case {
    const char *log;            /* fixture path, or corpus name when corpus is true */
    bool corpus;
    lane_kind kind;
    const char *pattern;        /* the dump lines of its samples */
    const char *status;         /* the status line of a sample starts so ("census 1/") */
} tp_lane_case;

static const tp_lane_case tp_lane_cases[] = {
    { "fixtures/threaded-n4.eventlog", false, LANE_HEAP, ": size of heap capset",
      "heap sample 1/" },
    { "fixtures/heapprof-hT.eventlog", false, LANE_HEAPBANDS, "start heap prof sample",
      "census 1/" },
    { "fixtures/heapprof-p.eventlog", false, LANE_PROF, ", prof sample ", "prof sample 1/" },
    { "ghc-9.2-events", true, LANE_MEMORY, "memory returned (mblocks)", "memory sample 1/" },
    { "ticky-new", true, LANE_TICKY, "ticky begin counter sample", "ticky sample 1/" },
    { "time-prof", true, LANE_PROF, ", prof sample ", "prof sample 1/" },
};

START_TEST(test_timeprof_lanes_step_samples)
{
    const tp_lane_case *c = &tp_lane_cases[_i];
    tp_log l;
    memset(&l, 0, sizeof l);
    char *ref;
    if (c->corpus) {
        if (!tp_open_corpus(&l, c->log))
            return;
        char *dir = test_corpus_dir();
        size_t n = strlen(dir) + strlen(c->log) + 32;
        ref = xmalloc(n);
        snprintf(ref, n, "%s/%s.eventlog.reference", dir, c->log);
        free(dir);
    } else {
        l.log = test_open_log(c->log);
        diag d;
        l.ix = evindex_build(l.log, NULL, &d);
        char rel[256];
        snprintf(rel, sizeof rel, "%.*s.eventlog.ref017", (int)(strlen(c->log) - 9), c->log);
        char *p = test_path(rel);
        ref = xstrdup(p);
        free(p);
    }
    size_t n_want;
    uint64_t *want = tp_ref_times(ref, c->pattern, &n_want);
    ck_assert_msg(n_want >= 2, "%s: %zu samples in the dump", c->log, n_want);
    size_t n_lanes;
    lane *lanes = lanes_build_all(l.ix, &n_lanes);
    const lane *ln = NULL;
    for (size_t i = 0; i < n_lanes; i++)
        if (lanes[i].kind == c->kind)
            ln = &lanes[i];
    ck_assert_msg(ln != NULL, "%s: no lane of kind %d", c->log, c->kind);
    lane_item it;
    uint64_t t = 0;
    for (size_t i = 0; i < n_want; i++) {
        ck_assert_msg(lanes_next_item(l.ix, ln, t, 1, &it), "%s: sample %zu not reached",
                      c->log, i);
        ck_assert_int_eq(it.kind, LANE_ITEM_SAMPLE);
        ck_assert_msg(it.start_ns == want[i], "%s: step %zu at %llu, the dump's sample at %llu",
                      c->log, i, (unsigned long long)it.start_ns, (unsigned long long)want[i]);
        t = it.start_ns;
        lane_item at;
        ck_assert(lanes_item_at(l.ix, ln, t, 0, &at));
        ck_assert_int_eq(at.kind, LANE_ITEM_SAMPLE);
        if (i == 0) {
            strbuf st;
            strbuf_init(&st);
            detail_status(&st, l.ix, ln, &at, t, 1);
            ck_assert_msg(strstr(st.data, c->status), "%s: status \"%s\"", c->log, st.data);
            strbuf_free(&st);
        }
    }
    ck_assert(!lanes_next_item(l.ix, ln, t, 1, &it));
    t = UINT64_MAX;
    for (size_t i = n_want; i-- > 0;) {
        ck_assert(lanes_next_item(l.ix, ln, t, -1, &it));
        ck_assert_uint_eq(it.start_ns, want[i]);
        t = it.start_ns;
    }
    ck_assert(!lanes_next_item(l.ix, ln, t, -1, &it));
    x_free(lanes);
    x_free(want);
    x_free(ref);
    tp_close(&l);
}
END_TEST

/* The viewer: the prof lane's detail (the sample at the cursor, the view's profile),
 * '.' stepping samples, and P listing cost centres with Enter going to one's sample. */
START_TEST(test_timeprof_viewer)
{
    tp_log l;
    if (!tp_open_corpus(&l, "time-prof"))
        return;
    app_opts o = { .ascii = true };
    app *a = app_new(l.ix, "time-prof.eventlog", 160, 48, &o);
    surface *s = surface_new(160, 48);
    /* Down to the last lane: prof. */
    for (int k = 0; k < 8; k++)
        app_key(a, "Down");
    app_key(a, ".");
    app_key(a, ".");
    app_draw(a, s);
    char *scr = surface_dump(s);
    /* The dump's second sample: 35086315, tick 2, stack 1, 2, 3. */
    ck_assert_uint_eq(app_view(a)->cursor_ns, 35086315);
    ck_assert_msg(strstr(scr, "Sample 2 at 35.086315ms, cap 0, tick 2: stack of 3"), "%s",
                  scr);
    ck_assert_msg(strstr(scr, "fib (Main, Fib.hs:4:1-50)"), "%s", scr);
    ck_assert_msg(strstr(scr, "340 samples; individual, inherited:"), "%s", scr);
    ck_assert_msg(strstr(scr, " 97.6%  97.6%  fib (Main, Fib.hs:4:1-50)"), "%s", scr);
    ck_assert_msg(strstr(app_status(a), "prof sample 2/340, cap 0: fib"), "%s", app_status(a));
    /* P: the view's cost centres; Enter on GC (third by individual samples) goes to the
     * dump's first GC sample after the cursor (its first "cost centre stack 115"), Enter
     * again to the next. */
    app_key(a, "P");
    app_key(a, "Down");
    app_key(a, "Down");
    app_key(a, "Enter");
    size_t n_gc;
    char *dir = test_corpus_dir();
    char ref[1024];
    snprintf(ref, sizeof ref, "%s/time-prof.eventlog.reference", dir);
    free(dir);
    uint64_t *gc = tp_ref_times(ref, "cost centre stack 115", &n_gc);
    ck_assert_uint_eq(n_gc, 3);
    ck_assert_uint_eq(app_view(a)->cursor_ns, gc[0]);
    app_key(a, "P");
    app_key(a, "Down");
    app_key(a, "Down");
    app_key(a, "Enter");
    ck_assert_uint_eq(app_view(a)->cursor_ns, gc[1]);
    x_free(gc);
    x_free(scr);
    surface_free(s);
    app_free(a);
    tp_close(&l);
}
END_TEST

/* `elog-tui prof` on the command line: the window and cap options reach the report (its
 * output equals the golden of that window), --top, --json, and a cap the log has no
 * sample on is an error. */
static int
tp_cli(const char *args, char *out, size_t outlen)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    char *dir = test_corpus_dir();
    char line[2048];
    snprintf(line, sizeof line, "'%s' prof '%s/time-prof.eventlog' %s 2>/dev/null", bin, dir,
             args);
    free(dir);
    FILE *p = popen(line, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

START_TEST(test_timeprof_cli)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "timeprof: corpus not found, cli SKIPPED\n");
        return;
    }
    free(dir);
    static char out[65536];
    ck_assert_int_eq(tp_cli("--from 100ms --to 200ms --cap 0", out, sizeof out), 0);
    char *want = tp_golden("time-prof.prof-window.tsv");
    ck_assert_str_eq(out, want);
    x_free(want);
    ck_assert_int_eq(tp_cli("--top 1 --json", out, sizeof out), 0);
    ck_assert_msg(strstr(out, "\"samples\":340,\"program_samples\":332,") &&
                  strstr(out, "\"label\":\"fib\"") && !strstr(out, "OVERHEAD_of"), "%s", out);
    ck_assert_int_eq(tp_cli("--cap 3", out, sizeof out), 1);
    ck_assert_int_eq(tp_cli("--to 1ms --from 2ms", out, sizeof out), 1);
}
END_TEST

/* ---- property: the checkpointed profile equals a recount ------------------------------------ */

typedef struct tp_gen {
    uint64_t time_ns;
    uint32_t cap;
    uint32_t depth;
    uint32_t ids[9];            /* pool numbers, innermost first */
} tp_gen;

typedef struct tp_prop {
    size_t n_samples, n_pool;
    uint32_t n_caps;
    bool big_ids;               /* half the ids past the direct table's range */
    bool reversed;              /* written last first, all in the global block */
} tp_prop;

static const tp_prop tp_props[] = {
    { 6000, 40, 3, false, false },
    { 20000, 300, 2, true, false },
    { 1500, 7, 1, false, false },
    { 40000, 10, 2, false, false },    /* each cap's own checkpoints */
    { 3000, 20, 2, false, true },
};

static uint64_t
tp_rand(uint64_t *st)
{
    *st = *st * 6364136223846793005ull + 1442695040888963407ull;
    return *st >> 33;
}

/* The flat profile of gen[] over [from, to] on cap (or any), counted directly: rows in
 * timeprof_flat's order. Caller frees. */
static timeprof_row *
tp_recount(const tp_gen *g, size_t n, const uint32_t *pool, size_t n_pool, uint64_t from,
           uint64_t to, uint32_t cap, size_t *n_rows, uint64_t *n_samples)
{
    uint64_t *ind = xcalloc(n_pool + 1, sizeof *ind), *inh = xcalloc(n_pool + 1, sizeof *inh);
    *n_samples = 0;
    for (size_t i = 0; i < n; i++) {
        if (g[i].time_ns < from || g[i].time_ns > to ||
            (cap != TIMEPROF_ANY_CAP && g[i].cap != cap))
            continue;
        ++*n_samples;
        ind[g[i].depth ? g[i].ids[0] : n_pool]++;
        inh[n_pool]++;
        for (uint32_t k = 0; k < g[i].depth; k++) {
            bool again = false;
            for (uint32_t j = 0; j < k; j++)
                again = again || g[i].ids[j] == g[i].ids[k];
            if (!again)
                inh[g[i].ids[k]]++;
        }
    }
    timeprof_row *rows = xmalloc((n_pool + 1) * sizeof *rows);
    size_t out = 0;
    for (size_t c = 0; c <= n_pool; c++)
        if (c == n_pool ? ind[c] > 0 : inh[c] > 0)
            rows[out++] = (timeprof_row){ c == n_pool ? TIMEPROF_MAIN : pool[c], ind[c],
                                          inh[c] };
    /* Most individual first, then most inherited, then lower id (MAIN last). */
    for (size_t i = 1; i < out; i++)
        for (size_t j = i; j > 0; j--) {
            timeprof_row *x = &rows[j - 1], *y = &rows[j];
            bool before = y->individual != x->individual ? y->individual > x->individual
                          : y->inherited != x->inherited ? y->inherited > x->inherited
                                                         : y->cc < x->cc;
            if (!before)
                break;
            timeprof_row t = *x;
            *x = *y;
            *y = t;
        }
    x_free(ind);
    x_free(inh);
    *n_rows = out;
    return rows;
}

/* A log of random samples (recursion, MAIN, several caps; some written in the caps' own
 * blocks, flushed now and then, so that they meet out of time order), built serially and
 * with two threads: every sample reads back as written, and the profile of random ranges
 * and caps, the ranks and P's next-sample search equal a direct count. */
START_TEST(test_timeprof_property)
{
    const tp_prop *pr = &tp_props[_i];
    uint64_t st = 12345 + (uint64_t)_i;
    uint32_t *pool = xmalloc(pr->n_pool * sizeof *pool);
    for (size_t c = 0; c < pr->n_pool; c++)
        pool[c] = pr->big_ids && c % 2 ? 70000 + 13 * (uint32_t)c : 1 + (uint32_t)c;
    tp_gen *g = xcalloc(pr->n_samples, sizeof *g);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    evwrite *w = evwrite_new(f);
    EW(evwrite_declare_ghc_version(w, 902));
    EW(evwrite_begin_data(w));
    uint8_t b[256];
    for (size_t at = 0; at < pr->n_samples; at++) {
        size_t i = pr->reversed ? pr->n_samples - 1 - at : at;
        tp_gen *s = &g[i];
        s->time_ns = 1000 + 50 * i + tp_rand(&st) % 50;
        s->cap = (uint32_t)(tp_rand(&st) % pr->n_caps);
        s->depth = tp_rand(&st) % 10 == 0 ? 0 : 1 + (uint32_t)(tp_rand(&st) % 9);
        uint32_t ids[9];
        for (uint32_t k = 0; k < s->depth; k++) {
            /* A recursion now and then: an id from further in again. */
            s->ids[k] = k > 1 && tp_rand(&st) % 4 == 0 ? s->ids[tp_rand(&st) % k]
                                                       : (uint32_t)(tp_rand(&st) % pr->n_pool);
            ids[k] = pool[s->ids[k]];
        }
        size_t n = tp_sample(b, s->cap, i + 1, s->depth, ids, s->depth);
        /* Cap 0's samples in the global block, the others' in their own. */
        uint16_t block = s->cap == 0 || pr->reversed ? EVLOG_NO_CAP : (uint16_t)s->cap;
        EW(evwrite_event(w, block, EV_PROF_SAMPLE_COST_CENTRE, s->time_ns, b, n));
        if (tp_rand(&st) % 97 == 0)
            for (uint32_t c = 1; c < pr->n_caps; c++)
                EW(evwrite_flush_cap(w, (uint16_t)c));
    }
    EW(evwrite_finish(w));
    evwrite_destroy(w);
    long len = ftell(f);
    ck_assert_int_gt(len, 0);
    uint8_t *bytes = xmalloc((size_t)len);
    rewind(f);
    ck_assert_uint_eq(fread(bytes, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    diag d;
    evlog *log = evlog_open_bytes(bytes, (size_t)len, &d);
    ck_assert_ptr_nonnull(log);
    for (unsigned threads = 1; threads <= 2; threads++) {
        evindex_opts opts = { .threads = threads };
        evindex *ix = evindex_build(log, &opts, &d);
        ck_assert_ptr_nonnull(ix);
        char why[256];
        ck_assert_msg(evindex_check(ix, why, sizeof why), "%s", why);
        const timeprof *tp = evindex_timeprof(ix);
        ck_assert_uint_eq(timeprof_n_samples(tp), pr->n_samples);
        ck_assert_uint_eq(timeprof_n_caps(tp), pr->n_caps);
        for (size_t i = 0; i < pr->n_samples; i += 1 + tp_rand(&st) % 300) {
            timeprof_sample s = timeprof_sample_at(tp, i);
            ck_assert_uint_eq(s.time_ns, g[i].time_ns);
            ck_assert_uint_eq(s.cap, g[i].cap);
            ck_assert_uint_eq(s.tick, i + 1);
            uint32_t ids[TIMEPROF_MAX_DEPTH];
            ck_assert_uint_eq(timeprof_stack(tp, i, ids), g[i].depth);
            for (uint32_t k = 0; k < g[i].depth; k++)
                ck_assert_uint_eq(ids[k], pool[g[i].ids[k]]);
            ck_assert_uint_eq(timeprof_first_from(tp, g[i].time_ns), i);
            ck_assert_uint_eq(timeprof_last_by(tp, g[i].time_ns - 1), i ? i - 1 : SIZE_MAX);
        }
        /* Random ranges: whole, wide, narrow, empty; all caps or one (or none's). */
        uint64_t t0 = g[0].time_ns, t1 = g[pr->n_samples - 1].time_ns;
        for (int q = 0; q < 150; q++) {
            uint64_t from = t0 - 5 + tp_rand(&st) % (t1 - t0 + 10);
            uint64_t to = q % 3 == 0 ? from + tp_rand(&st) % 3000
                                     : from + tp_rand(&st) % (t1 - t0 + 10);
            if (q == 0) {
                from = 0;
                to = UINT64_MAX;
            }
            uint32_t cap = q % 4 == 1 ? (uint32_t)(tp_rand(&st) % (pr->n_caps + 1))
                                      : TIMEPROF_ANY_CAP;
            size_t na, nb;
            uint64_t sa, sb;
            timeprof_row *a = timeprof_flat(tp, from, to, cap, &na, &sa);
            timeprof_row *want = tp_recount(g, pr->n_samples, pool, pr->n_pool, from, to, cap,
                                            &nb, &sb);
            ck_assert_msg(sa == sb && na == nb, "query %d [%llu, %llu] cap %u: %llu samples "
                          "%zu rows, want %llu, %zu", q, (unsigned long long)from,
                          (unsigned long long)to, cap, (unsigned long long)sa, na,
                          (unsigned long long)sb, nb);
            for (size_t k = 0; k < na; k++)
                ck_assert_msg(a[k].cc == want[k].cc && a[k].individual == want[k].individual &&
                              a[k].inherited == want[k].inherited,
                              "query %d row %zu: %u %llu %llu, want %u %llu %llu", q, k, a[k].cc,
                              (unsigned long long)a[k].individual,
                              (unsigned long long)a[k].inherited, want[k].cc,
                              (unsigned long long)want[k].individual,
                              (unsigned long long)want[k].inherited);
            if (q == 0) {
                /* Ranks: the place of each sample's innermost in this, the whole profile. */
                for (size_t i = 0; i < pr->n_samples; i += 7) {
                    uint32_t inner = g[i].depth ? pool[g[i].ids[0]] : TIMEPROF_MAIN;
                    uint32_t place = TIMEPROF_RANK_MAX;
                    for (size_t k = 0; k < na && k < TIMEPROF_RANK_MAX; k++)
                        if (want[k].cc == inner)
                            place = (uint32_t)k;
                    ck_assert_uint_eq(timeprof_rank(tp, i), place);
                }
            }
            x_free(a);
            x_free(want);
        }
        /* P's Enter: the next sample (wrapping) with a given innermost cost centre. */
        for (int q = 0; q < 40; q++) {
            size_t from = tp_rand(&st) % pr->n_samples;
            size_t c = tp_rand(&st) % (pr->n_pool + 1);
            uint32_t cc = c == pr->n_pool ? TIMEPROF_MAIN : pool[c];
            size_t want = SIZE_MAX;
            for (size_t k = 0; k < pr->n_samples && want == SIZE_MAX; k++) {
                size_t i = (from + k) % pr->n_samples;
                if ((g[i].depth ? pool[g[i].ids[0]] : TIMEPROF_MAIN) == cc)
                    want = i;
            }
            ck_assert_uint_eq(timeprof_find_innermost(tp, from, cc), want);
        }
        ck_assert_uint_eq(timeprof_find_innermost(tp, 0, 999999), SIZE_MAX);
        /* Small: well under a tenth of the samples' bytes in the log. */
        ck_assert_uint_lt(timeprof_bytes(tp) * 10, (size_t)len);
        evindex_free(ix);
    }
    evlog_close(log);
    x_free(bytes);
    x_free(g);
    x_free(pool);
}
END_TEST

Suite *
test_timeprof_suite(void)
{
    Suite *s = suite_create("timeprof");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30 * test_time_scale());
    tcase_add_test(tc, test_timeprof_golden);
    tcase_add_test(tc, test_timeprof_written);
    tcase_add_test(tc, test_timeprof_fixture_rts_ccs);
    tcase_add_test(tc, test_timeprof_cli);
    suite_add_tcase(s, tc);
    tc = tcase_create("lanes");
    tcase_set_timeout(tc, 60 * test_time_scale());
    tcase_add_loop_test(tc, test_timeprof_lanes_step_samples, 0,
                        (int)(sizeof tp_lane_cases / sizeof tp_lane_cases[0]));
    tcase_add_test(tc, test_timeprof_viewer);
    suite_add_tcase(s, tc);
    tc = tcase_create("property");
    tcase_set_timeout(tc, 60 * test_time_scale());
    tcase_add_loop_test(tc, test_timeprof_property, 0,
                        (int)(sizeof tp_props / sizeof tp_props[0]));
    suite_add_tcase(s, tc);
    return s;
}
