/* tests/test_keymap: the bindings the product spec requires, table hygiene (valid libtickit
 * key names, no key bound twice, no printable keys where typing is text), the action
 * table, key listings and the generated help screen. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "keymap.h"
#include "tests.h"

START_TEST(test_keymap_required_timeline)
{
    static const struct {
        const char *key;
        keymap_action action;
    } need[] = {
        { "Left", ACTION_PAN_LEFT },        { "h", ACTION_PAN_LEFT },
        { "a", ACTION_PAN_LEFT },           { "Right", ACTION_PAN_RIGHT },
        { "l", ACTION_PAN_RIGHT },          { "d", ACTION_PAN_RIGHT },
        { "PageUp", ACTION_PAGE_LEFT },     { "PageDown", ACTION_PAGE_RIGHT },
        { "Home", ACTION_GO_START },        { "End", ACTION_GO_END },
        { "+", ACTION_ZOOM_IN },            { "=", ACTION_ZOOM_IN },
        { "w", ACTION_ZOOM_IN },            { "-", ACTION_ZOOM_OUT },
        { "s", ACTION_ZOOM_OUT },           { "0", ACTION_ZOOM_FIT },
        { "z", ACTION_ZOOM_SELECTION },     { "f", ACTION_ZOOM_SELECTION },
        { "Up", ACTION_LANE_UP },           { "k", ACTION_LANE_UP },
        { "Down", ACTION_LANE_DOWN },       { "j", ACTION_LANE_DOWN },
        { ".", ACTION_NEXT_ITEM },          { ",", ACTION_PREV_ITEM },
        { "n", ACTION_NEXT_MARKER },        { "N", ACTION_PREV_MARKER },
        { "m", ACTION_MARKER_LIST },        { "]", ACTION_NEXT_GC },
        { "[", ACTION_PREV_GC },            { "p", ACTION_GC_LIST },
        { "/", ACTION_SEARCH },             { "Escape", ACTION_CANCEL },
        { "Space", ACTION_SELECT },         { " ", ACTION_SELECT },
        { "e", ACTION_TOGGLE_EVENTS },      { "t", ACTION_THREAD_LIST },
        { "q", ACTION_QUIT },               { "C-c", ACTION_QUIT },
        { "C-l", ACTION_REDRAW },           { "?", ACTION_HELP },
        { "c", ACTION_CENTER },             { "Tab", ACTION_FOCUS_NEXT },
    };
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
        ck_assert_msg(keymap_lookup(MODE_TIMELINE, need[i].key) == need[i].action,
                      "timeline \"%s\" should be %s, is %s", need[i].key,
                      keymap_action_name(need[i].action),
                      keymap_action_name(keymap_lookup(MODE_TIMELINE, need[i].key)));
    /* Every mode can quit with C-c and redraw with C-l; lists and search have a way out. */
    for (int m = 0; m < MODE__COUNT; m++) {
        ck_assert_int_eq(keymap_lookup((keymap_mode)m, "C-c"), ACTION_QUIT);
        ck_assert_int_eq(keymap_lookup((keymap_mode)m, "C-l"), ACTION_REDRAW);
    }
    ck_assert_int_eq(keymap_lookup(MODE_LIST, "Escape"), ACTION_CLOSE);
    ck_assert_int_eq(keymap_lookup(MODE_LIST, "Enter"), ACTION_CHOOSE);
    ck_assert_int_eq(keymap_lookup(MODE_LIST, "C-n"), ACTION_LINE_DOWN);
    ck_assert_int_eq(keymap_lookup(MODE_LIST, "C-p"), ACTION_LINE_UP);
    ck_assert_int_eq(keymap_lookup(MODE_SEARCH, "Enter"), ACTION_ACCEPT);
    ck_assert_int_eq(keymap_lookup(MODE_SEARCH, "Escape"), ACTION_CLOSE);
    ck_assert_int_eq(keymap_lookup(MODE_SEARCH, "Backspace"), ACTION_ERASE_CHAR);
    ck_assert_int_eq(keymap_lookup(MODE_EVENTS, "Tab"), ACTION_FOCUS_NEXT);
    ck_assert_int_eq(keymap_lookup(MODE_HELP, "q"), ACTION_CLOSE);
}
END_TEST

/* Issue 17 #8: only printable text types into a filter or prompt. */
START_TEST(test_keymap_key_text)
{
    static const char *const text[] = { "a", "Z", "0", "-", "~", "é", "€", "😀" };
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        ck_assert_str_eq(keymap_key_text(text[i]), text[i]);
    ck_assert_str_eq(keymap_key_text("Space"), " ");
    static const char *const none[] = {
        "Right", "Left", "Tab", "F5", "S-Tab", "Home", "Enter", "Escape", "C-a", "M-x",
        "C--", "\x01", "\x7f", "\xc2\x85", "\xc3", "\xe2\x82", "", "ab",
    };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        ck_assert_msg(keymap_key_text(none[i]) == NULL, "'%s' typed text", none[i]);
    ck_assert_ptr_null(keymap_key_text(NULL));
}
END_TEST

START_TEST(test_keymap_unbound)
{
    ck_assert_int_eq(keymap_lookup(MODE_TIMELINE, "x"), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup(MODE_TIMELINE, "F12"), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup(MODE_TIMELINE, ""), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup(MODE_TIMELINE, "left"), ACTION_NONE);   /* names are exact */
    ck_assert_int_eq(keymap_lookup(MODE_TIMELINE, NULL), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup(MODE_LIST, "q"), ACTION_NONE);          /* filter text */
    ck_assert_int_eq(keymap_lookup(MODE_SEARCH, "j"), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup((keymap_mode)MODE__COUNT, "q"), ACTION_NONE);
    ck_assert_int_eq(keymap_lookup((keymap_mode)-1, "q"), ACTION_NONE);
}
END_TEST

static bool
km_is_printable(const char *key)
{
    if (strcmp(key, "Space") == 0)
        return true;
    /* One character (possibly multi-byte UTF-8) is text. */
    size_t n = strlen(key), first = 1;
    unsigned char c = (unsigned char)key[0];
    if (c >= 0xF0)
        first = 4;
    else if (c >= 0xE0)
        first = 3;
    else if (c >= 0xC0)
        first = 2;
    return n == first && c >= 0x20 && c != 0x7F;
}

static bool
km_valid_name(const char *key)
{
    static const char *const named[] = {
        "Left", "Right", "Up", "Down", "PageUp", "PageDown", "Home", "End", "Enter",
        "Escape", "Tab", "Backspace", "Space", "Insert", "Delete",
    };
    for (;;) {          /* modifier prefixes, as libtickit writes them */
        if (strncmp(key, "C-", 2) == 0 || strncmp(key, "S-", 2) == 0
            || strncmp(key, "M-", 2) == 0) {
            if (key[2] == '\0')
                return false;
            key += 2;
        } else {
            break;
        }
    }
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(key, named[i]) == 0)
            return true;
    return strlen(key) == 1 && key[0] > 0x20 && key[0] < 0x7F;
}

START_TEST(test_keymap_tables_clean)
{
    size_t total = 0;
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n = 0;
        const keymap_binding *t = keymap_table((keymap_mode)m, &n);
        ck_assert_ptr_nonnull(t);
        ck_assert_uint_gt(n, 3);
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(km_valid_name(t[i].key), "bad key name \"%s\"", t[i].key);
            ck_assert_msg(t[i].action > ACTION_NONE && t[i].action < ACTION__COUNT,
                          "\"%s\" bound to no action", t[i].key);
            for (size_t j = i + 1; j < n; j++)
                ck_assert_msg(strcmp(t[i].key, t[j].key) != 0, "\"%s\" bound twice in %s",
                              t[i].key, keymap_mode_title((keymap_mode)m));
            ck_assert_int_eq(keymap_lookup((keymap_mode)m, t[i].key), t[i].action);
            if (m == MODE_LIST || m == MODE_SEARCH)
                ck_assert_msg(!km_is_printable(t[i].key),
                              "printable \"%s\" bound where typing is text", t[i].key);
        }
        total += n;
    }
    ck_assert_uint_gt(total, 60);
    size_t n = 7;
    ck_assert_ptr_null(keymap_table((keymap_mode)MODE__COUNT, &n));
    ck_assert_uint_eq(n, 0);
    /* The checkers themselves notice bad input. */
    ck_assert(!km_valid_name("PgUp") && !km_valid_name("C-") && km_valid_name("C-S-Left"));
    ck_assert(km_is_printable("q") && km_is_printable("\xc2\xb5") && !km_is_printable("C-n"));
}
END_TEST

START_TEST(test_keymap_actions)
{
    for (int a = 0; a < ACTION__COUNT; a++) {
        const char *name = keymap_action_name((keymap_action)a);
        ck_assert_uint_gt(strlen(name), 0);
        ck_assert_uint_gt(strlen(keymap_action_help((keymap_action)a)), 0);
        ck_assert_int_eq(keymap_action_by_name(name), a);       /* so names are unique */
        for (const char *p = name; *p; p++)
            ck_assert_msg((*p >= 'a' && *p <= 'z') || *p == '-', "name \"%s\"", name);
    }
    ck_assert_str_eq(keymap_action_name(ACTION_ZOOM_IN), "zoom-in");
    ck_assert_str_eq(keymap_action_name(ACTION__COUNT), "");
    ck_assert_str_eq(keymap_action_help((keymap_action)-1), "");
    ck_assert_int_eq(keymap_action_by_name("no-such-action"), ACTION_NONE);
    ck_assert_int_eq(keymap_action_by_name(NULL), ACTION_NONE);
    for (int m = 0; m < MODE__COUNT; m++) {
        ck_assert_uint_gt(strlen(keymap_mode_title((keymap_mode)m)), 0);
        /* Every mode has a name (settings, --list-keys) that reads back as that mode. */
        const char *mname = keymap_mode_name((keymap_mode)m);
        ck_assert_ptr_nonnull(mname);
        ck_assert_uint_gt(strlen(mname), 0);
        ck_assert_int_eq(keymap_mode_by_name(mname), m);
    }
    ck_assert_str_eq(keymap_mode_name(MODE_MMU), "mmu");
    ck_assert_int_eq(keymap_mode_by_name("popup"), -1);
}
END_TEST

static void
km_keys_are(keymap_mode mode, keymap_action action, const char *want, size_t want_n)
{
    strbuf sb;
    strbuf_init(&sb);
    strbuf_puts(&sb, "[");
    size_t n = keymap_keys_for(mode, action, &sb);
    ck_assert_uint_eq(n, want_n);
    ck_assert_str_eq(sb.data + 1, want);
    strbuf_free(&sb);
}

START_TEST(test_keymap_keys_for)
{
    km_keys_are(MODE_TIMELINE, ACTION_ZOOM_IN, "+ = w", 3);
    km_keys_are(MODE_TIMELINE, ACTION_QUIT, "q C-c", 2);
    km_keys_are(MODE_TIMELINE, ACTION_ZOOM_FIT, "0", 1);
    km_keys_are(MODE_TIMELINE, ACTION_CHOOSE, "", 0);
    km_keys_are(MODE_LIST, ACTION_LINE_DOWN, "Down C-n", 2);
    km_keys_are((keymap_mode)99, ACTION_QUIT, "", 0);
}
END_TEST

/* ---- the help screen ----------------------------------------------------------------- */

typedef struct km_lines {
    char **line;
    size_t n;
} km_lines;

static void
km_collect(void *ctx, const char *line)
{
    km_lines *l = ctx;
    l->line = realloc(l->line, (l->n + 1) * sizeof *l->line);
    ck_assert_ptr_nonnull(l->line);
    l->line[l->n++] = strdup(line);
}

static void
km_lines_free(km_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->line[i]);
    free(l->line);
}

/* Does a binding line ("  k1 k2   help") list `key` among its keys? */
static bool
km_line_has_key(const char *line, const char *key)
{
    if (strncmp(line, "  ", 2) != 0)
        return false;
    const char *end = strstr(line + 2, "  ");
    const char *p = line + 2;
    size_t n = strlen(key);
    while (p < end) {
        const char *sp = strchr(p, ' ');
        if ((size_t)(sp - p) == n && strncmp(p, key, n) == 0)
            return true;
        p = sp + 1;
    }
    return false;
}

START_TEST(test_keymap_help_lines)
{
    km_lines all = { NULL, 0 };
    keymap_help_lines(KEYMAP_ALL_MODES, km_collect, &all);
    /* Split into sections at the titles; each one mentions every key of its mode. */
    size_t at = 0;
    for (int m = 0; m < MODE__COUNT; m++) {
        ck_assert_uint_lt(at, all.n);
        ck_assert_str_eq(all.line[at], keymap_mode_title((keymap_mode)m));
        size_t end = at + 1;
        while (end < all.n && all.line[end][0] != '\0')
            end++;
        ck_assert_uint_lt(end, all.n);              /* a blank line closes the section */
        size_t n = 0;
        const keymap_binding *t = keymap_table((keymap_mode)m, &n);
        for (size_t i = 0; i < n; i++) {
            size_t hits = 0;
            for (size_t j = at + 1; j < end; j++) {
                if (km_line_has_key(all.line[j], t[i].key)) {
                    hits++;
                    ck_assert_msg(strstr(all.line[j], keymap_action_help(t[i].action)),
                                  "\"%s\" listed without its help", t[i].key);
                }
            }
            ck_assert_msg(hits == 1, "%s: key \"%s\" listed %zu times",
                          keymap_mode_title((keymap_mode)m), t[i].key, hits);
        }
        /* The help texts line up in one column, two spaces after the widest key list. */
        size_t col = 0;
        for (size_t j = at + 1; j < end; j++) {
            const char *text = strstr(all.line[j] + 2, "  ");
            ck_assert_ptr_nonnull(text);
            while (*text == ' ')
                text++;
            if (j == at + 1)
                col = (size_t)(text - all.line[j]);
            ck_assert_msg((size_t)(text - all.line[j]) == col, "misaligned: \"%s\"",
                          all.line[j]);
        }
        at = end + 1;
    }
    ck_assert_uint_eq(at, all.n);

    /* One mode alone is exactly its section. */
    km_lines one = { NULL, 0 };
    keymap_help_lines(MODE_SEARCH, km_collect, &one);
    ck_assert_uint_ge(one.n, 3);
    ck_assert_str_eq(one.line[0], keymap_mode_title(MODE_SEARCH));
    ck_assert_str_eq(one.line[one.n - 1], "");
    ck_assert(km_line_has_key(one.line[1], "Backspace"));   /* erase-char comes first */
    ck_assert(!km_line_has_key(one.line[1], "Back"));
    km_lines_free(&one);
    km_lines_free(&all);
}
END_TEST

Suite *
test_keymap_suite(void)
{
    Suite *s = suite_create("keymap");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_keymap_required_timeline);
    tcase_add_test(tc, test_keymap_unbound);
    tcase_add_test(tc, test_keymap_key_text);
    tcase_add_test(tc, test_keymap_tables_clean);
    tcase_add_test(tc, test_keymap_actions);
    tcase_add_test(tc, test_keymap_keys_for);
    tcase_add_test(tc, test_keymap_help_lines);
    suite_add_tcase(s, tc);
    return s;
}
