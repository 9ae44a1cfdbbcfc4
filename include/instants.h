/* instants: the instant events the timeline shows as ticks when zoomed in far enough —
 * thread creation, wake-up, migration, spark events, messages — found among the events
 * of a time range through the seek table, with a glyph each and words that name them
 * (a wake-up says which thread woke which). */
#ifndef ELOG_INSTANTS_H
#define ELOG_INSTANTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "strbuf.h"

typedef enum instants_kind {
    INSTANTS_CREATE,            /* CREATE_THREAD */
    INSTANTS_WAKEUP,            /* THREAD_WAKEUP */
    INSTANTS_MIGRATE,           /* MIGRATE_THREAD */
    INSTANTS_SPARK,             /* SPARK_* and CREATE_SPARK_THREAD */
    INSTANTS_MESSAGE,           /* USER_MSG, LOG_MSG, USER_MARKER */
    INSTANTS_N_KINDS
} instants_kind;

typedef struct instant {
    uint64_t time_ns;
    uint64_t offset;            /* the event in the file */
    uint16_t cap;               /* the capability that posted it (EVINDEX_NO_CAP: none) */
    uint8_t kind;               /* instants_kind */
} instant;

/* Most events a range may hold for its instants to be shown (per plot column: the
 * lanes ask for at most this times their width). */
#define INSTANTS_PER_COL 2

/* The kind of event type `type`, or -1 when it is not one of these instants. */
int instants_kind_of(uint16_t type);
/* Its tick: 'C' create, 'W' wake-up, 'M' migrate, 'S' spark, '*' message (the same in
 * UTF-8 and ASCII, so every terminal shows the same letters). */
uint32_t instants_glyph(instants_kind kind);
/* Its name: "thread created", "wake-up", "migration", "spark event", "message". */
const char *instants_name(instants_kind kind);

/* The instants of [t0, t1) in time order into out[0 .. max_events), when the range holds
 * at most max_events events of any type; SIZE_MAX when it holds more (too far out to
 * show them). */
size_t instants_in(const evindex *ix, uint64_t t0, uint64_t t1, size_t max_events,
                   instant *out);

/* One line naming it, without the time: "thread 3 (on HEC 0) woke thread 12 (on HEC 1)",
 * "thread 7 created thread 12 on HEC 0", "thread 12 migrated HEC 0 -> HEC 3", or for
 * sparks and messages the event's `show` text ("stealing a spark from cap 0"). */
void instants_text(strbuf *out, const evindex *ix, const instant *in);

#endif
