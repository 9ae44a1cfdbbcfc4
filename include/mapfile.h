/* mapfile: a read-only memory mapping of a whole file. The eventlog is never
 * copied; every reader borrows bytes from this mapping. A file truncated while mapped
 * does not kill the process: pages past its new end read as 0xff bytes (see
 * mapfile.c: a SIGBUS handler, installed with the first mapping) and the loss is
 * reported by mapfile_changed. */
#ifndef ELOG_MAPFILE_H
#define ELOG_MAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"

typedef struct mapfile mapfile;

/* Map `path` read-only. Returns NULL and fills `d` (DIAG_IO) on failure: missing,
 * unreadable, a directory, a FIFO or not a regular file; never blocks (a FIFO is
 * refused whether or not it has a writer). An empty file maps to size 0.
 * Caller destroys with mapfile_close. */
mapfile *mapfile_open(const char *path, diag *d);
/* The mapped bytes (NULL when size is 0); valid until mapfile_close. */
const uint8_t *mapfile_data(const mapfile *m);
size_t mapfile_size(const mapfile *m);
/* Tell the kernel we will read sequentially from here on (a hint only). */
void mapfile_advise_sequential(const mapfile *m);
/* A hint that bytes [from, to) will not be read again soon: their whole pages leave
 * the process's resident memory (MADV_DONTNEED) and stay readable, read again from the
 * file (the page cache) when touched. For a single pass over a file bigger than memory. */
void mapfile_release(const mapfile *m, uint64_t from, uint64_t to);
/* True when bytes of the mapping are gone: the file shrank below the mapped size (the
 * pages past its end were replaced by 0xff bytes when touched; the rest of the last
 * page reads as zeros). *first_bad_offset (may be NULL) gets the lowest offset whose
 * bytes are no longer the file's. One fstat. Safe to call from any thread. */
bool mapfile_changed(const mapfile *m, uint64_t *first_bad_offset);
/* True when the file was modified in place since it was mapped: its modification time
 * changed while its size did not grow (a program appending to its log grows it; a
 * rewrite of as many bytes or fewer does not). The mapping may then mix old and new
 * bytes. One fstat. */
bool mapfile_rewritten(const mapfile *m);
/* True when the file on disk is no longer what was mapped: changed as above, grew,
 * was modified (mtime), or another file (or none) is now at its path. An fstat and a
 * stat: cheap enough to poll. */
bool mapfile_stale(const mapfile *m);
/* A mapping that grows with its file (a log being written, or the temporary file a
 * stream is copied into). Address space for `reserve` bytes is set aside at once (less
 * if the system refuses: halved down to 16 MiB) so the data pointer never moves and
 * bytes already handed out stay valid; the first `size` bytes are mapped. `fd` is
 * duplicated (the caller keeps its own). NULL with `d` (DIAG_IO) on failure. Caller
 * destroys with mapfile_close. */
mapfile *mapfile_open_growing(int fd, size_t size, size_t reserve, diag *d);
/* Map more of a growing mapping: its size becomes `size` (never smaller than before).
 * False with `d` when the size exceeds the reservation or mmap fails; the mapping is
 * then unchanged. Bytes up to `size` must already be in the file. Only the thread
 * that reads the mapping may call this. */
bool mapfile_grow(mapfile *m, size_t size, diag *d);
/* Unmap and free; NULL is a no-op. */
void mapfile_close(mapfile *m);

#endif
