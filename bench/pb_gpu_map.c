#include "pb_gpu_map.h"

#include <stdio.h>
#include <string.h>

#ifdef PARBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

static int by_busid(const pb_topo_t *tp, const char *busid)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return -1;
    for (int g = 0; g < tp->ngpus; g++) {
        const struct hwloc_pcidev_attr_s *p = &tp->gpus[g].pci->attr->pcidev;
        if (p->domain == dom && p->bus == bus && p->dev == dev && p->func == fn)
            return g;
    }
    return -1;
}

int pb_gpu_map_local(const pb_topo_t *tp, int local_rank)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    /* cudaErrorNoDevice (100), cudaErrorInsufficientDriver (35), or any
     * other failure: this rank has no usable GPU */
    if (rc != cudaSuccess || count <= 0)
        return -1;
    char busid[32];
    if (cudaDeviceGetPCIBusId(busid, (int)sizeof busid, local_rank % count) != cudaSuccess)
        return -1;
    return by_busid(tp, busid);
}
#else
int pb_gpu_map_local(const pb_topo_t *tp, int local_rank)
{
    return tp->ngpus > 0 ? local_rank % tp->ngpus : -1;
}
#endif
