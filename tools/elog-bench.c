/* elog-bench: in-process timings for `make bench` — a bare scan (the floor), the index
 * build and its memory, the peak anonymous memory while opening (sampled in a child),
 * index query latencies, the time to the viewer's first frame, the time until each list
 * is usable after it, and frame draw times at several zooms — printed as aligned
 * "tag name value ..." lines. */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "diag.h"
#include "evindex.h"
#include "evlog.h"
#include "evseek.h"
#include "lanes.h"
#include "surface.h"
#include "timeview.h"
#include "xalloc.h"

#define BENCH_COLS 200
#define BENCH_LINES 50
#define BENCH_PLOT_COLS (BENCH_COLS - LANES_LABEL_COLS)
#define BENCH_SEEK_MAX 200

static const char bench_usage[] =
    "usage: elog-bench [--runs N] [--queries N] [--frames N] [--seed S] FILE\n"
    "  --runs N      scan / index / first-frame runs, median reported (default 3)\n"
    "  --queries N   random ranges per query kind and width (default 10000)\n"
    "  --frames N    frames drawn per zoom level and pane setting (default 200)\n"
    "  --seed S      seed of the random ranges (default 1)\n";

typedef struct bench_opts {
    const char *path;
    int runs;
    size_t queries;
    int frames;
    uint64_t seed;
} bench_opts;

/* Order statistics of a sample set, in the unit the samples were taken in. */
typedef struct bench_stats {
    double min, median, p99, max;
} bench_stats;

static uint64_t
bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time of this thread: excludes the time other processes held the core. */
static uint64_t
bench_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double
bench_ms_since(uint64_t start_ns)
{
    return (double)(bench_now_ns() - start_ns) / 1e6;
}

static int
bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts v in place. n >= 1. */
static bench_stats
bench_stats_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, bench_cmp_double);
    bench_stats st = {
        .min = v[0],
        .median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
        .p99 = v[(size_t)((double)(n - 1) * 0.99)],
        .max = v[n - 1],
    };
    return st;
}

/* splitmix64: deterministic for a seed. */
static uint64_t
bench_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Open or exit 1 with the error. Caller closes. */
static evlog *
bench_open(const char *path)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(path, &d);
    if (!log) {
        char buf[1024];
        diag_format(&d, path, buf, sizeof buf);
        fprintf(stderr, "elog-bench: %s\n", buf);
        exit(1);
    }
    return log;
}

/* The floor: exactly the loop of `elog-tui scan`, open and close included. */
static double
bench_scan(const char *path, uint64_t *n_events, double *cpu_ms)
{
    uint64_t c0 = bench_cpu_ns();
    uint64_t t0 = bench_now_ns();
    evlog *log = bench_open(path);
    evlog_advise_sequential(log);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    uint64_t n = 0, checksum = 0;
    while (evlog_iter_next(&it, &ev)) {
        n++;
        checksum += ev.time_ns ^ ev.type;
    }
    evlog_close(log);
    double ms = bench_ms_since(t0);
    *cpu_ms = (double)(bench_cpu_ns() - c0) / 1e6;
    /* Keep the checksum alive so the loop is not optimised away. */
    volatile uint64_t sink = checksum;
    (void)sink;
    *n_events = n;
    return ms;
}

/* Open + evindex_build (+ free, untimed), its stages into *prof. */
static double
bench_index(const char *path, evindex_prof *prof)
{
    memset(prof, 0, sizeof *prof);
    evindex_opts opts = { .prof = prof };
    uint64_t t0 = bench_now_ns();
    evlog *log = bench_open(path);
    evindex *ix = evindex_build(log, &opts, NULL);
    double ms = bench_ms_since(t0);
    evindex_free(ix);
    evlog_close(log);
    return ms;
}

/* The index build's CPU and its critical path (evindex_prof) against the bare scan's
 * CPU, medians over the runs, and the stages of the run whose critical path was the
 * median. Reorders crit, cpu and scan_cpu. */
static void
bench_build_prof(const evindex_prof *prof, double *crit, double *cpu, double *scan_cpu,
                 size_t n)
{
    double median_crit = bench_stats_of(crit, n).median;
    const evindex_prof *p = &prof[0];
    double best = -1;
    for (size_t r = 0; r < n; r++) {
        double d = (double)evindex_prof_critical_ns(&prof[r]) / 1e6 - median_crit;
        d = d < 0 ? -d : d;
        if (best < 0 || d < best) {
            best = d;
            p = &prof[r];
        }
    }
    double sc = bench_stats_of(scan_cpu, n).median, c = bench_stats_of(cpu, n).median;
    if (sc <= 0)
        sc = 1e-9;
    printf("%-12s %-9s %9.1f  %-7s %9.1f  %-11s %9.1f  %-9s %.2f  %-10s %.2f\n",
           "build_cpu", "cpu_ms", c, "crit_ms", median_crit, "scan_cpu_ms", sc, "cpu_ratio",
           c / sc, "crit_ratio", median_crit / sc);
    unsigned ns = atomic_load(&p->n);
    for (unsigned i = 0; i < ns && i < EVINDEX_PROF_MAX; i++)
        printf("%-12s %-14s %-6s %8.1f  %-7s %8.1f  %-7s %u  %-4s %u\n", "build_stage",
               p->stage[i].name, "cpu_ms", (double)p->stage[i].cpu_ns / 1e6, "wall_ms",
               (double)p->stage[i].wall_ns / 1e6, "section", p->stage[i].section, "lane",
               p->stage[i].lane);
}

typedef struct bench_first {
    double total_ms, open_ms, index_ms, app_ms, draw_ms;
} bench_first;

/* From nothing to the first complete frame of a BENCH_COLS x BENCH_LINES viewer. */
static bench_first
bench_first_frame(const char *path)
{
    bench_first f;
    uint64_t t0 = bench_now_ns();
    evlog *log = bench_open(path);
    uint64_t t1 = bench_now_ns();
    evindex *ix = evindex_build(log, NULL, NULL);
    uint64_t t2 = bench_now_ns();
    app_opts ao = { .mouse = false, .async_totals = true };   /* as the interactive loop */
    app *a = app_new(ix, path, BENCH_COLS, BENCH_LINES, &ao);
    surface *s = surface_new(BENCH_COLS, BENCH_LINES);
    uint64_t t3 = bench_now_ns();
    app_draw(a, s);
    uint64_t t4 = bench_now_ns();
    f.total_ms = (double)(t4 - t0) / 1e6;
    f.open_ms = (double)(t1 - t0) / 1e6;
    f.index_ms = (double)(t2 - t1) / 1e6;
    f.app_ms = (double)(t3 - t2) / 1e6;
    f.draw_ms = (double)(t4 - t3) / 1e6;
    surface_free(s);
    app_free(a);
    evindex_free(ix);
    evlog_close(log);
    return f;
}

/* ---- peak anonymous memory while opening ------------------------------------------- */

/* This process's resident anonymous memory in KiB (RssAnon), or 0 if unknown. */
static uint64_t
bench_rss_anon_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    uint64_t kb = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "RssAnon:", 8) == 0) {
            kb = strtoull(line + 8, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

typedef struct bench_sampler {
    atomic_bool stop;
    atomic_uint_fast64_t peak_kb;
} bench_sampler;

/* Polls RssAnon every 0.5 ms until told to stop, keeping the largest value. */
static void *
bench_sampler_main(void *arg)
{
    bench_sampler *sm = arg;
    const struct timespec pause = { 0, 500000 };
    while (!atomic_load(&sm->stop)) {
        uint64_t kb = bench_rss_anon_kb();
        if (kb > atomic_load(&sm->peak_kb))
            atomic_store(&sm->peak_kb, kb);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

typedef struct bench_peak {
    uint64_t base_kb;           /* before opening: the process's own baseline */
    uint64_t first_frame_kb;    /* peak from opening to the first frame */
    uint64_t settled_kb;        /* peak until the background thread totals are done */
} bench_peak;

/* In a forked child (a fresh heap): open, index, first frame, then wait for the
 * viewer's background thread totals, sampling RssAnon throughout. */
static bench_peak
bench_open_peak(const char *path)
{
    bench_peak pk = { 0, 0, 0 };
    int fd[2];
    if (pipe(fd) != 0)
        return pk;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        bench_sampler sm;
        atomic_init(&sm.stop, false);
        atomic_init(&sm.peak_kb, 0);
        bench_peak r = { bench_rss_anon_kb(), 0, 0 };
        pthread_t th;
        bool sampling = pthread_create(&th, NULL, bench_sampler_main, &sm) == 0;
        evlog *log = bench_open(path);
        evindex *ix = evindex_build(log, NULL, NULL);
        app_opts ao = { .mouse = false, .async_totals = true };
        app *a = app_new(ix, path, BENCH_COLS, BENCH_LINES, &ao);
        surface *sf = surface_new(BENCH_COLS, BENCH_LINES);
        app_draw(a, sf);
        uint64_t kb = bench_rss_anon_kb();
        r.first_frame_kb = atomic_load(&sm.peak_kb) > kb ? atomic_load(&sm.peak_kb) : kb;
        const struct timespec pause = { 0, 200000 };
        while (app_totals_pending(a)) {
            app_poll_totals(a);
            nanosleep(&pause, NULL);
        }
        app_draw(a, sf);
        atomic_store(&sm.stop, true);
        if (sampling)
            pthread_join(th, NULL);
        kb = bench_rss_anon_kb();
        r.settled_kb = atomic_load(&sm.peak_kb) > kb ? atomic_load(&sm.peak_kb) : kb;
        ssize_t w = write(fd[1], &r, sizeof r);
        _exit(w == (ssize_t)sizeof r ? 0 : 1);
    }
    close(fd[1]);
    if (pid > 0) {
        if (read(fd[0], &pk, sizeof pk) != (ssize_t)sizeof pk)
            memset(&pk, 0, sizeof pk);
        waitpid(pid, NULL, 0);
    }
    close(fd[0]);
    return pk;
}

/* ---- lists after the first frame ------------------------------------------------------ */

/* From a fresh viewer's first frame to each list drawn with its rows (the thread list:
 * once the background totals it waits for are in), one list at a time. The search
 * looks for "7" in every marker, message and thread label. */
static void
bench_lists(const evindex *ix, const char *path, int runs)
{
    static const struct {
        const char *name;
        const char *keys[4];
    } lists[] = {
        { "threads", { "t", NULL } },
        { "gcs", { "p", NULL } },
        { "markers", { "m", NULL } },
        { "search", { "/", "7", "Enter", NULL } },
    };
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        double *ms = xcalloc((size_t)runs, sizeof *ms);    /* freed below */
        for (int r = 0; r < runs; r++) {
            app_opts ao = { .mouse = false, .async_totals = true };
            app *a = app_new(ix, path, BENCH_COLS, BENCH_LINES, &ao);
            surface *sf = surface_new(BENCH_COLS, BENCH_LINES);
            app_draw(a, sf);
            uint64_t t0 = bench_now_ns();
            for (int k = 0; lists[l].keys[k]; k++)
                app_key(a, lists[l].keys[k]);
            const struct timespec pause = { 0, 100000 };
            while (l == 0 && app_list_counting(a)) {
                app_poll_totals(a);
                nanosleep(&pause, NULL);
            }
            app_draw(a, sf);
            ms[r] = bench_ms_since(t0);
            surface_free(sf);
            app_free(a);
        }
        bench_stats st = bench_stats_of(ms, (size_t)runs);
        printf("%-12s %-10s %-9s %9.1f  %-6s %9.1f\n", "list", lists[l].name, "median_ms",
               st.median, "max_ms", st.max);
        x_free(ms);
    }
}

/* The bytes of each part of the index the public API can see; "other" is the rest. */
static void
bench_memory(const evindex *ix, size_t file_bytes)
{
    size_t total = evindex_bytes(ix);
    size_t runs = 0, phases = 0, series_b = 0, gcs = 0, sparks = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        runs += runlane_bytes(evindex_cap_at(ix, i)->runs);
        phases += ivtrack_bytes(evindex_cap_at(ix, i)->gc);
    }
    phases += ivtrack_bytes(evindex_nm_track(ix));
    for (int i = 0; i < EVINDEX_N_SERIES; i++)
        series_b += series_bytes(evindex_series(ix, (enum evindex_series_id)i));
    series_b += series_bytes(evindex_nm_pruned(ix));
    gcs = evindex_gc_bytes(ix);
    size_t msgs = evindex_n_msgs(ix) * sizeof(evindex_msg) +
                  evindex_n_markers(ix) * sizeof(uint32_t);
    size_t threads = threadtab_bytes(evindex_threads(ix));
    size_t seek = evseek_bytes(evindex_seek(ix));
    sparks = evindex_spark_bytes(ix);
    size_t known = runs + phases + series_b + gcs + sparks + msgs + threads + seek;
    printf("%-12s %-14s %12zu  %-14s %12zu  %-6s %7.3f\n", "memory", "index_bytes", total,
           "file_bytes", file_bytes, "ratio",
           file_bytes ? (double)total / (double)file_bytes : 0.0);
    printf("%-12s runs %zu  gc_phases %zu  threads %zu  collections %zu  messages %zu  "
           "series %zu  spark_times %zu  seek %zu  other %zu\n", "memory_parts", runs,
           phases, threads, gcs, msgs, series_b, sparks, seek, total > known ? total - known : 0);
}

/* ---- queries ------------------------------------------------------------------------ */

enum bench_query {
    Q_RUNLANE_BUSY,         /* runlane_busy_ns on every lane */
    Q_IVTRACK_KIND,         /* ivtrack_kind_ns, both GC kinds, on every lane */
    Q_LANES,                /* the two above together: one HEC column of every lane */
    Q_GC_FIRST,             /* evindex_gc_first_from */
    Q_MARKER_FIRST,         /* evindex_marker_first_from */
    Q_SERIES_RANGE,         /* series_range on the longest series */
    Q_EVSEEK_RANGE,         /* evseek_range, at most BENCH_SEEK_MAX events */
    Q_N
};

static const char *const bench_query_names[Q_N] = {
    "runlane_busy", "ivtrack_kind", "lanes_busy+gc", "gc_first_from", "marker_first_from",
    "series_range", "evseek_range",
};

static volatile uint64_t bench_sink;

/* Run one query of `kind` over [t0, t1); returns its time in µs. */
static double
bench_query_one(const evindex *ix, const series *ser, enum bench_query kind, uint64_t t0,
                uint64_t t1, evseek_hit *hits)
{
    uint64_t acc = 0;
    size_t n_caps = evindex_n_caps(ix);
    uint64_t start = bench_now_ns();
    switch (kind) {
    case Q_RUNLANE_BUSY:
        for (size_t i = 0; i < n_caps; i++)
            acc += runlane_busy_ns(evindex_cap_at(ix, i)->runs, t0, t1);
        break;
    case Q_IVTRACK_KIND:
        for (size_t i = 0; i < n_caps; i++) {
            const ivtrack *gc = evindex_cap_at(ix, i)->gc;
            acc += ivtrack_kind_ns(gc, EVINDEX_GC_WORK, t0, t1);
            acc += ivtrack_kind_ns(gc, EVINDEX_GC_WAIT, t0, t1);
        }
        break;
    case Q_LANES:
        for (size_t i = 0; i < n_caps; i++) {
            const evindex_cap *c = evindex_cap_at(ix, i);
            acc += runlane_busy_ns(c->runs, t0, t1);
            acc += ivtrack_kind_ns(c->gc, EVINDEX_GC_WORK, t0, t1);
            acc += ivtrack_kind_ns(c->gc, EVINDEX_GC_WAIT, t0, t1);
        }
        break;
    case Q_GC_FIRST:
        acc = evindex_gc_first_from(ix, t0);
        break;
    case Q_MARKER_FIRST:
        acc = evindex_marker_first_from(ix, t0);
        break;
    case Q_SERIES_RANGE: {
        uint64_t lo = 0, hi = 0;
        acc = series_range(ser, t0, t1, &lo, &hi) ? lo ^ hi : 0;
        break;
    }
    case Q_EVSEEK_RANGE: {
        bool more;
        acc = evseek_range(evindex_seek(ix), evindex_log(ix), t0, t1, hits, BENCH_SEEK_MAX,
                           &more);
        break;
    }
    default:
        break;
    }
    uint64_t end = bench_now_ns();
    bench_sink += acc;
    return (double)(end - start) / 1e3;
}

/* 10,000 (o->queries) random ranges of each width; median, p99 and max per kind. */
static void
bench_queries(const evindex *ix, const bench_opts *o)
{
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    uint64_t span = last > first ? last - first : 1;
    const series *ser = evindex_series(ix, 0);
    int ser_id = 0;
    for (int i = 1; i < EVINDEX_N_SERIES; i++) {
        const series *s = evindex_series(ix, (enum evindex_series_id)i);
        if (series_count(s) > series_count(ser)) {
            ser = s;
            ser_id = i;
        }
    }
    struct {
        const char *name;
        uint64_t width_ns;
    } widths[] = {
        { "col@fit", span / BENCH_PLOT_COLS },
        { "col@1/100", span / 100 / BENCH_PLOT_COLS },
        { "1us", 1000 },
    };
    /* Cost of the clock itself, which every sample includes. */
    double *v = xcalloc(o->queries, sizeof *v);
    for (size_t i = 0; i < o->queries; i++) {
        uint64_t a = bench_now_ns();
        v[i] = (double)(bench_now_ns() - a) / 1e3;
    }
    bench_stats clk = bench_stats_of(v, o->queries);
    printf("%-12s caps %zu  gcs %zu  markers %zu  series \"%s\" %zu samples  "
           "clock_overhead_us %.3f\n", "query_setup", evindex_n_caps(ix), evindex_n_gcs(ix),
           evindex_n_markers(ix), evindex_series_name((enum evindex_series_id)ser_id),
           series_count(ser), clk.median);
    uint64_t *starts = xcalloc(o->queries, sizeof *starts);
    evseek_hit *hits = xcalloc(BENCH_SEEK_MAX, sizeof *hits);
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
        uint64_t width = widths[w].width_ns ? widths[w].width_ns : 1;
        uint64_t room = span > width ? span - width : 1;
        uint64_t rng = o->seed * 1000003u + w;
        for (size_t i = 0; i < o->queries; i++)
            starts[i] = first + bench_rand(&rng) % room;
        for (int k = 0; k < Q_N; k++) {
            for (size_t i = 0; i < o->queries; i++)
                v[i] = bench_query_one(ix, ser, (enum bench_query)k, starts[i],
                                       starts[i] + width, hits);
            bench_stats st = bench_stats_of(v, o->queries);
            printf("%-12s %-10s %-12" PRIu64 " %-18s %-9s %9.3f  %-6s %9.3f  %-6s %9.3f\n",
                   "query", widths[w].name, width, bench_query_names[k], "median_us",
                   st.median, "p99_us", st.p99, "max_us", st.max);
        }
    }
    x_free(hits);
    x_free(starts);
    x_free(v);
}

/* ---- frames ------------------------------------------------------------------------- */

/* Let a viewer that has drawn its opening frame finish what it counts in the background
 * then (every thread's run totals), taking it as the interactive loop does: a moment
 * after opening, which is when the user zooms. At most 60 s. */
static void
bench_settle(app *a)
{
    uint64_t t0 = bench_now_ns();
    while (app_totals_pending(a) && bench_now_ns() - t0 < UINT64_C(60000000000))
        if (!app_poll_totals(a))
            nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
}

/* Draw o->frames frames at one zoom (fraction of the log, 0 = fully zoomed in) centred
 * on the log's middle, panning with the viewer's own key between frames, as a user does
 * after opening: the viewer has drawn its opening frame (first_frame times that one) and
 * counted its thread totals (bench_settle); the first frame at the zoom comes cold.
 * Wall time is what the user sees; the thread's CPU time tells a slow frame from a
 * descheduled one. */
static void
bench_frames_at(const evindex *ix, const bench_opts *o, const char *level, double fraction,
                bool events)
{
    app_opts ao = { .mouse = false, .async_totals = true };   /* as the interactive loop */
    app *a = app_new(ix, o->path, BENCH_COLS, BENCH_LINES, &ao);
    surface *s = surface_new(BENCH_COLS, BENCH_LINES);
    app_draw(a, s);                     /* the opening frame: not one of these */
    bench_settle(a);
    timeview *v = app_view(a);
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    uint64_t mid = first + (last - first) / 2;
    uint64_t half = (uint64_t)((double)(last - first) * fraction / 2);
    if (fraction < 1.0)
        timeview_zoom_to(v, mid - half, mid + half + 1);
    timeview_set_cursor(v, mid);
    if (events)
        app_key(a, "e");
    double *ms = xcalloc((size_t)o->frames, sizeof *ms);
    double *cpu_ms = xcalloc((size_t)o->frames, sizeof *cpu_ms);
    const char *pan = "l";
    for (int i = 0; i < o->frames; i++) {
        uint64_t c0 = bench_cpu_ns(), t0 = bench_now_ns();
        app_draw(a, s);
        ms[i] = bench_ms_since(t0);
        cpu_ms[i] = (double)(bench_cpu_ns() - c0) / 1e6;
        uint64_t before = v->t0_ns;
        app_key(a, pan);
        if (v->t0_ns == before && fraction < 1.0) {     /* at an end of the log: turn */
            pan = pan[0] == 'l' ? "h" : "l";
            app_key(a, pan);
        }
    }
    double ns_per_col = timeview_ns_per_col(v);
    bench_stats st = bench_stats_of(ms, (size_t)o->frames);
    bench_stats cpu = bench_stats_of(cpu_ms, (size_t)o->frames);
    printf("%-12s %-10s %-10s %-10s %12.1f  %-9s %7.3f  %-6s %7.3f  %-6s %7.3f  "
           "%-13s %7.3f  %-10s %7.3f\n", "frame", level, events ? "events-on" : "events-off",
           "ns/col", ns_per_col, "median_ms", st.median, "p99_ms", st.p99, "max_ms", st.max,
           "cpu_median_ms", cpu.median, "cpu_max_ms", cpu.max);
    x_free(cpu_ms);
    x_free(ms);
    surface_free(s);
    app_free(a);
}

static void
bench_frames(const evindex *ix, const bench_opts *o)
{
    static const struct {
        const char *name;
        double fraction;
    } levels[] = {
        { "fit", 1.0 }, { "1/10", 1e-1 }, { "1/1000", 1e-3 }, { "1/100000", 1e-5 },
        { "max-zoom", 0.0 },
    };
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
        for (int e = 0; e < 2; e++)
            bench_frames_at(ix, o, levels[l].name, levels[l].fraction, e == 1);
}

/* ---- main --------------------------------------------------------------------------- */

static bool
bench_parse_args(int argc, char **argv, bench_opts *o)
{
    *o = (bench_opts){ .runs = 3, .queries = 10000, .frames = 200, .seed = 1 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && i + 1 < argc) {
            char *end;
            unsigned long long n = strtoull(argv[i + 1], &end, 10);
            if (*end || n == 0 || n > 100000000)
                return false;
            if (strcmp(a, "--runs") == 0)
                o->runs = (int)n;
            else if (strcmp(a, "--queries") == 0)
                o->queries = (size_t)n;
            else if (strcmp(a, "--frames") == 0)
                o->frames = (int)n;
            else if (strcmp(a, "--seed") == 0)
                o->seed = n;
            else
                return false;
            i++;
        } else if (a[0] != '-' && !o->path) {
            o->path = a;
        } else {
            return false;
        }
    }
    return o->path != NULL;
}

int
main(int argc, char **argv)
{
    bench_opts o;
    if (!bench_parse_args(argc, argv, &o)) {
        fputs(bench_usage, stderr);
        return 2;
    }
    /* First, while this process is small: a forked child inherits its memory. */
    bench_peak pk = bench_open_peak(o.path);
    /* Interleave the runs so drift in machine load hits all three alike. */
    double *scan = xcalloc((size_t)o.runs, sizeof *scan);
    double *scan_cpu = xcalloc((size_t)o.runs, sizeof *scan_cpu);
    evindex_prof *prof = xcalloc((size_t)o.runs, sizeof *prof);
    double *crit = xcalloc((size_t)o.runs, sizeof *crit);
    double *build_cpu = xcalloc((size_t)o.runs, sizeof *build_cpu);
    double *build = xcalloc((size_t)o.runs, sizeof *build);
    double *first = xcalloc((size_t)o.runs, sizeof *first);
    double *first_open = xcalloc((size_t)o.runs, sizeof *first_open);
    double *first_index = xcalloc((size_t)o.runs, sizeof *first_index);
    double *first_app = xcalloc((size_t)o.runs, sizeof *first_app);
    double *first_draw = xcalloc((size_t)o.runs, sizeof *first_draw);
    uint64_t n_events = 0;
    for (int r = 0; r < o.runs; r++) {
        scan[r] = bench_scan(o.path, &n_events, &scan_cpu[r]);
        build[r] = bench_index(o.path, &prof[r]);
        crit[r] = (double)evindex_prof_critical_ns(&prof[r]) / 1e6;
        build_cpu[r] = (double)evindex_prof_cpu_ns(&prof[r]) / 1e6;
        bench_first f = bench_first_frame(o.path);
        first[r] = f.total_ms;
        first_open[r] = f.open_ms;
        first_index[r] = f.index_ms;
        first_app[r] = f.app_ms;
        first_draw[r] = f.draw_ms;
    }
    size_t n = (size_t)o.runs;
    bench_stats sc = bench_stats_of(scan, n), ix_st = bench_stats_of(build, n);
    bench_stats ff = bench_stats_of(first, n);
    double floor_ms = sc.median > 0 ? sc.median : 1e-9;

    evlog *log = bench_open(o.path);
    evindex *ix = evindex_build(log, NULL, NULL);
    printf("%-12s %-14s %12zu  %-14s %12" PRIu64 "  %-6s %.3f s  %-6s %zu  %-7s %zu\n", "file",
           "bytes", evlog_size(log), "events", n_events, "span",
           (double)(evindex_last_ns(ix) - evindex_first_ns(ix)) / 1e9, "caps",
           evindex_n_caps(ix), "threads", threadtab_count(evindex_threads(ix)));
    printf("%-12s runs %d  queries %zu  frames %d  cols %d  lines %d  seed %" PRIu64 "\n",
           "setup", o.runs, o.queries, o.frames, BENCH_COLS, BENCH_LINES, o.seed);
    printf("%-12s %-9s %9.1f  %-6s %9.1f  %-6s %9.1f  %-5s %d\n", "scan", "median_ms",
           sc.median, "min_ms", sc.min, "max_ms", sc.max, "runs", o.runs);
    printf("%-12s %-9s %9.1f  %-6s %9.1f  %-6s %9.1f  %-5s %d  %-5s %.2f\n", "index",
           "median_ms", ix_st.median, "min_ms", ix_st.min, "max_ms", ix_st.max, "runs", o.runs,
           "ratio", ix_st.median / floor_ms);
    bench_memory(ix, evlog_size(log));
    bench_build_prof(prof, crit, build_cpu, scan_cpu, n);
    printf("%-12s %-9s %9.1f  %-6s %9.1f  %-6s %9.1f  %-5s %d  %-5s %.2f  open_ms %.1f  "
           "index_ms %.1f  app_new_ms %.2f  draw_ms %.2f\n", "first_frame", "median_ms",
           ff.median, "min_ms", ff.min, "max_ms", ff.max, "runs", o.runs, "ratio",
           ff.median / floor_ms, bench_stats_of(first_open, n).median,
           bench_stats_of(first_index, n).median, bench_stats_of(first_app, n).median,
           bench_stats_of(first_draw, n).median);
    printf("%-12s %-8s %10" PRIu64 "  %-16s %10" PRIu64 "  %-10s %10" PRIu64 "  %-6s %.3f  "
           "%-14s %.3f\n", "peak_anon", "base_kb", pk.base_kb, "first_frame_kb",
           pk.first_frame_kb, "settled_kb", pk.settled_kb, "ratio",
           (double)(pk.first_frame_kb - pk.base_kb) * 1024 / (double)evlog_size(log),
           "settled_ratio", (double)(pk.settled_kb - pk.base_kb) * 1024 / (double)evlog_size(log));
    fflush(stdout);
    bench_lists(ix, o.path, o.runs);
    fflush(stdout);
    bench_queries(ix, &o);
    fflush(stdout);
    bench_frames(ix, &o);

    evindex_free(ix);
    evlog_close(log);
    x_free(first_draw);
    x_free(first_app);
    x_free(first_index);
    x_free(first_open);
    x_free(first);
    x_free(build);
    x_free(scan);
    x_free(scan_cpu);
    x_free(prof);
    x_free(crit);
    x_free(build_cpu);
    return 0;
}
