/* timeprof: time-profile samples (+RTS -p -l) and flat profiles over a time range (see
 * timeprof.h). A sample is kept as its file offset only: pages of TIMEPROF_PAGE samples
 * in time order, each the first sample's offset and time, then zigzag varint deltas; the
 * time, cap and stack are read back from the log. Sealing stores, every `ck_every`
 * samples, each cost centre's cumulative individual and inherited counts (checkpoints,
 * thinned so they stay about a byte a sample), so that the profile of any range of all
 * capabilities is a checkpoint difference and a walk of at most 2 × ck_every samples at
 * its ends; and a 4-bit rank a sample for the viewer's colours. */
#include "timeprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "evtype.h"
#include "radixsort.h"
#include "xalloc.h"

enum {
    TIMEPROF_PAGE = 64,             /* samples a page */
    TIMEPROF_CK_MIN = 1024,         /* the closest checkpoints (a multiple of the page) */
    TIMEPROF_CAP_CK_MIN = 4096,     /* the closest checkpoints of each capability */
    TIMEPROF_DIRECT = 65536,        /* ids below: a direct table (GHC numbers from 1) */
};
#define TIMEPROF_NONE UINT32_MAX    /* no dense number */

typedef struct timeprof_page {
    uint64_t offset, time_ns;       /* the page's first sample */
    uint64_t pos;                   /* its second sample's code in `codes` */
} timeprof_page;

/* An id -> dense number map (numbers in order of first sight), open addressing. */
typedef struct timeprof_map {
    uint32_t *keys;                 /* owned */
    uint32_t *vals;                 /* owned: 1 + dense number, 0 empty */
    size_t n_slots, n;
} timeprof_map;

/* Cost-centre id -> number: a direct table for small ids, a hash for the others. */
typedef struct timeprof_ccmap {
    uint32_t *direct;               /* owned: 1 + number, 0 absent; ids < n_direct */
    size_t n_direct;
    timeprof_map big;               /* owned: the other ids (MAIN among them) */
    size_t n;                       /* numbers given: 0 .. n - 1 */
} timeprof_ccmap;

struct timeprof {
    const evlog *log;               /* borrowed */
    uint8_t *codes;                 /* owned: offset deltas */
    size_t n_codes, cap_codes;
    timeprof_page *pages;           /* owned */
    size_t n_pages, cap_pages;
    size_t n_samples;
    uint64_t last_offset, last_time;
    bool unsorted;                  /* some sample came before an earlier one's time */
    uint64_t interval_ns, begin_ns;
    bool has_begin;
    timeprof_map caps;              /* every cap seen */
    /* Every cost-centre id seen, numbered in order of first sight (after timeprof_seal:
     * its place in ccs), and the whole log's counts by those numbers. */
    timeprof_ccmap dense;
    uint64_t *total;                /* owned: (individual, inherited) a number */
    uint64_t *stamp;                /* owned while building: 1 + the sample last counted */
    size_t cap_total;
    /* By timeprof_seal. */
    uint32_t *ccs;                  /* owned: the distinct ids, ascending, MAIN last */
    size_t n_ccs, main_k;
    uint8_t *rank;                  /* owned: 4 bits a sample */
    size_t ck_every;                /* 0: no checkpoints */
    size_t n_ck;                    /* checkpoints at 0, ck_every, ... */
    uint32_t *ck;                   /* owned: n_ck × n_ccs × (individual, inherited) */
    /* Each capability's own (when there are several; a quarter byte a sample at most):
     * n_cap_ck × n_caps (numbered by `caps`) × (n_ccs + 1: its samples) pairs. */
    size_t cap_every, n_cap_ck;
    uint32_t *cap_ck;               /* owned */
};

/* ---- id maps ------------------------------------------------------------------------------ */

static size_t
timeprof_mix(uint32_t id, size_t mask)
{
    uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & mask;
}

static void
timeprof_map_grow(timeprof_map *m)
{
    size_t n = m->n_slots ? m->n_slots * 2 : 64;
    uint32_t *keys = xcalloc(n, sizeof *keys), *vals = xcalloc(n, sizeof *vals);   /* owned */
    for (size_t i = 0; i < m->n_slots; i++) {
        if (!m->vals[i])
            continue;
        size_t k = timeprof_mix(m->keys[i], n - 1);
        while (vals[k])
            k = (k + 1) & (n - 1);
        keys[k] = m->keys[i];
        vals[k] = m->vals[i];
    }
    x_free(m->keys);
    x_free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->n_slots = n;
}

/* The value of `key`, given `fresh` if new. */
static uint32_t
timeprof_map_get_or(timeprof_map *m, uint32_t key, uint32_t fresh)
{
    if (2 * (m->n + 1) > m->n_slots)
        timeprof_map_grow(m);
    size_t k = timeprof_mix(key, m->n_slots - 1);
    for (; m->vals[k]; k = (k + 1) & (m->n_slots - 1))
        if (m->keys[k] == key)
            return m->vals[k] - 1;
    m->keys[k] = key;
    m->vals[k] = fresh + 1;
    m->n++;
    return fresh;
}

/* The dense number of `key` (order of first sight), given the next one if new. */
static uint32_t
timeprof_map_get(timeprof_map *m, uint32_t key)
{
    return timeprof_map_get_or(m, key, (uint32_t)m->n);
}

/* The value of `key`, TIMEPROF_NONE if absent. */
static uint32_t
timeprof_map_find(const timeprof_map *m, uint32_t key)
{
    if (!m->n_slots)
        return TIMEPROF_NONE;
    for (size_t k = timeprof_mix(key, m->n_slots - 1); m->vals[k];
         k = (k + 1) & (m->n_slots - 1))
        if (m->keys[k] == key)
            return m->vals[k] - 1;
    return TIMEPROF_NONE;
}

static void
timeprof_map_free(timeprof_map *m)
{
    x_free(m->keys);
    x_free(m->vals);
    memset(m, 0, sizeof *m);
}

/* The number of id, given the next one if new. */
static uint32_t
timeprof_ccmap_get(timeprof_ccmap *m, uint32_t id)
{
    if (id >= TIMEPROF_DIRECT) {
        uint32_t k = timeprof_map_get_or(&m->big, id, (uint32_t)m->n);
        if (k == m->n)
            m->n++;
        return k;
    }
    if (id >= m->n_direct) {
        size_t n = m->n_direct ? m->n_direct : 64;
        while (n <= id)
            n *= 2;
        m->direct = xreallocarray(m->direct, n, sizeof *m->direct);      /* owned by m */
        memset(m->direct + m->n_direct, 0, (n - m->n_direct) * sizeof *m->direct);
        m->n_direct = n;
    }
    if (!m->direct[id])
        m->direct[id] = (uint32_t)++m->n;
    return m->direct[id] - 1;
}

/* The number of id, TIMEPROF_NONE if it has none. */
static inline uint32_t
timeprof_ccmap_find(const timeprof_ccmap *m, uint32_t id)
{
    return id < m->n_direct ? m->direct[id] - 1 : timeprof_map_find(&m->big, id);
}

/* Every id numbered anew: number k becomes renum[k]. */
static void
timeprof_ccmap_renumber(timeprof_ccmap *m, const uint32_t *renum)
{
    for (size_t i = 0; i < m->n_direct; i++)
        if (m->direct[i])
            m->direct[i] = renum[m->direct[i] - 1] + 1;
    for (size_t i = 0; i < m->big.n_slots; i++)
        if (m->big.vals[i])
            m->big.vals[i] = renum[m->big.vals[i] - 1] + 1;
}

static void
timeprof_ccmap_free(timeprof_ccmap *m)
{
    x_free(m->direct);
    timeprof_map_free(&m->big);
    memset(m, 0, sizeof *m);
}

/* ---- building ----------------------------------------------------------------------------- */

timeprof *
timeprof_new(const evlog *log)
{
    timeprof *tp = xcalloc(1, sizeof(timeprof));     /* caller frees with timeprof_free */
    tp->log = log;
    tp->main_k = timeprof_ccmap_get(&tp->dense, TIMEPROF_MAIN);
    return tp;
}

/* Frees everything tp owns and zeroes it. */
static void
timeprof_clear(timeprof *tp)
{
    x_free(tp->codes);
    x_free(tp->pages);
    timeprof_map_free(&tp->caps);
    timeprof_ccmap_free(&tp->dense);
    x_free(tp->stamp);
    x_free(tp->ccs);
    x_free(tp->rank);
    x_free(tp->ck);
    x_free(tp->cap_ck);
    x_free(tp->total);
    memset(tp, 0, sizeof *tp);
}

void
timeprof_free(timeprof *tp)
{
    if (!tp)
        return;
    timeprof_clear(tp);
    x_free(tp);
}

void
timeprof_begin(timeprof *tp, uint64_t time_ns, uint64_t interval_ns)
{
    if (tp->has_begin)
        return;
    tp->has_begin = true;
    tp->interval_ns = interval_ns;
    tp->begin_ns = time_ns;
}

/* Append sample `offset` (at time_ns) to the page stream. */
static void
timeprof_push(timeprof *tp, uint64_t offset, uint64_t time_ns)
{
    if (tp->n_samples % TIMEPROF_PAGE == 0) {
        xgrowarray((void **)&tp->pages, &tp->cap_pages, tp->n_pages + 1, 16, sizeof *tp->pages);
        tp->pages[tp->n_pages++] = (timeprof_page){ offset, time_ns, tp->n_codes };
    } else {
        uint64_t d = offset - tp->last_offset;
        uint64_t z = (d << 1) ^ (uint64_t)-(int64_t)(d >> 63);     /* zigzag */
        xgrowarray((void **)&tp->codes, &tp->cap_codes, tp->n_codes + 10, 256,
                   sizeof *tp->codes);
        for (; z >= 0x80; z >>= 7)
            tp->codes[tp->n_codes++] = (uint8_t)(z | 0x80);
        tp->codes[tp->n_codes++] = (uint8_t)z;
    }
    if (tp->n_samples && time_ns < tp->last_time)
        tp->unsorted = true;
    tp->last_offset = offset;
    tp->last_time = time_ns;
    tp->n_samples++;
}

/* Counts for cost-centre number d and those before it. */
static void
timeprof_total_room(timeprof *tp, uint32_t d)
{
    size_t was = tp->cap_total;
    xgrowarray((void **)&tp->stamp, &tp->cap_total, (size_t)d + 1, 64, sizeof *tp->stamp);
    tp->total = xreallocarray(tp->total, tp->cap_total, 2 * sizeof *tp->total);  /* owned */
    memset(tp->stamp + was, 0, (tp->cap_total - was) * sizeof *tp->stamp);
    memset(tp->total + 2 * was, 0, (tp->cap_total - was) * 2 * sizeof *tp->total);
}

bool
timeprof_add_sample(timeprof *tp, uint64_t offset, uint64_t time_ns, const uint8_t *payload,
                    size_t len)
{
    cursor c;
    cursor_init(&c, payload, len);
    uint32_t cap = cursor_u32(&c);
    (void)cursor_u64(&c);
    uint32_t depth = cursor_u8(&c);
    if (c.failed || cursor_left(&c) < (size_t)depth * 4)
        return false;
    /* The whole log's counts (timeprof_count_walk's rules). */
    uint64_t sn = tp->n_samples + 1;
    for (uint32_t k = 0; k <= depth; k++) {
        uint32_t d = k < depth ? timeprof_ccmap_get(&tp->dense, cursor_u32(&c))
                               : (uint32_t)tp->main_k;
        if (d >= tp->cap_total)
            timeprof_total_room(tp, d);
        if (k == 0)
            tp->total[2 * d]++;
        if (tp->stamp[d] != sn) {
            tp->stamp[d] = sn;
            tp->total[2 * d + 1]++;
        }
    }
    timeprof_map_get(&tp->caps, cap);
    timeprof_push(tp, offset, time_ns);
    return true;
}

/* ---- reading back ------------------------------------------------------------------------- */

/* A walk over the samples in order. */
typedef struct timeprof_walk {
    const timeprof *tp;
    size_t i;                       /* the sample at `offset` */
    uint64_t offset;
    size_t pos;                     /* the next code */
} timeprof_walk;

static uint64_t
timeprof_varint(const uint8_t *codes, size_t *pos)
{
    uint64_t z = 0;
    for (unsigned sh = 0;; sh += 7) {
        uint8_t b = codes[(*pos)++];
        z |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80))
            break;
    }
    return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

/* Start at sample i (< n_samples). */
static void
timeprof_walk_at(timeprof_walk *w, const timeprof *tp, size_t i)
{
    const timeprof_page *p = &tp->pages[i / TIMEPROF_PAGE];
    w->tp = tp;
    w->i = i - i % TIMEPROF_PAGE;
    w->offset = p->offset;
    w->pos = p->pos;
    while (w->i < i) {
        w->offset += timeprof_varint(tp->codes, &w->pos);
        w->i++;
    }
}

/* On to the next sample; false past the last. */
static bool
timeprof_walk_next(timeprof_walk *w)
{
    if (++w->i >= w->tp->n_samples)
        return false;
    if (w->i % TIMEPROF_PAGE == 0) {
        const timeprof_page *p = &w->tp->pages[w->i / TIMEPROF_PAGE];
        w->offset = p->offset;
        w->pos = p->pos;
    } else {
        w->offset += timeprof_varint(w->tp->codes, &w->pos);
    }
    return true;
}

/* The sample event at `offset`: its header fields into *s, its stack into ids (when not
 * NULL; else only ids[0], the innermost, into *inner). False, *s zeroed, if the log does
 * not hold a whole sample there. */
static bool
timeprof_read(const timeprof *tp, uint64_t offset, timeprof_sample *s, uint32_t *ids,
              uint32_t *inner)
{
    evlog_event ev;
    memset(s, 0, sizeof *s);
    if (inner)
        *inner = TIMEPROF_MAIN;
    if (!tp->log || !evlog_event_at(tp->log, offset, EVLOG_NO_CAP, &ev) ||
        ev.type != EV_PROF_SAMPLE_COST_CENTRE)
        return false;
    cursor c;
    cursor_init(&c, ev.payload, ev.payload_len);
    uint32_t cap = cursor_u32(&c);
    uint64_t tick = cursor_u64(&c);
    uint32_t depth = cursor_u8(&c);
    if (c.failed || cursor_left(&c) < (size_t)depth * 4)
        return false;
    *s = (timeprof_sample){ ev.time_ns, tick, offset, cap, depth };
    if (ids) {
        for (uint32_t k = 0; k < depth; k++)
            ids[k] = cursor_u32(&c);
    } else if (inner && depth) {
        *inner = cursor_u32(&c);
    }
    return true;
}

static uint64_t
timeprof_offset_at(const timeprof *tp, size_t i)
{
    timeprof_walk w;
    timeprof_walk_at(&w, tp, i);
    return w.offset;
}

static uint64_t
timeprof_time_of(const timeprof *tp, uint64_t offset)
{
    evlog_event ev;
    return tp->log && evlog_event_at(tp->log, offset, EVLOG_NO_CAP, &ev) ? ev.time_ns : 0;
}

/* ---- sealing ------------------------------------------------------------------------------ */

void
timeprof_merge(timeprof *dst, timeprof *src)
{
    if (src->has_begin && (!dst->has_begin || src->begin_ns < dst->begin_ns)) {
        dst->has_begin = true;
        dst->interval_ns = src->interval_ns;
        dst->begin_ns = src->begin_ns;
    }
    /* Each id's counts onto its number in dst. */
    const timeprof_ccmap *sm = &src->dense;
    for (size_t k = 0; k < sm->n_direct + sm->big.n_slots; k++) {
        bool direct = k < sm->n_direct;
        uint32_t v = direct ? sm->direct[k] : sm->big.vals[k - sm->n_direct];
        if (!v)
            continue;
        uint32_t id = direct ? (uint32_t)k : sm->big.keys[k - sm->n_direct];
        uint32_t d = timeprof_ccmap_get(&dst->dense, id);
        if (d >= dst->cap_total)
            timeprof_total_room(dst, d);
        if (v - 1 < src->cap_total) {
            dst->total[2 * d] += src->total[2 * (v - 1)];
            dst->total[2 * d + 1] += src->total[2 * (v - 1) + 1];
        }
    }
    for (size_t k = 0; k < src->caps.n_slots; k++)
        if (src->caps.vals[k])
            timeprof_map_get(&dst->caps, src->caps.keys[k]);
    if (src->n_samples) {
        bool was = dst->n_samples > 0;
        uint64_t last = dst->last_time;
        timeprof_walk w;
        timeprof_walk_at(&w, src, 0);
        do {
            timeprof_push(dst, w.offset, timeprof_time_of(src, w.offset));
        } while (timeprof_walk_next(&w));
        /* Workers take disjoint blocks: their samples interleave in time. */
        if ((was && src->pages[0].time_ns < last) || src->unsorted)
            dst->unsorted = true;
    }
    const evlog *log = src->log;
    timeprof_clear(src);
    src->log = log;
}

typedef struct timeprof_keyed {
    uint64_t time_ns, offset;
} timeprof_keyed;

/* A run of samples in time order, being merged. */
typedef struct timeprof_run {
    timeprof_walk w;
    size_t end;                     /* past its last sample */
    uint64_t time_ns;               /* w's sample's */
} timeprof_run;

static bool
timeprof_run_before(const timeprof_run *x, const timeprof_run *y)
{
    return x->time_ns != y->time_ns ? x->time_ns < y->time_ns : x->w.offset < y->w.offset;
}

/* Sift run heap[k] down the min-heap heap[0 .. n). */
static void
timeprof_run_sift(timeprof_run *heap, size_t n, size_t k)
{
    for (;;) {
        size_t l = 2 * k + 1, m = k;
        if (l < n && timeprof_run_before(&heap[l], &heap[m]))
            m = l;
        if (l + 1 < n && timeprof_run_before(&heap[l + 1], &heap[m]))
            m = l + 1;
        if (m == k)
            return;
        timeprof_run t = heap[k];
        heap[k] = heap[m];
        heap[m] = t;
        k = m;
    }
}

/* timeprof_sort by merging the runs of samples already in time order (each block's):
 * the new stream is written beside the old, so that the sort holds no more than the two
 * streams and a cursor a run. False (nothing changed) when there are too many runs. */
static bool
timeprof_merge_runs(timeprof *tp)
{
    size_t n = tp->n_samples, n_runs = 0, cap_runs = 0;
    timeprof_run *heap = NULL;      /* freed below */
    uint64_t prev = 0;
    timeprof_walk w;
    timeprof_walk_at(&w, tp, 0);
    do {
        uint64_t t = timeprof_time_of(tp, w.offset);
        if (w.i == 0 || t < prev) {
            if (n_runs)
                heap[n_runs - 1].end = w.i;
            if (n_runs > n / 64 + 16) {
                x_free(heap);
                return false;
            }
            xgrowarray((void **)&heap, &cap_runs, n_runs + 1, 16, sizeof *heap);
            heap[n_runs++] = (timeprof_run){ w, n, t };
        }
        prev = t;
    } while (timeprof_walk_next(&w));
    /* The old stream stays readable through `old` while tp's is written anew. */
    timeprof old = *tp;
    tp->codes = NULL;
    tp->pages = NULL;
    tp->n_samples = tp->n_pages = tp->n_codes = tp->cap_codes = tp->cap_pages = 0;
    tp->unsorted = false;
    for (size_t r = 0; r < n_runs; r++)
        heap[r].w.tp = &old;
    for (size_t k = n_runs / 2; k-- > 0;)
        timeprof_run_sift(heap, n_runs, k);
    while (n_runs) {
        timeprof_run *top = &heap[0];
        timeprof_push(tp, top->w.offset, top->time_ns);
        if (timeprof_walk_next(&top->w) && top->w.i < top->end)
            top->time_ns = timeprof_time_of(tp, top->w.offset);
        else
            heap[0] = heap[--n_runs];
        timeprof_run_sift(heap, n_runs, 0);
    }
    x_free(heap);
    x_free(old.codes);
    x_free(old.pages);
    return true;
}

/* Put the samples in (time, offset) order: each capability's block holds its own
 * samples in order, but blocks meet out of order (GHC writes samples in the one global
 * block, in order: this is for other writers and for merged builds). Merges the runs in
 * order; sorts all (16 bytes a sample while it does) when there are too many. */
static void
timeprof_sort(timeprof *tp)
{
    if (timeprof_merge_runs(tp))
        return;
    size_t n = tp->n_samples;
    timeprof_keyed *k = xmalloc(n * sizeof *k);                /* freed below */
    timeprof_walk w;
    timeprof_walk_at(&w, tp, 0);
    do {
        k[w.i] = (timeprof_keyed){ timeprof_time_of(tp, w.offset), w.offset };
    } while (timeprof_walk_next(&w));
    radixsort_by_u64(k, n, sizeof *k, offsetof(timeprof_keyed, time_ns));
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && k[j - 1].time_ns == k[j].time_ns &&
                           k[j - 1].offset > k[j].offset; j--) {
            timeprof_keyed t = k[j];
            k[j] = k[j - 1];
            k[j - 1] = t;
        }
    tp->n_samples = tp->n_pages = tp->n_codes = 0;
    tp->unsorted = false;
    for (size_t i = 0; i < n; i++)
        timeprof_push(tp, k[i].offset, k[i].time_ns);
    x_free(k);
}

static int
timeprof_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Counting samples into per-cost-centre (individual, inherited) pairs. */
typedef struct timeprof_count {
    uint64_t *ind, *inh;            /* n_ccs each */
    uint64_t *stamp;                /* per cost centre: 1 + the sample that last counted it */
    uint64_t n;                     /* samples counted */
} timeprof_count;

static void
timeprof_count_init(timeprof_count *c, size_t n_ccs)
{
    c->ind = xcalloc(n_ccs + 1, sizeof *c->ind);          /* freed by timeprof_count_free */
    c->inh = xcalloc(n_ccs + 1, sizeof *c->inh);
    c->stamp = xcalloc(n_ccs + 1, sizeof *c->stamp);
    c->n = 0;
}

static void
timeprof_count_free(timeprof_count *c)
{
    x_free(c->ind);
    x_free(c->inh);
    x_free(c->stamp);
}

/* Count sample i, its stack ids[0 .. depth), into c; returns its innermost cost centre's
 * number. */
static uint32_t
timeprof_tally(const timeprof *tp, size_t i, const uint32_t *ids, uint32_t depth,
               timeprof_count *c)
{
    c->n++;
    uint32_t inner = depth ? timeprof_ccmap_find(&tp->dense, ids[0]) : (uint32_t)tp->main_k;
    if (inner != TIMEPROF_NONE)
        c->ind[inner]++;
    /* MAIN is every stack's root; the others once per sample, however often a recursion
     * repeats them. */
    c->inh[tp->main_k]++;
    c->stamp[tp->main_k] = i + 1;
    for (uint32_t k = 0; k < depth; k++) {
        uint32_t d = timeprof_ccmap_find(&tp->dense, ids[k]);
        if (d != TIMEPROF_NONE && c->stamp[d] != i + 1) {
            c->stamp[d] = i + 1;
            c->inh[d]++;
        }
    }
    return inner;
}

/* Count the sample at w (if taken on `cap`, or any) into c; returns its innermost cost
 * centre's number (TIMEPROF_NONE if not counted). ids: room for its stack. */
static uint32_t
timeprof_count_one(const timeprof *tp, const timeprof_walk *w, uint32_t *ids, uint32_t cap,
                   timeprof_count *c)
{
    timeprof_sample s;
    if (!timeprof_read(tp, w->offset, &s, ids, NULL) ||
        (cap != TIMEPROF_ANY_CAP && s.cap != cap))
        return TIMEPROF_NONE;
    return timeprof_tally(tp, w->i, ids, s.depth, c);
}

/* Count samples lo .. hi - 1 (taken on `cap`, or any) into c. */
static void
timeprof_count_walk(const timeprof *tp, size_t lo, size_t hi, uint32_t cap, timeprof_count *c)
{
    if (lo >= hi)
        return;
    uint32_t ids[TIMEPROF_MAX_DEPTH];
    timeprof_walk w;
    timeprof_walk_at(&w, tp, lo);
    do {
        timeprof_count_one(tp, &w, ids, cap, c);
    } while (timeprof_walk_next(&w) && w.i < hi);
}

static int timeprof_row_cmp(const void *pa, const void *pb);

/* The rows of counts c, sorted (MAIN only when some sample was in it). Caller frees. */
static timeprof_row *
timeprof_rows(const timeprof *tp, const timeprof_count *c, size_t *n_rows)
{
    timeprof_row *rows = xmalloc((tp->n_ccs + 1) * sizeof *rows);      /* caller frees */
    size_t out = 0;
    for (size_t k = 0; k < tp->n_ccs; k++)
        if (k == tp->main_k ? c->ind[k] > 0 : c->inh[k] > 0)
            rows[out++] = (timeprof_row){ tp->ccs[k], c->ind[k], c->inh[k] };
    if (out)
        qsort(rows, out, sizeof *rows, timeprof_row_cmp);
    *n_rows = out;
    return rows;
}

/* Checkpoint j: the counts so far. */
static void
timeprof_ck_store(timeprof *tp, size_t j, const timeprof_count *c)
{
    uint32_t *row = tp->ck + j * tp->n_ccs * 2;
    for (size_t cc = 0; cc < tp->n_ccs; cc++) {
        row[2 * cc] = (uint32_t)c->ind[cc];
        row[2 * cc + 1] = (uint32_t)c->inh[cc];
    }
}

/* Capability checkpoint j: each capability's counts so far, and its samples. */
static void
timeprof_cap_ck_store(timeprof *tp, size_t j, const timeprof_count *by_cap)
{
    size_t width = (tp->n_ccs + 1) * 2;
    for (size_t ci = 0; ci < tp->caps.n; ci++) {
        uint32_t *row = tp->cap_ck + (j * tp->caps.n + ci) * width;
        for (size_t cc = 0; cc < tp->n_ccs; cc++) {
            row[2 * cc] = (uint32_t)by_cap[ci].ind[cc];
            row[2 * cc + 1] = (uint32_t)by_cap[ci].inh[cc];
        }
        row[2 * tp->n_ccs] = (uint32_t)by_cap[ci].n;
        row[2 * tp->n_ccs + 1] = 0;
    }
}

/* The cost centres in id order, numbered so; then checkpoints and ranks in one walk. */
static void
timeprof_index(timeprof *tp)
{
    size_t k = tp->dense.n;
    timeprof_ccmap *m = &tp->dense;
    tp->ccs = xmalloc(k * sizeof *tp->ccs);                        /* owned by tp */
    tp->n_ccs = k;
    for (size_t i = 0; i < m->n_direct; i++)
        if (m->direct[i])
            tp->ccs[m->direct[i] - 1] = (uint32_t)i;
    for (size_t i = 0; i < m->big.n_slots; i++)
        if (m->big.vals[i])
            tp->ccs[m->big.vals[i] - 1] = m->big.keys[i];
    /* Renumber in id order (MAIN, UINT32_MAX, last); the counts likewise. */
    uint32_t *by_first = xmalloc(k * sizeof *by_first);            /* freed below */
    memcpy(by_first, tp->ccs, k * sizeof *by_first);
    qsort(tp->ccs, k, sizeof *tp->ccs, timeprof_u32_cmp);
    uint32_t *renum = xmalloc(k * sizeof *renum);                  /* freed below */
    uint64_t *total = xcalloc(2 * k, sizeof *total);               /* owned by tp */
    for (size_t c = 0; c < k; c++) {
        const uint32_t *at = bsearch(&by_first[c], tp->ccs, k, sizeof *tp->ccs,
                                     timeprof_u32_cmp);
        renum[c] = (uint32_t)(at - tp->ccs);
        if (c < tp->cap_total) {
            total[2 * renum[c]] = tp->total[2 * c];
            total[2 * renum[c] + 1] = tp->total[2 * c + 1];
        }
    }
    timeprof_ccmap_renumber(m, renum);
    x_free(renum);
    x_free(by_first);
    x_free(tp->total);
    x_free(tp->stamp);
    tp->stamp = NULL;
    tp->total = total;
    tp->cap_total = k;
    tp->main_k = k - 1;
    if (m->n_direct) {          /* trimmed to the largest id */
        size_t n = m->n_direct;
        while (n > 1 && !m->direct[n - 1])
            n--;
        m->direct = xreallocarray(m->direct, n, sizeof *m->direct);
        m->n_direct = n;
    }
    /* Checkpoints about a byte a sample at most: 8 bytes a cost centre each. */
    size_t n = tp->n_samples;
    if (n < UINT32_MAX && n >= 2 * TIMEPROF_CK_MIN) {
        size_t every = TIMEPROF_CK_MIN;
        while ((n / every + 1) * k * 8 > n && every < n / 2)
            every *= 2;
        if ((n / every + 1) * k * 8 <= n) {
            tp->ck_every = every;
            tp->n_ck = n / every + 1;
            tp->ck = xmalloc(tp->n_ck * k * 2 * sizeof *tp->ck);   /* owned by tp */
        }
    }
    size_t n_caps = tp->caps.n;
    if (n_caps > 1 && n < UINT32_MAX && n >= 2 * TIMEPROF_CAP_CK_MIN) {
        size_t every = TIMEPROF_CAP_CK_MIN, row = n_caps * (k + 1) * 8;
        while ((n / every + 1) * row > n / 4 && every < n / 2)
            every *= 2;
        if ((n / every + 1) * row <= n / 4) {
            tp->cap_every = every;
            tp->n_cap_ck = n / every + 1;
            tp->cap_ck = xmalloc(tp->n_cap_ck * row);               /* owned by tp */
        }
    }
    timeprof_count *by_cap = NULL;
    if (tp->cap_ck) {
        by_cap = xmalloc(n_caps * sizeof *by_cap);                   /* freed below */
        for (size_t ci = 0; ci < n_caps; ci++)
            timeprof_count_init(&by_cap[ci], k);
    }
    /* Ranks: each cost centre's place in the whole log's profile, 4 bits a sample. */
    timeprof_count c = { .ind = NULL };
    timeprof_count_init(&c, k);
    for (size_t cc = 0; cc < k; cc++) {
        c.ind[cc] = total[2 * cc];
        c.inh[cc] = total[2 * cc + 1];
    }
    size_t n_rows;
    timeprof_row *rows = timeprof_rows(tp, &c, &n_rows);
    uint8_t *place = xmalloc(k);                                   /* freed below */
    memset(place, TIMEPROF_RANK_MAX, k);
    for (size_t r = 0; r < n_rows && r < TIMEPROF_RANK_MAX; r++)
        place[timeprof_ccmap_find(m, rows[r].cc)] = (uint8_t)r;
    x_free(rows);
    memset(c.ind, 0, k * sizeof *c.ind);
    memset(c.inh, 0, k * sizeof *c.inh);
    tp->rank = xcalloc(n / 2 + 1, 1);                              /* owned by tp */
    if (n) {
        uint32_t ids[TIMEPROF_MAX_DEPTH];
        timeprof_walk w;
        timeprof_walk_at(&w, tp, 0);
        do {
            if (tp->n_ck && w.i % tp->ck_every == 0)
                timeprof_ck_store(tp, w.i / tp->ck_every, &c);
            if (by_cap && w.i % tp->cap_every == 0)
                timeprof_cap_ck_store(tp, w.i / tp->cap_every, by_cap);
            timeprof_sample s;
            uint32_t d = TIMEPROF_NONE;
            if (timeprof_read(tp, w.offset, &s, ids, NULL)) {
                d = timeprof_tally(tp, w.i, ids, s.depth, &c);
                if (by_cap)
                    timeprof_tally(tp, w.i, ids, s.depth,
                                   &by_cap[timeprof_map_find(&tp->caps, s.cap)]);
            }
            unsigned r = d == TIMEPROF_NONE ? TIMEPROF_RANK_MAX : place[d];
            tp->rank[w.i / 2] |= (uint8_t)(r << (w.i % 2 * 4));
        } while (timeprof_walk_next(&w));
        if (tp->n_ck && n % tp->ck_every == 0)
            timeprof_ck_store(tp, n / tp->ck_every, &c);
        if (by_cap && n % tp->cap_every == 0)
            timeprof_cap_ck_store(tp, n / tp->cap_every, by_cap);
    }
    x_free(place);
    timeprof_count_free(&c);
    for (size_t ci = 0; by_cap && ci < n_caps; ci++)
        timeprof_count_free(&by_cap[ci]);
    x_free(by_cap);
}

void
timeprof_seal(timeprof *tp)
{
    if (tp->unsorted)
        timeprof_sort(tp);
    /* Exact sizes from here on: the arrays stay as long as the index. */
    if (tp->n_codes) {
        tp->codes = xreallocarray(tp->codes, tp->n_codes, 1);
        tp->cap_codes = tp->n_codes;
    }
    if (tp->n_pages) {
        tp->pages = xreallocarray(tp->pages, tp->n_pages, sizeof *tp->pages);
        tp->cap_pages = tp->n_pages;
    }
    timeprof_index(tp);
}

/* ---- questions ---------------------------------------------------------------------------- */

bool
timeprof_empty(const timeprof *tp)
{
    return !tp->has_begin && tp->n_samples == 0;
}

bool
timeprof_interval(const timeprof *tp, uint64_t *interval_ns, uint64_t *begin_ns)
{
    if (interval_ns)
        *interval_ns = tp->interval_ns;
    if (begin_ns)
        *begin_ns = tp->begin_ns;
    return tp->has_begin;
}

size_t
timeprof_n_samples(const timeprof *tp)
{
    return tp->n_samples;
}

timeprof_sample
timeprof_sample_at(const timeprof *tp, size_t i)
{
    timeprof_sample s;
    timeprof_read(tp, timeprof_offset_at(tp, i), &s, NULL, NULL);
    return s;
}

uint32_t
timeprof_stack(const timeprof *tp, size_t i, uint32_t ids[TIMEPROF_MAX_DEPTH])
{
    timeprof_sample s;
    timeprof_read(tp, timeprof_offset_at(tp, i), &s, ids, NULL);
    return s.depth;
}

uint32_t
timeprof_innermost(const timeprof *tp, size_t i)
{
    timeprof_sample s;
    uint32_t inner;
    timeprof_read(tp, timeprof_offset_at(tp, i), &s, NULL, &inner);
    return inner;
}

uint32_t
timeprof_rank(const timeprof *tp, size_t i)
{
    return tp->rank ? (uint32_t)(tp->rank[i / 2] >> (i % 2 * 4)) & 0xf : TIMEPROF_RANK_MAX;
}

size_t
timeprof_first_from(const timeprof *tp, uint64_t t)
{
    /* The pages whose first sample is before t; then along the last of them. */
    size_t lo = 0, hi = tp->n_pages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tp->pages[mid].time_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    /* The page's offsets, then a binary search reading a few times from the log. */
    size_t first = (lo - 1) * TIMEPROF_PAGE, n = tp->n_samples - first;
    if (n > TIMEPROF_PAGE)
        n = TIMEPROF_PAGE;
    uint64_t off[TIMEPROF_PAGE];
    timeprof_walk w;
    timeprof_walk_at(&w, tp, first);
    for (size_t k = 0; k < n; k++, timeprof_walk_next(&w))
        off[k] = w.offset;
    size_t a = 1, b = n;        /* the first sample's time is before t */
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (timeprof_time_of(tp, off[mid]) < t)
            a = mid + 1;
        else
            b = mid;
    }
    return first + a;
}

size_t
timeprof_last_by(const timeprof *tp, uint64_t t)
{
    size_t i = t == UINT64_MAX ? tp->n_samples : timeprof_first_from(tp, t + 1);
    return i ? i - 1 : SIZE_MAX;
}

size_t
timeprof_n_caps(const timeprof *tp)
{
    return tp->caps.n;
}

size_t
timeprof_find_innermost(const timeprof *tp, size_t from, uint32_t cc)
{
    size_t n = tp->n_samples;
    uint32_t d = timeprof_ccmap_find(&tp->dense, cc);
    if (n == 0 || (tp->total && (d == TIMEPROF_NONE || tp->total[2 * d] == 0)))
        return SIZE_MAX;
    if (from >= n)
        from = 0;
    /* Two rounds: from `from` to the end, then from 0 to `from`. */
    for (int round = 0; round < 2; round++) {
        size_t i = round ? 0 : from, end = round ? from : n;
        while (i < end) {
            /* A checkpoint stretch without cc innermost: skip it. */
            size_t e = tp->ck_every;
            size_t j = e ? i / e : 0;
            if (e && i % e == 0 && j + 1 < tp->n_ck && i + e <= end &&
                tp->ck[((j + 1) * tp->n_ccs + d) * 2] == tp->ck[(j * tp->n_ccs + d) * 2]) {
                i += e;
                continue;
            }
            size_t stop = e ? (i / e + 1) * e : end;
            if (stop > end)
                stop = end;
            timeprof_walk w;
            timeprof_walk_at(&w, tp, i);
            do {
                timeprof_sample s;
                uint32_t inner;
                if (timeprof_read(tp, w.offset, &s, NULL, &inner) && inner == cc)
                    return w.i;
            } while (timeprof_walk_next(&w) && w.i < stop);
            i = stop;
        }
    }
    return SIZE_MAX;
}

/* ---- flat profiles ------------------------------------------------------------------------ */

static int
timeprof_row_cmp(const void *pa, const void *pb)
{
    const timeprof_row *x = pa, *y = pb;
    if (x->individual != y->individual)
        return x->individual > y->individual ? -1 : 1;
    if (x->inherited != y->inherited)
        return x->inherited > y->inherited ? -1 : 1;
    return x->cc < y->cc ? -1 : x->cc > y->cc;
}

/* Samples lo .. hi - 1: those with from_ns <= time <= to_ns. */
static void
timeprof_range(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, size_t *lo, size_t *hi)
{
    *lo = timeprof_first_from(tp, from_ns);
    *hi = to_ns == UINT64_MAX ? tp->n_samples : timeprof_first_from(tp, to_ns + 1);
    if (*hi < *lo)
        *hi = *lo;
}

/* Add (sign +1) or take (-1) checkpoint j (j == n_ck: the totals) to c. */
static void
timeprof_count_ck(const timeprof *tp, size_t j, int sign, timeprof_count *c)
{
    for (size_t k = 0; k < tp->n_ccs; k++) {
        uint64_t ind = j == tp->n_ck ? tp->total[2 * k] : tp->ck[(j * tp->n_ccs + k) * 2];
        uint64_t inh = j == tp->n_ck ? tp->total[2 * k + 1]
                                     : tp->ck[(j * tp->n_ccs + k) * 2 + 1];
        c->ind[k] += sign > 0 ? ind : -ind;
        c->inh[k] += sign > 0 ? inh : -inh;
    }
}

/* The counts over samples lo .. hi - 1 of all caps: from the checkpoints when the range
 * spans some, walking only its ends. */
static void
timeprof_count_range(const timeprof *tp, size_t lo, size_t hi, timeprof_count *c)
{
    size_t e = tp->ck_every;
    if (!e || hi - lo <= 2 * e) {
        timeprof_count_walk(tp, lo, hi, TIMEPROF_ANY_CAP, c);
        return;
    }
    size_t a = (lo + e - 1) / e, b = hi / e;          /* checkpoints a .. b inside */
    if (hi == tp->n_samples)
        b = tp->n_ck;                                   /* the totals */
    timeprof_count_ck(tp, b, +1, c);
    timeprof_count_ck(tp, a, -1, c);
    c->n = (b == tp->n_ck ? tp->n_samples : b * e) - a * e;
    timeprof_count_walk(tp, lo, a * e, TIMEPROF_ANY_CAP, c);
    if (b != tp->n_ck)
        timeprof_count_walk(tp, b * e, hi, TIMEPROF_ANY_CAP, c);
}

/* The counts over samples lo .. hi - 1 taken on `cap`: from its checkpoints when the
 * range spans some. */
static void
timeprof_count_cap_range(const timeprof *tp, size_t lo, size_t hi, uint32_t cap,
                         timeprof_count *c)
{
    size_t e = tp->cap_every;
    uint32_t ci = timeprof_map_find(&tp->caps, cap);
    if (!e || ci == TIMEPROF_NONE || hi - lo <= 2 * e) {
        timeprof_count_walk(tp, lo, hi, cap, c);
        return;
    }
    size_t a = (lo + e - 1) / e, b = hi / e, width = (tp->n_ccs + 1) * 2;
    const uint32_t *ra = tp->cap_ck + (a * tp->caps.n + ci) * width;
    const uint32_t *rb = tp->cap_ck + (b * tp->caps.n + ci) * width;
    for (size_t k = 0; k < tp->n_ccs; k++) {
        c->ind[k] += (uint64_t)(rb[2 * k] - ra[2 * k]);
        c->inh[k] += (uint64_t)(rb[2 * k + 1] - ra[2 * k + 1]);
    }
    c->n += (uint64_t)(rb[2 * tp->n_ccs] - ra[2 * tp->n_ccs]);
    timeprof_count_walk(tp, lo, a * e, cap, c);
    timeprof_count_walk(tp, b * e, hi, cap, c);
}

bool
timeprof_has_cap(const timeprof *tp, uint32_t cap)
{
    return timeprof_map_find(&tp->caps, cap) != TIMEPROF_NONE;
}

timeprof_row *
timeprof_flat(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, uint32_t cap,
              size_t *n_rows, uint64_t *n_samples)
{
    size_t lo, hi;
    timeprof_range(tp, from_ns, to_ns, &lo, &hi);
    timeprof_count c;
    timeprof_count_init(&c, tp->n_ccs);
    /* One capability's: all samples' when it took them all; none when it took none. */
    if (cap != TIMEPROF_ANY_CAP && tp->caps.n == 1 && timeprof_has_cap(tp, cap))
        cap = TIMEPROF_ANY_CAP;
    if (cap == TIMEPROF_ANY_CAP)
        timeprof_count_range(tp, lo, hi, &c);
    else if (timeprof_has_cap(tp, cap))
        timeprof_count_cap_range(tp, lo, hi, cap, &c);
    timeprof_row *rows = timeprof_rows(tp, &c, n_rows);      /* caller frees */
    *n_samples = c.n;
    timeprof_count_free(&c);
    return rows;
}

size_t
timeprof_bytes(const timeprof *tp)
{
    return sizeof *tp + tp->cap_codes + tp->cap_pages * sizeof *tp->pages +
           (tp->caps.n_slots + tp->dense.big.n_slots) * 2 * sizeof(uint32_t) +
           tp->dense.n_direct * sizeof *tp->dense.direct +
           tp->n_ccs * (sizeof *tp->ccs + 2 * sizeof *tp->total) +
           (tp->rank ? tp->n_samples / 2 + 1 : 0) + tp->n_ck * tp->n_ccs * 2 * sizeof *tp->ck +
           tp->n_cap_ck * tp->caps.n * (tp->n_ccs + 1) * 2 * sizeof *tp->cap_ck;
}

bool
timeprof_check(const timeprof *tp, char *why, size_t why_len)
{
    if (tp->n_samples) {
        uint64_t prev = 0;
        timeprof_walk w;
        timeprof_walk_at(&w, tp, 0);
        do {
            timeprof_sample s;
            if (!timeprof_read(tp, w.offset, &s, NULL, NULL)) {
                snprintf(why, why_len, "sample %zu: no sample at offset %llu", w.i,
                         (unsigned long long)w.offset);
                return false;
            }
            if (s.time_ns < prev) {
                snprintf(why, why_len, "sample %zu before the one before it", w.i);
                return false;
            }
            prev = s.time_ns;
        } while (timeprof_walk_next(&w));
    }
    /* The checkpointed profile answers as a walk over the samples does. */
    size_t n = tp->n_samples, e = tp->ck_every ? tp->ck_every : 1;
    const size_t ranges[5][2] = {
        { 0, n }, { 0, n / 2 }, { n / 2, n }, { n / 3 + 1, n - n / 3 },
        { e + 1 < n ? e + 1 : n, 3 * e + 3 < n ? 3 * e + 3 : n },
    };
    /* All caps, then each of the first few caps on its own. */
    size_t n_caps = tp->caps.n < 4 ? tp->caps.n : 4;
    bool ok = true;
    for (size_t q = 0; q < 5 * (1 + n_caps) && ok; q++) {
        size_t r = q % 5, lo = ranges[r][0], hi = ranges[r][1] < lo ? lo : ranges[r][1];
        uint32_t cap = TIMEPROF_ANY_CAP;
        for (size_t slot = 0, seen = 0; q >= 5 && slot < tp->caps.n_slots; slot++)
            if (tp->caps.vals[slot] && seen++ == q / 5 - 1)
                cap = tp->caps.keys[slot];
        timeprof_count a, b;
        timeprof_count_init(&a, tp->n_ccs);
        timeprof_count_init(&b, tp->n_ccs);
        if (cap == TIMEPROF_ANY_CAP)
            timeprof_count_range(tp, lo, hi, &a);
        else
            timeprof_count_cap_range(tp, lo, hi, cap, &a);
        timeprof_count_walk(tp, lo, hi, cap, &b);
        ok = a.n == b.n;
        for (size_t k = 0; ok && k < tp->n_ccs; k++)
            ok = a.ind[k] == b.ind[k] && a.inh[k] == b.inh[k];
        if (!ok)
            snprintf(why, why_len, "samples %zu..%zu, cap %u: the checkpoints' profile differs "
                     "from a recount", lo, hi, cap);
        timeprof_count_free(&a);
        timeprof_count_free(&b);
    }
    return ok;
}
