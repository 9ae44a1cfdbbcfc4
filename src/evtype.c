/* evtype: the table of known event types — payload layout and the `show` template
 * for each. Templates reproduce ghc-events 0.21's rendering; see render.h for the
 * template language. Ids are sorted so lookup is a binary search. */
#include "evtype.h"

#include <stddef.h>

#define U8 EVF_U8
#define U16 EVF_U16
#define U32 EVF_U32
#define U64 EVF_U64
#define TEXT EVF_TEXT_REST
#define CSTR EVF_CSTR

/* FIXED(id, name, n_required, template, fields...) / VAR(...) */
#define NARGS(...) (sizeof((uint8_t[]){__VA_ARGS__}) / sizeof(uint8_t))
#define FIXED(id_, name_, req_, fmt_, ...)                                                   \
    { id_, name_, false, NARGS(__VA_ARGS__), req_, { __VA_ARGS__ }, fmt_ }
#define FIXED0(id_, name_, fmt_) { id_, name_, false, 0, 0, { 0 }, fmt_ }
#define VAR(id_, name_, req_, fmt_, ...)                                                     \
    { id_, name_, true, NARGS(__VA_ARGS__), req_, { __VA_ARGS__ }, fmt_ }

static const evtype_desc evtype_table[] = {
    FIXED(EV_CREATE_THREAD, "CREATE_THREAD", 1, "creating thread {0}", U32),
    FIXED(EV_RUN_THREAD, "RUN_THREAD", 1, "running thread {0}", U32),
    /* Old logs (size 6) lack the blocked-on field: the index still reads tid and status,
     * but ghc-events prints the header description for them. */
    FIXED(EV_STOP_THREAD, "STOP_THREAD", 3, "stopping thread {0} ({1:stop})", U32, U16, U32),
    FIXED(EV_THREAD_RUNNABLE, "THREAD_RUNNABLE", 1, "thread {0} is runnable", U32),
    FIXED(EV_MIGRATE_THREAD, "MIGRATE_THREAD", 2, "migrating thread {0} to cap {1}", U32, U16),
    FIXED(EV_RUN_SPARK_OLD, "RUN_SPARK", 1, NULL, U32),
    FIXED(EV_STEAL_SPARK_OLD, "STEAL_SPARK", 2, NULL, U32, U16),
    FIXED0(EV_SHUTDOWN, "SHUTDOWN", NULL),
    FIXED(EV_THREAD_WAKEUP, "THREAD_WAKEUP", 2, "waking up thread {0} on cap {1}", U32, U16),
    FIXED0(EV_GC_START, "GC_START", "starting GC"),
    FIXED0(EV_GC_END, "GC_END", "finished GC"),
    FIXED0(EV_REQUEST_SEQ_GC, "REQUEST_SEQ_GC", "requesting sequential GC"),
    FIXED0(EV_REQUEST_PAR_GC, "REQUEST_PAR_GC", "requesting parallel GC"),
    FIXED(EV_CREATE_SPARK_OLD, "CREATE_SPARK", 2, NULL, U16, U32),
    FIXED(EV_SPARK_TO_THREAD_OLD, "SPARK_TO_THREAD", 3, NULL, U16, U32, U32),
    FIXED(EV_CREATE_SPARK_THREAD, "CREATE_SPARK_THREAD", 1, "creating spark thread {0}", U32),
    VAR(EV_LOG_MSG, "LOG_MSG", 1, "{0}", TEXT),
    FIXED(EV_STARTUP, "STARTUP", 1, "startup: {0} capabilities", U16),
    FIXED(EV_BLOCK_MARKER, "BLOCK_MARKER", 3, "event block: cap {2}, end time: {1}\n",
          U32, U64, U16),
    VAR(EV_USER_MSG, "USER_MSG", 1, "{0}", TEXT),
    FIXED0(EV_GC_IDLE, "GC_IDLE", "GC idle"),
    FIXED0(EV_GC_WORK, "GC_WORK", "GC working"),
    FIXED0(EV_GC_DONE, "GC_DONE", "GC done"),
    VAR(EV_VERSION, "VERSION", 1, "compiler version is {0}", EVF_LATIN1_REST),
    VAR(EV_PROGRAM_INVOCATION, "PROGRAM_INVOCATION", 1, "program invocation: {0}",
        EVF_LATIN1_REST),
    FIXED(EV_CAPSET_CREATE, "CAPSET_CREATE", 2, "created capset {0} of type {1:capset}",
          U32, U16),
    FIXED(EV_CAPSET_DELETE, "CAPSET_DELETE", 1, "deleted capset {0}", U32),
    FIXED(EV_CAPSET_ASSIGN_CAP, "CAPSET_ASSIGN_CAP", 2, "assigned cap {1} to capset {0}",
          U32, U16),
    FIXED(EV_CAPSET_REMOVE_CAP, "CAPSET_REMOVE_CAP", 2, "removed cap {1} from capset {0}",
          U32, U16),
    VAR(EV_RTS_IDENTIFIER, "RTS_IDENTIFIER", 2, "capset {0}: RTS version \"{1}\"", U32, TEXT),
    VAR(EV_PROGRAM_ARGS, "PROGRAM_ARGS", 2, "capset {0}: args: {1:list}", U32, TEXT),
    VAR(EV_PROGRAM_ENV, "PROGRAM_ENV", 2, "capset {0}: env: {1:list}", U32, TEXT),
    FIXED(EV_OSPROCESS_PID, "OSPROCESS_PID", 2, "capset {0}: pid {1}", U32, U32),
    FIXED(EV_OSPROCESS_PPID, "OSPROCESS_PPID", 2, "capset {0}: parent pid {1}", U32, U32),
    /* Fields in file order: created, dud, overflowed, converted, GC'd, fizzled, remaining. */
    FIXED(EV_SPARK_COUNTERS, "SPARK_COUNTERS", 7,
          "spark stats: {0} created, {3} converted, {6} remaining ({2} overflowed, {1} dud, "
          "{4} GC'd, {5} fizzled)",
          U64, U64, U64, U64, U64, U64, U64),
    FIXED0(EV_SPARK_CREATE, "SPARK_CREATE", "spark created"),
    FIXED0(EV_SPARK_DUD, "SPARK_DUD", "dud spark discarded"),
    FIXED0(EV_SPARK_OVERFLOW, "SPARK_OVERFLOW", "overflowed spark discarded"),
    FIXED0(EV_SPARK_RUN, "SPARK_RUN", "running a local spark"),
    FIXED(EV_SPARK_STEAL, "SPARK_STEAL", 1, "stealing a spark from cap {0}", U16),
    FIXED0(EV_SPARK_FIZZLE, "SPARK_FIZZLE", "spark fizzled"),
    FIXED0(EV_SPARK_GC, "SPARK_GC", "spark GCed"),
    VAR(EV_INTERN_STRING, "INTERN_STRING", 2, "Interned string: \"{0}\" with id {1}",
        EVF_LATIN1_BUT4, U32),
    FIXED(EV_WALL_CLOCK_TIME, "WALL_CLOCK_TIME", 3,
          "capset {0}: wall clock time {1}s {2}ns (unix epoch)", U32, U64, U32),
    VAR(EV_THREAD_LABEL, "THREAD_LABEL", 2, "thread {0} has label \"{1}\"", U32, TEXT),
    FIXED(EV_CAP_CREATE, "CAP_CREATE", 1, "created cap {0}", U16),
    FIXED(EV_CAP_DELETE, "CAP_DELETE", 1, "deleted cap {0}", U16),
    FIXED(EV_CAP_DISABLE, "CAP_DISABLE", 1, "disabled cap {0}", U16),
    FIXED(EV_CAP_ENABLE, "CAP_ENABLE", 1, "enabled cap {0}", U16),
    FIXED(EV_HEAP_ALLOCATED, "HEAP_ALLOCATED", 2,
          "allocated on heap capset {0}: {1} total bytes till now", U32, U64),
    FIXED(EV_HEAP_SIZE, "HEAP_SIZE", 2, "size of heap capset {0}: {1} bytes", U32, U64),
    FIXED(EV_HEAP_LIVE, "HEAP_LIVE", 2, "live data in heap capset {0}: {1} bytes", U32, U64),
    FIXED(EV_HEAP_INFO_GHC, "HEAP_INFO_GHC", 6,
          "heap stats for heap capset {0}: generations {1}, {2} bytes max heap size, "
          "{3} bytes alloc area size, {4} bytes mblock size, {5} bytes block size",
          U32, U16, U64, U64, U64, U64),
    FIXED(EV_GC_STATS_GHC, "GC_STATS_GHC", 8,
          "GC stats for heap capset {0}: generation {1}, {2} bytes copied, {3} bytes slop, "
          "{4} bytes fragmentation, {5} par threads, {6} bytes max par copied, "
          "{7} bytes total par copied{8:balanced}",
          U32, U16, U64, U64, U64, U32, U64, U64, U64),
    FIXED0(EV_GC_GLOBAL_SYNC, "GC_GLOBAL_SYNC", "all caps stopped for GC"),
    FIXED(EV_TASK_CREATE, "TASK_CREATE", 3,
          "task 0x{0:x} created on cap {1} with OS kernel thread {2}", U64, U16, U64),
    FIXED(EV_TASK_MIGRATE, "TASK_MIGRATE", 3, "task 0x{0:x} migrated from cap {1} to cap {2}",
          U64, U16, U16),
    FIXED(EV_TASK_DELETE, "TASK_DELETE", 1, "task 0x{0:x} deleted", U64),
    VAR(EV_USER_MARKER, "USER_MARKER", 1, "marker: {0}", TEXT),
    FIXED0(EV_HACK_BUG_T9003, "HACK_BUG_T9003", NULL),
    FIXED0(EV_EDEN_START_RECEIVE, "EDEN_START_RECEIVE", "starting to receive"),
    FIXED0(EV_EDEN_END_RECEIVE, "EDEN_END_RECEIVE", "stop receiving"),
    FIXED(EV_CREATE_PROCESS, "CREATE_PROCESS", 1, "creating process {0}", U32),
    FIXED(EV_KILL_PROCESS, "KILL_PROCESS", 1, "killing process {0}", U32),
    FIXED(EV_ASSIGN_THREAD_TO_PROCESS, "ASSIGN_THREAD_TO_PROCESS", 2,
          "assigning thread {0} to process {1}", U32, U32),
    FIXED(EV_CREATE_MACHINE, "CREATE_MACHINE", 2, "creating machine {0} at {1}", U16, U64),
    FIXED(EV_KILL_MACHINE, "KILL_MACHINE", 1, "killing machine {0}", U16),
    FIXED(EV_SEND_MESSAGE, "SEND_MESSAGE", 6,
          "sending message with tag {0:msgtag} from process {1}, thread {2} to machine {3}, "
          "process {4} on inport {5}",
          U8, U32, U32, U16, U32, U32),
    FIXED(EV_RECEIVE_MESSAGE, "RECEIVE_MESSAGE", 7,
          "receiving message with tag {0:msgtag} at process {1}, inport {2} from machine {3}, "
          "process {4}, thread {5} with size {6}",
          U8, U32, U32, U16, U32, U32, U32),
    FIXED(EV_SEND_RECEIVE_LOCAL_MESSAGE, "SEND_RECEIVE_LOCAL_MESSAGE", 5,
          "sending/receiving message with tag {0:msgtag} from process {1}, thread {2} "
          "to process {3} on inport {4}",
          U8, U32, U32, U32, U32),
    FIXED(EV_MEM_RETURN, "MEM_RETURN", 4,
          "memory returned (mblocks): current({1}) needed({2}) returned({3})",
          U32, U32, U32, U32),
    FIXED(EV_BLOCKS_SIZE, "BLOCKS_SIZE", 2, "blocks size of heap capset {0}: {1} bytes",
          U32, U64),
    FIXED(EV_MER_START_PAR_CONJUNCTION, "MER_START_PAR_CONJUNCTION", 2,
          "Start a parallel conjunction 0x{0:x}, static_id: {1}", U64, U32),
    FIXED(EV_MER_STOP_PAR_CONJUNCTION, "MER_STOP_PAR_CONJUNCTION", 1,
          "End par conjunction: 0x{0:x}", U64),
    FIXED(EV_MER_STOP_PAR_CONJUNCT, "MER_STOP_PAR_CONJUNCT", 1, "End par conjunct: 0x{0:x}",
          U64),
    FIXED(EV_MER_CREATE_SPARK, "MER_CREATE_SPARK", 2,
          "Create spark for conjunction: 0x{0:x} spark: 0x{1:x}", U64, U32),
    FIXED(EV_MER_FUT_CREATE, "MER_FUT_CREATE", 2, "Create future 0x{0:x} named {1}", U64, U32),
    FIXED(EV_MER_FUT_WAIT_NOSUSPEND, "MER_FUT_WAIT_NOSUSPEND", 1,
          "Wait didn't suspend for future: 0x{0:x}", U64),
    FIXED(EV_MER_FUT_WAIT_SUSPENDED, "MER_FUT_WAIT_SUSPENDED", 1,
          "Wait suspended on future: 0x{0:x}", U64),
    FIXED(EV_MER_FUT_SIGNAL, "MER_FUT_SIGNAL", 1, "Signaled future 0x{0:x}", U64),
    FIXED0(EV_MER_LOOKING_FOR_GLOBAL_CONTEXT, "MER_LOOKING_FOR_GLOBAL_CONTEXT",
           "Looking for global thread to resume"),
    FIXED0(EV_MER_WORK_STEALING, "MER_WORK_STEALING", "Trying to steal a spark"),
    FIXED(EV_MER_RELEASE_CONTEXT, "MER_RELEASE_CONTEXT", 1,
          "Releasing thread {0} to the free pool", U32),
    FIXED0(EV_MER_ENGINE_SLEEPING, "MER_ENGINE_SLEEPING", "Capability going to sleep"),
    FIXED0(EV_MER_LOOKING_FOR_LOCAL_SPARK, "MER_LOOKING_FOR_LOCAL_SPARK",
           "Looking for a local spark to execute"),
    FIXED0(EV_MER_CALLING_MAIN, "MER_CALLING_MAIN", "About to call the program entry point"),
    VAR(EV_PERF_NAME, "PERF_NAME", 2, "perf event {0} named \"{1}\"", U32, TEXT),
    FIXED(EV_PERF_COUNTER, "PERF_COUNTER", 3,
          "perf event counter {0} incremented by {2:plus1} in OS thread {1}", U32, U64, U64),
    FIXED(EV_PERF_TRACEPOINT, "PERF_TRACEPOINT", 2,
          "perf event tracepoint {0} reached in OS thread {1}", U32, U64),
    VAR(EV_HEAP_PROF_BEGIN, "HEAP_PROF_BEGIN", 10,
        "start heap profiling {0} at sampling period {1} broken down by {2:breakdown}"
        "{3:filters}",
        U8, U64, U32, CSTR, CSTR, CSTR, CSTR, CSTR, CSTR, CSTR),
    VAR(EV_HEAP_PROF_COST_CENTRE, "HEAP_PROF_COST_CENTRE", 5,
        "cost centre {0} {1} in {2} at {3}{4:caf}", U32, CSTR, CSTR, CSTR, U8),
    FIXED(EV_HEAP_PROF_SAMPLE_BEGIN, "HEAP_PROF_SAMPLE_BEGIN", 1, "start heap prof sample {0}",
          U64),
    VAR(EV_HEAP_PROF_SAMPLE_COST_CENTRE, "HEAP_PROF_SAMPLE_COST_CENTRE", 3,
        "heap prof sample {0}, residency {1}, cost centre stack {2:ccs}", U8, U64, EVF_CCS),
    VAR(EV_HEAP_PROF_SAMPLE_STRING, "HEAP_PROF_SAMPLE_STRING", 3,
        "heap prof sample {0}, residency {1}, label {2}", U8, U64, CSTR),
    FIXED(EV_HEAP_PROF_SAMPLE_END, "HEAP_PROF_SAMPLE_END", 1, "end prof sample {0}", U64),
    FIXED(EV_HEAP_BIO_PROF_SAMPLE_BEGIN, "HEAP_BIO_PROF_SAMPLE_BEGIN", 2,
          "start heap prof sample {0} at time {1}", U64, U64),
    VAR(EV_PROF_SAMPLE_COST_CENTRE, "PROF_SAMPLE_COST_CENTRE", 3,
        "cap no {0:lo16}, prof sample {1}, cost centre stack {2:ccs}", U32, U64, EVF_CCS),
    FIXED(EV_PROF_BEGIN, "PROF_BEGIN", 1, "start time profiling, tick interval {0} (ns)", U64),
    VAR(EV_IPE, "IPE", 7, "Info Table: {0:x}:{2:decimal}:{1} - {6}",
        U64, CSTR, CSTR, CSTR, CSTR, CSTR, CSTR),
    VAR(EV_USER_BINARY_MSG, "USER_BINARY_MSG", 1, "binary message {0:binary}",
        EVF_BYTES_REST),
    FIXED0(EV_CONC_MARK_BEGIN, "CONC_MARK_BEGIN", "concurrent mark began"),
    FIXED(EV_CONC_MARK_END, "CONC_MARK_END", 1, "concurrent mark ended: marked {0} objects",
          U32),
    FIXED0(EV_CONC_SYNC_BEGIN, "CONC_SYNC_BEGIN", "post-mark synchronization began"),
    FIXED0(EV_CONC_SYNC_END, "CONC_SYNC_END", "post-mark synchronization ended"),
    FIXED0(EV_CONC_SWEEP_BEGIN, "CONC_SWEEP_BEGIN", "concurrent sweep began"),
    FIXED0(EV_CONC_SWEEP_END, "CONC_SWEEP_END", "concurrent sweep ended"),
    FIXED(EV_CONC_UPD_REM_SET_FLUSH, "CONC_UPD_REM_SET_FLUSH", 1,
          "update remembered set flushed by {0}", U16),
    FIXED(EV_NONMOVING_HEAP_CENSUS, "NONMOVING_HEAP_CENSUS", 4,
          "nonmoving heap census {0}: {1} active segments, {2} filled segments, "
          "{3} live blocks",
          EVF_CENSUS_BLKSZ, U32, U32, U32),
    FIXED(EV_NONMOVING_PRUNED_SEGMENTS, "NONMOVING_PRUNED_SEGMENTS", 2,
          "nonmoving segments pruned: {0} pruned segments, {1} free segments retained",
          U32, U32),
    VAR(EV_TICKY_COUNTER_DEF, "TICKY_COUNTER_DEF", 4,
        "ticky counter definition {0}, arity: {1}, def kinds: {2}, name: {3}, itbl: {4:x}",
        U64, U16, CSTR, CSTR, U64, CSTR),
    FIXED(EV_TICKY_COUNTER_SAMPLE, "TICKY_COUNTER_SAMPLE", 4,
          "ticky counter sample {0}: entry count: {1}, {2} allocs, {3} allocd",
          U64, U64, U64, U64),
    FIXED0(EV_TICKY_BEGIN_SAMPLE, "TICKY_BEGIN_SAMPLE", "ticky begin counter sample"),
};

const evtype_desc *
evtype_lookup(uint16_t id)
{
    size_t lo = 0, hi = sizeof evtype_table / sizeof evtype_table[0];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (evtype_table[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < sizeof evtype_table / sizeof evtype_table[0] && evtype_table[lo].id == id)
        return &evtype_table[lo];
    return NULL;
}

unsigned
evtype_field_width(enum evfield_kind kind)
{
    switch (kind) {
    case EVF_U8: return 1;
    case EVF_U16: return 2;
    case EVF_U32: return 4;
    case EVF_U64: return 8;
    case EVF_CENSUS_BLKSZ: return 1; /* the older, narrower layout */
    default: return 0;
    }
}

unsigned
evtype_fixed_size(const evtype_desc *d, unsigned n)
{
    unsigned size = 0;
    for (unsigned i = 0; i < n && i < d->n_fields; i++)
        size += evtype_field_width((enum evfield_kind)d->fields[i]);
    return size;
}

const evtype_desc *
evtype_table_all(unsigned *n)
{
    *n = sizeof evtype_table / sizeof evtype_table[0];
    return evtype_table;
}
