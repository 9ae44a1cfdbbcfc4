/* evlog: opening an eventlog (mmap + header parse) and the file-order event
 * iterator. Every byte read from the file goes through the bounds-checked cursor
 * or is covered by an explicit length check against the mapping. */
#include "evlog.h"

#include <string.h>

#include "cursor.h"
#include "mapfile.h"
#include "xalloc.h"

/* skim_size of a type of variable size (no fixed size reaches it). */
#define EVLOG_SKIM_VARIABLE UINT32_MAX

struct evlog {
    mapfile *map;               /* owned; NULL when opened over caller bytes */
    const uint8_t *data;
    size_t size;
    evlog_type *types;          /* owned; header order */
    size_t n_types;
    const evlog_type **by_id;   /* owned; index = id, entries borrowed from types */
    size_t n_by_id;             /* max declared id + 1 */
    uint32_t *skim_size;        /* owned; by id, n_by_id of them: a whole event's bytes
                                 * for a fixed size, EVLOG_SKIM_VARIABLE for a variable
                                 * one, 0 where evlog_iter_next_stamps stops a run */
    uint64_t data_start;
};

/* Header parse. Fills log->types / by_id / data_start, or returns false with `d`. */
static bool
evlog_parse_header(evlog *log, cursor *c, diag *d)
{
    cursor_init(c, log->data, log->size);
    if (log->size == 0)
        return diag_set(d, DIAG_NOT_EVENTLOG, 0, "empty file, not an eventlog");
    if (log->size < 4)
        return diag_set(d, DIAG_NOT_EVENTLOG, 0, "too short to be an eventlog (%zu bytes)",
                        log->size);
    uint32_t magic = cursor_u32(c);
    if (magic != EVLOG_HEADER_BEGIN)
        return diag_set(d, DIAG_NOT_EVENTLOG, 0,
                        "not a GHC eventlog (bad magic 0x%08x, expected \"hdrb\")", magic);
    uint64_t at = c->pos;
    if (cursor_u32(c) != EVLOG_HET_BEGIN)
        return diag_set(d, DIAG_BAD_HEADER, at,
                        c->failed ? "header truncated" : "malformed header: no event-type list");

    size_t cap = 64;
    log->types = xreallocarray(NULL, cap, sizeof *log->types);
    size_t max_id = 0;
    for (;;) {
        at = c->pos;
        uint32_t m = cursor_u32(c);
        if (c->failed)
            return diag_set(d, DIAG_BAD_HEADER, at, "header truncated in event-type list");
        if (m == EVLOG_HET_END)
            break;
        if (m != EVLOG_ET_BEGIN)
            return diag_set(d, DIAG_BAD_HEADER, at,
                            "malformed header: expected an event type (0x%08x)", m);
        evlog_type t;
        t.id = cursor_u16(c);
        t.size = cursor_u16(c);
        t.desc_len = cursor_u32(c);
        uint64_t desc_at = c->pos;
        t.desc = cursor_take(c, t.desc_len);
        if (c->failed)
            return diag_set(d, DIAG_BAD_HEADER, desc_at,
                            "header truncated in the description of event type %u", t.id);
        uint32_t extra = cursor_u32(c);
        uint64_t extra_at = c->pos;
        cursor_take(c, extra);
        if (c->failed)
            return diag_set(d, DIAG_BAD_HEADER, extra_at,
                            "header truncated in event type %u", t.id);
        at = c->pos;
        if (cursor_u32(c) != EVLOG_ET_END)
            return diag_set(d, DIAG_BAD_HEADER, at,
                            c->failed ? "header truncated in event type %u"
                                     : "malformed header: event type %u has no end marker",
                            t.id);
        t.known = evtype_lookup(t.id);
        t.fixed_complete = false;
        if (t.known && !t.known->variable && t.size != EVLOG_VARIABLE_SIZE) {
            bool all_fixed = true;
            for (unsigned k = 0; k < t.known->n_fields; k++)
                if (evtype_field_width((enum evfield_kind)t.known->fields[k]) == 0 ||
                    t.known->fields[k] == EVF_CENSUS_BLKSZ)
                    all_fixed = false;
            t.fixed_complete =
                all_fixed && t.size >= evtype_fixed_size(t.known, t.known->n_fields);
        }
        if (log->n_types == cap) {
            cap *= 2;
            log->types = xreallocarray(log->types, cap, sizeof *log->types);
        }
        log->types[log->n_types++] = t;
        if (t.id > max_id)
            max_id = t.id;
    }
    at = c->pos;
    if (cursor_u32(c) != EVLOG_HEADER_END)
        return diag_set(d, DIAG_BAD_HEADER, at,
                        c->failed ? "header truncated" : "malformed header: no header end marker");
    at = c->pos;
    if (cursor_u32(c) != EVLOG_DATA_BEGIN)
        return diag_set(d, DIAG_BAD_HEADER, at,
                        c->failed ? "header truncated before the data section"
                                 : "malformed header: no data begin marker");
    log->data_start = c->pos;

    /* max_id <= 0xffff, so this table is bounded whatever the file says. */
    log->n_by_id = log->n_types ? max_id + 1 : 0;
    log->by_id = xcalloc(log->n_by_id ? log->n_by_id : 1, sizeof *log->by_id);
    for (size_t i = 0; i < log->n_types; i++)
        log->by_id[log->types[i].id] = &log->types[i];
    log->skim_size = xcalloc(log->n_by_id ? log->n_by_id : 1,
                             sizeof *log->skim_size);     /* owned by log */
    for (size_t id = 0; id < log->n_by_id; id++) {
        const evlog_type *et = log->by_id[id];
        if (!et || id == EV_BLOCK_MARKER || id == EVLOG_DATA_END)
            continue;
        log->skim_size[id] = et->size == EVLOG_VARIABLE_SIZE ? EVLOG_SKIM_VARIABLE
                                                              : 10 + (uint32_t)et->size;
    }
    return true;
}

static evlog *
evlog_new_over(const uint8_t *data, size_t size, mapfile *map, diag *d, bool *short_header)
{
    evlog *log = xcalloc(1, sizeof *log);
    log->map = map;
    log->data = data;
    log->size = size;
    cursor c;
    if (!evlog_parse_header(log, &c, d)) {
        if (short_header)
            *short_header = c.failed || size < 4;
        evlog_close(log);
        return NULL;
    }
    return log;
}

evlog *
evlog_open(const char *path, diag *d)
{
    mapfile *map = mapfile_open(path, d);
    if (!map)
        return NULL;
    return evlog_new_over(mapfile_data(map), mapfile_size(map), map, d, NULL);
}

evlog *
evlog_open_bytes(const uint8_t *data, size_t len, diag *d)
{
    return evlog_new_over(data, len, NULL, d, NULL);
}

evlog *
evlog_open_growing(int fd, size_t size, size_t reserve, diag *d, bool *short_header)
{
    *short_header = false;
    mapfile *map = mapfile_open_growing(fd, size, reserve, d);
    if (!map)
        return NULL;
    return evlog_new_over(mapfile_data(map), mapfile_size(map), map, d, short_header);
}

bool
evlog_grow(evlog *log, size_t size, diag *d)
{
    if (!log->map || size <= log->size)
        return true;
    if (!mapfile_grow(log->map, size, d))
        return false;
    log->size = mapfile_size(log->map);
    return true;
}

void
evlog_close(evlog *log)
{
    if (!log)
        return;
    mapfile_close(log->map);
    x_free(log->types);
    x_free(log->by_id);
    x_free(log->skim_size);
    x_free(log);
}

size_t
evlog_n_types(const evlog *log)
{
    return log->n_types;
}

const evlog_type *
evlog_type_at(const evlog *log, size_t i)
{
    return &log->types[i];
}

const evlog_type *
evlog_type_of(const evlog *log, uint16_t id)
{
    return id < log->n_by_id ? log->by_id[id] : NULL;
}

const uint8_t *
evlog_bytes(const evlog *log)
{
    return log->data;
}

size_t
evlog_size(const evlog *log)
{
    return log->size;
}

uint64_t
evlog_data_start(const evlog *log)
{
    return log->data_start;
}

void
evlog_advise_sequential(const evlog *log)
{
    if (log->map)
        mapfile_advise_sequential(log->map);
}

void
evlog_release(const evlog *log, uint64_t from, uint64_t to)
{
    if (log->map)
        mapfile_release(log->map, from, to);
}

bool
evlog_changed(const evlog *log, uint64_t *first_bad_offset)
{
    return log->map && mapfile_changed(log->map, first_bad_offset);
}

bool
evlog_rewritten(const evlog *log)
{
    return log->map && mapfile_rewritten(log->map);
}

bool
evlog_stale(const evlog *log)
{
    return log->map && mapfile_stale(log->map);
}

void
evlog_iter_init(evlog_iter *it, const evlog *log)
{
    memset(it, 0, sizeof *it);
    it->log = log;
    it->pos = log->data_start;
    it->data_end = log->size;
    it->block_cap = EVLOG_NO_CAP;
    it->state = EVLOG_ITER_OK;
    diag_clear(&it->diag);
}

void
evlog_iter_init_at(evlog_iter *it, const evlog *log, uint64_t offset)
{
    evlog_iter_init(it, log);
    if (offset >= log->data_start && offset <= log->size)
        it->pos = offset;
}

void
evlog_iter_cut(evlog_iter *it, uint64_t end)
{
    if (end < it->data_end)
        it->data_end = end;
}

void
evlog_iter_resume(evlog_iter *it)
{
    if (it->state == EVLOG_ITER_TRUNCATED || it->state == EVLOG_ITER_OK) {
        it->state = EVLOG_ITER_OK;
        it->data_end = it->log->size;
        diag_clear(&it->diag);
    }
}

void
evlog_iter_save(const evlog_iter *it, evlog_iter_mark *m)
{
    m->pos = it->pos;
    m->block_end = it->block_end;
    m->block_cap = it->block_cap;
    m->block_active = it->block_active;
    m->first_in_block = it->first_in_block;
}

void
evlog_iter_restore(evlog_iter *it, const evlog *log, const evlog_iter_mark *m)
{
    evlog_iter_init_at(it, log, m->pos);
    it->block_end = m->block_end;
    it->block_cap = m->block_cap;
    it->block_active = m->block_active;
    it->first_in_block = m->first_in_block;
}

static bool
evlog_iter_stop(evlog_iter *it, enum evlog_iter_state state)
{
    it->state = state;
    return false;
}

/* What starts at a given offset of the data. */
enum evlog_parse {
    EVLOG_PARSE_EVENT,          /* a whole event of a declared type */
    EVLOG_PARSE_END,            /* the DATA_END marker */
    EVLOG_PARSE_PARTIAL,        /* the file ends before the event does */
    EVLOG_PARSE_UNDECLARED,     /* a type the header does not declare */
};

/* Parse the event at `pos` into *ev (all but its cap), the data ending at `end` (at
 * most the log's size). The one place that turns bytes of the data section into an
 * event. */
static inline enum evlog_parse
evlog_parse_at(const evlog *log, uint64_t end, uint64_t pos, evlog_event *ev)
{
    uint64_t left = end > pos ? end - pos : 0;
    if (left < 2)
        return EVLOG_PARSE_PARTIAL;
    const uint8_t *p = log->data + pos;
    uint16_t type = cursor_be16(p);
    if (type == EVLOG_DATA_END)
        return EVLOG_PARSE_END;
    const evlog_type *et = type < log->n_by_id ? log->by_id[type] : NULL;
    if (!et) {
        ev->type = type;
        return EVLOG_PARSE_UNDECLARED;
    }
    uint32_t head = 10, payload_len = et->size;
    if (et->size == EVLOG_VARIABLE_SIZE) {
        if (left < 12)
            return EVLOG_PARSE_PARTIAL;
        payload_len = cursor_be16(p + 10);
        head = 12;
    }
    if (left < (uint64_t)head + payload_len)
        return EVLOG_PARSE_PARTIAL;
    ev->offset = pos;
    ev->time_ns = cursor_be64(p + 2);
    ev->type = type;
    ev->size = head + payload_len;
    ev->payload_len = payload_len;
    ev->payload = p + head;
    ev->et = et;
    return EVLOG_PARSE_EVENT;
}


bool
evlog_iter_next(evlog_iter *it, evlog_event *ev)
{
    if (it->state != EVLOG_ITER_OK)
        return false;
    uint64_t pos = it->pos;
    switch (evlog_parse_at(it->log, it->data_end, pos, ev)) {
    case EVLOG_PARSE_EVENT:
        break;
    case EVLOG_PARSE_END:
        it->pos = pos + 2;
        return evlog_iter_stop(it, EVLOG_ITER_END);
    case EVLOG_PARSE_PARTIAL:
        diag_set(&it->diag, DIAG_TRUNCATED, pos,
                 pos >= it->data_end ? "log ends without an end-of-data marker (truncated)"
                                      : "log ends in the middle of an event (truncated)");
        return evlog_iter_stop(it, EVLOG_ITER_TRUNCATED);
    case EVLOG_PARSE_UNDECLARED:
        diag_set(&it->diag, DIAG_BAD_DATA, pos, "event of undeclared type %u", ev->type);
        return evlog_iter_stop(it, EVLOG_ITER_ERROR);
    }

    if (ev->type == EV_BLOCK_MARKER && ev->et->size != EVLOG_VARIABLE_SIZE &&
        ev->payload_len >= 14) {
        uint32_t block_size = cursor_be32(ev->payload);
        uint16_t cap = cursor_be16(ev->payload + 12);
        it->block_end = pos + block_size;
        it->block_cap = cap;
        it->block_active = true;
        it->first_in_block = true;
        ev->cap = cap;
    } else {
        /* ghc-events semantics: the first event after a marker always belongs to the
         * block; later ones while they start before the block's end. */
        if (it->block_active && !it->first_in_block && pos >= it->block_end)
            it->block_active = false;
        it->first_in_block = false;
        ev->cap = it->block_active ? it->block_cap : EVLOG_NO_CAP;
    }
    it->pos = pos + ev->size;
    return true;
}

size_t
evlog_iter_next_run(evlog_iter *it, evlog_event *ev, size_t max, uint64_t end_pos)
{
    if (!max || it->pos >= end_pos || !evlog_iter_next(it, &ev[0]))
        return 0;
    it->run_opened = it->first_in_block;
    /* The rest as evlog_iter_next would take them, while none changes the block state:
     * a marker or an event that leaves the block ends the run before it (the next run
     * starts with it, and anything but an event, evlog_iter_next reports). The event
     * after a marker belongs to its block even past the block's end: such a run ends at
     * its marker. Each event's size comes from skim_size, as evlog_iter_next_stamps
     * takes it (one load, and no check that a marker, the end or an undeclared type
     * do not pass: their 0 ends the run, as a cut does), fields as evlog_parse_at
     * fills them. */
    const evlog *log = it->log;
    const uint8_t *data = log->data;
    const evlog_type *const *by_id = log->by_id;
    const uint32_t *skim = log->skim_size;
    size_t n_by_id = log->n_by_id;
    uint64_t pos = it->pos, data_end = it->data_end;
    uint64_t stop = it->block_active && it->block_end < end_pos ? it->block_end : end_pos;
    /* A type and a time (10 bytes) fit before data_end for every pos < lim. */
    uint64_t lim = data_end < 10 ? 0 : data_end - 9;
    lim = stop < lim ? stop : lim;
    uint16_t cap = ev[0].cap;
    size_t n = 1;
    while (n < max && pos < lim) {
        const uint8_t *p = data + pos;
        uint16_t type = cursor_be16(p);
        uint64_t size = type < n_by_id ? skim[type] : 0;
        uint32_t head = 10;
        if (size == EVLOG_SKIM_VARIABLE) {
            if (data_end - pos < 12)
                break;
            head = 12;
            size = 12 + (uint64_t)cursor_be16(p + 10);
        }
        if (size == 0 || data_end - pos < size)
            break;
        evlog_event *e = &ev[n++];
        e->offset = pos;
        e->time_ns = cursor_be64(p + 2);
        e->type = type;
        e->cap = cap;
        e->size = (uint32_t)size;
        e->payload_len = (uint32_t)size - head;
        e->payload = p + head;
        e->et = by_id[type];
        pos += size;
    }
    if (n > 1)
        it->first_in_block = false;
    it->pos = pos;
    return n;
}

size_t
evlog_iter_next_stamps(evlog_iter *it, evlog_stamp *out, size_t max, uint64_t end_pos,
                       uint16_t *cap)
{
    evlog_event first;
    if (!max || it->pos >= end_pos || !evlog_iter_next(it, &first))
        return 0;
    it->run_opened = it->first_in_block;
    out[0] = (evlog_stamp){ first.offset, first.time_ns };
    *cap = first.cap;
    /* evlog_iter_next_run's loop with evlog_parse_at's checks, keeping two fields: any
     * event it would not take whole (a marker, one leaving the block, the end of the
     * data, an undeclared type, a cut) ends the run before it, for the next call's
     * evlog_iter_next to decode and report. */
    const uint8_t *data = it->log->data;
    const uint32_t *skim = it->log->skim_size;
    size_t n_by_id = it->log->n_by_id;
    uint64_t pos = it->pos, data_end = it->data_end;
    uint64_t stop = it->block_active && it->block_end < end_pos ? it->block_end : end_pos;
    /* A type and a time (10 bytes) fit before data_end for every pos < lim. */
    uint64_t lim = data_end < 10 ? 0 : data_end - 9;
    lim = stop < lim ? stop : lim;
    size_t n = 1;
    while (n < max && pos < lim) {
        const uint8_t *p = data + pos;
        uint16_t type = cursor_be16(p);
        uint64_t size = type < n_by_id ? skim[type] : 0;
        if (size == EVLOG_SKIM_VARIABLE) {
            if (data_end - pos < 12)
                break;
            size = 12 + (uint64_t)cursor_be16(p + 10);
        }
        if (size == 0 || data_end - pos < size)
            break;
        out[n++] = (evlog_stamp){ pos, cursor_be64(p + 2) };
        pos += size;
    }
    if (n > 1)
        it->first_in_block = false;
    it->pos = pos;
    return n;
}

void
evlog_iter_mark_in_run(const evlog_iter *it, const evlog_event *run, size_t n, size_t k,
                       evlog_iter_mark *m)
{
    evlog_iter_save(it, m);
    m->pos = run[k].offset + run[k].size;
    (void)n;
    m->first_in_block = k == 0 && it->run_opened;     /* false after any other event */
}

bool
evlog_event_at(const evlog *log, uint64_t offset, uint16_t cap, evlog_event *ev)
{
    if (offset < log->data_start || offset > log->size ||
        evlog_parse_at(log, log->size, offset, ev) != EVLOG_PARSE_EVENT)
        return false;
    ev->cap = cap;
    return true;
}

void
evlog_iter_ending(const evlog_iter *it, diag *ending)
{
    if (it->state == EVLOG_ITER_END || it->state == EVLOG_ITER_OK)
        diag_clear(ending);
    else
        *ending = it->diag;
}
