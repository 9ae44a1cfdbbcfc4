/* mmu: exact minimum mutator utilisation over the union of pause spans, by a sweep over
 * the window starts where the stopped time in a window can peak. */
#include "mmu.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* One stopped span and the stopped time before it; kept together, as every pass reads
 * the three side by side. */
typedef struct mmu_seg {
    uint64_t start, end;
    uint64_t before;            /* stopped time of the spans before this one */
} mmu_seg;

struct mmu {
    uint64_t from_ns, to_ns;
    size_t n;                   /* disjoint spans, sorted, inside [from_ns, to_ns) */
    mmu_seg *seg;               /* owned, n + 1: seg[n] is a sentinel at UINT64_MAX whose
                                 * `before` is all the stopped time */
    uint64_t shortest_ns;
};

static int
mmu_span_cmp(const void *a, const void *b)
{
    const mmu_span *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return (x->end_ns > y->end_ns) - (x->end_ns < y->end_ns);
}

mmu *
mmu_new(const mmu_span *spans, size_t n, uint64_t from_ns, uint64_t to_ns)
{
    mmu *m = xcalloc(1, sizeof *m);
    m->from_ns = from_ns;
    m->to_ns = to_ns > from_ns ? to_ns : from_ns;
    if (m->to_ns == UINT64_MAX)
        m->to_ns--;             /* keeps every time below the sentinel */
    if (m->from_ns > m->to_ns)
        m->from_ns = m->to_ns;
    mmu_span *v = xmalloc((n + 1) * sizeof *v);      /* freed below */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t s = spans[i].start_ns > m->from_ns ? spans[i].start_ns : m->from_ns;
        uint64_t e = spans[i].end_ns < m->to_ns ? spans[i].end_ns : m->to_ns;
        if (e <= s)
            continue;
        if (!m->shortest_ns || e - s < m->shortest_ns)
            m->shortest_ns = e - s;
        v[k++] = (mmu_span){ s, e };
    }
    qsort(v, k, sizeof *v, mmu_span_cmp);
    m->seg = xmalloc((k + 1) * sizeof *m->seg);
    for (size_t i = 0; i < k; i++) {
        /* Overlapping or touching: one stopped stretch. */
        if (m->n && v[i].start_ns <= m->seg[m->n - 1].end) {
            if (v[i].end_ns > m->seg[m->n - 1].end)
                m->seg[m->n - 1].end = v[i].end_ns;
            continue;
        }
        m->seg[m->n++] = (mmu_seg){ v[i].start_ns, v[i].end_ns, 0 };
    }
    uint64_t before = 0;
    for (size_t i = 0; i < m->n; i++) {
        m->seg[i].before = before;
        before += m->seg[i].end - m->seg[i].start;
    }
    m->seg[m->n] = (mmu_seg){ UINT64_MAX, UINT64_MAX, before };
    x_free(v);
    return m;
}

void
mmu_free(mmu *m)
{
    if (!m)
        return;
    x_free(m->seg);
    x_free(m);
}

uint64_t
mmu_from_ns(const mmu *m)
{
    return m->from_ns;
}

uint64_t
mmu_to_ns(const mmu *m)
{
    return m->to_ns;
}

size_t
mmu_n_spans(const mmu *m)
{
    return m->n;
}

uint64_t
mmu_paused_total(const mmu *m)
{
    return m->seg[m->n].before;
}

uint64_t
mmu_shortest_ns(const mmu *m)
{
    return m->shortest_ns;
}

/* Stopped time in [from_ns, x), with k the first span ending after x. */
static uint64_t
mmu_cum_at(const mmu *m, size_t k, uint64_t x)
{
    const mmu_seg *g = &m->seg[k];
    return g->before + (x > g->start ? x - g->start : 0);
}

/* The first span ending after x (binary search). */
static size_t
mmu_span_after(const mmu *m, uint64_t x)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->seg[mid].end <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t
mmu_cum(const mmu *m, uint64_t x)
{
    return mmu_cum_at(m, mmu_span_after(m, x), x);
}

uint64_t
mmu_paused_in(const mmu *m, uint64_t a, uint64_t b)
{
    if (a < m->from_ns)
        a = m->from_ns;
    if (b > m->to_ns)
        b = m->to_ns;
    return b > a ? mmu_cum(m, b) - mmu_cum(m, a) : 0;
}

/* A cursor answering mmu_cum for non-decreasing x in amortised O(1). */
typedef struct mmu_cursor {
    const mmu *m;
    size_t k;
} mmu_cursor;

static uint64_t
mmu_cursor_cum(mmu_cursor *c, uint64_t x)
{
    while (c->m->seg[c->k].end <= x)     /* the sentinel stops it */
        c->k++;
    return mmu_cum_at(c->m, c->k, x);
}

/* Starts t already chosen by mmu_worst, sorted: t is allowed if no chosen window
 * overlaps [t, t + w). */
typedef struct mmu_taken {
    const uint64_t *t;
    size_t n;
    uint64_t w;
} mmu_taken;

static bool
mmu_allowed(const mmu_taken *tk, uint64_t t)
{
    if (!tk || !tk->n)
        return true;
    /* The last chosen start <= t, and the first after it. */
    size_t lo = 0, hi = tk->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tk->t[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && t - tk->t[lo - 1] < tk->w)
        return false;
    if (lo < tk->n && tk->t[lo] - t < tk->w)
        return false;
    return true;
}

/* The best window start found so far: most stopped time, then earliest. */
typedef struct mmu_pick {
    bool found;
    uint64_t t, p;
} mmu_pick;

static inline void
mmu_try(mmu_pick *b, uint64_t t, uint64_t p)
{
    if (!b->found || p > b->p || (p == b->p && t < b->t))
        *b = (mmu_pick){ true, t, p };
}

/* A wholly stopped window already found before t: no start from t on can be worse. */
static inline bool
mmu_done(const mmu_pick *b, uint64_t w, uint64_t t)
{
    return b->found && b->p == w && t > b->t;
}

/* Best allowed start over [from, to - w] (w < range length): the most stopped time, the
 * earliest among equals. Candidates: the domain's ends, every span start, every span end
 * minus w, and (for mmu_worst) both sides of every chosen window. b->found is false if
 * no start is allowed. */
static mmu_pick
mmu_best(const mmu *m, uint64_t w, const mmu_taken *tk)
{
    uint64_t lo = m->from_ns, hi = m->to_ns - w;
    mmu_pick b = { false, 0, 0 };
    /* A window starting at span i's start has C(s_i) = seg[i].before before it; one
     * ending at span j's end has C(e_j) = seg[j + 1].before before its end. So each
     * stream needs one cursor, moving forward only. */
    mmu_cursor c = { m, 0 };
    size_t i = mmu_span_after(m, lo);
    if (i < m->n && m->seg[i].start < lo)
        i++;                    /* a span running into the domain: its start is outside */
    for (; m->seg[i].start <= hi; i++) {    /* the sentinel stops it */
        uint64_t t = m->seg[i].start;
        if (mmu_done(&b, w, t))
            break;
        if (!tk || mmu_allowed(tk, t))
            mmu_try(&b, t, mmu_cursor_cum(&c, t + w) - m->seg[i].before);
    }
    c.k = 0;
    size_t j = mmu_span_after(m, lo + w - 1);       /* first span with end >= lo + w */
    for (; j < m->n && m->seg[j].end - w <= hi; j++) {
        uint64_t t = m->seg[j].end - w;
        if (mmu_done(&b, w, t))
            break;
        if (!tk || mmu_allowed(tk, t))
            mmu_try(&b, t, m->seg[j + 1].before - mmu_cursor_cum(&c, t));
    }
    /* The domain's ends, and the sides of the chosen windows, off the passes' order. */
    uint64_t ends[2] = { lo, hi };
    for (int e = 0; e < 2; e++)
        if (mmu_allowed(tk, ends[e]))
            mmu_try(&b, ends[e], mmu_cum(m, ends[e] + w) - mmu_cum(m, ends[e]));
    for (size_t k = 0; tk && k < tk->n; k++) {
        uint64_t side[2] = { tk->t[k] >= lo + w ? tk->t[k] - w : lo, tk->t[k] + w };
        for (int s = 0; s < 2; s++)
            if (side[s] >= lo && side[s] <= hi && mmu_allowed(tk, side[s]))
                mmu_try(&b, side[s], mmu_cum(m, side[s] + w) - mmu_cum(m, side[s]));
    }
    return b;
}

static mmu_point
mmu_whole(const mmu *m, uint64_t w)
{
    uint64_t len = m->to_ns - m->from_ns;
    uint64_t p = mmu_paused_total(m);
    return (mmu_point){ w, m->from_ns, p, len ? 1.0 - (double)p / (double)len : 1.0 };
}

mmu_point
mmu_at(const mmu *m, uint64_t window_ns)
{
    uint64_t w = window_ns ? window_ns : 1;
    if (w >= m->to_ns - m->from_ns)
        return mmu_whole(m, w);
    mmu_pick b = mmu_best(m, w, NULL);
    return (mmu_point){ w, b.t, b.p, 1.0 - (double)b.p / (double)w };
}

size_t
mmu_curve_windows(const mmu *m, uint64_t *out, size_t max)
{
    uint64_t len = m->to_ns - m->from_ns;
    uint64_t first = m->shortest_ns ? m->shortest_ns : 1000;
    /* The largest 1, 2, 5 x 10^k not above `first`. */
    uint64_t dec = 1, w = 1;
    while (dec <= first / 10)
        dec *= 10;
    static const unsigned steps[3] = { 1, 2, 5 };
    unsigned step = 0;
    for (unsigned s = 0; s < 3; s++)
        if (steps[s] * dec <= first)
            step = s;
    w = steps[step] * dec;
    size_t n = 0;
    while (n < max && w < len) {
        out[n++] = w;
        if (++step == 3) {
            step = 0;
            if (dec > UINT64_MAX / 10 / 5)
                break;
            dec *= 10;
        }
        w = steps[step] * dec;
    }
    if (n < max && len)
        out[n++] = len;
    return n;
}

static int
mmu_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

size_t
mmu_worst(const mmu *m, uint64_t window_ns, size_t top, mmu_point *out)
{
    uint64_t w = window_ns ? window_ns : 1;
    if (!top)
        return 0;
    if (w >= m->to_ns - m->from_ns) {
        mmu_point p = mmu_whole(m, w);
        if (!p.paused_ns)
            return 0;
        out[0] = p;
        return 1;
    }
    uint64_t *chosen = xmalloc((top + 1) * sizeof *chosen);     /* freed below */
    mmu_taken tk = { chosen, 0, w };
    size_t n = 0;
    while (n < top) {
        mmu_pick b = mmu_best(m, w, &tk);
        if (!b.found || b.p == 0)
            break;
        out[n++] = (mmu_point){ w, b.t, b.p, 1.0 - (double)b.p / (double)w };
        chosen[tk.n++] = b.t;
        qsort(chosen, tk.n, sizeof *chosen, mmu_u64_cmp);
    }
    x_free(chosen);
    return n;
}
