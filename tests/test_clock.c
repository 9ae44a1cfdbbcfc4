/* tests/test_clock: one clock everywhere. On fixtures/late-start.eventlog, whose first event
 * comes ~121 ms after the RTS started, the real binary's screens (`snapshot`: axis, status
 * line, detail pane, GC and marker lists) print the times `gc` and `ghc-events show`
 * (the .ref017 dump) print, and times read off those screens, given to `snapshot
 * --from/--to` and `stats --from/--to`, find the same collection. Any time counted from
 * the first event instead would be ~121 ms off. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "strbuf.h"
#include "tests.h"
#include "timefmt.h"
#include "xalloc.h"

#define CLK_LOG "fixtures/late-start.eventlog"

/* The stdout of a shell command built from fmt (exit status 0 asserted). Caller frees. */
static char *
clk_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
clk_run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    strbuf sb;
    strbuf_init(&sb);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        strbuf_append(&sb, buf, n);
    strbuf_putc(&sb, '\0');
    int rc = pclose(p);
    ck_assert_msg(rc == 0, "`%s` exited %d", cmd, rc);
    return sb.data;         /* caller frees */
}

typedef struct clk_env {
    const char *bin;
    char *log;
    uint64_t first_ns;      /* the dump's first event */
} clk_env;

static void
clk_setup(clk_env *e)
{
    e->bin = getenv("ELOG_BIN");
    ck_assert_msg(e->bin && access(e->bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    e->log = test_path(CLK_LOG);
    /* The first line after "Events:" in the ghc-events dump ("TIME: [cap N: ]..."). */
    char *ref = test_path(CLK_LOG ".ref017");
    size_t len;
    char *dump = (char *)test_read_file(ref, &len);
    ck_assert_ptr_nonnull(dump);
    const char *p = strstr(dump, "\nEvents:\n");
    ck_assert_ptr_nonnull(p);
    p += strlen("\nEvents:\n");
    e->first_ns = strtoull(p, NULL, 10);
    ck_assert_uint_gt(e->first_ns, 100000000);     /* the point of the fixture */
    free(dump);
    x_free(ref);
}

static void
clk_teardown(clk_env *e)
{
    x_free(e->log);
}

/* Line `i` (from 0; negative counts from the end) of text, into buf. */
static const char *
clk_line(const char *text, int i, char *buf, size_t cap)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    if (i < 0)
        i += n;
    const char *p = text;
    for (int k = 0; k < i && p; k++) {
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    ck_assert_ptr_nonnull(p);
    const char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    ck_assert_uint_lt(len, cap);
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

/* The time between the first two " · " of a status line, parsed; its text into tok. */
static uint64_t
clk_status_time(const char *status, char *tok, size_t cap)
{
    const char *a = strstr(status, " \xc2\xb7 ");
    ck_assert_msg(a != NULL, "status \"%s\"", status);
    a += 4;
    const char *b = strstr(a, " \xc2\xb7 ");
    ck_assert_msg(b != NULL, "status \"%s\"", status);
    ck_assert_uint_lt((size_t)(b - a), cap);
    memcpy(tok, a, (size_t)(b - a));
    tok[b - a] = '\0';
    uint64_t t = 0;
    ck_assert_msg(timefmt_parse(tok, &t), "status time \"%s\" does not parse", tok);
    return t;
}

/* `s` is `t` rounded (timefmt_append_res) to some resolution no coarser than max_res. */
static bool
clk_is_rounded(const char *s, uint64_t t, uint64_t max_res)
{
    for (uint64_t r = 1; r <= max_res; r *= 10) {
        strbuf sb;
        strbuf_init(&sb);
        timefmt_append_res(&sb, t, r);
        bool eq = strcmp(sb.data, s) == 0;
        strbuf_free(&sb);
        if (eq)
            return true;
    }
    return false;
}

/* Columns of the first data row of `elog-tui gc` (TSV: start_ns pause_ns ... gen ...). */
static void
clk_gc_row(const clk_env *e, size_t row, uint64_t *start, uint64_t *pause, unsigned *gen)
{
    char *out = clk_run("'%s' gc '%s'", e->bin, e->log);
    char line[4096];
    clk_line(out, (int)row + 1, line, sizeof line);
    char *f = line;
    *start = strtoull(f, &f, 10);
    *pause = strtoull(f + 1, &f, 10);
    strtoull(f + 1, &f, 10);            /* stopping */
    strtoull(f + 1, &f, 10);            /* census */
    strtoull(f + 1, &f, 10);            /* request */
    *gen = (unsigned)strtoul(f + 1, NULL, 10);
    free(out);
}

/* The first collection: `]` puts the cursor on it. The status line and the p list print
 * `gc`'s start_ns rounded to at most 1 us (not the ~483 us since the first event); the
 * detail pane prints it exactly. Those times, given to snapshot and stats, find it. */
START_TEST(test_clock_gc)
{
    clk_env e;
    clk_setup(&e);
    uint64_t start, pause;
    unsigned gen;
    clk_gc_row(&e, 0, &start, &pause, &gen);
    ck_assert_uint_gt(start, e.first_ns);

    char *scr = clk_run("'%s' snapshot '%s' --size 160x48 --keys ']'", e.bin, e.log);
    char status[1024], tok[64];
    clk_line(scr, -1, status, sizeof status);
    uint64_t shown = clk_status_time(status, tok, sizeof tok);
    ck_assert_msg(clk_is_rounded(tok, start, 1000), "status \"%s\" is not gc's %llu", status,
                  (unsigned long long)start);
    ck_assert_uint_le((shown > start ? shown - start : start - shown) * 2, 1000);
    ck_assert_ptr_nonnull(strstr(status, "GC gen"));
    /* The detail pane: "Pause: A .. B", exact. */
    const char *pl = strstr(scr, " Pause: ");
    ck_assert_ptr_nonnull(pl);
    char a_txt[64], b_txt[64];
    ck_assert_int_eq(sscanf(pl, " Pause: %63s .. %63[^,]", a_txt, b_txt), 2);
    uint64_t a = 0, b = 0;
    ck_assert(timefmt_parse(a_txt, &a) && timefmt_parse(b_txt, &b));
    ck_assert_uint_eq(a, start);
    ck_assert_uint_eq(b, start + pause);
    /* The axis labels are on the same clock: the view starts at the first event. */
    char axis[1024];
    clk_line(scr, 1, axis, sizeof axis);
    char *save = NULL;
    char *first_label = strtok_r(axis, " ", &save);
    ck_assert_ptr_nonnull(first_label);
    uint64_t lab = 0;
    ck_assert_msg(timefmt_parse(first_label, &lab), "axis label \"%s\"", first_label);
    ck_assert_uint_ge(lab, e.first_ns);
    ck_assert_uint_lt(lab, e.first_ns + UINT64_C(50000000));
    free(scr);

    /* The p list's row for it ("pause  start  gen ...") shows the status line's time. */
    scr = clk_run("'%s' snapshot '%s' --size 160x48 --keys ']  p'", e.bin, e.log);
    strbuf row;
    strbuf_init(&row);
    timefmt_append(&row, pause);
    while (row.len < 11)
        strbuf_putc(&row, ' ');
    strbuf_puts(&row, tok);
    ck_assert_msg(strstr(scr, row.data) != NULL, "the p list lacks \"%s\"", row.data);
    strbuf_free(&row);
    free(scr);

    /* snapshot --from A --to B (read off the pane): the cursor is on that collection. */
    scr = clk_run("'%s' snapshot '%s' --size 160x48 --from %s --to %s", e.bin, e.log, a_txt,
                  b_txt);
    clk_line(scr, -1, status, sizeof status);
    strbuf want;
    strbuf_init(&want);
    strbuf_printf(&want, "GC gen %u pause ", gen);
    timefmt_append(&want, pause);
    ck_assert_msg(strstr(status, want.data) != NULL, "status \"%s\" lacks \"%s\"", status,
                  want.data);
    strbuf_free(&want);
    free(scr);

    /* stats --from A --to B counts exactly that collection, in its generation. */
    char *st = clk_run("'%s' stats '%s' --from %s --to %s", e.bin, e.log, a_txt, b_txt);
    unsigned long n_gen[2] = { 0, 0 };
    for (unsigned g = 0; g < 2; g++) {
        char key[32];
        snprintf(key, sizeof key, "  Gen  %u ", g);
        const char *at = strstr(st, key);
        ck_assert_ptr_nonnull(at);
        n_gen[g] = strtoul(at + strlen(key), NULL, 10);
    }
    ck_assert_uint_eq(n_gen[gen], 1);
    ck_assert_uint_eq(n_gen[0] + n_gen[1], 1);
    free(st);
    /* ... and none when the window is taken ~121 ms early, as first-event times would be. */
    st = clk_run("'%s' stats '%s' --from %llu --to %llu", e.bin, e.log,
                 (unsigned long long)(a - e.first_ns), (unsigned long long)(b - e.first_ns));
    ck_assert_ptr_nonnull(strstr(st, "  Gen  0         0 colls"));
    free(st);
    clk_teardown(&e);
}
END_TEST

/* A range selected with Space ... Space: its ends, read off the detail pane and given to
 * `stats --from --to`, count the collections the pane counts, generation by generation. */
START_TEST(test_clock_selection)
{
    clk_env e;
    clk_setup(&e);
    char *scr = clk_run("'%s' snapshot '%s' --size 160x48 --keys '] ] Space > > > > Space'",
                        e.bin, e.log);
    const char *r = strstr(scr, " Range: ");
    ck_assert_ptr_nonnull(r);
    char a_txt[64], b_txt[64];
    ck_assert_int_eq(sscanf(r, " Range: %63s .. %63s", a_txt, b_txt), 2);
    uint64_t a = 0, b = 0;
    ck_assert(timefmt_parse(a_txt, &a) && timefmt_parse(b_txt, &b));
    ck_assert_uint_gt(a, e.first_ns - UINT64_C(1000000));       /* not near 0 */
    const char *c = strstr(scr, " Collections: ");
    ck_assert_ptr_nonnull(c);
    unsigned long n = 0, n0 = 0, n1 = 0;
    ck_assert_int_eq(sscanf(c, " Collections: %lu starting in the range, gen 0: %lu, gen 1: %lu",
                            &n, &n0, &n1), 3);
    ck_assert_uint_gt(n0, 1);
    ck_assert_uint_eq(n0 + n1, n);
    free(scr);
    char *st = clk_run("'%s' stats '%s' --from %s --to %s", e.bin, e.log, a_txt, b_txt);
    unsigned long got[2];
    for (unsigned g = 0; g < 2; g++) {
        char key[32];
        snprintf(key, sizeof key, "  Gen  %u ", g);
        const char *at = strstr(st, key);
        ck_assert_ptr_nonnull(at);
        got[g] = strtoul(at + strlen(key), NULL, 10);
    }
    ck_assert_uint_eq(got[0], n0);
    ck_assert_uint_eq(got[1], n1);
    free(st);
    clk_teardown(&e);
}
END_TEST

/* Markers: each `n` names the marker with the time the dump gives it, to at most 1 us; the
 * two closest markers (861 ns apart in this log) print different times, in the status
 * line and in the m list. */
START_TEST(test_clock_markers)
{
    clk_env e;
    clk_setup(&e);
    /* Marker times from the dump itself. */
    char *ref = test_path(CLK_LOG ".ref017");
    size_t len;
    char *dump = (char *)test_read_file(ref, &len);
    uint64_t t[16];
    size_t n = 0;
    for (const char *p = dump; (p = strstr(p, ": marker: ")) != NULL && n < 16; p++) {
        const char *s = p;
        while (s > dump && s[-1] != '\n')
            s--;
        t[n++] = strtoull(s, NULL, 10);
    }
    free(dump);
    x_free(ref);
    ck_assert_uint_ge(n, 2);
    size_t close = 1;
    for (size_t i = 1; i < n; i++)
        if (t[i] - t[i - 1] < t[close] - t[close - 1])
            close = i;
    ck_assert_uint_lt(t[close] - t[close - 1], 1000);

    char shown[2][64];
    for (size_t k = 0; k < 2; k++) {
        size_t i = close - 1 + k;
        strbuf keys;
        strbuf_init(&keys);
        for (size_t j = 0; j <= i; j++)
            strbuf_puts(&keys, " n");
        char *scr = clk_run("'%s' snapshot '%s' --size 160x48 --keys '%s'", e.bin, e.log,
                            keys.data);
        strbuf_free(&keys);
        char status[1024];
        clk_line(scr, -1, status, sizeof status);
        char want[64];
        snprintf(want, sizeof want, "marker %zu/%zu at ", i + 1, n);
        const char *at = strstr(status, want);
        ck_assert_msg(at != NULL, "status \"%s\"", status);
        ck_assert_int_eq(sscanf(at + strlen(want), "%63[^:]", shown[k]), 1);
        uint64_t back = 0;
        ck_assert(timefmt_parse(shown[k], &back));
        ck_assert_msg(clk_is_rounded(shown[k], t[i], 1000), "\"%s\" is not the dump's %llu",
                      shown[k], (unsigned long long)t[i]);
        ck_assert_uint_le((back > t[i] ? back - t[i] : t[i] - back) * 2, 1000);
        free(scr);
    }
    ck_assert_str_ne(shown[0], shown[1]);
    char *scr = clk_run("'%s' snapshot '%s' --size 160x48 --keys 'm'", e.bin, e.log);
    ck_assert_msg(strstr(scr, shown[0]) && strstr(scr, shown[1]), "the m list lacks %s or %s",
                  shown[0], shown[1]);
    free(scr);
    clk_teardown(&e);
}
END_TEST

Suite *
test_clock_suite(void)
{
    Suite *s = suite_create("clock");
    TCase *tc = tcase_create("late-start");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_clock_gc);
    tcase_add_test(tc, test_clock_selection);
    tcase_add_test(tc, test_clock_markers);
    suite_add_tcase(s, tc);
    return s;
}
