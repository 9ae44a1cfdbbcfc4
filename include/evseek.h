/* evseek: find the events of a time range by file position, without reading the
 * whole log. While the index pass walks the file it records each stretch of events
 * (a capability block) with its time bounds, and a resume point every
 * EVSEEK_STRIDE events; a query re-reads only the stretches and strides that can
 * hold events of the range and returns them in time order. */
#ifndef ELOG_EVSEEK_H
#define ELOG_EVSEEK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evlog.h"

#define EVSEEK_STRIDE 512

typedef struct evseek evseek;

/* One event found by a query. */
typedef struct evseek_hit {
    uint64_t time_ns;
    uint64_t offset;            /* of the event; evlog_event_at(log, offset, cap, ...) */
    uint16_t cap;
} evseek_hit;

/* Empty recorder. Caller frees with evseek_free. */
evseek *evseek_new(void);
void evseek_free(evseek *s);

/* Record one event, right after evlog_iter_next returned it from `it` (so `it` now
 * stands just after it). Every event of the pass must be recorded, in file order. */
void evseek_note(evseek *s, const evlog_iter *it, const evlog_event *ev);
/* Record a run of n events, right after evlog_iter_next_run returned it from `it`: as
 * evseek_note for each in turn. min_ns and max_ns are the least and greatest time_ns of
 * ev[0..n) (the walk has them at hand: a run inside a stride reads no event again). */
void evseek_note_run(evseek *s, const evlog_iter *it, const evlog_event *ev, size_t n,
                     uint64_t min_ns, uint64_t max_ns);
/* Append everything `src` recorded (over the same log, in other parts of the file)
 * to `dst`; neither may be sealed. src is left empty. For builds that split the log. */
void evseek_merge(evseek *dst, evseek *src);
/* Make what was recorded so far queryable, recording may go on: for an index that
 * grows. `it` (may be NULL) is the recording pass's iterator, standing before the next
 * event: the stretch open now ends here and the next one starts from that state (it
 * may be mid-block). Sorts only the stretches recorded since the last publish into
 * place, O(new log new + the sorted ones they pass). */
void evseek_publish(evseek *s, const evlog_iter *it);
/* Done recording: publishes and trims; nothing may be noted afterwards. Queries need
 * a published or sealed recorder. */
void evseek_seal(evseek *s);

/* Changes at every publish and at the seal (whenever what a query answers may change),
 * so a caller may keep a query's answer while it stays the same. */
uint64_t evseek_generation(const evseek *s);
/* Number of stretches recorded (tests, bench). */
size_t evseek_n_stretches(const evseek *s);
/* The latest timestamp of the events recorded in capability cap's blocks (0 if none),
 * sealed or not; O(stretches). */
uint64_t evseek_cap_last_ns(const evseek *s, uint16_t cap);

/* Whether [t0, t1) surely holds more than `max` events, counting only the stretches, or
 * runs of whole strides of a stretch, that its checkpoints' time bounds put wholly inside
 * it (false: not known). O(stretches starting before t1 + log strides of those that
 * overlap it), no log reads: the check a caller that gives up on a crowded range makes
 * before evseek_range. */
bool evseek_more_than(const evseek *s, uint64_t t0, uint64_t t1, size_t max);

/* The events with time in [t0, t1), in time order (ties: the order `show` prints,
 * i.e. file order), at most `max` of them into out[]; returns how many were stored.
 * *more (if not NULL) tells whether the range held more than `max`; when it did, the
 * ones kept are the earliest. `log` must be the log that was recorded. */
size_t evseek_range(const evseek *s, const evlog *log, uint64_t t0, uint64_t t1,
                    evseek_hit *out, size_t max, bool *more);
/* All the events of [t0, t1) as evseek_range gives them when there are at most `max`;
 * when there are more, *more is set and the query stops at the first one past `max`
 * (out[] then holds no particular ones): for a caller that gives up on a crowded range,
 * which then costs about the reading of max + 1 of its events. */
size_t evseek_range_all(const evseek *s, const evlog *log, uint64_t t0, uint64_t t1,
                        evseek_hit *out, size_t max, bool *more);
/* The same over the events of capability `cap` only: reads none of the other
 * capabilities' stretches (a lookup of one cap's event on a log of many caps). */
size_t evseek_range_cap(const evseek *s, const evlog *log, uint16_t cap, uint64_t t0,
                        uint64_t t1, evseek_hit *out, size_t max, bool *more);

size_t evseek_bytes(const evseek *s);
bool evseek_check(const evseek *s, char *why, size_t why_len);
/* Tests: a and b hold the same stretches and checkpoints (iterator marks included). */
bool evseek_equal(const evseek *a, const evseek *b);

#endif
