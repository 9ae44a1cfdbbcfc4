/* tests/test_evindex: the timeline index. Hand-built logs with known answers (a
 * parallel GC, a non-threaded GC, truncation, messages, labels, non-moving cycles,
 * sparks, series); cross-checks against gcstats, threadtab and a brute-force scan on
 * every fixture and corpus log; a seeded property test against a brute-force replay
 * of random multi-cap logs; golden `gc`/`markers`/`threads` tables and a JSON check. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "gcstats.h"
#include "merge.h"
#include "reports.h"
#include "tests.h"
#include "threadstats.h"
#include "xalloc.h"

#define EW(call) ck_assert_int_eq((call), EVWRITE_OK)


/* The record of a thread that must be in the table. */
static threadtab_thread
ei_thread(const threadtab *tt, uint32_t tid)
{
    threadtab_thread t;
    memset(&t, 0, sizeof t);
    ck_assert_msg(threadtab_find(tt, tid, &t), "thread %u not in the table", tid);
    return t;
}

static uint64_t
ei_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A number in [0, n); 0 when n is 0. */
static uint64_t
ei_below(uint64_t *s, uint64_t n)
{
    return n ? ei_rng(s) % n : 0;
}

static uint64_t
ei_max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Length of [a, b) ∩ [lo, hi). */
static uint64_t
ei_overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
    return e > s ? e - s : 0;
}

/* ---- logs in memory and their index ------------------------------------------------ */

typedef struct ei_mem {
    char *data;                 /* open_memstream's buffer: free() */
    size_t len;
    FILE *f;
    uint64_t n_events;          /* evwrite_events at the end */
} ei_mem;

static evwrite *
ei_writer(ei_mem *m)
{
    m->data = NULL;
    m->len = 0;
    m->f = open_memstream(&m->data, &m->len);
    ck_assert_ptr_nonnull(m->f);
    evwrite *w = evwrite_new(m->f);
    EW(evwrite_declare_ghc(w));
    EW(evwrite_begin_data(w));
    return w;
}

/* End the log (or leave it truncated, keeping `keep` bytes of the last event). */
static void
ei_finish(ei_mem *m, evwrite *w, bool truncate, size_t keep)
{
    if (truncate)
        EW(evwrite_finish_truncated(w, keep));
    else
        EW(evwrite_finish(w));
    m->n_events = evwrite_events(w);
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(m->f), 0);
}

typedef struct ei_case {
    char *bytes;                /* owned (free()), NULL for a file */
    evlog *log;
    evindex *ix;
    diag ending;
} ei_case;

static void
ei_assert_check(const evindex *ix, const char *what)
{
    char why[256] = "";
    ck_assert_msg(evindex_check(ix, why, sizeof why), "%s: evindex_check: %s", what, why);
}

/* Split builds of c's log (len bytes) with the seam at each eighth: each sound and the
 * same as c's index. Returns how many of them used both workers. */
static unsigned
ei_assert_seams(const ei_case *c, size_t len, const char *what)
{
    unsigned n_par = 0;
    for (unsigned k = 1; k < 8; k++) {
        uint64_t seam = len * k / 8;
        evindex_opts o = { .threads = 1, .split_at = &seam, .n_split = 1 };
        evindex *sx = evindex_build(c->log, &o, NULL);
        ck_assert_ptr_nonnull(sx);
        char name[96];
        snprintf(name, sizeof name, "%s, seam at %llu", what, (unsigned long long)seam);
        ei_assert_check(sx, name);
        test_evindex_same(name, c->ix, sx);
        n_par += evindex_threads_used(sx) == 2;
        evindex_free(sx);
    }
    return n_par;
}

/* Index the bytes of `m` (taking them over). */
static void
ei_open_mem(ei_case *c, ei_mem *m)
{
    memset(c, 0, sizeof *c);
    c->bytes = m->data;
    m->data = NULL;
    diag d;
    c->log = evlog_open_bytes((const uint8_t *)c->bytes, m->len, &d);
    ck_assert_msg(c->log != NULL, "evlog_open_bytes: %s", d.msg);
    c->ix = evindex_build(c->log, NULL, &c->ending);
    ck_assert_ptr_nonnull(c->ix);
    ei_assert_check(c->ix, "synthetic log");
}

static void
ei_close(ei_case *c)
{
    evindex_free(c->ix);
    evlog_close(c->log);
    free(c->bytes);
}

static const evindex_cap *
ei_lane(const evindex *ix, uint16_t cap)
{
    size_t l = evindex_lane_of(ix, cap);
    ck_assert_msg(l != SIZE_MAX, "no lane for cap %u", cap);
    return evindex_cap_at(ix, l);
}

static void
ei_assert_run(const evindex *ix, uint16_t cap, size_t i, uint64_t start, uint64_t end,
              uint32_t tid, uint8_t stop, uint8_t flags)
{
    const runlane *rl = ei_lane(ix, cap)->runs;
    ck_assert_uint_gt(runlane_count(rl), i);
    runlane_run r;
    runlane_get(rl, i, &r);
    ck_assert_msg(r.start_ns == start && r.end_ns == end && r.tid == tid && r.stop == stop &&
                      r.flags == flags,
                  "cap %u run %zu: got %llu..%llu tid %u stop %u flags %u, want %llu..%llu "
                  "tid %u stop %u flags %u", cap, i, (unsigned long long)r.start_ns,
                  (unsigned long long)r.end_ns, r.tid, r.stop, r.flags,
                  (unsigned long long)start, (unsigned long long)end, tid, stop, flags);
}

static void
ei_assert_iv(const ivtrack *tr, size_t i, uint64_t start, uint64_t end, uint8_t kind,
             uint32_t ref)
{
    ck_assert_uint_gt(ivtrack_count(tr), i);
    ivtrack_iv iv_buf;
    const ivtrack_iv *iv = ivtrack_get(tr, i, &iv_buf);
    ck_assert_msg(iv->start_ns == start && iv->end_ns == end && iv->kind == kind &&
                      iv->ref == ref,
                  "interval %zu: got %llu..%llu kind %u ref %u, want %llu..%llu kind %u ref %u",
                  i, (unsigned long long)iv->start_ns, (unsigned long long)iv->end_ns,
                  iv->kind, iv->ref, (unsigned long long)start, (unsigned long long)end, kind,
                  ref);
}

static void
ei_stats(evwrite *w, uint16_t cap, uint64_t t, uint16_t gen, uint64_t copied, uint32_t par)
{
    evwrite_gc_stats s = { .gen = gen, .copied_bytes = copied, .slop_bytes = 11,
                           .frag_bytes = 22, .par_threads = par,
                           .par_max_copied_bytes = copied / 2,
                           .par_tot_copied_bytes = copied,
                           .par_balanced_copied_bytes = copied / 4 };
    EW(evwrite_gc_stats_write(w, cap, t, &s));
}

/* Events of `type` in the log (BLOCK_MARKERs are events to the index, not to evwrite). */
static uint64_t
ei_count_type(const evlog *log, uint16_t type)
{
    evlog_iter it;
    evlog_event ev;
    uint64_t n = 0;
    evlog_iter_init(&it, log);
    while (evlog_iter_next(&it, &ev))
        n += ev.type == type;
    return n;
}

static bool
ei_text_is(const evindex *ix, const evindex_msg *m, const char *want)
{
    const uint8_t *p;
    size_t n;
    return evindex_msg_text(ix, m, &p, &n) && n == strlen(want) && memcmp(p, want, n) == 0;
}

/* ---- 1. hand-built logs -------------------------------------------------------------- */

/* Two caps, one parallel GC in GHC 9.0's file order. Cap 1 runs thread 2 until 4.9 us,
 * requests a parallel GC at 5 us and leads it (GC_START 5.6 us, GC_STATS written before
 * its GC_END, which is stamped 8.7 us). Cap 0 runs thread 1 until 5.2 us (so it is the
 * one the GC waits for), then works in the GC 6..9 us. */
static void
ei_par_gc_log(ei_mem *m)
{
    evwrite *w = ei_writer(m);
    EW(evwrite_heap_info(w, 0, 100, 0, 2, 0, 1u << 20, 1u << 20, 4096));
    EW(evwrite_create_thread(w, 0, 900, 1));
    EW(evwrite_run_thread(w, 0, 1000, 1));
    EW(evwrite_stop_thread(w, 0, 5200, 1, 3, 0));
    EW(evwrite_empty(w, 0, EV_GC_START, 6000));
    EW(evwrite_empty(w, 0, EV_GC_WORK, 6100));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 8000));
    EW(evwrite_empty(w, 0, EV_GC_DONE, 8100));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 8600, 0, 40000));
    EW(evwrite_empty(w, 0, EV_GC_END, 9000));
    EW(evwrite_run_thread(w, 0, 9500, 1));
    EW(evwrite_stop_thread(w, 0, 12000, 1, 5, 0));

    EW(evwrite_create_thread(w, 1, 400, 2));
    EW(evwrite_run_thread(w, 1, 500, 2));
    EW(evwrite_stop_thread(w, 1, 4900, 2, 1, 0));
    EW(evwrite_empty(w, 1, EV_REQUEST_PAR_GC, 5000));
    EW(evwrite_empty(w, 1, EV_GC_START, 5600));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 6200));
    EW(evwrite_empty(w, 1, EV_GC_IDLE, 7500));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 7600));
    EW(evwrite_empty(w, 1, EV_GC_DONE, 8500));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_ALLOCATED, 8610, 0, 60000));
    EW(evwrite_empty(w, 1, EV_GC_GLOBAL_SYNC, 8750));
    ei_stats(w, 1, 8800, 1, 4096, 2);
    EW(evwrite_empty(w, 1, EV_GC_END, 8700));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_LIVE, 8850, 0, 3000));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_SIZE, 8900, 0, 1u << 20));
    EW(evwrite_run_thread(w, 1, 9100, 2));
    EW(evwrite_stop_thread(w, 1, 11000, 2, 7, 0));
    ei_finish(m, w, false, 0);
}

START_TEST(test_evindex_parallel_gc)
{
    ei_mem m;
    ei_par_gc_log(&m);
    uint64_t n_events = m.n_events;
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;
    ck_assert_int_eq(c.ending.code, DIAG_OK);
    ck_assert(!evindex_truncated(ix));
    ck_assert_uint_eq(ei_count_type(c.log, EV_BLOCK_MARKER), 2);
    ck_assert_uint_eq(evindex_n_events(ix), n_events + 2);
    ck_assert_uint_eq(evindex_first_ns(ix), 100);
    ck_assert_uint_eq(evindex_last_ns(ix), 12000);
    ck_assert_uint_eq(evindex_n_gens(ix), 2);
    ck_assert_uint_eq(evindex_n_caps(ix), 2);
    ck_assert_uint_eq(evindex_cap_at(ix, 0)->cap, 0);
    ck_assert_uint_eq(evindex_cap_at(ix, 1)->cap, 1);
    ck_assert_uint_eq(evindex_lane_of(ix, 1), 1);
    ck_assert_uint_eq(evindex_lane_of(ix, 2), SIZE_MAX);

    ck_assert_uint_eq(evindex_n_gcs(ix), 1);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
    ck_assert_uint_eq(g->start_ns, 5600);       /* the leader's own span */
    ck_assert_uint_eq(g->end_ns, 8700);
    ck_assert_uint_eq(g->leader_cap, 1);
    ck_assert_uint_eq(g->request_ns, 5000);
    ck_assert_uint_eq(g->request_cap, 1);
    /* Time to stop: the request .. the leader's GC_START (cap 0, the last to stop,
     * stopped at 5.2 us). */
    ck_assert_uint_eq(g->stopping_ns, 600);
    ck_assert_uint_eq(g->census_ns, 0);
    ck_assert_uint_eq(g->slowest_cap, 0);
    ck_assert_uint_eq(g->global_sync_ns, 8750);
    ck_assert_uint_eq(g->gen, 1);
    ck_assert_uint_eq(g->copied, 4096);
    ck_assert_uint_eq(g->slop, 11);
    ck_assert_uint_eq(g->frag, 22);
    ck_assert_uint_eq(g->par_threads, 2);
    ck_assert_uint_eq(g->par_max_copied, 2048);
    ck_assert_uint_eq(g->par_tot_copied, 4096);
    ck_assert_uint_eq(g->par_balanced, 1024);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_PAR_REQUEST | EVINDEX_GC_F_MAJOR |
                                    EVINDEX_GC_F_HAS_BALANCE);
    ck_assert_uint_eq(g->heap_after, 1u << 20);
    ck_assert_uint_eq(g->live_after, 3000);
    ck_assert_uint_eq(g->allocated_before, 100000);

    /* Parts in start order: the leader (5.6 us) then the worker (6 us). */
    ck_assert_uint_eq(g->n_parts, 2);
    evindex_gc_part p1_buf;
    const evindex_gc_part *p1 = evindex_gc_part_get(ix, g->first_part, &p1_buf);
    evindex_gc_part p0_buf;
    const evindex_gc_part *p0 = evindex_gc_part_get(ix, g->first_part + 1, &p0_buf);
    ck_assert_uint_eq(p1->cap, 1);
    ck_assert_uint_eq(p1->start_ns, 5600);
    ck_assert_uint_eq(p1->end_ns, 8700);
    ck_assert_uint_eq(p1->stop_ns, 5000);       /* idle at the request */
    ck_assert_uint_eq(p1->work_ns, 1300 + 900);
    ck_assert_uint_eq(p1->wait_ns, 600 + 100 + 200);
    ck_assert_uint_eq(p0->cap, 0);
    ck_assert_uint_eq(p0->start_ns, 6000);
    ck_assert_uint_eq(p0->end_ns, 9000);
    ck_assert_uint_eq(p0->stop_ns, 5200);
    ck_assert_uint_eq(p0->work_ns, 1900);
    ck_assert_uint_eq(p0->wait_ns, 100 + 100 + 900);

    /* The GC phases on each capability's track, all pointing at collection 0. */
    const ivtrack *t0 = ei_lane(ix, 0)->gc, *t1 = ei_lane(ix, 1)->gc;
    ck_assert_uint_eq(ivtrack_count(t0), 4);
    ei_assert_iv(t0, 0, 6000, 6100, EVINDEX_GC_WAIT, 0);
    ei_assert_iv(t0, 1, 6100, 8000, EVINDEX_GC_WORK, 0);
    ei_assert_iv(t0, 2, 8000, 8100, EVINDEX_GC_WAIT, 0);
    ei_assert_iv(t0, 3, 8100, 9000, EVINDEX_GC_WAIT, 0);
    ck_assert_uint_eq(ivtrack_count(t1), 5);
    ei_assert_iv(t1, 0, 5600, 6200, EVINDEX_GC_WAIT, 0);
    ei_assert_iv(t1, 1, 6200, 7500, EVINDEX_GC_WORK, 0);
    ei_assert_iv(t1, 2, 7500, 7600, EVINDEX_GC_WAIT, 0);
    ei_assert_iv(t1, 3, 7600, 8500, EVINDEX_GC_WORK, 0);
    ei_assert_iv(t1, 4, 8500, 8700, EVINDEX_GC_WAIT, 0);
    ck_assert_uint_eq(ivtrack_kind_ns(t1, EVINDEX_GC_WORK, 0, UINT64_MAX), 2200);
    ck_assert_uint_eq(ivtrack_kind_ns(t0, EVINDEX_GC_WAIT, 7000, 8500), 100 + 400);

    /* Thread runs with their stop statuses. */
    ck_assert_uint_eq(runlane_count(ei_lane(ix, 0)->runs), 2);
    ei_assert_run(ix, 0, 0, 1000, 5200, 1, 3, 0);
    ei_assert_run(ix, 0, 1, 9500, 12000, 1, 5, 0);
    ck_assert_uint_eq(runlane_count(ei_lane(ix, 1)->runs), 2);
    ei_assert_run(ix, 1, 0, 500, 4900, 2, 1, 0);
    ei_assert_run(ix, 1, 1, 9100, 11000, 2, 7, 0);
    const threadtab *tt = evindex_threads(ix);
    ck_assert_uint_eq(threadtab_count(tt), 2);
    threadstats_row st1, st2;
    threadstats_of(ix, 1, &st1);
    threadstats_of(ix, 2, &st2);
    ck_assert_uint_eq(st1.run_ns, 4200 + 2500);
    ck_assert_uint_eq(st2.run_ns, 4400 + 1900);
    ck_assert_uint_eq(st2.n_runs, 2);
    ck_assert_uint_eq(st2.first_run_ns, 500);
    ck_assert_uint_eq(st2.last_end_ns, 11000);
    ck_assert_uint_eq(st2.last_cap, evindex_cap_at(ix, 1)->cap);
    ck_assert_uint_eq(ei_thread(tt, 2).create_ns, 400);
    ck_assert_uint_eq(st2.stops[THREADTAB_STOP_HEAP_OVERFLOW], 1);
    ck_assert_uint_eq(st2.stops[THREADTAB_STOP_MVAR], 1);
    ck_assert_uint_eq(st2.stops[THREADTAB_STOP_YIELD], 0);

    /* Lookups by time. */
    ck_assert_uint_eq(evindex_gc_containing(ix, 5600), 0);
    ck_assert_uint_eq(evindex_gc_containing(ix, 8699), 0);
    ck_assert_uint_eq(evindex_gc_containing(ix, 8700), SIZE_MAX);
    ck_assert_uint_eq(evindex_gc_containing(ix, 5599), SIZE_MAX);
    ck_assert_uint_eq(evindex_gc_first_from(ix, 5600), 0);
    ck_assert_uint_eq(evindex_gc_first_from(ix, 5601), 1);

    /* Allocation: both caps' HEAP_ALLOCATED summed. */
    const series *al = evindex_series(ix, EVINDEX_S_ALLOCATED);
    ck_assert_uint_eq(series_count(al), 2);
    ck_assert_uint_eq(series_get(al, 0).value, 40000);
    ck_assert_uint_eq(series_get(al, 1).value, 100000);
    ck_assert_uint_eq(series_get(al, 1).time_ns, 8610);

    /* The `gc` table row for it. */
    strbuf out;
    strbuf_init(&out);
    reports_opts o = { 0 };
    reports_gc(&out, ix, &o);
    const char *nl = strchr(out.data, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_str_eq(nl + 1, "5600\t3100\t600\t0\t5000\t1\t2\t4096\t3000\t1048576\t100000\t1\t1\t0\t"
                             "par-request,major\t1:2200,0:1900\t1:900,0:1100\n");
    strbuf_free(&out);
    ei_close(&c);
}
END_TEST

/* A non-threaded RTS: GC_START .. GC_END with no sub-phases, no request. */
START_TEST(test_evindex_nonthreaded_gc)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_run_thread(w, 0, 100, 1));
    EW(evwrite_stop_thread(w, 0, 200, 1, 1, 0));
    EW(evwrite_empty(w, 0, EV_GC_START, 300));
    EW(evwrite_empty(w, 0, EV_GC_END, 700));
    ei_stats(w, 0, 720, 0, 100, 1);
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 730, 0, 4u << 20));
    EW(evwrite_run_thread(w, 0, 800, 1));
    EW(evwrite_stop_thread(w, 0, 900, 1, 5, 0));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;
    ck_assert_uint_eq(evindex_n_gcs(ix), 1);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
    ck_assert_uint_eq(g->start_ns, 300);
    ck_assert_uint_eq(g->end_ns, 700);
    ck_assert_uint_eq(g->request_ns, 300);
    ck_assert_uint_eq(g->request_cap, EVINDEX_NO_CAP);
    ck_assert_uint_eq(g->slowest_cap, EVINDEX_NO_CAP);
    ck_assert_uint_eq(g->stopping_ns, EVINDEX_NO_TIME);     /* no request: unknown */
    ck_assert_uint_eq(g->gen, 0);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_HAS_BALANCE);
    ck_assert_uint_eq(g->live_after, EVINDEX_NO_TIME);
    ck_assert_uint_eq(g->heap_after, 4u << 20);
    ck_assert_uint_eq(g->allocated_before, EVINDEX_NO_TIME);
    ck_assert_uint_eq(g->n_parts, 1);
    evindex_gc_part p_buf;
    const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part, &p_buf);
    ck_assert_uint_eq(p->work_ns, 400);
    ck_assert_uint_eq(p->wait_ns, 0);
    ck_assert_uint_eq(p->stop_ns, 300);
    const ivtrack *tr = ei_lane(ix, 0)->gc;
    ck_assert_uint_eq(ivtrack_count(tr), 1);
    ei_assert_iv(tr, 0, 300, 700, EVINDEX_GC_WORK, 0);
    ei_assert_run(ix, 0, 0, 100, 200, 1, 1, 0);
    ei_assert_run(ix, 0, 1, 800, 900, 1, 5, 0);
    ei_close(&c);
}
END_TEST

/* GC spans whose values do not fit the 32 bits a span keeps them in while it waits
 * for the join (longer than 4.3 s, a first GC_WORK 2 s in, 4.5 s of work; a 5 s GC
 * whose work and wait fit but not its end, set after its GC_STATS; one with no GC_END
 * 5 s before the log's end), and GC_STATS whose byte counts do not fit 32 bits: the
 * index keeps them exact, serial and split at every seam (a lane's wide spans and
 * wide GC_STATS on both sides of a seam). Cap 2's run, open at the end,
 * ends at the first GC_WORK of the next GC without GC_STATS (cap 0's, 2 s in). */
#define EI_G 1000000000ull
static void
ei_long_gc_log(ei_mem *m)
{
    evwrite *w = ei_writer(m);
    EW(evwrite_create_thread(w, 2, 100, 3));
    EW(evwrite_create_thread(w, 0, 900, 1));
    EW(evwrite_run_thread(w, 0, 1000, 1));
    EW(evwrite_stop_thread(w, 0, 5200, 1, 3, 0));
    EW(evwrite_empty(w, 0, EV_GC_START, 6000));
    EW(evwrite_empty(w, 0, EV_GC_WORK, 6100));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 8000));
    EW(evwrite_empty(w, 0, EV_GC_END, 9000));
    EW(evwrite_create_thread(w, 1, 400, 2));
    EW(evwrite_run_thread(w, 1, 500, 2));
    EW(evwrite_stop_thread(w, 1, 4900, 2, 1, 0));
    EW(evwrite_empty(w, 1, EV_REQUEST_PAR_GC, 5000));
    EW(evwrite_empty(w, 1, EV_GC_START, 5600));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 6 * EI_G + 5600));
    EW(evwrite_empty(w, 1, EV_GC_IDLE, 11 * EI_G + 5600));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 11 * EI_G + 6600));
    EW(evwrite_empty(w, 1, EV_GC_DONE, 11 * EI_G + 7600));
    ei_stats(w, 1, 11 * EI_G + 8000, 0, 5 * EI_G, 2);
    EW(evwrite_empty(w, 1, EV_GC_END, 16 * EI_G));
    EW(evwrite_flush_all(w));
    EW(evwrite_run_thread(w, 2, 20 * EI_G, 3));
    EW(evwrite_empty(w, 0, EV_GC_START, 21 * EI_G));
    EW(evwrite_empty(w, 0, EV_GC_WORK, 23 * EI_G));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 27 * EI_G));
    EW(evwrite_empty(w, 0, EV_GC_END, 28 * EI_G));
    EW(evwrite_flush_all(w));
    EW(evwrite_empty(w, 1, EV_GC_START, 30 * EI_G));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 30 * EI_G + 100));
    EW(evwrite_empty(w, 1, EV_GC_DONE, 34 * EI_G + 500000100));
    ei_stats(w, 1, 34 * EI_G + 600000000, 1, 64, 1);
    EW(evwrite_empty(w, 1, EV_GC_END, 35 * EI_G));
    EW(evwrite_run_thread(w, 1, 36 * EI_G, 2));
    EW(evwrite_stop_thread(w, 1, 37 * EI_G, 2, 5, 0));
    /* Only its end does not fit, after its GC_STATS. */
    EW(evwrite_empty(w, 1, EV_GC_START, 40 * EI_G));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 40 * EI_G + 10));
    EW(evwrite_empty(w, 1, EV_GC_IDLE, 43 * EI_G));
    ei_stats(w, 1, 44 * EI_G, 0, 8 * EI_G, 1);
    EW(evwrite_empty(w, 1, EV_GC_WORK, 44 * EI_G + 100));   /* after its GC_STATS */
    EW(evwrite_empty(w, 1, EV_GC_IDLE, 44 * EI_G + 200));
    EW(evwrite_empty(w, 1, EV_GC_END, 45 * EI_G));
    /* A short one with a GC_WORK after its GC_STATS. */
    EW(evwrite_empty(w, 1, EV_GC_START, 45 * EI_G + 500));
    EW(evwrite_empty(w, 1, EV_GC_WORK, 45 * EI_G + 510));
    ei_stats(w, 1, 45 * EI_G + 520, 0, 256, 1);
    EW(evwrite_empty(w, 1, EV_GC_WORK, 45 * EI_G + 530));
    EW(evwrite_empty(w, 1, EV_GC_END, 45 * EI_G + 540));
    /* No GC_END: closed at the log's end, 5 s on. */
    EW(evwrite_empty(w, 0, EV_GC_START, 46 * EI_G));
    EW(evwrite_run_thread(w, 1, 50 * EI_G, 2));
    EW(evwrite_stop_thread(w, 1, 51 * EI_G, 2, 5, 0));
    ei_finish(m, w, false, 0);
}

static void
ei_assert_part(const evindex *ix, uint32_t i, uint16_t cap, uint64_t start, uint64_t end,
               uint64_t work, uint64_t wait)
{
    evindex_gc_part p_buf;
    const evindex_gc_part *p = evindex_gc_part_get(ix, i, &p_buf);
    ck_assert_msg(p->cap == cap && p->start_ns == start && p->end_ns == end &&
                      p->work_ns == work && p->wait_ns == wait,
                  "part %u: cap %u %llu..%llu work %llu wait %llu, want cap %u %llu..%llu "
                  "work %llu wait %llu", i, p->cap, (unsigned long long)p->start_ns,
                  (unsigned long long)p->end_ns, (unsigned long long)p->work_ns,
                  (unsigned long long)p->wait_ns, cap, (unsigned long long)start,
                  (unsigned long long)end, (unsigned long long)work,
                  (unsigned long long)wait);
}

START_TEST(test_evindex_long_gc_spans)
{
    ei_mem m;
    ei_long_gc_log(&m);
    size_t len = m.len;
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;
    ck_assert_uint_eq(evindex_n_gcs(ix), 6);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
    ck_assert_uint_eq(g->start_ns, 5600);
    ck_assert_uint_eq(g->end_ns, 16 * EI_G);
    ck_assert_uint_eq(g->leader_cap, 1);
    ck_assert_uint_eq(g->copied, 5 * EI_G);
    ck_assert_uint_eq(g->par_tot_copied, 5 * EI_G);
    ck_assert_uint_eq(g->par_threads, 2);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_PAR_REQUEST | EVINDEX_GC_F_HAS_BALANCE);
    ck_assert_uint_eq(g->n_parts, 2);
    ei_assert_part(ix, g->first_part, 1, 5600, 16 * EI_G, 5 * EI_G + 1000,
                   6 * EI_G + 1000 + 5 * EI_G - 7600);
    ei_assert_part(ix, g->first_part + 1, 0, 6000, 9000, 1900, 1100);
    g = evindex_gc_get(ix, 1, &g_buf);
    ck_assert_uint_eq(g->start_ns, 21 * EI_G);
    ck_assert_uint_eq(g->end_ns, 28 * EI_G);
    ck_assert(g->flags & EVINDEX_GC_F_NO_STATS);
    ck_assert(!(g->flags & EVINDEX_GC_F_OPEN));
    ck_assert_uint_eq(g->n_parts, 1);
    ei_assert_part(ix, g->first_part, 0, 21 * EI_G, 28 * EI_G, 4 * EI_G, 3 * EI_G);
    g = evindex_gc_get(ix, 2, &g_buf);
    ck_assert_uint_eq(g->start_ns, 30 * EI_G);
    ck_assert_uint_eq(g->end_ns, 35 * EI_G);
    ck_assert_uint_eq(g->gen, 1);
    ck_assert_uint_eq(g->copied, 64);
    ck_assert_uint_eq(g->par_max_copied, 32);
    ck_assert_uint_eq(g->frag, 22);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_HAS_BALANCE | EVINDEX_GC_F_MAJOR);
    ck_assert_uint_eq(g->n_parts, 1);
    ei_assert_part(ix, g->first_part, 1, 30 * EI_G, 35 * EI_G, 4500000000ull,
                   500000000);
    g = evindex_gc_get(ix, 3, &g_buf);
    ck_assert_uint_eq(g->start_ns, 40 * EI_G);
    ck_assert_uint_eq(g->end_ns, 45 * EI_G);
    ck_assert_uint_eq(g->copied, 8 * EI_G);
    ck_assert_uint_eq(g->par_max_copied, 4 * EI_G);
    ck_assert_uint_eq(g->par_balanced, 2 * EI_G);
    ck_assert_uint_eq(g->slop, 11);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_HAS_BALANCE);
    ck_assert_uint_eq(g->n_parts, 1);
    ei_assert_part(ix, g->first_part, 1, 40 * EI_G, 45 * EI_G, 3 * EI_G - 10 + 100,
                   2 * EI_G + 10 - 100);
    g = evindex_gc_get(ix, 4, &g_buf);
    ck_assert_uint_eq(g->start_ns, 45 * EI_G + 500);
    ck_assert_uint_eq(g->copied, 256);
    ei_assert_part(ix, g->first_part, 1, 45 * EI_G + 500, 45 * EI_G + 540, 30, 10);
    g = evindex_gc_get(ix, 5, &g_buf);
    ck_assert_uint_eq(g->start_ns, 46 * EI_G);
    ck_assert_uint_eq(g->end_ns, 51 * EI_G);
    ck_assert_uint_eq(g->flags, EVINDEX_GC_F_NO_STATS | EVINDEX_GC_F_OPEN);
    ei_assert_run(ix, 2, 0, 20 * EI_G, 23 * EI_G, 3, 0, RUNLANE_F_OPEN);
    /* Split builds join the same collections (each lane's wide spans appended after
     * the other worker's). */
    ck_assert_uint_gt(ei_assert_seams(&c, len, "long GC spans"), 0);
    ei_close(&c);
}
END_TEST

/* GCs whose phases do not tile them: a GC_END earlier than the last phase change (times
 * that go backwards). A part keeps the work and wait its phases summed, not the rest of
 * its length after its work; the same in split builds (an open GC's wait carried over
 * the seam). */
START_TEST(test_evindex_gc_untiled)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_empty(w, 0, EV_GC_START, 1000));
    EW(evwrite_empty(w, 0, EV_GC_WORK, 1200));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 1500));
    EW(evwrite_empty(w, 0, EV_GC_END, 1300));
    EW(evwrite_flush_all(w));
    EW(evwrite_empty(w, 0, EV_GC_START, 2000));     /* tiled */
    EW(evwrite_empty(w, 0, EV_GC_WORK, 2100));
    EW(evwrite_empty(w, 0, EV_GC_DONE, 2400));
    EW(evwrite_flush_all(w));
    EW(evwrite_empty(w, 0, EV_GC_END, 2600));
    EW(evwrite_empty(w, 0, EV_GC_START, 3000));     /* with a GC_STATS, after a seam */
    EW(evwrite_empty(w, 0, EV_GC_WORK, 3050));
    EW(evwrite_flush_all(w));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 3400));
    ei_stats(w, 0, 3450, 0, 4096, 1);
    EW(evwrite_empty(w, 0, EV_GC_END, 3100));
    EW(evwrite_flush_all(w));
    EW(evwrite_empty(w, 0, EV_GC_START, 4000));     /* open at the end of the log */
    EW(evwrite_empty(w, 0, EV_GC_WORK, 4100));
    EW(evwrite_empty(w, 0, EV_GC_IDLE, 4300));
    EW(evwrite_user_msg(w, 0, 5000, "end"));
    ei_finish(&m, w, false, 0);
    size_t len = m.len;
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;
    ck_assert_uint_eq(evindex_n_gcs(ix), 4);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
    ck_assert_uint_eq(g->n_parts, 1);
    ei_assert_part(ix, g->first_part, 0, 1000, 1300, 300, 200);
    g = evindex_gc_get(ix, 1, &g_buf);
    ei_assert_part(ix, g->first_part, 0, 2000, 2600, 300, 300);
    g = evindex_gc_get(ix, 2, &g_buf);
    ck_assert_uint_eq(g->copied, 4096);
    ei_assert_part(ix, g->first_part, 0, 3000, 3100, 350, 50);
    g = evindex_gc_get(ix, 3, &g_buf);
    ck_assert(g->flags & EVINDEX_GC_F_OPEN);
    ei_assert_part(ix, g->first_part, 0, 4000, 5000, 200, 800);
    ei_assert_seams(&c, len, "untiled GC phases");
    ei_close(&c);
}
END_TEST

/* A GC_STATS that claims no span (the log begins inside its collection) keeps its time
 * and capability: a collection of its own there; claimed ones whose generation or
 * thread count is past the compact record's fields keep them whole; request and sync
 * marks keep times past 2^32 ns. */
START_TEST(test_evindex_stats_fields)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_empty(w, 1, EV_GC_WORK, 500));
    ei_stats(w, 1, 700, 0, 4096, 2);
    EW(evwrite_empty(w, 1, EV_GC_END, 800));
    EW(evwrite_empty(w, 0, EV_GC_START, 1000));
    ei_stats(w, 0, 1100, 9000, 64, 70000);
    EW(evwrite_empty(w, 0, EV_GC_END, 1200));
    EW(evwrite_empty(w, 0, EV_GC_START, 2000));
    ei_stats(w, 0, 2100, 1, 128, 3);
    EW(evwrite_empty(w, 0, EV_GC_END, 2200));
    /* Its request and sync marks past 2^32 ns. */
    EW(evwrite_empty(w, 1, EV_REQUEST_SEQ_GC, 5 * EI_G));
    EW(evwrite_empty(w, 0, EV_GC_START, 5 * EI_G + 1000));
    EW(evwrite_empty(w, 1, EV_GC_GLOBAL_SYNC, 5 * EI_G + 1500));
    ei_stats(w, 0, 5 * EI_G + 1800, 0, 256, 1);
    EW(evwrite_empty(w, 0, EV_GC_END, 5 * EI_G + 2000));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;
    ck_assert_uint_eq(evindex_n_gcs(ix), 4);
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
    ck_assert_uint_eq(g->start_ns, 700);
    ck_assert_uint_eq(g->end_ns, 700);
    ck_assert_uint_eq(g->leader_cap, 1);
    ck_assert(g->flags & EVINDEX_GC_F_NO_START);
    ck_assert_uint_eq(g->copied, 4096);
    ck_assert_uint_eq(g->par_threads, 2);
    g = evindex_gc_get(ix, 1, &g_buf);
    ck_assert_uint_eq(g->start_ns, 1000);
    ck_assert_uint_eq(g->gen, 9000);
    ck_assert_uint_eq(g->par_threads, 70000);
    ck_assert_uint_eq(g->copied, 64);
    g = evindex_gc_get(ix, 2, &g_buf);
    ck_assert_uint_eq(g->start_ns, 2000);
    ck_assert_uint_eq(g->leader_cap, 0);
    ck_assert_uint_eq(g->gen, 1);
    ck_assert_uint_eq(g->par_threads, 3);
    ck_assert_uint_eq(g->copied, 128);
    ck_assert_uint_eq(g->par_max_copied, 64);
    ck_assert_uint_eq(g->par_balanced, 32);
    g = evindex_gc_get(ix, 3, &g_buf);
    ck_assert_uint_eq(g->start_ns, 5 * EI_G + 1000);
    ck_assert_uint_eq(g->request_ns, 5 * EI_G);
    ck_assert_uint_eq(g->request_cap, 1);
    ck_assert_uint_eq(g->global_sync_ns, 5 * EI_G + 1500);
    ck_assert(!(g->flags & EVINDEX_GC_F_PAR_REQUEST));
    ei_close(&c);
}
END_TEST

/* A log cut off while cap 0 runs a thread and cap 1 is inside a GC. */
START_TEST(test_evindex_truncated)
{
    for (int cut_event = 0; cut_event < 2; cut_event++) {
        ei_mem m;
        evwrite *w = ei_writer(&m);
        EW(evwrite_run_thread(w, 0, 100, 3));
        EW(evwrite_user_msg(w, 0, 500, "still running"));
        EW(evwrite_empty(w, 1, EV_GC_START, 200));
        EW(evwrite_empty(w, 1, EV_GC_WORK, 250));
        EW(evwrite_heap_bytes(w, 1, EV_HEAP_SIZE, 300, 0, 1u << 20));
        /* The last event (cap 1's HEAP_SIZE) is kept whole, or cut after 3 bytes. */
        ei_finish(&m, w, true, cut_event ? 3 : SIZE_MAX);
        uint64_t n_events = m.n_events;
        ei_case c;
        ei_open_mem(&c, &m);
        const evindex *ix = c.ix;
        ck_assert(evindex_truncated(ix));
        ck_assert_int_eq(c.ending.code, DIAG_TRUNCATED);
        ck_assert_uint_eq(evindex_n_events(ix),
                          n_events + ei_count_type(c.log, EV_BLOCK_MARKER));
        ck_assert_uint_eq(n_events, cut_event ? 4 : 5);
        ck_assert_uint_eq(evindex_last_ns(ix), 500);
        /* The run with no STOP ends at the last timestamp, flagged open. */
        ck_assert_uint_eq(runlane_count(ei_lane(ix, 0)->runs), 1);
        ei_assert_run(ix, 0, 0, 100, 500, 3, 0, RUNLANE_F_OPEN);
        threadstats_row st;
        threadstats_of(ix, 3, &st);
        ck_assert_uint_eq(st.run_ns, 400);
        ck_assert_uint_eq(st.stops[THREADTAB_STOP_OTHER], 1);   /* open: cut short */
        /* So does the GC: one cut-short collection without statistics. */
        ck_assert_uint_eq(evindex_n_gcs(ix), 1);
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, 0, &g_buf);
        ck_assert_uint_eq(g->start_ns, 200);
        ck_assert_uint_eq(g->end_ns, 500);
        ck_assert_uint_eq(g->flags, EVINDEX_GC_F_OPEN | EVINDEX_GC_F_NO_STATS);
        ck_assert_uint_eq(g->gen, EVINDEX_GEN_UNKNOWN);
        const ivtrack *tr = ei_lane(ix, 1)->gc;
        ck_assert_uint_eq(ivtrack_count(tr), 2);
        ei_assert_iv(tr, 0, 200, 250, EVINDEX_GC_WAIT, 0);
        ei_assert_iv(tr, 1, 250, 500, EVINDEX_GC_WORK, 0);
        ck_assert_uint_eq(series_count(evindex_series(ix, EVINDEX_S_HEAP_SIZE)),
                          cut_event ? 0 : 1);
        ei_close(&c);
    }
}
END_TEST

/* Markers and messages from two caps and the global block, out of time order in the
 * file: sorted by time (ties in file order), with their text. */
START_TEST(test_evindex_messages)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_user_marker(w, 0, 100, "alpha"));
    EW(evwrite_user_msg(w, 0, 250, "hello\tworld"));
    EW(evwrite_user_marker(w, 0, 400, "r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80"));
    EW(evwrite_log_msg(w, 1, 150, "rts says"));
    EW(evwrite_user_marker(w, 1, 200, "beta"));
    EW(evwrite_user_marker(w, 1, 400, "tie"));
    static const uint8_t bin[] = { 0x00, 0xff, 0x41 };
    EW(evwrite_event(w, EVLOG_NO_CAP, EV_USER_BINARY_MSG, 50, bin, sizeof bin));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;

    ck_assert_uint_eq(evindex_n_msgs(ix), 7);
    static const struct { uint64_t t; uint16_t cap; uint8_t kind; const char *text; } want[] = {
        { 50, EVLOG_NO_CAP, EVINDEX_MSG_BINARY, "\x00\xff" "A" },
        { 100, 0, EVINDEX_MSG_MARKER, "alpha" },
        { 150, 1, EVINDEX_MSG_LOG, "rts says" },
        { 200, 1, EVINDEX_MSG_MARKER, "beta" },
        { 250, 0, EVINDEX_MSG_USER, "hello\tworld" },
        { 400, 0, EVINDEX_MSG_MARKER, "r\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80" },
        { 400, 1, EVINDEX_MSG_MARKER, "tie" },
    };
    for (size_t i = 0; i < 7; i++) {
        const evindex_msg msg_v = evindex_msg_at(ix, i), *msg = &msg_v;
        ck_assert_uint_eq(msg->time_ns, want[i].t);
        ck_assert_uint_eq(msg->cap, want[i].cap);
        ck_assert_uint_eq(msg->kind, want[i].kind);
        if (i == 0) {
            const uint8_t *p;
            size_t n;
            ck_assert(evindex_msg_text(ix, msg, &p, &n));
            ck_assert_uint_eq(n, 3);
            ck_assert_mem_eq(p, bin, 3);
        } else {
            ck_assert_msg(ei_text_is(ix, msg, want[i].text), "message %zu text", i);
        }
    }
    ck_assert_uint_eq(evindex_n_markers(ix), 4);
    ck_assert(ei_text_is(ix, &(evindex_msg[]){ evindex_marker_at(ix, 0) }[0], "alpha"));
    ck_assert(ei_text_is(ix, &(evindex_msg[]){ evindex_marker_at(ix, 1) }[0], "beta"));
    ck_assert(ei_text_is(ix, &(evindex_msg[]){ evindex_marker_at(ix, 3) }[0], "tie"));
    ck_assert_uint_eq(evindex_marker_first_from(ix, 0), 0);
    ck_assert_uint_eq(evindex_marker_first_from(ix, 101), 1);
    ck_assert_uint_eq(evindex_marker_first_from(ix, 400), 2);
    ck_assert_uint_eq(evindex_marker_first_from(ix, 401), 4);

    strbuf out;
    strbuf_init(&out);
    reports_opts o = { .messages = true };
    reports_markers(&out, ix, &o);
    ck_assert_str_eq(out.data, "time_ns\tcap\tkind\ttext\n"
                               "50\t-\tbinary\t00ff41\n"
                               "100\t0\tmarker\talpha\n"
                               "150\t1\tlog\trts says\n"
                               "200\t1\tmarker\tbeta\n"
                               "250\t0\tmessage\thello\\tworld\n"
                               "400\t0\tmarker\tr\xc3\xa9sum\xc3\xa9 \xf0\x9f\x9a\x80\n"
                               "400\t1\tmarker\ttie\n");
    strbuf_free(&out);
    ei_close(&c);
}
END_TEST

/* What threadstats_brief_ranked_top told. */
typedef struct ei_top_seen {
    int calls;
    size_t *top;                /* owned */
    size_t n;
} ei_top_seen;

static void
ei_top_cb(void *ctx, size_t *top, size_t n_top)
{
    ei_top_seen *s = ctx;
    s->calls++;
    x_free(s->top);
    s->top = top;
    s->n = n_top;
}

/* A log of n threads, k on cap k % 2 for [100k + 10, + k % 50), created on cap 0 at
 * 100k + 1, every third also on the other cap for [100k + 70, 100k + 90). */
static void
ei_many_threads(ei_case *c, uint32_t n)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    for (uint32_t k = 1; k <= n; k++) {
        uint64_t t = 100ull * k;
        uint16_t cap = (uint16_t)(k % 2), other = (uint16_t)(1 - k % 2);
        EW(evwrite_create_thread(w, 0, t + 1, k));
        EW(evwrite_run_thread(w, cap, t + 10, k));
        EW(evwrite_stop_thread(w, cap, t + 10 + k % 50, k, (uint16_t)(k % 21), 0));
        if (k % 3 == 0) {
            EW(evwrite_run_thread(w, other, t + 70, k));
            EW(evwrite_stop_thread(w, other, t + 90, k, 5, 0));
        }
    }
    ei_finish(&m, w, false, 0);
    ei_open_mem(c, &m);
}

/* Enough threads for threadstats_all to split them over two threads: every row equals
 * what was written (runs on alternating caps, a third of the threads run twice). */
START_TEST(test_evindex_threadstats_many)
{
    enum { N = 70000 };
    ei_case c;
    ei_many_threads(&c, N);
    const threadtab *tt = evindex_threads(c.ix);
    ck_assert_uint_eq(threadtab_count(tt), N);
    threadstats_row *rows = threadstats_all(c.ix);
    for (uint32_t k = 1; k <= N; k++) {
        const threadstats_row *r = &rows[k - 1];
        uint64_t t = 100ull * k;
        bool twice = k % 3 == 0;
        uint32_t want_stops[THREADTAB_N_STOP_CLASSES] = { 0 };
        want_stops[threadtab_stop_class((uint16_t)(k % 21))]++;
        if (twice)
            want_stops[THREADTAB_STOP_FINISHED]++;
        bool ok = r->run_ns == k % 50 + (twice ? 20 : 0) && r->n_runs == 1u + twice &&
                  r->first_run_ns == t + 10 &&
                  r->last_end_ns == (twice ? t + 90 : t + 10 + k % 50) &&
                  r->last_cap == (twice ? 1 - k % 2 : k % 2);
        for (int cl = 0; cl < THREADTAB_N_STOP_CLASSES; cl++)
            ok = ok && r->stops[cl] == want_stops[cl];
        if (!ok)
            ck_abort_msg("thread %u: row differs from what was written", k);
    }
    x_free(rows);
    /* On one thread, the same rows. */
    threadstats_row *one = threadstats_all_serial(c.ix);
    rows = threadstats_all(c.ix);
    ck_assert(memcmp(one, rows, N * sizeof *rows) == 0);
    x_free(one);
    x_free(rows);
    /* The brief pass (what the thread list ranks by) gives the same run time and runs. */
    threadstats_brief br;
    ck_assert(threadstats_brief_all(c.ix, &br));
    ck_assert_uint_eq(br.n, N);
    for (uint32_t k = 1; k <= N; k++) {
        bool twice = k % 3 == 0;
        if (br.run_ns[k - 1] != k % 50 + (twice ? 20 : 0) || br.n_runs[k - 1] != 1u + twice)
            ck_abort_msg("thread %u: brief run time %llu, runs %u differ from what was "
                         "written", k, (unsigned long long)br.run_ns[k - 1], br.n_runs[k - 1]);
    }
    threadstats_brief_free(&br);
    ck_assert_ptr_null(br.run_ns);
    /* Ranked (each half by its own thread, merged): the same sums, and the threads by
     * the run time written, largest first, ties by id. */
    size_t *order;
    ck_assert(threadstats_brief_ranked(c.ix, &br, &order));
    ck_assert_uint_eq(br.n, N);
    uint64_t prev_ns = UINT64_MAX;
    size_t prev_i = 0;
    for (size_t i = 0; i < N; i++) {
        size_t ti = order[i];
        uint32_t k = (uint32_t)ti + 1;
        uint64_t want = k % 50 + (k % 3 == 0 ? 20 : 0);
        if (br.run_ns[ti] != want || want > prev_ns || (want == prev_ns && ti <= prev_i))
            ck_abort_msg("rank %zu: thread %u (run time %llu) out of order", i, k,
                         (unsigned long long)br.run_ns[ti]);
        prev_ns = want;
        prev_i = ti;
    }
    threadstats_brief_free(&br);
    /* With the first rows told before the ranking: they are the ranking's first rows
     * (ties by id across the two halves included), told once, and the order is the same. */
    static const size_t ks[] = { 1, 100, 2 * N };
    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
        ei_top_seen seen = { 0 };
        size_t *order2;
        ck_assert(threadstats_brief_ranked_top(c.ix, &br, &order2, ks[q], ei_top_cb, &seen));
        size_t want_n = ks[q] < N ? ks[q] : N;
        ck_assert_int_eq(seen.calls, 1);
        ck_assert_uint_eq(seen.n, want_n);
        for (size_t i = 0; i < want_n; i++)
            if (seen.top[i] != order[i])
                ck_abort_msg("k %zu: row %zu is thread index %zu, the ranking's is %zu", ks[q],
                             i, seen.top[i], order[i]);
        ck_assert(memcmp(order, order2, N * sizeof *order) == 0);
        x_free(seen.top);
        x_free(order2);
        threadstats_brief_free(&br);
    }
    x_free(order);
    ei_close(&c);
}
END_TEST

/* A log of threads 1..n on 5 caps, whose runs mix in the lanes' blocks: slot k
 * (100k ns) runs thread k on cap k % 4 for k % 50 ns; thread k - 3000 again on cap 4
 * when it is a multiple of 11 (cap 4 has few blocks, starting late); thread 1 on cap
 * (k + 1) % 4 every 97th slot (a long-lived low id in blocks of high ones); and a run
 * of 2^58 ns or more on cap 3 at the end (a duration too wide for the one-load read). */
static void
ei_mixed_threads(ei_case *c, uint32_t n)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    for (uint32_t k = 1; k <= n + 3000; k++) {
        uint64_t t = 100ull * k;
        if (k <= n) {
            EW(evwrite_create_thread(w, 0, t + 1, k));
            EW(evwrite_run_thread(w, (uint16_t)(k % 4), t + 10, k));
            EW(evwrite_stop_thread(w, (uint16_t)(k % 4), t + 10 + k % 50, k, 2, 0));
        }
        uint32_t back = k - 3000;
        if (k > 3000 && back % 11 == 0) {
            EW(evwrite_run_thread(w, 4, t + 20, back));
            EW(evwrite_stop_thread(w, 4, t + 20 + back % 40, back, 3, 0));
        }
        if (k % 97 == 0) {
            uint16_t cap = (uint16_t)((k + 1) % 4);
            EW(evwrite_run_thread(w, cap, t + 30, 1));
            EW(evwrite_stop_thread(w, cap, t + 30 + k % 60, 1, 3, 0));
        }
    }
    uint64_t end = 100ull * (n + 3001);
    EW(evwrite_run_thread(w, 3, end, 2));
    EW(evwrite_stop_thread(w, 3, end + (UINT64_C(1) << 58) + 5, 2, 3, 0));
    ei_finish(&m, w, false, 0);
    ei_open_mem(c, &m);
}

typedef struct ei_rank_key {
    uint64_t run_ns;
    size_t i;
} ei_rank_key;

static int
ei_rank_cmp(const void *a, const void *b)
{
    const ei_rank_key *x = a, *y = b;
    if (x->run_ns != y->run_ns)
        return x->run_ns > y->run_ns ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* The brief pass by halves of the runs (dense ids, enough threads to split) against a
 * recount of every run of every lane, its ranking and first rows against a sort of the
 * recount, on a log whose threads' runs mix in the blocks. One log of just enough
 * threads, so the test stays cheap under valgrind (ids with gaps keep the split by
 * halves of the threads, which this change leaves as it was). */
START_TEST(test_evindex_threadstats_brief_mixed)
{
    enum { N = 66000 };
    ei_case c;
    ei_mixed_threads(&c, N);
    const threadtab *tt = evindex_threads(c.ix);
    size_t n = threadtab_count(tt);
    ck_assert_uint_eq(n, N);
    /* The recount: every run of every lane, to its thread's place in the table. */
    uint64_t *want_ns = xcalloc(n, sizeof *want_ns);
    uint32_t *want_runs = xcalloc(n, sizeof *want_runs);
    for (size_t li = 0; li < evindex_n_caps(c.ix); li++) {
        const runlane *rl = evindex_cap_at(c.ix, li)->runs;
        for (size_t r = 0; r < runlane_count(rl); r++) {
            runlane_run run;
            runlane_get(rl, r, &run);
            size_t ti = threadtab_index_of(tt, run.tid);
            ck_assert_uint_ne(ti, SIZE_MAX);
            want_ns[ti] += run.end_ns - run.start_ns;
            want_runs[ti]++;
        }
    }
    ck_assert_uint_ge(want_ns[1], UINT64_C(1) << 58);
    ei_rank_key *keys = xmalloc(n * sizeof *keys);
    for (size_t i = 0; i < n; i++)
        keys[i] = (ei_rank_key){ want_ns[i], i };
    qsort(keys, n, sizeof *keys, ei_rank_cmp);

    threadstats_brief br;
    ck_assert(threadstats_brief_all(c.ix, &br));
    ck_assert_uint_eq(br.n, n);
    for (size_t i = 0; i < n; i++)
        if (br.run_ns[i] != want_ns[i] || br.n_runs[i] != want_runs[i])
            ck_abort_msg("thread index %zu: brief %llu ns %u runs, recount %llu ns %u runs", i,
                         (unsigned long long)br.run_ns[i], br.n_runs[i],
                         (unsigned long long)want_ns[i], want_runs[i]);
    threadstats_brief_free(&br);
    ei_top_seen seen = { 0 };
    size_t *order;
    ck_assert(threadstats_brief_ranked_top(c.ix, &br, &order, 1024, ei_top_cb, &seen));
    ck_assert_int_eq(seen.calls, 1);
    ck_assert_uint_eq(seen.n, 1024);
    for (size_t i = 0; i < n; i++)
        if (order[i] != keys[i].i || (i < seen.n && seen.top[i] != keys[i].i))
            ck_abort_msg("rank %zu: thread index %zu (first rows %zu), the recount's %zu", i,
                         order[i], i < seen.n ? seen.top[i] : SIZE_MAX, keys[i].i);
    for (size_t i = 0; i < n; i++)
        ck_assert(br.run_ns[i] == want_ns[i] && br.n_runs[i] == want_runs[i]);
    x_free(seen.top);
    x_free(order);
    threadstats_brief_free(&br);
    x_free(keys);
    x_free(want_ns);
    x_free(want_runs);
    ei_close(&c);
}
END_TEST

/* Rows of a range of the table, or of threads picked in any order, are the rows of
 * the whole table; the `threads` table, made a piece at a time (more threads than a
 * piece holds), has each thread's run time and runs, in the table's order or ranked. */
START_TEST(test_evindex_threads_pieces)
{
    enum { N = 70000 };
    ei_case c;
    ei_many_threads(&c, N);
    threadstats_row *rows = threadstats_all(c.ix);
    threadstats_brief br;
    size_t *order;
    ck_assert(threadstats_brief_ranked(c.ix, &br, &order));
    threadstats_brief_free(&br);
    /* Rows of a range of the table, or of threads picked in any order, are the rows
     * of the whole table (ranges across the halves' cut and at both ends). */
    threadstats_row *part = xmalloc(N * sizeof *part);
    static const size_t cuts[][2] = { { 0, 1 }, { 0, N }, { 100, 40000 }, { 34999, 35001 },
                                      { N - 1, N }, { 1234, 69999 } };
    for (size_t q = 0; q < sizeof cuts / sizeof cuts[0]; q++) {
        memset(part, 0x5a, N * sizeof *part);
        threadstats_range(c.ix, cuts[q][0], cuts[q][1], part);
        for (size_t i = cuts[q][0]; i < cuts[q][1]; i++)
            if (memcmp(&part[i - cuts[q][0]], &rows[i], sizeof *rows) != 0)
                ck_abort_msg("range [%zu, %zu): row %zu differs from the table's", cuts[q][0],
                             cuts[q][1], i);
    }
    size_t picks[] = { 69999, 3, 35000, 34999, 0, 12345, 50000 };
    size_t n_picks = sizeof picks / sizeof picks[0];
    memset(part, 0x5a, N * sizeof *part);
    threadstats_pick(c.ix, picks, n_picks, part);
    for (size_t j = 0; j < n_picks; j++)
        ck_assert_msg(memcmp(&part[j], &rows[picks[j]], sizeof *rows) == 0,
                      "picked thread index %zu differs from the table's", picks[j]);
    threadstats_pick(c.ix, order + 65500, 100, part);   /* ranks across a piece's end */
    for (size_t j = 0; j < 100; j++)
        if (memcmp(&part[j], &rows[order[65500 + j]], sizeof *rows) != 0)
            ck_abort_msg("rank %zu: picked row differs from the table's", 65500 + j);
    x_free(part);
    /* The `threads` table, made a piece at a time (more threads than a piece holds):
     * each line's run time and runs are its thread's; sorted, the threads come in the
     * ranking's order. */
    for (int sorted = 0; sorted < 2; sorted++) {
        strbuf tsv;
        strbuf_init(&tsv);
        reports_opts o = { .sort_by_run = sorted };
        reports_threads(&tsv, c.ix, &o);
        const char *line = strchr(tsv.data, '\n') + 1;
        for (size_t r = 0; r < N; r++) {
            const char *eol = strchr(line, '\n');
            ck_assert(eol);
            if (r % 97 != 0 && (r < 65500 || r > 65600) && r + 1 < N) {
                line = eol + 1;     /* a sample of the lines, and those across the cut */
                continue;
            }
            unsigned tid, runs;
            unsigned long long run_ns;
            char text[256];     /* the line alone: sscanf would measure the whole table */
            ck_assert(eol - line < (ptrdiff_t)sizeof text);
            memcpy(text, line, (size_t)(eol - line));
            text[eol - line] = 0;
            ck_assert_msg(sscanf(text, "%u\t%*[^\t]\t%*[^\t]\t%*[^\t]\t%*[^\t]\t%llu\t%u",
                                 &tid, &run_ns, &runs) == 3, "line %zu: %.40s", r, line);
            size_t want = sorted ? order[r] : r;
            if (tid != want + 1 || run_ns != rows[want].run_ns || runs != rows[want].n_runs)
                ck_abort_msg("%s line %zu: thread %u, run time %llu, runs %u; want thread "
                             "%zu", sorted ? "sorted" : "table", r, tid, run_ns, runs,
                             want + 1);
            line = eol + 1;
        }
        ck_assert_str_eq(line, "");
        strbuf_free(&tsv);
    }
    x_free(rows);
    x_free(order);
    ei_close(&c);
}
END_TEST

/* A thread whose runs on two caps end at the same time: the higher cap's run is its
 * latest, whichever lane's runs a pass meets first (cap 1's start first here, and a
 * pass over all threads takes the lanes' runs in time order), so the table and the
 * thread alone agree. */
START_TEST(test_evindex_threadstats_tie)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_create_thread(w, 0, 1, 7));
    EW(evwrite_create_thread(w, 0, 2, 8));
    EW(evwrite_run_thread(w, 1, 10, 7));
    EW(evwrite_run_thread(w, 0, 50, 7));
    EW(evwrite_stop_thread(w, 0, 100, 7, 2, 0));
    EW(evwrite_stop_thread(w, 1, 100, 7, 2, 0));
    EW(evwrite_run_thread(w, 0, 200, 8));
    EW(evwrite_stop_thread(w, 0, 300, 8, 2, 0));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    ck_assert_uint_eq(runlane_count(evindex_cap_at(c.ix, 0)->runs), 2);
    ck_assert_uint_eq(runlane_count(evindex_cap_at(c.ix, 1)->runs), 1);
    threadstats_row *rows = threadstats_all(c.ix);
    ck_assert_ptr_nonnull(rows);
    ck_assert_uint_eq(rows[0].n_runs, 2);
    ck_assert_uint_eq(rows[0].run_ns, 90 + 50);
    ck_assert_uint_eq(rows[0].first_run_ns, 10);
    ck_assert_uint_eq(rows[0].last_end_ns, 100);
    ck_assert_uint_eq(rows[0].last_cap, 1);
    threadstats_row one;
    threadstats_of(c.ix, 7, &one);
    ck_assert(memcmp(&one, &rows[0], sizeof one) == 0);
    ck_assert_uint_eq(rows[1].last_cap, 0);
    ck_assert_uint_eq(rows[1].last_end_ns, 300);
    x_free(rows);
    ei_close(&c);
}
END_TEST

/* Every message's text, taken straight from its event's payload, is the slice that
 * decoding the event gives its first field, on the fixtures that hold messages. */
START_TEST(test_evindex_msg_text_is_decoded_field)
{
    static const char *const logs[] = { "fixtures/markers.eventlog",
                                        "fixtures/userevents.eventlog",
                                        "fixtures/demo.eventlog" };
    size_t checked = 0;
    for (size_t f = 0; f < sizeof logs / sizeof logs[0]; f++) {
        diag d;
        evlog *log = evlog_open(logs[f], &d);
        ck_assert_msg(log != NULL, "%s: %s", logs[f], d.msg);
        evindex *ix = evindex_build(log, NULL, NULL);
        for (size_t i = 0; i < evindex_n_msgs(ix); i++) {
            const evindex_msg m = evindex_msg_at(ix, i);
            evlog_event ev;
            ck_assert(evlog_event_at(log, m.offset, EVLOG_NO_CAP, &ev));
            evdecoded dec;
            decode_event(&ev, &dec);
            const uint8_t *p = NULL;
            size_t n = 0;
            bool ok = evindex_msg_text(ix, &m, &p, &n);
            bool want = dec.desc && dec.n_present >= 1;
            if (ok != want || (ok && (n != dec.f[0].len || (n && p != dec.f[0].p))))
                ck_abort_msg("%s message %zu: text %d (%zu bytes), decoded %d (%u bytes)",
                             logs[f], i, ok, n, want, want ? dec.f[0].len : 0);
            checked++;
        }
        evindex_free(ix);
        evlog_close(log);
    }
    ck_assert_uint_gt(checked, 10);
}
END_TEST

START_TEST(test_evindex_thread_labels)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_create_thread(w, 0, 10, 7));
    EW(evwrite_thread_label(w, 0, 20, 7, "first"));
    EW(evwrite_thread_label(w, 0, 30, 7, "worker-\xce\xbb"));
    EW(evwrite_create_thread(w, 0, 35, 8));
    EW(evwrite_run_thread(w, 0, 40, 7));
    EW(evwrite_stop_thread(w, 0, 90, 7, 5, 0));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const threadtab *tt = evindex_threads(c.ix);
    ck_assert_uint_eq(threadtab_count(tt), 2);
    const uint8_t *p;
    size_t n;
    threadtab_thread t7 = ei_thread(tt, 7), t8 = ei_thread(tt, 8);
    ck_assert(evindex_thread_label(c.ix, &t7, &p, &n));
    ck_assert_uint_eq(n, strlen("worker-\xce\xbb"));      /* the latest label */
    ck_assert_mem_eq(p, "worker-\xce\xbb", n);
    ck_assert(!evindex_thread_label(c.ix, &t8, &p, &n));
    threadstats_row st7;
    threadstats_of(c.ix, 7, &st7);
    ck_assert_uint_eq(st7.stops[THREADTAB_STOP_FINISHED], 1);
    ei_close(&c);
}
END_TEST

/* Non-moving cycles: (1) two mark rounds and a sweep; (2) GHC 9.0's shape, where the
 * post-mark sync posts BEGIN and END twice and final mark rounds run inside it. */
START_TEST(test_evindex_nonmoving)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    const uint16_t G = EVLOG_NO_CAP;
    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 1000));
    EW(evwrite_conc_mark_end(w, G, 2000, 10));
    EW(evwrite_conc_upd_rem_set_flush(w, 0, 2200, 0));
    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 2500));
    EW(evwrite_conc_mark_end(w, G, 3000, 5));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_BEGIN, 3500));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_END, 4500));
    EW(evwrite_nonmoving_heap_census(w, G, 4600, 16, 10, 20, 30));

    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 6000));
    EW(evwrite_conc_mark_end(w, G, 6500, 7));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_BEGIN, 6600));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_BEGIN, 6650));
    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 6700));
    EW(evwrite_conc_mark_end(w, G, 6720, 1));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_END, 6800));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_END, 6850));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_BEGIN, 7000));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_END, 7100));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;

    ck_assert_uint_eq(evindex_n_nm_cycles(ix), 2);
    const evindex_nm_cycle *c0 = evindex_nm_cycle_at(ix, 0);
    ck_assert_uint_eq(c0->start_ns, 1000);
    ck_assert_uint_eq(c0->end_ns, 4500);
    ck_assert_uint_eq(c0->n_marks, 2);
    ck_assert_uint_eq(c0->marked_objects, 15);
    ck_assert_uint_eq(c0->mark_ns, 1500);
    ck_assert_uint_eq(c0->sync_ns, 0);
    ck_assert_uint_eq(c0->sweep_ns, 1000);
    ck_assert_uint_eq(c0->n_flushes, 1);
    ck_assert_uint_eq(c0->flags, 0);
    const ivtrack *tr = evindex_nm_track(ix);
    ei_assert_iv(tr, 0, 1000, 2000, EVINDEX_NM_MARK, 0);
    ei_assert_iv(tr, 1, 2500, 3000, EVINDEX_NM_MARK, 0);
    ei_assert_iv(tr, 2, 3500, 4500, EVINDEX_NM_SWEEP, 0);

    /* One sync from the first BEGIN to the first END (docs/stats-semantics.md §5); the
     * duplicates and the mark round inside it neither split nor cut it short. */
    const evindex_nm_cycle *c1 = evindex_nm_cycle_at(ix, 1);
    ck_assert_uint_eq(c1->start_ns, 6000);
    ck_assert_uint_eq(c1->end_ns, 7100);
    ck_assert_uint_eq(c1->n_marks, 2);
    ck_assert_uint_eq(c1->marked_objects, 8);
    ck_assert_uint_eq(c1->mark_ns, 500);
    ck_assert_uint_eq(c1->sync_ns, 200);
    ck_assert_uint_eq(c1->sweep_ns, 100);
    ck_assert_uint_eq(c1->flags, 0);
    ck_assert_uint_eq(ivtrack_count(tr), 6);
    ei_assert_iv(tr, 3, 6000, 6500, EVINDEX_NM_MARK, 1);
    ei_assert_iv(tr, 4, 6600, 6800, EVINDEX_NM_SYNC, 1);
    ei_assert_iv(tr, 5, 7000, 7100, EVINDEX_NM_SWEEP, 1);
    ck_assert_uint_eq(ivtrack_get(tr, 4, &(ivtrack_iv){ 0 })->flags, 0);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, EVINDEX_NM_SYNC, 0, UINT64_MAX), 200);

    ck_assert_uint_eq(evindex_n_nm_flushes(ix), 1);
    ck_assert_uint_eq(evindex_nm_flush_at(ix, 0)->time_ns, 2200);
    ck_assert_uint_eq(evindex_nm_flush_at(ix, 0)->cap, 0);
    ck_assert_uint_eq(evindex_n_nm_census(ix), 1);
    const evindex_nm_census *ce = evindex_nm_census_at(ix, 0);
    ck_assert_uint_eq(ce->blk_size, 16);
    ck_assert_uint_eq(ce->active, 10);
    ck_assert_uint_eq(ce->filled, 20);
    ck_assert_uint_eq(ce->live, 30);
    ei_close(&c);
}
END_TEST

/* Per-spark events counted by time; spark counters and heap series summed over caps. */
START_TEST(test_evindex_sparks_and_series)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_empty(w, 0, EV_SPARK_CREATE, 10));
    EW(evwrite_empty(w, 0, EV_SPARK_CREATE, 20));
    EW(evwrite_empty(w, 0, EV_SPARK_RUN, 25));
    EW(evwrite_empty(w, 0, EV_SPARK_CREATE, 30));
    evwrite_spark_counters sc = { .created = 5, .converted = 2, .remaining = 3 };
    EW(evwrite_spark_counters_write(w, 0, 100, &sc));
    sc = (evwrite_spark_counters){ .created = 9, .converted = 3, .remaining = 0 };
    EW(evwrite_spark_counters_write(w, 0, 200, &sc));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 1000, 0, 100));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 1000, 0, 1u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 2000, 0, 300));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 2000, 0, 2u << 20));
    EW(evwrite_mem_return(w, 0, 2100, 0, 5, 4, 1));

    EW(evwrite_empty(w, 1, EV_SPARK_DUD, 15));
    EW(evwrite_empty(w, 1, EV_SPARK_OVERFLOW, 16));
    EW(evwrite_spark_steal(w, 1, 22, 0));
    EW(evwrite_empty(w, 1, EV_SPARK_FIZZLE, 40));
    EW(evwrite_empty(w, 1, EV_SPARK_GC, 50));
    sc = (evwrite_spark_counters){ .created = 7, .converted = 1, .remaining = 4 };
    EW(evwrite_spark_counters_write(w, 1, 110, &sc));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_ALLOCATED, 1500, 0, 50));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_ALLOCATED, 2500, 0, 80));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    const evindex *ix = c.ix;

    ck_assert_uint_eq(evindex_spark_total(ix, EVINDEX_SPARK_CREATE), 3);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_CREATE, 0, 21), 2);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_CREATE, 20, 31), 2);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_CREATE, 31, 20), 0);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_STEAL, 22, 23), 1);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_STEAL, 0, 22), 0);
    static const enum evindex_spark_kind one[] = { EVINDEX_SPARK_DUD, EVINDEX_SPARK_OVERFLOW,
                                                   EVINDEX_SPARK_RUN, EVINDEX_SPARK_STEAL,
                                                   EVINDEX_SPARK_FIZZLE, EVINDEX_SPARK_GC };
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        ck_assert_uint_eq(evindex_spark_total(ix, one[i]), 1);
        ck_assert_uint_eq(evindex_spark_count(ix, one[i], 0, UINT64_MAX), 1);
    }
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_GC, 50, 51), 1);
    ck_assert_uint_eq(evindex_spark_count(ix, EVINDEX_SPARK_GC, 51, 100), 0);

    /* Summed counters: each cap's latest value, added up at every sample. */
    const series *cr = evindex_series(ix, EVINDEX_S_SPARKS_CREATED);
    const series *pool = evindex_series(ix, EVINDEX_S_SPARK_POOL);
    const series *conv = evindex_series(ix, EVINDEX_S_SPARKS_CONVERTED);
    ck_assert_uint_eq(series_count(cr), 3);
    static const uint64_t cr_want[] = { 5, 12, 16 }, pool_want[] = { 3, 7, 4 },
                          conv_want[] = { 2, 3, 4 }, t_want[] = { 100, 110, 200 };
    for (size_t i = 0; i < 3; i++) {
        ck_assert_uint_eq(series_get(cr, i).time_ns, t_want[i]);
        ck_assert_uint_eq(series_get(cr, i).value, cr_want[i]);
        ck_assert_uint_eq(series_get(pool, i).value, pool_want[i]);
        ck_assert_uint_eq(series_get(conv, i).value, conv_want[i]);
    }
    const series *al = evindex_series(ix, EVINDEX_S_ALLOCATED);
    static const uint64_t al_t[] = { 1000, 1500, 2000, 2500 }, al_v[] = { 100, 150, 350, 380 };
    ck_assert_uint_eq(series_count(al), 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_uint_eq(series_get(al, i).time_ns, al_t[i]);
        ck_assert_uint_eq(series_get(al, i).value, al_v[i]);
    }
    const series *hs = evindex_series(ix, EVINDEX_S_HEAP_SIZE);
    ck_assert_uint_eq(series_count(hs), 2);
    ck_assert_uint_eq(series_get(hs, 1).value, 2u << 20);
    ck_assert_uint_eq(series_max(hs), 2u << 20);
    ck_assert_uint_eq(series_get(evindex_series(ix, EVINDEX_S_MEM_CURRENT), 0).value, 5);
    ck_assert_uint_eq(series_get(evindex_series(ix, EVINDEX_S_MEM_NEEDED), 0).value, 4);
    ck_assert_uint_eq(series_get(evindex_series(ix, EVINDEX_S_MEM_RETURNED), 0).value, 1);
    ck_assert_uint_eq(series_count(evindex_series(ix, EVINDEX_S_HEAP_LIVE)), 0);
    ck_assert_str_eq(evindex_series_name(EVINDEX_S_HEAP_SIZE), "heap size");
    ei_close(&c);
}
END_TEST

/* Samples a capability wrote out of time order, and ties in time across capabilities:
 * the one-shot build (whose samples wait in delta-coded streams, merged at the end)
 * places every series as the growing build does (each step's samples sorted, late ones
 * merged in), by (time, file offset). */
START_TEST(test_evindex_series_out_of_order)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 2000, 0, 300));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 1000, 0, 100));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 2500, 0, 7u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 1500, 0, 5u << 20));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_ALLOCATED, 3000, 0, 400));
    evwrite_spark_counters sc = { .created = 9, .converted = 3, .remaining = 1 };
    EW(evwrite_spark_counters_write(w, 0, 200, &sc));
    sc = (evwrite_spark_counters){ .created = 5, .converted = 2, .remaining = 3 };
    EW(evwrite_spark_counters_write(w, 0, 100, &sc));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_ALLOCATED, 2000, 0, 50));
    EW(evwrite_heap_bytes(w, 1, EV_HEAP_SIZE, 2500, 0, 6u << 20));
    sc = (evwrite_spark_counters){ .created = 7, .converted = 1, .remaining = 4 };
    EW(evwrite_spark_counters_write(w, 1, 150, &sc));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    evindex_grow *g = evindex_grow_new(c.log);
    while (evindex_grow_step(g, 64))
        ;
    evindex *grown = evindex_grow_finish(g, NULL);
    const series *al = evindex_series(c.ix, EVINDEX_S_ALLOCATED);
    ck_assert_uint_eq(series_count(al), 4);
    ck_assert_uint_eq(series_get(al, 3).value, 450);
    for (int k = 0; k < EVINDEX_N_SERIES; k++) {
        const series *x = evindex_series(c.ix, (enum evindex_series_id)k);
        const series *y = evindex_series(grown, (enum evindex_series_id)k);
        ck_assert_uint_eq(series_count(x), series_count(y));
        for (size_t i = 0; i < series_count(x); i++)
            ck_assert_msg(series_get(x, i).time_ns == series_get(y, i).time_ns &&
                              series_get(x, i).value == series_get(y, i).value,
                          "series %d sample %zu: %llu at %llu, grown %llu at %llu", k, i,
                          (unsigned long long)series_get(x, i).value,
                          (unsigned long long)series_get(x, i).time_ns,
                          (unsigned long long)series_get(y, i).value,
                          (unsigned long long)series_get(y, i).time_ns);
    }
    for (size_t l = 0; l < evindex_n_caps(c.ix); l++)
        for (int k = 0; k < EVINDEX_N_CAP_SPARK; k++) {
            const series *x = evindex_cap_spark_series(c.ix, l, (enum evindex_cap_spark)k);
            const series *y = evindex_cap_spark_series(grown, l, (enum evindex_cap_spark)k);
            ck_assert_uint_eq(series_count(x), series_count(y));
            for (size_t i = 0; i < series_count(x); i++)
                ck_assert(series_get(x, i).time_ns == series_get(y, i).time_ns &&
                          series_get(x, i).value == series_get(y, i).value);
        }
    evindex_free(grown);
    ei_close(&c);
}
END_TEST

/* ---- 2. cross-checks on real logs -------------------------------------------------------- */

/* What a brute-force walk over the file finds. */
typedef struct ei_scan {
    uint64_t n_events, first_ns, last_ns;
    uint64_t n_markers, n_msgs, n_stats, n_gc_starts;
    uint64_t sparks[EVINDEX_N_SPARK_KINDS];
    bool nonmoving;
    uint64_t *times;            /* every event's time, file order */
    uint64_t flush_times[256];  /* CONC_UPD_REM_SET_FLUSH (the first 256) */
    size_t n_flushes;
} ei_scan;

static void
ei_scan_log(const evlog *log, ei_scan *s)
{
    memset(s, 0, sizeof *s);
    size_t cap_times = 1024;
    s->times = xmalloc(cap_times * sizeof *s->times);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (s->n_events == cap_times) {
            cap_times *= 2;
            s->times = xreallocarray(s->times, cap_times, sizeof *s->times);
        }
        s->times[s->n_events] = ev.time_ns;
        if (!s->n_events || ev.time_ns < s->first_ns)
            s->first_ns = ev.time_ns;
        if (ev.time_ns > s->last_ns)
            s->last_ns = ev.time_ns;
        s->n_events++;
        switch (ev.type) {
        case EV_USER_MARKER: s->n_markers++; s->n_msgs++; break;
        case EV_USER_MSG: case EV_LOG_MSG: case EV_USER_BINARY_MSG: s->n_msgs++; break;
        case EV_GC_STATS_GHC: s->n_stats++; break;
        case EV_GC_START: s->n_gc_starts++; break;
        case EV_CONC_SYNC_BEGIN: case EV_CONC_MARK_BEGIN: s->nonmoving = true; break;
        case EV_CONC_UPD_REM_SET_FLUSH:
            if (s->n_flushes < sizeof s->flush_times / sizeof s->flush_times[0])
                s->flush_times[s->n_flushes] = ev.time_ns;
            s->n_flushes++;
            break;
        default:
            if (ev.type >= EV_SPARK_CREATE && ev.type <= EV_SPARK_GC)
                s->sparks[ev.type - EV_SPARK_CREATE]++;
            break;
        }
    }
}

/* Every check that needs no expected values, on one log file. */
static void
ei_cross_check(const char *path, const char *name, bool must_open)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    if (!log) {
        ck_assert_msg(!must_open, "%s: %s", name, d.msg);
        return;
    }
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ck_assert_ptr_nonnull(ix);
    ei_assert_check(ix, name);
    ei_scan s;
    ei_scan_log(log, &s);
    ck_assert_msg(evindex_n_events(ix) == s.n_events, "%s: %llu events, scan %llu", name,
                  (unsigned long long)evindex_n_events(ix), (unsigned long long)s.n_events);
    ck_assert_uint_eq(evindex_first_ns(ix), s.first_ns);
    ck_assert_uint_eq(evindex_last_ns(ix), s.last_ns);
    ck_assert_msg(evindex_n_markers(ix) == s.n_markers, "%s: markers", name);
    ck_assert_msg(evindex_n_msgs(ix) == s.n_msgs, "%s: messages", name);
    for (unsigned k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
        ck_assert_msg(evindex_spark_total(ix, k) == s.sparks[k], "%s: spark kind %u", name, k);

    /* Runs: the lanes' total equals the threads' total; every run's thread is in the
     * table; each thread's totals alone equal its row of the whole table. */
    uint64_t lane_run_ns = 0, thread_run_ns = 0, lane_runs = 0, thread_runs = 0;
    const threadtab *tt = evindex_threads(ix);
    for (size_t l = 0; l < evindex_n_caps(ix); l++) {
        const runlane *rl = evindex_cap_at(ix, l)->runs;
        lane_run_ns += runlane_prefix_ns(rl, runlane_count(rl));
        lane_runs += runlane_count(rl);
        ck_assert_uint_eq(runlane_prefix_ns(rl, runlane_count(rl)),
                          runlane_busy_ns(rl, 0, UINT64_MAX));
        for (size_t i = 0; i < runlane_count(rl); i += 1 + runlane_count(rl) / 64) {
            runlane_run r;
            runlane_get(rl, i, &r);
            ck_assert_msg(threadtab_find(tt, r.tid, NULL),
                          "%s: run of thread %u, not in the table", name, r.tid);
        }
    }
    threadstats_row *rows = threadstats_all(ix);
    for (size_t i = 0; i < threadtab_count(tt); i++) {
        thread_run_ns += rows[i].run_ns;
        thread_runs += rows[i].n_runs;
        uint64_t stops = 0;
        for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++)
            stops += rows[i].stops[c];
        ck_assert_uint_eq(stops, rows[i].n_runs);
        if (i % (1 + threadtab_count(tt) / 32) == 0) {
            threadstats_row one;
            threadtab_thread t;
            ck_assert(threadtab_at(tt, i, &t));
            threadstats_of(ix, t.tid, &one);
            ck_assert_msg(memcmp(&one, &rows[i], sizeof one) == 0, "%s: thread %u: alone "
                          "differs from the table", name, t.tid);
        }
    }
    x_free(rows);
    ck_assert_msg(lane_run_ns == thread_run_ns, "%s: lanes run %llu ns, threads %llu ns", name,
                  (unsigned long long)lane_run_ns, (unsigned long long)thread_run_ns);
    ck_assert_msg(lane_runs == thread_runs, "%s: lanes have %llu runs, threads %llu", name,
                  (unsigned long long)lane_runs, (unsigned long long)thread_runs);

    /* Collections: every GC_START is one part of exactly one collection; every phase
     * interval points at a collection with a part on its cap that holds it; the parts'
     * work/wait add up to the tracks'. */
    uint64_t n_parts = 0, part_work = 0, part_wait = 0, track_work = 0, track_wait = 0;
    for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        n_parts += g->n_parts;
        bool leader_part = false;
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
            bool lead = p->cap == g->leader_cap && p->start_ns == g->start_ns &&
                        p->end_ns == g->end_ns;
            /* The leader's census is out of its work and wait (all of it waiting time
             * after GC_DONE on these logs). */
            uint64_t census = lead ? g->census_ns : 0;
            part_work += p->work_ns;
            part_wait += p->wait_ns + census;
            ck_assert_uint_eq(p->work_ns + p->wait_ns + census, p->end_ns - p->start_ns);
            leader_part |= lead;
        }
        ck_assert_msg(g->census_ns <= g->end_ns - g->start_ns, "%s: GC %zu census %llu",
                      name, i, (unsigned long long)g->census_ns);
        ck_assert_msg(leader_part || (g->flags & (EVINDEX_GC_F_NO_START | EVINDEX_GC_F_NO_STATS)),
                      "%s: GC %zu has no part for its leader", name, i);
        if (!(g->flags & EVINDEX_GC_F_NO_START))
            ck_assert_uint_eq(evindex_gc_containing(ix, g->start_ns), i);
    }
    ck_assert_msg(n_parts == s.n_gc_starts, "%s: %llu parts for %llu GC_STARTs", name,
                  (unsigned long long)n_parts, (unsigned long long)s.n_gc_starts);
    for (size_t l = 0; l < evindex_n_caps(ix); l++) {
        const evindex_cap *lc = evindex_cap_at(ix, l);
        track_work += ivtrack_kind_ns(lc->gc, EVINDEX_GC_WORK, 0, UINT64_MAX);
        track_wait += ivtrack_kind_ns(lc->gc, EVINDEX_GC_WAIT, 0, UINT64_MAX);
        for (size_t j = 0; j < ivtrack_count(lc->gc); j++) {
            ivtrack_iv iv_buf;
            const ivtrack_iv *iv = ivtrack_get(lc->gc, j, &iv_buf);
            ck_assert_msg(iv->ref < evindex_n_gcs(ix), "%s: cap %u phase %zu has no GC", name,
                          lc->cap, j);
            evindex_gc g_buf;
            const evindex_gc *g = evindex_gc_get(ix, iv->ref, &g_buf);
            bool held = false;
            for (uint32_t k = 0; k < g->n_parts && !held; k++) {
                evindex_gc_part p_buf;
                const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
                held = p->cap == lc->cap && p->start_ns <= iv->start_ns &&
                       iv->end_ns <= p->end_ns;
            }
            ck_assert_msg(held, "%s: cap %u phase %zu not inside a part of GC %u", name,
                          lc->cap, j, iv->ref);
        }
    }
    ck_assert_uint_eq(track_work, part_work);
    ck_assert_uint_eq(track_wait, part_wait);

    /* Against gcstats (the +RTS -s model, fed in time order). */
    merge *mg = merge_new(log, &ending);
    gcstats *gs = gcstats_new(NULL);
    evlog_event ev;
    while (merge_next(mg, &ev))
        gcstats_add(gs, &ev);
    gcstats_report r;
    gcstats_finish(gs, ending.code != DIAG_OK, &r);
    gcstats_free(gs);
    merge_free(mg);
    if (s.n_stats) {
        uint64_t colls = r.n_gcs_bad_gen, with_stats = 0, no_stats = 0;
        for (unsigned gi = 0; gi < r.n_gens; gi++)
            colls += r.gens[gi].colls;
        for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
            if (evindex_gc_get(ix, i, &(evindex_gc){ 0 })->flags & EVINDEX_GC_F_NO_STATS)
                no_stats++;
            else
                with_stats++;
        }
        ck_assert_msg(with_stats == colls && colls == s.n_stats,
                      "%s: %llu collections with stats, gcstats %llu, GC_STATS %llu", name,
                      (unsigned long long)with_stats, (unsigned long long)colls,
                      (unsigned long long)s.n_stats);
        /* Collections without GC_STATS: gcstats groups the caps' GC spans the same way
         * (killed-n2: 15, led by cap 1, whose buffer with their statistics was lost). */
        ck_assert_msg(no_stats == r.n_gcs_cut, "%s: %llu collections without stats, cut %llu",
                      name, (unsigned long long)no_stats, (unsigned long long)r.n_gcs_cut);
        for (unsigned gi = 0; gi < r.n_gens; gi++) {
            uint64_t sum = 0, max = 0, open = 0;
            for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
                evindex_gc g_buf;
                const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
                if (g->gen != gi || (g->flags & (EVINDEX_GC_F_NO_START | EVINDEX_GC_F_NO_STATS)))
                    continue;
                if (g->flags & EVINDEX_GC_F_OPEN) {
                    open++;
                    continue;
                }
                sum += g->end_ns - g->start_ns;
                max = ei_max(max, g->end_ns - g->start_ns);
            }
            /* gcstats closes a collection still open at the end at the last timestamp
             * and counts it; the index flags it OPEN. There is none in these logs. */
            ck_assert_msg(open == r.gens[gi].n_closed_at_end && open == 0,
                          "%s gen %u: %llu open collections, gcstats closed %llu at the end",
                          name, gi, (unsigned long long)open,
                          (unsigned long long)r.gens[gi].n_closed_at_end);
            ck_assert_msg(sum == r.gens[gi].elapsed_ns && max == r.gens[gi].max_pause_ns,
                          "%s gen %u: index pauses sum %llu max %llu, gcstats %llu max %llu",
                          name, gi, (unsigned long long)sum, (unsigned long long)max,
                          (unsigned long long)r.gens[gi].elapsed_ns,
                          (unsigned long long)r.gens[gi].max_pause_ns);
        }
    }
    /* Non-moving post-mark syncs: the track's SYNC time is gcstats' sync total. */
    if (s.nonmoving) {
        uint64_t sync = ivtrack_kind_ns(evindex_nm_track(ix), EVINDEX_NM_SYNC, 0, UINT64_MAX);
        ck_assert_msg(sync == r.sync_elapsed_ns, "%s: nonmoving sync %llu ns, gcstats %llu",
                      name, (unsigned long long)sync, (unsigned long long)r.sync_elapsed_ns);
        for (size_t i = 0; i < evindex_n_nm_cycles(ix); i++)
            ck_assert_msg(!(evindex_nm_cycle_at(ix, i)->flags & EVINDEX_GC_F_OPEN) ||
                              (evindex_truncated(ix) && i + 1 == evindex_n_nm_cycles(ix)),
                          "%s: nonmoving cycle %zu flagged open", name, i);
    }
    /* Remembered-set flushes: in time order, and each cycle's counted by time. */
    ck_assert_uint_eq(evindex_n_nm_flushes(ix), s.n_flushes);
    for (size_t i = 1; i < evindex_n_nm_flushes(ix); i++)
        ck_assert(evindex_nm_flush_at(ix, i - 1)->time_ns <= evindex_nm_flush_at(ix, i)->time_ns);
    if (s.n_flushes <= sizeof s.flush_times / sizeof s.flush_times[0]) {
        for (size_t i = 0; i < evindex_n_nm_cycles(ix); i++) {
            const evindex_nm_cycle *cy = evindex_nm_cycle_at(ix, i);
            uint32_t want = 0;
            for (size_t k = 0; k < s.n_flushes; k++)
                want += s.flush_times[k] >= cy->start_ns && s.flush_times[k] <= cy->end_ns;
            ck_assert_msg(cy->n_flushes == want, "%s: nonmoving cycle %zu has %u flushes, %u "
                          "by time", name, i, cy->n_flushes, want);
        }
    }

    /* Events by time: the whole range, and a few windows against the scan. */
    size_t max = (size_t)s.n_events + 1;
    evseek_hit *hits = xmalloc(max * sizeof *hits);
    bool more = true;
    size_t got = evseek_range(evindex_seek(ix), log, s.first_ns, s.last_ns + 1, hits, max, &more);
    ck_assert_msg(got == s.n_events && !more, "%s: whole range has %zu of %llu events", name,
                  got, (unsigned long long)s.n_events);
    uint64_t rs = 0x1234567u + s.n_events;
    for (int k = 0; k < 8 && s.n_events; k++) {
        uint64_t span = s.last_ns - s.first_ns + 1;
        uint64_t t0 = s.first_ns + ei_below(&rs, span), t1 = t0 + 1 + ei_below(&rs, span / 8 + 1);
        size_t want = 0;
        for (uint64_t i = 0; i < s.n_events; i++)
            want += s.times[i] >= t0 && s.times[i] < t1;
        got = evseek_range(evindex_seek(ix), log, t0, t1, hits, max, &more);
        ck_assert_msg(got == want, "%s: [%llu, %llu) has %zu events, scan %zu", name,
                      (unsigned long long)t0, (unsigned long long)t1, got, want);
        for (size_t i = 1; i < got; i++)
            ck_assert(hits[i - 1].time_ns <= hits[i].time_ns);
    }
    x_free(hits);
    x_free(s.times);
    evindex_free(ix);
    evlog_close(log);
}

START_TEST(test_evindex_fixtures_cross)
{
    char *dir = test_path("fixtures");
    size_t n;
    char **names = test_list_dir(dir, ".eventlog", &n);
    ck_assert_uint_ge(n, 10);
    for (size_t i = 0; i < n; i++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, names[i]);
        ei_cross_check(p.data, names[i], true);
        strbuf_free(&p);
    }
    test_free_names(names, n);
    x_free(dir);
}
END_TEST

START_TEST(test_evindex_corpus_cross)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "evindex: corpus not found, corpus cross-checks SKIPPED\n");
        return;
    }
    size_t n;
    char **names = test_list_dir(dir, ".eventlog", &n);
    for (size_t i = 0; i < n; i++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, names[i]);
        ei_cross_check(p.data, names[i], false);
        strbuf_free(&p);
    }
    test_free_names(names, n);
    x_free(dir);
}
END_TEST

/* ---- 3. property test: random logs against a brute-force replay --------------------- */

#define PG_MAX_CAPS 5

/* One generated collection (what the index must find in a complete log). */
typedef struct pg_gc {
    uint64_t request_ns, start_ns, end_ns;
    uint16_t leader, gen;
    bool par;
} pg_gc;

typedef struct pg {
    evwrite *w;                 /* NULL: dry run (only the clock advances) */
    uint64_t cut;               /* events later than this are not written */
    uint64_t end_ns;            /* latest time generated */
    pg_gc gcs[64];
    size_t n_gcs;
} pg;

static void
pg_note(pg *g, uint64_t t)
{
    g->end_ns = ei_max(g->end_ns, t);
}

static void
pg_empty(pg *g, uint16_t cap, uint16_t type, uint64_t t)
{
    pg_note(g, t);
    if (g->w && t <= g->cut)
        EW(evwrite_empty(g->w, cap, type, t));
}

static void
pg_run(pg *g, uint16_t cap, uint64_t t, uint32_t tid)
{
    pg_note(g, t);
    if (g->w && t <= g->cut)
        EW(evwrite_run_thread(g->w, cap, t, tid));
}

static void
pg_stop(pg *g, uint16_t cap, uint64_t t, uint32_t tid, uint16_t status)
{
    pg_note(g, t);
    if (g->w && t <= g->cut)
        EW(evwrite_stop_thread(g->w, cap, t, tid, status, 0));
}

static void
pg_gc_stats(pg *g, uint16_t cap, uint64_t t, uint16_t gen, uint32_t par)
{
    pg_note(g, t);
    if (g->w && t <= g->cut)
        ei_stats(g->w, cap, t, gen, 1000 + t % 1000, par);
}

/* GC_START and sub-phases of one capability from `start`; returns the time of its last
 * sub-phase event (or start). */
static uint64_t
pg_phases(pg *g, uint64_t *s, uint16_t cap, uint64_t start)
{
    pg_empty(g, cap, EV_GC_START, start);
    uint64_t x = start;
    if (ei_below(s, 6) == 0)
        return x;               /* no sub-phase events at all */
    x += ei_below(s, 200);
    pg_empty(g, cap, EV_GC_WORK, x);
    for (uint64_t k = ei_below(s, 3); k > 0; k--) {
        x += 1 + ei_below(s, 800);
        pg_empty(g, cap, EV_GC_IDLE, x);
        x += 1 + ei_below(s, 100);
        pg_empty(g, cap, EV_GC_WORK, x);
    }
    x += 1 + ei_below(s, 1000);
    pg_empty(g, cap, EV_GC_DONE, x);
    for (uint64_t k = ei_below(s, 3); k > 0; k--) {
        x += 1 + ei_below(s, 50);
        pg_empty(g, cap, EV_GC_IDLE, x);
        x += ei_below(s, 20);
        pg_empty(g, cap, EV_GC_DONE, x);
    }
    return x;
}

/* Generate the log of `seed` into g (a dry run when g->w is NULL). Each epoch is a
 * mutator stretch (runs with random tids and statuses, some without STOP_THREAD) and
 * then a collection: a request, every capability stopped, the participants' GC_START
 * at random offsets (workers before or after the leader), sub-phases, the leader's
 * GC_STATS before its earlier-stamped GC_END, workers ending after the leader; now and
 * then a worker posts its GC_END only after the next collection was requested (as in
 * threaded-n4), so its span overlaps the next collection's first spans. */
static void
pg_generate(pg *g, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15u + 12345;
    unsigned n_caps = 2 + (unsigned)ei_below(&s, PG_MAX_CAPS - 1);
    uint64_t clock[PG_MAX_CAPS] = { 0 };
    uint64_t t = 1000;
    int stale = -1;
    unsigned n_epochs = 1 + (unsigned)ei_below(&s, 10);
    g->n_gcs = 0;
    g->end_ns = 0;
    for (unsigned e = 0; e <= n_epochs; e++) {
        uint64_t dur = 2000 + ei_below(&s, 20000);
        for (unsigned c = 0; c < n_caps; c++) {
            if ((int)c == stale)
                continue;
            uint64_t tc = ei_max(t, clock[c]) + 1 + ei_below(&s, 300);
            while (tc < t + dur) {
                uint32_t tid = 1 + (uint32_t)ei_below(&s, 30);
                pg_run(g, (uint16_t)c, tc, tid);
                clock[c] = tc;
                uint64_t end = tc + 1 + ei_below(&s, 3000);
                if (ei_below(&s, 10) == 0) {    /* no STOP_THREAD */
                    tc = end;
                    continue;
                }
                pg_stop(g, (uint16_t)c, end, tid, (uint16_t)(1 + ei_below(&s, 20)));
                clock[c] = end;
                tc = end + 1 + ei_below(&s, 400);
            }
        }
        if (e == n_epochs)
            break;

        unsigned lead;
        do
            lead = (unsigned)ei_below(&s, n_caps);
        while ((int)lead == stale);
        bool par = ei_below(&s, 4) != 0;
        uint64_t q = ei_max(t + dur, clock[lead] + 1);
        pg_empty(g, (uint16_t)lead, par ? EV_REQUEST_PAR_GC : EV_REQUEST_SEQ_GC, q);
        clock[lead] = q;
        bool part[PG_MAX_CAPS] = { false };
        uint64_t all_stopped = q;
        for (unsigned c = 0; c < n_caps; c++) {
            if ((int)c == stale)
                continue;
            part[c] = c == lead || (par && ei_below(&s, 4) != 0);
            all_stopped = ei_max(all_stopped, clock[c]);
        }
        /* The leader starts once every capability has stopped. */
        uint64_t lead_start = all_stopped + 1 + ei_below(&s, 400);
        uint64_t lead_last = pg_phases(g, &s, (uint16_t)lead, lead_start);
        uint64_t lead_end = lead_last + 1 + ei_below(&s, 300);
        if (stale >= 0) {       /* last collection's late worker: GC_END after the request */
            uint64_t te = q + 1 + ei_below(&s, lead_start - q);
            pg_empty(g, (uint16_t)stale, EV_GC_END, te);
            clock[stale] = te;
            stale = -1;
        }
        for (unsigned c = 0; c < n_caps; c++) {
            if (!part[c] || c == lead)
                continue;
            uint64_t lo = ei_max(clock[c], q) + 1;
            uint64_t start = lo + ei_below(&s, lead_end - lo);
            uint64_t last = pg_phases(g, &s, (uint16_t)c, start);
            uint64_t end = ei_max(last + 1, lead_start + 1) + ei_below(&s, 2000);
            if (stale < 0 && n_caps >= 3 && ei_below(&s, 4) == 0) {
                stale = (int)c;
                clock[c] = last;
                continue;
            }
            pg_empty(g, (uint16_t)c, EV_GC_END, end);
            clock[c] = end;
        }
        uint16_t gen = (uint16_t)ei_below(&s, 2);
        if (ei_below(&s, 2))
            pg_empty(g, (uint16_t)lead, EV_GC_GLOBAL_SYNC, lead_end + 10);
        pg_gc_stats(g, (uint16_t)lead, lead_end + 30, gen, par ? 2 : 1);
        pg_empty(g, (uint16_t)lead, EV_GC_END, lead_end);
        clock[lead] = lead_end + 30;
        if (g->n_gcs < sizeof g->gcs / sizeof g->gcs[0])
            g->gcs[g->n_gcs++] = (pg_gc){ q, lead_start, lead_end, (uint16_t)lead, gen, par };
        t = 0;
        for (unsigned c = 0; c < n_caps; c++)
            t = ei_max(t, clock[c]);
        t += 1;
    }
    if (stale >= 0)
        pg_empty(g, (uint16_t)stale, EV_GC_END, ei_max(t, clock[stale] + 1));
}

/* The brute-force model: each capability's events replayed in file order. */
typedef struct pm_run {
    uint64_t start, end;
    uint32_t tid;
    uint16_t stop;
    uint8_t flags;
} pm_run;

typedef struct pm_iv {
    uint64_t start, end;
    uint8_t kind;
} pm_iv;

typedef struct pm_span {
    uint64_t start, end, work, wait;
    uint16_t cap;
    uint64_t first_work;        /* its first GC_WORK, or 0 */
    bool claimed;               /* a GC_STATS on its cap came while it was the latest */
} pm_span;

typedef struct pm_lane {
    bool used;
    pm_run *runs;
    size_t n_runs;
    pm_iv *ivs;
    size_t n_ivs;
    bool run_open, in_gc, any_sub;
    uint32_t tid;
    uint64_t run_start, ph_start;
    uint8_t kind;
    size_t span;
} pm_lane;

typedef struct pm_model {
    pm_lane lanes[PG_MAX_CAPS];
    pm_span *spans;
    size_t n_spans;
    uint64_t last_ns;
    uint64_t block_end[PG_MAX_CAPS];    /* latest block end time a marker claims */
    size_t last_span[PG_MAX_CAPS];      /* per cap: 1 + its latest span, or 0 */
    uint64_t cap_last[PG_MAX_CAPS];     /* per cap: the latest time in its blocks */
} pm_model;

static void
pm_add_run(pm_lane *l, uint64_t end, uint16_t stop, uint8_t flags)
{
    l->runs = xreallocarray(l->runs, l->n_runs + 1, sizeof *l->runs);
    l->runs[l->n_runs++] = (pm_run){ l->run_start, end, l->tid, stop, flags };
    l->run_open = false;
}

static void
pm_phase(pm_model *m, pm_lane *l, uint64_t t, uint8_t next)
{
    if (t > l->ph_start) {
        l->ivs = xreallocarray(l->ivs, l->n_ivs + 1, sizeof *l->ivs);
        l->ivs[l->n_ivs++] = (pm_iv){ l->ph_start, t, l->kind };
        if (l->kind == EVINDEX_GC_WORK)
            m->spans[l->span].work += t - l->ph_start;
        else
            m->spans[l->span].wait += t - l->ph_start;
        l->ph_start = t;
    }
    l->kind = next;
}

static void
pm_end_gc(pm_model *m, pm_lane *l, uint64_t t)
{
    if (!l->any_sub)
        l->kind = EVINDEX_GC_WORK;
    pm_phase(m, l, t, EVINDEX_GC_WAIT);
    m->spans[l->span].end = t;
    l->in_gc = false;
}

static void
pm_replay(pm_model *m, const evlog *log)
{
    memset(m, 0, sizeof *m);
    evlog_iter it;
    evlog_event ev;
    evlog_iter_init(&it, log);
    while (evlog_iter_next(&it, &ev)) {
        m->last_ns = ei_max(m->last_ns, ev.time_ns);
        if (ev.cap < PG_MAX_CAPS)
            m->cap_last[ev.cap] = ei_max(m->cap_last[ev.cap], ev.time_ns);
    }
    evlog_iter_init(&it, log);
    while (evlog_iter_next(&it, &ev)) {
        if (ev.cap >= PG_MAX_CAPS)
            continue;
        pm_lane *l = &m->lanes[ev.cap];
        uint64_t t = ev.time_ns;
        switch (ev.type) {
        case EV_BLOCK_MARKER: {
            uint64_t e = 0;
            for (int k = 4; k < 12; k++)
                e = e << 8 | ev.payload[k];
            m->block_end[ev.cap] = ei_max(m->block_end[ev.cap], e);
            break;
        }
        case EV_GC_STATS_GHC:
            if (m->last_span[ev.cap])
                m->spans[m->last_span[ev.cap] - 1].claimed = true;
            break;
        case EV_RUN_THREAD:
            if (l->run_open)
                pm_add_run(l, t, 0, RUNLANE_F_OPEN);
            l->run_open = true;
            l->run_start = t;
            l->tid = (uint32_t)ev.payload[0] << 24 | (uint32_t)ev.payload[1] << 16 |
                     (uint32_t)ev.payload[2] << 8 | ev.payload[3];
            break;
        case EV_STOP_THREAD:
            if (l->run_open)
                pm_add_run(l, t, (uint16_t)(ev.payload[4] << 8 | ev.payload[5]), 0);
            break;
        case EV_GC_START:
            if (l->run_open)
                pm_add_run(l, t, 0, RUNLANE_F_OPEN);
            if (l->in_gc)
                pm_end_gc(m, l, t);
            m->spans = xreallocarray(m->spans, m->n_spans + 1, sizeof *m->spans);
            m->spans[m->n_spans] = (pm_span){ t, t, 0, 0, ev.cap, 0, false };
            m->last_span[ev.cap] = m->n_spans + 1;
            l->span = m->n_spans++;
            l->in_gc = true;
            l->any_sub = false;
            l->kind = EVINDEX_GC_WAIT;
            l->ph_start = t;
            break;
        case EV_GC_WORK:
        case EV_GC_IDLE:
        case EV_GC_DONE:
            if (l->in_gc) {
                if (ev.type == EV_GC_WORK && !m->spans[l->span].first_work)
                    m->spans[l->span].first_work = t;
                l->any_sub = true;
                pm_phase(m, l, t, ev.type == EV_GC_WORK ? EVINDEX_GC_WORK : EVINDEX_GC_WAIT);
            }
            break;
        case EV_GC_END:
            if (l->in_gc)
                pm_end_gc(m, l, t);
            break;
        default:
            break;
        }
        if (ev.type == EV_RUN_THREAD || ev.type == EV_STOP_THREAD || ev.type == EV_GC_START ||
            ev.type == EV_GC_END || ev.type == EV_GC_WORK || ev.type == EV_GC_IDLE ||
            ev.type == EV_GC_DONE || ev.type == EV_GC_STATS_GHC ||
            ev.type == EV_REQUEST_PAR_GC || ev.type == EV_REQUEST_SEQ_GC ||
            ev.type == EV_GC_GLOBAL_SYNC)
            l->used = true;
    }
    for (unsigned c = 0; c < PG_MAX_CAPS; c++) {
        pm_lane *l = &m->lanes[c];
        /* A run the data leaves open ends by the first collection after it began (a
         * leader's GC_START, a worker's first GC_WORK or else its GC_END), or its cap's
         * last block end, or the last timestamp. */
        uint64_t end = m->last_ns;
        for (size_t k = 0; k < m->n_spans; k++) {
            const pm_span *sp = &m->spans[k];
            uint64_t by = sp->claimed ? sp->start : sp->first_work ? sp->first_work : sp->end;
            if (sp->start > l->run_start && by < end)
                end = by;
        }
        if (m->block_end[c] > l->run_start && m->block_end[c] < end)
            end = m->block_end[c];
        end = ei_max(end, m->cap_last[c]);
        if (l->run_open)
            pm_add_run(l, end, 0, RUNLANE_F_OPEN);
        if (l->in_gc)
            pm_end_gc(m, l, m->last_ns);
    }
}

static void
pm_free(pm_model *m)
{
    for (unsigned c = 0; c < PG_MAX_CAPS; c++) {
        x_free(m->lanes[c].runs);
        x_free(m->lanes[c].ivs);
    }
    x_free(m->spans);
}

static uint64_t
pm_busy(const pm_lane *l, uint64_t t0, uint64_t t1)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < l->n_runs; i++)
        sum += ei_overlap(l->runs[i].start, l->runs[i].end, t0, t1);
    return sum;
}

static uint64_t
pm_kind(const pm_lane *l, uint8_t kind, uint64_t t0, uint64_t t1)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < l->n_ivs; i++)
        if (l->ivs[i].kind == kind)
            sum += ei_overlap(l->ivs[i].start, l->ivs[i].end, t0, t1);
    return sum;
}

/* When a lane stopped for a collection requested at q whose leader started at start:
 * the end of its last run begun by then, if that run was still going at q. */
static uint64_t
pm_stop(const pm_lane *l, uint64_t q, uint64_t start)
{
    const pm_run *r = NULL;
    for (size_t i = 0; i < l->n_runs; i++)
        if (l->runs[i].start <= start)
            r = &l->runs[i];
    if (!r || r->end <= q)
        return q;
    return r->end < start ? r->end : start;
}

static int
pm_span_cmp(const void *a, const void *b)
{
    const pm_span *x = a, *y = b;
    if (x->cap != y->cap)
        return x->cap < y->cap ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void
pg_check_one(uint64_t seed)
{
    uint64_t s = seed * 31 + 7;
    pg g = { .w = NULL, .cut = UINT64_MAX };
    pg_generate(&g, seed);
    bool truncate = ei_below(&s, 4) == 0, cut_time = truncate && ei_below(&s, 3) != 0;
    size_t keep = ei_below(&s, 3) == 0 ? (size_t)ei_below(&s, 30) : SIZE_MAX;
    if (cut_time)
        g.cut = 1000 + ei_below(&s, g.end_ns - 1000);

    ei_mem mem;
    g.w = ei_writer(&mem);
    if (ei_below(&s, 3) == 0)
        EW(evwrite_set_block_bytes(g.w, 200 + ei_below(&s, 3000)));
    pg_generate(&g, seed);
    ei_finish(&mem, g.w, truncate, keep);
    uint64_t written = mem.n_events;
    ei_case c;
    ei_open_mem(&c, &mem);
    const evindex *ix = c.ix;
    ck_assert_msg(evindex_truncated(ix) == truncate, "seed %llu: truncated",
                  (unsigned long long)seed);
    ck_assert_uint_eq(evindex_n_events(ix), written + ei_count_type(c.log, EV_BLOCK_MARKER));

    pm_model m;
    pm_replay(&m, c.log);
    ck_assert_uint_eq(evindex_last_ns(ix), m.last_ns);
    size_t n_used = 0;
    for (unsigned cap = 0; cap < PG_MAX_CAPS; cap++)
        n_used += m.lanes[cap].used;
    ck_assert_uint_eq(evindex_n_caps(ix), n_used);

    uint64_t span_end = m.last_ns + 500;
    for (unsigned cap = 0; cap < PG_MAX_CAPS; cap++) {
        const pm_lane *l = &m.lanes[cap];
        if (!l->used)
            continue;
        const evindex_cap *lc = ei_lane(ix, (uint16_t)cap);
        ck_assert_msg(runlane_count(lc->runs) == l->n_runs, "seed %llu cap %u: %zu runs, model %zu",
                      (unsigned long long)seed, cap, runlane_count(lc->runs), l->n_runs);
        for (size_t i = 0; i < l->n_runs; i++) {
            const pm_run *r = &l->runs[i];
            ei_assert_run(ix, (uint16_t)cap, i, r->start, r->end, r->tid,
                          (uint8_t)(r->stop > 255 ? 255 : r->stop), r->flags);
        }
        ck_assert_msg(ivtrack_count(lc->gc) == l->n_ivs, "seed %llu cap %u: %zu phases, model %zu",
                      (unsigned long long)seed, cap, ivtrack_count(lc->gc), l->n_ivs);
        for (size_t i = 0; i < l->n_ivs; i++) {
            ivtrack_iv iv_buf;
            const ivtrack_iv *iv = ivtrack_get(lc->gc, i, &iv_buf);
            ck_assert_msg(iv->start_ns == l->ivs[i].start && iv->end_ns == l->ivs[i].end &&
                              iv->kind == l->ivs[i].kind,
                          "seed %llu cap %u phase %zu", (unsigned long long)seed, cap, i);
        }
        for (int k = -1; k < 40; k++) {
            uint64_t t0 = 0, t1 = UINT64_MAX;
            if (k >= 0) {
                t0 = ei_below(&s, span_end);
                t1 = t0 + ei_below(&s, k < 20 ? 3000 : span_end);
            }
            ck_assert_msg(runlane_busy_ns(lc->runs, t0, t1) == pm_busy(l, t0, t1),
                          "seed %llu cap %u busy [%llu, %llu): %llu, model %llu",
                          (unsigned long long)seed, cap, (unsigned long long)t0,
                          (unsigned long long)t1,
                          (unsigned long long)runlane_busy_ns(lc->runs, t0, t1),
                          (unsigned long long)pm_busy(l, t0, t1));
            for (uint8_t kind = EVINDEX_GC_WORK; kind <= EVINDEX_GC_WAIT; kind++)
                ck_assert_msg(ivtrack_kind_ns(lc->gc, kind, t0, t1) == pm_kind(l, kind, t0, t1),
                              "seed %llu cap %u kind %u [%llu, %llu): %llu, model %llu",
                              (unsigned long long)seed, cap, kind, (unsigned long long)t0,
                              (unsigned long long)t1,
                              (unsigned long long)ivtrack_kind_ns(lc->gc, kind, t0, t1),
                              (unsigned long long)pm_kind(l, kind, t0, t1));
        }
    }

    /* Every span is a part of exactly one collection, with its work and wait. */
    pm_span *parts = xmalloc((m.n_spans + 1) * sizeof *parts);
    size_t n_parts = 0;
    for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
        evindex_gc gc_buf;
        const evindex_gc *gc = evindex_gc_get(ix, i, &gc_buf);
        for (uint32_t k = 0; k < gc->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, gc->first_part + k, &p_buf);
            ck_assert_uint_lt(n_parts, m.n_spans);
            parts[n_parts++] = (pm_span){ p->start_ns, p->end_ns, p->work_ns, p->wait_ns, p->cap,
                                            0, false };
        }
    }
    ck_assert_uint_eq(n_parts, m.n_spans);
    if (n_parts) {
        qsort(parts, n_parts, sizeof *parts, pm_span_cmp);
        qsort(m.spans, m.n_spans, sizeof *m.spans, pm_span_cmp);
    }
    for (size_t i = 0; i < n_parts; i++)
        ck_assert_msg(parts[i].cap == m.spans[i].cap && parts[i].start == m.spans[i].start &&
                          parts[i].end == m.spans[i].end && parts[i].work == m.spans[i].work &&
                          parts[i].wait == m.spans[i].wait,
                      "seed %llu: part %zu differs", (unsigned long long)seed, i);
    x_free(parts);

    /* A complete log: exactly the collections generated, with their request and sync. */
    if (!truncate) {
        ck_assert_msg(evindex_n_gcs(ix) == g.n_gcs, "seed %llu: %zu collections, generated %zu",
                      (unsigned long long)seed, evindex_n_gcs(ix), g.n_gcs);
        for (size_t i = 0; i < g.n_gcs; i++) {
            evindex_gc gc_buf;
            const evindex_gc *gc = evindex_gc_get(ix, i, &gc_buf);
            const pg_gc *w = &g.gcs[i];
            ck_assert_msg(gc->start_ns == w->start_ns && gc->end_ns == w->end_ns &&
                              gc->leader_cap == w->leader && gc->gen == w->gen &&
                              gc->request_ns == w->request_ns && gc->request_cap == w->leader,
                          "seed %llu GC %zu: %llu..%llu leader %u gen %u request %llu on %u; "
                          "want %llu..%llu leader %u gen %u request %llu",
                          (unsigned long long)seed, i, (unsigned long long)gc->start_ns,
                          (unsigned long long)gc->end_ns, gc->leader_cap, gc->gen,
                          (unsigned long long)gc->request_ns, gc->request_cap,
                          (unsigned long long)w->start_ns, (unsigned long long)w->end_ns,
                          w->leader, w->gen, (unsigned long long)w->request_ns);
            uint8_t flags = EVINDEX_GC_F_HAS_BALANCE | (w->par ? EVINDEX_GC_F_PAR_REQUEST : 0) |
                            (w->gen == 1 ? EVINDEX_GC_F_MAJOR : 0);
            ck_assert_uint_eq(gc->flags, flags);
            uint64_t last = w->request_ns;
            uint16_t slowest = EVINDEX_NO_CAP;
            for (unsigned cap = 0; cap < PG_MAX_CAPS; cap++) {
                if (!m.lanes[cap].used)
                    continue;
                uint64_t st = pm_stop(&m.lanes[cap], w->request_ns, w->start_ns);
                /* Only a cap that was still running after the request is slow. */
                if (st > w->request_ns && st >= last) {
                    last = st;
                    slowest = (uint16_t)cap;
                }
            }
            ck_assert_msg(last <= w->start_ns &&
                              gc->stopping_ns == w->start_ns - w->request_ns &&
                              gc->slowest_cap == slowest,
                          "seed %llu GC %zu: to stop %llu slowest %u, model %llu on %u "
                          "(last stop %llu)",
                          (unsigned long long)seed, i, (unsigned long long)gc->stopping_ns,
                          gc->slowest_cap, (unsigned long long)(w->start_ns - w->request_ns),
                          slowest, (unsigned long long)last);
        }
    }
    pm_free(&m);
    ei_close(&c);
}

START_TEST(test_evindex_property)
{
    for (uint64_t seed = 1; seed <= 100; seed++)
        pg_check_one(seed);
}
END_TEST

/* ---- 4. golden tables and JSON ----------------------------------------------------------- */

/* A tiny JSON syntax checker (RFC 8259): objects, arrays, strings with escapes and
 * valid UTF-8, numbers, literals. */
typedef struct js {
    const unsigned char *p, *end;
    int depth;
} js;

static void
js_ws(js *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool
js_lit(js *j, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n) != 0)
        return false;
    j->p += n;
    return true;
}

static bool
js_digits(js *j)
{
    const unsigned char *s = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > s;
}

static bool
js_number(js *j)
{
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!(j->p < j->end && *j->p >= '1' && *j->p <= '9') || !js_digits(j))
        return false;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (!js_digits(j))
            return false;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (!js_digits(j))
            return false;
    }
    return true;
}

/* One UTF-8 sequence (no overlongs, no surrogates, <= U+10FFFF). */
static bool
js_utf8(js *j)
{
    unsigned char c = *j->p;
    int n;
    uint32_t cp;
    if (c < 0x80) {
        j->p++;
        return true;
    } else if (c >= 0xc2 && c <= 0xdf) {
        n = 1;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 2;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 3;
        cp = c & 0x07;
    } else {
        return false;
    }
    if (j->end - j->p <= n)
        return false;
    for (int i = 1; i <= n; i++) {
        if ((j->p[i] & 0xc0) != 0x80)
            return false;
        cp = cp << 6 | (j->p[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x800) || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return false;
    j->p += n + 1;
    return true;
}

static bool
js_string(js *j)
{
    if (j->p >= j->end || *j->p != '"')
        return false;
    j->p++;
    while (j->p < j->end) {
        unsigned char c = *j->p;
        if (c == '"') {
            j->p++;
            return true;
        }
        if (c < 0x20)
            return false;
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end)
                return false;
            c = *j->p++;
            if (c == 'u') {
                for (int i = 0; i < 4; i++, j->p++)
                    if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
                        return false;
            } else if (!c || !strchr("\"\\/bfnrt", c)) {
                return false;
            }
            continue;
        }
        if (!js_utf8(j))
            return false;
    }
    return false;
}

static bool js_value(js *j);

static bool
js_container(js *j, bool object)
{
    j->p++;
    js_ws(j);
    if (j->p < j->end && *j->p == (object ? '}' : ']')) {
        j->p++;
        return true;
    }
    for (;;) {
        js_ws(j);
        if (object) {
            if (!js_string(j))
                return false;
            js_ws(j);
            if (j->p >= j->end || *j->p != ':')
                return false;
            j->p++;
        }
        if (!js_value(j))
            return false;
        js_ws(j);
        if (j->p >= j->end)
            return false;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p != (object ? '}' : ']'))
            return false;
        j->p++;
        return true;
    }
}

static bool
js_value(js *j)
{
    js_ws(j);
    if (j->p >= j->end || ++j->depth > 64)
        return false;
    bool ok;
    switch (*j->p) {
    case '{': ok = js_container(j, true); break;
    case '[': ok = js_container(j, false); break;
    case '"': ok = js_string(j); break;
    case 't': ok = js_lit(j, "true"); break;
    case 'f': ok = js_lit(j, "false"); break;
    case 'n': ok = js_lit(j, "null"); break;
    default: ok = js_number(j); break;
    }
    j->depth--;
    return ok;
}

static bool
js_valid(const char *text, size_t len)
{
    js j = { (const unsigned char *)text, (const unsigned char *)text + len, 0 };
    if (!js_value(&j))
        return false;
    js_ws(&j);
    return j.p == j.end;
}

START_TEST(test_evindex_json_checker)
{
    static const char *const good[] = {
        "[]", "{}", " [1, -2.5e+3, 0, \"a\\\"b\\\\\\u00e9\\n\", null, true, false] ",
        "{\"a\":{\"b\":[{}]},\"c\":\"\xc3\xa9\xf0\x9f\x9a\x80\"}", "-0.0E1",
    };
    static const char *const bad[] = {
        "", "[1,]", "{\"a\":}", "{\"a\" 1}", "[01]", "nul", "\"a\tb\"", "\"\\x41\"",
        "\"\\u12\"", "[1] 2", "{1:2}", "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "[-]",
        "1.", "[\"unterminated]", "{\"a\":1,}", "+1",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(js_valid(good[i], strlen(good[i])), "valid JSON rejected: %s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!js_valid(bad[i], strlen(bad[i])), "invalid JSON accepted: %s", bad[i]);
}
END_TEST

/* Open and index a fixture; caller closes with ei_close. */
static void
ei_open_fixture(ei_case *c, const char *name)
{
    memset(c, 0, sizeof *c);
    strbuf rel;
    strbuf_init(&rel);
    strbuf_printf(&rel, "fixtures/%s", name);
    c->log = test_open_log(rel.data);
    c->ix = evindex_build(c->log, NULL, &c->ending);
    ck_assert_ptr_nonnull(c->ix);
    strbuf_free(&rel);
}

/* A program killed while both capabilities ran a thread (fixtures/killed-n2: cap 0's
 * 2 MB block whole, cap 1's cut after 100 KB; figures from its ghc-events dump). The
 * open runs end where the log proves every capability had stopped, not at the log's
 * last timestamp (2.866 s), and the collections after cap 1's data stops do not name
 * it the slowest to stop. */
START_TEST(test_evindex_killed_open_runs)
{
    ei_case c;
    ei_open_fixture(&c, "killed-n2.eventlog");
    const evindex *ix = c.ix;
    ck_assert(evindex_truncated(ix));
    ck_assert_uint_eq(evindex_last_ns(ix), 2866282258);
    /* Cap 1: "running thread 7" at 146035701, its last event at 146479708, no stop.
     * The next collection is the one cap 0 joins with "starting GC" at 187195555 (its
     * leader, cap 1, lost its GC_STATS with the rest of its block); cap 0 is a worker
     * there, and workers start work only once the leader has started, after every
     * capability stopped: cap 0's "GC working" at 189913008 bounds the run. */
    const runlane *r1 = ei_lane(ix, 1)->runs;
    size_t n1 = runlane_count(r1);
    ck_assert_uint_gt(n1, 0);
    ei_assert_run(ix, 1, n1 - 1, 146035701, 189913008, 7, 0, RUNLANE_F_OPEN);
    /* Cap 0: "running thread 6" at 2866282258 is its (and the log's) last event. */
    const runlane *r0 = ei_lane(ix, 0)->runs;
    size_t n0 = runlane_count(r0);
    ei_assert_run(ix, 0, n0 - 1, 2866282258, 2866282258, 6, 0, RUNLANE_F_OPEN);
    for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        ck_assert_msg(g->start_ns < 146479708 || g->slowest_cap != 1,
                      "GC at %llu names cap 1 the slowest to stop",
                      (unsigned long long)g->start_ns);
    }
    ei_close(&c);
}
END_TEST

/* Compare a table with fixtures/<golden>, naming the first differing line. */
static void
ei_golden(const strbuf *got, const char *golden)
{
    strbuf rel;
    strbuf_init(&rel);
    strbuf_printf(&rel, "fixtures/%s", golden);
    char *path = test_path(rel.data);
    size_t len;
    uint8_t *want = test_read_file(path, &len);
    ck_assert_msg(want != NULL, "%s is missing (see fixtures/regen.sh)", path);
    size_t line = 1, i = 0;
    while (i < len && i < got->len && want[i] == (uint8_t)got->data[i]) {
        line += want[i] == '\n';
        i++;
    }
    ck_assert_msg(i == len && i == got->len, "%s differs at line %zu (byte %zu; %zu vs %zu bytes)",
                  golden, line, i, got->len, len);
    x_free(want);
    x_free(path);
    strbuf_free(&rel);
}

/* The heap profiles of the -hT and -hc fixtures: golden band tables, valid JSON, and
 * each census's total equal to the heap-profile series built by the other path. */
START_TEST(test_evindex_heap_profile)
{
    static const char *const names[] = { "heapprof-hT", "heapprof-hc" };
    for (size_t f = 0; f < 2; f++) {
        ei_case c;
        strbuf out, rel;
        strbuf_init(&out);
        strbuf_init(&rel);
        strbuf_printf(&rel, "%s.eventlog", names[f]);
        ei_open_fixture(&c, rel.data);
        reports_opts o = { 0 };
        reports_heap(&out, c.ix, &o);
        strbuf_reset(&rel);
        strbuf_printf(&rel, "%s.heap.tsv", names[f]);
        ei_golden(&out, rel.data);
        for (int censuses = 0; censuses < 2; censuses++) {
            strbuf_reset(&out);
            o = (reports_opts){ .json = true, .censuses = censuses };
            reports_heap(&out, c.ix, &o);
            ck_assert_msg(js_valid(out.data, out.len), "%s heap --json is not JSON", names[f]);
        }
        const heapprof *hp = evindex_heap_profile(c.ix);
        const series *sr = evindex_series(c.ix, EVINDEX_S_HEAP_PROF);
        ck_assert_uint_gt(heapprof_n_censuses(hp), 10);
        ck_assert_uint_eq(heapprof_n_censuses(hp), evindex_program_info(c.ix)->hp_censuses);
        ck_assert_uint_eq(heapprof_n_censuses(hp), series_count(sr));
        for (size_t i = 0; i < heapprof_n_censuses(hp); i++) {
            series_sample smp = series_get(sr, i);
            ck_assert_uint_eq(heapprof_census_at(hp, i)->total_bytes, smp.value);
            ck_assert_uint_eq(heapprof_census_at(hp, i)->time_ns, smp.time_ns);
        }
        /* -hc names bands by cost centres, all of them defined in the log. */
        if (f == 1) {
            ck_assert_uint_gt(heapprof_n_cost_centres(hp), 5);
            for (size_t b = 0; b < heapprof_n_bands(hp); b++) {
                ck_assert_int_eq(heapprof_band_at(hp, b)->kind, HEAPPROF_BAND_STACK);
                strbuf_reset(&out);
                heapprof_band_name(hp, b, &out);
                ck_assert_msg(out.len > 0 && memchr(out.data, '#', out.len) == NULL,
                              "band %zu: %.*s", b, (int)out.len, out.data);
            }
        }
        strbuf_free(&out);
        strbuf_free(&rel);
        ei_close(&c);
    }
}
END_TEST

/* reports_opts.flush: what was handed over so far, appended to a strbuf. */
static void
ei_flush_into(void *ctx, strbuf *out)
{
    strbuf *all = ctx;
    strbuf_append(all, out->data, out->len);
    strbuf_reset(out);
}

/* A table flushed in pieces of a few hundred bytes is the golden table, piece by piece
 * (the buffer never held it whole). */
START_TEST(test_evindex_tables_flushed)
{
    ei_case c;
    ei_open_fixture(&c, "threaded-n4.eventlog");
    static const char *const golden[2] = { "threaded-n4.gc.tsv", "threaded-n4.threads.tsv" };
    for (int which = 0; which < 2; which++) {
        strbuf out, all;
        strbuf_init(&out);
        strbuf_init(&all);
        reports_opts o = { .flush = ei_flush_into, .flush_ctx = &all, .flush_bytes = 300 };
        if (which)
            reports_threads(&out, c.ix, &o);
        else
            reports_gc(&out, c.ix, &o);
        ck_assert_uint_gt(all.len, 0);          /* flushed at least once */
        ck_assert_uint_lt(out.len, 1000);       /* only the tail is left */
        strbuf_append(&all, out.data, out.len);
        ei_golden(&all, golden[which]);
        strbuf_free(&out);
        strbuf_free(&all);
    }
    ei_close(&c);
}
END_TEST

START_TEST(test_evindex_golden_tables)
{
    ei_case c;
    strbuf out;
    reports_opts o;

    ei_open_fixture(&c, "threaded-n4.eventlog");
    strbuf_init(&out);
    o = (reports_opts){ 0 };
    reports_gc(&out, c.ix, &o);
    ei_golden(&out, "threaded-n4.gc.tsv");
    strbuf_reset(&out);
    reports_threads(&out, c.ix, &o);
    ei_golden(&out, "threaded-n4.threads.tsv");
    for (int which = 0; which < 2; which++) {
        strbuf_reset(&out);
        o = (reports_opts){ .json = true };
        if (which)
            reports_threads(&out, c.ix, &o);
        else
            reports_gc(&out, c.ix, &o);
        ck_assert_msg(js_valid(out.data, out.len), "threaded-n4 %s --json is not JSON",
                      which ? "threads" : "gc");
    }
    /* --sort pause: the same rows, longest pause first. */
    strbuf_reset(&out);
    o = (reports_opts){ .json = true, .sort_by_pause = true, .limit = 3 };
    reports_gc(&out, c.ix, &o);
    ck_assert(js_valid(out.data, out.len));
    uint64_t longest = 0;
    for (size_t i = 0; i < evindex_n_gcs(c.ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(c.ix, i, &g_buf);
        longest = ei_max(longest, g->end_ns - g->start_ns);
    }
    char key[64];
    snprintf(key, sizeof key, "\"pause_ns\":%llu,", (unsigned long long)longest);
    ck_assert_ptr_nonnull(strstr(out.data, key));
    ck_assert_ptr_eq(strstr(out.data, key), strstr(out.data, "\"pause_ns\""));
    strbuf_free(&out);
    ei_close(&c);

    ei_open_fixture(&c, "markers.eventlog");
    strbuf_init(&out);
    o = (reports_opts){ 0 };
    reports_markers(&out, c.ix, &o);
    ei_golden(&out, "markers.markers.tsv");
    strbuf_reset(&out);
    o = (reports_opts){ .json = true, .messages = true };
    reports_markers(&out, c.ix, &o);
    ei_golden(&out, "markers.messages.json");
    ck_assert(js_valid(out.data, out.len));
    strbuf_reset(&out);
    o = (reports_opts){ .json = true };
    reports_markers(&out, c.ix, &o);
    ck_assert(js_valid(out.data, out.len));
    strbuf_reset(&out);
    reports_threads(&out, c.ix, &o);
    ck_assert(js_valid(out.data, out.len));
    strbuf_free(&out);
    ei_close(&c);
}
END_TEST

/* Log text that needs escaping still gives valid JSON, and safe TSV cells. */
START_TEST(test_evindex_json_escaping)
{
    ei_mem m;
    evwrite *w = ei_writer(&m);
    static const char nasty[] = "q\"b\\s/\x01\x1f\x7f\tt\nn\rr \xff\xc3 \xed\xa0\x80 \xe2\x82";
    EW(evwrite_text(w, 0, EV_USER_MARKER, 10, nasty, sizeof nasty - 1));
    EW(evwrite_text(w, 0, EV_USER_MSG, 20, "", 0));
    EW(evwrite_thread_label(w, 0, 30, 5, "lab\"el\x02"));
    EW(evwrite_run_thread(w, 0, 40, 5));
    EW(evwrite_stop_thread(w, 0, 50, 5, 99, 0));
    static const uint8_t bin[] = { 0x22, 0x5c, 0x00 };
    EW(evwrite_event(w, 0, EV_USER_BINARY_MSG, 60, bin, sizeof bin));
    ei_finish(&m, w, false, 0);
    ei_case c;
    ei_open_mem(&c, &m);
    strbuf out;
    strbuf_init(&out);
    for (int k = 0; k < 4; k++) {
        reports_opts o = { .json = true, .messages = k == 1 };
        strbuf_reset(&out);
        if (k < 2)
            reports_markers(&out, c.ix, &o);
        else if (k == 2)
            reports_threads(&out, c.ix, &o);
        else
            reports_gc(&out, c.ix, &o);
        ck_assert_msg(js_valid(out.data, out.len), "case %d: not JSON:\n%s", k, out.data);
    }
    reports_opts o = { 0 };
    strbuf_reset(&out);
    reports_markers(&out, c.ix, &o);
    /* Escapes for controls; U+FFFD for each invalid byte (a lone lead, a surrogate's
     * three bytes, a cut-short sequence's two). */
#define FFFD "\xef\xbf\xbd"
    ck_assert_str_eq(out.data, "time_ns\tcap\tname\n"
                               "10\t0\tq\"b\\\\s/\\x01\\x1f\\x7f\\tt\\nn\\rr "
                               FFFD FFFD " " FFFD FFFD FFFD " " FFFD FFFD "\n");
#undef FFFD
    strbuf_free(&out);
    ei_close(&c);
}
END_TEST

Suite *
test_evindex_suite(void)
{
    Suite *s = suite_create("evindex");
    TCase *tc = tcase_create("hand-built");
    tcase_add_test(tc, test_evindex_parallel_gc);
    tcase_add_test(tc, test_evindex_nonthreaded_gc);
    tcase_add_test(tc, test_evindex_long_gc_spans);
    tcase_add_test(tc, test_evindex_gc_untiled);
    tcase_add_test(tc, test_evindex_stats_fields);
    tcase_add_test(tc, test_evindex_truncated);
    tcase_add_test(tc, test_evindex_messages);
    tcase_add_test(tc, test_evindex_thread_labels);
    tcase_add_test(tc, test_evindex_msg_text_is_decoded_field);
    tcase_add_test(tc, test_evindex_threadstats_many);
    tcase_add_test(tc, test_evindex_threadstats_tie);
    tcase_add_test(tc, test_evindex_nonmoving);
    tcase_add_test(tc, test_evindex_sparks_and_series);
    tcase_add_test(tc, test_evindex_series_out_of_order);
    suite_add_tcase(s, tc);
    tc = tcase_create("real logs");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_evindex_fixtures_cross);
    tcase_add_test(tc, test_evindex_killed_open_runs);
    tcase_add_test(tc, test_evindex_corpus_cross);
    suite_add_tcase(s, tc);
    tc = tcase_create("property");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_evindex_property);
    suite_add_tcase(s, tc);
    tc = tcase_create("tables");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_evindex_threadstats_brief_mixed);
    tcase_add_test(tc, test_evindex_json_checker);
    tcase_add_test(tc, test_evindex_golden_tables);
    tcase_add_test(tc, test_evindex_threads_pieces);
    tcase_add_test(tc, test_evindex_tables_flushed);
    tcase_add_test(tc, test_evindex_heap_profile);
    tcase_add_test(tc, test_evindex_json_escaping);
    suite_add_tcase(s, tc);
    return s;
}
