/* show: the `elog-tui show` listing — header event types, then every event in
 * stable time order — written in ghc-events 0.21's exact format. */
#ifndef ELOG_SHOW_H
#define ELOG_SHOW_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "evlog.h"

typedef struct show_stats {
    size_t n_events;            /* event lines written (block markers included) */
    size_t peak_pending;        /* most events held in memory at once by the merge */
} show_stats;

/* Write the listing of `log` to `out`. *ending tells how the data ended (DIAG_OK,
 * DIAG_TRUNCATED or DIAG_BAD_DATA; every complete event before that is listed).
 * Returns false only if writing to `out` failed. `stats` may be NULL. */
bool show_write(const evlog *log, FILE *out, diag *ending, show_stats *stats);

#endif
