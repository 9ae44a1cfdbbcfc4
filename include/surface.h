/* surface: the backend-neutral screen model. Views draw into a cols x lines grid of
 * cells (one character + one semantic style each); a termio backend presents it,
 * sending only what changed (see termio.h). Knows nothing about terminals. */
#ifndef ELOG_SURFACE_H
#define ELOG_SURFACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "theme.h"

/* Every cell is exactly one terminal column. Characters that are not known to be one
 * column wide everywhere (wide CJK and emoji, combining and zero-width marks, scripts
 * outside Latin/Greek/Cyrillic, private use) are stored as '?'; control characters
 * as '?'; malformed UTF-8 and surrogates as U+FFFD. Box drawing, block elements
 * (eighths), braille, arrows, math and geometric shapes are kept. */
#define SURFACE_REPLACEMENT 0xFFFDu
/* Larger requested sizes are clamped to this many columns / lines. */
#define SURFACE_MAX_DIM 4096

typedef struct surface surface;

typedef struct surface_cell {
    uint32_t cp;    /* a displayable codepoint of width 1 */
    uint8_t style;  /* a style_id (theme.h) */
} surface_cell;

/* A surface of cols x lines blank cells (' ', STYLE_DEFAULT); negative sizes mean 0.
 * Caller frees with surface_free. */
surface *surface_new(int cols, int lines);
/* surface_free(NULL) is a no-op. */
void surface_free(surface *s);
/* Change the size; every cell becomes blank. */
void surface_resize(surface *s, int cols, int lines);
int surface_cols(const surface *s);
int surface_lines(const surface *s);
/* Make `dst` an exact copy of `src` (size and cells). */
void surface_copy(surface *dst, const surface *src);

/* Every cell becomes ' ' in `style`. */
void surface_clear(surface *s, uint8_t style);
/* One character at (col, line); `cp` is made displayable as described above.
 * Writes outside the surface are ignored, here and in every function below. */
void surface_put(surface *s, int col, int line, uint32_t cp, uint8_t style);
/* `n` copies of `cp` from (col, line) rightwards, clipped at both edges. */
void surface_fill(surface *s, int col, int line, int n, uint32_t cp, uint8_t style);
/* `cols` x `lines` copies of `cp` with the top-left corner at (col, line), clipped. */
void surface_fill_rect(surface *s, int col, int line, int cols, int lines, uint32_t cp,
                       uint8_t style);
/* Draw the UTF-8 text `utf8` from (col, line), one character per column, stopping
 * after `max_cols` columns (max_cols < 0: no limit) or at the right edge. Characters
 * left of column 0 are skipped but take their column. Returns the columns taken from
 * `col` on: min(characters, max_cols, surface_cols - col), at least 0 — the same
 * whether or not `line` is on the surface. */
int surface_text(surface *s, int col, int line, const char *utf8, uint8_t style,
                 int max_cols);
/* The same for `len` bytes that need not be NUL-terminated (a NUL shows as '?'). */
int surface_textn(surface *s, int col, int line, const char *utf8, size_t len,
                  uint8_t style, int max_cols);
/* The cell at (col, line); outside the surface {' ', STYLE_DEFAULT}. */
surface_cell surface_get(const surface *s, int col, int line);
/* Whether line `line` of `a` and `b` holds the same cells; false when the widths
 * differ or the line is outside either. O(cols), for backends diffing frames. */
bool surface_row_equal(const surface *a, const surface *b, int line);
/* The text of every line (UTF-8, trailing spaces kept), each ending in '\n'.
 * For tests and screen dumps. Caller frees with x_free. */
char *surface_dump(const surface *s);

/* UTF-8 helpers shared with backends and layout code. */

/* `cp` itself if a cell may hold it, else '?' or SURFACE_REPLACEMENT (see above). */
uint32_t surface_displayable(uint32_t cp);
/* Decode one character from `len` bytes at `s` into *cp; returns the bytes used
 * (0 only when len == 0). A malformed sequence gives U+FFFD and consumes its longest
 * valid prefix (at least one byte), as Unicode recommends. */
size_t surface_utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Encode `cp` (<= 0x10FFFF, not a surrogate; otherwise U+FFFD is encoded) into `out`
 * without a terminating NUL; returns 1..4. */
size_t surface_utf8_encode(uint32_t cp, char out[4]);
/* Columns surface_text would take for `utf8` without clipping (= characters). */
int surface_text_cols(const char *utf8);

#endif
