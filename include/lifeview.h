/* lifeview: the detail pane's words for a focused thread — its life as one time-ordered
 * list (created, labelled, each run with its HEC, length and why it stopped, wake-ups
 * with the thread that woke it, migrations), a window of it around the cursor. Pure
 * text from a threadlife; no terminal. */
#ifndef ELOG_LIFEVIEW_H
#define ELOG_LIFEVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "detail.h"
#include "threadlife.h"

/* Number of entries in tl's life list: its runs plus its instants. */
size_t lifeview_n_entries(const threadlife *tl);

/* Append entry i (time order; runs and instants merged, an instant before a run that
 * starts at the same time) as one line without newline: "<exact time>  <text>", e.g.
 * "1.002345678s  HEC 1  ran 1.234ms, stopped: blocked on an MVar" or
 * "1.002000000s  woken by thread 3 (on HEC 0, it is on HEC 1)". *time_ns gets the
 * entry's time. False if i is out of range. */
bool lifeview_entry(const evindex *ix, const threadlife *tl, size_t i, strbuf *out,
                    uint64_t *time_ns);

/* The pane: a summary line ("Thread: 5 (worker) · 12 runs, run time 3.2ms · created
 * … by thread 1"), a key line, then up to `rows` - 2 entries around the cursor: the last
 * entry at or before cursor_ns marked "▶" ("> " with ascii), the window placed so it
 * shows. */
void lifeview_lines(detail_lines *out, const evindex *ix, const threadlife *tl,
                    uint64_t cursor_ns, int rows, bool ascii);
/* The pane while thread `tid`'s life is still being gathered: what the thread table
 * knows (label, wake-ups, migrations) and that the rest is being read. */
void lifeview_pending_lines(detail_lines *out, const evindex *ix, uint32_t tid, bool ascii);

#endif
