/* pausehist: pause histograms per generation in power-of-two buckets from 1 us —
 * bucket 0 holds pauses under 1 us, bucket k >= 1 those in [2^(k-1) us, 2^k us), the
 * last bucket everything longer — with the count and the total time of each bucket;
 * and their text and JSON forms. A plain value: fill it with pausehist_add. */
#ifndef ELOG_PAUSEHIST_H
#define ELOG_PAUSEHIST_H

#include <stdbool.h>
#include <stdint.h>

#include "evindex.h"
#include "strbuf.h"

#define PAUSEHIST_N_BUCKETS 40      /* the last starts at 2^38 us, about 3.2 days */
#define PAUSEHIST_MAX_GENS 8        /* generations 0..7; an unknown one is not counted */

typedef struct pausehist_gen {
    uint64_t count[PAUSEHIST_N_BUCKETS];
    uint64_t total_ns[PAUSEHIST_N_BUCKETS];
    uint64_t n, sum_ns;
} pausehist_gen;

typedef struct pausehist {
    unsigned n_gens;                /* rows shown: at least the log's generations */
    pausehist_gen gens[PAUSEHIST_MAX_GENS];
    uint64_t n_unknown_gen;         /* pauses of collections with no (or a bad) generation */
} pausehist;

/* Empty, with `n_gens` rows (clamped to 1..PAUSEHIST_MAX_GENS). */
void pausehist_init(pausehist *h, unsigned n_gens);
void pausehist_add(pausehist *h, unsigned gen, uint64_t pause_ns);
/* The bucket of a pause, and a bucket's bounds [lo, hi) in ns (hi UINT64_MAX for the
 * last). */
unsigned pausehist_bucket(uint64_t pause_ns);
uint64_t pausehist_bucket_lo(unsigned b);
uint64_t pausehist_bucket_hi(unsigned b);

/* The pauses (the `gc` table's pause column) of the collections whose pause starts in
 * [from_ns, to_ns), as `stats` counts a window. */
void pausehist_from_index(pausehist *h, const evindex *ix, uint64_t from_ns, uint64_t to_ns);

/* Text: per generation a title line, then one line per bucket from the first non-empty
 * to the last: bounds, count, a bar of `bar_cols` characters (# in ASCII) scaled to the
 * largest count, the bucket's total time. `indent` spaces before every line. */
void pausehist_text(strbuf *out, const pausehist *h, int bar_cols, int indent);
/* The non-empty buckets of every generation together: [*first, *last]; false if none. */
bool pausehist_range(const pausehist *h, unsigned *first, unsigned *last);
/* One character per bucket first..last of a generation: a block U+2581..U+2588 whose
 * height is its count against the largest bucket of the generation (the smallest
 * non-zero is one eighth), a space for an empty bucket. */
void pausehist_spark(strbuf *out, const pausehist_gen *g, unsigned first, unsigned last);
/* A bucket bound, exact below 1 s: "64us", "1.024ms". */
void pausehist_bound(strbuf *out, uint64_t ns);

/* TSV with a header: gen, lo_ns, hi_ns (empty for the last), count, total_ns; non-empty
 * buckets only. */
void pausehist_tsv(strbuf *out, const pausehist *h);
/* JSON: [{"gen":0,"count":N,"total_ns":T,"buckets":[{"lo_ns":..,"hi_ns":..|null,
 * "count":..,"total_ns":..},...]},...] with non-empty buckets only. */
void pausehist_json(strbuf *out, const pausehist *h);

#endif
