/* timeprof: time-profile samples (+RTS -p -l) and flat profiles over a time range (see
 * timeprof.h). Stacks live back to back in one id array; a flat profile finds its rows
 * through an open-addressing hash keyed by cost-centre id. */
#include "timeprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "radixsort.h"
#include "xalloc.h"

struct timeprof {
    timeprof_sample *samples;           /* owned */
    size_t n_samples, cap_samples;
    uint32_t *ids;                      /* owned: every stack, innermost first */
    size_t n_ids, cap_ids;
    uint64_t interval_ns, begin_ns;
    bool has_begin;
    size_t n_caps;                      /* counted by timeprof_seal */
    uint32_t *rank;                     /* owned: per sample, by timeprof_seal */
};

timeprof *
timeprof_new(void)
{
    return xcalloc(1, sizeof(timeprof));     /* caller frees with timeprof_free */
}

void
timeprof_free(timeprof *tp)
{
    if (!tp)
        return;
    x_free(tp->samples);
    x_free(tp->ids);
    x_free(tp->rank);
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

bool
timeprof_add_sample(timeprof *tp, uint64_t time_ns, const uint8_t *payload, size_t len)
{
    cursor c;
    cursor_init(&c, payload, len);
    uint32_t cap = cursor_u32(&c);
    uint64_t tick = cursor_u64(&c);
    uint32_t depth = cursor_u8(&c);
    if (c.failed || cursor_left(&c) < (size_t)depth * 4)
        return false;
    xgrowarray((void **)&tp->ids, &tp->cap_ids, tp->n_ids + depth, 256, sizeof *tp->ids);
    for (uint32_t k = 0; k < depth; k++)
        tp->ids[tp->n_ids + k] = cursor_u32(&c);
    xgrowarray((void **)&tp->samples, &tp->cap_samples, tp->n_samples + 1, 64,
               sizeof *tp->samples);
    tp->samples[tp->n_samples++] = (timeprof_sample){ time_ns, tick, tp->n_ids, cap, depth };
    tp->n_ids += depth;
    return true;
}

/* (cost centre, place) pairs by cost centre, for timeprof_seal's ranks. */
typedef struct timeprof_place {
    uint32_t cc, place;
} timeprof_place;

static int
timeprof_place_cmp(const void *a, const void *b)
{
    const timeprof_place *x = a, *y = b;
    return x->cc < y->cc ? -1 : x->cc > y->cc;
}

/* Each sample's innermost cost centre's place in the whole log's flat profile. */
static void
timeprof_rank_samples(timeprof *tp)
{
    size_t n_rows;
    uint64_t n_samples;
    timeprof_row *rows = timeprof_flat(tp, 0, UINT64_MAX, TIMEPROF_ANY_CAP, &n_rows,
                                       &n_samples);
    timeprof_place *pl = xmalloc((n_rows + 1) * sizeof *pl);       /* freed below */
    for (size_t i = 0; i < n_rows; i++)
        pl[i] = (timeprof_place){ rows[i].cc, (uint32_t)i };
    qsort(pl, n_rows, sizeof *pl, timeprof_place_cmp);
    x_free(tp->rank);
    tp->rank = xmalloc((tp->n_samples + 1) * sizeof *tp->rank);     /* owned by tp */
    for (size_t i = 0; i < tp->n_samples; i++) {
        timeprof_place key = { timeprof_innermost(tp, i), 0 };
        const timeprof_place *hit = bsearch(&key, pl, n_rows, sizeof *pl, timeprof_place_cmp);
        tp->rank[i] = hit ? hit->place : UINT32_MAX;
    }
    x_free(pl);
    x_free(rows);
}

static int
timeprof_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void
timeprof_seal(timeprof *tp)
{
    /* Each capability writes its own buffer: samples meet in file order, not time. */
    radixsort_by_u64(tp->samples, tp->n_samples, sizeof *tp->samples,
                     offsetof(timeprof_sample, time_ns));
    uint32_t *caps = xmalloc((tp->n_samples + 1) * sizeof *caps);     /* freed below */
    for (size_t i = 0; i < tp->n_samples; i++)
        caps[i] = tp->samples[i].cap;
    qsort(caps, tp->n_samples, sizeof *caps, timeprof_u32_cmp);
    tp->n_caps = 0;
    for (size_t i = 0; i < tp->n_samples; i++)
        tp->n_caps += i == 0 || caps[i] != caps[i - 1];
    x_free(caps);
    timeprof_rank_samples(tp);
}

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

const timeprof_sample *
timeprof_sample_at(const timeprof *tp, size_t i)
{
    return &tp->samples[i];
}

const uint32_t *
timeprof_stack(const timeprof *tp, size_t i, uint32_t *depth)
{
    *depth = tp->samples[i].depth;
    return tp->ids ? tp->ids + tp->samples[i].first : NULL;
}

uint32_t
timeprof_innermost(const timeprof *tp, size_t i)
{
    const timeprof_sample *s = &tp->samples[i];
    return s->depth ? tp->ids[s->first] : TIMEPROF_MAIN;
}

uint32_t
timeprof_rank(const timeprof *tp, size_t i)
{
    return tp->rank ? tp->rank[i] : UINT32_MAX;
}

size_t
timeprof_first_from(const timeprof *tp, uint64_t t)
{
    size_t lo = 0, hi = tp->n_samples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tp->samples[mid].time_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
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
    return tp->n_caps;
}

/* ---- flat profiles ---------------------------------------------------------------------- */

typedef struct timeprof_acc {
    timeprof_row *rows;             /* owned until handed to the caller */
    size_t n_rows, cap_rows;
    uint32_t *slots;                /* 1 + row index, 0 empty; power-of-two count */
    uint64_t *stamp;                /* per row: 1 + the sample that last counted it */
    size_t n_slots;
} timeprof_acc;

static size_t
timeprof_hash(uint32_t id, size_t mask)
{
    uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 32) & mask;
}

static void
timeprof_rehash(timeprof_acc *a)
{
    size_t n = a->n_slots ? a->n_slots * 2 : 64;
    x_free(a->slots);
    a->slots = xcalloc(n, sizeof *a->slots);       /* owned by a */
    a->n_slots = n;
    for (size_t i = 0; i < a->n_rows; i++) {
        size_t k = timeprof_hash(a->rows[i].cc, n - 1);
        while (a->slots[k])
            k = (k + 1) & (n - 1);
        a->slots[k] = (uint32_t)i + 1;
    }
}

/* The row of cost centre `cc`, made if new. */
static size_t
timeprof_row_of(timeprof_acc *a, uint32_t cc)
{
    if (a->n_slots) {
        for (size_t k = timeprof_hash(cc, a->n_slots - 1); a->slots[k];
             k = (k + 1) & (a->n_slots - 1))
            if (a->rows[a->slots[k] - 1].cc == cc)
                return a->slots[k] - 1;
    }
    size_t old_cap = a->cap_rows;
    xgrowarray((void **)&a->rows, &a->cap_rows, a->n_rows + 1, 16, sizeof *a->rows);
    if (a->cap_rows != old_cap)
        a->stamp = xreallocarray(a->stamp, a->cap_rows, sizeof *a->stamp);
    size_t i = a->n_rows++;
    a->rows[i] = (timeprof_row){ cc, 0, 0 };
    a->stamp[i] = 0;
    if (2 * a->n_rows > a->n_slots) {
        timeprof_rehash(a);
    } else {
        size_t k = timeprof_hash(cc, a->n_slots - 1);
        while (a->slots[k])
            k = (k + 1) & (a->n_slots - 1);
        a->slots[k] = (uint32_t)i + 1;
    }
    return i;
}

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

timeprof_row *
timeprof_flat(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, uint32_t cap,
              size_t *n_rows, uint64_t *n_samples)
{
    timeprof_acc a = { 0 };
    uint64_t counted = 0;
    for (size_t i = timeprof_first_from(tp, from_ns);
         i < tp->n_samples && tp->samples[i].time_ns <= to_ns; i++) {
        const timeprof_sample *s = &tp->samples[i];
        if (cap != TIMEPROF_ANY_CAP && s->cap != cap)
            continue;
        counted++;
        size_t inner = timeprof_row_of(&a, s->depth ? tp->ids[s->first] : TIMEPROF_MAIN);
        a.rows[inner].individual++;     /* after the call: it may move the rows */
        /* MAIN is every stack's root; the others once per sample, however often a
         * recursion repeats them. */
        size_t r = timeprof_row_of(&a, TIMEPROF_MAIN);
        a.rows[r].inherited++;
        a.stamp[r] = i + 1;
        for (uint32_t k = 0; k < s->depth; k++) {
            r = timeprof_row_of(&a, tp->ids[s->first + k]);
            if (a.stamp[r] != i + 1) {
                a.stamp[r] = i + 1;
                a.rows[r].inherited++;
            }
        }
    }
    /* MAIN only as a cost centre of its own when some sample was in it. */
    size_t out = 0;
    for (size_t i = 0; i < a.n_rows; i++)
        if (a.rows[i].cc != TIMEPROF_MAIN || a.rows[i].individual)
            a.rows[out++] = a.rows[i];
    if (out)
        qsort(a.rows, out, sizeof *a.rows, timeprof_row_cmp);
    x_free(a.slots);
    x_free(a.stamp);
    *n_rows = out;
    *n_samples = counted;
    return a.rows ? a.rows : xmalloc(sizeof(timeprof_row));    /* caller frees */
}

size_t
timeprof_bytes(const timeprof *tp)
{
    return sizeof *tp + tp->cap_samples * sizeof *tp->samples + tp->cap_ids * sizeof *tp->ids +
           (tp->rank ? tp->n_samples * sizeof *tp->rank : 0);
}

bool
timeprof_check(const timeprof *tp, char *why, size_t why_len)
{
    for (size_t i = 0; i < tp->n_samples; i++) {
        const timeprof_sample *s = &tp->samples[i];
        if (i && s->time_ns < tp->samples[i - 1].time_ns) {
            snprintf(why, why_len, "sample %zu before the one before it", i);
            return false;
        }
        if (s->depth > 255 || s->first + s->depth > tp->n_ids) {
            snprintf(why, why_len, "sample %zu's stack runs past the ids", i);
            return false;
        }
    }
    return true;
}
