/* tests/test_ivtrack: kinded interval tracks — edge cases (empty, rejected kinds,
 * clipping, zero-length intervals, extremes), per-kind time and the other queries
 * against a brute-force array on seeded random tracks and around chunk edges, the
 * join's sweep setting refs span by span, the memory per interval, and the checker
 * catching damage. */
#include <stdlib.h>
#include <string.h>

#include "ivtrack.h"
#include "tests.h"
#include "xalloc.h"

/* A passing ck_assert records a checkpoint with the runner; the comparison loops
 * test first and only then fail. */
#define IV_EXPECT(cond, ...)                                                              \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

static uint64_t
iv_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint64_t
iv_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void
iv_assert_sound(const ivtrack *tr)
{
    char why[256] = "";
    ck_assert_msg(ivtrack_check(tr, why, sizeof why), "ivtrack_check: %s", why);
}

static bool
iv_add(ivtrack *tr, uint64_t start, uint64_t end, uint8_t kind, uint8_t flags)
{
    ivtrack_iv v = { start, end, UINT32_MAX, kind, flags };
    return ivtrack_append(tr, &v);
}

/* ---- brute-force model ---- */

typedef struct iv_model {
    ivtrack_iv *v;              /* owned */
    size_t n, cap;
} iv_model;

static bool
iv_model_append(iv_model *m, ivtrack_iv v)
{
    if (v.kind >= IVTRACK_KINDS)
        return false;
    v.flags &= IVTRACK_F_OPEN;
    if (m->n > 0 && v.start_ns < m->v[m->n - 1].end_ns) {
        v.start_ns = m->v[m->n - 1].end_ns;
        v.flags |= IVTRACK_F_CLIPPED;
    }
    if (v.end_ns < v.start_ns)
        return false;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 32;
        m->v = xreallocarray(m->v, m->cap, sizeof *m->v);
    }
    m->v[m->n++] = v;
    return true;
}

static uint64_t
bf_kind_ns(const iv_model *m, unsigned kind, uint64_t t0, uint64_t t1)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < m->n && t0 < t1; i++) {
        if (m->v[i].kind != kind)
            continue;
        uint64_t s = m->v[i].start_ns > t0 ? m->v[i].start_ns : t0;
        uint64_t e = m->v[i].end_ns < t1 ? m->v[i].end_ns : t1;
        if (e > s)
            sum += e - s;
    }
    return sum;
}

static size_t
bf_count_in(const iv_model *m, uint64_t t0, uint64_t t1)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n && t0 < t1; i++) {
        uint64_t s = m->v[i].start_ns, e = m->v[i].end_ns;
        if (s == e ? (t0 <= s && s < t1) : (s < t1 && e > t0))
            k++;
    }
    return k;
}

static size_t
bf_first_after(const iv_model *m, uint64_t t)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].end_ns > t || m->v[i].start_ns == t)
            return i;
    return m->n;
}

static size_t
bf_last_starting_by(const iv_model *m, uint64_t t)
{
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].start_ns <= t)
            k = i;
    return k;
}

static void
iv_random_track(uint64_t seed, size_t n_in, ivtrack *tr, iv_model *m)
{
    uint64_t s = seed * 0xD1B54A32D192ED03u + 3;
    static const uint64_t bases[] = { 0, 5000, UINT64_MAX - (UINT64_C(1) << 36),
                                      UINT64_MAX - 300 };
    uint64_t clock = bases[seed % 4];
    for (size_t k = 0; k < n_in; k++) {
        uint64_t r = iv_rng(&s) % 100, start;
        if (r < 50)
            start = iv_sat_add(clock, iv_rng(&s) % 2000);
        else if (r < 65)
            start = clock;
        else if (r < 85)
            start = clock - (clock < 300 ? clock : iv_rng(&s) % 300);
        else
            start = iv_sat_add(clock, UINT64_C(1) << (20 + iv_rng(&s) % 20));
        uint64_t d = iv_rng(&s) % 100, end;
        if (d < 15)
            end = start;
        else if (d < 90)
            end = iv_sat_add(start, 1 + iv_rng(&s) % 3000);
        else if (d < 95)
            end = iv_sat_add(start, UINT64_C(1) << (30 + iv_rng(&s) % 10));
        else
            end = start - (start < 50 ? start : 1 + iv_rng(&s) % 50);
        uint8_t kind = iv_rng(&s) % 25 == 0 ? (uint8_t)(IVTRACK_KINDS + iv_rng(&s) % 250)
                                            : (uint8_t)(iv_rng(&s) % IVTRACK_KINDS);
        /* A third with no ref: runs of none inside the refs held and after them. */
        uint32_t ref = iv_rng(&s) % 3 == 0 ? UINT32_MAX : (uint32_t)iv_rng(&s);
        ivtrack_iv v = { start, end, ref, kind, (uint8_t)(iv_rng(&s) % 4) };
        bool kept = ivtrack_append(tr, &v);
        IV_EXPECT(kept == iv_model_append(m, v), "seed %llu input %zu: kept %d",
                  (unsigned long long)seed, k, kept);
        if (kept)
            clock = m->v[m->n - 1].end_ns;
    }
}

static uint64_t
iv_pick_time(const iv_model *m, uint64_t *s)
{
    uint64_t r = iv_rng(s) % 10;
    if (m->n == 0 || r == 0)
        return (uint64_t[]){ 0, 1, UINT64_MAX - 1, UINT64_MAX }[iv_rng(s) % 4];
    const ivtrack_iv *v = &m->v[iv_rng(s) % m->n];
    if (r < 8) {
        uint64_t t = iv_rng(s) % 2 ? v->start_ns : v->end_ns;
        int delta = (int)(iv_rng(s) % 3) - 1;
        if (delta < 0 && t > 0)
            t--;
        else if (delta > 0 && t < UINT64_MAX)
            t++;
        return t;
    }
    uint64_t lo = m->v[0].start_ns, hi = m->v[m->n - 1].end_ns;
    return hi > lo ? lo + iv_rng(s) % (hi - lo) : lo;
}

static void
iv_compare(const ivtrack *tr, const iv_model *m, uint64_t seed, int n_queries)
{
    IV_EXPECT(ivtrack_count(tr) == m->n, "seed %llu count", (unsigned long long)seed);
    for (size_t i = 0; i < m->n; i++) {
        ivtrack_iv g_buf;
        const ivtrack_iv *g = ivtrack_get(tr, i, &g_buf), *w = &m->v[i];
        IV_EXPECT(g != NULL, "seed %llu interval %zu missing", (unsigned long long)seed, i);
        IV_EXPECT(g->start_ns == w->start_ns && g->end_ns == w->end_ns &&
                          g->ref == w->ref && g->kind == w->kind && g->flags == w->flags,
                      "seed %llu interval %zu", (unsigned long long)seed, i);
    }
    ck_assert_ptr_null(ivtrack_get(tr, m->n, &(ivtrack_iv){ 0 }));
    uint64_t s = seed + 999;
    size_t hint = 0;
    for (int q = 0; q < n_queries; q++) {
        uint64_t t0 = iv_pick_time(m, &s), t1 = iv_pick_time(m, &s);
        if (iv_rng(&s) % 4 != 0 && t0 > t1) {
            uint64_t tmp = t0;
            t0 = t1;
            t1 = tmp;
        }
        for (unsigned k = 0; k <= IVTRACK_KINDS; k++)
            IV_EXPECT(ivtrack_kind_ns(tr, k, t0, t1) == bf_kind_ns(m, k, t0, t1),
                          "seed %llu kind %u [%llu,%llu): %llu want %llu",
                          (unsigned long long)seed, k, (unsigned long long)t0,
                          (unsigned long long)t1,
                          (unsigned long long)ivtrack_kind_ns(tr, k, t0, t1),
                          (unsigned long long)bf_kind_ns(m, k, t0, t1));
        IV_EXPECT(ivtrack_count_in(tr, t0, t1) == bf_count_in(m, t0, t1),
                      "seed %llu count_in [%llu,%llu)", (unsigned long long)seed,
                      (unsigned long long)t0, (unsigned long long)t1);
        size_t about = ivtrack_count_in_about(tr, t0, t1), want = bf_count_in(m, t0, t1);
        IV_EXPECT(about >= want && about <= want + 2 * IVTRACK_CHUNK,
                      "seed %llu count_in_about [%llu,%llu): %zu, count %zu",
                      (unsigned long long)seed, (unsigned long long)t0, (unsigned long long)t1,
                      about, want);
        IV_EXPECT(ivtrack_first_after(tr, t0) == bf_first_after(m, t0),
                  "seed %llu first_after %llu", (unsigned long long)seed,
                  (unsigned long long)t0);
        IV_EXPECT(ivtrack_last_starting_by(tr, t0) == bf_last_starting_by(m, t0),
                  "seed %llu last_starting_by %llu", (unsigned long long)seed,
                  (unsigned long long)t0);
        IV_EXPECT(ivtrack_first_after_near(tr, t0, &hint) == bf_first_after(m, t0),
                  "seed %llu first_after_near %llu (random order)", (unsigned long long)seed,
                  (unsigned long long)t0);
    }
    /* A sweep in increasing time over every start and end, with the nanosecond before
     * each, carrying one hint (the GC join's use). */
    hint = 0;
    for (size_t i = 0; i < 4 * m->n; i++) {
        const ivtrack_iv *v = &m->v[i / 4];
        uint64_t t = i % 4 < 2 ? v->start_ns : v->end_ns;
        if (i % 2 == 0 && t > 0)
            t--;
        IV_EXPECT(ivtrack_first_after_near(tr, t, &hint) == bf_first_after(m, t),
                  "seed %llu first_after_near %llu (sweep)", (unsigned long long)seed,
                  (unsigned long long)t);
    }
}

/* ---- unit tests ---- */

START_TEST(test_ivtrack_empty)
{
    ivtrack *tr = ivtrack_new();
    ck_assert_uint_eq(ivtrack_count(tr), 0);
    ck_assert_ptr_null(ivtrack_get(tr, 0, &(ivtrack_iv){ 0 }));
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 0, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(ivtrack_count_in(tr, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(ivtrack_first_after(tr, 5), 0);
    ck_assert_uint_eq(ivtrack_last_starting_by(tr, UINT64_MAX), SIZE_MAX);
    ivtrack_set_ref(tr, 0, 5);                  /* out of range: ignored */
    iv_assert_sound(tr);
    ivtrack_seal(tr);
    iv_assert_sound(tr);
    ck_assert_uint_gt(ivtrack_bytes(tr), 0);
    ivtrack_free(tr);
    ivtrack_free(NULL);
}
END_TEST

START_TEST(test_ivtrack_kinds_and_boundaries)
{
    ivtrack *tr = ivtrack_new();
    ck_assert(!iv_add(tr, 0, 10, IVTRACK_KINDS, 0));      /* kind out of range */
    ck_assert(iv_add(tr, 100, 200, 0, IVTRACK_F_OPEN));
    ck_assert(iv_add(tr, 200, 260, 1, 0));
    ck_assert(iv_add(tr, 300, 300, 2, 0));
    ck_assert(iv_add(tr, 300, 400, 0, 0));
    ck_assert_uint_eq(ivtrack_count(tr), 4);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 0, 0, UINT64_MAX), 200);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, 0, UINT64_MAX), 60);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 2, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 3, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, IVTRACK_KINDS, 0, UINT64_MAX), 0);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 0, 150, 350), 100);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, 150, 350), 60);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 0, 199, 201), 1);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, 199, 201), 1);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 0, 350, 150), 0);
    ck_assert_uint_eq(ivtrack_count_in(tr, 200, 300), 1);
    ck_assert_uint_eq(ivtrack_count_in(tr, 199, 300), 2);
    ck_assert_uint_eq(ivtrack_count_in(tr, 300, 301), 2);       /* the instant and the next */
    ck_assert_uint_eq(ivtrack_count_in(tr, 260, 300), 0);
    ck_assert_uint_eq(ivtrack_count_in(tr, 300, 300), 0);
    ck_assert_uint_eq(ivtrack_first_after(tr, 260), 2);
    ck_assert_uint_eq(ivtrack_first_after(tr, 300), 2);
    ck_assert_uint_eq(ivtrack_first_after(tr, 301), 3);
    ck_assert_uint_eq(ivtrack_first_after(tr, 400), 4);
    ck_assert_uint_eq(ivtrack_last_starting_by(tr, 299), 1);
    ck_assert_uint_eq(ivtrack_last_starting_by(tr, 300), 3);
    ck_assert_uint_eq(ivtrack_get(tr, 0, &(ivtrack_iv){ 0 })->flags, IVTRACK_F_OPEN);
    ck_assert_uint_eq(ivtrack_get(tr, 0, &(ivtrack_iv){ 0 })->ref, UINT32_MAX);
    ivtrack_set_ref(tr, 2, 42);
    ck_assert_uint_eq(ivtrack_get(tr, 2, &(ivtrack_iv){ 0 })->ref, 42);
    iv_assert_sound(tr);
    ivtrack_free(tr);
}
END_TEST

START_TEST(test_ivtrack_clip_and_drop)
{
    ivtrack *tr = ivtrack_new();
    ck_assert(!iv_add(tr, 50, 40, 0, 0));
    ck_assert(iv_add(tr, 0, 100, 0, IVTRACK_F_CLIPPED));
    ck_assert(iv_add(tr, 60, 120, 1, IVTRACK_F_OPEN | 0x40));
    ck_assert(!iv_add(tr, 70, 110, 2, 0));
    ck_assert(iv_add(tr, 0, 120, 3, 0));
    ck_assert_uint_eq(ivtrack_count(tr), 3);
    ck_assert_uint_eq(ivtrack_get(tr, 0, &(ivtrack_iv){ 0 })->flags, 0);
    ck_assert_uint_eq(ivtrack_get(tr, 1, &(ivtrack_iv){ 0 })->start_ns, 100);
    ck_assert_uint_eq(ivtrack_get(tr, 1, &(ivtrack_iv){ 0 })->flags,
                      IVTRACK_F_OPEN | IVTRACK_F_CLIPPED);
    ck_assert_uint_eq(ivtrack_get(tr, 2, &(ivtrack_iv){ 0 })->start_ns, 120);
    ck_assert_uint_eq(ivtrack_get(tr, 2, &(ivtrack_iv){ 0 })->end_ns, 120);
    ck_assert_uint_eq(ivtrack_get(tr, 2, &(ivtrack_iv){ 0 })->flags, IVTRACK_F_CLIPPED);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, 0, 1000), 20);
    iv_assert_sound(tr);
    ivtrack_free(tr);
}
END_TEST

START_TEST(test_ivtrack_extremes)
{
    ivtrack *tr = ivtrack_new();
    ck_assert(iv_add(tr, 0, UINT64_MAX - 1, 1, 0));
    ck_assert(iv_add(tr, UINT64_MAX, UINT64_MAX, 2, 0));
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, 0, UINT64_MAX), UINT64_MAX - 1);
    ck_assert_uint_eq(ivtrack_kind_ns(tr, 1, UINT64_MAX - 2, UINT64_MAX), 1);
    ck_assert_uint_eq(ivtrack_count_in(tr, 0, UINT64_MAX), 1);
    ck_assert_uint_eq(ivtrack_first_after(tr, UINT64_MAX - 1), 1);
    ck_assert_uint_eq(ivtrack_first_after(tr, UINT64_MAX), 1);
    ck_assert_uint_eq(ivtrack_last_starting_by(tr, UINT64_MAX), 1);
    iv_assert_sound(tr);
    ivtrack_free(tr);
}
END_TEST

START_TEST(test_ivtrack_matches_brute_force)
{
    for (uint64_t seed = 1; seed <= 300; seed++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_random_track(seed, seed % 9 == 0 ? seed % 4 : 1 + seed * 13 % 300, tr, &m);
        iv_assert_sound(tr);
        iv_compare(tr, &m, seed, 100);
        if (seed % 2 == 0) {
            ivtrack_seal(tr);
            iv_assert_sound(tr);
            iv_random_track(seed + 1000, 20, tr, &m);   /* appends after a seal */
            iv_assert_sound(tr);
            iv_compare(tr, &m, seed, 30);
        }
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* The sweep over ascending times equals, kind by kind, a direct sum over the model's
 * intervals, for steps from none to many chunks, and the same step several times over
 * (the chunk search's guess) then another. */
START_TEST(test_ivtrack_kinds_upto_many)
{
    enum { N_T = 400 };
    for (uint64_t seed = 1; seed <= 20; seed++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_random_track(seed, 50 + seed * 97 % 2000, tr, &m);
        uint64_t last = m.n ? m.v[m.n - 1].end_ns + 10 : 10;
        uint64_t t[N_T], got[N_T * IVTRACK_KINDS], s = seed, now = 0, step = 0;
        for (size_t k = 0; k < N_T; k++) {
            uint64_t r = iv_rng(&s);
            /* Runs of one step (the chunk search guesses from the last step) among
             * steps of every size. */
            step = r % 5 == 0 ? 0 : r % 5 == 1 ? r % 50 : r % 5 == 2 ? step
                 : (r >> 8) % (last / 40 + 1);
            now += step;
            t[k] = now;
        }
        ivtrack_kinds_upto_many(tr, t, N_T, got);
        for (size_t k = 0; k < N_T; k++)
            for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++) {
                uint64_t want = 0;
                for (size_t i = 0; i < m.n; i++) {
                    const ivtrack_iv *v = &m.v[i];
                    uint64_t e = v->end_ns < t[k] ? v->end_ns : t[k];
                    want += v->kind == kind && e > v->start_ns ? e - v->start_ns : 0;
                }
                if (got[k * IVTRACK_KINDS + kind] != want)
                    ck_abort_msg("seed %llu t %llu kind %u: %llu, want %llu",
                                 (unsigned long long)seed, (unsigned long long)t[k], kind,
                                 (unsigned long long)got[k * IVTRACK_KINDS + kind],
                                 (unsigned long long)want);
            }
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* ivtrack_kinds_upto_many's sweep goes on from its last answer's interval when the next
 * time is in the same chunk a few intervals on, and searches when it is far: against the
 * brute force for times at interval starts, ends (ties), inside and just off them, moving
 * on by none to a chunk of intervals (both sides of the walk's reach), going back, and
 * crossing chunk edges into the open (unpacked) last chunk; on tracks of abutting phases
 * (the packed chunks' non-tails), gaps (tails) and zero-length ones. */
START_TEST(test_ivtrack_kinds_upto_many_near)
{
    enum { N_T = 700 };
    static const int steps[] = { 0, 1, 1, 2, 3, 5, 8, 13, 19, 20, 21, 25, 40, 63, 64, 70, -1,
                                 -4, -30 };
    for (uint64_t seed = 1; seed <= 6; seed++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        uint64_t s = seed * 31 + 7, clock = 1000;
        size_t n_iv = 5 * IVTRACK_CHUNK + seed * 9;         /* a partial last chunk */
        for (size_t k = 0; k < n_iv; k++) {
            uint64_t r = iv_rng(&s) % 8;
            uint64_t start = clock + (seed % 2 && r == 0 ? 1 + iv_rng(&s) % 50 : 0);
            uint64_t end = start + (r == 1 ? 0 : 1 + iv_rng(&s) % (seed < 4 ? 40 : 4000));
            ivtrack_iv v = { start, end, UINT32_MAX, (uint8_t)(iv_rng(&s) % IVTRACK_KINDS),
                             0 };
            ck_assert(ivtrack_append(tr, &v));
            ck_assert(iv_model_append(&m, v));
            clock = end;
        }
        if (seed % 3 == 0)
            ivtrack_seal(tr);
        uint64_t t[N_T], got[N_T * IVTRACK_KINDS];
        size_t i = 0;
        for (size_t q = 0; q < N_T; q++) {
            uint64_t r = iv_rng(&s);
            int st = steps[r % (sizeof steps / sizeof steps[0])];
            i = st < 0 && (size_t)-st > i ? 0 : (size_t)((long)i + st);
            if (i >= m.n)
                i = (r >> 8) % m.n;                         /* back into the track */
            const ivtrack_iv *v = &m.v[i];
            switch ((r >> 16) % 5) {
            case 0: t[q] = v->start_ns; break;
            case 1: t[q] = v->end_ns; break;
            case 2: t[q] = v->start_ns + (v->end_ns - v->start_ns) / 2; break;
            case 3: t[q] = v->start_ns - 1; break;
            default: t[q] = v->end_ns + 1; break;
            }
        }
        ivtrack_kinds_upto_many(tr, t, N_T, got);
        for (size_t q = 0; q < N_T; q++)
            for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++) {
                uint64_t want = bf_kind_ns(&m, kind, 0, t[q]);
                IV_EXPECT(got[q * IVTRACK_KINDS + kind] == want,
                          "seed %llu time %zu (%llu) kind %u: %llu, want %llu",
                          (unsigned long long)seed, q, (unsigned long long)t[q], kind,
                          (unsigned long long)got[q * IVTRACK_KINDS + kind],
                          (unsigned long long)want);
            }
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* A chunk whose start offsets or tails' durations need more than 57 bits (a gap or a
 * phase of 2^58 ns) marks its track wide: the sweeps then read every field by the general
 * read. Both sweeps against the brute force over such a track, at every start, end and
 * middle, and the checker content with it. */
START_TEST(test_ivtrack_kinds_wide)
{
    enum { N = 3 * IVTRACK_CHUNK + 10 };
    ivtrack *tr = ivtrack_new();
    iv_model m = { 0 };
    uint64_t s = 5, clock = 100;
    for (size_t k = 0; k < N; k++) {
        uint64_t start = clock + (k == 20 || k == IVTRACK_CHUNK + 30 ? UINT64_C(1) << 58
                                  : iv_rng(&s) % 3 == 0 ? 1 + iv_rng(&s) % 100 : 0);
        uint64_t end = start + (k == 2 * IVTRACK_CHUNK + 40 ? (UINT64_C(1) << 58) + 7
                                : iv_rng(&s) % 500);
        ivtrack_iv v = { start, end, UINT32_MAX, (uint8_t)(iv_rng(&s) % IVTRACK_KINDS), 0 };
        ck_assert(ivtrack_append(tr, &v));
        ck_assert(iv_model_append(&m, v));
        clock = end;
    }
    iv_assert_sound(tr);
    uint64_t t[3 * N + 1], got[(3 * N + 1) * IVTRACK_KINDS];
    t[0] = 50;
    for (size_t i = 0; i < N; i++) {
        t[3 * i + 1] = m.v[i].start_ns;
        t[3 * i + 2] = m.v[i].start_ns + (m.v[i].end_ns - m.v[i].start_ns) / 2;
        t[3 * i + 3] = m.v[i].end_ns;
    }
    ivtrack_kinds_upto_many(tr, t, 3 * N + 1, got);
    for (size_t q = 0; q < 3 * N + 1; q++)
        for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++)
            IV_EXPECT(got[q * IVTRACK_KINDS + kind] == bf_kind_ns(&m, kind, 0, t[q]),
                      "upto_many t %zu kind %u: %llu want %llu", q, kind,
                      (unsigned long long)got[q * IVTRACK_KINDS + kind],
                      (unsigned long long)bf_kind_ns(&m, kind, 0, t[q]));
    ivtrack_kinds_walk(tr, t + 10, 3 * N - 9, got);
    for (size_t q = 0; q < 3 * N - 9; q++)
        for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++)
            IV_EXPECT(got[q * IVTRACK_KINDS + kind] == bf_kind_ns(&m, kind, t[10], t[10 + q]),
                      "walk t %zu kind %u: %llu want %llu", q, kind,
                      (unsigned long long)got[q * IVTRACK_KINDS + kind],
                      (unsigned long long)bf_kind_ns(&m, kind, t[10], t[10 + q]));
    x_free(m.v);
    ivtrack_free(tr);
}
END_TEST

/* ivtrack_kinds_walk against the brute force: the time of each kind from t[0] to each
 * t[m], over tracks with gaps, abutting phases (the packed chunks' non-tails), zero-length
 * and clipped intervals and a partial last chunk, from times before, inside and past it. */
START_TEST(test_ivtrack_kinds_walk)
{
    enum { N_T = 150 };
    for (uint64_t seed = 1; seed <= 16; seed++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_random_track(seed, 50 + seed * 131 % 1500, tr, &m);
        if (seed % 2)
            ivtrack_pack_refs(tr);
        uint64_t t[N_T], got[N_T * IVTRACK_KINDS], s = seed * 7 + 1;
        uint64_t last = m.n ? m.v[m.n - 1].end_ns : 0;
        uint64_t now = seed % 3 == 0 ? 0 : iv_pick_time(&m, &s);
        for (size_t k = 0; k < N_T; k++) {
            uint64_t r = iv_rng(&s);
            uint64_t step = r % 4 == 0 ? 0 : r % 4 == 1 ? r % 50 : (r >> 8) % (last / 60 + 1);
            now = iv_sat_add(now, step);
            t[k] = now;
        }
        ivtrack_kinds_walk(tr, t, N_T, got);
        for (size_t k = 0; k < N_T; k++)
            for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++) {
                uint64_t want = bf_kind_ns(&m, kind, t[0], t[k]);
                IV_EXPECT(got[k * IVTRACK_KINDS + kind] == want,
                          "seed %llu [%llu, %llu) kind %u: %llu, want %llu",
                          (unsigned long long)seed, (unsigned long long)t[0],
                          (unsigned long long)t[k], kind,
                          (unsigned long long)got[k * IVTRACK_KINDS + kind],
                          (unsigned long long)want);
            }
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* Track of exactly n intervals, every one kept: mixed kinds, gaps, zero-length ones and
 * ones clipped by their predecessor. */
static void
iv_chunk_track(size_t n, uint64_t seed, ivtrack *tr, iv_model *m)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15u + 1, clock = 1000;
    for (size_t k = 0; k < n; k++) {
        uint64_t r = iv_rng(&s) % 8, start = clock + iv_rng(&s) % 500;
        uint64_t end = start + 1 + iv_rng(&s) % 1000;
        if (r == 0)
            end = start;                        /* zero-length */
        else if (r == 1 && k > 0)
            start = clock - 1 - iv_rng(&s) % 200;   /* clipped to clock */
        ivtrack_iv v = { start, end, (uint32_t)k, (uint8_t)(iv_rng(&s) % IVTRACK_KINDS), 0 };
        ck_assert(ivtrack_append(tr, &v));
        ck_assert(iv_model_append(m, v));
        clock = m->v[m->n - 1].end_ns;
    }
    ck_assert_uint_eq(ivtrack_count(tr), n);
}

/* Times near interval i: before, at and inside it, at and after its end. */
static void
iv_times_near(const iv_model *m, size_t i, uint64_t out[5])
{
    const ivtrack_iv *v = &m->v[i];
    out[0] = v->start_ns - 1;
    out[1] = v->start_ns;
    out[2] = v->start_ns + (v->end_ns - v->start_ns) / 2;
    out[3] = v->end_ns;
    out[4] = v->end_ns + 1;
}

static void
iv_check_window(const ivtrack *tr, const iv_model *m, uint64_t t0, uint64_t t1)
{
    for (unsigned k = 0; k < IVTRACK_KINDS; k++)
        IV_EXPECT(ivtrack_kind_ns(tr, k, t0, t1) == bf_kind_ns(m, k, t0, t1),
                  "n %zu kind %u [%llu,%llu): %llu want %llu", m->n, k,
                  (unsigned long long)t0, (unsigned long long)t1,
                  (unsigned long long)ivtrack_kind_ns(tr, k, t0, t1),
                  (unsigned long long)bf_kind_ns(m, k, t0, t1));
    IV_EXPECT(ivtrack_count_in(tr, t0, t1) == bf_count_in(m, t0, t1),
              "n %zu count_in [%llu,%llu)", m->n, (unsigned long long)t0,
              (unsigned long long)t1);
    IV_EXPECT(ivtrack_first_after(tr, t0) == bf_first_after(m, t0), "n %zu first_after %llu",
              m->n, (unsigned long long)t0);
    IV_EXPECT(ivtrack_last_starting_by(tr, t1) == bf_last_starting_by(m, t1),
              "n %zu last_starting_by %llu", m->n, (unsigned long long)t1);
}

/* Queries with ends near interval indices chosen around chunk edges, so their ends fall
 * in the same chunk, in adjacent chunks and in far apart chunks, nearer either edge. */
static void
iv_check_chunk_edges(const ivtrack *tr, const iv_model *m)
{
    enum { C = IVTRACK_CHUNK };
    size_t at[40], n_at = 0;
    /* Each chunk edge, each side of the middle word's reach (a quarter in from either
     * edge) and of the middle itself. */
    static const size_t offs[] = { 0, 1, C / 4 + 1, C / 2 - 1, C / 2 + 1, 3 * C / 4, C - 1 };
    size_t chunks = (m->n + C - 1) / C;
    size_t picks[] = { 0, 1, 2, chunks / 2, chunks > 2 ? chunks - 2 : 0, chunks - 1 };
    for (size_t p = 0; p < sizeof picks / sizeof picks[0] && m->n > 0; p++)
        for (size_t o = 0; o < sizeof offs / sizeof offs[0] && n_at < 40; o++) {
            size_t i = picks[p] * C + offs[o];
            if (i < m->n && (n_at == 0 || at[n_at - 1] < i))
                at[n_at++] = i;
        }
    if (m->n > 0 && at[n_at - 1] != m->n - 1 && n_at < 40)
        at[n_at++] = m->n - 1;
    for (size_t a = 0; a < n_at; a++)
        for (size_t b = a; b < n_at; b++) {
            uint64_t ta[5], tb[5];
            iv_times_near(m, at[a], ta);
            iv_times_near(m, at[b], tb);
            for (int x = 0; x < 5; x++)
                for (int y = 0; y < 5; y++)
                    iv_check_window(tr, m, ta[x], tb[y]);
        }
    iv_check_window(tr, m, 0, UINT64_MAX);
}

START_TEST(test_ivtrack_chunk_edges)
{
    enum { C = IVTRACK_CHUNK };
    static const size_t sizes[] = { 0, 1, 2, C - 1, C, C + 1, 2 * C - 1, 2 * C, 2 * C + 1,
                                    3 * C, 7 * C + 5, 12 * C };
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_chunk_track(sizes[z], z + 1, tr, &m);
        iv_assert_sound(tr);
        iv_check_chunk_edges(tr, &m);
        iv_compare(tr, &m, z, 200);
        ivtrack_seal(tr);
        iv_assert_sound(tr);
        iv_check_chunk_edges(tr, &m);
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* A packed chunk's middle word (the time of each kind in its first half) in each of its
 * forms: two kinds of GC-like phases, one kind, no time at all, times at the widest it
 * holds (two kinds of 27 bits fill the word) and one bit wider (it holds none: sums start
 * from the chunk's edges), and four kinds of huge times. Every window near the chunk
 * edges, the middle and the quarters, and a sweep over every start, middle and end,
 * against the brute force. */
START_TEST(test_ivtrack_middle_word)
{
    enum { C = IVTRACK_CHUNK, N = 4 * C + 9 };
    static const struct {
        uint64_t dur_lo, dur_span;              /* an interval's length: lo + rng % span */
        unsigned kinds;                         /* kinds used, from 0 */
        uint64_t gap_every;                     /* a gap before every gap_every-th */
    } shapes[] = {
        { 1000, 2000, 2, 5 },
        { 1, 100, 1, 3 },
        { 0, 1, 3, 4 },
        { (UINT64_C(1) << 27) / (C / 4) - 70, 4, 2, 2 },   /* first-half sums just < 2^27 */
        { (UINT64_C(1) << 27) / (C / 4) + 70, 4, 2, 2 },   /* just >= 2^27 */
        { UINT64_C(1) << 40, UINT64_C(1) << 30, 4, 7 },
    };
    for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        uint64_t s = 77 + z, clock = 5000;
        for (size_t k = 0; k < N; k++) {
            uint64_t start = clock + (k % shapes[z].gap_every == 0 ? 1 + iv_rng(&s) % 300 : 0);
            uint64_t end = start + shapes[z].dur_lo + iv_rng(&s) % shapes[z].dur_span;
            ivtrack_iv v = { start, end, UINT32_MAX, (uint8_t)(k % shapes[z].kinds), 0 };
            ck_assert(ivtrack_append(tr, &v));
            ck_assert(iv_model_append(&m, v));
            clock = end;
        }
        ivtrack_seal(tr);
        iv_assert_sound(tr);
        iv_check_chunk_edges(tr, &m);
        uint64_t t[3 * N], got[3 * N * IVTRACK_KINDS];
        for (size_t i = 0; i < N; i++) {
            t[3 * i] = m.v[i].start_ns;
            t[3 * i + 1] = m.v[i].start_ns + (m.v[i].end_ns - m.v[i].start_ns) / 2;
            t[3 * i + 2] = m.v[i].end_ns;
        }
        ivtrack_kinds_upto_many(tr, t, 3 * N, got);
        for (size_t q = 0; q < 3 * N; q++)
            for (unsigned kind = 0; kind < IVTRACK_KINDS; kind++)
                IV_EXPECT(got[q * IVTRACK_KINDS + kind] == bf_kind_ns(&m, kind, 0, t[q]),
                          "shape %zu t %llu kind %u: %llu want %llu", z,
                          (unsigned long long)t[q], kind,
                          (unsigned long long)got[q * IVTRACK_KINDS + kind],
                          (unsigned long long)bf_kind_ns(&m, kind, 0, t[q]));
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* Sealing at, before and after a chunk edge, then appending across the next ones. */
START_TEST(test_ivtrack_seal_at_chunk_edges)
{
    enum { C = IVTRACK_CHUNK };
    static const size_t sizes[] = { 1, C - 1, C, C + 1, 2 * C };
    for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_chunk_track(sizes[z], 100 + z, tr, &m);
        ivtrack_seal(tr);
        ck_assert_uint_le(ivtrack_bytes(tr), 200 + sizes[z] * 29);   /* a partial chunk: plain */
        for (size_t k = 0; k < 2 * C + 1; k++) {
            uint64_t start = (m.n ? m.v[m.n - 1].end_ns : 0) + k % 3;
            ivtrack_iv v = { start, start + (k % 5) * 7, (uint32_t)k,
                             (uint8_t)(k % IVTRACK_KINDS), 0 };
            ck_assert(ivtrack_append(tr, &v));
            ck_assert(iv_model_append(&m, v));
            iv_assert_sound(tr);
            iv_check_window(tr, &m, m.v[0].start_ns, m.v[m.n - 1].end_ns + 1);
        }
        iv_check_chunk_edges(tr, &m);
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* 100,000 intervals, sealed: packed columns and a share of a chunk header; no refs
 * held while none is set (a track in the making), a plain 4 bytes each once the last
 * one is (the GC join's, until ivtrack_pack_refs). */
START_TEST(test_ivtrack_bytes_per_interval)
{
    enum { N = 100000 };
    ivtrack *tr = ivtrack_new();
    for (uint64_t k = 0; k < N; k++)
        ck_assert(iv_add(tr, 100 * k, 100 * k + k % 97, (uint8_t)(k % IVTRACK_KINDS), 0));
    ivtrack_seal(tr);
    iv_assert_sound(tr);
    ck_assert_uint_eq(ivtrack_count(tr), N);
    size_t bytes = ivtrack_bytes(tr);
    /* Packed: 100 ns apart, up to 96 ns long, 4 kinds: ~30 bits and a 56-byte header a
     * chunk, where a plain record alone takes 24 bytes. */
    ck_assert_msg(bytes <= (size_t)4 * N, "%zu bytes for %d intervals", bytes, (int)N);
    ck_assert_uint_ge(bytes, (size_t)3 * N);
    ivtrack_iv v;
    ivtrack_set_ref(tr, N / 2, UINT32_MAX);     /* none, as it was: still none held */
    ck_assert_uint_eq(ivtrack_bytes(tr), bytes);
    ivtrack_set_ref(tr, N - 1, 7);
    iv_assert_sound(tr);
    ck_assert_uint_ge(ivtrack_bytes(tr), bytes + N * sizeof(uint32_t));
    ck_assert_msg(ivtrack_bytes(tr) <= (size_t)10 * N, "%zu bytes with refs",
                  ivtrack_bytes(tr));
    ck_assert_uint_eq(ivtrack_get(tr, N - 1, &v)->ref, 7);
    ck_assert_uint_eq(ivtrack_get(tr, N - 2, &v)->ref, UINT32_MAX);
    ck_assert_uint_eq(ivtrack_get(tr, 0, &v)->ref, UINT32_MAX);
    ivtrack_free(tr);
}
END_TEST

/* GC phases as a capability's track has them: a collection's five phases follow one
 * another (only the first's start is not the end before it), collections 1 ms apart,
 * every phase's ref its collection: ends, the heads' durations and the refs' changes
 * packed take under 5 bytes a phase (4.8), where every start and duration and every
 * ref took 5.9. */
START_TEST(test_ivtrack_bytes_gc_phases)
{
    enum { N = 20000 };
    ivtrack *tr = ivtrack_new();
    uint64_t s = 99, t = 0;
    for (size_t k = 0; k < N; k++) {
        if (k % 5 == 0)
            t = (k / 5 + 1) * 1000000 + iv_rng(&s) % 1000;
        uint64_t d = 1 + iv_rng(&s) % 2000;
        ivtrack_iv v = { t, t + d, (uint32_t)(k / 5), (uint8_t)(k % 2), 0 };
        ck_assert(ivtrack_append(tr, &v));
        t += d;
    }
    ivtrack_seal(tr);
    ivtrack_pack_refs(tr);
    iv_assert_sound(tr);
    ck_assert_msg(ivtrack_bytes(tr) <= (size_t)5 * N, "%zu bytes for %d phases",
                  ivtrack_bytes(tr), (int)N);
    ivtrack_iv v;
    for (size_t k = 0; k < N; k++)
        IV_EXPECT(ivtrack_get(tr, k, &v)->ref == k / 5 && v.kind == k % 2, "phase %zu", k);
    ivtrack_free(tr);
}
END_TEST

/* Two and a quarter chunks, so damage can land in the first, a middle and the last. */
#define IV_VICTIM_N (2 * IVTRACK_CHUNK + IVTRACK_CHUNK / 4)

static ivtrack *
iv_victim(void)
{
    ivtrack *tr = ivtrack_new();
    for (uint64_t k = 0; k < IV_VICTIM_N; k++)
        ck_assert(iv_add(tr, 100 * k, 100 * k + 10 + k, (uint8_t)(k % IVTRACK_KINDS), 0));
    iv_assert_sound(tr);
    return tr;
}

START_TEST(test_ivtrack_check_detects_damage)
{
    static const struct {
        ivtrack_corrupt what;
        size_t at;
        const char *says;
    } cases[] = {
        { IVTRACK_CORRUPT_ORDER, 7, "before interval" },
        { IVTRACK_CORRUPT_KIND, 3, "interval 3: kind 4" },
        { IVTRACK_CORRUPT_FLAGS, 0, "flags" },
        { IVTRACK_CORRUPT_PREFIX, IV_VICTIM_N - 1, "chunk 2 " },
        { IVTRACK_CORRUPT_PREFIX, 0, "prefix" },
        { IVTRACK_CORRUPT_PREFIX, IVTRACK_CHUNK - 1, "chunk 0 " },
        { IVTRACK_CORRUPT_PREFIX, IVTRACK_CHUNK, "chunk 1 (" },
        { IVTRACK_CORRUPT_ORDER, IVTRACK_CHUNK, "before interval" },
        { IVTRACK_CORRUPT_CHUNK_START, 0, "chunk 0: start" },
        { IVTRACK_CORRUPT_CHUNK_START, IV_VICTIM_N - 1, "chunk 2: start" },
        { IVTRACK_CORRUPT_MID, 0, "chunk 0: middle word" },
        { IVTRACK_CORRUPT_MID, IVTRACK_CHUNK + 3, "chunk 1: middle word" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        ivtrack *tr = iv_victim();
        ck_assert(ivtrack_test_corrupt(tr, cases[k].what, cases[k].at));
        char why[256] = "";
        ck_assert_msg(!ivtrack_check(tr, why, sizeof why), "case %zu not detected", k);
        ck_assert_msg(strstr(why, cases[k].says), "case %zu: %s", k, why);
        ivtrack_free(tr);
    }
    ivtrack *tr = iv_victim();
    ck_assert(!ivtrack_test_corrupt(tr, IVTRACK_CORRUPT_ORDER, 0));
    ck_assert(!ivtrack_test_corrupt(tr, IVTRACK_CORRUPT_KIND, IV_VICTIM_N));
    ck_assert(!ivtrack_test_corrupt(tr, IVTRACK_CORRUPT_PREFIX, IV_VICTIM_N));
    ck_assert(!ivtrack_test_corrupt(tr, IVTRACK_CORRUPT_MID, IV_VICTIM_N - 1));  /* open */
    iv_assert_sound(tr);
    ivtrack_free(tr);
}
END_TEST

/* ivtrack_set_refs_span over spans mostly in start order (the join's sweep: the cursor
 * carried on, short steps, long jumps past many intervals, spans of zero length, spans
 * that end at an interval's start or overlap the last, now and then a fresh cursor or a
 * step back) against the brute force: the refs of every interval, where the cursor
 * stands and the index returned. */
START_TEST(test_ivtrack_set_refs_span)
{
    for (uint64_t seed = 1; seed <= 60; seed++) {
        ivtrack *tr = ivtrack_new();
        iv_model m = { 0 };
        iv_random_track(seed, 1 + seed * 29 % 700, tr, &m);
        if (seed % 2)
            ivtrack_seal(tr);
        for (size_t i = 0; i < m.n; i++) {
            m.v[i].ref = UINT32_MAX;
            ivtrack_set_ref(tr, i, UINT32_MAX);
        }
        uint64_t r = seed + 4242;
        uint64_t t0 = m.n ? m.v[0].start_ns - (m.v[0].start_ns > 0) : 0;
        ivtrack_span_cur cur = IVTRACK_SPAN_CUR_INIT;
        for (uint32_t q = 0; q < 200 && m.n; q++) {
            uint64_t c = iv_rng(&r) % 20;
            if (c == 19)
                t0 -= t0 < 5000 ? t0 : iv_rng(&r) % 5000;
            else if (c == 0)
                t0 = iv_sat_add(t0, UINT64_C(1) << (20 + iv_rng(&r) % 20));
            else if (c < 8) {
                const ivtrack_iv *v = &m.v[iv_rng(&r) % m.n];
                uint64_t at = iv_rng(&r) % 2 ? v->start_ns : v->end_ns;
                t0 = at > t0 ? at : t0;
            } else
                t0 = iv_sat_add(t0, iv_rng(&r) % 2500);
            uint64_t d = iv_rng(&r) % 10, t1;
            if (d == 0)
                t1 = t0;
            else if (d < 3) {
                size_t k = bf_first_after(&m, t0);
                k += k < m.n ? iv_rng(&r) % 4 : 0;
                t1 = k < m.n && m.v[k].start_ns >= t0 ? m.v[k].start_ns : t0;
            } else
                t1 = iv_sat_add(t0, iv_rng(&r) % 6000);
            if (iv_rng(&r) % 17 == 0)
                cur = IVTRACK_SPAN_CUR_INIT;
            size_t want = bf_first_after(&m, t0), i = want;
            for (; i < m.n; i++) {
                if (m.v[i].start_ns > t1 || (m.v[i].start_ns == t1 && t1 > t0))
                    break;
                m.v[i].ref = q;
            }
            size_t got = ivtrack_set_refs_span(tr, &cur, t0, t1, q);
            size_t want1 = bf_first_after(&m, t1);
            IV_EXPECT(cur.at0 == want && got == i && cur.at1 == want1,
                      "seed %llu span %u [%llu, %llu]: at %zu %zu got %zu, want %zu %zu %zu",
                      (unsigned long long)seed, q, (unsigned long long)t0,
                      (unsigned long long)t1, cur.at0, cur.at1, got, want, want1, i);
        }
        ivtrack_iv v;
        for (size_t i = 0; i < m.n; i++)
            IV_EXPECT(ivtrack_get(tr, i, &v)->ref == m.v[i].ref, "seed %llu ref %zu: %u, want %u",
                      (unsigned long long)seed, i, v.ref, m.v[i].ref);
        /* Packed as the build's end packs them, then one set again and more appended
         * (with none, then one). */
        ivtrack_pack_refs(tr);
        iv_assert_sound(tr);
        if (m.n) {
            size_t k = (size_t)(seed * 7) % m.n;
            m.v[k].ref = 3;
            ivtrack_set_ref(tr, k, 3);
        }
        for (uint32_t a = 0; a < 70; a++) {
            uint64_t at = m.n ? m.v[m.n - 1].end_ns : 0;
            ivtrack_iv w = { at, at + 1, a == 69 ? 5 : UINT32_MAX, 1, 0 };
            if (ivtrack_append(tr, &w))
                ck_assert(iv_model_append(&m, w));
        }
        iv_assert_sound(tr);
        for (size_t i = 0; i < m.n; i++)
            IV_EXPECT(ivtrack_get(tr, i, &v)->ref == m.v[i].ref,
                      "seed %llu ref %zu packed: %u, want %u", (unsigned long long)seed, i, v.ref,
                      m.v[i].ref);
        x_free(m.v);
        ivtrack_free(tr);
    }
}
END_TEST

/* Refs packed as a join sets them (ivtrack_pack_refs_before the ones it is past, at
 * random points) come back as set, and the track ends as the one packed once at the
 * end: the same refs, the same bytes. */
START_TEST(test_ivtrack_pack_refs_before)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        ivtrack *a = ivtrack_new(), *b = ivtrack_new();
        iv_model ma = { 0 }, mb = { 0 };
        iv_random_track(seed, 1 + seed * 41 % 900, a, &ma);
        iv_random_track(seed, 1 + seed * 41 % 900, b, &mb);
        ivtrack_seal(a);
        ivtrack_seal(b);
        uint64_t r = seed * 13 + 5;
        /* Half the tracks keep their last third with no ref set at all. */
        size_t stop = seed % 2 ? ma.n - ma.n / 3 : ma.n;
        for (size_t i = 0; i < stop; i++) {
            uint32_t ref = iv_rng(&r) % 4 == 0 ? UINT32_MAX : (uint32_t)(i / 3);
            ma.v[i].ref = ref;
            ivtrack_set_ref(a, i, ref);
            ivtrack_set_ref(b, i, ref);
            if (iv_rng(&r) % 50 == 0)
                ivtrack_pack_refs_before(a, i + 1 - (size_t)(iv_rng(&r) % (i + 1)));
        }
        ivtrack_pack_refs_before(a, stop);
        iv_assert_sound(a);
        ivtrack_iv v;
        for (size_t i = 0; i < ma.n; i++)
            IV_EXPECT(ivtrack_get(a, i, &v)->ref == ma.v[i].ref,
                      "seed %llu ref %zu: %u, want %u", (unsigned long long)seed, i, v.ref,
                      ma.v[i].ref);
        ivtrack_pack_refs(a);
        ivtrack_pack_refs(b);
        iv_assert_sound(a);
        IV_EXPECT(ivtrack_bytes(a) == ivtrack_bytes(b), "seed %llu bytes %zu, want %zu",
                  (unsigned long long)seed, ivtrack_bytes(a), ivtrack_bytes(b));
        for (size_t i = 0; i < ma.n; i++)
            IV_EXPECT(ivtrack_get(a, i, &v)->ref == ma.v[i].ref,
                      "seed %llu ref %zu packed: %u, want %u", (unsigned long long)seed, i,
                      v.ref, ma.v[i].ref);
        x_free(ma.v);
        x_free(mb.v);
        ivtrack_free(a);
        ivtrack_free(b);
    }
}
END_TEST

/* References packed per chunk come back as they were set (none, equal, rising, far
 * apart, all none), and stay right when set again after packing, when more intervals
 * follow, and when those are packed too. */
START_TEST(test_ivtrack_pack_refs)
{
    enum { N = 4 * IVTRACK_CHUNK + 9 };
    ivtrack *tr = ivtrack_new();
    uint32_t want[N + IVTRACK_CHUNK];
    for (size_t i = 0; i < N; i++) {
        ck_assert(iv_add(tr, 10 * i, 10 * i + 5, (uint8_t)(i % 2), 0));
        size_t c = i / IVTRACK_CHUNK;
        want[i] = c == 0   ? (i % 5 == 0 ? UINT32_MAX : (uint32_t)(i / 3))
                  : c == 1 ? UINT32_MAX
                  : c == 2 ? (i % 2 ? 0 : UINT32_MAX - 1)
                           : 7;
        ivtrack_set_ref(tr, i, want[i]);
    }
    size_t plain = ivtrack_bytes(tr);
    ivtrack_pack_refs(tr);
    ck_assert_uint_lt(ivtrack_bytes(tr), plain);
    iv_assert_sound(tr);
    ivtrack_iv v;
    for (size_t i = 0; i < N; i++)
        IV_EXPECT(ivtrack_get(tr, i, &v)->ref == want[i], "ref %zu: %u, want %u", i, v.ref,
                  want[i]);
    want[IVTRACK_CHUNK + 3] = 5;                /* a packed ref set again */
    ivtrack_set_ref(tr, IVTRACK_CHUNK + 3, 5);
    for (size_t i = N; i < N + IVTRACK_CHUNK; i++) {
        ck_assert(iv_add(tr, 10 * i, 10 * i + 5, 0, 0));
        want[i] = (uint32_t)i;
        ivtrack_set_ref(tr, i, want[i]);
    }
    ivtrack_pack_refs(tr);
    iv_assert_sound(tr);
    for (size_t i = 0; i < N + IVTRACK_CHUNK; i++)
        IV_EXPECT(ivtrack_get(tr, i, &v)->ref == want[i], "ref %zu after: %u, want %u", i,
                  v.ref, want[i]);
    ivtrack_free(tr);
}
END_TEST

Suite *
test_ivtrack_suite(void)
{
    Suite *s = suite_create("ivtrack");
    TCase *tc = tcase_create("unit");
    tcase_add_test(tc, test_ivtrack_empty);
    tcase_add_test(tc, test_ivtrack_kinds_and_boundaries);
    tcase_add_test(tc, test_ivtrack_clip_and_drop);
    tcase_add_test(tc, test_ivtrack_extremes);
    tcase_add_test(tc, test_ivtrack_check_detects_damage);
    tcase_add_test(tc, test_ivtrack_seal_at_chunk_edges);
    tcase_add_test(tc, test_ivtrack_bytes_per_interval);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("property");
    tcase_set_timeout(tp, 60);
    tcase_add_test(tp, test_ivtrack_matches_brute_force);
    tcase_add_test(tp, test_ivtrack_kinds_upto_many);
    tcase_add_test(tp, test_ivtrack_kinds_upto_many_near);
    tcase_add_test(tp, test_ivtrack_kinds_wide);
    tcase_add_test(tp, test_ivtrack_middle_word);
    tcase_add_test(tp, test_ivtrack_kinds_walk);
    tcase_add_test(tp, test_ivtrack_chunk_edges);
    tcase_add_test(tp, test_ivtrack_pack_refs);
    tcase_add_test(tp, test_ivtrack_set_refs_span);
    tcase_add_test(tp, test_ivtrack_pack_refs_before);
    tcase_add_test(tp, test_ivtrack_bytes_gc_phases);
    suite_add_tcase(s, tp);
    return s;
}
