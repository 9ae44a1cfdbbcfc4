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

START_TEST(test_e2e_viewer)
{
    test_e2e_script("viewer", "");
}
END_TEST

/* tests/e2e/view.sh: small screens (80x24 folded HECs, 30x8 scrolling lanes), exact
 * selections, search from the event pane, a GC's per-HEC lines, list bytes, the cut
 * status line, mouse drags. */
START_TEST(test_e2e_view)
{
    test_e2e_script("view", "");
}
END_TEST

START_TEST(test_e2e_robust)
{
    test_e2e_script("robust", "");
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
