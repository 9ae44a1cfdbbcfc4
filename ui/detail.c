/* detail: text for the detail pane and the status line, built only from the index (and,
 * for a run's stop reason, the one STOP_THREAD event re-read through the seek table).
 * Every number is computed here from the index's records and range summaries. */
#include "detail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "evseek.h"
#include "heapbands.h"
#include "pausehist.h"
#include "render.h"
#include "sparklanes.h"
#include "stopstatus.h"
#include "textfmt.h"
#include "timefmt.h"
#include "xalloc.h"

/* Events at one timestamp looked at when searching for a run's STOP_THREAD. */
#define DETAIL_STOP_SCAN 64
/* Characters of log text in the one-line status. */
#define DETAIL_STATUS_TEXT 60
/* Characters of a thread label in the status line. */
#define DETAIL_STATUS_LABEL 24
/* Largest bands of a heap-profile census listed at the cursor. */
#define DETAIL_HEAP_TOP 5
#define DETAIL_TICKY_TOP 8
#define DETAIL_IPE_TOP 4

/* ---- lines ------------------------------------------------------------------------------ */

void
detail_lines_init(detail_lines *d)
{
    d->lines = NULL;
    d->n = d->cap = 0;
}

void
detail_lines_free(detail_lines *d)
{
    for (size_t i = 0; i < d->n; i++)
        x_free(d->lines[i]);
    x_free(d->lines);
    detail_lines_init(d);
}

/* Append `s`, which the array takes over. */
static void
detail_push(detail_lines *d, char *s)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        d->lines = xreallocarray(d->lines, d->cap, sizeof *d->lines);
    }
    d->lines[d->n++] = s;
}

void
detail_lines_add(detail_lines *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    strbuf sb;
    strbuf_init(&sb);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n > 0) {
        strbuf_reserve(&sb, (size_t)n + 1);
        vsnprintf(sb.data, (size_t)n + 1, fmt, ap);
        sb.len = (size_t)n;
    } else {
        strbuf_reserve(&sb, 1);
        sb.data[0] = '\0';
    }
    va_end(ap);
    detail_push(d, sb.data);        /* the array owns it now */
}

/* Append the text of `sb` as one line. */
static void
detail_add_sb(detail_lines *d, const strbuf *sb)
{
    detail_push(d, xstrdup(sb->data ? sb->data : ""));
}

/* ---- formatting helpers ----------------------------------------------------------------- */

void
detail_bytes(strbuf *out, uint64_t bytes)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (bytes < 1024) {
        strbuf_printf(out, "%llu B", (unsigned long long)bytes);
        return;
    }
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    strbuf_printf(out, "%.1f %s", v, units[u]);
}

/* A time on the log's clock, exact to the nanosecond: for the pane, which has the room. */
static void
detail_at(strbuf *out, uint64_t t_ns)
{
    timefmt_append_res(out, t_ns, 1);
}

uint64_t
detail_res_near(uint64_t t_ns, uint64_t prev_ns, uint64_t next_ns)
{
    uint64_t gap = DETAIL_ITEM_RES_NS;
    if (prev_ns != UINT64_MAX) {
        uint64_t d = t_ns >= prev_ns ? t_ns - prev_ns : 0;
        gap = d < gap ? d : gap;
    }
    if (next_ns != UINT64_MAX) {
        uint64_t d = next_ns >= t_ns ? next_ns - t_ns : 0;
        gap = d < gap ? d : gap;
    }
    return timefmt_res(gap);
}

/* The resolution for item i of a time-ordered list of n, by its neighbours' times. */
static uint64_t
detail_list_res(const evindex *ix, size_t i, size_t n,
                uint64_t (*time_at)(const evindex *ix, size_t i))
{
    if (i >= n)
        return DETAIL_ITEM_RES_NS;
    return detail_res_near(time_at(ix, i), i > 0 ? time_at(ix, i - 1) : UINT64_MAX,
                           i + 1 < n ? time_at(ix, i + 1) : UINT64_MAX);
}

static uint64_t
detail_marker_time(const evindex *ix, size_t i)
{
    return evindex_marker_at(ix, i).time_ns;
}

static uint64_t
detail_gc_time(const evindex *ix, size_t i)
{
    return evindex_gc_get(ix, i, &(evindex_gc){ 0 })->start_ns;
}

static uint64_t
detail_msg_time(const evindex *ix, size_t i)
{
    return evindex_msg_at(ix, i).time_ns;
}

uint64_t
detail_marker_res(const evindex *ix, size_t i)
{
    return detail_list_res(ix, i, evindex_n_markers(ix), detail_marker_time);
}

uint64_t
detail_gc_res(const evindex *ix, size_t i)
{
    return detail_list_res(ix, i, evindex_n_gcs(ix), detail_gc_time);
}

/* Messages (markers among them) on the markers lane. */
static uint64_t
detail_msg_res(const evindex *ix, size_t i)
{
    return detail_list_res(ix, i, evindex_n_msgs(ix), detail_msg_time);
}

/* Runs of one HEC lane. */
static uint64_t
detail_run_res(const evindex *ix, const lane *l, size_t i)
{
    if (l->kind != LANE_HEC || l->cap_lane >= evindex_n_caps(ix))
        return DETAIL_ITEM_RES_NS;
    const runlane *rl = evindex_cap_at(ix, l->cap_lane)->runs;
    size_t n = runlane_count(rl);
    if (i >= n)
        return DETAIL_ITEM_RES_NS;
    runlane_run r, prev, next;
    runlane_get(rl, i, &r);
    if (i > 0)
        runlane_get(rl, i - 1, &prev);
    if (i + 1 < n)
        runlane_get(rl, i + 1, &next);
    return detail_res_near(r.start_ns, i > 0 ? prev.start_ns : UINT64_MAX,
                           i + 1 < n ? next.start_ns : UINT64_MAX);
}

uint64_t
detail_item_res(const evindex *ix, const lane *l, const lane_item *it)
{
    switch (it->kind) {
    case LANE_ITEM_MARKER: return detail_marker_res(ix, it->index);
    case LANE_ITEM_MSG: return detail_msg_res(ix, it->index);
    case LANE_ITEM_GC: return detail_gc_res(ix, it->index);
    case LANE_ITEM_RUN: return detail_run_res(ix, l, it->index);
    default: return DETAIL_ITEM_RES_NS;
    }
}

static void
detail_dur(strbuf *out, uint64_t ns)
{
    timefmt_append(out, ns);
}

static void
detail_pct(strbuf *out, uint64_t part, uint64_t whole)
{
    strbuf_printf(out, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static void
detail_cap(strbuf *out, uint16_t cap)
{
    if (cap == EVINDEX_NO_CAP)
        strbuf_puts(out, "none");
    else
        strbuf_printf(out, "%u", (unsigned)cap);
}

/* Log text on one line: invalid UTF-8 as U+FFFD, controls as spaces, at most `max`
 * characters (then "…"). */
static void
detail_one_line(strbuf *out, const uint8_t *p, size_t n, size_t max)
{
    size_t i = 0, chars = 0;
    while (i < n) {
        if (chars == max) {
            textfmt_append_cp(out, 0x2026);
            return;
        }
        int32_t cp = textfmt_utf8_next(p, n, &i);
        if (cp < 0)
            cp = 0xFFFD;
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            cp = ' ';
        textfmt_append_cp(out, (uint32_t)cp);
        chars++;
    }
}

/* "Key: text" over as many lines as it takes: DETAIL_WRAP_COLS characters a line, broken
 * at a space where there is one, a line feed starting a new line; continuation lines
 * start with two spaces. */
static void
detail_wrap(detail_lines *out, const char *key, const uint8_t *p, size_t n)
{
    /* Decode once into code points with controls cleaned; '\n' kept as a break. */
    uint32_t *cps = xmalloc((n + 1) * sizeof *cps);      /* freed below */
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        int32_t cp = textfmt_utf8_next(p, n, &i);
        if (cp < 0)
            cp = 0xFFFD;
        else if (cp == '\n')
            cp = '\n';
        else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0))
            cp = ' ';
        cps[m++] = (uint32_t)cp;
    }
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s: ", key);
    if (m == 0) {
        strbuf_puts(&sb, "(empty)");
        detail_add_sb(out, &sb);
    }
    size_t pos = 0;
    bool first = true;
    while (pos < m) {
        size_t end = pos, lim = pos + DETAIL_WRAP_COLS;
        while (end < m && end < lim && cps[end] != '\n')
            end++;
        size_t next = end;
        if (end < m && cps[end] == '\n') {
            next = end + 1;
        } else if (end < m) {
            /* Break after the last space of the line, if any. */
            size_t sp = end;
            while (sp > pos && cps[sp - 1] != ' ')
                sp--;
            if (sp > pos) {
                end = sp;
                next = sp;
            }
        }
        if (!first) {
            strbuf_reset(&sb);
            strbuf_puts(&sb, "  ");
        }
        for (size_t k = pos; k < end; k++)
            textfmt_append_cp(&sb, cps[k]);
        detail_add_sb(out, &sb);
        first = false;
        pos = next;
    }
    strbuf_free(&sb);
    x_free(cps);
}

/* ---- threads and runs ------------------------------------------------------------------- */

/* Thread id with its label: "12 (worker-5)". */
static void
detail_thread_name(strbuf *out, const evindex *ix, uint32_t tid, size_t max_label)
{
    strbuf_printf(out, "%u", (unsigned)tid);
    threadtab_thread th_v;
    const threadtab_thread *th = threadtab_find(evindex_threads(ix), tid, &th_v) ? &th_v : NULL;
    const uint8_t *p;
    size_t n;
    if (th && evindex_thread_label(ix, th, &p, &n) && n > 0) {
        strbuf_puts(out, " (");
        detail_one_line(out, p, n, max_label);
        strbuf_putc(out, ')');
    }
}

/* The STOP_THREAD event that ended run r on `cap`: its status and blocked-on info. */
static bool
detail_stop_event(const evindex *ix, uint16_t cap, const runlane_run *r, uint16_t *status,
                  uint32_t *info)
{
    evseek_hit hits[DETAIL_STOP_SCAN];
    uint64_t t1 = r->end_ns == UINT64_MAX ? UINT64_MAX : r->end_ns + 1;
    size_t n = evseek_range_cap(evindex_seek(ix), evindex_log(ix), cap, r->end_ns, t1, hits,
                                DETAIL_STOP_SCAN, NULL);
    for (size_t i = 0; i < n; i++) {
        if (hits[i].cap != cap)
            continue;
        evlog_event ev;
        if (!evlog_event_at(evindex_log(ix), hits[i].offset, hits[i].cap, &ev) ||
            ev.type != EV_STOP_THREAD)
            continue;
        evdecoded dec;
        decode_event(&ev, &dec);
        if (dec.n_present < 2 || dec.f[0].u != r->tid)
            continue;
        *status = (uint16_t)dec.f[1].u;
        *info = dec.n_present >= 3 ? (uint32_t)dec.f[2].u : 0;
        return true;
    }
    return false;
}

/* Run r is the last one on capability cap's lane. */
static bool
detail_is_last_run(const evindex *ix, uint16_t cap, const runlane_run *r)
{
    size_t li = evindex_lane_of(ix, cap);
    if (li == SIZE_MAX)
        return false;
    const runlane *rl = evindex_cap_at(ix, li)->runs;
    size_t n = runlane_count(rl);
    if (!n)
        return false;
    runlane_run last;
    runlane_get(rl, n - 1, &last);
    return last.start_ns == r->start_ns;
}

/* Why run r ended, as ghc-events words it. */
static void
detail_stop_text(strbuf *out, const evindex *ix, uint16_t cap, const runlane_run *r)
{
    if (r->flags & RUNLANE_F_OPEN) {
        if (evindex_truncated(ix) && detail_is_last_run(ix, cap, r))
            strbuf_puts(out, r->end_ns >= evindex_last_ns(ix)
                                 ? "end unknown: the log was cut short during this run"
                                 : "end unknown: the log was cut short during this run; it "
                                   "ended by then (HECs stop before a GC starts)");
        else if (r->end_ns >= evindex_last_ns(ix))
            strbuf_puts(out, "still running at the end of the log");
        else
            strbuf_puts(out, "no stop event (the next run or a GC began)");
        return;
    }
    uint16_t status;
    uint32_t info;
    stopstatus_era era = stopstatus_era_of(evindex_log(ix));
    if (detail_stop_event(ix, cap, r, &status, &info)) {
        stopstatus_name(out, era, status, info);
    } else if (r->stop == 2) {
        strbuf_puts(out, "stack overflow");
    } else if (stopstatus_class(era, r->stop) == THREADTAB_STOP_BLACKHOLE) {
        strbuf_puts(out, "blocked on black hole");
    } else {
        stopstatus_name(out, era, r->stop, 0);
    }
}

static bool
detail_get_run(const evindex *ix, const lane *l, const lane_item *it, const evindex_cap **cap,
               runlane_run *r)
{
    if (l->kind != LANE_HEC || l->cap_lane >= evindex_n_caps(ix))
        return false;
    *cap = evindex_cap_at(ix, l->cap_lane);
    if (it->index >= runlane_count((*cap)->runs))
        return false;
    runlane_get((*cap)->runs, it->index, r);
    return true;
}

/* A thread's run totals: runs, run time and its share of the log, stop reasons. */
static void
detail_thread_totals(detail_lines *out, const evindex *ix, const threadstats_row *st)
{
    strbuf sbuf;
    strbuf_init(&sbuf);
    strbuf *sb = &sbuf;
    strbuf_printf(sb, "Thread runs: %u, run time ", (unsigned)st->n_runs);
    detail_dur(sb, st->run_ns);
    uint64_t len = evindex_last_ns(ix) - evindex_first_ns(ix);
    if (len) {
        strbuf_puts(sb, " (");
        detail_pct(sb, st->run_ns, len);
        strbuf_puts(sb, " of the log)");
    }
    detail_add_sb(out, sb);

    strbuf_reset(sb);
    strbuf_puts(sb, "Thread stops:");
    bool any = false;
    for (int c = 0; c < THREADTAB_N_STOP_CLASSES; c++) {
        if (!st->stops[c])
            continue;
        strbuf_printf(sb, "%s %s %u", any ? "," : "",
                      threadtab_stop_class_name((enum threadtab_stop_class)c),
                      (unsigned)st->stops[c]);
        any = true;
    }
    if (!any)
        strbuf_puts(sb, " none");
    detail_add_sb(out, sb);
    strbuf_free(&sbuf);
}

static void
detail_run(detail_lines *out, const evindex *ix, const lane *l, const lane_item *it,
           detail_thread_memo *memo)
{
    const evindex_cap *cap;
    runlane_run r;
    if (!detail_get_run(ix, l, it, &cap, &r)) {
        detail_lines_add(out, "Run: not on this lane");
        return;
    }
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "Thread: ");
    detail_thread_name(&sb, ix, r.tid, SIZE_MAX);
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "HEC: ");
    detail_cap(&sb, cap->cap);
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Start: ");
    detail_at(&sb, r.start_ns);
    if (r.flags & RUNLANE_F_CLIPPED)
        strbuf_puts(&sb, " (moved to the previous run's end)");
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Duration: ");
    detail_dur(&sb, r.end_ns - r.start_ns);
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Stopped: ");
    detail_stop_text(&sb, ix, cap->cap, &r);
    detail_add_sb(out, &sb);

    threadtab_thread th_v;
    const threadtab_thread *th = threadtab_find(evindex_threads(ix), r.tid, &th_v) ? &th_v : NULL;
    if (th) {
        threadstats_row one;
        const threadstats_row *st = &one;
        if (memo && !memo->rows && (memo->pending || memo->lazy)) {
            memo->wanted = true;
            st = NULL;
        } else if (memo) {
            if (!memo->rows)
                memo->rows = threadstats_all(ix);
            st = &memo->rows[threadtab_index_of(evindex_threads(ix), r.tid)];
        } else {
            threadstats_of(ix, r.tid, &one);
        }
        if (!st)
            detail_lines_add(out, "Thread runs: counting...");
        else
            detail_thread_totals(out, ix, st);
        if (th->create_ns != THREADTAB_NO_TIME) {
            strbuf_reset(&sb);
            strbuf_puts(&sb, "Thread created: ");
            detail_at(&sb, th->create_ns);
            strbuf_puts(&sb, " on HEC ");
            detail_cap(&sb, th->create_cap);
            detail_add_sb(out, &sb);
        }
        detail_lines_add(out, "Migrations: %u, wakeups: %u", (unsigned)th->n_migrations,
                         (unsigned)th->n_wakeups);
    }
    strbuf_free(&sb);
}

/* ---- collections ------------------------------------------------------------------------ */

static void
detail_gc_head(strbuf *sb, const evindex_gc *g)
{
    if (g->gen == EVINDEX_GEN_UNKNOWN)
        strbuf_puts(sb, "gen ?");
    else
        strbuf_printf(sb, "gen %u", (unsigned)g->gen);
    if (g->flags & EVINDEX_GC_F_MAJOR)
        strbuf_puts(sb, " (major)");
}

/* Order of capability numbers (EVINDEX_NO_CAP, the global lane, last). */
static int
detail_cap_cmp(const void *x, const void *y)
{
    uint16_t p = *(const uint16_t *)x, q = *(const uint16_t *)y;
    return p < q ? -1 : p > q;
}

static int
detail_part_cmp(const void *x, const void *y)
{
    const evindex_gc_part *p = x, *q = y;
    return detail_cap_cmp(&p->cap, &q->cap);
}

/* HECs caps[i .. j) took no part: one line for the run of them. */
static void
detail_gc_absent(detail_lines *out, const uint16_t *caps, size_t i, size_t j, strbuf *sb)
{
    if (i >= j)
        return;
    strbuf_reset(sb);
    if (j - i == 1)
        strbuf_printf(sb, "HEC %u: took no part", (unsigned)caps[i]);
    else if (j - i == 2)
        strbuf_printf(sb, "HEC %u, %u: took no part", (unsigned)caps[i], (unsigned)caps[i + 1]);
    else
        strbuf_printf(sb, "HEC %u-%u: took no part", (unsigned)caps[i], (unsigned)caps[j - 1]);
    detail_add_sb(out, sb);
}

/* One line per HEC in HEC order: each part's work and idle time and how late it stopped,
 * and the HECs of the log that took no part in the collection named as such (runs of
 * them on one line). */
static void
detail_gc_parts(detail_lines *out, const evindex *ix, const evindex_gc *g, strbuf *sb)
{
    size_t n_caps = 0;
    uint16_t *caps = xmalloc((evindex_n_caps(ix) + 1) * sizeof *caps);   /* freed below */
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        uint16_t cap = evindex_cap_at(ix, i)->cap;
        if (cap != EVINDEX_NO_CAP && lanes_cap_shown(ix, i))
            caps[n_caps++] = cap;
    }
    qsort(caps, n_caps, sizeof *caps, detail_cap_cmp);
    evindex_gc_part *parts = xmalloc((g->n_parts + 1) * sizeof *parts);    /* freed below */
    for (uint32_t k = 0; k < g->n_parts; k++)
        evindex_gc_part_get(ix, g->first_part + k, &parts[k]);
    qsort(parts, g->n_parts, sizeof *parts, detail_part_cmp);
    size_t ci = 0;
    for (uint32_t k = 0; k < g->n_parts; k++) {
        const evindex_gc_part *p = &parts[k];
        size_t cj = ci;
        while (cj < n_caps && caps[cj] < p->cap)
            cj++;
        detail_gc_absent(out, caps, ci, cj, sb);
        ci = cj < n_caps && caps[cj] == p->cap ? cj + 1 : cj;
        strbuf_reset(sb);
        strbuf_puts(sb, "HEC ");
        detail_cap(sb, p->cap);
        strbuf_puts(sb, ": work ");
        detail_dur(sb, p->work_ns);
        strbuf_puts(sb, ", idle ");
        detail_dur(sb, p->wait_ns);
        if (g->request_cap != EVINDEX_NO_CAP && p->stop_ns >= g->request_ns) {
            strbuf_puts(sb, " (stopped +");
            detail_dur(sb, p->stop_ns - g->request_ns);
            strbuf_putc(sb, ')');
        }
        detail_add_sb(out, sb);
    }
    detail_gc_absent(out, caps, ci, n_caps, sb);
    x_free(parts);
    x_free(caps);
}

static void
detail_gc(detail_lines *out, const evindex *ix, size_t gi)
{
    if (gi >= evindex_n_gcs(ix)) {
        detail_lines_add(out, "GC: a GC phase with no collection record");
        return;
    }
    evindex_gc g_buf;
    const evindex_gc *g = evindex_gc_get(ix, gi, &g_buf);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "GC #%zu: ", gi + 1);
    detail_gc_head(&sb, g);
    strbuf_puts(&sb, ", pause ");
    detail_dur(&sb, g->end_ns - g->start_ns);
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Pause: ");
    detail_at(&sb, g->start_ns);
    strbuf_puts(&sb, " .. ");
    detail_at(&sb, g->end_ns);
    strbuf_puts(&sb, ", leader HEC ");
    detail_cap(&sb, g->leader_cap);
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Request: ");
    if (g->request_cap == EVINDEX_NO_CAP) {
        strbuf_puts(&sb, "none seen");
    } else {
        strbuf_puts(&sb, "HEC ");
        detail_cap(&sb, g->request_cap);
        strbuf_puts(&sb, " at ");
        detail_at(&sb, g->request_ns);
        strbuf_puts(&sb, g->flags & EVINDEX_GC_F_PAR_REQUEST ? ", parallel" : ", sequential");
    }
    detail_add_sb(out, &sb);

    /* request .. all stopped (the leader's GC_START), then stopped .. end. */
    strbuf_reset(&sb);
    strbuf_puts(&sb, "Time to stop: ");
    if (g->stopping_ns == EVINDEX_NO_TIME) {
        strbuf_puts(&sb, "unknown (no request event)");
    } else {
        detail_dur(&sb, g->stopping_ns);
        if (g->slowest_cap != EVINDEX_NO_CAP)
            strbuf_printf(&sb, " (last to stop: HEC %u)", (unsigned)g->slowest_cap);
        else
            strbuf_puts(&sb, " (no HEC was running at the request)");
        strbuf_puts(&sb, "; stopped .. end ");
        detail_dur(&sb, g->end_ns - g->start_ns);
        strbuf_puts(&sb, ", total ");
        detail_dur(&sb, g->end_ns - g->request_ns);
    }
    detail_add_sb(out, &sb);
    if (g->census_ns) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Heap census: ");
        detail_dur(&sb, g->census_ns);
        strbuf_puts(&sb, " of the pause, on HEC ");
        detail_cap(&sb, g->leader_cap);
        strbuf_puts(&sb, g->flags & EVINDEX_GC_F_BIO_CENSUS
                             ? " (biographical: at most, with its LDV pass; not in its work "
                               "or idle below)"
                             : " (not in its work or idle below)");
        detail_add_sb(out, &sb);
    }

    detail_gc_parts(out, ix, g, &sb);

    if (!(g->flags & EVINDEX_GC_F_NO_STATS)) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Copied: ");
        detail_bytes(&sb, g->copied);
        if (g->live_after != EVINDEX_NO_TIME) {
            strbuf_puts(&sb, ", live after: ");
            detail_bytes(&sb, g->live_after);
        }
        if (g->heap_after != EVINDEX_NO_TIME) {
            strbuf_puts(&sb, ", heap after: ");
            detail_bytes(&sb, g->heap_after);
        }
        if (g->allocated_before != EVINDEX_NO_TIME) {
            strbuf_puts(&sb, ", allocated before: ");
            detail_bytes(&sb, g->allocated_before);
        }
        detail_add_sb(out, &sb);

        strbuf_reset(&sb);
        strbuf_printf(&sb, "Parallel: %u thread%s", (unsigned)g->par_threads,
                      g->par_threads == 1 ? "" : "s");
        if ((g->flags & EVINDEX_GC_F_HAS_BALANCE) && g->par_threads > 1 && g->copied > 0) {
            strbuf_puts(&sb, ", work balance ");
            detail_pct(&sb, g->par_balanced, g->copied);
        }
        detail_add_sb(out, &sb);

        strbuf_reset(&sb);
        strbuf_puts(&sb, "Slop: ");
        if (g->slop > INT64_MAX) {      /* the RTS's slop can be negative */
            strbuf_putc(&sb, '-');
            detail_bytes(&sb, (uint64_t)0 - g->slop);
        } else {
            detail_bytes(&sb, g->slop);
        }
        strbuf_puts(&sb, ", fragmentation: ");
        detail_bytes(&sb, g->frag);
        detail_add_sb(out, &sb);
    }

    if (g->flags & (EVINDEX_GC_F_OPEN | EVINDEX_GC_F_NO_STATS | EVINDEX_GC_F_NO_START)) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Flags:");
        const char *sep = " ";
        if (g->flags & EVINDEX_GC_F_OPEN) {
            strbuf_printf(&sb, "%scut short (no GC_END; closed at the log's end)", sep);
            sep = ", ";
        }
        if (g->flags & EVINDEX_GC_F_NO_STATS) {
            strbuf_printf(&sb, "%sno GC_STATS (generation and bytes unknown)", sep);
            sep = ", ";
        }
        if (g->flags & EVINDEX_GC_F_NO_START)
            strbuf_printf(&sb, "%sno GC_START (no pause)", sep);
        detail_add_sb(out, &sb);
    }
    strbuf_free(&sb);
}

/* ---- non-moving ------------------------------------------------------------------------- */

static const char *
detail_nm_phase_name(unsigned kind)
{
    return kind == EVINDEX_NM_MARK ? "mark" : kind == EVINDEX_NM_SYNC ? "sync" : "sweep";
}

/* The phase kind of the non-moving interval starting at `start`. */
static unsigned
detail_nm_kind_at(const evindex *ix, uint64_t start)
{
    const ivtrack *tr = evindex_nm_track(ix);
    size_t j = ivtrack_last_starting_by(tr, start);
    return j == SIZE_MAX ? EVINDEX_NM_MARK : ivtrack_get(tr, j, &(ivtrack_iv){ 0 })->kind;
}

static void
detail_nm(detail_lines *out, const evindex *ix, const lane_item *it)
{
    if (it->index >= evindex_n_nm_cycles(ix)) {
        detail_lines_add(out, "Non-moving: a phase with no cycle record");
        return;
    }
    const evindex_nm_cycle *c = evindex_nm_cycle_at(ix, it->index);
    unsigned kind = detail_nm_kind_at(ix, it->start_ns);
    strbuf sb;
    strbuf_init(&sb);
    detail_lines_add(out, "Non-moving: cycle #%zu, %s phase%s", it->index + 1,
                     detail_nm_phase_name(kind),
                     kind == EVINDEX_NM_SYNC ? " (stop-the-world)" : " (concurrent)");

    strbuf_puts(&sb, "Phase: ");
    detail_at(&sb, it->start_ns);
    strbuf_puts(&sb, " .. ");
    detail_at(&sb, it->end_ns);
    strbuf_puts(&sb, " (");
    detail_dur(&sb, it->end_ns - it->start_ns);
    strbuf_putc(&sb, ')');
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Cycle: ");
    detail_at(&sb, c->start_ns);
    strbuf_puts(&sb, " .. ");
    detail_at(&sb, c->end_ns);
    strbuf_puts(&sb, " (");
    detail_dur(&sb, c->end_ns - c->start_ns);
    strbuf_putc(&sb, ')');
    detail_add_sb(out, &sb);

    strbuf_reset(&sb);
    strbuf_puts(&sb, "Mark: ");
    detail_dur(&sb, c->mark_ns);
    strbuf_printf(&sb, " in %u round%s, sync ", (unsigned)c->n_marks, c->n_marks == 1 ? "" : "s");
    detail_dur(&sb, c->sync_ns);
    strbuf_puts(&sb, ", sweep ");
    detail_dur(&sb, c->sweep_ns);
    detail_add_sb(out, &sb);

    detail_lines_add(out, "Marked objects: %llu, remembered-set flushes: %u",
                     (unsigned long long)c->marked_objects, (unsigned)c->n_flushes);
    if (c->flags & EVINDEX_GC_F_OPEN)
        detail_lines_add(out, "Flags: cut short (a phase has no end event)");
    strbuf_free(&sb);
}

/* ---- markers and messages --------------------------------------------------------------- */

static const char *
detail_msg_kind(uint8_t kind)
{
    switch (kind) {
    case EVINDEX_MSG_MARKER: return "marker (traceMarker)";
    case EVINDEX_MSG_USER: return "user message (traceEvent)";
    case EVINDEX_MSG_LOG: return "RTS log message";
    default: return "binary message";
    }
}

/* The item's message into *out, or NULL if it has none. */
static const evindex_msg *
detail_item_msg(const evindex *ix, const lane_item *it, evindex_msg *out)
{
    if (it->kind == LANE_ITEM_MARKER && it->index < evindex_n_markers(ix))
        *out = evindex_marker_at(ix, it->index);
    else if (it->kind != LANE_ITEM_MARKER && it->index < evindex_n_msgs(ix))
        *out = evindex_msg_at(ix, it->index);
    else
        return NULL;
    return out;
}

static void
detail_msg(detail_lines *out, const evindex *ix, const lane_item *it)
{
    evindex_msg m_v;
    const evindex_msg *m = detail_item_msg(ix, it, &m_v);
    if (!m) {
        detail_lines_add(out, "Message: none");
        return;
    }
    strbuf sb;
    strbuf_init(&sb);
    if (it->kind == LANE_ITEM_MARKER)
        detail_lines_add(out, "Marker: #%zu of %zu", it->index + 1, evindex_n_markers(ix));
    else
        detail_lines_add(out, "Message: #%zu of %zu", it->index + 1, evindex_n_msgs(ix));
    strbuf_puts(&sb, "Time: ");
    detail_at(&sb, m->time_ns);
    strbuf_puts(&sb, ", HEC ");
    detail_cap(&sb, m->cap);
    detail_add_sb(out, &sb);
    detail_lines_add(out, "Kind: %s", detail_msg_kind(m->kind));
    const uint8_t *p;
    size_t n;
    if (!evindex_msg_text(ix, m, &p, &n)) {
        detail_lines_add(out, "Text: (cannot be re-read from the file)");
    } else if (m->kind == EVINDEX_MSG_BINARY) {
        strbuf_reset(&sb);
        textfmt_append_binary(&sb, p, n);
        detail_lines_add(out, "Bytes: %zu", n);
        detail_wrap(out, "Text", (const uint8_t *)sb.data, sb.len);
    } else {
        detail_wrap(out, "Text", p, n);
    }
    strbuf_free(&sb);
}

/* ---- lane values at the cursor ---------------------------------------------------------- */

/* The value of series `id` in force at t; false before its first sample. */
static bool
detail_series_at(const evindex *ix, enum evindex_series_id id, uint64_t t, uint64_t *v)
{
    const series *s = evindex_series(ix, id);
    size_t i = series_at(s, t);
    if (i == SIZE_MAX)
        return false;
    *v = series_get(s, i).value;
    return true;
}

static bool
detail_running_at(const runlane *rl, uint64_t t)
{
    size_t i = runlane_last_starting_by(rl, t);
    if (i == SIZE_MAX)
        return false;
    runlane_run r;
    runlane_get(rl, i, &r);
    return r.end_ns > t;
}

static void
detail_activity(detail_lines *out, const evindex *ix, const lane_item *it, uint64_t cursor_ns)
{
    size_t n_hec = 0, running = 0, in_gc = 0;
    uint64_t busy = 0;
    bool col = it->kind == LANE_ITEM_NONE && it->end_ns > it->start_ns;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        if (!lanes_cap_shown(ix, i))
            continue;
        const evindex_cap *c = evindex_cap_at(ix, i);
        n_hec++;
        running += detail_running_at(c->runs, cursor_ns);
        in_gc += ivtrack_count_in(c->gc, cursor_ns, cursor_ns + 1) > 0;
        if (col)
            busy += runlane_busy_ns(c->runs, it->start_ns, it->end_ns);
    }
    detail_lines_add(out, "At cursor: %zu of %zu HECs running, %zu in GC", running, n_hec,
                     in_gc);
    if (col && n_hec) {
        strbuf sb;
        strbuf_init(&sb);
        strbuf_puts(&sb, "Utilisation: ");
        double frac = (double)busy / ((double)(it->end_ns - it->start_ns) * (double)n_hec);
        strbuf_printf(&sb, "%.1f%% over the cursor column (", 100.0 * frac);
        detail_dur(&sb, it->end_ns - it->start_ns);
        strbuf_putc(&sb, ')');
        detail_add_sb(out, &sb);
        strbuf_free(&sb);
    }
}

typedef struct detail_band {
    uint64_t bytes;
    uint32_t band;
} detail_band;

static int
detail_band_cmp(const void *a, const void *b)
{
    const detail_band *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return x->band < y->band ? -1 : x->band > y->band;
}

/* The heap-profile census in force at the cursor and its largest bands. */
static void
detail_heap_census(detail_lines *out, const evindex *ix, uint64_t cursor_ns, strbuf *sb)
{
    const heapprof *hp = evindex_heap_profile(ix);
    size_t ci = heapprof_census_by(hp, cursor_ns);
    if (heapprof_n_censuses(hp) == 0)
        return;
    if (ci == SIZE_MAX) {
        detail_lines_add(out, "Heap profile: no census yet (%zu in all)",
                         heapprof_n_censuses(hp));
        return;
    }
    const heapprof_census *c = heapprof_census_at(hp, ci);
    strbuf_reset(sb);
    if (heapprof_breakdown_of(hp) != HEAPPROF_BY_UNKNOWN)
        strbuf_printf(sb, "By %s, ", heapprof_breakdown_name(heapprof_breakdown_of(hp)));
    strbuf_printf(sb, "Heap profile census %zu of %zu at ", ci + 1, heapprof_n_censuses(hp));
    detail_at(sb, c->time_ns);
    strbuf_puts(sb, ": ");
    detail_bytes(sb, c->total_bytes);
    strbuf_printf(sb, " in %u bands", c->n_entries);
    detail_add_sb(out, sb);
    detail_band *top = xmalloc((c->n_entries + 1) * sizeof *top);  /* freed below */
    for (size_t k = 0; k < c->n_entries; k++)
        heapprof_entry(hp, ci, k, &top[k].band, &top[k].bytes);
    qsort(top, c->n_entries, sizeof *top, detail_band_cmp);
    strbuf name;
    strbuf_init(&name);
    for (size_t k = 0; k < c->n_entries && k < DETAIL_HEAP_TOP; k++) {
        strbuf_reset(sb);
        strbuf_puts(sb, "  ");
        detail_bytes(sb, top[k].bytes);
        strbuf_puts(sb, " (");
        detail_pct(sb, top[k].bytes, c->total_bytes);
        strbuf_puts(sb, ") ");
        strbuf_reset(&name);
        heapbands_name(hp, evindex_ipe(ix), top[k].band, &name);
        textfmt_append_utf8(sb, (const uint8_t *)name.data, name.len);
        detail_add_sb(out, sb);
    }
    strbuf_free(&name);
    x_free(top);
}

/* Memory the OS sees at the cursor: MEM_RETURN's megablocks and BLOCKS_SIZE (GHC
 * 9.2+), next to heap size and live bytes. */
static void
detail_memory(detail_lines *out, const evindex *ix, uint64_t cursor_ns, strbuf *sb)
{
    uint64_t cur, need, ret;
    if (detail_series_at(ix, EVINDEX_S_MEM_CURRENT, cursor_ns, &cur) &&
        detail_series_at(ix, EVINDEX_S_MEM_NEEDED, cursor_ns, &need) &&
        detail_series_at(ix, EVINDEX_S_MEM_RETURNED, cursor_ns, &ret)) {
        strbuf_reset(sb);
        strbuf_printf(sb, "Megablocks (last major GC): %llu allocated, %llu needed, %llu"
                      " returned to the OS (largest ", (unsigned long long)cur,
                      (unsigned long long)need, (unsigned long long)ret);
        strbuf_printf(sb, "%llu)", (unsigned long long)series_max(
                                       evindex_series(ix, EVINDEX_S_MEM_CURRENT)));
        detail_add_sb(out, sb);
    } else if (series_count(evindex_series(ix, EVINDEX_S_MEM_CURRENT))) {
        detail_lines_add(out, "Megablocks: no MEM_RETURN yet");
    }
}

static void
detail_memory_lane(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    static const struct { enum evindex_series_id id; const char *key; } rows[] = {
        { EVINDEX_S_HEAP_SIZE, "Heap size (megablocks)" },
        { EVINDEX_S_BLOCKS_SIZE, "Blocks size" },
        { EVINDEX_S_HEAP_LIVE, "Live bytes" },
    };
    strbuf sb;
    strbuf_init(&sb);
    detail_memory(out, ix, cursor_ns, &sb);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        uint64_t v;
        if (!detail_series_at(ix, rows[k].id, cursor_ns, &v))
            continue;
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%s: ", rows[k].key);
        detail_bytes(&sb, v);
        strbuf_puts(&sb, " (largest ");
        detail_bytes(&sb, series_max(evindex_series(ix, rows[k].id)));
        strbuf_putc(&sb, ')');
        detail_add_sb(out, &sb);
    }
    strbuf_free(&sb);
}

/* The log's info-table provenance (IPE): how many, and the first few. */
static void
detail_ipe(detail_lines *out, const evindex *ix, strbuf *sb)
{
    const ipe_table *t = evindex_ipe(ix);
    size_t n = ipe_table_count(t);
    if (!n)
        return;
    detail_lines_add(out, "Info tables (IPE): %zu with source positions%s", n,
                     heapprof_breakdown_of(evindex_heap_profile(ix)) == HEAPPROF_BY_INFO_TABLE
                         ? ", naming the -hi bands" : "");
    for (size_t i = 0; i < n && i < DETAIL_IPE_TOP; i++) {
        const ipe_entry *e = ipe_table_at(t, i);
        const char *ct = ipe_closure_type_name(e->closure_desc);
        const char *parts[] = { e->table_name, " (", ct ? ct : e->closure_desc, ") ",
                                e->label, *e->ty_desc ? " :: " : "", e->ty_desc, " at ",
                                e->module, " ", e->src_loc };
        strbuf_reset(sb);
        strbuf_printf(sb, "  0x%llx ", (unsigned long long)e->info);
        for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
            textfmt_append_utf8(sb, (const uint8_t *)parts[k], strlen(parts[k]));
        detail_add_sb(out, sb);
    }
    if (n > DETAIL_IPE_TOP)
        detail_lines_add(out, "  ... and %zu more", n - DETAIL_IPE_TOP);
}

static void
detail_heap(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    static const struct { enum evindex_series_id id; const char *key; } rows[] = {
        { EVINDEX_S_HEAP_SIZE, "Heap size" },
        { EVINDEX_S_HEAP_LIVE, "Live bytes" },
        { EVINDEX_S_BLOCKS_SIZE, "Blocks size" },
        { EVINDEX_S_ALLOCATED, "Allocated so far" },
    };
    strbuf sb;
    strbuf_init(&sb);
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        uint64_t v;
        if (series_count(evindex_series(ix, rows[k].id)) == 0)
            continue;
        strbuf_reset(&sb);
        strbuf_printf(&sb, "%s: ", rows[k].key);
        if (detail_series_at(ix, rows[k].id, cursor_ns, &v))
            detail_bytes(&sb, v);
        else
            strbuf_puts(&sb, "no sample yet");
        if (k == 0) {
            strbuf_puts(&sb, " (largest ");
            detail_bytes(&sb, series_max(evindex_series(ix, rows[k].id)));
            strbuf_putc(&sb, ')');
        }
        detail_add_sb(out, &sb);
    }
    detail_memory(out, ix, cursor_ns, &sb);
    detail_heap_census(out, ix, cursor_ns, &sb);
    detail_ipe(out, ix, &sb);
    strbuf_free(&sb);
}

/* The heap-bands lane: the census at the cursor by source, and which style is which. */
static void
detail_heapbands(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    const heapprof *hp = evindex_heap_profile(ix);
    strbuf sb;
    strbuf_init(&sb);
    detail_heap_census(out, ix, cursor_ns, &sb);
    size_t n;
    uint32_t *order = heapbands_by_peak(hp, &n);
    strbuf_reset(&sb);
    strbuf_printf(&sb, "Stacked, bottom up: the %d largest bands by peak (of %zu)",
                  LANES_BAND_STYLES < (int)n ? LANES_BAND_STYLES : (int)n, n);
    if ((size_t)LANES_BAND_STYLES < n)
        strbuf_puts(&sb, ", then the rest");
    strbuf_puts(&sb, "; B lists every band");
    detail_add_sb(out, &sb);
    strbuf name;
    strbuf_init(&name);
    for (size_t k = 0; k < n && k < LANES_BAND_STYLES; k++) {
        const heapprof_band *b = heapprof_band_at(hp, order[k]);
        strbuf_reset(&sb);
        strbuf_printf(&sb, "  %zu. peak ", k + 1);
        detail_bytes(&sb, b->peak_bytes);
        strbuf_puts(&sb, " at ");
        detail_at(&sb, b->peak_time_ns);
        strbuf_puts(&sb, ": ");
        strbuf_reset(&name);
        heapbands_name(hp, evindex_ipe(ix), order[k], &name);
        textfmt_append_utf8(&sb, (const uint8_t *)name.data, name.len);
        detail_add_sb(out, &sb);
    }
    strbuf_free(&name);
    x_free(order);
    strbuf_free(&sb);
}

/* The ticky lane: the sample at the cursor and its most entered counters. */
static void
detail_ticky(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    const ticky *t = evindex_ticky(ix);
    detail_lines_add(out, "Ticky: %zu counters, %zu samples (%s)", ticky_n_counters(t),
                     ticky_n_samples(t), ticky_layout_name(ticky_layout_of(t)));
    size_t si = ticky_sample_by(t, cursor_ns);
    if (si == SIZE_MAX && ticky_n_samples(t) == 0) {
        /* Definitions only: what they name (`ticky` prints every field). */
        strbuf sb;
        strbuf_init(&sb);
        for (size_t k = 0; k < ticky_n_counters(t) && k < DETAIL_TICKY_TOP; k++) {
            const ticky_counter *c = ticky_counter_at(t, k);
            strbuf_reset(&sb);
            strbuf_puts(&sb, "  defined: ");
            textfmt_append_utf8(&sb, (const uint8_t *)c->name, strlen(c->name));
            if (c->arity)
                strbuf_printf(&sb, " (arity %u)", c->arity);
            detail_add_sb(out, &sb);
        }
        strbuf_free(&sb);
        return;
    }
    if (si == SIZE_MAX) {
        detail_lines_add(out, "No sample yet at the cursor");
        return;
    }
    const ticky_sample *sm = ticky_sample_at(t, si);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "Sample %zu at ", si + 1);
    detail_at(&sb, sm->time_ns);
    strbuf_printf(&sb, ": %u counters, %llu entries, ", sm->n, (unsigned long long)sm->entries);
    detail_bytes(&sb, sm->allocs);
    strbuf_puts(&sb, " allocated");
    detail_add_sb(out, &sb);
    detail_band *top = xmalloc((sm->n + 1) * sizeof *top);     /* freed below */
    for (uint32_t k = 0; k < sm->n; k++) {
        const ticky_entry *e = ticky_entry_at(t, sm->first + k);
        top[k] = (detail_band){ e->entries, sm->first + k };
    }
    qsort(top, sm->n, sizeof *top, detail_band_cmp);
    for (uint32_t k = 0; k < sm->n && k < DETAIL_TICKY_TOP; k++) {
        const ticky_entry *e = ticky_entry_at(t, top[k].band);
        const ticky_counter *c = ticky_counter_at(t, e->counter);
        strbuf_reset(&sb);
        strbuf_printf(&sb, "  %llu entries, ", (unsigned long long)e->entries);
        detail_bytes(&sb, e->allocs);
        strbuf_puts(&sb, ": ");
        textfmt_append_utf8(&sb, (const uint8_t *)c->name, strlen(c->name));
        if (c->arity)
            strbuf_printf(&sb, " (arity %u)", c->arity);
        detail_add_sb(out, &sb);
    }
    x_free(top);
    strbuf_free(&sb);
}

/* ---- time profile ------------------------------------------------------------------------ */

#define DETAIL_PROF_STACK 5     /* stack entries the sample at the cursor lists */
#define DETAIL_PROF_TOP 6       /* cost centres a range lists (the lane's six styles) */

void
detail_cost_centre(strbuf *out, const evindex *ix, uint32_t cc, bool where)
{
    const char *label, *module, *src;
    bool caf;
    if (cc == TIMEPROF_MAIN) {
        strbuf_puts(out, "MAIN");
        return;
    }
    if (!heapprof_cost_centre_find(evindex_heap_profile(ix), cc, &label, &module, &src, &caf)) {
        strbuf_printf(out, "#%u", cc);
        return;
    }
    textfmt_append_utf8(out, (const uint8_t *)label, strlen(label));
    if (!where)
        return;
    strbuf_puts(out, " (");
    textfmt_append_utf8(out, (const uint8_t *)module, strlen(module));
    if (src[0]) {
        strbuf_puts(out, ", ");
        textfmt_append_utf8(out, (const uint8_t *)src, strlen(src));
    }
    strbuf_putc(out, ')');
}

/* The prof lane: the profile's size and interval, and the sample at the cursor with its
 * stack (innermost first). */
static void
detail_prof(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    const timeprof *tp = evindex_timeprof(ix);
    size_t n = timeprof_n_samples(tp);
    uint64_t iv;
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "Time profile: %zu samples on %zu capabilit%s", n, timeprof_n_caps(tp),
                  timeprof_n_caps(tp) == 1 ? "y" : "ies");
    if (timeprof_interval(tp, &iv, NULL)) {
        strbuf_puts(&sb, ", tick interval ");
        detail_dur(&sb, iv);
        strbuf_puts(&sb, " (");
        detail_dur(&sb, iv * n);
        strbuf_puts(&sb, " sampled)");
    }
    strbuf_puts(&sb, "; P lists cost centres");
    detail_add_sb(out, &sb);
    size_t i = timeprof_last_by(tp, cursor_ns);
    if (i == SIZE_MAX) {
        detail_lines_add(out, "No sample yet at the cursor");
        strbuf_free(&sb);
        return;
    }
    timeprof_sample s = timeprof_sample_at(tp, i);
    uint32_t st[TIMEPROF_MAX_DEPTH];
    uint32_t depth = timeprof_stack(tp, i, st);
    strbuf_reset(&sb);
    strbuf_printf(&sb, "Sample %zu at ", i + 1);
    detail_at(&sb, s.time_ns);
    strbuf_printf(&sb, ", cap %u, tick %llu: ", s.cap, (unsigned long long)s.tick);
    if (depth == 0)
        strbuf_puts(&sb, "MAIN");
    else
        strbuf_printf(&sb, "stack of %u, innermost first", depth);
    detail_add_sb(out, &sb);
    for (uint32_t k = 0; k < depth && k < DETAIL_PROF_STACK; k++) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "  ");
        detail_cost_centre(&sb, ix, st[k], true);
        detail_add_sb(out, &sb);
    }
    if (depth > DETAIL_PROF_STACK)
        detail_lines_add(out, "  ... %u more out to MAIN", depth - DETAIL_PROF_STACK);
    strbuf_free(&sb);
}

void
detail_prof_range(detail_lines *out, const evindex *ix, uint64_t a_ns, uint64_t b_ns,
                  const char *what)
{
    const timeprof *tp = evindex_timeprof(ix);
    size_t n_rows;
    uint64_t n;
    timeprof_row *rows = timeprof_flat(tp, a_ns, b_ns, TIMEPROF_ANY_CAP, &n_rows, &n);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "In %s (", what);
    detail_at(&sb, a_ns);
    strbuf_puts(&sb, " .. ");
    detail_at(&sb, b_ns);
    strbuf_printf(&sb, "): %llu samples", (unsigned long long)n);
    if (n_rows)
        strbuf_puts(&sb, "; individual, inherited:");
    detail_add_sb(out, &sb);
    for (size_t k = 0; k < n_rows && k < DETAIL_PROF_TOP; k++) {
        strbuf_reset(&sb);
        strbuf_printf(&sb, "  %5.1f%% %5.1f%%  ", 100.0 * (double)rows[k].individual / (double)n,
                      100.0 * (double)rows[k].inherited / (double)n);
        detail_cost_centre(&sb, ix, rows[k].cc, true);
        detail_add_sb(out, &sb);
    }
    x_free(rows);
    strbuf_free(&sb);
}

/* The non-moving heap census in force at the cursor (its allocators by block size) and
 * the last free-list pruning. */
static void
detail_nm_census(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    size_t n = evindex_n_nm_census(ix);
    size_t last = SIZE_MAX;
    for (size_t lo = 0, hi = n; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if (evindex_nm_census_at(ix, mid)->time_ns <= cursor_ns)
            last = mid, lo = mid + 1;
        else
            hi = mid;
    }
    strbuf sb;
    strbuf_init(&sb);
    if (last != SIZE_MAX) {
        /* A census is a run over the allocators: back to where a block size repeats. */
        size_t first = last;
        while (first > 0) {
            uint32_t bs = evindex_nm_census_at(ix, first - 1)->blk_size;
            bool seen = false;
            for (size_t k = first; k <= last && !seen; k++)
                seen = evindex_nm_census_at(ix, k)->blk_size == bs;
            if (seen)
                break;
            first--;
        }
        uint64_t act = 0, fil = 0, live = 0, bytes = 0;
        for (size_t k = first; k <= last; k++) {
            const evindex_nm_census *c = evindex_nm_census_at(ix, k);
            act += c->active, fil += c->filled, live += c->live;
            bytes += (uint64_t)c->live * c->blk_size;
        }
        strbuf_puts(&sb, "Non-moving census at ");
        detail_at(&sb, evindex_nm_census_at(ix, first)->time_ns);
        strbuf_printf(&sb, ": %zu allocators, %llu active + %llu filled segments, %llu live"
                      " blocks (", last - first + 1, (unsigned long long)act,
                      (unsigned long long)fil, (unsigned long long)live);
        detail_bytes(&sb, bytes);
        strbuf_putc(&sb, ')');
        detail_add_sb(out, &sb);
        strbuf_reset(&sb);
        strbuf_puts(&sb, "  block size: live blocks");
        for (size_t k = first; k <= last; k++) {
            const evindex_nm_census *c = evindex_nm_census_at(ix, k);
            if (c->live || c->active || c->filled)
                strbuf_printf(&sb, "  %u: %u", c->blk_size, c->live);
        }
        detail_add_sb(out, &sb);
    }
    const series *pr = evindex_nm_pruned(ix);
    size_t pi = series_at(pr, cursor_ns);
    if (pi != SIZE_MAX) {
        series_sample p = series_get(pr, pi);
        series_sample f = series_get(evindex_nm_free_segments(ix), pi);
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Free list pruned at ");
        detail_at(&sb, p.time_ns);
        strbuf_printf(&sb, ": %llu segments pruned, %llu free segments retained (%zu prunings"
                      " in all)", (unsigned long long)p.value, (unsigned long long)f.value,
                      series_count(pr));
        detail_add_sb(out, &sb);
    }
    strbuf_free(&sb);
}

/* One line of per-spark event counts in [t0, t1) (the kinds the log has), after `head`. */
static void
detail_spark_events(detail_lines *out, const evindex *ix, const char *head, uint64_t t0,
                    uint64_t t1)
{
    static const char *const names[EVINDEX_N_SPARK_KINDS] = {
        "created", "dud", "overflowed", "run", "stolen", "fizzled", "GCed",
    };
    strbuf sb;
    strbuf_init(&sb);
    bool any = false;
    for (int k = 0; k < EVINDEX_N_SPARK_KINDS; k++) {
        enum evindex_spark_kind kind = (enum evindex_spark_kind)k;
        if (!evindex_spark_total(ix, kind))
            continue;
        strbuf_printf(&sb, "%s%s %llu", any ? ", " : "", names[k],
                      (unsigned long long)evindex_spark_count(ix, kind, t0, t1));
        any = true;
    }
    if (any)
        detail_lines_add(out, "%s: %s", head, sb.data);
    strbuf_free(&sb);
}

static void
detail_sparks(detail_lines *out, const evindex *ix, uint64_t cursor_ns)
{
    static const struct { enum evindex_series_id id; const char *key; } rows[] = {
        { EVINDEX_S_SPARK_POOL, "Spark pool" },
        { EVINDEX_S_SPARKS_CREATED, "Sparks created so far" },
        { EVINDEX_S_SPARKS_CONVERTED, "Sparks converted so far" },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        uint64_t v;
        if (detail_series_at(ix, rows[k].id, cursor_ns, &v))
            detail_lines_add(out, "%s: %llu", rows[k].key, (unsigned long long)v);
    }
    detail_spark_events(out, ix, "Spark events", 0, UINT64_MAX);
}

static void
detail_lane_none(detail_lines *out, const evindex *ix, const lane *l, const lane_item *it)
{
    if (l->kind == LANE_HEC && l->cap_lane < evindex_n_caps(ix)) {
        const evindex_cap *c = evindex_cap_at(ix, l->cap_lane);
        strbuf sb;
        strbuf_init(&sb);
        strbuf_puts(&sb, "HEC: ");
        detail_cap(&sb, c->cap);
        strbuf_puts(&sb, ", nothing at the cursor");
        detail_add_sb(out, &sb);
        if (it->end_ns > it->start_ns) {
            uint64_t span = it->end_ns - it->start_ns;
            strbuf_reset(&sb);
            strbuf_puts(&sb, "Cursor column: run ");
            detail_pct(&sb, runlane_busy_ns(c->runs, it->start_ns, it->end_ns), span);
            strbuf_puts(&sb, ", GC ");
            detail_pct(&sb, ivtrack_kind_ns(c->gc, EVINDEX_GC_WORK, it->start_ns, it->end_ns) +
                                ivtrack_kind_ns(c->gc, EVINDEX_GC_WAIT, it->start_ns,
                                                it->end_ns), span);
            detail_add_sb(out, &sb);
        }
        strbuf_reset(&sb);
        strbuf_printf(&sb, "Lane: %zu runs, run time ", runlane_count(c->runs));
        detail_dur(&sb, runlane_prefix_ns(c->runs, runlane_count(c->runs)));
        detail_add_sb(out, &sb);
        strbuf_free(&sb);
    } else if (l->kind == LANE_NONMOVING) {
        detail_lines_add(out, "Non-moving: no phase at the cursor (%zu cycles in the log)",
                         evindex_n_nm_cycles(ix));
    } else if (l->kind == LANE_MARKERS) {
        detail_lines_add(out, "Markers: none at the cursor (%zu markers, %zu messages in all)",
                         evindex_n_markers(ix), evindex_n_msgs(ix) - evindex_n_markers(ix));
    }
}

void
detail_item(detail_lines *out, const evindex *ix, const lane *l, const lane_item *it,
            uint64_t cursor_ns, detail_thread_memo *memo)
{
    switch (it->kind) {
    case LANE_ITEM_RUN: detail_run(out, ix, l, it, memo); break;
    case LANE_ITEM_GC: detail_gc(out, ix, it->index); break;
    case LANE_ITEM_NM: detail_nm(out, ix, it); break;
    case LANE_ITEM_MARKER: case LANE_ITEM_MSG: detail_msg(out, ix, it); break;
    default: detail_lane_none(out, ix, l, it); break;
    }
    switch (l->kind) {
    case LANE_ACTIVITY: detail_activity(out, ix, it, cursor_ns); break;
    case LANE_HEAP: detail_heap(out, ix, cursor_ns); break;
    case LANE_SPARKS: detail_sparks(out, ix, cursor_ns); break;
    case LANE_SPARK_CREATED: case LANE_SPARK_CONVERTED: case LANE_SPARK_POOL:
        if (it->kind == LANE_ITEM_NONE)
            sparklanes_detail(out, ix, l, it->start_ns, it->end_ns, cursor_ns);
        break;
    case LANE_HEAPBANDS: detail_heapbands(out, ix, cursor_ns); break;
    case LANE_MEMORY: detail_memory_lane(out, ix, cursor_ns); break;
    case LANE_TICKY: detail_ticky(out, ix, cursor_ns); break;
    case LANE_PROF: detail_prof(out, ix, cursor_ns); break;
    case LANE_NONMOVING: detail_nm_census(out, ix, cursor_ns); break;
    default: break;
    }
}

/* ---- ranges ----------------------------------------------------------------------------- */

typedef struct detail_pause {
    uint16_t gen;
    uint64_t pause_ns;
} detail_pause;

static int
detail_pause_cmp(const void *a, const void *b)
{
    const detail_pause *x = a, *y = b;
    if (x->gen != y->gen)
        return x->gen < y->gen ? -1 : 1;
    return x->pause_ns < y->pause_ns ? -1 : x->pause_ns > y->pause_ns;
}

/* Nearest-rank percentile of n sorted values. */
static uint64_t
detail_rank(const detail_pause *p, size_t n, unsigned pct)
{
    size_t r = (n * pct + 99) / 100;
    return p[(r ? r : 1) - 1].pause_ns;
}

/* Largest value of series `id` over [a, b), counting the value in force at a. */
static bool
detail_series_max_in(const evindex *ix, enum evindex_series_id id, uint64_t a, uint64_t b,
                     uint64_t *out)
{
    const series *s = evindex_series(ix, id);
    bool any = false;
    uint64_t mx = 0, lo, hi;
    size_t i = series_at(s, a);
    if (i != SIZE_MAX) {
        mx = series_get(s, i).value;
        any = true;
    }
    if (series_range(s, a, b, &lo, &hi)) {
        if (!any || hi > mx)
            mx = hi;
        any = true;
    }
    *out = mx;
    return any;
}

/* The value of a cumulative series just before t (0 before its first sample). */
static uint64_t
detail_series_before(const series *s, uint64_t t)
{
    if (t == 0)
        return 0;
    size_t i = series_at(s, t - 1);
    return i == SIZE_MAX ? 0 : series_get(s, i).value;
}

/* The pauses starting in [a, b) as a small histogram (pausehist): the buckets' span,
 * then a line of blocks per generation and its fullest bucket. */
static void
detail_range_hist(detail_lines *out, const evindex *ix, uint64_t a, uint64_t b, strbuf *sb)
{
    pausehist h;
    pausehist_from_index(&h, ix, a, b);
    unsigned first = 0, last = 0;
    if (!pausehist_range(&h, &first, &last))
        return;
    strbuf_reset(sb);
    strbuf_puts(sb, "Pause histogram: powers of two from ");
    pausehist_bound(sb, pausehist_bucket_lo(first));
    strbuf_puts(sb, " to ");
    pausehist_bound(sb, pausehist_bucket_hi(last));
    detail_add_sb(out, sb);
    for (unsigned gen = 0; gen < h.n_gens; gen++) {
        const pausehist_gen *g = &h.gens[gen];
        if (!g->n)
            continue;
        strbuf_reset(sb);
        strbuf_printf(sb, "  Gen %u: ", gen);
        pausehist_spark(sb, g, first, last);
        unsigned most = first;
        for (unsigned k = first; k <= last; k++)
            if (g->count[k] > g->count[most])
                most = k;
        strbuf_puts(sb, "  most ");
        pausehist_bound(sb, pausehist_bucket_lo(most));
        strbuf_puts(sb, "..");
        pausehist_bound(sb, pausehist_bucket_hi(most));
        strbuf_printf(sb, " (%llu of %llu)", (unsigned long long)g->count[most],
                      (unsigned long long)g->n);
        detail_add_sb(out, sb);
    }
}

/* The non-moving collector inside [a, b): time in each phase (clipped to the range) and
 * how many phases of each kind overlap it, and the cycles starting in it. */
static void
detail_range_nm(detail_lines *out, const evindex *ix, uint64_t a, uint64_t b)
{
    const ivtrack *tr = evindex_nm_track(ix);
    if (ivtrack_count(tr) == 0)
        return;
    static const char *const names[3] = { "mark", "sync", "sweep" };
    size_t count[3] = { 0, 0, 0 };
    for (size_t i = ivtrack_first_after(tr, a); i < ivtrack_count(tr); i++) {
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv = ivtrack_get(tr, i, &iv_buf);
        if (iv->start_ns >= b)
            break;
        if (iv->kind < 3 && (iv->end_ns > a || iv->start_ns == iv->end_ns))
            count[iv->kind]++;
    }
    size_t cycles = 0;
    for (size_t i = 0; i < evindex_n_nm_cycles(ix); i++) {
        uint64_t s = evindex_nm_cycle_at(ix, i)->start_ns;
        cycles += s >= a && s < b;
    }
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "Non-moving: ");
    for (unsigned k = 0; k < 3; k++) {
        strbuf_printf(&sb, "%s%s ", k ? ", " : "", names[k]);
        detail_dur(&sb, ivtrack_kind_ns(tr, k, a, b));
        strbuf_printf(&sb, " (%zu)", count[k]);
    }
    strbuf_printf(&sb, "; %zu cycle%s starting in the range", cycles, cycles == 1 ? "" : "s");
    detail_add_sb(out, &sb);
    strbuf_free(&sb);
}

static void
detail_range_gcs(detail_lines *out, const evindex *ix, uint64_t a, uint64_t b)
{
    size_t i0 = evindex_gc_first_from(ix, a), i1 = evindex_gc_first_from(ix, b);
    size_t n = i1 > i0 ? i1 - i0 : 0;
    strbuf sb;
    strbuf_init(&sb);
    detail_pause *p = xmalloc((n + 1) * sizeof *p);      /* freed below */
    size_t np = 0;
    uint64_t copied = 0;
    size_t n_par = 0;
    for (size_t i = i0; i < i1; i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        copied += g->copied;
        n_par += g->par_threads > 1;
        p[np].gen = g->gen;
        p[np].pause_ns = g->end_ns - g->start_ns;
        np++;
    }
    qsort(p, np, sizeof *p, detail_pause_cmp);
    strbuf_printf(&sb, "Collections: %zu starting in the range", n);
    for (size_t s = 0; s < np;) {
        size_t e = s;
        while (e < np && p[e].gen == p[s].gen)
            e++;
        if (p[s].gen == EVINDEX_GEN_UNKNOWN)
            strbuf_printf(&sb, ", gen ?: %zu", e - s);
        else
            strbuf_printf(&sb, ", gen %u: %zu", (unsigned)p[s].gen, e - s);
        s = e;
    }
    detail_add_sb(out, &sb);
    for (size_t s = 0; s < np;) {
        size_t e = s;
        uint64_t total = 0;
        while (e < np && p[e].gen == p[s].gen)
            total += p[e++].pause_ns;
        size_t k = e - s;
        strbuf_reset(&sb);
        if (p[s].gen == EVINDEX_GEN_UNKNOWN)
            strbuf_puts(&sb, "Gen ?: ");
        else
            strbuf_printf(&sb, "Gen %u: ", (unsigned)p[s].gen);
        strbuf_printf(&sb, "%zu, pause total ", k);
        detail_dur(&sb, total);
        strbuf_puts(&sb, ", avg ");
        detail_dur(&sb, total / k);
        strbuf_puts(&sb, ", max ");
        detail_dur(&sb, p[e - 1].pause_ns);
        strbuf_puts(&sb, "; p50 ");
        detail_dur(&sb, detail_rank(p + s, k, 50));
        strbuf_puts(&sb, ", p90 ");
        detail_dur(&sb, detail_rank(p + s, k, 90));
        strbuf_puts(&sb, ", p99 ");
        detail_dur(&sb, detail_rank(p + s, k, 99));
        detail_add_sb(out, &sb);
        s = e;
    }
    detail_range_hist(out, ix, a, b, &sb);
    if (n) {
        strbuf_reset(&sb);
        strbuf_printf(&sb, "Copied: ");
        detail_bytes(&sb, copied);
        strbuf_printf(&sb, " by %zu collections (%zu parallel)", n, n_par);
        detail_add_sb(out, &sb);
    }
    x_free(p);
    strbuf_free(&sb);
}

/* Elapsed pause time inside [a, b), every collection's pause clipped to the range. */
static uint64_t
detail_pause_in(const evindex *ix, uint64_t a, uint64_t b)
{
    size_t i = evindex_gc_first_from(ix, a);
    if (i > 0)
        i--;                    /* the one before may run into the range */
    uint64_t total = 0;
    for (; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        if (g->start_ns >= b)
            break;
        uint64_t s = g->start_ns > a ? g->start_ns : a, e = g->end_ns < b ? g->end_ns : b;
        if (e > s)
            total += e - s;
    }
    return total;
}

void
detail_range(detail_lines *out, const evindex *ix, uint64_t a_ns, uint64_t b_ns)
{
    uint64_t a = a_ns < b_ns ? a_ns : b_ns, b = a_ns < b_ns ? b_ns : a_ns;
    uint64_t len = b - a;
    strbuf sb;
    strbuf_init(&sb);
    /* Exact ends: rounded, a range from an item's start could print after it, and
     * `stats --from A --to B` would then miss what the range holds. */
    strbuf_puts(&sb, "Range: ");
    detail_at(&sb, a);
    strbuf_puts(&sb, " .. ");
    detail_at(&sb, b);
    strbuf_puts(&sb, " (");
    detail_at(&sb, len);
    strbuf_putc(&sb, ')');
    detail_add_sb(out, &sb);
    if (len == 0) {
        strbuf_free(&sb);
        return;
    }

    uint64_t run_total = 0, gc_total = 0;
    size_t n_hec = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        if (!lanes_cap_shown(ix, i))
            continue;
        const evindex_cap *c = evindex_cap_at(ix, i);
        uint64_t run = runlane_busy_ns(c->runs, a, b);
        uint64_t gc = ivtrack_kind_ns(c->gc, EVINDEX_GC_WORK, a, b) +
                      ivtrack_kind_ns(c->gc, EVINDEX_GC_WAIT, a, b);
        run_total += run;
        gc_total += gc;
        n_hec++;
        strbuf_reset(&sb);
        if (c->cap == EVINDEX_NO_CAP)
            strbuf_puts(&sb, "global: run ");
        else
            strbuf_printf(&sb, "HEC %u: run ", (unsigned)c->cap);
        detail_pct(&sb, run, len);
        strbuf_puts(&sb, ", GC ");
        detail_pct(&sb, gc, len);
        detail_add_sb(out, &sb);
    }
    if (n_hec) {
        double cap_time = (double)len * (double)n_hec;
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Mutator (all HECs): ");
        detail_dur(&sb, run_total);
        strbuf_printf(&sb, " (%.1f%% of %zu HECs' time)", 100.0 * (double)run_total / cap_time,
                      n_hec);
        detail_add_sb(out, &sb);
        strbuf_reset(&sb);
        strbuf_puts(&sb, "GC (all HECs): ");
        detail_dur(&sb, gc_total);
        strbuf_printf(&sb, " (%.1f%%)", 100.0 * (double)gc_total / cap_time);
        detail_add_sb(out, &sb);
    }
    uint64_t pause = detail_pause_in(ix, a, b);
    strbuf_reset(&sb);
    strbuf_puts(&sb, "Elapsed: mutator ");
    detail_dur(&sb, len - pause);
    strbuf_puts(&sb, ", GC pauses ");
    detail_dur(&sb, pause);
    detail_add_sb(out, &sb);
    strbuf_reset(&sb);
    /* Not GHC's Productivity, which `stats` prints; the help screen defines it. */
    strbuf_puts(&sb, DETAIL_MUTATOR_SHARE ": ");
    detail_pct(&sb, len - pause, len);
    detail_add_sb(out, &sb);

    detail_range_gcs(out, ix, a, b);
    detail_range_nm(out, ix, a, b);

    const series *alloc = evindex_series(ix, EVINDEX_S_ALLOCATED);
    if (series_count(alloc)) {
        uint64_t at_a = detail_series_before(alloc, a), at_b = detail_series_before(alloc, b);
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Allocated: ");
        detail_bytes(&sb, at_b > at_a ? at_b - at_a : 0);
        double secs = (double)len / 1e9;
        if (secs > 0 && at_b > at_a) {
            strbuf_puts(&sb, " (");
            detail_bytes(&sb, (uint64_t)((double)(at_b - at_a) / secs));
            strbuf_puts(&sb, "/s)");
        }
        detail_add_sb(out, &sb);
    }
    uint64_t v;
    if (detail_series_max_in(ix, EVINDEX_S_HEAP_SIZE, a, b, &v)) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Max heap size: ");
        detail_bytes(&sb, v);
        detail_add_sb(out, &sb);
    }
    if (detail_series_max_in(ix, EVINDEX_S_HEAP_LIVE, a, b, &v)) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, "Max live bytes: ");
        detail_bytes(&sb, v);
        detail_add_sb(out, &sb);
    }

    size_t m0 = evindex_marker_first_from(ix, a), m1 = evindex_marker_first_from(ix, b);
    size_t g0 = lanes_msg_first_from(ix, a), g1 = lanes_msg_first_from(ix, b);
    size_t n_markers = m1 > m0 ? m1 - m0 : 0, n_msgs = g1 > g0 ? g1 - g0 : 0;
    if (evindex_n_msgs(ix)) {
        strbuf_reset(&sb);
        strbuf_printf(&sb, "Markers: %zu, messages: %zu", n_markers, n_msgs - n_markers);
        if (n_markers) {
            const uint8_t *p;
            size_t n;
            const evindex_msg msg_v = evindex_marker_at(ix, m0);
            if (evindex_msg_text(ix, &msg_v, &p, &n)) {
                strbuf_puts(&sb, "; first: ");
                detail_one_line(&sb, p, n, 40);
            }
        }
        detail_add_sb(out, &sb);
    }
    detail_spark_events(out, ix, "Spark events", a, b);
    sparklanes_counters sc;
    if (!sparklanes_exact(ix) && sparklanes_range_counters(ix, a, b, &sc))
        detail_lines_add(out, "Spark counters: created %llu, converted %llu, overflowed %llu, "
                         "dud %llu, GC'd %llu, fizzled %llu (the rise between the samples "
                         "before the range's ends)", (unsigned long long)sc.created,
                         (unsigned long long)sc.converted, (unsigned long long)sc.overflowed,
                         (unsigned long long)sc.dud, (unsigned long long)sc.gcd,
                         (unsigned long long)sc.fizzled);
    strbuf_free(&sb);
}

/* ---- status line ------------------------------------------------------------------------ */

/* A sample lane's own sample: which of how many, and what it holds. */
static void
detail_sample_status(strbuf *out, const evindex *ix, const lane *l, const lane_item *it)
{
    size_t i = it->index;
    switch (l->kind) {
    case LANE_HEAPBANDS: {
        const heapprof *hp = evindex_heap_profile(ix);
        const heapprof_census *c = heapprof_census_at(hp, i);
        strbuf_printf(out, "census %zu/%zu: ", i + 1, heapprof_n_censuses(hp));
        detail_bytes(out, c->total_bytes);
        strbuf_printf(out, " in %u bands", c->n_entries);
        break;
    }
    case LANE_TICKY: {
        const ticky *tk = evindex_ticky(ix);
        const ticky_sample *s = ticky_sample_at(tk, i);
        strbuf_printf(out, "ticky sample %zu/%zu: %u counters, %llu entries, ", i + 1,
                      ticky_n_samples(tk), s->n, (unsigned long long)s->entries);
        detail_bytes(out, s->allocs);
        strbuf_puts(out, " allocated");
        break;
    }
    case LANE_PROF: {
        const timeprof *tp = evindex_timeprof(ix);
        strbuf_printf(out, "prof sample %zu/%zu, cap %u: ", i + 1, timeprof_n_samples(tp),
                      timeprof_sample_at(tp, i).cap);
        detail_cost_centre(out, ix, timeprof_innermost(tp, i), true);
        break;
    }
    default: {
        const series *s = lanes_sample_series(ix, l);
        series_sample v = series_get(s, i);
        bool mem = l->kind == LANE_MEMORY;
        bool blocks = mem && s == evindex_series(ix, EVINDEX_S_BLOCKS_SIZE);
        bool live = !mem && s == evindex_series(ix, EVINDEX_S_HEAP_LIVE);
        strbuf_printf(out, "%s sample %zu/%zu: ", mem ? "memory" : "heap", i + 1,
                      series_count(s));
        if (mem && !blocks) {
            strbuf_printf(out, "%llu megablocks from the OS", (unsigned long long)v.value);
        } else {
            strbuf_puts(out, blocks ? "blocks size " : live ? "live " : "heap ");
            detail_bytes(out, v.value);
        }
        break;
    }
    }
}

void
detail_status(strbuf *out, const evindex *ix, const lane *l, const lane_item *it,
              uint64_t cursor_ns, uint64_t res_ns)
{
    strbuf_puts(out, l->label);
    strbuf_puts(out, " · ");
    if (it->kind != LANE_ITEM_NONE) {
        uint64_t item_res = detail_item_res(ix, l, it);
        res_ns = item_res < res_ns ? item_res : res_ns;
    }
    timefmt_append_res(out, cursor_ns, res_ns);
    strbuf_puts(out, " · ");
    switch (it->kind) {
    case LANE_ITEM_RUN: {
        const evindex_cap *cap;
        runlane_run r;
        if (!detail_get_run(ix, l, it, &cap, &r)) {
            strbuf_puts(out, "run not on this lane");
            break;
        }
        strbuf_puts(out, "thread ");
        detail_thread_name(out, ix, r.tid, DETAIL_STATUS_LABEL);
        strbuf_puts(out, " ran ");
        detail_dur(out, r.end_ns - r.start_ns);
        strbuf_puts(out, ", stopped: ");
        detail_stop_text(out, ix, cap->cap, &r);
        break;
    }
    case LANE_ITEM_GC: {
        if (it->index >= evindex_n_gcs(ix)) {
            strbuf_puts(out, "GC phase");
            break;
        }
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, it->index, &g_buf);
        strbuf_puts(out, "GC ");
        detail_gc_head(out, g);
        strbuf_puts(out, " pause ");
        detail_dur(out, g->end_ns - g->start_ns);
        if (g->stopping_ns != EVINDEX_NO_TIME) {
            strbuf_puts(out, " to stop ");
            detail_dur(out, g->stopping_ns);
            if (g->slowest_cap != EVINDEX_NO_CAP)
                strbuf_printf(out, " (last HEC %u)", (unsigned)g->slowest_cap);
        }
        if (g->census_ns) {
            strbuf_puts(out, " census ");
            detail_dur(out, g->census_ns);
        }
        break;
    }
    case LANE_ITEM_NM: {
        unsigned kind = detail_nm_kind_at(ix, it->start_ns);
        strbuf_printf(out, "non-moving cycle %zu %s ", it->index + 1, detail_nm_phase_name(kind));
        detail_dur(out, it->end_ns - it->start_ns);
        break;
    }
    case LANE_ITEM_MARKER:
    case LANE_ITEM_MSG: {
        evindex_msg m_v;
    const evindex_msg *m = detail_item_msg(ix, it, &m_v);
        strbuf_puts(out, it->kind == LANE_ITEM_MARKER ? "marker: " : "message: ");
        const uint8_t *p;
        size_t n;
        if (m && m->kind != EVINDEX_MSG_BINARY && evindex_msg_text(ix, m, &p, &n))
            detail_one_line(out, p, n, DETAIL_STATUS_TEXT);
        else if (m)
            strbuf_puts(out, detail_msg_kind(m->kind));
        break;
    }
    case LANE_ITEM_SAMPLE:
        detail_sample_status(out, ix, l, it);
        break;
    default:
        if (l->kind == LANE_PROF) {
            size_t i = timeprof_last_by(evindex_timeprof(ix), cursor_ns);
            if (i == SIZE_MAX) {
                strbuf_puts(out, "no profile sample yet");
            } else {
                strbuf_puts(out, "last sample in ");
                detail_cost_centre(out, ix, timeprof_innermost(evindex_timeprof(ix), i), true);
            }
        } else if (l->kind == LANE_HEAP) {
            uint64_t v;
            if (detail_series_at(ix, EVINDEX_S_HEAP_SIZE, cursor_ns, &v)) {
                strbuf_puts(out, "heap ");
                detail_bytes(out, v);
            } else if (detail_series_at(ix, EVINDEX_S_HEAP_LIVE, cursor_ns, &v)) {
                strbuf_puts(out, "live ");
                detail_bytes(out, v);
            } else {
                strbuf_puts(out, "no heap sample yet");
            }
        } else if (l->kind == LANE_SPARK_CREATED || l->kind == LANE_SPARK_CONVERTED ||
                   l->kind == LANE_SPARK_POOL) {
            sparklanes_status(out, ix, l, it->start_ns, it->end_ns);
        } else if (l->kind == LANE_SPARKS) {
            uint64_t v;
            if (detail_series_at(ix, EVINDEX_S_SPARK_POOL, cursor_ns, &v))
                strbuf_printf(out, "spark pool %llu", (unsigned long long)v);
            else
                strbuf_printf(out, "%llu sparks created in all", (unsigned long long)
                              evindex_spark_total(ix, EVINDEX_SPARK_CREATE));
        } else if (l->kind == LANE_ACTIVITY) {
            size_t n_hec = 0, running = 0;
            for (size_t i = 0; i < evindex_n_caps(ix); i++) {
                if (!lanes_cap_shown(ix, i))
                    continue;
                n_hec++;
                running += detail_running_at(evindex_cap_at(ix, i)->runs, cursor_ns);
            }
            strbuf_printf(out, "%zu of %zu HECs running", running, n_hec);
        } else {
            strbuf_puts(out, l->kind == LANE_HEC ? "idle" : "nothing here");
        }
        break;
    }
}
