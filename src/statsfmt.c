/* statsfmt: rendering of a gcstats_report. The `+RTS -s` part copies the RTS's
 * column layout and formats (%.3fs, %.4fs, commas) so the two can be diffed; the
 * elog-tui part uses timefmt's adaptive units for every time. */
#include "statsfmt.h"

#include <inttypes.h>

#include "timefmt.h"


void
statsfmt_commas(strbuf *sb, uint64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = n - 1; i >= 0; i--) {
        strbuf_putc(sb, digits[i]);
        if (i > 0 && i % 3 == 0)
            strbuf_putc(sb, ',');
    }
}

static double
statsfmt_sec(uint64_t ns)
{
    return (double)ns / 1e9;
}

/* One "%16s bytes ..." row: right-aligned in 16 columns, longer numbers unpadded. */
static void
statsfmt_bytes_row(strbuf *sb, uint64_t v, const char *what)
{
    strbuf num;
    strbuf_init(&num);
    statsfmt_commas(&num, v);
    strbuf_printf(sb, "%16s %s\n", num.data, what);
    strbuf_free(&num);
}

/* A duration right-aligned in `width` columns. */
static void
statsfmt_time_col(strbuf *sb, uint64_t ns, int width)
{
    strbuf t;
    strbuf_init(&t);
    timefmt_append(&t, ns);
    strbuf_printf(sb, "%*s", width, t.data);
    strbuf_free(&t);
}

static void
statsfmt_notes(strbuf *sb, const gcstats_report *r)
{
    if (r->windowed) {
        strbuf_puts(sb, "elog-tui: window from ");
        timefmt_append_res(sb, r->window.from_ns, 1);     /* log times: exact */
        strbuf_puts(sb, " to ");
        if (r->window.to_ns == UINT64_MAX)
            strbuf_puts(sb, "the end");
        else
            timefmt_append_res(sb, r->window.to_ns, 1);
        strbuf_puts(sb, ": collections that start in it; phases clipped to it;"
                        " TASKS and SPARKS are the whole run\n");
    }
    if (r->truncated) {
        strbuf_puts(sb, "elog-tui: partial report: the log is truncated, its last event is at ");
        timefmt_append_res(sb, r->last_ns, 1);
        strbuf_puts(sb, "\n");
    }
    if (r->partial)
        strbuf_puts(sb, "elog-tui: no exit report in the log: Total is the last event,"
                        " INIT ends at the first thread, no EXIT\n");
    if (r->n_gcs_cut)
        strbuf_puts(sb, "elog-tui: the log stops inside a collection; it is not counted\n");
    uint64_t closed = 0, unpaired = 0;
    for (unsigned g = 0; g < r->n_gens; g++) {
        closed += r->gens[g].n_closed_at_end;
        unpaired += r->gens[g].n_unpaired;
    }
    if (closed)
        strbuf_printf(sb, "elog-tui: %" PRIu64 " collection(s) without GC_END, closed at the"
                      " last event\n", closed);
    if (unpaired > closed)
        strbuf_printf(sb, "elog-tui: %" PRIu64 " collection(s) without GC_START: counted,"
                      " no pause\n", unpaired - closed);
    if (r->n_gcs_bad_gen)
        strbuf_printf(sb, "elog-tui: %" PRIu64 " collection(s) of generation >= %d ignored\n",
                      r->n_gcs_bad_gen, GCSTATS_MAX_GENS);
    if (!r->has_gc_events)
        strbuf_puts(sb, "elog-tui: no GC statistics in the log (traced without -lg):"
                        " no GC rows\n");
}

static void
statsfmt_gc_rows(strbuf *sb, const gcstats_report *r)
{
    statsfmt_bytes_row(sb, r->bytes_allocated, "bytes allocated in the heap");
    statsfmt_bytes_row(sb, r->bytes_copied, "bytes copied during GC");
    if (r->residency_samples > 0) {
        strbuf num;
        strbuf_init(&num);
        strbuf_printf(&num, "bytes maximum residency (%" PRIu64 " sample(s))",
                      r->residency_samples);
        statsfmt_bytes_row(sb, r->max_residency, num.data);
        strbuf_free(&num);
    }
    statsfmt_bytes_row(sb, r->max_slop, "bytes maximum slop");
    /* Fragmentation needs the block high-water mark, which is never logged (§2). */
    strbuf_printf(sb, "%16" PRIu64 " MiB total memory in use\n\n", r->total_mem_mib);
    strbuf_printf(sb, "%37s%s\n", "", "Elapsed   Avg pause  Max pause");
    for (unsigned g = 0; g < r->n_gens; g++) {
        const gcstats_gen *row = &r->gens[g];
        strbuf_printf(sb, "  Gen %2u     %5" PRIu64 " colls, %5" PRIu64 " par  %7.3fs"
                      "     %3.4fs    %3.4fs\n", g, row->colls, row->par_colls,
                      statsfmt_sec(row->elapsed_ns), statsfmt_sec(row->avg_pause_ns),
                      statsfmt_sec(row->max_pause_ns));
    }
    if (r->nonmoving) {
        /* The RTS prints the number of major collections as the sync count (§5). */
        uint64_t k = r->n_gens ? r->gens[r->n_gens - 1].colls : 0;
        strbuf_printf(sb, "  Gen  1     %5" PRIu64 " syncs,%19.3fs"
                      "     %3.4fs    %3.4fs\n", k, statsfmt_sec(r->sync_elapsed_ns),
                      statsfmt_sec(k ? r->sync_elapsed_ns / k : 0),
                      statsfmt_sec(r->sync_max_ns));
        /* Wall clock of the concurrent cycles (first mark .. sweep end), §5. */
        uint64_t c = r->conc_cycles;
        strbuf_printf(sb, "  Gen  1      concurrent,%19.3fs     %3.4fs    %3.4fs\n",
                      statsfmt_sec(r->conc_wall_ns), statsfmt_sec(c ? r->conc_wall_ns / c : 0),
                      statsfmt_sec(r->conc_wall_max_ns));
        strbuf_puts(sb, "  (concurrent: wall clock of each cycle, first mark to end of sweep)\n");
    }
    strbuf_puts(sb, "\n");
}

static void
statsfmt_threaded_rows(strbuf *sb, const gcstats_report *r)
{
    if (r->has_work_balance && r->work_balance > 0)
        strbuf_printf(sb, "  Parallel GC work balance: %.2f%% (serial 0%%, perfect 100%%)\n\n",
                      r->work_balance * 100);
    strbuf_printf(sb, "  TASKS: %" PRIu64 " (%" PRIu64 " bound, %" PRIu64 " peak workers (%"
                  PRIu64 " total), using -N%u)\n\n", r->tasks_total, r->tasks_bound,
                  r->peak_workers, r->workers_total, r->n_caps);
    strbuf_printf(sb, "  SPARKS: %" PRIu64 " (%" PRIu64 " converted, %" PRIu64 " overflowed, %"
                  PRIu64 " dud, %" PRIu64 " GC'd, %" PRIu64 " fizzled)\n\n", r->sparks_created,
                  r->sparks_converted, r->sparks_overflowed, r->sparks_dud, r->sparks_gcd,
                  r->sparks_fizzled);
}

static void
statsfmt_phase(strbuf *sb, const char *name, uint64_t ns)
{
    strbuf_printf(sb, "  %-7s time %8.3fs elapsed\n", name, statsfmt_sec(ns));
}

static void
statsfmt_phases(strbuf *sb, const gcstats_report *r)
{
    statsfmt_phase(sb, "INIT", r->init_ns);
    statsfmt_phase(sb, "MUT", r->mut_ns);
    if (r->has_gc_events)
        statsfmt_phase(sb, "GC", r->gc_ns);
    if (r->nonmoving)
        strbuf_printf(sb, "  CONC GC time %8.3fs elapsed\n", statsfmt_sec(r->conc_wall_ns));
    if (r->profiled) {
        statsfmt_phase(sb, "RP", 0);
        statsfmt_phase(sb, "PROF", r->prof_ns);
    }
    statsfmt_phase(sb, "EXIT", r->exit_ns);
    statsfmt_phase(sb, "Total", r->total_ns);
    strbuf_puts(sb, "\n");
    /* The RTS's alloc rate is per MUT CPU second, which the log cannot know: ours is
     * per elapsed MUT second, and says so. */
    if (r->mut_ns > 0) {
        strbuf_puts(sb, "  Alloc rate    ");
        /* A corrupt log can claim more than a u64 per second: saturate. */
        double rate = (double)r->bytes_allocated / statsfmt_sec(r->mut_ns);
        statsfmt_commas(sb, rate < 18446744073709551615.0 ? (uint64_t)rate : UINT64_MAX);
        strbuf_puts(sb, " bytes per elapsed MUT second\n\n");
    }
    strbuf_printf(sb, "  Productivity  %.1f%% of total elapsed\n", r->productivity * 100);
}

static void
statsfmt_extra(strbuf *sb, const gcstats_report *r)
{
    strbuf_puts(sb, "\nelog-tui: pause percentiles (elapsed, nearest rank)\n");
    strbuf_puts(sb, "                 colls        p50        p90        p99        max\n");
    for (unsigned g = 0; g < r->n_gens; g++) {
        const gcstats_gen *row = &r->gens[g];
        strbuf_printf(sb, "  Gen %2u     %9" PRIu64, g, row->colls);
        if (row->colls == row->n_unpaired) {
            strbuf_printf(sb, "%11s%11s%11s%11s\n", "-", "-", "-", "-");
            continue;
        }
        statsfmt_time_col(sb, row->p50_ns, 11);
        statsfmt_time_col(sb, row->p90_ns, 11);
        statsfmt_time_col(sb, row->p99_ns, 11);
        statsfmt_time_col(sb, row->max_pause_ns, 11);
        strbuf_puts(sb, "\n");
    }
    if (r->n_longest == 0)
        strbuf_puts(sb, "\nelog-tui: no pauses\n");
    else
        strbuf_printf(sb, "\nelog-tui: the %u longest pauses\n", r->n_longest);
    for (unsigned i = 0; i < r->n_longest; i++) {
        const gcstats_pause *p = &r->longest[i];
        strbuf_printf(sb, "  %u.", i + 1);
        statsfmt_time_col(sb, p->pause_ns, 11);
        strbuf_printf(sb, "  Gen %u  at ", (unsigned)p->gen);
        timefmt_append_res(sb, p->start_ns, 1);
        if (p->cap != EVLOG_NO_CAP)
            strbuf_printf(sb, "  (cap %u)", (unsigned)p->cap);
        strbuf_puts(sb, "\n");
    }
    if (r->nonmoving) {
        strbuf_printf(sb, "\nelog-tui: nonmoving: %" PRIu64 " post-mark syncs; %" PRIu64
                      " concurrent cycles, wall clock (the 9.0 RTS reports CPU time): ",
                      r->sync_count, r->conc_cycles);
        timefmt_append(sb, r->conc_wall_ns);
        strbuf_puts(sb, " total, ");
        timefmt_append(sb, r->conc_wall_max_ns);
        strbuf_puts(sb, " max\n");
    }
}

void
statsfmt_report(strbuf *sb, const gcstats_report *r)
{
    statsfmt_notes(sb, r);
    if (r->has_gc_events)
        statsfmt_gc_rows(sb, r);
    if (r->threaded)
        statsfmt_threaded_rows(sb, r);
    statsfmt_phases(sb, r);
    if (r->has_gc_events)
        statsfmt_extra(sb, r);
}
