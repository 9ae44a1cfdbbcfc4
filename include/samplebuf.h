/* samplebuf: the series samples a one-shot index build holds from its walk to its
 * publish, delta-encoded in streams (one per key: a series and the capability block the
 * samples came from, file order within each) at a third of a plain record's bytes or
 * less, and handed back one key group at a time in (time, file offset) order by merging
 * the group's streams — no second copy of them all, as a sort would need. */
#ifndef ELOG_SAMPLEBUF_H
#define ELOG_SAMPLEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct samplebuf samplebuf;

#define SAMPLEBUF_MAX_VALUES 3

/* One record as pushed and as handed back. */
typedef struct samplebuf_rec {
    uint64_t time_ns, offset;
    uint64_t value[SAMPLEBUF_MAX_VALUES];   /* the first n_values are used */
    uint32_t key;
} samplebuf_rec;

/* An empty buffer of records with n_values (1 .. SAMPLEBUF_MAX_VALUES) values each.
 * Caller frees with samplebuf_free. */
samplebuf *samplebuf_new(unsigned n_values);
void samplebuf_free(samplebuf *sb);

/* Append a record to stream `key`; a stream's records are expected in (time, offset)
 * order, and any order is taken (a stream out of order is sorted when drained). */
void samplebuf_push(samplebuf *sb, uint32_t key, uint64_t time_ns, uint64_t offset,
                    const uint64_t *value);
size_t samplebuf_count(const samplebuf *sb);
/* Bytes held (streams and their table). */
size_t samplebuf_bytes(const samplebuf *sb);
/* Whether some record has a key in [lo, hi]. */
bool samplebuf_any(const samplebuf *sb, uint32_t lo, uint32_t hi);

/* Move the streams whose key is in [lo, hi] (their bytes, not copied) out of sb into a
 * new buffer of the same n_values, which the caller frees (samplebuf_free): two buffers
 * to drain on two threads at once. */
samplebuf *samplebuf_split_off(samplebuf *sb, uint32_t lo, uint32_t hi);
/* Append src's records to dst's (each of src's streams after dst's of the same key:
 * src's records come later in the file) and empty src; dst's n_values must be src's.
 * Frees src's streams as they are taken. */
void samplebuf_append_take(samplebuf *dst, samplebuf *src);

/* Hand every record to fn and empty the buffer: groups of keys (key >> group_shift; a
 * shift of 32 or more: one group) in ascending order, each group's records in (time,
 * offset) order, equal ones in key then push order. A stream's bytes are given back as
 * it is read, so the drain holds no more than the buffer did. */
typedef void samplebuf_fn(void *ctx, const samplebuf_rec *r);
void samplebuf_drain(samplebuf *sb, unsigned group_shift, samplebuf_fn *fn, void *ctx);

#endif
