#include "pb_gpu_map.h"

#include <stdio.h>
#include <string.h>

#include "../../collectives/pb_gpu_pick.h"

#ifdef PARBENCH_HAVE_CUDA
#include <cuda_runtime_api.h>

int pb_gpu_map_local(const pb_topo_t *tp, int local_rank)
{
    int count = 0;
    cudaError_t rc = cudaGetDeviceCount(&count);
    /* cudaErrorNoDevice (100), cudaErrorInsufficientDriver (35), or any
     * other failure: this rank has no usable GPU */
    if (rc != cudaSuccess || count <= 0)
        return -1;
    char busid[32];
    if (cudaDeviceGetPCIBusId(busid, (int)sizeof busid, pb_gpu_pick(local_rank, count)) !=
        cudaSuccess)
        return -1;
    return pb_topo_gpu_by_busid(tp, busid);
}
#else
int pb_gpu_map_local(const pb_topo_t *tp, int local_rank)
{
    return pb_gpu_pick(local_rank, tp->ngpus);
}
#endif
