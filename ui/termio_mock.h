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
/* Feed bytes as if typed, through the same gate as a real terminal's input (whole
 * keys only, overlong sequences dropped): "\x1b[B" is Down, "\x0c" is C-l. A lone
 * "\x1b" becomes Escape once input has been quiet TERMIO_SEQ_DELAY_MS on the mock's
 * clock, which termio_poll's waits and termio_mock_advance move (without sleeping). */
void termio_mock_input(termio *t, const char *bytes, size_t len);
/* Let `ms` pass on the mock's clock with no input. */
void termio_mock_advance(termio *t, int ms);
/* How often libtermkey had to be rebuilt because it held a partial key across more
 * than a key's worth of input (the gate and libtermkey disagreed): 0 is right. */
unsigned termio_mock_termkey_resets(termio *t);
/* Inject a mouse event (libtermkey cannot parse SGR mouse bytes on every TERM, so
 * this bypasses byte parsing): `type` is a TICKIT_MOUSEEV_*; for
 * TICKIT_MOUSEEV_WHEEL `button` is TICKIT_MOUSEWHEEL_UP or _DOWN. */
void termio_mock_mouse(termio *t, int type, int button, int line, int col, int mods);
/* Resize the mock terminal; queues a RESIZE event. */
void termio_mock_resize(termio *t, int cols, int lines);

#endif
