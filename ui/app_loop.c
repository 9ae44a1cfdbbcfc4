/* app_loop: the interactive session. Opens the log and the terminal, builds the index
 * on a second thread while a progress screen stays responsive (q cancels), then runs
 * the one loop: drain input -> actions -> draw once -> present what changed. Signals
 * that end the program come as QUIT events and set the exit status; C-z suspends. */
#include <langinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "app_int.h"
#include "applive.h"
#include "diag.h"
#include "evlog.h"
#include "surface.h"
#include "termio.h"
#include "theme.h"

#define APP_DISK_POLL_MS 1000     /* idle wake-ups to check the file on disk */
#define APP_TOTALS_POLL_MS 50     /* ... and to take the threads' totals when counted */

typedef struct app_build {
    const evlog *log;
    evindex *ix;                /* the result, owned by the caller once done */
    diag ending;
    _Atomic uint64_t progress;
    _Atomic int cancel;
    _Atomic int done;
} app_build;

static void *
app_build_main(void *arg)
{
    app_build *b = arg;
    evindex_opts o = { .progress_bytes = &b->progress, .cancel = &b->cancel };
    b->ix = evindex_build(b->log, &o, &b->ending);
    atomic_store(&b->done, 1);
    return NULL;
}

/* The screen while the index builds: the file, a bar, and how to quit. */
static void
app_draw_progress(surface *s, const char *path, uint64_t done, uint64_t total, bool ascii)
{
    int cols = surface_cols(s), lines = surface_lines(s);
    surface_clear(s, STYLE_DEFAULT);
    int line = lines / 2 - 1;
    if (line < 0)
        line = 0;
    char buf[512];
    double frac = total ? (double)done / (double)total : 1.0;
    snprintf(buf, sizeof buf, "indexing %s: %.0f%% of %.1f MB", path, frac * 100.0,
             (double)total / 1e6);
    surface_text(s, 1, line, buf, STYLE_DEFAULT, cols - 2);
    int w = cols - 2;
    if (w > 0 && line + 1 < lines) {
        int fill = (int)(frac * w);
        surface_fill(s, 1, line + 1, w, ascii ? '.' : 0x2591, STYLE_AXIS);
        surface_fill(s, 1, line + 1, fill, ascii ? '#' : 0x2588, STYLE_PROGRESS);
    }
    if (line + 2 < lines)
        surface_text(s, 1, line + 2, "q quits", STYLE_AXIS, cols - 2);
}

static bool
app_is_quit_key(const termio_event *ev)
{
    return ev->kind == TERMIO_EV_QUIT ||
           (ev->kind == TERMIO_EV_KEY && (strcmp(ev->key, "q") == 0 ||
                                          strcmp(ev->key, "C-c") == 0));
}

/* Start a helper thread with every asynchronous signal blocked, so that signals reach
 * the main thread and interrupt its wait for input at once (th NULL: just run fn so,
 * for the threads it starts). */
static int
app_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    sigset_t all, old;
    sigfillset(&all);
    static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
    for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
        sigdelset(&all, faults[i]);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = th ? pthread_create(th, NULL, fn, arg) : 0;
    if (!th)
        fn(arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

/* app_new's arguments and result, to call it with signals blocked: the count of the
 * threads' totals it starts in the background must not take signals either. */
typedef struct app_new_call {
    const evindex *ix;
    const char *path;
    int cols, lines;
    const app_opts *o;
    app *a;                     /* the result; caller frees with app_free */
} app_new_call;

static void *
app_new_main(void *arg)
{
    app_new_call *c = arg;
    c->a = app_new(c->ix, c->path, c->cols, c->lines, c->o);
    return NULL;
}

/* Wait for the index, keeping the screen and q alive. NULL if the user quit; then
 * *quit_sig is the signal that ended it, if one did. */
static evindex *
app_wait_index(termio *t, surface *s, app_build *b, const char *path, size_t size,
               bool ascii, int *quit_sig)
{
    pthread_t th;
    if (app_thread_start(&th, app_build_main, b) != 0) {
        app_build_main(b);      /* no thread: build in the foreground */
        return b->ix;
    }
    bool quit = false;
    while (!atomic_load(&b->done)) {
        int cols, lines;
        termio_size(t, &cols, &lines);
        if (surface_cols(s) != cols || surface_lines(s) != lines)
            surface_resize(s, cols, lines);
        app_draw_progress(s, path, atomic_load(&b->progress), size, ascii);
        termio_present(t, s);
        termio_event ev;
        if (!termio_poll(t, 50, &ev))
            continue;
        if (ev.kind == TERMIO_EV_KEY && strcmp(ev.key, "C-z") == 0)
            termio_suspend(t);
        if (app_is_quit_key(&ev)) {
            if (ev.kind == TERMIO_EV_QUIT)
                *quit_sig = ev.signal;
            atomic_store(&b->cancel, 1);
            quit = true;
            break;
        }
    }
    pthread_join(th, NULL);
    if (quit) {
        evindex_free(b->ix);
        return NULL;
    }
    return b->ix;
}

/* A live source before its header has come: what it waits for, and q. False when
 * the user quit (*quit_sig: the signal, if one did) or the source failed (err). */
static bool
app_wait_header(termio *t, surface *s, livelog *l, const char *name, int *quit_sig,
                char *err, size_t errlen)
{
    while (!livelog_log(l)) {
        livesrc_status st;
        diag d;
        if (!livelog_update(l, 50, &st, &d)) {
            diag_format(&d, name, err, errlen);
            return false;
        }
        int cols, lines;
        termio_size(t, &cols, &lines);
        if (surface_cols(s) != cols || surface_lines(s) != lines)
            surface_resize(s, cols, lines);
        surface_clear(s, STYLE_DEFAULT);
        char buf[512];
        snprintf(buf, sizeof buf, "%s: %s", name,
                 st.state == LIVESRC_CONNECTING ? "waiting for the program (connecting, or no "
                                                  "writer yet)"
                                                : "reading the header");
        surface_text(s, 1, lines / 2 - 1 > 0 ? lines / 2 - 1 : 0, buf, STYLE_DEFAULT, cols - 2);
        if (lines / 2 < lines)
            surface_text(s, 1, lines / 2, "q quits", STYLE_AXIS, cols - 2);
        termio_present(t, s);
        termio_event ev;
        if (!termio_poll(t, 0, &ev))
            continue;
        if (ev.kind == TERMIO_EV_KEY && strcmp(ev.key, "C-z") == 0)
            termio_suspend(t);
        if (app_is_quit_key(&ev)) {
            /* C-c cancels the wait as it does for the commands: 130. */
            if (ev.kind == TERMIO_EV_QUIT)
                *quit_sig = ev.signal;
            else if (strcmp(ev.key, "C-c") == 0)
                *quit_sig = SIGINT;
            return false;
        }
    }
    return true;
}

/* F on a file that grows without an end marker: follow it from now on — a live log
 * over the same path, indexed once here, put in the app's place. NULL (and a message
 * in the status line) if it cannot be opened; else the applive, *out the live log the
 * caller closes after it. */
static applive *
app_follow_file(app *a, const char *path, uint64_t alert_pause_ns, livelog **out)
{
    livesrc_opts so = { .follow = true };
    diag d;
    diag_clear(&d);
    livelog *l = livelog_open(path, &so, &d);
    for (int i = 0; l && !livelog_log(l) && i < 100; i++)
        if (!livelog_update(l, 20, NULL, &d))
            break;
    if (!l || !livelog_log(l)) {
        snprintf(a->msg, sizeof a->msg, "cannot follow %s: %s", path,
                 d.msg[0] ? d.msg : "no header");
        a->msg_sticky = true;
        livelog_close(l);
        return NULL;
    }
    applive *lv = applive_new(l, alert_pause_ns);
    app_swap_index(a, applive_index(lv));
    a->disk_warning[0] = '\0';
    applive_attach(lv, a);
    *out = l;
    return lv;
}

static int app_session(evlog *log, livelog *l, const char *path, const char *backend,
                       const app_opts *o, uint64_t alert_pause_ns, char *err, size_t errlen);

int
app_run(const char *path, const char *backend, const app_opts *o, char *err, size_t errlen)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open(path, &d);
    if (!log) {
        diag_format(&d, path, err, errlen);
        return 1;
    }
    return app_session(log, NULL, path, backend, o, 0, err, errlen);
}

int
app_run_live(livelog *l, const char *name, const char *backend, const app_opts *o,
             unsigned long long alert_pause_ns, char *err, size_t errlen)
{
    return app_session(NULL, l, name, backend, o, alert_pause_ns, err, errlen);
}

/* The session over `log` (consumed), or over the live `l` (borrowed) when log is NULL. */
static int
app_session(evlog *log, livelog *l, const char *path, const char *backend, const app_opts *o,
            uint64_t alert_pause_ns, char *err, size_t errlen)
{
    termio_opts to = termio_default_opts();
    to.mouse = o->mouse;
    to.styles = o->styles;
    if (o->force_mono) {
        to.force_theme = true;
        to.theme = THEME_MONO;
    }
    app_opts ao = *o;
    char notice[512] = "";
    termio *t = termio_open_backend(backend, &to, notice, sizeof notice, err, errlen);
    if (!t) {
        evlog_close(log);
        return 1;
    }
    int quit_sig = 0;
    /* The other backend in use, and why: the status line's first message. */
    ao.startup_msg = notice[0] ? notice : NULL;
    /* Without a UTF-8 codeset ncursesw cannot show the glyphs (lanes would be blank):
     * both backends draw the ASCII set then, and the header says why. */
    if (!ao.ascii && strcmp(nl_langinfo(CODESET), "UTF-8") != 0) {
        ao.ascii = true;
        ao.notice = "ASCII: locale is not UTF-8";
    }
    int cols, lines;
    termio_size(t, &cols, &lines);
    surface *s = surface_new(cols, lines);
    if (l && !app_wait_header(t, s, l, path, &quit_sig, err, errlen)) {
        surface_free(s);
        termio_free(t);
        return quit_sig ? termio_signal_status(quit_sig) : err[0] ? 1 : 0;
    }
    app_build b = { .log = log };
    diag_clear(&b.ending);
    /* A live log is indexed as it grows (applive): its first frame comes at once. */
    evindex *ix = l ? NULL : app_wait_index(t, s, &b, path, evlog_size(log), ao.ascii,
                                            &quit_sig);
    applive *lv = l ? applive_new(l, alert_pause_ns) : NULL;
    livelog *followed = NULL;   /* F on a growing file: the live log opened for it */
    int status = 0;
    /* The two-log view: the second log, indexed the same way after the first. */
    evlog *log2 = NULL;
    evindex *ix2 = NULL;
    app_build b2 = { .log = NULL };
    if (ix && o->second_path) {
        diag d;
        diag_clear(&d);
        log2 = evlog_open(o->second_path, &d);
        if (!log2) {
            diag_format(&d, o->second_path, err, errlen);
            status = 1;
        } else {
            b2.log = log2;
            diag_clear(&b2.ending);
            ix2 = app_wait_index(t, s, &b2, o->second_path, evlog_size(log2), ao.ascii,
                                 &quit_sig);
        }
        if (!ix2) {
            evindex_free(ix);
            ix = NULL;
        }
    }
    if (ix || lv) {
        ao.mono = termio_theme_mode(t) == THEME_MONO;
        ao.async_totals = true;
        app_new_call call = { lv ? applive_index(lv) : ix, path, cols, lines, &ao, NULL };
        app_thread_start(NULL, app_new_main, &call);
        app *a = call.a;
        if (ix2 && !app_set_second(a, ix2, o->second_path, o->align, err, errlen)) {
            status = 1;
            app_key(a, "C-c");
        }
        if (lv)
            applive_attach(lv, a);
        else
            app_poll_disk(a);
        bool dirty = true;
        while (!app_quit_requested(a)) {
            if (dirty) {
                app_draw(a, s);
                if (app_take_redraw(a))
                    termio_force_redraw(t);
                termio_present(t, s);
            }
            /* Take every pending event, then draw once; when idle, look at the file
             * on disk now and then (app_disk.c). */
            termio_event ev;
            int timeout = app_totals_pending(a) ? APP_TOTALS_POLL_MS : APP_DISK_POLL_MS;
            if (lv && applive_poll_ms(lv) < timeout)
                timeout = applive_poll_ms(lv);
            dirty = false;
            while (!app_quit_requested(a) && termio_poll(t, timeout, &ev)) {
                timeout = 0;
                dirty = true;
                if (ev.kind == TERMIO_EV_QUIT) {
                    quit_sig = ev.signal;
                    app_key(a, "C-c");
                } else if (ev.kind == TERMIO_EV_RESIZE) {
                    app_resize(a, ev.cols, ev.lines);
                } else if (ev.kind == TERMIO_EV_MOUSE) {
                    app_mouse(a, &ev);
                } else if (ev.kind == TERMIO_EV_KEY) {
                    app_key(a, ev.key);
                }
                const char *clip = app_take_clipboard(a);
                if (clip)
                    termio_send_clipboard(t, clip);
                if (app_take_suspend(a)) {
                    termio_suspend(t);
                    break;      /* draw at once on return */
                }
            }
            if (!lv && a->live_request) {
                a->live_request = false;
                lv = app_follow_file(a, path, alert_pause_ns, &followed);
                dirty = true;
            }
            if (lv ? applive_poll(lv, a) : app_poll_disk(a))
                dirty = true;
            if (app_poll_totals(a))
                dirty = true;
        }
        app_free(a);
    }
    applive_free(lv);
    livelog_close(followed);
    surface_free(s);
    termio_free(t);
    if (l || followed) {
        evindex_free(ix);
        evindex_free(ix2);
        evlog_close(log);
        if (log2)
            evlog_close(log2);
        return quit_sig ? termio_signal_status(quit_sig) : 0;
    }
    uint64_t gone;
    if (evlog_changed(log, &gone)) {
        /* How the data ended says nothing once the file lost bytes under us. */
        snprintf(err, errlen, "warning: %s changed while being read (data from byte %llu is "
                 "gone)", path, (unsigned long long)gone);
        status = 1;     /* as the commands end */
    } else if (ix && b.ending.code != DIAG_OK && b.ending.code != DIAG_TRUNCATED) {
        diag_format(&b.ending, path, err, errlen);
        status = 0;     /* the viewer showed what was readable; main reports it */
    }
    evindex_free(ix);
    evindex_free(ix2);
    evlog_close(log);
    if (log2)
        evlog_close(log2);
    return quit_sig ? termio_signal_status(quit_sig) : status;
}
