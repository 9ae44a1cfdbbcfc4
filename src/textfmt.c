/* textfmt: UTF-8 handling and Haskell-compatible escaping for rendering text
 * fields the way ghc-events does. */
#include "textfmt.h"

#include <string.h>

int32_t
textfmt_utf8_next(const uint8_t *p, size_t n, size_t *i)
{
    size_t k = *i;
    uint8_t b = p[k];
    if (b < 0x80) {
        *i = k + 1;
        return b;
    }
    unsigned len;
    uint32_t cp, min;
    if (b >= 0xc2 && b <= 0xdf) {
        len = 2; cp = b & 0x1f; min = 0x80;
    } else if (b >= 0xe0 && b <= 0xef) {
        len = 3; cp = b & 0x0f; min = 0x800;
    } else if (b >= 0xf0 && b <= 0xf4) {
        len = 4; cp = b & 0x07; min = 0x10000;
    } else {
        *i = k + 1;
        return -1;
    }
    if (n - k < len) {
        *i = k + 1;
        return -1;
    }
    for (unsigned j = 1; j < len; j++) {
        uint8_t c = p[k + j];
        if ((c & 0xc0) != 0x80) {
            *i = k + 1;
            return -1;
        }
        cp = (cp << 6) | (c & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        *i = k + 1;
        return -1;
    }
    *i = k + len;
    return (int32_t)cp;
}

void
textfmt_append_cp(strbuf *sb, uint32_t cp)
{
    char b[4];
    size_t n;
    if (cp < 0x80) {
        b[0] = (char)cp; n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xc0 | (cp >> 6)); b[1] = (char)(0x80 | (cp & 0x3f)); n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xe0 | (cp >> 12)); b[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (char)(0x80 | (cp & 0x3f)); n = 3;
    } else {
        b[0] = (char)(0xf0 | (cp >> 18)); b[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); b[3] = (char)(0x80 | (cp & 0x3f)); n = 4;
    }
    strbuf_append(sb, b, n);
}

void
textfmt_append_utf8(strbuf *sb, const uint8_t *p, size_t n)
{
    size_t i = 0, run = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t at = i;
        if (textfmt_utf8_next(p, n, &i) < 0) {
            strbuf_append(sb, p + run, at - run);
            textfmt_append_cp(sb, 0xfffd);
            run = i;
        }
    }
    strbuf_append(sb, p + run, n - run);
}

void
textfmt_append_latin1(strbuf *sb, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        textfmt_append_cp(sb, p[i]);
}

static const char *const textfmt_ascii_names[32] = {
    "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a",   "b",   "t",  "n",
    "v",   "f",   "r",   "SO",  "SI",  "DLE", "DC1", "DC2", "DC3", "DC4", "NAK",
    "SYN", "ETB", "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US",
};

/* Haskell's showLitString for one decoded string (no quotes). */
static void
textfmt_hs_escape(strbuf *sb, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int32_t c = textfmt_utf8_next(p, n, &i);
        uint32_t cp = c < 0 ? 0xfffd : (uint32_t)c;
        /* What follows decides whether a numeric or \SO escape needs "\&". */
        size_t peek_i = i;
        int32_t next = i < n ? textfmt_utf8_next(p, n, &peek_i) : -2;
        if (cp > 0x7f) {
            strbuf_putc(sb, '\\');
            strbuf_u64(sb, cp);
            if (next >= '0' && next <= '9')
                strbuf_puts(sb, "\\&");
        } else if (cp == 0x7f) {
            strbuf_puts(sb, "\\DEL");
        } else if (cp == '\\') {
            strbuf_puts(sb, "\\\\");
        } else if (cp == '"') {
            strbuf_puts(sb, "\\\"");
        } else if (cp >= ' ') {
            strbuf_putc(sb, (char)cp);
        } else {
            strbuf_putc(sb, '\\');
            strbuf_puts(sb, textfmt_ascii_names[cp]);
            if (cp == 0x0e && next == 'H')
                strbuf_puts(sb, "\\&");
        }
    }
}

void
textfmt_append_hs_show(strbuf *sb, const uint8_t *p, size_t n)
{
    strbuf_putc(sb, '"');
    textfmt_hs_escape(sb, p, n);
    strbuf_putc(sb, '"');
}

void
textfmt_append_hs_list(strbuf *sb, const uint8_t *p, size_t n)
{
    while (n > 0 && p[n - 1] == 0)
        n--;
    strbuf_putc(sb, '[');
    size_t start = 0;
    for (;;) {
        const uint8_t *nul = memchr(p + start, 0, n - start);
        size_t end = nul ? (size_t)(nul - p) : n;
        textfmt_append_hs_show(sb, p + start, end - start);
        if (!nul)
            break;
        strbuf_putc(sb, ',');
        start = end + 1;
    }
    strbuf_putc(sb, ']');
}

int
textfmt_is_print(uint32_t cp)
{
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
        return 0;                                   /* Cc */
    if (cp == 0xad || cp == 0x61c || cp == 0x180e)  /* Cf */
        return 0;
    if ((cp >= 0x600 && cp <= 0x605) || cp == 0x6dd || cp == 0x70f || cp == 0x8e2)
        return 0;
    if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) ||
        (cp >= 0x2060 && cp <= 0x206f))
        return 0;                                   /* Cf, Zl, Zp */
    if (cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb))
        return 0;
    if (cp >= 0xd800 && cp <= 0xf8ff)
        return 0;                                   /* Cs, Co */
    if ((cp & 0xfffe) == 0xfffe || (cp >= 0xfdd0 && cp <= 0xfdef))
        return 0;                                   /* noncharacters (Cn) */
    if (cp >= 0xe0000 && cp <= 0xe007f)
        return 0;                                   /* tags (Cf) */
    if (cp >= 0xf0000)
        return 0;                                   /* planes 15-16 private use */
    return 1;
}

void
textfmt_append_binary(strbuf *sb, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        int32_t c = textfmt_utf8_next(p, n, &i);
        if (c < 0 || !textfmt_is_print((uint32_t)c))
            strbuf_putc(sb, '.');
        else
            textfmt_append_cp(sb, (uint32_t)c);
    }
}
