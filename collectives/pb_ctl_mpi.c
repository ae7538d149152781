/* The control world over MPI (pb_ctl_mpi.h).  Control messages are small
 * (status words, node facts, samples); a count past an int is refused
 * rather than split. */
#include "pb_ctl_mpi.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/pb_err.h"

typedef struct mpi_ctl {
    pb_ctl_t pub;
    MPI_Comm comm;
} mpi_ctl_t;

static MPI_Comm comm_of(pb_ctl_t *c) { return ((mpi_ctl_t *)c)->comm; }

static int rc_of(int rc) { return rc == MPI_SUCCESS ? PB_OK : PB_ERUNTIME; }

/* Completes a request; while the world is quiet, by polling with a
 * 0.2 ms sleep so that a resting rank leaves its core to the measured
 * ones (MPI's own waits spin). */
static int finish(pb_ctl_t *c, MPI_Request *req)
{
    if (!c->quiet)
        return rc_of(MPI_Wait(req, MPI_STATUS_IGNORE));
    struct timespec ts = {0, 200000};
    int done = 0;
    while (!done) {
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return PB_ERUNTIME;
        if (!done)
            nanosleep(&ts, NULL);
    }
    return PB_OK;
}

static MPI_Datatype type_of(pb_ctl_type_t t)
{
    switch (t) {
    case PB_CTL_INT: return MPI_INT;
    case PB_CTL_I64: return MPI_INT64_T;
    case PB_CTL_DOUBLE: return MPI_DOUBLE;
    default: return MPI_BYTE;
    }
}

static MPI_Op op_of(pb_ctl_op_t op)
{
    switch (op) {
    case PB_CTL_MAX: return MPI_MAX;
    case PB_CTL_MIN: return MPI_MIN;
    case PB_CTL_SUM: return MPI_SUM;
    default: return MPI_BOR;
    }
}

static int ctl_allreduce(pb_ctl_t *c, void *buf, uint64_t n, pb_ctl_type_t t, pb_ctl_op_t op)
{
    if (n > INT_MAX)
        return PB_ERUNTIME;
    return rc_of(MPI_Allreduce(MPI_IN_PLACE, buf, (int)n, type_of(t), op_of(op), comm_of(c)));
}

static int ctl_maxloc(pb_ctl_t *c, pb_ctl_loc_t *v, uint64_t n)
{
    if (n > INT_MAX)
        return PB_ERUNTIME;
    return rc_of(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE_INT, MPI_MAXLOC, comm_of(c)));
}

static int ctl_allgather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes)
{
    if (bytes > INT_MAX)
        return PB_ERUNTIME;
    return rc_of(MPI_Allgather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, comm_of(c)));
}

static int ctl_gather(pb_ctl_t *c, const void *mine, void *all, uint64_t bytes, int root)
{
    if (bytes > INT_MAX)
        return PB_ERUNTIME;
    if (!c->quiet)
        return rc_of(MPI_Gather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, root,
                                comm_of(c)));
    MPI_Request req;
    if (MPI_Igather(mine, (int)bytes, MPI_BYTE, all, (int)bytes, MPI_BYTE, root, comm_of(c),
                    &req) != MPI_SUCCESS)
        return PB_ERUNTIME;
    return finish(c, &req);
}

static int ctl_gatherv(pb_ctl_t *c, const void *mine, uint64_t bytes, void *all,
                       const uint64_t *counts, const uint64_t *displs, int root)
{
    int n = c->size, code = bytes > INT_MAX ? PB_ERUNTIME : PB_OK;
    int *ic = NULL, *id = NULL;
    if (c->rank == root) {
        ic = malloc((size_t)n * sizeof *ic);
        id = malloc((size_t)n * sizeof *id);
        if (ic == NULL || id == NULL)
            code = PB_ERUNTIME;
        for (int r = 0; code == PB_OK && r < n; r++) {
            if (counts[r] > INT_MAX || displs[r] > INT_MAX)
                code = PB_ERUNTIME;
            else
                ic[r] = (int)counts[r], id[r] = (int)displs[r];
        }
    }
    /* every rank learns whether root can take part, so none waits alone */
    int ok = code == PB_OK;
    if (MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_of(c)) != MPI_SUCCESS || !ok)
        code = PB_ERUNTIME;
    else
        code = rc_of(MPI_Gatherv(mine, (int)bytes, MPI_BYTE, all, ic, id, MPI_BYTE, root,
                                 comm_of(c)));
    free(ic);
    free(id);
    return code;
}

/* Why a broadcast is an all-reduce here: in Open MPI's shared-memory
 * transport (vader, 4.1) each direction between two ranks has its own
 * fast box, a ring of 32 B slots, and the latency of every later small
 * operation between them depends on where the two rings stand relative
 * to each other: one broadcast from rank 0 to rank 1 made a following
 * 8 B all-reduce 0.24 -> 0.26 us (fast machine state) and 0.51 -> 0.90 us
 * (slow state) for the rest of the run.  In the plain loop itself
 * (bench/perf/ref_allreduce.c, 40 paired launches) one extra 0-byte
 * message one way before timing cost 8-13 %, two gained 5 %; without fast
 * boxes (btl_vader_fbox_max=0) none of it mattered.  A plain benchmark
 * loop sends the same both ways before it times, so parbench's set-up
 * must too: the root's bytes go through a bitwise-or all-reduce to which
 * the others contribute zeros, and each pair exchanges the same messages
 * one way as the other.  A quiet world (validate) needs a wait that
 * sleeps, which only the non-blocking broadcast gives. */
static int ctl_bcast(pb_ctl_t *c, void *buf, uint64_t bytes, int root)
{
    if (bytes > INT_MAX)
        return PB_ERUNTIME;
    if (c->quiet) {
        MPI_Request req;
        if (MPI_Ibcast(buf, (int)bytes, MPI_BYTE, root, comm_of(c), &req) != MPI_SUCCESS)
            return PB_ERUNTIME;
        return finish(c, &req);
    }
    if (c->rank != root)
        memset(buf, 0, (size_t)bytes);
    return rc_of(MPI_Allreduce(MPI_IN_PLACE, buf, (int)bytes, MPI_BYTE, MPI_BOR, comm_of(c)));
}

static int ctl_barrier(pb_ctl_t *c)
{
    if (!c->quiet)
        return rc_of(MPI_Barrier(comm_of(c)));
    MPI_Request req;
    if (MPI_Ibarrier(comm_of(c), &req) != MPI_SUCCESS)
        return PB_ERUNTIME;
    return finish(c, &req);
}

static pb_ctl_t *wrap(MPI_Comm comm);

static int ctl_split(pb_ctl_t *c, int color, int key, pb_ctl_t **out)
{
    MPI_Comm sub = MPI_COMM_NULL;
    *out = NULL;
    if (MPI_Comm_split(comm_of(c), color < 0 ? MPI_UNDEFINED : color, key, &sub) != MPI_SUCCESS)
        return PB_ERUNTIME;
    if (sub == MPI_COMM_NULL)
        return PB_OK;
    *out = wrap(sub);
    return *out ? PB_OK : PB_ERUNTIME;
}

static int ctl_split_node(pb_ctl_t *c, pb_ctl_t **out)
{
    MPI_Comm sub = MPI_COMM_NULL;
    *out = NULL;
    if (MPI_Comm_split_type(comm_of(c), MPI_COMM_TYPE_SHARED, c->rank, MPI_INFO_NULL, &sub) !=
        MPI_SUCCESS)
        return PB_ERUNTIME;
    *out = wrap(sub);
    return *out ? PB_OK : PB_ERUNTIME;
}

static void ctl_free(pb_ctl_t *c)
{
    mpi_ctl_t *m = (mpi_ctl_t *)c;
    if (m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    free(m);
}

static _Noreturn void ctl_abort(pb_ctl_t *c, int code)
{
    MPI_Abort(comm_of(c), code);
    exit(code);
}

static void ctl_host(const pb_ctl_t *c, char *buf, size_t len)
{
    (void)c;
    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int n = 0;
    if (MPI_Get_processor_name(name, &n) != MPI_SUCCESS)
        gethostname(name, sizeof name - 1);
    snprintf(buf, len, "%s", name);
}

static const pb_ctl_ops_t mpi_ctl_ops = {
    "mpi", ctl_allreduce, ctl_maxloc, ctl_allgather, ctl_gather, ctl_gatherv, ctl_bcast,
    ctl_barrier, ctl_split, ctl_split_node, ctl_free, ctl_abort, ctl_host,
};

/* takes `comm` (freed with the handle, or here on failure) */
static pb_ctl_t *wrap(MPI_Comm comm)
{
    mpi_ctl_t *m = calloc(1, sizeof *m);
    if (m == NULL) {
        MPI_Comm_free(&comm);
        return NULL;
    }
    m->comm = comm;
    m->pub.ops = &mpi_ctl_ops;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    if (MPI_Comm_rank(comm, &m->pub.rank) != MPI_SUCCESS ||
        MPI_Comm_size(comm, &m->pub.size) != MPI_SUCCESS) {
        ctl_free(&m->pub);
        return NULL;
    }
    return &m->pub;
}

pb_ctl_t *pb_ctl_mpi_new(MPI_Comm comm)
{
    MPI_Comm dup = MPI_COMM_NULL;
    if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        return NULL;
    return wrap(dup);
}

const MPI_Comm *pb_ctl_mpi_comm(const pb_ctl_t *c)
{
    return c != NULL && c->ops == &mpi_ctl_ops ? &((const mpi_ctl_t *)c)->comm : NULL;
}
