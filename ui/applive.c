/* applive: grows the live log between frames and its index with it: each poll takes
 * the bytes the reader thread has kept, indexes them (evindex_grow, on this thread, at
 * most APPLIVE_STEP_MS of work a poll) and puts the grown index in the app's place.
 * The log and its index change only while nothing else reads them (no thread totals
 * running, no search prompt or thread list open). At the end of the data the grower is
 * finished into the index a file of the same bytes would give. */
#include "applive.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app_int.h"
#include "strbuf.h"
#include "timefmt.h"
#include "xalloc.h"

#define APPLIVE_POLL_MS 20
#define APPLIVE_STEP_MS 25      /* indexing a poll may do (a big log followed catches up) */
#define APPLIVE_STEP_BYTES ((uint64_t)4 << 20)  /* bytes a step between clock checks */
#define APPLIVE_ALERT_SHOW_NS ((uint64_t)5000000000u)  /* an alert stays 5 s */

struct applive {
    livelog *l;                 /* borrowed */
    uint64_t alert_pause_ns;
    evindex_grow *g;            /* owned; the growing index, while the data goes on */
    evindex *done;              /* owned; the finished index, once it ended */
    bool swapped;               /* the app shows the current index */
    /* Header figures. */
    uint64_t lag_ns;
    uint64_t caught_up_ns;      /* arrival of the newest byte when indexing last caught up */
    uint64_t next_grow_ns;      /* no indexing before (a dear swap was just made) */
    double rate;                /* events per second, smoothed */
    uint64_t rate_t_ns;
    size_t rate_events;
    livesrc_status st;
    bool ended;                 /* the end-of-data marker came */
    bool src_final;
    size_t gcs_seen;
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

/* Index what came, for at most APPLIVE_STEP_MS. True if anything was indexed;
 * *caught_up (may be NULL): every whole event that came is indexed. */
static bool
applive_grow(applive *lv, bool *caught_up)
{
    uint64_t start = applive_now_ns(), before = evindex_grow_bytes(lv->g);
    bool more;
    while ((more = evindex_grow_step(lv->g, APPLIVE_STEP_BYTES)) &&
           applive_now_ns() - start < APPLIVE_STEP_MS * 1000000ull)
        ;
    if (caught_up)
        *caught_up = !more;
    return evindex_grow_bytes(lv->g) != before;
}

applive *
applive_new(livelog *l, uint64_t alert_pause_ns)
{
    applive *lv = xcalloc(1, sizeof *lv);      /* caller frees: applive_free */
    lv->l = l;
    lv->alert_pause_ns = alert_pause_ns;
    lv->g = evindex_grow_new(livelog_log(l));
    applive_grow(lv, NULL);     /* the first frame at once; the rest comes poll by poll */
    lv->rate_t_ns = lv->caught_up_ns = applive_now_ns();
    lv->rate_events = evindex_n_events(evindex_grow_index(lv->g));
    livesrc_status_get(livelog_src(l), &lv->st);
    return lv;
}

const evindex *
applive_index(const applive *lv)
{
    return lv->g ? evindex_grow_index(lv->g) : lv->done;
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
static void applive_scan_alerts(applive *lv, uint64_t now);

void
applive_attach(applive *lv, app *a)
{
    applive_scan_alerts(lv, applive_now_ns());
    lv->swapped = true;
    a->live = true;
    a->live_follow = true;
    app_follow_now(a);
    applive_header(lv, a, applive_now_ns());
}

/* New collections in the index that pause longer than the threshold: those that will
 * not change any more (all, once the data ended). */
static void
applive_scan_alerts(applive *lv, uint64_t now)
{
    const evindex *ix = applive_index(lv);
    size_t n = evindex_n_gcs(ix);
    if (lv->g) {
        evindex_grow_work w;
        evindex_grow_work_get(lv->g, &w);
        n = (size_t)w.gcs_final;
    }
    for (size_t i = lv->gcs_seen; lv->alert_pause_ns && i < n; i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        if (g->end_ns - g->start_ns < lv->alert_pause_ns)
            continue;
        xgrowarray((void **)&lv->alerts, &lv->cap_alerts, lv->n_alerts + 1, 16,
                   sizeof *lv->alerts);
        lv->alerts[lv->n_alerts++] = (applive_alert){ g->start_ns, g->end_ns - g->start_ns };
        lv->alert_shown_ns = now;
    }
    if (n > lv->gcs_seen)
        lv->gcs_seen = n;
}

bool
applive_poll(applive *lv, app *a)
{
    uint64_t now = applive_now_ns();
    bool changed = false;
    /* Following stops once the user has looked into the past (panned, zoomed). */
    if (a->live_follow && a->v.t1_ns < a->v.log_end_ns + 1)
        a->live_follow = false;
    /* The log and its index change only while nobody else reads them: not while the
     * threads' totals are counted on their thread, nor under the search prompt or the
     * thread list (they hold the index until they close). */
    bool quiet = !app_totals_pending(a);
    bool may_index = quiet && a->mode != MODE_SEARCH &&
                     !(a->mode == MODE_LIST && a->list_kind == APP_LIST_THREADS);
    if (quiet && !lv->src_final) {
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
    /* A swap remakes what the app derives from the index (lanes, event pane, search
     * matches): polls that index are spaced by three times its cost when it is dear. */
    if (may_index && lv->g && now >= lv->next_grow_ns) {
        bool caught_up;
        bool grew = applive_grow(lv, &caught_up);
        lv->ended = evindex_grow_ended(lv->g) &&
                    evindex_ending(evindex_grow_index(lv->g))->code == DIAG_OK;
        if (evindex_grow_ended(lv->g) || (lv->src_final && caught_up)) {
            diag e;
            lv->done = evindex_grow_finish(lv->g, &e);  /* as a file of these bytes */
            lv->g = NULL;
            lv->ended = e.code == DIAG_OK;
            grew = true;
        }
        if (grew || !lv->swapped) {
            uint64_t swap_start = applive_now_ns();
            app_swap_index(a, applive_index(lv));
            lv->swapped = true;
            uint64_t shown = applive_now_ns();
            lv->next_grow_ns = shown + 3 * (shown - swap_start);
            /* The newest byte is on screen once every byte that came is indexed. */
            if (caught_up && lv->st.last_arrival_ns && shown > lv->st.last_arrival_ns)
                lv->lag_ns = shown - lv->st.last_arrival_ns;
            else if (!caught_up && lv->st.last_arrival_ns)
                lv->lag_ns = shown - lv->caught_up_ns;
            size_t ev = evindex_n_events(applive_index(lv));
            if (now > lv->rate_t_ns) {
                double r = (double)(ev - lv->rate_events) * 1e9 /
                           (double)(now - lv->rate_t_ns);
                lv->rate = lv->rate == 0 ? r : 0.5 * lv->rate + 0.5 * r;
            }
            lv->rate_t_ns = now;
            lv->rate_events = ev;
            applive_scan_alerts(lv, now);
            changed = true;
        }
        if (caught_up)
            lv->caught_up_ns = lv->st.last_arrival_ns ? lv->st.last_arrival_ns : now;
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
    evindex_grow_free(lv->g);
    evindex_free(lv->done);
    x_free(lv->alerts);
    x_free(lv);
}
