/* fuzz_keys_tickit: libFuzzer target for the tickit backend's key decoding — any bytes
 * typed into a TickitMockTerm through the same gate as a real terminal's input
 * (termio_seq.c) and libtermkey behind it, in reads of varying size. Must hold: every
 * event is well formed, libtermkey never has to be rebuilt (the gate reads keys as it
 * does), and after the input goes quiet a typed `q` comes out as the key "q" — the
 * viewer can always be quit, whatever was typed before. */
#include <stdlib.h>
#include <string.h>

#include "../ui/termio_int.h"
#include "fuzz_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    termio *t = termio_open_mock(80, 24, NULL);
    /* The first byte sets the size of the reads the rest arrives in. */
    size_t chunk = size ? (size_t)(data[0] % 64) + 1 : 1;
    for (size_t off = 1; off < size; off += chunk) {
        size_t n = size - off < chunk ? size - off : chunk;
        termio_mock_input(t, (const char *)data + off, n);
        fuzz_keys_drain(t, 0, NULL);
    }
    termio_mock_advance(t, TERMIO_SEQ_DELAY_MS);
    fuzz_keys_drain(t, 0, NULL);
    char last[TERMIO_KEY_MAX] = "";
    termio_mock_input(t, "q", 1);
    fuzz_keys_drain(t, 0, last);
    if (strcmp(last, "q") != 0 || termio_mock_termkey_resets(t) != 0)
        abort();
    termio_free(t);
    return 0;
}
