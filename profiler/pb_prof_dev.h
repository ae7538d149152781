/* pb_prof_dev.h - the CUDA device a communicator belongs to, as the NCCL
 * profiler plugin finds it at init without linking CUDA. */
#ifndef PB_PROF_DEV_H
#define PB_PROF_DEV_H

#include <stdint.h>

/* The calling thread's current CUDA device, through the driver the
 * process has already loaded (libcuda.so.1's cuCtxGetDevice); -1 where
 * none is loaded, or no context is current.  NCCL calls the plugin's
 * init inside ncclCommInit*'s job, after cudaSetDevice(comm->cudaDev)
 * (src/init.cc: ncclCommInitRankFunc, then initTransportsRank calls
 * ncclProfilerPluginInit), so at init this is the communicator's GPU. */
int32_t pb_prof_cuda_device(void);

#endif
