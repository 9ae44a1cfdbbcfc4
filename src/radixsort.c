/* radixsort: the stable LSD radix sort of include/radixsort.h. */
#include "radixsort.h"

#include <string.h>

#include "bitpack.h"
#include "xalloc.h"

enum { RADIXSORT_BITS = 11, RADIXSORT_BUCKETS = 1 << RADIXSORT_BITS };

static uint64_t
radixsort_key(const unsigned char *elem, size_t key_off)
{
    uint64_t k;
    memcpy(&k, elem + key_off, sizeof k);
    return k;
}

/* The sort itself; inlined into radixsort_by_u64 once per common element size, so the
 * element copies are fixed-size moves rather than calls. */
static inline __attribute__((always_inline)) void
radixsort_core(unsigned char *a, size_t n, size_t size, size_t key_off)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    bool sorted = true;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = radixsort_key(a + i * size, key_off);
        sorted &= k >= hi;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    uint64_t span = hi - lo;
    if (span == 0 || sorted)    /* in order already (a stable sort leaves it) */
        return;
    unsigned char *tmp = xmalloc(n * size);                            /* freed below */
    size_t *count = xmalloc(RADIXSORT_BUCKETS * sizeof *count);        /* freed below */
    unsigned char *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += RADIXSORT_BITS) {
        memset(count, 0, RADIXSORT_BUCKETS * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[((radixsort_key(src + i * size, key_off) - lo) >> shift) &
                  (RADIXSORT_BUCKETS - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < RADIXSORT_BUCKETS; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t d = ((radixsort_key(src + i * size, key_off) - lo) >> shift) &
                       (RADIXSORT_BUCKETS - 1);
            memcpy(dst + count[d]++ * size, src + i * size, size);
        }
        unsigned char *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * size);
    x_free(count);
    x_free(tmp);
}

void
radixsort_by_u64(void *base, size_t n, size_t size, size_t key_off)
{
    if (n < 2)
        return;
    switch (size) {
    case 8: radixsort_core(base, n, 8, key_off); break;
    case 16: radixsort_core(base, n, 16, key_off); break;
    case 32: radixsort_core(base, n, 32, key_off); break;
    default: radixsort_core(base, n, size, key_off); break;
    }
}

/* Swap the `size`-byte elements at x and y. */
static void
radixsort_swap(unsigned char *x, unsigned char *y, size_t size)
{
    unsigned char t[64];
    for (size_t done = 0; done < size; done += sizeof t) {
        size_t k = size - done < sizeof t ? size - done : sizeof t;
        memcpy(t, x + done, k);
        memcpy(x + done, y + done, k);
        memcpy(y + done, t, k);
    }
}

void
radixsort_by_u64_ties(void *base, size_t n, size_t size, size_t key_off,
                      int (*cmp)(const void *, const void *))
{
    radixsort_by_u64(base, n, size, key_off);
    unsigned char *a = base;
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0; j--) {
            unsigned char *p = a + (j - 1) * size, *q = p + size;
            uint64_t kp, kq;
            memcpy(&kp, p + key_off, sizeof kp);
            memcpy(&kq, q + key_off, sizeof kq);
            if (kp != kq || cmp(p, q) <= 0)
                break;
            radixsort_swap(p, q, size);
        }
}

/* A rank entry: the key turned around (largest first) and the index it belongs to. */
typedef struct radixsort_pair {
    uint64_t key;
    uint64_t index;
} radixsort_pair;

/* Sort n words ascending by their bits [from, 64), stably: passes over only the bits the
 * words' span there needs. Words are size_t, so a rank sorts in the array it returns
 * (radixsort_rank_desc uses it only where size_t has 64 bits). */
static void
radixsort_words_high_tmp(size_t *a, size_t n, unsigned from, size_t *tmp);

static void
radixsort_words_high(size_t *a, size_t n, unsigned from)
{
    size_t *tmp = xmalloc((n ? n : 1) * sizeof *tmp);                   /* freed below */
    radixsort_words_high_tmp(a, n, from, tmp);
    x_free(tmp);
}

/* The same with the caller's scratch of n words. */
static void
radixsort_words_high_tmp(size_t *a, size_t n, unsigned from, size_t *tmp)
{
    size_t lo = SIZE_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = a[i] >> from;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
    }
    size_t span = hi - lo;
    if (span == 0)
        return;
    size_t *count = xmalloc(RADIXSORT_BUCKETS * sizeof *count);        /* freed below */
    size_t *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (span >> shift) != 0; shift += RADIXSORT_BITS) {
        memset(count, 0, RADIXSORT_BUCKETS * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(((src[i] >> from) - lo) >> shift) & (RADIXSORT_BUCKETS - 1)]++;
        size_t sum = 0;
        for (size_t d = 0; d < RADIXSORT_BUCKETS; d++) {
            size_t c = count[d];
            count[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(((src[i] >> from) - lo) >> shift) & (RADIXSORT_BUCKETS - 1)]++] = src[i];
        size_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    x_free(count);
}

size_t *
radixsort_rank_desc(const uint64_t *key, size_t n)
{
    size_t *order = xmalloc((n ? n : 1) * sizeof *order);              /* caller frees */
    uint64_t most = 0, least = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        most = key[i] > most ? key[i] : most;
        least = key[i] < least ? key[i] : least;
    }
    /* When the turned key and the index fit one 64-bit word together (key above, index
     * below), sort those words in the order array itself rather than pairs of 16 bytes;
     * ties stay in index order because the sort is stable and looks only at the key. */
    unsigned ib = n > 1 ? bitpack_width(n - 1) : 0;
    if (SIZE_MAX == UINT64_MAX && n && ib < 64 && bitpack_width(most - least) + ib <= 64) {
        for (size_t i = 0; i < n; i++)
            order[i] = (size_t)((most - key[i]) << ib | i);
        radixsort_words_high(order, n, ib);
        for (size_t i = 0; i < n; i++)
            order[i] &= (size_t)bitpack_mask(ib);
        return order;
    }
    radixsort_pair *p = xmalloc((n ? n : 1) * sizeof *p);                        /* freed below */
    for (size_t i = 0; i < n; i++)
        p[i] = (radixsort_pair){ most - key[i], i };
    radixsort_by_u64(p, n, sizeof *p, offsetof(radixsort_pair, key));
    for (size_t i = 0; i < n; i++)
        order[i] = (size_t)p[i].index;
    x_free(p);
    return order;
}

void
radixsort_rank_part(const uint64_t *key, size_t n, size_t *words, size_t *tmp,
                    radixsort_part *p)
{
    p->packed = false;
    p->most = 0;
    size_t lo = p->lo, hi = p->hi;
    uint64_t most = 0, least = UINT64_MAX;
    for (size_t i = lo; i < hi; i++) {
        most = key[i] > most ? key[i] : most;
        least = key[i] < least ? key[i] : least;
    }
    unsigned ib = n > 1 ? bitpack_width(n - 1) : 0;
    if (SIZE_MAX != UINT64_MAX || ib >= 64 ||
        (hi > lo && bitpack_width(most - least) + ib > 64))
        return;
    for (size_t i = lo; i < hi; i++)
        words[i] = (size_t)((most - key[i]) << ib | i);
    if (hi > lo)
        radixsort_words_high_tmp(words + lo, hi - lo, ib, tmp + lo);
    p->most = most;
    p->packed = true;
}

void
radixsort_rank_merge(const uint64_t *key, size_t n, const size_t *words,
                     const radixsort_part *p, size_t n_parts, size_t *order)
{
    size_t cur[RADIXSORT_MAX_PARTS];
    bool packed = n_parts <= RADIXSORT_MAX_PARTS;
    for (size_t k = 0; packed && k < n_parts; k++) {
        packed = p[k].packed;
        cur[k] = p[k].lo;
    }
    if (!packed) {
        size_t *r = radixsort_rank_desc(key, n);                        /* freed below */
        memcpy(order, r, n * sizeof *order);
        x_free(r);
        return;
    }
    unsigned ib = n > 1 ? bitpack_width(n - 1) : 0;
    size_t mask = (size_t)bitpack_mask(ib);
    /* Each step takes the largest key at the parts' heads; a tie goes to the lowest
     * index, which is in the earliest part (parts are in index order). */
    for (size_t o = 0; o < n; o++) {
        size_t best = SIZE_MAX;
        uint64_t best_key = 0;
        for (size_t k = 0; k < n_parts; k++) {
            if (cur[k] == p[k].hi)
                continue;
            uint64_t kk = p[k].most - (uint64_t)(words[cur[k]] >> ib);
            if (best == SIZE_MAX || kk > best_key)
                best = k, best_key = kk;
        }
        order[o] = words[cur[best]++] & mask;
    }
}
