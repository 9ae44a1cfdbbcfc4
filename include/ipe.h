/* ipe: the info-table provenance (IPE) entries a log carries (GHC 9.2+ with
 * -finfo-table-map): for each info-table address its table name, closure type, type,
 * label, module and source location, so that -hi heap-profile bands (whose labels are
 * info-table addresses) and ticky counters can be named by source. */
#ifndef ELOG_IPE_H
#define ELOG_IPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry; every text is NUL-terminated and owned by the table. */
typedef struct ipe_entry {
    uint64_t info;              /* info-table address */
    const char *table_name;     /* "sat_s154_info" */
    const char *closure_desc;   /* as the log writes it: a closure-type number ("21")
                                 * in every GHC read, see ipe_closure_type_name */
    const char *ty_desc;        /* the Haskell type, may be empty */
    const char *label;          /* the binding, may be empty */
    const char *module;
    const char *src_loc;        /* "Test.hs:5:1-30" */
} ipe_entry;

typedef struct ipe_table ipe_table;

/* Empty table. Caller frees with ipe_table_free (NULL is a no-op). */
ipe_table *ipe_table_new(void);
void ipe_table_free(ipe_table *t);

/* Add the entry an IPE event's payload (169, variable-sized: u64 address then six
 * NUL-terminated strings) describes. False, and nothing added, if the payload is
 * shorter than that. Texts are copied. */
bool ipe_table_add(ipe_table *t, const uint8_t *payload, size_t len);
/* Done adding: entries sorted by address; of two entries for one address the first
 * in the log stays. Lookups want a sealed table. */
void ipe_table_seal(ipe_table *t);

/* Nothing was added (before or after sealing). */
bool ipe_table_empty(const ipe_table *t);
size_t ipe_table_count(const ipe_table *t);
/* Entry i (< count) in address order, borrowed. */
const ipe_entry *ipe_table_at(const ipe_table *t, size_t i);
/* The entry for address `info`, or NULL. O(log n). */
const ipe_entry *ipe_table_find(const ipe_table *t, uint64_t info);
size_t ipe_table_bytes(const ipe_table *t);

/* The closure-type name for a closure_desc that is a closure-type number in GHC's
 * numbering (ClosureTypes.h, the same from 8.6 to 9.14: 21 is THUNK_STATIC), else
 * NULL (the text is then a name already, shown as it is). */
const char *ipe_closure_type_name(const char *closure_desc);

/* Parse an address as the RTS prints a -hi band ("%p": "0x409f78"); false if `p` is
 * not that. */
bool ipe_parse_address(const uint8_t *p, size_t n, uint64_t *out);

#endif
