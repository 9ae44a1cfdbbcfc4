/* ticky: ticky-ticky counters (a program built with -ticky, run with +RTS -lT): each
 * counter's definition and its entries and allocations per sample and in total, read
 * from every layout GHC has written — definitions without an info table (9.1), with
 * TICKY_BEGIN_SAMPLE events (9.3), with the info-table address and the argument
 * description as JSON in the kinds field (9.3 later), with a separate JSON field (9.5+).
 * GHC resets the counters after each sample, so a sample holds what happened since the
 * one before; a counter neither entered nor allocating since then is not in it. */
#ifndef ELOG_TICKY_H
#define ELOG_TICKY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ticky_counter {
    uint64_t id;                /* the counter's address, as samples name it */
    bool defined;               /* a TICKY_COUNTER_DEF was seen */
    uint16_t arity;
    const char *kinds;          /* argument kinds ("M", ""; "" when the field held the JSON
                                 * description, as in 9.3); owned by the table */
    const char *name;           /* "fib1{v sZs} (Main) (fun) in r1" */
    bool has_info_table;        /* the definition carries an info-table address */
    uint64_t info_table;        /* 0 for none (a counter of no closure) */
    const char *json;           /* JSON description, or NULL: the 9.5+ field, or the
                                 * kinds field when that is JSON (9.3) */
    uint64_t entries, allocs, allocd;   /* summed over every sample */
    uint32_t n_samples;         /* samples it appears in */
} ticky_counter;

/* One sample: what TICKY_BEGIN_SAMPLE opens (logs without it: a run of sample events,
 * a new one starting when a counter repeats). */
typedef struct ticky_sample {
    uint64_t time_ns;           /* the BEGIN's time, else the first sample event's */
    uint32_t first, n;          /* its entries: ticky_entry_at(first .. first + n) */
    uint64_t entries, allocs, allocd;   /* its counters summed */
} ticky_sample;

typedef struct ticky_entry {
    uint32_t counter;           /* ticky_counter_at index */
    uint64_t entries, allocs, allocd;
} ticky_entry;

/* The layouts told apart (the newest feature any definition or event used). */
typedef enum ticky_layout {
    TICKY_LAYOUT_NONE,          /* no ticky events */
    TICKY_LAYOUT_PLAIN,         /* id, arity, kinds, name; no begin events (9.1) */
    TICKY_LAYOUT_BEGIN,         /* the same with TICKY_BEGIN_SAMPLE (9.3, 2021) */
    TICKY_LAYOUT_ITBL,          /* + info-table address; JSON in the kinds field (9.3) */
    TICKY_LAYOUT_JSON,          /* + a JSON field of its own (9.5 and later) */
} ticky_layout;

typedef struct ticky ticky;

/* Empty. Caller frees with ticky_free (NULL is a no-op). */
ticky *ticky_new(void);
void ticky_free(ticky *t);

/* Building, in file order. Texts are copied. A definition payload shorter than id,
 * arity and the two strings is ignored (false). */
bool ticky_add_def(ticky *t, const uint8_t *payload, size_t len);
void ticky_begin_sample(ticky *t, uint64_t time_ns);
void ticky_add_sample(ticky *t, uint64_t time_ns, uint64_t id, uint64_t entries,
                      uint64_t allocs, uint64_t allocd);
/* Done: counters in definition order (counters only sampled, never defined, after
 * them in order of first appearance), totals counted. */
void ticky_seal(ticky *t);
/* Seal what came so far, leaving a sample in progress open (a log that grows: more of
 * its counters may come). O(counters + entries). */
void ticky_publish(ticky *t);

/* No ticky event was added. */
bool ticky_empty(const ticky *t);
ticky_layout ticky_layout_of(const ticky *t);
/* "9.1 (no info table)", ...: static text. */
const char *ticky_layout_name(ticky_layout l);

size_t ticky_n_counters(const ticky *t);
const ticky_counter *ticky_counter_at(const ticky *t, size_t i);
size_t ticky_n_samples(const ticky *t);
const ticky_sample *ticky_sample_at(const ticky *t, size_t i);
const ticky_entry *ticky_entry_at(const ticky *t, size_t i);
/* The last sample at or before t, or SIZE_MAX. */
size_t ticky_sample_by(const ticky *t, uint64_t time_ns);
uint64_t ticky_max_sample_entries(const ticky *t);

size_t ticky_bytes(const ticky *t);
/* Invariant checker (tests): sample entries name counters, totals equal a recount,
 * samples in time order. */
bool ticky_check(const ticky *t, char *why, size_t why_len);

#endif
