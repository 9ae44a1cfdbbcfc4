/* eventpane: the raw event list pane (key e), ThreadScope's "Raw events" synced with
 * the timeline cursor — a window of a few screens of events around the cursor, in
 * time order, each line exactly as `elog-tui show` prints it, with its own selection
 * that scrolls through the whole log loading events before and after as needed. */
#ifndef ELOG_EVENTPANE_H
#define ELOG_EVENTPANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evindex.h"
#include "evseek.h"
#include "strbuf.h"
#include "surface.h"

typedef struct eventpane eventpane;

/* An empty pane over `ix` (borrowed: it must outlive the pane). Caller frees with
 * eventpane_free. */
eventpane *eventpane_new(const evindex *ix);
/* eventpane_free(NULL) is a no-op. */
void eventpane_free(eventpane *p);

/* Load the events around the cursor: up to `rows` (< 1 means 1) before and `rows` from
 * the first event at or after `cursor_ns` (the cursor event), which is selected —
 * unless the selected event has time exactly `cursor_ns` and is still loaded (so a
 * GOTO_EVENT keeps its event). `rows` should be the pane's body lines (its lines - 1);
 * the next draw centres the cursor event. The same cursor_ns and rows as the last sync
 * is a no-op, so the pane's own scrolling survives redraws. The work is bounded: time
 * windows grow by doubling, at most 4 * rows events are kept. */
void eventpane_sync(eventpane *p, uint64_t cursor_ns, int rows);
/* Move the selection by `delta` events (+ is later), loading events before or after
 * across window boundaries; clamped at the first and last events of the log. */
void eventpane_scroll(eventpane *p, int delta);
/* Select the log's first (last) event. */
void eventpane_first(eventpane *p);
void eventpane_last(eventpane *p);

/* Show only events of type id `type` (-1: every type) whose `show` line holds `text`
 * (ASCII case ignored; NULL or "" for any text). Scrolling, g/G and the sync then move
 * among those events only, reading on through the log past the others — at most about
 * 262,144 events a fetch (a tenth of a second): when a filter few events pass runs out
 * of that, the pane says how far it searched, and the next scroll that way (Down / Up,
 * also with nothing loaded) searches on from there. The next eventpane_sync reloads. */
void eventpane_set_filter(eventpane *p, int type, const char *text);
/* The filters in force: the type id or -1, the text or "". */
int eventpane_filter_type(const eventpane *p);
const char *eventpane_filter_text(const eventpane *p);

/* The selected event's time; false when the pane holds no events. */
bool eventpane_selected_time(const eventpane *p, uint64_t *t_ns);
/* The selected event (time, file offset, cap); false when the pane holds no events. */
bool eventpane_selected(const eventpane *p, evseek_hit *hit);

/* Loaded events, for tests and callers that look closer: how many, the index of the
 * selected one and of the cursor event (SIZE_MAX if not loaded), one of them, and its
 * `show` line appended to `sb` without the newline (false if i is out of range). */
size_t eventpane_n_loaded(const eventpane *p);
/* How many times a sync read its window of events from the log (tests: a sync near
 * the last one answers from the window it kept). */
size_t eventpane_window_reads(const eventpane *p);
size_t eventpane_selected_index(const eventpane *p);
size_t eventpane_cursor_index(const eventpane *p);
bool eventpane_hit_at(const eventpane *p, size_t i, evseek_hit *hit);
bool eventpane_line(const eventpane *p, size_t i, strbuf *sb);

/* Draw into the cols x lines rectangle at (col, line), never outside it: a header line
 * ("events near 1.234s", STYLE_POPUP_TITLE), then the events in STYLE_EVENT_LIST, each
 * cut at the right edge, the cursor event in STYLE_CURSOR and, when `focused`, the
 * selection in STYLE_POPUP_SEL, scrolled to keep the selection in view. O(lines). */
void eventpane_draw(eventpane *p, surface *s, int col, int line, int cols, int lines,
                    bool focused);

#endif
