#include "pb_exec.h"

#include <stdlib.h>
#include <string.h>

static char *off(void *p, uint64_t elems, pb_dtype_t t)
{
    return (char *)p + elems * pb_dtype_size(t);
}

int pb_bufs_alloc(pb_group_t *g, uint64_t bytes, pb_bufs_t *b, pb_err_t *err)
{
    const pb_backend_ops_t *ops = g->be->ops;
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
    if (g->be->ops->graph_release && (b->send || b->recv))
        g->be->ops->graph_release(g);
    if (b->send)
        g->be->ops->free(g->be, b->send);
    if (b->recv)
        g->be->ops->free(g->be, b->recv);
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

int pb_op_run(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    const pb_backend_ops_t *ops = g->be->ops;
    const pb_coll_geom_t *gm = &op->geom;
    pb_dtype_t t = op->dtype;
    size_t n = (size_t)g->size;
    switch (op->coll) {
    case PB_ALLREDUCE:
        return ops->allreduce(g, b->send, op->in_place ? b->send : b->recv, gm->count, t,
                              op->redop, err);
    case PB_ALLGATHER:
        return ops->allgather(g, op->in_place ? off(b->recv, (uint64_t)g->rank * gm->block, t)
                                              : b->send,
                              b->recv, gm->block, t, err);
    case PB_REDUCESCATTER:
        return ops->reduce_scatter(g, b->send,
                                   op->in_place ? off(b->send, (uint64_t)g->rank * gm->block, t)
                                                : b->recv,
                                   gm->block, t, op->redop, err);
    case PB_ALLTOALL:
        return ops->alltoall(g, b->send, op->in_place ? b->send : b->recv, gm->block, t, err);
    case PB_ALLTOALLV:
        return ops->alltoallv(g, b->send, b->a2av, b->a2av + n, b->recv, b->a2av + 2 * n,
                              b->a2av + 3 * n, t, err);
    case PB_BROADCAST:
        return ops->broadcast(g, b->send, gm->count, t, op->root, err);
    case PB_REDUCE:
        return ops->reduce(g, b->send, op->in_place ? b->send : b->recv, gm->count, t,
                           op->redop, op->root, err);
    case PB_SENDRECV: {
        int to, from;
        pb_op_partners(op, g, &to, &from);
        return ops->sendrecv(g, b->send, to, b->recv, from, gm->count, t, err);
    }
    case PB_COLL_COUNT:
        break;
    }
    return pb_err_set(err, PB_ERUNTIME, "unknown collective");
}

/* Moved data: block (src -> dst) holds the pattern of that pair. */
static int fill_move(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, int src, int dst,
                     pb_err_t *err)
{
    return g->be->ops->fill(g, buf, count, t, pb_check_move_base(src, dst, g->size),
                            pb_check_move_q(t), err);
}

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

int pb_op_fill(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    const pb_backend_ops_t *ops = g->be->ops;
    const pb_coll_geom_t *gm = &op->geom;
    pb_dtype_t t = op->dtype;
    int n = g->size, me = g->rank;
    size_t nn = (size_t)n;
    switch (op->coll) {
    case PB_ALLREDUCE:
    case PB_REDUCE:
    case PB_REDUCESCATTER:
        return ops->fill_red(g, b->send, gm->send_count, t,
                             pb_check_redparams(t, op->redop, n), me, 0, err);
    case PB_ALLGATHER:
        return fill_move(g, op->in_place ? off(b->recv, (uint64_t)me * gm->block, t) : b->send,
                         gm->block, t, me, 0, err);
    case PB_ALLTOALL:
        for (int d = 0; d < n; d++)
            if (fill_move(g, off(b->send, (uint64_t)d * gm->block, t), gm->block, t, me, d, err))
                return err->code;
        return PB_OK;
    case PB_ALLTOALLV:
        for (size_t d = 0; d < nn; d++)
            if (fill_move(g, off(b->send, b->a2av[nn + d], t), b->a2av[d], t, me, (int)d, err))
                return err->code;
        return PB_OK;
    case PB_BROADCAST:
        return fill_move(g, b->send, gm->count, t, op->root, 0, err);
    case PB_SENDRECV:
    {
        int to, from;
        pb_op_partners(op, g, &to, &from);
        return fill_move(g, b->send, gm->count, t, me, to < 0 ? 0 : to, err);
    }
    case PB_COLL_COUNT:
        break;
    }
    return PB_OK;
}

/* The region(s) this rank checks after the operation, with what each
 * must hold.  At most n regions (one per sending peer). */
typedef struct region {
    const void *buf;
    uint64_t count;
    pb_expect_t e;
} region_t;

static int regions(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, region_t *r)
{
    const pb_coll_geom_t *gm = &op->geom;
    pb_dtype_t t = op->dtype;
    int n = g->size, me = g->rank, k = 0;
    size_t nn = (size_t)n;
    switch (op->coll) {
    case PB_ALLREDUCE:
        r[k++] = (region_t){op->in_place ? b->send : b->recv, gm->count, expect_reduced(op, n, 0)};
        break;
    case PB_REDUCE:
        if (me == op->root)
            r[k++] = (region_t){op->in_place ? b->send : b->recv, gm->count,
                                expect_reduced(op, n, 0)};
        break;
    case PB_REDUCESCATTER:
        r[k++] = (region_t){op->in_place ? off(b->send, (uint64_t)me * gm->block, t) : b->recv,
                            gm->block, expect_reduced(op, n, (uint64_t)me * gm->block)};
        break;
    case PB_ALLGATHER:
        for (int s = 0; s < n; s++)
            r[k++] = (region_t){off(b->recv, (uint64_t)s * gm->block, t), gm->block,
                                expect_move(t, s, 0, n)};
        break;
    case PB_ALLTOALL:
        for (int s = 0; s < n; s++)
            r[k++] = (region_t){off(op->in_place ? b->send : b->recv, (uint64_t)s * gm->block, t),
                                gm->block, expect_move(t, s, me, n)};
        break;
    case PB_ALLTOALLV:
        for (size_t s = 0; s < nn; s++)
            r[k++] = (region_t){off(b->recv, b->a2av[3 * nn + s], t), b->a2av[2 * nn + s],
                                expect_move(t, (int)s, me, n)};
        break;
    case PB_BROADCAST:
        r[k++] = (region_t){b->send, gm->count, expect_move(t, op->root, 0, n)};
        break;
    case PB_SENDRECV: {
        int to, from;
        pb_op_partners(op, g, &to, &from);
        if (from >= 0) /* an open chain's first rank receives nothing */
            r[k++] = (region_t){b->recv, gm->count, expect_move(t, from, me, n)};
        break;
    }
    case PB_COLL_COUNT:
        break;
    }
    return k;
}

/* Outputs that are not also inputs start as all-ones bytes: NaN in every
 * float type and -1 in every integer type, a value no expected result
 * ever takes, so an output the operation never wrote is always caught.
 * Runs after pb_op_fill, so it must spare every input. */
static int poison_outputs(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err)
{
    const pb_backend_ops_t *ops = g->be->ops;
    pb_dtype_t t = op->dtype;
    uint64_t esz = pb_dtype_size(t);
    const pb_coll_geom_t *gm = &op->geom;
    switch (op->coll) {
    case PB_ALLREDUCE:
    case PB_REDUCE:
    case PB_REDUCESCATTER:
    case PB_ALLTOALL:
        return op->in_place ? PB_OK : ops->poison(g, b->recv, gm->recv_count * esz, err);
    case PB_ALLGATHER:
        for (int s = 0; s < g->size; s++)
            if (!(op->in_place && s == g->rank) &&
                ops->poison(g, off(b->recv, (uint64_t)s * gm->block, t), gm->block * esz, err))
                return err->code;
        return PB_OK;
    case PB_ALLTOALLV:
    case PB_SENDRECV:
        return ops->poison(g, b->recv, gm->recv_count * esz, err);
    case PB_BROADCAST:
        return g->rank == op->root ? PB_OK : ops->poison(g, b->send, gm->count * esz, err);
    case PB_COLL_COUNT:
        break;
    }
    return PB_OK;
}

int pb_op_verify(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, int corrupt, uint64_t *wrong,
                 pb_err_t *err)
{
    const pb_backend_ops_t *ops = g->be->ops;
    region_t *r = malloc((size_t)g->size * sizeof *r);
    if (r == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for verification");
    *wrong = 0;
    int code = PB_OK;
    if (pb_op_fill(g, op, b, err) || poison_outputs(g, op, b, err) || pb_op_run(g, op, b, err) ||
        ops->sync(g, err)) {
        code = err->code;
        goto out;
    }
    int k = regions(g, op, b, r);
    if (corrupt) {
        /* the first non-empty region's first element, made wrong */
        for (int i = 0; i < k; i++) {
            if (r[i].count == 0)
                continue;
            uint64_t v = pb_expect_value(&r[i].e, 0);
            if (ops->poke(g, (void *)(uintptr_t)r[i].buf, 0, op->dtype, v ? v - 1 : 1, err)) {
                code = err->code;
                goto out;
            }
            break;
        }
    }
    for (int i = 0; i < k; i++) {
        uint64_t w = 0;
        if (ops->check(g, r[i].buf, r[i].count, op->dtype, &r[i].e, &w, err)) {
            code = err->code;
            goto out;
        }
        *wrong += w;
    }
out:
    free(r);
    return code;
}
