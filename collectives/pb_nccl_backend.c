/* The NCCL communication side: collectives on CUDA device memory, one
 * rank per GPU.  Its buffers, fills, checks and compute stand-in are the
 * CUDA memory side's (pb_cuda_mem.c), ordered on this side's streams.
 *
 * The control world (pb_ctl.h: MPI ranks, or the threads of --gpus N)
 * bootstraps it (the unique id travels by its broadcast, the local rank
 * picks the GPU) and stays the host control plane; every data movement
 * is NCCL's, on a dedicated stream per group.  Timing is CUDA events on
 * that stream.  Waiting is polling with a deadline, so a hang is
 * reported with what hung instead of blocking forever.
 *
 * This file: the library, the communicators and the ops table; the
 * collectives are pb_nccl_colls.c's, the stream's waiting, timing and
 * graphs pb_nccl_stream.c's (pb_nccl_priv.h).  libnccl itself is opened
 * at run time, never linked (pb_nccl_lib.h): every NCCL call goes through
 * the table in the backend's state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_cuda_bind.h"
#include "pb_nccl_priv.h"
#include "pb_nccl_ver.h"

int pb_nccl_cuda_fail(cudaError_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s (%d)", call, cudaGetErrorString(rc),
                      (int)rc);
}

int pb_nccl_fail(const pb_nccl_lib_t *lib, ncclResult_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s", call, lib->GetErrorString(rc));
}

static int gpu_available(char *why, size_t len)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess) {
        /* 35 (driver too old / none) and 100 (no device) are "no GPU" */
        snprintf(why, len, "no CUDA device: cudaGetDeviceCount returned %d (%s)", (int)rc,
                 cudaGetErrorString(rc));
        return 0;
    }
    if (n == 0) {
        snprintf(why, len, "no CUDA device: cudaGetDeviceCount found 0 devices");
        return 0;
    }
    return 1;
}

/* The library first: a missing, old or incomplete NCCL is the reason
 * given also on a machine without a GPU, where it is checked too. */
static int nccl_available(const pb_backend_config_t *cfg, char *why, size_t len)
{
    pb_nccl_lib_t lib;
    if (pb_nccl_lib_open(cfg->lib_path, &lib, why, len) != 0)
        return 0;
    pb_nccl_lib_close(&lib);
    return gpu_available(why, len);
}

static void nccl_finalize(pb_backend_t *be)
{
    pb_nccl_state_t *st = be->priv;
    if (st == NULL)
        return;
    pb_nccl_lib_close(&st->lib);
    free(st);
    be->priv = NULL;
}

static int init_state(pb_nccl_state_t *st, const pb_backend_config_t *cfg, pb_err_t *err)
{
    char why[480];
    st->timeout_s = cfg->timeout_s;
    /* the library's version, not the header's, is checked by the open:
     * they differ when parbench runs with another libnccl.so.2 than the
     * one it was built against */
    if (pb_nccl_lib_open(cfg->lib_path, &st->lib, why, sizeof why) != 0 ||
        !gpu_available(why, sizeof why))
        return pb_err_set(err, PB_EINPUT, "%s", why);
    st->world = cfg->ctl;
    /* one rank per GPU: local rank modulo the visible devices, so that
     * per-rank binding (each rank sees one GPU) works too; two ranks of a
     * node on one GPU are refused by bus id (pb_gpu_pick.h) */
    char bus[32] = "?";
    return pb_cuda_bind_local(st->world, &st->device, bus, sizeof bus, err);
}

static int nccl_init(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err)
{
    pb_nccl_state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the NCCL backend");
    be->priv = st;
    int code = init_state(st, cfg, err);
    /* pb_backend_open forgets a backend whose init failed: free it here */
    if (code != PB_OK)
        nccl_finalize(be);
    return code;
}

static void nccl_version(pb_backend_t *be, char *buf, size_t len)
{
    const pb_nccl_state_t *st = be->priv;
    int rt = 0, drv = 0;
    /* a failed query prints as 0.0 */
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    pb_nccl_ver_t v = pb_nccl_version_decode(st->lib.version);
    snprintf(buf, len,
             "NCCL %d.%d.%d (header %d.%d.%d) from %s, CUDA runtime %d.%d, driver %d.%d",
             v.major, v.minor, v.patch, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, st->lib.path,
             rt / 1000, rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
}

static void group_destroy(pb_group_t *g)
{
    if (g == NULL)
        return;
    pb_nccl_group_t *gg = g->priv;
    if (gg) {
        pb_nccl_release_stall(gg);
        if (gg->stream)
            cudaStreamSynchronize(gg->stream);
        if (gg->exec)
            cudaGraphExecDestroy(gg->exec);
        if (gg->graph)
            cudaGraphDestroy(gg->graph);
        for (int i = 0; i < PB_NCCL_MARKS; i++)
            if (gg->marks[i])
                cudaEventDestroy(gg->marks[i]);
        if (gg->scratch)
            cudaFree(gg->scratch);
        /* a group being freed has nothing left to report: a failed
         * destroy leaves nothing to undo */
        if (gg->comm)
            (void)pb_nccl_lib_of(g)->CommDestroy(gg->comm);
        if (gg->stream)
            cudaStreamDestroy(gg->stream);
        if (gg->stall_release)
            cudaFreeHost((void *)gg->stall_release);
        free(gg);
    }
    free(g);
}

/* Takes ownership of comm. */
static int group_wrap(pb_backend_t *be, ncclComm_t comm, pb_group_t **out, pb_err_t *err)
{
    const pb_nccl_lib_t *lib = &((const pb_nccl_state_t *)be->priv)->lib;
    pb_group_t *g = calloc(1, sizeof *g);
    pb_nccl_group_t *gg = calloc(1, sizeof *gg);
    if (g == NULL || gg == NULL) {
        free(g);
        free(gg);
        /* the out-of-memory is the error reported */
        (void)lib->CommDestroy(comm);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for a group");
    }
    g->be = be;
    g->priv = gg;
    gg->comm = comm;
    *out = g;
    int code = PB_OK;
    cudaError_t rc = cudaStreamCreateWithFlags(&gg->stream, cudaStreamNonBlocking);
    for (int i = 0; i < PB_NCCL_MARKS && rc == cudaSuccess; i++)
        rc = cudaEventCreate(&gg->marks[i]);
    if (rc == cudaSuccess)
        rc = cudaMalloc((void **)&gg->scratch, sizeof *gg->scratch);
    if (rc != cudaSuccess)
        code = pb_nccl_cuda_fail(rc, "creating a group's stream, events and scratch", err);
    ncclResult_t nrc = ncclSuccess;
    if (code == PB_OK && (nrc = lib->CommUserRank(comm, &g->rank)) == ncclSuccess)
        nrc = lib->CommCount(comm, &g->size);
    if (code == PB_OK && nrc != ncclSuccess)
        code = pb_nccl_fail(lib, nrc, "ncclCommUserRank/Count", err);
    if (code != PB_OK) {
        group_destroy(g);
        *out = NULL;
    }
    return code;
}

static int nccl_world(pb_backend_t *be, pb_group_t **out, pb_err_t *err)
{
    pb_nccl_state_t *st = be->priv;
    const pb_nccl_lib_t *lib = &st->lib;
    int rank = st->world->rank, size = st->world->size;
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t rc = rank == 0 ? lib->GetUniqueId(&id) : ncclSuccess;
    /* rank 0's failure must not leave the others waiting for an id */
    int ok = rc == ncclSuccess;
    if (pb_ctl_bcast(st->world, &ok, sizeof ok, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the NCCL id's state failed");
    if (!ok)
        return rank == 0 ? pb_nccl_fail(lib, rc, "ncclGetUniqueId", err)
                         : pb_err_set(err, PB_ERUNTIME, "rank 0 could not create an NCCL id");
    if (pb_ctl_bcast(st->world, &id, sizeof id, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the broadcast of the NCCL id failed");
    ncclComm_t comm;
    PB_NCCL_OK(lib, lib->CommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    return group_wrap(be, comm, out, err);
}

static int nccl_split(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err)
{
    ncclComm_t comm = NULL;
    int code = pb_nccl_split_comm(pb_nccl_state_of(parent), pb_nccl_grp(parent)->comm,
                                  color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &comm, err);
    if (code != PB_OK)
        return code;
    if (comm == NULL) {
        *out = NULL;
        return PB_OK;
    }
    return group_wrap(parent->be, comm, out, err);
}

/* NCCL runs a one-rank reduction itself (src/device/onerank.cu,
 * ncclLaunchOneRank): a copy, or for avg a pre-multiplied sum, whose
 * host-side switch lists the fp8 types only under __CUDA_ARCH__ >= 900,
 * never true in host code; so every NCCL from 2.24.3 (fp8's first) to
 * 2.29 answers ncclInvalidArgument to an fp8 avg on one rank.  Found on
 * an H200 with NCCL 2.28.3 (doc/gpu-acceptance.md). */
static int fp8_avg_alone(pb_dtype_t t, pb_redop_t op, int nranks, char *why, size_t len)
{
    if (op != PB_AVG || nranks != 1)
        return 0;
    snprintf(why, len,
             "%s avg on a one-rank group: NCCL refuses it (ncclLaunchOneRank has no fp8 "
             "kernel on the host side)", pb_dtype_name(t));
    return 1;
}

static int supports(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, int nranks, char *why,
                    size_t len)
{
    /* sum, max, min and avg: every NCCL since 2.10 */
    if (t != PB_F8E4M3 && t != PB_F8E5M2)
        return 1;
    if (fp8_avg_alone(t, op, nranks, why, len))
        return 0;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    const pb_nccl_state_t *st = be->priv;
    if (!pb_nccl_version_at_least(st->lib.version, 2, 24)) {
        pb_nccl_ver_t v = pb_nccl_version_decode(st->lib.version);
        snprintf(why, len, "%s needs NCCL 2.24 or newer (the library loaded is %d.%d)",
                 pb_dtype_name(t), v.major, v.minor);
        return 0;
    }
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, st->device) !=
        cudaSuccess)
        major = 0; /* unknown: refused below with "0.x" */
    if (major >= 9)
        return 1;
    snprintf(why, len, "%s needs a GPU of compute capability 9.0 or newer (this one is %d.x)",
             pb_dtype_name(t), major);
#else
    (void)be;
    snprintf(why, len, "%s needs NCCL 2.24 or newer (built with %d.%d)", pb_dtype_name(t),
             NCCL_MAJOR, NCCL_MINOR);
#endif
    return 0;
}

static int has_in_place(pb_backend_t *be, pb_coll_t c)
{
    (void)be;
    /* NCCL defines in-place for its collectives, not for grouped
     * point-to-point: an all-to-all on one buffer would read what it
     * already overwrote */
    return c != PB_ALLTOALL && c != PB_ALLTOALLV;
}

/* Work on the group's stream returns once issued already; sync() waits. */
static int c_set_async(pb_group_t *g, int on, pb_err_t *err)
{
    (void)g;
    (void)on;
    (void)err;
    return PB_OK;
}

static void *c_stream(const pb_group_t *g) { return pb_nccl_grp(g)->stream; }

/* The GPU moves NCCL's work by itself: nothing to poll. */
static int c_progress(pb_backend_t *be, pb_err_t *err)
{
    (void)be;
    (void)err;
    return PB_OK;
}

static unsigned nccl_caps(pb_memory_t memory)
{
    (void)memory; /* device memory only */
    return PB_CAP_ASYNC | PB_CAP_GRAPH | PB_CAP_DEADLINE | PB_CAP_ROTATE;
}

const pb_comm_ops_t pb_nccl_comm_ops = {
    .name = "nccl",
    .description = "NCCL on CUDA device memory, one rank per GPU",
    .moves = PB_MOVES_DEVICE,
    .caps = nccl_caps,
    .available = nccl_available,
    .init = nccl_init,
    .finalize = nccl_finalize,
    .version = nccl_version,
    .supports = supports,
    .has_in_place = has_in_place,
    .world = nccl_world,
    .split = nccl_split,
    .group_free = group_destroy,
    .knob = pb_nccl_knob,
    .stream = c_stream,
    .allreduce = pb_nccl_allreduce,
    .allgather = pb_nccl_allgather,
    .reduce_scatter = pb_nccl_reduce_scatter,
    .alltoall = pb_nccl_alltoall,
    .alltoallv = pb_nccl_alltoallv,
    .broadcast = pb_nccl_broadcast,
    .reduce = pb_nccl_reduce,
    .sendrecv = pb_nccl_sendrecv,
    .barrier = pb_nccl_barrier,
    .p2p_batch = pb_nccl_p2p_batch,
    .mark = pb_nccl_mark,
    .elapsed = pb_nccl_elapsed,
    .sync = pb_nccl_sync,
    .progress = c_progress,
    .set_async = c_set_async,
    .graph_begin = pb_nccl_graph_begin,
    .graph_end = pb_nccl_graph_end,
    .graph_launch = pb_nccl_graph_launch,
    .graph_release = pb_nccl_graph_release,
    .inject_stall = pb_nccl_stall,
};
