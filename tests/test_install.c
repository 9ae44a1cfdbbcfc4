/* tests/test_install: what an installed elog-tui brings besides the binary — the man
 * page linted (mandoc -T lint, else groff -ww) and checked against the binary's own
 * tables (every command of `--list-commands`, every key of every mode of `--list-keys`,
 * every option of `--help` documented, and nothing documented that is not there), and,
 * through tests/e2e/install.sh, `make install`/`uninstall` into a DESTDIR with the
 * installed binary run, and the bash completion driven through COMP_WORDS. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "strbuf.h"
#include "tests.h"
#include "xalloc.h"

#define MAN_PATH "docs/elog-tui.1"

/* Run a shell command; its stdout (and stderr when `with_err`), NUL-terminated, caller
 * frees. *status gets the exit status. */
static char *
inst_capture(const char *cmd, bool with_err, int *status)
{
    strbuf c;
    strbuf_init(&c);
    strbuf_printf(&c, "%s%s", cmd, with_err ? " 2>&1" : " 2>/dev/null");
    FILE *p = popen(c.data, "r");
    ck_assert_msg(p != NULL, "popen(%s)", c.data);
    strbuf out;
    strbuf_init(&out);
    strbuf_append(&out, "", 0);     /* "" when the command prints nothing */
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        strbuf_append(&out, buf, n);
    int rc = pclose(p);
    *status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
    strbuf_free(&c);
    return out.data;
}

static const char *
inst_bin(void)
{
    const char *bin = getenv("ELOG_BIN");
    ck_assert_msg(bin && access(bin, X_OK) == 0, "ELOG_BIN must name the elog-tui binary");
    return bin;
}

START_TEST(test_man_lint)
{
    char *man = test_path(MAN_PATH);
    char cmd[1024];
    int st;
    if (system("command -v mandoc >/dev/null 2>&1") == 0)
        snprintf(cmd, sizeof cmd, "mandoc -T lint -W warning '%s'", man);
    else if (system("command -v groff >/dev/null 2>&1") == 0)
        snprintf(cmd, sizeof cmd, "groff -ww -z -mandoc '%s'", man);
    else
        ck_abort_msg("neither mandoc nor groff: run sh tools/deps.sh (installs mandoc)");
    char *out = inst_capture(cmd, true, &st);
    ck_assert_msg(st == 0 && out[0] == '\0', "%s: status %d:\n%s", cmd, st, out);
    x_free(out);
    x_free(man);
}
END_TEST

/* The man page's source, read for what it documents. */
typedef struct man_doc {
    strbuf commands;            /* "\nname\n" per `.It Cm name` in COMMANDS */
    strbuf keys[16];            /* per KEYS subsection: "\nkey\n" per Ic on .It lines */
    char *key_titles[16];       /* the subsections' titles, lowercased */
    size_t n_modes;
    strbuf flags;               /* "\n-opt\n" per Fl argument anywhere */
    strbuf exit_items;          /* "\nitem\n" per .It in EXIT STATUS */
} man_doc;

/* roff escapes that may stand in a key or a flag: \& (nothing), \- (minus), \e. */
static void
man_unescape(const char *w, strbuf *out)
{
    strbuf_reset(out);
    for (const char *p = w; *p; p++) {
        if (p[0] == '\\' && p[1] == '&') {
            p++;
        } else if (p[0] == '\\' && p[1] == '-') {
            strbuf_putc(out, '-');
            p++;
        } else if (p[0] == '\\' && p[1] == 'e') {
            strbuf_putc(out, '\\');
            p++;
        } else if (*p != '"') {
            strbuf_putc(out, *p);
        }
    }
    strbuf_append(out, "", 0);      /* NUL-terminated even when empty */
}

static void
man_add(strbuf *set, const char *word)
{
    if (!set->len)
        strbuf_putc(set, '\n');
    strbuf_puts(set, word);
    strbuf_putc(set, '\n');
}

static bool
man_has(const strbuf *set, const char *word)
{
    if (!set->data)
        return false;
    strbuf w;
    strbuf_init(&w);
    strbuf_printf(&w, "\n%s\n", word);
    bool has = strstr(set->data, w.data) != NULL;
    strbuf_free(&w);
    return has;
}

static void
man_read(man_doc *d)
{
    memset(d, 0, sizeof *d);
    char *path = test_path(MAN_PATH);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    char line[1024];
    char section[64] = "";
    strbuf word;
    strbuf_init(&word);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, ".Sh ", 4) == 0) {
            snprintf(section, sizeof section, "%.63s", line + 4);
            continue;
        }
        if (strncmp(line, ".Ss ", 4) == 0 && strcmp(section, "KEYS") == 0) {
            ck_assert_uint_lt(d->n_modes, 16);
            char *t = xstrdup(line + 4);
            for (char *c = t; *c; c++)
                *c = (char)tolower((unsigned char)*c);
            d->key_titles[d->n_modes++] = t;
            continue;
        }
        /* Words, with "quoted words" kept whole. */
        char *words[64];
        size_t n = 0;
        for (char *p = line; *p && n < 64;) {
            while (*p == ' ')
                p++;
            if (!*p)
                break;
            char *start = p;
            if (*p == '"') {
                p++;
                while (*p && *p != '"')
                    p++;
                if (*p)
                    p++;
            } else {
                while (*p && *p != ' ')
                    p++;
            }
            if (*p)
                *p++ = '\0';
            words[n++] = start;
        }
        for (size_t i = 0; i + 1 < n; i++)
            if (strcmp(words[i], "Fl") == 0) {
                man_unescape(words[i + 1], &word);
                strbuf flag;
                strbuf_init(&flag);
                strbuf_printf(&flag, "-%s", word.data);
                man_add(&d->flags, flag.data);
                strbuf_free(&flag);
            }
        if (n == 0 || strcmp(words[0], ".It") != 0)
            continue;
        if (strcmp(section, "COMMANDS") == 0 && n >= 3 && strcmp(words[1], "Cm") == 0)
            man_add(&d->commands, words[2]);
        if (strcmp(section, "EXIT STATUS") == 0 && n >= 2)
            man_add(&d->exit_items, words[1]);
        if (strcmp(section, "KEYS") == 0 && d->n_modes > 0)
            for (size_t i = 1; i + 1 < n; i++)
                if (strcmp(words[i], "Ic") == 0) {
                    man_unescape(words[i + 1], &word);
                    man_add(&d->keys[d->n_modes - 1], word.data);
                }
    }
    fclose(f);
    strbuf_free(&word);
    x_free(path);
}

static void
man_free(man_doc *d)
{
    strbuf_free(&d->commands);
    strbuf_free(&d->flags);
    strbuf_free(&d->exit_items);
    for (size_t i = 0; i < d->n_modes; i++) {
        strbuf_free(&d->keys[i]);
        x_free(d->key_titles[i]);
    }
}

/* The KEYS subsection of mode `mode` ("timeline"): the one whose title starts with it. */
static size_t
man_mode(const man_doc *d, const char *mode)
{
    for (size_t i = 0; i < d->n_modes; i++)
        if (strncmp(d->key_titles[i], mode, strlen(mode)) == 0)
            return i;
    return SIZE_MAX;
}

/* Every command in the binary's table has its entry in COMMANDS, and every entry is a
 * command the binary has. */
START_TEST(test_man_commands)
{
    man_doc d;
    man_read(&d);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --list-commands", inst_bin());
    int st;
    char *out = inst_capture(cmd, false, &st);
    ck_assert_int_eq(st, 0);
    strbuf bin_cmds;
    strbuf_init(&bin_cmds);
    size_t n = 0;
    char *save = NULL;
    for (char *c = strtok_r(out, "\n", &save); c; c = strtok_r(NULL, "\n", &save), n++) {
        ck_assert_msg(man_has(&d.commands, c), "command \"%s\" is not in the man page's "
                      "COMMANDS (.It Cm %s)", c, c);
        man_add(&bin_cmds, c);
    }
    ck_assert_uint_ge(n, 10);
    save = NULL;
    for (char *c = strtok_r(d.commands.data, "\n", &save); c; c = strtok_r(NULL, "\n", &save))
        ck_assert_msg(man_has(&bin_cmds, c), "the man page documents a command \"%s\" the "
                      "binary does not have", c);
    strbuf_free(&bin_cmds);
    x_free(out);
    man_free(&d);
}
END_TEST

/* Every key of every mode's table is listed in that mode's KEYS subsection, and every
 * key listed there is bound in that mode. */
START_TEST(test_man_keys)
{
    man_doc d;
    man_read(&d);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --list-keys", inst_bin());
    int st;
    char *out = inst_capture(cmd, false, &st);
    ck_assert_int_eq(st, 0);
    strbuf bound[16];
    for (size_t i = 0; i < 16; i++)
        strbuf_init(&bound[i]);
    size_t n = 0;
    char *save = NULL;
    for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save), n++) {
        char *tab = strchr(l, '\t'), *tab2 = tab ? strchr(tab + 1, '\t') : NULL;
        ck_assert_msg(tab && tab2, "--list-keys line \"%s\"", l);
        *tab = *tab2 = '\0';
        size_t m = man_mode(&d, l);
        ck_assert_msg(m != SIZE_MAX, "the man page has no KEYS subsection for mode \"%s\"", l);
        ck_assert_msg(man_has(&d.keys[m], tab + 1), "key \"%s\" (%s) of mode %s is not in "
                      "the man page's KEYS", tab + 1, tab2 + 1, l);
        man_add(&bound[m], tab + 1);
    }
    ck_assert_uint_ge(n, 40);
    for (size_t m = 0; m < d.n_modes; m++) {
        if (strncmp(d.key_titles[m], "mouse", 5) == 0)
            continue;
        save = NULL;
        char *copy = xstrdup(d.keys[m].data ? d.keys[m].data : "");
        for (char *k = strtok_r(copy, "\n", &save); k; k = strtok_r(NULL, "\n", &save))
            ck_assert_msg(man_has(&bound[m], k), "the man page lists key \"%s\" under \"%s\", "
                          "which that mode does not bind", k, d.key_titles[m]);
        x_free(copy);
    }
    for (size_t i = 0; i < 16; i++)
        strbuf_free(&bound[i]);
    x_free(out);
    man_free(&d);
}
END_TEST

/* Every option the usage names is documented (as `Fl -name`), and the exit statuses. */
START_TEST(test_man_options)
{
    man_doc d;
    man_read(&d);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' --help", inst_bin());
    int st;
    char *out = inst_capture(cmd, false, &st);
    ck_assert_int_eq(st, 0);
    size_t n = 0;
    for (const char *p = out; (p = strstr(p, "--")) != NULL;) {
        size_t len = 2;
        while (islower((unsigned char)p[len]) || p[len] == '-')
            len++;
        char opt[64];
        snprintf(opt, sizeof opt, "%.*s", (int)len, p);
        if (len > 2) {
            ck_assert_msg(man_has(&d.flags, opt), "option %s of --help is not in the man page",
                          opt);
            n++;
        }
        p += len;
    }
    ck_assert_uint_ge(n, 15);
    ck_assert(man_has(&d.flags, "-V"));
    ck_assert(man_has(&d.flags, "-h"));
    static const char *const statuses[] = { "0", "1", "2", "128" };
    for (size_t i = 0; i < 4; i++)
        ck_assert_msg(man_has(&d.exit_items, statuses[i]), "EXIT STATUS lacks %s",
                      statuses[i]);
    x_free(out);
    man_free(&d);
}
END_TEST

/* tests/e2e/install.sh: make install / uninstall into a DESTDIR, the installed binary,
 * man page and completions; the bash completion through COMP_WORDS. */
START_TEST(test_install_script)
{
    const char *san = getenv("ELOG_SAN");
    char env[256];
    snprintf(env, sizeof env, "ELOG_SAN='%s' ELOG_SYNTH='%s'", san ? san : "",
             getenv("ELOG_SYNTH") ? getenv("ELOG_SYNTH") : "");
    test_e2e_script("install", env);
}
END_TEST

Suite *
test_install_suite(void)
{
    Suite *s = suite_create("install");
    TCase *tc = tcase_create("manpage");
    tcase_add_test(tc, test_man_lint);
    tcase_add_test(tc, test_man_commands);
    tcase_add_test(tc, test_man_keys);
    tcase_add_test(tc, test_man_options);
    suite_add_tcase(s, tc);
    TCase *ti = tcase_create("install");
    tcase_set_tags(ti, "e2e");      /* tmux; CK_EXCLUDE_TAGS=e2e leaves it out (valgrind) */
    tcase_set_timeout(ti, 120);
    tcase_add_test(ti, test_install_script);
    suite_add_tcase(s, ti);
    return s;
}
