/* fuzz_keys: what both key-decoder fuzz targets require of every event a backend hands
 * out, shared by fuzz_keys_curses.c and fuzz_keys_tickit.c. */
#ifndef ELOG_FUZZ_KEYS_H
#define ELOG_FUZZ_KEYS_H

#include <stdlib.h>
#include <string.h>

#include "../ui/termio_mock.h"
#include "keymap.h"

/* Take every event `t` has within timeout_ms each; abort on a key with no name or one
 * not terminated; look each key up as the viewer would. The last key's name goes into
 * last (may be NULL). */
static void
fuzz_keys_drain(termio *t, int timeout_ms, char *last)
{
    termio_event ev;
    while (termio_poll(t, timeout_ms, &ev)) {
        if (ev.kind != TERMIO_EV_KEY)
            continue;
        size_t n = strnlen(ev.key, sizeof ev.key);
        if (n == 0 || n == sizeof ev.key)
            abort();
        for (int m = 0; m < MODE__COUNT; m++)
            (void)keymap_lookup((keymap_mode)m, ev.key);
        (void)keymap_key_text(ev.key);
        if (last)
            memcpy(last, ev.key, n + 1);
    }
}

#endif
