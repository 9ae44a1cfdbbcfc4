/* msgtab: markers and messages, collected in per-capability page lists while the index
 * is built, then joined (end to end where they follow one another, else merged) in
 * (time, offset) order into bit-packed chunks of frame-of-reference columns (a list's
 * chunks that fall whole between the other lists' messages copied as they are); a big
 * merge can be cut at a time into two halves packed on two threads and joined as two
 * segments. See include/msgtab.h. */
#include "msgtab.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "radixsort.h"
#include "xalloc.h"

/* Zero words after the packed ones: a column read loads the word it starts in and the
 * next, and a column of width 0 at the very end starts at the end. */
#define MSGTAB_PAD 2

/* A packed chunk: up to MSGTAB_CHUNK messages (fewer only in a segment's last chunk),
 * whose columns follow one another from `word`, each of width w holding
 * MSGTAB_CHUNK values in exactly w words (value j at bit j * w, unused slots zero):
 * time - t_base, offset - off_base, cap - cap_base, kind - kind_base (mod 2^64). Bases
 * are the columns' least values but t_base, the first time (the least once sorted),
 * widths the fewest bits needed. */
typedef struct msgtab_chunk {
    uint64_t t_base;
    uint64_t off_base : 40;
    uint64_t cap_base : 16;
    uint64_t kind_base : 8;
    uint32_t word;
    uint32_t markers_before;    /* markers in the chunks before this one */
    uint8_t w_t, w_off, w_cap, w_kind;
} msgtab_chunk;

/* A run of chunks all full but the last: messages from `first` on in chunks from
 * `chunk` on. A chunk after a short one starts a segment, so lists packed apart are
 * joined end to end without being repacked. */
typedef struct msgtab_seg {
    size_t first, chunk;
} msgtab_seg;

/* Up to a chunk of messages as columns: what packing reads and a merge decodes into. */
typedef struct msgtab_run {
    uint64_t t[MSGTAB_CHUNK], off[MSGTAB_CHUNK], cap[MSGTAB_CHUNK], kind[MSGTAB_CHUNK];
} msgtab_run;

/* Packed messages in chunks: the sealed table's, and each capability's while building
 * (the messages in the order added, the last partial chunk waiting in buf). */
typedef struct msgtab_cols {
    msgtab_chunk *chunks;       /* owned */
    size_t n_chunks, cap_chunks;
    uint64_t *words;            /* owned; the chunks' columns, then MSGTAB_PAD zeros */
    size_t n_words, cap_words;
    msgtab_seg *segs;           /* owned; n_segs 0 while there is one, {0, 0}; else
                                 * segs[0] is {0, 0} and n_segs >= 2 */
    size_t n_segs, cap_segs;
    size_t n, n_markers;        /* messages and markers packed */
} msgtab_cols;

/* One capability's messages while building: packed as they come. */
typedef struct msgtab_list {
    msgtab_cols cols;           /* full chunks only */
    msgtab_run buf;             /* the next chunk, not yet packed */
    size_t n_buf;
    uint64_t last_t, last_off;  /* the last message added's (0, 0 before the first) */
    uint16_t cap;
    bool sorted;                /* every message at or after the one before it */
    bool reopened;              /* a sealed table taken back (any caps) or a merged
                                 * builder's list: never cap's list */
} msgtab_list;

struct msgtab {
    unsigned marker_kind;
    bool sealed;
    msgtab_list **lists;        /* owned, each owned; emptied at seal */
    size_t n_lists, cap_lists;
    msgtab_list *cur;           /* the list of the last msgtab_add's cap (or NULL) */
    size_t n;                   /* messages added (before seal), packed (after) */
    msgtab_cols t;              /* the sealed table */
};

/* Segments a seal may join end to end; past this it merges into one. */
#define MSGTAB_MAX_SEGS 64

static bool
msgtab_less(const msgtab_msg *a, const msgtab_msg *b)
{
    return a->time_ns != b->time_ns ? a->time_ns < b->time_ns : a->offset < b->offset;
}

msgtab *
msgtab_new(unsigned marker_kind)
{
    msgtab *mt = xcalloc(1, sizeof *mt);
    mt->marker_kind = marker_kind;
    return mt;
}

static void
msgtab_cols_free(msgtab_cols *c)
{
    x_free(c->chunks);
    x_free(c->words);
    x_free(c->segs);
    memset(c, 0, sizeof *c);
}

static void
msgtab_list_free(msgtab_list *l)
{
    if (!l)
        return;
    msgtab_cols_free(&l->cols);
    x_free(l);
}

void
msgtab_free(msgtab *mt)
{
    if (!mt)
        return;
    for (size_t i = 0; i < mt->n_lists; i++)
        msgtab_list_free(mt->lists[i]);
    x_free(mt->lists);
    msgtab_cols_free(&mt->t);
    x_free(mt);
}

/* ---- segments --------------------------------------------------------------------- */

/* Segment s of c (s < max(n_segs, 1)). */
static msgtab_seg
msgtab_seg_at(const msgtab_cols *c, size_t s)
{
    return c->n_segs ? c->segs[s] : (msgtab_seg){ 0, 0 };
}

/* The segment holding chunk k (the last for k past the end). */
static size_t
msgtab_seg_of_chunk(const msgtab_cols *c, size_t k)
{
    if (!c->n_segs)
        return 0;
    size_t lo = 1, hi = c->n_segs;          /* the first segment starting after k */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->segs[mid].chunk <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The chunk holding message i (i <= n; for n, the chunk the next message would go in:
 * the last if short, else n_chunks), and i's place in it. */
static size_t
msgtab_chunk_of(const msgtab_cols *c, size_t i, size_t *j)
{
    size_t lo = 1, hi = c->n_segs;          /* the first segment starting after i */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->segs[mid].first <= i)
            lo = mid + 1;
        else
            hi = mid;
    }
    msgtab_seg s = msgtab_seg_at(c, lo - 1);
    *j = (i - s.first) % MSGTAB_CHUNK;
    return s.chunk + (i - s.first) / MSGTAB_CHUNK;
}

/* First message of chunk k (<= n_chunks) and, in *len (if not NULL), its count. */
static size_t
msgtab_chunk_first(const msgtab_cols *c, size_t k, size_t *len)
{
    size_t s = msgtab_seg_of_chunk(c, k);
    msgtab_seg g = msgtab_seg_at(c, s);
    size_t first = g.first + (k - g.chunk) * MSGTAB_CHUNK;
    if (len) {
        size_t end = s + 1 < c->n_segs ? c->segs[s + 1].first : c->n;
        *len = end - first < MSGTAB_CHUNK ? end - first : MSGTAB_CHUNK;
    }
    return first;
}

/* Before a chunk is added at the end: after a short chunk it starts a segment. */
static void
msgtab_cols_open_chunk(msgtab_cols *c)
{
    if (!c->n_chunks || (c->n - msgtab_seg_at(c, c->n_segs ? c->n_segs - 1 : 0).first) %
                                MSGTAB_CHUNK == 0)
        return;
    xgrowarray((void **)&c->segs, &c->cap_segs, c->n_segs + 2, 4, sizeof *c->segs);
    if (!c->n_segs)
        c->segs[c->n_segs++] = (msgtab_seg){ 0, 0 };
    c->segs[c->n_segs++] = (msgtab_seg){ c->n, c->n_chunks };
}

/* Keep chunks [0, k) (k <= n_chunks) and drop the rest. */
static void
msgtab_cols_cut(msgtab_cols *c, size_t k)
{
    if (k >= c->n_chunks)
        return;
    c->n = msgtab_chunk_first(c, k, NULL);
    c->n_words = c->chunks[k].word;
    c->n_markers = c->chunks[k].markers_before;
    c->n_chunks = k;
    while (c->n_segs && c->segs[c->n_segs - 1].chunk >= k)
        c->n_segs--;
    if (c->n_segs == 1)
        c->n_segs = 0;
}

/* ---- packing ---------------------------------------------------------------------- */

/* Write n values v[j] - base (n <= MSGTAB_CHUNK) of width w as one column at col: its
 * w words stored a word at a time (not ORed into zeros), those past the last value
 * zeroed. */
static void
msgtab_put_col(uint64_t *col, const uint64_t *v, uint64_t base, size_t n, unsigned w)
{
    if (!w)
        return;
    uint64_t acc = 0, *p = col, *end = col + w;
    unsigned fill = 0;
    for (size_t j = 0; j < n; j++) {
        uint64_t x = v[j] - base;
        acc |= x << fill;
        fill += w;
        if (fill >= 64) {
            *p++ = acc;
            fill -= 64;
            acc = x >> 1 >> (w - 1 - fill);     /* x's bits past the word; 0 if none */
        }
    }
    if (fill)
        *p++ = acc;
    while (p < end)
        *p++ = 0;
}

/* What msgtab_pack may take as known of a run. */
enum {
    MSGTAB_SORTED = 1,          /* times in order: their widest is the last less the first */
    MSGTAB_ONE_CAP = 2,         /* one capability's (a walk's list) */
};

/* What a chunk's header needs of r's messages [0, len): the OR of the times less the
 * first (their width; from the last if sorted), the least and greatest offsets, the ORs
 * of caps and kinds XOR the first's (nonzero where they vary). One pass, then the
 * offsets' range from the first and last where they rise (the OR of their steps has
 * no top bit: offsets are below 2^40), else by a second. */
static inline __attribute__((always_inline)) void
msgtab_run_stats(const msgtab_run *r, size_t len, unsigned known, uint64_t *any_t,
                 uint64_t *off_lo, uint64_t *off_hi, uint64_t *cap_x, uint64_t *kind_x)
{
    uint64_t t0 = r->t[0], cap0 = r->cap[0], kind0 = r->kind[0], off_prev = r->off[0];
    uint64_t at = 0, cx = 0, kx = 0, steps = 0;
    bool sorted = known & MSGTAB_SORTED, one_cap = known & MSGTAB_ONE_CAP;
    for (size_t j = 0; j < len; j++) {
        if (!sorted)
            at |= r->t[j] - t0;
        if (!one_cap)
            cx |= r->cap[j] ^ cap0;
        kx |= r->kind[j] ^ kind0;
        steps |= r->off[j] - off_prev;
        off_prev = r->off[j];
    }
    uint64_t lo = r->off[0], hi = r->off[len - 1];
    if (steps >> 63) {
        hi = lo;
        for (size_t j = 0; j < len; j++) {
            uint64_t off = r->off[j];
            lo = off < lo ? off : lo;
            hi = off > hi ? off : hi;
        }
    }
    *any_t = sorted ? r->t[len - 1] - t0 : at;
    *off_lo = lo;
    *off_hi = hi;
    *cap_x = cx;
    *kind_x = kx;
}

/* Pack messages [0, len) of r (len 1..MSGTAB_CHUNK) as the next chunk of c: one pass
 * for the bases and widths (less with `known`, MSGTAB_* bits), then each column
 * written whole. */
static void
msgtab_pack(msgtab_cols *c, unsigned marker_kind, const msgtab_run *r, size_t len,
            unsigned known)
{
    msgtab_cols_open_chunk(c);
    xgrowarray((void **)&c->chunks, &c->cap_chunks, c->n_chunks + 1, 16, sizeof *c->chunks);
    msgtab_chunk *ck = &c->chunks[c->n_chunks++];
    uint64_t t0 = r->t[0], any_t, off_lo, off_hi, cap_x, kind_x;
    if (known == MSGTAB_SORTED)         /* a merge's */
        msgtab_run_stats(r, len, MSGTAB_SORTED, &any_t, &off_lo, &off_hi, &cap_x, &kind_x);
    else if (known == (MSGTAB_SORTED | MSGTAB_ONE_CAP))   /* a walk's */
        msgtab_run_stats(r, len, MSGTAB_SORTED | MSGTAB_ONE_CAP, &any_t, &off_lo, &off_hi,
                         &cap_x, &kind_x);
    else
        msgtab_run_stats(r, len, 0, &any_t, &off_lo, &off_hi, &cap_x, &kind_x);
    uint64_t cap_lo = r->cap[0], cap_hi = cap_lo, kind_lo = r->kind[0], kind_hi = kind_lo;
    /* Caps and kinds are mostly one per chunk: their ranges only where they vary. */
    for (size_t j = 0; cap_x && j < len; j++) {
        uint64_t cap = r->cap[j];
        cap_lo = cap < cap_lo ? cap : cap_lo;
        cap_hi = cap > cap_hi ? cap : cap_hi;
    }
    size_t markers = kind_x || kind_lo != marker_kind ? 0 : len;
    for (size_t j = 0; kind_x && j < len; j++) {
        uint64_t kind = r->kind[j];
        kind_lo = kind < kind_lo ? kind : kind_lo;
        kind_hi = kind > kind_hi ? kind : kind_hi;
        markers += kind == marker_kind;
    }
    /* The OR of values in [0, hi - lo] that include hi - lo has hi - lo's width. */
    *ck = (msgtab_chunk){
        .t_base = t0, .off_base = off_lo, .cap_base = cap_lo,
        .kind_base = kind_lo, .word = (uint32_t)c->n_words,
        .markers_before = (uint32_t)c->n_markers,
        .w_t = (uint8_t)bitpack_width(any_t), .w_off = (uint8_t)bitpack_width(off_hi - off_lo),
        .w_cap = (uint8_t)bitpack_width(cap_hi - cap_lo),
        .w_kind = (uint8_t)bitpack_width(kind_hi - kind_lo),
    };
    size_t words = (size_t)ck->w_t + ck->w_off + ck->w_cap + ck->w_kind;
    xgrowarray((void **)&c->words, &c->cap_words, c->n_words + words + MSGTAB_PAD, 256,
               sizeof *c->words);
    uint64_t *col = c->words + c->n_words;
    memset(col + words, 0, MSGTAB_PAD * sizeof *col);   /* the columns store all theirs */
    msgtab_put_col(col, r->t, t0, len, ck->w_t);
    col += ck->w_t;
    msgtab_put_col(col, r->off, off_lo, len, ck->w_off);
    col += ck->w_off;
    msgtab_put_col(col, r->cap, cap_lo, len, ck->w_cap);
    col += ck->w_cap;
    msgtab_put_col(col, r->kind, kind_lo, len, ck->w_kind);
    c->n_words += words;
    c->n += len;
    c->n_markers += markers;
}

/* Values [0, len) of a column of width w under base into v[]. */
static void
msgtab_get_col(const uint64_t *col, uint64_t base, unsigned w, size_t len, uint64_t *v)
{
    if (!w) {
        for (size_t j = 0; j < len; j++)
            v[j] = base;
        return;
    }
    if (w == 64) {
        for (size_t j = 0; j < len; j++)
            v[j] = base + col[j];
        return;
    }
    /* A word at a time: cur holds the column's next `avail` bits (low), a value taken
     * from it while it has them, else joined with the next word's low bits. The words
     * read are those the len values use. */
    uint64_t mask = bitpack_mask(w), cur = col[0];
    const uint64_t *p = col + 1;
    unsigned avail = 64;
    for (size_t j = 0; j < len; j++) {
        uint64_t x;
        if (avail >= w) {
            x = cur & mask;
            cur >>= w;
            avail -= w;
        } else {
            uint64_t next = *p++;
            x = (cur | next << avail) & mask;
            cur = next >> (w - avail);
            avail += 64 - w;
        }
        v[j] = base + x;
    }
}

/* Chunk k of c (its len messages) into r, column by column. */
static void
msgtab_cols_decode(const msgtab_cols *c, size_t k, size_t len, msgtab_run *r)
{
    const msgtab_chunk *ck = &c->chunks[k];
    const uint64_t *p = c->words + ck->word;
    msgtab_get_col(p, ck->t_base, ck->w_t, len, r->t);
    p += ck->w_t;
    msgtab_get_col(p, ck->off_base, ck->w_off, len, r->off);
    p += ck->w_off;
    msgtab_get_col(p, ck->cap_base, ck->w_cap, len, r->cap);
    p += ck->w_cap;
    msgtab_get_col(p, ck->kind_base, ck->w_kind, len, r->kind);
}

/* Message j of r. */
static msgtab_msg
msgtab_run_at(const msgtab_run *r, size_t j)
{
    return (msgtab_msg){ .time_ns = r->t[j], .offset = r->off[j], .cap = r->cap[j],
                         .kind = r->kind[j] };
}

/* m as message j of r. */
static void
msgtab_run_set(msgtab_run *r, size_t j, const msgtab_msg *m)
{
    r->t[j] = m->time_ns;
    r->off[j] = m->offset;
    r->cap[j] = m->cap;
    r->kind[j] = m->kind;
}

/* Messages [j0, j0 + len) of chunk k of c into out[], a loop of one width per column. */
static void
msgtab_cols_get(const msgtab_cols *c, size_t k, size_t j0, size_t len, msgtab_msg *out)
{
    const msgtab_chunk *ck = &c->chunks[k];
    const uint64_t *pt = c->words + ck->word, *po = pt + ck->w_t;
    const uint64_t *pc = po + ck->w_off, *pk = pc + ck->w_cap;
    uint64_t mt_ = bitpack_mask(ck->w_t), mo = bitpack_mask(ck->w_off);
    uint64_t mc = bitpack_mask(ck->w_cap), mk = bitpack_mask(ck->w_kind);
    for (size_t j = 0; j < len; j++) {
        uint64_t jj = j0 + j;
        msgtab_msg *m = &out[j];
        m->time_ns = ck->t_base + bitpack_get_masked(pt, jj * ck->w_t, mt_);
        m->offset = ck->off_base + bitpack_get_masked(po, jj * ck->w_off, mo);
        m->cap = ck->cap_base + bitpack_get_masked(pc, jj * ck->w_cap, mc);
        m->kind = ck->kind_base + bitpack_get_masked(pk, jj * ck->w_kind, mk);
    }
}

/* Message i (< c->n) of c. */
static msgtab_msg
msgtab_cols_at(const msgtab_cols *c, size_t i)
{
    size_t j, k = msgtab_chunk_of(c, i, &j);
    msgtab_msg m;
    msgtab_cols_get(c, k, j, 1, &m);
    return m;
}

/* Copy n words from src to dst, src's pages given back behind the copy (so the two are
 * not both held whole). */
static void
msgtab_words_move(uint64_t *dst, uint64_t *src, size_t n)
{
    const size_t piece = (size_t)1 << 13;   /* words: 64 KiB */
    for (size_t at = 0; at < n; at += piece) {
        size_t k = n - at < piece ? n - at : piece;
        memcpy(dst + at, src + at, k * sizeof *src);
        x_release(src, at * sizeof *src, (at + k) * sizeof *src);
    }
}

/* Append src's chunks to dst as they are (their words copied, src's pages given back
 * behind the copy), then free src. Where dst ends in a short chunk, src's first starts
 * a segment. */
static void
msgtab_cols_append(msgtab_cols *dst, msgtab_cols *src)
{
    if (!dst->n_chunks) {
        msgtab_cols_free(dst);
        *dst = *src;
        memset(src, 0, sizeof *src);
        return;
    }
    size_t w0 = dst->n_words, m0 = dst->n_markers;
    xgrowarray((void **)&dst->words, &dst->cap_words, w0 + src->n_words + MSGTAB_PAD, 256,
               sizeof *dst->words);
    msgtab_words_move(dst->words + w0, src->words, src->n_words);
    memset(dst->words + w0 + src->n_words, 0, MSGTAB_PAD * sizeof *dst->words);
    xgrowarray((void **)&dst->chunks, &dst->cap_chunks, dst->n_chunks + src->n_chunks, 16,
               sizeof *dst->chunks);
    for (size_t s = 0; s < (src->n_segs ? src->n_segs : 1); s++) {
        msgtab_seg g = msgtab_seg_at(src, s);
        size_t end_k = s + 1 < src->n_segs ? src->segs[s + 1].chunk : src->n_chunks;
        size_t end_i = s + 1 < src->n_segs ? src->segs[s + 1].first : src->n;
        for (size_t k = g.chunk, i = g.first; k < end_k; k++) {
            size_t len = end_i - i < MSGTAB_CHUNK ? end_i - i : MSGTAB_CHUNK;
            msgtab_cols_open_chunk(dst);
            msgtab_chunk *ck = &dst->chunks[dst->n_chunks++];
            *ck = src->chunks[k];
            ck->word += (uint32_t)w0;
            ck->markers_before += (uint32_t)m0;
            dst->n += len;
            i += len;
        }
    }
    dst->n_words += src->n_words;
    dst->n_markers += src->n_markers;
    msgtab_cols_free(src);
}

static msgtab_list *
msgtab_list_of(msgtab *mt, uint16_t cap)
{
    for (size_t i = 0; i < mt->n_lists; i++)
        if (mt->lists[i]->cap == cap && !mt->lists[i]->reopened)
            return mt->cur = mt->lists[i];
    xgrowarray((void **)&mt->lists, &mt->cap_lists, mt->n_lists + 1, 8, sizeof *mt->lists);
    msgtab_list *l = xcalloc(1, sizeof *l);     /* owned by mt */
    l->cap = cap;
    l->sorted = true;
    mt->lists[mt->n_lists++] = l;
    return mt->cur = l;
}

/* The list's buffer, full, packed as its next chunk: apart from msgtab_list_add, which
 * runs for every message and then saves no registers for the call. */
static __attribute__((noinline)) void
msgtab_list_flush(msgtab_list *l, unsigned marker_kind)
{
    msgtab_pack(&l->cols, marker_kind, &l->buf, l->n_buf,
                (l->sorted ? MSGTAB_SORTED : 0) | MSGTAB_ONE_CAP);
    l->n_buf = 0;
}

static inline void
msgtab_list_add(msgtab_list *l, unsigned marker_kind, uint64_t t, uint64_t off, unsigned cap,
                unsigned kind)
{
    if (t < l->last_t || (t == l->last_t && off < l->last_off))
        l->sorted = false;
    l->last_t = t;
    l->last_off = off;
    size_t j = l->n_buf++;
    l->buf.t[j] = t;
    l->buf.off[j] = off;
    l->buf.cap[j] = cap;
    l->buf.kind[j] = kind;
    if (j + 1 == MSGTAB_CHUNK)
        msgtab_list_flush(l, marker_kind);
}

/* Take a sealed table back for more messages: its packed chunks become one sorted list
 * (its last chunk back in the buffer if short), joined with the new ones at the next
 * seal. */
static void
msgtab_reopen(msgtab *mt)
{
    msgtab_list *l = xcalloc(1, sizeof *l);     /* owned by mt */
    l->sorted = true;
    l->reopened = true;
    l->cols = mt->t;
    memset(&mt->t, 0, sizeof mt->t);
    if (l->cols.n_chunks) {
        size_t k = l->cols.n_chunks - 1, len;
        msgtab_chunk_first(&l->cols, k, &len);
        if (len < MSGTAB_CHUNK) {
            msgtab_cols_decode(&l->cols, k, len, &l->buf);
            l->n_buf = len;
            msgtab_cols_cut(&l->cols, k);
        }
    }
    if (l->cols.n + l->n_buf) {
        msgtab_msg last = l->n_buf ? msgtab_run_at(&l->buf, l->n_buf - 1)
                                   : msgtab_cols_at(&l->cols, l->cols.n - 1);
        l->last_t = last.time_ns;
        l->last_off = last.offset;
    }
    xgrowarray((void **)&mt->lists, &mt->cap_lists, mt->n_lists + 1, 8, sizeof *mt->lists);
    mt->lists[mt->n_lists++] = l;
    mt->sealed = false;
}

/* msgtab_add_fields's slow path, out of line (the fast one then saves no registers):
 * the table taken back first if sealed, the message's cap's list found or made. */
static __attribute__((noinline)) void
msgtab_add_other(msgtab *mt, uint64_t time_ns, uint64_t offset, unsigned cap, unsigned kind)
{
    if (mt->sealed)
        msgtab_reopen(mt);
    msgtab_list *l = msgtab_list_of(mt, (uint16_t)cap);
    mt->n++;
    msgtab_list_add(l, mt->marker_kind, time_ns, offset, cap, kind);
}

void
msgtab_add_fields(msgtab *mt, uint64_t time_ns, uint64_t offset, unsigned cap, unsigned kind)
{
    msgtab_list *l = mt->cur;           /* NULL while sealed (msgtab_seal_done) */
    if (!l || l->cap != cap) {
        msgtab_add_other(mt, time_ns, offset, cap, kind);
        return;
    }
    mt->n++;
    msgtab_list_add(l, mt->marker_kind, time_ns, offset, cap, kind);  /* its flush last */
}

void
msgtab_add(msgtab *mt, const msgtab_msg *m)
{
    msgtab_add_fields(mt, m->time_ns, m->offset, m->cap, m->kind);
}

/* Message i of a list: packed, then buffered. */
static msgtab_msg
msgtab_list_at(const msgtab_list *l, size_t i)
{
    return i < l->cols.n ? msgtab_cols_at(&l->cols, i) : msgtab_run_at(&l->buf, i - l->cols.n);
}

void
msgtab_merge(msgtab *dst, msgtab *src)
{
    for (size_t i = 0; i < src->n_lists; i++) {
        msgtab_list *s = src->lists[i];
        size_t n = s->cols.n + s->n_buf;
        msgtab_list *d = msgtab_list_of(dst, s->cap);
        if (d->cols.n + d->n_buf == 0) {        /* the cap's first: take the list whole */
            for (size_t k = 0; k < dst->n_lists; k++)
                if (dst->lists[k] == d)
                    dst->lists[k] = s;
            msgtab_list_free(d);
        } else {
            /* A list of its own, joined in at the seal like any other (adds for its
             * cap keep going to dst's list: it is never a cap's list). */
            s->reopened = true;
            xgrowarray((void **)&dst->lists, &dst->cap_lists, dst->n_lists + 1, 8,
                       sizeof *dst->lists);
            dst->lists[dst->n_lists++] = s;
        }
        src->lists[i] = NULL;
        dst->n += n;
    }
    src->n_lists = 0;
    src->n = 0;
    src->cur = dst->cur = NULL;
}

/* Collects sorted messages and packs them into the table a chunk at a time. */
typedef struct msgtab_packer {
    msgtab_run buf;
    size_t len;
} msgtab_packer;

static void
msgtab_put(msgtab *mt, msgtab_packer *pk, const msgtab_msg *m)
{
    msgtab_run_set(&pk->buf, pk->len++, m);
    if (pk->len == MSGTAB_CHUNK) {
        msgtab_pack(&mt->t, mt->marker_kind, &pk->buf, pk->len, MSGTAB_SORTED);
        pk->len = 0;
    }
}

/* A list's messages [from, to) as a merge reads them: a chunk decoded at a time, then
 * the buffer. A whole-list cursor (own) frees the list's columns at its end; a half's
 * (msgtab_split_run) gives back only the words in [released, rel_hi), which the other
 * half does not read. */
typedef struct msgtab_cursor {
    const msgtab_run *r;        /* the run being read: dec or the list's buffer */
    size_t at, end;             /* the next message of r, the end of the run */
    msgtab_list *l;
    size_t from, to;            /* the list's messages this cursor reads */
    size_t chunk;               /* the next chunk of l's columns to decode */
    size_t released;            /* words of l's columns given back (x_release) */
    size_t rel_hi;              /* words from here on are not given back */
    bool own;                   /* a whole-list cursor: frees l's columns at its end */
    bool buf_read;              /* l's buffer is (or was) the run */
    msgtab_run dec;
} msgtab_cursor;

/* Words of a list's columns a merge gives back at a time: the chunks it has passed,
 * so the lists and the table being merged from them are not both held whole. */
#define MSGTAB_RELEASE_WORDS 8192

/* Give back the words of the chunks the cursor has passed (before c->chunk; all of
 * them once it has passed the last: a stretch copied to a list's end is not left
 * resident), a batch of at least MSGTAB_RELEASE_WORDS at a time, none from rel_hi on. */
static void
msgtab_cursor_release(msgtab_cursor *c)
{
    msgtab_cols *lc = &c->l->cols;
    size_t done = c->chunk < lc->n_chunks ? lc->chunks[c->chunk].word : lc->n_words;
    done = done < c->rel_hi ? done : c->rel_hi;
    if (done > c->released && done - c->released >= MSGTAB_RELEASE_WORDS) {
        x_release(lc->words, c->released * sizeof *lc->words, done * sizeof *lc->words);
        c->released = done;
    }
}

/* Load the cursor's next run; false at its end (a whole-list cursor's columns then
 * freed). */
static bool
msgtab_cursor_next(msgtab_cursor *c)
{
    msgtab_cols *lc = &c->l->cols;
    if (c->chunk < lc->n_chunks) {
        size_t len, first = msgtab_chunk_first(lc, c->chunk, &len);
        if (first < c->to) {
            msgtab_cols_decode(lc, c->chunk, len, &c->dec);
            c->r = &c->dec;
            c->at = c->from > first ? c->from - first : 0;
            c->end = c->to - first < len ? c->to - first : len;
            c->chunk++;
            msgtab_cursor_release(c);
            return true;
        }
        c->chunk = lc->n_chunks;
    }
    if (c->own)
        msgtab_cols_free(lc);
    size_t b0 = c->l->cols.n, b1 = b0 + c->l->n_buf;
    size_t a = c->from > b0 ? c->from : b0, e = c->to < b1 ? c->to : b1;
    if (!c->buf_read && a < e) {
        c->buf_read = true;
        c->r = &c->l->buf;
        c->at = a - b0;
        c->end = e - b0;
        return true;
    }
    return false;
}

/* A cursor over messages [from, to) of l (from < to), its first run not yet loaded. */
static msgtab_cursor
msgtab_cursor_over(msgtab_list *l, size_t from, size_t to, bool own)
{
    msgtab_cursor c = { .l = l, .from = from, .to = to, .rel_hi = SIZE_MAX, .own = own };
    size_t j;
    c.chunk = from < l->cols.n ? msgtab_chunk_of(&l->cols, from, &j) : l->cols.n_chunks;
    return c;
}

/* a's next message before b's, by (time, offset). */
static bool
msgtab_cursor_less(const msgtab_cursor *a, const msgtab_cursor *b)
{
    uint64_t ta = a->r->t[a->at], tb = b->r->t[b->at];
    return ta != tb ? ta < tb : a->r->off[a->at] < b->r->off[b->at];
}

static void
msgtab_sift_down(msgtab_cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < n && msgtab_cursor_less(h[l], h[m]))
            m = l;
        if (r < n && msgtab_cursor_less(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        msgtab_cursor *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* c's next message into the packer's run, packed into dst when the run is a chunk. */
static inline void
msgtab_take(msgtab_cols *dst, unsigned marker_kind, msgtab_packer *pk, msgtab_cursor *c)
{
    const msgtab_run *r = c->r;
    msgtab_run *o = &pk->buf;
    size_t j = c->at++, q = pk->len++;
    o->t[q] = r->t[j];
    o->off[q] = r->off[j];
    o->cap[q] = r->cap[j];
    o->kind[q] = r->kind[j];
    if (pk->len == MSGTAB_CHUNK) {
        msgtab_pack(dst, marker_kind, o, pk->len, MSGTAB_SORTED);
        pk->len = 0;
    }
}

/* Chunks a head list's run must hold whole, before the other lists' heads, for the
 * merge to end its packed chunk short (a segment's end) and copy them as they are. */
#define MSGTAB_COPY_MIN 8

/* Chunk k of the cursor's list if it is full, all the cursor's and, by its last message,
 * before lim's head (NULL: no other list): then its messages can go to the table as
 * the packed chunk they are. */
static bool
msgtab_cursor_whole_before(const msgtab_cursor *c, size_t k, const msgtab_cursor *lim)
{
    const msgtab_cols *lc = &c->l->cols;
    size_t len, first = msgtab_chunk_first(lc, k, &len);
    if (len < MSGTAB_CHUNK || first < c->from || first + MSGTAB_CHUNK > c->to)
        return false;
    if (!lim)
        return true;
    const msgtab_chunk *ck = &lc->chunks[k];
    const uint64_t *col = lc->words + ck->word;
    uint64_t t = ck->t_base + bitpack_get(col, (uint64_t)(MSGTAB_CHUNK - 1) * ck->w_t, ck->w_t);
    uint64_t lt = lim->r->t[lim->at];
    if (t != lt)
        return t < lt;
    uint64_t off = ck->off_base + bitpack_get(col + ck->w_t,
                                              (uint64_t)(MSGTAB_CHUNK - 1) * ck->w_off,
                                              ck->w_off);
    return off < lim->r->off[lim->at];
}

/* Chunk k of src appended to dst as it is (its words copied, its header rebased). */
static void
msgtab_cols_copy_chunk(msgtab_cols *dst, const msgtab_cols *src, size_t k)
{
    msgtab_cols_open_chunk(dst);
    xgrowarray((void **)&dst->chunks, &dst->cap_chunks, dst->n_chunks + 1, 16,
               sizeof *dst->chunks);
    const msgtab_chunk *sk = &src->chunks[k];
    size_t words = (size_t)sk->w_t + sk->w_off + sk->w_cap + sk->w_kind;
    size_t markers = (k + 1 < src->n_chunks ? src->chunks[k + 1].markers_before
                                            : src->n_markers) - sk->markers_before;
    msgtab_chunk *ck = &dst->chunks[dst->n_chunks++];
    *ck = *sk;
    ck->word = (uint32_t)dst->n_words;
    ck->markers_before = (uint32_t)dst->n_markers;
    xgrowarray((void **)&dst->words, &dst->cap_words, dst->n_words + words + MSGTAB_PAD, 256,
               sizeof *dst->words);
    memcpy(dst->words + dst->n_words, src->words + sk->word, words * sizeof *dst->words);
    memset(dst->words + dst->n_words + words, 0, MSGTAB_PAD * sizeof *dst->words);
    dst->n_words += words;
    dst->n += MSGTAB_CHUNK;
    dst->n_markers += markers;
}

/* The head cursor c has taken its run (at == end): while its next chunks lie whole before
 * lim's head, copy them packed as they are — at once if the packer is empty, else if
 * MSGTAB_COPY_MIN of them do, the packer's messages first packed as a short chunk (a
 * segment ends there). A list whose messages come in long stretches (a capability
 * busy alone) is then merged at the cost of a copy. */
static void
msgtab_copy_chunks(msgtab_cols *dst, unsigned marker_kind, msgtab_packer *pk,
                   msgtab_cursor *c, const msgtab_cursor *lim)
{
    const msgtab_cols *lc = &c->l->cols;
    size_t k = c->chunk;
    if (k >= lc->n_chunks || !msgtab_cursor_whole_before(c, k, lim))
        return;
    if (pk->len) {
        size_t far = k + MSGTAB_COPY_MIN - 1;
        if (far >= lc->n_chunks || !msgtab_cursor_whole_before(c, far, lim))
            return;
        msgtab_pack(dst, marker_kind, &pk->buf, pk->len, MSGTAB_SORTED);
        pk->len = 0;
    }
    do
        msgtab_cols_copy_chunk(dst, lc, k++);
    while (k < lc->n_chunks && msgtab_cursor_whole_before(c, k, lim));
    c->chunk = k;
    msgtab_cursor_release(c);
}

/* Take c's messages while they stay before lim's head (NULL: all); false when c has
 * none left. */
static bool
msgtab_take_run(msgtab_cols *dst, unsigned marker_kind, msgtab_packer *pk, msgtab_cursor *c,
                const msgtab_cursor *lim)
{
    do {
        msgtab_take(dst, marker_kind, pk, c);
        if (c->at == c->end) {
            msgtab_copy_chunks(dst, marker_kind, pk, c, lim);
            if (!msgtab_cursor_next(c))
                return false;
        }
    } while (!lim || msgtab_cursor_less(c, lim));
    return true;
}

/* Two lists' messages into the packer, the earlier of the heads a step (no branch on
 * which: two capabilities' messages alternate unpredictably), in counted runs that end
 * no later than either cursor's run or the packer's chunk; each cursor's run, once
 * taken, followed by the chunks it holds whole before the other's head (copied). Returns
 * the cursor with messages left when the other has none. */
static msgtab_cursor *
msgtab_merge_two(msgtab_cols *dst, unsigned marker_kind, msgtab_packer *pk, msgtab_cursor *a,
                 msgtab_cursor *b)
{
    msgtab_run *o = &pk->buf;
    for (;;) {
        const msgtab_run *ra = a->r, *rb = b->r;
        size_t ia = a->at, ib = b->at, q = pk->len;
        size_t steps = a->end - ia;
        steps = b->end - ib < steps ? b->end - ib : steps;
        steps = MSGTAB_CHUNK - q < steps ? MSGTAB_CHUNK - q : steps;
        for (size_t s = 0; s < steps; s++, q++) {
            uint64_t ta = ra->t[ia], tb = rb->t[ib], oa = ra->off[ia], ob = rb->off[ib];
            bool from_b = tb < ta || (tb == ta && ob < oa);
            o->t[q] = from_b ? tb : ta;
            o->off[q] = from_b ? ob : oa;
            o->cap[q] = from_b ? rb->cap[ib] : ra->cap[ia];
            o->kind[q] = from_b ? rb->kind[ib] : ra->kind[ia];
            ia += !from_b;
            ib += from_b;
        }
        a->at = ia;
        b->at = ib;
        pk->len = q;
        if (q == MSGTAB_CHUNK) {
            msgtab_pack(dst, marker_kind, o, q, MSGTAB_SORTED);
            pk->len = 0;
        }
        if (a->at == a->end) {
            msgtab_copy_chunks(dst, marker_kind, pk, a, b);
            if (!msgtab_cursor_next(a))
                return b;
        }
        if (b->at == b->end) {
            msgtab_copy_chunks(dst, marker_kind, pk, b, a);
            if (!msgtab_cursor_next(b))
                return a;
        }
    }
}

/* Every list is sorted: a k-way merge over a heap of list heads, the head list's
 * messages taken while they stay before both its children's, column values copied
 * straight into the packer's run, and whole chunks that do copied packed. */
static void
msgtab_merge_cursors(msgtab_cols *dst, unsigned marker_kind, msgtab_packer *pk,
                     msgtab_cursor *cs, size_t n_cs)
{
    msgtab_cursor **h = xmalloc((n_cs + 1) * sizeof *h);        /* freed below */
    size_t nh = 0;
    for (size_t i = 0; i < n_cs; i++)
        if (cs[i].from < cs[i].to && msgtab_cursor_next(&cs[i]))
            h[nh++] = &cs[i];
    for (size_t i = nh / 2; i-- > 0;)
        msgtab_sift_down(h, nh, i);
    if (nh == 2) {                  /* two lists (two capabilities): no heap */
        h[0] = msgtab_merge_two(dst, marker_kind, pk, h[0], h[1]);
        nh = 1;
    }
    while (nh) {
        msgtab_cursor *c = h[0];
        const msgtab_cursor *lim = nh > 1 ? h[1] : NULL;
        if (nh > 2 && msgtab_cursor_less(h[2], lim))
            lim = h[2];
        if (!msgtab_take_run(dst, marker_kind, pk, c, lim))
            h[0] = h[--nh];
        msgtab_sift_down(h, nh, 0);
    }
    x_free(h);
}

static void
msgtab_seal_merge(msgtab *mt, msgtab_packer *pk, msgtab_list **ls, size_t n_ls)
{
    msgtab_cursor *cs = xmalloc((n_ls + 1) * sizeof *cs);       /* freed below */
    for (size_t i = 0; i < n_ls; i++)
        cs[i] = msgtab_cursor_over(ls[i], 0, ls[i]->cols.n + ls[i]->n_buf, true);
    msgtab_merge_cursors(&mt->t, mt->marker_kind, pk, cs, n_ls);
    x_free(cs);
}

/* Two messages by (time, file offset), for qsort-style sorts. */
static int
msgtab_msg_cmp(const void *a, const void *b)
{
    const msgtab_msg *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Some list is out of order (a log that breaks the per-capability order): gather all,
 * sort by time (stable, so file order among equals within a list), then fix the runs
 * of equal times into offset order. */
static void
msgtab_seal_sort(msgtab *mt, msgtab_packer *pk, size_t n)
{
    msgtab_msg *all = xmalloc((n + 1) * sizeof *all);           /* freed below */
    size_t k = 0;
    for (size_t i = 0; i < mt->n_lists; i++) {
        msgtab_list *l = mt->lists[i];
        for (size_t c = 0; c < l->cols.n_chunks; c++) {
            size_t len;
            msgtab_chunk_first(&l->cols, c, &len);
            msgtab_cols_get(&l->cols, c, 0, len, all + k);
            k += len;
        }
        for (size_t j = 0; j < l->n_buf; j++)
            all[k++] = msgtab_run_at(&l->buf, j);
        msgtab_cols_free(&l->cols);
        l->n_buf = 0;
    }
    radixsort_by_u64_ties(all, n, sizeof *all, offsetof(msgtab_msg, time_ns), msgtab_msg_cmp);
    for (size_t i = 0; i < n; i++)
        msgtab_put(mt, pk, &all[i]);
    x_free(all);
}

/* The sorted, non-empty lists ls[] ordered by their first messages; true if each
 * starts at or after the one before ends (one capability's lists from a split build),
 * so they join end to end within MSGTAB_MAX_SEGS segments. */
static bool
msgtab_lists_chain(msgtab_list **ls, size_t n_ls)
{
    msgtab_msg first[MSGTAB_MAX_SEGS];
    if (n_ls > MSGTAB_MAX_SEGS)
        return false;
    size_t segs = 0;
    for (size_t i = 0; i < n_ls; i++) {
        first[i] = msgtab_list_at(ls[i], 0);
        segs += ls[i]->cols.n_segs ? ls[i]->cols.n_segs : 1;
    }
    if (segs > MSGTAB_MAX_SEGS)
        return false;
    for (size_t i = 1; i < n_ls; i++) {         /* insertion sort: a few lists */
        msgtab_msg f = first[i];
        msgtab_list *l = ls[i];
        size_t j = i;
        for (; j > 0 && msgtab_less(&f, &first[j - 1]); j--) {
            first[j] = first[j - 1];
            ls[j] = ls[j - 1];
        }
        first[j] = f;
        ls[j] = l;
    }
    for (size_t i = 1; i < n_ls; i++)
        if (first[i].time_ns < ls[i - 1]->last_t ||
            (first[i].time_ns == ls[i - 1]->last_t && first[i].offset < ls[i - 1]->last_off))
            return false;
    return true;
}

/* The lists packed into mt->t: free them, mark the table sealed, trim. */
static void
msgtab_seal_done(msgtab *mt)
{
    for (size_t i = 0; i < mt->n_lists; i++)
        msgtab_list_free(mt->lists[i]);
    x_free(mt->lists);
    mt->lists = NULL;
    mt->n_lists = mt->cap_lists = 0;
    mt->cur = NULL;
    mt->n = mt->t.n;
    mt->sealed = true;
    msgtab_trim(mt);
}

void
msgtab_seal(msgtab *mt)
{
    if (mt->sealed)
        return;
    size_t n = mt->n, with = 0;
    bool sorted = true;
    msgtab_list **ls = xmalloc((mt->n_lists + 1) * sizeof *ls);  /* freed below */
    for (size_t i = 0; i < mt->n_lists; i++) {
        sorted &= mt->lists[i]->sorted;
        if (mt->lists[i]->cols.n + mt->lists[i]->n_buf)
            ls[with++] = mt->lists[i];
    }
    msgtab_packer pk = { .len = 0 };
    if (sorted && msgtab_lists_chain(ls, with)) {
        /* Each list after the one before: its chunks join the table's as they are,
         * its buffer packed as a short chunk after them. */
        for (size_t i = 0; i < with; i++) {
            msgtab_cols_append(&mt->t, &ls[i]->cols);
            if (ls[i]->n_buf)
                msgtab_pack(&mt->t, mt->marker_kind, &ls[i]->buf, ls[i]->n_buf, MSGTAB_SORTED);
        }
    } else if (sorted) {
        msgtab_seal_merge(mt, &pk, ls, with);
    } else {
        msgtab_seal_sort(mt, &pk, n);
    }
    x_free(ls);
    if (pk.len)
        msgtab_pack(&mt->t, mt->marker_kind, &pk.buf, pk.len, MSGTAB_SORTED);
    msgtab_seal_done(mt);
}

void
msgtab_trim(msgtab *mt)
{
    if (!mt->sealed)
        msgtab_seal(mt);
    msgtab_cols *t = &mt->t;
    /* Trim to size (the padding words stay). */
    t->cap_words = t->n_words + MSGTAB_PAD;
    t->words = xreallocarray(t->words, t->cap_words, sizeof *t->words);
    if (t->n_words == 0)
        memset(t->words, 0, MSGTAB_PAD * sizeof *t->words);
    t->cap_chunks = t->n_chunks ? t->n_chunks : 1;
    t->chunks = xreallocarray(t->chunks, t->cap_chunks, sizeof *t->chunks);
    if (!t->n_segs) {
        x_free(t->segs);
        t->segs = NULL;
        t->cap_segs = 0;
    } else {
        t->cap_segs = t->n_segs;
        t->segs = xreallocarray(t->segs, t->cap_segs, sizeof *t->segs);
    }
}

/* ---- a seal in two halves ------------------------------------------------------------ */

struct msgtab_split {
    msgtab *mt;
    uint64_t t;                 /* half 0 takes the messages before it, half 1 the rest */
    msgtab_list **ls;           /* owned (the array; the lists are mt's) */
    size_t n_ls;
    size_t *at;                 /* owned; each list's first message at or after t */
    msgtab_cols half[2];        /* each half's messages, packed */
    atomic_bool taken[2];       /* a msgtab_split_run has taken the half */
    atomic_uint done;           /* halves packed: the run that packs the second seals */
};

/* Chunks of c whose first time is before t. */
static size_t
msgtab_cols_chunks_before(const msgtab_cols *c, uint64_t t)
{
    size_t lo = 0, hi = c->n_chunks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->chunks[mid].t_base < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first of c's packed messages (in time order) at or after t; c->n if none. */
static size_t
msgtab_cols_first_from(const msgtab_cols *c, uint64_t t)
{
    size_t k = msgtab_cols_chunks_before(c, t);
    if (k == 0)
        return 0;
    const msgtab_chunk *ck = &c->chunks[k - 1];
    const uint64_t *col = c->words + ck->word;
    size_t len, first = msgtab_chunk_first(c, k - 1, &len);
    size_t a = 1, b = len;                  /* entry 0 is the base: < t */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (ck->t_base + bitpack_get(col, (uint64_t)mid * ck->w_t, ck->w_t) < t)
            a = mid + 1;
        else
            b = mid;
    }
    return first + a;
}

/* The first message of the sorted list l at or after time t (its count if none). */
static size_t
msgtab_list_first_from(const msgtab_list *l, uint64_t t)
{
    size_t i = msgtab_cols_first_from(&l->cols, t);
    if (i == l->cols.n)                     /* every packed one before t: the buffer */
        for (size_t j = 0; j < l->n_buf && l->buf.t[j] < t; j++)
            i++;
    return i;
}

/* msgtab_split_begin's and _begin_at's: at t, or (pick) at the lists' median. */
static msgtab_split *
msgtab_split_start(msgtab *mt, size_t min_msgs, bool pick, uint64_t t)
{
    if (mt->sealed || mt->n < min_msgs)
        return NULL;
    msgtab_list **ls = xmalloc((mt->n_lists + 1) * sizeof *ls);  /* owned by sp or freed */
    size_t with = 0, chunks = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    bool sorted = true;
    for (size_t i = 0; i < mt->n_lists; i++) {
        msgtab_list *l = mt->lists[i];
        sorted &= l->sorted;
        if (l->cols.n + l->n_buf) {
            ls[with++] = l;
            chunks += l->cols.n_chunks;
            msgtab_msg f = msgtab_list_at(l, 0);
            lo = f.time_ns < lo ? f.time_ns : lo;
            hi = l->last_t > hi ? l->last_t : hi;
        }
    }
    if (!sorted || with < 2 || msgtab_lists_chain(ls, with)) {
        x_free(ls);
        return NULL;                        /* not a merge: msgtab_seal's other ways */
    }
    /* The least time with half the lists' chunks starting before it (their bases are
     * in order in each list): about half the messages on either side. */
    while (pick && lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        size_t before = 0;
        for (size_t i = 0; i < with; i++)
            before += msgtab_cols_chunks_before(&ls[i]->cols, mid + 1);
        if (2 * before < chunks)
            lo = mid + 1;
        else
            hi = mid;
    }
    lo = pick ? lo : t;
    msgtab_split *sp = xcalloc(1, sizeof *sp);      /* freed by msgtab_split_end */
    sp->mt = mt;
    atomic_init(&sp->taken[0], false);
    atomic_init(&sp->taken[1], false);
    atomic_init(&sp->done, 0);
    sp->t = lo;
    sp->ls = ls;
    sp->n_ls = with;
    sp->at = xmalloc(with * sizeof *sp->at);        /* freed by msgtab_split_end */
    for (size_t i = 0; i < with; i++)
        sp->at[i] = msgtab_list_first_from(ls[i], lo);
    return sp;
}

msgtab_split *
msgtab_split_begin(msgtab *mt, size_t min_msgs)
{
    return msgtab_split_start(mt, min_msgs, true, 0);
}

msgtab_split *
msgtab_split_begin_at(msgtab *mt, uint64_t t)
{
    return msgtab_split_start(mt, 0, false, t);
}

/* Both halves packed: half 1 joined after half 0 into the table, sealed. */
static void
msgtab_split_finish(msgtab_split *sp)
{
    msgtab *mt = sp->mt;
    msgtab_cols *a = &sp->half[0], *b = &sp->half[1];
    if (a->n_chunks && b->n_chunks && (a->cap_words < a->n_words + b->n_words + MSGTAB_PAD ||
                                       a->cap_chunks < a->n_chunks + b->n_chunks)) {
        /* Half 0 into blocks that hold both, its old ones given back as they are
         * copied (a realloc's move would leave them resident behind the table). */
        size_t cw = a->n_words + b->n_words + MSGTAB_PAD, cc = a->n_chunks + b->n_chunks;
        uint64_t *w = xmalloc(cw * sizeof *w);                  /* owned by a */
        msgtab_words_move(w, a->words, a->n_words);
        msgtab_chunk *c = xmalloc(cc * sizeof *c);              /* owned by a */
        memcpy(c, a->chunks, a->n_chunks * sizeof *c);
        x_release(a->chunks, 0, a->n_chunks * sizeof *c);
        x_free(a->words);
        x_free(a->chunks);
        a->words = w;
        a->cap_words = cw;
        a->chunks = c;
        a->cap_chunks = cc;
    }
    msgtab_cols_free(&mt->t);
    mt->t = *a;
    msgtab_cols_append(&mt->t, b);
    memset(a, 0, sizeof *a);
    msgtab_seal_done(mt);
}

bool
msgtab_split_run(msgtab_split *sp, unsigned half)
{
    half = half ? 1 : 0;
    if (atomic_exchange(&sp->taken[half], true))
        return false;                       /* another call has it */
    msgtab_cursor *cs = xmalloc((sp->n_ls + 1) * sizeof *cs);   /* freed below */
    for (size_t i = 0; i < sp->n_ls; i++) {
        msgtab_list *l = sp->ls[i];
        size_t at = sp->at[i], n = l->cols.n + l->n_buf;
        /* The chunk holding `at` may be read by both halves: no words of it (nor of
         * the other half's chunks) are given back. */
        size_t j, k = at < l->cols.n ? msgtab_chunk_of(&l->cols, at, &j) : l->cols.n_chunks;
        cs[i] = msgtab_cursor_over(l, half ? at : 0, half ? n : at, false);
        if (half) {
            cs[i].released = k + 1 < l->cols.n_chunks ? l->cols.chunks[k + 1].word
                                                       : l->cols.n_words;
        } else {
            cs[i].rel_hi = k < l->cols.n_chunks ? l->cols.chunks[k].word : l->cols.n_words;
        }
    }
    /* Room for about what the half reads (merged chunks pack a little wider), half 0
     * for both (half 1 is appended to it): grown by doubling instead, the halves'
     * moves would leave their old blocks resident beside the lists. */
    size_t in_words = 0, in_chunks = 0;
    for (size_t i = 0; i < sp->n_ls; i++) {
        const msgtab_cols *lc = &sp->ls[i]->cols;
        size_t j, k = sp->at[i] < lc->n ? msgtab_chunk_of(lc, sp->at[i], &j) : lc->n_chunks;
        size_t w = k < lc->n_chunks ? lc->chunks[k].word : lc->n_words;
        in_words += half ? lc->n_words - w : lc->n_words;
        in_chunks += half ? lc->n_chunks - k : lc->n_chunks + 1;
    }
    msgtab_packer pk = { .len = 0 };
    msgtab_cols *dst = &sp->half[half];
    xgrowarray((void **)&dst->words, &dst->cap_words, in_words + in_words / 4 + 256, 256,
               sizeof *dst->words);
    xgrowarray((void **)&dst->chunks, &dst->cap_chunks, in_chunks + in_chunks / 4 + 16, 16,
               sizeof *dst->chunks);
    msgtab_merge_cursors(dst, sp->mt->marker_kind, &pk, cs, sp->n_ls);
    if (pk.len)
        msgtab_pack(dst, sp->mt->marker_kind, &pk.buf, pk.len, MSGTAB_SORTED);
    x_free(cs);
    if (atomic_fetch_add(&sp->done, 1) == 1)
        msgtab_split_finish(sp);            /* the other half is packed too */
    return true;
}

void
msgtab_split_end(msgtab *mt, msgtab_split *sp)
{
    (void)mt;
    msgtab_split_run(sp, 0);                /* those no call took (the last seals) */
    msgtab_split_run(sp, 1);
    x_free(sp->at);
    x_free(sp->ls);
    x_free(sp);
}

size_t
msgtab_append_sorted(msgtab *mt, const msgtab_msg *m, size_t n, uint64_t *moved)
{
    if (!mt->sealed)
        msgtab_seal(mt);
    msgtab_cols *t = &mt->t;
    size_t n_old = t->n;
    if (!n)
        return n_old;
    /* The first old message after m[0] (ties: the old first), then its chunk's start;
     * the last chunk is short or full, and a full one is kept as it is. */
    size_t lo = 0, hi = n_old;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        msgtab_msg x = msgtab_cols_at(t, mid);
        if (!msgtab_less(&m[0], &x))
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t j, c = msgtab_chunk_of(t, lo, &j);
    size_t from = c < t->n_chunks ? msgtab_chunk_first(t, c, NULL) : n_old;
    size_t n_tail = n_old - from;
    msgtab_msg *tail = xmalloc((n_tail + 1) * sizeof *tail);    /* freed below */
    for (size_t k = c, at = 0; k < t->n_chunks; k++) {
        size_t len;
        msgtab_chunk_first(t, k, &len);
        msgtab_cols_get(t, k, 0, len, tail + at);
        at += len;
    }
    msgtab_cols_cut(t, c);
    msgtab_packer pk = { .len = 0 };
    size_t i = 0;
    j = 0;
    while (i < n_tail || j < n) {
        bool old = j == n || (i < n_tail && !msgtab_less(&m[j], &tail[i]));
        msgtab_put(mt, &pk, old ? &tail[i++] : &m[j++]);
    }
    if (pk.len)
        msgtab_pack(t, mt->marker_kind, &pk.buf, pk.len, MSGTAB_SORTED);
    x_free(tail);
    mt->n = t->n;
    if (moved)
        *moved += n_old - lo;
    return lo;
}

/* ---- queries ---------------------------------------------------------------------- */

size_t
msgtab_count(const msgtab *mt)
{
    return mt->n;
}

size_t
msgtab_n_markers(const msgtab *mt)
{
    return mt->t.n_markers;
}

static unsigned
msgtab_kind_in(const msgtab *mt, const msgtab_chunk *ck, size_t j)
{
    const uint64_t *c = mt->t.words + ck->word + ck->w_t + ck->w_off + ck->w_cap;
    return (unsigned)(ck->kind_base + bitpack_get(c, (uint64_t)j * ck->w_kind, ck->w_kind));
}

msgtab_msg
msgtab_at(const msgtab *mt, size_t i)
{
    msgtab_msg m = { 0, 0, 0, 0 };
    return i < mt->n && mt->sealed ? msgtab_cols_at(&mt->t, i) : m;
}

size_t
msgtab_range(const msgtab *mt, size_t i, size_t n, msgtab_msg *out)
{
    if (!mt->sealed || i >= mt->n)
        return 0;
    n = n < mt->n - i ? n : mt->n - i;
    size_t j0, c = msgtab_chunk_of(&mt->t, i, &j0);
    for (size_t k = 0; k < n; c++, j0 = 0) {
        size_t len;
        msgtab_chunk_first(&mt->t, c, &len);
        len = len - j0 < n - k ? len - j0 : n - k;
        msgtab_cols_get(&mt->t, c, j0, len, out + k);
        k += len;
    }
    return n;
}

size_t
msgtab_first_from(const msgtab *mt, uint64_t t)
{
    return msgtab_cols_first_from(&mt->t, t);
}

size_t
msgtab_markers_before(const msgtab *mt, size_t i)
{
    if (i >= mt->n)
        return mt->t.n_markers;
    size_t j, c = msgtab_chunk_of(&mt->t, i, &j);
    const msgtab_chunk *ck = &mt->t.chunks[c];
    size_t k = ck->markers_before;
    for (size_t q = 0; q < j; q++)
        k += msgtab_kind_in(mt, ck, q) == mt->marker_kind;
    return k;
}

size_t
msgtab_marker_index(const msgtab *mt, size_t k)
{
    if (k >= mt->t.n_markers)
        return mt->n;
    size_t lo = 0, hi = mt->t.n_chunks;     /* the first chunk with more before it than k */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mt->t.chunks[mid].markers_before <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    const msgtab_chunk *ck = &mt->t.chunks[lo - 1];
    size_t len, first = msgtab_chunk_first(&mt->t, lo - 1, &len);
    size_t left = k - ck->markers_before;
    for (size_t j = 0; j < len; j++)
        if (msgtab_kind_in(mt, ck, j) == mt->marker_kind && left-- == 0)
            return first + j;
    return mt->n;                           /* unreachable on a sound table */
}

size_t
msgtab_bytes(const msgtab *mt)
{
    size_t b = sizeof *mt + mt->t.cap_words * sizeof *mt->t.words +
               mt->t.cap_chunks * sizeof *mt->t.chunks + mt->t.cap_segs * sizeof *mt->t.segs +
               mt->cap_lists * sizeof *mt->lists;
    for (size_t i = 0; i < mt->n_lists; i++)
        b += sizeof *mt->lists[i] + mt->lists[i]->cols.cap_words * sizeof(uint64_t) +
             mt->lists[i]->cols.cap_chunks * sizeof(msgtab_chunk) +
             mt->lists[i]->cols.cap_segs * sizeof(msgtab_seg);
    return b;
}

/* The segments: none, or from {0, 0} on, each of its messages in as many chunks as it
 * needs, every one before the last ending in a short chunk, covering the table. */
static bool
msgtab_check_segs(const msgtab_cols *t, char *why, size_t why_len)
{
    if (t->n_segs == 1 || (t->n_segs && (t->segs[0].first || t->segs[0].chunk))) {
        snprintf(why, why_len, "message segments: %zu, the first not at 0", t->n_segs);
        return false;
    }
    size_t ns = t->n_segs ? t->n_segs : 1;
    for (size_t s = 0; s < ns; s++) {
        msgtab_seg g = msgtab_seg_at(t, s);
        size_t end_i = s + 1 < ns ? t->segs[s + 1].first : t->n;
        size_t end_k = s + 1 < ns ? t->segs[s + 1].chunk : t->n_chunks;
        bool last = s + 1 == ns;
        if (end_i < g.first || end_k < g.chunk ||
            end_k - g.chunk != (end_i - g.first + MSGTAB_CHUNK - 1) / MSGTAB_CHUNK ||
            (!last && (end_i == g.first || (end_i - g.first) % MSGTAB_CHUNK == 0))) {
            snprintf(why, why_len, "message segment %zu: messages [%zu, %zu) in chunks "
                     "[%zu, %zu)", s, g.first, end_i, g.chunk, end_k);
            return false;
        }
    }
    return true;
}

bool
msgtab_check(const msgtab *mt, char *why, size_t why_len)
{
    if (!mt->sealed) {
        snprintf(why, why_len, "message table not sealed");
        return false;
    }
    if (mt->t.n != mt->n) {
        snprintf(why, why_len, "message table of %zu holds %zu", mt->n, mt->t.n);
        return false;
    }
    if (!msgtab_check_segs(&mt->t, why, why_len))
        return false;
    size_t markers = 0;
    size_t words = 0;
    msgtab_msg prev = { 0, 0, 0, 0 };
    for (size_t c = 0; c < mt->t.n_chunks; c++) {
        const msgtab_chunk *ck = &mt->t.chunks[c];
        if (ck->markers_before != markers || ck->word != words) {
            snprintf(why, why_len, "message chunk %zu header: markers %u of %zu, word %u of %zu",
                     c, ck->markers_before, markers, ck->word, words);
            return false;
        }
        uint64_t any[4] = { 0, 0, 0, 0 }, least[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
        size_t len, first = msgtab_chunk_first(&mt->t, c, &len);
        for (size_t j = 0; j < len; j++) {
            size_t i = first + j;
            msgtab_msg m = msgtab_at(mt, i);
            if (i && msgtab_less(&m, &prev)) {
                snprintf(why, why_len, "messages out of order at %zu", i);
                return false;
            }
            prev = m;
            markers += m.kind == mt->marker_kind;
            any[0] |= m.time_ns - ck->t_base;
            any[1] |= m.offset - ck->off_base;
            any[2] |= m.cap - ck->cap_base;
            any[3] |= m.kind - ck->kind_base;
            least[0] = m.offset < least[0] ? m.offset : least[0];
            least[1] = m.cap < least[1] ? m.cap : least[1];
            least[2] = m.kind < least[2] ? m.kind : least[2];
        }
        if (msgtab_at(mt, first).time_ns != ck->t_base ||
            least[0] != ck->off_base || least[1] != ck->cap_base || least[2] != ck->kind_base ||
            bitpack_width(any[0]) != ck->w_t || bitpack_width(any[1]) != ck->w_off ||
            bitpack_width(any[2]) != ck->w_cap || bitpack_width(any[3]) != ck->w_kind) {
            snprintf(why, why_len, "message chunk %zu: bases or widths not canonical", c);
            return false;
        }
        words += (size_t)ck->w_t + ck->w_off + ck->w_cap + ck->w_kind;
    }
    if (markers != mt->t.n_markers || words != mt->t.n_words) {
        snprintf(why, why_len, "message table counts %zu markers, %zu words; holds %zu, %zu",
                 mt->t.n_markers, mt->t.n_words, markers, words);
        return false;
    }
    return true;
}
