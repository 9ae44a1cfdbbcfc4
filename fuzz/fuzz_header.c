/* fuzz_header: libFuzzer target for the header parser — evlog_open_bytes over any
 * bytes, then every query a reader makes of the event-type table and the first
 * events of the data (the iterator's view of the declared sizes). */
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "evlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag d;
    diag_clear(&d);
    evlog *log = evlog_open_bytes(data, size, &d);
    if (!log) {
        if (d.code == DIAG_OK || (d.offset != DIAG_NO_OFFSET && d.offset > size))
            __builtin_trap();   /* a failed open must say why, within the input */
        return 0;
    }
    if (evlog_data_start(log) > size)
        __builtin_trap();
    volatile uint64_t sink = 0;
    for (size_t i = 0; i < evlog_n_types(log); i++) {
        const evlog_type *t = evlog_type_at(log, i);
        /* The description is a slice of the input. */
        if (t->desc_len && (t->desc < data || t->desc + t->desc_len > data + size))
            __builtin_trap();
        for (uint32_t k = 0; k < t->desc_len; k++)
            sink += t->desc[k];
        if (evlog_type_of(log, t->id) == NULL)
            __builtin_trap();
    }
    for (uint32_t id = 0; id <= 0xffff; id += 97)
        sink += evlog_type_of(log, (uint16_t)id) != NULL;
    evlog_iter it;
    evlog_iter_init(&it, log);
    evlog_event ev;
    for (int n = 0; n < 64 && evlog_iter_next(&it, &ev); n++) {
        if (ev.offset + ev.size > size || ev.payload + ev.payload_len > data + size)
            __builtin_trap();
        sink += ev.time_ns + ev.cap;
        evlog_event again;
        if (!evlog_event_at(log, ev.offset, ev.cap, &again) || again.size != ev.size)
            __builtin_trap();
    }
    diag ending;
    evlog_iter_ending(&it, &ending);
    (void)sink;
    evlog_close(log);
    return 0;
}
