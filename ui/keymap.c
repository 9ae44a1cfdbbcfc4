/* keymap: the action table, the default key table of every mode, lookups and the help
 * screen generated from them. Adding a binding here is all it takes to show it in `?`. */
#include "keymap.h"

#include <string.h>

#include "xalloc.h"

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
    { "u", ACTION_MMU_PLOT },           { "W", ACTION_WORST_LIST },
    { "B", ACTION_BAND_LIST },
    { "L", ACTION_LANE_MENU },
    { "/", ACTION_SEARCH },
    { "Space", ACTION_SELECT },
    { "Escape", ACTION_CANCEL },
    { "e", ACTION_TOGGLE_EVENTS },      { "Tab", ACTION_FOCUS_NEXT },
    { "?", ACTION_HELP },
    { "C-l", ACTION_REDRAW },           { "C-z", ACTION_SUSPEND },
    { "q", ACTION_QUIT },               { "C-c", ACTION_QUIT },
    { "y", ACTION_COPY_COMMAND },
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
    { "f", ACTION_FILTER_TEXT },        { "t", ACTION_FILTER_TYPE },
    { "y", ACTION_COPY_COMMAND },
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

/* The MMU plot: choose a window length, jump to its worst window. */
static const keymap_binding keymap_mmu[] = {
    { "Left", ACTION_SHORTER_WINDOW },  { "h", ACTION_SHORTER_WINDOW },
    { "Right", ACTION_LONGER_WINDOW },  { "l", ACTION_LONGER_WINDOW },
    { "Enter", ACTION_CHOOSE },         { "W", ACTION_WORST_LIST },
    { "Escape", ACTION_CLOSE },         { "q", ACTION_CLOSE },
    { "u", ACTION_CLOSE },
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
    [MODE_MMU] = { "MMU plot (u; the bars are window lengths, shortest on the left)", keymap_mmu,
                   KEYMAP_N(keymap_mmu) },
};

static int
keymap_mode_ok(int mode)
{
    return mode >= 0 && mode < MODE__COUNT;
}

/* A user's tables: per mode an owned array of bindings whose key names are owned too. */
struct keymap {
    keymap_binding *keys[MODE__COUNT];
    size_t n_keys[MODE__COUNT], cap[MODE__COUNT];
};

keymap *
keymap_new(void)
{
    keymap *km = xcalloc(1, sizeof *km);    /* caller frees with keymap_free */
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n = keymap_modes[m].n_keys;
        km->cap[m] = n + 8;
        km->keys[m] = xcalloc(km->cap[m], sizeof *km->keys[m]);
        for (size_t i = 0; i < n; i++)
            km->keys[m][i] = (keymap_binding){ xstrdup(keymap_modes[m].keys[i].key),
                                               keymap_modes[m].keys[i].action };
        km->n_keys[m] = n;
    }
    return km;
}

void
keymap_free(keymap *km)
{
    if (!km)
        return;
    for (int m = 0; m < MODE__COUNT; m++) {
        for (size_t i = 0; i < km->n_keys[m]; i++)
            x_free((char *)km->keys[m][i].key);
        x_free(km->keys[m]);
    }
    x_free(km);
}

/* The bindings of `mode` in km, or the defaults when km is NULL. */
static const keymap_binding *
keymap_mode_keys(const keymap *km, keymap_mode mode, size_t *n)
{
    if (km) {
        *n = km->n_keys[mode];
        return km->keys[mode];
    }
    *n = keymap_modes[mode].n_keys;
    return keymap_modes[mode].keys;
}

bool
keymap_key_name_ok(const char *key)
{
    static const char *const named[] = {
        "Left", "Right", "Up", "Down", "PageUp", "PageDown", "Home", "End", "Insert",
        "Delete", "Enter", "Escape", "Tab", "Backspace", "Space",
    };
    if (!key || !key[0])
        return false;
    /* Modifier prefixes, each once, before something else. */
    while (key[0] && key[1] == '-' && key[2] && strchr("CMS", key[0]))
        key += 2;
    if (keymap_key_text(key))
        return strcmp(key, " ") != 0;
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strcmp(key, named[i]) == 0)
            return true;
    if (key[0] == 'F' && key[1] >= '1' && key[1] <= '9') {
        int f = key[2] ? (key[1] - '0') * 10 + (key[2] - '0') : key[1] - '0';
        return (!key[2] || (key[2] >= '0' && key[2] <= '9' && !key[3])) && f >= 1 && f <= 12;
    }
    return false;
}

bool
keymap_bind(keymap *km, keymap_mode mode, const char *key, keymap_action action)
{
    if (!km || !keymap_mode_ok((int)mode) || (int)action <= ACTION_NONE ||
        action >= ACTION__COUNT || !keymap_key_name_ok(key))
        return false;
    if (strcmp(key, " ") == 0)
        key = "Space";
    for (size_t i = 0; i < km->n_keys[mode]; i++)
        if (strcmp(km->keys[mode][i].key, key) == 0) {
            km->keys[mode][i].action = action;
            return true;
        }
    if (km->n_keys[mode] == km->cap[mode]) {
        km->cap[mode] *= 2;
        km->keys[mode] = xreallocarray(km->keys[mode], km->cap[mode], sizeof *km->keys[mode]);
    }
    km->keys[mode][km->n_keys[mode]++] = (keymap_binding){ xstrdup(key), action };
    return true;
}

bool
keymap_unbind(keymap *km, keymap_mode mode, const char *key)
{
    if (!km || !keymap_mode_ok((int)mode) || !key)
        return false;
    for (size_t i = 0; i < km->n_keys[mode]; i++)
        if (strcmp(km->keys[mode][i].key, key) == 0) {
            x_free((char *)km->keys[mode][i].key);
            memmove(&km->keys[mode][i], &km->keys[mode][i + 1],
                    (km->n_keys[mode] - i - 1) * sizeof km->keys[mode][i]);
            km->n_keys[mode]--;
            return true;
        }
    return false;
}

keymap_action
keymap_lookup(keymap_mode mode, const char *key)
{
    return keymap_lookup_in(NULL, mode, key);
}

keymap_action
keymap_lookup_in(const keymap *km, keymap_mode mode, const char *key)
{
    if (!keymap_mode_ok((int)mode) || !key)
        return ACTION_NONE;
    if (strcmp(key, " ") == 0)
        key = "Space";
    size_t n;
    const keymap_binding *b = keymap_mode_keys(km, mode, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(b[i].key, key) == 0)
            return b[i].action;
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

static const char *const keymap_mode_names[] = {
    [MODE_TIMELINE] = "timeline", [MODE_LIST] = "list", [MODE_SEARCH] = "search",
    [MODE_EVENTS] = "events",     [MODE_HELP] = "help",         [MODE_MMU] = "mmu",
};
_Static_assert(sizeof keymap_mode_names / sizeof keymap_mode_names[0] == MODE__COUNT,
               "every mode has a name");

const char *
keymap_mode_name(keymap_mode mode)
{
    return keymap_mode_ok((int)mode) ? keymap_mode_names[mode] : "";
}

int
keymap_mode_by_name(const char *name)
{
    for (int m = 0; name && m < MODE__COUNT; m++)
        if (keymap_mode_names[m] && strcmp(keymap_mode_names[m], name) == 0)
            return m;
    return -1;
}

const char *
keymap_mode_title(keymap_mode mode)
{
    return keymap_mode_ok((int)mode) ? keymap_modes[mode].title : "";
}

const keymap_binding *
keymap_table(keymap_mode mode, size_t *n)
{
    return keymap_table_in(NULL, mode, n);
}

const keymap_binding *
keymap_table_in(const keymap *km, keymap_mode mode, size_t *n)
{
    if (!keymap_mode_ok((int)mode)) {
        *n = 0;
        return NULL;
    }
    return keymap_mode_keys(km, mode, n);
}

size_t
keymap_keys_for(keymap_mode mode, keymap_action action, strbuf *sb)
{
    return keymap_keys_for_in(NULL, mode, action, sb);
}

size_t
keymap_keys_for_in(const keymap *km, keymap_mode mode, keymap_action action, strbuf *sb)
{
    size_t count = 0;
    if (!keymap_mode_ok((int)mode))
        return 0;
    size_t n;
    const keymap_binding *b = keymap_mode_keys(km, mode, &n);
    for (size_t i = 0; i < n; i++) {
        if (b[i].action != action)
            continue;
        if (count++)
            strbuf_putc(sb, ' ');
        strbuf_puts(sb, b[i].key);
    }
    return count;
}

/* One mode's section; `sb` is scratch space. */
static void
keymap_help_mode(const keymap *km, keymap_mode mode, keymap_line_fn *line, void *ctx,
                 strbuf *sb)
{
    /* Width of the key column: the longest key list, so the help texts line up. */
    int key_cols = 0;
    for (int a = 1; a < ACTION__COUNT; a++) {
        strbuf_reset(sb);
        if (keymap_keys_for_in(km, mode, (keymap_action)a, sb) && (int)sb->len > key_cols)
            key_cols = (int)sb->len;
    }
    line(ctx, keymap_modes[mode].title);
    for (int a = 1; a < ACTION__COUNT; a++) {
        strbuf_reset(sb);
        strbuf_puts(sb, "  ");
        size_t before = sb->len;
        if (!keymap_keys_for_in(km, mode, (keymap_action)a, sb))
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
    keymap_help_lines_in(NULL, mode, line, ctx);
}

void
keymap_help_lines_in(const keymap *km, int mode, keymap_line_fn *line, void *ctx)
{
    strbuf sb;
    strbuf_init(&sb);
    for (int m = 0; m < MODE__COUNT; m++)
        if (mode == KEYMAP_ALL_MODES || mode == m)
            keymap_help_mode(km, (keymap_mode)m, line, ctx, &sb);
    strbuf_free(&sb);
}
