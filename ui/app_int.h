/* app_int: the viewer's state, shared by its actions (app.c), its frame (app_draw.c)
 * and its terminal loop (app_loop.c). Not part of the public contract. */
#ifndef ELOG_APP_INT_H
#define ELOG_APP_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "app.h"
#include "detail.h"
#include "eventpane.h"
#include "keymap.h"
#include "lanes.h"
#include "strbuf.h"
#include "uilist.h"

enum app_list_kind { APP_LIST_MARKERS, APP_LIST_GCS, APP_LIST_THREADS };

/* One search hit: a message (index into evindex_msg_at) or a thread label (tid). */
typedef struct app_match {
    uint64_t time_ns;
    size_t index;
    bool is_thread;
} app_match;

/* Screen rows of each part, recomputed on every resize and pane change. */
typedef struct app_rows {
    int header, axis, top;
    int lanes_line, lanes_rows;
    int more_line;              /* the "↑ 1 more  ↓ 2 more" row under the lanes, or -1 */
    int pane_line, pane_rows;
    int status_line;
} app_rows;

struct app {
    const evindex *ix;
    app_opts opts;
    char name[256];
    int cols, lines;
    app_rows lay;

    timeview v;
    lane *lanes;                /* owned */
    size_t n_lanes, lane_sel, first_lane, markers_lane;
    bool hec_split;             /* HEC lanes drawn in two rows (runs, GC) */
    enum keymap_mode mode;

    uilist *list;               /* owned; the open popup list in MODE_LIST */
    enum app_list_kind list_kind;
    int list_rows;              /* rows the list showed last frame (paging) */

    char query[128];            /* search being typed, then the last query */
    enum keymap_mode search_from;       /* the mode the search prompt goes back to */
    bool search_on;             /* n/N step through matches */
    app_match *matches;         /* owned */
    size_t n_matches;

    bool highlight;
    uint32_t highlight_tid;
    detail_thread_memo thread_memo;     /* every thread's run totals, made once */
    pthread_t totals_th;                /* counts them when opts.async_totals */
    bool totals_running;                /* totals_th was started and not yet joined */
    atomic_bool totals_ready;           /* totals_th has stored totals_rows */
    threadstats_row *totals_rows;       /* owned; totals_th's result until taken */
    size_t *totals_order;               /* owned; totals_th's ranking until taken */
    size_t *gc_order;                   /* owned; collection indexes, longest pause
                                         * first (made when the GC list first opens) */
    size_t *thread_order;               /* owned; threadtab indexes, most run time first,
                                         * made once with the totals */
    bool list_counting;                 /* the thread list waits for the totals */
    bool dragging;              /* the left button is down in the plot */
    bool drag_selecting;        /* ... and has moved: the drag's selection follows it */
    int drag_col;               /* where the button went down */

    bool events_on;             /* the event pane replaces the detail pane */
    bool events_follow;         /* the pane re-centres on the cursor */
    eventpane *events;          /* owned */
    int help_scroll;

    char msg[512];              /* a message for the status line */
    bool msg_sticky;            /* show msg instead of the description of the cursor */
    strbuf status;              /* the status line as last drawn */
    bool quit, redraw, suspend;
    char disk_warning[160];     /* the file changed on disk (app_disk.c), "" if not */
    bool disk_gone;             /* ... and lost bytes we mapped: the warning is final */
};

/* The item under the cursor on the selected lane, one column of slack; kind
 * LANE_ITEM_NONE (and false) when there is none (app.c). */
bool app_item(const app *a, lane_item *it);
/* Recompute the rows of each part for the size and panes (app.c). */
void app_relayout(app *a);
/* The printing resolution of the cursor's and the selection's times: one column's width
 * (at least 1 ns) as a power of ten, timefmt_res (app.c). */
uint64_t app_col_res(const app *a);

#endif
