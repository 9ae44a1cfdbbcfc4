/* surface: the cell grid views draw into. A cell is packed into one uint32_t
 * (codepoint in the low 24 bits, style in the high 8) so rows compare with memcmp,
 * and every write is clipped so a 1x1 or 0x0 surface is as safe as a big one. */
#include "surface.h"

#include <string.h>

#include "strbuf.h"
#include "xalloc.h"

#define SURFACE_CP_MASK 0x00FFFFFFu
#define SURFACE_BLANK   ((uint32_t)' ' | ((uint32_t)STYLE_DEFAULT << 24))

struct surface {
    int cols;
    int lines;
    uint32_t *cells;  /* owned; cols * lines packed cells, row-major */
};

/* Ranges of codepoints that are one column wide in glibc's wcwidth, libtickit and
 * common terminals alike (assigned, not East Asian Wide, not emoji-presentation,
 * not combining). Sorted; ASCII is handled before the lookup. */
static const uint32_t surface_narrow[][2] = {
    { 0x00A0, 0x00AC }, { 0x00AE, 0x02FF },
    { 0x0370, 0x0377 }, { 0x037A, 0x037F }, { 0x0384, 0x038A }, { 0x038C, 0x038C },
    { 0x038E, 0x03A1 }, { 0x03A3, 0x0482 }, { 0x048A, 0x052F },
    { 0x1E00, 0x1EFF },
    { 0x2010, 0x2027 }, { 0x2030, 0x205E }, { 0x2070, 0x2071 }, { 0x2074, 0x208E },
    { 0x2090, 0x209C }, { 0x20A0, 0x20BF }, { 0x2100, 0x218B }, { 0x2190, 0x2319 },
    { 0x231C, 0x2328 }, { 0x232B, 0x23E8 }, { 0x23ED, 0x23EF }, { 0x23F1, 0x23F2 },
    { 0x23F4, 0x23FF }, { 0x2400, 0x2426 }, { 0x2440, 0x244A }, { 0x2460, 0x25FC },
    { 0x25FF, 0x2613 }, { 0x2616, 0x2647 }, { 0x2654, 0x267E }, { 0x2680, 0x2692 },
    { 0x2694, 0x26A0 }, { 0x26A2, 0x26A9 }, { 0x26AC, 0x26BC }, { 0x26BF, 0x26C3 },
    { 0x26C6, 0x26CD }, { 0x26CF, 0x26D3 }, { 0x26D5, 0x26E9 }, { 0x26EB, 0x26F1 },
    { 0x26F4, 0x26F4 }, { 0x26F6, 0x26F9 }, { 0x26FB, 0x26FC }, { 0x26FE, 0x2704 },
    { 0x2706, 0x2709 }, { 0x270C, 0x2727 }, { 0x2729, 0x274B }, { 0x274D, 0x274D },
    { 0x274F, 0x2752 }, { 0x2756, 0x2756 }, { 0x2758, 0x2794 }, { 0x2798, 0x27AF },
    { 0x27B1, 0x27BE }, { 0x27C0, 0x2B1A }, { 0x2B1D, 0x2B4F }, { 0x2B51, 0x2B54 },
    { 0x2B56, 0x2B73 },
    { 0xFFFD, 0xFFFD },
};

uint32_t
surface_displayable(uint32_t cp)
{
    if (cp >= 0x20 && cp < 0x7F)
        return cp;
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return SURFACE_REPLACEMENT;
    /* The timeline's cells are mostly block elements, shades, ticks and braille: the two
     * entries that hold them are tried before the search (any entry would do). */
    enum { SURFACE_NARROW_BLOCKS = 25, SURFACE_NARROW_BRAILLE = 51 };
    if ((cp >= surface_narrow[SURFACE_NARROW_BLOCKS][0] &&
         cp <= surface_narrow[SURFACE_NARROW_BLOCKS][1]) ||
        (cp >= surface_narrow[SURFACE_NARROW_BRAILLE][0] &&
         cp <= surface_narrow[SURFACE_NARROW_BRAILLE][1]))
        return cp;
    size_t lo = 0, hi = sizeof surface_narrow / sizeof surface_narrow[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp < surface_narrow[mid][0])
            hi = mid;
        else if (cp > surface_narrow[mid][1])
            lo = mid + 1;
        else
            return cp;
    }
    return '?';
}

size_t
surface_utf8_decode(const char *s, size_t len, uint32_t *cp)
{
    const unsigned char *p = (const unsigned char *)s;
    if (len == 0) {
        *cp = 0;
        return 0;
    }
    unsigned c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    /* The valid range of the second byte depends on the lead byte (no overlongs,
     * no surrogates, nothing above U+10FFFF); later bytes are plain 80..BF. */
    size_t need;
    uint32_t v;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        v = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        v = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        v = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        *cp = SURFACE_REPLACEMENT;
        return 1;
    }
    size_t i = 1;
    for (; i <= need && i < len; i++) {
        unsigned b = p[i];
        if (b < lo || b > hi)
            break;
        v = (v << 6) | (b & 0x3F);
        lo = 0x80;
        hi = 0xBF;
    }
    *cp = i > need ? v : SURFACE_REPLACEMENT;
    return i;
}

size_t
surface_utf8_encode(uint32_t cp, char out[4])
{
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        cp = SURFACE_REPLACEMENT;
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

int
surface_text_cols(const char *utf8)
{
    size_t len = strlen(utf8);
    int n = 0;
    for (size_t off = 0; off < len; n++) {
        uint32_t cp;
        off += surface_utf8_decode(utf8 + off, len - off, &cp);
    }
    return n;
}

static int
surface_clamp_dim(int n)
{
    return n < 0 ? 0 : n > SURFACE_MAX_DIM ? SURFACE_MAX_DIM : n;
}

static uint32_t
surface_pack(uint32_t cp, uint8_t style)
{
    return (surface_displayable(cp) & SURFACE_CP_MASK) | ((uint32_t)style << 24);
}

static void
surface_fill_cells(uint32_t *cells, size_t n, uint32_t packed)
{
    for (size_t i = 0; i < n; i++)
        cells[i] = packed;
}

surface *
surface_new(int cols, int lines)
{
    surface *s = xmalloc(sizeof *s);  /* caller frees with surface_free */
    s->cols = 0;
    s->lines = 0;
    s->cells = NULL;
    surface_resize(s, cols, lines);
    return s;
}

void
surface_free(surface *s)
{
    if (!s)
        return;
    x_free(s->cells);
    x_free(s);
}

void
surface_resize(surface *s, int cols, int lines)
{
    cols = surface_clamp_dim(cols);
    lines = surface_clamp_dim(lines);
    size_t n = (size_t)cols * (size_t)lines;
    if ((size_t)s->cols * (size_t)s->lines != n || !s->cells) {
        x_free(s->cells);
        s->cells = xcalloc(n ? n : 1, sizeof *s->cells);  /* owned by s */
    }
    s->cols = cols;
    s->lines = lines;
    surface_fill_cells(s->cells, n, SURFACE_BLANK);
}

int
surface_cols(const surface *s)
{
    return s->cols;
}

int
surface_lines(const surface *s)
{
    return s->lines;
}

void
surface_copy(surface *dst, const surface *src)
{
    if (dst == src)
        return;
    if (dst->cols != src->cols || dst->lines != src->lines)
        surface_resize(dst, src->cols, src->lines);
    memcpy(dst->cells, src->cells, (size_t)src->cols * (size_t)src->lines * sizeof *src->cells);
}

void
surface_clear(surface *s, uint8_t style)
{
    surface_fill_cells(s->cells, (size_t)s->cols * (size_t)s->lines, surface_pack(' ', style));
}

void
surface_put(surface *s, int col, int line, uint32_t cp, uint8_t style)
{
    if (col < 0 || line < 0 || col >= s->cols || line >= s->lines)
        return;
    s->cells[(size_t)line * (size_t)s->cols + (size_t)col] = surface_pack(cp, style);
}

void
surface_fill(surface *s, int col, int line, int n, uint32_t cp, uint8_t style)
{
    surface_fill_rect(s, col, line, n, 1, cp, style);
}

void
surface_fill_rect(surface *s, int col, int line, int cols, int lines, uint32_t cp,
                  uint8_t style)
{
    /* 64-bit ends so col + cols cannot overflow. */
    int64_t c0 = col, c1 = (int64_t)col + cols, l0 = line, l1 = (int64_t)line + lines;
    if (c0 < 0)
        c0 = 0;
    if (l0 < 0)
        l0 = 0;
    if (c1 > s->cols)
        c1 = s->cols;
    if (l1 > s->lines)
        l1 = s->lines;
    if (c0 >= c1 || l0 >= l1)
        return;
    uint32_t packed = surface_pack(cp, style);
    for (int64_t l = l0; l < l1; l++)
        surface_fill_cells(s->cells + (size_t)l * (size_t)s->cols + (size_t)c0,
                           (size_t)(c1 - c0), packed);
}

int
surface_textn(surface *s, int col, int line, const char *utf8, size_t len, uint8_t style,
              int max_cols)
{
    int64_t limit = (int64_t)s->cols - col;
    if (max_cols >= 0 && max_cols < limit)
        limit = max_cols;
    int64_t used = 0;
    for (size_t off = 0; off < len && used < limit; used++) {
        uint32_t cp;
        off += surface_utf8_decode(utf8 + off, len - off, &cp);
        surface_put(s, (int)(col + used), line, cp, style);
    }
    return (int)used;
}

int
surface_text(surface *s, int col, int line, const char *utf8, uint8_t style, int max_cols)
{
    return surface_textn(s, col, line, utf8, strlen(utf8), style, max_cols);
}

surface_cell
surface_get(const surface *s, int col, int line)
{
    surface_cell c = { ' ', STYLE_DEFAULT };
    if (col < 0 || line < 0 || col >= s->cols || line >= s->lines)
        return c;
    uint32_t v = s->cells[(size_t)line * (size_t)s->cols + (size_t)col];
    c.cp = v & SURFACE_CP_MASK;
    c.style = (uint8_t)(v >> 24);
    return c;
}

bool
surface_row_equal(const surface *a, const surface *b, int line)
{
    if (a->cols != b->cols || line < 0 || line >= a->lines || line >= b->lines)
        return false;
    size_t off = (size_t)line * (size_t)a->cols;
    return memcmp(a->cells + off, b->cells + off, (size_t)a->cols * sizeof *a->cells) == 0;
}

char *
surface_dump(const surface *s)
{
    strbuf sb;
    strbuf_init(&sb);
    strbuf_reserve(&sb, (size_t)s->lines * ((size_t)s->cols + 1));
    strbuf_append(&sb, "", 0);  /* a 0-line surface still gives "" */
    for (int line = 0; line < s->lines; line++) {
        for (int col = 0; col < s->cols; col++) {
            char buf[4];
            size_t n = surface_utf8_encode(surface_get(s, col, line).cp, buf);
            strbuf_append(&sb, buf, n);
        }
        strbuf_putc(&sb, '\n');
    }
    return sb.data;  /* ownership passes to the caller */
}
