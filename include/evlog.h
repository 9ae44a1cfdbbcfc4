/* evlog: an opened eventlog — the memory-mapped file, its parsed header (event
 * type list) and a file-order iterator over events that assigns each event the
 * capability of its enclosing BLOCK_MARKER, exactly as ghc-events does. */
#ifndef ELOG_EVLOG_H
#define ELOG_EVLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "evtype.h"

typedef struct evlog evlog;

/* One entry of the header's event-type list. */
typedef struct evlog_type {
    uint16_t id;
    uint16_t size;              /* payload bytes, or EVLOG_VARIABLE_SIZE */
    const uint8_t *desc;        /* description bytes, borrowed from the mapping */
    uint32_t desc_len;
    const evtype_desc *known;   /* our descriptor, NULL for an id we do not know */
    bool fixed_complete;        /* known, fixed-size, and every field fits: fast decode */
} evlog_type;

/* Open and map `path`, parse its header. NULL with `d` filled on failure (I/O,
 * not an eventlog, malformed or truncated header). Caller frees with evlog_close. */
evlog *evlog_open(const char *path, diag *d);
/* Same over bytes the caller owns and keeps alive until evlog_close (tests, fuzzing). */
evlog *evlog_open_bytes(const uint8_t *data, size_t len, diag *d);
/* A log still being written: the first `size` bytes of the file open at `fd` (which
 * the caller keeps; it is duplicated), mapped so that evlog_grow can add bytes as they
 * arrive without moving any (see mapfile_open_growing; `reserve` bytes of address
 * space). NULL with `d` on failure; *short_header is then true when the bytes end
 * inside the header, so a later call with more bytes may succeed. Caller frees with
 * evlog_close. */
evlog *evlog_open_growing(int fd, size_t size, size_t reserve, diag *d, bool *short_header);
/* The file of a growing log now holds `size` bytes: so does the log (never less than
 * before). Iterators keep their end until evlog_iter_resume. False with `d` if the
 * bytes cannot be mapped; no-op for other logs. */
bool evlog_grow(evlog *log, size_t size, diag *d);
void evlog_close(evlog *log);

size_t evlog_n_types(const evlog *log);
/* Header order; i < evlog_n_types. */
const evlog_type *evlog_type_at(const evlog *log, size_t i);
/* The (last) declaration of `id`, or NULL if the header does not declare it. */
const evlog_type *evlog_type_of(const evlog *log, uint16_t id);

const uint8_t *evlog_bytes(const evlog *log);
size_t evlog_size(const evlog *log);
/* Offset of the first event (just after DATA_BEGIN). */
uint64_t evlog_data_start(const evlog *log);
/* Hint that the whole file will now be read front to back. */
void evlog_advise_sequential(const evlog *log);
/* Bytes [from, to) will not be read again soon: let their pages go from resident memory
 * (see mapfile_release); they stay readable. No-op over caller bytes. */
void evlog_release(const evlog *log, uint64_t from, uint64_t to);
/* The mapped file shrank while open (see mapfile_changed): bytes from *first_bad_offset
 * on are not the file's any more (0xff bytes, read as the end of the data). Always
 * false for a log opened over caller bytes. */
bool evlog_changed(const evlog *log, uint64_t *first_bad_offset);
/* The file was rewritten in place while open (see mapfile_rewritten): what was read
 * may mix old and new bytes. False over caller bytes. */
bool evlog_rewritten(const evlog *log);
/* The file on disk differs from what was mapped: changed as above, grew, modified or
 * replaced (see mapfile_stale). False over caller bytes. */
bool evlog_stale(const evlog *log);

/* One event as found in the file. */
typedef struct evlog_event {
    uint64_t offset;            /* file offset of the event's type field */
    uint64_t time_ns;
    uint16_t type;
    uint16_t cap;               /* EVLOG_NO_CAP outside capability blocks */
    uint32_t size;              /* whole event in bytes */
    uint32_t payload_len;
    const uint8_t *payload;     /* borrowed from the mapping */
    const evlog_type *et;
} evlog_event;

enum evlog_iter_state {
    EVLOG_ITER_OK,              /* more events may follow */
    EVLOG_ITER_END,             /* reached DATA_END */
    EVLOG_ITER_TRUNCATED,       /* data stops early: no DATA_END or a partial event */
    EVLOG_ITER_ERROR,           /* malformed data; events before it are fine */
};

/* File-order iterator. Fields are private to evlog.c except `state` and `diag`. */
typedef struct evlog_iter {
    const evlog *log;
    uint64_t pos;
    uint64_t data_end;          /* reads stop here: the log's size, or evlog_iter_cut */
    uint64_t block_end;         /* end offset of the current block */
    uint16_t block_cap;
    bool block_active;          /* the current block still assigns its cap */
    bool first_in_block;
    bool run_opened;            /* the last run's first event opened a block */
    enum evlog_iter_state state;
    diag diag;                  /* why iteration stopped (TRUNCATED or ERROR) */
} evlog_iter;

/* Start at the first event. */
void evlog_iter_init(evlog_iter *it, const evlog *log);
/* Start at `offset`, which must be the start of an event (e.g. a BLOCK_MARKER seen by
 * an earlier pass), as if no block were open before it. */
void evlog_iter_init_at(evlog_iter *it, const evlog *log, uint64_t offset);
/* Read the data as if the file ended at byte `end` (at most the log's size): an event
 * not wholly before it ends the iteration as truncated, as `head -c end` would. For
 * re-reading a file that was cut while it was read (evlog_changed). */
void evlog_iter_cut(evlog_iter *it, uint64_t end);
/* After evlog_grow: an iterator that stopped as truncated (or is still going) reads on
 * to the log's new size, from the event it stopped at. Other states stay. */
void evlog_iter_resume(evlog_iter *it);
/* To come back to a position later, copy the evlog_iter struct: it is a plain value,
 * or keep only its position and block context in an evlog_iter_mark (24 bytes). */
typedef struct evlog_iter_mark {
    uint64_t pos;
    uint64_t block_end;
    uint16_t block_cap;
    bool block_active;
    bool first_in_block;
} evlog_iter_mark;
void evlog_iter_save(const evlog_iter *it, evlog_iter_mark *m);
/* Resume at a saved mark of an iterator over the same log, state OK. */
void evlog_iter_restore(evlog_iter *it, const evlog *log, const evlog_iter_mark *m);
/* Next event into *ev: true, or false when iteration stops (see it->state). */
bool evlog_iter_next(evlog_iter *it, evlog_event *ev);
/* The next events, as evlog_iter_next gives them, into ev[0 .. n), n <= max, each
 * starting before `end_pos`: a run in which only the first event may be a BLOCK_MARKER
 * or leave its block, so that all n have one capability and the iterator's state after
 * each differs only in its position (evlog_iter_mark_in_run). 0 when iteration stops
 * (see it->state) or stands at end_pos. For walks that do a little per event. */
size_t evlog_iter_next_run(evlog_iter *it, evlog_event *ev, size_t max, uint64_t end_pos);
/* An event's file offset and time, all a time-range search looks at. */
typedef struct evlog_stamp {
    uint64_t offset;
    uint64_t time_ns;
} evlog_stamp;
/* The same run evlog_iter_next_run(it, ..., max, end_pos) would give, only each event's
 * offset and time into out[0 .. n), and the run's capability into *cap (the one all its
 * events have). Cheaper per event: for searches that read many events to keep a few. */
size_t evlog_iter_next_stamps(evlog_iter *it, evlog_stamp *out, size_t max, uint64_t end_pos,
                              uint16_t *cap);
/* The iterator's state just after run[k] of the last run (n events) evlog_iter_next_run
 * gave `it`, as evlog_iter_save would have saved it then. */
void evlog_iter_mark_in_run(const evlog_iter *it, const evlog_event *run, size_t n, size_t k,
                            evlog_iter_mark *m);

/* How iteration ended, as a diag: DIAG_OK for the end-of-data marker, else the
 * truncation or error that stopped it. */
void evlog_iter_ending(const evlog_iter *it, diag *ending);
/* Re-read the event starting at `offset` (found earlier by an iterator) and give it
 * capability `cap`. False if no whole event of a declared type starts there. */
bool evlog_event_at(const evlog *log, uint64_t offset, uint16_t cap, evlog_event *ev);

#endif
