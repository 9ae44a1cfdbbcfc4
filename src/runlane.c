/* runlane: a capability's thread runs, bit-packed per chunk of RUNLANE_CHUNK runs with
 * frame-of-reference columns (start offset, duration, tid - tid_min, stop+flags) of
 * per-chunk widths and a few in-chunk busy-time checkpoints; runs still being appended
 * wait in a plain open chunk. */
#include "runlane.h"

#include <string.h>

#include "bitpack.h"
#include "checkfail.h"
#include "xalloc.h"

/* The stop+flags field: stop in the low 8 bits, flags above, so a chunk with no flags
 * pays only for its widest stop. */
#define RUNLANE_SF_SHIFT 8
#define RUNLANE_FLAG_MASK (RUNLANE_F_OPEN | RUNLANE_F_CLIPPED)
#define RUNLANE_SF_BITS 10
/* Busy-time checkpoints inside a chunk: the run time of its runs [0, k * RUNLANE_CP_STEP)
 * for k = 1 .. RUNLANE_N_CP, so a prefix sum scans at most RUNLANE_CP_STEP / 2 runs. */
#define RUNLANE_CP_STEP 16
#define RUNLANE_N_CP (RUNLANE_CHUNK / RUNLANE_CP_STEP - 1)
/* Room for one chunk's columns: every width at its most. */
#define RUNLANE_MAX_WORDS (64 + 64 + 32 + RUNLANE_SF_BITS + RUNLANE_N_CP)
/* Zero words kept after the packed ones, so a column read may always load the word
 * after the one it starts in (runlane_col_get has no branches). */
#define RUNLANE_PAD 2

/* A packed chunk: runs [c * RUNLANE_CHUNK, ...), up to RUNLANE_CHUNK of them (fewer
 * only in a last chunk packed by seal), whose first start is bases[c] (kept apart so
 * the search over chunks reads 8 bytes a chunk). Its four columns follow one another
 * from `word`; a column of width w holds RUNLANE_CHUNK values in exactly w words,
 * value j at bit j * w, unused slots zero. Widths are the fewest bits the values need.
 * Then the checkpoints: RUNLANE_N_CP values of runlane_cp_width(w_dur) bits, zero
 * padded to a whole word (a sum of runs past the chunk's last counts them as zero). */
typedef struct runlane_chunk {
    uint64_t prefix_ns;         /* total run time of the runs before the chunk */
    size_t word;                /* index in words of the chunk's first column */
    uint32_t tid_min;           /* the chunk's smallest tid; the tid column adds to it */
    uint8_t w_off, w_dur, w_tid, w_sf; /* column widths in bits: start - base,
                                        * duration, tid - tid_min, stop+flags */
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

/* Write the first len values (each < 2^w) into a zeroed column of width w. */
static void
runlane_col_put(uint64_t *col, unsigned w, const uint64_t *v, size_t len)
{
    for (size_t j = 0; j < len; j++)
        bitpack_put(col, (uint64_t)j * w, v[j], w);
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
runlane_chunk_words(const runlane_chunk *ck)
{
    return runlane_cp_at(ck) + runlane_cp_words(ck->w_dur);
}

/* Pack the first raw->len runs of raw as a chunk with the given base and tid_min
 * (a sound lane uses the first start and the smallest tid; corruption tests pass
 * others). Writes the header (all but prefix_ns and word) and cols, which has room
 * for RUNLANE_MAX_WORDS; returns the words used. */
static unsigned
runlane_encode(const runlane_open *raw, uint64_t base_ns, uint32_t tid_min,
               runlane_chunk *hdr, uint64_t *cols)
{
    size_t len = raw->len;
    uint64_t off[RUNLANE_CHUNK], tid[RUNLANE_CHUNK], sf[RUNLANE_CHUNK];
    uint64_t any_off = 0, any_dur = 0, any_tid = 0, any_sf = 0; /* OR: the max's width */
    for (size_t j = 0; j < len; j++) {
        off[j] = raw->start_ns[j] - base_ns;
        any_off |= off[j];
        tid[j] = raw->tid[j] - tid_min;
        sf[j] = raw->sf[j];
        any_dur |= raw->dur_ns[j];
        any_tid |= tid[j];
        any_sf |= sf[j];
    }
    hdr->tid_min = tid_min;
    hdr->w_off = (uint8_t)bitpack_width(any_off);
    hdr->w_dur = (uint8_t)bitpack_width(any_dur);
    hdr->w_tid = (uint8_t)bitpack_width(any_tid);
    hdr->w_sf = (uint8_t)bitpack_width(any_sf);
    unsigned words = runlane_chunk_words(hdr);
    memset(cols, 0, words * sizeof *cols);
    uint64_t *col = cols;
    runlane_col_put(col, hdr->w_off, off, len);
    col += hdr->w_off;
    runlane_col_put(col, hdr->w_dur, raw->dur_ns, len);
    col += hdr->w_dur;
    runlane_col_put(col, hdr->w_tid, tid, len);
    col += hdr->w_tid;
    runlane_col_put(col, hdr->w_sf, sf, len);
    col += hdr->w_sf;
    uint64_t cp[RUNLANE_N_CP] = { 0 }, busy = 0;
    for (size_t j = 0; j < len; j++) {
        busy += raw->dur_ns[j];
        if ((j + 1) % RUNLANE_CP_STEP == 0 && j + 1 < RUNLANE_CHUNK)
            cp[j / RUNLANE_CP_STEP] = busy;
    }
    for (size_t k = len / RUNLANE_CP_STEP; k < RUNLANE_N_CP; k++)
        cp[k] = busy;
    runlane_col_put(col, runlane_cp_width(hdr->w_dur), cp, RUNLANE_N_CP);
    return words;
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
    const uint64_t *tid = dur + ck->w_dur, *sf = tid + ck->w_tid;
    for (size_t j = 0; j < raw->len; j++) {
        raw->start_ns[j] = rl->bases[c] + runlane_col_get(off, ck->w_off, j);
        raw->dur_ns[j] = runlane_col_get(dur, ck->w_dur, j);
        raw->tid[j] = ck->tid_min + (uint32_t)runlane_col_get(tid, ck->w_tid, j);
        raw->sf[j] = (uint16_t)runlane_col_get(sf, ck->w_sf, j);
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

/* Pack the open chunk (1..RUNLANE_CHUNK runs) after the packed ones and empty it. */
static void
runlane_pack(runlane *rl)
{
    runlane_open *o = rl->open;
    uint32_t tid_min = o->tid[0];
    for (size_t j = 1; j < o->len; j++)
        if (o->tid[j] < tid_min)
            tid_min = o->tid[j];
    if (rl->n_chunks == rl->cap_chunks) {
        rl->cap_chunks = rl->cap_chunks < 16 ? 16 : rl->cap_chunks * 2;
        /* Both owned by the lane. */
        rl->chunks = xreallocarray(rl->chunks, rl->cap_chunks, sizeof *rl->chunks);
        rl->bases = xreallocarray(rl->bases, rl->cap_chunks, sizeof *rl->bases);
    }
    runlane_reserve_words(rl, RUNLANE_MAX_WORDS);
    rl->bases[rl->n_chunks] = o->start_ns[0];
    runlane_chunk *ck = &rl->chunks[rl->n_chunks++];
    unsigned words = runlane_encode(o, o->start_ns[0], tid_min, ck, rl->words + rl->n_words);
    ck->prefix_ns = o->prefix_ns;
    ck->word = rl->n_words;
    rl->n_words += words;
    runlane_zero_pad(rl);
    o->len = 0;
    o->prefix_ns = rl->total_ns;
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

bool
runlane_append(runlane *rl, const runlane_run *run)
{
    uint64_t start = run->start_ns, end = run->end_ns;
    unsigned flags = run->flags & RUNLANE_F_OPEN;
    if (rl->n > 0 && start < rl->last_end_ns) {
        start = rl->last_end_ns;
        flags |= RUNLANE_F_CLIPPED;
    }
    if (end < start)
        return false;
    if (!rl->open)
        runlane_reopen(rl);
    runlane_open *o = rl->open;
    size_t j = o->len++;
    o->start_ns[j] = start;
    o->dur_ns[j] = end - start;
    o->tid[j] = run->tid;
    o->sf[j] = (uint16_t)(run->stop | flags << RUNLANE_SF_SHIFT);
    rl->n++;
    rl->total_ns += end - start;
    rl->last_end_ns = end;
    if (o->len == RUNLANE_CHUNK)
        runlane_pack(rl);
    return true;
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
        *start = rl->bases[c] + runlane_col_get(col, ck->w_off, j);
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
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rl->bases[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t c = lo - 1;
    const runlane_chunk *ck = &rl->chunks[c];
    const uint64_t *col = rl->words + ck->word;
    unsigned w = ck->w_off;
    uint64_t d = t - rl->bases[c];
    size_t a = 1, z = runlane_chunk_len(rl, c);
    while (a < z) {
        size_t mid = a + (z - a) / 2;
        if (runlane_col_get(col, w, mid) < d)
            a = mid + 1;
        else
            z = mid;
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
        const uint64_t *tid = dur + ck->w_dur;
        out->start_ns = rl->bases[c] + runlane_col_get(off, ck->w_off, j);
        out->end_ns = out->start_ns + runlane_col_get(dur, ck->w_dur, j);
        out->tid = ck->tid_min + (uint32_t)runlane_col_get(tid, ck->w_tid, j);
        sf = (unsigned)runlane_col_get(tid + ck->w_tid, ck->w_sf, j);
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

size_t
runlane_n_blocks(const runlane *rl)
{
    return rl->n_chunks + (rl->open && rl->open->len ? 1 : 0);
}

void
runlane_block_tids(const runlane *rl, size_t b, uint32_t *lo, uint32_t *hi)
{
    if (b < rl->n_chunks) {
        const runlane_chunk *ck = &rl->chunks[b];
        uint64_t top = (uint64_t)ck->tid_min + bitpack_mask(ck->w_tid);
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
    /* Column by column, each a tight loop of one width. */
    const runlane_chunk *ck = &rl->chunks[b];
    size_t left = rl->n - out->first, len = left < RUNLANE_CHUNK ? left : RUNLANE_CHUNK;
    out->len = len;
    const uint64_t *off = rl->words + ck->word, *dur = off + ck->w_off;
    const uint64_t *tid = dur + ck->w_dur, *sf = tid + ck->w_tid;
    if (cols & RUNLANE_COL_START) {
        uint64_t base = rl->bases[b], m = bitpack_mask(ck->w_off);
        for (size_t j = 0; j < len; j++)
            out->start_ns[j] = base + bitpack_get_masked(off, (uint64_t)j * ck->w_off, m);
    }
    if (cols & RUNLANE_COL_DUR) {
        uint64_t m = bitpack_mask(ck->w_dur);
        for (size_t j = 0; j < len; j++)
            out->dur_ns[j] = bitpack_get_masked(dur, (uint64_t)j * ck->w_dur, m);
    }
    if (cols & RUNLANE_COL_TID) {
        uint64_t m = bitpack_mask(ck->w_tid);
        for (size_t j = 0; j < len; j++)
            out->tid[j] = ck->tid_min +
                          (uint32_t)bitpack_get_masked(tid, (uint64_t)j * ck->w_tid, m);
    }
    if (cols & RUNLANE_COL_STOP) {
        uint64_t m = bitpack_mask(ck->w_sf);
        for (size_t j = 0; j < len; j++) {
            unsigned v = (unsigned)bitpack_get_masked(sf, (uint64_t)j * ck->w_sf, m);
            out->stop[j] = (uint8_t)(v & 0xff);
            out->flags[j] = (uint8_t)(v >> RUNLANE_SF_SHIFT);
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
    size_t first = b * RUNLANE_CHUNK, left = rl->n - first;
    size_t len = left < RUNLANE_CHUNK ? left : RUNLANE_CHUNK;
    const uint64_t *dur = rl->words + ck->word + ck->w_off, *tid = dur + ck->w_dur;
    uint64_t md = bitpack_mask(ck->w_dur), mt = bitpack_mask(ck->w_tid);
    uint32_t base = ck->tid_min - tid_lo;
    for (size_t j = 0; j < len; j++) {
        size_t k = (uint32_t)(base + (uint32_t)bitpack_get_masked(tid, (uint64_t)j * ck->w_tid,
                                                                   mt));
        if (k < n) {
            sum[k] += bitpack_get_masked(dur, (uint64_t)j * ck->w_dur, md);
            count[k]++;
        }
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

size_t
runlane_last_starting_by(const runlane *rl, uint64_t t)
{
    size_t k = runlane_count_starts(rl, t, true);
    return k ? k - 1 : SIZE_MAX;
}

/* Run time inside [0, t): whole runs before the last one starting before t, from
 * the prefix sums, plus that run clipped at t. */
static uint64_t
runlane_busy_before(const runlane *rl, uint64_t t)
{
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

/* Ask the memory system for the packed chunks holding the run before each of the n
 * increasing times t[]: the chunk headers first, then their words. A sweep over screen
 * columns far apart touches a new chunk per column, and most of its time is spent
 * waiting for those loads one after another; issued together, they overlap. */
static void
runlane_prefetch_chunks(const runlane *rl, const uint64_t *t, size_t n)
{
    size_t cs[RUNLANE_PREFETCH_BLOCK], n_cs = 0, lo = 0;
    for (size_t m = 0; m < n && rl->n_chunks > 0; m++) {
        /* The last packed chunk whose base is < t[m], galloping from the previous one. */
        if (rl->bases[lo] >= t[m])
            continue;
        size_t step = 1, hi = rl->n_chunks;
        while (lo + step < hi && rl->bases[lo + step] < t[m]) {
            lo += step;
            step *= 2;
        }
        hi = lo + step < hi ? lo + step : hi;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (rl->bases[mid] < t[m])
                lo = mid;
            else
                hi = mid;
        }
        if (n_cs == 0 || cs[n_cs - 1] != lo) {
            cs[n_cs++] = lo;
            __builtin_prefetch(&rl->chunks[lo]);
            __builtin_prefetch(&rl->chunks[lo + 1]);
        }
    }
    for (size_t k = 0; k < n_cs; k++) {
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
    size_t c_from = 0;
    for (size_t m0 = 0; m0 < n; m0 += RUNLANE_PREFETCH_BLOCK) {
        size_t m1 = n - m0 < RUNLANE_PREFETCH_BLOCK ? n : m0 + RUNLANE_PREFETCH_BLOCK;
        runlane_prefetch_chunks(rl, t + m0, m1 - m0);
        for (size_t m = m0; m < m1; m++) {
            size_t k = runlane_count_starts_from(rl, t[m], false, c_from);
            if (k == 0) {
                out[m] = 0;
                continue;
            }
            size_t i = k - 1, c = i / RUNLANE_CHUNK;
            c_from = c < rl->n_chunks ? c : c_from;
            uint64_t start, dur;
            runlane_span(rl, i, &start, &dur);
            uint64_t end = start + dur;
            out[m] = runlane_chunk_prefix(rl, c) +
                     runlane_chunk_sum(rl, c, i % RUNLANE_CHUNK) +
                     ((end < t[m] ? end : t[m]) - start);
        }
    }
}

uint64_t
runlane_busy_ns(const runlane *rl, uint64_t t0, uint64_t t1)
{
    if (t0 >= t1)
        return 0;
    return runlane_busy_before(rl, t1) - runlane_busy_before(rl, t0);
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
        if (ck->word != word)
            return checkfail(why, why_len, "chunk %zu: columns at word %zu, the widths"
                             " before put them at %zu", c, ck->word, word);
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
        if (bitpack_width(most) != w[f])
            return checkfail(why, why_len, "chunk %zu: %s width %u, its values need %u", c,
                             name[f], w[f], bitpack_width(most));
        if (f == 0 && runlane_col_get(col, w[0], 0) != 0)
            return checkfail(why, why_len, "chunk %zu: base %llu is not run %zu's start",
                             c, (unsigned long long)rl->bases[c], c * RUNLANE_CHUNK);
        if (f == 2 && least != 0)
            return checkfail(why, why_len, "chunk %zu: tid_min %u is below its smallest"
                             " tid", c, ck->tid_min);
        if (f == 2 && most > UINT32_MAX - ck->tid_min)
            return checkfail(why, why_len, "chunk %zu: tid beyond u32", c);
        col += w[f];
    }
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
