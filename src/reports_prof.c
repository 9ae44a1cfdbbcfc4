/* reports_prof: the `prof` table — the flat cost-centre profile of a time profile
 * (+RTS -p -l) over a time range, as TSV or JSON (see reports.h). */
#include "reports.h"

#include <string.h>

#include "xalloc.h"

/* A cost centre's definition texts ("" for ones the log never defined; MAIN's own
 * name for the empty stack). */
static void
prof_names(const heapprof *hp, uint32_t cc, const char **label, const char **module,
           const char **src, bool *is_caf)
{
    *is_caf = false;
    if (cc == TIMEPROF_MAIN) {
        *label = "MAIN";
        *module = "MAIN";
        *src = "<built-in>";
    } else if (!heapprof_cost_centre_find(hp, cc, label, module, src, is_caf)) {
        *label = *module = *src = "";
    }
}

/* The RTS's own cost centres, which GHC's .prof leaves out of its total time (and
 * %time) unless run with -Pa: (label, module). */
static bool
prof_is_rts(const char *label, const char *module)
{
    static const char *const rts[][2] = {
        { "GC", "GC" }, { "SYSTEM", "SYSTEM" }, { "OVERHEAD_of", "PROFILING" },
        { "DONT_CARE", "MAIN" }, { "IDLE", "IDLE" },
    };
    for (size_t i = 0; i < sizeof rts / sizeof rts[0]; i++)
        if (strcmp(label, rts[i][0]) == 0 && strcmp(module, rts[i][1]) == 0)
            return true;
    return false;
}

static void
prof_text(strbuf *out, const char *s, bool json)
{
    if (json)
        reports_json_text(out, (const uint8_t *)s, strlen(s));
    else
        reports_tsv_text(out, (const uint8_t *)s, strlen(s));
}

/* Share in percent with one decimal, as GHC's .prof prints it. */
static double
prof_pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void
reports_prof(strbuf *out, const evindex *ix, const reports_opts *o, uint64_t from_ns,
             uint64_t to_ns, uint32_t cap)
{
    const timeprof *tp = evindex_timeprof(ix);
    const heapprof *hp = evindex_heap_profile(ix);
    uint64_t interval = 0, begin = 0, n_samples;
    bool has_interval = timeprof_interval(tp, &interval, &begin);
    size_t n_rows;
    timeprof_row *rows = timeprof_flat(tp, from_ns, to_ns, cap, &n_rows, &n_samples);
    size_t shown = o->limit && o->limit < n_rows ? o->limit : n_rows;
    /* The .prof's total ticks: the samples outside the RTS's own cost centres. */
    uint64_t n_program = n_samples;
    for (size_t r = 0; r < n_rows; r++) {
        const char *label, *module, *src;
        bool is_caf;
        prof_names(hp, rows[r].cc, &label, &module, &src, &is_caf);
        if (prof_is_rts(label, module))
            n_program -= rows[r].individual;
    }
    if (o->json) {
        strbuf_puts(out, "{\"interval_ns\":");
        if (has_interval)
            strbuf_printf(out, "%llu", (unsigned long long)interval);
        else
            strbuf_puts(out, "null");
        strbuf_printf(out, ",\"samples\":%llu,\"program_samples\":%llu,\"from_ns\":%llu,"
                      "\"to_ns\":%llu,\"cap\":", (unsigned long long)n_samples,
                      (unsigned long long)n_program, (unsigned long long)from_ns,
                      (unsigned long long)to_ns);
        if (cap == TIMEPROF_ANY_CAP)
            strbuf_puts(out, "null");
        else
            strbuf_printf(out, "%u", cap);
        strbuf_puts(out, ",\"cost_centres\":[\n");
    } else {
        strbuf_printf(out, "# time profile: %llu samples", (unsigned long long)n_samples);
        if (cap != TIMEPROF_ANY_CAP)
            strbuf_printf(out, " on cap %u", cap);
        else
            strbuf_printf(out, " on %zu capabilit%s", timeprof_n_caps(tp),
                          timeprof_n_caps(tp) == 1 ? "y" : "ies");
        if (has_interval)
            strbuf_printf(out, ", tick interval %llu ns (%llu ns sampled)",
                          (unsigned long long)interval,
                          (unsigned long long)(interval * n_samples));
        else
            strbuf_puts(out, ", no tick interval in the log");
        strbuf_printf(out, ", %llu..%llu ns; %llu outside the RTS's own cost centres (the "
                      ".prof's total ticks)\n", (unsigned long long)from_ns,
                      (unsigned long long)to_ns, (unsigned long long)n_program);
        strbuf_puts(out, "cost_centre\tlabel\tmodule\tsrc_loc\tis_caf\tindividual\t"
                         "individual_pct\tinherited\tinherited_pct\tindividual_ns\t"
                         "inherited_ns\tprof_time_pct\n");
    }
    for (size_t r = 0; r < shown; r++) {
        const timeprof_row *row = &rows[r];
        const char *label, *module, *src;
        bool is_caf;
        prof_names(hp, row->cc, &label, &module, &src, &is_caf);
        if (o->json) {
            strbuf_puts(out, "{\"cost_centre\":");
            if (row->cc == TIMEPROF_MAIN)
                strbuf_puts(out, "null");
            else
                strbuf_printf(out, "%u", row->cc);
            strbuf_puts(out, ",\"label\":");
            prof_text(out, label, true);
            strbuf_puts(out, ",\"module\":");
            prof_text(out, module, true);
            strbuf_puts(out, ",\"src_loc\":");
            prof_text(out, src, true);
            strbuf_printf(out, ",\"is_caf\":%s,\"individual\":%llu,\"individual_pct\":%.1f,"
                          "\"inherited\":%llu,\"inherited_pct\":%.1f",
                          is_caf ? "true" : "false", (unsigned long long)row->individual,
                          prof_pct(row->individual, n_samples),
                          (unsigned long long)row->inherited,
                          prof_pct(row->inherited, n_samples));
            if (has_interval)
                strbuf_printf(out, ",\"individual_ns\":%llu,\"inherited_ns\":%llu",
                              (unsigned long long)(row->individual * interval),
                              (unsigned long long)(row->inherited * interval));
            else
                strbuf_puts(out, ",\"individual_ns\":null,\"inherited_ns\":null");
            if (prof_is_rts(label, module))
                strbuf_puts(out, ",\"prof_time_pct\":null}");
            else
                strbuf_printf(out, ",\"prof_time_pct\":%.1f}",
                              prof_pct(row->individual, n_program));
            strbuf_puts(out, r + 1 < shown ? ",\n" : "\n");
        } else {
            if (row->cc == TIMEPROF_MAIN)
                strbuf_puts(out, "MAIN");
            else
                strbuf_printf(out, "%u", row->cc);
            strbuf_putc(out, '\t');
            prof_text(out, label, false);
            strbuf_putc(out, '\t');
            prof_text(out, module, false);
            strbuf_putc(out, '\t');
            prof_text(out, src, false);
            strbuf_printf(out, "\t%s\t%llu\t%.1f\t%llu\t%.1f", is_caf ? "yes" : "no",
                          (unsigned long long)row->individual,
                          prof_pct(row->individual, n_samples),
                          (unsigned long long)row->inherited,
                          prof_pct(row->inherited, n_samples));
            if (has_interval)
                strbuf_printf(out, "\t%llu\t%llu",
                              (unsigned long long)(row->individual * interval),
                              (unsigned long long)(row->inherited * interval));
            else
                strbuf_puts(out, "\t-\t-");
            if (prof_is_rts(label, module))
                strbuf_puts(out, "\t-\n");
            else
                strbuf_printf(out, "\t%.1f\n", prof_pct(row->individual, n_program));
        }
    }
    if (o->json)
        strbuf_puts(out, "]}\n");
    x_free(rows);
}
