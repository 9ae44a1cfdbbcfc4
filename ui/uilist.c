/* uilist: popup list rows in one text pool (plus an ASCII-folded copy for matching),
 * the visible rows as an ascending index array refined in place while the filter
 * grows, and drawing that touches only the rows on screen. */
#include "uilist.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"
#include "uibox.h"
#include "xalloc.h"

typedef struct uilist_item {
    size_t off, len;            /* text bytes in `text` (and `fold`), NUL after them */
    uint64_t payload;
} uilist_item;

struct uilist {
    char *title;                /* owned */
    char *header;               /* owned, NULL for none */
    strbuf text;                /* every row's text, each NUL-terminated */
    strbuf fold;                /* the same bytes with ASCII letters lowercased */
    uilist_item *items;         /* owned, add order */
    size_t n_items, cap_items;
    size_t *vis;                /* owned: indexes of the visible items, ascending */
    size_t n_vis, cap_vis;
    strbuf filter, filter_fold;
    size_t sel;                 /* position in vis; 0 when nothing is visible */
    size_t top;                 /* first visible position on screen */
    int shown_rows;             /* rows the last draw showed (for paging) */
    bool ascii;
};

static char
uilist_fold_byte(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

uilist *
uilist_new(const char *title)
{
    uilist *l = xcalloc(1, sizeof *l);      /* caller frees: uilist_free */
    l->title = xstrdup(title ? title : "");
    strbuf_init(&l->text);
    strbuf_init(&l->fold);
    strbuf_init(&l->filter);
    strbuf_init(&l->filter_fold);
    strbuf_puts(&l->filter, "");             /* allocates: uilist_filter is never NULL */
    return l;
}

void
uilist_free(uilist *l)
{
    if (!l)
        return;
    x_free(l->title);
    x_free(l->header);
    strbuf_free(&l->text);
    strbuf_free(&l->fold);
    strbuf_free(&l->filter);
    strbuf_free(&l->filter_fold);
    x_free(l->items);
    x_free(l->vis);
    x_free(l);
}

/* Whether `needle` occurs in `hay` (both already folded). */
static bool
uilist_contains(const char *hay, size_t hay_len, const char *needle, size_t needle_len)
{
    if (needle_len == 0)
        return true;
    if (needle_len > hay_len)
        return false;
    const char *end = hay + (hay_len - needle_len) + 1;
    for (const char *p = hay; p < end;) {
        p = memchr(p, needle[0], (size_t)(end - p));
        if (!p)
            return false;
        if (memcmp(p, needle, needle_len) == 0)
            return true;
        p++;
    }
    return false;
}

static bool
uilist_matches(const uilist *l, size_t item)
{
    const uilist_item *it = &l->items[item];
    return uilist_contains(l->fold.data + it->off, it->len, l->filter_fold.data,
                           l->filter_fold.len);
}

static void
uilist_push_vis(uilist *l, size_t item)
{
    if (l->n_vis == l->cap_vis) {
        l->cap_vis = l->cap_vis ? 2 * l->cap_vis : 64;
        l->vis = xreallocarray(l->vis, l->cap_vis, sizeof *l->vis);     /* owned by l */
    }
    l->vis[l->n_vis++] = item;
}

void
uilist_add(uilist *l, const char *text_utf8, uint64_t payload)
{
    const char *t = text_utf8 ? text_utf8 : "";
    size_t len = strlen(t);
    if (l->n_items == l->cap_items) {
        l->cap_items = l->cap_items ? 2 * l->cap_items : 64;
        l->items = xreallocarray(l->items, l->cap_items, sizeof *l->items);  /* owned by l */
    }
    uilist_item *it = &l->items[l->n_items];
    it->off = l->text.len;
    it->len = len;
    it->payload = payload;
    strbuf_append(&l->text, t, len + 1);
    strbuf_reserve(&l->fold, len + 1);
    for (size_t i = 0; i <= len; i++)
        l->fold.data[l->fold.len + i] = uilist_fold_byte(t[i]);
    l->fold.len += len + 1;
    l->fold.data[l->fold.len] = '\0';
    size_t item = l->n_items++;
    if (uilist_matches(l, item))
        uilist_push_vis(l, item);
}

void
uilist_set_columns_header(uilist *l, const char *header)
{
    x_free(l->header);
    l->header = header ? xstrdup(header) : NULL;
}

void
uilist_set_ascii(uilist *l, bool ascii)
{
    l->ascii = ascii;
}

size_t
uilist_n_items(const uilist *l)
{
    return l->n_items;
}

/* The selected item, or SIZE_MAX when nothing is visible. */
static size_t
uilist_sel_item(const uilist *l)
{
    return l->n_vis ? l->vis[l->sel] : SIZE_MAX;
}

/* Put the selection back on `item` if it is visible, else on the first visible row. */
static void
uilist_reselect(uilist *l, size_t item)
{
    size_t lo = 0, hi = l->n_vis;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->vis[mid] < item)
            lo = mid + 1;
        else
            hi = mid;
    }
    l->sel = lo < l->n_vis && l->vis[lo] == item ? lo : 0;
}

/* Recompute the visible rows. When the filter only grew, the new matches are a subset
 * of the old ones, so only those are tested. */
static void
uilist_refilter(uilist *l, bool narrowed)
{
    size_t keep = uilist_sel_item(l);
    if (narrowed) {
        size_t n = 0;
        for (size_t i = 0; i < l->n_vis; i++)
            if (uilist_matches(l, l->vis[i]))
                l->vis[n++] = l->vis[i];
        l->n_vis = n;
    } else {
        l->n_vis = 0;
        for (size_t i = 0; i < l->n_items; i++)
            if (uilist_matches(l, i))
                uilist_push_vis(l, i);
    }
    uilist_reselect(l, keep);
}

static void
uilist_filter_changed(uilist *l, bool narrowed)
{
    strbuf_reset(&l->filter_fold);
    for (size_t i = 0; i < l->filter.len; i++)
        strbuf_putc(&l->filter_fold, uilist_fold_byte(l->filter.data[i]));
    uilist_refilter(l, narrowed);
}

void
uilist_filter_append(uilist *l, const char *utf8)
{
    size_t before = l->filter.len;
    for (const char *p = utf8 ? utf8 : ""; *p; p++)
        if ((unsigned char)*p >= 0x20 && *p != 0x7f)
            strbuf_putc(&l->filter, *p);
    if (l->filter.len != before)
        uilist_filter_changed(l, true);
}

void
uilist_filter_erase_char(uilist *l)
{
    if (l->filter.len == 0)
        return;
    /* Back over UTF-8 continuation bytes to the start of the last character. */
    size_t n = l->filter.len - 1;
    while (n > 0 && ((unsigned char)l->filter.data[n] & 0xC0) == 0x80)
        n--;
    l->filter.len = n;
    l->filter.data[n] = '\0';
    uilist_filter_changed(l, false);
}

void
uilist_filter_clear(uilist *l)
{
    if (l->filter.len == 0)
        return;
    strbuf_reset(&l->filter);
    uilist_filter_changed(l, false);
}

const char *
uilist_filter(const uilist *l)
{
    return l->filter.data;
}

void
uilist_move(uilist *l, int delta)
{
    if (l->n_vis == 0)
        return;
    if (delta < 0) {
        size_t d = (size_t)-(long long)delta;
        l->sel = d > l->sel ? 0 : l->sel - d;
    } else {
        size_t room = l->n_vis - 1 - l->sel;
        l->sel += (size_t)delta > room ? room : (size_t)delta;
    }
}

void
uilist_page(uilist *l, int dir, int page_rows)
{
    int rows = page_rows >= 1 ? page_rows : l->shown_rows >= 1 ? l->shown_rows : 1;
    if (dir < 0)
        uilist_move(l, -rows);
    else if (dir > 0)
        uilist_move(l, rows);
}

void
uilist_first(uilist *l)
{
    l->sel = 0;
}

void
uilist_last(uilist *l)
{
    l->sel = l->n_vis ? l->n_vis - 1 : 0;
}

bool
uilist_select_payload(uilist *l, uint64_t payload)
{
    for (size_t i = 0; i < l->n_vis; i++) {
        if (l->items[l->vis[i]].payload == payload) {
            l->sel = i;
            return true;
        }
    }
    return false;
}

bool
uilist_selected(const uilist *l, uint64_t *payload)
{
    if (l->n_vis == 0)
        return false;
    if (payload)
        *payload = l->items[l->vis[l->sel]].payload;
    return true;
}

size_t
uilist_selected_pos(const uilist *l)
{
    return l->sel;
}

size_t
uilist_n_visible(const uilist *l)
{
    return l->n_vis;
}

const char *
uilist_visible_text(const uilist *l, size_t pos)
{
    return pos < l->n_vis ? l->text.data + l->items[l->vis[pos]].off : NULL;
}

/* Scroll so the selection is among the `rows` shown and no rows are wasted below the
 * last one. */
static void
uilist_scroll_into_view(uilist *l, size_t rows)
{
    if (l->sel < l->top)
        l->top = l->sel;
    else if (l->sel >= l->top + rows)
        l->top = l->sel - rows + 1;
    if (l->top + rows > l->n_vis)
        l->top = l->n_vis > rows ? l->n_vis - rows : 0;
}

void
uilist_draw(uilist *l, surface *s, int col, int line, int cols, int lines)
{
    if (cols <= 0 || lines <= 0)
        return;
    uibox_frame(s, col, line, cols, lines, l->ascii, STYLE_POPUP, STYLE_POPUP);
    if (cols < 2 || lines < 2) {
        /* No room for a border: show what fits of the title. */
        uibox_text(s, col, line, l->title, STYLE_POPUP_TITLE, cols);
        return;
    }
    uibox_labels(s, col, line, cols, l->title, STYLE_POPUP_TITLE, NULL, STYLE_POPUP);

    strbuf sb;
    strbuf_init(&sb);
    if (l->filter.len)
        strbuf_printf(&sb, "filter: %s", l->filter.data);
    else
        strbuf_puts(&sb, "type to filter");
    char counts[48];
    snprintf(counts, sizeof counts, "%zu/%zu", l->n_vis, l->n_items);
    uibox_labels(s, col, line + lines - 1, cols, sb.data,
                 l->filter.len ? STYLE_POPUP_TITLE : STYLE_POPUP, counts, STYLE_POPUP);
    strbuf_free(&sb);

    /* Inside: one column of padding each side of the text. */
    int x = col + 1, w = cols - 2, y = line + 1, h = lines - 2;
    if (l->header && h > 0) {
        surface_fill(s, x, y, w, ' ', STYLE_POPUP_TITLE);
        uibox_text(s, x + 1, y, l->header, STYLE_POPUP_TITLE, w - 2);
        y++;
        h--;
    }
    if (h <= 0)
        return;
    l->shown_rows = h;
    if (l->n_vis == 0) {
        uibox_text(s, x + 1, y, l->n_items ? "(no match)" : "(empty)", STYLE_POPUP, w - 2);
        return;
    }
    uilist_scroll_into_view(l, (size_t)h);
    for (int r = 0; r < h && l->top + (size_t)r < l->n_vis; r++) {
        size_t pos = l->top + (size_t)r;
        const uilist_item *it = &l->items[l->vis[pos]];
        uint8_t style = pos == l->sel ? STYLE_POPUP_SEL : STYLE_POPUP;
        if (style != STYLE_POPUP)
            surface_fill(s, x, y + r, w, ' ', style);
        if (w > 2)
            surface_textn(s, x + 1, y + r, l->text.data + it->off, it->len, style, w - 2);
    }
}
