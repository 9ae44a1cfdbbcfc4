/* busybins: every HEC lane's run time, and GC time of two kinds, up to evenly spaced
 * times (its bins' edges), made once for an index (the viewer makes them on a background
 * thread after opening). Between two edges a lane's run (GC) time rises by no more than
 * the time that passes, so the edges around any time bound it there without reading a
 * run or a phase: at a zoom whose columns span many bins, those bounds fix most cells'
 * glyphs (ui/lanes.c reads the runs and phases only for the cells they leave open). */
#ifndef ELOG_BUSYBINS_H
#define ELOG_BUSYBINS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ivtrack.h"
#include "runlane.h"

typedef struct busybins busybins;

/* What a lane's bins are made of, borrowed only while busybins_make runs: its runs and
 * its GC phases (either NULL: none). */
typedef struct busybins_src {
    const runlane *runs;
    const ivtrack *gc;
} busybins_src;

/* Bins for the n_lanes lanes of a log whose runs and phases lie in [first_ns, last_ns]:
 * of each lane's runs and, apart, of its GC phases of kinds gc_kind[0] and gc_kind[1]
 * (< IVTRACK_KINDS); each width a power of two ns, about two runs (phases) a bin, at
 * most max_bins run bins in all and max_bins / 2 GC ones (8 bytes each a run bin, 16 a
 * GC one). NULL if *cancel turned true while it ran (cancel may be NULL). Caller frees
 * with busybins_free. O(runs + phases). */
busybins *busybins_make(const busybins_src *lanes, size_t n_lanes, const unsigned gc_kind[2],
                        uint64_t first_ns, uint64_t last_ns, size_t max_bins,
                        const atomic_bool *cancel);
void busybins_free(busybins *b);

size_t busybins_n_lanes(const busybins *b);
/* Lane i's run (GC) bin width in ns (0: it has no such bins). */
uint64_t busybins_width_ns(const busybins *b, size_t i);
uint64_t busybins_gc_width_ns(const busybins *b, size_t i);
/* Bytes held. */
size_t busybins_bytes(const busybins *b);

/* For n times t[] (any order), bounds lo[m] <= run time of lane i inside [0, t[m]) <=
 * hi[m], equal at a bin edge and outside [first_ns, last_ns]; false (nothing written)
 * if lane i has no bins or they are wider than max_width_ns. */
bool busybins_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                     uint64_t max_width_ns, uint64_t *lo, uint64_t *hi);
/* The same for lane i's GC time of kind gc_kind[k] inside [0, t[m]) (k = 0, 1):
 * lo[k][m] <= it <= hi[k][m]. */
bool busybins_gc_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                        uint64_t max_width_ns, uint64_t *const lo[2], uint64_t *const hi[2]);

#endif
