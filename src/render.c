/* render: the ghc-events-compatible text of events — a template interpreter over
 * decoded fields plus a table of named formatters for the irregular cases. */
#include "render.h"

#include <stdio.h>
#include <string.h>

#include "cursor.h"
#include "stopstatus.h"
#include "textfmt.h"
#include "xalloc.h"

/* Default rendering of one field according to its kind. */
static void
render_field(strbuf *sb, const evdecoded *dec, unsigned i)
{
    const evval *v = &dec->f[i];
    switch ((enum evfield_kind)dec->desc->fields[i]) {
    case EVF_TEXT_REST:
    case EVF_CSTR:
    case EVF_BYTES_REST:
        textfmt_append_utf8(sb, v->p, v->len);
        break;
    case EVF_LATIN1_REST:
    case EVF_LATIN1_BUT4:
        textfmt_append_latin1(sb, v->p, v->len);
        break;
    default:
        strbuf_u64(sb, v->u);
        break;
    }
}

void
render_stop_status(strbuf *sb, uint16_t status, uint32_t info)
{
    stopstatus_name(sb, STOPSTATUS_GHC783, status, info);
}

static void
render_fmt_hex(strbuf *sb, const evdecoded *dec, unsigned i)
{
    strbuf_hex(sb, dec->f[i].u);
}

static void
render_fmt_stop(strbuf *sb, const evdecoded *dec, unsigned i)
{
    render_stop_status(sb, (uint16_t)dec->f[i].u, (uint32_t)dec->f[i + 1].u);
}

static void
render_fmt_capset(strbuf *sb, const evdecoded *dec, unsigned i)
{
    static const char *const names[] = { "CapsetUnknown", "CapsetCustom", "CapsetOsProcess",
                                         "CapsetClockDomain" };
    uint64_t t = dec->f[i].u;
    strbuf_puts(sb, names[t < 4 ? t : 0]);
}

static void
render_fmt_list(strbuf *sb, const evdecoded *dec, unsigned i)
{
    textfmt_append_hs_list(sb, dec->f[i].p, dec->f[i].len);
}

static void
render_fmt_breakdown(strbuf *sb, const evdecoded *dec, unsigned i)
{
    static const char *const names[] = {
        NULL, "cost centre", "module", "closure description", "type description",
        "retainer", "biography", "closure type", "info table", "era",
    };
    uint64_t b = dec->f[i].u;
    if (b < sizeof names / sizeof names[0] && names[b]) {
        strbuf_puts(sb, names[b]);
    } else {
        strbuf_puts(sb, "unknown breakdown ");
        strbuf_u64(sb, b);
    }
}

/* HEAP_PROF_BEGIN's seven filters from field i on: " filtered by a, b, " when any
 * is non-empty (ghc-events keeps the trailing separator). */
static void
render_fmt_filters(strbuf *sb, const evdecoded *dec, unsigned i)
{
    bool any = false;
    for (unsigned k = i; k < i + 7 && k < dec->n_present; k++) {
        if (dec->f[k].len == 0)
            continue;
        if (!any)
            strbuf_puts(sb, " filtered by ");
        any = true;
        textfmt_append_utf8(sb, dec->f[k].p, dec->f[k].len);
        strbuf_puts(sb, ", ");
    }
}

static void
render_fmt_caf(strbuf *sb, const evdecoded *dec, unsigned i)
{
    if (dec->f[i].u & 1)
        strbuf_puts(sb, " CAF");
}

static void
render_fmt_ccs(strbuf *sb, const evdecoded *dec, unsigned i)
{
    const evval *v = &dec->f[i];
    for (uint64_t k = 0; k < v->u; k++) {
        if (k)
            strbuf_puts(sb, ", ");
        strbuf_u64(sb, cursor_be32(v->p + 4 * k));
    }
}

static void
render_fmt_lo16(strbuf *sb, const evdecoded *dec, unsigned i)
{
    strbuf_u64(sb, dec->f[i].u & 0xffff);
}

static void
render_fmt_plus1(strbuf *sb, const evdecoded *dec, unsigned i)
{
    strbuf_u64(sb, dec->f[i].u + 1);
}

/* The leading decimal digits of a text field as a number (IPE closure type). */
static void
render_fmt_decimal(strbuf *sb, const evdecoded *dec, unsigned i)
{
    const uint8_t *p = dec->f[i].p;
    uint32_t len = dec->f[i].len, n = 0;
    while (n < len && p[n] >= '0' && p[n] <= '9')
        n++;
    if (n == 0) {
        textfmt_append_utf8(sb, p, len);
        return;
    }
    uint32_t skip = 0;              /* a decimal parse drops leading zeros */
    while (skip + 1 < n && p[skip] == '0')
        skip++;
    strbuf_append(sb, p + skip, n - skip);
}

static void
render_fmt_binary(strbuf *sb, const evdecoded *dec, unsigned i)
{
    textfmt_append_binary(sb, dec->f[i].p, dec->f[i].len);
}

static void
render_fmt_msgtag(strbuf *sb, const evdecoded *dec, unsigned i)
{
    static const char *const names[] = { "Ready", "NewPE", "PETIDS", "Finish", "FailPE",
                                         "RFork", "Connect", "DataMes", "Head", "Constr",
                                         "Part", "Terminate", "Packet" };
    uint8_t tag = (uint8_t)(dec->f[i].u - 0x50);
    if (tag < sizeof names / sizeof names[0]) {
        strbuf_puts(sb, names[tag]);
    } else {
        strbuf_puts(sb, "unknown tag ");
        strbuf_u64(sb, dec->f[i].u);
    }
}

static void
render_fmt_balanced(strbuf *sb, const evdecoded *dec, unsigned i)
{
    if (i < dec->n_present) {
        strbuf_puts(sb, ", ");
        strbuf_u64(sb, dec->f[i].u);
        strbuf_puts(sb, " bytes balanced par copied");
    }
}

typedef void (*render_formatter)(strbuf *sb, const evdecoded *dec, unsigned field);

static const struct {
    const char *name;
    render_formatter fn;
} render_formatters[] = {
    { "x", render_fmt_hex },           { "stop", render_fmt_stop },
    { "capset", render_fmt_capset },   { "list", render_fmt_list },
    { "breakdown", render_fmt_breakdown }, { "filters", render_fmt_filters },
    { "caf", render_fmt_caf },         { "ccs", render_fmt_ccs },
    { "lo16", render_fmt_lo16 },       { "plus1", render_fmt_plus1 },
    { "decimal", render_fmt_decimal }, { "binary", render_fmt_binary },
    { "msgtag", render_fmt_msgtag },   { "balanced", render_fmt_balanced },
};

static render_formatter
render_find_formatter(const char *name, size_t len)
{
    for (size_t k = 0; k < sizeof render_formatters / sizeof render_formatters[0]; k++)
        if (strlen(render_formatters[k].name) == len &&
            memcmp(render_formatters[k].name, name, len) == 0)
            return render_formatters[k].fn;
    return NULL;
}

/* A template compiled to a list of operations: literal text or a field. */
typedef struct render_op {
    const char *lit;            /* literal text (borrowed from the table), or NULL */
    uint16_t len;
    uint8_t field;
    render_formatter fn;        /* NULL: the field's default rendering */
} render_op;

#define RENDER_MAX_OPS 32

typedef struct render_tmpl {
    render_op ops[RENDER_MAX_OPS];
    unsigned n_ops;
} render_tmpl;

struct render {
    const evtype_desc *table;   /* the evtype table; tmpls is parallel to it */
    unsigned n;
    render_tmpl *tmpls;         /* owned */
    stopstatus_era stop_era;    /* STOP_THREAD numbering (render_set_log) */
};

/* Compile `d`'s template, checking every directive against the type's fields.
 * False with a reason in `why` for a malformed template (the table's tests see it). */
static bool
render_compile(const evtype_desc *d, render_tmpl *t, char *why, size_t why_len)
{
    const char *s = d->show_fmt;
    t->n_ops = 0;
    while (*s) {
        if (t->n_ops == RENDER_MAX_OPS) {
            snprintf(why, why_len, "%s: template too long", d->name);
            return false;
        }
        render_op *op = &t->ops[t->n_ops++];
        const char *brace = strchr(s, '{');
        if (brace != s) {
            size_t len = brace ? (size_t)(brace - s) : strlen(s);
            *op = (render_op){ s, (uint16_t)len, 0, NULL };
            s += len;
            continue;
        }
        const char *q = brace + 1;
        if (!(*q >= '0' && *q <= '9')) {
            snprintf(why, why_len, "%s: directive without a field number", d->name);
            return false;
        }
        unsigned field = 0;
        while (*q >= '0' && *q <= '9')
            field = field * 10 + (unsigned)(*q++ - '0');
        const char *close = strchr(q, '}');
        if (!close || (*q != ':' && *q != '}')) {
            snprintf(why, why_len, "%s: unterminated directive", d->name);
            return false;
        }
        render_formatter fn = NULL;
        if (*q == ':') {
            fn = render_find_formatter(q + 1, (size_t)(close - q - 1));
            if (!fn) {
                snprintf(why, why_len, "%s: unknown formatter '%.*s'", d->name,
                         (int)(close - q - 1), q + 1);
                return false;
            }
        }
        if (field >= d->n_fields || (fn == render_fmt_stop && field + 1 >= d->n_fields)) {
            snprintf(why, why_len, "%s: field %u out of range", d->name, field);
            return false;
        }
        if (!fn && field >= d->n_required) {
            snprintf(why, why_len, "%s: optional field %u printed unconditionally", d->name,
                     field);
            return false;
        }
        *op = (render_op){ NULL, 0, (uint8_t)field, fn };
        s = close + 1;
    }
    return true;
}

render *
render_new(void)
{
    render *r = xcalloc(1, sizeof *r);
    r->table = evtype_table_all(&r->n);
    r->tmpls = xcalloc(r->n, sizeof *r->tmpls);
    char why[200];
    for (unsigned i = 0; i < r->n; i++)
        if (r->table[i].show_fmt && !render_compile(&r->table[i], &r->tmpls[i], why, sizeof why))
            r->tmpls[i].n_ops = 0;  /* unreachable while the table's tests pass */
    return r;
}

void
render_set_log(render *r, const evlog *log)
{
    r->stop_era = stopstatus_era_of(log);
}

void
render_free(render *r)
{
    if (!r)
        return;
    x_free(r->tmpls);
    x_free(r);
}

void
render_event_text(const render *r, strbuf *sb, const evlog_event *ev)
{
    evdecoded dec;
    decode_event(ev, &dec);
    if (!dec.printable) {
        textfmt_append_utf8(sb, ev->et->desc, ev->et->desc_len);
        return;
    }
    const render_tmpl *t = &r->tmpls[dec.desc - r->table];
    for (unsigned i = 0; i < t->n_ops; i++) {
        const render_op *op = &t->ops[i];
        if (op->lit)
            strbuf_append(sb, op->lit, op->len);
        else if (op->fn == render_fmt_stop)
            stopstatus_name(sb, r->stop_era, (uint16_t)dec.f[op->field].u,
                            (uint32_t)dec.f[op->field + 1].u);
        else if (op->fn)
            op->fn(sb, &dec, op->field);
        else
            render_field(sb, &dec, op->field);
    }
}

void
render_show_line(const render *r, strbuf *sb, const evlog_event *ev)
{
    strbuf_u64(sb, ev->time_ns);
    if (ev->cap != EVLOG_NO_CAP) {
        strbuf_append(sb, ": cap ", 6);
        strbuf_u64(sb, ev->cap);
    }
    strbuf_append(sb, ": ", 2);
    render_event_text(r, sb, ev);
    strbuf_putc(sb, '\n');
}

void
render_type_line(strbuf *sb, const evlog_type *t)
{
    strbuf_u64(sb, t->id);
    strbuf_puts(sb, ": ");
    textfmt_append_utf8(sb, t->desc, t->desc_len);
    strbuf_puts(sb, " (size ");
    if (t->size == EVLOG_VARIABLE_SIZE)
        strbuf_puts(sb, "variable");
    else
        strbuf_u64(sb, t->size);
    strbuf_putc(sb, ')');
}

bool
render_template_check(const evtype_desc *d, char *why, size_t why_len)
{
    render_tmpl t;
    return !d->show_fmt || render_compile(d, &t, why, why_len);
}
