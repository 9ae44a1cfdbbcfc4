/* termio_mock: test access to a termio made by termio_open_mock — its TickitMockTerm
 * (for tickit_mockterm_get_display_text / _get_display_pen / the output log) and
 * input injection — and the curses backend on plain file descriptors. ui-private:
 * tests and fuzz targets include it as "../ui/termio_mock.h". */
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
/* The ncursesw backend reading keys from in_fd and drawing to out_fd (both taken
 * over and closed by termio_free), as terminal type `termtype`, with no escape delay
 * (input is expected whole): its key decoding without a terminal, for tests and
 * fuzzing. Not a claimed terminal: no tty settings, no signals beyond termio_new's.
 * NULL with a message in err on failure. Caller frees with termio_free. */
termio *termio_open_curses_fds(int in_fd, int out_fd, const char *termtype, char *err,
                               size_t errlen);
/* Resize the mock terminal; queues a RESIZE event. */
void termio_mock_resize(termio *t, int cols, int lines);

#endif
