/* tests/test_corrupt: damaged logs through everything that reads them — `show`, the
 * `stats` merge, the index and its invariant checker, the gc/markers/threads reports
 * and the viewer drawn headless through a few keys — in memory for seeded random
 * corruption (bit flips, 0xffff lengths, spliced and zeroed ranges), for every prefix
 * of two small logs and for each file in tests/regress/ (inputs that once crashed);
 * then the real binary on some of them under a memory limit and a time limit. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "diag.h"
#include "evindex.h"
#include "evlog.h"
#include "gcstats.h"
#include "merge.h"
#include "reports.h"
#include "show.h"
#include "statsfmt.h"
#include "surface.h"
#include "tests.h"
#include "xalloc.h"

#define CORRUPT_CASE_SECONDS 2.0    /* any one input, through every path */
#define CORRUPT_BIN_SECONDS 20      /* the binary on one input (alarm: a hang is a signal) */
#define CORRUPT_BIN_MEM (1ull << 30)    /* address-space limit for the binary */
#define CORRUPT_BIN_CASES 12        /* corrupted copies of each of 3 logs for the binary */

/* ck_assert_msg without Check's bookkeeping for passing assertions (see
 * test_truncation.c): these loops check thousands of inputs. */
#define CORRUPT_CHECK(cond, ...)                                                          \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

/* The keys the headless viewer gets: jump to a GC, list collections and pick one, next
 * marker, event pane, help, thread list, search. */
static const char *const corrupt_keys[] = {
    "]", "p", "Enter", "n", "e", "Down", "Enter", "Escape", "?", "Escape", "t", "End",
    "Enter", "/", "a", "Enter", "n", "z",
};
#define CORRUPT_N_KEYS (sizeof corrupt_keys / sizeof corrupt_keys[0])

static double
corrupt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* How thoroughly one input is run. */
typedef struct corrupt_depth {
    bool draw_each_key;         /* draw after every key, not only at the end */
    bool reports;               /* the report tables (TSV and JSON) */
    bool show;                  /* show and the stats merge */
} corrupt_depth;

static const corrupt_depth corrupt_full = { true, true, true };

/* The viewer, headless, on an 80x24 surface (and a tiny one at the end). */
static void
corrupt_app(const char *what, const evindex *ix, bool draw_each_key)
{
    app_opts ao = { .ascii = false };
    app *a = app_new(ix, "corrupt.eventlog", 80, 24, &ao);
    surface *s = surface_new(80, 24);
    app_draw(a, s);
    for (size_t i = 0; i < CORRUPT_N_KEYS && !app_quit_requested(a); i++) {
        app_key(a, corrupt_keys[i]);
        if (draw_each_key)
            app_draw(a, s);
    }
    app_draw(a, s);
    char *dump = surface_dump(s);
    size_t rows = 0;
    for (const char *p = dump; (p = strchr(p, '\n')) != NULL; p++)
        rows++;
    CORRUPT_CHECK(rows == 24, "%s: the frame has %zu lines", what, rows);
    x_free(dump);
    app_resize(a, 9, 4);
    app_draw(a, s);
    surface_free(s);
    app_free(a);
}

/* Everything over one input, from a private copy of exactly `len` bytes (so ASan sees
 * a read past its end). */
static void
corrupt_run(const char *what, const uint8_t *data, size_t len, const corrupt_depth *dp)
{
    double t0 = corrupt_now();
    uint8_t *copy = xmalloc(len ? len : 1);
    if (len)
        memcpy(copy, data, len);
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(copy, len, &d);
    if (!log) {
        CORRUPT_CHECK(d.code == DIAG_NOT_EVENTLOG || d.code == DIAG_BAD_HEADER,
                      "%s: open error code %d (%s)", what, d.code, d.msg);
        CORRUPT_CHECK(d.offset <= len, "%s: header error at byte %" PRIu64 " of %zu", what,
                      d.offset, len);
        x_free(copy);
        return;
    }
    if (dp->show) {
        FILE *null = fopen("/dev/null", "w");
        CORRUPT_CHECK(null != NULL, "cannot open /dev/null");
        diag ending;
        show_stats st;
        CORRUPT_CHECK(show_write(log, null, &ending, &st), "%s: show_write failed", what);
        fclose(null);
        CORRUPT_CHECK(ending.code == DIAG_OK || ending.offset <= len,
                      "%s: show ends at byte %" PRIu64 " of %zu", what, ending.offset, len);
        /* stats: the merge into gcstats, then its report. */
        merge *m = merge_new(log, &ending);
        gcstats *g = gcstats_new(NULL);
        evlog_event ev;
        size_t n = 0;
        while (merge_next(m, &ev)) {
            gcstats_add(g, &ev);
            n++;
        }
        CORRUPT_CHECK(n == st.n_events, "%s: stats merged %zu events, show listed %zu", what,
                      n, st.n_events);
        merge_free(m);
        gcstats_report r;
        gcstats_finish(g, ending.code != DIAG_OK, &r);
        gcstats_free(g);
        strbuf sb;
        strbuf_init(&sb);
        statsfmt_report(&sb, &r);
        strbuf_free(&sb);
    }
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    CORRUPT_CHECK(ix != NULL, "%s: evindex_build returned NULL", what);
    char why[512];
    CORRUPT_CHECK(evindex_check(ix, why, sizeof why), "%s: evindex_check: %s", what, why);
    CORRUPT_CHECK(evindex_n_events(ix) <= len / 10, "%s: %" PRIu64 " events indexed from %zu "
                  "bytes", what, evindex_n_events(ix), len);
    /* Bounded memory: the index is never much bigger than the log. */
    CORRUPT_CHECK(evindex_bytes(ix) <= 64 * (size_t)len + (1u << 20), "%s: index of %zu bytes "
                  "for a log of %zu", what, evindex_bytes(ix), len);
    if (dp->reports) {
        strbuf sb;
        strbuf_init(&sb);
        for (int json = 0; json < 2; json++) {
            reports_opts o = { .json = json != 0 };
            reports_gc(&sb, ix, &o);
            o.sort_by_pause = true;
            reports_gc(&sb, ix, &o);
            o = (reports_opts){ .json = json != 0, .messages = true };
            reports_markers(&sb, ix, &o);
            o = (reports_opts){ .json = json != 0, .sort_by_run = json != 0 };
            reports_threads(&sb, ix, &o);
            strbuf_reset(&sb);
        }
        strbuf_free(&sb);
    }
    corrupt_app(what, ix, dp->draw_each_key);
    evindex_free(ix);
    evlog_close(log);
    x_free(copy);
    double dt = corrupt_now() - t0;
    CORRUPT_CHECK(dt < CORRUPT_CASE_SECONDS * test_time_scale(), "%s: took %.2f s on %zu bytes",
                  what, dt, len);
}

/* ---- seeded corruption ---------------------------------------------------------------- */

/* xorshift64*, seeded per case. */
static uint64_t
corrupt_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static size_t
corrupt_below(uint64_t *s, size_t n)
{
    return n ? (size_t)(corrupt_rand(s) % n) : 0;
}

/* A random position, in the data section 3 times out of 4. */
static size_t
corrupt_pos(uint64_t *s, size_t len, size_t data_start)
{
    if (data_start < len && corrupt_below(s, 4) != 0)
        return data_start + corrupt_below(s, len - data_start);
    return corrupt_below(s, len);
}

enum corrupt_kind {
    CORRUPT_BITS,               /* 1-8 bit flips */
    CORRUPT_FFFF_LENGTH,        /* 0xffff over an event's length / block size field */
    CORRUPT_SPLICE,             /* a range copied over another place */
    CORRUPT_ZERO,               /* a range zeroed */
    CORRUPT_N_KINDS
};

static const char *const corrupt_kind_name[CORRUPT_N_KINDS] = {
    "bit flips", "0xffff length", "splice", "zeroed range",
};

/* The events of the intact log: where each starts and how big its header is. */
typedef struct corrupt_base {
    const char *name;
    const uint8_t *data;
    size_t len, data_start;
    uint64_t *ev_off;           /* owned */
    uint8_t *ev_var;            /* owned; 1 if the event is variable-size */
    size_t n_evs;
} corrupt_base;

static void
corrupt_base_init(corrupt_base *b, const char *name, const uint8_t *data, size_t len)
{
    memset(b, 0, sizeof *b);
    b->name = name;
    b->data = data;
    b->len = len;
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(data, len, &d);
    CORRUPT_CHECK(log != NULL, "%s does not open: %s", name, d.msg);
    b->data_start = (size_t)evlog_data_start(log);
    size_t cap = 256;
    b->ev_off = xreallocarray(NULL, cap, sizeof *b->ev_off);
    b->ev_var = xmalloc(cap);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (b->n_evs == cap) {
            cap *= 2;
            b->ev_off = xreallocarray(b->ev_off, cap, sizeof *b->ev_off);
            b->ev_var = xreallocarray(b->ev_var, cap, 1);
        }
        b->ev_off[b->n_evs] = ev.offset;
        b->ev_var[b->n_evs++] = ev.et->size == EVLOG_VARIABLE_SIZE || ev.type == EV_BLOCK_MARKER;
    }
    evlog_close(log);
}

static void
corrupt_base_free(corrupt_base *b)
{
    x_free(b->ev_off);
    x_free(b->ev_var);
}

/* One corruption of `kind` in buf (b->len bytes, a copy of the base). */
static void
corrupt_apply(uint64_t *s, const corrupt_base *b, uint8_t *buf, enum corrupt_kind kind)
{
    size_t n = b->len;
    switch (kind) {
    case CORRUPT_BITS:
        for (size_t k = 1 + corrupt_below(s, 8); k > 0; k--) {
            size_t at = corrupt_pos(s, n, b->data_start);
            buf[at] ^= (uint8_t)(1u << corrupt_below(s, 8));
        }
        break;
    case CORRUPT_FFFF_LENGTH: {
        /* The u16 after type and timestamp: a variable event's length, or the high half
         * of a block marker's size. Prefer those; any event will do otherwise. */
        if (!b->n_evs)
            break;
        size_t i = corrupt_below(s, b->n_evs);
        for (int tries = 0; tries < 16 && !b->ev_var[i]; tries++)
            i = corrupt_below(s, b->n_evs);
        size_t at = (size_t)b->ev_off[i] + 10;
        if (at + 2 <= n) {
            buf[at] = 0xff;
            buf[at + 1] = 0xff;
        }
        break;
    }
    case CORRUPT_SPLICE: {
        size_t from = corrupt_below(s, n), to = corrupt_pos(s, n, b->data_start);
        size_t l = 1 + corrupt_below(s, 256);
        if (l > n - from)
            l = n - from;
        if (l > n - to)
            l = n - to;
        memmove(buf + to, buf + from, l);
        break;
    }
    case CORRUPT_ZERO: {
        size_t at = corrupt_pos(s, n, b->data_start);
        size_t l = 1 + corrupt_below(s, 128);
        memset(buf + at, 0, l < n - at ? l : n - at);
        break;
    }
    default:
        break;
    }
}

/* `cases` corrupted copies of base b, each 1-3 corruptions of one kind (cycling through
 * the kinds) and one time in five a cut, run through `fn` (in memory or the binary). */
typedef void corrupt_fn(const char *what, const uint8_t *data, size_t len, void *arg);

static void
corrupt_cases(const corrupt_base *b, uint64_t seed, size_t cases, corrupt_fn *fn, void *arg)
{
    uint8_t *buf = xmalloc(b->len ? b->len : 1);
    for (size_t c = 0; c < cases; c++) {
        uint64_t s = seed * 0x9E3779B97F4A7C15ULL + c + 1;
        corrupt_rand(&s);
        memcpy(buf, b->data, b->len);
        enum corrupt_kind kind = (enum corrupt_kind)(c % CORRUPT_N_KINDS);
        for (size_t k = 1 + corrupt_below(&s, 3); k > 0; k--)
            corrupt_apply(&s, b, buf, kind);
        size_t len = b->len;
        if (corrupt_below(&s, 5) == 0)
            len = b->data_start + corrupt_below(&s, b->len - b->data_start + 1);
        char what[160];
        snprintf(what, sizeof what, "%s, %s, seed %" PRIu64 " case %zu", b->name,
                 corrupt_kind_name[kind], seed, c);
        fn(what, buf, len, arg);
    }
    x_free(buf);
}

static void
corrupt_in_memory(const char *what, const uint8_t *data, size_t len, void *arg)
{
    (void)arg;
    corrupt_run(what, data, len, &corrupt_full);
}

/* A log built here, so the suite has subjects without the corpus: capability blocks,
 * GCs, markers, messages and thread labels. */
static void
corrupt_built_log(tlog *t)
{
    tlog_init(t);
    tlog_header_begin(t);
    tlog_standard_header(t);
    tlog_header_end(t);
    for (uint16_t cap = 0; cap < 2; cap++) {
        tlog body;
        tlog_init(&body);
        for (uint32_t i = 0; i < 8; i++) {
            uint64_t ts = 1000 + 1000 * i + cap;
            tlog_event(&body, EV_CREATE_THREAD, ts);
            tlog_u32(&body, i + 1 + 100 * cap);
            tlog_event(&body, EV_THREAD_LABEL, ts + 1);
            tlog_u16(&body, 4 + 5);
            tlog_u32(&body, i + 1 + 100 * cap);
            tlog_bytes(&body, "abcde", 5);
            tlog_event(&body, EV_RUN_THREAD, ts + 10);
            tlog_u32(&body, i + 1 + 100 * cap);
            tlog_event(&body, EV_USER_MARKER, ts + 20);
            tlog_u16(&body, 6);
            tlog_bytes(&body, "mark-a", 6);
            tlog_event(&body, EV_STOP_THREAD, ts + 300);
            tlog_u32(&body, i + 1 + 100 * cap);
            tlog_u16(&body, 2);
            tlog_u32(&body, 0);
            tlog_event(&body, EV_REQUEST_SEQ_GC, ts + 310);
            tlog_event(&body, EV_GC_START, ts + 320);
            tlog_event(&body, EV_GC_WORK, ts + 330);
            tlog_event(&body, EV_GC_IDLE, ts + 400);
            tlog_event(&body, EV_GC_END, ts + 500);
        }
        tlog_block(t, 900 + cap, (uint32_t)body.b.len, 9000, cap);
        tlog_bytes(t, body.b.data, body.b.len);
        tlog_free(&body);
    }
    tlog_end(t);
}

/* Read a corpus log into *len bytes, or NULL (and say so) when ../shared is absent. */
static uint8_t *
corrupt_corpus_log(const char *file, size_t *len)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "corrupt: ../shared/corpus/ghc-events-tests not found, %s SKIPPED\n",
                file);
        return NULL;
    }
    strbuf p;
    strbuf_init(&p);
    strbuf_printf(&p, "%s/%s", dir, file);
    uint8_t *data = test_read_file(p.data, len);
    CORRUPT_CHECK(data != NULL, "cannot read %s", p.data);
    strbuf_free(&p);
    x_free(dir);
    return data;
}

static uint8_t *
corrupt_fixture(const char *file, size_t *len)
{
    strbuf rel;
    strbuf_init(&rel);
    strbuf_printf(&rel, "fixtures/%s", file);
    char *p = test_path(rel.data);
    uint8_t *data = test_read_file(p, len);
    CORRUPT_CHECK(data != NULL, "cannot read %s", p);
    x_free(p);
    strbuf_free(&rel);
    return data;
}

/* The logs corrupted in memory: corpus logs (skipped without ../shared) and fixtures,
 * with a seed and a number of cases each; the built log always runs. */
static const struct {
    bool corpus;                /* else fixtures/ */
    const char *file;
    uint64_t seed;
    size_t cases;
} corrupt_logs[] = {
    { true, "hello-ghc-8.6.5.eventlog", 20, 300 },
    { true, "nonmoving-gc.eventlog", 21, 300 },
    { true, "parallelTest.eventlog", 22, 200 },
    { true, "time-prof.eventlog", 23, 150 },
    { true, "trace-binary-nonutf.eventlog", 24, 150 },
    { true, "biographical-samples.eventlog", 25, 150 },
    { true, "ticky-new.eventlog", 26, 100 },
    { false, "markers.eventlog", 30, 300 },
    { false, "heapprof-hT.eventlog", 31, 60 },
};
#define CORRUPT_BUILT_CASES 400

/* In memory: seeded corruption of the built log, corpus logs and fixtures. */
START_TEST(test_corrupt_random)
{
    size_t done = 0, skipped = 0;
    tlog t;
    corrupt_built_log(&t);
    corrupt_base b;
    corrupt_base_init(&b, "built", (const uint8_t *)t.b.data, t.b.len);
    corrupt_cases(&b, 11, CORRUPT_BUILT_CASES, corrupt_in_memory, NULL);
    done += CORRUPT_BUILT_CASES;
    corrupt_base_free(&b);
    tlog_free(&t);
    for (size_t i = 0; i < sizeof corrupt_logs / sizeof corrupt_logs[0]; i++) {
        size_t len = 0;
        uint8_t *data = corrupt_logs[i].corpus ? corrupt_corpus_log(corrupt_logs[i].file, &len)
                                               : corrupt_fixture(corrupt_logs[i].file, &len);
        if (!data) {
            skipped++;
            continue;
        }
        corrupt_base_init(&b, corrupt_logs[i].file, data, len);
        corrupt_cases(&b, corrupt_logs[i].seed, corrupt_logs[i].cases, corrupt_in_memory, NULL);
        done += corrupt_logs[i].cases;
        corrupt_base_free(&b);
        x_free(data);
    }
    fprintf(stderr, "corrupt: %zu corrupted logs checked in memory (%zu base logs skipped)\n",
            done, skipped);
    ck_assert_uint_ge(done, CORRUPT_BUILT_CASES + 300);
}
END_TEST

/* Every prefix of `data` through the index, reports and viewer (show over prefixes is
 * test_truncation's). */
static void
corrupt_every_prefix(const char *name, const uint8_t *data, size_t len)
{
    static const corrupt_depth prefix_depth = { false, true, false };
    for (size_t l = 0; l <= len; l++) {
        char what[128];
        snprintf(what, sizeof what, "%s cut at %zu", name, l);
        corrupt_run(what, data, l, &prefix_depth);
    }
}

START_TEST(test_corrupt_prefixes_built)
{
    tlog t;
    corrupt_built_log(&t);
    corrupt_every_prefix("built", (const uint8_t *)t.b.data, t.b.len);
    tlog_free(&t);
}
END_TEST

START_TEST(test_corrupt_prefixes_corpus)
{
    size_t len = 0;
    uint8_t *data = corrupt_corpus_log("nonmoving-gc.eventlog", &len);
    if (data)
        corrupt_every_prefix("nonmoving-gc.eventlog", data, len);
    x_free(data);
}
END_TEST

START_TEST(test_corrupt_prefixes_fixture)
{
    size_t len = 0;
    uint8_t *data = corrupt_fixture("markers.eventlog", &len);
    corrupt_every_prefix("markers.eventlog", data, len);
    x_free(data);
}
END_TEST

/* ---- tests/regress: inputs that once crashed --------------------------------------- */

START_TEST(test_corrupt_regress)
{
    char *dir = test_path("tests/regress");
    size_t n = 0;
    char **names = test_list_dir(dir, "", &n);
    size_t done = 0;
    for (size_t i = 0; i < n; i++) {
        if (names[i][0] == '.' || strcmp(names[i], "README") == 0)
            continue;
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, names[i]);
        size_t len = 0;
        uint8_t *data = test_read_file(p.data, &len);
        CORRUPT_CHECK(data != NULL, "cannot read %s", p.data);
        corrupt_run(names[i], data, len, &corrupt_full);
        done++;
        x_free(data);
        strbuf_free(&p);
    }
    fprintf(stderr, "corrupt: %zu regression input(s) from tests/regress checked\n", done);
    ck_assert_uint_gt(done, 0);
    test_free_names(names, n);
    x_free(dir);
}
END_TEST

/* ---- the real binary ------------------------------------------------------------------- */

/* Scratch directory for the binary's inputs and stderr, one per test process. */
typedef struct corrupt_bin {
    char dir[256];
    const char *bin;
    size_t runs;
} corrupt_bin;

/* Run `bin args...` on `path` with stdout to /dev/null, stderr captured, an address-space
 * limit and an alarm; assert it ended by exit 0 or 1 (never a signal) with at most one
 * stderr line of the expected form. */
static void
corrupt_exec(corrupt_bin *cb, const char *what, const char *path, const char *const *args)
{
    char errp[300];
    snprintf(errp, sizeof errp, "%s/stderr", cb->dir);
    int efd = open(errp, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CORRUPT_CHECK(efd >= 0, "cannot create %s", errp);
    fflush(NULL);
    pid_t pid = fork();
    CORRUPT_CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
#if defined(__SANITIZE_ADDRESS__)
        /* ASan reserves terabytes of address space: bound the RSS through it instead. */
        const char *prev = getenv("ASAN_OPTIONS");
        char opts[512];
        snprintf(opts, sizeof opts, "%s%shard_rss_limit_mb=1024", prev ? prev : "",
                 prev && *prev ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
#else
        struct rlimit rl = { CORRUPT_BIN_MEM, CORRUPT_BIN_MEM };
        setrlimit(RLIMIT_AS, &rl);
#endif
        alarm(CORRUPT_BIN_SECONDS);
        const char *argv[12];
        size_t k = 0;
        argv[k++] = cb->bin;
        argv[k++] = args[0];
        argv[k++] = path;
        for (size_t i = 1; args[i] && k < 11; i++)
            argv[k++] = args[i];
        argv[k] = NULL;
        execv(cb->bin, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        CORRUPT_CHECK(errno == EINTR, "waitpid: %s", strerror(errno));
    cb->runs++;
    char err[4096];
    ssize_t n = pread(efd, err, sizeof err - 1, 0);
    close(efd);
    err[n > 0 ? n : 0] = '\0';
    CORRUPT_CHECK(!WIFSIGNALED(status), "%s: elog-tui %s killed by signal %d%s; stderr: %s",
                  what, args[0], WIFSIGNALED(status) ? WTERMSIG(status) : 0,
                  WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? " (timeout)" : "", err);
    int code = WEXITSTATUS(status);
    CORRUPT_CHECK(code == 0 || code == 1, "%s: elog-tui %s exit %d; stderr: %s", what, args[0],
                  code, err);
    size_t len = strlen(err);
    if (len == 0) {
        CORRUPT_CHECK(code == 0, "%s: elog-tui %s exit 1 without a message", what, args[0]);
        return;
    }
    CORRUPT_CHECK(err[len - 1] == '\n' && strchr(err, '\n') == err + len - 1,
                  "%s: elog-tui %s: stderr is not one line: \"%s\"", what, args[0], err);
    bool warning = strncmp(err, "elog-tui: warning: ", 19) == 0;
    const char *rest = err + (warning ? 19 : 10);
    CORRUPT_CHECK(strncmp(err, "elog-tui: ", 10) == 0 && strncmp(rest, path, strlen(path)) == 0 &&
                  rest[strlen(path)] == ':', "%s: elog-tui %s: stderr \"%s\" does not start "
                  "with \"elog-tui: [warning: ]%s:\"", what, args[0], err, path);
    const char *at = strstr(rest, " at byte ");
    CORRUPT_CHECK(at && at[9] >= '0' && at[9] <= '9', "%s: elog-tui %s: no \"at byte N\" in "
                  "\"%s\"", what, args[0], err);
    /* A warning (a cut log) goes with exit 0, an error with exit 1. */
    CORRUPT_CHECK(warning == (code == 0), "%s: elog-tui %s: exit %d with \"%s\"", what,
                  args[0], code, err);
}

static void
corrupt_binary(const char *what, const uint8_t *data, size_t len, void *arg)
{
    static const char *const show[] = { "show", NULL };
    static const char *const stats[] = { "stats", NULL };
    static const char *const gc[] = { "gc", "--json", NULL };
    static const char *const snap[] = {
        "snapshot", "--size", "80x24", "--keys", "] p Enter n e ?", NULL,
    };
    corrupt_bin *cb = arg;
    char path[300];
    snprintf(path, sizeof path, "%s/in.eventlog", cb->dir);
    FILE *f = fopen(path, "wb");
    CORRUPT_CHECK(f && fwrite(data, 1, len, f) == len && fclose(f) == 0, "cannot write %s",
                  path);
    corrupt_exec(cb, what, path, show);
    corrupt_exec(cb, what, path, stats);
    corrupt_exec(cb, what, path, gc);
    corrupt_exec(cb, what, path, snap);
    unlink(path);
}

START_TEST(test_corrupt_binary)
{
    corrupt_bin cb = { .bin = getenv("ELOG_BIN") };
    ck_assert_msg(cb.bin && access(cb.bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    const char *tmp = getenv("TMPDIR");
    snprintf(cb.dir, sizeof cb.dir, "%s/elog-corrupt.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(cb.dir) != NULL, "mkdtemp: %s", strerror(errno));

    tlog t;
    corrupt_built_log(&t);
    corrupt_base b;
    corrupt_base_init(&b, "built", (const uint8_t *)t.b.data, t.b.len);
    corrupt_cases(&b, 41, CORRUPT_BIN_CASES, corrupt_binary, &cb);
    corrupt_base_free(&b);
    size_t dlen = 0;
    uint8_t *demo = corrupt_fixture("demo.eventlog", &dlen);
    corrupt_base_init(&b, "demo.eventlog", demo, dlen);
    corrupt_cases(&b, 43, CORRUPT_BIN_CASES, corrupt_binary, &cb);
    corrupt_base_free(&b);
    x_free(demo);
    size_t len = 0;
    uint8_t *data = corrupt_fixture("markers.eventlog", &len);
    corrupt_base_init(&b, "markers.eventlog", data, len);
    corrupt_cases(&b, 42, CORRUPT_BIN_CASES, corrupt_binary, &cb);
    corrupt_base_free(&b);
    /* Cut mid-header and mid-data. */
    corrupt_binary("markers.eventlog cut in the header", data, 100, &cb);
    corrupt_binary("markers.eventlog cut in the data", data, len / 2 + 3, &cb);
    x_free(data);
    tlog_free(&t);

    char errp[300];
    snprintf(errp, sizeof errp, "%s/stderr", cb.dir);
    unlink(errp);
    rmdir(cb.dir);
    ck_assert_uint_eq(cb.runs, 4 * (3 * CORRUPT_BIN_CASES + 2));
}
END_TEST

Suite *
test_corrupt_suite(void)
{
    Suite *s = suite_create("corrupt");
    TCase *tc = tcase_create("memory");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_corrupt_random);
    tcase_add_test(tc, test_corrupt_prefixes_built);
    tcase_add_test(tc, test_corrupt_prefixes_corpus);
    tcase_add_test(tc, test_corrupt_prefixes_fixture);
    tcase_add_test(tc, test_corrupt_regress);
    suite_add_tcase(s, tc);
    TCase *tb = tcase_create("binary");
    tcase_set_timeout(tb, 300);
    tcase_add_test(tb, test_corrupt_binary);
    suite_add_tcase(s, tb);
    return s;
}
