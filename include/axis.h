/* axis: the time axis above the lanes — a tick step from a 1-2-5 ladder chosen so labels
 * never overlap, ticks at multiples of the step on the log's clock (ns since the RTS
 * started), on the timeview grid, and compact labels of that clock ("250µs", "24.35ms",
 * "1m30s") that timefmt_parse reads back. */
#ifndef ELOG_AXIS_H
#define ELOG_AXIS_H

#include <stddef.h>
#include <stdint.h>


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
 * at the multiples of the chosen step (times on the log's clock, as every time the viewer
 * shows); each is labelled with its time. Every label fits in [0, width) and is at least
 * AXIS_GAP columns clear of the next; a label that would not fit is left out (the tick
 * stays). Writes at most `cap` ticks to `out` (width / (AXIS_GAP + 1) + 1 always suffices)
 * and returns how many; *step_ns (if non-NULL) receives the step, 0 for an empty view. */
size_t axis_ticks(uint64_t t0_ns, uint64_t t1_ns, int width, unsigned flags, axis_tick *out,
                  size_t cap, uint64_t *step_ns);

/* The ladder of steps, ascending: 1 2 5 ns ... 20s 50s, 1m 2m 5m 10m 20m 30m, 1h 2h 5h
 * 10h ... Returns the i-th step, or 0 past the end. */
uint64_t axis_step(size_t i);

/* Write the label for time `t_ns` into buf (NUL-terminated) and return its display width:
 * "0", "999ns", "250µs", "24.35ms", "2s", "1m30s", "1h5m"; trailing zeros are dropped, so a
 * multiple of the step prints with just the digits the step needs. timefmt_parse reads
 * every label back exactly. (Other times on screen are timefmt_append_res's.) */
int axis_label(char buf[AXIS_LABEL_MAX], uint64_t t_ns, unsigned flags);

#endif
