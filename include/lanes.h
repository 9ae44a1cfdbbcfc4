/* lanes: the rows of the timeline — which lanes a log has (activity, one per HEC,
 * non-moving, markers, heap, sparks), how each screen cell of a lane summarises exactly
 * the time its column covers, and the items (runs, GCs, phases, markers) under a time. */
#ifndef ELOG_LANES_H
#define ELOG_LANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "busybins.h"
#include "evindex.h"
#include "surface.h"
#include "timeview.h"

typedef enum lane_kind {
    LANE_HEC,                   /* one capability: thread runs and GC phases */
    LANE_NONMOVING,             /* the non-moving collector's mark / sync / sweep */
    LANE_MARKERS,               /* traceMarker ticks with names, messages as dots */
    LANE_ACTIVITY,              /* utilisation over all HECs */
    LANE_HEAP,                  /* heap size (or live bytes) as a bar graph */
    LANE_SPARKS,                /* spark pool size (or spark creations) as bars */
    LANE_SPARK_CREATED,         /* one HEC's sparks created per column (cap_lane: its lane) */
    LANE_SPARK_CONVERTED,       /* one HEC's sparks converted (run or stolen) per column */
    LANE_SPARK_POOL,            /* one HEC's spark pool size */
    LANE_HEAPBANDS,             /* the heap profile's largest bands stacked, 3 rows */
    LANE_MEMORY,                /* megablocks allocated from the OS (MEM_RETURN), or
                                 * the blocks size, as a bar graph (GHC 9.2+) */
    LANE_TICKY,                 /* ticky-ticky samples: entries per sample as bars */
    LANE_PROF,                  /* time-profile samples (+RTS -p): each column's most
                                 * sampled cost centre, coloured by its place in the
                                 * whole log's profile, as high as its share */
} lane_kind;

/* Rows of the stacked heap-bands lane, and how many bands get a style of their own
 * (the rest are drawn together as "other"). */
#define LANES_BAND_ROWS 3
#define LANES_BAND_STYLES 6

typedef struct lane {
    lane_kind kind;
    size_t cap_lane;            /* evindex lane index for LANE_HEC, else 0 */
    char label[16];             /* "HEC 3", "global", "activity", "nonmoving", ... */
} lane;

/* Columns of the label area, the one-column gap after the label included. Labels longer
 * than LANES_LABEL_COLS - 1 are cut with an ellipsis. */
#define LANES_LABEL_COLS 10

/* Write the lanes this log has, in display order, into out[0 .. max) and return how
 * many there are (which may exceed max: then only max were written). The order is
 * ThreadScope's: "activity" (if any HEC lane has runs), "HEC 0" .. "HEC n" (none in a
 * log without a single run or GC phase; the no-capability lane of old logs, "global",
 * only if it has runs or GC phases), "nonmoving" if the
 * log has non-moving events, "markers" if it has markers or messages, "heap" if it has
 * heap size or live samples, "sparks" if a spark was ever created or pooled (spark
 * counters above zero, or spark events; the all-zero counters every threaded RTS posts
 * get no lane), then for each HEC that had sparks, as ThreadScope shows them, "created N",
 * "convert N" and "pool N" (sparklanes.h); then "bands" (heap-profile censuses),
 * "memory" (memory-return or blocks-size samples), "ticky" (ticky counters) and "prof"
 * (time-profile samples) when the log has them. */
size_t lanes_build(const evindex *ix, lane *out, size_t max);
/* Every lane of `ix` in a new array of exactly the needed size, its count in *n (the
 * array is never NULL). Caller frees (x_free). */
lane *lanes_build_all(const evindex *ix, size_t *n);
/* Whether evindex lane i is shown as a HEC lane (the no-capability lane only when it
 * has runs or GC phases; none when no lane has any); the activity lane and range
 * statistics sum over these. */
bool lanes_cap_shown(const evindex *ix, size_t i);

/* What lanes_draw keeps from one frame to the next for one index (the caller's, e.g. the
 * app's; NULL in lanes_draw_opts: everything made per frame): the heap bands' places by
 * peak and each census's bytes per band style, made on first use; and the last frames'
 * rows, copied into a frame that shows the same times of the index as it is with the
 * same options (one that only moves the cursor or the selection, or draws again). It
 * notices another index, or one grown (a live log), and starts again. */
typedef struct lanes_memo lanes_memo;
/* Empty memo. Caller frees with lanes_memo_free. */
lanes_memo *lanes_memo_new(void);
void lanes_memo_free(lanes_memo *m);
/* Rows lanes_draw copied from kept ones, since the memo was made (tests). */
size_t lanes_memo_reused(const lanes_memo *m);
/* Give the memo bins made for index ix as it is now (consumes b; NULL: none): while ix
 * stays so (the same index, events and end), the HEC lanes' run time at column
 * boundaries is bounded from them at zooms where a column spans several bins, and read
 * from the runs only where a cell's glyph needs it. Drawn the same either way. */
void lanes_memo_set_bins(lanes_memo *m, const evindex *ix, busybins *b);
/* Whether the memo holds bins for ix as it is now. */
bool lanes_memo_has_bins(const lanes_memo *m, const evindex *ix);

typedef struct lanes_draw_opts {
    bool ascii;                 /* only ASCII in every cell */
    bool mono;                  /* no colours: GC and non-moving phases get glyphs of their
                                 * own (GC work ▓, waiting ░, on a folded row braille bars;
                                 * mark ▒, sync █, sweep ░) so that glyphs alone tell them
                                 * from runs */
    size_t selected_lane;       /* index into the lanes array; its label is highlighted */
    bool hec_split;             /* HEC lanes take two rows: runs above, GC below, so both
                                 * show at any zoom (otherwise they are folded into one
                                 * row: GC wins a shared cell, as tall as the HEC was busy) */
    bool highlight;             /* show where thread `highlight_tid` runs */
    uint32_t highlight_tid;
    const struct threadlife *focus; /* the focused thread (app: Enter in the thread list),
                                 * or NULL: every column where it runs is drawn in
                                 * STYLE_THREAD_FOCUS, at any zoom (one binary search a
                                 * cell), as the run's eighth block in colour, '▚' in
                                 * monochrome and '@' in ASCII */
    lanes_memo *memo;           /* kept between frames, or NULL */
} lanes_draw_opts;

/* Screen rows lane `l` takes (2 for a HEC lane when o->hec_split, else 1). */
int lanes_rows(const lane *l, const lanes_draw_opts *o);

/* Draw lanes[first_lane ..] one per line from (col0, line0), at most n_rows of them:
 * each row is the label area, then the plot's v->width columns from col0 +
 * LANES_LABEL_COLS, all clipped to `width` columns. Every plot cell summarises exactly
 * the range timeview_col_range gives for its column, from the index's summaries
 * (O(log n) a cell, whatever the zoom):
 *  - HEC: any GC time in the column wins, in STYLE_GC_WORK if work >= waiting, else
 *    STYLE_GC_WAIT: on the GC row of a split lane a lower eighth block of the GC share
 *    (at least 1/8); on a folded lane (one row for runs and GC) a lower eighth block of
 *    the share the HEC was busy (running or in GC), so that a GC in a busy column still
 *    reads as busy; else the share of the column spent running as a lower eighth block,
 *    at least one eighth if any (STYLE_RUNNING, or STYLE_RUNNING_HL where the
 *    highlighted thread runs — checked only in columns with at most LANES_HL_SCAN runs,
 *    so dense columns never cost a scan and show no highlight); idle is a space in
 *    STYLE_IDLE. A run that alone covers at least 4 whole columns carries its thread's
 *    label, or its id if the label does not fit, in STYLE_RUN_TEXT.
 *  - non-moving: the phase with most time in the column (sync, the stop-the-world one,
 *    whenever present), as an eighth block of the phases' share, STYLE_NM_*.
 *  - markers: ▼ where the column holds a marker (STYLE_MARKER), followed by the first
 *    such marker's name up to one column before the next tick (STYLE_MARKER_TEXT, over
 *    any message dots there); a column holding only messages shows '·'.
 *  - activity: run time of all HECs / (column span x number of HECs), eighth blocks.
 *  - heap: the largest heap size in the column (the value in force at its start
 *    included, so the graph is continuous) relative to the log's largest, eighth
 *    blocks in STYLE_HEAP_SIZE; a log with live bytes but no heap size draws those in
 *    STYLE_HEAP_LIVE. Exact numbers are the detail pane's job.
 *  - sparks: the spark pool size likewise (STYLE_SPARKS); without spark counters, the
 *    number of sparks created in each column relative to the busiest visible column.
 *  - a HEC's spark creation / conversion: the sparks created / converted in the column
 *    (sparklanes.h), relative to the busiest visible column of every HEC's lane of that
 *    kind, so HECs compare (STYLE_SPARK_CREATED, STYLE_SPARK_CONVERTED); its pool: the
 *    largest pool size in the column relative to the largest of any HEC (STYLE_SPARKS).
 *  - heap bands: the census in force at the column's end, stacked from the bottom row
 *    up in band-by-peak order (the LANES_BAND_STYLES largest bands in STYLE_BAND_1..6,
 *    the rest STYLE_BAND_OTHER above them), LANES_BAND_ROWS rows tall for the largest
 *    census; a cell takes the style of the band with most of its height.
 *  - memory: MEM_RETURN's current megablocks likewise (STYLE_MEMORY), else BLOCKS_SIZE.
 *  - ticky: the entries of the ticky samples in the column (the largest), relative to
 *    the log's largest sample (STYLE_TICKY).
 * The cursor's column is restyled STYLE_CURSOR (glyph kept) on every lane; idle cells
 * inside the selection are STYLE_SELECTION. With o->ascii: runs '#' (>= 1/2) or '+',
 * GC 'G' (the same height: >= 1/2 of the column) or 'g', non-moving 'M' 'S' 'W', markers
 * '|', messages '.', bars " .:-=+*#", and text from the log with every non-ASCII
 * character as '?'. With o->mono (UTF-8): GC on its own row ▓ (work) or ░ (waiting), on a
 * folded row a braille bar (⣀ ⣤ ⣶ ⣿) as tall as the column is busy.
 * `o` may be NULL (UTF-8, no lane selected, no highlight). Allocates O(width) scratch. */
void lanes_draw(surface *s, int col0, int line0, int width, const evindex *ix,
                const lane *lanes, size_t n_lanes, size_t first_lane, int n_rows,
                const timeview *v, const lanes_draw_opts *o);

/* Most runs a column may hold for the highlight check to look at them. */
#define LANES_HL_SCAN 64

/* The level, 0..8 eighths, that lanes_draw gives `part` out of `whole`: rounded to the
 * nearest eighth, but at least 1 when part > 0 (0 when whole is 0). */
unsigned lanes_eighths(uint64_t part, uint64_t whole);
/* Whether lanes_eighths(a, whole) == lanes_eighths(b, whole), for a <= b: with one
 * division, not two (asked of the bounds on every cell a frame reads them for). */
bool lanes_eighths_same(uint64_t a, uint64_t b, uint64_t whole);

/* ---- items: what is under a time, and stepping from one to the next ------------------ */

enum {
    LANE_ITEM_NONE,
    LANE_ITEM_RUN,              /* index: run on the lane's runlane; tid set */
    LANE_ITEM_GC,               /* index: evindex_gc record. On a HEC lane start/end are
                                 * that capability's part (its GC_START .. GC_END), on
                                 * other lanes the collection's pause */
    LANE_ITEM_NM,               /* index: non-moving cycle; start/end: one phase */
    LANE_ITEM_MARKER,           /* index: evindex_marker_at */
    LANE_ITEM_MSG,              /* index: evindex_msg_at (a message, not a marker) */
    LANE_ITEM_SAMPLE,           /* one of a sample lane's own samples (start == end):
                                 * heap and memory: index into the lane's series; bands:
                                 * the census; ticky: the ticky sample; prof: the
                                 * time-profile sample */
};

typedef struct lane_item {
    int kind;                   /* LANE_ITEM_* */
    uint64_t start_ns, end_ns;  /* the item's time (start == end for instants) */
    size_t index;
    uint32_t tid;               /* the thread of a run, else 0 */
} lane_item;

/* The item under time t on lane l. HEC lanes: a GC phase overlapping [t, t + slack)
 * first (the column a GC shows in draws as GC), then the run containing t, then the
 * nearest GC phase or run within slack_ns of t. Non-moving: the phase containing t, else
 * the nearest within slack. Markers: the nearest marker within slack, else the nearest
 * message. Activity, heap, sparks: the collection whose pause contains t, else the
 * nearest within slack. The sample lanes (heap, bands, memory, ticky, prof): their own
 * sample within slack of t first (LANE_ITEM_SAMPLE), then the collection. True if
 * found. When nothing is found *out is kind NONE with start_ns = t and end_ns = t +
 * slack_ns (the cursor's column when t is its start and slack_ns its width: detail_item
 * reads the lane's values over it). */
bool lanes_item_at(const evindex *ix, const lane *l, uint64_t t, uint64_t slack_ns,
                   lane_item *out);

/* The next item on lane l (dir > 0: the first one starting after t) or the previous one
 * (dir < 0: the last one starting before t): runs and GCs in merged order on HEC lanes
 * (a run and a GC starting together: the GC first), phases on the non-moving lane,
 * markers and messages on the markers lane, collections on the activity and sparks
 * lanes, the lane's own samples (LANE_ITEM_SAMPLE) on the heap (heap size, else live
 * bytes), bands (censuses), memory (memory-return, else blocks-size samples), ticky and
 * prof lanes. False (and *out kind NONE) if there is none. O(log n). */
bool lanes_next_item(const evindex *ix, const lane *l, uint64_t t, int dir, lane_item *out);

/* The series whose samples are the heap lane's (heap size, else live bytes) or the
 * memory lane's (memory-return current megablocks, else blocks size); NULL for other
 * lanes. Borrowed. */
const series *lanes_sample_series(const evindex *ix, const lane *l);

/* Index of the first message (evindex_msg_at order) with time >= t; evindex_n_msgs if
 * none. O(log n). */
size_t lanes_msg_first_from(const evindex *ix, uint64_t t);

#endif
