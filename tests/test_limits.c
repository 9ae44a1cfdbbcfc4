/* tests/test_limits: the real binary under resource limits and odd files — every
 * command under `ulimit -v` ends with one line and exit 1 (never an abort), `show` stays
 * bounded on a log with no blocks, a FIFO with no writer says so and ends on SIGINT with
 * 130 — and its messages for misused options and windows outside the log. The viewer's
 * share (memory, FIFO, descriptors) is tests/e2e/limits.sh, wrapped here. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests.h"
#include "timefmt.h"
#include "xalloc.h"

/* ASan reserves terabytes of address space: `ulimit -v` cannot be used with it, so those
 * cases are skipped in sanitizer builds (the plain build runs them). */
#if defined(__SANITIZE_ADDRESS__)
#define LIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIM_ASAN 1
#endif
#endif
#ifndef LIM_ASAN
#define LIM_ASAN 0
#endif

typedef struct lim_run {
    int status;
    char *out;                  /* NUL-terminated; caller frees with lim_free */
    size_t out_len;
    char *err;
    size_t err_len;
} lim_run;

static void
lim_free(lim_run *r)
{
    x_free(r->out);
    x_free(r->err);
}

static const char *
lim_bin(void)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    return bin;
}

static char *
lim_slurp(int fd, size_t *len)
{
    strbuf sb;
    strbuf_init(&sb);
    lseek(fd, 0, SEEK_SET);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        strbuf_append(&sb, buf, (size_t)n);
    close(fd);
    strbuf_reserve(&sb, 1);
    sb.data[sb.len] = '\0';
    *len = sb.len;
    return sb.data;
}

/* Start the binary with `argv` (argv[0] is ignored), stdout and stderr to unlinked
 * files, an address-space limit of `as_kb` KB (0: none). Returns the pid; *ofd, *efd
 * get the files. */
static pid_t
lim_start(char *const argv[], long as_kb, int *ofd, int *efd)
{
    const char *bin = lim_bin();
    char tmpl_o[] = "/tmp/elog-lim-out.XXXXXX", tmpl_e[] = "/tmp/elog-lim-err.XXXXXX";
    *ofd = mkstemp(tmpl_o);
    *efd = mkstemp(tmpl_e);
    ck_assert(*ofd >= 0 && *efd >= 0);
    unlink(tmpl_o);
    unlink(tmpl_e);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        if (as_kb > 0) {
            struct rlimit rl = { (rlim_t)as_kb * 1024, (rlim_t)as_kb * 1024 };
            setrlimit(RLIMIT_AS, &rl);
        }
        struct rlimit core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &core);
        signal(SIGINT, SIG_DFL);
        dup2(*ofd, STDOUT_FILENO);
        dup2(*efd, STDERR_FILENO);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, STDIN_FILENO);
        execv(bin, argv);
        _exit(127);
    }
    return pid;
}

static void
lim_collect(int status, int ofd, int efd, lim_run *r)
{
    r->status = status;
    r->out = lim_slurp(ofd, &r->out_len);
    r->err = lim_slurp(efd, &r->err_len);
}

static void
lim_finish(pid_t pid, int ofd, int efd, lim_run *r)
{
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ck_assert_int_eq(errno, EINTR);
    lim_collect(status, ofd, efd, r);
}

/* Run `elog-tui ARGS...` (NULL-terminated) under an address-space limit (0: none). */
static void
lim_exec(long as_kb, lim_run *r, ...)
{
    char *argv[16];
    int n = 0;
    argv[n++] = (char *)"elog-tui";
    va_list ap;
    va_start(ap, r);
    for (char *a; n < 15 && (a = va_arg(ap, char *)) != NULL;)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    int ofd, efd;
    pid_t pid = lim_start(argv, as_kb, &ofd, &efd);
    lim_finish(pid, ofd, efd, r);
}

static int
lim_exit(const lim_run *r)
{
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

/* stderr is exactly one line. */
static bool
lim_one_line(const lim_run *r)
{
    return r->err_len > 0 && r->err[r->err_len - 1] == '\n' &&
           memchr(r->err, '\n', r->err_len) == r->err + r->err_len - 1;
}

/* A scratch directory with a synthetic log made by elog-synth `opts`; caller removes. */
static void
lim_synth(char *dir, size_t dir_len, char *path, size_t path_len, const char *opts)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    snprintf(dir, dir_len, "/tmp/elog-limits.XXXXXX");
    ck_assert(mkdtemp(dir) != NULL);
    snprintf(path, path_len, "%s/log.eventlog", dir);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, opts, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", opts);
}

/* Every command, under address-space limits stepped down from plenty to too little to
 * start: each run ends by exiting (no signal, no core), with exit 0, or exit 1 and one
 * line — "elog-tui: FILE: out of memory (needed N bytes)" when an allocation failed.
 * The index-building commands must meet that line at some step. */
START_TEST(test_limits_out_of_memory)
{
    if (LIM_ASAN) {
        fprintf(stderr, "limits: ulimit -v cases skipped under AddressSanitizer\n");
        return;
    }
    char dir[64], path[128];
    lim_synth(dir, sizeof dir, path, sizeof path, "--caps 4 --size 16M --seed 5");
    static const char *const cmds[] = { "index", "gc", "threads", "markers", "heap",
                                        "snapshot", "stats", "show" };
    char want[256];
    snprintf(want, sizeof want, "elog-tui: %s: out of memory (needed ", path);
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        int n_oom = 0;
        for (long kb = 160000; kb >= 8000; kb -= 8000) {
            lim_run r;
            lim_exec(kb, &r, cmds[c], path, (char *)NULL);
            ck_assert_msg(!WIFSIGNALED(r.status), "%s under ulimit -v %ld: killed by signal %d;"
                          " stderr: %s", cmds[c], kb, WTERMSIG(r.status), r.err);
            int code = lim_exit(&r);
            if (code == 127) {          /* too little to load the program at all */
                lim_free(&r);
                break;
            }
            ck_assert_msg(code == 0 || code == 1, "%s under ulimit -v %ld: exit %d; stderr: %s",
                          cmds[c], kb, code, r.err);
            if (code == 1) {
                ck_assert_msg(lim_one_line(&r), "%s under ulimit -v %ld: stderr \"%s\"", cmds[c],
                              kb, r.err);
                if (strncmp(r.err, want, strlen(want)) == 0)
                    n_oom++;
                else
                    ck_assert_msg(strstr(r.err, "Cannot allocate memory") != NULL,
                                  "%s under ulimit -v %ld: \"%s\"", cmds[c], kb, r.err);
            }
            lim_free(&r);
        }
        bool builds_index = c < 6;
        ck_assert_msg(!builds_index || n_oom > 0, "%s never ran out of memory", cmds[c]);
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

/* `show` on a log with no block markers used to hold 16 bytes per event of the whole
 * file (one run): 1.5 million events (24 MB as one run) must list under a limit that
 * leaves half of that beyond the mapping, and the listing is the unlimited one. */
START_TEST(test_limits_show_no_blocks)
{
    if (LIM_ASAN) {
        fprintf(stderr, "limits: ulimit -v cases skipped under AddressSanitizer\n");
        return;
    }
    char dir[64], path[128];
    lim_synth(dir, sizeof dir, path, sizeof path, "--no-blocks --caps 2 --events 1500000");
    struct stat st;
    ck_assert(stat(path, &st) == 0);
    lim_run full;
    lim_exec(0, &full, "show", path, (char *)NULL);
    ck_assert_int_eq(lim_exit(&full), 0);
    /* The smallest limit `show` of a tiny log runs under (in steps of 4 MB): what the
     * program needs besides the mapping and its per-event memory. */
    long base_kb = 0;
    char *tiny = test_path("fixtures/markers.eventlog");
    for (long kb = 8000; kb <= 200000 && !base_kb; kb += 4000) {
        lim_run r;
        lim_exec(kb, &r, "show", tiny, (char *)NULL);
        if (lim_exit(&r) == 0)
            base_kb = kb;
        lim_free(&r);
    }
    x_free(tiny);
    ck_assert(base_kb > 0);
    /* 1.5 million events: 24 MB as one run; allow 12 MB beyond the file. */
    long kb = base_kb + (long)(st.st_size / 1024) + 12000;
    lim_run r;
    lim_exec(kb, &r, "show", path, (char *)NULL);
    ck_assert_msg(lim_exit(&r) == 0, "show under ulimit -v %ld (file %lld KB): exit %d: %s", kb,
                  (long long)st.st_size / 1024, lim_exit(&r), r.err);
    ck_assert(r.out_len == full.out_len && memcmp(r.out, full.out, r.out_len) == 0);
    lim_free(&r);
    lim_free(&full);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* A FIFO nobody writes to: every command says it waits for a writer and ends on SIGINT
 * with status 130 within a second; when a writer comes and goes without writing, one
 * line says the stream had no bytes, exit 1. */
START_TEST(test_limits_fifo)
{
    char dir[] = "/tmp/elog-fifo.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    static const char *const cmds[] = { "show", "stats", "gc", "index", "snapshot", "scan" };
    char want[256];
    snprintf(want, sizeof want, "elog-tui: %s: waiting for a writer (a FIFO)\n", path);
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        char *argv[] = { (char *)"elog-tui", (char *)cmds[c], path, NULL };
        int ofd, efd;
        pid_t pid = lim_start(argv, 0, &ofd, &efd);
        struct timespec tick = { 0, 10000000 };
        char err[512] = "";
        for (int i = 0; i < 500 && !strstr(err, "waiting"); i++) {
            nanosleep(&tick, NULL);
            ssize_t n = pread(efd, err, sizeof err - 1, 0);
            err[n > 0 ? n : 0] = '\0';
        }
        ck_assert_msg(strcmp(err, want) == 0, "%s: stderr \"%s\"", cmds[c], err);
        int status = 0;
        bool ended = false;
        if (c % 2 == 0) {
            kill(pid, SIGINT);
            for (int i = 0; i < 100 && !ended; i++) {
                ended = waitpid(pid, &status, WNOHANG) == pid;
                if (!ended)
                    nanosleep(&tick, NULL);
            }
            if (!ended) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
            }
            lim_run r;
            lim_collect(status, ofd, efd, &r);
            ck_assert_msg(ended, "%s: still waiting 1 s after SIGINT", cmds[c]);
            ck_assert_msg(lim_exit(&r) == 130, "%s: status 0x%x after SIGINT", cmds[c],
                          r.status);
            lim_free(&r);
        } else {
            int w = open(path, O_WRONLY);   /* a writer that writes nothing */
            ck_assert(w >= 0);
            close(w);
            lim_run r;
            lim_finish(pid, ofd, efd, &r);
            char line[256];
            snprintf(line, sizeof line, "elog-tui: %s: the stream ended with no bytes\n",
                     path);
            ck_assert_msg(lim_exit(&r) == 1 && strncmp(r.err, want, strlen(want)) == 0 &&
                          strcmp(r.err + strlen(want), line) == 0,
                          "%s with a writer: exit %d, stderr \"%s\"", cmds[c], lim_exit(&r),
                          r.err);
            lim_free(&r);
        }
    }
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Usage errors: a command without FILE is not a file named after it; --top takes a
 * positive count that fits, and says so on one line otherwise. Exit status 2. */
START_TEST(test_limits_usage_messages)
{
    static const char *const cmds[] = { "show", "index", "scan", "gc", "threads", "heap",
                                        "markers", "stats", "snapshot" };
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        lim_run r;
        lim_exec(0, &r, cmds[c], (char *)NULL);
        char want[64];
        snprintf(want, sizeof want, "elog-tui: %s needs a FILE\nusage: ", cmds[c]);
        ck_assert_msg(lim_exit(&r) == 2 && strncmp(r.err, want, strlen(want)) == 0,
                      "%s alone: exit %d, stderr \"%.80s\"", cmds[c], lim_exit(&r), r.err);
        lim_free(&r);
    }
    char *log = test_path("fixtures/demo.eventlog");
    static const char *const bad_top[] = { "-1", "0", "99999999999999999999", "3x", "", "+2" };
    for (size_t i = 0; i < sizeof bad_top / sizeof bad_top[0]; i++) {
        lim_run r;
        lim_exec(0, &r, "threads", log, "--top", bad_top[i], (char *)NULL);
        ck_assert_msg(lim_exit(&r) == 2 && lim_one_line(&r) && strstr(r.err, "--top") &&
                      strstr(r.err, bad_top[i]) && r.out_len == 0,
                      "--top \"%s\": exit %d, stderr \"%s\"", bad_top[i], lim_exit(&r), r.err);
        lim_free(&r);
    }
    lim_run r;
    lim_exec(0, &r, "gc", log, "--top", "18446744073709551615", (char *)NULL);
    ck_assert_msg(lim_exit(&r) == 0 && r.err_len == 0, "--top SIZE_MAX: %s", r.err);
    lim_free(&r);
    x_free(log);
}
END_TEST

/* The first and last event times of demo.eventlog from its ghc-events dump. */
static void
lim_dump_bounds(uint64_t *first, uint64_t *last)
{
    char *p = test_path("fixtures/demo.eventlog.ref017");
    size_t len;
    char *dump = (char *)test_read_file(p, &len);
    ck_assert(dump != NULL);
    char *ev = strstr(dump, "\nEvents:\n");
    ck_assert(ev != NULL);
    *first = UINT64_MAX;
    *last = 0;
    for (char *line = ev + 9; line < dump + len; line = strchr(line, '\n') + 1) {
        char *end;
        unsigned long long t = strtoull(line, &end, 10);
        if (end != line && *end == ':') {
            if (t < *first)
                *first = t;
            if (t > *last)
                *last = t;
        }
        if (!strchr(line, '\n'))
            break;
    }
    x_free(dump);
    x_free(p);
}

/* The time in parentheses of a warning, parsed back. */
static uint64_t
lim_paren_time(const char *err)
{
    const char *open = strrchr(err, '(');
    ck_assert(open != NULL);
    char buf[64];
    size_t n = strcspn(open + 1, ")");
    ck_assert(n < sizeof buf);
    memcpy(buf, open + 1, n);
    buf[n] = '\0';
    uint64_t t = 0;
    ck_assert_msg(timefmt_parse(buf, &t), "\"%s\"", buf);
    return t;
}

/* --from/--to: a window past the log's end or before its start still has its (empty)
 * report, with a warning naming the bound and the log's last or first event (as the
 * dump has it); --from alone never talks about --to; --to before --from is an error. */
START_TEST(test_limits_window_messages)
{
    uint64_t first, last;
    lim_dump_bounds(&first, &last);
    char *log = test_path("fixtures/demo.eventlog");
    static const char *const cmds[] = { "stats", "snapshot" };
    for (size_t c = 0; c < 2; c++) {
        lim_run r;
        lim_exec(0, &r, cmds[c], log, "--from", "18446744073709551615", (char *)NULL);
        char want[512];
        snprintf(want, sizeof want, "elog-tui: warning: %s: --from 18446744073709551615 is "
                 "after the log's last event (", log);
        ck_assert_msg(lim_exit(&r) == 0 && lim_one_line(&r) &&
                      strncmp(r.err, want, strlen(want)) == 0 && !strstr(r.err, "--to") &&
                      r.out_len > 0, "%s --from max: exit %d, \"%s\"", cmds[c], lim_exit(&r),
                      r.err);
        ck_assert_uint_eq(lim_paren_time(r.err), last);
        lim_free(&r);

        lim_exec(0, &r, cmds[c], log, "--to", "1ns", (char *)NULL);
        snprintf(want, sizeof want, "elog-tui: warning: %s: --to 1ns is not after the log's "
                 "first event (", log);
        ck_assert_msg(lim_exit(&r) == 0 && lim_one_line(&r) &&
                      strncmp(r.err, want, strlen(want)) == 0, "%s --to 1ns: \"%s\"", cmds[c],
                      r.err);
        /* The dump leaves out block markers, whose times can come first: the bound the
         * warning names is at most the dump's first event, and is exactly the edge. */
        uint64_t edge = lim_paren_time(r.err);
        ck_assert_uint_le(edge, first);
        lim_free(&r);
        char t_txt[32];
        snprintf(t_txt, sizeof t_txt, "%llu", (unsigned long long)edge);
        lim_exec(0, &r, cmds[c], log, "--to", t_txt, (char *)NULL);
        ck_assert_msg(strstr(r.err, "is not after the log's first event"), "--to %s", t_txt);
        lim_free(&r);
        snprintf(t_txt, sizeof t_txt, "%llu", (unsigned long long)edge + 1);
        lim_exec(0, &r, cmds[c], log, "--to", t_txt, (char *)NULL);
        ck_assert_msg(r.err_len == 0, "--to %s: \"%s\"", t_txt, r.err);
        lim_free(&r);
        snprintf(t_txt, sizeof t_txt, "%llu", (unsigned long long)last);
        lim_exec(0, &r, cmds[c], log, "--from", t_txt, (char *)NULL);
        ck_assert_msg(r.err_len == 0, "--from %s: \"%s\"", t_txt, r.err);
        lim_free(&r);

        lim_exec(0, &r, cmds[c], log, "--from", "2s", "--to", "1s", (char *)NULL);
        snprintf(want, sizeof want, "elog-tui: %s: --to 1s must be later than --from 2s\n", log);
        ck_assert_msg(lim_exit(&r) == 1 && strcmp(r.err, want) == 0 && r.out_len == 0,
                      "%s --from 2s --to 1s: exit %d, \"%s\"", cmds[c], lim_exit(&r), r.err);
        lim_free(&r);

        /* Inside the log: no warning. */
        lim_exec(0, &r, cmds[c], log, "--from", "100ms", (char *)NULL);
        ck_assert_msg(lim_exit(&r) == 0 && r.err_len == 0, "%s --from 100ms: \"%s\"", cmds[c],
                      r.err);
        lim_free(&r);
    }
    x_free(log);
}
END_TEST

/* `show` while its file is rewritten in place (same size, other bytes, no truncation, so
 * no byte is lost under the mapping): it must not end with 0 and no word. The listing
 * goes into a pipe we do not read until the file was rewritten. */
START_TEST(test_limits_show_rewritten)
{
    char dir[64], path[128];
    lim_synth(dir, sizeof dir, path, sizeof path, "--caps 2 --size 4M --seed 8");
    size_t len;
    uint8_t *orig = test_read_file(path, &len);
    ck_assert(orig != NULL);
    int pfd[2];
    ck_assert_int_eq(pipe(pfd), 0);
    char tmpl[] = "/tmp/elog-lim-err.XXXXXX";
    int efd = mkstemp(tmpl);
    ck_assert(efd >= 0);
    unlink(tmpl);
    const char *bin = lim_bin();
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        dup2(pfd[1], STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        close(pfd[0]);
        alarm(60);
        execl(bin, bin, "show", path, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char buf[65536];
    ssize_t n = read(pfd[0], buf, sizeof buf);
    ck_assert_int_gt(n, 0);
    /* Other bytes in place: every event's time changed, the layout kept. */
    for (size_t i = len / 2; i + 1 < len; i += 97)
        orig[i] ^= 0x5a;
    struct timespec tick = { 0, 20000000 };
    nanosleep(&tick, NULL);             /* a later mtime on coarse clocks too */
    int fd = open(path, O_WRONLY);
    ck_assert(fd >= 0 && pwrite(fd, orig, len, 0) == (ssize_t)len && close(fd) == 0);
    while ((n = read(pfd[0], buf, sizeof buf)) > 0)
        ;
    close(pfd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char err[1024];
    n = pread(efd, err, sizeof err - 1, 0);
    close(efd);
    err[n > 0 ? n : 0] = '\0';
    char want[256];
    snprintf(want, sizeof want, "elog-tui: warning: %s changed while being read", path);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
                  strncmp(err, want, strlen(want)) == 0, "status 0x%x, stderr \"%s\"", status,
                  err);
    x_free(orig);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* The viewer: out of memory, a FIFO and too few descriptors, in tmux. */
START_TEST(test_limits_e2e_viewer)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char env[1024];
    snprintf(env, sizeof env, "ELOG_SYNTH='%s' ELOG_ASAN=%d", synth, LIM_ASAN);
    test_e2e_script("limits", env);
}
END_TEST

Suite *
test_limits_suite(void)
{
    Suite *s = suite_create("limits");
    TCase *tc = tcase_create("limits");
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, test_limits_out_of_memory);
    tcase_add_test(tc, test_limits_show_no_blocks);
    tcase_add_test(tc, test_limits_fifo);
    tcase_add_test(tc, test_limits_usage_messages);
    tcase_add_test(tc, test_limits_window_messages);
    tcase_add_test(tc, test_limits_show_rewritten);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("e2e");
    tcase_set_tags(te, "e2e");      /* CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(te, 180);
    tcase_add_test(te, test_limits_e2e_viewer);
    suite_add_tcase(s, te);
    return s;
}
