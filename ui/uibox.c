/* uibox: box borders and border labels for popups and panels, every write clipped to
 * the box. */
#include "uibox.h"

#include <stddef.h>

int
uibox_text(surface *s, int col, int line, const char *utf8, uint8_t style, int max_cols)
{
    if (max_cols <= 0 || !utf8)
        return 0;
    return surface_text(s, col, line, utf8, style, max_cols);
}

void
uibox_frame(surface *s, int col, int line, int cols, int lines, bool ascii,
            uint8_t border_style, uint8_t fill_style)
{
    if (cols <= 0 || lines <= 0)
        return;
    surface_fill_rect(s, col, line, cols, lines, ' ', fill_style);
    if (cols < 2 || lines < 2)
        return;
    uint32_t h = ascii ? '-' : 0x2500, v = ascii ? '|' : 0x2502;
    uint32_t tl = ascii ? '+' : 0x250C, tr = ascii ? '+' : 0x2510;
    uint32_t bl = ascii ? '+' : 0x2514, br = ascii ? '+' : 0x2518;
    int right = col + cols - 1, bottom = line + lines - 1;
    surface_fill(s, col + 1, line, cols - 2, h, border_style);
    surface_fill(s, col + 1, bottom, cols - 2, h, border_style);
    surface_fill_rect(s, col, line + 1, 1, lines - 2, v, border_style);
    surface_fill_rect(s, right, line + 1, 1, lines - 2, v, border_style);
    surface_put(s, col, line, tl, border_style);
    surface_put(s, right, line, tr, border_style);
    surface_put(s, col, bottom, bl, border_style);
    surface_put(s, right, bottom, br, border_style);
}

/* " text " at `at`, at most `max_cols` columns; returns the columns taken. */
static int
uibox_padded(surface *s, int at, int line, const char *text, uint8_t style, int max_cols)
{
    if (max_cols < 3)
        return 0;
    int n = uibox_text(s, at + 1, line, text, style, max_cols - 2);
    surface_put(s, at, line, ' ', style);
    surface_put(s, at + 1 + n, line, ' ', style);
    return n + 2;
}

void
uibox_labels(surface *s, int col, int line, int cols, const char *left, uint8_t left_style,
             const char *right, uint8_t right_style)
{
    /* Labels live in [col + 2, col + cols - 2): a corner and one border cell stay
     * visible on each side. */
    int lo = col + 2, hi = col + cols - 2;
    if (hi - lo < 3)
        return;
    int room = hi - lo;
    if (right && *right) {
        int want = surface_text_cols(right) + 2;
        if (want <= room) {
            uibox_padded(s, hi - want, line, right, right_style, want);
            room -= want + 1;
        }
    }
    if (left && *left)
        uibox_padded(s, lo, line, left, left_style, room);
}
