/* copycmd: "copy as command" — the `elog-tui stats` and `elog-tui snapshot` command lines
 * that reproduce a view or a selection, with times on the log's clock printed exactly
 * (to the nanosecond, as `--from`/`--to` parse them back), the file name quoted for a
 * POSIX shell, and the OSC 52 sequence that puts a text on the terminal's clipboard. */
#ifndef ELOG_COPYCMD_H
#define ELOG_COPYCMD_H

#include <stdint.h>

#include "strbuf.h"

/* Append `s` quoted for a POSIX shell: as is when it holds only [A-Za-z0-9_./:@%+,=-]
 * (and is not empty), else in single quotes with each ' written '\''. */
void copycmd_shell_quote(strbuf *out, const char *s);

/* Append "elog-tui stats PATH --from A --to B" for [from_ns, to_ns). */
void copycmd_stats(strbuf *out, const char *path, uint64_t from_ns, uint64_t to_ns);
/* Append "elog-tui snapshot PATH --size COLSxLINES --from A --to B": the same screen
 * size, the view zoomed to [from_ns, to_ns). */
void copycmd_snapshot(strbuf *out, const char *path, uint64_t from_ns, uint64_t to_ns,
                      int cols, int lines);

/* Append the OSC 52 sequence that sets the clipboard to `text`: ESC ] 52 ; c ; base64
 * ESC \ . */
void copycmd_osc52(strbuf *out, const char *text);

#endif
