/* fuzz_keys_curses: libFuzzer target for the curses backend's key decoding — any bytes
 * written into a pipe that ncursesw reads as an xterm-256color keyboard, renamed to
 * libtickit names by termio_curses.c. Must hold: every event is well formed, and a `q`
 * typed after the input comes out as the key "q" (at the second try: see below). One
 * ncurses screen serves every input (ncurses cannot be started and stopped cheaply). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static termio *fuzz_t;
static int fuzz_wfd = -1;

/* ncurses may say "no key" at a zero timeout while bytes wait in the pipe: poll 5 ms. */
static void
fuzz_drain(char *last)
{
    fuzz_keys_drain(fuzz_t, 5, last);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!fuzz_t) {
        int p[2];
        int out = open("/dev/null", O_WRONLY);
        if (pipe(p) != 0 || out < 0)
            abort();
        fuzz_wfd = p[1];
        fcntl(fuzz_wfd, F_SETFL, O_NONBLOCK);
        fuzz_t = termio_open_curses_fds(p[0], out, "xterm-256color", NULL, 0);
        if (!fuzz_t)
            abort();
    }
    /* In pieces the pipe can hold, each read before the next is written. */
    for (size_t off = 0; off < size;) {
        size_t n = size - off < 4096 ? size - off : 4096;
        ssize_t w = write(fuzz_wfd, data + off, n);
        if (w <= 0)
            abort();
        off += (size_t)w;
        fuzz_drain(NULL);
    }
    fuzz_drain(NULL);
    /* A partial UTF-8 character left at the end takes the next byte with it (ncurses
     * then reports nothing for both): one key may be lost, never more. */
    char last[TERMIO_KEY_MAX] = "";
    for (int tries = 0; tries < 2 && strcmp(last, "q") != 0; tries++) {
        if (write(fuzz_wfd, "q", 1) != 1)
            abort();
        fuzz_drain(last);
    }
    if (strcmp(last, "q") != 0)
        abort();
    return 0;
}
