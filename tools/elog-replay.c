/* elog-replay: write an eventlog into a live destination the way a running program
 * would — a growing file, a FIFO, standard output, a Unix socket or a TCP loopback
 * socket it listens on (as eventlog-socket does) — in chunks cut at random (in the
 * middle of events too), at a chosen rate, with pauses, optionally stopping short. For
 * the live-source tests and for trying the live viewer without a Haskell program. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct replay_opts {
    const char *in_path, *dest, *port_file;
    size_t chunk_min, chunk_max;
    uint64_t rate;              /* bytes per second; 0: as fast as the reader takes them */
    unsigned pause_ms;          /* pause this long ... */
    unsigned pause_every;       /* ... after every this many chunks; 0: never */
    uint64_t cut;               /* stop after this many bytes; UINT64_MAX: the whole log */
    uint64_t seed;
    unsigned delay_ms;          /* wait before opening the destination */
} replay_opts;

static void
replay_usage(FILE *f)
{
    fputs("usage: elog-replay [options] LOG DEST\n"
          "DEST: -            standard output\n"
          "      file:PATH    a file, created (emptied) and grown\n"
          "      fifo:PATH    a FIFO (made if missing); waits for the reader\n"
          "      unix:PATH    listen on a Unix socket, write to the first client\n"
          "      tcp:PORT     listen on 127.0.0.1:PORT (0: any free port), first client\n"
          "options:\n"
          "  --chunk MIN-MAX   chunk sizes in bytes, uniform at random (default 1-4096)\n"
          "  --rate BYTES      bytes per second (default: no limit)\n"
          "  --pause MS        pause MS milliseconds ...\n"
          "  --pause-every N   ... after every N chunks\n"
          "  --cut BYTES       stop after this many bytes (a stream cut short)\n"
          "  --seed S          random seed (default 1)\n"
          "  --delay MS        wait MS before opening DEST (a program starting late)\n"
          "  --port-file F     write the TCP port listened on to F\n", f);
}

/* xorshift64*: deterministic for a seed. */
static uint64_t
replay_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * UINT64_C(2685821657736338717);
}

static void
replay_sleep_ms(uint64_t ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static uint64_t
replay_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
replay_fail(const char *what, const char *arg)
{
    fprintf(stderr, "elog-replay: %s %s: %s\n", what, arg, strerror(errno));
    return -1;
}

/* Listen, accept one client, stop listening. -1 on failure (printed). */
static int
replay_accept(int lfd, const char *dest)
{
    if (listen(lfd, 1) != 0)
        return replay_fail("cannot listen on", dest);
    int fd;
    do
        fd = accept(lfd, NULL, NULL);
    while (fd < 0 && errno == EINTR);
    if (fd < 0)
        replay_fail("cannot accept on", dest);
    close(lfd);
    return fd;
}

static int
replay_open_unix(const char *path, const char *dest)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof sa.sun_path) {
        fprintf(stderr, "elog-replay: socket path too long: %s\n", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    unlink(path);
    int lfd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0)
        return replay_fail("cannot bind", dest);
    int fd = replay_accept(lfd, dest);
    unlink(path);
    return fd;
}

static int
replay_open_tcp(const char *port, const char *dest, const char *port_file)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)atoi(port));
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    if (lfd < 0)
        return replay_fail("cannot make a socket for", dest);
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 1) != 0)
        return replay_fail("cannot listen on", dest);
    socklen_t len = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &len);
    if (port_file) {
        /* Written whole then renamed, so a reader never sees half a number. */
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%u\n", (unsigned)ntohs(sa.sin_port)) < 0 || fclose(f) != 0 ||
            rename(tmp, port_file) != 0)
            return replay_fail("cannot write", port_file);
    }
    return replay_accept(lfd, dest);
}

static int
replay_open(const replay_opts *o)
{
    const char *d = o->dest;
    if (strcmp(d, "-") == 0)
        return STDOUT_FILENO;
    if (strncmp(d, "file:", 5) == 0) {
        int fd = open(d + 5, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        return fd < 0 ? replay_fail("cannot open", d) : fd;
    }
    if (strncmp(d, "fifo:", 5) == 0) {
        if (mkfifo(d + 5, 0600) != 0 && errno != EEXIST)
            return replay_fail("cannot make", d);
        int fd = open(d + 5, O_WRONLY);
        return fd < 0 ? replay_fail("cannot open", d) : fd;
    }
    if (strncmp(d, "unix:", 5) == 0)
        return replay_open_unix(d + 5, d);
    if (strncmp(d, "tcp:", 4) == 0)
        return replay_open_tcp(d + 4, d, o->port_file);
    fprintf(stderr, "elog-replay: unknown destination %s\n", d);
    return -1;
}

static bool
replay_parse_range(const char *s, size_t *lo, size_t *hi)
{
    char *end;
    unsigned long long a = strtoull(s, &end, 10), b = a;
    if (*end == '-')
        b = strtoull(end + 1, &end, 10);
    if (*end || a == 0 || b < a)
        return false;
    *lo = (size_t)a;
    *hi = (size_t)b;
    return true;
}

static int
replay_args(int argc, char **argv, replay_opts *o)
{
    static const struct option longs[] = {
        { "chunk", required_argument, NULL, 'c' },  { "rate", required_argument, NULL, 'r' },
        { "pause", required_argument, NULL, 'p' },  { "pause-every", required_argument, NULL, 'e' },
        { "cut", required_argument, NULL, 'x' },    { "seed", required_argument, NULL, 's' },
        { "delay", required_argument, NULL, 'd' },  { "port-file", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },         { NULL, 0, NULL, 0 },
    };
    *o = (replay_opts){ .chunk_min = 1, .chunk_max = 4096, .cut = UINT64_MAX, .seed = 1 };
    int c;
    while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (!replay_parse_range(optarg, &o->chunk_min, &o->chunk_max)) {
                fprintf(stderr, "elog-replay: --chunk wants MIN-MAX, at least 1\n");
                return 1;
            }
            break;
        case 'r': o->rate = strtoull(optarg, NULL, 10); break;
        case 'p': o->pause_ms = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'e': o->pause_every = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'x': o->cut = strtoull(optarg, NULL, 10); break;
        case 's': o->seed = strtoull(optarg, NULL, 10) | 1; break;
        case 'd': o->delay_ms = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'f': o->port_file = optarg; break;
        case 'h': replay_usage(stdout); return 2;
        default: replay_usage(stderr); return 1;
        }
    }
    if (argc - optind != 2) {
        replay_usage(stderr);
        return 1;
    }
    o->in_path = argv[optind];
    o->dest = argv[optind + 1];
    return 0;
}

int
main(int argc, char **argv)
{
    replay_opts o;
    int a = replay_args(argc, argv, &o);
    if (a)
        return a == 2 ? 0 : 2;
    signal(SIGPIPE, SIG_IGN);
    FILE *in = fopen(o.in_path, "rb");
    if (!in) {
        fprintf(stderr, "elog-replay: cannot open %s: %s\n", o.in_path, strerror(errno));
        return 1;
    }
    if (o.delay_ms)
        replay_sleep_ms(o.delay_ms);
    int fd = replay_open(&o);
    if (fd < 0)
        return 1;
    uint8_t *buf = malloc(o.chunk_max);
    if (!buf)
        return 1;
    uint64_t sent = 0, rng = o.seed, t0 = replay_now_ns();
    unsigned chunks = 0;
    int status = 0;
    while (sent < o.cut) {
        size_t want = o.chunk_min + (size_t)(replay_rand(&rng) % (o.chunk_max - o.chunk_min + 1));
        if (want > o.cut - sent)
            want = (size_t)(o.cut - sent);
        size_t n = fread(buf, 1, want, in);
        if (n == 0)
            break;
        for (size_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, n - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                fprintf(stderr, "elog-replay: writing to %s: %s\n", o.dest, strerror(errno));
                status = 1;
                goto done;
            }
            off += (size_t)w;
        }
        sent += n;
        chunks++;
        if (o.rate) {
            uint64_t due = t0 + sent * 1000000000u / o.rate, now = replay_now_ns();
            if (due > now)
                replay_sleep_ms((due - now) / 1000000u);
        }
        if (o.pause_every && chunks % o.pause_every == 0 && o.pause_ms)
            replay_sleep_ms(o.pause_ms);
    }
done:
    free(buf);
    fclose(in);
    if (fd != STDOUT_FILENO)
        close(fd);
    return status;
}
