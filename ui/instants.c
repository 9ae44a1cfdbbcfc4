/* instants: instant events of a time range, read through the seek table only when the
 * range is small (a bounded query), classified by one table, and put into words. */
#include "instants.h"

#include <string.h>

#include "decode.h"
#include "render.h"
#include "threadlife.h"
#include "xalloc.h"

static const struct {
    uint16_t type;
    uint8_t kind;
} instants_types[] = {
    { EV_CREATE_THREAD, INSTANTS_CREATE },    { EV_THREAD_WAKEUP, INSTANTS_WAKEUP },
    { EV_MIGRATE_THREAD, INSTANTS_MIGRATE },  { EV_CREATE_SPARK_THREAD, INSTANTS_SPARK },
    { EV_SPARK_CREATE, INSTANTS_SPARK },      { EV_SPARK_DUD, INSTANTS_SPARK },
    { EV_SPARK_OVERFLOW, INSTANTS_SPARK },    { EV_SPARK_RUN, INSTANTS_SPARK },
    { EV_SPARK_STEAL, INSTANTS_SPARK },       { EV_SPARK_FIZZLE, INSTANTS_SPARK },
    { EV_SPARK_GC, INSTANTS_SPARK },          { EV_USER_MSG, INSTANTS_MESSAGE },
    { EV_LOG_MSG, INSTANTS_MESSAGE },         { EV_USER_MARKER, INSTANTS_MESSAGE },
};

static const struct {
    uint32_t glyph;
    const char *name;
} instants_look[INSTANTS_N_KINDS] = {
    [INSTANTS_CREATE] = { 'C', "thread created" },
    [INSTANTS_WAKEUP] = { 'W', "wake-up" },
    [INSTANTS_MIGRATE] = { 'M', "migration" },
    [INSTANTS_SPARK] = { 'S', "spark event" },
    [INSTANTS_MESSAGE] = { '*', "message" },
};

int
instants_kind_of(uint16_t type)
{
    for (size_t i = 0; i < sizeof instants_types / sizeof instants_types[0]; i++)
        if (instants_types[i].type == type)
            return instants_types[i].kind;
    return -1;
}

uint32_t
instants_glyph(instants_kind kind)
{
    return kind < INSTANTS_N_KINDS ? instants_look[kind].glyph : '?';
}

const char *
instants_name(instants_kind kind)
{
    return kind < INSTANTS_N_KINDS ? instants_look[kind].name : "?";
}

size_t
instants_in(const evindex *ix, uint64_t t0, uint64_t t1, size_t max_events, instant *out)
{
    if (t1 <= t0 || max_events == 0)
        return 0;
    if (evseek_more_than(evindex_seek(ix), t0, t1, max_events))
        return SIZE_MAX;    /* a wide view: too many events, known without reading them */
    evseek_hit *hits = xmalloc((max_events + 1) * sizeof *hits);      /* freed below */
    bool more = false;
    size_t n = evseek_range_all(evindex_seek(ix), evindex_log(ix), t0, t1, hits,
                                max_events + 1, &more);
    size_t k = 0;
    if (more || n > max_events) {
        k = SIZE_MAX;
    } else {
        for (size_t i = 0; i < n; i++) {
            evlog_event ev;
            if (!evlog_event_at(evindex_log(ix), hits[i].offset, hits[i].cap, &ev))
                continue;
            int kind = instants_kind_of(ev.type);
            if (kind >= 0)
                out[k++] = (instant){ hits[i].time_ns, hits[i].offset, hits[i].cap,
                                      (uint8_t)kind };
        }
    }
    x_free(hits);
    return k;
}

static void
instants_cap(strbuf *out, uint16_t cap)
{
    if (cap == EVINDEX_NO_CAP)
        strbuf_puts(out, "no HEC");
    else
        strbuf_printf(out, "HEC %u", (unsigned)cap);
}

/* "thread N" for the thread running on `cap` at t, "the RTS" if none. */
static void
instants_poster(strbuf *out, const evindex *ix, uint16_t cap, uint64_t t)
{
    uint32_t by = cap == EVINDEX_NO_CAP ? 0 : threadlife_running_on(ix, cap, t);
    if (by)
        strbuf_printf(out, "thread %u", (unsigned)by);
    else
        strbuf_puts(out, "the RTS");
}

void
instants_text(strbuf *out, const evindex *ix, const instant *in)
{
    evlog_event ev;
    if (!evlog_event_at(evindex_log(ix), in->offset, in->cap, &ev)) {
        strbuf_puts(out, instants_name((instants_kind)in->kind));
        return;
    }
    evdecoded dec;
    decode_event(&ev, &dec);
    unsigned tid = dec.n_present >= 1 ? (unsigned)dec.f[0].u : 0;
    uint16_t other = dec.n_present >= 2 ? (uint16_t)dec.f[1].u : in->cap;
    switch (in->kind) {
    case INSTANTS_WAKEUP:
        instants_poster(out, ix, in->cap, in->time_ns);
        strbuf_puts(out, " (on ");
        instants_cap(out, in->cap);
        strbuf_printf(out, ") woke thread %u (on ", tid);
        instants_cap(out, other);
        strbuf_putc(out, ')');
        break;
    case INSTANTS_CREATE:
        instants_poster(out, ix, in->cap, in->time_ns);
        strbuf_printf(out, " created thread %u on ", tid);
        instants_cap(out, in->cap);
        break;
    case INSTANTS_MIGRATE:
        strbuf_printf(out, "thread %u migrated ", tid);
        instants_cap(out, in->cap);
        strbuf_puts(out, " -> ");
        instants_cap(out, other);
        break;
    default: {
        render *r = render_new();
        size_t start = out->len;
        render_show_line(r, out, &ev);
        render_free(r);
        /* Keep the text after "<time>: [cap N: ]". */
        char *s = out->data + start, *p = strstr(s, ": ");
        if (p && ev.cap != EVLOG_NO_CAP) {
            char *q = strstr(p + 2, ": ");
            p = q ? q : p;
        }
        if (p) {
            size_t cut = (size_t)(p + 2 - s);
            memmove(s, s + cut, out->len - start - cut + 1);
            out->len -= cut;
        }
        while (out->len > start && out->data[out->len - 1] == '\n')
            out->data[--out->len] = '\0';
        break;
    }
    }
}
