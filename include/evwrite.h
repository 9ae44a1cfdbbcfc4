/* evwrite: a streaming writer of GHC eventlogs (big-endian header, per-capability
 * event blocks with BLOCK_MARKERs, end marker) used to make synthetic logs for tests
 * and benchmarks, including deliberately odd ones (no blocks, padding, truncation). */
#ifndef ELOG_EVWRITE_H
#define ELOG_EVWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "evtype.h"

typedef struct evwrite evwrite;

/* Status codes: every int-returning function gives EVWRITE_OK or one of these.
 * An I/O error is sticky: every later call returns EVWRITE_EIO too. */
enum evwrite_status {
    EVWRITE_OK = 0,
    EVWRITE_EIO = -1,           /* the output stream reported a write error */
    EVWRITE_ETOOBIG = -2,       /* variable-size payload longer than 65535 bytes */
    EVWRITE_ESIZE = -3,         /* fixed-size payload longer than the declared size */
    EVWRITE_EUNDECLARED = -4,   /* event type not declared in the header */
    EVWRITE_ESTATE = -5,        /* call not allowed now (declare after begin_data, ...) */
    EVWRITE_EINVAL = -6,        /* bad argument (type 0xffff, size out of range, ...) */
};

/* Header size meaning "variable-sized" for evwrite_declare. */
#define EVWRITE_VARIABLE (-1)
/* Longest payload of a variable-sized event (its length field is a u16). */
#define EVWRITE_MAX_PAYLOAD 65535u
/* Default block flush threshold, in bytes including the 24-byte marker. */
#define EVWRITE_DEFAULT_BLOCK_BYTES (64u * 1024u)

/* Static text for a status code (never NULL, never to be freed). */
const char *evwrite_strerror(int status);

/* --- lifecycle ------------------------------------------------------------------ */

/* A writer onto `out`, which stays owned by the caller (never closed here). Nothing
 * is written until evwrite_begin_data. Caller frees with evwrite_destroy. Aborts
 * only on out-of-memory. */
evwrite *evwrite_new(FILE *out);
/* Free the writer and its buffers without flushing; NULL is a no-op. */
void evwrite_destroy(evwrite *w);

/* --- options (before evwrite_begin_data) ----------------------------------------- */

/* true (default): group events in per-capability blocks with BLOCK_MARKERs.
 * false: old-GHC style, events go to the stream in call order outside any block
 * and their `cap` argument is ignored. */
int evwrite_set_blocks(evwrite *w, bool enabled);
/* Flush a capability's block once adding the next event would make it exceed
 * `bytes` (marker included). 64 <= bytes <= 1 GiB; may be changed at any time. A
 * single event larger than the threshold gets a block of its own. */
int evwrite_set_block_bytes(evwrite *w, size_t bytes);

/* Declare event type `id` (not 0xffff) with payload `size` bytes (0..32767) or
 * EVWRITE_VARIABLE, and a description (copied; UTF-8, any length). Declaring an id
 * again replaces its size and description in place: this is how a test gets header
 * sizes larger than the fields written (the writer zero-pads fixed payloads). The
 * header lists types in first-declaration order. */
int evwrite_declare(evwrite *w, uint16_t id, int size, const char *desc);
/* Declare every RTS event type GHC 9.x declares, in id order, with GHC's sizes and
 * descriptions (block marker included; profiling/ticky types as GHC sizes them). */
int evwrite_declare_ghc(evwrite *w);
/* Declared payload size of `id`: bytes, EVWRITE_VARIABLE, or EVWRITE_EUNDECLARED. */
int evwrite_declared_size(const evwrite *w, uint16_t id);

/* Write the header and DATA_BEGIN. With blocks on, BLOCK_MARKER (18) is declared
 * automatically if needed; it must have size 14 (else EVWRITE_EINVAL). */
int evwrite_begin_data(evwrite *w);

/* --- events (after evwrite_begin_data) -------------------------------------------- */

/* Append one event of declared type `type` to capability `cap`'s block (cap
 * EVLOG_NO_CAP = the global block, as GHC uses for capset/program-info events).
 * Fixed-size types: len <= declared size, the rest is zero-padded. Variable-size:
 * len <= 65535. `payload` is copied (may be NULL when len is 0). Timestamps need
 * not be monotone: a block's marker carries the smallest time of its events and
 * its end_time the largest, which are the first and last for a sorted block. */
int evwrite_event(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
                  const void *payload, size_t len);
/* Like evwrite_event but written straight to the stream, between blocks, so that it
 * belongs to no block (readers give it no capability). Open blocks stay open. */
int evwrite_event_outside(evwrite *w, uint16_t type, uint64_t time_ns, const void *payload,
                          size_t len);
/* Write `cap`'s open block now (no-op if empty). */
int evwrite_flush_cap(evwrite *w, uint16_t cap);
/* Write every open block, in ascending capability order. */
int evwrite_flush_all(evwrite *w);

/* Flush all blocks, write the DATA_END marker, fflush the stream. The writer
 * accepts nothing afterwards (EVWRITE_ESTATE). */
int evwrite_finish(evwrite *w);
/* Like evwrite_finish but leave a truncated log: no DATA_END, and only the first
 * `keep_bytes` bytes of the last event in the file are written (0 drops it; a value
 * >= its size, e.g. SIZE_MAX, keeps it whole so only the end marker is missing). A cut
 * event is not counted by evwrite_events. The last event is the last one of the
 * highest-numbered capability with an open block, else the last one written. */
int evwrite_finish_truncated(evwrite *w, size_t keep_bytes);

/* Bytes the file has once everything buffered is written (markers included; the
 * end marker counted only after evwrite_finish). */
uint64_t evwrite_bytes(const evwrite *w);
/* Events accepted, BLOCK_MARKERs not counted (what `ghc-events` would list). */
uint64_t evwrite_events(const evwrite *w);

/* --- typed helpers: GHC 9.x payload layouts; each is evwrite_event underneath ---- */

/* Any event whose payload we write is empty: GC_START, GC_END, GC_WORK, GC_IDLE,
 * GC_DONE, GC_GLOBAL_SYNC, REQUEST_SEQ_GC/PAR_GC, SPARK_CREATE/DUD/OVERFLOW/RUN/
 * FIZZLE/GC, CONC_MARK_BEGIN, CONC_SYNC_BEGIN/END, CONC_SWEEP_BEGIN/END. */
int evwrite_empty(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns);

int evwrite_create_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid);
int evwrite_run_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid);
int evwrite_thread_runnable(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid);
/* STOP_THREAD: status as in GHC (1 heap overflow, 3 yield, 5 finished, 7 MVar, 8 black
 * hole, ...); blocked_on is the black hole owner's tid, else 0. */
int evwrite_stop_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                        uint16_t status, uint32_t blocked_on);
/* MIGRATE_THREAD: `tid` moves from `cap` to `new_cap`. */
int evwrite_migrate_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                           uint16_t new_cap);
/* THREAD_WAKEUP posted by `cap`: `tid`, which lives on `other_cap`, is woken. */
int evwrite_thread_wakeup(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                          uint16_t other_cap);
/* THREAD_LABEL: label is NUL-terminated, written without the NUL (<= 65531 bytes). */
int evwrite_thread_label(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid,
                         const char *label);
int evwrite_create_spark_thread(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t tid);

/* The times of one capability's part of a stop-the-world GC (nanoseconds). */
typedef struct evwrite_gc_phases {
    uint64_t start_ns;          /* GC_START */
    uint64_t work_ns;           /* GC_WORK */
    bool has_idle;              /* write the GC_IDLE + GC_WORK pair below */
    uint64_t idle_ns;           /* GC_IDLE: ran out of work */
    uint64_t rework_ns;         /* GC_WORK: got more work */
    uint64_t done_ns;           /* GC_DONE */
} evwrite_gc_phases;
/* GC_START, GC_WORK, [GC_IDLE, GC_WORK], GC_DONE on `cap`; the caller then writes
 * GC_GLOBAL_SYNC (leader), GC_END and the statistics. */
int evwrite_gc_phases_write(evwrite *w, uint16_t cap, const evwrite_gc_phases *p);

/* GC_STATS_GHC payload (58 bytes). */
typedef struct evwrite_gc_stats {
    uint32_t capset;
    uint16_t gen;
    uint64_t copied_bytes;
    uint64_t slop_bytes;
    uint64_t frag_bytes;
    uint32_t par_threads;
    uint64_t par_max_copied_bytes;
    uint64_t par_tot_copied_bytes;
    uint64_t par_balanced_copied_bytes;
} evwrite_gc_stats;
int evwrite_gc_stats_write(evwrite *w, uint16_t cap, uint64_t time_ns,
                           const evwrite_gc_stats *s);
/* HEAP_ALLOCATED, HEAP_SIZE, HEAP_LIVE or BLOCKS_SIZE (`type`): capset, bytes. */
int evwrite_heap_bytes(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
                       uint32_t capset, uint64_t bytes);
int evwrite_heap_info(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                      uint16_t gens, uint64_t max_heap_bytes, uint64_t alloc_area_bytes,
                      uint64_t mblock_bytes, uint64_t block_bytes);
/* MEM_RETURN: mblocks currently allocated, needed, returned to the OS. */
int evwrite_mem_return(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                       uint32_t current, uint32_t needed, uint32_t returned);

/* CAPSET_CREATE: capset type 1 custom, 2 OS process, 3 clock domain. */
int evwrite_capset_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                          uint16_t capset_type);
int evwrite_capset_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset);
int evwrite_capset_assign_cap(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                              uint16_t cap_no);
int evwrite_capset_remove_cap(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                              uint16_t cap_no);
int evwrite_cap_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t cap_no);
int evwrite_cap_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t cap_no);
/* RTS_IDENTIFIER: capset, then the NUL-terminated text without its NUL. */
int evwrite_rts_identifier(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                           const char *ident);
/* PROGRAM_ARGS / PROGRAM_ENV: capset, then each of the `n` strings followed by a NUL. */
int evwrite_program_args(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                         const char *const *args, size_t n);
int evwrite_program_env(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                        const char *const *env, size_t n);
/* OSPROCESS_PID / OSPROCESS_PPID. */
int evwrite_osprocess_pid(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                          uint32_t pid);
int evwrite_osprocess_ppid(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                           uint32_t ppid);
int evwrite_wall_clock_time(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t capset,
                            uint64_t sec, uint32_t nsec);
int evwrite_task_create(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t task,
                        uint16_t cap_no, uint64_t kernel_tid);
int evwrite_task_delete(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t task);

/* SPARK_COUNTERS payload (7 x u64). */
typedef struct evwrite_spark_counters {
    uint64_t created, dud, overflowed, converted, gcd, fizzled, remaining;
} evwrite_spark_counters;
int evwrite_spark_counters_write(evwrite *w, uint16_t cap, uint64_t time_ns,
                                 const evwrite_spark_counters *c);
/* SPARK_STEAL: `cap` stole a spark from `victim_cap`. */
int evwrite_spark_steal(evwrite *w, uint16_t cap, uint64_t time_ns, uint16_t victim_cap);

/* USER_MSG, LOG_MSG, USER_MARKER (`type`): the text bytes, no NUL (<= 65535 bytes). */
int evwrite_text(evwrite *w, uint16_t cap, uint16_t type, uint64_t time_ns,
                 const char *text, size_t len);
int evwrite_user_msg(evwrite *w, uint16_t cap, uint64_t time_ns, const char *text);
int evwrite_log_msg(evwrite *w, uint16_t cap, uint64_t time_ns, const char *text);
int evwrite_user_marker(evwrite *w, uint16_t cap, uint64_t time_ns, const char *name);

/* Nonmoving collector (GHC writes these outside capability blocks, cap EVLOG_NO_CAP,
 * except CONC_UPD_REM_SET_FLUSH, which the flushing capability writes). */
int evwrite_conc_mark_end(evwrite *w, uint16_t cap, uint64_t time_ns, uint32_t marked);
int evwrite_conc_upd_rem_set_flush(evwrite *w, uint16_t cap, uint64_t time_ns,
                                   uint16_t flushed_cap);
int evwrite_nonmoving_heap_census(evwrite *w, uint16_t cap, uint64_t time_ns,
                                  uint16_t blk_size, uint32_t active, uint32_t filled,
                                  uint32_t live);
int evwrite_nonmoving_pruned_segments(evwrite *w, uint16_t cap, uint64_t time_ns,
                                      uint32_t pruned, uint32_t free_segments);

/* --- newer GHCs' events, each in the layout the given GHC version writes ----------- */

/* A GHC version as major * 100 + minor: 901 is 9.1, 910 is 9.10. */
#define EVWRITE_GHC_NEWEST 9999
/* Declare the event types GHC `version` declares, with its sizes: as
 * evwrite_declare_ghc, but without MEM_RETURN, BLOCKS_SIZE and IPE before 9.2, the
 * ticky events before 9.1 (TICKY_BEGIN_SAMPLE before 9.3), the 13-byte non-moving
 * census before 9.10 and no NONMOVING_PRUNED_SEGMENTS before 9.12. */
int evwrite_declare_ghc_version(evwrite *w, unsigned version);

/* IPE (169): an info table's provenance; texts NUL-terminated, written with their NUL. */
int evwrite_ipe(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t info,
                const char *table_name, const char *closure_desc, const char *ty_desc,
                const char *label, const char *module, const char *src_loc);
/* HEAP_PROF_BEGIN (160): profile 0, sampling period, breakdown (heapprof_breakdown
 * numbering), every filter empty. */
int evwrite_heap_prof_begin(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t period_ns,
                            uint32_t breakdown);
/* HEAP_PROF_SAMPLE_BEGIN (162) / HEAP_PROF_SAMPLE_END (165) of census `era`. */
int evwrite_heap_prof_sample_begin(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t era);
int evwrite_heap_prof_sample_end(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t era);
/* HEAP_PROF_SAMPLE_STRING (164): profile 0, residency, the label. */
int evwrite_heap_prof_sample_string(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t bytes,
                                    const char *label);
/* TICKY_COUNTER_DEF (210) as GHC `version` writes it: id, arity, kinds, name; from 9.4
 * also the info table (and 9.4's JSON in the kinds field, json then replacing kinds);
 * from 9.6 the JSON as a field of its own. */
int evwrite_ticky_def(evwrite *w, uint16_t cap, uint64_t time_ns, unsigned version,
                      uint64_t id, uint16_t arity, const char *kinds, const char *name,
                      uint64_t info_table, const char *json);
/* TICKY_COUNTER_SAMPLE (211). */
int evwrite_ticky_sample(evwrite *w, uint16_t cap, uint64_t time_ns, uint64_t id,
                         uint64_t entries, uint64_t allocs, uint64_t allocd);
/* The 13-byte NONMOVING_HEAP_CENSUS of GHC 8.10 .. 9.8: block size as a u8 log2. */
int evwrite_nonmoving_heap_census_log2(evwrite *w, uint16_t cap, uint64_t time_ns,
                                       uint8_t log2_blk_size, uint32_t active,
                                       uint32_t filled, uint32_t live);

#endif
