/* fuzz_keys_tickit: libFuzzer target for the tickit backend's key decoding — any bytes
 * typed into a TickitMockTerm through the same gate as a real terminal's input
 * (termio_seq.c) and libtermkey behind it, in reads of varying size. Must hold: every
 * event is well formed, libtermkey never has to be rebuilt (the gate reads keys as it
 * does), and after the input goes quiet a typed `q` comes out as the key "q" — the
 * viewer can always be quit, whatever was typed before. */
#include <stdlib.h>
#include <string.h>

#include "../ui/termio_int.h"
#include "../ui/termio_mock.h"
#include "keymap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Take every queued event; the last key's name into last (may be NULL). */
static void
fuzz_drain(termio *t, char *last)
{
    termio_event ev;
    while (termio_poll(t, 0, &ev)) {
        if (ev.kind != TERMIO_EV_KEY)
            continue;
        size_t n = strnlen(ev.key, sizeof ev.key);
        if (n == 0 || n == sizeof ev.key)
            abort();            /* a key with no name, or one not terminated */
        for (int m = 0; m < MODE__COUNT; m++)
            (void)keymap_lookup((keymap_mode)m, ev.key);
        (void)keymap_key_text(ev.key);
        if (last)
            memcpy(last, ev.key, n + 1);
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    termio *t = termio_open_mock(80, 24, NULL);
    /* The first byte sets the size of the reads the rest arrives in. */
    size_t chunk = size ? (size_t)(data[0] % 64) + 1 : 1;
    for (size_t off = 1; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        termio_mock_input(t, (const char *)data + off, n);
        fuzz_drain(t, NULL);
    }
    termio_mock_advance(t, TERMIO_SEQ_DELAY_MS);
    fuzz_drain(t, NULL);
    char last[TERMIO_KEY_MAX] = "";
    termio_mock_input(t, "q", 1);
    fuzz_drain(t, last);
    if (strcmp(last, "q") != 0 || termio_mock_termkey_resets(t) != 0)
        abort();
    termio_free(t);
    return 0;
}
