/* p2p_batch of the MPI backend: every part posted as MPI_Isend/MPI_Irecv
 * at once, then one MPI_Waitall - torch.distributed.batch_isend_irecv on
 * the MPI backend.  In asynchronous mode the requests stay on the group's
 * pending list for sync() instead.
 *
 * A part larger than one call may carry (the chunk limit, INT_MAX
 * elements) becomes several messages with the same tag, posted in order
 * on both sides; MPI's non-overtaking rule (MPI 3.1, 3.5) matches the
 * sender's k-th piece with the receiver's k-th. */
#include "pb_mpi_priv.h"

/* Part tags 0..31 travel as P2P_TAG + tag: clear of the tags the
 * blocking point-to-point paths use on the same communicator (0: the
 * split all-to-all-v, 1: send-recv), so an asynchronous batch still in
 * flight never matches one of theirs. */
#define P2P_TAG 1024
#define P2P_TAGS 32

static int check_parts(const pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_err_t *err)
{
    if (n < 0)
        return pb_err_set(err, PB_ERUNTIME, "p2p batch of %d parts", n);
    for (int i = 0; i < n; i++) {
        if (ops[i].peer < 0 || ops[i].peer >= g->size)
            return pb_err_set(err, PB_ERUNTIME, "p2p part %d: peer %d outside the group of %d", i,
                              ops[i].peer, g->size);
        if (ops[i].tag < 0 || ops[i].tag >= P2P_TAGS)
            return pb_err_set(err, PB_ERUNTIME, "p2p part %d: tag %d outside 0..%d", i,
                              ops[i].tag, P2P_TAGS - 1);
        if (ops[i].count && ops[i].buf == NULL)
            return pb_err_set(err, PB_ERUNTIME, "p2p part %d: no buffer", i);
    }
    return PB_OK;
}

int pb_mpi_p2p_batch(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                     pb_err_t *err)
{
    if (check_parts(g, ops, n, err) != PB_OK)
        return err->code;
    MPI_Datatype dt = pb_mpi_datatype(t);
    size_t esz = pb_dtype_size(t);
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    for (int i = 0; i < n; i++) {
        const pb_p2p_part_t *p = &ops[i];
        /* an empty part posts nothing: both sides skip it alike */
        for (uint64_t off = 0; off < p->count;) {
            uint64_t k = p->count - off < ce ? p->count - off : ce;
            char *buf = (char *)p->buf + off * esz;
            pb_mpi_after_t *after;
            MPI_Request *rq = pb_mpi_pending_new(g, &after, err);
            if (rq == NULL)
                return err->code;
            int rc = p->send ? MPI_Isend(buf, (int)k, dt, p->peer, P2P_TAG + p->tag,
                                         pb_mpi_comm(g), rq)
                             : MPI_Irecv(buf, (int)k, dt, p->peer, P2P_TAG + p->tag,
                                         pb_mpi_comm(g), rq);
            if (rc != MPI_SUCCESS) {
                /* the parts already posted stay pending: sync() or
                 * group_free completes them, so no request leaks */
                *rq = MPI_REQUEST_NULL;
                return pb_mpi_fail(rc, p->send ? "MPI_Isend" : "MPI_Irecv", err);
            }
            off += k;
        }
    }
    /* Synchronous mode has nothing else pending (set_async(g, 0) waited
     * for it), so waiting for the whole list is waiting for this batch. */
    return pb_mpi_is_async(g) ? PB_OK : pb_mpi_pending_wait(g, err);
}
