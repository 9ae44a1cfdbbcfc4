/* busybins: a lane's run time at evenly spaced times, for bounds without reading runs
 * (see include/busybins.h). */
#include "busybins.h"

#include "xalloc.h"

/* How many times are asked of runlane_busy_upto_many at once while making a lane's
 * bins (then *cancel is looked at). */
#define BUSYBINS_STEP 4096

typedef struct busybins_lane {
    unsigned shift;             /* the bins' width is 1 << shift ns */
    size_t n_edges;             /* edges first_ns + k << shift, k < n_edges (0: no bins) */
    uint64_t *busy_ns;          /* owned; [k]: run time inside [0, edge k) */
} busybins_lane;

struct busybins {
    uint64_t first_ns;
    size_t n_lanes;
    busybins_lane *lanes;       /* owned; n_lanes of them */
    size_t bytes;
};

/* The narrowest power-of-two width (shift) whose bins over span ns number at most
 * `bins` (at least one). */
static unsigned
busybins_shift_for(uint64_t span_ns, size_t bins)
{
    unsigned sh = 0;
    while (sh < 63 && (span_ns >> sh) >= (bins ? bins : 1))
        sh++;
    return sh;
}

/* Lane l's run time at its edges, BUSYBINS_STEP at a time; false if cancelled. */
static bool
busybins_fill(busybins_lane *l, const runlane *rl, uint64_t first_ns,
              const atomic_bool *cancel)
{
    uint64_t t[BUSYBINS_STEP];
    for (size_t k0 = 0; k0 < l->n_edges; k0 += BUSYBINS_STEP) {
        if (cancel && atomic_load(cancel))
            return false;
        size_t n = l->n_edges - k0 < BUSYBINS_STEP ? l->n_edges - k0 : BUSYBINS_STEP;
        for (size_t k = 0; k < n; k++)
            t[k] = first_ns + ((uint64_t)(k0 + k) << l->shift);
        runlane_busy_upto_many(rl, t, n, l->busy_ns + k0);
    }
    return true;
}

busybins *
busybins_make(const runlane *const *lanes, size_t n_lanes, uint64_t first_ns,
              uint64_t last_ns, size_t max_bins, const atomic_bool *cancel)
{
    busybins *b = xcalloc(1, sizeof *b);        /* caller frees: busybins_free */
    b->first_ns = first_ns;
    b->n_lanes = n_lanes;
    b->lanes = xcalloc(n_lanes + 1, sizeof *b->lanes);
    b->bytes = sizeof *b + (n_lanes + 1) * sizeof *b->lanes;
    size_t total_runs = 0;
    for (size_t i = 0; i < n_lanes; i++)
        total_runs += lanes[i] ? runlane_count(lanes[i]) : 0;
    /* About two runs a bin, fewer bins when they would pass max_bins in all. */
    uint64_t span = last_ns >= first_ns ? last_ns - first_ns + 1 : 1;
    for (size_t i = 0; i < n_lanes; i++) {
        size_t runs = lanes[i] ? runlane_count(lanes[i]) : 0;
        size_t want = runs / 2;
        if (total_runs / 2 > max_bins)
            want = (size_t)((double)runs / (double)total_runs * (double)max_bins);
        if (want < 2)
            continue;                               /* no bins: too few runs */
        busybins_lane *l = &b->lanes[i];
        l->shift = busybins_shift_for(span, want);
        /* Edges past last_ns + 1: every time of the log, and the end, is inside a bin. */
        l->n_edges = (size_t)(span >> l->shift) + 2;
        l->busy_ns = xmalloc(l->n_edges * sizeof *l->busy_ns);  /* busybins_free */
        b->bytes += l->n_edges * sizeof *l->busy_ns;
        if (!busybins_fill(l, lanes[i], first_ns, cancel)) {
            busybins_free(b);
            return NULL;
        }
    }
    return b;
}

void
busybins_free(busybins *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n_lanes; i++)
        x_free(b->lanes[i].busy_ns);
    x_free(b->lanes);
    x_free(b);
}

size_t
busybins_n_lanes(const busybins *b)
{
    return b->n_lanes;
}

uint64_t
busybins_width_ns(const busybins *b, size_t i)
{
    return i < b->n_lanes && b->lanes[i].n_edges ? UINT64_C(1) << b->lanes[i].shift : 0;
}

size_t
busybins_bytes(const busybins *b)
{
    return b->bytes;
}

bool
busybins_bounds(const busybins *b, size_t i, const uint64_t *t, size_t n,
                uint64_t max_width_ns, uint64_t *lo, uint64_t *hi)
{
    uint64_t w = busybins_width_ns(b, i);
    if (w == 0 || w > max_width_ns)
        return false;
    const busybins_lane *l = &b->lanes[i];
    for (size_t m = 0; m < n; m++) {
        if (t[m] <= b->first_ns) {
            lo[m] = hi[m] = 0;          /* no run starts before first_ns */
            continue;
        }
        uint64_t d = t[m] - b->first_ns;
        size_t k = (size_t)(d >> l->shift);
        if (k + 1 >= l->n_edges) {
            lo[m] = hi[m] = l->busy_ns[l->n_edges - 1];     /* past every run's end */
            continue;
        }
        uint64_t into = d - ((uint64_t)k << l->shift), left = w - into;
        uint64_t p0 = l->busy_ns[k], p1 = l->busy_ns[k + 1];
        /* Between the edges the run time rises by at most the time that passes. */
        uint64_t a = p1 > left ? p1 - left : 0, c = p0 + into;
        lo[m] = a > p0 ? a : p0;
        hi[m] = c < p1 ? c : p1;
    }
    return true;
}
