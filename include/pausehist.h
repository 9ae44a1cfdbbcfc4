/* pausehist: a small histogram of GC pause lengths — bins on the 1-2-5 ladder of round
 * durations (1 µs, 2 µs, 5 µs, 10 µs, …), from the bin holding the shortest pause to the
 * one holding the longest, empty bins between them kept so the shape is true. A pure
 * function over an array; the detail pane draws it for a selected range. (Issue 14 builds
 * a general pause-histogram module; this one is small and self-contained so the two can
 * be unified.) */
#ifndef ELOG_PAUSEHIST_H
#define ELOG_PAUSEHIST_H

#include <stddef.h>
#include <stdint.h>

/* At most this many bins: a wider spread uses decades (1, 10, 100 µs …) instead. */
#define PAUSEHIST_MAX_BINS 12

typedef struct pausehist_bin {
    uint64_t lo_ns, hi_ns;      /* [lo_ns, hi_ns) */
    size_t count;
} pausehist_bin;

typedef struct pausehist {
    pausehist_bin bins[PAUSEHIST_MAX_BINS];
    size_t n_bins;              /* 0 when there are no pauses */
    size_t total;               /* pauses counted (all of them) */
    size_t max_count;           /* the fullest bin's count */
} pausehist;

/* Fill *h from pause_ns[0 .. n) (any order). Pauses under 1 µs fall in the first bin,
 * [0, 1 µs) stretched down to 0. */
void pausehist_build(pausehist *h, const uint64_t *pause_ns, size_t n);

#endif
