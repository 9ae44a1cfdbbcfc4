/* tests/test_e2e: the interactive viewer end to end — tests/e2e/viewer.sh drives the
 * real binary in a private tmux server with both backends (opening, GC and marker
 * jumps, lists, search, help, event pane, resizing to 1x1, quitting by key and by
 * SIGTERM with the terminal given back); tests/e2e/view.sh what small screens show and
 * how selections, search and the mouse behave; tests/e2e/robust.sh its robustness (long
 * escape sequences and key floods, every ending signal, stop and resume, poor TERMs,
 * LANG=C, Home/End encodings, filter typing). One Check test wraps each script. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests.h"

/* Run tests/e2e/NAME.sh with the binary; its report (failures only) on failure. */
static void
e2e_run(const char *name)
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
    snprintf(cmd, sizeof cmd, "ELOG_BIN='%s' bash '%s' > '%s' 2>&1", bin, script, log);
    int rc = system(cmd);
    if (rc != 0) {
        /* Show the script's report in the test output. */
        snprintf(cmd, sizeof cmd, "grep -v '^ok' '%s' >&2", log);
        if (system(cmd) != 0)
            fprintf(stderr, "(no report at %s)\n", log);
    }
    ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) == 0,
                  "end-to-end %s tests failed; report in %s", name, log);
    free(script);
    free(log);
}

START_TEST(test_e2e_viewer)
{
    e2e_run("viewer");
}
END_TEST

/* tests/e2e/view.sh: small screens (80x24 folded HECs, 30x8 scrolling lanes), exact
 * selections, search from the event pane, a GC's per-HEC lines, list bytes, the cut
 * status line, mouse drags. */
START_TEST(test_e2e_view)
{
    e2e_run("view");
}
END_TEST

START_TEST(test_e2e_robust)
{
    e2e_run("robust");
}
END_TEST

Suite *
test_e2e_suite(void)
{
    Suite *s = suite_create("e2e");
    TCase *tc = tcase_create("viewer");
    tcase_set_tags(tc, "e2e");      /* CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_e2e_viewer);
    tcase_add_test(tc, test_e2e_view);
    suite_add_tcase(s, tc);
    TCase *tr = tcase_create("robust");
    tcase_set_tags(tr, "e2e");
    tcase_set_timeout(tr, 300);
    tcase_add_test(tr, test_e2e_robust);
    suite_add_tcase(s, tr);
    return s;
}
