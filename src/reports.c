/* reports: TSV and JSON tables of collections, markers and threads, written from the
 * index alone (text is read back from the mapping by offset). */
#include "reports.h"

#include <stdlib.h>
#include <string.h>

#include "heapbands.h"
#include "radixsort.h"
#include "textfmt.h"
#include "threadstats.h"
#include "xalloc.h"

void
reports_tsv_text(strbuf *out, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int32_t cp = textfmt_utf8_next(p, n, &i);
        if (cp == '\\')
            strbuf_puts(out, "\\\\");
        else if (cp == '\t')
            strbuf_puts(out, "\\t");
        else if (cp == '\n')
            strbuf_puts(out, "\\n");
        else if (cp == '\r')
            strbuf_puts(out, "\\r");
        else if (cp >= 0 && (cp < 0x20 || cp == 0x7f))
            strbuf_printf(out, "\\x%02x", (unsigned)cp);
        else
            textfmt_append_cp(out, cp < 0 ? 0xfffd : (uint32_t)cp);
    }
}

void
reports_json_text(strbuf *out, const uint8_t *p, size_t n)
{
    strbuf_putc(out, '"');
    size_t i = 0;
    while (i < n) {
        int32_t cp = textfmt_utf8_next(p, n, &i);
        if (cp == '"' || cp == '\\') {
            strbuf_putc(out, '\\');
            strbuf_putc(out, (char)cp);
        } else if (cp == '\n') {
            strbuf_puts(out, "\\n");
        } else if (cp == '\t') {
            strbuf_puts(out, "\\t");
        } else if (cp >= 0 && (cp < 0x20 || cp == 0x7f)) {
            strbuf_printf(out, "\\u%04x", (unsigned)cp);
        } else {
            textfmt_append_cp(out, cp < 0 ? 0xfffd : (uint32_t)cp);
        }
    }
    strbuf_putc(out, '"');
}

/* ---- values that may be unknown: "-" in TSV, null in JSON ---------------------------- */

static void
rep_u64(strbuf *out, bool json, uint64_t v, bool known)
{
    if (known)
        strbuf_u64(out, v);
    else
        strbuf_puts(out, json ? "null" : "-");
}

static void
rep_cap(strbuf *out, bool json, uint16_t cap)
{
    rep_u64(out, json, cap, cap != EVINDEX_NO_CAP);
}

/* ---- gc --------------------------------------------------------------------------------- */

static const struct {
    uint8_t flag;
    const char *name;
} reports_gc_flags[] = {
    { EVINDEX_GC_F_PAR_REQUEST, "par-request" },
    { EVINDEX_GC_F_MAJOR, "major" },
    { EVINDEX_GC_F_OPEN, "cut-short" },
    { EVINDEX_GC_F_NO_STATS, "no-stats" },
    { EVINDEX_GC_F_NO_START, "no-start" },
    { EVINDEX_GC_F_BIO_CENSUS, "bio-census" },
};

static void
rep_gc_flags(strbuf *out, bool json, uint8_t flags)
{
    bool any = false;
    if (json)
        strbuf_putc(out, '[');
    for (size_t i = 0; i < sizeof reports_gc_flags / sizeof reports_gc_flags[0]; i++) {
        if (!(flags & reports_gc_flags[i].flag))
            continue;
        if (any)
            strbuf_putc(out, ',');
        if (json)
            strbuf_printf(out, "\"%s\"", reports_gc_flags[i].name);
        else
            strbuf_puts(out, reports_gc_flags[i].name);
        any = true;
    }
    if (json)
        strbuf_putc(out, ']');
    else if (!any)
        strbuf_putc(out, '-');
}

typedef struct rep_key {
    uint64_t key;               /* sorted descending */
    uint64_t tie;               /* then ascending */
    size_t idx;
} rep_key;

static int
rep_key_cmp(const void *a, const void *b)
{
    const rep_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key > y->key ? -1 : 1;
    if (x->tie != y->tie)
        return x->tie < y->tie ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Row order: identity, or sorted by keys[] (built by the caller). Caller frees. */
static size_t *
rep_order(size_t n, rep_key *keys)
{
    size_t *order = xmalloc((n + 1) * sizeof *order);
    if (keys) {
        qsort(keys, n, sizeof *keys, rep_key_cmp);
        for (size_t i = 0; i < n; i++)
            order[i] = keys[i].idx;
    } else {
        for (size_t i = 0; i < n; i++)
            order[i] = i;
    }
    return order;
}

static size_t
rep_rows(size_t n, const reports_opts *o)
{
    return o->limit && o->limit < n ? o->limit : n;
}

static void
rep_gc_row(strbuf *out, const evindex *ix, const evindex_gc *g, bool json)
{
    bool has_stats = !(g->flags & EVINDEX_GC_F_NO_STATS);
    const char *sep = json ? "," : "\t";
    if (json)
        strbuf_puts(out, "{\"start_ns\":");
    strbuf_u64(out, g->start_ns);
    strbuf_puts(out, json ? ",\"pause_ns\":" : sep);
    rep_u64(out, json, g->end_ns - g->start_ns, !(g->flags & EVINDEX_GC_F_NO_START));
    strbuf_puts(out, json ? ",\"stopping_ns\":" : sep);
    rep_u64(out, json, g->stopping_ns, g->stopping_ns != EVINDEX_NO_TIME);
    strbuf_puts(out, json ? ",\"census_ns\":" : sep);
    strbuf_u64(out, g->census_ns);
    strbuf_puts(out, json ? ",\"request_ns\":" : sep);
    rep_u64(out, json, g->request_ns, g->request_cap != EVINDEX_NO_CAP);
    strbuf_puts(out, json ? ",\"gen\":" : sep);
    rep_u64(out, json, g->gen, has_stats);
    strbuf_puts(out, json ? ",\"par_threads\":" : sep);
    rep_u64(out, json, g->par_threads, has_stats);
    strbuf_puts(out, json ? ",\"copied_bytes\":" : sep);
    rep_u64(out, json, g->copied, has_stats);
    strbuf_puts(out, json ? ",\"live_after_bytes\":" : sep);
    rep_u64(out, json, g->live_after, g->live_after != EVINDEX_NO_TIME);
    strbuf_puts(out, json ? ",\"heap_after_bytes\":" : sep);
    rep_u64(out, json, g->heap_after, g->heap_after != EVINDEX_NO_TIME);
    strbuf_puts(out, json ? ",\"allocated_bytes\":" : sep);
    rep_u64(out, json, g->allocated_before, g->allocated_before != EVINDEX_NO_TIME);
    strbuf_puts(out, json ? ",\"leader_cap\":" : sep);
    rep_cap(out, json, g->leader_cap);
    strbuf_puts(out, json ? ",\"request_cap\":" : sep);
    rep_cap(out, json, g->request_cap);
    strbuf_puts(out, json ? ",\"slowest_cap\":" : sep);
    rep_cap(out, json, g->slowest_cap);
    strbuf_puts(out, json ? ",\"flags\":" : sep);
    rep_gc_flags(out, json, g->flags);
    if (json) {
        strbuf_puts(out, ",\"caps\":[");
        for (uint32_t i = 0; i < g->n_parts; i++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + i, &p_buf);
            strbuf_printf(out, "%s{\"cap\":", i ? "," : "");
            rep_cap(out, true, p->cap);
            strbuf_printf(out, ",\"start_ns\":%llu,\"end_ns\":%llu,\"stop_ns\":%llu,"
                          "\"work_ns\":%llu,\"idle_ns\":%llu}",
                          (unsigned long long)p->start_ns, (unsigned long long)p->end_ns,
                          (unsigned long long)p->stop_ns, (unsigned long long)p->work_ns,
                          (unsigned long long)p->wait_ns);
        }
        strbuf_puts(out, "]}");
        return;
    }
    for (int field = 0; field < 2; field++) {
        strbuf_putc(out, '\t');
        if (!g->n_parts)
            strbuf_putc(out, '-');
        for (uint32_t i = 0; i < g->n_parts; i++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + i, &p_buf);
            if (i)
                strbuf_putc(out, ',');
            if (p->cap == EVINDEX_NO_CAP)
                strbuf_putc(out, '-');
            else
                strbuf_u64(out, p->cap);
            strbuf_putc(out, ':');
            strbuf_u64(out, field ? p->wait_ns : p->work_ns);
        }
    }
}

/* Hand a full buffer to the caller's flush, if it gave one. */
static void
rep_maybe_flush(strbuf *out, const reports_opts *o)
{
    if (o->flush && out->len >= (o->flush_bytes ? o->flush_bytes : REPORTS_FLUSH_BYTES))
        o->flush(o->flush_ctx, out);
}

void
reports_gc(strbuf *out, const evindex *ix, const reports_opts *o)
{
    size_t n = evindex_n_gcs(ix);
    rep_key *keys = NULL;
    if (o->sort_by_pause) {
        keys = xmalloc((n + 1) * sizeof *keys);   /* freed below */
        for (size_t i = 0; i < n; i++) {
            evindex_gc g_buf;
            const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
            keys[i] = (rep_key){ g->end_ns - g->start_ns, g->start_ns, i };
        }
    }
    size_t *order = rep_order(n, keys);
    size_t rows = rep_rows(n, o);
    if (o->json)
        strbuf_puts(out, "[\n");
    else
        strbuf_puts(out, "start_ns\tpause_ns\tstopping_ns\tcensus_ns\trequest_ns\tgen\tpar_threads\t"
                         "copied_bytes\tlive_after_bytes\theap_after_bytes\tallocated_bytes\t"
                         "leader_cap\trequest_cap\tslowest_cap\tflags\twork_ns\tidle_ns\n");
    for (size_t r = 0; r < rows; r++) {
        rep_gc_row(out, ix, evindex_gc_get(ix, order[r], &(evindex_gc){ 0 }), o->json);
        strbuf_puts(out, o->json && r + 1 < rows ? ",\n" : "\n");
        rep_maybe_flush(out, o);
    }
    if (o->json)
        strbuf_puts(out, "]\n");
    x_free(order);
    x_free(keys);
}

/* ---- markers ------------------------------------------------------------------------------- */

static const char *const reports_msg_kinds[] = {
    [EVINDEX_MSG_MARKER] = "marker",
    [EVINDEX_MSG_USER] = "message",
    [EVINDEX_MSG_LOG] = "log",
    [EVINDEX_MSG_BINARY] = "binary",
};

/* Binary messages as hex digits; text as it is. */
static void
rep_msg_text(strbuf *out, const evindex *ix, const evindex_msg *m, bool json)
{
    const uint8_t *p = NULL;
    size_t len = 0;
    if (!evindex_msg_text(ix, m, &p, &len))
        len = 0;
    if (m->kind == EVINDEX_MSG_BINARY) {
        if (json)
            strbuf_putc(out, '"');
        for (size_t i = 0; i < len; i++)
            strbuf_printf(out, "%02x", p[i]);
        if (json)
            strbuf_putc(out, '"');
    } else if (json) {
        reports_json_text(out, p, len);
    } else {
        reports_tsv_text(out, p, len);
    }
}

void
reports_markers(strbuf *out, const evindex *ix, const reports_opts *o)
{
    size_t n = o->messages ? evindex_n_msgs(ix) : evindex_n_markers(ix);
    size_t rows = rep_rows(n, o);
    if (o->json)
        strbuf_puts(out, "[\n");
    else
        strbuf_puts(out, o->messages ? "time_ns\tcap\tkind\ttext\n" : "time_ns\tcap\tname\n");
    for (size_t r = 0; r < rows; r++) {
        const evindex_msg m_v = o->messages ? evindex_msg_at(ix, r) : evindex_marker_at(ix, r), *m = &m_v;
        if (o->json) {
            strbuf_printf(out, "{\"time_ns\":%llu,\"cap\":", (unsigned long long)m->time_ns);
            rep_cap(out, true, m->cap);
            if (o->messages)
                strbuf_printf(out, ",\"kind\":\"%s\",\"text\":", reports_msg_kinds[m->kind]);
            else
                strbuf_puts(out, ",\"name\":");
            rep_msg_text(out, ix, m, true);
            strbuf_puts(out, r + 1 < rows ? "},\n" : "}\n");
        } else {
            strbuf_u64(out, m->time_ns);
            strbuf_putc(out, '\t');
            rep_cap(out, false, m->cap);
            if (o->messages) {
                strbuf_putc(out, '\t');
                strbuf_puts(out, reports_msg_kinds[m->kind]);
            }
            strbuf_putc(out, '\t');
            rep_msg_text(out, ix, m, false);
            strbuf_putc(out, '\n');
        }
    }
    if (o->json)
        strbuf_puts(out, "]\n");
}

/* ---- threads -------------------------------------------------------------------------------- */

static void
rep_thread_row(strbuf *out, const evindex *ix, const threadtab_thread *t,
               const threadstats_row *st, bool json)
{
    const uint8_t *label = NULL;
    size_t label_len = 0;
    bool has_label = evindex_thread_label(ix, t, &label, &label_len);
    if (json) {
        strbuf_puts(out, "{\"tid\":");
        strbuf_u64(out, t->tid);
        strbuf_puts(out, ",\"label\":");
        if (has_label)
            reports_json_text(out, label, label_len);
        else
            strbuf_puts(out, "null");
        strbuf_puts(out, ",\"created_ns\":");
        rep_u64(out, true, t->create_ns, t->create_ns != THREADTAB_NO_TIME);
        strbuf_puts(out, ",\"create_cap\":");
        rep_cap(out, true, t->create_cap);
        strbuf_puts(out, ",\"first_run_ns\":");
        rep_u64(out, true, st->first_run_ns, st->first_run_ns != THREADTAB_NO_TIME);
        strbuf_puts(out, ",\"run_ns\":");
        strbuf_u64(out, st->run_ns);
        strbuf_puts(out, ",\"runs\":");
        strbuf_u64(out, st->n_runs);
        strbuf_puts(out, ",\"migrations\":");
        strbuf_u64(out, t->n_migrations);
        strbuf_puts(out, ",\"wakeups\":");
        strbuf_u64(out, t->n_wakeups);
        strbuf_puts(out, ",\"stops\":{");
        for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++) {
            strbuf_puts(out, c ? ",\"" : "\"");
            strbuf_puts(out, threadtab_stop_class_name((enum threadtab_stop_class)c));
            strbuf_puts(out, "\":");
            strbuf_u64(out, st->stops[c]);
        }
        strbuf_puts(out, "}}");
        return;
    }
    /* Numbers by strbuf_u64, not printf: millions of rows. */
    strbuf_u64(out, t->tid);
    strbuf_putc(out, '\t');
    if (has_label)
        reports_tsv_text(out, label, label_len);
    else
        strbuf_putc(out, '-');
    strbuf_putc(out, '\t');
    rep_u64(out, false, t->create_ns, t->create_ns != THREADTAB_NO_TIME);
    strbuf_putc(out, '\t');
    rep_cap(out, false, t->create_cap);
    strbuf_putc(out, '\t');
    rep_u64(out, false, st->first_run_ns, st->first_run_ns != THREADTAB_NO_TIME);
    const uint64_t tail[] = { st->run_ns, st->n_runs, t->n_migrations, t->n_wakeups };
    for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++) {
        strbuf_putc(out, '\t');
        strbuf_u64(out, tail[i]);
    }
    for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++) {
        strbuf_putc(out, '\t');
        strbuf_u64(out, st->stops[c]);
    }
}

/* Rows made a piece at a time, each piece a pass over the runs that can hold its
 * threads: the rows held take at most a REP_THREAD_ROWS_SHARE-th of the file's size
 * (and at least REP_THREAD_PIECE_MIN threads' worth), where 80 bytes for every thread
 * was half the memory of the `threads` command on a log of millions of threads. */
#define REP_THREAD_ROWS_SHARE 32u
#define REP_THREAD_PIECE_MIN 65536u

void
reports_threads(strbuf *out, const evindex *ix, const reports_opts *o)
{
    const threadtab *tt = evindex_threads(ix);
    size_t n = threadtab_count(tt);
    /* By run time (ties by id: the table's order): the ranking from the run times
     * alone; then each piece's threads picked. Else the table's order, piece by piece. */
    size_t *order = NULL;
    if (o->sort_by_run && n) {
        threadstats_brief b;
        threadstats_brief_all(ix, &b);
        x_free(b.n_runs);
        b.n_runs = NULL;
        order = radixsort_rank_desc(b.run_ns, n);      /* freed below */
        threadstats_brief_free(&b);
    }
    size_t rows = rep_rows(n, o);
    size_t piece =
        evlog_size(evindex_log(ix)) / REP_THREAD_ROWS_SHARE / sizeof(threadstats_row);
    piece = piece < REP_THREAD_PIECE_MIN ? REP_THREAD_PIECE_MIN : piece;
    piece = piece < rows ? piece : rows;
    threadstats_row *st = xmalloc((piece + 1) * sizeof *st);     /* freed below */
    if (o->json) {
        strbuf_puts(out, "[\n");
    } else {
        strbuf_puts(out, "tid\tlabel\tcreated_ns\tcreate_cap\tfirst_run_ns\trun_ns\truns\t"
                         "migrations\twakeups");
        for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++)
            strbuf_printf(out, "\tstop_%s",
                          threadtab_stop_class_name((enum threadtab_stop_class)c));
        strbuf_putc(out, '\n');
    }
    for (size_t r0 = 0; r0 < rows; r0 += piece) {
        size_t r1 = rows - r0 < piece ? rows : r0 + piece;
        if (order)
            threadstats_pick(ix, order + r0, r1 - r0, st);
        else
            threadstats_range(ix, r0, r1, st);
        for (size_t r = r0; r < r1; r++) {
            threadtab_thread t;
            threadtab_at(tt, order ? order[r] : r, &t);
            rep_thread_row(out, ix, &t, &st[r - r0], o->json);
            strbuf_puts(out, o->json && r + 1 < rows ? ",\n" : "\n");
            rep_maybe_flush(out, o);
        }
    }
    if (o->json)
        strbuf_puts(out, "]\n");
    x_free(order);
    x_free(st);
}

/* ---- heap profile --------------------------------------------------------------------------- */

/* A band's name as the log writes it, but "era N" for -he (see heapbands.h). */
static void
rep_band_name(strbuf *out, const heapprof *hp, size_t b, bool json, strbuf *tmp)
{
    strbuf_reset(tmp);
    if (heapprof_breakdown_of(hp) == HEAPPROF_BY_ERA)
        heapbands_name(hp, NULL, b, tmp);
    else
        heapprof_band_name(hp, b, tmp);
    if (json)
        reports_json_text(out, (const uint8_t *)tmp->data, tmp->len);
    else
        reports_tsv_text(out, (const uint8_t *)tmp->data, tmp->len);
}

static void rep_ipe_cells(strbuf *out, const ipe_entry *e, bool json);

static void
rep_heap_censuses(strbuf *out, const evindex *ix, const reports_opts *o, strbuf *tmp)
{
    const heapprof *hp = evindex_heap_profile(ix);
    size_t n = heapprof_n_censuses(hp);
    if (o->limit && o->limit < n)
        n = o->limit;
    /* -hi: each entry's band named from the log's IPE entries, as `heap` names them. */
    bool by_ipe = heapprof_breakdown_of(hp) == HEAPPROF_BY_INFO_TABLE;
    if (o->json)
        strbuf_puts(out, "[\n");
    else
        strbuf_printf(out, "time_ns\tband\tbytes%s\n",
                      by_ipe ? "\tinfo_table\tclosure_type\ttype\tlabel\tmodule\tsrc_loc" : "");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        const heapprof_census *c = heapprof_census_at(hp, i);
        for (size_t k = 0; k < c->n_entries; k++) {
            uint32_t band;
            uint64_t bytes;
            heapprof_entry(hp, i, k, &band, &bytes);
            if (o->json) {
                strbuf_puts(out, first ? "" : ",\n");
                strbuf_printf(out, "{\"time_ns\":%llu,\"band\":", (unsigned long long)c->time_ns);
                rep_band_name(out, hp, band, true, tmp);
                strbuf_printf(out, ",\"bytes\":%llu", (unsigned long long)bytes);
                if (by_ipe)
                    rep_ipe_cells(out, heapbands_ipe(hp, evindex_ipe(ix), band), true);
                strbuf_putc(out, '}');
            } else {
                strbuf_printf(out, "%llu\t", (unsigned long long)c->time_ns);
                rep_band_name(out, hp, band, false, tmp);
                strbuf_printf(out, "\t%llu", (unsigned long long)bytes);
                if (by_ipe)
                    rep_ipe_cells(out, heapbands_ipe(hp, evindex_ipe(ix), band), false);
                strbuf_putc(out, '\n');
            }
            first = false;
        }
    }
    if (o->json)
        strbuf_puts(out, first ? "]\n" : "\n]\n");
}

/* The IPE columns of a -hi band: table name, closure type, type, label, module,
 * source location (empty cells, or JSON nulls, without an IPE entry). */
static void
rep_ipe_cells(strbuf *out, const ipe_entry *e, bool json)
{
    static const char *const keys[] = { "info_table", "closure_type", "type", "label",
                                        "module", "src_loc" };
    const char *vals[6] = { NULL, NULL, NULL, NULL, NULL, NULL };
    if (e) {
        const char *ct = ipe_closure_type_name(e->closure_desc);
        vals[0] = e->table_name;
        vals[1] = ct ? ct : e->closure_desc;
        vals[2] = e->ty_desc;
        vals[3] = e->label;
        vals[4] = e->module;
        vals[5] = e->src_loc;
    }
    for (int k = 0; k < 6; k++) {
        if (json) {
            strbuf_printf(out, ",\"%s\":", keys[k]);
            if (vals[k])
                reports_json_text(out, (const uint8_t *)vals[k], strlen(vals[k]));
            else
                strbuf_puts(out, "null");
        } else {
            strbuf_putc(out, '\t');
            if (vals[k])
                reports_tsv_text(out, (const uint8_t *)vals[k], strlen(vals[k]));
        }
    }
}

void
reports_heap(strbuf *out, const evindex *ix, const reports_opts *o)
{
    const heapprof *hp = evindex_heap_profile(ix);
    strbuf tmp;
    strbuf_init(&tmp);
    if (o->censuses) {
        rep_heap_censuses(out, ix, o, &tmp);
        strbuf_free(&tmp);
        return;
    }
    size_t n = heapprof_n_bands(hp);
    size_t n_census = heapprof_n_censuses(hp);
    rep_key *keys = xmalloc((n + 1) * sizeof *keys);   /* freed below */
    for (size_t b = 0; b < n; b++)
        keys[b] = (rep_key){ heapprof_band_at(hp, b)->peak_bytes, (uint32_t)b, b };
    size_t *order = rep_order(n, keys);
    size_t rows = rep_rows(n, o);
    bool by_ipe = heapprof_breakdown_of(hp) == HEAPPROF_BY_INFO_TABLE;
    if (o->json)
        strbuf_puts(out, "[\n");
    else
        strbuf_printf(out, "band\tkind\tpeak_bytes\tpeak_ns\tmean_bytes\tlast_bytes\tcensuses%s\n",
                      by_ipe ? "\tinfo_table\tclosure_type\ttype\tlabel\tmodule\tsrc_loc" : "");
    for (size_t r = 0; r < rows; r++) {
        size_t b = order[r];
        const heapprof_band *band = heapprof_band_at(hp, b);
        const char *kind = band->kind == HEAPPROF_BAND_STACK ? "stack" : "string";
        unsigned long long mean = n_census ? band->sum_bytes / n_census : 0;
        if (o->json) {
            strbuf_puts(out, "{\"band\":");
            rep_band_name(out, hp, b, true, &tmp);
            strbuf_printf(out, ",\"kind\":\"%s\",\"peak_bytes\":%llu,\"peak_ns\":%llu,"
                          "\"mean_bytes\":%llu,\"last_bytes\":%llu,\"censuses\":%u",
                          kind, (unsigned long long)band->peak_bytes,
                          (unsigned long long)band->peak_time_ns, mean,
                          (unsigned long long)band->last_bytes, band->n_censuses);
            if (by_ipe)
                rep_ipe_cells(out, heapbands_ipe(hp, evindex_ipe(ix), b), true);
            strbuf_printf(out, "}%s\n", r + 1 < rows ? "," : "");
        } else {
            rep_band_name(out, hp, b, false, &tmp);
            strbuf_printf(out, "\t%s\t%llu\t%llu\t%llu\t%llu\t%u", kind,
                          (unsigned long long)band->peak_bytes,
                          (unsigned long long)band->peak_time_ns, mean,
                          (unsigned long long)band->last_bytes, band->n_censuses);
            if (by_ipe)
                rep_ipe_cells(out, heapbands_ipe(hp, evindex_ipe(ix), b), false);
            strbuf_putc(out, '\n');
        }
    }
    if (o->json)
        strbuf_puts(out, "]\n");
    x_free(order);
    x_free(keys);
    strbuf_free(&tmp);
}
