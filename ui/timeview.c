/* timeview: view-state math. The position is kept as doubles (offset and span from the log
 * start, exact below 2^53 ns) so zooming is reversible; whole-ns t0/t1 and an integer
 * column grid are derived from it after every change. */
#include "timeview.h"

#include <math.h>
#include <stddef.h>

/* ---- plain helpers ----------------------------------------------------------------- */

static uint64_t
tv_clamp_u64(uint64_t x, uint64_t lo, uint64_t hi)
{
    return x < lo ? lo : x > hi ? hi : x;
}

/* Number of ns in the log [start, end]: at least 1. */
static uint64_t
tv_log_len(const timeview *v)
{
    return v->log_end_ns - v->log_start_ns + 1;
}

/* The widest span a view may have: the whole log, or one ns per column if that is wider. */
static uint64_t
tv_max_span(const timeview *v)
{
    uint64_t len = tv_log_len(v);
    return len > (uint64_t)v->width ? len : (uint64_t)v->width;
}

static uint64_t
tv_clamp_log(const timeview *v, uint64_t t)
{
    return tv_clamp_u64(t, v->log_start_ns, v->log_end_ns);
}

/* floor(c * span / width) without overflow, for 0 <= c <= width. */
static uint64_t
tv_boundary(uint64_t span, int width, int c)
{
    uint64_t w = (uint64_t)width, q = span / w, r = span % w;
    return q * (uint64_t)c + r * (uint64_t)c / w;
}

/* Whole-ns range from (off_ns, span_ns), clamping both into the log first. */
static void
tv_project(timeview *v)
{
    uint64_t max_span = tv_max_span(v);
    double wd = (double)v->width, md = (double)max_span;   /* both exact: <= 2^53 */
    if (!(v->span_ns >= wd))            /* also catches NaN */
        v->span_ns = wd;
    if (v->span_ns > md)
        v->span_ns = md;
    uint64_t span = (uint64_t)llround(v->span_ns);
    span = tv_clamp_u64(span, (uint64_t)v->width, max_span);
    uint64_t max_off = max_span - span;
    if (!(v->off_ns >= 0))
        v->off_ns = 0;
    if (v->off_ns > (double)max_off)
        v->off_ns = (double)max_off;
    uint64_t off = (uint64_t)v->off_ns;
    if (off > max_off)
        off = max_off;
    v->t0_ns = v->log_start_ns + off;
    v->t1_ns = v->t0_ns + span;
}

static uint64_t
tv_col_start(const timeview *v, int col)
{
    return v->t0_ns + tv_boundary(v->t1_ns - v->t0_ns, v->width, col);
}

/* An active selection follows the cursor: [anchor, cursor) in either order, exact. */
static void
tv_sel_follow(timeview *v)
{
    uint64_t a = v->sel.anchor_ns, c = v->cursor_ns;
    v->sel.a_ns = a < c ? a : c;
    v->sel.b_ns = a < c ? c : a;
}

/* After any change: derive t0/t1, drag the cursor into the view (to the first column if it
 * fell off the left, the start of the last one if off the right), an active selection
 * following it. */
static void
tv_settle(timeview *v)
{
    tv_project(v);
    uint64_t c = tv_clamp_log(v, v->cursor_ns);
    if (c < v->t0_ns)
        c = v->t0_ns;
    else if (c >= v->t1_ns)
        c = tv_col_start(v, v->width - 1);
    v->cursor_ns = tv_clamp_log(v, c);
    if (v->sel.active)
        tv_sel_follow(v);
}

/* ---- setup and zoom ------------------------------------------------------------------ */

void
timeview_init(timeview *v, uint64_t log_start_ns, uint64_t log_end_ns, int width)
{
    if (log_start_ns > TIMEVIEW_MAX_START_NS)
        log_start_ns = TIMEVIEW_MAX_START_NS;
    if (log_end_ns < log_start_ns)
        log_end_ns = log_start_ns;
    if (log_end_ns - log_start_ns > TIMEVIEW_MAX_LEN_NS - 1)
        log_end_ns = log_start_ns + TIMEVIEW_MAX_LEN_NS - 1;
    v->log_start_ns = log_start_ns;
    v->log_end_ns = log_end_ns;
    v->width = width < 1 ? 1 : width;
    v->cursor_ns = log_start_ns;
    v->sel.active = false;
    v->sel.anchor_ns = v->sel.a_ns = v->sel.b_ns = log_start_ns;
    v->off_ns = 0;
    v->span_ns = (double)tv_max_span(v);
    tv_settle(v);
}

void
timeview_fit(timeview *v)
{
    v->off_ns = 0;
    v->span_ns = (double)tv_max_span(v);
    tv_settle(v);
}

void
timeview_zoom(timeview *v, double factor, uint64_t anchor_ns)
{
    if (!(factor > 0) || !isfinite(factor))
        return;
    double anchor = (double)(tv_clamp_log(v, anchor_ns) - v->log_start_ns);
    double span = v->span_ns * factor;
    double min_span = (double)v->width, max_span = (double)tv_max_span(v);
    span = span < min_span ? min_span : span > max_span ? max_span : span;
    /* The anchor keeps its fraction of the view; for factors 1/2 and 2 every step here
     * is exact, so zooming in then out lands on the same doubles. */
    v->off_ns = anchor - (anchor - v->off_ns) * (span / v->span_ns);
    v->span_ns = span;
    tv_settle(v);
}

void
timeview_zoom_to(timeview *v, uint64_t a_ns, uint64_t b_ns)
{
    uint64_t lo = a_ns < b_ns ? a_ns : b_ns, hi = a_ns < b_ns ? b_ns : a_ns;
    lo = tv_clamp_log(v, lo);
    hi = tv_clamp_u64(hi, lo, v->log_end_ns + 1);
    double off = (double)(lo - v->log_start_ns), span = (double)(hi - lo);
    if (span < (double)v->width) {
        off += (span - (double)v->width) / 2;
        span = (double)v->width;
    }
    v->off_ns = off;
    v->span_ns = span;
    tv_settle(v);
}

/* ---- panning --------------------------------------------------------------------------- */

void
timeview_pan_fraction(timeview *v, double fraction)
{
    if (!isfinite(fraction))
        return;
    double delta = fraction * v->span_ns;
    v->off_ns += delta;
    double cur = (double)(v->cursor_ns - v->log_start_ns) + delta;
    double last = (double)(v->log_end_ns - v->log_start_ns);
    cur = cur < 0 ? 0 : cur > last ? last : floor(cur + 0.5);
    v->cursor_ns = v->log_start_ns + (uint64_t)cur;
    tv_settle(v);
}

void
timeview_pan_views(timeview *v, int n_views)
{
    timeview_pan_fraction(v, (double)n_views);
}

void
timeview_home(timeview *v)
{
    v->off_ns = 0;
    v->cursor_ns = v->log_start_ns;
    tv_settle(v);
}

void
timeview_end(timeview *v)
{
    v->off_ns = (double)tv_max_span(v);     /* tv_project pulls it back to the last view */
    v->cursor_ns = v->log_end_ns;
    tv_settle(v);
}

void
timeview_set_width(timeview *v, int width)
{
    v->width = width < 1 ? 1 : width;
    tv_settle(v);
}

/* ---- columns ------------------------------------------------------------------------- */

int
timeview_grid_col(uint64_t t0_ns, uint64_t span_ns, int width, uint64_t t_ns)
{
    if (t_ns < t0_ns)
        return -1;
    uint64_t off = t_ns - t0_ns;
    if (off >= span_ns)
        return width;
    /* A floating estimate, then exact integer steps to the last column starting <= off. */
    double guess = (double)off * (double)width / (double)span_ns;
    int c = guess >= (double)(width - 1) ? width - 1 : (int)guess;
    while (c > 0 && tv_boundary(span_ns, width, c) > off)
        c--;
    while (c + 1 < width && tv_boundary(span_ns, width, c + 1) <= off)
        c++;
    return c;
}

bool
timeview_col_range(const timeview *v, int col, uint64_t *a_ns, uint64_t *b_ns)
{
    if (col < 0 || col >= v->width)
        return false;
    *a_ns = tv_col_start(v, col);
    *b_ns = tv_col_start(v, col + 1);
    return true;
}

int
timeview_col_of(const timeview *v, uint64_t t_ns)
{
    return timeview_grid_col(v->t0_ns, v->t1_ns - v->t0_ns, v->width, t_ns);
}

uint64_t
timeview_hit_test(const timeview *v, int col)
{
    col = col < 0 ? 0 : col >= v->width ? v->width - 1 : col;
    return tv_clamp_log(v, tv_col_start(v, col));
}

double
timeview_ns_per_col(const timeview *v)
{
    return (double)(v->t1_ns - v->t0_ns) / (double)v->width;
}

/* ---- cursor ---------------------------------------------------------------------------- */

void
timeview_cursor_move(timeview *v, int d_cols)
{
    int c = timeview_col_of(v, v->cursor_ns);
    c = c < 0 ? 0 : c >= v->width ? v->width - 1 : c;
    int64_t target = (int64_t)c + d_cols;
    if (target < 0) {
        v->off_ns += (double)target * v->span_ns / (double)v->width;
        tv_project(v);
        v->cursor_ns = v->t0_ns;
    } else if (target >= v->width) {
        v->off_ns += (double)(target - (v->width - 1)) * v->span_ns / (double)v->width;
        tv_project(v);
        v->cursor_ns = tv_clamp_log(v, tv_col_start(v, v->width - 1));
    } else {
        v->cursor_ns = tv_clamp_log(v, tv_col_start(v, (int)target));
    }
    tv_settle(v);
}

void
timeview_set_cursor(timeview *v, uint64_t t_ns)
{
    uint64_t t = tv_clamp_log(v, t_ns);
    v->cursor_ns = t;
    if (t < v->t0_ns)
        v->off_ns = (double)(t - v->log_start_ns);
    else if (t >= v->t1_ns)     /* the view ends just after t */
        v->off_ns = (double)(t + 1 - v->log_start_ns) - (double)(v->t1_ns - v->t0_ns);
    tv_settle(v);
}

static void
tv_center(timeview *v, uint64_t t)
{
    v->off_ns = (double)(t - v->log_start_ns) + 0.5 - v->span_ns / 2;
}

void
timeview_center_on(timeview *v, uint64_t t_ns)
{
    uint64_t t = tv_clamp_log(v, t_ns);
    v->cursor_ns = t;
    int c = timeview_col_of(v, t);
    if (c < 0 || c >= v->width)
        tv_center(v, t);
    tv_settle(v);
}

void
timeview_recenter(timeview *v)
{
    tv_center(v, v->cursor_ns);
    tv_settle(v);
}

/* ---- selection ------------------------------------------------------------------------- */

void
timeview_select_start(timeview *v, uint64_t t_ns)
{
    v->sel.active = true;
    v->sel.anchor_ns = tv_clamp_log(v, t_ns);
    tv_sel_follow(v);
}

void
timeview_select_end(timeview *v)
{
    v->sel.active = false;
}

void
timeview_select_clear(timeview *v)
{
    v->sel.active = false;
    v->sel.anchor_ns = v->sel.a_ns = v->sel.b_ns = v->log_start_ns;
}

bool
timeview_has_selection(const timeview *v)
{
    return v->sel.a_ns < v->sel.b_ns;
}

/* ---- invariants ------------------------------------------------------------------------ */

const char *
timeview_check(const timeview *v)
{
    if (v->width < 1)
        return "width < 1";
    if (v->log_end_ns < v->log_start_ns)
        return "log end before log start";
    if (v->log_end_ns - v->log_start_ns >= TIMEVIEW_MAX_LEN_NS)
        return "log longer than TIMEVIEW_MAX_LEN_NS";
    if (v->t1_ns <= v->t0_ns || v->t1_ns - v->t0_ns < (uint64_t)v->width)
        return "visible span under 1 ns per column";
    if (v->t0_ns < v->log_start_ns)
        return "view starts before the log";
    if (tv_log_len(v) >= (uint64_t)v->width) {
        if (v->t1_ns > v->log_end_ns + 1)
            return "view ends after the log";
    } else if (v->t0_ns != v->log_start_ns || v->t1_ns != v->log_start_ns + (uint64_t)v->width) {
        return "short log not shown at 1 ns per column from its start";
    }
    if (v->cursor_ns < v->log_start_ns || v->cursor_ns > v->log_end_ns)
        return "cursor outside the log";
    if (v->cursor_ns < v->t0_ns || v->cursor_ns >= v->t1_ns)
        return "cursor off screen";
    if (v->sel.a_ns > v->sel.b_ns)
        return "selection ends before it starts";
    if (v->sel.a_ns < v->sel.b_ns
        && (v->sel.a_ns < v->log_start_ns || v->sel.b_ns > v->log_end_ns + 1))
        return "selection outside the log";
    if (v->sel.active) {
        uint64_t an = v->sel.anchor_ns, c = v->cursor_ns;
        if (an < v->log_start_ns || an > v->log_end_ns)
            return "selection anchor outside the log";
        if (v->sel.a_ns != (an < c ? an : c) || v->sel.b_ns != (an < c ? c : an))
            return "active selection not from its anchor to the cursor";
    }
    if (!(v->span_ns >= (double)v->width) || !(v->span_ns <= (double)tv_max_span(v))
        || !(v->off_ns >= 0) || !(v->off_ns <= (double)(tv_max_span(v) - (v->t1_ns - v->t0_ns))))
        return "fractional position out of range";
    return NULL;
}
