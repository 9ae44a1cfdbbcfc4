/* gallop: where a time falls in an ascending array of 64-bit keys (chunks' first times,
 * events' times), by a plain binary search or searched near a guess: the chunk searches of a frame's column edges, which ascend
 * evenly spaced, guess each edge's chunk as far on from the last answer as that was from
 * the one before and gallop out from the guess either way (a few loads near it, where
 * galloping from the last answer loads about twice the log of the distance). Header-only:
 * runlane and ivtrack inline it in their loops over edges. */
#ifndef GALLOP_H
#define GALLOP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Key i of keys `stride` bytes apart from `base` (a field of an array of structs). */
static inline uint64_t
gallop_key(const void *base, size_t stride, size_t i)
{
    uint64_t k;
    memcpy(&k, (const char *)base + i * stride, sizeof k);
    return k;
}

/* The first i < n whose key is at least t; n if none. O(log n). */
static inline size_t
gallop_first_at_least(const void *base, size_t stride, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gallop_key(base, stride, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Where t falls among n keys, guessed as if they were spread evenly from key 0 to key
 * n - 1 (a lane's chunks over the log's span): the guess for gallop_last_below from 0
 * where nothing nearer is known. A cold search from a good guess waits on a few loads
 * near it, where a binary search waits on one at every level. */
static inline size_t
gallop_guess(const void *base, size_t stride, size_t n, uint64_t t)
{
    if (n < 2)
        return 0;
    uint64_t first = gallop_key(base, stride, 0), last = gallop_key(base, stride, n - 1);
    if (t <= first)
        return 0;
    if (t > last)
        return n - 1;
    return (size_t)((double)(t - first) / (double)(last - first) * (double)(n - 1));
}

/* The last i < n whose key is below t, given that key lo is (lo < n), searched from
 * lo + guess on. */
static inline size_t
gallop_last_below(const void *base, size_t stride, size_t n, uint64_t t, size_t lo,
                  size_t guess)
{
    size_t hi = n, step = 1;
    size_t g = lo + guess < hi ? lo + guess : hi - 1;
    if (g > lo && gallop_key(base, stride, g) >= t) {
        hi = g;
        while (hi - lo > step && gallop_key(base, stride, hi - step) >= t) {
            hi -= step;
            step *= 2;
        }
        if (hi - lo > step)
            lo = hi - step;
    } else {
        lo = g;
        while (lo + step < hi && gallop_key(base, stride, lo + step) < t) {
            lo += step;
            step *= 2;
        }
        hi = lo + step < hi ? lo + step : hi;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (gallop_key(base, stride, mid) < t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* gallop_last_below from 0 with nothing nearer known: from gallop_guess's place (the
 * first key is below t). */
static inline size_t
gallop_last_below_cold(const void *base, size_t stride, size_t n, uint64_t t)
{
    return gallop_last_below(base, stride, n, t, 0, gallop_guess(base, stride, n, t));
}

#endif
