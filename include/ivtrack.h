/* ivtrack: a time-sorted array of non-overlapping intervals, each of a small kind
 * (GC work / GC waiting on a capability; mark / sync / sweep of the non-moving
 * collector) and carrying a reference number. Intervals are bit-packed a chunk of
 * IVTRACK_CHUNK at a time (about 9 bytes each with its reference, where a plain record
 * takes 24); the chunk's header keeps per-kind prefix sums, so the time of each kind
 * inside any [t0, t1) is answered in O(log n + IVTRACK_CHUNK). */
#ifndef ELOG_IVTRACK_H
#define ELOG_IVTRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IVTRACK_KINDS 4
/* Intervals per chunk (a power of two); each chunk's header holds its first start and
 * the time of each kind before it. Public only so tests can size tracks around chunk edges. */
#define IVTRACK_CHUNK 64

typedef struct ivtrack_iv {
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t ref;               /* caller's number (e.g. a GC record index), or UINT32_MAX */
    uint8_t kind;               /* < IVTRACK_KINDS */
    uint8_t flags;              /* IVTRACK_F_* */
} ivtrack_iv;

enum {
    IVTRACK_F_OPEN = 1,         /* no end event: closed at the log's last timestamp */
    IVTRACK_F_CLIPPED = 2,      /* start moved forward to the previous interval's end */
};

typedef struct ivtrack ivtrack;

/* Empty track. Caller frees with ivtrack_free. */
ivtrack *ivtrack_new(void);
void ivtrack_free(ivtrack *tr);

/* Append in start order; overlap with the previous interval is clipped as in
 * runlane_append (false if the interval is dropped, or kind is out of range).
 * Of the caller's flags only IVTRACK_F_OPEN is kept; IVTRACK_F_CLIPPED is set
 * exactly when this call clipped. */
bool ivtrack_append(ivtrack *tr, const ivtrack_iv *iv);
/* Append every interval of src (left as it is, refs included) after dst's, as
 * ivtrack_append would have taken them; the flags src set are kept. O(src). */
void ivtrack_append_track(ivtrack *dst, const ivtrack *src);
void ivtrack_seal(ivtrack *tr);

size_t ivtrack_count(const ivtrack *tr);
/* Interval i (< count) into *buf, returning buf; NULL (buf untouched) otherwise. */
const ivtrack_iv *ivtrack_get(const ivtrack *tr, size_t i, ivtrack_iv *buf);
/* Set interval i's ref (the GC join fills refs after building); i >= count is ignored.
 * Setting a packed ref unpacks them all (slow: meant for refs not yet packed). */
void ivtrack_set_ref(ivtrack *tr, size_t i, uint32_t ref);
/* Where a sweep over GC spans in start order stands (ivtrack_set_refs_span): the
 * ivtrack_first_after of the last span's start and end. IVTRACK_SPAN_CUR_INIT: none. */
typedef struct ivtrack_span_cur {
    size_t at0, at1;            /* SIZE_MAX: not known */
    uint64_t t0, t1;
} ivtrack_span_cur;
#define IVTRACK_SPAN_CUR_INIT ((ivtrack_span_cur){ SIZE_MAX, SIZE_MAX, 0, 0 })
/* Set the refs of the intervals a GC span [t0, t1] holds to `ref`: from
 * ivtrack_first_after(t0) on, while they start before t1 (or at t1 when t1 <= t0).
 * The search for ivtrack_first_after(t0) walks on from where *cur stands when the span
 * starts at or after the last one's end (or start), else searches: a sweep over a
 * lane's spans in start order costs about the intervals it sets. Returns the index
 * past the last interval set. */
size_t ivtrack_set_refs_span(ivtrack *tr, ivtrack_span_cur *cur, uint64_t t0, uint64_t t1,
                             uint32_t ref);
/* Pack the refs of the full chunks (once they are final): about a byte each where refs
 * rise slowly, as a GC track's collection numbers do. Later appends stay plain. */
void ivtrack_pack_refs(ivtrack *tr);
/* The same for the full chunks before interval `upto` alone (their refs final, those
 * after may still change): a join packs as it goes. The bytes after every chunk is
 * packed are ivtrack_pack_refs's. */
void ivtrack_pack_refs_before(ivtrack *tr, size_t upto);
/* Index of the first interval with end_ns > t, or that starts at t (count if none). */
size_t ivtrack_first_after(const ivtrack *tr, uint64_t t);
/* The same for a sweep over increasing times: the search gallops forward from chunk
 * *hint (0 to begin; any value is safe) and leaves there the chunk of the answer. */
size_t ivtrack_first_after_near(const ivtrack *tr, uint64_t t, size_t *hint);
/* Index of the last interval with start_ns <= t, or SIZE_MAX. */
size_t ivtrack_last_starting_by(const ivtrack *tr, uint64_t t);
/* Time of `kind` inside [t0, t1), in ns. O(log n + IVTRACK_CHUNK). */
uint64_t ivtrack_kind_ns(const ivtrack *tr, unsigned kind, uint64_t t0, uint64_t t1);
/* For n ascending times t[m] (a screen's column boundaries), the time of each kind inside
 * [0, t[m]) into out[m * IVTRACK_KINDS + kind]: one sweep, one search for all kinds, or
 * none when t[m] falls a few intervals past t[m - 1]'s in the same chunk (a walk on from
 * there). Times out of order are answered too (searched afresh). */
void ivtrack_kinds_upto_many(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out);
/* Bounds on ivtrack_kinds_upto_many's answers from the chunks' headers alone, without
 * reading a packed interval: lo[m * IVTRACK_KINDS + kind] <= time <= hi[...], equal where
 * known (before the first interval; in the last chunk, read exactly). Each gap is at
 * most the kind's time in the chunk holding t[m] and the time from its first start or
 * to the next chunk's. Best for ascending times (a gallop from the last answer). */
void ivtrack_kinds_bounds_many(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *lo,
                               uint64_t *hi);
/* The same by reading the intervals in [t[0], t[n - 1]) in order, for when they are few
 * (a zoomed-in screen): the time of each kind inside [t[0], t[m]) into
 * out[m * IVTRACK_KINDS + kind] (out[0..IVTRACK_KINDS) all zero), that is exactly the
 * difference of ivtrack_kinds_upto_many's answers for t[m] and t[0]. O(log n + intervals). */
void ivtrack_kinds_walk(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out);
/* Number of intervals (any kind) overlapping [t0, t1); zero-length ones count at t. */
size_t ivtrack_count_in(const ivtrack *tr, uint64_t t0, uint64_t t1);
/* ivtrack_count_in to within two chunks, never below it: count_in <= about <= count_in +
 * 2 * IVTRACK_CHUNK. From chunk searches alone (no chunk's columns read, which cold
 * costs a wait a load): for choosing how to read a view, not for drawing it. */
size_t ivtrack_count_in_about(const ivtrack *tr, uint64_t t0, uint64_t t1);

/* Bytes the track holds: handle, packed columns, references and chunk headers, at
 * capacity. */
size_t ivtrack_bytes(const ivtrack *tr);
/* Invariant checker (tests), as runlane_check. */
bool ivtrack_check(const ivtrack *tr, char *why, size_t why_len);

/* Tests only: damage one field or summary at interval i so a test can show that
 * ivtrack_check notices. False if the track has nothing there to damage. */
typedef enum ivtrack_corrupt {
    IVTRACK_CORRUPT_ORDER,      /* interval i starts before interval i-1 ends */
    IVTRACK_CORRUPT_KIND,       /* interval i's kind is out of range */
    IVTRACK_CORRUPT_FLAGS,      /* interval i carries an unknown flag bit */
    IVTRACK_CORRUPT_PREFIX,     /* the prefix sum of interval i's kind kept in the header
                                 * of i's chunk (IVTRACK_CHUNK intervals) is off by one */
    IVTRACK_CORRUPT_CHUNK_START, /* that header's copy of its first start has bit 0 flipped */
    IVTRACK_CORRUPT_MID,        /* interval i's packed chunk's middle word has a bit flipped */
} ivtrack_corrupt;
bool ivtrack_test_corrupt(ivtrack *tr, ivtrack_corrupt what, size_t i);

#endif
