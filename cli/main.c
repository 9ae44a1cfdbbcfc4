/* elog-tui command line: parses arguments, runs a subcommand, and is the only
 * place that reports errors to the user and chooses the exit status. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "decode.h"
#include "diag.h"
#include "evindex.h"
#include "evlog.h"
#include "gcstats.h"
#include "merge.h"
#include "reports.h"
#include "show.h"
#include "snapshot.h"
#include "statsfmt.h"
#include "strbuf.h"
#include "timefmt.h"

static const char main_usage[] =
    "usage: elog-tui show FILE        print every event like `ghc-events show`\n"
    "       elog-tui stats FILE [--from T] [--to T]\n"
    "                                 the +RTS -s report rebuilt from the log, pause\n"
    "                                 percentiles and the longest pauses; T is 1.5s, 200ms,\n"
    "                                 35us, 1m30s, a number of ns, or a marker's text\n"
    "       elog-tui gc FILE [--sort pause] [--top N] [--json]\n"
    "                                 one row per collection: start, pause, sync, generation,\n"
    "                                 copied, live after, slowest cap, per-cap work and idle\n"
    "       elog-tui markers FILE [--messages] [--json]\n"
    "                                 every traceMarker (and with --messages every message)\n"
    "       elog-tui threads FILE [--sort runtime] [--top N] [--json]\n"
    "                                 every thread: label, creation, run time, runs, why\n"
    "                                 its runs stopped\n"
    "       elog-tui heap FILE [--censuses] [--top N] [--json]\n"
    "                                 the heap profile (+RTS -hT, -hc, -hy, -hr, -hb...): each\n"
    "                                 band (cost-centre stack, description, retainer set or\n"
    "                                 biography) by peak bytes, or with --censuses every\n"
    "                                 census's bytes per band, at the time it was taken\n"
    "       elog-tui index FILE       build the timeline index and print its size (benchmark)\n"
    "       elog-tui scan FILE        walk every event once and count them (benchmark floor)\n"
    "       elog-tui FILE [--backend curses|tickit] [--ascii] [--mono] [--no-mouse]\n"
    "                                 the interactive timeline viewer (? lists the keys)\n"
    "       elog-tui snapshot FILE [--size WxH] [--from T] [--to T] [--keys 'K ...']\n"
    "                         [--color] [--ascii]\n"
    "                                 draw the viewer's screen once to stdout (after the\n"
    "                                 given key presses, e.g. --keys ']  ]  z')\n"
    "       elog-tui --help\n"
    "All times are the log's clock: ns since the RTS started, as `ghc-events show` prints\n"
    "them (the viewer shows the same clock).\n";

static void
main_report(const char *file, const diag *d, const char *prefix)
{
    char buf[1024];
    diag_format(d, file, buf, sizeof buf);
    fprintf(stderr, "elog-tui: %s%s\n", prefix, buf);
}

/* Open or exit 1 with the one-line error. Caller closes. */
static evlog *
main_open(const char *file)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(file, &d);
    if (!log) {
        main_report(file, &d, "");
        exit(1);
    }
    return log;
}

/* If the file shrank while we read it (see evlog_changed), say so: what was printed
 * from the lost bytes on is not the file's. Returns whether it did; call before
 * evlog_close. */
static bool
main_changed(const char *file, const evlog *log)
{
    uint64_t off;
    if (!evlog_changed(log, &off))
        return false;
    fprintf(stderr, "elog-tui: warning: %s changed while being read (data from byte %llu is "
            "gone)\n", file, (unsigned long long)off);
    return true;
}

/* Report how the data ended; returns the exit status it implies. */
static int
main_ending(const char *file, const diag *ending, size_t n_events)
{
    if (ending->code == DIAG_OK)
        return 0;
    if (ending->code == DIAG_TRUNCATED) {
        char buf[1024];
        diag_format(ending, file, buf, sizeof buf);
        fprintf(stderr, "elog-tui: warning: %s; %zu complete events before it were read\n",
                buf, n_events);
        return 0;
    }
    main_report(file, ending, "");
    return 1;
}

static int
main_show(const char *file)
{
    evlog *log = main_open(file);
    diag ending;
    show_stats st;
    bool ok = show_write(log, stdout, &ending, &st);
    bool changed = main_changed(file, log);
    evlog_close(log);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return changed ? 1 : main_ending(file, &ending, st.n_events);
}

static int
main_scan(const char *file)
{
    evlog *log = main_open(file);
    evlog_advise_sequential(log);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    size_t n = 0;
    uint64_t checksum = 0;
    while (evlog_iter_next(&it, &ev)) {
        n++;
        checksum += ev.time_ns ^ ev.type;
    }
    printf("%zu events, %zu bytes, checksum %llu\n", n, evlog_size(log),
           (unsigned long long)checksum);
    diag ending;
    evlog_iter_ending(&it, &ending);
    bool changed = main_changed(file, log);
    evlog_close(log);
    return changed ? 1 : main_ending(file, &ending, n);
}

/* A --from/--to bound that names a USER_MARKER: the first one in time order (ties in
 * file order) whose text is `name`. One file-order pass; no sorting needed. */
static bool
main_find_marker(const evlog *log, const char *name, uint64_t *time_ns)
{
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    size_t len = strlen(name);
    bool found = false;
    while (evlog_iter_next(&it, &ev)) {
        if (ev.type != EV_USER_MARKER || !ev.et->known || (found && ev.time_ns >= *time_ns))
            continue;
        evdecoded d;
        decode_event(&ev, &d);
        if (d.n_present >= 1 && d.f[0].len == len && memcmp(d.f[0].p, name, len) == 0) {
            *time_ns = ev.time_ns;
            found = true;
        }
    }
    return found;
}

/* Resolve one bound: a duration, else a marker name; exits 1 when neither. */
static uint64_t
main_bound(const evlog *log, const char *file, const char *opt, const char *arg)
{
    uint64_t ns;
    if (timefmt_parse(arg, &ns) || main_find_marker(log, arg, &ns))
        return ns;
    fprintf(stderr, "elog-tui: %s: %s: no marker named \"%s\" in the log, and not a time"
            " (1.5s, 200ms, 35us, 120ns, 1m30s, or ns, on the log's clock)\n", file, opt, arg);
    exit(1);
}

/* The end of every command that prints a report: write `out` (consumed), close the
 * log, and turn how it went into the exit status — a write error, the file changing
 * under us, or how the data ended. */
static int
main_emit(const char *file, evlog *log, strbuf *out, const diag *ending, size_t n_events)
{
    bool ok = fwrite(out->data, 1, out->len, stdout) == out->len && fflush(stdout) == 0;
    strbuf_free(out);
    bool changed = main_changed(file, log);
    evlog_close(log);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return changed ? 1 : main_ending(file, ending, n_events);
}

static int
main_stats(int argc, char **argv)
{
    const char *file = NULL, *from = NULL, *to = NULL;
    for (int i = 0; i < argc; i++) {
        if ((strcmp(argv[i], "--from") == 0 || strcmp(argv[i], "--to") == 0) && i + 1 < argc) {
            *(argv[i][2] == 'f' ? &from : &to) = argv[i + 1];
            i++;
        } else if (argv[i][0] != '-' && !file) {
            file = argv[i];
        } else {
            fputs(main_usage, stderr);
            return 2;
        }
    }
    if (!file) {
        fputs(main_usage, stderr);
        return 2;
    }
    evlog *log = main_open(file);
    gcstats_window win = { 0, UINT64_MAX };
    if (from)
        win.from_ns = main_bound(log, file, "--from", from);
    if (to)
        win.to_ns = main_bound(log, file, "--to", to);
    if (win.to_ns <= win.from_ns) {
        fprintf(stderr, "elog-tui: %s: --to must be later than --from\n", file);
        evlog_close(log);
        return 1;
    }
    diag ending;
    merge *m = merge_new(log, &ending);
    gcstats *g = gcstats_new(&win);
    evlog_event ev;
    while (merge_next(m, &ev))
        gcstats_add(g, &ev);
    size_t n_events = merge_n_events(m);
    merge_free(m);
    gcstats_report r;
    gcstats_finish(g, ending.code != DIAG_OK, &r);
    gcstats_free(g);
    strbuf out;
    strbuf_init(&out);
    statsfmt_report(&out, &r);
    return main_emit(file, log, &out, &ending, n_events);
}

/* Parse `FILE [options]` for the table commands; false on a usage error. */
static bool
main_table_args(int argc, char **argv, const char *cmd, const char **file, reports_opts *o)
{
    memset(o, 0, sizeof *o);
    *file = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (strcmp(a, "--messages") == 0 && strcmp(cmd, "markers") == 0) {
            o->messages = true;
        } else if (strcmp(a, "--censuses") == 0 && strcmp(cmd, "heap") == 0) {
            o->censuses = true;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc && strcmp(cmd, "gc") == 0 &&
                   (strcmp(argv[i + 1], "pause") == 0 || strcmp(argv[i + 1], "start") == 0)) {
            o->sort_by_pause = strcmp(argv[++i], "pause") == 0;
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc && strcmp(cmd, "threads") == 0 &&
                   (strcmp(argv[i + 1], "runtime") == 0 || strcmp(argv[i + 1], "id") == 0)) {
            o->sort_by_run = strcmp(argv[++i], "runtime") == 0;
        } else if (strcmp(a, "--top") == 0 && i + 1 < argc && strcmp(cmd, "markers") != 0) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || v == 0)
                return false;
            o->limit = (size_t)v;
        } else if (a[0] != '-' && !*file) {
            *file = a;
        } else {
            return false;
        }
    }
    return *file != NULL;
}

static int
main_table(int argc, char **argv, const char *cmd)
{
    const char *file;
    reports_opts o;
    if (!main_table_args(argc, argv, cmd, &file, &o)) {
        fputs(main_usage, stderr);
        return 2;
    }
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    strbuf out;
    strbuf_init(&out);
    if (strcmp(cmd, "gc") == 0)
        reports_gc(&out, ix, &o);
    else if (strcmp(cmd, "markers") == 0)
        reports_markers(&out, ix, &o);
    else if (strcmp(cmd, "heap") == 0)
        reports_heap(&out, ix, &o);
    else
        reports_threads(&out, ix, &o);
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(file, log, &out, &ending, n_events);
}

static int
main_index_cmd(const char *file)
{
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    size_t runs = 0, phases = 0, run_bytes = 0, phase_bytes = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        runs += runlane_count(evindex_cap_at(ix, i)->runs);
        phases += ivtrack_count(evindex_cap_at(ix, i)->gc);
        run_bytes += runlane_bytes(evindex_cap_at(ix, i)->runs);
        phase_bytes += ivtrack_bytes(evindex_cap_at(ix, i)->gc);
    }
    printf("%llu events, %zu bytes; index %zu bytes (%.3f of the file): %zu caps, %zu runs, "
           "%zu GC phases, %zu collections, %zu markers, %zu messages, %zu threads, "
           "%zu stretches\n",
           (unsigned long long)evindex_n_events(ix), evlog_size(log), evindex_bytes(ix),
           evlog_size(log) ? (double)evindex_bytes(ix) / (double)evlog_size(log) : 0.0,
           evindex_n_caps(ix), runs, phases, evindex_n_gcs(ix), evindex_n_markers(ix),
           evindex_n_msgs(ix), threadtab_count(evindex_threads(ix)),
           evseek_n_stretches(evindex_seek(ix)));
    printf("bytes: runs %zu, GC phases %zu, threads %zu, seek table %zu, other %zu\n",
           run_bytes, phase_bytes, threadtab_bytes(evindex_threads(ix)),
           evseek_bytes(evindex_seek(ix)),
           evindex_bytes(ix) - run_bytes - phase_bytes - threadtab_bytes(evindex_threads(ix)) -
               evseek_bytes(evindex_seek(ix)));
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    bool changed = main_changed(file, log);
    evlog_close(log);
    return changed ? 1 : main_ending(file, &ending, n_events);
}

static bool
main_parse_size(const char *arg, int *cols, int *lines)
{
    char *end;
    long w = strtol(arg, &end, 10);
    if (*end != 'x' || w < 1 || w > 4096)
        return false;
    long h = strtol(end + 1, &end, 10);
    if (*end || h < 1 || h > 4096)
        return false;
    *cols = (int)w;
    *lines = (int)h;
    return true;
}

static int
main_snapshot(int argc, char **argv)
{
    const char *file = NULL, *from = NULL, *to = NULL, *keys = NULL;
    int cols = 120, lines = 40;
    bool color = false;
    app_opts ao = { .mouse = false };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_arg = i + 1 < argc;
        if (strcmp(a, "--size") == 0 && has_arg) {
            if (!main_parse_size(argv[++i], &cols, &lines)) {
                fprintf(stderr, "elog-tui: --size wants COLSxLINES, e.g. 120x40\n");
                return 2;
            }
        } else if (strcmp(a, "--from") == 0 && has_arg) {
            from = argv[++i];
        } else if (strcmp(a, "--to") == 0 && has_arg) {
            to = argv[++i];
        } else if (strcmp(a, "--keys") == 0 && has_arg) {
            keys = argv[++i];
        } else if (strcmp(a, "--color") == 0) {
            color = true;
        } else if (strcmp(a, "--ascii") == 0) {
            ao.ascii = true;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            fputs(main_usage, stderr);
            return 2;
        }
    }
    if (!file) {
        fputs(main_usage, stderr);
        return 2;
    }
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ao.mono = !color;
    app *a = app_new(ix, file, cols, lines, &ao);
    app_poll_disk(a);
    if (from || to) {
        /* Times on the log's clock, as `stats --from/--to` and every screen take them. */
        timeview *v = app_view(a);
        uint64_t f = from ? main_bound(log, file, "--from", from) : v->log_start_ns;
        uint64_t t = to ? main_bound(log, file, "--to", to) : v->log_end_ns + 1;
        if (t <= f) {
            fprintf(stderr, "elog-tui: %s: --to must be later than --from\n", file);
            return 1;
        }
        timeview_zoom_to(v, f, t);
        timeview_set_cursor(v, f);
    }
    if (keys) {
        char *copy = strdup(keys);
        char *save = NULL;
        for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
            app_key(a, k);
        free(copy);
    }
    surface *s = surface_new(cols, lines);
    app_draw(a, s);
    strbuf out;
    strbuf_init(&out);
    snapshot_write(&out, s, color);
    surface_free(s);
    app_free(a);
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(file, log, &out, &ending, n_events);
}

static int
main_view(int argc, char **argv)
{
    const char *file = NULL, *backend = "curses";
    app_opts ao = { .mouse = true };
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--backend") == 0 && i + 1 < argc &&
            (strcmp(argv[i + 1], "curses") == 0 || strcmp(argv[i + 1], "tickit") == 0)) {
            backend = argv[++i];
        } else if (strcmp(a, "--ascii") == 0) {
            ao.ascii = true;
        } else if (strcmp(a, "--mono") == 0) {
            ao.force_mono = true;
        } else if (strcmp(a, "--no-mouse") == 0) {
            ao.mouse = false;
        } else if (a[0] != '-' && !file) {
            file = a;
        } else {
            fputs(main_usage, stderr);
            return 2;
        }
    }
    if (!file) {
        fputs(main_usage, stderr);
        return 2;
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "elog-tui: %s: the viewer needs a terminal; `elog-tui show %s` lists "
                "the events and `elog-tui snapshot %s` draws the screen as text\n",
                file, file, file);
        return 1;
    }
    char err[1024] = "";
    int status = app_run(file, backend, &ao, err, sizeof err);
    if (err[0])
        fprintf(stderr, "elog-tui: %s\n", err);
    return status;
}

int
main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(main_usage, stdout);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "show") == 0)
        return main_show(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "stats") == 0)
        return main_stats(argc - 2, argv + 2);
    if (argc >= 2 && (strcmp(argv[1], "gc") == 0 || strcmp(argv[1], "markers") == 0 ||
                      strcmp(argv[1], "threads") == 0 || strcmp(argv[1], "heap") == 0))
        return main_table(argc - 2, argv + 2, argv[1]);
    if (argc == 3 && strcmp(argv[1], "index") == 0)
        return main_index_cmd(argv[2]);
    if (argc == 3 && strcmp(argv[1], "scan") == 0)
        return main_scan(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "snapshot") == 0)
        return main_snapshot(argc - 2, argv + 2);
    if (argc >= 2 && (argv[1][0] != '-' || strcmp(argv[1], "--backend") == 0 ||
                      strcmp(argv[1], "--ascii") == 0 || strcmp(argv[1], "--mono") == 0 ||
                      strcmp(argv[1], "--no-mouse") == 0)) {
        setlocale(LC_ALL, "");
        return main_view(argc - 1, argv + 1);
    }
    fputs(main_usage, stderr);
    return 2;
}
