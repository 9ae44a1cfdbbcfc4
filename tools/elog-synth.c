/* elog-synth: write a synthetic but plausible GHC eventlog (threads, stop-the-world GCs,
 * sparks, nonmoving cycles, markers, messages, heap-profile censuses) of a chosen size, deterministic for a seed, with
 * knobs for edge cases (no blocks, padding, unknown types, disorder, truncation). */
#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evtype.h"
#include "evwrite.h"
#include "timefmt.h"
#include "xalloc.h"

#define SYNTH_MAX_CAPS 1024u
#define US 1000ull
#define MS 1000000ull
#define SYNTH_NO_TIME UINT64_MAX
#define SYNTH_UNKNOWN_FIXED 250u
#define SYNTH_UNKNOWN_VAR 251u
#define SYNTH_BIG_EVERY (8ull << 20)   /* --max-payload: one huge event per 8 MiB */

typedef struct synth_opts {
    const char *out_path;
    unsigned caps;
    uint64_t size_bytes;        /* 0: no size limit */
    uint64_t max_events;        /* 0: no event limit */
    uint64_t seed;
    uint64_t markers_every_ns;  /* 0: no markers */
    uint64_t gc_every_ns;       /* 0: no GCs */
    uint64_t churn;             /* --churn: this many short-lived threads, then stop */
    uint64_t messages_every_ns; /* --messages-every: a traceEvent message; 0: none */
    uint32_t heap_bands;        /* --heap-bands: -hT census of this many bands a GC */
    size_t block_bytes;
    bool nonmoving, sparks, heap, labels, no_blocks, unknown_types, oversized;
    bool out_of_order, truncate, global_block, max_payload;
    unsigned ghc;               /* --ghc: layouts of this GHC (901 = 9.1); 0 = the newest */
    bool ticky;                 /* --ticky: ticky-ticky counters sampled at major GCs */
    char heap_profile;          /* --heap-profile: 'i' (-hi with IPE), 'e' (-he), or 0 */
} synth_opts;

typedef struct synth_rng {
    uint64_t s[4];
} synth_rng;

enum synth_thread_state { TS_FREE, TS_QUEUED, TS_BLOCKED };

typedef struct synth_thread {
    uint32_t tid;
    uint16_t cap;
    uint8_t state;
    bool spark_worker;
    uint8_t runs_left;          /* --churn thread: runs before it finishes; 0 otherwise */
    uint32_t blocked_ix;        /* index in synth.blocked when TS_BLOCKED */
    uint64_t ready_ns;          /* queued: may not run before; blocked: blocked since */
} synth_thread;

/* A ring buffer of thread slots: a capability's run queue. */
typedef struct synth_queue {
    uint32_t *v;
    size_t head, len, alloc;
} synth_queue;

typedef struct synth_cap {
    uint64_t now_ns;            /* everything before this on the cap is written */
    uint64_t last_ns;           /* latest timestamp written on the cap */
    uint64_t cut_ns;            /* this epoch ends here (GC sync point) */
    synth_queue q;
    uint64_t alloc_bytes;       /* cumulative, for HEAP_ALLOCATED */
    uint64_t next_heap_ns;      /* --heap: next mid-interval HEAP_ALLOCATED sample */
    uint64_t flush_ns;          /* --nonmoving: pending CONC_UPD_REM_SET_FLUSH */
    uint64_t spark_pool;
    evwrite_spark_counters sc;
    bool has_spark_worker;
} synth_cap;

typedef struct synth {
    const synth_opts *o;
    evwrite *w;
    synth_rng rng;
    int err;                    /* first evwrite error */
    bool done;
    synth_cap *caps;
    uint16_t pcap;              /* where program-info events go */
    uint64_t n_censuses;        /* --heap-profile censuses written */
    uint64_t nocap_last_ns;     /* latest time in the global (cap 0xffff) block */
    synth_thread *th;
    size_t n_th, th_alloc;
    uint32_t *free_slots;
    size_t n_free;
    uint32_t *blocked;
    size_t n_blocked, blocked_alloc;
    size_t live, target_live;
    uint32_t next_tid;
    uint64_t churn_made, churn_live;    /* --churn threads created, not yet finished */
    uint64_t next_marker_ns, marker_no;
    uint64_t next_msg_ns, msg_no;
    uint64_t gc_no;
    uint64_t live_bytes, heap_bytes;
    uint64_t big_next_bytes;
    char *big;                  /* --max-payload text, EVWRITE_MAX_PAYLOAD + 1 bytes */
    uint16_t *heap_of_caps;     /* min-heap on now_ns, for stepping caps in time order */
    size_t n_heap;
} synth;

/* --- random numbers (xoshiro256**, seeded by splitmix64) ------------------------------ */

static uint64_t
synth_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t
synth_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t
synth_rand(synth *s)
{
    uint64_t *st = s->rng.s;
    uint64_t result = synth_rotl(st[1] * 5, 7) * 9;
    uint64_t t = st[1] << 17;
    st[2] ^= st[0];
    st[3] ^= st[1];
    st[1] ^= st[2];
    st[0] ^= st[3];
    st[2] ^= t;
    st[3] = synth_rotl(st[3], 45);
    return result;
}

/* Uniform in [0, n); 0 when n is 0. */
static inline uint64_t
synth_below(synth *s, uint64_t n)
{
    return n ? synth_rand(s) % n : 0;
}

/* Uniform in [lo, hi]. */
static inline uint64_t
synth_range(synth *s, uint64_t lo, uint64_t hi)
{
    return lo + synth_below(s, hi - lo + 1);
}

/* True with probability per_mille / 1000. */
static inline bool
synth_chance(synth *s, unsigned per_mille)
{
    return synth_below(s, 1000) < per_mille;
}

/* Roughly log-uniform in [lo, hi] (lo > 0): a random octave, uniform inside it. */
static uint64_t
synth_logu(synth *s, uint64_t lo, uint64_t hi)
{
    unsigned octaves = 0;
    for (uint64_t span = hi / lo; span > 1; span >>= 1)
        octaves++;
    uint64_t x = lo << synth_below(s, octaves ? octaves : 1);
    uint64_t v = x + synth_below(s, x);
    return v > hi ? hi : v;
}

/* --- emission bookkeeping ------------------------------------------------------------- */

static void
synth_ck(synth *s, int rc)
{
    if (rc && !s->err)
        s->err = rc;
}

/* Record that an event goes on `cap` at `t` and return t. Timestamps on a cap never
 * go backwards unless the caller asks for disorder (synth_at_any). */
static uint64_t
synth_at_any(synth *s, uint16_t cap, uint64_t t)
{
    uint64_t *last = cap == EVLOG_NO_CAP ? &s->nocap_last_ns : &s->caps[cap].last_ns;
    if (t > *last)
        *last = t;
    return t;
}

static uint64_t
synth_at(synth *s, uint16_t cap, uint64_t t)
{
    assert(t >= (cap == EVLOG_NO_CAP ? s->nocap_last_ns : s->caps[cap].last_ns));
    return synth_at_any(s, cap, t);
}

static bool
synth_limit_reached(const synth *s)
{
    if (s->o->churn && s->churn_made >= s->o->churn && s->churn_live == 0)
        return true;
    return (s->o->size_bytes && evwrite_bytes(s->w) >= s->o->size_bytes) ||
           (s->o->max_events && evwrite_events(s->w) >= s->o->max_events);
}

/* --- threads and queues --------------------------------------------------------------- */

static void
synth_queue_grow(synth_queue *q)
{
    size_t na = q->alloc ? 2 * q->alloc : 16;
    uint32_t *nv = xreallocarray(NULL, na, sizeof *nv);
    for (size_t i = 0; i < q->len; i++)
        nv[i] = q->v[(q->head + i) % q->alloc];
    x_free(q->v);
    q->v = nv;
    q->head = 0;
    q->alloc = na;
}

static void
synth_queue_push(synth_queue *q, uint32_t slot)
{
    if (q->len == q->alloc)
        synth_queue_grow(q);
    q->v[(q->head + q->len) % q->alloc] = slot;
    q->len++;
}

static void
synth_queue_push_front(synth_queue *q, uint32_t slot)
{
    if (q->len == q->alloc)
        synth_queue_grow(q);
    q->head = (q->head + q->alloc - 1) % q->alloc;
    q->v[q->head] = slot;
    q->len++;
}

static uint32_t
synth_queue_pop(synth_queue *q)
{
    uint32_t slot = q->v[q->head];
    q->head = (q->head + 1) % q->alloc;
    q->len--;
    return slot;
}

static uint32_t
synth_queue_pop_back(synth_queue *q)
{
    q->len--;
    return q->v[(q->head + q->len) % q->alloc];
}

/* A new queued thread on `cap`, ready at `t`; returns its slot. */
static uint32_t
synth_thread_new(synth *s, uint16_t cap, uint64_t t, bool spark_worker)
{
    uint32_t slot;
    if (s->n_free) {
        slot = s->free_slots[--s->n_free];
    } else {
        if (s->n_th == s->th_alloc) {
            s->th_alloc = s->th_alloc ? 2 * s->th_alloc : 64;
            s->th = xreallocarray(s->th, s->th_alloc, sizeof *s->th);
            s->free_slots = xreallocarray(s->free_slots, s->th_alloc, sizeof *s->free_slots);
        }
        slot = (uint32_t)s->n_th++;
    }
    synth_thread *th = &s->th[slot];
    th->tid = s->next_tid++;
    th->cap = cap;
    th->state = TS_QUEUED;
    th->spark_worker = spark_worker;
    th->runs_left = 0;
    th->ready_ns = t;
    th->blocked_ix = 0;
    s->live++;
    synth_queue_push(&s->caps[cap].q, slot);
    return slot;
}

static void
synth_thread_free(synth *s, uint32_t slot)
{
    s->th[slot].state = TS_FREE;
    s->free_slots[s->n_free++] = slot;
    s->live--;
}

static void
synth_block(synth *s, uint32_t slot)
{
    if (s->n_blocked == s->blocked_alloc) {
        s->blocked_alloc = s->blocked_alloc ? 2 * s->blocked_alloc : 64;
        s->blocked = xreallocarray(s->blocked, s->blocked_alloc, sizeof *s->blocked);
    }
    s->th[slot].state = TS_BLOCKED;
    s->th[slot].blocked_ix = (uint32_t)s->n_blocked;
    s->blocked[s->n_blocked++] = slot;
}

/* Wake a random thread from `cap` at `t` that was already blocked by then (runs are
 * simulated whole, so a thread may be listed as blocked before its run has ended):
 * THREAD_WAKEUP, then it queues on its own capability. */
static void
synth_wake_one(synth *s, uint16_t cap, uint64_t t)
{
    for (int tries = 0; tries < 4; tries++) {
        uint32_t ix = (uint32_t)synth_below(s, s->n_blocked);
        uint32_t slot = s->blocked[ix];
        synth_thread *th = &s->th[slot];
        if (th->ready_ns > t)
            continue;
        s->blocked[ix] = s->blocked[--s->n_blocked];
        s->th[s->blocked[ix]].blocked_ix = ix;
        synth_ck(s, evwrite_thread_wakeup(s->w, cap, synth_at(s, cap, t), th->tid, th->cap));
        th->state = TS_QUEUED;
        th->ready_ns = t + (th->cap == cap ? 0 : synth_range(s, 200, 2000));
        synth_queue_push(&s->caps[th->cap].q, slot);
        return;
    }
}

/* A random live thread's tid other than `self`, or 0. */
static uint32_t
synth_random_tid(synth *s, uint32_t self)
{
    for (int tries = 0; tries < 8 && s->n_th; tries++) {
        const synth_thread *th = &s->th[synth_below(s, s->n_th)];
        if (th->state != TS_FREE && th->tid != self)
            return th->tid;
    }
    return 0;
}

static void
synth_label(synth *s, uint16_t cap, uint64_t t, uint32_t tid)
{
    static const char *const kinds[] = { "worker", "http-conn", "db-pool", "logger",
                                         "cache-refresh", "scheduler" };
    char label[64];
    snprintf(label, sizeof label, "%s-%" PRIu32,
             kinds[synth_below(s, sizeof kinds / sizeof kinds[0])], tid);
    synth_ck(s, evwrite_thread_label(s->w, cap, synth_at(s, cap, t), tid, label));
}

/* CREATE_THREAD (+ label, sometimes THREAD_RUNNABLE) of a new thread queued on `cap`. */
static void
synth_create(synth *s, uint16_t cap, uint64_t t, bool in_order)
{
    uint32_t slot = synth_thread_new(s, cap, t, false);
    uint32_t tid = s->th[slot].tid;
    uint64_t at = in_order ? synth_at(s, cap, t) : synth_at_any(s, cap, t);
    synth_ck(s, evwrite_create_thread(s->w, cap, at, tid));
    if (!in_order)
        return;
    if (s->o->labels)
        synth_label(s, cap, t, tid);
    if (synth_chance(s, 200))
        synth_ck(s, evwrite_thread_runnable(s->w, cap, synth_at(s, cap, t), tid));
}

/* --churn: a thread per request — created, run once or twice, finished; every 10th
 * labelled like a connection handler. */
static void
synth_create_churn(synth *s, uint16_t cap, uint64_t t)
{
    uint32_t slot = synth_thread_new(s, cap, t, false);
    synth_thread *th = &s->th[slot];
    th->runs_left = (uint8_t)(1 + synth_below(s, 2));
    s->churn_made++;
    s->churn_live++;
    synth_ck(s, evwrite_create_thread(s->w, cap, synth_at(s, cap, t), th->tid));
    if (s->churn_made % 10 == 0) {
        char label[48];
        snprintf(label, sizeof label, "request-%" PRIu64, s->churn_made);
        synth_ck(s, evwrite_thread_label(s->w, cap, synth_at(s, cap, t), th->tid, label));
    }
}

/* --- instants inside a thread run ----------------------------------------------------- */

/* The next instant time in [*cur, end], moving *cur forward. */
static uint64_t
synth_inst(synth *s, uint64_t *cur, uint64_t end)
{
    uint64_t room = end - *cur;
    if (room > 8)
        *cur += 1 + synth_below(s, room / 4);
    return *cur;
}

static void
synth_unknown(synth *s, uint16_t cap, uint64_t t)
{
    uint8_t b[48];
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)synth_rand(s);
    if (synth_chance(s, 500))
        synth_ck(s, evwrite_event(s->w, cap, SYNTH_UNKNOWN_FIXED, synth_at(s, cap, t), b, 6));
    else
        synth_ck(s, evwrite_event(s->w, cap, SYNTH_UNKNOWN_VAR, synth_at(s, cap, t), b,
                                  (size_t)synth_below(s, sizeof b + 1)));
}

/* --max-payload: a USER_MSG of 65535 bytes or a THREAD_LABEL of 65531 label bytes. */
static void
synth_big(synth *s, uint16_t cap, uint64_t t, uint32_t tid)
{
    if (s->gc_no % 2 == 0) {
        synth_ck(s, evwrite_text(s->w, cap, EV_USER_MSG, synth_at(s, cap, t), s->big,
                                 EVWRITE_MAX_PAYLOAD));
    } else {
        s->big[EVWRITE_MAX_PAYLOAD - 4] = '\0';
        synth_ck(s, evwrite_thread_label(s->w, cap, synth_at(s, cap, t), tid, s->big));
        s->big[EVWRITE_MAX_PAYLOAD - 4] = 'x';
    }
}

static void
synth_spark_work(synth *s, uint16_t cap, uint64_t *cur, uint64_t end)
{
    synth_cap *cs = &s->caps[cap];
    unsigned n = 1 + (unsigned)synth_below(s, 6);
    for (unsigned i = 0; i < n; i++) {
        if (!cs->spark_pool) {
            uint16_t v = (uint16_t)synth_below(s, s->o->caps);
            if (v == cap || !s->caps[v].spark_pool)
                return;
            synth_ck(s, evwrite_spark_steal(s->w, cap, synth_at(s, cap, synth_inst(s, cur, end)),
                                            v));
            s->caps[v].spark_pool--;
        } else {
            cs->spark_pool--;
        }
        if (synth_chance(s, 80)) {
            synth_ck(s, evwrite_empty(s->w, cap, EV_SPARK_FIZZLE,
                                      synth_at(s, cap, synth_inst(s, cur, end))));
            cs->sc.fizzled++;
        } else {
            synth_ck(s, evwrite_empty(s->w, cap, EV_SPARK_RUN,
                                      synth_at(s, cap, synth_inst(s, cur, end))));
            cs->sc.converted++;
        }
    }
}

static void
synth_spark_create(synth *s, uint16_t cap, uint64_t *cur, uint64_t end)
{
    synth_cap *cs = &s->caps[cap];
    unsigned n = 1 + (unsigned)synth_below(s, 8);
    for (unsigned i = 0; i < n; i++) {
        uint16_t type = EV_SPARK_CREATE;
        uint64_t r = synth_below(s, 100);
        if (r < 8) {
            type = EV_SPARK_DUD;
            cs->sc.dud++;
        } else if (cs->spark_pool >= 4096 || (r < 12 && cs->spark_pool > 64)) {
            type = EV_SPARK_OVERFLOW;
            cs->sc.overflowed++;
        } else {
            cs->spark_pool++;
            cs->sc.created++;
        }
        synth_ck(s, evwrite_empty(s->w, cap, type, synth_at(s, cap, synth_inst(s, cur, end))));
    }
}

static void
synth_instants(synth *s, uint16_t cap, uint32_t slot, uint64_t start, uint64_t end)
{
    const synth_opts *o = s->o;
    synth_cap *cs = &s->caps[cap];
    uint64_t cur = start;

    if (o->markers_every_ns) {
        while (s->next_marker_ns <= end) {
            char name[48];
            uint64_t t = s->next_marker_ns > cur ? s->next_marker_ns : cur;
            cur = t;
            snprintf(name, sizeof name, "iteration %" PRIu64, s->marker_no++);
            synth_ck(s, evwrite_user_marker(s->w, cap, synth_at(s, cap, t), name));
            s->next_marker_ns += o->markers_every_ns;
        }
    }
    if (o->messages_every_ns) {
        while (s->next_msg_ns <= end) {
            char text[64];
            uint64_t t = s->next_msg_ns > cur ? s->next_msg_ns : cur;
            cur = t;
            snprintf(text, sizeof text, "request %" PRIu64 " served in %" PRIu64 " us",
                     s->msg_no++, synth_range(s, 20, 5000));
            synth_ck(s, evwrite_user_msg(s->w, cap, synth_at(s, cap, t), text));
            s->next_msg_ns += o->messages_every_ns;
        }
    }
    if (s->th[slot].spark_worker) {
        synth_spark_work(s, cap, &cur, end);
        return;
    }
    if (s->live < s->target_live && synth_chance(s, 250))
        synth_create(s, cap, synth_inst(s, &cur, end), true);
    if (s->n_blocked && synth_chance(s, 500))
        synth_wake_one(s, cap, synth_inst(s, &cur, end));
    if (o->sparks && synth_chance(s, 350))
        synth_spark_create(s, cap, &cur, end);
    if (synth_chance(s, 3)) {
        char msg[64];
        snprintf(msg, sizeof msg, "request %" PRIu64 " handled", synth_rand(s) % 100000);
        synth_ck(s, evwrite_user_msg(s->w, cap, synth_at(s, cap, synth_inst(s, &cur, end)),
                                     msg));
    }
    if (synth_chance(s, 1))
        synth_ck(s, evwrite_log_msg(s->w, cap, synth_at(s, cap, synth_inst(s, &cur, end)),
                                    "synthetic RTS log message"));
    if (o->unknown_types && synth_chance(s, 20))
        synth_unknown(s, cap, synth_inst(s, &cur, end));
    if (o->max_payload && evwrite_bytes(s->w) >= s->big_next_bytes) {
        synth_big(s, cap, synth_inst(s, &cur, end), s->th[slot].tid);
        s->big_next_bytes += SYNTH_BIG_EVERY;
    }
    /* GHC occasionally stamps an event a little before one already in the buffer. */
    if (o->out_of_order && cs->last_ns > start + 2 && s->live < s->target_live + 8 &&
        synth_chance(s, 30)) {
        uint64_t back = cs->last_ns - start - 1;
        synth_create(s, cap, cs->last_ns - 1 - synth_below(s, back < 2000 ? back : 2000), false);
    }
}

/* --- one scheduling step of a capability ---------------------------------------------- */

static uint16_t
synth_stop_status(synth *s, const synth_thread *th, bool cut, bool leader, uint32_t *on)
{
    *on = 0;
    if (th->runs_left)
        return th->runs_left == 1 && !cut ? 5 : 3;
    if (cut)
        return leader || synth_chance(s, 300) ? 1 : 3;
    if (th->spark_worker) {
        bool more = s->caps[th->cap].spark_pool || synth_chance(s, 200);
        return more ? 3 : 5;
    }
    uint64_t r = synth_below(s, 1000);
    if (r < 300) return 3;
    if (r < 520) return 1;
    if (r < 535) return 2;
    if (r < 590) return s->live > s->o->caps + 2u ? 5 : 3;
    if (r < 660) return 6;
    if (r < 790) return 7;
    if (r < 830) {
        *on = synth_random_tid(s, th->tid);
        return *on ? 8 : 7;
    }
    if (r < 880) return 11;
    if (r < 910) return 12;
    return 20;
}

/* After a requeue on a busy cap: push a thread to an idle capability, like GHC. */
static void
synth_maybe_migrate(synth *s, uint16_t cap, uint64_t *t)
{
    synth_cap *cs = &s->caps[cap];
    if (s->o->caps < 2 || cs->q.len < 2 || !synth_chance(s, 300))
        return;
    uint16_t v = (uint16_t)synth_below(s, s->o->caps);
    if (v == cap || s->caps[v].q.len)
        return;
    uint32_t slot = synth_queue_pop_back(&cs->q);
    *t += synth_range(s, 100, 800);
    synth_ck(s, evwrite_migrate_thread(s->w, cap, synth_at(s, cap, *t), s->th[slot].tid, v));
    s->th[slot].cap = v;
    s->th[slot].ready_ns = *t;
    synth_queue_push(&s->caps[v].q, slot);
}

static void
synth_run(synth *s, uint16_t cap, uint32_t slot, uint64_t start, bool leader)
{
    synth_cap *cs = &s->caps[cap];
    synth_thread *th = &s->th[slot];
    uint32_t tid = th->tid;
    synth_ck(s, evwrite_run_thread(s->w, cap, synth_at(s, cap, start), tid));
    uint64_t dur = th->runs_left      ? synth_logu(s, 1 * US, 50 * US)
                   : th->spark_worker ? synth_logu(s, 5 * US, 500 * US)
                                      : synth_logu(s, 2 * US, 4 * MS);
    uint64_t end = start + dur;
    bool cut = end >= cs->cut_ns;
    if (cut)
        end = cs->cut_ns > start ? cs->cut_ns : start + 1;
    synth_instants(s, cap, slot, start, end);
    th = &s->th[slot];          /* creating threads may have moved the array */
    if (cs->last_ns > end)
        end = cs->last_ns;
    cs->alloc_bytes += (end - start) * (1 + synth_below(s, 3));

    uint32_t on;
    uint16_t status = synth_stop_status(s, th, cut, leader, &on);
    synth_ck(s, evwrite_stop_thread(s->w, cap, synth_at(s, cap, end), tid, status, on));
    if (th->runs_left && !cut && --th->runs_left == 0)
        s->churn_live--;        /* status 5: it finished */
    switch (status) {
    case 1: case 2: case 3:
        th->ready_ns = end;
        synth_queue_push(&cs->q, slot);
        if (!cut)
            synth_maybe_migrate(s, cap, &end);
        break;
    case 5:
        if (th->spark_worker)
            cs->has_spark_worker = false;
        synth_thread_free(s, slot);
        break;
    case 6:
        th->ready_ns = end + synth_logu(s, 5 * US, 2 * MS);
        synth_queue_push(&cs->q, slot);
        break;
    default:
        th->ready_ns = end;     /* blocked since */
        synth_block(s, slot);
        break;
    }
    cs->now_ns = cut ? end : end + synth_logu(s, 100, 3 * US);
}

/* The capability has nothing runnable: stay idle a while, then do one piece of
 * scheduler work (start a spark thread, process a wakeup, or create a thread). */
static void
synth_idle(synth *s, uint16_t cap)
{
    synth_cap *cs = &s->caps[cap];
    uint64_t t = cs->now_ns + synth_logu(s, 1 * US, 1500 * US);
    if (t >= cs->cut_ns) {
        cs->now_ns = cs->cut_ns;
        return;
    }
    uint16_t v = (uint16_t)synth_below(s, s->o->caps);
    if (s->o->sparks && !cs->has_spark_worker &&
        (cs->spark_pool || s->caps[v].spark_pool)) {
        uint32_t slot = synth_thread_new(s, cap, t, true);
        synth_ck(s, evwrite_create_thread(s->w, cap, synth_at(s, cap, t), s->th[slot].tid));
        synth_ck(s, evwrite_create_spark_thread(s->w, cap, synth_at(s, cap, t),
                                                s->th[slot].tid));
        cs->has_spark_worker = true;
    } else if (s->n_blocked && synth_chance(s, 700)) {
        synth_wake_one(s, cap, t);
    } else if (s->o->churn && s->churn_made < s->o->churn) {
        synth_create_churn(s, cap, t);
    } else if (s->live < s->target_live) {
        synth_create(s, cap, t, true);
    }
    cs->now_ns = t + synth_range(s, s->o->churn ? 10 : 100, s->o->churn ? 100 : 1000);
}

static void
synth_step(synth *s, uint16_t cap, bool leader)
{
    synth_cap *cs = &s->caps[cap];
    if (cs->flush_ns <= cs->now_ns) {
        synth_ck(s, evwrite_conc_upd_rem_set_flush(s->w, cap, synth_at(s, cap, cs->now_ns),
                                                   cap));
        cs->flush_ns = SYNTH_NO_TIME;
        cs->now_ns += synth_range(s, 200, 2000);
    }
    if (s->o->heap && cs->now_ns >= cs->next_heap_ns) {
        synth_ck(s, evwrite_heap_bytes(s->w, cap, EV_HEAP_ALLOCATED,
                                       synth_at(s, cap, cs->now_ns), 0, cs->alloc_bytes));
        uint64_t every = s->o->gc_every_ns ? s->o->gc_every_ns / 4 : 5 * MS;
        cs->next_heap_ns = cs->now_ns + (every > 100 * US ? every : 100 * US);
    }
    if (cs->now_ns >= cs->cut_ns)
        return;
    for (int tries = 0; tries < 2 && cs->q.len; tries++) {
        uint32_t slot = synth_queue_pop(&cs->q);
        synth_thread *th = &s->th[slot];
        uint64_t start = cs->now_ns + synth_logu(s, 200, 3 * US);
        if (th->ready_ns > start + 100 * US && cs->q.len && tries == 0) {
            synth_queue_push(&cs->q, slot);   /* not back yet: try the next one */
            continue;
        }
        if (th->ready_ns > start)
            start = th->ready_ns;
        if (start >= cs->cut_ns) {
            synth_queue_push_front(&cs->q, slot);
            cs->now_ns = cs->cut_ns;
            return;
        }
        synth_run(s, cap, slot, start, leader);
        return;
    }
    synth_idle(s, cap);
}

/* --- the min-heap of capabilities ordered by now_ns ----------------------------------- */

static bool
synth_heap_less(const synth *s, size_t a, size_t b)
{
    return s->caps[s->heap_of_caps[a]].now_ns < s->caps[s->heap_of_caps[b]].now_ns;
}

static void
synth_heap_swap(synth *s, size_t a, size_t b)
{
    uint16_t t = s->heap_of_caps[a];
    s->heap_of_caps[a] = s->heap_of_caps[b];
    s->heap_of_caps[b] = t;
}

static void
synth_heap_push(synth *s, uint16_t cap)
{
    size_t i = s->n_heap++;
    s->heap_of_caps[i] = cap;
    while (i > 0 && synth_heap_less(s, i, (i - 1) / 2)) {
        synth_heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static uint16_t
synth_heap_pop(synth *s)
{
    uint16_t top = s->heap_of_caps[0];
    s->heap_of_caps[0] = s->heap_of_caps[--s->n_heap];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n_heap && synth_heap_less(s, l, m))
            m = l;
        if (r < s->n_heap && synth_heap_less(s, r, m))
            m = r;
        if (m == i)
            break;
        synth_heap_swap(s, i, m);
        i = m;
    }
    return top;
}

/* Run every capability's mutator up to its cut time, always stepping the one that
 * is furthest behind so cross-capability wakeups stay roughly causal. */
static void
synth_mutate(synth *s, uint16_t leader)
{
    s->n_heap = 0;
    for (unsigned c = 0; c < s->o->caps; c++)
        synth_heap_push(s, (uint16_t)c);
    while (s->n_heap && !s->err) {
        uint16_t c = synth_heap_pop(s);
        if (s->caps[c].now_ns >= s->caps[c].cut_ns)
            continue;
        synth_step(s, c, c == leader);
        if (synth_limit_reached(s)) {
            s->done = true;
            return;
        }
        synth_heap_push(s, c);
    }
}

/* --- newer GHCs: IPE, -hi / -he censuses, ticky counters (--ghc, --heap-profile, --ticky) */

static unsigned
synth_ghc(const synth_opts *o)
{
    return o->ghc ? o->ghc : EVWRITE_GHC_NEWEST;
}

/* The info tables -hi bands name, and the provenance IPE events give them. */
static const struct {
    uint64_t info;
    const char *table, *closure, *type, *label, *module, *loc;
} synth_ipes[] = {
    { 0x4a2b10, "sat_s1a2_info", "15", "[Int]", "go", "Synth.Loop", "Synth/Loop.hs:12:5-40" },
    { 0x4a2b70, "Synth.Types.Rec_con_info", "1", "Rec", "Rec", "Synth.Types",
      "Synth/Types.hs:8:1-30" },
    { 0x4a2bd0, "sat_s1b9_info", "16", "Map Int Rec", "build", "Synth.Map",
      "Synth/Map.hs:20:3-55" },
    { 0x4a2c30, "main_info", "21", "IO ()", "main", "Main", "Main.hs:5:1-4" },
    { 0x4a2c90, "ghczmprim_GHCziTypes_ZC_con_info", "2", "[]", ":", "GHC.Types",
      "<no location info>" },
};
#define SYNTH_N_IPES (sizeof synth_ipes / sizeof synth_ipes[0])
#define SYNTH_N_TICKY 5u

/* After the program-info events: the heap profile's start and the IPE entries. */
static void
synth_newer_start(synth *s, uint64_t t)
{
    const synth_opts *o = s->o;
    uint16_t g = EVLOG_NO_CAP;
    if (!o->heap_profile)
        return;
    if (t < s->nocap_last_ns)
        t = s->nocap_last_ns;
    synth_ck(s, evwrite_heap_prof_begin(s->w, g, synth_at(s, g, t += 100), 100 * MS,
                                        o->heap_profile == 'i' ? 8 : 9));
    if (o->heap_profile == 'i')
        for (size_t k = 0; k < SYNTH_N_IPES; k++)
            synth_ck(s, evwrite_ipe(s->w, g, synth_at(s, g, t += 50), synth_ipes[k].info,
                                    synth_ipes[k].table, synth_ipes[k].closure,
                                    synth_ipes[k].type, synth_ipes[k].label,
                                    synth_ipes[k].module, synth_ipes[k].loc));
}

/* At the end of a major GC (time t): a heap census and a ticky sample, in the global
 * block as the RTS writes them. */
static void
synth_newer_at_major_gc(synth *s, uint64_t t)
{
    const synth_opts *o = s->o;
    uint16_t g = EVLOG_NO_CAP;
    if (!o->heap_profile && !o->ticky)
        return;
    if (t < s->nocap_last_ns)
        t = s->nocap_last_ns;
    if (o->heap_profile) {
        uint64_t era = ++s->n_censuses;
        synth_ck(s, evwrite_heap_prof_sample_begin(s->w, g, synth_at(s, g, t += 200), era));
        char label[32];
        if (o->heap_profile == 'i') {
            for (size_t k = 0; k <= SYNTH_N_IPES; k++) {
                /* The last band has no IPE entry: named by its address only. */
                uint64_t info = k < SYNTH_N_IPES ? synth_ipes[k].info : 0x4a2cf0;
                snprintf(label, sizeof label, "0x%llx", (unsigned long long)info);
                uint64_t bytes = 8 * synth_range(s, 1, (uint64_t)(k + 1) * 4096);
                synth_ck(s, evwrite_heap_prof_sample_string(s->w, g, synth_at(s, g, t += 20),
                                                            bytes, label));
            }
        } else {
            /* -he: the eras so far, the older ones smaller. */
            for (uint64_t e = 1; e <= era && e <= 8; e++) {
                snprintf(label, sizeof label, "%llu", (unsigned long long)e);
                uint64_t bytes = 8 * synth_range(s, 1, 2048 * e);
                synth_ck(s, evwrite_heap_prof_sample_string(s->w, g, synth_at(s, g, t += 20),
                                                            bytes, label));
            }
        }
        synth_ck(s, evwrite_heap_prof_sample_end(s->w, g, synth_at(s, g, t += 20), era));
    }
    if (o->ticky && synth_ghc(o) >= 901) {
        if (synth_ghc(o) >= 903)
            synth_ck(s, evwrite_empty(s->w, g, EV_TICKY_BEGIN_SAMPLE, synth_at(s, g, t += 100)));
        for (unsigned k = 0; k < SYNTH_N_TICKY; k++) {
            uint64_t entries = synth_below(s, 1000u << k);
            if (!entries)
                continue;       /* the RTS skips counters with nothing to say */
            synth_ck(s, evwrite_ticky_sample(s->w, g, synth_at(s, g, t += 30), 0x7000 + 0x40 * k,
                                             entries, entries * 16 * (k + 1), k == 2 ? entries : 0));
        }
    }
    s->nocap_last_ns = s->nocap_last_ns > t ? s->nocap_last_ns : t;
}

/* At exit: the ticky counters' definitions (the RTS writes them last). */
static void
synth_newer_end(synth *s, uint64_t t)
{
    const synth_opts *o = s->o;
    uint16_t g = EVLOG_NO_CAP;
    if (!o->ticky || synth_ghc(o) < 901)
        return;
    if (t < s->nocap_last_ns)
        t = s->nocap_last_ns;
    static const char *const names[SYNTH_N_TICKY] = {
        "go{v s1a2} (Synth.Loop) (fun)", "Synth.Types.mkRec{v r3} (fun)",
        "build{v s1b9} (Synth.Map) (fun) in r4", "Main.main1{v r1} (fun)",
        ":Main.main{v 01D} (fun)",
    };
    for (unsigned k = 0; k < SYNTH_N_TICKY; k++) {
        char json[96];
        snprintf(json, sizeof json, "{\"type\":\"entCntr\",\"subTy\":\"fun\",\"args\":\"%.*s\"}",
                 (int)k, "++++");
        synth_ck(s, evwrite_ticky_def(s->w, g, synth_at(s, g, t += 40), synth_ghc(o),
                                      0x7000 + 0x40 * k, (uint16_t)k, k ? "M" : "", names[k],
                                      k < SYNTH_N_IPES ? synth_ipes[k].info : 0, json));
    }
}

/* --- garbage collection --------------------------------------------------------------- */

static uint64_t
synth_round_up(uint64_t v, uint64_t unit)
{
    return (v + unit - 1) / unit * unit;
}

/* A concurrent nonmoving mark/sync/sweep cycle in the global block, starting after
 * `t` and finishing before `limit`; capabilities flush their remembered sets during
 * the sync. */
static void
synth_nonmoving(synth *s, uint64_t t, uint64_t limit)
{
    const uint16_t g = EVLOG_NO_CAP;
    if (t < s->nocap_last_ns)
        t = s->nocap_last_ns;
    t += synth_range(s, 2 * US, 10 * US);
    if (limit <= t + 200 * US)
        return;
    uint64_t budget = (limit - t) / 2;
    unsigned marks = 1 + (unsigned)synth_below(s, 3);
    for (unsigned i = 0; i < marks; i++) {
        synth_ck(s, evwrite_empty(s->w, g, EV_CONC_MARK_BEGIN, synth_at(s, g, t)));
        t += i == 0 ? budget / 2 + synth_below(s, budget / 4) : synth_range(s, 1 * US, 50 * US);
        synth_ck(s, evwrite_conc_mark_end(s->w, g, synth_at(s, g, t),
                                          i == 0 ? (uint32_t)synth_range(s, 1000, 900000)
                                                 : (uint32_t)synth_range(s, 1, 50)));
        t += synth_range(s, 30, 300);
    }
    synth_ck(s, evwrite_empty(s->w, g, EV_CONC_SYNC_BEGIN, synth_at(s, g, t)));
    uint64_t sync_len = synth_range(s, 20 * US, 200 * US);
    for (unsigned c = 0; c < s->o->caps; c++)
        s->caps[c].flush_ns = t + synth_below(s, sync_len);
    synth_ck(s, evwrite_empty(s->w, g, EV_CONC_MARK_BEGIN, synth_at(s, g, t + sync_len / 4)));
    synth_ck(s, evwrite_conc_mark_end(s->w, g, synth_at(s, g, t + sync_len / 2),
                                      (uint32_t)synth_range(s, 0, 2000)));
    t += sync_len;
    synth_ck(s, evwrite_empty(s->w, g, EV_CONC_SYNC_END, synth_at(s, g, t)));
    t += synth_range(s, 1 * US, 5 * US);
    synth_ck(s, evwrite_empty(s->w, g, EV_CONC_SWEEP_BEGIN, synth_at(s, g, t)));
    t += synth_range(s, 20 * US, 400 * US);
    if (synth_ghc(s->o) >= 912)
        synth_ck(s, evwrite_nonmoving_pruned_segments(s->w, g, synth_at(s, g, t),
                                                      (uint32_t)synth_below(s, 40),
                                                      (uint32_t)synth_range(s, 0, 64)));
    t += synth_range(s, 1 * US, 20 * US);
    synth_ck(s, evwrite_empty(s->w, g, EV_CONC_SWEEP_END, synth_at(s, g, t)));
    /* 9.10+: allocators every 8 bytes, size as a u16; before: powers of two, log2. */
    bool wide = synth_ghc(s->o) >= 910;
    for (uint16_t blk = 8; blk <= 64; blk = wide ? blk + 8 : blk * 2) {
        t += synth_range(s, 100, 900);
        uint32_t active = (uint32_t)synth_below(s, 200);
        uint32_t filled = (uint32_t)synth_below(s, 400);
        uint32_t live = (uint32_t)synth_below(s, (active + filled + 1) * 4096u / blk);
        uint8_t lg = (uint8_t)(blk == 8 ? 3 : blk == 16 ? 4 : blk == 32 ? 5 : 6);
        synth_ck(s, wide ? evwrite_nonmoving_heap_census(s->w, g, synth_at(s, g, t), blk,
                                                         active, filled, live)
                         : evwrite_nonmoving_heap_census_log2(s->w, g, synth_at(s, g, t), lg,
                                                              active, filled, live));
    }
}

/* A stop-the-world GC requested by `leader` once every capability reached its cut. */
/* --heap-bands: a heap-profile census by closure type (as +RTS -hT writes after a GC):
 * sample begin, one string sample per band, sample end; in the global block with
 * --global-block, as GHC writes them, else on `cap`. Returns the last time used on cap. */
static uint64_t
synth_census(synth *s, uint16_t cap, uint64_t t)
{
    uint64_t t_cap = t;
    if (s->pcap == EVLOG_NO_CAP) {
        cap = EVLOG_NO_CAP;
        t = t > s->nocap_last_ns ? t : s->nocap_last_ns;
    }
    uint8_t buf[64];
    uint64_t era = s->gc_no + 1;
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(era >> (56 - 8 * i));
    synth_ck(s, evwrite_event(s->w, cap, EV_HEAP_PROF_SAMPLE_BEGIN, synth_at(s, cap, ++t),
                              buf, 8));
    for (uint32_t b = 0; b < s->o->heap_bands; b++) {
        uint64_t res = 16 * synth_logu(s, 1, 1u << 20);
        buf[0] = 0;
        for (int i = 0; i < 8; i++)
            buf[1 + i] = (uint8_t)(res >> (56 - 8 * i));
        int n = snprintf((char *)buf + 9, sizeof buf - 9, "main:Data.Band%u.T", b);
        synth_ck(s, evwrite_event(s->w, cap, EV_HEAP_PROF_SAMPLE_STRING,
                                  synth_at(s, cap, t += 2), buf, 9 + (size_t)n + 1));
    }
    for (int i = 0; i < 8; i++)
        buf[i] = (uint8_t)(era >> (56 - 8 * i));
    synth_ck(s, evwrite_event(s->w, cap, EV_HEAP_PROF_SAMPLE_END, synth_at(s, cap, ++t),
                              buf, 8));
    return cap == EVLOG_NO_CAP ? t_cap : t;
}

static void
synth_gc(synth *s, uint16_t leader, uint64_t next_gc_ns)
{
    const synth_opts *o = s->o;
    unsigned n = o->caps;
    synth_cap *caps = s->caps;
    evwrite *w = s->w;
    uint64_t t_req = caps[leader].now_ns + synth_range(s, 100, 800);
    synth_ck(s, evwrite_empty(w, leader, n > 1 ? EV_REQUEST_PAR_GC : EV_REQUEST_SEQ_GC,
                              synth_at(s, leader, t_req)));

    uint64_t sync = 0;
    for (unsigned c = 0; c < n; c++) {
        uint64_t from = caps[c].last_ns > t_req ? caps[c].last_ns : t_req;
        caps[c].now_ns = from + synth_logu(s, 200, 3 * US);   /* GC_START */
        if (caps[c].now_ns > sync)
            sync = caps[c].now_ns;
    }
    sync += synth_range(s, 300, 2000);
    bool major = s->gc_no % 10 == 9 || synth_chance(s, 30);
    uint64_t dur = major ? synth_logu(s, 400 * US, 6 * MS) : synth_logu(s, 40 * US, 700 * US);
    uint64_t all_end = sync + dur;
    uint64_t all_done = 0;
    for (unsigned c = 0; c < n; c++) {
        evwrite_gc_phases p;
        p.start_ns = caps[c].now_ns;
        p.work_ns = sync + synth_below(s, 1000);
        p.has_idle = true;
        p.idle_ns = p.work_ns + (all_end - p.work_ns) * synth_range(s, 50, 90) / 100;
        p.rework_ns = p.idle_ns + (all_end - p.idle_ns) * synth_range(s, 10, 50) / 100;
        p.done_ns = all_end - synth_below(s, all_end - p.rework_ns);
        synth_at(s, (uint16_t)c, p.start_ns);
        synth_at(s, (uint16_t)c, p.done_ns);
        synth_ck(s, evwrite_gc_phases_write(w, (uint16_t)c, &p));
        if (p.done_ns > all_done)
            all_done = p.done_ns;
    }

    uint64_t t_sync = all_done + synth_range(s, 1200, 1700);
    for (unsigned c = 0; c < n; c++) {
        uint16_t cap = (uint16_t)c;
        synth_cap *cs = &caps[c];
        uint64_t t = all_done;
        if (o->sparks && cs->spark_pool) {
            uint64_t k = synth_range(s, 1, cs->spark_pool < 4 ? cs->spark_pool : 4);
            for (uint64_t i = 0; i < k; i++) {
                bool fizzle = synth_chance(s, 300);
                synth_ck(s, evwrite_empty(w, cap, fizzle ? EV_SPARK_FIZZLE : EV_SPARK_GC,
                                          synth_at(s, cap, ++t)));
                if (fizzle)
                    cs->sc.fizzled++;
                else
                    cs->sc.gcd++;
                cs->spark_pool--;
            }
        }
        t += synth_range(s, 100, 1000);
        synth_ck(s, evwrite_heap_bytes(w, cap, EV_HEAP_ALLOCATED, synth_at(s, cap, t), 0,
                                       cs->alloc_bytes));
        uint64_t t_end = t_sync + synth_range(s, 200, 3000);
        if (c == leader) {
            synth_ck(s, evwrite_empty(w, cap, EV_GC_GLOBAL_SYNC, synth_at(s, cap, t_sync)));
            t_end = t_sync + synth_range(s, 200, 600);
        }
        if (c == leader && o->out_of_order) {
            /* As GHC sometimes does: GC_END written after the statistics that follow
             * it, with an earlier timestamp. */
            cs->now_ns = t_end + synth_range(s, 100, 400);
        } else {
            synth_ck(s, evwrite_empty(w, cap, EV_GC_END, synth_at(s, cap, t_end)));
            cs->now_ns = t_end;
        }
        if (o->sparks) {
            cs->sc.remaining = cs->spark_pool;
            cs->now_ns += synth_range(s, 100, 500);
            synth_ck(s, evwrite_spark_counters_write(w, cap, synth_at(s, cap, cs->now_ns),
                                                     &cs->sc));
        }
    }

    /* Heap model: live data creeps up with promotion, major GCs trim it. */
    uint64_t copied;
    if (major) {
        s->live_bytes = s->live_bytes * synth_range(s, 70, 100) / 100 + synth_below(s, 1 << 20);
        if (s->live_bytes > (2ull << 30))
            s->live_bytes /= 2;
        copied = s->live_bytes;
    } else {
        copied = synth_logu(s, 4096, 512 * 1024);
        s->live_bytes += copied / 4;
    }
    uint64_t nursery = (uint64_t)n * (4u << 20);
    uint64_t want = synth_round_up(2 * s->live_bytes + nursery + (1u << 20), 1u << 20);
    if (want > s->heap_bytes || (major && synth_chance(s, 500)))
        s->heap_bytes = want;
    uint64_t blocks = synth_round_up(s->heap_bytes - s->heap_bytes * synth_range(s, 3, 15) / 100,
                                     4096);
    uint32_t mblocks = (uint32_t)(s->heap_bytes >> 20);
    uint32_t needed = mblocks - (uint32_t)synth_below(s, mblocks / 8 + 1);
    evwrite_gc_stats gs = {
        .capset = 0,
        .gen = major ? 1 : 0,
        .copied_bytes = copied,
        .slop_bytes = synth_range(s, 1024, 65536),
        .frag_bytes = s->heap_bytes - blocks,
        .par_threads = n,
        .par_max_copied_bytes = n > 1 ? copied / n * synth_range(s, 100, 160) / 100 : 0,
        .par_tot_copied_bytes = copied,
        .par_balanced_copied_bytes = n > 1 ? copied * synth_range(s, 60, 95) / 100 : 0,
    };
    synth_cap *lc = &caps[leader];
    uint64_t t = lc->now_ns;
    synth_ck(s, evwrite_gc_stats_write(w, leader, synth_at(s, leader, t), &gs));
    if (o->out_of_order)
        synth_ck(s, evwrite_empty(w, leader, EV_GC_END,
                                  synth_at_any(s, leader, t - synth_range(s, 1, 90))));
    if (major) {
        t += synth_range(s, 30, 400);
        synth_ck(s, evwrite_heap_bytes(w, leader, EV_HEAP_LIVE, synth_at(s, leader, t), 0,
                                       s->live_bytes));
    }
    t += synth_range(s, 30, 400);
    synth_ck(s, evwrite_heap_bytes(w, leader, EV_HEAP_SIZE, synth_at(s, leader, t), 0,
                                   s->heap_bytes));
    if (synth_ghc(o) >= 902) {
        t += synth_range(s, 30, 400);
        synth_ck(s, evwrite_heap_bytes(w, leader, EV_BLOCKS_SIZE, synth_at(s, leader, t), 0,
                                       blocks));
        t += synth_range(s, 30, 400);
        synth_ck(s, evwrite_mem_return(w, leader, synth_at(s, leader, t), 0, mblocks, needed,
                                       major ? (mblocks - needed) / 2 : 0));
    }
    if (o->heap_bands)
        t = synth_census(s, leader, t);
    lc->now_ns = t;
    for (unsigned c = 0; c < n; c++)
        caps[c].now_ns += synth_logu(s, 300, 5 * US);
    if (major && o->nonmoving)
        synth_nonmoving(s, t, next_gc_ns);
    if (major)
        synth_newer_at_major_gc(s, t);
    s->gc_no++;
}

/* --- program start and end ------------------------------------------------------------ */

static void
synth_declare(synth *s)
{
    const synth_opts *o = s->o;
    evwrite *w = s->w;
    synth_ck(s, o->ghc ? evwrite_declare_ghc_version(w, o->ghc) : evwrite_declare_ghc(w));
    if (o->oversized) {
        /* Not CREATE_THREAD with size 8: ghc-events reads such a log as GHC 6's format
         * (64-bit thread ids) throughout. */
        static const struct { uint16_t id; int size; } big[] = {
            { EV_CREATE_THREAD, 12 }, { EV_RUN_THREAD, 8 }, { EV_STOP_THREAD, 16 },
            { EV_MIGRATE_THREAD, 10 }, { EV_THREAD_WAKEUP, 10 }, { EV_GC_START, 4 },
            { EV_GC_END, 4 }, { EV_CAPSET_CREATE, 10 }, { EV_HEAP_ALLOCATED, 16 },
            { EV_HEAP_SIZE, 20 }, { EV_GC_STATS_GHC, 66 }, { EV_SPARK_COUNTERS, 64 },
            { EV_TASK_CREATE, 26 }, { EV_CONC_MARK_END, 8 }, { EV_NONMOVING_HEAP_CENSUS, 18 },
            { EV_MEM_RETURN, 20 }, { EV_WALL_CLOCK_TIME, 24 },
        };
        for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
            char desc[80];
            snprintf(desc, sizeof desc, "Synthetic oversized event %u", big[i].id);
            synth_ck(s, evwrite_declare(w, big[i].id, big[i].size, desc));
        }
    }
    if (o->unknown_types) {
        synth_ck(s, evwrite_declare(w, SYNTH_UNKNOWN_FIXED, 6, "Synthetic unknown event"));
        synth_ck(s, evwrite_declare(w, SYNTH_UNKNOWN_VAR, EVWRITE_VARIABLE,
                                    "Synthetic unknown variable-size event"));
    }
    synth_ck(s, evwrite_set_blocks(w, !o->no_blocks));
    synth_ck(s, evwrite_set_block_bytes(w, o->block_bytes));
    synth_ck(s, evwrite_begin_data(w));
}

static void
synth_start(synth *s)
{
    const synth_opts *o = s->o;
    evwrite *w = s->w;
    uint16_t pc = s->pcap;
    uint64_t t = 40 * US + synth_below(s, 20 * US);
    char ncaps[16];
    static const char *const env[] = {
        "HOME=/home/synth", "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin",
        "TERM=xterm-256color", "USER=synth",
    };

    synth_ck(s, evwrite_capset_create(w, pc, synth_at(s, pc, t), 0, 2));
    synth_ck(s, evwrite_capset_create(w, pc, synth_at(s, pc, t += 50), 1, 3));
    for (unsigned c = 0; c < o->caps; c++) {
        synth_ck(s, evwrite_cap_create(w, pc, synth_at(s, pc, t += 30), (uint16_t)c));
        synth_ck(s, evwrite_capset_assign_cap(w, pc, synth_at(s, pc, t += 30), 0, (uint16_t)c));
        synth_ck(s, evwrite_capset_assign_cap(w, pc, synth_at(s, pc, t += 30), 1, (uint16_t)c));
    }
    synth_ck(s, evwrite_wall_clock_time(w, pc, synth_at(s, pc, t += 300), 1,
                                        1700000000u + o->seed % 100000000u,
                                        (uint32_t)synth_below(s, 1000000000u)));
    synth_ck(s, evwrite_osprocess_pid(w, pc, synth_at(s, pc, t += 600), 0,
                                      (uint32_t)synth_range(s, 1000, 400000)));
    synth_ck(s, evwrite_osprocess_ppid(w, pc, synth_at(s, pc, t += 200), 0,
                                       (uint32_t)synth_range(s, 1000, 400000)));
    synth_ck(s, evwrite_rts_identifier(w, pc, synth_at(s, pc, t += 700), 0,
                                       "GHC-9.6.6 rts_thr_l"));
    snprintf(ncaps, sizeof ncaps, "-N%u", o->caps);
    const char *args[] = { "./synth-app", "+RTS", ncaps, "-l", "-RTS" };
    synth_ck(s, evwrite_program_args(w, pc, synth_at(s, pc, t += 400), 0, args,
                                     sizeof args / sizeof args[0]));
    synth_ck(s, evwrite_program_env(w, pc, synth_at(s, pc, t += 400), 0, env,
                                    sizeof env / sizeof env[0]));
    synth_ck(s, evwrite_heap_info(w, pc, synth_at(s, pc, t += 2000), 0, 2, 0, 4u << 20,
                                  1u << 20, 4096));
    if (o->unknown_types) {
        uint8_t b[6] = { 1, 2, 3, 4, 5, 6 };
        synth_ck(s, evwrite_event(w, pc, SYNTH_UNKNOWN_FIXED, synth_at(s, pc, t += 100), b, 6));
        synth_ck(s, evwrite_event(w, pc, SYNTH_UNKNOWN_VAR, synth_at(s, pc, t += 100), b, 3));
    }

    /* Per capability: its task, its IO manager thread (blocked on an MVar). */
    for (unsigned c = 0; c < o->caps; c++) {
        uint16_t cap = (uint16_t)c;
        uint64_t tc = t + 1000 + 150 * c;
        synth_ck(s, evwrite_task_create(w, cap, synth_at(s, cap, tc),
                                        0x7f0000001000ull + 0x1000ull * c, cap,
                                        100000u + c));
        s->caps[c].now_ns = tc + 2 * US;
    }
    synth_cap *c0 = &s->caps[0];
    uint32_t main_slot = synth_thread_new(s, 0, c0->now_ns, false);
    synth_ck(s, evwrite_create_thread(w, 0, synth_at(s, 0, c0->now_ns),
                                      s->th[main_slot].tid));
    if (o->labels)
        synth_ck(s, evwrite_thread_label(w, 0, synth_at(s, 0, c0->now_ns += 200),
                                         s->th[main_slot].tid, "main"));
    for (unsigned c = 0; c < o->caps; c++) {
        uint16_t cap = (uint16_t)c;
        synth_cap *cs = &s->caps[c];
        uint32_t slot = synth_thread_new(s, cap, cs->now_ns, false);
        uint32_t tid = s->th[slot].tid;
        synth_ck(s, evwrite_create_thread(w, cap, synth_at(s, cap, cs->now_ns += 300), tid));
        if (o->labels) {
            char label[40];
            snprintf(label, sizeof label, "IOManager on cap %u", c);
            synth_ck(s, evwrite_thread_label(w, cap, synth_at(s, cap, cs->now_ns += 200), tid,
                                             label));
        }
        /* It runs once and blocks waiting for I/O. */
        synth_queue_pop_back(&cs->q);
        synth_ck(s, evwrite_run_thread(w, cap, synth_at(s, cap, cs->now_ns += 500), tid));
        synth_ck(s, evwrite_stop_thread(w, cap, synth_at(s, cap, cs->now_ns += 4 * US), tid,
                                        7, 0));
        s->th[slot].ready_ns = cs->now_ns;
        synth_block(s, slot);
        cs->now_ns += 1 * US;
        cs->next_heap_ns = cs->now_ns;
    }
}

/* Clean shutdown: capabilities leave the capsets, capsets are deleted. */
static void
synth_end(synth *s)
{
    uint16_t pc = s->pcap;
    uint64_t t = s->nocap_last_ns;
    for (unsigned c = 0; c < s->o->caps; c++) {
        if (s->caps[c].last_ns > t)
            t = s->caps[c].last_ns;
        if (s->caps[c].now_ns > t)
            t = s->caps[c].now_ns;
    }
    synth_newer_end(s, t + 10 * US);
    if (s->nocap_last_ns > t)
        t = s->nocap_last_ns;
    t += 20 * US;
    for (unsigned c = 0; c < s->o->caps; c++) {
        uint16_t cap = (uint16_t)c;
        synth_ck(s, evwrite_task_delete(s->w, cap, synth_at(s, cap, t + 10 * c),
                                        0x7f0000001000ull + 0x1000ull * c));
    }
    t += 10 * (uint64_t)s->o->caps + 5 * US;
    for (unsigned c = 0; c < s->o->caps; c++) {
        synth_ck(s, evwrite_capset_remove_cap(s->w, pc, synth_at(s, pc, t += 20), 0,
                                              (uint16_t)c));
        synth_ck(s, evwrite_capset_remove_cap(s->w, pc, synth_at(s, pc, t += 20), 1,
                                              (uint16_t)c));
        synth_ck(s, evwrite_cap_delete(s->w, pc, synth_at(s, pc, t += 20), (uint16_t)c));
    }
    synth_ck(s, evwrite_capset_delete(s->w, pc, synth_at(s, pc, t += 50), 0));
    synth_ck(s, evwrite_capset_delete(s->w, pc, synth_at(s, pc, t += 50), 1));
}

/* The whole log; returns the first evwrite status. */
static int
synth_generate(synth *s)
{
    const synth_opts *o = s->o;
    synth_declare(s);
    if (s->err)
        return s->err;
    synth_start(s);
    synth_newer_start(s, s->caps[0].now_ns);
    s->next_marker_ns = o->markers_every_ns ? s->caps[0].now_ns + o->markers_every_ns : 0;
    s->next_msg_ns = o->messages_every_ns ? s->caps[0].now_ns + o->messages_every_ns : 0;
    s->big_next_bytes = 0;
    uint64_t gc_at = 0;
    while (!s->done && !s->err) {
        uint64_t latest = 0;
        for (unsigned c = 0; c < o->caps; c++)
            if (s->caps[c].now_ns > latest)
                latest = s->caps[c].now_ns;
        uint64_t every = o->gc_every_ns ? o->gc_every_ns : 50 * MS;
        if (gc_at < latest + 10 * US)
            gc_at = latest + every / 2 + synth_below(s, every);
        uint64_t next_gc = gc_at + every / 2 + synth_below(s, every);
        uint16_t leader = (uint16_t)synth_below(s, o->caps);
        for (unsigned c = 0; c < o->caps; c++)
            s->caps[c].cut_ns = gc_at + (c == leader ? 0 : synth_logu(s, 500, 30 * US));
        synth_mutate(s, leader);
        if (s->done || s->err)
            break;
        if (o->gc_every_ns)
            synth_gc(s, leader, next_gc);
        gc_at = next_gc;
        if (synth_limit_reached(s))
            s->done = true;
    }
    if (s->err)
        return s->err;
    if (o->truncate)
        return evwrite_finish_truncated(s->w, 1 + (size_t)synth_below(s, 9));
    synth_end(s);
    if (s->err)
        return s->err;
    return evwrite_finish(s->w);
}

/* --- command line --------------------------------------------------------------------- */

static void
synth_usage(FILE *f)
{
    fputs("usage: elog-synth [options] -o OUT.eventlog   (OUT may be - for stdout)\n"
          "  --caps N            capabilities (1..1024, default 4)\n"
          "  --size BYTES        stop at about this file size (suffix K/M/G; default 1M)\n"
          "  --events N          stop after about N events (with --size: whichever first)\n"
          "  --seed S            random seed (default 1); same seed, same bytes\n"
          "  --messages-every T  a traceEvent message every T ns (default 0 = none)\n"
          "  --heap-bands N      a -hT heap-profile census of N bands after every GC\n"
          "                      (in the global block with --global-block, as GHC does)\n"
          "  --markers-every T   user marker \"iteration K\" every T ns (suffix us/ms/s;\n"
          "                      default 10ms, 0 = none)\n"
          "  --gc-every T        stop-the-world GC about every T ns (default 20ms, 0 = none)\n"
          "  --nonmoving         concurrent mark/sync/sweep cycles after major GCs\n"
          "  --sparks            spark events, spark threads, SPARK_COUNTERS\n"
          "  --heap              extra HEAP_ALLOCATED samples between GCs\n"
          "  --labels            THREAD_LABEL for every thread\n"
          "  --churn N           N short-lived threads (create, run once or twice, finish;\n"
          "                      every 10th labelled), then stop (a server's thread per\n"
          "                      request; plus the main thread and one per cap); no size limit\n"
          "  --no-blocks         old style: no block markers, events carry no capability\n"
          "  --global-block      program-info events in a cap 0xffff block (as GHC does)\n"
          "  --unknown-types     declare and emit event types 250 (fixed) and 251 (variable)\n"
          "  --oversized         header sizes larger than the fields written (zero padding)\n"
          "  --out-of-order      a few events slightly out of time order within a block\n"
          "  --truncate          cut the last event in the middle, no end marker\n"
          "  --max-payload       some variable-size events with 65535-byte payloads\n"
          "  --block-bytes N     block flush threshold (default 64K)\n"
          "  --ghc V             the event layouts of GHC V (9.0, 9.2, 9.4, 9.6, 9.10, 9.12...;\n"
          "                      default the newest): which types are declared, the non-\n"
          "                      moving census's 13 or 14 bytes, the ticky definitions\n"
          "  --ticky             ticky-ticky counters, sampled at each major GC\n"
          "  --heap-profile P    P = hi: a -hi profile with IPE events; he: a -he profile\n",
          f);
}

/* Parse an unsigned integer with an optional binary size suffix (K, M, G, T). */
static bool
synth_parse_size(const char *arg, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!arg || *arg < '0' || *arg > '9')
        return false;
    unsigned long long v = strtoull(arg, &end, 10);
    if (errno)
        return false;
    unsigned shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (shift && (*end == 'i' || *end == 'I'))
        end++;
    if (shift && (*end == 'b' || *end == 'B'))
        end++;
    if (*end || (shift && v > (UINT64_MAX >> shift)))
        return false;
    *out = (uint64_t)v << shift;
    return true;
}

enum {
    OPT_CAPS = 256, OPT_SIZE, OPT_EVENTS, OPT_SEED, OPT_MARKERS, OPT_GC, OPT_NONMOVING,
    OPT_SPARKS, OPT_HEAP, OPT_LABELS, OPT_NO_BLOCKS, OPT_UNKNOWN, OPT_OVERSIZED, OPT_OOO,
    OPT_TRUNCATE, OPT_GLOBAL, OPT_MAX_PAYLOAD, OPT_BLOCK_BYTES, OPT_CHURN,
    OPT_GHC, OPT_TICKY, OPT_HEAP_PROFILE,
    OPT_MESSAGES, OPT_HEAP_BANDS,
};

static const struct option synth_long_opts[] = {
    { "output", required_argument, NULL, 'o' },
    { "help", no_argument, NULL, 'h' },
    { "caps", required_argument, NULL, OPT_CAPS },
    { "size", required_argument, NULL, OPT_SIZE },
    { "events", required_argument, NULL, OPT_EVENTS },
    { "seed", required_argument, NULL, OPT_SEED },
    { "markers-every", required_argument, NULL, OPT_MARKERS },
    { "gc-every", required_argument, NULL, OPT_GC },
    { "nonmoving", no_argument, NULL, OPT_NONMOVING },
    { "sparks", no_argument, NULL, OPT_SPARKS },
    { "heap", no_argument, NULL, OPT_HEAP },
    { "labels", no_argument, NULL, OPT_LABELS },
    { "no-blocks", no_argument, NULL, OPT_NO_BLOCKS },
    { "unknown-types", no_argument, NULL, OPT_UNKNOWN },
    { "oversized", no_argument, NULL, OPT_OVERSIZED },
    { "out-of-order", no_argument, NULL, OPT_OOO },
    { "truncate", no_argument, NULL, OPT_TRUNCATE },
    { "global-block", no_argument, NULL, OPT_GLOBAL },
    { "max-payload", no_argument, NULL, OPT_MAX_PAYLOAD },
    { "block-bytes", required_argument, NULL, OPT_BLOCK_BYTES },
    { "churn", required_argument, NULL, OPT_CHURN },
    { "ghc", required_argument, NULL, OPT_GHC },
    { "ticky", no_argument, NULL, OPT_TICKY },
    { "heap-profile", required_argument, NULL, OPT_HEAP_PROFILE },
    { "messages-every", required_argument, NULL, OPT_MESSAGES },
    { "heap-bands", required_argument, NULL, OPT_HEAP_BANDS },
    { NULL, 0, NULL, 0 },
};

static int
synth_bad(const char *opt, const char *arg, const char *want)
{
    fprintf(stderr, "elog-synth: %s: expected %s, got '%s'\n", opt, want, arg ? arg : "");
    return 1;
}

/* Fill *o from argv; 0 ok, 1 bad usage (message printed), 2 help printed. */
static int
synth_parse_args(int argc, char **argv, synth_opts *o)
{
    uint64_t v;
    bool size_given = false;
    *o = (synth_opts){
        .caps = 4, .seed = 1, .markers_every_ns = 10 * MS, .gc_every_ns = 20 * MS,
        .block_bytes = EVWRITE_DEFAULT_BLOCK_BYTES,
    };
    opterr = 0;
    int ch;
    while ((ch = getopt_long(argc, argv, ":o:h", synth_long_opts, NULL)) != -1) {
        switch (ch) {
        case 'o': o->out_path = optarg; break;
        case 'h': synth_usage(stdout); return 2;
        case OPT_CAPS:
            if (!synth_parse_size(optarg, &v) || v < 1 || v > SYNTH_MAX_CAPS)
                return synth_bad("--caps", optarg, "an integer in 1..1024");
            o->caps = (unsigned)v;
            break;
        case OPT_SIZE:
            if (!synth_parse_size(optarg, &v) || v == 0)
                return synth_bad("--size", optarg, "a byte count like 100M");
            o->size_bytes = v;
            size_given = true;
            break;
        case OPT_EVENTS:
            if (!synth_parse_size(optarg, &v) || v == 0)
                return synth_bad("--events", optarg, "a positive integer");
            o->max_events = v;
            break;
        case OPT_SEED:
            if (!synth_parse_size(optarg, &v))
                return synth_bad("--seed", optarg, "an unsigned integer");
            o->seed = v;
            break;
        case OPT_MARKERS:
            if (!timefmt_parse(optarg, &o->markers_every_ns))
                return synth_bad("--markers-every", optarg, "a duration like 5ms");
            break;
        case OPT_GC:
            if (!timefmt_parse(optarg, &o->gc_every_ns))
                return synth_bad("--gc-every", optarg, "a duration like 20ms");
            break;
        case OPT_BLOCK_BYTES:
            if (!synth_parse_size(optarg, &v) || v < 64 || v > (1u << 30))
                return synth_bad("--block-bytes", optarg, "a size in 64..1G");
            o->block_bytes = (size_t)v;
            break;
        case OPT_CHURN:
            if (!synth_parse_size(optarg, &v) || v == 0 || v > UINT32_MAX / 2)
                return synth_bad("--churn", optarg, "a positive thread count");
            o->churn = v;
            break;
        case OPT_MESSAGES:
            if (!timefmt_parse(optarg, &o->messages_every_ns))
                return synth_bad("--messages-every", optarg, "a duration like 5us");
            break;
        case OPT_HEAP_BANDS: {
            char *end;
            unsigned long bands = strtoul(optarg, &end, 10);
            if (*end || bands == 0 || bands > 100000)
                return synth_bad("--heap-bands", optarg, "a band count in 1..100000");
            o->heap_bands = (uint32_t)bands;
            break;
        }
        case OPT_NONMOVING: o->nonmoving = true; break;
        case OPT_SPARKS: o->sparks = true; break;
        case OPT_HEAP: o->heap = true; break;
        case OPT_LABELS: o->labels = true; break;
        case OPT_NO_BLOCKS: o->no_blocks = true; break;
        case OPT_UNKNOWN: o->unknown_types = true; break;
        case OPT_OVERSIZED: o->oversized = true; break;
        case OPT_OOO: o->out_of_order = true; break;
        case OPT_TRUNCATE: o->truncate = true; break;
        case OPT_GLOBAL: o->global_block = true; break;
        case OPT_MAX_PAYLOAD: o->max_payload = true; break;
        case OPT_TICKY: o->ticky = true; break;
        case OPT_GHC: {
            unsigned maj, min;
            char extra;
            if (sscanf(optarg, "%u.%u%c", &maj, &min, &extra) != 2 || maj < 8 || maj > 99 ||
                min > 99)
                return synth_bad("--ghc", optarg, "a GHC version like 9.2 or 9.10");
            o->ghc = maj * 100 + min;
            break;
        }
        case OPT_HEAP_PROFILE:
            if (strcmp(optarg, "hi") != 0 && strcmp(optarg, "he") != 0)
                return synth_bad("--heap-profile", optarg, "hi or he");
            o->heap_profile = optarg[1];
            break;
        case ':':
            fprintf(stderr, "elog-synth: option %s needs an argument\n", argv[optind - 1]);
            return 1;
        default:
            fprintf(stderr, "elog-synth: unknown option '%s' (try --help)\n",
                    argv[optind - 1]);
            return 1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "elog-synth: unexpected argument '%s'\n", argv[optind]);
        return 1;
    }
    if (!o->out_path) {
        fprintf(stderr, "elog-synth: missing -o OUT (try --help)\n");
        return 1;
    }
    if ((o->heap_profile == 'i' && synth_ghc(o) < 902) ||
        (o->heap_profile == 'e' && synth_ghc(o) < 910)) {
        fprintf(stderr, "elog-synth: --heap-profile %s needs --ghc %s or later\n",
                o->heap_profile == 'i' ? "hi" : "he", o->heap_profile == 'i' ? "9.2" : "9.10");
        return 1;
    }
    if (!size_given && !o->max_events && !o->churn)
        o->size_bytes = 1u << 20;
    return 0;
}

int
main(int argc, char **argv)
{
    synth_opts o;
    int rc = synth_parse_args(argc, argv, &o);
    if (rc)
        return rc == 2 ? 0 : 1;

    bool to_stdout = !strcmp(o.out_path, "-");
    FILE *out = to_stdout ? stdout : fopen(o.out_path, "wb");
    if (!out) {
        fprintf(stderr, "elog-synth: cannot open %s: %s\n", o.out_path, strerror(errno));
        return 1;
    }

    synth s = { .o = &o, .next_tid = 1, .live_bytes = 256 * 1024 };
    uint64_t seed = o.seed;
    for (int i = 0; i < 4; i++)
        s.rng.s[i] = synth_splitmix(&seed);
    s.w = evwrite_new(out);
    s.caps = xcalloc(o.caps, sizeof *s.caps);
    for (unsigned c = 0; c < o.caps; c++)
        s.caps[c].flush_ns = SYNTH_NO_TIME;
    s.heap_of_caps = xcalloc(o.caps, sizeof *s.heap_of_caps);
    s.pcap = o.global_block && !o.no_blocks ? EVLOG_NO_CAP : 0;
    s.target_live = o.churn ? 0 : 2 + 3 * (size_t)o.caps;     /* --churn: its threads only */
    if (o.max_payload) {
        s.big = xmalloc(EVWRITE_MAX_PAYLOAD + 1);
        for (size_t i = 0; i < EVWRITE_MAX_PAYLOAD; i++)
            s.big[i] = "synthetic maximum-length payload "[i % 33];
        s.big[EVWRITE_MAX_PAYLOAD] = '\0';
    }

    rc = synth_generate(&s);
    uint64_t bytes = evwrite_bytes(s.w), events = evwrite_events(s.w);
    evwrite_destroy(s.w);
    if (!to_stdout && fclose(out) != 0 && rc == EVWRITE_OK)
        rc = EVWRITE_EIO;
    for (unsigned c = 0; c < o.caps; c++)
        x_free(s.caps[c].q.v);
    x_free(s.caps);
    x_free(s.heap_of_caps);
    x_free(s.th);
    x_free(s.free_slots);
    x_free(s.blocked);
    x_free(s.big);
    if (rc != EVWRITE_OK) {
        fprintf(stderr, "elog-synth: %s: %s\n", o.out_path, evwrite_strerror(rc));
        return 1;
    }
    fprintf(stderr, "elog-synth: %s: %" PRIu64 " bytes, %" PRIu64 " events, %u caps%s\n",
            o.out_path, bytes, events, o.caps, o.truncate ? " (truncated)" : "");
    return 0;
}
