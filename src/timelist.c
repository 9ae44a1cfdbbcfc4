/* timelist: sorted timestamps in Elias–Fano coded chunks of TIMELIST_CHUNK times. Each
 * chunk stores time - base split into L low bits (packed) and a high part (unary, in a
 * bit vector); L is chosen per chunk so any gaps, even up to 2^64 - 1, code exactly. */
#include "timelist.h"

#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "xalloc.h"

/* Chunk k holds times [k * TIMELIST_CHUNK, ...): every chunk is full except perhaps the
 * last, and that only after seal. Its words in `words` are first the low parts, n * L
 * bits, then the high vector: time j (within the chunk) sets bit high_j + j, so bucket h
 * (times whose high part is h) is the run of ones after the h-th zero; hi_max + 1 zeros
 * in all, the last one closing the last bucket. Unused bits of the last word are zero. */
typedef struct timelist_chunk {
    uint64_t base_ns;           /* its first time */
    size_t word;                /* its first word in `words` */
    uint32_t hi_max;            /* high part of its last time */
    uint8_t low_bits;           /* L, 0..63 */
} timelist_chunk;

struct timelist {
    uint64_t *words;            /* owned: the coded chunks, back to back */
    size_t n_words, cap_words;
    timelist_chunk *chunks;     /* owned */
    size_t n_chunks, cap_chunks;
    size_t n_coded;             /* times in chunks */
    uint64_t *buf;              /* owned: TIMELIST_CHUNK raw times to code; NULL when sealed */
    size_t n_buf;               /* times in buf, which all follow the coded ones */
    uint64_t last;              /* the last time appended (0 when empty) */
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
    x_free(tl->words);
    x_free(tl->chunks);
    x_free(tl->buf);
    x_free(tl);
}

static size_t
timelist_n_low_words(size_t n, unsigned low_bits)
{
    return (n * low_bits + 63) / 64;
}

/* Number of bits of the high vector: one per time and one zero per bucket. */
static size_t
timelist_n_high_bits(size_t n, uint32_t hi_max)
{
    return n + (size_t)hi_max + 1;
}

/* Low part j; with no low bits there is no low array to read (and nothing to read). */
static uint64_t
timelist_read_low(const uint64_t *low, size_t j, unsigned low_bits)
{
    return low_bits ? bitpack_get(low, (uint64_t)j * low_bits, low_bits) : 0;
}

/* Set bits of x. Inline arithmetic: without -mpopcnt, __builtin_popcountll is a call. */
static unsigned
timelist_popcount(uint64_t x)
{
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* Position of the r-th (from 0) set bit of x, which has more than r: the byte that holds
 * it from the bytes' running counts (one multiply), then the bit within that byte. */
static unsigned
timelist_select64(uint64_t x, unsigned r)
{
    uint64_t b = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    b = (b & UINT64_C(0x3333333333333333)) + ((b >> 2) & UINT64_C(0x3333333333333333));
    b = (b + (b >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    b *= UINT64_C(0x0101010101010101);      /* byte i: set bits in bytes 0..i (<= 64) */
    /* Top bit of byte i set where that count is <= r (no borrow crosses a byte: each
     * count is below 128); those bytes come first, the bit is in the byte after them. */
    const uint64_t tops = UINT64_C(0x8080808080808080);
    uint64_t le = (((uint64_t)r * UINT64_C(0x0101010101010101)) | tops) - b;
    unsigned sh = (unsigned)__builtin_ctzll(~le & tops) - 7;
    if (sh)
        r -= (unsigned)(b >> (sh - 8) & 0xff);
    uint64_t y = x >> sh;
    while (r--)
        y &= y - 1;
    return sh + (unsigned)__builtin_ctzll(y);
}

/* Position of the r-th (from 0) one (want_one) or zero in v, which has one. */
static size_t
timelist_select(const uint64_t *v, size_t r, bool want_one)
{
    for (size_t w = 0;; w++) {
        uint64_t x = want_one ? v[w] : ~v[w];
        size_t c = timelist_popcount(x);
        if (r < c)
            return w * 64 + timelist_select64(x, (unsigned)r);
        r -= c;
    }
}

/* Length of the run of ones starting at bit p of v; v has a zero after it. */
static size_t
timelist_ones_run(const uint64_t *v, size_t p)
{
    size_t run = 0, w = p >> 6;
    unsigned off = p & 63;
    for (;;) {
        uint64_t x = ~(v[w] >> off);   /* bits shifted in at the top read as zeros: stop */
        if (x) {
            unsigned r = (unsigned)__builtin_ctzll(x);
            run += r;
            if (r < 64 - off)
                return run;
        } else {
            run += 64;
        }
        w++;
        off = 0;
    }
}

static size_t
timelist_chunk_n(const timelist *tl, size_t k)
{
    return k + 1 < tl->n_chunks ? TIMELIST_CHUNK : tl->n_coded - k * TIMELIST_CHUNK;
}

/* The L that makes n * L + (u >> L) smallest: n times spanning u nanoseconds. */
static unsigned
timelist_pick_low_bits(size_t n, uint64_t u)
{
    unsigned best = 63;
    uint64_t best_cost = UINT64_MAX;
    for (unsigned l = 0; l < 64; l++) {
        uint64_t hi = u >> l;
        /* L = 63 costs at most 63n + 1 bits: a larger high part never wins (nor overflows). */
        if (hi > 64 * (uint64_t)n + 1)
            continue;
        uint64_t cost = (uint64_t)n * l + hi;
        if (cost < best_cost) {
            best_cost = cost;
            best = l;
        }
    }
    return best;
}

/* Code times t[0..n) (sorted, n >= 1) as a new last chunk. */
static void
timelist_code(timelist *tl, const uint64_t *t, size_t n)
{
    uint64_t base = t[0], u = t[n - 1] - base;
    unsigned low_bits = timelist_pick_low_bits(n, u);
    uint32_t hi_max = (uint32_t)(u >> low_bits);
    size_t n_low = timelist_n_low_words(n, low_bits);
    size_t n_new = n_low + (timelist_n_high_bits(n, hi_max) + 63) / 64;
    if (tl->n_words + n_new > tl->cap_words) {
        tl->cap_words = tl->cap_words + tl->cap_words / 2 + n_new;
        /* owned by tl: the words grow geometrically */
        tl->words = xreallocarray(tl->words, tl->cap_words, sizeof *tl->words);
    }
    if (tl->n_chunks == tl->cap_chunks) {
        tl->cap_chunks = tl->cap_chunks ? 2 * tl->cap_chunks : 16;
        /* owned by tl */
        tl->chunks = xreallocarray(tl->chunks, tl->cap_chunks, sizeof *tl->chunks);
    }
    tl->chunks[tl->n_chunks++] = (timelist_chunk){ .base_ns = base, .word = tl->n_words,
                                                   .hi_max = hi_max,
                                                   .low_bits = (uint8_t)low_bits };
    uint64_t *low = tl->words + tl->n_words, *high = low + n_low;
    memset(low, 0, n_new * sizeof *low);
    uint64_t mask = bitpack_mask(low_bits);
    bitpack_writer lw = bitpack_writer_at(low, low_bits);
    for (size_t j = 0; j < n; j++) {
        uint64_t d = t[j] - base;
        bitpack_writer_put(&lw, d & mask);
        size_t hp = (size_t)(d >> low_bits) + j;
        high[hp >> 6] |= UINT64_C(1) << (hp & 63);
    }
    bitpack_writer_flush(&lw);
    tl->n_words += n_new;
    tl->n_coded += n;
}

/* Decode chunk k into out[0..its n). */
static void
timelist_decode(const timelist *tl, size_t k, uint64_t *out)
{
    const timelist_chunk *c = &tl->chunks[k];
    size_t n = timelist_chunk_n(tl, k);
    const uint64_t *low = tl->words + c->word;
    const uint64_t *high = low + timelist_n_low_words(n, c->low_bits);
    size_t j = 0;
    for (size_t w = 0; j < n; w++)
        for (uint64_t x = high[w]; x && j < n; x &= x - 1, j++) {
            uint64_t h = w * 64 + (unsigned)__builtin_ctzll(x) - j;
            out[j] = c->base_ns + (h << c->low_bits | timelist_read_low(low, j, c->low_bits));
        }
}

/* Cold half of append: get a buffer (decoding a sealed partial chunk back into it), or
 * code a full one. */
static void
timelist_make_room(timelist *tl)
{
    if (!tl->buf) {
        tl->buf = xmalloc(TIMELIST_CHUNK * sizeof *tl->buf);  /* owned by tl until seal */
        tl->n_buf = 0;
        if (tl->n_coded % TIMELIST_CHUNK) {
            size_t k = tl->n_chunks - 1;
            tl->n_buf = timelist_chunk_n(tl, k);
            timelist_decode(tl, k, tl->buf);
            tl->n_words = tl->chunks[k].word;
            tl->n_chunks--;
            tl->n_coded -= tl->n_buf;
        }
    }
    if (tl->n_buf == TIMELIST_CHUNK) {
        timelist_code(tl, tl->buf, tl->n_buf);
        tl->n_buf = 0;
    }
}

/* timelist_append of t (already clamped) when the buffer is full or missing: out of
 * line, so that the usual append saves no registers and ends in a jump here. */
static __attribute__((noinline)) void
timelist_append_cold(timelist *tl, uint64_t t)
{
    timelist_make_room(tl);
    tl->buf[tl->n_buf++] = t;
    tl->last = t;
}

void
timelist_append(timelist *tl, uint64_t t)
{
    if (t < tl->last)
        t = tl->last;
    if (tl->n_buf == TIMELIST_CHUNK || !tl->buf) {
        timelist_append_cold(tl, t);
        return;
    }
    tl->buf[tl->n_buf++] = t;
    tl->last = t;
}

void
timelist_append_list(timelist *dst, const timelist *src)
{
    for (size_t i = 0; i < timelist_count(src); i++)
        timelist_append(dst, timelist_get(src, i));
}

void
timelist_seal(timelist *tl)
{
    if (tl->n_buf)
        timelist_code(tl, tl->buf, tl->n_buf);
    x_free(tl->buf);
    tl->buf = NULL;
    tl->n_buf = 0;
    /* Nothing is trimmed to zero length: with no chunks there is no array to trim. */
    if (tl->n_words && tl->n_words < tl->cap_words) {
        tl->words = xreallocarray(tl->words, tl->n_words, sizeof *tl->words);
        tl->cap_words = tl->n_words;
    }
    if (tl->n_chunks && tl->n_chunks < tl->cap_chunks) {
        tl->chunks = xreallocarray(tl->chunks, tl->n_chunks, sizeof *tl->chunks);
        tl->cap_chunks = tl->n_chunks;
    }
}

size_t
timelist_count(const timelist *tl)
{
    return tl->n_coded + tl->n_buf;
}

uint64_t
timelist_get(const timelist *tl, size_t i)
{
    if (i >= tl->n_coded)
        return i - tl->n_coded < tl->n_buf ? tl->buf[i - tl->n_coded] : 0;
    const timelist_chunk *c = &tl->chunks[i / TIMELIST_CHUNK];
    size_t j = i % TIMELIST_CHUNK;
    const uint64_t *low = tl->words + c->word;
    const uint64_t *high = low + timelist_n_low_words(timelist_chunk_n(tl, i / TIMELIST_CHUNK),
                                                      c->low_bits);
    uint64_t h = timelist_select(high, j, true) - j;
    return c->base_ns + (h << c->low_bits | timelist_read_low(low, j, c->low_bits));
}

/* Position of the r-th (from 0) zero of v, which has one, scanning on from word *w with
 * *zeros zeros before it (both start at 0 and are left at the word found, so a later
 * call with a larger r goes on from there). */
static size_t
timelist_select_zero_from(const uint64_t *v, size_t r, size_t *w, size_t *zeros)
{
    for (;; (*w)++) {
        uint64_t x = ~v[*w];
        size_t c = timelist_popcount(x);
        if (r < *zeros + c)
            return *w * 64 + timelist_select64(x, (unsigned)(r - *zeros));
        *zeros += c;
    }
}

/* timelist_select_zero_from(v, r, w, zeros) for a vector of n_bits bits (bits past them
 * zero) with z zeros in all, r < z, scanning back from its end: for a zero in its later
 * half, from a fresh start (*w and *zeros 0), half as many words on average. *w and
 * *zeros are left as the forward scan leaves them. */
static size_t
timelist_select_zero_back(const uint64_t *v, size_t n_bits, size_t z, size_t r, size_t *w,
                          size_t *zeros)
{
    size_t after = 0;           /* zeros in the words after word i */
    for (size_t i = (n_bits - 1) / 64;; i--) {
        unsigned used = i == (n_bits - 1) / 64 ? (unsigned)((n_bits - 1) % 64 + 1) : 64;
        uint64_t x = ~v[i] & (used == 64 ? UINT64_MAX : (UINT64_C(1) << used) - 1);
        size_t c = timelist_popcount(x), before = z - after - c;
        if (r >= before) {
            *w = i;
            *zeros = before;
            return i * 64 + timelist_select64(x, (unsigned)(r - before));
        }
        after += c;
    }
}

/* Number of times in chunk k less than its base + d, d >= 1; *w and *zeros as for
 * timelist_select_zero_from over the chunk's high vector (calls for one chunk with d
 * increasing share them). */
static size_t
timelist_chunk_before_from(const timelist *tl, size_t k, uint64_t d, size_t *w, size_t *zeros)
{
    const timelist_chunk *c = &tl->chunks[k];
    size_t n = timelist_chunk_n(tl, k);
    uint64_t h = d >> c->low_bits;
    if (h > c->hi_max)
        return n;
    const uint64_t *low = tl->words + c->word;
    const uint64_t *high = low + timelist_n_low_words(n, c->low_bits);
    /* Bucket h starts after the h-th zero; the times before it are the ones before that. */
    size_t p = 0;
    if (h && *w == 0 && *zeros == 0 && h - 1 >= (uint64_t)c->hi_max / 2 + 1)
        p = timelist_select_zero_back(high, timelist_n_high_bits(n, c->hi_max),
                                      (size_t)c->hi_max + 1, (size_t)h - 1, w, zeros) + 1;
    else if (h)
        p = timelist_select_zero_from(high, (size_t)h - 1, w, zeros) + 1;
    size_t a = p - (size_t)h, z = a + timelist_ones_run(high, p);
    uint64_t dl = d & bitpack_mask(c->low_bits);
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (timelist_read_low(low, mid, c->low_bits) < dl)
            a = mid + 1;
        else
            z = mid;
    }
    return a;
}

/* Number of times in chunk k less than its base + d, d >= 1. */
static size_t
timelist_chunk_before(const timelist *tl, size_t k, uint64_t d)
{
    size_t w = 0, zeros = 0;
    return timelist_chunk_before_from(tl, k, d, &w, &zeros);
}

size_t
timelist_count_before(const timelist *tl, uint64_t t)
{
    if (tl->n_buf && tl->buf[0] < t) {
        size_t a = 0, z = tl->n_buf;
        while (a < z) {
            size_t mid = a + (z - a) / 2;
            if (tl->buf[mid] < t)
                a = mid + 1;
            else
                z = mid;
        }
        return tl->n_coded + a;
    }
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
    return (lo - 1) * TIMELIST_CHUNK
           + timelist_chunk_before(tl, lo - 1, t - tl->chunks[lo - 1].base_ns);
}

void
timelist_count_before_many(const timelist *tl, const uint64_t *t, size_t n, size_t *out)
{
    /* The chunk of the last answer (SIZE_MAX: none yet) and where its select stopped. */
    size_t k = SIZE_MAX, w = 0, zeros = 0;
    for (size_t m = 0; m < n; m++) {
        uint64_t tm = t[m];
        if (m > 0 && tm < t[m - 1])
            k = SIZE_MAX;       /* not increasing after all: search afresh */
        if ((tl->n_buf && tl->buf[0] < tm) || tl->n_chunks == 0 || tl->chunks[0].base_ns >= tm) {
            out[m] = timelist_count_before(tl, tm);
            continue;
        }
        /* The last chunk whose base is < tm, galloping on from the last answer's. */
        size_t lo = k == SIZE_MAX ? 0 : k, hi = tl->n_chunks, step = 1;
        while (lo + step < hi && tl->chunks[lo + step].base_ns < tm) {
            lo += step;
            step *= 2;
        }
        if (lo + step < hi)
            hi = lo + step;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (tl->chunks[mid].base_ns < tm)
                lo = mid;
            else
                hi = mid;
        }
        if (lo != k) {
            k = lo;
            w = zeros = 0;
        }
        out[m] = k * TIMELIST_CHUNK +
                 timelist_chunk_before_from(tl, k, tm - tl->chunks[k].base_ns, &w, &zeros);
    }
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
    return sizeof *tl + tl->cap_words * sizeof *tl->words
           + tl->cap_chunks * sizeof *tl->chunks + (tl->buf ? TIMELIST_CHUNK * sizeof *tl->buf : 0);
}

/* Check chunk k's layout and bits, and its times against *prev (then its last time). */
static bool
timelist_check_chunk(const timelist *tl, size_t k, uint64_t *prev, char *why, size_t why_len)
{
    const timelist_chunk *c = &tl->chunks[k];
    size_t n = timelist_chunk_n(tl, k);
    if (c->low_bits > 63 || (c->hi_max && c->hi_max > UINT64_MAX >> c->low_bits)) {
        snprintf(why, why_len, "chunk %zu: L %u, high max %u", k, c->low_bits,
                 (unsigned)c->hi_max);
        return false;
    }
    size_t n_low = timelist_n_low_words(n, c->low_bits);
    size_t n_high_bits = timelist_n_high_bits(n, c->hi_max);
    size_t end = k + 1 < tl->n_chunks ? tl->chunks[k + 1].word : tl->n_words;
    if (c->word > end || end > tl->n_words || end - c->word != n_low + (n_high_bits + 63) / 64) {
        snprintf(why, why_len, "chunk %zu: words [%zu, %zu) for %zu times", k, c->word, end, n);
        return false;
    }
    const uint64_t *low = tl->words + c->word, *high = low + n_low;
    size_t ones = 0, zeros = 0;
    uint64_t t = 0;
    for (size_t p = 0; p < n_high_bits; p++) {
        if (!(high[p >> 6] >> (p & 63) & 1)) {
            zeros++;
            continue;
        }
        uint64_t h = zeros, d = h << c->low_bits | timelist_read_low(low, ones, c->low_bits);
        if (ones >= n || h > c->hi_max || d > UINT64_MAX - c->base_ns) {
            snprintf(why, why_len, "chunk %zu: time %zu: high part %llu", k, ones,
                     (unsigned long long)h);
            return false;
        }
        t = c->base_ns + d;
        if ((ones == 0 && d) || t < *prev) {
            snprintf(why, why_len, "time %zu out of order", k * TIMELIST_CHUNK + ones);
            return false;
        }
        *prev = t;
        ones++;
    }
    if (ones != n || zeros != (size_t)c->hi_max + 1
        || (t - c->base_ns) >> c->low_bits != c->hi_max) {
        snprintf(why, why_len, "chunk %zu: %zu ones and %zu zeros for %zu times", k, ones,
                 zeros, n);
        return false;
    }
    for (size_t p = n_high_bits; p % 64; p++)
        if (high[p >> 6] >> (p & 63) & 1) {
            snprintf(why, why_len, "chunk %zu: bit %zu set past the end", k, p);
            return false;
        }
    return true;
}

bool
timelist_check(const timelist *tl, char *why, size_t why_len)
{
    if (tl->n_chunks != (tl->n_coded + TIMELIST_CHUNK - 1) / TIMELIST_CHUNK
        || (tl->buf && tl->n_coded % TIMELIST_CHUNK) || (!tl->buf && tl->n_buf)
        || tl->n_buf > TIMELIST_CHUNK || tl->n_words > tl->cap_words
        || tl->n_chunks > tl->cap_chunks || (tl->n_chunks && tl->chunks[0].word)) {
        snprintf(why, why_len, "%zu coded times in %zu chunks, %zu buffered", tl->n_coded,
                 tl->n_chunks, tl->n_buf);
        return false;
    }
    uint64_t prev = 0;
    for (size_t k = 0; k < tl->n_chunks; k++)
        if (!timelist_check_chunk(tl, k, &prev, why, why_len))
            return false;
    for (size_t i = 0; i < tl->n_buf; i++) {
        if (tl->buf[i] < prev) {
            snprintf(why, why_len, "time %zu out of order", tl->n_coded + i);
            return false;
        }
        prev = tl->buf[i];
    }
    if (timelist_count(tl) && prev != tl->last) {
        snprintf(why, why_len, "last time %llu, cached %llu", (unsigned long long)prev,
                 (unsigned long long)tl->last);
        return false;
    }
    return true;
}

bool
timelist_test_corrupt(timelist *tl, timelist_corrupt what, size_t i)
{
    if (i >= timelist_count(tl))
        return false;
    switch (what) {
    case TIMELIST_CORRUPT_BASE: {
        size_t k = i / TIMELIST_CHUNK;
        size_t next = (k + 1) * TIMELIST_CHUNK;
        if (i >= tl->n_coded || next >= timelist_count(tl))
            return false;
        uint64_t after = timelist_get(tl, next);
        if (after == UINT64_MAX)
            return false;
        tl->chunks[k].base_ns = after + 1;
        return true;
    }
    case TIMELIST_CORRUPT_HIGH_BIT: {
        if (i >= tl->n_coded)
            return false;
        size_t k = i / TIMELIST_CHUNK;
        const timelist_chunk *c = &tl->chunks[k];
        tl->words[c->word + timelist_n_low_words(timelist_chunk_n(tl, k), c->low_bits)] ^= 1;
        return true;
    }
    case TIMELIST_CORRUPT_TAIL:
        if (i <= tl->n_coded || tl->buf[i - tl->n_coded] == UINT64_MAX)
            return false;
        tl->buf[i - tl->n_coded - 1] = tl->buf[i - tl->n_coded] + 1;
        return true;
    }
    return false;
}
