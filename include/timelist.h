/* timelist: a compact sorted list of timestamps (about 4 bytes each: u32 offsets from
 * per-chunk u64 bases) answering "how many at or before t" in O(log n) — the per-spark
 * events of the index, which can number tens of millions. */
#ifndef ELOG_TIMELIST_H
#define ELOG_TIMELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TIMELIST_CHUNK 4096

typedef struct timelist timelist;

/* Empty list. Caller frees with timelist_free. */
timelist *timelist_new(void);
void timelist_free(timelist *tl);

/* Append t, which must be >= the last time appended (an earlier t is stored as the
 * last time: the list stays sorted). */
void timelist_append(timelist *tl, uint64_t t);
/* Done appending: trims spare capacity. */
void timelist_seal(timelist *tl);

size_t timelist_count(const timelist *tl);
/* Time i (< count). */
uint64_t timelist_get(const timelist *tl, size_t i);
/* Number of times < t. */
size_t timelist_count_before(const timelist *tl, uint64_t t);
/* Number of times in [t0, t1) (0 if t0 >= t1). */
size_t timelist_count_in(const timelist *tl, uint64_t t0, uint64_t t1);

size_t timelist_bytes(const timelist *tl);
/* Invariant checker (tests): sorted, chunk bases and sizes consistent. */
bool timelist_check(const timelist *tl, char *why, size_t why_len);

#endif
