/* tests/test_heapprof: heap-profile bands and censuses — interning of strings and
 * cost-centre stacks, band names, peaks, means and last values, census lookup by time,
 * random censuses against a brute-force model, and the profiles of real logs (-hT, -hc,
 * -hb, -hr, -hd, -hm, -hy) against their `ghc-events show` dumps. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evindex.h"
#include "evlog.h"
#include "heapbands.h"
#include "heapprof.h"
#include "reports.h"
#include "series.h"
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
    /* The next begin closes it. An earlier census (as -hb writes them, all at the
     * end): the seal puts it between the two, entries and all. */
    heapprof_census_begin(hp, 150);
    heapprof_sample_stack(hp, s73, 2, 2048);
    hp_assert_ok(hp);
    heapprof_seal(hp);
    hp_assert_ok(hp);

    ck_assert_uint_eq(heapprof_n_censuses(hp), 3);
    ck_assert_uint_eq(heapprof_census_at(hp, 1)->time_ns, 150);
    ck_assert_uint_eq(heapprof_census_at(hp, 1)->total_bytes, 2048);
    ck_assert_uint_eq(heapprof_census_at(hp, 2)->time_ns, 200);
    ck_assert_uint_eq(heapprof_census_at(hp, 2)->total_bytes, 716);
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
    ck_assert_uint_eq(b0->peak_time_ns, 150);
    ck_assert_uint_eq(b0->sum_bytes, 1024 + 2048);
    ck_assert_uint_eq(b0->n_censuses, 2);
    ck_assert_uint_eq(b0->last_bytes, 0);       /* not in the last census (by time) */
    ck_assert_uint_eq(heapprof_band_at(hp, 1)->peak_bytes, 700);
    ck_assert_uint_eq(heapprof_band_at(hp, 1)->peak_time_ns, 200);
    ck_assert_uint_eq(heapprof_band_at(hp, 1)->last_bytes, 700);
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
    ck_assert_uint_eq(heapprof_census_by(hp, 149), 0);
    ck_assert_uint_eq(heapprof_census_by(hp, 199), 1);
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

    /* A cost centre labelled CAF is named by its module (the RTS's "M.CAF"), so the
     * CAFs of different modules are told apart; a CAF-flagged one with another label
     * keeps its label. */
    hp = heapprof_new();
    heapprof_cost_centre(hp, 1, hp_s("CAF"), 3, hp_s("GHC.IO"), 6, hp_s("<entire-module>"),
                         15, true);
    heapprof_cost_centre(hp, 2, hp_s("CAF"), 3, hp_s("Main"), 4, hp_s("<entire-module>"),
                         15, true);
    heapprof_cost_centre(hp, 3, hp_s("f"), 1, hp_s("Main"), 4, hp_s("Main.hs:2:1"), 11, false);
    uint32_t c1[] = { 1 }, c2[] = { 2 }, fc2[] = { 3, 2 };
    heapprof_census_begin(hp, 1);
    heapprof_sample_stack(hp, c1, 1, 8);
    heapprof_sample_stack(hp, c2, 1, 8);
    heapprof_sample_stack(hp, fc2, 2, 8);
    heapprof_seal(hp);
    ck_assert_str_eq(hp_name(hp, 0), "GHC.IO.CAF");
    ck_assert_str_eq(hp_name(hp, 1), "Main.CAF");
    ck_assert_str_eq(hp_name(hp, 2), "f/Main.CAF");
    heapprof_free(hp);
}
END_TEST

/* One step of a heap profile's stream: a census's BEGIN (at time t) or END, or a sample. */
typedef struct hp_op {
    enum { HP_OP_BEGIN, HP_OP_END, HP_OP_SAMPLE } what;
    uint64_t t;
    unsigned key;               /* a sample's band: even a string, odd a stack */
    uint64_t bytes;
} hp_op;

static void
hp_op_sample(heapprof *hp, const hp_op *op)
{
    if (op->key % 2 == 0) {
        char text[16];
        int len = snprintf(text, sizeof text, "b%u", op->key);
        heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, op->bytes);
    } else {
        uint32_t stk[3] = { op->key, 7, 9 };
        heapprof_sample_stack(hp, stk, 1 + op->key % 3, op->bytes);
    }
}

/* The profile of ops[0, n) built in one walk, sealed (caller frees). */
static heapprof *
hp_build_serial(const hp_op *ops, size_t n)
{
    heapprof *hp = heapprof_new();
    for (size_t i = 0; i < n; i++) {
        if (ops[i].what == HP_OP_SAMPLE)
            hp_op_sample(hp, &ops[i]);
        else if (ops[i].what == HP_OP_BEGIN)
            heapprof_census_begin(hp, ops[i].t);
        else
            heapprof_census_end(hp);
    }
    heapprof_seal(hp);
    return hp;
}

/* A later stretch, ops[from, n), built on its own as a parallel build's later worker
 * builds it: samples before its first BEGIN or END go to its head, then appended to dst
 * (the earlier stretch) the way the build stitches them (an END or BEGIN met first
 * closes dst's open census). */
static void
hp_append_stretch(heapprof *dst, const hp_op *ops, size_t from, size_t n)
{
    heapprof *src = heapprof_new();
    bool known = false, head = false;
    for (size_t i = from; i < n; i++) {
        if (ops[i].what == HP_OP_SAMPLE) {
            if (!known && !head) {
                heapprof_head_begin(src);
                head = true;
            }
            hp_op_sample(src, &ops[i]);
        } else if (ops[i].what == HP_OP_BEGIN) {
            known = true;
            heapprof_census_begin(src, ops[i].t);
        } else {
            known = true;
            heapprof_census_end(src);
        }
    }
    if (known && !head)
        heapprof_census_end(dst);
    heapprof_append(dst, src, head);
    heapprof_free(src);
}

/* A profile built in two stretches, cut at every step of the stream, equals the one built
 * in one: censuses, entries, band numbers and counts, peaks and their times. Bytes come
 * from a few values, 0 among them (and always for one band), so that peaks tie across
 * the cut (the earlier census keeps the peak);
 * the later stretch meets bands in another order than the earlier (their numbers must
 * follow the serial walk) or, in loop 1, in the same order (the packed entries are
 * copied); the cut falls inside censuses (a head), between them, and after an END
 * (a dropped head). Loop 3 renumbers bands past one byte into censuses packed at one. */
START_TEST(test_heapprof_append_vs_serial)
{
    enum { N_MAX = 560, N_WIDE = 300 };
    hp_op ops[N_MAX];
    uint64_t s = 0x9e3779b97f4a7c15u + (uint64_t)_i, t = 0;
    size_t n = 0, n_ops = 240;
    if (_i == 3) {
        /* A first census of 300 bands (numbered past one byte), then censuses of the
         * first 100 only: a later stretch holding both packs the latter narrower. */
        n_ops = N_MAX;
        ops[n++] = (hp_op){ .what = HP_OP_BEGIN, .t = t += 1 };
        for (unsigned key = 0; key < N_WIDE; key++)
            ops[n++] = (hp_op){ .what = HP_OP_SAMPLE, .key = key, .bytes = 8 + key };
    }
    while (n < n_ops) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        unsigned r = (unsigned)(s >> 33) % 16;
        if (r == 0) {
            ops[n++] = (hp_op){ .what = HP_OP_END };
        } else if (r <= 2) {
            ops[n++] = (hp_op){ .what = HP_OP_BEGIN, .t = t += 1 + (s >> 50) % 3 };
        } else {
            /* Loop 1: every census lists the bands in one order, as the RTS does. */
            unsigned key = _i == 1 ? (unsigned)(n % 12) : (unsigned)(s >> 20) % 12;
            if (_i == 3)
                key = (unsigned)(s >> 20) % 100;
            ops[n++] = (hp_op){ .what = HP_OP_SAMPLE, .key = key,
                                .bytes = key == 11 ? 0 : 8 * ((s >> 40) % 4) };
        }
    }
    heapprof *serial = hp_build_serial(ops, n_ops);
    hp_assert_ok(serial);
    ck_assert_uint_gt(heapprof_n_censuses(serial), 20);
    for (size_t cut = 0; cut <= n_ops; cut += cut < 320 ? 1 : 7) {
        heapprof *dst = heapprof_new();
        hp_append_stretch(dst, ops, 0, cut);
        hp_append_stretch(dst, ops, cut, n_ops);
        heapprof_seal(dst);
        char name[32];
        snprintf(name, sizeof name, "cut at %zu", cut);
        test_heapprof_same(name, serial, dst);
        heapprof_free(dst);
    }
    heapprof_free(serial);
}
END_TEST

/* A profile built in 300 stretches of one census each, each stretch meeting its bands in
 * another order, equals the one built in one: the pool's segments, taken over from each
 * stretch, run out after 255, and the later censuses are copied. */
START_TEST(test_heapprof_append_many)
{
    enum { N_CENSUS = 300, OPS_PER = 5 };
    hp_op *ops = xcalloc(N_CENSUS * OPS_PER, sizeof *ops);       /* freed below */
    size_t n = 0;
    for (unsigned c = 0; c < N_CENSUS; c++) {
        ops[n++] = (hp_op){ .what = HP_OP_BEGIN, .t = 10 + c };
        for (unsigned k = 0; k < 3; k++)
            ops[n++] = (hp_op){ .what = HP_OP_SAMPLE, .key = (c * 7 + k * 5) % 29,
                                .bytes = 8 * (c % 5 + k) };
        ops[n++] = (hp_op){ .what = HP_OP_END };
    }
    heapprof *serial = hp_build_serial(ops, n), *dst = heapprof_new();
    for (size_t i = 0; i < n; i += OPS_PER)
        hp_append_stretch(dst, ops, i, i + OPS_PER);
    heapprof_seal(dst);
    ck_assert_uint_eq(heapprof_n_censuses(dst), N_CENSUS);
    test_heapprof_same("300 stretches", serial, dst);
    heapprof_free(serial);
    heapprof_free(dst);
    x_free(ops);
}
END_TEST

/* heapprof_sample_cstr on the bytes the log holds equals heapprof_sample_string on the
 * string cut at its NUL (nothing when there is none): when the band guessed from the
 * census before is this string's prefix, extends it, is cut short by the end of the
 * bytes, or is a stack; with and without a NUL in the bytes. */
START_TEST(test_heapprof_sample_cstr)
{
    static const struct {
        const char *raw;        /* the bytes, NUL included where there is one */
        size_t avail;
    } census[][6] = {
        { { "abc", 4 }, { "abcd", 5 }, { "ab", 3 }, { "", 1 }, { "xyz", 4 }, { "q", 2 } },
        { { "abc", 4 }, { "abcd", 5 }, { "ab", 3 }, { "", 1 }, { "xyz", 4 }, { "q", 2 } },
        /* at each place: longer than the guess, shorter, no NUL, the guess without room
         * for its NUL, a NUL inside, a stack's place (below) */
        { { "abcz", 5 }, { "abc", 4 }, { "ab", 2 }, { "", 0 }, { "xyz", 3 }, { "q\0r", 4 } },
        { { "abc", 4 }, { "abcd", 5 }, { "ab", 3 }, { "", 1 }, { "xyz", 4 }, { "q", 2 } },
    };
    heapprof *by_cstr = heapprof_new(), *by_string = heapprof_new();
    for (size_t c = 0; c < sizeof census / sizeof census[0]; c++) {
        heapprof_census_begin(by_cstr, 100 * (c + 1));
        heapprof_census_begin(by_string, 100 * (c + 1));
        if (c == 3) {           /* a stack where the census before had a string */
            uint32_t stk[2] = { 5, 6 };
            heapprof_sample_stack(by_cstr, stk, 2, 64);
            heapprof_sample_stack(by_string, stk, 2, 64);
        }
        for (size_t k = 0; k < 6; k++) {
            char raw[8];
            size_t avail = census[c][k].avail;
            memcpy(raw, census[c][k].raw, avail);
            if (c == 2 && k == 5)
                raw[1] = '\0';         /* "q", NUL, "r", NUL */
            uint64_t bytes = 8 * (c + k + 1);
            heapprof_sample_cstr(by_cstr, (const uint8_t *)raw, avail, bytes);
            const char *nul = memchr(raw, 0, avail);
            size_t len = nul ? (size_t)(nul - raw) : 0;
            if (c == 2 && k == 5)
                len = 3;                /* "q", NUL, "r": heapprof_sample_string cuts it */
            if (nul)
                heapprof_sample_string(by_string, (const uint8_t *)raw, len, bytes);
        }
        heapprof_census_end(by_cstr);
        heapprof_census_end(by_string);
    }
    heapprof_seal(by_cstr);
    heapprof_seal(by_string);
    hp_assert_ok(by_string);
    test_heapprof_same("cstr", by_string, by_cstr);
    ck_assert_uint_eq(heapprof_census_at(by_cstr, 2)->n_entries, 3);   /* three dropped */
    heapprof_free(by_cstr);
    heapprof_free(by_string);
}
END_TEST

/* Random censuses over a pool of string and stack bands, against a model that adds up
 * each (census, band) pair. Times go up, except in the second half of the runs, where
 * censuses come in any order with ties (as -hb writes them): the profile must equal the
 * model taken in (time, file) order. */
START_TEST(test_heapprof_random_vs_model)
{
    enum { N_CENSUS = 300, N_KEYS = 150 };
    uint64_t s = 0x2545f4914f6cdd1du ^ (uint64_t)_i;
    heapprof *hp = heapprof_new();
    uint64_t (*model)[N_KEYS] = xcalloc(N_CENSUS, sizeof *model);     /* freed below */
    uint64_t *when = xcalloc(N_CENSUS, sizeof *when);                 /* freed below */
    uint8_t (*seen)[(N_KEYS + 7) / 8] = xcalloc(N_CENSUS, sizeof *seen);  /* freed below */
    uint64_t t = 0;
    for (size_t c = 0; c < N_CENSUS; c++) {
        t += 1 + (s >> 40) % 1000000;
        when[c] = _i >= 2 ? (s >> 40) % 200 : t;
        heapprof_census_begin(hp, when[c]);
        size_t n = (s >> 20) % 40;
        for (size_t e = 0; e < n; e++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            size_t key = (size_t)(s % N_KEYS);
            uint64_t bytes = (s >> 32) % 100000;
            model[c][key] += bytes;
            seen[c][key / 8] |= (uint8_t)(1u << key % 8);
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
    /* The model's censuses in (time, file) order: a stable insertion sort. */
    size_t order[N_CENSUS];
    for (size_t c = 0; c < N_CENSUS; c++) {
        size_t j = c;
        for (; j > 0 && when[order[j - 1]] > when[c]; j--)
            order[j] = order[j - 1];
        order[j] = c;
    }
    for (size_t i = 0; i < N_CENSUS; i++) {
        uint64_t total = 0;
        for (size_t key = 0; key < N_KEYS; key++)
            total += model[order[i]][key];
        ck_assert_uint_eq(heapprof_census_at(hp, i)->time_ns, when[order[i]]);
        ck_assert_uint_eq(heapprof_census_at(hp, i)->total_bytes, total);
    }
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
        uint64_t peak = 0, peak_t = 0, sum = 0, last = model[order[N_CENSUS - 1]][key];
        uint32_t n = 0;
        for (size_t i = 0; i < N_CENSUS; i++) {
            size_t c = order[i];
            if (!(seen[c][key / 8] & (1u << key % 8)))
                continue;
            sum += model[c][key];
            if (n++ == 0 || model[c][key] > peak) {
                peak = model[c][key];
                peak_t = when[c];
            }
        }
        if (band->sum_bytes != sum || band->peak_bytes != peak || band->last_bytes != last ||
            band->peak_time_ns != peak_t || band->n_censuses != n)
            ck_abort_msg("band %zu (key %zu): sum %llu/%llu peak %llu/%llu at %llu/%llu "
                         "last %llu/%llu censuses %u/%u", b, key,
                         (unsigned long long)band->sum_bytes, (unsigned long long)sum,
                         (unsigned long long)band->peak_bytes, (unsigned long long)peak,
                         (unsigned long long)band->peak_time_ns, (unsigned long long)peak_t,
                         (unsigned long long)band->last_bytes, (unsigned long long)last,
                         band->n_censuses, n);
    }
    x_free(seen);
    x_free(when);
    x_free(model);
    heapprof_free(hp);
}
END_TEST

/* ---- real logs against their `ghc-events show` dumps ------------------------------------ */

/* One census entry of a dump: "label TEXT" or "cost centre stack 3, 2, 1" (the dump's
 * own words, trailing blanks cut), and its bytes. */
typedef struct hp_ref_entry {
    char *key;                  /* owned */
    uint64_t bytes;
} hp_ref_entry;

typedef struct hp_ref_census {
    uint64_t time_ns;           /* the biographical begin's "at time", else its timestamp */
    uint64_t begin_ns;          /* the begin line's timestamp */
    size_t first, n;            /* entries */
} hp_ref_census;

typedef struct hp_ref_cc {
    uint32_t id;
    char *label, *module;       /* owned */
} hp_ref_cc;

typedef struct hp_ref {
    hp_ref_census *census;      /* in (time, file) order once hp_ref_load returns */
    size_t n_census, n_bio;
    hp_ref_entry *ent;
    size_t n_ent;
    hp_ref_cc *ccs;             /* the latest definition of an id last */
    size_t n_ccs;
} hp_ref;

static char *
hp_dup(const char *p, size_t n)
{
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r'))
        n--;
    char *d = xmalloc(n + 1);       /* caller frees */
    memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

/* Read a dump's heap-profile lines: cost centres, census begins (plain or biographical),
 * samples, ends. */
static void
hp_ref_load(hp_ref *r, const char *path)
{
    memset(r, 0, sizeof *r);
    size_t len;
    char *text = (char *)test_read_file(path, &len);
    ck_assert_msg(text != NULL, "%s is missing", path);
    size_t cap_census = 0, cap_ent = 0, cap_ccs = 0;
    bool open = false;
    for (size_t at = 0; at < len;) {
        const char *line = text + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + 1;
        char *end;
        uint64_t t = strtoull(line, &end, 10);
        if (end == line || end + 2 > line + n || end[0] != ':' || end[1] != ' ')
            continue;
        const char *body = end + 2;
        size_t bn = n - (size_t)(body - line);
        char *rest = hp_dup(body, bn);          /* NUL-terminated copy, freed below */
        uint64_t v;
        int used = 0;
        if (sscanf(rest, "start heap prof sample %" SCNu64 "%n", &v, &used) == 1 && used) {
            xgrowarray((void **)&r->census, &cap_census, r->n_census + 1, 16,
                       sizeof *r->census);
            hp_ref_census *c = &r->census[r->n_census++];
            c->time_ns = c->begin_ns = t;
            c->first = r->n_ent;
            c->n = 0;
            uint64_t when;
            if (sscanf(rest + used, " at time %" SCNu64, &when) == 1) {
                c->time_ns = when;
                r->n_bio++;
            }
            open = true;
        } else if (open && strncmp(rest, "heap prof sample ", 17) == 0 &&
                   strstr(rest, ", residency ")) {
            const char *p = strstr(rest, ", residency ") + 12;
            uint64_t bytes = strtoull(p, &end, 10);
            ck_assert_msg(end[0] == ',' && end[1] == ' ', "%s: %s", path, rest);
            xgrowarray((void **)&r->ent, &cap_ent, r->n_ent + 1, 64, sizeof *r->ent);
            r->ent[r->n_ent++] = (hp_ref_entry){ hp_dup(end + 2, strlen(end + 2)), bytes };
            r->census[r->n_census - 1].n++;
        } else if (strncmp(rest, "end prof sample", 15) == 0) {
            open = false;
        } else if (sscanf(rest, "cost centre %" SCNu64 "%n", &v, &used) == 1 && used &&
                   rest[used] == ' ') {
            const char *label = rest + used + 1;
            const char *in = strstr(label, " in "), *atp = in ? strstr(in + 4, " at ") : NULL;
            ck_assert_msg(atp != NULL, "%s: %s", path, rest);
            xgrowarray((void **)&r->ccs, &cap_ccs, r->n_ccs + 1, 64, sizeof *r->ccs);
            r->ccs[r->n_ccs++] = (hp_ref_cc){ (uint32_t)v, hp_dup(label, (size_t)(in - label)),
                                               hp_dup(in + 4, (size_t)(atp - in - 4)) };
        }
        x_free(rest);
    }
    x_free(text);
    /* Time order, file order among equal times: a stable insertion sort. */
    for (size_t i = 1; i < r->n_census; i++) {
        hp_ref_census c = r->census[i];
        size_t j = i;
        for (; j > 0 && r->census[j - 1].time_ns > c.time_ns; j--)
            r->census[j] = r->census[j - 1];
        r->census[j] = c;
    }
}

static void
hp_ref_free(hp_ref *r)
{
    for (size_t i = 0; i < r->n_ent; i++)
        x_free(r->ent[i].key);
    for (size_t i = 0; i < r->n_ccs; i++) {
        x_free(r->ccs[i].label);
        x_free(r->ccs[i].module);
    }
    x_free(r->census);
    x_free(r->ent);
    x_free(r->ccs);
}

/* Bytes of `key` in dump census c (entries naming it twice add up); false if absent. */
static bool
hp_ref_bytes(const hp_ref *r, const hp_ref_census *c, const char *key, uint64_t *bytes)
{
    bool found = false;
    *bytes = 0;
    for (size_t e = c->first; e < c->first + c->n; e++)
        if (strcmp(r->ent[e].key, key) == 0) {
            *bytes += r->ent[e].bytes;
            found = true;
        }
    return found;
}

/* Distinct keys of dump census c. */
static size_t
hp_ref_distinct(const hp_ref *r, const hp_ref_census *c)
{
    size_t n = 0;
    for (size_t e = c->first; e < c->first + c->n; e++) {
        size_t k = c->first;
        while (k < e && strcmp(r->ent[k].key, r->ent[e].key) != 0)
            k++;
        n += k == e;
    }
    return n;
}

/* Band b in the dump's words (see hp_ref_entry). */
static void
hp_band_key(const heapprof *hp, size_t b, strbuf *out)
{
    strbuf_reset(out);
    size_t depth;
    const uint32_t *stk = heapprof_band_stack(hp, b, &depth);
    if (heapprof_band_at(hp, b)->kind == HEAPPROF_BAND_STRING) {
        strbuf_puts(out, "label ");
        heapprof_band_name(hp, b, out);
    } else {
        strbuf_puts(out, "cost centre stack");
        for (size_t i = 0; i < depth; i++)
            strbuf_printf(out, "%s%u", i ? ", " : " ", stk[i]);
    }
    strbuf_putc(out, '\0');
}

/* Stack band b's name by the RTS's rule, from the dump's cost-centre lines: labels
 * innermost first joined by '/', a "CAF" cost centre as "Module.CAF", MAIN when empty. */
static void
hp_ref_stack_name(const hp_ref *r, const uint32_t *stk, size_t depth, strbuf *out)
{
    strbuf_reset(out);
    if (depth == 0)
        strbuf_puts(out, "MAIN");
    for (size_t i = 0; i < depth; i++) {
        const hp_ref_cc *cc = NULL;
        for (size_t k = 0; k < r->n_ccs; k++)
            if (r->ccs[k].id == stk[i])
                cc = &r->ccs[k];
        ck_assert_msg(cc != NULL, "cost centre %u is not defined in the dump", stk[i]);
        if (i)
            strbuf_putc(out, '/');
        if (strcmp(cc->label, "CAF") == 0)
            strbuf_printf(out, "%s.CAF", cc->module);
        else
            strbuf_puts(out, cc->label);
    }
    strbuf_putc(out, '\0');
}

/* Check the index of `log` (built with `threads`) against dump r: census times (a
 * biographical census at its own "at time"), each census's bytes per band, each band's
 * peak, its time, sum, count and last bytes, band names, the heap-profile series and
 * `heap --censuses`. */
static void
hp_check_log(const char *name, evlog *log, const hp_ref *r, unsigned threads)
{
    diag ending;
    evindex_opts opts = { .threads = threads };
    evindex *ix = evindex_build(log, &opts, &ending);
    ck_assert_ptr_nonnull(ix);
    const heapprof *hp = evindex_heap_profile(ix);
    hp_assert_ok(hp);
    ck_assert_msg(heapprof_n_censuses(hp) == r->n_census, "%s: %zu censuses, dump %zu", name,
                  heapprof_n_censuses(hp), r->n_census);
    strbuf key, tmp;
    strbuf_init(&key);
    strbuf_init(&tmp);
    for (size_t i = 0; i < r->n_census; i++) {
        const hp_ref_census *rc = &r->census[i];
        const heapprof_census *c = heapprof_census_at(hp, i);
        ck_assert_msg(c->time_ns == rc->time_ns, "%s census %zu: at %llu, dump %llu", name, i,
                      (unsigned long long)c->time_ns, (unsigned long long)rc->time_ns);
        ck_assert_msg(c->n_entries == hp_ref_distinct(r, rc), "%s census %zu: %u bands, dump %zu",
                      name, i, c->n_entries, hp_ref_distinct(r, rc));
        uint64_t total = 0;
        for (size_t k = 0; k < c->n_entries; k++) {
            uint32_t band;
            uint64_t bytes, want;
            heapprof_entry(hp, i, k, &band, &bytes);
            hp_band_key(hp, band, &key);
            ck_assert_msg(hp_ref_bytes(r, rc, key.data, &want) && want == bytes,
                          "%s census %zu: %s has %llu bytes, dump %llu", name, i, key.data,
                          (unsigned long long)bytes, (unsigned long long)want);
            total += want;
        }
        ck_assert_uint_eq(c->total_bytes, total);
        /* The viewer's heap lane: the census in force at its own time is itself. */
        size_t by = heapprof_census_by(hp, rc->time_ns);
        ck_assert(by != SIZE_MAX && heapprof_census_at(hp, by)->time_ns == rc->time_ns);
    }
    /* Each band against a recount of the dump in time order. */
    for (size_t b = 0; b < heapprof_n_bands(hp); b++) {
        const heapprof_band *band = heapprof_band_at(hp, b);
        hp_band_key(hp, b, &key);
        uint64_t peak = 0, peak_t = 0, sum = 0, last = 0, bytes;
        uint32_t n = 0;
        for (size_t i = 0; i < r->n_census; i++) {
            if (!hp_ref_bytes(r, &r->census[i], key.data, &bytes))
                continue;
            sum += bytes;
            if (n++ == 0 || bytes > peak) {
                peak = bytes;
                peak_t = r->census[i].time_ns;
            }
        }
        if (r->n_census)
            (void)hp_ref_bytes(r, &r->census[r->n_census - 1], key.data, &last);
        ck_assert_msg(band->peak_bytes == peak && band->peak_time_ns == peak_t &&
                      band->sum_bytes == sum && band->n_censuses == n &&
                      band->last_bytes == last,
                      "%s band %s: peak %llu at %llu sum %llu in %u last %llu; dump %llu at "
                      "%llu sum %llu in %u last %llu", name, key.data,
                      (unsigned long long)band->peak_bytes,
                      (unsigned long long)band->peak_time_ns,
                      (unsigned long long)band->sum_bytes, band->n_censuses,
                      (unsigned long long)band->last_bytes, (unsigned long long)peak,
                      (unsigned long long)peak_t, (unsigned long long)sum, n,
                      (unsigned long long)last);
        if (band->kind == HEAPPROF_BAND_STACK) {
            size_t depth;
            const uint32_t *stk = heapprof_band_stack(hp, b, &depth);
            hp_ref_stack_name(r, stk, depth, &key);
            strbuf_reset(&tmp);
            heapprof_band_name(hp, b, &tmp);
            strbuf_putc(&tmp, '\0');
            ck_assert_msg(strcmp(tmp.data, key.data) == 0, "%s: band %s, by the dump %s", name,
                          tmp.data, key.data);
        }
    }
    /* The heap lane's series: one sample per census, at its time, with its total. */
    const series *sr = evindex_series(ix, EVINDEX_S_HEAP_PROF);
    ck_assert_uint_eq(series_count(sr), r->n_census);
    for (size_t i = 0; i < r->n_census; i++) {
        series_sample smp = series_get(sr, i);
        ck_assert_uint_eq(smp.time_ns, r->census[i].time_ns);
        ck_assert_uint_eq(smp.value, heapprof_census_at(hp, i)->total_bytes);
    }
    /* `heap --censuses`: every row's time is its census's, in the dump's order. */
    strbuf out;
    strbuf_init(&out);
    reports_opts o = { .censuses = true };
    reports_heap(&out, ix, &o);
    strbuf_putc(&out, '\0');
    const char *p = strchr(out.data, '\n');
    ck_assert_ptr_nonnull(p);
    for (size_t i = 0; i < r->n_census; i++)
        for (size_t k = 0; k < heapprof_census_at(hp, i)->n_entries; k++) {
            char *end;
            uint64_t t = strtoull(p + 1, &end, 10);
            ck_assert_msg(end != p + 1 && *end == '\t' && t == r->census[i].time_ns,
                          "%s heap --censuses: row at %llu, dump census %zu at %llu", name,
                          (unsigned long long)t, i, (unsigned long long)r->census[i].time_ns);
            p = strchr(end, '\n');
            ck_assert_ptr_nonnull(p);
        }
    ck_assert(p[1] == '\0');
    strbuf_free(&out);
    strbuf_free(&key);
    strbuf_free(&tmp);
    evindex_free(ix);
}

/* Open log `path` and check it against dump `ref`; bio: every census is biographical
 * and at least one was taken well before it was written (the -hb defect's shape). */
static void
hp_check_pair(const char *path, const char *ref, bool bio)
{
    hp_ref r;
    hp_ref_load(&r, ref);
    ck_assert_msg(r.n_census > 0, "%s: no census in the dump", ref);
    if (bio) {
        ck_assert_uint_eq(r.n_bio, r.n_census);
        bool early = false;
        for (size_t i = 0; i < r.n_census; i++)
            early |= r.census[i].begin_ns - r.census[i].time_ns > 10000000;
        ck_assert_msg(early, "%s: no census taken 10 ms before it was written", ref);
    } else {
        ck_assert_uint_eq(r.n_bio, 0);
    }
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_msg(log != NULL, "%s: %s", path, d.msg);
    hp_check_log(path, log, &r, 1);
    hp_check_log(path, log, &r, 3);     /* the parallel build: the same profile */
    evlog_close(log);
    hp_ref_free(&r);
}

static const struct {
    const char *name;
    bool bio;
} hp_fixtures[] = {
    { "heapprof-hT", false },
    { "heapprof-hc", false },
    { "heapprof-hb", true },
    { "heapprof-hr", false },
};

START_TEST(test_heapprof_fixtures_vs_dump)
{
    strbuf log, ref;
    strbuf_init(&log);
    strbuf_init(&ref);
    strbuf_printf(&log, "fixtures/%s.eventlog", hp_fixtures[_i].name);
    strbuf_printf(&ref, "fixtures/%s.eventlog.ref017", hp_fixtures[_i].name);
    char *lp = test_path(log.data), *rp = test_path(ref.data);
    hp_check_pair(lp, rp, hp_fixtures[_i].bio);
    x_free(lp);
    x_free(rp);
    strbuf_free(&log);
    strbuf_free(&ref);
}
END_TEST

static const struct {
    const char *name;
    bool bio;
} hp_corpus[] = {
    { "biographical-samples", true },
    { "sleep.h", false },
    { "sleep.hC", false },
    { "sleep.hd", false },
    { "sleep.hm", false },
    { "sleep.hy", false },
};

START_TEST(test_heapprof_corpus_vs_dump)
{
    char *dir = test_corpus_dir();
    if (!dir)
        return;                 /* ../shared is absent: nothing to compare with */
    strbuf log, ref;
    strbuf_init(&log);
    strbuf_init(&ref);
    strbuf_printf(&log, "%s/%s.eventlog", dir, hp_corpus[_i].name);
    strbuf_printf(&ref, "%s/%s.eventlog.reference", dir, hp_corpus[_i].name);
    hp_check_pair(log.data, ref.data, hp_corpus[_i].bio);
    strbuf_free(&log);
    strbuf_free(&ref);
    x_free(dir);
}
END_TEST

/* The packed census entries at their edges: an empty census, bytes of 0, 1, 2^63 and
 * 2^64 - 1 (no common shift, the widest values), whole words only (a shift), band ids
 * past 255 and 65535 (wider band fields), a band named twice adding up, and a census
 * begun after a seal; every entry read back exactly, in census order and in place. */
START_TEST(test_heapprof_packed_edges)
{
    enum { N_BANDS = 70000 };
    heapprof *hp = heapprof_new();
    char text[16];
    /* Census 0 names every band once (band b is "k<b>", ids in first-seen order). */
    heapprof_census_begin(hp, 100);
    for (uint32_t b = 0; b < N_BANDS; b++) {
        int len = snprintf(text, sizeof text, "k%u", b);
        heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, 8ull * b);
    }
    heapprof_census_begin(hp, 200);         /* empty; closes census 0 */
    static const struct { uint32_t band; uint64_t bytes; } c2[] = {
        { 0, 0 }, { 300, 1 }, { 69999, UINT64_MAX }, { 65536, 1ull << 63 }, { 7, 0 },
    };
    heapprof_census_begin(hp, 300);
    for (size_t k = 0; k < sizeof c2 / sizeof c2[0]; k++) {
        int len = snprintf(text, sizeof text, "k%u", c2[k].band);
        heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, c2[k].bytes);
    }
    heapprof_census_end(hp);
    heapprof_census_begin(hp, 400);         /* words only, one band twice: 4096 + 8 */
    heapprof_sample_string(hp, (const uint8_t *)"k5", 2, 4096);
    heapprof_sample_string(hp, (const uint8_t *)"k70", 3, 1ull << 40);
    heapprof_sample_string(hp, (const uint8_t *)"k5", 2, 8);
    heapprof_seal(hp);
    hp_assert_ok(hp);
    heapprof_census_begin(hp, 50);          /* after the seal, and earlier than all */
    heapprof_sample_string(hp, (const uint8_t *)"k1", 2, 3);
    heapprof_seal(hp);
    hp_assert_ok(hp);

    ck_assert_uint_eq(heapprof_n_censuses(hp), 5);
    uint32_t band;
    uint64_t bytes;
    /* In time order: 50, 100, 200, 300, 400. */
    ck_assert_uint_eq(heapprof_census_at(hp, 0)->n_entries, 1);
    heapprof_entry(hp, 0, 0, &band, &bytes);
    ck_assert_str_eq(hp_name(hp, band), "k1");
    ck_assert_uint_eq(bytes, 3);
    const heapprof_census *c = heapprof_census_at(hp, 1);
    ck_assert_uint_eq(c->time_ns, 100);
    ck_assert_uint_eq(c->n_entries, N_BANDS);
    size_t bad = SIZE_MAX;          /* one assertion for all (each costs a pipe write) */
    for (uint32_t k = 0; k < N_BANDS && bad == SIZE_MAX; k++) {
        heapprof_entry(hp, 1, k, &band, &bytes);
        if (band != k || bytes != 8ull * k)
            bad = k;
    }
    ck_assert_msg(bad == SIZE_MAX, "census 100 entry %zu: band %u, %llu bytes", bad, band,
                  (unsigned long long)bytes);
    ck_assert_uint_eq(heapprof_census_at(hp, 2)->n_entries, 0);
    ck_assert_uint_eq(heapprof_census_at(hp, 2)->total_bytes, 0);
    c = heapprof_census_at(hp, 3);
    ck_assert_uint_eq(c->n_entries, sizeof c2 / sizeof c2[0]);
    for (size_t k = 0; k < sizeof c2 / sizeof c2[0]; k++) {
        heapprof_entry(hp, 3, k, &band, &bytes);
        ck_assert_uint_eq(band, c2[k].band);
        ck_assert_uint_eq(bytes, c2[k].bytes);
    }
    c = heapprof_census_at(hp, 4);
    ck_assert_uint_eq(c->n_entries, 2);
    ck_assert_uint_eq(c->total_bytes, 4096 + 8 + (1ull << 40));
    heapprof_entry(hp, 4, 0, &band, &bytes);
    ck_assert_str_eq(hp_name(hp, band), "k5");
    ck_assert_uint_eq(bytes, 4104);
    heapprof_entry(hp, 4, 1, &band, &bytes);
    ck_assert_str_eq(hp_name(hp, band), "k70");
    ck_assert_uint_eq(bytes, 1ull << 40);
    /* The largest band's peak is 2^64 - 1, in census 300; its last bytes are 0. */
    const heapprof_band *big = heapprof_band_at(hp, 69999);
    ck_assert_uint_eq(big->peak_bytes, UINT64_MAX);
    ck_assert_uint_eq(big->peak_time_ns, 300);
    ck_assert_uint_eq(big->last_bytes, 0);
    ck_assert_uint_eq(heapprof_band_at(hp, 5)->last_bytes, 4104);
    /* Another census of every band, once sealed, costs 3 bytes of band id and 3 of word
     * count (shift 3) per entry, not the 12 an unpacked entry took. */
    size_t before = heapprof_bytes(hp);
    heapprof_census_begin(hp, 500);
    for (uint32_t b = 0; b < N_BANDS; b++) {
        int len = snprintf(text, sizeof text, "k%u", b);
        heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, 8ull * b);
    }
    heapprof_seal(hp);
    hp_assert_ok(hp);
    ck_assert_uint_le(heapprof_bytes(hp) - before, (size_t)N_BANDS * 6 + 1024);
    heapprof_entry(hp, 5, N_BANDS - 1, &band, &bytes);
    ck_assert_uint_eq(band, N_BANDS - 1);
    ck_assert_uint_eq(bytes, 8ull * (N_BANDS - 1));
    heapprof_free(hp);
}
END_TEST

/* heapprof_census_bands against a scan of the census's entries, and heapbands_top_by_peak
 * against the first k of heapbands_by_peak: random censuses (bands reordered, dropped,
 * peaks tied), the last one left open, asked with right, stale and out-of-range hints. */
START_TEST(test_heapprof_census_bands)
{
    enum { N_CENSUS = 60, N_KEYS = 40 };
    uint64_t s = 0x9e3779b97f4a7c15u ^ (uint64_t)_i;
    heapprof *hp = heapprof_new();
    char text[16];
    for (size_t c = 0; c < N_CENSUS; c++) {
        heapprof_census_begin(hp, 1000 * (c + 1));
        size_t n = (s >> 20) % 30;
        for (size_t e = 0; e < n; e++) {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            /* Peaks from a few values, so bands tie. */
            int len = snprintf(text, sizeof text, "b%u", (unsigned)(s % N_KEYS));
            heapprof_sample_string(hp, (const uint8_t *)text, (size_t)len, 8 * ((s >> 32) % 4));
        }
        if (c == N_CENSUS / 2)
            heapprof_seal(hp);
    }
    hp_assert_ok(hp);          /* the last census is still open */
    size_t nb;
    uint32_t *order = heapbands_by_peak(hp, &nb);
    for (size_t k = 0; k <= nb + 2; k++) {
        uint32_t top[N_KEYS + 3];
        size_t got = heapbands_top_by_peak(hp, k, top);
        ck_assert_uint_eq(got, k < nb ? k : nb);
        for (size_t j = 0; j < got; j++)
            ck_assert_uint_eq(top[j], order[j]);
    }
    x_free(order);
    uint32_t bands[6], hint[6], hits = 0, scans = 0;
    ck_assert_uint_ge(nb, 28);
    for (size_t j = 0; j < 6; j++) {
        bands[j] = (uint32_t)(j * 5 + (size_t)_i);      /* distinct */
        hint[j] = (uint32_t)(j * 1000);       /* out of range at first */
    }
    for (size_t round = 0; round < 3; round++) {
        for (size_t i = 0; i < heapprof_n_censuses(hp) + 1; i++) {
            uint32_t was[6];
            memcpy(was, hint, sizeof was);
            uint64_t bytes[6];
            heapprof_census_bands(hp, i, bands, 6, hint, bytes);
            const heapprof_census *cs = heapprof_census_at(hp, i);
            for (size_t j = 0; j < 6; j++) {
                uint64_t want = 0;
                size_t at = SIZE_MAX;
                for (size_t k = 0; cs && k < cs->n_entries; k++) {
                    uint32_t b;
                    uint64_t v;
                    heapprof_entry(hp, i, k, &b, &v);
                    if (b == bands[j]) {
                        want = v;
                        at = k;
                    }
                }
                ck_assert_uint_eq(bytes[j], want);
                ck_assert_uint_eq(hint[j], at == SIZE_MAX ? was[j] : at);
                hits += at != SIZE_MAX && at == was[j];
                scans += at != SIZE_MAX && at != was[j];
            }
            if (round == 2 && i % 3 == 0)      /* stale hints: another band's place */
                for (size_t j = 0; j < 6; j++)
                    hint[j] = hint[(j + 1) % 6];
        }
    }
    ck_assert_uint_gt(hits, 0);       /* both ways were taken */
    ck_assert_uint_gt(scans, 0);
    heapprof_free(hp);
}
END_TEST

Suite *
test_heapprof_suite(void)
{
    Suite *s = suite_create("heapprof");
    TCase *tc = tcase_create("heapprof");
    tcase_add_test(tc, test_heapprof_bands);
    tcase_add_loop_test(tc, test_heapprof_random_vs_model, 0, 4);
    tcase_add_loop_test(tc, test_heapprof_append_vs_serial, 0, 4);
    tcase_add_test(tc, test_heapprof_append_many);
    tcase_add_test(tc, test_heapprof_sample_cstr);
    tcase_add_test(tc, test_heapprof_packed_edges);
    tcase_add_loop_test(tc, test_heapprof_census_bands, 0, 3);
    tcase_add_loop_test(tc, test_heapprof_fixtures_vs_dump, 0,
                        (int)(sizeof hp_fixtures / sizeof hp_fixtures[0]));
    tcase_add_loop_test(tc, test_heapprof_corpus_vs_dump, 0,
                        (int)(sizeof hp_corpus / sizeof hp_corpus[0]));
    suite_add_tcase(s, tc);
    return s;
}
