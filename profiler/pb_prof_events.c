#include "pb_prof_events.h"

#include <stdio.h>
#include <string.h>

#define SLOT_TRIES 64 /* slots looked at before an operation goes unrecorded */

static void amin(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t o = atomic_load_explicit(a, memory_order_relaxed);
    while (v < o && !atomic_compare_exchange_weak(a, &o, v))
        ;
}

static void amax(_Atomic uint64_t *a, uint64_t v)
{
    uint64_t o = atomic_load_explicit(a, memory_order_relaxed);
    while (v > o && !atomic_compare_exchange_weak(a, &o, v))
        ;
}

static pb_prof_op_t *take_slot(pb_prof_ctx_t *c)
{
    for (int k = 0; k < SLOT_TRIES; k++) {
        uint32_t i = atomic_fetch_add_explicit(&c->next_slot, 1, memory_order_relaxed) %
                     PB_PROF_SLOTS;
        int free_ = 0;
        if (atomic_compare_exchange_strong(&c->slot[i].used, &free_, 1))
            return &c->slot[i];
    }
    atomic_fetch_add_explicit(&c->slot_full, 1, memory_order_relaxed);
    return NULL;
}

static void put_str(char *dst, size_t len, const char *s)
{
    snprintf(dst, len, "%s", s ? s : "");
}

static void begin_op(pb_prof_ctx_t *c, void **handle, const pb_prof_ev_t *ev)
{
    uint64_t n = atomic_fetch_add_explicit(&c->nops, 1, memory_order_relaxed);
    if (n % c->every != 0)
        return;
    pb_prof_op_t *op = take_slot(c);
    if (op == NULL)
        return;
    pb_prof_rec_t *r = &op->rec;
    memset(r, 0, sizeof *r);
    r->kind = ev->type == PB_NCCL_PROF_COLL ? PB_PROF_REC_COLL : PB_PROF_REC_P2P;
    r->seq = ev->type == PB_NCCL_PROF_COLL
                 ? ev->seq
                 : atomic_fetch_add_explicit(&c->p2p_seq, 1, memory_order_relaxed);
    r->count = ev->count;
    r->peer = ev->peer;
    r->nchannels = (uint8_t)ev->nchannels;
    r->nwarps = (uint8_t)ev->nwarps;
    put_str(r->func, sizeof r->func, ev->func);
    put_str(r->dtype, sizeof r->dtype, ev->dtype);
    put_str(r->algo, sizeof r->algo, ev->algo);
    put_str(r->proto, sizeof r->proto, ev->proto);
    int unset = 0; /* v3: the communicator, from the first operation */
    if (ev->has_comm && atomic_compare_exchange_strong(&c->comm_set, &unset, 1)) {
        c->head.comm_id = ev->comm_hash;
        put_str(c->head.comm_name, sizeof c->head.comm_name, ev->comm_name);
    }
    op->ctx = c;
    atomic_store_explicit(&op->k0, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&op->g0, UINT64_MAX, memory_order_relaxed);
    atomic_store_explicit(&op->k1, 0, memory_order_relaxed);
    atomic_store_explicit(&op->g1, 0, memory_order_relaxed);
    atomic_store_explicit(&op->nkch, 0, memory_order_relaxed);
    atomic_store_explicit(&op->kdone, 0, memory_order_relaxed);
    /* A send or receive to this rank itself has no proxy operation, so
     * no kernel-channel events ever come for it (NCCL's enqueue.cc:
     * nProxyOps = selfSend ? 0 : 2): waiting for them would lose the
     * record and hold its slot for good, one per self-send of every
     * all-to-all issued as send/recv (PyTorch's all_to_all_single). */
    int self = ev->type == PB_NCCL_PROF_P2P && c->head.rank >= 0 && ev->peer == c->head.rank;
    op->nexpect = ev->wait_channels && ev->nchannels > 0 && !self ? (uint32_t)ev->nchannels : 0;
    atomic_store_explicit(&op->refs, 1 + (op->nexpect > 0), memory_order_release);
    r->t_enq0 = pb_prof_now();
    *handle = op;
}

void pb_prof_start(pb_prof_ctx_t *c, void **handle, const pb_prof_ev_t *ev)
{
    *handle = NULL;
    if (c == NULL || !atomic_load_explicit(&c->active, memory_order_relaxed) ||
        (c->paused && *c->paused))
        return;
    if (ev->type == PB_NCCL_PROF_COLL || ev->type == PB_NCCL_PROF_P2P) {
        begin_op(c, handle, ev);
        return;
    }
    /* a kernel channel of an operation this plugin records */
    if (ev->type != PB_NCCL_PROF_KERNEL_CH || ev->parent == NULL || ((uintptr_t)ev->parent & 1))
        return;
    pb_prof_op_t *op = ev->parent;
    atomic_fetch_add_explicit(&op->refs, 1, memory_order_acq_rel);
    atomic_fetch_add_explicit(&op->nkch, 1, memory_order_relaxed);
    amin(&op->k0, pb_prof_now());
    if (ev->has_ptimer)
        amin(&op->g0, ev->ptimer);
    *handle = (void *)((uintptr_t)op | 1);
}

/* The last holder completes the record, queues it, frees the slot. */
static void release(pb_prof_op_t *op)
{
    if (atomic_fetch_sub_explicit(&op->refs, 1, memory_order_acq_rel) != 1)
        return;
    pb_prof_ctx_t *c = op->ctx;
    pb_prof_rec_t r = op->rec;
    uint64_t k0 = atomic_load(&op->k0), g0 = atomic_load(&op->g0);
    r.t_k0 = k0 == UINT64_MAX ? 0 : k0;
    r.t_k1 = atomic_load(&op->k1);
    r.g0 = g0 == UINT64_MAX ? 0 : g0;
    r.g1 = atomic_load(&op->g1);
    uint32_t nk = atomic_load(&op->nkch);
    r.nkch = (uint8_t)(nk > 255 ? 255 : nk);
    atomic_store_explicit(&op->used, 0, memory_order_release);
    pb_prof_ring_t *ring = pb_prof_ctx_ring(c);
    if (ring == NULL)
        atomic_fetch_add_explicit(&c->no_ring, 1, memory_order_relaxed);
    else
        pb_prof_ring_push(ring, &r);
}

void pb_prof_stop(void *handle)
{
    if (handle == NULL)
        return;
    uint64_t now = pb_prof_now();
    if ((uintptr_t)handle & 1) {
        pb_prof_op_t *op = (pb_prof_op_t *)((uintptr_t)handle & ~(uintptr_t)1);
        amax(&op->k1, now);
        /* the channel that completes the count releases the completion's
         * hold, before its own */
        if (op->nexpect && atomic_fetch_add(&op->kdone, 1) + 1 == op->nexpect)
            release(op);
        release(op);
        return;
    }
    pb_prof_op_t *op = handle;
    op->rec.t_enq1 = now;
    release(op);
}

void pb_prof_state(void *handle, int state, uint64_t ptimer, int has_ptimer)
{
    if (handle == NULL || !((uintptr_t)handle & 1) || state != PB_NCCL_PROF_KERNEL_CH_STOP ||
        !has_ptimer)
        return;
    pb_prof_op_t *op = (pb_prof_op_t *)((uintptr_t)handle & ~(uintptr_t)1);
    amax(&op->g1, ptimer);
}
