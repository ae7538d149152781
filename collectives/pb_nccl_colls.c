/* pb_nccl_colls.c - the NCCL backend's collectives and point-to-point,
 * each issued on the group's stream (pb_nccl_priv.h).  Exchanges NCCL
 * has no single call for are one NCCL group of sends and receives. */
#include "pb_nccl_priv.h"

static ncclDataType_t nccl_type(pb_dtype_t t)
{
    switch (t) {
    case PB_F32:
        return ncclFloat32;
    case PB_F64:
        return ncclFloat64;
    case PB_F16:
        return ncclFloat16;
    case PB_BF16:
        return ncclBfloat16;
    case PB_I32:
        return ncclInt32;
    case PB_I8:
        return ncclInt8;
    case PB_I64:
        return ncclInt64;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    case PB_F8E4M3:
        return ncclFloat8e4m3;
    case PB_F8E5M2:
        return ncclFloat8e5m2;
#endif
    default:
        return ncclUint8; /* refused earlier by supports() */
    }
}

static ncclRedOp_t nccl_op(pb_redop_t op)
{
    return op == PB_MAX ? ncclMax : op == PB_MIN ? ncclMin : op == PB_AVG ? ncclAvg : ncclSum;
}

static size_t esize(pb_dtype_t t) { return pb_dtype_size(t); }

int pb_nccl_allreduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                      pb_redop_t op, pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib,
               lib->AllReduce(s, r, (size_t)n, nccl_type(t), nccl_op(op), gg->comm, gg->stream),
               "ncclAllReduce");
    return PB_OK;
}

int pb_nccl_allgather(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                      pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->AllGather(s, r, (size_t)n, nccl_type(t), gg->comm, gg->stream),
               "ncclAllGather");
    return PB_OK;
}

int pb_nccl_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                           pb_redop_t op, pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->ReduceScatter(s, r, (size_t)n, nccl_type(t), nccl_op(op), gg->comm,
                                   gg->stream),
               "ncclReduceScatter");
    return PB_OK;
}

static int p2p_pair(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t n,
                    pb_dtype_t t, pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    if (dst >= 0)
        PB_NCCL_OK(lib, lib->Send(s, (size_t)n, nccl_type(t), dst, gg->comm, gg->stream),
                   "ncclSend");
    if (src >= 0)
        PB_NCCL_OK(lib, lib->Recv(r, (size_t)n, nccl_type(t), src, gg->comm, gg->stream),
                   "ncclRecv");
    return PB_OK;
}

int pb_nccl_alltoall(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                     pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    if (lib->AlltoAll != NULL) {
        PB_NCCL_OK(lib, lib->AlltoAll(s, r, (size_t)n, nccl_type(t), gg->comm, gg->stream),
                   "ncclAlltoAll");
        return PB_OK;
    }
    /* a library before 2.28: the same exchange as one group of pairs */
    PB_NCCL_OK(lib, lib->GroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int p = 0; p < g->size && code == PB_OK; p++)
        code = p2p_pair(g, (const char *)s + (uint64_t)p * n * esize(t), p,
                        (char *)r + (uint64_t)p * n * esize(t), p, n, t, err);
    ncclResult_t rc = lib->GroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = pb_nccl_fail(lib, rc, "ncclGroupEnd", err);
    return code;
}

int pb_nccl_alltoallv(pb_group_t *g, const void *s, const uint64_t *sc, const uint64_t *sd,
                      void *r, const uint64_t *rcnt, const uint64_t *rd, pb_dtype_t t,
                      pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->GroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int p = 0; p < g->size && code == PB_OK; p++) {
        const char *sp = (const char *)s + sd[p] * esize(t);
        char *rp = (char *)r + rd[p] * esize(t);
        if (sc[p] && lib->Send(sp, (size_t)sc[p], nccl_type(t), p, gg->comm, gg->stream))
            code = pb_err_set(err, PB_ERUNTIME, "ncclSend to %d failed", p);
        if (code == PB_OK && rcnt[p] &&
            lib->Recv(rp, (size_t)rcnt[p], nccl_type(t), p, gg->comm, gg->stream))
            code = pb_err_set(err, PB_ERUNTIME, "ncclRecv from %d failed", p);
    }
    ncclResult_t rc = lib->GroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = pb_nccl_fail(lib, rc, "ncclGroupEnd", err);
    return code;
}

int pb_nccl_broadcast(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, int root,
                      pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib,
               lib->Broadcast(buf, buf, (size_t)n, nccl_type(t), root, gg->comm, gg->stream),
               "ncclBroadcast");
    return PB_OK;
}

int pb_nccl_reduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                   pb_redop_t op, int root, pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->Reduce(s, r, (size_t)n, nccl_type(t), nccl_op(op), root, gg->comm,
                            gg->stream),
               "ncclReduce");
    return PB_OK;
}

int pb_nccl_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t n,
                     pb_dtype_t t, pb_err_t *err)
{
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->GroupStart(), "ncclGroupStart");
    int code = p2p_pair(g, s, dst, r, src, n, t, err);
    ncclResult_t rc = lib->GroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = pb_nccl_fail(lib, rc, "ncclGroupEnd", err);
    return code;
}

/* One NCCL group of sends and receives in the caller's order: NCCL pairs
 * point-to-point operations between two ranks by issue order (it has no
 * tags), so the caller's agreed order is what pairs them.  size_t counts:
 * no splitting. */
int pb_nccl_p2p_batch(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                      pb_err_t *err)
{
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    for (int i = 0; i < n; i++)
        if (ops[i].peer < 0 || ops[i].peer >= g->size)
            return pb_err_set(err, PB_ERUNTIME, "p2p part %d: peer %d outside the group of %d",
                              i, ops[i].peer, g->size);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib, lib->GroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int i = 0; i < n && code == PB_OK; i++) {
        const pb_p2p_part_t *p = &ops[i];
        ncclResult_t rc =
            p->send ? lib->Send(p->buf, (size_t)p->count, nccl_type(t), p->peer, gg->comm,
                              gg->stream)
                    : lib->Recv(p->buf, (size_t)p->count, nccl_type(t), p->peer, gg->comm,
                              gg->stream);
        if (rc != ncclSuccess)
            code = pb_nccl_fail(lib, rc, p->send ? "ncclSend" : "ncclRecv", err);
    }
    /* the group is always closed, also after a failed part */
    ncclResult_t rc = lib->GroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = pb_nccl_fail(lib, rc, "ncclGroupEnd", err);
    return code;
}

int pb_nccl_barrier(pb_group_t *g, pb_err_t *err)
{
    /* a one-element all-reduce every rank must reach, then wait for it:
     * host and device of every rank are past the same point */
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    PB_NCCL_OK(lib,
               lib->AllReduce(gg->scratch, gg->scratch, 1, ncclUint64, ncclSum, gg->comm,
                              gg->stream),
               "ncclAllReduce (barrier)");
    return pb_nccl_wait(g, NULL, err);
}
