/* test_msgtab: the packed message table against a plain sorted array (the reference):
 * random messages on several capabilities, in per-capability time order (the merge)
 * and out of it (the sort), split over two tables and merged, with times, offsets and
 * caps of narrow and wide spans; every message, marker rank and time search. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "msgtab.h"
#include "tests.h"
#include "xalloc.h"

enum { MT_MARKER = 0, MT_KINDS = 4 };

static uint64_t
mt_rand(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

static int
mt_ref_cmp(const void *a, const void *b)
{
    const msgtab_msg *x = a, *y = b;
    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* n messages on n_caps caps (cap numbers spread over cap_span), per cap ascending in
 * time unless `shuffled`; offsets unique. */
static msgtab_msg *
mt_make(uint64_t *st, size_t n, unsigned n_caps, unsigned cap_span, uint64_t t_span,
        uint64_t off_span, bool markers_only, bool shuffled)
{
    msgtab_msg *m = xmalloc((n + 1) * sizeof *m);      /* caller frees */
    uint64_t t_base = mt_rand(st) % (UINT64_C(1) << 62);
    uint64_t *last = xcalloc(n_caps, sizeof *last);
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned)(mt_rand(st) % n_caps);
        uint64_t step = t_span ? mt_rand(st) % t_span : 0;
        last[c] += mt_rand(st) % 4 == 0 ? 0 : step;     /* ties within and across caps */
        uint64_t t = shuffled ? t_base + mt_rand(st) % (t_span * 8 + 1) : t_base + last[c];
        m[i] = (msgtab_msg){
            .time_ns = t,
            .cap = (c * cap_span / (n_caps ? n_caps : 1)) & 0xffff,
            .kind = markers_only ? MT_MARKER : mt_rand(st) % MT_KINDS,
        };
    }
    /* Unique offsets, ascending in the order made (file order), spread over off_span. */
    uint64_t stride = off_span / (n + 1) + 1;
    for (size_t i = 0; i < n; i++)
        m[i].offset = 16 + i * stride + mt_rand(st) % stride;
    x_free(last);
    return m;
}

static void
mt_verify(const msgtab *mt, msgtab_msg *ref, size_t n, uint64_t *st)
{
    qsort(ref, n, sizeof *ref, mt_ref_cmp);
    char why[200] = "";
    ck_assert_msg(msgtab_check(mt, why, sizeof why), "check: %s", why);
    ck_assert_uint_eq(msgtab_count(mt), n);
    size_t markers = 0;
    for (size_t i = 0; i < n; i++) {
        msgtab_msg m = msgtab_at(mt, i);
        ck_assert_msg(m.time_ns == ref[i].time_ns && m.offset == ref[i].offset &&
                          m.cap == ref[i].cap && m.kind == ref[i].kind,
                      "message %zu of %zu differs", i, n);
        ck_assert_uint_eq(msgtab_markers_before(mt, i), markers);
        if (ref[i].kind == MT_MARKER) {
            ck_assert_uint_eq(msgtab_marker_index(mt, markers), i);
            markers++;
        }
    }
    /* Ranges read a chunk at a time: the same messages, from any start, across chunk
     * edges, and cut at the end. */
    msgtab_msg got[3 * MSGTAB_CHUNK];
    for (size_t q = 0; q < 40 && n; q++) {
        size_t i = q == 0 ? 0 : mt_rand(st) % (n + 2), len = mt_rand(st) % (3 * MSGTAB_CHUNK);
        size_t k = msgtab_range(mt, i, len, got);
        ck_assert_uint_eq(k, i >= n ? 0 : len < n - i ? len : n - i);
        for (size_t j = 0; j < k; j++)
            if (got[j].time_ns != ref[i + j].time_ns || got[j].offset != ref[i + j].offset ||
                got[j].cap != ref[i + j].cap || got[j].kind != ref[i + j].kind)
                ck_abort_msg("range [%zu, +%zu): message %zu of %zu differs", i, len, i + j, n);
    }
    ck_assert_uint_eq(msgtab_n_markers(mt), markers);
    ck_assert_uint_eq(msgtab_markers_before(mt, n), markers);
    ck_assert_uint_eq(msgtab_marker_index(mt, markers), n);
    for (size_t q = 0; q < 200 && n; q++) {
        size_t k = mt_rand(st) % n;
        uint64_t t = ref[k].time_ns + (q % 3) - 1;      /* at, just before, just after */
        size_t want = 0;
        while (want < n && ref[want].time_ns < t)
            want++;
        ck_assert_uint_eq(msgtab_first_from(mt, t), want);
    }
    ck_assert_uint_eq(msgtab_first_from(mt, 0), 0);
    ck_assert_uint_eq(msgtab_first_from(mt, UINT64_MAX), n && ref[n - 1].time_ns == UINT64_MAX ? n - 1 : n);
}

START_TEST(test_msgtab_matches_sorted_reference)
{
    uint64_t st = 0x2545f4914f6cdd1du;
    static const uint64_t t_spans[] = { 0, 1, 1000, 1u << 24, UINT64_C(1) << 40 };
    static const uint64_t off_spans[] = { 0, 1u << 12, UINT64_C(1) << 39 };
    for (size_t ti = 0; ti < sizeof t_spans / sizeof t_spans[0]; ti++)
        for (size_t oi = 0; oi < sizeof off_spans / sizeof off_spans[0]; oi++)
            for (size_t n = 0; n < 800; n += 1 + n / 2) {
                unsigned n_caps = 1 + (unsigned)(mt_rand(&st) % 70);
                bool shuffled = mt_rand(&st) % 3 == 0, only = mt_rand(&st) % 4 == 0;
                msgtab_msg *m = mt_make(&st, n, n_caps, 1 + (unsigned)(mt_rand(&st) % 65535),
                                        t_spans[ti], off_spans[oi], only, shuffled);
                msgtab *mt = msgtab_new(MT_MARKER);
                for (size_t i = 0; i < n; i++)
                    msgtab_add(mt, &m[i]);
                msgtab_seal(mt);
                mt_verify(mt, m, n, &st);
                msgtab_free(mt);
                x_free(m);
            }
}
END_TEST

/* A merge long enough that the pages of the per-capability lists it has passed are
 * given back while it runs (msgtab_seal_merge): every message still comes out whole,
 * in order, with wide times and offsets. */
START_TEST(test_msgtab_merge_large)
{
    uint64_t st = 0x51ed2701d2a4c3b5u;
    size_t n = 120000;
    msgtab_msg *m = mt_make(&st, n, 3, 3, UINT64_C(1) << 30, UINT64_C(1) << 39, false, false);
    msgtab *mt = msgtab_new(MT_MARKER);
    for (size_t i = 0; i < n; i++)
        msgtab_add(mt, &m[i]);
    msgtab_seal(mt);
    mt_verify(mt, m, n, &st);
    msgtab_free(mt);
    x_free(m);
}
END_TEST

/* Two builders' tables merged: disjoint caps (the parallel build), and the same caps in
 * both, in order (a capability's later messages in the second) and out of it. */
START_TEST(test_msgtab_merge)
{
    uint64_t st = 0x9e3779b97f4a7c15u;
    for (int mode = 0; mode < 3; mode++)
        for (size_t n = 0; n < 3000; n += 1 + n) {
            msgtab_msg *m = mt_make(&st, n, 5, 5, 1000, UINT64_C(1) << 30, false, false);
            msgtab *a = msgtab_new(MT_MARKER), *b = msgtab_new(MT_MARKER);
            size_t cut = n ? mt_rand(&st) % n : 0;
            for (size_t i = 0; i < n; i++) {
                bool to_b = mode == 0 ? m[i].cap % 2 == 1 : mode == 1 ? i >= cut : i < cut;
                msgtab_add(to_b ? b : a, &m[i]);
            }
            msgtab_merge(a, b);
            ck_assert_uint_eq(msgtab_count(b), 0);
            msgtab_seal(a);
            msgtab_seal(b);
            ck_assert_uint_eq(msgtab_count(b), 0);
            mt_verify(a, m, n, &st);
            ck_assert_uint_lt(msgtab_bytes(a), 600 + n * 9);   /* packed: well under 16 B */
            msgtab_free(a);
            msgtab_free(b);
            x_free(m);
        }
}
END_TEST

/* A split build: the messages in file order cut into pieces, each packed by a builder
 * table of its own and merged into the first (as the walk's workers hand theirs over),
 * on one capability (the pieces follow one another: joined end to end, in segments)
 * or several (they overlap: merged); some pieces empty, some a few messages, some
 * many chunks. Sealed, the table holds them all in order; taken back for more
 * (after, or among the old) and sealed again, and then grown by sorted batches, it
 * still does after each step. */
START_TEST(test_msgtab_split_pieces)
{
    uint64_t st = 0x7f4a7c159e3779b9u;
    for (int round = 0; round < 16; round++) {
        size_t n = 1 + mt_rand(&st) % (round % 4 == 0 ? 1200 : 300);
        unsigned n_caps = round % 3 == 0 ? 1 + (unsigned)(mt_rand(&st) % 4) : 1;
        msgtab_msg *m = mt_make(&st, n, n_caps, 4 * n_caps, round % 5 == 0 ? 0 : 1000,
                                UINT64_C(1) << 30, round % 2 == 0, false);
        size_t n_pieces = 1 + mt_rand(&st) % 7, at = 0;
        msgtab *mt = msgtab_new(MT_MARKER);
        for (size_t p = 0; p < n_pieces; p++) {
            size_t len = p + 1 == n_pieces ? n - at : mt_rand(&st) % (n - at + 1);
            if (p + 1 < n_pieces && mt_rand(&st) % 4 == 0 && len > 70)
                len = mt_rand(&st) % 70;
            msgtab *piece = p ? msgtab_new(MT_MARKER) : mt;
            for (size_t i = at; i < at + len; i++)
                msgtab_add(piece, &m[i]);
            if (p) {
                msgtab_merge(mt, piece);
                msgtab_free(piece);
            }
            at += len;
        }
        ck_assert_uint_eq(at, n);
        msgtab_seal(mt);
        msgtab_msg *ref = xmalloc((2 * n + 1) * sizeof *ref);     /* freed below */
        memcpy(ref, m, n * sizeof *ref);
        mt_verify(mt, ref, n, &st);
        /* More, made after the first ones or among them, added and sealed. */
        msgtab_msg *more = mt_make(&st, n / 2, n_caps, 4 * n_caps, 1000, UINT64_C(1) << 30,
                                   round % 2 == 0, false);
        size_t n_more = n / 2;
        uint64_t t0 = m[0].time_ns, t1 = t0;
        for (size_t i = 0; i < n; i++) {
            t0 = m[i].time_ns < t0 ? m[i].time_ns : t0;
            t1 = m[i].time_ns > t1 ? m[i].time_ns : t1;
        }
        uint64_t span = t1 - t0 + 1;
        for (size_t i = 0; i < n_more; i++) {
            more[i].offset += UINT64_C(1) << 31;            /* unique: after the first */
            more[i].time_ns = round % 2 ? t1 + 1 + i : t0 + mt_rand(&st) % span;
        }
        qsort(more, n_more, sizeof *more, mt_ref_cmp);
        size_t cut = n_more ? mt_rand(&st) % n_more : 0;
        for (size_t i = 0; i < cut; i++)
            msgtab_add(mt, &more[i]);
        msgtab_seal(mt);
        memcpy(ref + n, more, cut * sizeof *ref);
        mt_verify(mt, ref, n + cut, &st);
        /* The rest in sorted batches placed into the sealed table. */
        qsort(more + cut, n_more - cut, sizeof *more, mt_ref_cmp);
        for (size_t i = cut; i < n_more;) {
            size_t k = 1 + mt_rand(&st) % 150;
            k = k < n_more - i ? k : n_more - i;
            msgtab_append_sorted(mt, more + i, k, NULL);
            memcpy(ref + n + i, more + i, k * sizeof *ref);
            i += k;
            if (round % 3 == 1 || i == n_more)
                mt_verify(mt, ref, n + i, &st);
        }
        msgtab_free(mt);
        x_free(more);
        x_free(ref);
        x_free(m);
    }
}
END_TEST

/* Adding to a sealed table (a build that goes on): sealed again, it holds old and new in
 * order, whether the new come after the old or among them, on the same caps or others. */
START_TEST(test_msgtab_reopen)
{
    uint64_t st = 0x1234567887654321u;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + mt_rand(&st) % 900;
        msgtab_msg *m = mt_make(&st, n, 1 + (unsigned)(mt_rand(&st) % 6), 6, 1000,
                                UINT64_C(1) << 30, round % 5 == 0, round % 3 == 0);
        size_t cut = mt_rand(&st) % (n + 1), cut2 = cut + mt_rand(&st) % (n - cut + 1);
        msgtab *mt = msgtab_new(MT_MARKER);
        for (size_t i = 0; i < cut; i++)
            msgtab_add(mt, &m[i]);
        msgtab_seal(mt);
        ck_assert_uint_eq(msgtab_count(mt), cut);
        for (size_t i = cut; i < cut2; i++)
            msgtab_add(mt, &m[i]);
        msgtab_seal(mt);
        for (size_t i = cut2; i < n; i++)
            msgtab_add(mt, &m[i]);
        msgtab_seal(mt);
        mt_verify(mt, m, n, &st);
        msgtab_free(mt);
        x_free(m);
    }
}
END_TEST

/* A growing index's placing: sorted batches appended to a sealed table, each starting
 * after the tail or before it (late), hold every message in order after each batch; the
 * index returned is the first message that differs from the table before, and the old
 * messages repacked are exactly those after the batch's first. */
START_TEST(test_msgtab_append_sorted)
{
    uint64_t st = 0x0badc0ffee123457u;
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + mt_rand(&st) % 600;
        msgtab_msg *m = mt_make(&st, n, 1 + (unsigned)(mt_rand(&st) % 6), 6, 1000,
                                UINT64_C(1) << 30, round % 5 == 0, round % 3 == 0);
        msgtab_msg *ref = xmalloc((n + 1) * sizeof *ref);         /* freed below */
        msgtab_msg *prev = xmalloc((n + 1) * sizeof *prev);       /* freed below */
        msgtab *mt = msgtab_new(MT_MARKER);
        msgtab_seal(mt);
        size_t done = 0;
        while (done < n) {
            size_t k = 1 + mt_rand(&st) % (round % 2 ? 200 : 40);
            if (k > n - done)
                k = n - done;
            msgtab_msg *batch = m + done;
            qsort(batch, k, sizeof *batch, mt_ref_cmp);
            memcpy(prev, ref, done * sizeof *ref);
            memcpy(ref + done, batch, k * sizeof *ref);
            qsort(ref, done + k, sizeof *ref, mt_ref_cmp);
            size_t want_at = 0, after = 0;
            while (want_at < done && mt_ref_cmp(&prev[want_at], &batch[0]) <= 0)
                want_at++;
            after = done - want_at;
            uint64_t moved = 0;
            ck_assert_uint_eq(msgtab_append_sorted(mt, batch, k, &moved), want_at);
            ck_assert_uint_eq(moved, after);
            done += k;
            mt_verify(mt, ref, done, &st);
        }
        ck_assert_uint_eq(msgtab_append_sorted(mt, m, 0, NULL), n);
        msgtab_free(mt);
        x_free(prev);
        x_free(ref);
        x_free(m);
    }
}
END_TEST

/* ---- the seal in two halves (msgtab_split_*) ---- */

static void *
mt_half1(void *arg)
{
    msgtab_split_run(arg, 1);
    return NULL;
}

/* Seal mt through sp: half 1 on a thread of its own while this one packs half 0
 * (order 0), or half 1 first and then half 0 on this thread (1), or the other way (2),
 * or only half 1, twice (the second finds it taken), with end packing half 0 (3), or
 * end packing both (4). */
static void
mt_split_seal_in(msgtab *mt, msgtab_split *sp, int order)
{
    pthread_t th;
    bool on = order == 0 && pthread_create(&th, NULL, mt_half1, sp) == 0;
    if (order == 1 || order == 3) {
        ck_assert(msgtab_split_run(sp, 1));
        ck_assert(!msgtab_split_run(sp, 1));
    }
    if (order <= 2)
        ck_assert(msgtab_split_run(sp, 0));
    if (on)
        pthread_join(th, NULL);
    else if (order == 0 || order == 2)
        ck_assert(msgtab_split_run(sp, 1));
    msgtab_split_end(mt, sp);
}

static void
mt_split_seal(msgtab *mt, msgtab_split *sp)
{
    mt_split_seal_in(mt, sp, 0);
}

/* The same messages as a and b (n of them, from m) added the same way: into one table
 * (pieces 0), or cut at `cut` into a second builder's table merged in (pieces 1), or
 * with the first `cut` sealed before the rest are added (pieces 2: a reopened list). */
static void
mt_fill_both(msgtab *a, msgtab *b, const msgtab_msg *m, size_t n, int pieces, size_t cut)
{
    msgtab *t[2] = { a, b };
    for (int k = 0; k < 2; k++) {
        msgtab *other = pieces == 1 ? msgtab_new(MT_MARKER) : NULL;
        for (size_t i = 0; i < n; i++) {
            if (pieces == 2 && i == cut)
                msgtab_seal(t[k]);
            msgtab_add(other && i >= cut ? other : t[k], &m[i]);
        }
        if (other) {
            msgtab_merge(t[k], other);
            msgtab_free(other);
        }
    }
}

/* Table b, sealed in halves, is message for message table a sealed at once. */
static void
mt_same(const msgtab *a, const msgtab *b)
{
    ck_assert_uint_eq(msgtab_count(a), msgtab_count(b));
    ck_assert_uint_eq(msgtab_n_markers(a), msgtab_n_markers(b));
    for (size_t i = 0; i < msgtab_count(a); i++) {
        msgtab_msg x = msgtab_at(a, i), y = msgtab_at(b, i);
        ck_assert_msg(x.time_ns == y.time_ns && x.offset == y.offset && x.cap == y.cap &&
                          x.kind == y.kind, "message %zu differs", i);
    }
}

/* Random overlapping lists (several caps, ties in time, a second builder's list, a
 * reopened table's list) sealed in halves at the median the table picks, the halves
 * packed on two threads or one, in either order, or left to end: the same table as the
 * serial seal, sound, and it takes more messages and seals again. */
START_TEST(test_msgtab_split_seal)
{
    uint64_t st = 0x3c6ef372fe94f82bu;
    static const uint64_t t_spans[] = { 0, 1, 3, 1000, UINT64_C(1) << 30 };
    for (int round = 0; round < 30; round++) {
        size_t n = 200 + mt_rand(&st) % (round % 5 == 0 ? 3000 : 700);
        unsigned n_caps = 2 + (unsigned)(mt_rand(&st) % 5);
        msgtab_msg *m = mt_make(&st, n, n_caps, 3 * n_caps, t_spans[round % 5],
                                UINT64_C(1) << 30, round % 4 == 0, false);
        msgtab *a = msgtab_new(MT_MARKER), *b = msgtab_new(MT_MARKER);
        mt_fill_both(a, b, m, n, round % 3, mt_rand(&st) % n);
        ck_assert_ptr_null(msgtab_split_begin(b, n + 1));   /* too small to split */
        msgtab_split *sp = msgtab_split_begin(b, n);
        ck_assert_ptr_nonnull(sp);
        mt_split_seal_in(b, sp, round % 5);
        msgtab_seal(a);
        mt_same(a, b);
        msgtab_msg *ref = xmalloc((n + 70) * sizeof *ref);        /* freed below */
        memcpy(ref, m, n * sizeof *ref);
        mt_verify(b, ref, n, &st);
        /* Taken back (a growing index): more among the old, sealed again. */
        for (size_t i = 0; i < 64; i++) {
            msgtab_msg x = m[mt_rand(&st) % n];
            x.offset += UINT64_C(1) << 32;                  /* unique */
            msgtab_add(b, &x);
            ref[n + i] = x;
        }
        msgtab_seal(b);
        mt_verify(b, ref, n + 64, &st);
        msgtab_free(a);
        msgtab_free(b);
        x_free(ref);
        x_free(m);
    }
}
END_TEST

/* Split times chosen: each chunk base of cap 0's list (a chunk edge) and the times
 * just around it, with many messages at equal times on every cap, before every
 * message (half 0 empty) and after every one (half 1 empty). */
START_TEST(test_msgtab_split_edges)
{
    uint64_t st = 0x6a09e667bb67ae85u;
    for (int round = 0; round < 4; round++) {
        size_t n = 600;
        msgtab_msg *m = mt_make(&st, n, 3, 3, round == 3 ? 0 : 3, UINT64_C(1) << 30,
                                round == 1, false);
        uint64_t ts[64];
        size_t n_ts = 0, in_cap0 = 0;
        uint64_t t_lo = m[0].time_ns, t_hi = m[0].time_ns;
        for (size_t i = 0; i < n; i++) {
            t_lo = m[i].time_ns < t_lo ? m[i].time_ns : t_lo;
            t_hi = m[i].time_ns > t_hi ? m[i].time_ns : t_hi;
            if (m[i].cap == 0 && in_cap0++ % MSGTAB_CHUNK == 0 && n_ts + 3 <= 40) {
                ts[n_ts++] = m[i].time_ns - 1;
                ts[n_ts++] = m[i].time_ns;
                ts[n_ts++] = m[i].time_ns + 1;
            }
        }
        ts[n_ts++] = 0;
        ts[n_ts++] = t_lo;
        ts[n_ts++] = t_hi;
        ts[n_ts++] = t_hi + 1;
        ts[n_ts++] = UINT64_MAX;
        msgtab_msg *ref = xmalloc((n + 1) * sizeof *ref);         /* freed below */
        for (size_t q = 0; q < n_ts; q++) {
            msgtab *a = msgtab_new(MT_MARKER), *b = msgtab_new(MT_MARKER);
            mt_fill_both(a, b, m, n, q % 2, n / 3 + q);
            msgtab_split *sp = msgtab_split_begin_at(b, ts[q]);
            ck_assert_ptr_nonnull(sp);
            mt_split_seal(b, sp);
            msgtab_seal(a);
            mt_same(a, b);
            memcpy(ref, m, n * sizeof *ref);
            mt_verify(b, ref, n, &st);
            msgtab_free(a);
            msgtab_free(b);
        }
        x_free(ref);
        x_free(m);
    }
}
END_TEST

/* Lists long enough that each half gives back the pages of the chunks it has passed
 * (never those the other half reads): halves run at once and one after the other in
 * either order, the table is the serial seal's. */
START_TEST(test_msgtab_split_large)
{
    uint64_t st = 0x510e527f9b05688cu;
    size_t n = 100000;
    msgtab_msg *m = mt_make(&st, n, 2, 2, UINT64_C(1) << 20, UINT64_C(1) << 39, false, false);
    msgtab *a = msgtab_new(MT_MARKER);
    for (size_t i = 0; i < n; i++)
        msgtab_add(a, &m[i]);
    msgtab_seal(a);
    for (int order = 0; order < 3; order++) {
        msgtab *b = msgtab_new(MT_MARKER);
        for (size_t i = 0; i < n; i++)
            msgtab_add(b, &m[i]);
        msgtab_split *sp = msgtab_split_begin(b, MSGTAB_SPLIT_MIN);
        ck_assert_ptr_nonnull(sp);
        mt_split_seal_in(b, sp, order);
        char why[200] = "";
        ck_assert_msg(msgtab_check(b, why, sizeof why), "check: %s", why);
        mt_same(a, b);
        msgtab_free(b);
    }
    msgtab_free(a);
    x_free(m);
}
END_TEST

static int
mt_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* n messages in stretches on n_caps (<= 8) caps, each stretch one cap's (a few
 * messages, about a chunk, or several chunks; cap 0's whole chunks, so they end where
 * its list's chunks do), times rising across them, often tied at their edges; each
 * cap's offsets rise, by random jumps across caps, so ties go either way. */
static msgtab_msg *
mt_make_stretches(uint64_t *st, size_t n, unsigned n_caps, bool markers_only)
{
    msgtab_msg *m = xmalloc((n + 1) * sizeof *m);      /* caller frees */
    uint64_t off[8] = { 0 };
    uint64_t t = mt_rand(st) % (UINT64_C(1) << 40);
    for (size_t i = 0; i < n;) {
        unsigned c = (unsigned)(mt_rand(st) % n_caps);
        size_t kind = mt_rand(st) % 3;
        size_t len = kind == 0 ? 1 + mt_rand(st) % 3
                   : kind == 1 ? MSGTAB_CHUNK - 4 + mt_rand(st) % 9
                               : 3 * MSGTAB_CHUNK + mt_rand(st) % (6 * MSGTAB_CHUNK);
        if (c == 0)
            len = (len + MSGTAB_CHUNK - 1) / MSGTAB_CHUNK * MSGTAB_CHUNK;
        off[c] += mt_rand(st) % (1u << 16);
        for (size_t j = 0; j < len && i < n; j++, i++) {
            t += mt_rand(st) % 2 == 0 ? 0 : 1 + mt_rand(st) % 5000;
            off[c] += 1 + mt_rand(st) % 24;
            m[i] = (msgtab_msg){
                .time_ns = t,
                .offset = off[c] * 8 + c,
                .cap = c * 5,
                .kind = markers_only ? MT_MARKER : mt_rand(st) % MT_KINDS,
            };
        }
    }
    return m;
}

/* Lists whose messages come in stretches (a capability busy alone for many chunks):
 * merged, the chunks a stretch holds whole go to the table as they are. Sealed at once
 * (two lists, or four: a second builder's), in halves on two threads, taken back for
 * more and sealed again: every message, marker and search as the reference says, and
 * the halves' table the serial seal's. */
START_TEST(test_msgtab_merge_stretches)
{
    uint64_t st = 0x9b05688c2b3e6c1fu;
    for (int round = 0; round < 24; round++) {
        size_t n = 500 + mt_rand(&st) % (round % 4 == 0 ? 12000 : 3000);
        unsigned n_caps = 2 + (unsigned)(round % 3);
        msgtab_msg *m = mt_make_stretches(&st, n, n_caps, round % 5 == 0);
        msgtab *a = msgtab_new(MT_MARKER), *b = msgtab_new(MT_MARKER);
        mt_fill_both(a, b, m, n, round % 3, mt_rand(&st) % n);
        msgtab_seal(a);
        msgtab_msg *ref = xmalloc((n + 300) * sizeof *ref);       /* freed below */
        memcpy(ref, m, n * sizeof *ref);
        mt_verify(a, ref, n, &st);
        msgtab_split *sp = msgtab_split_begin(b, 0);
        if (sp)
            mt_split_seal_in(b, sp, round % 5);
        else
            msgtab_seal(b);
        mt_same(a, b);
        char why[200] = "";
        ck_assert_msg(msgtab_check(b, why, sizeof why), "check: %s", why);
        /* Taken back: a few among the old ones (in time order), then stretches after
         * them; every list stays sorted, so the seal merges them with the old table. */
        msgtab_msg *more = mt_make_stretches(&st, 256, n_caps, false);
        uint64_t t_end = ref[n - 1].time_ns, t0 = more[6].time_ns, among[6];
        for (size_t i = 0; i < 6; i++)
            among[i] = m[mt_rand(&st) % n].time_ns;
        qsort(among, 6, sizeof *among, mt_u64_cmp);
        for (size_t i = 0; i < 256; i++) {
            more[i].offset += UINT64_C(1) << 34;            /* unique */
            more[i].time_ns = round % 2 == 0 && i < 6 ? among[i]
                                                      : t_end + 1 + more[i].time_ns - t0;
            msgtab_add(a, &more[i]);
            ref[n + i] = more[i];
        }
        msgtab_seal(a);
        mt_verify(a, ref, n + 256, &st);
        msgtab_free(a);
        msgtab_free(b);
        x_free(more);
        x_free(ref);
        x_free(m);
    }
}
END_TEST

/* No split where the seal is no merge: one list, lists that follow one another, a list
 * out of order, a sealed table. */
START_TEST(test_msgtab_split_none)
{
    uint64_t st = 0xbb67ae853c6ef372u;
    msgtab_msg *m = mt_make(&st, 500, 1, 1, 1000, UINT64_C(1) << 30, false, false);
    msgtab *mt = msgtab_new(MT_MARKER);
    for (size_t i = 0; i < 500; i++)
        msgtab_add(mt, &m[i]);
    ck_assert_ptr_null(msgtab_split_begin(mt, 0));          /* one list */
    msgtab *more = msgtab_new(MT_MARKER);
    msgtab_msg x = m[499];
    x.time_ns += 1;
    x.offset += 1;
    msgtab_add(more, &x);
    msgtab_merge(mt, more);                                 /* one after the other */
    ck_assert_ptr_null(msgtab_split_begin(mt, 0));
    msgtab_seal(mt);
    ck_assert_ptr_null(msgtab_split_begin(mt, 0));          /* sealed */
    msgtab_free(mt);
    msgtab_free(more);
    mt = msgtab_new(MT_MARKER);
    for (size_t i = 500; i-- > 0;)                          /* out of order */
        msgtab_add(mt, &m[i]);
    msgtab_add(mt, &(msgtab_msg){ .time_ns = m[0].time_ns, .offset = 1, .cap = 1 });
    ck_assert_ptr_null(msgtab_split_begin(mt, 0));
    msgtab_free(mt);
    x_free(m);
}
END_TEST

/* An empty table, and the size of a dense one. */
START_TEST(test_msgtab_empty_and_bytes)
{
    msgtab *mt = msgtab_new(MT_MARKER);
    msgtab_seal(mt);
    char why[100];
    ck_assert(msgtab_check(mt, why, sizeof why));
    ck_assert_uint_eq(msgtab_count(mt), 0);
    ck_assert_uint_eq(msgtab_first_from(mt, 5), 0);
    ck_assert_uint_eq(msgtab_n_markers(mt), 0);
    msgtab_msg z = msgtab_at(mt, 0);
    ck_assert_uint_eq(z.time_ns, 0);
    msgtab_free(mt);
    /* A million markers a few µs apart in one file cost about 6 bytes each, not 16. */
    mt = msgtab_new(MT_MARKER);
    for (size_t i = 0; i < 100000; i++) {
        msgtab_msg m = { .time_ns = 1000000 + i * 3000, .offset = 4096 + i * 40,
                         .cap = i % 2, .kind = MT_MARKER };
        msgtab_add(mt, &m);
    }
    msgtab_seal(mt);
    ck_assert(msgtab_check(mt, why, sizeof why));
    ck_assert_uint_lt(msgtab_bytes(mt), 100000 * 7);
    ck_assert_uint_eq(msgtab_marker_index(mt, 99999), 99999);
    msgtab_free(mt);
}
END_TEST

Suite *
test_msgtab_suite(void)
{
    Suite *s = suite_create("msgtab");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_msgtab_matches_sorted_reference);
    tcase_add_test(tc, test_msgtab_merge);
    tcase_add_test(tc, test_msgtab_merge_large);
    tcase_add_test(tc, test_msgtab_empty_and_bytes);
    tcase_add_test(tc, test_msgtab_reopen);
    tcase_add_test(tc, test_msgtab_append_sorted);
    tcase_add_test(tc, test_msgtab_split_pieces);
    tcase_add_test(tc, test_msgtab_split_seal);
    tcase_add_test(tc, test_msgtab_split_edges);
    tcase_add_test(tc, test_msgtab_split_none);
    tcase_add_test(tc, test_msgtab_split_large);
    tcase_add_test(tc, test_msgtab_merge_stretches);
    suite_add_tcase(s, tc);
    return s;
}
