/* evseek: stretches (runs of file-order events of one capability, cut at every block
 * marker) with time bounds and, every EVSEEK_STRIDE events, an iterator checkpoint
 * carrying the prefix max / suffix min of the stretch's times, so that a time-range
 * query skips whole strides even though GHC writes blocks only nearly time-sorted. */
#include "evseek.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gallop.h"
#include "xalloc.h"

/* One stretch: 64 bytes. Its checkpoints are ck[first_ck .. first_ck + n_ck), with
 * n_ck = (n_events - 1) / EVSEEK_STRIDE once closed (none stands at its end). */
typedef struct evseek_stretch {
    evlog_iter_mark start;      /* iterator state just before its first event */
    uint64_t min_ns, max_ns;    /* over all its events */
    uint64_t n_events;          /* >= 1 */
    size_t first_ck;
    uint16_t cap;
} evseek_stretch;

/* Checkpoint k of a stretch (40 bytes): the iterator after event (k+1)*STRIDE - 1. */
typedef struct evseek_ck {
    evlog_iter_mark mark;
    uint64_t prefix_max_ns;     /* max time of the stretch's events before the mark */
    uint64_t suffix_min_ns;     /* min time of its events from the mark to its end */
} evseek_ck;

struct evseek {
    evseek_stretch *st;         /* owned; st[0 .. n_sorted) by (min_ns, start.pos), the
                                 * rest in file order (recorded since the last publish) */
    size_t n_st, cap_st, n_sorted;
    uint64_t generation;        /* publishes and seal so far */
    uint64_t max_span_ns;       /* the largest max_ns - min_ns of st[0 .. n_sorted): a
                                 * query starts at the first stretch that may reach it */
    evseek_ck *ck;              /* owned; file order */
    size_t n_ck, cap_ck;
    bool open;                  /* st[n_st - 1] is still being recorded */
    bool sealed;                /* nothing may be noted any more */
    uint64_t stride_min_ns;     /* min time of the open stretch's current stride */
    /* Published mid-block: the iterator just before the next event, where the stretch
     * that goes on there starts (its block context is not that of a block marker). */
    bool have_resume;
    evlog_iter_mark resume;
};

static size_t
evseek_stretch_n_ck(const evseek_stretch *st)
{
    return (size_t)((st->n_events - 1) / EVSEEK_STRIDE);
}

evseek *
evseek_new(void)
{
    return xcalloc(1, sizeof(evseek));  /* caller frees: evseek_free */
}

void
evseek_free(evseek *s)
{
    if (!s)
        return;
    x_free(s->st);
    x_free(s->ck);
    x_free(s);
}

/* Finish the open stretch: drop a checkpoint standing at its very end, give the last
 * stride's minimum to the last checkpoint and turn per-stride minima into suffix minima. */
static void
evseek_close(evseek *s)
{
    if (!s->open)
        return;
    s->open = false;
    evseek_stretch *st = &s->st[s->n_st - 1];
    size_t n_ck = evseek_stretch_n_ck(st);
    if (st->n_events % EVSEEK_STRIDE == 0)
        s->n_ck--;
    else if (n_ck > 0)
        s->ck[st->first_ck + n_ck - 1].suffix_min_ns = s->stride_min_ns;
    for (size_t j = n_ck; j-- > 1;) {
        evseek_ck *c = &s->ck[st->first_ck + j - 1];
        uint64_t later = s->ck[st->first_ck + j].suffix_min_ns;
        if (later < c->suffix_min_ns)
            c->suffix_min_ns = later;
    }
}

static void
evseek_push_stretch(evseek *s, const evlog_iter_mark *start, uint16_t cap)
{
    if (s->n_st == s->cap_st) {
        s->cap_st = s->cap_st ? 2 * s->cap_st : 64;
        s->st = xreallocarray(s->st, s->cap_st, sizeof *s->st);     /* owned by s */
    }
    evseek_stretch *st = &s->st[s->n_st++];
    memset(st, 0, sizeof *st);
    st->start = *start;
    st->min_ns = UINT64_MAX;
    st->max_ns = 0;
    st->first_ck = s->n_ck;
    st->cap = cap;
    s->stride_min_ns = UINT64_MAX;
    s->open = true;
}

static void
evseek_push_ck(evseek *s, const evseek_stretch *st, const evlog_iter_mark *mark)
{
    if (s->n_ck == s->cap_ck) {
        s->cap_ck = s->cap_ck ? 2 * s->cap_ck : 64;
        s->ck = xreallocarray(s->ck, s->cap_ck, sizeof *s->ck);     /* owned by s */
    }
    /* The stride that just ended started at the previous checkpoint, if any. */
    if (st->n_events >= 2 * EVSEEK_STRIDE)
        s->ck[s->n_ck - 1].suffix_min_ns = s->stride_min_ns;
    evseek_ck *c = &s->ck[s->n_ck++];
    c->mark = *mark;
    c->prefix_max_ns = st->max_ns;
    c->suffix_min_ns = UINT64_MAX;
    s->stride_min_ns = UINT64_MAX;
}

/* The stretch ev goes in: the open one, or a new one that starts at ev. */
static evseek_stretch *
evseek_stretch_for(evseek *s, const evlog_event *ev)
{
    assert(!s->sealed);
    evseek_stretch *st = s->open ? &s->st[s->n_st - 1] : NULL;
    if (!st || ev->type == EV_BLOCK_MARKER || ev->cap != st->cap) {
        /* A stretch starts at a BLOCK_MARKER, which opens its own block, or at an
         * event the previous block no longer covers (its cap is EVLOG_NO_CAP). Either
         * way resuming there with no block open gives the same capabilities, so no
         * iterator state needs saving per event — except after a publish mid-block,
         * which saved it (evseek_publish). */
        evlog_iter_mark before = { .pos = ev->offset, .block_cap = EVLOG_NO_CAP };
        if (s->have_resume && s->resume.pos == ev->offset && ev->type != EV_BLOCK_MARKER)
            before = s->resume;
        s->have_resume = false;
        evseek_close(s);
        evseek_push_stretch(s, &before, ev->cap);
        st = &s->st[s->n_st - 1];
    }
    return st;
}

void
evseek_note(evseek *s, const evlog_iter *it, const evlog_event *ev)
{
    evseek_stretch *st = evseek_stretch_for(s, ev);
    st->n_events++;
    if (ev->time_ns < st->min_ns)
        st->min_ns = ev->time_ns;
    if (ev->time_ns > st->max_ns)
        st->max_ns = ev->time_ns;
    if (ev->time_ns < s->stride_min_ns)
        s->stride_min_ns = ev->time_ns;
    if (st->n_events % EVSEEK_STRIDE == 0) {
        evlog_iter_mark m;
        evlog_iter_save(it, &m);
        evseek_push_ck(s, st, &m);
    }
}

void
evseek_note_run(evseek *s, const evlog_iter *it, const evlog_event *ev, size_t n,
                uint64_t min_ns, uint64_t max_ns)
{
    if (!n)
        return;
    /* The run's events after the first are neither markers nor of another capability:
     * they go in the first one's stretch. Stride by stride, as evseek_note would. */
    evseek_stretch *st = evseek_stretch_for(s, &ev[0]);
    uint64_t lo = st->min_ns, hi = st->max_ns, stride_lo = s->stride_min_ns;
    if (n < EVSEEK_STRIDE - (size_t)(st->n_events % EVSEEK_STRIDE)) {
        /* No stride ends in the run: only its extremes count. */
        st->n_events += n;
        st->min_ns = min_ns < lo ? min_ns : lo;
        st->max_ns = max_ns > hi ? max_ns : hi;
        s->stride_min_ns = min_ns < stride_lo ? min_ns : stride_lo;
        return;
    }
    for (size_t k = 0; k < n;) {
        size_t left = EVSEEK_STRIDE - (size_t)(st->n_events % EVSEEK_STRIDE);
        size_t end = n - k < left ? n : k + left;
        st->n_events += end - k;
        for (; k < end; k++) {
            uint64_t t = ev[k].time_ns;
            lo = t < lo ? t : lo;
            hi = t > hi ? t : hi;
            stride_lo = t < stride_lo ? t : stride_lo;
        }
        if (st->n_events % EVSEEK_STRIDE == 0) {
            st->min_ns = lo;
            st->max_ns = hi;
            s->stride_min_ns = stride_lo;
            evlog_iter_mark m;
            evlog_iter_mark_in_run(it, ev, n, k - 1, &m);
            evseek_push_ck(s, st, &m);
            stride_lo = s->stride_min_ns;
        }
    }
    st->min_ns = lo;
    st->max_ns = hi;
    s->stride_min_ns = stride_lo;
}

static int
evseek_stretch_cmp(const void *a, const void *b)
{
    const evseek_stretch *x = a, *y = b;
    if (x->min_ns != y->min_ns)
        return x->min_ns < y->min_ns ? -1 : 1;
    return x->start.pos < y->start.pos ? -1 : x->start.pos > y->start.pos;
}

void
evseek_merge(evseek *dst, evseek *src)
{
    assert(!dst->sealed && !src->sealed && !dst->n_sorted && !src->n_sorted);
    evseek_close(dst);
    evseek_close(src);
    /* Both tables move by pieces, the pages they leave given back as they go: neither
     * is held twice nor leaves a hole (xreallocarray_release, x_copy_release). */
    if (dst->n_st + src->n_st > dst->cap_st) {
        size_t old = dst->cap_st * sizeof *dst->st;
        dst->cap_st = dst->n_st + src->n_st;
        dst->st = xreallocarray_release(dst->st, old, dst->cap_st,
                                        sizeof *dst->st);                /* owned by dst */
    }
    for (size_t i = 0; i < src->n_st; i++) {
        dst->st[dst->n_st] = src->st[i];
        dst->st[dst->n_st++].first_ck += dst->n_ck;
    }
    if (dst->n_ck + src->n_ck > dst->cap_ck) {
        size_t old = dst->cap_ck * sizeof *dst->ck;
        dst->cap_ck = dst->n_ck + src->n_ck;
        dst->ck = xreallocarray_release(dst->ck, old, dst->cap_ck,
                                        sizeof *dst->ck);                /* owned by dst */
    }
    if (src->n_ck)
        x_copy_release(dst->ck + dst->n_ck, src->ck, src->n_ck * sizeof *src->ck);
    dst->n_ck += src->n_ck;
    /* Copied: not kept beside the copy until src is freed. */
    x_free(src->st);
    x_free(src->ck);
    src->st = NULL;
    src->ck = NULL;
    src->n_st = src->n_ck = src->cap_st = src->cap_ck = 0;
}

/* Put the stretches recorded since the last publish among the sorted ones: sort them,
 * then merge them into the tail of the sorted run they belong in. GHC writes blocks
 * nearly in time order, so the tail moved is short; the first publish sorts all. */
static void
evseek_sort_new(evseek *s)
{
    size_t n_old = s->n_sorted, n_new = s->n_st - n_old;
    for (size_t i = n_old; i < s->n_st; i++)
        if (s->st[i].max_ns - s->st[i].min_ns > s->max_span_ns)
            s->max_span_ns = s->st[i].max_ns - s->st[i].min_ns;
    if (n_new > 1)
        qsort(s->st + n_old, n_new, sizeof *s->st, evseek_stretch_cmp);
    if (n_old && n_new && evseek_stretch_cmp(&s->st[n_old - 1], &s->st[n_old]) > 0) {
        size_t lo = 0, hi = n_old;              /* the first old one after the first new */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (evseek_stretch_cmp(&s->st[mid], &s->st[n_old]) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t n_tail = n_old - lo;
        evseek_stretch *tail = xmalloc(n_tail * sizeof *tail);     /* freed below */
        memcpy(tail, s->st + lo, n_tail * sizeof *tail);
        size_t i = 0, j = n_old, k = lo;
        while (i < n_tail && j < s->n_st)
            s->st[k++] = evseek_stretch_cmp(&tail[i], &s->st[j]) <= 0 ? tail[i++]
                                                                       : s->st[j++];
        while (i < n_tail)
            s->st[k++] = tail[i++];
        x_free(tail);
    }
    s->n_sorted = s->n_st;
}

void
evseek_publish(evseek *s, const evlog_iter *it)
{
    assert(!s->sealed);
    if (s->open && it) {
        evlog_iter_save(it, &s->resume);
        s->have_resume = true;
    }
    evseek_close(s);
    evseek_sort_new(s);
    s->generation++;
}

void
evseek_seal(evseek *s)
{
    if (s->sealed)
        return;
    evseek_close(s);
    evseek_sort_new(s);
    s->generation++;
    if (s->n_st && s->n_st < s->cap_st) {
        s->st = xreallocarray(s->st, s->n_st, sizeof *s->st);
        s->cap_st = s->n_st;
    }
    if (s->n_ck && s->n_ck < s->cap_ck) {
        s->ck = xreallocarray(s->ck, s->n_ck, sizeof *s->ck);
        s->cap_ck = s->n_ck;
    }
    s->sealed = true;
}

uint64_t
evseek_generation(const evseek *s)
{
    return s->generation;
}

size_t
evseek_n_stretches(const evseek *s)
{
    return s->n_st;
}

uint64_t
evseek_cap_last_ns(const evseek *s, uint16_t cap)
{
    uint64_t last = 0;
    for (size_t i = 0; i < s->n_st; i++)
        if (s->st[i].cap == cap && s->st[i].max_ns > last)
            last = s->st[i].max_ns;
    return last;
}

/* Hit order: time, then file offset. Offsets are unique, so this is the stable time
 * sort of file order that merge (and so `show`) produces. */
static inline bool
evseek_hit_less(const evseek_hit *a, const evseek_hit *b)
{
    if (a->time_ns != b->time_ns)
        return a->time_ns < b->time_ns;
    return a->offset < b->offset;
}

/* out[0..n) is a max-heap under evseek_hit_less, so its root is the hit to evict. */
static void
evseek_heap_down(evseek_hit *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        if (l < n && evseek_hit_less(&h[big], &h[l]))
            big = l;
        if (r < n && evseek_hit_less(&h[big], &h[r]))
            big = r;
        if (big == i)
            return;
        evseek_hit tmp = h[i];
        h[i] = h[big];
        h[big] = tmp;
        i = big;
    }
}

static void
evseek_heap_up(evseek_hit *h, size_t i)
{
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!evseek_hit_less(&h[parent], &h[i]))
            return;
        evseek_hit tmp = h[i];
        h[i] = h[parent];
        h[parent] = tmp;
        i = parent;
    }
}

/* The `max` earliest hits seen so far, and whether any was turned away; with `all`, the
 * first one turned away ends the query (its caller wants all or none). */
typedef struct evseek_top {
    evseek_hit *out;
    size_t max, n;
    bool more;
    bool all;
} evseek_top;

static void
evseek_top_offer(evseek_top *top, const evseek_hit *h)
{
    if (top->n < top->max) {
        top->out[top->n] = *h;
        evseek_heap_up(top->out, top->n++);
        return;
    }
    top->more = true;
    if (top->max > 0 && evseek_hit_less(h, &top->out[0])) {
        top->out[0] = *h;
        evseek_heap_down(top->out, top->n, 0);
    }
}

/* Exclusive upper time bound of the hits that still matter: once the range is known
 * to hold more than `max`, a hit later than the latest kept one cannot get in. */
static uint64_t
evseek_top_limit(const evseek_top *top, uint64_t t1)
{
    if (!top->more)
        return t1;
    if (top->max == 0 || top->all)
        return 0;
    uint64_t t = top->out[0].time_ns + 1;  /* out[0].time_ns < t1, so no overflow */
    return t < t1 ? t : t1;
}

/* Number of a stretch's checkpoints whose prefix max is < t0 (events before the last
 * of them are all earlier than t0; every event before their marks is). */
static size_t
evseek_skip_front(const evseek *s, const evseek_stretch *st, size_t n_ck, uint64_t t0)
{
    size_t lo = 0, hi = n_ck;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ck[st->first_ck + mid].prefix_max_ns < t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the first checkpoint whose suffix min is >= t (nothing from its mark on is
 * earlier than t), or n_ck. */
static size_t
evseek_cut_back(const evseek *s, const evseek_stretch *st, size_t n_ck, uint64_t t)
{
    size_t lo = 0, hi = n_ck;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ck[st->first_ck + mid].suffix_min_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Events a query decodes at a time. */
#define EVSEEK_SCAN_RUN 64

/* Read the strides of one stretch that can hold events of [t0, hi) and offer them. */
static void
evseek_scan_stretch(const evseek *s, const evlog *log, const evseek_stretch *st, uint64_t t0,
                    uint64_t t1, evseek_top *top)
{
    uint64_t hi = evseek_top_limit(top, t1);
    size_t n_ck = evseek_stretch_n_ck(st);
    size_t skip = evseek_skip_front(s, st, n_ck, t0);
    size_t cut = evseek_cut_back(s, st, n_ck, hi);
    uint64_t from = (uint64_t)skip * EVSEEK_STRIDE;
    uint64_t to = cut < n_ck ? (uint64_t)(cut + 1) * EVSEEK_STRIDE : st->n_events;
    if (to <= from)
        return;
    const evlog_iter_mark *mark = skip ? &s->ck[st->first_ck + skip - 1].mark : &st->start;
    if (mark->pos >= evlog_size(log))
        return;     /* the log ends before it; restoring would fall back to data start */
    evlog_iter it;
    evlog_iter_restore(&it, log, mark);
    /* Runs of events (the same ones evlog_iter_next gives, only their times and
     * offsets); a log that is shorter than recorded (truncated, replaced) just ends the
     * stretch. */
    evlog_stamp run[EVSEEK_SCAN_RUN];
    uint16_t cap;
    for (uint64_t i = from; i < to;) {
        uint64_t left = to - i;
        size_t n = evlog_iter_next_stamps(&it, run, left < EVSEEK_SCAN_RUN ? (size_t)left
                                                                           : EVSEEK_SCAN_RUN,
                                          UINT64_MAX, &cap);
        if (n == 0)
            return;
        i += n;
        for (size_t j = 0; j < n; j++) {
            if (run[j].time_ns < t0 || run[j].time_ns >= hi)
                continue;
            evseek_hit h = { run[j].time_ns, run[j].offset, cap };
            evseek_top_offer(top, &h);
            hi = evseek_top_limit(top, t1);
            if (hi <= t0)
                return;
        }
    }
}

/* Events of stretch st surely in [t0, t1) (it overlaps the range): those from the first
 * checkpoint whose suffix min is >= t0 (or from its start, if its min is) up to the last
 * checkpoint whose prefix max is < t1 (or to its end, if its max is): whole strides. */
static uint64_t
evseek_surely_in(const evseek *s, const evseek_stretch *st, uint64_t t0, uint64_t t1)
{
    if (st->min_ns >= t0 && st->max_ns < t1)
        return st->n_events;
    size_t n_ck = evseek_stretch_n_ck(st);
    uint64_t from = st->min_ns >= t0 ? 0 : (uint64_t)(evseek_cut_back(s, st, n_ck, t0) + 1)
                                                 * EVSEEK_STRIDE;
    size_t below = evseek_skip_front(s, st, n_ck, t1);  /* prefix max < t1 */
    uint64_t to = st->max_ns < t1 ? st->n_events : (uint64_t)below * EVSEEK_STRIDE;
    return to > from ? to - from : 0;
}

/* The first stretch that may hold events at or after t0: every one before it starts
 * more than the longest span before t0, so ends before t0. O(log stretches). */
static size_t
evseek_first_reaching(const evseek *s, uint64_t t0)
{
    uint64_t from = t0 > s->max_span_ns ? t0 - s->max_span_ns : 0;
    return s->n_st ? gallop_first_at_least(&s->st[0].min_ns, sizeof *s->st, s->n_st, from)
                   : 0;
}

bool
evseek_more_than(const evseek *s, uint64_t t0, uint64_t t1, size_t max)
{
    assert(!s->open && s->n_sorted == s->n_st);
    uint64_t n = 0;
    for (size_t i = evseek_first_reaching(s, t0); i < s->n_st && s->st[i].min_ns < t1; i++) {
        const evseek_stretch *st = &s->st[i];
        if (st->max_ns >= t0 && (n += evseek_surely_in(s, st, t0, t1)) > max)
            return true;
    }
    return false;
}

/* evseek_range over the stretches of capability `cap`, or of all if cap is
 * EVSEEK_ANY_CAP. */
#define EVSEEK_ANY_CAP UINT32_MAX

static size_t
evseek_range_of(const evseek *s, const evlog *log, uint32_t cap, uint64_t t0, uint64_t t1,
                evseek_hit *out, size_t max, bool *more, bool all)
{
    assert(!s->open && s->n_sorted == s->n_st);
    evseek_top top = { out, max, 0, false, all };
    for (size_t i = evseek_first_reaching(s, t0); i < s->n_st && t0 < t1; i++) {
        const evseek_stretch *st = &s->st[i];
        uint64_t hi = evseek_top_limit(&top, t1);
        if (hi <= t0 || st->min_ns >= hi)
            break;      /* stretches are sorted by min_ns: none later can hold a hit */
        if (st->max_ns < t0 || (cap != EVSEEK_ANY_CAP && st->cap != cap))
            continue;
        evseek_scan_stretch(s, log, st, t0, t1, &top);
    }
    /* Heap-sort the kept hits into ascending order. */
    for (size_t end = top.n; end > 1; end--) {
        evseek_hit tmp = out[0];
        out[0] = out[end - 1];
        out[end - 1] = tmp;
        evseek_heap_down(out, end - 1, 0);
    }
    if (more)
        *more = top.more;
    return top.n;
}

size_t
evseek_range(const evseek *s, const evlog *log, uint64_t t0, uint64_t t1, evseek_hit *out,
             size_t max, bool *more)
{
    return evseek_range_of(s, log, EVSEEK_ANY_CAP, t0, t1, out, max, more, false);
}

size_t
evseek_range_all(const evseek *s, const evlog *log, uint64_t t0, uint64_t t1,
                 evseek_hit *out, size_t max, bool *more)
{
    return evseek_range_of(s, log, EVSEEK_ANY_CAP, t0, t1, out, max, more, true);
}

size_t
evseek_range_cap(const evseek *s, const evlog *log, uint16_t cap, uint64_t t0, uint64_t t1,
                 evseek_hit *out, size_t max, bool *more)
{
    return evseek_range_of(s, log, cap, t0, t1, out, max, more, false);
}

size_t
evseek_bytes(const evseek *s)
{
    return sizeof *s + s->cap_st * sizeof *s->st + s->cap_ck * sizeof *s->ck;
}

static bool
evseek_fail(char *why, size_t why_len, const char *msg, size_t i)
{
    if (why && why_len)
        snprintf(why, why_len, "%s (stretch %zu)", msg, i);
    return false;
}

static int
evseek_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static bool
evseek_mark_equal(const evlog_iter_mark *a, const evlog_iter_mark *b)
{
    return a->pos == b->pos && a->block_end == b->block_end && a->block_cap == b->block_cap &&
           a->block_active == b->block_active && a->first_in_block == b->first_in_block;
}

bool
evseek_equal(const evseek *a, const evseek *b)
{
    if (a->n_st != b->n_st || a->n_ck != b->n_ck || a->open != b->open)
        return false;
    for (size_t i = 0; i < a->n_st; i++) {
        const evseek_stretch *x = &a->st[i], *y = &b->st[i];
        if (!evseek_mark_equal(&x->start, &y->start) || x->min_ns != y->min_ns ||
            x->max_ns != y->max_ns || x->n_events != y->n_events ||
            x->first_ck != y->first_ck || x->cap != y->cap)
            return false;
    }
    for (size_t i = 0; i < a->n_ck; i++) {
        const evseek_ck *x = &a->ck[i], *y = &b->ck[i];
        if (!evseek_mark_equal(&x->mark, &y->mark) || x->prefix_max_ns != y->prefix_max_ns ||
            x->suffix_min_ns != y->suffix_min_ns)
            return false;
    }
    return true;
}

bool
evseek_check(const evseek *s, char *why, size_t why_len)
{
    if (s->open)
        return evseek_fail(why, why_len, "not sealed", s->n_st - 1);
    size_t total_ck = 0;
    uint8_t *seen = xcalloc(s->n_ck ? s->n_ck : 1, 1);             /* freed below */
    uint64_t *pos = xcalloc(s->n_st ? s->n_st : 1, sizeof *pos);   /* freed below */
    bool ok = true;
    for (size_t i = 0; ok && i < s->n_st; i++) {
        const evseek_stretch *st = &s->st[i];
        pos[i] = st->start.pos;
        if (st->n_events == 0 || st->min_ns > st->max_ns) {
            ok = evseek_fail(why, why_len, "empty stretch or min > max", i);
            break;
        }
        if (i > 0 && i < s->n_sorted && evseek_stretch_cmp(&s->st[i - 1], st) >= 0) {
            ok = evseek_fail(why, why_len, "stretches not sorted by (min time, offset)", i);
            break;
        }
        if (i < s->n_sorted && st->max_ns - st->min_ns > s->max_span_ns) {
            ok = evseek_fail(why, why_len, "stretch longer than the longest span", i);
            break;
        }
        size_t n_ck = evseek_stretch_n_ck(st);
        if (st->first_ck > s->n_ck || n_ck > s->n_ck - st->first_ck) {
            ok = evseek_fail(why, why_len, "checkpoints out of bounds", i);
            break;
        }
        total_ck += n_ck;
        for (size_t j = 0; j < n_ck; j++) {
            const evseek_ck *c = &s->ck[st->first_ck + j];
            const evseek_ck *p = j ? c - 1 : NULL;
            if (seen[st->first_ck + j]++) {
                ok = evseek_fail(why, why_len, "checkpoint shared by two stretches", i);
                break;
            }
            if (c->mark.pos <= (p ? p->mark.pos : st->start.pos)) {
                ok = evseek_fail(why, why_len, "checkpoint positions not increasing", i);
                break;
            }
            if (c->prefix_max_ns < st->min_ns || c->prefix_max_ns > st->max_ns ||
                c->suffix_min_ns < st->min_ns || c->suffix_min_ns > st->max_ns) {
                ok = evseek_fail(why, why_len, "checkpoint times outside the stretch", i);
                break;
            }
            if (p && (c->prefix_max_ns < p->prefix_max_ns ||
                      c->suffix_min_ns < p->suffix_min_ns)) {
                ok = evseek_fail(why, why_len, "prefix max / suffix min not monotone", i);
                break;
            }
        }
    }
    if (ok && total_ck != s->n_ck)
        ok = evseek_fail(why, why_len, "checkpoints not covered by stretches", s->n_st);
    if (ok && s->n_st > 1) {
        qsort(pos, s->n_st, sizeof *pos, evseek_u64_cmp);
        for (size_t i = 1; ok && i < s->n_st; i++)
            if (pos[i] == pos[i - 1])
                ok = evseek_fail(why, why_len, "two stretches start at one offset", i);
    }
    x_free(seen);
    x_free(pos);
    return ok;
}
