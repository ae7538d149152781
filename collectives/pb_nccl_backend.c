/* The NCCL communication side: collectives on CUDA device memory, one
 * rank per GPU.  Its buffers, fills, checks and compute stand-in are the
 * CUDA memory side's (pb_cuda_mem.c), ordered on this side's streams.
 *
 * MPI bootstraps it (the unique id travels by MPI_Bcast, the local rank
 * picks the GPU) and stays the host control plane; every data movement
 * is NCCL's, on a dedicated stream per group.  Timing is CUDA events on
 * that stream.  Waiting is polling with a deadline, so a hang is
 * reported with what hung instead of blocking forever. */
#define _GNU_SOURCE /* RTLD_DEFAULT: look up NCCL entry points at run time */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pb_backend.h"
#include "pb_cuda_bind.h"
#include "pb_cuda_err.h"
#include "pb_cuda_kernels.h"
#include "pb_nccl_ver.h"

#define NCCL_MARKS 4

/* Entry points newer than the oldest supported library (pb_nccl_ver.h):
 * found by dlsym, never linked, so an older libnccl.so.2 still loads. */
typedef ncclResult_t (*split_fn_t)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *);
typedef ncclResult_t (*alltoall_fn_t)(const void *, void *, size_t, ncclDataType_t, ncclComm_t,
                                      cudaStream_t);

typedef struct nccl_state {
    MPI_Comm world;
    int device;
    int lib_version;        /* ncclGetVersion() of the library loaded */
    split_fn_t split;       /* ncclCommSplit, 2.18 */
    alltoall_fn_t alltoall; /* ncclAlltoAll, 2.28; NULL: grouped send/recv */
    double timeout_s;
} nccl_state_t;

/* A symbol of the loaded libnccl, or NULL.  POSIX guarantees that a
 * dlsym result converts to a function pointer; memcpy says so to ISO C. */
static void lookup(const char *name, void *fn, size_t size)
{
    void *sym = dlsym(RTLD_DEFAULT, name);
    memset(fn, 0, size);
    if (sym != NULL && size == sizeof sym)
        memcpy(fn, &sym, sizeof sym);
}

typedef struct nccl_group {
    ncclComm_t comm;
    cudaStream_t stream;
    cudaEvent_t marks[NCCL_MARKS];
    unsigned long long *scratch; /* device: the barrier's one element */
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    /* --fault stall: a flag in mapped host memory that the stall kernel
     * reads; set before the communicator is aborted or the stream
     * synchronised, so that neither waits an hour behind the kernel */
    volatile int *stall_release;
} nccl_group_t;

/* Ends a running stall kernel (no-op without one). */
static void release_stall(nccl_group_t *gg)
{
    if (gg->stall_release != NULL) {
        *gg->stall_release = 1;
        __sync_synchronize(); /* the store is visible before the abort's wait */
    }
}

static nccl_state_t *state_of(const pb_group_t *g) { return g->be->priv; }
static nccl_group_t *ng(const pb_group_t *g) { return g->priv; }

static int cuda_fail(cudaError_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s (%d)", call, cudaGetErrorString(rc),
                      (int)rc);
}

static int nccl_fail(ncclResult_t rc, const char *call, pb_err_t *err)
{
    return pb_err_set(err, PB_ERUNTIME, "%s failed: %s", call, ncclGetErrorString(rc));
}

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t rc_ = (call);                                                      \
        if (rc_ != cudaSuccess)                                                        \
            return cuda_fail(rc_, #call, err);                                         \
    } while (0)

#define NCCL_OK(call, name)                                                            \
    do {                                                                               \
        ncclResult_t rc_ = (call);                                                     \
        if (rc_ != ncclSuccess)                                                        \
            return nccl_fail(rc_, name, err);                                          \
    } while (0)

static int nccl_available(char *why, size_t len)
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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for `ev` (or the whole stream when ev is NULL) while watching the
 * communicator for asynchronous errors and the clock for a hang.  On a
 * hang the communicator is aborted, so no rank stays stuck inside NCCL,
 * and the message names what the group was doing. */
static int wait_for(pb_group_t *g, cudaEvent_t ev, pb_err_t *err)
{
    nccl_group_t *gg = ng(g);
    double timeout = state_of(g)->timeout_s, start = now_s();
    struct timespec pause = {0, 20000}; /* 20 us: cheap, and far below any timeout */
    for (unsigned spins = 0;; spins++) {
        cudaError_t rc = ev ? cudaEventQuery(ev) : cudaStreamQuery(gg->stream);
        pb_poll_t state = pb_cuda_poll_state((int)rc);
        if (state == PB_POLL_DONE)
            return PB_OK;
        if (state == PB_POLL_FAILED)
            return cuda_fail(rc, ev ? "cudaEventQuery" : "cudaStreamQuery", err);
        if (pb_cuda_poll_must_clear((int)rc)) {
            /* the query left "not ready" in the last-error slot, where the
             * next launch check would read it as its own failure */
            cudaError_t last = cudaGetLastError();
            if (last != cudaSuccess && last != cudaErrorNotReady)
                return cuda_fail(last, "cudaGetLastError (after a query)", err);
        }
        ncclResult_t async = ncclSuccess;
        ncclResult_t qrc = ncclCommGetAsyncError(gg->comm, &async);
        if (qrc != ncclSuccess || async != ncclSuccess) {
            release_stall(gg);
            ncclCommAbort(gg->comm);
            gg->comm = NULL;
            return pb_err_set(err, PB_ERUNTIME, "NCCL error during %s: %s", g->doing,
                              ncclGetErrorString(qrc != ncclSuccess ? qrc : async));
        }
        if (timeout > 0.0 && now_s() - start > timeout) {
            release_stall(gg);
            ncclCommAbort(gg->comm);
            gg->comm = NULL;
            return pb_err_set(err, PB_ERUNTIME,
                              "hang: %s did not finish within %.0f s on group rank %d of %d; "
                              "communicator aborted",
                              g->doing[0] ? g->doing : "an operation", timeout, g->rank, g->size);
        }
        if (spins > 1000) /* spin briefly for short operations, then sleep */
            nanosleep(&pause, NULL);
    }
}

static int nccl_init(pb_backend_t *be, const pb_backend_config_t *cfg, pb_err_t *err)
{
    char why[200];
    if (!nccl_available(why, sizeof why))
        return pb_err_set(err, PB_EINPUT, "%s", why);
    nccl_state_t *st = calloc(1, sizeof *st);
    if (st == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the NCCL backend");
    be->priv = st;
    st->timeout_s = cfg->timeout_s;
    /* the library's version, not the header's: they differ when parbench
     * runs with an older libnccl.so.2 than it was built against */
    NCCL_OK(ncclGetVersion(&st->lib_version), "ncclGetVersion");
    if (pb_nccl_version_check(st->lib_version, why, sizeof why))
        return pb_err_set(err, PB_EINPUT, "%s", why);
    lookup("ncclCommSplit", &st->split, sizeof st->split);
    if (st->split == NULL)
        return pb_err_set(err, PB_EINPUT, "the NCCL library loaded has no ncclCommSplit");
    if (pb_nccl_version_at_least(st->lib_version, 2, 28))
        lookup("ncclAlltoAll", &st->alltoall, sizeof st->alltoall);
    MPI_Comm parent = cfg->world_comm ? *(const MPI_Comm *)cfg->world_comm : MPI_COMM_WORLD;
    if (MPI_Comm_dup(parent, &st->world) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_Comm_dup failed");
    /* one rank per GPU: local rank modulo the visible devices, so that
     * per-rank binding (each rank sees one GPU) works too; two ranks of a
     * node on one GPU are refused by bus id (pb_gpu_pick.h) */
    char bus[32] = "?";
    return pb_cuda_bind_local(st->world, &st->device, bus, sizeof bus, err);
}

static void nccl_finalize(pb_backend_t *be)
{
    nccl_state_t *st = be->priv;
    if (st == NULL)
        return;
    if (st->world != MPI_COMM_NULL && st->world != 0)
        MPI_Comm_free(&st->world);
    free(st);
    be->priv = NULL;
}

static void nccl_version(pb_backend_t *be, char *buf, size_t len)
{
    (void)be;
    int lib = 0, rt = 0, drv = 0;
    /* a failed query prints as 0.0 */
    if (ncclGetVersion(&lib) != ncclSuccess)
        lib = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess)
        rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    pb_nccl_ver_t v = pb_nccl_version_decode(lib);
    snprintf(buf, len, "NCCL %d.%d.%d (header %d.%d.%d), CUDA runtime %d.%d, driver %d.%d",
             v.major, v.minor, v.patch, NCCL_MAJOR, NCCL_MINOR, NCCL_PATCH, rt / 1000,
             rt % 1000 / 10, drv / 1000, drv % 1000 / 10);
}

static void group_destroy(pb_group_t *g)
{
    if (g == NULL)
        return;
    nccl_group_t *gg = g->priv;
    if (gg) {
        release_stall(gg);
        if (gg->stream)
            cudaStreamSynchronize(gg->stream);
        if (gg->exec)
            cudaGraphExecDestroy(gg->exec);
        if (gg->graph)
            cudaGraphDestroy(gg->graph);
        for (int i = 0; i < NCCL_MARKS; i++)
            if (gg->marks[i])
                cudaEventDestroy(gg->marks[i]);
        if (gg->scratch)
            cudaFree(gg->scratch);
        if (gg->comm)
            ncclCommDestroy(gg->comm);
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
    pb_group_t *g = calloc(1, sizeof *g);
    nccl_group_t *gg = calloc(1, sizeof *gg);
    if (g == NULL || gg == NULL) {
        free(g);
        free(gg);
        ncclCommDestroy(comm);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for a group");
    }
    g->be = be;
    g->priv = gg;
    gg->comm = comm;
    *out = g;
    int code = PB_OK;
    cudaError_t rc = cudaStreamCreateWithFlags(&gg->stream, cudaStreamNonBlocking);
    for (int i = 0; i < NCCL_MARKS && rc == cudaSuccess; i++)
        rc = cudaEventCreate(&gg->marks[i]);
    if (rc == cudaSuccess)
        rc = cudaMalloc((void **)&gg->scratch, sizeof *gg->scratch);
    if (rc != cudaSuccess)
        code = cuda_fail(rc, "creating a group's stream, events and scratch", err);
    ncclResult_t nrc = ncclSuccess;
    if (code == PB_OK && (nrc = ncclCommUserRank(comm, &g->rank)) == ncclSuccess)
        nrc = ncclCommCount(comm, &g->size);
    if (code == PB_OK && nrc != ncclSuccess)
        code = nccl_fail(nrc, "ncclCommUserRank/Count", err);
    if (code != PB_OK) {
        group_destroy(g);
        *out = NULL;
    }
    return code;
}

static int nccl_world(pb_backend_t *be, pb_group_t **out, pb_err_t *err)
{
    nccl_state_t *st = be->priv;
    int rank, size;
    MPI_Comm_rank(st->world, &rank);
    MPI_Comm_size(st->world, &size);
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    ncclResult_t rc = rank == 0 ? ncclGetUniqueId(&id) : ncclSuccess;
    /* rank 0's failure must not leave the others waiting for an id */
    int ok = rc == ncclSuccess;
    MPI_Bcast(&ok, 1, MPI_INT, 0, st->world);
    if (!ok)
        return rank == 0 ? nccl_fail(rc, "ncclGetUniqueId", err)
                         : pb_err_set(err, PB_ERUNTIME, "rank 0 could not create an NCCL id");
    if (MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, st->world) != MPI_SUCCESS)
        return pb_err_set(err, PB_ERUNTIME, "MPI_Bcast of the NCCL id failed");
    ncclComm_t comm;
    NCCL_OK(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank");
    return group_wrap(be, comm, out, err);
}

static int nccl_split(pb_group_t *parent, int color, int key, pb_group_t **out, pb_err_t *err)
{
    ncclComm_t comm = NULL;
    NCCL_OK(state_of(parent)->split(ng(parent)->comm, color < 0 ? NCCL_SPLIT_NOCOLOR : color,
                                    key, &comm, NULL),
            "ncclCommSplit");
    if (comm == NULL) {
        *out = NULL;
        return PB_OK;
    }
    return group_wrap(parent->be, comm, out, err);
}

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

static int supports(pb_backend_t *be, pb_dtype_t t, pb_redop_t op, char *why, size_t len)
{
    (void)op; /* sum, max, min and avg: every NCCL since 2.10 */
    if (t != PB_F8E4M3 && t != PB_F8E5M2)
        return 1;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 24, 0)
    const nccl_state_t *st = be->priv;
    if (!pb_nccl_version_at_least(st->lib_version, 2, 24)) {
        pb_nccl_ver_t v = pb_nccl_version_decode(st->lib_version);
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

static size_t esize(pb_dtype_t t) { return pb_dtype_size(t); }

static int c_allreduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                       pb_redop_t op, pb_err_t *err)
{
    NCCL_OK(ncclAllReduce(s, r, (size_t)n, nccl_type(t), nccl_op(op), ng(g)->comm, ng(g)->stream),
            "ncclAllReduce");
    return PB_OK;
}

static int c_allgather(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                       pb_err_t *err)
{
    NCCL_OK(ncclAllGather(s, r, (size_t)n, nccl_type(t), ng(g)->comm, ng(g)->stream),
            "ncclAllGather");
    return PB_OK;
}

static int c_reduce_scatter(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                            pb_redop_t op, pb_err_t *err)
{
    NCCL_OK(ncclReduceScatter(s, r, (size_t)n, nccl_type(t), nccl_op(op), ng(g)->comm,
                              ng(g)->stream),
            "ncclReduceScatter");
    return PB_OK;
}

static int p2p_pair(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t n,
                    pb_dtype_t t, pb_err_t *err)
{
    if (dst >= 0)
        NCCL_OK(ncclSend(s, (size_t)n, nccl_type(t), dst, ng(g)->comm, ng(g)->stream),
                "ncclSend");
    if (src >= 0)
        NCCL_OK(ncclRecv(r, (size_t)n, nccl_type(t), src, ng(g)->comm, ng(g)->stream),
                "ncclRecv");
    return PB_OK;
}

static int c_alltoall(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                      pb_err_t *err)
{
    alltoall_fn_t a2a = state_of(g)->alltoall;
    if (a2a != NULL) {
        NCCL_OK(a2a(s, r, (size_t)n, nccl_type(t), ng(g)->comm, ng(g)->stream), "ncclAlltoAll");
        return PB_OK;
    }
    /* a library before 2.28: the same exchange as one group of pairs */
    NCCL_OK(ncclGroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int p = 0; p < g->size && code == PB_OK; p++)
        code = p2p_pair(g, (const char *)s + (uint64_t)p * n * esize(t), p,
                        (char *)r + (uint64_t)p * n * esize(t), p, n, t, err);
    ncclResult_t rc = ncclGroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = nccl_fail(rc, "ncclGroupEnd", err);
    return code;
}

static int c_alltoallv(pb_group_t *g, const void *s, const uint64_t *sc, const uint64_t *sd,
                       void *r, const uint64_t *rcnt, const uint64_t *rd, pb_dtype_t t,
                       pb_err_t *err)
{
    NCCL_OK(ncclGroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int p = 0; p < g->size && code == PB_OK; p++) {
        const char *sp = (const char *)s + sd[p] * esize(t);
        char *rp = (char *)r + rd[p] * esize(t);
        if (sc[p] && ncclSend(sp, (size_t)sc[p], nccl_type(t), p, ng(g)->comm, ng(g)->stream))
            code = pb_err_set(err, PB_ERUNTIME, "ncclSend to %d failed", p);
        if (code == PB_OK && rcnt[p] &&
            ncclRecv(rp, (size_t)rcnt[p], nccl_type(t), p, ng(g)->comm, ng(g)->stream))
            code = pb_err_set(err, PB_ERUNTIME, "ncclRecv from %d failed", p);
    }
    ncclResult_t rc = ncclGroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = nccl_fail(rc, "ncclGroupEnd", err);
    return code;
}

static int c_broadcast(pb_group_t *g, void *buf, uint64_t n, pb_dtype_t t, int root,
                       pb_err_t *err)
{
    NCCL_OK(ncclBroadcast(buf, buf, (size_t)n, nccl_type(t), root, ng(g)->comm, ng(g)->stream),
            "ncclBroadcast");
    return PB_OK;
}

static int c_reduce(pb_group_t *g, const void *s, void *r, uint64_t n, pb_dtype_t t,
                    pb_redop_t op, int root, pb_err_t *err)
{
    NCCL_OK(ncclReduce(s, r, (size_t)n, nccl_type(t), nccl_op(op), root, ng(g)->comm,
                       ng(g)->stream),
            "ncclReduce");
    return PB_OK;
}

static int c_sendrecv(pb_group_t *g, const void *s, int dst, void *r, int src, uint64_t n,
                      pb_dtype_t t, pb_err_t *err)
{
    NCCL_OK(ncclGroupStart(), "ncclGroupStart");
    int code = p2p_pair(g, s, dst, r, src, n, t, err);
    ncclResult_t rc = ncclGroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = nccl_fail(rc, "ncclGroupEnd", err);
    return code;
}

static int c_barrier(pb_group_t *g, pb_err_t *err)
{
    /* a one-element all-reduce every rank must reach, then wait for it:
     * host and device of every rank are past the same point */
    NCCL_OK(ncclAllReduce(ng(g)->scratch, ng(g)->scratch, 1, ncclUint64, ncclSum,
                          ng(g)->comm, ng(g)->stream),
            "ncclAllReduce (barrier)");
    return wait_for(g, NULL, err);
}

static int c_mark(pb_group_t *g, int slot, pb_err_t *err)
{
    if (slot < 0 || slot >= NCCL_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot %d out of range", slot);
    CUDA_OK(cudaEventRecord(ng(g)->marks[slot], ng(g)->stream));
    return PB_OK;
}

static int c_elapsed(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err)
{
    if (from < 0 || to < 0 || from >= NCCL_MARKS || to >= NCCL_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot out of range");
    if (wait_for(g, ng(g)->marks[to], err) != PB_OK)
        return err->code;
    float ms = 0.0f;
    CUDA_OK(cudaEventElapsedTime(&ms, ng(g)->marks[from], ng(g)->marks[to]));
    *seconds = (double)ms * 1e-3;
    return PB_OK;
}

static int c_sync(pb_group_t *g, pb_err_t *err) { return wait_for(g, NULL, err); }

static int c_stall(pb_group_t *g, double seconds, pb_err_t *err)
{
    nccl_group_t *gg = ng(g);
    if (gg->stall_release == NULL) {
        void *p = NULL;
        CUDA_OK(cudaHostAlloc(&p, sizeof(int), cudaHostAllocMapped));
        gg->stall_release = p;
    }
    *gg->stall_release = 0;
    int *dev = NULL;
    CUDA_OK(cudaHostGetDevicePointer((void **)&dev, (void *)gg->stall_release, 0));
    CUDA_OK((cudaError_t)pb_cuda_stall(seconds, gg->stream, dev));
    return PB_OK;
}

/* One NCCL group of sends and receives in the caller's order: NCCL pairs
 * point-to-point operations between two ranks by issue order (it has no
 * tags), so the caller's agreed order is what pairs them.  size_t counts:
 * no splitting. */
static int c_p2p_batch(pb_group_t *g, const pb_p2p_part_t *ops, int n, pb_dtype_t t,
                       pb_err_t *err)
{
    for (int i = 0; i < n; i++)
        if (ops[i].peer < 0 || ops[i].peer >= g->size)
            return pb_err_set(err, PB_ERUNTIME, "p2p part %d: peer %d outside the group of %d",
                              i, ops[i].peer, g->size);
    NCCL_OK(ncclGroupStart(), "ncclGroupStart");
    int code = PB_OK;
    for (int i = 0; i < n && code == PB_OK; i++) {
        const pb_p2p_part_t *p = &ops[i];
        ncclResult_t rc =
            p->send ? ncclSend(p->buf, (size_t)p->count, nccl_type(t), p->peer, ng(g)->comm,
                               ng(g)->stream)
                    : ncclRecv(p->buf, (size_t)p->count, nccl_type(t), p->peer, ng(g)->comm,
                               ng(g)->stream);
        if (rc != ncclSuccess)
            code = nccl_fail(rc, p->send ? "ncclSend" : "ncclRecv", err);
    }
    /* the group is always closed, also after a failed part */
    ncclResult_t rc = ncclGroupEnd();
    if (code == PB_OK && rc != ncclSuccess)
        code = nccl_fail(rc, "ncclGroupEnd", err);
    return code;
}

/* Work on the group's stream returns once issued already; sync() waits. */
static int c_set_async(pb_group_t *g, int on, pb_err_t *err)
{
    (void)g;
    (void)on;
    (void)err;
    return PB_OK;
}

/* The executable graph first, then the graph it was made from; both
 * before the buffers they were captured on are freed (pb_bufs_free).
 * Teardown: a failure here could only repeat an earlier one. */
static void c_graph_release(pb_group_t *g)
{
    nccl_group_t *gg = ng(g);
    if (gg->exec) {
        (void)cudaGraphExecDestroy(gg->exec);
        gg->exec = NULL;
    }
    if (gg->graph) {
        (void)cudaGraphDestroy(gg->graph);
        gg->graph = NULL;
    }
}

static int c_graph_begin(pb_group_t *g, pb_err_t *err)
{
    nccl_group_t *gg = ng(g);
    c_graph_release(g);
    CUDA_OK(cudaStreamBeginCapture(gg->stream, cudaStreamCaptureModeThreadLocal));
    return PB_OK;
}

static int c_graph_end(pb_group_t *g, pb_err_t *err)
{
    nccl_group_t *gg = ng(g);
    CUDA_OK(cudaStreamEndCapture(gg->stream, &gg->graph));
    CUDA_OK(cudaGraphInstantiate(&gg->exec, gg->graph, 0));
    return PB_OK;
}

static int c_graph_launch(pb_group_t *g, uint64_t times, pb_err_t *err)
{
    nccl_group_t *gg = ng(g);
    if (gg->exec == NULL)
        return pb_err_set(err, PB_ERUNTIME, "no graph captured");
    for (uint64_t i = 0; i < times; i++)
        CUDA_OK(cudaGraphLaunch(gg->exec, gg->stream));
    return PB_OK;
}

static void *c_stream(const pb_group_t *g) { return ng(g)->stream; }

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
    return PB_CAP_ASYNC | PB_CAP_GRAPH | PB_CAP_DEADLINE;
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
    .stream = c_stream,
    .allreduce = c_allreduce,
    .allgather = c_allgather,
    .reduce_scatter = c_reduce_scatter,
    .alltoall = c_alltoall,
    .alltoallv = c_alltoallv,
    .broadcast = c_broadcast,
    .reduce = c_reduce,
    .sendrecv = c_sendrecv,
    .barrier = c_barrier,
    .p2p_batch = c_p2p_batch,
    .mark = c_mark,
    .elapsed = c_elapsed,
    .sync = c_sync,
    .progress = c_progress,
    .set_async = c_set_async,
    .graph_begin = c_graph_begin,
    .graph_end = c_graph_end,
    .graph_launch = c_graph_launch,
    .graph_release = c_graph_release,
    .inject_stall = c_stall,
};
