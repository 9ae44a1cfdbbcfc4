/* show: streams the ghc-events-compatible listing through a large output buffer. */
#include "show.h"

#include "merge.h"
#include "render.h"
#include "strbuf.h"

#define SHOW_FLUSH_BYTES (1u << 20)

static bool
show_flush(strbuf *sb, FILE *out)
{
    bool ok = fwrite(sb->data, 1, sb->len, out) == sb->len;
    strbuf_reset(sb);
    return ok;
}

bool
show_write(const evlog *log, FILE *out, diag *ending, show_stats *stats)
{
    strbuf sb;
    strbuf_init(&sb);
    strbuf_reserve(&sb, SHOW_FLUSH_BYTES + 4096);
    bool ok = true;

    strbuf_puts(&sb, "Event Types:\n");
    for (size_t i = 0; i < evlog_n_types(log); i++) {
        render_type_line(&sb, evlog_type_at(log, i));
        strbuf_putc(&sb, '\n');
        if (sb.len >= SHOW_FLUSH_BYTES)
            ok = show_flush(&sb, out) && ok;
    }
    strbuf_puts(&sb, "\nEvents:\n");

    evlog_advise_sequential(log);
    merge *m = merge_new(log, ending);
    render *r = render_new();
    render_set_log(r, log);
    evlog_event ev;
    size_t n = 0;
    while (merge_next(m, &ev)) {
        render_show_line(r, &sb, &ev);
        n++;
        if (sb.len >= SHOW_FLUSH_BYTES) {
            ok = show_flush(&sb, out) && ok;
            if (!ok)
                break;
        }
    }
    strbuf_putc(&sb, '\n');
    ok = show_flush(&sb, out) && ok;
    if (stats) {
        stats->n_events = n;
        stats->peak_pending = merge_peak_pending(m);
    }
    render_free(r);
    merge_free(m);
    strbuf_free(&sb);
    return ok && fflush(out) == 0;
}
