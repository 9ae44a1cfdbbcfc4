/* settings: reads and writes the settings file (include/settings.h). Each kind of line
 * is a row of one table (name, argument count, handler); bindings go through keymap_bind
 * and keymap_unbind, colours into a theme_table. */
#include "settings.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lanegroups.h"
#include "timefmt.h"
#include "xalloc.h"

#define SETTINGS_MAX_WORDS 12

struct settings {
    keymap *keys;               /* owned */
    theme_table styles;
    const char *backend;        /* static: "curses" or "tickit" */
    bool mouse, mono, ascii;
    uint64_t alert_pause_ns;    /* live viewer's --alert-pause; 0: off */
    lanegroup_mask hidden_lanes;        /* hide-lanes */
};

settings *
settings_new(void)
{
    settings *s = xcalloc(1, sizeof *s);    /* caller frees with settings_free */
    s->keys = keymap_new();
    theme_table_defaults(&s->styles);
    s->backend = "curses";
    s->mouse = true;
    return s;
}

void
settings_free(settings *s)
{
    if (!s)
        return;
    keymap_free(s->keys);
    x_free(s);
}

const keymap *
settings_keys(const settings *s)
{
    return s->keys;
}

const theme_table *
settings_styles(const settings *s)
{
    return &s->styles;
}

const char *
settings_backend(const settings *s)
{
    return s->backend;
}

uint64_t
settings_alert_pause_ns(const settings *s)
{
    return s->alert_pause_ns;
}

bool
settings_mouse(const settings *s)
{
    return s->mouse;
}

bool
settings_mono(const settings *s)
{
    return s->mono;
}

bool
settings_ascii(const settings *s)
{
    return s->ascii;
}

static bool
settings_fail(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return false;
}

/* --- one handler per kind of line; w[0] is the setting's name ------------------------ */

static bool
settings_onoff(const char *word, bool *out, const char *name, char *err, size_t errlen)
{
    if (strcmp(word, "on") == 0 || strcmp(word, "off") == 0) {
        *out = strcmp(word, "on") == 0;
        return true;
    }
    return settings_fail(err, errlen, "%s wants on or off, not \"%s\"", name, word);
}

static bool
settings_do_backend(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    if (strcmp(w[1], "curses") == 0 || strcmp(w[1], "tickit") == 0) {
        s->backend = strcmp(w[1], "curses") == 0 ? "curses" : "tickit";
        return true;
    }
    return settings_fail(err, errlen, "backend wants curses or tickit, not \"%s\"", w[1]);
}

static bool
settings_do_mouse(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    return settings_onoff(w[1], &s->mouse, w[0], err, errlen);
}

static bool
settings_do_mono(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    return settings_onoff(w[1], &s->mono, w[0], err, errlen);
}

static bool
settings_do_alert_pause(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    uint64_t ns;
    if (strcmp(w[1], "off") == 0) {
        s->alert_pause_ns = 0;
        return true;
    }
    if (timefmt_parse(w[1], &ns) && ns > 0) {
        s->alert_pause_ns = ns;
        return true;
    }
    return settings_fail(err, errlen, "alert-pause wants off or a duration (50ms, 1.5s), not "
                         "\"%s\"", w[1]);
}

static bool
settings_do_ascii(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    return settings_onoff(w[1], &s->ascii, w[0], err, errlen);
}

static bool
settings_do_hide_lanes(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    return lanegroup_parse(w[1], &s->hidden_lanes, err, errlen);
}

unsigned
settings_hidden_lanes(const settings *s)
{
    return s->hidden_lanes;
}

static bool
settings_mode(const char *word, keymap_mode *mode, char *err, size_t errlen)
{
    int m = keymap_mode_by_name(word);
    if (m < 0)
        return settings_fail(err, errlen, "unknown mode \"%s\" (timeline, list, search, "
                             "events, help or mmu)", word);
    *mode = (keymap_mode)m;
    return true;
}

static bool
settings_do_bind(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    keymap_mode mode = MODE_TIMELINE;
    if (!settings_mode(w[1], &mode, err, errlen))
        return false;
    if (!keymap_key_name_ok(w[2]))
        return settings_fail(err, errlen, "\"%s\" is not a key name (one character, or Left, "
                             "PageUp, Home, Enter, Escape, Tab, Space, F1..F12 ..., with C- M- "
                             "S- prefixes)", w[2]);
    keymap_action act = keymap_action_by_name(w[3]);
    if (act == ACTION_NONE)
        return settings_fail(err, errlen, "unknown action \"%s\" (elog-tui --print-config "
                             "lists them)", w[3]);
    keymap_bind(s->keys, mode, w[2], act);
    return true;
}

static bool
settings_do_unbind(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    (void)n;
    keymap_mode mode = MODE_TIMELINE;
    if (!settings_mode(w[1], &mode, err, errlen))
        return false;
    if (!keymap_unbind(s->keys, mode, w[2]))
        return settings_fail(err, errlen, "\"%s\" is not bound in mode %s", w[2], w[1]);
    return true;
}

/* The fields of a style line: which mode's look and which part of it. */
enum { SETTINGS_FG, SETTINGS_BG, SETTINGS_ATTRS };
static const struct {
    const char *name;
    theme_mode mode;
    int part;
} settings_style_fields[] = {
    { "fg", THEME_256, SETTINGS_FG },   { "bg", THEME_256, SETTINGS_BG },
    { "attrs", THEME_256, SETTINGS_ATTRS },
    { "fg8", THEME_8, SETTINGS_FG },    { "bg8", THEME_8, SETTINGS_BG },
    { "attrs8", THEME_8, SETTINGS_ATTRS },
    { "mono", THEME_MONO, SETTINGS_ATTRS },
};
#define SETTINGS_N_FIELDS (sizeof settings_style_fields / sizeof settings_style_fields[0])

static const struct {
    const char *name;
    unsigned bit;
} settings_attr_names[] = {
    { "bold", THEME_BOLD }, { "under", THEME_UNDER }, { "reverse", THEME_REVERSE },
};

static bool
settings_colour(const char *v, int max, int *out)
{
    if (strcmp(v, "default") == 0) {
        *out = THEME_DEFAULT_COLOUR;
        return true;
    }
    if (v[0] < '0' || v[0] > '9' || strlen(v) > 3)
        return false;
    char *end;
    long c = strtol(v, &end, 10);
    if (*end || c > max)
        return false;
    *out = (int)c;
    return true;
}

static bool
settings_attrs(const char *v, unsigned *out)
{
    if (strcmp(v, "none") == 0) {
        *out = 0;
        return true;
    }
    unsigned bits = 0;
    const char *p = v;
    for (;;) {
        size_t len = strcspn(p, ",");
        bool known = false;
        for (size_t i = 0; i < sizeof settings_attr_names / sizeof settings_attr_names[0]; i++)
            if (strlen(settings_attr_names[i].name) == len &&
                strncmp(p, settings_attr_names[i].name, len) == 0) {
                bits |= settings_attr_names[i].bit;
                known = true;
            }
        if (!known)
            return false;
        if (!p[len])
            break;
        p += len + 1;
    }
    *out = bits;
    return true;
}

static bool
settings_do_style(settings *s, char **w, size_t n, char *err, size_t errlen)
{
    int style = theme_style_lookup(w[1]);
    if (style < 0)
        return settings_fail(err, errlen, "unknown style \"%s\" (elog-tui --print-config "
                             "lists them)", w[1]);
    theme_look look[3];
    memcpy(look, s->styles.look[style], sizeof look);
    for (size_t i = 2; i < n; i++) {
        char *eq = strchr(w[i], '=');
        size_t f = SETTINGS_N_FIELDS;
        if (eq)
            for (f = 0; f < SETTINGS_N_FIELDS; f++)
                if (strlen(settings_style_fields[f].name) == (size_t)(eq - w[i]) &&
                    strncmp(w[i], settings_style_fields[f].name, (size_t)(eq - w[i])) == 0)
                    break;
        if (f == SETTINGS_N_FIELDS)
            return settings_fail(err, errlen, "\"%s\" is not fg=, bg=, attrs=, fg8=, bg8=, "
                                 "attrs8= or mono=", w[i]);
        theme_look *l = &look[settings_style_fields[f].mode];
        const char *v = eq + 1;
        int part = settings_style_fields[f].part;
        if (part == SETTINGS_ATTRS) {
            if (!settings_attrs(v, &l->attrs))
                return settings_fail(err, errlen, "%s wants bold, under, reverse joined by "
                                     "commas, or none, not \"%s\"", settings_style_fields[f].name,
                                     v);
            continue;
        }
        int max = settings_style_fields[f].mode == THEME_8 ? 7 : 255;
        if (!settings_colour(v, max, part == SETTINGS_FG ? &l->fg : &l->bg))
            return settings_fail(err, errlen, "%s wants a colour 0..%d or default, not \"%s\"",
                                 settings_style_fields[f].name, max, v);
    }
    memcpy(s->styles.look[style], look, sizeof look);
    return true;
}

typedef bool settings_fn(settings *s, char **w, size_t n, char *err, size_t errlen);

static const struct {
    const char *name;
    size_t min_args, max_args;      /* words after the name */
    const char *usage;
    settings_fn *fn;
} settings_kinds[] = {
    { "backend", 1, 1, "backend curses|tickit", settings_do_backend },
    { "mouse", 1, 1, "mouse on|off", settings_do_mouse },
    { "mono", 1, 1, "mono on|off", settings_do_mono },
    { "ascii", 1, 1, "ascii on|off", settings_do_ascii },
    { "alert-pause", 1, 1, "alert-pause off|DURATION", settings_do_alert_pause },
    { "hide-lanes", 1, 1, "hide-lanes none|GROUP[,GROUP...]", settings_do_hide_lanes },
    { "bind", 3, 3, "bind MODE KEY ACTION", settings_do_bind },
    { "unbind", 2, 2, "unbind MODE KEY", settings_do_unbind },
    { "style", 2, 8, "style NAME [fg=C] [bg=C] [attrs=A] [fg8=C] [bg8=C] [attrs8=A] [mono=A]",
      settings_do_style },
};

bool
settings_apply_line(settings *s, const char *line, char *err, size_t errlen)
{
    char buf[1024];
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    if (len >= sizeof buf)
        return settings_fail(err, errlen, "line longer than %zu bytes", sizeof buf - 1);
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *first = buf + strspn(buf, " \t");
    if (*first == '#' || *first == '\0')
        return true;    /* a comment or a blank line */
    char *w[SETTINGS_MAX_WORDS];
    size_t n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (n == SETTINGS_MAX_WORDS)
            return settings_fail(err, errlen, "too many words");
        w[n++] = t;
    }
    for (size_t k = 0; k < sizeof settings_kinds / sizeof settings_kinds[0]; k++) {
        if (strcmp(w[0], settings_kinds[k].name) != 0)
            continue;
        if (n - 1 < settings_kinds[k].min_args || n - 1 > settings_kinds[k].max_args)
            return settings_fail(err, errlen, "%s wants: %s", w[0], settings_kinds[k].usage);
        return settings_kinds[k].fn(s, w, n, err, errlen);
    }
    return settings_fail(err, errlen, "unknown setting \"%s\" (backend, mouse, mono, ascii, "
                         "alert-pause, bind, unbind, style)", w[0]);
}

bool
settings_load(settings *s, const char *path, bool *found, char *err, size_t errlen)
{
    *found = false;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return true;
        return settings_fail(err, errlen, "%s: %s", path, strerror(errno));
    }
    *found = true;
    char *line = NULL;
    size_t cap = 0;
    size_t lineno = 0;
    bool ok = true;
    char why[512];
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        if (!settings_apply_line(s, line, why, sizeof why)) {
            settings_fail(err, errlen, "%s:%zu: %s", path, lineno, why);
            ok = false;
            break;
        }
    }
    if (ok && ferror(f))
        ok = settings_fail(err, errlen, "%s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    return ok;
}

char *
settings_path(const char *xdg_config_home, const char *home)
{
    strbuf sb;
    strbuf_init(&sb);
    if (xdg_config_home && xdg_config_home[0] == '/')
        strbuf_printf(&sb, "%s/elog-tui/config", xdg_config_home);
    else if (home && home[0])
        strbuf_printf(&sb, "%s/.config/elog-tui/config", home);
    return sb.data;     /* NULL when nothing was appended */
}

static void
settings_put_colour(strbuf *out, const char *name, int c)
{
    if (c == THEME_DEFAULT_COLOUR)
        strbuf_printf(out, " %s=default", name);
    else
        strbuf_printf(out, " %s=%d", name, c);
}

static void
settings_put_attrs(strbuf *out, const char *name, unsigned attrs)
{
    strbuf_printf(out, " %s=", name);
    if (!attrs) {
        strbuf_puts(out, "none");
        return;
    }
    bool first = true;
    for (size_t i = 0; i < sizeof settings_attr_names / sizeof settings_attr_names[0]; i++)
        if (attrs & settings_attr_names[i].bit) {
            if (!first)
                strbuf_putc(out, ',');
            strbuf_puts(out, settings_attr_names[i].name);
            first = false;
        }
}

void
settings_write(const settings *s, strbuf *out)
{
    strbuf_puts(out, "# elog-tui settings: $XDG_CONFIG_HOME/elog-tui/config, else "
                "~/.config/elog-tui/config.\n"
                "# One setting a line; a line whose first word starts with # is a comment.\n"
                "# The command line's --backend, --no-mouse, --mono, --ascii, --alert-pause "
                "override the first five\n# (alert-pause: live logs' GC pauses this long or "
                "longer flash in the header; off or a duration such as 50ms).\n");
    strbuf_printf(out, "backend %s\nmouse %s\nmono %s\nascii %s\n", s->backend,
                  s->mouse ? "on" : "off", s->mono ? "on" : "off", s->ascii ? "on" : "off");
    if (s->alert_pause_ns) {
        strbuf_puts(out, "alert-pause ");
        timefmt_append_res(out, s->alert_pause_ns, 1);   /* exact: reads back the same */
        strbuf_putc(out, '\n');
    } else {
        strbuf_puts(out, "alert-pause off\n");
    }
    strbuf_puts(out, "# Lane groups hidden at the start (L shows or hides them): none, or "
                "some of\n# activity, nonmoving, markers, heap, sparks, spark-hec, bands, "
                "memory, ticky joined by commas.\nhide-lanes ");
    lanegroup_format(s->hidden_lanes, out);
    strbuf_putc(out, '\n');
    strbuf_puts(out, "\n# Key bindings: bind MODE KEY ACTION (replaces KEY's binding in MODE), "
                "unbind MODE KEY.\n# Actions:\n");
    for (int a = 1; a < ACTION__COUNT; a++)
        strbuf_printf(out, "#   %-16s %s\n", keymap_action_name((keymap_action)a),
                      keymap_action_help((keymap_action)a));
    for (int m = 0; m < MODE__COUNT; m++) {
        size_t n;
        const keymap_binding *b = keymap_table_in(s->keys, (keymap_mode)m, &n);
        strbuf_printf(out, "# %s\n", keymap_mode_title((keymap_mode)m));
        for (size_t i = 0; i < n; i++)
            strbuf_printf(out, "bind %s %s %s\n", keymap_mode_name((keymap_mode)m), b[i].key,
                          keymap_action_name(b[i].action));
    }
    strbuf_puts(out, "\n# Colours: style NAME, then for 256-colour terminals fg= bg= attrs=, "
                "for 8-colour ones\n# fg8= bg8= attrs8= (colours 0..7), for monochrome mono=; "
                "a colour is 0..255 or default,\n# attributes bold, under, reverse joined by "
                "commas, or none. Fields left out keep their value.\n");
    for (unsigned st = 0; st < STYLE_COUNT; st++) {
        const theme_look *l = s->styles.look[st];
        strbuf_printf(out, "style %s", theme_style_name(st));
        settings_put_colour(out, "fg", l[THEME_256].fg);
        settings_put_colour(out, "bg", l[THEME_256].bg);
        settings_put_attrs(out, "attrs", l[THEME_256].attrs);
        settings_put_colour(out, "fg8", l[THEME_8].fg);
        settings_put_colour(out, "bg8", l[THEME_8].bg);
        settings_put_attrs(out, "attrs8", l[THEME_8].attrs);
        settings_put_attrs(out, "mono", l[THEME_MONO].attrs);
        strbuf_putc(out, '\n');
    }
}
