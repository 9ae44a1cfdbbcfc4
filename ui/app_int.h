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
#include "threadlife.h"
#include "threadstats.h"
#include "uilist.h"

enum app_list_kind { APP_LIST_MARKERS, APP_LIST_GCS, APP_LIST_THREADS, APP_LIST_EVTYPES,
                     APP_LIST_COMMANDS, APP_LIST_WORST, APP_LIST_BANDS,
                     APP_LIST_LANES, APP_LIST_PROF };

/* The GC analysis views' state (app_gc.c). */
typedef struct app_gc app_gc;
/* The second log of the two-log view (app_two.c). */
typedef struct app_two app_two;

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
    int two_line, two_rows;     /* the second log's divider and lanes (two-log view) */
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

    threadlife *focus;          /* owned; the focused thread (Enter in the thread list),
                                 * NULL when none */
    uint32_t focus_tid;         /* the focused thread (a->focus, or being gathered) */
    pthread_t focus_th;         /* gathers the focused thread's life (async_totals) */
    bool focus_running;         /* focus_th was started and not yet joined */
    bool focus_msg_pending;     /* the status line still says its life is being read */
    atomic_bool focus_ready;    /* focus_th has stored focus_result */
    atomic_bool focus_cancel;   /* focus_th gives up */
    threadlife *focus_result;   /* owned; focus_th's result until taken */
    bool focus_extending;       /* focus_th reads what a grown index added to a->focus
                                 * (which stays shown meanwhile), into focus_extra */
    threadlife_extra *focus_extra;      /* owned; focus_th's extension until taken */
    uint64_t focus_inline_bytes;        /* extend here up to this many log bytes, 0:
                                         * APP_FOCUS_INLINE_BYTES (tests set 1) */
    uint64_t focus_gathers;     /* lives gathered from scratch (tests: a live log's
                                 * growth extends the focus, never gathers it again) */
    detail_thread_memo thread_memo;     /* every thread's run totals, made once */
    pthread_t totals_th;                /* counts them when opts.async_totals */
    bool totals_running;                /* totals_th was started and not yet joined */
    atomic_bool totals_ready;           /* totals_th has stored totals_rows */
    atomic_bool brief_ready;            /* ... and, before, totals_brief and totals_order */
    atomic_bool totals_cancel;          /* totals_th stops after the brief totals */
    bool totals_rows_only;              /* totals_th counts only the rows (asked for
                                         * after its first run) */
    bool brief_taken;                   /* totals_brief and totals_order were taken */
    threadstats_row *totals_rows;       /* owned; totals_th's result until taken */
    threadstats_brief totals_brief;     /* owned; totals_th's first result until taken */
    size_t *totals_order;               /* owned; totals_th's ranking until taken */
    threadstats_brief brief;            /* owned; every thread's run time and runs, what
                                         * the thread list shows before thread_memo */
    size_t *gc_order;                   /* owned; collection indexes, longest pause
                                         * first (made when the GC list first opens) */
    struct pausehist *gc_hist;          /* owned; the whole log's pauses (the GC list's
                                         * histogram), made with gc_order; NULL before */
    size_t *thread_order;               /* owned; threadtab indexes, most run time first,
                                         * made once with the totals */
    bool list_counting;                 /* the thread list waits for the totals */
    atomic_bool top_ready;              /* totals_th has counted: totals_top is ready and
                                         * totals_brief is whole (read-only until taken) */
    bool top_taken;                     /* totals_top was taken into top_order */
    atomic_bool top_hold;               /* tests: while set, totals_th waits after
                                         * handing over its first rows */
    size_t *totals_top;                 /* owned; totals_th's first rows until taken */
    size_t *top_order;                  /* owned; the first n_top rows of the ranking,
                                         * what the thread list shows before thread_order */
    size_t n_top;
    bool list_partial;                  /* the thread list shows only top_order */
    lanes_memo *lanes_memo;             /* owned; what the lanes keep between frames */
    /* The HEC lanes' bins (busybins), made on bins_th once the thread list's totals are
     * in (async_totals, not for a live log) and handed to lanes_memo. */
    pthread_t bins_th;
    bool bins_running;                  /* bins_th was started and not yet joined */
    bool bins_done;                     /* made (or given up) for this index */
    atomic_bool bins_ready;             /* bins_th has stored bins_result */
    atomic_bool bins_cancel;            /* bins_th gives up */
    busybins *bins_result;              /* owned; bins_th's result until taken */
    bool dragging;              /* the left button is down in the plot */
    bool drag_selecting;        /* ... and has moved: the drag's selection follows it */
    int drag_col;               /* where the button went down */

    bool events_on;             /* the event pane replaces the detail pane */
    bool events_follow;         /* the pane re-centres on the cursor */
    eventpane *events;          /* owned */
    int help_scroll;

    char *path;                 /* owned; the log's path as given (copy as command) */
    bool prompt_filter;         /* the MODE_SEARCH prompt edits the event pane's text
                                 * filter, not a search */
    char *commands[2];          /* owned; the copy-as-command list's rows (stats,
                                 * snapshot) while it is open */
    strbuf clip;                /* text for the terminal's clipboard (OSC 52) */
    bool clip_pending;          /* ... not yet taken by the loop (app_take_clipboard) */

    char msg[512];              /* a message for the status line */
    bool msg_sticky;            /* show msg instead of the description of the cursor */
    strbuf status;              /* the status line as last drawn */
    bool quit, redraw, suspend;
    app_gc *gc;                 /* owned; the MMU plot and worst list, NULL until used */
    app_two *two;               /* owned; the second log of the two-log view, or NULL */
    char disk_warning[160];     /* the file changed on disk (app_disk.c), "" if not */
    bool disk_gone;             /* ... and lost bytes we mapped: the warning is final */

    /* A live log (applive.c): its index is replaced as it grows (app_swap_index). */
    bool live;
    bool live_follow;           /* the view's right edge is "now" and slides with it */
    char live_text[200];        /* header: source, state, events/s, lag ("" if none) */
    bool live_alert;            /* live_text tells of a long pause: drawn as a warning */
    bool live_request;          /* F on a file that grows: the loop is to follow it */
    threadstats_mark live_mark; /* what thread_memo's rows counted (carried at swaps) */
};

/* Put `ix` (borrowed, the log's index now that it has grown) in place of a->ix: lanes,
 * event pane, thread totals and search matches are made again from it; the view keeps
 * its place, or slides to the new end while following (app.c). */
void app_swap_index(app *a, const evindex *ix);
/* Slide the view, at its zoom, so that its right edge is the log's newest event. */
void app_follow_now(app *a);

/* The item under the cursor on the selected lane, one column of slack; kind
 * LANE_ITEM_NONE (and false) when there is none (app.c). */
bool app_item(const app *a, lane_item *it);
/* Recompute the rows of each part for the size and panes (app.c). */
void app_relayout(app *a);
/* Make the lanes again from the index, without the hidden groups (opts.hidden_lanes),
 * keeping the selected lane when it is still shown (app.c). */
void app_build_lanes(app *a);
/* The printing resolution of the cursor's and the selection's times: one column's width
 * (at least 1 ns) as a power of ten, timefmt_res (app.c). */
uint64_t app_col_res(const app *a);

/* The two-log view (app_two.c): rows it wants of `avail` (0 without a second log), its
 * drawing at a->lay.two_line, and freeing it. */
int app_two_rows(const app *a, int avail);
void app_two_draw(app *a, surface *s, const lanes_draw_opts *lo);
/* The second log's lanes made again without the hidden groups, both logs' labels tagged
 * again (after app_build_lanes). */
void app_two_relane(app *a);
void app_two_free(app *a);

/* Show `l` (consumed) as the popup list of `kind` (app.c). */
void app_open_list(app *a, uilist *l, enum app_list_kind kind);

/* GC analysis (app_gc.c). `u`: the MMU plot of the selection or the whole log (MODE_MMU);
 * `W`: the worst windows of the plot's window length (10 ms before any plot) as a list;
 * the list's Enter selects and shows the chosen window. */
void app_gc_open_mmu(app *a);
void app_gc_open_worst(app *a);
void app_gc_mmu_action(app *a, enum keymap_action act);
void app_gc_choose_worst(app *a, uint64_t payload);
void app_gc_free(app *a);
/* The plot's points are being computed on a worker thread (the interactive loop); poll
 * takes those finished since the last call: true if the plot on screen changed. */
bool app_gc_pending(const app *a);
bool app_gc_poll(app *a);
/* Draw the plot in the popup box. */
void app_gc_draw_mmu(app *a, surface *s, int col, int line, int cols, int lines);
/* The small pause histogram at the top of the box the collection list takes; returns
 * the rows it used (0: none, when there is no room or no pause). */
int app_gc_draw_hist(app *a, surface *s, int col, int line, int cols, int max_lines);
/* The ranking of the GC list (a->gc_order) and the whole log's pause histogram
 * (a->gc_hist), made in one pass over the collections if not made yet. */
void app_gc_rank(app *a);

#endif
