/* The MPI communication side: collectives through MPI, on host memory
 * or, with a CUDA-aware MPI, on device memory (the CUDA memory side
 * composed with this one; pb_backend_open).
 *
 * It is also the reference backend: every other backend is checked
 * against the same expected values, and its timing loop (MPI_Wtime around
 * one call between barriers) is the one OSU users know. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_ctl_mpi.h"
#include "pb_mpi_priv.h"

#ifdef PARBENCH_HAVE_CUDA
#include "pb_gpu_bind.h"
#endif

static int mpi_init(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err)
{
    if (cfg->memory == PB_MEM_DEVICE) {
#ifdef PARBENCH_HAVE_CUDA
        char why[200];
        if (!pb_mpi_device_supported(why, sizeof why))
            return pb_err_set(err, PB_EINPUT, "%s", why);
#else
        return pb_err_set(err, PB_EINPUT,
                          "--memory device needs a CUDA-aware MPI and a build with CUDA");
#endif
    }
    pb_mpi_state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the MPI backend");
    st->chunk_bytes = cfg->chunk_bytes ? cfg->chunk_bytes : PB_MPI_DEFAULT_CHUNK;
    for (int t = 0; t < PB_DTYPE_COUNT; t++) {
        uint64_t c = st->chunk_bytes / pb_dtype_size((pb_dtype_t)t);
        st->chunk_elems[t] = c == 0 ? 1 : c > (uint64_t)INT_MAX ? (uint64_t)INT_MAX : c;
    }
    const MPI_Comm *parent = pb_ctl_mpi_comm(cfg->ctl);
    int rc = MPI_Comm_dup(parent ? *parent : MPI_COMM_WORLD, &st->world);
    if (rc != MPI_SUCCESS) {
        free(st);
        return pb_mpi_fail(rc, "MPI_Comm_dup", err);
    }
    /* errors come back as codes, which every call checks */
    MPI_Comm_set_errhandler(st->world, MPI_ERRORS_RETURN);
    if (pb_mpi_ops_create(st, err) != PB_OK) {
        pb_mpi_ops_free(st);
        MPI_Comm_free(&st->world);
        free(st);
        return err->code;
    }
#ifdef PARBENCH_HAVE_CUDA
    if (cfg->memory == PB_MEM_DEVICE) {
        /* each rank allocates on its own GPU (and the free-memory check
         * describes that one), chosen as the NCCL backend chooses */
        int device = -1;
        char bus[32];
        if (pb_cuda_bind_local(cfg->ctl, &device, bus, sizeof bus, err) != PB_OK) {
            pb_mpi_ops_free(st);
            MPI_Comm_free(&st->world);
            free(st);
            return err->code;
        }
    }
#endif
    be->priv = st;
    return PB_OK;
}

static void mpi_finalize(pb_backend_t *be)
{
    pb_mpi_state_t *st = be->priv;
    if (st == NULL)
        return;
    pb_mpi_ops_free(st);
    pb_mpi_knob_fini(st);
    MPI_Comm_free(&st->world);
    free(st->async_groups); /* empty: every group left it when freed */
    free(st);
    be->priv = NULL;
}

static void mpi_version(pb_backend_t *be, char *buf, size_t len)
{
    (void)be;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &n);
    MPI_Get_version(&major, &minor);
    lib[strcspn(lib, ",\n")] = '\0'; /* first clause: "Open MPI v4.1.4" */
    snprintf(buf, len, "%s (MPI %d.%d)", lib, major, minor);
}

static int group_wrap(pb_backend_t *be, MPI_Comm comm, pb_group_t **out, pb_err_t *err)
{
    pb_group_t *g = calloc(1, sizeof *g);
    pb_mpi_group_t *mg = calloc(1, sizeof *mg);
    if (g == NULL || mg == NULL) {
        free(g);
        free(mg);
        MPI_Comm_free(&comm);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for a group");
    }
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    mg->comm = comm;
    g->be = be;
    g->priv = mg;
    MPI_Comm_rank(comm, &g->rank);
    MPI_Comm_size(comm, &g->size);
    *out = g;
    return PB_OK;
}

static int mpi_world(pb_backend_t *be, pb_group_t **out, pb_err_t *err)
{
    MPI_Comm c;
    int rc = MPI_Comm_dup(((pb_mpi_state_t *)be->priv)->world, &c);
    if (rc != MPI_SUCCESS)
        return pb_mpi_fail(rc, "MPI_Comm_dup", err);
    return group_wrap(be, c, out, err);
}

static int mpi_split(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err)
{
    MPI_Comm c;
    int rc = MPI_Comm_split(pb_mpi_comm(parent), color < 0 ? MPI_UNDEFINED : color, key, &c);
    if (rc != MPI_SUCCESS)
        return pb_mpi_fail(rc, "MPI_Comm_split", err);
    if (c == MPI_COMM_NULL) {
        *out = NULL; /* this rank asked for no group */
        return PB_OK;
    }
    return group_wrap(parent->be, c, out, err);
}

static void mpi_group_free(pb_group_t *g)
{
    if (g == NULL)
        return;
    pb_mpi_group_t *mg = g->priv;
    pb_mpi_async_release(g);
    MPI_Comm_free(&mg->comm);
    free(mg);
    free(g);
}

static int mpi_set_tight(pb_group_t *g, int on, pb_err_t *err)
{
    (void)err;
    ((pb_mpi_group_t *)g->priv)->tight = on;
    return PB_OK;
}

static int mpi_barrier(pb_group_t *g, pb_err_t *err)
{
    int rc = MPI_Barrier(pb_mpi_comm(g));
    return rc == MPI_SUCCESS ? PB_OK : pb_mpi_fail(rc, "MPI_Barrier", err);
}

static int mpi_mark(pb_group_t *g, int slot, pb_err_t *err)
{
    if (slot < 0 || slot >= PB_MPI_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot %d out of range", slot);
    ((pb_mpi_group_t *)g->priv)->marks[slot] = MPI_Wtime();
    return PB_OK;
}

static int mpi_elapsed(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err)
{
    if (from < 0 || to < 0 || from >= PB_MPI_MARKS || to >= PB_MPI_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot out of range");
    const double *m = ((pb_mpi_group_t *)g->priv)->marks;
    *seconds = m[to] - m[from];
    return PB_OK;
}

static int mpi_sync(pb_group_t *g, pb_err_t *err)
{
    /* host calls are complete when they return, except in asynchronous
     * mode: then this is where they complete */
    return pb_mpi_pending_wait(g, err);
}

static int mpi_supports(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, int nranks, char *why,
                        size_t len)
{
    (void)be;
    (void)t;
    (void)nranks;
    if (op == PB_AVG) {
        snprintf(why, len, "redop avg is not available on the mpi backend (MPI has no average)");
        return 0;
    }
    return 1;
}

static int mpi_has_in_place(pb_backend_t *be, pb_coll_t c)
{
    (void)be;
    (void)c;
    return 1; /* MPI_IN_PLACE, or a copy where MPI puts the result elsewhere */
}

static void *mpi_stream(const pb_group_t *g)
{
    (void)g;
    return NULL; /* every call completes on return */
}

/* Asynchronous mode on host memory only: Open MPI 4's CUDA-aware support
 * covers point-to-point and the blocking collectives, not the non-
 * blocking ones (its FAQ, "Which MPI APIs work with CUDA-aware"), and the
 * in-place reduce-scatter's copies would have to be ordered after device
 * work.  p2p_batch takes device pointers either way. */
static unsigned mpi_caps(pb_memory_t memory)
{
    return PB_CAP_TIGHT | (memory == PB_MEM_HOST ? PB_CAP_ASYNC : 0u);
}

static int mpi_available(const pb_backend_config_t *cfg, char *why, size_t len)
{
    /* it runs wherever an MPI launcher started the ranks; the threads of
     * --gpus N share one process and have no MPI between them */
    if (cfg->ctl == NULL || pb_ctl_mpi_comm(cfg->ctl) != NULL)
        return 1;
    snprintf(why, len, "the mpi backend needs ranks started by an MPI launcher (mpirun, srun); "
                       "--gpus N runs threads of one process: use --backend nccl or rccl");
    return 0;
}

const pb_comm_ops_t pb_mpi_comm_ops = {
    .name = "mpi",
    .description = "MPI on host memory, or on device memory with a CUDA-aware MPI",
    /* device memory where the MPI is CUDA-aware and the build has CUDA:
     * init says which is missing */
    .moves = PB_MOVES_HOST | PB_MOVES_DEVICE,
    .caps = mpi_caps,
    .available = mpi_available,
    .init = mpi_init,
    .finalize = mpi_finalize,
    .version = mpi_version,
    .supports = mpi_supports,
    .has_in_place = mpi_has_in_place,
    .world = mpi_world,
    .split = mpi_split,
    .group_free = mpi_group_free,
    .knob = pb_mpi_knob,
    .stream = mpi_stream,
    .allreduce = pb_mpi_allreduce,
    .allgather = pb_mpi_allgather,
    .reduce_scatter = pb_mpi_reduce_scatter,
    .alltoall = pb_mpi_alltoall,
    .alltoallv = pb_mpi_alltoallv,
    .broadcast = pb_mpi_broadcast,
    .reduce = pb_mpi_reduce,
    .sendrecv = pb_mpi_sendrecv,
    .barrier = mpi_barrier,
    .p2p_batch = pb_mpi_p2p_batch,
    .mark = mpi_mark,
    .elapsed = mpi_elapsed,
    .sync = mpi_sync,
    .progress = pb_mpi_progress,
    .set_async = pb_mpi_set_async,
    .set_tight = mpi_set_tight,
};
