/* axis: tick-step choice, tick layout and time labels for the timeline's axis row. Integer
 * arithmetic throughout so labels are exact; tick columns come from timeview_grid_col. */
#include "axis.h"

#include <stdbool.h>
#include <stdio.h>

#include "timeview.h"

#define AXIS_NS_US  UINT64_C(1000)
#define AXIS_NS_MS  UINT64_C(1000000)
#define AXIS_NS_S   UINT64_C(1000000000)
#define AXIS_NS_M   (60 * AXIS_NS_S)
#define AXIS_NS_H   (60 * AXIS_NS_M)

/* Ticks are never closer than this many columns on average. */
#define AXIS_MIN_COLS 3

uint64_t
axis_step(size_t i)
{
    static const uint64_t minutes[] = { 1, 2, 5, 10, 20, 30 };
    static const uint64_t one_two_five[] = { 1, 2, 5 };
    const size_t n_ns = 33;                 /* 1ns .. 50s: 11 decades of 1-2-5 */
    const size_t n_min = sizeof minutes / sizeof minutes[0];
    const size_t n_hours = 21;              /* 1h .. 5e6h (1.8e19 ns, still a u64) */
    uint64_t scale = 1;
    if (i < n_ns) {
        for (size_t k = 0; k < i / 3; k++)
            scale *= 10;
        return one_two_five[i % 3] * scale;
    }
    i -= n_ns;
    if (i < n_min)
        return minutes[i] * AXIS_NS_M;
    i -= n_min;
    if (i < n_hours) {
        for (size_t k = 0; k < i / 3; k++)
            scale *= 10;
        return one_two_five[i % 3] * scale * AXIS_NS_H;
    }
    return 0;
}

/* ---- labels ---------------------------------------------------------------------------- */

typedef struct axis_out {
    char *buf;
    size_t len;
} axis_out;

static void
axis_put(axis_out *o, const char *s)
{
    while (*s && o->len + 1 < AXIS_LABEL_MAX)
        o->buf[o->len++] = *s++;
    o->buf[o->len] = '\0';
}

static void
axis_put_u64(axis_out *o, uint64_t x)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%llu", (unsigned long long)x);
    axis_put(o, tmp);
}

/* x / unit with its fraction, trailing zeros dropped: 1250000 / 10^6 -> "1.25". `unit` is a
 * power of ten. */
static void
axis_put_frac(axis_out *o, uint64_t x, uint64_t unit)
{
    axis_put_u64(o, x / unit);
    uint64_t frac = x % unit;
    if (frac == 0)
        return;
    char digits[24];
    size_t n = 0;
    for (uint64_t u = unit / 10; u > 0; u /= 10) {
        digits[n++] = (char)('0' + frac / u % 10);
    }
    while (n > 0 && digits[n - 1] == '0')
        n--;
    digits[n] = '\0';
    axis_put(o, ".");
    axis_put(o, digits);
}

static int
axis_display_cols(const char *s)
{
    int cols = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)     /* not a UTF-8 continuation byte */
            cols++;
    return cols;
}

int
axis_label(char buf[AXIS_LABEL_MAX], uint64_t t_ns, unsigned flags)
{
    axis_out o = { buf, 0 };
    buf[0] = '\0';
    if (t_ns == 0) {
        axis_put(&o, "0");
    } else if (t_ns < AXIS_NS_US) {
        axis_put_u64(&o, t_ns);
        axis_put(&o, "ns");
    } else if (t_ns < AXIS_NS_MS) {
        axis_put_frac(&o, t_ns, AXIS_NS_US);
        axis_put(&o, (flags & AXIS_ASCII) ? "us" : "\xc2\xb5s");
    } else if (t_ns < AXIS_NS_S) {
        axis_put_frac(&o, t_ns, AXIS_NS_MS);
        axis_put(&o, "ms");
    } else if (t_ns < AXIS_NS_M) {
        axis_put_frac(&o, t_ns, AXIS_NS_S);
        axis_put(&o, "s");
    } else {
        /* Hours and minutes only when non-zero (or needed as a place holder between). */
        uint64_t h = t_ns / AXIS_NS_H, m = t_ns % AXIS_NS_H / AXIS_NS_M;
        uint64_t s = t_ns % AXIS_NS_M;
        if (h) {
            axis_put_u64(&o, h);
            axis_put(&o, "h");
        }
        if (m || (h && s)) {
            axis_put_u64(&o, m);
            axis_put(&o, "m");
        }
        if (s) {
            axis_put_frac(&o, s, AXIS_NS_S);
            axis_put(&o, "s");
        }
    }
    return axis_display_cols(buf);
}

/* ---- layout ---------------------------------------------------------------------------- */

/* Place ticks at multiples of `step`. A label running off the right edge is dropped. With
 * `strict`, fail at the first label overlapping its predecessor; otherwise drop it too.
 * Returns the number of ticks (written only when out != NULL), or SIZE_MAX on a strict
 * failure. */
static size_t
axis_place(uint64_t t0, uint64_t t1, int width, unsigned flags, uint64_t step, bool strict,
           axis_tick *out, size_t cap)
{
    uint64_t k = t0 / step + (t0 % step != 0);
    size_t n = 0;
    int free_col = 0;           /* first column the next label may use */
    int last_col = -1;
    for (;; k++) {
        if (k > UINT64_MAX / step)
            break;
        uint64_t t = k * step;
        if (t >= t1)
            break;
        int col = timeview_grid_col(t0, t1 - t0, width, t);
        if (col < 0 || col >= width)
            break;
        if (col == last_col) {          /* two ticks in one column: the step is too fine */
            if (strict)
                return SIZE_MAX;
            continue;
        }
        last_col = col;
        axis_tick tick;
        tick.col = col;
        tick.t_ns = t;
        tick.label_cols = axis_label(tick.label, t, flags);
        if (col + tick.label_cols > width) {        /* off the edge: no label, no harm */
            tick.label[0] = '\0';
            tick.label_cols = 0;
        } else if (col < free_col) {
            if (strict)
                return SIZE_MAX;
            tick.label[0] = '\0';
            tick.label_cols = 0;
        } else {
            free_col = col + tick.label_cols + AXIS_GAP;
        }
        if (out) {
            if (n == cap)
                break;
            out[n] = tick;
        }
        n++;
    }
    return n;
}

size_t
axis_ticks(uint64_t t0_ns, uint64_t t1_ns, int width, unsigned flags, axis_tick *out,
           size_t cap, uint64_t *step_ns)
{
    if (step_ns)
        *step_ns = 0;
    if (width < 1 || t1_ns <= t0_ns)
        return 0;
    uint64_t span = t1_ns - t0_ns, step = 0;
    for (size_t i = 0; axis_step(i) != 0; i++) {
        step = axis_step(i);
        if ((double)step * width < (double)span * AXIS_MIN_COLS)
            continue;
        if (axis_place(t0_ns, t1_ns, width, flags, step, true, NULL, 0) != SIZE_MAX)
            break;
    }
    if (step_ns)
        *step_ns = step;
    return axis_place(t0_ns, t1_ns, width, flags, step, false, out, cap);
}
