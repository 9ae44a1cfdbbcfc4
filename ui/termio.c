/* termio: the backend-independent half of the terminal layer — frame diffing against
 * the last presented surface, the event queue and poll loop, quit signals, and the
 * exit/abort hooks that give a claimed terminal back. */
#include "termio_int.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "copycmd.h"
#include "strbuf.h"
#include "xalloc.h"

#define TERMIO_SLICE_MS 250

/* Set by the signal handlers, read and cleared by termio_poll. */
static volatile sig_atomic_t termio_quit_signal;   /* the first ending signal, 0 none */
static volatile sig_atomic_t termio_stop_pending;  /* SIGTSTP arrived */
static volatile sig_atomic_t termio_cont_pending;  /* SIGCONT arrived */
static int termio_n_open;  /* termios not yet closed; signal handlers live while > 0 */

/* Every signal whose default action ends the program and that can be caught, except
 * the synchronous faults (below) and the real-time ones (added at run time). While a
 * termio is open they only set termio_quit_signal: the loop quits, the terminal is
 * given back and the program exits 128 + the signal. */
static const int termio_end_signals[] = {
    SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGVTALRM,
    SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
#ifdef SIGSTKFLT
    SIGSTKFLT,
#endif
#ifdef SIGPWR
    SIGPWR,
#endif
};
#define TERMIO_N_END (sizeof termio_end_signals / sizeof termio_end_signals[0])
#define TERMIO_MAX_SIG 128
static struct sigaction termio_old_end[TERMIO_MAX_SIG];

/* Faults (and abort) that end the program at once: while a real terminal is claimed,
 * and only where nobody else (a sanitizer, the mapping's SIGBUS guard) handles them,
 * the terminal is restored with async-signal-safe calls before the default action. */
static const int termio_fault_signals[] = {
    SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS,
};
#define TERMIO_N_FAULT (sizeof termio_fault_signals / sizeof termio_fault_signals[0])
static struct sigaction termio_old_fault[TERMIO_N_FAULT];
static bool termio_fault_ours[TERMIO_N_FAULT];
static struct sigaction termio_old_tstp, termio_old_cont;

/* The claimed real terminal, and what the fault hook needs to restore it with
 * async-signal-safe calls only. */
static termio *termio_terminal;
static bool termio_atexit_done;
static int termio_emerg_in_fd = -1;
static int termio_emerg_out_fd = -1;
static struct termios termio_emerg_termios;

/* Mouse reporting off (all modes the backends use), keypad mode off, default pen,
 * cursor visible, main screen. */
static const char termio_reset_seq[] =
    "\033[?1002l\033[?1006l\033[?1000l\033[?1l\033>\033[0m\033[?25h\033[?1049l";

static void
termio_on_quit_signal(int sig)
{
    if (!termio_quit_signal)
        termio_quit_signal = sig;
}

static void
termio_on_tstp(int sig)
{
    (void)sig;
    termio_stop_pending = 1;
}

static void
termio_on_cont(int sig)
{
    (void)sig;
    termio_cont_pending = 1;
}

static void
termio_on_fault(int sig)
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

/* Install `handler` for `sig` (no SA_RESTART: a blocking read must return). */
static void
termio_catch(int sig, void (*handler)(int), struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(sig, &sa, old);
}

/* The real-time signals end the program by default too. */
static int
termio_rt_first(void)
{
    return SIGRTMIN;
}

static int
termio_rt_last(void)
{
    return SIGRTMAX < TERMIO_MAX_SIG ? SIGRTMAX : TERMIO_MAX_SIG - 1;
}

static void
termio_catch_end_signals(bool on)
{
    for (size_t i = 0; i < TERMIO_N_END; i++) {
        int sig = termio_end_signals[i];
        if (on)
            termio_catch(sig, termio_on_quit_signal, &termio_old_end[sig]);
        else
            sigaction(sig, &termio_old_end[sig], NULL);
    }
    for (int sig = termio_rt_first(); sig <= termio_rt_last(); sig++) {
        if (on)
            termio_catch(sig, termio_on_quit_signal, &termio_old_end[sig]);
        else
            sigaction(sig, &termio_old_end[sig], NULL);
    }
}

int
termio_signal_status(int sig)
{
    return sig > 0 ? 128 + sig : 0;
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
        termio_catch_end_signals(true);
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
    for (size_t i = 0; i < TERMIO_N_FAULT; i++) {
        struct sigaction cur;
        termio_fault_ours[i] = sigaction(termio_fault_signals[i], NULL, &cur) == 0 &&
                               !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
        if (termio_fault_ours[i])
            termio_catch(termio_fault_signals[i], termio_on_fault, &termio_old_fault[i]);
    }
    termio_stop_pending = 0;
    termio_cont_pending = 0;
    termio_catch(SIGTSTP, termio_on_tstp, &termio_old_tstp);
    termio_catch(SIGCONT, termio_on_cont, &termio_old_cont);
    return true;
}

void
termio_send_clipboard(termio *t, const char *text)
{
    if (!t->claimed || termio_emerg_out_fd < 0)
        return;
    strbuf sb;
    strbuf_init(&sb);
    copycmd_osc52(&sb, text);
    for (size_t off = 0; off < sb.len;) {
        ssize_t n = write(termio_emerg_out_fd, sb.data + off, sb.len - off);
        if (n <= 0 && errno != EINTR)
            break;
        off += n > 0 ? (size_t)n : 0;
    }
    strbuf_free(&sb);
}

bool
termio_saved_termios(struct termios *tio)
{
    if (!termio_terminal)
        return false;
    *tio = termio_emerg_termios;
    return true;
}

static void
termio_release_terminal(termio *t)
{
    if (!t->claimed)
        return;
    /* Whatever the backend left, the tty settings become exactly what they were. */
    tcsetattr(termio_emerg_in_fd, TCSADRAIN, &termio_emerg_termios);
    sigaction(SIGTSTP, &termio_old_tstp, NULL);
    sigaction(SIGCONT, &termio_old_cont, NULL);
    for (size_t i = 0; i < TERMIO_N_FAULT; i++)
        if (termio_fault_ours[i])
            sigaction(termio_fault_signals[i], &termio_old_fault[i], NULL);
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
        termio_catch_end_signals(false);
}

void
termio_suspend(termio *t)
{
    if (t->closed || !t->claimed)
        return;
    t->ops->pause(t);
    tcsetattr(termio_emerg_in_fd, TCSADRAIN, &termio_emerg_termios);
    /* Stop as the shell expects (its job control sees SIGTSTP), then take it back. No
     * stop happens in an orphaned process group (no job control): go on at once. */
    struct sigaction dfl, ours;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &ours);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGTSTP);
    pthread_sigmask(SIG_UNBLOCK, &set, &old);
    kill(0, SIGTSTP);   /* the whole job, as ^Z in cooked mode: a wrapper too */
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGTSTP, &ours, NULL);
    termio_stop_pending = 0;
    termio_cont_pending = 0;
    t->ops->resume(t);
}

/* After an outside stop (SIGSTOP) and SIGCONT the shell may have put the tty back in
 * cooked mode and drawn over the screen: take the terminal again from scratch. */
static void
termio_reenter(termio *t)
{
    if (t->closed || !t->claimed)
        return;
    t->ops->pause(t);
    t->ops->resume(t);
}

void
termio_input_gone(termio *t)
{
    if (t->input_gone)
        return;
    t->input_gone = true;
    if (!termio_quit_signal)
        termio_quit_signal = SIGHUP;
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
        if (termio_stop_pending) {
            termio_stop_pending = 0;
            termio_suspend(t);
        }
        if (termio_cont_pending) {
            termio_cont_pending = 0;
            termio_reenter(t);
        }
        if (termio_quit_signal) {
            memset(ev, 0, sizeof *ev);
            ev->kind = TERMIO_EV_QUIT;
            ev->signal = termio_quit_signal;
            termio_quit_signal = 0;
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
        if (!t->ops->wait(t, slice) && !t->q_len && !termio_quit_signal &&
            !termio_stop_pending && !termio_cont_pending)
            return 0;
        waited = true;
    }
}

termio *
termio_open_backend(const char *name, const termio_opts *opts, char *note, size_t notelen,
                    char *err, size_t errlen)
{
    termio_errf(note, notelen, "%s", "");
    bool tickit = strcmp(name, "tickit") == 0;
    char first[512] = "", second[512] = "";
    termio *t = tickit ? termio_open_tickit(opts, first, sizeof first)
                       : termio_open_curses(opts, first, sizeof first);
    if (t)
        return t;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        termio_errf(err, errlen, "%s", first);
        return NULL;
    }
    /* The other backend may manage this terminal type. */
    t = tickit ? termio_open_curses(opts, second, sizeof second)
               : termio_open_tickit(opts, second, sizeof second);
    if (t) {
        termio_errf(note, notelen, "using %s: %s", tickit ? "curses" : "tickit", first);
        return t;
    }
    /* Neither: ncurses' reason names what the terminal lacks most plainly. */
    termio_errf(err, errlen, "%s", tickit ? second : first);
    return NULL;
}
