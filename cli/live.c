/* live: the command loop over a live source — wait for bytes (at most a tenth of a
 * second), take them, print what can be placed, until the stream ends, the log's end
 * marker comes or Ctrl-C (after which what was read counts as a log cut there). */
#include "live.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evindex.h"
#include "livelog.h"
#include "livemerge.h"
#include "render.h"
#include "strbuf.h"

#define LIVE_TICK_MS 100

static volatile sig_atomic_t live_interrupted;

static void
live_on_sigint(int sig)
{
    (void)sig;
    live_interrupted = 1;
    signal(SIGINT, SIG_DFL);    /* a second Ctrl-C ends at once */
}

static livelog *
live_start(const char *spec, const livesrc_opts *o)
{
    diag d;
    diag_clear(&d);
    livelog *l = livelog_open(spec, o, &d);
    if (!l) {
        fprintf(stderr, "elog-tui: %s: %s\n", spec, d.msg);
        exit(1);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = live_on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    return l;
}

/* Waiting for the writer: said once, so a silent command is not a mystery. */
static void
live_say_waiting(const char *spec, livelog *l, const livesrc_status *st, bool *said)
{
    if (*said || st->state != LIVESRC_CONNECTING || st->bytes)
        return;
    enum livesrc_kind k = livesrc_kind_of(livelog_src(l));
    if (k == LIVESRC_FIFO)
        fprintf(stderr, "elog-tui: %s: waiting for a writer (a FIFO)\n", spec);
    else if (k == LIVESRC_UNIX || k == LIVESRC_TCP)
        fprintf(stderr, "elog-tui: %s: waiting for the program (connecting)\n", spec);
    *said = true;
}

/* One round: wait, take bytes. False once there is nothing more to wait for (the
 * stream ended, Ctrl-C, or an error already reported: *status set). */
static bool
live_round(const char *spec, livelog *l, bool done, int *status, bool *said)
{
    livesrc_status st;
    diag d;
    diag_clear(&d);
    /* Ctrl-C before a whole header came cancels: there is nothing to report on. */
    if (live_interrupted && !livelog_log(l)) {
        *status = 128 + SIGINT;
        return false;
    }
    if (done || live_interrupted) {
        livesrc_stop(livelog_src(l));
        livelog_update(l, 0, &st, &d);
        return false;
    }
    if (!livelog_update(l, LIVE_TICK_MS, &st, &d)) {
        char buf[1024];
        diag_format(&d, spec, buf, sizeof buf);
        bool refused = strncmp(d.msg, "cannot connect", 14) == 0;
        fprintf(stderr, "elog-tui: %s%s\n", buf,
                refused ? " (--wait keeps trying until the program is up)" : "");
        *status = 1;
        return false;
    }
    live_say_waiting(spec, l, &st, said);
    if (st.state == LIVESRC_LOST && livelog_final(l))
        fprintf(stderr, "elog-tui: warning: %s: connection lost (%s)\n", spec, st.err.msg);
    return !livelog_final(l);
}

/* A file-order read that only learns whether the end marker has come. */
typedef struct live_scan {
    evlog_iter it;
    bool started;
} live_scan;

static bool
live_scan_done(live_scan *s, const evlog *log)
{
    if (!log)
        return false;
    if (!s->started) {
        evlog_iter_init(&s->it, log);
        s->started = true;
    } else {
        evlog_iter_resume(&s->it);
    }
    evlog_event ev;
    while (evlog_iter_next(&s->it, &ev))
        ;
    return s->it.state == EVLOG_ITER_END || s->it.state == EVLOG_ITER_ERROR;
}

evlog *
live_collect(const char *spec, const livesrc_opts *o)
{
    livelog *l = live_start(spec, o);
    live_scan scan = { .started = false };
    int status = 0;
    bool said = false;
    while (live_round(spec, l, live_scan_done(&scan, livelog_log(l)), &status, &said))
        ;
    if (status)
        exit(status);
    evlog *log = livelog_detach(l);
    if (!log) {
        fprintf(stderr, "elog-tui: %s: no eventlog header was read\n", spec);
        exit(1);
    }
    return log;
}

/* Flush what is buffered; false if writing failed. */
static bool
live_flush(strbuf *sb)
{
    bool ok = fwrite(sb->data, 1, sb->len, stdout) == sb->len && fflush(stdout) == 0;
    strbuf_reset(sb);
    return ok;
}

static int
live_ending(const char *spec, const diag *ending, size_t n_events)
{
    if (ending->code == DIAG_OK)
        return 0;
    char buf[1024];
    diag_format(ending, spec, buf, sizeof buf);
    if (ending->code == DIAG_TRUNCATED) {
        fprintf(stderr, "elog-tui: warning: %s; %zu complete events before it were read\n",
                buf, n_events);
        return 0;
    }
    fprintf(stderr, "elog-tui: %s\n", buf);
    return 1;
}

int
live_show(const char *spec, const livesrc_opts *o)
{
    livelog *l = live_start(spec, o);
    livemerge *m = NULL;
    render *r = render_new();
    strbuf sb;
    strbuf_init(&sb);
    bool ok = true, more = true, said = false;
    int status = 0;
    while (more) {
        more = live_round(spec, l, m && livemerge_done(m), &status, &said);
        if (status)
            break;
        evlog *log = livelog_log(l);
        if (!log)
            continue;
        if (!m) {
            m = livemerge_new(log, (size_t)1 << 22);
            strbuf_puts(&sb, "Event Types:\n");
            for (size_t i = 0; i < evlog_n_types(log); i++) {
                render_type_line(&sb, evlog_type_at(log, i));
                strbuf_putc(&sb, '\n');
            }
            strbuf_puts(&sb, "\nEvents:\n");
        }
        livemerge_feed(m);
        evlog_event ev;
        while (livemerge_next(m, !more, &ev)) {
            render_show_line(r, &sb, &ev);
            if (sb.len >= ((size_t)1 << 20) && !(ok = live_flush(&sb)))
                break;
        }
        if (!ok || !(ok = live_flush(&sb)))
            break;
    }
    if (m && ok && !status) {
        strbuf_putc(&sb, '\n');
        ok = live_flush(&sb);
    }
    diag ending;
    diag_clear(&ending);
    size_t n = 0, late = 0;
    if (m) {
        livemerge_ending(m, &ending);
        n = livemerge_n_out(m);
        late = livemerge_n_late(m);
    }
    if (late)
        fprintf(stderr, "elog-tui: warning: %s: %zu events came after later ones had been "
                "printed (a capability's events out of order by more than 10 ms): the listing "
                "is not in time order there; `show` on the finished log is\n", spec, late);
    livemerge_free(m);
    render_free(r);
    strbuf_free(&sb);
    livelog_close(l);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    return status ? status : live_ending(spec, &ending, n);
}

/* --- gc and markers --------------------------------------------------------------------
 * Each round with new bytes grows the index by them (evindex_grow: only the new data is
 * indexed) and prints the rows that can no longer change: markers at or before the
 * placed time, collections final in the index and followed by the start of another
 * before it (what a collection reports — copied, live, allocated — is posted around
 * its end). At the end the grower is finished into the file's index for the last rows.
 * Each round checks that what was printed is still what the index says (a digest of
 * the printed bytes); should it not be, a warning at the end says so. */

static uint64_t
live_digest(uint64_t h, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Rows of the report that are final at placed time `placed` (all when `final`). */
static size_t
live_final_rows(const evindex *ix, const char *cmd, const reports_opts *ro, uint64_t placed,
                size_t gcs_final, bool final)
{
    if (strcmp(cmd, "gc") == 0) {
        size_t n = evindex_n_gcs(ix);
        if (final)
            return n;
        size_t k = 0;
        while (k + 1 < n && evindex_gc_get(ix, k + 1, &(evindex_gc){ 0 })->start_ns <= placed)
            k++;
        return k < gcs_final ? k : gcs_final;
    }
    size_t n = ro->messages ? evindex_n_msgs(ix) : evindex_n_markers(ix);
    if (final)
        return n;
    size_t k = 0;
    while (k < n && (ro->messages ? evindex_msg_at(ix, k) : evindex_marker_at(ix, k)).time_ns
                        <= placed)
        k++;
    return k;
}

int
live_table(const char *spec, const livesrc_opts *o, const char *cmd, const reports_opts *ro)
{
    livelog *l = live_start(spec, o);
    livemerge *m = NULL;
    evindex_grow *g = NULL;     /* the index, grown round by round */
    uint64_t printed = 0, digest = UINT64_C(0xcbf29ce484222325);
    uint64_t built_bytes = 0;
    bool ok = true, more = true, diverged = false, said = false;
    int status = 0;
    diag ending;
    diag_clear(&ending);
    size_t n_events = 0;
    while (more) {
        more = live_round(spec, l, m && livemerge_done(m), &status, &said);
        if (status)
            break;
        evlog *log = livelog_log(l);
        if (!log)
            continue;
        if (!m)
            m = livemerge_new(log, (size_t)1 << 22);
        livemerge_feed(m);
        evlog_event ev;
        while (livemerge_next(m, false, &ev))
            ;   /* only the placed time is wanted here */
        if (more && evlog_size(log) == built_bytes)
            continue;
        built_bytes = evlog_size(log);
        if (!g)
            g = evindex_grow_new(log);
        evindex *done = NULL;
        const evindex *ix;
        size_t gcs_final = 0;
        if (more) {
            while (evindex_grow_step(g, UINT64_MAX))
                ;
            ix = evindex_grow_index(g);
            ending = *evindex_ending(ix);
            evindex_grow_work w;
            evindex_grow_work_get(g, &w);
            gcs_final = (size_t)w.gcs_final;
        } else {
            ix = done = evindex_grow_finish(g, &ending);    /* the file's index */
            g = NULL;
        }
        reports_opts k = *ro;
        k.limit = live_final_rows(ix, cmd, ro, livemerge_placed_ns(m), gcs_final, !more);
        strbuf out;
        strbuf_init(&out);
        if (k.limit || !more) {
            if (!more)
                k.limit = 0;
            if (strcmp(cmd, "gc") == 0)
                reports_gc(&out, ix, &k);
            else
                reports_markers(&out, ix, &k);
        }
        n_events = evindex_n_events(ix);
        evindex_free(done);
        if (out.len > printed) {
            if (live_digest(UINT64_C(0xcbf29ce484222325), out.data, printed) != digest)
                diverged = true;
            size_t add = out.len - printed;
            ok = fwrite(out.data + printed, 1, add, stdout) == add && fflush(stdout) == 0;
            digest = live_digest(digest, out.data + printed, add);
            printed = out.len;
        } else if (out.len < printed) {
            diverged = true;    /* fewer bytes than already printed: rows changed */
        }
        strbuf_free(&out);
        if (!ok)
            break;
    }
    livemerge_free(m);
    evindex_grow_free(g);
    livelog_close(l);
    if (!ok) {
        fprintf(stderr, "elog-tui: error writing output\n");
        return 1;
    }
    if (diverged)
        fprintf(stderr, "elog-tui: warning: %s: rows printed while the log was written differ "
                "from the finished log's; run the command again on the whole log\n", spec);
    return status ? status : live_ending(spec, &ending, n_events);
}
