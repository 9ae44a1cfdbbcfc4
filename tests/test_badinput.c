/* tests/test_badinput: the real elog-tui binary on broken input — empty, missing,
 * unreadable, not an eventlog, truncated or corrupt headers, truncated or malformed
 * data. Exit status, stdout and the one-line stderr report (with its byte offset). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evlog.h"
#include "evtype.h"
#include "tests.h"
#include "xalloc.h"

#define BAD_NOBODY 65534                /* uid/gid the unreadable case drops to as root */
#define BAD_EXIT_NO_SETUID 125          /* the child could not drop privileges or exec */

/* Scratch directory for the input files, made and removed by the runner process
 * around the whole test case (so a failing test cannot leave it behind); every test
 * uses its own file names. */
static char bad_dir[256];

static void
bad_setup(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(bad_dir, sizeof bad_dir, "%s/elog-badinput.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(bad_dir)) {
        fprintf(stderr, "badinput: mkdtemp %s: %s\n", bad_dir, strerror(errno));
        bad_dir[0] = '\0';
    }
}

/* Remove bad_dir and what the tests put there (files and empty subdirectories). */
static void
bad_teardown(void)
{
    if (!bad_dir[0])
        return;
    DIR *d = opendir(bad_dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char p[512];
            snprintf(p, sizeof p, "%s/%s", bad_dir, de->d_name);
            if (unlink(p) != 0)
                rmdir(p);
        }
        closedir(d);
    }
    rmdir(bad_dir);
}

/* A path in bad_dir. Caller frees. */
static char *
bad_file(const char *name)
{
    ck_assert_msg(bad_dir[0] != '\0', "no scratch directory");
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s/%s", bad_dir, name);
    return sb.data;
}

/* Write `len` bytes to bad_dir/name; returns the path (caller frees). */
static char *
bad_write(const char *name, const void *data, size_t len)
{
    char *path = bad_file(name);
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* One run of the binary: wait status and everything it wrote. */
typedef struct bad_run {
    int status;
    char *out;
    size_t out_len;
    char *err;
    size_t err_len;
} bad_run;

static void
bad_run_free(bad_run *r)
{
    x_free(r->out);
    x_free(r->err);
}

static char *
bad_slurp_fd(int fd, size_t *len)
{
    strbuf sb;
    strbuf_init(&sb);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        strbuf_append(&sb, buf, (size_t)n);
    close(fd);
    strbuf_reserve(&sb, 1);
    *len = sb.len;
    return sb.data;
}

/* Run `$ELOG_BIN show path` with stdout and stderr captured to files; as `uid` when it
 * is not -1 (root only). Asserts the binary was not killed by a signal. */
static void
bad_exec_as(const char *path, int uid, bad_run *r)
{
    const char *env = getenv("ELOG_BIN");
    char *bin = env && *env ? xstrdup(env) : test_path("build/elog-tui");
    ck_assert_msg(access(bin, X_OK) == 0, "elog-tui binary %s is not executable (set ELOG_BIN)",
                  bin);
    char outp[300], errp[300];
    snprintf(outp, sizeof outp, "%s/.stdout", bad_dir);
    snprintf(errp, sizeof errp, "%s/.stderr", bad_dir);
    int ofd = open(outp, O_RDWR | O_CREAT | O_TRUNC, 0600);
    int efd = open(errp, O_RDWR | O_CREAT | O_TRUNC, 0600);
    ck_assert(ofd >= 0 && efd >= 0);
    unlink(outp);
    unlink(errp);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        if (uid != -1 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 ||
                          setuid((uid_t)uid) != 0))
            _exit(BAD_EXIT_NO_SETUID);
        dup2(ofd, STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        execl(bin, bin, "show", path, (char *)NULL);
        /* As nobody the binary itself may be out of reach (e.g. under a 0700 home). */
        _exit(uid != -1 ? BAD_EXIT_NO_SETUID : 127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        ck_assert_int_eq(errno, EINTR);
    r->status = status;
    r->out = bad_slurp_fd(ofd, &r->out_len);
    r->err = bad_slurp_fd(efd, &r->err_len);
    ck_assert_msg(!WIFSIGNALED(status), "elog-tui show %s: killed by signal %d; stderr: %s", path,
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0, r->err);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) != 127, "cannot run %s", bin);
    x_free(bin);
}

static void
bad_exec(const char *path, bad_run *r)
{
    bad_exec_as(path, -1, r);
}

static int
bad_exit_code(const bad_run *r)
{
    return WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
}

/* stderr must be exactly one line "elog-tui: <lead>PATH: MESSAGE at byte N" (for a
 * warning, "; ..." may follow N). Returns N, or DIAG_NO_OFFSET when there is no offset
 * and `need_offset` is false. */
static uint64_t
bad_report_line(const bad_run *r, const char *lead, const char *path, bool need_offset)
{
    const char *e = r->err;
    ck_assert_msg(r->err_len > 0 && e[r->err_len - 1] == '\n' &&
                  memchr(e, '\n', r->err_len) == e + r->err_len - 1,
                  "%s: stderr must be exactly one line, got %zu bytes: \"%s\"", path,
                  r->err_len, e);
    strbuf want;
    strbuf_init(&want);
    strbuf_printf(&want, "elog-tui: %s%s: ", lead, path);
    ck_assert_msg(strncmp(e, want.data, want.len) == 0,
                  "%s: stderr \"%s\" does not start with \"%s\"", path, e, want.data);
    ck_assert_msg(r->err_len > want.len + 1, "%s: empty message in \"%s\"", path, e);
    strbuf_free(&want);
    const char *at = NULL;
    for (const char *p = strstr(e, " at byte "); p; p = strstr(p + 1, " at byte "))
        at = p;
    if (!at) {
        ck_assert_msg(!need_offset, "%s: no \" at byte N\" in \"%s\"", path, e);
        return DIAG_NO_OFFSET;
    }
    char *endp = NULL;
    errno = 0;
    unsigned long long n = strtoull(at + 9, &endp, 10);
    ck_assert_msg(endp != at + 9 && errno == 0, "%s: bad offset in \"%s\"", path, e);
    bool warning = strcmp(lead, "") != 0;
    ck_assert_msg(*endp == '\n' || (warning && *endp == ';'),
                  "%s: unexpected text after the offset in \"%s\"", path, e);
    return (uint64_t)n;
}

/* The common shape of a failure to open: exit 1, nothing on stdout, one error line;
 * returns its offset (DIAG_NO_OFFSET if none and !need_offset). */
static uint64_t
bad_expect_open_error(const char *path, bool need_offset, bad_run *r)
{
    bad_exec(path, r);
    ck_assert_msg(bad_exit_code(r) == 1, "%s: exit status %d, expected 1; stderr: %s", path,
                  bad_exit_code(r), r->err);
    ck_assert_msg(r->out_len == 0, "%s: %zu bytes on stdout, expected none: %.200s", path,
                  r->out_len, r->out);
    return bad_report_line(r, "", path, need_offset);
}

START_TEST(test_bad_empty)
{
    char *path = bad_write("empty.eventlog", "", 0);
    bad_run r;
    ck_assert_uint_eq(bad_expect_open_error(path, true, &r), 0);
    bad_run_free(&r);
    x_free(path);
}
END_TEST

START_TEST(test_bad_directory)
{
    char *path = bad_file("a-directory.eventlog");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    bad_run r;
    uint64_t n = bad_expect_open_error(path, false, &r);
    ck_assert_msg(n == DIAG_NO_OFFSET || n == 0, "directory: offset %" PRIu64, n);
    ck_assert_msg(strstr(r.err, "directory") != NULL, "message should say it is a directory: %s",
                  r.err);
    bad_run_free(&r);
    x_free(path);
}
END_TEST

START_TEST(test_bad_missing)
{
    char *path = bad_file("no-such-file.eventlog");
    bad_run r;
    uint64_t n = bad_expect_open_error(path, false, &r);
    ck_assert_msg(n == DIAG_NO_OFFSET || n == 0, "missing file: offset %" PRIu64, n);
    ck_assert_msg(strstr(r.err, strerror(ENOENT)) != NULL, "message should carry \"%s\": %s",
                  strerror(ENOENT), r.err);
    bad_run_free(&r);
    x_free(path);
}
END_TEST

/* chmod 000. Root reads anything, so as root the binary is run as nobody instead. */
START_TEST(test_bad_unreadable)
{
    static const uint8_t magic[] = { 'h', 'd', 'r', 'b', 'h', 'e', 't', 'b' };
    char *path = bad_write("unreadable.eventlog", magic, sizeof magic);
    ck_assert_int_eq(chmod(path, 0), 0);
    int uid = -1;
    if (geteuid() == 0) {
        /* Let nobody through the scratch directory; the file itself stays mode 000. */
        ck_assert_int_eq(chmod(bad_dir, 0711), 0);
        uid = BAD_NOBODY;
    }
    bad_run r;
    bad_exec_as(path, uid, &r);
    if (uid != -1 && bad_exit_code(&r) == BAD_EXIT_NO_SETUID) {
        fprintf(stderr, "badinput: running as root and cannot run elog-tui as uid %d: "
                "unreadable-file case SKIPPED\n", BAD_NOBODY);
    } else {
        ck_assert_msg(bad_exit_code(&r) == 1, "unreadable: exit status %d, expected 1; stderr: %s",
                      bad_exit_code(&r), r.err);
        ck_assert_uint_eq(r.out_len, 0);
        uint64_t n = bad_report_line(&r, "", path, false);
        ck_assert_msg(n == DIAG_NO_OFFSET || n == 0, "unreadable: offset %" PRIu64, n);
        ck_assert_msg(strstr(r.err, strerror(EACCES)) != NULL, "message should carry \"%s\": %s",
                      strerror(EACCES), r.err);
    }
    bad_run_free(&r);
    x_free(path);
}
END_TEST

START_TEST(test_bad_magic)
{
    static const char text[] = "This is a text file, not a GHC eventlog.\nSecond line.\n";
    char *path = bad_write("text.eventlog", text, sizeof text - 1);
    bad_run r;
    ck_assert_uint_eq(bad_expect_open_error(path, true, &r), 0);
    bad_run_free(&r);
    x_free(path);
}
END_TEST

/* A small but complete eventlog header declaring a few types; rec[i] is the offset of
 * the i-th event-type record, rec[n] that of the HET_END marker. */
#define BAD_N_TYPES 5

static void
bad_small_header(tlog *t, size_t rec[BAD_N_TYPES + 1])
{
    static const struct { uint16_t id, size; const char *desc; } types[BAD_N_TYPES] = {
        { EV_CREATE_THREAD, 4, "Create thread" },
        { EV_RUN_THREAD, 4, "Run thread" },
        { EV_STOP_THREAD, 10, "Stop thread" },
        { EV_USER_MSG, 0xffff, "User message" },
        { EV_BLOCK_MARKER, 14, "Block marker" },
    };
    tlog_header_begin(t);
    for (size_t i = 0; i < BAD_N_TYPES; i++) {
        rec[i] = t->b.len;
        tlog_type(t, types[i].id, types[i].size, types[i].desc);
    }
    rec[BAD_N_TYPES] = t->b.len;
    tlog_header_end(t);
}

/* The first 3 bytes of a real log. */
START_TEST(test_bad_three_bytes)
{
    tlog t;
    tlog_init(&t);
    size_t rec[BAD_N_TYPES + 1];
    bad_small_header(&t, rec);
    char *path = bad_write("three.eventlog", t.b.data, 3);
    bad_run r;
    ck_assert_uint_eq(bad_expect_open_error(path, true, &r), 0);
    bad_run_free(&r);
    x_free(path);
    tlog_free(&t);
}
END_TEST

/* Cut the header at many places; the offset reported must lie between the start of
 * the header item the cut falls into and the end of the file. */
START_TEST(test_bad_header_truncated)
{
    tlog t;
    tlog_init(&t);
    size_t rec[BAD_N_TYPES + 1];
    bad_small_header(&t, rec);
    size_t hdr = t.b.len;               /* header incl. DATA_BEGIN */
    size_t het_end = rec[BAD_N_TYPES];  /* HET_END, then HEADER_END at +4, DATA_BEGIN at +8 */
    const struct { const char *what; size_t len, lo; } cuts[] = {
        { "inside hdrb", 2, 0 },
        { "after hdrb", 4, 4 },
        { "inside hetb", 6, 4 },
        { "right after hetb", 8, 8 },
        { "inside an ET_BEGIN marker", rec[2] + 2, rec[2] },
        { "between two event types", rec[3], rec[3] },
        { "inside an id/size field", rec[1] + 5, rec[1] },
        { "inside a description", rec[1] + 12 + 4, rec[1] },
        { "right after a description", rec[2] + 12 + strlen("Stop thread"), rec[2] },
        { "inside an ET_END marker", rec[4] - 2, rec[3] },
        { "inside HET_END", het_end + 3, het_end },
        { "before HEADER_END", het_end + 4, het_end + 4 },
        { "before DATA_BEGIN", hdr - 4, het_end + 4 },
        { "inside DATA_BEGIN", hdr - 1, hdr - 4 },
    };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        ck_assert(cuts[i].len < hdr);
        char name[64];
        snprintf(name, sizeof name, "cut-header-%zu.eventlog", i);
        char *path = bad_write(name, t.b.data, cuts[i].len);
        bad_run r;
        uint64_t n = bad_expect_open_error(path, true, &r);
        ck_assert_msg(n >= cuts[i].lo && n <= cuts[i].len,
                      "header cut %s (%zu bytes): error at byte %" PRIu64 ", expected within "
                      "[%zu, %zu]: %s", cuts[i].what, cuts[i].len, n, cuts[i].lo, cuts[i].len,
                      r.err);
        bad_run_free(&r);
        x_free(path);
    }

    /* A real GHC log cut inside its 56-entry event-type list. */
    char *cdir = test_corpus_dir();
    if (cdir) {
        strbuf lp;
        strbuf_init(&lp);
        strbuf_printf(&lp, "%s/hello-ghc-8.6.5.eventlog", cdir);
        size_t len = 0;
        uint8_t *log = test_read_file(lp.data, &len);
        ck_assert(log != NULL && len > 1000);
        char *path = bad_write("hello-cut-1000.eventlog", log, 1000);
        bad_run r;
        uint64_t n = bad_expect_open_error(path, true, &r);
        ck_assert_msg(n >= 8 && n <= 1000, "hello cut at 1000: error at byte %" PRIu64, n);
        bad_run_free(&r);
        x_free(path);
        x_free(log);
        strbuf_free(&lp);
        x_free(cdir);
    }
    tlog_free(&t);
}
END_TEST

/* Garbage where a header marker should be: the offset is exactly where it starts. */
START_TEST(test_bad_header_garbage)
{
    static const uint8_t junk[64] = {
        0xde, 0xad, 0xbe, 0xef, 'g', 'a', 'r', 'b', 'a', 'g', 'e', 0, 0xff, 0xff, 0x12, 0x34,
    };
    tlog full;
    tlog_init(&full);
    size_t rec[BAD_N_TYPES + 1];
    bad_small_header(&full, rec);
    size_t het_end = rec[BAD_N_TYPES];
    const struct { const char *what; size_t keep; } cases[] = {
        { "after hdrb", 4 },
        { "after hetb", 8 },
        { "instead of the 3rd event type", rec[2] },
        { "instead of HET_END", het_end },
        { "instead of HEADER_END", het_end + 4 },
        { "instead of DATA_BEGIN", het_end + 8 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tlog t;
        tlog_init(&t);
        tlog_bytes(&t, full.b.data, cases[i].keep);
        tlog_bytes(&t, junk, sizeof junk);
        char name[64];
        snprintf(name, sizeof name, "garbage-%zu.eventlog", i);
        char *path = bad_write(name, t.b.data, t.b.len);
        bad_run r;
        uint64_t n = bad_expect_open_error(path, true, &r);
        ck_assert_msg(n == cases[i].keep, "garbage %s: error at byte %" PRIu64 ", expected %zu: %s",
                      cases[i].what, n, cases[i].keep, r.err);
        bad_run_free(&r);
        x_free(path);
        tlog_free(&t);
    }
    tlog_free(&full);
}
END_TEST

/* A log with `n` CREATE_THREAD events at times 1000, 2000, ...; offsets of each event
 * go to ev_at (n entries). No DATA_END. */
static void
bad_events(tlog *t, size_t n, size_t *ev_at)
{
    for (size_t i = 0; i < n; i++) {
        ev_at[i] = t->b.len;
        tlog_event(t, EV_CREATE_THREAD, 1000 * (i + 1));
        tlog_u32(t, (uint32_t)(i + 1));
    }
}

/* `show` of bytes in memory (the expected stdout). Caller frees. */
static char *
bad_expected_show(const uint8_t *data, size_t len, size_t *out_len)
{
    int ending = -1;
    char *s = test_show_bytes(data, len, out_len, &ending);
    ck_assert(s != NULL);
    ck_assert_int_eq(ending, DIAG_OK);
    return s;
}

/* Data cut short: exit 0, every complete event on stdout, one warning line. */
START_TEST(test_bad_truncated_data)
{
    size_t rec[BAD_N_TYPES + 1], ev_at[8];

    /* Reference: the 6 complete events and a proper end marker. */
    tlog ok;
    tlog_init(&ok);
    bad_small_header(&ok, rec);
    bad_events(&ok, 6, ev_at);
    tlog_end(&ok);
    size_t want_len = 0;
    char *want = bad_expected_show((const uint8_t *)ok.b.data, ok.b.len, &want_len);
    ck_assert_msg(strstr(want, "6000: creating thread 6\n") != NULL, "%s", want);

    /* 6 events, then a 7th cut at every byte of its 14, and no DATA_END at all. */
    tlog t;
    tlog_init(&t);
    bad_small_header(&t, rec);
    bad_events(&t, 7, ev_at);
    for (size_t cut = 0; cut < 14; cut++) {
        size_t len = ev_at[6] + cut;
        char name[64];
        snprintf(name, sizeof name, "cut-data-%zu.eventlog", cut);
        char *path = bad_write(name, t.b.data, len);
        bad_run r;
        bad_exec(path, &r);
        ck_assert_msg(bad_exit_code(&r) == 0, "%s: exit %d, expected 0; stderr: %s", path,
                      bad_exit_code(&r), r.err);
        ck_assert_msg(r.out_len == want_len && memcmp(r.out, want, want_len) == 0,
                      "cut %zu bytes into an event: stdout is not the 6 complete events:\n%s", cut,
                      r.out);
        uint64_t n = bad_report_line(&r, "warning: ", path, true);
        /* The partial event starts at ev_at[6]; when nothing of it is there, the data
         * simply stops at the end of the file, which is the same offset. */
        ck_assert_msg(n == ev_at[6], "cut %zu: warning at byte %" PRIu64 ", expected %zu: %s", cut,
                      n, ev_at[6], r.err);
        bad_run_free(&r);
        x_free(path);
    }

    /* The upstream corpus's testlog-part: testlog.eventlog cut at 10240 bytes. */
    char *cdir = test_corpus_dir();
    if (cdir) {
        strbuf lp, rp;
        strbuf_init(&lp);
        strbuf_init(&rp);
        strbuf_printf(&lp, "%s/testlog-part.eventlog", cdir);
        strbuf_printf(&rp, "%s/extra-references/ghc-events-head/testlog-part.eventlog.ref", cdir);
        size_t ref_len = 0;
        uint8_t *ref = test_read_file(rp.data, &ref_len);
        ck_assert(ref != NULL);
        bad_run r;
        bad_exec(lp.data, &r);
        ck_assert_msg(bad_exit_code(&r) == 0, "testlog-part: exit %d; stderr: %s",
                      bad_exit_code(&r), r.err);
        ck_assert_msg(r.out_len == ref_len && memcmp(r.out, ref, ref_len) == 0,
                      "testlog-part: stdout differs from the ghc-events reference");
        uint64_t n = bad_report_line(&r, "warning: ", lp.data, true);
        ck_assert_msg(n > 10240 - 200 && n <= 10240, "testlog-part: warning at byte %" PRIu64, n);
        bad_run_free(&r);
        x_free(ref);
        strbuf_free(&lp);
        strbuf_free(&rp);
        x_free(cdir);
    }
    x_free(want);
    tlog_free(&t);
    tlog_free(&ok);
}
END_TEST

/* An event of a type the header does not declare: what precedes it is listed, then
 * one error line with its offset, exit 1. */
START_TEST(test_bad_undeclared_type)
{
    size_t rec[BAD_N_TYPES + 1], ev_at[8];
    tlog ok;
    tlog_init(&ok);
    bad_small_header(&ok, rec);
    bad_events(&ok, 3, ev_at);
    tlog_end(&ok);
    size_t want_len = 0;
    char *want = bad_expected_show((const uint8_t *)ok.b.data, ok.b.len, &want_len);

    tlog t;
    tlog_init(&t);
    bad_small_header(&t, rec);
    bad_events(&t, 3, ev_at);
    size_t bad_at = t.b.len;
    tlog_event(&t, 999, 3500);          /* undeclared; sorts before the events after it */
    tlog_u32(&t, 0);
    tlog_event(&t, EV_CREATE_THREAD, 3600);
    tlog_u32(&t, 4);
    tlog_end(&t);
    char *path = bad_write("undeclared.eventlog", t.b.data, t.b.len);
    bad_run r;
    bad_exec(path, &r);
    ck_assert_msg(bad_exit_code(&r) == 1, "exit %d, expected 1; stderr: %s", bad_exit_code(&r),
                  r.err);
    ck_assert_msg(r.out_len == want_len && memcmp(r.out, want, want_len) == 0,
                  "stdout should list exactly the 3 events before the bad one:\n%s", r.out);
    uint64_t n = bad_report_line(&r, "", path, true);
    ck_assert_msg(n == bad_at, "error at byte %" PRIu64 ", expected %zu: %s", n, bad_at, r.err);
    ck_assert_msg(strstr(r.err, "999") != NULL, "message should name type 999: %s", r.err);
    bad_run_free(&r);
    x_free(path);
    x_free(want);
    tlog_free(&t);
    tlog_free(&ok);
}
END_TEST

Suite *
test_badinput_suite(void)
{
    Suite *s = suite_create("badinput");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_unchecked_fixture(tc, bad_setup, bad_teardown);
    tcase_add_test(tc, test_bad_empty);
    tcase_add_test(tc, test_bad_directory);
    tcase_add_test(tc, test_bad_missing);
    tcase_add_test(tc, test_bad_unreadable);
    tcase_add_test(tc, test_bad_magic);
    tcase_add_test(tc, test_bad_three_bytes);
    tcase_add_test(tc, test_bad_header_truncated);
    tcase_add_test(tc, test_bad_header_garbage);
    tcase_add_test(tc, test_bad_truncated_data);
    tcase_add_test(tc, test_bad_undeclared_type);
    suite_add_tcase(s, tc);
    return s;
}
