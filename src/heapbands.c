/* heapbands: heap-profile band names by source and band rankings (see heapbands.h). */
#include "heapbands.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

const ipe_entry *
heapbands_ipe(const heapprof *hp, const ipe_table *ipe, size_t b)
{
    if (!ipe || heapprof_breakdown_of(hp) != HEAPPROF_BY_INFO_TABLE)
        return NULL;
    const heapprof_band *band = heapprof_band_at(hp, b);
    if (!band || band->kind != HEAPPROF_BAND_STRING)
        return NULL;
    strbuf raw;
    strbuf_init(&raw);
    heapprof_band_name(hp, b, &raw);
    uint64_t addr;
    const ipe_entry *e = NULL;
    /* A band is the info table's struct address (get_itbl). Newer RTSs give IPE that
     * address too; earlier ones (9.2) the info pointer, which with tables next to code
     * is just past the struct: 16 bytes on, 24 in a profiled RTS. An entry there can
     * only be this table's, since code follows the struct. */
    static const uint64_t past[] = { 0, 16, 24 };
    if (ipe_parse_address((const uint8_t *)raw.data, raw.len, &addr))
        for (size_t k = 0; k < sizeof past / sizeof past[0] && !e; k++)
            e = ipe_table_find(ipe, addr + past[k]);
    strbuf_free(&raw);
    return e;
}

void
heapbands_name(const heapprof *hp, const ipe_table *ipe, size_t b, strbuf *out)
{
    const ipe_entry *e = heapbands_ipe(hp, ipe, b);
    if (e) {
        bool any = false;
        if (*e->label) {
            strbuf_puts(out, e->label);
            any = true;
        }
        if (*e->ty_desc) {
            strbuf_puts(out, any ? " :: " : ":: ");
            strbuf_puts(out, e->ty_desc);
            any = true;
        }
        const char *ct = ipe_closure_type_name(e->closure_desc);
        if (ct || *e->closure_desc) {
            strbuf_puts(out, any ? " (" : "(");
            strbuf_puts(out, ct ? ct : e->closure_desc);
            strbuf_putc(out, ')');
            any = true;
        }
        if (*e->module || *e->src_loc) {
            strbuf_puts(out, any ? " at " : "at ");
            strbuf_puts(out, e->module);
            if (*e->module && *e->src_loc)
                strbuf_putc(out, ' ');
            strbuf_puts(out, e->src_loc);
        }
        strbuf_printf(out, " [%s]", e->table_name);
        return;
    }
    if (heapprof_breakdown_of(hp) == HEAPPROF_BY_ERA)
        strbuf_puts(out, "era ");
    heapprof_band_name(hp, b, out);
}

typedef struct heapbands_key {
    uint64_t peak;
    uint32_t band;
} heapbands_key;

static int
heapbands_key_cmp(const void *a, const void *b)
{
    const heapbands_key *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak > y->peak ? -1 : 1;
    return x->band < y->band ? -1 : x->band > y->band;
}

uint32_t *
heapbands_by_peak(const heapprof *hp, size_t *n)
{
    size_t nb = heapprof_n_bands(hp);
    heapbands_key *keys = xmalloc((nb + 1) * sizeof *keys);  /* freed below */
    for (size_t b = 0; b < nb; b++)
        keys[b] = (heapbands_key){ heapprof_band_at(hp, b)->peak_bytes, (uint32_t)b };
    qsort(keys, nb, sizeof *keys, heapbands_key_cmp);
    uint32_t *order = xmalloc((nb + 1) * sizeof *order);    /* caller frees */
    for (size_t k = 0; k < nb; k++)
        order[k] = keys[k].band;
    x_free(keys);
    *n = nb;
    return order;
}

size_t
heapbands_top_by_peak(const heapprof *hp, size_t k, uint32_t *top)
{
    size_t nb = heapprof_n_bands(hp), n = 0;
    if (k == 0)
        return 0;
    heapbands_key *best = xmalloc(k * sizeof *best);     /* freed below; sorted, n of k */
    for (size_t b = 0; b < nb; b++) {
        heapbands_key key = { heapprof_band_at(hp, b)->peak_bytes, (uint32_t)b };
        if (n == k && heapbands_key_cmp(&key, &best[k - 1]) >= 0)
            continue;
        size_t j = n < k ? n++ : k - 1;         /* the slot freed: the end, or the last */
        while (j > 0 && heapbands_key_cmp(&key, &best[j - 1]) < 0) {
            best[j] = best[j - 1];
            j--;
        }
        best[j] = key;
    }
    for (size_t j = 0; j < n; j++)
        top[j] = best[j].band;
    x_free(best);
    return n;
}

uint64_t
heapbands_bytes(const heapprof *hp, size_t i, uint32_t b)
{
    const heapprof_census *c = heapprof_census_at(hp, i);
    uint64_t sum = 0;
    for (size_t k = 0; c && k < c->n_entries; k++) {
        uint32_t band;
        uint64_t bytes;
        heapprof_entry(hp, i, k, &band, &bytes);
        if (band == b)
            sum += bytes;
    }
    return sum;
}

uint64_t
heapbands_max_total(const heapprof *hp)
{
    uint64_t m = 0;
    for (size_t i = 0; i < heapprof_n_censuses(hp); i++)
        if (heapprof_census_at(hp, i)->total_bytes > m)
            m = heapprof_census_at(hp, i)->total_bytes;
    return m;
}
