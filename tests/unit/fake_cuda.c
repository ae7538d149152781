/* fake_cuda.c - a stand-in for the CUDA driver, built as libcuda.so.1
 * (soname too) for test_prof_plugin: the test loads it, as a CUDA job
 * has the driver loaded, and the profiler plugin then finds it by name
 * (dlopen RTLD_NOLOAD) and asks it for the current device, as it asks the
 * real one (profiler/pb_prof_dev.h).  The current device is per thread,
 * as CUDA's current context is: each thread of a multi-GPU process sets
 * its own before NCCL initialises its communicators. */

int cuCtxGetDevice(int *device);
void pb_fake_cuda_set_device(int device);

/* the calling thread's device; -1: no context current */
static _Thread_local int current = -1;

/* CUresult cuCtxGetDevice(CUdevice *): 201 is CUDA_ERROR_INVALID_CONTEXT
 * (cuda.h), what the driver returns with no context current */
int cuCtxGetDevice(int *device)
{
    if (current < 0)
        return 201;
    *device = current;
    return 0;
}

void pb_fake_cuda_set_device(int device)
{
    current = device;
}
