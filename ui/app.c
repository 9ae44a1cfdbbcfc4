/* app: viewer state and actions. Input (a key name or a mouse event) becomes an
 * action through the keymap tables; the action's handler changes the state; the
 * frame is then drawn from the state alone. No terminal is touched here except in
 * app_loop.c. */
#include "app.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "app_int.h"
#include "busybins.h"
#include "copycmd.h"
#include "detail.h"
#include "eventpane.h"
#include "heapbands.h"
#include "helpview.h"
#include "keymap.h"
#include "lanegroups.h"
#include "lanes.h"
#include "radixsort.h"
#include "strbuf.h"
#include "textfmt.h"
#include "theme.h"
#include "threadstats.h"
#include "timefmt.h"
#include "uilist.h"
#include "xalloc.h"

/* ---- small helpers --------------------------------------------------------------- */

static void
app_msg(app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
app_msg(app *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->msg, sizeof a->msg, fmt, ap);
    va_end(ap);
    a->msg_sticky = true;
}

uint64_t
app_col_res(const app *a)
{
    double npc = timeview_ns_per_col(&a->v);
    return timefmt_res(npc >= 1.0 ? (uint64_t)npc : 1);
}

/* An item's time on the log's clock, as the status line shows it: to a column's width
 * or to `item_res` (detail_item_res and kin), whichever is finer. */
static void
app_fmt_time(const app *a, strbuf *sb, uint64_t t, uint64_t item_res)
{
    uint64_t res = app_col_res(a);
    timefmt_append_res(sb, t, item_res < res ? item_res : res);
}

static const lane *
app_lane(const app *a)
{
    return a->n_lanes ? &a->lanes[a->lane_sel] : NULL;
}

/* Select the HEC lane of capability `cap`, if there is one. */
static void
app_select_cap(app *a, uint16_t cap)
{
    size_t li = evindex_lane_of(a->ix, cap);
    for (size_t i = 0; li != SIZE_MAX && i < a->n_lanes; i++)
        if (a->lanes[i].kind == LANE_HEC && a->lanes[i].cap_lane == li) {
            a->lane_sel = i;
            return;
        }
}

static void
app_jump(app *a, uint64_t t)
{
    timeview_center_on(&a->v, t);
}

/* ---- layout ------------------------------------------------------------------------ */

/* Screen rows the lanes [from, to) take. */
static int
app_lane_rows(const app *a, size_t from, size_t to)
{
    lanes_draw_opts o = { .hec_split = a->hec_split };
    int rows = 0;
    for (size_t i = from; i < to && i < a->n_lanes; i++)
        rows += lanes_rows(&a->lanes[i], &o);
    return rows;
}

/* Rows of each part of the screen for the current size and panes. HEC lanes get two
 * rows (runs, GC) when that still leaves the detail pane room. */
void
app_relayout(app *a)
{
    int h = a->lines;
    a->lay.header = 0;
    a->lay.axis = 1;
    int top = h >= 6 ? 3 : h >= 3 ? 1 : 0;     /* header + 2 axis rows, or one */
    int avail = h - top - 1;                      /* minus the status line */
    if (avail < 0)
        avail = 0;
    int two_rows = app_two_rows(a, avail);        /* the second log's, two-log view */
    avail -= two_rows;
    int pane = 0;
    if (a->events_on)
        pane = avail >= 12 ? avail * 2 / 5 : avail >= 6 ? avail / 2 : 0;
    else
        pane = avail >= 18 ? 9 : avail >= 12 ? 6 : avail >= 8 ? 3 : 0;
    a->hec_split = false;
    int one = app_lane_rows(a, 0, a->n_lanes);
    a->hec_split = true;
    int two = app_lane_rows(a, 0, a->n_lanes);
    a->hec_split = two > one && avail - pane >= two;
    int need = a->hec_split ? two : one;
    int lanes_rows = avail - pane;
    if (lanes_rows > need) {
        pane += lanes_rows - need;
        lanes_rows = need;
    }
    /* Lanes that do not fit scroll with the selected one, and one row says how many are
     * hidden above and below (app_draw.c); none is dropped without a word. */
    bool more = lanes_rows < need && lanes_rows >= 2;
    if (more)
        lanes_rows--;
    a->lay.top = top;
    a->lay.lanes_line = top;
    a->lay.lanes_rows = lanes_rows;
    a->lay.more_line = more ? top + lanes_rows : -1;
    a->lay.two_line = top + lanes_rows + more;
    a->lay.two_rows = two_rows;
    a->lay.pane_line = top + lanes_rows + more + two_rows;
    a->lay.pane_rows = pane;
    a->lay.status_line = h - 1;
    /* Keep the selected lane on screen, and no row empty while lanes above are hidden. */
    if (lanes_rows > 0) {
        if (a->lane_sel < a->first_lane)
            a->first_lane = a->lane_sel;
        while (a->first_lane < a->lane_sel &&
               app_lane_rows(a, a->first_lane, a->lane_sel + 1) > lanes_rows)
            a->first_lane++;
        while (a->first_lane > 0 &&
               app_lane_rows(a, a->first_lane - 1, a->n_lanes) <= lanes_rows)
            a->first_lane--;
    }
    int plot = a->cols - LANES_LABEL_COLS;
    timeview_set_width(&a->v, plot > 0 ? plot : 1);
}

/* ---- lists ---------------------------------------------------------------------------- */

static void
app_close_list(app *a)
{
    uilist_free(a->list);
    a->list = NULL;
    a->mode = a->list_kind == APP_LIST_EVTYPES && a->events_on ? MODE_EVENTS : MODE_TIMELINE;
}

void
app_open_list(app *a, uilist *l, enum app_list_kind kind)
{
    uilist_free(a->list);
    uilist_set_ascii(l, a->opts.ascii);
    a->list = l;
    a->list_kind = kind;
    a->mode = MODE_LIST;
}

/* Row `row` of the marker list: time, capability, name. */
static void
app_marker_row_text(void *ctx, size_t row, strbuf *out)
{
    app *a = ctx;
    const evindex_msg m_v = evindex_marker_at(a->ix, row), *m = &m_v;
    size_t start = out->len;
    timefmt_append_res(out, m->time_ns, detail_marker_res(a->ix, row));
    while (out->len < start + 13)
        strbuf_putc(out, ' ');
    if (m->cap == EVINDEX_NO_CAP)
        strbuf_puts(out, " -   ");
    else
        strbuf_printf(out, " %-4u", (unsigned)m->cap);
    strbuf_putc(out, ' ');
    const uint8_t *p;
    size_t n;
    if (evindex_msg_text(a->ix, m, &p, &n))
        textfmt_append_utf8(out, p, n);
}

/* The marker list: rows made only when drawn or filtered (a log may have millions). */
static void
app_marker_list(app *a)
{
    uilist_rows rows = {
        .n_rows = evindex_n_markers(a->ix), .ctx = a, .text = app_marker_row_text,
    };
    uilist *l = uilist_new_rows("markers", &rows);
    uilist_set_columns_header(l, "time          cap  name");
    size_t sel = evindex_marker_first_from(a->ix, a->v.cursor_ns);
    if (sel < evindex_n_markers(a->ix))
        uilist_move(l, (long)sel);
    app_open_list(a, l, APP_LIST_MARKERS);
}

/* Row `row` of the GC list: pause, start, generation, time to stop, slowest cap, bytes
 * copied. */
static void
app_gc_row_text(void *ctx, size_t row, strbuf *sb)
{
    app *a = ctx;
    size_t i = a->gc_order[row];
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(a->ix, i, &g_buf);
    strbuf t;
    strbuf_init(&t);
    timefmt_append(&t, g->end_ns - g->start_ns);
    strbuf_printf(sb, "%-10.*s ", (int)t.len, t.data);
    strbuf_reset(&t);
    timefmt_append_res(&t, g->start_ns, detail_gc_res(a->ix, i));
    strbuf_printf(sb, "%-12.*s ", (int)t.len, t.data);
    if (g->gen == EVINDEX_GEN_UNKNOWN)
        strbuf_puts(sb, "?    ");
    else
        strbuf_printf(sb, "%-4u ", g->gen);
    strbuf_reset(&t);
    if (g->stopping_ns == EVINDEX_NO_TIME)
        strbuf_putc(&t, '-');
    else
        timefmt_append(&t, g->stopping_ns);
    strbuf_printf(sb, "%-10.*s ", (int)t.len, t.data);
    if (g->slowest_cap == EVINDEX_NO_CAP)
        strbuf_puts(sb, "-        ");
    else
        strbuf_printf(sb, "HEC %-4u ", g->slowest_cap);
    /* Bytes as the detail pane gives them, right-aligned. */
    strbuf_reset(&t);
    if (g->flags & EVINDEX_GC_F_NO_STATS)
        strbuf_putc(&t, '-');
    else
        detail_bytes(&t, g->copied);
    strbuf_printf(sb, "%10.*s", (int)t.len, t.data);
    strbuf_free(&t);
}

static uint64_t
app_gc_row_payload(void *ctx, size_t row)
{
    const app *a = ctx;
    return a->gc_order[row];
}

/* Every collection, longest pause first: ranked once, rows made only when drawn or
 * filtered. */
static void
app_gc_list(app *a)
{
    size_t n = evindex_n_gcs(a->ix);
    app_gc_rank(a);
    uilist_rows rows = {
        .n_rows = n, .ctx = a, .text = app_gc_row_text, .payload = app_gc_row_payload,
    };
    uilist *l = uilist_new_rows("collections by pause", &rows);
    uilist_set_columns_header(l, "pause      start        gen  to stop    slowest      copied");
    app_open_list(a, l, APP_LIST_GCS);
}

/* Every heap-profile band, largest peak first, named by source (IPE, eras). */
static void
app_band_list(app *a)
{
    const heapprof *hp = evindex_heap_profile(a->ix);
    if (heapprof_n_bands(hp) == 0) {
        app_msg(a, "no heap profile in this log (+RTS -hT, -hi, -hc ...)");
        return;
    }
    size_t n;
    uint32_t *order = heapbands_by_peak(hp, &n);
    uilist *l = uilist_new("heap-profile bands by peak");
    uilist_set_columns_header(l, "peak       at           mean       band");
    strbuf sb, t;
    strbuf_init(&sb);
    strbuf_init(&t);
    size_t n_census = heapprof_n_censuses(hp);
    for (size_t k = 0; k < n; k++) {
        const heapprof_band *b = heapprof_band_at(hp, order[k]);
        strbuf_reset(&sb);
        strbuf_reset(&t);
        detail_bytes(&t, b->peak_bytes);
        strbuf_printf(&sb, "%-10.*s ", (int)t.len, t.data);
        strbuf_reset(&t);
        timefmt_append_res(&t, b->peak_time_ns, 1000);
        strbuf_printf(&sb, "%-12.*s ", (int)t.len, t.data);
        strbuf_reset(&t);
        detail_bytes(&t, n_census ? b->sum_bytes / n_census : 0);
        strbuf_printf(&sb, "%-10.*s ", (int)t.len, t.data);
        strbuf_reset(&t);
        heapbands_name(hp, evindex_ipe(a->ix), order[k], &t);
        textfmt_append_utf8(&sb, (const uint8_t *)t.data, t.len);
        strbuf_putc(&sb, '\0');
        uilist_add(l, sb.data, order[k]);
    }
    strbuf_free(&sb);
    strbuf_free(&t);
    x_free(order);
    app_open_list(a, l, APP_LIST_BANDS);
}

/* ---- lane groups: L shows or hides them ----------------------------------------------- */

void
app_build_lanes(app *a)
{
    lane was = { 0 };
    bool had = a->lanes && a->lane_sel < a->n_lanes;
    if (had)
        was = a->lanes[a->lane_sel];
    x_free(a->lanes);
    a->lanes = lanes_build_all(a->ix, &a->n_lanes);
    a->n_lanes = lanegroup_filter(a->lanes, a->n_lanes, a->opts.hidden_lanes);
    a->markers_lane = SIZE_MAX;
    for (size_t i = 0; i < a->n_lanes; i++) {
        if (a->lanes[i].kind == LANE_MARKERS)
            a->markers_lane = i;
        if (had && a->lanes[i].kind == was.kind && a->lanes[i].cap_lane == was.cap_lane)
            a->lane_sel = i;
    }
    if (a->lane_sel >= a->n_lanes)
        a->lane_sel = a->n_lanes ? a->n_lanes - 1 : 0;
    if (a->first_lane >= a->n_lanes)
        a->first_lane = 0;
    if (a->two)
        app_two_relane(a);
}

/* The lane groups this log has, each shown or hidden; Enter switches one. */
static void
app_lane_menu(app *a)
{
    size_t n_all;
    lane *all = lanes_build_all(a->ix, &n_all);     /* freed below */
    lanegroup_mask present = 0;
    for (size_t i = 0; i < n_all; i++) {
        int g = lanegroup_of(all[i].kind);
        if (g >= 0)
            present |= LANEGROUP_BIT(g);
    }
    x_free(all);
    uilist *l = uilist_new("lanes: Enter shows or hides a group");
    uilist_set_columns_header(l, "shown  group");
    strbuf sb;
    strbuf_init(&sb);
    for (int g = 0; g < LANEGROUP_N; g++) {
        if (!(present & LANEGROUP_BIT(g)))
            continue;
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%-6s %s", a->opts.hidden_lanes & LANEGROUP_BIT(g) ? "no" : "yes",
                      lanegroup_title((lanegroup)g));
        uilist_add(l, sb.data, (uint64_t)g);
    }
    strbuf_free(&sb);
    uilist_set_empty_text(l, "this log has no lanes besides its HECs");
    app_open_list(a, l, APP_LIST_LANES);
}

/* Show or hide lane group g, and say which settings line keeps the choice. */
static void
app_toggle_lanes(app *a, lanegroup g)
{
    a->opts.hidden_lanes ^= LANEGROUP_BIT(g);
    app_build_lanes(a);
    app_relayout(a);
    strbuf sb;
    strbuf_init(&sb);
    lanegroup_format(a->opts.hidden_lanes, &sb);
    app_msg(a, "%s lanes %s; the settings file's line \"hide-lanes %s\" keeps this",
            lanegroup_name(g), a->opts.hidden_lanes & LANEGROUP_BIT(g) ? "hidden" : "shown",
            sb.data);
    strbuf_free(&sb);
}

/* P: the time profile of the selection (else the view) by cost centre, most individual
 * samples first: individual and inherited share and samples, name, module, source. */
static void
app_prof_list(app *a)
{
    const timeprof *tp = evindex_timeprof(a->ix);
    if (timeprof_n_samples(tp) == 0) {
        app_msg(a, "no time-profile samples in this log (-prof, +RTS -p -l)");
        return;
    }
    bool sel = timeview_has_selection(&a->v);
    uint64_t from = sel ? a->v.sel.a_ns : a->v.t0_ns, to = sel ? a->v.sel.b_ns : a->v.t1_ns;
    size_t n_rows;
    uint64_t n;
    timeprof_row *rows = timeprof_flat(tp, from, to, TIMEPROF_ANY_CAP, &n_rows, &n);
    strbuf title, sb;
    strbuf_init(&title);
    strbuf_init(&sb);
    strbuf_printf(&title, "time profile of the %s: %llu samples", sel ? "selection" : "view",
                  (unsigned long long)n);
    uilist *l = uilist_new(title.data);
    uilist_set_columns_header(l, "indiv  inher  samples  cost centre (module, source)");
    for (size_t k = 0; k < n_rows; k++) {
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%5.1f%% %5.1f%% %8llu  ",
                      100.0 * (double)rows[k].individual / (double)n,
                      100.0 * (double)rows[k].inherited / (double)n,
                      (unsigned long long)rows[k].individual);
        detail_cost_centre(&sb, a->ix, rows[k].cc, true);
        strbuf_putc(&sb, '\0');
        uilist_add(l, sb.data, rows[k].cc);
    }
    strbuf_free(&sb);
    strbuf_free(&title);
    x_free(rows);
    app_open_list(a, l, APP_LIST_PROF);
}

/* Enter on the profile list: the next sample after the cursor with cost centre cc
 * innermost (from the start again after the last), on the prof lane. */
static void
app_prof_choose(app *a, uint32_t cc)
{
    const timeprof *tp = evindex_timeprof(a->ix);
    size_t from = timeprof_first_from(tp, a->v.cursor_ns == UINT64_MAX ? a->v.cursor_ns
                                                                        : a->v.cursor_ns + 1);
    size_t i = timeprof_find_innermost(tp, from, cc);
    if (i != SIZE_MAX) {
        app_jump(a, timeprof_sample_at(tp, i).time_ns);
        for (size_t j = 0; j < a->n_lanes; j++)
            if (a->lanes[j].kind == LANE_PROF)
                a->lane_sel = j;
        return;
    }
    strbuf sb;
    strbuf_init(&sb);
    detail_cost_centre(&sb, a->ix, cc, false);
    app_msg(a, "no sample has %s innermost (only further out on the stack)", sb.data);
    strbuf_free(&sb);
}

/* ---- thread totals, counted in the background (opts.async_totals) ------------------------- */

/* Threadtab indexes ranked by run time, most first, ties in tid order. Caller frees. */
static size_t *
app_rank_threads(const threadstats_row *st, size_t n)
{
    uint64_t *run = xmalloc((n + 1) * sizeof *run);    /* freed below */
    for (size_t i = 0; i < n; i++)
        run[i] = st[i].run_ns;
    size_t *order = radixsort_rank_desc(run, n);
    x_free(run);
    return order;
}

/* The calling thread yields to the viewer's: lower its scheduling priority (Linux
 * schedules threads apart, so this does not touch the loop's thread; elsewhere it would
 * change the whole process, so it does nothing). */
static void
app_background_priority(void)
{
#ifdef __linux__
    setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
#endif
}

/* The count, in two steps: first only what the thread list shows (run time and runs,
 * ranked), published as soon as it is made, so the list opens before the rows the detail
 * pane wants (every stop class, first and last run) are counted. With a lazy memo (the
 * interactive loop) the rows, 80 bytes a thread, are counted only once a run's detail
 * asks for them, by a second run of the worker (totals_rows_only). */
/* Rows of the thread list shown from the counted totals before the whole ranking. */
#define APP_TOP_ROWS 1024

/* The count's first rows (on the worker, as soon as every thread is counted). */
static void
app_totals_top(void *ctx, size_t *top, size_t n_top)
{
    app *a = ctx;
    a->totals_top = top;
    a->n_top = n_top;
    atomic_store(&a->top_ready, true);
    while (atomic_load(&a->top_hold) && !atomic_load(&a->totals_cancel)) {
        struct timespec pause = { 0, 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
}

static void *
app_totals_main(void *arg)
{
    app *a = arg;
    /* Read-only on the index. */
    if (!a->totals_rows_only) {
        threadstats_brief_ranked_top(a->ix, &a->totals_brief, &a->totals_order,
                                     APP_TOP_ROWS, app_totals_top, a);
        atomic_store(&a->brief_ready, true);
    }
    /* The rest on this thread alone and behind the viewer's: the list is open, nobody
     * waits for it but the detail pane's "counting...", and a search may be running. */
    app_background_priority();
    if (!atomic_load(&a->totals_cancel) && (a->totals_rows_only || !a->thread_memo.lazy))
        a->totals_rows = threadstats_all_serial(a->ix);
    atomic_store(&a->totals_ready, true);
    return NULL;
}

static void
app_start_totals(app *a)
{
    if (!a->opts.async_totals || threadtab_count(evindex_threads(a->ix)) == 0)
        return;
    atomic_store(&a->brief_ready, false);
    atomic_store(&a->totals_ready, false);
    atomic_store(&a->totals_cancel, false);
    atomic_store(&a->top_ready, false);
    a->brief_taken = false;
    a->top_taken = false;
    a->totals_rows_only = false;
    a->totals_running = pthread_create(&a->totals_th, NULL, app_totals_main, a) == 0;
    a->thread_memo.pending = a->totals_running;
}

/* The rows a run's detail asked for (a lazy memo), counted on the worker; here if no
 * thread can be started. */
static void
app_start_rows(app *a)
{
    atomic_store(&a->totals_ready, false);
    atomic_store(&a->totals_cancel, false);
    a->totals_rows_only = true;
    a->totals_running = pthread_create(&a->totals_th, NULL, app_totals_main, a) == 0;
    a->thread_memo.pending = a->totals_running;
    if (!a->totals_running)
        a->thread_memo.rows = threadstats_all(a->ix);
}

/* Take the count's first step (run time, runs and ranking) if it is done and not taken
 * yet; the worker no longer touches them once brief_ready is set. True if taken now. */
static bool
app_take_brief(app *a)
{
    if (!a->totals_running || a->brief_taken || !atomic_load(&a->brief_ready))
        return false;
    a->brief_taken = true;
    threadstats_brief_free(&a->brief);
    a->brief = a->totals_brief;
    a->totals_brief = (threadstats_brief){ NULL, NULL, 0 };
    if (!a->thread_order)
        a->thread_order = a->totals_order;
    else
        x_free(a->totals_order);
    a->totals_order = NULL;
    /* The first rows, taken or not, give way to the whole order. */
    a->top_taken = true;
    x_free(a->top_order);
    x_free(a->totals_top);
    a->top_order = a->totals_top = NULL;
    a->n_top = 0;
    return true;
}

/* Take the count's first rows if they are ready and nothing better is: the thread list
 * can show them (their totals read from totals_brief, which the worker now only reads)
 * while the worker ranks the rest. True if taken now. */
static bool
app_take_top(app *a)
{
    if (!a->totals_running || a->top_taken || a->brief_taken || !atomic_load(&a->top_ready))
        return false;
    a->top_taken = true;
    a->top_order = a->totals_top;
    a->totals_top = NULL;
    if (a->n_top == threadtab_count(evindex_threads(a->ix)) && !a->thread_order) {
        a->thread_order = a->top_order;     /* every thread: the whole order already */
        a->top_order = NULL;
    }
    return true;
}

/* The threadtab index of thread list row `row`. */
static size_t
app_thread_at_row(const app *a, size_t row)
{
    return a->thread_order ? a->thread_order[row] : a->top_order[row];
}

/* Join the count (waiting for it if needed) and hand its rows to the memo. */
static void
app_wait_totals(app *a)
{
    if (!a->totals_running)
        return;
    pthread_join(a->totals_th, NULL);
    app_take_brief(a);
    a->totals_running = false;
    a->thread_memo.pending = false;
    if (!a->thread_memo.rows)
        a->thread_memo.rows = a->totals_rows;
    else
        x_free(a->totals_rows);
    a->totals_rows = NULL;
}

/* ---- the lanes' bins, made in the background (opts.async_totals) ---------------------- */

/* At most this many run bins in all (8 bytes each), and half as many GC bins (16 bytes
 * each): 32 MB. */
#define APP_BINS_MAX ((size_t)1 << 21)

static void *
app_bins_main(void *arg)
{
    app *a = arg;
    app_background_priority();
    /* Read-only on the index. */
    size_t n = evindex_n_caps(a->ix);
    busybins_src *lanes = xmalloc((n + 1) * sizeof *lanes);    /* freed below */
    for (size_t i = 0; i < n; i++)
        lanes[i] = (busybins_src){ evindex_cap_at(a->ix, i)->runs, evindex_cap_at(a->ix, i)->gc };
    static const unsigned gc_kind[2] = { EVINDEX_GC_WORK, EVINDEX_GC_WAIT };
    a->bins_result = busybins_make(lanes, n, gc_kind, evindex_first_ns(a->ix),
                                   evindex_last_ns(a->ix), APP_BINS_MAX, &a->bins_cancel);
    x_free(lanes);
    atomic_store(&a->bins_ready, true);
    return NULL;
}

/* Whether bins are still to be made for this index. */
static bool
app_bins_wanted(const app *a)
{
    return a->opts.async_totals && !a->live && !a->bins_done && !a->bins_running &&
           evindex_n_caps(a->ix) > 0;
}

/* Stop making bins (if they are being made) and drop what was made and not taken. */
static void
app_bins_stop(app *a)
{
    if (!a->bins_running)
        return;
    atomic_store(&a->bins_cancel, true);
    pthread_join(a->bins_th, NULL);
    a->bins_running = false;
    busybins_free(a->bins_result);
    a->bins_result = NULL;
}

/* Start the bins once the thread list's totals are in (they share the second core), or
 * hand made ones to the lanes. True if handed now. */
static bool
app_bins_poll(app *a)
{
    if (a->bins_running && atomic_load(&a->bins_ready)) {
        pthread_join(a->bins_th, NULL);
        a->bins_running = false;
        a->bins_done = true;
        if (a->bins_result)
            lanes_memo_set_bins(a->lanes_memo, a->ix, a->bins_result);
        a->bins_result = NULL;
        return true;
    }
    if (app_bins_wanted(a) && (a->brief_taken || !a->totals_running)) {
        atomic_store(&a->bins_ready, false);
        atomic_store(&a->bins_cancel, false);
        a->bins_result = NULL;
        a->bins_running = pthread_create(&a->bins_th, NULL, app_bins_main, a) == 0;
        a->bins_done = !a->bins_running;
    }
    return false;
}

static void app_thread_list(app *a);
static bool app_focus_poll(app *a);

bool
app_poll_totals(app *a)
{
    if (app_gc_poll(a))
        return true;            /* the MMU plot's next points (app_gc.c) */
    if (app_focus_poll(a))
        return true;            /* the focused thread's life, read */
    if (app_take_brief(a)) {
        if (a->list && a->list_kind == APP_LIST_THREADS && (a->list_counting || a->list_partial))
            app_thread_list(a);     /* the rows the "counting…" list was waiting for */
        return true;
    }
    if (app_take_top(a)) {
        if (a->list && a->list_kind == APP_LIST_THREADS && a->list_counting)
            app_thread_list(a);     /* its first screen, before the whole order */
        return true;
    }
    if (!a->totals_running && a->thread_memo.wanted && !a->thread_memo.rows) {
        app_start_rows(a);      /* a run's detail asked for the rows */
        return true;
    }
    if (a->totals_running && atomic_load(&a->totals_ready)) {
        app_wait_totals(a);
        return true;
    }
    return app_bins_poll(a);
}

/* Every thread's run totals (threadtab order): the background count's, waited for, or
 * counted now; kept for the detail pane, the thread list and search. */
static const threadstats_row *
app_thread_totals(app *a)
{
    app_wait_totals(a);
    if (!a->thread_memo.rows)
        a->thread_memo.rows = threadstats_all(a->ix);
    return a->thread_memo.rows;
}

bool
app_totals_pending(const app *a)
{
    return a->totals_running || (a->thread_memo.wanted && !a->thread_memo.rows) ||
           a->focus_running || app_gc_pending(a) || a->bins_running || app_bins_wanted(a);
}

bool
app_list_counting(const app *a)
{
    return a->list && a->list_kind == APP_LIST_THREADS && a->list_counting;
}

/* Run time and runs of thread-table index i: from the rows when counted, else from the
 * brief totals the list opened with. */
static void
app_thread_runs(const app *a, size_t i, uint64_t *run_ns, uint32_t *n_runs)
{
    if (a->thread_memo.rows) {
        *run_ns = a->thread_memo.rows[i].run_ns;
        *n_runs = a->thread_memo.rows[i].n_runs;
    } else if (!a->brief_taken && a->top_taken) {
        *run_ns = a->totals_brief.run_ns[i];    /* counted; the worker still ranks them */
        *n_runs = a->totals_brief.n_runs[i];
    } else {
        *run_ns = a->brief.run_ns[i];
        *n_runs = a->brief.n_runs[i];
    }
}

/* Row `row` of the thread list: tid, run time, runs, label. */
static void
app_thread_row_text(void *ctx, size_t row, strbuf *out)
{
    app *a = ctx;
    size_t i = app_thread_at_row(a, row);
    threadtab_thread th_v;
    const threadtab_thread *th = threadtab_at(evindex_threads(a->ix), i, &th_v) ? &th_v : NULL;
    uint64_t run_ns;
    uint32_t n_runs;
    app_thread_runs(a, i, &run_ns, &n_runs);
    strbuf t;
    strbuf_init(&t);
    timefmt_append(&t, run_ns);
    strbuf_printf(out, "%-8u %-11.*s %-8u ", th->tid, (int)t.len, t.data, n_runs);
    strbuf_free(&t);
    const uint8_t *p;
    size_t len;
    if (evindex_thread_label(a->ix, th, &p, &len))
        textfmt_append_utf8(out, p, len);
}

/* What the thread list's filter looks in: the tid and the label, nothing formatted. */
static void
app_thread_row_key(void *ctx, size_t row, strbuf *out)
{
    app *a = ctx;
    threadtab_thread th_v;
    const threadtab_thread *th =
        threadtab_at(evindex_threads(a->ix), app_thread_at_row(a, row), &th_v) ? &th_v : NULL;
    char digits[12], *d = digits + sizeof digits;
    uint32_t v = th->tid;
    do
        *--d = (char)('0' + v % 10);
    while (v /= 10);
    strbuf_append(out, d, (size_t)(digits + sizeof digits - d));
    const uint8_t *p;
    size_t len;
    if (th->label_offset && evindex_thread_label(a->ix, th, &p, &len)) {
        strbuf_putc(out, ' ');
        strbuf_append(out, p, len);
    }
}

static uint64_t
app_thread_row_payload(void *ctx, size_t row)
{
    app *a = ctx;
    threadtab_thread th;
    threadtab_at(evindex_threads(a->ix), app_thread_at_row(a, row), &th);
    return th.tid;
}

/* Every thread, most run time first: rows made only when drawn or filtered, from the
 * totals and ranking made once. While the background count runs, the list opens at
 * once saying "counting…" and takes filter text; the rows replace it when ready. */
static void
app_thread_list(app *a)
{
    const char *filter = a->list ? uilist_filter(a->list) : "";
    strbuf keep;
    strbuf_init(&keep);
    strbuf_puts(&keep, a->list && a->list_kind == APP_LIST_THREADS ? filter : "");
    uilist_rows rows = {
        .ctx = a, .text = app_thread_row_text, .key = app_thread_row_key,
        .payload = app_thread_row_payload,
    };
    /* The first rows again (the list made anew as the whole order comes): where the
     * selection was, when no filter moved it. */
    size_t keep_pos = a->list && a->list_kind == APP_LIST_THREADS && !filter[0]
                          ? uilist_selected_pos(a->list) : 0;
    app_take_brief(a);
    app_take_top(a);
    a->list_counting = !a->thread_order && !a->top_order && a->totals_running;
    a->list_partial = !a->thread_order && a->top_order;
    if (a->list_partial) {
        rows.n_rows = a->n_top;
    } else if (!a->list_counting) {
        size_t n = threadtab_count(evindex_threads(a->ix));
        if (!a->thread_order)
            a->thread_order = app_rank_threads(app_thread_totals(a), n);
        rows.n_rows = n;
    }
    strbuf title;
    strbuf_init(&title);
    strbuf_puts(&title, "threads by run time");
    if (a->list_partial)
        strbuf_printf(&title, " (the first %zu of %zu; ranking the rest…)", a->n_top,
                      threadtab_count(evindex_threads(a->ix)));
    uilist *l = uilist_new_rows(title.data, &rows);
    strbuf_free(&title);
    uilist_set_columns_header(l, "thread   run time    runs     label");
    uilist_set_empty_text(l, a->list_counting ? "counting…" : NULL);
    uilist_filter_append(l, keep.data);
    strbuf_free(&keep);
    if (keep_pos > 0 && keep_pos != SIZE_MAX && keep_pos < rows.n_rows)
        uilist_move(l, (int)keep_pos);
    app_open_list(a, l, APP_LIST_THREADS);
}

/* ---- thread focus: the first run at once, the thread's whole life gathered in the
 * background ---------------------------------------------------------------------------- */

/* The worker: every run of the thread (a long-lived one may have millions), then its
 * instants and stop details from a walk over the log; or, for a focus over a live log
 * that grew, only what was added (a->focus is only read meanwhile, as the loop draws). */
static void *
app_focus_main(void *arg)
{
    app *a = arg;
    if (a->focus_extending) {
        a->focus_extra = threadlife_read(a->focus, &a->focus_cancel);
        atomic_store(&a->focus_ready, true);
        return NULL;
    }
    /* Read-only on the index; the result is the worker's until focus_ready. */
    threadlife *tl = threadlife_new_runs(a->ix, a->focus_tid, &a->focus_cancel);
    if (!atomic_load(&a->focus_cancel))
        threadlife_take(tl, threadlife_read(tl, &a->focus_cancel));
    if (atomic_load(&a->focus_cancel)) {
        threadlife_free(tl);
        tl = NULL;
    }
    a->focus_result = tl;
    atomic_store(&a->focus_ready, true);
    return NULL;
}

/* Stop gathering the focused thread's life (if it is being gathered), dropping it. */
static void
app_focus_stop(app *a)
{
    if (!a->focus_running)
        return;
    atomic_store(&a->focus_cancel, true);
    pthread_join(a->focus_th, NULL);
    a->focus_running = false;
    a->focus_extending = false;
    threadlife_free(a->focus_result);
    a->focus_result = NULL;
    threadlife_extra_free(a->focus_extra);
    a->focus_extra = NULL;
}

/* End the focus. */
static void
app_focus_clear(app *a)
{
    app_focus_stop(a);
    threadlife_free(a->focus);
    a->focus = NULL;
}

/* Focus `tid` on the current index: its life gathered on a worker in the interactive
 * loop (the detail pane saying "reading…" until it comes), else here. */
static void
app_focus_gather(app *a, uint32_t tid)
{
    app_focus_clear(a);
    a->focus_tid = tid;
    a->focus_msg_pending = false;
    atomic_store(&a->focus_ready, false);
    atomic_store(&a->focus_cancel, false);
    a->focus_extending = false;
    a->focus_gathers++;
    a->focus_running = a->opts.async_totals &&
                       pthread_create(&a->focus_th, NULL, app_focus_main, a) == 0;
    if (!a->focus_running)
        a->focus = threadlife_new(a->ix, tid);
}

/* Log bytes a grown focus is extended by here, at once; more go to the worker. */
#define APP_FOCUS_INLINE_BYTES ((uint64_t)8 << 20)

/* The focused thread's life over its index grown (a live log): extended by the runs
 * and bytes added, here when they are few, else on the worker (the life stays shown and
 * marked meanwhile: no "reading" between swaps). */
static void
app_focus_extend(app *a)
{
    uint64_t inline_bytes = a->focus_inline_bytes ? a->focus_inline_bytes
                                                  : APP_FOCUS_INLINE_BYTES;
    if (!a->opts.async_totals || threadlife_behind_bytes(a->focus) <= inline_bytes) {
        threadlife_extend(a->focus);
        return;
    }
    atomic_store(&a->focus_ready, false);
    atomic_store(&a->focus_cancel, false);
    a->focus_extending = true;
    a->focus_running = pthread_create(&a->focus_th, NULL, app_focus_main, a) == 0;
    if (!a->focus_running) {
        a->focus_extending = false;
        threadlife_extend(a->focus);
    }
}

/* The status line of a focus whose runs are all known. */
static void
app_focus_msg(app *a)
{
    size_t n = threadlife_n_runs(a->focus);
    if (n == 0)
        app_msg(a, "thread %u never ran in this log; its life is in the pane (Esc ends the "
                "focus)", a->focus_tid);
    else
        app_msg(a, "thread %u focused: %zu runs marked on every HEC; . and , step through "
                "them, Esc ends the focus", a->focus_tid, n);
}

/* Take the focused thread's life when the worker has gathered it; true if taken now. */
static bool
app_focus_poll(app *a)
{
    if (!a->focus_running || !atomic_load(&a->focus_ready))
        return false;
    pthread_join(a->focus_th, NULL);
    a->focus_running = false;
    if (a->focus_extending) {
        a->focus_extending = false;
        threadlife_take(a->focus, a->focus_extra);     /* NULL (given up): as it was */
        a->focus_extra = NULL;
        return true;
    }
    a->focus = a->focus_result;
    a->focus_result = NULL;
    if (a->focus && a->focus_msg_pending)
        app_focus_msg(a);       /* still the "reading" line: now with the count */
    a->focus_msg_pending = false;
    return true;
}

/* A focused thread's run found without its life (it is still being gathered). */
static bool
app_focus_seek(app *a, uint64_t t, int dir, threadlife_run *out)
{
    return threadlife_seek_run(a->ix, a->focus_tid, t, dir, out);
}

/* Focus thread `tid`: its runs marked on every HEC, its life in the detail pane, the
 * cursor on its first run (found at once, however many runs it has); . and , then step
 * through its runs. */
static void
app_focus_thread(app *a, uint32_t tid)
{
    app_focus_gather(a, tid);
    threadlife_run first;
    bool ran = a->focus ? threadlife_n_runs(a->focus) > 0 : app_focus_seek(a, 0, 1, &first);
    if (a->focus && ran)
        first = *threadlife_run_at(a->focus, 0);
    if (ran) {
        app_jump(a, first.start_ns);
        app_select_cap(a, first.cap);
    }
    if (a->focus) {
        app_focus_msg(a);
        return;
    }
    app_msg(a, "thread %u focused%s; reading its runs and life%s . and , step through its "
            "runs, Esc ends the focus", tid, ran ? "" : " (no run found)",
            a->opts.ascii ? "..." : "…");
    a->focus_msg_pending = true;
}

/* . and , with a thread focused: its next or previous run, whatever the HEC (while its
 * life is gathered, found in the run lanes). */
static void
app_step_focus(app *a, int dir)
{
    uint32_t tid = a->focus_tid;
    threadlife_run found;
    const threadlife_run *r = NULL;
    size_t i = SIZE_MAX;
    if (a->focus) {
        i = threadlife_step(a->focus, a->v.cursor_ns, dir);
        r = i == SIZE_MAX ? NULL : threadlife_run_at(a->focus, i);
    } else if (app_focus_seek(a, dir > 0 ? a->v.cursor_ns + 1 : a->v.cursor_ns, dir, &found)) {
        r = &found;
    }
    a->focus_msg_pending = false;
    if (!r) {
        app_msg(a, "no %s run of thread %u", dir > 0 ? "later" : "earlier", tid);
        return;
    }
    app_jump(a, r->start_ns);
    app_select_cap(a, r->cap);
    strbuf sb;
    strbuf_init(&sb);
    timefmt_append_res(&sb, r->start_ns, 1);
    strbuf_puts(&sb, " on ");
    if (r->cap == EVINDEX_NO_CAP)
        strbuf_puts(&sb, "no HEC");
    else
        strbuf_printf(&sb, "HEC %u", (unsigned)r->cap);
    strbuf_puts(&sb, ", ran ");
    timefmt_append(&sb, r->end_ns - r->start_ns);
    if (a->focus)
        app_msg(a, "thread %u run %zu/%zu at %s", tid, i + 1, threadlife_n_runs(a->focus),
                sb.data);
    else
        app_msg(a, "thread %u run at %s", tid, sb.data);
    strbuf_free(&sb);
}

/* New filters for the event pane, loaded around the cursor at once (keys that follow,
 * before the next frame, then scroll what they show). */
static void
app_refilter(app *a, int type, const char *text)
{
    char keep[sizeof a->query];
    snprintf(keep, sizeof keep, "%s", text);    /* text may be the pane's own */
    eventpane_set_filter(a->events, type, keep);
    eventpane_sync(a->events, a->v.cursor_ns, a->lay.pane_rows > 1 ? a->lay.pane_rows - 1 : 1);
    a->events_follow = a->mode != MODE_EVENTS;     /* loaded: the pane's keys move it now */
}

/* The event pane's type filter: every type the log's header declares. */
static void
app_evtype_list(app *a)
{
    uilist *l = uilist_new("show only events of type");
    uilist_set_columns_header(l, "id   description");
    uilist_add(l, "-    every type (no type filter)", UINT64_MAX);
    const evlog *log = evindex_log(a->ix);
    strbuf sb;
    strbuf_init(&sb);
    int cur = eventpane_filter_type(a->events);
    for (size_t i = 0; i < evlog_n_types(log); i++) {
        const evlog_type *t = evlog_type_at(log, i);
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%-4u ", (unsigned)t->id);
        textfmt_append_utf8(&sb, t->desc, t->desc_len);
        strbuf_putc(&sb, '\0');
        uilist_add(l, sb.data, t->id);
        if (cur == (int)t->id)
            uilist_move(l, (long)i + 1);
    }
    strbuf_free(&sb);
    app_open_list(a, l, APP_LIST_EVTYPES);
}

static void
app_free_commands(app *a)
{
    for (size_t i = 0; i < 2; i++) {
        x_free(a->commands[i]);
        a->commands[i] = NULL;
    }
}

/* Copy as command: the selection, else the view, as `stats` and `snapshot` commands; the
 * chosen one goes to the clipboard (OSC 52) and the status line. */
static void
app_command_list(app *a)
{
    const timeview *v = &a->v;
    uint64_t from = v->t0_ns, to = v->t1_ns;
    if (timeview_has_selection(v)) {
        from = v->sel.a_ns;
        to = v->sel.b_ns;
    }
    app_free_commands(a);
    strbuf sb;
    strbuf_init(&sb);
    copycmd_stats(&sb, a->path, from, to);
    strbuf_putc(&sb, '\0');
    a->commands[0] = xstrdup(sb.data);
    strbuf_reset(&sb);
    copycmd_snapshot(&sb, a->path, from, to, a->cols, a->lines);
    strbuf_putc(&sb, '\0');
    a->commands[1] = xstrdup(sb.data);
    strbuf_free(&sb);
    uilist *l = uilist_new(timeview_has_selection(v) ? "copy the selection as a command (Enter)"
                                                     : "copy the view as a command (Enter)");
    uilist_add(l, a->commands[0], 0);
    uilist_add(l, a->commands[1], 1);
    app_open_list(a, l, APP_LIST_COMMANDS);
}

static void
app_copy(app *a, const char *text)
{
    strbuf_reset(&a->clip);
    strbuf_puts(&a->clip, text);
    strbuf_putc(&a->clip, '\0');
    a->clip_pending = true;
    app_msg(a, "copied (OSC 52): %s", text);
}

const char *
app_take_clipboard(app *a)
{
    if (!a->clip_pending)
        return NULL;
    a->clip_pending = false;
    return a->clip.data;
}

/* The timeline cursor follows the event pane's selection (and the view, if it leaves). */
static void
app_follow_pane(app *a)
{
    uint64_t t;
    if (!eventpane_selected_time(a->events, &t))
        return;
    if (t < a->v.t0_ns || t >= a->v.t1_ns)
        app_jump(a, t);
    timeview_set_cursor(&a->v, t);
}

static void
app_list_choose(app *a)
{
    uint64_t payload;
    if (!a->list || !uilist_selected(a->list, &payload)) {
        app_close_list(a);
        return;
    }
    enum app_list_kind kind = a->list_kind;
    app_close_list(a);
    if (kind == APP_LIST_LANES && payload < LANEGROUP_N) {
        app_toggle_lanes(a, (lanegroup)payload);
        app_lane_menu(a);       /* open again, on the same group */
        uilist_select_payload(a->list, payload);
        return;
    }
    if (kind == APP_LIST_EVTYPES) {
        app_refilter(a, payload == UINT64_MAX ? -1 : (int)payload,
                     eventpane_filter_text(a->events));
        a->mode = a->events_on ? MODE_EVENTS : MODE_TIMELINE;
        return;
    }
    if (kind == APP_LIST_COMMANDS) {
        if (payload < 2 && a->commands[payload])
            app_copy(a, a->commands[payload]);
        app_free_commands(a);
        return;
    }
    if (kind == APP_LIST_MARKERS && payload < evindex_n_markers(a->ix)) {
        const evindex_msg m_v = evindex_marker_at(a->ix, payload), *m = &m_v;
        app_jump(a, m->time_ns);
        a->lane_sel = a->markers_lane != SIZE_MAX ? a->markers_lane : a->lane_sel;
    } else if (kind == APP_LIST_GCS && payload < evindex_n_gcs(a->ix)) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(a->ix, payload, &g_buf);
        app_jump(a, g->start_ns);
        app_select_cap(a, g->leader_cap);
    } else if (kind == APP_LIST_WORST) {
        app_gc_choose_worst(a, payload);
    } else if (kind == APP_LIST_BANDS && payload < heapprof_n_bands(evindex_heap_profile(a->ix))) {
        app_jump(a, heapprof_band_at(evindex_heap_profile(a->ix), payload)->peak_time_ns);
        for (size_t i = 0; i < a->n_lanes; i++)
            if (a->lanes[i].kind == LANE_HEAPBANDS)
                a->lane_sel = i;
    } else if (kind == APP_LIST_THREADS) {
        app_focus_thread(a, (uint32_t)payload);
    } else if (kind == APP_LIST_PROF) {
        app_prof_choose(a, (uint32_t)payload);
    }
}

/* ---- search ------------------------------------------------------------------------------ */

/* A search's query made ready once for many texts: folded to ASCII lower case, with
 * the other case of its first byte (the same byte when it is no letter). */
typedef struct app_needle {
    uint8_t folded[sizeof ((app *)0)->query];
    size_t len;
    uint8_t first_lo, first_up;
} app_needle;

static uint8_t
app_fold(uint8_t x)
{
    return x >= 'A' && x <= 'Z' ? (uint8_t)(x + 32) : x;
}

static void
app_needle_init(app_needle *nd, const char *needle)
{
    nd->len = strlen(needle);
    for (size_t i = 0; i < nd->len; i++)
        nd->folded[i] = app_fold((uint8_t)needle[i]);
    nd->first_lo = nd->len ? nd->folded[0] : 0;
    nd->first_up = nd->first_lo >= 'a' && nd->first_lo <= 'z' ? (uint8_t)(nd->first_lo - 32)
                                                                  : nd->first_lo;
}

/* ASCII-case-insensitive substring test over UTF-8 bytes: the places where the first
 * byte matches are found by memchr (or a byte loop for a letter), then the rest is
 * compared folded. */
static bool
app_contains(const uint8_t *hay, size_t n, const app_needle *nd)
{
    size_t m = nd->len;
    if (m == 0)
        return true;
    if (m > n)
        return false;
    size_t last = n - m;                /* the last place a match can start */
    for (size_t i = 0; i <= last; i++) {
        if (nd->first_lo == nd->first_up) {
            const uint8_t *q = memchr(hay + i, nd->first_lo, last - i + 1);
            if (!q)
                return false;
            i = (size_t)(q - hay);
        } else {
            while (i <= last && hay[i] != nd->first_lo && hay[i] != nd->first_up)
                i++;
            if (i > last)
                return false;
        }
        size_t j = 1;
        while (j < m && app_fold(hay[i + j]) == nd->folded[j])
            j++;
        if (j == m)
            return true;
    }
    return false;
}

static int
match_cmp(const void *x, const void *y)
{
    const app_match *p = x, *q = y;
    return p->time_ns < q->time_ns ? -1 : p->time_ns > q->time_ns;
}

/* Texts read by a search in batches of this many: their events (scattered over the
 * whole file, a page or more apart) are asked for together, so the loads overlap. */
#define APP_SEARCH_BATCH 64

/* Bytes of an event the search asks for ahead: its header (12 bytes) and the start of
 * its text (memchr reads 32 bytes at once), often across the end of the header's line. */
#define APP_SEARCH_AHEAD 48

/* Ask for the event at `offset` of the log (a text the search reads next). */
static void
app_prefetch_event(const app *a, uint64_t offset)
{
    const evlog *log = evindex_log(a->ix);
    size_t size = evlog_size(log);
    if (offset && offset < size) {
        const uint8_t *p = evlog_bytes(log) + offset;
        __builtin_prefetch(p);
        if (size - offset > APP_SEARCH_AHEAD)
            __builtin_prefetch(p + APP_SEARCH_AHEAD);
    }
}

/* A search's work, cut into units that its threads claim in order, each the next one
 * free (a thread the system holds back delays only the unit it holds): first messages
 * APP_SEARCH_MSG_UNIT at a time, then threads (by table index, the labelled ones read)
 * APP_SEARCH_THREAD_UNIT at a time. Read-only on the index. */
#define APP_SEARCH_MSG_UNIT 4096
#define APP_SEARCH_THREAD_UNIT 16384

typedef struct app_search_job {
    const app *a;
    const app_needle *nd;
    size_t n_msgs, n_threads;
    size_t n_msg_units, n_units;
    atomic_size_t next_unit;    /* the next unit not claimed yet */
} app_search_job;

/* The matches one unit added to its thread's list: [from, from + n). */
typedef struct app_search_seg {
    size_t unit, from, n;
} app_search_seg;

/* What one thread of a search finds: its units' matches, unit after unit (a thread's
 * match has the thread id as index and THREADTAB_NO_TIME as time when the thread was
 * not created in the log: app_run_search finds its time). */
typedef struct app_search_part {
    app_search_job *job;
    app_match *m;               /* owned; freed by app_run_search */
    size_t n, cap;
    app_search_seg *seg;        /* owned; freed by app_run_search */
    size_t n_seg, cap_seg;
} app_search_part;

static void
app_search_add(app_search_part *sp, app_match m)
{
    xgrowarray((void **)&sp->m, &sp->cap, sp->n + 1, 64, sizeof *sp->m);
    sp->m[sp->n++] = m;
}

/* The messages [from, to) containing the query. The events of the next batch are
 * asked for before the texts of this one are read, so loads are always under way. */
static void
app_search_msgs(app_search_part *sp, size_t from, size_t to)
{
    const app *a = sp->job->a;
    evindex_msg batch[2][APP_SEARCH_BATCH];
    size_t nb[2] = { 0, 0 }, cur = 0;
    for (size_t i0 = from, i1 = from; i1 < to || nb[cur]; cur ^= 1) {
        if (i1 < to) {
            size_t want = to - i1 < APP_SEARCH_BATCH ? to - i1 : APP_SEARCH_BATCH;
            nb[cur ^ 1] = evindex_msgs_at(a->ix, i1, want, batch[cur ^ 1]);
            for (size_t k = 0; k < nb[cur ^ 1]; k++)
                app_prefetch_event(a, batch[cur ^ 1][k].offset);
            i1 = nb[cur ^ 1] ? i1 + nb[cur ^ 1] : to;
        } else {
            nb[cur ^ 1] = 0;
        }
        for (size_t k = 0; k < nb[cur]; k++) {
            const evindex_msg *m = &batch[cur][k];
            const uint8_t *p;
            size_t n;
            if (m->kind != EVINDEX_MSG_BINARY && evindex_msg_text(a->ix, m, &p, &n) &&
                app_contains(p, n, sp->job->nd))
                app_search_add(sp, (app_match){ m->time_ns, i0 + k, false });
        }
        i0 += nb[cur];
    }
}

/* The threads of table index [from, to) whose label contains the query, found at their
 * creation; batches asked for ahead as for messages. */
static void
app_search_threads(app_search_part *sp, size_t from, size_t to)
{
    const app *a = sp->job->a;
    const threadtab *tt = evindex_threads(a->ix);
    threadtab_iter it;
    threadtab_iter_at(tt, from, true, &it);
    threadtab_thread ths[2][APP_SEARCH_BATCH];
    size_t nb[2] = { 0, 0 }, cur = 0;
    bool more = true;
    do {
        /* The next batch of labelled threads, their labels asked for at once. */
        threadtab_thread *next = ths[cur ^ 1];
        size_t n_next = 0, i;
        while (more && n_next < APP_SEARCH_BATCH &&
               (more = threadtab_next(tt, &it, true, &next[n_next], &i) && i < to))
            app_prefetch_event(a, next[n_next++].label_offset);
        nb[cur ^ 1] = n_next;
        for (size_t k = 0; k < nb[cur]; k++) {
            const uint8_t *p;
            size_t n;
            if (evindex_thread_label(a->ix, &ths[cur][k], &p, &n) &&
                app_contains(p, n, sp->job->nd))
                app_search_add(sp, (app_match){ ths[cur][k].create_ns, ths[cur][k].tid, true });
        }
        cur ^= 1;
    } while (nb[cur]);
}

/* Read unit u (none if u is past the last). */
static void
app_search_unit(app_search_part *sp, size_t u)
{
    const app_search_job *job = sp->job;
    if (u >= job->n_units)
        return;
    size_t from = sp->n;
    if (u < job->n_msg_units) {
        size_t i = u * APP_SEARCH_MSG_UNIT;
        app_search_msgs(sp, i, job->n_msgs - i < APP_SEARCH_MSG_UNIT
                                   ? job->n_msgs : i + APP_SEARCH_MSG_UNIT);
    } else {
        size_t i = (u - job->n_msg_units) * APP_SEARCH_THREAD_UNIT;
        app_search_threads(sp, i, job->n_threads - i < APP_SEARCH_THREAD_UNIT
                                      ? job->n_threads : i + APP_SEARCH_THREAD_UNIT);
    }
    if (sp->n == from)
        return;
    xgrowarray((void **)&sp->seg, &sp->cap_seg, sp->n_seg + 1, 16, sizeof *sp->seg);
    sp->seg[sp->n_seg++] = (app_search_seg){ u, from, sp->n - from };
}

/* Claim and read units until none is left. */
static void
app_search_work(app_search_part *sp)
{
    for (;;) {
        size_t u = atomic_fetch_add(&sp->job->next_unit, 1);
        if (u >= sp->job->n_units)
            return;
        app_search_unit(sp, u);
    }
}

/* The second thread: the first unit is always its own (so its matches always go
 * before the first thread's), then as they come. */
static void *
app_search_work_main(void *arg)
{
    app_search_unit(arg, 0);
    app_search_work(arg);
    return NULL;
}

/* Messages and threads a search shares out to a second thread from: below, one thread
 * reads them all (a thread's start costs more than it saves). */
#define APP_SEARCH_SPLIT 65536

/* Markers, messages and thread labels containing the query: their units read by this
 * thread and, for many, another at once; the units' matches put back in unit order
 * (each thread claims its units in order) give the messages' in time order, then the
 * threads' in id order. */
static void
app_run_search(app *a)
{
    x_free(a->matches);
    a->matches = NULL;
    a->n_matches = 0;
    app_needle nd;
    app_needle_init(&nd, a->query);
    const threadtab *tt = evindex_threads(a->ix);
    app_search_job job = { .a = a, .nd = &nd, .n_msgs = evindex_n_msgs(a->ix),
                           .n_threads = threadtab_count(tt) };
    job.n_msg_units = (job.n_msgs + APP_SEARCH_MSG_UNIT - 1) / APP_SEARCH_MSG_UNIT;
    job.n_units = job.n_msg_units +
                  (job.n_threads + APP_SEARCH_THREAD_UNIT - 1) / APP_SEARCH_THREAD_UNIT;
    atomic_init(&job.next_unit, 1);     /* unit 0 is the second thread's, if any */
    app_search_part part[2] = { { .job = &job }, { .job = &job } };
    pthread_t other;
    bool two = job.n_units > 1 && job.n_msgs + job.n_threads >= APP_SEARCH_SPLIT &&
               pthread_create(&other, NULL, app_search_work_main, &part[1]) == 0;
    if (!two)
        app_search_unit(&part[0], 0);
    app_search_work(&part[0]);
    if (two)
        pthread_join(other, NULL);
    size_t cap = part[0].n + part[1].n;
    if (cap)
        a->matches = xmalloc(cap * sizeof *a->matches);     /* owned by a */
    size_t n_msg_matches = 0;
    for (size_t s0 = 0, s1 = 0; s0 < part[0].n_seg || s1 < part[1].n_seg;) {
        bool take0 = s1 == part[1].n_seg ||
                     (s0 < part[0].n_seg && part[0].seg[s0].unit < part[1].seg[s1].unit);
        const app_search_part *sp = &part[take0 ? 0 : 1];
        const app_search_seg *sg = &sp->seg[take0 ? s0++ : s1++];
        memcpy(a->matches + a->n_matches, sp->m + sg->from, sg->n * sizeof *a->matches);
        a->n_matches += sg->n;
        if (sg->unit < job.n_msg_units)
            n_msg_matches = a->n_matches;
    }
    for (int k = 0; k < 2; k++) {
        x_free(part[k].m);
        x_free(part[k].seg);
    }
    /* A thread is found at its creation; one created before the log began, at its first
     * run. */
    for (size_t j = n_msg_matches; j < a->n_matches; j++) {
        if (a->matches[j].time_ns != THREADTAB_NO_TIME)
            continue;
        size_t i = threadtab_index_of(tt, (uint32_t)a->matches[j].index);
        const threadstats_row *st = &app_thread_totals(a)[i];
        a->matches[j].time_ns =
            st->first_run_ns != THREADTAB_NO_TIME ? st->first_run_ns : a->v.log_start_ns;
    }
    /* Messages come in time order: sort only the thread matches, then merge (as a
     * stable sort of the whole: a message before a thread at the same time). */
    size_t n_th = a->n_matches - n_msg_matches;
    bool sorted = true;        /* threads come by id: nearly always in creation order */
    for (size_t j = n_msg_matches + 1; j < a->n_matches && sorted; j++)
        sorted = a->matches[j - 1].time_ns <= a->matches[j].time_ns;
    if (!sorted)
        qsort(a->matches + n_msg_matches, n_th, sizeof *a->matches, match_cmp);
    if (n_th > 0 && n_msg_matches > 0) {
        app_match *all = xmalloc(a->n_matches * sizeof *all);   /* owned by a */
        const app_match *x = a->matches, *y = a->matches + n_msg_matches;
        size_t i_x = 0, i_y = 0, k = 0;
        while (i_x < n_msg_matches || i_y < n_th)
            all[k++] = i_y == n_th || (i_x < n_msg_matches && x[i_x].time_ns <= y[i_y].time_ns)
                           ? x[i_x++] : y[i_y++];
        x_free(a->matches);
        a->matches = all;
    }
    a->search_on = a->n_matches > 0;
    if (!a->n_matches)
        app_msg(a, "no marker, message or thread label contains \"%s\"", a->query);
    else
        app_msg(a, "%zu matches for \"%s\": n/N step through them, Esc ends the search",
                a->n_matches, a->query);
}

static void
app_match_text(const app *a, const app_match *m, strbuf *sb)
{
    const uint8_t *p = NULL;
    size_t n = 0;
    if (m->is_thread) {
        threadtab_thread th_v;
        const threadtab_thread *th =
            threadtab_find(evindex_threads(a->ix), (uint32_t)m->index, &th_v) ? &th_v : NULL;
        if (th && evindex_thread_label(a->ix, th, &p, &n)) {
            strbuf_printf(sb, "thread %u ", th->tid);
            textfmt_append_utf8(sb, p, n);
        }
    } else {
        const evindex_msg msg_v = evindex_msg_at(a->ix, m->index);
        if (evindex_msg_text(a->ix, &msg_v, &p, &n))
            textfmt_append_utf8(sb, p, n);
    }
}

static void
app_step_match(app *a, int dir)
{
    if (!a->n_matches)
        return;
    size_t i;
    if (dir > 0) {
        i = 0;
        while (i < a->n_matches && a->matches[i].time_ns <= a->v.cursor_ns)
            i++;
        if (i == a->n_matches) {
            app_msg(a, "no more matches after the cursor");
            return;
        }
    } else {
        i = a->n_matches;
        while (i > 0 && a->matches[i - 1].time_ns >= a->v.cursor_ns)
            i--;
        if (i == 0) {
            app_msg(a, "no more matches before the cursor");
            return;
        }
        i--;
    }
    app_jump(a, a->matches[i].time_ns);
    strbuf sb, t;
    strbuf_init(&sb);
    strbuf_init(&t);
    app_fmt_time(a, &t, a->matches[i].time_ns,
                 detail_res_near(a->matches[i].time_ns,
                                 i > 0 ? a->matches[i - 1].time_ns : UINT64_MAX,
                                 i + 1 < a->n_matches ? a->matches[i + 1].time_ns : UINT64_MAX));
    app_match_text(a, &a->matches[i], &sb);
    app_msg(a, "match %zu/%zu at %.*s: %.*s", i + 1, a->n_matches, (int)t.len, t.data,
            (int)sb.len, sb.data);
    strbuf_free(&sb);
    strbuf_free(&t);
}

/* ---- markers, GCs, items ----------------------------------------------------------------- */

static void
app_step_marker(app *a, int dir)
{
    size_t n = evindex_n_markers(a->ix), i;
    if (dir > 0) {
        i = evindex_marker_first_from(a->ix, a->v.cursor_ns + 1);
        if (i >= n) {
            app_msg(a, n ? "no marker after the cursor" : "this log has no markers");
            return;
        }
    } else {
        i = evindex_marker_first_from(a->ix, a->v.cursor_ns);
        if (i == 0) {
            app_msg(a, n ? "no marker before the cursor" : "this log has no markers");
            return;
        }
        i--;
    }
    const evindex_msg m_v = evindex_marker_at(a->ix, i), *m = &m_v;
    app_jump(a, m->time_ns);
    if (a->markers_lane != SIZE_MAX)
        a->lane_sel = a->markers_lane;
    strbuf sb, t;
    strbuf_init(&sb);
    strbuf_init(&t);
    app_fmt_time(a, &t, m->time_ns, detail_marker_res(a->ix, i));
    const uint8_t *p;
    size_t len;
    if (evindex_msg_text(a->ix, m, &p, &len))
        textfmt_append_utf8(&sb, p, len);
    app_msg(a, "marker %zu/%zu at %.*s: %.*s", i + 1, n, (int)t.len, t.data, (int)sb.len,
            sb.data);
    strbuf_free(&sb);
    strbuf_free(&t);
}

static void
app_step_gc(app *a, int dir)
{
    size_t n = evindex_n_gcs(a->ix), i;
    if (dir > 0) {
        i = evindex_gc_first_from(a->ix, a->v.cursor_ns + 1);
        if (i >= n) {
            app_msg(a, n ? "no collection after the cursor" : "this log has no collections");
            return;
        }
    } else {
        i = evindex_gc_first_from(a->ix, a->v.cursor_ns);
        if (i == 0) {
            app_msg(a, n ? "no collection before the cursor" : "this log has no collections");
            return;
        }
        i--;
    }
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(a->ix, i, &g_buf);
    app_jump(a, g->start_ns);
    app_select_cap(a, g->leader_cap);
    a->msg_sticky = false;      /* the status line describes the GC under the cursor */
}

static void
app_step_item(app *a, int dir)
{
    const lane *l = app_lane(a);
    lane_item it;
    if (!l || !lanes_next_item(a->ix, l, a->v.cursor_ns, dir, &it)) {
        app_msg(a, "no %s item on %s", dir > 0 ? "later" : "earlier", l ? l->label : "-");
        return;
    }
    app_jump(a, it.start_ns);
}

bool
app_item(const app *a, lane_item *it)
{
    const lane *l = app_lane(a);
    uint64_t slack = (uint64_t)timeview_ns_per_col(&a->v);
    if (l && lanes_item_at(a->ix, l, a->v.cursor_ns, slack, it))
        return true;
    it->kind = LANE_ITEM_NONE;
    return false;
}

static void
app_zoom_selection(app *a)
{
    if (timeview_has_selection(&a->v)) {
        timeview_select_end(&a->v);
        timeview_zoom_to(&a->v, a->v.sel.a_ns, a->v.sel.b_ns);
        return;
    }
    lane_item it;
    if (app_item(a, &it) && it.end_ns > it.start_ns) {
        uint64_t len = it.end_ns - it.start_ns;
        uint64_t pad = len / 4 + 1;
        uint64_t a0 = it.start_ns > pad ? it.start_ns - pad : 0;
        timeview_zoom_to(&a->v, a0, it.end_ns + pad);
        timeview_set_cursor(&a->v, it.start_ns);
    } else {
        app_msg(a, "nothing to zoom to: select a range with Space, or put the cursor on an item");
    }
}

/* ---- actions ------------------------------------------------------------------------------ */

/* n / N: the next or previous search match while a search is on, else marker. */
static void
app_step_marker_or_match(app *a, int dir)
{
    if (a->search_on)
        app_step_match(a, dir);
    else
        app_step_marker(a, dir);
}

/* Open the search prompt; Enter or Escape goes back to the mode it was opened from. */
static void
app_open_search(app *a)
{
    a->search_from = a->mode;
    a->mode = MODE_SEARCH;
    a->prompt_filter = false;
    a->query[0] = '\0';
}

/* The prompt for the event pane's text filter, holding the filter in force. */
static void
app_open_filter(app *a)
{
    a->search_from = MODE_EVENTS;
    a->mode = MODE_SEARCH;
    a->prompt_filter = true;
    snprintf(a->query, sizeof a->query, "%s", eventpane_filter_text(a->events));
}

/* Escape: no selection, search or thread focus. */
static void
app_cancel(app *a)
{
    timeview_select_clear(&a->v);
    a->search_on = false;
    app_focus_clear(a);
    a->msg_sticky = false;
}

static void
app_timeline_action(app *a, enum keymap_action act)
{
    timeview *v = &a->v;
    switch (act) {
    case ACTION_PAN_LEFT: timeview_pan_fraction(v, -0.125); break;
    case ACTION_PAN_RIGHT: timeview_pan_fraction(v, 0.125); break;
    case ACTION_PAGE_LEFT: timeview_pan_views(v, -1); break;
    case ACTION_PAGE_RIGHT: timeview_pan_views(v, 1); break;
    case ACTION_CURSOR_LEFT: timeview_cursor_move(v, -1); break;
    case ACTION_CURSOR_RIGHT: timeview_cursor_move(v, 1); break;
    case ACTION_GO_START: timeview_home(v); break;
    case ACTION_GO_END: timeview_end(v); break;
    case ACTION_FOLLOW:
        if (!a->live && a->disk_warning[0] && !a->disk_gone && evindex_truncated(a->ix)) {
            a->live_request = true;     /* app_loop.c follows the file from here on */
            app_msg(a, "following the file as it grows");
        } else if (!a->live) {
            app_msg(a, "F follows a live log; this one is not being written");
        } else {
            a->live_follow = true;
            app_follow_now(a);
        }
        break;
    case ACTION_ZOOM_IN: timeview_zoom(v, 0.5, v->cursor_ns); break;
    case ACTION_ZOOM_OUT: timeview_zoom(v, 2.0, v->cursor_ns); break;
    case ACTION_ZOOM_FIT: timeview_fit(v); break;
    case ACTION_ZOOM_SELECTION: app_zoom_selection(a); break;
    case ACTION_CENTER: timeview_recenter(v); break;
    case ACTION_LANE_UP:
        if (a->lane_sel > 0)
            a->lane_sel--;
        break;
    case ACTION_LANE_DOWN:
        if (a->lane_sel + 1 < a->n_lanes)
            a->lane_sel++;
        break;
    case ACTION_NEXT_ITEM:
    case ACTION_PREV_ITEM:
        if (a->focus || a->focus_running)
            app_step_focus(a, act == ACTION_NEXT_ITEM ? 1 : -1);
        else
            app_step_item(a, act == ACTION_NEXT_ITEM ? 1 : -1);
        break;
    case ACTION_NEXT_MARKER: app_step_marker_or_match(a, 1); break;
    case ACTION_PREV_MARKER: app_step_marker_or_match(a, -1); break;
    case ACTION_MARKER_LIST: app_marker_list(a); break;
    case ACTION_NEXT_GC: app_step_gc(a, 1); break;
    case ACTION_PREV_GC: app_step_gc(a, -1); break;
    case ACTION_GC_LIST: app_gc_list(a); break;
    case ACTION_BAND_LIST: app_band_list(a); break;
    case ACTION_LANE_MENU: app_lane_menu(a); break;
    case ACTION_PROF_LIST: app_prof_list(a); break;
    case ACTION_THREAD_LIST: app_thread_list(a); break;
    case ACTION_MMU_PLOT: app_gc_open_mmu(a); break;
    case ACTION_WORST_LIST: app_gc_open_worst(a); break;
    case ACTION_COPY_COMMAND: app_command_list(a); break;
    case ACTION_SEARCH: app_open_search(a); break;
    case ACTION_SELECT:
        /* sel.active: the selection follows the cursor; the range stays after. */
        if (v->sel.active) {
            timeview_select_end(v);
            a->msg_sticky = false;
        } else {
            timeview_select_start(v, v->cursor_ns);
            app_msg(a, "selecting: move the cursor, Space again ends the selection");
        }
        break;
    case ACTION_CANCEL: app_cancel(a); break;
    case ACTION_TOGGLE_EVENTS:
        a->events_on = !a->events_on;
        if (!a->events_on && a->mode == MODE_EVENTS)
            a->mode = MODE_TIMELINE;
        break;
    case ACTION_FOCUS_NEXT:
        if (a->events_on)
            a->mode = a->mode == MODE_EVENTS ? MODE_TIMELINE : MODE_EVENTS;
        break;
    case ACTION_HELP:
        a->mode = MODE_HELP;
        a->help_scroll = 0;
        break;
    case ACTION_REDRAW: a->redraw = true; break;
    case ACTION_QUIT: a->quit = true; break;
    default: break;
    }
}

static void
app_list_action(app *a, enum keymap_action act, const char *key)
{
    int page = a->list_rows > 3 ? a->list_rows - 3 : 1;
    switch (act) {
    case ACTION_LINE_UP: uilist_move(a->list, -1); break;
    case ACTION_LINE_DOWN: uilist_move(a->list, 1); break;
    case ACTION_PAGE_UP: uilist_page(a->list, -1, page); break;
    case ACTION_PAGE_DOWN: uilist_page(a->list, 1, page); break;
    case ACTION_FIRST: uilist_first(a->list); break;
    case ACTION_LAST: uilist_last(a->list); break;
    case ACTION_CHOOSE: app_list_choose(a); break;
    case ACTION_ERASE_CHAR: uilist_filter_erase_char(a->list); break;
    case ACTION_ERASE_LINE: uilist_filter_clear(a->list); break;
    case ACTION_CLOSE: app_close_list(a); break;
    case ACTION_REDRAW: a->redraw = true; break;
    case ACTION_QUIT: a->quit = true; break;
    case ACTION_NONE: {
        /* Only printable text filters the list; other unbound keys do nothing. */
        const char *text = keymap_key_text(key);
        if (text)
            uilist_filter_append(a->list, text);
        break;
    }
    default: break;
    }
}

static void
app_search_action(app *a, enum keymap_action act, const char *key)
{
    size_t len = strlen(a->query);
    enum keymap_mode back = a->search_from == MODE_EVENTS && a->events_on ? MODE_EVENTS
                                                                           : MODE_TIMELINE;
    switch (act) {
    case ACTION_ACCEPT:
        a->mode = back;
        if (a->prompt_filter) {
            app_refilter(a, eventpane_filter_type(a->events), a->query);
            a->prompt_filter = false;
            break;
        }
        if (len) {
            app_run_search(a);
            if (a->n_matches)
                app_step_match(a, 1);
        }
        a->events_follow = true;        /* the event pane shows the match */
        break;
    case ACTION_ERASE_CHAR:
        while (len > 0 && ((unsigned char)a->query[len - 1] & 0xc0) == 0x80)
            len--;
        if (len > 0)
            len--;
        a->query[len] = '\0';
        break;
    case ACTION_ERASE_LINE: a->query[0] = '\0'; break;
    case ACTION_CLOSE:
        a->mode = back;
        a->prompt_filter = false;
        break;
    case ACTION_REDRAW: a->redraw = true; break;
    case ACTION_QUIT: a->quit = true; break;
    case ACTION_NONE: {
        const char *text = keymap_key_text(key);
        size_t k = text ? strlen(text) : 0;
        if (text && len + k < sizeof a->query)
            memcpy(a->query + len, text, k + 1);
        break;
    }
    default: break;
    }
}

static void
app_events_action(app *a, enum keymap_action act)
{
    int page = a->lay.pane_rows > 3 ? a->lay.pane_rows - 2 : 1;
    uint64_t t;
    switch (act) {
    case ACTION_LINE_UP: eventpane_scroll(a->events, -1); app_follow_pane(a); break;
    case ACTION_LINE_DOWN: eventpane_scroll(a->events, 1); app_follow_pane(a); break;
    case ACTION_PAGE_UP: eventpane_scroll(a->events, -page); app_follow_pane(a); break;
    case ACTION_PAGE_DOWN: eventpane_scroll(a->events, page); app_follow_pane(a); break;
    case ACTION_FIRST: eventpane_first(a->events); app_follow_pane(a); break;
    case ACTION_LAST: eventpane_last(a->events); app_follow_pane(a); break;
    case ACTION_FILTER_TEXT: app_open_filter(a); break;
    case ACTION_FILTER_TYPE: app_evtype_list(a); break;
    case ACTION_COPY_COMMAND: app_command_list(a); break;
    case ACTION_GOTO_EVENT:
    case ACTION_CHOOSE:
        if (eventpane_selected_time(a->events, &t)) {
            timeview_set_cursor(&a->v, t);
            a->events_follow = true;
        }
        break;
    case ACTION_FOCUS_NEXT:
    case ACTION_CLOSE: a->mode = MODE_TIMELINE; break;
    case ACTION_SEARCH: app_open_search(a); break;
    case ACTION_NEXT_MARKER:
    case ACTION_PREV_MARKER:
        app_step_marker_or_match(a, act == ACTION_NEXT_MARKER ? 1 : -1);
        a->events_follow = true;
        break;
    case ACTION_CANCEL:
        /* The pane's filters go first, then what Escape clears on the timeline. */
        if (eventpane_filter_type(a->events) >= 0 || eventpane_filter_text(a->events)[0])
            app_refilter(a, -1, "");
        else
            app_cancel(a);
        break;
    case ACTION_TOGGLE_EVENTS:
        a->events_on = false;
        a->mode = MODE_TIMELINE;
        break;
    case ACTION_REDRAW: a->redraw = true; break;
    case ACTION_QUIT: a->quit = true; break;
    case ACTION_HELP:
        a->mode = MODE_HELP;
        a->help_scroll = 0;
        break;
    default: break;
    }
}

void
app_key(app *a, const char *key)
{
    enum keymap_mode mode = a->mode;
    enum keymap_action act = keymap_lookup_in(a->opts.keys, mode, key);
    if (act == ACTION_SUSPEND) {
        a->suspend = true;      /* the terminal loop acts on it (app_take_suspend) */
        return;
    }
    if (mode == MODE_TIMELINE && act != ACTION_NEXT_MARKER && act != ACTION_PREV_MARKER &&
        act != ACTION_NONE)
        a->msg_sticky = false;
    switch (mode) {
    case MODE_TIMELINE: app_timeline_action(a, act); break;
    case MODE_LIST: app_list_action(a, act, key); break;
    case MODE_SEARCH: app_search_action(a, act, key); break;
    case MODE_EVENTS:
        app_events_action(a, act);
        break;
    case MODE_HELP:
        if (act == ACTION_LINE_DOWN)
            a->help_scroll++;
        else if (act == ACTION_LINE_UP && a->help_scroll > 0)
            a->help_scroll--;
        else if (act == ACTION_PAGE_DOWN)
            a->help_scroll += a->lines > 4 ? a->lines - 4 : 1;
        else if (act == ACTION_PAGE_UP)
            a->help_scroll = a->help_scroll > a->lines - 4 ? a->help_scroll - (a->lines - 4) : 0;
        else if (act == ACTION_QUIT)
            a->quit = true;
        else if (act == ACTION_REDRAW)
            a->redraw = true;
        else if (act != ACTION_NONE)
            a->mode = MODE_TIMELINE;
        break;
    case MODE_MMU: app_gc_mmu_action(a, act); break;
    default: a->mode = MODE_TIMELINE; break;
    }
    if (a->mode != MODE_EVENTS)
        a->events_follow = true;
}

/* Which lane a screen line shows, or SIZE_MAX. */
static size_t
app_lane_at_line(const app *a, int line)
{
    int r = line - a->lay.lanes_line;
    if (r < 0 || r >= a->lay.lanes_rows)
        return SIZE_MAX;
    lanes_draw_opts o = { .hec_split = a->hec_split };
    for (size_t li = a->first_lane; li < a->n_lanes; li++) {
        r -= lanes_rows(&a->lanes[li], &o);
        if (r < 0)
            return li;
    }
    return SIZE_MAX;
}

void
app_mouse(app *a, const termio_event *ev)
{
    if (a->mode != MODE_TIMELINE)
        return;
    int col = ev->col - LANES_LABEL_COLS;
    bool in_plot = col >= 0 && col < a->v.width && ev->line >= a->lay.axis &&
                   ev->line < a->lay.pane_line;
    switch (ev->action) {
    case TERMIO_MOUSE_WHEEL_UP:
    case TERMIO_MOUSE_WHEEL_DOWN: {
        uint64_t at = in_plot ? timeview_hit_test(&a->v, col) : a->v.cursor_ns;
        timeview_zoom(&a->v, ev->action == TERMIO_MOUSE_WHEEL_UP ? 0.5 : 2.0, at);
        break;
    }
    case TERMIO_MOUSE_PRESS:
        if (!in_plot || ev->button != 1)
            break;
        timeview_set_cursor(&a->v, timeview_hit_test(&a->v, col));
        size_t li = app_lane_at_line(a, ev->line);
        if (li != SIZE_MAX)
            a->lane_sel = li;
        a->drag_col = col;
        a->dragging = true;
        a->msg_sticky = false;
        break;
    case TERMIO_MOUSE_DRAG:
        /* As in an editor: the selection runs from where the button went down to the
         * cursor, which follows the pointer and stays where the drag ends. */
        if (!a->dragging)
            break;
        if (col < 0)
            col = 0;
        if (col >= a->v.width)
            col = a->v.width - 1;
        if (!a->drag_selecting && col != a->drag_col) {
            timeview_select_start(&a->v, a->v.cursor_ns);
            a->drag_selecting = true;
        }
        if (a->drag_selecting)
            timeview_set_cursor(&a->v, timeview_hit_test(&a->v, col));
        break;
    case TERMIO_MOUSE_RELEASE:
        if (a->drag_selecting) {
            col = col < 0 ? 0 : col >= a->v.width ? a->v.width - 1 : col;
            timeview_set_cursor(&a->v, timeview_hit_test(&a->v, col));
            timeview_select_end(&a->v);
        }
        a->dragging = a->drag_selecting = false;
        break;
    default: break;
    }
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

app *
app_new(const evindex *ix, const char *path, int cols, int lines, const app_opts *o)
{
    app *a = xcalloc(1, sizeof *a);   /* caller frees: app_free */
    a->ix = ix;
    a->lanes_memo = lanes_memo_new();
    if (o)
        a->opts = *o;
    const char *base = strrchr(path, '/');
    if (a->opts.notice && a->opts.notice[0])
        snprintf(a->name, sizeof a->name, "%s [%s]", base ? base + 1 : path, a->opts.notice);
    else
        snprintf(a->name, sizeof a->name, "%s", base ? base + 1 : path);
    a->opts.notice = NULL;      /* borrowed only for this */
    if (a->opts.startup_msg && a->opts.startup_msg[0])
        app_msg(a, "%s", a->opts.startup_msg);
    a->opts.startup_msg = NULL; /* likewise */
    a->cols = cols;
    a->lines = lines;
    a->mode = MODE_TIMELINE;
    app_build_lanes(a);
    for (size_t i = 0; i < a->n_lanes; i++)
        if (a->lanes[i].kind == LANE_HEC && a->lane_sel == 0 && a->lanes[0].kind != LANE_HEC)
            a->lane_sel = i;    /* start on the first HEC */
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    int plot = cols - LANES_LABEL_COLS;
    timeview_init(&a->v, first, last > first ? last : first, plot > 0 ? plot : 1);
    a->events = eventpane_new(ix);
    a->path = xstrdup(path);
    strbuf_init(&a->clip);
    a->events_follow = true;
    strbuf_init(&a->status);
    app_relayout(a);
    a->thread_memo.lazy = a->opts.async_totals;
    app_start_totals(a);
    return a;
}

void
app_free(app *a)
{
    if (!a)
        return;
    threadstats_mark_free(&a->live_mark);
    uilist_free(a->list);
    eventpane_free(a->events);
    app_gc_free(a);
    app_two_free(a);
    x_free(a->lanes);
    x_free(a->matches);
    app_focus_clear(a);
    app_free_commands(a);
    x_free(a->path);
    strbuf_free(&a->clip);
    atomic_store(&a->totals_cancel, true);
    app_wait_totals(a);
    app_bins_stop(a);
    threadstats_brief_free(&a->brief);
    x_free(a->thread_memo.rows);
    x_free(a->thread_order);
    x_free(a->top_order);
    x_free(a->totals_top);
    lanes_memo_free(a->lanes_memo);
    x_free(a->gc_order);
    x_free(a->gc_hist);
    strbuf_free(&a->status);
    x_free(a);
}

void
app_follow_now(app *a)
{
    timeview *v = &a->v;
    uint64_t span = v->t1_ns - v->t0_ns, end = v->log_end_ns + 1;
    uint64_t start = end - v->log_start_ns > span ? end - span : v->log_start_ns;
    timeview_zoom_to(v, start, end);
    if (v->cursor_ns < v->t0_ns || v->cursor_ns >= v->t1_ns)
        timeview_set_cursor(v, v->log_end_ns);
}

/* The marker or GC list open over the old index, made again over the new one with
 * what was typed into its filter and the same item selected. */
static void
app_list_again(app *a, enum app_list_kind kind, const char *filter, bool had_sel,
               uint64_t sel)
{
    int rows = a->list_rows;
    if (kind == APP_LIST_MARKERS)
        app_marker_list(a);
    else
        app_gc_list(a);
    a->list_rows = rows;
    if (filter[0])
        uilist_filter_append(a->list, filter);
    if (had_sel)
        uilist_select_payload(a->list, sel);
}

void
app_swap_index(app *a, const evindex *ix)
{
    /* An open marker or GC list is made again below (the thread list waits for the
     * totals, so applive does not swap while it is open). */
    bool relist = a->mode == MODE_LIST && a->list && a->list_kind != APP_LIST_THREADS;
    enum app_list_kind kind = a->list_kind;
    char filter[256] = "";
    uint64_t sel = 0;
    bool had_sel = false;
    if (relist) {
        snprintf(filter, sizeof filter, "%s", uilist_filter(a->list));
        had_sel = uilist_selected(a->list, &sel);
        uilist_free(a->list);
        a->list = NULL;
    }
    atomic_store(&a->totals_cancel, true);
    app_wait_totals(a);
    app_bins_stop(a);
    a->bins_done = false;       /* made again for a new index (not for a live one) */
    /* The same index grown (a live log): the totals so far are carried forward over the
     * runs added, not counted again. */
    bool carried = a->live && ix == a->ix && a->thread_memo.rows && a->live_mark.valid;
    if (carried)
        a->thread_memo.rows = threadstats_extend(ix, a->thread_memo.rows, &a->live_mark);
    else
        x_free(a->thread_memo.rows);
    if (!carried)
        a->thread_memo.rows = NULL;
    a->thread_memo.wanted = false;
    if (a->live)
        threadstats_mark_take(ix, &a->live_mark);
    threadstats_brief_free(&a->brief);
    x_free(a->thread_order);
    a->thread_order = NULL;
    x_free(a->top_order);
    a->top_order = NULL;
    a->n_top = 0;
    /* The GC list's ranking and histogram: of the new index's collections. */
    x_free(a->gc_order);
    a->gc_order = NULL;
    x_free(a->gc_hist);
    a->gc_hist = NULL;
    /* A focused thread is gathered again from a new index (the old one may go), but
     * over the same index grown (a live log) its life is extended by what was added. */
    bool extend = a->live && ix == a->ix && a->focus && !a->focus_running;
    bool refocus = !extend && (a->focus || a->focus_running);
    uint32_t focus_tid = a->focus_tid;
    if (!extend)
        app_focus_clear(a);
    a->ix = ix;
    if (extend)
        app_focus_extend(a);
    if (refocus)
        app_focus_gather(a, focus_tid);
    /* Lanes: the same selection (caps only ever come, in order). */
    app_build_lanes(a);
    if (a->lane_sel >= a->n_lanes)
        a->lane_sel = a->n_lanes ? a->n_lanes - 1 : 0;
    if (a->first_lane >= a->n_lanes)
        a->first_lane = 0;
    eventpane_free(a->events);
    a->events = eventpane_new(ix);
    /* The view over the longer log: where it was, or at the new end while following. */
    timeview old = a->v;
    uint64_t first = evindex_first_ns(ix), last = evindex_last_ns(ix);
    timeview_init(&a->v, first, last > first ? last : first, old.width);
    if (old.t1_ns > old.t0_ns && old.t0_ns >= a->v.log_start_ns)
        timeview_zoom_to(&a->v, old.t0_ns, old.t1_ns);
    if (old.cursor_ns >= a->v.log_start_ns && old.cursor_ns <= a->v.log_end_ns)
        timeview_set_cursor(&a->v, old.cursor_ns);
    if (a->live_follow)
        app_follow_now(a);
    if (a->search_on && a->query[0]) {
        char keep[sizeof a->msg];
        bool sticky = a->msg_sticky;
        memcpy(keep, a->msg, sizeof keep);
        app_run_search(a);
        memcpy(a->msg, keep, sizeof keep);  /* no new "N matches" line every second */
        a->msg_sticky = sticky;
    } else {
        x_free(a->matches);
        a->matches = NULL;
        a->n_matches = 0;
    }
    app_relayout(a);
    if (!a->thread_memo.rows)
        app_start_totals(a);
    if (relist)
        app_list_again(a, kind, filter, had_sel, sel);
}

void
app_resize(app *a, int cols, int lines)
{
    a->cols = cols > 0 ? cols : 1;
    a->lines = lines > 0 ? lines : 1;
    app_relayout(a);
}

bool app_quit_requested(const app *a) { return a->quit; }
timeview *app_view(app *a) { return &a->v; }

bool
app_take_suspend(app *a)
{
    bool r = a->suspend;
    a->suspend = false;
    return r;
}

bool
app_take_redraw(app *a)
{
    bool r = a->redraw;
    a->redraw = false;
    return r;
}

const char *
app_status(const app *a)
{
    return a->status.len ? a->status.data : "";
}
