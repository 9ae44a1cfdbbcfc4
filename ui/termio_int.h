/* termio_int: what the termio backends (termio_curses.c, termio_tickit.c) share with
 * the generic part (termio.c): the backend vtable, the termio struct, the event
 * queue, the terminal claim (signals, suspend, atexit and fault-signal restore) and
 * the input byte gate of the tickit backend (termio_seq.c). */
#ifndef ELOG_TERMIO_INT_H
#define ELOG_TERMIO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <termios.h>

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
    /* Give the terminal back for a while (suspend, or before re-entering after an
     * outside stop): leave raw mode, the alternate screen and mouse reporting. */
    void (*pause)(termio *t);
    /* Take it again after pause: raw mode, the modes, a full repaint next frame; learn
     * the size (termio_resized). */
    void (*resume)(termio *t);
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
    bool input_gone;         /* the terminal hung up: read gave EOF or an error */
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
/* The claimed terminal's termios as found at the claim, for backends that must put it
 * back exactly (false when nothing is claimed). */
bool termio_saved_termios(struct termios *tio);
/* The terminal hung up (input gave EOF or EIO): queue one QUIT as for SIGHUP. */
void termio_input_gone(termio *t);
/* Look `term` up in terminfo: false when it has no entry; else true, with *missing the
 * first of caps (terminfo names: "cup") it lacks, NULL when it has them all. */
bool termio_caps_missing(const char *term, const char *const *caps, size_t n_caps,
                         const char **missing);
/* snprintf into err when errlen > 0. */
void termio_errf(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Store `name` in ev->key, truncated to fit. */
void termio_set_key(termio_event *ev, const char *name);

/* --- termio_seq: whole keys only into libtermkey --------------------------------------- */

/* Longest escape sequence passed on (libtermkey's buffer holds 256 bytes); longer ones
 * are dropped. */
#define TERMIO_SEQ_MAX 128
/* Input quiet this long ends a sequence: a lone ESC is Escape, a partial sequence is
 * dropped (libtermkey's own wait time). */
#define TERMIO_SEQ_DELAY_MS 50

enum { TERMIO_SEQ_SKIP_NONE, TERMIO_SEQ_SKIP_CSI, TERMIO_SEQ_SKIP_STRING };

typedef struct termio_seq {
    unsigned char buf[4096];    /* bytes read and not yet passed on or dropped */
    size_t len;
    bool utf8;                  /* multi-byte characters are one unit */
    int skip;                   /* TERMIO_SEQ_SKIP_*: dropping an overlong sequence */
    bool skip_esc;              /* ... a string whose last byte seen was ESC */
    int64_t last_ms;            /* when the last bytes arrived */
    uint64_t dropped;           /* bytes dropped so far (tests, fuzzing) */
} termio_seq;

void termio_seq_init(termio_seq *q, bool utf8);
/* Bytes termio_seq_feed can take now. */
size_t termio_seq_room(const termio_seq *q);
/* Append n bytes (at most the room) that arrived at now_ms. */
void termio_seq_feed(termio_seq *q, const void *bytes, size_t n, int64_t now_ms);
/* Move whole keys, in order, into out (which holds at least max and TERMIO_SEQ_MAX
 * bytes): as many as fit in max, or one of any length up to TERMIO_SEQ_MAX. Drops
 * sequences longer than TERMIO_SEQ_MAX and control strings libtermkey cannot end. A
 * partial key is kept until input has been quiet TERMIO_SEQ_DELAY_MS; then ESC bytes
 * alone become *n_escapes Escape presses (after the bytes returned) and anything else
 * is dropped. Returns the number of bytes in out. */
size_t termio_seq_take(termio_seq *q, unsigned char *out, size_t max, int64_t now_ms,
                       size_t *n_escapes);
/* A whole key is waiting (take would return bytes without waiting). */
bool termio_seq_ready(const termio_seq *q);
/* Milliseconds until a kept partial key is given up (0: now), -1 if none is kept. */
int termio_seq_timeout_ms(const termio_seq *q, int64_t now_ms);

#endif
