/* gcreport: MMU curve and worst-window tables, text and JSON. */
#include "gcreport.h"

#include <stdio.h>

#include "timefmt.h"
#include "xalloc.h"

const char *
gcreport_source_name(const mmusrc_opts *o, char *buf, size_t len)
{
    if (o->per_cap) {
        snprintf(buf, len, "HEC %u's own GC time%s", (unsigned)o->cap,
                 o->with_stop ? " from when it stopped" : "");
        return buf;
    }
    return o->with_stop ? "stop-the-world pauses with the time to stop"
                        : "stop-the-world pauses";
}

/* A window length: whole units when it is a few of one ("10us", "5ms", "1s"), else
 * as timefmt. */
static void
gr_window(strbuf *out, uint64_t ns)
{
    static const struct {
        uint64_t ns;
        const char *unit;
    } units[] = { { 1000000000ull, "s" }, { 1000000, "ms" }, { 1000, "us" }, { 1, "ns" } };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (ns >= units[i].ns && ns % units[i].ns == 0 && ns / units[i].ns < 1000) {
            strbuf_printf(out, "%llu%s", (unsigned long long)(ns / units[i].ns), units[i].unit);
            return;
        }
    timefmt_append(out, ns);
}

static void
gr_pad_to(strbuf *out, size_t from, size_t width)
{
    while (out->len < from + width)
        strbuf_putc(out, ' ');
}

/* The title: range, source, stopped share. */
static void
gr_title(strbuf *out, const mmu *m, const mmusrc_opts *o)
{
    char buf[96];
    uint64_t len = mmu_to_ns(m) - mmu_from_ns(m);
    strbuf_puts(out, "Range ");
    timefmt_append_res(out, mmu_from_ns(m), 1);
    strbuf_puts(out, " .. ");
    timefmt_append_res(out, mmu_to_ns(m), 1);
    strbuf_puts(out, " (");
    timefmt_append(out, len);
    strbuf_printf(out, "); stopped: %s, ", gcreport_source_name(o, buf, sizeof buf));
    timefmt_append(out, mmu_paused_total(m));
    strbuf_printf(out, " in all (%.2f%%)\n",
                  len ? 100.0 * (double)mmu_paused_total(m) / (double)len : 0.0);
}

void
gcreport_mmu(strbuf *out, const mmu *m, const mmusrc_opts *o, bool json)
{
    uint64_t ws[96];
    size_t n = mmu_curve_windows(m, ws, sizeof ws / sizeof ws[0]);
    if (json) {
        strbuf_puts(out, "[\n");
        for (size_t i = 0; i < n; i++) {
            mmu_point p = mmu_at(m, ws[i]);
            strbuf_printf(out, "{\"window_ns\":%llu,\"mmu\":%.6f,\"worst_start_ns\":%llu,"
                          "\"paused_ns\":%llu}%s\n",
                          (unsigned long long)p.window_ns, p.mmu,
                          (unsigned long long)p.worst_start_ns, (unsigned long long)p.paused_ns,
                          i + 1 < n ? "," : "");
        }
        strbuf_puts(out, "]\n");
        return;
    }
    strbuf_puts(out, "Minimum mutator utilisation: for each window length, the smallest share "
                     "of any window\nof that length in which the mutator ran.\n");
    gr_title(out, m, o);
    strbuf_puts(out, "\n      window      MMU   stopped in worst   worst window starts at\n");
    for (size_t i = 0; i < n; i++) {
        mmu_point p = mmu_at(m, ws[i]);
        strbuf_puts(out, "  ");
        size_t col = out->len;
        gr_window(out, p.window_ns);
        gr_pad_to(out, col, 10);
        strbuf_printf(out, "  %6.2f%%   ", 100.0 * p.mmu);
        col = out->len;
        timefmt_append(out, p.paused_ns);
        gr_pad_to(out, col, 16);
        strbuf_puts(out, "   ");
        timefmt_append_res(out, p.worst_start_ns, 1);
        if (i + 1 == n && p.window_ns == mmu_to_ns(m) - mmu_from_ns(m))
            strbuf_puts(out, "  (the whole range)");
        strbuf_putc(out, '\n');
    }
}

void
gcreport_gcs_in(const evindex *ix, bool with_stop, uint64_t a, uint64_t b, size_t *first,
                size_t *last)
{
    size_t n = evindex_n_gcs(ix);
    size_t i = evindex_gc_first_from(ix, a);
    /* Earlier collections may run into the window; pauses barely overlap, so a short
     * walk back finds them. */
    while (i > 0 && evindex_gc_brief_at(ix, i - 1).end_ns > a)
        i--;
    *first = i;
    size_t j = evindex_gc_first_from(ix, b);
    /* With the time to stop, a collection starting at or after b may have been
     * requested before it. */
    while (with_stop && j < n && evindex_gc_brief_at(ix, j).request_ns < b)
        j++;
    *last = j > i ? j : i;
}

/* Does collection g's span (per `o`) overlap [a, b)? */
static bool
gr_overlaps(const evindex *ix, const evindex_gc *g, const mmusrc_opts *o, uint64_t a,
            uint64_t b)
{
    if (!o->per_cap) {
        if (g->flags & EVINDEX_GC_F_NO_START)
            return false;
        uint64_t s = o->with_stop && g->request_ns < g->start_ns ? g->request_ns : g->start_ns;
        return s < b && g->end_ns > a;
    }
    for (uint32_t j = 0; j < g->n_parts; j++) {
        evindex_gc_part pt_buf;
        const evindex_gc_part *pt = evindex_gc_part_get(ix, g->first_part + j, &pt_buf);
        uint64_t s = o->with_stop && pt->stop_ns < pt->start_ns ? pt->stop_ns : pt->start_ns;
        if (pt->cap == o->cap && s < b && pt->end_ns > a)
            return true;
    }
    return false;
}

void
gcreport_worst(strbuf *out, const evindex *ix, const mmu *m, const mmusrc_opts *o,
               uint64_t window_ns, size_t top, bool json)
{
    mmu_point *w = xmalloc((top + 1) * sizeof *w);      /* freed below */
    size_t n = mmu_worst(m, window_ns, top, w);
    if (json) {
        strbuf_puts(out, "[\n");
    } else {
        strbuf_puts(out, "The worst windows: disjoint windows of ");
        gr_window(out, window_ns);
        strbuf_puts(out, " with the lowest mutator utilisation, worst first.\n");
        gr_title(out, m, o);
        if (!n)
            strbuf_puts(out, "\nNo window holds any stopped time.\n");
    }
    for (size_t k = 0; k < n; k++) {
        uint64_t a = w[k].worst_start_ns, b = a + w[k].window_ns;
        if (b > mmu_to_ns(m))
            b = mmu_to_ns(m);
        size_t i0, i1;
        gcreport_gcs_in(ix, o->with_stop, a, b, &i0, &i1);
        size_t n_in = 0;
        for (size_t i = i0; i < i1; i++)
            n_in += gr_overlaps(ix, evindex_gc_get(ix, i, &(evindex_gc){ 0 }), o, a, b);
        if (json) {
            strbuf_printf(out, "{\"start_ns\":%llu,\"end_ns\":%llu,\"mmu\":%.6f,"
                          "\"paused_ns\":%llu,\"collections\":[",
                          (unsigned long long)a, (unsigned long long)b, w[k].mmu,
                          (unsigned long long)w[k].paused_ns);
        } else {
            strbuf_printf(out, "\n%2zu. ", k + 1);
            timefmt_append_res(out, a, 1);
            strbuf_puts(out, " .. ");
            timefmt_append_res(out, b, 1);
            strbuf_printf(out, "  mutator %.2f%%, stopped ", 100.0 * w[k].mmu);
            timefmt_append(out, w[k].paused_ns);
            strbuf_printf(out, " in %zu collection%s\n", n_in, n_in == 1 ? "" : "s");
            strbuf_puts(out, "      #      start             pause       to stop     gen  "
                             "leader\n");
        }
        bool first = true;
        for (size_t i = i0; i < i1; i++) {
            evindex_gc g_buf;
            const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
            if (!gr_overlaps(ix, g, o, a, b))
                continue;
            bool has_stop = g->stopping_ns != EVINDEX_NO_TIME;
            bool has_gen = g->gen != EVINDEX_GEN_UNKNOWN;
            if (json) {
                strbuf_printf(out, "%s{\"index\":%zu,\"start_ns\":%llu,\"pause_ns\":%llu,"
                              "\"stopping_ns\":", first ? "" : ",", i,
                              (unsigned long long)g->start_ns,
                              (unsigned long long)(g->end_ns - g->start_ns));
                if (has_stop)
                    strbuf_u64(out, g->stopping_ns);
                else
                    strbuf_puts(out, "null");
                strbuf_puts(out, ",\"gen\":");
                if (has_gen)
                    strbuf_u64(out, g->gen);
                else
                    strbuf_puts(out, "null");
                strbuf_puts(out, ",\"leader_cap\":");
                if (g->leader_cap != EVINDEX_NO_CAP)
                    strbuf_u64(out, g->leader_cap);
                else
                    strbuf_puts(out, "null");
                strbuf_putc(out, '}');
            } else {
                size_t col = out->len;
                strbuf_printf(out, "  %5zu  ", i);
                timefmt_append_res(out, g->start_ns, 1);
                gr_pad_to(out, col, 31);
                col = out->len;
                timefmt_append(out, g->end_ns - g->start_ns);
                gr_pad_to(out, col, 12);
                col = out->len;
                if (has_stop)
                    timefmt_append(out, g->stopping_ns);
                else
                    strbuf_putc(out, '-');
                gr_pad_to(out, col, 12);
                if (has_gen)
                    strbuf_printf(out, "%-4u ", g->gen);
                else
                    strbuf_puts(out, "?    ");
                if (g->leader_cap != EVINDEX_NO_CAP)
                    strbuf_printf(out, "HEC %u", g->leader_cap);
                else
                    strbuf_putc(out, '-');
                strbuf_putc(out, '\n');
            }
            first = false;
        }
        if (json)
            strbuf_printf(out, "]}%s\n", k + 1 < n ? "," : "");
    }
    if (json)
        strbuf_puts(out, "]\n");
    x_free(w);
}
