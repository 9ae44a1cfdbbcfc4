/* fuzz_decode_show: libFuzzer target for decoding and rendering — `show` over any
 * bytes (written to /dev/null), every event decoded and rendered in file order, and
 * the `stats` path (the time-ordered merge into gcstats, then its report). */
#include <stdio.h>
#include <stdlib.h>

#include "decode.h"
#include "diag.h"
#include "evlog.h"
#include "gcstats.h"
#include "merge.h"
#include "render.h"
#include "show.h"
#include "statsfmt.h"
#include "strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *fuzz_null;
static render *fuzz_render;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_null) {
        fuzz_null = fopen("/dev/null", "w");
        fuzz_render = render_new();
        if (!fuzz_null)
            abort();
    }
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(data, size, &d);
    if (!log)
        return 0;

    diag ending;
    show_stats st;
    if (!show_write(log, fuzz_null, &ending, &st))
        __builtin_trap();
    if (ending.code != DIAG_OK && ending.offset > size)
        __builtin_trap();

    /* File order: decode and render each event on its own. */
    strbuf sb;
    strbuf_init(&sb);
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    while (evlog_iter_next(&it, &ev)) {
        evdecoded dec;
        decode_event(&ev, &dec);
        strbuf_reset(&sb);
        render_show_line(fuzz_render, &sb, &ev);
    }

    /* stats: the merge feeds gcstats in time order. */
    diag mending;
    merge *m = merge_new(log, &mending);
    gcstats *g = gcstats_new(NULL);
    size_t n = 0;
    while (merge_next(m, &ev)) {
        gcstats_add(g, &ev);
        n++;
    }
    if (n != merge_n_events(m) || n != st.n_events)
        __builtin_trap();
    merge_free(m);
    gcstats_report r;
    gcstats_finish(g, mending.code != DIAG_OK, &r);
    gcstats_free(g);
    strbuf_reset(&sb);
    statsfmt_report(&sb, &r);
    strbuf_free(&sb);
    evlog_close(log);
    return 0;
}
