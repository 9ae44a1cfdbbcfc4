/* ipe: info-table provenance entries, read from IPE events, kept in one text arena
 * and sorted by address for lookup (see ipe.h). */
#include "ipe.h"

#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "strbuf.h"
#include "xalloc.h"

#define IPE_N_TEXTS 6

/* An entry before sealing: texts as offsets into the arena, which may still move. */
typedef struct ipe_raw {
    uint64_t info;
    uint32_t seq;                       /* file order, to keep the first of duplicates */
    size_t text[IPE_N_TEXTS];
} ipe_raw;

struct ipe_table {
    ipe_raw *raw;                       /* owned */
    size_t n_raw, cap_raw;
    strbuf arena;                       /* owned: NUL-terminated texts back to back */
    ipe_entry *entries;                 /* owned; built by seal, pointers into arena */
    size_t n_entries;
};

/* GHC's closure types by number (rts/include/rts/storage/ClosureTypes.h); the numbering
 * has been the same since CONSTR_NOCAF came in (8.6), CONTINUATION and ANN_FRAME being
 * added at the end later. */
static const char *const ipe_closure_types[] = {
    "INVALID_OBJECT", "CONSTR", "CONSTR_1_0", "CONSTR_0_1", "CONSTR_2_0", "CONSTR_1_1",
    "CONSTR_0_2", "CONSTR_NOCAF", "FUN", "FUN_1_0", "FUN_0_1", "FUN_2_0", "FUN_1_1",
    "FUN_0_2", "FUN_STATIC", "THUNK", "THUNK_1_0", "THUNK_0_1", "THUNK_2_0", "THUNK_1_1",
    "THUNK_0_2", "THUNK_STATIC", "THUNK_SELECTOR", "BCO", "AP", "PAP", "AP_STACK", "IND",
    "IND_STATIC", "RET_BCO", "RET_SMALL", "RET_BIG", "RET_FUN", "UPDATE_FRAME",
    "CATCH_FRAME", "UNDERFLOW_FRAME", "STOP_FRAME", "BLOCKING_QUEUE", "BLACKHOLE",
    "MVAR_CLEAN", "MVAR_DIRTY", "TVAR", "ARR_WORDS", "MUT_ARR_PTRS_CLEAN",
    "MUT_ARR_PTRS_DIRTY", "MUT_ARR_PTRS_FROZEN_DIRTY", "MUT_ARR_PTRS_FROZEN_CLEAN",
    "MUT_VAR_CLEAN", "MUT_VAR_DIRTY", "WEAK", "PRIM", "MUT_PRIM", "TSO", "STACK",
    "TREC_CHUNK", "ATOMICALLY_FRAME", "CATCH_RETRY_FRAME", "CATCH_STM_FRAME", "WHITEHOLE",
    "SMALL_MUT_ARR_PTRS_CLEAN", "SMALL_MUT_ARR_PTRS_DIRTY",
    "SMALL_MUT_ARR_PTRS_FROZEN_DIRTY", "SMALL_MUT_ARR_PTRS_FROZEN_CLEAN", "COMPACT_NFDATA",
    "CONTINUATION", "ANN_FRAME",
};

ipe_table *
ipe_table_new(void)
{
    return xcalloc(1, sizeof(ipe_table));   /* caller frees with ipe_table_free */
}

void
ipe_table_free(ipe_table *t)
{
    if (!t)
        return;
    x_free(t->raw);
    strbuf_free(&t->arena);
    x_free(t->entries);
    x_free(t);
}

static size_t
ipe_text_add(ipe_table *t, const uint8_t *p, size_t n)
{
    size_t at = t->arena.len;
    strbuf_append(&t->arena, p, n);
    strbuf_putc(&t->arena, '\0');
    return at;
}

bool
ipe_table_add(ipe_table *t, const uint8_t *payload, size_t len)
{
    cursor c;
    cursor_init(&c, payload, len);
    uint64_t info = cursor_u64(&c);
    const uint8_t *s[IPE_N_TEXTS];
    size_t n[IPE_N_TEXTS];
    for (int i = 0; i < IPE_N_TEXTS; i++)
        if (!cursor_cstr(&c, &s[i], &n[i]))
            return false;
    if (c.failed)
        return false;
    xgrowarray((void **)&t->raw, &t->cap_raw, t->n_raw + 1, 16, sizeof *t->raw);
    ipe_raw *r = &t->raw[t->n_raw];
    r->info = info;
    r->seq = (uint32_t)t->n_raw;
    for (int i = 0; i < IPE_N_TEXTS; i++)
        r->text[i] = ipe_text_add(t, s[i], n[i]);
    t->n_raw++;
    return true;
}

static int
ipe_raw_cmp(const void *a, const void *b)
{
    const ipe_raw *x = a, *y = b;
    if (x->info != y->info)
        return x->info < y->info ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
ipe_table_seal(ipe_table *t)
{
    if (t->n_raw > 1)
        qsort(t->raw, t->n_raw, sizeof *t->raw, ipe_raw_cmp);
    x_free(t->entries);
    t->entries = xmalloc((t->n_raw + 1) * sizeof *t->entries);  /* owned by t */
    t->n_entries = 0;
    for (size_t i = 0; i < t->n_raw; i++) {
        const ipe_raw *r = &t->raw[i];
        if (t->n_entries && t->entries[t->n_entries - 1].info == r->info)
            continue;
        ipe_entry *e = &t->entries[t->n_entries++];
        e->info = r->info;
        e->table_name = t->arena.data + r->text[0];
        e->closure_desc = t->arena.data + r->text[1];
        e->ty_desc = t->arena.data + r->text[2];
        e->label = t->arena.data + r->text[3];
        e->module = t->arena.data + r->text[4];
        e->src_loc = t->arena.data + r->text[5];
    }
}

bool
ipe_table_empty(const ipe_table *t)
{
    return t->n_raw == 0;
}

size_t
ipe_table_count(const ipe_table *t)
{
    return t->n_entries;
}

const ipe_entry *
ipe_table_at(const ipe_table *t, size_t i)
{
    return i < t->n_entries ? &t->entries[i] : NULL;
}

const ipe_entry *
ipe_table_find(const ipe_table *t, uint64_t info)
{
    size_t lo = 0, hi = t->n_entries;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->entries[mid].info < info)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_entries && t->entries[lo].info == info ? &t->entries[lo] : NULL;
}

size_t
ipe_table_bytes(const ipe_table *t)
{
    return sizeof *t + t->cap_raw * sizeof *t->raw + t->arena.cap +
           t->n_entries * sizeof *t->entries;
}

const char *
ipe_closure_type_name(const char *desc)
{
    if (!desc || !*desc || strlen(desc) > 3)
        return NULL;
    unsigned v = 0;
    for (const char *p = desc; *p; p++) {
        if (*p < '0' || *p > '9')
            return NULL;
        v = v * 10 + (unsigned)(*p - '0');
    }
    return v < sizeof ipe_closure_types / sizeof ipe_closure_types[0] ? ipe_closure_types[v]
                                                                     : NULL;
}

bool
ipe_parse_address(const uint8_t *p, size_t n, uint64_t *out)
{
    if (n < 3 || n > 18 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
        return false;
    uint64_t v = 0;
    for (size_t i = 2; i < n; i++) {
        unsigned d;
        if (p[i] >= '0' && p[i] <= '9')
            d = (unsigned)(p[i] - '0');
        else if (p[i] >= 'a' && p[i] <= 'f')
            d = (unsigned)(p[i] - 'a' + 10);
        else if (p[i] >= 'A' && p[i] <= 'F')
            d = (unsigned)(p[i] - 'A' + 10);
        else
            return false;
        v = (v << 4) | d;
    }
    *out = v;
    return true;
}
