/* series: (time, value) samples in time order, bit-packed 64 to a chunk, with a min/max
 * pyramid: level 0 is each packed chunk's min/max, level L+1 pairs of level L, so a range
 * query decodes at most two chunks and visits O(log n) pyramid nodes. */
#include "series.h"

#include <stdio.h>
#include <string.h>

#include "bitpack.h"
#include "checkfail.h"
#include "xalloc.h"

#define SERIES_CHUNK_SHIFT 6
#define SERIES_CHUNK ((size_t)1 << SERIES_CHUNK_SHIFT)
/* Level L has ceil(n / 64 / 2^L) nodes; 64 levels cover any size_t count. */
#define SERIES_MAX_LEVELS 64
#define SERIES_SIGN ((uint64_t)1 << 63)

/* Samples [64k, 64k + 64) are chunk k. Every chunk but the last is packed; the last, with
 * 0..63 samples, is open: raw times and values in the struct, packed when it fills.
 *
 * A packed chunk's bits in `words`, from its bit position: the time column, then the
 * value column. A column codes x_0..x_63 against a reference r (times: the chunk's first
 * time; values: the chunk's min), all modulo 2^64 so that any input codes exactly:
 *   FOR:   64 fields of w bits, x_j - r;
 *   DELTA: a (7 bits), x_0 - r (a bits); b (7 bits), zigzag(d) (b bits), d the least
 *          delta taken as signed; 63 fields of w bits, x_j - x_{j-1} - d.
 * Each column takes the shorter mode; w is as small as its fields allow. Chunks lie back
 * to back; bits of `words` past n_bits are zero (the writer ORs into them), and there is
 * a word past the one holding bit n_bits, so a field read may take two words. */
#define SERIES_POS_BITS 48      /* 2^48 bits is 32 TiB: allocation fails long before */
#define SERIES_LEN_BITS 7       /* a length 0..64 */
#define SERIES_MAX_CHUNK_BITS (2 * (2 * (SERIES_LEN_BITS + 64) + SERIES_CHUNK * 64))

typedef struct series_mm {
    uint64_t min, max;
} series_mm;

typedef struct series_level {
    series_mm *mm;              /* owned */
    size_t n, cap;
} series_level;

typedef struct series_chunk {
    uint64_t t0;                /* time of its first sample */
    series_mm mm;               /* of its values: pyramid level 0; min is the values' r */
    uint64_t meta;              /* bit position, widths and modes: series_meta_* */
} series_chunk;

struct series {
    series_chunk *ch;           /* owned: the packed chunks */
    size_t n_ch, cap_ch;
    uint64_t *words;            /* owned: their bits */
    size_t cap_words;
    uint64_t n_bits;
    uint64_t open_t[SERIES_CHUNK], open_v[SERIES_CHUNK];  /* the open chunk */
    size_t n_open;              /* < SERIES_CHUNK */
    uint64_t last_t;            /* time of the last sample (0 while empty) */
    uint64_t max_value;         /* 0 while empty */
    series_level up[SERIES_MAX_LEVELS - 1];     /* pyramid levels 1.. */
    unsigned n_levels;          /* levels in use, level 0 included; the top has one node */
};

/* One column of a packed chunk, parsed. */
typedef struct series_col {
    uint64_t pos;               /* bit position of the first field */
    uint64_t end;               /* bit position past the column */
    uint64_t base;              /* FOR: r; DELTA: x_0 */
    uint64_t d;                 /* DELTA: the least delta */
    uint64_t mask;              /* w ones */
    unsigned w, a, b;           /* DELTA: a and b are the two lengths */
    bool delta;
} series_col;

series *
series_new(void)
{
    series *s = xcalloc(1, sizeof *s);      /* caller frees with series_free */
    return s;
}

void
series_free(series *s)
{
    if (!s)
        return;
    x_big_free(s->ch, s->cap_ch * sizeof *s->ch);
    x_big_free(s->words, s->cap_words * sizeof *s->words);
    for (unsigned l = 0; l + 1 < SERIES_MAX_LEVELS; l++)
        x_free(s->up[l].mm);
    x_free(s);
}

/* ---- bits ---- */

static uint64_t
series_zigzag(uint64_t d)
{
    return d << 1 ^ (0 - (d >> 63));
}

static uint64_t
series_unzigzag(uint64_t z)
{
    return z >> 1 ^ (0 - (z & 1));
}

/* Words for n bits of data and the padding: any field at bit pos <= n reads word
 * pos / 64 + 1. */
static size_t
series_words_for(uint64_t n_bits)
{
    return (size_t)(n_bits >> 6) + 2;
}

/* Append x (< 2^w) at n_bits; the words are reserved and zero there. */
static void
series_bits_put(series *s, uint64_t x, unsigned w)
{
    bitpack_put(s->words, s->n_bits, x, w);
    s->n_bits += w;
}

static uint64_t
series_meta(uint64_t pos, unsigned tw, bool td, unsigned vw, bool vd)
{
    return pos | (uint64_t)tw << 48 | (uint64_t)vw << 55 | (uint64_t)td << 62 |
           (uint64_t)vd << 63;
}

static uint64_t
series_meta_pos(uint64_t m)
{
    return m & ((UINT64_C(1) << SERIES_POS_BITS) - 1);
}

static unsigned
series_meta_tw(uint64_t m)
{
    return (unsigned)(m >> 48 & 127);
}

static unsigned
series_meta_vw(uint64_t m)
{
    return (unsigned)(m >> 55 & 127);
}

/* ---- coding a chunk ---- */

typedef struct series_plan {
    bool delta;
    unsigned w, a, b;
    uint64_t d;
} series_plan;

/* The shorter coding of x_0..x_63 against r. */
static series_plan
series_plan_col(const uint64_t *x, uint64_t r)
{
    uint64_t any = 0, lo = UINT64_MAX, hi = 0;
    for (size_t j = 0; j < SERIES_CHUNK; j++)
        any |= x[j] - r;                    /* as long as the largest */
    for (size_t j = 1; j < SERIES_CHUNK; j++) {
        /* Flipping the sign bit orders signed deltas as unsigned ones. */
        uint64_t u = (x[j] - x[j - 1]) ^ SERIES_SIGN;
        lo = u < lo ? u : lo;
        hi = u > hi ? u : hi;
    }
    series_plan p = { .w = bitpack_width(any) };
    uint64_t d = lo ^ SERIES_SIGN;
    unsigned w = bitpack_width(hi - lo), a = bitpack_width(x[0] - r);
    unsigned b = bitpack_width(series_zigzag(d));
    if (2 * SERIES_LEN_BITS + a + b + (SERIES_CHUNK - 1) * w < SERIES_CHUNK * p.w)
        p = (series_plan){ .delta = true, .w = w, .a = a, .b = b, .d = d };
    return p;
}

static void
series_put_col(series *s, const uint64_t *x, uint64_t r, const series_plan *p)
{
    if (!p->delta) {
        for (size_t j = 0; j < SERIES_CHUNK; j++)
            series_bits_put(s, x[j] - r, p->w);
        return;
    }
    series_bits_put(s, p->a, SERIES_LEN_BITS);
    series_bits_put(s, x[0] - r, p->a);
    series_bits_put(s, p->b, SERIES_LEN_BITS);
    series_bits_put(s, series_zigzag(p->d), p->b);
    for (size_t j = 1; j < SERIES_CHUNK; j++)
        series_bits_put(s, x[j] - x[j - 1] - p->d, p->w);
}

/* Code 64 samples at the end of `words`; their header. */
static series_chunk
series_code_chunk(series *s, const uint64_t *t, const uint64_t *v)
{
    series_mm mm = { UINT64_MAX, 0 };
    for (size_t j = 0; j < SERIES_CHUNK; j++) {
        mm.min = v[j] < mm.min ? v[j] : mm.min;
        mm.max = v[j] > mm.max ? v[j] : mm.max;
    }
    size_t need = series_words_for(s->n_bits + SERIES_MAX_CHUNK_BITS);
    if (need > s->cap_words) {
        size_t cap = s->cap_words + s->cap_words / 2;
        cap = cap < need ? need : cap;
        /* Other allocations follow it while the build places samples: moved, not
         * copied (no hole, nothing held twice), its new room zero. */
        s->words = x_big_resize(s->words, s->cap_words * sizeof *s->words,
                                cap * sizeof *s->words);                   /* owned by s */
        s->cap_words = cap;
    }
    series_plan pt = series_plan_col(t, t[0]), pv = series_plan_col(v, mm.min);
    uint64_t pos = s->n_bits;
    series_put_col(s, t, t[0], &pt);
    series_put_col(s, v, mm.min, &pv);
    return (series_chunk){ t[0], mm, series_meta(pos, pt.w, pt.delta, pv.w, pv.delta) };
}

/* Parse a column at pos; false if it would run past n_bits or a length is over 64. */
static bool
series_parse_col(const series *s, uint64_t pos, uint64_t r, unsigned w, bool delta,
                 series_col *c)
{
    *c = (series_col){ .pos = pos, .base = r, .w = w, .delta = delta };
    if (w > 64)
        return false;
    c->mask = bitpack_mask(w);
    if (delta) {
        unsigned len[2];
        uint64_t val[2];
        for (int k = 0; k < 2; k++) {
            if (s->n_bits - c->pos < SERIES_LEN_BITS)
                return false;
            len[k] = (unsigned)bitpack_get_masked(s->words, c->pos, bitpack_mask(SERIES_LEN_BITS));
            c->pos += SERIES_LEN_BITS;
            if (len[k] > 64 || s->n_bits - c->pos < len[k])
                return false;
            val[k] = bitpack_get_masked(s->words, c->pos, bitpack_mask(len[k]));
            c->pos += len[k];
        }
        c->a = len[0];
        c->b = len[1];
        c->base = r + val[0];
        c->d = series_unzigzag(val[1]);
    }
    uint64_t n_fields = delta ? SERIES_CHUNK - 1 : SERIES_CHUNK;
    if ((s->n_bits - c->pos) / n_fields < w)
        return false;
    c->end = c->pos + n_fields * w;
    return true;
}

/* The columns of packed chunk k. */
static void
series_cols(const series *s, size_t k, series_col *tc, series_col *vc)
{
    uint64_t m = s->ch[k].meta;
    series_parse_col(s, series_meta_pos(m), s->ch[k].t0, series_meta_tw(m), m >> 62 & 1, tc);
    if (vc)
        series_parse_col(s, tc->end, s->ch[k].mm.min, series_meta_vw(m), m >> 63, vc);
}

/* x_j of a column. */
static uint64_t
series_col_at(const series *s, const series_col *c, size_t j)
{
    if (!c->delta)
        return c->base + bitpack_get_masked(s->words, c->pos + j * c->w, c->mask);
    uint64_t x = c->base + j * c->d, p = c->pos;
    for (size_t i = 0; i < j; i++, p += c->w)
        x += bitpack_get_masked(s->words, p, c->mask);
    return x;
}

/* x_0..x_{to-1} of a column into out. */
static void
series_col_decode(const series *s, const series_col *c, size_t to, uint64_t *out)
{
    uint64_t p = c->pos;
    if (!c->delta) {
        for (size_t j = 0; j < to; j++, p += c->w)
            out[j] = c->base + bitpack_get_masked(s->words, p, c->mask);
        return;
    }
    uint64_t x = c->base;
    if (to)
        out[0] = x;
    for (size_t j = 1; j < to; j++, p += c->w) {
        x += c->d + bitpack_get_masked(s->words, p, c->mask);
        out[j] = x;
    }
}

/* ---- the pyramid ---- */

static void
series_mm_fold(series_mm *m, series_mm x)
{
    if (x.min < m->min)
        m->min = x.min;
    if (x.max > m->max)
        m->max = x.max;
}

static series_mm
series_node(const series *s, unsigned l, size_t j)
{
    return l ? s->up[l - 1].mm[j] : s->ch[j].mm;
}

static size_t
series_level_n(const series *s, unsigned l)
{
    return l ? s->up[l - 1].n : s->n_ch;
}

/* Fold x into node j of level l >= 1, creating the node if it is the next one. */
static void
series_level_fold(series *s, unsigned l, size_t j, series_mm x)
{
    series_level *lv = &s->up[l - 1];
    if (j < lv->n) {
        series_mm_fold(&lv->mm[j], x);
        return;
    }
    if (lv->n == lv->cap) {
        lv->cap = lv->cap < 8 ? 8 : lv->cap * 2;
        lv->mm = xreallocarray(lv->mm, lv->cap, sizeof *lv->mm);   /* owned by s */
    }
    lv->mm[lv->n++] = x;
}

/* Chunk j (the last) was just packed: fold it into its ancestors. A level appears when
 * the one below gets its second node; its root then covers both. */
static void
series_pyramid_add(series *s, size_t j)
{
    series_mm x = s->ch[j].mm;
    if (s->n_levels == 0)
        s->n_levels = 1;
    for (unsigned l = 0; series_level_n(s, l) >= 2 && l + 1 < SERIES_MAX_LEVELS; l++) {
        if (series_level_n(s, l + 1) == 0) {
            series_mm root = series_node(s, l, 0);
            series_mm_fold(&root, series_node(s, l, 1));
            series_level_fold(s, l + 1, 0, root);
            s->n_levels = l + 2;
            return;
        }
        j >>= 1;
        series_level_fold(s, l + 1, j, x);
    }
}

/* ---- building ---- */

static void
series_pack_open(series *s)
{
    if (s->n_ch == s->cap_ch) {
        size_t cap = s->cap_ch < 16 ? 16 : s->cap_ch + s->cap_ch / 2;
        s->ch = x_big_resize(s->ch, s->cap_ch * sizeof *s->ch,
                             cap * sizeof *s->ch);                       /* owned by s */
        s->cap_ch = cap;
    }
    s->ch[s->n_ch] = series_code_chunk(s, s->open_t, s->open_v);
    series_pyramid_add(s, s->n_ch++);
    s->n_open = 0;
}

void
series_append(series *s, uint64_t time_ns, uint64_t value)
{
    if (time_ns < s->last_t)
        time_ns = s->last_t;
    s->last_t = time_ns;
    if (value > s->max_value)
        s->max_value = value;
    s->open_t[s->n_open] = time_ns;
    s->open_v[s->n_open] = value;
    if (++s->n_open == SERIES_CHUNK)
        series_pack_open(s);
}

void
series_truncate(series *s, size_t n)
{
    if (n >= series_count(s))
        return;
    size_t k = n >> SERIES_CHUNK_SHIFT;
    if (k < s->n_ch) {
        /* Chunk k opens again with its first n - 64k samples; its bits and those of
         * every later chunk are cleared (the writer ORs into zero bits). */
        series_col tc, vc;
        series_cols(s, k, &tc, &vc);
        series_col_decode(s, &tc, n - (k << SERIES_CHUNK_SHIFT), s->open_t);
        series_col_decode(s, &vc, n - (k << SERIES_CHUNK_SHIFT), s->open_v);
        uint64_t from = series_meta_pos(s->ch[k].meta);
        size_t w0 = (size_t)(from >> 6), w1 = series_words_for(s->n_bits);
        if (from & 63)
            s->words[w0++] &= ((uint64_t)1 << (from & 63)) - 1;
        if (w1 > w0)
            memset(s->words + w0, 0, (w1 - w0) * sizeof *s->words);
        s->n_bits = from;
        s->n_ch = k;
    }
    s->n_open = n - (k << SERIES_CHUNK_SHIFT);
    /* The pyramid over the chunks left: each level's last node is folded again from
     * its (one or two) children; a level with one node is the top. */
    unsigned levels = s->n_ch ? 1 : 0;
    for (unsigned l = 1; l < SERIES_MAX_LEVELS && series_level_n(s, l - 1) >= 2 &&
                         l <= s->n_levels - 1; l++) {
        size_t below = l == 1 ? s->n_ch : s->up[l - 2].n;
        size_t nodes = (below + 1) / 2;
        series_level *lv = &s->up[l - 1];
        lv->n = nodes;
        series_mm m = series_node(s, l - 1, 2 * (nodes - 1));
        if (2 * (nodes - 1) + 1 < below)
            series_mm_fold(&m, series_node(s, l - 1, 2 * (nodes - 1) + 1));
        lv->mm[nodes - 1] = m;
        levels = l + 1;
    }
    for (unsigned l = levels ? levels : 1; l < s->n_levels; l++)
        s->up[l - 1].n = 0;
    s->n_levels = levels;
    s->max_value = 0;
    if (s->n_ch)
        s->max_value = series_node(s, levels - 1, 0).max;
    for (size_t j = 0; j < s->n_open; j++)
        if (s->open_v[j] > s->max_value)
            s->max_value = s->open_v[j];
    s->last_t = n ? series_get(s, n - 1).time_ns : 0;
}

void
series_seal(series *s)
{
    if (s->cap_ch > s->n_ch && s->n_ch) {
        s->ch = x_big_resize(s->ch, s->cap_ch * sizeof *s->ch, s->n_ch * sizeof *s->ch);
        s->cap_ch = s->n_ch;
    }
    size_t nw = series_words_for(s->n_bits);
    if (s->cap_words > nw && s->n_bits) {
        s->words = x_big_resize(s->words, s->cap_words * sizeof *s->words,
                                nw * sizeof *s->words);
        s->cap_words = nw;
    }
    for (unsigned l = 0; l + 1 < s->n_levels; l++) {
        series_level *lv = &s->up[l];
        if (lv->cap > lv->n && lv->n) {
            lv->mm = xreallocarray(lv->mm, lv->n, sizeof *lv->mm);
            lv->cap = lv->n;
        }
    }
}

/* ---- queries ---- */

size_t
series_count(const series *s)
{
    return (s->n_ch << SERIES_CHUNK_SHIFT) + s->n_open;
}

series_sample
series_get(const series *s, size_t i)
{
    size_t k = i >> SERIES_CHUNK_SHIFT, j = i & (SERIES_CHUNK - 1);
    if (k >= s->n_ch)
        return k == s->n_ch && j < s->n_open ? (series_sample){ s->open_t[j], s->open_v[j] }
                                             : (series_sample){ 0, 0 };
    series_col tc, vc;
    series_cols(s, k, &tc, &vc);
    return (series_sample){ series_col_at(s, &tc, j), series_col_at(s, &vc, j) };
}

static bool
series_before(uint64_t x, uint64_t t, bool inclusive)
{
    return x < t || (inclusive && x == t);
}

/* Number of the n plain sorted times t_[] before t (inclusive: at or before t), counting
 * t_[0] as before it whatever its value (a chunk's first sample is, by the caller). */
static size_t
series_plain_count(const uint64_t *t_, size_t n, uint64_t t, bool inclusive)
{
    size_t lo = 1, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (series_before(t_[mid], t, inclusive))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Number of samples of chunk k with time < t (inclusive: <= t); its first one is. */
static size_t
series_count_in_chunk(const series *s, size_t k, uint64_t t, bool inclusive)
{
    if (k == s->n_ch)
        return series_plain_count(s->open_t, s->n_open, t, inclusive);
    series_col c;
    series_cols(s, k, &c, NULL);
    if (!c.delta) {
        size_t lo = 1, hi = SERIES_CHUNK;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (series_before(series_col_at(s, &c, mid), t, inclusive))
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    uint64_t x = c.base, p = c.pos;
    size_t j = 1;
    for (; j < SERIES_CHUNK; j++, p += c.w) {
        x += c.d + bitpack_get_masked(s->words, p, c.mask);
        if (!series_before(x, t, inclusive))
            break;
    }
    return j;
}

/* Number of samples with time < t (inclusive: time <= t). */
static size_t
series_count_before(const series *s, uint64_t t, bool inclusive)
{
    /* The last chunk whose first time is before t holds the answer. */
    size_t lo = 0, hi = s->n_ch;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (series_before(s->ch[mid].t0, t, inclusive))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == s->n_ch && s->n_open && series_before(s->open_t[0], t, inclusive))
        lo++;
    return lo ? ((lo - 1) << SERIES_CHUNK_SHIFT) + series_count_in_chunk(s, lo - 1, t, inclusive)
              : 0;
}

size_t
series_lower_bound(const series *s, uint64_t t)
{
    return series_count_before(s, t, false);
}

size_t
series_at(const series *s, uint64_t t)
{
    size_t k = series_count_before(s, t, true);
    return k ? k - 1 : SIZE_MAX;
}

/* ---- the sweep ---- */

struct series_sweep {
    const series *s;
    size_t k;                   /* the chunk decoded below (n_ch: the open one); SIZE_MAX:
                                 * none yet */
    size_t len;
    uint64_t t[SERIES_CHUNK], v[SERIES_CHUNK];
};

series_sweep *
series_sweep_new(const series *s)
{
    series_sweep *sw = xmalloc(sizeof *sw);     /* caller frees: series_sweep_free */
    sw->s = s;
    sw->k = SIZE_MAX;
    sw->len = 0;
    return sw;
}

void
series_sweep_free(series_sweep *sw)
{
    x_free(sw);
}

/* Decode chunk k (<= n_ch, the open one if any samples are in it) unless held. */
static void
series_sweep_load(series_sweep *sw, size_t k)
{
    const series *s = sw->s;
    if (k == sw->k)
        return;
    sw->k = k;
    if (k == s->n_ch) {
        sw->len = s->n_open;
        memcpy(sw->t, s->open_t, s->n_open * sizeof *sw->t);
        memcpy(sw->v, s->open_v, s->n_open * sizeof *sw->v);
        return;
    }
    series_col tc, vc;
    series_cols(s, k, &tc, &vc);
    series_col_decode(s, &tc, SERIES_CHUNK, sw->t);
    series_col_decode(s, &vc, SERIES_CHUNK, sw->v);
    sw->len = SERIES_CHUNK;
}

/* series_count_before through the sweep: the chunk held when it holds the answer, else
 * the search over the chunks' first times, then a search in the decoded chunk. */
static size_t
series_sweep_count(series_sweep *sw, uint64_t t, bool inclusive)
{
    const series *s = sw->s;
    size_t n_all = s->n_ch + (s->n_open > 0);
#define SERIES_FIRST_T(k) ((k) < s->n_ch ? s->ch[(k)].t0 : s->open_t[0])
    size_t k = sw->k;
    if (k == SIZE_MAX || k >= n_all || !series_before(SERIES_FIRST_T(k), t, inclusive) ||
        (k + 1 < n_all && series_before(SERIES_FIRST_T(k + 1), t, inclusive))) {
        size_t lo = 0, hi = n_all;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (series_before(SERIES_FIRST_T(mid), t, inclusive))
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            return 0;
        k = lo - 1;
    }
#undef SERIES_FIRST_T
    series_sweep_load(sw, k);
    return (k << SERIES_CHUNK_SHIFT) + series_plain_count(sw->t, sw->len, t, inclusive);
}

/* Sample i (< count) into *out, decoding its chunk. */
static void
series_sweep_sample(series_sweep *sw, size_t i, series_sample *out)
{
    series_sweep_load(sw, i >> SERIES_CHUNK_SHIFT);
    size_t j = i & (SERIES_CHUNK - 1);
    *out = (series_sample){ sw->t[j], sw->v[j] };
}

size_t
series_sweep_lower_bound(series_sweep *sw, uint64_t t, series_sample *out)
{
    size_t i = series_sweep_count(sw, t, false);
    if (i < series_count(sw->s))
        series_sweep_sample(sw, i, out);
    return i;
}

size_t
series_sweep_at(series_sweep *sw, uint64_t t, series_sample *out)
{
    size_t i = series_sweep_count(sw, t, true);
    if (!i)
        return SIZE_MAX;
    series_sweep_sample(sw, i - 1, out);
    return i - 1;
}

/* Fold the values of samples [from, to) of chunk k, from < to <= 64. */
static void
series_fold_chunk(const series *s, size_t k, size_t from, size_t to, series_mm *acc)
{
    uint64_t buf[SERIES_CHUNK];
    const uint64_t *v = s->open_v;
    if (k < s->n_ch) {
        series_col tc, vc;
        series_cols(s, k, &tc, &vc);
        if (vc.delta) {
            series_col_decode(s, &vc, to, buf);
        } else {
            for (size_t j = from; j < to; j++)
                buf[j] = vc.base + bitpack_get_masked(s->words, vc.pos + j * vc.w, vc.mask);
        }
        v = buf;
    }
    for (size_t j = from; j < to; j++)
        series_mm_fold(acc, (series_mm){ v[j], v[j] });
}

/* The least and largest values of whole packed chunks [a, b), b <= n_ch (the open one is
 * never whole), from the pyramid bottom-up: an odd edge node is taken at its level, the
 * rest is covered by parents. Folded into *acc. */
static void
series_chunks_fold(const series *s, size_t a, size_t b, series_mm *acc)
{
    for (unsigned l = 0; a < b && l < s->n_levels; l++) {
        if (a & 1)
            series_mm_fold(acc, series_node(s, l, a++));
        if (b & 1)
            series_mm_fold(acc, series_node(s, l, --b));
        a >>= 1;
        b >>= 1;
    }
}

bool
series_range(const series *s, uint64_t t0, uint64_t t1, uint64_t *min, uint64_t *max)
{
    if (t0 >= t1)
        return false;
    size_t lo = series_count_before(s, t0, false);
    size_t hi = series_count_before(s, t1, false);
    if (lo >= hi)
        return false;
    series_mm acc = { UINT64_MAX, 0 };
    size_t c0 = (lo + SERIES_CHUNK - 1) >> SERIES_CHUNK_SHIFT;     /* first whole chunk */
    size_t c1 = hi >> SERIES_CHUNK_SHIFT;                           /* past the last */
    if (c0 > c1) {
        series_fold_chunk(s, c1, lo & (SERIES_CHUNK - 1), hi & (SERIES_CHUNK - 1), &acc);
    } else {
        if (lo & (SERIES_CHUNK - 1))
            series_fold_chunk(s, c0 - 1, lo & (SERIES_CHUNK - 1), SERIES_CHUNK, &acc);
        if (hi & (SERIES_CHUNK - 1))
            series_fold_chunk(s, c1, 0, hi & (SERIES_CHUNK - 1), &acc);
        series_chunks_fold(s, c0, c1, &acc);
    }
    if (min)
        *min = acc.min;
    if (max)
        *max = acc.max;
    return true;
}


/* Chunks decoded for series_col_max_many: the two edge chunks a column may need. */
typedef struct series_cmm_slot {
    size_t k;                   /* SIZE_MAX: empty */
    size_t len;
    uint64_t t[SERIES_CHUNK], v[SERIES_CHUNK];
} series_cmm_slot;

/* Chunk k (< n_ch + 1: the open one) decoded in one of the two slots, reusing a slot
 * that holds it, else overwriting the one not used last (*last). */
static const series_cmm_slot *
series_cmm_load(const series *s, series_cmm_slot *slot, int *last, size_t k)
{
    for (int i = 0; i < 2; i++)
        if (slot[i].k == k) {
            *last = i;
            return &slot[i];
        }
    series_cmm_slot *x = &slot[*last ^ 1];
    *last ^= 1;
    x->k = k;
    if (k == s->n_ch) {
        x->len = s->n_open;
        memcpy(x->t, s->open_t, s->n_open * sizeof *x->t);
        memcpy(x->v, s->open_v, s->n_open * sizeof *x->v);
        return x;
    }
    series_col tc, vc;
    series_cols(s, k, &tc, &vc);
    series_col_decode(s, &tc, SERIES_CHUNK, x->t);
    series_col_decode(s, &vc, SERIES_CHUNK, x->v);
    x->len = SERIES_CHUNK;
    return x;
}

/* The walk of series_col_max_many, series_col_max_some and series_col_bounds_many: with
 * hi, bounds from the chunk headers into lo and hi; without, the exact largest value of
 * each column wanted (every one if want is NULL) into lo. */
static void
series_cols_scan(const series *s, const uint64_t *t, size_t n, const bool *want, uint64_t *lo,
                 uint64_t *hi, bool *any)
{
    memset(lo, 0, n * sizeof *lo);
    if (hi)
        memset(hi, 0, n * sizeof *hi);
    memset(any, 0, n * sizeof *any);
    size_t n_all = s->n_ch + (s->n_open ? 1 : 0);
    if (n == 0 || n_all == 0)
        return;
#define SERIES_FIRST_T(k) ((k) < s->n_ch ? s->ch[(k)].t0 : s->open_t[0])
    series_mm open_mm = { UINT64_MAX, 0 };
    for (size_t j = 0; j < s->n_open; j++)
        series_mm_fold(&open_mm, (series_mm){ s->open_v[j], s->open_v[j] });
#define SERIES_HMM(k) ((k) < s->n_ch ? s->ch[(k)].mm : open_mm)
    series_cmm_slot slot[2];
    slot[0].k = slot[1].k = SIZE_MAX;
    int last = 0;
    /* Edge e's chunk: one more than the last chunk whose first time is < t[e] (0: none),
     * galloping on from the edge before's. */
    size_t kq = 0;
    size_t ka = 0;              /* column c's left edge's */
    for (size_t c = 0; c <= n; c++) {
        uint64_t te = t[c];
        size_t k_lo = kq, step = 1;
        while (k_lo + step <= n_all && SERIES_FIRST_T(k_lo + step - 1) < te) {
            k_lo += step;
            step *= 2;
        }
        size_t k_hi = k_lo + step <= n_all ? k_lo + step : n_all + 1;
        while (k_hi - k_lo > 1) {   /* chunks before k_lo start before te, k_hi - 1's not */
            size_t mid = k_lo + (k_hi - k_lo) / 2;
            if (SERIES_FIRST_T(mid - 1) < te)
                k_lo = mid;
            else
                k_hi = mid;
        }
        kq = k_lo;
        if (c == 0) {
            ka = kq;
            continue;
        }
        size_t kb = kq, col = c - 1;
        if (kb == 0 || (want && !want[col])) {  /* none before t[col + 1], or not wanted */
            any[col] = kb > 0;
            ka = kb;
            continue;
        }
        any[col] = true;
        /* Chunks strictly between the edges' lie wholly in the column; the edge chunks
         * only partly: ka - 1 holds the value in force at t[col] (or a sample right at
         * it), and kb - 1 has a sample in the column. So the largest value is at least
         * the whole chunks' and kb - 1's least, and at most the largest of them all. */
        size_t w0 = ka, w1 = kb - 1;    /* whole chunks [w0, w1) */
        series_mm whole = { UINT64_MAX, 0 };
        series_chunks_fold(s, w0, w1, &whole);
        uint64_t m = whole.max;
        uint64_t b_lo = SERIES_HMM(kb - 1).min, b_hi = SERIES_HMM(kb - 1).max;
        b_lo = m > b_lo ? m : b_lo;
        b_hi = m > b_hi ? m : b_hi;
        if (ka > 0 && SERIES_HMM(ka - 1).max > b_hi)
            b_hi = SERIES_HMM(ka - 1).max;
        if (hi || b_lo == b_hi) {
            lo[col] = b_lo;
            if (hi)
                hi[col] = b_hi;
            ka = kb;
            continue;
        }
        uint64_t t0 = t[col], t1 = t[c];
        /* A sample right at t0 is the one in force (in an empty column, t0 == t1, none is
         * in it: the value in force before t0 stands). */
        bool at_t0 = t0 < t1 && ka < n_all && SERIES_FIRST_T(ka) == t0;
        if (ka > 0) {
            /* Chunk ka - 1: the value in force at t0 unless a sample is at t0, and its
             * samples from t0 on (before t1 when the column ends in it too). */
            const series_cmm_slot *x = series_cmm_load(s, slot, &last, ka - 1);
            size_t i = series_plain_count(x->t, x->len, t0, false);
            at_t0 = at_t0 || (t0 < t1 && i < x->len && x->t[i] == t0);
            if (!at_t0) {
                uint64_t v = x->v[i - 1];   /* i >= 1: the chunk starts before t0 */
                m = v > m ? v : m;
            }
            size_t end = ka == kb ? series_plain_count(x->t, x->len, t1, false) : x->len;
            for (size_t j = i; j < end; j++)
                m = x->v[j] > m ? x->v[j] : m;
        }
        if (kb > ka) {
            /* Chunk kb - 1 starts in the column: its samples before t1. */
            const series_cmm_slot *x = series_cmm_load(s, slot, &last, kb - 1);
            size_t end = series_plain_count(x->t, x->len, t1, false);
            for (size_t j = 0; j < end; j++)
                m = x->v[j] > m ? x->v[j] : m;
        }
        lo[col] = m;
        ka = kb;
    }
#undef SERIES_HMM
#undef SERIES_FIRST_T
}

void
series_col_max_many(const series *s, const uint64_t *t, size_t n, uint64_t *max, bool *any)
{
    series_cols_scan(s, t, n, NULL, max, NULL, any);
}

void
series_col_max_some(const series *s, const uint64_t *t, size_t n, const bool *want,
                    uint64_t *max, bool *any)
{
    series_cols_scan(s, t, n, want, max, NULL, any);
}

void
series_col_bounds_many(const series *s, const uint64_t *t, size_t n, uint64_t *lo,
                       uint64_t *hi, bool *any)
{
    series_cols_scan(s, t, n, NULL, lo, hi, any);
}

uint64_t
series_max(const series *s)
{
    return s->max_value;
}

size_t
series_bytes(const series *s)
{
    size_t b = sizeof *s + s->cap_ch * sizeof *s->ch + s->cap_words * sizeof *s->words;
    for (unsigned l = 0; l + 1 < s->n_levels; l++)
        b += s->up[l].cap * sizeof *s->up[l].mm;
    return b;
}

/* ---- checking ---- */

/* Decode packed chunk k into t and v after checking its coding: in bounds, where the
 * previous chunk ended (*pos, advanced past it), and what series_code_chunk would write
 * for what it decodes to (mode, widths, lengths, least delta). */
static bool
series_check_chunk(const series *s, size_t k, uint64_t *pos, uint64_t *t, uint64_t *v,
                   char *why, size_t why_len)
{
    uint64_t m = s->ch[k].meta;
    if (series_meta_pos(m) != *pos)
        return checkfail(why, why_len, "chunk %zu: coded at bit %llu, the previous ends at %llu",
                         k, (unsigned long long)series_meta_pos(m), (unsigned long long)*pos);
    series_col c[2];
    if (!series_parse_col(s, *pos, s->ch[k].t0, series_meta_tw(m), m >> 62 & 1, &c[0]) ||
        !series_parse_col(s, c[0].end, s->ch[k].mm.min, series_meta_vw(m), m >> 63, &c[1]))
        return checkfail(why, why_len, "chunk %zu: coding runs past bit %llu", k,
                         (unsigned long long)s->n_bits);
    series_col_decode(s, &c[0], SERIES_CHUNK, t);
    series_col_decode(s, &c[1], SERIES_CHUNK, v);
    uint64_t vmin = UINT64_MAX;
    for (size_t j = 0; j < SERIES_CHUNK; j++)
        vmin = v[j] < vmin ? v[j] : vmin;
    series_plan p[2] = { series_plan_col(t, t[0]), series_plan_col(v, vmin) };
    for (int i = 0; i < 2; i++) {
        const series_col *x = &c[i];
        if (p[i].delta != x->delta || p[i].w != x->w ||
            (x->delta && (p[i].a != x->a || p[i].b != x->b || p[i].d != x->d)))
            return checkfail(why, why_len, "chunk %zu: %s column coded %s, width %u;"
                             " its samples code %s, width %u", k, i ? "value" : "time",
                             x->delta ? "DELTA" : "FOR", x->w, p[i].delta ? "DELTA" : "FOR",
                             p[i].w);
    }
    *pos = c[1].end;
    return true;
}

bool
series_check(const series *s, char *why, size_t why_len)
{
    if (s->n_ch > s->cap_ch || s->n_open >= SERIES_CHUNK)
        return checkfail(why, why_len, "%zu chunks (capacity %zu), %zu open samples",
                         s->n_ch, s->cap_ch, s->n_open);
    if (s->n_ch ? s->cap_words < series_words_for(s->n_bits) : s->n_bits != 0)
        return checkfail(why, why_len, "%llu bits in %zu words (%zu chunks)",
                         (unsigned long long)s->n_bits, s->cap_words, s->n_ch);
    for (size_t w = (size_t)(s->n_bits >> 6); w < s->cap_words; w++) {
        unsigned used = w == s->n_bits >> 6 ? (unsigned)(s->n_bits & 63) : 0;
        if (used ? s->words[w] >> used : s->words[w])
            return checkfail(why, why_len, "word %zu: bits set past the end at bit %llu", w,
                             (unsigned long long)s->n_bits);
    }

    uint64_t pos = 0, mx = 0, prev = 0, t[SERIES_CHUNK], v[SERIES_CHUNK];
    size_t n = series_count(s);
    for (size_t i = 0; i < n; i++) {
        size_t k = i >> SERIES_CHUNK_SHIFT, j = i & (SERIES_CHUNK - 1);
        if (k == s->n_ch) {
            t[j] = s->open_t[j];
            v[j] = s->open_v[j];
        } else if (j == 0) {
            if (!series_check_chunk(s, k, &pos, t, v, why, why_len))
                return false;
            series_mm r = { UINT64_MAX, 0 };
            for (size_t q = 0; q < SERIES_CHUNK; q++)
                series_mm_fold(&r, (series_mm){ v[q], v[q] });
            const series_mm *h = &s->ch[k].mm;
            if (t[0] != s->ch[k].t0 || h->min != r.min || h->max != r.max)
                return checkfail(why, why_len, "chunk %zu: first time %llu, min/max %llu/%llu;"
                                 " recount %llu, %llu/%llu", k,
                                 (unsigned long long)s->ch[k].t0,
                                 (unsigned long long)h->min, (unsigned long long)h->max,
                                 (unsigned long long)t[0], (unsigned long long)r.min,
                                 (unsigned long long)r.max);
        }
        if (i > 0 && t[j] < prev)
            return checkfail(why, why_len, "sample %zu: time %llu before sample %zu's %llu",
                             i, (unsigned long long)t[j], i - 1, (unsigned long long)prev);
        prev = t[j];
        mx = v[j] > mx ? v[j] : mx;
    }
    if (pos != s->n_bits)
        return checkfail(why, why_len, "chunks end at bit %llu, %llu bits in use",
                         (unsigned long long)pos, (unsigned long long)s->n_bits);
    if (s->last_t != prev)
        return checkfail(why, why_len, "last time %llu, recount %llu",
                         (unsigned long long)s->last_t, (unsigned long long)prev);
    if (s->max_value != mx)
        return checkfail(why, why_len, "max %llu, recount %llu",
                         (unsigned long long)s->max_value, (unsigned long long)mx);

    /* Level 0 is checked against the samples above; each node above against its
     * children. */
    unsigned levels = s->n_ch ? 1 : 0;
    for (unsigned l = 1; l < SERIES_MAX_LEVELS; l++) {
        size_t below = series_level_n(s, l - 1), expect = below > 1 ? (below + 1) / 2 : 0;
        const series_level *lv = &s->up[l - 1];
        if (lv->n != expect)
            return checkfail(why, why_len, "level %u: %zu nodes, want %zu", l, lv->n,
                             expect);
        if (lv->n > lv->cap)
            return checkfail(why, why_len, "level %u: beyond capacity", l);
        if (!expect)
            break;
        levels = l + 1;
        for (size_t j = 0; j < lv->n; j++) {
            series_mm r = series_node(s, l - 1, 2 * j);
            if (2 * j + 1 < below)
                series_mm_fold(&r, series_node(s, l - 1, 2 * j + 1));
            if (lv->mm[j].min != r.min || lv->mm[j].max != r.max)
                return checkfail(why, why_len, "level %u node %zu: min/max %llu/%llu,"
                                 " recount %llu/%llu", l, j,
                                 (unsigned long long)lv->mm[j].min,
                                 (unsigned long long)lv->mm[j].max,
                                 (unsigned long long)r.min, (unsigned long long)r.max);
        }
    }
    if (s->n_levels != levels)
        return checkfail(why, why_len, "%u levels, recount %u", s->n_levels, levels);
    return true;
}

/* Recode chunks k.. after changing sample j of chunk k to (tj, vj); the pyramid is left
 * as it was. */
static void
series_recode_from(series *s, size_t k, size_t j, uint64_t tj, uint64_t vj)
{
    size_t n = s->n_ch - k;
    uint64_t *t = xreallocarray(NULL, n * SERIES_CHUNK, sizeof *t);     /* freed below */
    uint64_t *v = xreallocarray(NULL, n * SERIES_CHUNK, sizeof *v);     /* freed below */
    for (size_t q = 0; q < n; q++) {
        series_col tc, vc;
        series_cols(s, k + q, &tc, &vc);
        series_col_decode(s, &tc, SERIES_CHUNK, t + q * SERIES_CHUNK);
        series_col_decode(s, &vc, SERIES_CHUNK, v + q * SERIES_CHUNK);
    }
    t[j] = tj;
    v[j] = vj;
    s->n_bits = series_meta_pos(s->ch[k].meta);
    size_t w0 = (size_t)((s->n_bits + 63) >> 6);
    if (s->n_bits & 63)
        s->words[w0 - 1] &= (UINT64_C(1) << (s->n_bits & 63)) - 1;
    memset(s->words + w0, 0, (s->cap_words - w0) * sizeof *s->words);
    for (size_t q = 0; q < n; q++)
        s->ch[k + q] = series_code_chunk(s, t + q * SERIES_CHUNK, v + q * SERIES_CHUNK);
    x_free(t);
    x_free(v);
}

bool
series_test_corrupt(series *s, series_corrupt what, size_t i)
{
    if (i >= series_count(s))
        return false;
    size_t k = i >> SERIES_CHUNK_SHIFT;
    switch (what) {
    case SERIES_CORRUPT_ORDER: {
        uint64_t ti = series_get(s, i).time_ns;
        if (i == 0 || ti == UINT64_MAX)
            return false;
        size_t h = i - 1;
        if (h >> SERIES_CHUNK_SHIFT == s->n_ch)
            s->open_t[h & (SERIES_CHUNK - 1)] = ti + 1;
        else
            series_recode_from(s, h >> SERIES_CHUNK_SHIFT, h & (SERIES_CHUNK - 1), ti + 1,
                               series_get(s, h).value);
        return true;
    }
    case SERIES_CORRUPT_CHUNK_MIN:
        if (k == s->n_ch || s->ch[k].mm.min == 0)
            return false;
        s->ch[k].mm.min--;
        return true;
    case SERIES_CORRUPT_TOP_MAX:
        if (!s->n_ch)
            return false;
        if (s->n_levels == 1)
            s->ch[0].mm.max ^= 1;
        else
            s->up[s->n_levels - 2].mm[0].max ^= 1;
        return true;
    case SERIES_CORRUPT_MAX:
        s->max_value ^= 1;
        return true;
    case SERIES_CORRUPT_WIDTH: {
        if (k == s->n_ch || series_meta_vw(s->ch[k].meta) == 64)
            return false;
        s->ch[k].meta += UINT64_C(1) << 55;
        return true;
    }
    case SERIES_CORRUPT_SLACK:
        if (s->n_bits >= (uint64_t)s->cap_words * 64)
            return false;
        s->words[s->n_bits >> 6] |= UINT64_C(1) << (s->n_bits & 63);
        return true;
    }
    return false;
}
