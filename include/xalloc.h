/* xalloc: the one place where out-of-memory aborts. Everything else treats
 * allocation as infallible and states ownership at each call site. */
#ifndef ELOG_XALLOC_H
#define ELOG_XALLOC_H

#include <stddef.h>

/* Allocate `n` bytes (n may be 0). Caller frees with x_free. Aborts on OOM. */
void *xmalloc(size_t n);
/* Allocate `count * size` zeroed bytes, overflow-checked. Caller frees. */
void *xcalloc(size_t count, size_t size);
/* Resize `p` to `count * size` bytes, overflow-checked. Consumes `p`; caller frees result. */
void *xreallocarray(void *p, size_t count, size_t size);
/* Grow *p (of *cap elements of `size` bytes) to hold at least `need`: capacity starts
 * at `first` and doubles. Consumes the old *p; the array stays the caller's. */
void xgrowarray(void **p, size_t *cap, size_t need, size_t first, size_t size);
/* Copy of the NUL-terminated string `s`. Caller frees. */
char *xstrdup(const char *s);
/* Free `p`; x_free(NULL) is a no-op. */
void x_free(void *p);

#endif
