/* merge: streaming stable time-order over a log's events in bounded memory — chunks
 * merged as sorted runs while their times allow, selection passes when they do not. */
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

/* Chunks: a new one starts at a block marker once the current one holds
 * MERGE_CHUNK_MIN events (so the chunk table stays small however tiny the blocks), and
 * after MERGE_CHUNK_MAX events whatever the blocks (so one chunk stays small however
 * big the block, or with none at all). */
#define MERGE_CHUNK_MIN 1024u
#define MERGE_CHUNK_MAX 65536u

/* A stretch of consecutive events in file order, resumable from its mark. */
typedef struct merge_chunk {
    evlog_iter_mark start;      /* iterator state before its first event */
    uint64_t end;               /* offset just after its last event */
    uint64_t min_time, max_time;
    uint32_t n_events;
} merge_chunk;

typedef struct merge_run {
    merge_entry head;           /* copy of e[next], the run's current key */
    merge_entry *e;             /* owned */
    size_t n, next;
    uint64_t from, to;          /* its chunk's bytes, released from memory when done */
} merge_run;

/* Pass 1 lets the pages it read go from resident memory every this many bytes: on a
 * file bigger than memory the mapping must not count as ours. */
#define MERGE_RELEASE_BYTES ((uint64_t)64 << 20)

struct merge {
    const evlog *log;
    uint64_t data_end;          /* where pass 1 stopped reading (a cut file: the cut) */
    merge_chunk *chunks;        /* owned; sorted by (min_time, start) */
    size_t n_chunks;
    size_t n_events;
    size_t max_pending;
    size_t next_chunk;          /* next chunk to load, in (min_time, start) order */
    merge_run *heap;            /* owned; min-heap of runs by head entry */
    size_t n_heap, cap_heap;
    size_t pending, peak_pending;
    bool top_ok;                /* the heap is ordered and `limit` is current */
    merge_entry limit;          /* the top run may emit while its head is below this */
    merge_entry last;           /* the last entry emitted (valid when n_out > 0) */
    size_t n_out;
    /* Selection mode (too many chunks overlap in time for max_pending): each pass over
     * the chunks keeps the max_pending smallest entries after `last`, sorted. */
    bool selecting;
    merge_entry *sel;           /* owned; max-heap while filling, then sorted */
    size_t n_sel, sel_next;
    bool sel_more;              /* the last pass saw more entries than it kept */
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
merge_chunk_cmp(const void *a, const void *b)
{
    const merge_chunk *x = a, *y = b;
    if (x->min_time != y->min_time)
        return x->min_time < y->min_time ? -1 : 1;
    return x->start.pos < y->start.pos ? -1 : x->start.pos > y->start.pos;
}

/* Pass 1: cut the data into chunks, reading no further than `end`. */
static void
merge_scan(merge *m, uint64_t end, diag *ending)
{
    size_t cap = 16;
    m->n_chunks = 0;
    m->n_events = 0;
    m->chunks = xreallocarray(m->chunks, cap, sizeof *m->chunks);
    evlog_iter it;
    evlog_iter_init(&it, m->log);
    evlog_iter_cut(&it, end);
    evlog_event ev;
    merge_chunk *cur = NULL;
    uint64_t released = it.pos;
    for (;;) {
        evlog_iter_mark before;
        evlog_iter_save(&it, &before);
        if (!evlog_iter_next(&it, &ev))
            break;
        if (it.pos - released >= MERGE_RELEASE_BYTES) {
            evlog_release(m->log, released, it.pos);
            released = it.pos;
        }
        if (!cur || cur->n_events == MERGE_CHUNK_MAX ||
            (ev.type == EV_BLOCK_MARKER && cur->n_events >= MERGE_CHUNK_MIN)) {
            if (m->n_chunks == cap) {
                cap *= 2;
                m->chunks = xreallocarray(m->chunks, cap, sizeof *m->chunks);
            }
            cur = &m->chunks[m->n_chunks++];
            cur->start = before;
            cur->min_time = UINT64_MAX;
            cur->max_time = 0;
            cur->n_events = 0;
        }
        cur->n_events++;
        cur->end = it.pos;
        if (ev.time_ns < cur->min_time)
            cur->min_time = ev.time_ns;
        if (ev.time_ns > cur->max_time)
            cur->max_time = ev.time_ns;
        m->n_events++;
    }
    evlog_iter_ending(&it, ending);
    evlog_release(m->log, released, it.pos);
    m->data_end = it.pos;
}

merge *
merge_new(const evlog *log, diag *ending)
{
    return merge_new_bounded(log, MERGE_DEFAULT_MAX_PENDING, ending);
}

merge *
merge_new_bounded(const evlog *log, size_t max_pending, diag *ending)
{
    merge *m = xcalloc(1, sizeof *m);
    m->log = log;
    m->max_pending = max_pending ? max_pending : 1;
    merge_scan(m, UINT64_MAX, ending);
    /* Cut while we read it: what pass 1 took from the lost bytes (zeros, then the end
     * marker) is not the file's. Read again up to the cut, as if cut beforehand. */
    uint64_t cut, read_to = UINT64_MAX;
    while (evlog_changed(log, &cut) && cut < read_to && cut < m->data_end) {
        merge_scan(m, cut, ending);
        read_to = cut;
    }
    qsort(m->chunks, m->n_chunks, sizeof *m->chunks, merge_chunk_cmp);
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

static void
merge_note_pending(merge *m, size_t n)
{
    m->pending = n;
    if (n > m->peak_pending)
        m->peak_pending = n;
}

/* Load the next chunk as a sorted run. */
static void
merge_load_chunk(merge *m)
{
    const merge_chunk *c = &m->chunks[m->next_chunk++];
    merge_run run = { .e = xreallocarray(NULL, c->n_events ? c->n_events : 1,
                                         sizeof(merge_entry)),      /* owned by the run */
                      .from = c->start.pos, .to = c->end };
    evlog_event ev;
    evlog_iter it;
    evlog_iter_restore(&it, m->log, &c->start);
    evlog_iter_cut(&it, m->data_end);
    bool sorted = true;
    while (run.n < c->n_events && evlog_iter_next(&it, &ev)) {
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
    merge_note_pending(m, m->pending + run.n);
    merge_heap_push(m, run);
}

/* The top run has moved past its head: drop it if empty, else refresh its key, and
 * restore the heap order. */
static inline void
merge_top_advanced(merge *m)
{
    merge_run *top = &m->heap[0];
    if (top->next == top->n) {
        /* Every event of its chunk went out (and was read there): its pages can go. */
        evlog_release(m->log, top->from, top->to);
        x_free(top->e);
        m->heap[0] = m->heap[--m->n_heap];
    } else {
        top->head = top->e[top->next];
    }
    if (m->n_heap > 0)
        merge_heap_sift_down(m, 0);
}

/* The smallest key anything other than the top run could produce: the heads of the
 * top's children and the first key of the next unloaded chunk. */
static merge_entry
merge_limit(const merge *m)
{
    merge_entry lim = { UINT64_MAX, MERGE_OFF_MASK };
    for (size_t c = 1; c <= 2 && c < m->n_heap; c++) {
        if (merge_entry_less(&m->heap[c].head, &lim))
            lim = m->heap[c].head;
    }
    if (m->next_chunk < m->n_chunks) {
        const merge_chunk *c = &m->chunks[m->next_chunk];
        merge_entry first = { c->min_time, c->start.pos };
        if (merge_entry_less(&first, &lim))
            lim = first;
    }
    return lim;
}

/* --- selection mode ---------------------------------------------------------------------
 * Entered when loading the next chunk would hold more than max_pending entries: the
 * chunks overlap in time too much to merge (hostile or scrambled timestamps). Each pass
 * reads every chunk that can still hold entries after the last one emitted and keeps the
 * max_pending smallest of them in a max-heap; they are then sorted and emitted. Memory
 * stays max_pending entries; time is one read of the file per max_pending events. */

static void
merge_sel_sift_down(merge_entry *h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, big = i;
        if (l < n && merge_entry_less(&h[big], &h[l]))
            big = l;
        if (r < n && merge_entry_less(&h[big], &h[r]))
            big = r;
        if (big == i)
            return;
        merge_entry tmp = h[i];
        h[i] = h[big];
        h[big] = tmp;
        i = big;
    }
}

static void
merge_sel_offer(merge *m, const merge_entry *e)
{
    merge_entry *h = m->sel;
    if (m->n_sel < m->max_pending) {
        size_t i = m->n_sel++;
        h[i] = *e;
        while (i > 0 && merge_entry_less(&h[(i - 1) / 2], &h[i])) {
            merge_entry tmp = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = tmp;
            i = (i - 1) / 2;
        }
        return;
    }
    m->sel_more = true;
    if (merge_entry_less(e, &h[0])) {
        h[0] = *e;
        merge_sel_sift_down(h, m->n_sel, 0);
    }
}

/* One selection pass: the smallest entries after m->last (all, if nothing went out yet). */
static void
merge_sel_fill(merge *m)
{
    m->n_sel = 0;
    m->sel_next = 0;
    m->sel_more = false;
    bool after = m->n_out > 0;
    /* The last batch's events were read where they lie, all over the file. */
    evlog_release(m->log, 0, m->data_end);
    for (size_t i = 0; i < m->n_chunks; i++) {
        const merge_chunk *c = &m->chunks[i];
        if (after && c->max_time < m->last.time_ns)
            continue;
        evlog_iter it;
        evlog_iter_restore(&it, m->log, &c->start);
        evlog_iter_cut(&it, m->data_end);
        evlog_event ev;
        for (uint32_t k = 0; k < c->n_events && evlog_iter_next(&it, &ev); k++) {
            merge_entry e = { ev.time_ns, ev.offset | ((uint64_t)ev.cap << 48) };
            if (!after || merge_entry_less(&m->last, &e))
                merge_sel_offer(m, &e);
        }
        evlog_release(m->log, c->start.pos, c->end);
    }
    qsort(m->sel, m->n_sel, sizeof *m->sel, merge_entry_cmp);
    merge_note_pending(m, m->n_sel);
}

static void
merge_enter_selection(merge *m)
{
    for (size_t i = 0; i < m->n_heap; i++)
        x_free(m->heap[i].e);
    m->n_heap = 0;
    m->pending = 0;
    m->selecting = true;
    m->sel = xreallocarray(NULL, m->max_pending, sizeof *m->sel);   /* owned by m */
    merge_sel_fill(m);
}

static bool
merge_next_selected(merge *m, evlog_event *ev)
{
    if (m->sel_next == m->n_sel) {
        if (!m->sel_more)
            return false;
        merge_sel_fill(m);
        if (m->n_sel == 0)
            return false;
    }
    merge_entry e = m->sel[m->sel_next++];
    m->pending--;
    m->last = e;
    m->n_out++;
    return evlog_event_at(m->log, e.off_cap & MERGE_OFF_MASK, (uint16_t)(e.off_cap >> 48), ev);
}

/* --- the merge ------------------------------------------------------------------------- */

static bool
merge_emit(merge *m, uint64_t off_cap, evlog_event *ev)
{
    m->pending--;
    m->n_out++;
    return evlog_event_at(m->log, off_cap & MERGE_OFF_MASK, (uint16_t)(off_cap >> 48), ev);
}

bool
merge_next(merge *m, evlog_event *ev)
{
    if (m->selecting)
        return merge_next_selected(m, ev);
    /* Fast path: keep emitting from the top run while it stays below everything else. */
    if (m->top_ok && m->n_heap > 0) {
        merge_run *top = &m->heap[0];
        if (top->next < top->n && merge_entry_less(&top->e[top->next], &m->limit)) {
            m->last = top->e[top->next++];
            return merge_emit(m, m->last.off_cap, ev);
        }
        merge_top_advanced(m);
        m->top_ok = false;
    }
    for (;;) {
        /* The head may go out once no unloaded chunk can hold an earlier entry: every
         * event of an unloaded chunk is at or after (min_time, start), and the next
         * chunk to load has the smallest such pair. */
        if (m->n_heap > 0) {
            merge_run *top = &m->heap[0];
            const merge_entry *head = &top->head;
            const merge_chunk *next =
                m->next_chunk < m->n_chunks ? &m->chunks[m->next_chunk] : NULL;
            if (!next || head->time_ns < next->min_time ||
                (head->time_ns == next->min_time &&
                 (head->off_cap & MERGE_OFF_MASK) < next->start.pos)) {
                m->last = *head;
                top->next++;
                merge_top_advanced(m);
                if (m->n_heap > 0) {
                    m->limit = merge_limit(m);
                    m->top_ok = true;
                }
                return merge_emit(m, m->last.off_cap, ev);
            }
        }
        if (m->next_chunk == m->n_chunks)
            return false;
        if (m->pending + m->chunks[m->next_chunk].n_events > m->max_pending) {
            merge_enter_selection(m);
            return merge_next_selected(m, ev);
        }
        merge_load_chunk(m);
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

bool
merge_selected(const merge *m)
{
    return m->selecting;
}

void
merge_free(merge *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_heap; i++)
        x_free(m->heap[i].e);
    x_free(m->heap);
    x_free(m->sel);
    x_free(m->chunks);
    x_free(m);
}
