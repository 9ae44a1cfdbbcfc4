/* settings: the viewer's optional settings file ($XDG_CONFIG_HOME/elog-tui/config, else
 * ~/.config/elog-tui/config) — defaults for the command line's options, key bindings
 * read into the keymap's own tables, and the theme's colours — one setting a line:
 *
 *   backend curses|tickit          mouse on|off       mono on|off       ascii on|off
 *   hide-lanes none|GROUP[,GROUP...]   (lanegroups.h names: spark-hec, memory, ...)
 *   bind MODE KEY ACTION           unbind MODE KEY
 *   style NAME [fg=C] [bg=C] [attrs=A] [fg8=C] [bg8=C] [attrs8=A] [mono=A]
 *
 * MODE is timeline, list, search, events or help; KEY a libtickit key name ("C-f",
 * "PageUp", "x"); ACTION an action name ("zoom-in"); NAME a theme style ("RUNNING",
 * any case); C a colour 0..255 or "default"; A attributes joined by commas from bold,
 * under, reverse, or "none". '#' starts a comment; blank lines are ignored.
 * settings_write prints a settings object in exactly this format. */
#ifndef ELOG_SETTINGS_H
#define ELOG_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "keymap.h"
#include "strbuf.h"
#include "theme.h"

typedef struct settings settings;

/* The defaults: backend curses, mouse on, mono off, ascii off, the default key tables
 * and theme. Caller frees with settings_free. */
settings *settings_new(void);
void settings_free(settings *s);

/* Apply one line of a settings file. False, with the reason in `err` (one line, no
 * file or line number) and s unchanged, for a line that is not a valid setting. */
bool settings_apply_line(settings *s, const char *line, char *err, size_t errlen);

/* Apply the file at `path`. A file that does not exist is no error (*found false).
 * False at the first bad line, with "PATH:LINE: reason" in `err`, or when the file
 * cannot be read ("PATH: reason"). */
bool settings_load(settings *s, const char *path, bool *found, char *err, size_t errlen);

/* Where the settings file is: $XDG_CONFIG_HOME/elog-tui/config when `xdg_config_home`
 * is an absolute path (the XDG rule), else `home`/.config/elog-tui/config; NULL when
 * neither is usable. Caller frees. */
char *settings_path(const char *xdg_config_home, const char *home);

/* Append `s` as a settings file that reads back to the same settings: the defaults,
 * every binding of every mode and every style. */
void settings_write(const settings *s, strbuf *out);

/* Borrowed, valid while `s` lives. */
const keymap *settings_keys(const settings *s);
const theme_table *settings_styles(const settings *s);
const char *settings_backend(const settings *s);   /* "curses" or "tickit" */
bool settings_mouse(const settings *s);
/* The live viewer's alert threshold (alert-pause), 0 when off. */
uint64_t settings_alert_pause_ns(const settings *s);
bool settings_mono(const settings *s);
bool settings_ascii(const settings *s);
/* The lane groups hidden at the start (a lanegroup_mask), 0 when none. */
unsigned settings_hidden_lanes(const settings *s);

#endif
