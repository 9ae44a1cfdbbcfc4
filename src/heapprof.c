/* heapprof: heap-profile bands interned in a hash (strings and cost-centre stacks as
 * keys, their texts and ids copied into small pools), censuses as runs of (band, bytes)
 * entries packed at fixed per-census widths (a few bytes each instead of twelve) in a
 * pool of a few segments (a parallel build's later stretch hands its own over whole),
 * censuses sorted by time and cost-centre definitions by id at seal. */
#include "heapprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkfail.h"
#include "xalloc.h"

#define HEAPPROF_MIN_SLOTS 64u
#define HEAPPROF_NONE UINT32_MAX

typedef struct heapprof_key {
    uint32_t first, len;        /* STRING: bytes in the text pool; STACK: ids in the stack pool */
    uint32_t census;            /* last census it had an entry in (HEAPPROF_NONE: none) */
    uint32_t entry;             /* that entry's index */
} heapprof_key;

/* Where a closed census's entries are packed: each entry is bw bytes of band and yw
 * bytes of (bytes >> shift), little-endian, at off + k * (bw + yw) in segment seg of
 * the pool. */
typedef struct heapprof_pack {
    uint64_t off;
    uint8_t bw, yw, shift, seg;
} heapprof_pack;

/* A segment of the pool: a later stretch's packed entries are taken over as they are
 * (heapprof_append), so the pool is a few blocks; closed censuses pack onto the last. */
typedef struct heapprof_seg {
    uint8_t *base;              /* owned */
    size_t n, cap;
} heapprof_seg;

#define HEAPPROF_MAX_SEGS 255u  /* a pack's seg is a byte */

typedef struct heapprof_cc {
    uint32_t id;
    uint32_t label, module, srcloc;     /* NUL-terminated texts in the text pool */
    uint32_t order;                     /* definition order: the latest wins */
    bool is_caf;
} heapprof_cc;

struct heapprof {
    char *text;                 /* owned; the text pool */
    size_t n_text, cap_text;
    uint32_t *stk;              /* owned; the stack pool */
    size_t n_stk, cap_stk;
    heapprof_band *bands;       /* owned */
    heapprof_key *keys;         /* owned; parallel to bands */
    size_t n_bands, cap_bands;
    uint32_t *slots;            /* owned; 1 + band index, 0 = empty; power of two, load <= 1/2 */
    size_t n_slots;
    heapprof_census *census;    /* owned */
    size_t n_census, cap_census;
    heapprof_pack *pack;        /* owned; parallel to census (the open one's is unused) */
    size_t cap_pack;
    heapprof_seg *segs;         /* owned; the closed censuses' packed entries */
    size_t n_segs, cap_segs;
    size_t n_dead;              /* pool bytes no census packs (heads and renumbered ones) */
    size_t n_ent;               /* entries of all censuses */
    uint32_t *open_band;        /* owned; the open census's entries, unpacked while */
    uint64_t *open_bytes;       /* owned   a band named twice can still add up */
    size_t n_open, cap_open;
    heapprof_cc *ccs;           /* owned; sorted by id and unique once sealed */
    size_t n_ccs, cap_ccs;
    bool open;                  /* census n_census - 1 is taking entries */
    bool head;                  /* census 0 is a head (heapprof_head_begin): not counted */
    size_t n_in_census;         /* samples taken by the open census so far */
    bool sealed;
    heapprof_breakdown breakdown;
};

heapprof *
heapprof_new(void)
{
    heapprof *hp = xcalloc(1, sizeof *hp);         /* caller frees: heapprof_free */
    hp->n_slots = HEAPPROF_MIN_SLOTS;
    hp->slots = xcalloc(hp->n_slots, sizeof *hp->slots);   /* owned by hp */
    return hp;
}

void
heapprof_free(heapprof *hp)
{
    if (!hp)
        return;
    x_free(hp->text);
    x_free(hp->stk);
    x_free(hp->bands);
    x_free(hp->keys);
    x_free(hp->slots);
    x_free(hp->census);
    x_free(hp->pack);
    for (size_t i = 0; i < hp->n_segs; i++)
        x_free(hp->segs[i].base);
    x_free(hp->segs);
    x_free(hp->open_band);
    x_free(hp->open_bytes);
    x_free(hp->ccs);
    x_free(hp);
}

/* Copy n bytes into the text pool, NUL-terminated; their offset. */
static uint32_t
heapprof_text_add(heapprof *hp, const uint8_t *p, size_t n)
{
    xgrowarray((void **)&hp->text, &hp->cap_text, hp->n_text + n + 1, 16, 1);
    uint32_t at = (uint32_t)hp->n_text;
    if (n)
        memcpy(hp->text + at, p, n);
    hp->text[at + n] = '\0';
    hp->n_text += n + 1;
    return at;
}

void
heapprof_cost_centre(heapprof *hp, uint32_t id, const uint8_t *label, size_t label_len,
                     const uint8_t *module, size_t module_len, const uint8_t *srcloc,
                     size_t srcloc_len, bool is_caf)
{
    xgrowarray((void **)&hp->ccs, &hp->cap_ccs, hp->n_ccs + 1, 16, sizeof *hp->ccs);
    heapprof_cc *cc = &hp->ccs[hp->n_ccs];
    cc->id = id;
    cc->label = heapprof_text_add(hp, label, label_len);
    cc->module = heapprof_text_add(hp, module, module_len);
    cc->srcloc = heapprof_text_add(hp, srcloc, srcloc_len);
    cc->order = (uint32_t)hp->n_ccs;
    cc->is_caf = is_caf;
    hp->n_ccs++;
    hp->sealed = false;
}

static uint32_t
heapprof_hash(heapprof_band_kind kind, const void *p, size_t n)
{
    const uint8_t *b = p;
    uint32_t h = 2166136261u ^ (uint32_t)kind;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    /* FNV's low bits hardly depend on the early bytes, and labels differ there
     * ("Band17.T", "Band18.T"): mix every bit down (murmur3's finalizer). */
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static bool
heapprof_key_is(const heapprof *hp, size_t b, heapprof_band_kind kind, const void *p,
                size_t n)
{
    const heapprof_key *k = &hp->keys[b];
    if (hp->bands[b].kind != kind)
        return false;
    if (kind == HEAPPROF_BAND_STRING)
        return k->len == n && memcmp(hp->text + k->first, p, n) == 0;
    return (size_t)k->len * sizeof(uint32_t) == n && memcmp(hp->stk + k->first, p, n) == 0;
}

static uint32_t *
heapprof_probe(const heapprof *hp, heapprof_band_kind kind, const void *p, size_t n)
{
    size_t mask = hp->n_slots - 1;
    for (size_t i = heapprof_hash(kind, p, n) & mask;; i = (i + 1) & mask) {
        uint32_t *sl = &hp->slots[i];
        if (*sl == 0 || heapprof_key_is(hp, *sl - 1, kind, p, n))
            return sl;
    }
}

static const void *
heapprof_key_bytes(const heapprof *hp, size_t b, size_t *n)
{
    const heapprof_key *k = &hp->keys[b];
    if (hp->bands[b].kind == HEAPPROF_BAND_STRING) {
        *n = k->len;
        return hp->text + k->first;
    }
    *n = (size_t)k->len * sizeof(uint32_t);
    return hp->stk + k->first;
}

/* The band with this key, added if new. */
static size_t
heapprof_band_get(heapprof *hp, heapprof_band_kind kind, const void *p, size_t n)
{
    uint32_t *sl = heapprof_probe(hp, kind, p, n);
    if (*sl)
        return *sl - 1;
    if (2 * (hp->n_bands + 1) > hp->n_slots) {
        x_free(hp->slots);
        hp->n_slots *= 2;
        hp->slots = xcalloc(hp->n_slots, sizeof *hp->slots);  /* owned by hp */
        for (size_t b = 0; b < hp->n_bands; b++) {
            size_t kn;
            const void *kp = heapprof_key_bytes(hp, b, &kn);
            *heapprof_probe(hp, hp->bands[b].kind, kp, kn) = (uint32_t)(b + 1);
        }
        sl = heapprof_probe(hp, kind, p, n);
    }
    size_t had = hp->cap_bands;
    xgrowarray((void **)&hp->bands, &hp->cap_bands, hp->n_bands + 1, 16, sizeof *hp->bands);
    if (hp->cap_bands != had)   /* parallel to bands: grown with them, not on every band */
        hp->keys = xreallocarray(hp->keys, hp->cap_bands, sizeof *hp->keys);  /* owned by hp */
    size_t b = hp->n_bands++;
    memset(&hp->bands[b], 0, sizeof hp->bands[b]);
    hp->bands[b].kind = kind;
    heapprof_key *k = &hp->keys[b];
    k->census = HEAPPROF_NONE;
    k->entry = 0;
    if (kind == HEAPPROF_BAND_STRING) {
        k->first = heapprof_text_add(hp, p, n);
        k->len = (uint32_t)n;
    } else {
        size_t depth = n / sizeof(uint32_t);
        xgrowarray((void **)&hp->stk, &hp->cap_stk, hp->n_stk + depth, 16, sizeof *hp->stk);
        if (depth)
            memcpy(hp->stk + hp->n_stk, p, n);
        k->first = (uint32_t)hp->n_stk;
        k->len = (uint32_t)depth;
        hp->n_stk += depth;
    }
    *sl = (uint32_t)(b + 1);
    return b;
}

/* Bytes needed for v (at least 1). */
static uint8_t
heapprof_width(uint64_t v)
{
    uint8_t w = 1;
    while (w < 8 && (v >> (8 * w)) != 0)
        w++;
    return w;
}

/* Little-endian w-byte fields (1 <= w <= 8): whole loads and stores on a little-endian
 * host (the packed entries are read for every sample the walk guesses a band from and
 * written at every census's end), byte by byte elsewhere. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HEAPPROF_LE 1
#else
#define HEAPPROF_LE 0
#endif

static inline uint64_t
heapprof_ld16(const uint8_t *p)
{
    uint16_t v;
    memcpy(&v, p, 2);
    return v;
}

static inline uint64_t
heapprof_ld32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline uint64_t
heapprof_load(const uint8_t *p, unsigned w)
{
    if (HEAPPROF_LE) {
        switch (w) {
        case 1: return p[0];
        case 2: return heapprof_ld16(p);
        case 3: return heapprof_ld16(p) | (uint64_t)p[2] << 16;
        case 4: return heapprof_ld32(p);
        case 5: return heapprof_ld32(p) | (uint64_t)p[4] << 32;
        case 6: return heapprof_ld32(p) | heapprof_ld16(p + 4) << 32;
        case 7: return heapprof_ld32(p) | heapprof_ld16(p + 4) << 32 | (uint64_t)p[6] << 48;
        default: {
            uint64_t v;
            memcpy(&v, p, 8);
            return v;
        }
        }
    }
    uint64_t v = 0;
    for (unsigned i = w; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static inline void
heapprof_store(uint8_t *p, unsigned w, uint64_t v)
{
    if (HEAPPROF_LE) {
        uint16_t v16 = (uint16_t)v;
        uint32_t v32 = (uint32_t)v;
        switch (w) {
        case 1: p[0] = (uint8_t)v; return;
        case 2: memcpy(p, &v16, 2); return;
        case 3: memcpy(p, &v16, 2); p[2] = (uint8_t)(v >> 16); return;
        case 4: memcpy(p, &v32, 4); return;
        case 8: memcpy(p, &v, 8); return;
        default: break;
        }
    }
    for (unsigned i = 0; i < w; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Where closed census ci's packed entries start. */
static inline const uint8_t *
heapprof_packed(const heapprof *hp, size_t ci)
{
    const heapprof_pack *pk = &hp->pack[ci];
    return hp->segs[pk->seg].base + pk->off;
}

/* The last segment of the pool, with room for `more` bytes after its n: where closed
 * censuses pack. */
static heapprof_seg *
heapprof_tail(heapprof *hp, size_t more)
{
    if (hp->n_segs == 0) {
        xgrowarray((void **)&hp->segs, &hp->cap_segs, 1, 4, sizeof *hp->segs);
        hp->segs[hp->n_segs++] = (heapprof_seg){ NULL, 0, 0 };
    }
    heapprof_seg *sg = &hp->segs[hp->n_segs - 1];
    xgrowarray((void **)&sg->base, &sg->cap, sg->n + more, 4096, 1);   /* owned by hp */
    return sg;
}

/* Entry k of census ci (k < its n_entries): the open census's from the scratch arrays,
 * a closed one's from the pool. */
static inline void
heapprof_ent(const heapprof *hp, size_t ci, size_t k, uint32_t *band, uint64_t *bytes)
{
    if (hp->open && ci == hp->n_census - 1) {
        *band = hp->open_band[k];
        *bytes = hp->open_bytes[k];
        return;
    }
    const heapprof_pack *pk = &hp->pack[ci];
    const uint8_t *p = heapprof_packed(hp, ci) + k * (size_t)(pk->bw + pk->yw);
    *band = (uint32_t)heapprof_load(p, pk->bw);
    *bytes = heapprof_load(p + pk->bw, pk->yw) << pk->shift;
}

/* The trailing zero bits all of a census's bytes share (their OR's): the shift they are
 * packed with. */
static uint8_t
heapprof_shift_of(uint64_t any_bytes)
{
    uint8_t shift = 0;
    while (any_bytes && shift < 63 && !(any_bytes >> shift & 1))
        shift++;
    return shift;
}

/* Add one census entry (bytes, taken at time_ns) to its band's peak, sum and count. */
static inline void
heapprof_count_one(heapprof_band *b, uint64_t bytes, uint64_t time_ns)
{
    b->sum_bytes += bytes;
    b->n_censuses++;
    if (b->n_censuses == 1 || bytes > b->peak_bytes) {
        b->peak_bytes = bytes;
        b->peak_time_ns = time_ns;
    }
}

/* Pack the open census's entries onto the end of the pool at the narrowest widths that
 * hold them exactly: bytes share their common trailing zero bits (whole words, as the
 * RTS counts them), stored once as the shift. With `count`, the same pass adds them to
 * their bands' peaks, sums and counts. */
static void
heapprof_pack_open(heapprof *hp, bool count)
{
    size_t n = hp->n_open;
    uint64_t t = hp->census[hp->n_census - 1].time_ns;
    uint32_t max_band = 0;
    uint64_t any_bytes = 0, max_bytes = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t band = hp->open_band[k];
        uint64_t bytes = hp->open_bytes[k];
        max_band = band > max_band ? band : max_band;
        max_bytes = bytes > max_bytes ? bytes : max_bytes;
        any_bytes |= bytes;
        if (count)
            heapprof_count_one(&hp->bands[band], bytes, t);
    }
    uint8_t shift = heapprof_shift_of(any_bytes);
    uint64_t max_v = max_bytes >> shift;     /* a shift keeps the order */
    uint8_t bw = heapprof_width(max_band), yw = heapprof_width(max_v);
    size_t w = (size_t)bw + yw;
    heapprof_seg *sg = heapprof_tail(hp, n * w);
    heapprof_pack *pk = &hp->pack[hp->n_census - 1];
    *pk = (heapprof_pack){ sg->n, bw, yw, shift, (uint8_t)(hp->n_segs - 1) };
    hp->n_open = 0;
    uint8_t *p = sg->base + sg->n;
    for (size_t k = 0; k < n; k++, p += w) {
        heapprof_store(p, pk->bw, hp->open_band[k]);
        heapprof_store(p + pk->bw, pk->yw, hp->open_bytes[k] >> shift);
    }
    sg->n += n * w;
}

void
heapprof_census_begin(heapprof *hp, uint64_t time_ns)
{
    if (hp->open)
        heapprof_census_end(hp);
    xgrowarray((void **)&hp->census, &hp->cap_census, hp->n_census + 1, 16,
               sizeof *hp->census);
    if (hp->cap_pack < hp->cap_census) {
        hp->cap_pack = hp->cap_census;
        hp->pack = xreallocarray(hp->pack, hp->cap_pack, sizeof *hp->pack);  /* owned by hp */
    }
    hp->census[hp->n_census++] = (heapprof_census){ time_ns, 0, (uint32_t)hp->n_ent, 0 };
    hp->open = true;
    hp->n_in_census = 0;
    hp->sealed = false;
}

void
heapprof_head_begin(heapprof *hp)
{
    if (hp->n_census == 0) {
        heapprof_census_begin(hp, 0);
        hp->head = true;
    }
}

/* Add bytes to band b in the open census (a band named twice in one census adds up). */
static void
heapprof_sample_band(heapprof *hp, size_t b, uint64_t bytes)
{
    heapprof_key *k = &hp->keys[b];
    uint32_t ci = (uint32_t)(hp->n_census - 1);
    heapprof_census *c = &hp->census[ci];
    c->total_bytes += bytes;
    if (k->census == ci) {
        hp->open_bytes[k->entry] += bytes;
        return;
    }
    if (hp->n_open == hp->cap_open) {
        hp->cap_open = hp->cap_open ? 2 * hp->cap_open : 256;
        /* owned by hp: the open census's scratch, reused by every census */
        hp->open_band = xreallocarray(hp->open_band, hp->cap_open, sizeof *hp->open_band);
        hp->open_bytes = xreallocarray(hp->open_bytes, hp->cap_open, sizeof *hp->open_bytes);
    }
    k->census = ci;
    k->entry = (uint32_t)hp->n_open;
    hp->open_band[hp->n_open] = (uint32_t)b;
    hp->open_bytes[hp->n_open] = bytes;
    hp->n_open++;
    hp->n_ent++;
    c->n_entries++;
}

/* The RTS lists a census's bands in nearly the order of the one before: the band at the
 * open census's next position j there, tried before hashing a key (HEAPPROF_NONE: none). */
static inline uint32_t
heapprof_guess(const heapprof *hp, size_t j)
{
    if (hp->n_census < 2 || j >= hp->census[hp->n_census - 2].n_entries)
        return HEAPPROF_NONE;
    const heapprof_pack *pk = &hp->pack[hp->n_census - 2];   /* closed */
    return (uint32_t)heapprof_load(
        heapprof_packed(hp, hp->n_census - 2) + j * (size_t)(pk->bw + pk->yw), pk->bw);
}

static void
heapprof_sample(heapprof *hp, heapprof_band_kind kind, const void *p, size_t n, uint64_t bytes)
{
    if (!hp->open)
        return;
    size_t b = heapprof_guess(hp, hp->n_in_census++);
    if (b == HEAPPROF_NONE || !heapprof_key_is(hp, b, kind, p, n))
        b = heapprof_band_get(hp, kind, p, n);
    heapprof_sample_band(hp, b, bytes);
}

/* a[0, n) == b[0, n), for the short texts of bands: eight bytes at a time. */
static inline bool
heapprof_same_bytes(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    if (n >= 8) {
        for (size_t i = 0; i + 8 <= n; i += 8) {
            uint64_t u, v;
            memcpy(&u, x + i, 8);
            memcpy(&v, y + i, 8);
            if (u != v)
                return false;
        }
        uint64_t u, v;          /* the last eight, overlapping what was compared */
        memcpy(&u, x + n - 8, 8);
        memcpy(&v, y + n - 8, 8);
        return u == v;
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return false;
    return true;
}

void
heapprof_sample_cstr(heapprof *hp, const uint8_t *p, size_t avail, uint64_t bytes)
{
    if (!hp->open)
        return;
    size_t b = heapprof_guess(hp, hp->n_in_census);
    if (b != HEAPPROF_NONE) {
        /* A string band's text holds no NUL (heapprof_sample_string): its bytes and then
         * a NUL are this string, whole, without looking for its end. */
        const heapprof_key *k = &hp->keys[b];
        if (!(hp->bands[b].kind == HEAPPROF_BAND_STRING && k->len < avail && p[k->len] == 0 &&
              heapprof_same_bytes(hp->text + k->first, p, k->len)))
            b = HEAPPROF_NONE;
    }
    if (b == HEAPPROF_NONE) {
        const uint8_t *nul = memchr(p, 0, avail);
        if (!nul)
            return;
        b = heapprof_band_get(hp, HEAPPROF_BAND_STRING, p, (size_t)(nul - p));
    }
    hp->n_in_census++;
    heapprof_sample_band(hp, b, bytes);
}

void
heapprof_sample_stack(heapprof *hp, const uint32_t *ccs, size_t depth, uint64_t bytes)
{
    heapprof_sample(hp, HEAPPROF_BAND_STACK, ccs, depth * sizeof *ccs, bytes);
}

void
heapprof_sample_string(heapprof *hp, const uint8_t *text, size_t len, uint64_t bytes)
{
    const uint8_t *nul = len ? memchr(text, 0, len) : NULL;
    if (nul)                    /* a string ends at its first NUL */
        len = (size_t)(nul - text);
    heapprof_sample(hp, HEAPPROF_BAND_STRING, text, len, bytes);
}

/* Add closed census ci's entries to its bands' peaks, sums and counts. */
static void
heapprof_count(heapprof *hp, size_t ci)
{
    const heapprof_census *c = &hp->census[ci];
    for (size_t k = 0; k < c->n_entries; k++) {
        uint32_t band;
        uint64_t bytes;
        heapprof_ent(hp, ci, k, &band, &bytes);
        heapprof_count_one(&hp->bands[band], bytes, c->time_ns);
    }
}

void
heapprof_census_end(heapprof *hp)
{
    if (!hp->open)
        return;
    heapprof_pack_open(hp, !(hp->head && hp->n_census == 1));
    hp->open = false;
}

/* n entries packed w bytes apart from q, each starting with a band of bw bytes: each band
 * b replaced by map[b] (which fits in bw bytes); the widest band written. */
static uint32_t
heapprof_renumber(uint8_t *q, size_t n, size_t w, uint8_t bw, const uint32_t *map)
{
    uint32_t max_band = 0;
    if (HEAPPROF_LE && bw == 2) {       /* up to 65,536 bands: the common case */
        for (size_t k = 0; k < n; k++, q += w) {
            uint16_t v;
            memcpy(&v, q, 2);
            uint32_t band = map[v];
            max_band = band > max_band ? band : max_band;
            v = (uint16_t)band;
            memcpy(q, &v, 2);
        }
        return max_band;
    }
    for (size_t k = 0; k < n; k++, q += w) {
        uint32_t band = map[heapprof_load(q, bw)];
        max_band = band > max_band ? band : max_band;
        heapprof_store(q, bw, band);
    }
    return max_band;
}

/* Give back a segment's slack (nothing more packs onto it, or not until it grows). */
static void
heapprof_seg_trim(heapprof_seg *sg)
{
    if (sg->cap > sg->n) {
        sg->cap = sg->n;
        /* owned by the profile, as before */
        sg->base = sg->n ? xreallocarray(sg->base, sg->n, 1) : (x_free(sg->base), NULL);
    }
}

/* Append src's closed census ci to dst as its own census, closed and not yet counted into
 * dst's bands (heapprof_append adds src's counts at once): its bands renumbered by map
 * (src band -> dst band; HEAPPROF_NONE: not met yet, then added to dst) and packed as
 * heapprof_pack_open would pack it (the bytes' widths and shift are src's).
 * map_w: 0 while map is filled as bands are met, else the width of its widest band.
 * `same`: map is the identity on every src band.
 * seg0: HEAPPROF_MAX_SEGS, or the dst segment that src's segment 0 became (its later
 * segments follow): the entries are then used where they lie, as they are when `same`,
 * renumbered in place when as wide as the map's widest (narrowed after in place when this
 * census's bands are narrower); otherwise they are written anew onto dst's last segment
 * (the bytes they leave, if taken over, are dead). */
static void
heapprof_append_census(heapprof *dst, const heapprof *src, size_t ci, uint32_t *map,
                       uint8_t map_w, bool same, unsigned seg0)
{
    heapprof_census_end(dst);           /* a BEGIN closes the census open before it */
    const heapprof_census *c = &src->census[ci];
    const heapprof_pack *pk = &src->pack[ci];
    size_t n = c->n_entries, w = (size_t)pk->bw + pk->yw;
    bool taken = seg0 < HEAPPROF_MAX_SEGS;
    uint8_t seg = (uint8_t)(seg0 + pk->seg);
    uint8_t *at = taken ? dst->segs[seg].base + pk->off : NULL;    /* where they lie */
    const uint8_t *p0 = taken ? at : heapprof_packed(src, ci);
    bool in_place = taken && !same && map_w == pk->bw;
    uint8_t bw = pk->bw;
    if (!same && !in_place) {
        uint32_t max_band = 0;
        for (size_t k = 0; k < n; k++) {
            uint32_t band = (uint32_t)heapprof_load(p0 + k * w, pk->bw);
            if (map[band] == HEAPPROF_NONE) {
                size_t kn;
                const void *kp = heapprof_key_bytes(src, band, &kn);
                map[band] = (uint32_t)heapprof_band_get(dst, src->bands[band].kind, kp, kn);
            }
            max_band = map[band] > max_band ? map[band] : max_band;
        }
        bw = heapprof_width(max_band);
    }
    xgrowarray((void **)&dst->census, &dst->cap_census, dst->n_census + 1, 16,
               sizeof *dst->census);
    if (dst->cap_pack < dst->cap_census) {
        dst->cap_pack = dst->cap_census;
        dst->pack = xreallocarray(dst->pack, dst->cap_pack, sizeof *dst->pack); /* owned by dst */
    }
    heapprof_census *dc = &dst->census[dst->n_census];
    *dc = (heapprof_census){ c->time_ns, c->total_bytes, (uint32_t)dst->n_ent, (uint32_t)n };
    heapprof_pack *dk = &dst->pack[dst->n_census];
    dst->n_census++;
    dst->n_ent += n;
    dst->n_in_census = 0;
    dst->sealed = false;
    if ((same && taken) || in_place) {
        *dk = (heapprof_pack){ pk->off, bw, pk->yw, pk->shift, seg };
        dst->n_dead -= n * w;
        if (!in_place)
            return;
        uint8_t nw = heapprof_width(heapprof_renumber(at, n, w, bw, map));
        if (nw < bw) {          /* forward: each entry moves down */
            size_t nwd = (size_t)nw + pk->yw;
            for (size_t k = 0; k < n; k++) {
                const uint8_t *from = at + k * w;
                uint64_t band = heapprof_load(from, bw), v = heapprof_load(from + bw, pk->yw);
                heapprof_store(at + k * nwd, nw, band);
                heapprof_store(at + k * nwd + nw, pk->yw, v);
            }
            dk->bw = nw;
            dst->n_dead += n * (size_t)(bw - nw);
        }
        return;
    }
    size_t dw = (size_t)bw + pk->yw;
    heapprof_seg *sg = heapprof_tail(dst, n * dw);
    if (taken)                          /* may have moved with the tail's growth */
        p0 = dst->segs[seg].base + pk->off;
    *dk = (heapprof_pack){ sg->n, bw, pk->yw, pk->shift, (uint8_t)(dst->n_segs - 1) };
    uint8_t *q = sg->base + sg->n;
    if (same) {
        memcpy(q, p0, n * w);
    } else {
        for (size_t k = 0; k < n; k++) {
            heapprof_store(q + k * dw, bw, map[heapprof_load(p0 + k * w, pk->bw)]);
            memcpy(q + k * dw + bw, p0 + k * w + pk->bw, pk->yw);
        }
    }
    sg->n += n * dw;
}

/* Take src's pool segments over as dst's last ones, all trimmed (dst's last too: what
 * packs after grows the last again); the dst index of src's first, or HEAPPROF_MAX_SEGS
 * when dst would have too many (then src keeps them and its censuses are copied). The
 * bytes of src no census keeps (a head's) are dead in dst. */
static unsigned
heapprof_take_segs(heapprof *dst, heapprof *src)
{
    if (src->n_segs == 0 || dst->n_segs + src->n_segs > HEAPPROF_MAX_SEGS)
        return HEAPPROF_MAX_SEGS;
    if (dst->n_segs)
        heapprof_seg_trim(&dst->segs[dst->n_segs - 1]);
    unsigned seg0 = (unsigned)dst->n_segs;
    xgrowarray((void **)&dst->segs, &dst->cap_segs, dst->n_segs + src->n_segs, 4,
               sizeof *dst->segs);
    memcpy(dst->segs + dst->n_segs, src->segs, src->n_segs * sizeof *src->segs);
    for (size_t i = 0; i < src->n_segs; i++)
        heapprof_seg_trim(&dst->segs[dst->n_segs + i]);
    dst->n_segs += src->n_segs;
    src->n_segs = 0;
    return seg0;
}

/* Add the counts of src's bands (its closed censuses but a head, which follow dst's in
 * time of counting) to dst's bands through map: sums and counts add, and a peak stays
 * dst's unless src's is higher (the first such census wins, as one count would have it). */
static void
heapprof_merge_counts(heapprof *dst, const heapprof *src, const uint32_t *map)
{
    for (size_t b = 0; b < src->n_bands; b++) {
        const heapprof_band *s = &src->bands[b];
        if (s->n_censuses == 0)
            continue;
        heapprof_band *d = &dst->bands[map[b]];    /* counted, so in an appended census */
        if (d->n_censuses == 0 || s->peak_bytes > d->peak_bytes) {
            d->peak_bytes = s->peak_bytes;
            d->peak_time_ns = s->peak_time_ns;
        }
        d->sum_bytes += s->sum_bytes;
        d->n_censuses += s->n_censuses;
    }
}

void
heapprof_append(heapprof *dst, heapprof *src, bool head)
{
    for (size_t i = 0; i < src->n_ccs; i++) {
        const heapprof_cc *cc = &src->ccs[i];
        const char *label = src->text + cc->label, *module = src->text + cc->module,
                   *srcloc = src->text + cc->srcloc;
        heapprof_cost_centre(dst, cc->id, (const uint8_t *)label, strlen(label),
                             (const uint8_t *)module, strlen(module), (const uint8_t *)srcloc,
                             strlen(srcloc), cc->is_caf);
    }
    if (dst->breakdown == HEAPPROF_BY_UNKNOWN)
        dst->breakdown = src->breakdown;
    /* src's bands become dst's as the serial walk would meet them: in census order, each
     * census's entries in first-sample order; those of a dropped head census not at all.
     * src numbered its bands in that same order, so unless a head is dropped they are
     * mapped up front in src's order; when that maps each to itself, closed censuses are
     * kept as they are packed, where they are: src's pool segments become dst's. */
    bool drop_head = head && !dst->open;  /* no census open there: its samples count nowhere */
    uint32_t *map = xmalloc((src->n_bands ? src->n_bands : 1) * sizeof *map);  /* freed below */
    bool same = !drop_head;
    uint32_t map_max = 0;
    for (size_t b = 0; b < src->n_bands; b++) {
        map[b] = HEAPPROF_NONE;
        if (drop_head)
            continue;
        size_t kn;
        const void *kp = heapprof_key_bytes(src, b, &kn);
        map[b] = (uint32_t)heapprof_band_get(dst, src->bands[b].kind, kp, kn);
        same = same && map[b] == b;
        if (map[b] > map_max)
            map_max = map[b];
    }
    uint8_t map_w = drop_head ? 0 : heapprof_width(map_max);
    unsigned seg0 = HEAPPROF_MAX_SEGS;
    bool took = false;
    for (size_t ci = 0; ci < src->n_census; ci++) {
        bool is_head = head && ci == 0;
        if (is_head && drop_head)
            continue;
        bool closed = !(src->open && ci == src->n_census - 1);
        if (!is_head && closed) {
            if (!took) {        /* after the head's entries are read from src's pool */
                size_t held = src->n_dead;
                for (size_t i = 0; i < src->n_segs; i++)
                    held += src->segs[i].n;
                seg0 = heapprof_take_segs(dst, src);
                if (seg0 < HEAPPROF_MAX_SEGS)
                    dst->n_dead += held;    /* less each census kept where it lies */
                took = true;
            }
            heapprof_append_census(dst, src, ci, map, map_w, same, seg0);
            continue;
        }
        if (!is_head)
            heapprof_census_begin(dst, src->census[ci].time_ns);
        dst->sealed = false;
        for (size_t k = 0; k < src->census[ci].n_entries; k++) {
            uint32_t band;
            uint64_t bytes;
            heapprof_ent(src, ci, k, &band, &bytes);
            if (map[band] == HEAPPROF_NONE) {
                size_t kn;
                const void *kp = heapprof_key_bytes(src, band, &kn);
                map[band] = (uint32_t)heapprof_band_get(dst, src->bands[band].kind, kp, kn);
            }
            heapprof_sample_band(dst, map[band], bytes);
            dst->n_in_census++;
        }
        if (closed)
            heapprof_census_end(dst);
    }
    /* Every census of src counted into its bands is closed in dst by now and counted after
     * dst's own; src's open one (if any) is still open in dst, counted when it closes. */
    heapprof_merge_counts(dst, src, map);
    x_free(map);
}

typedef struct heapprof_order {
    uint64_t time_ns;
    uint32_t census;
} heapprof_order;

static int
heapprof_order_cmp(const void *a, const void *b)
{
    const heapprof_order *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->census < y->census ? -1 : x->census > y->census;
}

/* Put the (closed) censuses in time order, file order among equal times, their entries
 * with them, and recount the bands in that order (a peak's time is the first such in
 * time). Biographical censuses are all written at the end of the run, each with its
 * own time: they need this. */
static void
heapprof_sort_censuses(heapprof *hp)
{
    size_t n = hp->n_census;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = hp->census[i].time_ns >= hp->census[i - 1].time_ns;
    if (sorted)
        return;
    heapprof_order *ord = xmalloc(n * sizeof *ord);                    /* freed below */
    for (size_t i = 0; i < n; i++)
        ord[i] = (heapprof_order){ hp->census[i].time_ns, (uint32_t)i };
    qsort(ord, n, sizeof *ord, heapprof_order_cmp);
    /* The packed entries stay where they are: only the censuses and their packs move. */
    heapprof_census *census = xmalloc(n * sizeof *census);           /* owned by hp */
    heapprof_pack *pack = xmalloc(n * sizeof *pack);                 /* owned by hp */
    uint32_t w = 0;
    for (size_t i = 0; i < n; i++) {
        census[i] = hp->census[ord[i].census];
        census[i].first_entry = w;
        pack[i] = hp->pack[ord[i].census];
        w += census[i].n_entries;
    }
    x_free(ord);
    x_free(hp->census);
    x_free(hp->pack);
    hp->census = census;
    hp->cap_census = n;
    hp->pack = pack;
    hp->cap_pack = n;
    for (size_t b = 0; b < hp->n_bands; b++) {
        heapprof_band_kind kind = hp->bands[b].kind;
        hp->bands[b] = (heapprof_band){ .kind = kind };
        hp->keys[b].census = HEAPPROF_NONE;     /* census indices changed */
    }
    for (size_t i = hp->head ? 1 : 0; i < n; i++)      /* a head stays census 0: time 0 */
        heapprof_count(hp, i);
}

static int
heapprof_cc_cmp(const void *a, const void *b)
{
    const heapprof_cc *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

void
heapprof_seal(heapprof *hp)
{
    heapprof_census_end(hp);
    heapprof_sort_censuses(hp);
    if (hp->n_ccs > 1) {
        qsort(hp->ccs, hp->n_ccs, sizeof *hp->ccs, heapprof_cc_cmp);
        size_t w = 0;           /* keep each id's latest definition */
        for (size_t i = 0; i < hp->n_ccs; i++) {
            if (w > 0 && hp->ccs[w - 1].id == hp->ccs[i].id)
                w--;
            hp->ccs[w++] = hp->ccs[i];
        }
        hp->n_ccs = w;
    }
    for (size_t b = 0; b < hp->n_bands; b++)
        hp->bands[b].last_bytes = 0;
    if (hp->n_census) {
        size_t ci = hp->n_census - 1;
        for (size_t k = 0; k < hp->census[ci].n_entries; k++) {
            uint32_t band;
            uint64_t bytes;
            heapprof_ent(hp, ci, k, &band, &bytes);
            hp->bands[band].last_bytes = bytes;
        }
    }
    /* Nothing grows until the next census: give back the pool's slack and the scratch. */
    if (hp->n_segs)
        heapprof_seg_trim(&hp->segs[hp->n_segs - 1]);
    x_free(hp->open_band);
    x_free(hp->open_bytes);
    hp->open_band = NULL;
    hp->open_bytes = NULL;
    hp->cap_open = 0;
    hp->sealed = true;
}

void
heapprof_set_breakdown(heapprof *hp, uint32_t breakdown)
{
    if (hp->breakdown == HEAPPROF_BY_UNKNOWN && breakdown >= HEAPPROF_BY_COST_CENTRE &&
        breakdown <= HEAPPROF_BY_ERA)
        hp->breakdown = (heapprof_breakdown)breakdown;
}

heapprof_breakdown
heapprof_breakdown_of(const heapprof *hp)
{
    return hp->breakdown;
}

const char *
heapprof_breakdown_name(heapprof_breakdown b)
{
    static const char *const names[] = {
        [HEAPPROF_BY_UNKNOWN] = "unknown",
        [HEAPPROF_BY_COST_CENTRE] = "cost-centre stack (-hc)",
        [HEAPPROF_BY_MODULE] = "module (-hm)",
        [HEAPPROF_BY_CLOSURE_DESCR] = "closure description (-hd)",
        [HEAPPROF_BY_TYPE_DESCR] = "type description (-hy)",
        [HEAPPROF_BY_RETAINER] = "retainer set (-hr)",
        [HEAPPROF_BY_BIOGRAPHY] = "biography (-hb)",
        [HEAPPROF_BY_CLOSURE_TYPE] = "closure type (-hT)",
        [HEAPPROF_BY_INFO_TABLE] = "info table (-hi)",
        [HEAPPROF_BY_ERA] = "era (-he)",
    };
    return (unsigned)b < sizeof names / sizeof names[0] ? names[b] : "unknown";
}

size_t
heapprof_n_censuses(const heapprof *hp)
{
    return hp->n_census;
}

const heapprof_census *
heapprof_census_at(const heapprof *hp, size_t i)
{
    return i < hp->n_census ? &hp->census[i] : NULL;
}

void
heapprof_entry(const heapprof *hp, size_t i, size_t k, uint32_t *band, uint64_t *bytes)
{
    *band = HEAPPROF_NONE;
    *bytes = 0;
    if (i >= hp->n_census || k >= hp->census[i].n_entries)
        return;
    heapprof_ent(hp, i, k, band, bytes);
}

void
heapprof_census_group_sums(const heapprof *hp, size_t i, const uint8_t *group, uint64_t *sums)
{
    if (i >= hp->n_census)
        return;
    size_t n = hp->census[i].n_entries;
    if (hp->open && i == hp->n_census - 1) {
        for (size_t k = 0; k < n; k++)
            sums[group[hp->open_band[k]]] += hp->open_bytes[k];
        return;
    }
    /* The packed entries read in one stride: band, then bytes less their shift. */
    const heapprof_pack *pk = &hp->pack[i];
    size_t w = (size_t)pk->bw + pk->yw;
    const uint8_t *p = heapprof_packed(hp, i);
    for (size_t k = 0; k < n; k++, p += w)
        sums[group[heapprof_load(p, pk->bw)]] += heapprof_load(p + pk->bw, pk->yw) << pk->shift;
}

void
heapprof_census_bands(const heapprof *hp, size_t i, const uint32_t *bands, size_t n,
                      uint32_t *hint, uint64_t *bytes)
{
    size_t missing = 0;
    for (size_t j = 0; j < n; j++) {
        bytes[j] = 0;
        uint32_t b = HEAPPROF_NONE;
        uint64_t v = 0;
        heapprof_entry(hp, i, hint[j], &b, &v);     /* band NONE past the entries */
        if (b == bands[j])
            bytes[j] = v;
        else
            missing++;
    }
    if (missing == 0 || i >= hp->n_census)
        return;
    /* One pass for the bands not where hinted: each band is in a census at most once. */
    size_t ne = hp->census[i].n_entries;
    for (size_t k = 0; k < ne && missing > 0; k++) {
        uint32_t b;
        uint64_t v;
        heapprof_ent(hp, i, k, &b, &v);
        for (size_t j = 0; j < n; j++) {
            if (b == bands[j] && hint[j] != k) {
                bytes[j] = v;
                hint[j] = (uint32_t)k;
                missing--;
                break;
            }
        }
    }
}

size_t
heapprof_census_by(const heapprof *hp, uint64_t t)
{
    size_t lo = 0, hi = hp->n_census;       /* count censuses with time <= t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hp->census[mid].time_ns <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

size_t
heapprof_n_bands(const heapprof *hp)
{
    return hp->n_bands;
}

const heapprof_band *
heapprof_band_at(const heapprof *hp, size_t b)
{
    return b < hp->n_bands ? &hp->bands[b] : NULL;
}

const uint32_t *
heapprof_band_stack(const heapprof *hp, size_t b, size_t *depth)
{
    *depth = 0;
    if (b >= hp->n_bands || hp->bands[b].kind != HEAPPROF_BAND_STACK)
        return NULL;
    *depth = hp->keys[b].len;
    return hp->stk + hp->keys[b].first;
}

static const heapprof_cc *
heapprof_cc_lookup(const heapprof *hp, uint32_t id)
{
    if (!hp->sealed) {
        /* Unsealed, the array may be unsorted: a scan (the latest definition wins). */
        const heapprof_cc *found = NULL;
        for (size_t i = 0; i < hp->n_ccs; i++)
            if (hp->ccs[i].id == id)
                found = &hp->ccs[i];
        return found;
    }
    size_t lo = 0, hi = hp->n_ccs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (hp->ccs[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < hp->n_ccs && hp->ccs[lo].id == id ? &hp->ccs[lo] : NULL;
}

void
heapprof_band_name(const heapprof *hp, size_t b, strbuf *out)
{
    if (b >= hp->n_bands)
        return;
    const heapprof_key *k = &hp->keys[b];
    if (hp->bands[b].kind == HEAPPROF_BAND_STRING) {
        strbuf_append(out, hp->text + k->first, k->len);
        return;
    }
    if (k->len == 0) {
        strbuf_puts(out, "MAIN");
        return;
    }
    for (size_t i = 0; i < k->len; i++) {
        uint32_t id = hp->stk[k->first + i];
        const heapprof_cc *cc = heapprof_cc_lookup(hp, id);
        if (i)
            strbuf_putc(out, '/');
        if (cc && strcmp(hp->text + cc->label, "CAF") == 0)
            strbuf_printf(out, "%s.CAF", hp->text + cc->module);   /* one per module */
        else if (cc)
            strbuf_puts(out, hp->text + cc->label);
        else
            strbuf_printf(out, "#%u", id);
    }
}

size_t
heapprof_n_cost_centres(const heapprof *hp)
{
    return hp->n_ccs;
}

bool
heapprof_cost_centre_find(const heapprof *hp, uint32_t id, const char **label,
                          const char **module, const char **srcloc, bool *is_caf)
{
    const heapprof_cc *cc = heapprof_cc_lookup(hp, id);
    if (!cc)
        return false;
    *label = hp->text + cc->label;
    *module = hp->text + cc->module;
    *srcloc = hp->text + cc->srcloc;
    *is_caf = cc->is_caf;
    return true;
}

size_t
heapprof_bytes(const heapprof *hp)
{
    size_t pool = 0;
    for (size_t i = 0; i < hp->n_segs; i++)
        pool += hp->segs[i].cap;
    return pool + sizeof *hp + hp->cap_text + hp->cap_stk * sizeof *hp->stk +
           hp->cap_bands * (sizeof *hp->bands + sizeof *hp->keys) +
           hp->n_slots * sizeof *hp->slots + hp->cap_census * sizeof *hp->census +
           hp->cap_pack * sizeof *hp->pack + hp->cap_segs * sizeof *hp->segs +
           hp->cap_open * (sizeof *hp->open_band + sizeof *hp->open_bytes) +
           hp->cap_ccs * sizeof *hp->ccs;
}

bool
heapprof_check(const heapprof *hp, char *why, size_t why_len)
{
    /* Recount every band from the entries of closed censuses in one pass. */
    heapprof_band *want = xcalloc(hp->n_bands + 1, sizeof *want);     /* freed below */
    uint32_t *seen = xmalloc((hp->n_bands + 1) * sizeof *seen);       /* freed below */
    for (size_t b = 0; b < hp->n_bands; b++)
        seen[b] = HEAPPROF_NONE;
    bool ok = false;
    size_t n_ent = 0, closed = hp->n_census - (hp->open ? 1 : 0);
    uint64_t packed = 0;
    for (size_t i = 0; i < hp->n_census; i++) {
        const heapprof_census *c = &hp->census[i];
        if (hp->sealed && i > 0 && c->time_ns < hp->census[i - 1].time_ns) {
            checkfail(why, why_len, "census %zu: earlier than census %zu", i, i - 1);
            goto out;
        }
        if (c->first_entry != n_ent || c->n_entries > hp->n_ent - n_ent) {
            checkfail(why, why_len, "census %zu: entries %u+%u, expected from %zu of %zu", i,
                      c->first_entry, c->n_entries, n_ent, hp->n_ent);
            goto out;
        }
        n_ent += c->n_entries;
        uint64_t total = 0, any_bytes = 0, max_bytes = 0;
        uint32_t max_band = 0;
        for (size_t k = 0; k < c->n_entries; k++) {
            uint32_t b;
            uint64_t bytes;
            if (!(hp->open && i == hp->n_census - 1) &&
                (hp->pack[i].seg >= hp->n_segs ||
                 hp->pack[i].off + (uint64_t)c->n_entries * (hp->pack[i].bw + hp->pack[i].yw) >
                     hp->segs[hp->pack[i].seg].n)) {
                checkfail(why, why_len, "census %zu: packed entries past their segment", i);
                goto out;
            }
            heapprof_ent(hp, i, k, &b, &bytes);
            if (b >= hp->n_bands) {
                checkfail(why, why_len, "census %zu entry %zu: band %u of %zu", i, k, b,
                          hp->n_bands);
                goto out;
            }
            if (seen[b] == i) {
                checkfail(why, why_len, "census %zu: band %u twice", i, b);
                goto out;
            }
            seen[b] = (uint32_t)i;
            total += bytes;
            any_bytes |= bytes;
            max_bytes = bytes > max_bytes ? bytes : max_bytes;
            max_band = b > max_band ? b : max_band;
            if (i >= closed || (hp->head && i == 0))
                continue;
            heapprof_band *w = &want[b];
            w->sum_bytes += bytes;
            w->n_censuses++;
            if (w->n_censuses == 1 || bytes > w->peak_bytes) {
                w->peak_bytes = bytes;
                w->peak_time_ns = c->time_ns;
            }
        }
        if (i < closed)
            packed += (uint64_t)c->n_entries * (hp->pack[i].bw + hp->pack[i].yw);
        if (i < closed && c->n_entries) {     /* packed as heapprof_pack_open packs */
            uint8_t shift = heapprof_shift_of(any_bytes);
            const heapprof_pack *pk = &hp->pack[i];
            if (pk->bw != heapprof_width(max_band) || pk->shift != shift ||
                pk->yw != heapprof_width(max_bytes >> shift)) {
                checkfail(why, why_len, "census %zu: packed at widths %u+%u shift %u, its "
                          "entries need %u+%u shift %u", i, pk->bw, pk->yw, pk->shift,
                          heapprof_width(max_band), heapprof_width(max_bytes >> shift), shift);
                goto out;
            }
        }
        if (total != c->total_bytes) {
            checkfail(why, why_len, "census %zu: total %llu, entries add to %llu", i,
                      (unsigned long long)c->total_bytes, (unsigned long long)total);
            goto out;
        }
    }
    size_t pool = 0;
    for (size_t g = 0; g < hp->n_segs; g++)
        pool += hp->segs[g].n;
    if (packed + hp->n_dead != pool) {
        checkfail(why, why_len, "censuses pack %llu bytes and %zu are dead, the pool holds %zu",
                  (unsigned long long)packed, hp->n_dead, pool);
        goto out;
    }
    if (n_ent != hp->n_ent) {
        checkfail(why, why_len, "%zu entries, censuses hold %zu", hp->n_ent, n_ent);
        goto out;
    }
    for (size_t b = 0; b < hp->n_bands; b++) {
        const heapprof_band *have = &hp->bands[b], *w = &want[b];
        if (have->sum_bytes != w->sum_bytes || have->n_censuses != w->n_censuses ||
            have->peak_bytes != w->peak_bytes || have->peak_time_ns != w->peak_time_ns) {
            checkfail(why, why_len, "band %zu: peak/sum/count differ from a recount", b);
            goto out;
        }
        size_t kn;
        const void *kp = heapprof_key_bytes(hp, b, &kn);
        if (*heapprof_probe(hp, have->kind, kp, kn) != b + 1) {
            checkfail(why, why_len, "band %zu: not found through the hash", b);
            goto out;
        }
    }
    if (hp->sealed)
        for (size_t i = 1; i < hp->n_ccs; i++)
            if (hp->ccs[i].id <= hp->ccs[i - 1].id) {
                checkfail(why, why_len, "cost centre %zu: ids not ascending", i);
                goto out;
            }
    ok = true;
out:
    x_free(want);
    x_free(seen);
    return ok;
}
