/* helpview: the help screen's lines — keymap_help_lines split into title and key spans,
 * then fixed mouse, legend and terms (times, the mutator share) sections — and a
 * scrollable box that draws them. */
#include "helpview.h"

#include <stdio.h>
#include <string.h>

#include "detail.h"
#include "keymap.h"
#include "strbuf.h"
#include "uibox.h"

/* The gestures app.c binds to the mouse. */
static const struct {
    const char *gesture, *help;
} helpview_mouse[] = {
    { "click", "move the cursor there" },
    { "drag", "select a time range; the cursor stays where it ends" },
    { "wheel", "zoom in or out at the pointer" },
};

/* What the timeline lanes draw, with the glyphs and styles of lanes.c (lanes.h): bars
 * are eighth blocks as tall as the share of the column, here shown full. */
static const struct {
    const char *utf8, *ascii;   /* the swatch, at most HELPVIEW_SWATCH_COLS columns */
    uint8_t style;
    const char *help;
} helpview_legend[] = {
    { "\u2588\u2585\u2582", "#++", STYLE_RUNNING, "a Haskell thread running" },
    { "\u2588\u2585\u2582", "GGg", STYLE_GC_WORK, "GC: copying or marking" },
    { "\u2588\u2585\u2582", "GGg", STYLE_GC_WAIT, "GC: waiting (synchronising, idle)" },
    { "\u2588\u2588\u2588", "MMM", STYLE_NM_MARK, "non-moving GC: concurrent mark" },
    { "\u2588\u2588\u2588", "SSS", STYLE_NM_SYNC, "non-moving GC: stop-the-world sync" },
    { "\u2588\u2588\u2588", "WWW", STYLE_NM_SWEEP, "non-moving GC: concurrent sweep" },
    { "\u25bc", "|", STYLE_MARKER, "user marker (traceMarker)" },
    { "\u00b7", ".", STYLE_MARKER_TEXT, "user or RTS message (traceEvent)" },
    { "\u2588\u2585\u2582", "@@@", STYLE_THREAD_FOCUS,
      "the focused thread (t, Enter); a checker without colour" },
    { "CWM", "CWM", STYLE_TICK, "zoomed in: thread created, woken, migrated" },
    { "S*", "S*", STYLE_TICK, "zoomed in: a spark event, a message" },
    { "\u2588\u2585\u2582", "#+.", STYLE_SPARK_CREATED, "sparks created on a HEC (created N)" },
    { "\u2588\u2585\u2582", "#+.", STYLE_SPARK_CONVERTED, "sparks converted on a HEC (convert N)" },
};

/* What the times, folded lanes and the range statistics mean: a term, then lines of its
 * definition (NULL ends a term's lines). The one place the mutator share is defined. */
static const char *const helpview_terms[][4] = {
    { "times", "the log's clock: ns since the RTS started, as",
      "`ghc-events show` prints them; `gc`, `markers`,",
      "`stats` and `snapshot --from/--to` use it too" },
    { "folded HEC rows", "small screens give a HEC one row: a GC cell is then",
      "as tall as the HEC was busy (braille dots in mono);",
      "ASCII G or # from half the column up, g or + below" },
    { "thread focus", "t, Enter: its runs marked on every HEC, . and ,",
      "step through them, the pane shows its life (wakers,",
      "migrations, stops); Esc ends it" },
    { DETAIL_MUTATOR_SHARE, "of a range (Space ... Space): its time outside GC",
      "pauses, 1 - pause time / range length. Not GHC's",
      "Productivity, which `stats --from --to` prints" },
    { "MMU (u)", "for a window length w, the lowest mutator share of",
      "any window of length w in the range: 0 when some",
      "pause alone lasted w; `elog-tui mmu` prints it" },
};

#define HELPVIEW_N(a) (sizeof a / sizeof a[0])
#define HELPVIEW_SWATCH_COLS 3

typedef struct helpview_emit {
    helpview_line_fn *fn;
    void *ctx;
    size_t n;
} helpview_emit;

static void
helpview_put(helpview_emit *e, helpview_kind kind, const char *text, size_t a, size_t b,
             uint8_t style)
{
    e->n++;
    if (!e->fn)
        return;
    helpview_line l = { kind, text, a, b, style };
    e->fn(e->ctx, &l);
}

/* A keymap_help_lines line: a title, "", or "  <keys>  <help>" where key names are
 * single words separated by single spaces, so the keys end at the first double space. */
static void
helpview_keymap_line(void *ctx, const char *line)
{
    helpview_emit *e = ctx;
    if (line[0] == '\0') {
        helpview_put(e, HELPVIEW_BLANK, line, 0, 0, STYLE_POPUP);
    } else if (line[0] == ' ' && line[1] == ' ') {
        const char *end = strstr(line + 2, "  ");
        size_t b = end ? (size_t)(end - line) : strlen(line);
        helpview_put(e, HELPVIEW_KEYS, line, 2, b, STYLE_HELP_KEY);
    } else {
        helpview_put(e, HELPVIEW_TITLE, line, 0, strlen(line), STYLE_POPUP_TITLE);
    }
}

size_t
helpview_lines(bool ascii, helpview_line_fn *fn, void *ctx)
{
    return helpview_lines_in(NULL, ascii, fn, ctx);
}

size_t
helpview_lines_in(const keymap *km, bool ascii, helpview_line_fn *fn, void *ctx)
{
    helpview_emit e = { fn, ctx, 0 };
    keymap_help_lines_in(km, KEYMAP_ALL_MODES, helpview_keymap_line, &e);

    strbuf sb;
    strbuf_init(&sb);
    int w = 0;
    for (size_t i = 0; i < HELPVIEW_N(helpview_mouse); i++)
        if ((int)strlen(helpview_mouse[i].gesture) > w)
            w = (int)strlen(helpview_mouse[i].gesture);
    helpview_put(&e, HELPVIEW_TITLE, "Mouse", 0, 5, STYLE_POPUP_TITLE);
    for (size_t i = 0; i < HELPVIEW_N(helpview_mouse); i++) {
        strbuf_reset(&sb);
        strbuf_printf(&sb, "  %-*s  %s", w, helpview_mouse[i].gesture, helpview_mouse[i].help);
        helpview_put(&e, HELPVIEW_KEYS, sb.data, 2, 2 + strlen(helpview_mouse[i].gesture),
                     STYLE_HELP_KEY);
    }
    helpview_put(&e, HELPVIEW_BLANK, "", 0, 0, STYLE_POPUP);

    static const char legend_title[] = "Timeline lanes";
    helpview_put(&e, HELPVIEW_TITLE, legend_title, 0, strlen(legend_title), STYLE_POPUP_TITLE);
    for (size_t i = 0; i < HELPVIEW_N(helpview_legend); i++) {
        strbuf_reset(&sb);
        const char *swatch = ascii ? helpview_legend[i].ascii : helpview_legend[i].utf8;
        strbuf_puts(&sb, "  ");
        strbuf_puts(&sb, swatch);
        size_t b = sb.len;
        strbuf_printf(&sb, "%*s  %s", HELPVIEW_SWATCH_COLS - surface_text_cols(swatch), "",
                      helpview_legend[i].help);
        helpview_put(&e, HELPVIEW_LEGEND, sb.data, 2, b, helpview_legend[i].style);
    }
    helpview_put(&e, HELPVIEW_BLANK, "", 0, 0, STYLE_POPUP);

    static const char terms_title[] = "Times and range statistics";
    helpview_put(&e, HELPVIEW_TITLE, terms_title, 0, strlen(terms_title), STYLE_POPUP_TITLE);
    w = 0;
    for (size_t i = 0; i < HELPVIEW_N(helpview_terms); i++)
        if ((int)strlen(helpview_terms[i][0]) > w)
            w = (int)strlen(helpview_terms[i][0]);
    for (size_t i = 0; i < HELPVIEW_N(helpview_terms); i++) {
        for (size_t k = 1; k < HELPVIEW_N(helpview_terms[i]) && helpview_terms[i][k]; k++) {
            const char *term = k == 1 ? helpview_terms[i][0] : "";
            strbuf_reset(&sb);
            strbuf_printf(&sb, "  %-*s  %s", w, term, helpview_terms[i][k]);
            helpview_put(&e, HELPVIEW_KEYS, sb.data, 2, 2 + strlen(term), STYLE_HELP_KEY);
        }
    }
    strbuf_free(&sb);
    return e.n;
}

typedef struct helpview_painter {
    surface *s;
    int x, y, w;                /* the text area's left column, first line, width */
    size_t first, rows;         /* lines [first, first + rows) are drawn */
    size_t i;                   /* index of the next line */
} helpview_painter;

static void
helpview_paint(void *ctx, const helpview_line *l)
{
    helpview_painter *pt = ctx;
    size_t i = pt->i++;
    if (i < pt->first || i >= pt->first + pt->rows)
        return;
    int y = pt->y + (int)(i - pt->first);
    uint8_t base = l->kind == HELPVIEW_TITLE ? STYLE_POPUP_TITLE : STYLE_POPUP;
    int x = pt->x, left = pt->w;
    size_t len = strlen(l->text);
    /* Text before the span, the span, the rest; each clipped to what is left. */
    size_t cut[4] = { 0, l->span_start, l->span_end, len };
    for (int part = 0; part < 3 && left > 0; part++) {
        if (cut[part + 1] <= cut[part])
            continue;
        uint8_t style = part == 1 ? l->span_style : base;
        int n = surface_textn(pt->s, x, y, l->text + cut[part], cut[part + 1] - cut[part],
                              style, left);
        x += n;
        left -= n;
    }
}

int
helpview_draw(surface *s, int col, int line, int cols, int lines, int scroll, bool ascii)
{
    return helpview_draw_in(NULL, s, col, line, cols, lines, scroll, ascii);
}

int
helpview_draw_in(const keymap *km, surface *s, int col, int line, int cols, int lines,
                 int scroll, bool ascii)
{
    size_t n = helpview_lines_in(km, ascii, NULL, NULL);
    if (cols <= 0 || lines <= 0)
        return (int)n;
    uibox_frame(s, col, line, cols, lines, ascii, STYLE_POPUP, STYLE_POPUP);
    if (cols < 2 || lines < 2) {
        uibox_text(s, col, line, "help", STYLE_POPUP_TITLE, cols);
        return (int)n;
    }
    size_t rows = lines > 2 ? (size_t)(lines - 2) : 0;
    size_t max_first = n > rows ? n - rows : 0;
    size_t first = scroll < 0 ? 0 : (size_t)scroll > max_first ? max_first : (size_t)scroll;

    strbuf close, range;
    strbuf_init(&close);
    strbuf_init(&range);
    if (keymap_keys_for_in(km, MODE_HELP, ACTION_CLOSE, &close))
        strbuf_puts(&close, ": close");
    size_t last = first + rows < n ? first + rows : n;
    strbuf_printf(&range, "%zu-%zu/%zu", n ? first + 1 : 0, last, n);
    uibox_labels(s, col, line, cols, "elog-tui help", STYLE_POPUP_TITLE, NULL, STYLE_POPUP);
    uibox_labels(s, col, line + lines - 1, cols, close.data, STYLE_POPUP, range.data,
                 STYLE_POPUP);
    strbuf_free(&close);
    strbuf_free(&range);

    if (rows > 0 && cols > 4) {
        helpview_painter pt = { s, col + 2, line + 1, cols - 4, first, rows, 0 };
        helpview_lines_in(km, ascii, helpview_paint, &pt);
    }
    return (int)n;
}
