/* tests/test_evseek: time-range queries by file position against a brute-force scan
 * (every event, filtered, stably sorted by time), on synthetic logs with several caps,
 * small and large blocks, disorder, events outside blocks, no blocks and truncation;
 * plus the max/more contract, stride skipping, tie order equal to merge, and memory;
 * and the iterator's runs (evlog_iter_next_run, evseek_note_run) against its events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evlog.h"
#include "evseek.h"
#include "evwrite.h"
#include "merge.h"
#include "tests.h"
#include "xalloc.h"

static uint64_t
es_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- synthetic logs ---------------------------------------------------------------- */

typedef struct es_opts {
    uint64_t seed;
    int n_caps;
    size_t n_events;
    size_t block_bytes;         /* 0: the writer's default */
    bool blocks;
    bool outside;               /* some events between blocks (cap EVLOG_NO_CAP) */
    uint64_t disorder_ns;       /* some events stamped up to this much early */
    bool wild;                  /* a few events stamped far in the past */
    bool truncate;              /* end with evwrite_finish_truncated */
} es_opts;

/* The log bytes; caller frees with free() (open_memstream's buffer). */
static uint8_t *
es_build(const es_opts *o, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    evwrite *w = evwrite_new(f);
    ck_assert_int_eq(evwrite_set_blocks(w, o->blocks), EVWRITE_OK);
    if (o->block_bytes)
        ck_assert_int_eq(evwrite_set_block_bytes(w, o->block_bytes), EVWRITE_OK);
    ck_assert_int_eq(evwrite_declare_ghc(w), EVWRITE_OK);
    ck_assert_int_eq(evwrite_begin_data(w), EVWRITE_OK);
    uint64_t s = o->seed * 0x9e3779b97f4a7c15u + 7;
    uint64_t clock[16];
    for (int c = 0; c < 16; c++)
        clock[c] = 1000 + es_rng(&s) % 100;
    static const char text[] = "the quick brown fox jumps over the lazy dog";
    for (size_t i = 0; i < o->n_events; i++) {
        uint16_t cap = (uint16_t)(es_rng(&s) % (uint64_t)o->n_caps);
        clock[cap] += es_rng(&s) % 5;           /* zero steps make equal times */
        uint64_t t = clock[cap];
        if (o->disorder_ns && es_rng(&s) % 6 == 0)
            t -= es_rng(&s) % (o->disorder_ns + 1);
        if (o->wild && es_rng(&s) % 1500 == 0)
            t = es_rng(&s) % t;
        uint32_t tid = 1 + (uint32_t)(es_rng(&s) % 50);
        int r;
        switch (es_rng(&s) % 10) {
        case 0: case 1: case 2:
            r = evwrite_run_thread(w, cap, t, tid);
            break;
        case 3: case 4:
            r = evwrite_stop_thread(w, cap, t, tid, 3, 0);
            break;
        case 5:
            r = evwrite_text(w, cap, EV_USER_MSG, t, text, es_rng(&s) % sizeof text);
            break;
        case 6:
            r = evwrite_empty(w, cap, EV_GC_START, t);
            break;
        case 7:
            r = o->outside ? evwrite_event_outside(w, EV_GC_END, t, NULL, 0)
                           : evwrite_empty(w, cap, EV_GC_END, t);
            break;
        default:
            r = evwrite_heap_bytes(w, cap, EV_HEAP_ALLOCATED, t, 0, i * 1000);
            break;
        }
        /* Plain checks in hot loops: every ck_assert call costs Check a write(2). */
        if (r != EVWRITE_OK)
            ck_abort_msg("event %zu: %s", i, evwrite_strerror(r));
    }
    if (o->truncate)
        ck_assert_int_eq(evwrite_finish_truncated(w, (size_t)(es_rng(&s) % 12)), EVWRITE_OK);
    else
        ck_assert_int_eq(evwrite_finish(w), EVWRITE_OK);
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(f), 0);
    *len = n;
    return (uint8_t *)buf;
}

/* ---- the reference: every event, stably sorted by time ----------------------------- */

typedef struct es_ref {
    uint64_t time, offset, end;
    uint16_t cap;
} es_ref;

static int
es_ref_cmp(const void *a, const void *b)
{
    const es_ref *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* An opened log, its recorder and the reference. */
typedef struct es_case {
    evlog *log;
    evseek *seek;
    es_ref *ref;                /* owned; sorted by (time, offset) */
    size_t n_ref;
    size_t n_stretches;         /* counted independently of evseek */
    uint64_t max_time;
    enum evlog_iter_state ending;
} es_case;

static void
es_open(es_case *c, const uint8_t *data, size_t len)
{
    memset(c, 0, sizeof *c);
    diag d;
    c->log = evlog_open_bytes(data, len, &d);
    ck_assert_ptr_nonnull(c->log);
    c->seek = evseek_new();
    size_t cap = 1024;
    c->ref = xreallocarray(NULL, cap, sizeof *c->ref);
    evlog_iter it;
    evlog_iter_init(&it, c->log);
    evlog_event ev;
    uint16_t prev_cap = 0;
    while (evlog_iter_next(&it, &ev)) {
        evseek_note(c->seek, &it, &ev);
        if (c->n_ref == 0 || ev.type == EV_BLOCK_MARKER || ev.cap != prev_cap)
            c->n_stretches++;
        prev_cap = ev.cap;
        if (c->n_ref == cap) {
            cap *= 2;
            c->ref = xreallocarray(c->ref, cap, sizeof *c->ref);
        }
        c->ref[c->n_ref++] = (es_ref){ ev.time_ns, ev.offset, ev.offset + ev.size, ev.cap };
        if (ev.time_ns > c->max_time)
            c->max_time = ev.time_ns;
    }
    c->ending = it.state;
    evseek_seal(c->seek);
    qsort(c->ref, c->n_ref, sizeof *c->ref, es_ref_cmp);
    char why[200];
    ck_assert_msg(evseek_check(c->seek, why, sizeof why), "evseek_check: %s", why);
    ck_assert_uint_eq(evseek_n_stretches(c->seek), c->n_stretches);
}

static void
es_close(es_case *c)
{
    evseek_free(c->seek);
    evlog_close(c->log);
    x_free(c->ref);
}

/* Query [t0, t1) with room for `max` hits against the reference events that lie
 * wholly below `cut` (the queried log may be a prefix of the recorded one). */
static void
es_query_cut(const es_case *c, const evlog *log, uint64_t t0, uint64_t t1, size_t max,
             uint64_t cut)
{
    size_t n_want = 0;
    es_ref *want = xreallocarray(NULL, c->n_ref + 1, sizeof *want);    /* freed below */
    for (size_t i = 0; i < c->n_ref; i++)
        if (c->ref[i].time >= t0 && c->ref[i].time < t1 && c->ref[i].end <= cut)
            want[n_want++] = c->ref[i];
    evseek_hit *got = xreallocarray(NULL, max + 1, sizeof *got);       /* freed below */
    got[max].offset = 0xdeadbeef;               /* must stay untouched */
    bool more = !(n_want > max);
    size_t n = evseek_range(c->seek, log, t0, t1, got, max, &more);
    size_t n_exp = n_want < max ? n_want : max;
    ck_assert_msg(n == n_exp, "[%llu, %llu) max %zu: %zu hits, want %zu",
                  (unsigned long long)t0, (unsigned long long)t1, max, n, n_exp);
    ck_assert_int_eq(more, n_want > max);
    ck_assert_uint_eq(got[max].offset, 0xdeadbeef);
    /* All or none: the same hits when they fit, else only `more`. */
    more = !(n_want > max);
    size_t n_all = evseek_range_all(c->seek, log, t0, t1, got, max, &more);
    ck_assert_int_eq(more, n_want > max);
    if (!more && n_all != n_want)
        ck_abort_msg("[%llu, %llu) max %zu: all %zu hits, want %zu", (unsigned long long)t0,
                     (unsigned long long)t1, max, n_all, n_want);
    for (size_t i = 0; !more && i < n_all; i++)
        if (got[i].time_ns != want[i].time || got[i].offset != want[i].offset ||
            got[i].cap != want[i].cap)
            ck_abort_msg("[%llu, %llu) all hit %zu differs", (unsigned long long)t0,
                         (unsigned long long)t1, i);
    ck_assert_uint_eq(got[max].offset, 0xdeadbeef);
    n = evseek_range(c->seek, log, t0, t1, got, max, &more);
    if (cut == UINT64_MAX && evseek_more_than(c->seek, t0, t1, max))
        ck_assert_msg(n_want > max, "[%llu, %llu) max %zu: more_than, but %zu events",
                      (unsigned long long)t0, (unsigned long long)t1, max, n_want);
    for (size_t i = 0; i < n; i++)
        if (got[i].time_ns != want[i].time || got[i].offset != want[i].offset ||
            got[i].cap != want[i].cap)
            ck_abort_msg("[%llu, %llu) hit %zu: time %llu offset %llu cap %u, want time %llu "
                         "offset %llu cap %u",
                         (unsigned long long)t0, (unsigned long long)t1, i,
                         (unsigned long long)got[i].time_ns, (unsigned long long)got[i].offset,
                         got[i].cap, (unsigned long long)want[i].time,
                         (unsigned long long)want[i].offset, want[i].cap);
    if (cut == UINT64_MAX && n_want > 0) {
        /* One cap's events: the whole answer's, in the same order, less the others'. */
        uint16_t cap = want[n_want / 2].cap;
        size_t n_cap = 0, k = 0;
        for (size_t i = 0; i < n_want; i++)
            n_cap += want[i].cap == cap;
        size_t room = n_cap > max ? max : n_cap;
        more = !(n_cap > room);
        ck_assert_uint_eq(evseek_range_cap(c->seek, log, cap, t0, t1, got, room, &more), room);
        ck_assert_int_eq(more, n_cap > room);
        for (size_t i = 0; i < n_want && k < room; i++) {
            if (want[i].cap != cap)
                continue;
            ck_assert_msg(got[k].offset == want[i].offset && got[k].cap == cap,
                          "[%llu, %llu) cap %u hit %zu differs", (unsigned long long)t0,
                          (unsigned long long)t1, cap, k);
            k++;
        }
        ck_assert_uint_eq(k, room);
    }
    x_free(got);
    x_free(want);
}

static void
es_query(const es_case *c, uint64_t t0, uint64_t t1, size_t max)
{
    es_query_cut(c, c->log, t0, t1, max, UINT64_MAX);
}

/* Random ranges of every width, each with room for all hits and with a few smaller
 * limits. */
static void
es_random_queries(const es_case *c, uint64_t seed, int n_queries)
{
    uint64_t s = seed * 6364136223846793005u + 1442695040888963407u;
    uint64_t span = c->max_time + 20;
    es_query(c, 0, UINT64_MAX, c->n_ref);
    es_query(c, 0, UINT64_MAX, c->n_ref / 2);
    /* Every stretch lies in the whole range: its counts answer without a scan. */
    ck_assert(evseek_more_than(c->seek, 0, UINT64_MAX, c->n_ref / 2));
    ck_assert(!evseek_more_than(c->seek, 0, UINT64_MAX, c->n_ref));
    for (int q = 0; q < n_queries; q++) {
        uint64_t t0 = es_rng(&s) % span;
        uint64_t width;
        switch (es_rng(&s) % 5) {
        case 0: width = es_rng(&s) % 3; break;
        case 1: width = es_rng(&s) % 50; break;
        case 2: width = es_rng(&s) % 2000; break;
        case 3: width = es_rng(&s) % (span / 8 + 1); break;
        default: width = es_rng(&s) % span; break;
        }
        uint64_t t1 = t0 + width;
        es_query(c, t0, t1, c->n_ref);
        if (q % 4 == 0) {
            es_query(c, t0, t1, 0);
            es_query(c, t0, t1, 1);
            es_query(c, t0, t1, 1 + es_rng(&s) % 40);
        }
    }
    es_query(c, 500, 400, 10);                  /* t0 > t1 */
    es_query(c, 1500, 1500, 10);                /* empty range */
}

static void
es_run(const es_opts *o, int n_queries)
{
    size_t len;
    uint8_t *data = es_build(o, &len);
    es_case c;
    es_open(&c, data, len);
    ck_assert_int_eq(c.ending, o->truncate ? EVLOG_ITER_TRUNCATED : EVLOG_ITER_END);
    es_random_queries(&c, o->seed, n_queries);
    es_close(&c);
    free(data);
}

/* ---- tests -------------------------------------------------------------------------- */

START_TEST(test_evseek_small_blocks_many_caps)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        es_opts o = {
            .seed = seed, .n_caps = 1 + (int)(seed % 6), .n_events = 800 + 300 * seed,
            .block_bytes = 64u << (seed % 4), .blocks = true, .outside = seed % 3 == 0,
            .disorder_ns = seed % 2 ? 30 : 0, .wild = seed % 4 == 1,
        };
        es_run(&o, 60);
    }
}
END_TEST

START_TEST(test_evseek_strides)
{
    /* Big blocks so stretches span several strides; disorder and wild stamps make the
     * prefix-max / suffix-min skipping carry the load. */
    for (uint64_t seed = 20; seed < 26; seed++) {
        es_opts o = {
            .seed = seed, .n_caps = 1 + (int)(seed % 3), .n_events = 9000,
            .block_bytes = seed % 2 ? 65536 : 40000, .blocks = true,
            .outside = seed == 22, .disorder_ns = seed % 3 ? 40 : 0, .wild = seed >= 23,
        };
        es_run(&o, 120);
    }
}
END_TEST

START_TEST(test_evseek_no_blocks)
{
    /* One stretch; lengths around multiples of the stride. */
    static const size_t lens[] = { 1, 2, 1023, 1024, 1025, 2048, 3073, 5000 };
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        es_opts o = { .seed = 40 + i, .n_caps = 3, .n_events = lens[i], .blocks = false,
                      .disorder_ns = i % 2 ? 25 : 0, .wild = i == 7 };
        size_t len;
        uint8_t *data = es_build(&o, &len);
        es_case c;
        es_open(&c, data, len);
        ck_assert_uint_eq(evseek_n_stretches(c.seek), 1);
        es_random_queries(&c, o.seed, 60);
        es_close(&c);
        free(data);
    }
}
END_TEST

START_TEST(test_evseek_truncated)
{
    for (uint64_t seed = 50; seed < 58; seed++) {
        es_opts o = {
            .seed = seed, .n_caps = 1 + (int)(seed % 4), .n_events = 1500 + 700 * (seed % 5),
            .block_bytes = seed % 2 ? 256 : 65536, .blocks = seed != 55,
            .outside = seed % 3 == 0, .disorder_ns = 20, .truncate = true,
        };
        es_run(&o, 40);
    }
}
END_TEST

START_TEST(test_evseek_log_shorter_than_recorded)
{
    /* Recorded on the whole log, queried on prefixes of it: each stretch stops where
     * the data does, and everything wholly before the cut is still found. */
    es_opts o = { .seed = 60, .n_caps = 3, .n_events = 6000, .block_bytes = 30000,
                  .blocks = true, .outside = true, .disorder_ns = 15 };
    size_t len;
    uint8_t *data = es_build(&o, &len);
    es_case c;
    es_open(&c, data, len);
    uint64_t s = 99, start = evlog_data_start(c.log);
    for (int k = 0; k < 25; k++) {
        size_t cut = (size_t)(start + es_rng(&s) % (len - start));
        diag d;
        evlog *shortlog = evlog_open_bytes(data, cut, &d);
        ck_assert_ptr_nonnull(shortlog);
        es_query_cut(&c, shortlog, 0, UINT64_MAX, c.n_ref, cut);
        uint64_t t0 = es_rng(&s) % (c.max_time + 1);
        es_query_cut(&c, shortlog, t0, t0 + 3000, c.n_ref, cut);
        evlog_close(shortlog);
    }
    es_close(&c);
    free(data);
}
END_TEST

START_TEST(test_evseek_more_and_max)
{
    es_opts o = { .seed = 70, .n_caps = 4, .n_events = 3000, .block_bytes = 512,
                  .blocks = true, .disorder_ns = 10 };
    size_t len;
    uint8_t *data = es_build(&o, &len);
    es_case c;
    es_open(&c, data, len);
    size_t n = c.n_ref;
    static const size_t maxes[] = { 0, 1, 2, 17, 1000 };
    for (size_t i = 0; i < sizeof maxes / sizeof maxes[0]; i++)
        es_query(&c, 0, UINT64_MAX, maxes[i]);
    es_query(&c, 0, UINT64_MAX, n - 1);
    es_query(&c, 0, UINT64_MAX, n);
    es_query(&c, 0, UINT64_MAX, n + 1);
    /* A range with exactly one event: max 0 says "more", max 1 does not. */
    const es_ref *lone = NULL;
    for (size_t i = 1; i + 1 < n && !lone; i++)
        if (c.ref[i - 1].time < c.ref[i].time && c.ref[i].time < c.ref[i + 1].time)
            lone = &c.ref[i];
    ck_assert_ptr_nonnull(lone);
    evseek_hit h;
    bool more = false;
    ck_assert_uint_eq(evseek_range(c.seek, c.log, lone->time, lone->time + 1, &h, 0, &more), 0);
    ck_assert(more);
    ck_assert_uint_eq(evseek_range(c.seek, c.log, lone->time, lone->time + 1, &h, 1, &more), 1);
    ck_assert(!more);
    ck_assert_uint_eq(h.offset, lone->offset);
    /* `more` may be NULL. */
    ck_assert_uint_eq(evseek_range(c.seek, c.log, 0, UINT64_MAX, &h, 1, NULL), 1);
    ck_assert_uint_eq(h.offset, c.ref[0].offset);
    es_close(&c);
    free(data);
}
END_TEST

/* A range that holds whole strides of a stretch, but no whole stretch, is known to be
 * crowded from the checkpoints alone (no log read), and never more than it holds. */
START_TEST(test_evseek_more_than_strides)
{
    es_opts o = { .seed = 80, .n_caps = 1, .n_events = 12000, .block_bytes = 1 << 20,
                  .blocks = true };
    size_t len;
    uint8_t *data = es_build(&o, &len);
    es_case c;
    es_open(&c, data, len);
    ck_assert_uint_eq(c.n_stretches, 1);        /* one block: one stretch */
    size_t i0 = c.n_ref / 2 - 700, i1 = c.n_ref / 2 + 700;
    uint64_t t0 = c.ref[i0].time, t1 = c.ref[i1].time;
    size_t inside = 0;
    for (size_t i = 0; i < c.n_ref; i++)
        inside += c.ref[i].time >= t0 && c.ref[i].time < t1;
    ck_assert_uint_ge(inside, 2 * EVSEEK_STRIDE);
    /* At least one whole stride lies in a range of two strides' worth of events. */
    ck_assert(evseek_more_than(c.seek, t0, t1, EVSEEK_STRIDE / 2));
    ck_assert(!evseek_more_than(c.seek, t0, t1, inside));
    ck_assert(!evseek_more_than(c.seek, t0, t0 + 1, 1));
    for (size_t max = 0; max < inside; max += 97)
        if (evseek_more_than(c.seek, t0, t1, max))
            ck_assert_uint_gt(inside, max);
    es_close(&c);
    free(data);
}
END_TEST

START_TEST(test_evseek_ties_follow_merge)
{
    /* Many equal timestamps across caps: the whole-range answer is merge's stream. */
    es_opts o = { .seed = 80, .n_caps = 5, .n_events = 4000, .block_bytes = 200,
                  .blocks = true, .outside = true, .disorder_ns = 3 };
    size_t len;
    uint8_t *data = es_build(&o, &len);
    es_case c;
    es_open(&c, data, len);
    evseek_hit *got = xreallocarray(NULL, c.n_ref, sizeof *got);      /* freed below */
    bool more = true;
    ck_assert_uint_eq(evseek_range(c.seek, c.log, 0, UINT64_MAX, got, c.n_ref, &more),
                      c.n_ref);
    ck_assert(!more);
    diag ending;
    merge *m = merge_new(c.log, &ending);
    evlog_event ev;
    size_t i = 0, ties = 0;
    while (merge_next(m, &ev)) {
        if (i >= c.n_ref || got[i].offset != ev.offset || got[i].cap != ev.cap)
            ck_abort_msg("merge event %zu (offset %llu) differs from the query", i,
                         (unsigned long long)ev.offset);
        if (i > 0 && got[i].time_ns == got[i - 1].time_ns && got[i].cap != got[i - 1].cap)
            ties++;
        i++;
    }
    ck_assert_uint_eq(i, c.n_ref);
    ck_assert_uint_gt(ties, 100);               /* the test does exercise ties */
    merge_free(m);
    x_free(got);
    es_close(&c);
    free(data);
}
END_TEST

/* Store a big-endian timestamp into the event at `offset` of a log copy. */
static void
es_poke_time(uint8_t *data, uint64_t offset, uint64_t t)
{
    for (int b = 0; b < 8; b++)
        data[offset + 2 + (uint64_t)b] = (uint8_t)(t >> (56 - 8 * b));
}

START_TEST(test_evseek_reads_only_needed_strides)
{
    /* One sorted stretch, times 10 * i. After recording, every event outside the stride
     * that holds the range is re-stamped into the range in a copy of the bytes: a query
     * that read any of them would return extra hits. */
    enum { N = 6000 };
    size_t len;
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    evwrite *w = evwrite_new(f);
    ck_assert_int_eq(evwrite_set_blocks(w, false), EVWRITE_OK);
    ck_assert_int_eq(evwrite_declare_ghc(w), EVWRITE_OK);
    ck_assert_int_eq(evwrite_begin_data(w), EVWRITE_OK);
    int r = EVWRITE_OK;
    for (uint64_t i = 0; i < N && r == EVWRITE_OK; i++)
        r = evwrite_run_thread(w, 0, 10 * i, 1);
    ck_assert_int_eq(r, EVWRITE_OK);
    ck_assert_int_eq(evwrite_finish(w), EVWRITE_OK);
    evwrite_destroy(w);
    fclose(f);
    len = n;
    uint8_t *data = (uint8_t *)buf;

    es_case c;
    es_open(&c, data, len);
    ck_assert_uint_eq(c.n_ref, N);
    uint8_t *poked = xmalloc(len);              /* freed below */
    memcpy(poked, data, len);
    /* Events 2048..3071 form the third stride; the range lies inside it. */
    uint64_t t0 = 10 * 3000, t1 = 10 * 3010;
    for (size_t i = 0; i < c.n_ref; i++) {
        uint64_t idx = c.ref[i].time / 10;      /* ref is in time = file order */
        if (idx < 2048 || idx >= 3072)
            es_poke_time(poked, c.ref[i].offset, t0);
    }
    diag d;
    evlog *plog = evlog_open_bytes(poked, len, &d);
    ck_assert_ptr_nonnull(plog);
    evseek_hit hits[64];
    bool more = true;
    size_t got = evseek_range(c.seek, plog, t0, t1, hits, 64, &more);
    ck_assert_uint_eq(got, 10);
    ck_assert(!more);
    for (size_t i = 0; i < got; i++)
        ck_assert_uint_eq(hits[i].time_ns, t0 + 10 * i);
    /* The same on the untouched log gives the same answer. */
    es_query(&c, t0, t1, 64);
    evlog_close(plog);
    x_free(poked);
    es_close(&c);
    free(data);
}
END_TEST

START_TEST(test_evseek_hand_built_stretches)
{
    /* A cap 0 block of two events, one event past the block's end (no cap), then a
     * cap 1 block: three stretches, each block marker opening its block's. */
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_standard_header(&t);
    tlog_header_end(&t);
    tlog_block(&t, 100, 2 * 14, 120, 0);
    tlog_event(&t, EV_RUN_THREAD, 100);
    tlog_u32(&t, 1);
    tlog_event(&t, EV_RUN_THREAD, 120);
    tlog_u32(&t, 1);
    tlog_event(&t, EV_RUN_THREAD, 90);          /* outside, earlier than the block */
    tlog_u32(&t, 2);
    tlog_block(&t, 110, 14, 110, 1);
    tlog_event(&t, EV_RUN_THREAD, 110);
    tlog_u32(&t, 3);
    tlog_end(&t);
    es_case c;
    es_open(&c, (const uint8_t *)t.b.data, t.b.len);
    ck_assert_uint_eq(evseek_n_stretches(c.seek), 3);
    evseek_hit h[8];
    bool more;
    size_t n = evseek_range(c.seek, c.log, 90, 121, h, 8, &more);
    ck_assert_uint_eq(n, 6);
    static const struct { uint64_t time; uint16_t cap; } want[] = {
        { 90, EVLOG_NO_CAP }, { 100, 0 }, { 100, 0 }, { 110, 1 }, { 110, 1 }, { 120, 0 },
    };
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(h[i].time_ns, want[i].time);
        ck_assert_uint_eq(h[i].cap, want[i].cap);
    }
    ck_assert_uint_lt(h[1].offset, h[2].offset);    /* marker before its first event */
    es_random_queries(&c, 5, 50);
    es_close(&c);
    tlog_free(&t);

    /* No events at all. */
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_standard_header(&t);
    tlog_header_end(&t);
    tlog_end(&t);
    es_open(&c, (const uint8_t *)t.b.data, t.b.len);
    ck_assert_uint_eq(evseek_n_stretches(c.seek), 0);
    more = true;
    ck_assert_uint_eq(evseek_range(c.seek, c.log, 0, UINT64_MAX, h, 8, &more), 0);
    ck_assert(!more);
    es_close(&c);
    tlog_free(&t);
}
END_TEST

/* Walk `data` with evlog_iter_next_run (runs of at most 1 .. 300 events, stopping at
 * arbitrary end positions on the way, as the index's walk does per segment) and check
 * it against evlog_iter_next: the same events, the iterator's state after each as
 * evlog_iter_mark_in_run gives it, every run one capability with a block marker only
 * first, the same ending; likewise evlog_iter_next_stamps; and that evseek_note_run
 * records what evseek_note did. */
static void
es_check_runs(const uint8_t *data, size_t len, uint64_t seed)
{
    es_case c;
    es_open(&c, data, len);
    size_t n_ref = 0, cap_ref = 1024;
    evlog_event *ref = xreallocarray(NULL, cap_ref, sizeof *ref);          /* freed below */
    evlog_iter_mark *after = xreallocarray(NULL, cap_ref, sizeof *after);  /* freed below */
    evlog_iter it;
    evlog_iter_init(&it, c.log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (n_ref == cap_ref) {
            cap_ref *= 2;
            ref = xreallocarray(ref, cap_ref, sizeof *ref);
            after = xreallocarray(after, cap_ref, sizeof *after);
        }
        ref[n_ref] = ev;
        evlog_iter_save(&it, &after[n_ref++]);
    }
    enum evlog_iter_state ending = it.state;
    uint64_t end_pos = it.pos;

    evseek *seek = evseek_new();
    evlog_event run[300];
    uint64_t s = seed * 0x9e3779b97f4a7c15u + 3, stop = 0;
    size_t i = 0;
    evlog_iter_init(&it, c.log);
    for (;;) {
        if (it.pos >= stop)
            stop = it.pos + 1 + es_rng(&s) % 3000;
        size_t n = evlog_iter_next_run(&it, run, 1 + es_rng(&s) % 300, stop);
        if (n == 0 && it.state == EVLOG_ITER_OK && it.pos >= stop)
            continue;
        if (n == 0)
            break;
        uint64_t run_min = UINT64_MAX, run_max = 0;
        for (size_t k = 0; k < n; k++) {
            run_min = run[k].time_ns < run_min ? run[k].time_ns : run_min;
            run_max = run[k].time_ns > run_max ? run[k].time_ns : run_max;
        }
        evseek_note_run(seek, &it, run, n, run_min, run_max);
        for (size_t k = 0; k < n; k++, i++) {
            ck_assert_uint_lt(i, n_ref);
            ck_assert_uint_lt(run[k].offset, stop);
            if (run[k].offset != ref[i].offset || run[k].time_ns != ref[i].time_ns ||
                run[k].type != ref[i].type || run[k].cap != ref[i].cap ||
                run[k].size != ref[i].size || run[k].payload_len != ref[i].payload_len ||
                run[k].payload != ref[i].payload || run[k].et != ref[i].et)
                ck_abort_msg("event %zu (offset %llu) differs", i,
                             (unsigned long long)ref[i].offset);
            if (k > 0 && (run[k].cap != run[0].cap || run[k].type == EV_BLOCK_MARKER))
                ck_abort_msg("event %zu: a run's event %zu changes the block", i, k);
            evlog_iter_mark m;
            evlog_iter_mark_in_run(&it, run, n, k, &m);
            if (m.pos != after[i].pos || m.block_end != after[i].block_end ||
                m.block_cap != after[i].block_cap || m.block_active != after[i].block_active ||
                m.first_in_block != after[i].first_in_block)
                ck_abort_msg("event %zu (offset %llu): the iterator after it differs", i,
                             (unsigned long long)ref[i].offset);
        }
    }
    ck_assert_uint_eq(i, n_ref);
    ck_assert_int_eq(it.state, ending);
    ck_assert_uint_eq(it.pos, end_pos);

    /* evlog_iter_next_stamps: the same events' offsets, times and capabilities, the
     * iterator after each run where evlog_iter_next leaves it, the same ending. */
    evlog_stamp st[300];
    s = seed * 0x9e3779b97f4a7c15u + 5;
    stop = 0;
    i = 0;
    evlog_iter_init(&it, c.log);
    for (;;) {
        if (it.pos >= stop)
            stop = it.pos + 1 + es_rng(&s) % 3000;
        uint16_t cap = 0;
        size_t n = evlog_iter_next_stamps(&it, st, 1 + es_rng(&s) % 300, stop, &cap);
        if (n == 0 && it.state == EVLOG_ITER_OK && it.pos >= stop)
            continue;
        if (n == 0)
            break;
        for (size_t k = 0; k < n; k++, i++) {
            ck_assert_uint_lt(i, n_ref);
            ck_assert_uint_lt(st[k].offset, stop);
            if (st[k].offset != ref[i].offset || st[k].time_ns != ref[i].time_ns ||
                cap != ref[i].cap)
                ck_abort_msg("stamp %zu (offset %llu) differs", i,
                             (unsigned long long)ref[i].offset);
        }
        if (it.pos != after[i - 1].pos || it.block_end != after[i - 1].block_end ||
            it.block_cap != after[i - 1].block_cap ||
            it.block_active != after[i - 1].block_active ||
            it.first_in_block != after[i - 1].first_in_block)
            ck_abort_msg("stamps: the iterator after event %zu differs", i - 1);
    }
    ck_assert_uint_eq(i, n_ref);
    ck_assert_int_eq(it.state, ending);
    ck_assert_uint_eq(it.pos, end_pos);

    evseek_seal(seek);
    char why[200];
    ck_assert_msg(evseek_check(seek, why, sizeof why), "evseek_check: %s", why);
    ck_assert_uint_eq(evseek_n_stretches(seek), evseek_n_stretches(c.seek));
    ck_assert_uint_eq(evseek_bytes(seek), evseek_bytes(c.seek));
    ck_assert_msg(evseek_equal(seek, c.seek), "the seek tables differ");
    evseek *by_event = c.seek;
    c.seek = seek;              /* the queries against the reference, answered by runs */
    es_random_queries(&c, seed, 12);
    c.seek = by_event;
    evseek_free(seek);
    x_free(after);
    x_free(ref);
    es_close(&c);
}

START_TEST(test_evseek_runs_equal_events)
{
    /* Small blocks (a cut-off end, events outside blocks), no blocks, big blocks (both
     * with stretches of several strides). */
    for (uint64_t seed = 1; seed <= 4; seed++) {
        es_opts o = {
            .seed = seed, .n_caps = 1 + (int)(seed % 4), .n_events = 600 + 300 * seed,
            .block_bytes = seed == 4 ? 0 : 64u << seed, .blocks = seed != 3,
            .outside = seed == 2, .disorder_ns = seed % 3 ? 30 : 0, .truncate = seed == 1,
        };
        size_t len;
        uint8_t *data = es_build(&o, &len);
        es_check_runs(data, len, seed);
        free(data);
    }
    /* A block claiming only its marker: the event after it is still the block's, the
     * next ones are not (no cap) until the next marker; and a marker at the very end. */
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_standard_header(&t);
    tlog_header_end(&t);
    tlog_block(&t, 100, 0, 100, 0);
    for (uint32_t k = 0; k < 700; k++) {
        tlog_event(&t, EV_RUN_THREAD, 100 + k);
        tlog_u32(&t, k);
    }
    tlog_block(&t, 900, 14, 900, 1);
    tlog_event(&t, EV_RUN_THREAD, 900);
    tlog_u32(&t, 1);
    tlog_event(&t, EV_RUN_THREAD, 901);
    tlog_u32(&t, 2);
    tlog_block(&t, 950, 0, 950, 2);
    tlog_end(&t);
    es_check_runs((const uint8_t *)t.b.data, t.b.len, 99);
    tlog_free(&t);
}
END_TEST

START_TEST(test_evseek_memory_is_small)
{
    /* A 4-cap log with the writer's default 64 KiB blocks. */
    es_opts o = { .seed = 100, .n_caps = 4, .n_events = 200000, .blocks = true,
                  .disorder_ns = 10 };
    size_t len;
    uint8_t *data = es_build(&o, &len);
    es_case c;
    es_open(&c, data, len);
    double per_mb = (double)evseek_bytes(c.seek) * (1024.0 * 1024.0) / (double)len;
    ck_assert_msg(per_mb < 6000, "%.0f bytes of evseek per MiB of log", per_mb);
    ck_assert_uint_gt(evseek_n_stretches(c.seek), 40);
    es_query(&c, c.max_time / 2, c.max_time / 2 + 5000, c.n_ref);
    es_close(&c);
    free(data);
}
END_TEST

Suite *
test_evseek_suite(void)
{
    Suite *s = suite_create("evseek");
    TCase *tc = tcase_create("evseek");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_evseek_small_blocks_many_caps);
    tcase_add_test(tc, test_evseek_strides);
    tcase_add_test(tc, test_evseek_no_blocks);
    tcase_add_test(tc, test_evseek_truncated);
    tcase_add_test(tc, test_evseek_log_shorter_than_recorded);
    tcase_add_test(tc, test_evseek_more_and_max);
    tcase_add_test(tc, test_evseek_more_than_strides);
    tcase_add_test(tc, test_evseek_ties_follow_merge);
    tcase_add_test(tc, test_evseek_reads_only_needed_strides);
    tcase_add_test(tc, test_evseek_hand_built_stretches);
    tcase_add_test(tc, test_evseek_memory_is_small);
    tcase_add_test(tc, test_evseek_runs_equal_events);
    suite_add_tcase(s, tc);
    return s;
}
