/* pb_prof_dev.c - the communicator's CUDA device (pb_prof_dev.h). */
#include "pb_prof_dev.h"

#include <dlfcn.h>
#include <string.h>

#define CUDA_SUCCESS 0 /* CUresult's success (cuda.h) */

/* CUresult cuCtxGetDevice(CUdevice *): an enum and an int in cuda.h */
typedef int (*ctx_get_device_fn)(int *device);

int32_t pb_prof_cuda_device(void)
{
    /* RTLD_NOLOAD: the driver the process already has, never one loaded
     * for this (a host-only process stays so); the plugin links no GPU
     * library (doc/design.md) */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (lib == NULL)
        return -1;
    int dev = -1;
    void *sym = dlsym(lib, "cuCtxGetDevice");
    if (sym != NULL) {
        /* POSIX lets a dlsym result be used as a function pointer; the
         * copy says so to ISO C (as util/pb_dl.c, out of this layer's reach) */
        ctx_get_device_fn get;
        memcpy(&get, &sym, sizeof get);
        if (get(&dev) != CUDA_SUCCESS || dev < 0)
            dev = -1;
    }
    dlclose(lib); /* the count NOLOAD took: the driver stays as it was */
    return dev;
}
