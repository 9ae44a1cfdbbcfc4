/* livesrc: an eventlog that is still being written — a file followed as it grows,
 * standard input, a FIFO, or an eventlog socket (unix:PATH, tcp:HOST:PORT). A thread
 * of its own reads the stream as fast as it comes (a writer is never stalled, whatever
 * the reader of the log does) into an unlinked temporary file in $TMPDIR, so the log
 * is always a growing prefix of a file that can be mapped (evlog_open_growing). */
#ifndef ELOG_LIVESRC_H
#define ELOG_LIVESRC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct livesrc livesrc;

enum livesrc_kind {
    LIVESRC_FOLLOW,             /* a regular file still being written (--follow) */
    LIVESRC_STDIN,              /* "-" */
    LIVESRC_FIFO,               /* a named pipe */
    LIVESRC_UNIX,               /* "unix:PATH", a Unix socket eventlog-socket listens on */
    LIVESRC_TCP,                /* "tcp:HOST:PORT" */
};

enum livesrc_state {
    LIVESRC_CONNECTING,         /* waiting for a writer, or for the socket to accept */
    LIVESRC_LIVE,               /* bytes may still come */
    LIVESRC_ENDED,              /* the writer closed the stream (end of file) */
    LIVESRC_LOST,               /* reading failed, or could not connect (see err) */
};

typedef struct livesrc_opts {
    bool follow;                /* a plain FILE is followed as it grows */
    bool wait;                  /* keep trying to connect until the socket is up */
} livesrc_opts;

typedef struct livesrc_status {
    enum livesrc_state state;
    uint64_t bytes;             /* bytes in the file so far */
    uint64_t last_arrival_ns;   /* CLOCK_MONOTONIC when the newest bytes came; 0: none */
    diag err;                   /* why LOST (DIAG_IO) */
} livesrc_status;

/* True when `spec` names a live source: "-", "unix:…", "tcp:…", a FIFO, or any file
 * when `follow`. Anything else is a plain file, mapped as it is. */
bool livesrc_is_live(const char *spec, bool follow);
/* Start reading `spec`. NULL with `d` (DIAG_IO) when it cannot even start: a malformed
 * address, a file to follow that is missing, no temporary file. Connecting happens on
 * the thread (state CONNECTING). Caller ends with livesrc_close. */
livesrc *livesrc_open(const char *spec, const livesrc_opts *o, diag *d);
enum livesrc_kind livesrc_kind_of(const livesrc *s);
/* The file holding the bytes read so far; owned by s. */
int livesrc_fd(const livesrc *s);
/* A short name for headers: "stdin", "fifo PATH", "unix:PATH", "tcp:H:P", "PATH". */
const char *livesrc_name(const livesrc *s);
void livesrc_status_get(livesrc *s, livesrc_status *st);
/* Block until the file holds more than `have` bytes, the state is ENDED or LOST, or
 * `timeout_ms` passed; then fill *st. */
void livesrc_wait(livesrc *s, uint64_t have, int timeout_ms, livesrc_status *st);
/* Stop reading (the bytes so far stay readable); the state becomes ENDED unless it
 * already ended. For a followed file this is how it ends (it has no end of its own). */
void livesrc_stop(livesrc *s);
/* Stop the thread, close and free; NULL is a no-op. */
void livesrc_close(livesrc *s);
/* "connecting", "live", "ended", "lost". */
const char *livesrc_state_name(enum livesrc_state st);

#endif
