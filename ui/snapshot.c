/* snapshot: render a surface as text lines, optionally with SGR colour escapes from
 * the theme's 256-colour column. */
#include "snapshot.h"

#include "theme.h"

static void
snapshot_sgr(strbuf *out, unsigned style)
{
    theme_look l = theme_get(THEME_256, style);
    strbuf_puts(out, "\033[0");
    if (l.attrs & THEME_BOLD)
        strbuf_puts(out, ";1");
    if (l.attrs & THEME_UNDER)
        strbuf_puts(out, ";4");
    if (l.attrs & THEME_REVERSE)
        strbuf_puts(out, ";7");
    if (l.fg != THEME_DEFAULT_COLOUR)
        strbuf_printf(out, ";38;5;%d", l.fg);
    if (l.bg != THEME_DEFAULT_COLOUR)
        strbuf_printf(out, ";48;5;%d", l.bg);
    strbuf_putc(out, 'm');
}

void
snapshot_write(strbuf *out, const surface *s, bool color)
{
    int cols = surface_cols(s), lines = surface_lines(s);
    for (int y = 0; y < lines; y++) {
        /* Plain text drops trailing blanks; coloured text keeps coloured blanks. */
        int end = cols;
        while (end > 0) {
            surface_cell c = surface_get(s, end - 1, y);
            if (c.cp != ' ' || (color && c.style != STYLE_DEFAULT))
                break;
            end--;
        }
        int cur = -1;
        for (int x = 0; x < end; x++) {
            surface_cell c = surface_get(s, x, y);
            if (color && c.style != cur) {
                snapshot_sgr(out, c.style);
                cur = c.style;
            }
            char buf[4];
            size_t n = surface_utf8_encode(c.cp, buf);
            strbuf_append(out, buf, n);
        }
        if (color && cur != -1)
            strbuf_puts(out, "\033[0m");
        strbuf_putc(out, '\n');
    }
}
