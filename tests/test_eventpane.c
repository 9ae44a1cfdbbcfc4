/* tests/test_eventpane: the raw event pane — its lines equal `elog-tui show`'s (the real
 * binary's output for a fixture, in-memory `show` for built logs with crowds of equal
 * timestamps and long gaps), centred on the cursor event, and scrolling across load
 * boundaries in both directions gives every event once, in order, with bounded memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventpane.h"
#include "evindex.h"
#include "evlog.h"
#include "evtype.h"
#include "merge.h"
#include "render.h"
#include "tests.h"
#include "xalloc.h"

/* A log, its index and the `show` event lines (without the blank line a block marker's
 * text ends in). */
typedef struct ep_case {
    uint8_t *bytes;             /* owned (x_free), NULL for a file */
    evlog *log;
    evindex *ix;
    char **golden;              /* owned */
    uint64_t *golden_ns;
    uint64_t *golden_off;       /* owned: each event's file offset, from merge */
    size_t n;
    char *show;                 /* owned: the whole `show` output */
} ep_case;

/* Split the event lines out of `show` output (taking it over). */
static void
ep_parse_show(ep_case *c, char *out)
{
    c->show = out;
    char *p = strstr(out, "\nEvents:\n");
    ck_assert_msg(p != NULL, "no Events: section in show output");
    p += strlen("\nEvents:\n");
    size_t cap = 0;
    while (*p) {
        char *nl = strchr(p, '\n');
        ck_assert_msg(nl != NULL, "show output does not end in a newline");
        *nl = '\0';
        if (*p) {
            if (c->n == cap) {
                cap = cap ? 2 * cap : 256;
                c->golden = xreallocarray(c->golden, cap, sizeof *c->golden);
                c->golden_ns = xreallocarray(c->golden_ns, cap, sizeof *c->golden_ns);
            }
            c->golden[c->n] = p;
            c->golden_ns[c->n] = strtoull(p, NULL, 10);
            c->n++;
        }
        p = nl + 1;
    }
}

/* Index the log, and identify the golden lines by offset: merge gives `show`'s order. */
static void
ep_index(ep_case *c)
{
    diag ending;
    c->ix = evindex_build(c->log, NULL, &ending);
    ck_assert_ptr_nonnull(c->ix);
    ck_assert_uint_eq(evindex_n_events(c->ix), c->n);
    c->golden_off = xcalloc(c->n ? c->n : 1, sizeof *c->golden_off);
    merge *m = merge_new(c->log, &ending);
    evlog_event ev;
    size_t i = 0;
    while (merge_next(m, &ev)) {
        ck_assert_uint_lt(i, c->n);
        ck_assert_uint_eq(ev.time_ns, c->golden_ns[i]);
        c->golden_off[i++] = ev.offset;
    }
    ck_assert_uint_eq(i, c->n);
    merge_free(m);
}

/* A fixture file; the golden lines come from running `$ELOG_BIN show` on it. */
static void
ep_open_fixture(ep_case *c, const char *rel)
{
    memset(c, 0, sizeof *c);
    char *path = test_path(rel);
    diag d;
    c->log = evlog_open(path, &d);
    ck_assert_msg(c->log != NULL, "%s: %s", path, d.msg);

    const char *env = getenv("ELOG_BIN");
    char *bin = env && *env ? xstrdup(env) : test_path("build/elog-tui");
    ck_assert_msg(access(bin, X_OK) == 0, "elog-tui binary %s is not executable (set ELOG_BIN)",
                  bin);
    strbuf cmd, out;
    strbuf_init(&cmd);
    strbuf_init(&out);
    strbuf_printf(&cmd, "'%s' show '%s'", bin, path);
    FILE *f = popen(cmd.data, "r");
    ck_assert_ptr_nonnull(f);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        strbuf_append(&out, buf, n);
    ck_assert_int_eq(pclose(f), 0);
    strbuf_free(&cmd);
    x_free(bin);
    x_free(path);
    ep_parse_show(c, out.data);
    ep_index(c);
}

/* A log built in memory (taking over its bytes). Its messages may hold newlines, so the
 * golden lines are made the way `show` makes them, one render_show_line per merged
 * event, rather than by splitting show's output into lines. */
static void
ep_open_bytes(ep_case *c, tlog *t)
{
    memset(c, 0, sizeof *c);
    c->bytes = (uint8_t *)t->b.data;
    size_t len = t->b.len;
    strbuf_init(&t->b);
    diag d;
    c->log = evlog_open_bytes(c->bytes, len, &d);
    ck_assert_msg(c->log != NULL, "evlog_open_bytes: %s", d.msg);
    strbuf pool;
    strbuf_init(&pool);
    strbuf_puts(&pool, "");
    size_t *starts = NULL, cap = 0;
    render *r = render_new();
    diag ending;
    merge *m = merge_new(c->log, &ending);
    evlog_event ev;
    while (merge_next(m, &ev)) {
        if (c->n == cap) {
            cap = cap ? 2 * cap : 256;
            starts = xreallocarray(starts, cap, sizeof *starts);
            c->golden_ns = xreallocarray(c->golden_ns, cap, sizeof *c->golden_ns);
        }
        starts[c->n] = pool.len;
        c->golden_ns[c->n++] = ev.time_ns;
        render_show_line(r, &pool, &ev);
        while (pool.data[pool.len - 1] == '\n')
            pool.len--;
        strbuf_putc(&pool, '\0');
    }
    merge_free(m);
    render_free(r);
    c->show = pool.data;
    c->golden = xcalloc(c->n ? c->n : 1, sizeof *c->golden);
    for (size_t i = 0; i < c->n; i++)
        c->golden[i] = c->show + starts[i];
    x_free(starts);
    ep_index(c);
}

static void
ep_close(ep_case *c)
{
    evindex_free(c->ix);
    evlog_close(c->log);
    x_free(c->bytes);
    x_free(c->golden);
    x_free(c->golden_ns);
    x_free(c->golden_off);
    x_free(c->show);
}

/* The pane's line i (static buffer). */
static const char *
ep_line(const eventpane *p, size_t i)
{
    static strbuf sb;       /* reused: stays reachable until exit */
    strbuf_reset(&sb);
    if (!eventpane_line(p, i, &sb))
        ck_abort_msg("no line %zu", i);
    return sb.data;
}

/* Index of the first golden event at or after t (n if none). */
static size_t
ep_first_from(const ep_case *c, uint64_t t)
{
    size_t i = 0;
    while (i < c->n && c->golden_ns[i] < t)
        i++;
    return i;
}

/* The loaded events are golden[g0 ..] for some g0, consecutive; the selected one and
 * the ends have the golden lines (walks select every event, so every line is checked).
 * Returns g0. */
static size_t
ep_assert_contiguous(const ep_case *c, const eventpane *p)
{
    /* Check records every ck_assert (a write per call), so this hot loop only calls it
     * on failure. */
    size_t n = eventpane_n_loaded(p);
    evseek_hit h;
    if (n == 0 || !eventpane_hit_at(p, 0, &h))
        ck_abort_msg("no events loaded");
    size_t g0 = 0;
    while (g0 < c->n && c->golden_off[g0] != h.offset)
        g0++;
    if (g0 >= c->n || g0 + n > c->n)
        ck_abort_msg("loaded event 0 (offset %llu) is not in the log, or %zu events overrun",
                     (unsigned long long)h.offset, n);
    for (size_t i = 0; i < n; i++) {
        if (!eventpane_hit_at(p, i, &h) || h.offset != c->golden_off[g0 + i] ||
            h.time_ns != c->golden_ns[g0 + i])
            ck_abort_msg("loaded event %zu is not the log's event %zu", i, g0 + i);
        if (i == 0 || i == n - 1 || i == eventpane_selected_index(p)) {
            const char *line = ep_line(p, i);
            if (strcmp(line, c->golden[g0 + i]) != 0)
                ck_abort_msg("line %zu \"%s\", want \"%s\"", i, line, c->golden[g0 + i]);
        }
    }
    if (eventpane_hit_at(p, n, &h))
        ck_abort_msg("eventpane_hit_at past the end");
    return g0;
}

/* Index of the selected event in golden order. */
static size_t
ep_selected_golden(const ep_case *c, const eventpane *p)
{
    size_t g0 = ep_assert_contiguous(c, p);
    return g0 + eventpane_selected_index(p);
}

/* Row `line` of the surface as UTF-8 (static buffer). */
static const char *
ep_row(const surface *s, int line)
{
    static char buf[4096];
    size_t len = 0;
    for (int col = 0; col < surface_cols(s) && len + 4 < sizeof buf; col++)
        len += surface_utf8_encode(surface_get(s, col, line).cp, buf + len);
    buf[len] = '\0';
    return buf;
}

/* The first `cols` characters of `text` padded with spaces (static buffer). */
static const char *
ep_clip(const char *text, int cols)
{
    static char buf[4096];
    snprintf(buf, sizeof buf, "%-*.*s", cols, cols, text);
    return buf;
}

START_TEST(test_eventpane_matches_show_and_centres)
{
    ep_case c;
    ep_open_fixture(&c, "fixtures/markers.eventlog");
    ck_assert_uint_gt(c.n, 100);
    eventpane *p = eventpane_new(c.ix);
    const int rows = 9;
    /* Cursor exactly on events, between events, before the first and after the last. */
    uint64_t cursors[] = {
        0, c.golden_ns[0], c.golden_ns[1], c.golden_ns[5], c.golden_ns[c.n / 2],
        c.golden_ns[c.n / 2] + 1, c.golden_ns[c.n - 2], c.golden_ns[c.n - 1],
        c.golden_ns[c.n - 1] + 1,
    };
    for (size_t k = 0; k < sizeof cursors / sizeof cursors[0]; k++) {
        uint64_t t = cursors[k];
        eventpane_sync(p, t, rows);
        size_t g = ep_first_from(&c, t);
        size_t before = g < (size_t)rows ? g : (size_t)rows;
        size_t after = c.n - g < (size_t)rows ? c.n - g : (size_t)rows;
        ck_assert_uint_eq(eventpane_n_loaded(p), before + after);
        size_t g0 = ep_assert_contiguous(&c, p);
        ck_assert_uint_eq(g0, g - before);
        for (size_t i = 0; i < before + after; i++)
            ck_assert_str_eq(ep_line(p, i), c.golden[g0 + i]);
        if (g < c.n) {
            ck_assert_uint_eq(eventpane_cursor_index(p), before);
            ck_assert_str_eq(ep_line(p, before), c.golden[g]);
            ck_assert_uint_eq(eventpane_selected_index(p), before);
        } else {
            ck_assert_uint_eq(eventpane_cursor_index(p), SIZE_MAX);
            ck_assert_uint_eq(eventpane_selected_index(p), before - 1);
        }
        uint64_t st;
        ck_assert(eventpane_selected_time(p, &st));
        ck_assert_uint_eq(st, c.golden_ns[g < c.n ? g : c.n - 1]);

        /* Drawn: header, then the cursor event on the middle row when events on both
         * sides allow it, every row the show line cut at 60 columns. */
        surface *s = surface_new(60, rows + 1);
        eventpane_draw(p, s, 0, 0, 60, rows + 1, false);
        ck_assert_msg(strncmp(ep_row(s, 0), " events near ", 13) == 0, "header \"%s\"",
                      ep_row(s, 0));
        ck_assert_uint_eq(surface_get(s, 0, 0).style, STYLE_POPUP_TITLE);
        size_t top = g0;
        if (g < c.n) {
            size_t want_top = g > (size_t)rows / 2 ? g - rows / 2 : 0;
            if (want_top + rows > c.n)
                want_top = c.n - rows;
            top = want_top;
            int crow = 1 + (int)(g - top);
            ck_assert_uint_eq(surface_get(s, 0, crow).style, STYLE_CURSOR);
            ck_assert_uint_eq(surface_get(s, 59, crow).style, STYLE_CURSOR);
            if (g >= (size_t)rows / 2 && g + rows / 2 < c.n)
                ck_assert_int_eq(crow, 1 + rows / 2);
        } else {
            top = c.n - rows;
        }
        for (int r = 0; r < rows; r++) {
            ck_assert_str_eq(ep_row(s, 1 + r), ep_clip(c.golden[top + (size_t)r], 60));
            if (top + (size_t)r != g)
                ck_assert_uint_eq(surface_get(s, 0, 1 + r).style, STYLE_EVENT_LIST);
        }
        /* Focused, the selection (here the cursor event) is STYLE_POPUP_SEL. */
        eventpane_draw(p, s, 0, 0, 60, rows + 1, true);
        size_t sel = eventpane_selected_index(p);
        int srow = 1 + (int)(g0 + sel - top);
        ck_assert_uint_eq(surface_get(s, 3, srow).style, STYLE_POPUP_SEL);
        surface_free(s);
    }
    eventpane_free(p);
    eventpane_free(NULL);
    ep_close(&c);
}
END_TEST

/* Walk the whole log with the pane's selection, forwards then backwards, by `step`,
 * checking each visited event and that the loaded window stays contiguous and bounded. */
static void
ep_walk(const ep_case *c, int rows, int step)
{
    eventpane *p = eventpane_new(c->ix);
    eventpane_sync(p, c->golden_ns[0], rows);
    eventpane_first(p);
    size_t want = 0, guard = 0;
    for (;;) {
        size_t got = ep_selected_golden(c, p);
        uint64_t t = UINT64_MAX;
        if (got != want || eventpane_n_loaded(p) > 4 * (size_t)rows ||
            !eventpane_selected_time(p, &t) || t != c->golden_ns[want])
            ck_abort_msg("rows %d step %d: at %zu (time %llu), want %zu, %zu loaded", rows,
                         step, got, (unsigned long long)t, want, eventpane_n_loaded(p));
        if (want == c->n - 1)
            break;
        eventpane_scroll(p, step);
        want = want + (size_t)step < c->n ? want + (size_t)step : c->n - 1;
        if (guard++ > c->n + 10)
            ck_abort_msg("walk does not end");
    }
    /* At the end: further scrolling stays there. */
    eventpane_scroll(p, 1);
    ck_assert_uint_eq(ep_selected_golden(c, p), c->n - 1);
    for (;;) {
        eventpane_scroll(p, -step);
        want = want >= (size_t)step ? want - (size_t)step : 0;
        size_t got = ep_selected_golden(c, p);
        if (got != want || eventpane_n_loaded(p) > 4 * (size_t)rows)
            ck_abort_msg("rows %d step -%d: at %zu, want %zu, %zu loaded", rows, step, got,
                         want, eventpane_n_loaded(p));
        if (want == 0)
            break;
    }
    eventpane_scroll(p, -3);
    ck_assert_uint_eq(ep_selected_golden(c, p), 0);
    /* End and Home jump the whole way. */
    eventpane_last(p);
    ck_assert_uint_eq(ep_selected_golden(c, p), c->n - 1);
    eventpane_first(p);
    ck_assert_uint_eq(ep_selected_golden(c, p), 0);
    eventpane_free(p);
}

START_TEST(test_eventpane_scroll_whole_fixture)
{
    ep_case c;
    ep_open_fixture(&c, "fixtures/markers.eventlog");
    ep_walk(&c, 3, 1);
    ep_walk(&c, 1, 1);
    ep_walk(&c, 5, 7);
    ep_walk(&c, 4, 100);
    ep_close(&c);
}
END_TEST

/* A log with crowds of events at one timestamp, long gaps, a capability block and
 * messages full of control characters. */
static void
ep_build_tricky(tlog *t)
{
    tlog_init(t);
    tlog_header_begin(t);
    tlog_standard_header(t);
    tlog_header_end(t);
    uint64_t ts = 0;
    for (int i = 0; i < 5; i++)
        tlog_event(t, EV_GC_START, ts + (uint64_t)i);
    /* A crowd of 300 at one time, then a huge gap. */
    for (int i = 0; i < 300; i++)
        tlog_event(t, i % 2 ? EV_GC_START : EV_GC_END, 1000);
    static const char *msgs[] = { "tab\there", "esc \x1b[31mred\x1b[0m", "nl\nline",
                                  "bell\a del\x7f", "bad \xff\xfe utf8", "λ ok" };
    for (size_t i = 0; i < sizeof msgs / sizeof msgs[0]; i++) {
        tlog_event(t, EV_USER_MSG, UINT64_C(1000000000000) + i);
        tlog_u16(t, (uint16_t)strlen(msgs[i]));
        tlog_bytes(t, msgs[i], strlen(msgs[i]));
    }
    /* A block for cap 1 whose events interleave in time with global ones after it. */
    tlog inner;
    tlog_init(&inner);
    for (int i = 0; i < 40; i++) {
        tlog_event(&inner, EV_RUN_THREAD, UINT64_C(2000000000000) + 10 * (uint64_t)i);
        tlog_u32(&inner, (uint32_t)i + 1);
    }
    tlog_block(t, UINT64_C(2000000000000), (uint32_t)inner.b.len,
               UINT64_C(2000000000000) + 400, 1);
    tlog_bytes(t, inner.b.data, inner.b.len);
    tlog_free(&inner);
    for (int i = 0; i < 40; i++)
        tlog_event(t, EV_GC_END, UINT64_C(2000000000000) + 10 * (uint64_t)i + 5);
    /* Another crowd at the very end. */
    for (int i = 0; i < 100; i++)
        tlog_event(t, EV_GC_START, UINT64_C(3000000000000));
    tlog_end(t);
}

START_TEST(test_eventpane_crowds_and_gaps)
{
    tlog t;
    ep_build_tricky(&t);
    ep_case c;
    ep_open_bytes(&c, &t);
    tlog_free(&t);
    ep_walk(&c, 3, 1);
    ep_walk(&c, 2, 5);
    ep_walk(&c, 30, 1);
    ep_walk(&c, 6, 1000);

    /* Synced into a crowd: the cursor event is the crowd's first, the rows before are
     * the events just before it. */
    eventpane *p = eventpane_new(c.ix);
    eventpane_sync(p, 1000, 4);
    ck_assert_uint_eq(ep_selected_golden(&c, p), 5);
    ck_assert_uint_eq(eventpane_cursor_index(p), 4);
    /* GOTO_EVENT on the 3rd event of the crowd keeps it selected after the sync. */
    eventpane_scroll(p, 2);
    uint64_t tsel;
    ck_assert(eventpane_selected_time(p, &tsel));
    ck_assert_uint_eq(tsel, 1000);
    eventpane_sync(p, 999, 4);
    eventpane_sync(p, tsel, 4);
    ck_assert_uint_eq(ep_selected_golden(&c, p), 5);     /* 999 selected the first */
    eventpane_scroll(p, 2);
    evseek_hit h;
    ck_assert(eventpane_selected(p, &h));
    eventpane_sync(p, h.time_ns, 5);
    ck_assert_uint_eq(ep_selected_golden(&c, p), 7);
    /* The same sync again keeps the pane's own scrolling. */
    eventpane_scroll(p, 3);
    eventpane_sync(p, h.time_ns, 5);
    ck_assert_uint_eq(ep_selected_golden(&c, p), 10);

    /* In the gap after the crowd: the cursor event is the first message; nothing raw
     * reaches the surface from the messages' control characters. */
    eventpane_sync(p, 5000, 10);
    size_t g = ep_first_from(&c, 5000);
    ck_assert_uint_eq(ep_selected_golden(&c, p), g);
    surface *s = surface_new(50, 11);
    eventpane_draw(p, s, 0, 0, 50, 11, true);
    bool saw_message = false;
    for (int y = 0; y < 11; y++) {
        for (int x = 0; x < 50; x++) {
            uint32_t cp = surface_get(s, x, y).cp;
            ck_assert_msg(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0),
                          "control character %#x at (%d,%d)", cp, x, y);
        }
        saw_message |= strstr(ep_row(s, y), "esc ?[31mred?[0m") != NULL;
    }
    ck_assert(saw_message);
    surface_free(s);
    eventpane_free(p);
    ep_close(&c);
}
END_TEST

/* Synced just after crowds of every size around what one query asks for (the rows
 * plus 64): the rows before the cursor are each crowd's last events, whether the
 * sync's queries are answered from its window or by the index. */
START_TEST(test_eventpane_crowd_sizes)
{
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_standard_header(&t);
    tlog_header_end(&t);
    enum { FIRST = 55, LAST = 80, GAP = 100000 };
    for (int n = FIRST; n <= LAST; n++) {
        uint64_t at = (uint64_t)(n - FIRST + 1) * GAP;
        tlog_event(&t, EV_GC_START, at - GAP / 2);
        for (int i = 0; i < n; i++)
            tlog_event(&t, i % 2 ? EV_GC_START : EV_GC_END, at);
    }
    tlog_event(&t, EV_GC_END, (uint64_t)(LAST - FIRST + 2) * GAP);
    tlog_end(&t);
    ep_case c;
    ep_open_bytes(&c, &t);
    tlog_free(&t);
    for (int rows = 2; rows <= 8; rows += 3) {
        eventpane *p = eventpane_new(c.ix);
        for (int n = FIRST; n <= LAST; n++) {
            uint64_t at = (uint64_t)(n - FIRST + 1) * GAP;
            eventpane_sync(p, at + 1, rows);
            size_t g0 = ep_assert_contiguous(&c, p), g = ep_first_from(&c, at + 1);
            if (ep_selected_golden(&c, p) != g || g0 + eventpane_cursor_index(p) != g)
                ck_abort_msg("rows %d crowd %d: cursor at %zu, want %zu", rows, n,
                             g0 + eventpane_cursor_index(p), g);
            ck_assert_uint_gt(eventpane_cursor_index(p), 0);
        }
        eventpane_free(p);
    }
    ep_close(&c);
}
END_TEST

/* Two panes hold the same events, selection and cursor event. */
static void
ep_assert_same(const eventpane *a, const eventpane *b, const char *what)
{
    ck_assert_msg(eventpane_n_loaded(a) == eventpane_n_loaded(b), "%s: %zu loaded, want %zu",
                  what, eventpane_n_loaded(a), eventpane_n_loaded(b));
    ck_assert_msg(eventpane_selected_index(a) == eventpane_selected_index(b) &&
                  eventpane_cursor_index(a) == eventpane_cursor_index(b),
                  "%s: selection or cursor differs", what);
    for (size_t i = 0; i < eventpane_n_loaded(a); i++) {
        evseek_hit x, y;
        ck_assert(eventpane_hit_at(a, i, &x) && eventpane_hit_at(b, i, &y));
        ck_assert_msg(x.offset == y.offset && x.time_ns == y.time_ns && x.cap == y.cap,
                      "%s: event %zu differs", what, i);
    }
}

/* Syncs a few events apart answer from the window of events the first one read, and load
 * exactly what a fresh pane (reading its own) loads at each cursor; a sync far away, or
 * at the log's edges, reads anew. A fresh pane reads its window once, and once more,
 * further back, where the events before the cursor lie beyond it (the sparse end of this
 * log). */
START_TEST(test_eventpane_kept_window)
{
    ep_case c;
    ep_open_fixture(&c, "fixtures/threaded-n4.eventlog");
    ck_assert_uint_gt(c.n, 2000);
    const int rows = 8;
    eventpane *p = eventpane_new(c.ix);
    size_t starts[] = { c.n / 2, c.n / 5, 0, c.n - 1 };
    for (size_t s = 0; s < sizeof starts / sizeof *starts; s++) {
        size_t reads = eventpane_window_reads(p);
        for (size_t step = 0; step < 12; step++) {
            size_t g = starts[s] + step * 3 < c.n ? starts[s] + step * 3 : c.n - 1;
            if (starts[s] == c.n - 1)
                g = c.n - 1 - step * 3;
            eventpane_sync(p, c.golden_ns[g], rows);
            eventpane *fresh = eventpane_new(c.ix);
            eventpane_sync(fresh, c.golden_ns[g], rows);
            ck_assert_uint_ge(eventpane_window_reads(fresh), 1);
            ck_assert_uint_le(eventpane_window_reads(fresh), 2);
            char what[64];
            snprintf(what, sizeof what, "start %zu step %zu", starts[s], step);
            ep_assert_same(p, fresh, what);
            eventpane_free(fresh);
            ep_assert_contiguous(&c, p);
        }
        /* A jump reads once, the next step twice as wide, and the 10 steps after it
         * (30 events) mostly keep that (sparser events near the end move further). */
        ck_assert_uint_gt(eventpane_window_reads(p), reads);
        ck_assert_uint_le(eventpane_window_reads(p), reads + 4);
    }
    eventpane_free(p);
    ep_close(&c);
}
END_TEST

START_TEST(test_eventpane_no_events)
{
    tlog t;
    tlog_init(&t);
    tlog_header_begin(&t);
    tlog_standard_header(&t);
    tlog_header_end(&t);
    tlog_end(&t);
    ep_case c;
    ep_open_bytes(&c, &t);
    tlog_free(&t);
    eventpane *p = eventpane_new(c.ix);
    eventpane_sync(p, 0, 10);
    eventpane_scroll(p, 5);
    eventpane_scroll(p, -5);
    eventpane_first(p);
    eventpane_last(p);
    ck_assert_uint_eq(eventpane_n_loaded(p), 0);
    uint64_t t0;
    ck_assert(!eventpane_selected_time(p, &t0));
    ck_assert_uint_eq(eventpane_selected_index(p), SIZE_MAX);
    strbuf sb;
    strbuf_init(&sb);
    ck_assert(!eventpane_line(p, 0, &sb));
    strbuf_free(&sb);
    surface *s = surface_new(20, 3);
    eventpane_draw(p, s, 0, 0, 20, 3, true);
    ck_assert_str_eq(ep_row(s, 1), " no events          ");
    surface_free(s);
    eventpane_free(p);
    ep_close(&c);
}
END_TEST

START_TEST(test_eventpane_draw_tiny)
{
    ep_case c;
    ep_open_fixture(&c, "fixtures/markers.eventlog");
    eventpane *p = eventpane_new(c.ix);
    eventpane_sync(p, c.golden_ns[c.n / 2], 5);
    static const int sizes[][2] = { { 1, 1 }, { 3, 2 }, { 1, 4 }, { 0, 0 }, { -2, 3 }, { 12, 4 } };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        surface *s = surface_new(16, 8);
        surface_fill_rect(s, 0, 0, 16, 8, '.', STYLE_DEFAULT);
        eventpane_draw(p, s, 2, 3, w, h, i % 2 == 0);
        for (int y = 0; y < 8; y++) {
            for (int x = 0; x < 16; x++) {
                bool inside = w > 0 && h > 0 && x >= 2 && x < 2 + w && y >= 3 && y < 3 + h;
                surface_cell cell = surface_get(s, x, y);
                if (!inside)
                    ck_assert_msg(cell.cp == '.' && cell.style == STYLE_DEFAULT,
                                  "%dx%d pane wrote at (%d,%d)", w, h, x, y);
            }
        }
        if (w == 3 && h == 2) {
            /* Header cut to 3 columns, then the first 3 columns of a show line. */
            ck_assert_uint_eq(surface_get(s, 2, 3).style, STYLE_POPUP_TITLE);
            ck_assert_uint_eq(surface_get(s, 3, 3).cp, 'e');
        }
        surface_free(s);
    }
    eventpane_free(p);
    ep_close(&c);
}
END_TEST

Suite *
test_eventpane_suite(void)
{
    Suite *s = suite_create("eventpane");
    TCase *tc = tcase_create("eventpane");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_eventpane_matches_show_and_centres);
    tcase_add_test(tc, test_eventpane_scroll_whole_fixture);
    tcase_add_test(tc, test_eventpane_crowds_and_gaps);
    tcase_add_test(tc, test_eventpane_crowd_sizes);
    tcase_add_test(tc, test_eventpane_kept_window);
    tcase_add_test(tc, test_eventpane_no_events);
    tcase_add_test(tc, test_eventpane_draw_tiny);
    suite_add_tcase(s, tc);
    return s;
}
