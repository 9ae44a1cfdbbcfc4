/* theme: the semantic styles every view draws with, and their look in 256-colour,
 * 8-colour and monochrome terminals — one X-macro table (ui/theme.c), so a style is
 * added in one place. Views name styles; only backends turn them into colours. */
#ifndef ELOG_THEME_H
#define ELOG_THEME_H

#include <stdint.h>

/* Attribute bits of a theme_look. There is no "dim": libtickit pens cannot express
 * it, and both backends must show the same screen. */
#define THEME_BOLD    0x01u
#define THEME_UNDER   0x02u
#define THEME_REVERSE 0x04u

/* Colour values: 0..255 are xterm palette indexes (0..7 the ANSI colours in the
 * 8-colour columns); THEME_DEFAULT_COLOUR is the terminal's own fg/bg. */
#define THEME_DEFAULT_COLOUR (-1)

/* The table. Columns: name, then per mode fg, bg, attrs — 256 colours, 8 colours,
 * and monochrome (attributes only). Lane styles (RUNNING .. NM_SWEEP) colour the
 * foreground, because lanes are drawn with block glyphs (eighth blocks for partial
 * occupancy, shades for GC) on the terminal's background; RUN_TEXT colours the
 * background so a thread id printed on a run reads as part of the bar. The glyphs,
 * not the colours, tell runs, GC work, GC waiting and idle apart in monochrome. Shorthands in the value columns (defined
 * only where the values are read, ui/theme.c): D = THEME_DEFAULT_COLOUR, B = THEME_BOLD,
 * U = THEME_UNDER, R = THEME_REVERSE. */
#define THEME_STYLES(X) \
    /* name             256: fg   bg   attr   8: fg  bg  attr  mono */ \
    X(DEFAULT,               D,   D,   0,        D,  D,  0,    0)     \
    X(AXIS,                244,   D,   0,        7,  D,  0,    0)     \
    X(AXIS_LABEL,          250,   D,   0,        7,  D,  0,    B)     \
    X(LANE_LABEL,          252, 236,   0,        7,  D,  0,    0)     \
    X(LANE_LABEL_SEL,       16, 214,   B,        0,  3,  B,    R|B)   \
    X(IDLE,                238,   D,   0,        D,  D,  0,    0)     \
    X(RUNNING,              34,   D,   0,        2,  D,  0,    0)     \
    X(RUNNING_HL,           46,   D,   B,        7,  D,  B,    B)     \
    X(RUN_TEXT,             16,  28,   0,        0,  2,  0,    R)     \
    X(GC_WORK,             202,   D,   B,        1,  D,  B,    B)     \
    X(GC_WAIT,             180,   D,   0,        3,  D,  0,    U)     \
    X(NM_MARK,              69,   D,   0,        4,  D,  0,    0)     \
    X(NM_SYNC,             201,   D,   B,        5,  D,  B,    B)     \
    X(NM_SWEEP,             37,   D,   0,        6,  D,  0,    0)     \
    X(MARKER,              201,   D,   B,        5,  D,  B,    B)     \
    X(MARKER_TEXT,         219,   D,   0,        5,  D,  0,    U)     \
    X(ACTIVITY,             34,   D,   0,        2,  D,  0,    0)     \
    X(HEAP_SIZE,            67,   D,   0,        4,  D,  0,    0)     \
    X(HEAP_LIVE,           173,   D,   0,        3,  D,  0,    B)     \
    X(SPARKS,              178,   D,   0,        3,  D,  0,    0)     \
    X(BAND_1,               33,   D,   0,        4,  D,  0,    B)     \
    X(BAND_2,              208,   D,   0,        3,  D,  0,    U)     \
    X(BAND_3,               41,   D,   0,        2,  D,  0,    B|U)     \
    X(BAND_4,              163,   D,   0,        5,  D,  0,    R)     \
    X(BAND_5,               51,   D,   0,        6,  D,  0,    R|B)     \
    X(BAND_6,              196,   D,   0,        1,  D,  0,    R|U)     \
    X(BAND_OTHER,          245,   D,   0,        7,  D,  0,    0)     \
    X(MEMORY,               98,   D,   0,        5,  D,  0,    0)     \
    X(TICKY,               142,   D,   0,        3,  D,  0,    0)     \
    X(CURSOR,               16, 226,   0,        0,  3,  0,    R|B)   \
    X(SELECTION,             D,  24,   0,        7,  4,  0,    R)     \
    X(STATUS,              252, 238,   0,        0,  7,  0,    R)     \
    X(STATUS_WARN,          16, 214,   B,        7,  1,  B,    R|B)   \
    X(DETAIL,              252, 235,   0,        D,  D,  0,    0)     \
    X(DETAIL_KEY,          110, 235,   B,        6,  D,  B,    B)     \
    X(POPUP,               252, 237,   0,        7,  4,  0,    R)     \
    X(POPUP_SEL,            16, 110,   0,        0,  6,  0,    B)     \
    X(POPUP_TITLE,         231, 237,   B,        7,  4,  B,    R|B|U) \
    X(HELP_KEY,            214,   D,   B,        3,  D,  B,    B)     \
    X(EVENT_LIST,          250,   D,   0,        D,  D,  0,    0)     \
    X(PROGRESS,             16,  33,   0,        7,  4,  0,    R)     \
    X(THREAD_FOCUS,        226,  90,   B,        3,  5,  B,    B)     \
    X(TICK,                231,   D,   B,        7,  D,  B,    B)     \
    X(SPARK_CREATED,       214,   D,   0,        3,  D,  0,    U)     \
    X(SPARK_CONVERTED,     114,   D,   0,        2,  D,  0,    B)

typedef enum style_id {
#define THEME_X_ENUM(name, f256, b256, a256, f8, b8, a8, amono) STYLE_##name,
    THEME_STYLES(THEME_X_ENUM)
#undef THEME_X_ENUM
    STYLE_COUNT
} style_id;

typedef enum theme_mode {
    THEME_256,
    THEME_8,
    THEME_MONO,
} theme_mode;

/* How one style looks in one mode. In THEME_MONO fg and bg are always default. */
typedef struct theme_look {
    int fg;          /* palette index or THEME_DEFAULT_COLOUR */
    int bg;
    unsigned attrs;  /* THEME_BOLD | THEME_UNDER | THEME_REVERSE */
} theme_look;

/* The look of `style` in `mode`; an unknown style gets STYLE_DEFAULT's. */
theme_look theme_get(theme_mode mode, unsigned style);
/* "RUNNING" for STYLE_RUNNING; NULL for an unknown style. Static storage. */
const char *theme_style_name(unsigned style);
/* STYLE_RUNNING for "RUNNING" (case-insensitive); -1 when unknown. */
int theme_style_lookup(const char *name);
/* Every style's look in every mode: the defaults with a user's changes (the settings
 * file's `style` lines). A plain value; NULL where one is taken means the defaults. */
typedef struct theme_table {
    theme_look look[STYLE_COUNT][3];    /* [style][theme_mode] */
} theme_table;

/* Fill `t` with the default looks. */
void theme_table_defaults(theme_table *t);
/* The look of `style` in `mode` from `t` (theme_get's when t is NULL). */
theme_look theme_table_get(const theme_table *t, theme_mode mode, unsigned style);

/* "256", "8" or "mono". */
const char *theme_mode_name(theme_mode mode);
/* Pick a mode: `no_color` is the value of $NO_COLOR (NULL when unset) — non-empty
 * means THEME_MONO (https://no-color.org); otherwise by the number of colours the
 * terminal reports: >= 256 -> THEME_256, >= 8 -> THEME_8, else THEME_MONO. */
theme_mode theme_choose(const char *no_color, int n_colours);

#endif
