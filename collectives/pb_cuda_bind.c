#include "pb_cuda_bind.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu_pick.h"

#define PB_BUSID 32 /* "0000:1B:00.0" and room to spare */

/* This rank's choice: the device index and its bus id, or an error. */
static int pick_mine(int local, int *device, char *bus, pb_err_t *err)
{
    int ndev = 0;
    cudaError_t rc = cudaGetDeviceCount(&ndev);
    if (rc != cudaSuccess)
        return pb_err_set(err, PB_EINPUT, "no CUDA device: cudaGetDeviceCount returned %d (%s)",
                          (int)rc, cudaGetErrorString(rc));
    *device = pb_gpu_pick(local, ndev);
    if (*device < 0)
        return pb_err_set(err, PB_EINPUT, "no CUDA device: cudaGetDeviceCount found none");
    rc = cudaDeviceGetPCIBusId(bus, PB_BUSID, *device);
    if (rc != cudaSuccess)
        return pb_err_set(err, PB_ERUNTIME, "cudaDeviceGetPCIBusId(%d) failed: %s", *device,
                          cudaGetErrorString(rc));
    return PB_OK;
}

int pb_cuda_bind_local(pb_ctl_t *ctl, int *device, char *bus, size_t len, pb_err_t *err)
{
    pb_ctl_t *node = NULL;
    int local = 0, nlocal = 1, code = PB_OK;
    char mine[PB_BUSID] = "";
    char *all = NULL;
    *device = -1;
    if (pb_ctl_split_node(ctl, &node) != PB_OK)
        code = pb_err_set(err, PB_ERUNTIME, "the split of the world by node failed");
    else
        local = node->rank, nlocal = node->size;
    if (code == PB_OK)
        code = pick_mine(local, device, mine, err);
    /* every rank of the node gathers, also after its own failure (an empty
     * id), so that no rank waits for one that gave up */
    if (node != NULL) {
        all = calloc((size_t)nlocal, PB_BUSID);
        int all_ok = all != NULL;
        if (pb_ctl_allreduce(node, &all_ok, 1, PB_CTL_INT, PB_CTL_MIN) != PB_OK)
            all_ok = 0;
        if (code == PB_OK && !all_ok)
            code = pb_err_set(err, PB_ERUNTIME, "out of memory for the GPU bus ids");
        if (all_ok && pb_ctl_allgather(node, mine, all, PB_BUSID) != PB_OK && code == PB_OK)
            code = pb_err_set(err, PB_ERUNTIME, "the exchange of the GPU bus ids failed");
        char why[200];
        if (code == PB_OK && pb_gpu_check_node(all, nlocal, PB_BUSID, why, sizeof why))
            code = pb_err_set(err, PB_EINPUT, "%s", why);
        free(all);
        pb_ctl_free(node);
    }
    if (code == PB_OK) {
        cudaError_t rc = cudaSetDevice(*device);
        if (rc != cudaSuccess)
            code = pb_err_set(err, PB_ERUNTIME, "cudaSetDevice(%d) failed: %s", *device,
                              cudaGetErrorString(rc));
    }
    /* one verdict for the whole job: a node that failed must not leave the
     * others waiting in the backend's next collective set-up */
    int worst = code;
    if (pb_ctl_allreduce(ctl, &worst, 1, PB_CTL_INT, PB_CTL_MAX) != PB_OK && code == PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "the exchange of the GPU binding verdict failed");
    if (code == PB_OK && worst != PB_OK)
        return pb_err_set(err, worst, "another rank could not bind its GPU");
    if (code == PB_OK)
        snprintf(bus, len, "%s", mine);
    return code;
}
