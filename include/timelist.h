/* timelist: a compact, exact sorted list of timestamps (about 2 bytes each on dense data:
 * Elias–Fano coded chunks) answering "how many before t" in O(log n) — the per-spark
 * events of the index, which can number tens of millions. */
#ifndef ELOG_TIMELIST_H
#define ELOG_TIMELIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Times per coded chunk; appends are buffered raw until a chunk's worth is ready. */
#define TIMELIST_CHUNK 1024

typedef struct timelist timelist;

/* Empty list. Caller frees with timelist_free. */
timelist *timelist_new(void);
void timelist_free(timelist *tl);

/* Append t, which must be >= the last time appended (an earlier t is stored as the
 * last time: the list stays sorted). Amortised O(1). Appending after seal is allowed. */
void timelist_append(timelist *tl, uint64_t t);
/* Append every time of src (left as it is) after dst's, as timelist_append would have
 * taken them (the list stays sorted: times before dst's last become it). O(src). */
void timelist_append_list(timelist *dst, const timelist *src);
/* Done appending: codes the buffered tail, drops the append buffer, trims spare capacity. */
void timelist_seal(timelist *tl);

/* All queries are valid at any time, sealed or not, and exact: every appended time is
 * recovered bit for bit. */
size_t timelist_count(const timelist *tl);
/* Time i (< count; 0 otherwise). */
uint64_t timelist_get(const timelist *tl, size_t i);
/* Number of times < t. */
size_t timelist_count_before(const timelist *tl, uint64_t t);
/* timelist_count_before of each of the n increasing times t[] into out[]: one sweep
 * that gallops on from chunk to chunk and, within a chunk, goes on from where the last
 * answer stopped (a screen row's column edges). */
void timelist_count_before_many(const timelist *tl, const uint64_t *t, size_t n, size_t *out);
/* Number of times in [t0, t1) (0 if t0 >= t1). */
size_t timelist_count_in(const timelist *tl, uint64_t t0, uint64_t t1);

/* Bytes held, including the struct and, before seal, the append buffer. */
size_t timelist_bytes(const timelist *tl);
/* Invariant checker (tests): chunks sized and placed consistently, their bit vectors
 * well formed, every time in order. */
bool timelist_check(const timelist *tl, char *why, size_t why_len);

/* Tests only: damage the list at time i so a test can show that timelist_check
 * notices. False if there is nothing there to damage. */
typedef enum timelist_corrupt {
    TIMELIST_CORRUPT_BASE,      /* the base of time i's coded chunk is past its successor */
    TIMELIST_CORRUPT_HIGH_BIT,  /* a bit of the high-part vector of time i's chunk flips */
    TIMELIST_CORRUPT_TAIL,      /* buffered time i is earlier than the one before */
} timelist_corrupt;
bool timelist_test_corrupt(timelist *tl, timelist_corrupt what, size_t i);

#endif
