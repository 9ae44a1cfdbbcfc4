/* elog-mmu-bench: the MMU's speed for `make bench` (its own step, apart from elog-bench):
 * the exact curve (every window length of mmu_curve_windows), one MMU and the 10 worst
 * windows of 10 ms, over a million synthetic pauses or over the collections of a log
 * (the index is built first and not timed). Prints "mmu name value ..." lines. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "diag.h"
#include "evindex.h"
#include "evlog.h"
#include "mmu.h"
#include "mmusrc.h"
#include "xalloc.h"

static const char mmub_usage[] =
    "usage: elog-mmu-bench [--runs N] [--pauses N] [FILE]\n"
    "  FILE        a log: its collections' pauses (else N synthetic pauses)\n"
    "  --pauses N  synthetic pauses (default 1000000)\n"
    "  --runs N    runs per timing, the median reported (default 3)\n";

static double
mmub_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int
mmub_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Pauses of 20..420 us every 50 us .. 1 ms, from a fixed seed: a busy GHC program. */
static mmu_span *
mmub_synthetic(size_t n, uint64_t *end_ns)
{
    mmu_span *v = xmalloc((n + 1) * sizeof *v);
    uint64_t s = 1, t = 0;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        t += 50000 + (s >> 33) % 1000000;
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (mmu_span){ t, t + 20000 + (s >> 33) % 400000 };
    }
    *end_ns = t + 1000000;
    return v;
}

int
main(int argc, char **argv)
{
    int runs = 3;
    size_t n_pauses = 1000000;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (strcmp(argv[i], "--pauses") == 0 && i + 1 < argc)
            n_pauses = strtoull(argv[++i], NULL, 10);
        else if (argv[i][0] != '-' && !path)
            path = argv[i];
        else {
            fputs(mmub_usage, stderr);
            return 2;
        }
    }
    if (runs < 1 || runs > 99 || n_pauses == 0) {
        fputs(mmub_usage, stderr);
        return 2;
    }
    mmu_span *v;
    size_t n;
    uint64_t from = 0, to;
    if (path) {
        diag d;
        diag_clear(&d);
        evlog *log = evlog_open(path, &d);
        if (!log) {
            fprintf(stderr, "elog-mmu-bench: cannot open %s\n", path);
            return 1;
        }
        diag ending;
        evindex *ix = evindex_build(log, NULL, &ending);
        mmusrc_opts o = { 0 };
        v = mmusrc_spans(ix, &o, &n);
        from = evindex_first_ns(ix);
        to = evindex_last_ns(ix);
        evindex_free(ix);
        evlog_close(log);
    } else {
        n = n_pauses;
        v = mmub_synthetic(n, &to);
    }
    double t_new[99], t_curve[99], t_worst[99];
    size_t n_windows = 0;
    double sink = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = mmub_now_ms();
        mmu *m = mmu_new(v, n, from, to);
        double t1 = mmub_now_ms();
        uint64_t ws[96];
        n_windows = mmu_curve_windows(m, ws, 96);
        for (size_t i = 0; i < n_windows; i++)
            sink += mmu_at(m, ws[i]).mmu;
        double t2 = mmub_now_ms();
        mmu_point worst[10];
        size_t k = mmu_worst(m, 10000000, 10, worst);
        sink += k ? worst[0].mmu : 0;
        double t3 = mmub_now_ms();
        mmu_free(m);
        t_new[r] = t1 - t0;
        t_curve[r] = t2 - t0;
        t_worst[r] = t3 - t2;
    }
    qsort(t_new, (size_t)runs, sizeof t_new[0], mmub_cmp);
    qsort(t_curve, (size_t)runs, sizeof t_curve[0], mmub_cmp);
    qsort(t_worst, (size_t)runs, sizeof t_worst[0], mmub_cmp);
    printf("mmu source %s pauses %zu windows %zu\n", path ? "log" : "synthetic", n, n_windows);
    printf("mmu union_ms %.1f curve_ms %.1f worst10_ms %.1f check %.3f\n", t_new[runs / 2],
           t_curve[runs / 2], t_worst[runs / 2], sink);
    x_free(v);
    return 0;
}
