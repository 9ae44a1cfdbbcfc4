/* lifeview: a focused thread's life as text. Runs and instants are merged by position:
 * run j sits at j + (instants at or before its start), so entry i is found by a binary
 * search and a window of the list costs O(rows log n), however long the thread lived. */
#include "lifeview.h"

#include "decode.h"
#include "render.h"
#include "textfmt.h"
#include "timefmt.h"

/* Columns the entry's time is padded to: "123.456789ms" and "1.234567890s" fit. */
#define LIFEVIEW_TIME_COLS 12

/* Instants with time <= t. */
static size_t
lifeview_events_upto(const threadlife *tl, uint64_t t)
{
    size_t lo = 0, hi = threadlife_n_events(tl);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (threadlife_event_at(tl, mid)->time_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Position of run j in the merged list. */
static size_t
lifeview_run_pos(const threadlife *tl, size_t j)
{
    return j + lifeview_events_upto(tl, threadlife_run_at(tl, j)->start_ns);
}

size_t
lifeview_n_entries(const threadlife *tl)
{
    return threadlife_n_runs(tl) + threadlife_n_events(tl);
}

/* Entry i as a run (*is_run, *k = run index) or an instant (*k = instant index). */
static void
lifeview_locate(const threadlife *tl, size_t i, bool *is_run, size_t *k)
{
    size_t lo = 0, hi = threadlife_n_runs(tl);
    while (lo < hi) {           /* runs placed before position i */
        size_t mid = lo + (hi - lo) / 2;
        if (lifeview_run_pos(tl, mid) < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    *is_run = lo < threadlife_n_runs(tl) && lifeview_run_pos(tl, lo) == i;
    *k = *is_run ? lo : i - lo;
}

static void
lifeview_cap(strbuf *out, uint16_t cap)
{
    if (cap == EVINDEX_NO_CAP)
        strbuf_puts(out, "no HEC");
    else
        strbuf_printf(out, "HEC %u", (unsigned)cap);
}

static void
lifeview_by(strbuf *out, uint32_t by_tid)
{
    if (by_tid)
        strbuf_printf(out, "thread %u", (unsigned)by_tid);
    else
        strbuf_puts(out, "the RTS (no thread running there)");
}

/* The label text of a THREAD_LABEL event. */
static void
lifeview_label(strbuf *out, const evindex *ix, const threadlife_event *e)
{
    evlog_event ev;
    evdecoded dec;
    if (!evlog_event_at(evindex_log(ix), e->offset, e->cap, &ev))
        return;
    decode_event(&ev, &dec);
    if (dec.n_present >= 2 && dec.f[1].p) {
        strbuf_putc(out, '"');
        textfmt_append_utf8(out, dec.f[1].p, dec.f[1].len);
        strbuf_putc(out, '"');
    }
}

static void
lifeview_run_text(strbuf *out, const evindex *ix, const threadlife_run *r)
{
    lifeview_cap(out, r->cap);
    strbuf_puts(out, "  ran ");
    timefmt_append(out, r->end_ns - r->start_ns);
    if (r->flags & RUNLANE_F_OPEN) {
        strbuf_puts(out, r->end_ns >= evindex_last_ns(ix) ? ", still running at the end"
                                                          : ", no stop event");
        return;
    }
    strbuf_puts(out, ", stopped: ");
    render_stop_status(out, r->status, r->info);
}

static void
lifeview_event_text(strbuf *out, const evindex *ix, const threadlife_event *e)
{
    switch (e->kind) {
    case THREADLIFE_CREATE:
        strbuf_puts(out, "created on ");
        lifeview_cap(out, e->cap);
        strbuf_puts(out, " by ");
        lifeview_by(out, e->by_tid);
        break;
    case THREADLIFE_LABEL:
        strbuf_puts(out, "labelled ");
        lifeview_label(out, ix, e);
        break;
    case THREADLIFE_WAKEUP:
        strbuf_puts(out, "woken by ");
        lifeview_by(out, e->by_tid);
        strbuf_puts(out, " on ");
        lifeview_cap(out, e->cap);
        if (e->other_cap != e->cap) {
            strbuf_puts(out, " (it is on ");
            lifeview_cap(out, e->other_cap);
            strbuf_putc(out, ')');
        }
        break;
    default:
        strbuf_puts(out, "migrated ");
        lifeview_cap(out, e->cap);
        strbuf_puts(out, " -> ");
        lifeview_cap(out, e->other_cap);
        break;
    }
}

bool
lifeview_entry(const evindex *ix, const threadlife *tl, size_t i, strbuf *out,
               uint64_t *time_ns)
{
    if (i >= lifeview_n_entries(tl))
        return false;
    bool is_run;
    size_t k;
    lifeview_locate(tl, i, &is_run, &k);
    uint64_t t = is_run ? threadlife_run_at(tl, k)->start_ns : threadlife_event_at(tl, k)->time_ns;
    if (time_ns)
        *time_ns = t;
    size_t start = out->len;
    timefmt_append_res(out, t, 1);
    while (out->len - start < LIFEVIEW_TIME_COLS)      /* the texts line up */
        strbuf_putc(out, ' ');
    strbuf_puts(out, "  ");
    if (is_run)
        lifeview_run_text(out, ix, threadlife_run_at(tl, k));
    else
        lifeview_event_text(out, ix, threadlife_event_at(tl, k));
    return true;
}

/* Index of the last entry at or before t, SIZE_MAX if none. */
static size_t
lifeview_entry_at(const threadlife *tl, uint64_t t)
{
    size_t runs = threadlife_step(tl, t, 1);        /* first run starting after t */
    if (runs == SIZE_MAX)
        runs = threadlife_n_runs(tl);
    size_t n = runs + lifeview_events_upto(tl, t);
    return n ? n - 1 : SIZE_MAX;
}

/* "Thread: 12 (worker-5)" into sb; the thread's table record into *th_v, NULL if none. */
static const threadtab_thread *
lifeview_name(strbuf *sb, const evindex *ix, uint32_t tid, threadtab_thread *th_v)
{
    strbuf_printf(sb, "Thread: %u", (unsigned)tid);
    const threadtab_thread *th = threadtab_find(evindex_threads(ix), tid, th_v) ? th_v : NULL;
    const uint8_t *p;
    size_t n;
    if (th && evindex_thread_label(ix, th, &p, &n) && n > 0) {
        strbuf_puts(sb, " (");
        textfmt_append_utf8(sb, p, n);
        strbuf_putc(sb, ')');
    }
    return th;
}

void
lifeview_pending_lines(detail_lines *out, const evindex *ix, uint32_t tid, bool ascii)
{
    strbuf sb;
    strbuf_init(&sb);
    threadtab_thread th_v;
    const threadtab_thread *th = lifeview_name(&sb, ix, tid, &th_v);
    if (th)
        strbuf_printf(&sb, " · %u wake-ups, %u migrations", (unsigned)th->n_wakeups,
                      (unsigned)th->n_migrations);
    detail_lines_add(out, "%s", sb.data ? sb.data : "");
    detail_lines_add(out, "Focus: reading the log for its runs, creation, labels, wake-ups, "
                     "migrations and what it blocked on%s . and , step through its runs "
                     "meanwhile, Esc ends the focus", ascii ? "..." : "…");
    strbuf_free(&sb);
}

void
lifeview_lines(detail_lines *out, const evindex *ix, const threadlife *tl, uint64_t cursor_ns,
               int rows, bool ascii)
{
    uint32_t tid = threadlife_tid(tl);
    strbuf sb;
    strbuf_init(&sb);
    threadtab_thread th_v;
    const threadtab_thread *th = lifeview_name(&sb, ix, tid, &th_v);
    strbuf_printf(&sb, " · %zu runs, run time ", threadlife_n_runs(tl));
    timefmt_append(&sb, threadlife_run_ns(tl));
    if (th)
        strbuf_printf(&sb, " · %u wake-ups, %u migrations", (unsigned)th->n_wakeups,
                      (unsigned)th->n_migrations);
    detail_lines_add(out, "%s", sb.data ? sb.data : "");
    size_t total = lifeview_n_entries(tl), at = lifeview_entry_at(tl, cursor_ns);
    if (!threadlife_complete(tl))
        detail_lines_add(out, "Focus: its %zu runs; reading the log for its creation, "
                         "labels, wake-ups, migrations and what it blocked on%s", total,
                         ascii ? "..." : "…");
    else
        detail_lines_add(out, "Focus: its life, %zu entries; %s marks the cursor, . and , "
                         "step through its runs, Esc ends the focus", total, ascii ? ">" : "▶");
    int body = rows - 2;
    if (body <= 0 || total == 0) {
        strbuf_free(&sb);
        return;
    }
    size_t anchor = at == SIZE_MAX ? 0 : at;
    size_t first = anchor > (size_t)body / 2 ? anchor - (size_t)body / 2 : 0;
    if (first + (size_t)body > total)
        first = total > (size_t)body ? total - (size_t)body : 0;
    for (size_t i = first; i < total && i < first + (size_t)body; i++) {
        strbuf_reset(&sb);
        strbuf_puts(&sb, i == at ? (ascii ? " > " : " ▶ ") : "   ");
        lifeview_entry(ix, tl, i, &sb, NULL);
        detail_lines_add(out, "%s", sb.data);
    }
    strbuf_free(&sb);
}
