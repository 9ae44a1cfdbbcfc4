/* termio_int: what the termio backends (termio_curses.c, termio_tickit.c) share with
 * the generic part (termio.c): the backend vtable, the termio struct, the event
 * queue and the terminal claim (signals, atexit and SIGABRT restore). */
#ifndef ELOG_TERMIO_INT_H
#define ELOG_TERMIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "termio.h"

#define TERMIO_QUEUE 64

typedef struct termio_ops {
    const char *name;
    /* Start a frame. `full`: blank the whole terminal in STYLE_DEFAULT first;
     * `hard`: the screen may hold garbage, repaint it physically (C-l). */
    void (*begin)(termio *t, bool full, bool hard);
    /* Send cells [col, col + n) of line `line` of `s`, which all have `style` and
     * lie inside both the surface and the terminal. */
    void (*draw)(termio *t, const surface *s, int col, int line, int n, uint8_t style);
    /* End a frame: flush to the terminal. */
    void (*end)(termio *t);
    /* Wait up to timeout_ms (-1 forever) for input, queueing events with
     * termio_push. May return early (a signal, a partial key). Returns false when
     * no input can ever arrive without the caller acting (the mock), so termio_poll
     * need not wait out its timeout. */
    bool (*wait)(termio *t, int timeout_ms);
    /* Give the terminal back; called once. */
    void (*close)(termio *t);
    /* Free the backend's data; called once, after close. */
    void (*destroy)(termio *t);
} termio_ops;

struct termio {
    const termio_ops *ops;
    void *impl;              /* backend data, freed by ops->destroy */
    bool claimed;            /* holds the real terminal (termio_claim_terminal) */
    bool closed;
    theme_mode mode;
    int cols, lines;
    surface *prev;           /* owned; what the terminal shows, NULL before a present */
    bool force_full;         /* next present sends everything */
    bool force_hard;         /* ... and repaints the terminal physically */
    size_t cells_sent;
    termio_event queue[TERMIO_QUEUE];
    size_t q_head, q_len;
};

/* A new termio in the given state; the caller (a backend opener) fills ops and impl
 * and owns the result. Installs the quit-signal handlers (removed by termio_close). */
termio *termio_new(const termio_ops *ops, void *impl, theme_mode mode, int cols, int lines);
/* Queue an event (a full queue drops it; RESIZE replaces a queued RESIZE). */
void termio_push(termio *t, const termio_event *ev);
/* The terminal is now cols x lines: record it, force a full redraw, queue RESIZE. */
void termio_resized(termio *t, int cols, int lines);
/* Become the one open real terminal: remember the termios of `in_fd` and the output
 * fd so the atexit and SIGABRT hooks can restore them. False (message in err) when
 * another terminal termio is open or `in_fd` is not a tty. */
bool termio_claim_terminal(termio *t, int in_fd, int out_fd, char *err, size_t errlen);
/* A theme mode: forced by opts (never more colourful than the terminal) or chosen
 * from $NO_COLOR and the colour count. */
theme_mode termio_pick_mode(const termio_opts *opts, int n_colours);
/* snprintf into err when errlen > 0. */
void termio_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Store `name` in ev->key, truncated to fit. */
void termio_set_key(termio_event *ev, const char *name);

#endif
