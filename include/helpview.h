/* helpview: the `?` help screen — the key bindings generated from the keymap tables
 * (keymap_help_lines, so bindings and help never drift), the mouse gestures, a legend
 * of the timeline's lane glyphs drawn in their real styles, and the terms: which clock the
 * times are on, and the range statistics' mutator share. */
#ifndef ELOG_HELPVIEW_H
#define ELOG_HELPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keymap.h"
#include "surface.h"

typedef enum helpview_kind {
    HELPVIEW_TITLE,             /* a section title */
    HELPVIEW_KEYS,              /* "  <keys>  <what they do>": the span is the keys */
    HELPVIEW_LEGEND,            /* "  <swatch>  <what it shows>": the span is the swatch */
    HELPVIEW_BLANK,             /* an empty line between sections */
} helpview_kind;

/* One line of the help screen. */
typedef struct helpview_line {
    helpview_kind kind;
    const char *text;           /* the whole line, UTF-8, valid only during the callback */
    size_t span_start, span_end;    /* bytes of text drawn in span_style (empty if none) */
    uint8_t span_style;         /* STYLE_HELP_KEY for keys, the lane's style for a swatch */
} helpview_line;

typedef void helpview_line_fn(void *ctx, const helpview_line *line);

/* Call `fn` (may be NULL, to count) once per line of the help screen in order: every
 * mode's bindings from keymap_help_lines, then the mouse, then the lane legend (its
 * glyphs plain ASCII when `ascii`), then what times and the range statistics' terms mean.
 * Returns the number of lines. */
size_t helpview_lines(bool ascii, helpview_line_fn *fn, void *ctx);
/* The same with the bindings of `km` (NULL: the defaults). */
size_t helpview_lines_in(const keymap *km, bool ascii, helpview_line_fn *fn, void *ctx);

/* Draw the help screen as a box of cols x lines at (col, line), never outside it: the
 * lines from `scroll` on (clamped to [0, lines of text - lines inside]), section
 * titles in STYLE_POPUP_TITLE, keys in STYLE_HELP_KEY, swatches in their lane styles,
 * the rest in STYLE_POPUP, and the visible range in the bottom border. Returns the
 * number of lines of text, so the caller can clamp its scroll position. */
int helpview_draw(surface *s, int col, int line, int cols, int lines, int scroll, bool ascii);
/* The same with the bindings of `km` (NULL: the defaults). */
int helpview_draw_in(const keymap *km, surface *s, int col, int line, int cols, int lines,
                     int scroll, bool ascii);

#endif
