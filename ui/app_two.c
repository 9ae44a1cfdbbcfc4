/* app_two: the two-log view — a second log's lanes stacked under the first's, aligned at
 * their first events or at a marker both have, on one zoom and pan. The axis is the first
 * log's clock (A); the second (B) is drawn shifted by its offset, which its divider row
 * states. B's lanes are for looking: the cursor, lists and details act on A. */
#include <stdio.h>
#include <string.h>

#include "app_int.h"
#include "lanegroups.h"
#include "theme.h"
#include "timefmt.h"
#include "uibox.h"
#include "xalloc.h"

struct app_two {
    const evindex *ix;          /* borrowed */
    char name[128];
    lane *lanes;                /* owned */
    size_t n_lanes;
    int64_t delta_ns;           /* B's time = A's time + delta_ns */
    char align[96];             /* the marker aligned at, "" for the first events */
    uint64_t cut_ns;            /* B's first cut_ns before its first event fall before A's
                                 * time 0 and are not shown (0: none) */
};

/* The first marker named `name` in ix, by time. */
static bool
app_two_marker(const evindex *ix, const char *name, uint64_t *t)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < evindex_n_markers(ix); i++) {
        const evindex_msg m_v = evindex_marker_at(ix, i), *m = &m_v;
        const uint8_t *p;
        size_t n;
        if (evindex_msg_text(ix, m, &p, &n) && n == len && memcmp(p, name, len) == 0) {
            *t = m->time_ns;
            return true;
        }
    }
    return false;
}

/* Prefix every label with "A " or "B ", so each lane says which log it shows. */
static void
app_two_tag(lane *lanes, size_t n, char tag)
{
    for (size_t i = 0; i < n; i++) {
        char old[sizeof lanes[i].label];
        memcpy(old, lanes[i].label, sizeof old);
        snprintf(lanes[i].label, sizeof lanes[i].label, "%c %.13s", tag, old);
    }
}

bool
app_set_second(app *a, const evindex *ix2, const char *path2, const char *align, char *why,
               size_t why_len)
{
    uint64_t ta = evindex_first_ns(a->ix), tb = evindex_first_ns(ix2);
    if (a->two) {
        snprintf(why, why_len, "the view already shows two logs");
        return false;
    }
    if (align && !app_two_marker(a->ix, align, &ta)) {
        snprintf(why, why_len, "--align: the first log has no marker named \"%s\"", align);
        return false;
    }
    if (align && !app_two_marker(ix2, align, &tb)) {
        snprintf(why, why_len, "--align: the second log has no marker named \"%s\"", align);
        return false;
    }
    app_two *t = xcalloc(1, sizeof *t);      /* owned by the app: app_two_free */
    t->ix = ix2;
    const char *base = strrchr(path2, '/');
    snprintf(t->name, sizeof t->name, "%s", base ? base + 1 : path2);
    snprintf(t->align, sizeof t->align, "%s", align ? align : "");
    t->delta_ns = (int64_t)(tb - ta);
    t->lanes = lanes_build_all(ix2, &t->n_lanes);
    t->n_lanes = lanegroup_filter(t->lanes, t->n_lanes, a->opts.hidden_lanes);
    app_two_tag(t->lanes, t->n_lanes, 'B');
    app_two_tag(a->lanes, a->n_lanes, 'A');
    a->two = t;
    /* The view spans both logs on A's clock; what of B would come before A's 0 is cut. */
    uint64_t first = evindex_first_ns(a->ix), last = evindex_last_ns(a->ix);
    uint64_t fb = evindex_first_ns(ix2), lb = evindex_last_ns(ix2);
    uint64_t fb_a = 0, lb_a = 0;
    if (t->delta_ns >= 0) {
        uint64_t d = (uint64_t)t->delta_ns;
        fb_a = fb >= d ? fb - d : 0;
        lb_a = lb >= d ? lb - d : 0;
        t->cut_ns = fb >= d ? 0 : d - fb;
    } else {
        uint64_t d = (uint64_t)-t->delta_ns;
        fb_a = fb + d;
        lb_a = lb + d;
    }
    if (evindex_n_events(ix2)) {
        first = fb_a < first ? fb_a : first;
        last = lb_a > last ? lb_a : last;
    }
    timeview_init(&a->v, first, last > first ? last : first, a->v.width);
    app_relayout(a);
    return true;
}

void
app_two_relane(app *a)
{
    app_two *t = a->two;
    x_free(t->lanes);
    t->lanes = lanes_build_all(t->ix, &t->n_lanes);
    t->n_lanes = lanegroup_filter(t->lanes, t->n_lanes, a->opts.hidden_lanes);
    app_two_tag(t->lanes, t->n_lanes, 'B');
    app_two_tag(a->lanes, a->n_lanes, 'A');
}

void
app_two_free(app *a)
{
    if (!a->two)
        return;
    x_free(a->two->lanes);
    x_free(a->two);
    a->two = NULL;
}

int
app_two_rows(const app *a, int avail)
{
    if (!a->two || avail < 4)
        return 0;
    lanes_draw_opts o = { .hec_split = false };
    int need = 1;
    for (size_t i = 0; i < a->two->n_lanes; i++)
        need += lanes_rows(&a->two->lanes[i], &o);
    return need < avail / 2 ? need : avail / 2;
}

/* B's view: A's shifted by delta; columns whose B time would be negative are left out
 * (*first_col says how many). False if no column is left. */
static bool
app_two_view(const app *a, timeview *v2, int *first_col)
{
    const timeview *v = &a->v;
    *v2 = *v;
    *first_col = 0;
    int64_t d = a->two->delta_ns;
    if (d >= 0) {
        uint64_t u = (uint64_t)d;
        v2->t0_ns += u;
        v2->t1_ns += u;
        v2->cursor_ns += u;
        v2->sel.a_ns += u;
        v2->sel.b_ns += u;
        v2->sel.anchor_ns += u;
        v2->log_start_ns += u;
        v2->log_end_ns += u;
        return true;
    }
    uint64_t u = (uint64_t)-d;
    int c0 = 0;
    uint64_t a0 = 0, b0 = 0;
    while (c0 < v->width && timeview_col_range(v, c0, &a0, &b0) && a0 < u)
        c0++;
    if (c0 >= v->width)
        return false;
    *first_col = c0;
    v2->width = v->width - c0;
    v2->t0_ns = a0 - u;
    v2->t1_ns = v->t1_ns - u;
    v2->cursor_ns = v->cursor_ns >= u ? v->cursor_ns - u : UINT64_MAX;
    v2->sel.a_ns = v->sel.a_ns >= u ? v->sel.a_ns - u : 0;
    v2->sel.b_ns = v->sel.b_ns >= u ? v->sel.b_ns - u : 0;
    v2->log_start_ns = v2->t0_ns;
    v2->log_end_ns = v2->t1_ns > v2->t0_ns ? v2->t1_ns - 1 : v2->t0_ns;
    return true;
}

void
app_two_draw(app *a, surface *s, const lanes_draw_opts *lo)
{
    app_two *t = a->two;
    int line = a->lay.two_line, rows = a->lay.two_rows;
    if (!t || rows < 1)
        return;
    /* The divider: which log, and how it is aligned. */
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, " B: %s, aligned at ", t->name);
    if (t->align[0])
        strbuf_printf(&sb, "marker \"%s\"", t->align);
    else
        strbuf_puts(&sb, "the first events");
    strbuf_puts(&sb, " (B's time = A's ");
    uint64_t mag = t->delta_ns >= 0 ? (uint64_t)t->delta_ns : (uint64_t)-t->delta_ns;
    strbuf_puts(&sb, t->delta_ns >= 0 ? "+ " : "- ");
    timefmt_append_res(&sb, mag, 1);
    strbuf_putc(&sb, ')');
    if (t->cut_ns) {
        strbuf_puts(&sb, "; its first ");
        timefmt_append(&sb, t->cut_ns);
        strbuf_puts(&sb, " come before A's 0 and are not shown");
    }
    lanes_draw_opts o2 = { .hec_split = false };
    size_t shown = 0;
    int used = 0;
    for (size_t i = 0; i < t->n_lanes; i++) {
        int r = lanes_rows(&t->lanes[i], &o2);
        if (used + r > rows - 1)
            break;
        used += r;
        shown++;
    }
    if (shown < t->n_lanes)
        strbuf_printf(&sb, "; %zu more lane%s not shown", t->n_lanes - shown,
                      t->n_lanes - shown == 1 ? "" : "s");
    strbuf_putc(&sb, ' ');
    strbuf_putc(&sb, '\0');
    surface_fill(s, 0, line, a->cols, a->opts.ascii ? '-' : 0x2500, STYLE_AXIS);
    uibox_text(s, 1, line, sb.data, STYLE_AXIS_LABEL, a->cols - 2);
    strbuf_free(&sb);
    timeview v2;
    int c0;
    if (!shown)
        return;
    if (!app_two_view(a, &v2, &c0)) {
        /* Nothing of B in view (all of it later, on A's clock): its labels alone. */
        int r = 0;
        for (size_t i = 0; i < shown; i++, r++) {
            surface_fill(s, 0, line + 1 + r, a->cols, ' ', STYLE_IDLE);
            uibox_text(s, 0, line + 1 + r, t->lanes[i].label, STYLE_LANE_LABEL,
                       LANES_LABEL_COLS - 1);
        }
        return;
    }
    o2 = *lo;
    o2.memo = NULL;             /* the memo is A's */
    o2.hec_split = false;
    o2.selected_lane = SIZE_MAX;    /* B's lanes are not selectable */
    o2.highlight = false;
    /* Labels at the left edge, the plot from the first column B has. */
    lanes_draw(s, 0, line + 1, a->cols, t->ix, t->lanes, t->n_lanes, 0, used, &v2, &o2);
    if (c0 > 0) {
        /* Redraw with the plot moved right by c0: only the label area stays put. */
        surface_fill_rect(s, LANES_LABEL_COLS, line + 1, a->cols - LANES_LABEL_COLS, used, ' ',
                          STYLE_IDLE);
        surface *tmp = surface_new(a->cols, used);
        lanes_draw(tmp, 0, 0, a->cols, t->ix, t->lanes, t->n_lanes, 0, used, &v2, &o2);
        for (int y = 0; y < used; y++)
            for (int x = LANES_LABEL_COLS; x + c0 < a->cols; x++) {
                surface_cell c = surface_get(tmp, x, y);
                surface_put(s, x + c0, line + 1 + y, c.cp, c.style);
            }
        surface_free(tmp);
    }
}
