/* termio_tickit: the libtickit backend, driving a TickitTerm directly (no Tickit
 * windows): one TickitPen per style, goto/setpen/print per changed run. The same code
 * drives an in-memory TickitMockTerm for headless tests (termio_open_mock). */
#include <langinfo.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <tickit.h>
#include <tickit-mockterm.h>

#include "termio_int.h"
#include "termio_mock.h"
#include "xalloc.h"

typedef struct tk_impl {
    TickitTerm *tt;                 /* owned; NULL once a real terminal is closed */
    bool mock;
    TickitPen *pens[STYLE_COUNT];   /* owned */
    int cur_style;                  /* style of the terminal's pen, -1 unknown */
    char *buf;                      /* owned; UTF-8 of the run being drawn */
    size_t buf_cap;
} tk_impl;

static tk_impl *
tk_of(const termio *t)
{
    return t->impl;
}

/* xterm's terminfo gives key_mouse as "\E[<", the SGR report prefix; libtickit 0.4.3's
 * libtermkey then reads SGR reports as X10 ones (garbage clicks and stray keys).
 * Claiming the X10 prefix leaves SGR reports to libtermkey's CSI parser, which reads
 * them correctly, and makes the terminfo driver enable button-event tracking. */
static const char *
tk_ti_getstr(const char *name, const char *value, void *data)
{
    (void)data;
    if (value && strcmp(name, "key_mouse") == 0 && strcmp(value, "\033[<") == 0)
        return "\033[M";
    return value;
}

static const struct TickitTerminfoHook tk_ti_hook = { tk_ti_getstr, NULL };

static void
tk_key_name(const TickitKeyEventInfo *info, termio_event *ev)
{
    const char *s = info->str ? info->str : "";
    if (info->type == TICKIT_KEYEV_TEXT) {
        termio_set_key(ev, strcmp(s, " ") == 0 ? "Space" : s);
        return;
    }
    /* libtermkey names a modified space "C- " / "M- ". */
    size_t n = strlen(s);
    if (n >= 2 && s[n - 1] == ' ' && s[n - 2] == '-' && n - 1 + 5 < sizeof ev->key) {
        memcpy(ev->key, s, n - 1);
        memcpy(ev->key + n - 1, "Space", 6);
        return;
    }
    termio_set_key(ev, s);
}

static int
tk_on_key(TickitTerm *tt, TickitEventFlags flags, void *info, void *user)
{
    (void)tt;
    if (!(flags & TICKIT_EV_FIRE))
        return 0;
    const TickitKeyEventInfo *k = info;
    termio_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TERMIO_EV_KEY;
    ev.mods = k->mod;
    tk_key_name(k, &ev);
    termio_push(user, &ev);
    return 1;
}

static int
tk_on_mouse(TickitTerm *tt, TickitEventFlags flags, void *info, void *user)
{
    (void)tt;
    if (!(flags & TICKIT_EV_FIRE))
        return 0;
    const TickitMouseEventInfo *m = info;
    termio_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TERMIO_EV_MOUSE;
    ev.mods = m->mod;
    ev.button = m->button;
    ev.line = m->line;
    ev.col = m->col;
    switch (m->type) {
    case TICKIT_MOUSEEV_PRESS:
        ev.action = TERMIO_MOUSE_PRESS;
        break;
    case TICKIT_MOUSEEV_DRAG:
        ev.action = TERMIO_MOUSE_DRAG;
        break;
    case TICKIT_MOUSEEV_RELEASE:
        ev.action = TERMIO_MOUSE_RELEASE;
        break;
    case TICKIT_MOUSEEV_WHEEL:
        ev.action = m->button == TICKIT_MOUSEWHEEL_UP ? TERMIO_MOUSE_WHEEL_UP
                                                       : TERMIO_MOUSE_WHEEL_DOWN;
        ev.button = 0;
        break;
    default:
        return 0;
    }
    termio_push(user, &ev);
    return 1;
}

static int
tk_on_resize(TickitTerm *tt, TickitEventFlags flags, void *info, void *user)
{
    (void)tt;
    if (!(flags & TICKIT_EV_FIRE))
        return 0;
    const TickitResizeEventInfo *r = info;
    termio_resized(user, r->cols, r->lines);
    return 0;
}

static void
tk_begin(termio *t, bool full, bool hard)
{
    (void)hard;  /* a TickitTerm keeps no screen image: every full frame clears */
    tk_impl *k = tk_of(t);
    if (!full)
        return;
    tickit_term_setpen(k->tt, k->pens[STYLE_DEFAULT]);
    k->cur_style = STYLE_DEFAULT;
    tickit_term_clear(k->tt);
}

static void
tk_draw(termio *t, const surface *s, int col, int line, int n, uint8_t style)
{
    tk_impl *k = tk_of(t);
    size_t need = (size_t)n * 4;
    if (need > k->buf_cap) {
        k->buf = xreallocarray(k->buf, need, 1);  /* owned by k */
        k->buf_cap = need;
    }
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += surface_utf8_encode(surface_get(s, col + i, line).cp, k->buf + len);
    int st = style < STYLE_COUNT ? style : STYLE_DEFAULT;
    tickit_term_goto(k->tt, line, col);
    if (k->cur_style != st) {
        tickit_term_setpen(k->tt, k->pens[st]);
        k->cur_style = st;
    }
    tickit_term_printn(k->tt, k->buf, len);
}

static void
tk_end(termio *t)
{
    tickit_term_flush(tk_of(t)->tt);
}

static bool
tk_wait(termio *t, int timeout_ms)
{
    tk_impl *k = tk_of(t);
    if (!k->mock) {
        tickit_term_input_wait_msec(k->tt, timeout_ms);
        return true;
    }
    /* The mock has no input fd: only a pending partial key (a lone ESC) can still
     * turn into an event, after libtermkey's delay. */
    int ms = tickit_term_input_check_timeout_msec(k->tt);
    if (ms < 0)
        return false;
    if (timeout_ms >= 0 && timeout_ms < ms)
        ms = timeout_ms;
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    return true;
}

static void
tk_close(termio *t)
{
    tk_impl *k = tk_of(t);
    if (k->mock || !k->tt)
        return;  /* a mock stays inspectable until termio_free */
    tickit_term_observe_sigwinch(k->tt, false);
    tickit_term_teardown(k->tt);  /* modes off, termios back, flushed */
    tickit_term_destroy(k->tt);
    k->tt = NULL;
}

static void
tk_destroy(termio *t)
{
    tk_impl *k = tk_of(t);
    if (k->tt)
        tickit_term_destroy(k->tt);
    for (int i = 0; i < STYLE_COUNT; i++)
        if (k->pens[i])
            tickit_pen_unref(k->pens[i]);
    x_free(k->buf);
    x_free(k);
}

static const termio_ops tk_ops = {
    "tickit", tk_begin, tk_draw, tk_end, tk_wait, tk_close, tk_destroy,
};

static const termio_ops tk_mock_ops = {
    "mock", tk_begin, tk_draw, tk_end, tk_wait, tk_close, tk_destroy,
};

static TickitPen *
tk_pen_for(theme_mode mode, unsigned style)
{
    theme_look look = theme_get(mode, style);
    TickitPen *pen = tickit_pen_new();  /* owned by the caller's pen table */
    if (look.fg >= 0)
        tickit_pen_set_colour_attr(pen, TICKIT_PEN_FG, look.fg);
    if (look.bg >= 0)
        tickit_pen_set_colour_attr(pen, TICKIT_PEN_BG, look.bg);
    if (look.attrs & THEME_BOLD)
        tickit_pen_set_bool_attr(pen, TICKIT_PEN_BOLD, true);
    if (look.attrs & THEME_UNDER)
        tickit_pen_set_int_attr(pen, TICKIT_PEN_UNDER, TICKIT_PEN_UNDER_SINGLE);
    if (look.attrs & THEME_REVERSE)
        tickit_pen_set_bool_attr(pen, TICKIT_PEN_REVERSE, true);
    return pen;
}

/* With k->tt built: choose the mode, make the pens, learn the size, bind events. */
static void
tk_setup(termio *t, const termio_opts *opts)
{
    tk_impl *k = tk_of(t);
    int colours = 0;
    if (!tickit_term_getctl_int(k->tt, TICKIT_TERMCTL_COLORS, &colours))
        colours = 8;
    t->mode = termio_pick_mode(opts, colours);
    for (int i = 0; i < STYLE_COUNT; i++)
        k->pens[i] = tk_pen_for(t->mode, (unsigned)i);
    k->cur_style = -1;
    int lines = 0, cols = 0;
    tickit_term_get_size(k->tt, &lines, &cols);
    t->cols = cols;
    t->lines = lines;
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_KEY, 0, tk_on_key, t);
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_MOUSE, 0, tk_on_mouse, t);
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_RESIZE, 0, tk_on_resize, t);
}

termio *
termio_open_tickit(const termio_opts *opts, char *err, size_t errlen)
{
    termio_opts o = opts ? *opts : termio_default_opts();
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        termio_errf(err, errlen, "stdin and stdout must be a terminal");
        return NULL;
    }
    tk_impl *k = xcalloc(1, sizeof *k);           /* owned by t from here on */
    termio *t = termio_new(&tk_ops, k, THEME_MONO, 0, 0);
    /* Claim first: building the TickitTerm already switches the tty to raw mode. */
    if (!termio_claim_terminal(t, STDIN_FILENO, STDOUT_FILENO, err, errlen)) {
        termio_free(t);
        return NULL;
    }
    struct TickitTermBuilder b = {
        .open = TICKIT_OPEN_FDS,
        .input_fd = STDIN_FILENO,
        .output_fd = STDOUT_FILENO,
        .output_buffersize = 65536,
        .ti_hook = &tk_ti_hook,
    };
    k->tt = tickit_term_build(&b);
    if (!k->tt) {
        const char *term = getenv("TERM");
        termio_errf(err, errlen, "libtickit cannot drive TERM=%s", term ? term : "(unset)");
        termio_free(t);
        return NULL;
    }
    if (strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
        tickit_term_set_utf8(k->tt, true);
    /* libtermkey leaves ISIG on; like curses raw(), read C-c (and C-z, C-\) as keys.
     * Teardown restores the termios libtermkey saved before this. */
    struct termios tio;
    if (tcgetattr(STDIN_FILENO, &tio) == 0) {
        tio.c_lflag &= ~(tcflag_t)ISIG;
        tcsetattr(STDIN_FILENO, TCSANOW, &tio);
    }
    tickit_term_await_started_msec(k->tt, 50);
    tickit_term_setctl_int(k->tt, TICKIT_TERMCTL_ALTSCREEN, 1);
    tickit_term_setctl_int(k->tt, TICKIT_TERMCTL_CURSORVIS, 0);
    if (o.mouse)
        tickit_term_setctl_int(k->tt, TICKIT_TERMCTL_MOUSE, TICKIT_TERM_MOUSEMODE_DRAG);
    tickit_term_observe_sigwinch(k->tt, true);
    tk_setup(t, &o);
    tickit_term_flush(k->tt);
    return t;
}

termio *
termio_open_mock(int cols, int lines, const termio_opts *opts)
{
    termio_opts o = opts ? *opts : termio_default_opts();
    if (cols < 1)
        cols = 1;
    if (lines < 1)
        lines = 1;
    tk_impl *k = xcalloc(1, sizeof *k);           /* owned by t */
    k->mock = true;
    k->tt = tickit_mockterm_new(lines, cols);
    tickit_term_set_utf8(k->tt, true);
    termio *t = termio_new(&tk_mock_ops, k, THEME_MONO, cols, lines);
    tk_setup(t, &o);
    return t;
}

TickitMockTerm *
termio_mock_term(termio *t)
{
    return t->ops == &tk_mock_ops ? tk_of(t)->tt : NULL;
}

void
termio_mock_input(termio *t, const char *bytes, size_t len)
{
    if (t->ops == &tk_mock_ops)
        tickit_term_input_push_bytes(tk_of(t)->tt, bytes, len);
}

void
termio_mock_mouse(termio *t, int type, int button, int line, int col, int mods)
{
    if (t->ops != &tk_mock_ops)
        return;
    TickitMouseEventInfo info = {
        .type = (TickitMouseEventType)type, .button = button, .mod = mods,
        .line = line, .col = col,
    };
    tickit_term_emit_mouse(tk_of(t)->tt, &info);
}

void
termio_mock_resize(termio *t, int cols, int lines)
{
    if (t->ops == &tk_mock_ops && cols > 0 && lines > 0)
        tickit_mockterm_resize(tk_of(t)->tt, lines, cols);
}
