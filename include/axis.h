/* axis: the time axis above the lanes — a tick step from a 1-2-5 ladder chosen so labels
 * never overlap, tick columns on the timeview grid, compact labels ("250µs", "1.5ms",
 * "1m30s") relative to the log start, and the precise cursor time for the status line. */
#ifndef ELOG_AXIS_H
#define ELOG_AXIS_H

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* Flags. AXIS_ASCII writes "us" for microseconds instead of "µs" (UTF-8, one column). */
#define AXIS_ASCII      1u

/* Columns left empty between two labels. */
#define AXIS_GAP        2
/* Room for any label and its NUL ("5124095h34m33.709551615s" is the longest). */
#define AXIS_LABEL_MAX  32

typedef struct axis_tick {
    int col;                        /* column of the tick in [0, width) */
    uint64_t t_ns;                  /* absolute time of the tick */
    int label_cols;                 /* display width of `label`; 0 if it was left out */
    char label[AXIS_LABEL_MAX];     /* drawn from `col` rightwards; "" if it would not fit */
} axis_tick;

/* Lay out ticks for the view [t0_ns, t1_ns) drawn over `width` columns (the timeview grid),
 * at multiples of the chosen step counted from origin_ns (the log start; no tick before it).
 * Labels are the time since origin_ns. Every label fits in [0, width) and is at least
 * AXIS_GAP columns clear of the next; a label that would not fit is left out (the tick
 * stays). Writes at most `cap` ticks to `out` (width / (AXIS_GAP + 1) + 1 always suffices)
 * and returns how many; *step_ns (if non-NULL) receives the step, 0 for an empty view. */
size_t axis_ticks(uint64_t t0_ns, uint64_t t1_ns, int width, uint64_t origin_ns, unsigned flags,
                  axis_tick *out, size_t cap, uint64_t *step_ns);

/* The ladder of steps, ascending: 1 2 5 ns ... 20s 50s, 1m 2m 5m 10m 20m 30m, 1h 2h 5h
 * 10h ... Returns the i-th step, or 0 past the end. */
uint64_t axis_step(size_t i);

/* Write the label for `rel_ns` into buf (NUL-terminated) and return its display width:
 * "0", "999ns", "250µs", "1.5ms", "2s", "1m30s", "1h5m"; trailing zeros are dropped, so a
 * multiple of the step prints with just the digits the step needs. */
int axis_label(char buf[AXIS_LABEL_MAX], uint64_t rel_ns, unsigned flags);

/* Append `rel_ns` in seconds with as many decimals as one column resolves at
 * `ns_per_col` (1 ns/col gives 9: "1.234567891s"; 1 µs/col gives 6: "1.234567s"),
 * truncated, for the status line. */
void axis_format_cursor(strbuf *sb, uint64_t rel_ns, double ns_per_col);

#endif
