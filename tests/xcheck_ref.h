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

/* Rules the reference follows that the tool may not yet follow, and rules where the two
 * are known to disagree (see the pending and findings tables in test_xcheck.c). A row
 * carries the bits of the rules that decide one of its cells, in its hidden "_rules"
 * column. */
enum {
    XREF_RULE_STOPPING = 1,     /* gc: stopping_ns = leader GC_START - request (rule a) */
    XREF_RULE_CENSUS = 2,       /* gc: census_ns column (rule b) */
    XREF_RULE_CENSUS_IDLE = 4,  /* gc: this row's leader idle excludes a census (rule b) */
    XREF_RULE_OPEN_RUN = 8,     /* threads: a run left open at the end of the data (rule c) */
    XREF_FINDING_CENSUS_NO_END = 16,    /* gc: a census in the pause has no SAMPLE_END */
    XREF_BIO_CENSUS = 32,       /* gc: a biographical census in the pause (flag) */
};

/* The expected tables, TSV with a header line; columns whose name starts with '_' are
 * notes, not compared. */
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
