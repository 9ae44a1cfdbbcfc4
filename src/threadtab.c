/* threadtab: threads in pages of 64 consecutive ids. A page holds a presence bitmap and,
 * per present thread in bit order, a 7-byte slot (creation time as a delta from the
 * page's base, creating cap, saturating wake-up and migration counts); label offsets
 * only for labelled threads; a thread whose values do not fit its slot keeps them in a
 * side table. Pages are found through a hash of page numbers (a page per 64 ids, so
 * the hash and its rebuilds are small); nothing is sorted but the page order. */
#include "threadtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define TT_PAGE_BITS 6
#define TT_PAGE 64u
#define TT_NO_CAP 0xffffu
#define TT_NO_DELTA INT32_MIN       /* slot: no creation seen */
#define TT_SAT 0xffu                /* slot counters saturate here: then the side table */
#define TT_MIN_SLOTS 16u

/* A thread's inline record: bytes only, so 7 bytes with no padding. */
typedef struct tt_slot {
    uint8_t delta[4];           /* create_ns - page base (int32, little-endian), or
                                 * TT_NO_DELTA */
    uint8_t cap;                /* creating cap (< TT_SAT) */
    uint8_t wake, mig;          /* counts (< TT_SAT) */
} tt_slot;

static inline int32_t
tt_delta(const tt_slot *s)
{
    uint32_t u = (uint32_t)s->delta[0] | (uint32_t)s->delta[1] << 8 |
                 (uint32_t)s->delta[2] << 16 | (uint32_t)s->delta[3] << 24;
    return (int32_t)u;
}

static inline void
tt_set_delta(tt_slot *s, int32_t d)
{
    uint32_t u = (uint32_t)d;
    for (int i = 0; i < 4; i++)
        s->delta[i] = (uint8_t)(u >> (8 * i));
}

/* A thread whose creation or counts do not fit a slot: everything but the label. */
typedef struct tt_side {
    uint32_t tid;
    uint16_t create_cap;
    uint64_t create_ns;
    uint32_t n_migrations, n_wakeups;
} tt_side;

typedef struct tt_page {
    uint64_t present;           /* bit b: thread page_no * 64 + b is in the table */
    uint64_t labelled;          /* bit b: labels[] holds its label offset */
    uint64_t extra;             /* bit b: its creation and counts are in the side table */
    uint64_t base_ns;           /* slots' deltas are from this (the first creation seen) */
    uint32_t page_no;
    uint32_t rank;              /* threads in pages of lower number (valid when sealed) */
    uint8_t n_slots_alloc, n_labels_alloc;
    bool has_base;
    tt_slot *slots;             /* owned; popcount(present) used, in bit order */
    uint64_t *labels;           /* owned; popcount(labelled) used, in bit order */
} tt_page;

/* Open-addressing hash entry: key and 1 + index; idx1 == 0 is empty. */
typedef struct tt_hslot {
    uint32_t key;
    uint32_t idx1;
} tt_hslot;

typedef struct tt_hash {
    tt_hslot *v;                /* owned; a power of two, load <= 1/2 */
    size_t n_slots, n_used;
} tt_hash;

struct threadtab {
    tt_page *pages;             /* owned; arrival order */
    size_t n_pages, cap_pages;
    uint32_t *order;            /* owned; page indices by page number; NULL: arrival
                                 * order is ascending */
    tt_hash page_hash;          /* page_no -> page */
    tt_side *side;              /* owned */
    size_t n_side, cap_side;
    tt_hash side_hash;          /* tid -> side record */
    size_t n_threads;
    bool sealed;                /* ranks and order are up to date */
    uint32_t last_idx1;         /* 1 + the page tt_page_get found last (0: none): a
                                 * walk meets the same page again and again */
};

static const char *const threadtab_class_names[THREADTAB_N_STOP_CLASSES] = {
    [THREADTAB_STOP_HEAP_OVERFLOW] = "heap",
    [THREADTAB_STOP_STACK_OVERFLOW] = "stack",
    [THREADTAB_STOP_YIELD] = "yield",
    [THREADTAB_STOP_BLACKHOLE] = "blackhole",
    [THREADTAB_STOP_MVAR] = "mvar",
    [THREADTAB_STOP_STM] = "stm",
    [THREADTAB_STOP_IO] = "io",
    [THREADTAB_STOP_FOREIGN] = "foreign",
    [THREADTAB_STOP_THROWTO] = "throwto",
    [THREADTAB_STOP_BLOCKED] = "blocked",
    [THREADTAB_STOP_FINISHED] = "finished",
    [THREADTAB_STOP_OTHER] = "other",
};

enum threadtab_stop_class
threadtab_stop_class(uint16_t status)
{
    switch (status) {
    case 1: return THREADTAB_STOP_HEAP_OVERFLOW;
    case 2: return THREADTAB_STOP_STACK_OVERFLOW;
    case 3: return THREADTAB_STOP_YIELD;
    case 4: return THREADTAB_STOP_BLOCKED;
    case 5: return THREADTAB_STOP_FINISHED;
    case 6: case 16: case 17: return THREADTAB_STOP_FOREIGN;
    case 7: case 20: return THREADTAB_STOP_MVAR;
    case 8: return THREADTAB_STOP_BLACKHOLE;
    case 9: case 10: case 11: case 13: return THREADTAB_STOP_IO;
    case 12: return THREADTAB_STOP_STM;
    case 18: return THREADTAB_STOP_THROWTO;
    default: return THREADTAB_STOP_OTHER;
    }
}

const char *
threadtab_stop_class_name(enum threadtab_stop_class c)
{
    if ((unsigned)c >= THREADTAB_N_STOP_CLASSES)
        return "?";
    return threadtab_class_names[c];
}

/* --- the two hashes -------------------------------------------------------------------- */

/* Keys are untrusted and often consecutive: mix all bits (murmur3 finalizer). */
static inline size_t
tt_mix(uint32_t k)
{
    k ^= k >> 16;
    k *= 0x85ebca6bu;
    k ^= k >> 13;
    k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
}

/* The entry holding `key`, or the empty entry where it would go. */
static tt_hslot *
tt_hash_probe(const tt_hash *h, uint32_t key)
{
    size_t mask = h->n_slots - 1;
    for (size_t i = tt_mix(key) & mask;; i = (i + 1) & mask) {
        tt_hslot *s = &h->v[i];
        if (s->idx1 == 0 || s->key == key)
            return s;
    }
}

static void
tt_hash_init(tt_hash *h)
{
    h->n_slots = TT_MIN_SLOTS;
    h->n_used = 0;
    h->v = xcalloc(h->n_slots, sizeof *h->v);          /* owned by the table */
}

/* Insert a key known to be absent. Doubles (rehashing the old entries) when half full. */
static void
tt_hash_put(tt_hash *h, uint32_t key, uint32_t idx1)
{
    if (2 * (h->n_used + 1) > h->n_slots) {
        tt_hslot *old = h->v;
        size_t n_old = h->n_slots;
        h->n_slots *= 2;
        h->v = xcalloc(h->n_slots, sizeof *h->v);      /* owned by the table */
        for (size_t i = 0; i < n_old; i++)
            if (old[i].idx1)
                *tt_hash_probe(h, old[i].key) = old[i];
        x_free(old);
    }
    tt_hslot *s = tt_hash_probe(h, key);
    s->key = key;
    s->idx1 = idx1;
    h->n_used++;
}

/* --- pages ----------------------------------------------------------------------------- */

/* Bits set in v, without relying on a popcount instruction (builds target plain
 * x86-64, where __builtin_popcountll is a libgcc call). */
static inline unsigned
tt_popcount(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ull);
    v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((v * 0x0101010101010101ull) >> 56);
}

static inline uint64_t
tt_below(unsigned bit)
{
    return bit ? ~0ull >> (64 - bit) : 0;
}

static inline unsigned
tt_pos(uint64_t bits, unsigned bit)
{
    return tt_popcount(bits & tt_below(bit));
}

/* The k-th page by page number (when sealed). */
static inline const tt_page *
tt_page_at(const threadtab *tt, size_t k)
{
    return &tt->pages[tt->order ? tt->order[k] : k];
}

/* The page of page number `pn`, or NULL. */
static inline tt_page *
tt_page_find(const threadtab *tt, uint32_t pn)
{
    uint32_t idx1 = tt_hash_probe(&tt->page_hash, pn)->idx1;
    return idx1 ? &tt->pages[idx1 - 1] : NULL;
}

static tt_page *
tt_page_get(threadtab *tt, uint32_t pn)
{
    if (tt->last_idx1 && tt->pages[tt->last_idx1 - 1].page_no == pn)
        return &tt->pages[tt->last_idx1 - 1];
    tt_page *p = tt_page_find(tt, pn);
    if (p) {
        tt->last_idx1 = (uint32_t)(p - tt->pages) + 1;
        return p;
    }
    if (tt->n_pages == tt->cap_pages) {
        tt->cap_pages = tt->cap_pages ? 2 * tt->cap_pages : 16;
        tt->pages = xreallocarray(tt->pages, tt->cap_pages, sizeof *tt->pages);
    }
    size_t last = tt->n_pages ? (tt->order ? tt->order[tt->n_pages - 1] : tt->n_pages - 1)
                              : 0;
    if (tt->n_pages && tt->pages[last].page_no > pn)
        tt->sealed = false;     /* no longer in ascending order */
    if (tt->order) {            /* keep one entry per page; seal sorts it again */
        tt->order = xreallocarray(tt->order, tt->n_pages + 1, sizeof *tt->order);
        tt->order[tt->n_pages] = (uint32_t)tt->n_pages;
    }
    p = &tt->pages[tt->n_pages++];
    memset(p, 0, sizeof *p);
    p->page_no = pn;
    p->rank = (uint32_t)tt->n_threads;
    tt_hash_put(&tt->page_hash, pn, (uint32_t)tt->n_pages);
    tt->last_idx1 = (uint32_t)tt->n_pages;
    return p;
}

/* Make room for one more entry at `pos` of an array of `used` entries of `size` bytes
 * with capacity *alloc (at most 64; grown by doubling up to 8, then 8 at a time: a
 * parallel build's tables hold about half of each page's threads each, and doubling
 * past that left a quarter of their slots empty until the seal). */
static void *
tt_insert_at(void *v, uint8_t *alloc, unsigned used, unsigned pos, size_t size)
{
    if (used == *alloc) {
        *alloc = (uint8_t)(*alloc >= 8 ? *alloc + 8 : *alloc ? 2 * *alloc : 2);
        v = xreallocarray(v, *alloc, size);             /* owned by the page */
    }
    char *b = v;
    memmove(b + (pos + 1) * size, b + pos * size, (used - pos) * size);
    return v;
}

/* tt_page_get, trying after the table's last page the one the caller's near slot for
 * pn remembers (a page keeps its place in pages while the table lives; its number says
 * whether the slot is still this table's page pn) before the hash, and remembering the
 * page found there. The last page first: ids that come in order (a server's threads
 * made one after another) stay on it and never read a slot. */
static inline tt_page *
tt_page_get_near(threadtab *tt, uint32_t pn, threadtab_near *near)
{
    if (tt->last_idx1 && tt->pages[tt->last_idx1 - 1].page_no == pn)
        return &tt->pages[tt->last_idx1 - 1];
    uint32_t *slot = &near->page_idx1[pn % THREADTAB_NEAR];
    uint32_t i1 = *slot;
    if (i1 && i1 <= tt->n_pages && tt->pages[i1 - 1].page_no == pn) {
        tt->last_idx1 = i1;
        return &tt->pages[i1 - 1];
    }
    tt_page *p = tt_page_get(tt, pn);
    *slot = (uint32_t)(p - tt->pages) + 1;
    return p;
}

static tt_page *tt_add_to(threadtab *tt, tt_page *p, uint32_t tid);

/* The page of `tid`, with the thread added if new. */
static tt_page *
tt_add(threadtab *tt, uint32_t tid)
{
    return tt_add_to(tt, tt_page_get(tt, tid >> TT_PAGE_BITS), tid);
}

/* The same, the page found through the caller's near slots. */
static inline tt_page *
tt_add_near(threadtab *tt, uint32_t tid, threadtab_near *near)
{
    return tt_add_to(tt, tt_page_get_near(tt, tid >> TT_PAGE_BITS, near), tid);
}

/* tt_add with tid's page p. */
static tt_page *
tt_add_to(threadtab *tt, tt_page *p, uint32_t tid)
{
    unsigned bit = tid & (TT_PAGE - 1);
    if (p->present >> bit & 1)
        return p;
    unsigned used = tt_popcount(p->present), pos = tt_pos(p->present, bit);
    p->slots = tt_insert_at(p->slots, &p->n_slots_alloc, used, pos, sizeof *p->slots);
    p->slots[pos] = (tt_slot){ .cap = 0 };
    tt_set_delta(&p->slots[pos], TT_NO_DELTA);
    p->present |= 1ull << bit;
    tt->n_threads++;
    /* Ranks stay valid only when the thread went to the highest page. */
    if (p != tt_page_at(tt, tt->n_pages - 1))
        tt->sealed = false;
    return p;
}

static tt_side *
tt_side_find(const threadtab *tt, uint32_t tid)
{
    uint32_t idx1 = tt_hash_probe(&tt->side_hash, tid)->idx1;
    return idx1 ? &tt->side[idx1 - 1] : NULL;
}

/* The side record of `tid` (in page p, present), moving its slot's values there first
 * if it has none. */
static tt_side *
tt_side_get(threadtab *tt, tt_page *p, uint32_t tid)
{
    unsigned bit = tid & (TT_PAGE - 1);
    if (p->extra >> bit & 1)
        return tt_side_find(tt, tid);
    const tt_slot *s = &p->slots[tt_pos(p->present, bit)];
    if (tt->n_side == tt->cap_side) {
        tt->cap_side = tt->cap_side ? 2 * tt->cap_side : 16;
        tt->side = xreallocarray(tt->side, tt->cap_side, sizeof *tt->side);
    }
    tt_side *d = &tt->side[tt->n_side++];
    *d = (tt_side){
        .tid = tid,
        .create_cap = tt_delta(s) == TT_NO_DELTA ? TT_NO_CAP : s->cap,
        .create_ns = tt_delta(s) == TT_NO_DELTA ? THREADTAB_NO_TIME
                                             : p->base_ns + (uint64_t)(int64_t)tt_delta(s),
        .n_migrations = s->mig,
        .n_wakeups = s->wake,
    };
    tt_hash_put(&tt->side_hash, tid, (uint32_t)tt->n_side);
    p->extra |= 1ull << bit;
    return d;
}

/* Assemble thread `bit` of page p. */
static void
tt_get(const threadtab *tt, const tt_page *p, unsigned bit, threadtab_thread *out)
{
    uint32_t tid = p->page_no << TT_PAGE_BITS | bit;
    *out = (threadtab_thread){ .tid = tid };
    if (p->extra >> bit & 1) {
        const tt_side *d = tt_side_find(tt, tid);
        out->create_cap = d->create_cap;
        out->create_ns = d->create_ns;
        out->n_migrations = d->n_migrations;
        out->n_wakeups = d->n_wakeups;
    } else {
        const tt_slot *s = &p->slots[tt_pos(p->present, bit)];
        bool created = tt_delta(s) != TT_NO_DELTA;
        out->create_cap = created ? s->cap : TT_NO_CAP;
        out->create_ns = created ? p->base_ns + (uint64_t)(int64_t)tt_delta(s)
                                 : THREADTAB_NO_TIME;
        out->n_migrations = s->mig;
        out->n_wakeups = s->wake;
    }
    if (p->labelled >> bit & 1)
        out->label_offset = p->labels[tt_pos(p->labelled, bit)];
}

static void tt_count_in(threadtab *tt, tt_page *p, uint32_t tid, uint32_t n_mig,
                        uint32_t n_wake);

/* Add counts to a thread. */
static void
tt_count(threadtab *tt, uint32_t tid, uint32_t n_mig, uint32_t n_wake)
{
    tt_count_in(tt, tt_add(tt, tid), tid, n_mig, n_wake);
}

/* tt_count of a thread present in page p. */
static void
tt_count_in(threadtab *tt, tt_page *p, uint32_t tid, uint32_t n_mig, uint32_t n_wake)
{
    unsigned bit = tid & (TT_PAGE - 1);
    if (!(p->extra >> bit & 1)) {
        tt_slot *s = &p->slots[tt_pos(p->present, bit)];
        if ((uint64_t)s->mig + n_mig < TT_SAT && (uint64_t)s->wake + n_wake < TT_SAT) {
            s->mig = (uint8_t)(s->mig + n_mig);
            s->wake = (uint8_t)(s->wake + n_wake);
            return;
        }
    }
    tt_side *d = tt_side_get(tt, p, tid);
    d->n_migrations += n_mig;
    d->n_wakeups += n_wake;
}

static void
tt_set_label(threadtab *tt, uint32_t tid, uint64_t label_offset, bool only_later)
{
    tt_page *p = tt_add(tt, tid);
    unsigned bit = tid & (TT_PAGE - 1);
    unsigned pos = tt_pos(p->labelled, bit);
    if (p->labelled >> bit & 1) {
        if (!only_later || label_offset > p->labels[pos])
            p->labels[pos] = label_offset;
        return;
    }
    if (label_offset == 0)
        return;                 /* 0 means "no label" */
    unsigned used = tt_popcount(p->labelled);
    p->labels = tt_insert_at(p->labels, &p->n_labels_alloc, used, pos, sizeof *p->labels);
    p->labels[pos] = label_offset;
    p->labelled |= 1ull << bit;
}

/* --- public ---------------------------------------------------------------------------- */

threadtab *
threadtab_new(void)
{
    threadtab *tt = xcalloc(1, sizeof *tt);             /* caller frees: threadtab_free */
    tt_hash_init(&tt->page_hash);
    tt_hash_init(&tt->side_hash);
    tt->sealed = true;                                  /* empty is sorted */
    return tt;
}

void
threadtab_free(threadtab *tt)
{
    if (!tt)
        return;
    for (size_t i = 0; i < tt->n_pages; i++) {
        x_free(tt->pages[i].slots);
        x_free(tt->pages[i].labels);
    }
    x_free(tt->pages);
    x_free(tt->order);
    x_free(tt->page_hash.v);
    x_free(tt->side);
    x_free(tt->side_hash.v);
    x_free(tt);
}

void
threadtab_add(threadtab *tt, uint32_t tid)
{
    tt_add(tt, tid);
}

static void tt_created_in(threadtab *tt, tt_page *p, uint32_t tid, uint64_t time_ns,
                          uint16_t cap);

/* Keeps the earliest creation: caps report in their own order, not globally sorted. */
void
threadtab_created(threadtab *tt, uint32_t tid, uint64_t time_ns, uint16_t cap)
{
    tt_created_in(tt, tt_add(tt, tid), tid, time_ns, cap);
}

/* threadtab_created of a thread present in page p. */
static void
tt_created_in(threadtab *tt, tt_page *p, uint32_t tid, uint64_t time_ns, uint16_t cap)
{
    unsigned bit = tid & (TT_PAGE - 1);
    if (!(p->extra >> bit & 1)) {
        tt_slot *s = &p->slots[tt_pos(p->present, bit)];
        if (tt_delta(s) != TT_NO_DELTA && time_ns >= p->base_ns + (uint64_t)(int64_t)tt_delta(s))
            return;
        if (!p->has_base) {
            p->base_ns = time_ns;
            p->has_base = true;
        }
        int64_t d = (int64_t)(time_ns - p->base_ns);
        bool fits = time_ns - p->base_ns + 0x80000000ull < 0x100000000ull &&
                    d != TT_NO_DELTA && cap < TT_SAT;
        if (fits) {
            tt_set_delta(s, (int32_t)d);
            s->cap = (uint8_t)cap;
            return;
        }
    }
    tt_side *d = tt_side_get(tt, p, tid);
    if (d->create_ns == THREADTAB_NO_TIME || time_ns < d->create_ns) {
        d->create_ns = time_ns;
        d->create_cap = cap;
    }
}

void
threadtab_migrated(threadtab *tt, uint32_t tid)
{
    tt_count(tt, tid, 1, 0);
}

void
threadtab_woken(threadtab *tt, uint32_t tid)
{
    tt_count(tt, tid, 0, 1);
}

void
threadtab_add_near(threadtab *tt, uint32_t tid, threadtab_near *near)
{
    tt_add_near(tt, tid, near);
}

void
threadtab_created_near(threadtab *tt, uint32_t tid, uint64_t time_ns, uint16_t cap,
                       threadtab_near *near)
{
    tt_created_in(tt, tt_add_near(tt, tid, near), tid, time_ns, cap);
}

void
threadtab_migrated_near(threadtab *tt, uint32_t tid, threadtab_near *near)
{
    tt_count_in(tt, tt_add_near(tt, tid, near), tid, 1, 0);
}

void
threadtab_woken_near(threadtab *tt, uint32_t tid, threadtab_near *near)
{
    tt_count_in(tt, tt_add_near(tt, tid, near), tid, 0, 1);
}

void
threadtab_labelled(threadtab *tt, uint32_t tid, uint64_t label_offset)
{
    tt_set_label(tt, tid, label_offset, false);
}

/* Add page p of src's threads into dst. */
static void
tt_merge_page(threadtab *dst, const threadtab *src, const tt_page *p)
{
    for (uint64_t left = p->present; left; left &= left - 1) {
        threadtab_thread t;
        tt_get(src, p, (unsigned)__builtin_ctzll(left), &t);
        threadtab_add(dst, t.tid);
        if (t.create_ns != THREADTAB_NO_TIME)
            threadtab_created(dst, t.tid, t.create_ns, t.create_cap);
        if (t.n_migrations || t.n_wakeups)
            tt_count(dst, t.tid, t.n_migrations, t.n_wakeups);
        if (t.label_offset)
            tt_set_label(dst, t.tid, t.label_offset, true);
    }
}

void
threadtab_merge(threadtab *dst, const threadtab *src)
{
    for (size_t i = 0; i < src->n_pages; i++)
        tt_merge_page(dst, src, &src->pages[i]);
}

void
threadtab_merge_take(threadtab *dst, threadtab *src)
{
    for (size_t i = 0; i < src->n_pages; i++) {
        tt_page *p = &src->pages[i];
        tt_merge_page(dst, src, p);
        x_free(p->slots);
        x_free(p->labels);
        p->slots = NULL;
        p->labels = NULL;
    }
    x_free(src->pages);
    x_free(src->order);
    x_free(src->page_hash.v);
    x_free(src->side);
    x_free(src->side_hash.v);
    memset(src, 0, sizeof *src);
    tt_hash_init(&src->page_hash);
    tt_hash_init(&src->side_hash);
    src->sealed = true;
}

/* Merge sort of page indices v[0..n) by page number (qsort has no context argument in
 * C11); tmp has n entries. Pages are few: one per 64 ids. */
static void
tt_sort_pages(uint32_t *v, uint32_t *tmp, size_t n, const tt_page *pages)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    tt_sort_pages(v, tmp, h, pages);
    tt_sort_pages(v + h, tmp, n - h, pages);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        tmp[k++] = pages[v[j]].page_no < pages[v[i]].page_no ? v[j++] : v[i++];
    while (i < h)
        tmp[k++] = v[i++];
    memcpy(v, tmp, k * sizeof *v);
}

void
threadtab_seal(threadtab *tt)
{
    x_free(tt->order);
    tt->order = NULL;
    bool ascending = true;
    for (size_t i = 1; i < tt->n_pages && ascending; i++)
        ascending = tt->pages[i - 1].page_no < tt->pages[i].page_no;
    if (!ascending) {
        tt->order = xmalloc(tt->n_pages * sizeof *tt->order);  /* owned by tt */
        uint32_t *tmp = xmalloc(tt->n_pages * sizeof *tmp);    /* freed below */
        for (size_t i = 0; i < tt->n_pages; i++)
            tt->order[i] = (uint32_t)i;
        tt_sort_pages(tt->order, tmp, tt->n_pages, tt->pages);
        x_free(tmp);
    }
    size_t rank = 0;
    for (size_t k = 0; k < tt->n_pages; k++) {
        tt_page *p = (tt_page *)tt_page_at(tt, k);
        p->rank = (uint32_t)rank;
        unsigned used = tt_popcount(p->present);
        unsigned n_labels = tt_popcount(p->labelled);
        rank += used;
        /* Spare room back, except in the highest page, where a growing log adds. */
        if (k + 1 < tt->n_pages && used < p->n_slots_alloc) {
            p->slots = xreallocarray(p->slots, used, sizeof *p->slots);
            p->n_slots_alloc = (uint8_t)used;
        }
        if (k + 1 < tt->n_pages && n_labels < p->n_labels_alloc) {
            p->labels = n_labels ? xreallocarray(p->labels, n_labels, sizeof *p->labels)
                                 : (x_free(p->labels), NULL);
            p->n_labels_alloc = (uint8_t)n_labels;
        }
    }
    if (tt->cap_pages > tt->n_pages && tt->n_pages) {
        tt->pages = xreallocarray(tt->pages, tt->n_pages, sizeof *tt->pages);
        tt->cap_pages = tt->n_pages;
    }
    if (tt->cap_side > tt->n_side && tt->n_side) {
        tt->side = xreallocarray(tt->side, tt->n_side, sizeof *tt->side);
        tt->cap_side = tt->n_side;
    }
    tt->sealed = true;
}

size_t
threadtab_count(const threadtab *tt)
{
    return tt->n_threads;
}

/* Where thread i (< count, sealed) is: its page's position in page order and its bit. */
static size_t
tt_locate(const threadtab *tt, size_t i, unsigned *bit)
{
    /* The last page (in order) whose rank is <= i. */
    size_t lo = 0, hi = tt->n_pages;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (tt_page_at(tt, mid)->rank <= i)
            lo = mid;
        else
            hi = mid;
    }
    const tt_page *p = tt_page_at(tt, lo);
    uint64_t left = p->present;
    for (size_t k = i - p->rank; k > 0; k--)
        left &= left - 1;
    *bit = (unsigned)__builtin_ctzll(left);
    return lo;
}

bool
threadtab_at(const threadtab *tt, size_t i, threadtab_thread *out)
{
    if (i >= tt->n_threads)
        return false;
    unsigned bit;
    size_t k = tt_locate(tt, i, &bit);
    tt_get(tt, tt_page_at(tt, k), bit, out);
    return true;
}

void
threadtab_iter_at(const threadtab *tt, size_t i, bool labelled_only, threadtab_iter *it)
{
    it->started = true;
    if (i >= tt->n_threads) {
        it->page = tt->n_pages;
        it->left = 0;
        return;
    }
    unsigned bit;
    it->page = tt_locate(tt, i, &bit);
    const tt_page *p = tt_page_at(tt, it->page);
    it->left = (labelled_only ? p->labelled : p->present) & ~tt_below(bit);
}

bool
threadtab_next(const threadtab *tt, threadtab_iter *it, bool labelled_only,
               threadtab_thread *out, size_t *index)
{
    for (;;) {
        if (!it->started) {
            it->started = true;
            it->page = 0;
            it->left = tt->n_pages ? (labelled_only ? tt_page_at(tt, 0)->labelled
                                                    : tt_page_at(tt, 0)->present)
                                   : 0;
        }
        if (it->page >= tt->n_pages)
            return false;
        const tt_page *p = tt_page_at(tt, it->page);
        if (it->left) {
            unsigned bit = (unsigned)__builtin_ctzll(it->left);
            it->left &= it->left - 1;
            tt_get(tt, p, bit, out);
            if (index)
                *index = (size_t)p->rank + tt_pos(p->present, bit);
            return true;
        }
        if (++it->page < tt->n_pages) {
            const tt_page *q = tt_page_at(tt, it->page);
            it->left = labelled_only ? q->labelled : q->present;
        }
    }
}

bool
threadtab_find(const threadtab *tt, uint32_t tid, threadtab_thread *out)
{
    const tt_page *p = tt_page_find(tt, tid >> TT_PAGE_BITS);
    unsigned bit = tid & (TT_PAGE - 1);
    if (!p || !(p->present >> bit & 1))
        return false;
    if (out)
        tt_get(tt, p, bit, out);
    return true;
}

size_t
threadtab_index_of(const threadtab *tt, uint32_t tid)
{
    const tt_page *p = tt_page_find(tt, tid >> TT_PAGE_BITS);
    unsigned bit = tid & (TT_PAGE - 1);
    if (!p || !(p->present >> bit & 1))
        return SIZE_MAX;
    return (size_t)p->rank + tt_pos(p->present, bit);
}

size_t
threadtab_index_of_hint(const threadtab *tt, uint32_t tid, threadtab_hint *hint)
{
    uint32_t pn = tid >> TT_PAGE_BITS;
    if (hint->page_no1 != pn + 1) {
        const tt_page *p = tt_page_find(tt, pn);
        *hint = (threadtab_hint){ pn + 1, p ? p->rank : 0, p ? p->present : 0 };
    }
    unsigned bit = tid & (TT_PAGE - 1);
    if (!(hint->present >> bit & 1))
        return SIZE_MAX;
    return (size_t)hint->rank + tt_pos(hint->present, bit);
}

size_t
threadtab_bytes(const threadtab *tt)
{
    size_t n = sizeof *tt + tt->cap_pages * sizeof *tt->pages +
               (tt->order ? tt->n_pages * sizeof *tt->order : 0) +
               (tt->page_hash.n_slots + tt->side_hash.n_slots) * sizeof(tt_hslot) +
               tt->cap_side * sizeof *tt->side;
    for (size_t i = 0; i < tt->n_pages; i++)
        n += tt->pages[i].n_slots_alloc * sizeof(tt_slot) +
             tt->pages[i].n_labels_alloc * sizeof(uint64_t);
    return n;
}

static bool
threadtab_fail(char *why, size_t why_len, const char *msg, uint32_t tid)
{
    if (why && why_len)
        snprintf(why, why_len, "%s (tid %u)", msg, tid);
    return false;
}

static bool
tt_hash_ok(const tt_hash *h, size_t want_used)
{
    if (h->n_slots < TT_MIN_SLOTS || (h->n_slots & (h->n_slots - 1)) != 0 ||
        2 * h->n_used > h->n_slots || h->n_used != want_used)
        return false;
    size_t used = 0;
    for (size_t i = 0; i < h->n_slots; i++)
        used += h->v[i].idx1 != 0;
    return used == want_used;
}

bool
threadtab_check(const threadtab *tt, char *why, size_t why_len)
{
    if (!tt_hash_ok(&tt->page_hash, tt->n_pages))
        return threadtab_fail(why, why_len, "page hash is not sound", 0);
    if (!tt_hash_ok(&tt->side_hash, tt->n_side))
        return threadtab_fail(why, why_len, "side hash is not sound", 0);
    size_t n = 0, n_extra = 0;
    for (size_t i = 0; i < tt->n_pages; i++) {
        const tt_page *p = &tt->pages[i];
        uint32_t tid0 = p->page_no << TT_PAGE_BITS;
        if (tt_page_find(tt, p->page_no) != p)
            return threadtab_fail(why, why_len, "page not found through the hash", tid0);
        if (!p->present || tt_popcount(p->present) > p->n_slots_alloc)
            return threadtab_fail(why, why_len, "page slots do not cover its threads", tid0);
        if (tt_popcount(p->labelled) > p->n_labels_alloc ||
            (p->labelled & ~p->present) || (p->extra & ~p->present))
            return threadtab_fail(why, why_len, "page bitmaps disagree", tid0);
        for (uint64_t left = p->present; left; left &= left - 1) {
            unsigned bit = (unsigned)__builtin_ctzll(left);
            const tt_slot *s = &p->slots[tt_pos(p->present, bit)];
            if (!(p->extra >> bit & 1) &&
                (s->mig >= TT_SAT || s->wake >= TT_SAT ||
                 (tt_delta(s) != TT_NO_DELTA && (!p->has_base || s->cap >= TT_SAT))))
                return threadtab_fail(why, why_len, "slot holds a value it cannot", tid0 | bit);
            if ((p->labelled >> bit & 1) && p->labels[tt_pos(p->labelled, bit)] == 0)
                return threadtab_fail(why, why_len, "zero label offset", tid0 | bit);
            if (p->extra >> bit & 1) {
                const tt_side *d = tt_side_find(tt, tid0 | bit);
                if (!d || d->tid != (tid0 | bit))
                    return threadtab_fail(why, why_len, "side record missing", tid0 | bit);
            }
        }
        n += (size_t)tt_popcount(p->present);
        n_extra += (size_t)tt_popcount(p->extra);
    }
    if (n != tt->n_threads)
        return threadtab_fail(why, why_len, "thread count differs from the pages", 0);
    if (n_extra != tt->n_side)
        return threadtab_fail(why, why_len, "side records differ from the pages", 0);
    if (tt->sealed) {
        size_t rank = 0;
        for (size_t k = 0; k < tt->n_pages; k++) {
            const tt_page *p = tt_page_at(tt, k);
            if (k > 0 && tt_page_at(tt, k - 1)->page_no >= p->page_no)
                return threadtab_fail(why, why_len, "sealed pages not in ascending order",
                                      p->page_no << TT_PAGE_BITS);
            if (p->rank != rank)
                return threadtab_fail(why, why_len, "page rank is stale",
                                      p->page_no << TT_PAGE_BITS);
            rank += (size_t)tt_popcount(p->present);
        }
    }
    return true;
}
