/* The collectives of the MPI backend.
 *
 * MPI 3.1 counts are int; parbench's are 64-bit.  Each call below is cut
 * into pieces of at most chunk_elems() elements.  Whole-buffer operations
 * (allreduce, broadcast, reduce, sendrecv) are cut at offsets; blocked
 * ones (allgather, alltoall) cut every block at the same offset and use a
 * datatype whose extent is one whole block, so one call still moves piece
 * `off` of every block; reduce-scatter packs its pieces (MPI's predefined
 * reductions are only defined on basic types); all-to-all-v falls back to
 * paired non-blocking sends.  Messages that fit take the plain call, so
 * the common case costs nothing extra.
 *
 * In asynchronous mode (set_async) all-reduce, all-gather, reduce-
 * scatter, broadcast and reduce - the collectives DDP buckets and
 * distributed optimizers issue - take their non-blocking forms (MPI_I*,
 * same pieces, same MPI_IN_PLACE use) and leave one request per piece on
 * the group's pending list for sync() or progress() to complete; whatever has
 * to happen after completion (the in-place reduce-scatter's move, freeing
 * a packed piece or a piece datatype) is recorded beside the request.
 * All-to-all, all-to-all-v and send-recv stay blocking even then: their
 * pieces reuse one request array and their split form is built from
 * point-to-point rounds, and no step issues them asynchronously (EP and
 * pipeline exchanges sit on the critical path; the pipeline's overlap
 * goes through p2p_batch).  Blocking and non-blocking collectives may mix
 * on one communicator: MPI matches collectives by issue order. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pb_mpi_priv.h"

#define CHECK_MPI(call, name)                                                          \
    do {                                                                               \
        int rc_ = (call);                                                              \
        if (rc_ != MPI_SUCCESS)                                                        \
            return pb_mpi_fail(rc_, name, err);                                        \
    } while (0)

uint64_t pb_mpi_chunk_elems(const pb_group_t *g, pb_dtype_t t)
{
    return pb_mpi_state(g)->chunk_elems[t];
}

/* A slot on the pending list for the next non-blocking call (NULL: out
 * of memory, err set); `started` records that call's outcome: a call
 * that failed leaves a null request, which the list drops. */
static MPI_Request *slot(pb_group_t *g, pb_mpi_after_t **after, pb_err_t *err)
{
    return pb_mpi_pending_new(g, after, err);
}

static int started(int rc, MPI_Request *rq, const char *name, pb_err_t *err)
{
    if (rc == MPI_SUCCESS)
        return PB_OK;
    *rq = MPI_REQUEST_NULL;
    return pb_mpi_fail(rc, name, err);
}

static const char *at(const void *p, uint64_t elems, pb_dtype_t t)
{
    return (const char *)p + elems * pb_dtype_size(t);
}

static char *at_mut(void *p, uint64_t elems, pb_dtype_t t)
{
    return (char *)p + elems * pb_dtype_size(t);
}

/* `k` elements of t, stretched to an extent of `stride` elements: one
 * piece of one block, the next block's piece one extent further on. */
static int piece_type(pb_dtype_t t, uint64_t k, uint64_t stride, MPI_Datatype *out,
                      pb_err_t *err)
{
    MPI_Datatype base;
    MPI_Aint esz = (MPI_Aint)pb_dtype_size(t);
    CHECK_MPI(MPI_Type_contiguous((int)k, pb_mpi_datatype(t), &base), "MPI_Type_contiguous");
    int rc = MPI_Type_create_resized(base, 0, (MPI_Aint)stride * esz, out);
    MPI_Type_free(&base);
    if (rc != MPI_SUCCESS)
        return pb_mpi_fail(rc, "MPI_Type_create_resized", err);
    CHECK_MPI(MPI_Type_commit(out), "MPI_Type_commit");
    return PB_OK;
}

int pb_mpi_allreduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_redop_t op, pb_err_t *err)
{
    MPI_Op mop;
    if (pb_mpi_op(pb_mpi_state(g), t, op, &mop, err) != PB_OK)
        return err->code;
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    int in_place = s == r;
    MPI_Datatype dt = pb_mpi_datatype(t);
    if (count <= ce && !pb_mpi_is_async(g)) {
        /* The common case, and the one latency mode times: every argument
         * is ready before the first mark, so that the marks hold the call
         * and nothing else, exactly as a plain loop's clock reads do (the
         * piece loop below costs a few ns, a few % of an 8 B all-reduce). */
        const void *sp = in_place ? MPI_IN_PLACE : s;
        MPI_Comm comm = pb_mpi_comm(g);
        pb_mpi_mark_begin(g);
        int rc = MPI_Allreduce(sp, r, (int)count, dt, mop, comm);
        pb_mpi_mark_end(g, PB_OK);
        return rc == MPI_SUCCESS ? PB_OK : pb_mpi_fail(rc, "MPI_Allreduce", err);
    }
    pb_mpi_mark_begin(g); /* the arguments are ready: the call is what is timed */
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        const void *sp = in_place ? MPI_IN_PLACE : at(s, off, t);
        if (!pb_mpi_is_async(g)) {
            CHECK_MPI(MPI_Allreduce(sp, at_mut(r, off, t), (int)k, dt, mop, pb_mpi_comm(g)),
                      "MPI_Allreduce");
            continue;
        }
        pb_mpi_after_t *after;
        MPI_Request *rq = slot(g, &after, err);
        if (rq == NULL ||
            started(MPI_Iallreduce(sp, at_mut(r, off, t), (int)k, pb_mpi_datatype(t), mop,
                                   pb_mpi_comm(g), rq),
                    rq, "MPI_Iallreduce", err) != PB_OK)
            return err->code;
    }
    return pb_mpi_mark_end(g, PB_OK);
}

int pb_mpi_allgather(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                     pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    MPI_Datatype dt = pb_mpi_datatype(t);
    int in_place = s == at(r, (uint64_t)g->rank * count, t);
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    int async = pb_mpi_is_async(g);
    pb_mpi_after_t *after;
    MPI_Request *rq;
    if (count <= ce) {
        const void *sp = in_place ? MPI_IN_PLACE : s;
        if (!async) {
            CHECK_MPI(MPI_Allgather(sp, (int)count, dt, r, (int)count, dt, pb_mpi_comm(g)),
                      "MPI_Allgather");
            return pb_mpi_mark_end(g, PB_OK);
        }
        if ((rq = slot(g, &after, err)) == NULL)
            return err->code;
        return started(MPI_Iallgather(sp, (int)count, dt, r, (int)count, dt, pb_mpi_comm(g), rq),
                       rq, "MPI_Iallgather", err);
    }
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        MPI_Datatype piece;
        if (piece_type(t, k, count, &piece, err) != PB_OK)
            return err->code;
        const void *sp = in_place ? MPI_IN_PLACE : at(s, off, t);
        if (!async) {
            int rc = MPI_Allgather(sp, (int)k, dt, at_mut(r, off, t), 1, piece, pb_mpi_comm(g));
            MPI_Type_free(&piece);
            if (rc != MPI_SUCCESS)
                return pb_mpi_fail(rc, "MPI_Allgather", err);
            continue;
        }
        /* the piece type lives until its request completes: MPI allows
         * freeing it earlier, but holding it costs nothing and trusts no
         * library's reference counting */
        if ((rq = slot(g, &after, err)) == NULL) {
            MPI_Type_free(&piece);
            return err->code;
        }
        after->type = piece;
        if (started(MPI_Iallgather(sp, (int)k, dt, at_mut(r, off, t), 1, piece, pb_mpi_comm(g),
                                   rq),
                    rq, "MPI_Iallgather", err) != PB_OK)
            return err->code;
    }
    return pb_mpi_mark_end(g, PB_OK);
}

/* Piece `off` (k elements) of every one of the group's blocks of
 * `count`, side by side in `pack`: what one reduce-scatter call of the
 * split form reduces.  The memory side copies (host or device). */
static int pack_piece(pb_group_t *g, char *pack, const void *s, uint64_t count, uint64_t off,
                      uint64_t k, pb_dtype_t t, pb_err_t *err)
{
    size_t esz = pb_dtype_size(t);
    for (uint64_t b = 0; b < (uint64_t)g->size; b++)
        if (g->be->mem->copy(g->be, pack + b * k * esz, at(s, b * count + off, t), k * esz,
                             err) != PB_OK)
            return err->code;
    return PB_OK;
}

/* The non-blocking reduce-scatter: as the blocking one below, but what
 * follows each call (the in-place move, freeing the packed piece) waits
 * on the pending list for its request, and every piece packs into its
 * own buffer, since all are in flight at once. */
static int reduce_scatter_async(pb_group_t *g, const void *s, void *r, uint64_t count,
                                pb_dtype_t t, MPI_Op mop, int in_place, pb_err_t *err)
{
    MPI_Datatype dt = pb_mpi_datatype(t);
    size_t esz = pb_dtype_size(t);
    uint64_t ce = pb_mpi_chunk_elems(g, t), n = (uint64_t)g->size;
    pb_mpi_after_t *after;
    MPI_Request *rq;
    if (count <= ce) {
        void *buf = (void *)(uintptr_t)s;
        if ((rq = slot(g, &after, err)) == NULL)
            return err->code;
        if (in_place && g->rank != 0)
            *after = (pb_mpi_after_t){r, buf, count * esz, NULL, MPI_DATATYPE_NULL};
        return started(MPI_Ireduce_scatter_block(in_place ? MPI_IN_PLACE : s, in_place ? buf : r,
                                                 (int)count, dt, mop, pb_mpi_comm(g), rq),
                       rq, "MPI_Ireduce_scatter_block", err);
    }
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        char *pack = NULL;
        if (g->be->mem->alloc(g->be, n * k * esz, (void **)&pack, err) != PB_OK)
            return err->code;
        if (pack_piece(g, pack, s, count, off, k, t, err) != PB_OK ||
            (rq = slot(g, &after, err)) == NULL) {
            g->be->mem->free(g->be, pack);
            return err->code;
        }
        after->scratch = pack;
        if (started(MPI_Ireduce_scatter_block(pack, at_mut(r, off, t), (int)k, dt, mop,
                                              pb_mpi_comm(g), rq),
                    rq, "MPI_Ireduce_scatter_block", err) != PB_OK)
            return err->code;
    }
    return PB_OK;
}

int pb_mpi_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                          pb_redop_t op, pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    MPI_Op mop;
    if (pb_mpi_op(pb_mpi_state(g), t, op, &mop, err) != PB_OK)
        return err->code;
    MPI_Datatype dt = pb_mpi_datatype(t);
    size_t esz = pb_dtype_size(t);
    int in_place = r == at(s, (uint64_t)g->rank * count, t);
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    if (pb_mpi_is_async(g))
        return reduce_scatter_async(g, s, r, count, t, mop, in_place, err);
    if (count <= ce) {
        if (!in_place) {
            CHECK_MPI(MPI_Reduce_scatter_block(s, r, (int)count, dt, mop, pb_mpi_comm(g)),
                      "MPI_Reduce_scatter_block");
            return pb_mpi_mark_end(g, PB_OK);
        }
        /* MPI's in-place result lands at the start of the buffer; NCCL's
         * convention (ours) is the rank's own block.  Move it there. */
        void *buf = (void *)(uintptr_t)s;
        CHECK_MPI(MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, (int)count, dt, mop,
                                           pb_mpi_comm(g)),
                  "MPI_Reduce_scatter_block");
        int code = PB_OK;
        if (g->rank != 0) /* blocks never overlap: rank >= 1 is >= count away */
            code = g->be->mem->copy(g->be, r, buf, count * esz, err);
        return pb_mpi_mark_end(g, code);
    }
    /* Pieces: gather piece `off` of every block into a packed buffer; the
     * in-place output (own block, piece off) has already been packed by
     * the time it is overwritten, and later pieces never read it. */
    uint64_t n = (uint64_t)g->size;
    char *pack = NULL;
    if (g->be->mem->alloc(g->be, n * ce * esz, (void **)&pack, err) != PB_OK)
        return err->code;
    if (pack == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory packing a reduce-scatter piece");
    int code = PB_OK;
    for (uint64_t off = 0; off < count && code == PB_OK; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        if (pack_piece(g, pack, s, count, off, k, t, err) != PB_OK) {
            code = err->code;
            break;
        }
        int rc = MPI_Reduce_scatter_block(pack, at_mut(r, off, t), (int)k, dt, mop,
                                          pb_mpi_comm(g));
        if (rc != MPI_SUCCESS)
            code = pb_mpi_fail(rc, "MPI_Reduce_scatter_block", err);
    }
    g->be->mem->free(g->be, pack);
    return pb_mpi_mark_end(g, code);
}

int pb_mpi_alltoall(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                    pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    MPI_Datatype dt = pb_mpi_datatype(t);
    int in_place = s == r;
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    if (count <= ce) {
        CHECK_MPI(MPI_Alltoall(in_place ? MPI_IN_PLACE : s, (int)count, dt, r, (int)count, dt,
                               pb_mpi_comm(g)),
                  "MPI_Alltoall");
        return pb_mpi_mark_end(g, PB_OK);
    }
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        MPI_Datatype piece;
        if (piece_type(t, k, count, &piece, err) != PB_OK)
            return err->code;
        int rc = MPI_Alltoall(in_place ? MPI_IN_PLACE : at(s, off, t), 1, piece,
                              at_mut(r, off, t), 1, piece, pb_mpi_comm(g));
        MPI_Type_free(&piece);
        if (rc != MPI_SUCCESS)
            return pb_mpi_fail(rc, "MPI_Alltoall", err);
    }
    return pb_mpi_mark_end(g, PB_OK);
}

static int fits_int(const uint64_t *v, int n, uint64_t limit)
{
    for (int i = 0; i < n; i++)
        if (v[i] > limit)
            return 0;
    return 1;
}

/* Pieces of every pair, round by round: in round c each pair exchanges
 * its elements [c*ce, (c+1)*ce).  Messages between a pair never overtake
 * each other (MPI's ordering rule), so a receiver's c-th piece from a
 * sender is the sender's c-th piece. */
static int alltoallv_pieces(pb_group_t *g, const void *s, const uint64_t *scounts,
                            const uint64_t *sdispls, void *r, const uint64_t *rcounts,
                            const uint64_t *rdispls, pb_dtype_t t, uint64_t ce,
                            pb_err_t *err)
{
    int n = g->size;
    uint64_t most = 0;
    for (int p = 0; p < n; p++) {
        if (scounts[p] > most)
            most = scounts[p];
        if (rcounts[p] > most)
            most = rcounts[p];
    }
    MPI_Request *req = malloc(2u * (size_t)n * sizeof *req);
    if (req == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for all-to-all-v requests");
    MPI_Datatype dt = pb_mpi_datatype(t);
    int code = PB_OK;
    for (uint64_t off = 0; off < most && code == PB_OK; off += ce) {
        int nreq = 0, rc = MPI_SUCCESS;
        for (int p = 0; p < n && rc == MPI_SUCCESS; p++) {
            if (rcounts[p] > off) {
                uint64_t k = rcounts[p] - off < ce ? rcounts[p] - off : ce;
                rc = MPI_Irecv(at_mut(r, rdispls[p] + off, t), (int)k, dt, p, 0,
                               pb_mpi_comm(g), &req[nreq++]);
            }
        }
        for (int p = 0; p < n && rc == MPI_SUCCESS; p++) {
            if (scounts[p] > off) {
                uint64_t k = scounts[p] - off < ce ? scounts[p] - off : ce;
                rc = MPI_Isend(at(s, sdispls[p] + off, t), (int)k, dt, p, 0, pb_mpi_comm(g),
                               &req[nreq++]);
            }
        }
        if (rc != MPI_SUCCESS)
            code = pb_mpi_fail(rc, "MPI_Isend/MPI_Irecv", err);
        rc = MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS && code == PB_OK)
            code = pb_mpi_fail(rc, "MPI_Waitall", err);
    }
    free(req);
    return code;
}

int pb_mpi_alltoallv(pb_group_t *g, const void *s, const uint64_t *scounts,
                     const uint64_t *sdispls, void *r, const uint64_t *rcounts,
                     const uint64_t *rdispls, pb_dtype_t t, pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    int n = g->size;
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    if (!(fits_int(scounts, n, ce) && fits_int(rcounts, n, ce) &&
          fits_int(sdispls, n, INT_MAX) && fits_int(rdispls, n, INT_MAX)))
        return pb_mpi_mark_end(g, alltoallv_pieces(g, s, scounts, sdispls, r, rcounts, rdispls,
                                                   t, ce, err));
    int *v = malloc(4u * (size_t)n * sizeof *v);
    if (v == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for all-to-all-v counts");
    for (int p = 0; p < n; p++) {
        v[p] = (int)scounts[p];
        v[n + p] = (int)sdispls[p];
        v[2 * n + p] = (int)rcounts[p];
        v[3 * n + p] = (int)rdispls[p];
    }
    MPI_Datatype dt = pb_mpi_datatype(t);
    int rc = MPI_Alltoallv(s, v, v + n, dt, r, v + 2 * n, v + 3 * n, dt, pb_mpi_comm(g));
    free(v);
    return pb_mpi_mark_end(g, rc == MPI_SUCCESS ? PB_OK : pb_mpi_fail(rc, "MPI_Alltoallv", err));
}

int pb_mpi_broadcast(pb_group_t *g, void *buf, uint64_t count, pb_dtype_t t, int root,
                     pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        if (!pb_mpi_is_async(g)) {
            CHECK_MPI(MPI_Bcast(at_mut(buf, off, t), (int)k, pb_mpi_datatype(t), root,
                                pb_mpi_comm(g)),
                      "MPI_Bcast");
            continue;
        }
        pb_mpi_after_t *after;
        MPI_Request *rq = slot(g, &after, err);
        if (rq == NULL || started(MPI_Ibcast(at_mut(buf, off, t), (int)k, pb_mpi_datatype(t),
                                             root, pb_mpi_comm(g), rq),
                                  rq, "MPI_Ibcast", err) != PB_OK)
            return err->code;
    }
    return pb_mpi_mark_end(g, PB_OK);
}

int pb_mpi_reduce(pb_group_t *g, const void *s, void *r, uint64_t count, pb_dtype_t t,
                  pb_redop_t op, int root, pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    MPI_Op mop;
    if (pb_mpi_op(pb_mpi_state(g), t, op, &mop, err) != PB_OK)
        return err->code;
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    int in_place = s == r && g->rank == root; /* MPI_IN_PLACE is the root's only */
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        const void *sp = in_place ? MPI_IN_PLACE : at(s, off, t);
        if (!pb_mpi_is_async(g)) {
            CHECK_MPI(MPI_Reduce(sp, at_mut(r, off, t), (int)k, pb_mpi_datatype(t), mop, root,
                                 pb_mpi_comm(g)),
                      "MPI_Reduce");
            continue;
        }
        pb_mpi_after_t *after;
        MPI_Request *rq = slot(g, &after, err);
        if (rq == NULL || started(MPI_Ireduce(sp, at_mut(r, off, t), (int)k, pb_mpi_datatype(t),
                                              mop, root, pb_mpi_comm(g), rq),
                                  rq, "MPI_Ireduce", err) != PB_OK)
            return err->code;
    }
    return pb_mpi_mark_end(g, PB_OK);
}

int pb_mpi_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t count,
                    pb_dtype_t t, pb_err_t *err)
{
    pb_mpi_mark_begin(g);
    uint64_t ce = pb_mpi_chunk_elems(g, t);
    int to = dst < 0 ? MPI_PROC_NULL : dst;
    int from = src < 0 ? MPI_PROC_NULL : src;
    for (uint64_t off = 0; off < count; off += ce) {
        uint64_t k = count - off < ce ? count - off : ce;
        CHECK_MPI(MPI_Sendrecv(at(s, off, t), (int)k, pb_mpi_datatype(t), to, 1,
                               at_mut(r, off, t), (int)k, pb_mpi_datatype(t), from, 1,
                               pb_mpi_comm(g), MPI_STATUS_IGNORE),
                  "MPI_Sendrecv");
    }
    return pb_mpi_mark_end(g, PB_OK);
}
