/* xalloc: checked allocation wrappers; the only code that meets an allocation failure,
 * which ends the process through the handler main set (see xalloc.h). */
#define _GNU_SOURCE             /* mremap */
#include "xalloc.h"

#include <stdbool.h>
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

/* How a growing array's block moves to its new capacity. */
enum x_grow_how { X_GROW_REALLOC, X_GROW_RELEASE, X_GROW_BIG };

/* Grow *p (of *cap elements of `size` bytes) to hold `need`, doubling from `first`. */
static void
x_grow(void **p, size_t *cap, size_t need, size_t first, size_t size, enum x_grow_how how)
{
    if (need <= *cap)
        return;
    size_t c = x_grown_cap(*cap, need, first);
    if (size && c > SIZE_MAX / size)
        xalloc_die(SIZE_MAX);
    switch (how) {
    case X_GROW_REALLOC: *p = xreallocarray(*p, c, size); break;
    case X_GROW_RELEASE: *p = xreallocarray_release(*p, *cap * size, c, size); break;
    case X_GROW_BIG: *p = x_big_resize(*p, *cap * size, c * size); break;
    }
    *cap = c;
}

void
xgrowarray(void **p, size_t *cap, size_t need, size_t first, size_t size)
{
    x_grow(p, cap, need, first, size, X_GROW_REALLOC);
}

/* Below this many bytes a plain realloc's hole is not worth a copy. */
#define X_RELEASE_MIN_BYTES ((size_t)1 << 16)

void
xgrowarray_release(void **p, size_t *cap, size_t need, size_t first, size_t size)
{
    x_grow(p, cap, need, first, size, X_GROW_RELEASE);
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

/* Big blocks (x_big_resize) are mapped on their own from this many bytes: a growing
 * one then moves by its page tables (mremap), never copied, and its new room comes
 * zeroed without a write. Below it, and without mremap, they are the heap's. */
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
#define X_BIG_MIN_BYTES ((size_t)1 << 18)
#else
#define X_BIG_MIN_BYTES SIZE_MAX
#endif

static size_t
x_big_pages(size_t bytes)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    if (bytes > SIZE_MAX - pg)
        xalloc_die(SIZE_MAX);
    return (bytes + pg - 1) / pg * pg;
}

void *
x_big_resize(void *p, size_t old_bytes, size_t new_bytes)
{
    if (!p)
        old_bytes = 0;
    bool was = old_bytes >= X_BIG_MIN_BYTES, will = new_bytes >= X_BIG_MIN_BYTES;
    if (!will) {
        char *q;
        if (was) {              /* mapped -> heap: the little that is kept moves */
            q = xmalloc(new_bytes);
            memcpy(q, p, new_bytes);
            munmap(p, x_big_pages(old_bytes));
        } else {
            q = xreallocarray(p, new_bytes, 1);
        }
        if (new_bytes > old_bytes)
            memset(q + old_bytes, 0, new_bytes - old_bytes);
        return q;
    }
    size_t to = x_big_pages(new_bytes);
    if (!was) {                 /* heap -> mapped: fresh zero pages */
        void *q = mmap(NULL, to, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED)
            xalloc_die(new_bytes);
        if (p)
            memcpy(q, p, old_bytes);
        x_free(p);
        return q;
    }
    size_t from = x_big_pages(old_bytes);
    char *q = p;
    if (to != from) {
        q = mremap(p, from, to, MREMAP_MAYMOVE);
        if (q == (char *)MAP_FAILED)
            xalloc_die(new_bytes);
    }
    /* Pages past the old mapping are new, zero; the rest of the old last page may hold
     * what a larger size left there. */
    if (new_bytes > old_bytes) {
        size_t end = new_bytes < from ? new_bytes : from;
        if (end > old_bytes)
            memset(q + old_bytes, 0, end - old_bytes);
    }
    return q;
}

void
x_big_growarray(void **p, size_t *cap, size_t need, size_t first, size_t size)
{
    x_grow(p, cap, need, first, size, X_GROW_BIG);
}

void
x_big_free(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes >= X_BIG_MIN_BYTES)
        munmap(p, x_big_pages(bytes));
    else
        x_free(p);
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
