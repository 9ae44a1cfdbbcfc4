/* app: the interactive viewer — its state (view, selected lane, modes, lists, search),
 * the actions bound to keys and mouse, the frame drawn from that state, and the
 * event loop that builds the index in the background while the screen stays live.
 * The state half runs headless (tests, `snapshot`); only app_run touches a terminal. */
#ifndef ELOG_APP_H
#define ELOG_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "evindex.h"
#include "surface.h"
#include "termio.h"
#include "timeview.h"

typedef struct app app;

typedef struct app_opts {
    bool ascii;                 /* no UTF-8 glyphs (terminals without UTF-8) */
    bool mouse;                 /* report mouse events */
    bool force_mono;            /* monochrome theme whatever the terminal says */
    bool mono;                  /* draw for a monochrome screen (set by app_run from the
                                 * terminal's theme; snapshot sets it without --color) */
    bool async_totals;          /* count every thread's run totals on a background thread
                                 * from app_new (the interactive loop: no pause when the
                                 * cursor first meets a run); else on first need */
    const char *notice;         /* shown in the header after the file name ("ASCII: locale
                                 * is not UTF-8"); borrowed by app_new only, may be NULL */
} app_opts;

/* A viewer over an index (both borrowed; they outlive the app) on a cols x lines
 * screen, fitted to the whole log with the cursor at its start. `path` is shown in
 * the header. Caller frees with app_free. */
app *app_new(const evindex *ix, const char *path, int cols, int lines, const app_opts *o);
void app_free(app *a);
/* Takes the threads' run totals when the background count has finished; true if the
 * screen changes (the loop redraws). */
bool app_poll_totals(app *a);
/* The background count is still running (the loop then wakes more often). */
bool app_totals_pending(const app *a);

void app_resize(app *a, int cols, int lines);
/* Apply one key (libtickit-style name, see termio.h). */
void app_key(app *a, const char *key);
/* Apply one mouse event. */
void app_mouse(app *a, const termio_event *ev);
/* The user asked to quit. */
bool app_quit_requested(const app *a);
/* The user asked to suspend to the shell (C-z); reading clears it. */
bool app_take_suspend(app *a);
/* The user asked for a full redraw (C-l); reading clears it. */
bool app_take_redraw(app *a);
/* Draw the whole frame into `s` (resized to the app's size if needed). */
void app_draw(app *a, surface *s);
/* The view, for callers that position it (snapshot --from/--to). */
timeview *app_view(app *a);
/* The status line's current text (tests). */
const char *app_status(const app *a);
/* Ask whether the log's file changed on disk since it was opened (shrank under the
 * mapping, grew, was modified or replaced: evlog_changed, evlog_stale) and if so put
 * a warning in the header; the view keeps showing what was indexed. An fstat and a
 * stat; the loop calls it when idle. Returns true when the warning changed (redraw). */
bool app_poll_disk(app *a);
/* The header's warning about the file ("" when none), for tests. */
const char *app_disk_warning(const app *a);

/* Run the viewer on `path` in the terminal until the user quits: open the log, show
 * a progress bar while the index builds on a second thread (keys work, q cancels),
 * then the timeline. backend is "curses" or "tickit" (the other one when that one
 * cannot drive $TERM). A locale whose codeset is not UTF-8 draws the ASCII glyphs,
 * as o->ascii does, and says so in the header. C-z suspends. Returns the exit
 * status: 0, 1 on failure or when the file changed while being read (message in
 * err, without the program name), 128 + N when signal N ended it. The terminal is
 * always given back as it was found. */
int app_run(const char *path, const char *backend, const app_opts *o, char *err,
            size_t errlen);
/* The same over a live source `l` (borrowed; see livelog.h) named `name`: it waits
 * for the header (q quits), then the timeline follows the log as it grows (applive.h);
 * a collection pausing alert_pause_ns or longer (0: never) flashes in the header. */
struct livelog;
int app_run_live(struct livelog *l, const char *name, const char *backend, const app_opts *o,
                 unsigned long long alert_pause_ns, char *err, size_t errlen);

#endif
