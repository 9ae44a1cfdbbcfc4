/* tests/test_lanes: the timeline's lanes — which lanes each fixture gets, cell glyphs and
 * styles on small hand-made logs (a tiny GC in a busy column, eighth blocks, thread names
 * in runs, cursor and selection, markers, non-moving phases, activity, heap, sparks),
 * ASCII mode, a brute-force property test of every HEC cell on random views, and the
 * item lookups and next/previous walks against the index's own records. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evindex.h"
#include "evlog.h"
#include "evwrite.h"
#include "heapbands.h"
#include "heapprof.h"
#include "lanes.h"
#include "runlane.h"
#include "surface.h"
#include "tests.h"
#include "theme.h"
#include "threadlife.h"
#include "timeview.h"
#include "xalloc.h"

#define EW(call) ck_assert_int_eq((call), EVWRITE_OK)

/* ---- logs and their index --------------------------------------------------------------- */

typedef struct tl_mem {
    char *data;                 /* open_memstream's buffer: free() */
    size_t len;
    FILE *f;
} tl_mem;

typedef struct tl_case {
    char *bytes;                /* owned (free()), NULL for a file */
    evlog *log;
    evindex *ix;
    lane lanes[32];
    size_t n_lanes;
} tl_case;

static evwrite *
tl_writer(tl_mem *m)
{
    m->data = NULL;
    m->len = 0;
    m->f = open_memstream(&m->data, &m->len);
    ck_assert_ptr_nonnull(m->f);
    evwrite *w = evwrite_new(m->f);
    EW(evwrite_declare_ghc(w));
    return w;
}

static void
tl_index(tl_case *c)
{
    diag ending;
    c->ix = evindex_build(c->log, NULL, &ending);
    ck_assert_ptr_nonnull(c->ix);
    char why[256] = "";
    ck_assert_msg(evindex_check(c->ix, why, sizeof why), "evindex_check: %s", why);
    c->n_lanes = lanes_build(c->ix, c->lanes, sizeof c->lanes / sizeof c->lanes[0]);
    ck_assert_uint_le(c->n_lanes, sizeof c->lanes / sizeof c->lanes[0]);
}

/* Finish the writer and index the log (taking over the bytes). */
static void
tl_open_mem(tl_case *c, tl_mem *m, evwrite *w)
{
    EW(evwrite_finish(w));
    evwrite_destroy(w);
    ck_assert_int_eq(fclose(m->f), 0);
    memset(c, 0, sizeof *c);
    c->bytes = m->data;
    diag d;
    c->log = evlog_open_bytes((const uint8_t *)c->bytes, m->len, &d);
    ck_assert_msg(c->log != NULL, "evlog_open_bytes: %s", d.msg);
    tl_index(c);
}

static void
tl_open_fixture(tl_case *c, const char *name)
{
    memset(c, 0, sizeof *c);
    char rel[128];
    snprintf(rel, sizeof rel, "fixtures/%s", name);
    c->log = test_open_log(rel);
    tl_index(c);
}

static void
tl_close(tl_case *c)
{
    evindex_free(c->ix);
    evlog_close(c->log);
    free(c->bytes);
}

/* The lane with this label. */
static const lane *
tl_lane(const tl_case *c, const char *label)
{
    for (size_t i = 0; i < c->n_lanes; i++)
        if (strcmp(c->lanes[i].label, label) == 0)
            return &c->lanes[i];
    ck_abort_msg("no lane %s", label);
    return NULL;
}

static size_t
tl_lane_index(const tl_case *c, const char *label)
{
    return (size_t)(tl_lane(c, label) - c->lanes);
}

/* Draw every lane of c over a view into a fresh surface (caller frees). */
static surface *
tl_draw(const tl_case *c, const timeview *v, const lanes_draw_opts *o)
{
    int cols = LANES_LABEL_COLS + v->width;
    surface *s = surface_new(cols, (int)c->n_lanes);
    lanes_draw(s, 0, 0, cols, c->ix, c->lanes, c->n_lanes, 0, (int)c->n_lanes, v, o);
    return s;
}

/* The same with `o`'s rows per lane (o->hec_split: two for a HEC). */
static surface *
tl_draw_rows(const tl_case *c, const timeview *v, const lanes_draw_opts *o)
{
    int cols = LANES_LABEL_COLS + v->width, rows = 0;
    for (size_t i = 0; i < c->n_lanes; i++)
        rows += lanes_rows(&c->lanes[i], o);
    surface *s = surface_new(cols, rows);
    lanes_draw(s, 0, 0, cols, c->ix, c->lanes, c->n_lanes, 0, rows, v, o);
    return s;
}

/* The first screen row of the lane labelled `label` as tl_draw_rows draws it. */
static int
tl_row_of(const tl_case *c, const lanes_draw_opts *o, const char *label)
{
    int row = 0;
    for (size_t i = 0; i < c->n_lanes && strcmp(c->lanes[i].label, label) != 0; i++)
        row += lanes_rows(&c->lanes[i], o);
    return row;
}

/* Cell of plot column col on row `row`. */
static surface_cell
tl_cell(const surface *s, size_t row, int col)
{
    return surface_get(s, LANES_LABEL_COLS + col, (int)row);
}

static void
tl_assert_cell(const surface *s, size_t row, int col, uint32_t cp, uint8_t style)
{
    surface_cell c = tl_cell(s, row, col);
    ck_assert_msg(c.cp == cp && c.style == style,
                  "row %zu col %d: got U+%04X style %s, want U+%04X style %s", row, col,
                  (unsigned)c.cp, theme_style_name(c.style), (unsigned)cp,
                  theme_style_name(style));
}

static const lanes_draw_opts tl_plain = { .ascii = false, .selected_lane = SIZE_MAX };

#define BLOCK(k) ((uint32_t)(0x2580 + (k)))    /* lower k/8 block, k = 1..8 */

/* ---- lanes_build ------------------------------------------------------------------------ */

static void
tl_assert_lanes(const char *fixture, const char *want)
{
    tl_case c;
    tl_open_fixture(&c, fixture);
    strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; i < c.n_lanes; i++)
        strbuf_printf(&sb, "%s%s", i ? "," : "", c.lanes[i].label);
    ck_assert_msg(strcmp(sb.data, want) == 0, "%s: lanes %s, want %s", fixture, sb.data, want);
    /* Kinds agree with labels; HEC lanes point at their capability. */
    for (size_t i = 0; i < c.n_lanes; i++) {
        const lane *l = &c.lanes[i];
        if (strncmp(l->label, "HEC ", 4) == 0) {
            ck_assert_int_eq(l->kind, LANE_HEC);
            ck_assert_uint_eq(evindex_cap_at(c.ix, l->cap_lane)->cap,
                              (unsigned)atoi(l->label + 4));
        }
    }
    /* A short array gets the first lanes and the full count. */
    lane two[2];
    ck_assert_uint_eq(lanes_build(c.ix, two, 2), c.n_lanes);
    ck_assert_str_eq(two[0].label, c.lanes[0].label);
    ck_assert_str_eq(two[1].label, c.lanes[1].label);
    ck_assert_uint_eq(lanes_build(c.ix, NULL, 0), c.n_lanes);
    strbuf_free(&sb);
    tl_close(&c);
}

START_TEST(test_lanes_build_fixtures)
{
    tl_assert_lanes("threaded-n4.eventlog", "activity,HEC 0,HEC 1,HEC 2,HEC 3,markers,heap");
    tl_assert_lanes("threaded-n2.eventlog", "activity,HEC 0,HEC 1,markers,heap");
    tl_assert_lanes("nonmoving.eventlog", "activity,HEC 0,HEC 1,nonmoving,markers,heap");
    /* Both HECs created sparks (13125 and 376 by the dump): three spark lanes each. */
    tl_assert_lanes("sparks.eventlog", "activity,HEC 0,HEC 1,markers,heap,sparks,created 0,"
                    "convert 0,pool 0,created 1,convert 1,pool 1");
    /* Every HEC converted or created sparks by the dump's last spark stats (0/169, 0/78,
     * 1/153, 399/0 created/converted). */
    tl_assert_lanes("demo.eventlog", "activity,HEC 0,HEC 1,HEC 2,HEC 3,markers,heap,sparks,"
                    "created 0,convert 0,pool 0,created 1,convert 1,pool 1,created 2,"
                    "convert 2,pool 2,created 3,convert 3,pool 3");
    tl_assert_lanes("markers.eventlog", "activity,HEC 0,markers,heap");
    tl_assert_lanes("killed.eventlog", "activity,HEC 0,markers,heap");
    tl_assert_lanes("heapprof-hT.eventlog", "activity,HEC 0,markers,heap,bands");
}
END_TEST

/* An old-style log without blocks: runs have no capability, the lane is "global". */
START_TEST(test_lanes_build_global)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_set_blocks(w, false));
    EW(evwrite_begin_data(w));
    EW(evwrite_run_thread(w, 0, 100, 1));
    EW(evwrite_stop_thread(w, 0, 200, 1, 5, 0));
    tl_case c;
    tl_open_mem(&c, &m, w);
    ck_assert_uint_eq(c.n_lanes, 2);
    ck_assert_str_eq(c.lanes[0].label, "activity");
    ck_assert_int_eq(c.lanes[0].kind, LANE_ACTIVITY);
    ck_assert_str_eq(c.lanes[1].label, "global");
    ck_assert_int_eq(c.lanes[1].kind, LANE_HEC);
    ck_assert_uint_eq(evindex_cap_at(c.ix, c.lanes[1].cap_lane)->cap, EVINDEX_NO_CAP);
    tl_close(&c);
}
END_TEST

/* The heap-bands lane of a -hT profile, at the whole log and zoomed in: every cell of
 * its rows against a plain recount — the census in force at the column's end, its
 * bytes summed by band rank (the LANES_BAND_STYLES largest by peak, then the rest),
 * stacked bottom up, the style of the band with most of the cell's eighths. */
START_TEST(test_lanes_heapbands_recount)
{
    static const uint8_t styles[LANES_BAND_STYLES + 1] = {
        STYLE_BAND_1, STYLE_BAND_2, STYLE_BAND_3, STYLE_BAND_4, STYLE_BAND_5, STYLE_BAND_6,
        STYLE_BAND_OTHER,
    };
    tl_case c;
    tl_open_fixture(&c, "heapprof-hT.eventlog");
    const heapprof *hp = evindex_heap_profile(c.ix);
    size_t nb;
    uint32_t *order = heapbands_by_peak(hp, &nb);
    uint32_t *rank = xmalloc((nb + 1) * sizeof *rank);
    for (size_t k = 0; k < nb; k++)
        rank[order[k]] = (uint32_t)k;
    uint64_t top = heapbands_max_total(hp);
    ck_assert_uint_gt(top, 0);
    lanes_draw_opts o = { 0 };
    int row0 = tl_row_of(&c, &o, "bands"), checked = 0;
    uint64_t first = evindex_first_ns(c.ix), last = evindex_last_ns(c.ix);
    for (int zoom = 0; zoom < 2; zoom++) {
        timeview v;
        timeview_init(&v, first, last, 150);
        if (zoom)
            timeview_zoom_to(&v, first + (last - first) / 3, first + (last - first) / 2);
        surface *s = tl_draw_rows(&c, &v, &o);
        int cursor = timeview_col_of(&v, v.cursor_ns);
        for (int col = 0; col < v.width; col++) {
            uint64_t a, b;
            ck_assert(timeview_col_range(&v, col, &a, &b));
            size_t ci = heapprof_census_by(hp, b > a ? b - 1 : a);
            uint64_t per[LANES_BAND_STYLES + 1] = { 0 }, total_bytes = 0;
            if (ci != SIZE_MAX) {
                const heapprof_census *cs = heapprof_census_at(hp, ci);
                total_bytes = cs->total_bytes;
                for (size_t k = 0; k < cs->n_entries; k++) {
                    uint32_t band;
                    uint64_t bytes;
                    heapprof_entry(hp, ci, k, &band, &bytes);
                    per[rank[band] < LANES_BAND_STYLES ? rank[band] : LANES_BAND_STYLES] += bytes;
                }
            }
            unsigned levels = 8u * LANES_BAND_ROWS;
            unsigned total = (unsigned)(total_bytes * levels / top);
            total = total == 0 && total_bytes > 0 ? 1 : total;
            for (unsigned row = 0; row < LANES_BAND_ROWS && col != cursor; row++) {
                unsigned lo = row * 8, hi = lo + 8;
                surface_cell cell = tl_cell(s, (size_t)row0 + LANES_BAND_ROWS - 1 - row, col);
                if (ci == SIZE_MAX || total <= lo) {
                    ck_assert_msg(cell.cp == ' ', "zoom %d col %d row %u: not blank", zoom,
                                  col, row);
                    continue;
                }
                uint64_t acc = 0;
                unsigned best = LANES_BAND_STYLES, best_len = 0;
                for (unsigned k = 0; k <= LANES_BAND_STYLES; k++) {
                    unsigned x0 = (unsigned)(acc * levels / top);
                    acc += per[k];
                    unsigned x1 = (unsigned)(acc * levels / top);
                    unsigned ov_lo = x0 > lo ? x0 : lo, ov_hi = x1 < hi ? x1 : hi;
                    if (ov_hi > ov_lo && ov_hi - ov_lo > best_len) {
                        best_len = ov_hi - ov_lo;
                        best = k;
                    }
                }
                ck_assert_msg(cell.cp != ' ' && cell.style == styles[best],
                              "zoom %d col %d row %u: style %u, want %u", zoom, col, row,
                              cell.style, styles[best]);
                checked++;
            }
        }
        surface_free(s);
    }
    ck_assert_int_gt(checked, 100);
    x_free(rank);
    x_free(order);
    tl_close(&c);
}
END_TEST

START_TEST(test_lanes_eighths)
{
    ck_assert_uint_eq(lanes_eighths(0, 1000), 0);
    ck_assert_uint_eq(lanes_eighths(5, 0), 0);
    ck_assert_uint_eq(lanes_eighths(1, 1000000), 1);       /* anything shows */
    ck_assert_uint_eq(lanes_eighths(62, 1000), 1);         /* 0.496 eighths */
    ck_assert_uint_eq(lanes_eighths(187, 1000), 1);        /* 1.496 */
    ck_assert_uint_eq(lanes_eighths(188, 1000), 2);        /* 1.504 */
    ck_assert_uint_eq(lanes_eighths(500, 1000), 4);
    ck_assert_uint_eq(lanes_eighths(999, 1000), 8);
    ck_assert_uint_eq(lanes_eighths(1000, 1000), 8);
    ck_assert_uint_eq(lanes_eighths(2000, 1000), 8);
    ck_assert_uint_eq(lanes_eighths(UINT64_MAX / 2, UINT64_MAX), 4);
    ck_assert_uint_eq(lanes_eighths(UINT64_MAX - 1, UINT64_MAX), 8);
}
END_TEST

/* lanes_eighths_same says what comparing the two levels says: every pair of parts of
 * small wholes, and pairs around each level's edges for wholes up to 2^64 - 1 (where
 * lanes_eighths shifts). */
START_TEST(test_lanes_eighths_same)
{
    for (uint64_t whole = 0; whole <= 40; whole++)
        for (uint64_t a = 0; a <= whole + 2; a++)
            for (uint64_t b = a; b <= whole + 2; b++)
                ck_assert_msg(lanes_eighths_same(a, b, whole) ==
                                  (lanes_eighths(a, whole) == lanes_eighths(b, whole)),
                              "%llu %llu of %llu", (unsigned long long)a, (unsigned long long)b,
                              (unsigned long long)whole);
    static const uint64_t wholes[] = { 1000, 999999937, UINT64_C(1) << 59,
                                       (UINT64_C(1) << 59) + 1, UINT64_C(3) << 60,
                                       UINT64_MAX - 1, UINT64_MAX };
    for (size_t w = 0; w < sizeof wholes / sizeof wholes[0]; w++) {
        uint64_t whole = wholes[w];
        uint64_t at[40];
        size_t n = 0;
        for (unsigned k = 0; k <= 16; k += 2) {
            /* Near the edge between levels k / 2 and k / 2 + 1: part ~ whole * (k + 1) / 16. */
            uint64_t edge = whole / 16 * (k + 1) + whole % 16 * (k + 1) / 16;
            for (int d = -2; d <= 1; d++)
                if ((d < 0 && edge >= (uint64_t)-d) || (d >= 0 && edge <= UINT64_MAX - (uint64_t)d))
                    at[n++] = edge + (uint64_t)(int64_t)d;
        }
        at[n++] = 0;
        at[n++] = whole;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                uint64_t a = at[i] < at[j] ? at[i] : at[j], b = at[i] < at[j] ? at[j] : at[i];
                ck_assert_msg(lanes_eighths_same(a, b, whole) ==
                                  (lanes_eighths(a, whole) == lanes_eighths(b, whole)),
                              "%llu %llu of %llu", (unsigned long long)a,
                              (unsigned long long)b, (unsigned long long)whole);
            }
    }
}
END_TEST

/* ---- HEC cells -------------------------------------------------------------------------- */

static void
tl_gc(evwrite *w, uint16_t cap, uint64_t start, uint64_t work, uint64_t done, uint64_t end,
      uint16_t gen)
{
    evwrite_gc_phases ph = { .start_ns = start, .work_ns = work, .done_ns = done };
    EW(evwrite_gc_phases_write(w, cap, &ph));
    evwrite_gc_stats st = { .gen = gen, .copied_bytes = 4096, .par_threads = 1 };
    EW(evwrite_gc_stats_write(w, cap, end, &st));
    EW(evwrite_empty(w, cap, EV_GC_END, end));
}

/* Thread 1 runs all of [0, 1 ms) except a 1 us GC at 500 us. */
START_TEST(test_lanes_tiny_gc_wins)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_run_thread(w, 0, 0, 1));
    EW(evwrite_stop_thread(w, 0, 500000, 1, 1, 0));
    tl_gc(w, 0, 500000, 500000, 501000, 501000, 0);
    EW(evwrite_run_thread(w, 0, 501000, 1));
    EW(evwrite_stop_thread(w, 0, 1000000, 1, 5, 0));
    tl_case c;
    tl_open_mem(&c, &m, w);
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 10);
    timeview_set_cursor(&v, 0);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t hec = tl_lane_index(&c, "HEC 0");
    int gc_col = timeview_col_of(&v, 500000);
    ck_assert_int_gt(gc_col, 0);
    ck_assert_int_lt(gc_col, 9);
    /* 1 us of GC out of 100 us, the rest running: the GC's style is never hidden by the
     * 99 us of running, and the folded cell is as tall as the HEC was busy — all of the
     * column — not a nearly idle ▁. */
    tl_assert_cell(s, hec, gc_col, BLOCK(8), STYLE_GC_WORK);
    for (int col = 1; col < 10; col++)
        if (col != gc_col)
            tl_assert_cell(s, hec, col, BLOCK(8), STYLE_RUNNING);
    /* The activity lane counts only running: 99% rounds to a full block. */
    tl_assert_cell(s, tl_lane_index(&c, "activity"), gc_col, BLOCK(8), STYLE_ACTIVITY);
    surface_free(s);
    /* Without colour the glyph alone tells it: a full braille bar (mono), 'G' (ASCII). */
    lanes_draw_opts o = tl_plain;
    o.mono = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, gc_col, 0x28FF, STYLE_GC_WORK);
    surface_free(s);
    o.ascii = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, gc_col, 'G', STYLE_GC_WORK);
    surface_free(s);
    /* On its own row (split lane) the GC shows its own share: 1/100 is the least block. */
    o = tl_plain;
    o.hec_split = true;
    s = tl_draw_rows(&c, &v, &o);
    int gc_row = tl_row_of(&c, &o, "HEC 0") + 1;
    ck_assert_uint_eq(surface_get(s, LANES_LABEL_COLS + gc_col, gc_row).cp, BLOCK(1));
    ck_assert_uint_eq(surface_get(s, LANES_LABEL_COLS + gc_col, gc_row - 1).cp, BLOCK(8));
    surface_free(s);

    /* Waiting dominates: GC_WAIT style. */
    tl_close(&c);
    w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_run_thread(w, 0, 0, 1));
    EW(evwrite_stop_thread(w, 0, 500000, 1, 1, 0));
    tl_gc(w, 0, 500000, 500900, 501000, 501000, 0);     /* 900 ns waiting, 100 working */
    EW(evwrite_run_thread(w, 0, 501000, 1));
    EW(evwrite_stop_thread(w, 0, 1000000, 1, 5, 0));
    tl_open_mem(&c, &m, w);
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 10);
    s = tl_draw(&c, &v, &tl_plain);
    tl_assert_cell(s, tl_lane_index(&c, "HEC 0"), gc_col, BLOCK(8), STYLE_GC_WAIT);
    surface_free(s);
    tl_close(&c);

    /* A column mostly idle with a short GC in it stays low: 1 us of GC and 9 us of
     * running in 100 us is a tenth busy, one eighth; 'g' in ASCII, the lowest braille. */
    w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_user_marker(w, 0, 0, "start"));
    tl_gc(w, 0, 500000, 500000, 501000, 501000, 0);
    EW(evwrite_run_thread(w, 0, 501000, 1));
    EW(evwrite_stop_thread(w, 0, 510000, 1, 1, 0));
    EW(evwrite_user_marker(w, 0, 1000000, "end"));
    tl_open_mem(&c, &m, w);
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 10);
    ck_assert_int_eq(timeview_col_of(&v, 500000), gc_col);
    ck_assert_int_eq(timeview_col_of(&v, 510000), gc_col);
    s = tl_draw(&c, &v, &tl_plain);
    hec = tl_lane_index(&c, "HEC 0");
    tl_assert_cell(s, hec, gc_col, BLOCK(1), STYLE_GC_WORK);
    surface_free(s);
    o = tl_plain;
    o.mono = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, gc_col, 0x28C0, STYLE_GC_WORK);
    surface_free(s);
    o.ascii = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, gc_col, 'g', STYLE_GC_WORK);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* Runs filling 1/2, 1/4 and 1/1000 of three 1000 ns columns, then idle; a marker ends
 * the log at 3999 so the view is exactly [0, 4000) over 4 columns. */
static void
tl_fraction_log(tl_case *c)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_thread_label(w, 0, 0, 1, "one"));
    EW(evwrite_run_thread(w, 0, 0, 1));
    EW(evwrite_stop_thread(w, 0, 500, 1, 1, 0));
    EW(evwrite_run_thread(w, 0, 1000, 2));
    EW(evwrite_stop_thread(w, 0, 1250, 2, 3, 0));
    EW(evwrite_run_thread(w, 0, 2000, 3));
    EW(evwrite_stop_thread(w, 0, 2001, 3, 5, 0));
    EW(evwrite_user_marker(w, 0, 3999, "end"));
    tl_open_mem(c, &m, w);
}

START_TEST(test_lanes_fractions)
{
    tl_case c;
    tl_fraction_log(&c);
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 4);
    for (int col = 0; col < 4; col++) {
        uint64_t a, b;
        ck_assert(timeview_col_range(&v, col, &a, &b));
        ck_assert_uint_eq(a, (uint64_t)col * 1000);
        ck_assert_uint_eq(b, (uint64_t)col * 1000 + 1000);
    }
    timeview_set_cursor(&v, 3999);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t hec = tl_lane_index(&c, "HEC 0");
    tl_assert_cell(s, hec, 0, BLOCK(4), STYLE_RUNNING);        /* ▄ half busy */
    tl_assert_cell(s, hec, 1, BLOCK(2), STYLE_RUNNING);        /* ▂ a quarter */
    tl_assert_cell(s, hec, 2, BLOCK(1), STYLE_RUNNING);        /* ▁ 1 ns still shows */
    tl_assert_cell(s, hec, 3, ' ', STYLE_CURSOR);              /* idle, under the cursor */
    /* Labels: the plain one, and the separator column. */
    surface_cell lab = surface_get(s, 0, (int)hec);
    ck_assert_uint_eq(lab.cp, 'H');
    ck_assert_uint_eq(lab.style, STYLE_LANE_LABEL);
    ck_assert_uint_eq(surface_get(s, LANES_LABEL_COLS - 1, (int)hec).style, STYLE_DEFAULT);
    /* No options: the same picture. */
    surface *s2 = surface_new(surface_cols(s), surface_lines(s));
    lanes_draw(s2, 0, 0, surface_cols(s), c.ix, c.lanes, c.n_lanes, 0, (int)c.n_lanes, &v, NULL);
    for (int line = 0; line < surface_lines(s); line++)
        ck_assert(surface_row_equal(s, s2, line));
    surface_free(s2);
    surface_free(s);

    /* ASCII: '#' from half busy up, '+' below. */
    lanes_draw_opts o = tl_plain;
    o.ascii = true;
    o.selected_lane = hec;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, 0, '#', STYLE_RUNNING);
    tl_assert_cell(s, hec, 1, '+', STYLE_RUNNING);
    tl_assert_cell(s, hec, 2, '+', STYLE_RUNNING);
    ck_assert_uint_eq(surface_get(s, 0, (int)hec).style, STYLE_LANE_LABEL_SEL);
    ck_assert_uint_eq(surface_get(s, 0, 0).style, STYLE_LANE_LABEL);
    surface_free(s);

    /* Highlighting thread 2 marks only the column it runs in. */
    o = tl_plain;
    o.highlight = true;
    o.highlight_tid = 2;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, hec, 0, BLOCK(4), STYLE_RUNNING);
    tl_assert_cell(s, hec, 1, BLOCK(2), STYLE_RUNNING_HL);
    tl_assert_cell(s, hec, 2, BLOCK(1), STYLE_RUNNING);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* Cursor and selection: the cursor column keeps its glyphs on every lane; idle cells of
 * the selection change style, busy ones do not. */
START_TEST(test_lanes_cursor_selection)
{
    tl_case c;
    tl_fraction_log(&c);
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 4);
    timeview_set_cursor(&v, 2000);              /* select [2000, 3999): columns 2 and 3 */
    timeview_select_start(&v, v.cursor_ns);
    timeview_set_cursor(&v, 3999);
    timeview_select_end(&v);
    timeview_set_cursor(&v, 1500);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t hec = tl_lane_index(&c, "HEC 0"), act = tl_lane_index(&c, "activity");
    size_t mk = tl_lane_index(&c, "markers");
    tl_assert_cell(s, hec, 1, BLOCK(2), STYLE_CURSOR);
    tl_assert_cell(s, act, 1, BLOCK(2), STYLE_CURSOR);
    tl_assert_cell(s, mk, 1, ' ', STYLE_CURSOR);
    tl_assert_cell(s, hec, 0, BLOCK(4), STYLE_RUNNING);        /* outside the selection */
    tl_assert_cell(s, hec, 2, BLOCK(1), STYLE_RUNNING);        /* busy inside it */
    tl_assert_cell(s, hec, 3, ' ', STYLE_SELECTION);           /* idle inside it */
    tl_assert_cell(s, mk, 2, ' ', STYLE_SELECTION);
    tl_assert_cell(s, mk, 3, 0x25BC, STYLE_MARKER);            /* the marker at 3999 */
    /* Nothing is drawn past the plot or into other lines. */
    ck_assert_int_eq(surface_cols(s), LANES_LABEL_COLS + 4);
    surface_free(s);

    /* Clipped to a narrower width: the plot stops at the edge. */
    s = surface_new(LANES_LABEL_COLS + 10, (int)c.n_lanes);
    surface_fill_rect(s, 0, 0, LANES_LABEL_COLS + 10, (int)c.n_lanes, 'x', STYLE_DEFAULT);
    lanes_draw(s, 0, 0, LANES_LABEL_COLS + 2, c.ix, c.lanes, c.n_lanes, 0, (int)c.n_lanes, &v,
               &tl_plain);
    for (size_t r = 0; r < c.n_lanes; r++) {
        ck_assert_uint_ne(surface_get(s, LANES_LABEL_COLS + 1, (int)r).cp, 'x');
        ck_assert_uint_eq(surface_get(s, LANES_LABEL_COLS + 2, (int)r).cp, 'x');
    }
    /* Rows from first_lane on, n_rows of them. */
    surface_fill_rect(s, 0, 0, LANES_LABEL_COLS + 10, (int)c.n_lanes, 'x', STYLE_DEFAULT);
    lanes_draw(s, 0, 0, LANES_LABEL_COLS + 4, c.ix, c.lanes, c.n_lanes, hec, 1, &v, &tl_plain);
    ck_assert_uint_eq(surface_get(s, 0, 0).cp, 'H');
    ck_assert_uint_eq(surface_get(s, 0, 1).cp, 'x');
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* Two surfaces hold the same cells, or the test fails naming `what`. */
static void
tl_assert_same(const surface *a, const surface *b, const char *what)
{
    ck_assert_int_eq(surface_cols(a), surface_cols(b));
    ck_assert_int_eq(surface_lines(a), surface_lines(b));
    for (int y = 0; y < surface_lines(a); y++)
        for (int x = 0; x < surface_cols(a); x++) {
            surface_cell p = surface_get(a, x, y), q = surface_get(b, x, y);
            ck_assert_msg(p.cp == q.cp && p.style == q.style,
                          "%s: cell (%d, %d): U+%04X %s kept, U+%04X %s drawn anew", what, x,
                          y, (unsigned)p.cp, theme_style_name(p.style), (unsigned)q.cp,
                          theme_style_name(q.style));
        }
}

/* Draw with the memo (its rows kept from the frames before) and without: the same. */
static void
tl_assert_kept(const tl_case *c, const evindex *ix, const timeview *v, lanes_draw_opts o,
               const char *what)
{
    int cols = LANES_LABEL_COLS + v->width, rows = 0;
    for (size_t i = 0; i < c->n_lanes; i++)
        rows += lanes_rows(&c->lanes[i], &o);
    surface *kept = surface_new(cols, rows), *fresh = surface_new(cols, rows);
    lanes_draw(kept, 0, 0, cols, ix, c->lanes, c->n_lanes, 0, rows, v, &o);
    o.memo = NULL;
    lanes_draw(fresh, 0, 0, cols, ix, c->lanes, c->n_lanes, 0, rows, v, &o);
    tl_assert_same(kept, fresh, what);
    surface_free(kept);
    surface_free(fresh);
}

/* A memo keeps the rows of a frame for the next one that shows the same times of the same
 * index with the same options, and only then: moving the cursor or the selection, or
 * drawing again, reuses every row; zooming, panning, ASCII, monochrome, a highlighted
 * or focused thread (and another one), split HEC rows and a growing live index each draw
 * what a frame without a memo draws. */
START_TEST(test_lanes_kept_rows)
{
    tl_case c;
    tl_open_fixture(&c, "threaded-n4.eventlog");
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 120);
    lanes_memo *memo = lanes_memo_new();
    lanes_draw_opts o = tl_plain;
    o.memo = memo;
    size_t n = c.n_lanes;

    tl_assert_kept(&c, c.ix, &v, o, "first frame");
    ck_assert_uint_eq(lanes_memo_reused(memo), 0);
    tl_assert_kept(&c, c.ix, &v, o, "again");
    ck_assert_uint_eq(lanes_memo_reused(memo), n);
    uint64_t mid = evindex_first_ns(c.ix) + (evindex_last_ns(c.ix) - evindex_first_ns(c.ix)) / 2;
    timeview_set_cursor(&v, mid);
    timeview_select_start(&v, mid);
    timeview_set_cursor(&v, mid + (evindex_last_ns(c.ix) - mid) / 3);
    timeview_select_end(&v);
    tl_assert_kept(&c, c.ix, &v, o, "cursor and selection");
    ck_assert_uint_eq(lanes_memo_reused(memo), 2 * n);
    timeview_zoom_to(&v, mid - 3000000, mid + 3000000);
    tl_assert_kept(&c, c.ix, &v, o, "zoomed");
    ck_assert_uint_eq(lanes_memo_reused(memo), 2 * n);
    timeview_pan_fraction(&v, 0.25);
    tl_assert_kept(&c, c.ix, &v, o, "panned");
    timeview_fit(&v);                   /* where GC phases show: they differ most */
    tl_assert_kept(&c, c.ix, &v, o, "whole log");
    /* Each option changed from a frame with every other one as it is. */
    static const char *const option_names[] = { "monochrome", "split", "ASCII" };
    bool *options[] = { &o.mono, &o.hec_split, &o.ascii };
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        *options[i] = true;
        tl_assert_kept(&c, c.ix, &v, o, option_names[i]);
        *options[i] = false;
        tl_assert_kept(&c, c.ix, &v, o, "whole log again");
    }
    /* Two threads that run in view: highlighted, then focused, one after another. */
    timeview_zoom_to(&v, mid - 3000000, mid + 3000000);
    const evindex_cap *cap = evindex_cap_at(c.ix, 0);
    size_t i0 = runlane_first_after(cap->runs, v.t0_ns);
    ck_assert_uint_lt(i0 + 1, runlane_count(cap->runs));
    runlane_run r0, r1;
    runlane_get(cap->runs, i0, &r0);
    size_t i1 = i0 + 1;
    do
        runlane_get(cap->runs, i1++, &r1);
    while (r1.tid == r0.tid && i1 < runlane_count(cap->runs));
    ck_assert_uint_ne(r0.tid, r1.tid);
    o.highlight = true;
    o.highlight_tid = r0.tid;
    tl_assert_kept(&c, c.ix, &v, o, "highlighted");
    o.highlight_tid = r1.tid;
    tl_assert_kept(&c, c.ix, &v, o, "another highlighted");
    o.highlight = false;
    tl_assert_kept(&c, c.ix, &v, o, "zoomed again");
    threadlife *f = threadlife_new(c.ix, r0.tid);
    o.focus = f;
    tl_assert_kept(&c, c.ix, &v, o, "focused");
    surface *plain = tl_draw(&c, &v, &tl_plain), *focused = tl_draw(&c, &v, &o);
    bool differ = false;                /* the focus shows in this view */
    for (int y = 0; y < surface_lines(plain); y++)
        for (int xc = 0; xc < surface_cols(plain); xc++)
            differ = differ || surface_get(plain, xc, y).style != surface_get(focused, xc, y).style;
    ck_assert(differ);
    surface_free(plain);
    surface_free(focused);
    threadlife_free(f);
    f = threadlife_new(c.ix, r1.tid);
    o.focus = f;
    tl_assert_kept(&c, c.ix, &v, o, "another focused");
    threadlife_free(f);
    o.focus = NULL;
    lanes_memo_free(memo);

    /* A live index growing under the same view (the whole log's times). */
    memo = lanes_memo_new();
    o.memo = memo;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 120);
    evindex_grow *g = evindex_grow_new(c.log);
    int steps = 0;
    for (bool more = true; more; steps++) {
        more = evindex_grow_step(g, 16384);
        tl_case grown = c;
        grown.n_lanes = lanes_build(evindex_grow_index(g), grown.lanes,
                                    sizeof grown.lanes / sizeof grown.lanes[0]);
        char what[32];
        snprintf(what, sizeof what, "grown, step %d", steps);
        tl_assert_kept(&grown, evindex_grow_index(g), &v, o, what);
    }
    ck_assert_int_gt(steps, 3);
    evindex_grow_free(g);
    lanes_memo_free(memo);
    tl_close(&c);
}
END_TEST

/* Thread 7 ("worker") runs 10 whole columns, thread 42 (a label too long) 4: the first
 * is named, the second shows its id; partly covered columns keep their blocks. */
START_TEST(test_lanes_run_text)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_thread_label(w, 0, 0, 7, "worker"));
    EW(evwrite_thread_label(w, 0, 0, 42, "a-very-long-label"));
    EW(evwrite_run_thread(w, 0, 0, 7));
    EW(evwrite_stop_thread(w, 0, 100000, 7, 3, 0));
    EW(evwrite_run_thread(w, 0, 100000, 42));
    EW(evwrite_stop_thread(w, 0, 140000, 42, 3, 0));
    EW(evwrite_run_thread(w, 0, 150000, 9));
    EW(evwrite_stop_thread(w, 0, 175000, 9, 3, 0));     /* 2.5 columns: too short */
    EW(evwrite_user_marker(w, 0, 199999, "end"));
    tl_case c;
    tl_open_mem(&c, &m, w);
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 20);
    timeview_set_cursor(&v, 199999);
    lanes_draw_opts o = tl_plain;
    o.highlight = true;
    o.highlight_tid = 42;
    surface *s = tl_draw(&c, &v, &o);
    size_t hec = tl_lane_index(&c, "HEC 0");
    const char *want = "worker";
    for (int col = 0; col < 6; col++)
        tl_assert_cell(s, hec, col, (uint32_t)want[col], STYLE_RUN_TEXT);
    for (int col = 6; col < 10; col++)
        tl_assert_cell(s, hec, col, BLOCK(8), STYLE_RUNNING);
    tl_assert_cell(s, hec, 10, '4', STYLE_RUN_TEXT);
    tl_assert_cell(s, hec, 11, '2', STYLE_RUN_TEXT);
    tl_assert_cell(s, hec, 12, BLOCK(8), STYLE_RUNNING_HL);
    tl_assert_cell(s, hec, 13, BLOCK(8), STYLE_RUNNING_HL);
    tl_assert_cell(s, hec, 14, ' ', STYLE_IDLE);
    tl_assert_cell(s, hec, 15, BLOCK(8), STYLE_RUNNING);
    tl_assert_cell(s, hec, 16, BLOCK(8), STYLE_RUNNING);
    tl_assert_cell(s, hec, 17, BLOCK(4), STYLE_RUNNING);
    surface_free(s);

    /* Zoomed out to 2 columns, no run covers 4: no text at all. */
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 2);
    s = tl_draw(&c, &v, &tl_plain);
    for (int col = 0; col < 2; col++)
        ck_assert_uint_ne(tl_cell(s, hec, col).style, STYLE_RUN_TEXT);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* ---- other lanes ------------------------------------------------------------------------ */

/* Markers "alpha" (col 0) and "beta" (col 6), messages in cols 5 and 8, 10 columns of
 * 1000 ns. */
START_TEST(test_lanes_markers)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_user_marker(w, 0, 0, "alpha"));
    EW(evwrite_user_msg(w, 0, 5500, "hello"));
    EW(evwrite_user_marker(w, 0, 6500, "beta\n"));
    EW(evwrite_user_msg(w, 0, 8500, "again"));
    EW(evwrite_user_msg(w, 0, 9999, "last"));
    tl_case c;
    tl_open_mem(&c, &m, w);
    ck_assert_uint_eq(evindex_first_ns(c.ix), 0);
    ck_assert_uint_eq(evindex_last_ns(c.ix), 9999);
    timeview v;
    timeview_init(&v, 0, 9999, 10);
    timeview_set_cursor(&v, 9999);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t mk = tl_lane_index(&c, "markers");
    tl_assert_cell(s, mk, 0, 0x25BC, STYLE_MARKER);
    const char *alph = "alph";             /* up to one column before the next tick */
    for (int col = 1; col <= 4; col++)
        tl_assert_cell(s, mk, col, (uint32_t)alph[col - 1], STYLE_MARKER_TEXT);
    tl_assert_cell(s, mk, 5, 0x00B7, STYLE_MARKER_TEXT);       /* a message only */
    tl_assert_cell(s, mk, 6, 0x25BC, STYLE_MARKER);
    tl_assert_cell(s, mk, 7, 'b', STYLE_MARKER_TEXT);
    tl_assert_cell(s, mk, 8, 'e', STYLE_MARKER_TEXT);          /* the name covers a dot */
    tl_assert_cell(s, mk, 9, 't', STYLE_CURSOR);
    surface_free(s);

    lanes_draw_opts o = tl_plain;
    o.ascii = true;
    timeview_set_cursor(&v, 0);
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, mk, 0, '|', STYLE_CURSOR);
    tl_assert_cell(s, mk, 5, '.', STYLE_MARKER_TEXT);
    tl_assert_cell(s, mk, 6, '|', STYLE_MARKER);
    surface_free(s);

    /* Wide enough for the whole name; the control character is a space. */
    timeview_init(&v, 0, 9999, 40);
    timeview_set_cursor(&v, 9999);
    s = tl_draw(&c, &v, &tl_plain);
    int bc = timeview_col_of(&v, 6500);
    const char *beta = "beta ";
    for (int k = 0; k < 5; k++)
        tl_assert_cell(s, mk, bc + 1 + k, (uint32_t)beta[k], STYLE_MARKER_TEXT);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* A non-moving cycle: mark 0..900, sync 900..950, sweep 950..1800; then mark 2000..2600. */
START_TEST(test_lanes_nonmoving)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    const uint16_t G = EVLOG_NO_CAP;
    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 0));
    EW(evwrite_conc_mark_end(w, G, 900, 10));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_BEGIN, 900));
    EW(evwrite_empty(w, G, EV_CONC_SYNC_END, 950));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_BEGIN, 950));
    EW(evwrite_empty(w, G, EV_CONC_SWEEP_END, 1800));
    EW(evwrite_empty(w, G, EV_CONC_MARK_BEGIN, 2000));
    EW(evwrite_conc_mark_end(w, G, 2600, 10));
    EW(evwrite_user_marker(w, 0, 3999, "end"));
    tl_case c;
    tl_open_mem(&c, &m, w);
    timeview v;
    timeview_init(&v, 0, 3999, 4);
    timeview_set_cursor(&v, 3999);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t nm = tl_lane_index(&c, "nonmoving");
    tl_assert_cell(s, nm, 0, BLOCK(8), STYLE_NM_SYNC);     /* 50 ns of sync wins */
    tl_assert_cell(s, nm, 1, BLOCK(6), STYLE_NM_SWEEP);    /* 800 / 1000 */
    tl_assert_cell(s, nm, 2, BLOCK(5), STYLE_NM_MARK);     /* 600 / 1000 */
    tl_assert_cell(s, nm, 3, ' ', STYLE_CURSOR);
    /* The label fits whole in the label column ("nonmoving" is the longest). */
    for (int i = 0; i < 9; i++)
        ck_assert_uint_eq(surface_get(s, i, (int)nm).cp, (uint32_t)"nonmoving"[i]);
    surface_free(s);
    lanes_draw_opts o = tl_plain;
    o.ascii = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, nm, 0, 'S', STYLE_NM_SYNC);
    tl_assert_cell(s, nm, 1, 'W', STYLE_NM_SWEEP);
    tl_assert_cell(s, nm, 2, 'M', STYLE_NM_MARK);
    ck_assert_uint_eq(surface_get(s, 8, (int)nm).cp, 'g');
    surface_free(s);

    /* Items: the phase under a time, then stepping through all four. */
    const lane *l = tl_lane(&c, "nonmoving");
    lane_item it;
    ck_assert(lanes_item_at(c.ix, l, 920, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_NM);
    ck_assert_uint_eq(it.start_ns, 900);
    ck_assert_uint_eq(it.index, 0);
    ck_assert(lanes_item_at(c.ix, l, 1950, 100, &it));     /* the gap: nearest within 100 */
    ck_assert_uint_eq(it.start_ns, 2000);
    ck_assert_uint_eq(it.index, 1);
    ck_assert(!lanes_item_at(c.ix, l, 1900, 50, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_NONE);
    ck_assert_uint_eq(it.start_ns, 1900);
    ck_assert_uint_eq(it.end_ns, 1950);
    uint64_t starts[] = { 0, 900, 950, 2000 };
    ck_assert(lanes_item_at(c.ix, l, 0, 0, &it));
    for (size_t k = 1; k < 4; k++) {
        ck_assert(lanes_next_item(c.ix, l, it.start_ns, 1, &it));
        ck_assert_uint_eq(it.start_ns, starts[k]);
    }
    ck_assert(!lanes_next_item(c.ix, l, it.start_ns, 1, &it));
    ck_assert(lanes_next_item(c.ix, l, 2000, -1, &it));
    ck_assert_uint_eq(it.start_ns, 950);
    tl_close(&c);
}
END_TEST

/* Two caps: cap 0 busy throughout, cap 1 a 1 ns run; heap size 100 then 400 at 2500;
 * six spark creations (4 in col 0, 2 in col 1) and no spark counters. */
START_TEST(test_lanes_activity_heap_sparks)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 0, 0, 100));
    EW(evwrite_run_thread(w, 0, 0, 1));
    for (uint64_t t = 100; t < 500; t += 100)
        EW(evwrite_empty(w, 0, EV_SPARK_CREATE, t));
    EW(evwrite_empty(w, 0, EV_SPARK_CREATE, 1100));
    EW(evwrite_empty(w, 0, EV_SPARK_CREATE, 1200));
    EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, 2500, 0, 400));
    EW(evwrite_stop_thread(w, 0, 3999, 1, 5, 0));
    EW(evwrite_run_thread(w, 1, 0, 2));
    EW(evwrite_stop_thread(w, 1, 1, 2, 5, 0));
    tl_case c;
    tl_open_mem(&c, &m, w);
    timeview v;
    timeview_init(&v, 0, 3999, 4);
    timeview_set_cursor(&v, 3999);
    surface *s = tl_draw(&c, &v, &tl_plain);
    size_t act = tl_lane_index(&c, "activity"), heap = tl_lane_index(&c, "heap");
    size_t sp = tl_lane_index(&c, "sparks");
    tl_assert_cell(s, act, 0, BLOCK(4), STYLE_ACTIVITY);       /* 1001 / 2000 */
    tl_assert_cell(s, act, 1, BLOCK(4), STYLE_ACTIVITY);
    tl_assert_cell(s, heap, 0, BLOCK(2), STYLE_HEAP_SIZE);     /* 100 / 400 */
    tl_assert_cell(s, heap, 1, BLOCK(2), STYLE_HEAP_SIZE);     /* carried: no sample here */
    tl_assert_cell(s, heap, 2, BLOCK(8), STYLE_HEAP_SIZE);
    tl_assert_cell(s, heap, 3, BLOCK(8), STYLE_CURSOR);
    tl_assert_cell(s, sp, 0, BLOCK(8), STYLE_SPARKS);
    tl_assert_cell(s, sp, 1, BLOCK(4), STYLE_SPARKS);
    tl_assert_cell(s, sp, 2, ' ', STYLE_IDLE);
    surface_free(s);
    lanes_draw_opts o = tl_plain;
    o.ascii = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, heap, 0, ':', STYLE_HEAP_SIZE);
    tl_assert_cell(s, heap, 2, '#', STYLE_HEAP_SIZE);
    tl_assert_cell(s, act, 0, '=', STYLE_ACTIVITY);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* ---- fixtures: ASCII, brute force ------------------------------------------------------- */

static uint64_t
tl_rng(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

static uint64_t
tl_overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
    return e > s ? e - s : 0;
}

/* The heap row over columns many series chunks wide (where the chunk headers' bounds
 * settle most bars) against the brute-force bar of every column: the largest of the value
 * in force at its start and the samples in it, in eighths of the series' largest value.
 * The values sit at the eighths' rounding edges and one either side, flat for stretches
 * (whole chunks of one bar) and mixed elsewhere; several widths and windows. */
START_TEST(test_lanes_series_bounds)
{
    enum { N = 64 * 24, TOP = 16000 };
    static uint64_t when[N], val[N];
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_run_thread(w, 0, 0, 1));
    uint64_t r = 0x9E3779B97F4A7C15u, level = 5000;
    for (size_t i = 0; i < N; i++) {
        when[i] = 1000 + 10 * i + (tl_rng(&r) % 4 == 0 ? 0 : tl_rng(&r) % 10);
        if (i > 0 && when[i] < when[i - 1])
            when[i] = when[i - 1];
        if (tl_rng(&r) % 200 == 0)      /* a new stretch of one level */
            level = 2000 * (1 + tl_rng(&r) % 8) - 1000;
        uint64_t edge = 2000 * (1 + tl_rng(&r) % 8) - 1000;    /* a rounding edge */
        bool flat = (i / 350) % 2 == 0;
        val[i] = i == N / 3 ? TOP : flat ? level : edge - 1 + tl_rng(&r) % 3;
        EW(evwrite_heap_bytes(w, 0, EV_HEAP_SIZE, when[i], 0, val[i]));
    }
    EW(evwrite_stop_thread(w, 0, when[N - 1] + 5, 1, 5, 0));
    tl_case c;
    tl_open_mem(&c, &m, w);
    size_t heap = tl_lane_index(&c, "heap");
    static const int widths[] = { 1, 3, 7, 24 };
    uint64_t lo = when[0], hi = when[N - 1] + 5;
    const uint64_t windows[][2] = { { lo, hi }, { lo + 3333, hi - 4444 }, { 0, hi * 2 },
                                    { when[350], when[1050] + 1 } };
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++)
        for (size_t k = 0; k < sizeof windows / sizeof windows[0]; k++) {
            timeview v;
            timeview_init(&v, lo, hi, widths[wi]);
            timeview_zoom_to(&v, windows[k][0], windows[k][1]);
            surface *sf = tl_draw(&c, &v, &tl_plain);
            for (int col = 0; col < v.width; col++) {
                uint64_t a, b;
                ck_assert(timeview_col_range(&v, col, &a, &b));
                bool any = false;
                uint64_t mx = 0;
                for (size_t i = 0; i < N; i++) {
                    bool in_force = when[i] <= a && (i + 1 == N || when[i + 1] > a);
                    if (in_force || (when[i] >= a && when[i] < b)) {
                        mx = !any || val[i] > mx ? val[i] : mx;
                        any = true;
                    }
                }
                unsigned want = any ? lanes_eighths(mx, TOP) : 0;
                surface_cell got = tl_cell(sf, heap, col);
                ck_assert_msg(got.cp == (want ? BLOCK(want) : ' '),
                              "width %d window %zu col %d [%llu, %llu): U+%04X, want %u eighths"
                              " (max %llu)", widths[wi], k, col, (unsigned long long)a,
                              (unsigned long long)b, (unsigned)got.cp, want,
                              (unsigned long long)mx);
            }
            surface_free(sf);
        }
    tl_close(&c);
}
END_TEST

/* A random view of the log: whole, or zoomed to a random range down to a few ns a column. */
static void
tl_random_view(const evindex *ix, uint64_t *rng, timeview *v)
{
    uint64_t t0 = evindex_first_ns(ix), t1 = evindex_last_ns(ix);
    int width = 1 + (int)(tl_rng(rng) % 160);
    timeview_init(v, t0, t1, width);
    if (tl_rng(rng) % 4 == 0)
        return;
    uint64_t len = t1 - t0 + 1;
    uint64_t span = len >> (tl_rng(rng) % 24);
    if (span < (uint64_t)width)
        span = (uint64_t)width;
    uint64_t a = t0 + tl_rng(rng) % len;
    timeview_zoom_to(v, a, a + span);
}

static const char *const tl_fixtures[] = {
    "threaded-n4.eventlog", "threaded-n2.eventlog", "nonmoving.eventlog", "sparks.eventlog",
    "demo.eventlog", "markers.eventlog", "killed.eventlog", "heapprof-hT.eventlog",
};
#define TL_N_FIXTURES (sizeof tl_fixtures / sizeof tl_fixtures[0])

/* Every cell of every lane, for each fixture at whole-log and random zooms, is ASCII. */
START_TEST(test_lanes_ascii_only)
{
    uint64_t rng = 0x9e3779b97f4a7c15u;
    lanes_draw_opts o = { .ascii = true, .selected_lane = 1, .highlight = true,
                          .highlight_tid = 3 };
    for (size_t f = 0; f < TL_N_FIXTURES; f++) {
        tl_case c;
        tl_open_fixture(&c, tl_fixtures[f]);
        for (int k = 0; k < 12; k++) {
            timeview v;
            tl_random_view(c.ix, &rng, &v);
            if (k == 0)
                timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 150);
            if (k == 1) {
                timeview_select_start(&v, v.t0_ns);
                timeview_set_cursor(&v, timeview_hit_test(&v, v.width / 2));
            }
            surface *s = tl_draw(&c, &v, &o);
            for (int line = 0; line < surface_lines(s); line++)
                for (int col = 0; col < surface_cols(s); col++) {
                    surface_cell cell = surface_get(s, col, line);
                    ck_assert_msg(cell.cp >= 0x20 && cell.cp < 0x7f,
                                  "%s view %d: U+%04X at %d,%d", tl_fixtures[f], k,
                                  (unsigned)cell.cp, col, line);
                }
            surface_free(s);
        }
        tl_close(&c);
    }
}
END_TEST

/* The markers fixture's UTF-8 marker, zoomed onto it: in ASCII its text has '?' for
 * every non-ASCII character, in UTF-8 mode the accented letters survive. */
START_TEST(test_lanes_marker_text_utf8)
{
    tl_case c;
    tl_open_fixture(&c, "markers.eventlog");
    size_t k = SIZE_MAX;
    for (size_t i = 0; i < evindex_n_markers(c.ix) && k == SIZE_MAX; i++) {
        const uint8_t *p;
        size_t n;
        const evindex_msg msg_v = evindex_marker_at(c.ix, i);
        ck_assert(evindex_msg_text(c.ix, &msg_v, &p, &n));
        if (n > 14 && memcmp(p, "phase:unicode ", 14) == 0)
            k = i;
    }
    ck_assert_uint_ne(k, SIZE_MAX);
    uint64_t t = evindex_marker_at(c.ix, k).time_ns;
    timeview v;
    timeview_init(&v, evindex_first_ns(c.ix), evindex_last_ns(c.ix), 60);
    timeview_zoom_to(&v, t, t + 60);
    timeview_set_cursor(&v, t + 59);
    size_t mk = tl_lane_index(&c, "markers");
    int col = timeview_col_of(&v, t);
    surface *s = tl_draw(&c, &v, &tl_plain);
    tl_assert_cell(s, mk, col, 0x25BC, STYLE_MARKER);
    tl_assert_cell(s, mk, col + 1 + 14 + 1, 0x00E9, STYLE_MARKER_TEXT);     /* é */
    surface_free(s);
    lanes_draw_opts o = tl_plain;
    o.ascii = true;
    s = tl_draw(&c, &v, &o);
    tl_assert_cell(s, mk, col + 1 + 14, 'r', STYLE_MARKER_TEXT);
    tl_assert_cell(s, mk, col + 1 + 14 + 1, '?', STYLE_MARKER_TEXT);
    surface_free(s);
    tl_close(&c);
}
END_TEST

/* Brute force: every HEC cell equals what a naive sum over all runs and GC phases of its
 * column says (GC first, then the run share), and every activity cell likewise. */
START_TEST(test_lanes_property_brute_force)
{
    static const char *const files[] = { "threaded-n4.eventlog", "nonmoving.eventlog",
                                         "demo.eventlog", "markers.eventlog" };
    uint64_t rng = 0x2545f4914f6cdd1du;
    size_t cells = 0, text_cells = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        tl_case c;
        tl_open_fixture(&c, files[f]);
        for (int k = 0; k < 10; k++) {
            timeview v;
            tl_random_view(c.ix, &rng, &v);
            surface *s = tl_draw(&c, &v, &tl_plain);
            int cursor = timeview_col_of(&v, v.cursor_ns);
            size_t act = tl_lane_index(&c, "activity");
            uint64_t *act_busy = xcalloc((size_t)v.width, sizeof *act_busy);
            size_t n_hec = 0;
            for (size_t li = 0; li < c.n_lanes; li++) {
                if (c.lanes[li].kind != LANE_HEC)
                    continue;
                n_hec++;
                const evindex_cap *cap = evindex_cap_at(c.ix, c.lanes[li].cap_lane);
                size_t nr = runlane_count(cap->runs), ng = ivtrack_count(cap->gc);
                for (int col = 0; col < v.width; col++) {
                    uint64_t a, b, busy = 0, work = 0, wait = 0;
                    ck_assert(timeview_col_range(&v, col, &a, &b));
                    for (size_t i = 0; i < nr; i++) {
                        runlane_run r;
                        runlane_get(cap->runs, i, &r);
                        busy += tl_overlap(r.start_ns, r.end_ns, a, b);
                    }
                    for (size_t j = 0; j < ng; j++) {
                        ivtrack_iv iv_buf;
                        const ivtrack_iv *iv = ivtrack_get(cap->gc, j, &iv_buf);
                        uint64_t o = tl_overlap(iv->start_ns, iv->end_ns, a, b);
                        if (iv->kind == EVINDEX_GC_WORK)
                            work += o;
                        else
                            wait += o;
                    }
                    act_busy[col] += busy;
                    surface_cell got = tl_cell(s, li, col);
                    if (col == cursor) {
                        ck_assert_uint_eq(got.style, STYLE_CURSOR);
                        continue;
                    }
                    cells++;
                    if (work + wait > 0) {
                        /* Folded: as tall as the HEC was busy, runs and GC. */
                        tl_assert_cell(s, li, col,
                                       BLOCK(lanes_eighths(busy + work + wait, b - a)),
                                       work >= wait ? STYLE_GC_WORK : STYLE_GC_WAIT);
                    } else if (got.style == STYLE_RUN_TEXT) {
                        ck_assert_uint_eq(busy, b - a);     /* names only on whole runs */
                        text_cells++;
                    } else if (busy == 0) {
                        tl_assert_cell(s, li, col, ' ', STYLE_IDLE);
                    } else {
                        tl_assert_cell(s, li, col, BLOCK(lanes_eighths(busy, b - a)),
                                       STYLE_RUNNING);
                    }
                }
            }
            for (int col = 0; col < v.width; col++) {
                if (col == cursor)
                    continue;
                uint64_t a, b;
                timeview_col_range(&v, col, &a, &b);
                unsigned lv = 0;
                if (act_busy[col]) {
                    double frac = (double)act_busy[col] / ((double)(b - a) * (double)n_hec);
                    lv = (unsigned)(frac * 8.0 + 0.5);
                    lv = lv < 1 ? 1 : lv > 8 ? 8 : lv;
                }
                if (lv)
                    tl_assert_cell(s, act, col, BLOCK(lv), STYLE_ACTIVITY);
                else
                    tl_assert_cell(s, act, col, ' ', STYLE_IDLE);
            }
            x_free(act_busy);
            surface_free(s);
        }
        tl_close(&c);
    }
    ck_assert_uint_gt(cells, 5000);
    ck_assert_uint_gt(text_cells, 0);
}
END_TEST

/* ---- bounds at the quantisation edges ---------------------------------------------------- */

enum { TL_Q_COLS = 24, TL_Q_W = 1600, TL_Q_RUNS = 90, TL_Q_GCS = 60 };

/* The run time, and GC time (cap 0 only, at the column's end: 100 ns of which 30, 50
 * or 60 waiting), of cap `cap` in column `col` of the quantisation log: the time used
 * on and next to the eighths' rounding edges (an odd multiple of TL_Q_W / 16), for a
 * HEC cell and for the activity cell (cap 1 makes the two caps' run time an odd
 * multiple of TL_Q_W / 8, or next to one; `shift` ns more: with TL_Q_W / 16, half way
 * between two such, where the activity cell's level is far from both). */
static void
tl_q_times(int cap, int col, uint64_t shift, uint64_t *busy, uint64_t *gc)
{
    static const uint64_t used[] = { 0,   1,    99,   100,  101,  299,  300,  301,
                                     500, 700,  701,  899,  900,  1100, 1101, 1299,
                                     1300, 1301, 1499, 1500, 1501, 1599, 1600 };
    size_t n = sizeof used / sizeof used[0];
    uint64_t u0 = used[(size_t)col % n];
    uint64_t g0 = u0 >= 200 ? 100 : 0;
    if (cap == 0) {
        *busy = u0 - g0;
        *gc = g0;
        return;
    }
    int64_t sum = (2 * (col % 8) + 1) * 200 + (col % 3 - 1) + (int64_t)shift;
    int64_t b1 = sum - (int64_t)(u0 - g0);
    *busy = b1 < 0 ? 0 : b1 > TL_Q_W ? TL_Q_W : (uint64_t)b1;
    *gc = 0;
}

/* Two caps whose columns of TL_Q_W ns hold tl_q_times's run and GC time (with `shift`):
 * in TL_Q_RUNS
 * short runs spread over each column and TL_Q_GCS short GCs at its end (many_runs: a
 * chunk of runs and of GC phases or more a column, the bounds' zoom), or in one run
 * and one GC a column. */
static void
tl_q_log(tl_case *c, bool many_runs, uint64_t shift)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    for (int cap = 0; cap < 2; cap++) {
        uint32_t tid = (uint32_t)cap + 1;
        for (int col = 0; col < TL_Q_COLS; col++) {
            uint64_t x = (uint64_t)col * TL_Q_W, busy, gc;
            tl_q_times(cap, col, shift, &busy, &gc);
            uint64_t idle = TL_Q_W - busy - gc, t = x;
            int runs = many_runs ? TL_Q_RUNS : 1;
            for (int i = 0; i < runs && busy > 0; i++) {
                uint64_t d = busy / (uint64_t)runs + ((uint64_t)i < busy % (uint64_t)runs);
                uint64_t g = idle / (uint64_t)runs + ((uint64_t)i < idle % (uint64_t)runs);
                t += g;
                EW(evwrite_run_thread(w, (uint16_t)cap, t, tid));
                EW(evwrite_stop_thread(w, (uint16_t)cap, t + d, tid, 1, 0));
                t += d;
            }
            /* Waiting, then working: the same totals in one GC or many. */
            uint64_t wait = col % 3 == 0 ? 30 : col % 3 == 1 ? 50 : 60, work = gc - wait;
            int gcs = many_runs ? TL_Q_GCS : 1;
            t = x + TL_Q_W - gc;
            for (int i = 0; i < gcs && gc > 0; i++) {
                uint64_t a = wait / (uint64_t)gcs + ((uint64_t)i < wait % (uint64_t)gcs);
                uint64_t k = work / (uint64_t)gcs + ((uint64_t)i < work % (uint64_t)gcs);
                tl_gc(w, (uint16_t)cap, t, t + a, t + a + k, t + a + k, 0);
                t += a + k;
            }
        }
    }
    tl_open_mem(c, &m, w);
}

/* A memo holding bins of c's HEC lanes (busybins) that bound their run time at the
 * boundaries of n_cols columns of w ns from 0, as lanes_draw asks of them (a quarter of
 * a column wide), none of them exactly. */
static lanes_memo *
tl_bins_memo(const tl_case *c, int n_cols, uint64_t w)
{
    size_t n = evindex_n_caps(c->ix);
    busybins_src *lanes = xmalloc((n + 1) * sizeof *lanes);
    for (size_t i = 0; i < n; i++)
        lanes[i] = (busybins_src){ evindex_cap_at(c->ix, i)->runs, evindex_cap_at(c->ix, i)->gc };
    static const unsigned gc_kind[2] = { EVINDEX_GC_WORK, EVINDEX_GC_WAIT };
    busybins *b = busybins_make(lanes, n, gc_kind, evindex_first_ns(c->ix),
                                evindex_last_ns(c->ix), (size_t)1 << 20, NULL);
    x_free(lanes);
    ck_assert_ptr_nonnull(b);
    uint64_t t[64], lo[64], hi[64];
    ck_assert_int_lt(n_cols, 64);
    for (int k = 0; k <= n_cols; k++)
        t[k] = (uint64_t)k * w;
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(busybins_bounds(b, i, t, (size_t)n_cols + 1, w / 4, lo, hi),
                      "lane %zu: first %llu last %llu width %llu", i,
                      (unsigned long long)evindex_first_ns(c->ix),
                      (unsigned long long)evindex_last_ns(c->ix),
                      (unsigned long long)busybins_width_ns(b, i));
        size_t open = 0;
        for (int k = 1; k < n_cols; k++)
            open += lo[k] != hi[k];
        ck_assert_uint_gt(open, (size_t)n_cols / 2);
    }
    lanes_memo *m = lanes_memo_new();
    lanes_memo_set_bins(m, c->ix, b);
    ck_assert(lanes_memo_has_bins(m, c->ix));
    return m;
}

/* Where a column's run and GC time are known only within bounds (the chunk-header ones
 * a zoom of many runs and GC phases a column gets), the cells still show the exact
 * glyphs at the eighths' rounding edges and one ns either side, and with work and
 * waiting equal: the same screens as the exact sums over one run and one GC a column
 * give, in colour, ASCII, monochrome and split rows, and the brute-force glyph of every
 * HEC and activity cell. Again with the activity cells' levels far from their edges
 * (_i = 1): then the checkpoints' bounds the activity row takes fix its cells while the
 * HEC cells at the edges still need their boundaries read exactly. */
START_TEST(test_lanes_bounds_exact)
{
    tl_case many, one;
    uint64_t shift = _i ? TL_Q_W / 16 : 0;
    tl_q_log(&many, true, shift);
    tl_q_log(&one, false, shift);
    timeview v;
    timeview_init(&v, 0, (uint64_t)TL_Q_COLS * TL_Q_W - 1, TL_Q_COLS);
    timeview_set_cursor(&v, (uint64_t)TL_Q_COLS * TL_Q_W - 1);
    size_t act = tl_lane_index(&many, "activity"), n_open = 0;
    ck_assert_uint_eq(tl_lane_index(&one, "activity"), act);
    ck_assert_uint_ge(ivtrack_count_in(evindex_cap_at(many.ix, 0)->gc, 0,
                                       (uint64_t)TL_Q_COLS * TL_Q_W),
                      (size_t)IVTRACK_CHUNK * (TL_Q_COLS + 1));
    for (int cap = 0; cap < 2; cap++) {
        const runlane *rl = evindex_cap_at(many.ix, (size_t)cap)->runs;
        /* The bounds' zoom, and boundaries the bounds leave open. */
        ck_assert_uint_ge(runlane_count_in(rl, 0, (uint64_t)TL_Q_COLS * TL_Q_W),
                          (size_t)RUNLANE_CHUNK * (TL_Q_COLS + 1));
        uint64_t t[TL_Q_COLS + 1], lo[TL_Q_COLS + 1], hi[TL_Q_COLS + 1];
        for (int k = 0; k <= TL_Q_COLS; k++)
            t[k] = (uint64_t)k * TL_Q_W;
        runlane_busy_bounds_many(rl, t, TL_Q_COLS + 1, lo, hi, NULL);
        for (int k = 0; k <= TL_Q_COLS; k++)
            n_open += lo[k] != hi[k];
    }
    ck_assert_uint_gt(n_open, TL_Q_COLS);
    /* The second time round with the lanes' bins in a memo, as the viewer has them once
     * it has opened: they bound the run time at every boundary, exact at none here. */
    lanes_memo *memo = tl_bins_memo(&many, TL_Q_COLS, TL_Q_W);
    for (int mode = 0; mode < 8; mode++) {
        lanes_draw_opts o = tl_plain;
        o.ascii = mode % 4 == 1;
        o.mono = mode % 4 == 2;
        o.hec_split = mode % 4 == 3;
        o.memo = mode >= 4 ? memo : NULL;
        surface *sm = tl_draw_rows(&many, &v, &o), *so = tl_draw_rows(&one, &v, &o);
        for (int line = 0; line < surface_lines(sm); line++)
            for (int col = 0; col < TL_Q_COLS; col++) {
                surface_cell a = tl_cell(sm, (size_t)line, col), b = tl_cell(so, (size_t)line, col);
                ck_assert_msg(a.cp == b.cp && a.style == b.style,
                              "mode %d row %d col %d: U+%04X %s, one run a column U+%04X %s",
                              mode, line, col, (unsigned)a.cp, theme_style_name(a.style),
                              (unsigned)b.cp, theme_style_name(b.style));
            }
        if (mode % 4 == 0) {
            for (int col = 0; col + 1 < TL_Q_COLS; col++) {
                uint64_t sum = 0;
                for (int cap = 0; cap < 2; cap++) {
                    uint64_t busy, gc;
                    tl_q_times(cap, col, shift, &busy, &gc);
                    sum += busy;
                    size_t li = tl_lane_index(&many, cap ? "HEC 1" : "HEC 0");
                    const ivtrack *tr = evindex_cap_at(many.ix, (size_t)cap)->gc;
                    uint64_t work = 0, wait = 0;
                    for (size_t j = 0; j < ivtrack_count(tr); j++) {
                        ivtrack_iv buf;
                        const ivtrack_iv *iv = ivtrack_get(tr, j, &buf);
                        uint64_t ov = tl_overlap(iv->start_ns, iv->end_ns,
                                                 (uint64_t)col * TL_Q_W,
                                                 (uint64_t)(col + 1) * TL_Q_W);
                        *(iv->kind == EVINDEX_GC_WORK ? &work : &wait) += ov;
                    }
                    ck_assert_uint_eq(work + wait, gc);
                    if (gc)
                        tl_assert_cell(sm, li, col, BLOCK(lanes_eighths(busy + gc, TL_Q_W)),
                                       work >= wait ? STYLE_GC_WORK : STYLE_GC_WAIT);
                    else if (busy)
                        tl_assert_cell(sm, li, col, BLOCK(lanes_eighths(busy, TL_Q_W)),
                                       STYLE_RUNNING);
                    else
                        tl_assert_cell(sm, li, col, ' ', STYLE_IDLE);
                }
                unsigned lv = (unsigned)((double)sum / (2.0 * TL_Q_W) * 8.0 + 0.5);
                lv = lv < 1 ? 1 : lv > 8 ? 8 : lv;
                if (sum)
                    tl_assert_cell(sm, act, col, BLOCK(lv), STYLE_ACTIVITY);
                else
                    tl_assert_cell(sm, act, col, ' ', STYLE_IDLE);
            }
        }
        surface_free(sm);
        surface_free(so);
    }
    lanes_memo_free(memo);
    tl_close(&many);
    tl_close(&one);
}
END_TEST

/* ---- items ------------------------------------------------------------------------------ */

/* On the activity and sparks lanes '.' and ',' visit every collection in order, both
 * ways; the collection containing a time is found with no slack. (The heap lane steps
 * its own samples: tests/test_timeprof.c.) */
START_TEST(test_lanes_walk_gcs)
{
    static const char *const files[] = { "threaded-n4.eventlog", "nonmoving.eventlog",
                                         "killed.eventlog", "markers.eventlog" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        tl_case c;
        tl_open_fixture(&c, files[f]);
        const evindex *ix = c.ix;
        size_t n = evindex_n_gcs(ix);
        ck_assert_uint_gt(n, 0);
        ck_assert_uint_gt(evindex_gc_get(ix, 0, &(evindex_gc){ 0 })->start_ns, 0);
        for (size_t li = 0; li < c.n_lanes; li++) {
            const lane *l = &c.lanes[li];
            if (l->kind != LANE_ACTIVITY && l->kind != LANE_SPARKS)
                continue;
            lane_item it;
            uint64_t t = 0;
            for (size_t i = 0; i < n; i++) {
                ck_assert_msg(lanes_next_item(ix, l, t, 1, &it), "%s: gc %zu", files[f], i);
                evindex_gc g_buf;
                const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
                ck_assert_int_eq(it.kind, LANE_ITEM_GC);
                ck_assert_uint_eq(it.index, i);
                ck_assert_uint_eq(it.start_ns, g->start_ns);
                ck_assert_uint_eq(it.end_ns, g->end_ns);
                t = it.start_ns;
            }
            ck_assert(!lanes_next_item(ix, l, t, 1, &it));
            ck_assert_int_eq(it.kind, LANE_ITEM_NONE);
            t = evindex_last_ns(ix) + 1;
            for (size_t i = n; i-- > 0;) {
                ck_assert(lanes_next_item(ix, l, t, -1, &it));
                ck_assert_uint_eq(it.index, i);
                t = it.start_ns;
            }
            ck_assert(!lanes_next_item(ix, l, t, -1, &it));
        }
        const lane *act = tl_lane(&c, "activity");
        for (size_t i = 0; i < n; i++) {
            evindex_gc g_buf;
            const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
            if (g->end_ns <= g->start_ns)
                continue;
            lane_item it;
            ck_assert(lanes_item_at(ix, act, g->start_ns + (g->end_ns - g->start_ns) / 2, 0,
                                    &it));
            ck_assert_uint_eq(it.index, i);
        }
        tl_close(&c);
    }
}
END_TEST

/* A capability's GC parts, in order. */
static size_t
tl_cap_gcs(const evindex *ix, uint16_t cap, size_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
            if (p->cap == cap && p->end_ns > p->start_ns)
                out[n++] = i;
        }
    }
    return n;
}

/* On each HEC lane of threaded-n4, '.' visits runs and GCs in start order: every run and
 * every GC part of that capability exactly once; ',' retraces the walk. A click on the
 * column of any GC finds a GC there, however small. */
START_TEST(test_lanes_walk_hec)
{
    tl_case c;
    tl_open_fixture(&c, "threaded-n4.eventlog");
    const evindex *ix = c.ix;
    size_t *want = xmalloc((evindex_n_gcs(ix) + 1) * sizeof *want);
    timeview v;
    timeview_init(&v, evindex_first_ns(ix), evindex_last_ns(ix), 80);
    for (size_t li = 0; li < c.n_lanes; li++) {
        const lane *l = &c.lanes[li];
        if (l->kind != LANE_HEC)
            continue;
        const evindex_cap *cap = evindex_cap_at(ix, l->cap_lane);
        size_t n_want = tl_cap_gcs(ix, cap->cap, want);
        size_t n_runs = runlane_count(cap->runs);
        size_t steps = 0, n_gc = 0, n_run = 0, cap_items = n_want + n_runs + 1;
        uint64_t *starts = xmalloc(cap_items * sizeof *starts);
        lane_item it;
        uint64_t t = 0;
        bool first = lanes_item_at(ix, l, 0, 0, &it) && it.start_ns == 0;
        if (first) {
            starts[steps++] = 0;
            n_run += it.kind == LANE_ITEM_RUN;
        }
        while (lanes_next_item(ix, l, t, 1, &it)) {
            ck_assert_uint_gt(it.start_ns, t);
            ck_assert_uint_lt(steps, cap_items);
            starts[steps++] = it.start_ns;
            if (it.kind == LANE_ITEM_GC) {
                ck_assert_uint_lt(n_gc, n_want);
                ck_assert_uint_eq(it.index, want[n_gc]);
                n_gc++;
            } else {
                ck_assert_int_eq(it.kind, LANE_ITEM_RUN);
                runlane_run r;
                runlane_get(cap->runs, it.index, &r);
                ck_assert_uint_eq(r.start_ns, it.start_ns);
                ck_assert_uint_eq(r.tid, it.tid);
                n_run++;
            }
            t = it.start_ns;
        }
        ck_assert_uint_eq(n_gc, n_want);
        ck_assert_uint_eq(n_run, n_runs);
        /* Backwards gives the same starts in reverse. */
        t = evindex_last_ns(ix) + 1;
        for (size_t k = steps; k-- > 0;) {
            ck_assert(lanes_next_item(ix, l, t, -1, &it));
            ck_assert_uint_eq(it.start_ns, starts[k]);
            t = it.start_ns;
        }
        x_free(starts);
        /* Whole-log zoom: a GC's column, clicked at its start with one column of slack. */
        for (size_t k = 0; k < n_want; k++) {
            evindex_gc g_buf;
            const evindex_gc *g = evindex_gc_get(ix, want[k], &g_buf);
            int col = timeview_col_of(&v, g->start_ns);
            uint64_t a, b;
            if (!timeview_col_range(&v, col, &a, &b))
                continue;
            ck_assert(lanes_item_at(ix, l, a, b - a, &it));
            ck_assert_int_eq(it.kind, LANE_ITEM_GC);
            ck_assert(it.end_ns > a && it.start_ns < b);
        }
    }
    x_free(want);
    tl_close(&c);
}
END_TEST

/* Items under a time on a HEC lane: a GC in the column beats the run at its start; a run
 * containing t; the nearest within slack; nothing. */
START_TEST(test_lanes_item_at_hec)
{
    tl_mem m;
    evwrite *w = tl_writer(&m);
    EW(evwrite_begin_data(w));
    EW(evwrite_run_thread(w, 0, 100, 5));
    EW(evwrite_stop_thread(w, 0, 500, 5, 1, 0));
    tl_gc(w, 0, 500, 510, 520, 520, 0);
    EW(evwrite_run_thread(w, 0, 1000, 6));
    EW(evwrite_stop_thread(w, 0, 2000, 6, 5, 0));
    tl_case c;
    tl_open_mem(&c, &m, w);
    const lane *l = tl_lane(&c, "HEC 0");
    lane_item it;
    ck_assert(lanes_item_at(c.ix, l, 300, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_RUN);
    ck_assert_uint_eq(it.tid, 5);
    ck_assert_uint_eq(it.index, 0);
    ck_assert(lanes_item_at(c.ix, l, 450, 100, &it));      /* the GC at 500 is in [450, 550) */
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert_uint_eq(it.index, 0);
    ck_assert_uint_eq(it.start_ns, 500);
    ck_assert_uint_eq(it.end_ns, 520);
    ck_assert(lanes_item_at(c.ix, l, 515, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert(lanes_item_at(c.ix, l, 900, 150, &it));      /* nearest: the run at 1000 */
    ck_assert_int_eq(it.kind, LANE_ITEM_RUN);
    ck_assert_uint_eq(it.tid, 6);
    ck_assert(lanes_item_at(c.ix, l, 560, 50, &it));       /* nearest: the GC ending 520 */
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert(!lanes_item_at(c.ix, l, 700, 100, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_NONE);
    ck_assert_uint_eq(it.start_ns, 700);
    ck_assert_uint_eq(it.end_ns, 800);
    /* Merged order: run 5, GC, run 6. */
    ck_assert(lanes_next_item(c.ix, l, 100, 1, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert(lanes_next_item(c.ix, l, 500, 1, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_RUN);
    ck_assert_uint_eq(it.tid, 6);
    ck_assert(lanes_next_item(c.ix, l, 1000, -1, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_GC);
    ck_assert(lanes_next_item(c.ix, l, 500, -1, &it));
    ck_assert_uint_eq(it.tid, 5);
    ck_assert(!lanes_next_item(c.ix, l, 100, -1, &it));
    ck_assert(!lanes_next_item(c.ix, l, 1000, 1, &it));
    ck_assert(!lanes_next_item(c.ix, l, 1000, 0, &it));
    tl_close(&c);
}
END_TEST

/* The markers lane walks every message of killed.eventlog (13,070 markers and as many
 * messages) and tells markers from messages; nearest lookups prefer markers. */
START_TEST(test_lanes_walk_markers)
{
    tl_case c;
    tl_open_fixture(&c, "killed.eventlog");
    const evindex *ix = c.ix;
    const lane *l = tl_lane(&c, "markers");
    size_t n = evindex_n_msgs(ix), seen = 0, markers = 0;
    lane_item it;
    uint64_t t = 0;
    ck_assert_uint_gt(evindex_msg_at(ix, 0).time_ns, 0);
    size_t i = 0;
    while (lanes_next_item(ix, l, t, 1, &it)) {
        /* Skip messages sharing a timestamp: "after t" steps over them. */
        while (i < n && evindex_msg_at(ix, i).time_ns <= t)
            i++;
        ck_assert_uint_lt(i, n);
        const evindex_msg m_v = evindex_msg_at(ix, i), *m = &m_v;
        ck_assert_uint_eq(it.start_ns, m->time_ns);
        if (m->kind == EVINDEX_MSG_MARKER) {
            ck_assert_int_eq(it.kind, LANE_ITEM_MARKER);
            ck_assert_uint_eq(evindex_marker_at(ix, it.index).offset, m->offset);
            markers++;
        } else {
            ck_assert_int_eq(it.kind, LANE_ITEM_MSG);
            ck_assert_uint_eq(it.index, i);
        }
        seen++;
        t = it.start_ns;
    }
    ck_assert_uint_gt(seen, n * 9 / 10);
    ck_assert_uint_gt(markers, evindex_n_markers(ix) * 9 / 10);
    /* Lookups: a marker exactly; a time between a marker and a message. */
    const evindex_msg mk_v = evindex_marker_at(ix, 10), *mk = &mk_v;
    ck_assert(lanes_item_at(ix, l, mk->time_ns, 0, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_MARKER);
    ck_assert_uint_eq(it.index, 10);
    ck_assert(lanes_item_at(ix, l, mk->time_ns + 1, 1000000000, &it));
    ck_assert_int_eq(it.kind, LANE_ITEM_MARKER);
    tl_close(&c);
}
END_TEST

/* lanes_msg_first_from against a scan of the messages: at, just before and just after
 * every message's time (markers and plain messages, some at one time), and past both
 * ends. */
START_TEST(test_lanes_msg_first_from)
{
    static const char *const logs[] = { "markers.eventlog", "userevents.eventlog" };
    for (size_t f = 0; f < sizeof logs / sizeof logs[0]; f++) {
        tl_case c;
        tl_open_fixture(&c, logs[f]);
        size_t n = evindex_n_msgs(c.ix), bad = 0;
        ck_assert_uint_gt(n, 10);
        uint64_t *when = xmalloc(n * sizeof *when);
        for (size_t i = 0; i < n; i++)
            when[i] = evindex_msg_at(c.ix, i).time_ns;
        for (size_t i = 0; i <= n + 1; i++) {
            uint64_t base = i < n ? when[i] : i == n ? 0 : UINT64_MAX - 1;
            for (uint64_t d = 0; d < 3; d++) {
                uint64_t t = base + d - (base > 0);
                size_t want = 0;
                while (want < n && when[want] < t)
                    want++;
                bad += lanes_msg_first_from(c.ix, t) != want;
            }
        }
        ck_assert_msg(bad == 0, "%s: %zu wrong", logs[f], bad);
        x_free(when);
        tl_close(&c);
    }
}
END_TEST

Suite *
test_lanes_suite(void)
{
    Suite *s = suite_create("lanes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_lanes_build_fixtures);
    tcase_add_test(tc, test_lanes_build_global);
    tcase_add_test(tc, test_lanes_eighths);
    tcase_add_test(tc, test_lanes_eighths_same);
    tcase_add_test(tc, test_lanes_heapbands_recount);
    tcase_add_test(tc, test_lanes_tiny_gc_wins);
    tcase_add_test(tc, test_lanes_fractions);
    tcase_add_test(tc, test_lanes_cursor_selection);
    tcase_add_test(tc, test_lanes_kept_rows);
    tcase_add_test(tc, test_lanes_run_text);
    tcase_add_test(tc, test_lanes_markers);
    tcase_add_test(tc, test_lanes_nonmoving);
    tcase_add_test(tc, test_lanes_activity_heap_sparks);
    tcase_add_test(tc, test_lanes_series_bounds);
    tcase_add_test(tc, test_lanes_ascii_only);
    tcase_add_test(tc, test_lanes_marker_text_utf8);
    tcase_add_test(tc, test_lanes_property_brute_force);
    tcase_add_loop_test(tc, test_lanes_bounds_exact, 0, 2);
    tcase_add_test(tc, test_lanes_walk_gcs);
    tcase_add_test(tc, test_lanes_walk_hec);
    tcase_add_test(tc, test_lanes_item_at_hec);
    tcase_add_test(tc, test_lanes_walk_markers);
    tcase_add_test(tc, test_lanes_msg_first_from);
    suite_add_tcase(s, tc);
    return s;
}
