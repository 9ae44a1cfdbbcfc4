/* timeview: the timeline's view state — which span of the log is on screen, the
 * cursor and the range selection — and the pure functions that change it (zoom,
 * pan, cursor moves, hit testing). No terminal, no I/O; every call keeps the invariants. */
#ifndef ELOG_TIMEVIEW_H
#define ELOG_TIMEVIEW_H

#include <stdbool.h>
#include <stdint.h>

/* Logs longer than this are cut to it (2^53 ns, about 104 days): every offset from the log
 * start is then exact as a double. Start times above TIMEVIEW_MAX_START_NS are clamped. */
#define TIMEVIEW_MAX_LEN_NS     (UINT64_C(1) << 53)
#define TIMEVIEW_MAX_START_NS   (UINT64_C(1) << 62)

/* A range selection [a_ns, b_ns); empty (a_ns == b_ns) when there is none. Its ends are
 * exact times — where the cursor was, which may be an item's own time, not a column's
 * edge. While `active` the selection runs from `anchor_ns` to the cursor (Space ... move
 * ... Space, or a mouse drag). */
typedef struct timeview_sel {
    bool active;
    uint64_t anchor_ns;
    uint64_t a_ns, b_ns;
} timeview_sel;

/* The view. A plain value: copy it freely, change it only through timeview_* functions.
 *
 * Invariants (timeview_check):
 *  - log_start_ns <= log_end_ns; the log is the closed range [log_start_ns, log_end_ns];
 *  - width >= 1 is the number of columns of the time area (lane labels excluded);
 *  - the visible range [t0_ns, t1_ns) starts at or after log_start_ns, spans at least one
 *    ns per column (t1_ns - t0_ns >= width), and ends at or before log_end_ns + 1 — except
 *    that a log shorter than `width` ns is shown as [log_start_ns, log_start_ns + width);
 *  - cursor_ns lies in the log and in the visible range;
 *  - the selection lies in [log_start_ns, log_end_ns + 1);
 *  - an active selection is exactly [min(anchor, cursor), max(anchor, cursor)), its
 *    anchor in the log.
 * t0_ns/t1_ns are whole ns rounded from off_ns/span_ns, the fractional position that keeps
 * zoom in then out reversible; read all fields, write none. */
typedef struct timeview {
    uint64_t log_start_ns, log_end_ns;
    uint64_t t0_ns, t1_ns;
    uint64_t cursor_ns;
    int width;
    timeview_sel sel;
    double off_ns;      /* t0 - log_start before rounding down */
    double span_ns;     /* t1 - t0 before rounding to nearest */
} timeview;

/* Show the whole log [log_start, log_end] over `width` columns (< 1 means 1), cursor at the
 * log start, no selection. log_end < log_start is taken as log_start. */
void timeview_init(timeview *v, uint64_t log_start_ns, uint64_t log_end_ns, int width);
/* Show the whole log (key 0). The cursor stays where it is. */
void timeview_fit(timeview *v);
/* Scale the visible span by `factor` (0.5 zooms in 2x, 2 zooms out) keeping `anchor_ns` at
 * the same column, clamped to the minimum span (1 ns per column) and the whole log. */
void timeview_zoom(timeview *v, double factor, uint64_t anchor_ns);
/* Show [a_ns, b_ns) (either order), widened about its middle to the minimum span and
 * clamped to the log (key z on a selection or item). A cursor left outside is dragged to
 * the nearer edge of the view. */
void timeview_zoom_to(timeview *v, uint64_t a_ns, uint64_t b_ns);
/* Pan by `fraction` of the visible span (+ is later; keys a/d: +-1/8) or by `n_views`
 * whole views (PageUp/PageDown: -1/+1). The cursor moves by the same time (so it keeps its
 * column) and is then clamped into the log and the view. */
void timeview_pan_fraction(timeview *v, double fraction);
void timeview_pan_views(timeview *v, int n_views);
/* Scroll to the start (end) of the log, keeping the zoom; the cursor goes there too. */
void timeview_home(timeview *v);
void timeview_end(timeview *v);
/* New plot width (< 1 means 1) for a resize: the visible range is kept, widened only if
 * it would be under 1 ns per column. */
void timeview_set_width(timeview *v, int width);

/* The half-open range [*a_ns, *b_ns) column `col` covers. Consecutive columns tile
 * [t0_ns, t1_ns) exactly and none is empty. False (outputs untouched) if col is not in
 * [0, width). */
bool timeview_col_range(const timeview *v, int col, uint64_t *a_ns, uint64_t *b_ns);
/* The column showing `t_ns`: -1 if before the view, width if at or after its end. */
int timeview_col_of(const timeview *v, uint64_t t_ns);
/* The same mapping on plain values, shared with the axis: the last column c of a grid of
 * `width` columns over [t0_ns, t0_ns + span_ns) with t0_ns + floor(c*span_ns/width) <=
 * t_ns, or -1 / width when t_ns is outside. span_ns >= 1, width >= 1. */
int timeview_grid_col(uint64_t t0_ns, uint64_t span_ns, int width, uint64_t t_ns);
/* The time at column `col` (clamped into [0, width)) — the start of its range, at most
 * the log end. For mouse clicks. */
uint64_t timeview_hit_test(const timeview *v, int col);
/* Nanoseconds per column at the current zoom (>= 1). */
double timeview_ns_per_col(const timeview *v);

/* Move the cursor by `d_cols` columns to the start of the target column; past an edge the
 * view scrolls by whole columns just far enough (like less), stopping at the log ends. */
void timeview_cursor_move(timeview *v, int d_cols);
/* Put the cursor at t_ns (clamped into the log), scrolling the view minimally so that it
 * stays visible. */
void timeview_set_cursor(timeview *v, uint64_t t_ns);
/* Jump: the cursor goes to t_ns (clamped into the log); if that is off screen the view is
 * centred on it at the same zoom (marker/GC jumps). */
void timeview_center_on(timeview *v, uint64_t t_ns);
/* Centre the view on the cursor whether visible or not (key c), within the log. */
void timeview_recenter(timeview *v);

/* Selections. While a selection is active, every cursor move extends it; its ends are the
 * exact times of the anchor and the cursor, never widened to columns. */
/* Start an active selection anchored at t_ns (clamped into the log), reaching to the
 * cursor: empty when t_ns is the cursor's time. */
void timeview_select_start(timeview *v, uint64_t t_ns);
/* Stop following the cursor; the range stays. */
void timeview_select_end(timeview *v);
/* No selection. */
void timeview_select_clear(timeview *v);
/* True if a non-empty range is selected. */
bool timeview_has_selection(const timeview *v);

/* NULL if every invariant above holds, else a static description of the first broken one
 * (for asserts and tests). */
const char *timeview_check(const timeview *v);

#endif
