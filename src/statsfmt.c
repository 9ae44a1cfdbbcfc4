/* statsfmt: rendering of a gcstats_report. The `+RTS -s` part copies the RTS's
 * column layout and formats (%.3fs, %.4fs, commas) so the two can be diffed, and
 * says "unknown" with the reason for a row the log cannot know; the elog-tui part
 * uses timefmt's adaptive units for every time. */
#include "statsfmt.h"

#include <inttypes.h>
#include <stdio.h>

#include "timefmt.h"

#define MIB_U (1024u * 1024u)


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
                        " INIT ends where main starts, no EXIT\n");
    else if (r->end_is_last_event)
        strbuf_puts(sb, "elog-tui: Total is the log's last event: the exit report's"
                        " allocation figures (class g) are not in the log\n");
    if (r->n_gcs_cut)
        strbuf_printf(sb, "elog-tui: %" PRIu64 " collection(s) without GC_STATS in the log (the"
                      " log stops inside one, or its leader's buffer was never written):"
                      " in no row, their time is in MUT\n", r->n_gcs_cut);
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
    /* Fragmentation needs the blocks' high-water mark: GHC 9.2+ logs BLOCKS_SIZE after
     * every GC, older GHCs nothing (§2). */
    if (r->mem.has_frag)
        strbuf_printf(sb, "%16" PRIu64 " MiB total memory in use (%" PRIu64
                      " MiB lost due to fragmentation)\n\n", r->total_mem_mib,
                      r->mem.frag_mib);
    else if (r->total_mem_at_least)
        strbuf_printf(sb, "%16" PRIu64 " MiB total memory in use (at least; GHC < 9.2 logs no"
                      " peak inside a major GC)\n\n", r->total_mem_mib);
    else
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
        strbuf_printf(sb, "  Gen  1     %5" PRIu64 " concurrent,%14.3fs     %3.4fs    %3.4fs\n",
                      c, statsfmt_sec(r->conc_wall_ns), statsfmt_sec(c ? r->conc_wall_ns / c : 0),
                      statsfmt_sec(r->conc_wall_max_ns));
        strbuf_puts(sb, "  (concurrent: cycles; wall clock, first mark to end of sweep; avg per cycle");
        if (r->conc_cycles_cut)
            strbuf_printf(sb, "; %" PRIu64 " cut short", r->conc_cycles_cut);
        strbuf_puts(sb, ")\n");
    }
    if (r->n_censuses_in_gc)
        strbuf_printf(sb, "  (heap census: %.3fs of the Elapsed above, %" PRIu64 " censuses;"
                      " per generation below)\n", statsfmt_sec(r->census_ns),
                      r->n_censuses_in_gc);
    strbuf_puts(sb, "\n");
}

static void
statsfmt_threaded_rows(strbuf *sb, const gcstats_report *r)
{
    if (r->has_work_balance && r->work_balance > 0)
        strbuf_printf(sb, "  Parallel GC work balance: %.2f%% (serial 0%%, perfect 100%%)\n\n",
                      r->work_balance * 100);
    if (r->has_tasks)
        strbuf_printf(sb, "  TASKS: %" PRIu64 " (%" PRIu64 " bound, %" PRIu64 " peak workers (%"
                      PRIu64 " total), using -N%u)\n\n", r->tasks_total, r->tasks_bound,
                      r->peak_workers, r->workers_total, r->n_caps);
    else
        strbuf_printf(sb, "  TASKS: not in the log (%s), using -N%u\n\n",
                      !r->has_sched  ? "no scheduler events traced"
                      : r->truncated ? "the log is cut before the RTS wrote its task events"
                                     : "no task events", r->n_caps);
    if (r->has_sparks)
        strbuf_printf(sb, "  SPARKS: %" PRIu64 " (%" PRIu64 " converted, %" PRIu64 " overflowed, %"
                      PRIu64 " dud, %" PRIu64 " GC'd, %" PRIu64 " fizzled)\n", r->sparks_created,
                      r->sparks_converted, r->sparks_overflowed, r->sparks_dud, r->sparks_gcd,
                      r->sparks_fizzled);
    else
        strbuf_puts(sb, "  SPARKS: not in the log (no spark counters or spark events traced)\n");
    if (r->sparks_from_events)
        strbuf_puts(sb, "  (SPARKS counted from the per-spark events: no spark counters traced)\n");
    strbuf_puts(sb, "\n");
}

static void
statsfmt_phase(strbuf *sb, const char *name, uint64_t ns, const char *why)
{
    strbuf_printf(sb, "  %-7s time %8.3fs elapsed", name, statsfmt_sec(ns));
    if (why)
        strbuf_printf(sb, "  (%s)", why);
    strbuf_puts(sb, "\n");
}

/* A row the log cannot know, and why. */
static void
statsfmt_unknown(strbuf *sb, const char *name, const char *why)
{
    strbuf_printf(sb, "  %-7s time  unknown  (%s)\n", name, why);
}

static void
statsfmt_phases(strbuf *sb, const gcstats_report *r)
{
    static const char no_sched[] = "not in the log: no scheduler events traced";
    bool no_exit = !r->has_exit && !r->partial;     /* a cut run has no EXIT to miss */
    if (r->has_init)
        statsfmt_phase(sb, "INIT", r->init_ns, NULL);
    else
        statsfmt_unknown(sb, "INIT", no_sched);
    /* MUT keeps every part the log cannot tell apart from it. */
    strbuf why;
    strbuf_init(&why);
    const char *parts[3];
    int n = 0;
    if (!r->has_init)
        parts[n++] = "INIT";
    if (!r->has_gc_events)
        parts[n++] = "GC";
    if (no_exit)
        parts[n++] = "EXIT";
    for (int i = 0; i < n; i++)
        strbuf_printf(&why, "%s%s", i == 0 ? "includes " : i == n - 1 ? " and " : ", ",
                      parts[i]);
    statsfmt_phase(sb, "MUT", r->mut_ns, n ? why.data : NULL);
    strbuf_free(&why);
    bool prof_in_gc = r->profiled && !r->prof_known;
    if (r->has_gc_events)
        statsfmt_phase(sb, "GC", r->gc_ns, prof_in_gc ? "includes PROF" : NULL);
    else
        statsfmt_unknown(sb, "GC", "no GC events traced: in MUT");
    if (r->nonmoving)
        strbuf_printf(sb, "  CONC GC time %8.3fs elapsed\n", statsfmt_sec(r->conc_wall_ns));
    if (r->profiled) {
        if (r->prof_has_rp)
            statsfmt_unknown(sb, "RP", "retainer profiling cannot be told apart: in PROF");
        else
            statsfmt_phase(sb, "RP", 0, NULL);
        if (prof_in_gc)
            statsfmt_unknown(sb, "PROF", "-hb writes its censuses at the end of the run:"
                                         " in GC");
        else
            statsfmt_phase(sb, "PROF", r->prof_ns, r->prof_has_rp ? "includes RP" : NULL);
    }
    if (r->has_exit)
        statsfmt_phase(sb, "EXIT", r->exit_ns, NULL);
    else if (r->partial)
        statsfmt_unknown(sb, "EXIT", "the log ends before the program's exit");
    else
        statsfmt_unknown(sb, "EXIT", r->has_init ? "the exit boundary is not in the log: in MUT"
                                                 : no_sched);
    statsfmt_phase(sb, "Total", r->total_ns, r->end_is_last_event ? "to the log's last event"
                                                                   : NULL);
    strbuf_puts(sb, "\n");
    /* The RTS's alloc rate is per MUT CPU second, which the log cannot know: ours is
     * per elapsed MUT second, and says so. */
    if (r->has_gc_events && r->mut_ns > 0) {
        strbuf_puts(sb, "  Alloc rate    ");
        /* A corrupt log can claim more than a u64 per second: saturate. */
        double rate = (double)r->bytes_allocated / statsfmt_sec(r->mut_ns);
        statsfmt_commas(sb, rate < 18446744073709551615.0 ? (uint64_t)rate : UINT64_MAX);
        strbuf_puts(sb, " bytes per elapsed MUT second");
        if (n)
            strbuf_puts(sb, " (at least: MUT is too long, see above)");
        strbuf_puts(sb, "\n\n");
    }
    switch (r->productivity_known) {
    case GCSTATS_EXACT:
        strbuf_printf(sb, "  Productivity  %.1f%% of total elapsed\n", r->productivity * 100);
        break;
    case GCSTATS_AT_MOST:
        strbuf_printf(sb, "  Productivity  at most %.1f%% of total elapsed (INIT or EXIT is"
                      " not in the log)\n", r->productivity * 100);
        break;
    case GCSTATS_AT_LEAST:
        strbuf_printf(sb, "  Productivity  at least %.1f%% of total elapsed (GC includes PROF)\n",
                      r->productivity * 100);
        break;
    case GCSTATS_UNKNOWN:
        strbuf_printf(sb, "  Productivity  unknown (%s)\n",
                      !r->has_gc_events ? "no GC events traced"
                      : !r->total_ns    ? "the window holds none of the run"
                                        : "INIT, EXIT and PROF are not in the log");
        break;
    }
}

/* One "Gen N  colls  total  avg  max" row of adaptive times; `-` when n is 0. */
static void
statsfmt_sum_row(strbuf *sb, const char *label, uint64_t colls, uint64_t n, uint64_t total_ns,
                 uint64_t max_ns)
{
    strbuf_printf(sb, "  %-10s %9" PRIu64, label, colls);
    if (n == 0) {
        strbuf_printf(sb, "%11s%11s%11s%11s\n", "-", "-", "-", "-");
        return;
    }
    strbuf_printf(sb, "%11" PRIu64, n);
    statsfmt_time_col(sb, total_ns, 11);
    statsfmt_time_col(sb, total_ns / n, 11);
    statsfmt_time_col(sb, max_ns, 11);
    strbuf_puts(sb, "\n");
}

/* Time to stop per generation (§1): request -> the leader's GC start. */
static void
statsfmt_stop(strbuf *sb, const gcstats_report *r)
{
    uint64_t any = 0;
    for (unsigned g = 0; g < r->n_gens; g++)
        any += r->gens[g].n_stop;
    if (!any) {
        strbuf_printf(sb, "\nelog-tui: time to stop: unknown (no GC request events%s)\n",
                      r->threaded ? "" : ": the non-threaded RTS posts none");
        return;
    }
    strbuf_puts(sb, "\nelog-tui: time to stop (GC request -> all stopped, the leader's GC"
                    " start; before the pause, not in it)\n");
    strbuf_puts(sb, "                 colls   requests      total        avg        max\n");
    for (unsigned g = 0; g < r->n_gens; g++) {
        const gcstats_gen *row = &r->gens[g];
        char label[16];
        snprintf(label, sizeof label, "Gen %2u", g);
        statsfmt_sum_row(sb, label, row->colls, row->n_stop, row->stop_ns, row->stop_max_ns);
    }
}

/* Heap census inside collections per generation (§4 census). */
static void
statsfmt_census(strbuf *sb, const gcstats_report *r)
{
    if (r->n_censuses == 0)
        return;
    strbuf_printf(sb, "\nelog-tui: heap census inside collections (part of the pauses above;"
                  " %s)\n", r->profiled ? "the PROF row" : "the RTS counts it as GC");
    strbuf_puts(sb, "                 colls   censuses      total        avg        max\n");
    for (unsigned g = 0; g < r->n_gens; g++) {
        const gcstats_gen *row = &r->gens[g];
        char label[16];
        snprintf(label, sizeof label, "Gen %2u", g);
        statsfmt_sum_row(sb, label, row->colls, row->n_census, row->census_ns,
                         row->census_max_ns);
    }
    if (r->n_censuses > r->n_censuses_in_gc)
        strbuf_printf(sb, "  %" PRIu64 " of %" PRIu64 " censuses are outside any collection"
                      " counted here\n", r->n_censuses - r->n_censuses_in_gc, r->n_censuses);
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
    statsfmt_stop(sb, r);
    statsfmt_census(sb, r);
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

/* Memory the OS sees: MEM_RETURN and BLOCKS_SIZE (GHC 9.2+, §2 memory). */
static void
statsfmt_memory(strbuf *sb, const gcstats_report *r)
{
    const gcstats_memory *m = &r->mem;
    if (!m->has_mem_return && !m->has_blocks_size)
        return;
    strbuf_printf(sb, "\nelog-tui: memory: peak %" PRIu64 " megablocks (%" PRIu64
                  " MiB) allocated from the OS\n", m->peak_mblocks,
                  m->peak_mblocks * m->mblock_bytes / MIB_U);
    if (m->has_mem_return)
        strbuf_printf(sb, "  returned to the OS: %" PRIu64 " megablocks over %" PRIu64
                      " major GCs; at the last: %" PRIu64 " current, %" PRIu64 " needed\n",
                      m->returned_mblocks, m->n_mem_return, m->last_current_mblocks,
                      m->last_needed_mblocks);
    if (m->has_blocks_size)
        strbuf_printf(sb, "  blocks in use: at most %" PRIu64 " bytes (after a GC)\n",
                      m->max_blocks_bytes);
}

/* Non-moving heap census with its block sizes, and free-list pruning (§5). */
static void
statsfmt_nonmoving_detail(strbuf *sb, const gcstats_report *r)
{
    const gcstats_nonmoving_detail *nm = &r->nm;
    if (nm->n_census_events) {
        strbuf_printf(sb, "\nelog-tui: nonmoving heap census: %" PRIu64 " census(es), %s;"
                      " the last:\n", nm->n_censuses,
                      nm->wide_census ? "14-byte layout (block size in bytes)"
                                      : "13-byte layout (block size as log2)");
        strbuf_puts(sb, "     block size    active    filled  live blocks      live bytes\n");
        uint64_t act = 0, fil = 0, liv = 0, bytes = 0;
        for (unsigned i = 0; i < nm->n_last; i++) {
            const gcstats_nm_alloc *a = &nm->last[i];
            uint64_t b = (uint64_t)a->live * a->blk_size;
            strbuf_printf(sb, "  %13u %9u %9u %12u %15" PRIu64 "\n", a->blk_size, a->active,
                          a->filled, a->live, b);
            act += a->active, fil += a->filled, liv += a->live, bytes += b;
        }
        strbuf_printf(sb, "  %13s %9" PRIu64 " %9" PRIu64 " %12" PRIu64 " %15" PRIu64 "\n",
                      "total", act, fil, liv, bytes);
    }
    if (nm->n_prunes)
        strbuf_printf(sb, "\nelog-tui: nonmoving free list pruned %" PRIu64 " times: %" PRIu64
                      " segments pruned; %" PRIu64 " free segments retained at the last"
                      " (at most %" PRIu64 ")\n", nm->n_prunes, nm->pruned_segments,
                      nm->last_free_segments, nm->max_free_segments);
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
    statsfmt_memory(sb, r);
    statsfmt_nonmoving_detail(sb, r);
}
