/* diag: error values. Library code never prints; it fills a diag with a code,
 * the byte offset in the input where things went wrong, and a message. */
#ifndef ELOG_DIAG_H
#define ELOG_DIAG_H

#include <stdbool.h>
#include <stdint.h>

enum diag_code {
    DIAG_OK = 0,
    DIAG_IO,            /* cannot open/read/map the file */
    DIAG_NOT_EVENTLOG,  /* bad magic, not an eventlog at all */
    DIAG_BAD_HEADER,    /* malformed or truncated header */
    DIAG_BAD_DATA,      /* malformed event data (undeclared type, bad length) */
    DIAG_TRUNCATED,     /* data ends early (a killed program): a warning */
    DIAG_CHANGED,       /* the file changed under us while mapped */
};

#define DIAG_NO_OFFSET UINT64_MAX

typedef struct diag {
    enum diag_code code;
    uint64_t offset;        /* byte offset in the file, or DIAG_NO_OFFSET */
    char msg[240];          /* "what went wrong", without file name or offset */
} diag;

/* Reset to DIAG_OK. */
void diag_clear(diag *d);
/* Record an error (printf-style message). `d` may be NULL. Returns false so callers
 * can `return diag_set(...)`. */
bool diag_set(diag *d, enum diag_code code, uint64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Format "FILE: msg at byte N" (or without the offset) into buf. */
void diag_format(const diag *d, const char *file, char *buf, unsigned buf_len);

#endif
