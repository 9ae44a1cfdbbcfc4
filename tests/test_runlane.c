/* tests/test_runlane: the bit-packed run lane — edge cases (empty, zero-length runs,
 * clipping, long runs and gaps, times near UINT64_MAX), every query against a
 * brute-force array on seeded random lanes of every chunk shape, packed and open (runs
 * one by one and a block at a time), the size of realistic lanes, and the checker
 * catching damage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runlane.h"
#include "tests.h"
#include "xalloc.h"

#define T32 ((uint64_t)UINT32_MAX)
/* A passing ck_assert records a checkpoint with the runner; loops that make millions
 * of comparisons test first and only then fail. */
#define RL_EXPECT(cond, ...)                                                              \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

static uint64_t
rl_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t
rl_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void
rl_assert_sound(const runlane *rl)
{
    char why[256] = "";
    ck_assert_msg(runlane_check(rl, why, sizeof why), "runlane_check: %s", why);
}

static bool
rl_add(runlane *rl, uint64_t start, uint64_t end, uint32_t tid, uint8_t stop, uint8_t flags)
{
    runlane_run r = { start, end, tid, stop, flags };
    return runlane_append(rl, &r);
}

/* ---- the brute-force model: a plain array of runs, the append rule written out ---- */

typedef struct rl_model {
    runlane_run *r;             /* owned */
    size_t n, cap;
} rl_model;

static bool
rl_model_append(rl_model *m, runlane_run run)
{
    run.flags &= RUNLANE_F_OPEN;
    if (m->n > 0 && run.start_ns < m->r[m->n - 1].end_ns) {
        run.start_ns = m->r[m->n - 1].end_ns;
        run.flags |= RUNLANE_F_CLIPPED;
    }
    if (run.end_ns < run.start_ns)
        return false;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->r = xreallocarray(m->r, m->cap, sizeof *m->r);
    }
    m->r[m->n++] = run;
    return true;
}

static uint64_t
bf_busy(const rl_model *m, uint64_t t0, uint64_t t1)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < m->n && t0 < t1; i++) {
        uint64_t s = m->r[i].start_ns > t0 ? m->r[i].start_ns : t0;
        uint64_t e = m->r[i].end_ns < t1 ? m->r[i].end_ns : t1;
        if (e > s)
            sum += e - s;
    }
    return sum;
}

static size_t
bf_count_in(const rl_model *m, uint64_t t0, uint64_t t1)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n && t0 < t1; i++) {
        uint64_t s = m->r[i].start_ns, e = m->r[i].end_ns;
        if (s == e ? (t0 <= s && s < t1) : (s < t1 && e > t0))
            k++;
    }
    return k;
}

static size_t
bf_first_after(const rl_model *m, uint64_t t)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].end_ns > t || (m->r[i].start_ns == m->r[i].end_ns && m->r[i].start_ns == t))
            return i;
    return m->n;
}

static size_t
bf_last_starting_by(const rl_model *m, uint64_t t)
{
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].start_ns <= t)
            k = i;
    return k;
}

/* A random lane: small and zero gaps, gaps beyond u32 range, overlaps and
 * out-of-order starts, zero, small, u32-edge and huge durations, inverted runs. */
static void
rl_random_lane(uint64_t seed, size_t n_in, runlane *rl, rl_model *m)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 7;
    static const uint64_t bases[] = { 0, 1000, UINT64_MAX - (UINT64_C(1) << 40),
                                      UINT64_MAX - 5000, T32 - 10 };
    uint64_t clock = bases[seed % 5] + rl_rng(&s) % 100;
    for (size_t k = 0; k < n_in; k++) {
        uint64_t r = rl_rng(&s) % 100, start;
        if (r < 40)
            start = rl_sat_add(clock, rl_rng(&s) % 1000);
        else if (r < 50)
            start = clock;
        else if (r < 60)
            start = rl_sat_add(clock, T32 - 2 + rl_rng(&s) % (UINT64_C(1) << 33));
        else if (r < 75)
            start = clock - (clock < 500 ? clock : rl_rng(&s) % 500);
        else if (r < 80)
            start = clock / 2;
        else
            start = rl_sat_add(clock, rl_rng(&s) % 100000);
        uint64_t d = rl_rng(&s) % 100, end;
        if (d < 15)
            end = start;
        else if (d < 80)
            end = rl_sat_add(start, 1 + rl_rng(&s) % 5000);
        else if (d < 88)
            end = rl_sat_add(start, T32 - 2 + rl_rng(&s) % 5);
        else if (d < 93)
            end = rl_sat_add(start, T32 + rl_rng(&s) % (UINT64_C(1) << 38));
        else
            end = start - (start < 100 ? start : 1 + rl_rng(&s) % 100);
        uint8_t stop = rl_rng(&s) % 20 == 0 ? (uint8_t)(60 + rl_rng(&s) % 196)
                                            : (uint8_t)(rl_rng(&s) % 20);
        runlane_run run = { start, end, (uint32_t)rl_rng(&s), stop, (uint8_t)(rl_rng(&s) % 4) };
        bool kept = runlane_append(rl, &run);
        RL_EXPECT(kept == rl_model_append(m, run), "seed %llu input %zu: kept %d",
                  (unsigned long long)seed, k, kept);
        if (kept)
            clock = m->r[m->n - 1].end_ns;
    }
}

/* Append exactly n runs (every input kept) with wide values: gaps and durations from
 * 0 up to near 2^62 (a lane of few runs spans close to 2^63); tids at both ends of
 * u32; stops up to 255; zero-length, clipped and open runs. */
static void
rl_wide_lane(uint64_t seed, size_t n, runlane *rl, rl_model *m)
{
    uint64_t s = seed * 0x2545F4914F6CDD1Du + 3;
    uint64_t clock = m->n ? m->r[m->n - 1].end_ns : rl_rng(&s) % 1000;
    /* Gap plus duration per run: the lane takes at most half the time left. */
    uint64_t room = (UINT64_MAX - clock) / 2 / (n ? n : 1);
    for (size_t k = 0; k < n; k++) {
        uint64_t r = rl_rng(&s) % 8, gap, dur;
        if (r == 0)
            gap = 0;
        else if (r < 3)
            gap = rl_rng(&s) % 100;
        else
            gap = r == 7 ? room / 2 : rl_rng(&s) % (room / 2 + 1);
        r = rl_rng(&s) % 8;
        dur = r == 0 ? 0 : r < 3 ? rl_rng(&s) % 1000 : r == 7 ? room / 2
                                                             : rl_rng(&s) % (room / 2 + 1);
        uint64_t start = clock + gap;
        uint64_t want_start = start;
        if (rl_rng(&s) % 10 == 0 && k > 0)      /* overlaps the previous run: clipped */
            want_start = start - (gap + 1 > start ? start : gap + 1);
        uint32_t tid;
        r = rl_rng(&s) % 4;
        tid = r == 0 ? 0 : r == 1 ? UINT32_MAX : r == 2 ? UINT32_MAX - (uint32_t)(rl_rng(&s) % 3)
                                                        : (uint32_t)rl_rng(&s);
        uint8_t stop = (uint8_t)(rl_rng(&s) % 3 == 0 ? 255 - rl_rng(&s) % 3 : rl_rng(&s));
        runlane_run run = { want_start, start + dur, tid, stop, (uint8_t)(rl_rng(&s) % 4) };
        bool kept = runlane_append(rl, &run);
        RL_EXPECT(kept && rl_model_append(m, run), "seed %llu input %zu dropped",
                  (unsigned long long)seed, k);
        clock = start + dur;
    }
}

/* A GHC-like lane: run lengths and gaps exponential with mean 150 us, tids from a
 * sliding window of the 100 most recent threads (a new one every 50 runs or so),
 * stop statuses 1..20, an occasional open or clipped run. */
static void
rl_realistic_lane(uint64_t seed, size_t n, runlane *rl, rl_model *m)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 11, t = UINT64_C(1000000000);
    uint32_t next_tid = 120;
    for (size_t k = 0; k < n; k++) {
        double u1 = (double)((rl_rng(&s) >> 11) + 1) / 9007199254740992.0;
        double u2 = (double)((rl_rng(&s) >> 11) + 1) / 9007199254740992.0;
        uint64_t gap = (uint64_t)(-150000.0 * log(u1));
        uint64_t dur = (uint64_t)(-150000.0 * log(u2));
        if (rl_rng(&s) % 50 == 0)
            next_tid++;
        uint32_t tid = next_tid - (uint32_t)(rl_rng(&s) % 100);
        uint64_t start = t + gap;
        if (rl_rng(&s) % 2000 == 0)
            start -= gap + 10;                  /* a late event: clipped */
        runlane_run run = { start, t + gap + dur, tid, (uint8_t)(1 + rl_rng(&s) % 20),
                            rl_rng(&s) % 1000 == 0 ? RUNLANE_F_OPEN : 0 };
        bool kept = runlane_append(rl, &run);
        if (m)
            RL_EXPECT(kept == rl_model_append(m, run), "realistic run %zu", k);
        t += gap + dur;
    }
}

/* A time at, just before or just after an edge of run, or inside it. */
static uint64_t
rl_pick_near(const runlane_run *run, uint64_t *s)
{
    uint64_t r = rl_rng(s) % 8;
    if (r == 0 && run->end_ns > run->start_ns)
        return run->start_ns + rl_rng(s) % (run->end_ns - run->start_ns);
    uint64_t t = rl_rng(s) % 2 ? run->start_ns : run->end_ns;
    int delta = (int)(rl_rng(s) % 3) - 1;
    if (delta < 0 && t > 0)
        t--;
    else if (delta > 0 && t < UINT64_MAX)
        t++;
    return t;
}

/* A query time: near a run boundary, anywhere in the span, or an extreme. */
static uint64_t
rl_pick_time(const rl_model *m, uint64_t *s)
{
    uint64_t r = rl_rng(s) % 10;
    if (m->n == 0 || r == 0)
        return (uint64_t[]){ 0, 1, T32, UINT64_MAX - 1, UINT64_MAX }[rl_rng(s) % 5];
    const runlane_run *run = &m->r[rl_rng(s) % m->n];
    if (r < 8)
        return rl_pick_near(run, s);
    uint64_t lo = m->r[0].start_ns, hi = m->r[m->n - 1].end_ns;
    return hi > lo ? lo + rl_rng(s) % (hi - lo) : lo;
}

/* A sweep (runlane_sweep) against the model: over every run's start, the nanosecond
 * before it and its end in increasing order (chunk after chunk, into the open one), at
 * 0 and UINT64_MAX, then at random times in any order with the same sweep. */
static void
rl_compare_sweep(const runlane *rl, const rl_model *m, uint64_t seed, int n_queries)
{
    runlane_sweep *sw = runlane_sweep_new(rl);
    uint64_t s = seed * 7919 + 1;
    for (size_t q = 0; q < 3 * m->n + n_queries + 2; q++) {
        uint64_t t;
        if (q == 0)
            t = 0;
        else if (q <= 3 * m->n) {
            const runlane_run *r = &m->r[(q - 1) / 3];
            t = (q - 1) % 3 == 0 ? r->start_ns - (r->start_ns > 0)
                : (q - 1) % 3 == 1 ? r->start_ns : r->end_ns;
        } else if (q == 3 * m->n + 1)
            t = UINT64_MAX;
        else
            t = rl_pick_time(m, &s);
        /* runlane_last_starting_by is checked against the brute force above; the
         * brute force itself at every one of 3n times would be quadratic. */
        size_t want = q > 3 * m->n + 1 ? bf_last_starting_by(m, t)
                                       : runlane_last_starting_by(rl, t);
        uint64_t end_ns = 12345;
        size_t got = runlane_sweep_last_starting_by(sw, t, &end_ns);
        RL_EXPECT(got == want, "seed %llu sweep at %llu: run %zu, want %zu",
                  (unsigned long long)seed, (unsigned long long)t, got, want);
        RL_EXPECT(want == SIZE_MAX ? end_ns == 12345 : end_ns == m->r[want].end_ns,
                  "seed %llu sweep at %llu: end %llu", (unsigned long long)seed,
                  (unsigned long long)t, (unsigned long long)end_ns);
    }
    runlane_sweep_free(sw);
}

static void
rl_compare(const runlane *rl, const rl_model *m, uint64_t seed, int n_queries)
{
    RL_EXPECT(runlane_count(rl) == m->n, "seed %llu count", (unsigned long long)seed);
    for (size_t i = 0; i < m->n; i++) {
        runlane_run g;
        runlane_get(rl, i, &g);
        const runlane_run *w = &m->r[i];
        RL_EXPECT(g.start_ns == w->start_ns && g.end_ns == w->end_ns && g.tid == w->tid &&
                          g.stop == w->stop && g.flags == w->flags,
                      "seed %llu run %zu: got [%llu,%llu) stop %u flags %u, want [%llu,%llu)"
                      " stop %u flags %u", (unsigned long long)seed, i,
                      (unsigned long long)g.start_ns, (unsigned long long)g.end_ns, g.stop,
                      g.flags, (unsigned long long)w->start_ns, (unsigned long long)w->end_ns,
                      w->stop, w->flags);
    }
    /* Blocks: every run once, in order, starting at the start the header gives, with
     * tids inside the block's bounds (for a packed block, bounds no wider than twice its
     * tids' spread: the header's widths are the fewest bits); a block read for any set
     * of columns gives those as the model has them and leaves the others as they were. */
    runlane_block *bl = xmalloc(sizeof *bl);
    size_t seen = 0;
    for (size_t b = 0; b < runlane_n_blocks(rl); b++) {
        uint32_t lo, hi;
        runlane_block_tids(rl, b, &lo, &hi);
        /* A block said to hold no thread of a range holds none: ranges around each
         * of its tids, and around its bounds. */
        for (size_t j = seen; j < m->n && j < seen + RUNLANE_CHUNK; j++) {
            uint32_t t = m->r[j].tid;
            RL_EXPECT(runlane_block_has_tid_in(rl, b, t, t) &&
                          runlane_block_has_tid_in(rl, b, t > 3 ? t - 3 : 0,
                                                   t < UINT32_MAX ? t + 1 : t) &&
                          runlane_block_has_tid_in(rl, b, t, UINT32_MAX),
                      "seed %llu block %zu: thread %u said not to be in it",
                      (unsigned long long)seed, b, t);
        }
        for (uint64_t p0 = lo > 8 ? lo - 8u : 0, k = 0; p0 + 4 <= hi && k < 800; p0 += 5, k++) {
            uint32_t p = (uint32_t)p0;
            bool any = false;
            for (size_t j = seen; j < m->n && j < seen + RUNLANE_CHUNK; j++)
                any = any || (m->r[j].tid >= p && m->r[j].tid <= p + 4);
            RL_EXPECT(!any || runlane_block_has_tid_in(rl, b, p, p + 4),
                      "seed %llu block %zu: a thread in [%u, %u] said not to be in it",
                      (unsigned long long)seed, b, p, p + 4);
        }
        RL_EXPECT(runlane_block_start_ns(rl, b) == m->r[seen].start_ns,
                  "seed %llu block %zu: starts at %llu, its first run at %llu",
                  (unsigned long long)seed, b, (unsigned long long)runlane_block_start_ns(rl, b),
                  (unsigned long long)m->r[seen].start_ns);
        bool open = b * RUNLANE_CHUNK + RUNLANE_CHUNK > m->n;   /* may be unpacked */
        for (unsigned cols = 1; cols <= RUNLANE_COL_ALL; cols++) {
            memset(bl, 0xa5, sizeof *bl);
            runlane_block_get(rl, b, bl, cols);
            RL_EXPECT(bl->first == seen && bl->len > 0 && bl->len <= RUNLANE_CHUNK,
                      "seed %llu block %zu: first %zu len %zu, want first %zu",
                      (unsigned long long)seed, b, bl->first, bl->len, seen);
            for (size_t j = 0; j < bl->len; j++) {
                const runlane_run *w = &m->r[seen + j];
                const uint64_t junk = UINT64_C(0xa5a5a5a5a5a5a5a5);
                bool ok = true;
                if (cols & RUNLANE_COL_START)
                    ok = ok && bl->start_ns[j] == w->start_ns;
                else if (!open)
                    ok = ok && bl->start_ns[j] == junk;
                if (cols & RUNLANE_COL_DUR)
                    ok = ok && bl->dur_ns[j] == w->end_ns - w->start_ns;
                else if (!open)
                    ok = ok && bl->dur_ns[j] == junk;
                if (cols & RUNLANE_COL_TID)
                    ok = ok && bl->tid[j] == w->tid;
                else if (!open)
                    ok = ok && bl->tid[j] == (uint32_t)junk;
                if (cols & RUNLANE_COL_STOP)
                    ok = ok && bl->stop[j] == w->stop && bl->flags[j] == w->flags;
                else if (!open)
                    ok = ok && bl->stop[j] == 0xa5 && bl->flags[j] == 0xa5;
                RL_EXPECT(ok, "seed %llu block %zu run %zu columns %u differ",
                          (unsigned long long)seed, b, j, cols);
                RL_EXPECT(lo <= w->tid && w->tid <= hi,
                          "seed %llu block %zu run %zu: tid %u outside [%u, %u]",
                          (unsigned long long)seed, b, j, w->tid, lo, hi);
            }
        }
        uint32_t tmin = UINT32_MAX, tmax = 0;
        for (size_t j = 0; j < bl->len; j++) {
            tmin = m->r[seen + j].tid < tmin ? m->r[seen + j].tid : tmin;
            tmax = m->r[seen + j].tid > tmax ? m->r[seen + j].tid : tmax;
        }
        RL_EXPECT(open || (lo == tmin && (uint64_t)hi - lo <= 2 * (uint64_t)(tmax - tmin)),
                  "seed %llu block %zu: tid bounds [%u, %u] for tids [%u, %u]",
                  (unsigned long long)seed, b, lo, hi, tmin, tmax);
        /* Per-thread sums straight from the packed block, over windows of tids from the
         * smallest up, around the largest and around the first run's (some runs below
         * the window, some above), against the model's runs. */
        uint32_t wins[3] = { tmin, tmax > 127 ? tmax - 127 : 0,
                             m->r[seen].tid > 3 ? m->r[seen].tid - 3 : 0 };
        for (int w = 0; w < 3; w++) {
            enum { NW = 256 };
            uint64_t sum[NW] = { 0 }, want_sum[NW] = { 0 };
            uint32_t cnt[NW] = { 0 }, want_cnt[NW] = { 0 };
            uint64_t room = UINT64_C(1) << 32;  /* the window stays below 2^32 */
            size_t nw = w == 2 ? 8 : NW;
            nw = room - wins[w] < nw ? (size_t)(room - wins[w]) : nw;
            runlane_block_add_by_tid(rl, b, wins[w], nw, sum, cnt);
            for (size_t j = 0; j < bl->len; j++) {
                const runlane_run *r = &m->r[seen + j];
                if (r->tid >= wins[w] && r->tid - wins[w] < nw) {
                    want_sum[r->tid - wins[w]] += r->end_ns - r->start_ns;
                    want_cnt[r->tid - wins[w]]++;
                }
            }
            RL_EXPECT(memcmp(sum, want_sum, sizeof sum) == 0 &&
                          memcmp(cnt, want_cnt, sizeof cnt) == 0,
                      "seed %llu block %zu: sums by tid from %u differ", (unsigned long long)seed,
                      b, wins[w]);
        }
        seen += bl->len;
    }
    RL_EXPECT(seen == m->n, "seed %llu: blocks hold %zu runs, want %zu",
              (unsigned long long)seed, seen, m->n);
    x_free(bl);

    uint64_t pre = 0;
    for (size_t i = 0; i <= m->n + 1; i++) {
        RL_EXPECT(runlane_prefix_ns(rl, i) == pre, "seed %llu prefix %zu",
                      (unsigned long long)seed, i);
        if (i < m->n)
            pre += m->r[i].end_ns - m->r[i].start_ns;
    }
    uint64_t s = seed + 12345;
    for (int q = 0; q < n_queries; q++) {
        uint64_t t0 = rl_pick_time(m, &s), t1 = rl_pick_time(m, &s);
        if (m->n > 0 && q % 2 == 0) {
            /* Both ends near runs a few apart: inside one chunk, across one boundary,
             * or over several chunks (the last of them often the open one). */
            static const size_t spans[] = { 0, 1, 5, 40, RUNLANE_CHUNK, 3 * RUNLANE_CHUNK };
            size_t a = q % 4 == 0 ? m->n - 1 - rl_rng(&s) % (m->n < 80 ? m->n : 80)
                                  : rl_rng(&s) % m->n;
            size_t b = a + spans[rl_rng(&s) % 6];
            t0 = rl_pick_near(&m->r[a], &s);
            t1 = rl_pick_near(&m->r[b < m->n ? b : m->n - 1], &s);
        }
        if (rl_rng(&s) % 4 != 0 && t0 > t1) {   /* mostly proper ranges, some inverted */
            uint64_t tmp = t0;
            t0 = t1;
            t1 = tmp;
        }
        RL_EXPECT(runlane_busy_ns(rl, t0, t1) == bf_busy(m, t0, t1),
                      "seed %llu busy [%llu,%llu): %llu want %llu", (unsigned long long)seed,
                      (unsigned long long)t0, (unsigned long long)t1,
                      (unsigned long long)runlane_busy_ns(rl, t0, t1),
                      (unsigned long long)bf_busy(m, t0, t1));
        RL_EXPECT(runlane_count_in(rl, t0, t1) == bf_count_in(m, t0, t1),
                      "seed %llu count_in [%llu,%llu): %zu want %zu", (unsigned long long)seed,
                      (unsigned long long)t0, (unsigned long long)t1,
                      runlane_count_in(rl, t0, t1), bf_count_in(m, t0, t1));
        size_t about = runlane_count_in_about(rl, t0, t1), want = bf_count_in(m, t0, t1);
        RL_EXPECT(about >= want && about <= want + 2 * RUNLANE_CHUNK,
                      "seed %llu count_in_about [%llu,%llu): %zu, count %zu",
                      (unsigned long long)seed, (unsigned long long)t0, (unsigned long long)t1,
                      about, want);
        RL_EXPECT(runlane_first_after(rl, t0) == bf_first_after(m, t0),
                      "seed %llu first_after %llu", (unsigned long long)seed,
                      (unsigned long long)t0);
        RL_EXPECT(runlane_last_starting_by(rl, t0) == bf_last_starting_by(m, t0),
                      "seed %llu last_starting_by %llu", (unsigned long long)seed,
                      (unsigned long long)t0);
    }
    rl_compare_sweep(rl, m, seed, n_queries);
}

/* ---- unit tests ---- */

START_TEST(test_runlane_empty)
{
    runlane *rl = runlane_new();
    ck_assert_uint_eq(runlane_count(rl), 0);
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 0), 0);
    ck_assert_uint_eq(runlane_last_starting_by(rl, UINT64_MAX), SIZE_MAX);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 0), 0);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 5), 0);
    runlane_run g = { 1, 2, 3, 4, 1 };
    runlane_get(rl, 0, &g);
    ck_assert_uint_eq(g.start_ns + g.end_ns + g.tid + g.stop + g.flags, 0);
    rl_assert_sound(rl);
    runlane_seal(rl);
    rl_assert_sound(rl);
    ck_assert_uint_gt(runlane_bytes(rl), 0);
    runlane_free(rl);
    runlane_free(NULL);
}
END_TEST

START_TEST(test_runlane_single_boundaries)
{
    runlane *rl = runlane_new();
    ck_assert(rl_add(rl, 100, 200, 7, 5, RUNLANE_F_OPEN));
    runlane_run g;
    runlane_get(rl, 0, &g);
    ck_assert_uint_eq(g.start_ns, 100);
    ck_assert_uint_eq(g.end_ns, 200);
    ck_assert_uint_eq(g.tid, 7);
    ck_assert_uint_eq(g.stop, 5);
    ck_assert_uint_eq(g.flags, RUNLANE_F_OPEN);
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), 100);
    ck_assert_uint_eq(runlane_busy_ns(rl, 100, 200), 100);
    ck_assert_uint_eq(runlane_busy_ns(rl, 99, 100), 0);
    ck_assert_uint_eq(runlane_busy_ns(rl, 100, 101), 1);
    ck_assert_uint_eq(runlane_busy_ns(rl, 199, 200), 1);
    ck_assert_uint_eq(runlane_busy_ns(rl, 200, 300), 0);
    ck_assert_uint_eq(runlane_busy_ns(rl, 150, 150), 0);
    ck_assert_uint_eq(runlane_busy_ns(rl, 180, 120), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 99, 100), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 100, 101), 1);
    ck_assert_uint_eq(runlane_count_in(rl, 199, 200), 1);
    ck_assert_uint_eq(runlane_count_in(rl, 200, 201), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 180, 120), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 199), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 200), 1);
    ck_assert_uint_eq(runlane_last_starting_by(rl, 99), SIZE_MAX);
    ck_assert_uint_eq(runlane_last_starting_by(rl, 100), 0);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 0), 0);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 1), 100);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_zero_length)
{
    runlane *rl = runlane_new();
    ck_assert(rl_add(rl, 100, 100, 1, 0, 0));
    ck_assert(rl_add(rl, 100, 100, 2, 0, 0));     /* same instant: not an overlap */
    ck_assert(rl_add(rl, 100, 150, 3, 0, 0));
    ck_assert(rl_add(rl, 150, 150, 4, 0, 0));
    ck_assert_uint_eq(runlane_count(rl), 4);
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, 1000), 50);
    ck_assert_uint_eq(runlane_count_in(rl, 100, 101), 3);
    ck_assert_uint_eq(runlane_count_in(rl, 99, 100), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 149, 150), 1);
    ck_assert_uint_eq(runlane_count_in(rl, 150, 151), 1);     /* the instant at 150 */
    ck_assert_uint_eq(runlane_count_in(rl, 100, 100), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 99), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 100), 0);
    ck_assert_uint_eq(runlane_first_after(rl, 101), 2);
    ck_assert_uint_eq(runlane_first_after(rl, 150), 3);
    ck_assert_uint_eq(runlane_first_after(rl, 151), 4);
    ck_assert_uint_eq(runlane_last_starting_by(rl, 100), 2);
    ck_assert_uint_eq(runlane_last_starting_by(rl, 150), 3);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 3), 50);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_clip_and_drop)
{
    runlane *rl = runlane_new();
    ck_assert(!rl_add(rl, 10, 5, 1, 0, 0));       /* inverted: dropped */
    ck_assert_uint_eq(runlane_count(rl), 0);
    ck_assert(rl_add(rl, 0, 100, 1, 0, RUNLANE_F_CLIPPED)); /* caller's CLIPPED is ignored */
    ck_assert(rl_add(rl, 50, 150, 2, 0, RUNLANE_F_OPEN));
    ck_assert(!rl_add(rl, 120, 130, 3, 0, 0));    /* inside the previous run: dropped */
    ck_assert(rl_add(rl, 140, 150, 4, 0, 0));     /* clipped to zero length: kept */
    ck_assert(rl_add(rl, 150, 160, 5, 0, 0));     /* touching: not clipped */
    ck_assert(rl_add(rl, 0, 170, 6, 0, 0));       /* out of order: clipped */
    ck_assert_uint_eq(runlane_count(rl), 5);
    runlane_run g;
    runlane_get(rl, 0, &g);
    ck_assert_uint_eq(g.flags, 0);
    runlane_get(rl, 1, &g);
    ck_assert_uint_eq(g.start_ns, 100);
    ck_assert_uint_eq(g.end_ns, 150);
    ck_assert_uint_eq(g.flags, RUNLANE_F_OPEN | RUNLANE_F_CLIPPED);
    runlane_get(rl, 2, &g);
    ck_assert_uint_eq(g.start_ns, 150);
    ck_assert_uint_eq(g.end_ns, 150);
    ck_assert_uint_eq(g.tid, 4);
    ck_assert_uint_eq(g.flags, RUNLANE_F_CLIPPED);
    runlane_get(rl, 3, &g);
    ck_assert_uint_eq(g.flags, 0);
    runlane_get(rl, 4, &g);
    ck_assert_uint_eq(g.start_ns, 160);
    ck_assert_uint_eq(g.end_ns, 170);
    ck_assert_uint_eq(g.flags, RUNLANE_F_CLIPPED);
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, 200), 170);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_long_runs)
{
    static const uint64_t durs[] = { T32 - 1, T32, T32 + 1, UINT64_C(5000000000),
                                     UINT64_C(1) << 40, 3 };
    runlane *rl = runlane_new();
    uint64_t t = 1000, total = 0;
    for (size_t k = 0; k < sizeof durs / sizeof durs[0]; k++) {
        ck_assert(rl_add(rl, t, t + durs[k], (uint32_t)k, 1, 0));
        t += durs[k] + 10;
        total += durs[k];
    }
    t = 1000;
    for (size_t k = 0; k < sizeof durs / sizeof durs[0]; k++) {
        runlane_run g;
        runlane_get(rl, k, &g);
        ck_assert_uint_eq(g.start_ns, t);
        ck_assert_uint_eq(g.end_ns - g.start_ns, durs[k]);
        ck_assert_uint_eq(runlane_busy_ns(rl, t, t + durs[k]), durs[k]);
        ck_assert_uint_eq(runlane_busy_ns(rl, t + 1, t + durs[k] - 1), durs[k] - 2);
        t += durs[k] + 10;
    }
    ck_assert_uint_eq(runlane_prefix_ns(rl, 6), total);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 3), durs[0] + durs[1] + durs[2]);
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), total);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

/* Starts around and far beyond u32 past their chunk's first start (the old layout's
 * chunk-split edge) widen the start column; wrong widths show as wrong starts. */
START_TEST(test_runlane_long_gaps)
{
    runlane *rl = runlane_new();
    uint64_t starts[] = { 0, T32, T32 + 1, 2 * T32 + 1, 2 * T32 + 2, UINT64_C(9000000000),
                          UINT64_C(9000000000) + 5, UINT64_MAX - 1 };
    size_t n = sizeof starts / sizeof starts[0];
    for (size_t k = 0; k < n; k++)
        ck_assert(rl_add(rl, starts[k], starts[k] + (k + 1 < n ? 1 : 0), (uint32_t)k, 0, 0));
    for (size_t k = 0; k < n; k++) {
        runlane_run g;
        runlane_get(rl, k, &g);
        ck_assert_uint_eq(g.start_ns, starts[k]);
        ck_assert_uint_eq(runlane_last_starting_by(rl, starts[k]), k);
        ck_assert_uint_eq(runlane_first_after(rl, starts[k]), k);
    }
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), n - 1);
    ck_assert_uint_eq(runlane_count_in(rl, 1, UINT64_MAX), n - 1);
    ck_assert_uint_eq(runlane_count_in(rl, T32, T32 + 2), 2);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_full_chunks)
{
    runlane *rl = runlane_new();
    for (uint64_t k = 0; k < 5 * RUNLANE_CHUNK + 3; k++)
        ck_assert(rl_add(rl, 10 * k, 10 * k + 4, (uint32_t)k, 0, 0));
    size_t n = runlane_count(rl);
    for (size_t k = 0; k <= n; k++)
        ck_assert_uint_eq(runlane_prefix_ns(rl, k), 4 * k);
    /* Windows whose edges land in different chunks, on and off run edges. */
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, 10 * RUNLANE_CHUNK), 4 * RUNLANE_CHUNK);
    ck_assert_uint_eq(runlane_busy_ns(rl, 10 * RUNLANE_CHUNK - 8, 10 * 3 * RUNLANE_CHUNK + 2),
                      2 + 4 * 2 * RUNLANE_CHUNK + 2);
    ck_assert_uint_eq(runlane_count_in(rl, 10 * RUNLANE_CHUNK - 6, 10 * RUNLANE_CHUNK + 1), 1);
    ck_assert_uint_eq(runlane_count_in(rl, 10 * RUNLANE_CHUNK - 7, 10 * RUNLANE_CHUNK + 1), 2);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

/* The sweep over ascending times equals a direct count from the runs, whatever the steps
 * between times (repeats, within a chunk, across many chunks: the gallop; the same step
 * several times over, then another, larger or smaller: the guessed chunk). */
START_TEST(test_runlane_busy_upto_many)
{
    enum { N_RUNS = 40 * RUNLANE_CHUNK + 5, N_T = 600 };
    runlane *rl = runlane_new();
    for (uint64_t k = 0; k < N_RUNS; k++)
        ck_assert(rl_add(rl, 10 * k + 3, 10 * k + 3 + k % 7, (uint32_t)k, 0, 0));
    uint64_t t[N_T], got[N_T], s = 12345, now = 0, step = 0;
    for (size_t m = 0; m < N_T; m++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        unsigned r = (unsigned)(s >> 60);
        /* Runs of one step as a screen's columns (the chunk search guesses the next
         * chunk from the step) among steps of every size. */
        step = r < 3 ? 0 : r < 7 ? step : r < 11 ? (s >> 20) % 20
                                                  : (s >> 20) % (10 * 8 * RUNLANE_CHUNK);
        now += step;
        t[m] = now;
    }
    runlane_busy_upto_many(rl, t, N_T, got);
    for (size_t m = 0; m < N_T; m++) {
        uint64_t want = 0;
        for (uint64_t k = 0; k < N_RUNS; k++) {
            uint64_t a = 10 * k + 3, b = a + k % 7;
            want += t[m] <= a ? 0 : (t[m] < b ? t[m] : b) - a;
        }
        if (got[m] != want)
            ck_abort_msg("t[%zu] = %llu: %llu, want %llu", m, (unsigned long long)t[m],
                         (unsigned long long)got[m], (unsigned long long)want);
    }
    runlane_free(rl);
}
END_TEST

/* A lane of n_runs runs (starts into a[], ends into b[]) with gaps of every width (wide
 * ones, none, a few ns) and zero-length runs, from the generator state *s; sealed for odd
 * seeds, its last chunk left open for even ones. *at: where the runs start, then the
 * last run's end. */
static runlane *
rl_gap_lane(uint64_t seed, size_t n_runs, uint64_t *s, uint64_t *a, uint64_t *b,
            uint64_t *at)
{
    runlane *rl = runlane_new();
    for (size_t k = 0; k < n_runs; k++) {
        *s = *s * 6364136223846793005u + 1442695040888963407u;
        unsigned r = (unsigned)(*s >> 58);
        uint64_t gap = r < 6 ? (*s >> 8) % 5000000 : r < 16 ? 0 : (*s >> 8) % 30;
        uint64_t dur = r % 5 == 0 ? 0 : (*s >> 24) % 70;
        a[k] = *at + gap;
        b[k] = a[k] + dur;
        ck_assert(rl_add(rl, a[k], b[k], (uint32_t)k, 0, 0));
        *at = b[k];
    }
    if (seed % 2)
        runlane_seal(rl);
    return rl;
}

/* The run time before t of the gap lane's runs [a[k], b[k]) (a direct sum), and into
 *before (when not NULL) how many of them start before t. */
static uint64_t
rl_gap_busy(const uint64_t *a, const uint64_t *b, size_t n_runs, uint64_t t, size_t *before)
{
    uint64_t busy = 0;
    size_t k = 0;
    for (; k < n_runs && a[k] < t; k++)
        busy += (b[k] < t ? b[k] : t) - a[k];
    if (before)
        *before = k;
    return busy;
}

static int
rl_u64_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The chunk-header bounds hold the exact run time between them (against a direct sum,
 * and runlane_busy_upto equals it) on lanes with wide and zero gaps, zero-length runs, a
 * last chunk sealed or open, at times before, on and between the runs' edges, in order
 * and out of it; they are exact at every chunk's first start, before the first run and
 * past the last, and apart by no more than the chunk's run time, its idle time, or the
 * time from its first start or to the next chunk's. */
START_TEST(test_runlane_busy_bounds_many)
{
    enum { N_T = 700 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        size_t n_runs = 5 * RUNLANE_CHUNK + (size_t)seed * 17;
        uint64_t *a = xmalloc(n_runs * sizeof *a), *b = xmalloc(n_runs * sizeof *b);
        uint64_t s = seed * 0x9e3779b97f4a7c15u + 7, at = 100;
        runlane *rl = rl_gap_lane(seed, n_runs, &s, a, b, &at);
        uint64_t t[N_T], lo[N_T], hi[N_T];
        for (size_t m = 0; m < N_T; m++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            size_t k = (size_t)(s >> 33) % n_runs;
            switch ((s >> 20) % 6) {
            case 0: t[m] = a[k / RUNLANE_CHUNK * RUNLANE_CHUNK]; break;  /* a chunk's base */
            case 1: t[m] = b[k]; break;
            case 2: t[m] = a[k] + 1; break;
            case 3: t[m] = m < 4 ? m * 40 : (s >> 7) % (at + 200); break;
            case 4: t[m] = at + m; break;
            default: t[m] = a[k] + (b[k] - a[k]) / 2; break;
            }
        }
        for (int sorted = 0; sorted < 2; sorted++) {
            if (sorted)
                qsort(t, N_T, sizeof t[0], rl_u64_cmp);
            runlane_busy_bounds_many(rl, t, N_T, lo, hi, NULL);
            for (size_t m = 0; m < N_T; m++) {
                size_t before;              /* runs starting before t[m] */
                uint64_t want = rl_gap_busy(a, b, n_runs, t[m], &before);
                ck_assert_uint_eq(runlane_busy_upto(rl, t[m]), want);
                if (lo[m] > want || hi[m] < want)
                    ck_abort_msg("seed %llu t[%zu] = %llu: [%llu, %llu] misses %llu",
                                 (unsigned long long)seed, m, (unsigned long long)t[m],
                                 (unsigned long long)lo[m], (unsigned long long)hi[m],
                                 (unsigned long long)want);
                bool base = before < n_runs && before % RUNLANE_CHUNK == 0 &&
                            a[before] == t[m];
                if (before == 0 || t[m] >= at || base)
                    ck_assert_uint_eq(hi[m], lo[m]);
                if (before > 0 && before < n_runs) {
                    /* The chunk of the last run starting before t[m]: t[m] lies between
                     * its first start and the next chunk's (or the last end). */
                    size_t c0 = (before - 1) / RUNLANE_CHUNK * RUNLANE_CHUNK;
                    size_t c1 = c0 + RUNLANE_CHUNK < n_runs ? c0 + RUNLANE_CHUNK : n_runs;
                    uint64_t run = 0, end = c1 < n_runs ? a[c1] : at;
                    for (size_t k = c0; k < c1; k++)
                        run += b[k] - a[k];
                    uint64_t idle = end - a[c0] - run;
                    uint64_t most = run < idle ? run : idle;
                    ck_assert_uint_le(hi[m] - lo[m], most);
                    if (t[m] < end) {
                        uint64_t from = t[m] - a[c0], to = end - t[m];
                        uint64_t near = from < to ? from : to;
                        ck_assert_uint_le(hi[m] - lo[m], near);
                    }
                }
            }
        }
        runlane_free(rl);
        x_free(a);
        x_free(b);
    }
}
END_TEST

/* The checkpoints' bounds (runlane_busy_bounds_near_many) hold the exact run time (a
 * direct sum) on the same lanes, at times on, next to and between the chunks' and the
 * checkpoints' first starts, in order and out of it, with the chunk
 * runlane_busy_bounds_many found or a wrong one; they are exact where those are, at
 * least as tight, and apart by no more than the run time or the idle time of the
 * RUNLANE_CP_STEP runs around the time (from the checkpoint at or before it to the
 * next, or the next chunk's first start, or the last end). */
START_TEST(test_runlane_busy_bounds_near)
{
    enum { N_T = 600 };
    for (uint64_t seed = 1; seed <= 4; seed++) {
        size_t n_runs = 5 * RUNLANE_CHUNK + (size_t)seed * 17;
        uint64_t *a = xmalloc(n_runs * sizeof *a), *b = xmalloc(n_runs * sizeof *b);
        uint64_t s = seed * 0x2545f4914f6cdd1du + 3, at_end = 100;
        runlane *rl = rl_gap_lane(seed, n_runs, &s, a, b, &at_end);
        uint64_t t[N_T], lo[N_T], hi[N_T], flo[N_T], fhi[N_T];
        size_t at[N_T], bad[N_T];
        for (size_t m = 0; m < N_T; m++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            size_t k = (size_t)(s >> 33) % n_runs;
            size_t cp = k / RUNLANE_CP_STEP * RUNLANE_CP_STEP;     /* a checkpoint's run */
            switch ((s >> 20) % 7) {
            case 0: t[m] = a[cp]; break;
            case 1: t[m] = a[cp] + 1; break;
            case 2: t[m] = a[cp] - (a[cp] > 0); break;
            case 3: t[m] = a[k / RUNLANE_CHUNK * RUNLANE_CHUNK]; break;
            case 4: t[m] = b[k]; break;
            case 5: t[m] = m < 4 ? m * 40 : (s >> 7) % (at_end + 200); break;
            default: t[m] = a[k] + (b[k] - a[k]) / 2; break;
            }
        }
        for (int sorted = 0; sorted < 2; sorted++) {
            if (sorted)
                qsort(t, N_T, sizeof t[0], rl_u64_cmp);
            runlane_busy_bounds_many(rl, t, N_T, lo, hi, at);
            for (size_t m = 0; m < N_T; m++)
                bad[m] = m % 3 == 0 ? SIZE_MAX : m % 3 == 1 ? at[m] + 1 : at[m] - 1;
            for (int wrong = 0; wrong < 2; wrong++) {
                runlane_busy_bounds_near_many(rl, t, wrong ? bad : at, N_T, flo, fhi);
                for (size_t m = 0; m < N_T; m++) {
                    size_t before;          /* runs starting before t[m] */
                    uint64_t want = rl_gap_busy(a, b, n_runs, t[m], &before);
                    if (flo[m] > want || fhi[m] < want)
                        ck_abort_msg("seed %llu t[%zu] = %llu: [%llu, %llu] misses %llu",
                                     (unsigned long long)seed, m, (unsigned long long)t[m],
                                     (unsigned long long)flo[m], (unsigned long long)fhi[m],
                                     (unsigned long long)want);
                    ck_assert_uint_ge(flo[m], lo[m]);
                    ck_assert_uint_le(fhi[m], hi[m]);
                    if (lo[m] == hi[m])
                        ck_assert_uint_eq(flo[m], fhi[m]);
                    if (before == 0 || before >= n_runs)
                        continue;
                    /* The checkpoint segment of the last run starting before t[m]. */
                    size_t c0 = (before - 1) / RUNLANE_CHUNK * RUNLANE_CHUNK;
                    size_t c1 = c0 + RUNLANE_CHUNK < n_runs ? c0 + RUNLANE_CHUNK : n_runs;
                    size_t s0 = (before - 1) / RUNLANE_CP_STEP * RUNLANE_CP_STEP;
                    size_t s1 = s0 + RUNLANE_CP_STEP;
                    if (s1 >= c1 || s1 - c0 >= RUNLANE_CHUNK)
                        s1 = c1;
                    uint64_t run = 0, end = s1 < n_runs ? a[s1] : at_end;
                    for (size_t k = s0; k < s1; k++)
                        run += b[k] - a[k];
                    uint64_t idle = end - a[s0] - run;
                    ck_assert_uint_le(fhi[m] - flo[m], run < idle ? run : idle);
                    if (a[before] == t[m] && before % RUNLANE_CP_STEP == 0)
                        ck_assert_uint_eq(flo[m], fhi[m]);  /* at a checkpoint's start */
                }
            }
        }
        runlane_free(rl);
        x_free(a);
        x_free(b);
    }
}
END_TEST

/* The sweep equals a direct sum over the runs on lanes whose gaps take every width (the
 * wide ones are their chunks' gap exceptions, so walks pass exceptions both ways), with
 * zero-length runs and back-to-back ones, a last short chunk packed by seal or still
 * open, at times before, on, next to and between the runs' edges: every checkpoint
 * segment of every chunk. */
START_TEST(test_runlane_busy_upto_many_gaps)
{
    enum { N_T = 900 };
    for (uint64_t seed = 1; seed <= 6; seed++) {
        size_t n_runs = 6 * RUNLANE_CHUNK + (size_t)seed * 13;
        uint64_t *a = xmalloc(n_runs * sizeof *a), *b = xmalloc(n_runs * sizeof *b);
        uint64_t s = seed * 0x9e3779b97f4a7c15u + 1, at = 100;
        runlane *rl = rl_gap_lane(seed, n_runs, &s, a, b, &at);
        uint64_t t[N_T], got[N_T];
        for (size_t m = 0; m < N_T; m++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            size_t k = (size_t)(s >> 33) % n_runs;
            switch ((s >> 20) % 6) {
            case 0: t[m] = a[k]; break;
            case 1: t[m] = b[k]; break;
            case 2: t[m] = a[k] + 1; break;
            case 3: t[m] = b[k] ? b[k] - 1 : 0; break;
            case 4: t[m] = m < 3 ? m * 50 : (s >> 7) % (at + 200); break;
            default: t[m] = a[k] + (b[k] - a[k]) / 2; break;
            }
        }
        qsort(t, N_T, sizeof t[0], rl_u64_cmp);
        runlane_busy_upto_many(rl, t, N_T, got);
        for (size_t m = 0; m < N_T; m++) {
            uint64_t want = rl_gap_busy(a, b, n_runs, t[m], NULL);
            if (got[m] != want)
                ck_abort_msg("seed %llu t[%zu] = %llu: %llu, want %llu",
                             (unsigned long long)seed, m, (unsigned long long)t[m],
                             (unsigned long long)got[m], (unsigned long long)want);
        }
        runlane_free(rl);
        x_free(b);
        x_free(a);
    }
}
END_TEST

/* Times in any order (each chunk's runs asked back and forth, ties, the same time again)
 * get the answers of one time at a time. */
START_TEST(test_runlane_busy_upto_many_any_order)
{
    enum { N_T = 500 };
    uint64_t s = 77, at = 100;
    size_t n_runs = 5 * RUNLANE_CHUNK + 9;
    uint64_t *a = xmalloc(n_runs * sizeof *a), *b = xmalloc(n_runs * sizeof *b);
    runlane *rl = rl_gap_lane(3, n_runs, &s, a, b, &at);
    uint64_t t[N_T], got[N_T];
    for (size_t m = 0; m < N_T; m++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        size_t k = (size_t)(s >> 33) % n_runs;
        t[m] = m % 5 == 4 ? t[m - 1] : m % 3 == 0 ? a[k] + (s >> 20) % 3 : b[k] - (b[k] > 0);
    }
    runlane_busy_upto_many(rl, t, N_T, got);
    for (size_t m = 0; m < N_T; m++)
        ck_assert_uint_eq(got[m], runlane_busy_upto(rl, t[m]));
    runlane_free(rl);
    x_free(b);
    x_free(a);
}
END_TEST

START_TEST(test_runlane_near_uint64_max)
{
    runlane *rl = runlane_new();
    ck_assert(rl_add(rl, UINT64_MAX - 10, UINT64_MAX, 1, 0, 0));
    ck_assert(rl_add(rl, UINT64_MAX, UINT64_MAX, 2, 0, 0));
    ck_assert(!rl_add(rl, UINT64_MAX, UINT64_MAX - 1, 3, 0, 0));
    ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), 10);
    ck_assert_uint_eq(runlane_busy_ns(rl, UINT64_MAX - 1, UINT64_MAX), 1);
    ck_assert_uint_eq(runlane_busy_ns(rl, UINT64_MAX, UINT64_MAX), 0);
    ck_assert_uint_eq(runlane_count_in(rl, 0, UINT64_MAX), 1);    /* t1 is exclusive */
    ck_assert_uint_eq(runlane_first_after(rl, UINT64_MAX - 1), 0);
    ck_assert_uint_eq(runlane_first_after(rl, UINT64_MAX), 1);    /* the instant */
    ck_assert_uint_eq(runlane_last_starting_by(rl, UINT64_MAX), 1);
    ck_assert_uint_eq(runlane_prefix_ns(rl, 2), 10);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_stop_values)
{
    static const uint8_t stops[] = { 0, 1, 16, 62, 63, 64, 200, 255 };
    runlane *rl = runlane_new();
    for (size_t k = 0; k < sizeof stops; k++)
        ck_assert(rl_add(rl, k * 10, k * 10 + 5, 0, stops[k], (uint8_t)(k % 2)));
    for (size_t k = 0; k < sizeof stops; k++) {
        runlane_run g;
        runlane_get(rl, k, &g);
        ck_assert_uint_eq(g.stop, stops[k]);
        ck_assert_uint_eq(g.flags, k % 2);
    }
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

START_TEST(test_runlane_seal_then_append)
{
    runlane *rl = runlane_new();
    rl_model m = { 0 };
    rl_random_lane(77, 300, rl, &m);
    size_t before = runlane_bytes(rl);
    runlane_seal(rl);
    ck_assert_uint_le(runlane_bytes(rl), before);
    rl_assert_sound(rl);
    rl_compare(rl, &m, 77, 100);
    rl_random_lane(78, 100, rl, &m);
    rl_assert_sound(rl);
    rl_compare(rl, &m, 78, 100);
    x_free(m.r);
    runlane_free(rl);
}
END_TEST

/* A lane of a million GHC-like runs (lengths up to 2 ms, one in a thousand of 6 s,
 * tids spread over 5000 threads) stays under 9.5 bytes a run (8.8 when written). */
START_TEST(test_runlane_compact)
{
    runlane *rl = runlane_new();
    uint64_t s = 42, t = 0;
    for (size_t k = 0; k < 1000000; k++) {
        t += rl_rng(&s) % 20000;
        uint64_t d = rl_rng(&s) % 1000 == 0 ? UINT64_C(6000000000) : rl_rng(&s) % 2000000;
        bool kept = rl_add(rl, t, t + d, (uint32_t)(rl_rng(&s) % 5000), (uint8_t)(1 + k % 5),
                           k % 4096 == 0 ? RUNLANE_F_OPEN : 0);
        RL_EXPECT(kept, "run %zu dropped", k);
        t += d;
    }
    runlane_seal(rl);
    double per_run = (double)runlane_bytes(rl) / (double)runlane_count(rl);
    ck_assert_msg(per_run < 9.5, "%.3f bytes a run", per_run);
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

/* 100,000 realistic runs (rl_realistic_lane) take at most 9 bytes a run once sealed,
 * and still answer like the brute force. */
START_TEST(test_runlane_realistic_size)
{
    runlane *rl = runlane_new();
    rl_model m = { 0 };
    rl_realistic_lane(5, 100000, rl, &m);
    rl_assert_sound(rl);
    runlane_seal(rl);
    double per_run = (double)runlane_bytes(rl) / (double)runlane_count(rl);
    ck_assert_msg(per_run <= 9.0, "%.3f bytes a run", per_run);
    rl_assert_sound(rl);
    rl_compare(rl, &m, 5, 300);
    x_free(m.r);
    runlane_free(rl);
}
END_TEST

/* Thread churn: each run a new thread (ids counting up into the millions) but for one
 * run in eight of a few long-lived low ids. The tid column keeps the new ids' spread,
 * the old ids' high bits go apart: at most 7 bytes a run where a plain frame of
 * reference over the chunk's ids needs about 9, and the answers are the brute force's. */
START_TEST(test_runlane_churn_tids)
{
    runlane *rl = runlane_new();
    rl_model m = { 0 };
    uint64_t s = 7, t = 0;
    uint32_t next = 3000000;
    for (size_t k = 0; k < 64 * 1000 + 17; k++) {
        t += 1000 + rl_rng(&s) % 4000;
        uint32_t tid = rl_rng(&s) % 8 == 0 ? 1 + (uint32_t)(rl_rng(&s) % 4) : next++;
        runlane_run run = { t, t + rl_rng(&s) % 30000, tid, (uint8_t)(1 + k % 5), 0 };
        ck_assert(runlane_append(rl, &run) && rl_model_append(&m, run));
        t = run.end_ns;
    }
    runlane_seal(rl);
    rl_assert_sound(rl);
    double per_run = (double)runlane_bytes(rl) / (double)runlane_count(rl);
    ck_assert_msg(per_run <= 7.0, "%.3f bytes a run", per_run);
    rl_compare(rl, &m, 7, 300);
    x_free(m.r);
    runlane_free(rl);
}
END_TEST

/* Tids 1 and 4,000,000 interleaved, gaps of an hour to days: more bytes, same answers. */
START_TEST(test_runlane_worst_case)
{
    runlane *rl = runlane_new();
    rl_model m = { 0 };
    uint64_t s = 99, t = 0;
    for (size_t k = 0; k < 5000; k++) {
        t += UINT64_C(3600000000000) + rl_rng(&s) % (UINT64_C(1) << 50);
        runlane_run run = { t, t + rl_rng(&s) % (UINT64_C(1) << 40), k % 2 ? 4000000 : 1,
                            (uint8_t)rl_rng(&s), 0 };
        ck_assert(runlane_append(rl, &run) && rl_model_append(&m, run));
        t = run.end_ns;
    }
    runlane_seal(rl);
    rl_assert_sound(rl);
    ck_assert_uint_le(runlane_bytes(rl), 24 * runlane_count(rl));
    rl_compare(rl, &m, 99, 300);
    x_free(m.r);
    runlane_free(rl);
}
END_TEST

/* ---- property test: every query against the brute-force model ---- */

START_TEST(test_runlane_matches_brute_force)
{
    for (uint64_t seed = 1; seed <= 300; seed++) {
        runlane *rl = runlane_new();
        rl_model m = { 0 };
        rl_random_lane(seed, seed % 7 == 0 ? seed % 5 : 1 + seed * 37 % 600, rl, &m);
        rl_assert_sound(rl);
        rl_compare(rl, &m, seed, 150);
        if (seed % 3 == 0) {
            runlane_seal(rl);
            rl_assert_sound(rl);
            rl_compare(rl, &m, seed, 20);
        }
        x_free(m.r);
        runlane_free(rl);
    }
}
END_TEST

/* Sweeps as the GC join makes them: increasing times some runs apart (a stride of 1 to
 * 40 runs: several a chunk, or chunks skipped), each asked at a time inside, at or
 * just before a run's start and then again a little later (the leader's start), so
 * the sweep jumps from checkpoint to checkpoint past runs it never unpacked; then back
 * to earlier times in the same chunk. Against the brute force. */
START_TEST(test_runlane_sweep_strides)
{
    for (uint64_t seed = 1; seed <= 24; seed++) {
        runlane *rl = runlane_new();
        rl_model m = { 0 };
        rl_random_lane(seed, 300 + seed * 53 % 400, rl, &m);
        if (seed % 2 == 0)
            runlane_seal(rl);
        size_t stride = 1 + seed * 7 % 40;
        runlane_sweep *sw = runlane_sweep_new(rl);
        uint64_t s = seed * 104729 + 3;
        for (size_t i = seed % 5; i < m.n; i += stride) {
            const runlane_run *r = &m.r[i];
            uint64_t span = r->end_ns - r->start_ns;
            uint64_t ts[4] = { r->start_ns - (r->start_ns > 0), r->start_ns,
                               r->start_ns + (span ? rl_rng(&s) % span : 0),
                               i >= 20 ? m.r[i - 20 + rl_rng(&s) % 20].start_ns : 0 };
            for (int k = (int)(rl_rng(&s) % 3); k < 4; k++) {
                uint64_t end_ns = 12345;
                size_t want = bf_last_starting_by(&m, ts[k]);
                size_t got = runlane_sweep_last_starting_by(sw, ts[k], &end_ns);
                RL_EXPECT(got == want, "seed %llu stride %zu run %zu at %llu: run %zu, want %zu",
                          (unsigned long long)seed, stride, i, (unsigned long long)ts[k], got,
                          want);
                RL_EXPECT(want == SIZE_MAX || end_ns == m.r[want].end_ns,
                          "seed %llu run %zu at %llu: end %llu", (unsigned long long)seed, i,
                          (unsigned long long)ts[k], (unsigned long long)end_ns);
            }
        }
        runlane_sweep_free(sw);
        x_free(m.r);
        runlane_free(rl);
    }
}
END_TEST

/* Every chunk shape — no runs, one, a chunk less one, exactly one, one more, several
 * and many — with wide values: unsealed (the tail in the open chunk), sealed (a short
 * last chunk packed), then appended to after seal and sealed again. */
START_TEST(test_runlane_chunk_shapes)
{
    static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 127, 128, 129, 200, 640, 1000 };
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            uint64_t tag = seed * 1000 + sizes[k];
            runlane *rl = runlane_new();
            rl_model m = { 0 };
            if (seed == 3)
                rl_realistic_lane(tag, sizes[k], rl, &m);
            else
                rl_wide_lane(tag, sizes[k], rl, &m);
            rl_assert_sound(rl);
            rl_compare(rl, &m, tag, 200);
            runlane_seal(rl);
            rl_assert_sound(rl);
            rl_compare(rl, &m, tag, 200);
            rl_wide_lane(tag + 1, sizes[(k + seed) % (sizeof sizes / sizeof sizes[0])], rl, &m);
            rl_assert_sound(rl);
            rl_compare(rl, &m, tag + 1, 200);
            runlane_seal(rl);
            rl_assert_sound(rl);
            rl_compare(rl, &m, tag + 1, 100);
            x_free(m.r);
            runlane_free(rl);
        }
    }
}
END_TEST

/* Extremes per field: a duration of 2^63 - 1, a gap of nearly 2^63, tids 0 and
 * UINT32_MAX in one chunk, stop 255 with both flags. */
START_TEST(test_runlane_wide_values)
{
    const uint64_t big = (UINT64_C(1) << 63) - 1;
    runlane *rl = runlane_new();
    ck_assert(rl_add(rl, 0, big, 0, 255, RUNLANE_F_OPEN));
    ck_assert(rl_add(rl, big - 5, big, UINT32_MAX, 255, RUNLANE_F_OPEN));  /* clipped */
    ck_assert(rl_add(rl, UINT64_MAX - 3, UINT64_MAX - 1, 7, 0, 0));
    ck_assert(rl_add(rl, UINT64_MAX, UINT64_MAX, UINT32_MAX, 1, 0));
    for (int sealed = 0; sealed < 2; sealed++) {
        runlane_run g;
        runlane_get(rl, 0, &g);
        ck_assert_uint_eq(g.end_ns, big);
        ck_assert_uint_eq(g.tid, 0);
        ck_assert_uint_eq(g.stop, 255);
        ck_assert_uint_eq(g.flags, RUNLANE_F_OPEN);
        runlane_get(rl, 1, &g);
        ck_assert_uint_eq(g.start_ns, big);
        ck_assert_uint_eq(g.end_ns, big);
        ck_assert_uint_eq(g.tid, UINT32_MAX);
        ck_assert_uint_eq(g.flags, RUNLANE_F_OPEN | RUNLANE_F_CLIPPED);
        runlane_get(rl, 3, &g);
        ck_assert_uint_eq(g.start_ns, UINT64_MAX);
        ck_assert_uint_eq(g.tid, UINT32_MAX);
        ck_assert_uint_eq(runlane_busy_ns(rl, 0, UINT64_MAX), big + 2);
        ck_assert_uint_eq(runlane_busy_ns(rl, 1, UINT64_MAX - 2), big - 1 + 1);
        ck_assert_uint_eq(runlane_prefix_ns(rl, 3), big + 2);
        ck_assert_uint_eq(runlane_first_after(rl, big), 1);     /* the instant at big */
        ck_assert_uint_eq(runlane_last_starting_by(rl, UINT64_MAX - 1), 2);
        ck_assert_uint_eq(runlane_count_in(rl, big - 1, UINT64_MAX), 3);
        rl_assert_sound(rl);
        runlane_seal(rl);
    }
    runlane_free(rl);
}
END_TEST

/* ---- the checker catches damage ---- */

/* A lane of three packed chunks and 20 runs in the open one, with long runs and no
 * zero-length runs. */
static runlane *
rl_victim(void)
{
    runlane *rl = runlane_new();
    uint64_t t = 0;
    for (uint32_t k = 0; k < 3 * RUNLANE_CHUNK + 20; k++) {
        uint64_t d = k % 50 == 7 ? UINT64_C(5000000000) : 100 + k;
        ck_assert(rl_add(rl, t, t + d, 1000 + k % 37, (uint8_t)k, 0));
        t += d + (k % 3 == 0 ? 0 : 17);
    }
    rl_assert_sound(rl);
    return rl;
}

START_TEST(test_runlane_check_detects_damage)
{
    static const struct {
        runlane_corrupt what;
        size_t at;
        const char *says;
    } cases[] = {
        { RUNLANE_CORRUPT_ORDER, 70, "before run" },
        { RUNLANE_CORRUPT_ORDER, 128, "before run" },     /* a chunk's first run */
        { RUNLANE_CORRUPT_ORDER, 200, "before run" },     /* in the open chunk */
        { RUNLANE_CORRUPT_PREFIX, 130, "prefix" },
        { RUNLANE_CORRUPT_PREFIX, 0, "prefix" },
        { RUNLANE_CORRUPT_PREFIX, 195, "open chunk: prefix" },
        { RUNLANE_CORRUPT_BASE, 100, "base" },
        { RUNLANE_CORRUPT_FLAGS, 0, "clipped" },
        { RUNLANE_CORRUPT_FLAGS, 2, "clipped" },
        { RUNLANE_CORRUPT_FLAGS, 197, "clipped" },
        { RUNLANE_CORRUPT_TOTAL, 0, "total" },
        { RUNLANE_CORRUPT_WIDTH, 5, "widths" },
        { RUNLANE_CORRUPT_WIDTH, 150, "widths" },         /* the last packed chunk */
        { RUNLANE_CORRUPT_CHECKPOINT, 70, "checkpoint" },
        { RUNLANE_CORRUPT_TIDMIN, 30, "tid_min" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        runlane *rl = rl_victim();
        ck_assert_msg(runlane_test_corrupt(rl, cases[k].what, cases[k].at), "case %zu", k);
        char why[256] = "";
        ck_assert_msg(!runlane_check(rl, why, sizeof why), "case %zu not detected", k);
        ck_assert_msg(strstr(why, cases[k].says), "case %zu: %s", k, why);
        if (cases[k].what == RUNLANE_CORRUPT_TIDMIN) {
            /* Only the canonical form is broken: the damaged lane still answers. */
            runlane *ok = rl_victim();
            for (size_t j = 0; j < runlane_count(ok); j++) {
                runlane_run a, b;
                runlane_get(ok, j, &a);
                runlane_get(rl, j, &b);
                ck_assert(a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.tid == b.tid &&
                          a.stop == b.stop && a.flags == b.flags);
                ck_assert_uint_eq(runlane_prefix_ns(ok, j), runlane_prefix_ns(rl, j));
            }
            runlane_free(ok);
        }
        runlane_free(rl);
    }
    /* Damage that has nothing to act on is refused, not faked. */
    runlane *rl = rl_victim();
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_ORDER, 0));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_FLAGS, 1));   /* run 1 touches run 0 */
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_PREFIX, 100000));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_BASE, 0));    /* base 0 */
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_BASE, 200));  /* open: no header */
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_WIDTH, 200));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_TIDMIN, 200));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_CHECKPOINT, 200));
    rl_assert_sound(rl);
    runlane_free(rl);
    /* A chunk of equal tids from 0 has no tid_min below it; equal zero-length runs have
     * no duration width to shrink and no checkpoints. */
    rl = runlane_new();
    for (size_t k = 0; k < RUNLANE_CHUNK; k++)
        ck_assert(rl_add(rl, 5, 5, 0, 0, 0));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_TIDMIN, 3));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_WIDTH, 3));
    ck_assert(!runlane_test_corrupt(rl, RUNLANE_CORRUPT_CHECKPOINT, 3));
    rl_assert_sound(rl);
    runlane_free(rl);
}
END_TEST

Suite *
test_runlane_suite(void)
{
    Suite *s = suite_create("runlane");
    TCase *tc = tcase_create("unit");
    tcase_add_test(tc, test_runlane_empty);
    tcase_add_test(tc, test_runlane_single_boundaries);
    tcase_add_test(tc, test_runlane_zero_length);
    tcase_add_test(tc, test_runlane_clip_and_drop);
    tcase_add_test(tc, test_runlane_long_runs);
    tcase_add_test(tc, test_runlane_long_gaps);
    tcase_add_test(tc, test_runlane_full_chunks);
    tcase_add_test(tc, test_runlane_busy_upto_many);
    tcase_add_test(tc, test_runlane_busy_upto_many_gaps);
    tcase_add_test(tc, test_runlane_busy_upto_many_any_order);
    tcase_add_test(tc, test_runlane_busy_bounds_many);
    tcase_add_test(tc, test_runlane_busy_bounds_near);
    tcase_add_test(tc, test_runlane_near_uint64_max);
    tcase_add_test(tc, test_runlane_stop_values);
    tcase_add_test(tc, test_runlane_seal_then_append);
    tcase_add_test(tc, test_runlane_wide_values);
    tcase_add_test(tc, test_runlane_check_detects_damage);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("property");
    tcase_set_timeout(tp, 60);
    tcase_add_test(tp, test_runlane_matches_brute_force);
    tcase_add_test(tp, test_runlane_chunk_shapes);
    tcase_add_test(tp, test_runlane_sweep_strides);
    tcase_add_test(tp, test_runlane_compact);
    tcase_add_test(tp, test_runlane_realistic_size);
    tcase_add_test(tp, test_runlane_worst_case);
    tcase_add_test(tp, test_runlane_churn_tids);
    suite_add_tcase(s, tp);
    return s;
}
