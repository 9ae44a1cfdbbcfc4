/* ticky: ticky-ticky counter definitions and samples (see ticky.h). Counters are found
 * by id through an open-addressing hash; texts live in one arena, turned into pointers
 * when sealed. */
#include "ticky.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "strbuf.h"
#include "xalloc.h"

#define TICKY_NO_TEXT SIZE_MAX

/* A counter while building: texts as arena offsets (the arena may still move). */
typedef struct ticky_raw {
    size_t kinds, name, json;           /* TICKY_NO_TEXT when absent */
    uint32_t def_seq;                   /* definition order, UINT32_MAX if never defined */
    uint32_t seen_seq;                  /* first appearance (definition or sample) */
    uint32_t last_sample;               /* 1 + the sample it last appeared in, 0: none */
} ticky_raw;

struct ticky {
    ticky_counter *counters;            /* owned */
    ticky_raw *raw;                     /* owned, parallel to counters */
    size_t n_counters, cap_counters;
    uint32_t *slots;                    /* owned: 1 + counter index, 0 empty; power of 2 */
    size_t n_slots;
    ticky_sample *samples;              /* owned */
    size_t n_samples, cap_samples;
    ticky_entry *entries;               /* owned */
    size_t n_entries, cap_entries;
    strbuf arena;                       /* owned: NUL-terminated texts back to back */
    uint32_t n_defs;
    bool saw_begin, saw_itbl, saw_json;
    bool sample_open;
};

ticky *
ticky_new(void)
{
    return xcalloc(1, sizeof(ticky));    /* caller frees with ticky_free */
}

void
ticky_free(ticky *t)
{
    if (!t)
        return;
    x_free(t->counters);
    x_free(t->raw);
    x_free(t->slots);
    x_free(t->samples);
    x_free(t->entries);
    strbuf_free(&t->arena);
    x_free(t);
}

static size_t
ticky_text(ticky *t, const uint8_t *p, size_t n)
{
    size_t at = t->arena.len;
    strbuf_append(&t->arena, p, n);
    strbuf_putc(&t->arena, '\0');
    return at;
}

static size_t
ticky_hash(uint64_t id, size_t mask)
{
    id ^= id >> 33;
    id *= 0xff51afd7ed558ccdull;
    id ^= id >> 33;
    return (size_t)id & mask;
}

static void
ticky_rehash(ticky *t)
{
    size_t n = t->n_slots ? t->n_slots * 2 : 64;
    x_free(t->slots);
    t->slots = xcalloc(n, sizeof *t->slots);    /* owned by t */
    t->n_slots = n;
    for (size_t i = 0; i < t->n_counters; i++) {
        size_t k = ticky_hash(t->counters[i].id, n - 1);
        while (t->slots[k])
            k = (k + 1) & (n - 1);
        t->slots[k] = (uint32_t)i + 1;
    }
}

/* The counter with this id, made (undefined) if new. */
static size_t
ticky_get(ticky *t, uint64_t id)
{
    if (t->n_slots) {
        size_t k = ticky_hash(id, t->n_slots - 1);
        for (; t->slots[k]; k = (k + 1) & (t->n_slots - 1))
            if (t->counters[t->slots[k] - 1].id == id)
                return t->slots[k] - 1;
    }
    xgrowarray((void **)&t->counters, &t->cap_counters, t->n_counters + 1, 16,
               sizeof *t->counters);
    t->raw = xreallocarray(t->raw, t->cap_counters, sizeof *t->raw);
    size_t i = t->n_counters++;
    memset(&t->counters[i], 0, sizeof t->counters[i]);
    t->counters[i].id = id;
    t->raw[i] = (ticky_raw){ TICKY_NO_TEXT, TICKY_NO_TEXT, TICKY_NO_TEXT, UINT32_MAX,
                             (uint32_t)i, 0 };
    if (2 * t->n_counters > t->n_slots)
        ticky_rehash(t);
    else {
        size_t k = ticky_hash(id, t->n_slots - 1);
        while (t->slots[k])
            k = (k + 1) & (t->n_slots - 1);
        t->slots[k] = (uint32_t)i + 1;
    }
    return i;
}

bool
ticky_add_def(ticky *t, const uint8_t *payload, size_t len)
{
    cursor c;
    cursor_init(&c, payload, len);
    uint64_t id = cursor_u64(&c);
    uint16_t arity = cursor_u16(&c);
    const uint8_t *kinds, *name;
    size_t nk, nn;
    if (c.failed || !cursor_cstr(&c, &kinds, &nk) || !cursor_cstr(&c, &name, &nn))
        return false;
    size_t i = ticky_get(t, id);
    ticky_raw *r = &t->raw[i];
    if (r->def_seq != UINT32_MAX)
        return true;                    /* defined twice: the first stays */
    ticky_counter *k = &t->counters[i];
    r->def_seq = t->n_defs++;
    k->defined = true;
    k->arity = arity;
    /* Separate calls: ticky_text may move the arena, but returns offsets. */
    size_t kinds_at = ticky_text(t, kinds, nk);
    size_t name_at = ticky_text(t, name, nn);
    r = &t->raw[i];
    r->kinds = kinds_at;
    r->name = name_at;
    if (cursor_left(&c) >= 8) {
        k->has_info_table = true;
        k->info_table = cursor_u64(&c);
        t->saw_itbl = true;
        const uint8_t *json;
        size_t nj;
        if (cursor_left(&c) > 0 && cursor_cstr(&c, &json, &nj)) {
            t->saw_json = true;
            r->json = ticky_text(t, json, nj);
        } else if (nk > 0 && kinds[0] == '{') {
            r->json = kinds_at;         /* 9.3 put the JSON in the kinds field */
        }
    }
    return true;
}

static void
ticky_open(ticky *t, uint64_t time_ns)
{
    xgrowarray((void **)&t->samples, &t->cap_samples, t->n_samples + 1, 16,
               sizeof *t->samples);
    t->samples[t->n_samples++] = (ticky_sample){ .time_ns = time_ns,
                                                 .first = (uint32_t)t->n_entries };
    t->sample_open = true;
}

void
ticky_begin_sample(ticky *t, uint64_t time_ns)
{
    t->saw_begin = true;
    ticky_open(t, time_ns);
}

void
ticky_add_sample(ticky *t, uint64_t time_ns, uint64_t id, uint64_t entries, uint64_t allocs,
                 uint64_t allocd)
{
    size_t i = ticky_get(t, id);
    /* Without BEGIN events a sample is a run of sample events: a counter seen again
     * starts the next one. */
    if (!t->sample_open || (!t->saw_begin && t->raw[i].last_sample == t->n_samples))
        ticky_open(t, time_ns);
    t->raw[i].last_sample = (uint32_t)t->n_samples;
    xgrowarray((void **)&t->entries, &t->cap_entries, t->n_entries + 1, 64,
               sizeof *t->entries);
    t->entries[t->n_entries++] = (ticky_entry){ (uint32_t)i, entries, allocs, allocd };
    t->samples[t->n_samples - 1].n++;
}

typedef struct ticky_order {
    uint64_t key;
    uint32_t idx;
} ticky_order;

static int
ticky_order_cmp(const void *a, const void *b)
{
    const ticky_order *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static int
ticky_sample_cmp(const void *a, const void *b)
{
    const ticky_sample *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

void
ticky_seal(ticky *t)
{
    size_t n = t->n_counters;
    ticky_order *ord = xmalloc((n + 1) * sizeof *ord);     /* freed below */
    for (size_t i = 0; i < n; i++) {
        const ticky_raw *r = &t->raw[i];
        uint64_t key = r->def_seq != UINT32_MAX ? r->def_seq
                                                 : ((uint64_t)1 << 32) + r->seen_seq;
        ord[i] = (ticky_order){ key, (uint32_t)i };
    }
    if (n > 1)
        qsort(ord, n, sizeof *ord, ticky_order_cmp);
    uint32_t *new_of = xmalloc((n + 1) * sizeof *new_of);  /* freed below */
    ticky_counter *c2 = xmalloc((n + 1) * sizeof *c2);      /* owned by t */
    ticky_raw *r2 = xmalloc((n + 1) * sizeof *r2);          /* owned by t */
    for (size_t k = 0; k < n; k++) {
        new_of[ord[k].idx] = (uint32_t)k;
        c2[k] = t->counters[ord[k].idx];
        r2[k] = t->raw[ord[k].idx];
    }
    x_free(t->counters);
    x_free(t->raw);
    t->counters = c2;
    t->raw = r2;
    t->cap_counters = n + 1;
    for (size_t i = 0; i < t->n_entries; i++)
        t->entries[i].counter = new_of[t->entries[i].counter];
    x_free(new_of);
    x_free(ord);
    ticky_rehash(t);
    for (size_t k = 0; k < n; k++) {
        ticky_counter *c = &t->counters[k];
        const ticky_raw *r = &t->raw[k];
        /* 9.3's JSON in the kinds field is the description, not argument kinds. */
        c->kinds = r->kinds == TICKY_NO_TEXT || r->json == r->kinds ? ""
                                                                    : t->arena.data + r->kinds;
        c->name = r->name == TICKY_NO_TEXT ? "" : t->arena.data + r->name;
        c->json = r->json == TICKY_NO_TEXT ? NULL : t->arena.data + r->json;
        c->entries = c->allocs = c->allocd = 0;
        c->n_samples = 0;
    }
    if (t->n_samples > 1)
        qsort(t->samples, t->n_samples, sizeof *t->samples, ticky_sample_cmp);
    for (size_t s = 0; s < t->n_samples; s++) {
        ticky_sample *sm = &t->samples[s];
        sm->entries = sm->allocs = sm->allocd = 0;
        for (uint32_t k = 0; k < sm->n; k++) {
            const ticky_entry *e = &t->entries[sm->first + k];
            ticky_counter *c = &t->counters[e->counter];
            c->entries += e->entries;
            c->allocs += e->allocs;
            c->allocd += e->allocd;
            c->n_samples++;
            sm->entries += e->entries;
            sm->allocs += e->allocs;
            sm->allocd += e->allocd;
        }
    }
    t->sample_open = false;
}

void
ticky_publish(ticky *t)
{
    bool open = t->sample_open;
    ticky_seal(t);
    t->sample_open = open;
}

bool
ticky_empty(const ticky *t)
{
    return t->n_counters == 0 && t->n_samples == 0;
}

ticky_layout
ticky_layout_of(const ticky *t)
{
    if (t->saw_json)
        return TICKY_LAYOUT_JSON;
    if (t->saw_itbl)
        return TICKY_LAYOUT_ITBL;
    if (t->saw_begin)
        return TICKY_LAYOUT_BEGIN;
    return t->n_counters || t->n_samples ? TICKY_LAYOUT_PLAIN : TICKY_LAYOUT_NONE;
}

const char *
ticky_layout_name(ticky_layout l)
{
    static const char *const names[] = {
        [TICKY_LAYOUT_NONE] = "none",
        [TICKY_LAYOUT_PLAIN] = "GHC 9.1-9.2: no begin-sample events, no info table",
        [TICKY_LAYOUT_BEGIN] = "GHC 9.3 (2021): begin-sample events, no info table",
        [TICKY_LAYOUT_ITBL] = "GHC 9.4: info table, JSON in the kinds field",
        [TICKY_LAYOUT_JSON] = "GHC 9.6+: info table and a JSON field",
    };
    return (unsigned)l < sizeof names / sizeof names[0] ? names[l] : "?";
}

size_t
ticky_n_counters(const ticky *t)
{
    return t->n_counters;
}

const ticky_counter *
ticky_counter_at(const ticky *t, size_t i)
{
    return i < t->n_counters ? &t->counters[i] : NULL;
}

size_t
ticky_n_samples(const ticky *t)
{
    return t->n_samples;
}

const ticky_sample *
ticky_sample_at(const ticky *t, size_t i)
{
    return i < t->n_samples ? &t->samples[i] : NULL;
}

const ticky_entry *
ticky_entry_at(const ticky *t, size_t i)
{
    return i < t->n_entries ? &t->entries[i] : NULL;
}

size_t
ticky_sample_by(const ticky *t, uint64_t time_ns)
{
    size_t lo = 0, hi = t->n_samples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->samples[mid].time_ns <= time_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

uint64_t
ticky_max_sample_entries(const ticky *t)
{
    uint64_t m = 0;
    for (size_t i = 0; i < t->n_samples; i++)
        if (t->samples[i].entries > m)
            m = t->samples[i].entries;
    return m;
}

size_t
ticky_bytes(const ticky *t)
{
    return sizeof *t + t->cap_counters * (sizeof *t->counters + sizeof *t->raw) +
           t->n_slots * sizeof *t->slots + t->cap_samples * sizeof *t->samples +
           t->cap_entries * sizeof *t->entries + t->arena.cap;
}

bool
ticky_check(const ticky *t, char *why, size_t why_len)
{
    uint64_t *sum = xcalloc(t->n_counters + 1, sizeof *sum);   /* freed below */
    bool ok = true;
    for (size_t s = 0; s < t->n_samples && ok; s++) {
        const ticky_sample *sm = &t->samples[s];
        if (s && sm->time_ns < t->samples[s - 1].time_ns) {
            snprintf(why, why_len, "sample %zu before the one before it", s);
            ok = false;
        } else if ((size_t)sm->first + sm->n > t->n_entries) {
            snprintf(why, why_len, "sample %zu runs past the entries", s);
            ok = false;
        }
        uint64_t e = 0;
        for (uint32_t k = 0; ok && k < sm->n; k++) {
            const ticky_entry *en = &t->entries[sm->first + k];
            if (en->counter >= t->n_counters) {
                snprintf(why, why_len, "sample %zu names counter %u of %zu", s, en->counter,
                         t->n_counters);
                ok = false;
                break;
            }
            sum[en->counter] += en->entries;
            e += en->entries;
        }
        if (ok && e != sm->entries) {
            snprintf(why, why_len, "sample %zu: entries %llu, recount %llu", s,
                     (unsigned long long)sm->entries, (unsigned long long)e);
            ok = false;
        }
    }
    for (size_t i = 0; ok && i < t->n_counters; i++)
        if (sum[i] != t->counters[i].entries) {
            snprintf(why, why_len, "counter %zu: entries %llu, recount %llu", i,
                     (unsigned long long)t->counters[i].entries,
                     (unsigned long long)sum[i]);
            ok = false;
        }
    x_free(sum);
    return ok;
}
