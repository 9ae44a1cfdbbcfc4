/* radixsort: a stable LSD radix sort on a 64-bit key, a few sequential passes over the
 * data instead of a comparison sort (qsort was half the build of a message-heavy log and
 * a tenth of a second per million rows of a list). Pure; used by the index build (series
 * samples, messages) and the viewer's rankings. */
#ifndef ELOG_RADIXSORT_H
#define ELOG_RADIXSORT_H

#include <stddef.h>
#include <stdint.h>

/* Sort the n elements of `size` bytes at `base` ascending by the uint64_t stored at byte
 * `key_off` of each; equal keys keep their order. Passes of 11 bits over the span of the
 * keys (largest - smallest), so a narrow span costs few passes. */
void radixsort_by_u64(void *base, size_t n, size_t size, size_t key_off);

/* Indexes 0..n-1 ranked by key[i], largest first, ties in index order. Never NULL (an
 * empty array for n == 0). Caller frees (x_free). */
size_t *radixsort_rank_desc(const uint64_t *key, size_t n);

#endif
