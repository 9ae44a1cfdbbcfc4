/* mapfile: read-only mmap of an eventlog file, with clear errors for the
 * usual ways opening a file goes wrong. */
#include "mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

struct mapfile {
    const uint8_t *data;
    size_t size;
};

mapfile *
mapfile_open(const char *path, diag *d)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_set(d, DIAG_IO, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
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
    if (!S_ISREG(st.st_mode)) {
        diag_set(d, DIAG_IO, 0, "not a regular file");
        close(fd);
        return NULL;
    }
    mapfile *m = xcalloc(1, sizeof *m);
    m->size = (size_t)st.st_size;
    if (m->size > 0) {
        void *p = mmap(NULL, m->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            diag_set(d, DIAG_IO, 0, "cannot map: %s", strerror(errno));
            close(fd);
            x_free(m);
            return NULL;
        }
        m->data = p;
    }
    close(fd);
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
mapfile_close(mapfile *m)
{
    if (!m)
        return;
    if (m->size)
        munmap((void *)m->data, m->size);
    x_free(m);
}
