/* livelog: a live source (livesrc) seen as an eventlog that grows: once the header
 * has arrived, a growing evlog over the source's file, taking new bytes on each
 * update. Downstream code reads it like any log (iterators stop as truncated at the
 * newest byte; evlog_iter_resume goes on after an update). */
#ifndef ELOG_LIVELOG_H
#define ELOG_LIVELOG_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "evlog.h"
#include "livesrc.h"

typedef struct livelog livelog;

/* Address space set aside for a live log: 1 TiB (see mapfile_open_growing). */
#define LIVELOG_RESERVE ((size_t)1 << 40)

/* Start reading `spec` (see livesrc_open). NULL with `d`. Caller frees. */
livelog *livelog_open(const char *spec, const livesrc_opts *o, diag *d);
/* Wait at most `timeout_ms` for bytes the log does not hold yet, then take what came:
 * the log grows to it (or is opened, once the header is whole). *st (may be NULL)
 * gets the source's status. False when the log cannot be read (*err: the header is
 * malformed, or the stream ended or was lost before the header was whole, or a map
 * failed); reading then stops. */
bool livelog_update(livelog *l, int timeout_ms, livesrc_status *st, diag *err);
/* The log; NULL until its header has arrived. Owned by l. */
evlog *livelog_log(const livelog *l);
livesrc *livelog_src(const livelog *l);
/* No byte will come any more: the source ended, was lost or stopped (after an update
 * has taken its last bytes). */
bool livelog_final(const livelog *l);
/* Stop reading the source (its bytes stay) and give the log to the caller, who
 * closes it with evlog_close; l is freed. NULL if the header never came. */
evlog *livelog_detach(livelog *l);
/* Stop reading and free everything; NULL is a no-op. */
void livelog_close(livelog *l);

#endif
