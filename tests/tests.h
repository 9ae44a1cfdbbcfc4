/* tests: shared declarations for the Check test runner — one suite per module,
 * plus the helpers every suite uses (paths, in-memory log builder). */
#ifndef ELOG_TESTS_H
#define ELOG_TESTS_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

Suite *test_cursor_suite(void);
Suite *test_textfmt_suite(void);
Suite *test_evtype_suite(void);
Suite *test_decode_suite(void);
Suite *test_evlog_suite(void);
Suite *test_merge_suite(void);
Suite *test_corpus_suite(void);
Suite *test_fixtures_suite(void);
Suite *test_badinput_suite(void);
Suite *test_truncation_suite(void);
Suite *test_corrupt_suite(void);
Suite *test_mapfile_suite(void);
Suite *test_limits_suite(void);
Suite *test_timefmt_suite(void);
Suite *test_gcstats_suite(void);
Suite *test_e2e_suite(void);
Suite *test_clock_suite(void);
Suite *test_app_suite(void);
Suite *test_timelist_suite(void);
Suite *test_samplebuf_suite(void);
Suite *test_evindex_par_suite(void);
Suite *test_evindex_grow_suite(void);
Suite *test_timeview_suite(void);
Suite *test_axis_suite(void);
Suite *test_keymap_suite(void);
Suite *test_runlane_suite(void);
Suite *test_busybins_suite(void);
Suite *test_msgtab_suite(void);
Suite *test_ivtrack_suite(void);
Suite *test_gcpack_suite(void);
Suite *test_series_suite(void);
Suite *test_xalloc_suite(void);
Suite *test_threadtab_suite(void);
Suite *test_heapprof_suite(void);
Suite *test_evseek_suite(void);
Suite *test_evindex_suite(void);
Suite *test_surface_suite(void);
Suite *test_termio_suite(void);
Suite *test_lanes_suite(void);
Suite *test_detail_suite(void);
Suite *test_uilist_suite(void);
Suite *test_eventpane_suite(void);
Suite *test_helpview_suite(void);
Suite *test_xcheck_suite(void);
Suite *test_mmu_suite(void);
Suite *test_gcanalysis_suite(void);
/* issue 11 */
Suite *test_threadlife_suite(void);
Suite *test_threadlife_grow_suite(void);
Suite *test_focus_live_suite(void);
Suite *test_view11_suite(void);
Suite *test_newer_suite(void);
Suite *test_timeprof_suite(void);
Suite *test_export_suite(void);
Suite *test_install_suite(void);
Suite *test_settings_suite(void);
Suite *test_radixsort_suite(void);
Suite *test_live_suite(void);
Suite *test_evindex_split_suite(void);

/* Repository-relative paths: $ELOG_ROOT (default ".") joined with `rel`. Caller frees. */
char *test_path(const char *rel);
/* Run tests/e2e/NAME.sh (tmux end-to-end) with ELOG_BIN and the extra environment
 * assignments `env` ("" for none) prefixed; its report goes to build/e2e-NAME.log and,
 * on failure, the lines that are not "ok" into the test output. Fails the test unless
 * the script exits 0. */
void test_e2e_script(const char *name, const char *env);
/* The ghc-events corpus directory, or NULL when ../shared is absent. Caller frees. */
char *test_corpus_dir(void);
/* Names of the entries of `dir` ending in `suffix`, sorted; *n receives the count.
 * Caller frees with test_free_names. An unreadable directory gives none. */
char **test_list_dir(const char *dir, const char *suffix, size_t *n);
void test_free_names(char **names, size_t n);
/* Factor for the suite's own time limits: CK_TIMEOUT_MULTIPLIER when set (e.g. 20
 * under valgrind), else 1. */
double test_time_scale(void);
/* The eventlog at repository-relative `rel` (e.g. "fixtures/demo.eventlog"), opened or
 * the test fails. Caller closes with evlog_close. */
struct evlog *test_open_log(const char *rel);
/* Whole file into *len bytes; NULL if unreadable. Caller frees. */
uint8_t *test_read_file(const char *path, size_t *len);
/* A new empty file in /tmp, already unlinked (gone when closed), open read-write, or the
 * test fails. Caller closes. */
int test_unlinked_tempfile(void);
/* All n bytes at p written to fd, or the test fails. */
void test_write_all(int fd, const uint8_t *p, size_t n);
/* Two indexes hold the same events, lanes, runs, collections, messages, threads, series
 * and seek answers, or the test fails naming `name` (tests/test_evindex_par.c). */
struct evindex;
void test_evindex_same(const char *name, const struct evindex *a, const struct evindex *b);
/* What test_evindex_same leaves out: markers, flushes, censuses, the non-moving series,
 * per-cap spark series and counts, the heap and time profiles, GC lookups
 * (tests/test_evindex_grow.c). */
void test_evindex_same_more(const char *name, const struct evindex *a,
                            const struct evindex *b);
/* Two heap profiles (sealed) alike: censuses and their entries, bands (counts, peaks and
 * names), cost centres, breakdown; b passes heapprof_check (tests/test_evindex_grow.c). */
struct heapprof;
void test_heapprof_same(const char *name, const struct heapprof *a, const struct heapprof *b);
/* Run `show` over bytes in memory; returns the output (caller frees) and fills
 * *out_len and, if non-NULL, *ending_code. NULL if the header does not parse. */
char *test_show_bytes(const uint8_t *data, size_t len, size_t *out_len, int *ending_code);

/* tlog: build small eventlogs in memory, big-endian, for unit tests. */
typedef struct tlog {
    strbuf b;
} tlog;

void tlog_init(tlog *t);
void tlog_free(tlog *t);
void tlog_u8(tlog *t, uint8_t v);
void tlog_u16(tlog *t, uint16_t v);
void tlog_u32(tlog *t, uint32_t v);
void tlog_u64(tlog *t, uint64_t v);
void tlog_bytes(tlog *t, const void *p, size_t n);
/* Header start ("hdrb" "hetb"), one declaration, and the end ("hete" "hdre" "datb"). */
void tlog_header_begin(tlog *t);
void tlog_type(tlog *t, uint16_t id, uint16_t size, const char *desc);
void tlog_header_end(tlog *t);
/* Event head: type and time (the caller appends the payload; for a variable-size
 * type it appends the u16 length first). */
void tlog_event(tlog *t, uint16_t type, uint64_t time_ns);
/* A BLOCK_MARKER whose size covers `block_bytes` bytes of events after it. */
void tlog_block(tlog *t, uint64_t time_ns, uint32_t block_bytes, uint64_t end_ns, uint16_t cap);
void tlog_end(tlog *t);
/* A log declaring every type GHC 9.x uses with its usual size (see tests/util.c). */
void tlog_standard_header(tlog *t);

#endif
