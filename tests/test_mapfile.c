/* tests/test_mapfile: a log file that changes while it is mapped — truncated under a
 * reader (SIGBUS on the lost pages, caught by mapfile.c), truncated after indexing,
 * grown, rewritten, replaced — read through show, the index, the reports and the
 * headless viewer: no crash, and the change is reported. Plus the viewer end to end
 * (tests/e2e/changing.sh). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "evindex.h"
#include "evlog.h"
#include "mapfile.h"
#include "reports.h"
#include "show.h"
#include "surface.h"
#include "tests.h"
#include "xalloc.h"

/* A private copy of a fixture in a scratch directory. */
typedef struct mf_tmp {
    char dir[256];
    char path[300];
    size_t size;                /* of the copy as written */
} mf_tmp;

static void
mf_copy(mf_tmp *t, const char *fixture)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(t->dir, sizeof t->dir, "%s/elog-mapfile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_msg(mkdtemp(t->dir) != NULL, "mkdtemp: %s", strerror(errno));
    snprintf(t->path, sizeof t->path, "%s/log.eventlog", t->dir);
    strbuf rel;
    strbuf_init(&rel);
    strbuf_printf(&rel, "fixtures/%s", fixture);
    char *src = test_path(rel.data);
    uint8_t *data = test_read_file(src, &t->size);
    ck_assert_msg(data != NULL, "cannot read %s", src);
    FILE *f = fopen(t->path, "wb");
    ck_assert(f && fwrite(data, 1, t->size, f) == t->size && fclose(f) == 0);
    x_free(data);
    x_free(src);
    strbuf_free(&rel);
}

static void
mf_remove(mf_tmp *t)
{
    char other[320];
    snprintf(other, sizeof other, "%s/other", t->dir);
    unlink(other);
    unlink(t->path);
    rmdir(t->dir);
}

static void
mf_truncate(const mf_tmp *t, size_t size)
{
    ck_assert_msg(truncate(t->path, (off_t)size) == 0, "truncate: %s", strerror(errno));
}

/* `show` into memory; returns the number of events listed. */
static size_t
mf_show(const evlog *log)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ck_assert(f != NULL);
    diag ending;
    show_stats st;
    ck_assert(show_write(log, f, &ending, &st));
    fclose(f);
    free(text);
    return st.n_events;
}

/* The reports and the viewer, headless, through keys that read events from the
 * mapping (event pane, lists, search); returns the header line of the last frame
 * (caller frees). */
static char *
mf_view(const evindex *ix)
{
    strbuf sb;
    strbuf_init(&sb);
    reports_opts o = { .json = true, .messages = true };
    reports_gc(&sb, ix, &o);
    reports_markers(&sb, ix, &o);
    reports_threads(&sb, ix, &o);
    strbuf_free(&sb);
    static const char *const keys[] = {
        "]", "p", "Enter", "n", "e", "Down", "PageDown", "End", "Enter", "Escape", "m",
        "Enter", "t", "End", "Enter", "/", "a", "Enter", "End", "e", "?", "Escape",
    };
    app_opts ao = { .ascii = false };
    app *a = app_new(ix, "log.eventlog", 100, 30, &ao);
    app_poll_disk(a);
    surface *s = surface_new(100, 30);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        app_key(a, keys[i]);
        app_draw(a, s);
    }
    char *dump = surface_dump(s);
    char *nl = strchr(dump, '\n');
    if (nl)
        *nl = '\0';
    surface_free(s);
    app_free(a);
    return dump;
}

/* Truncated to half under an open mapping, before anything read the data: show and
 * the index stop where the data went, nothing crashes, and the loss is reported at or
 * below the new size. */
START_TEST(test_mapfile_truncated_before_reading)
{
    mf_tmp t;
    mf_copy(&t, "threaded-n4.eventlog");
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(t.path, &d);
    ck_assert_msg(log != NULL, "%s", d.msg);
    uint64_t off = 0;
    ck_assert(!evlog_changed(log, &off));
    ck_assert(!evlog_stale(log));
    size_t half = t.size / 2;
    mf_truncate(&t, half);

    size_t n_shown = mf_show(log);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ck_assert(ix != NULL);
    char why[512];
    ck_assert_msg(evindex_check(ix, why, sizeof why), "evindex_check: %s", why);
    ck_assert(evlog_changed(log, &off));
    ck_assert_msg(off <= half, "loss reported at byte %llu, the file now has %zu",
                  (unsigned long long)off, half);
    ck_assert(evlog_stale(log));
    /* What was read is the first half's events, not the whole log's. */
    ck_assert_uint_gt(n_shown, 100);
    ck_assert_uint_lt(evindex_n_events(ix), t.size / 2 / 10 + 1000);
    char *header = mf_view(ix);
    ck_assert_msg(strstr(header, "file changed on disk at byte") != NULL, "header: %s", header);
    x_free(header);
    evindex_free(ix);
    evlog_close(log);
    mf_remove(&t);
}
END_TEST

/* `show` into memory: the listing (caller frees) and *ending. */
static char *
mf_show_text(const evlog *log, size_t *len, diag *ending)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    ck_assert(f != NULL);
    ck_assert(show_write(log, f, ending, NULL));
    fclose(f);
    return text;
}

/* `bytes` (the first `cut` of them) in dir/name; returns the path (caller frees). */
static char *
mf_write_head(const mf_tmp *t, const char *name, const uint8_t *bytes, size_t cut)
{
    char *path = xmalloc(strlen(t->dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", t->dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert(f && fwrite(bytes, 1, cut, f) == cut && fclose(f) == 0);
    return path;
}

/* The index of `log` (threads as evindex_opts) and of a copy of its file's first `cut`
 * bytes made beforehand (`head -c cut`) are the same, and so are show's listings and
 * how the data ended: nothing of what vanished is kept. */
static void
mf_same_as_head(const mf_tmp *t, const char *name, evlog *log, evindex *ix, diag *ending,
                const uint8_t *orig, size_t cut)
{
    char why[512];
    ck_assert_msg(evindex_check(ix, why, sizeof why), "%s: evindex_check: %s", name, why);
    char *hpath = mf_write_head(t, "head.eventlog", orig, cut);
    diag d;
    evlog *hlog = evlog_open(hpath, &d);
    ck_assert_msg(hlog != NULL, "%s: %s", name, d.msg);
    evindex_opts serial = { .threads = 1 };
    diag hending;
    evindex *hix = evindex_build(hlog, &serial, &hending);
    test_evindex_same(name, hix, ix);
    ck_assert_msg(ending->code == hending.code && ending->offset == hending.offset,
                  "%s: ended with %d at %llu (%s), the cut copy with %d at %llu (%s)", name,
                  ending->code, (unsigned long long)ending->offset, ending->msg, hending.code,
                  (unsigned long long)hending.offset, hending.msg);
    size_t n1, n2;
    diag e1, e2;
    char *s1 = mf_show_text(log, &n1, &e1), *s2 = mf_show_text(hlog, &n2, &e2);
    ck_assert_msg(n1 == n2 && memcmp(s1, s2, n1) == 0 && e1.code == e2.code &&
                  e1.offset == e2.offset, "%s: show lists %zu bytes, of the cut copy %zu",
                  name, n1, n2);
    free(s1);
    free(s2);
    evindex_free(hix);
    evlog_close(hlog);
    unlink(hpath);
    x_free(hpath);
}

/* Cut under the mapping at page boundaries and inside events, then indexed (serially
 * and in parallel) and listed: exactly what the same cut made beforehand gives. The
 * lost pages read as zeros to the end of the page (bogus events at time 0) and then as
 * the end marker (a clean end), so without the re-read up to the cut the index would
 * hold a 2^40-ns span or an extra GC, and say the data ended cleanly. */
START_TEST(test_mapfile_cut_like_head)
{
    mf_tmp t;
    mf_copy(&t, "threaded-n4.eventlog");
    size_t len;
    uint8_t *orig = test_read_file(t.path, &len);
    ck_assert(orig && len == t.size);
    const size_t cuts[] = { 16384, t.size / 2 + 3, 3 * 4096 * (t.size / 4096 / 4), t.size - 7 };
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            FILE *f = fopen(t.path, "wb");      /* the whole log again, same inode */
            ck_assert(f && fwrite(orig, 1, len, f) == len && fclose(f) == 0);
            diag d;
            evlog *log = evlog_open(t.path, &d);
            ck_assert_msg(log != NULL, "%s", d.msg);
            mf_truncate(&t, cuts[c]);
            evindex_opts o = { .threads = threads };
            diag ending;
            evindex *ix = evindex_build(log, &o, &ending);
            ck_assert(ix != NULL);
            char name[64];
            snprintf(name, sizeof name, "cut at %zu, %u threads", cuts[c], threads);
            mf_same_as_head(&t, name, log, ix, &ending, orig, cuts[c]);
            evindex_free(ix);
            evlog_close(log);
        }
    }
    x_free(orig);
    mf_remove(&t);
}
END_TEST

/* A thread that truncates the log while the index builds. */
typedef struct mf_cutter {
    const char *path;
    _Atomic uint64_t progress;  /* the build's, read here */
    uint64_t at, cut;           /* truncate to `cut` once progress passes `at` */
    pthread_mutex_t lock;
    bool build_done;            /* under lock: too late to cut during the build */
    bool cut_done;              /* under lock: truncated while the build ran */
    uint64_t progress_then;
} mf_cutter;

static void *
mf_cutter_main(void *arg)
{
    mf_cutter *c = arg;
    struct timespec pause = { 0, 100000 };
    for (;;) {
        pthread_mutex_lock(&c->lock);
        bool done = c->build_done;
        if (!done && atomic_load(&c->progress) >= c->at) {
            c->progress_then = atomic_load(&c->progress);
            c->cut_done = truncate(c->path, (off_t)c->cut) == 0;
            done = true;
        }
        pthread_mutex_unlock(&c->lock);
        if (done)
            return NULL;
        nanosleep(&pause, NULL);
    }
}

/* A big log cut by another thread while the index is being built — in parallel (as the
 * viewer builds it on a multi-core machine) before the walk reaches the cut, serially
 * before and after it: whatever had been read by then, the index is the one of the
 * same cut made beforehand. */
START_TEST(test_mapfile_cut_during_build)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    mf_tmp t;
    mf_copy(&t, "markers.eventlog");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --caps 4 --size 24M --seed 3 -o '%s' 2>/dev/null", synth,
             t.path);
    ck_assert_msg(system(cmd) == 0, "elog-synth failed");
    size_t len;
    uint8_t *orig = test_read_file(t.path, &len);
    ck_assert(orig != NULL && len > (20u << 20));
    const struct { unsigned threads; uint64_t at; } rounds[] = {
        { 0, len / 4 }, { 1, len / 2 }, { 1, len / 5 * 4 },
    };
    int n_cut = 0;
    for (size_t r = 0; r < sizeof rounds / sizeof rounds[0]; r++) {
        FILE *f = fopen(t.path, "wb");
        ck_assert(f && fwrite(orig, 1, len, f) == len && fclose(f) == 0);
        diag d;
        evlog *log = evlog_open(t.path, &d);
        ck_assert_msg(log != NULL, "%s", d.msg);
        mf_cutter c = { .path = t.path, .at = rounds[r].at, .cut = len / 5 * 3 + 5 };
        atomic_init(&c.progress, 0);
        pthread_mutex_init(&c.lock, NULL);
        pthread_t th;
        ck_assert_int_eq(pthread_create(&th, NULL, mf_cutter_main, &c), 0);
        evindex_opts o = { .progress_bytes = &c.progress, .threads = rounds[r].threads };
        diag ending;
        evindex *ix = evindex_build(log, &o, &ending);
        pthread_mutex_lock(&c.lock);
        c.build_done = true;
        pthread_mutex_unlock(&c.lock);
        pthread_join(th, NULL);
        pthread_mutex_destroy(&c.lock);
        if (c.cut_done) {       /* else the build was quicker than the cutter: no test */
            n_cut++;
            uint64_t off;
            ck_assert(evlog_changed(log, &off) && off == c.cut);
            char name[96];
            snprintf(name, sizeof name, "cut at %llu after %llu bytes were read",
                     (unsigned long long)c.cut, (unsigned long long)c.progress_then);
            mf_same_as_head(&t, name, log, ix, &ending, orig, c.cut);
        }
        evindex_free(ix);
        evlog_close(log);
    }
    ck_assert_msg(n_cut > 0, "every build ended before the file could be cut");
    x_free(orig);
    mf_remove(&t);
}
END_TEST

/* Indexed whole, then cut to a third and to nothing: the viewer reads events lazily
 * from the mapping (event pane, details, search) and must survive the lost pages. */
START_TEST(test_mapfile_truncated_after_indexing)
{
    mf_tmp t;
    mf_copy(&t, "threaded-n4.eventlog");
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(t.path, &d);
    ck_assert_msg(log != NULL, "%s", d.msg);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ck_assert_int_eq(ending.code, DIAG_OK);
    size_t n_events = evindex_n_events(ix);
    mf_truncate(&t, t.size / 3);
    char *header = mf_view(ix);
    ck_assert_msg(strstr(header, "file changed on disk at byte") != NULL, "header: %s", header);
    x_free(header);
    mf_truncate(&t, 0);
    header = mf_view(ix);
    x_free(header);
    mf_show(log);
    uint64_t off = 1;
    ck_assert(evlog_changed(log, &off));
    ck_assert_uint_eq(off, 0);
    ck_assert_uint_eq(evindex_n_events(ix), n_events);
    evindex_free(ix);
    evlog_close(log);
    mf_remove(&t);
}
END_TEST

/* Grown, rewritten in place (same size, new mtime), replaced by a rename, deleted: no
 * bytes lost, but the file on disk is not what is shown. */
START_TEST(test_mapfile_stale)
{
    mf_tmp t;
    mf_copy(&t, "markers.eventlog");
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(t.path, &d);
    ck_assert_msg(log != NULL, "%s", d.msg);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    app_opts ao = { .ascii = true };
    app *a = app_new(ix, t.path, 120, 30, &ao);
    ck_assert(!app_poll_disk(a));
    ck_assert_str_eq(app_disk_warning(a), "");

    /* Grown: a program still writing its log. */
    FILE *f = fopen(t.path, "ab");
    ck_assert(f && fwrite("\0\0\0\0", 1, 4, f) == 4 && fclose(f) == 0);
    ck_assert(evlog_stale(log));
    ck_assert(!evlog_changed(log, NULL));
    ck_assert(app_poll_disk(a));
    ck_assert_str_eq(app_disk_warning(a), "file changed on disk: showing what was indexed");
    ck_assert(!app_poll_disk(a));   /* unchanged since: no redraw needed */
    surface *s = surface_new(120, 30);
    app_draw(a, s);
    char *dump = surface_dump(s);
    ck_assert_msg(strstr(dump, "file changed on disk") != NULL, "no warning in:\n%s", dump);
    x_free(dump);

    /* Replaced by a rename: the mapping keeps the old file's bytes. */
    app_free(a);
    evindex_free(ix);
    evlog_close(log);
    log = evlog_open(t.path, &d);
    ck_assert(log != NULL);
    ck_assert(!evlog_stale(log));
    char other[320];
    snprintf(other, sizeof other, "%s/other", t.dir);
    f = fopen(other, "wb");
    ck_assert(f && fclose(f) == 0);
    ck_assert_int_eq(rename(other, t.path), 0);
    ck_assert(evlog_stale(log));
    ck_assert(!evlog_changed(log, NULL));
    ck_assert_uint_gt(mf_show(log), 100);
    unlink(t.path);
    ck_assert(evlog_stale(log));
    evlog_close(log);
    mf_remove(&t);

    /* Rewritten in place with the same size: only the mtime tells. */
    mf_copy(&t, "markers.eventlog");
    log = evlog_open(t.path, &d);
    ck_assert(log != NULL);
    struct timespec times[2] = { { 0, UTIME_OMIT }, { 12345, 0 } };
    ck_assert_int_eq(utimensat(AT_FDCWD, t.path, times, 0), 0);
    ck_assert(evlog_stale(log));
    evlog_close(log);
    surface_free(s);
    mf_remove(&t);
}
END_TEST

/* Rewritten in place under the mapping (no SIGBUS: same size): where a marker was
 * indexed another event now starts. Its text must not be taken from that event. */
START_TEST(test_mapfile_rewritten_in_place)
{
    mf_tmp t;
    mf_copy(&t, "markers.eventlog");
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(t.path, &d);
    ck_assert_msg(log != NULL, "%s", d.msg);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ck_assert_uint_gt(evindex_n_markers(ix), 0);
    const evindex_msg m_v = evindex_marker_at(ix, 0), *m = &m_v;
    const uint8_t *text = NULL;
    size_t len = 0;
    ck_assert(evindex_msg_text(ix, m, &text, &len));
    /* A CREATE_THREAD (type 0, all zeros) where the marker was. */
    int fd = open(t.path, O_WRONLY);
    uint8_t zeros[16] = { 0 };
    ck_assert(fd >= 0 && pwrite(fd, zeros, sizeof zeros, (off_t)m->offset) == sizeof zeros);
    close(fd);
    ck_assert(evlog_event_at(log, m->offset, 0, &(evlog_event){ 0 }));
    text = NULL;
    len = 12345;
    bool got = evindex_msg_text(ix, m, &text, &len);
    ck_assert_msg(!got || len == 0 || (text >= evlog_bytes(log) &&
                                       text + len <= evlog_bytes(log) + evlog_size(log)),
                  "a text slice outside the mapping");
    char *header = mf_view(ix);
    x_free(header);
    ck_assert(evlog_stale(log));
    evindex_free(ix);
    evlog_close(log);
    mf_remove(&t);
}
END_TEST

/* SIGBUS on a mapping elog-tui did not make is not swallowed: the process dies of it
 * as it would without the handler. */
START_TEST(test_mapfile_foreign_sigbus)
{
    mf_tmp t;
    mf_copy(&t, "markers.eventlog");
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(t.path, &d);     /* installs the handler */
    ck_assert(log != NULL);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, STDERR_FILENO);      /* a sanitizer's report of the fault */
        int fd = open(t.path, O_RDWR);
        volatile const uint8_t *p = mmap(NULL, t.size, PROT_READ, MAP_SHARED, fd, 0);
        if (fd < 0 || p == MAP_FAILED || ftruncate(fd, 0) != 0)
            _exit(3);
        uint8_t b = p[t.size - 1];
        _exit(b == 0 ? 0 : 2);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
#if defined(__SANITIZE_ADDRESS__)
    /* The fault goes on to ASan's handler, which reports it and exits 1. */
    ck_assert_msg((WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS) ||
                  (WIFEXITED(status) && WEXITSTATUS(status) == 1),
                  "the child should die of SIGBUS (status 0x%x)", status);
#else
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS,
                  "the child should die of SIGBUS (status 0x%x)", status);
#endif
    evlog_close(log);
    mf_remove(&t);
}
END_TEST

/* The real binary: `show` of a big log into a pipe we do not read stalls once the pipe
 * is full, after its first pass over the file; the file is cut to a quarter then, and
 * the rest of the listing reads lost pages. It must finish, warn on one line with the
 * offset of the loss, and exit 1. */
START_TEST(test_mapfile_show_binary)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    mf_tmp t;
    mf_copy(&t, "killed.eventlog");
    char errp[320];
    snprintf(errp, sizeof errp, "%s/stderr", t.dir);
    int efd = open(errp, O_RDWR | O_CREAT | O_TRUNC, 0600);
    int pfd[2];
    ck_assert(efd >= 0 && pipe(pfd) == 0);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        dup2(pfd[1], STDOUT_FILENO);
        dup2(efd, STDERR_FILENO);
        close(pfd[0]);
        alarm(60);
        execl(bin, bin, "show", t.path, (char *)NULL);
        _exit(127);
    }
    close(pfd[1]);
    char buf[65536];
    ssize_t n = read(pfd[0], buf, sizeof buf);
    ck_assert_int_gt(n, 0);
    size_t quarter = t.size / 4;
    mf_truncate(&t, quarter);
    size_t total = (size_t)n;
    while ((n = read(pfd[0], buf, sizeof buf)) > 0)
        total += (size_t)n;
    close(pfd[0]);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char err[4096];
    n = pread(efd, err, sizeof err - 1, 0);
    close(efd);
    err[n > 0 ? n : 0] = '\0';
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1,
                  "elog-tui show: status 0x%x, stderr: %s", status, err);
    char want[400];
    snprintf(want, sizeof want, "elog-tui: warning: %s changed while being read (data from "
             "byte ", t.path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strchr(err, '\n') ==
                  err + strlen(err) - 1, "stderr: %s", err);
    unsigned long long off = strtoull(err + strlen(want), NULL, 10);
    ck_assert_msg(off <= quarter, "loss reported at byte %llu, the file has %zu", off, quarter);
    ck_assert_uint_gt(total, 1u << 20);
    unlink(errp);
    mf_remove(&t);
}
END_TEST

/* The viewer in tmux while its file is truncated and then grown. */
START_TEST(test_mapfile_e2e_changing)
{
    test_e2e_script("changing", "");
}
END_TEST

Suite *
test_mapfile_suite(void)
{
    Suite *s = suite_create("mapfile");
    TCase *tc = tcase_create("changing");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_mapfile_truncated_before_reading);
    tcase_add_test(tc, test_mapfile_truncated_after_indexing);
    tcase_add_test(tc, test_mapfile_cut_like_head);
    tcase_add_test(tc, test_mapfile_cut_during_build);
    tcase_add_test(tc, test_mapfile_stale);
    tcase_add_test(tc, test_mapfile_rewritten_in_place);
    tcase_add_test(tc, test_mapfile_foreign_sigbus);
    tcase_add_test(tc, test_mapfile_show_binary);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("e2e");
    tcase_set_tags(te, "e2e");      /* CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(te, 120);
    tcase_add_test(te, test_mapfile_e2e_changing);
    suite_add_tcase(s, te);
    return s;
}
