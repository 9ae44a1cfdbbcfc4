/* msgtab: the index's markers and messages in time order, packed: chunks of up to
 * MSGTAB_CHUNK messages with frame-of-reference bit columns (time, file offset, cap,
 * kind) of per-chunk widths — about 6 bytes a message where a plain record takes 16.
 * While building, messages are packed as they come into per-capability lists; sealing
 * joins lists that follow one another in time as they are (the table is then a few
 * segments, runs of full chunks each ending in a short one) and merges the others
 * (copying as they are the chunks a list holds whole between the others' messages),
 * a big merge possibly in two halves on two threads (msgtab_split_*). */
#ifndef ELOG_MSGTAB_H
#define ELOG_MSGTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSGTAB_CHUNK 64

/* One message as handed in and out (a plain value). */
typedef struct msgtab_msg {
    uint64_t time_ns;
    uint64_t offset : 40;           /* the event in the file (files up to 1 TiB) */
    uint64_t cap : 16;
    uint64_t kind : 8;              /* evindex_msg_kind */
} msgtab_msg;

typedef struct msgtab msgtab;

/* The kind counted as a marker (msgtab_marker_at); the table's own rank. */
msgtab *msgtab_new(unsigned marker_kind);   /* caller frees with msgtab_free */
void msgtab_free(msgtab *mt);

/* Add a message in any order (the table sorts at seal). Adding to a sealed table
 * takes it back (queries wait for the next seal, which merges old and new). */
void msgtab_add(msgtab *mt, const msgtab_msg *m);
/* msgtab_add of the message with these fields (offset < 2^40, cap < 2^16, kind < 2^8):
 * the build's walk, which then builds no msgtab_msg. */
void msgtab_add_fields(msgtab *mt, uint64_t time_ns, uint64_t offset, unsigned cap,
                       unsigned kind);
/* Into a sealed table, n messages sorted by (time, offset) that may start before its
 * last (a growing index placing late ones): the chunks from the one where the first
 * new message goes are unpacked, merged with the new and packed again; the table stays
 * sealed. Cost: the messages after that chunk's start, plus n. Returns the index of
 * the first message that changed; *moved (if not NULL) gets the old ones repacked. */
size_t msgtab_append_sorted(msgtab *mt, const msgtab_msg *m, size_t n, uint64_t *moved);
/* Seal if needed and give spare room back (after the last msgtab_append_sorted). */
void msgtab_trim(msgtab *mt);
/* Move every message of src (unsealed) into dst (unsealed); src is left empty. O(lists):
 * src's lists join dst's as they are (the seal merges them). */
void msgtab_merge(msgtab *dst, msgtab *src);
/* Sort by (time, offset) and pack: sorted lists that follow one another (a capability
 * split between build workers) joined without repacking, overlapping ones merged a
 * chunk at a time, each list freed once passed. Queries need a sealed table. */
void msgtab_seal(msgtab *mt);

/* A seal in two halves on two threads, for a big merge of overlapping lists: begin
 * picks a time t splitting the messages about in half (by the lists' chunk bases) and
 * returns NULL if the seal is no such merge or holds fewer than min_msgs messages (then
 * msgtab_seal as usual); begin_at (tests) splits at the t given. Half 0 packs
 * the messages before t, half 1 those from t on. msgtab_split_run packs a half unless
 * another call took it (then it returns false at once); calls may run at once on
 * different threads (nothing else may touch mt meanwhile), so a thread that comes free
 * takes what is left; the call that packs the second half joins the halves (half 1 a
 * segment after half 0), seals and trims the table. end (after the runs) packs any half
 * not taken and frees sp. The table holds the same messages in the same order as
 * msgtab_seal's. */
typedef struct msgtab_split msgtab_split;
/* Merges the build splits: smaller ones seal on one thread. */
#define MSGTAB_SPLIT_MIN 65536
msgtab_split *msgtab_split_begin(msgtab *mt, size_t min_msgs); /* freed by msgtab_split_end */
msgtab_split *msgtab_split_begin_at(msgtab *mt, uint64_t t);    /* freed by msgtab_split_end */
bool msgtab_split_run(msgtab_split *sp, unsigned half);
void msgtab_split_end(msgtab *mt, msgtab_split *sp);

size_t msgtab_count(const msgtab *mt);
/* Message i (< count) by value. */
msgtab_msg msgtab_at(const msgtab *mt, size_t i);
/* Messages [i, i + n) into out[] (those that exist: the count is returned), as msgtab_at
 * gives them one by one, each chunk's columns read in turn. */
size_t msgtab_range(const msgtab *mt, size_t i, size_t n, msgtab_msg *out);
/* Index of the first message with time >= t (count if none). */
size_t msgtab_first_from(const msgtab *mt, uint64_t t);

/* Markers: the messages of the marker kind, in the same order. */
size_t msgtab_n_markers(const msgtab *mt);
/* Index (in msgtab_at order) of marker k (< n_markers). */
size_t msgtab_marker_index(const msgtab *mt, size_t k);
/* Markers among messages [0, i). */
size_t msgtab_markers_before(const msgtab *mt, size_t i);

/* Heap bytes owned by the table. */
size_t msgtab_bytes(const msgtab *mt);
/* Invariant checker (tests): sorted by (time, offset), chunk headers consistent with
 * their columns (canonical widths and bases, marker counts). True if sound; else
 * writes the first violation into why. */
bool msgtab_check(const msgtab *mt, char *why, size_t why_len);

#endif
