/* timefmt: parsing and formatting of durations and log timestamps in ns, integer
 * arithmetic only so that "1.5s" is exactly 1500000000 and rounding is exact. */
#include "timefmt.h"

#include <string.h>

static const struct {
    const char *suffix;
    uint64_t ns;
} timefmt_units[] = {
    { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
};

/* The unit named by all of `p`, 0 if none: a suffix of timefmt_units, or "µs". */
static uint64_t
tf_unit(const char *p)
{
    if (strcmp(p, "\xc2\xb5s") == 0)
        return 1000;
    for (size_t i = 0; i < sizeof timefmt_units / sizeof timefmt_units[0]; i++)
        if (strcmp(p, timefmt_units[i].suffix) == 0)
            return timefmt_units[i].ns;
    return 0;
}

/* One number with an optional fraction and a unit (optional unless `need_unit`), all of s. */
static bool
tf_parse_one(const char *s, bool need_unit, uint64_t *ns)
{
    const char *p = s;
    uint64_t whole = 0;
    size_t n_whole = 0;
    for (; *p >= '0' && *p <= '9'; p++, n_whole++) {
        unsigned dig = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - dig) / 10)
            return false;
        whole = whole * 10 + dig;
    }
    const char *frac = NULL;
    size_t n_frac = 0;
    if (*p == '.') {
        frac = ++p;
        for (; *p >= '0' && *p <= '9'; p++)
            n_frac++;
    }
    if (n_whole + n_frac == 0)
        return false;
    uint64_t unit = 0;
    if (*p == '\0') {
        if (frac || need_unit)  /* a fraction of a nanosecond makes no sense */
            return false;
        unit = 1;
    } else {
        unit = tf_unit(p);
    }
    if (unit == 0)
        return false;
    if (whole > UINT64_MAX / unit)
        return false;
    uint64_t total = whole * unit;
    /* The fraction: digit k (from 1) is worth unit / 10^k, kept while that is >= 1. */
    uint64_t place = unit;
    for (size_t k = 0; k < n_frac; k++) {
        place /= 10;
        uint64_t add = (uint64_t)(frac[k] - '0') * place;
        if (total > UINT64_MAX - add)
            return false;
        total += add;
    }
    *ns = total;
    return true;
}

bool
timefmt_parse(const char *s, uint64_t *ns)
{
    /* Whole hours, then whole minutes ("m" not followed by "s"), each optional. */
    static const struct {
        char suffix;
        uint64_t ns;
    } big[] = { { 'h', UINT64_C(3600000000000) }, { 'm', UINT64_C(60000000000) } };
    const char *p = s;
    uint64_t total = 0;
    bool any = false;
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++) {
        uint64_t v = 0;
        size_t n = 0;
        for (; p[n] >= '0' && p[n] <= '9'; n++) {
            unsigned dig = (unsigned)(p[n] - '0');
            if (v > (UINT64_MAX - dig) / 10)
                return false;
            v = v * 10 + dig;
        }
        if (n == 0 || p[n] != big[k].suffix || (big[k].suffix == 'm' && p[n + 1] == 's'))
            continue;
        if (v > UINT64_MAX / big[k].ns || total > UINT64_MAX - v * big[k].ns)
            return false;
        total += v * big[k].ns;
        p += n + 1;
        any = true;
    }
    uint64_t rest = 0;
    if (!(any && *p == '\0') && !tf_parse_one(p, any, &rest))
        return false;
    if (total > UINT64_MAX - rest)
        return false;
    *ns = total + rest;
    return true;
}

void
timefmt_append(strbuf *sb, uint64_t ns)
{
    const size_t n_units = sizeof timefmt_units / sizeof timefmt_units[0];
    size_t i = n_units - 1;
    while (i > 0 && ns < timefmt_units[i].ns)
        i--;
    if (i == 0) {
        strbuf_printf(sb, "%lluns", (unsigned long long)ns);
        return;
    }
    /* Round to 3 decimals of the unit in integers (exact for every u64); a value
     * that rounds up to 1000 of a unit moves to the next one. */
    uint64_t q;
    for (;;) {
        uint64_t milli = timefmt_units[i].ns / 1000;
        q = ns / milli + (ns % milli >= (milli + 1) / 2);
        if (q < 1000000 || i + 1 == n_units)
            break;
        i++;
    }
    strbuf_printf(sb, "%llu.%03llu%s", (unsigned long long)(q / 1000),
                  (unsigned long long)(q % 1000), timefmt_units[i].suffix);
}

uint64_t
timefmt_res(uint64_t ns)
{
    uint64_t r = 1;
    while (r <= ns / 10)
        r *= 10;
    return r;
}

void
timefmt_append_res(strbuf *sb, uint64_t ns, uint64_t res_ns)
{
    uint64_t r = timefmt_res(res_ns);
    /* q * r is ns rounded half-up; q * r may pass UINT64_MAX, so it is never formed. */
    uint64_t q = ns / r + (ns % r >= r - ns % r);
    const size_t n_units = sizeof timefmt_units / sizeof timefmt_units[0];
    size_t i = n_units - 1;
    for (; i > 0; i--) {
        uint64_t u = timefmt_units[i].ns;
        if (r >= u ? q >= 1 : q >= u / r)
            break;
    }
    uint64_t u = timefmt_units[i].ns;
    if (r >= u) {
        strbuf_printf(sb, "%llu%s", (unsigned long long)(q * (r / u)), timefmt_units[i].suffix);
        return;
    }
    int decimals = 0;
    for (uint64_t k = u / r; k > 1; k /= 10)
        decimals++;
    strbuf_printf(sb, "%llu.%0*llu%s", (unsigned long long)(q / (u / r)), decimals,
                  (unsigned long long)(q % (u / r)), timefmt_units[i].suffix);
}
