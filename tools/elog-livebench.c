/* elog-livebench: the live viewer's figures for `make bench` — a writer thread feeds a
 * log into a FIFO at a steady number of events per second (as a program writing +RTS
 * -ol FIFO does) while the viewer's loop runs headless: taking bytes, re-indexing in
 * the background, drawing a frame every 16 ms. Reports the sustained ingest (events on
 * screen per second), the lag from a byte's arrival to its event on screen (the swap
 * and the frame after it), and the catch-up time after the last byte. Separate from
 * elog-bench (its own tool, so the two can change apart). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "applive.h"
#include "evindex.h"
#include "evlog.h"
#include "livelog.h"
#include "surface.h"

#define LB_FRAME_MS 16

static uint64_t
lb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
lb_sleep_until(uint64_t t)
{
    uint64_t now = lb_now_ns();
    if (t <= now)
        return;
    struct timespec ts = { (time_t)((t - now) / 1000000000u), (long)((t - now) % 1000000000u) };
    nanosleep(&ts, NULL);
}

typedef struct lb_writer {
    const char *fifo;
    const uint8_t *data;
    size_t len;
    double bytes_per_s;
    _Atomic uint64_t done_ns;   /* when the last byte was written */
    _Atomic int stalled_ms;     /* time the writer spent blocked beyond its schedule */
} lb_writer;

/* Writes every 5 ms what the rate allows since the start. */
static void *
lb_writer_main(void *arg)
{
    lb_writer *w = arg;
    int fd = open(w->fifo, O_WRONLY);
    if (fd < 0)
        return NULL;
    uint64_t t0 = lb_now_ns();
    size_t sent = 0;
    uint64_t late_ns = 0;
    while (sent < w->len) {
        uint64_t now = lb_now_ns();
        size_t due = (size_t)((double)(now - t0) * 1e-9 * w->bytes_per_s);
        if (due > w->len)
            due = w->len;
        while (sent < due) {
            ssize_t k = write(fd, w->data + sent, due - sent);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                close(fd);
                return NULL;
            }
            sent += (size_t)k;
        }
        uint64_t after = lb_now_ns();
        if (after - now > 5000000u)
            late_ns += after - now - 5000000u;
        lb_sleep_until(now + 5000000u);
    }
    close(fd);
    atomic_store(&w->stalled_ms, (int)(late_ns / 1000000u));
    atomic_store(&w->done_ns, lb_now_ns());
    return NULL;
}

static int
lb_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: elog-livebench LOG EVENTS_PER_SECOND\n");
        return 2;
    }
    diag d;
    evlog *whole = evlog_open(argv[1], &d);
    if (!whole) {
        fprintf(stderr, "elog-livebench: %s: %s\n", argv[1], d.msg);
        return 1;
    }
    evindex *wix = evindex_build(whole, NULL, &d);
    uint64_t n_events = evindex_n_events(wix);
    evindex_free(wix);
    double rate = atof(argv[2]);
    lb_writer w = { .data = evlog_bytes(whole), .len = evlog_size(whole),
                    .bytes_per_s = rate * (double)evlog_size(whole) / (double)n_events };
    char fifo[] = "/tmp/elog-livebench.XXXXXX";
    if (!mkdtemp(fifo))
        return 1;
    char path[64];
    snprintf(path, sizeof path, "%s/p", fifo);
    mkfifo(path, 0600);
    w.fifo = path;
    livesrc_opts so = { .follow = false };
    livelog *l = livelog_open(path, &so, &d);
    pthread_t th;
    pthread_create(&th, NULL, lb_writer_main, &w);
    uint64_t t0 = lb_now_ns();
    livesrc_status st;
    while (!livelog_log(l) && livelog_update(l, 10, &st, &d))
        ;
    applive *lv = applive_new(l, 0);
    app_opts ao = { .mouse = false };
    app *a = app_new(applive_index(lv), "livebench", 160, 50, &ao);
    applive_attach(lv, a);
    surface *s = surface_new(160, 50);
    size_t cap = 4096, n_lag = 0;
    uint64_t *lags = malloc(cap * sizeof *lags), frame_max = 0, shown = 0, caught_ns = 0;
    for (;;) {
        uint64_t frame_start = lb_now_ns();
        bool changed = applive_poll(lv, a);
        app_draw(a, s);
        uint64_t drawn = lb_now_ns();
        if (drawn - frame_start > frame_max)
            frame_max = drawn - frame_start;
        shown = evindex_n_events(applive_index(lv));
        if (changed && applive_lag_ns(lv)) {
            if (n_lag == cap)
                lags = realloc(lags, (cap *= 2) * sizeof *lags);
            lags[n_lag++] = applive_lag_ns(lv) + (drawn - frame_start);
        }
        if (atomic_load(&w.done_ns) && shown >= n_events) {
            caught_ns = drawn;
            break;
        }
        if (drawn - t0 > 600000000000ull)
            break;
        lb_sleep_until(frame_start + LB_FRAME_MS * 1000000u);
    }
    pthread_join(th, NULL);
    uint64_t wrote_ns = atomic_load(&w.done_ns) - t0;
    qsort(lags, n_lag, sizeof *lags, lb_cmp_u64);
    printf("live: %s, %llu events, offered %.2fM events/s (%.1f MB/s) for %.1f s\n", argv[1],
           (unsigned long long)n_events, rate / 1e6, w.bytes_per_s / 1e6, (double)wrote_ns / 1e9);
    printf("live: on screen %llu events; sustained %.2fM events/s while drawing every %d ms; "
           "writer blocked %d ms beyond its schedule\n",
           (unsigned long long)shown,
           (double)shown / ((double)(caught_ns ? caught_ns - t0 : wrote_ns) / 1e9) / 1e6,
           LB_FRAME_MS, atomic_load(&w.stalled_ms));
    if (n_lag)
        printf("live: lag byte->screen over %zu updates, ms: median %.1f, p95 %.1f, max %.1f "
               "(goal <= 100 at 1M events/s: %s); catch-up after the last byte %.1f ms; "
               "slowest loop turn %.1f ms\n",
               n_lag, (double)lags[n_lag / 2] / 1e6, (double)lags[n_lag * 95 / 100] / 1e6,
               (double)lags[n_lag - 1] / 1e6,
               lags[n_lag * 95 / 100] <= 100000000u ? "ok" : "MISSED",
               caught_ns ? (double)(caught_ns - t0 - wrote_ns) / 1e6 : -1.0,
               (double)frame_max / 1e6);
    free(lags);
    surface_free(s);
    app_free(a);
    applive_free(lv);
    livelog_close(l);
    evlog_close(whole);
    unlink(path);
    rmdir(fifo);
    return 0;
}
