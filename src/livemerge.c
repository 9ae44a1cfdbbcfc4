/* livemerge: per-writer high-water times over a file-order read of a growing log, and
 * a min-heap of the events read but not yet placed. */
#include "livemerge.h"

#include <string.h>

#include "merge.h"
#include "xalloc.h"

/* A held event: time, then file offset (low 48 bits) and cap (high 16 bits), as in
 * merge.c: (time, offset) is the stable time order. */
typedef struct livemerge_entry {
    uint64_t time_ns;
    uint64_t off_cap;
} livemerge_entry;

#define LIVEMERGE_OFF_MASK ((UINT64_C(1) << 48) - 1)
#define LIVEMERGE_LANES 65536u

struct livemerge {
    const evlog *log;
    evlog_iter it;
    bool started;
    size_t max_pending;
    livemerge_entry *heap;      /* owned; min-heap */
    size_t n_heap, cap_heap;
    uint64_t *high;             /* owned; per writer (cap, or EVLOG_NO_CAP): newest time */
    bool *known;                /* owned; writers that exist (seen, or announced) */
    uint16_t *lanes;            /* owned; the known writers, in order found */
    size_t n_lanes, cap_lanes;
    bool blocks;                /* a block marker was seen: the log has writers per cap */
    uint16_t *announced;        /* owned; caps created before any block was seen */
    size_t n_announced, cap_announced;
    uint64_t placed_ns;         /* min of high over lanes, cached */
    bool placed_ok;
    size_t n_read, n_out;
    uint64_t last_out_ns;       /* time of the last event placed */
    size_t n_late;              /* events read after a later one was placed */
    bool overflow;              /* the last feed stopped at max_pending held events */
    merge *rest;                /* owned; the finished file's merge, past n_out events */
    diag rest_ending;
};

static bool
livemerge_less(const livemerge_entry *a, const livemerge_entry *b)
{
    if (a->time_ns != b->time_ns)
        return a->time_ns < b->time_ns;
    return (a->off_cap & LIVEMERGE_OFF_MASK) < (b->off_cap & LIVEMERGE_OFF_MASK);
}

static void
livemerge_push(livemerge *m, livemerge_entry e)
{
    xgrowarray((void **)&m->heap, &m->cap_heap, m->n_heap + 1, 1024, sizeof *m->heap);
    size_t i = m->n_heap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!livemerge_less(&e, &m->heap[p]))
            break;
        m->heap[i] = m->heap[p];
        i = p;
    }
    m->heap[i] = e;
}

static livemerge_entry
livemerge_pop(livemerge *m)
{
    livemerge_entry top = m->heap[0], last = m->heap[--m->n_heap];
    size_t i = 0, n = m->n_heap;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && livemerge_less(&m->heap[c + 1], &m->heap[c]))
            c++;
        if (!livemerge_less(&m->heap[c], &last))
            break;
        m->heap[i] = m->heap[c];
        i = c;
    }
    if (n)
        m->heap[i] = last;
    return top;
}

static void
livemerge_know(livemerge *m, uint16_t lane)
{
    if (m->known[lane])
        return;
    m->known[lane] = true;
    xgrowarray((void **)&m->lanes, &m->cap_lanes, m->n_lanes + 1, 16, sizeof *m->lanes);
    m->lanes[m->n_lanes++] = lane;
    m->placed_ok = false;
}

livemerge *
livemerge_new(const evlog *log, size_t max_pending)
{
    livemerge *m = xcalloc(1, sizeof *m);
    m->log = log;
    m->max_pending = max_pending ? max_pending : MERGE_DEFAULT_MAX_PENDING;
    m->high = xcalloc(LIVEMERGE_LANES, sizeof *m->high);
    m->known = xcalloc(LIVEMERGE_LANES, sizeof *m->known);
    diag_clear(&m->rest_ending);
    /* The global stream always exists: GHC writes it, often only at exit, and it
     * holds the earliest events (the capsets, the program's arguments). */
    livemerge_know(m, EVLOG_NO_CAP);
    return m;
}

/* A capability the log creates will write, but only in a log with blocks: in one
 * without (older GHCs) every event is the one global writer's. */
static void
livemerge_cap(livemerge *m, uint16_t cap)
{
    if (m->blocks) {
        livemerge_know(m, cap);
        return;
    }
    xgrowarray((void **)&m->announced, &m->cap_announced, m->n_announced + 1, 16,
               sizeof *m->announced);
    m->announced[m->n_announced++] = cap;
}

/* Writers a log announces before they write: the capabilities it creates. */
static void
livemerge_announce(livemerge *m, const evlog_event *ev)
{
    if (ev->type == EV_BLOCK_MARKER && !m->blocks) {
        m->blocks = true;
        for (size_t i = 0; i < m->n_announced; i++)
            livemerge_know(m, m->announced[i]);
    } else if (ev->type == EV_CAP_CREATE && ev->payload_len >= 2) {
        livemerge_cap(m, (uint16_t)(ev->payload[0] << 8 | ev->payload[1]));
    } else if (ev->type == EV_STARTUP && ev->payload_len >= 2) {
        unsigned n = (unsigned)(ev->payload[0] << 8 | ev->payload[1]);
        for (unsigned c = 0; c < n && c < EVLOG_NO_CAP; c++)
            livemerge_cap(m, (uint16_t)c);
    }
}

void
livemerge_feed(livemerge *m)
{
    if (!m->started) {
        evlog_iter_init(&m->it, m->log);
        m->started = true;
    } else {
        evlog_iter_resume(&m->it);
    }
    evlog_event ev;
    m->overflow = false;
    for (;;) {
        if (m->n_heap >= m->max_pending) {
            m->overflow = true;
            break;
        }
        if (!evlog_iter_next(&m->it, &ev))
            break;
        m->n_read++;
        livemerge_know(m, ev.cap);
        livemerge_announce(m, &ev);
        if (m->n_out && ev.time_ns < m->last_out_ns)
            m->n_late++;
        if (ev.time_ns > m->high[ev.cap]) {
            m->high[ev.cap] = ev.time_ns;
            m->placed_ok = false;
        }
        livemerge_push(m, (livemerge_entry){ ev.time_ns,
                                             ev.offset | (uint64_t)ev.cap << 48 });
    }
}

uint64_t
livemerge_placed_ns(const livemerge *m)
{
    if (m->placed_ok)
        return m->placed_ns;
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < m->n_lanes; i++)
        if (m->high[m->lanes[i]] < low)
            low = m->high[m->lanes[i]];
    /* Without blocks nothing says who wrote what: the file order is no time order. */
    low = !m->blocks ? 0 : low > LIVEMERGE_SLACK_NS ? low - LIVEMERGE_SLACK_NS : 0;
    livemerge *w = (livemerge *)m;      /* a cache, not state */
    w->placed_ns = low;
    w->placed_ok = true;
    return low;
}

bool
livemerge_next(livemerge *m, bool final, evlog_event *ev)
{
    if (m->rest) {
        if (!merge_next(m->rest, ev))
            return false;
        m->n_out++;
        return true;
    }
    if (m->overflow && final) {
        /* Reading stopped with max_pending events held and the file is whole now:
         * its merge, past what was placed, is the rest, in bounded memory. */
        m->rest = merge_new(m->log, &m->rest_ending);
        for (size_t i = 0; i < m->n_out && merge_next(m->rest, ev); i++)
            ;
        return livemerge_next(m, final, ev);
    }
    if (m->n_heap == 0)
        return false;
    if (!final && m->heap[0].time_ns > livemerge_placed_ns(m))
        return false;
    livemerge_entry e = livemerge_pop(m);
    if (!final && !m->blocks)
        return false;
    bool ok = evlog_event_at(m->log, e.off_cap & LIVEMERGE_OFF_MASK,
                             (uint16_t)(e.off_cap >> 48), ev);
    if (ok) {
        m->n_out++;
        m->last_out_ns = ev->time_ns;
    }
    return ok;
}

bool
livemerge_done(const livemerge *m)
{
    return m->started && (m->it.state == EVLOG_ITER_END || m->it.state == EVLOG_ITER_ERROR);
}

void
livemerge_ending(const livemerge *m, diag *ending)
{
    if (m->rest)
        *ending = m->rest_ending;
    else if (m->started)
        evlog_iter_ending(&m->it, ending);
    else
        diag_clear(ending);
}

size_t
livemerge_n_out(const livemerge *m)
{
    return m->n_out;
}

size_t
livemerge_n_late(const livemerge *m)
{
    return m->n_late;
}

size_t
livemerge_n_read(const livemerge *m)
{
    return m->rest ? merge_n_events(m->rest) : m->n_read;
}

void
livemerge_free(livemerge *m)
{
    if (!m)
        return;
    merge_free(m->rest);
    x_free(m->heap);
    x_free(m->high);
    x_free(m->known);
    x_free(m->lanes);
    x_free(m->announced);
    x_free(m);
}
