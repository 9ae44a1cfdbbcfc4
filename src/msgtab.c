/* msgtab: markers and messages, collected in per-capability page lists while the index
 * is built, then merged in (time, offset) order into bit-packed chunks of
 * frame-of-reference columns. See include/msgtab.h. */
#include "msgtab.h"

#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "radixsort.h"
#include "xalloc.h"

/* Zero words after the packed ones: a column read loads the word it starts in and the
 * next, and a column of width 0 at the very end starts at the end. */
#define MSGTAB_PAD 2

/* A packed chunk: messages [c * MSGTAB_CHUNK, ...) (fewer only in the last chunk),
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

/* Packed messages in chunks: the sealed table's, and each capability's while building
 * (the messages in the order added, the last partial chunk waiting in buf). */
typedef struct msgtab_cols {
    msgtab_chunk *chunks;       /* owned */
    size_t n_chunks, cap_chunks;
    uint64_t *words;            /* owned; the chunks' columns, then MSGTAB_PAD zeros */
    size_t n_words, cap_words;
    size_t n, n_markers;        /* messages and markers packed */
} msgtab_cols;

/* One capability's messages while building: packed as they come. */
typedef struct msgtab_list {
    msgtab_cols cols;
    msgtab_msg buf[MSGTAB_CHUNK];       /* the next chunk, not yet packed */
    size_t n_buf;
    msgtab_msg last;            /* the last message added */
    uint16_t cap;
    bool sorted;                /* every message at or after the one before it */
    bool reopened;              /* a sealed table taken back (any caps) or a merged
                                 * builder's list: never cap's list */
} msgtab_list;

struct msgtab {
    unsigned marker_kind;
    bool sealed;
    msgtab_list **lists;        /* owned, each owned; emptied at seal */
    size_t n_lists, cap_lists, last_list;
    size_t n;                   /* messages added (before seal), packed (after) */
    msgtab_cols t;              /* the sealed table */
};

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

/* ---- packing ---------------------------------------------------------------------- */

/* Pack len (1..MSGTAB_CHUNK) messages as the next chunk of c. */
static void
msgtab_pack(msgtab_cols *c, unsigned marker_kind, const msgtab_msg *m, size_t len)
{
    xgrowarray((void **)&c->chunks, &c->cap_chunks, c->n_chunks + 1, 16, sizeof *c->chunks);
    msgtab_chunk *ck = &c->chunks[c->n_chunks++];
    uint64_t off_min = m[0].offset, cap_min = m[0].cap, kind_min = m[0].kind;
    for (size_t j = 1; j < len; j++) {
        off_min = m[j].offset < off_min ? m[j].offset : off_min;
        cap_min = m[j].cap < cap_min ? m[j].cap : cap_min;
        kind_min = m[j].kind < kind_min ? m[j].kind : kind_min;
    }
    uint64_t any_t = 0, any_off = 0, any_cap = 0, any_kind = 0;
    size_t markers = 0;
    for (size_t j = 0; j < len; j++) {
        any_t |= m[j].time_ns - m[0].time_ns;
        any_off |= m[j].offset - off_min;
        any_cap |= m[j].cap - cap_min;
        any_kind |= m[j].kind - kind_min;
        markers += m[j].kind == marker_kind;
    }
    *ck = (msgtab_chunk){
        .t_base = m[0].time_ns, .off_base = off_min, .cap_base = cap_min,
        .kind_base = kind_min, .word = (uint32_t)c->n_words,
        .markers_before = (uint32_t)c->n_markers,
        .w_t = (uint8_t)bitpack_width(any_t), .w_off = (uint8_t)bitpack_width(any_off),
        .w_cap = (uint8_t)bitpack_width(any_cap), .w_kind = (uint8_t)bitpack_width(any_kind),
    };
    size_t words = (size_t)ck->w_t + ck->w_off + ck->w_cap + ck->w_kind;
    xgrowarray((void **)&c->words, &c->cap_words, c->n_words + words + MSGTAB_PAD, 256,
               sizeof *c->words);
    uint64_t *col = c->words + c->n_words;
    memset(col, 0, (words + MSGTAB_PAD) * sizeof *col);
    for (size_t j = 0; j < len; j++) {
        uint64_t *p = col;
        bitpack_put(p, j * ck->w_t, m[j].time_ns - ck->t_base, ck->w_t);
        p += ck->w_t;
        bitpack_put(p, j * ck->w_off, m[j].offset - off_min, ck->w_off);
        p += ck->w_off;
        bitpack_put(p, j * ck->w_cap, m[j].cap - cap_min, ck->w_cap);
        p += ck->w_cap;
        bitpack_put(p, j * ck->w_kind, m[j].kind - kind_min, ck->w_kind);
    }
    c->n_words += words;
    c->n += len;
    c->n_markers += markers;
}

/* Message i (< c->n) of c. */
static msgtab_msg
msgtab_cols_at(const msgtab_cols *c, size_t i)
{
    const msgtab_chunk *ck = &c->chunks[i / MSGTAB_CHUNK];
    uint64_t j = i % MSGTAB_CHUNK;
    const uint64_t *p = c->words + ck->word;
    msgtab_msg m;
    m.time_ns = ck->t_base + bitpack_get(p, j * ck->w_t, ck->w_t);
    p += ck->w_t;
    m.offset = ck->off_base + bitpack_get(p, j * ck->w_off, ck->w_off);
    p += ck->w_off;
    m.cap = ck->cap_base + bitpack_get(p, j * ck->w_cap, ck->w_cap);
    p += ck->w_cap;
    m.kind = ck->kind_base + bitpack_get(p, j * ck->w_kind, ck->w_kind);
    return m;
}

static msgtab_list *
msgtab_list_of(msgtab *mt, uint16_t cap)
{
    if (mt->last_list < mt->n_lists && mt->lists[mt->last_list]->cap == cap &&
        !mt->lists[mt->last_list]->reopened)
        return mt->lists[mt->last_list];
    for (size_t i = 0; i < mt->n_lists; i++)
        if (mt->lists[i]->cap == cap && !mt->lists[i]->reopened) {
            mt->last_list = i;
            return mt->lists[i];
        }
    xgrowarray((void **)&mt->lists, &mt->cap_lists, mt->n_lists + 1, 8, sizeof *mt->lists);
    msgtab_list *l = xcalloc(1, sizeof *l);     /* owned by mt */
    l->cap = cap;
    l->sorted = true;
    mt->lists[mt->n_lists] = l;
    mt->last_list = mt->n_lists++;
    return l;
}

static void
msgtab_list_add(msgtab_list *l, unsigned marker_kind, const msgtab_msg *m)
{
    if (l->sorted && (l->cols.n || l->n_buf) && msgtab_less(m, &l->last))
        l->sorted = false;
    l->last = *m;
    l->buf[l->n_buf++] = *m;
    if (l->n_buf == MSGTAB_CHUNK) {
        msgtab_pack(&l->cols, marker_kind, l->buf, l->n_buf);
        l->n_buf = 0;
    }
}

/* Take a sealed table back for more messages: its packed chunks become one sorted list
 * (its last, partial chunk back in the buffer), merged with the new ones at the next
 * seal. */
static void
msgtab_reopen(msgtab *mt)
{
    msgtab_list *l = xcalloc(1, sizeof *l);     /* owned by mt */
    l->sorted = true;
    l->reopened = true;
    l->cols = mt->t;
    memset(&mt->t, 0, sizeof mt->t);
    size_t full = l->cols.n / MSGTAB_CHUNK * MSGTAB_CHUNK;
    if (full < l->cols.n) {
        for (size_t i = full; i < l->cols.n; i++)
            l->buf[l->n_buf++] = msgtab_cols_at(&l->cols, i);
        const msgtab_chunk *ck = &l->cols.chunks[--l->cols.n_chunks];
        l->cols.n_words = ck->word;
        l->cols.n_markers = ck->markers_before;
        l->cols.n = full;
    }
    if (l->cols.n + l->n_buf)
        l->last = l->n_buf ? l->buf[l->n_buf - 1] : msgtab_cols_at(&l->cols, l->cols.n - 1);
    xgrowarray((void **)&mt->lists, &mt->cap_lists, mt->n_lists + 1, 8, sizeof *mt->lists);
    mt->lists[mt->n_lists++] = l;
    mt->sealed = false;
}

void
msgtab_add(msgtab *mt, const msgtab_msg *m)
{
    if (mt->sealed)
        msgtab_reopen(mt);
    msgtab_list_add(msgtab_list_of(mt, (uint16_t)m->cap), mt->marker_kind, m);
    mt->n++;
}

/* Message i of a list: packed, then buffered. */
static msgtab_msg
msgtab_list_at(const msgtab_list *l, size_t i)
{
    return i < l->cols.n ? msgtab_cols_at(&l->cols, i) : l->buf[i - l->cols.n];
}

void
msgtab_merge(msgtab *dst, msgtab *src)
{
    for (size_t i = 0; i < src->n_lists; i++) {
        msgtab_list *s = src->lists[i];
        size_t n = s->cols.n + s->n_buf;
        msgtab_list *d = msgtab_list_of(dst, s->cap);
        if (d->cols.n + d->n_buf == 0) {        /* the cap's first: take the list whole */
            dst->lists[dst->last_list] = s;
            msgtab_list_free(d);
        } else {
            /* A list of its own, merged in at the seal like any other (adds for its
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
}

/* Collects sorted messages and packs them into the table a chunk at a time. */
typedef struct msgtab_packer {
    msgtab_msg buf[MSGTAB_CHUNK];
    size_t len;
} msgtab_packer;

static void
msgtab_put(msgtab *mt, msgtab_packer *pk, const msgtab_msg *m)
{
    pk->buf[pk->len++] = *m;
    if (pk->len == MSGTAB_CHUNK) {
        msgtab_pack(&mt->t, mt->marker_kind, pk->buf, pk->len);
        pk->len = 0;
    }
}

/* A list's next message in the merge. */
typedef struct msgtab_cursor {
    msgtab_list *l;
    size_t i;
    msgtab_msg head;            /* message i */
    size_t released;            /* words of l's columns given back (x_release) */
} msgtab_cursor;

/* Words of a list's columns a merge gives back at a time: the chunks it has passed,
 * so the lists and the table being merged from them are not both held whole. */
#define MSGTAB_RELEASE_WORDS 8192

static void
msgtab_sift_down(msgtab_cursor *h, size_t n, size_t i)
{
    for (;;) {
        size_t m = i, l = 2 * i + 1, r = l + 1;
        if (l < n && msgtab_less(&h[l].head, &h[m].head))
            m = l;
        if (r < n && msgtab_less(&h[r].head, &h[m].head))
            m = r;
        if (m == i)
            return;
        msgtab_cursor t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Every list is sorted: a k-way merge over a heap of list heads, freeing each list once
 * the merge has passed its end. */
static void
msgtab_seal_merge(msgtab *mt, msgtab_packer *pk)
{
    msgtab_cursor *h = xmalloc((mt->n_lists + 1) * sizeof *h);   /* freed below */
    size_t nh = 0;
    for (size_t i = 0; i < mt->n_lists; i++)
        if (mt->lists[i]->cols.n + mt->lists[i]->n_buf)
            h[nh++] = (msgtab_cursor){ mt->lists[i], 0, msgtab_list_at(mt->lists[i], 0), 0 };
    for (size_t i = nh / 2; i-- > 0;)
        msgtab_sift_down(h, nh, i);
    while (nh) {
        msgtab_cursor *c = &h[0];
        msgtab_put(mt, pk, &c->head);
        c->i++;
        if (c->i == c->l->cols.n + c->l->n_buf) {
            msgtab_cols_free(&c->l->cols);
            c->l->n_buf = 0;
            h[0] = h[--nh];
        } else {
            c->head = msgtab_list_at(c->l, c->i);
            const msgtab_cols *lc = &c->l->cols;
            size_t k = c->i / MSGTAB_CHUNK;
            if (c->i % MSGTAB_CHUNK == 0 && k < lc->n_chunks &&
                lc->chunks[k].word - c->released >= MSGTAB_RELEASE_WORDS) {
                x_release(lc->words, c->released * sizeof *lc->words,
                          lc->chunks[k].word * sizeof *lc->words);
                c->released = lc->chunks[k].word;
            }
        }
        msgtab_sift_down(h, nh, 0);
    }
    x_free(h);
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
        for (size_t j = 0; j < l->cols.n + l->n_buf; j++)
            all[k++] = msgtab_list_at(l, j);
        msgtab_cols_free(&l->cols);
        l->n_buf = 0;
    }
    radixsort_by_u64_ties(all, n, sizeof *all, offsetof(msgtab_msg, time_ns), msgtab_msg_cmp);
    for (size_t i = 0; i < n; i++)
        msgtab_put(mt, pk, &all[i]);
    x_free(all);
}

void
msgtab_seal(msgtab *mt)
{
    if (mt->sealed)
        return;
    size_t n = mt->n, with = 0, one = 0;
    bool sorted = true;
    for (size_t i = 0; i < mt->n_lists; i++) {
        sorted &= mt->lists[i]->sorted;
        if (mt->lists[i]->cols.n + mt->lists[i]->n_buf) {
            with++;
            one = i;
        }
    }
    msgtab_packer pk = { .len = 0 };
    if (sorted && with == 1) {
        /* One capability's messages in order: its chunks are the table's already. */
        msgtab_list *l = mt->lists[one];
        mt->t = l->cols;
        memset(&l->cols, 0, sizeof l->cols);
        memcpy(pk.buf, l->buf, l->n_buf * sizeof *l->buf);
        pk.len = l->n_buf;
    } else if (sorted) {
        msgtab_seal_merge(mt, &pk);
    } else {
        msgtab_seal_sort(mt, &pk, n);
    }
    if (pk.len)
        msgtab_pack(&mt->t, mt->marker_kind, pk.buf, pk.len);
    for (size_t i = 0; i < mt->n_lists; i++)
        msgtab_list_free(mt->lists[i]);
    x_free(mt->lists);
    mt->lists = NULL;
    mt->n_lists = mt->cap_lists = 0;
    mt->n = mt->t.n;
    mt->sealed = true;
    msgtab_trim(mt);
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
    t->cap_chunks = t->n_chunks + 1;
    t->chunks = xreallocarray(t->chunks, t->cap_chunks, sizeof *t->chunks);
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
     * the last chunk is partial or full, and a full one is kept as it is. */
    size_t lo = 0, hi = n_old;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        msgtab_msg x = msgtab_cols_at(t, mid);
        if (!msgtab_less(&m[0], &x))
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t c = lo / MSGTAB_CHUNK;
    size_t from = c * MSGTAB_CHUNK, n_tail = n_old - from;
    msgtab_msg *tail = xmalloc((n_tail + 1) * sizeof *tail);    /* freed below */
    for (size_t i = 0; i < n_tail; i++)
        tail[i] = msgtab_cols_at(t, from + i);
    if (c < t->n_chunks) {
        t->n_words = t->chunks[c].word;
        t->n_markers = t->chunks[c].markers_before;
        t->n_chunks = c;
    }
    t->n = from;
    msgtab_packer pk = { .len = 0 };
    size_t i = 0, j = 0;
    while (i < n_tail || j < n) {
        bool old = j == n || (i < n_tail && !msgtab_less(&m[j], &tail[i]));
        msgtab_put(mt, &pk, old ? &tail[i++] : &m[j++]);
    }
    if (pk.len)
        msgtab_pack(t, mt->marker_kind, pk.buf, pk.len);
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

static size_t
msgtab_chunk_len(const msgtab *mt, size_t c)
{
    size_t rest = mt->n - c * MSGTAB_CHUNK;
    return rest < MSGTAB_CHUNK ? rest : MSGTAB_CHUNK;
}

static uint64_t
msgtab_time_in(const msgtab *mt, const msgtab_chunk *ck, size_t j)
{
    return ck->t_base + bitpack_get(mt->t.words + ck->word, (uint64_t)j * ck->w_t, ck->w_t);
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
    /* A chunk's part column by column, each a loop of one width. */
    for (size_t k = 0; k < n;) {
        const msgtab_chunk *ck = &mt->t.chunks[(i + k) / MSGTAB_CHUNK];
        size_t j0 = (i + k) % MSGTAB_CHUNK;
        size_t len = MSGTAB_CHUNK - j0 < n - k ? MSGTAB_CHUNK - j0 : n - k;
        const uint64_t *pt = mt->t.words + ck->word, *po = pt + ck->w_t;
        const uint64_t *pc = po + ck->w_off, *pk = pc + ck->w_cap;
        uint64_t mt_ = bitpack_mask(ck->w_t), mo = bitpack_mask(ck->w_off);
        uint64_t mc = bitpack_mask(ck->w_cap), mk = bitpack_mask(ck->w_kind);
        for (size_t j = 0; j < len; j++) {
            uint64_t jj = j0 + j;
            msgtab_msg *m = &out[k + j];
            m->time_ns = ck->t_base + bitpack_get_masked(pt, jj * ck->w_t, mt_);
            m->offset = ck->off_base + bitpack_get_masked(po, jj * ck->w_off, mo);
            m->cap = ck->cap_base + bitpack_get_masked(pc, jj * ck->w_cap, mc);
            m->kind = ck->kind_base + bitpack_get_masked(pk, jj * ck->w_kind, mk);
        }
        k += len;
    }
    return n;
}

size_t
msgtab_first_from(const msgtab *mt, uint64_t t)
{
    size_t n_chunks = (mt->n + MSGTAB_CHUNK - 1) / MSGTAB_CHUNK;
    size_t lo = 0, hi = n_chunks;           /* the first chunk whose base is >= t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mt->t.chunks[mid].t_base < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    size_t c = lo - 1, len = msgtab_chunk_len(mt, c);
    size_t a = 1, b = len;                  /* entry 0 is the base: < t */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (msgtab_time_in(mt, &mt->t.chunks[c], mid) < t)
            a = mid + 1;
        else
            b = mid;
    }
    return c * MSGTAB_CHUNK + a;
}

size_t
msgtab_markers_before(const msgtab *mt, size_t i)
{
    if (i >= mt->n)
        return mt->t.n_markers;
    const msgtab_chunk *ck = &mt->t.chunks[i / MSGTAB_CHUNK];
    size_t k = ck->markers_before;
    for (size_t j = 0; j < i % MSGTAB_CHUNK; j++)
        k += msgtab_kind_in(mt, ck, j) == mt->marker_kind;
    return k;
}

size_t
msgtab_marker_index(const msgtab *mt, size_t k)
{
    if (k >= mt->t.n_markers)
        return mt->n;
    size_t n_chunks = (mt->n + MSGTAB_CHUNK - 1) / MSGTAB_CHUNK;
    size_t lo = 0, hi = n_chunks;           /* the first chunk with more before it than k */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (mt->t.chunks[mid].markers_before <= k)
            lo = mid + 1;
        else
            hi = mid;
    }
    const msgtab_chunk *ck = &mt->t.chunks[lo - 1];
    size_t left = k - ck->markers_before, len = msgtab_chunk_len(mt, lo - 1);
    for (size_t j = 0; j < len; j++)
        if (msgtab_kind_in(mt, ck, j) == mt->marker_kind && left-- == 0)
            return (lo - 1) * MSGTAB_CHUNK + j;
    return mt->n;                           /* unreachable on a sound table */
}

size_t
msgtab_bytes(const msgtab *mt)
{
    size_t b = sizeof *mt + mt->t.cap_words * sizeof *mt->t.words +
               mt->t.cap_chunks * sizeof *mt->t.chunks + mt->cap_lists * sizeof *mt->lists;
    for (size_t i = 0; i < mt->n_lists; i++)
        b += sizeof *mt->lists[i] + mt->lists[i]->cols.cap_words * sizeof(uint64_t) +
             mt->lists[i]->cols.cap_chunks * sizeof(msgtab_chunk);
    return b;
}

bool
msgtab_check(const msgtab *mt, char *why, size_t why_len)
{
    if (!mt->sealed) {
        snprintf(why, why_len, "message table not sealed");
        return false;
    }
    size_t markers = 0;
    size_t words = 0;
    msgtab_msg prev = { 0, 0, 0, 0 };
    for (size_t c = 0; c * MSGTAB_CHUNK < mt->n; c++) {
        const msgtab_chunk *ck = &mt->t.chunks[c];
        if (ck->markers_before != markers || ck->word != words) {
            snprintf(why, why_len, "message chunk %zu header: markers %u of %zu, word %u of %zu",
                     c, ck->markers_before, markers, ck->word, words);
            return false;
        }
        uint64_t any[4] = { 0, 0, 0, 0 }, least[3] = { UINT64_MAX, UINT64_MAX, UINT64_MAX };
        size_t len = msgtab_chunk_len(mt, c);
        for (size_t j = 0; j < len; j++) {
            size_t i = c * MSGTAB_CHUNK + j;
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
        if (msgtab_at(mt, c * MSGTAB_CHUNK).time_ns != ck->t_base ||
            least[0] != ck->off_base || least[1] != ck->cap_base || least[2] != ck->kind_base ||
            bitpack_width(any[0]) != ck->w_t || bitpack_width(any[1]) != ck->w_off ||
            bitpack_width(any[2]) != ck->w_cap || bitpack_width(any[3]) != ck->w_kind) {
            snprintf(why, why_len, "message chunk %zu: bases or widths not canonical", c);
            return false;
        }
        words += (size_t)ck->w_t + ck->w_off + ck->w_cap + ck->w_kind;
    }
    if (mt->t.n_chunks != (mt->n + MSGTAB_CHUNK - 1) / MSGTAB_CHUNK || mt->t.n != mt->n) {
        snprintf(why, why_len, "message table of %zu in %zu chunks", mt->n, mt->t.n_chunks);
        return false;
    }
    if (markers != mt->t.n_markers || words != mt->t.n_words) {
        snprintf(why, why_len, "message table counts %zu markers, %zu words; holds %zu, %zu",
                 mt->t.n_markers, mt->t.n_words, markers, words);
        return false;
    }
    return true;
}
