/* eventpane: a sliding window of events in (time, file offset) order — the order
 * `show` prints — fetched with evseek_range over time windows that double until they
 * hold enough events, trimmed to a few screens around the selection. */
#include "eventpane.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gallop.h"
#include "render.h"
#include "timefmt.h"
#include "uibox.h"
#include "xalloc.h"

/* At most this many events per body row stay loaded. */
#define EVENTPANE_KEEP_PER_ROW 4
/* The largest single query. It bounds the work for a crowd of events sharing one
 * timestamp; a crowd larger than this may be shown incompletely. */
#define EVENTPANE_MAX_HITS ((size_t)1 << 16)
/* Enough for 64 doublings of a window plus a 64-step bisection and query growth. */
#define EVENTPANE_MAX_STEPS 200
#define EVENTPANE_DEFAULT_ROWS 20
/* Raw events read a batch while looking for ones that pass the filters. */
#define EVENTPANE_FILTER_BATCH 1024
/* Raw events one filtered fetch may look at (about 0.1 s): a filter few events pass
 * searches on a key press at a time, never holding the keys for a scan of the log. */
#define EVENTPANE_SCAN_BUDGET ((size_t)1 << 18)

/* A position between events: (time, file offset), ordered like evseek hits. */
typedef struct eventpane_pos {
    uint64_t t, off;
} eventpane_pos;

struct eventpane {
    const evindex *ix;          /* borrowed */
    const evlog *log;           /* borrowed (the index's) */
    const evseek *seek;         /* borrowed (the index's) */
    render *r;                  /* owned */
    evseek_hit *hits;           /* owned: loaded events, ascending, contiguous in the log */
    size_t n, cap;
    evseek_hit *q;              /* owned: query results */
    size_t q_cap;
    evseek_hit *batch;          /* owned: a fetched batch before it joins hits */
    size_t batch_cap;
    bool at_start, at_end;      /* hits[0] / hits[n - 1] is the log's first / last event */
    size_t sel;                 /* selected hit (< n when n > 0) */
    bool has_cursor;            /* cursor_hit is the first event at or after cursor_ns */
    evseek_hit cursor_hit;
    uint64_t cursor_ns;
    int rows;
    bool synced;
    size_t top;                 /* first hit on screen */
    bool recentre;              /* the next draw centres the cursor event */
    uint64_t ns_per_event;      /* average spacing: the first window's size */
    int filter_type;            /* only events of this type id, or -1 for every type */
    char filter_text[128];      /* only events whose `show` line holds this, "" for all */
    evseek_hit *raw;            /* owned: a raw batch read while filtering */
    size_t raw_cap;
    strbuf line;                /* a candidate's `show` line while filtering */
    /* The last filtered fetch ran out of its scan budget (cut) after reading up to
     * cut_at; and per direction, how far the scan got past the loaded events when it
     * was cut there (the next fetch that way starts from it). */
    bool cut;
    eventpane_pos cut_at;
    bool fwd_cut, bwd_cut;
    eventpane_pos fwd_at, bwd_at;
    /* Every event of [win_t0, win_t1) around a cursor, ascending, read by one query
     * (win_ok), so that queries inside it are answered by a filter instead of a scan of
     * the log each: a scan costs about as much for a narrow range as for this one (a
     * stride of every stretch there, 32,768 events on 64 capabilities). Kept while the
     * seek table answers the same (win_gen): a sync near the last one reads nothing. */
    evseek_hit *win;            /* owned */
    size_t win_cap, n_win;
    uint64_t win_t0, win_t1;
    bool win_ok;
    uint64_t win_gen;           /* evseek_generation when the window was read */
    size_t n_win_reads;
};

static bool
eventpane_filtered(const eventpane *p)
{
    return p->filter_type >= 0 || p->filter_text[0];
}

static int
eventpane_cmp(const evseek_hit *h, eventpane_pos p)
{
    if (h->time_ns != p.t)
        return h->time_ns < p.t ? -1 : 1;
    return h->offset < p.off ? -1 : h->offset > p.off;
}

static eventpane_pos
eventpane_pos_of(const evseek_hit *h)
{
    return (eventpane_pos){ h->time_ns, h->offset };
}

static uint64_t
eventpane_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
eventpane_sat_mul(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static void
eventpane_grow(evseek_hit **a, size_t *cap, size_t need)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    *a = xreallocarray(*a, c, sizeof **a);     /* owned by the pane */
    *cap = c;
}

eventpane *
eventpane_new(const evindex *ix)
{
    eventpane *p = xcalloc(1, sizeof *p);       /* caller frees: eventpane_free */
    p->ix = ix;
    p->log = evindex_log(ix);
    p->seek = evindex_seek(ix);
    p->r = render_new();
    render_set_log(p->r, p->log);
    p->rows = EVENTPANE_DEFAULT_ROWS;
    p->at_start = p->at_end = true;
    p->filter_type = -1;
    strbuf_init(&p->line);
    uint64_t n = evindex_n_events(ix);
    uint64_t span = evindex_last_ns(ix) - evindex_first_ns(ix);
    p->ns_per_event = n ? span / n : 1;
    if (p->ns_per_event == 0)
        p->ns_per_event = 1;
    return p;
}

void
eventpane_free(eventpane *p)
{
    if (!p)
        return;
    render_free(p->r);
    x_free(p->hits);
    x_free(p->q);
    x_free(p->batch);
    x_free(p->raw);
    x_free(p->win);
    strbuf_free(&p->line);
    x_free(p);
}

/* Whether the window read last holds every event of [t0, t1): read whole, and the seek
 * table still answers as it did then. */
static bool
eventpane_window_holds(const eventpane *p, uint64_t t0, uint64_t t1)
{
    return p->win_ok && p->win_gen == evseek_generation(p->seek) && t0 >= p->win_t0 &&
           t1 <= p->win_t1;
}

/* Events of [t0, t1) into p->q, the earliest `max`; *more if there were others. Inside
 * the sync's window, taken from it: the same events in the same order (time, then file
 * offset), as the window holds all of its range's. */
static size_t
eventpane_query(eventpane *p, uint64_t t0, uint64_t t1, size_t max, bool *more)
{
    eventpane_grow(&p->q, &p->q_cap, max);
    if (!eventpane_window_holds(p, t0, t1))
        return evseek_range(p->seek, p->log, t0, t1, p->q, max, more);
    /* From the first event at or after t0. */
    size_t lo = gallop_first_at_least(&p->win[0].time_ns, sizeof *p->win, p->n_win, t0);
    size_t n = 0, in = 0;
    for (size_t i = lo; i < p->n_win && p->win[i].time_ns < t1; i++, in++)
        if (n < max)
            p->q[n++] = p->win[i];
    if (more)
        *more = in > max;
    return n;
}

static bool eventpane_window_fill(eventpane *p, uint64_t t0, uint64_t t1);

/* eventpane_query for a look back from the window's time: the first range of a search
 * that reaches before the window (*widened false) is read into the window first, as far
 * back again and up to the window's end (while that holds no more than EVENTPANE_WIN_MAX
 * events; else as asked), so that the search's next ranges, narrower or one doubling
 * wider, come from memory instead of every capability's blocks there read again (a
 * sparse stretch before a crowded one took six such reads in one frame). */
static size_t
eventpane_query_back(eventpane *p, uint64_t t0, uint64_t t1, size_t max, bool *more,
                     bool *widened)
{
    if (!*widened && p->win_ok && p->win_gen == evseek_generation(p->seek) &&
        t0 < p->win_t0 && t1 >= p->win_t0 && t1 <= p->win_t1) {
        *widened = true;
        uint64_t back = t1 - t0, first = evindex_first_ns(p->ix);
        uint64_t from = t0 - first > back ? t0 - back : first;
        if (!eventpane_window_fill(p, from, p->win_t1) && from < t0)
            eventpane_window_fill(p, t0, p->win_t1);    /* too many: as asked */
    }
    return eventpane_query(p, t0, t1, max, more);
}

/* A first window likely to hold k events. */
static uint64_t
eventpane_window(const eventpane *p, size_t k)
{
    uint64_t w = eventpane_sat_mul(p->ns_per_event, eventpane_sat_mul(k, 2));
    return w ? w : 1;
}

/* Events the sync's window may hold (beyond, it is not used). */
#define EVENTPANE_WIN_MAX 4096

/* Read [t0, t1) into the window; false (and no window) when it holds more than
 * EVENTPANE_WIN_MAX events. */
static bool
eventpane_window_fill(eventpane *p, uint64_t t0, uint64_t t1)
{
    p->win_t0 = t0;
    p->win_t1 = t1;
    p->win_gen = evseek_generation(p->seek);
    p->n_win_reads++;
    eventpane_grow(&p->win, &p->win_cap, EVENTPANE_WIN_MAX);
    bool more;
    p->n_win = evseek_range(p->seek, p->log, t0, t1, p->win, EVENTPANE_WIN_MAX, &more);
    p->win_ok = !more;
    return p->win_ok;
}

/* Have a window around t wide enough for the first windows of both directions and a
 * doubling of them: the one kept from an earlier sync when it still holds that. Else,
 * when the last sync was near (within 4 such windows: the cursor moves in small
 * steps), one read twice as wide, so that the next syncs within w of t keep it (or as
 * wide when that is too many); after a jump, as wide (a jump after a jump reads no
 * more than it needs). */
static void
eventpane_window_read(eventpane *p, uint64_t t, size_t k)
{
    uint64_t w = eventpane_window(p, 2 * k);
    uint64_t t0 = t > w ? t - w : 0, t1 = eventpane_sat_add(t, w);
    if (eventpane_window_holds(p, t0, t1))
        return;
    bool same = p->win_gen == evseek_generation(p->seek) && p->n_win_reads > 0;
    uint64_t last = p->win_t0 / 2 + p->win_t1 / 2;
    bool near = same && (t > last ? t - last : last - t) <= eventpane_sat_mul(w, 4);
    uint64_t w2 = eventpane_sat_mul(w, 2);
    if (!near || !eventpane_window_fill(p, t > w2 ? t - w2 : 0, eventpane_sat_add(t, w2)))
        eventpane_window_fill(p, t0, t1);
}

/* Number of q[0..n) before `pos` (they come first: q is ascending). */
static size_t
eventpane_count_before(const evseek_hit *q, size_t n, eventpane_pos pos)
{
    while (n > 0 && eventpane_cmp(&q[n - 1], pos) >= 0)
        n--;
    return n;
}

/* The first k events after `pos`, ascending, into out[] (room for k). Returns how many;
 * fewer than k only at the end of the log. */
static size_t
eventpane_raw_after(eventpane *p, eventpane_pos pos, size_t k, evseek_hit *out)
{
    uint64_t last = evindex_last_ns(p->ix);
    if (k == 0 || evindex_n_events(p->ix) == 0 || pos.t > last)
        return 0;
    uint64_t w = eventpane_window(p, k);
    size_t m = k + 64;          /* room for events at pos.t that are not after pos */
    size_t got = 0, skip = 0;
    for (int step = 0; step < EVENTPANE_MAX_STEPS; step++) {
        uint64_t t1 = eventpane_sat_add(pos.t, w);
        bool whole = t1 > last;
        if (whole)
            t1 = eventpane_sat_add(last, 1);
        bool more;
        size_t n = eventpane_query(p, pos.t, t1, m, &more);
        for (skip = 0; skip < n && eventpane_cmp(&p->q[skip], pos) <= 0; skip++)
            ;
        got = n - skip;
        if (got >= k || (whole && !more) || (more && m >= EVENTPANE_MAX_HITS))
            break;
        if (more)
            m = 2 * m < EVENTPANE_MAX_HITS ? 2 * m : EVENTPANE_MAX_HITS;
        else
            w = eventpane_sat_mul(w, 2);
    }
    if (got > k)
        got = k;
    memcpy(out, p->q + skip, got * sizeof *out);
    return got;
}

static void
eventpane_reverse(evseek_hit *a, size_t n)
{
    for (size_t i = 0; i < n / 2; i++) {
        evseek_hit t = a[i];
        a[i] = a[n - 1 - i];
        a[n - 1 - i] = t;
    }
}

/* a[0..n) becomes a[k..n) ++ a[0..k), in place. */
static void
eventpane_rotate(evseek_hit *a, size_t k, size_t n)
{
    eventpane_reverse(a, k);
    eventpane_reverse(a + k, n - k);
    eventpane_reverse(a, n);
}

/* The last `want` events at time t that are before `pos`, ascending, into out[].
 * Reads the whole run of events at t (up to EVENTPANE_MAX_HITS). */
static size_t
eventpane_last_at(eventpane *p, uint64_t t, eventpane_pos pos, size_t want, evseek_hit *out)
{
    size_t m = want + 64, n;
    bool more;
    for (;;) {
        n = eventpane_query(p, t, eventpane_sat_add(t, 1), m, &more);
        if (!more || m >= EVENTPANE_MAX_HITS)
            break;
        m = 2 * m < EVENTPANE_MAX_HITS ? 2 * m : EVENTPANE_MAX_HITS;
    }
    size_t before = eventpane_count_before(p->q, n, pos);
    size_t c = before < want ? before : want;
    memcpy(out, p->q + before - c, c * sizeof *out);
    return c;
}

/* Where before hi `want` events would begin, were they as dense as the n seen in [a, b]
 * (0 if none were: no guess). */
static uint64_t
eventpane_guess_lo(uint64_t hi, uint64_t a, uint64_t b, size_t n, size_t want)
{
    if (n == 0)
        return 0;
    double span = ((double)(b - a) + 1.0) * (double)want / (double)n;
    return span >= (double)hi ? 0 : hi - (uint64_t)span;
}

/* The last k events with time < hi (and >= first), ascending, into out[]. */
static size_t
eventpane_last_before_time(eventpane *p, uint64_t hi, size_t k, evseek_hit *out)
{
    uint64_t first = evindex_first_ns(p->ix);
    if (k == 0 || hi <= first)
        return 0;
    eventpane_pos all = { hi, 0 };
    size_t m = 2 * k + 64;
    uint64_t w = eventpane_window(p, k);
    /* Widen [lo, hi) by doubling until it holds k events. When it holds more than m the
     * kept hits are the earliest, not the ones wanted: search lo between lo_bad (too
     * many) and lo_ok (fewer than k) instead, each step first where the events the last
     * query saw say about (k + m) / 2 of them begin (a query costs a stretch of the log
     * read, however narrow: halving, a dense stretch took twenty), else half way. */
    uint64_t lo_ok = hi, lo_bad = 0, guess = 0;
    bool have_bad = false, widened = false;
    for (int step = 0; step < EVENTPANE_MAX_STEPS; step++) {
        uint64_t lo;
        if (!have_bad) {
            lo = w >= hi - first ? first : hi - w;
        } else {
            if (lo_ok - lo_bad <= 1)
                break;
            lo = guess > lo_bad && guess < lo_ok ? guess : lo_bad + (lo_ok - lo_bad) / 2;
        }
        bool more;
        size_t n = eventpane_query_back(p, lo, hi, m, &more, &widened);
        if (more) {
            lo_bad = lo;
            have_bad = true;
            /* The earliest n of [lo, hi) lie in [lo, the last one's time]. */
            guess = eventpane_guess_lo(hi, lo, p->q[n - 1].time_ns, n, (k + m) / 2);
            continue;
        }
        if (n >= k || lo == first) {
            size_t take = n < k ? n : k;
            memcpy(out, p->q + n - take, take * sizeof *out);
            return take;
        }
        lo_ok = lo;
        guess = eventpane_guess_lo(hi, lo, hi, n, (k + m) / 2);
        if (!have_bad) {
            /* Wider: at least twice, as far as the events seen say (k + m) / 2 lie. */
            uint64_t w2 = eventpane_sat_mul(w, 2);
            w = guess && hi - guess > w2 ? hi - guess : n ? w2 : eventpane_sat_mul(w, 8);
        }
    }
    if (!have_bad)
        return 0;   /* not reached: the doubling meets `first` well within the steps */
    /* A run of more than m events at time lo_bad: [lo_ok, hi) holds the latest few, the
     * end of the run the rest. */
    bool more;
    size_t n = eventpane_query(p, lo_ok, hi, m, &more);
    size_t tail = n < k ? n : k;
    memcpy(out, p->q + n - tail, tail * sizeof *out);
    size_t c = eventpane_last_at(p, lo_bad, all, k - tail, out + tail);
    eventpane_rotate(out, tail, tail + c);      /* the run's events come first */
    return c + tail;
}

/* The last k events before `pos`, ascending, into out[] (room for k). Returns how many;
 * fewer than k only at the start of the log. Events at pos.t itself are taken apart, so
 * that a run of equal times at pos (before or after it) never crowds the search. */
static size_t
eventpane_raw_before(eventpane *p, eventpane_pos pos, size_t k, evseek_hit *out)
{
    if (k == 0 || evindex_n_events(p->ix) == 0 || pos.t < evindex_first_ns(p->ix))
        return 0;
    size_t a = eventpane_last_at(p, pos.t, pos, k, out);
    if (a == k)
        return a;
    /* out = (events before pos.t) ++ (the a at pos.t) */
    memmove(out + (k - a), out, a * sizeof *out);
    size_t b = eventpane_last_before_time(p, pos.t, k - a, out);
    memmove(out + b, out + (k - a), a * sizeof *out);
    return b + a;
}

/* ASCII-case-insensitive substring test. */
static bool
eventpane_contains(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; i++) {
        size_t j = 0;
        while (j < m && tolower((unsigned char)hay[i + j]) == tolower((unsigned char)needle[j]))
            j++;
        if (j == m)
            return true;
    }
    return m == 0;
}

/* Whether a hit passes the filters: its type, then its `show` line's text. */
static bool
eventpane_match(eventpane *p, const evseek_hit *h)
{
    if (!eventpane_filtered(p))
        return true;
    evlog_event ev;
    if (!evlog_event_at(p->log, h->offset, h->cap, &ev))
        return false;
    if (p->filter_type >= 0 && ev.type != (uint16_t)p->filter_type)
        return false;
    if (!p->filter_text[0])
        return true;
    strbuf_reset(&p->line);
    render_show_line(p->r, &p->line, &ev);
    return eventpane_contains(p->line.data ? p->line.data : "", p->line.len, p->filter_text);
}

/* The first k events after `pos` that pass the filters, ascending, into out[]: batches of
 * raw events are read on until k match or the log ends (fewer than k only then). */
static size_t
eventpane_fetch_after(eventpane *p, eventpane_pos pos, size_t k, evseek_hit *out)
{
    p->cut = false;
    if (!eventpane_filtered(p))
        return eventpane_raw_after(p, pos, k, out);
    size_t chunk = k < EVENTPANE_FILTER_BATCH ? EVENTPANE_FILTER_BATCH : k, got = 0;
    size_t scanned = 0;
    eventpane_grow(&p->raw, &p->raw_cap, chunk);
    while (got < k) {
        size_t n = eventpane_raw_after(p, pos, chunk, p->raw);
        for (size_t i = 0; i < n && got < k; i++)
            if (eventpane_match(p, &p->raw[i]))
                out[got++] = p->raw[i];
        if (n < chunk)
            break;
        pos = eventpane_pos_of(&p->raw[n - 1]);
        scanned += n;
        if (got < k && scanned >= EVENTPANE_SCAN_BUDGET) {
            p->cut = true;      /* everything up to pos was looked at */
            p->cut_at = pos;
            break;
        }
    }
    return got;
}

/* The last k events before `pos` that pass the filters, ascending, into out[]. */
static size_t
eventpane_fetch_before(eventpane *p, eventpane_pos pos, size_t k, evseek_hit *out)
{
    p->cut = false;
    if (!eventpane_filtered(p))
        return eventpane_raw_before(p, pos, k, out);
    size_t chunk = k < EVENTPANE_FILTER_BATCH ? EVENTPANE_FILTER_BATCH : k, got = 0;
    size_t scanned = 0;
    eventpane_grow(&p->raw, &p->raw_cap, chunk);
    /* Filled from the end of out[], then moved to its start. */
    while (got < k) {
        size_t n = eventpane_raw_before(p, pos, chunk, p->raw);
        for (size_t i = n; i > 0 && got < k; i--)
            if (eventpane_match(p, &p->raw[i - 1]))
                out[k - 1 - got++] = p->raw[i - 1];
        if (n < chunk)
            break;
        pos = eventpane_pos_of(&p->raw[0]);
        scanned += n;
        if (got < k && scanned >= EVENTPANE_SCAN_BUDGET) {
            p->cut = true;      /* everything from pos on was looked at */
            p->cut_at = pos;
            break;
        }
    }
    memmove(out, out + (k - got), got * sizeof *out);
    return got;
}

/* Append up to k events after the loaded ones; returns how many came. */
static size_t
eventpane_extend_after(eventpane *p, size_t k)
{
    if (p->at_end || (p->n == 0 && !p->fwd_cut))
        return 0;
    eventpane_grow(&p->batch, &p->batch_cap, k);
    eventpane_pos from = p->fwd_cut ? p->fwd_at : eventpane_pos_of(&p->hits[p->n - 1]);
    size_t got = eventpane_fetch_after(p, from, k, p->batch);
    eventpane_grow(&p->hits, &p->cap, p->n + got);
    memcpy(p->hits + p->n, p->batch, got * sizeof *p->hits);
    p->n += got;
    p->fwd_cut = p->cut;
    p->fwd_at = p->cut_at;
    if (got < k && !p->cut)
        p->at_end = true;
    return got;
}

/* Prepend up to k events before the loaded ones; returns how many came. */
static size_t
eventpane_extend_before(eventpane *p, size_t k)
{
    if (p->at_start || (p->n == 0 && !p->bwd_cut))
        return 0;
    eventpane_grow(&p->batch, &p->batch_cap, k);
    eventpane_pos from = p->bwd_cut ? p->bwd_at : eventpane_pos_of(&p->hits[0]);
    size_t got = eventpane_fetch_before(p, from, k, p->batch);
    p->bwd_cut = p->cut;
    p->bwd_at = p->cut_at;
    eventpane_grow(&p->hits, &p->cap, p->n + got);
    memmove(p->hits + got, p->hits, p->n * sizeof *p->hits);
    memcpy(p->hits, p->batch, got * sizeof *p->hits);
    p->n += got;
    p->sel += got;
    p->top += got;
    if (got < k && !p->bwd_cut)
        p->at_start = true;
    return got;
}

static size_t
eventpane_rows(const eventpane *p)
{
    return (size_t)p->rows;
}

/* Keep at most KEEP_PER_ROW * rows events: drop from the ends, the larger surplus (events
 * more than `rows` away from the selection) first. */
static void
eventpane_trim(eventpane *p)
{
    size_t rows = eventpane_rows(p), keep = EVENTPANE_KEEP_PER_ROW * rows;
    if (p->n <= keep)
        return;
    size_t e = p->n - keep;
    size_t a = p->sel > rows ? p->sel - rows : 0;
    size_t after = p->n - 1 - p->sel;
    size_t b = after > rows ? after - rows : 0;
    size_t df = 0, db = 0;
    if (a >= b) {
        df = e < a - b ? e : a - b;
    } else {
        db = e < b - a ? e : b - a;
    }
    e -= df + db;
    df += e - e / 2;
    db += e / 2;
    /* keep >= 2 * rows + 1, so the surpluses cover the excess; clamp regardless. */
    if (df > a)
        df = a;
    if (db > b)
        db = b;
    if (df) {
        memmove(p->hits, p->hits + df, (p->n - df) * sizeof *p->hits);
        p->n -= df;
        p->sel -= df;
        p->top = p->top > df ? p->top - df : 0;
        p->at_start = false;
        p->bwd_cut = false;     /* the scan's frontier was before what is dropped */
    }
    if (db) {
        p->n -= db;
        p->at_end = false;
        p->fwd_cut = false;
    }
}

/* Have `rows` events loaded on each side of the selection where the log has them. */
static void
eventpane_margins(eventpane *p)
{
    size_t rows = eventpane_rows(p);
    if (p->n == 0)
        return;
    if (!p->at_start && p->sel < rows)
        eventpane_extend_before(p, rows);
    if (!p->at_end && p->n - 1 - p->sel < rows)
        eventpane_extend_after(p, rows);
    eventpane_trim(p);
}

static void
eventpane_set_rows(eventpane *p, int rows)
{
    p->rows = rows < 1 ? 1 : rows;
}

void
eventpane_sync(eventpane *p, uint64_t cursor_ns, int rows)
{
    if (rows < 1)
        rows = 1;
    if (p->synced && cursor_ns == p->cursor_ns && rows == p->rows)
        return;
    bool keep_sel = p->n > 0 && p->hits[p->sel].time_ns == cursor_ns;
    uint64_t keep_off = keep_sel ? p->hits[p->sel].offset : 0;
    eventpane_set_rows(p, rows);
    p->cursor_ns = cursor_ns;
    p->synced = true;

    size_t k = eventpane_rows(p);
    eventpane_pos at = { cursor_ns, 0 };    /* no event has offset 0: "at or after" */
    eventpane_grow(&p->hits, &p->cap, 2 * k);
    eventpane_grow(&p->batch, &p->batch_cap, k);
    eventpane_window_read(p, cursor_ns, k);
    size_t before = eventpane_fetch_before(p, at, k, p->hits);
    p->bwd_cut = p->cut;
    p->bwd_at = p->cut_at;
    size_t after = eventpane_fetch_after(p, at, k, p->batch);
    p->fwd_cut = p->cut;
    p->fwd_at = p->cut_at;
    memcpy(p->hits + before, p->batch, after * sizeof *p->hits);
    p->n = before + after;
    p->at_start = before < k && !p->bwd_cut;
    p->at_end = after < k && !p->fwd_cut;
    p->has_cursor = after > 0;
    if (after)
        p->cursor_hit = p->hits[before];
    p->sel = after ? before : before ? before - 1 : 0;
    for (size_t i = before; keep_sel && i < p->n && p->hits[i].time_ns == cursor_ns; i++) {
        if (p->hits[i].offset == keep_off) {
            p->sel = i;
            break;
        }
    }
    p->top = 0;
    p->recentre = true;
}

void
eventpane_scroll(eventpane *p, int delta)
{
    if (p->n == 0) {
        /* Nothing passed the filter yet: a key searches on that way (one budget). */
        size_t got = delta > 0   ? eventpane_extend_after(p, 2 * eventpane_rows(p))
                     : delta < 0 ? eventpane_extend_before(p, 2 * eventpane_rows(p)) : 0;
        if (got) {
            p->sel = delta > 0 ? 0 : p->n - 1;
            p->top = p->sel;
            p->recentre = false;
        }
        return;
    }
    size_t chunk = 2 * eventpane_rows(p);
    long long d = delta;
    while (d > 0) {
        size_t room = p->n - 1 - p->sel;
        if (room == 0) {
            if (eventpane_extend_after(p, chunk) == 0)
                break;
            eventpane_trim(p);
            continue;
        }
        size_t step = (unsigned long long)d < room ? (size_t)d : room;
        p->sel += step;
        d -= (long long)step;
    }
    while (d < 0) {
        if (p->sel == 0) {
            if (eventpane_extend_before(p, chunk) == 0)
                break;
            eventpane_trim(p);
            continue;
        }
        size_t step = (unsigned long long)-d < p->sel ? (size_t)-d : p->sel;
        p->sel -= step;
        d += (long long)step;
    }
    eventpane_margins(p);
}

void
eventpane_first(eventpane *p)
{
    size_t k = 2 * eventpane_rows(p);
    eventpane_grow(&p->hits, &p->cap, k);
    p->n = eventpane_fetch_after(p, (eventpane_pos){ 0, 0 }, k, p->hits);
    p->fwd_cut = p->cut;
    p->fwd_at = p->cut_at;
    p->bwd_cut = false;
    p->at_start = true;
    p->at_end = p->n < k && !p->fwd_cut;
    p->sel = 0;
    p->top = 0;
    p->recentre = false;
}

void
eventpane_last(eventpane *p)
{
    size_t k = 2 * eventpane_rows(p);
    eventpane_grow(&p->hits, &p->cap, k);
    eventpane_pos end = { evindex_last_ns(p->ix), UINT64_MAX };
    p->n = eventpane_fetch_before(p, end, k, p->hits);
    p->bwd_cut = p->cut;
    p->bwd_at = p->cut_at;
    p->fwd_cut = false;
    p->at_start = p->n < k && !p->bwd_cut;
    p->at_end = true;
    p->sel = p->n ? p->n - 1 : 0;
    p->top = p->sel;
    p->recentre = false;
}

void
eventpane_set_filter(eventpane *p, int type, const char *text)
{
    p->filter_type = type >= 0 && type <= 0xffff ? type : -1;
    snprintf(p->filter_text, sizeof p->filter_text, "%s", text ? text : "");
    p->synced = false;          /* the next sync loads anew */
}

int
eventpane_filter_type(const eventpane *p)
{
    return p->filter_type;
}

const char *
eventpane_filter_text(const eventpane *p)
{
    return p->filter_text;
}

bool
eventpane_selected_time(const eventpane *p, uint64_t *t_ns)
{
    if (p->n == 0)
        return false;
    *t_ns = p->hits[p->sel].time_ns;
    return true;
}

bool
eventpane_selected(const eventpane *p, evseek_hit *hit)
{
    if (p->n == 0)
        return false;
    *hit = p->hits[p->sel];
    return true;
}

size_t
eventpane_window_reads(const eventpane *p)
{
    return p->n_win_reads;
}

size_t
eventpane_n_loaded(const eventpane *p)
{
    return p->n;
}

size_t
eventpane_selected_index(const eventpane *p)
{
    return p->n ? p->sel : SIZE_MAX;
}

size_t
eventpane_cursor_index(const eventpane *p)
{
    if (!p->has_cursor || p->n == 0)
        return SIZE_MAX;
    eventpane_pos c = eventpane_pos_of(&p->cursor_hit);
    if (eventpane_cmp(&p->hits[0], c) > 0 || eventpane_cmp(&p->hits[p->n - 1], c) < 0)
        return SIZE_MAX;
    size_t lo = 0, hi = p->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (eventpane_cmp(&p->hits[mid], c) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && eventpane_cmp(&p->hits[lo], c) == 0 ? lo : SIZE_MAX;
}

bool
eventpane_hit_at(const eventpane *p, size_t i, evseek_hit *hit)
{
    if (i >= p->n)
        return false;
    *hit = p->hits[i];
    return true;
}

bool
eventpane_line(const eventpane *p, size_t i, strbuf *sb)
{
    if (i >= p->n)
        return false;
    const evseek_hit *h = &p->hits[i];
    evlog_event ev;
    size_t start = sb->len;
    if (evlog_event_at(p->log, h->offset, h->cap, &ev)) {
        render_show_line(p->r, sb, &ev);
    } else {
        strbuf_u64(sb, h->time_ns);
        if (h->cap != EVLOG_NO_CAP)
            strbuf_printf(sb, ": cap %u", (unsigned)h->cap);
        strbuf_puts(sb, ": (unreadable event)");
    }
    /* Some texts end in a newline of their own (the block marker's): one line each. */
    while (sb->len > start && sb->data[sb->len - 1] == '\n')
        sb->data[--sb->len] = '\0';
    return true;
}

/* Pick the first hit on screen for `rows` body rows. */
static void
eventpane_place(eventpane *p, size_t rows)
{
    if (p->recentre) {
        size_t c = eventpane_cursor_index(p);
        size_t anchor = c != SIZE_MAX ? c : p->sel;
        p->top = anchor > rows / 2 ? anchor - rows / 2 : 0;
        p->recentre = false;
    }
    if (p->sel < p->top)
        p->top = p->sel;
    else if (p->sel >= p->top + rows)
        p->top = p->sel - rows + 1;
    if (p->top + rows > p->n)
        p->top = p->n > rows ? p->n - rows : 0;
}

void
eventpane_draw(eventpane *p, surface *s, int col, int line, int cols, int lines, bool focused)
{
    if (cols <= 0 || lines <= 0)
        return;
    surface_fill_rect(s, col, line, cols, lines, ' ', STYLE_EVENT_LIST);
    surface_fill(s, col, line, cols, ' ', STYLE_POPUP_TITLE);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, " events near ");
    timefmt_append_res(&sb, p->cursor_ns, 1);      /* exact, as the lines below */
    if (p->filter_type >= 0) {
        const evlog_type *t = evlog_type_of(p->log, (uint16_t)p->filter_type);
        strbuf_printf(&sb, " · type %d", p->filter_type);
        if (t && t->desc_len)
            strbuf_printf(&sb, " (%.*s)", (int)t->desc_len, (const char *)t->desc);
    }
    if (p->filter_text[0])
        strbuf_printf(&sb, " · text \"%s\"", p->filter_text);
    if (p->fwd_cut || p->bwd_cut) {
        /* The scan stopped on its budget: say how far it looked and how to go on. */
        strbuf_puts(&sb, " · searched ");
        if (p->bwd_cut)
            timefmt_append_res(&sb, p->bwd_at.t, 1);
        strbuf_puts(&sb, "..");
        if (p->fwd_cut)
            timefmt_append_res(&sb, p->fwd_at.t, 1);
        strbuf_printf(&sb, ", %s%s%s on", p->bwd_cut ? "Up" : "",
                      p->bwd_cut && p->fwd_cut ? "/" : "", p->fwd_cut ? "Down" : "");
    }
    if (eventpane_filtered(p))
        strbuf_puts(&sb, " · Esc shows all");
    uibox_text(s, col, line, sb.data, STYLE_POPUP_TITLE, cols);
    int rows = lines - 1;
    if (rows > 0 && p->n == 0)
        uibox_text(s, col, line + 1,
                   p->fwd_cut || p->bwd_cut ? " no event passes the filter in what was searched"
                   : eventpane_filtered(p)  ? " no event passes the filter"
                                            : " no events",
                   STYLE_EVENT_LIST, cols);
    if (rows <= 0 || p->n == 0) {
        strbuf_free(&sb);
        return;
    }
    eventpane_place(p, (size_t)rows);
    size_t cursor = eventpane_cursor_index(p);
    for (int r = 0; r < rows && p->top + (size_t)r < p->n; r++) {
        size_t i = p->top + (size_t)r;
        uint8_t style = focused && i == p->sel ? STYLE_POPUP_SEL
                        : i == cursor          ? STYLE_CURSOR
                                               : STYLE_EVENT_LIST;
        if (style != STYLE_EVENT_LIST)
            surface_fill(s, col, line + 1 + r, cols, ' ', style);
        strbuf_reset(&sb);
        eventpane_line(p, i, &sb);
        surface_textn(s, col, line + 1 + r, sb.data, sb.len, style, cols);
    }
    strbuf_free(&sb);
}
