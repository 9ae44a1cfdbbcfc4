/* termio_curses: the ncursesw backend. Changed runs become cchar_t arrays written with
 * mvadd_wchnstr (no wrap, safe in the bottom-right cell); keys and mouse reports are
 * renamed to the libtickit names the tickit backend produces, so keymaps are shared. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "termio_int.h"
#include "termio_mock.h"
#include "xalloc.h"

typedef struct cu_impl {
    SCREEN *scr;                    /* owned; freed with delscreen */
    FILE *out, *in;                 /* the terminal (stdout, stdin), or owned pipe ends */
    bool own_files;
    bool started;                   /* between newterm and endwin */
    bool mouse;
    bool mouse_drag_pending;        /* 1002h not yet sent (see cu_end) */
    attr_t attrs[STYLE_COUNT];
    short pairs[STYLE_COUNT];
    cchar_t *run;                   /* owned; cells of the run being drawn */
    size_t run_cap;
    int held_button;                /* for reporting motion as DRAG; 0 none */
} cu_impl;

static cu_impl *
cu_of(const termio *t)
{
    return t->impl;
}

static void
cu_push_key(termio *t, const char *name, int mods)
{
    termio_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TERMIO_EV_KEY;
    ev.mods = mods;
    termio_set_key(&ev, name);
    termio_push(t, &ev);
}

/* "M-" "C-" "S-" in libtickit's order, then `base`. */
static void
cu_push_modkey(termio *t, const char *base, int mods)
{
    char name[TERMIO_KEY_MAX];
    snprintf(name, sizeof name, "%s%s%s%s", (mods & TERMIO_MOD_ALT) ? "M-" : "",
             (mods & TERMIO_MOD_CTRL) ? "C-" : "", (mods & TERMIO_MOD_SHIFT) ? "S-" : "",
             base);
    cu_push_key(t, name, mods);
}

/* A character (not a function key) as a key event; `alt` when it followed ESC. */
static void
cu_char_key(termio *t, wint_t wc, bool alt)
{
    int mods = alt ? TERMIO_MOD_ALT : 0;
    char base[8];
    switch (wc) {
    case 13:
        cu_push_modkey(t, "Enter", mods);
        return;
    case 9:
        cu_push_modkey(t, "Tab", mods);
        return;
    case 27:
        cu_push_modkey(t, "Escape", mods);
        return;
    case 127:
        cu_push_modkey(t, "Backspace", mods);
        return;
    case 32:
        cu_push_modkey(t, "Space", mods);
        return;
    case 0:
        cu_push_modkey(t, "Space", mods | TERMIO_MOD_CTRL);
        return;
    default:
        break;
    }
    if (wc < 32) {
        base[0] = wc <= 26 ? (char)('a' + wc - 1) : "\\]^_"[wc - 28];
        base[1] = '\0';
        cu_push_modkey(t, base, mods | TERMIO_MOD_CTRL);
        return;
    }
    size_t n = surface_utf8_encode((uint32_t)wc, base);
    base[n] = '\0';
    cu_push_modkey(t, base, mods);
}

static const struct {
    const char *cap;  /* ncurses extended key name stem, e.g. "kLFT" in "kLFT5" */
    const char *name;
} cu_ext_keys[] = {
    { "kUP", "Up" }, { "kDN", "Down" }, { "kLFT", "Left" }, { "kRIT", "Right" },
    { "kHOM", "Home" }, { "kEND", "End" }, { "kPRV", "PageUp" }, { "kNXT", "PageDown" },
    { "kDC", "Delete" }, { "kIC", "Insert" },
};

/* Modified keys ncurses only knows by terminfo extension name ("kLFT5" = C-Left):
 * the digit is xterm's modifier parameter, 1 + (shift | alt << 1 | ctrl << 2). */
static void
cu_ext_key(termio *t, int code)
{
    const char *kn = keyname(code);
    if (!kn)
        return;
    for (size_t i = 0; i < sizeof cu_ext_keys / sizeof cu_ext_keys[0]; i++) {
        size_t n = strlen(cu_ext_keys[i].cap);
        if (strncmp(kn, cu_ext_keys[i].cap, n) != 0 || kn[n] < '2' || kn[n] > '8' ||
            kn[n + 1] != '\0')
            continue;
        int bits = kn[n] - '1';
        int mods = ((bits & 1) ? TERMIO_MOD_SHIFT : 0) | ((bits & 2) ? TERMIO_MOD_ALT : 0) |
                   ((bits & 4) ? TERMIO_MOD_CTRL : 0);
        cu_push_modkey(t, cu_ext_keys[i].name, mods);
        return;
    }
}

static void
cu_mouse(termio *t)
{
    cu_impl *k = cu_of(t);
    MEVENT me;
    if (getmouse(&me) != OK)
        return;
    termio_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TERMIO_EV_MOUSE;
    ev.col = me.x;
    ev.line = me.y;
    mmask_t b = me.bstate;
    ev.mods = ((b & BUTTON_SHIFT) ? TERMIO_MOD_SHIFT : 0) |
              ((b & BUTTON_ALT) ? TERMIO_MOD_ALT : 0) | ((b & BUTTON_CTRL) ? TERMIO_MOD_CTRL : 0);
    if (b & BUTTON4_PRESSED) {
        ev.action = TERMIO_MOUSE_WHEEL_UP;
#ifdef BUTTON5_PRESSED
    } else if (b & BUTTON5_PRESSED) {
        ev.action = TERMIO_MOUSE_WHEEL_DOWN;
#endif
    } else if (b & (BUTTON1_PRESSED | BUTTON2_PRESSED | BUTTON3_PRESSED)) {
        ev.action = TERMIO_MOUSE_PRESS;
        ev.button = (b & BUTTON1_PRESSED) ? 1 : (b & BUTTON2_PRESSED) ? 2 : 3;
        k->held_button = ev.button;
    } else if (b & (BUTTON1_RELEASED | BUTTON2_RELEASED | BUTTON3_RELEASED)) {
        ev.action = TERMIO_MOUSE_RELEASE;
        ev.button = (b & BUTTON1_RELEASED) ? 1 : (b & BUTTON2_RELEASED) ? 2 : 3;
        k->held_button = 0;
    } else if ((b & REPORT_MOUSE_POSITION) && k->held_button) {
        ev.action = TERMIO_MOUSE_DRAG;
        ev.button = k->held_button;
    } else {
        return;
    }
    termio_push(t, &ev);
}

static void
cu_function_key(termio *t, int code)
{
    static const struct {
        int code;
        const char *name;
    } keys[] = {
        { KEY_UP, "Up" }, { KEY_DOWN, "Down" }, { KEY_LEFT, "Left" }, { KEY_RIGHT, "Right" },
        { KEY_PPAGE, "PageUp" }, { KEY_NPAGE, "PageDown" }, { KEY_HOME, "Home" },
        { KEY_END, "End" }, { KEY_IC, "Insert" }, { KEY_DC, "Delete" },
        { KEY_BACKSPACE, "Backspace" }, { KEY_ENTER, "Enter" }, { KEY_BTAB, "S-Tab" },
        { KEY_SLEFT, "S-Left" }, { KEY_SRIGHT, "S-Right" }, { KEY_SR, "S-Up" },
        { KEY_SF, "S-Down" }, { KEY_SHOME, "S-Home" }, { KEY_SEND, "S-End" },
        { KEY_SDC, "S-Delete" }, { KEY_SIC, "S-Insert" }, { KEY_SNEXT, "S-PageDown" },
        { KEY_SPREVIOUS, "S-PageUp" },
        /* Terminals whose terminfo calls ESC [1~ and ESC [4~ the VT220 Find and
         * Select keys send them for Home and End. */
        { KEY_FIND, "Home" }, { KEY_SELECT, "End" }, { KEY_BEG, "Home" },
    };
    if (code == KEY_RESIZE) {
        int lines, cols;
        getmaxyx(stdscr, lines, cols);
        termio_resized(t, cols, lines);
        return;
    }
    if (code == KEY_MOUSE) {
        cu_mouse(t);
        return;
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (keys[i].code == code) {
            cu_push_key(t, keys[i].name,
                        strncmp(keys[i].name, "S-", 2) == 0 ? TERMIO_MOD_SHIFT : 0);
            return;
        }
    }
    if (code >= KEY_F(1) && code <= KEY_F(60)) {
        /* Terminfo numbers shifted function keys F13..F24, control F25.., and so on. */
        static const int group_mods[] = {
            0, TERMIO_MOD_SHIFT, TERMIO_MOD_CTRL, TERMIO_MOD_CTRL | TERMIO_MOD_SHIFT,
            TERMIO_MOD_ALT,
        };
        int n = code - KEY_F(0) - 1;
        char base[8];
        snprintf(base, sizeof base, "F%d", n % 12 + 1);
        cu_push_modkey(t, base, group_mods[n / 12]);
        return;
    }
    cu_ext_key(t, code);
}

static void
cu_begin(termio *t, bool full, bool hard)
{
    (void)t;
    if (full)
        werase(stdscr);
    if (hard)
        clearok(curscr, TRUE);
}

static void
cu_draw(termio *t, const surface *s, int col, int line, int n, uint8_t style)
{
    cu_impl *k = cu_of(t);
    if ((size_t)n > k->run_cap) {
        k->run = xreallocarray(k->run, (size_t)n, sizeof *k->run);  /* owned by k */
        k->run_cap = (size_t)n;
    }
    int st = style < STYLE_COUNT ? style : STYLE_DEFAULT;
    for (int i = 0; i < n; i++) {
        wchar_t w[2] = { (wchar_t)surface_get(s, col + i, line).cp, L'\0' };
        setcchar(&k->run[i], w, k->attrs[st], k->pairs[st], NULL);
    }
    mvadd_wchnstr(line, col, k->run, n);
}

static void
cu_end(termio *t)
{
    cu_impl *k = cu_of(t);
    wnoutrefresh(stdscr);
    doupdate();
    if (k->mouse_drag_pending) {
        /* Button-event tracking, so drags are reported. ncurses queues its own mouse
         * mode (1000) for the first update; sending ours earlier would be undone. */
        fputs("\033[?1002h", k->out);
        fflush(k->out);
        k->mouse_drag_pending = false;
    }
}

/* The next character if one has already arrived (no waiting), else false. */
static bool
cu_next_now(wint_t *wc)
{
    wtimeout(stdscr, 0);
    return wget_wch(stdscr, wc) == OK;
}

/* ESC [ (or ESC O, ESC ]) came as characters: ncurses did not know the sequence. Read
 * what has already arrived of it and drop it, so an unknown key, a report or a long
 * burst of noise does not turn into a stream of keys ('m' opening the marker list);
 * true if it was a sequence, false if ESC and `intro` were typed alone (Alt). */
static bool
cu_skip_unknown(wint_t intro)
{
    wint_t c;
    if (!cu_next_now(&c))
        return false;
    if (intro == 'O')
        return true;                    /* SS3: one character */
    if (intro == ']') {
        /* OSC: to BEL, ST or ESC \, or as far as has arrived. */
        while (c != 7 && c != 0x9c) {
            if (c == 27) {
                cu_next_now(&c);
                return true;
            }
            if (!cu_next_now(&c))
                return true;
        }
        return true;
    }
    /* CSI: parameter and intermediate bytes, then one final byte. */
    while (c >= 0x20 && c < 0x40) {
        if (!cu_next_now(&c))
            return true;
    }
    if (!(c >= 0x40 && c < 0x7f))
        unget_wch((wchar_t)c);          /* not part of it: a key of its own */
    return true;
}

static bool
cu_wait(termio *t, int timeout_ms)
{
    wtimeout(stdscr, timeout_ms);
    wint_t wc;
    int r = wget_wch(stdscr, &wc);
    if (r == KEY_CODE_YES) {
        cu_function_key(t, (int)wc);
    } else if (r == OK && wc == 27) {
        /* ESC then a character at once is Alt+character. */
        wint_t wc2;
        wtimeout(stdscr, 0);
        int r2 = wget_wch(stdscr, &wc2);
        if (r2 == OK && (wc2 == '[' || wc2 == 'O' || wc2 == ']') && cu_skip_unknown(wc2)) {
            /* an unknown escape sequence: nothing */
        } else if (r2 == OK && wc2 >= 32 && wc2 != 127) {
            cu_char_key(t, wc2, true);
        } else {
            cu_char_key(t, 27, false);
            if (r2 == OK)
                cu_char_key(t, wc2, false);
            else if (r2 == KEY_CODE_YES)
                cu_function_key(t, (int)wc2);
        }
    } else if (r == OK) {
        cu_char_key(t, wc, false);
    }
    return true;
}

static void
cu_pause(termio *t)
{
    cu_impl *k = cu_of(t);
    if (!k->started)
        return;
    if (k->mouse) {
        fputs("\033[?1002l", k->out);
        fflush(k->out);
    }
    curs_set(1);
    endwin();       /* shell's tty mode, main screen, keypad and mouse off */
    fflush(k->out);
}

static void
cu_resume(termio *t)
{
    cu_impl *k = cu_of(t);
    if (!k->started)
        return;
    /* A size change while away comes as KEY_RESIZE (ncurses' SIGWINCH handler). */
    reset_prog_mode();
    curs_set(0);
    clearok(curscr, TRUE);
    doupdate();     /* back to raw mode, the alternate screen and keypad mode */
    if (k->mouse) {
        mousemask(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION, NULL);
        k->mouse_drag_pending = true;
    }
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    termio_resized(t, cols, rows);
    t->force_hard = true;
}

static void
cu_close(termio *t)
{
    cu_impl *k = cu_of(t);
    if (!k->started)
        return;
    if (k->mouse)
        mousemask(0, NULL);
    cu_pause(t);
    k->started = false;
}

static void
cu_destroy(termio *t)
{
    cu_impl *k = cu_of(t);
    if (k->scr)
        delscreen(k->scr);
    if (k->own_files) {
        fclose(k->in);
        fclose(k->out);
    }
    x_free(k->run);
    x_free(k);
}

static const termio_ops cu_ops = {
    "curses", cu_begin, cu_draw, cu_end, cu_wait, cu_pause, cu_resume, cu_close, cu_destroy,
};

/* Home and End as every common terminal sends them, whatever its terminfo says: VT220
 * and Linux console (ESC [1~ ESC [4~), rxvt (ESC [7~ ESC [8~), xterm in normal and in
 * keypad mode (ESC [H ESC [F, ESC O H ESC O F). khome and kend are ncurses' own. An
 * escape sequence ncurses does not know is dropped whole (cu_skip_unknown). */
static const struct {
    const char *seq;
    int code;
} cu_home_end[] = {
    { "\033[1~", KEY_HOME }, { "\033[7~", KEY_HOME }, { "\033[H", KEY_HOME },
    { "\033OH", KEY_HOME },  { "\033[4~", KEY_END },  { "\033[8~", KEY_END },
    { "\033[F", KEY_END },   { "\033OF", KEY_END },
    /* The arrows in normal cursor mode, for terminals that ignore keypad mode. */
    { "\033[A", KEY_UP },    { "\033[B", KEY_DOWN },  { "\033[C", KEY_RIGHT },
    { "\033[D", KEY_LEFT },
};

static void
cu_define_keys(void)
{
    for (size_t i = 0; i < sizeof cu_home_end / sizeof cu_home_end[0]; i++)
        if (key_defined(cu_home_end[i].seq) <= 0)
            define_key(cu_home_end[i].seq, cu_home_end[i].code);
}

/* Without cursor addressing ncurses draws line after line of garbage (TERM=dumb). */
static bool
cu_can_drive(const char *term, char *err, size_t errlen)
{
    static const char *const need[] = { "cup" };
    const char *missing;
    if (!term || !*term) {
        termio_errf(err, errlen, "TERM is not set");
        return false;
    }
    if (!termio_caps_missing(term, need, 1, &missing)) {
        termio_errf(err, errlen, "ncurses cannot drive TERM=%s (no terminfo entry)", term);
        return false;
    }
    if (missing) {
        termio_errf(err, errlen, "TERM=%s cannot move the cursor (its terminfo has no %s): "
                    "the viewer needs a terminal such as xterm-256color", term, missing);
        return false;
    }
    return true;
}

static void
cu_setup_styles(termio *t, cu_impl *k, const theme_table *styles)
{
    bool default_colours = use_default_colors() == OK;
    for (int i = 0; i < STYLE_COUNT; i++) {
        theme_look look = theme_table_get(styles, t->mode, (unsigned)i);
        attr_t a = A_NORMAL;
        if (look.attrs & THEME_BOLD)
            a |= A_BOLD;
        if (look.attrs & THEME_UNDER)
            a |= A_UNDERLINE;
        if (look.attrs & THEME_REVERSE)
            a |= A_REVERSE;
        k->attrs[i] = a;
        k->pairs[i] = 0;
        if (t->mode == THEME_MONO)
            continue;
        int fg = look.fg, bg = look.bg;
        if (fg < 0 && !default_colours)
            fg = COLOR_WHITE;
        if (bg < 0 && !default_colours)
            bg = COLOR_BLACK;
        if (init_pair((short)(i + 1), (short)fg, (short)bg) == OK)
            k->pairs[i] = (short)(i + 1);
    }
}

/* With t made and the terminal claimed if it is one: start ncurses on k->in/k->out
 * as `termtype` (NULL: $TERM). NULL (t freed) on failure. */
static termio *
cu_start(termio *t, const termio_opts *opts, const char *termtype, char *err, size_t errlen)
{
    termio_opts o = opts ? *opts : termio_default_opts();
    cu_impl *k = cu_of(t);
    k->scr = newterm(termtype, k->out, k->in);
    if (!k->scr) {
        const char *term = termtype ? termtype : getenv("TERM");
        termio_errf(err, errlen, "ncurses cannot drive TERM=%s", term ? term : "(unset)");
        termio_free(t);
        return NULL;
    }
    set_term(k->scr);
    k->started = true;
    raw();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    leaveok(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    cu_define_keys();

    int colours = 0;
    if (has_colors() && start_color() == OK)
        colours = COLORS;
    t->mode = termio_pick_mode(&o, colours);
    cu_setup_styles(t, k, o.styles);

    if (o.mouse) {
        k->mouse = true;
        mousemask(ALL_MOUSE_EVENTS | REPORT_MOUSE_POSITION, NULL);
        mouseinterval(0);
        k->mouse_drag_pending = true;
    }
    getmaxyx(stdscr, t->lines, t->cols);
    return t;
}

termio *
termio_open_curses(const termio_opts *opts, char *err, size_t errlen)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        termio_errf(err, errlen, "stdin and stdout must be a terminal");
        return NULL;
    }
    if (!cu_can_drive(getenv("TERM"), err, errlen))
        return NULL;
    cu_impl *k = xcalloc(1, sizeof *k);          /* owned by t from here on */
    k->out = stdout;
    k->in = stdin;
    /* termio_new installs the quit-signal handlers before newterm, so ncurses keeps
     * its hands off SIGINT/SIGTERM (and SIGTSTP, claimed next). */
    termio *t = termio_new(&cu_ops, k, THEME_MONO, 0, 0);
    if (!termio_claim_terminal(t, STDIN_FILENO, STDOUT_FILENO, err, errlen)) {
        termio_free(t);
        return NULL;
    }
    return cu_start(t, opts, NULL, err, errlen);
}

termio *
termio_open_curses_fds(int in_fd, int out_fd, const char *termtype, char *err, size_t errlen)
{
    cu_impl *k = xcalloc(1, sizeof *k);          /* owned by t from here on */
    k->in = fdopen(in_fd, "r");
    k->out = fdopen(out_fd, "w");
    k->own_files = true;
    termio *t = termio_new(&cu_ops, k, THEME_MONO, 0, 0);
    if (!k->in || !k->out) {
        termio_errf(err, errlen, "cannot open the given file descriptors");
        if (k->in)
            fclose(k->in);
        if (k->out)
            fclose(k->out);
        k->own_files = false;
        termio_free(t);
        return NULL;
    }
    t = cu_start(t, NULL, termtype, err, errlen);
    if (t)
        set_escdelay(0);    /* the bytes are all there already */
    return t;
}
