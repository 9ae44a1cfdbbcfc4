/* render: text for events, byte-identical to `ghc-events show` (0.21).
 *
 * Each known type's template (evtype.h `show_fmt`) is literal text with
 * directives `{N}` (field N in its natural form: decimal, or text) and `{N:name}`
 * where name is one of the formatters in render.c's table (x, stop, capset, list,
 * breakdown, filters, caf, ccs, lo16, plus1, decimal, binary, msgtag, balanced). */
#ifndef ELOG_RENDER_H
#define ELOG_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "decode.h"
#include "evlog.h"
#include "strbuf.h"

/* Compiled templates for every known event type. */
typedef struct render render;

/* Compile the templates of the evtype table. Caller frees with render_free. */
render *render_new(void);
void render_free(render *r);
/* Render `log`'s events: STOP_THREAD statuses in the numbering its header says (see
 * stopstatus.h; without this call, GHC 7.8.3+'s). */
void render_set_log(render *r, const evlog *log);
/* Append the event's description text (no timestamp or cap prefix). */
void render_event_text(const render *r, strbuf *sb, const evlog_event *ev);
/* Append one `show` line: "<time>: [cap <c>: ]<text>\n". */
void render_show_line(const render *r, strbuf *sb, const evlog_event *ev);
/* Append one header line: "<id>: <description> (size <n>|variable)" (no newline). */
void render_type_line(strbuf *sb, const evlog_type *t);
/* The text ghc-events gives a STOP_THREAD status (with its blocked-on info) in GHC
 * 7.8.3+'s numbering (stopstatus_name for the others). */
void render_stop_status(strbuf *sb, uint16_t status, uint32_t info);

/* Check `d`'s template: every directive names a known formatter and a field the
 * type has. False with a reason in `why` otherwise (for tests of the table). */
bool render_template_check(const evtype_desc *d, char *why, size_t why_len);

#endif
