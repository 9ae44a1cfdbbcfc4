/* uibox: the frame popups and panels draw around themselves — box-drawing or ASCII
 * borders with a label set into the top or bottom edge — clipped to the box, so a
 * view never writes outside the rectangle it was given. */
#ifndef ELOG_UIBOX_H
#define ELOG_UIBOX_H

#include <stdbool.h>
#include <stdint.h>

#include "surface.h"

/* Fill the cols x lines rectangle at (col, line) with spaces in `fill_style`; when it
 * is at least 2 x 2, also draw its border in `border_style` (┌─┐│└┘, or +-| when
 * `ascii`). Nothing is drawn for an empty rectangle. */
void uibox_frame(surface *s, int col, int line, int cols, int lines, bool ascii,
                 uint8_t border_style, uint8_t fill_style);

/* Labels on one border line of a box cols wide at (col, line): `left` (may be NULL)
 * from the third column, `right` (may be NULL) ending two columns before the right
 * edge, each with one space of padding either side, inside the corners. `right` (a
 * short count) is shown whole or not at all; `left` is clipped to the room left. */
void uibox_labels(surface *s, int col, int line, int cols, const char *left,
                  uint8_t left_style, const char *right, uint8_t right_style);

/* surface_text clipped to `max_cols` columns, where max_cols <= 0 draws nothing (unlike
 * surface_text, for which a negative limit means none). Returns the columns taken. */
int uibox_text(surface *s, int col, int line, const char *utf8, uint8_t style, int max_cols);

#endif
