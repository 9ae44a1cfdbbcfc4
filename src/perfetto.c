/* perfetto: Perfetto protobuf writer (include/perfetto.h). Field numbers are those of
 * perfetto's protos/perfetto/trace/{trace_packet,track_event/...}.proto. Each capability's
 * track merges three time-sorted streams (runs, collection parts, GC phases) with a stack
 * of open slices, so BEGIN/END pairs nest whatever the streams hold. */
#include "perfetto.h"

#include "stopstatus.h"
#include "xalloc.h"

#define PF_FLUSH_BYTES (64u * 1024u)
#define PF_MAX_DEPTH 8

/* Protobuf wire types and the fields written. */
enum { PB_VARINT = 0, PB_LEN = 2 };
enum {
    F_TRACE_PACKET = 1,
    F_PACKET_TIMESTAMP = 8, F_PACKET_SEQ_ID = 10, F_PACKET_TRACK_EVENT = 11,
    F_PACKET_SEQ_FLAGS = 13, F_PACKET_TRACK_DESCRIPTOR = 60,
    F_TD_UUID = 1, F_TD_NAME = 2, F_TD_PROCESS = 3, F_TD_PARENT = 5, F_TD_COUNTER = 8,
    F_TD_CHILD_ORDERING = 11, F_TD_SIBLING_RANK = 12,
    F_PD_PID = 1, F_PD_NAME = 6,
    F_CD_UNIT = 3, F_CD_UNIT_NAME = 6,
    F_TE_ANNOTATION = 4, F_TE_TYPE = 9, F_TE_TRACK = 11, F_TE_CATEGORY = 22, F_TE_NAME = 23,
    F_TE_COUNTER_VALUE = 30,
    F_DA_UINT = 3, F_DA_STRING = 6, F_DA_NAME = 10,
};
enum { TE_SLICE_BEGIN = 1, TE_SLICE_END = 2, TE_INSTANT = 3, TE_COUNTER = 4 };
enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, CHILD_ORDERING_EXPLICIT = 3 };
enum { UNIT_COUNT = 2, UNIT_SIZE_BYTES = 3 };

/* Track uuids: the log's process track is pid << 32; its other tracks add a slot
 * (capability c: c + 1; events outside capabilities: 0x10000 + 1 ...). */
#define PF_SLOT_GLOBAL 0x10001u
#define PF_SLOT_NONMOVING 0x10002u
#define PF_SLOT_MARKERS 0x10003u
#define PF_SLOT_COUNTER 0x10010u

struct perfetto {
    FILE *out;                  /* borrowed */
    strbuf buf;                 /* pending output */
    strbuf pkt, msg, sub;       /* scratch: a packet, its message, a nested message */
    bool first;                 /* the next packet is the first: it clears the state */
    bool ok;
};

/* --- protobuf encoding ---------------------------------------------------------------- */

static void
pb_varint(strbuf *sb, uint64_t v)
{
    char b[10];
    size_t n = 0;
    do {
        b[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    strbuf_append(sb, b, n);
}

static void
pb_u64(strbuf *sb, unsigned field, uint64_t v)
{
    pb_varint(sb, (uint64_t)field << 3 | PB_VARINT);
    pb_varint(sb, v);
}

static void
pb_bytes(strbuf *sb, unsigned field, const void *p, size_t len)
{
    pb_varint(sb, (uint64_t)field << 3 | PB_LEN);
    pb_varint(sb, len);
    strbuf_append(sb, p, len);
}

static void
pb_str(strbuf *sb, unsigned field, const char *s)
{
    pb_bytes(sb, field, s, strlen(s));
}

/* Untrusted text as a string field: bytes that are not UTF-8 become U+FFFD. */
static void
pb_text(strbuf *sb, unsigned field, const uint8_t *text, size_t len, strbuf *scratch)
{
    strbuf_reset(scratch);
    export_utf8_clean(scratch, text, len);
    pb_bytes(sb, field, scratch->data ? scratch->data : "", scratch->len);
}

/* --- packets -------------------------------------------------------------------------- */

perfetto *
perfetto_new(FILE *out)
{
    perfetto *w = xcalloc(1, sizeof *w);    /* freed by perfetto_finish */
    w->out = out;
    w->first = true;
    w->ok = true;
    strbuf_init(&w->buf);
    strbuf_init(&w->pkt);
    strbuf_init(&w->msg);
    strbuf_init(&w->sub);
    strbuf_reserve(&w->buf, PF_FLUSH_BYTES + 4096);
    return w;
}

static void
pf_flush(perfetto *w)
{
    if (w->buf.len && fwrite(w->buf.data, 1, w->buf.len, w->out) != w->buf.len)
        w->ok = false;
    strbuf_reset(&w->buf);
}

bool
perfetto_finish(perfetto *w)
{
    pf_flush(w);
    if (fflush(w->out) != 0 || ferror(w->out))
        w->ok = false;
    bool ok = w->ok;
    strbuf_free(&w->buf);
    strbuf_free(&w->pkt);
    strbuf_free(&w->msg);
    strbuf_free(&w->sub);
    x_free(w);
    return ok;
}

/* Wrap w->msg as field `field` of a packet (with `ts` unless it is UINT64_MAX) and
 * append the packet to the output. */
static void
pf_packet(perfetto *w, unsigned field, uint64_t ts)
{
    strbuf_reset(&w->pkt);
    if (ts != UINT64_MAX)
        pb_u64(&w->pkt, F_PACKET_TIMESTAMP, ts);
    pb_u64(&w->pkt, F_PACKET_SEQ_ID, 1);
    if (w->first) {
        pb_u64(&w->pkt, F_PACKET_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
        w->first = false;
    }
    pb_bytes(&w->pkt, field, w->msg.data, w->msg.len);
    pb_bytes(&w->buf, F_TRACE_PACKET, w->pkt.data, w->pkt.len);
    if (w->buf.len >= PF_FLUSH_BYTES)
        pf_flush(w);
}

/* A named track under `parent` (0: none), ranked among its siblings. */
static void
pf_track(perfetto *w, uint64_t uuid, uint64_t parent, const char *name, int rank)
{
    strbuf_reset(&w->msg);
    pb_u64(&w->msg, F_TD_UUID, uuid);
    pb_str(&w->msg, F_TD_NAME, name);
    if (parent)
        pb_u64(&w->msg, F_TD_PARENT, parent);
    if (rank >= 0)
        pb_u64(&w->msg, F_TD_SIBLING_RANK, (uint64_t)rank);
    pf_packet(w, F_PACKET_TRACK_DESCRIPTOR, UINT64_MAX);
}

/* Start a TrackEvent of `type` on `track` in w->msg; name and annotations follow. */
static void
pf_event_head(perfetto *w, int type, uint64_t track, const char *cat)
{
    strbuf_reset(&w->msg);
    pb_u64(&w->msg, F_TE_TYPE, (uint64_t)type);
    pb_u64(&w->msg, F_TE_TRACK, track);
    if (cat)
        pb_str(&w->msg, F_TE_CATEGORY, cat);
}

/* A debug annotation `name` = v on the event in w->msg. */
static void
pf_arg_u64(perfetto *w, const char *name, uint64_t v)
{
    strbuf_reset(&w->sub);
    pb_str(&w->sub, F_DA_NAME, name);
    pb_u64(&w->sub, F_DA_UINT, v);
    pb_bytes(&w->msg, F_TE_ANNOTATION, w->sub.data, w->sub.len);
}

static void
pf_arg_str(perfetto *w, const char *name, const char *v)
{
    strbuf_reset(&w->sub);
    pb_str(&w->sub, F_DA_NAME, name);
    pb_str(&w->sub, F_DA_STRING, v);
    pb_bytes(&w->msg, F_TE_ANNOTATION, w->sub.data, w->sub.len);
}

static void
pf_end(perfetto *w, uint64_t track, uint64_t ts)
{
    pf_event_head(w, TE_SLICE_END, track, NULL);
    pf_packet(w, F_PACKET_TRACK_EVENT, ts);
}

/* --- one log ---------------------------------------------------------------------------- */

typedef struct pf_ctx {
    perfetto *w;
    const evindex *ix;
    const export_opts *o;
    export_counts *c;
    stopstatus_era era;         /* how the log numbers stop statuses */
    uint64_t base;              /* the process track's uuid */
    strbuf text;                /* scratch for cleaned text */
} pf_ctx;

/* The kinds of interval on a track; on equal start and end the lower kind is the
 * parent. */
enum { PF_PART, PF_PHASE, PF_RUN, PF_CYCLE, PF_NM_PHASE, PF_MSG };

typedef struct pf_iv {
    uint64_t start_ns, end_ns;
    int kind;
    size_t idx;                 /* run / interval / collection / cycle index */
    uint32_t part;              /* PF_PART: the part's index */
    const void *src;            /* PF_RUN: the runlane; PF_PHASE, PF_NM_PHASE: the ivtrack */
} pf_iv;

/* A time-sorted stream of intervals of one kind. */
typedef struct pf_stream {
    bool (*next)(pf_ctx *x, struct pf_stream *st, pf_iv *iv);
    int kind;
    const void *src;            /* runlane / ivtrack of the stream */
    uint16_t cap;               /* PF_PART: whose parts */
    size_t i, n;
} pf_stream;

static bool
pf_overlaps(const export_opts *o, uint64_t start_ns, uint64_t end_ns)
{
    return start_ns < o->to_ns && (end_ns > o->from_ns || start_ns >= o->from_ns);
}

static bool
pf_next_run(pf_ctx *x, pf_stream *st, pf_iv *iv)
{
    for (; st->i < st->n; st->i++) {
        runlane_run r;
        runlane_get(st->src, st->i, &r);
        if (r.start_ns >= x->o->to_ns)
            break;
        if (pf_overlaps(x->o, r.start_ns, r.end_ns)) {
            *iv = (pf_iv){ r.start_ns, r.end_ns, PF_RUN, st->i++, 0, st->src };
            return true;
        }
    }
    return false;
}

/* Intervals of an ivtrack (GC phases, non-moving phases). */
static bool
pf_next_track(pf_ctx *x, pf_stream *st, pf_iv *iv)
{
    for (; st->i < st->n; st->i++) {
        ivtrack_iv t_buf;
        const ivtrack_iv *t = ivtrack_get(st->src, st->i, &t_buf);
        if (t->start_ns >= x->o->to_ns)
            break;
        if (pf_overlaps(x->o, t->start_ns, t->end_ns)) {
            *iv = (pf_iv){ t->start_ns, t->end_ns, st->kind, st->i++, 0, st->src };
            return true;
        }
    }
    return false;
}

/* This capability's part of each collection, in collection order. */
static bool
pf_next_part(pf_ctx *x, pf_stream *st, pf_iv *iv)
{
    for (; st->i < st->n; st->i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(x->ix, st->i, &g_buf);
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(x->ix, g->first_part + k, &p_buf);
            if (p->cap != st->cap || p->start_ns >= x->o->to_ns ||
                !pf_overlaps(x->o, p->start_ns, p->end_ns))
                continue;
            *iv = (pf_iv){ p->start_ns, p->end_ns, PF_PART, st->i++, g->first_part + k, NULL };
            return true;
        }
    }
    return false;
}

static bool
pf_next_cycle(pf_ctx *x, pf_stream *st, pf_iv *iv)
{
    for (; st->i < st->n; st->i++) {
        const evindex_nm_cycle *cy = evindex_nm_cycle_at(x->ix, st->i);
        if (cy->start_ns >= x->o->to_ns)
            break;
        if (pf_overlaps(x->o, cy->start_ns, cy->end_ns)) {
            *iv = (pf_iv){ cy->start_ns, cy->end_ns, PF_CYCLE, st->i++, 0, NULL };
            return true;
        }
    }
    return false;
}

/* The messages (not markers) of capability st->cap in the window, as instants. */
static bool
pf_next_msg(pf_ctx *x, pf_stream *st, pf_iv *iv)
{
    for (; st->i < st->n; st->i++) {
        const evindex_msg m_v = evindex_msg_at(x->ix, st->i), *m = &m_v;
        if (m->time_ns >= x->o->to_ns)
            break;
        if (m->cap == st->cap && m->kind != EVINDEX_MSG_MARKER && m->kind <= EVINDEX_MSG_BINARY) {
            *iv = (pf_iv){ m->time_ns, m->time_ns, PF_MSG, st->i++, 0, NULL };
            return true;
        }
    }
    return false;
}

/* Index of the first message at or after t (they are in time order). */
static size_t
pf_first_msg(const evindex *ix, uint64_t t)
{
    size_t lo = 0, hi = evindex_n_msgs(ix);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (evindex_msg_at(ix, mid).time_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void pf_instant(pf_ctx *x, const evindex_msg *m, uint64_t track);

/* The BEGIN of one interval: name, category, arguments; counted. */
static void
pf_begin(pf_ctx *x, uint64_t track, const pf_iv *iv)
{
    perfetto *w = x->w;
    char name[64];
    switch (iv->kind) {
    case PF_RUN: {
        runlane_run r;
        runlane_get(iv->src, iv->idx, &r);
        pf_event_head(w, TE_SLICE_BEGIN, track, "run");
        threadtab_thread th_v;
        const threadtab_thread *th = threadtab_find(evindex_threads(x->ix), r.tid, &th_v) ? &th_v : NULL;
        const uint8_t *label;
        size_t len;
        if (th && evindex_thread_label(x->ix, th, &label, &len) && len > 0) {
            pb_text(&w->msg, F_TE_NAME, label, len, &x->text);
        } else {
            snprintf(name, sizeof name, "thread %u", (unsigned)r.tid);
            pb_str(&w->msg, F_TE_NAME, name);
        }
        pf_arg_u64(w, "thread", r.tid);
        pf_arg_str(w, "stop", r.flags & RUNLANE_F_OPEN
                                  ? "unknown (log ended)"
                                  : threadtab_stop_class_name(stopstatus_class(x->era, r.stop)));
        pf_arg_u64(w, "status", r.stop);
        x->c->runs++;
        break;
    }
    case PF_PART: {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(x->ix, iv->idx, &g_buf);
        evindex_gc_part p_buf;
        const evindex_gc_part *p = evindex_gc_part_get(x->ix, iv->part, &p_buf);
        pf_event_head(w, TE_SLICE_BEGIN, track, "gc");
        if (g->gen == EVINDEX_GEN_UNKNOWN)
            snprintf(name, sizeof name, "GC");
        else
            snprintf(name, sizeof name, "GC gen %u", (unsigned)g->gen);
        pb_str(&w->msg, F_TE_NAME, name);
        pf_arg_u64(w, "gc", iv->idx);
        pf_arg_u64(w, "pause_ns", g->end_ns - g->start_ns);
        pf_arg_u64(w, "work_ns", p->work_ns);
        pf_arg_u64(w, "wait_ns", p->wait_ns);
        if (g->stopping_ns != EVINDEX_NO_TIME)
            pf_arg_u64(w, "time_to_stop_ns", g->stopping_ns);
        if (!(g->flags & EVINDEX_GC_F_NO_STATS))
            pf_arg_u64(w, "copied_bytes", g->copied);
        if (g->leader_cap != EVINDEX_NO_CAP)
            pf_arg_u64(w, "leader_cap", g->leader_cap);
        x->c->gc_parts++;
        break;
    }
    case PF_PHASE:
    case PF_NM_PHASE: {
        static const char *const gc_names[] = { "GC work", "GC waiting" };
        static const char *const nm_names[] = { "concurrent mark", "post-mark sync",
                                                "concurrent sweep" };
        ivtrack_iv t_buf;
        const ivtrack_iv *t = ivtrack_get(iv->src, iv->idx, &t_buf);
        bool nm = iv->kind == PF_NM_PHASE;
        pf_event_head(w, TE_SLICE_BEGIN, track, nm ? "nonmoving" : "gc");
        pb_str(&w->msg, F_TE_NAME, nm ? (t->kind < 3 ? nm_names[t->kind] : "non-moving")
                                      : (t->kind < 2 ? gc_names[t->kind] : "GC"));
        if (t->ref != UINT32_MAX)
            pf_arg_u64(w, nm ? "cycle" : "gc", t->ref);
        if (nm)
            x->c->nm_phases++;
        else
            x->c->gc_phases++;
        break;
    }
    default: {
        const evindex_nm_cycle *cy = evindex_nm_cycle_at(x->ix, iv->idx);
        pf_event_head(w, TE_SLICE_BEGIN, track, "nonmoving");
        pb_str(&w->msg, F_TE_NAME, "non-moving cycle");
        pf_arg_u64(w, "cycle", iv->idx);
        pf_arg_u64(w, "marks", cy->n_marks);
        pf_arg_u64(w, "marked_objects", cy->marked_objects);
        x->c->nm_cycles++;
        break;
    }
    }
    pf_packet(w, F_PACKET_TRACK_EVENT, iv->start_ns);
}

/* a before b on a track: earlier start, then longer, then parent kind first. */
static bool
pf_iv_before(const pf_iv *a, const pf_iv *b)
{
    if (a->start_ns != b->start_ns)
        return a->start_ns < b->start_ns;
    if (a->end_ns != b->end_ns)
        return a->end_ns > b->end_ns;
    return a->kind < b->kind;
}

/* Merge the streams onto `track`: BEGIN each interval after ending every open one that
 * ends by its start; an interval that would outlast its parent is cut at the parent's
 * end (none does in any fixture: tests/test_export.c checks nesting). */
static void
pf_merge(pf_ctx *x, uint64_t track, pf_stream *st, size_t n_st)
{
    pf_iv head[5];
    bool has[5];
    for (size_t k = 0; k < n_st; k++)
        has[k] = st[k].next(x, &st[k], &head[k]);
    uint64_t open_end[PF_MAX_DEPTH];
    size_t depth = 0;
    for (;;) {
        size_t best = n_st;
        for (size_t k = 0; k < n_st; k++)
            if (has[k] && (best == n_st || pf_iv_before(&head[k], &head[best])))
                best = k;
        if (best == n_st)
            break;
        pf_iv iv = head[best];
        has[best] = st[best].next(x, &st[best], &head[best]);
        while (depth > 0 && open_end[depth - 1] <= iv.start_ns)
            pf_end(x->w, track, open_end[--depth]);
        if (iv.kind == PF_MSG) {
            const evindex_msg m = evindex_msg_at(x->ix, iv.idx);
            pf_instant(x, &m, track);
            continue;
        }
        if (depth > 0 && iv.end_ns > open_end[depth - 1])
            iv.end_ns = open_end[depth - 1];
        if (depth == PF_MAX_DEPTH)     /* cannot happen: each stream is disjoint */
            pf_end(x->w, track, open_end[--depth]);
        pf_begin(x, track, &iv);
        open_end[depth++] = iv.end_ns;
    }
    while (depth > 0)
        pf_end(x->w, track, open_end[--depth]);
}

static uint64_t
pf_cap_track(const pf_ctx *x, uint16_t cap)
{
    return x->base + (cap == EVINDEX_NO_CAP ? PF_SLOT_GLOBAL : (uint64_t)cap + 1);
}

/* A marker or message as an instant on `track`, named by its text; counted. */
static void
pf_instant(pf_ctx *x, const evindex_msg *m, uint64_t track)
{
    static const char *const cats[] = { [EVINDEX_MSG_MARKER] = "marker",
                                        [EVINDEX_MSG_USER] = "message",
                                        [EVINDEX_MSG_LOG] = "rts log",
                                        [EVINDEX_MSG_BINARY] = "binary message" };
    perfetto *w = x->w;
    pf_event_head(w, TE_INSTANT, track, m->kind <= EVINDEX_MSG_BINARY ? cats[m->kind] : "");
    const uint8_t *text;
    size_t len;
    bool has = evindex_msg_text(x->ix, m, &text, &len);
    if (m->kind == EVINDEX_MSG_BINARY) {
        char name[64];
        snprintf(name, sizeof name, "binary message (%zu bytes)", has ? len : (size_t)0);
        pb_str(&w->msg, F_TE_NAME, name);
    } else {
        pb_text(&w->msg, F_TE_NAME, has ? text : (const uint8_t *)"", has ? len : 0, &x->text);
    }
    if (m->cap != EVINDEX_NO_CAP)
        pf_arg_u64(w, "cap", m->cap);
    pf_packet(w, F_PACKET_TRACK_EVENT, m->time_ns);
    if (m->kind == EVINDEX_MSG_MARKER)
        x->c->markers++;
    else
        x->c->messages++;
}

/* Markers on their track; messages of capabilities without a lane (their lanes'
 * messages were merged into the lanes) on a "global" track. */
static void
pf_messages(pf_ctx *x, bool *global_named, int *rank)
{
    size_t n = evindex_n_markers(x->ix);
    if (n)
        pf_track(x->w, x->base + PF_SLOT_MARKERS, x->base, "markers", (*rank)++);
    for (size_t i = evindex_marker_first_from(x->ix, x->o->from_ns); i < n; i++) {
        const evindex_msg m_v = evindex_marker_at(x->ix, i), *m = &m_v;
        if (m->time_ns >= x->o->to_ns)
            break;
        pf_instant(x, m, x->base + PF_SLOT_MARKERS);
    }
    for (size_t i = pf_first_msg(x->ix, x->o->from_ns); i < evindex_n_msgs(x->ix); i++) {
        const evindex_msg m_v = evindex_msg_at(x->ix, i), *m = &m_v;
        if (m->time_ns >= x->o->to_ns)
            break;
        if (m->kind == EVINDEX_MSG_MARKER || m->kind > EVINDEX_MSG_BINARY ||
            evindex_lane_of(x->ix, m->cap) != SIZE_MAX)
            continue;
        if (!*global_named) {
            pf_track(x->w, x->base + PF_SLOT_GLOBAL, x->base, "global", (*rank)++);
            *global_named = true;
        }
        pf_instant(x, m, x->base + PF_SLOT_GLOBAL);
    }
}

static void
pf_counters(pf_ctx *x, int *rank)
{
    static const struct {
        enum evindex_series_id id;
        const char *name;
        int unit;
    } counters[] = {
        { EVINDEX_S_HEAP_SIZE, "heap size", UNIT_SIZE_BYTES },
        { EVINDEX_S_HEAP_LIVE, "live bytes", UNIT_SIZE_BYTES },
        { EVINDEX_S_SPARK_POOL, "spark pool", UNIT_COUNT },
        { EVINDEX_S_SPARKS_CREATED, "sparks created", UNIT_COUNT },
        { EVINDEX_S_SPARKS_CONVERTED, "sparks converted", UNIT_COUNT },
    };
    perfetto *w = x->w;
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        const series *s = evindex_series(x->ix, counters[k].id);
        size_t n = series_count(s);
        if (n == 0)
            continue;
        uint64_t track = x->base + PF_SLOT_COUNTER + k;
        strbuf_reset(&w->msg);
        pb_u64(&w->msg, F_TD_UUID, track);
        pb_str(&w->msg, F_TD_NAME, counters[k].name);
        pb_u64(&w->msg, F_TD_PARENT, x->base);
        pb_u64(&w->msg, F_TD_SIBLING_RANK, (uint64_t)(*rank)++);
        strbuf_reset(&w->sub);
        pb_u64(&w->sub, F_CD_UNIT, (uint64_t)counters[k].unit);
        if (counters[k].unit == UNIT_COUNT)
            pb_str(&w->sub, F_CD_UNIT_NAME, "sparks");
        pb_bytes(&w->msg, F_TD_COUNTER, w->sub.data, w->sub.len);
        pf_packet(w, F_PACKET_TRACK_DESCRIPTOR, UINT64_MAX);
        size_t i = series_at(s, x->o->from_ns);
        if (i == SIZE_MAX)
            i = 0;
        for (; i < n; i++) {
            series_sample smp = series_get(s, i);
            if (smp.time_ns >= x->o->to_ns)
                break;
            pf_event_head(w, TE_COUNTER, track, NULL);
            pb_u64(&w->msg, F_TE_COUNTER_VALUE, smp.value);
            pf_packet(w, F_PACKET_TRACK_EVENT, smp.time_ns);
            x->c->counter_samples++;
        }
    }
}

void
perfetto_add(perfetto *w, const evindex *ix, const export_opts *o, export_counts *counts)
{
    export_counts local;
    pf_ctx x = { .w = w, .ix = ix, .o = o, .c = counts ? counts : &local,
                 .base = (uint64_t)o->pid << 32,
                 .era = stopstatus_era_of(evindex_log(ix)) };
    memset(x.c, 0, sizeof *x.c);
    strbuf_init(&x.text);
    /* The process track. */
    strbuf_reset(&w->msg);
    pb_u64(&w->msg, F_TD_UUID, x.base);
    strbuf_reset(&w->sub);
    pb_u64(&w->sub, F_PD_PID, o->pid);
    pb_text(&w->sub, F_PD_NAME, (const uint8_t *)o->name, strlen(o->name), &x.text);
    pb_bytes(&w->msg, F_TD_PROCESS, w->sub.data, w->sub.len);
    pb_u64(&w->msg, F_TD_CHILD_ORDERING, CHILD_ORDERING_EXPLICIT);
    pf_packet(w, F_PACKET_TRACK_DESCRIPTOR, UINT64_MAX);

    int rank = 0;
    bool global_named = false;
    size_t first_gc = evindex_gc_first_from(ix, o->from_ns);
    if (first_gc > 0 && first_gc <= evindex_n_gcs(ix))
        first_gc--;     /* the one before may still be running at from_ns */
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        const evindex_cap *cap = evindex_cap_at(ix, i);
        char name[16];
        if (cap->cap == EVINDEX_NO_CAP) {
            snprintf(name, sizeof name, "global");
            global_named = true;
        } else {
            snprintf(name, sizeof name, "HEC %u", (unsigned)cap->cap);
        }
        uint64_t track = pf_cap_track(&x, cap->cap);
        pf_track(w, track, x.base, name, rank++);
        pf_stream st[4] = {
            { pf_next_part, PF_PART, NULL, cap->cap, first_gc, evindex_n_gcs(ix) },
            { pf_next_track, PF_PHASE, cap->gc, cap->cap,
              ivtrack_first_after(cap->gc, o->from_ns), ivtrack_count(cap->gc) },
            { pf_next_run, PF_RUN, cap->runs, cap->cap,
              runlane_first_after(cap->runs, o->from_ns), runlane_count(cap->runs) },
            { pf_next_msg, PF_MSG, NULL, cap->cap, pf_first_msg(ix, o->from_ns),
              evindex_n_msgs(ix) },
        };
        pf_merge(&x, track, st, 4);
    }
    /* Collections counted once, however many capabilities took part. */
    for (size_t i = first_gc; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
            if (p->start_ns < o->to_ns && pf_overlaps(o, p->start_ns, p->end_ns)) {
                x.c->gcs++;
                break;
            }
        }
    }
    const ivtrack *nm = evindex_nm_track(ix);
    if (evindex_n_nm_cycles(ix) || ivtrack_count(nm)) {
        uint64_t track = x.base + PF_SLOT_NONMOVING;
        pf_track(w, track, x.base, "non-moving GC", rank++);
        pf_stream st[2] = {
            { pf_next_cycle, PF_CYCLE, NULL, EVINDEX_NO_CAP, 0, evindex_n_nm_cycles(ix) },
            { pf_next_track, PF_NM_PHASE, nm, EVINDEX_NO_CAP, ivtrack_first_after(nm, o->from_ns),
              ivtrack_count(nm) },
        };
        pf_merge(&x, track, st, 2);
    }
    pf_messages(&x, &global_named, &rank);
    pf_counters(&x, &rank);
    strbuf_free(&x.text);
}
