/* bitpack: unsigned values of a fixed bit width (0..64) packed end to end in u64 words
 * — the one implementation of field reads and writes behind the index's compact
 * structures (runlane, series, timelist). A read loads the word after the one its field
 * starts in, so packed data must be followed by one more readable word (padding, or the
 * next structure); no shift is by 64. */
#ifndef ELOG_BITPACK_H
#define ELOG_BITPACK_H

#include <stdint.h>
#include <string.h>

/* Bits needed for v: 0 for 0, else the position of its top bit plus one. */
static inline unsigned
bitpack_width(uint64_t v)
{
    return v ? 64 - (unsigned)__builtin_clzll(v) : 0;
}

/* Set bits of v, inline (a plain -O2 build makes __builtin_popcountll a library call). */
static inline unsigned
bitpack_popcount(uint64_t v)
{
    v = v - ((v >> 1) & UINT64_C(0x5555555555555555));
    v = (v & UINT64_C(0x3333333333333333)) + ((v >> 2) & UINT64_C(0x3333333333333333));
    v = (v + (v >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (unsigned)((v * UINT64_C(0x0101010101010101)) >> 56);
}

/* The low w bits set (w <= 64). */
static inline uint64_t
bitpack_mask(unsigned w)
{
    return w ? UINT64_MAX >> (64 - w) : 0;
}

/* The field at bit `bit` under mask (bitpack_mask of its width): for callers that keep
 * the mask of a column at hand. */
static inline uint64_t
bitpack_get_masked(const uint64_t *words, uint64_t bit, uint64_t mask)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* A field of at most 57 bits lies inside the 8 bytes from the byte it starts in,
     * which are inside the two words the general read loads: one unaligned load. */
    if (!(mask >> 57)) {
        uint64_t v;
        memcpy(&v, (const unsigned char *)words + (bit >> 3), sizeof v);
        return v >> (bit & 7) & mask;
    }
#endif
    const uint64_t *p = words + (bit >> 6);
    unsigned sh = (unsigned)(bit & 63);
    return (p[0] >> sh | p[1] << 1 << (63 - sh)) & mask;
}

/* The w-bit field at bit `bit`. */
static inline uint64_t
bitpack_get(const uint64_t *words, uint64_t bit, unsigned w)
{
    return bitpack_get_masked(words, bit, bitpack_mask(w));
}

/* OR x (< 2^w) into the w bits at `bit`, which are zero; the word after is touched only
 * when the field spills into it. */
static inline void
bitpack_put(uint64_t *words, uint64_t bit, uint64_t x, unsigned w)
{
    if (!w)
        return;
    uint64_t *p = words + (bit >> 6);
    unsigned sh = (unsigned)(bit & 63);
    p[0] |= x << sh;
    if (sh + w > 64)
        p[1] |= x >> (64 - sh);
}

/* A run of fields written one after another from a word on: bits gathered in a
 * register and ORed into the (zeroed) words a word at a time, for loops that write
 * a column value by value (several columns at once if they like). */
typedef struct bitpack_writer {
    uint64_t *p;                /* the word being filled */
    uint64_t acc;               /* its bits so far */
    unsigned fill, w;           /* bits of acc in use (< 64), the fields' width */
} bitpack_writer;

static inline bitpack_writer
bitpack_writer_at(uint64_t *words, unsigned w)
{
    return (bitpack_writer){ words, 0, 0, w };
}

/* Append x (< 2^w; 0 when w is 0, which writes nothing). */
static inline void
bitpack_writer_put(bitpack_writer *bw, uint64_t x)
{
    bw->acc |= x << bw->fill;
    bw->fill += bw->w;
    if (bw->fill >= 64) {
        *bw->p++ |= bw->acc;
        bw->fill -= 64;
        bw->acc = x >> 1 >> (bw->w - 1 - bw->fill);    /* x's bits past the word; 0 if none */
    }
}

/* OR in the last, partial word. */
static inline void
bitpack_writer_flush(bitpack_writer *bw)
{
    if (bw->fill)
        *bw->p |= bw->acc;
}

#endif
