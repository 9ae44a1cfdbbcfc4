/* tests/test_xcheck: the `gc`, `threads` and `heap` tables of every fixture and corpus
 * log against a second, simple reading of the same log (tests/xcheck_ref.c), cell by
 * cell: the TSV the commands print, and the collections' per-capability parts (the JSON
 * "caps") from the index's public records. A difference names the log, the row, the
 * field and both values. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evindex.h"
#include "evlog.h"
#include "reports.h"
#include "tests.h"
#include "xalloc.h"
#include "xcheck_ref.h"

#define XC_MAX_SHOWN 12             /* differences printed per log and table */

/* ---- TSV tables ----------------------------------------------------------------------------- */

typedef struct xc_tab {
    char *text;                 /* owned copy, cut into cells in place */
    char **cells;               /* owned; row-major, n_cols per row, NULL = no such cell */
    size_t n_cols, n_rows;      /* rows after the header */
} xc_tab;

static size_t
xc_split(char *line, char **cells, size_t max)
{
    size_t n = 0;
    for (char *p = line;; p++) {
        if (n < max && (p == line || p[-1] == '\0'))
            cells[n++] = p;
        if (*p == '\0')
            return n;
        if (*p == '\t')
            *p = '\0';
    }
}

static void
xc_parse(xc_tab *t, const strbuf *sb)
{
    memset(t, 0, sizeof *t);
    t->text = xstrdup(sb->data ? sb->data : "");
    size_t n_lines = 0, n_tabs = 0;
    for (const char *p = t->text; *p; p++) {
        n_lines += *p == '\n';
        n_tabs += *p == '\t' && n_lines == 0;
    }
    t->n_cols = n_tabs + 1;
    t->n_rows = n_lines ? n_lines - 1 : 0;
    t->cells = xcalloc((n_lines + 1) * t->n_cols, sizeof *t->cells);
    char *line = t->text;
    for (size_t r = 0; r < n_lines; r++) {
        char *nl = strchr(line, '\n');
        *nl = '\0';
        xc_split(line, &t->cells[r * t->n_cols], t->n_cols);
        line = nl + 1;
    }
}

static void
xc_tab_free(xc_tab *t)
{
    x_free(t->cells);
    x_free(t->text);
}

static const char *
xc_cell(const xc_tab *t, size_t row, size_t col)
{
    const char *c = t->cells[(row + 1) * t->n_cols + col];
    return c ? c : "(none)";
}

static size_t
xc_col(const xc_tab *t, const char *name)
{
    for (size_t c = 0; c < t->n_cols; c++)
        if (t->cells[c] && strcmp(t->cells[c], name) == 0)
            return c;
    return SIZE_MAX;
}

/* ---- comparing -------------------------------------------------------------------------------- */

typedef struct xc_run {
    const char *log;
    size_t n_diffs;
} xc_run;

static void xc_diff(xc_run *run, size_t *shown, const char *table, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
xc_diff(xc_run *run, size_t *shown, const char *table, const char *fmt, ...)
{
    run->n_diffs++;
    if ((*shown)++ < XC_MAX_SHOWN) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "xcheck: %s: %s: ", run->log, table);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    } else if (*shown == XC_MAX_SHOWN + 1) {
        fprintf(stderr, "xcheck: %s: %s: (more differences not shown)\n", run->log, table);
    }
}

/* Compare the tool's table with the reference's, column by name and row by position;
 * rows are named by the first column. */
static void
xc_compare(xc_run *run, const char *table, const strbuf *tool_text, const strbuf *ref_text)
{
    xc_tab got, want;
    xc_parse(&got, tool_text);
    xc_parse(&want, ref_text);
    size_t shown = 0;
    for (size_t c = 0; c < got.n_cols; c++) {
        const char *name = got.cells[c] ? got.cells[c] : "";
        if (xc_col(&want, name) == SIZE_MAX)
            xc_diff(run, &shown, table, "column %s: printed by the tool, not in the reference",
                    name);
    }
    if (got.n_rows != want.n_rows)
        xc_diff(run, &shown, table, "rows: tool %zu, reference %zu", got.n_rows, want.n_rows);
    size_t rows = got.n_rows < want.n_rows ? got.n_rows : want.n_rows;
    for (size_t wc = 0; wc < want.n_cols; wc++) {
        const char *name = want.cells[wc];
        if (!name)
            continue;
        size_t gc = xc_col(&got, name);
        if (gc == SIZE_MAX) {
            xc_diff(run, &shown, table, "column %s: missing from the tool's table", name);
            continue;
        }
        for (size_t r = 0; r < rows; r++) {
            const char *g = xc_cell(&got, r, gc), *w = xc_cell(&want, r, wc);
            if (strcmp(g, w) == 0)
                continue;
            xc_diff(run, &shown, table, "row %zu (%s %s): %s: tool %s, reference %s", r + 1,
                    want.cells[0], xc_cell(&want, r, 0), name, g, w);
        }
    }
    xc_tab_free(&got);
    xc_tab_free(&want);
}

/* The collections' parts as the JSON "caps" give them, from the public records. */
static void
xc_tool_parts(const evindex *ix, strbuf *o)
{
    strbuf_puts(o, "gc_start_ns\tcap\tstart_ns\tend_ns\tstop_ns\twork_ns\tidle_ns\n");
    for (size_t i = 0; i < evindex_n_gcs(ix); i++) {
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        for (uint32_t k = 0; k < g->n_parts; k++) {
            evindex_gc_part p_buf;
            const evindex_gc_part *p = evindex_gc_part_get(ix, g->first_part + k, &p_buf);
            strbuf_printf(o, "%llu\t", (unsigned long long)g->start_ns);
            if (p->cap == EVINDEX_NO_CAP)
                strbuf_putc(o, '-');
            else
                strbuf_u64(o, p->cap);
            strbuf_printf(o, "\t%llu\t%llu\t%llu\t%llu\t%llu\n",
                          (unsigned long long)p->start_ns, (unsigned long long)p->end_ns,
                          (unsigned long long)p->stop_ns, (unsigned long long)p->work_ns,
                          (unsigned long long)p->wait_ns);
        }
    }
}

static void
xc_check_log(xc_run *run, const char *path)
{
    diag d;
    evlog *log = evlog_open(path, &d);
    ck_assert_msg(log != NULL, "%s: %s", path, d.msg);
    xref_tables ref;
    xref_build(log, &ref);
    diag ending;
    evindex *ix = evindex_build(log, NULL, &ending);
    ck_assert_msg(ix != NULL, "%s: no index", path);

    reports_opts o = { 0 };
    strbuf tool;
    strbuf_init(&tool);
    reports_gc(&tool, ix, &o);
    xc_compare(run, "gc", &tool, &ref.gc);
    strbuf_reset(&tool);
    xc_tool_parts(ix, &tool);
    xc_compare(run, "parts", &tool, &ref.parts);
    strbuf_reset(&tool);
    reports_threads(&tool, ix, &o);
    xc_compare(run, "threads", &tool, &ref.threads);
    strbuf_reset(&tool);
    reports_heap(&tool, ix, &o);
    xc_compare(run, "heap", &tool, &ref.bands);
    strbuf_reset(&tool);
    o.censuses = true;
    reports_heap(&tool, ix, &o);
    xc_compare(run, "heap --censuses", &tool, &ref.censuses);
    strbuf_free(&tool);

    evindex_free(ix);
    xref_free(&ref);
    evlog_close(log);
}

/* Every .eventlog of `dir` (all of them together take well under a second, about 3 s
 * under valgrind); the number checked. */
static size_t
xc_check_dir(xc_run *run, const char *dir)
{
    size_t n = 0;
    char **names = test_list_dir(dir, ".eventlog", &n);
    for (size_t i = 0; i < n; i++) {
        strbuf path;
        strbuf_init(&path);
        strbuf_printf(&path, "%s/%s", dir, names[i]);
        run->log = names[i];
        xc_check_log(run, path.data);
        strbuf_free(&path);
    }
    test_free_names(names, n);
    return n;
}

START_TEST(test_xcheck_all_logs)
{
    xc_run run;
    memset(&run, 0, sizeof run);
    char *fixtures = test_path("fixtures");
    size_t n = xc_check_dir(&run, fixtures);
    x_free(fixtures);
    ck_assert_msg(n >= 10, "only %zu fixture logs found", n);
    char *corpus = test_corpus_dir();
    if (corpus) {
        n += xc_check_dir(&run, corpus);
        x_free(corpus);
    } else {
        fprintf(stderr, "xcheck: ../shared/corpus/ghc-events-tests not found, corpus "
                        "SKIPPED\n");
    }
    ck_assert_msg(run.n_diffs == 0, "%zu differences between the tool and the reference "
                  "over %zu logs (listed above)", run.n_diffs, n);
}
END_TEST

Suite *
test_xcheck_suite(void)
{
    Suite *s = suite_create("xcheck");
    TCase *tc = tcase_create("tables");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_xcheck_all_logs);
    suite_add_tcase(s, tc);
    return s;
}
