/* reports_ticky: the `ticky` table — ticky-ticky counters with their totals and
 * per-sample values, as TSV or JSON (see reports.h). */
#include "reports.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

typedef struct tick_key {
    uint64_t key;
    uint32_t idx;
} tick_key;

static int
tick_key_cmp(const void *a, const void *b)
{
    const tick_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Counter indexes in report order. Caller frees. */
static uint32_t *
tick_order(const ticky *t, bool by_allocs)
{
    size_t n = ticky_n_counters(t);
    tick_key *keys = xmalloc((n + 1) * sizeof *keys);       /* freed below */
    for (size_t i = 0; i < n; i++) {
        const ticky_counter *c = ticky_counter_at(t, i);
        keys[i] = (tick_key){ by_allocs ? c->allocs : c->entries, (uint32_t)i };
    }
    qsort(keys, n, sizeof *keys, tick_key_cmp);
    uint32_t *order = xmalloc((n + 1) * sizeof *order);     /* caller frees */
    for (size_t i = 0; i < n; i++)
        order[i] = keys[i].idx;
    x_free(keys);
    return order;
}

static void
tick_text(strbuf *out, const char *s, bool json)
{
    if (json)
        reports_json_text(out, (const uint8_t *)s, strlen(s));
    else
        reports_tsv_text(out, (const uint8_t *)s, strlen(s));
}

/* The counter's info table named from the log's IPE entries, or NULL. */
static const ipe_entry *
tick_ipe(const evindex *ix, const ticky_counter *c)
{
    return c->has_info_table && c->info_table ? ipe_table_find(evindex_ipe(ix), c->info_table)
                                              : NULL;
}

static void
tick_samples_tsv(strbuf *out, const evindex *ix, const reports_opts *o)
{
    const ticky *t = evindex_ticky(ix);
    strbuf_puts(out, "time_ns\tsample\tcounter\tname\tentries\tallocs\tallocd\n");
    size_t n = ticky_n_samples(t);
    if (o->limit && o->limit < n)
        n = o->limit;
    for (size_t s = 0; s < n; s++) {
        const ticky_sample *sm = ticky_sample_at(t, s);
        for (uint32_t k = 0; k < sm->n; k++) {
            const ticky_entry *e = ticky_entry_at(t, sm->first + k);
            const ticky_counter *c = ticky_counter_at(t, e->counter);
            strbuf_printf(out, "%" PRIu64 "\t%zu\t%" PRIu64 "\t", sm->time_ns, s + 1, c->id);
            tick_text(out, c->name, false);
            strbuf_printf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", e->entries,
                          e->allocs, e->allocd);
        }
    }
}

static void
tick_counter_json(strbuf *out, const evindex *ix, const ticky_counter *c, uint32_t idx)
{
    const ticky *t = evindex_ticky(ix);
    strbuf_printf(out, "{\"counter\":%" PRIu64 ",\"name\":", c->id);
    tick_text(out, c->name, true);
    strbuf_printf(out, ",\"defined\":%s,\"arity\":%u,\"kinds\":", c->defined ? "true" : "false",
                  c->arity);
    tick_text(out, c->kinds, true);
    if (c->has_info_table)
        strbuf_printf(out, ",\"info_table\":\"%" PRIx64 "\"", c->info_table);
    else
        strbuf_puts(out, ",\"info_table\":null");
    const ipe_entry *e = tick_ipe(ix, c);
    strbuf_puts(out, ",\"info_table_name\":");
    if (e)
        tick_text(out, e->table_name, true);
    else
        strbuf_puts(out, "null");
    strbuf_puts(out, ",\"json\":");
    if (c->json)
        tick_text(out, c->json, true);
    else
        strbuf_puts(out, "null");
    strbuf_printf(out, ",\"entries\":%" PRIu64 ",\"allocs\":%" PRIu64 ",\"allocd\":%" PRIu64
                  ",\"n_samples\":%u,\"samples\":[", c->entries, c->allocs, c->allocd,
                  c->n_samples);
    bool first = true;
    for (size_t s = 0; s < ticky_n_samples(t); s++) {
        const ticky_sample *sm = ticky_sample_at(t, s);
        for (uint32_t k = 0; k < sm->n; k++) {
            const ticky_entry *en = ticky_entry_at(t, sm->first + k);
            if (en->counter != idx)
                continue;
            strbuf_printf(out, "%s{\"time_ns\":%" PRIu64 ",\"entries\":%" PRIu64
                          ",\"allocs\":%" PRIu64 ",\"allocd\":%" PRIu64 "}",
                          first ? "" : ",", sm->time_ns, en->entries, en->allocs, en->allocd);
            first = false;
        }
    }
    strbuf_puts(out, "]}");
}

void
reports_ticky(strbuf *out, const evindex *ix, const reports_opts *o)
{
    const ticky *t = evindex_ticky(ix);
    if (o->samples && !o->json) {
        tick_samples_tsv(out, ix, o);
        return;
    }
    size_t n = ticky_n_counters(t);
    uint32_t *order = tick_order(t, o->sort_by_allocs);
    size_t rows = o->limit && o->limit < n ? o->limit : n;
    if (o->json) {
        strbuf_puts(out, "{\"layout\":");
        tick_text(out, ticky_layout_name(ticky_layout_of(t)), true);
        strbuf_puts(out, ",\"samples\":[");
        for (size_t s = 0; s < ticky_n_samples(t); s++) {
            const ticky_sample *sm = ticky_sample_at(t, s);
            strbuf_printf(out, "%s{\"time_ns\":%" PRIu64 ",\"counters\":%u,\"entries\":%" PRIu64
                          ",\"allocs\":%" PRIu64 ",\"allocd\":%" PRIu64 "}", s ? "," : "",
                          sm->time_ns, sm->n, sm->entries, sm->allocs, sm->allocd);
        }
        strbuf_puts(out, "],\"counters\":[\n");
        for (size_t r = 0; r < rows; r++) {
            tick_counter_json(out, ix, ticky_counter_at(t, order[r]), order[r]);
            strbuf_puts(out, r + 1 < rows ? ",\n" : "\n");
        }
        strbuf_puts(out, "]}\n");
        x_free(order);
        return;
    }
    strbuf_puts(out, "counter\tname\tarity\tkinds\tinfo_table\tentries\tallocs\tallocd\tsamples"
                     "\tjson\tinfo_table_name\n");
    for (size_t r = 0; r < rows; r++) {
        const ticky_counter *c = ticky_counter_at(t, order[r]);
        strbuf_printf(out, "%" PRIu64 "\t", c->id);
        tick_text(out, c->name, false);
        strbuf_printf(out, "\t%u\t", c->arity);
        tick_text(out, c->kinds, false);
        if (c->has_info_table)
            strbuf_printf(out, "\t%" PRIx64, c->info_table);
        else
            strbuf_puts(out, "\t-");
        strbuf_printf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u\t", c->entries,
                      c->allocs, c->allocd, c->n_samples);
        if (c->json)
            tick_text(out, c->json, false);
        strbuf_putc(out, '\t');
        const ipe_entry *e = tick_ipe(ix, c);
        if (e)
            tick_text(out, e->table_name, false);
        strbuf_putc(out, '\n');
    }
    x_free(order);
}
