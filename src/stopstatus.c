/* stopstatus: STOP_THREAD status names and classes per GHC numbering (see stopstatus.h).
 * One table per numbering: text and class side by side. */
#include "stopstatus.h"

#include <stdbool.h>

/* Texts with an info field are special-cased in stopstatus_name. */
typedef struct stopstatus_row {
    const char *text;
    enum threadtab_stop_class cls;
} stopstatus_row;

#define ROW(t, c) { t, THREADTAB_STOP_##c }

/* Codes 0-7 are the same in every numbering. */
#define COMMON_ROWS                                                                 \
    [0] = ROW("No stop thread status", OTHER),                                      \
    [1] = ROW("heap overflow", HEAP_OVERFLOW),                                      \
    [2] = ROW("stack overflow", STACK_OVERFLOW),                                    \
    [3] = ROW("thread yielding", YIELD),                                            \
    [4] = ROW("thread blocked", BLOCKED),                                           \
    [5] = ROW("thread finished", FINISHED),                                         \
    [6] = ROW("making a foreign call", FOREIGN),                                    \
    [7] = ROW("blocked on an MVar", MVAR)

static const stopstatus_row stopstatus_783[] = {
    COMMON_ROWS,
    [8] = ROW("blocked on black hole", BLACKHOLE),
    [9] = ROW("blocked on I/O read", IO),
    [10] = ROW("blocked on I/O write", IO),
    [11] = ROW("blocked on threadDelay", IO),
    [12] = ROW("blocked in STM retry", STM),
    [13] = ROW("blocked on asyncDoProc", IO),
    [16] = ROW("blocked on a foreign call", FOREIGN),
    [17] = ROW("blocked on an interruptible foreign call", FOREIGN),
    [18] = ROW("blocked in throwTo", THROWTO),
    /* 6 + ThreadMigrating; ghc-events prints it as no status. */
    [19] = ROW("No stop thread status", OTHER),
    [20] = ROW("blocked reading an MVar", MVAR),
    /* 6 + BlockedOnIOCompletion (the Windows I/O manager, GHC 9.0+). */
    [21] = ROW("blocked on an I/O completion", IO),
};

static const stopstatus_row stopstatus_782[] = {
    COMMON_ROWS,
    [8] = ROW("blocked reading an MVar", MVAR),
    [9] = ROW("blocked on black hole", BLACKHOLE),
    [10] = ROW("blocked on I/O read", IO),
    [11] = ROW("blocked on I/O write", IO),
    [12] = ROW("blocked on threadDelay", IO),
    [13] = ROW("blocked in STM retry", STM),
    [14] = ROW("blocked on asyncDoProc", IO),
    [15] = ROW("blocked in a foreign call", FOREIGN),
    [16] = ROW("blocked in a foreign call", FOREIGN),
    [17] = ROW("blocked in throwTo", THROWTO),
    [18] = ROW("thread migrating", OTHER),
    [19] = ROW("waiting for data to be globalised", OTHER),
};

static const stopstatus_row stopstatus_pre77[] = {
    COMMON_ROWS,
    [8] = ROW("blocked on black hole", BLACKHOLE),
    [9] = ROW("blocked on I/O read", IO),
    [10] = ROW("blocked on I/O write", IO),
    [11] = ROW("blocked on threadDelay", IO),
    [12] = ROW("blocked in STM retry", STM),
    [13] = ROW("blocked on asyncDoProc", IO),
    [14] = ROW("blocked in a foreign call", FOREIGN),
    [15] = ROW("blocked in a foreign call", FOREIGN),
    [16] = ROW("blocked in throwTo", THROWTO),
    [17] = ROW("thread migrating", OTHER),
    [18] = ROW("waiting for data to be globalised", OTHER),
};

static const struct {
    const stopstatus_row *rows;
    unsigned n;
    unsigned blackhole;         /* the code whose info is the black hole's owner */
    const char *name;
} stopstatus_tables[] = {
    [STOPSTATUS_GHC783] = { stopstatus_783, sizeof stopstatus_783 / sizeof stopstatus_783[0],
                            8, "GHC 7.8.3 or later" },
    [STOPSTATUS_GHC782] = { stopstatus_782, sizeof stopstatus_782 / sizeof stopstatus_782[0],
                            9, "GHC 7.8.2" },
    [STOPSTATUS_PRE77] = { stopstatus_pre77,
                           sizeof stopstatus_pre77 / sizeof stopstatus_pre77[0], 8,
                           "GHC before 7.7" },
};

stopstatus_era
stopstatus_era_of(const evlog *log)
{
    if (!evlog_type_of(log, EV_USER_MARKER))
        return STOPSTATUS_PRE77;
    if (!evlog_type_of(log, EV_HACK_BUG_T9003))
        return STOPSTATUS_GHC782;
    return STOPSTATUS_GHC783;
}

const char *
stopstatus_era_name(stopstatus_era era)
{
    return (unsigned)era <= STOPSTATUS_PRE77 ? stopstatus_tables[era].name : "?";
}

static const stopstatus_row *
stopstatus_row_of(stopstatus_era era, uint16_t status)
{
    if ((unsigned)era > STOPSTATUS_PRE77)
        era = STOPSTATUS_GHC783;
    if (status >= stopstatus_tables[era].n || !stopstatus_tables[era].rows[status].text)
        return NULL;
    return &stopstatus_tables[era].rows[status];
}

void
stopstatus_name(strbuf *sb, stopstatus_era era, uint16_t status, uint32_t info)
{
    if ((unsigned)era > STOPSTATUS_PRE77)
        era = STOPSTATUS_GHC783;
    if (status == 2) {
        strbuf_puts(sb, "stack overflow, size ");
        strbuf_u64(sb, info);
        return;
    }
    if (status == stopstatus_tables[era].blackhole) {
        strbuf_puts(sb, "blocked on black hole owned by thread ");
        strbuf_u64(sb, info);
        return;
    }
    const stopstatus_row *r = stopstatus_row_of(era, status);
    if (r) {
        strbuf_puts(sb, r->text);
    } else {
        strbuf_puts(sb, "unknown stop status ");
        strbuf_u64(sb, status);
    }
}

enum threadtab_stop_class
stopstatus_class(stopstatus_era era, uint16_t status)
{
    const stopstatus_row *r = stopstatus_row_of(era, status);
    return r ? r->cls : THREADTAB_STOP_OTHER;
}
