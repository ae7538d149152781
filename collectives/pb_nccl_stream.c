/* pb_nccl_stream.c - what the NCCL backend does with a group's stream
 * besides issuing collectives (pb_nccl_priv.h): waiting with a deadline,
 * timing with CUDA events, the --fault stall, CUDA graphs. */
#include <time.h>

#include "pb_cuda_err.h"
#include "pb_cuda_kernels.h"
#include "pb_nccl_priv.h"

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
int pb_nccl_wait(pb_group_t *g, cudaEvent_t ev, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    double timeout = pb_nccl_state_of(g)->timeout_s, start = now_s();
    struct timespec pause = {0, 20000}; /* 20 us: cheap, and far below any timeout */
    for (unsigned spins = 0;; spins++) {
        cudaError_t rc = ev ? cudaEventQuery(ev) : cudaStreamQuery(gg->stream);
        pb_poll_t state = pb_cuda_poll_state((int)rc);
        if (state == PB_POLL_DONE)
            return PB_OK;
        if (state == PB_POLL_FAILED)
            return pb_nccl_cuda_fail(rc, ev ? "cudaEventQuery" : "cudaStreamQuery", err);
        if (pb_cuda_poll_must_clear((int)rc)) {
            /* the query left "not ready" in the last-error slot, where the
             * next launch check would read it as its own failure */
            cudaError_t last = cudaGetLastError();
            if (last != cudaSuccess && last != cudaErrorNotReady)
                return pb_nccl_cuda_fail(last, "cudaGetLastError (after a query)", err);
        }
        ncclResult_t async = ncclSuccess;
        ncclResult_t qrc = lib->CommGetAsyncError(gg->comm, &async);
        if (qrc != ncclSuccess || async != ncclSuccess) {
            pb_nccl_release_stall(gg);
            /* the error reported is the one that made us abort; the
             * abort's own result adds nothing */
            (void)lib->CommAbort(gg->comm);
            gg->comm = NULL;
            return pb_err_set(err, PB_ERUNTIME, "NCCL error during %s: %s", g->doing,
                              lib->GetErrorString(qrc != ncclSuccess ? qrc : async));
        }
        if (timeout > 0.0 && now_s() - start > timeout) {
            pb_nccl_release_stall(gg);
            (void)lib->CommAbort(gg->comm); /* the hang is the error reported */
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

int pb_nccl_mark(pb_group_t *g, int slot, pb_err_t *err)
{
    if (slot < 0 || slot >= PB_NCCL_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot %d out of range", slot);
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    PB_NCCL_CUDA_OK(cudaEventRecord(gg->marks[slot], gg->stream));
    return PB_OK;
}

int pb_nccl_elapsed(pb_group_t *g, int from, int to, double *seconds, pb_err_t *err)
{
    if (from < 0 || to < 0 || from >= PB_NCCL_MARKS || to >= PB_NCCL_MARKS)
        return pb_err_set(err, PB_ERUNTIME, "timer slot out of range");
    const pb_nccl_group_t *gg = pb_nccl_grp(g);
    if (pb_nccl_wait(g, gg->marks[to], err) != PB_OK)
        return err->code;
    float ms = 0.0f;
    PB_NCCL_CUDA_OK(cudaEventElapsedTime(&ms, gg->marks[from], gg->marks[to]));
    *seconds = (double)ms * 1e-3;
    return PB_OK;
}

int pb_nccl_sync(pb_group_t *g, pb_err_t *err) { return pb_nccl_wait(g, NULL, err); }

int pb_nccl_stall(pb_group_t *g, double seconds, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    if (gg->stall_release == NULL) {
        void *p = NULL;
        PB_NCCL_CUDA_OK(cudaHostAlloc(&p, sizeof(int), cudaHostAllocMapped));
        gg->stall_release = p;
    }
    *gg->stall_release = 0;
    int *dev = NULL;
    PB_NCCL_CUDA_OK(cudaHostGetDevicePointer((void **)&dev, (void *)gg->stall_release, 0));
    PB_NCCL_CUDA_OK((cudaError_t)pb_cuda_stall(seconds, gg->stream, dev));
    return PB_OK;
}

/* The executable graph first, then the graph it was made from; both
 * before the buffers they were captured on are freed (pb_bufs_free).
 * Teardown: a failure here could only repeat an earlier one. */
void pb_nccl_graph_release(pb_group_t *g)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    if (gg->exec) {
        (void)cudaGraphExecDestroy(gg->exec);
        gg->exec = NULL;
    }
    if (gg->graph) {
        (void)cudaGraphDestroy(gg->graph);
        gg->graph = NULL;
    }
}

int pb_nccl_graph_begin(pb_group_t *g, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    pb_nccl_graph_release(g);
    PB_NCCL_CUDA_OK(cudaStreamBeginCapture(gg->stream, cudaStreamCaptureModeThreadLocal));
    return PB_OK;
}

int pb_nccl_graph_end(pb_group_t *g, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    PB_NCCL_CUDA_OK(cudaStreamEndCapture(gg->stream, &gg->graph));
    PB_NCCL_CUDA_OK(cudaGraphInstantiate(&gg->exec, gg->graph, 0));
    return PB_OK;
}

int pb_nccl_graph_launch(pb_group_t *g, uint64_t times, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    if (gg->exec == NULL)
        return pb_err_set(err, PB_ERUNTIME, "no graph captured");
    for (uint64_t i = 0; i < times; i++)
        PB_NCCL_CUDA_OK(cudaGraphLaunch(gg->exec, gg->stream));
    return PB_OK;
}
