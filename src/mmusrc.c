/* mmusrc: stopped spans from the index's collection records, for mmu. */
#include "mmusrc.h"

#include "xalloc.h"

mmu_span *
mmusrc_spans(const evindex *ix, const mmusrc_opts *o, size_t *n)
{
    size_t n_gcs = evindex_n_gcs(ix), k = 0, cap = 0;
    mmu_span *v = NULL;
    for (size_t i = 0; i < n_gcs; i++) {
        if (!o->per_cap) {
            evindex_gc_brief b = evindex_gc_brief_at(ix, i);
            if (b.flags & EVINDEX_GC_F_NO_START)
                continue;
            void *p = v;
            xgrowarray(&p, &cap, k + 1, 64, sizeof *v);
            v = p;
            uint64_t s = o->with_stop && b.request_ns < b.start_ns ? b.request_ns : b.start_ns;
            v[k++] = (mmu_span){ s, b.end_ns };
            continue;
        }
        evindex_gc g_buf;
        const evindex_gc *g = evindex_gc_get(ix, i, &g_buf);
        for (uint32_t j = 0; j < g->n_parts; j++) {
            evindex_gc_part pt_buf;
            const evindex_gc_part *pt = evindex_gc_part_get(ix, g->first_part + j, &pt_buf);
            if (pt->cap != o->cap)
                continue;
            void *p = v;
            xgrowarray(&p, &cap, k + 1, 64, sizeof *v);
            v = p;
            uint64_t s = o->with_stop && pt->stop_ns < pt->start_ns ? pt->stop_ns
                                                                      : pt->start_ns;
            v[k++] = (mmu_span){ s, pt->end_ns };
        }
    }
    if (!v)
        v = xmalloc(sizeof *v);
    *n = k;
    return v;
}

mmu *
mmusrc_new(const evindex *ix, const mmusrc_opts *o, uint64_t from_ns, uint64_t to_ns)
{
    size_t n;
    mmu_span *v = mmusrc_spans(ix, o, &n);     /* freed below */
    mmu *m = mmu_new(v, n, from_ns, to_ns);
    x_free(v);
    return m;
}
