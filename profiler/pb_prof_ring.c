#include "pb_prof_ring.h"

#include <stdlib.h>

pb_prof_ring_t *pb_prof_ring_new(size_t cap)
{
    size_t c = 2;
    while (c < cap)
        c <<= 1;
    pb_prof_ring_t *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->rec = calloc(c, sizeof *r->rec);
    if (r->rec == NULL) {
        free(r);
        return NULL;
    }
    r->mask = c - 1;
    atomic_init(&r->head, 0);
    atomic_init(&r->tail, 0);
    atomic_init(&r->dropped, 0);
    return r;
}

void pb_prof_ring_free(pb_prof_ring_t *r)
{
    if (r == NULL)
        return;
    free(r->rec);
    free(r);
}

int pb_prof_ring_push(pb_prof_ring_t *r, const pb_prof_rec_t *rec)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (h - t > r->mask) {
        atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
        return 0;
    }
    r->rec[h & r->mask] = *rec;
    atomic_store_explicit(&r->head, h + 1, memory_order_release);
    return 1;
}

size_t pb_prof_ring_pop(pb_prof_ring_t *r, pb_prof_rec_t *out, size_t n)
{
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint64_t h = atomic_load_explicit(&r->head, memory_order_acquire);
    size_t k = 0;
    for (; k < n && t + k < h; k++)
        out[k] = r->rec[(t + k) & r->mask];
    atomic_store_explicit(&r->tail, t + k, memory_order_release);
    return k;
}
