/* xalloc: checked allocation wrappers; the only code that meets an allocation failure,
 * which ends the process through the handler main set (see xalloc.h). */
#include "xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/* Set once by main before other threads exist (xalloc.h argues why it is global). */
static xalloc_fail_fn xalloc_fail_handler;

void
xalloc_set_fail(xalloc_fail_fn fn)
{
    xalloc_fail_handler = fn;
}

static void
xalloc_die(size_t n)
{
    if (xalloc_fail_handler)
        xalloc_fail_handler(n);
    fprintf(stderr, "elog-tui: out of memory (needed %zu bytes)\n", n);
    exit(1);
}

void *
xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        xalloc_die(n);
    return p;
}

void *
xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        xalloc_die(count * size);
    return p;
}

void *
xreallocarray(void *p, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        xalloc_die(SIZE_MAX);
    size_t n = count * size;
    void *q = realloc(p, n ? n : 1);
    if (!q)
        xalloc_die(n);
    return q;
}

/* The capacity a growing array takes for `need` elements: `first`, doubled until it
 * holds them. */
static size_t
x_grown_cap(size_t cap, size_t need, size_t first)
{
    size_t c = cap ? cap : first;
    while (c < need)
        c = c > SIZE_MAX / 2 ? SIZE_MAX : 2 * c;
    return c;
}

void
xgrowarray(void **p, size_t *cap, size_t need, size_t first, size_t size)
{
    if (need <= *cap)
        return;
    size_t c = x_grown_cap(*cap, need, first);
    *p = xreallocarray(*p, c, size);
    *cap = c;
}

/* Below this many bytes a plain realloc's hole is not worth a copy. */
#define X_RELEASE_MIN_BYTES ((size_t)1 << 16)

void
xgrowarray_release(void **p, size_t *cap, size_t need, size_t first, size_t size)
{
    if (need <= *cap)
        return;
    size_t c = x_grown_cap(*cap, need, first);
    *p = xreallocarray_release(*p, *cap * size, c, size);
    *cap = c;
}

void *
xreallocarray_release(void *p, size_t old_bytes, size_t count, size_t size)
{
    if (old_bytes < X_RELEASE_MIN_BYTES || (size && count > SIZE_MAX / size) ||
        count * size <= old_bytes)
        return xreallocarray(p, count, size);
    void *q = xreallocarray(NULL, count, size);     /* the caller's, as p was */
    x_copy_release(q, p, old_bytes);
    x_free(p);
    return q;
}

void
x_copy_release(void *dst, void *src, size_t bytes)
{
    const size_t piece = (size_t)1 << 16;
    for (size_t at = 0; at < bytes; at += piece) {
        size_t k = bytes - at < piece ? bytes - at : piece;
        memcpy((char *)dst + at, (char *)src + at, k);
        x_release(src, at, at + k);
    }
}

char *
xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = xmalloc(n);
    memcpy(p, s, n);
    return p;
}

void
x_free(void *p)
{
    free(p);
}

void
x_release(void *p, size_t from, size_t to)
{
#ifdef MADV_DONTNEED
    long page = sysconf(_SC_PAGESIZE);
    if (!p || page <= 0 || to <= from)
        return;
    /* Whole pages strictly inside the range: the allocator's own words around the
     * block stay untouched. */
    uintptr_t a = (uintptr_t)p + from, b = (uintptr_t)p + to, pg = (uintptr_t)page;
    a = (a + pg - 1) / pg * pg;
    b = b / pg * pg;
    if (a < b)
        madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)p;
    (void)from;
    (void)to;
#endif
}

void
x_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
