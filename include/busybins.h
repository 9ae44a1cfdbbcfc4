/* busybins: every HEC lane's run time up to evenly spaced times (its bins' edges), made
 * once for an index (the viewer makes it on a background thread after opening). Between
 * two edges a lane's run time rises by no more than the time that passes, so the edges
 * around any time bound the run time there without reading a run: at a zoom whose
 * columns span many bins, those bounds fix most cells' glyphs (ui/lanes.c reads the runs
 * only for the cells they leave open). */
#ifndef ELOG_BUSYBINS_H
#define ELOG_BUSYBINS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runlane.h"

typedef struct busybins busybins;

/* Bins for the n_lanes lanes (lane i: lanes[i], borrowed only while this runs; NULL: an
 * empty lane) of a log whose runs lie in [first_ns, last_ns]: each lane's width a power
 * of two ns, about two runs a bin, all lanes together at most max_bins bins (each 8
 * bytes). NULL if *cancel turned true while it ran (cancel may be NULL). Caller frees
 * with busybins_free. O(runs). */
busybins *busybins_make(const runlane *const *lanes, size_t n_lanes, uint64_t first_ns,
                        uint64_t last_ns, size_t max_bins, const atomic_bool *cancel);
void busybins_free(busybins *b);

size_t busybins_n_lanes(const busybins *b);
/* Lane i's bin width in ns (0: it has no bins). */
uint64_t busybins_width_ns(const busybins *b, size_t i);
/* Bytes held. */
size_t busybins_bytes(const busybins *b);

/* For n times t[] (any order), bounds lo[m] <= run time of lane i inside [0, t[m]) <=
 * hi[m], equal at a bin edge and outside [first_ns, last_ns]; false (nothing written)
 * if lane i has no bins or they are wider than max_width_ns. */
bool busybins_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                     uint64_t max_width_ns, uint64_t *lo, uint64_t *hi);

#endif
