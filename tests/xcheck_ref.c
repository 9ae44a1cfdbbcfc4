/* xcheck_ref: the cross-check's own reading of a log — one walk over the time-ordered
 * stream (merge.h, decode.h), per-capability state machines, plain arrays and sorts.
 * It shares no code with the index (evindex, runlane, ivtrack, threadtab, heapprof,
 * series, threadstats, reports). The rules, in the RTS's terms:
 *
 * Threads. A run is RUN_THREAD .. the next STOP_THREAD on the same capability, and its
 * stop class comes from the STOP_THREAD status (names as ghc-events prints them). A
 * run cut by another RUN_THREAD or by a GC_START on its capability ends there, class
 * "other". A run with no STOP_THREAD before the data ends (rule c) ends at the earliest
 * of: the start of the first collection starting after it began (a leader's GC_START;
 * where the GC_STATS is missing, the first GC_WORK of a span, else its GC_END: workers
 * work only once the leader has started), the capability's last block's end time, the
 * log's last timestamp; never before the last event seen on its capability; class
 * "other". A thread is listed once any event names it (create, run,
 * stop, migrate, wake-up, label); created = its earliest CREATE_THREAD and that event's
 * capability; label = its latest THREAD_LABEL.
 *
 * Collections (docs/stats-semantics.md §1). A capability's span is its GC_START ..
 * GC_END (a span left open ends at the next GC_START on the capability or the log's
 * last timestamp, flagged cut-short). Inside a span, time before the first GC_WORK and
 * after GC_IDLE / GC_DONE is idle, after GC_WORK is work; a span with none of those is
 * all work. A GC_STATS claims its capability's latest span: that span is the leader
 * and its GC_START .. GC_END the pause. Every other span joins the earliest leader
 * pause it overlaps; spans overlapping none group by overlap into collections with no
 * GC_STATS (pause = the group's extent, leader = the earliest span's capability). A
 * GC_STATS whose capability has no unclaimed span is a collection with no start
 * (dropped when it falls inside another pause). The request is the latest
 * REQUEST_SEQ_GC / REQUEST_PAR_GC in [previous collection's end, this start];
 * stopping_ns = start - request (unknown without one, rule a). A capability stopped,
 * for a request at q, when the run it had at q ended (at the latest at the part's own
 * start), or at q when it had none; the slowest capability is the one stopping last,
 * after q (ties: higher cap). Heap after = the first HEAP_SIZE from the start until
 * the next collection's first span; live after the same with HEAP_LIVE, major
 * collections only (gen = generations - 1, HEAP_INFO_GHC, default 2). Allocated = the
 * sum over capabilities of their latest HEAP_ALLOCATED at the end of the pause, minus
 * that sum at the previous collection's end (0 before the first); unknown while none
 * has come by the end of the pause. census_ns (rule b) = for each heap census
 * whose begin lies in the leader's pause: its end (clipped to the pause end; no
 * SAMPLE_END, as GHC 8 writes none: the pause end) - the later of the pause start and
 * the leader's latest GC_WORK / GC_IDLE / GC_DONE at or before the begin (a
 * biographical census, taken at its own time, to the pause's end: flag bio-census). It
 * comes out of the leader's phase at the begin (idle; work when that is GC_WORK or the
 * span has no sub-phase events), at most what that phase holds.
 *
 * Heap profile. A census is HEAP_PROF_SAMPLE_BEGIN .. END at the begin's time, or a
 * biographical one (166, all written at the end of the run) at its own time field;
 * censuses are listed in time order. A band is a cost-centre stack (named by the
 * latest definition of each id, innermost first, '/'-joined, a CAF cost centre as
 * "Module.CAF" as GHC's .hp files do, "MAIN" when empty, "#id" when undefined) or a
 * description string; a band named twice in a census adds up. Per band: peak and the
 * first census reaching it, sum / all censuses, bytes in the last census, censuses it
 * appears in; listed by peak, ties in first-seen order. */
#include "xcheck_ref.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"
#include "evtype.h"
#include "merge.h"
#include "xalloc.h"

#define XR_PUSH(arr, n, cap) \
    (xgrowarray((void **)&(arr), &(cap), (n) + 1, 16, sizeof *(arr)), &(arr)[(n)++])
#define XR_NONE UINT64_MAX
#define XR_NO_CAP 0xffffu

/* ---- stop classes (the `threads` columns) ----------------------------------------------- */

enum xr_class { C_HEAP, C_STACK, C_YIELD, C_BLACKHOLE, C_MVAR, C_STM, C_IO, C_FOREIGN,
                C_THROWTO, C_BLOCKED, C_FINISHED, C_OTHER, XR_N_CLASSES };

static const char *const xr_class_names[XR_N_CLASSES] = {
    "heap", "stack", "yield", "blackhole", "mvar", "stm", "io", "foreign", "throwto",
    "blocked", "finished", "other",
};

/* STOP_THREAD status -> class, by what ghc-events calls each status. */
static const uint8_t xr_status_class[] = {
    [0] = C_OTHER,      /* no status */
    [1] = C_HEAP,       /* heap overflow */
    [2] = C_STACK,      /* stack overflow */
    [3] = C_YIELD,      /* thread yielding */
    [4] = C_BLOCKED,    /* thread blocked */
    [5] = C_FINISHED,   /* thread finished */
    [6] = C_FOREIGN,    /* making a foreign call */
    [7] = C_MVAR,       /* blocked on an MVar */
    [8] = C_BLACKHOLE,  /* blocked on black hole */
    [9] = C_IO,         /* blocked on I/O read */
    [10] = C_IO,        /* blocked on I/O write */
    [11] = C_IO,        /* blocked on threadDelay */
    [12] = C_STM,       /* blocked in STM retry */
    [13] = C_IO,        /* blocked on asyncDoProc */
    [14] = C_OTHER,     /* (not used) */
    [15] = C_OTHER,     /* (not used) */
    [16] = C_FOREIGN,   /* blocked on a foreign call */
    [17] = C_FOREIGN,   /* blocked on an interruptible foreign call */
    [18] = C_THROWTO,   /* blocked in throwTo */
    [19] = C_OTHER,     /* no status */
    [20] = C_MVAR,      /* blocked reading an MVar */
};

static uint8_t
xr_class_of(uint64_t status)
{
    return status < sizeof xr_status_class ? xr_status_class[status] : C_OTHER;
}

/* ---- what the walk collects ---------------------------------------------------------------- */

typedef struct xr_run {
    uint64_t start, end;
    uint32_t tid;
    uint8_t cls;
} xr_run;

typedef struct xr_span {
    uint16_t cap;
    uint64_t start, end, work, idle;
    bool open;                  /* no GC_END */
    bool working, any_sub;      /* while it is the capability's current span */
    uint64_t phase_start;
    uint64_t first_work;        /* its first GC_WORK, XR_NONE: none */
    size_t stats;               /* 1 + the GC_STATS claiming it, 0 */
    size_t gc;                  /* its collection (after grouping) */
} xr_span;

typedef struct xr_sub {
    uint64_t time;
    bool working;               /* GC_WORK (else GC_IDLE / GC_DONE) */
} xr_sub;

typedef struct xr_cap {
    uint16_t cap;
    bool run_open;
    uint32_t run_tid;
    uint64_t run_start;
    xr_run *runs;
    size_t n_runs, cap_runs;
    bool in_gc;
    size_t span;                /* its latest span, SIZE_MAX: none */
    xr_sub *subs;               /* its GC_WORK / GC_IDLE / GC_DONE */
    size_t n_subs, cap_subs;
    uint64_t last_ev;           /* its latest event, XR_NONE: none */
    uint64_t block_end;         /* end time of its latest block, XR_NONE: none */
    uint64_t alloc;             /* its latest HEAP_ALLOCATED */
} xr_cap;

typedef struct xr_stats {
    uint64_t time, copied;
    uint32_t par;
    uint16_t cap, gen;
} xr_stats;

typedef struct xr_req {
    uint64_t time;
    uint16_t cap;
    bool par;
} xr_req;

typedef struct xr_sample {
    uint64_t time, value;
} xr_sample;

enum xr_fact_kind { F_MENTION, F_CREATE, F_MIGRATE, F_WAKEUP, F_LABEL };

typedef struct xr_fact {
    uint32_t tid;
    uint8_t kind;
    uint16_t cap;
    uint64_t time;
    const uint8_t *text;        /* F_LABEL: borrowed from the mapping */
    uint32_t len;
} xr_fact;

typedef struct xr_census {
    uint64_t begin;             /* its time: the BEGIN event's, or a biographical
                                 * census's own time field (written at the end) */
    uint64_t end;               /* SAMPLE_END's time, XR_NONE: none */
    bool bio;
    size_t orig;                /* its place in the stream */
} xr_census;

typedef struct xr_entry {
    uint8_t kind;               /* 0 stack, 1 string */
    const uint8_t *key;         /* stack: depth x big-endian u32; string: text */
    uint32_t key_len;
    uint64_t bytes;
    size_t census, band;
} xr_entry;

typedef struct xr_cc {
    uint32_t id;
    size_t seq;
    const uint8_t *label, *module;
    uint32_t len, module_len;
    bool is_caf;
} xr_cc;

enum xr_gc_kind { G_LED, G_NO_STATS, G_NO_START };

typedef struct xr_gc {
    uint8_t kind;
    bool open, dropped;
    uint16_t leader;
    uint64_t start, end;
    uint64_t first_start;       /* earliest part start */
    size_t lead_span;           /* SIZE_MAX for G_NO_START */
    size_t stats;               /* 1 + index, 0 */
    size_t seq;
} xr_gc;

typedef struct xr {
    xr_cap *caps;
    size_t n_caps, cap_caps;
    xr_span *spans;
    size_t n_spans, cap_spans;
    xr_stats *stats;
    size_t n_stats, cap_stats;
    size_t *stats_span;         /* 1 + the span a GC_STATS claimed, 0 */
    size_t n_stats_span, cap_stats_span;
    xr_req *reqs;
    size_t n_reqs, cap_reqs;
    xr_sample *heap, *live, *alloc;
    size_t n_heap, cap_heap, n_live, cap_live, n_alloc, cap_alloc;
    xr_fact *facts;
    size_t n_facts, cap_facts;
    xr_census *cens;            /* in stream order */
    size_t n_cens, cap_cens;
    xr_census *by_time;         /* the same in time order (ties: stream order) */
    bool census_open;
    xr_entry *ents;
    size_t n_ents, cap_ents;
    xr_cc *ccs;
    size_t n_ccs, cap_ccs;
    xr_gc *gcs;
    size_t n_gcs, cap_gcs;
    unsigned n_gens;
    uint64_t last_ns;
} xr;

/* ---- small helpers --------------------------------------------------------------------------- */

static uint64_t
xr_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t
xr_max(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint32_t
xr_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Number of leading elements of a time-sorted array whose time (a uint64_t at byte
 * offset `at` of each `size`-byte element) is <= t. */
static size_t
xr_count_by(const void *arr, size_t n, size_t size, size_t at, uint64_t t)
{
    const uint8_t *base = arr;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v;
        memcpy(&v, base + mid * size + at, sizeof v);
        if (v <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static xr_cap *
xr_cap_of(xr *r, uint16_t cap)
{
    for (size_t i = 0; i < r->n_caps; i++)
        if (r->caps[i].cap == cap)
            return &r->caps[i];
    xr_cap *c = XR_PUSH(r->caps, r->n_caps, r->cap_caps);
    memset(c, 0, sizeof *c);
    c->cap = cap;
    c->span = SIZE_MAX;
    c->last_ev = c->block_end = XR_NONE;
    return c;
}

/* TSV cell text as reports.h documents it: UTF-8 (an invalid byte as U+FFFD), with
 * backslash, tab, CR, LF and other controls escaped. */
static void
xr_tsv_text(strbuf *out, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        size_t len = b < 0x80 ? 1 : (b & 0xe0) == 0xc0 ? 2 : (b & 0xf0) == 0xe0 ? 3
                   : (b & 0xf8) == 0xf0 ? 4 : 0;
        bool ok = len > 0 && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (p[i + k] & 0xc0) == 0x80;
        if (!ok) {
            strbuf_puts(out, "\xef\xbf\xbd");
            i++;
            continue;
        }
        if (len > 1) {
            strbuf_append(out, p + i, len);
        } else if (b == '\\') {
            strbuf_puts(out, "\\\\");
        } else if (b == '\t') {
            strbuf_puts(out, "\\t");
        } else if (b == '\n') {
            strbuf_puts(out, "\\n");
        } else if (b == '\r') {
            strbuf_puts(out, "\\r");
        } else if (b < 0x20 || b == 0x7f) {
            strbuf_printf(out, "\\x%02x", b);
        } else {
            strbuf_putc(out, (char)b);
        }
        i += len;
    }
}

/* A number, or "-" when unknown. */
static void
xr_cell(strbuf *out, uint64_t v, bool known)
{
    strbuf_putc(out, '\t');
    if (known)
        strbuf_u64(out, v);
    else
        strbuf_putc(out, '-');
}

/* ---- the walk ------------------------------------------------------------------------------- */

static void
xr_close_run(xr_cap *c, uint64_t end, uint8_t cls)
{
    xr_run *run = XR_PUSH(c->runs, c->n_runs, c->cap_runs);
    *run = (xr_run){ c->run_start, xr_max(end, c->run_start), c->run_tid, cls };
    c->run_open = false;
}

/* Count the current phase of span s up to t and go on with `working`. */
static void
xr_phase(xr_span *s, uint64_t t, bool working)
{
    if (t > s->phase_start) {
        if (s->working)
            s->work += t - s->phase_start;
        else
            s->idle += t - s->phase_start;
        s->phase_start = t;
    }
    s->working = working;
}

static void
xr_end_span(xr *r, xr_cap *c, uint64_t t, bool open)
{
    xr_span *s = &r->spans[c->span];
    if (!s->any_sub)
        s->working = true;      /* no GC_WORK/IDLE/DONE (non-threaded RTS): all work */
    xr_phase(s, t, false);
    s->end = xr_max(t, s->start);
    s->open = open;
    c->in_gc = false;
}

static void
xr_fact_add(xr *r, uint32_t tid, uint8_t kind, const evlog_event *ev, const evval *text)
{
    xr_fact *f = XR_PUSH(r->facts, r->n_facts, r->cap_facts);
    *f = (xr_fact){ tid, kind, ev->cap, ev->time_ns, text ? text->p : NULL,
                    text ? text->len : 0 };
}

static void
xr_sample_add(xr_sample **arr, size_t *n, size_t *cap, uint64_t t, uint64_t v)
{
    xr_sample *s = XR_PUSH(*arr, *n, *cap);
    s->time = t;
    s->value = v;
}

static void
xr_census_close(xr *r, uint64_t end)
{
    if (r->census_open)
        r->cens[r->n_cens - 1].end = end;
    r->census_open = false;
}

static void
xr_event(xr *r, const evlog_event *ev)
{
    evdecoded d;
    decode_event(ev, &d);
    uint64_t t = ev->time_ns;
    const evval *f = d.f;
    r->last_ns = xr_max(r->last_ns, t);
    xr_cap *c = xr_cap_of(r, ev->cap);
    if (ev->type == EV_BLOCK_MARKER) {
        if (d.n_present >= 2)
            c->block_end = f[1].u;      /* the stream is in time order: the latest block */
        return;
    }
    c->last_ev = t;
    switch (ev->type) {
    case EV_CREATE_THREAD:
        xr_fact_add(r, (uint32_t)f[0].u, F_CREATE, ev, NULL);
        break;
    case EV_RUN_THREAD:
        if (c->run_open)
            xr_close_run(c, t, C_OTHER);
        c->run_open = true;
        c->run_tid = (uint32_t)f[0].u;
        c->run_start = t;
        xr_fact_add(r, c->run_tid, F_MENTION, ev, NULL);
        break;
    case EV_STOP_THREAD:
        xr_fact_add(r, (uint32_t)f[0].u, F_MENTION, ev, NULL);
        if (c->run_open)
            xr_close_run(c, t, xr_class_of(d.n_present >= 2 ? f[1].u : 0));
        break;
    case EV_MIGRATE_THREAD:
        xr_fact_add(r, (uint32_t)f[0].u, F_MIGRATE, ev, NULL);
        break;
    case EV_THREAD_WAKEUP:
        xr_fact_add(r, (uint32_t)f[0].u, F_WAKEUP, ev, NULL);
        break;
    case EV_THREAD_LABEL:
        if (d.n_present >= 2)
            xr_fact_add(r, (uint32_t)f[0].u, F_LABEL, ev, &f[1]);
        break;
    case EV_GC_START: {
        if (c->run_open)
            xr_close_run(c, t, C_OTHER);
        if (c->in_gc)
            xr_end_span(r, c, t, true);
        c->span = r->n_spans;
        xr_span *s = XR_PUSH(r->spans, r->n_spans, r->cap_spans);
        *s = (xr_span){ .cap = c->cap, .start = t, .end = t, .phase_start = t,
                        .first_work = XR_NONE, .gc = SIZE_MAX };
        c->in_gc = true;
        break;
    }
    case EV_GC_END:
        if (c->in_gc)
            xr_end_span(r, c, t, false);
        break;
    case EV_GC_WORK:
    case EV_GC_IDLE:
    case EV_GC_DONE:
        *XR_PUSH(c->subs, c->n_subs, c->cap_subs) = (xr_sub){ t, ev->type == EV_GC_WORK };
        if (c->in_gc) {
            xr_span *s = &r->spans[c->span];
            if (ev->type == EV_GC_WORK && s->first_work == XR_NONE)
                s->first_work = t;
            s->any_sub = true;
            xr_phase(&r->spans[c->span], t, ev->type == EV_GC_WORK);
        }
        break;
    case EV_GC_STATS_GHC: {
        xr_stats *st = XR_PUSH(r->stats, r->n_stats, r->cap_stats);
        *st = (xr_stats){ t, f[2].u, (uint32_t)f[5].u, c->cap, (uint16_t)f[1].u };
        size_t *claim = XR_PUSH(r->stats_span, r->n_stats_span, r->cap_stats_span);
        *claim = 0;
        if (c->span != SIZE_MAX && !r->spans[c->span].stats) {
            r->spans[c->span].stats = r->n_stats;
            *claim = c->span + 1;
        }
        break;
    }
    case EV_REQUEST_SEQ_GC:
    case EV_REQUEST_PAR_GC: {
        xr_req *q = XR_PUSH(r->reqs, r->n_reqs, r->cap_reqs);
        *q = (xr_req){ t, c->cap, ev->type == EV_REQUEST_PAR_GC };
        break;
    }
    case EV_HEAP_SIZE:
        xr_sample_add(&r->heap, &r->n_heap, &r->cap_heap, t, f[1].u);
        break;
    case EV_HEAP_LIVE:
        xr_sample_add(&r->live, &r->n_live, &r->cap_live, t, f[1].u);
        break;
    case EV_HEAP_ALLOCATED: {
        c->alloc = f[1].u;
        uint64_t sum = 0;
        for (size_t i = 0; i < r->n_caps; i++)
            sum += r->caps[i].alloc;
        xr_sample_add(&r->alloc, &r->n_alloc, &r->cap_alloc, t, sum);
        break;
    }
    case EV_HEAP_INFO_GHC:
        if (f[1].u >= 1 && f[1].u <= 64)
            r->n_gens = (unsigned)f[1].u;
        break;
    case EV_HEAP_PROF_SAMPLE_BEGIN:
    case EV_HEAP_BIO_PROF_SAMPLE_BEGIN: {
        xr_census_close(r, XR_NONE);
        bool bio = ev->type == EV_HEAP_BIO_PROF_SAMPLE_BEGIN && d.n_present >= 2;
        xr_census *cs = XR_PUSH(r->cens, r->n_cens, r->cap_cens);
        *cs = (xr_census){ bio ? f[1].u : t, XR_NONE, bio, r->n_cens - 1 };
        r->census_open = true;
        break;
    }
    case EV_HEAP_PROF_SAMPLE_END:
        xr_census_close(r, t);
        break;
    case EV_HEAP_PROF_SAMPLE_COST_CENTRE:
    case EV_HEAP_PROF_SAMPLE_STRING:
        if (r->census_open && d.n_present >= 3) {
            bool stack = ev->type == EV_HEAP_PROF_SAMPLE_COST_CENTRE;
            xr_entry *e = XR_PUSH(r->ents, r->n_ents, r->cap_ents);
            *e = (xr_entry){ stack ? 0 : 1, f[2].p,
                             stack ? (uint32_t)f[2].u * 4 : f[2].len, f[1].u,
                             r->n_cens - 1, 0 };
        }
        break;
    case EV_HEAP_PROF_COST_CENTRE:
        if (d.n_present >= 3) {
            xr_cc *cc = XR_PUSH(r->ccs, r->n_ccs, r->cap_ccs);
            *cc = (xr_cc){ (uint32_t)f[0].u, r->n_ccs, f[1].p, f[2].p, f[1].len, f[2].len,
                           d.n_present >= 5 && (f[4].u & 1) };
        }
        break;
    default:
        break;
    }
}

/* ---- collections ------------------------------------------------------------------------------ */

static int
xr_gc_cmp(const void *a, const void *b)
{
    const xr_gc *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if ((x->kind == G_NO_START) != (y->kind == G_NO_START))
        return x->kind == G_NO_START ? 1 : -1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static xr_gc *
xr_gc_new(xr *r, uint8_t kind, uint16_t leader, uint64_t start, uint64_t end)
{
    xr_gc *g = XR_PUSH(r->gcs, r->n_gcs, r->cap_gcs);
    *g = (xr_gc){ .kind = kind, .leader = leader, .start = start, .end = end,
                  .first_start = start, .lead_span = SIZE_MAX, .seq = r->n_gcs };
    return g;
}

/* Group the spans into collections (r->gcs in start order; spans[i].gc set). */
static void
xr_group(xr *r)
{
    /* Leaders: spans a GC_STATS claimed, already in start order. */
    for (size_t i = 0; i < r->n_spans; i++) {
        xr_span *s = &r->spans[i];
        if (!s->stats)
            continue;
        xr_gc *g = xr_gc_new(r, G_LED, s->cap, s->start, s->end);
        g->open = s->open;
        g->lead_span = i;
        g->stats = s->stats;
        s->gc = r->n_gcs - 1;
    }
    size_t n_led = r->n_gcs;
    /* Workers join the earliest leader pause they overlap; the rest group by overlap. */
    xr_gc *cluster = NULL;
    for (size_t i = 0; i < r->n_spans; i++) {
        xr_span *s = &r->spans[i];
        if (s->stats)
            continue;
        size_t lo = 0, hi = n_led;          /* first leader ending at or after s starts */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (r->gcs[mid].end < s->start)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n_led && r->gcs[lo].start <= s->end) {
            s->gc = lo;
            r->gcs[lo].first_start = xr_min(r->gcs[lo].first_start, s->start);
            continue;
        }
        if (!cluster || s->start >= cluster->end) {
            cluster = xr_gc_new(r, G_NO_STATS, s->cap, s->start, s->end);
            cluster->lead_span = i;
        }
        cluster->end = xr_max(cluster->end, s->end);
        cluster->open |= s->open;
        s->gc = r->n_gcs - 1;
    }
    for (size_t i = 0; i < r->n_stats; i++)
        if (!r->stats_span[i]) {
            xr_gc *g = xr_gc_new(r, G_NO_START, r->stats[i].cap, r->stats[i].time,
                                 r->stats[i].time);
            g->stats = i + 1;
        }
    /* Start order; spans follow their collection through the sort by seq. */
    if (r->n_gcs)
        qsort(r->gcs, r->n_gcs, sizeof *r->gcs, xr_gc_cmp);
    size_t *where = xmalloc((r->n_gcs + 1) * sizeof *where);     /* freed below */
    for (size_t i = 0; i < r->n_gcs; i++)
        where[r->gcs[i].seq - 1] = i;
    for (size_t i = 0; i < r->n_spans; i++)
        if (r->spans[i].gc != SIZE_MAX)
            r->spans[i].gc = where[r->spans[i].gc];
    x_free(where);
    /* A collection with no start inside another pause is dropped (pauses stay apart). */
    const xr_gc *prev = NULL;
    for (size_t i = 0; i < r->n_gcs; i++) {
        xr_gc *g = &r->gcs[i];
        if (g->kind == G_NO_START && prev && prev->end > g->start) {
            g->dropped = true;
            continue;
        }
        prev = g;
    }
}

/* Rule c: close the runs the data left open. Every capability had stopped by a
 * collection's start: a leader's GC_START; for a span with no GC_STATS (its leader's
 * may be lost) its first GC_WORK, as workers work only once the leader has started,
 * else its GC_END. */
static void
xr_close_open_runs(xr *r)
{
    for (size_t ci = 0; ci < r->n_caps; ci++) {
        xr_cap *c = &r->caps[ci];
        if (!c->run_open)
            continue;
        uint64_t end = r->last_ns;
        for (size_t i = 0; i < r->n_spans; i++) {
            const xr_span *s = &r->spans[i];
            if (s->start > c->run_start)
                end = xr_min(end, s->stats ? s->start
                                  : s->first_work != XR_NONE ? s->first_work : s->end);
        }
        if (c->block_end != XR_NONE)
            end = xr_min(end, c->block_end);
        if (c->last_ev != XR_NONE)
            end = xr_max(end, c->last_ev);
        xr_close_run(c, end, C_OTHER);
    }
}

/* When capability c stopped for a request at q, its part starting at `by`. */
static uint64_t
xr_stop(const xr_cap *c, uint64_t q, uint64_t by)
{
    size_t k = xr_count_by(c->runs, c->n_runs, sizeof *c->runs, offsetof(xr_run, start), by);
    const xr_run *last = k ? &c->runs[k - 1] : NULL;
    if (!last || last->end <= q)
        return q;
    return xr_min(last->end, by);
}

static const xr_cap *
xr_cap_find(const xr *r, uint16_t cap)
{
    for (size_t i = 0; i < r->n_caps; i++)
        if (r->caps[i].cap == cap)
            return &r->caps[i];
    return NULL;
}

/* Index of the first sample with time >= t. */
static size_t
xr_first_from(const xr_sample *s, size_t n, uint64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].time < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The value of the first sample in [from, before), or XR_NONE. */
static uint64_t
xr_first_in(const xr_sample *s, size_t n, uint64_t from, uint64_t before)
{
    size_t i = xr_first_from(s, n, from);
    return i < n && s[i].time < before ? s[i].value : XR_NONE;
}

/* Census time inside collection g's pause (rule b), taken out of the leader's phase at
 * each census's begin (idle; work when the span has no GC_WORK/IDLE/DONE, all work, or
 * the latest one is GC_WORK), at most what that phase holds: *from_work + *from_idle. */
static void
xr_census_ns(const xr *r, const xr_gc *g, uint64_t *from_work, uint64_t *from_idle,
             bool *bio)
{
    *from_work = *from_idle = 0;
    if (g->lead_span == SIZE_MAX)
        return;
    const xr_span *lead = &r->spans[g->lead_span];
    const xr_cap *lc = xr_cap_find(r, g->leader);
    size_t i0 = g->start ? xr_count_by(r->by_time, r->n_cens, sizeof *r->by_time,
                                       offsetof(xr_census, begin), g->start - 1) : 0;
    for (size_t i = i0; i < r->n_cens && r->by_time[i].begin <= g->end; i++) {
        const xr_census *cs = &r->by_time[i];
        uint64_t from = g->start;
        bool working = !lead->any_sub;
        size_t k = xr_count_by(lc->subs, lc->n_subs, sizeof *lc->subs,
                               offsetof(xr_sub, time), cs->begin);
        if (k && lc->subs[k - 1].time >= g->start) {
            from = lc->subs[k - 1].time;
            working = lc->subs[k - 1].working;
        }
        /* A biographical census ran in the collection it was taken in, to its end. */
        uint64_t to = cs->bio ? g->end : xr_min(cs->end, g->end);
        if (to <= from)
            continue;
        if (cs->bio)
            *bio = true;
        uint64_t *taken = working ? from_work : from_idle;
        uint64_t have = (working ? lead->work : lead->idle) - *taken;
        *taken += xr_min(to - from, have);
    }
}

typedef struct xr_part_ref {
    size_t gc, span;
    uint64_t start;
    uint16_t cap;
} xr_part_ref;

static int
xr_part_cmp(const void *a, const void *b)
{
    const xr_part_ref *x = a, *y = b;
    if (x->gc != y->gc)
        return x->gc < y->gc ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->cap < y->cap ? -1 : x->cap > y->cap;
}

static int
xr_cap_cmp(const void *a, const void *b)
{
    const xr_cap *x = a, *y = b;
    return x->cap < y->cap ? -1 : x->cap > y->cap;
}

static void
xr_gc_tables(xr *r, xref_tables *out)
{
    strbuf_puts(&out->gc, "start_ns\tpause_ns\tstopping_ns\tcensus_ns\trequest_ns\tgen\t"
                          "par_threads\tcopied_bytes\tlive_after_bytes\theap_after_bytes\t"
                          "allocated_bytes\tleader_cap\trequest_cap\tslowest_cap\tflags\t"
                          "work_ns\tidle_ns\n");
    strbuf_puts(&out->parts, "gc_start_ns\tcap\tstart_ns\tend_ns\tstop_ns\twork_ns\t"
                             "idle_ns\n");
    /* Parts by collection, then start, then cap. */
    xr_part_ref *parts = xmalloc((r->n_spans + 1) * sizeof *parts);    /* freed below */
    size_t n_parts = 0;
    for (size_t i = 0; i < r->n_spans; i++)
        parts[n_parts++] = (xr_part_ref){ r->spans[i].gc, i, r->spans[i].start,
                                          r->spans[i].cap };
    qsort(parts, n_parts, sizeof *parts, xr_part_cmp);

    uint64_t prev_end = 0, alloc_prev = 0;
    size_t p = 0;
    for (size_t gi = 0; gi < r->n_gcs; gi++) {
        const xr_gc *g = &r->gcs[gi];
        size_t p0 = p;
        while (p < n_parts && parts[p].gc == gi)
            p++;
        if (g->dropped)
            continue;
        bool has_start = g->kind != G_NO_START;
        const xr_stats *st = g->stats ? &r->stats[g->stats - 1] : NULL;
        bool major = st && st->gen == (r->n_gens ? r->n_gens : 2) - 1;

        /* The request, in [previous end, start]. */
        const xr_req *req = NULL;
        if (has_start) {
            size_t k = xr_count_by(r->reqs, r->n_reqs, sizeof *r->reqs,
                                   offsetof(xr_req, time), g->start);
            if (k && r->reqs[k - 1].time >= prev_end)
                req = &r->reqs[k - 1];
            prev_end = g->end;
        }
        uint64_t q = req ? req->time : g->start;

        /* Slowest capability: the last to stop after q (ties: higher cap). */
        uint16_t slowest = XR_NO_CAP;
        uint64_t slowest_at = q;
        for (size_t ci = 0; req && ci < r->n_caps; ci++) {
            uint64_t s = xr_stop(&r->caps[ci], q, g->start);
            if (s > q && s >= slowest_at) {
                slowest_at = s;
                slowest = r->caps[ci].cap;
            }
        }

        /* Heap after: up to the next collection's first span. */
        uint64_t before = UINT64_MAX;
        for (size_t k = gi + 1; k < r->n_gcs; k++)
            if (r->gcs[k].kind != G_NO_START && !r->gcs[k].dropped) {
                before = r->gcs[k].first_start;
                break;
            }
        uint64_t heap_after = has_start ? xr_first_in(r->heap, r->n_heap, g->start, before)
                                        : XR_NONE;
        uint64_t live_after = has_start && major
                                  ? xr_first_in(r->live, r->n_live, g->start, before)
                                  : XR_NONE;

        /* Allocated: summed latest HEAP_ALLOCATED at the end, since the previous one. */
        uint64_t alloc_now = 0;
        size_t ai = xr_first_from(r->alloc, r->n_alloc, g->end + 1);
        if (ai > 0)
            alloc_now = r->alloc[ai - 1].value;
        uint64_t allocated = alloc_now - alloc_prev;
        alloc_prev = alloc_now;

        uint64_t census_work, census_idle;
        bool bio = false;
        xr_census_ns(r, g, &census_work, &census_idle, &bio);
        uint64_t census = census_work + census_idle;

        strbuf *o = &out->gc;
        strbuf_u64(o, g->start);
        xr_cell(o, g->end - g->start, has_start);
        xr_cell(o, g->start - q, req != NULL);
        xr_cell(o, census, true);
        xr_cell(o, q, req != NULL);
        xr_cell(o, st ? st->gen : 0, st != NULL && g->kind != G_NO_STATS);
        xr_cell(o, st ? st->par : 0, st != NULL && g->kind != G_NO_STATS);
        xr_cell(o, st ? st->copied : 0, st != NULL && g->kind != G_NO_STATS);
        xr_cell(o, live_after, live_after != XR_NONE);
        xr_cell(o, heap_after, heap_after != XR_NONE);
        xr_cell(o, allocated, ai > 0);
        xr_cell(o, g->leader, g->leader != XR_NO_CAP);
        xr_cell(o, req ? req->cap : 0, req != NULL && req->cap != XR_NO_CAP);
        xr_cell(o, slowest, slowest != XR_NO_CAP);
        strbuf_putc(o, '\t');
        size_t flags_at = o->len;
        const char *flag_names[] = { req && req->par ? "par-request" : NULL,
                                     major ? "major" : NULL, g->open ? "cut-short" : NULL,
                                     g->kind == G_NO_STATS ? "no-stats" : NULL,
                                     g->kind == G_NO_START ? "no-start" : NULL,
                                     bio ? "bio-census" : NULL };
        for (size_t k = 0; k < sizeof flag_names / sizeof flag_names[0]; k++)
            if (flag_names[k]) {
                if (o->len > flags_at)
                    strbuf_putc(o, ',');
                strbuf_puts(o, flag_names[k]);
            }
        if (o->len == flags_at)
            strbuf_putc(o, '-');
        for (int idle = 0; idle < 2; idle++) {
            strbuf_putc(o, '\t');
            if (p0 == p)
                strbuf_putc(o, '-');
            for (size_t k = p0; k < p; k++) {
                const xr_span *s = &r->spans[parts[k].span];
                uint64_t v = idle ? s->idle : s->work;
                if (parts[k].span == g->lead_span)
                    v -= idle ? census_idle : census_work;
                if (k > p0)
                    strbuf_putc(o, ',');
                if (s->cap == XR_NO_CAP)
                    strbuf_putc(o, '-');
                else
                    strbuf_u64(o, s->cap);
                strbuf_printf(o, ":%llu", (unsigned long long)v);
            }
        }
        strbuf_putc(o, '\n');

        for (size_t k = p0; k < p; k++) {
            const xr_span *s = &r->spans[parts[k].span];
            uint64_t idle = s->idle, work = s->work;
            if (parts[k].span == g->lead_span) {
                idle -= census_idle;
                work -= census_work;
            }
            uint64_t stop = req ? xr_stop(xr_cap_find(r, s->cap), q, s->start) : s->start;
            strbuf_printf(&out->parts, "%llu\t", (unsigned long long)g->start);
            if (s->cap == XR_NO_CAP)
                strbuf_putc(&out->parts, '-');
            else
                strbuf_u64(&out->parts, s->cap);
            strbuf_printf(&out->parts, "\t%llu\t%llu\t%llu\t%llu\t%llu\n",
                          (unsigned long long)s->start, (unsigned long long)s->end,
                          (unsigned long long)stop, (unsigned long long)work,
                          (unsigned long long)idle);
        }
    }
    x_free(parts);
}

/* ---- threads ------------------------------------------------------------------------------- */

static int
xr_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static size_t
xr_tid_index(const uint32_t *tids, size_t n, uint32_t tid)
{
    const uint32_t *hit = bsearch(&tid, tids, n, sizeof *tids, xr_u32_cmp);
    return hit ? (size_t)(hit - tids) : SIZE_MAX;
}

typedef struct xr_thread {
    uint64_t created, first_run, run_ns;
    uint16_t create_cap;
    uint32_t runs, migrations, wakeups;
    uint32_t stops[XR_N_CLASSES];
    const xr_fact *label;
} xr_thread;

static void
xr_threads_table(const xr *r, strbuf *o)
{
    uint32_t *tids = xmalloc((r->n_facts + 1) * sizeof *tids);     /* freed below */
    size_t n = 0;
    for (size_t i = 0; i < r->n_facts; i++)
        tids[n++] = r->facts[i].tid;
    qsort(tids, n, sizeof *tids, xr_u32_cmp);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || tids[u - 1] != tids[i])
            tids[u++] = tids[i];
    xr_thread *th = xcalloc(u + 1, sizeof *th);                     /* freed below */
    for (size_t i = 0; i < u; i++) {
        th[i].created = th[i].first_run = XR_NONE;
        th[i].create_cap = XR_NO_CAP;
    }
    for (size_t i = 0; i < r->n_facts; i++) {
        const xr_fact *f = &r->facts[i];
        xr_thread *t = &th[xr_tid_index(tids, u, f->tid)];
        switch (f->kind) {
        case F_CREATE:
            if (t->created == XR_NONE) {
                t->created = f->time;
                t->create_cap = f->cap;
            }
            break;
        case F_MIGRATE: t->migrations++; break;
        case F_WAKEUP: t->wakeups++; break;
        case F_LABEL: t->label = f; break;
        default: break;
        }
    }
    for (size_t ci = 0; ci < r->n_caps; ci++)
        for (size_t k = 0; k < r->caps[ci].n_runs; k++) {
            const xr_run *run = &r->caps[ci].runs[k];
            xr_thread *t = &th[xr_tid_index(tids, u, run->tid)];
            t->first_run = xr_min(t->first_run, run->start);
            t->run_ns += run->end - run->start;
            t->runs++;
            t->stops[run->cls]++;
        }
    strbuf_puts(o, "tid\tlabel\tcreated_ns\tcreate_cap\tfirst_run_ns\trun_ns\truns\t"
                   "migrations\twakeups");
    for (int c = 0; c < XR_N_CLASSES; c++)
        strbuf_printf(o, "\tstop_%s", xr_class_names[c]);
    strbuf_putc(o, '\n');
    for (size_t i = 0; i < u; i++) {
        const xr_thread *t = &th[i];
        strbuf_printf(o, "%u\t", tids[i]);
        if (t->label)
            xr_tsv_text(o, t->label->text, t->label->len);
        else
            strbuf_putc(o, '-');
        xr_cell(o, t->created, t->created != XR_NONE);
        xr_cell(o, t->create_cap, t->create_cap != XR_NO_CAP);
        xr_cell(o, t->first_run, t->first_run != XR_NONE);
        xr_cell(o, t->run_ns, true);
        xr_cell(o, t->runs, true);
        xr_cell(o, t->migrations, true);
        xr_cell(o, t->wakeups, true);
        for (int c = 0; c < XR_N_CLASSES; c++)
            xr_cell(o, t->stops[c], true);
        strbuf_putc(o, '\n');
    }
    x_free(th);
    x_free(tids);
}

/* ---- heap profile --------------------------------------------------------------------------- */

static int
xr_entry_key_cmp(const xr_entry *x, const xr_entry *y)
{
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->key_len ? memcmp(x->key, y->key, x->key_len) : 0;
}

/* An entry with its position, sorted by key then position. */
typedef struct xr_keyed {
    const xr_entry *e;
    size_t i;
} xr_keyed;

static int
xr_keyed_cmp(const void *a, const void *b)
{
    const xr_keyed *x = a, *y = b;
    int c = xr_entry_key_cmp(x->e, y->e);
    return c ? c : (x->i < y->i ? -1 : x->i > y->i);
}

static int
xr_cc_cmp(const void *a, const void *b)
{
    const xr_cc *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

typedef struct xr_band {
    size_t first;               /* its first entry: kind, key and first-seen order */
    uint64_t peak, peak_ns, sum, last;
    uint32_t n;
} xr_band;

static int
xr_band_order_cmp(const void *a, const void *b)
{
    const xr_band *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak > y->peak ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
}

static void
xr_band_name(const xr *r, const xr_entry *e, strbuf *o)
{
    if (e->kind == 1) {
        xr_tsv_text(o, e->key, e->key_len);
        return;
    }
    if (e->key_len == 0) {
        strbuf_puts(o, "MAIN");
        return;
    }
    for (uint32_t k = 0; k < e->key_len / 4; k++) {
        uint32_t id = xr_be32(e->key + 4 * k);
        const xr_cc *found = NULL;
        for (size_t i = 0; i < r->n_ccs && r->ccs[i].id <= id; i++)
            if (r->ccs[i].id == id)
                found = &r->ccs[i];             /* sorted by (id, seq): the latest */
        if (k)
            strbuf_putc(o, '/');
        if (found && found->is_caf) {     /* a module's CAFs: "Module.CAF", as GHC's .hp */
            xr_tsv_text(o, found->module, found->module_len);
            strbuf_putc(o, '.');
        }
        if (found)
            xr_tsv_text(o, found->label, found->len);
        else
            strbuf_printf(o, "#%u", id);
    }
}

static void
xr_heap_tables(xr *r, xref_tables *out)
{
    if (r->n_ccs)
        qsort(r->ccs, r->n_ccs, sizeof *r->ccs, xr_cc_cmp);
    /* Bands: entries with equal keys; a band remembers its first entry (its key and
     * its place in first-seen order). */
    xr_keyed *keyed = xmalloc((r->n_ents + 1) * sizeof *keyed);    /* freed below */
    for (size_t i = 0; i < r->n_ents; i++)
        keyed[i] = (xr_keyed){ &r->ents[i], i };
    qsort(keyed, r->n_ents, sizeof *keyed, xr_keyed_cmp);
    xr_band *bands = xcalloc(r->n_ents + 1, sizeof *bands);        /* freed below */
    size_t n_bands = 0;
    for (size_t i = 0; i < r->n_ents; i++) {
        if (i == 0 || xr_entry_key_cmp(keyed[i - 1].e, keyed[i].e) != 0)
            bands[n_bands++].first = keyed[i].i;
        r->ents[keyed[i].i].band = n_bands - 1;
    }
    x_free(keyed);
    /* Per census: its bands' bytes in first-appearance order (a band twice adds up). */
    xr_entry *merged = xmalloc((r->n_ents + 1) * sizeof *merged);   /* freed below */
    size_t n_merged = 0, *cens_first = xmalloc((r->n_cens + 1) * sizeof *cens_first);
    size_t e = 0;
    for (size_t ci = 0; ci < r->n_cens; ci++) {
        cens_first[ci] = n_merged;
        for (; e < r->n_ents && r->ents[e].census == ci; e++) {
            size_t k = cens_first[ci];
            while (k < n_merged && merged[k].band != r->ents[e].band)
                k++;
            if (k == n_merged)
                merged[n_merged++] = r->ents[e];
            else
                merged[k].bytes += r->ents[e].bytes;
        }
    }
    cens_first[r->n_cens] = n_merged;

    strbuf_puts(&out->censuses, "time_ns\tband\tbytes\n");
    for (size_t ti = 0; ti < r->n_cens; ti++) {
        size_t ci = r->by_time[ti].orig;
        for (size_t k = cens_first[ci]; k < cens_first[ci + 1]; k++) {
            xr_band *b = &bands[merged[k].band];
            uint64_t bytes = merged[k].bytes;
            b->sum += bytes;
            if (++b->n == 1 || bytes > b->peak) {
                b->peak = bytes;
                b->peak_ns = r->cens[ci].begin;
            }
            if (ti + 1 == r->n_cens)
                b->last = bytes;
            strbuf_printf(&out->censuses, "%llu\t", (unsigned long long)r->cens[ci].begin);
            xr_band_name(r, &r->ents[b->first], &out->censuses);
            strbuf_printf(&out->censuses, "\t%llu\n", (unsigned long long)bytes);
        }
    }
    qsort(bands, n_bands, sizeof *bands, xr_band_order_cmp);
    strbuf_puts(&out->bands, "band\tkind\tpeak_bytes\tpeak_ns\tmean_bytes\tlast_bytes\t"
                             "censuses\n");
    for (size_t b = 0; b < n_bands; b++) {
        const xr_entry *first = &r->ents[bands[b].first];
        xr_band_name(r, first, &out->bands);
        strbuf_printf(&out->bands, "\t%s\t%llu\t%llu\t%llu\t%llu\t%u\n",
                      first->kind ? "string" : "stack", (unsigned long long)bands[b].peak,
                      (unsigned long long)bands[b].peak_ns,
                      (unsigned long long)(r->n_cens ? bands[b].sum / r->n_cens : 0),
                      (unsigned long long)bands[b].last, bands[b].n);
    }
    x_free(bands);
    x_free(cens_first);
    x_free(merged);
}

static int
xr_census_time_cmp(const void *a, const void *b)
{
    const xr_census *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->orig < y->orig ? -1 : x->orig > y->orig;
}

/* ---- entry ------------------------------------------------------------------------------------ */

void
xref_build(const evlog *log, xref_tables *out)
{
    strbuf_init(&out->gc);
    strbuf_init(&out->parts);
    strbuf_init(&out->threads);
    strbuf_init(&out->bands);
    strbuf_init(&out->censuses);
    xr r;
    memset(&r, 0, sizeof r);
    diag ending;
    merge *m = merge_new(log, &ending);
    evlog_event ev;
    while (merge_next(m, &ev))
        xr_event(&r, &ev);
    merge_free(m);
    for (size_t i = 0; i < r.n_caps; i++)
        if (r.caps[i].in_gc)
            xr_end_span(&r, &r.caps[i], r.last_ns, true);
    xr_census_close(&r, XR_NONE);
    r.by_time = xmalloc((r.n_cens + 1) * sizeof *r.by_time);
    if (r.n_cens)
        memcpy(r.by_time, r.cens, r.n_cens * sizeof *r.by_time);
    qsort(r.by_time, r.n_cens, sizeof *r.by_time, xr_census_time_cmp);
    if (r.n_caps)
        qsort(r.caps, r.n_caps, sizeof *r.caps, xr_cap_cmp);
    xr_group(&r);
    xr_close_open_runs(&r);
    xr_gc_tables(&r, out);
    xr_threads_table(&r, &out->threads);
    xr_heap_tables(&r, out);

    for (size_t i = 0; i < r.n_caps; i++) {
        x_free(r.caps[i].runs);
        x_free(r.caps[i].subs);
    }
    x_free(r.caps);
    x_free(r.spans);
    x_free(r.stats);
    x_free(r.stats_span);
    x_free(r.reqs);
    x_free(r.heap);
    x_free(r.live);
    x_free(r.alloc);
    x_free(r.facts);
    x_free(r.cens);
    x_free(r.by_time);
    x_free(r.ents);
    x_free(r.ccs);
    x_free(r.gcs);
}

void
xref_free(xref_tables *t)
{
    strbuf_free(&t->gc);
    strbuf_free(&t->parts);
    strbuf_free(&t->threads);
    strbuf_free(&t->bands);
    strbuf_free(&t->censuses);
}
