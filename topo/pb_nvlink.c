#include "pb_nvlink.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double pb_nvlink_link_mbps(const char *model)
{
    if (strstr(model, "P100"))
        return 20000.0;
    if (strstr(model, "B100") || strstr(model, "B200") || strstr(model, "GB200"))
        return 50000.0;
    return 25000.0;
}

/* The GPU index of a distances object: the GPU's OS device (nvml0,
 * cuda0: exporters differ, so any OS device below the PCI device) or the
 * PCI device itself; -1 for anything else (NVSwitch, CPU package). */
static int gpu_of(const pb_topo_t *tp, hwloc_obj_t o)
{
    while (o != NULL && o->type == HWLOC_OBJ_OS_DEVICE)
        o = o->parent;
    for (int g = 0; g < tp->ngpus; g++)
        if (tp->gpus[g].pci == o)
            return g;
    return -1;
}

static int is_switch(hwloc_obj_t o)
{
    /* NVSwitches appear as PCI devices (class 0x0680, NVIDIA); packages
     * (POWER8/9 CPUs with NVLink) are not switches between GPUs */
    return o->type == HWLOC_OBJ_PCI_DEVICE;
}

/* links(a, b) = direct links + through switches the smaller of the two
 * GPUs' switch links. */
void pb_nvlink_combine(pb_topo_t *tp, const double *direct, const double *sw)
{
    int n = tp->ngpus;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            if (a == b) {
                tp->nvlinks[a * n + b] = 0;
                continue;
            }
            double via = sw[a] > 0 && sw[b] > 0 ? fmin(sw[a], sw[b]) : 0.0;
            tp->nvlinks[a * n + b] = (int)lround(direct[a * n + b] + via);
        }
}

int pb_nvlink_from_distances(pb_topo_t *tp, pb_err_t *err)
{
    unsigned nr = 1;
    struct hwloc_distances_s *d = NULL;
    if (hwloc_distances_get_by_name(tp->t, "NVLinkBandwidth", &nr, &d, 0) != 0 || nr == 0) {
        snprintf(tp->nvlink_note, sizeof tp->nvlink_note,
                 "no NVLinkBandwidth distances in the topology: no NVLink information");
        return PB_OK;
    }
    int n = tp->ngpus, code = PB_OK;
    double *direct = calloc((size_t)n * (size_t)n + 1, sizeof *direct);
    double *sw = calloc((size_t)n + 1, sizeof *sw);
    int *idx = calloc(d->nbobjs + 1, sizeof *idx);
    if (direct == NULL || sw == NULL || idx == NULL) {
        code = pb_err_set(err, PB_ERUNTIME, "out of memory reading NVLink distances");
        goto out;
    }
    for (unsigned i = 0; i < d->nbobjs; i++)
        idx[i] = gpu_of(tp, d->objs[i]);
    for (unsigned i = 0; i < d->nbobjs; i++) {
        int a = idx[i];
        if (a < 0)
            continue;
        double per = pb_nvlink_link_mbps(tp->gpus[a].model);
        for (unsigned j = 0; j < d->nbobjs; j++) {
            double v = (double)d->values[i * d->nbobjs + j] / per;
            if (i == j || v <= 0.0)
                continue;
            if (idx[j] >= 0)
                direct[a * n + idx[j]] += v;
            else if (is_switch(d->objs[j]))
                sw[a] += v;
        }
    }
    pb_nvlink_combine(tp, direct, sw);
    tp->nvlink_source = PB_NVLINK_DISTANCES;
out:
    free(direct);
    free(sw);
    free(idx);
    hwloc_distances_release(tp->t, d);
    return code;
}
