/* mmusrc: the spans during which the mutator was stopped, read from a log's index, for
 * mmu. Whole program: each collection's stop-the-world pause (the `gc` table's pause
 * column: the leader's GC_START .. GC_END), or with the time to stop from its request.
 * One capability: that capability's own GC time (its GC_START .. GC_END), or from the
 * moment it stopped mutating for the collection. */
#ifndef ELOG_MMUSRC_H
#define ELOG_MMUSRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "mmu.h"

typedef struct mmusrc_opts {
    bool with_stop;             /* from the request (per cap: from when it stopped) */
    bool per_cap;               /* only capability `cap`'s own GC time */
    uint16_t cap;
} mmusrc_opts;

/* The spans of every collection (those with a pause), in collection order; *n receives
 * the count. Caller frees with x_free. */
mmu_span *mmusrc_spans(const evindex *ix, const mmusrc_opts *o, size_t *n);

/* An mmu of the index over [from_ns, to_ns) (see mmu_new). Caller frees with mmu_free. */
mmu *mmusrc_new(const evindex *ix, const mmusrc_opts *o, uint64_t from_ns, uint64_t to_ns);

#endif
