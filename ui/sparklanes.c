/* sparklanes: spark creation and conversion counts and the pool size of one capability
 * over a time range, and their words for the detail pane. */
#include "sparklanes.h"

#include <string.h>

#include "decode.h"
#include "series.h"
#include "timefmt.h"
#include "xalloc.h"

static bool
sparklanes_has_events(const evindex *ix, size_t li)
{
    for (int k = 0; k < EVINDEX_N_SPARK_KINDS; k++)
        if (evindex_cap_spark_total(ix, li, (enum evindex_spark_kind)k))
            return true;
    return false;
}

bool
sparklanes_exact(const evindex *ix)
{
    for (size_t li = 0; li < evindex_n_caps(ix); li++)
        if (sparklanes_has_events(ix, li))
            return true;
    return false;
}

bool
sparklanes_cap_active(const evindex *ix, size_t li)
{
    if (li >= evindex_n_caps(ix))
        return false;
    for (int k = 0; k < EVINDEX_N_CAP_SPARK; k++)
        if (series_max(evindex_cap_spark_series(ix, li, (enum evindex_cap_spark)k)) > 0)
            return true;
    return sparklanes_has_events(ix, li);
}

/* A cumulative counter's value at t, growing steadily from one sample to the next
 * (0 before the first sample, the last value after the last). */
static double
sparklanes_counter_at(const series *s, uint64_t t)
{
    size_t n = series_count(s);
    if (n == 0)
        return 0;
    size_t i = series_at(s, t);
    if (i == SIZE_MAX)
        return 0;
    series_sample a = series_get(s, i);
    if (i + 1 >= n || a.time_ns == t)
        return (double)a.value;
    series_sample b = series_get(s, i + 1);
    if (b.time_ns <= a.time_ns || b.value < a.value)
        return (double)a.value;
    double f = (double)(t - a.time_ns) / (double)(b.time_ns - a.time_ns);
    return (double)a.value + f * (double)(b.value - a.value);
}

static double
sparklanes_counter_rise(const evindex *ix, size_t li, enum evindex_cap_spark k, uint64_t t0,
                        uint64_t t1)
{
    const series *s = evindex_cap_spark_series(ix, li, k);
    if (!s || t1 <= t0)
        return 0;
    double d = sparklanes_counter_at(s, t1) - sparklanes_counter_at(s, t0);
    return d > 0 ? d : 0;
}

double
sparklanes_created(const evindex *ix, size_t li, uint64_t t0, uint64_t t1)
{
    if (sparklanes_has_events(ix, li))
        return (double)evindex_cap_spark_count(ix, li, EVINDEX_SPARK_CREATE, t0, t1);
    return sparklanes_counter_rise(ix, li, EVINDEX_CS_CREATED, t0, t1);
}

double
sparklanes_converted(const evindex *ix, size_t li, uint64_t t0, uint64_t t1)
{
    if (sparklanes_has_events(ix, li))
        return (double)(evindex_cap_spark_count(ix, li, EVINDEX_SPARK_RUN, t0, t1) +
                        evindex_cap_spark_count(ix, li, EVINDEX_SPARK_STEAL, t0, t1));
    return sparklanes_counter_rise(ix, li, EVINDEX_CS_CONVERTED, t0, t1);
}

/* Sparks created (converted) on lane li before t: what created (converted) counts in
 * [t0, t1) is the rise of this from t0 to t1. */
static double
sparklanes_before(const evindex *ix, size_t li, bool converted, uint64_t t)
{
    if (sparklanes_has_events(ix, li)) {
        if (!converted)
            return (double)evindex_cap_spark_count(ix, li, EVINDEX_SPARK_CREATE, 0, t);
        return (double)(evindex_cap_spark_count(ix, li, EVINDEX_SPARK_RUN, 0, t) +
                        evindex_cap_spark_count(ix, li, EVINDEX_SPARK_STEAL, 0, t));
    }
    const series *s = evindex_cap_spark_series(ix, li, converted ? EVINDEX_CS_CONVERTED
                                                                 : EVINDEX_CS_CREATED);
    return s ? sparklanes_counter_at(s, t) : 0;
}

void
sparklanes_cols(const evindex *ix, size_t li, bool converted, const uint64_t *t, size_t n,
                double *out)
{
    if (n == 0)
        return;
    if (sparklanes_has_events(ix, li)) {
        /* The spark events before every edge, one sweep per kind. */
        size_t *a = xmalloc((n + 1) * sizeof *a), *b = NULL;      /* both freed below */
        evindex_cap_spark_before_many(ix, li, converted ? EVINDEX_SPARK_RUN
                                                        : EVINDEX_SPARK_CREATE, t, n + 1, a);
        if (converted) {
            b = xmalloc((n + 1) * sizeof *b);
            evindex_cap_spark_before_many(ix, li, EVINDEX_SPARK_STEAL, t, n + 1, b);
            for (size_t c = 0; c <= n; c++)
                a[c] += b[c];
        }
        for (size_t c = 0; c < n; c++)
            out[c] = t[c + 1] > t[c] && a[c + 1] > a[c] ? (double)(a[c + 1] - a[c]) : 0;
        x_free(b);
        x_free(a);
        return;
    }
    double prev = sparklanes_before(ix, li, converted, t[0]);
    for (size_t c = 0; c < n; c++) {
        double next = sparklanes_before(ix, li, converted, t[c + 1]);
        double d = t[c + 1] > t[c] ? next - prev : 0;
        out[c] = d > 0 ? d : 0;
        prev = next;
    }
}

bool
sparklanes_pool(const evindex *ix, size_t li, uint64_t t0, uint64_t t1, uint64_t *out)
{
    const series *s = evindex_cap_spark_series(ix, li, EVINDEX_CS_POOL);
    if (!s)
        return false;
    bool any = false;
    uint64_t mx = 0, lo, hi;
    size_t i = series_at(s, t0);
    if (i != SIZE_MAX) {
        mx = series_get(s, i).value;
        any = true;
    }
    if (series_range(s, t0, t1, &lo, &hi)) {
        mx = !any || hi > mx ? hi : mx;
        any = true;
    }
    if (any)
        *out = mx;
    return any;
}

bool
sparklanes_counters_at(const evindex *ix, size_t li, uint64_t t, sparklanes_counters *out)
{
    memset(out, 0, sizeof *out);
    const series *s = evindex_cap_spark_series(ix, li, EVINDEX_CS_CREATED);
    size_t i = s ? series_at(s, t) : SIZE_MAX;
    if (i == SIZE_MAX)
        return false;
    uint64_t at = series_get(s, i).time_ns;
    uint16_t cap = evindex_cap_at(ix, li)->cap;
    /* The event itself, among those at its timestamp (the last of this cap's there). */
    evseek_hit hits[64];
    size_t n = evseek_range(evindex_seek(ix), evindex_log(ix), at, at + 1, hits, 64, NULL);
    bool found = false;
    for (size_t k = 0; k < n; k++) {
        evlog_event ev;
        if (hits[k].cap != cap || !evlog_event_at(evindex_log(ix), hits[k].offset, cap, &ev) ||
            ev.type != EV_SPARK_COUNTERS)
            continue;
        evdecoded dec;
        decode_event(&ev, &dec);
        if (dec.n_present < 7)
            continue;
        /* File order: created, dud, overflowed, converted, GC'd, fizzled, remaining. */
        *out = (sparklanes_counters){ dec.f[0].u, dec.f[1].u, dec.f[2].u, dec.f[3].u,
                                      dec.f[4].u, dec.f[5].u, dec.f[6].u };
        found = true;
    }
    return found;
}

static uint64_t
sparklanes_rise(uint64_t hi, uint64_t lo)
{
    return hi > lo ? hi - lo : 0;
}

bool
sparklanes_range_counters(const evindex *ix, uint64_t t0, uint64_t t1, sparklanes_counters *out)
{
    memset(out, 0, sizeof *out);
    bool any = false;
    for (size_t li = 0; li < evindex_n_caps(ix) && t1 > t0; li++) {
        if (!sparklanes_cap_active(ix, li))
            continue;
        sparklanes_counters a, b;
        if (!sparklanes_counters_at(ix, li, t1 - 1, &b))
            continue;
        if (t0 == 0 || !sparklanes_counters_at(ix, li, t0 - 1, &a))
            memset(&a, 0, sizeof a);
        out->created += sparklanes_rise(b.created, a.created);
        out->dud += sparklanes_rise(b.dud, a.dud);
        out->overflowed += sparklanes_rise(b.overflowed, a.overflowed);
        out->converted += sparklanes_rise(b.converted, a.converted);
        out->gcd += sparklanes_rise(b.gcd, a.gcd);
        out->fizzled += sparklanes_rise(b.fizzled, a.fizzled);
        out->remaining += b.remaining;
        any = true;
    }
    return any;
}

/* "N (R/ms)": a count and its rate over [t0, t1). */
static void
sparklanes_count_rate(strbuf *out, double n, uint64_t t0, uint64_t t1, bool exact)
{
    if (exact)
        strbuf_printf(out, "%.0f", n);
    else
        strbuf_printf(out, "%.1f", n);
    if (t1 > t0)
        strbuf_printf(out, " (%.3g/ms)", n * 1e6 / (double)(t1 - t0));
}

static const char *
sparklanes_what(lane_kind k)
{
    return k == LANE_SPARK_CREATED ? "created" : k == LANE_SPARK_CONVERTED ? "converted" : "pool";
}

void
sparklanes_status(strbuf *out, const evindex *ix, const lane *l, uint64_t t0, uint64_t t1)
{
    bool exact = sparklanes_exact(ix);
    if (l->kind == LANE_SPARK_POOL) {
        uint64_t v;
        if (sparklanes_pool(ix, l->cap_lane, t0, t1, &v))
            strbuf_printf(out, "spark pool up to %llu in the column", (unsigned long long)v);
        else
            strbuf_puts(out, "no spark counters yet");
        return;
    }
    double n = l->kind == LANE_SPARK_CREATED ? sparklanes_created(ix, l->cap_lane, t0, t1)
                                             : sparklanes_converted(ix, l->cap_lane, t0, t1);
    strbuf_puts(out, "sparks ");
    strbuf_puts(out, sparklanes_what(l->kind));
    strbuf_puts(out, " in the column: ");
    sparklanes_count_rate(out, n, t0, t1, exact);
}

void
sparklanes_detail(detail_lines *out, const evindex *ix, const lane *l, uint64_t t0,
                  uint64_t t1, uint64_t cursor_ns)
{
    size_t li = l->cap_lane;
    bool exact = sparklanes_exact(ix);
    const evindex_cap *c = evindex_cap_at(ix, li);
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "Sparks of HEC %u, from %s", (unsigned)c->cap,
                  exact ? "the spark events (-lf): exact"
                        : "SPARK_COUNTERS samples: steady between samples");
    detail_lines_add(out, "%s", sb.data);
    strbuf_reset(&sb);
    timefmt_append(&sb, t1 - t0);
    strbuf_puts(&sb, ": created ");
    sparklanes_count_rate(&sb, sparklanes_created(ix, li, t0, t1), t0, t1, exact);
    strbuf_puts(&sb, ", converted ");
    sparklanes_count_rate(&sb, sparklanes_converted(ix, li, t0, t1), t0, t1, exact);
    detail_lines_add(out, "Cursor column: %s", sb.data);
    uint64_t v;
    if (sparklanes_pool(ix, li, cursor_ns, cursor_ns + 1, &v))
        detail_lines_add(out, "Spark pool: %llu at the cursor (the last SPARK_COUNTERS)",
                         (unsigned long long)v);
    if (exact) {
        static const struct { enum evindex_spark_kind k; const char *name; } kinds[] = {
            { EVINDEX_SPARK_CREATE, "created" }, { EVINDEX_SPARK_RUN, "run" },
            { EVINDEX_SPARK_STEAL, "stolen" }, { EVINDEX_SPARK_FIZZLE, "fizzled" },
            { EVINDEX_SPARK_GC, "GC'd" }, { EVINDEX_SPARK_DUD, "dud" },
            { EVINDEX_SPARK_OVERFLOW, "overflowed" },
        };
        strbuf_reset(&sb);
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
            strbuf_printf(&sb, "%s%s %llu", k ? ", " : "", kinds[k].name,
                          (unsigned long long)evindex_cap_spark_total(ix, li, kinds[k].k));
        detail_lines_add(out, "HEC %u in all: %s", (unsigned)c->cap, sb.data);
    } else {
        const series *cr = evindex_cap_spark_series(ix, li, EVINDEX_CS_CREATED);
        const series *cv = evindex_cap_spark_series(ix, li, EVINDEX_CS_CONVERTED);
        detail_lines_add(out, "HEC %u in all: created %llu, converted %llu", (unsigned)c->cap,
                         (unsigned long long)series_max(cr), (unsigned long long)series_max(cv));
    }
    strbuf_free(&sb);
}
