/* live: the commands over live sources (a followed file, stdin, a FIFO, an eventlog
 * socket) — reading until the stream ends, and the commands that print rows as soon
 * as they can be placed in time order. Part of main: it prints and chooses exit
 * statuses. */
#ifndef ELOG_CLI_LIVE_H
#define ELOG_CLI_LIVE_H

#include <stdbool.h>

#include "evlog.h"
#include "livesrc.h"
#include "reports.h"

/* Read `spec` to its end (the end of the stream; for a followed file, its end
 * marker), or until Ctrl-C: the log of every byte read, caller closes. On failure
 * (cannot connect, not an eventlog) one line and exit 1. */
evlog *live_collect(const char *spec, const livesrc_opts *o);
/* `show` over a live source: the listing, each event printed once placed; exit status. */
int live_show(const char *spec, const livesrc_opts *o);
/* `gc` or `markers` (tab-separated, in time order) over a live source: rows printed
 * once final; exit status. */
int live_table(const char *spec, const livesrc_opts *o, const char *cmd, const reports_opts *ro);

#endif
