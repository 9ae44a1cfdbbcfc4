/* busybins: a lane's run time and GC time at evenly spaced times, for bounds without
 * reading runs or phases (see include/busybins.h). */
#include "busybins.h"

#include "xalloc.h"

/* How many times are asked of the runs or phases at once while making a lane's bins
 * (then *cancel is looked at). */
#define BUSYBINS_STEP 4096

/* One lane's bins of one kind of time: vals values a bin edge. */
typedef struct busybins_part {
    unsigned shift;             /* the bins' width is 1 << shift ns */
    size_t n_edges;             /* edges first_ns + k << shift, k < n_edges (0: no bins) */
    uint64_t *ns;               /* owned; [k * vals + v]: time of value v inside [0, edge k) */
} busybins_part;

typedef struct busybins_lane {
    busybins_part runs;         /* 1 value: run time */
    busybins_part gc;           /* 2 values: GC time of gc_kind[0], gc_kind[1] */
} busybins_lane;

struct busybins {
    uint64_t first_ns;
    size_t n_lanes;
    busybins_lane *lanes;       /* owned; n_lanes of them */
    size_t bytes;
};

/* The narrowest power-of-two width (shift) whose bins over span ns number fewer than
 * `bins` (at least one). */
static unsigned
busybins_shift_for(uint64_t span_ns, size_t bins)
{
    unsigned sh = 0;
    while (sh < 63 && (span_ns >> sh) >= (bins ? bins : 1))
        sh++;
    return sh;
}

/* How many bins a lane with `count` of `total` runs (phases) gets: one for two, scaled
 * down to `budget` in all. */
static size_t
busybins_want(size_t count, size_t total, size_t budget)
{
    if (total / 2 <= budget)
        return count / 2;
    return (size_t)((double)count / (double)total * (double)budget);
}

/* Set part p up for `want` bins over span ns of `vals` values an edge (none if fewer
 * than two are wanted); its bytes added to *bytes. */
static void
busybins_part_init(busybins_part *p, uint64_t span, size_t want, size_t vals, size_t *bytes)
{
    if (want < 2)
        return;
    p->shift = busybins_shift_for(span, want);
    /* Edges past last_ns + 1: every time of the log, and the end, is inside a bin. */
    p->n_edges = (size_t)(span >> p->shift) + 2;
    p->ns = xmalloc(p->n_edges * vals * sizeof *p->ns);     /* busybins_free */
    *bytes += p->n_edges * vals * sizeof *p->ns;
}

/* Part p's values at its edges, BUSYBINS_STEP edges at a time: the run time of rl, or
 * (rl NULL) tr's GC time of kinds gc_kind[0] and [1]; t and kinds: scratch of
 * BUSYBINS_STEP and BUSYBINS_STEP * IVTRACK_KINDS. False if cancelled. */
static bool
busybins_fill(busybins_part *p, const runlane *rl, const ivtrack *tr, const unsigned gc_kind[2],
              uint64_t first_ns, const atomic_bool *cancel, uint64_t *t, uint64_t *kinds)
{
    for (size_t k0 = 0; k0 < p->n_edges; k0 += BUSYBINS_STEP) {
        if (cancel && atomic_load(cancel))
            return false;
        size_t n = p->n_edges - k0 < BUSYBINS_STEP ? p->n_edges - k0 : BUSYBINS_STEP;
        for (size_t k = 0; k < n; k++)
            t[k] = first_ns + ((uint64_t)(k0 + k) << p->shift);
        if (rl) {
            runlane_busy_upto_many(rl, t, n, p->ns + k0);
            continue;
        }
        ivtrack_kinds_upto_many(tr, t, n, kinds);
        for (size_t k = 0; k < n; k++)
            for (size_t v = 0; v < 2; v++)
                p->ns[(k0 + k) * 2 + v] = kinds[k * IVTRACK_KINDS + gc_kind[v]];
    }
    return true;
}

busybins *
busybins_make(const busybins_src *lanes, size_t n_lanes, const unsigned gc_kind[2],
              uint64_t first_ns, uint64_t last_ns, size_t max_bins, const atomic_bool *cancel)
{
    busybins *b = xcalloc(1, sizeof *b);        /* caller frees: busybins_free */
    b->first_ns = first_ns;
    b->n_lanes = n_lanes;
    b->lanes = xcalloc(n_lanes + 1, sizeof *b->lanes);
    b->bytes = sizeof *b + (n_lanes + 1) * sizeof *b->lanes;
    size_t total_runs = 0, total_phases = 0;
    for (size_t i = 0; i < n_lanes; i++) {
        total_runs += lanes[i].runs ? runlane_count(lanes[i].runs) : 0;
        total_phases += lanes[i].gc ? ivtrack_count(lanes[i].gc) : 0;
    }
    uint64_t span = last_ns >= first_ns ? last_ns - first_ns + 1 : 1;
    uint64_t *t = xmalloc(BUSYBINS_STEP * sizeof *t);          /* freed below */
    uint64_t *kinds = xmalloc(BUSYBINS_STEP * IVTRACK_KINDS * sizeof *kinds);  /* likewise */
    bool done = true;
    for (size_t i = 0; i < n_lanes && done; i++) {
        busybins_lane *l = &b->lanes[i];
        size_t runs = lanes[i].runs ? runlane_count(lanes[i].runs) : 0;
        size_t phases = lanes[i].gc ? ivtrack_count(lanes[i].gc) : 0;
        busybins_part_init(&l->runs, span, busybins_want(runs, total_runs, max_bins), 1,
                           &b->bytes);
        busybins_part_init(&l->gc, span, busybins_want(phases, total_phases, max_bins / 2), 2,
                           &b->bytes);
        done = busybins_fill(&l->runs, lanes[i].runs, NULL, gc_kind, first_ns, cancel, t, kinds) &&
               busybins_fill(&l->gc, NULL, lanes[i].gc, gc_kind, first_ns, cancel, t, kinds);
    }
    x_free(kinds);
    x_free(t);
    if (!done) {
        busybins_free(b);
        return NULL;
    }
    return b;
}

void
busybins_free(busybins *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n_lanes; i++) {
        x_free(b->lanes[i].runs.ns);
        x_free(b->lanes[i].gc.ns);
    }
    x_free(b->lanes);
    x_free(b);
}

size_t
busybins_n_lanes(const busybins *b)
{
    return b->n_lanes;
}

static uint64_t
busybins_part_width(const busybins_part *p)
{
    return p->n_edges ? UINT64_C(1) << p->shift : 0;
}

uint64_t
busybins_width_ns(const busybins *b, size_t i)
{
    return i < b->n_lanes ? busybins_part_width(&b->lanes[i].runs) : 0;
}

uint64_t
busybins_gc_width_ns(const busybins *b, size_t i)
{
    return i < b->n_lanes ? busybins_part_width(&b->lanes[i].gc) : 0;
}

size_t
busybins_bytes(const busybins *b)
{
    return b->bytes;
}

/* Bounds on value v (of vals an edge) of part p at the n times t[] into lo[], hi[]: none
 * before first_ns, all of it past the last edge, else between the edges around t, where
 * the time rises by at most the time that passes. */
static void
busybins_part_bounds(const busybins_part *p, uint64_t first_ns, size_t vals, size_t v,
                     const uint64_t *t, size_t n, uint64_t *lo, uint64_t *hi)
{
    uint64_t w = UINT64_C(1) << p->shift;
    for (size_t m = 0; m < n; m++) {
        if (t[m] <= first_ns) {
            lo[m] = hi[m] = 0;          /* nothing starts before first_ns */
            continue;
        }
        uint64_t d = t[m] - first_ns;
        size_t k = (size_t)(d >> p->shift);
        if (k + 1 >= p->n_edges) {
            lo[m] = hi[m] = p->ns[(p->n_edges - 1) * vals + v];  /* past every end */
            continue;
        }
        uint64_t into = d - ((uint64_t)k << p->shift), left = w - into;
        uint64_t p0 = p->ns[k * vals + v], p1 = p->ns[(k + 1) * vals + v];
        uint64_t a = p1 > left ? p1 - left : 0, c = p0 + into;
        lo[m] = a > p0 ? a : p0;
        hi[m] = c < p1 ? c : p1;
    }
}

bool
busybins_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                uint64_t max_width_ns, uint64_t *lo, uint64_t *hi)
{
    uint64_t w = busybins_width_ns(b, i);
    if (w == 0 || w > max_width_ns)
        return false;
    busybins_part_bounds(&b->lanes[i].runs, b->first_ns, 1, 0, t, n, lo, hi);
    return true;
}

bool
busybins_gc_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                   uint64_t max_width_ns, uint64_t *const lo[2], uint64_t *const hi[2])
{
    uint64_t w = busybins_gc_width_ns(b, i);
    if (w == 0 || w > max_width_ns)
        return false;
    for (size_t v = 0; v < 2; v++)
        busybins_part_bounds(&b->lanes[i].gc, b->first_ns, 2, v, t, n, lo[v], hi[v]);
    return true;
}
