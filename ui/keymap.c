/* keymap: the action table, the default key table of every mode, lookups and the help
 * screen generated from them. Adding a binding here is all it takes to show it in `?`. */
#include "keymap.h"

#include <string.h>

static const struct {
    const char *name;
    const char *help;
} keymap_actions[ACTION__COUNT] = {
#define KEYMAP_ROW_(id, name, help) [ACTION_##id] = { name, help },
    KEYMAP_ACTIONS(KEYMAP_ROW_)
#undef KEYMAP_ROW_
};

static const keymap_binding keymap_timeline[] = {
    { "Left", ACTION_PAN_LEFT },        { "h", ACTION_PAN_LEFT },
    { "a", ACTION_PAN_LEFT },
    { "Right", ACTION_PAN_RIGHT },      { "l", ACTION_PAN_RIGHT },
    { "d", ACTION_PAN_RIGHT },
    { "PageUp", ACTION_PAGE_LEFT },     { "PageDown", ACTION_PAGE_RIGHT },
    { "S-Left", ACTION_CURSOR_LEFT },   { "<", ACTION_CURSOR_LEFT },
    { "S-Right", ACTION_CURSOR_RIGHT }, { ">", ACTION_CURSOR_RIGHT },
    { "Home", ACTION_GO_START },        { "End", ACTION_GO_END },
    { "F", ACTION_FOLLOW },
    { "+", ACTION_ZOOM_IN },            { "=", ACTION_ZOOM_IN },
    { "w", ACTION_ZOOM_IN },
    { "-", ACTION_ZOOM_OUT },           { "s", ACTION_ZOOM_OUT },
    { "0", ACTION_ZOOM_FIT },
    { "z", ACTION_ZOOM_SELECTION },     { "f", ACTION_ZOOM_SELECTION },
    { "c", ACTION_CENTER },
    { "Up", ACTION_LANE_UP },           { "k", ACTION_LANE_UP },
    { "Down", ACTION_LANE_DOWN },       { "j", ACTION_LANE_DOWN },
    { ".", ACTION_NEXT_ITEM },          { ",", ACTION_PREV_ITEM },
    { "n", ACTION_NEXT_MARKER },        { "N", ACTION_PREV_MARKER },
    { "m", ACTION_MARKER_LIST },
    { "]", ACTION_NEXT_GC },            { "[", ACTION_PREV_GC },
    { "p", ACTION_GC_LIST },
    { "t", ACTION_THREAD_LIST },
    { "/", ACTION_SEARCH },
    { "Space", ACTION_SELECT },
    { "Escape", ACTION_CANCEL },
    { "e", ACTION_TOGGLE_EVENTS },      { "Tab", ACTION_FOCUS_NEXT },
    { "?", ACTION_HELP },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "q", ACTION_QUIT },               { "C-c", ACTION_QUIT },
};

/* Printable keys are filter text here: only non-printable keys are bound. */
static const keymap_binding keymap_list[] = {
    { "Up", ACTION_LINE_UP },           { "C-p", ACTION_LINE_UP },
    { "Down", ACTION_LINE_DOWN },       { "C-n", ACTION_LINE_DOWN },
    { "PageUp", ACTION_PAGE_UP },       { "PageDown", ACTION_PAGE_DOWN },
    { "Home", ACTION_FIRST },           { "End", ACTION_LAST },
    { "Enter", ACTION_CHOOSE },
    { "Backspace", ACTION_ERASE_CHAR }, { "C-u", ACTION_ERASE_LINE },
    { "Escape", ACTION_CLOSE },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "C-c", ACTION_QUIT },
};

/* Printable keys are the query. */
static const keymap_binding keymap_search[] = {
    { "Enter", ACTION_ACCEPT },
    { "Backspace", ACTION_ERASE_CHAR }, { "C-u", ACTION_ERASE_LINE },
    { "Escape", ACTION_CLOSE },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "C-c", ACTION_QUIT },
};

static const keymap_binding keymap_events[] = {
    { "Up", ACTION_LINE_UP },           { "k", ACTION_LINE_UP },
    { "Down", ACTION_LINE_DOWN },       { "j", ACTION_LINE_DOWN },
    { "PageUp", ACTION_PAGE_UP },       { "PageDown", ACTION_PAGE_DOWN },
    { "Home", ACTION_FIRST },           { "g", ACTION_FIRST },
    { "End", ACTION_LAST },             { "G", ACTION_LAST },
    { "Enter", ACTION_GOTO_EVENT },
    { "n", ACTION_NEXT_MARKER },        { "N", ACTION_PREV_MARKER },
    { "/", ACTION_SEARCH },
    { "Escape", ACTION_CANCEL },
    { "e", ACTION_TOGGLE_EVENTS },      { "Tab", ACTION_FOCUS_NEXT },
    { "?", ACTION_HELP },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "q", ACTION_QUIT },               { "C-c", ACTION_QUIT },
};

static const keymap_binding keymap_help[] = {
    { "Up", ACTION_LINE_UP },           { "k", ACTION_LINE_UP },
    { "Down", ACTION_LINE_DOWN },       { "j", ACTION_LINE_DOWN },
    { "PageUp", ACTION_PAGE_UP },       { "b", ACTION_PAGE_UP },
    { "PageDown", ACTION_PAGE_DOWN },   { "Space", ACTION_PAGE_DOWN },
    { "Home", ACTION_FIRST },           { "g", ACTION_FIRST },
    { "End", ACTION_LAST },             { "G", ACTION_LAST },
    { "Escape", ACTION_CLOSE },         { "q", ACTION_CLOSE },
    { "?", ACTION_CLOSE },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "C-c", ACTION_QUIT },
};

#define KEYMAP_N(t) (sizeof t / sizeof t[0])

static const struct {
    const char *title;
    const keymap_binding *keys;
    size_t n_keys;
} keymap_modes[MODE__COUNT] = {
    [MODE_TIMELINE] = { "Timeline", keymap_timeline, KEYMAP_N(keymap_timeline) },
    [MODE_LIST] = { "Lists (markers, GCs, threads; type to filter)", keymap_list,
                    KEYMAP_N(keymap_list) },
    [MODE_SEARCH] = { "Search prompt (type the query)", keymap_search,
                      KEYMAP_N(keymap_search) },
    [MODE_EVENTS] = { "Event list pane", keymap_events, KEYMAP_N(keymap_events) },
    [MODE_HELP] = { "Help screen", keymap_help, KEYMAP_N(keymap_help) },
};

static int
keymap_mode_ok(int mode)
{
    return mode >= 0 && mode < MODE__COUNT;
}

keymap_action
keymap_lookup(keymap_mode mode, const char *key)
{
    if (!keymap_mode_ok((int)mode) || !key)
        return ACTION_NONE;
    if (strcmp(key, " ") == 0)
        key = "Space";
    for (size_t i = 0; i < keymap_modes[mode].n_keys; i++)
        if (strcmp(keymap_modes[mode].keys[i].key, key) == 0)
            return keymap_modes[mode].keys[i].action;
    return ACTION_NONE;
}

const char *
keymap_key_text(const char *key)
{
    if (!key)
        return NULL;
    if (strcmp(key, "Space") == 0)
        return " ";
    const unsigned char *k = (const unsigned char *)key;
    if (k[0] < 0x20 || k[0] == 0x7f)
        return NULL;
    if (k[0] < 0x80)
        return k[1] == '\0' ? key : NULL;
    /* One UTF-8 character, well formed, not a C1 control (U+0080..U+009F). */
    size_t want = k[0] >= 0xc2 && k[0] < 0xe0 ? 2 : k[0] >= 0xe0 && k[0] < 0xf0 ? 3
                : k[0] >= 0xf0 && k[0] < 0xf5 ? 4 : 0;
    if (want == 0 || strlen(key) != want)
        return NULL;
    for (size_t i = 1; i < want; i++)
        if ((k[i] & 0xc0) != 0x80)
            return NULL;
    if (k[0] == 0xc2 && k[1] < 0xa0)
        return NULL;
    return key;
}

const char *
keymap_action_name(keymap_action action)
{
    return (int)action >= 0 && action < ACTION__COUNT ? keymap_actions[action].name : "";
}

const char *
keymap_action_help(keymap_action action)
{
    return (int)action >= 0 && action < ACTION__COUNT ? keymap_actions[action].help : "";
}

keymap_action
keymap_action_by_name(const char *name)
{
    for (int a = 0; name && a < ACTION__COUNT; a++)
        if (strcmp(keymap_actions[a].name, name) == 0)
            return (keymap_action)a;
    return ACTION_NONE;
}

const char *
keymap_mode_title(keymap_mode mode)
{
    return keymap_mode_ok((int)mode) ? keymap_modes[mode].title : "";
}

const keymap_binding *
keymap_table(keymap_mode mode, size_t *n)
{
    if (!keymap_mode_ok((int)mode)) {
        *n = 0;
        return NULL;
    }
    *n = keymap_modes[mode].n_keys;
    return keymap_modes[mode].keys;
}

size_t
keymap_keys_for(keymap_mode mode, keymap_action action, strbuf *sb)
{
    size_t count = 0;
    if (!keymap_mode_ok((int)mode))
        return 0;
    for (size_t i = 0; i < keymap_modes[mode].n_keys; i++) {
        if (keymap_modes[mode].keys[i].action != action)
            continue;
        if (count++)
            strbuf_putc(sb, ' ');
        strbuf_puts(sb, keymap_modes[mode].keys[i].key);
    }
    return count;
}

/* One mode's section; `sb` is scratch space. */
static void
keymap_help_mode(keymap_mode mode, keymap_line_fn *line, void *ctx, strbuf *sb)
{
    /* Width of the key column: the longest key list, so the help texts line up. */
    int key_cols = 0;
    for (int a = 1; a < ACTION__COUNT; a++) {
        strbuf_reset(sb);
        if (keymap_keys_for(mode, (keymap_action)a, sb) && (int)sb->len > key_cols)
            key_cols = (int)sb->len;
    }
    line(ctx, keymap_modes[mode].title);
    for (int a = 1; a < ACTION__COUNT; a++) {
        strbuf_reset(sb);
        strbuf_puts(sb, "  ");
        size_t before = sb->len;
        if (!keymap_keys_for(mode, (keymap_action)a, sb))
            continue;
        strbuf_printf(sb, "%*s  %s", key_cols - (int)(sb->len - before), "",
                      keymap_actions[a].help);
        line(ctx, sb->data);
    }
    line(ctx, "");
}

void
keymap_help_lines(int mode, keymap_line_fn *line, void *ctx)
{
    strbuf sb;
    strbuf_init(&sb);
    for (int m = 0; m < MODE__COUNT; m++)
        if (mode == KEYMAP_ALL_MODES || mode == m)
            keymap_help_mode((keymap_mode)m, line, ctx, &sb);
    strbuf_free(&sb);
}
