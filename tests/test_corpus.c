/* tests/test_corpus: conformance — `show` must reproduce ghc-events 0.21's listing
 * byte for byte for every reference in the upstream corpus (22 `.reference` files
 * plus 3 regenerated ones), in memory and through the real elog-tui binary. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "tests.h"
#include "xalloc.h"

#define CORPUS_N_REFERENCES 22      /* X.eventlog.reference in the corpus folder */
#define CORPUS_N_HEAD_REFS 3        /* extra-references/ghc-events-head/X.eventlog.ref */
#define CORPUS_HEAD_DIR "extra-references/ghc-events-head"

/* One reference to check: the log and its expected `show` output. */
typedef struct corpus_ref {
    char *log_path;
    char *ref_path;
    char *name;                     /* log file name, for messages */
} corpus_ref;

typedef struct corpus_list {
    corpus_ref *v;
    size_t n, cap;
} corpus_list;

/* Print the SKIPPED line when the corpus is absent; returns the directory otherwise. */
static char *
corpus_dir_or_skip(const char *what)
{
    char *dir = test_corpus_dir();
    if (!dir)
        fprintf(stderr, "corpus: ../shared/corpus/ghc-events-tests not found, %s SKIPPED\n", what);
    return dir;
}

/* Append every `<dir>/<X>.eventlog<ext>` as the reference of `<logdir>/<X>.eventlog`. */
static void
corpus_collect(corpus_list *l, const char *dir, const char *ext, const char *logdir)
{
    char suffix[64];
    snprintf(suffix, sizeof suffix, ".eventlog%s", ext);
    size_t n;
    char **names = test_list_dir(dir, suffix, &n);
    for (size_t i = 0; i < n; i++) {
        if (l->n == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 32;
            l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
        }
        corpus_ref *r = &l->v[l->n++];
        size_t base_len = strlen(names[i]) - strlen(ext);
        strbuf sb;
        strbuf_init(&sb);
        strbuf_printf(&sb, "%.*s", (int)base_len, names[i]);
        r->name = sb.data;
        strbuf_init(&sb);
        strbuf_printf(&sb, "%s/%s", logdir, r->name);
        r->log_path = sb.data;
        strbuf_init(&sb);
        strbuf_printf(&sb, "%s/%s", dir, names[i]);
        r->ref_path = sb.data;
        x_free(names[i]);
    }
    x_free(names);
}

static void
corpus_list_free(corpus_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        x_free(l->v[i].name);
        x_free(l->v[i].log_path);
        x_free(l->v[i].ref_path);
    }
    x_free(l->v);
}

/* Print at most 160 bytes of a line, escaping control bytes, for messages. */
static void
corpus_put_line(strbuf *msg, const char *p, size_t len)
{
    if (!p) {
        strbuf_puts(msg, "<end of output>");
        return;
    }
    strbuf_putc(msg, '"');
    for (size_t i = 0; i < len && i < 160; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (ch < 0x20 || ch == 0x7f)
            strbuf_printf(msg, "\\x%02x", ch);
        else
            strbuf_putc(msg, (char)ch);
    }
    strbuf_puts(msg, len > 160 ? "\"..." : "\"");
}

/* True if equal; otherwise appends "NAME: line L differs: got ... want ..." to msg. */
static bool
corpus_same(const char *name, const char *got, size_t got_len, const char *want,
            size_t want_len, strbuf *msg)
{
    if (got_len == want_len && memcmp(got, want, got_len) == 0)
        return true;
    size_t line = 1, i = 0, start = 0;
    while (i < got_len && i < want_len && got[i] == want[i]) {
        if (got[i] == '\n') {
            line++;
            start = i + 1;
        }
        i++;
    }
    const char *g = start < got_len ? got + start : NULL;
    const char *w = start < want_len ? want + start : NULL;
    const char *ge = g ? memchr(g, '\n', got_len - start) : NULL;
    const char *we = w ? memchr(w, '\n', want_len - start) : NULL;
    size_t gl = g ? (ge ? (size_t)(ge - g) : got_len - start) : 0;
    size_t wl = w ? (we ? (size_t)(we - w) : want_len - start) : 0;
    strbuf_printf(msg, "%s: output differs from the reference at line %zu (%zu vs %zu bytes)\n"
                  "   got:  ", name, line, got_len, want_len);
    corpus_put_line(msg, g, gl);
    strbuf_puts(msg, "\n   want: ");
    corpus_put_line(msg, w, wl);
    strbuf_putc(msg, '\n');
    return false;
}

/* Every reference: collected from the corpus folder and its ghc-events-head folder. */
static void
corpus_gather(const char *dir, corpus_list *l)
{
    memset(l, 0, sizeof *l);
    corpus_collect(l, dir, ".reference", dir);
    strbuf head;
    strbuf_init(&head);
    strbuf_printf(&head, "%s/%s", dir, CORPUS_HEAD_DIR);
    corpus_collect(l, head.data, ".ref", dir);
    strbuf_free(&head);
}

START_TEST(test_corpus_references)
{
    char *dir = corpus_dir_or_skip("conformance test");
    if (!dir)
        return;
    corpus_list l;
    corpus_gather(dir, &l);
    strbuf msg;                     /* every failure, printed to stderr */
    strbuf_init(&msg);
    size_t first_len = 0;           /* length of the first failure's text in msg */
    size_t compared = 0, failed = 0;
    for (size_t i = 0; i < l.n; i++) {
        const corpus_ref *r = &l.v[i];
        size_t log_len = 0, ref_len = 0;
        uint8_t *log = test_read_file(r->log_path, &log_len);
        uint8_t *ref = test_read_file(r->ref_path, &ref_len);
        if (!log || !ref) {
            strbuf_printf(&msg, "%s: cannot read %s\n", r->name, !log ? r->log_path : r->ref_path);
            failed++;
        } else {
            size_t out_len = 0;
            int ending = -1;
            char *out = test_show_bytes(log, log_len, &out_len, &ending);
            if (!out) {
                strbuf_printf(&msg, "%s: header does not parse\n", r->name);
                failed++;
            } else {
                compared++;
                if (!corpus_same(r->name, out, out_len, (const char *)ref, ref_len, &msg))
                    failed++;
                /* Only testlog-part is cut short; every other log ends cleanly. */
                bool cut = strcmp(r->name, "testlog-part.eventlog") == 0;
                if (ending != (cut ? DIAG_TRUNCATED : DIAG_OK)) {
                    strbuf_printf(&msg, "%s: data ending code %d, expected %d\n", r->name,
                                  ending, cut ? DIAG_TRUNCATED : DIAG_OK);
                    failed++;
                }
            }
            free(out);
        }
        x_free(log);
        x_free(ref);
        if (!first_len)
            first_len = msg.len;
    }
    if (failed > 1)
        fputs(msg.data, stderr);
    ck_assert_msg(failed == 0, "%zu checks failed over %zu references; first: %.*s", failed, l.n,
                  (int)first_len, msg.data ? msg.data : "");
    ck_assert_msg(compared == CORPUS_N_REFERENCES + CORPUS_N_HEAD_REFS,
                  "compared %zu references, expected exactly %d (%d .reference + %d in %s): "
                  "corpus incomplete?", compared, CORPUS_N_REFERENCES + CORPUS_N_HEAD_REFS,
                  CORPUS_N_REFERENCES, CORPUS_N_HEAD_REFS, CORPUS_HEAD_DIR);
    strbuf_free(&msg);
    corpus_list_free(&l);
    x_free(dir);
}
END_TEST

/* The elog-tui binary under test: $ELOG_BIN, else build/elog-tui. Caller frees. */
static char *
corpus_bin(void)
{
    const char *env = getenv("ELOG_BIN");
    char *bin = env && *env ? xstrdup(env) : test_path("build/elog-tui");
    ck_assert_msg(access(bin, X_OK) == 0, "elog-tui binary %s is not executable (set ELOG_BIN)",
                  bin);
    return bin;
}

/* `s` single-quoted for sh. */
static void
corpus_shell_quote(strbuf *sb, const char *s)
{
    strbuf_putc(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_puts(sb, "'\\''");
        else
            strbuf_putc(sb, *s);
    }
    strbuf_putc(sb, '\'');
}

/* Run `BIN show LOG` through popen (stderr discarded); returns stdout, fills the status. */
static char *
corpus_popen_show(const char *bin, const char *log, size_t *len, int *status)
{
    strbuf cmd;
    strbuf_init(&cmd);
    corpus_shell_quote(&cmd, bin);
    strbuf_puts(&cmd, " show ");
    corpus_shell_quote(&cmd, log);
    strbuf_puts(&cmd, " 2>/dev/null");
    FILE *p = popen(cmd.data, "r");
    ck_assert_msg(p != NULL, "popen(%s) failed", cmd.data);
    strbuf out;
    strbuf_init(&out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        strbuf_append(&out, buf, n);
    *status = pclose(p);
    strbuf_free(&cmd);
    if (!out.data)
        strbuf_reserve(&out, 1);
    *len = out.len;
    return out.data;
}

/* The CLI path: stdout of the real binary equals the reference too. stop.hT's 6 MB
 * listing crosses show's 1 MB flush threshold several times; testlog-part is cut. */
START_TEST(test_corpus_cli)
{
    char *dir = corpus_dir_or_skip("CLI conformance test");
    if (!dir)
        return;
    static const struct { const char *log, *ref; } cases[] = {
        { "hello-ghc-8.6.5.eventlog", "hello-ghc-8.6.5.eventlog.reference" },
        { "ticky-new.eventlog", "ticky-new.eventlog.reference" },
        { "stop.hT.eventlog", CORPUS_HEAD_DIR "/stop.hT.eventlog.ref" },
        { "testlog-part.eventlog", CORPUS_HEAD_DIR "/testlog-part.eventlog.ref" },
    };
    char *bin = corpus_bin();
    strbuf msg;
    strbuf_init(&msg);
    size_t compared = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        strbuf lp, rp;
        strbuf_init(&lp);
        strbuf_init(&rp);
        strbuf_printf(&lp, "%s/%s", dir, cases[i].log);
        strbuf_printf(&rp, "%s/%s", dir, cases[i].ref);
        size_t ref_len = 0, out_len = 0;
        uint8_t *ref = test_read_file(rp.data, &ref_len);
        ck_assert_msg(ref != NULL, "cannot read %s", rp.data);
        int status = -1;
        char *out = corpus_popen_show(bin, lp.data, &out_len, &status);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "%s show %s: wait status 0x%x, expected exit 0", bin, cases[i].log, status);
        ck_assert_msg(corpus_same(cases[i].log, out, out_len, (const char *)ref, ref_len, &msg),
                      "via %s: %s", bin, msg.data);
        compared++;
        x_free(out);
        x_free(ref);
        strbuf_free(&lp);
        strbuf_free(&rp);
    }
    ck_assert_uint_eq(compared, sizeof cases / sizeof cases[0]);
    strbuf_free(&msg);
    x_free(bin);
    x_free(dir);
}
END_TEST

Suite *
test_corpus_suite(void)
{
    Suite *s = suite_create("corpus");
    TCase *tc = tcase_create("references");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_corpus_references);
    tcase_add_test(tc, test_corpus_cli);
    suite_add_tcase(s, tc);
    return s;
}
