/* app_loop: the interactive session. Opens the log and the terminal, builds the index
 * on a second thread while a progress screen stays responsive (q cancels), then runs
 * the one loop: drain input -> actions -> draw once -> present what changed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "app_int.h"
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

/* Wait for the index, keeping the screen and q alive. NULL if the user quit. */
static evindex *
app_wait_index(termio *t, surface *s, app_build *b, const char *path, size_t size,
               bool ascii)
{
    pthread_t th;
    if (pthread_create(&th, NULL, app_build_main, b) != 0) {
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
        if (termio_poll(t, 50, &ev) && app_is_quit_key(&ev)) {
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
    termio_opts to = termio_default_opts();
    to.mouse = o->mouse;
    if (o->force_mono) {
        to.force_theme = true;
        to.theme = THEME_MONO;
    }
    termio *t = strcmp(backend, "tickit") == 0 ? termio_open_tickit(&to, err, errlen)
                                               : termio_open_curses(&to, err, errlen);
    if (!t) {
        evlog_close(log);
        return 1;
    }
    int cols, lines;
    termio_size(t, &cols, &lines);
    surface *s = surface_new(cols, lines);
    app_build b = { .log = log };
    diag_clear(&b.ending);
    evindex *ix = app_wait_index(t, s, &b, path, evlog_size(log), o->ascii);
    int status = 0;
    if (ix) {
        app_opts ao = *o;
        ao.mono = termio_theme_mode(t) == THEME_MONO;
        ao.async_totals = true;
        app *a = app_new(ix, path, cols, lines, &ao);
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
            dirty = false;
            while (!app_quit_requested(a) && termio_poll(t, timeout, &ev)) {
                timeout = 0;
                dirty = true;
                if (ev.kind == TERMIO_EV_QUIT) {
                    app_key(a, "C-c");
                } else if (ev.kind == TERMIO_EV_RESIZE) {
                    app_resize(a, ev.cols, ev.lines);
                } else if (ev.kind == TERMIO_EV_MOUSE) {
                    app_mouse(a, &ev);
                } else if (ev.kind == TERMIO_EV_KEY) {
                    app_key(a, ev.key);
                }
            }
            if (app_poll_disk(a))
                dirty = true;
            if (app_poll_totals(a))
                dirty = true;
        }
        app_free(a);
    }
    surface_free(s);
    termio_free(t);
    uint64_t gone;
    if (evlog_changed(log, &gone)) {
        /* How the data ended says nothing once the file lost bytes under us. */
        snprintf(err, errlen, "warning: %s changed while being read (data from byte %llu is "
                 "gone)", path, (unsigned long long)gone);
    } else if (ix && b.ending.code != DIAG_OK && b.ending.code != DIAG_TRUNCATED) {
        diag_format(&b.ending, path, err, errlen);
        status = 0;     /* the viewer showed what was readable; main reports it */
    }
    evindex_free(ix);
    evlog_close(log);
    return status;
}
