/* radixsort: a stable LSD radix sort on a 64-bit key, a few sequential passes over the
 * data instead of a comparison sort (qsort was half the build of a message-heavy log and
 * a tenth of a second per million rows of a list). Pure; used by the index build (series
 * samples, messages) and the viewer's rankings. */
#ifndef ELOG_RADIXSORT_H
#define ELOG_RADIXSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sort the n elements of `size` bytes at `base` ascending by the uint64_t stored at byte
 * `key_off` of each; equal keys keep their order. Passes of 11 bits over the span of the
 * keys (largest - smallest), so a narrow span costs few passes. */
void radixsort_by_u64(void *base, size_t n, size_t size, size_t key_off);
/* The same, then each run of equal keys put in `cmp` order (an insertion sort: for runs
 * that are short, such as events at the same nanosecond ordered by file offset). */
void radixsort_by_u64_ties(void *base, size_t n, size_t size, size_t key_off,
                           int (*cmp)(const void *, const void *));

/* Indexes 0..n-1 ranked by key[i], largest first, ties in index order. Never NULL (an
 * empty array for n == 0). Caller frees (x_free). */
size_t *radixsort_rank_desc(const uint64_t *key, size_t n);

/* The same ranking made in parts, each on a thread of its own if wanted: part k ranks
 * the keys [lo, hi) (the parts cover [0, n) in order, without overlap) into words[lo, hi)
 * of a scratch array of n words, using tmp[lo, hi) of another; radixsort_rank_merge then
 * writes the radixsort_rank_desc order into order[0, n) (which may be tmp, not words),
 * computing it whole if some part's keys did not pack. */
#define RADIXSORT_MAX_PARTS 8
typedef struct radixsort_part {
    size_t lo, hi;              /* set by the caller */
    uint64_t most;              /* the part's largest key */
    bool packed;                /* its words are ranked */
} radixsort_part;
void radixsort_rank_part(const uint64_t *key, size_t n, size_t *words, size_t *tmp,
                         radixsort_part *p);
void radixsort_rank_merge(const uint64_t *key, size_t n, const size_t *words,
                          const radixsort_part *p, size_t n_parts, size_t *order);

#endif
