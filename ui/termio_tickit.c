/* termio_tickit: the libtickit backend, driving a TickitTerm directly (no Tickit
 * windows): one TickitPen per style, goto/setpen/print per changed run. Input is read
 * here and passed to libtermkey through the byte gate (termio_seq.c), whole keys only.
 * The same code drives an in-memory TickitMockTerm for headless tests
 * (termio_open_mock), on a clock of its own that waits cost nothing. */
#include <errno.h>
#include <stdio.h>
#include <langinfo.h>
#include <poll.h>
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

/* Whole keys handed to libtermkey at once (at most; one longer key goes alone). */
#define TK_BATCH 32

typedef struct tk_impl {
    TickitTerm *tt;                 /* owned; NULL once a real terminal is closed */
    bool mock;
    int in_fd;                      /* the terminal's input, -1 for the mock */
    termio_seq seq;                 /* bytes read, not yet given to libtermkey */
    int64_t mock_now_ms;            /* the mock's clock */
    size_t pending_bytes;           /* given while libtermkey held a partial key */
    unsigned termkey_resets;        /* times libtermkey had to be rebuilt (never, we hope) */
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

/* libtermkey's names for keys that every other program calls something else: ESC [1~
 * and ESC [4~ (Home and End on the Linux console, screen, tmux and rxvt) are the VT220
 * Find and Select keys to it; a modified space is "C- ". */
static const struct {
    const char *from, *to;
} tk_renames[] = {
    { "Find", "Home" }, { "Select", "End" }, { " ", "Space" },
};

static void
tk_key_name(const TickitKeyEventInfo *info, termio_event *ev)
{
    const char *s = info->str ? info->str : "";
    if (info->type == TICKIT_KEYEV_TEXT) {
        termio_set_key(ev, strcmp(s, " ") == 0 ? "Space" : s);
        return;
    }
    /* The base name follows the modifier prefixes ("M-" "C-" "S-"). */
    const char *base = s;
    while ((base[0] == 'M' || base[0] == 'C' || base[0] == 'S') && base[1] == '-' && base[2])
        base += 2;
    for (size_t i = 0; i < sizeof tk_renames / sizeof tk_renames[0]; i++) {
        if (strcmp(base, tk_renames[i].from) != 0)
            continue;
        char name[TERMIO_KEY_MAX];
        snprintf(name, sizeof name, "%.*s%s", (int)(base - s), s, tk_renames[i].to);
        termio_set_key(ev, name);
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

static int64_t
tk_now_ms(const tk_impl *k)
{
    if (k->mock)
        return k->mock_now_ms;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* libtermkey leaves ISIG on; like curses raw(), read C-c (and C-z, C-\) as keys.
 * Needed whenever libtermkey (re)starts. */
static void
tk_keys_not_signals(const tk_impl *k)
{
    struct termios tio;
    if (k->in_fd >= 0 && tcgetattr(k->in_fd, &tio) == 0) {
        tio.c_lflag &= ~(tcflag_t)ISIG;
        tcsetattr(k->in_fd, TCSANOW, &tio);
    }
}

/* Give libtermkey whole keys. Should it still hold a partial one across more than a
 * key's worth of bytes (its reading and ours disagree), it is rebuilt empty rather
 * than left to fill its buffer and stop reading for good. */
static void
tk_push(termio *t, const unsigned char *bytes, size_t n)
{
    tk_impl *k = tk_of(t);
    tickit_term_input_push_bytes(k->tt, (const char *)bytes, n);
    if (tickit_term_input_check_timeout_msec(k->tt) < 0) {
        k->pending_bytes = 0;
        return;
    }
    k->pending_bytes += n;
    if (k->pending_bytes > TERMIO_SEQ_MAX) {
        tickit_term_set_input_fd(k->tt, k->in_fd);
        tk_keys_not_signals(k);
        k->pending_bytes = 0;
        k->termkey_resets++;
    }
}

/* Move what the gate lets through into libtermkey (and so into the queue), leaving
 * room in the queue for a burst's worth of keys. */
static void
tk_pump(termio *t)
{
    tk_impl *k = tk_of(t);
    unsigned char out[TERMIO_SEQ_MAX];
    int64_t now = tk_now_ms(k);
    while (t->q_len < TERMIO_QUEUE / 2) {
        size_t escapes;
        size_t n = termio_seq_take(&k->seq, out, TK_BATCH, now, &escapes);
        if (n)
            tk_push(t, out, n);
        for (size_t i = 0; i < escapes; i++) {
            termio_event ev;
            memset(&ev, 0, sizeof ev);
            ev.kind = TERMIO_EV_KEY;
            termio_set_key(&ev, "Escape");
            termio_push(t, &ev);
        }
        if (!n)
            break;
    }
    /* libtermkey's own timer (a partial terminfo key) fires in here when due; what it
     * held after the forced key is read by an empty push. */
    if (k->pending_bytes && tickit_term_input_check_timeout_msec(k->tt) < 0) {
        k->pending_bytes = 0;
        tickit_term_input_push_bytes(k->tt, "", 0);
    }
}

/* The earlier of a and b, where -1 is never. */
static int
tk_min_timeout(int a, int b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    return a < b ? a : b;
}

static bool
tk_wait(termio *t, int timeout_ms)
{
    tk_impl *k = tk_of(t);
    if (termio_seq_ready(&k->seq)) {
        tk_pump(t);             /* keys left over from a burst */
        return true;
    }
    int64_t now = tk_now_ms(k);
    int held = termio_seq_timeout_ms(&k->seq, now);
    if (k->mock) {
        /* No input fd: only kept partial keys can still turn into events. Their wait
         * costs nothing on the mock's clock; libtermkey's own takes real time. */
        if (held >= 0) {
            k->mock_now_ms += timeout_ms >= 0 && timeout_ms < held ? timeout_ms : held;
            tk_pump(t);
            return true;
        }
        int ms = tickit_term_input_check_timeout_msec(k->tt);
        if (ms < 0)
            return false;
        if (timeout_ms >= 0 && timeout_ms < ms)
            ms = timeout_ms;
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
        nanosleep(&ts, NULL);
        tk_pump(t);
        return true;
    }
    /* Also runs libtickit's resize check (SIGWINCH). */
    int wait = tk_min_timeout(timeout_ms, held);
    wait = tk_min_timeout(wait, tickit_term_input_check_timeout_msec(k->tt));
    if (t->input_gone) {
        struct timespec ts = { wait / 1000, (long)(wait % 1000) * 1000000L };
        if (wait > 0)
            nanosleep(&ts, NULL);
        return true;
    }
    struct pollfd p = { .fd = k->in_fd, .events = POLLIN };
    if (poll(&p, 1, wait) > 0) {
        unsigned char buf[sizeof k->seq.buf];
        size_t room = termio_seq_room(&k->seq);
        ssize_t n = read(k->in_fd, buf, room < sizeof buf ? room : sizeof buf);
        if (n > 0)
            termio_seq_feed(&k->seq, buf, (size_t)n, tk_now_ms(k));
        else if (n == 0 || (errno != EINTR && errno != EAGAIN))
            termio_input_gone(t);
    }
    tk_pump(t);
    tickit_term_input_check_timeout_msec(k->tt);
    return true;
}

static void
tk_pause(termio *t)
{
    tk_impl *k = tk_of(t);
    if (k->mock || !k->tt)
        return;
    tickit_term_pause(k->tt);   /* modes off, libtermkey's saved termios back */
    tickit_term_flush(k->tt);
}

static void
tk_resume(termio *t)
{
    tk_impl *k = tk_of(t);
    if (k->mock || !k->tt)
        return;
    tickit_term_resume(k->tt);  /* raw mode, then the modes that were on */
    tk_keys_not_signals(k);
    tickit_term_refresh_size(k->tt);
    int lines = 0, cols = 0;
    tickit_term_get_size(k->tt, &lines, &cols);
    termio_resized(t, cols, lines);
    t->force_hard = true;
    tickit_term_flush(k->tt);
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
    "tickit", tk_begin, tk_draw, tk_end, tk_wait, tk_pause, tk_resume, tk_close, tk_destroy,
};

static const termio_ops tk_mock_ops = {
    "mock", tk_begin, tk_draw, tk_end, tk_wait, tk_pause, tk_resume, tk_close, tk_destroy,
};

static TickitPen *
tk_pen_for(const theme_table *styles, theme_mode mode, unsigned style)
{
    theme_look look = theme_table_get(styles, mode, style);
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
        k->pens[i] = tk_pen_for(opts ? opts->styles : NULL, t->mode, (unsigned)i);
    k->cur_style = -1;
    int lines = 0, cols = 0;
    tickit_term_get_size(k->tt, &lines, &cols);
    t->cols = cols;
    t->lines = lines;
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_KEY, 0, tk_on_key, t);
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_MOUSE, 0, tk_on_mouse, t);
    tickit_term_bind_event(k->tt, TICKIT_TERM_ON_RESIZE, 0, tk_on_resize, t);
}

/* The terminfo strings libtickit 0.4.3's terminfo driver aborts without (it has its
 * own for ech and dch); TERM=xterm and xterm-* get its xterm driver, which needs none. */
static const char *const tk_required_caps[] = {
    "cup", "cuu", "cud", "cuf", "cub", "ich", "il", "dl", "clear", "csr", "sgr", "sgr0",
    "setaf", "setab", "cnorm", "civis",
};

static bool
tk_can_drive(const char *term, char *err, size_t errlen)
{
    if (!term || !*term) {
        termio_errf(err, errlen, "TERM is not set");
        return false;
    }
    if (strncmp(term, "xterm", 5) == 0 && (term[5] == '\0' || term[5] == '-'))
        return true;
    const char *missing;
    if (!termio_caps_missing(term, tk_required_caps,
                             sizeof tk_required_caps / sizeof tk_required_caps[0], &missing)) {
        termio_errf(err, errlen, "libtickit cannot drive TERM=%s (no terminfo entry)", term);
        return false;
    }
    if (missing) {
        termio_errf(err, errlen, "libtickit cannot drive TERM=%s (no %s)",
                    term, missing);
        return false;
    }
    return true;
}

termio *
termio_open_tickit(const termio_opts *opts, char *err, size_t errlen)
{
    termio_opts o = opts ? *opts : termio_default_opts();
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        termio_errf(err, errlen, "stdin and stdout must be a terminal");
        return NULL;
    }
    if (!tk_can_drive(getenv("TERM"), err, errlen))
        return NULL;
    tk_impl *k = xcalloc(1, sizeof *k);           /* owned by t from here on */
    k->in_fd = STDIN_FILENO;
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
    bool utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
    tickit_term_set_utf8(k->tt, utf8);
    termio_seq_init(&k->seq, utf8);
    tk_keys_not_signals(k);
    /* libtickit reads the terminal's answers to its queries itself, for 50 ms; from
     * then on input goes through the gate (tk_wait). */
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
    k->in_fd = -1;
    /* The mock reads keys as TERM says; a type terminfo has no entry for leaves only
     * libtermkey's own CSI reading, the same in every environment (and no xterm
     * key_mouse "\033[<", which the real terminal's hook takes away too). */
    const char *env = getenv("TERM");
    char *was = env ? xstrdup(env) : NULL;
    setenv("TERM", "elog-mock", 1);
    k->tt = tickit_mockterm_new(lines, cols);
    if (was)
        setenv("TERM", was, 1);
    else
        unsetenv("TERM");
    x_free(was);
    tickit_term_set_utf8(k->tt, true);
    termio_seq_init(&k->seq, true);
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
    if (t->ops != &tk_mock_ops)
        return;
    tk_impl *k = tk_of(t);
    while (len > 0) {
        if (termio_seq_room(&k->seq) == 0) {
            /* A reader would stop reading until keys are taken; the test cannot
             * wait, so what does not fit is dropped as a full queue drops it. */
            tk_pump(t);
            if (termio_seq_room(&k->seq) == 0)
                return;
        }
        size_t room = termio_seq_room(&k->seq);
        size_t n = len < room ? len : room;
        termio_seq_feed(&k->seq, bytes, n, k->mock_now_ms);
        bytes += n;
        len -= n;
        tk_pump(t);
    }
}

void
termio_mock_advance(termio *t, int ms)
{
    if (t->ops != &tk_mock_ops || ms <= 0)
        return;
    tk_of(t)->mock_now_ms += ms;
    tk_pump(t);
}

unsigned
termio_mock_termkey_resets(termio *t)
{
    return t->ops == &tk_mock_ops ? tk_of(t)->termkey_resets : 0;
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
