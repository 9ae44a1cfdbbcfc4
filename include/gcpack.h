/* gcpack: the index's collections (evindex_gc) and their per-capability parts
 * (evindex_gc_part), packed GCPACK_CHUNK records at a time into frame-of-reference
 * columns of per-chunk widths: each field is first turned into a small code (times as
 * differences from the record's own start, a part's from its collection's, unknown
 * values as an escape code, a capability as cap + 1) and a chunk keeps each column's
 * least code and the fewest bits above it (or only the codes that differ from it).
 * A collection takes about 28 bytes where a plain record takes 144, a part about 8
 * where it takes 48. Records are read by value into a caller's buffer, so readers on
 * any thread share nothing; the last, partial chunk stays as plain codes, so the tail
 * can be cut back and appended again (a growing index's join). */
#ifndef ELOG_GCPACK_H
#define ELOG_GCPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"

/* Records per chunk (a power of two). Public only so tests can cross chunk edges. */
#define GCPACK_CHUNK 128

typedef struct gcpack gcpack;

/* Empty store. Caller frees with gcpack_free. */
gcpack *gcpack_new(void);
void gcpack_free(gcpack *gp);

size_t gcpack_n_gcs(const gcpack *gp);
size_t gcpack_n_parts(const gcpack *gp);
/* Append a record; any values at all round-trip exactly. A part belongs to the
 * collection appended last before it (its times are kept relative to that one's):
 * append a collection, then its parts. */
void gcpack_append_gc(gcpack *gp, const evindex_gc *g);
void gcpack_append_part(gcpack *gp, const evindex_gc_part *p);
/* Keep only the first n_gcs collections and n_parts parts (larger counts are
 * ignored); later appends follow them. Parts go with their collections: no part kept
 * may belong to a collection cut off. */
void gcpack_truncate(gcpack *gp, size_t n_gcs, size_t n_parts);
/* Give back spare room once no more appends are expected (appending stays allowed). */
void gcpack_seal(gcpack *gp);

/* Collection i (< n_gcs) into *buf, returning buf; NULL (buf untouched) otherwise. */
const evindex_gc *gcpack_gc(const gcpack *gp, size_t i, evindex_gc *buf);
const evindex_gc_part *gcpack_part(const gcpack *gp, size_t i, evindex_gc_part *buf);
/* Collection i's (< n_gcs) pause, request, generation and flags alone, several times
 * cheaper than gcpack_gc. */
void gcpack_gc_brief(const gcpack *gp, size_t i, evindex_gc_brief *b);
/* Collection i's start_ns alone (i < n_gcs), for searches. */
uint64_t gcpack_gc_start(const gcpack *gp, size_t i);

/* Heap bytes held, at capacity. */
size_t gcpack_bytes(const gcpack *gp);
/* Invariant checker (tests): every chunk's widths are the fewest that hold its codes,
 * its columns follow the previous chunk's, and every record encodes back to the codes
 * it was read from. */
bool gcpack_check(const gcpack *gp, char *why, size_t why_len);

#endif
