/* heapbands: heap-profile bands named for people and ranked — a -hi band (an
 * info-table address) by the IPE entry the log has for it (table name, closure type,
 * type, label, module, source location), a -he band as "era N", every other band as
 * heapprof_band_name gives it — and the bands ordered by peak, the census values a
 * stacked plot needs. */
#ifndef ELOG_HEAPBANDS_H
#define ELOG_HEAPBANDS_H

#include <stddef.h>
#include <stdint.h>

#include "heapprof.h"
#include "ipe.h"
#include "strbuf.h"

/* The IPE entry of band b (-hi profiles only), or NULL (no entry for its address, or
 * not an info-table band). The entry may name the table's info pointer instead of its
 * struct address (GHC 9.2: 16 or 24 bytes further). */
const ipe_entry *heapbands_ipe(const heapprof *hp, const ipe_table *ipe, size_t b);
/* Append band b's name: with an IPE entry "label :: type (CLOSURE_TYPE) at module
 * src_loc [table_name]" (parts the entry leaves empty left out); for -he "era N";
 * else heapprof_band_name's text. Raw log bytes: escape them for the output. */
void heapbands_name(const heapprof *hp, const ipe_table *ipe, size_t b, strbuf *out);

/* Band indexes by peak bytes, largest first (ties: first seen first). Caller frees
 * (x_free); *n receives the count (heapprof_n_bands). */
uint32_t *heapbands_by_peak(const heapprof *hp, size_t *n);
/* The first k of heapbands_by_peak's order into top[] (k entries), without sorting every
 * band: O(bands * k). Returns how many (k, or fewer when the profile has fewer bands). */
size_t heapbands_top_by_peak(const heapprof *hp, size_t k, uint32_t *top);
/* Band b's bytes in census i (0 if absent from it). O(entries of the census). */
uint64_t heapbands_bytes(const heapprof *hp, size_t i, uint32_t b);
/* Largest census total (the height a stacked plot scales to). */
uint64_t heapbands_max_total(const heapprof *hp);

#endif
