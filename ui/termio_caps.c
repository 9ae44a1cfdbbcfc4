/* termio_caps: what a terminal type can do, from its terminfo entry, asked before a
 * backend starts — libtickit aborts on a missing string it requires and ncurses draws
 * garbage without cursor addressing, so both are checked first. Kept apart because
 * <term.h> defines capability names (lines, columns...) as macros. */
#include "termio_int.h"

/* After our headers: <term.h> would rename their `lines` and `columns`. */
#include <curses.h>
#include <term.h>
#include <unistd.h>

bool
termio_caps_missing(const char *term, const char *const *caps, size_t n_caps,
                    const char **missing)
{
    *missing = NULL;
    if (!term || !*term)
        return false;
    int err = 0;
    TERMINAL *was = cur_term;
    /* A private TERMINAL: setupterm makes it current, so put back the one before. */
    if (setupterm((char *)term, STDOUT_FILENO, &err) != OK)
        return false;
    TERMINAL *mine = cur_term;
    for (size_t i = 0; i < n_caps && !*missing; i++) {
        const char *v = tigetstr((char *)caps[i]);
        if (v == NULL || v == (const char *)-1)
            *missing = caps[i];
    }
    set_curterm(was);
    del_curterm(mine);
    return true;
}
