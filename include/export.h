/* export: the timeline index written as a trace that other viewers open — Chrome's
 * Trace Event Format (JSON: Perfetto's UI, chrome://tracing) — streamed through a
 * bounded buffer, never held whole. One process per log; in it one track per
 * capability (thread runs, and each collection's part as a "GC" slice holding its
 * work and waiting phases), a non-moving GC track (cycles holding mark, sync and
 * sweep), a markers track, messages as instants on their capability, and counters
 * (heap size, live bytes, spark pool, sparks created and converted). Timestamps are
 * the log's own clock (ns since the RTS started) written in µs with three decimals,
 * so every nanosecond survives. */
#ifndef ELOG_EXPORT_H
#define ELOG_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evindex.h"
#include "strbuf.h"

typedef struct export_chrome export_chrome;

/* What one log contributes to the trace. */
typedef struct export_opts {
    uint64_t from_ns, to_ns;    /* only items overlapping [from_ns, to_ns), kept whole
                                 * (counters: also the sample in force at from_ns);
                                 * 0 and UINT64_MAX for everything */
    unsigned pid;               /* this log's process number in the trace, from 1 */
    const char *name;           /* process name (the file name); borrowed for the call */
} export_opts;

/* What was written for one log (the tests compare these with the trace they parse). */
typedef struct export_counts {
    size_t runs;                /* thread-run slices */
    size_t gc_parts;            /* "GC" slices: one per capability per collection */
    size_t gcs;                 /* distinct collections among them */
    size_t gc_phases;           /* GC work / wait slices inside them */
    size_t nm_cycles, nm_phases;    /* non-moving cycles and their mark/sync/sweep */
    size_t markers, messages;   /* instants */
    size_t counter_samples;     /* "C" events */
} export_counts;

/* Start a trace on `out` (borrowed; must outlive the writer): writes the JSON head.
 * Caller ends it with export_chrome_finish. */
export_chrome *export_chrome_new(FILE *out);
/* Add one log (`ix` borrowed for the call) as process o->pid. `counts` may be NULL. */
void export_chrome_add(export_chrome *w, const evindex *ix, const export_opts *o,
                       export_counts *counts);
/* Close the JSON, flush and free the writer. False if any write failed. */
bool export_chrome_finish(export_chrome *w);

/* Append `len` bytes of untrusted text as they are, except that bytes which are not
 * well-formed UTF-8 become U+FFFD (for protobuf string fields). */
void export_utf8_clean(strbuf *sb, const uint8_t *text, size_t len);

/* Append `len` bytes of untrusted text as a JSON string body (no quotes): quotes,
 * backslashes and control characters escaped, bytes that are not well-formed UTF-8
 * replaced by U+FFFD, so the output is always valid JSON in UTF-8. */
void export_json_string(strbuf *sb, const uint8_t *text, size_t len);

#endif
