/* pb_gpu_map.h - which GPU a rank drives, as a PCI bus id.
 *
 * With CUDA in the build the runtime answers (cudaGetDeviceCount, then
 * cudaDeviceGetPCIBusId of device local_rank % count); "no device" and
 * "insufficient driver" (errors 100 and 35) mean no GPU, as on a machine
 * without one.  Without CUDA the GPUs hwloc lists as PCI devices are
 * assigned the same way. */
#ifndef PB_GPU_MAP_H
#define PB_GPU_MAP_H

#include <stddef.h>

#include "../../topo/pb_topo.h"

/* The index into tp->gpus of this rank's GPU, or -1 when it has none. */
int pb_gpu_map_local(const pb_topo_t *tp, int local_rank);

#endif
