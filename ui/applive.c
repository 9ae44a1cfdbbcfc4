/* applive: grows the live log between frames, rebuilds its index on a background
 * thread (a whole pass over the log so far: rebuilds are spaced by four times the last
 * one's duration, at least APPLIVE_MIN_GAP_MS), and swaps finished indexes into the
 * app. The log only grows while no thread reads it. */
#include "applive.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app_int.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define APPLIVE_MIN_GAP_MS 200
#define APPLIVE_POLL_MS 50
#define APPLIVE_ALERT_SHOW_NS ((uint64_t)5000000000u)  /* an alert stays 5 s */

struct applive {
    livelog *l;                 /* borrowed */
    uint64_t alert_pause_ns;
    evindex *cur;               /* owned; the app's index */
    evindex *ready;             /* owned; built, waiting to be swapped in */
    /* The background build. */
    pthread_t th;
    bool running;
    _Atomic int done;
    evindex *built;             /* the thread's result */
    diag built_ending;
    uint64_t build_bytes;       /* log size the running build reads */
    uint64_t build_arrival_ns;  /* when those bytes had come */
    uint64_t build_start_ns, next_build_ns;
    uint64_t indexed_bytes;     /* log size of `cur` or `ready` */
    /* Header figures. */
    uint64_t lag_ns;
    double rate;                /* events per second, smoothed */
    uint64_t rate_t_ns;
    size_t rate_events;
    livesrc_status st;
    bool ended;                 /* the end-of-data marker came */
    bool src_final;
    size_t gcs_seen;
    bool final_scanned;         /* the last index's collections were all looked at */
    applive_alert *alerts;      /* owned */
    size_t n_alerts, cap_alerts;
    uint64_t alert_shown_ns;    /* when the newest alert was raised */
};

static uint64_t
applive_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *
applive_build_main(void *arg)
{
    applive *lv = arg;
    lv->built = evindex_build(livelog_log(lv->l), NULL, &lv->built_ending);
    atomic_store(&lv->done, 1);
    return NULL;
}

/* The build thread takes no signals: they go to the loop's thread. */
static bool
applive_start_build(applive *lv)
{
    sigset_t all, old;
    sigfillset(&all);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    atomic_store(&lv->done, 0);
    lv->running = pthread_create(&lv->th, NULL, applive_build_main, lv) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return lv->running;
}

applive *
applive_new(livelog *l, evindex *ix, uint64_t alert_pause_ns)
{
    applive *lv = xcalloc(1, sizeof *lv);
    lv->l = l;
    lv->cur = ix;
    lv->alert_pause_ns = alert_pause_ns;
    lv->indexed_bytes = evlog_size(livelog_log(l));
    lv->rate_t_ns = applive_now_ns();
    lv->rate_events = evindex_n_events(ix);
    lv->ended = evindex_ending(ix)->code == DIAG_OK;
    livesrc_status_get(livelog_src(l), &lv->st);
    return lv;
}

const evindex *
applive_index(const applive *lv)
{
    return lv->cur;
}

void
applive_header_text(char *buf, size_t len, const char *name, const char *state,
                    double events_per_s, uint64_t lag_ns, bool following, bool ended)
{
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s \xc2\xb7 %s", name, state);
    if (!ended) {
        if (events_per_s >= 1e6)
            strbuf_printf(&sb, " \xc2\xb7 %.1fM ev/s", events_per_s / 1e6);
        else if (events_per_s >= 1e3)
            strbuf_printf(&sb, " \xc2\xb7 %.1fk ev/s", events_per_s / 1e3);
        else
            strbuf_printf(&sb, " \xc2\xb7 %.0f ev/s", events_per_s);
        /* A duration, not a time on the log's clock: whole ms, tenths below 10 ms. */
        double ms = (double)lag_ns / 1e6;
        strbuf_printf(&sb, ms < 10 ? " \xc2\xb7 lag %.1fms" : " \xc2\xb7 lag %.0fms", ms);
    }
    strbuf_puts(&sb, following ? " \xc2\xb7 following" : " \xc2\xb7 F follows");
    snprintf(buf, len, "%.*s", (int)sb.len, sb.data);
    strbuf_free(&sb);
}

static const char *
applive_state(const applive *lv)
{
    if (lv->ended)
        return "program ended";
    if (lv->st.state == LIVESRC_LOST || (lv->src_final && lv->st.state == LIVESRC_ENDED))
        return "connection lost";
    return "live";
}

static void
applive_header(applive *lv, app *a, uint64_t now)
{
    if (lv->n_alerts && now - lv->alert_shown_ns < APPLIVE_ALERT_SHOW_NS) {
        const applive_alert *al = &lv->alerts[lv->n_alerts - 1];
        strbuf sb;
        strbuf_init(&sb);
        strbuf_puts(&sb, "GC pause ");
        timefmt_append(&sb, al->pause_ns);
        strbuf_puts(&sb, " at ");
        timefmt_append(&sb, al->start_ns);
        strbuf_printf(&sb, " (%zu long pause%s; g lists GCs)", lv->n_alerts,
                      lv->n_alerts == 1 ? "" : "s");
        snprintf(a->live_text, sizeof a->live_text, "%.*s", (int)sb.len, sb.data);
        strbuf_free(&sb);
        a->live_alert = true;
        return;
    }
    a->live_alert = false;
    const char *name = livesrc_name(livelog_src(lv->l));
    const char *base = strrchr(name, '/');
    char shown[200];
    if (lv->n_alerts)
        snprintf(shown, sizeof shown, "%s \xc2\xb7 %zu long pause%s", base ? base + 1 : name,
                 lv->n_alerts, lv->n_alerts == 1 ? "" : "s");
    else
        snprintf(shown, sizeof shown, "%s", base ? base + 1 : name);
    applive_header_text(a->live_text, sizeof a->live_text, shown, applive_state(lv), lv->rate,
                        lv->lag_ns, a->live_follow, lv->ended || lv->src_final);
}

/* Defined below; the first index is looked at when attached. */
static void applive_scan_alerts(applive *lv, const evindex *ix, uint64_t now, bool final);

void
applive_attach(applive *lv, app *a)
{
    applive_scan_alerts(lv, lv->cur, applive_now_ns(), lv->ended);
    a->live = true;
    a->live_follow = true;
    app_follow_now(a);
    applive_header(lv, a, applive_now_ns());
}

/* New collections in the index: the ones pausing longer than the threshold. Unless
 * `final`, the newest is looked at again next time (its pause may still grow). */
static void
applive_scan_alerts(applive *lv, const evindex *ix, uint64_t now, bool final)
{
    size_t n = evindex_n_gcs(ix);
    for (size_t i = lv->gcs_seen; lv->alert_pause_ns && i < n; i++) {
        const evindex_gc *g = evindex_gc_at(ix, i);
        if (g->end_ns - g->start_ns < lv->alert_pause_ns)
            continue;
        xgrowarray((void **)&lv->alerts, &lv->cap_alerts, lv->n_alerts + 1, 16,
                   sizeof *lv->alerts);
        lv->alerts[lv->n_alerts++] = (applive_alert){ g->start_ns, g->end_ns - g->start_ns };
        lv->alert_shown_ns = now;
    }
    /* The newest collection may still grow its pause: look at it again next time. */
    lv->gcs_seen = n && !final ? n - 1 : n;
    if (lv->n_alerts && n && lv->alerts[lv->n_alerts - 1].start_ns ==
                                 evindex_gc_at(ix, n - 1)->start_ns)
        lv->gcs_seen = n;
}

bool
applive_poll(applive *lv, app *a)
{
    uint64_t now = applive_now_ns();
    bool changed = false;
    if (lv->running && atomic_load(&lv->done)) {
        pthread_join(lv->th, NULL);
        lv->running = false;
        uint64_t took = now - lv->build_start_ns;
        lv->next_build_ns = now + (4 * took > APPLIVE_MIN_GAP_MS * 1000000ull
                                       ? 4 * took : APPLIVE_MIN_GAP_MS * 1000000ull);
        evindex_free(lv->ready);
        lv->ready = lv->built;
        lv->built = NULL;
        lv->lag_ns = now - lv->build_arrival_ns;
        lv->indexed_bytes = lv->build_bytes;
    }
    /* Following stops once the user has looked into the past (panned, zoomed). */
    if (a->live_follow && a->v.t1_ns < a->v.log_end_ns + 1)
        a->live_follow = false;
    /* Not while the threads' totals of the current index are being counted: the swap
     * would wait for them and the loop would stall. */
    if (lv->ready && a->mode != MODE_SEARCH &&
        !(a->mode == MODE_LIST && a->list_kind == APP_LIST_THREADS) &&
        !app_totals_pending(a)) {
        app_swap_index(a, lv->ready);
        evindex_free(lv->cur);
        lv->cur = lv->ready;
        lv->ready = NULL;
        size_t ev = evindex_n_events(lv->cur);
        if (now > lv->rate_t_ns) {
            double r = (double)(ev - lv->rate_events) * 1e9 / (double)(now - lv->rate_t_ns);
            lv->rate = lv->rate == 0 ? r : 0.5 * lv->rate + 0.5 * r;
        }
        lv->rate_t_ns = now;
        lv->rate_events = ev;
        lv->ended = evindex_ending(lv->cur)->code == DIAG_OK;
        applive_scan_alerts(lv, lv->cur, now, lv->ended);
        changed = true;
    }
    /* Grow only while nothing else reads the log. */
    if (!lv->running && !lv->ready && !app_totals_pending(a) && !lv->src_final) {
        diag d;
        livesrc_status st;
        if (livelog_update(lv->l, 0, &st, &d)) {
            lv->st = st;
            lv->src_final = livelog_final(lv->l);
        } else {
            lv->src_final = true;
        }
        if (lv->ended && !lv->src_final) {
            livesrc_stop(livelog_src(lv->l));   /* a followed file ends at its marker */
            lv->src_final = true;
        }
    }
    uint64_t size = evlog_size(livelog_log(lv->l));
    if (!lv->running && !lv->ready && size > lv->indexed_bytes &&
        (now >= lv->next_build_ns || lv->src_final)) {
        lv->build_bytes = size;
        lv->build_arrival_ns = lv->st.last_arrival_ns ? lv->st.last_arrival_ns : now;
        lv->build_start_ns = now;
        if (!applive_start_build(lv)) {
            applive_build_main(lv);     /* no thread: build here */
            lv->ready = lv->built;
            lv->built = NULL;
            lv->indexed_bytes = size;
            lv->lag_ns = applive_now_ns() - lv->build_arrival_ns;
        }
    }
    /* The last bytes are in once the source is final and nothing is left to index:
     * the newest collection is whole too. */
    if (!lv->final_scanned && lv->src_final && !lv->running && !lv->ready &&
        lv->indexed_bytes >= size) {
        applive_scan_alerts(lv, lv->cur, now, true);
        lv->final_scanned = true;
    }
    char before[sizeof a->live_text];
    memcpy(before, a->live_text, sizeof before);
    bool alert_before = a->live_alert;
    applive_header(lv, a, now);
    return changed || alert_before != a->live_alert || strcmp(before, a->live_text) != 0;
}

uint64_t
applive_lag_ns(const applive *lv)
{
    return lv->lag_ns;
}

int
applive_poll_ms(const applive *lv)
{
    (void)lv;
    return APPLIVE_POLL_MS;
}

const applive_alert *
applive_alerts(const applive *lv, size_t *n)
{
    *n = lv->n_alerts;
    return lv->alerts;
}

void
applive_free(applive *lv)
{
    if (!lv)
        return;
    if (lv->running)
        pthread_join(lv->th, NULL);
    evindex_free(lv->built);
    evindex_free(lv->ready);
    evindex_free(lv->cur);
    x_free(lv->alerts);
    x_free(lv);
}
