/* pb_gpu_native.h - whether the GPU kernels run on the device: what the
 * GPU memory side (pb_gpu_mem.c) tells pb_backend_open beyond its table,
 * and what the HIP table (pb_gpurt_hip.c) tells the memory side.  A
 * header of its own so that pb_backend.c needs nothing of pb_gpu_mem.c's,
 * which includes pb_backend.h. */
#ifndef PB_GPU_NATIVE_H
#define PB_GPU_NATIVE_H

#include "pb_gpurt.h"

/* 1 when the memory side opened with `mem_priv` (be->mem_priv of a GPU
 * memory side) has its kernels on the device: always on CUDA; on HIP only
 * where a code object matched the GPU (the host fallback of
 * pb_hip_kernels.h has no compute stand-in, PB_CAP_BUSY). */
int pb_gpu_mem_native(const void *mem_priv);

/* HIP builds (pb_gpurt_hip.c): the kernels' state of an opened HIP
 * table, and its line for the run's header (pb_hip_kern_mode). */
int pb_gpurt_hip_native(const pb_gpurt_t *rt);
/* Loads the kernels on the calling thread's current device (once; later
 * calls answer the same): 0, or -1 with one line in `why` (an entry
 * point missing, a code object that fails to load). */
int pb_gpurt_hip_kern_load(const pb_gpurt_t *rt, char *why, size_t len);
const char *pb_gpurt_hip_kern_mode(const pb_gpurt_t *rt);

#endif
