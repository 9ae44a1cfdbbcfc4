/* xcheck_ref: a second, deliberately simple reading of an eventlog for the cross-check
 * (tests/test_xcheck.c). It walks the time-ordered event stream (merge + decode only,
 * none of the index structures), rebuilds what `elog-tui gc`, `threads` and `heap`
 * report with plain arrays and per-capability state machines, and writes it as TSV
 * tables with the same column names as the tool. The rules are written down atop
 * xcheck_ref.c. */
#ifndef ELOG_XCHECK_REF_H
#define ELOG_XCHECK_REF_H

#include <stdbool.h>

#include "evlog.h"
#include "strbuf.h"

/* The expected tables, TSV with a header line. */
typedef struct xref_tables {
    strbuf gc;          /* `gc` */
    strbuf parts;       /* the per-capability parts of each collection (JSON "caps") */
    strbuf threads;     /* `threads` */
    strbuf bands;       /* `heap` */
    strbuf censuses;    /* `heap --censuses` */
} xref_tables;

/* Read `log` (borrowed) and fill *out (caller frees with xref_free). */
void xref_build(const evlog *log, xref_tables *out);
void xref_free(xref_tables *t);

#endif
