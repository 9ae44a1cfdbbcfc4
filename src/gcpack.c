/* gcpack: collections and parts as rows of uint64 codes (gcpack_tab, one per record
 * kind), a full chunk of rows bit-packed column after column: per column, its least
 * code (in the fewest bits) then every row's code minus it (in the fewest bits for the
 * chunk's largest); the partial last chunk is plain codes. The record <-> code mapping
 * is exact for every value: differences are zigzagged, and a field that may be unknown
 * (EVINDEX_NO_TIME) keeps code 0 for that. */
#include "gcpack.h"

#include <string.h>

#include "bitpack.h"
#include "checkfail.h"
#include "xalloc.h"

_Static_assert(GCPACK_CHUNK > 0 && (GCPACK_CHUNK & (GCPACK_CHUNK - 1)) == 0,
               "GCPACK_CHUNK must be a power of two");

/* Zero words after the packed ones: a read loads the word after the one it starts in. */
#define GCPACK_PAD 2

enum gc_col {
    /* gcpack_gc_brief's first */
    GC_START, GC_DUR, GC_REQUEST, GC_FLAGS, GC_GEN, GC_N_BRIEF,
    GC_STOPPING = GC_N_BRIEF, GC_CENSUS, GC_GSYNC, GC_COPIED, GC_SLOP, GC_FRAG, GC_PAR_MAX,
    GC_PAR_TOT, GC_PAR_BAL, GC_LIVE, GC_HEAP, GC_ALLOC, GC_THREADS, GC_FIRST_PART,
    GC_N_PARTS, GC_LEADER, GC_REQ_CAP, GC_SLOWEST, GC_N_COLS
};

enum part_col { PT_GC, PT_CAP, PT_START, PT_DUR, PT_STOP, PT_WORK, PT_WAIT, PT_N_COLS };

/* One kind of record as rows of n_cols codes. Packed chunk c (of n / GCPACK_CHUNK)
 * starts at word ck_word[c]; its layout is ck_w[c * 3 * n_cols ..]: n_cols widths of
 * the columns' bases, n_cols of their values, n_cols modes (tab_fit). */
typedef struct gcpack_tab {
    unsigned n_cols;
    uint64_t *words;            /* owned; packed chunks, then GCPACK_PAD zero words */
    size_t n_words, cap_words;
    uint32_t *ck_word;          /* owned; per packed chunk */
    uint32_t *ck_off;           /* owned; per packed chunk, n_cols: the bit (from its
                                 * first word) where each column begins */
    uint8_t *ck_w;              /* owned; per packed chunk, 3 * n_cols */
    size_t cap_ck;
    uint64_t *open;             /* owned; the partial chunk's rows, n_cols codes each */
    size_t cap_open;            /* rows */
    size_t n;
} gcpack_tab;

struct gcpack {
    gcpack_tab gcs, parts;
};

/* --- codes --------------------------------------------------------------------------- */

static inline uint64_t
zz(uint64_t d)
{
    return d << 1 ^ (uint64_t)-(d >> 63);
}

static inline uint64_t
unzz(uint64_t c)
{
    return c >> 1 ^ (uint64_t)-(c & 1);
}

/* v relative to pred, zigzagged; EVINDEX_NO_TIME is 0 and the codes above it are the
 * zigzagged differences of every other value (skipping the one NO_TIME would take). */
static inline uint64_t
nz_enc(uint64_t v, uint64_t pred)
{
    if (v == EVINDEX_NO_TIME)
        return 0;
    uint64_t d = zz(v - pred), dn = zz(EVINDEX_NO_TIME - pred);
    return d < dn ? d + 1 : d;
}

static inline uint64_t
nz_dec(uint64_t c, uint64_t pred)
{
    if (c == 0)
        return EVINDEX_NO_TIME;
    uint64_t dn = zz(EVINDEX_NO_TIME - pred);
    return pred + unzz(c - 1 < dn ? c - 1 : c);
}

/* A 16-bit value whose all-ones means unknown: unknown is 0, v is v + 1. */
static inline uint64_t
u16_enc(uint16_t v)
{
    return (uint16_t)(v + 1u);
}

static inline uint16_t
u16_dec(uint64_t c)
{
    return (uint16_t)(c - 1u);
}

static void
gc_encode(const evindex_gc *g, uint64_t *c)
{
    uint64_t to_start = g->start_ns - g->request_ns;
    c[GC_START] = g->start_ns;
    c[GC_DUR] = zz(g->end_ns - g->start_ns);
    c[GC_REQUEST] = zz(to_start);
    c[GC_STOPPING] = nz_enc(g->stopping_ns, to_start);
    c[GC_CENSUS] = g->census_ns;
    c[GC_GSYNC] = nz_enc(g->global_sync_ns, g->end_ns);   /* the sync is near the end */
    c[GC_COPIED] = g->copied;
    c[GC_SLOP] = g->slop;
    c[GC_FRAG] = g->frag;
    c[GC_PAR_TOT] = zz(g->par_tot_copied - g->copied);
    c[GC_PAR_MAX] = g->par_max_copied;
    c[GC_PAR_BAL] = g->par_balanced;
    c[GC_LIVE] = g->live_after + 1;        /* unknown (all ones) is 0 */
    c[GC_HEAP] = g->heap_after + 1;
    c[GC_ALLOC] = g->allocated_before + 1;
    c[GC_THREADS] = g->par_threads;
    c[GC_FIRST_PART] = g->first_part;
    c[GC_N_PARTS] = g->n_parts;
    c[GC_GEN] = u16_enc(g->gen);
    c[GC_LEADER] = u16_enc(g->leader_cap);
    c[GC_REQ_CAP] = u16_enc(g->request_cap);
    c[GC_SLOWEST] = u16_enc(g->slowest_cap);
    c[GC_FLAGS] = g->flags;
}

static void
gc_decode(const uint64_t *c, evindex_gc *g)
{
    memset(g, 0, sizeof *g);
    g->start_ns = c[GC_START];
    g->end_ns = g->start_ns + unzz(c[GC_DUR]);
    uint64_t to_start = unzz(c[GC_REQUEST]);
    g->request_ns = g->start_ns - to_start;
    g->stopping_ns = nz_dec(c[GC_STOPPING], to_start);
    g->census_ns = c[GC_CENSUS];
    g->global_sync_ns = nz_dec(c[GC_GSYNC], g->end_ns);
    g->copied = c[GC_COPIED];
    g->slop = c[GC_SLOP];
    g->frag = c[GC_FRAG];
    g->par_tot_copied = g->copied + unzz(c[GC_PAR_TOT]);
    g->par_max_copied = c[GC_PAR_MAX];
    g->par_balanced = c[GC_PAR_BAL];
    g->live_after = c[GC_LIVE] - 1;
    g->heap_after = c[GC_HEAP] - 1;
    g->allocated_before = c[GC_ALLOC] - 1;
    g->par_threads = (uint32_t)c[GC_THREADS];
    g->first_part = (uint32_t)c[GC_FIRST_PART];
    g->n_parts = (uint32_t)c[GC_N_PARTS];
    g->gen = u16_dec(c[GC_GEN]);
    g->leader_cap = u16_dec(c[GC_LEADER]);
    g->request_cap = u16_dec(c[GC_REQ_CAP]);
    g->slowest_cap = u16_dec(c[GC_SLOWEST]);
    g->flags = (uint8_t)c[GC_FLAGS];
}

/* A part's times are kept relative to its collection's (the one appended before it,
 * gc + 1 in PT_GC, 0 for none): g_start and g_dur, its start and pause. */
static void
part_encode(const evindex_gc_part *p, uint64_t gc, uint64_t g_start, uint64_t g_dur,
            uint64_t *c)
{
    uint64_t dur = p->end_ns - p->start_ns;
    c[PT_GC] = gc;
    c[PT_CAP] = u16_enc(p->cap);
    c[PT_START] = zz(p->start_ns - g_start);
    c[PT_DUR] = zz(dur - g_dur);
    c[PT_STOP] = zz(p->start_ns - p->stop_ns);
    c[PT_WORK] = p->work_ns;
    /* Work and waiting usually fill the span (a census is outside both). */
    c[PT_WAIT] = zz(p->wait_ns - (dur - p->work_ns));
}

static void
part_decode(const uint64_t *c, uint64_t g_start, uint64_t g_dur, evindex_gc_part *p)
{
    memset(p, 0, sizeof *p);
    p->cap = u16_dec(c[PT_CAP]);
    p->start_ns = g_start + unzz(c[PT_START]);
    uint64_t dur = g_dur + unzz(c[PT_DUR]);
    p->end_ns = p->start_ns + dur;
    p->stop_ns = p->start_ns - unzz(c[PT_STOP]);
    p->work_ns = c[PT_WORK];
    p->wait_ns = dur - p->work_ns + unzz(c[PT_WAIT]);
}

/* --- one table of codes -------------------------------------------------------------- */

/* Column k of a packed chunk: its least code `base` in wb bits, then each row's code
 * minus base, shifted right by `shift` (the zero bits every difference ends with), in
 * wv bits: every row's (dense), or, when most rows hold the base (sparse), a bitmap of
 * the rows that do not and theirs alone, less one. */
typedef struct tab_fit {
    uint64_t base;
    uint8_t wb, wv, shift;
    bool sparse;
    unsigned nnz;               /* rows whose code is not the base */
} tab_fit;

#define TAB_SPARSE 0x80         /* in a column's mode byte, beside the shift */

static size_t
tab_packed(const gcpack_tab *t)
{
    return t->n / GCPACK_CHUNK;
}

static void
tab_free(gcpack_tab *t)
{
    x_big_free(t->words, t->cap_words * sizeof *t->words);
    x_free(t->ck_word);
    x_free(t->ck_off);
    x_free(t->ck_w);
    x_free(t->open);
}

/* Room for a whole chunk of open rows. */
static void
tab_open_room(gcpack_tab *t)
{
    if (t->cap_open < GCPACK_CHUNK) {
        t->cap_open = GCPACK_CHUNK;
        t->open = xreallocarray(t->open, t->cap_open * t->n_cols, sizeof *t->open);
        /* owned by t */
    }
}

/* Set bits among the first n bits at `bit`. */
static unsigned
tab_rank(const uint64_t *w, uint64_t bit, uint64_t n)
{
    unsigned r = 0;
    for (; n >= 64; n -= 64, bit += 64)
        r += bitpack_popcount(bitpack_get(w, bit, 64));
    return r + bitpack_popcount(bitpack_get(w, bit, (unsigned)n));
}

/* Column k of packed chunk ck as laid out (fit->base read from the words; not nnz);
 * returns the bit where it begins. */
static uint64_t
tab_col(const gcpack_tab *t, size_t ck, unsigned k, tab_fit *f)
{
    const uint8_t *m = t->ck_w + ck * 3 * t->n_cols;
    uint64_t bit = t->ck_off[ck * t->n_cols + k];
    f->wb = m[k];
    f->wv = m[t->n_cols + k];
    f->shift = m[2 * t->n_cols + k] & (TAB_SPARSE - 1);
    f->sparse = m[2 * t->n_cols + k] & TAB_SPARSE;
    f->base = bitpack_get(t->words + t->ck_word[ck], bit, f->wb);
    return bit;
}

_Static_assert(GCPACK_CHUNK == 128, "a sparse column's bitmap is two words");

/* Row j's code in a sparse column whose bitmap starts at `bit`. */
static inline uint64_t
tab_cell_sparse(const uint64_t *w, uint64_t bit, uint64_t base, unsigned wv, unsigned shift,
                uint64_t j)
{
    uint64_t lo = bitpack_get_masked(w, bit, UINT64_MAX);
    uint64_t word = j < 64 ? lo : bitpack_get_masked(w, bit + 64, UINT64_MAX);
    unsigned jj = (unsigned)(j & 63);
    if (!(word >> jj & 1))
        return base;
    uint64_t r = bitpack_popcount(jj ? word << (64 - jj) : 0);   /* set below j */
    r += j < 64 ? 0 : bitpack_popcount(lo);
    return base + ((bitpack_get(w, bit + GCPACK_CHUNK + r * wv, wv) + 1) << shift);
}

/* Row j's code in the column laid out by f whose base started at `bit`. */
static uint64_t
tab_cell(const uint64_t *w, uint64_t bit, const tab_fit *f, uint64_t j)
{
    bit += f->wb;
    if (!f->sparse)
        return f->base + (bitpack_get(w, bit + j * f->wv, f->wv) << f->shift);
    return tab_cell_sparse(w, bit, f->base, f->wv, f->shift, j);
}

/* The first n_cols columns of row i (< n) into c[n_cols]. */
static void
tab_get_n(const gcpack_tab *t, size_t i, uint64_t *c, unsigned n_cols)
{
    size_t ck = i / GCPACK_CHUNK;
    if (ck >= tab_packed(t)) {
        memcpy(c, t->open + (i % GCPACK_CHUNK) * t->n_cols, n_cols * sizeof *c);
        return;
    }
    /* tab_col and tab_cell, unrolled for the common dense column (the read path of
     * every record: kept to a few loads and shifts a column, masks from a table). */
    static const uint64_t mask[65] = {
#define GP_M(k) (k ? UINT64_MAX >> (64 - (k)) : 0)
#define GP_M8(k) GP_M(k), GP_M(k + 1), GP_M(k + 2), GP_M(k + 3), GP_M(k + 4), GP_M(k + 5), \
                 GP_M(k + 6), GP_M(k + 7)
        GP_M8(0), GP_M8(8), GP_M8(16), GP_M8(24), GP_M8(32), GP_M8(40), GP_M8(48), GP_M8(56),
        UINT64_MAX,
#undef GP_M8
#undef GP_M
    };
    const uint64_t *w = t->words + t->ck_word[ck];
    const uint8_t *wb = t->ck_w + ck * 3 * t->n_cols, *wv = wb + t->n_cols;
    const uint8_t *mode = wv + t->n_cols;
    const uint32_t *off = t->ck_off + ck * t->n_cols;
    uint64_t j = i % GCPACK_CHUNK;
    for (unsigned k = 0; k < n_cols; k++) {
        uint64_t bit = off[k];
        uint64_t base = bitpack_get_masked(w, bit, mask[wb[k]]);
        bit += wb[k];
        if (!(mode[k] & TAB_SPARSE)) {
            c[k] = base + (bitpack_get_masked(w, bit + j * wv[k], mask[wv[k]]) << mode[k]);
            continue;
        }
        c[k] = tab_cell_sparse(w, bit, base, wv[k], mode[k] & (TAB_SPARSE - 1), j);
    }
}

/* Row i (< n) into c[t->n_cols]. */
static void
tab_get(const gcpack_tab *t, size_t i, uint64_t *c)
{
    tab_get_n(t, i, c, t->n_cols);
}

/* Column 0 of row i (< n). */
static uint64_t
tab_get0(const gcpack_tab *t, size_t i)
{
    size_t ck = i / GCPACK_CHUNK;
    if (ck >= tab_packed(t))
        return t->open[(i % GCPACK_CHUNK) * t->n_cols];
    tab_fit f;
    uint64_t bit = tab_col(t, ck, 0, &f);
    return tab_cell(t->words + t->ck_word[ck], bit, &f, i % GCPACK_CHUNK);
}

/* Bits column f takes. */
static uint64_t
tab_fit_bits(const tab_fit *f)
{
    return f->wb + (f->sparse ? GCPACK_CHUNK + (uint64_t)f->nnz * f->wv
                              : (uint64_t)GCPACK_CHUNK * f->wv);
}

/* The fewest bits for column k of rows[GCPACK_CHUNK]. */
static void
tab_fit_col(const gcpack_tab *t, const uint64_t *rows, unsigned k, tab_fit *f)
{
    /* One pass: the values' differences from the first have the same lowest set bit as
     * their differences from the least (all are congruent modulo a power of two or
     * none), and the rows not at the least are those not counted at it. */
    const uint64_t v0 = rows[k];
    uint64_t lo = v0, hi = v0, any = 0;
    unsigned at_lo = 0;
    for (size_t j = 0; j < GCPACK_CHUNK; j++) {
        uint64_t v = rows[j * t->n_cols + k];
        any |= v - v0;
        if (v < lo) {
            lo = v;
            at_lo = 0;
        }
        at_lo += v == lo;
        hi = v > hi ? v : hi;
    }
    unsigned nnz = GCPACK_CHUNK - at_lo;
    f->base = lo;
    f->wb = (uint8_t)bitpack_width(lo);
    f->shift = any ? (uint8_t)__builtin_ctzll(any) : 0;
    f->nnz = nnz;
    f->sparse = false;
    f->wv = (uint8_t)bitpack_width((hi - lo) >> f->shift);
    tab_fit sp = *f;
    sp.sparse = true;
    sp.wv = (uint8_t)bitpack_width(((hi - lo) >> f->shift) - (nnz != 0));
    if (tab_fit_bits(&sp) < tab_fit_bits(f))
        *f = sp;
}

/* Pack the open rows, a chunk that has just filled (n is a multiple of GCPACK_CHUNK). */
static void
tab_pack(gcpack_tab *t)
{
    size_t ck = t->n / GCPACK_CHUNK - 1, old_cap = t->cap_ck;
    xgrowarray((void **)&t->ck_word, &t->cap_ck, ck + 1, 16, sizeof *t->ck_word);
    if (t->cap_ck != old_cap) { /* ck_w, ck_off follow ck_word's capacity; owned by t */
        t->ck_w = xreallocarray(t->ck_w, t->cap_ck * 3 * t->n_cols, 1);
        t->ck_off = xreallocarray(t->ck_off, t->cap_ck * t->n_cols, sizeof *t->ck_off);
    }
    uint32_t *off = t->ck_off + ck * t->n_cols;
    uint8_t *m = t->ck_w + ck * 3 * t->n_cols;
    tab_fit fit[32];
    uint64_t bits = 0;
    for (unsigned k = 0; k < t->n_cols; k++) {
        tab_fit_col(t, t->open, k, &fit[k]);
        m[k] = fit[k].wb;
        m[t->n_cols + k] = fit[k].wv;
        m[2 * t->n_cols + k] = (uint8_t)(fit[k].shift | (fit[k].sparse ? TAB_SPARSE : 0));
        bits += tab_fit_bits(&fit[k]);
    }
    size_t need = (size_t)((bits + 63) / 64);
    /* Grown through the whole join, other tables allocated after it: moved, not copied
     * (no hole, nothing held twice). */
    x_big_growarray((void **)&t->words, &t->cap_words, t->n_words + need + GCPACK_PAD, 256,
                    sizeof *t->words);
    uint64_t *w = t->words + t->n_words;
    memset(w, 0, (need + GCPACK_PAD) * sizeof *w);
    uint64_t bit = 0;
    for (unsigned k = 0; k < t->n_cols; k++) {
        const tab_fit *f = &fit[k];
        off[k] = (uint32_t)bit;
        bitpack_put(w, bit, f->base, f->wb);
        bit += f->wb;
        uint64_t at = f->sparse ? bit + GCPACK_CHUNK : bit;
        for (size_t j = 0; j < GCPACK_CHUNK; j++) {
            uint64_t d = (t->open[j * t->n_cols + k] - f->base) >> f->shift;
            if (!f->sparse) {
                bitpack_put(w, at, d, f->wv);
                at += f->wv;
            } else if (d) {
                bitpack_put(w, bit + j, 1, 1);
                bitpack_put(w, at, d - 1, f->wv);
                at += f->wv;
            }
        }
        bit = at;
    }
    t->ck_word[ck] = (uint32_t)t->n_words;
    t->n_words += need;
}

static void
tab_append(gcpack_tab *t, const uint64_t *c)
{
    tab_open_room(t);
    memcpy(t->open + (t->n % GCPACK_CHUNK) * t->n_cols, c, t->n_cols * sizeof *c);
    t->n++;
    if (t->n % GCPACK_CHUNK == 0)
        tab_pack(t);
}

static void
tab_truncate(gcpack_tab *t, size_t n)
{
    if (n >= t->n)
        return;
    size_t ck = n / GCPACK_CHUNK;
    if (ck < tab_packed(t)) {
        /* Chunk ck becomes the open one again: its first rows back to plain codes. */
        tab_open_room(t);
        for (size_t i = ck * GCPACK_CHUNK; i < n; i++)
            tab_get(t, i, t->open + (i % GCPACK_CHUNK) * t->n_cols);
        t->n_words = t->ck_word[ck];
    }
    t->n = n;
}

static void
tab_seal(gcpack_tab *t)
{
    size_t nck = tab_packed(t), open_n = t->n % GCPACK_CHUNK;
    if (t->n_words && t->cap_words > t->n_words + GCPACK_PAD) {
        t->words = x_big_resize(t->words, t->cap_words * sizeof *t->words,
                                (t->n_words + GCPACK_PAD) * sizeof *t->words);
        t->cap_words = t->n_words + GCPACK_PAD;
    }
    if (nck && t->cap_ck > nck) {
        t->cap_ck = nck;
        t->ck_word = xreallocarray(t->ck_word, nck, sizeof *t->ck_word);
        t->ck_w = xreallocarray(t->ck_w, nck * 3 * t->n_cols, 1);
        t->ck_off = xreallocarray(t->ck_off, nck * t->n_cols, sizeof *t->ck_off);
    }
    if (open_n == 0) {
        x_free(t->open);
        t->open = NULL;
        t->cap_open = 0;
    } else if (t->cap_open > open_n) {
        t->cap_open = open_n;
        t->open = xreallocarray(t->open, open_n * t->n_cols, sizeof *t->open);
    }
}

static size_t
tab_bytes(const gcpack_tab *t)
{
    return t->cap_words * sizeof *t->words +
           t->cap_ck * (sizeof *t->ck_word + t->n_cols * (3 + sizeof *t->ck_off)) +
           t->cap_open * t->n_cols * sizeof *t->open;
}

static bool
tab_check(const gcpack_tab *t, const char *what, char *why, size_t why_len)
{
    size_t words = 0;
    for (size_t ck = 0; ck < tab_packed(t); ck++) {
        if (t->ck_word[ck] != words)
            return checkfail(why, why_len, "%s chunk %zu: columns at word %u, expected %zu",
                             what, ck, (unsigned)t->ck_word[ck], words);
        uint64_t rows[GCPACK_CHUNK * 32];
        for (size_t j = 0; j < GCPACK_CHUNK; j++)
            tab_get(t, ck * GCPACK_CHUNK + j, rows + j * t->n_cols);
        uint64_t bits = 0;
        for (unsigned k = 0; k < t->n_cols; k++) {
            tab_fit has, fewest;
            if (tab_col(t, ck, k, &has) != bits)
                return checkfail(why, why_len, "%s chunk %zu column %u: at bit %llu, the"
                                 " columns before end at %llu", what, ck, k,
                                 (unsigned long long)t->ck_off[ck * t->n_cols + k],
                                 (unsigned long long)bits);
            has.nnz = has.sparse ? tab_rank(t->words + t->ck_word[ck], bits + has.wb,
                                            GCPACK_CHUNK) : 0;
            bits += tab_fit_bits(&has);
            tab_fit_col(t, rows, k, &fewest);
            if (has.wb != fewest.wb || has.wv != fewest.wv || has.shift != fewest.shift ||
                has.sparse != fewest.sparse)
                return checkfail(why, why_len, "%s chunk %zu column %u: layout %u/%u/%u/%d,"
                                 " fewest bits %u/%u/%u/%d", what, ck, k, has.wb, has.wv,
                                 has.shift, has.sparse, fewest.wb, fewest.wv, fewest.shift,
                                 fewest.sparse);
        }
        words += (size_t)((bits + 63) / 64);
    }
    if (words != t->n_words)
        return checkfail(why, why_len, "%s: packed chunks hold %zu words, table %zu", what,
                         words, t->n_words);
    if (t->n % GCPACK_CHUNK && t->cap_open < t->n % GCPACK_CHUNK)
        return checkfail(why, why_len, "%s: %zu open rows beyond room %zu", what,
                         t->n % GCPACK_CHUNK, t->cap_open);
    return true;
}

/* --- the store ----------------------------------------------------------------------- */

_Static_assert(GC_N_COLS <= 32 && PT_N_COLS <= 32, "tab_check's row buffer");

gcpack *
gcpack_new(void)
{
    gcpack *gp = xcalloc(1, sizeof *gp);    /* caller frees with gcpack_free */
    gp->gcs.n_cols = GC_N_COLS;
    gp->parts.n_cols = PT_N_COLS;
    return gp;
}

void
gcpack_free(gcpack *gp)
{
    if (!gp)
        return;
    tab_free(&gp->gcs);
    tab_free(&gp->parts);
    x_free(gp);
}

size_t gcpack_n_gcs(const gcpack *gp) { return gp->gcs.n; }
size_t gcpack_n_parts(const gcpack *gp) { return gp->parts.n; }

void
gcpack_append_gc(gcpack *gp, const evindex_gc *g)
{
    uint64_t c[GC_N_COLS];
    gc_encode(g, c);
    tab_append(&gp->gcs, c);
}

/* The start and pause of the collection a part's PT_GC code names (0, 0 for none or
 * one beyond the store: gcpack_check reports those). */
static void
gcpack_part_gc(const gcpack *gp, uint64_t gc, uint64_t *g_start, uint64_t *g_dur)
{
    *g_start = *g_dur = 0;
    if (gc == 0 || gc - 1 >= gp->gcs.n)
        return;
    _Static_assert(GC_START == 0 && GC_DUR == 1, "a collection's start and pause lead");
    uint64_t c[2];
    tab_get_n(&gp->gcs, (size_t)(gc - 1), c, 2);
    *g_start = c[GC_START];
    *g_dur = unzz(c[GC_DUR]);
}

void
gcpack_append_part(gcpack *gp, const evindex_gc_part *p)
{
    uint64_t c[PT_N_COLS], g_start, g_dur;
    gcpack_part_gc(gp, gp->gcs.n, &g_start, &g_dur);
    part_encode(p, gp->gcs.n, g_start, g_dur, c);
    tab_append(&gp->parts, c);
}

void
gcpack_truncate(gcpack *gp, size_t n_gcs, size_t n_parts)
{
    tab_truncate(&gp->gcs, n_gcs);
    tab_truncate(&gp->parts, n_parts);
}

void
gcpack_seal(gcpack *gp)
{
    tab_seal(&gp->gcs);
    tab_seal(&gp->parts);
}

const evindex_gc *
gcpack_gc(const gcpack *gp, size_t i, evindex_gc *buf)
{
    if (i >= gp->gcs.n)
        return NULL;
    uint64_t c[GC_N_COLS];
    tab_get(&gp->gcs, i, c);
    gc_decode(c, buf);
    return buf;
}

const evindex_gc_part *
gcpack_part(const gcpack *gp, size_t i, evindex_gc_part *buf)
{
    if (i >= gp->parts.n)
        return NULL;
    uint64_t c[PT_N_COLS], g_start, g_dur;
    tab_get(&gp->parts, i, c);
    gcpack_part_gc(gp, c[PT_GC], &g_start, &g_dur);
    part_decode(c, g_start, g_dur, buf);
    return buf;
}

void
gcpack_gc_brief(const gcpack *gp, size_t i, evindex_gc_brief *b)
{
    uint64_t c[GC_N_BRIEF];
    tab_get_n(&gp->gcs, i, c, GC_N_BRIEF);
    b->start_ns = c[GC_START];
    b->end_ns = b->start_ns + unzz(c[GC_DUR]);
    b->request_ns = b->start_ns - unzz(c[GC_REQUEST]);
    b->gen = u16_dec(c[GC_GEN]);
    b->flags = (uint8_t)c[GC_FLAGS];
}

uint64_t
gcpack_gc_start(const gcpack *gp, size_t i)
{
    _Static_assert(GC_START == 0, "the start is column 0");
    return tab_get0(&gp->gcs, i);
}

size_t
gcpack_bytes(const gcpack *gp)
{
    return sizeof *gp + tab_bytes(&gp->gcs) + tab_bytes(&gp->parts);
}

bool
gcpack_check(const gcpack *gp, char *why, size_t why_len)
{
    if (!tab_check(&gp->gcs, "collections", why, why_len) ||
        !tab_check(&gp->parts, "parts", why, why_len))
        return false;
    for (size_t i = 0; i < gp->gcs.n; i++) {
        uint64_t c[GC_N_COLS], back[GC_N_COLS];
        evindex_gc g;
        tab_get(&gp->gcs, i, c);
        gc_decode(c, &g);
        gc_encode(&g, back);
        if (memcmp(c, back, sizeof c))
            return checkfail(why, why_len, "collection %zu: codes do not round-trip", i);
    }
    for (size_t i = 0; i < gp->parts.n; i++) {
        uint64_t c[PT_N_COLS], back[PT_N_COLS], g_start, g_dur;
        evindex_gc_part p;
        tab_get(&gp->parts, i, c);
        if (c[PT_GC] > gp->gcs.n)
            return checkfail(why, why_len, "part %zu: of collection %llu of %zu", i,
                             (unsigned long long)(c[PT_GC] - 1), gp->gcs.n);
        gcpack_part_gc(gp, c[PT_GC], &g_start, &g_dur);
        part_decode(c, g_start, g_dur, &p);
        part_encode(&p, c[PT_GC], g_start, g_dur, back);
        if (memcmp(c, back, sizeof c))
            return checkfail(why, why_len, "part %zu: codes do not round-trip", i);
    }
    return true;
}
