/* tests/test_newer: what GHC 9.2 .. 9.14 write beyond 9.0 — info-table provenance and
 * -hi / -he heap profiles, eras, ticky counters in their four layouts, memory return and
 * blocks size, the non-moving census's two layouts and pruning, and the stop-status
 * numberings — on the peer suite's real logs (expected values from their `ghc-events
 * show` dumps, tests/golden/mkgolden.sh) and on logs written in each version's layout. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detail.h"
#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "gcstats.h"
#include "app.h"
#include "heapbands.h"
#include "lanes.h"
#include "merge.h"
#include "reports.h"
#include "statsfmt.h"
#include "surface.h"
#include "threadstats.h"
#include "stopstatus.h"
#include "tests.h"
#include "xalloc.h"

/* ---- helpers ----------------------------------------------------------------------------- */

typedef struct nw_log {
    evlog *log;
    evindex *ix;
    uint8_t *bytes;             /* owned when the log was built in memory */
} nw_log;

static bool
nw_open_corpus(nw_log *l, const char *name)
{
    memset(l, 0, sizeof *l);
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "newer: corpus not found, %s SKIPPED\n", name);
        return false;
    }
    strbuf p;
    strbuf_init(&p);
    strbuf_printf(&p, "%s/%s.eventlog", dir, name);
    diag d;
    l->log = evlog_open(p.data, &d);
    ck_assert_msg(l->log != NULL, "cannot open %s", p.data);
    l->ix = evindex_build(l->log, NULL, &d);
    ck_assert_ptr_nonnull(l->ix);
    char why[256];
    ck_assert_msg(evindex_check(l->ix, why, sizeof why), "%s: %s", name, why);
    strbuf_free(&p);
    free(dir);
    return true;
}

static void
nw_close(nw_log *l)
{
    evindex_free(l->ix);
    evlog_close(l->log);
    x_free(l->bytes);
}

/* Index bytes written by an evwrite session into `f` (rewound and read back). */
static void
nw_open_file(nw_log *l, FILE *f)
{
    memset(l, 0, sizeof *l);
    long n = ftell(f);
    ck_assert_int_gt(n, 0);
    l->bytes = xmalloc((size_t)n);
    rewind(f);
    ck_assert_uint_eq(fread(l->bytes, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    diag d;
    l->log = evlog_open_bytes(l->bytes, (size_t)n, &d);
    ck_assert_ptr_nonnull(l->log);
    l->ix = evindex_build(l->log, NULL, &d);
    char why[256];
    ck_assert_msg(evindex_check(l->ix, why, sizeof why), "%s", why);
}

#define EW(call) ck_assert_int_eq((call), EVWRITE_OK)

/* A writer into a temporary file with GHC `version`'s declarations, data begun. */
static evwrite *
nw_writer(FILE **f, unsigned version)
{
    *f = tmpfile();
    ck_assert_ptr_nonnull(*f);
    evwrite *w = evwrite_new(*f);
    EW(evwrite_declare_ghc_version(w, version));
    EW(evwrite_begin_data(w));
    return w;
}

static void
nw_finish(evwrite *w)
{
    EW(evwrite_finish(w));
    evwrite_destroy(w);
}

static int
nw_strp_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* `text`'s lines from line skip_first on, only the tab-separated columns `cols` (a -1
 * ended list), sorted; caller frees. */
static char *
nw_project(const char *text, size_t skip_first, const int *cols)
{
    size_t n = 0, cap = 16;
    char **v = xmalloc(cap * sizeof *v);
    char *copy = xstrdup(text);
    size_t k = 0;
    for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln;
         ln = strtok_r(NULL, "\n", &save), k++) {
        if (k < skip_first)
            continue;
        strbuf row;
        strbuf_init(&row);
        for (int c = 0; cols[c] >= 0; c++) {
            const char *p = ln;
            for (int t = 0; t < cols[c] && p; t++) {
                p = strchr(p, '\t');
                if (p)
                    p++;
            }
            ck_assert_msg(p != NULL, "line \"%s\" has no column %d", ln, cols[c]);
            const char *e = strchr(p, '\t');
            strbuf_printf(&row, "%s%.*s", c ? "\t" : "", (int)(e ? e - p : (long)strlen(p)), p);
        }
        if (n == cap)
            v = xreallocarray(v, cap *= 2, sizeof *v);
        v[n++] = row.data ? row.data : xstrdup("");
    }
    qsort(v, n, sizeof *v, nw_strp_cmp);
    strbuf out;
    strbuf_init(&out);
    for (size_t i = 0; i < n; i++) {
        strbuf_printf(&out, "%s\n", v[i]);
        x_free(v[i]);
    }
    x_free(v);
    x_free(copy);
    return out.data ? out.data : xstrdup("");
}

static char *
nw_golden(const char *name)
{
    strbuf rel;
    strbuf_init(&rel);
    strbuf_printf(&rel, "tests/golden/%s", name);
    char *path = test_path(rel.data);
    size_t len;
    uint8_t *b = test_read_file(path, &len);
    ck_assert_msg(b != NULL, "cannot read %s", path);
    char *s = xmalloc(len + 1);
    memcpy(s, b, len);
    s[len] = '\0';
    free(b);
    free(path);
    strbuf_free(&rel);
    return s;
}

/* ---- golden outputs from the peer suite ---------------------------------------------------- */

/* `ticky` on the four ticky layouts: counter, name, arity, info table, entries, allocs,
 * allocd and samples as the ghc-events dumps give them. */
START_TEST(test_newer_ticky_golden)
{
    static const char *const logs[] = { "ticky-ticky", "ticky-begin-sample", "ticky-new",
                                        "ticky-json" };
    static const ticky_layout layouts[] = { TICKY_LAYOUT_PLAIN, TICKY_LAYOUT_BEGIN,
                                            TICKY_LAYOUT_ITBL, TICKY_LAYOUT_JSON };
    static const int cols[] = { 0, 1, 2, 4, 5, 6, 7, 8, -1 };
    for (size_t i = 0; i < 4; i++) {
        nw_log l;
        if (!nw_open_corpus(&l, logs[i]))
            return;
        strbuf out;
        strbuf_init(&out);
        reports_opts o = { 0 };
        reports_ticky(&out, l.ix, &o);
        char *got = nw_project(out.data, 1, cols);
        strbuf gname;
        strbuf_init(&gname);
        strbuf_printf(&gname, "%s.ticky.tsv", logs[i]);
        char *want_raw = nw_golden(gname.data);
        static const int all[] = { 0, 1, 2, 3, 4, 5, 6, 7, -1 };
        char *want = nw_project(want_raw, 0, all);
        ck_assert_msg(strcmp(got, want) == 0, "%s ticky:\n%s\nwanted:\n%s", logs[i], got, want);
        ck_assert_int_eq(ticky_layout_of(evindex_ticky(l.ix)), layouts[i]);
        /* JSON: valid shape, sorted by allocations when asked. */
        strbuf_reset(&out);
        o = (reports_opts){ .json = true, .sort_by_allocs = true };
        reports_ticky(&out, l.ix, &o);
        ck_assert_ptr_nonnull(strstr(out.data, "\"counters\":["));
        x_free(got);
        x_free(want);
        x_free(want_raw);
        strbuf_free(&gname);
        strbuf_free(&out);
        nw_close(&l);
    }
}
END_TEST

/* The JSON description: 9.4 (ticky-new) in the kinds field, 9.6 (ticky-json) a field
 * of its own; both reach the counter's json, and 9.4's kinds are then empty. */
START_TEST(test_newer_ticky_json)
{
    nw_log l;
    if (!nw_open_corpus(&l, "ticky-new"))
        return;
    const ticky *t = evindex_ticky(l.ix);
    ck_assert_uint_eq(ticky_n_counters(t), 2);
    ck_assert_uint_eq(ticky_n_samples(t), 4);           /* 4 begin-sample events */
    const ticky_counter *c = ticky_counter_at(t, 0);
    ck_assert_str_eq(c->name, "fib1{v sZs} (Main) (fun) in r1");
    ck_assert_str_eq(c->json, "{\"type\":\"entCntr\",\"subTy\":\"fun\",\"fvs_c\":3,"
                              "\"fvs\":\"+++\",\"args\":\".\"}");
    ck_assert_str_eq(c->kinds, "");
    ck_assert_uint_eq(c->info_table, 0x4067a0);
    nw_close(&l);
    if (!nw_open_corpus(&l, "ticky-json"))
        return;
    t = evindex_ticky(l.ix);
    ck_assert_uint_eq(ticky_n_counters(t), 3);
    ck_assert_uint_eq(ticky_n_samples(t), 0);
    ck_assert_str_eq(ticky_counter_at(t, 1)->name, "Main.main4{v r1zF} (fun)");
    ck_assert_str_eq(ticky_counter_at(t, 1)->json,
                     "{\"type\":\"entCntr\",\"subTy\":\"fun\",\"fvs_c\":0,\"fvs\":\"\","
                     "\"args\":\"\"}");
    nw_close(&l);
}
END_TEST

/* `heap` on the -hd and -hy logs: every band's peak, its time, the mean, the last
 * census's bytes and the census count, from the dumps. */
START_TEST(test_newer_heap_golden)
{
    static const char *const logs[] = { "sleep.hd", "sleep.hy" };
    static const heapprof_breakdown bd[] = { HEAPPROF_BY_CLOSURE_DESCR, HEAPPROF_BY_TYPE_DESCR };
    static const int cols[] = { 0, 2, 3, 4, 5, 6, -1 };
    static const int all[] = { 0, 1, 2, 3, 4, 5, -1 };
    for (size_t i = 0; i < 2; i++) {
        nw_log l;
        if (!nw_open_corpus(&l, logs[i]))
            return;
        strbuf out;
        strbuf_init(&out);
        reports_opts o = { 0 };
        reports_heap(&out, l.ix, &o);
        char *got = nw_project(out.data, 1, cols);
        strbuf gname;
        strbuf_init(&gname);
        strbuf_printf(&gname, "%s.heap.tsv", logs[i]);
        char *raw = nw_golden(gname.data);
        char *want = nw_project(raw, 0, all);
        ck_assert_msg(strcmp(got, want) == 0, "%s heap:\n%s\nwanted:\n%s", logs[i], got, want);
        ck_assert_int_eq(heapprof_breakdown_of(evindex_heap_profile(l.ix)), bd[i]);
        x_free(got);
        x_free(want);
        x_free(raw);
        strbuf_free(&gname);
        strbuf_free(&out);
        nw_close(&l);
    }
}
END_TEST

/* `stats` over a log as the command computes it. Caller frees. */
static char *
nw_stats(const char *name)
{
    char *dir = test_corpus_dir();
    strbuf p;
    strbuf_init(&p);
    strbuf_printf(&p, "%s/%s.eventlog", dir, name);
    diag d;
    evlog *log = evlog_open(p.data, &d);
    ck_assert_ptr_nonnull(log);
    diag ending;
    merge *m = merge_new(log, &ending);
    gcstats_window win = { 0, UINT64_MAX };
    gcstats *g = gcstats_new(&win);
    evlog_event ev;
    while (merge_next(m, &ev))
        gcstats_add(g, &ev);
    merge_free(m);
    gcstats_report r;
    gcstats_finish(g, ending.code != DIAG_OK, &r);
    gcstats_free(g);
    strbuf out;
    strbuf_init(&out);
    statsfmt_report(&out, &r);
    evlog_close(log);
    strbuf_free(&p);
    free(dir);
    return out.data;
}

/* `stats`' memory rows (total memory in use with fragmentation, megablocks returned,
 * blocks in use) and the non-moving census and pruning, from the dumps: every golden
 * line is in the output, in the same order. */
START_TEST(test_newer_stats_golden)
{
    static const char *const logs[] = {
        "ghc-9.2-events", "ticky-new", "ticky-json", "ticky-begin-sample",
        "nonmoving-gc-census", "nonmoving-gc-census-T23340", "nonmoving-gc-pruned-segments",
    };
    char *dir = test_corpus_dir();
    if (!dir)
        return;
    free(dir);
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char *got = nw_stats(logs[i]);
        strbuf gname;
        strbuf_init(&gname);
        strbuf_printf(&gname, "%s.stats.txt", logs[i]);
        char *want = nw_golden(gname.data);
        ck_assert_msg(want[0] != '\0', "%s: empty golden", logs[i]);
        const char *at = got;
        char *copy = xstrdup(want);
        for (char *save = NULL, *ln = strtok_r(copy, "\n", &save); ln;
             ln = strtok_r(NULL, "\n", &save)) {
            strbuf line;
            strbuf_init(&line);
            strbuf_printf(&line, "%s\n", ln);
            const char *hit = strstr(at, line.data);
            ck_assert_msg(hit != NULL, "%s stats: missing (or out of order) \"%s\" in\n%s",
                          logs[i], ln, got);
            at = hit + line.len;
            strbuf_free(&line);
        }
        x_free(copy);
        x_free(want);
        x_free(got);
        strbuf_free(&gname);
    }
}
END_TEST

/* The index's non-moving census: the 13-byte layout's log2 and the 14-byte layout's
 * size in bytes both give the block size ghc-events prints; pruning keeps both counts. */
START_TEST(test_newer_nonmoving_corpus)
{
    nw_log l;
    if (!nw_open_corpus(&l, "nonmoving-gc-census"))
        return;
    /* 2nd census line of the dump: "nonmoving heap census 16: 0 active ..., 54 live". */
    ck_assert_uint_eq(evindex_n_nm_census(l.ix), 96);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 0)->blk_size, 8);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 1)->blk_size, 16);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 1)->live, 54);
    nw_close(&l);
    if (!nw_open_corpus(&l, "nonmoving-gc-pruned-segments"))
        return;
    ck_assert_uint_eq(evindex_n_nm_census(l.ix), 299);
    /* "nonmoving heap census 24: 0 active segments, 0 filled segments, 54 live blocks". */
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 2)->blk_size, 24);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 2)->live, 54);
    ck_assert_uint_eq(series_count(evindex_nm_pruned(l.ix)), 13);
    ck_assert_uint_eq(series_count(evindex_nm_free_segments(l.ix)), 13);
    /* "2697693: nonmoving segments pruned: 0 pruned segments, 8 free segments retained" */
    ck_assert_uint_eq(series_get(evindex_nm_free_segments(l.ix), 0).time_ns, 2697693);
    ck_assert_uint_eq(series_get(evindex_nm_free_segments(l.ix), 0).value, 8);
    nw_close(&l);
}
END_TEST

/* ---- every event type of the peer suite this issue names is used by a view --------------- */

/* Occurrences of each event type in the log. */
static void
nw_count_types(const evlog *log, uint64_t *count)
{
    memset(count, 0, 65536 * sizeof *count);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev))
        count[ev.type]++;
}

/* The detail pane of the first lane of `kind` at time t, joined; caller frees. NULL if
 * the log has no such lane. */
static char *
nw_detail(const evindex *ix, lane_kind kind, uint64_t t)
{
    lane lanes[64];
    size_t n = lanes_build(ix, lanes, 64);
    for (size_t i = 0; i < n && i < 64; i++) {
        if (lanes[i].kind != kind)
            continue;
        lane_item it;
        lanes_item_at(ix, &lanes[i], t, 0, &it);
        detail_lines d;
        detail_lines_init(&d);
        detail_thread_memo memo = { 0 };
        detail_item(&d, ix, &lanes[i], &it, t, &memo);
        strbuf sb;
        strbuf_init(&sb);
        for (size_t k = 0; k < d.n; k++)
            strbuf_printf(&sb, "%s\n", d.lines[k]);
        detail_lines_free(&d);
        return sb.data ? sb.data : xstrdup("");
    }
    return NULL;
}

typedef struct nw_use {
    uint16_t type;
    lane_kind lane;             /* the lane that shows it */
    const char *detail;         /* text its detail pane must hold at the last such event */
} nw_use;

/* What this issue says each newer type must feed. */
static const nw_use nw_uses[] = {
    { EV_MEM_RETURN, LANE_MEMORY, "Megablocks (last major GC): " },
    { EV_BLOCKS_SIZE, LANE_MEMORY, "Blocks size: " },
    { EV_IPE, LANE_HEAP, "Info tables (IPE): " },  /* and names -hi bands (the bands lane) */
    { EV_HEAP_PROF_BEGIN, LANE_HEAPBANDS, "By " },
    { EV_HEAP_PROF_COST_CENTRE, LANE_HEAPBANDS, "Heap profile census" },
    { EV_HEAP_PROF_SAMPLE_BEGIN, LANE_HEAPBANDS, "Heap profile census" },
    { EV_HEAP_PROF_SAMPLE_COST_CENTRE, LANE_HEAPBANDS, "Heap profile census" },
    { EV_HEAP_PROF_SAMPLE_STRING, LANE_HEAPBANDS, "Heap profile census" },
    { EV_HEAP_PROF_SAMPLE_END, LANE_HEAPBANDS, "Heap profile census" },
    { EV_HEAP_BIO_PROF_SAMPLE_BEGIN, LANE_HEAPBANDS, "Heap profile census" },
    { EV_NONMOVING_HEAP_CENSUS, LANE_NONMOVING, "Non-moving census at " },
    { EV_NONMOVING_PRUNED_SEGMENTS, LANE_NONMOVING, "Free list pruned at " },
    { EV_TICKY_COUNTER_DEF, LANE_TICKY, "Ticky: " },
    { EV_TICKY_COUNTER_SAMPLE, LANE_TICKY, "Sample " },
    { EV_TICKY_BEGIN_SAMPLE, LANE_TICKY, "Sample " },
    /* The time profile (-p): the prof lane, its detail naming the sample's cost centres. */
    { EV_PROF_BEGIN, LANE_PROF, ", tick interval " },
    { EV_PROF_SAMPLE_COST_CENTRE, LANE_PROF, "Time profile: " },
    { EV_HEAP_PROF_COST_CENTRE, LANE_PROF, NULL },
};

/* The index holds what every event of `type` said (a count each view reads). */
static uint64_t
nw_indexed(const evindex *ix, uint16_t type)
{
    const ticky *t = evindex_ticky(ix);
    const heapprof *hp = evindex_heap_profile(ix);
    uint64_t n = 0;
    switch (type) {
    case EV_MEM_RETURN: return series_count(evindex_series(ix, EVINDEX_S_MEM_CURRENT));
    case EV_BLOCKS_SIZE: return series_count(evindex_series(ix, EVINDEX_S_BLOCKS_SIZE));
    case EV_IPE: return ipe_table_count(evindex_ipe(ix));
    case EV_NONMOVING_HEAP_CENSUS: return evindex_n_nm_census(ix);
    case EV_NONMOVING_PRUNED_SEGMENTS: return series_count(evindex_nm_pruned(ix));
    case EV_TICKY_COUNTER_DEF:
        for (size_t i = 0; i < ticky_n_counters(t); i++)
            n += ticky_counter_at(t, i)->defined;
        return n;
    case EV_TICKY_COUNTER_SAMPLE:
        for (size_t i = 0; i < ticky_n_counters(t); i++)
            n += ticky_counter_at(t, i)->n_samples;
        return n;
    case EV_TICKY_BEGIN_SAMPLE: return ticky_n_samples(t);
    case EV_PROF_BEGIN: return timeprof_interval(evindex_timeprof(ix), NULL, NULL);
    case EV_PROF_SAMPLE_COST_CENTRE: return timeprof_n_samples(evindex_timeprof(ix));
    case EV_HEAP_PROF_BEGIN: return heapprof_breakdown_of(hp) != HEAPPROF_BY_UNKNOWN;
    case EV_HEAP_PROF_COST_CENTRE: return heapprof_n_cost_centres(hp);
    case EV_HEAP_PROF_SAMPLE_BEGIN: case EV_HEAP_BIO_PROF_SAMPLE_BEGIN:
    case EV_HEAP_PROF_SAMPLE_END:
        return heapprof_n_censuses(hp);
    default:
        for (size_t i = 0; i < heapprof_n_censuses(hp); i++)
            n += heapprof_census_at(hp, i)->n_entries;
        return n;
    }
}

START_TEST(test_newer_every_type_used)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "newer: corpus not found, type coverage SKIPPED\n");
        return;
    }
    size_t n_logs;
    char **names = test_list_dir(dir, ".eventlog", &n_logs);
    uint64_t *count = xmalloc(65536 * sizeof *count);
    size_t checked = 0;
    for (size_t f = 0; f < n_logs; f++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, names[f]);
        diag d;
        evlog *log = evlog_open(p.data, &d);
        ck_assert_ptr_nonnull(log);
        evindex *ix = evindex_build(log, NULL, &d);
        nw_count_types(log, count);
        for (size_t k = 0; k < sizeof nw_uses / sizeof nw_uses[0]; k++) {
            const nw_use *u = &nw_uses[k];
            if (!evlog_type_of(log, u->type) || !count[u->type])
                continue;
            /* Cost centres and the profile's start name heap-profile bands; a time
             * profile (-p, time-prof) has them without censuses, outside this issue. */
            if ((u->type == EV_HEAP_PROF_COST_CENTRE || u->type == EV_HEAP_PROF_BEGIN) &&
                u->lane == LANE_HEAPBANDS &&
                !count[EV_HEAP_PROF_SAMPLE_BEGIN] && !count[EV_HEAP_BIO_PROF_SAMPLE_BEGIN])
                continue;
            /* The same definitions name a time profile's samples (the prof lane). */
            if (u->type == EV_HEAP_PROF_COST_CENTRE && u->lane == LANE_PROF &&
                !count[EV_PROF_SAMPLE_COST_CENTRE])
                continue;
            uint64_t used = nw_indexed(ix, u->type);
            ck_assert_msg(used > 0, "%s: %" PRIu64 " events of type %u, none indexed",
                          names[f], count[u->type], u->type);
            /* Per-event data: one sample per event. */
            if (u->type == EV_MEM_RETURN || u->type == EV_BLOCKS_SIZE ||
                u->type == EV_NONMOVING_HEAP_CENSUS || u->type == EV_NONMOVING_PRUNED_SEGMENTS ||
                u->type == EV_TICKY_COUNTER_SAMPLE || u->type == EV_TICKY_BEGIN_SAMPLE ||
                u->type == EV_PROF_SAMPLE_COST_CENTRE)
                ck_assert_msg(used == count[u->type], "%s: type %u: %" PRIu64 " events, %"
                              PRIu64 " indexed", names[f], u->type, count[u->type], used);
            /* The view: its lane exists and its detail shows the data at the end. */
            char *text = nw_detail(ix, u->lane, evindex_last_ns(ix));
            ck_assert_msg(text != NULL, "%s: type %u present but no lane %d", names[f],
                          u->type, u->lane);
            if (u->detail)
                ck_assert_msg(strstr(text, u->detail) != NULL,
                              "%s: type %u: the detail lacks \"%s\":\n%s", names[f], u->type,
                              u->detail, text);
            if (u->type == EV_HEAP_PROF_COST_CENTRE && u->lane == LANE_PROF) {
                /* The last sample's innermost cost centre, by the name its definition
                 * gives, with its module. */
                const timeprof *tp = evindex_timeprof(ix);
                uint32_t cc = timeprof_innermost(tp, timeprof_n_samples(tp) - 1);
                const char *label, *module, *src;
                bool caf;
                ck_assert(heapprof_cost_centre_find(evindex_heap_profile(ix), cc, &label,
                                                    &module, &src, &caf));
                char want[512];
                snprintf(want, sizeof want, "  %s (%s", label, module);
                ck_assert_msg(strstr(text, want) != NULL, "%s: the detail lacks \"%s\":\n%s",
                              names[f], want, text);
            }
            x_free(text);
            checked++;
        }
        /* Types the issue names that no entry above covers would be a gap. */
        static const uint16_t named[] = { 90, 91, 160, 161, 162, 163, 164, 165, 166, 167,
                                          168, 169, 207, 208, 210, 211, 212 };
        for (size_t k = 0; k < sizeof named / sizeof named[0]; k++) {
            bool covered = false;
            for (size_t j = 0; j < sizeof nw_uses / sizeof nw_uses[0]; j++)
                covered |= nw_uses[j].type == named[k];
            ck_assert_msg(covered, "type %u has no view", named[k]);
        }
        evindex_free(ix);
        evlog_close(log);
        strbuf_free(&p);
    }
    ck_assert_uint_gt(checked, 30);
    x_free(count);
    test_free_names(names, n_logs);
    free(dir);
}
END_TEST

/* Every peer-suite log opened in the viewer (160x48, the whole log in view, UTF-8 and
 * ASCII): each lane it gets has something drawn in it (no empty lane claiming data: no
 * HEC or activity lane in a log without runs or collections, no ticky lane left blank
 * for want of samples), and no garbage (no U+FFFD, nothing but ASCII with --ascii). */
START_TEST(test_newer_peer_snapshots)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "newer: corpus not found, snapshots SKIPPED\n");
        return;
    }
    size_t n_logs;
    char **names = test_list_dir(dir, ".eventlog", &n_logs);
    for (size_t f = 0; f < n_logs; f++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, names[f]);
        diag d;
        evlog *log = evlog_open(p.data, &d);
        ck_assert_ptr_nonnull(log);
        evindex *ix = evindex_build(log, NULL, &d);
        size_t n_lanes;
        lane *lanes = lanes_build_all(ix, &n_lanes);
        for (int ascii = 0; ascii < 2; ascii++) {
            app_opts o = { .ascii = ascii != 0 };
            app *a = app_new(ix, names[f], 160, 48, &o);
            surface *s = surface_new(160, 48);
            app_draw(a, s);
            char *scr = surface_dump(s);
            ck_assert_msg(strstr(scr, "\xef\xbf\xbd") == NULL, "%s: U+FFFD:\n%.1200s", names[f],
                          scr);
            for (const char *c = scr; ascii && *c; c++)
                ck_assert_msg((unsigned char)*c < 0x80, "%s: non-ASCII with --ascii:\n%.1200s",
                              names[f], scr);
            /* The lanes from the fourth line on, each its rows, in order. */
            const char *line = scr;
            for (int k = 0; k < 3; k++)
                line = strchr(line, '\n') + 1;
            lanes_draw_opts lo = { 0 };
            for (size_t i = 0; i < n_lanes; i++) {
                ck_assert_msg(strncmp(line, lanes[i].label, strlen(lanes[i].label)) == 0,
                              "%s: lane %zu (%s) not where expected:\n%.1200s", names[f], i,
                              lanes[i].label, scr);
                bool drawn = false;
                /* HEC lanes are split in two (runs, "  gc") when there is room. */
                lo.hec_split = strncmp(strchr(line, '\n') + 1, "  gc", 4) == 0;
                for (int r = 0; r < lanes_rows(&lanes[i], &lo); r++) {
                    const char *end = strchr(line, '\n');
                    /* The plot starts after the label columns (ASCII labels here). */
                    for (const char *c = line + LANES_LABEL_COLS; c < end; c++)
                        drawn |= *c != ' ';
                    line = end + 1;
                }
                ck_assert_msg(drawn, "%s: lane %s is empty%s:\n%.1200s", names[f], lanes[i].label,
                              ascii ? " (ASCII)" : "", scr);
            }
            x_free(scr);
            surface_free(s);
            app_free(a);
        }
        x_free(lanes);
        evindex_free(ix);
        evlog_close(log);
        strbuf_free(&p);
    }
    test_free_names(names, n_logs);
    free(dir);
}
END_TEST

/* ---- logs in each version's layout (evwrite) ----------------------------------------------- */

/* -hi: bands named from IPE (table, closure type by number, type, label, module,
 * location) in `heap` and the detail; an address without an entry stays an address. */
START_TEST(test_newer_hi_ipe)
{
    FILE *f;
    evwrite *w = nw_writer(&f, 902);
    const uint16_t G = EVLOG_NO_CAP;
    EW(evwrite_heap_prof_begin(w, G, 100, 1000000, HEAPPROF_BY_INFO_TABLE));
    EW(evwrite_ipe(w, G, 110, 0x409f78, "sat_s154_info", "15", "[Int]", "xs", "Main",
                   "Test.hs:5:1-30"));
    EW(evwrite_ipe(w, G, 120, 0x40a088, "main_info", "21", "IO ()", "main", "Main",
                   "Test.hs:7:1-4"));
    EW(evwrite_ipe(w, G, 125, 0x40a088, "duplicate_info", "1", "", "", "X", "X.hs:1:1"));
    /* 9.2 gave the info pointer, 16 bytes past the struct address the band names. */
    EW(evwrite_ipe(w, G, 130, 0x50010, "f_info", "8", "Int -> Int", "f", "M", "M.hs:2:1-9"));
    for (uint64_t c = 1; c <= 2; c++) {
        EW(evwrite_heap_prof_sample_begin(w, G, 1000 * c, c));
        EW(evwrite_heap_prof_sample_string(w, G, 1000 * c + 1, 4096 * c, "0x409f78"));
        EW(evwrite_heap_prof_sample_string(w, G, 1000 * c + 2, 100, "0x40a088"));
        EW(evwrite_heap_prof_sample_string(w, G, 1000 * c + 3, 50, "0xdead0"));
        if (c == 1)
            EW(evwrite_heap_prof_sample_string(w, G, 1000 * c + 3, 10, "0x50000"));
        EW(evwrite_heap_prof_sample_end(w, G, 1000 * c + 4, c));
    }
    nw_finish(w);
    nw_log l;
    nw_open_file(&l, f);
    const heapprof *hp = evindex_heap_profile(l.ix);
    ck_assert_int_eq(heapprof_breakdown_of(hp), HEAPPROF_BY_INFO_TABLE);
    ck_assert_uint_eq(ipe_table_count(evindex_ipe(l.ix)), 3);
    ck_assert_str_eq(ipe_table_find(evindex_ipe(l.ix), 0x40a088)->table_name, "main_info");
    strbuf out;
    strbuf_init(&out);
    reports_opts o = { 0 };
    reports_heap(&out, l.ix, &o);
    ck_assert_str_eq(out.data,
        "band\tkind\tpeak_bytes\tpeak_ns\tmean_bytes\tlast_bytes\tcensuses\tinfo_table\t"
        "closure_type\ttype\tlabel\tmodule\tsrc_loc\n"
        "0x409f78\tstring\t8192\t2000\t6144\t8192\t2\tsat_s154_info\tTHUNK\t[Int]\txs\tMain\t"
        "Test.hs:5:1-30\n"
        "0x40a088\tstring\t100\t1000\t100\t100\t2\tmain_info\tTHUNK_STATIC\tIO ()\tmain\tMain\t"
        "Test.hs:7:1-4\n"
        "0xdead0\tstring\t50\t1000\t50\t50\t2\t\t\t\t\t\t\n"
        "0x50000\tstring\t10\t1000\t5\t0\t1\tf_info\tFUN\tInt -> Int\tf\tM\tM.hs:2:1-9\n");
    strbuf name;
    strbuf_init(&name);
    heapbands_name(hp, evindex_ipe(l.ix), 0, &name);
    ck_assert_str_eq(name.data, "xs :: [Int] (THUNK) at Main Test.hs:5:1-30 [sat_s154_info]");
    char *text = nw_detail(l.ix, LANE_HEAPBANDS, 2500);
    ck_assert_ptr_nonnull(text);
    ck_assert_msg(strstr(text, "By info table (-hi), Heap profile census 2 of 2") != NULL, "%s",
                  text);
    ck_assert_msg(strstr(text, "main :: IO () (THUNK_STATIC) at Main Test.hs:7:1-4") != NULL,
                  "%s", text);
    ck_assert_msg(strstr(text, "0xdead0") != NULL, "%s", text);
    x_free(text);
    strbuf_free(&name);
    strbuf_free(&out);
    nw_close(&l);
}
END_TEST

/* -he: bands are eras. */
START_TEST(test_newer_he_eras)
{
    FILE *f;
    evwrite *w = nw_writer(&f, 910);
    const uint16_t G = EVLOG_NO_CAP;
    EW(evwrite_heap_prof_begin(w, G, 100, 1000000, HEAPPROF_BY_ERA));
    EW(evwrite_heap_prof_sample_begin(w, G, 1000, 1));
    EW(evwrite_heap_prof_sample_string(w, G, 1001, 300, "1"));
    EW(evwrite_heap_prof_sample_end(w, G, 1002, 1));
    EW(evwrite_heap_prof_sample_begin(w, G, 2000, 2));
    EW(evwrite_heap_prof_sample_string(w, G, 2001, 200, "1"));
    EW(evwrite_heap_prof_sample_string(w, G, 2002, 900, "2"));
    EW(evwrite_heap_prof_sample_end(w, G, 2003, 2));
    nw_finish(w);
    nw_log l;
    nw_open_file(&l, f);
    strbuf out;
    strbuf_init(&out);
    reports_opts o = { 0 };
    reports_heap(&out, l.ix, &o);
    ck_assert_str_eq(out.data,
                     "band\tkind\tpeak_bytes\tpeak_ns\tmean_bytes\tlast_bytes\tcensuses\n"
                     "era 2\tstring\t900\t2000\t450\t900\t1\n"
                     "era 1\tstring\t300\t1000\t250\t200\t2\n");
    strbuf_free(&out);
    nw_close(&l);
}
END_TEST

/* Ticky definitions in the four layouts, as each version writes them, read back. */
START_TEST(test_newer_ticky_layouts)
{
    static const unsigned versions[] = { 902, 903, 904, 906, 912 };
    static const ticky_layout want[] = { TICKY_LAYOUT_PLAIN, TICKY_LAYOUT_BEGIN,
                                         TICKY_LAYOUT_ITBL, TICKY_LAYOUT_JSON,
                                         TICKY_LAYOUT_JSON };
    const char *json = "{\"type\":\"entCntr\",\"args\":\"+\"}";
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
        unsigned v = versions[i];
        FILE *f;
        evwrite *w = nw_writer(&f, v);
        const uint16_t G = EVLOG_NO_CAP;
        for (uint64_t s = 0; s < 3; s++) {
            uint64_t t = 1000 * (s + 1);
            if (v >= 903)
                EW(evwrite_empty(w, G, EV_TICKY_BEGIN_SAMPLE, t));
            EW(evwrite_ticky_sample(w, G, t + 1, 0x100, 10 + s, 160, 0));
            if (s != 1)
                EW(evwrite_ticky_sample(w, G, t + 2, 0x200, 1, 32, 8));
        }
        EW(evwrite_ticky_def(w, G, 9000, v, 0x100, 1, "M", "go{v s1} (Main) (fun)", 0x4a0000,
                             json));
        EW(evwrite_ticky_def(w, G, 9001, v, 0x200, 0, "", "Main.main{v r1} (fun)", 0x4a0100,
                             json));
        nw_finish(w);
        nw_log l;
        nw_open_file(&l, f);
        const ticky *t = evindex_ticky(l.ix);
        ck_assert_int_eq(ticky_layout_of(t), want[i]);
        ck_assert_uint_eq(ticky_n_samples(t), 3);
        ck_assert_uint_eq(ticky_n_counters(t), 2);
        const ticky_counter *c = ticky_counter_at(t, 0);
        ck_assert_uint_eq(c->id, 0x100);
        ck_assert_str_eq(c->name, "go{v s1} (Main) (fun)");
        ck_assert_uint_eq(c->arity, 1);
        ck_assert_uint_eq(c->entries, 10 + 11 + 12);
        ck_assert_uint_eq(c->allocs, 3 * 160);
        ck_assert_uint_eq(c->n_samples, 3);
        ck_assert_uint_eq(ticky_counter_at(t, 1)->n_samples, 2);
        ck_assert_uint_eq(ticky_counter_at(t, 1)->allocd, 16);
        ck_assert_int_eq(c->has_info_table, v >= 904);
        if (v >= 904) {
            ck_assert_uint_eq(c->info_table, 0x4a0000);
            ck_assert_str_eq(c->json, json);
            ck_assert_str_eq(c->kinds, v < 906 ? "" : "M");
        } else {
            ck_assert_ptr_null(c->json);
            ck_assert_str_eq(c->kinds, "M");
        }
        ck_assert_uint_eq(ticky_sample_at(t, 1)->n, 1);
        ck_assert_uint_eq(ticky_sample_at(t, 2)->entries, 12 + 1);
        char *text = nw_detail(l.ix, LANE_TICKY, 3500);
        ck_assert_ptr_nonnull(text);
        ck_assert_msg(strstr(text, "Sample 3 at ") && strstr(text, "12 entries") &&
                      strstr(text, "go{v s1} (Main) (fun) (arity 1)"), "%s", text);
        x_free(text);
        nw_close(&l);
    }
}
END_TEST

/* Memory return and blocks size in the index, the memory lane and stats' total. */
START_TEST(test_newer_memory)
{
    FILE *f;
    evwrite *w = nw_writer(&f, 902);
    EW(evwrite_heap_info(w, 0, 10, 0, 2, 0, 1u << 22, 1u << 20, 4096));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 100, 0, 5u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_BLOCKS_SIZE, 101, 0, 4000000));
    EW(evwrite_mem_return(w, 0, 102, 0, 7, 4, 2));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 200, 0, 5u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_BLOCKS_SIZE, 201, 0, 3000000));
    EW(evwrite_mem_return(w, 0, 202, 0, 5, 5, 0));
    nw_finish(w);
    nw_log l;
    nw_open_file(&l, f);
    ck_assert_uint_eq(series_count(evindex_series(l.ix, EVINDEX_S_MEM_CURRENT)), 2);
    ck_assert_uint_eq(series_max(evindex_series(l.ix, EVINDEX_S_MEM_CURRENT)), 7);
    char *text = nw_detail(l.ix, LANE_MEMORY, 150);
    ck_assert_msg(strstr(text, "Megablocks (last major GC): 7 allocated, 4 needed, 2 returned"),
                  "%s", text);
    ck_assert_msg(strstr(text, "Blocks size: 3.8 MiB"), "%s", text);
    x_free(text);
    /* stats: 7 megablocks at the peak (MEM_RETURN above HEAP_SIZE's 5); fragmentation
     * 7 x 252 blocks x 4096 - 4,000,000 bytes = 3,225,856 -> 3 MiB. */
    diag ending = { 0 };
    merge *m = merge_new(l.log, &ending);
    gcstats_window win = { 0, UINT64_MAX };
    gcstats *g = gcstats_new(&win);
    evlog_event ev;
    while (merge_next(m, &ev))
        gcstats_add(g, &ev);
    merge_free(m);
    gcstats_report r;
    gcstats_finish(g, false, &r);
    gcstats_free(g);
    ck_assert_uint_eq(r.total_mem_mib, 7);
    ck_assert_uint_eq(r.mem.peak_mblocks, 7);
    ck_assert_uint_eq(r.mem.returned_mblocks, 2);
    ck_assert(r.mem.has_frag);
    ck_assert_uint_eq(r.mem.frag_mib, 3);
    nw_close(&l);
}
END_TEST

/* The census's two layouts and pruning, written as 9.8 and 9.12 write them. */
START_TEST(test_newer_nonmoving_layouts)
{
    FILE *f;
    evwrite *w = nw_writer(&f, 908);
    const uint16_t G = EVLOG_NO_CAP;
    ck_assert_int_eq(evwrite_declared_size(w, EV_NONMOVING_HEAP_CENSUS), 13);
    ck_assert_int_eq(evwrite_declared_size(w, EV_NONMOVING_PRUNED_SEGMENTS),
                     EVWRITE_EUNDECLARED);
    EW(evwrite_nonmoving_heap_census_log2(w, G, 100, 3, 1, 2, 3));
    EW(evwrite_nonmoving_heap_census_log2(w, G, 101, 4, 4, 5, 6));
    nw_finish(w);
    nw_log l;
    nw_open_file(&l, f);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 0)->blk_size, 8);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 1)->blk_size, 16);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 1)->live, 6);
    nw_close(&l);

    w = nw_writer(&f, 912);
    ck_assert_int_eq(evwrite_declared_size(w, EV_NONMOVING_HEAP_CENSUS), 14);
    EW(evwrite_nonmoving_heap_census(w, G, 100, 24, 1, 2, 3));
    EW(evwrite_nonmoving_pruned_segments(w, G, 200, 5, 17));
    nw_finish(w);
    nw_open_file(&l, f);
    ck_assert_uint_eq(evindex_nm_census_at(l.ix, 0)->blk_size, 24);
    ck_assert_uint_eq(series_get(evindex_nm_pruned(l.ix), 0).value, 5);
    ck_assert_uint_eq(series_get(evindex_nm_free_segments(l.ix), 0).value, 17);
    char *text = nw_detail(l.ix, LANE_NONMOVING, 300);
    ck_assert_msg(strstr(text, "Non-moving census at 100ns: 1 allocators, 1 active + 2 filled"
                               " segments, 3 live blocks (72 B)") &&
                  strstr(text, "Free list pruned at 200ns: 5 segments pruned, 17 free segments"
                               " retained"), "%s", text);
    x_free(text);
    nw_close(&l);
}
END_TEST

/* ---- stop status per GHC numbering ------------------------------------------------------------ */

/* A log whose header declares USER_MARKER (58) and HACK_BUG_T9003 (59) as asked, with
 * one run stopped with `status`; returns `show`'s line for it and the class the
 * `threads` report counts it in. */
static void
nw_stop_log(bool marker, bool t9003, uint16_t status, char *line, size_t line_len,
            enum threadtab_stop_class *cls)
{
    FILE *f = tmpfile();
    evwrite *w = evwrite_new(f);
    EW(evwrite_declare(w, EV_CREATE_THREAD, 4, "Create thread"));
    EW(evwrite_declare(w, EV_RUN_THREAD, 4, "Run thread"));
    EW(evwrite_declare(w, EV_STOP_THREAD, 10, "Stop thread"));
    if (marker)
        EW(evwrite_declare(w, EV_USER_MARKER, EVWRITE_VARIABLE, "User marker"));
    if (t9003)
        EW(evwrite_declare(w, EV_HACK_BUG_T9003, 0, "Empty event for bug #9003"));
    EW(evwrite_begin_data(w));
    EW(evwrite_create_thread(w, 0, 10, 1));
    EW(evwrite_run_thread(w, 0, 20, 1));
    EW(evwrite_stop_thread(w, 0, 30, 1, status, 7));
    nw_finish(w);
    nw_log l;
    nw_open_file(&l, f);
    size_t n;
    char *out = test_show_bytes(l.bytes, evlog_size(l.log), &n, NULL);
    const char *p = strstr(out, "30: cap 0: ");
    ck_assert_ptr_nonnull(p);
    const char *e = strchr(p, '\n');
    snprintf(line, line_len, "%.*s", (int)(e - p), p);
    free(out);
    threadstats_row row;
    threadstats_of(l.ix, 1, &row);
    *cls = THREADTAB_STOP_OTHER;
    for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++)
        if (row.stops[c])
            *cls = (enum threadtab_stop_class)c;
    nw_close(&l);
}

START_TEST(test_newer_stop_status)
{
    static const struct {
        bool marker, t9003;
        uint16_t status;
        const char *text;
        enum threadtab_stop_class cls;
    } cases[] = {
        /* 7.8.3 .. 9.14: 6 + why_blocked, BlockedOnMsgThrowTo = 12. */
        { true, true, 18, "blocked in throwTo", THREADTAB_STOP_THROWTO },
        { true, true, 16, "blocked on a foreign call", THREADTAB_STOP_FOREIGN },
        { true, true, 20, "blocked reading an MVar", THREADTAB_STOP_MVAR },
        { true, true, 8, "blocked on black hole owned by thread 7", THREADTAB_STOP_BLACKHOLE },
        /* 7.8.2: MVarRead at 8, everything after shifted up by one. */
        { true, false, 17, "blocked in throwTo", THREADTAB_STOP_THROWTO },
        { true, false, 8, "blocked reading an MVar", THREADTAB_STOP_MVAR },
        { true, false, 9, "blocked on black hole owned by thread 7", THREADTAB_STOP_BLACKHOLE },
        /* Before 7.7: throwTo at 16, foreign calls at 14, 15. */
        { false, false, 16, "blocked in throwTo", THREADTAB_STOP_THROWTO },
        { false, false, 14, "blocked in a foreign call", THREADTAB_STOP_FOREIGN },
        { false, false, 18, "waiting for data to be globalised", THREADTAB_STOP_OTHER },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[200], want[200];
        enum threadtab_stop_class cls;
        nw_stop_log(cases[i].marker, cases[i].t9003, cases[i].status, line, sizeof line, &cls);
        snprintf(want, sizeof want, "30: cap 0: stopping thread 1 (%s)", cases[i].text);
        ck_assert_str_eq(line, want);
        ck_assert_msg(cls == cases[i].cls, "case %zu: class %d, want %d", i, cls, cases[i].cls);
    }
}
END_TEST

/* heap --censuses of an elog-synth -hi log (9.2 layout) names every entry's band from
 * its IPE entry, as heap does: tests/golden/synth-hi.heap-censuses.tsv, made from the
 * log's `ghc-events show` dump and the table elog-synth writes (mkgolden.sh). */
START_TEST(test_newer_hi_censuses_golden)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char path[] = "/tmp/elog-newer-hi-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --ghc 9.2 --heap-profile hi --events 30000 --caps 1 "
             "--seed 7 -o '%s' 2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(log);
    evindex *ix = evindex_build(log, NULL, &d);
    reports_opts o;
    memset(&o, 0, sizeof o);
    o.censuses = true;
    strbuf out;
    strbuf_init(&out);
    reports_heap(&out, ix, &o);
    char *want = nw_golden("synth-hi.heap-censuses.tsv");
    ck_assert_msg(strlen(want) > 1000, "golden too short");
    ck_assert_str_eq(out.data, want);
    x_free(want);
    /* JSON: the same names as fields; the address without an entry has nulls. */
    strbuf_reset(&out);
    o.json = true;
    o.limit = 1;
    reports_heap(&out, ix, &o);
    ck_assert_msg(strstr(out.data, "\"band\":\"0x4a2b10\",\"bytes\":3424,\"info_table\":"
                         "\"sat_s1a2_info\",\"closure_type\":\"THUNK\",\"type\":\"[Int]\","
                         "\"label\":\"go\",\"module\":\"Synth.Loop\",\"src_loc\":"
                         "\"Synth/Loop.hs:12:5-40\"}") &&
                  strstr(out.data, "\"band\":\"0x4a2cf0\",\"bytes\":165856,\"info_table\":null"),
                  "%s", out.data);
    strbuf_free(&out);
    evindex_free(ix);
    evlog_close(log);
    unlink(path);
}
END_TEST

/* elog-synth --ghc V writes each version's layout: the header declares what V
 * declares, the census has V's size, the ticky definitions V's fields, and every
 * newer event it writes reaches the index, the parallel build agreeing. */
START_TEST(test_newer_synth_versions)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    static const struct {
        const char *v;
        int census_size;            /* declared size of 207 */
        bool mem, pruned;
        ticky_layout ticky;
    } vs[] = {
        { "9.0", 13, false, false, TICKY_LAYOUT_NONE },
        { "9.2", 13, true, false, TICKY_LAYOUT_PLAIN },
        { "9.3", 13, true, false, TICKY_LAYOUT_BEGIN },
        { "9.4", 13, true, false, TICKY_LAYOUT_ITBL },
        { "9.6", 13, true, false, TICKY_LAYOUT_JSON },
        { "9.10", 14, true, false, TICKY_LAYOUT_JSON },
        { "9.12", 14, true, true, TICKY_LAYOUT_JSON },
    };
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; i++) {
        for (int prof = 0; prof < 2; prof++) {
            /* -hi came with 9.2, -he with 9.10; 9.0 gets neither. */
            bool has_prof = prof ? strcmp(vs[i].v, "9.10") == 0 || strcmp(vs[i].v, "9.12") == 0
                                 : strcmp(vs[i].v, "9.0") != 0;
            char path[] = "/tmp/elog-newer-XXXXXX";
            int fd = mkstemp(path);
            ck_assert_int_ge(fd, 0);
            close(fd);
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "'%s' --ghc %s --ticky --nonmoving %s --caps 2 "
                     "--size 300K --seed %zu -o '%s' 2>/dev/null", synth, vs[i].v,
                     !has_prof ? "" : prof ? "--heap-profile he" : "--heap-profile hi",
                     40 + i, path);
            ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
            diag d;
            evlog *log = evlog_open(path, &d);
            ck_assert_ptr_nonnull(log);
            ck_assert_int_eq(evlog_type_of(log, EV_NONMOVING_HEAP_CENSUS)->size,
                             vs[i].census_size);
            ck_assert_int_eq(evlog_type_of(log, EV_NONMOVING_PRUNED_SEGMENTS) != NULL,
                             vs[i].pruned);
            evindex *ix = evindex_build(log, NULL, &d);
            char why[256];
            ck_assert_msg(evindex_check(ix, why, sizeof why), "%s: %s", vs[i].v, why);
            ck_assert_int_eq(series_count(evindex_series(ix, EVINDEX_S_MEM_CURRENT)) > 0,
                             vs[i].mem);
            ck_assert_int_eq(series_count(evindex_nm_pruned(ix)) > 0, vs[i].pruned);
            ck_assert_uint_gt(evindex_n_nm_census(ix), 0);
            ck_assert_uint_eq(evindex_nm_census_at(ix, 1)->blk_size, 16);
            if (vs[i].census_size == 14)
                ck_assert_uint_eq(evindex_nm_census_at(ix, 2)->blk_size, 24);
            else
                ck_assert_uint_eq(evindex_nm_census_at(ix, 2)->blk_size, 32);
            const ticky *t = evindex_ticky(ix);
            ck_assert_int_eq(ticky_layout_of(t), vs[i].ticky);
            if (vs[i].ticky != TICKY_LAYOUT_NONE) {
                ck_assert_uint_eq(ticky_n_counters(t), 5);
                ck_assert_uint_gt(ticky_n_samples(t), 0);
            }
            const heapprof *hp = evindex_heap_profile(ix);
            ck_assert_int_eq(heapprof_n_censuses(hp) > 0, has_prof);
            ck_assert_int_eq(heapprof_breakdown_of(hp),
                             !has_prof ? HEAPPROF_BY_UNKNOWN
                             : prof    ? HEAPPROF_BY_ERA : HEAPPROF_BY_INFO_TABLE);
            if (has_prof && !prof) {
                /* Every band but the one address without an entry is named by IPE. */
                size_t named = 0;
                for (size_t b = 0; b < heapprof_n_bands(hp); b++)
                    named += heapbands_ipe(hp, evindex_ipe(ix), b) != NULL;
                ck_assert_uint_eq(named, heapprof_n_bands(hp) - 1);
            }
            evindex_opts o = { .threads = 3 };
            evindex *par = evindex_build(log, &o, &d);
            test_evindex_same(vs[i].v, ix, par);
            evindex_free(par);
            evindex_free(ix);
            evlog_close(log);
            unlink(path);
        }
    }
}
END_TEST

/* `heap` and `ticky` on a log without a heap profile or ticky counters: the table's
 * header alone on stdout (scripts), and on stderr one line saying why it is empty; on a
 * log that has them, nothing on stderr. */
static void
newer_cli(const char *cmd, const char *file, char *out, size_t outlen, char *err, size_t errlen)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    char errpath[] = "/tmp/elog-newer-err.XXXXXX";
    int fd = mkstemp(errpath);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char line[2048];
    snprintf(line, sizeof line, "'%s' %s '%s' 2>'%s'", bin, cmd, file, errpath);
    FILE *p = popen(line, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(pclose(p), 0);
    FILE *e = fopen(errpath, "r");
    ck_assert_ptr_nonnull(e);
    n = fread(err, 1, errlen - 1, e);
    err[n] = '\0';
    fclose(e);
    unlink(errpath);
}

START_TEST(test_newer_empty_tables_say_why)
{
    char out[65536], err[1024];
    char *demo = test_path("fixtures/demo.eventlog");
    newer_cli("heap", demo, out, sizeof out, err, sizeof err);
    ck_assert_int_eq((int)strcspn(out, "\n") + 1, (int)strlen(out));     /* header only */
    ck_assert_msg(strstr(err, "no heap profile in the log") && strchr(err, '\n') ==
                  err + strlen(err) - 1, "%s", err);
    newer_cli("ticky", demo, out, sizeof out, err, sizeof err);
    ck_assert_int_eq((int)strcspn(out, "\n") + 1, (int)strlen(out));
    ck_assert_msg(strstr(err, "no ticky-ticky counters in the log"), "%s", err);
    x_free(demo);
    char *hp = test_path("fixtures/heapprof-hT.eventlog");
    newer_cli("heap", hp, out, sizeof out, err, sizeof err);
    ck_assert_str_eq(err, "");
    x_free(hp);
    char *dir = test_corpus_dir();
    if (dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/ticky-new.eventlog", dir);
        newer_cli("ticky", path, out, sizeof out, err, sizeof err);
        ck_assert_str_eq(err, "");
        ck_assert_ptr_nonnull(strstr(out, "fib1"));
        x_free(dir);
    }
}
END_TEST

Suite *
test_newer_suite(void)
{
    Suite *s = suite_create("newer");
    TCase *tc = tcase_create("corpus");
    tcase_set_timeout(tc, 60 * test_time_scale());
    tcase_add_test(tc, test_newer_ticky_golden);
    tcase_add_test(tc, test_newer_ticky_json);
    tcase_add_test(tc, test_newer_heap_golden);
    tcase_add_test(tc, test_newer_stats_golden);
    tcase_add_test(tc, test_newer_nonmoving_corpus);
    tcase_add_test(tc, test_newer_every_type_used);
    tcase_add_test(tc, test_newer_peer_snapshots);
    suite_add_tcase(s, tc);
    tc = tcase_create("layouts");
    tcase_add_test(tc, test_newer_hi_ipe);
    tcase_add_test(tc, test_newer_he_eras);
    tcase_add_test(tc, test_newer_ticky_layouts);
    tcase_add_test(tc, test_newer_memory);
    tcase_add_test(tc, test_newer_nonmoving_layouts);
    tcase_add_test(tc, test_newer_stop_status);
    tcase_add_test(tc, test_newer_empty_tables_say_why);
    suite_add_tcase(s, tc);
    tc = tcase_create("synth");
    tcase_set_timeout(tc, 120 * test_time_scale());
    tcase_add_test(tc, test_newer_synth_versions);
    tcase_add_test(tc, test_newer_hi_censuses_golden);
    suite_add_tcase(s, tc);
    return s;
}
