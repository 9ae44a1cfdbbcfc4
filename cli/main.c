/* elog-tui command line: parses arguments, runs a subcommand, and is the only
 * place that reports errors to the user and chooses the exit status. */
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
#include "xalloc.h"

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

/* --- Out of memory ---------------------------------------------------------------------
 * xalloc calls main_on_oom when an allocation fails, on whatever thread it happens. It
 * exits 1; the exit handlers then give a claimed terminal back (termio's atexit hook,
 * registered later, so run first) and only then main_oom_report, registered first,
 * writes the one line, so it lands on the shell's screen rather than the viewer's. */
static const char *main_oom_file;           /* the command's FILE, once known */
static _Atomic size_t main_oom_bytes;       /* the failed request; 0 while none failed */
static atomic_flag main_oom_once = ATOMIC_FLAG_INIT;
static _Thread_local bool main_oom_exiting;  /* this thread is the one calling exit */

static void
main_oom_report(void)
{
    size_t n = atomic_load(&main_oom_bytes);
    if (!n)
        return;
    if (main_oom_file)
        fprintf(stderr, "elog-tui: %s: out of memory (needed %zu bytes)\n", main_oom_file, n);
    else
        fprintf(stderr, "elog-tui: out of memory (needed %zu bytes)\n", n);
}

static void
main_on_oom(size_t n)
{
    if (atomic_flag_test_and_set(&main_oom_once)) {
        /* An exit handler failed to allocate too: end now. Another thread: the first one
         * is already ending the process; wait for it. */
        if (main_oom_exiting)
            _exit(1);
        for (;;)
            pause();
    }
    main_oom_exiting = true;
    atomic_store(&main_oom_bytes, n ? n : 1);
    exit(1);
}

/* A usage error: the reason, then the usage; exit status 2. */
static int
main_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("elog-tui: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    fputs(main_usage, stderr);
    return 2;
}

/* --- FIFOs --------------------------------------------------------------------------- */

static volatile sig_atomic_t main_fifo_signal;

static void
main_on_fifo_signal(int sig)
{
    main_fifo_signal = sig;
}

/* A FIFO cannot be mapped (evlog_open says so without blocking). Opening one for
 * reading waits for a writer, so say that first and stay interruptible: SIGINT, SIGTERM
 * or SIGHUP end the wait with 128 + the signal. Once a writer has come, say why we
 * cannot go on: exit 1. Returns only if `file` is not a FIFO. */
static void
main_fifo_check(const char *file)
{
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISFIFO(st.st_mode))
        return;
    fprintf(stderr, "elog-tui: %s: waiting for a writer (a FIFO)\n", file);
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    struct sigaction sa, old[3];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = main_on_fifo_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;    /* no SA_RESTART: the blocking open must return EINTR */
    for (size_t i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);
    int fd;
    do
        fd = open(file, O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR && !main_fifo_signal);
    if (main_fifo_signal)
        exit(128 + main_fifo_signal);
    for (size_t i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    if (fd >= 0)
        close(fd);
    fprintf(stderr, "elog-tui: %s: a FIFO cannot be mapped; streams are not supported yet\n",
            file);
    exit(1);
}

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
    main_oom_file = file;
    main_fifo_check(file);
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
 * from the lost bytes on is not the file's; likewise if it was rewritten in place
 * (evlog_rewritten): what was printed may mix old and new bytes. Returns whether it
 * did; call before evlog_close. */
static bool
main_changed(const char *file, const evlog *log)
{
    uint64_t off;
    if (evlog_changed(log, &off)) {
        fprintf(stderr, "elog-tui: warning: %s changed while being read (data from byte %llu "
                "is gone)\n", file, (unsigned long long)off);
        return true;
    }
    if (evlog_rewritten(log)) {
        fprintf(stderr, "elog-tui: warning: %s changed while being read (rewritten in place: "
                "what was read may mix old and new data)\n", file);
        return true;
    }
    return false;
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
    bool ok = fwrite(out->data, 1, out->len, stdout) == out->len && fflush(stdout) == 0 &&
              !ferror(stdout);
    strbuf_free(out);
    bool changed = main_changed(file, log);
    evlog_close(log);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return changed ? 1 : main_ending(file, ending, n_events);
}

/* --to must come after --from: else one line and false (the caller exits 1). */
static bool
main_window_ok(const char *file, const char *from, uint64_t from_ns, const char *to,
               uint64_t to_ns)
{
    if (from && to && to_ns <= from_ns) {
        fprintf(stderr, "elog-tui: %s: --to %s must be later than --from %s\n", file, to, from);
        return false;
    }
    return true;
}

/* A window that misses every event of the log (first_ns .. last_ns) still has its
 * report — nothing happened in it, which is an answer, and scripts comparing windows
 * get one — but it is most likely a mistake (a time counted from the first event, a
 * unit left out), so one warning line names the bound and the end of the log it
 * misses. The exit status stays 0. */
static void
main_window_warn(const char *file, const char *from, uint64_t from_ns, const char *to,
                 uint64_t to_ns, bool any_events, uint64_t first_ns, uint64_t last_ns)
{
    if (!any_events)
        return;
    strbuf t;
    strbuf_init(&t);
    if (from && from_ns > last_ns) {
        timefmt_append_res(&t, last_ns, 1);
        fprintf(stderr, "elog-tui: warning: %s: --from %s is after the log's last event (%s)"
                "\n", file, from, t.data);
    } else if (to && to_ns <= first_ns) {
        timefmt_append_res(&t, first_ns, 1);
        fprintf(stderr, "elog-tui: warning: %s: --to %s is not after the log's first event "
                "(%s)\n", file, to, t.data);
    }
    strbuf_free(&t);
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
            return main_usage_error("stats: unexpected argument \"%s\"", argv[i]);
        }
    }
    if (!file)
        return main_usage_error("stats needs a FILE");
    evlog *log = main_open(file);
    gcstats_window win = { 0, UINT64_MAX };
    if (from)
        win.from_ns = main_bound(log, file, "--from", from);
    if (to)
        win.to_ns = main_bound(log, file, "--to", to);
    if (!main_window_ok(file, from, win.from_ns, to, win.to_ns)) {
        evlog_close(log);
        return 1;
    }
    diag ending;
    merge *m = merge_new(log, &ending);
    gcstats *g = gcstats_new(&win);
    evlog_event ev;
    uint64_t first_ns = 0, last_ns = 0;
    bool any = false;
    while (merge_next(m, &ev)) {
        if (!any)
            first_ns = ev.time_ns;
        any = true;
        last_ns = ev.time_ns;       /* time order: the last is the latest */
        gcstats_add(g, &ev);
    }
    size_t n_events = merge_n_events(m);
    merge_free(m);
    gcstats_report r;
    gcstats_finish(g, ending.code != DIAG_OK, &r);
    gcstats_free(g);
    main_window_warn(file, from, win.from_ns, to, win.to_ns, any, first_ns, last_ns);
    strbuf out;
    strbuf_init(&out);
    statsfmt_report(&out, &r);
    return main_emit(file, log, &out, &ending, n_events);
}

/* A count option's value: digits only, at least 1, fitting a size_t. */
static bool
main_parse_count(const char *arg, size_t *out)
{
    if (arg[0] < '0' || arg[0] > '9')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*end || errno == ERANGE || v == 0 || v > SIZE_MAX)
        return false;
    *out = (size_t)v;
    return true;
}

/* Parse `FILE [options]` for the table commands: 0, or the exit status of a usage
 * error already reported. */
static int
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
            if (!main_parse_count(argv[++i], &o->limit)) {
                fprintf(stderr, "elog-tui: --top wants a whole number from 1 to %zu, not "
                        "\"%s\"\n", (size_t)SIZE_MAX, argv[i]);
                return 2;
            }
        } else if (a[0] != '-' && !*file) {
            *file = a;
        } else {
            return main_usage_error("%s: unexpected argument \"%s\"", cmd, a);
        }
    }
    return *file ? 0 : main_usage_error("%s needs a FILE", cmd);
}

/* reports_opts.flush: write what the table has so far to stdout (errors show at the
 * final write in main_emit, as stdout's error flag stays set). */
static void
main_flush_table(void *ctx, strbuf *out)
{
    (void)ctx;
    if (fwrite(out->data, 1, out->len, stdout) == out->len)
        strbuf_reset(out);
}

static int
main_table(int argc, char **argv, const char *cmd)
{
    const char *file;
    reports_opts o;
    int usage = main_table_args(argc, argv, cmd, &file, &o);
    if (usage)
        return usage;
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    strbuf out;
    strbuf_init(&out);
    o.flush = main_flush_table;
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
            return main_usage_error("snapshot: unexpected argument \"%s\"", a);
        }
    }
    if (!file)
        return main_usage_error("snapshot needs a FILE");
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
        if (!main_window_ok(file, from, f, to, t)) {
            app_free(a);
            evindex_free(ix);
            evlog_close(log);
            return 1;
        }
        main_window_warn(file, from, f, to, t, evindex_n_events(ix) > 0,
                         evindex_first_ns(ix), evindex_last_ns(ix));
        timeview_zoom_to(v, f, t);
        timeview_set_cursor(v, f);
    }
    if (keys) {
        char *copy = xstrdup(keys);     /* freed below */
        char *save = NULL;
        for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
            app_key(a, k);
        x_free(copy);
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

/* Descriptors the viewer needs beyond stdin, stdout and stderr: the log's and the
 * terminal libraries' (the terminal database). Measured: the curses backend starts
 * with `ulimit -n 6` and fails with 5. */
#define MAIN_VIEW_FDS 3

/* With too few descriptors left the terminal libraries fail in ways they report as
 * an unusable terminal; find it out first and say what really failed. */
static bool
main_spare_fds(const char *file)
{
    int fds[MAIN_VIEW_FDS];
    int n = 0, err = 0;
    while (n < MAIN_VIEW_FDS) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            err = errno;
            break;
        }
        fds[n++] = fd;
    }
    while (n > 0)
        close(fds[--n]);
    if (err == EMFILE || err == ENFILE) {
        fprintf(stderr, "elog-tui: %s: cannot start the viewer: %s (it needs %d "
                "free file descriptors; see ulimit -n)\n", file, strerror(err), MAIN_VIEW_FDS);
        return false;
    }
    return true;
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
            return main_usage_error("unexpected argument \"%s\"", a);
        }
    }
    if (!file)
        return main_usage_error("the viewer needs a FILE");
    main_oom_file = file;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "elog-tui: %s: the viewer needs a terminal; `elog-tui show %s` lists "
                "the events and `elog-tui snapshot %s` draws the screen as text\n",
                file, file, file);
        return 1;
    }
    main_fifo_check(file);
    if (!main_spare_fds(file))
        return 1;
    char err[1024] = "";
    int status = app_run(file, backend, &ao, err, sizeof err);
    if (err[0])
        fprintf(stderr, "elog-tui: %s\n", err);
    return status;
}

/* The subcommands; anything else names a FILE for the viewer. */
typedef struct main_command {
    const char *name;
    int (*run)(int argc, char **argv, const char *name);
} main_command;

static int
main_one_file(int argc, char **argv, const char *name, int (*run)(const char *file))
{
    if (argc == 0)
        return main_usage_error("%s needs a FILE", name);
    if (argc > 1)
        return main_usage_error("%s: unexpected argument \"%s\"", name, argv[1]);
    if (argv[0][0] == '-')
        return main_usage_error("%s: unexpected argument \"%s\"", name, argv[0]);
    return run(argv[0]);
}

static int
main_cmd_show(int argc, char **argv, const char *name)
{
    return main_one_file(argc, argv, name, main_show);
}

static int
main_cmd_index(int argc, char **argv, const char *name)
{
    return main_one_file(argc, argv, name, main_index_cmd);
}

static int
main_cmd_scan(int argc, char **argv, const char *name)
{
    return main_one_file(argc, argv, name, main_scan);
}

static int
main_cmd_stats(int argc, char **argv, const char *name)
{
    (void)name;
    return main_stats(argc, argv);
}

static int
main_cmd_snapshot(int argc, char **argv, const char *name)
{
    (void)name;
    return main_snapshot(argc, argv);
}

static const main_command main_commands[] = {
    { "show", main_cmd_show },         { "stats", main_cmd_stats },
    { "gc", main_table },              { "markers", main_table },
    { "threads", main_table },         { "heap", main_table },
    { "index", main_cmd_index },       { "scan", main_cmd_scan },
    { "snapshot", main_cmd_snapshot },
};

int
main(int argc, char **argv)
{
    /* Registered before anything can claim the terminal: runs after its restore. */
    atexit(main_oom_report);
    xalloc_set_fail(main_on_oom);
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(main_usage, stdout);
        return 0;
    }
    for (size_t i = 0; argc >= 2 && i < sizeof main_commands / sizeof main_commands[0]; i++)
        if (strcmp(argv[1], main_commands[i].name) == 0)
            return main_commands[i].run(argc - 2, argv + 2, argv[1]);
    if (argc >= 2 && (argv[1][0] != '-' || strcmp(argv[1], "--backend") == 0 ||
                      strcmp(argv[1], "--ascii") == 0 || strcmp(argv[1], "--mono") == 0 ||
                      strcmp(argv[1], "--no-mouse") == 0)) {
        setlocale(LC_ALL, "");
        return main_view(argc - 1, argv + 1);
    }
    if (argc < 2)
        return main_usage_error("no command and no FILE");
    return main_usage_error("unknown option \"%s\"", argv[1]);
}
