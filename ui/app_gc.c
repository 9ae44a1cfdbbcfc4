/* app_gc: the viewer's GC analysis — the MMU curve as a plot (`u`: block characters over
 * a log-scaled window axis, for the whole log or the selection; Enter jumps to the worst
 * window of the chosen length), the worst windows as a list to jump from (`W`), and the
 * small pause histogram drawn above the collection list (`p`). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "app_int.h"
#include "gcreport.h"
#include "mmu.h"
#include "mmusrc.h"
#include "pausehist.h"
#include "radixsort.h"
#include "theme.h"
#include "timefmt.h"
#include "uibox.h"
#include "xalloc.h"

#define APP_GC_MAX_POINTS 64
#define APP_GC_DEFAULT_WINDOW_NS 10000000ull   /* W before any plot: 10 ms */
#define APP_GC_WORST_TOP 50

struct app_gc {
    mmu *m;                     /* owned; the plot's range; read-only while the worker runs */
    bool selection;             /* the range is the selection, not the whole log */
    size_t n_target;            /* window lengths wanted, ascending on a log scale */
    uint64_t target[APP_GC_MAX_POINTS];
    /* Points computed: pts[0 .. n) (n = n_ready, published by the worker after each). In
     * the interactive loop (opts.async_totals) a worker thread computes them, so a log
     * of a million collections never holds the keys up; elsewhere they are made at once. */
    mmu_point pts[APP_GC_MAX_POINTS];
    size_t n;                   /* what the last frame or key saw of n_ready */
    atomic_size_t n_ready;
    atomic_bool cancel;
    bool running;               /* th was started and not yet joined */
    pthread_t th;
    size_t sel;                 /* the chosen point */
    uint64_t worst_window_ns;   /* the length the worst list was made for */
    mmu_point worst[APP_GC_WORST_TOP];
    size_t n_worst;
};

/* Stop and join the worker, if one runs. */
static void
app_gc_stop(app_gc *g)
{
    if (!g->running)
        return;
    atomic_store(&g->cancel, true);
    pthread_join(g->th, NULL);
    g->running = false;
}

static void *
app_gc_worker(void *arg)
{
    app_gc *g = arg;
    for (size_t i = atomic_load(&g->n_ready); i < g->n_target; i++) {
        if (atomic_load(&g->cancel))
            break;
        g->pts[i] = mmu_at(g->m, g->target[i]);
        atomic_store_explicit(&g->n_ready, i + 1, memory_order_release);
    }
    return NULL;
}

void
app_gc_free(app *a)
{
    if (!a->gc)
        return;
    app_gc_stop(a->gc);
    mmu_free(a->gc->m);
    x_free(a->gc);
    a->gc = NULL;
}

static app_gc *
app_gc_state(app *a)
{
    if (!a->gc)
        a->gc = xcalloc(1, sizeof *a->gc);     /* owned by the app: app_gc_free */
    return a->gc;
}

/* The range the plot and the list look at: the selection, else the whole log. */
static void
app_gc_range(const app *a, uint64_t *from, uint64_t *to, bool *selection)
{
    *selection = timeview_has_selection(&a->v);
    if (*selection) {
        *from = a->v.sel.a_ns;
        *to = a->v.sel.b_ns;
    } else {
        *from = evindex_first_ns(a->ix);
        *to = evindex_last_ns(a->ix);
    }
}

/* A fresh mmu of the current range in g->m. */
static void
app_gc_make_mmu(app *a, app_gc *g)
{
    uint64_t from, to;
    app_gc_range(a, &from, &to, &g->selection);
    app_gc_stop(g);
    mmu_free(g->m);
    mmusrc_opts o = { 0 };
    g->m = mmusrc_new(a->ix, &o, from, to);
}

/* Window lengths from the curve's first (mmu_curve_windows) to the whole range, evenly
 * spaced on a log scale, every 1-2-5 length of the curve among them; then their points,
 * at once or (async) on a worker thread. */
static void
app_gc_points(app_gc *g, bool async)
{
    uint64_t ws[96];
    size_t nw = mmu_curve_windows(g->m, ws, 96);
    g->n_target = 0;
    g->n = 0;
    atomic_store(&g->n_ready, 0);
    atomic_store(&g->cancel, false);
    if (!nw)
        return;
    uint64_t lo = ws[0], hi = ws[nw - 1];
    size_t want = APP_GC_MAX_POINTS;
    double span = log((double)hi / (double)lo);
    uint64_t prev = 0;
    for (size_t i = 0; i < want; i++) {
        double f = want > 1 ? (double)i / (double)(want - 1) : 0.0;
        uint64_t w = (uint64_t)llround((double)lo * exp(span * f));
        /* Snap to a 1-2-5 length of the curve when one is this close (the table and
         * the plot then agree to the digit). */
        for (size_t k = 0; k < nw; k++)
            if (fabs(log((double)ws[k] / (double)w)) < span / (double)(want - 1) / 2.0)
                w = ws[k];
        if (i == want - 1)
            w = hi;
        if (w <= prev)
            continue;
        g->target[g->n_target++] = w;
        prev = w;
    }
    /* Start on 10 ms when the curve has it, else the middle. */
    g->sel = g->n_target / 2;
    for (size_t i = 0; i < g->n_target; i++)
        if (g->target[i] == APP_GC_DEFAULT_WINDOW_NS)
            g->sel = i;
    if (async && pthread_create(&g->th, NULL, app_gc_worker, g) == 0) {
        g->running = true;
        return;
    }
    app_gc_worker(g);           /* no thread wanted, or none to be had: now */
    g->n = atomic_load(&g->n_ready);
}

bool
app_gc_poll(app *a)
{
    app_gc *g = a->gc;
    if (!g)
        return false;
    size_t n = atomic_load_explicit(&g->n_ready, memory_order_acquire);
    if (g->running && n == g->n_target) {
        pthread_join(g->th, NULL);
        g->running = false;
    }
    if (n == g->n)
        return false;
    g->n = n;
    return a->mode == MODE_MMU;
}

bool
app_gc_pending(const app *a)
{
    return a->gc && a->gc->running;
}

void
app_gc_open_mmu(app *a)
{
    app_gc *g = app_gc_state(a);
    app_gc_make_mmu(a, g);
    app_gc_points(g, a->opts.async_totals);
    if (!g->n_target) {
        app_gc_free(a);
        snprintf(a->msg, sizeof a->msg, "no MMU curve: the range is empty");
        a->msg_sticky = true;
        return;
    }
    a->mode = MODE_MMU;
}

/* Select [t, t + w) and show it with a quarter of its length either side. */
static void
app_gc_show_window(app *a, uint64_t t, uint64_t w)
{
    uint64_t pad = w / 4 + 1;
    timeview_zoom_to(&a->v, t > pad ? t - pad : 0, t + w + pad);
    timeview_set_cursor(&a->v, t + w);
    timeview_select_start(&a->v, t);
    timeview_select_end(&a->v);
    timeview_set_cursor(&a->v, t);
}

static void
app_gc_jump(app *a, const mmu_point *p, const char *what)
{
    uint64_t end = p->worst_start_ns + p->window_ns;
    if (a->gc && end > mmu_to_ns(a->gc->m))
        end = mmu_to_ns(a->gc->m);
    app_gc_show_window(a, p->worst_start_ns, end - p->worst_start_ns);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s: mutator %.2f%%, stopped ", what, 100.0 * p->mmu);
    timefmt_append(&sb, p->paused_ns);
    strbuf_puts(&sb, " (selected; W lists the worst windows of this length)");
    snprintf(a->msg, sizeof a->msg, "%.*s", (int)sb.len, sb.data);
    a->msg_sticky = true;
    strbuf_free(&sb);
}

/* The worst-window list for length w: rows "rank  start .. end  mutator  stopped". */
static void
app_gc_worst_list(app *a, uint64_t w)
{
    app_gc *g = app_gc_state(a);
    if (!g->m)
        app_gc_make_mmu(a, g);
    g->worst_window_ns = w;
    g->n_worst = mmu_worst(g->m, w, APP_GC_WORST_TOP, g->worst);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "worst ");
    timefmt_append(&sb, w);
    strbuf_puts(&sb, " windows");
    if (g->selection)
        strbuf_puts(&sb, " of the selection");
    strbuf_putc(&sb, '\0');
    uilist *l = uilist_new(sb.data);
    uilist_set_columns_header(l, "  #  window                            mutator  stopped   GCs");
    uilist_set_empty_text(l, "no window holds any GC pause");
    for (size_t i = 0; i < g->n_worst; i++) {
        const mmu_point *p = &g->worst[i];
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%3zu  ", i + 1);
        size_t col = sb.len;
        timefmt_append_res(&sb, p->worst_start_ns, 1000);
        strbuf_puts(&sb, " .. ");
        timefmt_append_res(&sb, p->worst_start_ns + p->window_ns, 1000);
        while (sb.len < col + 34)
            strbuf_putc(&sb, ' ');
        strbuf_printf(&sb, "%6.2f%%  ", 100.0 * p->mmu);
        col = sb.len;
        timefmt_append(&sb, p->paused_ns);
        while (sb.len < col + 10)
            strbuf_putc(&sb, ' ');
        size_t i0, i1, n_in = 0;
        gcreport_gcs_in(a->ix, false, p->worst_start_ns, p->worst_start_ns + p->window_ns, &i0,
                        &i1);
        for (size_t k = i0; k < i1; k++) {
            evindex_gc c_buf;
            const evindex_gc *c = evindex_gc_get(a->ix, k, &c_buf);
            n_in += !(c->flags & EVINDEX_GC_F_NO_START) && c->start_ns <
                    p->worst_start_ns + p->window_ns && c->end_ns > p->worst_start_ns;
        }
        strbuf_printf(&sb, "%zu", n_in);
        strbuf_putc(&sb, '\0');
        uilist_add(l, sb.data, i);
    }
    strbuf_free(&sb);
    app_open_list(a, l, APP_LIST_WORST);
}

void
app_gc_open_worst(app *a)
{
    /* The plot's chosen length, else 10 ms; the range as the plot would take it. */
    uint64_t w = APP_GC_DEFAULT_WINDOW_NS;
    if (a->gc && a->gc->n_target && a->mode == MODE_MMU) {
        w = a->gc->target[a->gc->sel];
    } else {
        app_gc *g = app_gc_state(a);
        app_gc_make_mmu(a, g);
        if (a->gc->worst_window_ns)
            w = a->gc->worst_window_ns;
    }
    app_gc_worst_list(a, w);
}

void
app_gc_choose_worst(app *a, uint64_t payload)
{
    if (!a->gc || payload >= a->gc->n_worst)
        return;
    char what[64];
    snprintf(what, sizeof what, "worst window #%llu", (unsigned long long)payload + 1);
    app_gc_jump(a, &a->gc->worst[payload], what);
}

void
app_gc_mmu_action(app *a, enum keymap_action act)
{
    app_gc *g = a->gc;
    if (!g || !g->n_target) {
        a->mode = MODE_TIMELINE;
        return;
    }
    g->n = atomic_load_explicit(&g->n_ready, memory_order_acquire);
    switch (act) {
    case ACTION_SHORTER_WINDOW:
        if (g->sel > 0)
            g->sel--;
        break;
    case ACTION_LONGER_WINDOW:
        if (g->sel + 1 < g->n_target)
            g->sel++;
        break;
    case ACTION_CHOOSE: {
        if (g->sel >= g->n)
            break;              /* not computed yet: the plot says so */
        mmu_point p = g->pts[g->sel];
        a->mode = MODE_TIMELINE;
        strbuf what;
        strbuf_init(&what);
        strbuf_puts(&what, "worst ");
        timefmt_append(&what, p.window_ns);
        strbuf_puts(&what, " window");
        app_gc_jump(a, &p, what.data);
        strbuf_free(&what);
        break;
    }
    case ACTION_WORST_LIST: app_gc_open_worst(a); break;
    case ACTION_CLOSE: a->mode = MODE_TIMELINE; break;
    case ACTION_REDRAW: a->redraw = true; break;
    case ACTION_QUIT: a->quit = true; break;
    default: break;
    }
}

/* ---- drawing ------------------------------------------------------------------------------ */

static void
app_gc_text(surface *s, int col, int line, const strbuf *sb, uint8_t style, int max_cols)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s", (int)sb->len, sb->data);
    uibox_text(s, col, line, buf, style, max_cols);
}

/* A short window length label: "10us", "1ms", "2.5s". */
static void
app_gc_len(strbuf *sb, uint64_t ns)
{
    static const struct {
        uint64_t ns;
        const char *unit;
    } units[] = { { 1000000000ull, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" } };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ns >= units[i].ns) {
            double v = (double)ns / (double)units[i].ns;
            strbuf_printf(sb, v < 10 && ns % units[i].ns ? "%.1f%s" : "%.0f%s", v,
                          units[i].unit);
            return;
        }
    strbuf_puts(sb, "0ns");
}

void
app_gc_draw_mmu(app *a, surface *s, int col, int line, int cols, int lines)
{
    app_gc *g = a->gc;
    if (!g || !g->n_target)
        return;
    g->n = atomic_load_explicit(&g->n_ready, memory_order_acquire);
    uibox_frame(s, col, line, cols, lines, a->opts.ascii, STYLE_POPUP_TITLE, STYLE_POPUP);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "minimum mutator utilisation: ");
    if (g->selection) {
        strbuf_puts(&sb, "selection ");
        timefmt_append_res(&sb, mmu_from_ns(g->m), 1000);
        strbuf_puts(&sb, " .. ");
        timefmt_append_res(&sb, mmu_to_ns(g->m), 1000);
    } else {
        strbuf_puts(&sb, "whole log");
    }
    strbuf_putc(&sb, '\0');
    uibox_labels(s, col, line, cols, sb.data, STYLE_POPUP_TITLE, NULL, STYLE_POPUP);
    int inner_c = col + 1, inner_w = cols - 2, inner_l = line + 1, inner_h = lines - 2;
    if (inner_w < 12 || inner_h < 6) {
        strbuf_free(&sb);
        return;
    }
    /* Row 0: the chosen point, or how far the worker has got. */
    strbuf_reset(&sb);
    strbuf_puts(&sb, " window ");
    timefmt_append(&sb, g->target[g->sel]);
    if (g->sel < g->n) {
        const mmu_point *p = &g->pts[g->sel];
        strbuf_printf(&sb, ": MMU %.2f%%, worst window from ", 100.0 * p->mmu);
        timefmt_append_res(&sb, p->worst_start_ns, 1);
        strbuf_puts(&sb, " (stopped ");
        timefmt_append(&sb, p->paused_ns);
        strbuf_putc(&sb, ')');
    } else {
        strbuf_printf(&sb, ": computing, %zu of %zu window lengths done\u2026", g->n,
                      g->n_target);
    }
    app_gc_text(s, inner_c, inner_l, &sb, STYLE_POPUP, inner_w);
    /* Rows 1 .. plot_h: the bars; then the window axis and the key hint. */
    int ylab = 5;
    int plot_h = inner_h - 4;
    int plot_w = inner_w - ylab - 1;
    int top = inner_l + 1;
    if (plot_h < 2 || plot_w < 4) {
        strbuf_free(&sb);
        return;
    }
    static const char *const yl[3] = { "100%", " 50%", "  0%" };
    uibox_text(s, inner_c, top, yl[0], STYLE_AXIS_LABEL, ylab);
    uibox_text(s, inner_c, top + (plot_h - 1) / 2, yl[1], STYLE_AXIS_LABEL, ylab);
    uibox_text(s, inner_c, top + plot_h - 1, yl[2], STYLE_AXIS_LABEL, ylab);
    int x0 = inner_c + ylab;
    for (int r = 0; r < plot_h; r++)
        surface_put(s, x0, top + r, a->opts.ascii ? '|' : 0x2502, STYLE_AXIS);
    x0++;
    /* Each point owns the columns [c0, c1) of the plot width. */
    static const uint32_t eighths[8] = { 0x2581, 0x2582, 0x2583, 0x2584,
                                         0x2585, 0x2586, 0x2587, 0x2588 };
    size_t nt = g->n_target;
    for (size_t i = 0; i < g->n; i++) {
        int c0 = (int)((size_t)plot_w * i / nt), c1 = (int)((size_t)plot_w * (i + 1) / nt);
        if (c1 <= c0)
            continue;
        double h8 = g->pts[i].mmu * (double)plot_h * 8.0;
        long full = lround(floor(h8 / 8.0));
        int part = (int)lround(h8 - (double)full * 8.0);
        if (part == 8) {
            full++;
            part = 0;
        }
        uint8_t style = i == g->sel ? STYLE_CURSOR : STYLE_RUNNING;
        for (int c = c0; c < c1; c++) {
            for (int r = 0; r < plot_h; r++) {
                int from_bottom = plot_h - 1 - r;
                uint32_t cp = ' ';
                if (from_bottom < full)
                    cp = a->opts.ascii ? '#' : 0x2588;
                else if (from_bottom == full && part > 0)
                    cp = a->opts.ascii ? (part >= 4 ? '#' : '.') : eighths[part - 1];
                else if (from_bottom == 0 && full == 0 && part == 0)
                    cp = '_';           /* MMU 0: a floor mark, so the column is seen */
                surface_put(s, x0 + c, top + r, cp, cp == ' ' && i == g->sel ? STYLE_SELECTION
                                                                              : style);
            }
        }
    }
    /* Window axis: a label at each power of ten, placed at its log position. */
    int axis = top + plot_h;
    surface_fill(s, x0, axis, plot_w, a->opts.ascii ? '-' : 0x2500, STYLE_AXIS);
    uint64_t w_lo = g->target[0], w_hi = g->target[nt - 1];
    double lo = log((double)w_lo), hi = log((double)w_hi);
    int last_end = -1;
    for (uint64_t d = 1; d && d <= w_hi; d = d > UINT64_MAX / 10 ? 0 : d * 10) {
        if (d < w_lo)
            continue;
        int c = hi > lo ? (int)lround((log((double)d) - lo) / (hi - lo) * (plot_w - 1)) : 0;
        strbuf_reset(&sb);
        app_gc_len(&sb, d);
        int w = (int)sb.len;
        if (c <= last_end || c + w > plot_w)
            continue;
        surface_put(s, x0 + c, axis, a->opts.ascii ? '+' : 0x253c, STYLE_AXIS);
        app_gc_text(s, x0 + c, axis + 1, &sb, STYLE_AXIS_LABEL, w);
        last_end = c + w;
    }
    /* The chosen point: a mark on the axis under its bar. */
    {
        int c0 = (int)((size_t)plot_w * g->sel / nt);
        int c1 = (int)((size_t)plot_w * (g->sel + 1) / nt);
        for (int c = c0; c < (c1 > c0 ? c1 : c0 + 1) && c < plot_w; c++)
            surface_put(s, x0 + c, axis, a->opts.ascii ? '^' : 0x25b2, STYLE_CURSOR);
    }
    strbuf_reset(&sb);
    strbuf_puts(&sb, "window length (log scale)");
    if ((int)sb.len + 2 < plot_w - last_end)
        app_gc_text(s, x0 + plot_w - (int)sb.len, axis + 1, &sb, STYLE_AXIS_LABEL, plot_w);
    strbuf_reset(&sb);
    strbuf_puts(&sb, a->opts.ascii ? " Left/Right" : " \u2190/\u2192");
    strbuf_puts(&sb, " window length \u00b7 Enter: its worst window \u00b7 W: worst "
                     "windows list \u00b7 Esc: close");
    app_gc_text(s, inner_c, inner_l + inner_h - 1, &sb, STYLE_POPUP, inner_w);
    strbuf_free(&sb);
}

void
app_gc_rank(app *a)
{
    if (a->gc_order && a->gc_hist)
        return;
    size_t n = evindex_n_gcs(a->ix);
    uint64_t *pause = xmalloc((n + 1) * sizeof *pause);    /* freed below */
    pausehist *h = xmalloc(sizeof *h);                      /* owned by a */
    /* The histogram as pausehist_from_index over the whole log makes it. */
    pausehist_init(h, evindex_n_gens(a->ix));
    bool counting = true;
    for (size_t i = 0; i < n; i++) {
        evindex_gc_brief g = evindex_gc_brief_at(a->ix, i);
        pause[i] = g.end_ns - g.start_ns;
        counting = counting && g.start_ns < UINT64_MAX;
        if (counting && !(g.flags & EVINDEX_GC_F_NO_START))
            pausehist_add(h, g.gen == EVINDEX_GEN_UNKNOWN ? PAUSEHIST_MAX_GENS : g.gen,
                          pause[i]);
    }
    x_free(a->gc_order);
    a->gc_order = radixsort_rank_desc(pause, n);
    x_free(pause);
    x_free(a->gc_hist);
    a->gc_hist = h;
}

int
app_gc_draw_hist(app *a, surface *s, int col, int line, int cols, int max_lines)
{
    app_gc_rank(a);
    const pausehist *h = a->gc_hist;
    unsigned first = 0, last = 0;
    if (!pausehist_range(h, &first, &last))
        return 0;
    int lines = (int)h->n_gens + 3;
    if (lines > max_lines - 5 || cols < 30)
        return 0;               /* the list needs the room more */
    uibox_frame(s, col, line, cols, lines, a->opts.ascii, STYLE_POPUP_TITLE, STYLE_POPUP);
    uibox_labels(s, col, line, cols, "pauses by length, powers of two from 1us", STYLE_POPUP_TITLE,
                 NULL, STYLE_POPUP);
    strbuf sb;
    strbuf_init(&sb);
    /* The bucket axis: lowest bound under the first bucket, highest after the last. */
    int spark_col = 18;
    strbuf_puts(&sb, " gen  pauses");
    while (sb.len < (size_t)spark_col)
        strbuf_putc(&sb, ' ');
    pausehist_bound(&sb, pausehist_bucket_lo(first));
    strbuf_puts(&sb, first == last || a->opts.ascii ? " .. " : " \u2192 ");
    pausehist_bound(&sb, pausehist_bucket_hi(last));
    app_gc_text(s, col + 1, line + 1, &sb, STYLE_POPUP, cols - 2);
    for (unsigned gen = 0; gen < h->n_gens; gen++) {
        const pausehist_gen *g = &h->gens[gen];
        strbuf_reset(&sb);
        strbuf_printf(&sb, " %-4u %6llu", gen, (unsigned long long)g->n);
        while (sb.len < (size_t)spark_col)
            strbuf_putc(&sb, ' ');
        pausehist_spark(&sb, g, first, last);
        unsigned most = first;
        for (unsigned b = first; b <= last; b++)
            if (g->count[b] > g->count[most])
                most = b;
        if (g->n) {
            strbuf_puts(&sb, "  most ");
            pausehist_bound(&sb, pausehist_bucket_lo(most));
            strbuf_puts(&sb, "..");
            pausehist_bound(&sb, pausehist_bucket_hi(most));
            strbuf_printf(&sb, " (%llu)", (unsigned long long)g->count[most]);
        }
        app_gc_text(s, col + 1, line + 2 + (int)gen, &sb, STYLE_POPUP, cols - 2);
    }
    strbuf_free(&sb);
    return lines;
}
