/* evtype: the table of GHC eventlog event types this project knows — ids, payload
 * layouts (fields) and the ghc-events-compatible text template used by `show`.
 * Pure data plus lookups; no I/O. */
#ifndef ELOG_EVTYPE_H
#define ELOG_EVTYPE_H

#include <stdbool.h>
#include <stdint.h>

/* Event type ids as written by GHC's RTS (EventLogFormat.h numbering). */
enum evtype_id {
    EV_CREATE_THREAD = 0,
    EV_RUN_THREAD = 1,
    EV_STOP_THREAD = 2,
    EV_THREAD_RUNNABLE = 3,
    EV_MIGRATE_THREAD = 4,
    EV_RUN_SPARK_OLD = 5,          /* historical (GHC 6.12) */
    EV_STEAL_SPARK_OLD = 6,        /* historical (GHC 6.12) */
    EV_SHUTDOWN = 7,               /* historical */
    EV_THREAD_WAKEUP = 8,
    EV_GC_START = 9,
    EV_GC_END = 10,
    EV_REQUEST_SEQ_GC = 11,
    EV_REQUEST_PAR_GC = 12,
    EV_CREATE_SPARK_OLD = 13,      /* historical */
    EV_SPARK_TO_THREAD_OLD = 14,   /* historical */
    EV_CREATE_SPARK_THREAD = 15,
    EV_LOG_MSG = 16,
    EV_STARTUP = 17,               /* historical */
    EV_BLOCK_MARKER = 18,
    EV_USER_MSG = 19,
    EV_GC_IDLE = 20,
    EV_GC_WORK = 21,
    EV_GC_DONE = 22,
    EV_VERSION = 23,               /* parallel (Eden) RTS */
    EV_PROGRAM_INVOCATION = 24,    /* parallel (Eden) RTS */
    EV_CAPSET_CREATE = 25,
    EV_CAPSET_DELETE = 26,
    EV_CAPSET_ASSIGN_CAP = 27,
    EV_CAPSET_REMOVE_CAP = 28,
    EV_RTS_IDENTIFIER = 29,
    EV_PROGRAM_ARGS = 30,
    EV_PROGRAM_ENV = 31,
    EV_OSPROCESS_PID = 32,
    EV_OSPROCESS_PPID = 33,
    EV_SPARK_COUNTERS = 34,
    EV_SPARK_CREATE = 35,
    EV_SPARK_DUD = 36,
    EV_SPARK_OVERFLOW = 37,
    EV_SPARK_RUN = 38,
    EV_SPARK_STEAL = 39,
    EV_SPARK_FIZZLE = 40,
    EV_SPARK_GC = 41,
    EV_INTERN_STRING = 42,
    EV_WALL_CLOCK_TIME = 43,
    EV_THREAD_LABEL = 44,
    EV_CAP_CREATE = 45,
    EV_CAP_DELETE = 46,
    EV_CAP_DISABLE = 47,
    EV_CAP_ENABLE = 48,
    EV_HEAP_ALLOCATED = 49,
    EV_HEAP_SIZE = 50,
    EV_HEAP_LIVE = 51,
    EV_HEAP_INFO_GHC = 52,
    EV_GC_STATS_GHC = 53,
    EV_GC_GLOBAL_SYNC = 54,
    EV_TASK_CREATE = 55,
    EV_TASK_MIGRATE = 56,
    EV_TASK_DELETE = 57,
    EV_USER_MARKER = 58,
    EV_HACK_BUG_T9003 = 59,
    EV_EDEN_START_RECEIVE = 60,
    EV_EDEN_END_RECEIVE = 61,
    EV_CREATE_PROCESS = 62,
    EV_KILL_PROCESS = 63,
    EV_ASSIGN_THREAD_TO_PROCESS = 64,
    EV_CREATE_MACHINE = 65,
    EV_KILL_MACHINE = 66,
    EV_SEND_MESSAGE = 67,
    EV_RECEIVE_MESSAGE = 68,
    EV_SEND_RECEIVE_LOCAL_MESSAGE = 69,
    EV_MEM_RETURN = 90,
    EV_BLOCKS_SIZE = 91,
    EV_MER_START_PAR_CONJUNCTION = 100,
    EV_MER_STOP_PAR_CONJUNCTION = 101,
    EV_MER_STOP_PAR_CONJUNCT = 102,
    EV_MER_CREATE_SPARK = 103,
    EV_MER_FUT_CREATE = 104,
    EV_MER_FUT_WAIT_NOSUSPEND = 105,
    EV_MER_FUT_WAIT_SUSPENDED = 106,
    EV_MER_FUT_SIGNAL = 107,
    EV_MER_LOOKING_FOR_GLOBAL_CONTEXT = 108,
    EV_MER_WORK_STEALING = 109,
    EV_MER_RELEASE_CONTEXT = 110,
    EV_MER_ENGINE_SLEEPING = 111,
    EV_MER_LOOKING_FOR_LOCAL_SPARK = 112,
    EV_MER_CALLING_MAIN = 113,
    EV_PERF_NAME = 140,
    EV_PERF_COUNTER = 141,
    EV_PERF_TRACEPOINT = 142,
    EV_HEAP_PROF_BEGIN = 160,
    EV_HEAP_PROF_COST_CENTRE = 161,
    EV_HEAP_PROF_SAMPLE_BEGIN = 162,
    EV_HEAP_PROF_SAMPLE_COST_CENTRE = 163,
    EV_HEAP_PROF_SAMPLE_STRING = 164,
    EV_HEAP_PROF_SAMPLE_END = 165,
    EV_HEAP_BIO_PROF_SAMPLE_BEGIN = 166,
    EV_PROF_SAMPLE_COST_CENTRE = 167,
    EV_PROF_BEGIN = 168,
    EV_IPE = 169,
    EV_USER_BINARY_MSG = 181,
    EV_CONC_MARK_BEGIN = 200,
    EV_CONC_MARK_END = 201,
    EV_CONC_SYNC_BEGIN = 202,
    EV_CONC_SYNC_END = 203,
    EV_CONC_SWEEP_BEGIN = 204,
    EV_CONC_SWEEP_END = 205,
    EV_CONC_UPD_REM_SET_FLUSH = 206,
    EV_NONMOVING_HEAP_CENSUS = 207,
    EV_NONMOVING_PRUNED_SEGMENTS = 208,
    EV_TICKY_COUNTER_DEF = 210,
    EV_TICKY_COUNTER_SAMPLE = 211,
    EV_TICKY_BEGIN_SAMPLE = 212,
};

/* File-level markers (32-bit, big-endian in the file). */
#define EVLOG_HEADER_BEGIN 0x68647262u /* "hdrb" */
#define EVLOG_HEADER_END   0x68647265u /* "hdre" */
#define EVLOG_HET_BEGIN    0x68657462u /* "hetb" */
#define EVLOG_HET_END      0x68657465u /* "hete" */
#define EVLOG_ET_BEGIN     0x65746200u /* "etb\0" */
#define EVLOG_ET_END       0x65746500u /* "ete\0" */
#define EVLOG_DATA_BEGIN   0x64617462u /* "datb" */
#define EVLOG_DATA_END     0xffffu     /* 16-bit event type id ending the data */
#define EVLOG_VARIABLE_SIZE 0xffffu    /* header size meaning "variable-sized" */
#define EVLOG_NO_CAP       0xffffu     /* capability of the global block / no block */
#define EVLOG_BLOCK_MARKER_BYTES 24u   /* a whole BLOCK_MARKER event: 2+8+4+8+2 */

/* How one payload field is encoded. */
enum evfield_kind {
    EVF_U8,
    EVF_U16,
    EVF_U32,
    EVF_U64,
    EVF_TEXT_REST,     /* the rest of the payload as text (UTF-8) */
    EVF_LATIN1_REST,   /* the rest of the payload as Latin-1 text */
    EVF_LATIN1_BUT4,   /* all but the last 4 payload bytes as Latin-1 text (INTERN_STRING) */
    EVF_CSTR,          /* NUL-terminated UTF-8 text */
    EVF_CCS,           /* u8 depth followed by depth x u32 cost-centre ids */
    EVF_BYTES_REST,    /* the rest of the payload as raw bytes */
    EVF_CENSUS_BLKSZ,  /* nonmoving census block size: u8 log2 (13-byte layout) or u16 */
};

#define EVTYPE_MAX_FIELDS 10

/* One known event type. `n_required` fields must be present for the event to
 * be printed with `show_fmt` (otherwise ghc-events prints the header's
 * description); later fields are optional trailing extensions. */
typedef struct evtype_desc {
    uint16_t id;
    const char *name;          /* spec name, e.g. "STOP_THREAD" */
    bool variable;             /* variable-sized in GHC's logs */
    uint8_t n_fields;
    uint8_t n_required;
    uint8_t fields[EVTYPE_MAX_FIELDS];   /* enum evfield_kind */
    const char *show_fmt;      /* template, see render.h; NULL: print the description */
} evtype_desc;

/* The descriptor of a known event type, or NULL for an id we do not know. */
const evtype_desc *evtype_lookup(uint16_t id);

/* Encoded byte size of a fixed-width field kind, 0 for variable-width kinds. */
unsigned evtype_field_width(enum evfield_kind kind);

/* The whole table in id order (for tests and listings); *n receives its length. */
const evtype_desc *evtype_table_all(unsigned *n);

/* Sum of the fixed widths of the first `n` fields of `d` (variable kinds count 0). */
unsigned evtype_fixed_size(const evtype_desc *d, unsigned n);

#endif
