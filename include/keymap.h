/* keymap: key bindings as data, as in neomutt — one table of actions (name, help text) and
 * one default table of key -> action per input mode, with libtickit key names. The `?`
 * screen is generated from the tables; the app owns the handlers (action -> code). */
#ifndef ELOG_KEYMAP_H
#define ELOG_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "strbuf.h"

/* X(ID, "name", "help"): every action, in the order the help screen lists them. */
#define KEYMAP_ACTIONS(X) \
    X(NONE,           "none",           "do nothing") \
    X(PAN_LEFT,       "pan-left",       "pan 1/8 of the view earlier") \
    X(PAN_RIGHT,      "pan-right",      "pan 1/8 of the view later") \
    X(PAGE_LEFT,      "page-left",      "pan a whole view earlier") \
    X(PAGE_RIGHT,     "page-right",     "pan a whole view later") \
    X(CURSOR_LEFT,    "cursor-left",    "move the cursor one column earlier") \
    X(CURSOR_RIGHT,   "cursor-right",   "move the cursor one column later") \
    X(GO_START,       "go-start",       "go to the start of the log") \
    X(GO_END,         "go-end",         "go to the end of the log") \
    X(ZOOM_IN,        "zoom-in",        "zoom in 2x around the cursor") \
    X(ZOOM_OUT,       "zoom-out",       "zoom out 2x around the cursor") \
    X(ZOOM_FIT,       "zoom-fit",       "show the whole log") \
    X(ZOOM_SELECTION, "zoom-selection", "zoom to the selection or the selected item") \
    X(CENTER,         "center",         "centre the view on the cursor") \
    X(LANE_UP,        "lane-up",        "select the lane above") \
    X(LANE_DOWN,      "lane-down",      "select the lane below") \
    X(NEXT_ITEM,      "next-item",      "next item on the lane (focused thread: its next run)") \
    X(PREV_ITEM,      "prev-item",      "previous item on the lane (focused thread: run)") \
    X(NEXT_MARKER,    "next-marker",    "next user marker (next match after a search)") \
    X(PREV_MARKER,    "prev-marker",    "previous user marker (previous match after a search)") \
    X(MARKER_LIST,    "marker-list",    "list user markers") \
    X(NEXT_GC,        "next-gc",        "next garbage collection") \
    X(PREV_GC,        "prev-gc",        "previous garbage collection") \
    X(GC_LIST,        "gc-list",        "list garbage collections, longest pause first") \
    X(THREAD_LIST,    "thread-list",    "list Haskell threads (Enter focuses one)") \
    X(MMU_PLOT,       "mmu-plot",       "minimum mutator utilisation curve (selection or log)") \
    X(WORST_LIST,     "worst-list",     "worst windows (lowest mutator share) of that length") \
    X(SHORTER_WINDOW, "shorter-window", "the next shorter window length on the MMU plot") \
    X(LONGER_WINDOW,  "longer-window",  "the next longer window length on the MMU plot") \
    X(BAND_LIST,      "band-list",      "list heap-profile bands by peak (Enter: go to the peak)") \
    X(LANE_MENU,      "lane-menu",      "show or hide groups of lanes (spark, heap, memory ...)") \
    X(SEARCH,         "search",         "search event text") \
    X(SELECT,         "select",         "start or end a range selection at the cursor") \
    X(CANCEL,         "cancel",         "clear search, selection, thread focus, pane filters") \
    X(TOGGLE_EVENTS,  "toggle-events",  "show or hide the event list pane") \
    X(FOCUS_NEXT,     "focus-next",     "move focus between the timeline and the event pane") \
    X(LINE_UP,        "line-up",        "move up one line") \
    X(LINE_DOWN,      "line-down",      "move down one line") \
    X(PAGE_UP,        "page-up",        "move up one page") \
    X(PAGE_DOWN,      "page-down",      "move down one page") \
    X(FIRST,          "first",          "go to the first line") \
    X(LAST,           "last",           "go to the last line") \
    X(CHOOSE,         "choose",         "go to the chosen item") \
    X(GOTO_EVENT,     "goto-event",     "move the timeline cursor to this event") \
    X(FILTER_TEXT,    "filter-text",    "show only events whose line holds a text") \
    X(FILTER_TYPE,    "filter-type",    "show only events of one type (a list)") \
    X(COPY_COMMAND,   "copy-command",   "commands that reproduce the view or selection (copy)") \
    X(ERASE_CHAR,     "erase-char",     "delete the last character typed") \
    X(ERASE_LINE,     "erase-line",     "delete everything typed") \
    X(ACCEPT,         "accept",         "run the search") \
    X(CLOSE,          "close",          "close and go back") \
    X(HELP,           "help",           "show this help") \
    X(REDRAW,         "redraw",         "redraw the screen") \
    X(SUSPEND,        "suspend",        "suspend to the shell (fg resumes)") \
    X(QUIT,           "quit",           "quit elog-tui") \
    X(FOLLOW,         "follow",         "follow a live log's newest events (a growing file's too)")

typedef enum keymap_action {
#define KEYMAP_ENUM_(id, name, help) ACTION_##id,
    KEYMAP_ACTIONS(KEYMAP_ENUM_)
#undef KEYMAP_ENUM_
    ACTION__COUNT
} keymap_action;

/* Input modes, each with its own key table. In MODE_LIST and MODE_SEARCH printable keys
 * are text for the filter/query, so those tables bind only non-printable keys. */
typedef enum keymap_mode {
    MODE_TIMELINE,      /* the main timeline */
    MODE_LIST,          /* popup lists (markers, GCs, threads): type to filter */
    MODE_SEARCH,        /* typing a search query */
    MODE_EVENTS,        /* the event list pane has focus */
    MODE_HELP,          /* the help screen */
    MODE_MMU,           /* the MMU plot (u) */
    MODE__COUNT
} keymap_mode;

/* keymap_help_lines with this mode lists every mode. */
#define KEYMAP_ALL_MODES (-1)

typedef struct keymap_binding {
    const char *key;        /* libtickit key name: "PageUp", "C-l", "Space", "+" */
    keymap_action action;
} keymap_binding;

/* A keymap: the default tables with a user's changes (the settings file's `bind` and
 * `unbind`). Every function below that takes a `const keymap *` treats NULL as the
 * defaults; the ones without `km` read the defaults. */
typedef struct keymap keymap;

/* A copy of the default tables. Caller frees with keymap_free. */
keymap *keymap_new(void);
void keymap_free(keymap *km);
/* Bind `key` to `action` in `mode`, replacing what it was bound to (a new key is added
 * at the end of the mode's table). False, leaving km as it was, for an invalid mode or
 * action or a key that is not a key name (keymap_key_name_ok). */
bool keymap_bind(keymap *km, keymap_mode mode, const char *key, keymap_action action);
/* Remove `key`'s binding in `mode`; false if it had none. */
bool keymap_unbind(keymap *km, keymap_mode mode, const char *key);
/* Whether `key` is a key name a terminal backend can report: one printable character
 * (ASCII or UTF-8), or a named key (Left Right Up Down PageUp PageDown Home End Insert
 * Delete Enter Escape Tab Backspace Space F1..F12), optionally after C- M- S- prefixes
 * (C-x). */
bool keymap_key_name_ok(const char *key);

keymap_action keymap_lookup_in(const keymap *km, keymap_mode mode, const char *key);
const keymap_binding *keymap_table_in(const keymap *km, keymap_mode mode, size_t *n);
size_t keymap_keys_for_in(const keymap *km, keymap_mode mode, keymap_action action,
                          strbuf *sb);

/* The action bound to `key` in `mode`, ACTION_NONE if none (or mode/key invalid). Key
 * names are libtickit's: "Left" "Up" "PageUp" "Home" "Enter" "Escape" "Tab" "Backspace",
 * "C-x" for Ctrl, "S-Left" for Shift, printable keys as their text; Space is "Space"
 * (" " is accepted as the same key). */
keymap_action keymap_lookup(keymap_mode mode, const char *key);

/* The text `key` types into a filter or a prompt: " " for "Space", the key itself when
 * it is one printable character (ASCII or UTF-8), NULL for every other key — named
 * keys ("Right", "Tab", "F5"), modified keys ("C-a", "M-x") and control characters. */
const char *keymap_key_text(const char *key);

/* Static strings; "" for an out-of-range action. */
const char *keymap_action_name(keymap_action action);
const char *keymap_action_help(keymap_action action);
/* The action named `name` ("zoom-in"), ACTION_NONE if there is none. */
keymap_action keymap_action_by_name(const char *name);
/* Short static name of a mode, as settings and `elog-tui --list-keys` write it:
 * "timeline", "list", "search", "events", "help", "mmu"; "" if out of range. */
const char *keymap_mode_name(keymap_mode mode);
/* MODE_TIMELINE for "timeline", ...; -1 when unknown. */
int keymap_mode_by_name(const char *name);
/* Static title of a mode's help section ("Timeline"); "" if out of range. */
const char *keymap_mode_title(keymap_mode mode);

/* The default table of `mode`: *n receives its length. Static; NULL (*n = 0) if invalid. */
const keymap_binding *keymap_table(keymap_mode mode, size_t *n);

/* Append the keys bound to `action` in `mode`, table order, space-separated ("+ = w");
 * returns how many there are (nothing appended for none). */
size_t keymap_keys_for(keymap_mode mode, keymap_action action, strbuf *sb);

/* The help screen: for `mode` (or every mode, KEYMAP_ALL_MODES) a title line, then one
 * line per bound action in action-table order, "  <keys padded>  <help>", and an empty
 * line after each section. `line` is called once per line with a NUL-terminated string
 * valid only during the call. */
typedef void keymap_line_fn(void *ctx, const char *line);
void keymap_help_lines(int mode, keymap_line_fn *line, void *ctx);
void keymap_help_lines_in(const keymap *km, int mode, keymap_line_fn *line, void *ctx);

#endif
