/* export: writes the timeline index as Chrome Trace Event Format JSON (include/export.h),
 * event by event through one buffer flushed every EXPORT_FLUSH_BYTES. */
#include "export.h"

#include "stopstatus.h"
#include "xalloc.h"

#define EXPORT_FLUSH_BYTES (64u * 1024u)

/* Track numbers inside a process: capability c is c + 1 (the events outside any
 * capability, lane "global", are 0); the rest sit above every 16-bit capability. Each
 * process's tracks are offset by pid * EXPORT_TID_STRIDE, so tids are unique across
 * the trace (Perfetto keys threads by tid). */
#define EXPORT_TID_STRIDE 100000u
#define EXPORT_SLOT_NONMOVING 70000u
#define EXPORT_SLOT_MARKERS 70001u

struct export_chrome {
    FILE *out;                  /* borrowed */
    strbuf sb;                  /* pending output, flushed at EXPORT_FLUSH_BYTES */
    bool first;                 /* no event written yet (no comma before the next) */
    bool ok;                    /* every write so far succeeded */
};

static void
export_flush(export_chrome *w)
{
    if (w->sb.len && fwrite(w->sb.data, 1, w->sb.len, w->out) != w->sb.len)
        w->ok = false;
    strbuf_reset(&w->sb);
}

export_chrome *
export_chrome_new(FILE *out)
{
    export_chrome *w = xcalloc(1, sizeof *w);   /* freed by export_chrome_finish */
    w->out = out;
    w->first = true;
    w->ok = true;
    strbuf_init(&w->sb);
    strbuf_reserve(&w->sb, EXPORT_FLUSH_BYTES + 4096);
    /* No "displayTimeUnit": some Perfetto versions read "ns" there as the unit of ts. */
    strbuf_puts(&w->sb, "{\"otherData\":{\"generator\":\"elog-tui "
                "export\",\"clock\":\"the log's own: ts and dur are microseconds since the "
                "RTS started\"},\n\"traceEvents\":[\n");
    return w;
}

bool
export_chrome_finish(export_chrome *w)
{
    strbuf_puts(&w->sb, "\n]}\n");
    export_flush(w);
    if (fflush(w->out) != 0 || ferror(w->out))
        w->ok = false;
    bool ok = w->ok;
    strbuf_free(&w->sb);
    x_free(w);
    return ok;
}

/* --- JSON pieces ------------------------------------------------------------------------ */

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 if it is not one. */
static size_t
export_utf8_len(const uint8_t *p, size_t n)
{
    uint8_t c = p[0];
    size_t want;
    uint32_t min;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c < 0xe0) {
        want = 2;
        min = 0x80;
    } else if (c >= 0xe0 && c < 0xf0) {
        want = 3;
        min = 0x800;
    } else if (c >= 0xf0 && c < 0xf5) {
        want = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < want)
        return 0;
    uint32_t cp = c & (0x7fu >> want);
    for (size_t i = 1; i < want; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
        return 0;
    return want;
}

void
export_json_string(strbuf *sb, const uint8_t *text, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;
    while (i < len) {
        uint8_t c = text[i];
        if (c == '"' || c == '\\') {
            strbuf_putc(sb, '\\');
            strbuf_putc(sb, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            char esc[7] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15], 0 };
            strbuf_append(sb, esc, 6);
            i++;
        } else {
            size_t n = export_utf8_len(text + i, len - i);
            if (n == 0) {
                strbuf_puts(sb, "\xef\xbf\xbd");    /* U+FFFD for the stray byte */
                i++;
            } else {
                strbuf_append(sb, text + i, n);
                i += n;
            }
        }
    }
}

void
export_utf8_clean(strbuf *sb, const uint8_t *text, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t n = export_utf8_len(text + i, len - i);
        if (n == 0) {
            strbuf_puts(sb, "\xef\xbf\xbd");
            i++;
        } else {
            strbuf_append(sb, text + i, n);
            i += n;
        }
    }
}

static void
export_cstr(strbuf *sb, const char *s)
{
    export_json_string(sb, (const uint8_t *)s, strlen(s));
}

/* ns as µs with exactly three decimals: no rounding, no precision lost. */
static void
export_us(strbuf *sb, uint64_t ns)
{
    strbuf_u64(sb, ns / 1000);
    char frac[5] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
                     (char)('0' + ns % 10), 0 };
    strbuf_append(sb, frac, 4);
}

/* Start one event object: separator, then {"ph":PH,"pid":P[,"tid":T]. */
static void
export_open(export_chrome *w, const char *ph, unsigned pid, const unsigned *tid)
{
    if (w->sb.len >= EXPORT_FLUSH_BYTES)
        export_flush(w);
    if (!w->first)
        strbuf_puts(&w->sb, ",\n");
    w->first = false;
    strbuf_printf(&w->sb, "{\"ph\":\"%s\",\"pid\":%u", ph, pid);
    if (tid)
        strbuf_printf(&w->sb, ",\"tid\":%u", *tid);
}

/* A metadata record naming (or ordering) a process or a track. */
static void
export_meta(export_chrome *w, unsigned pid, const unsigned *tid, const char *what,
            const char *name, int sort_index)
{
    export_open(w, "M", pid, tid);
    strbuf_printf(&w->sb, ",\"name\":\"%s\",\"args\":{", what);
    if (name) {
        strbuf_puts(&w->sb, "\"name\":\"");
        export_cstr(&w->sb, name);
        strbuf_puts(&w->sb, "\"}}");
    } else {
        strbuf_printf(&w->sb, "\"sort_index\":%d}}", sort_index);
    }
}

/* The head of a complete ("X") slice up to its name's opening quote. */
static void
export_slice_head(export_chrome *w, unsigned pid, unsigned tid, const char *cat,
                  uint64_t start_ns, uint64_t end_ns)
{
    export_open(w, "X", pid, &tid);
    strbuf_printf(&w->sb, ",\"cat\":\"%s\",\"ts\":", cat);
    export_us(&w->sb, start_ns);
    strbuf_puts(&w->sb, ",\"dur\":");
    export_us(&w->sb, end_ns >= start_ns ? end_ns - start_ns : 0);
    strbuf_puts(&w->sb, ",\"name\":\"");
}

/* --- one log ------------------------------------------------------------------------------ */

typedef struct export_ctx {
    export_chrome *w;
    const evindex *ix;
    const export_opts *o;
    export_counts *c;
    stopstatus_era era;         /* how the log numbers stop statuses */
    unsigned base;              /* pid * EXPORT_TID_STRIDE */
    bool global_named;          /* the track of events outside capabilities has a name */
} export_ctx;

static bool
export_overlaps(const export_opts *o, uint64_t start_ns, uint64_t end_ns)
{
    return start_ns < o->to_ns && (end_ns > o->from_ns || start_ns >= o->from_ns);
}

static unsigned
export_cap_tid(const export_ctx *x, uint16_t cap)
{
    return x->base + (cap == EVINDEX_NO_CAP ? 0u : (unsigned)cap + 1u);
}

static void
export_runs(export_ctx *x, const evindex_cap *cap)
{
    const threadtab *tt = evindex_threads(x->ix);
    unsigned tid = export_cap_tid(x, cap->cap);
    size_t n = runlane_count(cap->runs);
    runlane_seq seq = { 0 };
    for (size_t i = runlane_first_after(cap->runs, x->o->from_ns); i < n; i++) {
        runlane_run r;
        runlane_get_seq(cap->runs, i, &r, &seq);
        if (r.start_ns >= x->o->to_ns)
            break;
        if (!export_overlaps(x->o, r.start_ns, r.end_ns))
            continue;
        export_slice_head(x->w, x->o->pid, tid, "run", r.start_ns, r.end_ns);
        threadtab_thread th_v;
        const threadtab_thread *th = threadtab_find(tt, r.tid, &th_v) ? &th_v : NULL;
        const uint8_t *label;
        size_t len;
        if (th && evindex_thread_label(x->ix, th, &label, &len) && len > 0)
            export_json_string(&x->w->sb, label, len);
        else
            strbuf_printf(&x->w->sb, "thread %u", (unsigned)r.tid);
        const char *stop = r.flags & RUNLANE_F_OPEN
                               ? "unknown (log ended)"
                               : threadtab_stop_class_name(stopstatus_class(x->era, r.stop));
        strbuf_printf(&x->w->sb, "\",\"args\":{\"thread\":%u,\"stop\":\"%s\",\"status\":%u}}",
                      (unsigned)r.tid, stop, (unsigned)r.stop);
        x->c->runs++;
    }
}

static void
export_gc_phases(export_ctx *x, const evindex_cap *cap)
{
    static const char *const names[] = { [EVINDEX_GC_WORK] = "GC work",
                                         [EVINDEX_GC_WAIT] = "GC waiting" };
    unsigned tid = export_cap_tid(x, cap->cap);
    size_t n = ivtrack_count(cap->gc);
    for (size_t i = ivtrack_first_after(cap->gc, x->o->from_ns); i < n; i++) {
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv = ivtrack_get(cap->gc, i, &iv_buf);
        if (iv->start_ns >= x->o->to_ns)
            break;
        if (!export_overlaps(x->o, iv->start_ns, iv->end_ns))
            continue;
        export_slice_head(x->w, x->o->pid, tid, "gc", iv->start_ns, iv->end_ns);
        strbuf_puts(&x->w->sb, iv->kind < 2 ? names[iv->kind] : "GC");
        strbuf_puts(&x->w->sb, "\",\"args\":{");
        if (iv->ref != UINT32_MAX)
            strbuf_printf(&x->w->sb, "\"gc\":%u", (unsigned)iv->ref);
        strbuf_puts(&x->w->sb, "}}");
        x->c->gc_phases++;
    }
}

/* Every collection's part on each capability, as the slice holding that capability's
 * work and waiting phases, with the collection's figures as arguments. */
static void
export_gcs(export_ctx *x)
{
    size_t n = evindex_n_gcs(x->ix);
    size_t i = evindex_gc_first_from(x->ix, x->o->from_ns);
    if (i > 0 && i <= n)
        i--;    /* the one before may still be running at from_ns */
    for (; i < n; i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(x->ix, i, &g_buf);
        bool any = false;
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(x->ix, g->first_part + k, &p_buf);
            if (p->start_ns >= x->o->to_ns || !export_overlaps(x->o, p->start_ns, p->end_ns))
                continue;
            export_slice_head(x->w, x->o->pid, export_cap_tid(x, p->cap), "gc", p->start_ns,
                              p->end_ns);
            strbuf_puts(&x->w->sb, g->gen == EVINDEX_GEN_UNKNOWN ? "GC" : "GC gen ");
            if (g->gen != EVINDEX_GEN_UNKNOWN)
                strbuf_u64(&x->w->sb, g->gen);
            strbuf_printf(&x->w->sb, "\",\"args\":{\"gc\":%zu,\"pause_ns\":%llu,"
                          "\"work_ns\":%llu,\"wait_ns\":%llu", i,
                          (unsigned long long)(g->end_ns - g->start_ns),
                          (unsigned long long)p->work_ns, (unsigned long long)p->wait_ns);
            if (g->stopping_ns != EVINDEX_NO_TIME)
                strbuf_printf(&x->w->sb, ",\"time_to_stop_ns\":%llu",
                              (unsigned long long)g->stopping_ns);
            if (!(g->flags & EVINDEX_GC_F_NO_STATS))
                strbuf_printf(&x->w->sb, ",\"copied_bytes\":%llu",
                              (unsigned long long)g->copied);
            if (g->leader_cap != EVINDEX_NO_CAP)
                strbuf_printf(&x->w->sb, ",\"leader_cap\":%u", (unsigned)g->leader_cap);
            strbuf_puts(&x->w->sb, "}}");
            x->c->gc_parts++;
            any = true;
        }
        if (any)
            x->c->gcs++;
    }
}

static void
export_nonmoving(export_ctx *x)
{
    static const char *const names[] = { [EVINDEX_NM_MARK] = "concurrent mark",
                                         [EVINDEX_NM_SYNC] = "post-mark sync",
                                         [EVINDEX_NM_SWEEP] = "concurrent sweep" };
    unsigned tid = x->base + EXPORT_SLOT_NONMOVING;
    for (size_t i = 0; i < evindex_n_nm_cycles(x->ix); i++) {
        const evindex_nm_cycle *cy = evindex_nm_cycle_at(x->ix, i);
        if (!export_overlaps(x->o, cy->start_ns, cy->end_ns))
            continue;
        export_slice_head(x->w, x->o->pid, tid, "nonmoving", cy->start_ns, cy->end_ns);
        strbuf_printf(&x->w->sb, "non-moving cycle\",\"args\":{\"cycle\":%zu,\"marks\":%u,"
                      "\"marked_objects\":%llu}}", i, (unsigned)cy->n_marks,
                      (unsigned long long)cy->marked_objects);
        x->c->nm_cycles++;
    }
    const ivtrack *tr = evindex_nm_track(x->ix);
    size_t n = ivtrack_count(tr);
    for (size_t i = ivtrack_first_after(tr, x->o->from_ns); i < n; i++) {
        ivtrack_iv iv_buf;
        const ivtrack_iv *iv = ivtrack_get(tr, i, &iv_buf);
        if (iv->start_ns >= x->o->to_ns)
            break;
        if (!export_overlaps(x->o, iv->start_ns, iv->end_ns))
            continue;
        export_slice_head(x->w, x->o->pid, tid, "nonmoving", iv->start_ns, iv->end_ns);
        strbuf_puts(&x->w->sb, iv->kind < 3 ? names[iv->kind] : "non-moving");
        strbuf_puts(&x->w->sb, "\",\"args\":{");
        if (iv->ref != UINT32_MAX)
            strbuf_printf(&x->w->sb, "\"cycle\":%u", (unsigned)iv->ref);
        strbuf_puts(&x->w->sb, "}}");
        x->c->nm_phases++;
    }
}

/* An instant on track `tid` named by the message's text. */
static void
export_instant(export_ctx *x, const evindex_msg *m, unsigned tid, const char *cat)
{
    export_open(x->w, "i", x->o->pid, &tid);
    strbuf_printf(&x->w->sb, ",\"s\":\"t\",\"cat\":\"%s\",\"ts\":", cat);
    export_us(&x->w->sb, m->time_ns);
    strbuf_puts(&x->w->sb, ",\"name\":\"");
    const uint8_t *text;
    size_t len;
    bool has = evindex_msg_text(x->ix, m, &text, &len);
    if (m->kind == EVINDEX_MSG_BINARY)
        strbuf_printf(&x->w->sb, "binary message (%zu bytes)", has ? len : (size_t)0);
    else if (has)
        export_json_string(&x->w->sb, text, len);
    strbuf_puts(&x->w->sb, "\",\"args\":{");
    if (m->cap != EVINDEX_NO_CAP)
        strbuf_printf(&x->w->sb, "\"cap\":%u", (unsigned)m->cap);
    strbuf_puts(&x->w->sb, "}}");
}

static void
export_messages(export_ctx *x)
{
    static const char *const cats[] = { [EVINDEX_MSG_MARKER] = "marker",
                                        [EVINDEX_MSG_USER] = "message",
                                        [EVINDEX_MSG_LOG] = "rts log",
                                        [EVINDEX_MSG_BINARY] = "binary message" };
    size_t n = evindex_n_markers(x->ix);
    for (size_t i = evindex_marker_first_from(x->ix, x->o->from_ns); i < n; i++) {
        const evindex_msg m_v = evindex_marker_at(x->ix, i), *m = &m_v;
        if (m->time_ns >= x->o->to_ns)
            break;
        export_instant(x, m, x->base + EXPORT_SLOT_MARKERS, "marker");
        x->c->markers++;
    }
    /* Messages are in time order: find the first at from_ns by bisection. */
    size_t lo = 0, hi = evindex_n_msgs(x->ix);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (evindex_msg_at(x->ix, mid).time_ns < x->o->from_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < evindex_n_msgs(x->ix); i++) {
        const evindex_msg m_v = evindex_msg_at(x->ix, i), *m = &m_v;
        if (m->time_ns >= x->o->to_ns)
            break;
        if (m->kind == EVINDEX_MSG_MARKER || m->kind > EVINDEX_MSG_BINARY)
            continue;
        unsigned tid = export_cap_tid(x, m->cap);
        if (m->cap == EVINDEX_NO_CAP && !x->global_named) {
            export_meta(x->w, x->o->pid, &tid, "thread_name", "global", 0);
            x->global_named = true;
        }
        export_instant(x, m, tid, cats[m->kind]);
        x->c->messages++;
    }
}

static void
export_counters(export_ctx *x)
{
    static const struct {
        enum evindex_series_id id;
        const char *name, *unit;
    } counters[] = {
        { EVINDEX_S_HEAP_SIZE, "heap size", "bytes" },
        { EVINDEX_S_HEAP_LIVE, "live bytes", "bytes" },
        { EVINDEX_S_SPARK_POOL, "spark pool", "sparks" },
        { EVINDEX_S_SPARKS_CREATED, "sparks created", "sparks" },
        { EVINDEX_S_SPARKS_CONVERTED, "sparks converted", "sparks" },
    };
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        const series *s = evindex_series(x->ix, counters[k].id);
        size_t n = series_count(s);
        /* From the sample in force at from_ns, so the value there is known. */
        size_t i = series_at(s, x->o->from_ns);
        if (i == SIZE_MAX)
            i = 0;
        for (; i < n; i++) {
            series_sample smp = series_get(s, i);
            if (smp.time_ns >= x->o->to_ns)
                break;
            export_open(x->w, "C", x->o->pid, NULL);
            strbuf_printf(&x->w->sb, ",\"name\":\"%s\",\"ts\":", counters[k].name);
            export_us(&x->w->sb, smp.time_ns);
            strbuf_printf(&x->w->sb, ",\"args\":{\"%s\":%llu}}", counters[k].unit,
                          (unsigned long long)smp.value);
            x->c->counter_samples++;
        }
    }
}

void
export_chrome_add(export_chrome *w, const evindex *ix, const export_opts *o,
                  export_counts *counts)
{
    export_counts local;
    export_ctx x = { .w = w, .ix = ix, .o = o, .c = counts ? counts : &local,
                     .base = o->pid * EXPORT_TID_STRIDE,
                     .era = stopstatus_era_of(evindex_log(ix)) };
    memset(x.c, 0, sizeof *x.c);
    export_meta(w, o->pid, NULL, "process_name", o->name, 0);
    export_meta(w, o->pid, NULL, "process_sort_index", NULL, (int)o->pid);
    int order = 0;
    for (size_t i = 0; i < evindex_n_caps(ix); i++) {
        const evindex_cap *cap = evindex_cap_at(ix, i);
        unsigned tid = export_cap_tid(&x, cap->cap);
        char name[16];
        if (cap->cap == EVINDEX_NO_CAP) {
            snprintf(name, sizeof name, "global");
            x.global_named = true;
        }
        else
            snprintf(name, sizeof name, "HEC %u", (unsigned)cap->cap);
        export_meta(w, o->pid, &tid, "thread_name", name, 0);
        export_meta(w, o->pid, &tid, "thread_sort_index", NULL, order++);
        export_runs(&x, cap);
        export_gc_phases(&x, cap);
    }
    export_gcs(&x);
    if (evindex_n_nm_cycles(ix) || ivtrack_count(evindex_nm_track(ix))) {
        unsigned tid = x.base + EXPORT_SLOT_NONMOVING;
        export_meta(w, o->pid, &tid, "thread_name", "non-moving GC", 0);
        export_meta(w, o->pid, &tid, "thread_sort_index", NULL, order++);
        export_nonmoving(&x);
    }
    if (evindex_n_markers(ix)) {
        unsigned tid = x.base + EXPORT_SLOT_MARKERS;
        export_meta(w, o->pid, &tid, "thread_name", "markers", 0);
        export_meta(w, o->pid, &tid, "thread_sort_index", NULL, order++);
    }
    export_messages(&x);
    export_counters(&x);
}
