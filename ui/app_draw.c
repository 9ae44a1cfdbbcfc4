/* app_draw: the frame — header, time axis, lanes, the detail or event pane, the status
 * line, and the popup (list, help, search prompt) on top — drawn from the app's
 * state into a surface. The same frame serves the terminal and `snapshot`. */
#include <stdio.h>
#include <string.h>

#include "app_int.h"
#include "axis.h"
#include "detail.h"
#include "helpview.h"
#include "instants.h"
#include "lifeview.h"
#include "textfmt.h"
#include "theme.h"
#include "timefmt.h"

#define APP_MAX_TICKS 256

/* Text cut to `cols` columns, ending in "…" ("..." with ascii) when it does not fit. */
static void
draw_text_cut(surface *s, int col, int line, const char *utf8, uint8_t style, int cols,
              bool ascii)
{
    int n = surface_text_cols(utf8);
    if (n <= cols) {
        surface_text(s, col, line, utf8, style, cols);
        return;
    }
    const char *mark = ascii ? "..." : "\u2026";
    int mark_cols = surface_text_cols(mark);
    if (cols < mark_cols) {
        surface_text(s, col, line, utf8, style, cols);
        return;
    }
    int used = surface_text(s, col, line, utf8, style, cols - mark_cols);
    surface_text(s, col + used, line, mark, style, mark_cols);
}

static void
draw_header(const app *a, surface *s)
{
    surface_fill(s, 0, a->lay.header, a->cols, ' ', STYLE_STATUS);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, " %s  ", a->name);
    uint64_t span = evindex_last_ns(a->ix) - evindex_first_ns(a->ix);
    timefmt_append(&sb, span);
    strbuf_printf(&sb, ", %llu events, %zu HEC%s, %zu GCs, %zu markers",
                  (unsigned long long)evindex_n_events(a->ix), evindex_n_caps(a->ix),
                  evindex_n_caps(a->ix) == 1 ? "" : "s", evindex_n_gcs(a->ix),
                  evindex_n_markers(a->ix));
    strbuf_putc(&sb, '\0');
    int used = surface_text(s, 0, a->lay.header, sb.data, STYLE_STATUS, a->cols);
    if (a->disk_warning[0]) {
        /* Over the counts if need be: the warning matters more (app_disk.c). */
        strbuf_reset(&sb);
        strbuf_printf(&sb, " %s ", a->disk_warning);
        strbuf_putc(&sb, '\0');
        int w = surface_text_cols(sb.data), name = surface_text_cols(a->name) + 2;
        int col = a->cols - w < used + 1 ? a->cols - w : used + 1;
        surface_text(s, col > name ? col : name, a->lay.header, sb.data, STYLE_STATUS_WARN,
                     a->cols);
    } else if (a->live_text[0]) {
        /* A live log (applive.c): source, state, rate, lag; an alert as a warning. */
        strbuf_reset(&sb);
        strbuf_printf(&sb, " %s ", a->live_text);
        strbuf_putc(&sb, '\0');
        int w = surface_text_cols(sb.data);
        int col = a->cols - w < used + 1 ? used + 1 : a->cols - w;
        surface_text(s, col, a->lay.header, sb.data,
                     a->live_alert ? STYLE_STATUS_WARN : STYLE_STATUS, a->cols - col);
    } else if (evindex_truncated(a->ix)) {
        const diag *d = evindex_ending(a->ix);
        strbuf_reset(&sb);
        strbuf_printf(&sb, " log cut short at byte %llu ", (unsigned long long)d->offset);
        strbuf_putc(&sb, '\0');
        surface_text(s, used + 1, a->lay.header, sb.data, STYLE_STATUS_WARN, a->cols - used - 1);
    } else {
        /* The first key bound to help (the settings file may move it): " ? help ". */
        strbuf_reset(&sb);
        strbuf_putc(&sb, ' ');
        size_t n = keymap_keys_for_in(a->opts.keys, MODE_TIMELINE, ACTION_HELP, &sb);
        char *space = n > 1 ? strchr(sb.data + 1, ' ') : NULL;
        if (space)
            sb.len = (size_t)(space - sb.data);
        if (n) {
            strbuf_append(&sb, " help ", 6);
            const char *help = sb.data;
            int w = surface_text_cols(help);
            if (a->cols - used > w + 1)
                surface_text(s, a->cols - w, a->lay.header, help, STYLE_STATUS, w);
        }
    }
    strbuf_free(&sb);
}

/* Two rows: labels, then tick marks with the cursor and the selection. */
static void
draw_axis(const app *a, surface *s)
{
    int x0 = LANES_LABEL_COLS;
    int label_line = a->lay.top >= 3 ? 1 : -1;
    int tick_line = a->lay.top >= 3 ? 2 : a->lay.top >= 1 ? 0 : -1;
    if (tick_line < 0)
        return;
    const timeview *v = &a->v;
    bool ascii = a->opts.ascii;
    surface_fill(s, 0, tick_line, a->cols, ' ', STYLE_AXIS);
    if (label_line >= 0)
        surface_fill(s, 0, label_line, a->cols, ' ', STYLE_AXIS);
    surface_fill(s, x0, tick_line, v->width, ascii ? '-' : 0x2500, STYLE_AXIS);
    if (timeview_has_selection(v)) {
        /* Every column holding part of [a, b), the ones with its exact ends included. */
        int ca = timeview_col_of(v, v->sel.a_ns), cb = timeview_col_of(v, v->sel.b_ns - 1) + 1;
        if (cb > ca) {
            if (ca < 0)
                ca = 0;
            if (cb > v->width)
                cb = v->width;
            surface_fill(s, x0 + ca, tick_line, cb - ca, ascii ? '=' : 0x2550, STYLE_SELECTION);
        }
    }
    axis_tick ticks[APP_MAX_TICKS];
    size_t n = axis_ticks(v->t0_ns, v->t1_ns, v->width, ascii ? AXIS_ASCII : 0, ticks,
                          sizeof ticks / sizeof ticks[0], NULL);
    for (size_t i = 0; i < n; i++) {
        surface_put(s, x0 + ticks[i].col, tick_line, ascii ? '+' : 0x252c, STYLE_AXIS);
        if (label_line >= 0 && ticks[i].label_cols)
            surface_text(s, x0 + ticks[i].col, label_line, ticks[i].label, STYLE_AXIS_LABEL,
                         v->width - ticks[i].col);
    }
    int cc = timeview_col_of(v, v->cursor_ns);
    if (cc >= 0 && cc < v->width)
        surface_put(s, x0 + cc, tick_line, ascii ? 'v' : 0x25bc, STYLE_CURSOR);
    /* The label column of the axis rows: one column's width of time. */
    strbuf sb;
    strbuf_init(&sb);
    double npc = timeview_ns_per_col(v);
    const char *us = ascii ? "us" : "\xc2\xb5s";
    if (npc < 1e3)
        strbuf_printf(&sb, "%.3gns/c", npc);
    else if (npc < 1e6)
        strbuf_printf(&sb, "%.3g%s/c", npc / 1e3, us);
    else if (npc < 1e9)
        strbuf_printf(&sb, "%.3gms/c", npc / 1e6);
    else
        strbuf_printf(&sb, "%.3gs/c", npc / 1e9);
    strbuf_putc(&sb, '\0');
    surface_text(s, 0, tick_line, sb.data, STYLE_AXIS, LANES_LABEL_COLS - 1);
    strbuf_free(&sb);
}

/* "Key: value" lines with the key styled. */
static void
draw_lines(surface *s, int col, int line, int cols, int rows, const detail_lines *dl)
{
    for (int r = 0; r < rows && (size_t)r < dl->n; r++) {
        const char *txt = dl->lines[r];
        const char *colon = strstr(txt, ": ");
        int used = 0;
        if (colon && colon - txt < 28 && txt[0] != ' ') {
            used = surface_textn(s, col + 1, line + r, txt, (size_t)(colon - txt + 1),
                                 STYLE_DETAIL_KEY, cols - 1);
            txt = colon + 1;
        }
        surface_text(s, col + 1 + used, line + r, txt, STYLE_DETAIL, cols - 1 - used);
    }
}

/* Instants this few (or fewer) in the cursor's column are named in the detail pane. */
#define APP_COL_INSTANTS 16

/* The instants the selected HEC posted in the cursor's column, one line each, first in
 * the pane (the ticks drawn there). */
static void
draw_col_instants(const app *a, detail_lines *dl)
{
    const lane *l = a->n_lanes ? &a->lanes[a->lane_sel] : NULL;
    int col = timeview_col_of(&a->v, a->v.cursor_ns);
    uint64_t t0, t1;
    if (!l || l->kind != LANE_HEC || !timeview_col_range(&a->v, col, &t0, &t1))
        return;
    uint16_t cap = evindex_cap_at(a->ix, l->cap_lane)->cap;
    instant in[APP_COL_INSTANTS];
    size_t n = instants_in(a->ix, t0, t1, APP_COL_INSTANTS, in);
    strbuf sb;
    strbuf_init(&sb);
    for (size_t i = 0; n != SIZE_MAX && i < n; i++) {
        if (in[i].cap != cap)
            continue;
        strbuf_reset(&sb);
        timefmt_append_res(&sb, in[i].time_ns, 1);
        strbuf_printf(&sb, " %s: ", instants_name((instants_kind)in[i].kind));
        instants_text(&sb, a->ix, &in[i]);
        detail_lines_add(dl, "Instant: %s", sb.data);
    }
    strbuf_free(&sb);
}

static void
draw_pane(app *a, surface *s, const lane_item *it)
{
    int line = a->lay.pane_line, rows = a->lay.pane_rows;
    if (rows <= 0)
        return;
    surface_fill_rect(s, 0, line, a->cols, rows, ' ', STYLE_DETAIL);
    if (a->events_on) {
        if (a->events_follow)
            eventpane_sync(a->events, a->v.cursor_ns, rows - 1);
        if (a->mode == MODE_EVENTS)
            a->events_follow = false;
        eventpane_draw(a->events, s, 0, line, a->cols, rows, a->mode == MODE_EVENTS);
        return;
    }
    detail_lines dl;
    detail_lines_init(&dl);
    bool on_prof = a->n_lanes && a->lanes[a->lane_sel].kind == LANE_PROF;
    if (timeview_has_selection(&a->v)) {
        /* The prof lane: the selection's profile first, then its statistics. */
        if (on_prof)
            detail_prof_range(&dl, a->ix, a->v.sel.a_ns, a->v.sel.b_ns, "the selection");
        detail_range(&dl, a->ix, a->v.sel.a_ns, a->v.sel.b_ns);
    } else if (a->focus) {
        lifeview_lines(&dl, a->ix, a->focus, a->v.cursor_ns, rows, a->opts.ascii);
    } else if (a->focus_running) {
        lifeview_pending_lines(&dl, a->ix, a->focus_tid, a->opts.ascii);
    } else if (a->n_lanes) {
        draw_col_instants(a, &dl);
        detail_item(&dl, a->ix, &a->lanes[a->lane_sel], it, a->v.cursor_ns, &a->thread_memo);
        if (on_prof)
            detail_prof_range(&dl, a->ix, a->v.t0_ns, a->v.t1_ns, "the view");
    }
    draw_lines(s, 0, line, a->cols, rows, &dl);
    detail_lines_free(&dl);
}

static void
draw_status(app *a, surface *s, const lane_item *it)
{
    int line = a->lay.status_line;
    if (line < 0)
        return;
    strbuf_reset(&a->status);
    if (a->mode == MODE_SEARCH) {
        strbuf_printf(&a->status, a->prompt_filter ? "filter events by text (Enter; empty: "
                      "all): %s" : "/%s", a->query);
    } else if (a->msg_sticky && a->msg[0]) {
        strbuf_puts(&a->status, a->msg);
    } else {
        if (a->n_lanes)
            detail_status(&a->status, a->ix, &a->lanes[a->lane_sel], it, a->v.cursor_ns,
                          app_col_res(a));
        if (timeview_has_selection(&a->v)) {
            strbuf_puts(&a->status, "  [selection ");
            timefmt_append(&a->status, a->v.sel.b_ns - a->v.sel.a_ns);
            strbuf_puts(&a->status, a->v.sel.active ? ", Space ends it]" : ", z zooms, Esc clears]");
        }
    }
    strbuf_putc(&a->status, '\0');
    a->status.len--;
    surface_fill(s, 0, line, a->cols, ' ', STYLE_STATUS);
    draw_text_cut(s, 0, line, a->status.data, STYLE_STATUS, a->cols, a->opts.ascii);
}

/* The row under lanes that do not all fit: how many are hidden above and below, and the
 * names of those below (Down reaches them). */
static void
draw_more(const app *a, surface *s)
{
    int line = a->lay.more_line;
    if (line < 0)
        return;
    lanes_draw_opts o = { .hec_split = a->hec_split };
    size_t end = a->first_lane;
    for (int r = 0; end < a->n_lanes; end++) {
        r += lanes_rows(&a->lanes[end], &o);
        if (r > a->lay.lanes_rows)
            break;
    }
    bool ascii = a->opts.ascii;
    strbuf sb;
    strbuf_init(&sb);
    if (a->first_lane > 0)
        strbuf_printf(&sb, "%s %zu more", ascii ? "^" : "\u2191", a->first_lane);
    if (end < a->n_lanes) {
        strbuf_printf(&sb, "%s%s %zu more:", sb.len ? "  " : "", ascii ? "v" : "\u2193",
                      a->n_lanes - end);
        for (size_t i = end; i < a->n_lanes; i++)
            strbuf_printf(&sb, "%s %s", i > end ? "," : "", a->lanes[i].label);
    }
    strbuf_putc(&sb, '\0');
    surface_fill(s, 0, line, a->cols, ' ', STYLE_LANE_LABEL);
    draw_text_cut(s, 0, line, sb.data, STYLE_LANE_LABEL, a->cols, ascii);
    strbuf_free(&sb);
}

/* A centred box for popups. */
static void
popup_box(const app *a, int *col, int *line, int *cols, int *lines)
{
    int w = a->cols > 100 ? 96 : a->cols - 4;
    int h = a->lines - 4;
    if (w < 10)
        w = a->cols;
    if (h < 3)
        h = a->lines;
    *col = (a->cols - w) / 2;
    *line = (a->lines - h) / 2;
    *cols = w;
    *lines = h;
}

/* An ASCII stand-in for a character (--ascii: the terminal cannot show UTF-8; text
 * from the log, marker names for instance, can hold anything). */
static uint32_t
ascii_fold(uint32_t cp)
{
    static const struct {
        uint32_t from;
        char to;
    } table[] = {
        { 0x00b7, '.' }, { 0x2026, '~' }, { 0x00b5, 'u' }, { 0x2500, '-' }, { 0x2502, '|' },
        { 0x2550, '=' }, { 0x25bc, 'v' }, { 0x2014, '-' }, { 0x2013, '-' }, { 0xfffd, '?' },
    };
    if (cp < 128)
        return cp;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].from == cp)
            return (uint32_t)table[i].to;
    if (cp >= 0x2500 && cp <= 0x257f)
        return '+';             /* other box drawing: corners and tees */
    if (cp >= 0x2580 && cp <= 0x259f)
        return '#';             /* blocks and shades */
    return '?';
}

void
app_draw(app *a, surface *s)
{
    if (surface_cols(s) != a->cols || surface_lines(s) != a->lines)
        surface_resize(s, a->cols, a->lines);
    app_relayout(a);
    surface_clear(s, STYLE_DEFAULT);
    if (a->lay.top >= 3)
        draw_header(a, s);
    draw_axis(a, s);
    lanes_draw_opts lo = {
        .ascii = a->opts.ascii,
        .mono = a->opts.mono,
        .hec_split = a->hec_split,
        .selected_lane = a->lane_sel,
        .focus = a->focus,
        .memo = a->lanes_memo,
    };
    if (a->lay.lanes_rows > 0)
        lanes_draw(s, 0, a->lay.lanes_line, a->cols, a->ix, a->lanes, a->n_lanes,
                   a->first_lane, a->lay.lanes_rows, &a->v, &lo);
    draw_more(a, s);
    app_two_draw(a, s, &lo);
    /* What is under the cursor, found once for the pane and the status line. */
    lane_item it;
    app_item(a, &it);
    draw_pane(a, s, &it);
    if (evindex_n_events(a->ix) == 0 && a->lay.top < a->lay.status_line)
        surface_text(s, 1, a->lay.top, "this log has no events: the program wrote only the header",
                     STYLE_STATUS_WARN, a->cols - 1);
    draw_status(a, s, &it);
    int col, line, cols, lines;
    popup_box(a, &col, &line, &cols, &lines);
    if (a->mode == MODE_LIST && a->list) {
        int hist = a->list_kind == APP_LIST_GCS ? app_gc_draw_hist(a, s, col, line, cols, lines)
                                                : 0;
        a->list_rows = lines - hist - 3;
        uilist_draw(a->list, s, col, line + hist, cols, lines - hist);
    } else if (a->mode == MODE_MMU) {
        app_gc_draw_mmu(a, s, col, line, cols, lines);
    } else if (a->mode == MODE_HELP) {
        int n = helpview_draw_in(a->opts.keys, s, col, line, cols, lines, a->help_scroll,
                                 a->opts.ascii);
        if (a->help_scroll > n)
            a->help_scroll = n;
    }
    if (a->opts.ascii)
        for (int y = 0; y < a->lines; y++)
            for (int x = 0; x < a->cols; x++) {
                surface_cell c = surface_get(s, x, y);
                if (c.cp >= 128)
                    surface_put(s, x, y, ascii_fold(c.cp), c.style);
            }
}
