/* timefmt: parsing and formatting of durations in ns, integer arithmetic only so
 * that "1.5s" is exactly 1500000000. */
#include "timefmt.h"

#include <string.h>

static const struct {
    const char *suffix;
    uint64_t ns;
} timefmt_units[] = {
    { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
};

bool
timefmt_parse(const char *s, uint64_t *ns)
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
        if (frac)               /* a fraction of a nanosecond makes no sense */
            return false;
        unit = 1;
    }
    for (size_t i = 0; unit == 0 && i < sizeof timefmt_units / sizeof timefmt_units[0]; i++)
        if (strcmp(p, timefmt_units[i].suffix) == 0)
            unit = timefmt_units[i].ns;
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
