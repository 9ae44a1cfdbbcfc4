/* uilist: popup list rows in one text pool (plus an ASCII-folded copy for matching) or
 * asked of the caller row by row; the visible rows as a stack of ascending index
 * arrays, one per filter length, so typing narrows the last set and erasing pops back;
 * drawing touches only the rows on screen. */
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

/* The rows matching the first `filter_len` bytes of the filter, ascending. Each level's
 * filter extends the one below, so its rows are a subset of theirs. */
typedef struct uilist_level {
    size_t filter_len;
    size_t *vis;                /* owned by the list */
    size_t n, cap;
} uilist_level;

/* Levels kept beyond the current one hold at most this many rows per row of the list
 * (older levels are dropped first; erasing back to a dropped one refilters). */
#define UILIST_LEVEL_BUDGET 3

struct uilist {
    char *title;                /* owned */
    char *header;               /* owned, NULL for none */
    char *empty_text;           /* owned, NULL: "(empty)" */
    bool lazy;                  /* rows come from `src`, not uilist_add */
    uilist_rows src;
    strbuf scratch;             /* a lazy row's text while drawn */
    size_t *key_off;            /* owned; lazy rows' folded keys in `fold`, made at the
                                 * first filtering: key i is [key_off[i], key_off[i+1]) */
    strbuf text;                /* every added row's text, each NUL-terminated */
    strbuf fold;                /* the same bytes with ASCII letters lowercased */
    uilist_item *items;         /* owned, add order */
    size_t n_items, cap_items;
    uilist_level *levels;       /* owned; [0] is every row, the last is what is visible */
    size_t n_levels, cap_levels;
    size_t *vis;                /* = levels[n_levels - 1].vis */
    size_t n_vis;
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

static void
uilist_level_push(uilist_level *lv, size_t item)
{
    if (lv->n == lv->cap) {
        lv->cap = lv->cap ? 2 * lv->cap : 64;
        lv->vis = xreallocarray(lv->vis, lv->cap, sizeof *lv->vis);    /* owned by list */
    }
    lv->vis[lv->n++] = item;
}

/* Keep vis/n_vis in step with the top level. */
static void
uilist_sync_top(uilist *l)
{
    uilist_level *top = &l->levels[l->n_levels - 1];
    l->vis = top->vis;
    l->n_vis = top->n;
}

/* A new empty level on top for a filter of `filter_len` bytes. */
static uilist_level *
uilist_level_new(uilist *l, size_t filter_len)
{
    if (l->n_levels == l->cap_levels) {
        l->cap_levels = l->cap_levels ? 2 * l->cap_levels : 8;
        l->levels = xreallocarray(l->levels, l->cap_levels, sizeof *l->levels); /* owned */
    }
    uilist_level *lv = &l->levels[l->n_levels++];
    *lv = (uilist_level){ .filter_len = filter_len };
    return lv;
}

static uilist *
uilist_alloc(const char *title)
{
    uilist *l = xcalloc(1, sizeof *l);      /* caller frees: uilist_free */
    l->title = xstrdup(title ? title : "");
    strbuf_init(&l->text);
    strbuf_init(&l->fold);
    strbuf_init(&l->filter);
    strbuf_init(&l->filter_fold);
    strbuf_init(&l->scratch);
    strbuf_puts(&l->filter, "");             /* allocates: uilist_filter is never NULL */
    uilist_level_new(l, 0);
    uilist_sync_top(l);
    return l;
}

uilist *
uilist_new(const char *title)
{
    return uilist_alloc(title);
}

uilist *
uilist_new_rows(const char *title, const uilist_rows *rows)
{
    uilist *l = uilist_alloc(title);
    l->lazy = true;
    l->src = *rows;
    l->n_items = rows->n_rows;
    uilist_level *all = &l->levels[0];
    all->cap = all->n = rows->n_rows;
    all->vis = xreallocarray(NULL, rows->n_rows ? rows->n_rows : 1, sizeof *all->vis);
    for (size_t i = 0; i < rows->n_rows; i++)
        all->vis[i] = i;
    uilist_sync_top(l);
    return l;
}

void
uilist_free(uilist *l)
{
    if (!l)
        return;
    x_free(l->title);
    x_free(l->header);
    x_free(l->empty_text);
    strbuf_free(&l->text);
    strbuf_free(&l->fold);
    strbuf_free(&l->filter);
    strbuf_free(&l->filter_fold);
    strbuf_free(&l->scratch);
    x_free(l->key_off);
    x_free(l->items);
    for (size_t i = 0; i < l->n_levels; i++)
        x_free(l->levels[i].vis);
    x_free(l->levels);
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

/* Whether row `item` contains the first `len` bytes of the (folded) filter. */
static bool
uilist_matches(uilist *l, size_t item, size_t len)
{
    if (len == 0)
        return true;
    if (!l->lazy) {
        const uilist_item *it = &l->items[item];
        return uilist_contains(l->fold.data + it->off, it->len, l->filter_fold.data, len);
    }
    size_t off = l->key_off[item];
    return uilist_contains(l->fold.data + off, l->key_off[item + 1] - off,
                           l->filter_fold.data, len);
}

/* Ask every lazy row's key once, folded into `fold`: later keystrokes scan memory
 * instead of calling back (one pass of the callback, then as fast as added rows). */
static void
uilist_make_keys(uilist *l)
{
    if (!l->lazy || l->key_off)
        return;
    l->key_off = xreallocarray(NULL, l->n_items + 1, sizeof *l->key_off);  /* owned */
    for (size_t i = 0; i < l->n_items; i++) {
        l->key_off[i] = l->fold.len;
        (l->src.key ? l->src.key : l->src.text)(l->src.ctx, i, &l->fold);
    }
    l->key_off[l->n_items] = l->fold.len;
    for (size_t i = 0; i < l->fold.len; i++)
        l->fold.data[i] = uilist_fold_byte(l->fold.data[i]);
}

/* Drop levels between the base and the top (the base keeps every row; rows added or
 * budgets exceeded make the middle ones stale or too costly). */
static void
uilist_drop_level(uilist *l, size_t i)
{
    x_free(l->levels[i].vis);
    memmove(&l->levels[i], &l->levels[i + 1], (l->n_levels - i - 1) * sizeof *l->levels);
    l->n_levels--;
}

void
uilist_add(uilist *l, const char *text_utf8, uint64_t payload)
{
    if (l->lazy)
        return;         /* a list of supplied rows takes none */
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
    /* Middle levels would miss the row: drop them; the base and the top take it. */
    while (l->n_levels > 2)
        uilist_drop_level(l, 1);
    uilist_level_push(&l->levels[0], item);
    if (l->n_levels > 1 && uilist_matches(l, item, l->filter_fold.len))
        uilist_level_push(&l->levels[1], item);
    uilist_sync_top(l);
}

void
uilist_set_columns_header(uilist *l, const char *header)
{
    x_free(l->header);
    l->header = header ? xstrdup(header) : NULL;
}

void
uilist_set_empty_text(uilist *l, const char *text)
{
    x_free(l->empty_text);
    l->empty_text = text ? xstrdup(text) : NULL;
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

static uint64_t
uilist_payload(const uilist *l, size_t item)
{
    if (!l->lazy)
        return l->items[item].payload;
    return l->src.payload ? l->src.payload(l->src.ctx, item) : item;
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

/* Make the top level answer the whole filter: pop levels for longer filters (erased
 * text), then narrow the top level's rows into a new level if it answers less. */
static void
uilist_refilter(uilist *l)
{
    size_t keep = uilist_sel_item(l);
    size_t len = l->filter_fold.len;
    while (l->n_levels > 1 && l->levels[l->n_levels - 1].filter_len > len) {
        x_free(l->levels[l->n_levels - 1].vis);
        l->n_levels--;
    }
    if (l->levels[l->n_levels - 1].filter_len < len) {
        uilist_make_keys(l);
        uilist_level *lv = uilist_level_new(l, len);
        const uilist_level *from = lv - 1;
        for (size_t i = 0; i < from->n; i++)
            if (uilist_matches(l, from->vis[i], len))
                uilist_level_push(lv, from->vis[i]);
        /* Memory stays a few times the rows: the oldest middle levels go first. */
        size_t kept = 0;
        for (size_t i = 1; i + 1 < l->n_levels; i++)
            kept += l->levels[i].n;
        size_t budget = UILIST_LEVEL_BUDGET * l->n_items + 4096;
        while (l->n_levels > 2 && kept > budget) {
            kept -= l->levels[1].n;
            uilist_drop_level(l, 1);
        }
    }
    uilist_sync_top(l);
    uilist_reselect(l, keep);
}

static void
uilist_filter_changed(uilist *l)
{
    strbuf_reset(&l->filter_fold);
    for (size_t i = 0; i < l->filter.len; i++)
        strbuf_putc(&l->filter_fold, uilist_fold_byte(l->filter.data[i]));
    uilist_refilter(l);
}

void
uilist_filter_append(uilist *l, const char *utf8)
{
    size_t before = l->filter.len;
    for (const char *p = utf8 ? utf8 : ""; *p; p++)
        if ((unsigned char)*p >= 0x20 && *p != 0x7f)
            strbuf_putc(&l->filter, *p);
    if (l->filter.len != before)
        uilist_filter_changed(l);
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
    uilist_filter_changed(l);
}

void
uilist_filter_clear(uilist *l)
{
    if (l->filter.len == 0)
        return;
    strbuf_reset(&l->filter);
    uilist_filter_changed(l);
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
        if (uilist_payload(l, l->vis[i]) == payload) {
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
        *payload = uilist_payload(l, l->vis[l->sel]);
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

/* Row `item`'s text (NUL-terminated) into *len; lazy rows are made in the scratch
 * buffer, valid until the next call. */
static const char *
uilist_row_text(uilist *l, size_t item, size_t *len)
{
    if (!l->lazy) {
        *len = l->items[item].len;
        return l->text.data + l->items[item].off;
    }
    strbuf_reset(&l->scratch);
    l->src.text(l->src.ctx, item, &l->scratch);
    strbuf_putc(&l->scratch, '\0');
    *len = l->scratch.len - 1;
    return l->scratch.data;
}

const char *
uilist_visible_text(uilist *l, size_t pos)
{
    size_t len;
    return pos < l->n_vis ? uilist_row_text(l, l->vis[pos], &len) : NULL;
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
        const char *none = l->n_items ? "(no match)" : l->empty_text ? l->empty_text
                                                                     : "(empty)";
        uibox_text(s, x + 1, y, none, STYLE_POPUP, w - 2);
        return;
    }
    uilist_scroll_into_view(l, (size_t)h);
    for (int r = 0; r < h && l->top + (size_t)r < l->n_vis; r++) {
        size_t pos = l->top + (size_t)r;
        size_t len;
        const char *text = uilist_row_text(l, l->vis[pos], &len);
        uint8_t style = pos == l->sel ? STYLE_POPUP_SEL : STYLE_POPUP;
        if (style != STYLE_POPUP)
            surface_fill(s, x, y + r, w, ' ', style);
        if (w > 2)
            surface_textn(s, x + 1, y + r, text, len, style, w - 2);
    }
}
