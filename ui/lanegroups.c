/* lanegroups: one table of the optional lane groups (include/lanegroups.h): name,
 * title and the lane kinds in each. */
#include "lanegroups.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name, *title;
} lanegroup_table[LANEGROUP_N] = {
    [LANEGROUP_ACTIVITY] = { "activity", "activity: utilisation over all HECs" },
    [LANEGROUP_NONMOVING] = { "nonmoving", "nonmoving: the non-moving collector's phases" },
    [LANEGROUP_MARKERS] = { "markers", "markers: traceMarker ticks and messages" },
    [LANEGROUP_HEAP] = { "heap", "heap: heap size or live bytes" },
    [LANEGROUP_SPARKS] = { "sparks", "sparks: the spark pool, all HECs" },
    [LANEGROUP_SPARK_HEC] = { "spark-hec",
                              "spark-hec: per HEC, sparks created, converted, pool" },
    [LANEGROUP_BANDS] = { "bands", "bands: the heap profile's largest bands" },
    [LANEGROUP_MEMORY] = { "memory", "memory: megablocks from the OS" },
    [LANEGROUP_TICKY] = { "ticky", "ticky: ticky-ticky samples" },
};

int
lanegroup_of(lane_kind kind)
{
    switch (kind) {
    case LANE_HEC: return -1;
    case LANE_ACTIVITY: return LANEGROUP_ACTIVITY;
    case LANE_NONMOVING: return LANEGROUP_NONMOVING;
    case LANE_MARKERS: return LANEGROUP_MARKERS;
    case LANE_HEAP: return LANEGROUP_HEAP;
    case LANE_SPARKS: return LANEGROUP_SPARKS;
    case LANE_SPARK_CREATED: case LANE_SPARK_CONVERTED: case LANE_SPARK_POOL:
        return LANEGROUP_SPARK_HEC;
    case LANE_HEAPBANDS: return LANEGROUP_BANDS;
    case LANE_MEMORY: return LANEGROUP_MEMORY;
    case LANE_TICKY: return LANEGROUP_TICKY;
    }
    return -1;
}

const char *
lanegroup_name(lanegroup g)
{
    return g < LANEGROUP_N ? lanegroup_table[g].name : "?";
}

const char *
lanegroup_title(lanegroup g)
{
    return g < LANEGROUP_N ? lanegroup_table[g].title : "?";
}

int
lanegroup_by_name(const char *name)
{
    for (int g = 0; g < LANEGROUP_N; g++)
        if (strcmp(lanegroup_table[g].name, name) == 0)
            return g;
    return -1;
}

bool
lanegroup_parse(const char *text, lanegroup_mask *mask, char *err, size_t errlen)
{
    if (strcmp(text, "none") == 0) {
        *mask = 0;
        return true;
    }
    lanegroup_mask m = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        char name[32];
        int g = -1;
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            g = lanegroup_by_name(name);
        }
        if (g < 0) {
            snprintf(err, errlen, "\"%.*s\" is not a lane group (activity, nonmoving, markers, "
                     "heap, sparks, spark-hec, bands, memory, ticky) or none", (int)len, p);
            return false;
        }
        m |= LANEGROUP_BIT(g);
        if (!p[len])
            break;
        p += len + 1;
    }
    *mask = m;
    return true;
}

void
lanegroup_format(lanegroup_mask mask, strbuf *out)
{
    bool any = false;
    for (int g = 0; g < LANEGROUP_N; g++) {
        if (!(mask & LANEGROUP_BIT(g)))
            continue;
        if (any)
            strbuf_putc(out, ',');
        strbuf_puts(out, lanegroup_table[g].name);
        any = true;
    }
    if (!any)
        strbuf_puts(out, "none");
}

size_t
lanegroup_filter(lane *lanes, size_t n, lanegroup_mask hidden)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int g = lanegroup_of(lanes[i].kind);
        if (g >= 0 && (hidden & LANEGROUP_BIT(g)))
            continue;
        lanes[k++] = lanes[i];
    }
    return k;
}
