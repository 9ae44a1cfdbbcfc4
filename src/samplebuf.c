/* samplebuf: samples held delta-encoded per stream (LEB128 varints of zigzagged
 * differences from the stream's previous record) and drained group by group through a
 * heap merge of the group's streams; a stream that came out of order is decoded and
 * sorted alone when its group is drained. */
#include "samplebuf.h"

#include <stdlib.h>
#include <string.h>

#include "radixsort.h"
#include "xalloc.h"

/* A stream's bytes are given back to the system in steps of this many while drained. */
#define SB_RELEASE_STEP ((size_t)1 << 16)
/* Most bytes one record takes: two varints and up to three of up to 10 bytes each. */
#define SB_REC_MAX (10 * (2 + SAMPLEBUF_MAX_VALUES))

typedef struct sb_stream {
    uint32_t key;
    bool sorted;                /* every record at or after the one before */
    uint8_t *bytes;             /* owned */
    size_t n_bytes, cap_bytes;
    size_t n;                   /* records */
    /* The last record (the encoder's base for the next one). */
    uint64_t last_t, last_off, last_v[SAMPLEBUF_MAX_VALUES];
} sb_stream;

struct samplebuf {
    unsigned n_values;
    sb_stream *s;               /* owned */
    size_t n_s, cap_s;
    uint32_t *slot;             /* owned; open addressing: 1 + stream index, 0 empty */
    size_t n_slots;             /* a power of two, at least twice n_s */
    size_t n_recs;
    size_t last;                /* the stream pushed to last (a cache), or SIZE_MAX */
};

/* ---- encoding ------------------------------------------------------------------------ */

static inline uint64_t
sb_zig(uint64_t d)
{
    return (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);
}

static inline uint64_t
sb_unzig(uint64_t z)
{
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static inline size_t
sb_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* The bytes were written by sb_put: no bounds to check. */
static inline uint64_t
sb_get(const uint8_t *p, size_t *pos)
{
    uint64_t v = 0;
    unsigned sh = 0;
    uint8_t c;
    do {
        c = p[(*pos)++];
        v |= (uint64_t)(c & 0x7f) << sh;
        sh += 7;
    } while (c & 0x80);
    return v;
}

static inline bool
sb_before(uint64_t ta, uint64_t oa, uint64_t tb, uint64_t ob)
{
    return ta < tb || (ta == tb && oa < ob);
}

/* Append one record to stream st (its encoder state moves on). */
static void
sb_stream_put(sb_stream *st, unsigned n_values, uint64_t t, uint64_t off, const uint64_t *v)
{
    xgrowarray((void **)&st->bytes, &st->cap_bytes, st->n_bytes + SB_REC_MAX, 256, 1);
    if (st->n && sb_before(t, off, st->last_t, st->last_off))
        st->sorted = false;
    uint8_t *p = st->bytes + st->n_bytes;
    size_t k = sb_put(p, sb_zig(t - st->last_t));
    k += sb_put(p + k, sb_zig(off - st->last_off));
    for (unsigned i = 0; i < n_values; i++) {
        k += sb_put(p + k, sb_zig(v[i] - st->last_v[i]));
        st->last_v[i] = v[i];
    }
    st->n_bytes += k;
    st->last_t = t;
    st->last_off = off;
    st->n++;
}

/* Decode the record at *pos of a stream whose previous record is *r (all zero before
 * the first); *r becomes it. */
static void
sb_stream_get(const uint8_t *bytes, size_t *pos, unsigned n_values, samplebuf_rec *r)
{
    r->time_ns += sb_unzig(sb_get(bytes, pos));
    r->offset += sb_unzig(sb_get(bytes, pos));
    for (unsigned i = 0; i < n_values; i++)
        r->value[i] += sb_unzig(sb_get(bytes, pos));
}

/* ---- the stream table ------------------------------------------------------------------ */

samplebuf *
samplebuf_new(unsigned n_values)
{
    samplebuf *sb = xcalloc(1, sizeof *sb);     /* caller frees: samplebuf_free */
    sb->n_values = n_values < 1 ? 1 : n_values > SAMPLEBUF_MAX_VALUES ? SAMPLEBUF_MAX_VALUES
                                                                       : n_values;
    sb->last = SIZE_MAX;
    return sb;
}

static void
sb_clear(samplebuf *sb)
{
    for (size_t i = 0; i < sb->n_s; i++)
        x_free(sb->s[i].bytes);
    x_free(sb->s);
    x_free(sb->slot);
    sb->s = NULL;
    sb->slot = NULL;
    sb->n_s = sb->cap_s = sb->n_slots = sb->n_recs = 0;
    sb->last = SIZE_MAX;
}

void
samplebuf_free(samplebuf *sb)
{
    if (!sb)
        return;
    sb_clear(sb);
    x_free(sb);
}

static inline size_t
sb_hash(uint32_t key, size_t mask)
{
    return (size_t)((key * 0x9e3779b1u) >> 7) & mask;
}

/* Slots for n streams: a power of two from 16, at least twice n (sb_stream_of keeps
 * the table so). */
static size_t
sb_slots_for(size_t n)
{
    size_t n_slots = 16;
    while (2 * n > n_slots)
        n_slots *= 2;
    return n_slots;
}

static void
sb_rehash(samplebuf *sb, size_t n_slots)
{
    x_free(sb->slot);
    sb->slot = xcalloc(n_slots, sizeof *sb->slot);      /* owned by sb */
    sb->n_slots = n_slots;
    for (size_t i = 0; i < sb->n_s; i++) {
        size_t h = sb_hash(sb->s[i].key, n_slots - 1);
        while (sb->slot[h])
            h = (h + 1) & (n_slots - 1);
        sb->slot[h] = (uint32_t)(i + 1);
    }
}

/* The stream of `key`, made (empty) if there is none. */
static sb_stream *
sb_stream_of(samplebuf *sb, uint32_t key)
{
    if (sb->last != SIZE_MAX && sb->s[sb->last].key == key)
        return &sb->s[sb->last];
    size_t h = sb->n_slots ? sb_hash(key, sb->n_slots - 1) : 0;
    while (sb->n_slots && sb->slot[h]) {
        if (sb->s[sb->slot[h] - 1].key == key) {
            sb->last = sb->slot[h] - 1;
            return &sb->s[sb->last];
        }
        h = (h + 1) & (sb->n_slots - 1);
    }
    xgrowarray((void **)&sb->s, &sb->cap_s, sb->n_s + 1, 8, sizeof *sb->s);
    sb->s[sb->n_s] = (sb_stream){ .key = key, .sorted = true };
    sb->last = sb->n_s++;
    if (2 * sb->n_s > sb->n_slots)
        sb_rehash(sb, sb->n_slots ? 2 * sb->n_slots : 16);
    else
        sb->slot[h] = (uint32_t)sb->n_s;
    return &sb->s[sb->last];
}

void
samplebuf_push(samplebuf *sb, uint32_t key, uint64_t time_ns, uint64_t offset,
               const uint64_t *value)
{
    sb_stream_put(sb_stream_of(sb, key), sb->n_values, time_ns, offset, value);
    sb->n_recs++;
}

size_t
samplebuf_count(const samplebuf *sb)
{
    return sb ? sb->n_recs : 0;
}

size_t
samplebuf_bytes(const samplebuf *sb)
{
    if (!sb)
        return 0;
    size_t n = sizeof *sb + sb->cap_s * sizeof *sb->s + sb->n_slots * sizeof *sb->slot;
    for (size_t i = 0; i < sb->n_s; i++)
        n += sb->s[i].cap_bytes;
    return n;
}

bool
samplebuf_any(const samplebuf *sb, uint32_t lo, uint32_t hi)
{
    for (size_t i = 0; sb && i < sb->n_s; i++)
        if (sb->s[i].n && sb->s[i].key >= lo && sb->s[i].key <= hi)
            return true;
    return false;
}

samplebuf *
samplebuf_split_off(samplebuf *sb, uint32_t lo, uint32_t hi)
{
    samplebuf *out = samplebuf_new(sb->n_values);   /* caller frees: samplebuf_free */
    size_t kept = 0;
    for (size_t i = 0; i < sb->n_s; i++) {
        sb_stream *st = &sb->s[i];
        if (st->key < lo || st->key > hi) {
            sb->s[kept++] = *st;
            continue;
        }
        xgrowarray((void **)&out->s, &out->cap_s, out->n_s + 1, 8, sizeof *out->s);
        out->s[out->n_s++] = *st;       /* its bytes move with it */
        out->n_recs += st->n;
        sb->n_recs -= st->n;
    }
    sb->n_s = kept;
    sb->last = SIZE_MAX;
    /* Each buffer's table of stream slots, for its own streams. */
    sb_rehash(sb, sb_slots_for(sb->n_s));
    sb_rehash(out, sb_slots_for(out->n_s));
    return out;
}

void
samplebuf_append_take(samplebuf *dst, samplebuf *src)
{
    for (size_t i = 0; i < src->n_s; i++) {
        sb_stream *ss = &src->s[i];
        if (!ss->n)
            continue;
        sb_stream *ds = sb_stream_of(dst, ss->key);
        if (!ds->n) {               /* taken whole */
            x_free(ds->bytes);
            *ds = *ss;
        } else {
            /* The first record re-encoded after dst's last; the rest are differences
             * from it, copied as they are. */
            samplebuf_rec r = { 0 };
            size_t pos = 0;
            sb_stream_get(ss->bytes, &pos, src->n_values, &r);
            sb_stream_put(ds, dst->n_values, r.time_ns, r.offset, r.value);
            size_t rest = ss->n_bytes - pos;
            xgrowarray((void **)&ds->bytes, &ds->cap_bytes, ds->n_bytes + rest, 256, 1);
            memcpy(ds->bytes + ds->n_bytes, ss->bytes + pos, rest);
            ds->n_bytes += rest;
            ds->n += ss->n - 1;
            ds->sorted &= ss->sorted;
            ds->last_t = ss->last_t;
            ds->last_off = ss->last_off;
            memcpy(ds->last_v, ss->last_v, sizeof ds->last_v);
            x_free(ss->bytes);
        }
        ss->bytes = NULL;
        ss->n = ss->n_bytes = ss->cap_bytes = 0;
    }
    dst->n_recs += src->n_recs;
    sb_clear(src);
}

/* ---- the drain --------------------------------------------------------------------------- */

/* Where a group's merge reads one stream: its bytes, or (a stream out of order) its
 * records decoded and sorted. */
typedef struct sb_cursor {
    samplebuf_rec cur;          /* the record at the head */
    size_t order;               /* the stream's place among the group's (ties) */
    sb_stream *st;
    size_t pos, released;       /* bytes read, bytes given back */
    size_t left;                /* records after cur */
    samplebuf_rec *recs;        /* owned: a sorted stream's records, or NULL */
    size_t next;
} sb_cursor;

static int
sb_key_cmp(const void *a, const void *b)
{
    uint32_t x = ((const sb_stream *)a)->key, y = ((const sb_stream *)b)->key;
    return x < y ? -1 : x > y;
}

static int
sb_rec_cmp(const void *a, const void *b)
{
    const samplebuf_rec *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bool
sb_cursor_less(const sb_cursor *a, const sb_cursor *b)
{
    if (a->cur.time_ns != b->cur.time_ns)
        return a->cur.time_ns < b->cur.time_ns;
    if (a->cur.offset != b->cur.offset)
        return a->cur.offset < b->cur.offset;
    return a->order < b->order;
}

/* Move c to its next record; false when it has none (its memory is freed). */
static bool
sb_cursor_next(sb_cursor *c, unsigned n_values)
{
    if (!c->left) {
        x_free(c->recs);
        x_free(c->st->bytes);
        c->recs = NULL;
        c->st->bytes = NULL;
        return false;
    }
    c->left--;
    if (c->recs) {
        c->cur = c->recs[c->next++];
        return true;
    }
    sb_stream_get(c->st->bytes, &c->pos, n_values, &c->cur);
    if (c->pos - c->released >= SB_RELEASE_STEP) {
        x_release(c->st->bytes, c->released, c->pos);
        c->released = c->pos;
    }
    return true;
}

static void
sb_sift_down(sb_cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && sb_cursor_less(h[l], h[m]))
            m = l;
        if (l + 1 < n && sb_cursor_less(h[l + 1], h[m]))
            m = l + 1;
        if (m == i)
            return;
        sb_cursor *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Merge streams s[0, n) (one group, ascending key) into fn. */
static void
sb_drain_group(sb_stream *s, size_t n, unsigned n_values, samplebuf_fn *fn, void *ctx)
{
    sb_cursor *cs = xcalloc(n, sizeof *cs);        /* freed below */
    sb_cursor **heap = xcalloc(n, sizeof *heap);   /* freed below */
    size_t nh = 0;
    for (size_t i = 0; i < n; i++) {
        sb_cursor *c = &cs[i];
        c->st = &s[i];
        c->order = i;
        c->cur.key = s[i].key;
        if (!s[i].n)
            continue;
        if (!s[i].sorted) {
            /* Out of order (a log that breaks the per-capability order): this stream
             * alone decoded and sorted, stably, its bytes freed first. */
            c->recs = xmalloc(s[i].n * sizeof *c->recs);    /* freed by sb_cursor_next */
            samplebuf_rec r = { .key = s[i].key };
            size_t pos = 0;
            for (size_t k = 0; k < s[i].n; k++) {
                sb_stream_get(s[i].bytes, &pos, n_values, &r);
                c->recs[k] = r;
            }
            x_free(s[i].bytes);
            s[i].bytes = NULL;
            radixsort_by_u64_ties(c->recs, s[i].n, sizeof *c->recs,
                                  offsetof(samplebuf_rec, time_ns), sb_rec_cmp);
        }
        c->left = s[i].n;
        sb_cursor_next(c, n_values);
        heap[nh++] = c;
    }
    for (size_t i = nh / 2; i-- > 0;)
        sb_sift_down(heap, nh, i);
    while (nh) {
        sb_cursor *c = heap[0];
        fn(ctx, &c->cur);
        if (!sb_cursor_next(c, n_values))
            heap[0] = heap[--nh];
        sb_sift_down(heap, nh, 0);
    }
    x_free(heap);
    x_free(cs);
}

void
samplebuf_drain(samplebuf *sb, unsigned group_shift, samplebuf_fn *fn, void *ctx)
{
    /* The table goes first: the streams are reordered by key. */
    x_free(sb->slot);
    sb->slot = NULL;
    sb->n_slots = 0;
    if (sb->n_s > 1)            /* (none: a split may leave a buffer without streams) */
        qsort(sb->s, sb->n_s, sizeof *sb->s, sb_key_cmp);
    for (size_t i = 0; i < sb->n_s;) {
        uint32_t g = group_shift >= 32 ? 0 : sb->s[i].key >> group_shift;
        size_t j = i + 1;
        while (j < sb->n_s && (group_shift >= 32 ? 0 : sb->s[j].key >> group_shift) == g)
            j++;
        sb_drain_group(sb->s + i, j - i, sb->n_values, fn, ctx);
        i = j;
    }
    sb_clear(sb);
}
