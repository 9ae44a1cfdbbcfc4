/* rundiff: two runs' GC figures, markers and MMU side by side, each row with its change. */
#include "rundiff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmu.h"
#include "mmusrc.h"
#include "pausehist.h"
#include "statsfmt.h"
#include "timefmt.h"
#include "xalloc.h"

#define RD_LABEL 34
#define RD_COL 16

/* How a value prints. */
typedef enum rd_kind { RD_COUNT, RD_BYTES, RD_TIME, RD_PCT } rd_kind;

typedef struct rd_val {
    bool known;
    double v;                   /* counts, bytes and ns exactly up to 2^53; percent 0..100 */
} rd_val;

static rd_val
rd_u(uint64_t v)
{
    return (rd_val){ true, (double)v };
}

static void
rd_pad(strbuf *out, size_t from, size_t width)
{
    while (out->len < from + width)
        strbuf_putc(out, ' ');
}

/* One cell, right-aligned in `width`. */
static void
rd_cell(strbuf *out, rd_kind k, rd_val x, int width)
{
    strbuf c;
    strbuf_init(&c);
    if (!x.known)
        strbuf_puts(&c, "unknown");
    else if (k == RD_COUNT || k == RD_BYTES)
        statsfmt_commas(&c, (uint64_t)x.v);
    else if (k == RD_TIME)
        timefmt_append(&c, (uint64_t)x.v);
    else
        strbuf_printf(&c, "%.2f%%", x.v);
    strbuf_printf(out, "%*.*s", width, (int)c.len, c.data ? c.data : "");
    strbuf_free(&c);
}

/* The change from a to b: "=" when equal, else the signed difference and, for counts,
 * bytes and times, the relative change. */
static void
rd_change(strbuf *out, rd_kind k, rd_val a, rd_val b)
{
    if (!a.known || !b.known) {
        strbuf_puts(out, a.known == b.known ? "=" : "?");
        return;
    }
    if (a.v == b.v) {
        strbuf_putc(out, '=');
        return;
    }
    double d = b.v - a.v;
    char sign = d < 0 ? '-' : '+';
    double ad = d < 0 ? -d : d;
    strbuf_putc(out, sign);
    if (k == RD_PCT) {
        strbuf_printf(out, "%.2f points", ad);
        return;
    }
    if (k == RD_TIME)
        timefmt_append(out, (uint64_t)ad);
    else
        statsfmt_commas(out, (uint64_t)ad);
    if (a.v != 0)
        strbuf_printf(out, " (%c%.1f%%)", sign, 100.0 * ad / a.v);
}

static void
rd_row(strbuf *out, const char *label, rd_kind k, rd_val a, rd_val b)
{
    size_t at = out->len;
    strbuf_printf(out, "  %s", label);
    rd_pad(out, at, RD_LABEL);
    rd_cell(out, k, a, RD_COL);
    rd_cell(out, k, b, RD_COL);
    strbuf_puts(out, "   ");
    rd_change(out, k, a, b);
    strbuf_putc(out, '\n');
}

static void
rd_head(strbuf *out, const char *title)
{
    strbuf_printf(out, "\n%s\n", title);
    size_t at = out->len;
    rd_pad(out, at, RD_LABEL);
    strbuf_printf(out, "%*s%*s   change\n", RD_COL, "A", RD_COL, "B");
}

/* ---- +RTS -s rows ------------------------------------------------------------------------ */

static rd_val
rd_phase(const gcstats_report *r, int which)
{
    switch (which) {
    case 0: return (rd_val){ r->has_init, (double)r->init_ns };
    case 1: return rd_u(r->mut_ns);
    case 2: return (rd_val){ r->has_gc_events, (double)r->gc_ns };
    case 3: return (rd_val){ r->has_exit, (double)r->exit_ns };
    default: return rd_u(r->total_ns);
    }
}

static void
rd_rts(strbuf *out, const gcstats_report *a, const gcstats_report *b)
{
    rd_head(out, "+RTS -s rows (elapsed; as `elog-tui stats`)");
    bool ga = a->has_gc_events, gb = b->has_gc_events;
    rd_row(out, "bytes allocated in the heap", RD_BYTES, (rd_val){ ga, (double)a->bytes_allocated },
           (rd_val){ gb, (double)b->bytes_allocated });
    rd_row(out, "bytes copied during GC", RD_BYTES, (rd_val){ ga, (double)a->bytes_copied },
           (rd_val){ gb, (double)b->bytes_copied });
    rd_row(out, "maximum residency", RD_BYTES, (rd_val){ ga, (double)a->max_residency },
           (rd_val){ gb, (double)b->max_residency });
    rd_row(out, "maximum slop", RD_BYTES, (rd_val){ ga, (double)a->max_slop },
           (rd_val){ gb, (double)b->max_slop });
    rd_row(out, "total memory in use (MiB)", RD_COUNT, (rd_val){ ga, (double)a->total_mem_mib },
           (rd_val){ gb, (double)b->total_mem_mib });
    unsigned gens = a->n_gens > b->n_gens ? a->n_gens : b->n_gens;
    char label[64];
    for (unsigned g = 0; g < gens && g < GCSTATS_MAX_GENS; g++) {
        const gcstats_gen *x = &a->gens[g], *y = &b->gens[g];
        bool kx = ga && g < a->n_gens, ky = gb && g < b->n_gens;
        snprintf(label, sizeof label, "Gen %u colls", g);
        rd_row(out, label, RD_COUNT, (rd_val){ kx, (double)x->colls },
               (rd_val){ ky, (double)y->colls });
        snprintf(label, sizeof label, "Gen %u par", g);
        rd_row(out, label, RD_COUNT, (rd_val){ kx, (double)x->par_colls },
               (rd_val){ ky, (double)y->par_colls });
        snprintf(label, sizeof label, "Gen %u elapsed", g);
        rd_row(out, label, RD_TIME, (rd_val){ kx, (double)x->elapsed_ns },
               (rd_val){ ky, (double)y->elapsed_ns });
        snprintf(label, sizeof label, "Gen %u avg pause", g);
        rd_row(out, label, RD_TIME, (rd_val){ kx, (double)x->avg_pause_ns },
               (rd_val){ ky, (double)y->avg_pause_ns });
        snprintf(label, sizeof label, "Gen %u max pause", g);
        rd_row(out, label, RD_TIME, (rd_val){ kx, (double)x->max_pause_ns },
               (rd_val){ ky, (double)y->max_pause_ns });
    }
    rd_row(out, "parallel GC work balance", RD_PCT,
           (rd_val){ a->has_work_balance, 100.0 * a->work_balance },
           (rd_val){ b->has_work_balance, 100.0 * b->work_balance });
    static const char *const phases[5] = { "INIT elapsed", "MUT elapsed", "GC elapsed",
                                           "EXIT elapsed", "Total elapsed" };
    for (int p = 0; p < 5; p++)
        rd_row(out, phases[p], RD_TIME, rd_phase(a, p), rd_phase(b, p));
    rd_val ra = { ga && a->mut_ns > 0,
                  a->mut_ns ? (double)a->bytes_allocated * 1e9 / (double)a->mut_ns : 0 };
    rd_val rb = { gb && b->mut_ns > 0,
                  b->mut_ns ? (double)b->bytes_allocated * 1e9 / (double)b->mut_ns : 0 };
    rd_row(out, "alloc rate (bytes per MUT second)", RD_BYTES, ra, rb);
    rd_row(out, "productivity", RD_PCT,
           (rd_val){ a->productivity_known != GCSTATS_UNKNOWN, 100.0 * a->productivity },
           (rd_val){ b->productivity_known != GCSTATS_UNKNOWN, 100.0 * b->productivity });
}

/* ---- pause percentiles and histograms ----------------------------------------------------- */

static void
rd_pauses(strbuf *out, const gcstats_report *a, const gcstats_report *b)
{
    if (!a->has_gc_events && !b->has_gc_events)
        return;
    rd_head(out, "Pause percentiles (elapsed, nearest rank)");
    unsigned gens = a->n_gens > b->n_gens ? a->n_gens : b->n_gens;
    char label[64];
    for (unsigned g = 0; g < gens && g < GCSTATS_MAX_GENS; g++) {
        const gcstats_gen *x = &a->gens[g], *y = &b->gens[g];
        bool kx = x->colls > x->n_unpaired, ky = y->colls > y->n_unpaired;
        static const char *const names[4] = { "p50", "p90", "p99", "max" };
        uint64_t vx[4] = { x->p50_ns, x->p90_ns, x->p99_ns, x->max_pause_ns };
        uint64_t vy[4] = { y->p50_ns, y->p90_ns, y->p99_ns, y->max_pause_ns };
        for (int k = 0; k < 4; k++) {
            snprintf(label, sizeof label, "Gen %u %s", g, names[k]);
            rd_row(out, label, RD_TIME, (rd_val){ kx, (double)vx[k] },
                   (rd_val){ ky, (double)vy[k] });
        }
    }
}

static void
rd_hist(strbuf *out, const evindex *ia, const evindex *ib)
{
    pausehist ha, hb;
    pausehist_from_index(&ha, ia, 0, UINT64_MAX);
    pausehist_from_index(&hb, ib, 0, UINT64_MAX);
    unsigned fa = 0, la = 0, fb = 0, lb = 0;
    bool any_a = pausehist_range(&ha, &fa, &la), any_b = pausehist_range(&hb, &fb, &lb);
    if (!any_a && !any_b)
        return;
    unsigned first = !any_a ? fb : !any_b ? fa : fa < fb ? fa : fb;
    unsigned last = !any_a ? lb : !any_b ? la : la > lb ? la : lb;
    rd_head(out, "Pause histogram (count per bucket)");
    unsigned gens = ha.n_gens > hb.n_gens ? ha.n_gens : hb.n_gens;
    strbuf label;
    strbuf_init(&label);
    for (unsigned g = 0; g < gens; g++) {
        for (unsigned k = first; k <= last; k++) {
            uint64_t ca = g < ha.n_gens ? ha.gens[g].count[k] : 0;
            uint64_t cb = g < hb.n_gens ? hb.gens[g].count[k] : 0;
            if (!ca && !cb)
                continue;
            strbuf_reset(&label);
            strbuf_printf(&label, "Gen %u  ", g);
            if (k == 0) {
                strbuf_puts(&label, "<1us");
            } else {
                pausehist_bound(&label, pausehist_bucket_lo(k));
                strbuf_puts(&label, " .. ");
                pausehist_bound(&label, pausehist_bucket_hi(k));
            }
            strbuf_putc(&label, '\0');
            rd_row(out, label.data, RD_COUNT, rd_u(ca), rd_u(cb));
        }
    }
    strbuf_free(&label);
}

/* ---- markers ------------------------------------------------------------------------------ */

typedef struct rd_marker {
    const uint8_t *text;
    size_t len;
    uint64_t time_ns;
    size_t occurrence;          /* 0-based among the markers of this name */
} rd_marker;

/* The markers of ix with their occurrence numbers. Caller frees. */
static rd_marker *
rd_markers(const evindex *ix, size_t *n)
{
    size_t m = evindex_n_markers(ix);
    rd_marker *v = xmalloc((m + 1) * sizeof *v);
    for (size_t i = 0; i < m; i++) {
        const evindex_msg msg_v = evindex_marker_at(ix, i), *msg = &msg_v;
        v[i].time_ns = msg->time_ns;
        if (!evindex_msg_text(ix, msg, &v[i].text, &v[i].len)) {
            v[i].text = (const uint8_t *)"";
            v[i].len = 0;
        }
        v[i].occurrence = 0;
        /* Quadratic in the worst case, fine for the markers a program writes; bounded
         * below by the row limit's callers. */
        for (size_t j = i; j-- > 0;)
            if (v[j].len == v[i].len && memcmp(v[j].text, v[i].text, v[i].len) == 0) {
                v[i].occurrence = v[j].occurrence + 1;
                break;
            }
    }
    *n = m;
    return v;
}

/* B's marker matching A's (same name, same occurrence), or SIZE_MAX. */
static size_t
rd_match(const rd_marker *vb, size_t nb, const rd_marker *x)
{
    for (size_t j = 0; j < nb; j++)
        if (vb[j].occurrence == x->occurrence && vb[j].len == x->len &&
            memcmp(vb[j].text, x->text, x->len) == 0)
            return j;
    return SIZE_MAX;
}

static void
rd_marker_name(strbuf *sb, const rd_marker *m)
{
    for (size_t i = 0; i < m->len && i < 40; i++) {
        uint8_t c = m->text[i];
        strbuf_putc(sb, c < 0x20 || c == 0x7f ? '?' : (char)c);
    }
    if (m->len > 40)
        strbuf_puts(sb, "...");
    if (m->occurrence)
        strbuf_printf(sb, " #%zu", m->occurrence + 1);
}

#define RD_MAX_MARKERS 4096
#define RD_MAX_MARKER_ROWS 200

static void
rd_marker_rows(strbuf *out, const evindex *ia, const evindex *ib)
{
    size_t na, nb;
    if (evindex_n_markers(ia) > RD_MAX_MARKERS || evindex_n_markers(ib) > RD_MAX_MARKERS) {
        strbuf_printf(out, "\nMarkers: more than %d in a log; not compared.\n", RD_MAX_MARKERS);
        return;
    }
    rd_marker *va = rd_markers(ia, &na), *vb = rd_markers(ib, &nb);
    /* The matched markers in A's time order; each row is the time from one to the next. */
    size_t *ma = xmalloc((na + 1) * sizeof *ma), *mb = xmalloc((na + 1) * sizeof *mb);
    size_t k = 0;
    for (size_t i = 0; i < na; i++) {
        size_t j = rd_match(vb, nb, &va[i]);
        if (j != SIZE_MAX) {
            ma[k] = i;
            mb[k++] = j;
        }
    }
    if (k < 2) {
        strbuf_printf(out, "\nMarkers: %zu in A, %zu in B, %zu matched by name and order: no "
                           "durations to compare.\n", na, nb, k);
    } else {
        rd_head(out, "Durations between markers (same name, in order)");
        strbuf label;
        strbuf_init(&label);
        size_t rows = 0;
        for (size_t i = 0; i + 1 < k && rows < RD_MAX_MARKER_ROWS; i++, rows++) {
            strbuf_reset(&label);
            rd_marker_name(&label, &va[ma[i]]);
            strbuf_puts(&label, " -> ");
            rd_marker_name(&label, &va[ma[i + 1]]);
            strbuf_putc(&label, '\0');
            uint64_t da = va[ma[i + 1]].time_ns - va[ma[i]].time_ns;
            uint64_t tb0 = vb[mb[i]].time_ns, tb1 = vb[mb[i + 1]].time_ns;
            /* Out of order in B: the time back, shown as unknown. */
            rd_val db = { tb1 >= tb0, (double)(tb1 >= tb0 ? tb1 - tb0 : 0) };
            /* A long label gets its own line. */
            if (label.len > RD_LABEL - 2) {
                strbuf_printf(out, "  %s\n", label.data);
                rd_row(out, "", RD_TIME, rd_u(da), db);
            } else {
                rd_row(out, label.data, RD_TIME, rd_u(da), db);
            }
        }
        if (k - 1 > rows)
            strbuf_printf(out, "  (%zu more not shown)\n", k - 1 - rows);
        strbuf_free(&label);
        strbuf_printf(out, "  markers: %zu in A, %zu in B, %zu matched\n", na, nb, k);
    }
    x_free(ma);
    x_free(mb);
    x_free(va);
    x_free(vb);
}

/* ---- MMU ---------------------------------------------------------------------------------- */

static void
rd_mmu(strbuf *out, const evindex *ia, const evindex *ib)
{
    mmusrc_opts o = { 0 };
    mmu *ma = mmusrc_new(ia, &o, evindex_first_ns(ia), evindex_last_ns(ia));
    mmu *mb = mmusrc_new(ib, &o, evindex_first_ns(ib), evindex_last_ns(ib));
    uint64_t la = mmu_to_ns(ma) - mmu_from_ns(ma), lb = mmu_to_ns(mb) - mmu_from_ns(mb);
    rd_head(out, "MMU (stop-the-world pauses)");
    static const uint64_t ws[] = { 1000000, 10000000, 100000000, 1000000000 };
    static const char *const names[] = { "1ms", "10ms", "100ms", "1s" };
    char label[64];
    for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++) {
        /* Windows longer than a run are left out for it (unknown). */
        rd_val va = { ws[i] < la, ws[i] < la ? 100.0 * mmu_at(ma, ws[i]).mmu : 0 };
        rd_val vb = { ws[i] < lb, ws[i] < lb ? 100.0 * mmu_at(mb, ws[i]).mmu : 0 };
        if (!va.known && !vb.known)
            continue;
        snprintf(label, sizeof label, "MMU at %s", names[i]);
        rd_row(out, label, RD_PCT, va, vb);
    }
    mmu_free(ma);
    mmu_free(mb);
}

void
rundiff_report(strbuf *out, const rundiff_side *a, const rundiff_side *b)
{
    strbuf_printf(out, "elog-tui diff\n  A: %s\n  B: %s\n", a->name, b->name);
    strbuf_puts(out, "Change is B - A; \"=\" means the same; times are elapsed, on each log's "
                     "own clock.\n");
    rd_rts(out, a->r, b->r);
    rd_pauses(out, a->r, b->r);
    rd_hist(out, a->ix, b->ix);
    rd_marker_rows(out, a->ix, b->ix);
    rd_mmu(out, a->ix, b->ix);
}
