/* timeprof: time-profile samples (+RTS -p -l) and flat profiles over a time range (see
 * timeprof.h). Stacks live back to back in one id array. Sealing indexes, per cost
 * centre, the samples it is innermost in and those it is on the stack of (sorted sample
 * numbers), so that the profile of any range of all capabilities is two binary searches
 * a cost centre, at any zoom; one capability's profile walks its samples, its rows found
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
    /* By timeprof_seal, when the samples fit 32-bit numbers (else NULL: scans). */
    uint32_t *ccs;                      /* owned: the distinct ids, ascending, MAIN last */
    size_t n_ccs;
    size_t *ind_at, *inh_at;            /* owned: n_ccs + 1 offsets into ind, inh */
    uint32_t *ind, *inh;                /* owned: sample numbers per cost centre */
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
    x_free(tp->ccs);
    x_free(tp->ind_at);
    x_free(tp->inh_at);
    x_free(tp->ind);
    x_free(tp->inh);
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

/* An id -> dense number map (numbers in order of first sight), open addressing. */
typedef struct timeprof_map {
    uint32_t *keys;                     /* owned */
    uint32_t *vals;                     /* owned: 1 + dense number, 0 empty */
    size_t n_slots, n;
} timeprof_map;

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

/* The dense number of `key`, given the next one if new. */
static uint32_t
timeprof_map_get(timeprof_map *m, uint32_t key)
{
    if (2 * (m->n + 1) > m->n_slots)
        timeprof_map_grow(m);
    size_t k = timeprof_mix(key, m->n_slots - 1);
    for (; m->vals[k]; k = (k + 1) & (m->n_slots - 1))
        if (m->keys[k] == key)
            return m->vals[k] - 1;
    m->keys[k] = key;
    m->vals[k] = (uint32_t)++m->n;
    return m->vals[k] - 1;
}

static void
timeprof_map_free(timeprof_map *m)
{
    x_free(m->keys);
    x_free(m->vals);
}

typedef struct timeprof_keyed {
    uint32_t key, dense;
} timeprof_keyed;

static int
timeprof_keyed_cmp(const void *a, const void *b)
{
    const timeprof_keyed *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Per cost centre, the samples it is innermost in and on the stack of (once each); then
 * each sample's rank. Returns false (nothing built) when the samples do not fit 32-bit
 * numbers. */
static bool
timeprof_index_ccs(timeprof *tp)
{
    if (tp->n_samples >= UINT32_MAX)
        return false;
    /* Dense numbers for the ids, then renumbered in id order (MAIN, UINT32_MAX, last). */
    timeprof_map m = { 0 };
    uint32_t *dense = xmalloc((tp->n_ids + 1) * sizeof *dense);    /* freed below */
    for (size_t i = 0; i < tp->n_ids; i++)
        dense[i] = timeprof_map_get(&m, tp->ids[i]);
    uint32_t main_seen = timeprof_map_get(&m, TIMEPROF_MAIN);
    size_t k = m.n;
    timeprof_keyed *kd = xmalloc(k * sizeof *kd);                  /* freed below */
    for (size_t i = 0; i < m.n_slots; i++)
        if (m.vals[i])
            kd[m.vals[i] - 1] = (timeprof_keyed){ m.keys[i], m.vals[i] - 1 };
    timeprof_map_free(&m);
    qsort(kd, k, sizeof *kd, timeprof_keyed_cmp);
    uint32_t *renum = xmalloc(k * sizeof *renum);                  /* freed below */
    tp->ccs = xmalloc(k * sizeof *tp->ccs);                        /* owned by tp */
    tp->n_ccs = k;
    for (size_t c = 0; c < k; c++) {
        tp->ccs[c] = kd[c].key;
        renum[kd[c].dense] = (uint32_t)c;
    }
    x_free(kd);
    for (size_t i = 0; i < tp->n_ids; i++)
        dense[i] = renum[dense[i]];
    size_t main_k = renum[main_seen];
    x_free(renum);
    tp->ind_at = xcalloc(k + 1, sizeof *tp->ind_at);               /* owned by tp */
    tp->inh_at = xcalloc(k + 1, sizeof *tp->inh_at);               /* owned by tp */
    uint64_t *stamp = xcalloc(k, sizeof *stamp);                   /* freed below */
    /* Two passes: count, then fill (each list in sample order). */
    for (int pass = 0; pass < 2; pass++) {
        size_t *ind_pos = NULL, *inh_pos = NULL;
        if (pass == 1) {
            for (size_t c = 0; c < k; c++) {
                tp->ind_at[c + 1] += tp->ind_at[c];
                tp->inh_at[c + 1] += tp->inh_at[c];
            }
            tp->ind = xmalloc((tp->ind_at[k] + 1) * sizeof *tp->ind);   /* owned by tp */
            tp->inh = xmalloc((tp->inh_at[k] + 1) * sizeof *tp->inh);   /* owned by tp */
            ind_pos = xmalloc(k * sizeof *ind_pos);                     /* freed below */
            inh_pos = xmalloc(k * sizeof *inh_pos);                     /* freed below */
            memcpy(ind_pos, tp->ind_at, k * sizeof *ind_pos);
            memcpy(inh_pos, tp->inh_at, k * sizeof *inh_pos);
            memset(stamp, 0, k * sizeof *stamp);
        }
        for (size_t i = 0; i < tp->n_samples; i++) {
            const timeprof_sample *s = &tp->samples[i];
            size_t inner = s->depth ? dense[s->first] : main_k;
            if (pass == 0)
                tp->ind_at[inner + 1]++;
            else
                tp->ind[ind_pos[inner]++] = (uint32_t)i;
            for (uint32_t d = 0; d <= s->depth; d++) {
                size_t c = d < s->depth ? dense[s->first + d] : main_k;
                if (stamp[c] == i + 1)
                    continue;
                stamp[c] = i + 1;
                if (pass == 0)
                    tp->inh_at[c + 1]++;
                else
                    tp->inh[inh_pos[c]++] = (uint32_t)i;
            }
        }
        x_free(ind_pos);
        x_free(inh_pos);
    }
    x_free(stamp);
    /* Ranks: each cost centre's place in the whole log's profile. */
    size_t n_rows;
    uint64_t n_samples;
    timeprof_row *rows = timeprof_flat(tp, 0, UINT64_MAX, TIMEPROF_ANY_CAP, &n_rows,
                                       &n_samples);
    uint32_t *place = xmalloc(k * sizeof *place);                  /* freed below */
    for (size_t c = 0; c < k; c++)
        place[c] = UINT32_MAX;
    for (size_t r = 0; r < n_rows; r++) {
        const uint32_t *hit = bsearch(&rows[r].cc, tp->ccs, k, sizeof *tp->ccs,
                                      timeprof_u32_cmp);
        place[hit - tp->ccs] = (uint32_t)r;
    }
    x_free(tp->rank);
    tp->rank = xmalloc((tp->n_samples + 1) * sizeof *tp->rank);     /* owned by tp */
    for (size_t i = 0; i < tp->n_samples; i++) {
        const timeprof_sample *s = &tp->samples[i];
        tp->rank[i] = place[s->depth ? dense[s->first] : main_k];
    }
    x_free(place);
    x_free(rows);
    x_free(dense);
    return true;
}

void
timeprof_seal(timeprof *tp)
{
    /* Each capability writes its own buffer: samples meet in file order, not time
     * (one capability's are in order already). */
    bool sorted = true;
    for (size_t i = 1; i < tp->n_samples && sorted; i++)
        sorted = tp->samples[i - 1].time_ns <= tp->samples[i].time_ns;
    if (!sorted)
        radixsort_by_u64(tp->samples, tp->n_samples, sizeof *tp->samples,
                         offsetof(timeprof_sample, time_ns));
    /* Exact sizes from here on: the arrays stay as long as the index. */
    if (tp->n_samples) {
        tp->samples = xreallocarray(tp->samples, tp->n_samples, sizeof *tp->samples);
        tp->cap_samples = tp->n_samples;
    }
    if (tp->n_ids) {
        tp->ids = xreallocarray(tp->ids, tp->n_ids, sizeof *tp->ids);
        tp->cap_ids = tp->n_ids;
    }
    timeprof_map caps = { 0 };
    for (size_t i = 0; i < tp->n_samples; i++)
        timeprof_map_get(&caps, tp->samples[i].cap);
    tp->n_caps = caps.n;
    timeprof_map_free(&caps);
    if (!timeprof_index_ccs(tp))
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

static timeprof_row *timeprof_flat_scan(const timeprof *tp, uint64_t from_ns, uint64_t to_ns,
                                        uint32_t cap, size_t *n_rows, uint64_t *n_samples);

/* How many of the sorted sample numbers a[0 .. n) are in [lo, hi). */
static uint64_t
timeprof_count_in(const uint32_t *a, size_t n, size_t lo, size_t hi)
{
    size_t l = 0, h = n;
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (a[m] < lo)
            l = m + 1;
        else
            h = m;
    }
    size_t first = l;
    h = n;
    while (l < h) {
        size_t m = l + (h - l) / 2;
        if (a[m] < hi)
            l = m + 1;
        else
            h = m;
    }
    return l - first;
}

timeprof_row *
timeprof_flat(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, uint32_t cap,
              size_t *n_rows, uint64_t *n_samples)
{
    if (cap == TIMEPROF_ANY_CAP && tp->ccs) {
        /* Samples lo .. hi - 1: the range. */
        size_t lo = timeprof_first_from(tp, from_ns);
        size_t hi = to_ns == UINT64_MAX ? tp->n_samples : timeprof_first_from(tp, to_ns + 1);
        if (hi < lo)
            hi = lo;
        timeprof_row *rows = xmalloc((tp->n_ccs + 1) * sizeof *rows);   /* caller frees */
        size_t out = 0;
        for (size_t c = 0; c < tp->n_ccs && hi > lo; c++) {
            uint64_t ind = timeprof_count_in(tp->ind + tp->ind_at[c],
                                             tp->ind_at[c + 1] - tp->ind_at[c], lo, hi);
            uint64_t inh = timeprof_count_in(tp->inh + tp->inh_at[c],
                                             tp->inh_at[c + 1] - tp->inh_at[c], lo, hi);
            /* MAIN only as a cost centre of its own when some sample was in it. */
            if (tp->ccs[c] == TIMEPROF_MAIN ? ind > 0 : inh > 0)
                rows[out++] = (timeprof_row){ tp->ccs[c], ind, inh };
        }
        if (out)
            qsort(rows, out, sizeof *rows, timeprof_row_cmp);
        *n_rows = out;
        *n_samples = hi - lo;
        return rows;
    }
    return timeprof_flat_scan(tp, from_ns, to_ns, cap, n_rows, n_samples);
}

/* timeprof_flat by walking the range's samples (one capability, or no index). */
static timeprof_row *
timeprof_flat_scan(const timeprof *tp, uint64_t from_ns, uint64_t to_ns, uint32_t cap,
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
    size_t n = sizeof *tp + tp->cap_samples * sizeof *tp->samples +
               tp->cap_ids * sizeof *tp->ids + (tp->rank ? tp->n_samples * sizeof *tp->rank : 0);
    if (tp->ccs)
        n += tp->n_ccs * (sizeof *tp->ccs + 2 * sizeof *tp->ind_at) +
             (tp->ind_at[tp->n_ccs] + tp->inh_at[tp->n_ccs]) * sizeof *tp->ind;
    return n;
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
    /* The per-cost-centre index answers as a walk over the samples does. */
    uint64_t mid = tp->n_samples ? tp->samples[tp->n_samples / 2].time_ns : 0;
    const uint64_t ranges[3][2] = { { 0, UINT64_MAX }, { 0, mid }, { mid, UINT64_MAX } };
    bool ok = true;
    for (int r = 0; r < 3 && ok; r++) {
        size_t na, nb;
        uint64_t sa, sb;
        timeprof_row *a = timeprof_flat(tp, ranges[r][0], ranges[r][1], TIMEPROF_ANY_CAP,
                                        &na, &sa);
        timeprof_row *b = timeprof_flat_scan(tp, ranges[r][0], ranges[r][1],
                                             TIMEPROF_ANY_CAP, &nb, &sb);
        ok = na == nb && sa == sb;
        for (size_t k = 0; ok && k < na; k++)
            ok = a[k].cc == b[k].cc && a[k].individual == b[k].individual &&
                 a[k].inherited == b[k].inherited;
        if (!ok)
            snprintf(why, why_len, "range %d: the index's profile differs from a recount", r);
        x_free(a);
        x_free(b);
    }
    return ok;
}
