/* pausehist: pause lengths into 1-2-5 bins (or decades when they spread too far). */
#include "pausehist.h"

#include <stdbool.h>
#include <string.h>

/* Edge k of the ladder: k = 3d + j is {1, 2, 5}[j] * 10^d µs (k = 0 is 1 µs); with
 * `decades`, edge k is 10^k µs. Saturates instead of overflowing. */
static uint64_t
pausehist_edge(unsigned k, int decades)
{
    static const uint64_t steps[3] = { 1, 2, 5 };
    unsigned d = decades ? k : k / 3;
    uint64_t v = decades ? 1000 : steps[k % 3] * 1000;
    for (unsigned i = 0; i < d; i++) {
        if (v > UINT64_MAX / 10)
            return UINT64_MAX;
        v *= 10;
    }
    return v;
}

/* Index of the bin (edge k .. k + 1) holding x: the largest k with edge(k) <= x, 0 below
 * the first edge. */
static unsigned
pausehist_bin_of(uint64_t x, int decades)
{
    unsigned k = 0;
    while (pausehist_edge(k + 1, decades) <= x && pausehist_edge(k + 1, decades) != UINT64_MAX)
        k++;
    return k;
}

void
pausehist_build(pausehist *h, const uint64_t *pause_ns, size_t n)
{
    memset(h, 0, sizeof *h);
    if (n == 0)
        return;
    uint64_t lo = pause_ns[0], hi = pause_ns[0];
    for (size_t i = 1; i < n; i++) {
        lo = pause_ns[i] < lo ? pause_ns[i] : lo;
        hi = pause_ns[i] > hi ? pause_ns[i] : hi;
    }
    int decades = 0;
    bool squeezed = false;
    unsigned k0 = pausehist_bin_of(lo, 0), k1 = pausehist_bin_of(hi, 0);
    if (k1 - k0 + 1 > PAUSEHIST_MAX_BINS) {
        decades = 1;
        k0 = pausehist_bin_of(lo, 1);
        k1 = pausehist_bin_of(hi, 1);
        if (k1 - k0 + 1 > PAUSEHIST_MAX_BINS) {
            k0 = k1 + 1 - PAUSEHIST_MAX_BINS;   /* the shortest ones share the first bin */
            squeezed = true;
        }
    }
    h->n_bins = k1 - k0 + 1;
    for (size_t b = 0; b < h->n_bins; b++) {
        h->bins[b].lo_ns = pausehist_edge(k0 + (unsigned)b, decades);
        h->bins[b].hi_ns = pausehist_edge(k0 + (unsigned)b + 1, decades);
    }
    /* The first bin takes everything below its upper edge: under 1 us, or squeezed. */
    if (k0 == 0 || squeezed)
        h->bins[0].lo_ns = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned k = pausehist_bin_of(pause_ns[i], decades);
        size_t b = k < k0 ? 0 : k - k0;
        if (b >= h->n_bins)
            b = h->n_bins - 1;
        h->bins[b].count++;
    }
    h->total = n;
    for (size_t b = 0; b < h->n_bins; b++)
        h->max_count = h->bins[b].count > h->max_count ? h->bins[b].count : h->max_count;
}
