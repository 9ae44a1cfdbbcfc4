/* tests/util: helpers shared by the test suites — paths, opening logs, file reading,
 * running `show` in memory, and the tlog in-memory eventlog builder. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "evlog.h"
#include "evtype.h"
#include "show.h"
#include "tests.h"
#include "xalloc.h"

char *
test_path(const char *rel)
{
    const char *root = getenv("ELOG_ROOT");
    strbuf sb;
    strbuf_init(&sb);
    strbuf_printf(&sb, "%s/%s", root ? root : ".", rel);
    return sb.data;
}

evlog *
test_open_log(const char *rel)
{
    char *path = test_path(rel);
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_msg(log != NULL, "%s: %s", path, d.msg);
    x_free(path);
    return log;
}

char *
test_corpus_dir(void)
{
    char *dir = test_path("../shared/corpus/ghc-events-tests");
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        x_free(dir);
        return NULL;
    }
    return dir;
}

static int
test_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
test_list_dir(const char *dir, const char *suffix, size_t *n_out)
{
    char **names = NULL;
    size_t n = 0, cap = 0, sl = strlen(suffix);
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            size_t l = strlen(de->d_name);
            if (l <= sl || strcmp(de->d_name + l - sl, suffix) != 0)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 32;
                names = xreallocarray(names, cap, sizeof *names);
            }
            names[n++] = xstrdup(de->d_name);
        }
        closedir(d);
    }
    if (n)
        qsort(names, n, sizeof *names, test_cmp_names);
    *n_out = n;
    return names;
}

void
test_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        x_free(names[i]);
    x_free(names);
}

double
test_time_scale(void)
{
    const char *m = getenv("CK_TIMEOUT_MULTIPLIER");
    double f = m ? strtod(m, NULL) : 1.0;
    return f >= 1.0 ? f : 1.0;
}

int
test_unlinked_tempfile(void)
{
    char path[] = "/tmp/elog-test.XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    unlink(path);
    return fd;
}

void
test_write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        ck_assert(w > 0);
        p += w;
        n -= (size_t)w;
    }
}

uint8_t *
test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf sb;
    strbuf_init(&sb);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        strbuf_append(&sb, buf, n);
    fclose(f);
    if (!sb.data)
        strbuf_reserve(&sb, 1);
    *len = sb.len;
    return (uint8_t *)sb.data;
}

char *
test_show_bytes(const uint8_t *data, size_t len, size_t *out_len, int *ending_code)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(data, len, &d);
    if (!log)
        return NULL;
    char *out = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&out, &n);
    diag ending;
    show_write(log, f, &ending, NULL);
    fclose(f);
    evlog_close(log);
    if (ending_code)
        *ending_code = ending.code;
    *out_len = n;
    return out;
}

void
tlog_init(tlog *t)
{
    strbuf_init(&t->b);
}

void
tlog_free(tlog *t)
{
    strbuf_free(&t->b);
}

void
tlog_u8(tlog *t, uint8_t v)
{
    strbuf_append(&t->b, &v, 1);
}

void
tlog_u16(tlog *t, uint16_t v)
{
    uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };
    strbuf_append(&t->b, b, 2);
}

void
tlog_u32(tlog *t, uint32_t v)
{
    tlog_u16(t, (uint16_t)(v >> 16));
    tlog_u16(t, (uint16_t)v);
}

void
tlog_u64(tlog *t, uint64_t v)
{
    tlog_u32(t, (uint32_t)(v >> 32));
    tlog_u32(t, (uint32_t)v);
}

void
tlog_bytes(tlog *t, const void *p, size_t n)
{
    strbuf_append(&t->b, p, n);
}

void
tlog_header_begin(tlog *t)
{
    tlog_u32(t, EVLOG_HEADER_BEGIN);
    tlog_u32(t, EVLOG_HET_BEGIN);
}

void
tlog_type(tlog *t, uint16_t id, uint16_t size, const char *desc)
{
    tlog_u32(t, EVLOG_ET_BEGIN);
    tlog_u16(t, id);
    tlog_u16(t, size);
    tlog_u32(t, (uint32_t)strlen(desc));
    tlog_bytes(t, desc, strlen(desc));
    tlog_u32(t, 0);
    tlog_u32(t, EVLOG_ET_END);
}

void
tlog_header_end(tlog *t)
{
    tlog_u32(t, EVLOG_HET_END);
    tlog_u32(t, EVLOG_HEADER_END);
    tlog_u32(t, EVLOG_DATA_BEGIN);
}

void
tlog_event(tlog *t, uint16_t type, uint64_t time_ns)
{
    tlog_u16(t, type);
    tlog_u64(t, time_ns);
}

void
tlog_block(tlog *t, uint64_t time_ns, uint32_t block_bytes, uint64_t end_ns, uint16_t cap)
{
    tlog_event(t, EV_BLOCK_MARKER, time_ns);
    tlog_u32(t, block_bytes + EVLOG_BLOCK_MARKER_BYTES);
    tlog_u64(t, end_ns);
    tlog_u16(t, cap);
}

void
tlog_end(tlog *t)
{
    tlog_u16(t, EVLOG_DATA_END);
}

void
tlog_standard_header(tlog *t)
{
    static const struct { uint16_t id, size; const char *desc; } std[] = {
        { EV_CREATE_THREAD, 4, "Create thread" },   { EV_RUN_THREAD, 4, "Run thread" },
        { EV_STOP_THREAD, 10, "Stop thread" },      { EV_THREAD_RUNNABLE, 4, "Thread runnable" },
        { EV_MIGRATE_THREAD, 6, "Migrate thread" }, { EV_THREAD_WAKEUP, 6, "Wakeup thread" },
        { EV_GC_START, 0, "Starting GC" },          { EV_GC_END, 0, "Finished GC" },
        { EV_REQUEST_SEQ_GC, 0, "Request sequential GC" },
        { EV_REQUEST_PAR_GC, 0, "Request parallel GC" },
        { EV_CREATE_SPARK_THREAD, 4, "Create spark thread" },
        { EV_LOG_MSG, 0xffff, "Log message" },      { EV_BLOCK_MARKER, 14, "Block marker" },
        { EV_USER_MSG, 0xffff, "User message" },    { EV_GC_IDLE, 0, "GC idle" },
        { EV_GC_WORK, 0, "GC working" },            { EV_GC_DONE, 0, "GC done" },
        { EV_CAPSET_CREATE, 6, "Create capability set" },
        { EV_CAPSET_DELETE, 4, "Delete capability set" },
        { EV_CAPSET_ASSIGN_CAP, 6, "Add capability to capability set" },
        { EV_CAPSET_REMOVE_CAP, 6, "Remove capability from capability set" },
        { EV_RTS_IDENTIFIER, 0xffff, "RTS name and version" },
        { EV_PROGRAM_ARGS, 0xffff, "Program arguments" },
        { EV_PROGRAM_ENV, 0xffff, "Program environment variables" },
        { EV_OSPROCESS_PID, 8, "Process ID" },      { EV_OSPROCESS_PPID, 8, "Parent process ID" },
        { EV_SPARK_COUNTERS, 56, "Spark counters" },
        { EV_SPARK_CREATE, 0, "Spark create" },     { EV_SPARK_DUD, 0, "Spark dud" },
        { EV_SPARK_OVERFLOW, 0, "Spark overflow" }, { EV_SPARK_RUN, 0, "Spark run" },
        { EV_SPARK_STEAL, 2, "Spark steal" },       { EV_SPARK_FIZZLE, 0, "Spark fizzle" },
        { EV_SPARK_GC, 0, "Spark GC" },
        { EV_WALL_CLOCK_TIME, 16, "Wall clock time" },
        { EV_THREAD_LABEL, 0xffff, "Thread label" },
        { EV_CAP_CREATE, 2, "Create capability" },  { EV_CAP_DELETE, 2, "Delete capability" },
        { EV_CAP_DISABLE, 2, "Disable capability" }, { EV_CAP_ENABLE, 2, "Enable capability" },
        { EV_HEAP_ALLOCATED, 12, "Total heap mem ever allocated" },
        { EV_HEAP_SIZE, 12, "Current heap size" },  { EV_HEAP_LIVE, 12, "Current heap live data" },
        { EV_HEAP_INFO_GHC, 38, "Heap static parameters" },
        { EV_GC_STATS_GHC, 58, "GC statistics" },   { EV_GC_GLOBAL_SYNC, 0, "Synchronise stop-the-world GC" },
        { EV_TASK_CREATE, 18, "Task create" },      { EV_TASK_MIGRATE, 12, "Task migrate" },
        { EV_TASK_DELETE, 8, "Task delete" },       { EV_USER_MARKER, 0xffff, "User marker" },
        { EV_MEM_RETURN, 16, "The RTS attempted to return heap memory to the OS" },
        { EV_BLOCKS_SIZE, 12, "Report the size of the heap in blocks" },
        { EV_HEAP_PROF_BEGIN, 0xffff, "Start of heap profile" },
        { EV_HEAP_PROF_COST_CENTRE, 0xffff, "Cost center definition" },
        { EV_HEAP_PROF_SAMPLE_BEGIN, 8, "Start of heap profile sample" },
        { EV_HEAP_PROF_SAMPLE_COST_CENTRE, 0xffff, "Heap profile cost-centre sample" },
        { EV_HEAP_PROF_SAMPLE_STRING, 0xffff, "Heap profile string sample" },
        { EV_HEAP_PROF_SAMPLE_END, 8, "End of heap profile sample" },
        { EV_HEAP_BIO_PROF_SAMPLE_BEGIN, 16, "Start of heap profile (biographical) sample" },
        { EV_PROF_SAMPLE_COST_CENTRE, 0xffff, "Time profile cost-centre stack" },
        { EV_PROF_BEGIN, 8, "Start of a time profile" },
        { EV_IPE, 0xffff, "An IPE entry" },
        { EV_USER_BINARY_MSG, 0xffff, "User binary message" },
        { EV_CONC_MARK_BEGIN, 0, "Begin concurrent mark phase" },
        { EV_CONC_MARK_END, 4, "End concurrent mark phase" },
        { EV_CONC_SYNC_BEGIN, 0, "Begin concurrent GC synchronisation" },
        { EV_CONC_SYNC_END, 0, "End concurrent GC synchronisation" },
        { EV_CONC_SWEEP_BEGIN, 0, "Begin concurrent sweep phase" },
        { EV_CONC_SWEEP_END, 0, "End concurrent sweep phase" },
        { EV_CONC_UPD_REM_SET_FLUSH, 2, "Update remembered set flushed" },
        { EV_NONMOVING_HEAP_CENSUS, 14, "Nonmoving heap census" },
        { EV_NONMOVING_PRUNED_SEGMENTS, 8, "Nonmoving segments pruned" },
        { EV_TICKY_COUNTER_DEF, 0xffff, "Ticky-ticky entry counter definition" },
        { EV_TICKY_COUNTER_SAMPLE, 32, "Ticky-ticky entry counter sample" },
        { EV_TICKY_BEGIN_SAMPLE, 0, "Ticky-ticky entry counter begin sample" },
    };
    for (size_t i = 0; i < sizeof std / sizeof std[0]; i++)
        tlog_type(t, std[i].id, std[i].size, std[i].desc);
}

void
test_e2e_script(const char *name, const char *env)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    ck_assert_msg(system("command -v tmux >/dev/null 2>&1") == 0,
                  "tmux is needed for the end-to-end tests (sh tools/deps.sh installs it)");
    char rel[64];
    snprintf(rel, sizeof rel, "tests/e2e/%s.sh", name);
    char *script = test_path(rel);
    snprintf(rel, sizeof rel, "build/e2e-%s.log", name);
    char *log = test_path(rel);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s ELOG_BIN='%s' bash '%s' > '%s' 2>&1", env, bin, script, log);
    int rc = system(cmd);
    if (rc != 0) {
        snprintf(cmd, sizeof cmd, "grep -v '^ok' '%s' >&2", log);
        if (system(cmd) != 0)
            fprintf(stderr, "(no report at %s)\n", log);
    }
    ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
                  "end-to-end %s tests failed; report in %s", name, log);
    free(script);
    free(log);
}
