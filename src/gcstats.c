/* gcstats: the `+RTS -s` model. gcstats_add keeps per-capability state (latest
 * GC_START/GC_END, last allocation and spark counters), one record per collection,
 * the heap censuses and the task events; gcstats_finish applies the rules of
 * docs/stats-semantics.md. */
#include "gcstats.h"

#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "decode.h"
#include "xalloc.h"

#define MIB (1024u * 1024u)
/* HEAP_PROF_BEGIN breakdowns whose census time the log cannot place (§4 PROF). */
#define GCSTATS_BY_RETAINER 5
#define GCSTATS_BY_BIOGRAPHY 6

/* One collection: its GC_STATS fields and the leader's start/end. */
typedef struct gc_rec {
    uint64_t stats_ns, start_ns, end_ns;
    uint64_t request_ns;        /* REQUEST_*_GC that began the stop (§1 time to stop) */
    uint64_t copied, slop, par_bal;
    uint32_t par_threads;
    uint16_t gen, cap;
    bool has_start, has_end, has_bal, closed_at_end, has_request;
} gc_rec;

typedef struct cap_state {
    uint64_t last_start_ns, last_end_ns;
    bool has_start, has_end;
    bool start_used;            /* last_start already given to a GC_STATS */
    size_t pending;             /* 1 + index of the GC waiting for its GC_END, or 0 */
    uint64_t alloc_ns;          /* time of the last HEAP_ALLOCATED (whole run) */
    uint64_t alloc_base;        /* last value before the window */
    uint64_t alloc_cur;         /* last value before the window's end */
    bool has_alloc;
    uint64_t sparks[7];         /* last SPARK_COUNTERS, file field order */
    bool has_sparks;
    bool in_span;               /* between its GC_START and GC_END */
    uint64_t span_cluster;      /* the collection (cluster serial) its span is in */
    uint64_t internal_ns;       /* latest GC_WORK/GC_IDLE/GC_DONE */
    uint64_t census_internal_ns;    /* internal_ns when the latest census began */
    bool has_internal, has_census_internal;
} cap_state;

typedef struct task_ev {
    uint64_t time_ns, task, kernel_tid;
    bool create;
} task_ev;

/* One heap census (HEAP_PROF_SAMPLE_BEGIN .. END). Inside a collection (gc != 0)
 * it is counted from from_ns: the leader's last GC work before it, or the start. */
typedef struct census {
    uint64_t begin_ns, end_ns, from_ns;
    size_t gc;                  /* 1 + index of the collection holding it, or 0 */
} census;

/* Per-spark events by kind (§3 SPARKS, other rule). */
enum { SPK_CREATE, SPK_DUD, SPK_OVERFLOW, SPK_RUN, SPK_STEAL, SPK_FIZZLE, SPK_GC, SPK_N };

struct gcstats {
    gcstats_window win;
    cap_state *caps;            /* indexed by cap */
    size_t n_caps_alloc;
    cap_state nocap;            /* events outside capability blocks */
    int max_cap;                /* -1 until a capability event is seen */
    unsigned n_cap_create;

    gcstats_memory mem;         /* MEM_RETURN, BLOCKS_SIZE (finished in gcstats_finish) */
    gcstats_nonmoving_detail nm;
    gcstats_nm_alloc nm_cur[GCSTATS_NM_MAX_ALLOCS];    /* the census being read */
    unsigned n_nm_cur;

    gc_rec *gcs;
    size_t n_gcs, cap_gcs;
    task_ev *tasks;
    size_t n_tasks, cap_tasks;
    census *censuses;
    size_t n_censuses, cap_censuses;
    size_t census_next;         /* censuses before this one are placed */

    unsigned n_gens;            /* from HEAP_INFO_GHC, 2 by default */
    uint64_t pid;
    bool has_pid, has_version, threaded_flavour, profiled;
    char version[96];
    uint64_t first_thread_ns;
    bool has_thread;
    uint64_t last_ns;
    bool any_event, capset_deleted;

    uint64_t max_live, max_heap;

    uint64_t census_begin_ns;
    bool census_open;
    census open_census;         /* its collection, if GC_STATS came before its END */
    bool prof_biography, prof_retainer;

    uint64_t *requests;         /* REQUEST_SEQ_GC/REQUEST_PAR_GC times, in order */
    size_t n_requests, cap_requests;
    bool has_sched;
    uint64_t spark_events[SPK_N];
    bool has_spark_events;

    /* Collections as clusters of the caps' GC_START..GC_END spans (as the index
     * joins them), to count those whose GC_STATS is not in the log. */
    bool cluster_any, cluster_has_stats;
    uint64_t cluster_serial;
    unsigned cluster_open_spans;   /* its spans not yet ended */
    uint64_t cluster_lead_end_ns;   /* once its GC_STATS is seen: the leader's end */
    uint64_t n_no_stats;

    bool nonmoving;
    bool sync_open;
    uint64_t sync_start_ns;
    uint64_t sync_count, sync_sum, sync_max;
    bool cycle_open;            /* a concurrent cycle has begun and not swept */
    uint64_t cycle_start_ns, cycle_last_ns;
    uint64_t cycles_run, conc_cycles, conc_cut, conc_sum, conc_max;
};

static bool
gcstats_in(const gcstats *g, uint64_t t)
{
    return t >= g->win.from_ns && t < g->win.to_ns;
}

/* Length of [a, b) ∩ [lo, hi). */
static uint64_t
gcstats_overlap(uint64_t a, uint64_t b, uint64_t lo, uint64_t hi)
{
    uint64_t s = a > lo ? a : lo, e = b < hi ? b : hi;
    return e > s ? e - s : 0;
}

static uint64_t
gcstats_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

gcstats *
gcstats_new(const gcstats_window *window)
{
    gcstats *g = xcalloc(1, sizeof *g);
    g->win.from_ns = window ? window->from_ns : 0;
    g->win.to_ns = window ? window->to_ns : UINT64_MAX;
    g->max_cap = -1;
    g->n_gens = 2;
    return g;
}

void
gcstats_free(gcstats *g)
{
    if (!g)
        return;
    x_free(g->caps);
    x_free(g->gcs);
    x_free(g->tasks);
    x_free(g->censuses);
    x_free(g->requests);
    x_free(g);
}

static cap_state *
gcstats_cap(gcstats *g, uint16_t cap)
{
    if (cap == EVLOG_NO_CAP)
        return &g->nocap;
    if (cap >= g->n_caps_alloc) {
        size_t n = g->n_caps_alloc ? g->n_caps_alloc : 8;
        while (n <= cap)
            n *= 2;
        g->caps = xreallocarray(g->caps, n, sizeof *g->caps);
        memset(g->caps + g->n_caps_alloc, 0, (n - g->n_caps_alloc) * sizeof *g->caps);
        g->n_caps_alloc = n;
    }
    if ((int)cap > g->max_cap)
        g->max_cap = cap;
    return &g->caps[cap];
}

/* Grow *arr (of `size`-byte items, *cap_items allocated) to hold one more. */
static void *
gcstats_grow(void *arr, size_t n, size_t *cap_items, size_t size)
{
    if (n < *cap_items)
        return arr;
    *cap_items = *cap_items ? *cap_items * 2 : 64;
    return xreallocarray(arr, *cap_items, size);
}

/* A cap's GC_START: it joins the current collection, unless none is under way or
 * the current one's leader has already ended (workers are released late, after
 * the next collection may have begun). A collection closed without GC_STATS is
 * one the log has no statistics for. */
static void
gcstats_span_start(gcstats *g, cap_state *cs, uint64_t t)
{
    bool next = !g->cluster_any || g->cluster_open_spans == 0 ||
                (g->cluster_has_stats && t >= g->cluster_lead_end_ns);
    if (next) {
        if (g->cluster_any && !g->cluster_has_stats)
            g->n_no_stats++;
        g->cluster_any = true;
        g->cluster_has_stats = false;
        g->cluster_open_spans = 0;
        g->cluster_serial++;
    }
    if (!cs->in_span || cs->span_cluster != g->cluster_serial)
        g->cluster_open_spans++;
    cs->in_span = true;
    cs->span_cluster = g->cluster_serial;
}

static void
gcstats_on_gc_stats(gcstats *g, const evlog_event *ev, const evdecoded *d, cap_state *cs)
{
    if (d->n_present < 8)
        return;
    g->gcs = gcstats_grow(g->gcs, g->n_gcs, &g->cap_gcs, sizeof *g->gcs);
    gc_rec *r = &g->gcs[g->n_gcs];
    memset(r, 0, sizeof *r);
    r->stats_ns = ev->time_ns;
    r->cap = ev->cap;
    r->gen = (uint16_t)d->f[1].u;
    r->copied = d->f[2].u;
    r->slop = d->f[3].u;
    r->par_threads = (uint32_t)d->f[5].u;
    r->has_bal = d->n_present >= 9;
    r->par_bal = d->f[8].u;
    if (cs->has_start && !cs->start_used) {
        r->has_start = true;
        r->start_ns = cs->last_start_ns;
        cs->start_used = true;
    }
    /* Time to stop: the latest request after the previous collection and not after
     * this one's start (the winner of the sync posts it, §1). Requests come in time
     * order: the last one at or before the start is found by bisection. */
    const gc_rec *prev = g->n_gcs ? &g->gcs[g->n_gcs - 1] : NULL;
    uint64_t prev_ns = !prev ? 0 : prev->has_end ? prev->end_ns : prev->stats_ns;
    size_t lo = 0, hi = g->n_requests;
    while (r->has_start && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->requests[mid] <= r->start_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (r->has_start && lo > 0 && (!prev || g->requests[lo - 1] > prev_ns)) {
        r->has_request = true;
        r->request_ns = g->requests[lo - 1];
    }
    /* Censuses since the previous collection that began inside this one's pause
     * ran in it: count each from the leader's last GC work before it (§4 census).
     * One still open is given this collection when it ends. */
    uint64_t from = cs->has_census_internal && cs->census_internal_ns > r->start_ns
                        ? cs->census_internal_ns : r->start_ns;
    for (; g->census_next < g->n_censuses; g->census_next++) {
        census *c = &g->censuses[g->census_next];
        if (!r->has_start || c->begin_ns < r->start_ns)
            continue;
        c->gc = g->n_gcs + 1;
        c->from_ns = from;
    }
    if (r->has_start && g->census_open && g->census_begin_ns >= r->start_ns) {
        g->open_census.gc = g->n_gcs + 1;
        g->open_census.from_ns = from;
    }
    /* The leader's GC_END is stamped before GC_STATS but written after it: in time
     * order it is usually already here; otherwise the next GC_END on this cap. */
    if (r->has_start && cs->has_end && cs->last_end_ns >= r->start_ns) {
        r->has_end = true;
        r->end_ns = cs->last_end_ns;
    } else {
        cs->pending = g->n_gcs + 1;
    }
    g->n_gcs++;
    g->cluster_has_stats = true;
    g->cluster_lead_end_ns = r->has_end ? r->end_ns : r->stats_ns;
}

static void
gcstats_on_task(gcstats *g, const evlog_event *ev, const evdecoded *d, bool create)
{
    if (d->n_present < (create ? 3 : 1))
        return;
    g->tasks = gcstats_grow(g->tasks, g->n_tasks, &g->cap_tasks, sizeof *g->tasks);
    g->tasks[g->n_tasks++] = (task_ev){ ev->time_ns, d->f[0].u, create ? d->f[2].u : 0,
                                        create };
}

static void
gcstats_on_version(gcstats *g, const evdecoded *d)
{
    if (d->n_present < 2)
        return;
    size_t n = d->f[1].len < sizeof g->version - 1 ? d->f[1].len : sizeof g->version - 1;
    memcpy(g->version, d->f[1].p, n);
    g->version[n] = '\0';
    char *nul = memchr(g->version, '\0', n);
    if (nul)
        n = (size_t)(nul - g->version);
    /* The flavour is the last word: "GHC-9.0.2 rts_thr_l". */
    size_t w = n;
    while (w > 0 && g->version[w - 1] != ' ')
        w--;
    const char *fl = g->version + w;
    size_t fl_len = n - w;
    g->has_version = true;
    g->threaded_flavour = strstr(fl, "_thr") != NULL;
    g->profiled = (fl_len >= 2 && strcmp(fl + fl_len - 2, "_p") == 0) ||
                  strstr(fl, "_p_") != NULL;
}

/* End the open concurrent cycle at `end_ns` (§5); `cut`: it never swept. */
static void
gcstats_close_cycle(gcstats *g, uint64_t end_ns, bool cut)
{
    if (!g->cycle_open)
        return;
    g->cycle_open = false;
    if (!gcstats_in(g, g->cycle_start_ns))
        return;
    uint64_t len = gcstats_sub(end_ns, g->cycle_start_ns);
    g->conc_cycles++;
    g->conc_cut += cut;
    g->conc_sum += len;
    if (len > g->conc_max)
        g->conc_max = len;
}

/* A concurrent cycle begins at the first mark after the previous sweep's end, and
 * each one runs on a new mark thread (§3 TASKS, §5); -ln is not needed. */
static void
gcstats_on_conc(gcstats *g, uint16_t type, uint64_t t)
{
    g->nonmoving = true;
    if (type == EV_CONC_MARK_BEGIN && !g->cycle_open) {
        g->cycle_open = true;
        g->cycle_start_ns = t;
        g->cycles_run++;
    }
    if (!g->cycle_open)
        return;
    g->cycle_last_ns = t;
    if (type == EV_CONC_SWEEP_END)
        gcstats_close_cycle(g, t, false);
}

/* HEAP_PROF_SAMPLE_BEGIN: note every cap's last GC work, for the leader (§4). */
static void
gcstats_on_census_begin(gcstats *g, uint64_t t)
{
    g->census_open = true;
    g->census_begin_ns = t;
    g->open_census = (census){ 0, 0, 0, 0 };
    for (size_t c = 0; c < g->n_caps_alloc; c++) {
        cap_state *cs = &g->caps[c];
        cs->census_internal_ns = cs->internal_ns;
        cs->has_census_internal = cs->has_internal;
    }
}

/* ---- memory the OS sees, non-moving census and pruning (§2 memory, §5) ----------------- */

static void
gcstats_nm_census_close(gcstats *g)
{
    if (!g->n_nm_cur)
        return;
    memcpy(g->nm.last, g->nm_cur, g->n_nm_cur * sizeof *g->nm_cur);
    g->nm.n_last = g->n_nm_cur;
    g->nm.n_censuses++;
    g->n_nm_cur = 0;
}

static void
gcstats_on_memory(gcstats *g, const evlog_event *ev)
{
    cursor c;
    cursor_init(&c, ev->payload, ev->payload_len);
    switch (ev->type) {
    case EV_MEM_RETURN: {
        (void)cursor_u32(&c);                       /* capset */
        uint32_t cur = cursor_u32(&c), need = cursor_u32(&c), ret = cursor_u32(&c);
        if (c.failed)
            return;
        gcstats_memory *m = &g->mem;
        m->has_mem_return = true;
        m->n_mem_return++;
        if (cur > m->max_current_mblocks)
            m->max_current_mblocks = cur;
        m->last_current_mblocks = cur;
        m->last_needed_mblocks = need;
        m->returned_mblocks += ret;
        return;
    }
    case EV_BLOCKS_SIZE: {
        (void)cursor_u32(&c);
        uint64_t bytes = cursor_u64(&c);
        if (c.failed)
            return;
        g->mem.has_blocks_size = true;
        if (bytes > g->mem.max_blocks_bytes)
            g->mem.max_blocks_bytes = bytes;
        return;
    }
    case EV_NONMOVING_HEAP_CENSUS: {
        /* 13 bytes: u8 log2 block size; 14: u16 block size in bytes (GHC #23340). */
        bool wide = ev->payload_len >= 14;
        uint32_t bs = wide ? cursor_u16(&c) : cursor_u8(&c);
        if (!wide)
            bs = bs < 32 ? 1u << bs : 0;
        gcstats_nm_alloc a = { bs, cursor_u32(&c), cursor_u32(&c), cursor_u32(&c) };
        if (c.failed)
            return;
        g->nm.n_census_events++;
        g->nm.wide_census |= wide;
        for (unsigned i = 0; i < g->n_nm_cur; i++)
            if (g->nm_cur[i].blk_size == bs) {
                gcstats_nm_census_close(g);
                break;
            }
        if (g->n_nm_cur < GCSTATS_NM_MAX_ALLOCS)
            g->nm_cur[g->n_nm_cur++] = a;
        return;
    }
    default: {                                      /* NONMOVING_PRUNED_SEGMENTS */
        uint32_t pruned = cursor_u32(&c), free_segs = cursor_u32(&c);
        if (c.failed)
            return;
        g->nm.n_prunes++;
        g->nm.pruned_segments += pruned;
        g->nm.last_free_segments = free_segs;
        if (free_segs > g->nm.max_free_segments)
            g->nm.max_free_segments = free_segs;
        return;
    }
    }
}

/* total memory in use and the fragmentation GHC prints beside it (§2 memory). */
static void
gcstats_finish_memory(gcstats *g, gcstats_report *out)
{
    gcstats_memory *m = &g->mem;
    if (!m->mblock_bytes) {
        m->mblock_bytes = MIB;
        m->block_bytes = 4096;
    }
    uint64_t peak = g->max_heap / m->mblock_bytes;
    if (m->max_current_mblocks > peak)
        peak = m->max_current_mblocks;
    m->peak_mblocks = peak;
    uint64_t total = g->max_heap > peak * m->mblock_bytes ? g->max_heap : peak * m->mblock_bytes;
    out->total_mem_mib = total / MIB;
    /* A major GC gives megablocks back before its HEAP_SIZE: its peak is in the log only
     * as MEM_RETURN's current (GHC 9.2+). */
    out->total_mem_at_least = !m->has_mem_return && out->residency_samples > 0;
    /* The RTS's blocks per megablock: the block descriptors (64 bytes each on a 64-bit
     * machine, one per block) take the first blocks of every megablock. */
    uint64_t per_mb0 = m->mblock_bytes / m->block_bytes;
    uint64_t descr = (64 * per_mb0 + m->block_bytes - 1) / m->block_bytes;
    uint64_t per_mb = per_mb0 > descr ? per_mb0 - descr : 0;
    uint64_t usable = peak * per_mb * m->block_bytes;
    m->has_frag = m->has_blocks_size;
    m->frag_mib = m->has_frag && usable > m->max_blocks_bytes
                      ? (usable - m->max_blocks_bytes) / MIB : 0;
    out->mem = *m;
    gcstats_nonmoving_detail nm = g->nm;
    if (g->n_nm_cur) {                      /* the census in progress is the last one */
        memcpy(nm.last, g->nm_cur, g->n_nm_cur * sizeof *g->nm_cur);
        nm.n_last = g->n_nm_cur;
        nm.n_censuses++;
    }
    out->nm = nm;
}

void
gcstats_add(gcstats *g, const evlog_event *ev)
{
    uint64_t t = ev->time_ns;
    if (t > g->last_ns || !g->any_event)
        g->last_ns = t;
    g->any_event = true;
    if (ev->type == EV_BLOCK_MARKER)
        return;
    cap_state *cs = gcstats_cap(g, ev->cap);
    evdecoded d;
    switch (ev->type) {
    case EV_GC_START:
        gcstats_span_start(g, cs, t);
        cs->last_start_ns = t;
        cs->has_start = true;
        cs->start_used = false;
        return;
    case EV_GC_END:
        if (cs->in_span && cs->span_cluster == g->cluster_serial && g->cluster_open_spans)
            g->cluster_open_spans--;
        cs->in_span = false;
        cs->last_end_ns = t;
        cs->has_end = true;
        if (cs->pending) {
            gc_rec *r = &g->gcs[cs->pending - 1];
            if (r->has_start) {
                r->has_end = true;
                r->end_ns = t;
            }
            cs->pending = 0;
        }
        return;
    case EV_GC_WORK:
    case EV_GC_IDLE:
    case EV_GC_DONE:
        cs->internal_ns = t;
        cs->has_internal = true;
        return;
    case EV_REQUEST_SEQ_GC:
    case EV_REQUEST_PAR_GC:
        g->requests = gcstats_grow(g->requests, g->n_requests, &g->cap_requests,
                                   sizeof *g->requests);
        g->requests[g->n_requests++] = t;
        return;
    case EV_CREATE_THREAD:
    case EV_RUN_THREAD:
    case EV_STOP_THREAD:
    case EV_THREAD_RUNNABLE:
    case EV_MIGRATE_THREAD:
    case EV_THREAD_WAKEUP:
    case EV_TASK_CREATE:
    case EV_TASK_MIGRATE:
    case EV_TASK_DELETE:
        g->has_sched = true;
        break;
    case EV_SPARK_CREATE:
    case EV_SPARK_DUD:
    case EV_SPARK_OVERFLOW:
    case EV_SPARK_RUN:
    case EV_SPARK_STEAL:
    case EV_SPARK_FIZZLE:
    case EV_SPARK_GC:
        g->spark_events[ev->type - EV_SPARK_CREATE]++;
        g->has_spark_events = true;
        return;
    case EV_HEAP_BIO_PROF_SAMPLE_BEGIN:
        g->prof_biography = true;
        return;
    case EV_CONC_SYNC_BEGIN:
        g->nonmoving = true;
        if (!g->sync_open) {
            g->sync_open = true;
            g->sync_start_ns = t;
        }
        return;
    case EV_CONC_SYNC_END:
        if (g->sync_open && gcstats_in(g, g->sync_start_ns)) {
            uint64_t len = t - g->sync_start_ns;
            g->sync_count++;
            g->sync_sum += len;
            if (len > g->sync_max)
                g->sync_max = len;
        }
        g->sync_open = false;
        return;
    case EV_CONC_MARK_BEGIN:
    case EV_CONC_MARK_END:
    case EV_CONC_SWEEP_BEGIN:
    case EV_CONC_SWEEP_END:
        gcstats_on_conc(g, ev->type, t);
        return;
    case EV_CAP_CREATE:
        g->n_cap_create++;
        return;
    case EV_MEM_RETURN:
    case EV_BLOCKS_SIZE:
    case EV_NONMOVING_HEAP_CENSUS:
    case EV_NONMOVING_PRUNED_SEGMENTS:
        if (gcstats_in(g, t))
            gcstats_on_memory(g, ev);
        return;
    case EV_CAPSET_DELETE:
        g->capset_deleted = true;
        return;
    default:
        break;
    }
    if (!ev->et || !ev->et->known)
        return;
    switch (ev->type) {
    case EV_GC_STATS_GHC:
    case EV_HEAP_ALLOCATED:
    case EV_HEAP_SIZE:
    case EV_HEAP_LIVE:
    case EV_HEAP_INFO_GHC:
    case EV_SPARK_COUNTERS:
    case EV_TASK_CREATE:
    case EV_TASK_DELETE:
    case EV_OSPROCESS_PID:
    case EV_RTS_IDENTIFIER:
    case EV_CREATE_THREAD:
    case EV_HEAP_PROF_BEGIN:
    case EV_HEAP_PROF_SAMPLE_BEGIN:
    case EV_HEAP_PROF_SAMPLE_END:
        break;
    default:
        return;
    }
    decode_event(ev, &d);
    switch (ev->type) {
    case EV_GC_STATS_GHC:
        gcstats_on_gc_stats(g, ev, &d, cs);
        break;
    case EV_HEAP_ALLOCATED:
        if (d.n_present < 2)
            break;
        cs->has_alloc = true;
        cs->alloc_ns = t;
        if (t < g->win.from_ns)
            cs->alloc_base = d.f[1].u;
        if (t < g->win.to_ns)
            cs->alloc_cur = d.f[1].u;
        break;
    case EV_HEAP_SIZE:
        if (d.n_present >= 2 && gcstats_in(g, t) && d.f[1].u > g->max_heap)
            g->max_heap = d.f[1].u;
        break;
    case EV_HEAP_LIVE:
        if (d.n_present >= 2 && gcstats_in(g, t) && d.f[1].u > g->max_live)
            g->max_live = d.f[1].u;
        break;
    case EV_HEAP_INFO_GHC:
        if (d.n_present >= 2 && d.f[1].u >= 1)
            g->n_gens = d.f[1].u < GCSTATS_MAX_GENS ? (unsigned)d.f[1].u : GCSTATS_MAX_GENS;
        if (d.n_present >= 6 && d.f[4].u >= d.f[5].u && d.f[5].u > 0) {
            g->mem.mblock_bytes = d.f[4].u;
            g->mem.block_bytes = d.f[5].u;
        }
        break;
    case EV_SPARK_COUNTERS:
        if (d.n_present < 7)
            break;
        for (int i = 0; i < 7; i++)
            cs->sparks[i] = d.f[i].u;
        cs->has_sparks = true;
        break;
    case EV_TASK_CREATE:
    case EV_TASK_DELETE:
        gcstats_on_task(g, ev, &d, ev->type == EV_TASK_CREATE);
        break;
    case EV_OSPROCESS_PID:
        if (d.n_present >= 2 && !g->has_pid) {
            g->pid = d.f[1].u;
            g->has_pid = true;
        }
        break;
    case EV_RTS_IDENTIFIER:
        gcstats_on_version(g, &d);
        break;
    case EV_CREATE_THREAD:
        if (!g->has_thread) {
            g->first_thread_ns = t;
            g->has_thread = true;
        }
        break;
    case EV_HEAP_PROF_BEGIN:
        if (d.n_present >= 3) {
            g->prof_retainer |= d.f[2].u == GCSTATS_BY_RETAINER;
            g->prof_biography |= d.f[2].u == GCSTATS_BY_BIOGRAPHY;
        }
        break;
    case EV_HEAP_PROF_SAMPLE_BEGIN:
        gcstats_on_census_begin(g, t);
        break;
    case EV_HEAP_PROF_SAMPLE_END:
        if (g->census_open && t >= g->census_begin_ns) {
            g->censuses = gcstats_grow(g->censuses, g->n_censuses, &g->cap_censuses,
                                       sizeof *g->censuses);
            g->censuses[g->n_censuses++] = (census){ g->census_begin_ns, t,
                                                     g->open_census.from_ns,
                                                     g->open_census.gc };
            if (g->open_census.gc)
                g->census_next = g->n_censuses;
        }
        g->census_open = false;
        break;
    default:
        break;
    }
}

static int
gcstats_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of the sorted `v[0..n)`: the smallest value with at least
 * p% of the values at or below it. */
static uint64_t
gcstats_rank(const uint64_t *v, size_t n, unsigned p)
{
    if (n == 0)
        return 0;
    size_t k = ((size_t)p * n + 99) / 100;
    return v[k ? k - 1 : 0];
}

/* Window key of a collection: its pause start, else its GC_STATS time. */
static uint64_t
gcstats_key(const gc_rec *r)
{
    return r->has_start ? r->start_ns : r->stats_ns;
}

/* The part of census `c` inside its collection's pause: [*a, *b). False when it
 * is in no collection, or the collection has no pause. */
static bool
gcstats_census_span(const gcstats *g, const census *c, uint64_t *a, uint64_t *b)
{
    if (!c->gc)
        return false;
    const gc_rec *r = &g->gcs[c->gc - 1];
    if (!r->has_start || !r->has_end)
        return false;
    *a = c->from_ns > r->start_ns ? c->from_ns : r->start_ns;
    *b = c->end_ns < r->end_ns ? c->end_ns : r->end_ns;
    if (*b < *a)
        *b = *a;
    return true;
}

static void
gcstats_finish_censuses(const gcstats *g, gcstats_report *out)
{
    out->n_censuses = g->n_censuses;
    for (size_t i = 0; i < g->n_censuses; i++) {
        const census *c = &g->censuses[i];
        uint64_t a, b;
        if (!gcstats_census_span(g, c, &a, &b))
            continue;
        const gc_rec *r = &g->gcs[c->gc - 1];
        if (r->gen >= out->n_gens || !gcstats_in(g, gcstats_key(r)))
            continue;
        out->n_censuses_in_gc++;
        gcstats_gen *row = &out->gens[r->gen];
        row->n_census++;
        row->census_ns += b - a;
        if (b - a > row->census_max_ns)
            row->census_max_ns = b - a;
        out->census_ns += b - a;
    }
}

static void
gcstats_finish_gcs(gcstats *g, gcstats_report *out)
{
    unsigned major = out->n_gens - 1;
    uint64_t par_copied = 0, par_bal = 0;
    uint64_t *pauses = xmalloc((g->n_gcs ? g->n_gcs : 1) * sizeof *pauses);
    for (unsigned gen = 0; gen < out->n_gens; gen++) {
        gcstats_gen *row = &out->gens[gen];
        size_t n_p = 0;
        for (size_t i = 0; i < g->n_gcs; i++) {
            const gc_rec *r = &g->gcs[i];
            if (r->gen != gen || !gcstats_in(g, gcstats_key(r)))
                continue;
            row->colls++;
            if (r->par_threads > 1)
                row->par_colls++;
            if (r->closed_at_end)
                row->n_closed_at_end++;
            if (!r->has_start || !r->has_end) {
                row->n_unpaired++;
                continue;
            }
            uint64_t p = gcstats_sub(r->end_ns, r->start_ns);
            pauses[n_p++] = p;
            row->elapsed_ns += p;
            if (r->has_request) {
                uint64_t stop = r->start_ns - r->request_ns;
                row->n_stop++;
                row->stop_ns += stop;
                if (stop > row->stop_max_ns)
                    row->stop_max_ns = stop;
            }
        }
        row->avg_pause_ns = row->colls ? row->elapsed_ns / row->colls : 0;
        qsort(pauses, n_p, sizeof *pauses, gcstats_cmp_u64);
        row->max_pause_ns = n_p ? pauses[n_p - 1] : 0;
        row->p50_ns = gcstats_rank(pauses, n_p, 50);
        row->p90_ns = gcstats_rank(pauses, n_p, 90);
        row->p99_ns = gcstats_rank(pauses, n_p, 99);
        out->n_gcs += row->colls;
    }
    x_free(pauses);

    for (size_t i = 0; i < g->n_gcs; i++) {
        const gc_rec *r = &g->gcs[i];
        if (r->gen >= GCSTATS_MAX_GENS) {
            out->n_gcs_bad_gen++;
            continue;
        }
        if (!gcstats_in(g, gcstats_key(r)))
            continue;
        out->bytes_copied += r->copied;
        if (r->gen == major) {
            out->residency_samples++;
            if (r->slop > out->max_slop)
                out->max_slop = r->slop;
        }
        if (r->par_threads > 1 && r->has_bal) {
            par_copied += r->copied;
            par_bal += r->par_bal;
        }
        if (!r->has_start || !r->has_end)
            continue;
        /* Insert into the top-N list (longest first; ties keep the earlier). */
        gcstats_pause p = { r->start_ns, gcstats_sub(r->end_ns, r->start_ns), r->gen, r->cap };
        unsigned pos = out->n_longest;
        while (pos > 0 && out->longest[pos - 1].pause_ns < p.pause_ns)
            pos--;
        if (pos >= GCSTATS_N_LONGEST)
            continue;
        unsigned last = out->n_longest < GCSTATS_N_LONGEST ? out->n_longest
                                                            : GCSTATS_N_LONGEST - 1;
        memmove(&out->longest[pos + 1], &out->longest[pos],
                (last - pos) * sizeof out->longest[0]);
        out->longest[pos] = p;
        if (out->n_longest < GCSTATS_N_LONGEST)
            out->n_longest++;
    }
    out->has_work_balance = par_copied > 0 && par_bal > 0;
    out->work_balance = par_copied ? (double)par_bal / (double)par_copied : 0.0;
}

static int
gcstats_cmp_pair(const void *a, const void *b)
{
    const task_ev *x = a, *y = b;
    if (x->task != y->task)
        return x->task < y->task ? -1 : 1;
    return (x->kernel_tid > y->kernel_tid) - (x->kernel_tid < y->kernel_tid);
}

/* Sort and deduplicate v[0..n); returns the new length. */
static size_t
gcstats_uniq(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, gcstats_cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (k == 0 || v[k - 1] != v[i])
            v[k++] = v[i];
    return k;
}

static bool
gcstats_has(const uint64_t *v, size_t n, uint64_t x)
{
    return bsearch(&x, v, n, sizeof *v, gcstats_cmp_u64) != NULL;
}

static bool
gcstats_is_worker(const gcstats *g, const task_ev *e)
{
    return !g->has_pid || e->kernel_tid != g->pid;
}

/* TASKS (§3): distinct (task, kernel thread), workers, peak live workers. */
static void
gcstats_finish_tasks(const gcstats *g, gcstats_report *out)
{
    size_t n = g->n_tasks;
    task_ev *pairs = xmalloc((n ? n : 1) * sizeof *pairs);
    uint64_t *ids = xmalloc((n ? n : 1) * sizeof *ids);
    size_t n_pairs = 0;
    for (size_t i = 0; i < n; i++) {
        ids[i] = g->tasks[i].task;
        if (g->tasks[i].create)
            pairs[n_pairs++] = g->tasks[i];
    }
    qsort(pairs, n_pairs, sizeof *pairs, gcstats_cmp_pair);
    uint64_t distinct = 0, workers = 0;
    for (size_t j = 0; j < n_pairs; j++) {
        if (j > 0 && gcstats_cmp_pair(&pairs[j - 1], &pairs[j]) == 0)
            continue;
        distinct++;
        if (gcstats_is_worker(g, &pairs[j]))
            workers++;
    }
    size_t n_ids = gcstats_uniq(ids, n);
    bool *alive = xcalloc(n_ids ? n_ids : 1, sizeof *alive);
    uint64_t n_alive = 0, peak = 0;
    /* Events are in time order; within one timestamp DELETEs go first. */
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && g->tasks[j].time_ns == g->tasks[i].time_ns)
            j++;
        for (int pass = 0; pass < 2; pass++) {
            for (size_t k = i; k < j; k++) {
                const task_ev *e = &g->tasks[k];
                if (e->create != (pass == 1))
                    continue;
                const uint64_t *hit = bsearch(&e->task, ids, n_ids, sizeof *ids,
                                              gcstats_cmp_u64);
                size_t slot = (size_t)(hit - ids);
                if (e->create && gcstats_is_worker(g, e) && !alive[slot]) {
                    alive[slot] = true;
                    n_alive++;
                } else if (!e->create && alive[slot]) {
                    alive[slot] = false;
                    n_alive--;
                }
                if (n_alive > peak)
                    peak = n_alive;
            }
        }
        i = j;
    }
    out->tasks_total = distinct + g->cycles_run;
    out->workers_total = workers;
    out->tasks_bound = out->tasks_total - workers;
    out->peak_workers = peak;
    x_free(alive);
    x_free(ids);
    x_free(pairs);
}

/* The main task's DELETE just before the outermost rts_lock at `b` (§4), else `b`. */
static uint64_t
gcstats_after_prev_delete(const gcstats *g, uint64_t b, uint64_t prev_b, bool has_prev_b,
                          const uint64_t *main_ids, size_t n_main)
{
    bool found = false;
    uint64_t d = 0;
    for (size_t i = 0; i < g->n_tasks && g->tasks[i].time_ns <= b; i++) {
        const task_ev *e = &g->tasks[i];
        if (!e->create && gcstats_has(main_ids, n_main, e->task)) {
            d = e->time_ns;
            found = true;
        }
    }
    if (found && (!has_prev_b || d > prev_b))
        return d;
    return b;
}

/* INIT/MUT/GC/EXIT/Total (§4), clipped to the window. `truncated`: the program
 * never reached hs_exit, so the last outermost call is hs_main's. */
static void
gcstats_finish_phases(gcstats *g, bool truncated, gcstats_report *out)
{
    /* Outermost rts_lock calls on the main OS thread: TASK_CREATE with kernel = pid. */
    uint64_t b[3] = { 0, 0, 0 };    /* the last three, oldest first */
    size_t n_b = 0;
    uint64_t *main_ids = xmalloc((g->n_tasks ? g->n_tasks : 1) * sizeof *main_ids);
    size_t n_main = 0;
    for (size_t i = 0; g->has_pid && i < g->n_tasks; i++) {
        const task_ev *e = &g->tasks[i];
        if (!e->create || e->kernel_tid != g->pid)
            continue;
        b[0] = b[1];
        b[1] = b[2];
        b[2] = e->time_ns;
        n_b++;
        main_ids[n_main++] = e->task;
    }
    n_main = gcstats_uniq(main_ids, n_main);
    uint64_t end_init = 0, start_exit = 0;
    bool has_init = true, has_exit = false;
    if (truncated && n_b >= 1) {
        /* No hs_exit call: the last one is hs_main, which ends INIT (§6). */
        end_init = gcstats_after_prev_delete(g, b[2], b[1], n_b >= 2, main_ids, n_main);
    } else if (n_b >= 2) {
        end_init = gcstats_after_prev_delete(g, b[1], b[0], n_b >= 3, main_ids, n_main);
        start_exit = gcstats_after_prev_delete(g, b[2], b[1], true, main_ids, n_main);
        has_exit = true;
    } else if (n_b == 1) {
        end_init = b[2];
    } else if (g->has_thread) {
        end_init = g->first_thread_ns;
    } else {
        has_init = false;           /* no scheduler events: INIT is not in the log */
    }
    x_free(main_ids);

    /* End of run: the earliest of the exit report's HEAP_ALLOCATED batch, i.e. the
     * per-cap last values posted after the last GC_STATS. */
    uint64_t last_stats = 0;
    bool any_stats = g->n_gcs > 0;
    for (size_t i = 0; i < g->n_gcs; i++)
        if (g->gcs[i].stats_ns > last_stats)
            last_stats = g->gcs[i].stats_ns;
    bool has_batch = false;
    uint64_t end = 0;
    /* A cut log has no exit report: values after its last GC_STATS are only a
     * capability's block flushed later than the one holding that GC_STATS. */
    for (size_t c = 0; !truncated && c <= g->n_caps_alloc; c++) {
        const cap_state *cs = c < g->n_caps_alloc ? &g->caps[c] : &g->nocap;
        if (!cs->has_alloc || (any_stats && cs->alloc_ns <= last_stats))
            continue;
        if (!has_batch || cs->alloc_ns < end)
            end = cs->alloc_ns;
        has_batch = true;
    }
    if (!has_batch) {
        /* The run ended normally but the batch is not logged (no class g): the
         * last event is a few us after the report; a cut log has no EXIT at all. */
        end = g->last_ns;
        if (truncated)
            has_exit = false;
    }
    if (has_exit && start_exit > end)
        has_exit = false;
    out->partial = truncated && !has_batch;
    out->end_is_last_event = !has_batch;
    out->end_init_ns = end_init;
    out->start_exit_ns = start_exit;
    out->has_init = has_init;
    out->has_exit = has_exit;

    uint64_t lo = g->win.from_ns, hi = g->win.to_ns < end ? g->win.to_ns : end;
    uint64_t mut_end = has_exit ? start_exit : end;
    uint64_t gc_all = 0, gc_mut = 0, gc_exit = 0;
    for (size_t i = 0; i < g->n_gcs; i++) {
        const gc_rec *r = &g->gcs[i];
        if (!r->has_start || !r->has_end)
            continue;
        uint64_t ov = gcstats_overlap(r->start_ns, r->end_ns, lo, hi);
        gc_all += ov;
        if (has_exit && r->start_ns >= start_exit)
            gc_exit += ov;
        else
            gc_mut += ov;
    }
    /* PROF = the censuses inside collections (§4). -hb writes its censuses at the
     * end of the run, so where they ran is not in the log. */
    out->prof_known = !g->prof_biography;
    out->prof_has_rp = g->prof_retainer;
    uint64_t prof = 0;
    for (size_t i = 0; g->profiled && out->prof_known && i < g->n_censuses; i++) {
        uint64_t a, z;
        if (gcstats_census_span(g, &g->censuses[i], &a, &z))
            prof += gcstats_overlap(a, z, lo, hi);
    }
    out->total_ns = hi > lo ? hi - lo : 0;
    out->init_ns = gcstats_overlap(0, end_init, lo, hi);
    out->mut_ns = gcstats_sub(gcstats_overlap(end_init, mut_end, lo, hi), gc_mut);
    out->exit_ns = has_exit ? gcstats_sub(gcstats_overlap(start_exit, end, lo, hi), gc_exit)
                            : 0;
    out->prof_ns = prof;
    out->gc_ns = gcstats_sub(gc_all, prof);
    if (out->total_ns) {
        double rest = (double)out->total_ns - (double)out->gc_ns - (double)out->init_ns -
                      (double)out->exit_ns;
        out->productivity = rest / (double)out->total_ns;
    }
    /* What the ratio lacks: INIT or EXIT (left in: too high), census time of -hb
     * (left in GC: too low), GC itself (unknown). A cut run has no EXIT to lack. */
    bool lacks_phase = !has_init || (!has_exit && !truncated);
    bool lacks_prof = g->profiled && !out->prof_known;
    if (!out->has_gc_events || !out->total_ns || (lacks_phase && lacks_prof))
        out->productivity_known = GCSTATS_UNKNOWN;
    else if (lacks_phase)
        out->productivity_known = GCSTATS_AT_MOST;
    else if (lacks_prof)
        out->productivity_known = GCSTATS_AT_LEAST;
    else
        out->productivity_known = GCSTATS_EXACT;
}

void
gcstats_finish(gcstats *g, bool truncated, gcstats_report *out)
{
    memset(out, 0, sizeof *out);
    /* A collection still waiting for its GC_END when the data stops ends there. */
    for (size_t i = 0; i < g->n_gcs; i++) {
        gc_rec *r = &g->gcs[i];
        if (r->has_start && !r->has_end) {
            r->has_end = true;
            r->closed_at_end = true;
            r->end_ns = g->last_ns > r->start_ns ? g->last_ns : r->start_ns;
        }
    }
    /* Collections with no GC_STATS: the last one cut by the end of the data, and
     * in a cut log those whose leader's buffer was never written. */
    out->n_gcs_cut = g->n_no_stats + (g->cluster_any && !g->cluster_has_stats);
    for (size_t c = 0; c <= g->n_caps_alloc; c++) {
        cap_state *cs = c < g->n_caps_alloc ? &g->caps[c] : &g->nocap;
        cs->pending = 0;
        if (cs->has_alloc)
            out->bytes_allocated += gcstats_sub(cs->alloc_cur, cs->alloc_base);
        if (cs->has_sparks) {
            out->has_sparks = true;
            out->sparks_created += cs->sparks[0] + cs->sparks[1] + cs->sparks[2];
            out->sparks_dud += cs->sparks[1];
            out->sparks_overflowed += cs->sparks[2];
            out->sparks_converted += cs->sparks[3];
            out->sparks_gcd += cs->sparks[4];
            out->sparks_fizzled += cs->sparks[5];
        }
    }
    if (!out->has_sparks && g->has_spark_events) {
        /* No counters (class p off) but per-spark events (§3, other rule). */
        const uint64_t *n = g->spark_events;
        out->has_sparks = out->sparks_from_events = true;
        out->sparks_created = n[SPK_CREATE] + n[SPK_DUD] + n[SPK_OVERFLOW];
        out->sparks_dud = n[SPK_DUD];
        out->sparks_overflowed = n[SPK_OVERFLOW];
        out->sparks_converted = n[SPK_RUN] + n[SPK_STEAL];
        out->sparks_gcd = n[SPK_GC];
        out->sparks_fizzled = n[SPK_FIZZLE];
    }
    out->has_gc_events = g->n_gcs > 0;
    out->threaded = g->has_version ? g->threaded_flavour : g->max_cap > 0;
    out->profiled = g->profiled;
    out->nonmoving = g->nonmoving;
    memcpy(out->rts_version, g->version, sizeof out->rts_version);
    out->n_caps = g->n_cap_create ? g->n_cap_create
                                  : (g->max_cap >= 0 ? (unsigned)g->max_cap + 1 : 1);
    out->window = g->win;
    out->windowed = g->win.from_ns != 0 || g->win.to_ns != UINT64_MAX;
    out->truncated = truncated;
    out->last_ns = g->last_ns;

    unsigned n_gens = g->n_gens;
    for (size_t i = 0; i < g->n_gcs; i++)
        if (g->gcs[i].gen < GCSTATS_MAX_GENS && g->gcs[i].gen + 1u > n_gens)
            n_gens = g->gcs[i].gen + 1u;
    out->n_gens = n_gens;
    gcstats_finish_gcs(g, out);

    out->max_residency = g->max_live;
    out->max_heap_bytes = g->max_heap;
    gcstats_finish_memory(g, out);

    /* A cycle still open at the end (stopped at exit, or the log is cut) ends at
     * its last concurrent event; restored after so finish can run again. */
    bool open = g->cycle_open;
    uint64_t cc = g->conc_cycles, cut = g->conc_cut, sum = g->conc_sum, cm = g->conc_max;
    gcstats_close_cycle(g, g->cycle_last_ns, true);
    out->conc_cycles_run = g->cycles_run;
    out->conc_cycles = g->conc_cycles;
    out->conc_cycles_cut = g->conc_cut;
    out->conc_wall_ns = g->conc_sum;
    out->conc_wall_max_ns = g->conc_max;
    g->cycle_open = open;
    g->conc_cycles = cc;
    g->conc_cut = cut;
    g->conc_sum = sum;
    g->conc_max = cm;
    out->sync_count = g->sync_count;
    out->sync_elapsed_ns = g->sync_sum;
    out->sync_max_ns = g->sync_max;
    out->has_sched = g->has_sched;
    out->has_tasks = g->n_tasks > 0;
    gcstats_finish_tasks(g, out);
    gcstats_finish_censuses(g, out);
    gcstats_finish_phases(g, truncated, out);
}
