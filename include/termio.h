/* termio: the terminal backend interface. A termio presents a surface (sending only
 * the cells that changed), reports keys, mouse, resizes and quit signals as
 * termio_events, and always gives the terminal back. Backends: ncursesw, libtickit,
 * and a libtickit TickitMockTerm for headless tests (ui/termio_mock.h). */
#ifndef ELOG_TERMIO_H
#define ELOG_TERMIO_H

#include <stdbool.h>
#include <stddef.h>

#include "surface.h"
#include "theme.h"

typedef struct termio termio;

typedef enum termio_event_kind {
    TERMIO_EV_KEY = 1,
    TERMIO_EV_MOUSE,
    TERMIO_EV_RESIZE,
    TERMIO_EV_QUIT,  /* a signal that ends the program arrived (SIGTERM, SIGINT, SIGHUP,
                      * SIGQUIT, SIGPIPE, SIGUSR1...), or the terminal hung up: close
                      * and exit with termio_signal_status(signal) */
} termio_event_kind;

typedef enum termio_mouse_action {
    TERMIO_MOUSE_PRESS = 1,
    TERMIO_MOUSE_DRAG,
    TERMIO_MOUSE_RELEASE,
    TERMIO_MOUSE_WHEEL_UP,
    TERMIO_MOUSE_WHEEL_DOWN,
} termio_mouse_action;

/* Modifier bits of keys and mouse events (the values libtickit uses). */
#define TERMIO_MOD_SHIFT 0x01
#define TERMIO_MOD_ALT   0x02
#define TERMIO_MOD_CTRL  0x04

#define TERMIO_KEY_MAX 32

typedef struct termio_event {
    termio_event_kind kind;
    /* KEY: the libtickit-style name, identical in every backend. Named keys: "Up"
     * "Down" "Left" "Right" "PageUp" "PageDown" "Home" "End" "Insert" "Delete"
     * "Enter" "Escape" "Tab" "Backspace" "F1".."F12" "Space"; printable characters
     * are their UTF-8 text ("a", "+", "?", "é"). Modifiers prefix in the order
     * "M-" "C-" "S-": "C-l", "C-c", "M-a", "S-Tab", "C-Left". Newline is "C-j". */
    char key[TERMIO_KEY_MAX];
    int mods;                       /* KEY and MOUSE: TERMIO_MOD_* bits */
    termio_mouse_action action;     /* MOUSE */
    int button;                     /* MOUSE: 1 left, 2 middle, 3 right; 0 for wheel */
    int col, line;                  /* MOUSE: 0-based cell */
    int cols, lines;                /* RESIZE: the new size */
    int signal;                     /* QUIT: the signal number (SIGHUP for a hang-up) */
} termio_event;

typedef struct termio_opts {
    bool mouse;        /* report mouse presses, drags, releases and the wheel */
    bool force_theme;  /* use `theme` instead of choosing from $NO_COLOR and colours */
    theme_mode theme;
    const theme_table *styles;  /* the styles' looks (settings), NULL for the defaults;
                                 * borrowed while the backend is opened */
} termio_opts;

/* Defaults: mouse on, theme chosen automatically. */
termio_opts termio_default_opts(void);

/* Open a backend on the controlling terminal (stdin and stdout must be ttys). On
 * failure return NULL with a message in err (errlen bytes, may be 0); a terminal
 * type the backend cannot drive (no cursor addressing, a terminfo string libtickit
 * requires) is such a failure, never an abort. Only one terminal backend may be open
 * at a time. `opts` may be NULL for the defaults. The caller must have called
 * setlocale(LC_ALL, "") first, or UTF-8 will not display (ncursesw) or decode
 * (libtickit). The tty is in raw mode: typing C-c, C-z or C-\ gives keys, not
 * signals. While open:
 *  - every catchable signal that would end the program (SIGINT, SIGTERM, SIGHUP,
 *    SIGQUIT, SIGPIPE, SIGUSR1/2, SIGALRM, real-time signals...) only sets a flag
 *    that termio_poll turns into TERMIO_EV_QUIT;
 *  - SIGTSTP (kill -TSTP) suspends as termio_suspend does, inside termio_poll;
 *  - SIGCONT after an outside SIGSTOP makes termio_poll take the terminal again
 *    (raw mode, modes, a full repaint: a RESIZE event is queued);
 *  - an atexit hook, and a hook on SIGABRT and the fault signals nobody else handles,
 *    put the terminal back if the program ends without termio_close.
 * Closing restores the tty settings exactly as they were at opening.
 * Caller frees with termio_free. */
termio *termio_open_curses(const termio_opts *opts, char *err, size_t errlen);
termio *termio_open_tickit(const termio_opts *opts, char *err, size_t errlen);
/* termio_open_curses or _tickit by name ("curses", "tickit"); when that backend
 * cannot drive $TERM but the other can, the other, with a one-line explanation in
 * note (notelen bytes, "" when none). NULL with a message naming TERM in err when
 * neither can. */
termio *termio_open_backend(const char *name, const termio_opts *opts, char *note,
                            size_t notelen, char *err, size_t errlen);
/* A libtickit backend drawing into an in-memory cols x lines TickitMockTerm, for
 * tests; it reports 256 colours. Never fails. Caller frees with termio_free. */
termio *termio_open_mock(int cols, int lines, const termio_opts *opts);

/* Give the terminal back (leave raw mode, alternate screen and mouse reporting,
 * show the cursor, restore signal handlers). Idempotent; afterwards present and
 * poll do nothing. */
void termio_close(termio *t);
/* Close if needed and free. termio_free(NULL) is a no-op. */
void termio_free(termio *t);

/* "curses", "tickit" or "mock". */
const char *termio_backend_name(const termio *t);
/* The terminal size as of the last RESIZE event (or opening). */
void termio_size(const termio *t, int *cols, int *lines);
theme_mode termio_theme_mode(const termio *t);

/* Show `s`. Only cells that differ from the previously presented surface are sent;
 * everything is sent the first time, after a resize, when the surface size changes
 * and after termio_force_redraw. Cells beyond the terminal are clipped; terminal
 * cells beyond the surface are blanked on a full redraw. */
void termio_present(termio *t, const surface *s);
/* Give the terminal back (as at opening), stop the process with SIGTSTP as a shell
 * job, and when continued take the terminal again; a RESIZE event is queued so the
 * caller redraws. Nothing for a mock. */
void termio_suspend(termio *t);
/* The exit status for a program ended by `sig` (128 + sig), 0 for no signal. */
int termio_signal_status(int sig);

/* Make the next present clear the terminal and send every cell (for C-l). */
void termio_force_redraw(termio *t);
/* Ask the terminal to put `text` on the clipboard (OSC 52; terminals without it ignore
 * the sequence). Does nothing without a claimed terminal (the mock). */
void termio_send_clipboard(termio *t, const char *text);
/* Cells sent by the last present (for tests and diagnostics). */
size_t termio_cells_sent(const termio *t);

/* Wait up to timeout_ms (-1: forever, 0: just look) for one event. Returns 1 with
 * *ev filled, or 0 on timeout. After a RESIZE event termio_size reports the new
 * size and the next present is a full redraw. */
int termio_poll(termio *t, int timeout_ms, termio_event *ev);

#endif
