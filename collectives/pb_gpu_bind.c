/* pb_gpu_bind.c - pb_gpu_bind.h: a rank's GPU, through the runtime
 * table. */
#include "pb_gpu_bind.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_gpu_pick.h"

#define PB_BUSID 32 /* "0000:1B:00.0" and room to spare */

/* This rank's choice: the device index and its bus id, or an error. */
static int pick_mine(const pb_gpurt_t *rt, int local, int *device, char *bus, pb_err_t *err)
{
    int ndev = 0;
    const char *none = rt->vendor == PB_GPU_AMD ? "no AMD GPU" : "no CUDA device";
    int rc = rt->device_count(rt, &ndev);
    if (rc != 0)
        return pb_err_set(err, PB_EINPUT, "%s: %sGetDeviceCount returned %d (%s)", none,
                          rt->name, rc, rt->err_string(rt, rc));
    *device = pb_gpu_pick(local, ndev);
    if (*device < 0)
        return pb_err_set(err, PB_EINPUT, "%s: %sGetDeviceCount found none", none, rt->name);
    rc = rt->bus_id(rt, *device, bus, PB_BUSID);
    if (rc != 0)
        return pb_err_set(err, PB_ERUNTIME, "%sDeviceGetPCIBusId(%d) failed: %s", rt->name,
                          *device, rt->err_string(rt, rc));
    return PB_OK;
}

int pb_gpu_bind_local(const pb_gpurt_t *rt, pb_ctl_t *ctl, int *device, char *bus, size_t len,
                      pb_err_t *err)
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
        code = pick_mine(rt, local, device, mine, err);
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
        int rc = rt->set_device(rt, *device);
        if (rc != 0)
            code = pb_err_set(err, PB_ERUNTIME, "%sSetDevice(%d) failed: %s", rt->name, *device,
                              rt->err_string(rt, rc));
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

#ifdef PARBENCH_HAVE_CUDA
int pb_cuda_bind_local(pb_ctl_t *ctl, int *device, char *bus, size_t len, pb_err_t *err)
{
    pb_gpurt_t rt;
    char why[200];
    if (pb_gpurt_cuda_open(&rt, why, sizeof why) != 0) /* linked: does not fail */
        return pb_err_set(err, PB_ERUNTIME, "%s", why);
    int code = pb_gpu_bind_local(&rt, ctl, device, bus, len, err);
    pb_gpurt_close(&rt);
    return code;
}
#endif
