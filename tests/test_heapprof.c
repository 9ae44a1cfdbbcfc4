/* tests/test_heapprof: heap-profile bands and censuses — interning of strings and
 * cost-centre stacks, band names, peaks, means and last values, census lookup by time,
 * and random censuses against a brute-force model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heapprof.h"
#include "tests.h"
#include "xalloc.h"

static void
hp_assert_ok(const heapprof *hp)
{
    char why[200];
    ck_assert_msg(heapprof_check(hp, why, sizeof why), "heapprof_check: %s", why);
}

static const uint8_t *
hp_s(const char *s)
{
    return (const uint8_t *)s;
}

/* Band b's name as a C string (static buffer of the test). */
static const char *
hp_name(const heapprof *hp, size_t b)
{
    static char buf[256];
    strbuf sb;
    strbuf_init(&sb);
    heapprof_band_name(hp, b, &sb);
    snprintf(buf, sizeof buf, "%.*s", (int)sb.len, sb.data ? sb.data : "");
    strbuf_free(&sb);
    return buf;
}

START_TEST(test_heapprof_bands)
{
    heapprof *hp = heapprof_new();
    heapprof_cost_centre(hp, 7, hp_s("f"), 1, hp_s("Main"), 4, hp_s("Main.hs:3:1"), 11, false);
    heapprof_cost_centre(hp, 3, hp_s("main"), 4, hp_s("Main"), 4, hp_s("Main.hs:1:1"), 11, true);
    heapprof_cost_centre(hp, 7, hp_s("g"), 1, hp_s("Main"), 4, hp_s("Main.hs:9:1"), 11, false);

    /* Entries outside a census are ignored. */
    heapprof_sample_string(hp, hp_s("ignored"), 7, 99);
    ck_assert_uint_eq(heapprof_n_bands(hp), 0);

    uint32_t s73[] = { 7, 3 }, s3[] = { 3 }, s9[] = { 9, 3 };
    heapprof_census_begin(hp, 100);
    heapprof_sample_stack(hp, s73, 2, 1000);
    heapprof_sample_stack(hp, s3, 1, 500);
    heapprof_sample_stack(hp, s73, 2, 24);      /* the same band again: adds up */
    heapprof_sample_stack(hp, NULL, 0, 8);
    heapprof_census_end(hp);
    heapprof_census_begin(hp, 200);
    heapprof_sample_stack(hp, s3, 1, 700);
    heapprof_sample_stack(hp, s9, 2, 16);
    /* The next begin closes it. */
    heapprof_census_begin(hp, 150);              /* earlier: placed at 200 */
    heapprof_sample_stack(hp, s73, 2, 2048);
    heapprof_seal(hp);
    hp_assert_ok(hp);

    ck_assert_uint_eq(heapprof_n_censuses(hp), 3);
    ck_assert_uint_eq(heapprof_census_at(hp, 2)->time_ns, 200);
    ck_assert_uint_eq(heapprof_census_at(hp, 0)->total_bytes, 1532);
    ck_assert_uint_eq(heapprof_census_at(hp, 0)->n_entries, 3);
    ck_assert_uint_eq(heapprof_n_bands(hp), 4);
    /* Names: the latest definition of id 7 wins; unknown ids show as #id. */
    ck_assert_str_eq(hp_name(hp, 0), "g/main");
    ck_assert_str_eq(hp_name(hp, 1), "main");
    ck_assert_str_eq(hp_name(hp, 2), "MAIN");
    ck_assert_str_eq(hp_name(hp, 3), "#9/main");
    const heapprof_band *b0 = heapprof_band_at(hp, 0);
    ck_assert_uint_eq(b0->peak_bytes, 2048);
    ck_assert_uint_eq(b0->peak_time_ns, 200);
    ck_assert_uint_eq(b0->sum_bytes, 1024 + 2048);
    ck_assert_uint_eq(b0->n_censuses, 2);
    ck_assert_uint_eq(b0->last_bytes, 2048);
    ck_assert_uint_eq(heapprof_band_at(hp, 1)->peak_bytes, 700);
    ck_assert_uint_eq(heapprof_band_at(hp, 1)->last_bytes, 0);   /* not in the last census */
    size_t depth;
    const uint32_t *stk = heapprof_band_stack(hp, 3, &depth);
    ck_assert_uint_eq(depth, 2);
    ck_assert_uint_eq(stk[0], 9);

    const char *label, *module, *srcloc;
    bool caf;
    ck_assert(heapprof_cost_centre_find(hp, 3, &label, &module, &srcloc, &caf));
    ck_assert_str_eq(label, "main");
    ck_assert_str_eq(srcloc, "Main.hs:1:1");
    ck_assert(caf);
    ck_assert(!heapprof_cost_centre_find(hp, 9, &label, &module, &srcloc, &caf));
    ck_assert_uint_eq(heapprof_n_cost_centres(hp), 2);

    ck_assert_uint_eq(heapprof_census_by(hp, 99), SIZE_MAX);
    ck_assert_uint_eq(heapprof_census_by(hp, 100), 0);
    ck_assert_uint_eq(heapprof_census_by(hp, 199), 0);
    ck_assert_uint_eq(heapprof_census_by(hp, 200), 2);
    uint32_t band;
    uint64_t bytes;
    heapprof_entry(hp, 0, 2, &band, &bytes);
    ck_assert_uint_eq(band, 2);
    ck_assert_uint_eq(bytes, 8);
    heapprof_entry(hp, 0, 3, &band, &bytes);       /* out of range */
    ck_assert_uint_eq(bytes, 0);
    heapprof_free(hp);

    /* String bands: equal bytes are one band, a prefix is another; embedded NULs and
     * an empty string are fine. */
    hp = heapprof_new();
    heapprof_census_begin(hp, 5);
    heapprof_sample_string(hp, hp_s("THUNK"), 5, 10);
    heapprof_sample_string(hp, hp_s("THUNK_1"), 7, 20);
    heapprof_sample_string(hp, hp_s("a\0b"), 3, 1);
    heapprof_sample_string(hp, hp_s(""), 0, 2);
    heapprof_sample_string(hp, hp_s("THUNK"), 5, 5);
    heapprof_seal(hp);
    hp_assert_ok(hp);
    ck_assert_uint_eq(heapprof_n_bands(hp), 4);
    ck_assert_uint_eq(heapprof_band_at(hp, 0)->peak_bytes, 15);
    ck_assert_ptr_null(heapprof_band_stack(hp, 0, &depth));
    heapprof_free(hp);
}
END_TEST

/* Random censuses over a pool of string and stack bands, against a model that adds up
 * each (census, band) pair. */
START_TEST(test_heapprof_random_vs_model)
{
    enum { N_CENSUS = 300, N_KEYS = 150 };
    uint64_t s = 0x2545f4914f6cdd1du;
    heapprof *hp = heapprof_new();
    uint64_t (*model)[N_KEYS] = xcalloc(N_CENSUS, sizeof *model);     /* freed below */
    uint64_t t = 0;
    for (size_t c = 0; c < N_CENSUS; c++) {
        t += 1 + (s >> 40) % 1000000;
        heapprof_census_begin(hp, t);
        size_t n = (s >> 20) % 40;
        for (size_t e = 0; e < n; e++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            size_t key = (size_t)(s % N_KEYS);
            uint64_t bytes = (s >> 32) % 100000;
            model[c][key] += bytes;
            if (key % 2 == 0) {
                char text[16];
                int len = snprintf(text, sizeof text, "band%zu", key);
                heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, bytes);
            } else {
                uint32_t stk[4] = { (uint32_t)key, 1, 2, 3 };
                heapprof_sample_stack(hp, stk, 1 + key % 4, bytes);
            }
        }
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        if (c % 50 == 0)
            hp_assert_ok(hp);
        if (s % 3)
            heapprof_census_end(hp);
    }
    heapprof_seal(hp);
    hp_assert_ok(hp);
    ck_assert_uint_eq(heapprof_n_censuses(hp), N_CENSUS);
    /* Every (census, key) total of the model is the entry of its band. */
    for (size_t b = 0; b < heapprof_n_bands(hp); b++) {
        const heapprof_band *band = heapprof_band_at(hp, b);
        size_t key;
        if (band->kind == HEAPPROF_BAND_STRING) {
            const char *name = hp_name(hp, b);
            key = (size_t)strtoul(name + 4, NULL, 10);
        } else {
            size_t depth;
            key = heapprof_band_stack(hp, b, &depth)[0];
        }
        uint64_t peak = 0, sum = 0, last = model[N_CENSUS - 1][key];
        for (size_t c = 0; c < N_CENSUS; c++) {
            sum += model[c][key];
            peak = model[c][key] > peak ? model[c][key] : peak;
        }
        if (band->sum_bytes != sum || band->peak_bytes != peak || band->last_bytes != last)
            ck_abort_msg("band %zu (key %zu): sum %llu/%llu peak %llu/%llu last %llu/%llu", b,
                         key, (unsigned long long)band->sum_bytes, (unsigned long long)sum,
                         (unsigned long long)band->peak_bytes, (unsigned long long)peak,
                         (unsigned long long)band->last_bytes, (unsigned long long)last);
    }
    x_free(model);
    heapprof_free(hp);
}
END_TEST

Suite *
test_heapprof_suite(void)
{
    Suite *s = suite_create("heapprof");
    TCase *tc = tcase_create("heapprof");
    tcase_add_test(tc, test_heapprof_bands);
    tcase_add_test(tc, test_heapprof_random_vs_model);
    suite_add_tcase(s, tc);
    return s;
}
