/* ivtrack: kinded intervals cut into chunks of IVTRACK_CHUNK, each with a header (first
 * start, time of each kind before it). A full chunk is bit-packed into frame-of-reference
 * columns of per-chunk widths: every start - the chunk's first start, kind | flags << 3,
 * and a bitmap of the intervals that do not end where the next one starts (tails: GC
 * phases mostly follow one another) with the tails' durations alone; the last, partial
 * chunk waits as plain records. References (set after the build by the GC join) are a
 * plain array (none held for the intervals after the last one set: a track in the
 * making holds no refs) until ivtrack_pack_refs packs those of the full chunks: per
 * chunk a bitmap of where the ref changes, then at each change the ref as a code above
 * the chunk's least (0: none) in the fewest bits. A search goes over the small header array, then
 * inside one chunk; per-kind time in a window scans from each end to the nearest of the
 * chunk's edges and its middle (whose sums a word after the columns keeps), or clips a
 * narrow window's few; a sweep over increasing times walks on from its last answer when
 * the next is a few intervals further in the same chunk. */
#include "ivtrack.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "checkfail.h"
#include "gallop.h"
#include "xalloc.h"

#define IVTRACK_FLAG_MASK (IVTRACK_F_OPEN | IVTRACK_F_CLIPPED)
/* The kind+flags column holds kind | flags << IVTRACK_KS_SHIFT. */
#define IVTRACK_KS_SHIFT 3
/* Zero words kept after the packed ones: a column read loads the word it starts in and
 * the next, and a column of width 0 at the very end starts at the end. */
#define IVTRACK_PAD 2
/* A field of at most this many bits lies inside the 8 bytes from the byte it starts in:
 * one unaligned load (ivtrack_field). */
#define IVTRACK_NARROW 57

_Static_assert(IVTRACK_CHUNK > 0 && (IVTRACK_CHUNK & (IVTRACK_CHUNK - 1)) == 0,
               "IVTRACK_CHUNK must be a power of two");
_Static_assert(IVTRACK_KINDS <= (1 << IVTRACK_KS_SHIFT) / 2, "kinds fit below the flags");

typedef struct ivtrack_cum {
    uint64_t ns[IVTRACK_KINDS];
} ivtrack_cum;

/* Header of chunk c, which holds intervals [c * IVTRACK_CHUNK, (c + 1) * IVTRACK_CHUNK).
 * A packed chunk's words from `word`: the tails bitmap (bit j: interval j does not end
 * at interval j + 1's start; the last bit always set), the middle word (IVTRACK_MID:
 * beside the tails, in the cache line a read loads first), then its columns one after
 * another, a column of k values of width w taking ivtrack_words(k, w) words (value m at
 * bit m * w, unused bits zero): start offsets (IVTRACK_CHUNK), kind+flags
 * (IVTRACK_CHUNK), tails' durations (one per tail). */
typedef struct ivtrack_chunk {
    uint64_t start_ns;          /* start of the chunk's first interval: the base */
    ivtrack_cum before;         /* time of each kind in the intervals before the chunk */
    uint32_t word;
    uint32_t ref_word;          /* its packed refs, if packed: at refw[ref_word] */
    uint32_t ref_base;          /* a packed ref r is r - ref_base + 1, UINT32_MAX is 0 */
    uint8_t w_off, w_tdur, w_ks, w_ref;
} ivtrack_chunk;

_Static_assert(IVTRACK_CHUNK == 64, "a chunk's tails are one word");

/* A packed chunk's second word holds the time of each kind in its first IVTRACK_MID
 * intervals, so that a sum inside the chunk starts from the nearest of three known
 * points, not two: bits [0, 4) the kinds held (a kind left out has none), [4, 10) their
 * width w, then each held kind's time in kind order, w bits each; w = IVTRACK_MID_NONE
 * when they do not fit (then a sum starts from a chunk edge). */
#define IVTRACK_MID (IVTRACK_CHUNK / 2)
#define IVTRACK_MID_NONE 63u
/* A packed chunk's columns start after its tails and middle words. */
#define IVTRACK_COLS_AT 2
_Static_assert(IVTRACK_KINDS <= 4, "the middle word's kinds are four bits");

/* Where a packed chunk's columns are. */
typedef struct ivtrack_cols {
    uint64_t tails;
    const uint64_t *off, *ks, *tdur;
} ivtrack_cols;

struct ivtrack {
    uint64_t *words;            /* owned; packed columns, then IVTRACK_PAD zero words */
    size_t n_words, cap_words;
    ivtrack_chunk *ch;          /* owned; one per chunk, the partial last one included */
    size_t cap_ch;
    uint32_t *refs;             /* owned; the refs of intervals ref_from.. */
    size_t n_refs, cap_refs;    /* refs held: intervals from ref_from + n_refs on have
                                 * none (UINT32_MAX), as all have until the GC join */
    size_t ref_from;            /* intervals before it have packed refs (whole chunks) */
    uint64_t *refw;             /* owned; packed refs, then IVTRACK_PAD zero words */
    uint32_t n_refw;            /* (a chunk's ref_word is 32 bits too) */
    uint32_t cap_open;          /* IVTRACK_CHUNK while appending; trimmed by seal */
    ivtrack_iv *open;           /* owned; the last chunk's n % IVTRACK_CHUNK intervals */
    size_t n;
    ivtrack_cum total;          /* time of each kind in all intervals */
    bool wide;                  /* some packed chunk has a column wider than
                                 * IVTRACK_NARROW bits (never cleared) */
};

/* Chunks covering n intervals (no overflow near SIZE_MAX). */
static size_t
ivtrack_chunks(size_t n)
{
    return n / IVTRACK_CHUNK + (n % IVTRACK_CHUNK != 0);
}

static size_t
ivtrack_words(size_t k, unsigned w)
{
    return (k * w + 63) / 64;
}

static size_t
ivtrack_col_words(unsigned w)
{
    return ivtrack_words(IVTRACK_CHUNK, w);
}

/* Words packed chunk ck takes, its tails bitmap being `tails`. */
static size_t
ivtrack_chunk_words(const ivtrack_chunk *ck, uint64_t tails)
{
    return IVTRACK_COLS_AT + ivtrack_col_words(ck->w_off) + ivtrack_col_words(ck->w_ks) +
           ivtrack_words((size_t)bitpack_popcount(tails), ck->w_tdur);
}

/* The middle word for these times of each kind in a chunk's first IVTRACK_MID
 * intervals. */
static uint64_t
ivtrack_mid_word(const uint64_t *ns)
{
    uint64_t any = 0, mask = 0;
    for (unsigned k = 0; k < IVTRACK_KINDS; k++) {
        any |= ns[k];
        mask |= (uint64_t)(ns[k] != 0) << k;
    }
    unsigned w = bitpack_width(any), held = bitpack_popcount(mask);
    if (10 + held * w > 64)
        return (uint64_t)IVTRACK_MID_NONE << 4;
    uint64_t word = mask | (uint64_t)w << 4;
    unsigned at = 10;
    for (unsigned k = 0; k < IVTRACK_KINDS; k++)
        if (ns[k]) {
            word |= ns[k] << at;
            at += w;
        }
    return word;
}

/* The times a middle word holds into ns[]; false (ns[] untouched) if it holds none. */
static inline bool
ivtrack_mid_get(uint64_t word, uint64_t *ns)
{
    unsigned w = (unsigned)(word >> 4 & 63), at = 10;
    if (w == IVTRACK_MID_NONE)
        return false;
    uint64_t m = bitpack_mask(w);
    for (unsigned k = 0; k < IVTRACK_KINDS; k++) {
        uint64_t held = word >> k & 1;
        ns[k] = held ? word >> at & m : 0;      /* at < 64 while a kind is held */
        at += held ? w : 0;
    }
    return true;
}

static inline void
ivtrack_cols_of(const ivtrack *tr, const ivtrack_chunk *ck, ivtrack_cols *c)
{
    const uint64_t *w = tr->words + ck->word;
    c->tails = w[0];
    c->off = w + IVTRACK_COLS_AT;
    c->ks = c->off + ivtrack_col_words(ck->w_off);
    c->tdur = c->ks + ivtrack_col_words(ck->w_ks);
}

/* End of interval j of a packed chunk, starting at base + off_j: the next one's start,
 * or for a tail its start plus its duration. */
static inline uint64_t
ivtrack_cend(const ivtrack_chunk *ck, const ivtrack_cols *c, uint64_t j, uint64_t off_j)
{
    if (!(c->tails >> j & 1))
        return bitpack_get(c->off, (j + 1) * ck->w_off, ck->w_off);
    uint64_t r = (uint64_t)bitpack_popcount(c->tails & ((UINT64_C(1) << j) - 1));
    return off_j + bitpack_get(c->tdur, r * ck->w_tdur, ck->w_tdur);
}

ivtrack *
ivtrack_new(void)
{
    ivtrack *tr = xcalloc(1, sizeof *tr);   /* caller frees with ivtrack_free */
    return tr;
}

void
ivtrack_free(ivtrack *tr)
{
    if (!tr)
        return;
    x_free(tr->words);
    x_free(tr->ch);
    x_free(tr->refs);
    x_free(tr->refw);
    x_free(tr->open);
    x_free(tr);
}

/* Is interval i in a packed chunk (else in open)? */
static inline bool
ivtrack_packed(const ivtrack *tr, size_t i)
{
    return i / IVTRACK_CHUNK < tr->n / IVTRACK_CHUNK;
}

/* Interval i's start (i < n). */
static inline uint64_t
ivtrack_start(const ivtrack *tr, size_t i)
{
    if (!ivtrack_packed(tr, i))
        return tr->open[i % IVTRACK_CHUNK].start_ns;
    const ivtrack_chunk *ck = &tr->ch[i / IVTRACK_CHUNK];
    return ck->start_ns + bitpack_get(tr->words + ck->word + IVTRACK_COLS_AT,
                                      (uint64_t)(i % IVTRACK_CHUNK) * ck->w_off, ck->w_off);
}

/* Interval i's ref (i < n). */
static uint32_t
ivtrack_ref(const ivtrack *tr, size_t i)
{
    if (i >= tr->ref_from)
        return i - tr->ref_from < tr->n_refs ? tr->refs[i - tr->ref_from] : UINT32_MAX;
    const ivtrack_chunk *ck = &tr->ch[i / IVTRACK_CHUNK];
    const uint64_t *w = tr->refw + ck->ref_word;
    uint64_t j = i % IVTRACK_CHUNK;
    /* The ref is the last one stored at or before j: w[0] marks where they change. */
    uint64_t k = (uint64_t)bitpack_popcount(w[0] & (UINT64_MAX >> (63 - j))) - 1;
    uint64_t c = bitpack_get(w + 1, k * ck->w_ref, ck->w_ref);
    return c ? (uint32_t)(c - 1 + ck->ref_base) : UINT32_MAX;
}

/* Every ref back into the plain array (a ref changed after packing). */
static void
ivtrack_unpack_refs(ivtrack *tr)
{
    uint32_t *all = xmalloc((tr->n + 1) * sizeof *all);   /* becomes tr->refs */
    for (size_t i = 0; i < tr->n; i++)
        all[i] = ivtrack_ref(tr, i);
    x_free(tr->refs);
    x_free(tr->refw);
    tr->refs = all;
    tr->n_refs = tr->n;
    tr->cap_refs = tr->n + 1;
    tr->refw = NULL;
    tr->n_refw = 0;
    tr->ref_from = 0;
}

/* Interval i (i < n) without its ref. */
static inline void
ivtrack_load(const ivtrack *tr, size_t i, ivtrack_iv *v)
{
    if (!ivtrack_packed(tr, i)) {
        *v = tr->open[i % IVTRACK_CHUNK];
        return;
    }
    const ivtrack_chunk *ck = &tr->ch[i / IVTRACK_CHUNK];
    uint64_t j = i % IVTRACK_CHUNK;
    ivtrack_cols c;
    ivtrack_cols_of(tr, ck, &c);
    uint64_t off_j = bitpack_get(c.off, j * ck->w_off, ck->w_off);
    uint64_t ks = bitpack_get(c.ks, j * ck->w_ks, ck->w_ks);
    v->start_ns = ck->start_ns + off_j;
    v->end_ns = ck->start_ns + ivtrack_cend(ck, &c, j, off_j);
    v->kind = (uint8_t)(ks & ((1u << IVTRACK_KS_SHIFT) - 1));
    v->flags = (uint8_t)(ks >> IVTRACK_KS_SHIFT);
}

/* Pack the IVTRACK_CHUNK intervals v as chunk c (its start_ns and before already set),
 * at the end of the words. */
static void
ivtrack_pack(ivtrack *tr, size_t c, const ivtrack_iv *v)
{
    ivtrack_chunk *ck = &tr->ch[c];
    uint64_t any_off = 0, any_tdur = 0, any_ks = 0, tails = 0, mid[IVTRACK_KINDS] = { 0 };
    for (size_t j = 0; j < IVTRACK_CHUNK; j++) {
        if (j + 1 == IVTRACK_CHUNK || v[j].end_ns != v[j + 1].start_ns) {
            tails |= UINT64_C(1) << j;
            any_tdur |= v[j].end_ns - v[j].start_ns;
        }
        any_off |= v[j].start_ns - ck->start_ns;
        any_ks |= (uint64_t)v[j].kind | (uint64_t)v[j].flags << IVTRACK_KS_SHIFT;
        if (j < IVTRACK_MID)        /* a kind beyond is damage (ivtrack_test_corrupt) */
            mid[v[j].kind & (IVTRACK_KINDS - 1)] += v[j].end_ns - v[j].start_ns;
    }
    ck->w_off = (uint8_t)bitpack_width(any_off);
    ck->w_tdur = (uint8_t)bitpack_width(any_tdur);
    ck->w_ks = (uint8_t)bitpack_width(any_ks);
    if (ck->w_off > IVTRACK_NARROW || ck->w_tdur > IVTRACK_NARROW || ck->w_ks > IVTRACK_NARROW)
        tr->wide = true;
    ck->word = (uint32_t)tr->n_words;
    size_t need = ivtrack_chunk_words(ck, tails);
    xgrowarray((void **)&tr->words, &tr->cap_words, tr->n_words + need + IVTRACK_PAD, 256,
               sizeof *tr->words);
    uint64_t *w = tr->words + tr->n_words;
    memset(w, 0, (need + IVTRACK_PAD) * sizeof *w);
    w[0] = tails;
    uint64_t *off = w + IVTRACK_COLS_AT, *ks = off + ivtrack_col_words(ck->w_off);
    uint64_t *tdur = ks + ivtrack_col_words(ck->w_ks);
    for (size_t j = 0, r = 0; j < IVTRACK_CHUNK; j++) {
        bitpack_put(off, j * ck->w_off, v[j].start_ns - ck->start_ns, ck->w_off);
        bitpack_put(ks, j * ck->w_ks,
                    (uint64_t)v[j].kind | (uint64_t)v[j].flags << IVTRACK_KS_SHIFT, ck->w_ks);
        if (tails >> j & 1)
            bitpack_put(tdur, r++ * ck->w_tdur, v[j].end_ns - v[j].start_ns, ck->w_tdur);
    }
    w[1] = ivtrack_mid_word(mid);
    tr->n_words += need;
}

/* Hold the refs of intervals ref_from .. ref_from + k (k <= n - ref_from) plainly: those
 * not held yet have none. */
static void
ivtrack_refs_cover(ivtrack *tr, size_t k)
{
    if (k <= tr->n_refs)
        return;
    xgrowarray((void **)&tr->refs, &tr->cap_refs, k, 64, sizeof *tr->refs);
    for (size_t i = tr->n_refs; i < k; i++)
        tr->refs[i] = UINT32_MAX;
    tr->n_refs = k;
}

/* ivtrack_append, keeping those of the caller's flags in `keep`. */
static bool
ivtrack_append_keep(ivtrack *tr, const ivtrack_iv *iv, unsigned keep)
{
    if (iv->kind >= IVTRACK_KINDS)
        return false;
    ivtrack_iv v = *iv;
    v.flags &= keep;
    if (tr->n > 0) {
        ivtrack_iv last;
        ivtrack_load(tr, tr->n - 1, &last);
        if (v.start_ns < last.end_ns) {
            v.start_ns = last.end_ns;
            v.flags |= IVTRACK_F_CLIPPED;
        }
    }
    if (v.end_ns < v.start_ns)
        return false;
    size_t c = tr->n / IVTRACK_CHUNK, j = tr->n % IVTRACK_CHUNK;
    if (j == 0) {
        xgrowarray((void **)&tr->ch, &tr->cap_ch, c + 1, 4, sizeof *tr->ch);
        tr->ch[c] = (ivtrack_chunk){ .start_ns = v.start_ns, .before = tr->total };
    }
    if (v.ref != UINT32_MAX) {
        ivtrack_refs_cover(tr, tr->n - tr->ref_from + 1);
        tr->refs[tr->n - tr->ref_from] = v.ref;
    }
    if (tr->cap_open < IVTRACK_CHUNK) {
        tr->cap_open = IVTRACK_CHUNK;
        tr->open = xreallocarray(tr->open, tr->cap_open, sizeof *tr->open);   /* owned by tr */
    }
    tr->open[j] = v;
    tr->n++;
    tr->total.ns[v.kind] += v.end_ns - v.start_ns;
    if (j + 1 == IVTRACK_CHUNK)
        ivtrack_pack(tr, c, tr->open);
    return true;
}

bool
ivtrack_append(ivtrack *tr, const ivtrack_iv *iv)
{
    return ivtrack_append_keep(tr, iv, IVTRACK_F_OPEN);
}

void
ivtrack_append_track(ivtrack *dst, const ivtrack *src)
{
    ivtrack_iv v;
    for (size_t i = 0; i < src->n; i++)
        ivtrack_append_keep(dst, ivtrack_get(src, i, &v), IVTRACK_F_OPEN | IVTRACK_F_CLIPPED);
}

void
ivtrack_seal(ivtrack *tr)
{
    if (tr->n == 0)
        return;
    if (tr->cap_words > tr->n_words + IVTRACK_PAD) {
        tr->cap_words = tr->n_words + IVTRACK_PAD;
        tr->words = xreallocarray(tr->words, tr->cap_words, sizeof *tr->words);
    }
    if (tr->cap_ch > ivtrack_chunks(tr->n)) {
        tr->cap_ch = ivtrack_chunks(tr->n);
        tr->ch = xreallocarray(tr->ch, tr->cap_ch, sizeof *tr->ch);
    }
    if (tr->cap_refs > tr->n_refs) {
        tr->cap_refs = tr->n_refs;
        tr->refs = xreallocarray(tr->refs, tr->cap_refs ? tr->cap_refs : 1, sizeof *tr->refs);
    }
    size_t open_n = tr->n % IVTRACK_CHUNK;
    if (open_n == 0) {
        x_free(tr->open);
        tr->open = NULL;
        tr->cap_open = 0;
    } else if (tr->cap_open > open_n) {
        tr->cap_open = (uint32_t)open_n;
        tr->open = xreallocarray(tr->open, tr->cap_open, sizeof *tr->open);
    }
}

size_t
ivtrack_count(const ivtrack *tr)
{
    return tr->n;
}

const ivtrack_iv *
ivtrack_get(const ivtrack *tr, size_t i, ivtrack_iv *buf)
{
    if (i >= tr->n)
        return NULL;
    ivtrack_load(tr, i, buf);
    buf->ref = ivtrack_ref(tr, i);
    return buf;
}

/* A reader of intervals in order: the columns of the chunk it is in with their masks,
 * the tails before the next interval and the last end at hand (kept in registers when
 * the reads are inlined into one loop), so that a read costs the kind's, the end's and,
 * after a tail, the start's field: no popcount, no header. */
typedef struct ivtrack_rd {
    const ivtrack *tr;
    size_t c;                   /* the chunk of the columns below; SIZE_MAX: none yet */
    const uint64_t *off, *ks, *tdur;
    uint64_t base, tails, r, prev_end, m_off, m_ks, m_tdur;
    unsigned w_off, w_ks, w_tdur;
} ivtrack_rd;

static inline void
ivtrack_rd_init(ivtrack_rd *rd, const ivtrack *tr)
{
    memset(rd, 0, sizeof *rd);
    rd->tr = tr;
    rd->c = SIZE_MAX;
}

/* Interval i's start, end and kind (as stored: a kind beyond IVTRACK_KINDS is damage),
 * i < n being the first read through rd or the one after the last. Always inlined: the
 * reader's fields then live in the caller's registers. */
static inline __attribute__((always_inline)) void
ivtrack_rd_get(ivtrack_rd *rd, size_t i, uint64_t *start, uint64_t *end, unsigned *kind)
{
    const ivtrack *tr = rd->tr;
    size_t c = i / IVTRACK_CHUNK;
    uint64_t j = i % IVTRACK_CHUNK, s, e;
    if (c >= tr->n / IVTRACK_CHUNK) {
        const ivtrack_iv *v = &tr->open[j];
        *start = v->start_ns;
        *end = v->end_ns;
        *kind = v->kind;
        return;
    }
    if (c != rd->c) {
        const ivtrack_chunk *ck = &tr->ch[c];
        rd->c = c;
        rd->base = ck->start_ns;
        rd->off = tr->words + ck->word + IVTRACK_COLS_AT;
        rd->tails = rd->off[-IVTRACK_COLS_AT];
        rd->w_off = ck->w_off;
        rd->w_ks = ck->w_ks;
        rd->w_tdur = ck->w_tdur;
        rd->ks = rd->off + rd->w_off;
        rd->tdur = rd->ks + rd->w_ks;
        rd->m_off = bitpack_mask(rd->w_off);
        rd->m_ks = bitpack_mask(rd->w_ks);
        rd->m_tdur = bitpack_mask(rd->w_tdur);
        rd->r = bitpack_popcount(rd->tails & ((UINT64_C(1) << j) - 1));
        s = rd->base + bitpack_get_masked(rd->off, j * rd->w_off, rd->m_off);
    } else if (rd->tails >> (j - 1) & 1) {      /* j > 0: the chunk was read before */
        s = rd->base + bitpack_get_masked(rd->off, j * rd->w_off, rd->m_off);
    } else {
        s = rd->prev_end;                       /* i - 1 ends where i starts */
    }
    if (rd->tails >> j & 1)
        e = s + bitpack_get_masked(rd->tdur, rd->r++ * rd->w_tdur, rd->m_tdur);
    else
        e = rd->base + bitpack_get_masked(rd->off, (j + 1) * rd->w_off, rd->m_off);
    rd->prev_end = e;
    *start = s;
    *end = e;
    *kind = (unsigned)bitpack_get_masked(rd->ks, j * rd->w_ks, rd->m_ks) &
            ((1u << IVTRACK_KS_SHIFT) - 1);
}

/* Set interval i's ref (i < n): the next one past those held (a join's, in order)
 * costs a store; a gap or a full array goes through ivtrack_refs_cover. */
static inline void
ivtrack_ref_put(ivtrack *tr, size_t i, uint32_t ref)
{
    if (i < tr->ref_from)
        ivtrack_unpack_refs(tr);
    size_t k = i - tr->ref_from;
    if (k >= tr->n_refs) {
        if (ref == UINT32_MAX)
            return;             /* none already */
        if (k > tr->n_refs || k >= tr->cap_refs)
            ivtrack_refs_cover(tr, k + 1);
        else
            tr->n_refs = k + 1;
    }
    tr->refs[k] = ref;
}

void
ivtrack_set_ref(ivtrack *tr, size_t i, uint32_t ref)
{
    if (i < tr->n)
        ivtrack_ref_put(tr, i, ref);
}

size_t
ivtrack_set_refs_span(ivtrack *tr, ivtrack_span_cur *cur, uint64_t t0, uint64_t t1,
                      uint32_t ref)
{
    /* ivtrack_first_after is monotone in t: a walk from the answer for a time <= t0. */
    size_t i = cur->at1 != SIZE_MAX && t0 >= cur->t1   ? cur->at1
               : cur->at0 != SIZE_MAX && t0 >= cur->t0 ? cur->at0
                                                       : SIZE_MAX;
    uint64_t s = 0, e = 0;
    unsigned k;
    bool read = false;          /* interval i is read (s, e) through rd */
    ivtrack_rd rd;
    ivtrack_rd_init(&rd, tr);
    if (i != SIZE_MAX && i < tr->n) {
        /* ivtrack_first_after(t0) is the first interval ending after t0 or starting at
         * it (none before that can: ends never pass the next start), so a walk finds
         * it; a long one gives way to the search. */
        size_t stop = i + 2 * IVTRACK_CHUNK;
        for (; i < tr->n && i < stop; i++) {
            ivtrack_rd_get(&rd, i, &s, &e, &k);
            if (e > t0 || s == t0) {
                read = true;
                break;
            }
        }
        if (i == stop && i < tr->n) {
            size_t hint = i / IVTRACK_CHUNK;
            i = ivtrack_first_after_near(tr, t0, &hint);
            ivtrack_rd_init(&rd, tr);
        }
    } else if (i == SIZE_MAX) {
        i = ivtrack_first_after(tr, t0);
    }
    cur->at0 = i;
    cur->t0 = t0;
    /* ivtrack_first_after(t1) lies in [at0, the index returned] when t1 > t0: the
     * interval that stops the loop ends after t1 or starts at it. */
    size_t at1 = t1 == t0 ? i : t1 > t0 ? SIZE_MAX - 1 : SIZE_MAX;
    for (; i < tr->n; i++) {
        if (!read)
            ivtrack_rd_get(&rd, i, &s, &e, &k);
        read = false;
        if (at1 == SIZE_MAX - 1 && (e > t1 || s == t1))
            at1 = i;
        if (s > t1 || (s == t1 && t1 > t0))
            break;
        ivtrack_ref_put(tr, i, ref);
    }
    cur->at1 = at1 == SIZE_MAX - 1 ? i : at1;
    cur->t1 = t1;
    return i;
}

/* Refs stored for a chunk of them: the first and each one unlike the one before. */
static size_t
ivtrack_ref_changes(const uint32_t *r)
{
    size_t k = 1;
    for (size_t j = 1; j < IVTRACK_CHUNK; j++)
        k += r[j] != r[j - 1];
    return k;
}

void
ivtrack_pack_refs(ivtrack *tr)
{
    ivtrack_pack_refs_before(tr, tr->n);
}

void
ivtrack_pack_refs_before(ivtrack *tr, size_t upto)
{
    bool all = upto >= tr->n;
    size_t to = (all ? tr->n : upto) / IVTRACK_CHUNK * IVTRACK_CHUNK, words = tr->n_refw;
    /* After packing them all, what is left stays plain, every ref held, in an array of
     * just its size; after some, the refs held past them stay as they are. */
    if (all)
        ivtrack_refs_cover(tr, tr->n - tr->ref_from);
    else if (to > tr->ref_from)
        ivtrack_refs_cover(tr, to - tr->ref_from);
    if (to <= tr->ref_from) {
        if (!all)
            return;
        if (tr->cap_refs > tr->n_refs) {
            tr->cap_refs = tr->n_refs;
            tr->refs = xreallocarray(tr->refs, tr->cap_refs ? tr->cap_refs : 1,
                                     sizeof *tr->refs);
        }
        return;
    }
    /* First each chunk's base and width, then the words, allocated once. */
    for (size_t c = tr->ref_from / IVTRACK_CHUNK; c < to / IVTRACK_CHUNK; c++) {
        const uint32_t *r = tr->refs + (c * IVTRACK_CHUNK - tr->ref_from);
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t j = 0; j < IVTRACK_CHUNK; j++)
            if (r[j] != UINT32_MAX) {
                lo = r[j] < lo ? r[j] : lo;
                hi = r[j] > hi ? r[j] : hi;
            }
        ivtrack_chunk *ck = &tr->ch[c];
        ck->ref_base = lo == UINT32_MAX ? 0 : lo;
        ck->w_ref = (uint8_t)bitpack_width(lo == UINT32_MAX ? 0 : (uint64_t)hi - lo + 1);
        ck->ref_word = (uint32_t)words;
        words += 1 + ivtrack_words(ivtrack_ref_changes(r), ck->w_ref);
    }
    tr->refw = xreallocarray(tr->refw, words + IVTRACK_PAD, sizeof *tr->refw);  /* owned */
    memset(tr->refw + tr->n_refw, 0, (words + IVTRACK_PAD - tr->n_refw) * sizeof *tr->refw);
    for (size_t c = tr->ref_from / IVTRACK_CHUNK; c < to / IVTRACK_CHUNK; c++) {
        const uint32_t *r = tr->refs + (c * IVTRACK_CHUNK - tr->ref_from);
        const ivtrack_chunk *ck = &tr->ch[c];
        uint64_t *w = tr->refw + ck->ref_word;
        for (size_t j = 0, k = 0; j < IVTRACK_CHUNK; j++)
            if (j == 0 || r[j] != r[j - 1]) {
                w[0] |= UINT64_C(1) << j;
                bitpack_put(w + 1, k++ * ck->w_ref,
                            r[j] == UINT32_MAX ? 0 : (uint64_t)r[j] - ck->ref_base + 1,
                            ck->w_ref);
            }
    }
    tr->n_refw = (uint32_t)words;
    size_t left = tr->n_refs - (to - tr->ref_from);
    memmove(tr->refs, tr->refs + (to - tr->ref_from), left * sizeof *tr->refs);
    tr->ref_from = to;
    tr->n_refs = left;
    tr->cap_refs = left;
    tr->refs = xreallocarray(tr->refs, left ? left : 1, sizeof *tr->refs);
}

/* Number of intervals with start < t (inclusive: start <= t): first the last chunk
 * whose first interval counts, then within it. */
static size_t
ivtrack_count_starts_from(const ivtrack *tr, uint64_t t, bool inclusive, size_t c_from)
{
    size_t lo = 0, hi = ivtrack_chunks(tr->n);
    /* Chunk c_from's first interval is known to count: gallop forward from there. */
    if (c_from > 0 && c_from < hi) {
        size_t step = 1;
        lo = c_from + 1;
        while (lo + step < hi && (tr->ch[lo + step - 1].start_ns < t ||
                                  (inclusive && tr->ch[lo + step - 1].start_ns == t))) {
            lo += step;
            step *= 2;
        }
        if (lo + step < hi)
            hi = lo + step;
    } else if (hi > 0 && (tr->ch[0].start_ns < t || (inclusive && tr->ch[0].start_ns == t))) {
        /* Nothing known but that the first chunk counts: from where t falls were the
         * chunks spread evenly. Those whose first start is below u count. */
        if (inclusive && t == UINT64_MAX) {
            lo = hi;
        } else {
            uint64_t u = inclusive ? t + 1 : t;
            lo = 1 + gallop_last_below_cold(&tr->ch[0].start_ns, sizeof tr->ch[0], hi, u);
        }
        hi = lo;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = tr->ch[mid].start_ns;
        if (s < t || (inclusive && s == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    /* Chunk lo - 1's first interval counts and chunk lo's (if any) does not. */
    hi = tr->n / IVTRACK_CHUNK >= lo ? lo * IVTRACK_CHUNK : tr->n;
    lo = (lo - 1) * IVTRACK_CHUNK + 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t s = ivtrack_start(tr, mid);
        if (s < t || (inclusive && s == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t
ivtrack_count_starts(const ivtrack *tr, uint64_t t, bool inclusive)
{
    return ivtrack_count_starts_from(tr, t, inclusive, 0);
}

size_t
ivtrack_first_after(const ivtrack *tr, uint64_t t)
{
    size_t hint = 0;            /* no hint: a plain search */
    return ivtrack_first_after_near(tr, t, &hint);
}

size_t
ivtrack_first_after_near(const ivtrack *tr, uint64_t t, size_t *hint)
{
    /* The gallop needs chunk *hint's first interval to start before t. */
    size_t c = *hint;
    if (c >= ivtrack_chunks(tr->n) || tr->ch[c].start_ns >= t)
        c = 0;
    size_t k = ivtrack_count_starts_from(tr, t, false, c);
    if (k == 0)
        return 0;
    *hint = (k - 1) / IVTRACK_CHUNK;
    ivtrack_iv v;
    ivtrack_load(tr, k - 1, &v);
    return v.end_ns > t ? k - 1 : k;
}

size_t
ivtrack_last_starting_by(const ivtrack *tr, uint64_t t)
{
    size_t k = ivtrack_count_starts(tr, t, true);
    return k ? k - 1 : SIZE_MAX;
}

/* Time of each kind in intervals [lo, hi) of the open (last, unpacked) chunk, added
 * into sum (a packed chunk's are summed by ivtrack_kinds_in). */
static void
ivtrack_scan(const ivtrack *tr, size_t lo, size_t hi, ivtrack_cum *sum)
{
    for (size_t i = lo; i < hi; i++) {
        const ivtrack_iv *v = &tr->open[i % IVTRACK_CHUNK];
        sum->ns[v->kind & (IVTRACK_KINDS - 1)] += v->end_ns - v->start_ns;
    }
}

/* Time of each kind in intervals [0, j), j < n in the open chunk: from its stored sums
 * forwards, or from the total backwards, whichever edge is nearer. The backward
 * difference is exact: every partial sum fits in uint64_t. */
static void
ivtrack_prefix(const ivtrack *tr, size_t j, ivtrack_cum *out)
{
    size_t c = j / IVTRACK_CHUNK, lo = c * IVTRACK_CHUNK;
    size_t hi = tr->n - lo > IVTRACK_CHUNK ? lo + IVTRACK_CHUNK : tr->n;
    if (j - lo <= hi - j) {
        *out = tr->ch[c].before;
        ivtrack_scan(tr, lo, j, out);
        return;
    }
    ivtrack_cum back = { { 0 } };
    ivtrack_scan(tr, j, hi, &back);
    const ivtrack_cum *next = hi < tr->n ? &tr->ch[c + 1].before : &tr->total;
    for (unsigned k = 0; k < IVTRACK_KINDS; k++)
        out->ns[k] = next->ns[k] - back.ns[k];
}

/* The field under mask at bit `bit`, the mask being at most IVTRACK_NARROW bits when
 * `narrow` (a track not wide), any otherwise: with a constant `narrow` the reads of a
 * loop lose bitpack_get_masked's width test. */
static inline __attribute__((always_inline)) uint64_t
ivtrack_field(const uint64_t *words, uint64_t bit, uint64_t mask, bool narrow)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (narrow) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)words + (bit >> 3), sizeof v);
        return v >> (bit & 7) & mask;
    }
#endif
    return bitpack_get_masked(words, bit, mask);
}

/* Add to acc[kind] the length of each interval [from, to) of a packed chunk (columns cl),
 * the one at `from` starting at offset off_from with r tails before it: a duration is the
 * next start less the interval's own, or for a tail its stored one. `narrow`: as
 * ivtrack_field's. */
static inline __attribute__((always_inline)) void
ivtrack_sum_span(const ivtrack_cols *cl, const ivtrack_chunk *ck, uint64_t from, uint64_t to,
                 uint64_t r, uint64_t off_from, uint64_t *acc, bool narrow)
{
    uint64_t m_off = bitpack_mask(ck->w_off), m_tdur = bitpack_mask(ck->w_tdur);
    uint64_t m_ks = bitpack_mask(ck->w_ks);
    unsigned w_off = ck->w_off, w_tdur = ck->w_tdur, w_ks = ck->w_ks;
    uint64_t off_i = off_from;
    for (uint64_t i = from; i < to; i++) {
        uint64_t off_n = ivtrack_field(cl->off, (i + 1) * w_off, m_off, narrow);
        uint64_t d = off_n - off_i;
        if (cl->tails >> i & 1)
            d = ivtrack_field(cl->tdur, r++ * w_tdur, m_tdur, narrow);
        acc[ivtrack_field(cl->ks, i * w_ks, m_ks, narrow) & (IVTRACK_KINDS - 1)] += d;
        off_i = off_n;
    }
}

/* Where a sweep over a packed chunk stands: interval j of chunk c (its start offset
 * off_j from the chunk's first start, r the tails before it) and the time of each kind in
 * all the intervals before it (pre); the answer for a time t past j's start and at most
 * the next one's is pre plus j clipped at t. */
typedef struct ivtrack_at {
    size_t c;                   /* SIZE_MAX: none */
    uint64_t j, off_j, r;
    uint64_t pre[IVTRACK_KINDS];
} ivtrack_at;

/* *at for interval j of packed chunk c: the intervals before j summed from the
 * nearest of the chunk's start, its middle (when its word holds the times) and its end,
 * forwards over [from, j) or backwards over [j, to), in one loop with the columns' masks
 * at hand and the sums in locals. A duration is the next start less the interval's own,
 * or for a tail its stored one (the tails counted as the loop goes). */
static inline __attribute__((always_inline)) void
ivtrack_at_search(const ivtrack *tr, size_t c, uint64_t j, ivtrack_at *at, bool narrow)
{
    const ivtrack_chunk *ck = &tr->ch[c];
    ivtrack_cols cl;
    ivtrack_cols_of(tr, ck, &cl);
    uint64_t tails = cl.tails;
    uint64_t m_off = bitpack_mask(ck->w_off), m_tdur = bitpack_mask(ck->w_tdur);
    uint64_t m_ks = bitpack_mask(ck->w_ks);
    unsigned w_off = ck->w_off, w_tdur = ck->w_tdur, w_ks = ck->w_ks;
    unsigned m_kind = IVTRACK_KINDS - 1;    /* a kind beyond is damage: ivtrack_check */
    uint64_t r_j = (uint64_t)bitpack_popcount(tails & ((UINT64_C(1) << j) - 1));
    uint64_t off_j = ivtrack_field(cl.off, j * w_off, m_off, narrow);
    at->c = c;
    at->j = j;
    at->off_j = off_j;
    at->r = r_j;
    uint64_t acc[IVTRACK_KINDS] = { 0 }, mid[IVTRACK_KINDS];
    uint64_t from = 0, to = IVTRACK_CHUNK;
    const uint64_t *base = ck->before.ns, *mid_at = NULL;
    if (j > IVTRACK_CHUNK / 4 && j < IVTRACK_CHUNK * 3 / 4 &&
        ivtrack_mid_get(tr->words[ck->word + 1], mid)) {
        mid_at = mid;
        if (j < IVTRACK_MID)
            to = IVTRACK_MID;
        else
            from = IVTRACK_MID;
    }
    /* From the middle: forwards past it, backwards before it. */
    bool forward = mid_at ? from == IVTRACK_MID : j <= IVTRACK_CHUNK - j;
    if (forward) {
        /* Intervals [from, j): the loop reads each start once, the next one's as it goes. */
        uint64_t r = 0, off_from = 0;                   /* interval 0 starts at the base */
        if (from) {
            r = (uint64_t)bitpack_popcount(tails & ((UINT64_C(1) << from) - 1));
            off_from = ivtrack_field(cl.off, from * w_off, m_off, narrow);
        }
        ivtrack_sum_span(&cl, ck, from, j, r, off_from, acc, narrow);
        for (unsigned k = 0; k < IVTRACK_KINDS; k++)
            at->pre[k] = base[k] + (mid_at ? mid_at[k] : 0) + acc[k];
        return;
    }
    /* Intervals [j, to). The last interval is a tail, so no start past the column is
     * used (the one read lies in the padding or the next columns). */
    uint64_t tail_j = tails >> j & 1;
    /* A non-tail is never the last: j + 1 is inside the column. */
    uint64_t end_j = tail_j ? off_j + ivtrack_field(cl.tdur, r_j * w_tdur, m_tdur, narrow)
                            : ivtrack_field(cl.off, (j + 1) * w_off, m_off, narrow);
    unsigned kind_j = (unsigned)ivtrack_field(cl.ks, j * w_ks, m_ks, narrow) & m_kind;
    acc[kind_j] += end_j - off_j;
    uint64_t r = r_j + tail_j, off_i = end_j;
    if (tail_j)
        off_i = ivtrack_field(cl.off, (j + 1) * w_off, m_off, narrow);
    ivtrack_sum_span(&cl, ck, j + 1, to, r, off_i, acc, narrow);
    if (mid_at) {
        for (unsigned k = 0; k < IVTRACK_KINDS; k++)
            at->pre[k] = base[k] + mid_at[k] - acc[k];
    } else {
        const ivtrack_cum *edge =
            (c + 1) * IVTRACK_CHUNK < tr->n ? &tr->ch[c + 1].before : &tr->total;
        for (unsigned k = 0; k < IVTRACK_KINDS; k++)
            at->pre[k] = edge->ns[k] - acc[k];
    }
}

/* The answer for t (offset d = t - the chunk's first start, past interval at->j's start
 * and at most the next one's): at->pre plus interval j clipped at t, into o[]. */
static inline __attribute__((always_inline)) void
ivtrack_at_answer(const ivtrack *tr, const ivtrack_at *at, uint64_t d, uint64_t *o)
{
    const ivtrack_chunk *ck = &tr->ch[at->c];
    ivtrack_cols cl;
    ivtrack_cols_of(tr, ck, &cl);
    uint64_t j = at->j, end_j;
    if (cl.tails >> j & 1)
        end_j = at->off_j + bitpack_get(cl.tdur, at->r * ck->w_tdur, ck->w_tdur);
    else
        end_j = bitpack_get(cl.off, (j + 1) * ck->w_off, ck->w_off);
    unsigned kind_j = (unsigned)bitpack_get(cl.ks, j * ck->w_ks, ck->w_ks) & (IVTRACK_KINDS - 1);
    memcpy(o, at->pre, sizeof at->pre);
    o[kind_j] += (end_j < d ? end_j : d) - at->off_j;
}

/* Time of each kind inside [0, t) into o[], the last interval starting before t being
 * interval j of packed chunk c. */
static void
ivtrack_kinds_in(const ivtrack *tr, size_t c, uint64_t j, uint64_t t, uint64_t *o)
{
    ivtrack_at at;
    ivtrack_at_search(tr, c, j, &at, false);
    ivtrack_at_answer(tr, &at, t - tr->ch[c].start_ns, o);
}

/* Time of each kind inside [0, t), k being the number of intervals starting before t. */
static void
ivtrack_kinds_before(const ivtrack *tr, uint64_t t, size_t k, ivtrack_cum *out)
{
    if (k == 0) {
        memset(out, 0, sizeof *out);
        return;
    }
    if (ivtrack_packed(tr, k - 1)) {
        ivtrack_kinds_in(tr, (k - 1) / IVTRACK_CHUNK, (k - 1) % IVTRACK_CHUNK, t, out->ns);
        return;
    }
    ivtrack_iv v;
    ivtrack_load(tr, k - 1, &v);
    ivtrack_prefix(tr, k - 1, out);
    out->ns[v.kind & (IVTRACK_KINDS - 1)] += (v.end_ns < t ? v.end_ns : t) - v.start_ns;
}

/* Times whose chunks ivtrack_locate_chunks finds and asks for at once. */
#define IVTRACK_PREFETCH_BLOCK 256

/* For each of the n times t[], the last chunk whose first interval starts before t[m]
 * into at[m] (SIZE_MAX if none), galloping from the previous answer (from the first
 * chunk if the times went back); and ask the memory system for those chunks' headers
 * and the next ones' and then (`words`) the packed chunks' columns, so that a sweep
 * over screen columns far apart waits for its chunks' loads together, not one after
 * another. */
static void
ivtrack_locate_chunks(const ivtrack *tr, const uint64_t *t, size_t n, size_t *at, bool words)
{
    size_t n_ch = ivtrack_chunks(tr->n), n_packed = tr->n / IVTRACK_CHUNK, c = 0;
    size_t cs[IVTRACK_PREFETCH_BLOCK], n_cs = 0, stride = 0;
    for (size_t m = 0; m < n; m++) {
        at[m] = SIZE_MAX;
        if (n_ch == 0 || tr->ch[0].start_ns >= t[m])
            continue;
        if (tr->ch[c].start_ns >= t[m]) {
            c = 0;
            stride = 0;
        }
        size_t prev = c;
        if (c == 0 && stride == 0)          /* the first time: from where it falls were
                                             * the chunks spread evenly */
            stride = gallop_guess(&tr->ch[0].start_ns, sizeof tr->ch[0], n_ch, t[m]);
        c = gallop_last_below(&tr->ch[0].start_ns, sizeof tr->ch[0], n_ch, t[m], c, stride);
        at[m] = c;
        stride = c - prev;
        if (n_cs == 0 || cs[n_cs - 1] != c) {
            cs[n_cs++] = c;
            __builtin_prefetch(&tr->ch[c]);
            if (c + 1 < n_ch)
                __builtin_prefetch(&tr->ch[c + 1]);
        }
    }
    for (size_t k = 0; k < n_cs && words; k++) {
        if (cs[k] >= n_packed)
            continue;
        const ivtrack_chunk *ck = &tr->ch[cs[k]];
        const uint64_t *w = tr->words + ck->word;
        /* The tails and middle words and the start and kind columns (the tails'
         * durations follow). */
        size_t nw = IVTRACK_COLS_AT + ivtrack_col_words(ck->w_off) + ivtrack_col_words(ck->w_ks);
        for (size_t j = 0; j < nw; j += 8)
            __builtin_prefetch(w + j);
        __builtin_prefetch(w + nw);
    }
}

/* How far past the last answer's interval a sweep in the same chunk walks rather than
 * searches (measured on the cold frame of caps64-1024M at 1/10: 12, 16, 20, 24 and 32
 * cost 13.58, 13.34, 13.22, 13.51 and 13.64 M instructions; the search and a sum from
 * the nearest of a chunk's three known points cost about this many intervals walked). */
#define IVTRACK_NEAR 20

/* Where ivtrack_kinds_upto_many's sweep stands: the columns of packed chunk c with their
 * masks, interval j of it (its start offset off_j from the chunk's first start, r the
 * tails before it) and the time of each kind in all the intervals before j (pre): the
 * answer for a time past j's start and at most the next one's is pre plus j clipped. */
typedef struct ivtrack_sweep {
    size_t c;                   /* SIZE_MAX: none */
    ivtrack_cols cl;
    uint64_t m_off, m_ks, m_tdur;
    unsigned w_off, w_ks, w_tdur;
    uint64_t j, off_j, r;
    uint64_t pre[IVTRACK_KINDS];
} ivtrack_sweep;

/* Move *sw on from its interval j to the last one starting before offset d, adding the
 * time of each interval passed to its kind in sw->pre. */
static inline __attribute__((always_inline)) void
ivtrack_walk_on(ivtrack_sweep *sw, uint64_t d, bool narrow)
{
    const uint64_t *off = sw->cl.off, *ks = sw->cl.ks, *tdur = sw->cl.tdur;
    uint64_t tails = sw->cl.tails, m_off = sw->m_off, m_ks = sw->m_ks, m_tdur = sw->m_tdur;
    unsigned w_off = sw->w_off, w_ks = sw->w_ks, w_tdur = sw->w_tdur;
    uint64_t j = sw->j, off_j = sw->off_j, r = sw->r, acc[IVTRACK_KINDS];
    memcpy(acc, sw->pre, sizeof acc);
    while (j + 1 < IVTRACK_CHUNK) {
        uint64_t off_n = ivtrack_field(off, (j + 1) * w_off, m_off, narrow);
        if (off_n >= d)
            break;
        uint64_t dur = tails >> j & 1 ? ivtrack_field(tdur, r++ * w_tdur, m_tdur, narrow)
                                      : off_n - off_j;
        acc[ivtrack_field(ks, j * w_ks, m_ks, narrow) & (IVTRACK_KINDS - 1)] += dur;
        off_j = off_n;
        j++;
    }
    memcpy(sw->pre, acc, sizeof acc);
    sw->j = j;
    sw->off_j = off_j;
    sw->r = r;
}

/* Time of each kind inside [0, t) into o[] (d = t - chunk c's first start), *sw left at
 * the last interval of packed chunk c starting before t: walked on from where *sw stands
 * when that is in the same chunk, before t and within IVTRACK_NEAR intervals of it, else
 * searched and summed from the nearest of the chunk's known points (ivtrack_at_search). */
static inline __attribute__((always_inline)) void
ivtrack_sweep_to(const ivtrack *tr, ivtrack_sweep *sw, size_t c, uint64_t d, uint64_t *o,
                 bool narrow)
{
    if (sw->c != c || sw->off_j >= d) {
        /* A new chunk (or a time back before the last interval): from its first
         * interval, which starts before t, and the sums before it. */
        const ivtrack_chunk *ck = &tr->ch[c];
        if (sw->c != c) {
            sw->c = c;
            ivtrack_cols_of(tr, ck, &sw->cl);
            sw->w_off = ck->w_off;
            sw->w_ks = ck->w_ks;
            sw->w_tdur = ck->w_tdur;
            sw->m_off = bitpack_mask(ck->w_off);
            sw->m_ks = bitpack_mask(ck->w_ks);
            sw->m_tdur = bitpack_mask(ck->w_tdur);
        }
        sw->j = sw->off_j = sw->r = 0;
        memcpy(sw->pre, ck->before.ns, sizeof sw->pre);
    }
    const uint64_t *off = sw->cl.off, *ks = sw->cl.ks, *tdur = sw->cl.tdur;
    uint64_t tails = sw->cl.tails, m_off = sw->m_off, m_ks = sw->m_ks, m_tdur = sw->m_tdur;
    unsigned w_off = sw->w_off, w_ks = sw->w_ks, w_tdur = sw->w_tdur;
    uint64_t j = sw->j, far = j + IVTRACK_NEAR;
    if (far < IVTRACK_CHUNK && ivtrack_field(off, far * w_off, m_off, narrow) < d) {
        /* The last interval starting before d is in [far, IVTRACK_CHUNK). */
        uint64_t lo = far, hi = IVTRACK_CHUNK;
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (ivtrack_field(off, mid * w_off, m_off, narrow) < d)
                lo = mid;
            else
                hi = mid;
        }
        ivtrack_at at;
        ivtrack_at_search(tr, c, lo, &at, narrow);
        sw->j = at.j;
        sw->off_j = at.off_j;
        sw->r = at.r;
        memcpy(sw->pre, at.pre, sizeof sw->pre);
    } else {
        ivtrack_walk_on(sw, d, narrow);
    }
    j = sw->j;
    uint64_t end_j = tails >> j & 1 ? sw->off_j + ivtrack_field(tdur, sw->r * w_tdur, m_tdur, narrow)
                                    : ivtrack_field(off, (j + 1) * w_off, m_off, narrow);
    unsigned kind_j = (unsigned)ivtrack_field(ks, j * w_ks, m_ks, narrow) & (IVTRACK_KINDS - 1);
    memcpy(o, sw->pre, sizeof sw->pre);
    o[kind_j] += (end_j < d ? end_j : d) - sw->off_j;
}

/* ivtrack_kinds_upto_many, `narrow` as ivtrack_field's. */
static inline __attribute__((always_inline)) void
ivtrack_kinds_upto_do(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out,
                      bool narrow)
{
    size_t n_packed = tr->n / IVTRACK_CHUNK, at_ch[IVTRACK_PREFETCH_BLOCK];
    ivtrack_sweep sw;
    sw.c = SIZE_MAX;
    for (size_t m0 = 0; m0 < n; m0 += IVTRACK_PREFETCH_BLOCK) {
        size_t m1 = n - m0 < IVTRACK_PREFETCH_BLOCK ? n : m0 + IVTRACK_PREFETCH_BLOCK;
        ivtrack_locate_chunks(tr, t + m0, m1 - m0, at_ch, true);
        for (size_t m = m0; m < m1; m++) {
            uint64_t *o = &out[m * IVTRACK_KINDS];
            size_t c = at_ch[m - m0];
            if (c == SIZE_MAX) {
                memset(o, 0, IVTRACK_KINDS * sizeof *o);
                continue;
            }
            if (c >= n_packed) {            /* the open chunk: as one query */
                size_t k = ivtrack_count_starts_from(tr, t[m], false, c);
                ivtrack_cum sum;
                ivtrack_kinds_before(tr, t[m], k, &sum);
                memcpy(o, sum.ns, sizeof sum.ns);
                continue;
            }
            ivtrack_sweep_to(tr, &sw, c, t[m] - tr->ch[c].start_ns, o, narrow);
        }
    }
}

void
ivtrack_kinds_upto_many(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out)
{
    if (tr->wide)
        ivtrack_kinds_upto_do(tr, t, n, out, false);
    else
        ivtrack_kinds_upto_do(tr, t, n, out, true);
}

/* Between two chunks' first starts s0 < t <= s1 each kind's time before t rises from
 * the first's prefix sum p0 to the second's p1, by no more than the time that passes:
 * max(p0, p1 - (s1 - t)) <= time <= min(p1, p0 + (t - s0)). */
void
ivtrack_kinds_bounds_many(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *lo,
                          uint64_t *hi)
{
    size_t n_ch = ivtrack_chunks(tr->n), at[IVTRACK_PREFETCH_BLOCK];
    for (size_t m0 = 0; m0 < n; m0 += IVTRACK_PREFETCH_BLOCK) {
        size_t m1 = n - m0 < IVTRACK_PREFETCH_BLOCK ? n : m0 + IVTRACK_PREFETCH_BLOCK;
        ivtrack_locate_chunks(tr, t + m0, m1 - m0, at, false);
        for (size_t m = m0; m < m1; m++) {
            uint64_t *l = &lo[m * IVTRACK_KINDS], *h = &hi[m * IVTRACK_KINDS];
            size_t c = at[m - m0];
            if (c == SIZE_MAX) {
                memset(l, 0, IVTRACK_KINDS * sizeof *l);
                memset(h, 0, IVTRACK_KINDS * sizeof *h);
                continue;
            }
            if (c + 1 >= n_ch) {            /* the last chunk: no bound past it */
                ivtrack_kinds_upto_many(tr, &t[m], 1, l);
                memcpy(h, l, IVTRACK_KINDS * sizeof *h);
                continue;
            }
            const ivtrack_chunk *c0 = &tr->ch[c], *c1 = &tr->ch[c + 1];
            uint64_t from = t[m] - c0->start_ns, to = c1->start_ns - t[m];
            for (unsigned k = 0; k < IVTRACK_KINDS; k++) {
                uint64_t p0 = c0->before.ns[k], p1 = c1->before.ns[k];
                uint64_t a = p1 > to ? p1 - to : 0, b = p0 + from;
                l[k] = a > p0 ? a : p0;
                h[k] = b < p1 ? b : p1;
            }
        }
    }
}

/* One interval [s, e) of `kind` met by ivtrack_kinds_walk's sweep, boundaries *m.. of
 * n (t[*m] in *tm): each boundary it does not lie wholly before gets the sums so far
 * (acc) plus its part before the boundary; then (false when no boundary is left) its
 * time joins acc. */
static inline __attribute__((always_inline)) bool
ivtrack_walk_meet(uint64_t s, uint64_t e, unsigned kind, const uint64_t *t, size_t n,
                  size_t *m, uint64_t *tm, uint64_t *acc, uint64_t *out)
{
    while (s >= *tm || e > *tm) {
        uint64_t *o = &out[*m * IVTRACK_KINDS];
        memcpy(o, acc, IVTRACK_KINDS * sizeof *o);
        if (s < *tm)
            o[kind] += *tm - s;
        if (++*m == n)
            return false;
        *tm = t[*m];
    }
    acc[kind] += e - s;
    return true;
}

/* ivtrack_kinds_walk, `narrow` as ivtrack_field's: chunk by chunk, the columns of each
 * with their masks in locals, an interval's start being the last one's end unless that
 * was a tail. Only the first interval may start before t[0]: its time before t[0] is
 * taken off its kind's sum at the start (the sums are exact modulo 2^64, and none given
 * out is below zero: a boundary it does not lie wholly before gets its part after t[0]
 * back). */
static inline __attribute__((always_inline)) void
ivtrack_kinds_walk_do(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out,
                      bool narrow)
{
    if (n == 0)
        return;
    uint64_t t0 = t[0], tm = t0, acc[IVTRACK_KINDS] = { 0 };
    size_t i = ivtrack_first_after(tr, t0), m = 0, n_packed = tr->n / IVTRACK_CHUNK;
    unsigned m_kind = IVTRACK_KINDS - 1;    /* a kind beyond is damage */
    if (i < tr->n) {
        ivtrack_iv v;
        ivtrack_load(tr, i, &v);
        if (v.start_ns < t0)
            acc[v.kind & m_kind] -= t0 - v.start_ns;
    }
    while (i < tr->n) {
        size_t c = i / IVTRACK_CHUNK;
        uint64_t j = i % IVTRACK_CHUNK;
        if (c >= n_packed) {
            for (; i < tr->n; i++) {
                const ivtrack_iv *v = &tr->open[i % IVTRACK_CHUNK];
                if (!ivtrack_walk_meet(v->start_ns, v->end_ns, v->kind & m_kind, t, n, &m, &tm,
                                       acc, out))
                    return;
            }
            break;
        }
        const ivtrack_chunk *ck = &tr->ch[c];
        const uint64_t *off = tr->words + ck->word + IVTRACK_COLS_AT;
        const uint64_t *ks = off + ck->w_off, *tdur = ks + ck->w_ks;
        uint64_t base = ck->start_ns, tails = off[-IVTRACK_COLS_AT];
        unsigned w_off = ck->w_off, w_ks = ck->w_ks, w_tdur = ck->w_tdur;
        uint64_t m_off = bitpack_mask(w_off), m_ks = bitpack_mask(w_ks);
        uint64_t m_tdur = bitpack_mask(w_tdur);
        uint64_t r = bitpack_popcount(tails & ((UINT64_C(1) << j) - 1));
        uint64_t s = base + ivtrack_field(off, j * w_off, m_off, narrow);
        for (;;) {
            uint64_t e = tails >> j & 1 ? s + ivtrack_field(tdur, r++ * w_tdur, m_tdur, narrow)
                                        : base + ivtrack_field(off, (j + 1) * w_off, m_off,
                                                               narrow);
            unsigned kind = (unsigned)ivtrack_field(ks, j * w_ks, m_ks, narrow) & m_kind;
            if (!ivtrack_walk_meet(s, e, kind, t, n, &m, &tm, acc, out))
                return;
            if (++j == IVTRACK_CHUNK)
                break;
            /* The next start: this one's end, unless this one is a tail. */
            s = tails >> (j - 1) & 1 ? base + ivtrack_field(off, j * w_off, m_off, narrow) : e;
        }
        i = (c + 1) * IVTRACK_CHUNK;
    }
    /* Past the last interval: the boundaries left get the sums. */
    for (; m < n; m++)
        memcpy(&out[m * IVTRACK_KINDS], acc, IVTRACK_KINDS * sizeof *out);
}

void
ivtrack_kinds_walk(const ivtrack *tr, const uint64_t *t, size_t n, uint64_t *out)
{
    if (tr->wide)
        ivtrack_kinds_walk_do(tr, t, n, out, false);
    else
        ivtrack_kinds_walk_do(tr, t, n, out, true);
}

uint64_t
ivtrack_kind_ns(const ivtrack *tr, unsigned kind, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1 || kind >= IVTRACK_KINDS)
        return 0;
    size_t k0 = ivtrack_count_starts(tr, t0, false);
    /* Interval k0 - 1's chunk starts before t0 < t1: gallop from there. */
    size_t k1 = ivtrack_count_starts_from(tr, t1, false, k0 ? (k0 - 1) / IVTRACK_CHUNK : 0);
    if (k1 - k0 > IVTRACK_CHUNK / 2) {
        ivtrack_cum a, b;
        ivtrack_kinds_before(tr, t1, k1, &b);
        ivtrack_kinds_before(tr, t0, k0, &a);
        return b.ns[kind] - a.ns[kind];
    }
    /* A narrow window (a screen column when zoomed in): clip the few intervals in it
     * rather than scan from both ends to chunk edges. */
    uint64_t sum = 0;
    ivtrack_rd rd;
    ivtrack_rd_init(&rd, tr);
    for (size_t i = k0 ? k0 - 1 : 0; i < k1; i++) {
        uint64_t s, e;
        unsigned k;
        ivtrack_rd_get(&rd, i, &s, &e, &k);
        s = s > t0 ? s : t0;
        e = e < t1 ? e : t1;
        sum += k == kind && e > s ? e - s : 0;
    }
    return sum;
}

size_t
ivtrack_count_in(const ivtrack *tr, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    size_t hi = ivtrack_count_starts(tr, t1, false);
    size_t lo = ivtrack_first_after(tr, t0);
    return hi > lo ? hi - lo : 0;
}

size_t
ivtrack_count_in_about(const ivtrack *tr, uint64_t t0, uint64_t t1)
{
    size_t n_ch = ivtrack_chunks(tr->n);
    if (t0 >= t1 || n_ch == 0 || tr->ch[0].start_ns >= t1)
        return 0;
    /* Intervals starting before t1: up to the end of the chunk holding the last of them;
     * from t0 on: from the start of the chunk holding the last one starting before t0.
     * Chunk searches only, from guesses: no chunk's columns are read. */
    const uint64_t *starts = &tr->ch[0].start_ns;
    size_t c1 = gallop_last_below_cold(starts, sizeof tr->ch[0], n_ch, t1);
    size_t c0 = tr->ch[0].start_ns >= t0 ? 0
                : gallop_last_below_cold(starts, sizeof tr->ch[0], n_ch, t0);
    size_t hi = (c1 + 1) * IVTRACK_CHUNK < tr->n ? (c1 + 1) * IVTRACK_CHUNK : tr->n;
    return hi - c0 * IVTRACK_CHUNK;
}

size_t
ivtrack_bytes(const ivtrack *tr)
{
    return sizeof *tr + tr->cap_words * sizeof *tr->words + tr->cap_ch * sizeof *tr->ch +
           tr->cap_refs * sizeof *tr->refs + tr->cap_open * sizeof *tr->open +
           (tr->refw ? (tr->n_refw + IVTRACK_PAD) * sizeof *tr->refw : 0);
}

/* Packed chunk c's header against its intervals: canonical widths, words in order. */
static bool
ivtrack_check_chunk(const ivtrack *tr, size_t c, size_t words, char *why, size_t why_len)
{
    const ivtrack_chunk *ck = &tr->ch[c];
    uint64_t any_off = 0, any_tdur = 0, any_ks = 0, tails = 0;
    ivtrack_iv v, next;
    ivtrack_load(tr, c * IVTRACK_CHUNK, &next);
    for (size_t j = 0; j < IVTRACK_CHUNK; j++) {
        v = next;
        if (j + 1 < IVTRACK_CHUNK)
            ivtrack_load(tr, c * IVTRACK_CHUNK + j + 1, &next);
        if (j + 1 == IVTRACK_CHUNK || v.end_ns != next.start_ns) {
            tails |= UINT64_C(1) << j;
            any_tdur |= v.end_ns - v.start_ns;
        }
        any_off |= v.start_ns - ck->start_ns;
        any_ks |= (uint64_t)v.kind | (uint64_t)v.flags << IVTRACK_KS_SHIFT;
    }
    if (tr->words[ck->word] != tails)
        return checkfail(why, why_len, "chunk %zu: tails %#llx, intervals say %#llx", c,
                         (unsigned long long)tr->words[ck->word], (unsigned long long)tails);
    if (ck->word != words)
        return checkfail(why, why_len, "chunk %zu: columns at word %u, expected %zu", c,
                         (unsigned)ck->word, words);
    if (ck->w_off != bitpack_width(any_off) || ck->w_tdur != bitpack_width(any_tdur) ||
        ck->w_ks != bitpack_width(any_ks))
        return checkfail(why, why_len, "chunk %zu: column widths %u/%u/%u not the fewest bits",
                         c, ck->w_off, ck->w_tdur, ck->w_ks);
    if (!tr->wide &&
        (ck->w_off > IVTRACK_NARROW || ck->w_tdur > IVTRACK_NARROW || ck->w_ks > IVTRACK_NARROW))
        return checkfail(why, why_len, "chunk %zu: a column of %u/%u/%u bits in a track not"
                         " marked wide", c, ck->w_off, ck->w_tdur, ck->w_ks);
    return true;
}

bool
ivtrack_check(const ivtrack *tr, char *why, size_t why_len)
{
    if (tr->ref_from <= tr->n &&
        (tr->n_refs > tr->n - tr->ref_from || tr->n_refs > tr->cap_refs))
        return checkfail(why, why_len, "refs %zu held beyond %zu or capacity %zu", tr->n_refs,
                         tr->n - tr->ref_from, tr->cap_refs);
    if (ivtrack_chunks(tr->n) > tr->cap_ch)
        return checkfail(why, why_len, "count %zu beyond capacity %zu", tr->n, tr->cap_ch);
    if (tr->ref_from % IVTRACK_CHUNK || tr->ref_from > tr->n)
        return checkfail(why, why_len, "refs packed up to %zu of %zu", tr->ref_from, tr->n);
    ivtrack_cum sum;
    memset(&sum, 0, sizeof sum);
    size_t words = 0;
    ivtrack_iv prev = { 0, 0, 0, 0, 0 };
    for (size_t i = 0; i < tr->n; i++) {
        ivtrack_iv v;
        ivtrack_load(tr, i, &v);
        if (v.end_ns < v.start_ns)
            return checkfail(why, why_len, "interval %zu: ends before it starts", i);
        if (i > 0 && v.start_ns < prev.end_ns)
            return checkfail(why, why_len, "interval %zu: starts at %llu before interval"
                                " %zu ends at %llu", i, (unsigned long long)v.start_ns, i - 1,
                                (unsigned long long)prev.end_ns);
        if (v.kind >= IVTRACK_KINDS)
            return checkfail(why, why_len, "interval %zu: kind %u", i, (unsigned)v.kind);
        if (v.flags & ~(unsigned)IVTRACK_FLAG_MASK)
            return checkfail(why, why_len, "interval %zu: unknown flags %#x", i,
                                (unsigned)v.flags);
        if ((v.flags & IVTRACK_F_CLIPPED) && (i == 0 || v.start_ns != prev.end_ns))
            return checkfail(why, why_len, "interval %zu: clipped but does not start at"
                                " the previous interval's end", i);
        if (i % IVTRACK_CHUNK == 0) {
            const ivtrack_chunk *c = &tr->ch[i / IVTRACK_CHUNK];
            if (c->start_ns != v.start_ns)
                return checkfail(why, why_len, "chunk %zu: start %llu, interval %zu starts"
                                    " at %llu", i / IVTRACK_CHUNK,
                                    (unsigned long long)c->start_ns, i,
                                    (unsigned long long)v.start_ns);
            for (unsigned k = 0; k < IVTRACK_KINDS; k++)
                if (c->before.ns[k] != sum.ns[k])
                    return checkfail(why, why_len, "chunk %zu (interval %zu): kind %u prefix"
                                        " %llu, recount %llu", i / IVTRACK_CHUNK, i, k,
                                        (unsigned long long)c->before.ns[k],
                                        (unsigned long long)sum.ns[k]);
            if (ivtrack_packed(tr, i)) {
                if (!ivtrack_check_chunk(tr, i / IVTRACK_CHUNK, words, why, why_len))
                    return false;
                words += ivtrack_chunk_words(c, tr->words[c->word]);
            }
        }
        if (i % IVTRACK_CHUNK == IVTRACK_MID && ivtrack_packed(tr, i)) {
            /* The first half's intervals passed their own checks: their times. */
            const ivtrack_chunk *c = &tr->ch[i / IVTRACK_CHUNK];
            uint64_t mid[IVTRACK_KINDS];
            for (unsigned k = 0; k < IVTRACK_KINDS; k++)
                mid[k] = sum.ns[k] - c->before.ns[k];
            uint64_t held = tr->words[c->word + 1];
            if (held != ivtrack_mid_word(mid))
                return checkfail(why, why_len, "chunk %zu: middle word %#llx, intervals say"
                                    " %#llx", i / IVTRACK_CHUNK, (unsigned long long)held,
                                    (unsigned long long)ivtrack_mid_word(mid));
        }
        sum.ns[v.kind] += v.end_ns - v.start_ns;
        prev = v;
    }
    if (words != tr->n_words)
        return checkfail(why, why_len, "packed chunks hold %zu words, track %zu", words,
                         tr->n_words);
    for (unsigned k = 0; k < IVTRACK_KINDS; k++)
        if (tr->total.ns[k] != sum.ns[k])
            return checkfail(why, why_len, "kind %u total %llu, recount %llu", k,
                                (unsigned long long)tr->total.ns[k],
                                (unsigned long long)sum.ns[k]);
    return true;
}

bool
ivtrack_test_corrupt(ivtrack *tr, ivtrack_corrupt what, size_t i)
{
    if (i >= tr->n)
        return false;
    /* Unpack everything, damage the plain copy, pack it again (widths fitted to the
     * damage, so only the damage itself is wrong). */
    ivtrack_iv *all = xmalloc(tr->n * sizeof *all);             /* freed below */
    for (size_t k = 0; k < tr->n; k++)
        ivtrack_load(tr, k, &all[k]);
    ivtrack_iv *v = &all[i];
    ivtrack_chunk *ck = &tr->ch[i / IVTRACK_CHUNK];
    bool done = true;
    switch (what) {
    case IVTRACK_CORRUPT_ORDER:
        if (i == 0 || all[i - 1].end_ns == all[i - 1].start_ns) {
            done = false;
            break;
        }
        v->start_ns = all[i - 1].start_ns;
        if (i % IVTRACK_CHUNK == 0)             /* keep the header in step: order only */
            ck->start_ns = v->start_ns;
        break;
    case IVTRACK_CORRUPT_KIND:
        v->kind = IVTRACK_KINDS;
        break;
    case IVTRACK_CORRUPT_FLAGS:
        v->flags |= 0x80;
        break;
    case IVTRACK_CORRUPT_PREFIX:
        ck->before.ns[v->kind]++;
        break;
    case IVTRACK_CORRUPT_CHUNK_START:
        ck->start_ns ^= 1;
        break;
    default:
        done = false;
    }
    if (done) {
        tr->n_words = 0;
        for (size_t c = 0; c < tr->n / IVTRACK_CHUNK; c++)
            ivtrack_pack(tr, c, &all[c * IVTRACK_CHUNK]);
        size_t last = tr->n / IVTRACK_CHUNK * IVTRACK_CHUNK;
        memcpy(tr->open, all + last, (tr->n - last) * sizeof *all);
    }
    if (what == IVTRACK_CORRUPT_MID && ivtrack_packed(tr, i)) {
        /* The middle word's first time (or, holding none, its width) off by one bit. */
        tr->words[ck->word + 1] ^= 1u << 10;
        done = true;
    }
    x_free(all);
    return done;
}
