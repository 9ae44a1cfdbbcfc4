/* tests/test_export: `export --format chrome` — the trace parsed by a strict JSON parser
 * of the tests' own (tests/jsonv.c); every slice closed (a duration) and nested in its
 * track as Perfetto needs; every time in µs with at most three decimals; per capability
 * as many run slices as `ghc-events show` prints "running thread" lines and as many GC
 * slices as "starting GC" lines, as many collections as GHC's `+RTS -s` counts, the
 * markers at the dump's times with the dump's text, the heap size counter equal to the
 * dump's "size of heap" values; windows, several logs, usage errors; and memory: the
 * export needs no more than the index the other commands build. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evindex.h"
#include "export.h"
#include "jsonv.h"
#include "perfetto.h"
#include "tests.h"
#include "xalloc.h"

#define EX_MAX_CAPS 64
#define EX_STRIDE 100000u       /* tid = pid * EX_STRIDE + cap + 1, as the format says */

/* What a parsed trace holds, counted from the JSON alone. */
typedef struct ex_summary {
    size_t runs[EX_MAX_CAPS];       /* run slices per capability */
    size_t gc_parts[EX_MAX_CAPS];   /* "GC…" slices per capability */
    size_t n_runs, n_gc_parts, n_gc_phases, n_nm_cycles, n_nm_phases;
    size_t n_markers, n_messages, n_slices;
    size_t n_gcs;                   /* distinct args.gc of the GC slices */
    unsigned long long nm_marked;   /* sum of the cycles' marked_objects */
    unsigned long long *marker_ns;  /* markers in file order of the trace */
    char **marker_text;
    unsigned long long *heap;       /* "heap size" counter values, in order */
    size_t n_heap;
    unsigned long long min_ns, max_end_ns;  /* over all slices and instants */
} ex_summary;

static void
ex_summary_free(ex_summary *s)
{
    for (size_t i = 0; i < s->n_markers; i++)
        x_free(s->marker_text[i]);
    x_free(s->marker_text);
    x_free(s->marker_ns);
    x_free(s->heap);
}

typedef struct ex_slice {
    unsigned long long tid, start, end;
} ex_slice;

static int
ex_slice_cmp(const void *a, const void *b)
{
    const ex_slice *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;    /* the longer (the parent) first */
    return 0;
}

/* Slices on one track must nest: each starts inside the innermost one still open and
 * ends by its end, else Perfetto drops it as misnested. */
static void
ex_check_nesting(ex_slice *sl, size_t n, const char *name)
{
    qsort(sl, n, sizeof *sl, ex_slice_cmp);
    ex_slice stack[16];
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && sl[i].tid != sl[i - 1].tid)
            depth = 0;
        while (depth > 0 && stack[depth - 1].end <= sl[i].start &&
               !(stack[depth - 1].start == stack[depth - 1].end &&
                 stack[depth - 1].start == sl[i].start))
            depth--;
        ck_assert_msg(depth == 0 || sl[i].end <= stack[depth - 1].end,
                      "%s: track %llu: slice %llu..%llu overlaps %llu..%llu without nesting",
                      name, sl[i].tid, sl[i].start, sl[i].end, stack[depth - 1].start,
                      stack[depth - 1].end);
        ck_assert_msg(depth < 16, "%s: slices nested too deep", name);
        stack[depth++] = sl[i];
    }
}

static int
ex_ull_cmp(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return x < y ? -1 : x > y;
}

static unsigned long long
ex_uint(const jsonv *e, const char *key, const char *name)
{
    unsigned long long v;
    ck_assert_msg(jsonv_fixed(jsonv_get(e, key), 0, &v), "%s: \"%s\" is not a whole number",
                  name, key);
    return v;
}

/* µs with at most three decimals, as ns. */
static unsigned long long
ex_ns(const jsonv *e, const char *key, const char *name)
{
    unsigned long long v;
    const jsonv *t = jsonv_get(e, key);
    ck_assert_msg(jsonv_fixed(t, 3, &v), "%s: \"%s\" (%s) is not µs with at most 3 decimals",
                  name, key, t && t->text ? t->text : "absent");
    return v;
}

/* Parse and check the trace's structure; count what it holds for process `pid`. */
static void
ex_summarise(const char *json, size_t len, unsigned pid, const char *name, ex_summary *s)
{
    memset(s, 0, sizeof *s);
    s->min_ns = ~0ull;
    char why[256];
    jsonv *root = jsonv_parse(json, len, why, sizeof why);
    ck_assert_msg(root != NULL, "%s: not JSON: %s", name, why);
    /* Perfetto's JSON importer once took displayTimeUnit "ns" as the unit of ts. */
    ck_assert_ptr_null(jsonv_get(root, "displayTimeUnit"));
    const jsonv *evs = jsonv_get(root, "traceEvents");
    ck_assert_msg(evs && evs->type == JSONV_ARRAY, "%s: no traceEvents array", name);
    ex_slice *sl = xcalloc(evs->n + 1, sizeof *sl);
    size_t n_sl = 0, n_gc_seen = 0;
    unsigned long long *gc_seen = xcalloc(evs->n + 1, sizeof *gc_seen);
    s->marker_ns = xcalloc(evs->n + 1, sizeof *s->marker_ns);
    s->marker_text = xcalloc(evs->n + 1, sizeof *s->marker_text);
    s->heap = xcalloc(evs->n + 1, sizeof *s->heap);
    bool named = false;
    for (size_t i = 0; i < evs->n; i++) {
        const jsonv *e = &evs->items[i];
        ck_assert_msg(e->type == JSONV_OBJECT, "%s: event %zu is not an object", name, i);
        const char *ph = jsonv_str(e, "ph");
        ck_assert_msg(ph != NULL, "%s: event %zu has no ph", name, i);
        if (ex_uint(e, "pid", name) != pid)
            continue;
        const char *ename = jsonv_str(e, "name");
        ck_assert_msg(ename != NULL, "%s: event %zu has no name", name, i);
        if (strcmp(ph, "M") == 0) {
            if (strcmp(ename, "process_name") == 0)
                named = jsonv_str(jsonv_get(e, "args"), "name") != NULL;
            continue;
        }
        if (strcmp(ph, "C") == 0) {
            unsigned long long t = ex_ns(e, "ts", name);
            (void)t;
            const jsonv *args = jsonv_get(e, "args");
            ck_assert_msg(args && args->type == JSONV_OBJECT && args->n == 1,
                          "%s: counter without one value", name);
            unsigned long long v;
            ck_assert_msg(jsonv_fixed(&args->items[0], 0, &v), "%s: counter value", name);
            if (strcmp(ename, "heap size") == 0)
                s->heap[s->n_heap++] = v;
            continue;
        }
        unsigned long long tid = ex_uint(e, "tid", name);
        ck_assert_msg(tid / EX_STRIDE == pid, "%s: tid %llu outside process %u", name, tid, pid);
        unsigned long long slot = tid % EX_STRIDE;
        const char *cat = jsonv_str(e, "cat");
        ck_assert_msg(cat != NULL, "%s: event %zu has no cat", name, i);
        unsigned long long ts = ex_ns(e, "ts", name);
        if (ts < s->min_ns)
            s->min_ns = ts;
        if (strcmp(ph, "i") == 0) {
            ck_assert_str_eq(jsonv_str(e, "s"), "t");
            if (ts > s->max_end_ns)
                s->max_end_ns = ts;
            if (strcmp(cat, "marker") == 0) {
                s->marker_ns[s->n_markers] = ts;
                s->marker_text[s->n_markers++] = xstrdup(ename);
            } else {
                s->n_messages++;
            }
            continue;
        }
        ck_assert_msg(strcmp(ph, "X") == 0, "%s: unexpected ph \"%s\"", name, ph);
        unsigned long long end = ts + ex_ns(e, "dur", name);
        if (end > s->max_end_ns)
            s->max_end_ns = end;
        sl[n_sl++] = (ex_slice){ tid, ts, end };
        s->n_slices++;
        size_t cap = slot >= 1 && slot <= EX_MAX_CAPS ? (size_t)slot - 1 : EX_MAX_CAPS;
        if (strcmp(cat, "run") == 0) {
            ck_assert_msg(cap < EX_MAX_CAPS, "%s: run on track %llu", name, slot);
            s->runs[cap]++;
            s->n_runs++;
        } else if (strcmp(cat, "gc") == 0 && strncmp(ename, "GC work", 7) != 0 &&
                   strncmp(ename, "GC waiting", 10) != 0) {
            ck_assert_msg(cap < EX_MAX_CAPS, "%s: GC on track %llu", name, slot);
            s->gc_parts[cap]++;
            s->n_gc_parts++;
            unsigned long long g = ex_uint(jsonv_get(e, "args"), "gc", name);
            gc_seen[n_gc_seen++] = g;
        } else if (strcmp(cat, "gc") == 0) {
            s->n_gc_phases++;
        } else if (strcmp(cat, "nonmoving") == 0 && strcmp(ename, "non-moving cycle") == 0) {
            s->n_nm_cycles++;
            s->nm_marked += ex_uint(jsonv_get(e, "args"), "marked_objects", name);
        } else {
            ck_assert_str_eq(cat, "nonmoving");
            s->n_nm_phases++;
        }
    }
    ck_assert_msg(named, "%s: process %u has no process_name", name, pid);
    qsort(gc_seen, n_gc_seen, sizeof *gc_seen, ex_ull_cmp);
    for (size_t i = 0; i < n_gc_seen; i++)
        s->n_gcs += i == 0 || gc_seen[i] != gc_seen[i - 1];
    ex_check_nesting(sl, n_sl, name);
    x_free(gc_seen);
    x_free(sl);
    jsonv_free(root);
}

/* Export `ix` in-process into memory; caller frees. */
static char *
ex_export(const evindex *ix, const export_opts *o, export_counts *c, size_t *len)
{
    char *buf = NULL;
    size_t sz = 0;
    FILE *f = open_memstream(&buf, &sz);
    ck_assert_ptr_nonnull(f);
    export_chrome *w = export_chrome_new(f);
    export_chrome_add(w, ix, o, c);
    ck_assert(export_chrome_finish(w));
    fclose(f);
    *len = sz;
    return buf;
}

/* Lines of the fixture's `ghc-events show` dump. */
typedef struct ex_ref {
    size_t runs[EX_MAX_CAPS], gc_starts[EX_MAX_CAPS];
    size_t n_markers, n_heap, cap;
    unsigned long long *marker_ns;  /* n_markers; owned */
    char **marker_text;
    unsigned long long heap[4096];
} ex_ref;

static void
ex_read_ref(const char *fixture, ex_ref *r)
{
    memset(r, 0, sizeof *r);
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s.ref017", fixture);
    char *path = test_path(rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        unsigned long long t, v;
        unsigned c;
        int off = 0;
        if (sscanf(line, " %llu: cap %u: %n", &t, &c, &off) != 2 || off == 0)
            continue;
        const char *rest = line + off;
        if (c < EX_MAX_CAPS && strncmp(rest, "running thread ", 15) == 0)
            r->runs[c]++;
        else if (c < EX_MAX_CAPS && strcmp(rest, "starting GC") == 0)
            r->gc_starts[c]++;
        else if (strncmp(rest, "marker: ", 8) == 0) {
            if (r->n_markers == r->cap) {
                r->cap = r->cap ? 2 * r->cap : 64;
                r->marker_ns = xreallocarray(r->marker_ns, r->cap, sizeof *r->marker_ns);
                r->marker_text = xreallocarray(r->marker_text, r->cap, sizeof *r->marker_text);
            }
            r->marker_ns[r->n_markers] = t;
            r->marker_text[r->n_markers++] = xstrdup(rest + 8);
        } else if (sscanf(rest, "size of heap capset %*u: %llu bytes", &v) == 1 &&
                   r->n_heap < 4096)
            r->heap[r->n_heap++] = v;
    }
    free(line);
    fclose(f);
    x_free(path);
}

static void
ex_ref_free(ex_ref *r)
{
    for (size_t i = 0; i < r->n_markers; i++)
        x_free(r->marker_text[i]);
    x_free(r->marker_text);
    x_free(r->marker_ns);
}

/* Collections GHC's +RTS -s report counts (all generations), or -1 without a report. */
static long
ex_rts_colls(const char *fixture)
{
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%.*s.rts-s.txt", (int)(strlen(fixture) - 9), fixture);
    char *path = test_path(rel);
    FILE *f = fopen(path, "r");
    x_free(path);
    if (!f)
        return -1;
    char line[512];
    long total = 0;
    unsigned gen;
    long colls;
    int end;
    while (fgets(line, sizeof line, f)) {
        end = 0;    /* "Gen 1 25 syncs," is not a count of collections */
        if (sscanf(line, " Gen %u %ld colls,%n", &gen, &colls, &end) == 2 && end > 0)
            total += colls;
    }
    fclose(f);
    return total;
}

/* Every fixture (userevents aside: its program's one collection, counted by +RTS -s,
 * happens after the RTS stopped writing the eventlog, so the log holds no GC at all). */
static const char *const ex_fixtures[] = {
    "demo.eventlog", "threaded-n2.eventlog", "threaded-n4.eventlog", "sparks.eventlog",
    "nonmoving.eventlog", "nonmoving-l.eventlog", "markers.eventlog", "late-start.eventlog",
    "heapprof-hT.eventlog", "heapprof-hc.eventlog", "heapprof-hb.eventlog",
    "heapprof-hr.eventlog", "heapprof-p.eventlog", "killed.eventlog", "killed-n2.eventlog",
};

START_TEST(test_export_fixture)
{
    const char *fixture = ex_fixtures[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s", fixture);
    evlog *log = test_open_log(rel);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    export_opts o = { .from_ns = 0, .to_ns = UINT64_MAX, .pid = 1, .name = fixture };
    export_counts c;
    size_t len;
    char *json = ex_export(ix, &o, &c, &len);
    ex_summary s;
    ex_summarise(json, len, 1, fixture, &s);
    ex_ref r;
    ex_read_ref(fixture, &r);

    /* Runs and GC parts per capability: the dump's lines, and the index's counts. */
    size_t ix_runs = 0, ix_phases = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        const evindex_cap *cap = evindex_cap_at(ix, i);
        ix_runs += runlane_count(cap->runs);
        ix_phases += ivtrack_count(cap->gc);
    }
    for (unsigned cap = 0; cap < EX_MAX_CAPS; cap++) {
        ck_assert_msg(s.runs[cap] == r.runs[cap], "%s: cap %u: %zu run slices, the dump has "
                      "%zu \"running thread\"", fixture, cap, s.runs[cap], r.runs[cap]);
        ck_assert_msg(s.gc_parts[cap] == r.gc_starts[cap], "%s: cap %u: %zu GC slices, the "
                      "dump has %zu \"starting GC\"", fixture, cap, s.gc_parts[cap],
                      r.gc_starts[cap]);
    }
    ck_assert_uint_eq(s.n_runs, ix_runs);
    ck_assert_uint_eq(s.n_gc_phases, ix_phases);
    ck_assert_uint_eq(s.n_gcs, evindex_n_gcs(ix));
    long colls = ex_rts_colls(fixture);
    if (colls >= 0)
        ck_assert_msg((long)s.n_gcs == colls, "%s: %zu collections, +RTS -s counts %ld",
                      fixture, s.n_gcs, colls);
    /* Non-moving: one cycle per concurrent sweep, the index's phases. */
    ck_assert_uint_eq(s.n_nm_cycles, evindex_n_nm_cycles(ix));
    ck_assert_uint_eq(s.n_nm_phases, ivtrack_count(evindex_nm_track(ix)));
    /* Markers: the dump's, at its times, with its text. */
    ck_assert_msg(s.n_markers == r.n_markers, "%s: %zu markers, the dump has %zu", fixture,
                  s.n_markers, r.n_markers);
    for (size_t i = 0; i < s.n_markers && i < r.n_markers; i++) {
        ck_assert_msg(s.marker_ns[i] == r.marker_ns[i], "%s: marker %zu at %llu ns, the dump "
                      "says %llu", fixture, i, s.marker_ns[i], r.marker_ns[i]);
        ck_assert_str_eq(s.marker_text[i], r.marker_text[i]);
    }
    /* The heap size counter: the dump's values in order. */
    ck_assert_uint_eq(s.n_heap, r.n_heap);
    for (size_t i = 0; i < s.n_heap; i++)
        ck_assert_msg(s.heap[i] == r.heap[i], "%s: heap size %zu is %llu, the dump says %llu",
                      fixture, i, s.heap[i], r.heap[i]);
    ck_assert_uint_eq(s.n_messages, evindex_n_msgs(ix) - evindex_n_markers(ix));
    /* What the writer says it wrote is what the trace holds. */
    ck_assert_uint_eq(c.runs, s.n_runs);
    ck_assert_uint_eq(c.gc_parts, s.n_gc_parts);
    ck_assert_uint_eq(c.gcs, s.n_gcs);
    ck_assert_uint_eq(c.markers, s.n_markers);
    /* The log's own clock: nothing before the first event, nothing after the last. */
    if (s.n_slices + s.n_markers) {
        ck_assert_uint_ge(s.min_ns, evindex_first_ns(ix));
        ck_assert_uint_le(s.max_end_ns, evindex_last_ns(ix));
    }
    ex_ref_free(&r);
    ex_summary_free(&s);
    free(json);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* The non-moving collector's cycles carry the objects marked: their sum is the sum of
 * the dump's "concurrent mark ended: marked N objects". */
START_TEST(test_export_nonmoving_marked)
{
    evlog *log = test_open_log("fixtures/nonmoving.eventlog");
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    export_opts o = { .from_ns = 0, .to_ns = UINT64_MAX, .pid = 1, .name = "nm" };
    size_t len;
    char *json = ex_export(ix, &o, NULL, &len);
    ex_summary s;
    ex_summarise(json, len, 1, "nonmoving", &s);
    char *path = test_path("fixtures/nonmoving.eventlog.ref017");
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    unsigned long long want = 0, v;
    size_t sweeps = 0;
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "concurrent mark ended: marked ");
        if (p && sscanf(p, "concurrent mark ended: marked %llu objects", &v) == 1)
            want += v;
        sweeps += strstr(line, "concurrent sweep began") != NULL;
    }
    fclose(f);
    x_free(path);
    ck_assert_uint_eq(s.n_nm_cycles, sweeps);
    ck_assert_uint_eq(s.nm_marked, want);
    ck_assert_uint_gt(want, 0);
    ex_summary_free(&s);
    free(json);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* Text from the log is untrusted: control characters, quotes and bytes that are not
 * UTF-8 still give valid JSON, decoding back to the text with U+FFFD for each bad byte. */
START_TEST(test_export_json_string)
{
    static const uint8_t in[] = "a\"b\\c\x01\x1f\x7f\n\xff\xc3\xa9\xed\xa0\x80\xe6\x97\xa5"
                                "\xf0\x9f\x9a\x80\xc3";
    strbuf sb;
    strbuf_init(&sb);
    strbuf_putc(&sb, '"');
    export_json_string(&sb, in, sizeof in - 1);
    strbuf_putc(&sb, '"');
    char why[128];
    jsonv *v = jsonv_parse(sb.data, sb.len, why, sizeof why);
    ck_assert_msg(v != NULL, "%s: %s", sb.data, why);
    static const char want[] = "a\"b\\c\x01\x1f\x7f\n\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf"
                               "\xbd\xef\xbf\xbd\xe6\x97\xa5\xf0\x9f\x9a\x80\xef\xbf\xbd";
    ck_assert_uint_eq(v->len, sizeof want - 1);
    ck_assert(memcmp(v->text, want, v->len) == 0);
    jsonv_free(v);
    /* The validator itself refuses what it must. */
    static const char *const bad[] = { "\"\xff\"", "\"a\nb\"", "[1,]", "{\"a\":1,}", "01",
                                       "1.", "\"\\ud800\"", "[1] x", "{\"a\" 1}", "-" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        jsonv *b = jsonv_parse(bad[i], strlen(bad[i]), why, sizeof why);
        ck_assert_msg(b == NULL, "jsonv accepted %s", bad[i]);
    }
    strbuf_free(&sb);
}
END_TEST

/* Run the binary with `args`, stdout to `out` (a path, or NULL for /dev/null), stderr
 * to /dev/null; returns the exit status and, if `maxrss_kb` is given, its peak RSS. */
static int
ex_run(const char *const *args, const char *out, long *maxrss_kb)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0 || dup2(fd, 1) < 0 || dup2(nul, 2) < 0)
            _exit(126);
        char *argv[16];
        size_t n = 0;
        argv[n++] = (char *)bin;
        for (; args[n - 1] && n < 15; n++)
            argv[n] = (char *)args[n - 1];
        argv[n] = NULL;
        execv(bin, argv);
        _exit(127);
    }
    int status;
    struct rusage ru;
    ck_assert(wait4(pid, &status, 0, &ru) == pid);
    if (maxrss_kb)
        *maxrss_kb = ru.ru_maxrss;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* --from/--to by marker name: only items overlapping the window, whole; the run count
 * is the index's count of runs overlapping it; every marker inside, none outside. */
START_TEST(test_export_window_cli)
{
    char dir[] = "/tmp/elog-export.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/w.json", dir);
    char *fix = test_path("fixtures/markers.eventlog");
    const char *args[] = { "export", "--format", "chrome", fix, "--from", "phase:parse",
                           "--to", "phase:render", NULL };
    ck_assert_int_eq(ex_run(args, out, NULL), 0);
    size_t len;
    char *json = (char *)test_read_file(out, &len);
    ck_assert_ptr_nonnull(json);
    ex_summary s;
    ex_summarise(json, len, 1, "window", &s);
    const uint64_t from = 503989, to = 1065124;     /* the dump's phase:parse, phase:render */
    evlog *log = test_open_log("fixtures/markers.eventlog");
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    size_t want_runs = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++)
        want_runs += runlane_count_in(evindex_cap_at(ix, i)->runs, from, to);
    ck_assert_uint_eq(s.n_runs, want_runs);
    ck_assert_uint_gt(s.n_runs, 0);
    ex_ref r;
    ex_read_ref("markers.eventlog", &r);
    size_t want_markers = 0;
    for (size_t i = 0; i < r.n_markers; i++)
        want_markers += r.marker_ns[i] >= from && r.marker_ns[i] < to;
    ck_assert_uint_eq(s.n_markers, want_markers);
    ck_assert_uint_eq(s.marker_ns[0], from);
    ck_assert_str_eq(s.marker_text[0], "phase:parse");
    ck_assert_uint_lt(s.marker_ns[s.n_markers - 1], to);
    ex_ref_free(&r);
    ex_summary_free(&s);
    x_free(json);
    evindex_free(ix);
    evlog_close(log);
    unlink(out);
    rmdir(dir);
    x_free(fix);
}
END_TEST

/* Two logs: two processes, each named by its file, with its own tracks. */
START_TEST(test_export_two_logs)
{
    char dir[] = "/tmp/elog-export.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/two.json", dir);
    char *a = test_path("fixtures/threaded-n2.eventlog");
    char *b = test_path("fixtures/markers.eventlog");
    const char *args[] = { "export", a, b, NULL };
    ck_assert_int_eq(ex_run(args, out, NULL), 0);
    size_t len;
    char *json = (char *)test_read_file(out, &len);
    ck_assert_ptr_nonnull(json);
    ex_summary s1, s2;
    ex_summarise(json, len, 1, "two/1", &s1);
    ex_summarise(json, len, 2, "two/2", &s2);
    ex_ref r1, r2;
    ex_read_ref("threaded-n2.eventlog", &r1);
    ex_read_ref("markers.eventlog", &r2);
    ck_assert_uint_eq(s1.runs[0] + s1.runs[1], r1.runs[0] + r1.runs[1]);
    ck_assert_uint_eq(s2.runs[0], r2.runs[0]);
    ck_assert_uint_eq(s1.n_markers, r1.n_markers);
    ck_assert_uint_eq(s2.n_markers, r2.n_markers);
    ck_assert_uint_eq(s1.n_gcs, 287);       /* threaded-n2.rts-s.txt: 271 + 16 colls */
    ck_assert_uint_eq(s2.n_gcs, 1);         /* markers.rts-s.txt: 1 coll */
    ex_ref_free(&r1);
    ex_ref_free(&r2);
    ex_summary_free(&s1);
    ex_summary_free(&s2);
    x_free(json);
    unlink(out);
    rmdir(dir);
    x_free(a);
    x_free(b);
}
END_TEST

START_TEST(test_export_usage)
{
    char *fix = test_path("fixtures/markers.eventlog");
    const char *bad_format[] = { "export", "--format", "svg", fix, NULL };
    ck_assert_int_eq(ex_run(bad_format, NULL, NULL), 2);
    const char *no_file[] = { "export", NULL };
    ck_assert_int_eq(ex_run(no_file, NULL, NULL), 2);
    const char *bad_opt[] = { "export", fix, "--json", NULL };
    ck_assert_int_eq(ex_run(bad_opt, NULL, NULL), 2);
    const char *missing[] = { "export", "/nonexistent/x.eventlog", NULL };
    ck_assert_int_eq(ex_run(missing, NULL, NULL), 1);
    const char *no_marker[] = { "export", fix, "--from", "no-such-marker", NULL };
    ck_assert_int_eq(ex_run(no_marker, NULL, NULL), 1);
    const char *backwards[] = { "export", fix, "--from", "phase:write", "--to",
                                "phase:parse", NULL };
    ck_assert_int_eq(ex_run(backwards, NULL, NULL), 1);
    x_free(fix);
}
END_TEST

/* Memory: on a 40 MB synthetic log (labels, heap, sparks, non-moving) the export's
 * peak RSS, in either format, is the index's (`elog-tui index`, same file) plus at most
 * 8 MB, while it writes a trace of a hundred megabytes: the trace is streamed, never
 * held. */
START_TEST(test_export_bounded_memory)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char dir[] = "/tmp/elog-export.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char path[128], out[128], cmd[512];
    snprintf(path, sizeof path, "%s/big.eventlog", dir);
    snprintf(out, sizeof out, "%s/big.json", dir);
    snprintf(cmd, sizeof cmd, "'%s' --size 40M --labels --heap --sparks --nonmoving -o '%s' "
             "2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth failed");
    long rss_index, rss_export;
    const char *ia[] = { "index", path, NULL };
    ck_assert_int_eq(ex_run(ia, NULL, &rss_index), 0);
    const char *ea[] = { "export", path, NULL };
    ck_assert_int_eq(ex_run(ea, out, &rss_export), 0);
    FILE *f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long out_bytes = ftell(f);
    fclose(f);
    ck_assert_int_gt(out_bytes, 50L << 20);
    ck_assert_msg(rss_export <= rss_index + 8 * 1024, "export peak RSS %ld KiB, index %ld KiB",
                  rss_export, rss_index);
    long rss_pb;
    const char *pa[] = { "export", "--format", "perfetto", path, NULL };
    ck_assert_int_eq(ex_run(pa, out, &rss_pb), 0);
    f = fopen(out, "r");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    out_bytes = ftell(f);
    fclose(f);
    ck_assert_int_gt(out_bytes, 20L << 20);
    ck_assert_msg(rss_pb <= rss_index + 8 * 1024, "perfetto export peak RSS %ld KiB, index %ld "
                  "KiB", rss_pb, rss_index);
    unlink(out);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* --- Perfetto protobuf ------------------------------------------------------------------- */

/* A protobuf field read by the tests' own reader. */
typedef struct pbf {
    unsigned field, wire;
    unsigned long long v;       /* VARINT */
    const unsigned char *p;     /* LEN */
    size_t len;
} pbf;

/* The next field of [*pos, end): false at the end; a malformed field fails the test. */
static bool
pb_next(const unsigned char **pos, const unsigned char *end, pbf *f, const char *name)
{
    if (*pos == end)
        return false;
    unsigned long long key = 0, v = 0;
    for (int which = 0; which < 2; which++) {
        unsigned long long x = 0;
        for (int shift = 0;; shift += 7) {
            ck_assert_msg(*pos < end && shift < 64, "%s: truncated varint", name);
            unsigned char b = *(*pos)++;
            x |= (unsigned long long)(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        if (which == 0) {
            key = x;
            f->field = (unsigned)(key >> 3);
            f->wire = (unsigned)(key & 7);
            ck_assert_msg(f->wire == 0 || f->wire == 2, "%s: wire type %u", name, f->wire);
            if (f->wire == 0)
                continue;
            /* LEN: the length is the second varint */
        }
        v = x;
    }
    if (f->wire == 0) {
        f->v = v;
        f->p = NULL;
        f->len = 0;
    } else {
        ck_assert_msg(v <= (unsigned long long)(end - *pos), "%s: length %llu past the end",
                      name, v);
        f->p = *pos;
        f->len = (size_t)v;
        *pos += v;
    }
    return true;
}

/* Lines "track|start|end|name" (slices), "track|ts|name" (instants), "counter|ts|value",
 * sorted, for comparing the two formats. */
typedef struct ex_lines {
    char **line;
    size_t n, cap;
} ex_lines;

static void
ex_lines_add(ex_lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
ex_lines_add(ex_lines *l, const char *fmt, ...)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->line = xreallocarray(l->line, l->cap, sizeof *l->line);
    }
    strbuf sb;
    strbuf_init(&sb);
    va_list ap;
    va_start(ap, fmt);
    char tmp[1];
    int need = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    strbuf_reserve(&sb, (size_t)need + 1);
    va_start(ap, fmt);
    vsnprintf(sb.data, (size_t)need + 1, fmt, ap);
    va_end(ap);
    l->line[l->n++] = sb.data;
}

static int
ex_str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
ex_lines_free(ex_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        x_free(l->line[i]);
    x_free(l->line);
}

#define EX_MAX_TRACKS 256

/* Read a Perfetto trace: every packet on sequence 1, every event on a described track,
 * per track BEGIN/END balanced and in time order; the slices, instants and counter
 * values as lines. */
static void
ex_read_pftrace(const unsigned char *data, size_t len, ex_lines *out, size_t *n_runs)
{
    struct {
        unsigned long long uuid;
        char name[64];
        bool counter;
        unsigned long long last_ts;
        size_t depth;
        unsigned long long open_ts[8];
        char *open_name[8];     /* owned */
    } *tr = xcalloc(EX_MAX_TRACKS, sizeof *tr);
    size_t n_tr = 0;
    *n_runs = 0;
    const unsigned char *pos = data, *end = data + len;
    pbf f;
    size_t n_packets = 0;
    while (pb_next(&pos, end, &f, "trace")) {
        ck_assert_msg(f.field == 1 && f.wire == 2, "trace: field %u", f.field);
        n_packets++;
        const unsigned char *pp = f.p, *pe = f.p + f.len;
        unsigned long long ts = ~0ull, seq = 0;
        const unsigned char *te = NULL, *td = NULL;
        size_t te_len = 0, td_len = 0;
        pbf g;
        while (pb_next(&pp, pe, &g, "packet")) {
            if (g.field == 8)
                ts = g.v;
            else if (g.field == 10)
                seq = g.v;
            else if (g.field == 11)
                te = g.p, te_len = g.len;
            else if (g.field == 60)
                td = g.p, td_len = g.len;
        }
        ck_assert_msg(seq == 1, "packet %zu: sequence %llu", n_packets, seq);
        ck_assert_msg(!te != !td, "packet %zu: not one event or descriptor", n_packets);
        if (td) {
            ck_assert_uint_lt(n_tr, EX_MAX_TRACKS);
            memset(&tr[n_tr], 0, sizeof tr[n_tr]);
            const unsigned char *dp = td;
            while (pb_next(&dp, td + td_len, &g, "descriptor")) {
                if (g.field == 1)
                    tr[n_tr].uuid = g.v;
                else if (g.field == 2)
                    snprintf(tr[n_tr].name, sizeof tr[n_tr].name, "%.*s", (int)g.len, g.p);
                else if (g.field == 8)
                    tr[n_tr].counter = true;
            }
            n_tr++;
            continue;
        }
        ck_assert_msg(ts != ~0ull, "packet %zu: an event without a timestamp", n_packets);
        unsigned long long type = 0, uuid = 0, value = 0;
        char name[4096] = "", cat[32] = "";
        const unsigned char *ep = te;
        while (pb_next(&ep, te + te_len, &g, "event")) {
            if (g.field == 9)
                type = g.v;
            else if (g.field == 11)
                uuid = g.v;
            else if (g.field == 23)
                snprintf(name, sizeof name, "%.*s", (int)g.len, g.p);
            else if (g.field == 22)
                snprintf(cat, sizeof cat, "%.*s", (int)g.len, g.p);
            else if (g.field == 30)
                value = g.v;
        }
        size_t t = 0;
        while (t < n_tr && tr[t].uuid != uuid)
            t++;
        ck_assert_msg(t < n_tr, "packet %zu: track %llu not described before", n_packets, uuid);
        ck_assert_msg(ts >= tr[t].last_ts, "track %s: %llu after %llu", tr[t].name, ts,
                      tr[t].last_ts);
        tr[t].last_ts = ts;
        if (type == 1) {
            ck_assert_msg(tr[t].depth < 8, "track %s nests too deep", tr[t].name);
            tr[t].open_ts[tr[t].depth] = ts;
            tr[t].open_name[tr[t].depth++] = xstrdup(name);
            *n_runs += strcmp(cat, "run") == 0;
        } else if (type == 2) {
            ck_assert_msg(tr[t].depth > 0, "track %s: END with nothing open at %llu",
                          tr[t].name, ts);
            tr[t].depth--;
            ex_lines_add(out, "%s|%llu|%llu|%s", tr[t].name, tr[t].open_ts[tr[t].depth], ts,
                         tr[t].open_name[tr[t].depth]);
            x_free(tr[t].open_name[tr[t].depth]);
        } else if (type == 3) {
            ex_lines_add(out, "%s|%llu|%s", tr[t].name, ts, name);
        } else {
            ck_assert_msg(type == 4 && tr[t].counter, "track %s: event type %llu", tr[t].name,
                          type);
            ex_lines_add(out, "%s|%llu|%llu", tr[t].name, ts, value);
        }
    }
    for (size_t t = 0; t < n_tr; t++)
        ck_assert_msg(tr[t].depth == 0, "track %s: %zu slices left open", tr[t].name,
                      tr[t].depth);
    x_free(tr);
    qsort(out->line, out->n, sizeof *out->line, ex_str_cmp);
}

/* The same lines from the Chrome JSON of process 1. */
static void
ex_json_lines(const char *json, size_t len, ex_lines *out)
{
    char why[256];
    jsonv *root = jsonv_parse(json, len, why, sizeof why);
    ck_assert_msg(root != NULL, "%s", why);
    const jsonv *evs = jsonv_get(root, "traceEvents");
    /* Track names first (metadata may follow events in general; ours precede them). */
    unsigned long long tids[EX_MAX_TRACKS];
    const char *names[EX_MAX_TRACKS];
    size_t n_t = 0;
    for (size_t i = 0; i < evs->n; i++) {
        const jsonv *e = &evs->items[i];
        if (strcmp(jsonv_str(e, "ph"), "M") == 0 &&
            strcmp(jsonv_str(e, "name"), "thread_name") == 0) {
            ck_assert_uint_lt(n_t, EX_MAX_TRACKS);
            tids[n_t] = ex_uint(e, "tid", "json");
            names[n_t++] = jsonv_str(jsonv_get(e, "args"), "name");
        }
    }
    for (size_t i = 0; i < evs->n; i++) {
        const jsonv *e = &evs->items[i];
        const char *ph = jsonv_str(e, "ph");
        const char *name = jsonv_str(e, "name");
        if (strcmp(ph, "C") == 0) {
            const jsonv *args = jsonv_get(e, "args");
            unsigned long long v;
            ck_assert(jsonv_fixed(&args->items[0], 0, &v));
            ex_lines_add(out, "%s|%llu|%llu", name, ex_ns(e, "ts", "json"), v);
            continue;
        }
        if (strcmp(ph, "M") == 0)
            continue;
        unsigned long long tid = ex_uint(e, "tid", "json");
        size_t t = 0;
        while (t < n_t && tids[t] != tid)
            t++;
        ck_assert_msg(t < n_t, "json: tid %llu has no name", tid);
        unsigned long long ts = ex_ns(e, "ts", "json");
        if (strcmp(ph, "X") == 0)
            ex_lines_add(out, "%s|%llu|%llu|%s", names[t], ts, ts + ex_ns(e, "dur", "json"),
                         name);
        else
            ex_lines_add(out, "%s|%llu|%s", names[t], ts, name);
    }
    jsonv_free(root);
    qsort(out->line, out->n, sizeof *out->line, ex_str_cmp);
}

/* The protobuf trace holds exactly the Chrome JSON's slices, instants and counter values
 * (both checked against the dump above), each track's events in time order with every
 * BEGIN closed by an END; the writers' counts agree. */
START_TEST(test_export_perfetto_fixture)
{
    const char *fixture = ex_fixtures[_i];
    char rel[256];
    snprintf(rel, sizeof rel, "fixtures/%s", fixture);
    evlog *log = test_open_log(rel);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    export_opts o = { .from_ns = 0, .to_ns = UINT64_MAX, .pid = 1, .name = fixture };
    export_counts cj, cp;
    size_t jlen;
    char *json = ex_export(ix, &o, &cj, &jlen);
    char *pb = NULL;
    size_t plen = 0;
    FILE *f = open_memstream(&pb, &plen);
    perfetto *w = perfetto_new(f);
    perfetto_add(w, ix, &o, &cp);
    ck_assert(perfetto_finish(w));
    fclose(f);
    ex_lines lj = { 0 }, lp = { 0 };
    size_t pb_runs;
    ex_read_pftrace((const unsigned char *)pb, plen, &lp, &pb_runs);
    ex_json_lines(json, jlen, &lj);
    ck_assert_uint_eq(pb_runs, cj.runs);
    ck_assert_msg(lp.n == lj.n, "%s: %zu items in the protobuf, %zu in the JSON", fixture,
                  lp.n, lj.n);
    for (size_t i = 0; i < lp.n; i++)
        ck_assert_msg(strcmp(lp.line[i], lj.line[i]) == 0, "%s: protobuf \"%s\", JSON \"%s\"",
                      fixture, lp.line[i], lj.line[i]);
    ck_assert(memcmp(&cj, &cp, sizeof cj) == 0);
    ex_lines_free(&lj);
    ex_lines_free(&lp);
    free(pb);
    free(json);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* The binary: --format perfetto to a file, windows included; refused on a terminal is
 * not testable here, an unknown format is a usage error (test_export_usage). */
START_TEST(test_export_perfetto_cli_window)
{
    char dir[] = "/tmp/elog-export.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char out[128];
    snprintf(out, sizeof out, "%s/w.pftrace", dir);
    char *fix = test_path("fixtures/markers.eventlog");
    const char *args[] = { "export", "--format", "perfetto", fix, "--from", "phase:parse",
                           "--to", "phase:render", NULL };
    ck_assert_int_eq(ex_run(args, out, NULL), 0);
    size_t len;
    unsigned char *pb = test_read_file(out, &len);
    ck_assert_ptr_nonnull(pb);
    ex_lines lp = { 0 };
    size_t runs;
    ex_read_pftrace(pb, len, &lp, &runs);
    evlog *log = test_open_log("fixtures/markers.eventlog");
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    const uint64_t from = 503989, to = 1065124;     /* the dump's phase:parse, phase:render */
    size_t want_runs = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++)
        want_runs += runlane_count_in(evindex_cap_at(ix, i)->runs, from, to);
    ck_assert_uint_eq(runs, want_runs);
    ck_assert_uint_gt(runs, 0);
    bool parse = false;
    for (size_t i = 0; i < lp.n; i++)
        parse |= strcmp(lp.line[i], "markers|503989|phase:parse") == 0;
    ck_assert(parse);
    ex_lines_free(&lp);
    x_free(pb);
    evindex_free(ix);
    evlog_close(log);
    unlink(out);
    rmdir(dir);
    x_free(fix);
}
END_TEST

Suite *
test_export_suite(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("chrome");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_export_fixture, 0,
                        (int)(sizeof ex_fixtures / sizeof ex_fixtures[0]));
    tcase_add_test(tc, test_export_nonmoving_marked);
    tcase_add_test(tc, test_export_json_string);
    tcase_add_test(tc, test_export_window_cli);
    tcase_add_test(tc, test_export_two_logs);
    tcase_add_test(tc, test_export_usage);
    tcase_add_loop_test(tc, test_export_perfetto_fixture, 0,
                        (int)(sizeof ex_fixtures / sizeof ex_fixtures[0]));
    tcase_add_test(tc, test_export_perfetto_cli_window);
    suite_add_tcase(s, tc);
    TCase *tm = tcase_create("memory");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, test_export_bounded_memory);
    suite_add_tcase(s, tm);
    return s;
}
