/* termio_seq: the byte gate in front of libtermkey (tickit backend). libtermkey 0.22
 * keeps input in a 256-byte buffer and waits for the end of any escape sequence it has
 * begun; a longer one (a CSI with hundreds of parameter bytes, an OSC without its ST)
 * fills the buffer for good and input stops. Here bytes are cut into the units
 * libtermkey itself would read, only whole units of bounded length are passed on, and
 * longer or abandoned sequences are dropped. Pure: time is given by the caller. */
#include <string.h>

#include "termio_int.h"

#define SEQ_ESC 0x1b

/* How a unit starting at some offset looks so far. */
typedef enum seq_state {
    SEQ_WHOLE,          /* complete: `len` bytes */
    SEQ_PARTIAL,        /* runs to the end of the buffer and may go on */
} seq_state;

/* Introducers libtermkey's CSI driver reads (ESC + byte, or the C1 byte). */
typedef enum seq_kind {
    SEQ_PLAIN, SEQ_CSI, SEQ_SS3, SEQ_STRING,
    SEQ_UNSAFE,         /* a whole CSI libtermkey must not see (seq_csi_safe) */
} seq_kind;

void
termio_seq_init(termio_seq *q, bool utf8)
{
    memset(q, 0, sizeof *q);
    q->utf8 = utf8;
}

size_t
termio_seq_room(const termio_seq *q)
{
    return sizeof q->buf - q->len;
}

void
termio_seq_feed(termio_seq *q, const void *bytes, size_t n, int64_t now_ms)
{
    size_t room = termio_seq_room(q);
    if (n > room) {
        q->dropped += n - room;     /* callers read at most the room; never expected */
        n = room;
    }
    memcpy(q->buf + q->len, bytes, n);
    q->len += n;
    if (n)
        q->last_ms = now_ms;
}

/* The kind of sequence introduced at b[0] (n bytes available), and its introducer's
 * length; SEQ_PLAIN when b[0] starts none. n >= 1. */
static seq_kind
seq_intro(const unsigned char *b, size_t n, size_t *intro)
{
    *intro = 1;
    switch (b[0]) {
    case 0x9b: return SEQ_CSI;
    case 0x8f: return SEQ_SS3;
    case 0x90: case 0x9d: return SEQ_STRING;
    case SEQ_ESC:
        if (n < 2)
            return SEQ_PLAIN;
        *intro = 2;
        switch (b[1]) {
        case '[': return SEQ_CSI;
        case 'O': return SEQ_SS3;
        case 'P': case ']': return SEQ_STRING;
        default: break;
        }
        *intro = 1;
        return SEQ_PLAIN;
    default: return SEQ_PLAIN;
    }
}

/* A CSI's parameters as libtermkey 0.22's parse_csi reads p[0..n): its argument count,
 * its first argument, how many ';' it stores and the initial ('<'..'?') and
 * intermediate (0x20..0x2f) bytes it folds into the command. */
typedef struct seq_csi {
    int args;
    long arg0;
    int semicolons;
    unsigned char initial, intermediate;
} seq_csi;

static seq_csi
seq_csi_parse(const unsigned char *p, size_t n)
{
    seq_csi c = { 0, -1, 0, 0, 0 };
    size_t i = 0;
    bool present = false;
    if (n > 0 && p[0] >= '<' && p[0] <= '?')
        c.initial = p[i++];
    for (; i < n; i++) {
        if (p[i] >= '0' && p[i] <= '9') {
            if (c.args == 0)
                c.arg0 = (present ? (c.arg0 > 99999 ? 99999 : c.arg0) * 10 : 0) + (p[i] - '0');
            present = true;
        } else if (p[i] == ';') {
            present = false;
            c.semicolons++;
            if (++c.args > 16)
                break;
        } else if (p[i] >= 0x20 && p[i] <= 0x2f) {
            c.intermediate = p[i];
            break;
        }
    }
    c.args += present ? 1 : 0;
    return c;
}

/* An X10 mouse report as libtermkey reads one: command exactly 'M' (no initial or
 * intermediate byte) with fewer than 3 arguments; three raw bytes follow it. */
static bool
seq_csi_x10(const unsigned char *body, size_t n)
{
    seq_csi c = seq_csi_parse(body, n);
    return !c.initial && !c.intermediate && c.args < 3;
}

/* Whether libtermkey 0.22 can read this CSI without touching memory it does not own:
 * its cursor-key handler indexes a 64-entry table by the whole command, initial and
 * intermediate bytes included (ESC [ SP A reads far out of bounds and crashes); its
 * parser stores a 17th argument past its 16-element array; ESC [ 27 ~ reads a third
 * argument that may not be there. */
static bool
seq_csi_safe(const unsigned char *body, size_t n, unsigned char final)
{
    seq_csi c = seq_csi_parse(body, n);
    if (c.semicolons >= 15)
        return false;
    if (strchr("ABCDEFHPQRSZ", final) && (c.initial || c.intermediate) &&
        !(final == 'R' && c.initial == '?' && !c.intermediate))
        return false;
    if (final == '~' && c.arg0 == 27 && c.args < 3)
        return false;
    return true;
}

/* The unit at b[0..n): its state and length. `kind` tells what it is (for dropping a
 * partial one); `esc_run` counts the ESC bytes it starts with. */
static seq_state
seq_unit(const termio_seq *q, const unsigned char *b, size_t n, size_t *len, seq_kind *kind,
         size_t *esc_run)
{
    /* ESC before anything that is not an introducer is Alt + the unit after it. */
    size_t k = 0, intro;
    *esc_run = 0;
    for (;;) {
        if (b[k] != SEQ_ESC)
            break;
        if (k + 1 == n) {
            *kind = SEQ_PLAIN;
            *esc_run = k + 1;
            *len = n;
            return SEQ_PARTIAL;
        }
        if (seq_intro(b + k, n - k, &intro) != SEQ_PLAIN)
            break;
        k++;
        *esc_run = k;
    }
    *kind = seq_intro(b + k, n - k, &intro);
    size_t body = k + intro;
    switch (*kind) {
    case SEQ_CSI: {
        size_t e = body;
        while (e < n && !(b[e] >= 0x40 && b[e] < 0x80))
            e++;
        if (e == n) {
            *len = n;
            return SEQ_PARTIAL;
        }
        size_t end = e + 1;
        if (!seq_csi_safe(b + body, e - body, b[e]))
            *kind = SEQ_UNSAFE;
        else if (b[e] == 'M' && seq_csi_x10(b + body, e - body)) {
            end += 3;           /* X10 mouse: three raw bytes follow */
            if (end > n) {
                *len = n;
                return SEQ_PARTIAL;
            }
        }
        *len = end;
        return SEQ_WHOLE;
    }
    case SEQ_SS3:
        if (body == n) {
            *len = n;
            return SEQ_PARTIAL;
        }
        if (b[body] >= 0x40 && b[body] < 0x80) {
            *len = body + 1;
            *kind = SEQ_PLAIN;
        } else {
            /* Not an SS3 key: libtermkey reads the introducer alone (Alt-O, or the C1
             * byte) only once it sees the byte after it, which may be dropped; so
             * drop the introducer too. */
            *len = body;
            *kind = SEQ_UNSAFE;
        }
        return SEQ_WHOLE;
    case SEQ_STRING:
        for (size_t e = body; e < n; e++) {
            if (b[e] == 0x9c || b[e] == 0x07) {
                *len = e + 1;
                return SEQ_WHOLE;
            }
            if (b[e] == SEQ_ESC && e + 1 < n && b[e + 1] == '\\') {
                *len = e + 2;
                return SEQ_WHOLE;
            }
        }
        *len = n;
        return SEQ_PARTIAL;
    case SEQ_PLAIN:
    case SEQ_UNSAFE:
        break;
    }
    /* One character: C0, C1 and ASCII bytes alone; in UTF-8 a lead byte and the
     * continuation bytes that follow it (libtermkey stops at the first that is not). */
    unsigned char c = b[k];
    size_t want = 1;
    if (q->utf8 && c >= 0xc0)
        want = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf8 ? 4 : c < 0xfc ? 5 : c < 0xfe ? 6 : 1;
    size_t e = k + 1;
    while (e < k + want) {
        if (e == n) {
            *len = n;
            return SEQ_PARTIAL;
        }
        if (b[e] < 0x80 || b[e] >= 0xc0) {
            /* Cut short: libtermkey makes it U+FFFD once it sees the next byte, which
             * may be dropped; noise either way, so drop it here. */
            *kind = SEQ_UNSAFE;
            break;
        }
        e++;
    }
    *len = e;
    return SEQ_WHOLE;
}

/* Drop bytes of an overlong sequence already being skipped; true when the skip ends
 * (its last byte seen) within the buffer. */
static bool
seq_skip(termio_seq *q, size_t *pos)
{
    for (; *pos < q->len; (*pos)++) {
        unsigned char c = q->buf[*pos];
        if (q->skip == TERMIO_SEQ_SKIP_CSI && c >= 0x40 && c < 0x80) {
            (*pos)++;
            return true;
        }
        if (q->skip == TERMIO_SEQ_SKIP_STRING) {
            if (c == 0x9c || c == 0x07 || (q->skip_esc && c == '\\')) {
                (*pos)++;
                return true;
            }
            q->skip_esc = c == SEQ_ESC;
        }
    }
    return false;
}

size_t
termio_seq_take(termio_seq *q, unsigned char *out, size_t max, int64_t now_ms,
                size_t *n_escapes)
{
    *n_escapes = 0;
    bool idle = q->len > 0 || q->skip ? now_ms - q->last_ms >= TERMIO_SEQ_DELAY_MS : false;
    size_t pos = 0, n_out = 0;
    if (q->skip) {
        size_t from = pos;
        bool done = seq_skip(q, &pos);
        q->dropped += pos - from;
        if (done || idle)
            q->skip = TERMIO_SEQ_SKIP_NONE;     /* the sender finished or went quiet */
    }
    while (!q->skip && pos < q->len) {
        size_t len;
        seq_kind kind;
        size_t esc_run;
        seq_state st = seq_unit(q, q->buf + pos, q->len - pos, &len, &kind, &esc_run);
        if (st == SEQ_PARTIAL) {
            if (len > TERMIO_SEQ_MAX) {
                /* Too long to be a key: skip the rest of it as it arrives. */
                if (kind == SEQ_CSI || kind == SEQ_STRING) {
                    q->skip = kind == SEQ_CSI ? TERMIO_SEQ_SKIP_CSI : TERMIO_SEQ_SKIP_STRING;
                    q->skip_esc = q->buf[q->len - 1] == SEQ_ESC;
                    q->dropped += len;
                    pos += len;
                } else {
                    /* A run of ESC bytes before a key: keep the last ones. */
                    q->dropped += len - TERMIO_SEQ_MAX;
                    pos += len - TERMIO_SEQ_MAX;
                }
                continue;
            }
            if (!idle)
                break;          /* wait for the rest */
            /* Abandoned: ESC bytes alone were Escape presses; anything else is noise. */
            if (esc_run == len)
                *n_escapes = len;
            else
                q->dropped += len;
            pos += len;
            break;
        }
        /* A whole unit: dropped if too long, unsafe, or a control string (only
         * libtickit's start-up queries have answers as strings, and it reads those
         * itself), else passed on. */
        if (len > TERMIO_SEQ_MAX || kind == SEQ_UNSAFE || kind == SEQ_STRING) {
            q->dropped += len;
            pos += len;
            continue;
        }
        if (n_out > 0 && n_out + len > max)
            break;
        memcpy(out + n_out, q->buf + pos, len);
        n_out += len;
        pos += len;
    }
    memmove(q->buf, q->buf + pos, q->len - pos);
    q->len -= pos;
    return n_out;
}

int
termio_seq_timeout_ms(const termio_seq *q, int64_t now_ms)
{
    if (q->len == 0 && !q->skip)
        return -1;
    int64_t left = q->last_ms + TERMIO_SEQ_DELAY_MS - now_ms;
    return left < 0 ? 0 : (int)left;
}

bool
termio_seq_ready(const termio_seq *q)
{
    if (q->skip || q->len == 0)
        return false;
    size_t len, esc_run;
    seq_kind kind;
    return seq_unit(q, q->buf, q->len, &len, &kind, &esc_run) == SEQ_WHOLE;
}
