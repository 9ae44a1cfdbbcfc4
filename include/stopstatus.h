/* stopstatus: the STOP_THREAD status codes of every GHC version, named one way for
 * `show`, the thread detail and `threads`. The RTS writes 1-5 (heap overflow, stack
 * overflow, yield, blocked, finished) or, for a blocked thread, 6 + the TSO's
 * why_blocked, whose numbering changed twice: GHC 7.8.2 put BlockedOnMVarRead next to
 * BlockedOnMVar, shifting every later reason up by one, and 7.8.3 moved it to the end
 * (20), where it has stayed up to 9.14. A log says which it is by the event types its
 * header declares, as ghc-events reads it: no USER_MARKER (58): before 7.7; USER_MARKER
 * without HACK_BUG_T9003 (59): 7.8.2; otherwise 7.8.3 or later. */
#ifndef ELOG_STOPSTATUS_H
#define ELOG_STOPSTATUS_H

#include <stdint.h>

#include "evlog.h"
#include "strbuf.h"
#include "threadtab.h"

typedef enum stopstatus_era {
    STOPSTATUS_GHC783,          /* 7.8.3 .. 9.14: 16 foreign call, 18 throwTo, 20 MVar read */
    STOPSTATUS_GHC782,          /* 7.8.2: 8 MVar read, 9 black hole .. 17 throwTo */
    STOPSTATUS_PRE77,           /* before 7.7: 8 black hole .. 16 throwTo */
} stopstatus_era;

/* The numbering `log` uses, from the event types its header declares. */
stopstatus_era stopstatus_era_of(const evlog *log);
/* "GHC 7.8.3 or later" ...: static text. */
const char *stopstatus_era_name(stopstatus_era era);

/* Append the status's text as `ghc-events show` gives it for that numbering (0.21 for
 * 7.8.3+, 0.17 for the older ones, which 0.21 no longer reads), with the blocked-on
 * info where the text has it ("stack overflow, size N", "blocked on black hole owned
 * by thread N"); codes ghc-events has no text for get GHC's meaning ("blocked on a
 * foreign call", "blocked on an I/O completion"), unknown ones "unknown stop status N". */
void stopstatus_name(strbuf *sb, stopstatus_era era, uint16_t status, uint32_t info);
/* The class `threads` counts the status in. */
enum threadtab_stop_class stopstatus_class(stopstatus_era era, uint16_t status);

#endif
