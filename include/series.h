/* series: a time series of (time, u64 value) samples in time order — heap size, live
 * bytes, total allocation, spark pool sizes — bit-packed in chunks of 64 (about 6 bytes
 * a sample), with per-chunk min/max so a screen column's range of values is answered in
 * O(log n) at any zoom. */
#ifndef ELOG_SERIES_H
#define ELOG_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct series_sample {
    uint64_t time_ns;
    uint64_t value;
} series_sample;

typedef struct series series;

/* Empty series. Caller frees with series_free. */
series *series_new(void);
void series_free(series *s);

/* Append a sample. A sample earlier than the last one is stored at the last one's
 * time (series stay sorted; out-of-order input is rare and off by ns). Every query is
 * valid before and after series_seal; appending after a seal is allowed. */
void series_append(series *s, uint64_t time_ns, uint64_t value);
void series_seal(series *s);
/* Keep only the first n samples (n >= count: no change), as if no more had been
 * appended; appending goes on from there. O(64 + log n) plus clearing the bits cut. */
void series_truncate(series *s, size_t n);

size_t series_count(const series *s);
/* Sample i (< count); an out-of-range i gives an all-zero sample. O(64): it may decode
 * a chunk prefix. */
series_sample series_get(const series *s, size_t i);
/* Index of the first sample with time_ns >= t (count if none). */
size_t series_lower_bound(const series *s, uint64_t t);
/* Index of the last sample with time_ns <= t, or SIZE_MAX (the value in force at t). */
size_t series_at(const series *s, uint64_t t);
/* A sweep over (mostly) increasing times: it keeps the chunk it last answered from
 * decoded, so queries that land in it cost a search over plain times, where
 * series_get decodes a chunk's prefix each time. Any order of times gives exact
 * answers. It borrows s, which must not change while it lives. Caller frees:
 * series_sweep_free. */
typedef struct series_sweep series_sweep;
series_sweep *series_sweep_new(const series *s);
void series_sweep_free(series_sweep *sw);
/* series_lower_bound(s, t); *out gets that sample unless the answer is the count. */
size_t series_sweep_lower_bound(series_sweep *sw, uint64_t t, series_sample *out);
/* series_at(s, t); *out gets that sample unless the answer is SIZE_MAX. */
size_t series_sweep_at(series_sweep *sw, uint64_t t, series_sample *out);
/* Min and max value of the samples with time in [t0, t1). False if there are none
 * (t0 >= t1 included); then *min and *max are left alone. O(log n + 64). */
bool series_range(const series *s, uint64_t t0, uint64_t t1, uint64_t *min, uint64_t *max);
/* The largest value of each column [t[c], t[c + 1]), c < n, counting the value in force
 * at t[c] (the last sample at or before it) as series_at and series_range would: into
 * max[c], with any[c] false (and max[c] 0) where no sample is at or before t[c + 1] - 1.
 * t[0..n] increasing. Each edge's chunk is found from the chunk headers; a column whose
 * edge chunks cannot hold more than the whole chunks inside it is answered by the min/max
 * pyramid, others decode their edge chunks (each at most once): O(n log n) and at most
 * n + 1 chunks decoded, for a screen row at any zoom. */
void series_col_max_many(const series *s, const uint64_t *t, size_t n, uint64_t *max,
                         bool *any);
/* series_col_max_many for the columns c with want[c] only: the others get max[c] 0 (and
 * any[c] as there); only the chunks the wanted columns need are decoded. */
void series_col_max_some(const series *s, const uint64_t *t, size_t n, const bool *want,
                         uint64_t *max, bool *any);
/* Bounds on series_col_max_many's answers from the chunk headers alone, decoding nothing:
 * lo[c] <= max[c] <= hi[c] where any[c] (the same any[c]; lo[c] and hi[c] 0 elsewhere).
 * O(log n) a column and the search for its edges' chunks. */
void series_col_bounds_many(const series *s, const uint64_t *t, size_t n, uint64_t *lo,
                            uint64_t *hi, bool *any);
/* Largest value of all samples (0 if empty). */
uint64_t series_max(const series *s);

size_t series_bytes(const series *s);
/* Invariant checker (tests). */
bool series_check(const series *s, char *why, size_t why_len);

/* Tests only: damage one field or summary at sample i so a test can show that
 * series_check notices. False if the series has nothing there to damage. */
typedef enum series_corrupt {
    SERIES_CORRUPT_ORDER,       /* sample i is earlier than sample i-1 */
    SERIES_CORRUPT_CHUNK_MIN,   /* the min of sample i's packed chunk is wrong */
    SERIES_CORRUPT_TOP_MAX,     /* the top of the min/max pyramid has the wrong max */
    SERIES_CORRUPT_MAX,         /* the cached largest value is wrong */
    SERIES_CORRUPT_WIDTH,       /* the value field width of sample i's packed chunk is wrong */
    SERIES_CORRUPT_SLACK,       /* a bit past the end of the packed data is set */
} series_corrupt;
bool series_test_corrupt(series *s, series_corrupt what, size_t i);

#endif
