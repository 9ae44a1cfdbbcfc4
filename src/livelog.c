/* livelog: opens a growing evlog over a live source's file once its header is whole
 * and grows it as the source's thread reports bytes. */
#include "livelog.h"

#include "xalloc.h"

struct livelog {
    livesrc *src;               /* owned */
    evlog *log;                 /* owned; NULL until the header is whole */
    uint64_t tried;             /* bytes the header was last tried on */
    diag header;                /* why it did not parse then */
    bool final;
    bool failed;
};

livelog *
livelog_open(const char *spec, const livesrc_opts *o, diag *d)
{
    livesrc *src = livesrc_open(spec, o, d);
    if (!src)
        return NULL;
    livelog *l = xcalloc(1, sizeof *l);
    l->src = src;
    return l;
}

bool
livelog_update(livelog *l, int timeout_ms, livesrc_status *st, diag *err)
{
    livesrc_status s;
    if (l->failed)
        return false;
    uint64_t have = l->log ? evlog_size(l->log) : l->tried;
    livesrc_wait(l->src, have, timeout_ms, &s);
    if (st)
        *st = s;
    /* Final only once the bytes that came before the end are taken below. */
    bool ending = s.state == LIVESRC_ENDED || s.state == LIVESRC_LOST;
    if (!l->log && s.bytes > l->tried) {
        bool short_header;
        diag d;
        l->tried = s.bytes;
        l->log = evlog_open_growing(livesrc_fd(l->src), (size_t)s.bytes, LIVELOG_RESERVE,
                                    &d, &short_header);
        l->header = d;
        if (!l->log && (!short_header || ending)) {
            l->failed = true;
            *err = d;
            return false;
        }
    } else if (l->log && s.bytes > evlog_size(l->log)) {
        if (!evlog_grow(l->log, (size_t)s.bytes, err)) {
            l->failed = true;
            return false;
        }
    }
    if (ending && !l->log) {
        l->failed = true;
        if (s.state == LIVESRC_LOST && !s.bytes)
            *err = s.err;
        else if (s.bytes)
            *err = l->header;   /* as the file of these bytes would say */
        else
            diag_set(err, DIAG_NOT_EVENTLOG, DIAG_NO_OFFSET, "the stream ended with no bytes");
        return false;
    }
    l->final = ending;
    return true;
}

evlog *
livelog_log(const livelog *l)
{
    return l->log;
}

livesrc *
livelog_src(const livelog *l)
{
    return l->src;
}

bool
livelog_final(const livelog *l)
{
    return l->final;
}

evlog *
livelog_detach(livelog *l)
{
    evlog *log = l->log;
    l->log = NULL;
    livelog_close(l);
    return log;
}

void
livelog_close(livelog *l)
{
    if (!l)
        return;
    evlog_close(l->log);
    livesrc_close(l->src);
    x_free(l);
}
