/* pb_gpu_bind.h - binds this rank to its GPU through a runtime table
 * (pb_gpurt.h: CUDA or HIP): the device choice of pb_gpu_pick.h, the
 * bus-id check within the node, and set_device, for every backend that
 * puts buffers on a GPU. */
#ifndef PB_GPU_BIND_H
#define PB_GPU_BIND_H

#include <stddef.h>

#include "pb_ctl.h"
#include "pb_gpurt.h"

#include "../util/pb_err.h"

/* Collective over `ctl`: every rank returns the same code.  On success
 * *device is the current device of the calling thread and `bus` (len
 * bytes) its PCI bus id. */
int pb_gpu_bind_local(const pb_gpurt_t *rt, pb_ctl_t *ctl, int *device, char *bus, size_t len,
                      pb_err_t *err);

/* The same through the CUDA runtime (CUDA builds: the mpi backend's
 * device memory). */
int pb_cuda_bind_local(pb_ctl_t *ctl, int *device, char *bus, size_t len, pb_err_t *err);

#endif
