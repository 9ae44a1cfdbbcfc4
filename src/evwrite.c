/* evwrite: streaming GHC eventlog writer. Events are buffered per capability in one
 * block each (flushed at a size threshold) and go to the stream through one large
 * output buffer; the whole log is never held in memory. */
#include "evwrite.h"

#include <string.h>

#include "xalloc.h"

#define EVW_UNDECLARED (-2)
#define EVW_N_IDS 65536u
#define EVW_N_CAPS 65536u
#define EVW_OBUF_BYTES (1024u * 1024u)
#define EVW_EVENT_HEAD 10u                   /* u16 type + u64 timestamp */
#define EVW_MAX_EVENT (EVW_EVENT_HEAD + 2u + EVWRITE_MAX_PAYLOAD)
#define EVW_MIN_BLOCK_BYTES 64u
#define EVW_MAX_BLOCK_BYTES (1024u * 1024u * 1024u)
#define EVW_MARKER_PAYLOAD 14                /* BLOCK_MARKER payload: u32 + u64 + u16 */

enum evw_phase { EVW_DECLARE, EVW_DATA, EVW_DONE };

/* One capability's open block: 24 bytes reserved for the marker, then events. */
typedef struct evw_block {
    uint8_t *buf;
    size_t len;                 /* marker space included; == marker size when empty */
    size_t alloc;
    uint64_t min_ns;
    uint64_t max_ns;
    uint32_t last_event_bytes;
} evw_block;

typedef struct evw_type {
    uint16_t id;
    char *desc;                 /* owned */
} evw_type;

struct evwrite {
    FILE *out;                  /* borrowed */
    int err;                    /* sticky EVWRITE_EIO */
    enum evw_phase phase;
    bool blocks;
    size_t block_bytes;
    evw_type *types;            /* declaration order */
    size_t n_types;
    size_t types_alloc;
    evw_block **blk;            /* EVW_N_CAPS entries, each allocated on first use */
    uint8_t *obuf;              /* EVW_OBUF_BYTES */
    size_t olen;
    /* Size of the last event written to the stream; its bytes are always the
     * last ones in obuf, so a truncating finish can cut into it. */
    uint32_t tail_event_bytes;
    uint64_t bytes;
    uint64_t events;
    int32_t size_of[EVW_N_IDS]; /* payload size, EVWRITE_VARIABLE or EVW_UNDECLARED */
    uint8_t scratch[EVWRITE_MAX_PAYLOAD];
};

static const struct evw_ghc_type {
    uint16_t id;
    int16_t size;
    const char *desc;
} evw_ghc_types[] = {
    { EV_CREATE_THREAD, 4, "Create thread" },
    { EV_RUN_THREAD, 4, "Run thread" },
    { EV_STOP_THREAD, 10, "Stop thread" },
    { EV_THREAD_RUNNABLE, 4, "Thread runnable" },
    { EV_MIGRATE_THREAD, 6, "Migrate thread" },
    { EV_THREAD_WAKEUP, 6, "Wakeup thread" },
    { EV_GC_START, 0, "Starting GC" },
    { EV_GC_END, 0, "Finished GC" },
    { EV_REQUEST_SEQ_GC, 0, "Request sequential GC" },
    { EV_REQUEST_PAR_GC, 0, "Request parallel GC" },
    { EV_CREATE_SPARK_THREAD, 4, "Create spark thread" },
    { EV_LOG_MSG, EVWRITE_VARIABLE, "Log message" },
    { EV_BLOCK_MARKER, EVW_MARKER_PAYLOAD, "Block marker" },
    { EV_USER_MSG, EVWRITE_VARIABLE, "User message" },
    { EV_GC_IDLE, 0, "GC idle" },
    { EV_GC_WORK, 0, "GC working" },
    { EV_GC_DONE, 0, "GC done" },
    { EV_CAPSET_CREATE, 6, "Create capability set" },
    { EV_CAPSET_DELETE, 4, "Delete capability set" },
    { EV_CAPSET_ASSIGN_CAP, 6, "Add capability to capability set" },
    { EV_CAPSET_REMOVE_CAP, 6, "Remove capability from capability set" },
    { EV_RTS_IDENTIFIER, EVWRITE_VARIABLE, "RTS name and version" },
    { EV_PROGRAM_ARGS, EVWRITE_VARIABLE, "Program arguments" },
    { EV_PROGRAM_ENV, EVWRITE_VARIABLE, "Program environment variables" },
    { EV_OSPROCESS_PID, 8, "Process ID" },
    { EV_OSPROCESS_PPID, 8, "Parent process ID" },
    { EV_SPARK_COUNTERS, 56, "Spark counters" },
    { EV_SPARK_CREATE, 0, "Spark create" },
    { EV_SPARK_DUD, 0, "Spark dud" },
    { EV_SPARK_OVERFLOW, 0, "Spark overflow" },
    { EV_SPARK_RUN, 0, "Spark run" },
    { EV_SPARK_STEAL, 2, "Spark steal" },
    { EV_SPARK_FIZZLE, 0, "Spark fizzle" },
    { EV_SPARK_GC, 0, "Spark GC" },
    { EV_WALL_CLOCK_TIME, 16, "Wall clock time" },
    { EV_THREAD_LABEL, EVWRITE_VARIABLE, "Thread label" },
    { EV_CAP_CREATE, 2, "Create capability" },
    { EV_CAP_DELETE, 2, "Delete capability" },
    { EV_CAP_DISABLE, 2, "Disable capability" },
    { EV_CAP_ENABLE, 2, "Enable capability" },
    { EV_HEAP_ALLOCATED, 12, "Total heap mem ever allocated" },
    { EV_HEAP_SIZE, 12, "Current heap size (size of allocated mblocks)" },
    { EV_HEAP_LIVE, 12, "Current heap live data" },
    { EV_HEAP_INFO_GHC, 38, "Heap static parameters" },
    { EV_GC_STATS_GHC, 58, "GC statistics" },
    { EV_GC_GLOBAL_SYNC, 0, "Synchronise stop-the-world GC" },
    { EV_TASK_CREATE, 18, "Task create" },
    { EV_TASK_MIGRATE, 12, "Task migrate" },
    { EV_TASK_DELETE, 8, "Task delete" },
    { EV_USER_MARKER, EVWRITE_VARIABLE, "User marker" },
    { EV_HACK_BUG_T9003, 0, "Empty event for bug #9003" },
    { EV_MEM_RETURN, 16, "The RTS attempted to return heap memory to the OS" },
    { EV_BLOCKS_SIZE, 12, "Report the size of the heap in blocks" },
    { EV_HEAP_PROF_BEGIN, EVWRITE_VARIABLE, "Start of heap profile" },
    { EV_HEAP_PROF_COST_CENTRE, EVWRITE_VARIABLE, "Cost center definition" },
    { EV_HEAP_PROF_SAMPLE_BEGIN, 8, "Start of heap profile sample" },
    { EV_HEAP_PROF_SAMPLE_COST_CENTRE, EVWRITE_VARIABLE, "Heap profile cost-centre sample" },
    { EV_HEAP_PROF_SAMPLE_STRING, EVWRITE_VARIABLE, "Heap profile string sample" },
    { EV_HEAP_PROF_SAMPLE_END, 8, "End of heap profile sample" },
    { EV_HEAP_BIO_PROF_SAMPLE_BEGIN, 16, "Start of heap profile (biographical) sample" },
    { EV_PROF_SAMPLE_COST_CENTRE, EVWRITE_VARIABLE, "Time profile cost-centre stack" },
    { EV_PROF_BEGIN, 8, "Start of a time profile" },
    { EV_IPE, EVWRITE_VARIABLE, "Info Table Source Position" },
    { EV_USER_BINARY_MSG, EVWRITE_VARIABLE, "User binary message" },
    { EV_CONC_MARK_BEGIN, 0, "Begin concurrent mark phase" },
    { EV_CONC_MARK_END, 4, "End concurrent mark phase" },
    { EV_CONC_SYNC_BEGIN, 0, "Begin concurrent GC synchronisation" },
    { EV_CONC_SYNC_END, 0, "End concurrent mark synchronisation" },
    { EV_CONC_SWEEP_BEGIN, 0, "Begin concurrent sweep phase" },
    { EV_CONC_SWEEP_END, 0, "End concurrent sweep phase" },
    { EV_CONC_UPD_REM_SET_FLUSH, 2, "Update remembered set flushed" },
    { EV_NONMOVING_HEAP_CENSUS, 14, "Nonmoving heap census" },
    { EV_NONMOVING_PRUNED_SEGMENTS, 8,
      "Report the amount of segments pruned and remaining on the free list." },
    { EV_TICKY_COUNTER_DEF, EVWRITE_VARIABLE, "Ticky-ticky entry counter definition" },
    { EV_TICKY_COUNTER_SAMPLE, 32, "Ticky-ticky entry counter sample" },
    { EV_TICKY_BEGIN_SAMPLE, 0, "Ticky-ticky entry counter begin sample" },
};

static inline void
evw_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void
evw_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void
evw_put64(uint8_t *p, uint64_t v)
{
    evw_put32(p, (uint32_t)(v >> 32));
    evw_put32(p + 4, (uint32_t)v);
}

const char *
evwrite_strerror(int status)
{
    switch (status) {
    case EVWRITE_OK: return "success";
    case EVWRITE_EIO: return "write error on the output stream";
    case EVWRITE_ETOOBIG: return "variable-size payload longer than 65535 bytes";
    case EVWRITE_ESIZE: return "payload longer than the declared event size";
    case EVWRITE_EUNDECLARED: return "event type not declared in the header";
    case EVWRITE_ESTATE: return "call not allowed in the writer's current state";
    case EVWRITE_EINVAL: return "invalid argument";
    default: return "unknown evwrite status";
    }
}

evwrite *
evwrite_new(FILE *out)
{
    evwrite *w = xcalloc(1, sizeof *w);
    w->out = out;
    w->phase = EVW_DECLARE;
    w->blocks = true;
    w->block_bytes = EVWRITE_DEFAULT_BLOCK_BYTES;
    w->blk = xcalloc(EVW_N_CAPS, sizeof *w->blk);
    w->obuf = xmalloc(EVW_OBUF_BYTES);
    for (size_t i = 0; i < EVW_N_IDS; i++)
        w->size_of[i] = EVW_UNDECLARED;
    return w;
}

void
evwrite_destroy(evwrite *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n_types; i++)
        x_free(w->types[i].desc);
    x_free(w->types);
    for (size_t c = 0; c < EVW_N_CAPS; c++) {
        if (w->blk[c]) {
            x_free(w->blk[c]->buf);
            x_free(w->blk[c]);
        }
    }
    x_free(w->blk);
    x_free(w->obuf);
    x_free(w);
}

/* --- output buffer ------------------------------------------------------------------ */

static void
evw_out_flush(evwrite *w)
{
    if (w->olen && !w->err && fwrite(w->obuf, 1, w->olen, w->out) != w->olen)
        w->err = EVWRITE_EIO;
    w->olen = 0;
}

/* Append to the stream. The last EVW_MAX_EVENT bytes of `p` always stay in obuf
 * (see tail_event_bytes). After an I/O error the bytes are dropped. */
static void
evw_out_write(evwrite *w, const void *p, size_t n)
{
    if (w->olen + n <= EVW_OBUF_BYTES) {
        memcpy(w->obuf + w->olen, p, n);
        w->olen += n;
        return;
    }
    evw_out_flush(w);
    if (n <= EVW_OBUF_BYTES) {
        memcpy(w->obuf, p, n);
        w->olen = n;
        return;
    }
    size_t direct = n - EVW_MAX_EVENT;
    if (!w->err && fwrite(p, 1, direct, w->out) != direct)
        w->err = EVWRITE_EIO;
    memcpy(w->obuf, (const uint8_t *)p + direct, EVW_MAX_EVENT);
    w->olen = EVW_MAX_EVENT;
}

static void
evw_out_u32(evwrite *w, uint32_t v)
{
    uint8_t b[4];
    evw_put32(b, v);
    evw_out_write(w, b, sizeof b);
    w->bytes += sizeof b;
}

/* --- options and header ------------------------------------------------------------- */

int
evwrite_set_blocks(evwrite *w, bool enabled)
{
    if (w->phase != EVW_DECLARE)
        return EVWRITE_ESTATE;
    w->blocks = enabled;
    return EVWRITE_OK;
}

int
evwrite_set_block_bytes(evwrite *w, size_t bytes)
{
    if (bytes < EVW_MIN_BLOCK_BYTES || bytes > EVW_MAX_BLOCK_BYTES)
        return EVWRITE_EINVAL;
    w->block_bytes = bytes;
    return EVWRITE_OK;
}

int
evwrite_declare(evwrite *w, uint16_t id, int size, const char *desc)
{
    if (w->phase != EVW_DECLARE)
        return EVWRITE_ESTATE;
    if (id == EVLOG_DATA_END || size < EVWRITE_VARIABLE || size > INT16_MAX || !desc)
        return EVWRITE_EINVAL;
    if (w->size_of[id] != EVW_UNDECLARED) {
        for (size_t i = 0; i < w->n_types; i++) {
            if (w->types[i].id == id) {
                x_free(w->types[i].desc);
                w->types[i].desc = xstrdup(desc);
                break;
            }
        }
    } else {
        if (w->n_types == w->types_alloc) {
            w->types_alloc = w->types_alloc ? 2 * w->types_alloc : 64;
            w->types = xreallocarray(w->types, w->types_alloc, sizeof *w->types);
        }
        w->types[w->n_types].id = id;
        w->types[w->n_types].desc = xstrdup(desc);
        w->n_types++;
    }
    w->size_of[id] = size;
    return EVWRITE_OK;
}

int
evwrite_declare_ghc(evwrite *w)
{
    for (size_t i = 0; i < sizeof evw_ghc_types / sizeof evw_ghc_types[0]; i++) {
        const struct evw_ghc_type *t = &evw_ghc_types[i];
        int rc = evwrite_declare(w, t->id, t->size, t->desc);
        if (rc)
            return rc;
    }
    return EVWRITE_OK;
}

int
evwrite_declared_size(const evwrite *w, uint16_t id)
{
    return w->size_of[id] == EVW_UNDECLARED ? EVWRITE_EUNDECLARED : w->size_of[id];
}

int
evwrite_begin_data(evwrite *w)
{
    if (w->phase != EVW_DECLARE)
        return EVWRITE_ESTATE;
    if (w->blocks) {
        if (w->size_of[EV_BLOCK_MARKER] == EVW_UNDECLARED)
            evwrite_declare(w, EV_BLOCK_MARKER, EVW_MARKER_PAYLOAD, "Block marker");
        else if (w->size_of[EV_BLOCK_MARKER] != EVW_MARKER_PAYLOAD)
            return EVWRITE_EINVAL;
    }
    evw_out_u32(w, EVLOG_HEADER_BEGIN);
    evw_out_u32(w, EVLOG_HET_BEGIN);
    for (size_t i = 0; i < w->n_types; i++) {
        const evw_type *t = &w->types[i];
        int32_t size = w->size_of[t->id];
        size_t desc_len = strlen(t->desc);
        uint8_t b[8];
        evw_out_u32(w, EVLOG_ET_BEGIN);
        evw_put16(b, t->id);
        evw_put16(b + 2, size == EVWRITE_VARIABLE ? EVLOG_VARIABLE_SIZE : (uint16_t)size);
        evw_put32(b + 4, (uint32_t)desc_len);
        evw_out_write(w, b, sizeof b);
        w->bytes += sizeof b;
        evw_out_write(w, t->desc, desc_len);
        w->bytes += desc_len;
        evw_out_u32(w, 0);     /* no extra info */
        evw_out_u32(w, EVLOG_ET_END);
    }
    evw_out_u32(w, EVLOG_HET_END);
    evw_out_u32(w, EVLOG_HEADER_END);
    evw_out_u32(w, EVLOG_DATA_BEGIN);
    w->phase = EVW_DATA;
    return w->err;
}

/* --- blocks and events -------------------------------------------------------------- */

static void
evw_block_write(evwrite *w, uint16_t cap, evw_block *bk)
{
    uint8_t *m = bk->buf;
    evw_put16(m, EV_BLOCK_MARKER);
    evw_put64(m + 2, bk->min_ns);
    evw_put32(m + 10, (uint32_t)bk->len);
    evw_put64(m + 14, bk->max_ns);
    evw_put16(m + 22, cap);
    evw_out_write(w, bk->buf, bk->len);
    w->tail_event_bytes = bk->last_event_bytes;
    bk->len = EVLOG_BLOCK_MARKER_BYTES;
}

static evw_block *
evw_block_get(evwrite *w, uint16_t cap)
{
    evw_block *bk = w->blk[cap];
    if (!bk) {
        bk = xcalloc(1, sizeof *bk);
        bk->alloc = w->block_bytes < 4096 ? w->block_bytes : 4096;
        bk->buf = xmalloc(bk->alloc);
        bk->len = EVLOG_BLOCK_MARKER_BYTES;
        w->blk[cap] = bk;
    }
    return bk;
}

/* Reserve room for an `evsize`-byte event of `cap` at `time_ns`, flushing or growing
 * its block as needed, and return where to write it. */
static uint8_t *
evw_reserve(evwrite *w, uint16_t cap, uint64_t time_ns, size_t evsize, bool outside)
{
    if (!w->blocks || outside) {
        if (w->olen + evsize > EVW_OBUF_BYTES)
            evw_out_flush(w);
        uint8_t *dst = w->obuf + w->olen;
        w->olen += evsize;
        w->tail_event_bytes = (uint32_t)evsize;
        return dst;
    }
    evw_block *bk = evw_block_get(w, cap);
    if (bk->len > EVLOG_BLOCK_MARKER_BYTES && bk->len + evsize > w->block_bytes)
        evw_block_write(w, cap, bk);
    if (bk->len + evsize > bk->alloc) {
        size_t want = bk->alloc * 2;
        while (want < bk->len + evsize)
            want *= 2;
        bk->buf = xreallocarray(bk->buf, want, 1);
        bk->alloc = want;
    }
    if (bk->len == EVLOG_BLOCK_MARKER_BYTES) {
        bk->min_ns = bk->max_ns = time_ns;
        w->bytes += EVLOG_BLOCK_MARKER_BYTES;
    } else if (time_ns < bk->min_ns) {
        bk->min_ns = time_ns;
    } else if (time_ns > bk->max_ns) {
        bk->max_ns = time_ns;
    }
    uint8_t *dst = bk->buf + bk->len;
    bk->len += evsize;
    bk->last_event_bytes = (uint32_t)evsize;
    return dst;
}

/* One event whose payload is `a` followed by `b`, in `cap`'s block or, if `outside`,
 * straight to the stream. */
static int
evw_append_at(evwrite *w, uint16_t cap, bool outside, uint16_t type, uint64_t time_ns,
              const void *a, size_t alen, const void *b, size_t blen)
{
    if (w->phase != EVW_DATA)
        return EVWRITE_ESTATE;
    if (w->err)
        return w->err;
    int32_t size = w->size_of[type];
    if (size == EVW_UNDECLARED)
        return EVWRITE_EUNDECLARED;
    if ((alen && !a) || (blen && !b))
        return EVWRITE_EINVAL;
    size_t plen = alen + blen;
    size_t evsize;
    if (size == EVWRITE_VARIABLE) {
        if (plen > EVWRITE_MAX_PAYLOAD)
            return EVWRITE_ETOOBIG;
        evsize = EVW_EVENT_HEAD + 2 + plen;
    } else {
        if (plen > (size_t)size)
            return EVWRITE_ESIZE;
        evsize = EVW_EVENT_HEAD + (size_t)size;
    }
    uint8_t *p = evw_reserve(w, cap, time_ns, evsize, outside);
    evw_put16(p, type);
    evw_put64(p + 2, time_ns);
    p += EVW_EVENT_HEAD;
    if (size == EVWRITE_VARIABLE) {
        evw_put16(p, (uint16_t)plen);
        p += 2;
    }
    if (alen)
        memcpy(p, a, alen);
    if (blen)
        memcpy(p + alen, b, blen);
    if (size != EVWRITE_VARIABLE && plen < (size_t)size)
        memset(p + plen, 0, (size_t)size - plen);
    w->bytes += evsize;
    if (type != EV_BLOCK_MARKER)
        w->events++;
    return w->err;
}

static int
evw_append(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
           const void *a, size_t alen, const void *b, size_t blen)
{
    return evw_append_at(w, cap, false, type, time_ns, a, alen, b, blen);
}

int
evwrite_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
              const void *payload, size_t len)
{
    return evw_append(w, cap, type, time_ns, payload, len, NULL, 0);
}

int
evwrite_event_outside(evwrite *w, uint16_t type, uint64_t time_ns, const void *payload,
                      size_t len)
{
    return evw_append_at(w, EVLOG_NO_CAP, true, type, time_ns, payload, len, NULL, 0);
}

int
evwrite_flush_cap(evwrite *w, uint16_t cap)
{
    if (w->phase != EVW_DATA)
        return EVWRITE_ESTATE;
    evw_block *bk = w->blocks ? w->blk[cap] : NULL;
    if (bk && bk->len > EVLOG_BLOCK_MARKER_BYTES)
        evw_block_write(w, cap, bk);
    return w->err;
}

int
evwrite_flush_all(evwrite *w)
{
    if (w->phase != EVW_DATA)
        return EVWRITE_ESTATE;
    for (size_t c = 0; c < EVW_N_CAPS; c++)
        evwrite_flush_cap(w, (uint16_t)c);
    return w->err;
}

static int
evw_close(evwrite *w)
{
    evw_out_flush(w);
    if (!w->err && (fflush(w->out) != 0 || ferror(w->out)))
        w->err = EVWRITE_EIO;
    w->phase = EVW_DONE;
    return w->err;
}

int
evwrite_finish(evwrite *w)
{
    int rc = evwrite_flush_all(w);
    if (rc == EVWRITE_ESTATE)
        return rc;
    uint8_t end[2];
    evw_put16(end, EVLOG_DATA_END);
    evw_out_write(w, end, sizeof end);
    w->bytes += sizeof end;
    return evw_close(w);
}

int
evwrite_finish_truncated(evwrite *w, size_t keep_bytes)
{
    int rc = evwrite_flush_all(w);
    if (rc == EVWRITE_ESTATE)
        return rc;
    size_t tail = w->tail_event_bytes;
    if (tail > 0 && tail <= w->olen && keep_bytes < tail) {
        w->olen -= tail - keep_bytes;
        w->bytes -= tail - keep_bytes;
        w->events--;
        w->tail_event_bytes = 0;
    }
    return evw_close(w);
}

uint64_t
evwrite_bytes(const evwrite *w)
{
    return w->bytes;
}

uint64_t
evwrite_events(const evwrite *w)
{
    return w->events;
}

/* --- typed helpers ------------------------------------------------------------------ */

int
evwrite_empty(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns)
{
    return evw_append(w, cap, type, time_ns, NULL, 0, NULL, 0);
}

static int
evw_u32_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, uint32_t v)
{
    uint8_t b[4];
    evw_put32(b, v);
    return evw_append(w, cap, type, time_ns, b, sizeof b, NULL, 0);
}

static int
evw_u16_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, uint16_t v)
{
    uint8_t b[2];
    evw_put16(b, v);
    return evw_append(w, cap, type, time_ns, b, sizeof b, NULL, 0);
}

static int
evw_u32_u16_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, uint32_t a,
                  uint16_t b16)
{
    uint8_t b[6];
    evw_put32(b, a);
    evw_put16(b + 4, b16);
    return evw_append(w, cap, type, time_ns, b, sizeof b, NULL, 0);
}

static int
evw_u32_u32_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, uint32_t a,
                  uint32_t b32)
{
    uint8_t b[8];
    evw_put32(b, a);
    evw_put32(b + 4, b32);
    return evw_append(w, cap, type, time_ns, b, sizeof b, NULL, 0);
}

/* u32 prefix followed by the bytes of a NUL-terminated string. */
static int
evw_u32_text_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, uint32_t a,
                   const char *text)
{
    if (!text)
        return EVWRITE_EINVAL;
    uint8_t b[4];
    evw_put32(b, a);
    return evw_append(w, cap, type, time_ns, b, sizeof b, text, strlen(text));
}

int
evwrite_create_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid)
{
    return evw_u32_event(w, cap, EV_CREATE_THREAD, time_ns, tid);
}

int
evwrite_run_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid)
{
    return evw_u32_event(w, cap, EV_RUN_THREAD, time_ns, tid);
}

int
evwrite_thread_runnable(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid)
{
    return evw_u32_event(w, cap, EV_THREAD_RUNNABLE, time_ns, tid);
}

int
evwrite_stop_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                    uint16_t status, uint32_t blocked_on)
{
    uint8_t b[10];
    evw_put32(b, tid);
    evw_put16(b + 4, status);
    evw_put32(b + 6, blocked_on);
    return evw_append(w, cap, EV_STOP_THREAD, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_migrate_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                       uint16_t new_cap)
{
    return evw_u32_u16_event(w, cap, EV_MIGRATE_THREAD, time_ns, tid, new_cap);
}

int
evwrite_thread_wakeup(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                      uint16_t other_cap)
{
    return evw_u32_u16_event(w, cap, EV_THREAD_WAKEUP, time_ns, tid, other_cap);
}

int
evwrite_thread_label(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                     const char *label)
{
    return evw_u32_text_event(w, cap, EV_THREAD_LABEL, time_ns, tid, label);
}

int
evwrite_create_spark_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid)
{
    return evw_u32_event(w, cap, EV_CREATE_SPARK_THREAD, time_ns, tid);
}

int
evwrite_gc_phases_write(evwrite *w, uint16_t cap, const evwrite_gc_phases *p)
{
    int rc = evwrite_empty(w, cap, EV_GC_START, p->start_ns);
    if (!rc)
        rc = evwrite_empty(w, cap, EV_GC_WORK, p->work_ns);
    if (!rc && p->has_idle) {
        rc = evwrite_empty(w, cap, EV_GC_IDLE, p->idle_ns);
        if (!rc)
            rc = evwrite_empty(w, cap, EV_GC_WORK, p->rework_ns);
    }
    if (!rc)
        rc = evwrite_empty(w, cap, EV_GC_DONE, p->done_ns);
    return rc;
}

int
evwrite_gc_stats_write(evwrite *w, uint16_t cap, uint64_t time_ns, const evwrite_gc_stats *s)
{
    uint8_t b[58];
    evw_put32(b, s->capset);
    evw_put16(b + 4, s->gen);
    evw_put64(b + 6, s->copied_bytes);
    evw_put64(b + 14, s->slop_bytes);
    evw_put64(b + 22, s->frag_bytes);
    evw_put32(b + 30, s->par_threads);
    evw_put64(b + 34, s->par_max_copied_bytes);
    evw_put64(b + 42, s->par_tot_copied_bytes);
    evw_put64(b + 50, s->par_balanced_copied_bytes);
    return evw_append(w, cap, EV_GC_STATS_GHC, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_heap_bytes(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
                   uint32_t capset, uint64_t bytes)
{
    uint8_t b[12];
    evw_put32(b, capset);
    evw_put64(b + 4, bytes);
    return evw_append(w, cap, type, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_heap_info(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                  uint16_t gens, uint64_t max_heap_bytes, uint64_t alloc_area_bytes,
                  uint64_t mblock_bytes, uint64_t block_bytes)
{
    uint8_t b[38];
    evw_put32(b, capset);
    evw_put16(b + 4, gens);
    evw_put64(b + 6, max_heap_bytes);
    evw_put64(b + 14, alloc_area_bytes);
    evw_put64(b + 22, mblock_bytes);
    evw_put64(b + 30, block_bytes);
    return evw_append(w, cap, EV_HEAP_INFO_GHC, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_mem_return(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                   uint32_t current, uint32_t needed, uint32_t returned)
{
    uint8_t b[16];
    evw_put32(b, capset);
    evw_put32(b + 4, current);
    evw_put32(b + 8, needed);
    evw_put32(b + 12, returned);
    return evw_append(w, cap, EV_MEM_RETURN, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_capset_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                      uint16_t capset_type)
{
    return evw_u32_u16_event(w, cap, EV_CAPSET_CREATE, time_ns, capset, capset_type);
}

int
evwrite_capset_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset)
{
    return evw_u32_event(w, cap, EV_CAPSET_DELETE, time_ns, capset);
}

int
evwrite_capset_assign_cap(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                          uint16_t cap_no)
{
    return evw_u32_u16_event(w, cap, EV_CAPSET_ASSIGN_CAP, time_ns, capset, cap_no);
}

int
evwrite_capset_remove_cap(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                          uint16_t cap_no)
{
    return evw_u32_u16_event(w, cap, EV_CAPSET_REMOVE_CAP, time_ns, capset, cap_no);
}

int
evwrite_cap_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t cap_no)
{
    return evw_u16_event(w, cap, EV_CAP_CREATE, time_ns, cap_no);
}

int
evwrite_cap_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t cap_no)
{
    return evw_u16_event(w, cap, EV_CAP_DELETE, time_ns, cap_no);
}

int
evwrite_rts_identifier(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                       const char *ident)
{
    return evw_u32_text_event(w, cap, EV_RTS_IDENTIFIER, time_ns, capset, ident);
}

/* capset, then each string with its NUL, composed in the writer's scratch buffer. */
static int
evw_strings_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
                  uint32_t capset, const char *const *strs, size_t n)
{
    if (n && !strs)
        return EVWRITE_EINVAL;
    size_t len = 4;
    evw_put32(w->scratch, capset);
    for (size_t i = 0; i < n; i++) {
        if (!strs[i])
            return EVWRITE_EINVAL;
        size_t sl = strlen(strs[i]) + 1;
        if (sl > sizeof w->scratch - len)
            return EVWRITE_ETOOBIG;
        memcpy(w->scratch + len, strs[i], sl);
        len += sl;
    }
    return evw_append(w, cap, type, time_ns, w->scratch, len, NULL, 0);
}

int
evwrite_program_args(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                     const char *const *args, size_t n)
{
    return evw_strings_event(w, cap, EV_PROGRAM_ARGS, time_ns, capset, args, n);
}

int
evwrite_program_env(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                    const char *const *env, size_t n)
{
    return evw_strings_event(w, cap, EV_PROGRAM_ENV, time_ns, capset, env, n);
}

int
evwrite_osprocess_pid(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                      uint32_t pid)
{
    return evw_u32_u32_event(w, cap, EV_OSPROCESS_PID, time_ns, capset, pid);
}

int
evwrite_osprocess_ppid(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                       uint32_t ppid)
{
    return evw_u32_u32_event(w, cap, EV_OSPROCESS_PPID, time_ns, capset, ppid);
}

int
evwrite_wall_clock_time(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                        uint64_t sec, uint32_t nsec)
{
    uint8_t b[16];
    evw_put32(b, capset);
    evw_put64(b + 4, sec);
    evw_put32(b + 12, nsec);
    return evw_append(w, cap, EV_WALL_CLOCK_TIME, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_task_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t task,
                    uint16_t cap_no, uint64_t kernel_tid)
{
    uint8_t b[18];
    evw_put64(b, task);
    evw_put16(b + 8, cap_no);
    evw_put64(b + 10, kernel_tid);
    return evw_append(w, cap, EV_TASK_CREATE, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_task_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t task)
{
    uint8_t b[8];
    evw_put64(b, task);
    return evw_append(w, cap, EV_TASK_DELETE, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_spark_counters_write(evwrite *w, uint16_t cap, uint64_t time_ns,
                             const evwrite_spark_counters *c)
{
    uint8_t b[56];
    evw_put64(b, c->created);
    evw_put64(b + 8, c->dud);
    evw_put64(b + 16, c->overflowed);
    evw_put64(b + 24, c->converted);
    evw_put64(b + 32, c->gcd);
    evw_put64(b + 40, c->fizzled);
    evw_put64(b + 48, c->remaining);
    return evw_append(w, cap, EV_SPARK_COUNTERS, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_spark_steal(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t victim_cap)
{
    return evw_u16_event(w, cap, EV_SPARK_STEAL, time_ns, victim_cap);
}

int
evwrite_text(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns, const char *text,
             size_t len)
{
    return evw_append(w, cap, type, time_ns, text, len, NULL, 0);
}

int
evwrite_user_msg(evwrite *w, uint16_t cap, uint64_t time_ns, const char *text)
{
    return text ? evwrite_text(w, cap, EV_USER_MSG, time_ns, text, strlen(text))
                : EVWRITE_EINVAL;
}

int
evwrite_log_msg(evwrite *w, uint16_t cap, uint64_t time_ns, const char *text)
{
    return text ? evwrite_text(w, cap, EV_LOG_MSG, time_ns, text, strlen(text))
                : EVWRITE_EINVAL;
}

int
evwrite_user_marker(evwrite *w, uint16_t cap, uint64_t time_ns, const char *name)
{
    return name ? evwrite_text(w, cap, EV_USER_MARKER, time_ns, name, strlen(name))
                : EVWRITE_EINVAL;
}

int
evwrite_conc_mark_end(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t marked)
{
    return evw_u32_event(w, cap, EV_CONC_MARK_END, time_ns, marked);
}

int
evwrite_conc_upd_rem_set_flush(evwrite *w, uint16_t cap, uint64_t time_ns,
                               uint16_t flushed_cap)
{
    return evw_u16_event(w, cap, EV_CONC_UPD_REM_SET_FLUSH, time_ns, flushed_cap);
}

int
evwrite_nonmoving_heap_census(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t blk_size,
                              uint32_t active, uint32_t filled, uint32_t live)
{
    uint8_t b[14];
    evw_put16(b, blk_size);
    evw_put32(b + 2, active);
    evw_put32(b + 6, filled);
    evw_put32(b + 10, live);
    return evw_append(w, cap, EV_NONMOVING_HEAP_CENSUS, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_nonmoving_pruned_segments(evwrite *w, uint16_t cap, uint64_t time_ns,
                                  uint32_t pruned, uint32_t free_segments)
{
    return evw_u32_u32_event(w, cap, EV_NONMOVING_PRUNED_SEGMENTS, time_ns, pruned,
                             free_segments);
}

/* ---- newer GHCs' events ------------------------------------------------------------------- */

/* When each type came in (major * 100 + minor) and its size then, where it differs
 * from evw_ghc_types. */
static const struct {
    uint16_t id;
    unsigned since;
} evw_since[] = {
    { EV_MEM_RETURN, 902 }, { EV_BLOCKS_SIZE, 902 }, { EV_IPE, 902 },
    { EV_TICKY_COUNTER_DEF, 901 }, { EV_TICKY_COUNTER_SAMPLE, 901 },
    { EV_TICKY_BEGIN_SAMPLE, 903 }, { EV_NONMOVING_PRUNED_SEGMENTS, 912 },
};

int
evwrite_declare_ghc_version(evwrite *w, unsigned version)
{
    for (size_t i = 0; i < sizeof evw_ghc_types / sizeof evw_ghc_types[0]; i++) {
        const struct evw_ghc_type *t = &evw_ghc_types[i];
        bool later = false;
        for (size_t k = 0; k < sizeof evw_since / sizeof evw_since[0]; k++)
            later |= evw_since[k].id == t->id && version < evw_since[k].since;
        if (later)
            continue;
        int size = t->size;
        if (t->id == EV_NONMOVING_HEAP_CENSUS && version < 910)
            size = 13;
        int rc = evwrite_declare(w, t->id, size, t->desc);
        if (rc)
            return rc;
    }
    return EVWRITE_OK;
}

/* Append `s` with its NUL to b at *n (which stays within EVWRITE_MAX_PAYLOAD). */
static bool
evw_put_cstr(uint8_t *b, size_t *n, const char *s)
{
    size_t len = strlen(s) + 1;
    if (*n + len > EVWRITE_MAX_PAYLOAD)
        return false;
    memcpy(b + *n, s, len);
    *n += len;
    return true;
}

int
evwrite_ipe(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t info, const char *table_name,
            const char *closure_desc, const char *ty_desc, const char *label,
            const char *module, const char *src_loc)
{
    uint8_t *b = w->scratch;
    size_t n = 8;
    evw_put64(b, info);
    const char *texts[] = { table_name, closure_desc, ty_desc, label, module, src_loc };
    for (size_t i = 0; i < 6; i++)
        if (!evw_put_cstr(b, &n, texts[i]))
            return EVWRITE_ETOOBIG;
    return evw_append(w, cap, EV_IPE, time_ns, b, n, NULL, 0);
}

int
evwrite_heap_prof_begin(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t period_ns,
                        uint32_t breakdown)
{
    uint8_t b[13 + 7];
    b[0] = 0;
    evw_put64(b + 1, period_ns);
    evw_put32(b + 9, breakdown);
    memset(b + 13, 0, 7);       /* seven empty filters */
    return evw_append(w, cap, EV_HEAP_PROF_BEGIN, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_heap_prof_sample_begin(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t era)
{
    uint8_t b[8];
    evw_put64(b, era);
    return evw_append(w, cap, EV_HEAP_PROF_SAMPLE_BEGIN, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_heap_prof_sample_end(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t era)
{
    uint8_t b[8];
    evw_put64(b, era);
    return evw_append(w, cap, EV_HEAP_PROF_SAMPLE_END, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_heap_prof_sample_string(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t bytes,
                                const char *label)
{
    uint8_t *b = w->scratch;
    size_t n = 9;
    b[0] = 0;
    evw_put64(b + 1, bytes);
    if (!evw_put_cstr(b, &n, label))
        return EVWRITE_ETOOBIG;
    return evw_append(w, cap, EV_HEAP_PROF_SAMPLE_STRING, time_ns, b, n, NULL, 0);
}

int
evwrite_ticky_def(evwrite *w, uint16_t cap, uint64_t time_ns, unsigned version, uint64_t id,
                  uint16_t arity, const char *kinds, const char *name, uint64_t info_table,
                  const char *json)
{
    uint8_t *b = w->scratch;
    size_t n = 10;
    evw_put64(b, id);
    evw_put16(b + 8, arity);
    /* 9.4 wrote the JSON description where the kinds had been. */
    const char *k = version >= 904 && version < 906 && json ? json : kinds;
    if (!evw_put_cstr(b, &n, k) || !evw_put_cstr(b, &n, name))
        return EVWRITE_ETOOBIG;
    if (version >= 904) {
        if (n + 8 > EVWRITE_MAX_PAYLOAD)
            return EVWRITE_ETOOBIG;
        evw_put64(b + n, info_table);
        n += 8;
    }
    if (version >= 906 && !evw_put_cstr(b, &n, json ? json : ""))
        return EVWRITE_ETOOBIG;
    return evw_append(w, cap, EV_TICKY_COUNTER_DEF, time_ns, b, n, NULL, 0);
}

int
evwrite_ticky_sample(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t id, uint64_t entries,
                     uint64_t allocs, uint64_t allocd)
{
    uint8_t b[32];
    evw_put64(b, id);
    evw_put64(b + 8, entries);
    evw_put64(b + 16, allocs);
    evw_put64(b + 24, allocd);
    return evw_append(w, cap, EV_TICKY_COUNTER_SAMPLE, time_ns, b, sizeof b, NULL, 0);
}

int
evwrite_nonmoving_heap_census_log2(evwrite *w, uint16_t cap, uint64_t time_ns,
                                   uint8_t log2_blk_size, uint32_t active, uint32_t filled,
                                   uint32_t live)
{
    uint8_t b[13];
    b[0] = log2_blk_size;
    evw_put32(b + 1, active);
    evw_put32(b + 5, filled);
    evw_put32(b + 9, live);
    return evw_append(w, cap, EV_NONMOVING_HEAP_CENSUS, time_ns, b, sizeof b, NULL, 0);
}
