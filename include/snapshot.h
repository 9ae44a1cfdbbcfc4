/* snapshot: a drawn frame as text for stdout — plain UTF-8 lines, or with ANSI colour
 * escapes (SGR, 256 colours) — for `elog-tui snapshot`, bug reports and tests. */
#ifndef ELOG_SNAPSHOT_H
#define ELOG_SNAPSHOT_H

#include <stdbool.h>

#include "strbuf.h"
#include "surface.h"

/* Append every line of `s` (trailing blanks dropped, each ended by '\n'). With
 * `color`, cells carry SGR escapes for their style in 256 colours, and every line ends
 * with a reset. */
void snapshot_write(strbuf *out, const surface *s, bool color);

#endif
