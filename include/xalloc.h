/* xalloc: the one place where out-of-memory is handled. Everything else treats
 * allocation as infallible and states ownership at each call site. */
#ifndef ELOG_XALLOC_H
#define ELOG_XALLOC_H

#include <stddef.h>

/* Allocate `n` bytes (n may be 0). Caller frees with x_free. Fails as xalloc_fail. */
void *xmalloc(size_t n);
/* Allocate `count * size` zeroed bytes, overflow-checked. Caller frees. */
void *xcalloc(size_t count, size_t size);
/* Resize `p` to `count * size` bytes, overflow-checked. Consumes `p`; caller frees result. */
void *xreallocarray(void *p, size_t count, size_t size);
/* Grow *p (of *cap elements of `size` bytes) to hold at least `need`: capacity starts
 * at `first` and doubles. Consumes the old *p; the array stays the caller's. */
void xgrowarray(void **p, size_t *cap, size_t need, size_t first, size_t size);
/* xgrowarray for an array that other allocations follow while it grows (a table built
 * across a long phase): once it is big, a move copies it by pieces into a new block,
 * giving the old block's pages back as they are copied, so neither a second copy nor a
 * resident hole the size of the old block is left behind (a plain realloc that cannot
 * grow in place leaves the old block's pages resident in the heap). */
void xgrowarray_release(void **p, size_t *cap, size_t need, size_t first, size_t size);
/* xreallocarray of a block of `old_bytes` that grows the same way: a big one moves by
 * pieces, its old pages given back as they are copied. Consumes `p`; caller frees the
 * result. */
void *xreallocarray_release(void *p, size_t old_bytes, size_t count, size_t size);
/* Copy `bytes` of src to dst (not overlapping) by pieces, each piece's source pages
 * given back once copied: src's contents become undefined, src stays the caller's. */
void x_copy_release(void *dst, void *src, size_t bytes);
/* A big array's block resized from old_bytes to new_bytes (p NULL: a new one), bytes
 * [old_bytes, new_bytes) zeroed. From a few hundred KB it is mapped on its own, so that
 * growing moves it without a copy and without holding it twice, and its new room is
 * zeroed without a write. Whether it is mapped follows from its size, which is why the
 * caller keeps the size in bytes, passes it to every later resize, and frees the block
 * only with x_big_free(p, bytes), never x_free. Consumes p. */
void *x_big_resize(void *p, size_t old_bytes, size_t new_bytes);
/* xgrowarray for an array held by x_big_resize (its bytes: *cap * size). */
void x_big_growarray(void **p, size_t *cap, size_t need, size_t first, size_t size);
/* Free a block of `bytes` that x_big_resize gave; x_big_free(NULL, n) is a no-op. */
void x_big_free(void *p, size_t bytes);
/* Copy of the NUL-terminated string `s`. Caller frees. */
char *xstrdup(const char *s);
/* Free `p`; x_free(NULL) is a no-op. */
void x_free(void *p);
/* Give back to the system the whole pages inside bytes [from, to) of the allocation p,
 * which the caller will not read again (a consumed prefix of a large array being
 * merged away): their contents become undefined, p stays the caller's to free. */
void x_release(void *p, size_t from, size_t to);
/* Give the allocator's free memory back to the system, after a phase that freed much
 * (with glibc, whose arenas keep freed blocks below their top: malloc_trim). */
void x_trim(void);

/* What happens when an allocation of `n_bytes` fails. An allocation deep in any module
 * cannot return an error (callers treat it as infallible, STYLE rule 5), so this is a
 * process-wide policy: the one piece of global mutable state in xalloc, written once
 * by main before any other thread starts and only read afterwards. The handler must
 * not return (it exits); it may be called on any thread. Without one, or if it
 * returns, xalloc writes "elog-tui: out of memory (needed N bytes)" to stderr and
 * exits with status 1. */
typedef void (*xalloc_fail_fn)(size_t n_bytes);
void xalloc_set_fail(xalloc_fail_fn fn);

#endif
