/* tests/test_live: live sources. The growing mapping keeps its address and shows bytes
 * as they are written; livemerge over a log written a random piece at a time places
 * exactly merge's order of the whole file (fixtures and GHC-shaped synthetic logs),
 * places events before the end when every writer flushes, and never places an event
 * before its writers have passed it; livesrc copies a FIFO and Unix and TCP sockets
 * byte for byte, waits for a socket to come up with --wait, and says why it could not
 * connect without; end to end (tests/e2e/live.sh) the commands over every source equal
 * them over the file. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../ui/app_int.h"
#include "applive.h"
#include "evindex.h"
#include "evlog.h"
#include "livelog.h"
#include "livemerge.h"
#include "livesrc.h"
#include "mapfile.h"
#include "merge.h"
#include "lanes.h"
#include "tests.h"
#include "xalloc.h"

static uint64_t
lt_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* --- the growing mapping -------------------------------------------------------------- */

START_TEST(test_live_mapfile_grows)
{
    int fd = test_unlinked_tempfile();
    uint8_t buf[10000];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 7 + 3);
    test_write_all(fd, buf, 100);
    diag d;
    mapfile *m = mapfile_open_growing(fd, 100, (size_t)1 << 30, &d);
    ck_assert(m != NULL);
    const uint8_t *base = mapfile_data(m);
    ck_assert_mem_eq(base, buf, 100);
    /* Across page ends, a byte at a time and in big steps: same address, same bytes. */
    size_t have = 100;
    uint64_t s = 5;
    while (have < sizeof buf) {
        size_t n = 1 + (size_t)(lt_rand(&s) % 3000);
        if (n > sizeof buf - have)
            n = sizeof buf - have;
        test_write_all(fd, buf + have, n);
        have += n;
        ck_assert(mapfile_grow(m, have, &d));
        ck_assert_ptr_eq(mapfile_data(m), base);
        ck_assert_uint_eq(mapfile_size(m), have);
        ck_assert_mem_eq(mapfile_data(m), buf, have);
    }
    ck_assert(!mapfile_changed(m, NULL));
    ck_assert(!mapfile_stale(m));
    /* Past the reservation: refused, and the mapping is as it was. */
    mapfile *small = mapfile_open_growing(fd, 10, 1, &d);
    ck_assert(small != NULL);
    ck_assert(!mapfile_grow(small, (size_t)64 << 20, &d));
    ck_assert_int_eq(d.code, DIAG_IO);
    ck_assert_uint_eq(mapfile_size(small), 10);
    mapfile_close(small);
    mapfile_close(m);
    close(fd);
}
END_TEST

/* --- livemerge ------------------------------------------------------------------------ */

/* Merge's order of the whole of `data`: offsets, caller frees. */
static uint64_t *
lt_merge_order(const uint8_t *data, size_t len, size_t *n, diag *ending)
{
    diag d;
    evlog *log = evlog_open_bytes(data, len, &d);
    ck_assert(log != NULL);
    merge *m = merge_new(log, ending);
    size_t cap = 0;
    uint64_t *off = NULL;
    *n = 0;
    evlog_event ev;
    while (merge_next(m, &ev)) {
        xgrowarray((void **)&off, &cap, *n + 1, 1024, sizeof *off);
        off[(*n)++] = ev.offset;
    }
    merge_free(m);
    evlog_close(log);
    return off;
}

typedef struct lt_live_result {
    size_t n_before_end;        /* events placed before the last byte came */
    size_t first_placed_at;     /* bytes written when the first event was placed */
    size_t n_late;
} lt_live_result;

/* Write `data` into a file a random piece at a time (pieces of 1..max_piece bytes),
 * growing a log over it and placing what livemerge allows after each piece; the order
 * placed must be merge's of the whole, and each event placed while bytes were still to
 * come must be at or before the slowest writer's newest time less the slack. */
static void
lt_live_vs_merge(const char *name, const uint8_t *data, size_t len, uint64_t seed,
                 size_t max_piece, size_t max_pending, lt_live_result *res)
{
    size_t n_ref;
    diag ref_end;
    uint64_t *ref = lt_merge_order(data, len, &n_ref, &ref_end);
    int fd = test_unlinked_tempfile();
    uint64_t s = seed | 1;
    size_t have = 0, n_out = 0;
    evlog *log = NULL;
    livemerge *m = NULL;
    memset(res, 0, sizeof *res);
    while (have < len || n_out < n_ref) {
        size_t piece = 1 + (size_t)(lt_rand(&s) % max_piece);
        if (piece > len - have)
            piece = len - have;
        test_write_all(fd, data + have, piece);
        have += piece;
        bool final = have == len;
        diag d;
        if (!log) {
            bool short_header;
            log = evlog_open_growing(fd, have, (size_t)1 << 30, &d, &short_header);
            if (!log) {
                ck_assert_msg(short_header && !final, "%s: header at %zu: %s", name, have,
                              d.msg);
                continue;
            }
            m = livemerge_new(log, max_pending);
        } else {
            ck_assert(evlog_grow(log, have, &d));
        }
        livemerge_feed(m);
        evlog_event ev;
        while (livemerge_next(m, final, &ev)) {
            ck_assert_msg(n_out < n_ref, "%s: more events than the file has", name);
            ck_assert_msg(ev.offset == ref[n_out], "%s: event %zu placed is at byte %llu, "
                          "merge has byte %llu", name, n_out, (unsigned long long)ev.offset,
                          (unsigned long long)ref[n_out]);
            if (n_out == 0)
                res->first_placed_at = have;
            if (!final) {
                ck_assert_uint_le(ev.time_ns, livemerge_placed_ns(m));
                res->n_before_end++;
            }
            n_out++;
        }
        if (final)
            break;
    }
    ck_assert_msg(n_out == n_ref, "%s: %zu events placed, merge has %zu", name, n_out, n_ref);
    diag ending;
    livemerge_ending(m, &ending);
    ck_assert_int_eq(ending.code, ref_end.code);
    ck_assert_uint_eq(ending.offset, ref_end.offset);
    res->n_late = livemerge_n_late(m);
    livemerge_free(m);
    evlog_close(log);
    close(fd);
    x_free(ref);
}

START_TEST(test_live_merge_fixtures)
{
    static const char *const logs[] = {
        "fixtures/threaded-n4.eventlog", "fixtures/demo.eventlog",
        "fixtures/killed.eventlog",      "fixtures/nonmoving-l.eventlog",
        "fixtures/heapprof-hc.eventlog", "fixtures/sparks.eventlog",
    };
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        char *path = test_path(logs[i]);
        size_t len;
        uint8_t *data = test_read_file(path, &len);
        ck_assert(data != NULL);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            lt_live_result r;
            lt_live_vs_merge(logs[i], data, len, seed, seed == 1 ? 50 : 5000, 0, &r);
            ck_assert_uint_eq(r.n_late, 0);
            /* Cut short (a killed program): the same truncation as the file cut there. */
            lt_live_vs_merge(logs[i], data, len / 2 + seed, seed, 3000, 0, &r);
        }
        /* Held events bounded: the rest from the finished file's merge. */
        lt_live_result r;
        lt_live_vs_merge(logs[i], data, len, 9, 4000, 100, &r);
        free(data);
        free(path);
    }
}
END_TEST

/* A program flushing every writer as it goes (GHC 9.2+ with
 * --eventlog-flush-interval): caps 0 and 1 and the global writer each write a block
 * per 100 ms round, the blocks of a round in varying order and each slightly out of
 * time order. Events are placed long before the end, in merge's order. */
static void
lt_flushing_log(tlog *t, uint64_t seed, int rounds)
{
    uint64_t s = seed | 1;
    tlog_header_begin(t);
    tlog_type(t, EV_RUN_THREAD, 4, "Run thread");
    tlog_type(t, EV_BLOCK_MARKER, 14, "Block marker");
    tlog_type(t, EV_CAP_CREATE, 2, "Create capability");
    tlog_type(t, EV_USER_MARKER, 0xffff, "User marker");
    tlog_header_end(t);
    uint16_t lanes[3] = { 0xffff, 0, 1 };
    tlog_block(t, 1000, 2 * 12, 1000, 0xffff);
    for (int c = 0; c < 2; c++) {
        tlog_event(t, EV_CAP_CREATE, 1000);
        tlog_u16(t, (uint16_t)c);
    }
    for (int r = 0; r < rounds; r++) {
        int first = (int)(lt_rand(&s) % 3);
        for (int k = 0; k < 3; k++) {
            uint16_t cap = lanes[(first + k) % 3];
            uint64_t t0 = (uint64_t)r * 100000000u + 2000 + cap % 7 * 10;
            int n = 20;
            char name[32];
            int name_len = snprintf(name, sizeof name, "round %d", r);
            uint32_t marker_bytes = cap == 0 ? 12u + (uint32_t)name_len : 0;
            tlog_block(t, t0, (uint32_t)n * 14u + marker_bytes, t0 + 99000000u, cap);
            for (int e = 0; e < n; e++) {
                uint64_t tm = t0 + (uint64_t)e * 4900000u;
                if (e % 5 == 3)
                    tm -= 3000;     /* a few microseconds behind, as GHC's blocks are */
                tlog_event(t, EV_RUN_THREAD, tm);
                tlog_u32(t, (uint32_t)e);
                if (e == 10 && cap == 0) {  /* traceMarker "round r" */
                    tlog_event(t, EV_USER_MARKER, tm + 1);
                    tlog_u16(t, (uint16_t)name_len);
                    tlog_bytes(t, name, (size_t)name_len);
                }
            }
        }
    }
    tlog_end(t);
}

START_TEST(test_live_merge_places_early)
{
    tlog t;
    tlog_init(&t);
    lt_flushing_log(&t, 3, 40);
    lt_live_result r;
    lt_live_vs_merge("flushing", (const uint8_t *)t.b.data, t.b.len, 4, 700, 0, &r);
    ck_assert_uint_eq(r.n_late, 0);
    /* All but the last rounds' events (within the slack of the slowest writer). */
    ck_assert_msg(r.n_before_end > 40 * 60 * 9 / 10, "only %zu of %d events placed before "
                  "the end", r.n_before_end, 40 * 60);
    tlog_free(&t);
}
END_TEST

/* GHC 9.0 without flushing: the global block comes only at exit, with the earliest
 * events; nothing can be placed before it has come, and the order is still merge's. */
START_TEST(test_live_merge_waits_for_global)
{
    char *path = test_path("fixtures/threaded-n4.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    lt_live_result r;
    lt_live_vs_merge("threaded-n4", data, len, 11, 2000, 0, &r);
    diag d;
    evlog *log = evlog_open_bytes(data, len, &d);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    uint64_t global_at = 0;
    while (evlog_iter_next(&it, &ev))
        if (ev.type == EV_BLOCK_MARKER && ev.cap == EVLOG_NO_CAP)
            global_at = ev.offset;
    evlog_close(log);
    ck_assert_uint_gt(global_at, len / 2);
    ck_assert_uint_gt(r.first_placed_at, global_at);
    free(data);
    free(path);
}
END_TEST

/* --- livesrc -------------------------------------------------------------------------- */

typedef struct lt_writer {
    const char *fifo;           /* write into this FIFO, or */
    int fd;                     /* into this descriptor (closed at the end) */
    const uint8_t *data;
    size_t len;
    unsigned delay_ms;
} lt_writer;

static void
lt_sleep_ms(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void *
lt_writer_main(void *arg)
{
    lt_writer *w = arg;
    lt_sleep_ms(w->delay_ms);
    int fd = w->fifo ? open(w->fifo, O_WRONLY) : w->fd;
    uint64_t s = 77;
    for (size_t off = 0; fd >= 0 && off < w->len;) {
        size_t n = 1 + (size_t)(lt_rand(&s) % 20000);
        if (n > w->len - off)
            n = w->len - off;
        ssize_t k = write(fd, w->data + off, n);
        if (k <= 0)
            break;
        off += (size_t)k;
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* Read `spec` to its end through a livelog; the bytes must be `want`. */
static void
lt_read_all(const char *spec, const livesrc_opts *o, const uint8_t *want, size_t len)
{
    diag d;
    livelog *l = livelog_open(spec, o, &d);
    ck_assert_msg(l != NULL, "%s: %s", spec, d.msg);
    livesrc_status st;
    for (int i = 0; i < 1000 && !livelog_final(l); i++)
        ck_assert_msg(livelog_update(l, 50, &st, &d), "%s: %s", spec, d.msg);
    ck_assert_msg(livelog_final(l), "%s: not ended", spec);
    ck_assert_int_eq(st.state, LIVESRC_ENDED);
    evlog *log = livelog_log(l);
    ck_assert(log != NULL);
    ck_assert_uint_eq(evlog_size(log), len);
    ck_assert_mem_eq(evlog_bytes(log), want, len);
    livelog_close(l);
}

START_TEST(test_live_src_fifo)
{
    char dir[] = "/tmp/elog-live.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/p", dir);
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    ck_assert(livesrc_is_live(fifo, false));
    char *path = test_path("fixtures/demo.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    lt_writer w = { .fifo = fifo, .data = data, .len = len, .delay_ms = 100 };
    pthread_t th;
    pthread_create(&th, NULL, lt_writer_main, &w);
    livesrc_opts o = { .follow = false };
    lt_read_all(fifo, &o, data, len);
    pthread_join(th, NULL);
    unlink(fifo);
    rmdir(dir);
    free(data);
    free(path);
}
END_TEST

/* A Unix socket server that accepts one client after `delay_ms` and writes the log. */
typedef struct lt_server {
    char path[108];
    int port;                   /* tcp: the port (0 for unix) */
    lt_writer w;
} lt_server;

static void *
lt_server_main(void *arg)
{
    lt_server *sv = arg;
    lt_sleep_ms(sv->w.delay_ms);
    int lfd;
    if (sv->port) {
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)sv->port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        lfd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    } else {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        strcpy(sa.sun_path, sv->path);
        lfd = socket(AF_UNIX, SOCK_STREAM, 0);
        ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    }
    listen(lfd, 1);
    sv->w.fd = accept(lfd, NULL, NULL);
    close(lfd);
    sv->w.delay_ms = 0;
    return lt_writer_main(&sv->w);
}

/* A free TCP port on the loopback (bound, read, released). */
static int
lt_free_port(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    socklen_t len = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd);
    return ntohs(sa.sin_port);
}

START_TEST(test_live_src_sockets)
{
    char *path = test_path("fixtures/threaded-n2.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    for (int tcp = 0; tcp <= 1; tcp++) {
        lt_server sv;
        memset(&sv, 0, sizeof sv);
        char spec[160];
        if (tcp) {
            sv.port = lt_free_port();
            snprintf(spec, sizeof spec, "tcp:127.0.0.1:%d", sv.port);
        } else {
            snprintf(sv.path, sizeof sv.path, "/tmp/elog-live-%d.sock", (int)getpid());
            unlink(sv.path);
            snprintf(spec, sizeof spec, "unix:%s", sv.path);
        }
        /* Nobody listening and no --wait: lost, saying why. */
        diag d;
        livesrc_opts o = { .wait = false };
        livelog *l = livelog_open(spec, &o, &d);
        ck_assert(l != NULL);
        livesrc_status st;
        bool ok = true;
        for (int i = 0; i < 100 && ok; i++)
            ok = livelog_update(l, 50, &st, &d);
        ck_assert_msg(!ok, "%s: connected to nobody", spec);
        ck_assert_msg(strstr(d.msg, "cannot connect") != NULL, "%s: %s", spec, d.msg);
        livelog_close(l);
        /* With --wait: the server comes up 300 ms later; the bytes are the log's. */
        sv.w = (lt_writer){ .data = data, .len = len, .delay_ms = 300 };
        pthread_t th;
        pthread_create(&th, NULL, lt_server_main, &sv);
        o.wait = true;
        lt_read_all(spec, &o, data, len);
        pthread_join(th, NULL);
        if (!tcp)
            unlink(sv.path);
    }
    free(data);
    free(path);
}
END_TEST

/* A followed file grows under the reader; stopping ends it with every byte taken. */
START_TEST(test_live_src_follow)
{
    char path[] = "/tmp/elog-follow.XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    char *fx = test_path("fixtures/markers.eventlog");
    size_t len;
    uint8_t *data = test_read_file(fx, &len);
    test_write_all(fd, data, 30);     /* not even the whole header yet */
    ck_assert(!livesrc_is_live(path, false));
    ck_assert(livesrc_is_live(path, true));
    livesrc_opts o = { .follow = true };
    diag d;
    livelog *l = livelog_open(path, &o, &d);
    ck_assert(l != NULL);
    livesrc_status st;
    for (int i = 0; i < 5; i++)
        ck_assert(livelog_update(l, 30, &st, &d));
    ck_assert(livelog_log(l) == NULL);
    test_write_all(fd, data + 30, len - 30);
    for (int i = 0; i < 100 && (!livelog_log(l) || evlog_size(livelog_log(l)) < len); i++)
        ck_assert(livelog_update(l, 30, &st, &d));
    ck_assert(livelog_log(l) != NULL);
    ck_assert_uint_eq(evlog_size(livelog_log(l)), len);
    ck_assert_mem_eq(evlog_bytes(livelog_log(l)), data, len);
    ck_assert(!livelog_final(l));
    livesrc_stop(livelog_src(l));
    ck_assert(livelog_update(l, 0, &st, &d));
    ck_assert(livelog_final(l));
    ck_assert_int_eq(st.state, LIVESRC_ENDED);
    evlog *log = livelog_detach(l);
    ck_assert_mem_eq(evlog_bytes(log), data, len);
    evlog_close(log);
    close(fd);
    unlink(path);
    free(data);
    free(fx);
}
END_TEST

/* Swapping in a grown index remakes the lanes in full: on demo (4 HECs, each with
 * three spark lanes, heap, markers) the app's lanes equal lanes_build's, kind and label,
 * after the swap as at the start (the swap once sized them for the HEC lanes alone). */
START_TEST(test_live_app_swap_lanes)
{
    evlog *log = test_open_log("fixtures/demo.eventlog");
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    size_t n;
    lane *want = lanes_build_all(ix, &n);
    ck_assert_uint_gt(n, evindex_n_caps(ix) + 8);
    app_opts ao = { .mouse = false };
    app *a = app_new(ix, "demo", 80, 24, &ao);
    for (int round = 0; round < 2; round++) {
        ck_assert_uint_eq(a->n_lanes, n);
        for (size_t i = 0; i < n; i++) {
            ck_assert_int_eq(a->lanes[i].kind, want[i].kind);
            ck_assert_str_eq(a->lanes[i].label, want[i].label);
        }
        app_swap_index(a, ix);
    }
    app_free(a);
    x_free(want);
    evindex_free(ix);
    evlog_close(log);
}
END_TEST

/* The viewer over a growing log: a following view keeps its zoom and slides to the new
 * end when the longer log's index is swapped in; one the user moved stays where it was;
 * F follows again; F on a log that is not live says so. */
START_TEST(test_live_app_swap)
{
    char *path = test_path("fixtures/threaded-n4.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    evlog *logs[3];
    evindex *ix[3];
    for (int i = 0; i < 3; i++) {
        diag d;
        logs[i] = evlog_open_bytes(data, len * (size_t)(i + 1) / 3, &d);
        ck_assert(logs[i] != NULL);
        ix[i] = evindex_build(logs[i], NULL, &d);
    }
    ck_assert_uint_lt(evindex_last_ns(ix[0]), evindex_last_ns(ix[2]));
    app_opts ao = { .mouse = false };
    surface *s;
    app *a = app_new(ix[0], "live", 120, 40, &ao);
    a->live = true;
    a->live_follow = true;
    timeview_zoom(&a->v, 0.125, a->v.cursor_ns);
    app_follow_now(a);
    uint64_t span = a->v.t1_ns - a->v.t0_ns;
    ck_assert_uint_eq(a->v.t1_ns, a->v.log_end_ns + 1);
    app_swap_index(a, ix[1]);
    ck_assert_uint_eq(a->v.log_end_ns, evindex_last_ns(ix[1]));
    ck_assert_uint_eq(a->v.t1_ns, evindex_last_ns(ix[1]) + 1);
    ck_assert(a->v.t1_ns - a->v.t0_ns <= span + 1 && a->v.t1_ns - a->v.t0_ns + 1 >= span);
    ck_assert_uint_eq(evindex_n_caps(ix[1]), a->n_lanes > 0 ? evindex_n_caps(ix[1]) : 0);
    /* Looking into the past: the view stays through the next swap. */
    app_key(a, "Left");
    a->live_follow = false;
    uint64_t t0 = a->v.t0_ns, t1 = a->v.t1_ns;
    app_swap_index(a, ix[2]);
    ck_assert_uint_eq(a->v.t0_ns, t0);
    ck_assert_uint_eq(a->v.t1_ns, t1);
    ck_assert_uint_eq(a->v.log_end_ns, evindex_last_ns(ix[2]));
    app_key(a, "F");
    ck_assert(a->live_follow);
    ck_assert_uint_eq(a->v.t1_ns, evindex_last_ns(ix[2]) + 1);
    s = surface_new(120, 40);
    app_draw(a, s);             /* draws over the swapped index without complaint */
    surface_free(s);
    app_free(a);
    a = app_new(ix[2], "file", 120, 40, &ao);
    app_key(a, "F");
    s = surface_new(120, 40);
    app_draw(a, s);
    surface_free(s);
    ck_assert_msg(strstr(app_status(a), "not being written") != NULL, "%s", app_status(a));
    app_free(a);
    for (int i = 0; i < 3; i++) {
        evindex_free(ix[i]);
        evlog_close(logs[i]);
    }
    free(data);
    free(path);
}
END_TEST

/* What the viewer does with a live log: index the grown log after each random piece.
 * Each index equals the index of the same bytes in a file of their own (head -c), and
 * the last the whole file's (test_evindex_same: events, lanes, runs, collections,
 * messages, threads, series, seek answers). */
START_TEST(test_live_index_over_growing_log)
{
    static const char *const logs[] = { "fixtures/threaded-n4.eventlog",
                                        "fixtures/nonmoving-l.eventlog" };
    for (size_t li = 0; li < 2; li++) {
        char *path = test_path(logs[li]);
        size_t len;
        uint8_t *data = test_read_file(path, &len);
        int fd = test_unlinked_tempfile();
        uint64_t s = 21 + li;
        size_t have = 0;
        evlog *log = NULL;
        int rounds = 0;
        while (have < len) {
            size_t piece = 1 + (size_t)(lt_rand(&s) % (len / 6));
            if (piece > len - have)
                piece = len - have;
            test_write_all(fd, data + have, piece);
            have += piece;
            diag d;
            if (!log) {
                bool short_header;
                log = evlog_open_growing(fd, have, (size_t)1 << 30, &d, &short_header);
                if (!log)
                    continue;
            } else {
                ck_assert(evlog_grow(log, have, &d));
            }
            diag e1, e2;
            evindex *grown = evindex_build(log, NULL, &e1);
            evlog *cut = evlog_open_bytes(data, have, &d);
            evindex *fresh = evindex_build(cut, NULL, &e2);
            char name[128];
            snprintf(name, sizeof name, "%s at %zu bytes", logs[li], have);
            test_evindex_same(name, grown, fresh);
            ck_assert_int_eq(e1.code, e2.code);
            ck_assert_uint_eq(e1.offset, e2.offset);
            evindex_free(grown);
            evindex_free(fresh);
            evlog_close(cut);
            rounds++;
        }
        ck_assert_int_ge(rounds, 3);
        evlog_close(log);
        close(fd);
        free(data);
        free(path);
    }
}
END_TEST

/* An open marker list is made again over the longer log: still open, the same text in
 * its filter, more markers in it. */
START_TEST(test_live_app_list)
{
    char *path = test_path("fixtures/markers.eventlog");
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    diag d;
    evlog *half = evlog_open_bytes(data, len / 2, &d), *whole = evlog_open_bytes(data, len, &d);
    evindex *ix1 = evindex_build(half, NULL, &d), *ix2 = evindex_build(whole, NULL, &d);
    ck_assert_uint_lt(evindex_n_markers(ix1), evindex_n_markers(ix2));
    app_opts ao = { .mouse = false };
    app *a = app_new(ix1, "live", 120, 40, &ao);
    a->live = true;
    app_key(a, "m");
    ck_assert_int_eq(a->mode, MODE_LIST);
    app_key(a, "p");
    app_key(a, "h");
    size_t before = uilist_n_items(a->list);
    app_swap_index(a, ix2);
    ck_assert_int_eq(a->mode, MODE_LIST);
    ck_assert_str_eq(uilist_filter(a->list), "ph");
    ck_assert_uint_eq(uilist_n_items(a->list), evindex_n_markers(ix2));
    ck_assert_uint_gt(uilist_n_items(a->list), before);
    app_free(a);
    evindex_free(ix1);
    evindex_free(ix2);
    evlog_close(half);
    evlog_close(whole);
    free(data);
    free(path);
}
END_TEST

/* The header's live text: rate and lag while live, the state when ended. */
START_TEST(test_live_header_text)
{
    char buf[200];
    applive_header_text(buf, sizeof buf, "p.fifo", "live", 1234567.0, 42000000, true, false);
    ck_assert_str_eq(buf, "p.fifo \xc2\xb7 live \xc2\xb7 1.2M ev/s \xc2\xb7 lag 42ms "
                          "\xc2\xb7 following");
    applive_header_text(buf, sizeof buf, "p.fifo", "program ended", 0, 0, false, true);
    ck_assert_str_eq(buf, "p.fifo \xc2\xb7 program ended \xc2\xb7 F follows");
}
END_TEST

static double
lt_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* `markers` and `show` over a FIFO fed slowly with a log whose writers all flush as
 * they go (GHC 9.2+ with --eventlog-flush-interval): the first rows come long before
 * the stream ends, and the whole output equals the command over the file. */
START_TEST(test_live_rows_come_early)
{
    const char *bin = getenv("ELOG_BIN"), *replay = getenv("ELOG_REPLAY");
    ck_assert_msg(bin && replay, "ELOG_BIN and ELOG_REPLAY must be set");
    char dir[] = "/tmp/elog-early.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char logp[128], fifo[128], cmd[1024];
    snprintf(logp, sizeof logp, "%s/flush.eventlog", dir);
    snprintf(fifo, sizeof fifo, "%s/p", dir);
    tlog t;
    tlog_init(&t);
    lt_flushing_log(&t, 5, 40);
    FILE *f = fopen(logp, "wb");
    ck_assert(f && fwrite(t.b.data, 1, t.b.len, f) == t.b.len && fclose(f) == 0);
    /* About 3 s of stream. */
    unsigned rate = (unsigned)(t.b.len / 3);
    static const char *const cmds[] = { "markers", "show" };
    for (size_t c = 0; c < 2; c++) {
        unlink(fifo);
        ck_assert_int_eq(mkfifo(fifo, 0600), 0);
        snprintf(cmd, sizeof cmd, "'%s' --rate %u --chunk 1-500 '%s' fifo:'%s' &", replay, rate,
                 logp, fifo);
        ck_assert_int_eq(system(cmd), 0);
        double t0 = lt_now_s(), first_row = 0;
        snprintf(cmd, sizeof cmd, "'%s' %s '%s'", bin, cmds[c], fifo);
        FILE *p = popen(cmd, "r");
        ck_assert(p != NULL);
        strbuf live;
        strbuf_init(&live);
        char line[4096];
        /* The first row: after the TSV header, or after "Events:" in show. */
        bool body = c == 0;
        int header_lines = 0;
        while (fgets(line, sizeof line, p)) {
            strbuf_puts(&live, line);
            if (c == 0 && header_lines++ == 0)
                continue;
            if (!body) {
                body = strcmp(line, "Events:\n") == 0;
                continue;
            }
            if (!first_row)
                first_row = lt_now_s();
        }
        double end = lt_now_s();
        ck_assert_int_eq(pclose(p), 0);
        ck_assert_msg(first_row > 0 && first_row - t0 < 0.5 * (end - t0),
                      "%s: first row after %.2f s of a %.2f s stream", cmds[c], first_row - t0,
                      end - t0);
        snprintf(cmd, sizeof cmd, "'%s' %s '%s'", bin, cmds[c], logp);
        p = popen(cmd, "r");
        strbuf whole;
        strbuf_init(&whole);
        size_t n;
        while ((n = fread(line, 1, sizeof line, p)) > 0)
            strbuf_append(&whole, line, n);
        pclose(p);
        ck_assert_uint_eq(live.len, whole.len);
        ck_assert_msg(memcmp(live.data, whole.data, live.len) == 0, "%s: stream != file",
                      cmds[c]);
        strbuf_free(&live);
        strbuf_free(&whole);
    }
    tlog_free(&t);
    unlink(fifo);
    unlink(logp);
    rmdir(dir);
}
END_TEST

/* tests/e2e/live.sh: every command over every source against the file, cut streams,
 * Ctrl-C, and the viewer following a log. */
START_TEST(test_live_e2e)
{
    const char *replay = getenv("ELOG_REPLAY");
    ck_assert_msg(replay && access(replay, X_OK) == 0, "ELOG_REPLAY must name elog-replay");
    char env[4200];
    snprintf(env, sizeof env, "ELOG_REPLAY='%s'", replay);
    test_e2e_script("live", env);
}
END_TEST

Suite *
test_live_suite(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("live");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_live_mapfile_grows);
    tcase_add_test(tc, test_live_merge_fixtures);
    tcase_add_test(tc, test_live_merge_places_early);
    tcase_add_test(tc, test_live_merge_waits_for_global);
    tcase_add_test(tc, test_live_src_fifo);
    tcase_add_test(tc, test_live_src_sockets);
    tcase_add_test(tc, test_live_src_follow);
    tcase_add_test(tc, test_live_rows_come_early);
    tcase_add_test(tc, test_live_index_over_growing_log);
    tcase_add_test(tc, test_live_app_swap);
    tcase_add_test(tc, test_live_app_swap_lanes);
    tcase_add_test(tc, test_live_app_list);
    tcase_add_test(tc, test_live_header_text);
    suite_add_tcase(s, tc);
    /* The end-to-end script runs the binary some eighty times and the viewer over
     * streams paced in seconds: slower under the sanitizers. */
    TCase *te = tcase_create("live-e2e");
    tcase_set_tags(te, "e2e");      /* CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(te, 300);
    tcase_add_test(te, test_live_e2e);
    suite_add_tcase(s, te);
    return s;
}
