/* runlane: a capability's thread runs, bit-packed per chunk of RUNLANE_CHUNK runs with
 * frame-of-reference columns (start offset, duration, tid - tid_min, stop+flags) of
 * per-chunk widths and a few in-chunk busy-time checkpoints; the tid column is patched
 * (its few wide values keep their high bits apart, so a chunk of new threads among
 * which an old one runs pays for the new ones' spread only); runs still being appended
 * wait in a plain open chunk. */
#include "runlane.h"

#include <string.h>

#include "bitpack.h"
#include "checkfail.h"
#include "gallop.h"
#include "xalloc.h"

/* The stop+flags field: stop in the low 8 bits, flags above, so a chunk with no flags
 * pays only for its widest stop. */
#define RUNLANE_SF_SHIFT 8
#define RUNLANE_FLAG_MASK (RUNLANE_F_OPEN | RUNLANE_F_CLIPPED)
#define RUNLANE_SF_BITS 10
/* Busy-time checkpoints inside a chunk: the run time of its runs [0, k * RUNLANE_CP_STEP)
 * for k = 1 .. RUNLANE_N_CP, so a prefix sum scans at most RUNLANE_CP_STEP / 2 runs. */
#define RUNLANE_N_CP (RUNLANE_CHUNK / RUNLANE_CP_STEP - 1)
/* Room for one chunk's columns: every width at its most, and a tid exception map and
 * high bits (no more than a tid column of 32). */
#define RUNLANE_MAX_WORDS (64 + 64 + 32 + RUNLANE_SF_BITS + RUNLANE_N_CP + 1 + 32 + 1 + 63 + \
                           RUNLANE_N_CP)
/* Zero words kept after the packed ones, so a column read may always load the word
 * after the one it starts in (runlane_col_get has no branches). */
#define RUNLANE_PAD 2

/* A packed chunk: runs [c * RUNLANE_CHUNK, ...), up to RUNLANE_CHUNK of them (fewer
 * only in a last chunk packed by seal), whose first start is bases[c] (kept apart so
 * the search over chunks reads 8 bytes a chunk). Its four columns follow one another
 * from `word`; a column of width w holds RUNLANE_CHUNK values in exactly w words,
 * value j at bit j * w, unused slots zero. Widths are the fewest bits the values need,
 * but for the tid column, which holds the low w_tid bits of tid - tid_min; the
 * stop+flags column holds stop | flags << w_stop.
 * Then the checkpoints: RUNLANE_N_CP values of runlane_cp_width(w_dur) bits, zero
 * padded to a whole word (a sum of runs past the chunk's last counts them as zero).
 * Starts are gaps: the first column holds each run's start minus the previous run's end
 * (the first run's minus the base), patched like the tids below: the gaps of more than
 * w_off bits are exceptions (n_gexc of them, after the tid exceptions: a map word, then
 * the gaps, w_gexc bits each). A run's start is the base plus the gaps and durations
 * before it, from the nearest start checkpoint at or before it: RUNLANE_N_CP start
 * offsets (of runs RUNLANE_CP_STEP, 2 * RUNLANE_CP_STEP, ..., or the last run when the
 * chunk is shorter) of w_span bits each, last of all, zero padded to a whole word.
 * Tids are patched: those in [tid_base, tid_base + 2^w_tid) are in the tid column as
 * tid - tid_base; the others (the exceptions, n_exc of them) follow the checkpoints as
 * a word whose bit j marks run j, then their tid - tid_min, w_exc bits each in run order
 * (zero padded to a whole word). tid_base, w_tid and n_exc are runlane_tid_plan's. */
typedef struct runlane_chunk {
    uint64_t prefix_ns;         /* total run time of the runs before the chunk */
    uint32_t word;              /* index in words of the chunk's first column */
    uint32_t tid_min;           /* the chunk's smallest tid: exceptions add to it */
    uint32_t tid_base;          /* the tid column adds to it */
    uint8_t w_off, w_dur, w_tid, w_sf; /* column widths in bits: gap (low),
                                        * duration, tid - tid_min (low), stop+flags */
    uint8_t w_stop;             /* bits of the widest stop status in the chunk */
    uint8_t w_exc, n_exc;       /* tid exceptions: their width (tid - tid_min), how many */
    uint8_t w_gexc, n_gexc;     /* gap exceptions: their width, how many */
    uint8_t w_span;             /* width of the start checkpoints */
    uint16_t scp_at;            /* their offset from the first word (runlane_scp_offset) */
} runlane_chunk;

/* The open chunk: up to RUNLANE_CHUNK - 1 runs after the packed ones, as plain
 * fields. Also the scratch form a chunk is packed from. */
typedef struct runlane_open {
    uint64_t start_ns[RUNLANE_CHUNK];
    uint64_t dur_ns[RUNLANE_CHUNK];
    uint32_t tid[RUNLANE_CHUNK];
    uint16_t sf[RUNLANE_CHUNK];
    size_t len;
    uint64_t prefix_ns;         /* total run time of the packed runs */
} runlane_open;

struct runlane {
    uint64_t *words;            /* owned; the packed chunks' columns, then RUNLANE_PAD
                                 * zero words */
    size_t n_words, cap_words;
    uint64_t *bases;            /* owned; each packed chunk's first start (cap_chunks) */
    runlane_chunk *chunks;      /* owned */
    size_t n_chunks, cap_chunks;
    runlane_open *open;         /* owned; NULL before the first append and after seal */
    size_t n;                   /* runs: the packed ones, then the open chunk's */
    uint64_t total_ns;          /* total run time of all runs */
    uint64_t last_end_ns;       /* end of run n-1 (valid when n > 0) */
};

/* ---- bit columns ------------------------------------------------------------------ */

/* Value j of a column of width w (0..64). It may read the word after its own: the
 * next column's or padding, masked away. */
static inline uint64_t
runlane_col_get(const uint64_t *col, unsigned w, size_t j)
{
    return bitpack_get(col, (uint64_t)j * w, w);
}

/* A field of up to 57 bits in one load: the 8 bytes from the byte its first bit is in,
 * shifted and masked. The words' bytes hold the bits in order only on a little-endian
 * machine (elsewhere RUNLANE_LOAD57 is 0 and callers read with runlane_col_get). The
 * load ends within the word after the one the field starts in, as runlane_col_get's. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RUNLANE_LOAD57 1
#else
#define RUNLANE_LOAD57 0
#endif
static inline uint64_t
runlane_col_get57(const uint64_t *col, uint64_t bit, uint64_t mask)
{
    uint64_t x;
    memcpy(&x, (const unsigned char *)col + (bit >> 3), sizeof x);
    return x >> (bit & 7) & mask;
}

/* Write the first len values (each < 2^w) into a zeroed column of width w: bits are
 * gathered in a register and stored a word at a time. */
static void
runlane_col_put(uint64_t *col, unsigned w, const uint64_t *v, size_t len)
{
    if (w == 0)
        return;
    uint64_t acc = 0;
    unsigned fill = 0;                      /* bits of acc in use, < 64 */
    for (size_t j = 0; j < len; j++) {
        uint64_t x = v[j];
        acc |= x << fill;
        fill += w;
        if (fill >= 64) {
            *col++ |= acc;
            fill -= 64;
            acc = fill ? x >> (w - fill) : 0;
        }
    }
    if (fill)
        *col |= acc;
}

/* Sum of values [a, b) of a column. */
static uint64_t
runlane_col_sum(const uint64_t *col, unsigned w, size_t a, size_t b)
{
    uint64_t sum = 0;
    if (w == 0)
        return 0;
    for (size_t j = a; j < b; j++)
        sum += runlane_col_get(col, w, j);
    return sum;
}

/* Checkpoint width: a sum of up to 48 (< 2^6) durations of w_dur bits. */
static unsigned
runlane_cp_width(unsigned w_dur)
{
    return w_dur == 0 ? 0 : w_dur + 6 < 64 ? w_dur + 6 : 64;
}

static unsigned
runlane_cp_words(unsigned w_dur)
{
    return (RUNLANE_N_CP * runlane_cp_width(w_dur) + 63) / 64;
}

/* Offset of the checkpoints from the chunk's first word. */
static unsigned
runlane_cp_at(const runlane_chunk *ck)
{
    return (unsigned)ck->w_off + ck->w_dur + ck->w_tid + ck->w_sf;
}

static unsigned
runlane_exc_words(unsigned n_exc, unsigned w_exc)
{
    return n_exc ? 1 + (n_exc * w_exc + 63) / 64 : 0;
}

/* Offset of the tid exceptions (map word, then high parts) from the first word. */
static unsigned
runlane_exc_at(const runlane_chunk *ck)
{
    return runlane_cp_at(ck) + runlane_cp_words(ck->w_dur);
}

/* Offset of the gap exceptions (map word, then gaps). */
static inline unsigned
runlane_gexc_at(const runlane_chunk *ck)
{
    return ck->scp_at - runlane_exc_words(ck->n_gexc, ck->w_gexc);
}

/* Offset of the start checkpoints, from the widths (the header keeps it as scp_at). */
static unsigned
runlane_scp_offset(const runlane_chunk *ck)
{
    return runlane_exc_at(ck) + runlane_exc_words(ck->n_exc, ck->w_exc) +
           runlane_exc_words(ck->n_gexc, ck->w_gexc);
}

static inline unsigned
runlane_scp_at(const runlane_chunk *ck)
{
    return ck->scp_at;
}

/* Set bits in x (no popcount instruction is assumed). */
static inline unsigned
runlane_popcount(uint64_t x)
{
    x = x - (x >> 1 & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + (x >> 2 & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (unsigned)(x * 0x0101010101010101u >> 56);
}

static unsigned
runlane_chunk_words(const runlane_chunk *ck)
{
    return runlane_scp_at(ck) + (RUNLANE_N_CP * ck->w_span + 63) / 64;
}

/* How a chunk's gaps are packed: the low width and its exceptions. */
typedef struct runlane_gapplan {
    unsigned w, n_exc, w_exc;
} runlane_gapplan;

/* The plan for gaps of whose widths cnt[w] have width w, the widest w_all, that takes
 * the fewest words, the widest of equals. */
static runlane_gapplan
runlane_gap_plan_of(const unsigned *cnt, unsigned w_all)
{
    runlane_gapplan best = { w_all, 0, 0 };
    unsigned best_cost = w_all, n_exc = 0;
    for (unsigned w = w_all; w-- > 0;) {
        n_exc += cnt[w + 1];
        unsigned cost = w + runlane_exc_words(n_exc, w_all);
        if (cost < best_cost && n_exc < RUNLANE_CHUNK) {
            best_cost = cost;
            best = (runlane_gapplan){ w, n_exc, w_all };
        }
    }
    return best;
}

/* The plan for gaps g[0..len). */
static runlane_gapplan
runlane_gap_plan(const uint64_t *g, size_t len)
{
    unsigned cnt[65] = { 0 }, w_all = 0;
    for (size_t j = 0; j < len; j++) {
        unsigned w = bitpack_width(g[j]);
        cnt[w]++;
        w_all = w > w_all ? w : w_all;
    }
    return runlane_gap_plan_of(cnt, w_all);
}

/* Run j's gap in packed chunk ck, whose words start at col. */
static inline uint64_t
runlane_gap_get(const runlane_chunk *ck, const uint64_t *col, size_t j)
{
    if (ck->n_gexc) {
        const uint64_t *exc = col + runlane_gexc_at(ck);
        if (exc[0] >> j & 1) {
            uint64_t below = exc[0] & ((UINT64_C(1) << j) - 1);
            return runlane_col_get(exc + 1, ck->w_gexc, runlane_popcount(below));
        }
    }
    return runlane_col_get(col, ck->w_off, j);
}

/* Run j's start minus the base in packed chunk ck of len runs: from the nearer start
 * checkpoint, adding (or, back from the one after it, taking off) the durations and
 * gaps in between. */
static inline uint64_t
runlane_off_get(const runlane_chunk *ck, const uint64_t *col, size_t j, size_t len)
{
    size_t k = j / RUNLANE_CP_STEP, from = k * RUNLANE_CP_STEP, next = from + RUNLANE_CP_STEP;
    const uint64_t *dur = col + ck->w_off;
    if (j - from > RUNLANE_CP_STEP / 2 && next < len && k < RUNLANE_N_CP) {
        uint64_t off = runlane_col_get(col + runlane_scp_at(ck), ck->w_span, k);
        for (size_t i = next; i > j; i--)
            off -= runlane_col_get(dur, ck->w_dur, i - 1) + runlane_gap_get(ck, col, i);
        return off;
    }
    uint64_t off = k ? runlane_col_get(col + runlane_scp_at(ck), ck->w_span, k - 1)
                     : runlane_gap_get(ck, col, 0);
    for (size_t i = from + 1; i <= j; i++)
        off += runlane_col_get(dur, ck->w_dur, i - 1) + runlane_gap_get(ck, col, i);
    return off;
}

/* How a chunk's tids are packed: the window [base, base + 2^w) kept in the column,
 * the others exceptions. */
typedef struct runlane_tidplan {
    uint32_t base;
    unsigned w, n_exc, w_exc;
} runlane_tidplan;

/* The plan for tids t[0..len) (len >= 1) that takes the fewest words: windows from the
 * smallest tid up (the odd one out is a newer thread) or from the largest down (an
 * older one); the first found of equals, widest first, from the smallest tid first. */
static runlane_tidplan
runlane_tid_plan_of(const unsigned *up, const unsigned *down, uint32_t lo, uint32_t hi,
                    size_t len);

static runlane_tidplan
runlane_tid_plan(const uint32_t *t, size_t len)
{
    uint32_t lo = t[0], hi = t[0];
    for (size_t j = 1; j < len; j++) {
        lo = t[j] < lo ? t[j] : lo;
        hi = t[j] > hi ? t[j] : hi;
    }
    unsigned up[34] = { 0 }, down[34] = { 0 };  /* tids of each width above lo, below hi */
    for (size_t j = 0; j < len; j++) {
        up[bitpack_width(t[j] - lo)]++;
        down[bitpack_width(hi - t[j])]++;
    }
    return runlane_tid_plan_of(up, down, lo, hi, len);
}

/* runlane_tid_plan from the counts of tids by width above lo (up) and below hi (down). */
static runlane_tidplan
runlane_tid_plan_of(const unsigned *up, const unsigned *down, uint32_t lo, uint32_t hi,
                    size_t len)
{
    unsigned w_all = bitpack_width(hi - lo);
    runlane_tidplan best = { lo, w_all, 0, 0 };
    unsigned best_cost = w_all;
    for (int from_hi = 0; from_hi < 2; from_hi++) {
        const unsigned *cnt = from_hi ? down : up;
        unsigned inside = (unsigned)len;    /* tids within 2^w of the end: all at w_all */
        for (unsigned w = w_all; w-- > 0;) {
            inside -= cnt[w + 1];
            unsigned n_exc = (unsigned)len - inside;
            unsigned cost = w + runlane_exc_words(n_exc, w_all);
            if (cost < best_cost && n_exc < RUNLANE_CHUNK) {
                best_cost = cost;
                best = (runlane_tidplan){ from_hi ? hi - (uint32_t)bitpack_mask(w) : lo, w,
                                          n_exc, n_exc ? w_all : 0 };
            }
        }
    }
    return best;
}

/* Run j's tid - tid_min in packed chunk ck, whose words start at col. */
static inline uint64_t
runlane_tid_get(const runlane_chunk *ck, const uint64_t *col, size_t j)
{
    if (ck->n_exc) {
        const uint64_t *exc = col + runlane_exc_at(ck);
        if (exc[0] >> j & 1) {
            uint64_t below = exc[0] & ((UINT64_C(1) << j) - 1);
            return runlane_col_get(exc + 1, ck->w_exc, runlane_popcount(below));
        }
    }
    return ck->tid_base - ck->tid_min +
           runlane_col_get(col + ck->w_off + ck->w_dur, ck->w_tid, j);
}

/* Run j's stop+flags (stop | flags << RUNLANE_SF_SHIFT) in packed chunk ck. */
static inline unsigned
runlane_sf_get(const runlane_chunk *ck, const uint64_t *col, size_t j)
{
    uint64_t v = runlane_col_get(col + ck->w_off + ck->w_dur + ck->w_tid, ck->w_sf, j);
    return (unsigned)((v & bitpack_mask(ck->w_stop)) | (v >> ck->w_stop) << RUNLANE_SF_SHIFT);
}

/* Pack the first raw->len runs of raw as a chunk with the given base and tid_min
 * (a sound lane uses the first start and the smallest tid, which own_min asks for;
 * corruption tests pass others). Writes the header (all but prefix_ns and word) and
 * cols, which has room for RUNLANE_MAX_WORDS; returns the words used. Three passes:
 * what needs nothing but the runs; the tids' width counts; the columns and exceptions. */
static unsigned
runlane_encode_own(const runlane_open *raw, uint64_t base_ns, uint32_t tid_min, bool own_min,
                   runlane_chunk *hdr, uint64_t *cols)
{
    size_t len = raw->len;
    uint64_t scp[RUNLANE_N_CP], any_scp = 0, gexc[RUNLANE_CHUNK], exc[RUNLANE_CHUNK];
    uint64_t cp[RUNLANE_N_CP + 1], busy = 0;    /* the last slot is never read */
    /* Pass 1: gaps' widths counted (and OR-ed: the widest), durations and stop+flags
     * OR-ed, the tids' range, the busy-time checkpoints. */
    uint64_t any_gap = 0, any_dur = 0;
    unsigned any_sf16 = 0, gcnt[65] = { 0 };
    uint32_t lo = raw->tid[0], hi = raw->tid[0];
    uint64_t prev_end = base_ns;
    for (size_t j0 = 0; j0 < len; j0 += RUNLANE_CP_STEP) {
        size_t e = len - j0 < RUNLANE_CP_STEP ? len : j0 + RUNLANE_CP_STEP;
        for (size_t j = j0; j < e; j++) {
            uint64_t st = raw->start_ns[j], d = raw->dur_ns[j];
            uint64_t g = st - prev_end;         /* the first: its start minus the base */
            prev_end = st + d;
            gcnt[bitpack_width(g)]++;
            any_gap |= g;
            any_dur |= d;
            any_sf16 |= raw->sf[j];
            uint32_t t = raw->tid[j];
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
            busy += d;
        }
        if (e == j0 + RUNLANE_CP_STEP)
            cp[j0 / RUNLANE_CP_STEP] = busy;
    }
    if (own_min)
        tid_min = lo;
    for (size_t k = len / RUNLANE_CP_STEP; k < RUNLANE_N_CP; k++)
        cp[k] = busy;
    for (size_t k = 0; k < RUNLANE_N_CP; k++) {
        size_t at = (k + 1) * RUNLANE_CP_STEP;
        scp[k] = raw->start_ns[at < len ? at : len - 1] - base_ns;
        any_scp |= scp[k];
    }
    runlane_gapplan gp = runlane_gap_plan_of(gcnt, bitpack_width(any_gap));
    unsigned w_stop = bitpack_width(any_sf16 & 0xffu);
    uint64_t any_sf = (any_sf16 & 0xffu) | (uint64_t)(any_sf16 >> RUNLANE_SF_SHIFT) << w_stop;
    unsigned w_dur = bitpack_width(any_dur), w_sf = bitpack_width(any_sf);
    /* Pass 2: the duration column in place (after the gaps) and the stop+flags one
     * aside (its place waits for the tid plan); the tids' width counts, which only a
     * range of 3 bits or more can use (a window of w bits with exceptions costs at
     * least w + 2 words). */
    uint64_t sf_col[16] = { 0 };        /* a 16-bit field is at most 16 words */
    memset(cols + gp.w, 0, w_dur * sizeof *cols);
    bitpack_writer pd = bitpack_writer_at(cols + gp.w, w_dur);
    bitpack_writer ps = bitpack_writer_at(sf_col, w_sf);
    runlane_tidplan tp;
    if (bitpack_width(hi - lo) < 3) {
        for (size_t j = 0; j < len; j++) {
            bitpack_writer_put(&pd, raw->dur_ns[j]);
            unsigned sf = raw->sf[j];
            bitpack_writer_put(&ps, (sf & 0xffu) | (uint64_t)(sf >> RUNLANE_SF_SHIFT) << w_stop);
        }
        tp = (runlane_tidplan){ lo, bitpack_width(hi - lo), 0, 0 };
    } else {
        unsigned up[34] = { 0 }, down[34] = { 0 };  /* tids of each width above lo, below hi */
        for (size_t j = 0; j < len; j++) {
            bitpack_writer_put(&pd, raw->dur_ns[j]);
            unsigned sf = raw->sf[j];
            bitpack_writer_put(&ps, (sf & 0xffu) | (uint64_t)(sf >> RUNLANE_SF_SHIFT) << w_stop);
            up[bitpack_width(raw->tid[j] - lo)]++;
            down[bitpack_width(hi - raw->tid[j])]++;
        }
        tp = runlane_tid_plan_of(up, down, lo, hi, len);
    }
    bitpack_writer_flush(&pd);
    bitpack_writer_flush(&ps);
    hdr->tid_min = tid_min;
    hdr->tid_base = tp.base;
    hdr->w_off = (uint8_t)gp.w;
    hdr->n_gexc = (uint8_t)gp.n_exc;
    hdr->w_gexc = (uint8_t)gp.w_exc;
    hdr->w_span = (uint8_t)bitpack_width(any_scp);
    hdr->w_dur = (uint8_t)w_dur;
    hdr->w_tid = (uint8_t)tp.w;
    hdr->w_sf = (uint8_t)w_sf;
    hdr->w_stop = (uint8_t)w_stop;
    hdr->n_exc = (uint8_t)tp.n_exc;
    hdr->w_exc = (uint8_t)tp.w_exc;
    hdr->scp_at = (uint16_t)runlane_scp_offset(hdr);
    unsigned words = runlane_chunk_words(hdr), at_tid = gp.w + w_dur;
    memset(cols, 0, gp.w * sizeof *cols);
    memset(cols + at_tid, 0, (words - at_tid) * sizeof *cols);
    memcpy(cols + at_tid + tp.w, sf_col, w_sf * sizeof *cols);
    /* Pass 3: the gap and tid columns, their exceptions picked out. */
    bitpack_writer pg = bitpack_writer_at(cols, gp.w);
    bitpack_writer pt = bitpack_writer_at(cols + at_tid, tp.w);
    uint64_t tid_mask = bitpack_mask(tp.w);
    uint64_t gexc_map = 0, exc_map = 0;
    size_t kg = 0, kt = 0;
    prev_end = base_ns;
    for (size_t j = 0; j < len; j++) {
        uint64_t st = raw->start_ns[j], d = raw->dur_ns[j];
        uint64_t g = st - prev_end;
        prev_end = st + d;
        if (g >> gp.w) {
            gexc_map |= UINT64_C(1) << j;
            gexc[kg++] = g;
            g = 0;
        }
        bitpack_writer_put(&pg, g);
        uint32_t t = raw->tid[j];
        uint64_t in = (uint64_t)t - tp.base;  /* past the mask for a tid below the window */
        if (in > tid_mask) {
            exc_map |= UINT64_C(1) << j;
            exc[kt++] = (uint32_t)(t - tid_min);
            in = 0;
        }
        bitpack_writer_put(&pt, in);
    }
    bitpack_writer_flush(&pg);
    bitpack_writer_flush(&pt);
    uint64_t *col = cols + runlane_cp_at(hdr);
    runlane_col_put(col, runlane_cp_width(hdr->w_dur), cp, RUNLANE_N_CP);
    if (tp.n_exc) {
        col = cols + runlane_exc_at(hdr);
        col[0] = exc_map;
        runlane_col_put(col + 1, hdr->w_exc, exc, tp.n_exc);
    }
    if (gp.n_exc) {
        col = cols + runlane_gexc_at(hdr);
        col[0] = gexc_map;
        runlane_col_put(col + 1, hdr->w_gexc, gexc, gp.n_exc);
    }
    runlane_col_put(cols + runlane_scp_at(hdr), hdr->w_span, scp, RUNLANE_N_CP);
    return words;
}

/* runlane_encode_own with the caller's tid_min. */
static unsigned
runlane_encode(const runlane_open *raw, uint64_t base_ns, uint32_t tid_min,
               runlane_chunk *hdr, uint64_t *cols)
{
    return runlane_encode_own(raw, base_ns, tid_min, false, hdr, cols);
}

/* Unpack chunk c into raw (len runs). */
static void
runlane_decode(const runlane *rl, size_t c, runlane_open *raw)
{
    const runlane_chunk *ck = &rl->chunks[c];
    size_t first = c * RUNLANE_CHUNK, left = rl->n - first;
    raw->len = left < RUNLANE_CHUNK ? left : RUNLANE_CHUNK;
    raw->prefix_ns = ck->prefix_ns;
    const uint64_t *off = rl->words + ck->word, *dur = off + ck->w_off;
    uint64_t at = rl->bases[c];
    for (size_t j = 0; j < raw->len; j++) {
        at += j ? raw->dur_ns[j - 1] + runlane_gap_get(ck, off, j) : runlane_gap_get(ck, off, 0);
        raw->start_ns[j] = at;
        raw->dur_ns[j] = runlane_col_get(dur, ck->w_dur, j);
        raw->tid[j] = ck->tid_min + (uint32_t)runlane_tid_get(ck, off, j);
        raw->sf[j] = (uint16_t)runlane_sf_get(ck, off, j);
    }
}

/* ---- building ---------------------------------------------------------------------- */

runlane *
runlane_new(void)
{
    runlane *rl = xcalloc(1, sizeof *rl);   /* caller frees with runlane_free */
    return rl;
}

void
runlane_free(runlane *rl)
{
    if (!rl)
        return;
    x_free(rl->words);
    x_free(rl->bases);
    x_free(rl->chunks);
    x_free(rl->open);
    x_free(rl);
}

/* Room for `more` words past n_words, and the padding after them. */
static void
runlane_reserve_words(runlane *rl, size_t more)
{
    more += RUNLANE_PAD;
    if (rl->cap_words - rl->n_words >= more)
        return;
    size_t cap = rl->cap_words < 256 ? 256 : rl->cap_words + rl->cap_words / 2;
    if (cap - rl->n_words < more)
        cap = rl->n_words + more;
    rl->words = xreallocarray(rl->words, cap, sizeof *rl->words);   /* owned by the lane */
    rl->cap_words = cap;
}

static void
runlane_zero_pad(runlane *rl)
{
    memset(rl->words + rl->n_words, 0, RUNLANE_PAD * sizeof *rl->words);
}

/* Pack the open chunk (1..RUNLANE_CHUNK runs) after the packed ones and empty it.
 * Returns true (so that an append ends in a jump to it). */
static bool
runlane_pack(runlane *rl)
{
    runlane_open *o = rl->open;
    if (rl->n_chunks == rl->cap_chunks) {
        rl->cap_chunks = rl->cap_chunks < 16 ? 16 : rl->cap_chunks * 2;
        /* Both owned by the lane. */
        rl->chunks = xreallocarray(rl->chunks, rl->cap_chunks, sizeof *rl->chunks);
        rl->bases = xreallocarray(rl->bases, rl->cap_chunks, sizeof *rl->bases);
    }
    runlane_reserve_words(rl, RUNLANE_MAX_WORDS);
    rl->bases[rl->n_chunks] = o->start_ns[0];
    runlane_chunk *ck = &rl->chunks[rl->n_chunks++];
    unsigned words = runlane_encode_own(o, o->start_ns[0], 0, true, ck,
                                        rl->words + rl->n_words);
    ck->prefix_ns = o->prefix_ns;
    ck->word = (uint32_t)rl->n_words;
    rl->n_words += words;
    runlane_zero_pad(rl);
    o->len = 0;
    o->prefix_ns = rl->total_ns;
    return true;
}

/* Make the open chunk ready for an append: allocate it, and if seal packed a short
 * last chunk, take that chunk back into it. */
static void
runlane_reopen(runlane *rl)
{
    rl->open = xmalloc(sizeof *rl->open);   /* owned by the lane until seal */
    rl->open->len = 0;
    rl->open->prefix_ns = rl->total_ns;
    if (rl->n % RUNLANE_CHUNK == 0)
        return;
    size_t c = rl->n_chunks - 1;
    runlane_decode(rl, c, rl->open);
    rl->n_words = rl->chunks[c].word;
    rl->n_chunks = c;
    runlane_zero_pad(rl);
}

static __attribute__((noinline)) bool runlane_append_reopen(runlane *rl, uint64_t start,
                                                            uint64_t end, uint32_t tid,
                                                            unsigned stop, unsigned flags);

/* runlane_append of a run given by its fields, flags already cut to those kept. Its
 * calls are its last steps (no registers to save on the way of most runs). */
static inline bool
runlane_append_keep(runlane *rl, uint64_t start, uint64_t end, uint32_t tid, unsigned stop,
                    unsigned flags)
{
    runlane_open *o = rl->open;
    if (!o)
        return runlane_append_reopen(rl, start, end, tid, stop, flags);
    if (rl->n > 0 && start < rl->last_end_ns) {
        start = rl->last_end_ns;
        flags |= RUNLANE_F_CLIPPED;
    }
    if (end < start)
        return false;
    size_t j = o->len++;
    o->start_ns[j] = start;
    o->dur_ns[j] = end - start;
    o->tid[j] = tid;
    o->sf[j] = (uint16_t)(stop | flags << RUNLANE_SF_SHIFT);
    rl->n++;
    rl->total_ns += end - start;
    rl->last_end_ns = end;
    if (o->len == RUNLANE_CHUNK)
        return runlane_pack(rl);
    return true;
}

/* runlane_append_keep with no open chunk (the first append, or the first after seal):
 * kept out of line, the slow path of every append. */
static __attribute__((noinline)) bool
runlane_append_reopen(runlane *rl, uint64_t start, uint64_t end, uint32_t tid, unsigned stop,
                      unsigned flags)
{
    runlane_reopen(rl);
    return runlane_append_keep(rl, start, end, tid, stop, flags);
}

bool
runlane_append(runlane *rl, const runlane_run *run)
{
    return runlane_append_keep(rl, run->start_ns, run->end_ns, run->tid, run->stop,
                               run->flags & RUNLANE_F_OPEN);
}

bool
runlane_append_fields(runlane *rl, uint64_t start_ns, uint64_t end_ns, uint32_t tid,
                      uint8_t stop, uint8_t flags)
{
    return runlane_append_keep(rl, start_ns, end_ns, tid, stop, flags & RUNLANE_F_OPEN);
}

/* Append src's runs [from, to) to dst, re-encoded (flags kept). */
static void
runlane_append_from(runlane *dst, const runlane *src, size_t from, size_t to)
{
    runlane_block *bk = xmalloc(sizeof *bk);    /* freed below */
    for (size_t b = from / RUNLANE_CHUNK; b * RUNLANE_CHUNK < to && b < runlane_n_blocks(src);
         b++) {
        runlane_block_get(src, b, bk, RUNLANE_COL_ALL);
        size_t end = to - b * RUNLANE_CHUNK < bk->len ? to - b * RUNLANE_CHUNK : bk->len;
        for (size_t j = b == from / RUNLANE_CHUNK ? from % RUNLANE_CHUNK : 0; j < end; j++) {
            runlane_run r = { bk->start_ns[j], bk->start_ns[j] + bk->dur_ns[j], bk->tid[j],
                              bk->stop[j], bk->flags[j] };
            runlane_append_keep(dst, r.start_ns, r.end_ns, r.tid, r.stop,
                                r.flags & (RUNLANE_F_OPEN | RUNLANE_F_CLIPPED));
        }
    }
    x_free(bk);
}

size_t
runlane_join_at(const runlane *dst, const runlane *src)
{
    size_t k = (RUNLANE_CHUNK - dst->n % RUNLANE_CHUNK) % RUNLANE_CHUNK;
    if (k == 0 && dst->n && src->n) {
        runlane_run first;
        runlane_get(src, 0, &first);
        if (first.start_ns < dst->last_end_ns)
            k = RUNLANE_CHUNK;  /* clipped: re-encoded like the runs before the joint */
    }
    return k < src->n ? k : src->n;
}

runlane *
runlane_copy_range(const runlane *src, size_t from, size_t to)
{
    runlane *t = runlane_new();                 /* caller frees (or splices) */
    runlane_append_from(t, src, from, to < src->n ? to : src->n);
    return t;
}

void
runlane_splice(runlane *dst, runlane *src)
{
    if (!src->n) {
        runlane_free(src);
        return;
    }
    if (dst->n_chunks + src->n_chunks > dst->cap_chunks) {
        dst->cap_chunks = dst->n_chunks + src->n_chunks + 16;
        /* Both owned by the lane. */
        dst->chunks = xreallocarray(dst->chunks, dst->cap_chunks, sizeof *dst->chunks);
        dst->bases = xreallocarray(dst->bases, dst->cap_chunks, sizeof *dst->bases);
    }
    runlane_reserve_words(dst, src->n_words);
    if (src->n_words)
        memcpy(dst->words + dst->n_words, src->words, src->n_words * sizeof *src->words);
    for (size_t c = 0; c < src->n_chunks; c++) {
        runlane_chunk ck = src->chunks[c];
        ck.word += (uint32_t)dst->n_words;
        ck.prefix_ns += dst->total_ns;
        dst->chunks[dst->n_chunks] = ck;
        dst->bases[dst->n_chunks++] = src->bases[c];
    }
    dst->n_words += src->n_words;
    runlane_zero_pad(dst);
    if (!dst->open)
        runlane_reopen(dst);    /* dst->n is whole chunks: an empty open chunk */
    if (src->open && src->open->len) {
        runlane_open *o = dst->open;
        const runlane_open *so = src->open;
        memcpy(o->start_ns, so->start_ns, so->len * sizeof *so->start_ns);
        memcpy(o->dur_ns, so->dur_ns, so->len * sizeof *so->dur_ns);
        memcpy(o->tid, so->tid, so->len * sizeof *so->tid);
        memcpy(o->sf, so->sf, so->len * sizeof *so->sf);
        o->len = so->len;
    }
    dst->n += src->n;
    dst->total_ns += src->total_ns;
    dst->last_end_ns = src->last_end_ns;
    dst->open->prefix_ns = dst->total_ns;
    for (size_t j = 0; j < dst->open->len; j++)
        dst->open->prefix_ns -= dst->open->dur_ns[j];
    runlane_free(src);
}

void
runlane_append_lane(runlane *dst, const runlane *src)
{
    runlane_append_from(dst, src, 0, src->n);
}

void
runlane_append_range(runlane *dst, const runlane *src, size_t from, size_t to)
{
    runlane_append_from(dst, src, from, to < src->n ? to : src->n);
}

void
runlane_seal(runlane *rl)
{
    if (rl->open) {
        if (rl->open->len)
            runlane_pack(rl);
        x_free(rl->open);
        rl->open = NULL;
    }
    size_t cap = rl->n_chunks ? rl->n_words + RUNLANE_PAD : 0;     /* chunks may be 0 words */
    if (rl->cap_words > cap) {
        if (cap)
            rl->words = xreallocarray(rl->words, cap, sizeof *rl->words);
        else {
            x_free(rl->words);
            rl->words = NULL;
        }
        rl->cap_words = cap;
    }
    if (rl->cap_chunks > rl->n_chunks && rl->n_chunks) {
        rl->chunks = xreallocarray(rl->chunks, rl->n_chunks, sizeof *rl->chunks);
        rl->bases = xreallocarray(rl->bases, rl->n_chunks, sizeof *rl->bases);
        rl->cap_chunks = rl->n_chunks;
    }
}

/* ---- queries ----------------------------------------------------------------------- */

/* Chunks c < n_chunks are packed; c == n_chunks is the open one (when it has runs). */

static size_t
runlane_open_len(const runlane *rl)
{
    return rl->open ? rl->open->len : 0;
}

static size_t
runlane_chunk_len(const runlane *rl, size_t c)
{
    size_t left = rl->n - c * RUNLANE_CHUNK;
    return left < RUNLANE_CHUNK ? left : RUNLANE_CHUNK;
}

static uint64_t
runlane_chunk_prefix(const runlane *rl, size_t c)
{
    return c < rl->n_chunks ? rl->chunks[c].prefix_ns : rl->open->prefix_ns;
}

/* Total run time of the runs up to the end of chunk c. */
static uint64_t
runlane_chunk_prefix_end(const runlane *rl, size_t c)
{
    if (c + 1 < rl->n_chunks)
        return rl->chunks[c + 1].prefix_ns;
    if (c + 1 == rl->n_chunks && rl->open)
        return rl->open->prefix_ns;
    return rl->total_ns;
}

/* Run time of runs [0, j) of chunk c: from the nearest of the chunk's start, its
 * checkpoints and its end, scanning the runs in between. */
static uint64_t
runlane_chunk_sum(const runlane *rl, size_t c, size_t j)
{
    size_t len = runlane_chunk_len(rl, c);
    if (c >= rl->n_chunks) {
        const runlane_open *o = rl->open;
        uint64_t sum = 0;
        if (j <= len / 2) {
            for (size_t k = 0; k < j; k++)
                sum += o->dur_ns[k];
            return sum;
        }
        for (size_t k = j; k < len; k++)
            sum += o->dur_ns[k];
        return rl->total_ns - o->prefix_ns - sum;
    }
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *dur = rl->words + ck->word + ck->w_off;
    size_t p = (j + RUNLANE_CP_STEP / 2) / RUNLANE_CP_STEP * RUNLANE_CP_STEP;
    uint64_t at;                            /* run time of runs [0, p) */
    if (p >= len) {
        p = len;
        at = runlane_chunk_prefix_end(rl, c) - ck->prefix_ns;
    } else if (p == 0)
        at = 0;
    else
        at = runlane_col_get(rl->words + ck->word + runlane_cp_at(ck),
                             runlane_cp_width(ck->w_dur), p / RUNLANE_CP_STEP - 1);
    if (p <= j)
        return at + runlane_col_sum(dur, ck->w_dur, p, j);
    return at - runlane_col_sum(dur, ck->w_dur, j, p);
}

/* Start and duration of run i (< n). */
static void
runlane_span(const runlane *rl, size_t i, uint64_t *start, uint64_t *dur)
{
    size_t c = i / RUNLANE_CHUNK, j = i % RUNLANE_CHUNK;
    if (c < rl->n_chunks) {
        const runlane_chunk *ck = &rl->chunks[c];
        const uint64_t *col = rl->words + ck->word;
        *start = rl->bases[c] + runlane_off_get(ck, col, j, runlane_chunk_len(rl, c));
        *dur = runlane_col_get(col + ck->w_off, ck->w_dur, j);
    } else {
        *start = rl->open->start_ns[j];
        *dur = rl->open->dur_ns[j];
    }
}

/* Number of runs with start < t (inclusive: start <= t): a search over the chunks'
 * bases, then over the start offsets in the chunk found, whose first run qualifies.
 * Branches rather than conditional moves: screen columns query neighbouring times,
 * so the branches predict well and the loads run ahead. */
static size_t
runlane_count_starts_from(const runlane *rl, uint64_t t, bool inclusive, size_t c_from);

static size_t
runlane_count_starts(const runlane *rl, uint64_t t, bool inclusive)
{
    return runlane_count_starts_from(rl, t, inclusive, 0);
}

/* The last packed chunk whose base is < t (rl->bases[0] < t), galloping forward from
 * chunk c_from when its base is known to be < t. */
static size_t
runlane_chunk_search(const runlane *rl, uint64_t t, size_t c_from)
{
    size_t lo = 1, hi = rl->n_chunks;       /* the first chunk whose base is >= t */
    if (c_from > 0 && c_from < rl->n_chunks && rl->bases[c_from] < t) {
        size_t step = 1;
        lo = c_from + 1;
        while (lo + step < hi && rl->bases[lo + step - 1] < t) {
            lo += step;
            step *= 2;
        }
        if (lo + step < hi)
            hi = lo + step;
    } else {
        /* Nothing known: from where t falls were the chunks spread evenly. */
        return gallop_last_below_cold(rl->bases, sizeof *rl->bases, rl->n_chunks, t);
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rl->bases[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

/* The packed chunk holding the last run that starts before t, or SIZE_MAX if none
 * does (no run starts before t, or that run is in the open chunk). */
static size_t
runlane_chunk_before(const runlane *rl, uint64_t t, size_t c_from)
{
    const runlane_open *o = rl->open;
    if ((o && o->len && o->start_ns[0] < t) || rl->n_chunks == 0 || rl->bases[0] >= t)
        return SIZE_MAX;
    return runlane_chunk_search(rl, t, c_from);
}

/* The same, knowing that chunk c_from's base is < t (0: nothing known): the chunk search
 * gallops forward from there, so a sweep over increasing times is about linear. */
static size_t
runlane_count_starts_from(const runlane *rl, uint64_t t, bool inclusive, size_t c_from)
{
    if (inclusive) {
        if (t == UINT64_MAX)
            return rl->n;
        t++;
    }
    const runlane_open *o = rl->open;
    if (o && o->len && o->start_ns[0] < t) {
        size_t a = 1, z = o->len;
        while (a < z) {
            size_t mid = a + (z - a) / 2;
            if (o->start_ns[mid] < t)
                a = mid + 1;
            else
                z = mid;
        }
        return rl->n_chunks * RUNLANE_CHUNK + a;
    }
    if (rl->n_chunks == 0 || rl->bases[0] >= t)
        return 0;
    size_t c = runlane_chunk_search(rl, t, c_from);
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *col = rl->words + ck->word, *dur = col + ck->w_off;
    uint64_t d = t - rl->bases[c];
    size_t len = runlane_chunk_len(rl, c);
    /* The start checkpoints (runs inside the chunk) around d, then run by run from the
     * nearer: back from the one after d, or on from the one before. */
    size_t from = 0;
    uint64_t off = runlane_gap_get(ck, col, 0);
    for (size_t k = 0; k < RUNLANE_N_CP && (k + 1) * RUNLANE_CP_STEP < len; k++) {
        uint64_t v = runlane_col_get(col + runlane_scp_at(ck), ck->w_span, k);
        if (v >= d) {
            if (d - off > (v - off) / 2) {
                size_t cur = (k + 1) * RUNLANE_CP_STEP;
                do {
                    v -= runlane_col_get(dur, ck->w_dur, cur - 1) + runlane_gap_get(ck, col, cur);
                    cur--;
                } while (v >= d && cur > from);
                return c * RUNLANE_CHUNK + cur + 1;
            }
            break;
        }
        from = (k + 1) * RUNLANE_CP_STEP;
        off = v;
    }
    size_t a = from + 1;
    for (; a < len; a++) {
        off += runlane_col_get(dur, ck->w_dur, a - 1) + runlane_gap_get(ck, col, a);
        if (off >= d)
            break;
    }
    return c * RUNLANE_CHUNK + a;
}

size_t
runlane_count(const runlane *rl)
{
    return rl->n;
}

void
runlane_get(const runlane *rl, size_t i, runlane_run *out)
{
    memset(out, 0, sizeof *out);
    if (i >= rl->n)
        return;
    size_t c = i / RUNLANE_CHUNK, j = i % RUNLANE_CHUNK;
    unsigned sf;
    if (c < rl->n_chunks) {
        const runlane_chunk *ck = &rl->chunks[c];
        const uint64_t *off = rl->words + ck->word, *dur = off + ck->w_off;
        out->start_ns = rl->bases[c] + runlane_off_get(ck, off, j, runlane_chunk_len(rl, c));
        out->end_ns = out->start_ns + runlane_col_get(dur, ck->w_dur, j);
        out->tid = ck->tid_min + (uint32_t)runlane_tid_get(ck, off, j);
        sf = runlane_sf_get(ck, off, j);
    } else {
        const runlane_open *o = rl->open;
        out->start_ns = o->start_ns[j];
        out->end_ns = o->start_ns[j] + o->dur_ns[j];
        out->tid = o->tid[j];
        sf = o->sf[j];
    }
    out->stop = (uint8_t)(sf & 0xff);
    out->flags = (uint8_t)(sf >> RUNLANE_SF_SHIFT);
}

void
runlane_get_seq(const runlane *rl, size_t i, runlane_run *out, runlane_seq *seq)
{
    size_t c = i / RUNLANE_CHUNK, j = i % RUNLANE_CHUNK;
    if (seq->rl != rl || seq->next != i || j == 0 || c >= rl->n_chunks || i >= rl->n) {
        runlane_get(rl, i, out);
    } else {
        const runlane_chunk *ck = &rl->chunks[c];
        const uint64_t *col = rl->words + ck->word;
        out->start_ns = seq->end_ns + runlane_gap_get(ck, col, j);
        out->end_ns = out->start_ns + runlane_col_get(col + ck->w_off, ck->w_dur, j);
        out->tid = ck->tid_min + (uint32_t)runlane_tid_get(ck, col, j);
        unsigned sf = runlane_sf_get(ck, col, j);
        out->stop = (uint8_t)(sf & 0xff);
        out->flags = (uint8_t)(sf >> RUNLANE_SF_SHIFT);
    }
    *seq = (runlane_seq){ i < rl->n ? rl : NULL, i + 1, out->end_ns };
}

size_t
runlane_n_blocks(const runlane *rl)
{
    return rl->n_chunks + (rl->open && rl->open->len ? 1 : 0);
}

uint64_t
runlane_block_start_ns(const runlane *rl, size_t b)
{
    if (b < rl->n_chunks)
        return rl->bases[b];
    return rl->open && rl->open->len ? rl->open->start_ns[0] : UINT64_MAX;
}

void
runlane_block_tids(const runlane *rl, size_t b, uint32_t *lo, uint32_t *hi)
{
    if (b < rl->n_chunks) {
        /* Every tid is within 2^w of tid_min, w the exceptions' width when there are
         * any (the window lies inside that too), else the tid column's (no window
         * but the one from tid_min). The header has both: nothing is unpacked. */
        const runlane_chunk *ck = &rl->chunks[b];
        unsigned w = ck->n_exc ? ck->w_exc : ck->w_tid;
        uint64_t top = (uint64_t)ck->tid_min + bitpack_mask(w);
        *lo = ck->tid_min;
        *hi = top > UINT32_MAX ? UINT32_MAX : (uint32_t)top;
        return;
    }
    const runlane_open *o = rl->open;
    *lo = UINT32_MAX;
    *hi = 0;
    for (size_t j = 0; o && j < o->len; j++) {
        *lo = o->tid[j] < *lo ? o->tid[j] : *lo;
        *hi = o->tid[j] > *hi ? o->tid[j] : *hi;
    }
}

bool
runlane_block_has_tid_in(const runlane *rl, size_t b, uint32_t lo, uint32_t hi)
{
    if (b >= rl->n_chunks) {
        const runlane_open *o = rl->open;
        for (size_t j = 0; o && j < o->len; j++)
            if (o->tid[j] >= lo && o->tid[j] <= hi)
                return true;
        return false;
    }
    /* The tid column's window, then the exceptions alone (a few long-lived threads'
     * runs among many short-lived ones' widen the block's bounds, not its window). */
    const runlane_chunk *ck = &rl->chunks[b];
    if (ck->tid_base <= hi && (uint64_t)ck->tid_base + bitpack_mask(ck->w_tid) >= lo)
        return true;
    if (ck->n_exc == 0 || ck->tid_min > hi || (uint64_t)ck->tid_min + bitpack_mask(ck->w_exc) < lo)
        return false;
    const uint64_t *exc = rl->words + ck->word + runlane_exc_at(ck);
    uint64_t me = bitpack_mask(ck->w_exc);
    for (unsigned k = 0; k < ck->n_exc; k++) {
        uint32_t t = ck->tid_min + (uint32_t)bitpack_get_masked(exc + 1, (uint64_t)k * ck->w_exc, me);
        if (t >= lo && t <= hi)
            return true;
    }
    return false;
}

/* Values [0, len) of a column of width w into v. */
static void
runlane_col_unpack(const uint64_t *col, unsigned w, size_t len, uint64_t *v)
{
    uint64_t m = bitpack_mask(w);
    for (size_t j = 0; j < len; j++)
        v[j] = bitpack_get_masked(col, (uint64_t)j * w, m);
}

void
runlane_block_get(const runlane *rl, size_t b, runlane_block *out, unsigned cols)
{
    out->first = b * RUNLANE_CHUNK;
    if (b >= rl->n_chunks) {
        const runlane_open *o = rl->open;
        size_t len = out->len = o ? o->len : 0;
        for (size_t j = 0; j < len; j++) {
            out->start_ns[j] = o->start_ns[j];
            out->dur_ns[j] = o->dur_ns[j];
            out->tid[j] = o->tid[j];
            out->stop[j] = (uint8_t)(o->sf[j] & 0xff);
            out->flags[j] = (uint8_t)(o->sf[j] >> RUNLANE_SF_SHIFT);
        }
        return;
    }
    /* Column by column, each a tight loop of one width, then its exceptions patched in.
     * Durations and tids stand alone; starts need the durations (a start is the previous
     * run's end plus a gap), unpacked here when the caller did not ask for them. */
    const runlane_chunk *ck = &rl->chunks[b];
    size_t len = runlane_chunk_len(rl, b);
    out->len = len;
    const uint64_t *col = rl->words + ck->word, *dur = col + ck->w_off;
    const uint64_t *tid = dur + ck->w_dur, *sf = tid + ck->w_tid;
    uint64_t dtmp[RUNLANE_CHUNK], v[RUNLANE_CHUNK];
    const uint64_t *d = out->dur_ns;
    if (cols & RUNLANE_COL_DUR)
        runlane_col_unpack(dur, ck->w_dur, len, out->dur_ns);
    else if (cols & RUNLANE_COL_START) {
        runlane_col_unpack(dur, ck->w_dur, len, dtmp);
        d = dtmp;
    }
    if (cols & RUNLANE_COL_START) {
        runlane_col_unpack(col, ck->w_off, len, v);
        if (ck->n_gexc) {                       /* the wide gaps, from the map word */
            const uint64_t *exc = col + runlane_gexc_at(ck);
            uint64_t me = bitpack_mask(ck->w_gexc);
            size_t k = 0;
            for (uint64_t map = exc[0]; map; map &= map - 1)
                v[__builtin_ctzll(map)] =
                    bitpack_get_masked(exc + 1, (uint64_t)k++ * ck->w_gexc, me);
        }
        uint64_t at = rl->bases[b] + v[0];
        out->start_ns[0] = at;
        for (size_t j = 1; j < len; j++) {
            at += d[j - 1] + v[j];
            out->start_ns[j] = at;
        }
    }
    if (cols & RUNLANE_COL_TID) {
        uint64_t m = bitpack_mask(ck->w_tid);
        for (size_t j = 0; j < len; j++)
            out->tid[j] =
                ck->tid_base + (uint32_t)bitpack_get_masked(tid, (uint64_t)j * ck->w_tid, m);
        if (ck->n_exc) {                        /* the patched tids, from the map word */
            const uint64_t *exc = col + runlane_exc_at(ck);
            uint64_t me = bitpack_mask(ck->w_exc);
            size_t k = 0;
            for (uint64_t map = exc[0]; map; map &= map - 1)
                out->tid[__builtin_ctzll(map)] =
                    ck->tid_min +
                    (uint32_t)bitpack_get_masked(exc + 1, (uint64_t)k++ * ck->w_exc, me);
        }
    }
    if (cols & RUNLANE_COL_STOP) {
        uint64_t m = bitpack_mask(ck->w_sf), m_stop = bitpack_mask(ck->w_stop);
        for (size_t j = 0; j < len; j++) {
            uint64_t x = bitpack_get_masked(sf, (uint64_t)j * ck->w_sf, m);
            out->stop[j] = (uint8_t)(x & m_stop);
            out->flags[j] = (uint8_t)(x >> ck->w_stop);
        }
    }
}

/* The sums of runs [0, len) of a block all of whose tid column values count (base plus
 * the value is below the caller's n): a field one load (RUNLANE_LOAD57, widths <= 57),
 * no test a run. Out of line so its loop has the registers to itself. */
static __attribute__((noinline)) void
runlane_add_all57(const uint64_t *tid, unsigned w_tid, uint64_t mt, const uint64_t *dur,
                  unsigned w_dur, uint64_t md, uint32_t base, size_t len, uint64_t *sum,
                  uint32_t *count)
{
    uint64_t bt = 0, bd = 0, bt_end = (uint64_t)len * w_tid;
    if (w_tid == 0) {           /* one thread: every run adds to the same sums */
        uint64_t total = 0;
        for (size_t j = 0; j < len; j++, bd += w_dur)
            total += runlane_col_get57(dur, bd, md);
        sum[base] += total;
        count[base] += (uint32_t)len;
        return;
    }
    for (; bt < bt_end; bt += w_tid, bd += w_dur) {
        uint32_t k = base + (uint32_t)runlane_col_get57(tid, bt, mt);
        sum[k] += runlane_col_get57(dur, bd, md);
        count[k]++;
    }
}

/* The sums of runs [0, len) of a block with patched tids (exc: its exception map word,
 * then the exceptions, w_exc bits each, from exc_base + tid_lo; NULL when none), or
 * whose column reaches past the caller's n: each run's place from tid_lo first (k,
 * wrapping past n below tid_lo), the exceptions written over their column values (a
 * block of new threads among which old ones run may have most of its runs patched),
 * then the sums of the places below n. Fields one load each (RUNLANE_LOAD57: w_dur <=
 * 57; tids and exceptions are at most 32 bits). */
static __attribute__((noinline)) void
runlane_add_patched57(const uint64_t *tid, unsigned w_tid, uint64_t mt, const uint64_t *dur,
                      unsigned w_dur, uint64_t md, uint32_t base, size_t len,
                      const uint64_t *exc, unsigned w_exc, uint32_t exc_base, size_t n,
                      uint64_t *sum, uint32_t *count)
{
    uint32_t k[RUNLANE_CHUNK];
    uint64_t bt = 0, bd = 0;
    for (size_t j = 0; j < len; j++, bt += w_tid)
        k[j] = base + (uint32_t)runlane_col_get57(tid, bt, mt);
    if (exc) {
        uint64_t me = bitpack_mask(w_exc), be = 0;
        for (uint64_t map = exc[0]; map; map &= map - 1, be += w_exc)
            k[__builtin_ctzll(map)] = exc_base + (uint32_t)runlane_col_get57(exc + 1, be, me);
    }
    for (size_t j = 0; j < len; j++, bd += w_dur) {
        uint32_t kj = k[j];
        if (kj < n) {
            sum[kj] += runlane_col_get57(dur, bd, md);
            count[kj]++;
        }
    }
}

void
runlane_block_add_by_tid(const runlane *rl, size_t b, uint32_t tid_lo, size_t n,
                         uint64_t *sum, uint32_t *count)
{
    /* k = tid - tid_lo in 32 bits: a tid below tid_lo wraps past n. */
    if (b >= rl->n_chunks) {
        const runlane_open *o = rl->open;
        for (size_t j = 0; o && j < o->len; j++) {
            size_t k = (uint32_t)(o->tid[j] - tid_lo);
            if (k < n) {
                sum[k] += o->dur_ns[j];
                count[k]++;
            }
        }
        return;
    }
    /* Straight from the packed columns, without a block to unpack into. */
    const runlane_chunk *ck = &rl->chunks[b];
    size_t len = runlane_chunk_len(rl, b);
    const uint64_t *col = rl->words + ck->word, *dur = col + ck->w_off, *tid = dur + ck->w_dur;
    uint64_t md = bitpack_mask(ck->w_dur), mt = bitpack_mask(ck->w_tid);
    uint32_t base = ck->tid_base - tid_lo;
    if (RUNLANE_LOAD57 && ck->n_exc == 0 && ck->w_dur <= 57 && (uint64_t)base + mt < n) {
        /* Every run of the column counts (its tids lie within [tid_lo, tid_lo + n)). */
        runlane_add_all57(tid, ck->w_tid, mt, dur, ck->w_dur, md, base, len, sum, count);
        return;
    }
    const uint64_t *exc = ck->n_exc ? col + runlane_exc_at(ck) : NULL;
    uint32_t exc_base = ck->tid_min - tid_lo;
    if (RUNLANE_LOAD57 && ck->w_dur <= 57) {
        runlane_add_patched57(tid, ck->w_tid, mt, dur, ck->w_dur, md, base, len, exc,
                              ck->w_exc, exc_base, n, sum, count);
        return;
    }
    /* The same with two-word reads (a duration wider than 57 bits, or a big-endian
     * machine). */
    uint32_t k[RUNLANE_CHUNK];
    for (size_t j = 0; j < len; j++)
        k[j] = base + (uint32_t)bitpack_get_masked(tid, (uint64_t)j * ck->w_tid, mt);
    if (exc) {
        uint64_t me = bitpack_mask(ck->w_exc);
        size_t at = 0;
        for (uint64_t map = exc[0]; map; map &= map - 1)
            k[__builtin_ctzll(map)] =
                exc_base + (uint32_t)bitpack_get_masked(exc + 1, (uint64_t)at++ * ck->w_exc, me);
    }
    for (size_t j = 0; j < len; j++)
        if (k[j] < n) {
            sum[k[j]] += bitpack_get_masked(dur, (uint64_t)j * ck->w_dur, md);
            count[k[j]]++;
        }
}

size_t
runlane_first_after(const runlane *rl, uint64_t t)
{
    /* Runs starting before t: all but the last end by t (they do not overlap), so
     * only that one can still be running at t. Runs starting at or after t qualify. */
    size_t k = runlane_count_starts(rl, t, false);
    if (k == 0)
        return 0;
    uint64_t start, dur;
    runlane_span(rl, k - 1, &start, &dur);
    return start + dur > t ? k - 1 : k;
}

struct runlane_sweep {
    const runlane *rl;          /* borrowed */
    size_t chunk;               /* the packed chunk unpacked below, or SIZE_MAX */
    size_t len;                 /* its runs */
    size_t seg, n_done;         /* runs [seg, n_done) of it are unpacked below */
    /* The last answer, good for every t in [memo_lo, memo_hi): from its run's start to
     * the next run's (a join asks of a lane at its own GC start, then at the leader's). */
    uint64_t memo_lo, memo_hi, memo_end;
    size_t memo_idx;
    uint64_t start_ns[RUNLANE_CHUNK], dur_ns[RUNLANE_CHUNK];
};

/* Start on packed chunk c: nothing of it unpacked yet. */
static void
runlane_sweep_load(runlane_sweep *sw, size_t c)
{
    sw->chunk = c;
    sw->len = runlane_chunk_len(sw->rl, c);
    sw->seg = sw->n_done = 0;
}

/* Unpack the chunk's starts and durations so that [seg, n_done) holds the last run
 * starting at or before t (given the chunk's base is) and the run after it, if any: on
 * from n_done while the last one unpacked starts at or before t, from the start
 * checkpoint at or before t (run k * RUNLANE_CP_STEP, whose start the chunk keeps)
 * when the runs unpacked end before it or start after t. A sweep so unpacks at most
 * RUNLANE_CP_STEP runs a query far from the last, and a chunk only as far as its
 * queries reach. The columns' widths, masks and gap exceptions are read once (as
 * runlane_gap_get and runlane_col_get would, run by run). */
static void
runlane_sweep_upto(runlane_sweep *sw, uint64_t t)
{
    const runlane *rl = sw->rl;
    const runlane_chunk *ck = &rl->chunks[sw->chunk];
    const uint64_t *off = rl->words + ck->word, *dur = off + ck->w_off;
    const uint64_t base = rl->bases[sw->chunk];
    /* The segment of t: the last checkpointed run starting at or before it. */
    size_t from = 0;
    uint64_t from_ns = 0;
    for (size_t k = 1; k * RUNLANE_CP_STEP < sw->len; k++) {
        uint64_t cs = base + runlane_col_get(off + runlane_scp_at(ck), ck->w_span, k - 1);
        if (cs > t)
            break;
        from = k * RUNLANE_CP_STEP;
        from_ns = cs;
    }
    if (from > sw->n_done || from < sw->seg) {
        sw->seg = sw->n_done = from;
    } else if (sw->n_done > sw->seg && sw->start_ns[sw->n_done - 1] > t) {
        return;                 /* [seg, n_done) holds t's run and the one after */
    }
    const unsigned w_off = ck->w_off, w_dur = ck->w_dur, w_gexc = ck->w_gexc;
    const uint64_t m_off = bitpack_mask(w_off), m_dur = bitpack_mask(w_dur);
    const uint64_t m_gexc = bitpack_mask(w_gexc);
    const uint64_t *gexc = ck->n_gexc ? off + runlane_gexc_at(ck) : NULL;
    const uint64_t gmap = gexc ? gexc[0] : 0;
    size_t j = sw->n_done;
    for (; j < sw->len && (j == sw->seg || sw->start_ns[j - 1] <= t); j++) {
        if (j == sw->seg && j > 0) {
            sw->start_ns[j] = from_ns;      /* a checkpoint: seg is from */
        } else {
            uint64_t gap = gmap >> j & 1
                               ? bitpack_get_masked(gexc + 1,
                                                    (uint64_t)runlane_popcount(
                                                        gmap & ((UINT64_C(1) << j) - 1)) *
                                                        w_gexc,
                                                    m_gexc)
                               : bitpack_get_masked(off, (uint64_t)j * w_off, m_off);
            sw->start_ns[j] = j ? sw->start_ns[j - 1] + sw->dur_ns[j - 1] + gap : base + gap;
        }
        sw->dur_ns[j] = bitpack_get_masked(dur, (uint64_t)j * w_dur, m_dur);
    }
    sw->n_done = j;
}

runlane_sweep *
runlane_sweep_new(const runlane *rl)
{
    runlane_sweep *sw = xmalloc(sizeof *sw);    /* caller frees: runlane_sweep_free */
    sw->rl = rl;
    sw->chunk = SIZE_MAX;
    sw->len = 0;
    sw->seg = sw->n_done = 0;
    sw->memo_lo = 1;
    sw->memo_hi = 0;            /* empty */
    return sw;
}

void
runlane_sweep_free(runlane_sweep *sw)
{
    x_free(sw);
}

/* The last of starts[0..n) that is <= t, given starts[0] <= t. */
static size_t
runlane_last_le(const uint64_t *starts, size_t n, uint64_t t)
{
    size_t lo = 1, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo - 1;
}

size_t
runlane_sweep_last_starting_by(runlane_sweep *sw, uint64_t t, uint64_t *end_ns)
{
    const runlane *rl = sw->rl;
    const runlane_open *o = rl->open;
    if (t >= sw->memo_lo && t < sw->memo_hi) {
        *end_ns = sw->memo_end;
        return sw->memo_idx;
    }
    if (o && o->len && o->start_ns[0] <= t) {
        size_t j = runlane_last_le(o->start_ns, o->len, t);
        *end_ns = o->start_ns[j] + o->dur_ns[j];
        return rl->n_chunks * RUNLANE_CHUNK + j;
    }
    if (rl->n_chunks == 0 || rl->bases[0] > t)
        return SIZE_MAX;
    /* The last chunk whose base is <= t: the one held if the next base is past t, else
     * a gallop from it (runlane_chunk_search counts bases < its bound). */
    size_t c = sw->chunk;
    if (c == SIZE_MAX || rl->bases[c] > t ||
        (c + 1 < rl->n_chunks && rl->bases[c + 1] <= t)) {
        c = t == UINT64_MAX ? rl->n_chunks - 1
                            : runlane_chunk_search(rl, t + 1, c == SIZE_MAX ? 0 : c);
        runlane_sweep_load(sw, c);
    }
    runlane_sweep_upto(sw, t);
    size_t j = sw->seg + runlane_last_le(sw->start_ns + sw->seg, sw->n_done - sw->seg, t);
    *end_ns = sw->start_ns[j] + sw->dur_ns[j];
    /* Run j + 1, when unpacked, starts after t: until then the answer stands. */
    sw->memo_lo = sw->start_ns[j];
    sw->memo_hi = j + 1 < sw->n_done ? sw->start_ns[j + 1] : sw->start_ns[j];
    sw->memo_end = *end_ns;
    sw->memo_idx = c * RUNLANE_CHUNK + j;
    return c * RUNLANE_CHUNK + j;
}

size_t
runlane_last_starting_by(const runlane *rl, uint64_t t)
{
    size_t k = runlane_count_starts(rl, t, true);
    return k ? k - 1 : SIZE_MAX;
}

/* A packed chunk's gaps at hand for a walk: the low column, and the exceptions' map and
 * values (map 0 when it has none). */
typedef struct runlane_gaps {
    const uint64_t *low, *exc;
    uint64_t m_low, m_exc, map;
    unsigned w_low, w_exc;
} runlane_gaps;

static inline void
runlane_gaps_init(runlane_gaps *g, const runlane_chunk *ck, const uint64_t *col)
{
    g->low = col;
    g->w_low = ck->w_off;
    g->m_low = bitpack_mask(ck->w_off);
    g->map = 0;
    g->exc = col;
    g->w_exc = 0;
    g->m_exc = 0;
    if (ck->n_gexc) {
        const uint64_t *exc = col + runlane_gexc_at(ck);
        g->map = exc[0];
        g->exc = exc + 1;
        g->w_exc = ck->w_gexc;
        g->m_exc = bitpack_mask(ck->w_gexc);
    }
}

/* Run j's gap, k being the number of exceptions among runs [0, j) (what a walk keeps
 * count of instead of counting the map's bits at every step). */
static inline uint64_t
runlane_gaps_get(const runlane_gaps *g, size_t j, unsigned k)
{
    if (g->map >> j & 1)
        return bitpack_get_masked(g->exc, (uint64_t)k * g->w_exc, g->m_exc);
    return bitpack_get_masked(g->low, (uint64_t)j * g->w_low, g->m_low);
}

/* Exceptions among runs [0, j), j < 64. */
static inline unsigned
runlane_gaps_below(const runlane_gaps *g, size_t j)
{
    return g->map ? runlane_popcount(g->map & ((UINT64_C(1) << j) - 1)) : 0;
}

/* A walk through packed chunk c's runs with its columns at hand: where it stands (run
 * cur of the chunk, starting off ns after the chunk's base and lasting dcur, busy the
 * run time of its runs [0, cur), below the gap exceptions among runs [0, cur + 1)), and
 * the widths, masks and places of the columns it reads. */
typedef struct runlane_walker {
    const runlane_chunk *ck;
    const uint64_t *dur, *scp, *bcp;
    runlane_gaps g;
    uint64_t m_span, m_dur, m_bcp;
    unsigned w_bcp;
    size_t len, n_cp;           /* runs; start checkpoints (RUNLANE_CP_STEP apart) */
    size_t cur;
    uint64_t off, dcur, busy;
    unsigned below;
} runlane_walker;

static inline void
runlane_walker_load(runlane_walker *w, const runlane *rl, size_t c)
{
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *col = rl->words + ck->word;
    w->ck = ck;
    w->dur = col + ck->w_off;
    w->scp = col + runlane_scp_at(ck);
    w->bcp = col + runlane_cp_at(ck);
    w->len = runlane_chunk_len(rl, c);
    /* Checkpoint k holds run (k + 1) * RUNLANE_CP_STEP's offset, for those < len. */
    size_t n_cp = (w->len - 1) / RUNLANE_CP_STEP;
    w->n_cp = n_cp < RUNLANE_N_CP ? n_cp : RUNLANE_N_CP;
    runlane_gaps_init(&w->g, ck, col);
    w->m_span = bitpack_mask(ck->w_span);
    w->m_dur = bitpack_mask(ck->w_dur);
    w->w_bcp = runlane_cp_width(ck->w_dur);
    w->m_bcp = bitpack_mask(w->w_bcp);
}

/* Forwards from where w stands (off < d) to the last run starting before d. */
static inline void
runlane_walker_forward(runlane_walker *w, uint64_t d)
{
    size_t cur = w->cur;
    uint64_t off = w->off, dcur = w->dcur, busy = w->busy;
    unsigned below = w->below;
    while (cur + 1 < w->len) {
        size_t j = cur + 1;
        uint64_t next = off + dcur + runlane_gaps_get(&w->g, j, below);
        if (next >= d)
            break;
        below += (unsigned)(w->g.map >> j & 1);
        busy += dcur;
        off = next;
        cur = j;
        dcur = bitpack_get_masked(w->dur, (uint64_t)cur * w->ck->w_dur, w->m_dur);
    }
    w->cur = cur;
    w->off = off;
    w->dcur = dcur;
    w->busy = busy;
    w->below = below;
}

/* Stand on the last run starting before d (> 0: the chunk's first run starts before
 * it): one walk from the start checkpoint before d, or back from the one after it when
 * nearer, adding up starts and run time together. */
static void
runlane_walker_find(runlane_walker *w, uint64_t d)
{
    const runlane_chunk *ck = w->ck;
    size_t cur = 0, next_cp = SIZE_MAX;
    uint64_t off = runlane_gaps_get(&w->g, 0, 0), next_off = 0;
    for (size_t k = 0; k < w->n_cp; k++) {
        uint64_t v = bitpack_get_masked(w->scp, (uint64_t)k * ck->w_span, w->m_span);
        if (v >= d) {
            next_cp = k;
            next_off = v;
            break;
        }
        cur = (k + 1) * RUNLANE_CP_STEP;
        off = v;
    }
    if (next_cp != SIZE_MAX && d - off > (next_off - off) / 2) {
        /* Nearer the next checkpoint (guessing runs evenly spread): walk back from it to
         * the last run starting before d. */
        cur = (next_cp + 1) * RUNLANE_CP_STEP;
        off = next_off;
        uint64_t busy = bitpack_get_masked(w->bcp, (uint64_t)next_cp * w->w_bcp, w->m_bcp);
        unsigned below = runlane_gaps_below(&w->g, cur);
        uint64_t dprev;
        do {
            dprev = bitpack_get_masked(w->dur, (uint64_t)(cur - 1) * ck->w_dur, w->m_dur);
            off -= runlane_gaps_get(&w->g, cur, below) + dprev;
            busy -= dprev;
            cur--;
            below -= (unsigned)(w->g.map >> cur & 1);
        } while (off >= d && cur > 0);
        w->cur = cur;
        w->off = off;
        w->dcur = dprev;
        w->busy = busy;
        w->below = below + (unsigned)(w->g.map >> cur & 1);
        return;
    }
    w->cur = cur;
    w->off = off;
    w->busy = cur ? bitpack_get_masked(w->bcp, (uint64_t)(cur / RUNLANE_CP_STEP - 1) * w->w_bcp,
                                       w->m_bcp)
                  : 0;
    w->dcur = bitpack_get_masked(w->dur, (uint64_t)cur * ck->w_dur, w->m_dur);
    w->below = cur + 1 < w->len ? runlane_gaps_below(&w->g, cur + 1) : 0;
    runlane_walker_forward(w, d);
}

/* To the last run starting before d from where w stands (off < d): forwards when no
 * start checkpoint lies between, else runlane_walker_find (at most RUNLANE_CP_STEP runs
 * walked either way). */
static inline void
runlane_walker_advance(runlane_walker *w, uint64_t d)
{
    size_t k = w->cur / RUNLANE_CP_STEP;       /* the next checkpoint's, run (k + 1) * STEP */
    if (k < w->n_cp && bitpack_get_masked(w->scp, (uint64_t)k * w->ck->w_span, w->m_span) < d)
        runlane_walker_find(w, d);
    else
        runlane_walker_forward(w, d);
}

/* Run time inside [0, base + d) where w stands on the last run starting before it. */
static inline uint64_t
runlane_walker_busy(const runlane_walker *w, uint64_t d)
{
    uint64_t end = w->off + w->dcur;            /* both relative to the base */
    return w->ck->prefix_ns + w->busy + ((end < d ? end : d) - w->off);
}

/* Run time inside [0, t) when the last run starting before t is in packed chunk c
 * (whose base is < t). */
static uint64_t
runlane_busy_before_in(const runlane *rl, size_t c, uint64_t t)
{
    runlane_walker w;
    runlane_walker_load(&w, rl, c);
    uint64_t d = t - rl->bases[c];
    runlane_walker_find(&w, d);
    return runlane_walker_busy(&w, d);
}

/* Run time inside [0, t): whole runs before the last one starting before t, from
 * the prefix sums, plus that run clipped at t. */
uint64_t
runlane_busy_upto(const runlane *rl, uint64_t t)
{
    size_t in = runlane_chunk_before(rl, t, 0);
    if (in != SIZE_MAX)
        return runlane_busy_before_in(rl, in, t);
    size_t k = runlane_count_starts(rl, t, false);
    if (k == 0)
        return 0;
    size_t i = k - 1, c = i / RUNLANE_CHUNK;
    uint64_t start, dur;
    runlane_span(rl, i, &start, &dur);
    uint64_t end = start + dur;
    uint64_t before = runlane_chunk_prefix(rl, c) + runlane_chunk_sum(rl, c, i % RUNLANE_CHUNK);
    return before + ((end < t ? end : t) - start);
}

/* Boundaries whose chunks are prefetched at once by runlane_busy_upto_many. */
#define RUNLANE_PREFETCH_BLOCK 256

/* For each of the n increasing times t[], the last packed chunk whose base is < t[m]
 * into at[m] (SIZE_MAX if none), galloping from the previous one; and ask the memory
 * system for those chunks, the headers first, then (`words`) their words. A sweep over
 * screen columns far apart touches a new chunk per column, and most of its time is
 * spent waiting for those loads one after another; issued together, they overlap. */
static void
runlane_locate_chunks(const runlane *rl, const uint64_t *t, size_t n, size_t *at, bool words)
{
    size_t cs[RUNLANE_PREFETCH_BLOCK], n_cs = 0, lo = 0, stride = 0;
    for (size_t m = 0; m < n; m++) {
        at[m] = SIZE_MAX;
        if (rl->n_chunks == 0 || rl->bases[0] >= t[m])
            continue;
        if (rl->bases[lo] >= t[m]) {        /* times out of order: from the start */
            lo = 0;
            stride = 0;
        }
        size_t prev = lo;
        if (lo == 0 && stride == 0)         /* the first time: from where it falls were
                                             * the chunks spread evenly */
            stride = gallop_guess(rl->bases, sizeof *rl->bases, rl->n_chunks, t[m]);
        lo = gallop_last_below(rl->bases, sizeof *rl->bases, rl->n_chunks, t[m], lo, stride);
        at[m] = lo;
        stride = lo - prev;
        if (n_cs == 0 || cs[n_cs - 1] != lo) {
            cs[n_cs++] = lo;
            __builtin_prefetch(&rl->chunks[lo]);
            __builtin_prefetch(&rl->chunks[lo + 1]);
        }
    }
    for (size_t k = 0; k < n_cs && words; k++) {
        const runlane_chunk *ck = &rl->chunks[cs[k]];
        const uint64_t *w = rl->words + ck->word;
        unsigned nw = runlane_chunk_words(ck);
        for (unsigned j = 0; j < nw; j += 8)
            __builtin_prefetch(w + j);
        __builtin_prefetch(w + nw - 1);
    }
}

void
runlane_busy_upto_many(const runlane *rl, const uint64_t *t, size_t n, uint64_t *out)
{
    size_t at[RUNLANE_PREFETCH_BLOCK];
    const runlane_open *o = rl->open;
    uint64_t open_first = o && o->len ? o->start_ns[0] : UINT64_MAX;
    runlane_walker w;
    size_t w_chunk = SIZE_MAX;          /* the chunk w walks, SIZE_MAX: none */
    uint64_t w_d = 0;                   /* the last time it answered, less the base */
    for (size_t m0 = 0; m0 < n; m0 += RUNLANE_PREFETCH_BLOCK) {
        size_t m1 = n - m0 < RUNLANE_PREFETCH_BLOCK ? n : m0 + RUNLANE_PREFETCH_BLOCK;
        runlane_locate_chunks(rl, t + m0, m1 - m0, at, true);
        for (size_t m = m0; m < m1; m++) {
            size_t c = at[m - m0];
            if (t[m] > open_first) {
                out[m] = runlane_busy_upto(rl, t[m]);
                continue;
            }
            /* The last run starting before t[m] is packed, or there is none. */
            if (c == SIZE_MAX) {
                out[m] = 0;
                continue;
            }
            uint64_t d = t[m] - rl->bases[c];
            if (c == w_chunk && d >= w_d) {
                runlane_walker_advance(&w, d);  /* on from the last answer */
            } else {
                runlane_walker_load(&w, rl, c);
                runlane_walker_find(&w, d);
                w_chunk = c;
            }
            w_d = d;
            out[m] = runlane_walker_busy(&w, d);
        }
    }
}

/* The bounds at t from what the chunk headers say: busy time rises by at most the time
 * that passes, and equals the prefix sum at every chunk's base (the runs before a chunk
 * end by its first start), at an open chunk's first start and, past the last run's end,
 * the lane's total. So for t between two such points (s0, p0) and (s1, p1):
 * max(p0, p1 - (s1 - t)) <= busy <= min(p1, p0 + (t - s0)). Here (s1, p1): the point
 * after packed chunk c's base. */
static inline void
runlane_chunk_next_point(const runlane *rl, size_t c, uint64_t *s1, uint64_t *p1)
{
    const runlane_open *o = rl->open;
    if (c + 1 < rl->n_chunks) {
        *s1 = rl->bases[c + 1];
        *p1 = rl->chunks[c + 1].prefix_ns;
    } else if (o && o->len) {
        *s1 = o->start_ns[0];
        *p1 = o->prefix_ns;
    } else {
        *s1 = rl->last_end_ns;
        *p1 = rl->total_ns;
    }
}

/* The bounds at t in [s0, s1) between the points (s0, p0) and (s1, p1). */
static inline void
runlane_bounds_between(uint64_t t, uint64_t s0, uint64_t p0, uint64_t s1, uint64_t p1,
                       uint64_t *lo, uint64_t *hi)
{
    uint64_t before = s1 - t;           /* time left to s1 */
    uint64_t l = p1 > before ? p1 - before : 0;
    uint64_t h = p0 + (t - s0);
    *lo = l > p0 ? l : p0;
    *hi = h < p1 ? h : p1;
}

/* The chunks are located a block of times at a time first (runlane_locate_chunks, which
 * asks for their headers at once: at a wide zoom each time's are on lines of their own). */
void
runlane_busy_bounds_many(const runlane *rl, const uint64_t *t, size_t n, uint64_t *lo,
                         uint64_t *hi, size_t *at)
{
    size_t cs[RUNLANE_PREFETCH_BLOCK];
    const runlane_open *o = rl->open;
    uint64_t open_first = o && o->len ? o->start_ns[0] : UINT64_MAX;
    for (size_t m0 = 0; m0 < n; m0 += RUNLANE_PREFETCH_BLOCK) {
        size_t m1 = n - m0 < RUNLANE_PREFETCH_BLOCK ? n : m0 + RUNLANE_PREFETCH_BLOCK;
        runlane_locate_chunks(rl, t + m0, m1 - m0, cs, false);
        for (size_t m = m0; m < m1; m++) {
            uint64_t tm = t[m], s1, p1;
            size_t c = cs[m - m0];
            if (at)
                at[m] = c;
            if (tm > open_first) {
                lo[m] = hi[m] = runlane_busy_upto(rl, tm);
                continue;
            }
            if (c == SIZE_MAX) {
                lo[m] = hi[m] = 0;          /* no run starts before t */
                continue;
            }
            runlane_chunk_next_point(rl, c, &s1, &p1);
            if (tm >= s1)
                lo[m] = hi[m] = p1;
            else
                runlane_bounds_between(tm, rl->bases[c], rl->chunks[c].prefix_ns, s1, p1,
                                       &lo[m], &hi[m]);
        }
    }
}

/* Whether t falls in packed chunk c's span as runlane_locate_chunks finds it (the last
 * base below t), when no run of the open chunk starts before t. */
static bool
runlane_near_ok(const runlane *rl, uint64_t t, size_t c)
{
    return c < rl->n_chunks && rl->bases[c] < t &&
           (c + 1 == rl->n_chunks || rl->bases[c + 1] >= t);
}

/* The in-chunk checkpoints are points of the same kind: run (k + 1) * RUNLANE_CP_STEP's
 * start and the run time before it. The chunks' headers were just read by
 * runlane_busy_bounds_many; their checkpoint words are asked for at once first. */
void
runlane_busy_bounds_near_many(const runlane *rl, const uint64_t *t, const size_t *at,
                              size_t n, uint64_t *lo, uint64_t *hi)
{
    const runlane_open *o = rl->open;
    uint64_t open_first = o && o->len ? o->start_ns[0] : UINT64_MAX;
    for (size_t m = 0; m < n; m++)
        if (t[m] <= open_first && runlane_near_ok(rl, t[m], at[m])) {
            const runlane_chunk *ck = &rl->chunks[at[m]];
            __builtin_prefetch(rl->words + ck->word + runlane_cp_at(ck));
            __builtin_prefetch(rl->words + ck->word + ck->scp_at);
        }
    for (size_t m = 0; m < n; m++) {
        uint64_t tm = t[m];
        size_t c = at[m];
        if (tm > open_first || rl->n_chunks == 0 || rl->bases[0] >= tm) {
            lo[m] = hi[m] = runlane_busy_upto(rl, tm);  /* in the open chunk, or 0 */
            continue;
        }
        if (!runlane_near_ok(rl, tm, c))
            c = runlane_chunk_search(rl, tm, 0);        /* not the chunk tm falls in */
        const runlane_chunk *ck = &rl->chunks[c];
        uint64_t s0 = rl->bases[c], p0 = ck->prefix_ns, s1, p1;
        runlane_chunk_next_point(rl, c, &s1, &p1);
        if (tm >= s1) {
            lo[m] = hi[m] = p1;
            continue;
        }
        /* Checkpoint k holds run (k + 1) * RUNLANE_CP_STEP's offset, for those < len. */
        size_t n_cp = (runlane_chunk_len(rl, c) - 1) / RUNLANE_CP_STEP;
        n_cp = n_cp < RUNLANE_N_CP ? n_cp : RUNLANE_N_CP;
        const uint64_t *col = rl->words + ck->word;
        const uint64_t *scp = col + runlane_scp_at(ck), *bcp = col + runlane_cp_at(ck);
        unsigned w_bcp = runlane_cp_width(ck->w_dur);
        uint64_t m_span = bitpack_mask(ck->w_span), m_bcp = bitpack_mask(w_bcp);
        uint64_t d = tm - s0, base = s0, prefix = p0;
        for (size_t k = 0; k < n_cp; k++) {
            uint64_t v = bitpack_get_masked(scp, (uint64_t)k * ck->w_span, m_span);
            uint64_t p = prefix + bitpack_get_masked(bcp, (uint64_t)k * w_bcp, m_bcp);
            if (v >= d) {
                s1 = base + v;
                p1 = p;
                break;
            }
            s0 = base + v;
            p0 = p;
        }
        runlane_bounds_between(tm, s0, p0, s1, p1, &lo[m], &hi[m]);
    }
}

uint64_t
runlane_busy_ns(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    return runlane_busy_upto(rl, t1) - runlane_busy_upto(rl, t0);
}

size_t
runlane_count_in(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    /* Overlapping runs are those from the first that can overlap [t0, ...) up to the
     * last that starts before t1. */
    size_t hi = runlane_count_starts(rl, t1, false);
    size_t lo = runlane_first_after(rl, t0);
    return hi > lo ? hi - lo : 0;
}

size_t
runlane_count_in_about(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    /* Runs starting before t1: up to the end of the packed chunk holding the last of
     * them (counted exactly when it is in the open chunk, whose starts are plain); runs
     * from t0 on: from the start of the chunk holding the last run starting before t0.
     * Chunk searches only, from guesses: no chunk's columns are read. */
    const runlane_open *o = rl->open;
    uint64_t open_first = o && o->len ? o->start_ns[0] : UINT64_MAX;
    size_t hi, lo;
    if (t1 > open_first)
        hi = runlane_count_starts(rl, t1, false);
    else if (rl->n_chunks == 0 || rl->bases[0] >= t1)
        return 0;
    else
        hi = (runlane_chunk_search(rl, t1, 0) + 1) * RUNLANE_CHUNK;
    if (t0 > open_first)
        lo = runlane_first_after(rl, t0);
    else if (rl->n_chunks == 0 || rl->bases[0] >= t0)
        lo = 0;
    else
        lo = runlane_chunk_search(rl, t0, 0) * RUNLANE_CHUNK;
    hi = hi < rl->n ? hi : rl->n;
    return hi > lo ? hi - lo : 0;
}

uint64_t
runlane_prefix_ns(const runlane *rl, size_t i)
{
    if (i >= rl->n)
        return rl->total_ns;
    size_t c = i / RUNLANE_CHUNK;
    return runlane_chunk_prefix(rl, c) + runlane_chunk_sum(rl, c, i % RUNLANE_CHUNK);
}

size_t
runlane_bytes(const runlane *rl)
{
    return sizeof *rl + rl->cap_words * sizeof *rl->words +
           rl->cap_chunks * (sizeof *rl->chunks + sizeof *rl->bases) +
           (rl->open ? sizeof *rl->open : 0);
}

/* ---- checking ---------------------------------------------------------------------- */

/* Headers alone: widths in range, columns laid end to end over exactly n_words, so
 * the run checks below only read inside the array. */
static bool
runlane_check_headers(const runlane *rl, char *why, size_t why_len)
{
    size_t word = 0;
    for (size_t c = 0; c < rl->n_chunks; c++) {
        const runlane_chunk *ck = &rl->chunks[c];
        if (ck->w_off > 64 || ck->w_dur > 64 || ck->w_tid > 32 || ck->w_sf > RUNLANE_SF_BITS)
            return checkfail(why, why_len, "chunk %zu: widths %u/%u/%u/%u out of range", c,
                             ck->w_off, ck->w_dur, ck->w_tid, ck->w_sf);
        if (ck->w_stop > 8 || ck->w_exc > 32 || ck->n_exc >= RUNLANE_CHUNK ||
            (ck->n_exc == 0) != (ck->w_exc == 0) || ck->w_tid > 32 || ck->w_gexc > 64 ||
            ck->n_gexc >= RUNLANE_CHUNK || (ck->n_gexc == 0) != (ck->w_gexc == 0) ||
            ck->w_span > 64)
            return checkfail(why, why_len, "chunk %zu: stop width %u, tid exceptions %u of"
                             " %u bits, gap exceptions %u of %u bits or start checkpoints of"
                             " %u bits out of range", c, ck->w_stop, ck->n_exc, ck->w_exc,
                             ck->n_gexc, ck->w_gexc, ck->w_span);
        if (ck->scp_at != runlane_scp_offset(ck))
            return checkfail(why, why_len, "chunk %zu: start checkpoints at word %u, the"
                             " widths put them at %u", c, ck->scp_at, runlane_scp_offset(ck));
        if (ck->word != word)
            return checkfail(why, why_len, "chunk %zu: columns at word %u, the widths"
                             " before put them at %zu", c, (unsigned)ck->word, word);
        word += runlane_chunk_words(ck);
        if (word > rl->n_words)
            return checkfail(why, why_len, "chunk %zu: widths reach word %zu of %zu", c,
                             word, rl->n_words);
    }
    if (word != rl->n_words)
        return checkfail(why, why_len, "%zu packed words, the chunk widths account for %zu",
                         rl->n_words, word);
    return true;
}

/* Chunk c's tids against its header: tid_min the smallest, the window and exceptions
 * the plan's, the exception map naming exactly the runs outside the window, the unused
 * bits zero. */
static bool
runlane_check_tids(const runlane *rl, size_t c, char *why, size_t why_len)
{
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *col = rl->words + ck->word;
    size_t len = runlane_chunk_len(rl, c);
    uint32_t tid[RUNLANE_CHUNK] = { 0 };
    uint64_t least = UINT64_MAX, most = 0;
    for (size_t j = 0; j < len; j++) {
        uint64_t v = runlane_tid_get(ck, col, j);
        least = v < least ? v : least;
        most = v > most ? v : most;
        tid[j] = ck->tid_min + (uint32_t)v;
    }
    if (len && least != 0)
        return checkfail(why, why_len, "chunk %zu: tid_min %u is below its smallest"
                         " tid", c, ck->tid_min);
    if (most > UINT32_MAX - ck->tid_min)
        return checkfail(why, why_len, "chunk %zu: tid beyond u32", c);
    runlane_tidplan tp = runlane_tid_plan(tid, len);
    if (tp.base != ck->tid_base || tp.w != ck->w_tid || tp.n_exc != ck->n_exc ||
        tp.w_exc != ck->w_exc)
        return checkfail(why, why_len, "chunk %zu: tids packed from %u in %u bits with %u"
                         " exceptions, the plan is %u in %u with %u", c, ck->tid_base,
                         ck->w_tid, ck->n_exc, tp.base, tp.w, tp.n_exc);
    if (!ck->n_exc)
        return true;
    const uint64_t *exc = col + runlane_exc_at(ck);
    uint64_t want_map = 0;
    for (size_t j = 0; j < len; j++)
        want_map |= (uint64_t)(tid[j] < tp.base || (uint64_t)(tid[j] - tp.base) >> tp.w) << j;
    if (exc[0] != want_map)
        return checkfail(why, why_len, "chunk %zu: tid exception map wrong", c);
    for (size_t j = 0; j < len; j++)
        if ((want_map >> j & 1) && runlane_col_get(col + ck->w_off + ck->w_dur, ck->w_tid, j))
            return checkfail(why, why_len, "chunk %zu: tid slot %zu of an exception is not"
                             " zero", c, j);
    uint64_t used = (uint64_t)ck->n_exc * ck->w_exc;
    uint64_t total = (uint64_t)(runlane_exc_words(ck->n_exc, ck->w_exc) - 1) * 64;
    for (uint64_t bit = used; bit < total; bit += 64)
        if (bitpack_get(exc + 1, bit, total - bit < 64 ? (unsigned)(total - bit) : 64))
            return checkfail(why, why_len, "chunk %zu: tid exception padding not zero", c);
    return true;
}

/* Chunk c's gaps and start checkpoints against its header: the plan's low width and
 * exceptions, the map naming exactly the runs whose gap is wider, their column slots
 * zero, each checkpoint the start of its run, the unused bits zero. */
static bool
runlane_check_gaps(const runlane *rl, size_t c, char *why, size_t why_len)
{
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *col = rl->words + ck->word;
    size_t len = runlane_chunk_len(rl, c);
    uint64_t gap[RUNLANE_CHUNK], map = 0;
    for (size_t j = 0; j < len; j++)
        gap[j] = runlane_gap_get(ck, col, j);
    runlane_gapplan gp = runlane_gap_plan(gap, len);
    if (gp.w != ck->w_off || gp.n_exc != ck->n_gexc || gp.w_exc != ck->w_gexc)
        return checkfail(why, why_len, "chunk %zu: gaps in %u bits with %u exceptions of %u,"
                         " the plan is %u with %u of %u", c, ck->w_off, ck->n_gexc,
                         ck->w_gexc, gp.w, gp.n_exc, gp.w_exc);
    for (size_t j = 0; j < len; j++)
        map |= (uint64_t)(gap[j] >> gp.w != 0) << j;
    if (gp.n_exc) {
        const uint64_t *exc = col + runlane_gexc_at(ck);
        if (exc[0] != map)
            return checkfail(why, why_len, "chunk %zu: gap exception map wrong", c);
        for (size_t j = 0; j < len; j++)
            if ((map >> j & 1) && runlane_col_get(col, ck->w_off, j))
                return checkfail(why, why_len, "chunk %zu: gap slot %zu of an exception is"
                                 " not zero", c, j);
        uint64_t used = (uint64_t)gp.n_exc * gp.w_exc;
        uint64_t total = (uint64_t)(runlane_exc_words(gp.n_exc, gp.w_exc) - 1) * 64;
        for (uint64_t bit = used; bit < total; bit += 64)
            if (bitpack_get(exc + 1, bit, total - bit < 64 ? (unsigned)(total - bit) : 64))
                return checkfail(why, why_len, "chunk %zu: gap exception padding not zero",
                                 c);
    }
    uint64_t off = 0, any = 0, cp[RUNLANE_N_CP];
    const uint64_t *dur = col + ck->w_off;
    for (size_t j = 0; j < len; j++) {
        off += j ? runlane_col_get(dur, ck->w_dur, j - 1) + gap[j] : gap[0];
        for (size_t k = 0; k < RUNLANE_N_CP; k++)
            if ((k + 1) * RUNLANE_CP_STEP == j || (j + 1 == len && (k + 1) * RUNLANE_CP_STEP >= len))
                cp[k] = off;
    }
    for (size_t k = 0; k < RUNLANE_N_CP && len; k++) {
        uint64_t got = runlane_col_get(col + runlane_scp_at(ck), ck->w_span, k);
        if (got != cp[k])
            return checkfail(why, why_len, "chunk %zu: start checkpoint %zu holds %llu, the"
                             " runs say %llu", c, k, (unsigned long long)got,
                             (unsigned long long)cp[k]);
        any |= cp[k];
    }
    if (bitpack_width(any) != ck->w_span)
        return checkfail(why, why_len, "chunk %zu: start checkpoints in %u bits, they need %u",
                         c, ck->w_span, bitpack_width(any));
    uint64_t total = (uint64_t)((RUNLANE_N_CP * ck->w_span + 63) / 64) * 64;
    for (uint64_t bit = (uint64_t)RUNLANE_N_CP * ck->w_span; bit < total; bit += 64)
        if (bitpack_get(col + runlane_scp_at(ck), bit, total - bit < 64 ? (unsigned)(total - bit)
                                                                         : 64))
            return checkfail(why, why_len, "chunk %zu: start checkpoint padding not zero", c);
    return true;
}

/* One chunk's columns against its header: unused slots zero, every width the fewest
 * bits its values need, the base the first run's start, tid_min the smallest tid. */
static bool
runlane_check_columns(const runlane *rl, size_t c, char *why, size_t why_len)
{
    const runlane_chunk *ck = &rl->chunks[c];
    size_t len = runlane_chunk_len(rl, c);
    const uint8_t w[4] = { ck->w_off, ck->w_dur, ck->w_tid, ck->w_sf };
    static const char *const name[4] = { "start", "duration", "tid", "stop+flags" };
    const uint64_t *col = rl->words + ck->word;
    for (size_t f = 0; f < 4; f++) {
        uint64_t most = 0, least = UINT64_MAX;
        for (size_t j = 0; j < RUNLANE_CHUNK; j++) {
            uint64_t v = runlane_col_get(col, w[f], j);
            if (j >= len && v != 0)
                return checkfail(why, why_len, "chunk %zu: %s slot %zu past its %zu runs"
                                 " is not zero", c, name[f], j, len);
            if (j < len) {
                most = v > most ? v : most;
                least = v < least ? v : least;
            }
        }
        if (f != 0 && f != 2 && bitpack_width(most) != w[f])
            return checkfail(why, why_len, "chunk %zu: %s width %u, its values need %u", c,
                             name[f], w[f], bitpack_width(most));
        if (f == 0 && runlane_off_get(ck, rl->words + ck->word, 0, len) != 0)
            return checkfail(why, why_len, "chunk %zu: base %llu is not run %zu's start",
                             c, (unsigned long long)rl->bases[c], c * RUNLANE_CHUNK);
        if (f == 3 && most >> ck->w_stop > RUNLANE_FLAG_MASK)
            return checkfail(why, why_len, "chunk %zu: stop width %u leaves flags %llu", c,
                             ck->w_stop, (unsigned long long)(most >> ck->w_stop));
        col += w[f];
    }
    if (!runlane_check_tids(rl, c, why, why_len) || !runlane_check_gaps(rl, c, why, why_len))
        return false;
    uint64_t any_stop = 0;
    for (size_t j = 0; j < len; j++)
        any_stop |= runlane_sf_get(ck, rl->words + ck->word, j) & 0xff;
    if (bitpack_width(any_stop) != ck->w_stop)
        return checkfail(why, why_len, "chunk %zu: stop width %u, its stops need %u", c,
                         ck->w_stop, bitpack_width(any_stop));
    /* The checkpoints against a recount, and their words against a fresh encoding (which
     * also has the padding zero). */
    const uint64_t *dur = rl->words + ck->word + ck->w_off;
    uint64_t want[RUNLANE_N_CP], busy = 0, enc[RUNLANE_N_CP] = { 0 };
    unsigned wc = runlane_cp_width(ck->w_dur);
    for (size_t k = 0; k < RUNLANE_N_CP; k++) {
        for (size_t j = k * RUNLANE_CP_STEP; j < (k + 1) * RUNLANE_CP_STEP; j++)
            busy += runlane_col_get(dur, ck->w_dur, j);
        want[k] = busy;
        uint64_t got = runlane_col_get(col, wc, k);
        if (got != busy)
            return checkfail(why, why_len, "chunk %zu: checkpoint %zu holds %llu, recount %llu",
                             c, k, (unsigned long long)got, (unsigned long long)busy);
    }
    runlane_col_put(enc, wc, want, RUNLANE_N_CP);
    if (memcmp(enc, col, runlane_cp_words(ck->w_dur) * sizeof *col) != 0)
        return checkfail(why, why_len, "chunk %zu: checkpoint padding is not zero", c);
    return true;
}

/* Checks run i (start, duration, stop+flags) after the previous run; sums it. */
static bool
runlane_check_run(size_t i, uint64_t start, uint64_t dur, unsigned sf, uint64_t *sum,
                  uint64_t *prev_end, char *why, size_t why_len)
{
    if (start > UINT64_MAX - dur)
        return checkfail(why, why_len, "run %zu: end overflows", i);
    if (i > 0 && start < *prev_end)
        return checkfail(why, why_len, "run %zu: starts at %llu before run %zu ends at %llu",
                         i, (unsigned long long)start, i - 1, (unsigned long long)*prev_end);
    unsigned flags = sf >> RUNLANE_SF_SHIFT;
    if (flags & ~(unsigned)RUNLANE_FLAG_MASK)
        return checkfail(why, why_len, "run %zu: unknown flags %#x", i, flags);
    if ((flags & RUNLANE_F_CLIPPED) && (i == 0 || start != *prev_end))
        return checkfail(why, why_len, "run %zu: clipped but does not start at the previous"
                         " run's end", i);
    *sum += dur;
    *prev_end = start + dur;
    return true;
}

bool
runlane_check(const runlane *rl, char *why, size_t why_len)
{
    if (rl->n_chunks > rl->cap_chunks ||
        (rl->n_chunks && rl->cap_words < rl->n_words + RUNLANE_PAD))
        return checkfail(why, why_len, "count beyond capacity");
    for (size_t k = 0; rl->n_chunks && k < RUNLANE_PAD; k++)
        if (rl->words[rl->n_words + k] != 0)
            return checkfail(why, why_len, "padding word %zu is not zero", k);
    size_t n_open = runlane_open_len(rl);
    if (n_open >= RUNLANE_CHUNK || n_open > rl->n)
        return checkfail(why, why_len, "open chunk holds %zu runs of %zu", n_open, rl->n);
    size_t n_packed = rl->n - n_open;
    if (rl->n_chunks != (n_packed + RUNLANE_CHUNK - 1) / RUNLANE_CHUNK)
        return checkfail(why, why_len, "%zu packed runs in %zu chunks", n_packed,
                         rl->n_chunks);
    if (n_open && n_packed % RUNLANE_CHUNK)
        return checkfail(why, why_len, "open chunk after a short packed one");
    if (!runlane_check_headers(rl, why, why_len))
        return false;

    uint64_t sum = 0, prev_end = 0;
    runlane_open raw;
    for (size_t c = 0; c < rl->n_chunks; c++) {
        const runlane_chunk *ck = &rl->chunks[c];
        if (ck->prefix_ns != sum)
            return checkfail(why, why_len, "chunk %zu: prefix %llu, recount %llu", c,
                             (unsigned long long)ck->prefix_ns, (unsigned long long)sum);
        if (!runlane_check_columns(rl, c, why, why_len))
            return false;
        runlane_decode(rl, c, &raw);
        for (size_t j = 0; j < raw.len; j++) {
            /* Decoding wraps: a start below the base is one past UINT64_MAX. */
            if (raw.start_ns[j] < rl->bases[c])
                return checkfail(why, why_len, "chunk %zu: start overflows", c);
            if (!runlane_check_run(c * RUNLANE_CHUNK + j, raw.start_ns[j], raw.dur_ns[j],
                                   raw.sf[j], &sum, &prev_end, why, why_len))
                return false;
        }
    }
    const runlane_open *o = rl->open;
    if (o) {
        if (o->prefix_ns != sum)
            return checkfail(why, why_len, "open chunk: prefix %llu, recount %llu",
                             (unsigned long long)o->prefix_ns, (unsigned long long)sum);
        for (size_t j = 0; j < o->len; j++) {
            if (o->sf[j] >> RUNLANE_SF_BITS)
                return checkfail(why, why_len, "run %zu: stop+flags %#x out of range",
                                 n_packed + j, o->sf[j]);
            if (!runlane_check_run(n_packed + j, o->start_ns[j], o->dur_ns[j], o->sf[j], &sum,
                                   &prev_end, why, why_len))
                return false;
        }
    }
    if (rl->total_ns != sum)
        return checkfail(why, why_len, "total %llu, recount %llu",
                         (unsigned long long)rl->total_ns, (unsigned long long)sum);
    if (rl->n > 0 && rl->last_end_ns != prev_end)
        return checkfail(why, why_len, "last end %llu, recount %llu",
                         (unsigned long long)rl->last_end_ns, (unsigned long long)prev_end);
    return true;
}

/* ---- test damage ------------------------------------------------------------------- */

/* Replace packed chunk c by raw packed with the given base and tid_min, moving the
 * later chunks' columns if its size changes. Keeps its prefix. */
static void
runlane_test_repack(runlane *rl, size_t c, const runlane_open *raw, uint64_t base_ns,
                    uint32_t tid_min)
{
    runlane_chunk *ck = &rl->chunks[c];
    uint64_t cols[RUNLANE_MAX_WORDS];
    runlane_chunk hdr;
    unsigned words = runlane_encode(raw, base_ns, tid_min, &hdr, cols);
    unsigned old = runlane_chunk_words(ck);
    if (words > old)
        runlane_reserve_words(rl, words - old);
    size_t tail = ck->word + old;
    memmove(rl->words + ck->word + words, rl->words + tail,
            (rl->n_words - tail) * sizeof *rl->words);
    memcpy(rl->words + ck->word, cols, words * sizeof *cols);
    rl->n_words = rl->n_words - old + words;
    runlane_zero_pad(rl);
    for (size_t k = c + 1; k < rl->n_chunks; k++)
        rl->chunks[k].word = rl->chunks[k].word - old + words;
    hdr.prefix_ns = ck->prefix_ns;
    hdr.word = ck->word;
    *ck = hdr;
    rl->bases[c] = base_ns;
}

/* Run i's fields in raw form: the open chunk itself, or chunk c decoded into scratch.
 * After editing, runlane_test_store writes the scratch back. */
static runlane_open *
runlane_test_load(runlane *rl, size_t c, runlane_open *scratch)
{
    if (c >= rl->n_chunks)
        return rl->open;
    runlane_decode(rl, c, scratch);
    return scratch;
}

static void
runlane_test_store(runlane *rl, size_t c, const runlane_open *raw)
{
    if (c >= rl->n_chunks)
        return;
    uint32_t tid_min = raw->tid[0];
    for (size_t j = 1; j < raw->len; j++)
        tid_min = raw->tid[j] < tid_min ? raw->tid[j] : tid_min;
    runlane_test_repack(rl, c, raw, raw->start_ns[0], tid_min);
}

bool
runlane_test_corrupt(runlane *rl, runlane_corrupt what, size_t i)
{
    if (i >= rl->n)
        return false;
    size_t c = i / RUNLANE_CHUNK, j = i % RUNLANE_CHUNK;
    bool packed = c < rl->n_chunks;
    runlane_open scratch;
    switch (what) {
    case RUNLANE_CORRUPT_ORDER: {
        /* Move run i back onto run i-1, which must have length to overlap. */
        uint64_t start, dur;
        if (i == 0)
            return false;
        runlane_span(rl, i - 1, &start, &dur);
        if (dur == 0)
            return false;
        runlane_open *raw = runlane_test_load(rl, c, &scratch);
        raw->start_ns[j] = start;
        runlane_test_store(rl, c, raw);
        return true;
    }
    case RUNLANE_CORRUPT_PREFIX:
        if (packed)
            rl->chunks[c].prefix_ns++;
        else
            rl->open->prefix_ns++;
        return true;
    case RUNLANE_CORRUPT_BASE: {
        if (!packed || rl->bases[c] == 0)
            return false;
        runlane_open *raw = runlane_test_load(rl, c, &scratch);
        runlane_test_repack(rl, c, raw, raw->start_ns[0] - 1, rl->chunks[c].tid_min);
        return true;
    }
    case RUNLANE_CORRUPT_FLAGS: {
        uint64_t start, dur, pstart, pdur;
        runlane_span(rl, i, &start, &dur);
        if (i > 0) {
            runlane_span(rl, i - 1, &pstart, &pdur);
            if (pstart + pdur == start)
                return false;
        }
        runlane_open *raw = runlane_test_load(rl, c, &scratch);
        raw->sf[j] |= RUNLANE_F_CLIPPED << RUNLANE_SF_SHIFT;
        runlane_test_store(rl, c, raw);
        return true;
    }
    case RUNLANE_CORRUPT_TOTAL:
        rl->total_ns++;
        return true;
    case RUNLANE_CORRUPT_WIDTH:
        if (!packed || rl->chunks[c].w_dur == 0)
            return false;
        rl->chunks[c].w_dur--;
        return true;
    case RUNLANE_CORRUPT_CHECKPOINT:
        if (!packed || rl->chunks[c].w_dur == 0)
            return false;
        rl->words[rl->chunks[c].word + runlane_cp_at(&rl->chunks[c])] ^= 1;
        return true;
    case RUNLANE_CORRUPT_TIDMIN: {
        if (!packed || rl->chunks[c].tid_min == 0)
            return false;
        runlane_open *raw = runlane_test_load(rl, c, &scratch);
        runlane_test_repack(rl, c, raw, rl->bases[c], rl->chunks[c].tid_min - 1);
        return true;
    }
    }
    return false;
}
