/* app_disk: noticing that the log's file changed on disk while the viewer shows it —
 * truncated under the mapping (bytes gone: the SIGBUS guard in mapfile.c kept us
 * alive), grown, rewritten or replaced — and saying so in the header. The view keeps
 * what was indexed; reopening is up to the user. */
#include <stdio.h>
#include <string.h>

#include "app_int.h"
#include "evlog.h"

bool
app_poll_disk(app *a)
{
    if (a->disk_gone)
        return false;
    const evlog *log = evindex_log(a->ix);
    char was[sizeof a->disk_warning];
    memcpy(was, a->disk_warning, sizeof was);
    uint64_t off;
    if (evlog_changed(log, &off)) {
        snprintf(a->disk_warning, sizeof a->disk_warning,
                 "file changed on disk at byte %llu: showing what was indexed",
                 (unsigned long long)off);
        a->disk_gone = true;
    } else if (evlog_stale(log) && evindex_truncated(a->ix)) {
        /* No end marker and changed: most likely a program still writing it. */
        snprintf(a->disk_warning, sizeof a->disk_warning,
                 "file changed on disk: still being written? F follows it live");
    } else if (evlog_stale(log)) {
        snprintf(a->disk_warning, sizeof a->disk_warning,
                 "file changed on disk: showing what was indexed");
    }
    return strcmp(was, a->disk_warning) != 0;
}

const char *
app_disk_warning(const app *a)
{
    return a->disk_warning;
}
