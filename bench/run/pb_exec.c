#include "pb_exec.h"

#include <stdlib.h>
#include <string.h>

static char *off(void *p, uint64_t elems, pb_dtype_t t)
{
    return (char *)p + elems * pb_dtype_size(t);
}

int pb_bufs_alloc(pb_group_t *g, uint64_t bytes, pb_bufs_t *b, pb_err_t *err)
{
    const pb_mem_ops_t *ops = g->be->mem;
    memset(b, 0, sizeof *b);
    b->bytes = bytes;
    b->a2av = calloc(4u * (size_t)g->size, sizeof *b->a2av);
    if (b->a2av == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for all-to-all-v counts");
    if (ops->alloc(g->be, bytes, &b->send, err) != PB_OK ||
        ops->alloc(g->be, bytes, &b->recv, err) != PB_OK) {
        pb_bufs_free(g, b);
        return err->code;
    }
    return PB_OK;
}

void pb_bufs_free(pb_group_t *g, pb_bufs_t *b)
{
    /* a graph captured on these buffers must not outlive them: a replay
     * (or the graph's own teardown) would touch freed device memory */
    if (pb_backend_has(g->be, PB_CAP_GRAPH) && (b->send || b->recv))
        g->be->comm->graph_release(g);
    if (b->send)
        g->be->mem->free(g->be, b->send);
    if (b->recv)
        g->be->mem->free(g->be, b->recv);
    free(b->a2av);
    memset(b, 0, sizeof *b);
}

/* Elements rank `src` sends to `dst` when destination 0 is hot: it gets
 * imbalance/n of every sender's total, the rest is spread evenly (the
 * remainder to the lowest destinations), so every sender's counts add up
 * to its total and every receiver gets the same count from each sender. */
static uint64_t hot_share(uint64_t total, int n, double imb, int dst)
{
    uint64_t hot = (uint64_t)((double)total * imb / (double)n);
    if (hot > total)
        hot = total;
    if (n == 1)
        return total;
    if (dst == 0)
        return hot;
    uint64_t rest = total - hot, k = (uint64_t)(n - 1);
    return rest / k + ((uint64_t)(dst - 1) < rest % k ? 1u : 0u);
}

static void alltoallv_hot(int n, int rank, uint64_t total, double imb, uint64_t *sc, uint64_t *sd,
                          uint64_t *rc, uint64_t *rd)
{
    uint64_t so = 0, ro = 0;
    for (int d = 0; d < n; d++) {
        sc[d] = hot_share(total, n, imb, d);
        sd[d] = so;
        so += sc[d];
        rc[d] = hot_share(total, n, imb, rank);
        rd[d] = ro;
        ro += rc[d];
    }
}

void pb_op_partners(const pb_op_t *op, const pb_group_t *g, int *to, int *from)
{
    *to = op->p2p ? op->to : (g->rank + 1) % g->size;
    *from = op->p2p ? op->from : (g->rank + g->size - 1) % g->size;
}

uint64_t pb_op_buffer_bytes(const pb_op_t *op, int n)
{
    if (op->coll == PB_ALLTOALLV && op->imbalance > 1.0) {
        uint64_t esz = pb_dtype_size(op->dtype), total = op->bytes / esz;
        return (uint64_t)n * hot_share(total, n, op->imbalance, 0) * esz + op->bytes;
    }
    return op->bytes;
}

int pb_op_setup(pb_op_t *op, const pb_group_t *g, pb_bufs_t *b, pb_err_t *err)
{
    uint64_t gran = pb_coll_granule(op->coll, g->size, op->dtype);
    if (op->bytes % gran != 0)
        return pb_err_set(err, PB_EINPUT, "size %llu B is not a multiple of %llu B, as %s of %s on %d ranks needs",
                          (unsigned long long)op->bytes, (unsigned long long)gran,
                          pb_coll_name(op->coll), pb_dtype_name(op->dtype), g->size);
    if (pb_op_buffer_bytes(op, g->size) > b->bytes)
        return pb_err_set(err, PB_ERUNTIME, "size %llu B exceeds the %llu B buffers",
                          (unsigned long long)op->bytes, (unsigned long long)b->bytes);
    if (pb_coll_rooted(op->coll) && op->root >= g->size)
        return pb_err_set(err, PB_EINPUT, "root %d is not a rank of a %d-rank group", op->root,
                          g->size);
    op->geom = pb_coll_geom(op->coll, g->size, op->dtype, op->bytes);
    if (op->coll == PB_ALLTOALLV) {
        size_t n = (size_t)g->size;
        if (op->imbalance > 1.0)
            alltoallv_hot(g->size, g->rank, op->geom.count, op->imbalance, b->a2av, b->a2av + n,
                          b->a2av + 2 * n, b->a2av + 3 * n);
        else
            pb_alltoallv_skewed(g->size, g->rank, op->geom.count, b->a2av, b->a2av + n,
                                b->a2av + 2 * n, b->a2av + 3 * n);
    }
    return PB_OK;
}

/* The two sides as this rank's call sees them: out of place the send and
 * receive buffers; in place the send buffer alone, each side at its
 * offset in it (core/pb_coll.h: pb_coll_in_place_offsets). */
typedef struct io {
    char *send;
    char *recv;
    /* all-to-all-v: send counts, send displs, recv counts, recv displs */
    const uint64_t *a2av;
} io_t;

static io_t io_of(const pb_group_t *g, const pb_op_t *op, const pb_bufs_t *b)
{
    io_t io = {b->send, b->recv, b->a2av};
    if (op->in_place) {
        pb_coll_offsets_t o = pb_coll_in_place_offsets(op->coll, g->rank, &op->geom);
        io.send = off(b->send, o.send, op->dtype);
        io.recv = off(b->send, o.recv, op->dtype);
    }
    return io;
}

/* One block of a side, with the data it holds: an input before the run,
 * an output after it. */
typedef struct region {
    char *buf;
    uint64_t count;
    pb_expect_t e;
} region_t;

static pb_expect_t expect_move(pb_dtype_t t, int src, int dst, int n)
{
    pb_expect_t e = {PB_EXPECT_PATTERN, pb_check_move_base(src, dst, n), pb_check_move_q(t),
                     PB_SUM, n, n};
    return e;
}

static pb_expect_t expect_reduced(const pb_op_t *op, int n, uint64_t first_global)
{
    pb_redparams_t p = pb_check_redparams(op->dtype, op->redop, n);
    pb_expect_t e = {PB_EXPECT_REDUCED, first_global, p.q, op->redop, n, p.active};
    return e;
}

/* Per collective, what pb_exec does with it, as nccl-tests has a runColl
 * and an initData per collective: `run` issues it once; `blocks` lists
 * this rank's input blocks (in = 1: what the fill writes) or its output
 * blocks (in = 0: what the check expects), at most n of either, and
 * returns how many. */
typedef struct coll_exec {
    int (*run)(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err);
    int (*blocks)(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in, region_t *r);
} coll_exec_t;

static int run_allreduce(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->allreduce(g, io->send, io->recv, op->geom.count, op->dtype, op->redop,
                                 err);
}

static int run_allgather(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->allgather(g, io->send, io->recv, op->geom.block, op->dtype, err);
}

static int run_reducescatter(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->reduce_scatter(g, io->send, io->recv, op->geom.block, op->dtype, op->redop,
                                      err);
}

static int run_alltoall(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->alltoall(g, io->send, io->recv, op->geom.block, op->dtype, err);
}

static int run_alltoallv(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    size_t n = (size_t)g->size;
    return g->be->comm->alltoallv(g, io->send, io->a2av, io->a2av + n, io->recv, io->a2av + 2 * n,
                                 io->a2av + 3 * n, op->dtype, err);
}

static int run_broadcast(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->broadcast(g, io->send, op->geom.count, op->dtype, op->root, err);
}

static int run_reduce(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    return g->be->comm->reduce(g, io->send, io->recv, op->geom.count, op->dtype, op->redop,
                              op->root, err);
}

static int run_sendrecv(pb_group_t *g, const pb_op_t *op, const io_t *io, pb_err_t *err)
{
    int to, from;
    pb_op_partners(op, g, &to, &from);
    return g->be->comm->sendrecv(g, io->send, to, io->recv, from, op->geom.count, op->dtype, err);
}

/* all-reduce, reduce, reduce-scatter: every rank's whole send side is its
 * share of the reduction; the receive side holds the reduced whole, or
 * the rank's block of it (reduce-scatter), on every rank or on the root */
static int reduced_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                          region_t *r)
{
    const pb_coll_geom_t *gm = &op->geom;
    int n = g->size, me = g->rank;
    if (in) {
        r[0] = (region_t){io->send, gm->send_count, expect_reduced(op, n, 0)};
        return 1;
    }
    if (pb_coll_rooted(op->coll) && me != op->root)
        return 0;
    int block = (pb_coll_desc(op->coll)->flags & PB_CF_RECV_BLOCK) != 0;
    r[0] = (region_t){io->recv, gm->recv_count,
                      expect_reduced(op, n, block ? (uint64_t)me * gm->block : 0)};
    return 1;
}

/* all-gather: one block out, every rank's block back */
static int allgather_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                            region_t *r)
{
    uint64_t blk = op->geom.block;
    pb_dtype_t t = op->dtype;
    int n = g->size;
    if (in) {
        r[0] = (region_t){io->send, blk, expect_move(t, g->rank, 0, n)};
        return 1;
    }
    for (int s = 0; s < n; s++)
        r[s] = (region_t){off(io->recv, (uint64_t)s * blk, t), blk, expect_move(t, s, 0, n)};
    return n;
}

/* all-to-all: block p goes to rank p, block p comes from rank p */
static int alltoall_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                           region_t *r)
{
    uint64_t blk = op->geom.block;
    pb_dtype_t t = op->dtype;
    int n = g->size, me = g->rank;
    for (int p = 0; p < n; p++)
        r[p] = (region_t){off(in ? io->send : io->recv, (uint64_t)p * blk, t), blk,
                          in ? expect_move(t, me, p, n) : expect_move(t, p, me, n)};
    return n;
}

/* all-to-all-v: the same, at the counts and displacements of io->a2av */
static int alltoallv_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                            region_t *r)
{
    size_t nn = (size_t)g->size;
    const uint64_t *count = io->a2av + (in ? 0 : 2 * nn), *displ = count + nn;
    pb_dtype_t t = op->dtype;
    int n = g->size, me = g->rank;
    for (int p = 0; p < n; p++)
        r[p] = (region_t){off(in ? io->send : io->recv, displ[p], t), count[p],
                          in ? expect_move(t, me, p, n) : expect_move(t, p, me, n)};
    return n;
}

/* broadcast: the root's buffer, on every rank afterwards */
static int broadcast_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                            region_t *r)
{
    if (in && g->rank != op->root)
        return 0;
    r[0] = (region_t){io->send, op->geom.count, expect_move(op->dtype, op->root, 0, g->size)};
    return 1;
}

/* send/recv: to the partner, from the other one (an open chain's ends
 * send or receive nothing) */
static int sendrecv_blocks(const pb_group_t *g, const pb_op_t *op, const io_t *io, int in,
                           region_t *r)
{
    int to, from, me = g->rank;
    pb_op_partners(op, g, &to, &from);
    if (!in && from < 0)
        return 0;
    r[0] = (region_t){in ? io->send : io->recv, op->geom.count,
                      in ? expect_move(op->dtype, me, to < 0 ? 0 : to, g->size)
                         : expect_move(op->dtype, from, me, g->size)};
    return 1;
}

static const coll_exec_t exec[PB_COLL_COUNT] = {
    [PB_ALLREDUCE] = {run_allreduce, reduced_blocks},
    [PB_ALLGATHER] = {run_allgather, allgather_blocks},
    [PB_REDUCESCATTER] = {run_reducescatter, reduced_blocks},
    [PB_ALLTOALL] = {run_alltoall, alltoall_blocks},
    [PB_ALLTOALLV] = {run_alltoallv, alltoallv_blocks},
    [PB_BROADCAST] = {run_broadcast, broadcast_blocks},
    [PB_REDUCE] = {run_reduce, reduced_blocks},
    [PB_SENDRECV] = {run_sendrecv, sendrecv_blocks},
};

int pb_op_run(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    if ((unsigned)op->coll >= PB_COLL_COUNT)
        return pb_err_set(err, PB_ERUNTIME, "unknown collective");
    io_t io = io_of(g, op, b);
    return exec[op->coll].run(g, op, &io, err);
}

/* One side's blocks (allocated: n regions at most), or NULL with err set. */
static region_t *side(const pb_group_t *g, const pb_op_t *op, const pb_bufs_t *b, int in, int *k,
                      pb_err_t *err)
{
    region_t *r = malloc((size_t)g->size * sizeof *r);
    if (r == NULL) {
        pb_err_set(err, PB_ERUNTIME, "out of memory for verification");
        return NULL;
    }
    io_t io = io_of(g, op, b);
    *k = exec[op->coll].blocks(g, op, &io, in, r);
    return r;
}

/* Writes an input block's data: the pattern of moved data, or this rank's
 * share of a reduction. */
static int fill_block(pb_group_t *g, const pb_op_t *op, const region_t *r, pb_err_t *err)
{
    const pb_mem_ops_t *ops = g->be->mem;
    if (r->count == 0)
        return PB_OK;
    if (r->e.kind == PB_EXPECT_REDUCED) {
        pb_redparams_t p = {r->e.q, r->e.active};
        return ops->fill_red(g, r->buf, r->count, op->dtype, p, g->rank, r->e.base, err);
    }
    return ops->fill(g, r->buf, r->count, op->dtype, r->e.base, r->e.q, err);
}

int pb_op_fill(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    int k = 0, code = PB_OK;
    region_t *in = side(g, op, b, 1, &k, err);
    if (in == NULL)
        return err->code;
    for (int i = 0; i < k && code == PB_OK; i++)
        code = fill_block(g, op, &in[i], err);
    free(in);
    return code;
}

/* Outputs start as all-ones bytes: NaN in every float type and -1 in
 * every integer type, a value no expected result ever takes, so an output
 * the operation never wrote is always caught.  Runs before pb_op_fill,
 * which then rewrites the outputs that are inputs too (in place). */
static int poison_outputs(pb_group_t *g, const pb_op_t *op, const region_t *out, int k,
                          pb_err_t *err)
{
    uint64_t esz = pb_dtype_size(op->dtype);
    for (int i = 0; i < k; i++)
        if (out[i].count && g->be->mem->poison(g, out[i].buf, out[i].count * esz, err))
            return err->code;
    return PB_OK;
}

/* The first non-empty output's first element, made wrong. */
static int corrupt_one(pb_group_t *g, const pb_op_t *op, const region_t *out, int k,
                       pb_err_t *err)
{
    for (int i = 0; i < k; i++) {
        if (out[i].count == 0)
            continue;
        uint64_t v = pb_expect_value(&out[i].e, 0);
        return g->be->mem->poke(g, out[i].buf, 0, op->dtype, v ? v - 1 : 1, err);
    }
    return PB_OK;
}

/* This rank's wrong elements in the outputs as they are now. */
static int check_outputs(pb_group_t *g, const pb_op_t *op, const region_t *out, int k,
                         int corrupt, uint64_t *wrong, pb_err_t *err)
{
    *wrong = 0;
    if (g->be->comm->sync(g, err) || (corrupt && corrupt_one(g, op, out, k, err)))
        return err->code;
    for (int i = 0; i < k; i++) {
        uint64_t w = 0;
        if (g->be->mem->check(g, out[i].buf, out[i].count, op->dtype, &out[i].e, &w, err))
            return err->code;
        *wrong += w;
    }
    return PB_OK;
}

int pb_op_verify(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, int corrupt, uint64_t *wrong,
                 pb_err_t *err)
{
    int k = 0;
    region_t *out = side(g, op, b, 0, &k, err);
    if (out == NULL)
        return err->code;
    *wrong = 0;
    int code = PB_OK;
    if (poison_outputs(g, op, out, k, err) || pb_op_fill(g, op, b, err) ||
        pb_op_run(g, op, b, err) || check_outputs(g, op, out, k, corrupt, wrong, err))
        code = err->code;
    free(out);
    return code;
}

int pb_op_repeatable(const pb_op_t *op)
{
    /* in place, a reduction or an all-to-all rewrites its own input; a
     * broadcast's root and an all-gather's own block are only read */
    return !op->in_place || op->coll == PB_BROADCAST || op->coll == PB_ALLGATHER;
}

int pb_op_prepare(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    int k = 0;
    region_t *out = side(g, op, b, 0, &k, err);
    if (out == NULL)
        return err->code;
    int code = poison_outputs(g, op, out, k, err) || pb_op_fill(g, op, b, err) ? err->code : PB_OK;
    free(out);
    return code;
}

int pb_op_check(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, int corrupt, uint64_t *wrong,
                pb_err_t *err)
{
    int k = 0;
    region_t *out = side(g, op, b, 0, &k, err);
    if (out == NULL)
        return err->code;
    int code = check_outputs(g, op, out, k, corrupt, wrong, err);
    free(out);
    return code;
}

int pb_pattern_backend_op(const pb_pat_op_t *r, const pb_group_t *g, pb_op_t *op)
{
    memset(op, 0, sizeof *op);
    op->coll = r->coll;
    op->dtype = r->dtype;
    op->redop = PB_SUM;
    uint64_t gran = pb_coll_granule(op->coll, g->size, op->dtype);
    op->bytes = r->bytes - r->bytes % gran;
    if (op->bytes == 0)
        op->bytes = gran;
    op->imbalance = r->imbalance;
    return op->bytes != r->bytes;
}

void pb_pattern_peers(pb_p2p_t d, int me, int n, int *to, int *from)
{
    switch (d) {
    case PB_P2P_NEXT:
        *to = me + 1 < n ? me + 1 : -1;
        *from = me > 0 ? me - 1 : -1;
        return;
    case PB_P2P_PREV:
        *to = me > 0 ? me - 1 : -1;
        *from = me + 1 < n ? me + 1 : -1;
        return;
    case PB_P2P_RING_NEXT:
        *to = (me + 1) % n;
        *from = (me + n - 1) % n;
        return;
    case PB_P2P_RING_PREV:
        *to = (me + n - 1) % n;
        *from = (me + 1) % n;
        return;
    case PB_P2P_NONE:
        break;
    }
    *to = *from = -1;
}
