#include "pb_prof_events.h"

#include <stdio.h>
#include <string.h>

#define SLOT_TRIES 64 /* slots looked at before an operation goes unrecorded */
/* The generation bits an operation's handle carries: the slot address's
 * free low bits (PB_PROF_OP_ALIGN) but bit 0, which marks a channel */
#define TAG_MASK ((uint32_t)(PB_PROF_OP_ALIGN - 1) >> 1)
#define HOLDERS(h) ((uint32_t)(h))
#define GEN(h) ((uint32_t)((h) >> 32))

/* The slot a handle (an operation's or a channel's) points into. */
static pb_prof_op_t *op_of(void *handle)
{
    return (pb_prof_op_t *)((uintptr_t)handle & ~(uintptr_t)(PB_PROF_OP_ALIGN - 1));
}

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

/* Fills a taken slot and makes it the operation's; its handle. */
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
        atomic_store(&c->op_rank, ev->rank >= 0 ? ev->rank : -1);
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
    r->t_enq0 = pb_prof_now();
    /* a new generation: a late channel of the slot's last operation
     * (its handle has the old one) is told apart from this one's */
    uint32_t gen = GEN(atomic_load_explicit(&op->hold, memory_order_relaxed)) + 1;
    atomic_store_explicit(&op->hold, (uint64_t)gen << 32 | (1u + (op->nexpect > 0)),
                          memory_order_release);
    *handle = (void *)((uintptr_t)op | (uintptr_t)(gen & TAG_MASK) << 1);
}

/* A hold on the operation whose handle is `parent`, for one of its
 * kernel channels; NULL when that operation no longer holds the slot.
 * NCCL reports channels after the operation's stop (that stop means
 * "enqueued"), so with API v3, or no channel count, the operation is
 * complete and its slot free, maybe another's, by then: such a channel
 * is not followed, rather than revive a freed slot (recording the
 * operation twice) or join the slot's next operation.  Tags repeat
 * after TAG_MASK + 1 generations: a channel that late would have to
 * come PB_PROF_SLOTS * 128 operations after its own. */
static pb_prof_op_t *hold_op(void *parent)
{
    if (parent == NULL || ((uintptr_t)parent & 1))
        return NULL;
    pb_prof_op_t *op = op_of(parent);
    uint32_t tag = (uint32_t)((uintptr_t)parent >> 1) & TAG_MASK;
    uint64_t h = atomic_load_explicit(&op->hold, memory_order_acquire);
    do {
        if (HOLDERS(h) == 0 || (GEN(h) & TAG_MASK) != tag)
            return NULL;
    } while (!atomic_compare_exchange_weak_explicit(&op->hold, &h, h + 1, memory_order_acq_rel,
                                                    memory_order_acquire));
    return op;
}

void pb_prof_start(pb_prof_ctx_t *c, void **handle, const pb_prof_ev_t *ev)
{
    *handle = NULL;
    if (c == NULL)
        return;
    if (ev->type == PB_NCCL_PROF_COLL || ev->type == PB_NCCL_PROF_P2P) {
        if (atomic_load_explicit(&c->active, memory_order_relaxed) &&
            !(c->paused && atomic_load_explicit(c->paused, memory_order_relaxed)))
            begin_op(c, handle, ev);
        return;
    }
    /* A kernel channel of an operation this plugin records: followed
     * even while paused, so that an operation recorded when it began is
     * completed - recorded, its slot freed - rather than lost with its
     * slot. */
    pb_prof_op_t *op = ev->type == PB_NCCL_PROF_KERNEL_CH ? hold_op(ev->parent) : NULL;
    if (op == NULL)
        return;
    atomic_fetch_add_explicit(&op->nkch, 1, memory_order_relaxed);
    amin(&op->k0, pb_prof_now());
    if (ev->has_ptimer)
        amin(&op->g0, ev->ptimer);
    *handle = (void *)((uintptr_t)op | 1);
}

/* The last holder completes the record, queues it, frees the slot. */
static void release(pb_prof_op_t *op)
{
    if (HOLDERS(atomic_fetch_sub_explicit(&op->hold, 1, memory_order_acq_rel)) != 1)
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
    pb_prof_op_t *op = op_of(handle);
    if ((uintptr_t)handle & 1) {
        amax(&op->k1, now);
        /* the channel that completes the count releases the completion's
         * hold, before its own */
        if (op->nexpect && atomic_fetch_add(&op->kdone, 1) + 1 == op->nexpect)
            release(op);
        release(op);
        return;
    }
    op->rec.t_enq1 = now;
    release(op);
}

void pb_prof_state(void *handle, int state, uint64_t ptimer, int has_ptimer)
{
    if (handle == NULL || !((uintptr_t)handle & 1) || state != PB_NCCL_PROF_KERNEL_CH_STOP ||
        !has_ptimer)
        return;
    amax(&op_of(handle)->g1, ptimer);
}
