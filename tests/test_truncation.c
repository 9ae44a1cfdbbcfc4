/* tests/test_truncation: `show` over every prefix of small real logs (what a killed or
 * still-running program leaves behind) and over ~2000 seeded random corruptions: no
 * crash, bounded time, and what a prefix prints is exactly its complete events. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "diag.h"
#include "evlog.h"
#include "show.h"
#include "tests.h"
#include "xalloc.h"

#define TRUNC_MAX_FIXTURE 20000     /* fixtures/ logs at most this big get every prefix */
#define TRUNC_CASE_SECONDS 2.0      /* any single corrupted input must finish within */

/* ck_assert_msg without Check's bookkeeping for a passing assertion (one write to the
 * runner each): these loops check tens of thousands of inputs. */
#define TRUNC_CHECK(cond, ...)                                                            \
    do {                                                                                  \
        if (!(cond))                                                                      \
            ck_abort_msg(__VA_ARGS__);                                                    \
    } while (0)

/* One `show` run over bytes in memory. */
typedef struct trunc_run {
    bool parsed;                    /* the header parsed */
    diag open;                      /* why not, when !parsed */
    char *text;                     /* listing (malloc'd), NULL when !parsed */
    size_t len;
    diag ending;                    /* how the data ended, when parsed */
    show_stats st;
} trunc_run;

/* `show` over a private copy of exactly `len` bytes, so that ASan sees any read past
 * the end of the input. */
static void
trunc_show(const uint8_t *data, size_t len, trunc_run *r)
{
    memset(r, 0, sizeof *r);
    uint8_t *copy = xmalloc(len ? len : 1);
    if (len)
        memcpy(copy, data, len);
    diag_clear(&r->open);
    diag_clear(&r->ending);
    evlog *log = evlog_open_bytes(copy, len, &r->open);
    if (log) {
        r->parsed = true;
        FILE *f = open_memstream(&r->text, &r->len);
        TRUNC_CHECK(f != NULL, "open_memstream failed");
        TRUNC_CHECK(show_write(log, f, &r->ending, &r->st), "show_write failed");
        TRUNC_CHECK(fclose(f) == 0, "fclose of the memory stream failed");
        evlog_close(log);
    }
    x_free(copy);
}

static void
trunc_run_free(trunc_run *r)
{
    free(r->text);
    r->text = NULL;
}

/* A line of the listing, borrowed. */
typedef struct trunc_line {
    const char *p;
    size_t len;
} trunc_line;

static int
trunc_cmp_line(const void *a, const void *b)
{
    const trunc_line *x = a, *y = b;
    int c = memcmp(x->p, y->p, x->len < y->len ? x->len : y->len);
    if (c)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

/* The non-empty lines after "Events:", sorted. *n gets their number. Caller frees. */
static trunc_line *
trunc_event_lines(const char *text, size_t len, size_t *n)
{
    static const char mark[] = "\nEvents:\n";
    const char *p = NULL;
    for (size_t i = 0; i + sizeof mark - 1 <= len; i++)
        if (memcmp(text + i, mark, sizeof mark - 1) == 0) {
            p = text + i + sizeof mark - 1;
            break;
        }
    TRUNC_CHECK(p != NULL, "listing has no \"Events:\" line");
    const char *end = text + len;
    size_t cap = 64, k = 0;
    trunc_line *v = xreallocarray(NULL, cap, sizeof *v);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (le > p) {
            if (k == cap) {
                cap *= 2;
                v = xreallocarray(v, cap, sizeof *v);
            }
            v[k].p = p;
            v[k].len = (size_t)(le - p);
            k++;
        }
        p = nl ? nl + 1 : end;
    }
    qsort(v, k, sizeof *v, trunc_cmp_line);
    *n = k;
    return v;
}

/* Is sorted `a` a sub-multiset of sorted `b`? If not, *missing is the first line of a
 * that b lacks. */
static bool
trunc_submultiset(const trunc_line *a, size_t na, const trunc_line *b, size_t nb,
                  const trunc_line **missing)
{
    size_t j = 0;
    for (size_t i = 0; i < na; i++) {
        while (j < nb && trunc_cmp_line(&b[j], &a[i]) < 0)
            j++;
        if (j == nb || trunc_cmp_line(&b[j], &a[i]) != 0) {
            *missing = &a[i];
            return false;
        }
        j++;
    }
    return true;
}

/* Every prefix of `data`: the header fails to parse exactly while the prefix is shorter
 * than the header; after that the prefix lists exactly its complete events (a
 * sub-multiset of the full listing, never fewer as L grows) and ends TRUNCATED at the
 * first incomplete one. Returns the number of prefixes checked. */
static size_t
trunc_every_prefix(const char *name, const uint8_t *data, size_t size)
{
    diag d;
    diag_clear(&d);
    evlog *full_log = evlog_open_bytes(data, size, &d);
    TRUNC_CHECK(full_log != NULL, "%s: the whole log does not open: %s", name, d.msg);
    uint64_t data_start = evlog_data_start(full_log);

    /* End offsets of the complete events, in file order. */
    size_t n_ev = 0, cap = 256;
    uint64_t *ends = xreallocarray(NULL, cap, sizeof *ends);
    evlog_iter it;
    evlog_iter_init(&it, full_log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (n_ev == cap) {
            cap *= 2;
            ends = xreallocarray(ends, cap, sizeof *ends);
        }
        ends[n_ev++] = ev.offset + ev.size;
    }
    TRUNC_CHECK(it.state == EVLOG_ITER_END || it.state == EVLOG_ITER_TRUNCATED,
                "%s: malformed data at byte %" PRIu64 ": %s", name, it.diag.offset, it.diag.msg);
    evlog_close(full_log);

    trunc_run full;
    trunc_show(data, size, &full);
    ck_assert(full.parsed);
    ck_assert_uint_eq(full.st.n_events, n_ev);
    size_t n_full_lines = 0;
    trunc_line *full_lines = trunc_event_lines(full.text, full.len, &n_full_lines);

    size_t prev_lines = 0, k = 0;       /* k: complete events within the prefix */
    for (size_t L = 0; L <= size; L++) {
        while (k < n_ev && ends[k] <= L)
            k++;
        trunc_run r;
        trunc_show(data, L, &r);
        if (!r.parsed) {
            TRUNC_CHECK(L < data_start, "%s: prefix of %zu bytes holds the whole header "
                        "(%" PRIu64 " bytes) but does not parse: %s", name, L, data_start,
                        r.open.msg);
            TRUNC_CHECK(r.open.code == DIAG_NOT_EVENTLOG || r.open.code == DIAG_BAD_HEADER,
                        "%s: prefix %zu: open error code %d", name, L, r.open.code);
            TRUNC_CHECK(r.open.offset <= L, "%s: prefix %zu: header error at byte %" PRIu64
                        " beyond the end", name, L, r.open.offset);
            continue;
        }
        TRUNC_CHECK(L >= data_start, "%s: prefix of %zu bytes parses, but the header is "
                    "%" PRIu64 " bytes", name, L, data_start);
        TRUNC_CHECK(r.st.n_events == k, "%s: prefix %zu lists %zu events, it holds %zu "
                    "complete ones", name, L, r.st.n_events, k);
        if (L < size) {
            TRUNC_CHECK(r.ending.code == DIAG_TRUNCATED, "%s: prefix %zu: ending code %d, "
                        "expected DIAG_TRUNCATED", name, L, r.ending.code);
            uint64_t cut_at = k ? ends[k - 1] : data_start;
            TRUNC_CHECK(r.ending.offset == cut_at, "%s: prefix %zu: truncation reported at "
                        "byte %" PRIu64 ", the first incomplete event starts at %" PRIu64,
                        name, L, r.ending.offset, cut_at);
        } else {
            TRUNC_CHECK(r.ending.code == full.ending.code, "%s: whole log: ending %d then %d",
                        name, full.ending.code, r.ending.code);
        }
        size_t n_lines = 0;
        trunc_line *lines = trunc_event_lines(r.text, r.len, &n_lines);
        TRUNC_CHECK(n_lines >= prev_lines, "%s: prefix %zu prints %zu event lines, prefix "
                    "%zu printed %zu", name, L, n_lines, L - 1, prev_lines);
        prev_lines = n_lines;
        const trunc_line *missing = NULL;
        TRUNC_CHECK(trunc_submultiset(lines, n_lines, full_lines, n_full_lines, &missing),
                    "%s: prefix %zu prints a line the full log does not: \"%.*s\"", name, L,
                    missing ? (int)missing->len : 0, missing ? missing->p : "");
        x_free(lines);
        trunc_run_free(&r);
    }
    ck_assert_uint_eq(prev_lines, n_full_lines);
    x_free(full_lines);
    trunc_run_free(&full);
    x_free(ends);
    return size + 1;
}

/* Every prefix of a corpus log; prints SKIPPED when the corpus is absent. */
static void
trunc_corpus_log(const char *file)
{
    char *dir = test_corpus_dir();
    if (!dir) {
        fprintf(stderr, "corpus: ../shared/corpus/ghc-events-tests not found, truncation test "
                "of %s SKIPPED\n", file);
        return;
    }
    strbuf p;
    strbuf_init(&p);
    strbuf_printf(&p, "%s/%s", dir, file);
    size_t len = 0;
    uint8_t *data = test_read_file(p.data, &len);
    TRUNC_CHECK(data != NULL, "cannot read %s", p.data);
    ck_assert_uint_eq(trunc_every_prefix(file, data, len), len + 1);
    x_free(data);
    strbuf_free(&p);
    x_free(dir);
}

START_TEST(test_trunc_hello)
{
    trunc_corpus_log("hello-ghc-8.6.5.eventlog");
}
END_TEST

START_TEST(test_trunc_nonmoving)
{
    trunc_corpus_log("nonmoving-gc.eventlog");
}
END_TEST

/* Every .eventlog in fixtures/ of at most TRUNC_MAX_FIXTURE bytes. */
START_TEST(test_trunc_fixtures)
{
    char *dir = test_path("fixtures");
    size_t done = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        if (nl <= 9 || strcmp(de->d_name + nl - 9, ".eventlog") != 0)
            continue;
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(p.data, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= TRUNC_MAX_FIXTURE) {
            size_t len = 0;
            uint8_t *data = test_read_file(p.data, &len);
            TRUNC_CHECK(data != NULL, "cannot read %s", p.data);
            trunc_every_prefix(de->d_name, data, len);
            done++;
            x_free(data);
        }
        strbuf_free(&p);
    }
    if (d)
        closedir(d);
    fprintf(stderr, "truncation: %zu fixture log(s) of at most %d bytes checked at every "
            "prefix\n", done, TRUNC_MAX_FIXTURE);
    x_free(dir);
}
END_TEST

/* A log built here (so this suite has a subject without the corpus): two capability
 * blocks and a global one, fixed and variable-size events. */
static void
trunc_built_log(tlog *t)
{
    tlog_init(t);
    tlog_header_begin(t);
    tlog_standard_header(t);
    tlog_header_end(t);
    for (uint16_t cap = 0; cap < 3; cap++) {
        tlog body;
        tlog_init(&body);
        for (uint32_t i = 0; i < 6; i++) {
            uint64_t ts = 1000 + 100 * i + cap;
            tlog_event(&body, EV_RUN_THREAD, ts);
            tlog_u32(&body, i + 1);
            tlog_event(&body, EV_USER_MSG, ts + 10);
            static const char msg[] = "hello from a test";
            tlog_u16(&body, (uint16_t)(sizeof msg - 1 - i));
            tlog_bytes(&body, msg, sizeof msg - 1 - i);
            tlog_event(&body, EV_STOP_THREAD, ts + 20);
            tlog_u32(&body, i + 1);
            tlog_u16(&body, (uint16_t)(i % 6));
            tlog_u32(&body, 0);
        }
        uint16_t bcap = cap == 2 ? 0xffff : cap;
        tlog_block(t, 900 + cap, (uint32_t)body.b.len, 2000, bcap);
        tlog_bytes(t, body.b.data, body.b.len);
        tlog_free(&body);
    }
    tlog_end(t);
}

START_TEST(test_trunc_built)
{
    tlog t;
    trunc_built_log(&t);
    size_t n = trunc_every_prefix("built", (const uint8_t *)t.b.data, t.b.len);
    ck_assert_uint_eq(n, t.b.len + 1);
    tlog_free(&t);
}
END_TEST

/* xorshift64*: the corruption generator, seeded per case. */
static uint64_t
trunc_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static size_t
trunc_below(uint64_t *s, size_t n)
{
    return n ? (size_t)(trunc_rand(s) % n) : 0;
}

static void
trunc_put_be(uint8_t *p, uint64_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* A random position, in the data section 3 times out of 4. */
static size_t
trunc_pos(uint64_t *s, size_t len, size_t data_start)
{
    if (data_start < len && trunc_below(s, 4) != 0)
        return data_start + trunc_below(s, len - data_start);
    return trunc_below(s, len);
}

/* One random corruption of buf (len may change; buf has room for len + 512). `evs` are
 * the event offsets of the intact log, for targeted damage. */
static void
trunc_corrupt(uint64_t *s, uint8_t *buf, size_t *len, size_t data_start, const uint64_t *evs,
              size_t n_evs)
{
    size_t n = *len;
    if (n < 16)
        return;
    switch (trunc_below(s, 9)) {
    case 0: /* bit flips */
        for (size_t k = 1 + trunc_below(s, 8); k > 0; k--) {
            size_t at = trunc_pos(s, n, data_start);
            buf[at] ^= (uint8_t)(1u << trunc_below(s, 8));
        }
        break;
    case 1: { /* 0xffff somewhere (lengths, sizes, type ids) */
        size_t at = trunc_pos(s, n - 1, data_start);
        buf[at] = 0xff;
        buf[at + 1] = 0xff;
        break;
    }
    case 2: { /* zeroed range */
        size_t at = trunc_pos(s, n, data_start);
        size_t l = 1 + trunc_below(s, 64);
        memset(buf + at, 0, l < n - at ? l : n - at);
        break;
    }
    case 3: { /* splice: a range copied over another */
        size_t from = trunc_below(s, n), to = trunc_pos(s, n, data_start);
        size_t l = 1 + trunc_below(s, 128);
        if (l > n - from)
            l = n - from;
        if (l > n - to)
            l = n - to;
        memmove(buf + to, buf + from, l);
        break;
    }
    case 4: { /* splice: a range inserted (the log grows) */
        size_t from = trunc_below(s, n), to = trunc_pos(s, n, data_start);
        size_t l = 1 + trunc_below(s, 64);
        if (l > n - from)
            l = n - from;
        uint8_t tmp[64];
        memcpy(tmp, buf + from, l);
        memmove(buf + to + l, buf + to, n - to);
        memcpy(buf + to, tmp, l);
        *len = n + l;
        break;
    }
    case 5: { /* a range deleted */
        size_t at = trunc_pos(s, n, data_start);
        size_t l = 1 + trunc_below(s, 64);
        if (l > n - at)
            l = n - at;
        memmove(buf + at, buf + at + l, n - at - l);
        *len = n - l;
        break;
    }
    case 6: /* an event's variable length or a block marker's size: 0xffff... */
    case 7: { /* ... or its type id or timestamp */
        if (!n_evs)
            break;
        size_t at = (size_t)evs[trunc_below(s, n_evs)];
        if (at + 14 > n)
            break;
        static const uint64_t vals[] = { 0, 1, 0xffff, 0xffffffff, UINT64_MAX, 13, 14 };
        uint64_t v = trunc_below(s, 2) ? vals[trunc_below(s, 7)] : trunc_rand(s);
        switch (trunc_below(s, 4)) {
        case 0: trunc_put_be(buf + at, v, 2); break;        /* type */
        case 1: trunc_put_be(buf + at + 2, v, 8); break;    /* timestamp */
        case 2: trunc_put_be(buf + at + 10, v, 2); break;   /* var length / size hi */
        default: trunc_put_be(buf + at + 10, v, 4); break;  /* block size */
        }
        break;
    }
    default: /* random bytes in the header (type sizes, description lengths) */
        for (size_t k = 1 + trunc_below(s, 4); k > 0; k--)
            buf[trunc_below(s, data_start < n ? data_start : n)] = (uint8_t)trunc_rand(s);
        break;
    }
}

static double
trunc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Invariants of `show` over any input whatsoever. */
static void
trunc_check_any(const char *what, const uint8_t *data, size_t len, bool twice)
{
    double t0 = trunc_now();
    trunc_run r;
    trunc_show(data, len, &r);
    double dt = trunc_now() - t0;
    TRUNC_CHECK(dt < TRUNC_CASE_SECONDS * test_time_scale(), "%s: show took %.2f s on %zu bytes", what, dt, len);
    if (!r.parsed) {
        TRUNC_CHECK(r.open.code == DIAG_NOT_EVENTLOG || r.open.code == DIAG_BAD_HEADER,
                    "%s: open error code %d (%s)", what, r.open.code, r.open.msg);
        TRUNC_CHECK(r.open.offset <= len, "%s: header error at byte %" PRIu64 " of %zu",
                    what, r.open.offset, len);
        return;
    }
    TRUNC_CHECK(r.ending.code == DIAG_OK || r.ending.code == DIAG_TRUNCATED ||
                r.ending.code == DIAG_BAD_DATA, "%s: ending code %d", what, r.ending.code);
    if (r.ending.code != DIAG_OK)
        TRUNC_CHECK(r.ending.offset <= len, "%s: data error at byte %" PRIu64 " of %zu", what,
                    r.ending.offset, len);
    TRUNC_CHECK(r.len >= 13 && memcmp(r.text, "Event Types:\n", 13) == 0 &&
                r.text[r.len - 1] == '\n', "%s: listing is not framed like show's", what);
    /* Every event takes at least 10 bytes (type + timestamp). */
    TRUNC_CHECK(r.st.n_events <= len / 10, "%s: %zu events listed from %zu bytes", what,
                r.st.n_events, len);
    if (twice) {
        trunc_run r2;
        trunc_show(data, len, &r2);
        TRUNC_CHECK(r2.parsed && r2.len == r.len && memcmp(r2.text, r.text, r.len) == 0,
                    "%s: a second run printed something else", what);
        trunc_run_free(&r2);
    }
    trunc_run_free(&r);
}

/* Seeded corruption of one base log: `cases` inputs, each 1-4 corruptions and, one
 * time in four, a cut. */
static void
trunc_fuzz_log(const char *name, const uint8_t *base, size_t base_len, uint64_t seed,
               size_t cases)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(base, base_len, &d);
    TRUNC_CHECK(log != NULL, "%s: %s", name, d.msg);
    size_t data_start = (size_t)evlog_data_start(log);
    size_t n_evs = 0, cap = 256;
    uint64_t *evs = xreallocarray(NULL, cap, sizeof *evs);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        if (n_evs == cap) {
            cap *= 2;
            evs = xreallocarray(evs, cap, sizeof *evs);
        }
        evs[n_evs++] = ev.offset;
    }
    evlog_close(log);

    uint8_t *buf = xmalloc(base_len + 4 * 64 + 512);
    for (size_t c = 0; c < cases; c++) {
        uint64_t s = seed * 0x9E3779B97F4A7C15ULL + c + 1;
        trunc_rand(&s);
        memcpy(buf, base, base_len);
        size_t len = base_len;
        for (size_t k = 1 + trunc_below(&s, 4); k > 0; k--)
            trunc_corrupt(&s, buf, &len, data_start, evs, n_evs);
        if (trunc_below(&s, 4) == 0)
            len = trunc_below(&s, len + 1);
        char what[128];
        snprintf(what, sizeof what, "%s, seed %" PRIu64 " case %zu", name, seed, c);
        trunc_check_any(what, buf, len, c % 8 == 0);
    }
    x_free(buf);
    x_free(evs);
}

#define TRUNC_FUZZ_CASES 2000

START_TEST(test_trunc_random_corruption)
{
    static const char *const corpus[] = {
        "hello-ghc-8.6.5.eventlog", "nonmoving-gc.eventlog", "ticky-ticky.eventlog",
        "time-prof.eventlog", "trace-binary-nonutf.eventlog", "parallelTest.eventlog",
        "biographical-samples.eventlog",
    };
    size_t n_bases = 0, done = 0;
    tlog t;
    trunc_built_log(&t);
    char *dir = test_corpus_dir();
    size_t n_corpus = dir ? sizeof corpus / sizeof corpus[0] : 0;
    if (!dir)
        fprintf(stderr, "corpus: ../shared/corpus/ghc-events-tests not found, random corruption "
                "runs on the built log only\n");
    size_t per_log = TRUNC_FUZZ_CASES / (n_corpus + 1);
    for (size_t i = 0; i < n_corpus; i++) {
        strbuf p;
        strbuf_init(&p);
        strbuf_printf(&p, "%s/%s", dir, corpus[i]);
        size_t len = 0;
        uint8_t *data = test_read_file(p.data, &len);
        TRUNC_CHECK(data != NULL, "cannot read %s", p.data);
        trunc_fuzz_log(corpus[i], data, len, 1000 + i, per_log);
        done += per_log;
        n_bases++;
        x_free(data);
        strbuf_free(&p);
    }
    trunc_fuzz_log("built", (const uint8_t *)t.b.data, t.b.len, 7, TRUNC_FUZZ_CASES - done);
    done = TRUNC_FUZZ_CASES;
    n_bases++;
    ck_assert_uint_eq(done, TRUNC_FUZZ_CASES);
    ck_assert_uint_eq(n_bases, n_corpus + 1);
    tlog_free(&t);
    x_free(dir);
}
END_TEST

Suite *
test_truncation_suite(void)
{
    Suite *s = suite_create("truncation");
    TCase *tc = tcase_create("prefixes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_trunc_built);
    tcase_add_test(tc, test_trunc_hello);
    tcase_add_test(tc, test_trunc_nonmoving);
    tcase_add_test(tc, test_trunc_fixtures);
    suite_add_tcase(s, tc);
    TCase *tf = tcase_create("corruption");
    tcase_set_timeout(tf, 120);
    tcase_add_test(tf, test_trunc_random_corruption);
    suite_add_tcase(s, tf);
    return s;
}
