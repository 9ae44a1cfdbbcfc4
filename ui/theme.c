/* theme: expands the THEME_STYLES table of include/theme.h into per-mode looks and
 * names, and picks a mode from $NO_COLOR and the terminal's colour count. */
#include "theme.h"

#include <stddef.h>
#include <strings.h>

/* Shorthands used in the value columns of THEME_STYLES. */
#define D THEME_DEFAULT_COLOUR
#define B THEME_BOLD
#define U THEME_UNDER
#define R THEME_REVERSE

_Static_assert(STYLE_COUNT <= 256, "a style id must fit the uint8_t of a surface cell");

typedef struct theme_row {
    const char *name;
    theme_look look[3];  /* indexed by theme_mode */
} theme_row;

static const theme_row theme_rows[STYLE_COUNT] = {
#define THEME_X_ROW(name, f256, b256, a256, f8, b8, a8, amono) \
    [STYLE_##name] = { #name, { { f256, b256, a256 }, { f8, b8, a8 }, { D, D, amono } } },
    THEME_STYLES(THEME_X_ROW)
#undef THEME_X_ROW
};

#undef D
#undef B
#undef U
#undef R

theme_look
theme_get(theme_mode mode, unsigned style)
{
    if (style >= STYLE_COUNT)
        style = STYLE_DEFAULT;
    if ((unsigned)mode > THEME_MONO)
        mode = THEME_MONO;
    return theme_rows[style].look[mode];
}

void
theme_table_defaults(theme_table *t)
{
    for (unsigned st = 0; st < STYLE_COUNT; st++)
        for (unsigned m = 0; m < 3; m++)
            t->look[st][m] = theme_rows[st].look[m];
}

theme_look
theme_table_get(const theme_table *t, theme_mode mode, unsigned style)
{
    if (!t)
        return theme_get(mode, style);
    if (style >= STYLE_COUNT)
        style = STYLE_DEFAULT;
    if ((unsigned)mode > THEME_MONO)
        mode = THEME_MONO;
    return t->look[style][mode];
}

const char *
theme_style_name(unsigned style)
{
    return style < STYLE_COUNT ? theme_rows[style].name : NULL;
}

int
theme_style_lookup(const char *name)
{
    for (int i = 0; name && i < STYLE_COUNT; i++)
        if (strcasecmp(theme_rows[i].name, name) == 0)
            return i;
    return -1;
}

const char *
theme_mode_name(theme_mode mode)
{
    switch (mode) {
    case THEME_256:
        return "256";
    case THEME_8:
        return "8";
    case THEME_MONO:
        break;
    }
    return "mono";
}

theme_mode
theme_choose(const char *no_color, int n_colours)
{
    if (no_color && no_color[0])
        return THEME_MONO;
    if (n_colours >= 256)
        return THEME_256;
    if (n_colours >= 8)
        return THEME_8;
    return THEME_MONO;
}
