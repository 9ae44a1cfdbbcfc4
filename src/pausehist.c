/* pausehist: power-of-two pause histograms per generation, and their text, TSV and
 * JSON forms. */
#include "pausehist.h"

#include <string.h>

#include "timefmt.h"

void
pausehist_init(pausehist *h, unsigned n_gens)
{
    memset(h, 0, sizeof *h);
    h->n_gens = n_gens < 1 ? 1 : n_gens > PAUSEHIST_MAX_GENS ? PAUSEHIST_MAX_GENS : n_gens;
}

unsigned
pausehist_bucket(uint64_t pause_ns)
{
    uint64_t us = pause_ns / 1000;
    unsigned b = 0;
    while (us && b < PAUSEHIST_N_BUCKETS - 1) {
        us >>= 1;
        b++;
    }
    return b;
}

uint64_t
pausehist_bucket_lo(unsigned b)
{
    return b == 0 ? 0 : (1000ull << (b - 1));
}

uint64_t
pausehist_bucket_hi(unsigned b)
{
    return b + 1 >= PAUSEHIST_N_BUCKETS ? UINT64_MAX : (1000ull << b);
}

void
pausehist_add(pausehist *h, unsigned gen, uint64_t pause_ns)
{
    if (gen >= PAUSEHIST_MAX_GENS) {
        h->n_unknown_gen++;
        return;
    }
    if (gen >= h->n_gens)
        h->n_gens = gen + 1;
    pausehist_gen *g = &h->gens[gen];
    unsigned b = pausehist_bucket(pause_ns);
    g->count[b]++;
    g->total_ns[b] += pause_ns;
    g->n++;
    g->sum_ns += pause_ns;
}

void
pausehist_from_index(pausehist *h, const evindex *ix, uint64_t from_ns, uint64_t to_ns)
{
    pausehist_init(h, evindex_n_gens(ix));
    for (size_t i = evindex_gc_first_from(ix, from_ns); i < evindex_n_gcs(ix); i++) {
        evindex_gc_brief g = evindex_gc_brief_at(ix, i);
        if (g.start_ns >= to_ns)
            break;
        if (g.flags & EVINDEX_GC_F_NO_START)
            continue;
        pausehist_add(h, g.gen == EVINDEX_GEN_UNKNOWN ? PAUSEHIST_MAX_GENS : g.gen,
                      g.end_ns - g.start_ns);
    }
}

/* The first and last non-empty bucket; false if none. */
static bool
ph_span(const pausehist_gen *g, unsigned *first, unsigned *last)
{
    bool any = false;
    for (unsigned b = 0; b < PAUSEHIST_N_BUCKETS; b++)
        if (g->count[b]) {
            if (!any)
                *first = b;
            *last = b;
            any = true;
        }
    return any;
}

void
pausehist_bound(strbuf *out, uint64_t ns)
{
    if (ns < 1000000)
        strbuf_printf(out, "%lluus", (unsigned long long)(ns / 1000));
    else
        timefmt_append(out, ns);
}

bool
pausehist_range(const pausehist *h, unsigned *first, unsigned *last)
{
    bool any = false;
    for (unsigned gen = 0; gen < h->n_gens; gen++) {
        unsigned f = 0, l = 0;
        if (!ph_span(&h->gens[gen], &f, &l))
            continue;
        if (!any || f < *first)
            *first = f;
        if (!any || l > *last)
            *last = l;
        any = true;
    }
    return any;
}

void
pausehist_spark(strbuf *out, const pausehist_gen *g, unsigned first, unsigned last)
{
    static const char *const blocks[8] = { "\u2581", "\u2582", "\u2583", "\u2584",
                                           "\u2585", "\u2586", "\u2587", "\u2588" };
    uint64_t most = 0;
    for (unsigned b = first; b <= last && b < PAUSEHIST_N_BUCKETS; b++)
        if (g->count[b] > most)
            most = g->count[b];
    for (unsigned b = first; b <= last && b < PAUSEHIST_N_BUCKETS; b++) {
        if (!g->count[b]) {
            strbuf_putc(out, ' ');
            continue;
        }
        uint64_t h = (g->count[b] * 8 + most - 1) / most;     /* 1..8 */
        strbuf_puts(out, blocks[h - 1]);
    }
}

static void
ph_pad(strbuf *out, size_t from_len, size_t width)
{
    while (out->len < from_len + width)
        strbuf_putc(out, ' ');
}

void
pausehist_text(strbuf *out, const pausehist *h, int bar_cols, int indent)
{
    for (unsigned gen = 0; gen < h->n_gens; gen++) {
        const pausehist_gen *g = &h->gens[gen];
        strbuf_printf(out, "%*sGen %u: %llu pauses, ", indent, "", gen,
                      (unsigned long long)g->n);
        timefmt_append(out, g->sum_ns);
        strbuf_puts(out, " in all\n");
        unsigned first = 0, last = 0;
        if (!ph_span(g, &first, &last))
            continue;
        uint64_t most = 0;
        for (unsigned b = first; b <= last; b++)
            if (g->count[b] > most)
                most = g->count[b];
        for (unsigned b = first; b <= last; b++) {
            strbuf_printf(out, "%*s", indent + 2, "");
            size_t col = out->len;
            if (b == 0) {
                strbuf_puts(out, "<1us");
            } else {
                pausehist_bound(out, pausehist_bucket_lo(b));
                strbuf_puts(out, b + 1 >= PAUSEHIST_N_BUCKETS ? "+" : " .. ");
                if (b + 1 < PAUSEHIST_N_BUCKETS)
                    pausehist_bound(out, pausehist_bucket_hi(b));
            }
            ph_pad(out, col, 21);
            strbuf_printf(out, "%8llu  ", (unsigned long long)g->count[b]);
            int bar = most ? (int)((g->count[b] * (uint64_t)bar_cols + most - 1) / most) : 0;
            for (int c = 0; c < bar_cols; c++)
                strbuf_putc(out, c < bar ? '#' : ' ');
            strbuf_puts(out, "  ");
            if (g->count[b])
                timefmt_append(out, g->total_ns[b]);
            else
                strbuf_putc(out, '-');
            strbuf_putc(out, '\n');
        }
    }
    if (h->n_unknown_gen)
        strbuf_printf(out, "%*s(%llu pauses of collections with no generation not shown)\n",
                      indent, "", (unsigned long long)h->n_unknown_gen);
}

void
pausehist_tsv(strbuf *out, const pausehist *h)
{
    strbuf_puts(out, "gen\tlo_ns\thi_ns\tcount\ttotal_ns\n");
    for (unsigned gen = 0; gen < h->n_gens; gen++)
        for (unsigned b = 0; b < PAUSEHIST_N_BUCKETS; b++) {
            const pausehist_gen *g = &h->gens[gen];
            if (!g->count[b])
                continue;
            strbuf_printf(out, "%u\t%llu\t", gen, (unsigned long long)pausehist_bucket_lo(b));
            if (b + 1 < PAUSEHIST_N_BUCKETS)
                strbuf_u64(out, pausehist_bucket_hi(b));
            strbuf_printf(out, "\t%llu\t%llu\n", (unsigned long long)g->count[b],
                          (unsigned long long)g->total_ns[b]);
        }
}

void
pausehist_json(strbuf *out, const pausehist *h)
{
    strbuf_puts(out, "[\n");
    for (unsigned gen = 0; gen < h->n_gens; gen++) {
        const pausehist_gen *g = &h->gens[gen];
        strbuf_printf(out, "{\"gen\":%u,\"count\":%llu,\"total_ns\":%llu,\"buckets\":[", gen,
                      (unsigned long long)g->n, (unsigned long long)g->sum_ns);
        bool first = true;
        for (unsigned b = 0; b < PAUSEHIST_N_BUCKETS; b++) {
            if (!g->count[b])
                continue;
            strbuf_printf(out, "%s{\"lo_ns\":%llu,\"hi_ns\":", first ? "" : ",",
                          (unsigned long long)pausehist_bucket_lo(b));
            if (b + 1 < PAUSEHIST_N_BUCKETS)
                strbuf_u64(out, pausehist_bucket_hi(b));
            else
                strbuf_puts(out, "null");
            strbuf_printf(out, ",\"count\":%llu,\"total_ns\":%llu}",
                          (unsigned long long)g->count[b], (unsigned long long)g->total_ns[b]);
            first = false;
        }
        strbuf_printf(out, "]}%s\n", gen + 1 < h->n_gens ? "," : "");
    }
    strbuf_puts(out, "]\n");
}
