/* perfetto: the timeline index written as Perfetto's native protobuf trace (a `Trace` of
 * `TracePacket`s with TrackDescriptors and TrackEvents), encoded by hand and streamed
 * through a bounded buffer. The same content as export.h's Chrome JSON: one process
 * track per log; under it a track per capability (thread runs; each collection's part as
 * a "GC gen N" slice holding its "GC work" / "GC waiting" phases; messages as instants),
 * a "non-moving GC" track, a "markers" track and counter tracks. Timestamps are the
 * log's nanoseconds, unchanged. On each track the events come in time order, properly
 * nested, with an END before a BEGIN at the same time, so a reader that sorts by time
 * (keeping file order for equal times, as Perfetto's does) rebuilds every slice. */
#ifndef ELOG_PERFETTO_H
#define ELOG_PERFETTO_H

#include <stdbool.h>
#include <stdio.h>

#include "evindex.h"
#include "export.h"

typedef struct perfetto perfetto;

/* Start a trace on `out` (borrowed). Caller ends it with perfetto_finish. */
perfetto *perfetto_new(FILE *out);
/* Add one log (`ix` borrowed for the call) as process o->pid; `counts` may be NULL
 * (its fields mean what they mean for export_chrome_add). */
void perfetto_add(perfetto *w, const evindex *ix, const export_opts *o, export_counts *counts);
/* Flush and free the writer. False if any write failed. */
bool perfetto_finish(perfetto *w);

#endif
