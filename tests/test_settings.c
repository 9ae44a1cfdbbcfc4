/* tests/test_settings: the settings file — `--print-config`'s text reads back to the
 * defaults and writes out the same text; bindings go into the keymap the viewer and its
 * help screen read (a key rebound in the file drives the app, an unbound one does
 * nothing); styles reach the terminal's pens (TickitMockTerm); every bad line gives one
 * line naming the file and line; where the file is looked for; the binary's own
 * `--print-config` and its error for a bad file; and tests/e2e/settings.sh, the file in
 * the real viewer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tickit-mockterm.h>

#include "app.h"
#include "helpview.h"
#include "lanegroups.h"
#include "settings.h"
#include "termio.h"
#include "../ui/termio_mock.h"
#include "tests.h"
#include "xalloc.h"

static void
st_same_keys(const keymap *km, const char *what)
{
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n_def, n;
        const keymap_binding *def = keymap_table((keymap_mode)m, &n_def);
        const keymap_binding *got = keymap_table_in(km, (keymap_mode)m, &n);
        ck_assert_msg(n == n_def, "%s: mode %d has %zu bindings, the defaults %zu", what, m, n,
                      n_def);
        for (size_t i = 0; i < n; i++) {
            ck_assert_str_eq(got[i].key, def[i].key);
            ck_assert_int_eq(got[i].action, def[i].action);
        }
    }
}

/* Apply `text` line by line; the first failure fails the test. */
static void
st_apply_text(settings *s, const char *text)
{
    char *copy = xstrdup(text);
    char *save = NULL;
    char err[512];
    size_t lineno = 0;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        lineno++;
        ck_assert_msg(settings_apply_line(s, l, err, sizeof err), "line %zu \"%s\": %s",
                      lineno, l, err);
    }
    x_free(copy);
}

START_TEST(test_settings_round_trip)
{
    settings *def = settings_new();
    strbuf a;
    strbuf_init(&a);
    settings_write(def, &a);
    settings *back = settings_new();
    /* Start from something else, so reading the text must set every value. */
    st_apply_text(back, "backend tickit\nmouse off\nmono on\nascii on\n"
                        "style RUNNING fg=1 bg=2 attrs=bold fg8=3 bg8=4 attrs8=under mono=reverse");
    st_apply_text(back, a.data);
    strbuf b;
    strbuf_init(&b);
    settings_write(back, &b);
    ck_assert_str_eq(a.data, b.data);
    st_same_keys(settings_keys(back), "read back");
    theme_table t;
    theme_table_defaults(&t);
    ck_assert(memcmp(&t, settings_styles(back), sizeof t) == 0);
    ck_assert_str_eq(settings_backend(back), "curses");
    ck_assert(settings_mouse(back) && !settings_mono(back) && !settings_ascii(back));
    /* Every default binding and style is in the text, as a line of its own. */
    size_t n_bind = 0, n_style = 0, want_bind = 0;
    for (const char *p = a.data; (p = strstr(p, "\nbind ")) != NULL; p++)
        n_bind++;
    for (const char *p = a.data; (p = strstr(p, "\nstyle ")) != NULL; p++)
        n_style++;
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n;
        keymap_table((keymap_mode)m, &n);
        want_bind += n;
    }
    ck_assert_uint_eq(n_bind, want_bind);
    ck_assert_uint_eq(n_style, STYLE_COUNT);
    strbuf_free(&a);
    strbuf_free(&b);
    settings_free(def);
    settings_free(back);
}
END_TEST

/* A binding from the file drives the app through the same tables, and shows in `?`. */
START_TEST(test_settings_bindings_drive_app)
{
    settings *s = settings_new();
    st_apply_text(s, "bind timeline x zoom-in\nunbind timeline w\nbind timeline C-f page-right\n"
                     "bind help F1 close\nbind timeline + zoom-out");
    evlog *log = test_open_log("fixtures/threaded-n2.eventlog");
    diag d;
    evindex *ix = evindex_build(log, NULL, &d);
    app_opts o = { .keys = settings_keys(s) };
    app *a = app_new(ix, "threaded-n2", 120, 40, &o);
    timeview *v = app_view(a);
    uint64_t span = v->t1_ns - v->t0_ns;
    app_key(a, "x");
    ck_assert_uint_lt(v->t1_ns - v->t0_ns, span);   /* x zooms in now */
    span = v->t1_ns - v->t0_ns;
    app_key(a, "w");
    ck_assert_uint_eq(v->t1_ns - v->t0_ns, span);   /* w does nothing any more */
    uint64_t t0 = v->t0_ns;
    app_key(a, "C-f");
    ck_assert_uint_gt(v->t0_ns, t0);                /* a whole view later */
    app_key(a, "+");
    ck_assert_uint_gt(v->t1_ns - v->t0_ns, span);   /* + rebound to zoom out */
    /* The help screen is generated from the same tables. */
    strbuf help;
    strbuf_init(&help);
    ck_assert_uint_eq(keymap_keys_for_in(settings_keys(s), MODE_TIMELINE, ACTION_ZOOM_IN,
                                         &help), 2);
    ck_assert_str_eq(help.data, "= x");
    strbuf_free(&help);
    surface *sf = surface_new(120, 40);
    app_key(a, "?");
    app_draw(a, sf);
    char *screen = surface_dump(sf);
    ck_assert_msg(strstr(screen, "Escape q ? F1: close") != NULL, "the help box's bottom line "
                  "does not name F1 among the close keys:\n%s", screen);
    x_free(screen);
    app_key(a, "F1");
    ck_assert(!app_quit_requested(a));
    /* The header's help hint names the help key in force. */
    app_draw(a, sf);
    screen = surface_dump(sf);
    ck_assert_msg(strstr(screen, " ? help ") != NULL, "%s", screen);
    x_free(screen);
    settings *moved = settings_new();
    st_apply_text(moved, "unbind timeline ?\nbind timeline F2 help");
    app_opts o2 = { .keys = settings_keys(moved) };
    app *a2 = app_new(ix, "threaded-n2", 120, 40, &o2);
    app_draw(a2, sf);
    screen = surface_dump(sf);
    ck_assert_msg(strstr(screen, " F2 help ") != NULL && !strstr(screen, " ? help "), "%s",
                  screen);
    x_free(screen);
    app_free(a2);
    settings_free(moved);
    surface_free(sf);
    app_free(a);
    evindex_free(ix);
    evlog_close(log);
    settings_free(s);
}
END_TEST

/* Styles reach the terminal: a mock tickit terminal opened with the settings' table
 * paints RUNNING with the file's colours, and the untouched GC_WORK with the default. */
START_TEST(test_settings_styles_reach_pens)
{
    settings *s = settings_new();
    st_apply_text(s, "style running fg=99 bg=17 attrs=bold,under");
    termio_opts o = termio_default_opts();
    o.force_theme = true;
    o.theme = THEME_256;
    o.styles = settings_styles(s);
    termio *t = termio_open_mock(4, 1, &o);
    surface *sf = surface_new(4, 1);
    surface_put(sf, 0, 0, ' ', STYLE_RUNNING);
    surface_put(sf, 1, 0, ' ', STYLE_GC_WORK);
    termio_present(t, sf);
    TickitPen *run = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 0);
    TickitPen *gc = tickit_mockterm_get_display_pen(termio_mock_term(t), 0, 1);
    ck_assert_int_eq(tickit_pen_get_colour_attr(run, TICKIT_PEN_FG), 99);
    ck_assert_int_eq(tickit_pen_get_colour_attr(run, TICKIT_PEN_BG), 17);
    ck_assert(tickit_pen_get_bool_attr(run, TICKIT_PEN_BOLD));
    ck_assert(tickit_pen_get_bool_attr(run, TICKIT_PEN_UNDER));
    ck_assert_int_eq(tickit_pen_get_colour_attr(gc, TICKIT_PEN_FG), 202);   /* theme.h */
    surface_free(sf);
    termio_free(t);
    settings_free(s);
}
END_TEST

START_TEST(test_settings_bad_lines)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        { "colour RUNNING 1", "unknown setting \"colour\"" },
        { "backend vt100", "backend wants curses or tickit, not \"vt100\"" },
        { "mouse yes", "mouse wants on or off, not \"yes\"" },
        { "mono", "mono wants: mono on|off" },
        { "bind timeline x", "bind wants: bind MODE KEY ACTION" },
        { "bind timeline x zoomin", "unknown action \"zoomin\"" },
        { "bind timeline x none", "unknown action \"none\"" },
        { "bind popup x zoom-in", "unknown mode \"popup\"" },
        { "bind timeline Pageup zoom-in", "\"Pageup\" is not a key name" },
        { "bind timeline F13 zoom-in", "\"F13\" is not a key name" },
        { "unbind timeline x", "\"x\" is not bound in mode timeline" },
        { "style RUNING fg=1", "unknown style \"RUNING\"" },
        { "style RUNNING fg=256", "fg wants a colour 0..255 or default, not \"256\"" },
        { "style RUNNING fg8=8", "fg8 wants a colour 0..7 or default, not \"8\"" },
        { "style RUNNING bg=-1", "bg wants a colour 0..255 or default, not \"-1\"" },
        { "style RUNNING attrs=blink", "attrs wants bold, under, reverse" },
        { "style RUNNING colour=1", "\"colour=1\" is not fg=" },
        { "alert-pause soon", "alert-pause wants off or a duration (50ms, 1.5s), not \"soon\"" },
        { "alert-pause 0ms", "alert-pause wants off or a duration" },
        { "hide-lanes sparkhec", "\"sparkhec\" is not a lane group" },
        { "hide-lanes memory,,heap", "\"\" is not a lane group" },
        { "hide-lanes", "hide-lanes wants: hide-lanes none|GROUP" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        settings *s = settings_new();
        strbuf before, after;
        strbuf_init(&before);
        strbuf_init(&after);
        settings_write(s, &before);
        char err[512] = "";
        ck_assert_msg(!settings_apply_line(s, cases[i].line, err, sizeof err), "accepted \"%s\"",
                      cases[i].line);
        ck_assert_msg(strncmp(err, cases[i].want, strlen(cases[i].want)) == 0,
                      "\"%s\": \"%s\", want \"%s...\"", cases[i].line, err, cases[i].want);
        ck_assert_msg(!strchr(err, '\n'), "\"%s\": the error is not one line", cases[i].line);
        settings_write(s, &after);
        ck_assert_str_eq(before.data, after.data);      /* a bad line changes nothing */
        strbuf_free(&before);
        strbuf_free(&after);
        settings_free(s);
    }
    /* alert-pause: a duration on the log's units, printed back the same way; off is 0. */
    settings *s = settings_new();
    ck_assert_uint_eq(settings_alert_pause_ns(s), 0);
    st_apply_text(s, "alert-pause 1.5ms\n");
    ck_assert_uint_eq(settings_alert_pause_ns(s), 1500000);
    strbuf w;
    strbuf_init(&w);
    settings_write(s, &w);
    ck_assert(strstr(w.data, "\nalert-pause 1.500000ms\n") != NULL);
    strbuf_free(&w);
    st_apply_text(s, "alert-pause off\n");
    ck_assert_uint_eq(settings_alert_pause_ns(s), 0);
    /* hide-lanes: lane groups by name, written back in the groups' order; none clears. */
    ck_assert_uint_eq(settings_hidden_lanes(s), 0);
    st_apply_text(s, "hide-lanes memory,spark-hec\n");
    ck_assert_uint_eq(settings_hidden_lanes(s), LANEGROUP_BIT(LANEGROUP_MEMORY) |
                                                    LANEGROUP_BIT(LANEGROUP_SPARK_HEC));
    strbuf_init(&w);
    settings_write(s, &w);
    ck_assert(strstr(w.data, "\nhide-lanes spark-hec,memory\n") != NULL);
    strbuf_free(&w);
    st_apply_text(s, "hide-lanes none\n");
    ck_assert_uint_eq(settings_hidden_lanes(s), 0);
    settings_free(s);
    /* Comments, blank lines, tabs; # as a key. */
    s = settings_new();
    st_apply_text(s, "  # a comment with many words in it, more than any setting has\n"
                     "\t\n\tbind\ttimeline  #  help\n");
    ck_assert_int_eq(keymap_lookup_in(settings_keys(s), MODE_TIMELINE, "#"), ACTION_HELP);
    settings_free(s);
}
END_TEST

static char st_dir[64];

static void
st_write(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", st_dir, rel);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(test_settings_load_file)
{
    snprintf(st_dir, sizeof st_dir, "/tmp/elog-settings.XXXXXX");
    ck_assert(mkdtemp(st_dir) != NULL);
    char path[256], err[512], want[512];
    bool found = true;
    settings *s = settings_new();
    snprintf(path, sizeof path, "%s/none", st_dir);
    ck_assert(settings_load(s, path, &found, err, sizeof err));
    ck_assert(!found);
    st_write("good", "# mine\nbackend tickit\nmouse off\nbind list C-j line-down\n");
    snprintf(path, sizeof path, "%s/good", st_dir);
    ck_assert_msg(settings_load(s, path, &found, err, sizeof err), "%s", err);
    ck_assert(found);
    ck_assert_str_eq(settings_backend(s), "tickit");
    ck_assert(!settings_mouse(s));
    ck_assert_int_eq(keymap_lookup_in(settings_keys(s), MODE_LIST, "C-j"), ACTION_LINE_DOWN);
    st_write("bad", "backend curses\n\n# ok so far\nbind timeline q quit-now\nmouse off\n");
    snprintf(path, sizeof path, "%s/bad", st_dir);
    ck_assert(!settings_load(s, path, &found, err, sizeof err));
    snprintf(want, sizeof want, "%s:4: unknown action \"quit-now\"", path);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "\"%s\"", err);
    ck_assert(!settings_mouse(s));  /* line 5 was not read */
    /* A directory where the file should be: an error naming it, not a crash. */
    snprintf(path, sizeof path, "%s/dir", st_dir);
    ck_assert_int_eq(mkdir(path, 0700), 0);
    ck_assert(!settings_load(s, path, &found, err, sizeof err));
    ck_assert(strncmp(err, path, strlen(path)) == 0);
    rmdir(path);
    settings_free(s);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", st_dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(test_settings_path)
{
    char *p = settings_path("/x/cfg", "/home/u");
    ck_assert_str_eq(p, "/x/cfg/elog-tui/config");
    x_free(p);
    p = settings_path("relative", "/home/u");    /* not absolute: ignored, as XDG says */
    ck_assert_str_eq(p, "/home/u/.config/elog-tui/config");
    x_free(p);
    p = settings_path(NULL, "/home/u");
    ck_assert_str_eq(p, "/home/u/.config/elog-tui/config");
    x_free(p);
    p = settings_path("", "");
    ck_assert_ptr_null(p);
}
END_TEST

/* The binary: --print-config is the defaults' text; a bad file stops the viewer with one
 * line naming the file and the line, before it asks for a terminal. */
START_TEST(test_settings_cli)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    char dir[] = "/tmp/elog-settings.XXXXXX";
    ck_assert(mkdtemp(dir) != NULL);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/elog-tui' && '%s' --print-config > "
             "'%s/elog-tui/config'", dir, bin, dir);
    ck_assert_int_eq(system(cmd), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/elog-tui/config", dir);
    size_t len;
    char *text = (char *)test_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    settings *s = settings_new();
    strbuf want;
    strbuf_init(&want);
    settings_write(s, &want);
    ck_assert_str_eq(text, want.data);
    x_free(text);
    /* The printed defaults load: the viewer gets as far as wanting a terminal. */
    char *fix = test_path("fixtures/markers.eventlog");
    snprintf(cmd, sizeof cmd, "XDG_CONFIG_HOME='%s' '%s' '%s' < /dev/null 2>&1", dir, bin, fix);
    FILE *p = popen(cmd, "r");
    char out[1024] = "";
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(WEXITSTATUS(pclose(p)), 1);
    ck_assert_msg(strstr(out, "the viewer needs a terminal") != NULL, "%s", out);
    /* A bad line: one line naming file and line, exit 1. */
    snprintf(cmd, sizeof cmd, "printf 'mouse off\\nbind timeline zz zoom-in\\n' >> '%s'", path);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "XDG_CONFIG_HOME='%s' '%s' '%s' < /dev/null 2>&1", dir, bin, fix);
    p = popen(cmd, "r");
    n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    ck_assert_int_eq(WEXITSTATUS(pclose(p)), 1);
    strbuf w;
    strbuf_init(&w);
    size_t lines = 1;
    for (const char *c = want.data; *c; c++)
        lines += *c == '\n';
    strbuf_printf(&w, "elog-tui: %s:%zu: \"zz\" is not a key name", path, lines + 1);
    ck_assert_msg(strncmp(out, w.data, w.len) == 0, "got \"%s\", want \"%s...\"", out, w.data);
    ck_assert_msg(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
    strbuf_free(&w);
    strbuf_free(&want);
    settings_free(s);
    x_free(fix);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The example in the man page's FILES section is a valid settings file. */
START_TEST(test_settings_man_example)
{
    char *path = test_path("docs/elog-tui.1");
    size_t len;
    char *man = (char *)test_read_file(path, &len);
    ck_assert_ptr_nonnull(man);
    const char *start = strstr(man, "\n# ~/.config/elog-tui/config\n");
    ck_assert_ptr_nonnull(start);
    const char *end = strstr(start, "\n.Ed\n");
    ck_assert_ptr_nonnull(end);
    char *example = xcalloc((size_t)(end - start) + 1, 1);
    memcpy(example, start + 1, (size_t)(end - start - 1));
    settings *s = settings_new();
    st_apply_text(s, example);
    ck_assert_str_eq(settings_backend(s), "tickit");
    ck_assert_int_eq(keymap_lookup_in(settings_keys(s), MODE_TIMELINE, "C-f"), ACTION_PAGE_RIGHT);
    ck_assert_int_eq(keymap_lookup_in(settings_keys(s), MODE_TIMELINE, "a"), ACTION_NONE);
    ck_assert_int_eq(theme_table_get(settings_styles(s), THEME_256, STYLE_GC_WORK).fg, 196);
    settings_free(s);
    x_free(example);
    x_free(man);
    x_free(path);
}
END_TEST

/* tests/e2e/settings.sh: the file in the real viewer, both backends, in tmux. */
START_TEST(test_settings_e2e)
{
    test_e2e_script("settings", "");
}
END_TEST

Suite *
test_settings_suite(void)
{
    Suite *s = suite_create("settings");
    TCase *tc = tcase_create("settings");
    tcase_add_test(tc, test_settings_round_trip);
    tcase_add_test(tc, test_settings_bindings_drive_app);
    tcase_add_test(tc, test_settings_styles_reach_pens);
    tcase_add_test(tc, test_settings_bad_lines);
    tcase_add_test(tc, test_settings_load_file);
    tcase_add_test(tc, test_settings_path);
    tcase_add_test(tc, test_settings_cli);
    tcase_add_test(tc, test_settings_man_example);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("e2e");
    tcase_set_tags(te, "e2e");      /* CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(te, 120);
    tcase_add_test(te, test_settings_e2e);
    suite_add_tcase(s, te);
    return s;
}
