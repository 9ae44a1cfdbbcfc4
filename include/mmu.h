/* mmu: minimum mutator utilisation, exact. Given the times the mutator was stopped (the
 * union of pause spans) inside a range, MMU(w) is the smallest fraction of any window of
 * length w inside the range during which it was not stopped. Also the worst windows
 * (disjoint, lowest utilisation first) of one length. Pure: no index, no output; the
 * spans of a log come from mmu_spans_from_index (mmusrc.h). */
#ifndef ELOG_MMU_H
#define ELOG_MMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A half-open time span [start_ns, end_ns); empty if end_ns <= start_ns. */
typedef struct mmu_span {
    uint64_t start_ns, end_ns;
} mmu_span;

typedef struct mmu mmu;

/* One window length's answer. The worst window is [worst_start_ns, worst_start_ns +
 * window_ns), the earliest of the windows with the most stopped time (paused_ns); mmu =
 * 1 - paused_ns / window_ns. A window longer than the range is the whole range: then
 * worst_start_ns is the range's start and mmu = 1 - (all stopped time) / (range length). */
typedef struct mmu_point {
    uint64_t window_ns;
    uint64_t worst_start_ns;
    uint64_t paused_ns;
    double mmu;
} mmu_point;

/* The union of `spans` (n of them, any order, overlapping or touching, borrowed: copied)
 * clipped to the range [from_ns, to_ns). to_ns <= from_ns is an empty range (every
 * answer is then mmu 1 over no time). O(n log n). Caller frees with mmu_free. */
mmu *mmu_new(const mmu_span *spans, size_t n, uint64_t from_ns, uint64_t to_ns);
void mmu_free(mmu *m);

uint64_t mmu_from_ns(const mmu *m);
uint64_t mmu_to_ns(const mmu *m);
/* Disjoint stopped spans after the union and clipping. */
size_t mmu_n_spans(const mmu *m);
/* Stopped time in the whole range. */
uint64_t mmu_paused_total(const mmu *m);
/* The shortest of the given spans that overlap the range (its clipped length), 0 if none:
 * the curve's first window length. */
uint64_t mmu_shortest_ns(const mmu *m);
/* Stopped time inside [a, b) (clipped to the range), O(log n). */
uint64_t mmu_paused_in(const mmu *m, uint64_t a, uint64_t b);

/* MMU for window length window_ns (>= 1; 0 is taken as 1). Exact: the stopped time in a
 * window is piecewise linear in its start and is largest where the window's start meets
 * the start of a span or its end meets a span's end (or at the range's ends), so only
 * those starts are tried, in O(n): two forward passes, one cursor each. */
mmu_point mmu_at(const mmu *m, uint64_t window_ns);

/* Window lengths for a curve: 1, 2, 5 x 10^k from the largest such value not above the
 * shortest span (1 us when there is none) up to below the range length, then the range
 * length itself. Writes at most `max` into out; returns how many. */
size_t mmu_curve_windows(const mmu *m, uint64_t *out, size_t max);

/* Up to `top` disjoint windows of length window_ns with the most stopped time, worst
 * first (ties: earliest first); each is the worst window among the starts not
 * overlapping those chosen before. Windows with no stopped time are not listed. A window
 * longer than the range: at most the one whole range. Returns how many went into out.
 * O(top * n log top). */
size_t mmu_worst(const mmu *m, uint64_t window_ns, size_t top, mmu_point *out);

#endif
