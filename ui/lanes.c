/* lanes: the timeline's rows. Each plot cell is computed from the index's range summaries
 * (runlane_busy_ns, ivtrack_kind_ns, series_range, counts by binary search) over exactly
 * its column's time range, so what a cell shows is true at every zoom. */
#include "lanes.h"

#include "instants.h"

#include <stdio.h>
#include <string.h>

#include "busybins.h"
#include "heapbands.h"
#include "strbuf.h"
#include "textfmt.h"
#include "sparklanes.h"
#include "theme.h"
#include "threadlife.h"
#include "xalloc.h"

/* Lower eighth blocks, index = eighths (0 is a space). */
static const uint32_t lanes_blocks[9] = {
    ' ', 0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588,
};
/* Braille bars, for GC in a folded HEC row in monochrome: dotted like the GC shades,
 * as tall as the column is busy (eighths 1-2 one dot row .. 7-8 all four). */
static const uint32_t lanes_braille[9] = {
    ' ', 0x28C0, 0x28C0, 0x28E4, 0x28E4, 0x28F6, 0x28F6, 0x28FF, 0x28FF,
};
/* The same levels in ASCII: eighths 1..8 onto the seven steps of " .:-=+*#". */
static const char lanes_ascii_bars[9] = { ' ', '.', ':', '-', '=', '+', '*', '#', '#' };

#define LANES_TICK      0x25BCu     /* ▼ */
#define LANES_DOT       0x00B7u     /* · */
#define LANES_FOCUS_GLYPH 0x259Au   /* ▚: the focused thread's runs in monochrome */
#define LANES_ELLIPSIS  0x2026u     /* … */
/* A run needs this many whole columns to itself before its thread is named in it. */
#define LANES_TEXT_MIN_COLS 4

/* ---- small helpers ---------------------------------------------------------------------- */

static uint64_t
lanes_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Distance from t to [a, b] (0 inside). */
static uint64_t
lanes_dist(uint64_t t, uint64_t a, uint64_t b)
{
    return t < a ? a - t : t > b ? t - b : 0;
}

unsigned
lanes_eighths(uint64_t part, uint64_t whole)
{
    if (whole == 0 || part == 0)
        return 0;
    if (part >= whole)
        return 8;
    /* part < whole; keep part * 16 + whole in range. */
    while (whole > (UINT64_C(1) << 59)) {
        part >>= 1;
        whole >>= 1;
    }
    uint64_t k = (part * 16 + whole) / (2 * whole);
    return k < 1 ? 1 : k > 8 ? 8 : (unsigned)k;
}

bool
lanes_eighths_same(uint64_t a, uint64_t b, uint64_t whole)
{
    unsigned k = lanes_eighths(a, whole);
    if (a == b || k == 8 || whole == 0)
        return true;            /* lanes_eighths rises with part, up to 8 */
    if (k == 0 || b >= whole)
        return false;           /* a is 0 and b is not; b is a whole (8 > k) */
    while (whole > (UINT64_C(1) << 59)) {
        b >>= 1;                /* as lanes_eighths shifts */
        whole >>= 1;
    }
    /* b's level is at least k >= 1: it is k while (b * 16 + whole) / (2 * whole) <= k.
     * b < whole <= 2^59 and k <= 7: no product wraps. */
    return b * 16 + whole < 2 * whole * (k + 1);
}

/* Whether lane i has a run or a GC phase. */
static bool
lanes_cap_busy(const evindex *ix, size_t i)
{
    const evindex_cap *c = evindex_cap_at(ix, i);
    return runlane_count(c->runs) > 0 || ivtrack_count(c->gc) > 0;
}

bool
lanes_cap_shown(const evindex *ix, size_t i)
{
    if (lanes_cap_busy(ix, i))
        return true;
    if (evindex_cap_at(ix, i)->cap == EVINDEX_NO_CAP)
        return false;
    /* A log without a single run or collection (scheduler events left out: +RTS -l-s,
     * or only profile samples) has nothing to draw on any HEC lane: none is shown. */
    for (size_t k = 0; k < evindex_n_caps(ix); k++)
        if (lanes_cap_busy(ix, k))
            return true;
    return false;
}

static bool
lanes_has_nonmoving(const evindex *ix)
{
    return ivtrack_count(evindex_nm_track(ix)) > 0 || evindex_n_nm_cycles(ix) > 0 ||
           evindex_n_nm_flushes(ix) > 0 || evindex_n_nm_census(ix) > 0;
}

static bool
lanes_has_spark_events(const evindex *ix)
{
    for (int k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
        if (evindex_spark_total(ix, (enum evindex_spark_kind)k) > 0)
            return true;
    return false;
}

static void
lanes_push(lane *out, size_t max, size_t *n, lane_kind kind, size_t cap_lane, const char *label)
{
    if (*n < max) {
        lane *l = &out[*n];
        memset(l, 0, sizeof *l);
        l->kind = kind;
        l->cap_lane = cap_lane;
        snprintf(l->label, sizeof l->label, "%s", label);
    }
    (*n)++;
}

size_t
lanes_build(const evindex *ix, lane *out, size_t max)
{
    size_t n = 0, n_runs = 0;
    /* Utilisation is run time: a log without runs (scheduler events left out) would
     * show an empty activity lane, as if the program had never run. */
    for (size_t i = 0; i < evindex_n_caps(ix); i++)
        if (lanes_cap_shown(ix, i))
            n_runs += runlane_count(evindex_cap_at(ix, i)->runs);
    if (n_runs)
        lanes_push(out, max, &n, LANE_ACTIVITY, 0, "activity");
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        if (!lanes_cap_shown(ix, i))
            continue;
        const evindex_cap *c = evindex_cap_at(ix, i);
        char label[16];
        if (c->cap == EVINDEX_NO_CAP)
            snprintf(label, sizeof label, "global");
        else
            snprintf(label, sizeof label, "HEC %u", (unsigned)c->cap);
        lanes_push(out, max, &n, LANE_HEC, i, label);
    }
    if (lanes_has_nonmoving(ix))
        lanes_push(out, max, &n, LANE_NONMOVING, 0, "nonmoving");
    if (evindex_n_msgs(ix) > 0)
        lanes_push(out, max, &n, LANE_MARKERS, 0, "markers");
    if (series_count(evindex_series(ix, EVINDEX_S_HEAP_SIZE)) > 0 ||
        series_count(evindex_series(ix, EVINDEX_S_HEAP_LIVE)) > 0)
        lanes_push(out, max, &n, LANE_HEAP, 0, "heap");
    /* Every threaded RTS posts spark counters; a log where no spark was ever created or
     * pooled gets no lane of zeros. */
    if (series_max(evindex_series(ix, EVINDEX_S_SPARK_POOL)) > 0 ||
        series_max(evindex_series(ix, EVINDEX_S_SPARKS_CREATED)) > 0 || lanes_has_spark_events(ix))
        lanes_push(out, max, &n, LANE_SPARKS, 0, "sparks");
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        if (!lanes_cap_shown(ix, i) || !sparklanes_cap_active(ix, i))
            continue;
        static const struct { lane_kind kind; const char *name; } per_hec[] = {
            { LANE_SPARK_CREATED, "created" }, { LANE_SPARK_CONVERTED, "convert" },
            { LANE_SPARK_POOL, "pool" },
        };
        uint16_t cap = evindex_cap_at(ix, i)->cap;
        for (size_t k = 0; k < sizeof per_hec / sizeof per_hec[0]; k++) {
            char label[16];
            if (cap == EVINDEX_NO_CAP)
                snprintf(label, sizeof label, "%s -", per_hec[k].name);
            else
                snprintf(label, sizeof label, "%s %u", per_hec[k].name, (unsigned)cap);
            lanes_push(out, max, &n, per_hec[k].kind, i, label);
        }
    }
    if (heapprof_n_censuses(evindex_heap_profile(ix)) > 0)
        lanes_push(out, max, &n, LANE_HEAPBANDS, 0, "bands");
    if (series_count(evindex_series(ix, EVINDEX_S_MEM_CURRENT)) > 0 ||
        series_count(evindex_series(ix, EVINDEX_S_BLOCKS_SIZE)) > 0)
        lanes_push(out, max, &n, LANE_MEMORY, 0, "memory");
    if (ticky_n_counters(evindex_ticky(ix)) > 0 || ticky_n_samples(evindex_ticky(ix)) > 0)
        lanes_push(out, max, &n, LANE_TICKY, 0, "ticky");
    if (timeprof_n_samples(evindex_timeprof(ix)) > 0)
        lanes_push(out, max, &n, LANE_PROF, 0, "prof");
    return n;
}

lane *
lanes_build_all(const evindex *ix, size_t *n)
{
    size_t need = lanes_build(ix, NULL, 0);
    lane *out = xmalloc((need ? need : 1) * sizeof *out);     /* caller frees */
    *n = lanes_build(ix, out, need);
    return out;
}

size_t
lanes_msg_first_from(const evindex *ix, uint64_t t)
{
    /* The table's own search reads the time column only, not every field of a message
     * at each step (the markers row asks once a column). */
    return evindex_msg_first_from(ix, t);
}

/* Log text made fit for cells: invalid UTF-8 as U+FFFD, controls as spaces, and with
 * `ascii` every non-ASCII character as '?'. Appends to sb. */
static void
lanes_clean_text(strbuf *sb, const uint8_t *p, size_t n, bool ascii)
{
    size_t i = 0;
    while (i < n) {
        int32_t cp = textfmt_utf8_next(p, n, &i);
        if (cp < 0)
            cp = ascii ? '?' : 0xFFFD;
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            cp = ' ';
        else if (ascii && cp >= 0x80)
            cp = '?';
        textfmt_append_cp(sb, (uint32_t)cp);
    }
}

/* ---- drawing ---------------------------------------------------------------------------- */

/* One draw call's shared state. */
typedef struct lanes_ctx {
    surface *s;
    const evindex *ix;
    const lanes_draw_opts *o;
    int x0;                     /* surface column of plot column 0 */
    int ncols;                  /* plot columns drawn */
    uint64_t *col_a;            /* [ncols + 1] column boundaries: column c is
                                 * [col_a[c], col_a[c + 1]) */
    surface_cell *row;          /* [ncols] the row being built */
    size_t *scratch;            /* [ncols] per-column indexes */
    uint64_t *scratch_u;        /* [ncols] per-column values */
    bool *scratch_b;            /* [ncols] per-column flags */
    uint64_t *scratch_hi;       /* [ncols] per-column values: upper bounds */
    uint64_t *lane_lo, *lane_hi;    /* [ncols + 1] the activity row's bounds on one lane */
    bool *scratch_want;         /* [ncols] per-column flags: read exactly */
    size_t *hec;                /* evindex lanes drawn as HECs (activity lane) */
    size_t n_hec;
    /* Per index lane, its run time up to every column boundary, computed once per
     * frame on first use (the activity row and the HEC rows share them): bounds
     * [lane * (ncols + 1) + boundary], busy_lo <= run time <= busy_hi, equal where
     * known exactly (lanes_hec_exact and lanes_row_activity make them so on demand, the
     * checkpoints' finer bounds first). Only differences count.
     * Its GC work and GC waiting time up to every boundary likewise (work_lo <= work
     * <= work_hi, wait_lo <= wait <= wait_hi; lanes_gc_exact). From cumulative sums at
     * the column boundaries, so each boundary is searched once. */
    uint64_t *busy_lo, *busy_hi, *work_lo, *work_hi, *wait_lo, *wait_hi;
    /* Per boundary as busy_lo: where runlane_busy_bounds_many found it (for the finer
     * bounds of runlane_busy_bounds_near_many), and whether busy_lo and busy_hi hold
     * those already. */
    size_t *busy_at;
    bool *busy_fine;
    bool *have_busy, *have_gc; /* per index lane: busy / work and wait filled */
    bool *drawn;                /* per index lane: its HEC row is on screen this frame */
    uint8_t *bounded;           /* per index lane: which of those are bounds, not exact
                                 * (LANES_BOUND_RUNS | LANES_BOUND_GC) */
    uint64_t *kinds;            /* [(ncols + 1) * IVTRACK_KINDS] its GC time of each kind */
    uint64_t *kinds_hi;         /* the same, upper bounds */
    /* Boundaries to read exactly (lanes_hec_exact): their indexes, times and values
     * ([ncols + 1], values [(ncols + 1) * IVTRACK_KINDS]). */
    size_t *need_e, *need_at;
    uint64_t *need_t, *need_v;
    uint8_t *gc_bound;          /* [ncols] a HEC row's enum lanes_gc_bound per cell */
    double spark_top[2];        /* common scale of the HECs' spark creation / conversion
                                 * rows, -1 until the first such row needs it */
    instant *ticks;             /* the view's instants when zoomed in far enough (owned) */
    size_t n_ticks;             /* SIZE_MAX: too many events in view, no ticks */
    bool ticks_loaded;
    strbuf text;
    /* The heap-bands lane's bytes per style in every column ([c * (LANES_BAND_STYLES +
     * 1) + style]), summed once per frame for all its rows; NULL until then. */
    uint64_t *band_bytes;
    /* Every HEC's spark creations [0] and conversions [1] in every column ([lane * ncols
     * + c]), counted once per frame with their common top; NULL until then. */
    double *spark_n[2];
} lanes_ctx;

/* A view holding at most this many runs (GC phases) per column boundary is summed by
 * walking them (lanes_walk_busy, ivtrack_kinds_walk) rather than by a prefix-sum search
 * at every boundary (measured: a run's search costs about two runs walked, a GC phase's
 * about eight). */
#define LANES_WALK_PER_COL 2
#define LANES_WALK_GC_PER_COL 8
/* A view holding at least this many runs per column boundary (a chunk of runs or more
 * in every column) gets only bounds on its run time at each boundary from the chunks'
 * headers (runlane_busy_bounds_many): at such a zoom they mostly fix a cell's glyph,
 * and the cells they leave open read their two boundaries exactly (lanes_hec_exact). */
#define LANES_BOUND_PER_COL RUNLANE_CHUNK
/* Bins at most a column's LANES_BINS_PER_COL-th wide bound a lane's run time at the
 * column boundaries (lanes_memo_set_bins). */
#define LANES_BINS_PER_COL 4
/* The same for a lane whose row is off screen (only the activity row sums it). */
#define LANES_BOUND_HIDDEN_PER_COL 8
/* The same for GC phases: a chunk of them or more in every column. */
#define LANES_BOUND_GC_PER_COL IVTRACK_CHUNK
/* What of a lane's sums at the column boundaries are bounds (lanes_ctx.bounded). */
enum { LANES_BOUND_RUNS = 1, LANES_BOUND_GC = 2 };

/* The run time before each of the nb increasing times t[] (from a common origin: only
 * differences count), by one walk over the runs from the last one starting before t[0]:
 * as runlane_busy_upto_many defines it, the runs before the last one starting before t
 * whole, that one clipped at t. O(runs in view + nb). */
static void
lanes_walk_busy(const runlane *rl, const uint64_t *t, size_t nb, uint64_t *out)
{
    size_t n = runlane_count(rl);
    size_t j = t[0] ? runlane_last_starting_by(rl, t[0] - 1) : SIZE_MAX;
    bool have = j != SIZE_MAX;
    size_t ni = have ? j + 1 : 0;
    runlane_seq seq = { 0 };
    runlane_run cur = { 0, 0, 0, 0, 0 }, nxt = { 0, 0, 0, 0, 0 };
    if (have)
        runlane_get_seq(rl, j, &cur, &seq);
    if (ni < n)
        runlane_get_seq(rl, ni, &nxt, &seq);
    uint64_t whole = 0;                 /* the runs from j's up to cur, cur excluded */
    for (size_t m = 0; m < nb; m++) {
        while (ni < n && nxt.start_ns < t[m]) {
            if (have)
                whole += cur.end_ns - cur.start_ns;
            cur = nxt;
            have = true;
            if (++ni < n)
                runlane_get_seq(rl, ni, &nxt, &seq);
        }
        out[m] = have ? whole + ((cur.end_ns < t[m] ? cur.end_ns : t[m]) - cur.start_ns) : 0;
    }
}

static const busybins *lanes_memo_bins_for(const lanes_memo *m, const evindex *ix);

/* The frame's bins, if the memo has them for this index, and into *max_width the widest
 * bin that bounds a column boundary closely enough (a column's LANES_BINS_PER_COL-th). */
static const busybins *
lanes_bins(const lanes_ctx *x, uint64_t *max_width)
{
    *max_width = (x->col_a[1] - x->col_a[0]) / LANES_BINS_PER_COL;
    return x->o->memo ? lanes_memo_bins_for(x->o->memo, x->ix) : NULL;
}

/* Fill the per-column run time of index lane `li` (once per frame): all the activity
 * row needs, so a lane off screen costs no GC sums. */
static void
lanes_busy_sums(lanes_ctx *x, size_t li)
{
    if (x->have_busy[li])
        return;
    x->have_busy[li] = true;
    size_t nb = (size_t)x->ncols + 1;
    uint64_t *lo = &x->busy_lo[li * nb], *hi = &x->busy_hi[li * nb];
    /* Run time up to each column boundary: a walk over the runs in view when they are
     * few, bounds when there are chunks of them in every column, else one sweep of
     * searches over the lane's runs. How many there are is asked of the chunks alone:
     * counted exactly, the cold lanes of a new view waited on a load after another. */
    const runlane *rl = evindex_cap_at(x->ix, li)->runs;
    size_t in_view = runlane_count_in_about(rl, x->col_a[0], x->col_a[nb - 1]);
    /* Bins a quarter of a column wide or less bound it closer than the runs' own
     * checkpoints do at such a zoom, and without a search. */
    uint64_t max_width;
    const busybins *bins = lanes_bins(x, &max_width);
    if (bins && in_view > LANES_WALK_PER_COL * nb &&
        busybins_bounds(bins, li, x->col_a, nb, max_width, lo, hi)) {
        memset(&x->busy_fine[li * nb], 1, nb * sizeof *x->busy_fine);
        x->bounded[li] |= LANES_BOUND_RUNS;
        return;
    }
    /* A lane off screen counts only in the activity row's sums, whose levels are
     * mostly fixed by bounds from the checkpoints (it narrows the others). */
    size_t bound_from = x->drawn[li] ? LANES_BOUND_PER_COL : LANES_BOUND_HIDDEN_PER_COL;
    if (in_view >= bound_from * nb) {
        runlane_busy_bounds_many(rl, x->col_a, nb, lo, hi, &x->busy_at[li * nb]);
        memset(&x->busy_fine[li * nb], 0, nb * sizeof *x->busy_fine);
        x->bounded[li] |= LANES_BOUND_RUNS;
        return;
    }
    if (in_view <= LANES_WALK_PER_COL * nb)
        lanes_walk_busy(rl, x->col_a, nb, lo);
    else
        runlane_busy_upto_many(rl, x->col_a, nb, lo);
    memcpy(hi, lo, nb * sizeof *hi);
}

/* Bounds on a time in column c from bounds at its boundaries e and e + 1, clipped to
 * the column's span. */
static void
lanes_cell_bounds(const uint64_t *lo, const uint64_t *hi, size_t e, uint64_t span,
                  uint64_t *cell_lo, uint64_t *cell_hi)
{
    *cell_lo = lo[e + 1] > hi[e] ? lo[e + 1] - hi[e] : 0;
    *cell_hi = hi[e + 1] - lo[e] < span ? hi[e + 1] - lo[e] : span;
}

/* Bounds on index lane li's run time in column c (lanes_busy_sums done): *lo <= busy
 * <= *hi, equal when known. */
static void
lanes_busy_bounds(const lanes_ctx *x, size_t li, int c, uint64_t *lo, uint64_t *hi)
{
    size_t nb = (size_t)x->ncols + 1;
    lanes_cell_bounds(x->busy_lo, x->busy_hi, li * nb + (size_t)c,
                      x->col_a[c + 1] - x->col_a[c], lo, hi);
}

/* The time of each kind of track `tr` from the view's start to each column boundary,
 * into x->kinds ([c * IVTRACK_KINDS + kind], c = 0..ncols; only differences count): by
 * walking the intervals in view when they are few, else one sweep of searches. */
static const uint64_t *
lanes_kinds_at_bounds(lanes_ctx *x, const ivtrack *tr)
{
    size_t nb = (size_t)x->ncols + 1;
    if (ivtrack_count_in_about(tr, x->col_a[0], x->col_a[nb - 1]) <= LANES_WALK_GC_PER_COL * nb)
        ivtrack_kinds_walk(tr, x->col_a, nb, x->kinds);  /* from col_a[0]: differences alike */
    else
        ivtrack_kinds_upto_many(tr, x->col_a, nb, x->kinds);
    return x->kinds;
}

/* Fill the run, GC work and GC waiting time of index lane `li` up to every column
 * boundary (once per frame): what its HEC row needs. The GC times are bounds from the
 * chunks' headers when a chunk of phases or more falls in every column. */
static void
lanes_sums(lanes_ctx *x, size_t li)
{
    lanes_busy_sums(x, li);
    if (x->have_gc[li])
        return;
    x->have_gc[li] = true;
    size_t nb = (size_t)x->ncols + 1;
    const ivtrack *tr = evindex_cap_at(x->ix, li)->gc;
    const uint64_t *lo = x->kinds, *hi = x->kinds;
    size_t in_view = ivtrack_count_in_about(tr, x->col_a[0], x->col_a[nb - 1]);
    /* Bins a quarter of a column wide or less, as for the run time. */
    uint64_t max_width;
    const busybins *bins = lanes_bins(x, &max_width);
    uint64_t *const bin_lo[2] = { &x->work_lo[li * nb], &x->wait_lo[li * nb] };
    uint64_t *const bin_hi[2] = { &x->work_hi[li * nb], &x->wait_hi[li * nb] };
    if (bins && in_view > LANES_WALK_GC_PER_COL * nb &&
        busybins_gc_bounds(bins, li, x->col_a, nb, max_width, bin_lo, bin_hi)) {
        x->bounded[li] |= LANES_BOUND_GC;
        return;
    }
    if (in_view >= LANES_BOUND_GC_PER_COL * nb) {
        ivtrack_kinds_bounds_many(tr, x->col_a, nb, x->kinds, x->kinds_hi);
        hi = x->kinds_hi;
        x->bounded[li] |= LANES_BOUND_GC;
    } else {
        lanes_kinds_at_bounds(x, tr);
    }
    for (size_t e = 0; e < nb; e++) {
        x->work_lo[li * nb + e] = lo[e * IVTRACK_KINDS + EVINDEX_GC_WORK];
        x->work_hi[li * nb + e] = hi[e * IVTRACK_KINDS + EVINDEX_GC_WORK];
        x->wait_lo[li * nb + e] = lo[e * IVTRACK_KINDS + EVINDEX_GC_WAIT];
        x->wait_hi[li * nb + e] = hi[e * IVTRACK_KINDS + EVINDEX_GC_WAIT];
    }
}

/* Index lane li's exact GC work and waiting time in column c (lanes_sums done): from
 * its bounds when they are equal, else a boundary known only within bounds is read from
 * the phases (and stays known). */
static void
lanes_gc_read(lanes_ctx *x, size_t li, int c, uint64_t *work, uint64_t *wait)
{
    size_t nb = (size_t)x->ncols + 1, e = li * nb + (size_t)c;
    uint64_t span = x->col_a[c + 1] - x->col_a[c], wh, ah;
    lanes_cell_bounds(x->work_lo, x->work_hi, e, span, work, &wh);
    lanes_cell_bounds(x->wait_lo, x->wait_hi, e, span, wait, &ah);
    if (*work == wh && *wait == ah)
        return;
    for (size_t k = e; k <= e + 1; k++)
        if (x->work_lo[k] != x->work_hi[k] || x->wait_lo[k] != x->wait_hi[k]) {
            uint64_t kinds[IVTRACK_KINDS];
            ivtrack_kinds_upto_many(evindex_cap_at(x->ix, li)->gc, &x->col_a[k - li * nb], 1,
                                    kinds);
            x->work_lo[k] = x->work_hi[k] = kinds[EVINDEX_GC_WORK];
            x->wait_lo[k] = x->wait_hi[k] = kinds[EVINDEX_GC_WAIT];
        }
    *work = x->work_lo[e + 1] - x->work_lo[e];
    *wait = x->wait_lo[e + 1] - x->wait_lo[e];
}

/* lanes_gc_read, at once when the lane's every boundary is exact (its GC not bounded). */
static inline void
lanes_gc_exact(lanes_ctx *x, size_t li, int c, uint64_t *work, uint64_t *wait)
{
    if (x->bounded[li] & LANES_BOUND_GC) {
        lanes_gc_read(x, li, c, work, wait);
        return;
    }
    size_t e = li * ((size_t)x->ncols + 1) + (size_t)c;
    *work = x->work_lo[e + 1] - x->work_lo[e];
    *wait = x->wait_lo[e + 1] - x->wait_lo[e];
}

static surface_cell
lanes_cell(uint32_t cp, uint8_t style)
{
    surface_cell c = { cp, style };
    return c;
}

/* A bar of `level` eighths in `style` (ASCII: the bar ladder). */
static surface_cell
lanes_bar(const lanes_ctx *x, unsigned level, uint8_t style)
{
    if (level == 0)
        return lanes_cell(' ', STYLE_IDLE);
    return lanes_cell(x->o->ascii ? (uint32_t)lanes_ascii_bars[level] : lanes_blocks[level],
                      style);
}

/* Whether thread `tid` runs in [a, b) on `rl`, looking at no more than LANES_HL_SCAN runs. */
static bool
lanes_tid_runs_in(const runlane *rl, uint64_t a, uint64_t b, uint32_t tid)
{
    size_t n = runlane_count_in(rl, a, b);
    if (n == 0 || n > LANES_HL_SCAN)
        return false;
    size_t i = runlane_first_after(rl, a);
    runlane_seq seq = { 0 };
    for (size_t k = 0; k < n && i + k < runlane_count(rl); k++) {
        runlane_run r;
        runlane_get_seq(rl, i + k, &r, &seq);
        if (r.start_ns >= b)
            break;
        if (r.tid == tid)
            return true;
    }
    return false;
}

/* Write text from plot column c over at most max_cols cells in `style`. */
static void
lanes_row_text(lanes_ctx *x, int c, int max_cols, const char *utf8, uint8_t style)
{
    size_t len = strlen(utf8), off = 0;
    for (int k = 0; k < max_cols && c + k < x->ncols && off < len; k++) {
        uint32_t cp;
        off += surface_utf8_decode(utf8 + off, len - off, &cp);
        x->row[c + k] = lanes_cell(cp, style);
    }
}

/* Name the runs that cover LANES_TEXT_MIN_COLS whole columns or more; scratch[c] holds
 * the run covering column c entirely, or SIZE_MAX. */
static void
lanes_hec_text(lanes_ctx *x, const runlane *rl)
{
    const threadtab *tt = evindex_threads(x->ix);
    for (int c = 0; c < x->ncols;) {
        size_t r = x->scratch[c];
        int e = c + 1;
        while (e < x->ncols && x->scratch[e] == r)
            e++;
        int seg = e - c;
        if (r != SIZE_MAX && seg >= LANES_TEXT_MIN_COLS) {
            runlane_run run;
            runlane_get(rl, r, &run);
            strbuf_reset(&x->text);
            threadtab_thread th_v;
            const threadtab_thread *th = threadtab_find(tt, run.tid, &th_v) ? &th_v : NULL;
            const uint8_t *p;
            size_t n;
            if (th && evindex_thread_label(x->ix, th, &p, &n) && n > 0) {
                lanes_clean_text(&x->text, p, n, x->o->ascii);
                if (surface_text_cols(x->text.data) > seg)
                    strbuf_reset(&x->text);
            }
            if (x->text.len == 0)
                strbuf_printf(&x->text, "%u", (unsigned)run.tid);
            if (surface_text_cols(x->text.data) <= seg)
                lanes_row_text(x, c, seg, x->text.data, STYLE_RUN_TEXT);
        }
        c = e;
    }
}

/* Which instant wins a column holding several: a wake-up, then a creation, a migration,
 * a spark event, a message. */
static const uint8_t lanes_tick_rank[INSTANTS_N_KINDS] = {
    [INSTANTS_WAKEUP] = 5, [INSTANTS_CREATE] = 4, [INSTANTS_MIGRATE] = 3,
    [INSTANTS_SPARK] = 2, [INSTANTS_MESSAGE] = 1,
};

/* Plot column holding time t (t inside the view). */
static int
lanes_col_at(const lanes_ctx *x, uint64_t t)
{
    int lo = 0, hi = x->ncols;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (x->col_a[mid + 1] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The instants posted by capability `cap` as ticks over its run row (not over GC): only
 * when the view holds at most INSTANTS_PER_COL events a column. */
static void
lanes_hec_ticks(lanes_ctx *x, uint16_t cap)
{
    if (!x->ticks_loaded) {
        x->ticks_loaded = true;
        size_t max = (size_t)x->ncols * INSTANTS_PER_COL;
        x->ticks = xmalloc((max + 1) * sizeof *x->ticks);    /* freed by lanes_draw */
        x->n_ticks = x->ncols ? instants_in(x->ix, x->col_a[0], x->col_a[x->ncols], max,
                                            x->ticks) : 0;
    }
    if (x->n_ticks == SIZE_MAX)
        return;
    uint8_t *rank = (uint8_t *)x->scratch_u;    /* per column: the rank of its tick */
    memset(rank, 0, (size_t)x->ncols);
    for (size_t i = 0; i < x->n_ticks; i++) {
        const instant *in = &x->ticks[i];
        if (in->cap != cap)
            continue;
        int c = lanes_col_at(x, in->time_ns);
        if (c >= x->ncols)
            continue;
        uint8_t st = x->row[c].style;
        if (st == STYLE_GC_WORK || st == STYLE_GC_WAIT || lanes_tick_rank[in->kind] <= rank[c])
            continue;
        rank[c] = lanes_tick_rank[in->kind];
        x->row[c] = lanes_cell(instants_glyph((instants_kind)in->kind), STYLE_TICK);
    }
}

/* What a HEC row shows: runs and GC in one row (GC wins a shared cell), or only one
 * of them (the two rows of a split lane). */
enum lanes_hec_part { LANES_HEC_BOTH, LANES_HEC_RUNS, LANES_HEC_GC };

/* A HEC cell's glyph and style when it holds GC (work winning or not) and `used` ns of
 * runs and GC in a column of `span` ns, as lanes_row_hec draws it: a step function of
 * used, for the bounds' test. */
static surface_cell
lanes_gc_glyph(const lanes_ctx *x, enum lanes_hec_part part, bool work_wins, uint64_t used,
               uint64_t span)
{
    uint8_t st = work_wins ? STYLE_GC_WORK : STYLE_GC_WAIT;
    if (x->o->ascii)
        return lanes_cell(used * 2 >= span ? 'G' : 'g', st);
    if (x->o->mono && part == LANES_HEC_BOTH)
        return lanes_cell(lanes_braille[lanes_eighths(used, span)], st);
    if (x->o->mono)
        return lanes_cell(work_wins ? 0x2593 : 0x2591, st);
    return lanes_cell(lanes_blocks[lanes_eighths(used, span)], st);
}

/* A HEC cell's glyph and style for the given GC and run time in a column of `span` ns,
 * as lanes_row_hec draws it when neither a focus nor a highlight is set (' ' in
 * STYLE_IDLE for an idle column): a step function of busy, for the bounds' test. */
static surface_cell
lanes_hec_glyph(const lanes_ctx *x, enum lanes_hec_part part, uint64_t work, uint64_t wait,
                uint64_t busy, uint64_t span)
{
    bool ascii = x->o->ascii;
    if (work + wait > 0)
        return lanes_gc_glyph(x, part, work >= wait, work + wait + busy, span);
    if (busy == 0)
        return lanes_cell(' ', STYLE_IDLE);
    return ascii ? lanes_cell(busy * 2 >= span ? '#' : '+', STYLE_RUNNING)
                 : lanes_cell(lanes_blocks[lanes_eighths(busy, span)], STYLE_RUNNING);
}

static bool
lanes_cell_same(surface_cell a, surface_cell b)
{
    return a.cp == b.cp && a.style == b.style;
}

/* What the bounds on cell c's GC times tell on a HEC row of index lane li: the times
 * are known (lanes_gc_exact reads nothing), or they fix the cell's glyph (some GC for
 * sure, which of work and waiting wins known, and one glyph for the least and the most
 * time used, runs and GC: into *g), or the exact times are needed. */
enum lanes_gc_bound { LANES_GC_KNOWN, LANES_GC_GLYPH, LANES_GC_OPEN };

static enum lanes_gc_bound
lanes_hec_gc(const lanes_ctx *x, size_t li, enum lanes_hec_part part, int c, surface_cell *g)
{
    size_t e = li * ((size_t)x->ncols + 1) + (size_t)c;
    uint64_t span = x->col_a[c + 1] - x->col_a[c];
    uint64_t wl, wh, al, ah, bl = 0, bh = 0;
    lanes_cell_bounds(x->work_lo, x->work_hi, e, span, &wl, &wh);
    lanes_cell_bounds(x->wait_lo, x->wait_hi, e, span, &al, &ah);
    if (wl == wh && al == ah)
        return LANES_GC_KNOWN;
    if (part != LANES_HEC_GC)
        lanes_busy_bounds(x, li, c, &bl, &bh);
    bool wins = wl >= ah, loses = wh < al;
    *g = lanes_gc_glyph(x, part, wins, wl + al + bl, span);
    if (wl + al == 0 || !(wins || loses))
        return LANES_GC_OPEN;
    /* In colour the glyph is the eighths of the time used, runs and GC. */
    bool same = x->o->ascii || x->o->mono
                    ? lanes_cell_same(*g, lanes_gc_glyph(x, part, wins, wh + ah + bh, span))
                    : lanes_eighths_same(wl + al + bl, wh + ah + bh, span);
    return same ? LANES_GC_GLYPH : LANES_GC_OPEN;
}

/* Whether a cell with these exact GC times and run time in [lo, hi] needs its exact run
 * time: bounds that give one glyph give the exact one (the glyph is a step function of
 * the run time, blank at 0); a full column, a focus or a highlight asks for more. */
static bool
lanes_hec_busy_open(const lanes_ctx *x, enum lanes_hec_part part, uint64_t span,
                    uint64_t work, uint64_t wait, uint64_t lo, uint64_t hi)
{
    if (lo == hi)
        return false;
    if (hi == span || x->o->focus || x->o->highlight)
        return true;
    /* In colour the glyph is the eighths of the time used (blank at 0, and then the
     * eighths differ from any other's), in one style whatever the run time. */
    if (!x->o->ascii && !x->o->mono)
        return !lanes_eighths_same(work + wait + lo, work + wait + hi, span);
    return !lanes_cell_same(lanes_hec_glyph(x, part, work, wait, lo, span),
                            lanes_hec_glyph(x, part, work, wait, hi, span));
}

/* Add to x->need_e / need_at / need_t, from the k there, the boundaries of column c of
 * the index lane whose boundaries start at `base` that its run time is known at only
 * within bounds -- before the exact pass (!exact), only those not narrowed to the
 * checkpoints' bounds yet -- past the last one added. Returns the new count. */
static size_t
lanes_need_busy_edges(lanes_ctx *x, size_t base, int c, bool exact, size_t k)
{
    for (size_t e = (size_t)c; e <= (size_t)c + 1; e++)
        if ((k == 0 || x->need_e[k - 1] != e) && x->busy_lo[base + e] != x->busy_hi[base + e] &&
            (exact || !x->busy_fine[base + e])) {
            x->need_e[k] = e;
            x->need_at[k] = x->busy_at[base + e];
            x->need_t[k++] = x->col_a[e];
        }
    return k;
}

/* Narrow index lane li's run time at the k boundaries x->need_* holds, all asked for at
 * once: to the checkpoints' finer bounds, or (exact) to the run time itself. */
static void
lanes_narrow_busy(lanes_ctx *x, size_t li, size_t k, bool exact)
{
    size_t nb = (size_t)x->ncols + 1, base = li * nb;
    const runlane *rl = evindex_cap_at(x->ix, li)->runs;
    uint64_t *v_lo = x->need_v, *v_hi = x->need_v + nb;
    if (exact) {
        runlane_busy_upto_many(rl, x->need_t, k, v_lo);
        memcpy(v_hi, v_lo, k * sizeof *v_hi);
    } else {
        runlane_busy_bounds_near_many(rl, x->need_t, x->need_at, k, v_lo, v_hi);
    }
    for (size_t j = 0; j < k; j++) {
        size_t e = base + x->need_e[j];
        x->busy_lo[e] = v_lo[j] > x->busy_lo[e] ? v_lo[j] : x->busy_lo[e];
        x->busy_hi[e] = v_hi[j] < x->busy_hi[e] ? v_hi[j] : x->busy_hi[e];
        x->busy_fine[e] = true;
    }
}

/* Read exactly, before lanes_row_hec draws index lane li's row, the column boundaries
 * its cells need exactly (their bounds leave the glyph open): the GC ones in one sweep,
 * then the run ones in another, each galloping from one boundary to the next and asking
 * for their chunks together, where reading them cell by cell would search each from the
 * lane's start. Leaves in x->gc_bound[c] what the GC bounds told of cell c (with its
 * glyph in x->row[c] when they fix it; not on a runs-only row); every cell whose run
 * time bounds leave its glyph open then has them equal. */
static void
lanes_hec_exact(lanes_ctx *x, size_t li, enum lanes_hec_part part)
{
    size_t nb = (size_t)x->ncols + 1, base = li * nb, k = 0;
    const evindex_cap *cap = evindex_cap_at(x->ix, li);
    if (part != LANES_HEC_RUNS && !(x->bounded[li] & LANES_BOUND_GC)) {
        memset(x->gc_bound, LANES_GC_KNOWN, (size_t)x->ncols);     /* all exact */
    } else if (part != LANES_HEC_RUNS) {
        for (int c = 0; c < x->ncols; c++) {
            surface_cell g;
            enum lanes_gc_bound st = lanes_hec_gc(x, li, part, c, &g);
            x->gc_bound[c] = (uint8_t)st;
            if (st == LANES_GC_GLYPH)
                x->row[c] = g;
            if (st != LANES_GC_OPEN)
                continue;
            for (size_t e = (size_t)c; e <= (size_t)c + 1; e++)
                if ((k == 0 || x->need_e[k - 1] != e) &&
                    (x->work_lo[base + e] != x->work_hi[base + e] ||
                     x->wait_lo[base + e] != x->wait_hi[base + e])) {
                    x->need_e[k] = e;
                    x->need_t[k++] = x->col_a[e];
                }
        }
        ivtrack_kinds_upto_many(cap->gc, x->need_t, k, x->need_v);
        for (size_t j = 0; j < k; j++) {
            size_t e = base + x->need_e[j];
            x->work_lo[e] = x->work_hi[e] = x->need_v[j * IVTRACK_KINDS + EVINDEX_GC_WORK];
            x->wait_lo[e] = x->wait_hi[e] = x->need_v[j * IVTRACK_KINDS + EVINDEX_GC_WAIT];
        }
    }
    if (part == LANES_HEC_GC)
        return;
    /* The cells whose run time bounds leave the glyph open (into x->scratch) and their
     * boundaries not known exactly: first the checkpoints' finer bounds there, all at
     * once (their chunks are asked for together), then the exact run time at those of
     * the cells they still leave open. */
    size_t n_open = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t n_was = n_open;
        k = 0;
        n_open = 0;
        for (size_t j = 0; j < (pass ? n_was : (size_t)x->ncols); j++) {
            int c = pass ? (int)x->scratch[j] : (int)j;
            uint64_t work = 0, wait = 0, lo, hi, span = x->col_a[c + 1] - x->col_a[c];
            if (part != LANES_HEC_RUNS) {
                if (x->gc_bound[c] == LANES_GC_GLYPH)
                    continue;
                lanes_gc_exact(x, li, c, &work, &wait);     /* all read above */
            }
            lanes_busy_bounds(x, li, c, &lo, &hi);
            if (!lanes_hec_busy_open(x, part, span, work, wait, lo, hi))
                continue;
            x->scratch[n_open++] = (size_t)c;
            k = lanes_need_busy_edges(x, base, c, pass, k);
        }
        if (n_open == 0)
            break;
        lanes_narrow_busy(x, li, k, pass);
    }
}

static void
lanes_row_hec(lanes_ctx *x, const lane *l, enum lanes_hec_part part)
{
    if (l->cap_lane >= evindex_n_caps(x->ix))
        return;
    const evindex_cap *cap = evindex_cap_at(x->ix, l->cap_lane);
    bool ascii = x->o->ascii;
    lanes_sums(x, l->cap_lane);
    size_t li = l->cap_lane, e0 = li * ((size_t)x->ncols + 1);
    bool bounded = x->bounded[li];
    if (bounded)
        lanes_hec_exact(x, li, part);
    /* Which run starts last by a fully busy column's start, from a sweep along the row
     * (a long run covers many columns in a row; the sweep keeps its answer). */
    runlane_sweep *sweep = NULL;        /* owned: freed after the loop */
    for (int c = 0; c < x->ncols; c++) {
        uint64_t a = x->col_a[c], b = x->col_a[c + 1], span = b - a;
        x->scratch[c] = SIZE_MAX;
        size_t e = e0 + (size_t)c;
        uint64_t work = 0, wait = 0, busy = 0;
        if (!bounded) {                             /* all exact */
            if (part != LANES_HEC_RUNS) {
                work = x->work_lo[e + 1] - x->work_lo[e];
                wait = x->wait_lo[e + 1] - x->wait_lo[e];
            }
            if (part != LANES_HEC_GC)
                busy = x->busy_lo[e + 1] - x->busy_lo[e];
        } else {
            if (part != LANES_HEC_RUNS) {
                if (x->gc_bound[c] == LANES_GC_GLYPH)
                    continue;                           /* drawn by lanes_hec_exact */
                lanes_gc_exact(x, li, c, &work, &wait); /* known: reads nothing */
            }
            if (part != LANES_HEC_GC) {
                /* Exact, or bounds whose every value gives the same glyph
                 * (lanes_hec_exact read the others). */
                uint64_t hi;
                lanes_busy_bounds(x, li, c, &busy, &hi);
            }
        }
        if (work + wait > 0) {
            /* GC wins the cell. Folded, the cell is as tall as the column is busy (runs
             * and GC), so a short GC in a busy column never reads as idle; on its own
             * row, as tall as the GC's share. ASCII tells the height as '#' and '+' do. */
            uint64_t used = work + wait + busy;
            uint8_t st = work >= wait ? STYLE_GC_WORK : STYLE_GC_WAIT;
            if (ascii)
                x->row[c] = lanes_cell(used * 2 >= span ? 'G' : 'g', st);
            else if (x->o->mono && part == LANES_HEC_BOTH)
                x->row[c] = lanes_cell(lanes_braille[lanes_eighths(used, span)], st);
            else if (x->o->mono)
                x->row[c] = lanes_cell(work >= wait ? 0x2593 : 0x2591, st);
            else
                x->row[c] = lanes_cell(lanes_blocks[lanes_eighths(used, span)], st);
            continue;
        }
        if (busy == 0)
            continue;
        uint8_t st = STYLE_RUNNING;
        if (x->o->focus && threadlife_runs_in(x->o->focus, l->cap_lane, a, b)) {
            /* The focused thread: its own style and, without colour, its own glyph. */
            x->row[c] = ascii        ? lanes_cell('@', STYLE_THREAD_FOCUS)
                        : x->o->mono ? lanes_cell(LANES_FOCUS_GLYPH, STYLE_THREAD_FOCUS)
                                     : lanes_cell(lanes_blocks[lanes_eighths(busy, span)],
                                                  STYLE_THREAD_FOCUS);
            continue;
        }
        if (x->o->highlight && lanes_tid_runs_in(cap->runs, a, b, x->o->highlight_tid))
            st = STYLE_RUNNING_HL;
        x->row[c] = ascii ? lanes_cell(busy * 2 >= span ? '#' : '+', st)
                          : lanes_cell(lanes_blocks[lanes_eighths(busy, span)], st);
        if (busy == span) {
            /* One run covering the whole column (not several back to back)? Only the
             * last one starting by a can. */
            if (!sweep)
                sweep = runlane_sweep_new(cap->runs);
            uint64_t end_ns;
            size_t i = runlane_sweep_last_starting_by(sweep, a, &end_ns);
            if (i != SIZE_MAX && end_ns >= b)
                x->scratch[c] = i;
        }
    }
    if (sweep)
        runlane_sweep_free(sweep);
    if (part != LANES_HEC_GC) {
        lanes_hec_text(x, cap->runs);
        lanes_hec_ticks(x, cap->cap);
    }
}

int
lanes_rows(const lane *l, const lanes_draw_opts *o)
{
    if (l->kind == LANE_HEAPBANDS)
        return LANES_BAND_ROWS;
    return l->kind == LANE_HEC && o && o->hec_split ? 2 : 1;
}

static void
lanes_row_nonmoving(lanes_ctx *x)
{
    static const uint8_t styles[3] = { STYLE_NM_MARK, STYLE_NM_SYNC, STYLE_NM_SWEEP };
    static const char ascii_glyph[3] = { 'M', 'S', 'W' };
    static const uint32_t mono_glyph[3] = { 0x2592, 0x2588, 0x2591 };
    const ivtrack *tr = evindex_nm_track(x->ix);
    if (ivtrack_count(tr) == 0)
        return;
    /* Each phase's time in every column from one sweep over the boundaries, not three
     * window searches a column. */
    const uint64_t *kinds = lanes_kinds_at_bounds(x, tr);
    for (int c = 0; c < x->ncols; c++) {
        uint64_t a = x->col_a[c], b = x->col_a[c + 1];
        uint64_t ns[3], total = 0;
        for (unsigned k = 0; k < 3; k++)
            total += ns[k] = kinds[(size_t)(c + 1) * IVTRACK_KINDS + k] -
                             kinds[(size_t)c * IVTRACK_KINDS + k];
        if (total == 0)
            continue;
        unsigned ph = ns[EVINDEX_NM_SYNC] > 0 ? EVINDEX_NM_SYNC
                      : ns[EVINDEX_NM_MARK] >= ns[EVINDEX_NM_SWEEP] ? EVINDEX_NM_MARK
                                                                    : EVINDEX_NM_SWEEP;
        x->row[c] = x->o->ascii  ? lanes_cell((uint32_t)ascii_glyph[ph], styles[ph])
                    : x->o->mono ? lanes_cell(mono_glyph[ph], styles[ph])
                                 : lanes_cell(lanes_blocks[lanes_eighths(total, b - a)],
                                              styles[ph]);
    }
}

static void
lanes_row_markers(lanes_ctx *x)
{
    const evindex *ix = x->ix;
    size_t n_markers = evindex_n_markers(ix), n_msgs = evindex_n_msgs(ix);
    bool ascii = x->o->ascii;
    for (int c = 0; c < x->ncols; c++) {
        uint64_t a = x->col_a[c], b = x->col_a[c + 1];
        x->scratch[c] = SIZE_MAX;
        size_t k = evindex_marker_first_from(ix, a);
        if (k < n_markers && evindex_marker_at(ix, k).time_ns < b) {
            x->scratch[c] = k;
            x->row[c] = lanes_cell(ascii ? '|' : LANES_TICK, STYLE_MARKER);
            continue;
        }
        size_t m = lanes_msg_first_from(ix, a);
        if (m < n_msgs && evindex_msg_at(ix, m).time_ns < b)
            x->row[c] = lanes_cell(ascii ? '.' : LANES_DOT, STYLE_MARKER_TEXT);
    }
    /* Names after the ticks, up to one column before the next tick. */
    for (int c = 0; c < x->ncols; c++) {
        if (x->scratch[c] == SIZE_MAX)
            continue;
        int next = c + 1;
        while (next < x->ncols && x->scratch[next] == SIZE_MAX)
            next++;
        int room = next < x->ncols ? next - c - 2 : x->ncols - c - 1;
        if (room <= 0)
            continue;
        const uint8_t *p;
        size_t n;
        const evindex_msg msg_v = evindex_marker_at(ix, x->scratch[c]);
        if (!evindex_msg_text(ix, &msg_v, &p, &n))
            continue;
        strbuf_reset(&x->text);
        lanes_clean_text(&x->text, p, n, ascii);
        if (x->text.len)
            lanes_row_text(x, c + 1, room, x->text.data, STYLE_MARKER_TEXT);
    }
}

/* The activity row's level (0: blank) for `busy` ns of run time summed over n_hec lanes
 * in a column of `span` ns: rises with busy. */
static unsigned
lanes_activity_level(uint64_t busy, uint64_t span, size_t n_hec)
{
    if (busy == 0)
        return 0;
    /* span * n_hec can exceed 64 bits for a long column and many caps. */
    double frac = (double)busy / ((double)span * (double)n_hec);
    unsigned level = (unsigned)(frac * 8.0 + 0.5);
    return level < 1 ? 1 : level > 8 ? 8 : level;
}

/* The activity row sums the run time of every HEC lane in each column; where the bounds
 * on the sum leave its level open, lanes are narrowed in turn until the level is fixed:
 * first to the checkpoints' finer bounds, then to their exact run time. A lane at a time,
 * for every column still open, so that each lane's chunks are asked for together (column
 * by column, each read would wait for its own); each column sees the lanes in the same
 * order either way. */
static void
lanes_row_activity(lanes_ctx *x)
{
    if (x->n_hec == 0)
        return;
    size_t nb = (size_t)x->ncols + 1, n_open = 0;
    uint64_t *lo = x->scratch_u, *hi = x->scratch_hi;   /* per column: bounds on the sum */
    size_t *open = x->scratch;                          /* the columns left open */
    uint64_t *cell_l = x->lane_lo, *cell_h = x->lane_hi;    /* a lane's bounds in each */
    for (size_t i = 0; i < x->n_hec; i++)
        lanes_busy_sums(x, x->hec[i]);
    for (int c = 0; c < x->ncols; c++) {
        uint64_t span = x->col_a[c + 1] - x->col_a[c];
        lo[c] = hi[c] = 0;
        for (size_t i = 0; i < x->n_hec; i++) {
            uint64_t l, h;
            lanes_busy_bounds(x, x->hec[i], c, &l, &h);
            lo[c] += l;
            hi[c] += h;
        }
        if (lanes_activity_level(lo[c], span, x->n_hec) !=
            lanes_activity_level(hi[c], span, x->n_hec))
            open[n_open++] = (size_t)c;
    }
    for (int exact = 0; exact < 2; exact++)
        for (size_t i = 0; i < x->n_hec && n_open > 0; i++) {
            size_t li = x->hec[i], base = li * nb, k = 0;
            for (size_t j = 0; j < n_open; j++) {
                int c = (int)open[j];
                lanes_busy_bounds(x, li, c, &cell_l[j], &cell_h[j]);
                if (cell_l[j] != cell_h[j])
                    k = lanes_need_busy_edges(x, base, c, exact, k);
            }
            if (k == 0)
                continue;
            lanes_narrow_busy(x, li, k, exact);
            size_t still = 0;
            for (size_t j = 0; j < n_open; j++) {
                int c = (int)open[j];
                uint64_t l, h, span = x->col_a[c + 1] - x->col_a[c];
                lanes_busy_bounds(x, li, c, &l, &h);
                lo[c] += l - cell_l[j];
                hi[c] -= cell_h[j] - h;
                if (lanes_activity_level(lo[c], span, x->n_hec) !=
                    lanes_activity_level(hi[c], span, x->n_hec))
                    open[still++] = (size_t)c;
            }
            n_open = still;
        }
    for (int c = 0; c < x->ncols; c++) {
        unsigned level = lanes_activity_level(lo[c], x->col_a[c + 1] - x->col_a[c], x->n_hec);
        if (level)
            x->row[c] = lanes_bar(x, level, STYLE_ACTIVITY);
    }
}

/* A series as bars of its largest value in each column (counting the value in force
 * at the column's start) against `top`. */
static void
lanes_row_series_top(lanes_ctx *x, const series *s, uint64_t top, uint8_t style)
{
    /* The bar's height only rises with the value: where the chunk headers' bounds give
     * one height, it is that; the other columns are read exactly. */
    size_t n = (size_t)x->ncols;
    series_col_bounds_many(s, x->col_a, n, x->scratch_u, x->scratch_hi, x->scratch_b);
    bool some = false;
    for (size_t c = 0; c < n; c++) {
        x->scratch_want[c] = x->scratch_b[c] && lanes_eighths(x->scratch_u[c], top) !=
                                                lanes_eighths(x->scratch_hi[c], top);
        some = some || x->scratch_want[c];
    }
    if (some)
        series_col_max_some(s, x->col_a, n, x->scratch_want, x->scratch_hi, x->scratch_b);
    for (size_t c = 0; c < n; c++)
        if (x->scratch_b[c])
            x->row[c] = lanes_bar(x, lanes_eighths(x->scratch_want[c] ? x->scratch_hi[c]
                                                   : x->scratch_u[c], top), style);
}

static void
lanes_row_series(lanes_ctx *x, const series *s, uint8_t style)
{
    lanes_row_series_top(x, s, series_max(s), style);
}

static void
lanes_row_heap(lanes_ctx *x)
{
    const series *size = evindex_series(x->ix, EVINDEX_S_HEAP_SIZE);
    if (series_count(size) > 0)
        lanes_row_series(x, size, STYLE_HEAP_SIZE);
    else
        lanes_row_series(x, evindex_series(x->ix, EVINDEX_S_HEAP_LIVE), STYLE_HEAP_LIVE);
}

static void
lanes_row_sparks(lanes_ctx *x)
{
    const series *pool = evindex_series(x->ix, EVINDEX_S_SPARK_POOL);
    if (series_count(pool) > 0) {
        lanes_row_series(x, pool, STYLE_SPARKS);
        return;
    }
    uint64_t top = 0;
    for (int c = 0; c < x->ncols; c++) {
        x->scratch_u[c] = evindex_spark_count(x->ix, EVINDEX_SPARK_CREATE, x->col_a[c],
                                              x->col_a[c + 1]);
        if (x->scratch_u[c] > top)
            top = x->scratch_u[c];
    }
    for (int c = 0; c < x->ncols; c++)
        if (x->scratch_u[c])
            x->row[c] = lanes_bar(x, lanes_eighths(x->scratch_u[c], top), STYLE_SPARKS);
}

/* The busiest visible column of every HEC's spark lane of `kind`: the common scale. */
static double
lanes_spark_top(lanes_ctx *x, lane_kind kind)
{
    double top = 0;
    size_t n_caps = evindex_n_caps(x->ix);
    double *counts = xcalloc(n_caps * (size_t)x->ncols + 1, sizeof *counts);   /* ctx's */
    x->spark_n[kind == LANE_SPARK_CREATED ? 0 : 1] = counts;
    for (size_t i = 0; i < n_caps; i++) {
        if (!sparklanes_cap_active(x->ix, i))
            continue;
        double *row = &counts[i * (size_t)x->ncols];
        sparklanes_cols(x->ix, i, kind != LANE_SPARK_CREATED, x->col_a, (size_t)x->ncols, row);
        for (int c = 0; c < x->ncols; c++)
            top = row[c] > top ? row[c] : top;
    }
    return top;
}

/* One HEC's spark creation or conversion counts, or its pool size, as bars. */
static void
lanes_row_spark_hec(lanes_ctx *x, const lane *l)
{
    if (l->kind == LANE_SPARK_POOL) {
        uint64_t top = 0;
        for (size_t i = 0; i < evindex_n_caps(x->ix); i++) {
            uint64_t m = series_max(evindex_cap_spark_series(x->ix, i, EVINDEX_CS_POOL));
            top = m > top ? m : top;
        }
        const series *pool = evindex_cap_spark_series(x->ix, l->cap_lane, EVINDEX_CS_POOL);
        if (pool)
            lanes_row_series_top(x, pool, top, STYLE_SPARKS);
        return;
    }
    double *top = l->kind == LANE_SPARK_CREATED ? &x->spark_top[0] : &x->spark_top[1];
    if (*top < 0)
        *top = lanes_spark_top(x, l->kind);
    uint8_t st = l->kind == LANE_SPARK_CREATED ? STYLE_SPARK_CREATED : STYLE_SPARK_CONVERTED;
    const double *counts = x->spark_n[l->kind == LANE_SPARK_CREATED ? 0 : 1];
    bool cached = counts && sparklanes_cap_active(x->ix, l->cap_lane);
    for (int c = 0; c < x->ncols; c++) {
        uint64_t a = x->col_a[c], b = x->col_a[c + 1];
        double n = cached ? counts[l->cap_lane * (size_t)x->ncols + (size_t)c]
                   : l->kind == LANE_SPARK_CREATED ? sparklanes_created(x->ix, l->cap_lane, a, b)
                   : sparklanes_converted(x->ix, l->cap_lane, a, b);
        if (n > 0 && *top > 0) {
            /* Eighths of the common top, at least one for any spark at all. */
            unsigned level = (unsigned)(n / *top * 8.0 + 0.5);
            x->row[c] = lanes_bar(x, level < 1 ? 1 : level > 8 ? 8 : level, st);
        }
    }
}

/* The heap-bands lane's largest bands by peak (style groups 0..n_top-1; every other band
 * is "other") and where each was last found in a census (heapprof_census_bands' hints). */
typedef struct lanes_bands {
    bool made;
    size_t n_top;
    uint32_t top[LANES_BAND_STYLES];
    uint32_t hint[LANES_BAND_STYLES];
} lanes_bands;

/* What a frame's rows are drawn from besides the lane and its part: the index as it is
 * now, the columns' times and the options rows read. Made with lanes_frame_key_of (zeroed
 * padding: compared whole). */
typedef struct lanes_frame_key {
    const evindex *ix;
    uint64_t n_events, last_ns;         /* a live index grows */
    int ncols;
    bool ascii, mono, highlight, focus, focus_complete;
    uint32_t highlight_tid, focus_tid;
    size_t focus_runs;                  /* a focused thread's runs come in the background */
} lanes_frame_key;

/* A row kept from the frames before: its lane and part, and its cells (the cursor and
 * the selection are laid over them when they are put on the surface). */
typedef struct lanes_kept_row {
    lane_kind kind;
    size_t cap_lane;
    int part, rows;
} lanes_kept_row;

#define LANES_KEPT_MAX 512      /* rows kept for one frame key */

/* Bins made for an index as it was: ix with `events` events up to last_ns. */
typedef struct lanes_memo_bins {
    busybins *b;                /* owned; NULL if none */
    const evindex *ix;
    uint64_t events, last_ns;
} lanes_memo_bins;

struct lanes_memo {
    const evindex *ix;          /* what it was made for: the index, its censuses and bands */
    size_t n_census, n_bands;
    lanes_bands bands;          /* made on the first frame that draws the lane */
    uint64_t *census_bytes;     /* owned; [census * (LANES_BAND_STYLES + 1) + style] */
    bool *census_done;          /* owned; [census]: its row of census_bytes is made */
    /* Owned; a frame's working arrays (lanes_frame_arrays), kept for the next frame:
     * made and freed every frame, those of many capabilities (hundreds of KB) went back
     * to the system and came again as fresh pages, hundreds of page faults a frame. Not
     * the index's: kept when the memo starts again. */
    unsigned char *scratch;
    size_t scratch_cap;
    /* Rows drawn for `key` and its columns' times, kept while they hold: a frame that
     * only moves the cursor or the selection, or redraws the same view, copies them. */
    lanes_frame_key key;
    uint64_t *key_cols;         /* owned; col_a[0 .. key.ncols] */
    size_t cap_key_cols;
    lanes_kept_row *kept;       /* owned; n_kept of them */
    surface_cell *kept_cells;   /* owned; key.ncols for each kept row */
    size_t n_kept, cap_kept, cap_cells;
    size_t reused;              /* rows copied from kept ones, in all */
    /* The HEC lanes' bins (lanes_memo_set_bins), kept when the memo starts again for
     * the same index (they tell themselves when it has grown). */
    lanes_memo_bins bins;
};

lanes_memo *
lanes_memo_new(void)
{
    return xcalloc(1, sizeof(lanes_memo));      /* caller frees: lanes_memo_free */
}

static void
lanes_memo_clear(lanes_memo *m)
{
    x_free(m->census_bytes);
    x_free(m->census_done);
    x_free(m->key_cols);
    x_free(m->kept);
    x_free(m->kept_cells);
    unsigned char *scratch = m->scratch;
    size_t cap = m->scratch_cap, reused = m->reused;
    lanes_memo_bins bins = m->bins;
    memset(m, 0, sizeof *m);
    m->scratch = scratch;
    m->scratch_cap = cap;
    m->reused = reused;
    m->bins = bins;
}

size_t
lanes_memo_reused(const lanes_memo *m)
{
    return m->reused;
}

void
lanes_memo_free(lanes_memo *m)
{
    if (!m)
        return;
    lanes_memo_clear(m);
    busybins_free(m->bins.b);
    x_free(m->scratch);
    x_free(m);
}

/* The memo's bins if they were made for ix as it is now, else NULL. */
static const busybins *
lanes_memo_bins_for(const lanes_memo *m, const evindex *ix)
{
    const lanes_memo_bins *mb = &m->bins;
    return mb->ix == ix && mb->events == evindex_n_events(ix) &&
                   mb->last_ns == evindex_last_ns(ix)
               ? mb->b
               : NULL;
}

void
lanes_memo_set_bins(lanes_memo *m, const evindex *ix, busybins *b)
{
    busybins_free(m->bins.b);
    m->bins = (lanes_memo_bins){ b, ix, evindex_n_events(ix), evindex_last_ns(ix) };
}

bool
lanes_memo_has_bins(const lanes_memo *m, const evindex *ix)
{
    return lanes_memo_bins_for(m, ix) != NULL;
}

/* The memo, started again if it was made for another index or a smaller one. */
static void
lanes_memo_check(lanes_memo *m, const evindex *ix)
{
    const heapprof *hp = evindex_heap_profile(ix);
    size_t nc = heapprof_n_censuses(hp), nb = heapprof_n_bands(hp);
    if (m->bins.b && !lanes_memo_bins_for(m, ix)) {
        busybins_free(m->bins.b);   /* made for another index, or this one before it grew */
        m->bins.b = NULL;
    }
    if (m->ix == ix && m->n_census == nc && m->n_bands == nb)
        return;
    lanes_memo_clear(m);
    m->ix = ix;
    m->n_census = nc;
    m->n_bands = nb;
}

static lanes_frame_key
lanes_frame_key_of(const lanes_ctx *x)
{
    lanes_frame_key k;
    memset(&k, 0, sizeof k);    /* padding too: keys are compared whole */
    k.ix = x->ix;
    k.n_events = evindex_n_events(x->ix);
    k.last_ns = evindex_last_ns(x->ix);
    k.ncols = x->ncols;
    k.ascii = x->o->ascii;
    k.mono = x->o->mono;
    k.highlight = x->o->highlight;
    k.highlight_tid = x->o->highlight ? x->o->highlight_tid : 0;
    if (x->o->focus) {
        k.focus = true;
        k.focus_tid = threadlife_tid(x->o->focus);
        k.focus_runs = threadlife_n_runs(x->o->focus);
        k.focus_complete = threadlife_complete(x->o->focus);
    }
    return k;
}

/* Keep the memo's rows if this frame's key and columns are theirs, else forget them. */
static void
lanes_kept_check(lanes_memo *m, const lanes_ctx *x)
{
    lanes_frame_key k = lanes_frame_key_of(x);
    size_t cols = (size_t)x->ncols + 1;
    if (m->key_cols && memcmp(&k, &m->key, sizeof k) == 0 &&
        memcmp(m->key_cols, x->col_a, cols * sizeof *x->col_a) == 0)
        return;
    m->key = k;
    /* Owned by the memo; kept, as the rows' arrays are, for the next key (a pan is one). */
    xgrowarray((void **)&m->key_cols, &m->cap_key_cols, cols, 256, sizeof *m->key_cols);
    memcpy(m->key_cols, x->col_a, cols * sizeof *x->col_a);
    m->n_kept = 0;
}

/* The kept row of lane l's part (of rows), or SIZE_MAX. */
static size_t
lanes_kept_find(const lanes_memo *m, const lane *l, int part, int rows)
{
    for (size_t i = 0; i < m->n_kept; i++) {
        const lanes_kept_row *r = &m->kept[i];
        if (r->kind == l->kind && r->cap_lane == l->cap_lane && r->part == part &&
            r->rows == rows)
            return i;
    }
    return SIZE_MAX;
}

/* Keep the row just drawn (up to LANES_KEPT_MAX of a frame key). */
static void
lanes_kept_add(lanes_memo *m, const lanes_ctx *x, const lane *l, int part, int rows)
{
    if (m->n_kept >= LANES_KEPT_MAX)
        return;
    size_t ncols = (size_t)x->ncols;
    xgrowarray((void **)&m->kept, &m->cap_kept, m->n_kept + 1, 16, sizeof *m->kept);
    xgrowarray((void **)&m->kept_cells, &m->cap_cells, (m->n_kept + 1) * ncols, 1024,
               sizeof *m->kept_cells);
    m->kept[m->n_kept] = (lanes_kept_row){ l->kind, l->cap_lane, part, rows };
    memcpy(m->kept_cells + m->n_kept * ncols, x->row, ncols * sizeof *x->row);
    m->n_kept++;
}

/* Make bt's groups once: style group k (< LANES_BAND_STYLES) is the band k-th by peak
 * (0: largest), every other band is "other" (LANES_BAND_STYLES). */
static void
lanes_bands_make(lanes_bands *bt, const evindex *ix)
{
    if (bt->made)
        return;
    bt->made = true;
    bt->n_top = heapbands_top_by_peak(evindex_heap_profile(ix), LANES_BAND_STYLES, bt->top);
    memset(bt->hint, 0, sizeof bt->hint);
}

/* Census ci's bytes by style group into per[0..LANES_BAND_STYLES]: the largest bands'
 * own bytes (found where they were in the census before), "other" the census's total
 * less theirs (a census's total is its entries' sum), so the entries are read once only
 * when a band moved or is absent. */
static void
lanes_census_groups(const heapprof *hp, size_t ci, lanes_bands *bt, uint64_t *per)
{
    uint64_t own[LANES_BAND_STYLES] = { 0 }, rest = heapprof_census_at(hp, ci)->total_bytes;
    heapprof_census_bands(hp, ci, bt->top, bt->n_top, bt->hint, own);
    for (size_t k = 0; k < LANES_BAND_STYLES; k++) {
        per[k] = own[k];
        rest -= own[k];
    }
    per[LANES_BAND_STYLES] = rest;
}

/* Row `part` (0: top) of the stacked heap-bands lane. `bt` holds its style groups
 * (lanes_bands_make: once per frame by the caller, or kept in the memo). */
static void
lanes_row_heapbands(lanes_ctx *x, int part, lanes_bands *bt)
{
    const heapprof *hp = evindex_heap_profile(x->ix);
    uint64_t top = heapbands_max_total(hp);
    if (!top)
        return;
    unsigned levels = 8u * LANES_BAND_ROWS;
    unsigned row = (unsigned)(LANES_BAND_ROWS - 1 - part);     /* 0: bottom row */
    enum { NS = LANES_BAND_STYLES + 1 };
    if (!x->band_bytes) {
        /* Every row reads the same sums, and neighbouring columns often the same census;
         * a census's sums are kept in the memo for the next frames. */
        x->band_bytes = xcalloc((size_t)x->ncols * NS, sizeof *x->band_bytes); /* ctx's */
        lanes_memo *m = x->o->memo;
        if (m && !m->census_bytes) {
            m->census_bytes = xmalloc((m->n_census + 1) * NS * sizeof *m->census_bytes);
            m->census_done = xcalloc(m->n_census + 1, sizeof *m->census_done);
        }
        size_t prev = SIZE_MAX;
        for (int c = 0; c < x->ncols; c++) {
            uint64_t end = x->col_a[c + 1] > x->col_a[c] ? x->col_a[c + 1] - 1 : x->col_a[c];
            size_t ci = heapprof_census_by(hp, end);
            uint64_t *per = &x->band_bytes[(size_t)c * NS];
            if (ci == SIZE_MAX)
                continue;
            if (ci == prev) {
                memcpy(per, per - NS, NS * sizeof *per);
                continue;
            }
            prev = ci;
            if (m && ci < m->n_census && m->census_done[ci]) {
                memcpy(per, &m->census_bytes[ci * NS], NS * sizeof *per);
                continue;
            }
            lanes_census_groups(hp, ci, bt, per);
            if (m && ci < m->n_census) {
                memcpy(&m->census_bytes[ci * NS], per, NS * sizeof *per);
                m->census_done[ci] = true;
            }
        }
    }
    for (int c = 0; c < x->ncols; c++) {
        uint64_t end = x->col_a[c + 1] > x->col_a[c] ? x->col_a[c + 1] - 1 : x->col_a[c];
        size_t ci = heapprof_census_by(hp, end);
        if (ci == SIZE_MAX)
            continue;
        const heapprof_census *cs = heapprof_census_at(hp, ci);
        const uint64_t *per_style = &x->band_bytes[(size_t)c * NS];
        /* The stack in levels (eighths of a row), bottom up; a cell shows how much of
         * its 8 levels are filled and the band with most of them. */
        unsigned total = (unsigned)(cs->total_bytes * levels / top);
        if (total == 0 && cs->total_bytes > 0)
            total = 1;
        unsigned lo = row * 8, hi = lo + 8;
        if (total <= lo)
            continue;
        unsigned fill = total >= hi ? 8 : total - lo;
        uint64_t acc = 0;
        unsigned best = LANES_BAND_STYLES, best_len = 0;
        for (unsigned k = 0; k <= LANES_BAND_STYLES; k++) {
            unsigned a = (unsigned)(acc * levels / top);
            acc += per_style[k];
            unsigned b = (unsigned)(acc * levels / top);
            unsigned ov_lo = a > lo ? a : lo, ov_hi = b < hi ? b : hi;
            if (ov_hi > ov_lo && ov_hi - ov_lo > best_len) {
                best_len = ov_hi - ov_lo;
                best = k;
            }
        }
        static const uint8_t styles[LANES_BAND_STYLES + 1] = {
            STYLE_BAND_1, STYLE_BAND_2, STYLE_BAND_3, STYLE_BAND_4, STYLE_BAND_5,
            STYLE_BAND_6, STYLE_BAND_OTHER,
        };
        x->row[c] = lanes_bar(x, fill, styles[best]);
    }
}

static void
lanes_row_memory(lanes_ctx *x)
{
    const series *cur = evindex_series(x->ix, EVINDEX_S_MEM_CURRENT);
    if (series_count(cur) > 0)
        lanes_row_series(x, cur, STYLE_MEMORY);
    else
        lanes_row_series(x, evindex_series(x->ix, EVINDEX_S_BLOCKS_SIZE), STYLE_MEMORY);
}

static void
lanes_row_ticky(lanes_ctx *x)
{
    const ticky *t = evindex_ticky(x->ix);
    uint64_t top = ticky_max_sample_entries(t);
    size_t n = ticky_n_samples(t);
    if (n == 0) {
        /* Definitions only (the run ended before a sample): say so, not an empty row. */
        strbuf_reset(&x->text);
        strbuf_printf(&x->text, "%zu counters defined, no samples", ticky_n_counters(t));
        lanes_row_text(x, 0, x->ncols, x->text.data, STYLE_MARKER_TEXT);
        return;
    }
    for (int c = 0; c < x->ncols; c++) {
        size_t i = ticky_sample_by(t, x->col_a[c] ? x->col_a[c] - 1 : 0);
        i = i == SIZE_MAX || x->col_a[c] == 0 ? 0 : i + 1;
        bool any = false;
        uint64_t mx = 0;
        for (; i < n && ticky_sample_at(t, i)->time_ns < x->col_a[c + 1]; i++) {
            const ticky_sample *sm = ticky_sample_at(t, i);
            if (sm->time_ns < x->col_a[c])
                continue;
            any = true;
            if (sm->entries > mx)
                mx = sm->entries;
        }
        if (any)
            x->row[c] = lanes_bar(x, top ? lanes_eighths(mx, top) : 1, STYLE_TICKY);
    }
}

/* The prof lane: in each column the cost centre most samples were in (their innermost),
 * in the style of its place in the whole log's profile (the six first, then "other"),
 * as high as its share of the column's samples. A column of many samples looks at an
 * evenly spread 256 of them. */
static void
lanes_row_prof(lanes_ctx *x)
{
    const timeprof *tp = evindex_timeprof(x->ix);
    size_t n = timeprof_n_samples(tp);
    static const uint8_t styles[LANES_BAND_STYLES + 1] = {
        STYLE_BAND_1, STYLE_BAND_2, STYLE_BAND_3, STYLE_BAND_4, STYLE_BAND_5,
        STYLE_BAND_6, STYLE_BAND_OTHER,
    };
    size_t i = timeprof_first_from(tp, x->ncols > 0 ? x->col_a[0] : 0);
    for (int c = 0; c < x->ncols && i < n; c++) {
        size_t end = timeprof_first_from(tp, x->col_a[c + 1]);
        if (end <= i)
            continue;
        uint64_t count[LANES_BAND_STYLES + 1] = { 0 };
        size_t step = (end - i) / 256 + 1, looked = 0;
        for (size_t k = i; k < end; k += step, looked++) {
            uint32_t r = timeprof_rank(tp, k);
            count[r < LANES_BAND_STYLES ? r : LANES_BAND_STYLES]++;
        }
        unsigned best = 0;
        for (unsigned k = 1; k <= LANES_BAND_STYLES; k++)
            if (count[k] > count[best])
                best = k;
        x->row[c] = lanes_bar(x, lanes_eighths(count[best], looked), styles[best]);
        i = end;
    }
}

static void
lanes_draw_label(lanes_ctx *x, int col0, int line, int width, const lane *l, bool selected)
{
    uint8_t st = selected ? STYLE_LANE_LABEL_SEL : STYLE_LANE_LABEL;
    int text_cols = LANES_LABEL_COLS - 1;
    if (width < text_cols)
        text_cols = width < 0 ? 0 : width;
    surface_fill(x->s, col0, line, text_cols, ' ', st);
    int n = surface_text_cols(l->label);
    if (n <= LANES_LABEL_COLS - 1) {
        surface_text(x->s, col0, line, l->label, st, text_cols);
    } else {
        surface_text(x->s, col0, line, l->label, st, text_cols < LANES_LABEL_COLS - 2
                                                          ? text_cols : LANES_LABEL_COLS - 2);
        if (text_cols == LANES_LABEL_COLS - 1)
            surface_put(x->s, col0 + LANES_LABEL_COLS - 2, line,
                        x->o->ascii ? '~' : LANES_ELLIPSIS, st);
    }
    if (width >= LANES_LABEL_COLS)
        surface_put(x->s, col0 + LANES_LABEL_COLS - 1, line, ' ', STYLE_DEFAULT);
}

/* Carve x's working arrays for a frame of x->ncols columns out of one block: the memo's,
 * grown when too small and kept for the next frame, or without a memo a new one the
 * caller frees (returned; NULL when it is the memo's). The per-lane flags start false. */
static unsigned char *
lanes_frame_arrays(lanes_ctx *x, lanes_memo *memo)
{
    size_t nc = (size_t)x->ncols, n_caps = evindex_n_caps(x->ix);
    size_t edges = n_caps * (nc + 1) + 1;
    struct {
        void **at;
        size_t bytes;
        bool zero;
    } parts[] = {
        { (void **)&x->col_a, (nc + 1) * sizeof *x->col_a, true },
        { (void **)&x->row, (nc + 1) * sizeof *x->row, false },
        { (void **)&x->scratch, (nc + 1) * sizeof *x->scratch, false },
        { (void **)&x->scratch_u, (nc + 1) * sizeof *x->scratch_u, false },
        { (void **)&x->scratch_b, (nc + 1) * sizeof *x->scratch_b, false },
        { (void **)&x->scratch_hi, (nc + 1) * sizeof *x->scratch_hi, false },
        { (void **)&x->lane_lo, (nc + 1) * sizeof *x->lane_lo, false },
        { (void **)&x->lane_hi, (nc + 1) * sizeof *x->lane_hi, false },
        { (void **)&x->scratch_want, (nc + 1) * sizeof *x->scratch_want, false },
        { (void **)&x->hec, (n_caps + 1) * sizeof *x->hec, false },
        { (void **)&x->busy_lo, edges * sizeof *x->busy_lo, false },
        { (void **)&x->busy_hi, edges * sizeof *x->busy_hi, false },
        { (void **)&x->busy_at, edges * sizeof *x->busy_at, false },
        { (void **)&x->busy_fine, edges * sizeof *x->busy_fine, false },
        { (void **)&x->work_lo, edges * sizeof *x->work_lo, false },
        { (void **)&x->work_hi, edges * sizeof *x->work_hi, false },
        { (void **)&x->wait_lo, edges * sizeof *x->wait_lo, false },
        { (void **)&x->wait_hi, edges * sizeof *x->wait_hi, false },
        { (void **)&x->have_busy, (n_caps + 1) * sizeof *x->have_busy, true },
        { (void **)&x->have_gc, (n_caps + 1) * sizeof *x->have_gc, true },
        { (void **)&x->drawn, (n_caps + 1) * sizeof *x->drawn, true },
        { (void **)&x->bounded, (n_caps + 1) * sizeof *x->bounded, true },
        { (void **)&x->kinds, (nc + 1) * IVTRACK_KINDS * sizeof *x->kinds, false },
        { (void **)&x->kinds_hi, (nc + 1) * IVTRACK_KINDS * sizeof *x->kinds_hi, false },
        { (void **)&x->need_e, (nc + 1) * sizeof *x->need_e, false },
        { (void **)&x->need_at, (nc + 1) * sizeof *x->need_at, false },
        { (void **)&x->need_t, (nc + 1) * sizeof *x->need_t, false },
        { (void **)&x->need_v, (nc + 1) * IVTRACK_KINDS * sizeof *x->need_v, false },
        { (void **)&x->gc_bound, nc + 1, false },
    };
    enum { ALIGN = 16 };                /* for every array's element type */
    size_t total = 0, n_parts = sizeof parts / sizeof parts[0];
    for (size_t k = 0; k < n_parts; k++)
        total += (parts[k].bytes + ALIGN - 1) / ALIGN * ALIGN;
    unsigned char *mem, *own = NULL;
    if (memo) {
        if (memo->scratch_cap < total) {
            x_free(memo->scratch);
            memo->scratch = xmalloc(total);     /* the memo's: lanes_memo_free */
            memo->scratch_cap = total;
        }
        mem = memo->scratch;
    } else {
        mem = own = xmalloc(total);             /* the caller frees */
    }
    for (size_t k = 0, off = 0; k < n_parts; k++) {
        *parts[k].at = mem + off;
        if (parts[k].zero)
            memset(mem + off, 0, parts[k].bytes);
        off += (parts[k].bytes + ALIGN - 1) / ALIGN * ALIGN;
    }
    return own;
}

/* Row `part` (of `rows`) of lane l into x->row. frame_bands: the bands lane's groups
 * when there is no memo. */
static void
lanes_row_make(lanes_ctx *x, const lane *l, int part, int rows, lanes_bands *frame_bands)
{
    for (int c = 0; c < x->ncols; c++)
        x->row[c] = lanes_cell(' ', STYLE_IDLE);
    switch (l->kind) {
    case LANE_HEC:
        lanes_row_hec(x, l, rows == 1 ? LANES_HEC_BOTH
                            : part == 0 ? LANES_HEC_RUNS : LANES_HEC_GC);
        break;
    case LANE_NONMOVING: lanes_row_nonmoving(x); break;
    case LANE_MARKERS: lanes_row_markers(x); break;
    case LANE_ACTIVITY: lanes_row_activity(x); break;
    case LANE_HEAP: lanes_row_heap(x); break;
    case LANE_SPARKS: lanes_row_sparks(x); break;
    case LANE_SPARK_CREATED: case LANE_SPARK_CONVERTED: case LANE_SPARK_POOL:
        lanes_row_spark_hec(x, l);
        break;
    case LANE_HEAPBANDS:
    {
        lanes_bands *bt = x->o->memo ? &x->o->memo->bands : frame_bands;
        lanes_bands_make(bt, x->ix);
        lanes_row_heapbands(x, part, bt);
        break;
    }
    case LANE_MEMORY: lanes_row_memory(x); break;
    case LANE_TICKY: lanes_row_ticky(x); break;
    case LANE_PROF: lanes_row_prof(x); break;
    }
}

void
lanes_draw(surface *s, int col0, int line0, int width, const evindex *ix, const lane *lanes,
           size_t n_lanes, size_t first_lane, int n_rows, const timeview *v,
           const lanes_draw_opts *o)
{
    static const lanes_draw_opts defaults = { .selected_lane = SIZE_MAX };
    lanes_ctx x = { .s = s, .ix = ix, .o = o ? o : &defaults, .x0 = col0 + LANES_LABEL_COLS,
                    .spark_top = { -1, -1 } };
    int plot = width - LANES_LABEL_COLS;
    x.ncols = plot < 0 ? 0 : plot < v->width ? plot : v->width;
    if (x.o->memo)
        lanes_memo_check(x.o->memo, ix);
    unsigned char *frame_mem = lanes_frame_arrays(&x, x.o->memo);
    strbuf_init(&x.text);
    for (int c = 0; c < x.ncols; c++)
        timeview_col_range(v, c, &x.col_a[c], &x.col_a[c + 1]);
    for (size_t i = 0; i < evindex_n_caps(ix); i++)
        if (lanes_cap_shown(ix, i))
            x.hec[x.n_hec++] = i;

    lanes_memo *memo = x.o->memo;
    if (memo)
        lanes_kept_check(memo, &x);
    bool has_sel = timeview_has_selection(v);
    int cursor = timeview_col_of(v, v->cursor_ns);
    lanes_bands frame_bands = { 0 };    /* the bands lane's groups without a memo */
    for (size_t li = first_lane, r = 0; li < n_lanes && r < (size_t)n_rows; li++) {
        if (lanes[li].kind == LANE_HEC && lanes[li].cap_lane < evindex_n_caps(ix))
            x.drawn[lanes[li].cap_lane] = true;
        r += (size_t)lanes_rows(&lanes[li], x.o);
    }
    int r = 0;
    for (size_t li = first_lane; li < n_lanes && r < n_rows; li++) {
        const lane *l = &lanes[li];
        int rows = lanes_rows(l, x.o);
        for (int part = 0; part < rows && r < n_rows; part++, r++) {
            int line = line0 + r;
            if (part == 0) {
                lanes_draw_label(&x, col0, line, width, l, li == x.o->selected_lane);
            } else {
                surface_fill(s, col0, line, LANES_LABEL_COLS, ' ', STYLE_LANE_LABEL);
                if (l->kind == LANE_HEC)
                    surface_text(s, col0, line, "  gc", STYLE_LANE_LABEL, LANES_LABEL_COLS - 1);
            }
            size_t kept = memo ? lanes_kept_find(memo, l, part, rows) : SIZE_MAX;
            if (kept != SIZE_MAX) {
                memcpy(x.row, memo->kept_cells + kept * (size_t)x.ncols,
                       (size_t)x.ncols * sizeof *x.row);
                memo->reused++;
            } else {
                lanes_row_make(&x, l, part, rows, &frame_bands);
                if (memo)
                    lanes_kept_add(memo, &x, l, part, rows);
            }
            for (int c = 0; c < x.ncols; c++) {
                surface_cell cell = x.row[c];
                if (has_sel && cell.style == STYLE_IDLE && cell.cp == ' ' &&
                    x.col_a[c] < v->sel.b_ns && x.col_a[c + 1] > v->sel.a_ns)
                    cell.style = STYLE_SELECTION;
                if (c == cursor)
                    cell.style = STYLE_CURSOR;
                surface_put(s, x.x0 + c, line, cell.cp, cell.style);
            }
        }
    }
    strbuf_free(&x.text);
    x_free(x.band_bytes);
    x_free(x.spark_n[0]);
    x_free(x.spark_n[1]);
    x_free(x.ticks);
    if (!x.o->memo)
        x_free(frame_mem);
}

/* ---- items ------------------------------------------------------------------------------ */

static void
lanes_item_none(lane_item *out, uint64_t t, uint64_t slack_ns)
{
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_NONE;
    out->start_ns = t;
    out->end_ns = t + slack_ns < t ? UINT64_MAX : t + slack_ns;
}

static void
lanes_item_run(const runlane *rl, size_t i, lane_item *out)
{
    runlane_run r;
    runlane_get(rl, i, &r);
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_RUN;
    out->start_ns = r.start_ns;
    out->end_ns = r.end_ns;
    out->index = i;
    out->tid = r.tid;
}

static void
lanes_item_gc(const evindex *ix, size_t i, lane_item *out)
{
    evindex_gc_brief g = evindex_gc_brief_at(ix, i);
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_GC;
    out->start_ns = g.start_ns;
    out->end_ns = g.end_ns;
    out->index = i;
}

/* The GC item of interval j of a capability's GC track: the capability's part of the
 * collection the interval belongs to (the interval alone if it has no record). */
static void
lanes_item_cap_gc(const evindex *ix, const evindex_cap *cap, size_t j, lane_item *out)
{
    ivtrack_iv iv_buf;
    const ivtrack_iv *iv = ivtrack_get(cap->gc, j, &iv_buf);
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_GC;
    out->start_ns = iv->start_ns;
    out->end_ns = iv->end_ns;
    out->index = SIZE_MAX;
    if (iv->ref >= evindex_n_gcs(ix))
        return;
    out->index = iv->ref;
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, iv->ref, &g_buf);
    for (uint32_t k = 0; k < g->n_parts; k++) {
        evindex_gc_part p_buf;
        const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
        if (p->cap == cap->cap) {
            out->start_ns = lanes_min_u64(p->start_ns, iv->start_ns);
            out->end_ns = p->end_ns > iv->end_ns ? p->end_ns : iv->end_ns;
            return;
        }
    }
}

static void
lanes_item_nm(const ivtrack *tr, size_t j, lane_item *out)
{
    ivtrack_iv iv_buf;
    const ivtrack_iv *iv = ivtrack_get(tr, j, &iv_buf);
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_NM;
    out->start_ns = iv->start_ns;
    out->end_ns = iv->end_ns;
    out->index = iv->ref;
}

/* The marker index of message i, which is a marker. */
static size_t
lanes_marker_of_msg(const evindex *ix, const evindex_msg *m)
{
    size_t n = evindex_n_markers(ix);
    for (size_t k = evindex_marker_first_from(ix, m->time_ns);
         k < n && evindex_marker_at(ix, k).time_ns == m->time_ns; k++)
        if (evindex_marker_at(ix, k).offset == m->offset)
            return k;
    return SIZE_MAX;
}

static void
lanes_item_msg(const evindex *ix, size_t i, lane_item *out)
{
    const evindex_msg m_v = evindex_msg_at(ix, i), *m = &m_v;
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_MSG;
    out->start_ns = out->end_ns = m->time_ns;
    out->index = i;
    if (m->kind == EVINDEX_MSG_MARKER) {
        size_t k = lanes_marker_of_msg(ix, m);
        if (k != SIZE_MAX) {
            out->kind = LANE_ITEM_MARKER;
            out->index = k;
        }
    }
}

static void
lanes_item_marker(const evindex *ix, size_t k, lane_item *out)
{
    const evindex_msg m_v = evindex_marker_at(ix, k), *m = &m_v;
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_MARKER;
    out->start_ns = out->end_ns = m->time_ns;
    out->index = k;
}

/* Candidate tracking for "nearest within slack". */
typedef struct lanes_best {
    bool found;
    uint64_t dist;
    lane_item item;
} lanes_best;

static void
lanes_offer(lanes_best *b, uint64_t t, uint64_t slack, const lane_item *it)
{
    uint64_t d = lanes_dist(t, it->start_ns, it->end_ns);
    if (d > slack || (b->found && d >= b->dist))
        return;
    b->found = true;
    b->dist = d;
    b->item = *it;
}

static bool
lanes_at_hec(const evindex *ix, const lane *l, uint64_t t, uint64_t slack, lane_item *out)
{
    if (l->cap_lane >= evindex_n_caps(ix))
        return false;
    const evindex_cap *cap = evindex_cap_at(ix, l->cap_lane);
    size_t ngc = ivtrack_count(cap->gc), nrun = runlane_count(cap->runs);
    uint64_t t_end = t + slack < t ? UINT64_MAX : t + slack;
    /* A GC phase overlapping [t, t + slack) (or containing t). */
    size_t j = ivtrack_first_after(cap->gc, t);
    if (j < ngc) {
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv = ivtrack_get(cap->gc, j, &iv_buf);
        if (iv->start_ns <= t || iv->start_ns < t_end) {
            lanes_item_cap_gc(ix, cap, j, out);
            return true;
        }
    }
    /* The run containing t. */
    size_t i = runlane_last_starting_by(cap->runs, t);
    if (i != SIZE_MAX) {
        runlane_run r;
        runlane_get(cap->runs, i, &r);
        if (r.end_ns > t || r.start_ns == t) {
            lanes_item_run(cap->runs, i, out);
            return true;
        }
    }
    /* The nearest of the neighbours on either side. */
    lanes_best best = { 0 };
    lane_item it;
    if (j > 0 && j - 1 < ngc) {
        lanes_item_cap_gc(ix, cap, j - 1, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (j < ngc) {
        lanes_item_cap_gc(ix, cap, j, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (i != SIZE_MAX) {
        lanes_item_run(cap->runs, i, &it);
        lanes_offer(&best, t, slack, &it);
    }
    size_t nx = i == SIZE_MAX ? 0 : i + 1;
    if (nx < nrun) {
        lanes_item_run(cap->runs, nx, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (best.found)
        *out = best.item;
    return best.found;
}

static bool
lanes_at_nm(const evindex *ix, uint64_t t, uint64_t slack, lane_item *out)
{
    const ivtrack *tr = evindex_nm_track(ix);
    size_t n = ivtrack_count(tr);
    size_t j = ivtrack_last_starting_by(tr, t);
    lanes_best best = { 0 };
    lane_item it;
    if (j != SIZE_MAX) {
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv = ivtrack_get(tr, j, &iv_buf);
        if (iv->end_ns > t) {
            lanes_item_nm(tr, j, out);
            return true;
        }
        lanes_item_nm(tr, j, &it);
        lanes_offer(&best, t, slack, &it);
    }
    size_t nx = j == SIZE_MAX ? 0 : j + 1;
    if (nx < n) {
        lanes_item_nm(tr, nx, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (best.found)
        *out = best.item;
    return best.found;
}

static bool
lanes_at_markers(const evindex *ix, uint64_t t, uint64_t slack, lane_item *out)
{
    lanes_best best = { 0 };
    lane_item it;
    size_t n = evindex_n_markers(ix);
    size_t k = evindex_marker_first_from(ix, t);
    if (k < n) {
        lanes_item_marker(ix, k, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (k > 0 && k - 1 < n) {
        lanes_item_marker(ix, k - 1, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (!best.found) {
        /* No marker within slack: every message within it is a plain message. */
        size_t nm = evindex_n_msgs(ix);
        size_t m = lanes_msg_first_from(ix, t);
        if (m < nm) {
            lanes_item_msg(ix, m, &it);
            lanes_offer(&best, t, slack, &it);
        }
        if (m > 0 && m - 1 < nm) {
            lanes_item_msg(ix, m - 1, &it);
            lanes_offer(&best, t, slack, &it);
        }
    }
    if (best.found)
        *out = best.item;
    return best.found;
}

static bool
lanes_at_gc(const evindex *ix, uint64_t t, uint64_t slack, lane_item *out)
{
    size_t g = evindex_gc_containing(ix, t);
    if (g != SIZE_MAX) {
        lanes_item_gc(ix, g, out);
        return true;
    }
    lanes_best best = { 0 };
    lane_item it;
    size_t n = evindex_n_gcs(ix);
    size_t i = evindex_gc_first_from(ix, t);
    if (i < n) {
        lanes_item_gc(ix, i, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (i > 0 && i - 1 < n) {
        lanes_item_gc(ix, i - 1, &it);
        lanes_offer(&best, t, slack, &it);
    }
    if (best.found)
        *out = best.item;
    return best.found;
}

/* ---- the sample lanes' own samples (heap, bands, memory, ticky, prof) ---------------------- */

static bool
lanes_has_samples(const lane *l)
{
    return l->kind == LANE_HEAP || l->kind == LANE_HEAPBANDS || l->kind == LANE_MEMORY ||
           l->kind == LANE_TICKY || l->kind == LANE_PROF;
}

const series *
lanes_sample_series(const evindex *ix, const lane *l)
{
    if (l->kind == LANE_HEAP) {
        const series *s = evindex_series(ix, EVINDEX_S_HEAP_SIZE);
        return series_count(s) ? s : evindex_series(ix, EVINDEX_S_HEAP_LIVE);
    }
    if (l->kind == LANE_MEMORY) {
        const series *s = evindex_series(ix, EVINDEX_S_MEM_CURRENT);
        return series_count(s) ? s : evindex_series(ix, EVINDEX_S_BLOCKS_SIZE);
    }
    return NULL;
}

/* From a "last at or before t" index (SIZE_MAX: none): the first at or after t. */
static size_t
lanes_first_from_last_by(size_t (*last_by)(const void *, uint64_t), const void *obj,
                         uint64_t t)
{
    if (t == 0)
        return 0;
    size_t i = last_by(obj, t - 1);
    return i == SIZE_MAX ? 0 : i + 1;
}

static size_t
lanes_census_by(const void *hp, uint64_t t)
{
    return heapprof_census_by(hp, t);
}

static size_t
lanes_ticky_by(const void *tk, uint64_t t)
{
    return ticky_sample_by(tk, t);
}

/* Index of lane l's first sample at or after t; *n receives their count. */
static size_t
lanes_sample_first_from(const evindex *ix, const lane *l, uint64_t t, size_t *n)
{
    switch (l->kind) {
    case LANE_HEAPBANDS: {
        const heapprof *hp = evindex_heap_profile(ix);
        *n = heapprof_n_censuses(hp);
        return lanes_first_from_last_by(lanes_census_by, hp, t);
    }
    case LANE_TICKY: {
        const ticky *tk = evindex_ticky(ix);
        *n = ticky_n_samples(tk);
        return lanes_first_from_last_by(lanes_ticky_by, tk, t);
    }
    case LANE_PROF:
        *n = timeprof_n_samples(evindex_timeprof(ix));
        return timeprof_first_from(evindex_timeprof(ix), t);
    default: {
        const series *s = lanes_sample_series(ix, l);
        *n = s ? series_count(s) : 0;
        return s ? series_lower_bound(s, t) : 0;
    }
    }
}

static bool
lanes_item_sample(const evindex *ix, const lane *l, size_t i, lane_item *out)
{
    uint64_t t;
    switch (l->kind) {
    case LANE_HEAPBANDS: t = heapprof_census_at(evindex_heap_profile(ix), i)->time_ns; break;
    case LANE_TICKY: t = ticky_sample_at(evindex_ticky(ix), i)->time_ns; break;
    case LANE_PROF: t = timeprof_sample_at(evindex_timeprof(ix), i).time_ns; break;
    default: {
        const series *s = lanes_sample_series(ix, l);
        if (!s)
            return false;
        t = series_get(s, i).time_ns;
        break;
    }
    }
    memset(out, 0, sizeof *out);
    out->kind = LANE_ITEM_SAMPLE;
    out->start_ns = out->end_ns = t;
    out->index = i;
    return true;
}

/* The next sample after t (dir > 0) or the last one before t; of samples taken at the
 * same time, the first going forward and the last going back. */
static bool
lanes_step_sample(const evindex *ix, const lane *l, uint64_t t, int dir, lane_item *out)
{
    size_t n, i;
    if (dir > 0) {
        if (t == UINT64_MAX)
            return false;
        i = lanes_sample_first_from(ix, l, t + 1, &n);
        return i < n && lanes_item_sample(ix, l, i, out);
    }
    i = lanes_sample_first_from(ix, l, t, &n);
    return i > 0 && i - 1 < n && lanes_item_sample(ix, l, i - 1, out);
}

bool
lanes_item_at(const evindex *ix, const lane *l, uint64_t t, uint64_t slack_ns, lane_item *out)
{
    bool found = false;
    switch (l->kind) {
    case LANE_HEC: found = lanes_at_hec(ix, l, t, slack_ns, out); break;
    case LANE_NONMOVING: found = lanes_at_nm(ix, t, slack_ns, out); break;
    case LANE_MARKERS: found = lanes_at_markers(ix, t, slack_ns, out); break;
    case LANE_ACTIVITY: case LANE_HEAP: case LANE_SPARKS:
    case LANE_SPARK_CREATED: case LANE_SPARK_CONVERTED: case LANE_SPARK_POOL:
    case LANE_HEAPBANDS: case LANE_MEMORY: case LANE_TICKY: case LANE_PROF:
        found = lanes_at_gc(ix, t, slack_ns, out);
        break;
    }
    if (lanes_has_samples(l)) {
        lanes_best best = { 0 };
        lane_item it;
        size_t n, i = lanes_sample_first_from(ix, l, t, &n);
        if (i < n && lanes_item_sample(ix, l, i, &it))
            lanes_offer(&best, t, slack_ns, &it);
        if (i > 0 && i - 1 < n && lanes_item_sample(ix, l, i - 1, &it))
            lanes_offer(&best, t, slack_ns, &it);
        if (best.found) {
            *out = best.item;
            found = true;
        }
    }
    if (!found)
        lanes_item_none(out, t, slack_ns);
    return found;
}

/* Next (dir > 0) or previous GC item on a capability's GC track. */
static bool
lanes_step_cap_gc(const evindex *ix, const evindex_cap *cap, uint64_t t, int dir, lane_item *out)
{
    size_t n = ivtrack_count(cap->gc);
    if (dir < 0) {
        if (t == 0)
            return false;
        size_t j = ivtrack_last_starting_by(cap->gc, t - 1);
        if (j == SIZE_MAX)
            return false;
        lanes_item_cap_gc(ix, cap, j, out);
        return true;
    }
    for (size_t j = ivtrack_first_after(cap->gc, t); j < n;) {
        lanes_item_cap_gc(ix, cap, j, out);
        if (out->start_ns > t)
            return true;
        /* Skip the rest of this collection's phases. */
        size_t nj = ivtrack_first_after(cap->gc, out->end_ns);
        j = nj > j ? nj : j + 1;
    }
    return false;
}

static bool
lanes_step_run(const runlane *rl, uint64_t t, int dir, lane_item *out)
{
    size_t n = runlane_count(rl);
    if (dir < 0) {
        if (t == 0)
            return false;
        size_t i = runlane_last_starting_by(rl, t - 1);
        if (i == SIZE_MAX)
            return false;
        lanes_item_run(rl, i, out);
        return true;
    }
    size_t i = runlane_last_starting_by(rl, t);
    i = i == SIZE_MAX ? 0 : i + 1;
    if (i >= n)
        return false;
    lanes_item_run(rl, i, out);
    return true;
}

static bool
lanes_step_hec(const evindex *ix, const lane *l, uint64_t t, int dir, lane_item *out)
{
    if (l->cap_lane >= evindex_n_caps(ix))
        return false;
    const evindex_cap *cap = evindex_cap_at(ix, l->cap_lane);
    lane_item g, r;
    bool has_g = lanes_step_cap_gc(ix, cap, t, dir, &g);
    bool has_r = lanes_step_run(cap->runs, t, dir, &r);
    if (!has_g && !has_r)
        return false;
    if (has_g && has_r)
        *out = (dir > 0 ? g.start_ns <= r.start_ns : g.start_ns > r.start_ns) ? g : r;
    else
        *out = has_g ? g : r;
    return true;
}

static bool
lanes_step_nm(const evindex *ix, uint64_t t, int dir, lane_item *out)
{
    const ivtrack *tr = evindex_nm_track(ix);
    size_t n = ivtrack_count(tr);
    if (dir < 0) {
        if (t == 0)
            return false;
        size_t j = ivtrack_last_starting_by(tr, t - 1);
        if (j == SIZE_MAX)
            return false;
        lanes_item_nm(tr, j, out);
        return true;
    }
    size_t j = ivtrack_last_starting_by(tr, t);
    j = j == SIZE_MAX ? 0 : j + 1;
    if (j >= n)
        return false;
    lanes_item_nm(tr, j, out);
    return true;
}

static bool
lanes_step_msg(const evindex *ix, uint64_t t, int dir, lane_item *out)
{
    size_t n = evindex_n_msgs(ix);
    if (dir < 0) {
        size_t m = lanes_msg_first_from(ix, t);
        if (m == 0)
            return false;
        lanes_item_msg(ix, m - 1, out);
        return true;
    }
    if (t == UINT64_MAX)
        return false;
    size_t m = lanes_msg_first_from(ix, t + 1);
    if (m >= n)
        return false;
    lanes_item_msg(ix, m, out);
    return true;
}

static bool
lanes_step_gc(const evindex *ix, uint64_t t, int dir, lane_item *out)
{
    size_t n = evindex_n_gcs(ix);
    if (dir < 0) {
        size_t i = evindex_gc_first_from(ix, t);
        if (i == 0)
            return false;
        lanes_item_gc(ix, i - 1, out);
        return true;
    }
    if (t == UINT64_MAX)
        return false;
    size_t i = evindex_gc_first_from(ix, t + 1);
    if (i >= n)
        return false;
    lanes_item_gc(ix, i, out);
    return true;
}

bool
lanes_next_item(const evindex *ix, const lane *l, uint64_t t, int dir, lane_item *out)
{
    bool found = false;
    lane_item it;
    if (dir != 0) {
        switch (l->kind) {
        case LANE_HEC: found = lanes_step_hec(ix, l, t, dir, &it); break;
        case LANE_NONMOVING: found = lanes_step_nm(ix, t, dir, &it); break;
        case LANE_MARKERS: found = lanes_step_msg(ix, t, dir, &it); break;
        case LANE_ACTIVITY: case LANE_SPARKS:
        case LANE_SPARK_CREATED: case LANE_SPARK_CONVERTED: case LANE_SPARK_POOL:
            found = lanes_step_gc(ix, t, dir, &it);
            break;
        case LANE_HEAP: case LANE_HEAPBANDS: case LANE_MEMORY: case LANE_TICKY: case LANE_PROF:
            found = lanes_step_sample(ix, l, t, dir, &it);
            break;
        }
    }
    if (found)
        *out = it;
    else
        lanes_item_none(out, t, 0);
    return found;
}
