/* heapprof: the heap profile's censuses broken down by band, as `+RTS -h` writes them
 * to the eventlog — a band is a cost-centre stack (-hc, -hm... with
 * HEAP_PROF_SAMPLE_COST_CENTRE) or a description string (-hT, -hd, -hy, -hi... with
 * HEAP_PROF_SAMPLE_STRING) — with each band's peak and mean residency, the cost-centre
 * definitions, and the bytes of every band in every census. */
#ifndef ELOG_HEAPPROF_H
#define ELOG_HEAPPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

typedef enum heapprof_band_kind {
    HEAPPROF_BAND_STACK,        /* a cost-centre stack, innermost first */
    HEAPPROF_BAND_STRING,       /* a closure / type / module description */
} heapprof_band_kind;

typedef struct heapprof_band {
    heapprof_band_kind kind;
    uint64_t peak_bytes;        /* largest residency in one census */
    uint64_t peak_time_ns;      /* that census's time (the first such) */
    uint64_t sum_bytes;         /* over all censuses: mean = sum / censuses */
    uint64_t last_bytes;        /* in the last census (0 if absent from it) */
    uint32_t n_censuses;        /* censuses it appears in */
} heapprof_band;

typedef struct heapprof_census {
    uint64_t time_ns;           /* when it was taken (see heapprof_census_begin) */
    uint64_t total_bytes;       /* sum of its bands */
    uint32_t first_entry, n_entries;    /* its (band, bytes) entries */
} heapprof_census;

/* HEAP_PROF_BEGIN's breakdown (GHC's HEAP_PROF_BREAKDOWN_*; -he and -hi since 9.10
 * and 9.2). */
typedef enum heapprof_breakdown {
    HEAPPROF_BY_UNKNOWN = 0,    /* no HEAP_PROF_BEGIN (or an id GHC never wrote) */
    HEAPPROF_BY_COST_CENTRE = 1,    /* -hc */
    HEAPPROF_BY_MODULE = 2,         /* -hm */
    HEAPPROF_BY_CLOSURE_DESCR = 3,  /* -hd */
    HEAPPROF_BY_TYPE_DESCR = 4,     /* -hy */
    HEAPPROF_BY_RETAINER = 5,       /* -hr */
    HEAPPROF_BY_BIOGRAPHY = 6,      /* -hb */
    HEAPPROF_BY_CLOSURE_TYPE = 7,   /* -hT */
    HEAPPROF_BY_INFO_TABLE = 8,     /* -hi: bands are info-table addresses ("0x4a2b10") */
    HEAPPROF_BY_ERA = 9,            /* -he: bands are eras ("3") */
} heapprof_breakdown;

typedef struct heapprof heapprof;

/* Empty profile. Caller frees with heapprof_free. */
heapprof *heapprof_new(void);
void heapprof_free(heapprof *hp);

/* Building, in file order. Texts are copied (they are few: one per cost centre and
 * one per distinct string band). */
void heapprof_cost_centre(heapprof *hp, uint32_t id, const uint8_t *label, size_t label_len,
                          const uint8_t *module, size_t module_len, const uint8_t *srcloc,
                          size_t srcloc_len, bool is_caf);
/* Opens a census taken at time_ns (closing one left open). Censuses may come in any
 * time order — GHC writes the biographical (-hb) ones all at the end of the run, each
 * with its own time —: heapprof_seal puts them in time order. */
void heapprof_census_begin(heapprof *hp, uint64_t time_ns);
/* Opens a later stretch's head (a parallel build's later worker, before it meets a
 * census's BEGIN or END): census 0, time 0, taking the samples that belong to the census
 * open in the stretch before. Its entries are not counted into the bands (heapprof_append
 * adds them to that census). Only as the first census; ignored after one. */
void heapprof_head_begin(heapprof *hp);
/* A band's bytes in the open census (ignored when none is open). A band named twice
 * in one census adds up. depth may be 0 (the empty stack). A string ends at its first
 * NUL, if text's len bytes hold one. */
void heapprof_sample_stack(heapprof *hp, const uint32_t *ccs, size_t depth, uint64_t bytes);
void heapprof_sample_string(heapprof *hp, const uint8_t *text, size_t len, uint64_t bytes);
/* heapprof_sample_string of the NUL-terminated string at p, as the log writes it: the NUL
 * within the avail bytes from p (ignored when there is none). Tries the band at this
 * place in the census before first, which needs no search for the NUL. */
void heapprof_sample_cstr(heapprof *hp, const uint8_t *p, size_t avail, uint64_t bytes);
void heapprof_census_end(heapprof *hp);
/* Append src, a later stretch of the same log built on its own (a parallel build's later
 * worker), to dst, both unsealed: src's cost centres, breakdown (when dst has none) and
 * censuses after dst's, the last left open if it is open in src, bands numbered as one
 * walk over both would number them. With `head`, src's first census is its head
 * (heapprof_head_begin): the samples src took before it met a census's BEGIN or END,
 * which belong to the census open in dst (dropped if none is), and it closes that census
 * unless it is still open. src's packed entries are taken over where they lie, not
 * copied (src is left without them: the caller frees it). Cost: src's bands and texts,
 * and a pass over its entries only when src numbers its bands otherwise than dst (or
 * its head is dropped). */
void heapprof_append(heapprof *dst, heapprof *src, bool head);
/* Done: closes an open census, sorts the censuses by time (file order among equal
 * times; bands recounted in that order) and the cost centres by id. The queries below
 * want a sealed profile. */
void heapprof_seal(heapprof *hp);
/* Record the profile's breakdown (HEAP_PROF_BEGIN; the first one stays). */
void heapprof_set_breakdown(heapprof *hp, uint32_t breakdown);
heapprof_breakdown heapprof_breakdown_of(const heapprof *hp);
/* "closure type (-hT)", ...: static text; "unknown" for HEAPPROF_BY_UNKNOWN. */
const char *heapprof_breakdown_name(heapprof_breakdown b);

size_t heapprof_n_censuses(const heapprof *hp);
/* Census i (< count), borrowed. */
const heapprof_census *heapprof_census_at(const heapprof *hp, size_t i);
/* Entry k (< n_entries) of census i: its band and bytes. */
void heapprof_entry(const heapprof *hp, size_t i, size_t k, uint32_t *band, uint64_t *bytes);
/* The last census at or before t, or SIZE_MAX. */
size_t heapprof_census_by(const heapprof *hp, uint64_t t);
/* Census i's bytes added up by group: each entry's bytes into sums[group[band]] (a group
 * for every band, each < n_groups; sums[] is added to, not cleared). One pass over the
 * census's entries (a screen column of a stacked band plot). */
void heapprof_census_group_sums(const heapprof *hp, size_t i, const uint8_t *group,
                                uint64_t *sums);
/* The bytes of each of the n distinct bands[] in census i into bytes[] (0 when absent
 * from it). hint[] (n of them) is where to look first: an entry index, e.g. where the
 * band was in the census before (the RTS lists bands in nearly the same order each
 * time); on return, where it was found (left as it was when absent). Reads one entry a
 * band when the hints hold, and the census's entries once when some band is elsewhere
 * or absent. */
void heapprof_census_bands(const heapprof *hp, size_t i, const uint32_t *bands, size_t n,
                           uint32_t *hint, uint64_t *bytes);

size_t heapprof_n_bands(const heapprof *hp);
/* Band b (< count), borrowed. */
const heapprof_band *heapprof_band_at(const heapprof *hp, size_t b);
/* Append band b's name: the string as the log writes it (for -hb an LDV state: LAG,
 * DRAG, VOID, USE, INHERENT_USE; for -hr a retainer set "(id)CC,CC,..."), or the
 * stack's cost-centre labels innermost first joined by '/', a "CAF" cost centre as
 * "Module.CAF" (as the RTS names them in the .hp file; "MAIN" for the empty stack, "#id"
 * for an id with no definition). Raw bytes from the log: escape them for the output. */
void heapprof_band_name(const heapprof *hp, size_t b, strbuf *out);
/* Band b's stack: cost-centre ids innermost first (NULL and 0 for a string band). */
const uint32_t *heapprof_band_stack(const heapprof *hp, size_t b, size_t *depth);

size_t heapprof_n_cost_centres(const heapprof *hp);
/* Cost centre `id`'s definition; false if none was seen. Texts borrowed. */
bool heapprof_cost_centre_find(const heapprof *hp, uint32_t id, const char **label,
                               const char **module, const char **srcloc, bool *is_caf);

size_t heapprof_bytes(const heapprof *hp);
/* Invariant checker (tests): censuses in time order with totals equal to their entries,
 * entries naming bands, band peaks, sums and counts equal to a recount. */
bool heapprof_check(const heapprof *hp, char *why, size_t why_len);

#endif
