/* tests/test_fixtures: our `show` against ghc-events 0.17.0.3 (fixtures/X.eventlog.ref017)
 * for the real GHC logs in fixtures/, after rewriting the known 0.17 → 0.21 differences
 * (shared corpus README) out of our output; the rewriting itself is checked too. */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "tests.h"
#include "xalloc.h"

/* What the header of our listing says about the types whose printing changed. */
typedef struct fix_header_info {
    int census_size;            /* declared size of type 207, -1 if undeclared */
    const char *pruned_desc;    /* description of type 208 (into the listing) or NULL */
    size_t pruned_desc_len;
} fix_header_info;

static bool
fix_starts(const char *p, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);
    return len >= n && memcmp(p, prefix, n) == 0;
}

/* Length of the run of decimal digits at p. */
static size_t
fix_digits(const char *p, size_t len)
{
    size_t i = 0;
    while (i < len && p[i] >= '0' && p[i] <= '9')
        i++;
    return i;
}

/* Parse a decimal number at *p (advancing it); false if there is none. */
static bool
fix_number(const char **p, const char *end, uint64_t *v)
{
    size_t n = fix_digits(*p, (size_t)(end - *p));
    if (n == 0 || n > 19)
        return false;
    *v = 0;
    for (size_t i = 0; i < n; i++)
        *v = *v * 10 + (uint64_t)((*p)[i] - '0');
    *p += n;
    return true;
}

static bool
fix_literal(const char **p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - *p) < n || memcmp(*p, lit, n) != 0)
        return false;
    *p += n;
    return true;
}

/* An "Event Types:" line "ID: DESC (size N)" / "(size variable)": note 207's size and
 * 208's description. */
static void
fix_header_line(const char *l, size_t len, fix_header_info *hi)
{
    const char *p = l, *end = l + len;
    uint64_t id;
    if (!fix_number(&p, end, &id) || !fix_literal(&p, end, ": "))
        return;
    const char *size_at = NULL;
    for (const char *q = p; q + 7 <= end; q++)
        if (memcmp(q, " (size ", 7) == 0)
            size_at = q;
    if (!size_at)
        return;
    if (id == 207) {
        const char *s = size_at + 7;
        uint64_t size;
        hi->census_size = fix_number(&s, end, &size) ? (int)size : -1;
    } else if (id == 208) {
        hi->pruned_desc = p;
        hi->pruned_desc_len = (size_t)(size_at - p);
    }
}

/* ghc-events 0.17 reads a 14-byte census with the old 13-byte layout (u8 log2 block
 * size, then three u32): rebuild the bytes from 0.21's fields and read them that way.
 * 0.17 prints 2^log2 as a 64-bit Int, so 2^64 wraps to 0. */
static void
fix_census_as_017(strbuf *out, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    uint64_t bs, act, fil, live;
    if (!(fix_literal(&p, end, "nonmoving heap census ") && fix_number(&p, end, &bs) &&
          fix_literal(&p, end, ": ") && fix_number(&p, end, &act) &&
          fix_literal(&p, end, " active segments, ") && fix_number(&p, end, &fil) &&
          fix_literal(&p, end, " filled segments, ") && fix_number(&p, end, &live) &&
          fix_literal(&p, end, " live blocks") && p == end)) {
        strbuf_append(out, text, len); /* not the shape we know: leave it to the diff */
        return;
    }
    uint8_t b[14] = {
        (uint8_t)(bs >> 8), (uint8_t)bs,
        (uint8_t)(act >> 24), (uint8_t)(act >> 16), (uint8_t)(act >> 8), (uint8_t)act,
        (uint8_t)(fil >> 24), (uint8_t)(fil >> 16), (uint8_t)(fil >> 8), (uint8_t)fil,
        (uint8_t)(live >> 24), (uint8_t)(live >> 16), (uint8_t)(live >> 8), (uint8_t)live,
    };
#define FIX_BE32(q) \
    ((uint32_t)(q)[0] << 24 | (uint32_t)(q)[1] << 16 | (uint32_t)(q)[2] << 8 | (q)[3])
    uint64_t old_bs = b[0] < 64 ? (uint64_t)1 << b[0] : 0;
    strbuf_printf(out, "nonmoving heap census %" PRIu64 ": %" PRIu32 " active segments, %" PRIu32
                  " filled segments, %" PRIu32 " live blocks",
                  old_bs, FIX_BE32(b + 1), FIX_BE32(b + 5), FIX_BE32(b + 9));
#undef FIX_BE32
}

/* Rewrite one event's text (after "TIME: [cap N: ]") into out as 0.17 prints it. */
static void
fix_event_text(strbuf *out, const char *t, size_t len, const fix_header_info *hi)
{
    static const char so[] = "(stack overflow, size ";
    if (fix_starts(t, len, "stopping thread ") && len > 0 && t[len - 1] == ')') {
        /* 0.21: "(stack overflow, size N)"; 0.17: "(stack overflow)". */
        for (size_t i = 0; i + sizeof so - 1 < len; i++) {
            if (memcmp(t + i, so, sizeof so - 1) != 0)
                continue;
            size_t d = fix_digits(t + i + sizeof so - 1, len - i - (sizeof so - 1));
            if (d > 0 && i + sizeof so - 1 + d + 1 == len) {
                strbuf_append(out, t, i);
                strbuf_puts(out, "(stack overflow)");
                return;
            }
        }
    } else if (fix_starts(t, len, "ticky counter definition ")) {
        /* 0.21 appends ", itbl: HEX". */
        size_t h = len;
        while (h > 0 && strchr("0123456789abcdef", t[h - 1]) && t[h - 1] != '\0')
            h--;
        if (h < len && h >= 8 && memcmp(t + h - 8, ", itbl: ", 8) == 0) {
            strbuf_append(out, t, h - 8);
            return;
        }
    } else if (fix_starts(t, len, "nonmoving heap census ") && hi->census_size == 14) {
        fix_census_as_017(out, t, len);
        return;
    } else if (fix_starts(t, len, "nonmoving segments pruned: ") && hi->pruned_desc) {
        /* Type 208 is unknown to 0.17, which prints the header's description. */
        strbuf_append(out, hi->pruned_desc, hi->pruned_desc_len);
        return;
    }
    strbuf_append(out, t, len);
}

/* Our listing → what ghc-events 0.17.0.3 prints for the same log. *n_events counts the
 * event lines kept. Block markers go (with the empty line after each); the other
 * rewrites are in fix_event_text. Binary messages need none: 0.17 prints them like
 * 0.21 except that it dies on bytes >= 0x80 (counts017 then records a failure). */
static void
fix_normalise(const char *in, size_t len, strbuf *out, size_t *n_events)
{
    fix_header_info hi = { -1, NULL, 0 };
    bool in_events = false, drop_empty = false;
    size_t n = 0;
    const char *p = in, *end = in + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *next = nl ? nl + 1 : end;
        if (!in_events) {
            if (l == 7 && memcmp(p, "Events:", 7) == 0)
                in_events = true;
            else
                fix_header_line(p, l, &hi);
            strbuf_append(out, p, (size_t)(next - p));
            p = next;
            continue;
        }
        if (drop_empty && l == 0 && nl) {
            drop_empty = false;
            p = next;
            continue;
        }
        drop_empty = false;
        const char *q = p, *le = p + l;
        uint64_t ts, cap;
        if (fix_number(&q, le, &ts) && fix_literal(&q, le, ": ")) {
            const char *text = q;
            if (fix_literal(&q, le, "cap ") && fix_number(&q, le, &cap) &&
                fix_literal(&q, le, ": "))
                text = q;
            if (fix_starts(text, (size_t)(le - text), "event block: cap ")) {
                drop_empty = true;
                p = next;
                continue;
            }
            n++;
            strbuf_append(out, p, (size_t)(text - p));
            fix_event_text(out, text, (size_t)(le - text), &hi);
            if (nl)
                strbuf_putc(out, '\n');
            p = next;
            continue;
        }
        strbuf_append(out, p, (size_t)(next - p));
        p = next;
    }
    if (!out->data)
        strbuf_reserve(out, 1);
    *n_events = n;
}

/* True if equal; otherwise appends the first differing line of both to msg. */
static bool
fix_same(const char *name, const char *got, size_t got_len, const char *want, size_t want_len,
         strbuf *msg)
{
    if (got_len == want_len && memcmp(got, want, got_len) == 0)
        return true;
    size_t line = 1, i = 0, start = 0;
    while (i < got_len && i < want_len && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    const char *sides[2] = { got, want };
    size_t lens[2] = { got_len, want_len };
    strbuf_printf(msg, "%s: normalised output differs from the 0.17 reference at line %zu "
                  "(%zu vs %zu bytes)", name, line, got_len, want_len);
    for (int k = 0; k < 2; k++) {
        strbuf_puts(msg, k == 0 ? "\n   ours: " : "\n   0.17: ");
        if (start >= lens[k]) {
            strbuf_puts(msg, "<end of output>");
            continue;
        }
        const char *s = sides[k] + start;
        const char *e = memchr(s, '\n', lens[k] - start);
        size_t l = e ? (size_t)(e - s) : lens[k] - start;
        strbuf_printf(msg, "\"%.*s\"%s", (int)(l > 160 ? 160 : l), s, l > 160 ? "..." : "");
    }
    strbuf_putc(msg, '\n');
    return false;
}

/* Normalise the show output of `log_path` and compare with `ref_path`. Returns false
 * (with msg) on a difference; fills *ending and *n_events. */
static bool
fix_check_one(const char *name, const char *log_path, const char *ref_path, int *ending,
              size_t *n_events, strbuf *msg)
{
    size_t log_len = 0, ref_len = 0, out_len = 0;
    uint8_t *log = test_read_file(log_path, &log_len);
    uint8_t *ref = test_read_file(ref_path, &ref_len);
    ck_assert_msg(log && ref, "%s: cannot read %s", name, log ? ref_path : log_path);
    char *out = test_show_bytes(log, log_len, &out_len, ending);
    ck_assert_msg(out != NULL, "%s: header does not parse", name);
    strbuf norm;
    strbuf_init(&norm);
    fix_normalise(out, out_len, &norm, n_events);
    bool same = fix_same(name, norm.data, norm.len, (const char *)ref, ref_len, msg);
    strbuf_free(&norm);
    free(out);
    x_free(log);
    x_free(ref);
    return same;
}

/* One line of fixtures/counts017.txt: "NAME\tCOUNT\trefdump-exit=S\tcount-exit=S". */
typedef struct fix_count {
    bool found;
    uint64_t events;
    int refdump_exit, count_exit;
} fix_count;

static fix_count
fix_lookup_count(const char *counts, size_t len, const char *name)
{
    fix_count c = { false, 0, -1, -1 };
    const char *p = counts, *end = counts + len;
    size_t nl = strlen(name);
    while (counts && p < end) {
        const char *e = memchr(p, '\n', (size_t)(end - p));
        const char *le = e ? e : end;
        const char *q = p;
        if ((size_t)(le - q) > nl && memcmp(q, name, nl) == 0 && q[nl] == '\t') {
            q += nl + 1;
            uint64_t st1, st2;
            if (fix_number(&q, le, &c.events) && fix_literal(&q, le, "\trefdump-exit=") &&
                fix_number(&q, le, &st1) && fix_literal(&q, le, "\tcount-exit=") &&
                fix_number(&q, le, &st2)) {
                c.found = true;
                c.refdump_exit = (int)st1;
                c.count_exit = (int)st2;
            }
            return c;
        }
        p = e ? e + 1 : end;
    }
    return c;
}

START_TEST(test_fixtures_ref017)
{
    char *dir = test_path("fixtures");
    size_t n_refs = 0;
    char **refs = test_list_dir(dir, ".eventlog.ref017", &n_refs);
    strbuf cp;
    strbuf_init(&cp);
    strbuf_printf(&cp, "%s/counts017.txt", dir);
    size_t counts_len = 0;
    char *counts = (char *)test_read_file(cp.data, &counts_len);
    strbuf msg;
    strbuf_init(&msg);
    size_t compared = 0, skipped = 0, failed = 0, first_len = 0;
    for (size_t i = 0; i < n_refs; i++) {
        char *name = xstrdup(refs[i]);
        name[strlen(name) - strlen(".ref017")] = '\0';
        strbuf lp, rp;
        strbuf_init(&lp);
        strbuf_init(&rp);
        strbuf_printf(&lp, "%s/%s", dir, name);
        strbuf_printf(&rp, "%s/%s", dir, refs[i]);
        fix_count c = fix_lookup_count(counts, counts_len, name);
        if (c.found && c.refdump_exit != 0) {
            /* 0.17 died on this log (e.g. a binary message with bytes >= 0x80): its
             * output is not a listing to compare with. */
            fprintf(stderr, "fixtures: %s: ghc-events 0.17 failed (exit %d), comparison "
                    "SKIPPED\n", name, c.refdump_exit);
            skipped++;
        } else {
            int ending = -1;
            size_t n_events = 0;
            if (!fix_check_one(name, lp.data, rp.data, &ending, &n_events, &msg))
                failed++;
            compared++;
            /* A program killed mid-run leaves no end-of-data marker; the others end cleanly. */
            int want_ending = strncmp(name, "killed", 6) == 0 ? DIAG_TRUNCATED : DIAG_OK;
            if (ending != want_ending) {
                strbuf_printf(&msg, "%s: data ending code %d, expected %d\n", name, ending,
                              want_ending);
                failed++;
            }
            if (c.found && c.count_exit == 0 && c.events != n_events) {
                strbuf_printf(&msg, "%s: %zu event lines, counts017.txt says 0.17 counts %"
                              PRIu64 "\n", name, n_events, c.events);
                failed++;
            }
        }
        if (!first_len)
            first_len = msg.len;
        strbuf_free(&lp);
        strbuf_free(&rp);
        x_free(name);
        x_free(refs[i]);
    }
    fprintf(stderr, "fixtures: compared %zu of %zu ref017 references (%zu skipped)\n", compared,
            n_refs, skipped);
    if (failed > 1)
        fputs(msg.data, stderr);
    ck_assert_msg(failed == 0, "%zu fixture checks failed; first: %.*s", failed, (int)first_len,
                  msg.data ? msg.data : "");
    if (n_refs > 0)
        ck_assert_msg(compared >= 1, "fixtures has %zu .ref017 files but none was compared",
                      n_refs);
    strbuf_free(&msg);
    strbuf_free(&cp);
    x_free(counts);
    x_free(refs);
    x_free(dir);
}
END_TEST

/* The normaliser on hand-written lines, one per rule (runs without any fixture). */
START_TEST(test_fixtures_normaliser_rules)
{
    static const char in[] =
        "Event Types:\n"
        "2: Stop thread (size 10)\n"
        "207: Nonmoving heap census (size 14)\n"
        "208: Report the amount of segments pruned. (size 8)\n"
        "210: Ticky-ticky entry counter definition (size variable)\n"
        "\n"
        "Events:\n"
        "5: cap 0: event block: cap 0, end time: 90\n"
        "\n"
        "7: event block: cap 65535, end time: 80\n"
        "\n"
        "10: cap 0: stopping thread 3 (stack overflow, size 1024)\n"
        "11: cap 0: stopping thread 3 (thread finished)\n"
        "12: cap 0: nonmoving heap census 16384: 0 active segments, 1 filled segments, "
        "38 live blocks\n"
        "13: cap 0: nonmoving heap census 8: 0 active segments, 0 filled segments, 0 live blocks\n"
        "14: nonmoving segments pruned: 0 pruned segments, 8 free segments retained\n"
        "15: cap 1: ticky counter definition 7, arity: 1, def kinds: M, name: go (fun), "
        "itbl: 4e2f10\n"
        "16: cap 1: binary message Hello, .\n"
        "\n";
    static const char want[] =
        "Event Types:\n"
        "2: Stop thread (size 10)\n"
        "207: Nonmoving heap census (size 14)\n"
        "208: Report the amount of segments pruned. (size 8)\n"
        "210: Ticky-ticky entry counter definition (size variable)\n"
        "\n"
        "Events:\n"
        "10: cap 0: stopping thread 3 (stack overflow)\n"
        "11: cap 0: stopping thread 3 (thread finished)\n"
        "12: cap 0: nonmoving heap census 0: 0 active segments, 0 filled segments, "
        "16777216 live blocks\n"
        "13: cap 0: nonmoving heap census 1: 134217728 active segments, 0 filled segments, "
        "0 live blocks\n"
        "14: Report the amount of segments pruned.\n"
        "15: cap 1: ticky counter definition 7, arity: 1, def kinds: M, name: go (fun)\n"
        "16: cap 1: binary message Hello, .\n"
        "\n";
    strbuf out, msg;
    strbuf_init(&out);
    strbuf_init(&msg);
    size_t n = 0;
    fix_normalise(in, sizeof in - 1, &out, &n);
    ck_assert_msg(fix_same("rules", out.data, out.len, want, sizeof want - 1, &msg), "%s",
                  msg.data);
    ck_assert_uint_eq(n, 7);

    /* A 13-byte census (the layout 0.17 knows) is left alone. */
    static const char in13[] =
        "Event Types:\n207: Nonmoving heap census (size 13)\n\nEvents:\n"
        "12: cap 0: nonmoving heap census 8: 0 active segments, 0 filled segments, "
        "0 live blocks\n\n";
    strbuf_reset(&out);
    fix_normalise(in13, sizeof in13 - 1, &out, &n);
    ck_assert_str_eq(out.data, in13);
    ck_assert_uint_eq(n, 1);
    strbuf_free(&out);
    strbuf_free(&msg);
}
END_TEST

/* The normaliser against real 0.17.0.3 output: the corpus's extra-references for
 * every log 0.17 can print. testlog and testlog-part are left out: written by a very
 * old GHC, 0.17 and 0.21 decode their stop/steal events differently, which is not a
 * difference the fixtures (GHC 9.0) can have. */
START_TEST(test_fixtures_normaliser_corpus)
{
    char *cdir = test_corpus_dir();
    if (!cdir) {
        fprintf(stderr, "corpus: ../shared/corpus/ghc-events-tests not found, 0.17 normaliser "
                "test SKIPPED\n");
        return;
    }
    strbuf rdir;
    strbuf_init(&rdir);
    strbuf_printf(&rdir, "%s/extra-references/ghc-events-0.17.0.3", cdir);
    size_t n_refs = 0;
    char **refs = test_list_dir(rdir.data, ".eventlog.ref", &n_refs);
    strbuf msg;
    strbuf_init(&msg);
    size_t compared = 0, failed = 0, first_len = 0;
    for (size_t i = 0; i < n_refs; i++) {
        char *name = xstrdup(refs[i]);
        name[strlen(name) - strlen(".ref")] = '\0';
        if (strncmp(name, "testlog", 7) != 0) {
            strbuf lp, rp;
            strbuf_init(&lp);
            strbuf_init(&rp);
            strbuf_printf(&lp, "%s/%s", cdir, name);
            strbuf_printf(&rp, "%s/%s", rdir.data, refs[i]);
            int ending = -1;
            size_t n_events = 0;
            if (!fix_check_one(name, lp.data, rp.data, &ending, &n_events, &msg))
                failed++;
            compared++;
            if (!first_len)
                first_len = msg.len;
            strbuf_free(&lp);
            strbuf_free(&rp);
        }
        x_free(name);
        x_free(refs[i]);
    }
    if (failed > 1)
        fputs(msg.data, stderr);
    ck_assert_msg(failed == 0, "%zu of %zu failed; first: %.*s", failed, compared, (int)first_len,
                  msg.data ? msg.data : "");
    /* 21 logs have a 0.17 reference; the two testlogs are left out. */
    ck_assert_uint_eq(compared, 19);
    strbuf_free(&msg);
    strbuf_free(&rdir);
    x_free(refs);
    x_free(cdir);
}
END_TEST

Suite *
test_fixtures_suite(void)
{
    Suite *s = suite_create("fixtures");
    TCase *tc = tcase_create("ref017");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fixtures_normaliser_rules);
    tcase_add_test(tc, test_fixtures_normaliser_corpus);
    tcase_add_test(tc, test_fixtures_ref017);
    suite_add_tcase(s, tc);
    return s;
}
