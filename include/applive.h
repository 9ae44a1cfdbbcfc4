/* applive: the viewer over a live log. Between frames it takes the bytes that came,
 * indexes them into the index that grows (evindex_grow: only the new data, a bounded
 * amount of work a frame), and puts the grown index in the app's place; the header tells the
 * source, its state (live, program ended, connection lost), events per second and the
 * lag from the newest byte to the screen; a collection pausing longer than the alert
 * threshold flashes there and is kept. The marker and GC lists are made again with each
 * new index (keeping their filter and selection); the thread list and the search prompt
 * hold the index until they close. */
#ifndef ELOG_APPLIVE_H
#define ELOG_APPLIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app.h"
#include "evindex.h"
#include "livelog.h"

typedef struct applive applive;

/* A long pause seen live. */
typedef struct applive_alert {
    uint64_t start_ns, pause_ns;
} applive_alert;

/* Over `l` (borrowed; its log is open), indexing the bytes it holds now (at most a
 * few tens of ms of them: the rest comes with the polls). alert_pause_ns 0: no alerts.
 * Caller frees with applive_free. */
applive *applive_new(livelog *l, uint64_t alert_pause_ns);
/* The index to draw. Owned by lv; it changes in place at applive_poll (which then puts
 * it in the app's place again). */
const evindex *applive_index(const applive *lv);
/* Mark `a` as live (following) and fill its header. */
void applive_attach(applive *lv, app *a);
/* Take new bytes, index them, put the grown index in a's place (not while the thread
 * list or the search prompt is open: then when it closes), update the header.
 * True when the screen changed. */
bool applive_poll(applive *lv, app *a);
/* From the arrival of the newest byte in the index drawn to the moment it was put in
 * place (the last swap), ns. */
uint64_t applive_lag_ns(const applive *lv);
/* How long the loop may wait for input before the next applive_poll, in ms. */
int applive_poll_ms(const applive *lv);
/* The long pauses seen, oldest first; *n receives the count. Owned by lv. */
const applive_alert *applive_alerts(const applive *lv, size_t *n);
/* Free the index; NULL is a no-op. */
void applive_free(applive *lv);

/* Text for the header from the parts (exposed for tests): "NAME · STATE · R ev/s ·
 * lag L · following|F follows" or with an alert. */
void applive_header_text(char *buf, size_t len, const char *name, const char *state,
                         double events_per_s, uint64_t lag_ns, bool following, bool ended);

#endif
