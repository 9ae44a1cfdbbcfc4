/* merge: streaming stable time-order over a log's per-capability blocks. */
#include "merge.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* A pending event: time, then file offset (low 48 bits) and cap (high 16 bits).
 * Offsets are unique, so (time, offset) is a total order equal to a stable sort. */
typedef struct merge_entry {
    uint64_t time_ns;
    uint64_t off_cap;
} merge_entry;

#define MERGE_OFF_MASK ((UINT64_C(1) << 48) - 1)

typedef struct merge_segment {
    uint64_t start;             /* offset of the first event (a block marker, or data start) */
    uint64_t min_time;
    size_t n_events;
} merge_segment;

typedef struct merge_run {
    merge_entry head;           /* copy of e[next], the run's current key */
    merge_entry *e;             /* owned */
    size_t n, next;
} merge_run;

struct merge {
    const evlog *log;
    merge_segment *segs;        /* owned; file order, then sorted by (min_time, start) */
    size_t n_segs;
    size_t n_events;
    size_t next_seg;            /* next segment to load, in (min_time, start) order */
    merge_run *heap;            /* owned; min-heap of runs by head entry */
    size_t n_heap, cap_heap;
    size_t pending, peak_pending;
    bool top_ok;                /* the heap is ordered and `limit` is current */
    merge_entry limit;          /* the top run may emit while its head is below this */
};

static int
merge_entry_cmp(const void *a, const void *b)
{
    const merge_entry *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    uint64_t ox = x->off_cap & MERGE_OFF_MASK, oy = y->off_cap & MERGE_OFF_MASK;
    return ox < oy ? -1 : ox > oy;
}

static bool
merge_entry_less(const merge_entry *x, const merge_entry *y)
{
    return merge_entry_cmp(x, y) < 0;
}

/* Sort a nearly sorted run: insertion sort while the disorder stays small (GHC
 * swaps a few neighbours), qsort when it turns out not to be (hostile input). */
static void
merge_sort_run(merge_entry *e, size_t n)
{
    size_t budget = 8 * n + 64;
    for (size_t i = 1; i < n; i++) {
        merge_entry x = e[i];
        size_t j = i;
        while (j > 0 && merge_entry_less(&x, &e[j - 1])) {
            e[j] = e[j - 1];
            j--;
            if (--budget == 0) {
                e[j] = x;
                qsort(e, n, sizeof *e, merge_entry_cmp);
                return;
            }
        }
        e[j] = x;
    }
}

static int
merge_segment_cmp(const void *a, const void *b)
{
    const merge_segment *x = a, *y = b;
    if (x->min_time != y->min_time)
        return x->min_time < y->min_time ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Pass 1: cut the data into segments at every block marker. */
static void
merge_scan(merge *m, diag *ending)
{
    size_t cap = 16;
    m->segs = xreallocarray(NULL, cap, sizeof *m->segs);
    evlog_iter it;
    evlog_iter_init(&it, m->log);
    evlog_event ev;
    merge_segment *cur = NULL;
    while (evlog_iter_next(&it, &ev)) {
        if (!cur || ev.type == EV_BLOCK_MARKER) {
            if (m->n_segs == cap) {
                cap *= 2;
                m->segs = xreallocarray(m->segs, cap, sizeof *m->segs);
            }
            cur = &m->segs[m->n_segs++];
            cur->start = ev.offset;
            cur->min_time = UINT64_MAX;
            cur->n_events = 0;
        }
        cur->n_events++;
        if (ev.time_ns < cur->min_time)
            cur->min_time = ev.time_ns;
        m->n_events++;
    }
    evlog_iter_ending(&it, ending);
    qsort(m->segs, m->n_segs, sizeof *m->segs, merge_segment_cmp);
}

merge *
merge_new(const evlog *log, diag *ending)
{
    merge *m = xcalloc(1, sizeof *m);
    m->log = log;
    merge_scan(m, ending);
    return m;
}

static void
merge_heap_sift_down(merge *m, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, best = i;
        if (l < m->n_heap && merge_entry_less(&m->heap[l].head, &m->heap[best].head))
            best = l;
        if (r < m->n_heap && merge_entry_less(&m->heap[r].head, &m->heap[best].head))
            best = r;
        if (best == i)
            return;
        merge_run tmp = m->heap[i];
        m->heap[i] = m->heap[best];
        m->heap[best] = tmp;
        i = best;
    }
}

static void
merge_heap_push(merge *m, merge_run run)
{
    if (m->n_heap == m->cap_heap) {
        m->cap_heap = m->cap_heap ? 2 * m->cap_heap : 16;
        m->heap = xreallocarray(m->heap, m->cap_heap, sizeof *m->heap);
    }
    size_t i = m->n_heap++;
    m->heap[i] = run;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!merge_entry_less(&m->heap[i].head, &m->heap[parent].head))
            break;
        merge_run tmp = m->heap[i];
        m->heap[i] = m->heap[parent];
        m->heap[parent] = tmp;
        i = parent;
    }
}

/* Load the next segment as a sorted run. */
static void
merge_load_segment(merge *m)
{
    const merge_segment *s = &m->segs[m->next_seg++];
    merge_run run = { .e = xreallocarray(NULL, s->n_events ? s->n_events : 1,
                                         sizeof(merge_entry)) };
    evlog_event ev;
    evlog_iter it;
    evlog_iter_init_at(&it, m->log, s->start);
    bool sorted = true;
    while (run.n < s->n_events && evlog_iter_next(&it, &ev)) {
        merge_entry *e = &run.e[run.n++];
        e->time_ns = ev.time_ns;
        e->off_cap = ev.offset | ((uint64_t)ev.cap << 48);
        if (run.n > 1 && ev.time_ns < e[-1].time_ns)
            sorted = false;
    }
    if (!sorted)
        merge_sort_run(run.e, run.n);
    if (run.n == 0) {
        x_free(run.e);
        return;
    }
    run.head = run.e[0];
    m->top_ok = false;
    m->pending += run.n;
    if (m->pending > m->peak_pending)
        m->peak_pending = m->pending;
    merge_heap_push(m, run);
}

/* The top run has moved past its head: drop it if empty, else refresh its key, and
 * restore the heap order. */
static inline void
merge_top_advanced(merge *m)
{
    merge_run *top = &m->heap[0];
    if (top->next == top->n) {
        x_free(top->e);
        m->heap[0] = m->heap[--m->n_heap];
    } else {
        top->head = top->e[top->next];
    }
    if (m->n_heap > 0)
        merge_heap_sift_down(m, 0);
}

/* The smallest key anything other than the top run could produce: the heads of the
 * top's children and the first key of the next unloaded segment. */
static merge_entry
merge_limit(const merge *m)
{
    merge_entry lim = { UINT64_MAX, MERGE_OFF_MASK };
    for (size_t c = 1; c <= 2 && c < m->n_heap; c++) {
        if (merge_entry_less(&m->heap[c].head, &lim))
            lim = m->heap[c].head;
    }
    if (m->next_seg < m->n_segs) {
        merge_entry seg = { m->segs[m->next_seg].min_time, m->segs[m->next_seg].start };
        if (merge_entry_less(&seg, &lim))
            lim = seg;
    }
    return lim;
}

bool
merge_next(merge *m, evlog_event *ev)
{
    /* Fast path: keep emitting from the top run while it stays below everything else. */
    if (m->top_ok && m->n_heap > 0) {
        merge_run *top = &m->heap[0];
        if (top->next < top->n && merge_entry_less(&top->e[top->next], &m->limit)) {
            const merge_entry *head = &top->e[top->next++];
            m->pending--;
            return evlog_event_at(m->log, head->off_cap & MERGE_OFF_MASK,
                                  (uint16_t)(head->off_cap >> 48), ev);
        }
        merge_top_advanced(m);
        m->top_ok = false;
    }
    for (;;) {
        /* The head may go out once no unloaded segment can hold an earlier entry:
         * every event of an unloaded segment is at or after (min_time, start), and
         * the next segment to load has the smallest such pair. */
        if (m->n_heap > 0) {
            merge_run *top = &m->heap[0];
            const merge_entry *head = &top->head;
            const merge_segment *next = m->next_seg < m->n_segs ? &m->segs[m->next_seg] : NULL;
            if (!next || head->time_ns < next->min_time ||
                (head->time_ns == next->min_time &&
                 (head->off_cap & MERGE_OFF_MASK) < next->start)) {
                uint64_t off = head->off_cap & MERGE_OFF_MASK;
                uint16_t cap = (uint16_t)(head->off_cap >> 48);
                top->next++;
                merge_top_advanced(m);
                m->pending--;
                if (m->n_heap > 0) {
                    m->limit = merge_limit(m);
                    m->top_ok = true;
                }
                return evlog_event_at(m->log, off, cap, ev);
            }
        }
        if (m->next_seg == m->n_segs)
            return false;
        merge_load_segment(m);
    }
}

size_t
merge_n_events(const merge *m)
{
    return m->n_events;
}

size_t
merge_peak_pending(const merge *m)
{
    return m->peak_pending;
}

void
merge_free(merge *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_heap; i++)
        x_free(m->heap[i].e);
    x_free(m->heap);
    x_free(m->segs);
    x_free(m);
}
