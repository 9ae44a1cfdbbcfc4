/* mapfile: read-only mmap of an eventlog file, with clear errors for the usual ways
 * opening a file goes wrong, and survival when the file shrinks under the mapping
 * (SIGBUS): the lost pages are replaced and the loss is recorded for the caller. */
#define _GNU_SOURCE     /* memfd_create */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && ATOMIC_LLONG_LOCK_FREE == 2,
               "the SIGBUS handler needs lock-free atomics");

struct mapfile {
    const uint8_t *data;
    size_t size;
    int fd;                     /* kept open to fstat the mapped file; -1 if none */
    char *path;                 /* owned; to notice another file put in its place */
    struct stat st;             /* as it was when mapped */
    int slot;                   /* index in mapfile_live, -1 if not registered */
    size_t reserved;            /* growing mappings: address space set aside (else 0) */
    size_t mapped;              /* growing mappings: bytes mapped from the file, whole
                                 * pages */
    _Atomic uint64_t first_bad; /* lowest offset the SIGBUS handler replaced, or
                                 * UINT64_MAX: written in signal context */
};

/* --- The SIGBUS guard ------------------------------------------------------------------
 * Touching a page of a mapping beyond the end of its (since truncated) file raises
 * SIGBUS. The handler finds the mapping holding the faulting address, maps a page of
 * 0xff bytes over the faulting page, records the offset and returns, so the read that
 * faulted is retried and sees 0xffff — the end-of-data marker — where the lost data
 * was: a file-order reader stops there cleanly. Callers ask mapfile_changed afterwards.
 *
 * A signal handler cannot be given arguments, so the live mappings are found through
 * this registry: the one exception to "no global mutable state" in src/. It is a
 * fixed array of atomic pointers (lock-free, safe to read in the handler); slots are
 * claimed by compare-and-swap in mapfile_open and cleared in mapfile_close before the
 * unmap. Closing a mapping while another thread still reads it is a bug anyway. A
 * process with more than MAPFILE_MAX_LIVE mappings leaves the extra ones unguarded.
 * Installed once per process, with the first mapping; everything else set there is
 * written once, before any mapping is registered. */
#define MAPFILE_MAX_LIVE 64

static _Atomic(mapfile *) mapfile_live[MAPFILE_MAX_LIVE];
static pthread_once_t mapfile_once = PTHREAD_ONCE_INIT;
static struct sigaction mapfile_prev_bus;   /* the handler before ours (a sanitizer's) */
static size_t mapfile_page;
static int mapfile_fill_fd = -1;            /* one page of 0xff bytes (memfd) */

/* Not ours: hand the fault to whoever handled SIGBUS before, else die of it. */
static void
mapfile_pass_on(int sig, siginfo_t *si, void *uctx)
{
    const struct sigaction *p = &mapfile_prev_bus;
    if ((p->sa_flags & SA_SIGINFO) && p->sa_sigaction) {
        p->sa_sigaction(sig, si, uctx);
        return;
    }
    if (!(p->sa_flags & SA_SIGINFO) && p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
        p->sa_handler(sig);
        return;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, NULL);
    /* Pending until we return (SIGBUS is blocked in its handler); a hardware fault
     * would recur at the retried access anyway. */
    raise(SIGBUS);
}

static void
mapfile_on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    int saved_errno = errno;
    uintptr_t addr = (uintptr_t)si->si_addr;
    for (size_t i = 0; si->si_code > 0 && i < MAPFILE_MAX_LIVE; i++) {
        mapfile *m = atomic_load(&mapfile_live[i]);
        if (!m)
            continue;
        uintptr_t start = (uintptr_t)m->data;
        if (addr < start || addr - start >= m->size)
            continue;
        uintptr_t page = addr & ~(uintptr_t)(mapfile_page - 1);
        void *p = MAP_FAILED;
        if (mapfile_fill_fd >= 0)
            p = mmap((void *)page, mapfile_page, PROT_READ, MAP_FIXED | MAP_SHARED,
                     mapfile_fill_fd, 0);
        if (p == MAP_FAILED) {
            /* No fill page (or no more mappings allowed): zeros to the end, one range. */
            size_t end = (start + m->size + mapfile_page - 1) & ~(uintptr_t)(mapfile_page - 1);
            p = mmap((void *)page, end - page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
                     -1, 0);
        }
        if (p == MAP_FAILED)
            break;
        uint64_t off = page - start, cur = atomic_load(&m->first_bad);
        while (off < cur && !atomic_compare_exchange_weak(&m->first_bad, &cur, off))
            ;
        errno = saved_errno;
        return;
    }
    mapfile_pass_on(sig, si, uctx);
    errno = saved_errno;
}

static void
mapfile_install(void)
{
    long page = sysconf(_SC_PAGESIZE);
    mapfile_page = page > 0 ? (size_t)page : 4096;
#ifdef MFD_CLOEXEC
    int fd = memfd_create("elog-tui-gone", MFD_CLOEXEC);
    if (fd >= 0) {
        uint8_t *fill = xmalloc(mapfile_page);
        memset(fill, 0xff, mapfile_page);
        if (pwrite(fd, fill, mapfile_page, 0) == (ssize_t)mapfile_page)
            mapfile_fill_fd = fd;
        else
            close(fd);
        x_free(fill);
    }
#endif
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = mapfile_on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &mapfile_prev_bus);
}

static void
mapfile_register(mapfile *m)
{
    pthread_once(&mapfile_once, mapfile_install);
    for (int i = 0; i < MAPFILE_MAX_LIVE; i++) {
        mapfile *expect = NULL;
        if (atomic_compare_exchange_strong(&mapfile_live[i], &expect, m)) {
            m->slot = i;
            return;
        }
    }
}

/* --- Opening and closing ------------------------------------------------------------- */

mapfile *
mapfile_open(const char *path, diag *d)
{
    /* O_NONBLOCK: opening a FIFO (or a device) never waits; it is refused below. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        diag_set(d, DIAG_IO, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_set(d, DIAG_IO, 0, "cannot stat: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_set(d, DIAG_IO, 0, "is a directory, not an eventlog");
        close(fd);
        return NULL;
    }
    if (S_ISFIFO(st.st_mode)) {
        diag_set(d, DIAG_IO, 0, "a FIFO cannot be mapped; streams are not supported yet");
        close(fd);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_set(d, DIAG_IO, 0, "not a regular file");
        close(fd);
        return NULL;
    }
    mapfile *m = xcalloc(1, sizeof *m);
    m->size = (size_t)st.st_size;
    m->fd = fd;
    m->st = st;
    m->slot = -1;
    atomic_init(&m->first_bad, UINT64_MAX);
    if (m->size > 0) {
        void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            diag_set(d, DIAG_IO, 0, "cannot map: %s", strerror(errno));
            close(fd);
            x_free(m);
            return NULL;
        }
        m->data = p;
        mapfile_register(m);
    }
    m->path = xstrdup(path);
    return m;
}

const uint8_t *
mapfile_data(const mapfile *m)
{
    return m->data;
}

size_t
mapfile_size(const mapfile *m)
{
    return m->size;
}

void
mapfile_advise_sequential(const mapfile *m)
{
    if (m->size)
        madvise((void *)m->data, m->size, MADV_SEQUENTIAL);
}

void
mapfile_release(const mapfile *m, uint64_t from, uint64_t to)
{
    if (to > m->size)
        to = m->size;
    if (m->size == 0 || from >= to)
        return;
    uintptr_t start = (uintptr_t)m->data;
    uintptr_t a = (start + from + mapfile_page - 1) & ~(uintptr_t)(mapfile_page - 1);
    uintptr_t b = (start + to) & ~(uintptr_t)(mapfile_page - 1);
    if (a < b)
        madvise((void *)a, b - a, MADV_DONTNEED);
}

bool
mapfile_changed(const mapfile *m, uint64_t *first_bad_offset)
{
    uint64_t bad = atomic_load(&m->first_bad);
    /* A cut inside a page reads as zeros up to the page's end, without a fault. */
    struct stat st;
    if (m->fd >= 0 && fstat(m->fd, &st) == 0 && (uint64_t)st.st_size < m->size &&
        (uint64_t)st.st_size < bad)
        bad = (uint64_t)st.st_size;
    if (bad == UINT64_MAX)
        return false;
    if (first_bad_offset)
        *first_bad_offset = bad;
    return true;
}

bool
mapfile_rewritten(const mapfile *m)
{
    struct stat now;
    return m->fd >= 0 && !m->reserved && fstat(m->fd, &now) == 0 &&
           (uint64_t)now.st_size <= m->size &&
           (now.st_mtim.tv_sec != m->st.st_mtim.tv_sec ||
            now.st_mtim.tv_nsec != m->st.st_mtim.tv_nsec);
}

bool
mapfile_stale(const mapfile *m)
{
    struct stat now;
    if (mapfile_changed(m, NULL))
        return true;
    if (m->reserved)
        return false;           /* growing: growth is expected, there is no path */
    if (m->fd < 0 || fstat(m->fd, &now) != 0 || now.st_size != m->st.st_size ||
        now.st_mtim.tv_sec != m->st.st_mtim.tv_sec || now.st_mtim.tv_nsec != m->st.st_mtim.tv_nsec)
        return true;
    /* Another file (or none) at the path: replaced by a rename, or deleted. */
    return stat(m->path, &now) != 0 || now.st_ino != m->st.st_ino || now.st_dev != m->st.st_dev;
}

void
mapfile_close(mapfile *m)
{
    if (!m)
        return;
    if (m->slot >= 0)
        atomic_store(&mapfile_live[m->slot], NULL);
    if (m->reserved)
        munmap((void *)m->data, m->reserved);
    else if (m->size)
        munmap((void *)m->data, m->size);
    if (m->fd >= 0)
        close(m->fd);
    x_free(m->path);
    x_free(m);
}

/* --- Growing mappings ------------------------------------------------------------------
 * One reservation (PROT_NONE, no memory committed) whose front is replaced by shared
 * mappings of the file, page by page as it grows: the data pointer is stable. Pages
 * are mapped only once the file holds bytes in them; the tail of the last page reads
 * the file's page cache, so bytes written there later are seen without a new map. */

static size_t
mapfile_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

mapfile *
mapfile_open_growing(int fd, size_t size, size_t reserve, diag *d)
{
    size_t page = mapfile_page_size();
    if (reserve < ((size_t)16 << 20))
        reserve = (size_t)16 << 20;
    reserve = (reserve + page - 1) & ~(page - 1);
    void *base = MAP_FAILED;
    while (base == MAP_FAILED) {
        base = mmap(NULL, reserve, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
        if (base == MAP_FAILED && reserve <= ((size_t)16 << 20)) {
            diag_set(d, DIAG_IO, 0, "cannot reserve address space: %s", strerror(errno));
            return NULL;
        }
        if (base == MAP_FAILED)
            reserve /= 2;
    }
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0) {
        diag_set(d, DIAG_IO, 0, "cannot duplicate the descriptor: %s", strerror(errno));
        munmap(base, reserve);
        return NULL;
    }
    mapfile *m = xcalloc(1, sizeof *m);
    m->data = base;
    m->fd = own;
    m->slot = -1;
    m->reserved = reserve;
    fstat(own, &m->st);
    atomic_init(&m->first_bad, UINT64_MAX);
    m->path = xstrdup("");
    if (!mapfile_grow(m, size, d)) {
        mapfile_close(m);
        return NULL;
    }
    mapfile_register(m);    /* a followed file may still be cut under us */
    return m;
}

bool
mapfile_grow(mapfile *m, size_t size, diag *d)
{
    if (size <= m->size)
        return true;
    if (size > m->reserved)
        return diag_set(d, DIAG_IO, m->size, "the log outgrew the %zu MiB of address space "
                        "set aside for it", m->reserved >> 20);
    size_t page = mapfile_page_size();
    size_t want = (size + page - 1) & ~(page - 1);
    if (want > m->mapped) {
        void *at = (void *)(m->data + m->mapped);
        void *p = mmap(at, want - m->mapped, PROT_READ, MAP_SHARED | MAP_FIXED, m->fd,
                       (off_t)m->mapped);
        if (p == MAP_FAILED)
            return diag_set(d, DIAG_IO, m->size, "cannot map: %s", strerror(errno));
        m->mapped = want;
    }
    m->size = size;
    fstat(m->fd, &m->st);
    return true;
}
