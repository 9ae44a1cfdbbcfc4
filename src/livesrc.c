/* livesrc: the reading thread of a live eventlog. It connects (retrying if asked),
 * then copies whatever arrives into an unlinked temporary file and publishes the new
 * size; a followed file is only watched. All waiting is a poll that also watches a
 * wake pipe, so livesrc_close never hangs on a silent writer. */
#define _GNU_SOURCE     /* O_TMPFILE */
#include "livesrc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "xalloc.h"

/* How often a followed file is looked at, and a refused connection tried again. */
#define LIVESRC_FOLLOW_POLL_MS 20
#define LIVESRC_RETRY_MS 200
#define LIVESRC_CONNECT_TIMEOUT_MS 5000
#define LIVESRC_CHUNK ((size_t)1 << 20)

struct livesrc {
    enum livesrc_kind kind;
    char *name;                 /* owned; for headers */
    char *path;                 /* owned; FIFO, socket or followed file */
    char *host, *port;          /* owned; tcp: only */
    bool wait;
    int file_fd;                /* the bytes so far: temporary file, or the followed one */
    int in_fd;                  /* the stream; -1 until connected (stdin: a dup of 0) */
    int wake[2];                /* self-pipe: a byte in it stops the thread */
    pthread_t th;
    bool th_started;
    pthread_mutex_t mu;         /* guards the fields below */
    pthread_cond_t cv;          /* signalled at every change of them */
    enum livesrc_state state;
    uint64_t bytes;
    uint64_t last_ns;
    diag err;
};

static uint64_t
livesrc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *const livesrc_state_names[] = {
    [LIVESRC_CONNECTING] = "connecting",
    [LIVESRC_LIVE] = "live",
    [LIVESRC_ENDED] = "ended",
    [LIVESRC_LOST] = "lost",
};

const char *
livesrc_state_name(enum livesrc_state st)
{
    return livesrc_state_names[st];
}

bool
livesrc_is_live(const char *spec, bool follow)
{
    if (strcmp(spec, "-") == 0 || strncmp(spec, "unix:", 5) == 0 ||
        strncmp(spec, "tcp:", 4) == 0)
        return true;
    struct stat st;
    if (stat(spec, &st) != 0)
        return false;
    return S_ISFIFO(st.st_mode) || (follow && S_ISREG(st.st_mode));
}

/* --- Publishing (the thread) --------------------------------------------------------- */

static void
livesrc_set_state(livesrc *s, enum livesrc_state st, const diag *err)
{
    pthread_mutex_lock(&s->mu);
    /* A final state stays: a stream that was lost does not later "end". */
    if (s->state != LIVESRC_LOST && s->state != LIVESRC_ENDED) {
        s->state = st;
        if (err)
            s->err = *err;
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void
livesrc_lose(livesrc *s, const char *what, int err)
{
    diag d;
    diag_set(&d, DIAG_IO, DIAG_NO_OFFSET, "%s: %s", what, strerror(err));
    livesrc_set_state(s, LIVESRC_LOST, &d);
}

static void
livesrc_publish(livesrc *s, uint64_t bytes)
{
    pthread_mutex_lock(&s->mu);
    s->bytes = bytes;
    s->last_ns = livesrc_now_ns();
    if (s->state == LIVESRC_CONNECTING)
        s->state = LIVESRC_LIVE;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Wait for `fd` to be ready for `events` (fd < 0: only sleep), at most `ms` (-1: no
 * limit). 1 ready, 0 timed out, -1 asked to stop. */
static int
livesrc_poll(livesrc *s, int fd, short events, int ms)
{
    struct pollfd p[2] = { { s->wake[0], POLLIN, 0 }, { fd, events, 0 } };
    for (;;) {
        int r = poll(p, fd >= 0 ? 2 : 1, ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || (p[0].revents & POLLIN))
            return -1;
        return r > 0 ? 1 : 0;
    }
}

/* --- Connecting ---------------------------------------------------------------------- */

/* One try: a connected socket, or -1 with errno. */
static int
livesrc_connect_unix(const char *path)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    memcpy(sa.sun_path, path, strlen(path));    /* length checked at open */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* One try over every address of host:port; -1 with errno (or -2: asked to stop). */
static int
livesrc_connect_tcp(livesrc *s)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int gai = getaddrinfo(s->host, s->port, &hints, &res);
    if (gai != 0) {
        errno = gai == EAI_SYSTEM ? errno : EHOSTUNREACH;
        return -1;
    }
    int fd = -1, err = ECONNREFUSED;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                    a->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
            break;
        if (errno != EINPROGRESS) {
            err = errno;
            close(fd);
            fd = -1;
            continue;
        }
        int r = livesrc_poll(s, fd, POLLOUT, LIVESRC_CONNECT_TIMEOUT_MS);
        socklen_t len = sizeof err;
        if (r < 0) {
            close(fd);
            freeaddrinfo(res);
            return -2;
        }
        if (r == 0)
            err = ETIMEDOUT;
        else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
            err = errno;
        if (r == 0 || err != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int fl = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    } else {
        errno = err;
    }
    return fd;
}

/* Connect the socket sources, trying again while refused if asked to wait. False when
 * given up (state LOST) or asked to stop. */
static bool
livesrc_connect(livesrc *s)
{
    for (;;) {
        errno = 0;
        int fd = s->kind == LIVESRC_UNIX ? livesrc_connect_unix(s->path) : livesrc_connect_tcp(s);
        if (fd >= 0) {
            int rcv = (int)LIVESRC_CHUNK;
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
            s->in_fd = fd;
            return true;
        }
        if (fd == -2)
            return false;
        int e = errno;
        bool retry = e == ECONNREFUSED || e == ENOENT || e == ETIMEDOUT ||
                     e == EHOSTUNREACH || e == ENETUNREACH || e == ECONNRESET;
        if (!s->wait || !retry) {
            livesrc_lose(s, "cannot connect", e);
            return false;
        }
        if (livesrc_poll(s, -1, 0, LIVESRC_RETRY_MS) < 0)
            return false;
    }
}

/* --- The thread ---------------------------------------------------------------------- */

static void
livesrc_follow_loop(livesrc *s)
{
    uint64_t have = 0;
    livesrc_set_state(s, LIVESRC_LIVE, NULL);
    for (;;) {
        struct stat st;
        if (fstat(s->file_fd, &st) != 0) {
            livesrc_lose(s, "cannot stat", errno);
            return;
        }
        if ((uint64_t)st.st_size < have) {
            diag d;
            diag_set(&d, DIAG_CHANGED, (uint64_t)st.st_size, "the file shrank while followed");
            livesrc_set_state(s, LIVESRC_LOST, &d);
            return;
        }
        if ((uint64_t)st.st_size > have) {
            have = (uint64_t)st.st_size;
            livesrc_publish(s, have);
        }
        if (livesrc_poll(s, -1, 0, LIVESRC_FOLLOW_POLL_MS) < 0)
            return;
    }
}

/* Copy the stream into the file. Should the file refuse bytes (disk full), the stream
 * is still read to its end and dropped: the writer must never block on us. */
static void
livesrc_copy_loop(livesrc *s)
{
    uint8_t *buf = xmalloc(LIVESRC_CHUNK);     /* freed below */
    uint64_t have = 0;
    bool keep = true;
    for (;;) {
        int r = livesrc_poll(s, s->in_fd, POLLIN, -1);
        if (r < 0)
            break;
        ssize_t n = read(s->in_fd, buf, LIVESRC_CHUNK);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0) {
            livesrc_lose(s, "reading failed", errno);
            break;
        }
        if (n == 0) {
            livesrc_set_state(s, LIVESRC_ENDED, NULL);
            break;
        }
        for (ssize_t off = 0; keep && off < n;) {
            ssize_t w = write(s->file_fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                livesrc_lose(s, "cannot keep the stream in a temporary file", errno);
                keep = false;
                break;
            }
            off += w;
        }
        if (keep) {
            have += (uint64_t)n;
            livesrc_publish(s, have);
        }
    }
    x_free(buf);
}

static void *
livesrc_main(void *arg)
{
    livesrc *s = arg;
    if (s->kind == LIVESRC_FOLLOW) {
        livesrc_follow_loop(s);
        return NULL;
    }
    if ((s->kind == LIVESRC_UNIX || s->kind == LIVESRC_TCP) && !livesrc_connect(s))
        return NULL;
    if (s->kind == LIVESRC_UNIX || s->kind == LIVESRC_TCP)
        livesrc_set_state(s, LIVESRC_LIVE, NULL);
    livesrc_copy_loop(s);
    return NULL;
}

/* --- Opening ------------------------------------------------------------------------- */

/* An unlinked file in $TMPDIR (else /tmp): its bytes live only as long as we do. */
static int
livesrc_tempfile(diag *d)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    size_t len = strlen(dir) + 32;
    char *path = xmalloc(len);                  /* freed below */
    snprintf(path, len, "%s/elog-tui-XXXXXX", dir);
    int tfd = mkstemp(path);
    if (tfd >= 0) {
        unlink(path);
        fcntl(tfd, F_SETFD, FD_CLOEXEC);
    } else {
        diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot make a temporary file in %s: %s", dir,
                 strerror(errno));
    }
    x_free(path);
    return tfd;
}

/* Parse `spec` into s's kind and address; false with `d`. */
static bool
livesrc_parse(livesrc *s, const char *spec, const livesrc_opts *o, diag *d)
{
    if (strcmp(spec, "-") == 0) {
        s->kind = LIVESRC_STDIN;
        s->name = xstrdup("stdin");
        return true;
    }
    if (strncmp(spec, "unix:", 5) == 0) {
        s->kind = LIVESRC_UNIX;
        s->path = xstrdup(spec + 5);
        if (!s->path[0] || strlen(s->path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
            return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "a unix socket path must have 1 to "
                            "%zu bytes", sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
        s->name = xstrdup(spec);
        return true;
    }
    if (strncmp(spec, "tcp:", 4) == 0) {
        s->kind = LIVESRC_TCP;
        const char *hp = spec + 4, *colon = strrchr(hp, ':');
        if (!colon || colon == hp || !colon[1])
            return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "expected tcp:HOST:PORT");
        size_t hl = (size_t)(colon - hp);
        if (hl >= 2 && hp[0] == '[' && hp[hl - 1] == ']') {    /* [::1]:4242 */
            hp++;
            hl -= 2;
        }
        s->host = xmalloc(hl + 1);
        memcpy(s->host, hp, hl);
        s->host[hl] = '\0';
        s->port = xstrdup(colon + 1);
        s->name = xstrdup(spec);
        return true;
    }
    struct stat st;
    if (stat(spec, &st) != 0)
        return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot open: %s", strerror(errno));
    s->path = xstrdup(spec);
    if (S_ISFIFO(st.st_mode)) {
        s->kind = LIVESRC_FIFO;
        size_t len = strlen(spec) + 8;
        s->name = xmalloc(len);
        snprintf(s->name, len, "fifo %s", spec);
        return true;
    }
    if (o->follow && S_ISREG(st.st_mode)) {
        s->kind = LIVESRC_FOLLOW;
        s->name = xstrdup(spec);
        return true;
    }
    return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "not a FIFO, socket address or file to follow");
}

/* The descriptors each kind starts with; false with `d`. */
static bool
livesrc_open_fds(livesrc *s, diag *d)
{
    switch (s->kind) {
    case LIVESRC_FOLLOW:
        s->file_fd = open(s->path, O_RDONLY | O_CLOEXEC);
        if (s->file_fd < 0)
            return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot open: %s", strerror(errno));
        return true;
    case LIVESRC_STDIN:
        s->in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
        if (s->in_fd < 0)
            return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot read standard input: %s",
                            strerror(errno));
        break;
    case LIVESRC_FIFO:
        /* Never blocks; on Linux poll reports no hang-up until a writer has come and
         * gone, so waiting for the first writer is waiting for POLLIN. */
        s->in_fd = open(s->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (s->in_fd < 0)
            return diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot open: %s", strerror(errno));
        break;
    case LIVESRC_UNIX:
    case LIVESRC_TCP:
        break;
    }
    /* A bigger pipe buffer absorbs the moments our thread is not scheduled, so the
     * writer blocks less (Linux; the limit is /proc/sys/fs/pipe-max-size). */
#ifdef F_SETPIPE_SZ
    if (s->in_fd >= 0)
        fcntl(s->in_fd, F_SETPIPE_SZ, (int)LIVESRC_CHUNK);
#endif
    s->file_fd = livesrc_tempfile(d);
    return s->file_fd >= 0;
}

livesrc *
livesrc_open(const char *spec, const livesrc_opts *o, diag *d)
{
    livesrc *s = xcalloc(1, sizeof *s);
    s->file_fd = s->in_fd = s->wake[0] = s->wake[1] = -1;
    s->wait = o->wait;
    s->state = LIVESRC_CONNECTING;
    diag_clear(&s->err);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    if (!livesrc_parse(s, spec, o, d) || !livesrc_open_fds(s, d)) {
        livesrc_close(s);
        return NULL;
    }
    if (pipe2(s->wake, O_CLOEXEC) != 0) {
        diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot make a pipe: %s", strerror(errno));
        livesrc_close(s);
        return NULL;
    }
    if (pthread_create(&s->th, NULL, livesrc_main, s) != 0) {
        diag_set(d, DIAG_IO, DIAG_NO_OFFSET, "cannot start the reading thread");
        livesrc_close(s);
        return NULL;
    }
    s->th_started = true;
    return s;
}

enum livesrc_kind
livesrc_kind_of(const livesrc *s)
{
    return s->kind;
}

int
livesrc_fd(const livesrc *s)
{
    return s->file_fd;
}

const char *
livesrc_name(const livesrc *s)
{
    return s->name;
}

static void
livesrc_fill(livesrc *s, livesrc_status *st)
{
    st->state = s->state;
    st->bytes = s->bytes;
    st->last_arrival_ns = s->last_ns;
    st->err = s->err;
}

void
livesrc_status_get(livesrc *s, livesrc_status *st)
{
    pthread_mutex_lock(&s->mu);
    livesrc_fill(s, st);
    pthread_mutex_unlock(&s->mu);
}

void
livesrc_wait(livesrc *s, uint64_t have, int timeout_ms, livesrc_status *st)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    while (s->bytes <= have && s->state != LIVESRC_ENDED && s->state != LIVESRC_LOST)
        if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT)
            break;
    livesrc_fill(s, st);
    pthread_mutex_unlock(&s->mu);
}

static void
livesrc_join(livesrc *s)
{
    if (!s->th_started)
        return;
    ssize_t w;
    do
        w = write(s->wake[1], "x", 1);
    while (w < 0 && errno == EINTR);
    pthread_join(s->th, NULL);
    s->th_started = false;
}

void
livesrc_stop(livesrc *s)
{
    livesrc_join(s);
    livesrc_set_state(s, LIVESRC_ENDED, NULL);
}

void
livesrc_close(livesrc *s)
{
    if (!s)
        return;
    livesrc_join(s);
    int fds[] = { s->file_fd, s->in_fd, s->wake[0], s->wake[1] };
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    x_free(s->name);
    x_free(s->path);
    x_free(s->host);
    x_free(s->port);
    x_free(s);
}
