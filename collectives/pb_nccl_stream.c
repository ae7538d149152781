/* pb_nccl_stream.c - what the NCCL-API backend does with a group's
 * stream besides issuing collectives (pb_nccl_priv.h): waiting with a
 * deadline, timing with the runtime's events, the --fault stall, graphs;
 * all through the runtime table (CUDA or HIP). */
#include <time.h>

#include "pb_cuda_err.h"
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
int pb_nccl_wait(pb_group_t *g, void *ev, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_nccl_lib_t *lib = pb_nccl_lib_of(g);
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    double timeout = pb_nccl_state_of(g)->timeout_s, start = now_s();
    struct timespec pause = {0, 20000}; /* 20 us: cheap, and far below any timeout */
    for (unsigned spins = 0;; spins++) {
        int rc = ev ? rt->event_query(rt, ev) : rt->stream_query(rt, gg->stream);
        pb_poll_t state = pb_gpu_poll_state(rc, rt->not_ready);
        if (state == PB_POLL_DONE)
            return PB_OK;
        if (state == PB_POLL_FAILED)
            return pb_nccl_gpu_fail(rt, rc, ev ? "EventQuery" : "StreamQuery", err);
        if (pb_gpu_poll_must_clear(rc, rt->not_ready)) {
            /* the query left "not ready" in the last-error slot, where the
             * next launch check would read it as its own failure */
            int last = rt->get_last_error(rt);
            if (last != 0 && last != rt->not_ready)
                return pb_nccl_gpu_fail(rt, last, "GetLastError (after a query)", err);
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
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    PB_NCCL_GPU_OK(rt, rt->event_record(rt, gg->marks[slot], gg->stream), "EventRecord");
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
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    PB_NCCL_GPU_OK(rt, rt->event_elapsed_ms(rt, &ms, gg->marks[from], gg->marks[to]),
                   "EventElapsedTime");
    *seconds = (double)ms * 1e-3;
    return PB_OK;
}

int pb_nccl_sync(pb_group_t *g, pb_err_t *err) { return pb_nccl_wait(g, NULL, err); }

int pb_nccl_stall(pb_group_t *g, double seconds, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    if (gg->stall_release == NULL) {
        void *p = NULL;
        PB_NCCL_GPU_OK(rt, rt->host_alloc_mapped(rt, &p, sizeof(int)), "HostAlloc (mapped)");
        gg->stall_release = p;
    }
    *gg->stall_release = 0;
    void *dev = NULL;
    PB_NCCL_GPU_OK(rt, rt->host_dev_ptr(rt, &dev, (void *)gg->stall_release),
                   "HostGetDevicePointer");
    PB_NCCL_GPU_OK(rt, rt->stall(rt, seconds, gg->stream, dev), " stall kernel");
    return PB_OK;
}

/* The executable graph first, then the graph it was made from; both
 * before the buffers they were captured on are freed (pb_bufs_free).
 * Teardown: a failure here could only repeat an earlier one. */
void pb_nccl_graph_release(pb_group_t *g)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    if (gg->exec) {
        (void)rt->graph_exec_destroy(rt, gg->exec);
        gg->exec = NULL;
    }
    if (gg->graph) {
        (void)rt->graph_destroy(rt, gg->graph);
        gg->graph = NULL;
    }
}

int pb_nccl_graph_begin(pb_group_t *g, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    pb_nccl_graph_release(g);
    /* thread-local capture mode (pb_gpurt.h) */
    PB_NCCL_GPU_OK(rt, rt->capture_begin(rt, gg->stream), "StreamBeginCapture");
    return PB_OK;
}

int pb_nccl_graph_end(pb_group_t *g, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    PB_NCCL_GPU_OK(rt, rt->capture_end(rt, gg->stream, &gg->graph), "StreamEndCapture");
    PB_NCCL_GPU_OK(rt, rt->graph_instantiate(rt, &gg->exec, gg->graph), "GraphInstantiate");
    return PB_OK;
}

int pb_nccl_graph_launch(pb_group_t *g, uint64_t times, pb_err_t *err)
{
    pb_nccl_group_t *gg = pb_nccl_grp(g);
    if (gg->exec == NULL)
        return pb_err_set(err, PB_ERUNTIME, "no graph captured");
    const pb_gpurt_t *rt = pb_nccl_rt_of(g);
    for (uint64_t i = 0; i < times; i++)
        PB_NCCL_GPU_OK(rt, rt->graph_launch(rt, gg->exec, gg->stream), "GraphLaunch");
    return PB_OK;
}
