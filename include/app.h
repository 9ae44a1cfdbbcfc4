/* app: the interactive viewer — its state (view, selected lane, modes, lists, search),
 * the actions bound to keys and mouse, the frame drawn from that state, and the
 * event loop that builds the index in the background while the screen stays live.
 * The state half runs headless (tests, `snapshot`); only app_run touches a terminal. */
#ifndef ELOG_APP_H
#define ELOG_APP_H

#include <stdbool.h>
#include <stddef.h>

#include "evindex.h"
#include "keymap.h"
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
    const char *startup_msg;    /* the status line's first message (the backend in use
                                 * when the one asked for cannot drive the terminal);
                                 * borrowed by app_new only, may be NULL */
    const char *second_path;    /* app_run: a second log stacked under the first (NULL:
                                 * none); borrowed */
    const char *align;          /* app_run: the marker both logs are aligned at (NULL: their
                                 * first events); borrowed */
    const keymap *keys;         /* key bindings (settings); NULL for the defaults;
                                 * borrowed: must outlive the app */
    const theme_table *styles;  /* the styles' looks (settings); NULL for the defaults;
                                 * borrowed by app_run */
    unsigned hidden_lanes;      /* lane groups hidden at the start (lanegroup_mask: the
                                 * settings' hide-lanes); L shows or hides them */
} app_opts;

/* A viewer over an index (both borrowed; they outlive the app) on a cols x lines
 * screen, fitted to the whole log with the cursor at its start. `path` is shown in
 * the header. Caller frees with app_free. */
app *app_new(const evindex *ix, const char *path, int cols, int lines, const app_opts *o);
void app_free(app *a);
/* The two-log view: stack the lanes of `ix2` (borrowed; it outlives the app) under the
 * app's own, each lane's label starting "A " or "B ", on one zoom and pan. They are
 * aligned at both logs' first events, or at the first marker named `align` in each
 * (NULL: the first events); the axis stays the first log's clock and the second's row
 * says its offset. The view is fitted to both. False, with the reason in `why`, when a
 * log lacks the marker or the app has its second log already. */
bool app_set_second(app *a, const evindex *ix2, const char *path2, const char *align,
                    char *why, size_t why_len);
/* Takes the threads' run totals when the background count has finished, and the MMU
 * plot's points computed since the last call; true if the screen changes (the loop
 * redraws). */
bool app_poll_totals(app *a);
/* A background count (totals, MMU plot) is still running (the loop then wakes more
 * often). */
bool app_totals_pending(const app *a);
/* The thread list is open and still says "counting…" (its rows wait for the first
 * step of the background count, which app_poll_totals takes). */
bool app_list_counting(const app *a);

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
/* Text the user asked to copy (copy as command) and not yet taken, else NULL; reading
 * clears it. Valid until the next app call. The loop sends it as OSC 52. */
const char *app_take_clipboard(app *a);
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
