/* decode: table-driven field extraction from an event payload through the
 * bounds-checked cursor. Never reads outside the event. */
#include "decode.h"

#include <string.h>

#include "cursor.h"

/* Decode one field of `kind` from `c` into *v; false if it does not fit. */
static bool
decode_field(cursor *c, enum evfield_kind kind, uint32_t payload_len, evval *v)
{
    switch (kind) {
    case EVF_U8: v->u = cursor_u8(c); break;
    case EVF_U16: v->u = cursor_u16(c); break;
    case EVF_U32: v->u = cursor_u32(c); break;
    case EVF_U64: v->u = cursor_u64(c); break;
    case EVF_CENSUS_BLKSZ:
        if (payload_len >= 14) {
            v->u = cursor_u16(c);
        } else {
            unsigned log2 = cursor_u8(c);
            v->u = log2 < 16 ? (1u << log2) : 0; /* a u16 in ghc-events */
        }
        break;
    case EVF_TEXT_REST:
    case EVF_LATIN1_REST:
    case EVF_BYTES_REST:
        v->len = (uint32_t)cursor_left(c);
        v->p = cursor_take(c, v->len);
        break;
    case EVF_LATIN1_BUT4: {
        size_t left = cursor_left(c);
        if (left < 4)
            return false;
        v->len = (uint32_t)(left - 4);
        v->p = cursor_take(c, v->len);
        break;
    }
    case EVF_CSTR: {
        size_t n = 0;
        if (!cursor_cstr(c, &v->p, &n))
            return false;
        v->len = (uint32_t)n;
        break;
    }
    case EVF_CCS: {
        uint8_t depth = cursor_u8(c);
        const uint8_t *ids = cursor_take(c, (size_t)depth * 4);
        if (!ids)
            return false;
        v->u = depth;
        v->p = ids;
        v->len = (uint32_t)depth * 4;
        break;
    }
    }
    return !c->failed;
}

void
decode_event(const evlog_event *ev, evdecoded *out)
{
    const evtype_desc *d = ev->et->known;
    out->desc = d;
    out->n_present = 0;
    out->printable = false;
    if (!d)
        return;
    if (ev->et->fixed_complete) {
        /* Every field is a fixed-width integer and the payload holds them all. */
        const uint8_t *p = ev->payload;
        for (unsigned i = 0; i < d->n_fields; i++) {
            switch ((enum evfield_kind)d->fields[i]) {
            case EVF_U8: out->f[i].u = p[0]; p += 1; break;
            case EVF_U16: out->f[i].u = cursor_be16(p); p += 2; break;
            case EVF_U32: out->f[i].u = cursor_be32(p); p += 4; break;
            default: out->f[i].u = cursor_be64(p); p += 8; break;
            }
        }
        out->n_present = d->n_fields;
        out->printable = d->show_fmt != NULL;
        return;
    }
    /* Absent fields read as zero (e.g. ticky's missing info-table pointer). */
    memset(out->f, 0, d->n_fields * sizeof out->f[0]);
    cursor c;
    cursor_init(&c, ev->payload, ev->payload_len);
    unsigned n = 0;
    while (n < d->n_fields) {
        evval v = { 0, NULL, 0 };
        cursor save = c;
        if (!decode_field(&c, (enum evfield_kind)d->fields[n], ev->payload_len, &v)) {
            c = save;
            break;
        }
        out->f[n++] = v;
    }
    out->n_present = (uint8_t)n;
    bool header_variable = ev->et->size == EVLOG_VARIABLE_SIZE;
    out->printable = d->show_fmt && header_variable == d->variable && n >= d->n_required;
}
