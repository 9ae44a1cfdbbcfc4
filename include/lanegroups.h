/* lanegroups: the optional lanes of the timeline in groups a user can hide or show
 * (activity, non-moving, markers, heap, sparks, the per-HEC spark lanes, bands, memory,
 * ticky) — by name for the settings file's `hide-lanes` line, as a bit mask for the
 * viewer. The HEC lanes are the timeline itself and belong to no group. */
#ifndef ELOG_LANEGROUPS_H
#define ELOG_LANEGROUPS_H

#include <stdbool.h>
#include <stddef.h>

#include "lanes.h"
#include "strbuf.h"

typedef enum lanegroup {
    LANEGROUP_ACTIVITY,
    LANEGROUP_NONMOVING,
    LANEGROUP_MARKERS,
    LANEGROUP_HEAP,
    LANEGROUP_SPARKS,           /* the one spark pool / creations lane */
    LANEGROUP_SPARK_HEC,        /* per HEC: created N, convert N, pool N */
    LANEGROUP_BANDS,
    LANEGROUP_MEMORY,
    LANEGROUP_TICKY,
    LANEGROUP_N
} lanegroup;

/* A set of groups: bit g for group g. */
typedef unsigned lanegroup_mask;
#define LANEGROUP_BIT(g) (1u << (unsigned)(g))

/* The group of a lane kind, -1 for a HEC lane (always shown). */
int lanegroup_of(lane_kind kind);
/* The group's name in settings ("spark-hec"): static text. */
const char *lanegroup_name(lanegroup g);
/* What the group's lanes show, for the lanes menu: static text. */
const char *lanegroup_title(lanegroup g);
/* The group named `name` (as lanegroup_name gives it), -1 if none. */
int lanegroup_by_name(const char *name);

/* Parse "none" or names joined by commas ("spark-hec,memory") into *mask. False, with
 * the first unknown name in `err`, and *mask unchanged, if one is not a group. */
bool lanegroup_parse(const char *text, lanegroup_mask *mask, char *err, size_t errlen);
/* Append the mask as lanegroup_parse reads it back ("none" when empty). */
void lanegroup_format(lanegroup_mask mask, strbuf *out);

/* Drop, in place, the lanes whose group is in `hidden`; returns how many are left
 * (the order of the rest is kept). */
size_t lanegroup_filter(lane *lanes, size_t n, lanegroup_mask hidden);

#endif
