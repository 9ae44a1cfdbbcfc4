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
#include "export.h"
#include "gcstats.h"
#include "gcreport.h"
#include "keymap.h"
#include "live.h"
#include "livelog.h"
#include "livesrc.h"
#include "merge.h"
#include "mmu.h"
#include "mmusrc.h"
#include "pausehist.h"
#include "perfetto.h"
#include "reports.h"
#include "rundiff.h"
#include "settings.h"
#include "show.h"
#include "snapshot.h"
#include "statsfmt.h"
#include "strbuf.h"
#include "timefmt.h"
#include "version.h"
#include "xalloc.h"

static const char main_usage[] =
    "usage: elog-tui show FILE        print every event like `ghc-events show`\n"
    "       elog-tui stats FILE [--from T] [--to T] [--histogram]\n"
    "                                 the +RTS -s report rebuilt from the log, pause\n"
    "                                 percentiles and the longest pauses; T is 1.5s, 200ms,\n"
    "                                 35us, 1m30s, a number of ns, or a marker's text\n"
    "       elog-tui gc FILE [--sort pause] [--top N] [--json] [--histogram]\n"
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
    "       elog-tui mmu FILE [--from T] [--to T] [--cap N] [--with-stop] [--json]\n"
    "                                 minimum mutator utilisation: for window lengths from\n"
    "                                 the shortest pause to the whole range (1, 2, 5 per\n"
    "                                 decade), the lowest share of any window the mutator ran\n"
    "       elog-tui worst FILE [--window 10ms] [--top N] [--from T] [--to T] [--cap N]\n"
    "                         [--with-stop] [--json]\n"
    "                                 the N disjoint windows with the lowest mutator\n"
    "                                 utilisation, with the collections in each\n"
    "       elog-tui diff A B         two runs side by side: the +RTS -s rows with the change,\n"
    "                                 pause percentiles and histograms, durations between\n"
    "                                 same-named markers, MMU at a few window lengths\n"
    "       elog-tui ticky FILE [--sort allocs|entries] [--samples] [--top N] [--json]\n"
    "                                 ticky-ticky counters (-ticky, +RTS -lT): name, arity,\n"
    "                                 kinds, info table, entries and allocations in total, or\n"
    "                                 with --samples per sample\n"
    "       elog-tui prof FILE [--from T] [--to T] [--cap N] [--top N] [--json]\n"
    "                                 the time profile (-prof, +RTS -p -l): each cost centre\n"
    "                                 with the samples it was innermost in (individual) and\n"
    "                                 on the stack of (inherited), as percent and time\n"
    "       elog-tui index FILE       build the timeline index and print its size (benchmark)\n"
    "       elog-tui scan FILE        walk every event once and count them (benchmark floor)\n"
    "       elog-tui FILE [--backend curses|tickit] [--ascii] [--mono] [--no-mouse]\n"
    "                         [--alert-pause T]\n"
    "                                 the interactive timeline viewer (? lists the keys)\n"
    "       elog-tui A.eventlog B.eventlog [--align NAME]\n"
    "                                 both timelines stacked on one zoom and pan, aligned at\n"
    "                                 their first events or at the marker NAME\n"
    "       elog-tui snapshot FILE [FILE2 [--align NAME]] [--size WxH] [--from T] [--to T]\n"
    "                         [--keys 'K ...']\n"
    "                         [--color] [--ascii]\n"
    "                                 draw the viewer's screen once to stdout (after the\n"
    "                                 given key presses, e.g. --keys ']  ]  z')\n"
    "       elog-tui export [--format chrome|perfetto] FILE... [--from T] [--to T]\n"
    "                                 the timeline as a trace on stdout: Trace Event Format\n"
    "                                 JSON (chrome, for Perfetto and chrome://tracing) or\n"
    "                                 Perfetto's protobuf (perfetto)\n"
    "       elog-tui --version        print the version\n"
    "       elog-tui --print-config   print the default settings in the settings file's\n"
    "                                 format ($XDG_CONFIG_HOME/elog-tui/config)\n"
    "       elog-tui --help\n"
    "FILE may also be a live source, for every command and the viewer: - (standard input),\n"
    "a FIFO, unix:PATH or tcp:HOST:PORT (an eventlog socket; --wait keeps trying until the\n"
    "program is up), or --follow FILE (a log still being written). show, gc and markers\n"
    "print each row as soon as it can be placed in time order; the others report when the\n"
    "stream ends, or on Ctrl-C for what was read. The viewer follows it live (F follows\n"
    "again after looking back); --alert-pause T flashes GC pauses of T or longer.\n"
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

/* --follow and --wait, taken out of the arguments before any command sees them; set
 * once in main, read-only after. */
static livesrc_opts main_live;

/* An operand: a FILE, or "-" for standard input. */
static bool
main_operand(const char *a)
{
    return a[0] != '-' || strcmp(a, "-") == 0;
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
    if (livesrc_is_live(file, main_live.follow))
        return live_collect(file, &main_live);
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
    if (livesrc_is_live(file, main_live.follow)) {
        main_oom_file = file;
        return live_show(file, &main_live);
    }
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

/* stats --histogram: the pause histogram of the collections starting in the window, as
 * the Gen rows count them, from the index (the same pauses: docs/stats-semantics.md §1). */
static void
main_stats_histogram(strbuf *out, const evlog *log, const gcstats_window *win)
{
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    pausehist h;
    pausehist_from_index(&h, ix, win->from_ns, win->to_ns);
    evindex_free(ix);
    strbuf_puts(out, "\nelog-tui: pause histogram (elapsed; buckets [lo, hi) in powers of two "
                     "from 1us: count, bar, time in the bucket)\n");
    pausehist_text(out, &h, 24, 2);
}

static int
main_stats(int argc, char **argv)
{
    const char *file = NULL, *from = NULL, *to = NULL;
    bool histogram = false;
    for (int i = 0; i < argc; i++) {
        if ((strcmp(argv[i], "--from") == 0 || strcmp(argv[i], "--to") == 0) && i + 1 < argc) {
            *(argv[i][2] == 'f' ? &from : &to) = argv[i + 1];
            i++;
        } else if (strcmp(argv[i], "--histogram") == 0) {
            histogram = true;
        } else if (main_operand(argv[i]) && !file) {
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
    if (histogram && r.has_gc_events)
        main_stats_histogram(&out, log, &win);
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
        } else if (strcmp(a, "--sort") == 0 && i + 1 < argc && strcmp(cmd, "ticky") == 0 &&
                   (strcmp(argv[i + 1], "allocs") == 0 || strcmp(argv[i + 1], "entries") == 0)) {
            o->sort_by_allocs = strcmp(argv[++i], "allocs") == 0;
        } else if (strcmp(a, "--samples") == 0 && strcmp(cmd, "ticky") == 0) {
            o->samples = true;
        } else if (strcmp(a, "--top") == 0 && i + 1 < argc && strcmp(cmd, "markers") != 0) {
            if (!main_parse_count(argv[++i], &o->limit)) {
                fprintf(stderr, "elog-tui: --top wants a whole number from 1 to %zu, not "
                        "\"%s\"\n", (size_t)SIZE_MAX, argv[i]);
                return 2;
            }
        } else if (main_operand(a) && !*file) {
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
    /* gc --histogram: the pause histogram instead of the rows. */
    bool histogram = false;
    char **args = xmalloc(((size_t)argc + 1) * sizeof *args);   /* freed below */
    int n_args = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(cmd, "gc") == 0 && strcmp(argv[i], "--histogram") == 0)
            histogram = true;
        else
            args[n_args++] = argv[i];
    }
    int usage = main_table_args(n_args, args, cmd, &file, &o);
    x_free(args);
    if (usage)
        return usage;
    if ((strcmp(cmd, "gc") == 0 || strcmp(cmd, "markers") == 0) && !o.json &&
        !o.sort_by_pause && !o.limit && livesrc_is_live(file, main_live.follow)) {
        main_oom_file = file;
        return live_table(file, &main_live, cmd, &o);
    }
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    strbuf out;
    strbuf_init(&out);
    o.flush = main_flush_table;
    pausehist h;
    if (histogram)
        pausehist_from_index(&h, ix, 0, UINT64_MAX);
    if (histogram && o.json)
        pausehist_json(&out, &h);
    else if (histogram)
        pausehist_tsv(&out, &h);
    else if (strcmp(cmd, "gc") == 0)
        reports_gc(&out, ix, &o);
    else if (strcmp(cmd, "markers") == 0)
        reports_markers(&out, ix, &o);
    else if (strcmp(cmd, "heap") == 0)
        reports_heap(&out, ix, &o);
    else if (strcmp(cmd, "ticky") == 0)
        reports_ticky(&out, ix, &o);
    else
        reports_threads(&out, ix, &o);
    /* An empty table is right for scripts; a person is told why it is empty. */
    if (!histogram && strcmp(cmd, "heap") == 0 &&
        heapprof_n_censuses(evindex_heap_profile(ix)) == 0)
        fprintf(stderr, "elog-tui: %s: no heap profile in the log (run the program with "
                "+RTS -l and a heap profiling flag: -hT, or -hc/-hy/-hi with profiling)\n",
                file);
    if (strcmp(cmd, "ticky") == 0 && ticky_n_counters(evindex_ticky(ix)) == 0 &&
        ticky_n_samples(evindex_ticky(ix)) == 0)
        fprintf(stderr, "elog-tui: %s: no ticky-ticky counters in the log (build with -ticky, "
                "run with +RTS -lT)\n", file);
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(file, log, &out, &ending, n_events);
}

/* --- GC analysis: mmu, worst ----------------------------------------------------------- */

typedef struct main_gc_args {
    const char *file, *from, *to;
    mmusrc_opts src;
    bool json;
    uint64_t window_ns;         /* worst */
    size_t top;                 /* worst */
} main_gc_args;

/* Parse `FILE [--from T] [--to T] [--cap N] [--with-stop] [--json]` and, for worst,
 * `--window W --top N`: 0, or the exit status of a usage error already reported. */

/* A --cap value: a capability number below EVINDEX_NO_CAP; false, having said why on
 * stderr, if it is not one. */
static bool
cli_cap_arg(const char *v, unsigned long *out)
{
    char *end;
    unsigned long c = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end || c >= EVINDEX_NO_CAP) {
        fprintf(stderr, "elog-tui: --cap wants a capability number, not \"%s\"\n", v);
        return false;
    }
    *out = c;
    return true;
}
static int
main_gc_parse(int argc, char **argv, const char *cmd, main_gc_args *ga)
{
    bool worst = strcmp(cmd, "worst") == 0;
    memset(ga, 0, sizeof *ga);
    ga->window_ns = 10000000;
    ga->top = 5;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_arg = i + 1 < argc;
        if ((strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) && has_arg) {
            *(a[2] == 'f' ? &ga->from : &ga->to) = argv[++i];
        } else if (strcmp(a, "--cap") == 0 && has_arg) {
            unsigned long c;
            if (!cli_cap_arg(argv[++i], &c))
                return 2;
            ga->src.per_cap = true;
            ga->src.cap = (uint16_t)c;
        } else if (strcmp(a, "--with-stop") == 0) {
            ga->src.with_stop = true;
        } else if (strcmp(a, "--json") == 0) {
            ga->json = true;
        } else if (worst && strcmp(a, "--window") == 0 && has_arg) {
            if (!timefmt_parse(argv[++i], &ga->window_ns) || ga->window_ns == 0) {
                fprintf(stderr, "elog-tui: --window wants a duration (10ms, 500us, 1s), not "
                        "\"%s\"\n", argv[i]);
                return 2;
            }
        } else if (worst && strcmp(a, "--top") == 0 && has_arg) {
            if (!main_parse_count(argv[++i], &ga->top) || ga->top > 100000) {
                fprintf(stderr, "elog-tui: --top wants a whole number from 1 to 100000, not "
                        "\"%s\"\n", argv[i]);
                return 2;
            }
        } else if (a[0] != '-' && !ga->file) {
            ga->file = a;
        } else {
            return main_usage_error("%s: unexpected argument \"%s\"", cmd, a);
        }
    }
    return ga->file ? 0 : main_usage_error("%s needs a FILE", cmd);
}

static int
main_gc_cmd(int argc, char **argv, const char *cmd)
{
    main_gc_args ga;
    int usage = main_gc_parse(argc, argv, cmd, &ga);
    if (usage)
        return usage;
    evlog *log = main_open(ga.file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    /* The range: the log's first .. last event, narrowed by --from/--to. */
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    uint64_t from = ga.from ? main_bound(log, ga.file, "--from", ga.from) : first;
    uint64_t to = ga.to ? main_bound(log, ga.file, "--to", ga.to) : last;
    int status = 0;
    if (!main_window_ok(ga.file, ga.from, from, ga.to, to)) {
        status = 1;
    } else if (ga.src.per_cap && evindex_lane_of(ix, ga.src.cap) == SIZE_MAX) {
        fprintf(stderr, "elog-tui: %s: --cap %u: the log has no capability %u\n", ga.file,
                (unsigned)ga.src.cap, (unsigned)ga.src.cap);
        status = 1;
    }
    if (status) {
        evindex_free(ix);
        evlog_close(log);
        return status;
    }
    main_window_warn(ga.file, ga.from, from, ga.to, to, evindex_n_events(ix) > 0, first, last);
    if (from < first)
        from = first;
    if (to > last)
        to = last;
    mmu *m = mmusrc_new(ix, &ga.src, from, to);
    strbuf out;
    strbuf_init(&out);
    if (strcmp(cmd, "mmu") == 0)
        gcreport_mmu(&out, m, &ga.src, ga.json);
    else
        gcreport_worst(&out, ix, m, &ga.src, ga.window_ns, ga.top, ga.json);
    mmu_free(m);
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(ga.file, log, &out, &ending, n_events);
}

/* --- prof: the flat time profile (+RTS -p -l) ------------------------------------------- */

static int
main_prof(int argc, char **argv, const char *cmd)
{
    const char *file = NULL, *from = NULL, *to = NULL;
    reports_opts o;
    memset(&o, 0, sizeof o);
    uint32_t cap = TIMEPROF_ANY_CAP;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_arg = i + 1 < argc;
        if ((strcmp(a, "--from") == 0 || strcmp(a, "--to") == 0) && has_arg) {
            *(a[2] == 'f' ? &from : &to) = argv[++i];
        } else if (strcmp(a, "--cap") == 0 && has_arg) {
            unsigned long c;
            if (!cli_cap_arg(argv[++i], &c))
                return 2;
            cap = (uint32_t)c;
        } else if (strcmp(a, "--json") == 0) {
            o.json = true;
        } else if (strcmp(a, "--top") == 0 && has_arg) {
            if (!main_parse_count(argv[++i], &o.limit)) {
                fprintf(stderr, "elog-tui: --top wants a whole number from 1 to %zu, not "
                        "\"%s\"\n", (size_t)SIZE_MAX, argv[i]);
                return 2;
            }
        } else if (main_operand(a) && !file) {
            file = a;
        } else {
            return main_usage_error("%s: unexpected argument \"%s\"", cmd, a);
        }
    }
    if (!file)
        return main_usage_error("%s needs a FILE", cmd);
    evlog *log = main_open(file);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    uint64_t from_ns = from ? main_bound(log, file, "--from", from) : first;
    uint64_t to_ns = to ? main_bound(log, file, "--to", to) : last;
    int status = 0;
    if (!main_window_ok(file, from, from_ns, to, to_ns)) {
        status = 1;
    } else if (cap != TIMEPROF_ANY_CAP && evindex_lane_of(ix, (uint16_t)cap) == SIZE_MAX) {
        /* A log of profile samples only has no capability events: its samples say. */
        if (!timeprof_has_cap(evindex_timeprof(ix), cap)) {
            fprintf(stderr, "elog-tui: %s: --cap %u: the log has no capability %u\n", file,
                    (unsigned)cap, (unsigned)cap);
            status = 1;
        }
    }
    if (status) {
        evindex_free(ix);
        evlog_close(log);
        return status;
    }
    main_window_warn(file, from, from_ns, to, to_ns, evindex_n_events(ix) > 0, first, last);
    strbuf out;
    strbuf_init(&out);
    reports_prof(&out, ix, &o, from_ns, to_ns, cap);
    if (timeprof_n_samples(evindex_timeprof(ix)) == 0)
        fprintf(stderr, "elog-tui: %s: no time-profile samples in the log (build with "
                "-prof, run with +RTS -p -l)\n", file);
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(file, log, &out, &ending, n_events);
}

/* One side of `diff`: the whole run's statistics and the index; the log stays open. */
typedef struct main_diff_side {
    evlog *log;
    evindex *ix;
    gcstats_report r;
    diag ending;
} main_diff_side;

static void
main_diff_load(const char *file, main_diff_side *d)
{
    d->log = main_open(file);
    merge *m = merge_new(d->log, &d->ending);
    gcstats *g = gcstats_new(NULL);
    evlog_event ev;
    while (merge_next(m, &ev))
        gcstats_add(g, &ev);
    merge_free(m);
    gcstats_finish(g, d->ending.code != DIAG_OK, &d->r);
    gcstats_free(g);
    diag ending;
    d->ix = evindex_build(d->log, NULL, &ending);
}

static int
main_diff(int argc, char **argv, const char *cmd)
{
    const char *files[2] = { NULL, NULL };
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-' || n == 2)
            return main_usage_error("%s: unexpected argument \"%s\"", cmd, argv[i]);
        files[n++] = argv[i];
    }
    if (n < 2)
        return main_usage_error("diff needs two FILEs");
    main_diff_side d[2];
    for (int i = 0; i < 2; i++)
        main_diff_load(files[i], &d[i]);
    rundiff_side sa = { files[0], &d[0].r, d[0].ix }, sb = { files[1], &d[1].r, d[1].ix };
    strbuf out;
    strbuf_init(&out);
    rundiff_report(&out, &sa, &sb);
    size_t n0 = evindex_n_events(d[0].ix), n1 = evindex_n_events(d[1].ix);
    evindex_free(d[0].ix);
    evindex_free(d[1].ix);
    /* The first log's end is reported after the output, the second's here. */
    bool changed = main_changed(files[1], d[1].log);
    evlog_close(d[1].log);
    int st1 = changed ? 1 : main_ending(files[1], &d[1].ending, n1);
    int st0 = main_emit(files[0], d[0].log, &out, &d[0].ending, n0);
    return st0 ? st0 : st1;
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
    printf("bytes: runs %zu, GC phases %zu, collections %zu, threads %zu, seek table %zu, "
           "other %zu\n", run_bytes, phase_bytes, evindex_gc_bytes(ix),
           threadtab_bytes(evindex_threads(ix)), evseek_bytes(evindex_seek(ix)),
           evindex_bytes(ix) - run_bytes - phase_bytes - evindex_gc_bytes(ix) -
               threadtab_bytes(evindex_threads(ix)) - evseek_bytes(evindex_seek(ix)));
    const timeprof *tp = evindex_timeprof(ix);
    if (timeprof_n_samples(tp))
        printf("time profile: %zu samples, %zu bytes (%.3f of the file)\n",
               timeprof_n_samples(tp), timeprof_bytes(tp),
               evlog_size(log) ? (double)timeprof_bytes(tp) / (double)evlog_size(log) : 0.0);
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
    const char *file2 = NULL, *align = NULL;   /* the two-log view */
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
        } else if (strcmp(a, "--align") == 0 && has_arg) {
            align = argv[++i];
        } else if (main_operand(a) && !file) {
            file = a;
        } else if (a[0] != '-' && !file2) {
            file2 = a;
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
    evlog *log2 = NULL;
    evindex *ix2 = NULL;
    if (align && !file2) {
        app_free(a);
        evindex_free(ix);
        evlog_close(log);
        return main_usage_error("snapshot: --align needs two FILEs");
    }
    if (file2) {
        log2 = main_open(file2);
        diag ending2;
        ix2 = evindex_build(log2, NULL, &ending2);
        char why[256];
        if (!app_set_second(a, ix2, file2, align, why, sizeof why)) {
            fprintf(stderr, "elog-tui: %s\n", why);
            app_free(a);
            evindex_free(ix2);
            evlog_close(log2);
            evindex_free(ix);
            evlog_close(log);
            return 1;
        }
        main_oom_file = file;
    }
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
    if (ix2) {
        evindex_free(ix2);
        evlog_close(log2);
    }
    size_t n_events = evindex_n_events(ix);
    evindex_free(ix);
    return main_emit(file, log, &out, &ending, n_events);
}

/* `export`: every FILE (one process each, in order) into one trace on stdout. Options
 * apply to every file; --from/--to marker names are looked up in each. */
static int
main_export(int argc, char **argv, const char *name)
{
    (void)name;
    const char *from = NULL, *to = NULL, *format = "chrome";
    const char **files = xcalloc((size_t)argc + 1, sizeof *files);    /* freed below */
    size_t n_files = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        bool has_arg = i + 1 < argc;
        if (strcmp(a, "--format") == 0 && has_arg) {
            format = argv[++i];
        } else if (strcmp(a, "--from") == 0 && has_arg) {
            from = argv[++i];
        } else if (strcmp(a, "--to") == 0 && has_arg) {
            to = argv[++i];
        } else if (a[0] != '-') {
            files[n_files++] = a;
        } else {
            x_free(files);
            return main_usage_error("export: unexpected argument \"%s\"", a);
        }
    }
    bool pb = strcmp(format, "perfetto") == 0;
    if (!pb && strcmp(format, "chrome") != 0) {
        x_free(files);
        return main_usage_error("export: unknown --format \"%s\" (chrome or perfetto)", format);
    }
    if (n_files == 0) {
        x_free(files);
        return main_usage_error("export needs a FILE");
    }
    if (pb && isatty(STDOUT_FILENO)) {
        x_free(files);
        fprintf(stderr, "elog-tui: export --format perfetto writes a binary trace: redirect it "
                "to a file (> trace.pftrace)\n");
        return 1;
    }
    int status = 0;
    export_chrome *w = pb ? NULL : export_chrome_new(stdout);
    perfetto *pw = pb ? perfetto_new(stdout) : NULL;
    for (size_t k = 0; k < n_files; k++) {
        const char *file = files[k];
        evlog *log = main_open(file);
        export_opts eo = { .from_ns = 0, .to_ns = UINT64_MAX, .pid = (unsigned)k + 1,
                           .name = file };
        if (from)
            eo.from_ns = main_bound(log, file, "--from", from);
        if (to)
            eo.to_ns = main_bound(log, file, "--to", to);
        if (!main_window_ok(file, from, eo.from_ns, to, eo.to_ns)) {
            evlog_close(log);
            status = 1;
            continue;
        }
        diag ending;
        evindex *ix = evindex_build(log, NULL, &ending);
        main_window_warn(file, from, eo.from_ns, to, eo.to_ns, evindex_n_events(ix) > 0,
                         evindex_first_ns(ix), evindex_last_ns(ix));
        if (pb)
            perfetto_add(pw, ix, &eo, NULL);
        else
            export_chrome_add(w, ix, &eo, NULL);
        size_t n_events = evindex_n_events(ix);
        evindex_free(ix);
        bool changed = main_changed(file, log);
        evlog_close(log);
        int st = changed ? 1 : main_ending(file, &ending, n_events);
        if (st > status)
            status = st;
    }
    x_free(files);
    if (pb ? !perfetto_finish(pw) : !export_chrome_finish(w)) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return status;
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

/* The settings file (settings.h) or exit 1 with its one-line error. Caller frees. */
static settings *
main_settings(void)
{
    settings *st = settings_new();
    char *path = settings_path(getenv("XDG_CONFIG_HOME"), getenv("HOME"));
    char err[1024];
    bool found;
    if (path && !settings_load(st, path, &found, err, sizeof err)) {
        fprintf(stderr, "elog-tui: %s\n", err);
        exit(1);
    }
    x_free(path);
    return st;
}

/* The viewer over a live source: the timeline follows the log as it grows. */
static int
main_view_live(const char *file, const char *backend, const app_opts *ao,
               uint64_t alert_pause_ns)
{
    diag d;
    diag_clear(&d);
    livelog *l = livelog_open(file, &main_live, &d);
    if (!l) {
        fprintf(stderr, "elog-tui: %s: %s\n", file, d.msg);
        return 1;
    }
    char err[1024] = "";
    int status = app_run_live(l, file, backend, ao, alert_pause_ns, err, sizeof err);
    livelog_close(l);
    if (err[0]) {
        fprintf(stderr, "elog-tui: %s\n", err);
        if (!status)
            status = 1;
    }
    return status;
}

static int
main_view(int argc, char **argv)
{
    const char *file = NULL, *backend = NULL;
    app_opts ao = { .mouse = true };
    uint64_t alert_ns = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--alert-pause") == 0 && i + 1 < argc) {
            if (!timefmt_parse(argv[++i], &alert_ns) || alert_ns == 0) {
                fprintf(stderr, "elog-tui: --alert-pause wants a duration (50ms, 1.5s), not "
                        "\"%s\"\n", argv[i]);
                return 2;
            }
        } else if (strcmp(a, "--align") == 0 && i + 1 < argc) {
            ao.align = argv[++i];
        } else if (a[0] != '-' && file && !ao.second_path) {
            ao.second_path = a;     /* the two-log view */
        } else if (strcmp(a, "--backend") == 0 && i + 1 < argc &&
            (strcmp(argv[i + 1], "curses") == 0 || strcmp(argv[i + 1], "tickit") == 0)) {
            backend = argv[++i];
        } else if (strcmp(a, "--ascii") == 0) {
            ao.ascii = true;
        } else if (strcmp(a, "--mono") == 0) {
            ao.force_mono = true;
        } else if (strcmp(a, "--no-mouse") == 0) {
            ao.mouse = false;
        } else if (main_operand(a) && !file) {
            file = a;
        } else {
            return main_usage_error("unexpected argument \"%s\"", a);
        }
    }
    if (!file)
        return main_usage_error("the viewer needs a FILE");
    if (ao.align && !ao.second_path)
        return main_usage_error("--align needs two FILEs (the two-log view)");
    main_oom_file = file;
    if (strcmp(file, "-") == 0) {
        fprintf(stderr, "elog-tui: the viewer reads its keys from standard input, so it cannot "
                "read the log there: give it a FIFO (mkfifo /tmp/p.fifo; +RTS -ol/tmp/p.fifo), "
                "a socket or --follow FILE; the commands take -\n");
        return 2;
    }
    /* The settings give the defaults; the command line's options win. */
    settings *st = main_settings();
    if (!backend)
        backend = settings_backend(st);
    ao.mouse = ao.mouse && settings_mouse(st);
    if (!alert_ns)
        alert_ns = settings_alert_pause_ns(st);
    ao.force_mono = ao.force_mono || settings_mono(st);
    ao.ascii = ao.ascii || settings_ascii(st);
    ao.hidden_lanes = settings_hidden_lanes(st);
    ao.keys = settings_keys(st);
    ao.styles = settings_styles(st);
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "elog-tui: %s: the viewer needs a terminal; `elog-tui show %s` lists "
                "the events and `elog-tui snapshot %s` draws the screen as text\n",
                file, file, file);
        settings_free(st);
        return 1;
    }
    if (livesrc_is_live(file, main_live.follow)) {
        int status = main_spare_fds(file) ? main_view_live(file, backend, &ao, alert_ns) : 1;
        settings_free(st);
        return status;
    }
    main_fifo_check(file);
    if (ao.second_path)
        main_fifo_check(ao.second_path);
    if (!main_spare_fds(file)) {
        settings_free(st);
        return 1;
    }
    char err[1024] = "";
    int status = app_run(file, backend, &ao, err, sizeof err);
    if (err[0])
        fprintf(stderr, "elog-tui: %s\n", err);
    settings_free(st);
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
    if (!main_operand(argv[0]))
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
    { "mmu", main_gc_cmd },            { "worst", main_gc_cmd },
    { "diff", main_diff },
    { "ticky", main_table },
    { "export", main_export },
    { "prof", main_prof },
};

/* --list-commands and --list-keys (hidden): the binary's own tables, one entry a
 * line, for the test that the man page documents every command and key. */
static int
main_list_commands(void)
{
    for (size_t i = 0; i < sizeof main_commands / sizeof main_commands[0]; i++)
        printf("%s\n", main_commands[i].name);
    return 0;
}

static int
main_list_keys(void)
{
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n;
        const keymap_binding *b = keymap_table((keymap_mode)m, &n);
        for (size_t i = 0; i < n; i++)
            printf("%s\t%s\t%s\n", keymap_mode_name((keymap_mode)m), b[i].key,
                   keymap_action_name(b[i].action));
    }
    return 0;
}

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
    if (argc == 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)) {
        printf("elog-tui %s\n", ELOG_VERSION);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--print-config") == 0) {
        settings *st = settings_new();
        strbuf out;
        strbuf_init(&out);
        settings_write(st, &out);
        settings_free(st);
        bool ok = fwrite(out.data, 1, out.len, stdout) == out.len && fflush(stdout) == 0;
        strbuf_free(&out);
        return ok ? 0 : 1;
    }
    if (argc == 2 && strcmp(argv[1], "--list-commands") == 0)
        return main_list_commands();
    if (argc == 2 && strcmp(argv[1], "--list-keys") == 0)
        return main_list_keys();
    /* --follow and --wait apply to whichever command follows; anywhere on the line. */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--follow") == 0)
            main_live.follow = true;
        else if (strcmp(argv[i], "--wait") == 0)
            main_live.wait = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = NULL;
    for (size_t i = 0; argc >= 2 && i < sizeof main_commands / sizeof main_commands[0]; i++)
        if (strcmp(argv[1], main_commands[i].name) == 0)
            return main_commands[i].run(argc - 2, argv + 2, argv[1]);
    if (argc >= 2 && (main_operand(argv[1]) || strcmp(argv[1], "--backend") == 0 ||
                      strcmp(argv[1], "--align") == 0 ||
                      strcmp(argv[1], "--ascii") == 0 || strcmp(argv[1], "--mono") == 0 ||
                      strcmp(argv[1], "--no-mouse") == 0 ||
                      strcmp(argv[1], "--alert-pause") == 0)) {
        setlocale(LC_ALL, "");
        return main_view(argc - 1, argv + 1);
    }
    if (argc < 2)
        return main_usage_error("no command and no FILE");
    return main_usage_error("unknown option \"%s\"", argv[1]);
}
