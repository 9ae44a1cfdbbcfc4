/* decode: turn one raw event into field values, driven by the evtype table.
 * Fields that fit in the payload are decoded; `printable` says whether the event
 * has everything ghc-events needs to render it with its template. */
#ifndef ELOG_DECODE_H
#define ELOG_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "evlog.h"
#include "evtype.h"

/* One field: integers in `u`; text and byte fields as a slice of the mapping
 * (`p`, `len`); a cost-centre stack as `u` = depth and `p` = the u32 array. */
typedef struct evval {
    uint64_t u;
    const uint8_t *p;
    uint32_t len;
} evval;

typedef struct evdecoded {
    const evtype_desc *desc;    /* NULL for a type we do not know */
    uint8_t n_present;          /* fields decoded, in table order */
    bool printable;             /* render with desc->show_fmt (else the header text) */
    evval f[EVTYPE_MAX_FIELDS]; /* absent fields are zero */
} evdecoded;

/* Decode `ev` (borrowed; slices in *out point into the mapping). */
void decode_event(const evlog_event *ev, evdecoded *out);

#endif
