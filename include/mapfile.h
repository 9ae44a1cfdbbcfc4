/* mapfile: a read-only memory mapping of a whole file. The eventlog is never
 * copied; every reader borrows bytes from this mapping. */
#ifndef ELOG_MAPFILE_H
#define ELOG_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct mapfile mapfile;

/* Map `path` read-only. Returns NULL and fills `d` (DIAG_IO) on failure: missing,
 * unreadable, a directory or not a regular file. An empty file maps to size 0.
 * Caller destroys with mapfile_close. */
mapfile *mapfile_open(const char *path, diag *d);
/* The mapped bytes (NULL when size is 0); valid until mapfile_close. */
const uint8_t *mapfile_data(const mapfile *m);
size_t mapfile_size(const mapfile *m);
/* Tell the kernel we will read sequentially from here on (a hint only). */
void mapfile_advise_sequential(const mapfile *m);
/* Unmap and free; NULL is a no-op. */
void mapfile_close(mapfile *m);

#endif
