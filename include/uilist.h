/* uilist: a filterable, scrollable popup list (markers, collections, threads, search
 * results): rows of text with a payload each, type-to-filter by case-insensitive
 * substring, a selection kept stable across filtering, drawn as a bordered box. */
#ifndef ELOG_UILIST_H
#define ELOG_UILIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "surface.h"

typedef struct uilist uilist;

/* An empty list titled `title` (copied; NULL is ""). Caller frees with uilist_free. */
uilist *uilist_new(const char *title);
/* Rows the caller keeps and the list asks for only when it draws or filters them: a
 * list of millions opens at once. Row i is shown in that order. */
typedef struct uilist_rows {
    size_t n_rows;
    void *ctx;                  /* passed back; must outlive the list */
    /* Append row `row`'s shown text to `out` (no NUL needed). */
    void (*text)(void *ctx, size_t row, strbuf *out);
    /* Append the text the filter looks in (NULL: the shown text); keep it short, it is
     * asked of every candidate row at each keystroke. */
    void (*key)(void *ctx, size_t row, strbuf *out);
    /* Row `row`'s payload (NULL: the row number). */
    uint64_t (*payload)(void *ctx, size_t row);
} uilist_rows;

/* A list of `rows->n_rows` supplied rows (the struct is copied); uilist_add does
 * nothing on it. O(rows) words of memory, no text. Caller frees with uilist_free. */
uilist *uilist_new_rows(const char *title, const uilist_rows *rows);
/* uilist_free(NULL) is a no-op. */
void uilist_free(uilist *l);

/* Append a row: `text_utf8` (copied; NULL is "") is what the row shows, `payload` what
 * uilist_selected gives back (a marker or collection index...). Amortised O(len); a row
 * that matches the current filter becomes visible at once. */
void uilist_add(uilist *l, const char *text_utf8, uint64_t payload);
/* A fixed header row above the rows (copied); NULL removes it. */
void uilist_set_columns_header(uilist *l, const char *header);
/* What an empty list says instead of "(empty)" (copied; NULL: "(empty)"). */
void uilist_set_empty_text(uilist *l, const char *text);
/* Draw borders with +-| instead of box-drawing characters. */
void uilist_set_ascii(uilist *l, bool ascii);
size_t uilist_n_items(const uilist *l);

/* --- filter: rows whose text contains the filter, ASCII letters matched without case,
 * every other byte exactly (so any UTF-8 text matches itself). The selection stays on
 * the same row if it is still visible, else moves to the first visible row. Typing
 * tests only the rows the shorter filter matched; erasing goes back to the set kept
 * for the shorter filter (a few sets' worth of memory is kept; past that, erasing
 * refilters from the nearest kept one). */

/* Append typed text (control characters are dropped). */
void uilist_filter_append(uilist *l, const char *utf8);
/* Delete the last character of the filter (a whole UTF-8 sequence). */
void uilist_filter_erase_char(uilist *l);
void uilist_filter_clear(uilist *l);
/* The filter text, owned by the list, valid until the next filter change. */
const char *uilist_filter(const uilist *l);

/* --- selection, all clamped to the visible rows ---------------------------------------- */

/* Move the selection by `delta` rows. */
void uilist_move(uilist *l, int delta);
/* Move by `dir` (< 0 up, > 0 down) pages of `page_rows`; page_rows < 1 means the rows
 * the last uilist_draw showed. */
void uilist_page(uilist *l, int dir, int page_rows);
void uilist_first(uilist *l);
void uilist_last(uilist *l);
/* Select the first visible row whose payload is `payload`; false (selection unchanged)
 * if there is none. O(visible rows). */
bool uilist_select_payload(uilist *l, uint64_t payload);
/* The selected row's payload into *payload (may be NULL); false if no row is visible. */
bool uilist_selected(const uilist *l, uint64_t *payload);
/* Position of the selection among the visible rows (0 when none is visible). */
size_t uilist_selected_pos(const uilist *l);
size_t uilist_n_visible(const uilist *l);
/* Text of visible row `pos` (NUL-terminated, owned by the list, valid until the next
 * call on the list), or NULL if pos >= uilist_n_visible. */
const char *uilist_visible_text(uilist *l, size_t pos);

/* Draw the list as a box of cols x lines at (col, line), never outside it: the title in
 * the top border, the header row, the visible rows (the selected one in
 * STYLE_POPUP_SEL, scrolled into view; long rows clipped), and "filter: text" with the
 * visible/total counts in the bottom border. O(rows on screen). Remembers the number
 * of rows shown for uilist_page. */
void uilist_draw(uilist *l, surface *s, int col, int line, int cols, int lines);

#endif
