/* evindex_join: turn the capabilities' GC_START .. GC_END spans into collections.
 * Spans of different capabilities that overlap in time are one collection; the one
 * whose capability posted the GC_STATS is the leader and gives the pause; the
 * request before it, the capabilities' runs at that moment and the heap series
 * give the sync time, the slowest capability and the heap after. For a growing
 * index the collections are a final prefix and a tail joined again at each step. The
 * join reads its inputs in time order through cursors (the lanes' spans merged, each
 * lane's GC phases, runs and the heap series swept), and the last join gives the spans
 * back and packs the refs as it passes them. It is made of two halves that meet only at
 * a queue of finished collections: one makes them, the other stores them (the GC
 * phases' refs, the censuses, the heap figures, the packed store, the spans given
 * back); a final join of many spans runs the first on a thread of its own. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "evindex_int.h"
#include "xalloc.h"

typedef struct span_ref {
    uint64_t start_ns, end_ns;
    uint32_t lane, idx;
} span_ref;

static int
span_ref_cmp(const void *a, const void *b)
{
    const span_ref *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->lane < y->lane ? -1 : x->lane > y->lane;
}

/* The tail's spans in span_ref_cmp order, one at a time: a merge of the lanes' own
 * lists (each in start order, as their capabilities wrote them), or all of them sorted
 * when some lane's are not (a log out of order). */
typedef struct join_spans {
    const evindex *ix;
    size_t *at;                 /* owned; each lane's next span (the merge) */
    /* The merge's lanes that have spans left, a binary min-heap by (their next span's
     * start, lane): the order a scan of every lane for the earliest start gives (ties
     * to the lower lane), in O(log lanes) a span where the scan took O(lanes). */
    struct join_spans_head {
        uint64_t start_ns;
        size_t lane;
    } *heap;                    /* owned (with at) */
    size_t n_heap;
    span_ref *sorted;           /* owned; the fallback, sorted */
    size_t n_sorted, i;
} join_spans;

static bool
join_spans_before(const struct join_spans_head *x, const struct join_spans_head *y)
{
    return x->start_ns < y->start_ns || (x->start_ns == y->start_ns && x->lane < y->lane);
}

/* Put h at heap slot k and move it down to its place among its children. */
static void
join_spans_sift_down(join_spans *js, size_t k, struct join_spans_head h)
{
    struct join_spans_head *v = js->heap;
    size_t n = js->n_heap;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= n)
            break;
        if (c + 1 < n && join_spans_before(&v[c + 1], &v[c]))
            c++;
        if (!join_spans_before(&v[c], &h))
            break;
        v[k] = v[c];
        k = c;
    }
    v[k] = h;
}

static void
join_spans_init(join_spans *js, const evindex *ix, size_t n_spans)
{
    *js = (join_spans){ .ix = ix };
    bool in_order = true;
    for (size_t li = 0; li < ix->n_lanes && in_order; li++) {
        const evindex_lane *lane = &ix->lanes[li];
        for (size_t i = lane->span_from + 1; i < lane->n_spans_closed && in_order; i++)
            in_order = evindex_span_start(lane, i - 1) <= evindex_span_start(lane, i);
    }
    if (in_order) {
        js->at = xmalloc((ix->n_lanes + 1) * sizeof *js->at);      /* freed: _free */
        js->heap = xmalloc((ix->n_lanes + 1) * sizeof *js->heap);  /* freed: _free */
        for (size_t li = 0; li < ix->n_lanes; li++) {
            const evindex_lane *lane = &ix->lanes[li];
            js->at[li] = lane->span_from;
            if (lane->span_from < lane->n_spans_closed)
                js->heap[js->n_heap++] =
                    (struct join_spans_head){ evindex_span_start(lane, lane->span_from), li };
        }
        for (size_t k = js->n_heap / 2; k-- > 0;)
            join_spans_sift_down(js, k, js->heap[k]);
        return;
    }
    js->sorted = xmalloc((n_spans + 1) * sizeof *js->sorted);       /* freed: _free */
    for (size_t li = 0; li < ix->n_lanes; li++)
        for (size_t i = ix->lanes[li].span_from; i < ix->lanes[li].n_spans_closed; i++) {
            const evindex_lane *lane = &ix->lanes[li];
            js->sorted[js->n_sorted++] =
                (span_ref){ evindex_span_start(lane, i), evindex_span_end(lane, i),
                            (uint32_t)li, (uint32_t)i };
        }
    qsort(js->sorted, js->n_sorted, sizeof *js->sorted, span_ref_cmp);
}

/* The next span into *out; false when there are no more. */
static bool
join_spans_next(join_spans *js, span_ref *out)
{
    if (!js->at) {
        if (js->i == js->n_sorted)
            return false;
        *out = js->sorted[js->i++];
        return true;
    }
    if (js->n_heap == 0)
        return false;
    size_t best = js->heap[0].lane;
    size_t i = js->at[best]++;
    const evindex_lane *bl = &js->ix->lanes[best];
    *out = (span_ref){ evindex_span_start(bl, i), evindex_span_end(bl, i), (uint32_t)best,
                       (uint32_t)i };
    /* The lane's next span takes its place, or the heap's last entry when it has none. */
    if (i + 1 < bl->n_spans_closed)
        join_spans_sift_down(js, 0,
                             (struct join_spans_head){ evindex_span_start(bl, i + 1), best });
    else
        join_spans_sift_down(js, 0, js->heap[--js->n_heap]);
    return true;
}

static void
join_spans_free(join_spans *js)
{
    x_free(js->at);
    x_free(js->heap);
    x_free(js->sorted);
}

int
evindex_gcmark_cmp(const void *a, const void *b)
{
    const evindex_gcmark *x = a, *y = b;
    uint64_t tx = evindex_gcmark_time(x), ty = evindex_gcmark_time(y);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    if (x->cap != y->cap)
        return x->cap < y->cap ? -1 : 1;
    return x->what < y->what ? -1 : x->what > y->what;
}

/* A record's sort key: its start, then its position before sorting. */
typedef struct gc_order {
    uint64_t start_ns;
    uint32_t idx;
} gc_order;

static int
order_cmp(const void *a, const void *b)
{
    const gc_order *x = a, *y = b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Index of the first mark with time > t. */
static size_t
marks_upper(const evindex_gcmark *m, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (evindex_gcmark_time(&m[mid]) <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* When the capability stopped mutating for a GC requested at q: the end of its last
 * run before its own GC_START, if that run was still going at q; else q (it was idle,
 * or already stopped). */
static uint64_t
part_stop(runlane_sweep *runs, uint64_t q, uint64_t gc_start)
{
    uint64_t end_ns = 0;
    if (runlane_sweep_last_starting_by(runs, gc_start, &end_ns) == SIZE_MAX)
        return q;
    if (end_ns <= q)
        return q;
    return end_ns < gc_start ? end_ns : gc_start;
}

/* The value a series holds at the first sample in [from, before), or NO_TIME. */
static uint64_t
series_first_in(const series *s, series_sweep *sw, uint64_t from, uint64_t before)
{
    series_sample smp;
    if (series_sweep_lower_bound(sw, from, &smp) >= series_count(s))
        return EVINDEX_NO_TIME;
    return smp.time_ns < before ? smp.value : EVINDEX_NO_TIME;
}

static void
join_fill_stats(evindex_gc *g, const evindex_stats *st, unsigned n_gens)
{
    g->gen = st->gen;
    g->copied = st->copied;
    g->slop = st->slop;
    g->frag = st->frag;
    g->par_threads = st->par_threads;
    g->par_max_copied = st->par_max;
    g->par_tot_copied = st->par_tot;
    g->par_balanced = st->par_bal;
    if (st->has_bal)
        g->flags |= EVINDEX_GC_F_HAS_BALANCE;
    if (n_gens && st->gen == n_gens - 1)
        g->flags |= EVINDEX_GC_F_MAJOR;
}

int
evindex_census_cmp(const void *a, const void *b)
{
    const evindex_census_win *x = a, *y = b;
    if (x->begin_ns != y->begin_ns)
        return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->end_ns != y->end_ns)
        return x->end_ns < y->end_ns ? -1 : 1;
    return (int)x->bio - (int)y->bio;
}

/* The heap censuses the leader ran inside collection g's pause: each census whose
 * BEGIN lies in the pause runs from the leader's last GC phase change before it (the
 * RTS traverses the heap after GC_DONE and posts BEGIN only to write the samples out)
 * to its END. Sets g->census_ns and takes it out of the leader part's wait (or work,
 * for logs with no GC sub-phase events). `wins` is sorted by begin_ns. */
static void
join_census(evindex_gc *g, evindex_gc_part *lead_part, const ivtrack *lead_gc,
            const evindex_census_win *wins, size_t n_wins)
{
    size_t lo = 0, hi = n_wins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (wins[mid].begin_ns < g->start_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < n_wins && wins[i].begin_ns <= g->end_ns; i++) {
        uint64_t from = g->start_ns, to = wins[i].end_ns < g->end_ns ? wins[i].end_ns
                                                                     : g->end_ns;
        uint8_t kind = EVINDEX_GC_WAIT;
        size_t j = lead_gc ? ivtrack_last_starting_by(lead_gc, wins[i].begin_ns) : SIZE_MAX;
        if (j != SIZE_MAX) {
            ivtrack_iv iv_buf;
            const ivtrack_iv *iv = ivtrack_get(lead_gc, j, &iv_buf);
            if (iv->start_ns > from)
                from = iv->start_ns;
            kind = iv->kind;
        }
        if (to <= from)
            continue;
        uint64_t d = to - from;
        uint64_t *part = !lead_part ? NULL
                         : kind == EVINDEX_GC_WORK ? &lead_part->work_ns : &lead_part->wait_ns;
        if (part)
            d = d < *part ? d : *part;
        g->census_ns += d;
        if (wins[i].bio)
            g->flags |= EVINDEX_GC_F_BIO_CENSUS;
        if (part)
            *part -= d;
    }
}


void
evindex_join_free(evindex_join *j)
{
    x_free(j->clus);
    x_free(j->stats_only);
    j->clus = NULL;
    j->stats_only = NULL;
}

/* Undo the final collections from the one before `late_ns` on (an input came that
 * could change it or those after it). */
static void
join_rollback(evindex *ix, evindex_join *j, uint64_t late_ns)
{
    size_t lo = 0, hi = j->n_final;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (j->clus[mid] < late_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t r = lo ? lo - 1 : 0;
    evindex_gc g;
    j->n_rollbacks++;
    j->parts_final = gcpack_gc(ix->gcs, r, &g)->first_part;
    j->from_ns = r ? j->clus[r] : 0;
    j->n_final = r;
    j->prev_end = 0;
    for (size_t i = r; i-- > 0;)
        if (!(gcpack_gc(ix->gcs, i, &g)->flags & EVINDEX_GC_F_NO_START)) {
            j->prev_end = g.end_ns;
            break;
        }
}

/* Set the refs of the GC phases inside spans [from, to) of a lane to `ref`; *at goes
 * along (the spans mostly come in increasing time). */
static void
join_set_refs(evindex_lane *lane, size_t from, size_t to, uint32_t ref, ivtrack_span_cur *at)
{
    for (size_t k = from; k < to; k++) {
        ivtrack_set_refs_span(lane->gc, at, evindex_span_start(lane, k), evindex_span_end(lane, k),
                              ref);
    }
}

/* Spans a final join gives back at once (about 6 pages): a madvise every few hundred
 * collections. */
#define JOIN_RELEASE_SPANS 512

/* A final join's spans are read once, in the merge's order: the pages of those every
 * lane's collections are stored past (spans_reffed: the merge hands a lane's spans out
 * in order, so the count of them stored) go back to the system as it goes, so that the
 * spans are not held whole beside the collections they become; and the refs of the GC
 * phases before the last span's (final: the spans come in order) are packed as they
 * will be in the end, so that they are not held plainly either. done[li]: each lane's
 * spans given back so far. */
static void
join_spans_release(evindex *ix, size_t *done, const ivtrack_span_cur *at)
{
    for (size_t li = 0; li < ix->n_lanes; li++) {
        size_t upto = ix->lanes[li].spans_reffed;
        if (upto - done[li] < JOIN_RELEASE_SPANS)
            continue;
        x_release(ix->lanes[li].spans, done[li] * sizeof *ix->lanes[li].spans,
                  upto * sizeof *ix->lanes[li].spans);
        done[li] = upto;
        if (at[li].at0 != SIZE_MAX)
            ivtrack_pack_refs_before(ix->lanes[li].gc, at[li].at0);
    }
}

/* A collection made, on its way to the store: its record (all but its census and what
 * the heap series say) and, for a cluster of spans, its parts and their spans (the
 * next n_parts of its batch's). */
typedef struct join_item {
    evindex_gc g;
    uint64_t before;            /* a cluster's: the next cluster's start (UINT64_MAX: none) */
    uint32_t n_parts;
    uint32_t lead;              /* the leader's part among them, or UINT32_MAX */
} join_item;

/* Collections go to the store this many at a time; with the halves on two threads, at
 * most JOIN_PIPE_BATCHES of them (6 to 20 KB each, room included) are made and not
 * stored. Each batch held is memory at the build's peak (the join's end), but with two
 * the halves waited for each other at nearly every batch (a sleep and a wake-up each
 * time: the non-moving 150 MB join took 74-80 ms of wall time for 44-51 of CPU); with
 * eight, one half runs ahead while the other catches up (43 ms), for at most 160 KB. */
#define JOIN_BATCH_ITEMS 32
#define JOIN_PIPE_BATCHES 8
/* A final join of fewer spans runs on one thread: a second costs more than it saves. */
#define JOIN_PIPE_MIN_SPANS 256

typedef struct join_batch {
    join_item items[JOIN_BATCH_ITEMS];
    size_t n_items;
    evindex_gc_part *parts;     /* owned */
    span_ref *spans;            /* owned; parts[i] is spans[i]'s */
    size_t n_parts, cap_parts, cap_spans;
    struct join_batch *next;    /* in the pipe's lists */
} join_batch;

/* A batch with room for n_parts parts to begin with. */
static join_batch *
join_batch_new(size_t n_parts)
{
    join_batch *bt = xmalloc(sizeof *bt);       /* caller frees: join_batch_free */
    bt->n_items = bt->n_parts = 0;
    bt->cap_parts = bt->cap_spans = n_parts;
    bt->parts = n_parts ? xmalloc(n_parts * sizeof *bt->parts) : NULL;
    bt->spans = n_parts ? xmalloc(n_parts * sizeof *bt->spans) : NULL;
    bt->next = NULL;
    return bt;
}

static void
join_batch_free(join_batch *bt)
{
    if (!bt)
        return;
    x_free(bt->parts);
    x_free(bt->spans);
    x_free(bt);
}

/* The store's half: what it writes (the GC tracks' refs, the lanes' spans_reffed, the
 * packed collections, the spans' pages) the making half does not read while both run.
 * It also reads the heap series for each collection (the heap after it, the bytes
 * allocated since the one before). */
typedef struct join_store {
    evindex *ix;
    const evindex_census_win *census;
    size_t n_census;
    const series *alloc;        /* the summed HEAP_ALLOCATED */
    const series *heap, *live;  /* HEAP_SIZE, HEAP_LIVE */
    series_sweep *alloc_sw;     /* owned; over alloc at the collections' ends */
    series_sweep *heap_sw, *live_sw;    /* owned; over heap and live at their starts */
    uint64_t prev_alloc;        /* alloc's value at the end of the last collection stored */
    uint32_t gi;                /* the next collection's index */
    ivtrack_span_cur *hints;    /* owned; per lane, where its GC phases were last reffed */
    size_t *released;           /* owned; per lane, spans given back (NULL: none are) */
} join_store;

/* Store a batch's collections in order, and empty it. */
static void
join_store_batch(join_store *st, join_batch *bt)
{
    evindex *ix = st->ix;
    size_t p = 0;
    for (size_t k = 0; k < bt->n_items; k++) {
        join_item *it = &bt->items[k];
        evindex_gc *g = &it->g;
        evindex_gc_part *parts = bt->parts + p;
        const span_ref *spans = bt->spans + p;
        p += it->n_parts;
        /* Unknown until a HEAP_ALLOCATED came at or before its end: whether one comes
         * later does not change it (a growing index makes it final before). */
        series_sample smp;
        if (series_count(st->alloc) &&
            series_sweep_at(st->alloc_sw, g->end_ns, &smp) != SIZE_MAX) {
            g->allocated_before = smp.value - st->prev_alloc;
            st->prev_alloc = smp.value;
        }
        if (it->n_parts) {      /* a cluster (a GC_STATS-only collection has none) */
            g->heap_after = series_first_in(st->heap, st->heap_sw, g->start_ns, it->before);
            if (g->flags & EVINDEX_GC_F_MAJOR)
                g->live_after = series_first_in(st->live, st->live_sw, g->start_ns, it->before);
        }
        /* Point each capability's GC phases inside its span at the collection. */
        for (uint32_t i = 0; i < it->n_parts; i++) {
            evindex_lane *lane = &ix->lanes[spans[i].lane];
            join_set_refs(lane, spans[i].idx, spans[i].idx + 1, st->gi,
                          &st->hints[spans[i].lane]);
            if (spans[i].idx + 1 > lane->spans_reffed)
                lane->spans_reffed = spans[i].idx + 1;
        }
        if (it->lead != UINT32_MAX)
            join_census(g, &parts[it->lead], ix->lanes[spans[it->lead].lane].gc, st->census,
                        st->n_census);
        gcpack_append_gc(ix->gcs, g);
        for (uint32_t i = 0; i < it->n_parts; i++)  /* a part goes in after its collection */
            gcpack_append_part(ix->gcs, &parts[i]);
        st->gi++;
        if (st->released && it->n_parts)
            join_spans_release(ix, st->released, st->hints);
    }
    bt->n_items = bt->n_parts = 0;
}

/* The queue between the halves when they run on two threads (the making half on a
 * thread of its own, so that what the store allocates — the packed collections, the
 * GC tracks' packed refs — comes from the building thread's heap, as the one-thread
 * join's does): full batches go to the store in order, stored ones come back to be
 * filled again. */
typedef struct join_pipe {
    pthread_mutex_t mu;
    pthread_cond_t cv;          /* a batch full or stored, or done */
    join_batch *full, **full_tail;
    join_batch *spare;
    bool done;                  /* no more batches come */
} join_pipe;

/* Store the batches as they come until the making half is done. */
static void
join_pipe_store(join_pipe *pp, join_store *st)
{
    pthread_mutex_lock(&pp->mu);
    for (;;) {
        while (!pp->full && !pp->done)
            pthread_cond_wait(&pp->cv, &pp->mu);
        join_batch *bt = pp->full;
        if (!bt)
            break;
        pp->full = bt->next;
        if (!pp->full)
            pp->full_tail = &pp->full;
        pthread_mutex_unlock(&pp->mu);
        join_store_batch(st, bt);
        pthread_mutex_lock(&pp->mu);
        bt->next = pp->spare;
        pp->spare = bt;
        pthread_cond_broadcast(&pp->cv);
    }
    pthread_mutex_unlock(&pp->mu);
}

/* Hand a full batch to the store (the last one if `last`); the batch to fill next
 * (NULL after the last). */
static join_batch *
join_pipe_pass(join_pipe *pp, join_batch *bt, bool last)
{
    join_batch *next = NULL;
    pthread_mutex_lock(&pp->mu);
    bt->next = NULL;
    *pp->full_tail = bt;
    pp->full_tail = &bt->next;
    if (last)
        pp->done = true;
    pthread_cond_broadcast(&pp->cv);
    if (!last) {
        while (!pp->spare)
            pthread_cond_wait(&pp->cv, &pp->mu);
        next = pp->spare;
        pp->spare = next->next;
    }
    pthread_mutex_unlock(&pp->mu);
    return next;
}

/* Every batch is back once join_pipe_store returned: freed. */
static void
join_pipe_free(join_pipe *pp)
{
    while (pp->spare) {
        join_batch *bt = pp->spare;
        pp->spare = bt->next;
        join_batch_free(bt);
    }
    pthread_cond_destroy(&pp->cv);
    pthread_mutex_destroy(&pp->mu);
}

/* Where the tail's collections go, in start order, as they are made: in batches to
 * the store (on the other thread, or here as each batch fills), the join holding none
 * of them. */
typedef struct join_out {
    evindex_join *j;
    bool have_prev;
    uint64_t prev_end;          /* the last collection's end */
    size_t n;                   /* collections put */
    size_t n_parts;             /* their parts (and the final ones') */
    join_batch *bt;             /* owned; the batch being filled */
    join_store *st;             /* the store, when here */
    join_pipe *pipe;            /* the queue to it, or NULL: store here */
} join_out;

/* The batch being filled is full: to the store. */
static void
join_out_flush(join_out *o)
{
    if (o->pipe)
        o->bt = join_pipe_pass(o->pipe, o->bt, false);
    else
        join_store_batch(o->st, o->bt);
}

/* Nothing more is put: the last batch to the store (here: stored when this returns). */
static void
join_out_end(join_out *o)
{
    if (o->pipe) {
        join_pipe_pass(o->pipe, o->bt, true);
    } else {
        join_store_batch(o->st, o->bt);
        join_batch_free(o->bt);
    }
    o->bt = NULL;
}

/* Room for a cluster's n parts (and their spans) in the batch being filled, for the
 * join_out_put that follows. */
static evindex_gc_part *
join_out_parts(join_out *o, size_t n, span_ref **spans)
{
    join_batch *bt = o->bt;
    xgrowarray((void **)&bt->parts, &bt->cap_parts, bt->n_parts + n, 64, sizeof *bt->parts);
    xgrowarray((void **)&bt->spans, &bt->cap_spans, bt->n_parts + n, 64, sizeof *bt->spans);
    *spans = bt->spans + bt->n_parts;
    return bt->parts + bt->n_parts;
}

/* Put g with the n_parts parts join_out_parts gave room for (lead: the leader's among
 * them, or UINT32_MAX); clus: its cluster's start; before: the next cluster's. */
static void
join_out_put(join_out *o, const evindex_gc *g, uint64_t clus, uint64_t before,
             uint32_t n_parts, uint32_t lead)
{
    o->j->clus[o->n++] = clus;
    o->have_prev = true;
    o->prev_end = g->end_ns;
    o->n_parts += n_parts;
    join_batch *bt = o->bt;
    bt->items[bt->n_items++] = (join_item){ *g, before, n_parts, lead };
    bt->n_parts += n_parts;
    if (bt->n_items == JOIN_BATCH_ITEMS)
        join_out_flush(o);
}

/* A GC_STATS-only collection, dropped if it falls inside the pause before it
 * (malformed input) so that pauses stay disjoint. It has no parts: first_part is where
 * the next collection's begin. */
static void
join_out_stats_only(join_out *o, evindex_gc *g)
{
    if (o->have_prev && o->prev_end > g->start_ns)
        return;
    g->first_part = (uint32_t)o->n_parts;
    join_out_put(o, g, g->start_ns, UINT64_MAX, 0, UINT32_MAX);
}

/* The making half's state: its inputs, and what the tail's clusters say about what is
 * final (prev_end_final, first_open: in and out). */
typedef struct join_make {
    const evindex *ix;
    const evindex_statsv *stats;
    const evindex_gcmark *marks;
    size_t n_marks;
    uint64_t horizon_ns;
    bool final;
    join_spans *js;             /* the tail's spans, none taken yet */
    evindex_gc *so;             /* the GC_STATS-only collections, */
    const gc_order *so_order;   /* in this order */
    size_t n_so;
    runlane_sweep **sweeps;     /* per lane, over its runs */
    join_out *out;
    uint64_t prev_end;          /* the last collection with spans' end */
    uint64_t prev_end_final;    /* the same, of the last collection final */
    uint64_t first_open;        /* start of the first cluster not final, or UINT64_MAX */
    uint64_t cpu_ns, wall_ns;   /* on a thread of its own: that thread's */
} join_make;

/* Make the tail's collections, in start order, into jm->out (and end it). */
static void
join_make_run(join_make *jm)
{
    const evindex *ix = jm->ix;
    uint64_t prev_end = jm->prev_end;
    size_t next_so = 0;
    span_ref *spans = NULL;     /* one cluster's; freed below */
    size_t cap_spans = 0;
    span_ref nx;                /* the next span, not in a cluster yet */
    bool have = join_spans_next(jm->js, &nx);
    while (have) {
        size_t a = 0, z = 0;
        xgrowarray((void **)&spans, &cap_spans, z + 1, 16, sizeof *spans);
        spans[z++] = nx;
        have = join_spans_next(jm->js, &nx);
        uint64_t c_start = spans[a].start_ns, c_end = spans[a].end_ns;
        /* A span starting at or after the end of the cluster's first GC_STATS-claimed
         * span belongs to the next collection, even if it overlaps a worker span of
         * this one: workers post GC_END when released, which can be after the next
         * collection's first GC_START (threaded-n4). */
        uint64_t lead_end = evindex_span_stats(&ix->lanes[spans[a].lane], spans[a].idx)
                                ? spans[a].end_ns : UINT64_MAX;
        while (have && nx.start_ns < lead_end &&
               (nx.start_ns < c_end || (nx.start_ns == c_end && c_end == c_start))) {
            if (nx.end_ns > c_end)
                c_end = nx.end_ns;
            if (lead_end == UINT64_MAX && evindex_span_stats(&ix->lanes[nx.lane], nx.idx))
                lead_end = nx.end_ns;
            xgrowarray((void **)&spans, &cap_spans, z + 1, 16, sizeof *spans);
            spans[z++] = nx;
            have = join_spans_next(jm->js, &nx);
        }
        /* The leader: the first span of the cluster that a GC_STATS claimed. */
        size_t lead = SIZE_MAX;
        for (size_t i = a; i < z && lead == SIZE_MAX; i++) {
            if (evindex_span_stats(&ix->lanes[spans[i].lane], spans[i].idx))
                lead = i;
        }
        evindex_gc gc_rec, *g = &gc_rec;
        memset(g, 0, sizeof *g);
        g->gen = EVINDEX_GEN_UNKNOWN;
        g->global_sync_ns = g->live_after = g->heap_after = g->allocated_before =
            EVINDEX_NO_TIME;
        g->request_cap = g->slowest_cap = EVINDEX_NO_CAP;
        if (lead != SIZE_MAX) {
            const evindex_lane *ll = &ix->lanes[spans[lead].lane];
            size_t k = spans[lead].idx;
            g->start_ns = evindex_span_start(ll, k);
            g->end_ns = evindex_span_end(ll, k);
            g->leader_cap = ll->pub.cap;
            if (evindex_span_open(ll, k))
                g->flags |= EVINDEX_GC_F_OPEN;
            evindex_stats st;
            evindex_stats_get(jm->stats, evindex_span_stats(ll, k) - 1, &st);
            join_fill_stats(g, &st, ix->n_gens);
        } else {
            /* No GC_STATS (cut inside it, or an old GHC): the whole cluster. */
            g->start_ns = c_start;
            g->end_ns = c_end;
            g->leader_cap = ix->lanes[spans[a].lane].pub.cap;
            g->flags |= EVINDEX_GC_F_NO_STATS;
            for (size_t i = a; i < z; i++)
                if (evindex_span_open(&ix->lanes[spans[i].lane], spans[i].idx))
                    g->flags |= EVINDEX_GC_F_OPEN;
        }

        /* GC_STATS-only collections starting before it go in first (on a tie, after). */
        while (next_so < jm->n_so && jm->so_order[next_so].start_ns < g->start_ns)
            join_out_stats_only(jm->out, &jm->so[jm->so_order[next_so++].idx]);

        /* The request: the latest one between the previous collection and this one. */
        size_t m = marks_upper(jm->marks, jm->n_marks, c_start);
        uint64_t q = g->start_ns;
        while (m > 0) {
            const evindex_gcmark *mk = &jm->marks[--m];
            if (evindex_gcmark_time(mk) < prev_end)
                break;
            if (mk->what != 2) {
                q = evindex_gcmark_time(mk);
                g->request_cap = mk->cap;
                if (mk->what == 1)
                    g->flags |= EVINDEX_GC_F_PAR_REQUEST;
                break;
            }
        }
        g->request_ns = q <= g->start_ns ? q : g->start_ns;
        for (size_t i = marks_upper(jm->marks, jm->n_marks, g->request_ns - (g->request_ns > 0));
             i < jm->n_marks && evindex_gcmark_time(&jm->marks[i]) <= c_end; i++)
            if (jm->marks[i].what == 2 && evindex_gcmark_time(&jm->marks[i]) >= g->request_ns) {
                g->global_sync_ns = evindex_gcmark_time(&jm->marks[i]);
                break;
            }

        /* Parts: each capability's span in the cluster. */
        g->first_part = (uint32_t)jm->out->n_parts;
        span_ref *pspans;
        evindex_gc_part *cparts = join_out_parts(jm->out, z - a, &pspans);
        uint64_t last_stop = g->request_ns;
        for (size_t i = a; i < z; i++) {
            const evindex_lane *lane = &ix->lanes[spans[i].lane];
            size_t k = spans[i].idx;
            uint64_t sp_start = evindex_span_start(lane, k);
            evindex_gc_part *p = &cparts[i - a];
            pspans[i - a] = spans[i];
            p->cap = lane->pub.cap;
            p->start_ns = sp_start;
            p->end_ns = evindex_span_end(lane, k);
            p->work_ns = evindex_span_work(lane, k);
            p->wait_ns = evindex_span_wait(lane, k);
            p->stop_ns = g->request_cap == EVINDEX_NO_CAP
                             ? sp_start
                             : part_stop(jm->sweeps[spans[i].lane], g->request_ns, sp_start);
        }
        g->n_parts = (uint32_t)(z - a);
        /* Every capability had to stop, including those that then sat the GC out. */
        if (g->request_cap != EVINDEX_NO_CAP)
            for (size_t li = 0; li < ix->n_lanes; li++) {
                uint64_t stop = part_stop(jm->sweeps[li], g->request_ns, g->start_ns);
                if (stop > g->request_ns && stop >= last_stop) {
                    last_stop = stop;
                    g->slowest_cap = ix->lanes[li].pub.cap;
                }
            }
        g->stopping_ns = g->request_cap != EVINDEX_NO_CAP ? g->start_ns - g->request_ns
                                                          : EVINDEX_NO_TIME;
        uint64_t before = have ? nx.start_ns : UINT64_MAX;
        prev_end = g->end_ns;
        /* Its census (read from the GC track) and heap figures are the store's to take. */
        join_out_put(jm->out, g, c_start, before, (uint32_t)(z - a),
                     lead != SIZE_MAX ? (uint32_t)(lead - a) : UINT32_MAX);
        /* Final once nothing can come before the next cluster any more. */
        if (jm->first_open == UINT64_MAX && !jm->final) {
            if (before < jm->horizon_ns)
                jm->prev_end_final = prev_end;
            else
                jm->first_open = c_start;
        }
    }

    while (next_so < jm->n_so)
        join_out_stats_only(jm->out, &jm->so[jm->so_order[next_so++].idx]);
    join_out_end(jm->out);
    jm->prev_end = prev_end;
    x_free(spans);
}

static uint64_t
join_clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *
join_make_main(void *arg)
{
    join_make *jm = arg;
    uint64_t cpu0 = join_clock_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = join_clock_ns(CLOCK_MONOTONIC);
    join_make_run(jm);
    jm->cpu_ns = join_clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    jm->wall_ns = join_clock_ns(CLOCK_MONOTONIC) - wall0;
    return NULL;
}

void
evindex_join_grow(evindex *ix, evindex_join *j, const evindex_statsv *stats,
                  const evindex_gcmark *marks, size_t n_marks, const evindex_census_win *census,
                  size_t n_census, uint64_t late_ns, uint64_t horizon_ns, bool final,
                  bool helper)
{
    if (late_ns < j->from_ns && j->n_final)
        join_rollback(ix, j, late_ns);
    j->helper_cpu_ns = j->helper_wall_ns = 0;
    /* GC_STATS that claimed no span, noted once. */
    for (; j->stats_seen < stats->n; j->stats_seen++)
        if (!evindex_stats_claimed(stats, j->stats_seen)) {
            xgrowarray((void **)&j->stats_only, &j->cap_stats_only, j->n_stats_only + 1, 8,
                       sizeof *j->stats_only);
            j->stats_only[j->n_stats_only++] = (uint32_t)j->stats_seen;
        }

    /* The tail: every lane's spans from the first not final; their phases lose the
     * refs an earlier step gave them. */
    size_t n_spans = 0;
    for (size_t li = 0; li < ix->n_lanes; li++) {
        evindex_lane *lane = &ix->lanes[li];
        while (lane->span_from > 0 && evindex_span_start(lane, lane->span_from - 1) >= j->from_ns)
            lane->span_from--;
        if (lane->span_from > lane->n_spans_closed)
            lane->span_from = lane->n_spans_closed;
        if (lane->spans_reffed > lane->span_from)
            join_set_refs(lane, lane->span_from, lane->spans_reffed, UINT32_MAX,
                          &IVTRACK_SPAN_CUR_INIT);
        lane->spans_reffed = lane->span_from;
        n_spans += lane->n_spans_closed - lane->span_from;
    }
    /* The spans come one at a time. */
    join_spans js;
    join_spans_init(&js, ix, n_spans);
    j->n_spans_joined += n_spans;

    /* Clusters of overlapping spans; at most one collection per cluster, plus GC_STATS
     * with no span at all. */
    size_t n_parts = j->parts_final, base = j->n_final;
    gcpack_truncate(ix->gcs, base, n_parts);
    xgrowarray((void **)&j->clus, &j->cap_clus, base + n_spans + j->n_stats_only + 1, 64,
               sizeof *j->clus);
    join_out out = { .j = j, .n = base, .n_parts = n_parts };
    join_store store = { .ix = ix, .census = census, .n_census = n_census,
                         .gi = (uint32_t)base, .alloc = ix->series[EVINDEX_S_ALLOCATED],
                         .heap = ix->series[EVINDEX_S_HEAP_SIZE],
                         .live = ix->series[EVINDEX_S_HEAP_LIVE] };
    store.alloc_sw = series_sweep_new(store.alloc);             /* freed below */
    store.heap_sw = series_sweep_new(store.heap);               /* freed below */
    store.live_sw = series_sweep_new(store.live);               /* freed below */
    if (base) {
        evindex_gc last;                /* the final collection before the tail */
        gcpack_gc(ix->gcs, base - 1, &last);
        out.have_prev = true;
        out.prev_end = last.end_ns;
        size_t at = series_count(store.alloc) ? series_at(store.alloc, last.end_ns) : SIZE_MAX;
        store.prev_alloc = at == SIZE_MAX ? 0 : series_get(store.alloc, at).value;
    }
    /* The GC_STATS that claimed no span (the log began inside the collection), in start
     * order, to go in between the clusters. */
    evindex_gc *so = xmalloc((j->n_stats_only + 1) * sizeof *so);     /* freed below */
    gc_order *so_order = xmalloc((j->n_stats_only + 1) * sizeof *so_order);   /* freed below */
    size_t n_so = 0;
    for (size_t s = 0; s < j->n_stats_only; s++) {
        evindex_stats st_buf, *st = &st_buf;
        evindex_stats_get(stats, j->stats_only[s], st);
        if (st->time_ns < j->from_ns)
            continue;           /* among the final ones */
        evindex_gc *g = &so[n_so];
        memset(g, 0, sizeof *g);
        g->start_ns = g->end_ns = g->request_ns = st->time_ns;
        g->leader_cap = st->cap;
        g->request_cap = g->slowest_cap = EVINDEX_NO_CAP;
        g->global_sync_ns = g->live_after = g->heap_after = g->allocated_before =
            g->stopping_ns = EVINDEX_NO_TIME;
        g->flags = EVINDEX_GC_F_NO_START;
        join_fill_stats(g, st, ix->n_gens);
        so_order[n_so] = (gc_order){ g->start_ns, (uint32_t)n_so };
        n_so++;
    }
    qsort(so_order, n_so, sizeof *so_order, order_cmp);
    /* Per lane, the clusters coming in time order: a sweep over its runs, and (the
     * store's) a search hint over its GC phases. */
    runlane_sweep **sweeps = xmalloc((ix->n_lanes + 1) * sizeof *sweeps);  /* freed below */
    for (size_t li = 0; li < ix->n_lanes; li++)
        sweeps[li] = runlane_sweep_new(ix->lanes[li].runs);
    store.hints = xmalloc((ix->n_lanes + 1) * sizeof *store.hints);     /* freed below */
    for (size_t li = 0; li < ix->n_lanes; li++)
        store.hints[li] = IVTRACK_SPAN_CUR_INIT;
    /* A final join in merge order gives its spans back as it goes (they are freed after
     * it: nothing reads them again). */
    store.released = final && js.at
                         ? xmalloc((ix->n_lanes + 1) * sizeof *store.released)
                         : NULL;                                    /* freed below */
    for (size_t li = 0; store.released && li < ix->n_lanes; li++)
        store.released[li] = ix->lanes[li].span_from;
    join_make jm = { .ix = ix, .stats = stats, .marks = marks, .n_marks = n_marks,
                     .horizon_ns = horizon_ns, .final = final, .js = &js, .so = so,
                     .so_order = so_order, .n_so = n_so, .sweeps = sweeps, .out = &out,
                     .prev_end = j->prev_end, .prev_end_final = j->prev_end,
                     .first_open = UINT64_MAX };
    /* The batches' room is taken here (and seldom grows): from this thread's heap,
     * where the store's takes its own. */
    size_t batch_parts = JOIN_BATCH_ITEMS * (ix->n_lanes < 8 ? ix->n_lanes + 1 : 8);
    out.bt = join_batch_new(batch_parts);       /* freed: join_out_end, join_pipe_free */
    out.st = &store;
    /* Many spans, and a second core: the collections are made on a thread of its own
     * and stored here as they come. */
    join_pipe pipe = { .full_tail = &pipe.full };
    pthread_t maker;
    bool threaded = final && helper && n_spans >= JOIN_PIPE_MIN_SPANS &&
                    pthread_mutex_init(&pipe.mu, NULL) == 0;
    if (threaded && pthread_cond_init(&pipe.cv, NULL) != 0) {
        pthread_mutex_destroy(&pipe.mu);
        threaded = false;
    }
    if (threaded) {
        out.pipe = &pipe;
        for (size_t k = 1; k < JOIN_PIPE_BATCHES; k++) {
            join_batch *bt = join_batch_new(batch_parts);   /* freed: join_pipe_free */
            bt->next = pipe.spare;
            pipe.spare = bt;
        }
        if (pthread_create(&maker, NULL, join_make_main, &jm) != 0) {
            out.pipe = NULL;
            join_pipe_free(&pipe);
            threaded = false;
        }
    }
    if (threaded) {
        join_pipe_store(&pipe, &store);
        pthread_join(maker, NULL);
        join_pipe_free(&pipe);
        j->helper_cpu_ns = jm.cpu_ns;
        j->helper_wall_ns = jm.wall_ns;
    } else {
        join_make_run(&jm);
    }
    uint64_t prev_end = jm.prev_end, prev_end_final = jm.prev_end_final;
    uint64_t first_open = jm.first_open;
    size_t n_gcs = out.n;
    n_parts = out.n_parts;
    x_free(so);
    x_free(so_order);
    x_free(store.hints);
    x_free(store.released);
    series_sweep_free(store.heap_sw);
    series_sweep_free(store.live_sw);
    series_sweep_free(store.alloc_sw);
    for (size_t li = 0; li < ix->n_lanes; li++)
        runlane_sweep_free(sweeps[li]);
    x_free(sweeps);

    /* What is final now: the collections before the first open cluster. */
    if (final) {
        /* Nothing joins again: the spare room goes back. */
        gcpack_seal(ix->gcs);
        j->n_final = n_gcs;
        j->parts_final = n_parts;
        j->from_ns = UINT64_MAX;
        j->prev_end = prev_end;
    } else if (first_open != UINT64_MAX || n_spans) {
        uint64_t f = first_open != UINT64_MAX ? first_open : j->from_ns;
        size_t nf = base;
        while (nf < n_gcs && j->clus[nf] < f)
            nf++;
        evindex_gc first_open_gc;
        j->parts_final = nf < n_gcs ? gcpack_gc(ix->gcs, nf, &first_open_gc)->first_part
                                    : n_parts;
        j->n_final = nf;
        j->from_ns = nf ? f : 0;        /* with none final, anything may still come */
        j->prev_end = nf ? prev_end_final : 0;
    }
    for (size_t li = 0; li < ix->n_lanes; li++) {
        evindex_lane *lane = &ix->lanes[li];
        if (final) {            /* every span is in a final collection (and some given back) */
            lane->span_from = lane->n_spans_closed;
            continue;
        }
        while (lane->span_from < lane->n_spans_closed &&
               evindex_span_start(lane, lane->span_from) < j->from_ns)
            lane->span_from++;
    }
    join_spans_free(&js);
}
