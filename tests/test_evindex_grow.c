/* tests/test_evindex_grow: the index that grows. A log written into a file in random
 * pieces (mid-block, mid-event, one byte to a fifth of the log) and indexed after each
 * piece by one evindex_grow gives, once finished, exactly evindex_build's index of the
 * whole file — on every fixture (real GHC logs) and on synthetic logs with many caps,
 * markers, GCs, the non-moving collector, sparks, heap profiles and threads. Each
 * intermediate index answers as a fresh build of the same bytes for everything that is
 * placed (events, messages, markers, threads, seek, flushes; runs, phases, series,
 * collections and non-moving cycles as prefixes), and the work per step stays
 * proportional to the new data: a grower that rebuilt would fail the work bounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ui/app_int.h"
#include "applive.h"
#include "evindex.h"
#include "evlog.h"
#include "heapprof.h"
#include "livelog.h"
#include "strbuf.h"
#include "surface.h"
#include "tests.h"
#include "threadstats.h"
#include "timeprof.h"
#include "xalloc.h"

static uint64_t
gr_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* What test_evindex_same leaves out: markers, flushes, census, the non-moving series,
 * per-cap spark series and counts by time, the heap profile, GC lookups. */
void
test_heapprof_same(const char *name, const heapprof *a, const heapprof *b)
{
    ck_assert_msg(heapprof_n_censuses(a) == heapprof_n_censuses(b) &&
                  heapprof_n_bands(a) == heapprof_n_bands(b) &&
                  heapprof_n_cost_centres(a) == heapprof_n_cost_centres(b) &&
                  heapprof_breakdown_of(a) == heapprof_breakdown_of(b),
                  "%s: heap profile", name);
    for (size_t i = 0; i < heapprof_n_censuses(a); i++) {
        const heapprof_census *ca = heapprof_census_at(a, i), *cb = heapprof_census_at(b, i);
        ck_assert_msg(ca->time_ns == cb->time_ns && ca->total_bytes == cb->total_bytes &&
                      ca->n_entries == cb->n_entries, "%s: census %zu", name, i);
        for (size_t k = 0; k < ca->n_entries; k++) {
            uint32_t ba, bb;
            uint64_t ya, yb;
            heapprof_entry(a, i, k, &ba, &ya);
            heapprof_entry(b, i, k, &bb, &yb);
            ck_assert_msg(ba == bb && ya == yb, "%s: census %zu entry %zu", name, i, k);
        }
    }
    strbuf na, nb;
    strbuf_init(&na);
    strbuf_init(&nb);
    for (size_t i = 0; i < heapprof_n_bands(a); i++) {
        ck_assert_msg(memcmp(heapprof_band_at(a, i), heapprof_band_at(b, i),
                             sizeof(heapprof_band)) == 0, "%s: band %zu", name, i);
        strbuf_reset(&na);
        strbuf_reset(&nb);
        heapprof_band_name(a, i, &na);
        heapprof_band_name(b, i, &nb);
        ck_assert_msg(na.len == nb.len && memcmp(na.data, nb.data, na.len) == 0,
                      "%s: band %zu's name", name, i);
    }
    strbuf_free(&na);
    strbuf_free(&nb);
    char why[256];
    ck_assert_msg(heapprof_check(b, why, sizeof why), "%s: %s", name, why);
}

void
test_evindex_same_more(const char *name, const evindex *a, const evindex *b)
{
    ck_assert_msg(evindex_n_markers(a) == evindex_n_markers(b), "%s: markers", name);
    for (size_t i = 0; i < evindex_n_markers(a); i++)
        ck_assert_msg(evindex_marker_at(a, i).offset == evindex_marker_at(b, i).offset,
                      "%s: marker %zu", name, i);
    ck_assert_msg(evindex_n_nm_flushes(a) == evindex_n_nm_flushes(b), "%s: flushes", name);
    for (size_t i = 0; i < evindex_n_nm_flushes(a); i++)
        ck_assert_msg(evindex_nm_flush_at(a, i)->time_ns == evindex_nm_flush_at(b, i)->time_ns &&
                      evindex_nm_flush_at(a, i)->cap == evindex_nm_flush_at(b, i)->cap,
                      "%s: flush %zu", name, i);
    ck_assert_msg(evindex_n_nm_census(a) == evindex_n_nm_census(b), "%s: nm census", name);
    for (size_t i = 0; i < evindex_n_nm_census(a); i++)
        ck_assert_msg(memcmp(evindex_nm_census_at(a, i), evindex_nm_census_at(b, i),
                             sizeof(evindex_nm_census)) == 0, "%s: nm census %zu", name, i);
    const series *pa = evindex_nm_pruned(a), *pb = evindex_nm_pruned(b);
    ck_assert_msg(series_count(pa) == series_count(pb), "%s: pruned", name);
    const series *fa = evindex_nm_free_segments(a), *fb = evindex_nm_free_segments(b);
    ck_assert_msg(series_count(fa) == series_count(fb), "%s: free segments", name);
    ck_assert_msg(ivtrack_count(evindex_nm_track(a)) == ivtrack_count(evindex_nm_track(b)),
                  "%s: nm track", name);
    uint64_t f = evindex_first_ns(a), span = evindex_last_ns(a) - f + 1;
    for (size_t l = 0; l < evindex_n_caps(a); l++) {
        for (int k = 0; k < EVINDEX_N_CAP_SPARK; k++) {
            const series *x = evindex_cap_spark_series(a, l, (enum evindex_cap_spark)k);
            const series *y = evindex_cap_spark_series(b, l, (enum evindex_cap_spark)k);
            ck_assert_msg(series_count(x) == series_count(y), "%s: cap spark series", name);
            for (size_t i = 0; i < series_count(x); i++)
                ck_assert_msg(series_get(x, i).value == series_get(y, i).value &&
                              series_get(x, i).time_ns == series_get(y, i).time_ns,
                              "%s: cap spark sample %zu", name, i);
        }
        for (int k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
            for (int q = 0; q < 4; q++) {
                uint64_t t0 = f + span / 4 * (uint64_t)q, t1 = t0 + span / 3;
                ck_assert_msg(evindex_cap_spark_count(a, l, (enum evindex_spark_kind)k, t0, t1) ==
                              evindex_cap_spark_count(b, l, (enum evindex_spark_kind)k, t0, t1),
                              "%s: spark count", name);
            }
    }
    for (int q = 0; q <= 16; q++) {
        uint64_t t = f + span / 16 * (uint64_t)q;
        ck_assert_msg(evindex_gc_first_from(a, t) == evindex_gc_first_from(b, t) &&
                      evindex_gc_containing(a, t) == evindex_gc_containing(b, t) &&
                      evindex_marker_first_from(a, t) == evindex_marker_first_from(b, t),
                      "%s: lookups at %d", name, q);
    }
    const heapprof *ha = evindex_heap_profile(a), *hb = evindex_heap_profile(b);
    ck_assert_msg(heapprof_n_censuses(ha) == heapprof_n_censuses(hb) &&
                  heapprof_n_bands(ha) == heapprof_n_bands(hb) &&
                  heapprof_n_cost_centres(ha) == heapprof_n_cost_centres(hb),
                  "%s: heap profile", name);
    for (size_t i = 0; i < heapprof_n_censuses(ha); i++)
        ck_assert_msg(heapprof_census_at(ha, i)->time_ns == heapprof_census_at(hb, i)->time_ns &&
                      heapprof_census_at(ha, i)->total_bytes ==
                          heapprof_census_at(hb, i)->total_bytes, "%s: census %zu", name, i);
    for (size_t i = 0; i < heapprof_n_bands(ha); i++)
        ck_assert_msg(heapprof_band_at(ha, i)->sum_bytes == heapprof_band_at(hb, i)->sum_bytes &&
                      heapprof_band_at(ha, i)->last_bytes == heapprof_band_at(hb, i)->last_bytes,
                      "%s: band %zu", name, i);
    test_heapprof_same(name, ha, hb);
    ck_assert_msg(evindex_n_gens(a) == evindex_n_gens(b), "%s: generations", name);
    /* The time profile (sealed once, at the end): the same samples and flat profile. */
    const timeprof *tpa = evindex_timeprof(a), *tpb = evindex_timeprof(b);
    ck_assert_msg(timeprof_n_samples(tpa) == timeprof_n_samples(tpb), "%s: profile samples %zu/%zu",
                  name, timeprof_n_samples(tpa), timeprof_n_samples(tpb));
    for (size_t i = 0; i < timeprof_n_samples(tpa); i++) {
        timeprof_sample x = timeprof_sample_at(tpa, i), y = timeprof_sample_at(tpb, i);
        ck_assert_msg(x.time_ns == y.time_ns && x.cap == y.cap && x.depth == y.depth,
                      "%s: profile sample %zu", name, i);
    }
    size_t nra, nrb;
    uint64_t nsa, nsb;
    timeprof_row *ra = timeprof_flat(tpa, 0, UINT64_MAX, TIMEPROF_ANY_CAP, &nra, &nsa);
    timeprof_row *rb = timeprof_flat(tpb, 0, UINT64_MAX, TIMEPROF_ANY_CAP, &nrb, &nsb);
    ck_assert_msg(nra == nrb && nsa == nsb, "%s: flat profile", name);
    for (size_t i = 0; i < nra; i++)
        ck_assert_msg(ra[i].cc == rb[i].cc && ra[i].individual == rb[i].individual &&
                      ra[i].inherited == rb[i].inherited, "%s: flat profile row %zu", name, i);
    x_free(ra);
    x_free(rb);
}

/* A snapshot against a fresh build of the same bytes: equal where placed, a prefix
 * where the fresh build closed what is still open at the cut. */
static void
gr_snapshot_like(const char *name, const evindex *g, const evindex *fresh, size_t n_final)
{
    ck_assert_msg(evindex_n_events(g) == evindex_n_events(fresh), "%s: events", name);
    ck_assert_msg(evindex_first_ns(g) == evindex_first_ns(fresh) &&
                  evindex_last_ns(g) == evindex_last_ns(fresh), "%s: span", name);
    /* Messages are placed up to the horizon: the fresh build's first ones. */
    ck_assert_msg(evindex_n_msgs(g) <= evindex_n_msgs(fresh), "%s: msgs", name);
    for (size_t i = 0; i < evindex_n_msgs(g); i++)
        ck_assert_msg(evindex_msg_at(g, i).offset == evindex_msg_at(fresh, i).offset,
                      "%s: msg %zu", name, i);
    ck_assert_msg(evindex_n_markers(g) <= evindex_n_markers(fresh), "%s: markers", name);
    for (size_t i = 0; i < evindex_n_markers(g); i++)
        ck_assert_msg(evindex_marker_at(g, i).offset == evindex_marker_at(fresh, i).offset,
                      "%s: marker %zu", name, i);
    ck_assert_msg(threadtab_count(evindex_threads(g)) == threadtab_count(evindex_threads(fresh)),
                  "%s: threads", name);
    ck_assert_msg(evindex_n_nm_flushes(g) == evindex_n_nm_flushes(fresh), "%s: flushes", name);
    ck_assert_msg(evindex_n_caps(g) == evindex_n_caps(fresh), "%s: caps", name);
    for (size_t l = 0; l < evindex_n_caps(g); l++) {
        const evindex_cap *x = evindex_cap_at(g, l), *y = evindex_cap_at(fresh, l);
        ck_assert_msg(x->cap == y->cap, "%s: lane %zu", name, l);
        size_t nx = runlane_count(x->runs), ny = runlane_count(y->runs);
        /* The fresh build closes a run still open at the cut: one more at most. */
        ck_assert_msg(nx == ny || nx + 1 == ny, "%s: cap %u runs %zu vs %zu", name, x->cap,
                      nx, ny);
        for (size_t r = 0; r < nx; r++) {
            runlane_run p, q;
            runlane_get(x->runs, r, &p);
            runlane_get(y->runs, r, &q);
            ck_assert_msg(p.start_ns == q.start_ns && p.end_ns == q.end_ns && p.tid == q.tid,
                          "%s: cap %u run %zu", name, x->cap, r);
        }
        size_t px = ivtrack_count(x->gc), py = ivtrack_count(y->gc);
        ck_assert_msg(px <= py, "%s: cap %u phases", name, x->cap);
        for (size_t r = 0; r < px; r++) {
            ivtrack_iv bx, by;
            const ivtrack_iv *ix_ = ivtrack_get(x->gc, r, &bx), *iy = ivtrack_get(y->gc, r, &by);
            ck_assert_msg(ix_->start_ns == iy->start_ns && ix_->end_ns == iy->end_ns,
                          "%s: cap %u phase %zu", name, x->cap, r);
        }
    }
    for (int k = 0; k < EVINDEX_N_SERIES; k++) {
        const series *x = evindex_series(g, (enum evindex_series_id)k);
        const series *y = evindex_series(fresh, (enum evindex_series_id)k);
        ck_assert_msg(series_count(x) <= series_count(y), "%s: series %d", name, k);
        for (size_t i = 0; i < series_count(x); i++)
            ck_assert_msg(series_get(x, i).time_ns == series_get(y, i).time_ns &&
                          series_get(x, i).value == series_get(y, i).value,
                          "%s: series %d sample %zu", name, k, i);
    }
    /* The final collections are the fresh build's first ones. */
    ck_assert_msg(n_final <= evindex_n_gcs(g) && n_final <= evindex_n_gcs(fresh),
                  "%s: final gcs %zu of %zu / %zu", name, n_final, evindex_n_gcs(g),
                  evindex_n_gcs(fresh));
    for (size_t i = 0; i < n_final; i++) {
        const evindex_gc *x = evindex_gc_get(g, i, &(evindex_gc){ 0 });
        const evindex_gc *y = evindex_gc_get(fresh, i, &(evindex_gc){ 0 });
        ck_assert_msg(x->start_ns == y->start_ns && x->end_ns == y->end_ns &&
                      x->request_ns == y->request_ns && x->copied == y->copied &&
                      x->heap_after == y->heap_after && x->live_after == y->live_after &&
                      x->allocated_before == y->allocated_before &&
                      x->n_parts == y->n_parts && x->slowest_cap == y->slowest_cap &&
                      x->flags == y->flags && x->census_ns == y->census_ns,
                      "%s: final GC %zu differs", name, i);
    }
    size_t nc = evindex_n_nm_cycles(g);
    ck_assert_msg(nc <= evindex_n_nm_cycles(fresh), "%s: nm cycles", name);
    for (size_t i = 0; i + 1 < nc; i++)
        ck_assert_msg(evindex_nm_cycle_at(g, i)->start_ns ==
                          evindex_nm_cycle_at(fresh, i)->start_ns &&
                      evindex_nm_cycle_at(g, i)->n_flushes ==
                          evindex_nm_cycle_at(fresh, i)->n_flushes,
                      "%s: nm cycle %zu", name, i);
    /* Seek answers alike over the bytes so far. */
    evseek_hit h1[200], h2[200];
    uint64_t f = evindex_first_ns(g), span = evindex_last_ns(g) - f + 1;
    for (int q = 0; q < 5; q++) {
        uint64_t t0 = f + span / 5 * (uint64_t)q, t1 = t0 + span / 40 + 1;
        bool m1, m2;
        size_t n1 = evseek_range(evindex_seek(g), evindex_log(g), t0, t1, h1, 200, &m1);
        size_t n2 = evseek_range(evindex_seek(fresh), evindex_log(fresh), t0, t1, h2, 200, &m2);
        ck_assert_msg(n1 == n2 && m1 == m2, "%s: seek %d: %zu vs %zu", name, q, n1, n2);
        for (size_t i = 0; i < n1; i++)
            ck_assert_msg(h1[i].offset == h2[i].offset, "%s: seek %d hit %zu", name, q, i);
    }
    char why[256];
    ck_assert_msg(evindex_check(g, why, sizeof why), "%s: %s", name, why);
}

/* Feed `path` to a grower in pieces of random size (seed), checking snapshots against
 * fresh builds every `check_every` steps (0: never), and the finished index against
 * the whole file's. Returns the number of steps. */
static size_t
gr_feed(const char *path, const char *name, uint64_t seed, size_t max_piece, int check_every)
{
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    ck_assert_msg(data != NULL, "%s: unreadable", path);
    if (max_piece > len / 4 + 1)
        max_piece = len / 4 + 1;
    diag d;
    evlog *whole = evlog_open_bytes(data, len, &d);
    ck_assert_msg(whole != NULL, "%s: %s", path, d.msg);
    evindex_opts serial = { .threads = 1 };
    diag we;
    evindex *ref = evindex_build(whole, &serial, &we);
    int fd = test_unlinked_tempfile();
    evlog *log = NULL;
    evindex_grow *g = NULL;
    size_t have = 0, steps = 0;
    uint64_t s = seed;
    while (have < len) {
        size_t piece;
        switch (gr_rand(&s) % 4) {
        case 0: piece = 1 + (size_t)(gr_rand(&s) % 16); break;          /* mid-event */
        case 1: piece = 1 + (size_t)(gr_rand(&s) % 4096); break;
        default: piece = 1 + (size_t)(gr_rand(&s) % max_piece); break;
        }
        if (piece > len - have)
            piece = len - have;
        test_write_all(fd, data + have, piece);
        have += piece;
        if (!log) {
            bool short_header;
            log = evlog_open_growing(fd, have, (size_t)1 << 30, &d, &short_header);
            if (!log)
                continue;
            g = evindex_grow_new(log);
        } else {
            ck_assert(evlog_grow(log, have, &d));
        }
        /* Sometimes in two bounded steps, as the viewer does with its budget. */
        if (gr_rand(&s) % 3 == 0)
            evindex_grow_step(g, 1 + gr_rand(&s) % 2000);
        while (evindex_grow_step(g, UINT64_MAX))
            ;
        steps++;
        ck_assert_uint_eq(evindex_grow_bytes(g) <= have, true);
        if (check_every && steps % (size_t)check_every == 0) {
            evlog *cut = evlog_open_bytes(data, have, &d);
            evindex *fresh = evindex_build(cut, &serial, &d);
            evindex_grow_work w;
            evindex_grow_work_get(g, &w);
            char nm[256];
            snprintf(nm, sizeof nm, "%s at %zu bytes", name, have);
            gr_snapshot_like(nm, evindex_grow_index(g), fresh, (size_t)w.gcs_final);
            evindex_free(fresh);
            evlog_close(cut);
        }
    }
    ck_assert_msg(g != NULL, "%s: no header", name);
    evindex_grow_work w;
    evindex_grow_work_get(g, &w);
    diag ge;
    evindex *grown = evindex_grow_finish(g, &ge);
    char why[256];
    ck_assert_msg(evindex_check(grown, why, sizeof why), "%s: %s", name, why);
    test_evindex_same(name, grown, ref);
    test_evindex_same_more(name, grown, ref);
    ck_assert_int_eq(ge.code, we.code);
    ck_assert_uint_eq(ge.offset, we.offset);
    /* Every event walked once (the work bounds: test_grow_work_is_incremental). */
    ck_assert_uint_eq(w.events_walked, evindex_n_events(grown));
    evindex_free(grown);
    evindex_free(ref);
    evlog_close(log);
    evlog_close(whole);
    close(fd);
    free(data);
    return steps;
}

START_TEST(test_grow_fixtures)
{
    char *dir = test_path("fixtures");
    size_t n;
    char **names = test_list_dir(dir, ".eventlog", &n);
    ck_assert_uint_ge(n, 10);
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            size_t steps = gr_feed(path, names[i], seed * 7 + i, 1 + seed * 20000, 3);
            ck_assert_uint_ge(steps, 2);
        }
        /* Small pieces, as a pipe gives them: one capability's block far behind the
         * others', its items placed late (compared at the end only). */
        for (uint64_t seed = 1; seed <= 4; seed++)
            gr_feed(path, names[i], seed * 1000 + i, 5000, 0);
    }
    test_free_names(names, n);
    free(dir);
}
END_TEST

/* threaded-n4 fed in pieces such that capability 1's block arrives after the others
 * have written a second past it: the placement horizon leaves the quiet capability
 * out, and the join makes collections final. A run the late block opens before them,
 * still open at the next cut, must undo those (GC 137's slowest capability is 1 in a
 * fresh build of the same bytes, none without that run). */
START_TEST(test_grow_quiet_cap_run)
{
    char *path = test_path("fixtures/threaded-n4.eventlog");
    gr_feed(path, "threaded-n4 (quiet cap)", 37, 60001, 3);
    free(path);
}
END_TEST

/* nonmoving-l fed in small pieces: capability 0's one block comes whole, capability 1's
 * by pieces well behind it, so capability 1's items are placed late. A step that places
 * a late spark counter together with new samples earlier than it must feed those
 * samples too: GC 577's heap size and allocation were lost when the series went back
 * to the spark counter's time alone (the live end-to-end test's fifo run hit it). */
START_TEST(test_grow_late_sparks_and_samples)
{
    char *path = test_path("fixtures/nonmoving-l.eventlog");
    gr_feed(path, "nonmoving-l (late spark counters)", 7, 5000, 3);
    free(path);
}
END_TEST

/* Synthetic shapes: many caps, markers and messages, GCs, the non-moving collector,
 * sparks, heap bands in the global block, labels and churned threads, out-of-order
 * and truncated logs, no blocks. */
START_TEST(test_grow_synthetic)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    static const char *const shapes[] = {
        "--caps 16 --size 2M --seed 31 --messages-every 50us --markers-every 1ms",
        "--caps 5 --size 1M --seed 32 --sparks --heap --labels",
        "--caps 8 --size 1M --seed 33 --nonmoving --block-bytes 2048",
        "--caps 3 --size 1M --seed 34 --global-block --heap-bands 12 --ticky",
        "--caps 4 --size 512K --seed 35 --out-of-order --gc-every 2ms",
        "--caps 4 --size 512K --seed 36 --truncate",
        "--caps 2 --size 256K --seed 37 --no-blocks",
        "--caps 2 --churn 3000 --seed 38 --labels",
        "--caps 64 --size 2M --seed 39 --block-bytes 4096 --gc-every 1ms",
        "--caps 4 --size 512K --seed 40 --sparks --out-of-order --messages-every 200us",
    };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        char path[] = "/tmp/elog-grow-synth-XXXXXX";
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        close(fd);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "'%s' %s -o '%s' 2>/dev/null", synth, shapes[i], path);
        ck_assert_msg(system(cmd) == 0, "elog-synth %s failed", shapes[i]);
        gr_feed(path, shapes[i], 100 + i, 60000, 7);
        gr_feed(path, shapes[i], 200 + i, 5000, 0);
        /* Pieces as small as a pipe's, on the smaller shapes (the cost is per piece). */
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size <= 600 * 1024)
            gr_feed(path, shapes[i], 1, 3000, 0);
        unlink(path);
    }
}
END_TEST

/* Growth is not a rebuild: on a log of many collections and messages fed in 200
 * pieces, the spans joined and the items moved over all steps stay within a small
 * multiple of the log's own counts, and a step over a few new bytes at the end of a
 * big index walks only them. */
START_TEST(test_grow_work_is_incremental)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char path[] = "/tmp/elog-grow-work-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --caps 8 --size 4M --seed 41 --messages-every 20us "
             "--gc-every 500us -o '%s' 2>/dev/null", synth, path);
    ck_assert(system(cmd) == 0);
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    diag d;
    int wfd = test_unlinked_tempfile();
    test_write_all(wfd, data, len / 200);
    bool short_header;
    evlog *log = evlog_open_growing(wfd, len / 200, (size_t)1 << 30, &d, &short_header);
    ck_assert(log != NULL);
    evindex_grow *g = evindex_grow_new(log);
    evindex_grow_step(g, UINT64_MAX);
    /* The viewer's thread totals, carried from step to step (threadstats_extend). */
    threadstats_mark mark = { 0 };
    threadstats_row *rows = threadstats_all(evindex_grow_index(g));
    threadstats_mark_take(evindex_grow_index(g), &mark);
    for (size_t k = 2; k <= 200; k++) {
        size_t upto = len * k / 200;
        size_t from = len * (k - 1) / 200;
        test_write_all(wfd, data + from, upto - from);
        ck_assert(evlog_grow(log, upto, &d));
        evindex_grow_work before, after;
        evindex_grow_work_get(g, &before);
        evindex_grow_step(g, UINT64_MAX);
        evindex_grow_work_get(g, &after);
        const evindex *ix = evindex_grow_index(g);
        /* The spans joined in one step: those not yet final (a round of blocks), never
         * the log's: a rebuild would join every span so far at each step. */
        uint64_t parts = 0;
        for (size_t i = 0; i < evindex_n_gcs(ix); i++)
            parts += evindex_gc_get(ix, i, &(evindex_gc){ 0 })->n_parts;
        uint64_t joined = after.spans_joined - before.spans_joined;
        if (k >= 100)
            ck_assert_msg(joined < parts / 3, "step %zu joined %llu spans of %llu", k,
                          (unsigned long long)joined, (unsigned long long)parts);
        ck_assert_uint_eq(after.steps, before.steps + 1);
        ck_assert_uint_eq(after.events_walked, evindex_n_events(ix));
        rows = threadstats_extend(ix, rows, &mark);
        threadstats_mark_take(ix, &mark);
        if (k % 50 == 0) {
            threadstats_row *all = threadstats_all(ix);
            size_t nt = threadtab_count(evindex_threads(ix));
            for (size_t i = 0; i < nt; i++)
                ck_assert_msg(rows[i].run_ns == all[i].run_ns && rows[i].n_runs == all[i].n_runs &&
                              rows[i].first_run_ns == all[i].first_run_ns &&
                              rows[i].last_end_ns == all[i].last_end_ns &&
                              memcmp(rows[i].stops, all[i].stops, sizeof rows[i].stops) == 0,
                              "step %zu: thread row %zu carried differs", k, i);
            x_free(all);
        }
    }
    x_free(rows);
    threadstats_mark_free(&mark);
    evindex_grow_work w;
    evindex_grow_work_get(g, &w);
    const evindex *ix = evindex_grow_index(g);
    ck_assert_uint_gt(evindex_n_gcs(ix), 500);
    ck_assert_uint_gt(evindex_n_msgs(ix), 5000);
    ck_assert_msg(w.items_moved < evindex_n_msgs(ix) * 2, "%llu moved for %zu messages",
                  (unsigned long long)w.items_moved, evindex_n_msgs(ix));
    ck_assert_msg(w.series_rebuilds < 10, "%llu series rebuilds",
                  (unsigned long long)w.series_rebuilds);
    ck_assert_uint_gt(w.gcs_final, evindex_n_gcs(ix) * 9 / 10);
    diag ge;
    evindex *grown = evindex_grow_finish(g, &ge);
    evlog *whole = evlog_open_bytes(data, len, &d);
    evindex *ref = evindex_build(whole, NULL, &d);
    test_evindex_same("work", grown, ref);
    test_evindex_same_more("work", grown, ref);
    evindex_free(ref);
    evindex_free(grown);
    evlog_close(whole);
    evlog_close(log);
    close(wfd);
    free(data);
    unlink(path);
}
END_TEST

static double
gr_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Growth costs the new data, not the log: near the end of a 16 MB log, 40 steps of
 * 4 KB each take less CPU than one build of the whole log (a grower that rebuilt would
 * take 40 builds). CPU time of this thread, so other load does not count. */
START_TEST(test_grow_step_cost)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char path[] = "/tmp/elog-grow-cost-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --caps 4 --size 16M --seed 43 --messages-every 50us "
             "-o '%s' 2>/dev/null", synth, path);
    ck_assert(system(cmd) == 0);
    size_t len;
    uint8_t *data = test_read_file(path, &len);
    diag d;
    evlog *whole = evlog_open_bytes(data, len, &d);
    evindex_opts serial = { .threads = 1 };
    double t0 = gr_cpu_ms();
    evindex *ref = evindex_build(whole, &serial, &d);
    double build_ms = gr_cpu_ms() - t0;
    int wfd = test_unlinked_tempfile();
    size_t have = len - 40 * 4096;
    test_write_all(wfd, data, have);
    bool short_header;
    evlog *log = evlog_open_growing(wfd, have, (size_t)1 << 30, &d, &short_header);
    ck_assert(log != NULL);
    evindex_grow *g = evindex_grow_new(log);
    evindex_grow_step(g, UINT64_MAX);
    double steps_ms = 0;
    for (int k = 0; k < 40; k++) {
        size_t piece = have + 4096 <= len ? 4096 : len - have;
        test_write_all(wfd, data + have, piece);
        have += piece;
        ck_assert(evlog_grow(log, have, &d));
        t0 = gr_cpu_ms();
        evindex_grow_step(g, UINT64_MAX);
        steps_ms += gr_cpu_ms() - t0;
    }
    ck_assert_msg(steps_ms < build_ms, "40 small steps took %.1f ms of CPU, one whole build "
                  "%.1f ms", steps_ms, build_ms);
    diag ge;
    evindex *grown = evindex_grow_finish(g, &ge);
    test_evindex_same("cost", grown, ref);
    evindex_free(grown);
    evindex_free(ref);
    evlog_close(log);
    evlog_close(whole);
    close(wfd);
    free(data);
    unlink(path);
}
END_TEST

/* The viewer over a file followed as it is written: each poll indexes what came and
 * puts the same, grown index in the app's place (its thread totals carried over the
 * runs added equal a fresh count); at the end marker the header says the program ended
 * and the index is the file's own. */
START_TEST(test_grow_viewer)
{
    char *fx = test_path("fixtures/threaded-n4.eventlog");
    size_t len;
    uint8_t *data = test_read_file(fx, &len);
    char path[] = "/tmp/elog-grow-view.XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    size_t have = len / 5;
    test_write_all(fd, data, have);
    livesrc_opts so = { .follow = true };
    diag d;
    livelog *l = livelog_open(path, &so, &d);
    ck_assert(l != NULL);
    for (int i = 0; i < 200 && !livelog_log(l); i++)
        ck_assert(livelog_update(l, 10, NULL, &d));
    ck_assert(livelog_log(l) != NULL);
    applive *lv = applive_new(l, 0);
    app_opts ao = { .mouse = false };
    app *a = app_new(applive_index(lv), "grow", 120, 40, &ao);
    applive_attach(lv, a);
    surface *sf = surface_new(120, 40);
    uint64_t s = 5;
    uint64_t last_events = 0;
    int carried = 0;
    while (have < len) {
        size_t piece = 1 + (size_t)(gr_rand(&s) % (len / 8));
        if (piece > len - have)
            piece = len - have;
        test_write_all(fd, data + have, piece);
        have += piece;
        for (int i = 0; i < 300 && evindex_n_events(applive_index(lv)) == last_events; i++) {
            struct timespec ts = { 0, 10000000 };
            nanosleep(&ts, NULL);
            applive_poll(lv, a);
        }
        const evindex *ix = applive_index(lv);
        ck_assert_ptr_eq(a->ix, ix);
        ck_assert_uint_gt(evindex_n_events(ix), last_events);
        last_events = evindex_n_events(ix);
        app_draw(a, sf);            /* the detail pane counts thread totals once */
        if (a->thread_memo.rows) {
            carried++;
            threadstats_row *all = threadstats_all(ix);
            for (size_t i = 0; i < threadtab_count(evindex_threads(ix)); i++)
                ck_assert_msg(all[i].run_ns == a->thread_memo.rows[i].run_ns &&
                              all[i].n_runs == a->thread_memo.rows[i].n_runs,
                              "thread row %zu carried differs", i);
            x_free(all);
        }
        if (have < len)
            ck_assert_msg(strstr(a->live_text, "live") != NULL, "%s", a->live_text);
    }
    for (int i = 0; i < 300 && !strstr(a->live_text, "program ended"); i++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        applive_poll(lv, a);
    }
    ck_assert_msg(strstr(a->live_text, "program ended") != NULL, "%s", a->live_text);
    ck_assert_int_ge(carried, 3);
    evlog *whole = evlog_open_bytes(data, len, &d);
    evindex *ref = evindex_build(whole, NULL, &d);
    test_evindex_same("viewer", applive_index(lv), ref);
    ck_assert_ptr_eq(a->ix, applive_index(lv));
    app_draw(a, sf);
    surface_free(sf);
    app_free(a);
    applive_free(lv);
    livelog_close(l);
    evindex_free(ref);
    evlog_close(whole);
    close(fd);
    unlink(path);
    free(data);
    free(fx);
}
END_TEST

Suite *
test_evindex_grow_suite(void)
{
    Suite *s = suite_create("evindex_grow");
    TCase *tc = tcase_create("grow");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_grow_fixtures);
    tcase_add_test(tc, test_grow_quiet_cap_run);
    tcase_add_test(tc, test_grow_late_sparks_and_samples);
    tcase_add_test(tc, test_grow_synthetic);
    tcase_add_test(tc, test_grow_work_is_incremental);
    tcase_add_test(tc, test_grow_step_cost);
    tcase_add_test(tc, test_grow_viewer);
    suite_add_tcase(s, tc);
    return s;
}
