/* fuzz_index: libFuzzer target for the timeline index and everything drawn from it —
 * evindex_build over any bytes, its invariant checker (a failure is a crash), the
 * gc/markers/threads reports as TSV and JSON, and the viewer run headless on a small
 * screen through a few keys that open lists, jump, search and show panes. */
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "diag.h"
#include "evindex.h"
#include "evlog.h"
#include "reports.h"
#include "strbuf.h"
#include "surface.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keys pressed one by one, the frame drawn after each. */
static const char *const fuzz_keys[] = {
    "]", "p", "Down", "Enter", "n", "e", "Down", "Enter", "Escape", "m", "Enter", "t",
    "End", "Enter", "/", "a", "Enter", "n", "z", "Space", "Right", "Space", "?", "q",
};

static void
fuzz_reports(const evindex *ix)
{
    strbuf sb;
    strbuf_init(&sb);
    for (int json = 0; json < 2; json++) {
        reports_opts o = { .json = json != 0 };
        reports_gc(&sb, ix, &o);
        o.sort_by_pause = true;
        o.limit = 3;
        reports_gc(&sb, ix, &o);
        o = (reports_opts){ .json = json != 0, .messages = json != 0 };
        reports_markers(&sb, ix, &o);
        o = (reports_opts){ .json = json != 0, .sort_by_run = json != 0 };
        reports_threads(&sb, ix, &o);
        o = (reports_opts){ .json = json != 0, .censuses = json != 0 };
        reports_heap(&sb, ix, &o);
        o.censuses = !o.censuses;
        reports_heap(&sb, ix, &o);
        strbuf_reset(&sb);
    }
    strbuf_free(&sb);
}

static void
fuzz_app(const evindex *ix)
{
    app_opts ao = { .ascii = false };
    app *a = app_new(ix, "fuzz.eventlog", 60, 20, &ao);
    surface *s = surface_new(60, 20);
    app_draw(a, s);
    for (size_t i = 0; i < sizeof fuzz_keys / sizeof fuzz_keys[0]; i++) {
        app_key(a, fuzz_keys[i]);
        if (app_quit_requested(a))
            break;
        app_draw(a, s);
    }
    app_resize(a, 7, 3);
    app_draw(a, s);
    surface_free(s);
    app_free(a);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(data, size, &d);
    if (!log)
        return 0;
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    if (!ix)
        __builtin_trap();       /* only a cancelled build returns NULL */
    char why[512];
    if (!evindex_check(ix, why, sizeof why)) {
        fprintf(stderr, "evindex_check: %s\n", why);
        abort();
    }
    fuzz_reports(ix);
    fuzz_app(ix);
    evindex_free(ix);
    evlog_close(log);
    return 0;
}
