/* copycmd: command lines for "copy as command" and the OSC 52 clipboard sequence. Times
 * go through timefmt at 1 ns resolution, which timefmt_parse reads back exactly. */
#include "copycmd.h"

#include <string.h>

#include "timefmt.h"

void
copycmd_shell_quote(strbuf *out, const char *s)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:@%+,=-";
    if (s[0] && strspn(s, safe) == strlen(s)) {
        strbuf_puts(out, s);
        return;
    }
    strbuf_putc(out, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'')
            strbuf_puts(out, "'\\''");
        else
            strbuf_putc(out, *p);
    }
    strbuf_putc(out, '\'');
}

static void
copycmd_range(strbuf *out, uint64_t from_ns, uint64_t to_ns)
{
    strbuf_puts(out, " --from ");
    timefmt_append_res(out, from_ns, 1);
    strbuf_puts(out, " --to ");
    timefmt_append_res(out, to_ns, 1);
}

void
copycmd_stats(strbuf *out, const char *path, uint64_t from_ns, uint64_t to_ns)
{
    strbuf_puts(out, "elog-tui stats ");
    copycmd_shell_quote(out, path);
    copycmd_range(out, from_ns, to_ns);
}

void
copycmd_snapshot(strbuf *out, const char *path, uint64_t from_ns, uint64_t to_ns, int cols,
                 int lines)
{
    strbuf_puts(out, "elog-tui snapshot ");
    copycmd_shell_quote(out, path);
    strbuf_printf(out, " --size %dx%d", cols, lines);
    copycmd_range(out, from_ns, to_ns);
}

void
copycmd_osc52(strbuf *out, const char *text)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const unsigned char *p = (const unsigned char *)text;
    size_t n = strlen(text);
    strbuf_puts(out, "\033]52;c;");
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n)
            v |= p[i + 2];
        strbuf_putc(out, b64[v >> 18 & 63]);
        strbuf_putc(out, b64[v >> 12 & 63]);
        strbuf_putc(out, i + 1 < n ? b64[v >> 6 & 63] : '=');
        strbuf_putc(out, i + 2 < n ? b64[v & 63] : '=');
    }
    strbuf_puts(out, "\033\\");
}
