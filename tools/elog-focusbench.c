/* elog-focusbench: what a focused thread costs the live viewer per swap of its growing
 * index. A log is written into a growing file in pieces (as a live source delivers it),
 * indexed after each by one evindex_grow (as applive does), and the focused thread's
 * life brought up to date: extended by what was added (what the viewer does now) and,
 * every few swaps, gathered afresh over the whole grown index (what it did before:
 * every run lane and a walk over the whole log). Prints both per-swap times, and checks
 * that the extended life equals the fresh one at the end. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "evindex.h"
#include "evlog.h"
#include "threadlife.h"

static uint64_t
fb_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
fb_usage(void)
{
    fprintf(stderr, "usage: elog-focusbench LOG TID [--piece BYTES] [--fresh-every N]\n"
                    "  --piece BYTES      bytes a swap adds (default 1048576)\n"
                    "  --fresh-every N    time a fresh gather every N swaps (default 25)\n");
    return 2;
}

int
main(int argc, char **argv)
{
    if (argc < 3)
        return fb_usage();
    size_t piece = (size_t)1 << 20;
    unsigned fresh_every = 25;
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--piece") == 0 && i + 1 < argc)
            piece = (size_t)strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--fresh-every") == 0 && i + 1 < argc)
            fresh_every = (unsigned)strtoul(argv[++i], NULL, 10);
        else
            return fb_usage();
    }
    if (piece == 0 || fresh_every == 0)
        return fb_usage();
    uint32_t tid = (uint32_t)strtoul(argv[2], NULL, 10);
    diag d;
    evlog *whole = evlog_open(argv[1], &d);
    if (!whole) {
        fprintf(stderr, "elog-focusbench: %s: %s\n", argv[1], d.msg);
        return 1;
    }
    const uint8_t *data = evlog_bytes(whole);
    size_t len = evlog_size(whole);
    char tmp[] = "/tmp/elog-focusbench.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        perror("elog-focusbench: mkstemp");
        return 1;
    }
    unlink(tmp);
    evlog *log = NULL;
    evindex_grow *g = NULL;
    threadlife *tl = NULL;
    size_t have = 0, swaps = 0, n_fresh = 0;
    uint64_t ext_ns = 0, ext_max_ns = 0, fresh_ns = 0, fresh_last_ns = 0, grow_ns = 0;
    while (have < len) {
        size_t n = piece < len - have ? piece : len - have;
        for (size_t done = 0; done < n;) {
            ssize_t w = write(fd, data + have + done, n - done);
            if (w <= 0) {
                perror("elog-focusbench: write");
                return 1;
            }
            done += (size_t)w;
        }
        have += n;
        if (!log) {
            bool short_header;
            log = evlog_open_growing(fd, have, (size_t)len + ((size_t)1 << 20), &d,
                                     &short_header);
            if (!log)
                continue;
            g = evindex_grow_new(log);
        } else if (!evlog_grow(log, have, &d)) {
            fprintf(stderr, "elog-focusbench: %s\n", d.msg);
            return 1;
        }
        uint64_t t0 = fb_now_ns();
        while (evindex_grow_step(g, UINT64_MAX))
            ;
        uint64_t t1 = fb_now_ns();
        grow_ns += t1 - t0;
        const evindex *ix = evindex_grow_index(g);
        if (!tl) {
            tl = threadlife_new(ix, tid);
            continue;
        }
        threadlife_extend(tl);
        uint64_t t2 = fb_now_ns();
        ext_ns += t2 - t1;
        if (t2 - t1 > ext_max_ns)
            ext_max_ns = t2 - t1;
        swaps++;
        if (swaps % fresh_every == 0 || have == len) {
            threadlife *fresh = threadlife_new(ix, tid);
            uint64_t t3 = fb_now_ns();
            fresh_ns += t3 - t2;
            fresh_last_ns = t3 - t2;
            n_fresh++;
            threadlife_free(fresh);
        }
    }
    if (!tl) {
        fprintf(stderr, "elog-focusbench: no header\n");
        return 1;
    }
    diag e;
    evindex *ix = evindex_grow_finish(g, &e);
    threadlife_extend(tl);
    threadlife *fresh = threadlife_new(ix, tid);
    bool same = threadlife_n_runs(tl) == threadlife_n_runs(fresh) &&
                threadlife_n_events(tl) == threadlife_n_events(fresh);
    for (size_t i = 0; same && i < threadlife_n_runs(tl); i++) {
        const threadlife_run *p = threadlife_run_at(tl, i), *q = threadlife_run_at(fresh, i);
        same = p->start_ns == q->start_ns && p->end_ns == q->end_ns && p->status == q->status &&
               p->info == q->info;
    }
    for (size_t i = 0; same && i < threadlife_n_events(tl); i++)
        same = threadlife_event_at(tl, i)->offset == threadlife_event_at(fresh, i)->offset &&
               threadlife_event_at(tl, i)->by_tid == threadlife_event_at(fresh, i)->by_tid;
    printf("focusbench: %s, %zu bytes in %zu swaps of %zu bytes; thread %u: %zu runs, "
           "%zu instants\n", argv[1], len, swaps, piece, tid, threadlife_n_runs(tl),
           threadlife_n_events(tl));
    printf("focusbench: index growth %.3f ms a swap\n", swaps ? grow_ns / 1e6 / swaps : 0.0);
    printf("focusbench: focus extended: %.3f ms a swap (max %.3f ms), %llu bytes walked "
           "in all\n", swaps ? ext_ns / 1e6 / swaps : 0.0, ext_max_ns / 1e6,
           (unsigned long long)threadlife_walked_bytes(tl));
    printf("focusbench: focus gathered afresh: %.1f ms a swap on average over %zu samples, "
           "%.1f ms at the end\n", n_fresh ? fresh_ns / 1e6 / n_fresh : 0.0, n_fresh,
           fresh_last_ns / 1e6);
    printf("focusbench: extended life %s the fresh one\n", same ? "equals" : "DIFFERS FROM");
    threadlife_free(fresh);
    threadlife_free(tl);
    evindex_free(ix);
    evlog_close(log);
    evlog_close(whole);
    close(fd);
    return same ? 0 : 1;
}
