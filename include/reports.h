/* reports: the index's tables for scripts — one row per collection (`gc`), per marker
 * or message (`markers`), per thread (`threads`), per heap-profile band or census entry
 * (`heap`) — as TSV with a header line or as JSON. Text from the log is made safe for
 * each format (TSV escapes, JSON strings, invalid UTF-8 as U+FFFD). */
#ifndef ELOG_REPORTS_H
#define ELOG_REPORTS_H

#include <stdbool.h>
#include <stddef.h>

#include "evindex.h"
#include "strbuf.h"

typedef struct reports_opts {
    bool json;
    bool sort_by_pause;         /* gc: longest pause first (ties: earlier first) */
    bool sort_by_run;           /* threads: most run time first (ties: lower id) */
    bool messages;              /* markers: also USER_MSG, LOG_MSG, binary messages */
    bool censuses;              /* heap: one row per band per census instead of per band */
    bool sort_by_allocs;        /* ticky: most allocation first (else most entries) */
    bool samples;               /* ticky: one row per counter per sample (TSV) */
    size_t limit;               /* at most this many rows; 0 = all */
    /* If set, handed `out` whenever it holds flush_bytes (0: REPORTS_FLUSH_BYTES) or
     * more, to write it out and empty it: a table of millions of rows (gc, threads)
     * never sits whole in memory. */
    void (*flush)(void *ctx, strbuf *out);
    void *flush_ctx;
    size_t flush_bytes;
} reports_opts;

#define REPORTS_FLUSH_BYTES (1u << 20)

/* Append the table to `out`. */
void reports_gc(strbuf *out, const evindex *ix, const reports_opts *o);
void reports_markers(strbuf *out, const evindex *ix, const reports_opts *o);
void reports_threads(strbuf *out, const evindex *ix, const reports_opts *o);
/* Heap-profile bands, largest peak first (ties: first seen first): name, kind (stack or
 * string), peak bytes and its census time, mean bytes over all censuses, bytes in the
 * last census, censuses it appears in. With o->censuses: time, band, bytes per census
 * entry in time order (limit: the first N censuses). A -hi profile's rows (both forms)
 * also name the band from its IPE entry: info_table, closure_type, type, label, module,
 * src_loc (empty cells / JSON nulls for an address without one). */
void reports_heap(strbuf *out, const evindex *ix, const reports_opts *o);

/* Ticky-ticky counters (reports_ticky.c), most entries first (o->sort_by_allocs: most
 * allocation; ties in definition order): counter id, name, arity, kinds, info table
 * (hex, "-" in layouts without one), entries, allocs, allocd, samples it appears in,
 * JSON description, and (-hi style) the IPE name of its info table. With o->samples
 * (TSV): time, sample number, counter, name, entries, allocs, allocd per counter per
 * sample. JSON: {"layout", "samples": [time, totals], "counters": [... with "samples":
 * per-sample values]}. */
void reports_ticky(strbuf *out, const evindex *ix, const reports_opts *o);

/* The flat time profile (reports_prof.c; +RTS -p -l) of the samples taken from_ns ..
 * to_ns (inclusive) on capability `cap` (TIMEPROF_ANY_CAP: all): a "# time profile"
 * line (samples, capabilities, tick interval, range), then per cost centre, most
 * individual samples first (see timeprof_flat; o->limit: the first N): id ("MAIN" for
 * the empty stack), label, module, source location, is_caf, individual samples and
 * percent of all, inherited samples and percent, and both as time (samples times the
 * tick interval; "-" without PROF_BEGIN). JSON: {"interval_ns", "samples", "from_ns",
 * "to_ns", "cap", "cost_centres": [...]}. */
void reports_prof(strbuf *out, const evindex *ix, const reports_opts *o, uint64_t from_ns,
                  uint64_t to_ns, uint32_t cap);

/* Text of a log string for one TSV cell: UTF-8 with invalid bytes as U+FFFD, and
 * backslash, tab, CR, LF and other controls escaped (\\ \t \r \n \xHH). */
void reports_tsv_text(strbuf *out, const uint8_t *p, size_t n);
/* A JSON string literal (quotes included) of log text, invalid UTF-8 as U+FFFD. */
void reports_json_text(strbuf *out, const uint8_t *p, size_t n);

#endif
