/* pb_cuda_mem.h - the GPU memory a backend on device buffers allocates
 * from (CUDA builds only): shared by the NCCL backend and the MPI backend
 * on device memory, the two tables that put buffers on a GPU. */
#ifndef PB_CUDA_MEM_H
#define PB_CUDA_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "pb_backend.h"

/* The backend ops table's mem_available: this GPU's free memory
 * (cudaMemGetInfo).  One rank per GPU, so it is this rank's alone. */
int pb_cuda_mem_available(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                          size_t len);

#endif
