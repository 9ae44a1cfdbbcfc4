/* timelist: sorted timestamps stored as u32 offsets from chunk bases. A chunk holds at
 * most TIMELIST_CHUNK times, and a new one starts early when an offset would not fit
 * in 32 bits (a gap of more than 4.29 s), so any times can be stored. */
#include "timelist.h"

#include <stdio.h>

#include "xalloc.h"

typedef struct timelist_chunk {
    uint64_t base_ns;           /* its first time */
    size_t first;               /* index of its first time */
} timelist_chunk;

struct timelist {
    uint32_t *off;              /* owned: time - its chunk's base */
    size_t n, cap;
    timelist_chunk *chunks;     /* owned */
    size_t n_chunks, cap_chunks;
    uint64_t last;
};

timelist *
timelist_new(void)
{
    return xcalloc(1, sizeof(timelist));   /* caller frees: timelist_free */
}

void
timelist_free(timelist *tl)
{
    if (!tl)
        return;
    x_free(tl->off);
    x_free(tl->chunks);
    x_free(tl);
}

void
timelist_append(timelist *tl, uint64_t t)
{
    if (tl->n && t < tl->last)
        t = tl->last;
    timelist_chunk *c = tl->n_chunks ? &tl->chunks[tl->n_chunks - 1] : NULL;
    if (!c || tl->n - c->first >= TIMELIST_CHUNK || t - c->base_ns > UINT32_MAX) {
        if (tl->n_chunks == tl->cap_chunks) {
            tl->cap_chunks = tl->cap_chunks ? 2 * tl->cap_chunks : 16;
            tl->chunks = xreallocarray(tl->chunks, tl->cap_chunks, sizeof *tl->chunks);
        }
        c = &tl->chunks[tl->n_chunks++];
        c->base_ns = t;
        c->first = tl->n;
    }
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? tl->cap + tl->cap / 2 : 1024;
        tl->off = xreallocarray(tl->off, tl->cap, sizeof *tl->off);
    }
    tl->off[tl->n++] = (uint32_t)(t - c->base_ns);
    tl->last = t;
}

void
timelist_seal(timelist *tl)
{
    if (tl->n && tl->n < tl->cap) {
        tl->off = xreallocarray(tl->off, tl->n, sizeof *tl->off);
        tl->cap = tl->n;
    }
    if (tl->n_chunks && tl->n_chunks < tl->cap_chunks) {
        tl->chunks = xreallocarray(tl->chunks, tl->n_chunks, sizeof *tl->chunks);
        tl->cap_chunks = tl->n_chunks;
    }
}

size_t
timelist_count(const timelist *tl)
{
    return tl->n;
}

/* The chunk holding index i. */
static size_t
timelist_chunk_of(const timelist *tl, size_t i)
{
    size_t lo = 0, hi = tl->n_chunks;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->chunks[mid].first <= i)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

uint64_t
timelist_get(const timelist *tl, size_t i)
{
    if (i >= tl->n)
        return 0;
    return tl->chunks[timelist_chunk_of(tl, i)].base_ns + tl->off[i];
}

size_t
timelist_count_before(const timelist *tl, uint64_t t)
{
    /* The last chunk whose base is < t holds the answer's boundary. */
    size_t lo = 0, hi = tl->n_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tl->chunks[mid].base_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const timelist_chunk *c = &tl->chunks[lo - 1];
    size_t end = lo < tl->n_chunks ? tl->chunks[lo].first : tl->n;
    uint64_t d = t - c->base_ns;
    if (d > UINT32_MAX)
        return end;
    size_t a = c->first, z = end;
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (tl->off[mid] < d)
            a = mid + 1;
        else
            z = mid;
    }
    return a;
}

size_t
timelist_count_in(const timelist *tl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    return timelist_count_before(tl, t1) - timelist_count_before(tl, t0);
}

size_t
timelist_bytes(const timelist *tl)
{
    return sizeof *tl + tl->cap * sizeof *tl->off + tl->cap_chunks * sizeof *tl->chunks;
}

bool
timelist_check(const timelist *tl, char *why, size_t why_len)
{
    uint64_t prev = 0;
    for (size_t c = 0; c < tl->n_chunks; c++) {
        const timelist_chunk *ch = &tl->chunks[c];
        size_t end = c + 1 < tl->n_chunks ? tl->chunks[c + 1].first : tl->n;
        if (ch->first >= end || end - ch->first > TIMELIST_CHUNK || (c == 0 && ch->first)) {
            snprintf(why, why_len, "chunk %zu covers [%zu, %zu)", c, ch->first, end);
            return false;
        }
        for (size_t i = ch->first; i < end; i++) {
            uint64_t t = ch->base_ns + tl->off[i];
            if (t < prev || (i == ch->first && tl->off[i] != 0)) {
                snprintf(why, why_len, "time %zu out of order", i);
                return false;
            }
            prev = t;
        }
    }
    if ((tl->n_chunks == 0) != (tl->n == 0)) {
        snprintf(why, why_len, "%zu times in %zu chunks", tl->n, tl->n_chunks);
        return false;
    }
    return true;
}
