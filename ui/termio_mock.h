/* termio_mock: test access to a termio made by termio_open_mock — its TickitMockTerm
 * (for tickit_mockterm_get_display_text / _get_display_pen / the output log) and
 * input injection. ui-private: tests include it as "../ui/termio_mock.h". */
#ifndef ELOG_TERMIO_MOCK_H
#define ELOG_TERMIO_MOCK_H

#include <stddef.h>

#include <tickit-mockterm.h>

#include "termio.h"

/* The mock terminal, borrowed (it lives until termio_free); NULL if `t` is not a
 * mock. Note tickit_mockterm_get_display_text writes a NUL one byte past `len` and
 * does not bounds-check line/col. */
TickitMockTerm *termio_mock_term(termio *t);
/* Feed bytes as if typed: "\x1b[B" is Down, "\x0c" is C-l. A lone "\x1b" becomes
 * Escape once termio_poll has waited out libtermkey's short escape delay. */
void termio_mock_input(termio *t, const char *bytes, size_t len);
/* Inject a mouse event (libtermkey cannot parse SGR mouse bytes on every TERM, so
 * this bypasses byte parsing): `type` is a TICKIT_MOUSEEV_*; for
 * TICKIT_MOUSEEV_WHEEL `button` is TICKIT_MOUSEWHEEL_UP or _DOWN. */
void termio_mock_mouse(termio *t, int type, int button, int line, int col, int mods);
/* Resize the mock terminal; queues a RESIZE event. */
void termio_mock_resize(termio *t, int cols, int lines);

#endif
