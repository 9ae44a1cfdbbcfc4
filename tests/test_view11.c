/* test_view11: the viewer's expert additions, headless on real fixtures — thread focus
 * (Enter in the thread list, . and , across HECs, its runs marked at any zoom, in colour,
 * monochrome and ASCII, its life in the pane, Esc), the event pane over the whole log
 * (g/G, type and text filters, the timeline cursor following it), copy as command (the
 * printed commands, run, cover the same range) and the per-HEC spark lanes through a
 * TickitMockTerm. Expected values come from the ghc-events dumps (fixtures/ *.ref017). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../ui/termio_mock.h"
#include "app.h"
#include "lanegroups.h"
#include "detail.h"
#include "evindex.h"
#include "evlog.h"
#include "instants.h"
#include "sparklanes.h"
#include "surface.h"
#include "tests.h"
#include "theme.h"
#include "timefmt.h"
#include "xalloc.h"

/* ---- the dump ---------------------------------------------------------------------------- */

/* One event line of a ref017 dump: "<t>: [cap <c>: ]<text>". */
typedef struct ref_line {
    uint64_t t;
    int cap;                    /* -1 without one */
    char text[160];
} ref_line;

typedef struct ref_dump {
    ref_line *l;
    size_t n;
} ref_dump;

static void
ref_load(ref_dump *d, const char *fixture)
{
    char rel[256];
    snprintf(rel, sizeof rel, "%s.ref017", fixture);
    char *path = test_path(rel);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s", path);
    size_t cap = 0;
    d->l = NULL;
    d->n = 0;
    char line[1024];
    bool events = false;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "Events:", 7) == 0)
            events = true;
        unsigned long long t;
        int n = 0;
        if (!events || sscanf(line, "%llu: %n", &t, &n) != 1 || n == 0)
            continue;
        xgrowarray((void **)&d->l, &cap, d->n + 1, 256, sizeof *d->l);
        ref_line *r = &d->l[d->n++];
        r->t = t;
        r->cap = -1;
        const char *e = line + n;
        unsigned c;
        int m = 0;
        if (sscanf(e, "cap %u: %n", &c, &m) == 1 && m > 0) {
            r->cap = (int)c;
            e += m;
        }
        snprintf(r->text, sizeof r->text, "%s", e);
        r->text[strcspn(r->text, "\n")] = '\0';
    }
    fclose(f);
    x_free(path);
}

/* Lines on `cap` (-2: any) whose text starts with `prefix`, in [t0, t1). */
static size_t
ref_count(const ref_dump *d, int cap, const char *prefix, uint64_t t0, uint64_t t1)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++)
        n += (cap == -2 || d->l[i].cap == cap) && d->l[i].t >= t0 && d->l[i].t < t1 &&
             strncmp(d->l[i].text, prefix, strlen(prefix)) == 0;
    return n;
}

/* The i-th (0-based) line on cap (-2: any) starting with `prefix`, or NULL. */
static const ref_line *
ref_nth(const ref_dump *d, int cap, const char *prefix, size_t i)
{
    for (size_t k = 0; k < d->n; k++)
        if ((cap == -2 || d->l[k].cap == cap) &&
            strncmp(d->l[k].text, prefix, strlen(prefix)) == 0 && i-- == 0)
            return &d->l[k];
    return NULL;
}

/* ---- the viewer ---------------------------------------------------------------------------- */

typedef struct vfx {
    evlog *log;
    evindex *ix;
    app *a;
    surface *s;
    char *path;
} vfx;

static void
vfx_open(vfx *f, const char *fixture, int cols, int lines, const app_opts *o)
{
    f->path = test_path(fixture);
    f->log = test_open_log(fixture);
    diag d;
    f->ix = evindex_build(f->log, NULL, &d);
    ck_assert_ptr_nonnull(f->ix);
    f->a = app_new(f->ix, f->path, cols, lines, o);
    f->s = surface_new(cols, lines);
    app_draw(f->a, f->s);
}

static void
vfx_close(vfx *f)
{
    surface_free(f->s);
    app_free(f->a);
    evindex_free(f->ix);
    evlog_close(f->log);
    x_free(f->path);
}

static void
vfx_keys(vfx *f, const char *keys)
{
    char *copy = xstrdup(keys), *save = NULL;
    for (char *k = strtok_r(copy, " ", &save); k; k = strtok_r(NULL, " ", &save))
        app_key(f->a, k);
    x_free(copy);
    app_draw(f->a, f->s);
}

static bool
vfx_has(vfx *f, const char *text)
{
    char *dump = surface_dump(f->s);
    bool has = strstr(dump, text) != NULL;
    x_free(dump);
    return has;
}

/* The screen line whose label column starts with `label` followed by a space. */
static int
vfx_line_of(vfx *f, const char *label)
{
    char *dump = surface_dump(f->s);
    int line = 0, found = -1;
    size_t n = strlen(label);
    for (char *p = dump; *p && found < 0; line++) {
        if (strncmp(p, label, n) == 0 && p[n] == ' ')
            found = line;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    x_free(dump);
    return found;
}

/* Plot column of time t on the current view, -1 when off screen. */
static int
vfx_col_of(vfx *f, uint64_t t)
{
    const timeview *v = app_view(f->a);
    for (int c = 0; c < v->width; c++) {
        uint64_t a, b;
        timeview_col_range(v, c, &a, &b);
        if (t >= a && t < b)
            return c;
    }
    return -1;
}

#define PLOT0 10        /* LANES_LABEL_COLS */

/* ---- thread focus ---------------------------------------------------------------------------- */

START_TEST(test_focus_thread_steps_and_marks)
{
    ref_dump d;
    ref_load(&d, "fixtures/threaded-n4.eventlog");
    size_t n_runs = ref_count(&d, -2, "running thread 12", 0, UINT64_MAX);
    const ref_line *r1 = ref_nth(&d, -2, "running thread 12", 0);
    const ref_line *r2 = ref_nth(&d, -2, "running thread 12", 1);
    const ref_line *created = ref_nth(&d, -2, "creating thread 12", 0);
    ck_assert(r1 && r2 && created && n_runs == 174);
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    const timeview *v = app_view(f.a);
    /* The list's filter finds the thread by label; Enter focuses it. */
    vfx_keys(&f, "t w o r k e r - 5 Enter");
    char want[96];
    snprintf(want, sizeof want, "thread 12 focused: %zu runs", n_runs);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    ck_assert_uint_eq(v->cursor_ns, r1->t);
    ck_assert(vfx_has(&f, "Thread: 12 (worker-5)"));
    snprintf(want, sizeof want, "created on HEC %d by thread", created->cap);
    ck_assert(vfx_has(&f, want));
    /* . goes to its next run, on another HEC (the dump's second run). */
    vfx_keys(&f, ".");
    ck_assert_uint_eq(v->cursor_ns, r2->t);
    snprintf(want, sizeof want, "run 2/%zu", n_runs);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    snprintf(want, sizeof want, "HEC %d", r2->cap);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    /* Marked exactly where the dump has it running, on every HEC, at the whole-log zoom
     * and zoomed in (the cursor's column is the cursor's). */
    for (int zoom = 0; zoom < 2; zoom++) {
        vfx_keys(&f, zoom ? "+ + + +" : "0");
        int cursor = vfx_col_of(&f, v->cursor_ns), focus_cells = 0;
        for (int cap = 0; cap < 4; cap++) {
            char label[16];
            snprintf(label, sizeof label, "HEC %d", cap);
            int ln = vfx_line_of(&f, label);
            ck_assert_int_ge(ln, 0);
            for (int c = 0; c < v->width; c++) {
                uint64_t a, b;
                timeview_col_range(v, c, &a, &b);
                bool runs = false;
                uint64_t start = 0;
                bool open = false;
                for (size_t i = 0; i < d.n && !runs; i++) {
                    if (d.l[i].cap != cap)
                        continue;
                    if (strcmp(d.l[i].text, "running thread 12") == 0) {
                        start = d.l[i].t;
                        open = true;
                    } else if (open && strncmp(d.l[i].text, "stopping thread 12 ", 19) == 0) {
                        runs = start < b && (d.l[i].t > a || (start == d.l[i].t && start >= a));
                        open = false;
                    }
                }
                if (c == cursor)
                    continue;
                bool marked = surface_get(f.s, PLOT0 + c, ln).style == STYLE_THREAD_FOCUS;
                ck_assert_msg(marked == runs, "zoom %d HEC %d column %d: runs %d, marked %d",
                              zoom, cap, c, runs, marked);
                focus_cells += marked;
            }
        }
        ck_assert_int_gt(focus_cells, 0);
    }
    vfx_keys(&f, "0");
    char label[16];
    snprintf(label, sizeof label, "HEC %d", r2->cap);
    int line = vfx_line_of(&f, label), col = vfx_col_of(&f, r2->t);
    /* A column of it other than the cursor's, for the pen. */
    for (int c = 0; c < v->width; c++)
        if (c != vfx_col_of(&f, v->cursor_ns) &&
            surface_get(f.s, PLOT0 + c, line).style == STYLE_THREAD_FOCUS)
            col = c;
    /* Through the mock terminal, in its own colours. */
    termio_opts to = termio_default_opts();
    to.force_theme = true;
    to.theme = THEME_256;
    termio *t = termio_open_mock(120, 40, &to);
    termio_present(t, f.s);
    TickitPen *pen = tickit_mockterm_get_display_pen(termio_mock_term(t), line, PLOT0 + col);
    theme_look look = theme_get(THEME_256, STYLE_THREAD_FOCUS);
    ck_assert_int_eq(tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG), look.fg);
    ck_assert_int_eq(tickit_pen_get_colour_attr(pen, TICKIT_PEN_BG), look.bg);
    termio_free(t);
    /* , goes back; Escape ends the focus. */
    vfx_keys(&f, ",");
    ck_assert_uint_eq(v->cursor_ns, r1->t);
    ck_assert_uint_eq(surface_get(f.s, PLOT0 + col, line).style, STYLE_THREAD_FOCUS);
    vfx_keys(&f, "Escape");
    ck_assert_uint_ne(surface_get(f.s, PLOT0 + col, line).style, STYLE_THREAD_FOCUS);
    ck_assert(!vfx_has(&f, "Thread: 12 (worker-5)"));
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* Poll the app's background work until none is left (at most ~10 s). */
static void
vfx_settle(vfx *f)
{
    for (int i = 0; i < 1000 && app_totals_pending(f->a); i++) {
        if (!app_poll_totals(f->a)) {
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
    }
    ck_assert(!app_totals_pending(f->a));
    app_draw(f->a, f->s);
}

/* In the interactive loop (async_totals) focusing a thread does not walk the log before
 * the next key: the cursor is on its first run at once, its runs can be stepped through
 * while the detail says the rest is being read, and the instants (creation and its
 * creator) arrive later. Escape while it is read stops the walk. */
START_TEST(test_focus_thread_background)
{
    ref_dump d;
    ref_load(&d, "fixtures/threaded-n4.eventlog");
    size_t n_runs = ref_count(&d, -2, "running thread 12", 0, UINT64_MAX);
    const ref_line *r1 = ref_nth(&d, -2, "running thread 12", 0);
    const ref_line *r2 = ref_nth(&d, -2, "running thread 12", 1);
    const ref_line *created = ref_nth(&d, -2, "creating thread 12", 0);
    ck_assert(r1 && r2 && created);
    vfx f;
    app_opts o = { .async_totals = true };
    vfx_open(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
    const timeview *v = app_view(f.a);
    vfx_keys(&f, "t w o r k e r - 5");
    for (int i = 0; i < 1000 && app_list_counting(f.a); i++) {
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
        app_poll_totals(f.a);
    }
    ck_assert(!app_list_counting(f.a));
    /* Nothing below polls the app: what the worker read is taken only by the loop. */
    vfx_keys(&f, "Enter");
    char want[96];
    ck_assert_msg(strstr(app_status(f.a), "thread 12 focused; reading its runs"), "%s",
                  app_status(f.a));
    ck_assert_uint_eq(v->cursor_ns, r1->t);
    ck_assert(vfx_has(&f, "Thread: 12 (worker-5)"));
    ck_assert(vfx_has(&f, "Focus: reading the log for its runs"));
    snprintf(want, sizeof want, "created on HEC %d by thread", created->cap);
    ck_assert(!vfx_has(&f, want));
    /* The status line gets the count when the life comes, if nothing said more since. */
    vfx_settle(&f);
    snprintf(want, sizeof want, "thread 12 focused: %zu runs", n_runs);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    vfx_keys(&f, "Escape t w o r k e r - 5 Enter .");
    ck_assert_uint_eq(v->cursor_ns, r2->t);     /* stepped before its life came */
    snprintf(want, sizeof want, "HEC %d", r2->cap);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));
    vfx_settle(&f);
    ck_assert_msg(strstr(app_status(f.a), want), "%s", app_status(f.a));  /* kept */
    snprintf(want, sizeof want, "created on HEC %d by thread", created->cap);
    ck_assert(vfx_has(&f, want));
    ck_assert(!vfx_has(&f, "reading the log"));
    ck_assert(vfx_has(&f, "Focus: its life"));
    /* Focused again and left at once: the walk stops, the focus is gone. */
    vfx_keys(&f, "t w o r k e r - 5 Enter");
    ck_assert(vfx_has(&f, "Focus: reading the log"));
    vfx_keys(&f, "Escape");
    ck_assert(!app_totals_pending(f.a));
    vfx_settle(&f);
    ck_assert(!vfx_has(&f, "Thread: 12 (worker-5)"));
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* ---- lane groups ---------------------------------------------------------------------------- */

/* L lists the log's lane groups; Enter on one hides its lanes (on a small screen the
 * "↓ N more" row goes with them), Enter again brings them back; a group hidden by the
 * settings (app_opts.hidden_lanes) starts hidden. The HECs with spark lanes are those
 * the dump has sparks created on. */
START_TEST(test_lane_groups_hide_show)
{
    ref_dump d;
    ref_load(&d, "fixtures/sparks.eventlog");
    int spark_caps[2], n_spark_caps = 0;
    for (int cap = 0; cap < 4; cap++)
        if (ref_count(&d, cap, "spark created", 0, UINT64_MAX) > 0 && n_spark_caps < 2)
            spark_caps[n_spark_caps++] = cap;
    ck_assert_int_eq(n_spark_caps, 2);
    static const char *const rows[] = { "created", "convert", "pool" };
    char label[32];
    for (int pass = 0; pass < 2; pass++) {
        vfx f;
        app_opts o = { 0 };
        vfx_open(&f, "fixtures/sparks.eventlog", 100, pass ? 24 : 40, &o);
        for (int k = 0; k < n_spark_caps; k++)
            for (int r = 0; r < 3 && !pass; r++) {
                snprintf(label, sizeof label, "%s %d", rows[r], spark_caps[k]);
                ck_assert_msg(vfx_line_of(&f, label) >= 0, "no %s row", label);
            }
        if (pass)
            ck_assert(vfx_has(&f, "more: convert 1, pool 1"));
        vfx_keys(&f, "L");
        ck_assert(vfx_has(&f, "lanes: Enter shows or hides a group"));
        ck_assert(vfx_has(&f, "yes    spark-hec: per HEC"));
        vfx_keys(&f, "s p a r k - h e c Enter");
        ck_assert(vfx_has(&f, "no     spark-hec: per HEC"));     /* the menu stays open */
        ck_assert_msg(strstr(app_status(f.a), "hide-lanes spark-hec"), "%s", app_status(f.a));
        vfx_keys(&f, "Escape");
        for (int k = 0; k < n_spark_caps; k++)
            for (int r = 0; r < 3; r++) {
                snprintf(label, sizeof label, "%s %d", rows[r], spark_caps[k]);
                ck_assert_msg(vfx_line_of(&f, label) < 0, "%s still shown", label);
            }
        ck_assert_int_ge(vfx_line_of(&f, "HEC 1"), 0);
        ck_assert_int_ge(vfx_line_of(&f, "sparks"), 0);
        ck_assert(!vfx_has(&f, "more:"));
        vfx_keys(&f, "L s p a r k - h e c Enter Escape");
        snprintf(label, sizeof label, "created %d", spark_caps[0]);
        ck_assert_int_ge(vfx_line_of(&f, label), 0);
        if (pass)
            ck_assert(vfx_has(&f, "more: convert 1, pool 1"));
        else
            for (int k = 0; k < n_spark_caps; k++)
                for (int r = 0; r < 3; r++) {
                    snprintf(label, sizeof label, "%s %d", rows[r], spark_caps[k]);
                    ck_assert_msg(vfx_line_of(&f, label) >= 0, "%s not back", label);
                }
        vfx_close(&f);
    }
    /* Hidden from the start. */
    vfx f;
    app_opts o = { .hidden_lanes = LANEGROUP_BIT(LANEGROUP_SPARK_HEC) |
                                   LANEGROUP_BIT(LANEGROUP_ACTIVITY) };
    vfx_open(&f, "fixtures/sparks.eventlog", 100, 40, &o);
    ck_assert_int_lt(vfx_line_of(&f, "activity"), 0);
    snprintf(label, sizeof label, "pool %d", spark_caps[0]);
    ck_assert_int_lt(vfx_line_of(&f, label), 0);
    ck_assert_int_ge(vfx_line_of(&f, "HEC 0"), 0);
    vfx_keys(&f, "L");
    ck_assert(vfx_has(&f, "no     activity: utilisation"));
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* Without colour the focused runs have a glyph of their own: ▚, or @ in ASCII. */
START_TEST(test_focus_thread_glyphs)
{
    for (int ascii = 0; ascii < 2; ascii++) {
        vfx f;
        app_opts o = { .mono = true, .ascii = ascii };
        vfx_open(&f, "fixtures/threaded-n4.eventlog", 120, 40, &o);
        /* Zoomed in on its first run (124 us), a column inside it but not the cursor's. */
        vfx_keys(&f, "t w o r k e r - 5 Enter + + + + + + + +");
        uint64_t at = app_view(f.a)->cursor_ns;
        int line = vfx_line_of(&f, "HEC 0"), col = vfx_col_of(&f, at) + 2;
        ck_assert_int_ge(line, 0);
        ck_assert_int_ge(col, 0);
        surface_cell c = surface_get(f.s, PLOT0 + col, line);
        ck_assert_uint_eq(c.style, STYLE_THREAD_FOCUS);
        ck_assert_uint_eq(c.cp, ascii ? '@' : 0x259A);
        vfx_close(&f);
    }
}
END_TEST

/* ---- the event pane -------------------------------------------------------------------------- */

START_TEST(test_events_whole_log_and_filters)
{
    ref_dump d;
    ref_load(&d, "fixtures/demo.eventlog");
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/demo.eventlog", 120, 40, &o);
    const timeview *v = app_view(f.a);
    /* G: the log's last event; the timeline cursor follows the pane. */
    vfx_keys(&f, "e Tab G");
    ck_assert_uint_eq(v->cursor_ns, d.l[d.n - 1].t);
    ck_assert(vfx_has(&f, d.l[d.n - 1].text));
    vfx_keys(&f, "g");
    ck_assert_uint_eq(v->cursor_ns, evindex_first_ns(f.ix));
    vfx_keys(&f, "Down Down Down");
    ck_assert_uint_gt(v->cursor_ns, evindex_first_ns(f.ix));
    /* t: the type list (every type first, then the header's in order: 0, 1, ...). */
    vfx_keys(&f, "t Down Down Enter");
    ck_assert(vfx_has(&f, "type 1 (Run thread)"));
    vfx_keys(&f, "g");
    const ref_line *first = ref_nth(&d, -2, "running thread", 0);
    ck_assert_uint_eq(v->cursor_ns, first->t);
    vfx_keys(&f, "G");
    size_t n_run = ref_count(&d, -2, "running thread", 0, UINT64_MAX);
    ck_assert_uint_eq(v->cursor_ns, ref_nth(&d, -2, "running thread", n_run - 1)->t);
    vfx_keys(&f, "Up");
    ck_assert_uint_eq(v->cursor_ns, ref_nth(&d, -2, "running thread", n_run - 2)->t);
    /* f: a text filter on top (type and text both apply); Escape drops both. */
    vfx_keys(&f, "Escape f h a s Space l a b e l Enter g");
    ck_assert(vfx_has(&f, "text \"has label\""));
    const ref_line *lab = NULL;
    for (size_t i = 0; i < d.n && !lab; i++)
        if (strstr(d.l[i].text, "has label"))
            lab = &d.l[i];
    ck_assert_ptr_nonnull(lab);
    ck_assert_uint_eq(v->cursor_ns, lab->t);
    ck_assert(vfx_has(&f, lab->text));
    vfx_keys(&f, "Escape");
    ck_assert(!vfx_has(&f, "text \"has label\""));
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* A filter nothing passes, on a log of 700,000 events: each fetch stops after its budget
 * and says how far it searched; Down searches on from there, to the log's end. */
START_TEST(test_events_filter_budget)
{
    const char *synth = getenv("ELOG_SYNTH");
    ck_assert_msg(synth != NULL, "ELOG_SYNTH must name build/elog-synth");
    char dir[] = "/tmp/elog-view11.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char path[64], cmd[256];
    snprintf(path, sizeof path, "%s/big.eventlog", dir);
    snprintf(cmd, sizeof cmd, "'%s' --events 700000 -o '%s' 2>/dev/null", synth, path);
    ck_assert_msg(system(cmd) == 0, "elog-synth failed");
    vfx f;
    diag d;
    f.path = xstrdup(path);
    f.log = evlog_open(path, &d);
    ck_assert_ptr_nonnull(f.log);
    f.ix = evindex_build(f.log, NULL, &d);
    app_opts o = { 0 };
    f.a = app_new(f.ix, path, 120, 40, &o);
    f.s = surface_new(120, 40);
    vfx_keys(&f, "e Tab f z z z q x Enter");
    ck_assert(vfx_has(&f, "no event passes the filter in what was searched"));
    uint64_t last = 0;
    int downs = 0;
    for (; downs < 20 && vfx_has(&f, ", Down on"); downs++) {
        char *dump = surface_dump(f.s), *at = strstr(dump, "searched ..");
        ck_assert_ptr_nonnull(at);
        char t[32];
        ck_assert_int_eq(sscanf(at + 11, "%31[^,]", t), 1);
        uint64_t ns;
        ck_assert(timefmt_parse(t, &ns));
        ck_assert_uint_gt(ns, last);            /* each Down searches further */
        last = ns;
        x_free(dump);
        vfx_keys(&f, "Down");
    }
    /* 700,000 events at 262,144 a fetch: two cut fetches, then the end of the log. */
    ck_assert_int_eq(downs, 2);
    ck_assert(vfx_has(&f, "no event passes the filter"));
    ck_assert(!vfx_has(&f, "searched"));
    vfx_close(&f);
    unlink(path);
    rmdir(dir);
}
END_TEST

/* ---- copy as command ------------------------------------------------------------------------- */

/* Run `cmd` (a shell command line) and return its first line of stdout. Caller frees. */
static char *
run_first_line(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char buf[1024] = "";
    if (!fgets(buf, sizeof buf, p))
        buf[0] = '\0';
    char rest[4096];
    while (fread(rest, 1, sizeof rest, p) > 0)
        ;
    ck_assert_int_eq(pclose(p), 0);
    return xstrdup(buf);
}

/* The command line with its leading "elog-tui" replaced by the binary under test. */
static char *
with_bin(const char *cmd)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin != NULL, "ELOG_BIN must name build/elog-tui");
    ck_assert(strncmp(cmd, "elog-tui ", 9) == 0);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "'%s' %s 2>/dev/null", bin, cmd + 9);
    return sb.data;
}

/* The value after `opt` in a command line, parsed as the commands parse it. */
static uint64_t
opt_time(const char *cmd, const char *opt)
{
    const char *p = strstr(cmd, opt);
    ck_assert_ptr_nonnull(p);
    char word[64];
    ck_assert_int_eq(sscanf(p + strlen(opt), " %63s", word), 1);
    uint64_t ns;
    ck_assert_msg(timefmt_parse(word, &ns), "%s", word);
    return ns;
}

START_TEST(test_copy_command_reproduces)
{
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/demo.eventlog", 120, 40, &o);
    const timeview *v = app_view(f.a);
    /* Marker to marker: exact ends. */
    vfx_keys(&f, "n Space n Space y");
    ck_assert(timeview_has_selection(v));
    ck_assert(vfx_has(&f, "copy the selection as a command"));
    vfx_keys(&f, "Enter");
    const char *clip = app_take_clipboard(f.a);
    ck_assert_ptr_nonnull(clip);
    ck_assert(app_take_clipboard(f.a) == NULL);     /* taken once */
    char *stats = xstrdup(clip);
    ck_assert(strncmp(stats, "elog-tui stats ", 15) == 0);
    ck_assert(strstr(app_status(f.a), stats) != NULL);
    ck_assert_uint_eq(opt_time(stats, "--from"), v->sel.a_ns);
    ck_assert_uint_eq(opt_time(stats, "--to"), v->sel.b_ns);
    /* Run: the report's window is the selection, to the ns. */
    char *cmd = with_bin(stats), *first = run_first_line(cmd);
    strbuf want;
    strbuf_init(&want);
    strbuf_puts(&want, "window from ");
    timefmt_append_res(&want, v->sel.a_ns, 1);
    strbuf_puts(&want, " to ");
    timefmt_append_res(&want, v->sel.b_ns, 1);
    ck_assert_msg(strstr(first, want.data), "%s lacks %s", first, want.data);
    x_free(cmd);
    x_free(first);
    x_free(stats);
    /* The view as a snapshot: run, its axis is this screen's. */
    vfx_keys(&f, "Escape + + l y Down Enter");
    char *snap = xstrdup(app_take_clipboard(f.a));
    ck_assert(strncmp(snap, "elog-tui snapshot ", 18) == 0);
    ck_assert(strstr(snap, "--size 120x40"));
    ck_assert_uint_eq(opt_time(snap, "--from"), v->t0_ns);
    ck_assert_uint_eq(opt_time(snap, "--to"), v->t1_ns);
    cmd = with_bin(snap);
    strbuf_reset(&want);
    strbuf_puts(&want, cmd);
    strbuf_puts(&want, " | sed -n 2p");
    char *axis = run_first_line(want.data);
    char *dump = surface_dump(f.s);
    char *l2 = strchr(dump, '\n') + 1;
    *strchr(l2, '\n') = '\0';
    axis[strcspn(axis, "\n")] = '\0';
    /* Trailing blanks aside, the same tick labels. */
    for (size_t n = strlen(l2); n && l2[n - 1] == ' '; n--)
        l2[n - 1] = '\0';
    for (size_t n = strlen(axis); n && axis[n - 1] == ' '; n--)
        axis[n - 1] = '\0';
    ck_assert_str_eq(axis, l2);
    x_free(dump);
    x_free(axis);
    x_free(cmd);
    x_free(snap);
    strbuf_free(&want);
    vfx_close(&f);
}
END_TEST

/* ---- spark lanes ----------------------------------------------------------------------------- */

START_TEST(test_spark_lanes_against_dump)
{
    ref_dump d;
    ref_load(&d, "fixtures/sparks.eventlog");
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/sparks.eventlog", 120, 40, &o);
    /* Totals: created on each cap, converted = run locally + stolen by the cap. */
    for (int cap = 0; cap < 2; cap++) {
        size_t li = evindex_lane_of(f.ix, (uint16_t)cap);
        ck_assert_uint_eq((uint64_t)sparklanes_created(f.ix, li, 0, UINT64_MAX),
                          ref_count(&d, cap, "spark created", 0, UINT64_MAX));
        ck_assert_uint_eq((uint64_t)sparklanes_converted(f.ix, li, 0, UINT64_MAX),
                          ref_count(&d, cap, "running a local spark", 0, UINT64_MAX) +
                          ref_count(&d, cap, "stealing a spark", 0, UINT64_MAX));
    }
    /* Each column of "created 0" is drawn exactly where the dump has creations on cap 0,
     * in the lane's pen. */
    termio_opts to = termio_default_opts();
    to.force_theme = true;
    to.theme = THEME_256;
    termio *t = termio_open_mock(120, 40, &to);
    termio_present(t, f.s);
    TickitMockTerm *mt = termio_mock_term(t);
    int line = vfx_line_of(&f, "created 0");
    ck_assert_int_ge(line, 0);
    char buf[32];
    tickit_mockterm_get_display_text(mt, buf, sizeof buf - 1, line, 0, 9);
    ck_assert_str_eq(buf, "created 0");
    const timeview *v = app_view(f.a);
    int drawn = 0;
    for (int c = 0; c < v->width; c++) {
        uint64_t a, b;
        timeview_col_range(v, c, &a, &b);
        size_t want = ref_count(&d, 0, "spark created", a, b);
        surface_cell cell = surface_get(f.s, PLOT0 + c, line);
        bool bar = cell.cp != ' ';
        ck_assert_msg(bar == (want > 0), "column %d: %zu creations, cell U+%04X", c, want,
                      cell.cp);
        if (!bar || cell.style != STYLE_SPARK_CREATED)
            continue;
        TickitPen *pen = tickit_mockterm_get_display_pen(mt, line, PLOT0 + c);
        ck_assert_int_eq(tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG),
                         theme_get(THEME_256, STYLE_SPARK_CREATED).fg);
        drawn++;
    }
    ck_assert_int_gt(drawn, 3);
    /* Per-column counts at once (sparklanes_cols, what a frame draws from) are the dump's
     * too, on both caps, created and converted. */
    uint64_t *tb = xcalloc((size_t)v->width + 1, sizeof *tb);
    double *got = xcalloc((size_t)v->width, sizeof *got);
    for (int c = 0; c < v->width; c++)
        timeview_col_range(v, c, &tb[c], &tb[c + 1]);
    for (int cap = 0; cap < 2; cap++) {
        size_t li = evindex_lane_of(f.ix, (uint16_t)cap);
        for (int conv = 0; conv < 2; conv++) {
            sparklanes_cols(f.ix, li, conv, tb, (size_t)v->width, got);
            for (int c = 0; c < v->width; c++) {
                size_t want = conv ? ref_count(&d, cap, "running a local spark", tb[c], tb[c + 1])
                                         + ref_count(&d, cap, "stealing a spark", tb[c], tb[c + 1])
                                   : ref_count(&d, cap, "spark created", tb[c], tb[c + 1]);
                ck_assert_msg((size_t)got[c] == want, "cap %d %s column %d: %g, dump %zu", cap,
                              conv ? "converted" : "created", c, got[c], want);
            }
        }
    }
    x_free(got);
    x_free(tb);
    /* The pool lane follows cap 0's spark stats: nothing before its first sample. */
    int pool = vfx_line_of(&f, "pool 0");
    ck_assert_int_ge(pool, 0);
    const ref_line *s0 = ref_nth(&d, 0, "spark stats", 0);
    ck_assert_ptr_nonnull(s0);
    for (int c = 0; c < v->width; c++) {
        uint64_t a, b;
        timeview_col_range(v, c, &a, &b);
        if (b <= s0->t)
            ck_assert_uint_eq(surface_get(f.s, PLOT0 + c, pool).cp, ' ');
    }
    termio_free(t);
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* A log without -lf: the counters' rise, ending at the last sample's values. */
START_TEST(test_spark_lanes_from_counters)
{
    ref_dump d;
    ref_load(&d, "fixtures/sparks-p.eventlog");
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/sparks-p.eventlog", 120, 40, &o);
    ck_assert(!sparklanes_exact(f.ix));
    ck_assert_uint_eq(ref_count(&d, -2, "spark created", 0, UINT64_MAX), 0);
    for (int cap = 0; cap < 2; cap++) {
        size_t n = ref_count(&d, cap, "spark stats", 0, UINT64_MAX);
        const ref_line *last = ref_nth(&d, cap, "spark stats", n - 1);
        unsigned long long created, converted;
        ck_assert_int_eq(sscanf(last->text, "spark stats: %llu created, %llu converted",
                                &created, &converted), 2);
        size_t li = evindex_lane_of(f.ix, (uint16_t)cap);
        ck_assert_uint_eq((uint64_t)(sparklanes_created(f.ix, li, 0, UINT64_MAX) + 0.5),
                          created);
        ck_assert_uint_eq((uint64_t)(sparklanes_converted(f.ix, li, 0, UINT64_MAX) + 0.5),
                          converted);
        /* Before the first sample nothing is known to have happened. */
        const ref_line *s0 = ref_nth(&d, cap, "spark stats", 0);
        ck_assert(sparklanes_created(f.ix, li, 0, s0->t) == 0);
        /* Columns at once rise as each column alone does, and add up to the total. */
        const timeview *v = app_view(f.a);
        uint64_t tb[121];
        double got[120], sum = 0;
        for (int c = 0; c < v->width && c < 120; c++)
            timeview_col_range(v, c, &tb[c], &tb[c + 1]);
        int w = v->width < 120 ? v->width : 120;
        sparklanes_cols(f.ix, li, false, tb, (size_t)w, got);
        for (int c = 0; c < w; c++) {
            ck_assert(got[c] == sparklanes_created(f.ix, li, tb[c], tb[c + 1]));
            sum += got[c];
        }
        ck_assert_uint_eq((uint64_t)(sum + 0.5),
                          (uint64_t)(sparklanes_created(f.ix, li, tb[0], tb[w]) + 0.5));
    }
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* Range statistics of a log with spark counters only: over the whole log, the RTS's own
 * SPARKS line; over a part, each cap's last "spark stats" of the dump before the end
 * minus its last before the start. */
START_TEST(test_range_spark_counters)
{
    ref_dump d;
    ref_load(&d, "fixtures/sparks-p.eventlog");
    char *rts = test_path("fixtures/sparks-p.rts-s.txt");
    FILE *fp = fopen(rts, "r");
    ck_assert_ptr_nonnull(fp);
    char line[256];
    unsigned long long total = 0, conv = 0, ovf = 0, dud = 0, gcd = 0, fiz = 0;
    while (fgets(line, sizeof line, fp))
        if (strstr(line, "SPARKS:"))
            ck_assert_int_eq(sscanf(strstr(line, "SPARKS:"), "SPARKS: %llu (%llu converted, "
                                    "%llu overflowed, %llu dud, %llu GC'd, %llu fizzled",
                                    &total, &conv, &ovf, &dud, &gcd, &fiz), 6);
    fclose(fp);
    x_free(rts);
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/sparks-p.eventlog", 120, 40, &o);
    sparklanes_counters sc;
    ck_assert(sparklanes_range_counters(f.ix, 0, UINT64_MAX, &sc));
    ck_assert_uint_eq(sc.created + sc.overflowed + sc.dud, total);   /* GHC's S */
    ck_assert_uint_eq(sc.converted, conv);
    ck_assert_uint_eq(sc.overflowed, ovf);
    ck_assert_uint_eq(sc.dud, dud);
    ck_assert_uint_eq(sc.gcd, gcd);
    ck_assert_uint_eq(sc.fizzled, fiz);
    /* A part: [10 ms, 25 ms). */
    uint64_t a = 10000000, b = 25000000;
    unsigned long long want[6] = { 0 };
    for (int cap = 0; cap < 2; cap++) {
        unsigned long long lo[6] = { 0 }, hi[6] = { 0 };
        for (size_t i = 0; i < d.n; i++) {
            const ref_line *r = &d.l[i];
            unsigned long long v[6];
            if (r->cap != cap || sscanf(r->text, "spark stats: %llu created, %llu converted, "
                                        "%*u remaining (%llu overflowed, %llu dud, %llu GC'd, "
                                        "%llu fizzled)", &v[0], &v[1], &v[2], &v[3], &v[4],
                                        &v[5]) != 6)
                continue;
            if (r->t < a)
                memcpy(lo, v, sizeof v);
            if (r->t < b)
                memcpy(hi, v, sizeof v);
        }
        for (int k = 0; k < 6; k++)
            want[k] += hi[k] - lo[k];
    }
    ck_assert(sparklanes_range_counters(f.ix, a, b, &sc));
    ck_assert_uint_eq(sc.created, want[0]);
    ck_assert_uint_eq(sc.converted, want[1]);
    ck_assert_uint_eq(sc.overflowed, want[2]);
    ck_assert_uint_eq(sc.dud, want[3]);
    ck_assert_uint_eq(sc.gcd, want[4]);
    ck_assert_uint_eq(sc.fizzled, want[5]);
    ck_assert_uint_gt(want[0] + want[1] + want[4] + want[5], 0);
    /* And the range statistics say so. */
    detail_lines dl;
    detail_lines_init(&dl);
    detail_range(&dl, f.ix, a, b);
    char line_want[160];
    snprintf(line_want, sizeof line_want, "Spark counters: created %llu, converted %llu, "
             "overflowed %llu, dud %llu, GC'd %llu, fizzled %llu", want[0], want[1], want[2],
             want[3], want[4], want[5]);
    bool found = false;
    for (size_t i = 0; i < dl.n; i++)
        found |= strncmp(dl.lines[i], line_want, strlen(line_want)) == 0;
    ck_assert_msg(found, "no \"%s\"", line_want);
    detail_lines_free(&dl);
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* ---- instants at deep zoom ------------------------------------------------------------------- */

/* The instants of a window are the dump's lines of those kinds, and every wake-up names
 * the thread the dump has running on the waking cap. */
START_TEST(test_instants_against_dump)
{
    ref_dump d;
    ref_load(&d, "fixtures/threaded-n4.eventlog");
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/threaded-n4.eventlog", 120, 30, &o);
    static const char *const prefixes[] = { "creating thread", "waking up thread",
                                            "migrating thread" };
    uint64_t t0 = 149000000, t1 = 152000000;
    instant in[4096];
    size_t n = instants_in(f.ix, t0, t1, 4096, in);
    ck_assert_uint_ne(n, SIZE_MAX);
    size_t want = 0, wakes = 0;
    for (size_t k = 0; k < 3; k++)
        want += ref_count(&d, -2, prefixes[k], t0, t1);
    ck_assert_uint_eq(n, want);         /* this log has no spark events or messages there */
    uint32_t running[8] = { 0 };
    size_t j = 0;
    for (size_t i = 0; i < d.n && d.l[i].t < t1; i++) {
        const ref_line *r = &d.l[i];
        unsigned a, b;
        if (r->cap >= 0 && r->cap < 8 && sscanf(r->text, "running thread %u", &a) == 1)
            running[r->cap] = a;
        else if (r->cap >= 0 && r->cap < 8 && strncmp(r->text, "stopping thread", 15) == 0)
            running[r->cap] = 0;
        if (r->t < t0 || sscanf(r->text, "waking up thread %u on cap %u", &a, &b) != 2)
            continue;
        while (j < n && in[j].kind != INSTANTS_WAKEUP)
            j++;
        ck_assert_uint_lt(j, n);
        ck_assert_uint_eq(in[j].time_ns, r->t);
        strbuf sb;
        strbuf_init(&sb);
        instants_text(&sb, f.ix, &in[j]);
        char want_text[128];
        if (running[r->cap])
            snprintf(want_text, sizeof want_text,
                     "thread %u (on HEC %d) woke thread %u (on HEC %u)", running[r->cap], r->cap,
                     a, b);
        else
            snprintf(want_text, sizeof want_text, "the RTS (on HEC %d) woke thread %u (on HEC %u)",
                     r->cap, a, b);
        ck_assert_str_eq(sb.data, want_text);
        strbuf_free(&sb);
        j++;
        wakes++;
    }
    ck_assert_uint_gt(wakes, 0);
    /* The whole log holds far more events than a screen of ticks. */
    ck_assert_uint_eq(instants_in(f.ix, 0, UINT64_MAX, 220, in), SIZE_MAX);
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* Zoomed in: the wake-up of thread 12 at 149789084 (posted on cap 1 while thread 6 ran)
 * is a W tick on HEC 1 in the tick's pen, and the pane names both threads; zoomed out,
 * no tick. */
START_TEST(test_instants_ticks_drawn)
{
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/threaded-n4.eventlog", 120, 30, &o);
    timeview *v = app_view(f.a);
    timeview_zoom_to(v, 149780000, 149800000);
    timeview_set_cursor(v, 149789084);
    vfx_keys(&f, "j");                  /* HEC 1 */
    int line = vfx_line_of(&f, "HEC 1"), col = vfx_col_of(&f, 149789084);
    ck_assert_int_ge(line, 0);
    ck_assert_int_ge(col, 0);
    surface_cell c = surface_get(f.s, PLOT0 + col, line);
    ck_assert_uint_eq(c.cp, 'W');
    ck_assert(vfx_has(&f, "Instant: 149.789084ms wake-up: thread 6 (on HEC 1) woke thread 12 "
                          "(on HEC 1)"));
    termio_opts to = termio_default_opts();
    to.force_theme = true;
    to.theme = THEME_256;
    termio *t = termio_open_mock(120, 30, &to);
    vfx_keys(&f, "<");                  /* the cursor off the tick's column */
    termio_present(t, f.s);
    TickitPen *pen = tickit_mockterm_get_display_pen(termio_mock_term(t), line, PLOT0 + col);
    ck_assert_int_eq(tickit_pen_get_colour_attr(pen, TICKIT_PEN_FG),
                     theme_get(THEME_256, STYLE_TICK).fg);
    termio_free(t);
    vfx_keys(&f, "0");
    for (int y = 0; y < 30; y++)
        for (int x = PLOT0; x < 120; x++)
            ck_assert_uint_ne(surface_get(f.s, x, y).style, STYLE_TICK);
    vfx_close(&f);
}
END_TEST

/* ---- range statistics: pause histogram, non-moving ------------------------------------------- */

/* The range statistics' pause histogram (one line of blocks per generation, its fullest
 * bucket named) counts every pause of the dump (starting GC .. finished GC on the one
 * capability of a non-threaded log) once, and its fullest bucket of each generation holds
 * no more pauses than the dump has in those bounds. */
START_TEST(test_range_pause_histogram)
{
    ref_dump d;
    ref_load(&d, "fixtures/heapprof-hT.eventlog");
    uint64_t pauses[4096];
    size_t n = 0;
    uint64_t start = 0;
    for (size_t i = 0; i < d.n && n < 4096; i++) {
        if (strcmp(d.l[i].text, "starting GC") == 0)
            start = d.l[i].t;
        else if (strcmp(d.l[i].text, "finished GC") == 0)
            pauses[n++] = d.l[i].t - start;
    }
    ck_assert_uint_gt(n, 2);
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/heapprof-hT.eventlog", 120, 40, &o);
    detail_lines dl;
    detail_lines_init(&dl);
    detail_range(&dl, f.ix, evindex_first_ns(f.ix), evindex_last_ns(f.ix) + 1);
    size_t title = SIZE_MAX, seen = 0, gens = 0;
    for (size_t i = 0; i < dl.n; i++) {
        if (strncmp(dl.lines[i], "Pause histogram: ", 17) == 0)
            title = i;
        const char *most = strstr(dl.lines[i], "  most ");
        if (title == SIZE_MAX || i == title || strncmp(dl.lines[i], "  Gen ", 6) != 0 || !most)
            continue;
        char lo_s[32], hi_s[32];
        unsigned long long c, of;
        const char *dots = strstr(most + 7, "..");
        ck_assert_ptr_nonnull(dots);
        ck_assert_uint_lt((size_t)(dots - (most + 7)), sizeof lo_s);
        memcpy(lo_s, most + 7, (size_t)(dots - (most + 7)));
        lo_s[dots - (most + 7)] = 0;
        ck_assert_int_eq(sscanf(dots + 2, "%31s (%llu of %llu)", hi_s, &c, &of), 3);
        uint64_t lo, hi;
        ck_assert(timefmt_parse(lo_s, &lo) && timefmt_parse(hi_s, &hi));
        size_t in = 0;
        for (size_t k = 0; k < n; k++)
            in += pauses[k] >= lo && pauses[k] < hi;
        ck_assert_msg(c >= 1 && c <= in, "%s: the dump has %zu in %s..%s", dl.lines[i], in,
                      lo_s, hi_s);
        seen += of;
        gens++;
    }
    ck_assert_uint_ne(title, SIZE_MAX);
    ck_assert_uint_gt(gens, 0);
    ck_assert_uint_eq(seen, n);
    detail_lines_free(&dl);
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* Over the whole log the non-moving line has the RTS's syncs (`+RTS -s`: "25 syncs,
 * 0.062s" elapsed — 25 is the collections, the syncs are the dump's 48 BEGINs, each
 * posted twice) and every sweep. */
START_TEST(test_range_nonmoving)
{
    ref_dump d;
    ref_load(&d, "fixtures/nonmoving.eventlog");
    size_t syncs = ref_count(&d, -2, "post-mark synchronization began", 0, UINT64_MAX) / 2;
    size_t sweeps = ref_count(&d, -2, "concurrent sweep began", 0, UINT64_MAX);
    char *rts = test_path("fixtures/nonmoving.rts-s.txt");
    FILE *fp = fopen(rts, "r");
    ck_assert_ptr_nonnull(fp);
    char line[256];
    double sync_s = -1;
    while (fgets(line, sizeof line, fp))
        if (strstr(line, " syncs,"))
            ck_assert_int_eq(sscanf(strstr(line, "syncs,") + 6, " %lf", &sync_s), 1);
    fclose(fp);
    x_free(rts);
    ck_assert(sync_s > 0);
    vfx f;
    app_opts o = { 0 };
    vfx_open(&f, "fixtures/nonmoving.eventlog", 120, 40, &o);
    detail_lines dl;
    detail_lines_init(&dl);
    detail_range(&dl, f.ix, evindex_first_ns(f.ix), evindex_last_ns(f.ix) + 1);
    const char *nm = NULL;
    for (size_t i = 0; i < dl.n; i++)
        if (strncmp(dl.lines[i], "Non-moving: ", 12) == 0)
            nm = dl.lines[i];
    ck_assert_ptr_nonnull(nm);
    char sync_t[32];
    size_t n_sync, n_sweep, n_cycles;
    const char *s = strstr(nm, "sync ");
    ck_assert_int_eq(sscanf(s, "sync %31s (%zu)", sync_t, &n_sync), 2);
    ck_assert_int_eq(sscanf(strstr(nm, "sweep "), "sweep %*s (%zu); %zu cycles", &n_sweep,
                            &n_cycles), 2);
    ck_assert_uint_eq(n_sync, syncs);
    ck_assert_uint_eq(n_sweep, sweeps);
    ck_assert_uint_eq(n_cycles, sweeps);
    uint64_t sync_ns;
    ck_assert(timefmt_parse(sync_t, &sync_ns));
    /* The RTS prints seconds to 3 decimals. */
    ck_assert_msg(sync_ns >= (uint64_t)((sync_s - 0.0005) * 1e9) &&
                  sync_ns < (uint64_t)((sync_s + 0.0005) * 1e9), "%s vs %.3fs", nm, sync_s);
    /* An empty range in the middle holds none of it. */
    detail_lines_free(&dl);
    detail_range(&dl, f.ix, 1, 2);
    for (size_t i = 0; i < dl.n; i++)
        if (strncmp(dl.lines[i], "Non-moving: ", 12) == 0)
            ck_assert_str_eq(dl.lines[i], "Non-moving: mark 0ns (0), sync 0ns (0), sweep 0ns "
                             "(0); 0 cycles starting in the range");
    detail_lines_free(&dl);
    vfx_close(&f);
    x_free(d.l);
}
END_TEST

/* tests/e2e/threads.sh: thread focus and stepping in the real binary under tmux, both
 * backends and LANG=C. */
START_TEST(test_e2e_threads)
{
    test_e2e_script("threads", "");
}
END_TEST

/* tests/e2e/clipboard.sh: y copies the command through OSC 52 into tmux's paste buffer
 * (set-clipboard on), both backends. */
START_TEST(test_e2e_clipboard)
{
    test_e2e_script("clipboard", "");
}
END_TEST

Suite *
test_view11_suite(void)
{
    Suite *s = suite_create("view11");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_focus_thread_steps_and_marks);
    tcase_add_test(tc, test_focus_thread_glyphs);
    tcase_add_test(tc, test_focus_thread_background);
    tcase_add_test(tc, test_lane_groups_hide_show);
    tcase_add_test(tc, test_events_whole_log_and_filters);
    tcase_add_test(tc, test_events_filter_budget);
    tcase_add_test(tc, test_copy_command_reproduces);
    tcase_add_test(tc, test_spark_lanes_against_dump);
    tcase_add_test(tc, test_spark_lanes_from_counters);
    tcase_add_test(tc, test_range_spark_counters);
    tcase_add_test(tc, test_instants_against_dump);
    tcase_add_test(tc, test_instants_ticks_drawn);
    tcase_add_test(tc, test_range_pause_histogram);
    tcase_add_test(tc, test_range_nonmoving);
    suite_add_tcase(s, tc);
    TCase *e2e = tcase_create("e2e");
    tcase_set_timeout(e2e, 120);
    tcase_add_test(e2e, test_e2e_threads);
    tcase_add_test(e2e, test_e2e_clipboard);
    suite_add_tcase(s, e2e);
    return s;
}
