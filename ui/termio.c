/* termio: the backend-independent half of the terminal layer — frame diffing against
 * the last presented surface, the event queue and poll loop, quit signals, and the
 * exit/abort hooks that give a claimed terminal back. */
#include "termio_int.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "xalloc.h"

#define TERMIO_SLICE_MS 250

/* Set by the signal handlers, read and cleared by termio_poll. */
static volatile sig_atomic_t termio_quit_signal;
static int termio_n_open;  /* termios not yet closed; signal handlers live while > 0 */
static const int termio_quit_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction termio_old_quit[3];

/* The claimed real terminal, and what the SIGABRT hook needs to restore it with
 * async-signal-safe calls only. */
static termio *termio_terminal;
static bool termio_atexit_done;
static int termio_emerg_in_fd = -1;
static int termio_emerg_out_fd = -1;
static struct termios termio_emerg_termios;
static struct sigaction termio_old_abrt;

/* Mouse reporting off (all modes the backends use), keypad mode off, default pen,
 * cursor visible, main screen. */
static const char termio_reset_seq[] =
    "\033[?1002l\033[?1006l\033[?1000l\033[?1l\033>\033[0m\033[?25h\033[?1049l";

static void
termio_on_quit_signal(int sig)
{
    termio_quit_signal = sig;
}

static void
termio_on_abort(int sig)
{
    if (termio_emerg_in_fd >= 0) {
        tcsetattr(termio_emerg_in_fd, TCSANOW, &termio_emerg_termios);
        ssize_t n = write(termio_emerg_out_fd, termio_reset_seq, sizeof termio_reset_seq - 1);
        (void)n;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
termio_at_exit(void)
{
    if (termio_terminal)
        termio_close(termio_terminal);
}

void
termio_errf(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || errlen == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

void
termio_set_key(termio_event *ev, const char *name)
{
    size_t n = strlen(name);
    if (n >= sizeof ev->key)
        n = sizeof ev->key - 1;
    memcpy(ev->key, name, n);
    ev->key[n] = '\0';
}

termio_opts
termio_default_opts(void)
{
    termio_opts o = { .mouse = true, .force_theme = false, .theme = THEME_256 };
    return o;
}

theme_mode
termio_pick_mode(const termio_opts *opts, int n_colours)
{
    theme_mode detected = theme_choose(getenv("NO_COLOR"), n_colours);
    if (!opts || !opts->force_theme)
        return detected;
    /* Modes are ordered from most to least colourful. */
    return opts->theme > detected ? opts->theme : detected;
}

termio *
termio_new(const termio_ops *ops, void *impl, theme_mode mode, int cols, int lines)
{
    termio *t = xcalloc(1, sizeof *t);  /* caller frees with termio_free */
    t->ops = ops;
    t->impl = impl;
    t->mode = mode;
    t->cols = cols < 0 ? 0 : cols;
    t->lines = lines < 0 ? 0 : lines;
    t->force_full = true;
    if (termio_n_open++ == 0) {
        termio_quit_signal = 0;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = termio_on_quit_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  /* no SA_RESTART: a blocking read must return */
        for (size_t i = 0; i < 3; i++)
            sigaction(termio_quit_signals[i], &sa, &termio_old_quit[i]);
    }
    return t;
}

bool
termio_claim_terminal(termio *t, int in_fd, int out_fd, char *err, size_t errlen)
{
    if (termio_terminal) {
        termio_errf(err, errlen, "a terminal backend is already open");
        return false;
    }
    if (tcgetattr(in_fd, &termio_emerg_termios) != 0) {
        termio_errf(err, errlen, "cannot read terminal settings: %s", strerror(errno));
        return false;
    }
    termio_emerg_in_fd = in_fd;
    termio_emerg_out_fd = out_fd;
    termio_terminal = t;
    t->claimed = true;
    if (!termio_atexit_done) {
        atexit(termio_at_exit);
        termio_atexit_done = true;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = termio_on_abort;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGABRT, &sa, &termio_old_abrt);
    return true;
}

static void
termio_release_terminal(termio *t)
{
    if (!t->claimed)
        return;
    sigaction(SIGABRT, &termio_old_abrt, NULL);
    termio_emerg_in_fd = -1;
    termio_emerg_out_fd = -1;
    termio_terminal = NULL;
    t->claimed = false;
}

void
termio_close(termio *t)
{
    if (!t || t->closed)
        return;
    t->closed = true;
    t->ops->close(t);
    termio_release_terminal(t);
    if (--termio_n_open == 0)
        for (size_t i = 0; i < 3; i++)
            sigaction(termio_quit_signals[i], &termio_old_quit[i], NULL);
}

void
termio_free(termio *t)
{
    if (!t)
        return;
    termio_close(t);
    t->ops->destroy(t);
    surface_free(t->prev);
    x_free(t);
}

const char *
termio_backend_name(const termio *t)
{
    return t->ops->name;
}

void
termio_size(const termio *t, int *cols, int *lines)
{
    if (cols)
        *cols = t->cols;
    if (lines)
        *lines = t->lines;
}

theme_mode
termio_theme_mode(const termio *t)
{
    return t->mode;
}

void
termio_force_redraw(termio *t)
{
    t->force_full = true;
    t->force_hard = true;
}

size_t
termio_cells_sent(const termio *t)
{
    return t->cells_sent;
}

void
termio_push(termio *t, const termio_event *ev)
{
    if (ev->kind == TERMIO_EV_RESIZE) {
        for (size_t i = 0; i < t->q_len; i++) {
            termio_event *q = &t->queue[(t->q_head + i) % TERMIO_QUEUE];
            if (q->kind == TERMIO_EV_RESIZE) {
                *q = *ev;
                return;
            }
        }
    }
    if (t->q_len == TERMIO_QUEUE)
        return;
    t->queue[(t->q_head + t->q_len) % TERMIO_QUEUE] = *ev;
    t->q_len++;
}

void
termio_resized(termio *t, int cols, int lines)
{
    t->cols = cols < 0 ? 0 : cols;
    t->lines = lines < 0 ? 0 : lines;
    t->force_full = true;
    termio_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = TERMIO_EV_RESIZE;
    ev.cols = t->cols;
    ev.lines = t->lines;
    termio_push(t, &ev);
}

void
termio_present(termio *t, const surface *s)
{
    if (t->closed)
        return;
    int cols = surface_cols(s), lines = surface_lines(s);
    bool full = t->force_full || !t->prev || surface_cols(t->prev) != cols ||
                surface_lines(t->prev) != lines;
    int vis_cols = cols < t->cols ? cols : t->cols;
    int vis_lines = lines < t->lines ? lines : t->lines;
    size_t sent = 0;

    t->ops->begin(t, full, t->force_hard);
    for (int line = 0; line < vis_lines; line++) {
        if (!full && surface_row_equal(t->prev, s, line))
            continue;
        int col = 0;
        while (col < vis_cols) {
            surface_cell c = surface_get(s, col, line);
            if (!full) {
                surface_cell p = surface_get(t->prev, col, line);
                if (p.cp == c.cp && p.style == c.style) {
                    col++;
                    continue;
                }
            }
            /* A run of changed cells sharing one style. */
            int start = col++;
            while (col < vis_cols) {
                surface_cell n = surface_get(s, col, line);
                if (n.style != c.style)
                    break;
                if (!full) {
                    surface_cell p = surface_get(t->prev, col, line);
                    if (p.cp == n.cp && p.style == n.style)
                        break;
                }
                col++;
            }
            t->ops->draw(t, s, start, line, col - start, c.style);
            sent += (size_t)(col - start);
        }
    }
    t->ops->end(t);

    if (!t->prev)
        t->prev = surface_new(cols, lines);  /* owned by t */
    surface_copy(t->prev, s);
    t->force_full = false;
    t->force_hard = false;
    t->cells_sent = sent;
}

static int64_t
termio_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
termio_poll(termio *t, int timeout_ms, termio_event *ev)
{
    if (t->closed)
        return 0;
    int64_t deadline = timeout_ms < 0 ? -1 : termio_now_ms() + timeout_ms;
    bool waited = false;
    for (;;) {
        if (termio_quit_signal) {
            termio_quit_signal = 0;
            memset(ev, 0, sizeof *ev);
            ev->kind = TERMIO_EV_QUIT;
            return 1;
        }
        if (t->q_len) {
            *ev = t->queue[t->q_head];
            t->q_head = (t->q_head + 1) % TERMIO_QUEUE;
            t->q_len--;
            return 1;
        }
        int remaining = -1;
        if (deadline >= 0) {
            int64_t left = deadline - termio_now_ms();
            remaining = left < 0 ? 0 : (int)left;
            if (waited && remaining == 0)
                return 0;
        }
        /* Bounded slices: a quit signal that lands just before a blocking read
         * is seen within TERMIO_SLICE_MS even if the backend retries on EINTR. */
        int slice = remaining < 0 || remaining > TERMIO_SLICE_MS ? TERMIO_SLICE_MS : remaining;
        if (!t->ops->wait(t, slice) && !t->q_len && !termio_quit_signal)
            return 0;
        waited = true;
    }
}
