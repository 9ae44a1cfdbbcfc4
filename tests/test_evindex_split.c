/* tests/test_evindex_split: the block-split parallel build (contiguous ranges of
 * capability blocks per thread, stitched at the seams) gives exactly the serial build's
 * index, with seams forced at many block boundaries — inside runs, inside GCs, inside
 * non-moving cycles, between a thread's creation and its first run — on every fixture,
 * the peer-suite logs and synthetic shapes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cursor.h"
#include "evindex.h"
#include "evlog.h"
#include "evtype.h"
#include "evwrite.h"
#include "heapprof.h"
#include "runlane.h"
#include "tests.h"

/* Where the seams fell, by what was open on some capability there (the test's own
 * reading of the events, not the index's). */
typedef struct split_cover {
    unsigned in_run, in_gc, in_nm_cycle, after_create, seams;
} split_cover;

/* One capability block: where it starts and what was open just before it. */
typedef struct split_block {
    uint64_t pos, time_ns;
    bool in_run, in_gc, in_nm_cycle, after_create;
} split_block;

#define SPLIT_MAX_CAPS 1024
#define SPLIT_MAX_PENDING 4096

/* Every capability block of the log, with the state before it, in file order. Caller
 * frees. */
static split_block *
split_blocks(const evlog *log, size_t *n_out)
{
    size_t n = 0, cap = 64;
    split_block *v = malloc(cap * sizeof *v);
    static bool run[SPLIT_MAX_CAPS], gc[SPLIT_MAX_CAPS];
    memset(run, 0, sizeof run);
    memset(gc, 0, sizeof gc);
    uint32_t *pending = calloc(SPLIT_MAX_PENDING, sizeof *pending);  /* created, not run */
    size_t n_pending = 0;
    bool nm = false;
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        unsigned c = ev.cap < SPLIT_MAX_CAPS ? ev.cap : 0;
        switch (ev.type) {
        case EV_BLOCK_MARKER:
            if (ev.payload_len >= 14 && cursor_be16(ev.payload + 12) != EVLOG_NO_CAP) {
                if (n == cap)
                    v = realloc(v, (cap *= 2) * sizeof *v);
                split_block *b = &v[n++];
                *b = (split_block){ .pos = ev.offset, .time_ns = ev.time_ns, .in_nm_cycle = nm,
                                    .after_create = n_pending > 0 };
                for (unsigned k = 0; k < SPLIT_MAX_CAPS; k++) {
                    b->in_run |= run[k];
                    b->in_gc |= gc[k];
                }
            }
            break;
        case EV_CREATE_THREAD:
            if (n_pending < SPLIT_MAX_PENDING && ev.payload_len >= 4)
                pending[n_pending++] = cursor_be32(ev.payload);
            break;
        case EV_RUN_THREAD:
            run[c] = true;
            for (size_t i = 0; ev.payload_len >= 4 && i < n_pending; i++)
                if (pending[i] == cursor_be32(ev.payload))
                    pending[i] = pending[--n_pending];
            break;
        case EV_STOP_THREAD: run[c] = false; break;
        case EV_GC_START: run[c] = false; gc[c] = true; break;
        case EV_GC_END: gc[c] = false; break;
        case EV_CONC_MARK_BEGIN: nm = true; break;
        case EV_CONC_SWEEP_END: nm = false; break;
        default: break;
        }
    }
    free(pending);
    *n_out = n;
    return v;
}

static evindex *
split_build(const evlog *log, const uint64_t *seams, size_t n_seams)
{
    evindex_opts o = { .threads = 1, .split_at = seams, .n_split = n_seams };
    evindex *ix = evindex_build(log, &o, NULL);
    ck_assert_ptr_nonnull(ix);
    char why[256];
    ck_assert_msg(evindex_check(ix, why, sizeof why), "split: %s", why);
    return ix;
}

static void
split_compare(const char *name, const evlog *log, const evindex *serial, const uint64_t *seams,
              size_t n_seams, bool parallel)
{
    evindex *ix = split_build(log, seams, n_seams);
    char what[512];
    snprintf(what, sizeof what, "%s, seam at %llu of %zu", name,
             (unsigned long long)seams[0], n_seams);
    if (parallel)
        ck_assert_msg(evindex_threads_used(ix) == n_seams + 1, "%s: built with %u threads",
                      what, evindex_threads_used(ix));
    test_evindex_same(what, serial, ix);
    test_evindex_same_more(what, serial, ix);
    evindex_free(ix);
}

/* Up to `most` single seams spread over the blocks (every block if fewer), three
 * seams a block apart, and seven spread out. */
static void
split_check_file(const char *path, const char *name, size_t most, bool clean,
                 split_cover *cov)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    if (!log)
        return;                 /* the bad-input suites cover unreadable logs */
    evindex_opts serial_o = { .threads = 1 };
    evindex *serial = evindex_build(log, &serial_o, NULL);
    ck_assert_ptr_nonnull(serial);
    /* A clean layout is built in parallel; others (cut short, corrupt) serially. */
    bool parallel = clean && !evindex_truncated(serial);
    size_t n;
    split_block *bl = split_blocks(log, &n);
    size_t step = n > most ? n / most : 1;
    for (size_t i = 0; i < n; i += step) {
        split_compare(name, log, serial, &bl[i].pos, 1, parallel);
        cov->seams++;
        cov->in_run += bl[i].in_run;
        cov->in_gc += bl[i].in_gc;
        /* GHC writes the non-moving phases in the global block, late in the file: a
         * seam lies inside a cycle by time. */
        bool in_cycle = bl[i].in_nm_cycle;
        for (size_t k = 0; k < evindex_n_nm_cycles(serial); k++)
            in_cycle |= evindex_nm_cycle_at(serial, k)->start_ns < bl[i].time_ns &&
                        bl[i].time_ns < evindex_nm_cycle_at(serial, k)->end_ns;
        cov->in_nm_cycle += in_cycle;
        cov->after_create += bl[i].after_create;
    }
    if (n >= 4) {
        uint64_t three[3] = { bl[n / 2 - 1].pos, bl[n / 2].pos, bl[n / 2 + 1].pos };
        split_compare(name, log, serial, three, 3, parallel);
    }
    if (n >= 16) {
        uint64_t seven[7];
        for (size_t k = 0; k < 7; k++)
            seven[k] = bl[(k + 1) * n / 8].pos;
        split_compare(name, log, serial, seven, 7, parallel);
    }
    free(bl);
    evindex_free(serial);
    evlog_close(log);
}

START_TEST(test_split_fixtures_and_corpus)
{
    split_cover cov = { 0 };
    char *dir = test_path("fixtures");
    size_t n;
    char **names = test_list_dir(dir, ".eventlog", &n);
    ck_assert_uint_ge(n, 10);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        split_check_file(path, names[i], 40, true, &cov);
    }
    test_free_names(names, n);
    free(dir);
    char *corpus = test_corpus_dir();
    if (corpus) {
        names = test_list_dir(corpus, ".eventlog", &n);
        for (size_t i = 0; i < n; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", corpus, names[i]);
            split_check_file(path, names[i], 16, false, &cov);
        }
        test_free_names(names, n);
        free(corpus);
    }
    /* Real GHC logs put seams inside runs and after creations (GHC writes no block in
     * the middle of a GC, and the non-moving fixtures are short: the synthetic shapes
     * cover those). */
    ck_assert_uint_gt(cov.in_run, 0);
    ck_assert_uint_gt(cov.after_create, 0);
    if (getenv("SPLIT_COVER"))
        fprintf(stderr, "seams %u: in run %u, in GC %u, in a non-moving cycle %u, after a "
                "creation %u\n", cov.seams, cov.in_run, cov.in_gc, cov.in_nm_cycle,
                cov.after_create);
}
END_TEST

/* Synthetic shapes with small blocks: one capability, two, 64, the non-moving
 * collector, heap-profile bands in the global block, thread churn, sparks. */
START_TEST(test_split_synthetic)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    static const char *const shapes[] = {
        "--caps 1 --size 512K --seed 21 --block-bytes 2048 --labels",
        "--caps 2 --size 512K --seed 22 --block-bytes 2048 --heap --messages-every 50000",
        "--caps 64 --size 1M --seed 23 --block-bytes 1024 --gc-every 2ms",
        "--caps 4 --size 1M --seed 24 --block-bytes 2048 --nonmoving --global-block",
        "--caps 2 --size 1M --seed 25 --block-bytes 4096 --heap-bands 300 --global-block",
        "--caps 2 --churn 20000 --seed 26 --block-bytes 2048",
        "--caps 3 --size 512K --seed 27 --block-bytes 2048 --sparks --heap",
        "--caps 2 --size 512K --seed 28 --block-bytes 2048 --out-of-order",
        "--caps 4 --size 512K --seed 29 --block-bytes 2048 --truncate",
    };
    split_cover cov = { 0 };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char path[] = "/tmp/elog-split-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, shapes[i], path);
        ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", shapes[i]);
        split_check_file(path, shapes[i], 48, true, &cov);
        unlink(path);
    }
    ck_assert_uint_gt(cov.in_run, 0);
    ck_assert_uint_gt(cov.in_gc, 0);
    ck_assert_uint_gt(cov.in_nm_cycle, 0);
    ck_assert_uint_gt(cov.after_create, 0);
    if (getenv("SPLIT_COVER"))
        fprintf(stderr, "seams %u: in run %u, in GC %u, in a non-moving cycle %u, after a "
                "creation %u\n", cov.seams, cov.in_run, cov.in_gc, cov.in_nm_cycle,
                cov.after_create);
}
END_TEST

#define SW(call) ck_assert_int_eq((call), EVWRITE_OK)

/* One block per step on cap 0 (cap 1 runs beside it), so that a seam falls before
 * every event that depends on a state the later thread cannot know: a RUN_THREAD and a
 * GC_START while a run is open, a GC_START while a GC is open, sub-phases, a GC_STATS
 * and a GC_END of a GC started before the seam, a STOP_THREAD of a run started before
 * it. Each seam is checked against the one-thread build. */
START_TEST(test_split_heads)
{
    char path[] = "/tmp/elog-split-heads-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    evwrite *w = evwrite_new(f);
    SW(evwrite_declare_ghc(w));
    SW(evwrite_begin_data(w));
    evwrite_gc_stats st = { 0 };
    st.gen = 1;
    uint64_t t = 1000;
    for (int round = 0; round < 3; round++) {
        SW(evwrite_run_thread(w, 0, t += 100, 1));
        SW(evwrite_run_thread(w, 1, t += 10, 7));
        SW(evwrite_flush_all(w));
        SW(evwrite_run_thread(w, 0, t += 100, 2));            /* cuts run 1 */
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_START, t += 100));       /* cuts run 2 */
        SW(evwrite_stop_thread(w, 1, t += 10, 7, 3, 0));
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_WORK, t += 100));
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_START, t += 100));       /* restarts the GC */
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_WORK, t += 100));
        SW(evwrite_empty(w, 0, EV_GC_IDLE, t += 50));
        SW(evwrite_flush_all(w));
        SW(evwrite_gc_stats_write(w, 0, t += 10, &st));
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_DONE, t += 10));
        SW(evwrite_empty(w, 0, EV_GC_END, t += 10));
        SW(evwrite_flush_all(w));
        SW(evwrite_run_thread(w, 0, t += 100, 3));
        SW(evwrite_flush_all(w));
        SW(evwrite_stop_thread(w, 0, t += 100, 3, 5, 0));
        SW(evwrite_flush_all(w));
        SW(evwrite_empty(w, 0, EV_GC_START, t += 100));
        SW(evwrite_empty(w, 0, EV_GC_END, t += 100));
        SW(evwrite_flush_all(w));
        SW(evwrite_gc_stats_write(w, 0, t += 10, &st));       /* claims the GC before */
        SW(evwrite_flush_all(w));
    }
    SW(evwrite_finish(w));
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(f), 0);
    split_cover cov = { 0 };
    split_check_file(path, "heads", 1000, true, &cov);
    ck_assert_uint_ge(cov.seams, 30);
    ck_assert_uint_gt(cov.in_run, 0);
    ck_assert_uint_gt(cov.in_gc, 0);
    unlink(path);
}
END_TEST

/* Every block of the log (capability and global ones), in file order. Caller frees. */
static uint64_t *
split_all_blocks(const evlog *log, size_t *n_out)
{
    size_t n = 0, cap = 64;
    uint64_t *v = malloc(cap * sizeof *v);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev))
        if (ev.type == EV_BLOCK_MARKER) {
            if (n == cap)
                v = realloc(v, (cap *= 2) * sizeof *v);
            v[n++] = ev.offset;
        }
    *n_out = n;
    return v;
}

/* Seams at up to `most` blocks of every kind spread over the log (all of them if fewer),
 * alone and with the next one (a middle worker, one block long, that may never learn whether a census is
 * open), each build the serial one's; the count of seams that fell inside a census. */
static unsigned
split_check_all_blocks(const char *path, const char *name, size_t most)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(log);
    evindex_opts serial_o = { .threads = 1 };
    evindex *serial = evindex_build(log, &serial_o, NULL);
    ck_assert_ptr_nonnull(serial);
    size_t n;
    uint64_t *bl = split_all_blocks(log, &n);
    size_t step = n > most ? n / most : 1;
    unsigned in_census = 0;
    for (size_t i = 1; i < n; i += step) {
        split_compare(name, log, serial, &bl[i], 1, true);
        if (i + 1 < n)
            split_compare(name, log, serial, &bl[i], 2, true);  /* one block between */
    }
    /* Inside a census: a SAMPLE_BEGIN before the seam, its SAMPLE_END (or the next BEGIN)
     * after it, by the test's own reading of the events. */
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    bool open = false;
    size_t next = 1;
    while (evlog_iter_next(&it, &ev)) {
        while (next < n && bl[next] <= ev.offset) {
            in_census += open && (next - 1) % step == 0;
            next++;
        }
        if (ev.type == EV_HEAP_PROF_SAMPLE_BEGIN || ev.type == EV_HEAP_BIO_PROF_SAMPLE_BEGIN)
            open = true;
        else if (ev.type == EV_HEAP_PROF_SAMPLE_END)
            open = false;
    }
    free(bl);
    evindex_free(serial);
    evlog_close(log);
    return in_census;
}

/* A heap-profile sample: HEAP_PROF_SAMPLE_STRING or, with depth > 0, _COST_CENTRE. */
static void
split_hp_sample(evwrite *w, uint64_t t, uint64_t bytes, const char *label, unsigned depth,
                uint32_t cc0)
{
    if (!depth) {
        SW(evwrite_heap_prof_sample_string(w, EVLOG_NO_CAP, t, bytes, label));
        return;
    }
    uint8_t p[1 + 8 + 1 + 4 * 8] = { 0 };
    for (int i = 0; i < 8; i++)
        p[1 + i] = (uint8_t)(bytes >> (56 - 8 * i));
    p[9] = (uint8_t)depth;
    for (unsigned k = 0; k < depth; k++) {
        uint32_t id = cc0 + k;
        for (int i = 0; i < 4; i++)
            p[10 + 4 * k + i] = (uint8_t)(id >> (24 - 8 * i));
    }
    SW(evwrite_event(w, EVLOG_NO_CAP, EV_HEAP_PROF_SAMPLE_COST_CENTRE, t, p, 10 + 4 * depth));
}

/* A heap profile in the global block cut into small blocks, a seam at every block: inside
 * censuses (before, between and after their samples), on a census's BEGIN and END, in a
 * census with no SAMPLE_END (GHC 8.2), among samples with no census open (dropped), in
 * biographical censuses (placed by their own time), with bands first seen after a seam,
 * bands named twice in a census, cost-centre stacks defined on both sides. */
START_TEST(test_split_heap_global)
{
    char path[] = "/tmp/elog-split-heap-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "wb");
    ck_assert_ptr_nonnull(f);
    evwrite *w = evwrite_new(f);
    SW(evwrite_declare_ghc(w));
    SW(evwrite_begin_data(w));
    uint64_t t = 1000;
    SW(evwrite_heap_prof_begin(w, EVLOG_NO_CAP, t, 1000000, 1));
    static const char *const labels[] = { "ARR_WORDS", "THUNK", "FUN", "[]", "(,)", "MUT_VAR" };
    for (unsigned r = 0; r < 14; r++) {
        SW(evwrite_run_thread(w, 0, t += 100, 1 + r));
        SW(evwrite_flush_all(w));
        if (r % 5 == 1) {       /* a cost centre defined late, used from here on */
            uint8_t p[64] = { 0 };
            uint32_t id = 100 + r;
            for (int i = 0; i < 4; i++)
                p[i] = (uint8_t)(id >> (24 - 8 * i));
            int len = 4 + snprintf((char *)p + 4, 20, "cc%u", r) + 1;
            len += snprintf((char *)p + len, 20, "Mod%u", r) + 1;
            len += snprintf((char *)p + len, 20, "M.hs:%u", r) + 1;
            p[len++] = r % 2;
            SW(evwrite_event(w, EVLOG_NO_CAP, EV_HEAP_PROF_COST_CENTRE, t, p, (size_t)len));
        }
        if (r % 4 == 3)         /* samples with no census open: the serial build drops them */
            split_hp_sample(w, t += 5, 4096, "stray", 0, 0);
        if (r % 6 == 5) {       /* biographical: its own time, earlier */
            uint8_t p[16] = { 0 };
            uint64_t era = r, when = t / 2;
            for (int i = 0; i < 8; i++) {
                p[i] = (uint8_t)(era >> (56 - 8 * i));
                p[8 + i] = (uint8_t)(when >> (56 - 8 * i));
            }
            SW(evwrite_event(w, EVLOG_NO_CAP, EV_HEAP_BIO_PROF_SAMPLE_BEGIN, t += 10, p, 16));
        } else {
            SW(evwrite_heap_prof_sample_begin(w, EVLOG_NO_CAP, t += 10, r));
        }
        SW(evwrite_flush_cap(w, EVLOG_NO_CAP));
        for (unsigned k = 0; k < 6 + r % 4; k++) {
            unsigned depth = r > 1 && k % 3 == 0 ? 1 + (r + k) % 3 : 0;
            char label[32];
            snprintf(label, sizeof label, "%s%u", labels[k % 6], (k + r / 3) % 9);
            split_hp_sample(w, t += 3, 8 * (1 + (r * 7 + k * 13) % 50), label, depth,
                            100 + (r + k) % 8);
            if (k == 2)         /* named twice: adds up */
                split_hp_sample(w, t += 3, 8 * (k + 1), label, depth, 100 + (r + k) % 8);
            if ((k + r) % 3 == 0)
                SW(evwrite_flush_cap(w, EVLOG_NO_CAP));
            if (k == 4 && r % 3 == 0) {
                SW(evwrite_run_thread(w, 0, t += 10, 50 + r));
                SW(evwrite_flush_all(w));
            }
        }
        if (r % 7 != 4) {       /* else no SAMPLE_END: the next BEGIN closes it */
            SW(evwrite_flush_cap(w, EVLOG_NO_CAP));
            SW(evwrite_heap_prof_sample_end(w, EVLOG_NO_CAP, t += 10, r));
        }
        SW(evwrite_flush_cap(w, EVLOG_NO_CAP));
    }
    SW(evwrite_finish(w));
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(f), 0);
    unsigned in_census = split_check_all_blocks(path, "heap global", 1000);
    ck_assert_uint_gt(in_census, 20);
    unlink(path);
}
END_TEST

/* Synthetic logs whose global block holds most of the bytes (heap-profile bands; -hi's
 * IPE events, which only one builder builds: the build walks them all on worker 0
 * again; the non-moving collector's phases, likewise), seams at blocks of every kind. */
START_TEST(test_split_global_synthetic)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    static const char *const shapes[] = {
        "--caps 2 --size 256K --seed 31 --block-bytes 1024 --heap-bands 60 --global-block",
        "--caps 3 --size 256K --seed 32 --block-bytes 2048 --heap-bands 20 --global-block "
        "--heap-profile hi",
        "--caps 2 --size 256K --seed 33 --block-bytes 1024 --heap-bands 30 --global-block "
        "--heap-profile he",
        "--caps 4 --size 256K --seed 34 --block-bytes 1024 --nonmoving --global-block",
    };
    unsigned in_census = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char path[] = "/tmp/elog-split-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, shapes[i], path);
        ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", shapes[i]);
        in_census += split_check_all_blocks(path, shapes[i], 24);
        unlink(path);
    }
    ck_assert_uint_gt(in_census, 0);
}
END_TEST

/* A lane of n runs with gaps, overlaps (clipped) and flags, from a seed. */
static void
split_fill(runlane *rl, size_t n, uint64_t *t, uint64_t *st)
{
    for (size_t i = 0; i < n; i++) {
        *st = *st * 6364136223846793005u + 1442695040888963407u;
        uint64_t r = *st >> 33;
        uint64_t start = r % 7 == 0 && *t > 50 ? *t - 50 : *t + r % 1000;   /* some overlap */
        runlane_run run = { start, start + 1 + r % 5000, (uint32_t)(1 + r % 300),
                            (uint8_t)(r % 16), (uint8_t)(r % 11 == 0 ? RUNLANE_F_OPEN : 0) };
        runlane_append(rl, &run);
        *t = run.end_ns;
    }
}

/* Joining two lanes the stitch's way (the first few one by one, then ranges appended or
 * re-encoded into a copy and spliced, or the second spliced whole) gives the lane one
 * append at a time gives, for every length of the first modulo the chunk. */
START_TEST(test_split_runlane_join)
{
    for (size_t na = 0; na < 3 * RUNLANE_CHUNK; na += 7)
        for (size_t nb = 0; nb < 5 * RUNLANE_CHUNK; nb += 61) {
            uint64_t ta = 1000, st = na * 1000 + nb;
            runlane *whole = runlane_new(), *a = runlane_new(), *b = runlane_new();
            uint64_t st2 = st;
            split_fill(a, na, &ta, &st);
            uint64_t tb = ta;
            split_fill(b, nb, &tb, &st);
            uint64_t tw = 1000;
            split_fill(whole, na, &tw, &st2);
            runlane_append_lane(whole, b);
            size_t k = runlane_join_at(a, b);
            if (k == 0) {
                runlane_splice(a, b);
            } else {
                runlane_append_range(a, b, 0, k);
                size_t n = runlane_count(b);
                size_t mid = k + (n - k) / (2 * RUNLANE_CHUNK) * RUNLANE_CHUNK;
                runlane *second = runlane_copy_range(b, mid, SIZE_MAX);
                runlane_append_range(a, b, k, mid);
                runlane_splice(a, second);
                runlane_free(b);
            }
            char why[256];
            ck_assert_msg(runlane_check(a, why, sizeof why), "%zu+%zu: %s", na, nb, why);
            ck_assert_uint_eq(runlane_count(a), runlane_count(whole));
            ck_assert_uint_eq(runlane_busy_ns(a, 0, UINT64_MAX),
                              runlane_busy_ns(whole, 0, UINT64_MAX));
            for (size_t i = 0; i < runlane_count(a); i++) {
                runlane_run x, y;
                runlane_get(a, i, &x);
                runlane_get(whole, i, &y);
                ck_assert_msg(x.start_ns == y.start_ns && x.end_ns == y.end_ns &&
                              x.tid == y.tid && x.stop == y.stop && x.flags == y.flags,
                              "%zu+%zu: run %zu", na, nb, i);
                ck_assert_uint_eq(runlane_prefix_ns(a, i), runlane_prefix_ns(whole, i));
            }
            runlane_run more = { tb + 10, tb + 20, 5, 0, 0 };      /* appending goes on */
            ck_assert(runlane_append(a, &more));
            ck_assert(runlane_append(whole, &more));
            runlane_seal(a);
            ck_assert_msg(runlane_check(a, why, sizeof why), "%zu+%zu sealed: %s", na, nb, why);
            ck_assert_uint_eq(runlane_count(a), runlane_count(whole));
            runlane_free(a);
            runlane_free(whole);
        }
}
END_TEST

Suite *
test_evindex_split_suite(void)
{
    Suite *s = suite_create("evindex_split");
    TCase *tc = tcase_create("split");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_split_fixtures_and_corpus);
    tcase_add_test(tc, test_split_synthetic);
    tcase_add_test(tc, test_split_heads);
    tcase_add_test(tc, test_split_runlane_join);
    tcase_add_test(tc, test_split_heap_global);
    tcase_add_test(tc, test_split_global_synthetic);
    suite_add_tcase(s, tc);
    return s;
}
