/* tests/test_gcpack: the packed collection store against plain records — seeded
 * random collections and parts, realistic and extreme (unknown fields, all-ones,
 * ends before starts, differences near 2^63), across chunk edges; cutting the tail
 * back (into a packed chunk, at an edge, to nothing) and appending again; appending
 * after sealing; and the bytes a realistic collection takes. */
#include <stdlib.h>
#include <string.h>

#include "gcpack.h"
#include "tests.h"

/* A passing ck_assert records a checkpoint: the loops test first, then fail. */
#define GP_EXPECT(cond, ...)                                                              \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

static uint64_t
gp_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A field value: mostly near `typical`, sometimes an extreme. */
static uint64_t
gp_val(uint64_t *s, uint64_t typical, unsigned extreme_pct)
{
    static const uint64_t edge[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, UINT64_C(1) << 63,
                                     (UINT64_C(1) << 63) - 1, (UINT64_C(1) << 63) + 1 };
    uint64_t r = gp_rng(s);
    if (r % 100 < extreme_pct) {
        r = gp_rng(s);
        return r % 3 ? edge[r % (sizeof edge / sizeof edge[0])] : gp_rng(s);
    }
    return typical + gp_rng(s) % 4096;
}

/* Collection i of a seeded series: a plausible one, every field now and then extreme
 * (extreme_pct of the time). Padding zeroed so records compare with memcmp. */
static evindex_gc
gp_gc(uint64_t *s, size_t i, unsigned extreme_pct)
{
    evindex_gc g;
    memset(&g, 0, sizeof g);
    g.start_ns = gp_val(s, 1000000 + i * 5000000, extreme_pct);
    g.end_ns = gp_val(s, g.start_ns + 300000, extreme_pct);
    g.request_ns = gp_val(s, g.start_ns - 5000, extreme_pct);
    g.stopping_ns = gp_rng(s) % 4 ? g.start_ns - g.request_ns
                                   : gp_val(s, EVINDEX_NO_TIME - 4095, extreme_pct);
    g.census_ns = gp_rng(s) % 8 ? 0 : gp_val(s, 20000, extreme_pct);
    g.global_sync_ns = gp_rng(s) % 3 ? gp_val(s, g.end_ns - 400, extreme_pct)
                                     : EVINDEX_NO_TIME;
    g.copied = gp_val(s, 100000, extreme_pct);
    g.slop = gp_val(s, 30000, extreme_pct);
    g.frag = gp_val(s, 4096 * 700, extreme_pct);
    g.par_tot_copied = gp_rng(s) % 2 ? g.copied : gp_val(s, 90000, extreme_pct);
    g.par_max_copied = gp_val(s, 30000, extreme_pct);
    g.par_balanced = gp_val(s, 80000, extreme_pct);
    g.live_after = gp_rng(s) % 10 ? EVINDEX_NO_TIME : gp_val(s, 5 << 20, extreme_pct);
    g.heap_after = gp_rng(s) % 5 ? (uint64_t)(27 + gp_rng(s) % 2) << 20
                                 : gp_val(s, EVINDEX_NO_TIME - 4095, extreme_pct);
    g.allocated_before = gp_val(s, 40 << 20, extreme_pct);
    g.par_threads = (uint32_t)gp_val(s, 4, extreme_pct);
    g.first_part = (uint32_t)gp_val(s, 4 * i, extreme_pct);
    g.n_parts = (uint32_t)gp_val(s, 0, extreme_pct);
    g.gen = (uint16_t)(gp_rng(s) % 6 ? gp_rng(s) % 2 : EVINDEX_GEN_UNKNOWN);
    g.leader_cap = (uint16_t)(gp_rng(s) % 6 ? gp_rng(s) % 4 : gp_rng(s));
    g.request_cap = (uint16_t)(gp_rng(s) % 6 ? gp_rng(s) % 4 : EVINDEX_NO_CAP);
    g.slowest_cap = (uint16_t)(gp_rng(s) % 6 ? gp_rng(s) % 4 : EVINDEX_NO_CAP);
    g.flags = (uint8_t)gp_rng(s);
    return g;
}

static evindex_gc_part
gp_part(uint64_t *s, size_t i, unsigned extreme_pct)
{
    evindex_gc_part p;
    memset(&p, 0, sizeof p);
    p.cap = (uint16_t)(gp_rng(s) % 8 ? i % 4 : gp_rng(s));
    p.start_ns = gp_val(s, 1000000 + i / 4 * 5000000, extreme_pct);
    p.end_ns = gp_val(s, p.start_ns + 300000, extreme_pct);
    p.stop_ns = gp_val(s, p.start_ns - 1000, extreme_pct);
    p.work_ns = gp_val(s, 200000, extreme_pct);
    p.wait_ns = gp_rng(s) % 2 ? p.end_ns - p.start_ns - p.work_ns
                              : gp_val(s, 90000, extreme_pct);
    return p;
}

static void
gp_assert_sound(const gcpack *gp)
{
    char why[256] = "";
    ck_assert_msg(gcpack_check(gp, why, sizeof why), "gcpack_check: %s", why);
}

/* gp holds exactly gcs[0, n_gcs) and parts[0, n_parts). */
static void
gp_assert_holds(const gcpack *gp, const evindex_gc *gcs, size_t n_gcs,
                const evindex_gc_part *parts, size_t n_parts)
{
    ck_assert_uint_eq(gcpack_n_gcs(gp), n_gcs);
    ck_assert_uint_eq(gcpack_n_parts(gp), n_parts);
    for (size_t i = 0; i < n_gcs; i++) {
        evindex_gc g;
        memset(&g, 0xa5, sizeof g);
        GP_EXPECT(gcpack_gc(gp, i, &g) == &g, "collection %zu not read", i);
        GP_EXPECT(memcmp(&g, &gcs[i], sizeof g) == 0 && g.start_ns == gcs[i].start_ns,
                  "collection %zu differs (start %llu, want %llu; gen %u, want %u)", i,
                  (unsigned long long)g.start_ns, (unsigned long long)gcs[i].start_ns,
                  g.gen, gcs[i].gen);
        GP_EXPECT(gcpack_gc_start(gp, i) == gcs[i].start_ns, "collection %zu start", i);
        evindex_gc_brief b;
        gcpack_gc_brief(gp, i, &b);
        GP_EXPECT(b.start_ns == gcs[i].start_ns && b.end_ns == gcs[i].end_ns &&
                  b.request_ns == gcs[i].request_ns && b.gen == gcs[i].gen &&
                  b.flags == gcs[i].flags, "collection %zu brief", i);
    }
    for (size_t i = 0; i < n_parts; i++) {
        evindex_gc_part p;
        memset(&p, 0xa5, sizeof p);
        GP_EXPECT(gcpack_part(gp, i, &p) == &p, "part %zu not read", i);
        GP_EXPECT(memcmp(&p, &parts[i], sizeof p) == 0, "part %zu differs (start %llu,"
                  " want %llu)", i, (unsigned long long)p.start_ns,
                  (unsigned long long)parts[i].start_ns);
    }
    evindex_gc g = gcs[0];
    evindex_gc_part p = parts[0];
    ck_assert_ptr_null(gcpack_gc(gp, n_gcs, &g));
    ck_assert_ptr_null(gcpack_part(gp, n_parts, &p));
    ck_assert_mem_eq(&g, &gcs[0], sizeof g);     /* buffers untouched past the end */
    ck_assert_mem_eq(&p, &parts[0], sizeof p);
    gp_assert_sound(gp);
}

enum { GP_N = 3 * GCPACK_CHUNK + GCPACK_CHUNK / 2 + 3 };

/* Every record comes back as it went in, whatever the values, at every count across
 * the chunk edges. */
START_TEST(test_gcpack_round_trip)
{
    static const unsigned pct[] = { 0, 5, 60 };
    for (size_t r = 0; r < sizeof pct / sizeof pct[0]; r++) {
        uint64_t seed = 0x9e3779b97f4a7c15u + r;
        evindex_gc gcs[GP_N];
        evindex_gc_part parts[GP_N];
        for (size_t i = 0; i < GP_N; i++) {
            gcs[i] = gp_gc(&seed, i, pct[r]);
            parts[i] = gp_part(&seed, i, pct[r]);
        }
        gcpack *gp = gcpack_new();
        gp_assert_holds(gp, gcs, 0, parts, 0);
        for (size_t i = 0; i < GP_N; i++) {
            gcpack_append_gc(gp, &gcs[i]);
            gcpack_append_part(gp, &parts[i]);
            size_t n = i + 1;
            if (n % GCPACK_CHUNK <= 1 || n % GCPACK_CHUNK == GCPACK_CHUNK - 1 || n == GP_N)
                gp_assert_holds(gp, gcs, n, parts, n);
        }
        gcpack_seal(gp);
        gp_assert_holds(gp, gcs, GP_N, parts, GP_N);
        gcpack_free(gp);
    }
}
END_TEST

/* Unknown values in every field that may be unknown, and every field at once. */
START_TEST(test_gcpack_unknowns)
{
    evindex_gc gcs[GCPACK_CHUNK + 1];
    evindex_gc_part parts[GCPACK_CHUNK + 1];
    uint64_t seed = 77;
    for (size_t i = 0; i < GCPACK_CHUNK + 1; i++) {
        gcs[i] = gp_gc(&seed, i, 0);
        parts[i] = gp_part(&seed, i, 0);
        if (i % 2) {
            gcs[i].stopping_ns = gcs[i].global_sync_ns = gcs[i].live_after =
                gcs[i].heap_after = gcs[i].allocated_before = EVINDEX_NO_TIME;
            gcs[i].gen = EVINDEX_GEN_UNKNOWN;
            gcs[i].leader_cap = gcs[i].request_cap = gcs[i].slowest_cap = EVINDEX_NO_CAP;
            parts[i].cap = EVINDEX_NO_CAP;
        }
    }
    /* Every field all ones (field by field: padding stays zero to compare). */
    for (size_t i = 3; i < GCPACK_CHUNK + 1; i += 7) {
        evindex_gc g;
        memset(&g, 0, sizeof g);
        g.start_ns = gcs[i - 1].start_ns;
        g.end_ns = g.request_ns = g.stopping_ns = g.census_ns = g.global_sync_ns = UINT64_MAX;
        g.copied = g.slop = g.frag = g.par_max_copied = g.par_tot_copied = UINT64_MAX;
        g.par_balanced = g.live_after = g.heap_after = g.allocated_before = UINT64_MAX;
        g.par_threads = g.first_part = g.n_parts = UINT32_MAX;
        g.gen = g.leader_cap = g.request_cap = g.slowest_cap = UINT16_MAX;
        g.flags = UINT8_MAX;
        gcs[i] = g;
        evindex_gc_part p;
        memset(&p, 0, sizeof p);
        p.cap = UINT16_MAX;
        p.stop_ns = p.start_ns = p.end_ns = p.work_ns = p.wait_ns = UINT64_MAX;
        parts[i] = p;
    }
    gcpack *gp = gcpack_new();
    for (size_t i = 0; i < GCPACK_CHUNK + 1; i++) {
        gcpack_append_gc(gp, &gcs[i]);
        gcpack_append_part(gp, &parts[i]);
    }
    gp_assert_holds(gp, gcs, GCPACK_CHUNK + 1, parts, GCPACK_CHUNK + 1);
    gcpack_free(gp);
}
END_TEST

/* The tail cut back (inside a packed chunk, at a chunk edge, inside the open chunk, to
 * nothing) and appended again with other records (collections, then parts): as if only
 * those were appended. */
START_TEST(test_gcpack_truncate)
{
    uint64_t seed = 12345;
    evindex_gc a[GP_N], b[GP_N];
    evindex_gc_part pa[GP_N], pb[GP_N];
    for (size_t i = 0; i < GP_N; i++) {
        a[i] = gp_gc(&seed, i, 5);
        b[i] = gp_gc(&seed, i, 5);
        pa[i] = gp_part(&seed, i, 5);
        pb[i] = gp_part(&seed, i, 5);
    }
    /* Part i belongs to collection i: no cut keeps a part of a collection cut off. */
    static const size_t cuts[][2] = {
        { 2 * GCPACK_CHUNK + 5, GCPACK_CHUNK + 17 },    /* into packed chunks */
        { 2 * GCPACK_CHUNK, GCPACK_CHUNK },             /* at chunk edges */
        { GP_N - 1, GP_N - 2 },                         /* inside the open chunk */
        { 3, 0 },
        { 0, 0 },
        { GP_N + 5, GP_N + 9 },                         /* beyond the end: nothing */
    };
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++) {
        gcpack *gp = gcpack_new();
        for (size_t i = 0; i < GP_N; i++) {
            gcpack_append_gc(gp, &a[i]);
            gcpack_append_part(gp, &pa[i]);
        }
        if (c == 1)
            gcpack_seal(gp);
        size_t kg = cuts[c][0] < GP_N ? cuts[c][0] : GP_N;
        size_t kp = cuts[c][1] < GP_N ? cuts[c][1] : GP_N;
        gcpack_truncate(gp, cuts[c][0], cuts[c][1]);
        evindex_gc want[GP_N];
        evindex_gc_part want_p[GP_N];
        memcpy(want, a, kg * sizeof *a);
        memcpy(want_p, pa, kp * sizeof *pa);
        gp_assert_holds(gp, want, kg, want_p, kp);
        for (size_t i = kg; i < GP_N; i++) {
            want[i] = b[i];
            gcpack_append_gc(gp, &b[i]);
        }
        for (size_t i = kp; i < GP_N; i++) {
            want_p[i] = pb[i];
            gcpack_append_part(gp, &pb[i]);
        }
        gp_assert_holds(gp, want, GP_N, want_p, GP_N);
        gcpack_free(gp);
    }
}
END_TEST

/* A part kept when its collection is cut off is damage gcpack_check reports. */
START_TEST(test_gcpack_check_orphan_part)
{
    uint64_t seed = 5;
    gcpack *gp = gcpack_new();
    for (size_t i = 0; i < 3; i++) {
        evindex_gc g = gp_gc(&seed, i, 0);
        evindex_gc_part p = gp_part(&seed, i, 0);
        gcpack_append_gc(gp, &g);
        gcpack_append_part(gp, &p);
    }
    gp_assert_sound(gp);
    gcpack_truncate(gp, 1, 3);
    char why[256] = "";
    ck_assert(!gcpack_check(gp, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "part 1"));
    gcpack_free(gp);
}
END_TEST

/* Enough records that the packed words outgrow the size from which they are mapped on
 * their own and grow by moving (x_big_resize), several times over: every record still
 * comes back as it went in, after a cut back into the middle and the rest appended
 * again (differently), and after the seal gives the spare room back. */
START_TEST(test_gcpack_big)
{
    enum { N = 160 * GCPACK_CHUNK + 5, CUT = 70 * GCPACK_CHUNK + 9 };
    uint64_t seed = 777;
    evindex_gc *gcs = malloc(N * sizeof *gcs);                  /* freed below */
    evindex_gc_part *parts = malloc(N * sizeof *parts);         /* freed below */
    ck_assert_ptr_nonnull(gcs);
    ck_assert_ptr_nonnull(parts);
    gcpack *gp = gcpack_new();
    for (size_t i = 0; i < N; i++) {
        gcs[i] = gp_gc(&seed, i, 5);
        parts[i] = gp_part(&seed, i, 5);
        gcpack_append_gc(gp, &gcs[i]);
        gcpack_append_part(gp, &parts[i]);
    }
    ck_assert_uint_gt(gcpack_bytes(gp), 1u << 20);
    gp_assert_holds(gp, gcs, N, parts, N);
    gcpack_truncate(gp, CUT, CUT);
    gp_assert_holds(gp, gcs, CUT, parts, CUT);
    for (size_t i = CUT; i < N; i++) {
        gcs[i] = gp_gc(&seed, i, 5);
        parts[i] = gp_part(&seed, i, 5);
        gcpack_append_gc(gp, &gcs[i]);
        gcpack_append_part(gp, &parts[i]);
    }
    gp_assert_holds(gp, gcs, N, parts, N);
    size_t before = gcpack_bytes(gp);
    gcpack_seal(gp);
    ck_assert_uint_lt(gcpack_bytes(gp), before);
    gp_assert_holds(gp, gcs, N, parts, N);
    gcpack_free(gp);
    free(gcs);
    free(parts);
}
END_TEST

/* What a run of plausible collections (4 parts each) costs: a fraction of the plain
 * records' bytes. */
START_TEST(test_gcpack_bytes)
{
    uint64_t seed = 4242;
    gcpack *gp = gcpack_new();
    size_t n = 8 * GCPACK_CHUNK;
    for (size_t i = 0; i < n; i++) {
        evindex_gc g = gp_gc(&seed, i, 0);
        g.first_part = (uint32_t)(4 * i);
        g.n_parts = 4;
        gcpack_append_gc(gp, &g);
        for (size_t k = 0; k < 4; k++) {
            evindex_gc_part p = gp_part(&seed, 4 * i + k, 0);
            gcpack_append_part(gp, &p);
        }
    }
    gcpack_seal(gp);
    gp_assert_sound(gp);
    size_t plain = n * (sizeof(evindex_gc) + 4 * sizeof(evindex_gc_part));
    ck_assert_msg(gcpack_bytes(gp) * 3 < plain, "%zu bytes packed, %zu plain",
                  gcpack_bytes(gp), plain);
    gcpack_free(gp);
}
END_TEST

Suite *
test_gcpack_suite(void)
{
    Suite *s = suite_create("gcpack");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_gcpack_round_trip);
    tcase_add_test(tc, test_gcpack_unknowns);
    tcase_add_test(tc, test_gcpack_truncate);
    tcase_add_test(tc, test_gcpack_check_orphan_part);
    tcase_add_test(tc, test_gcpack_bytes);
    tcase_add_test(tc, test_gcpack_big);
    suite_add_tcase(s, tc);
    return s;
}
