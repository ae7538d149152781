#include "pb_cuda_mem.h"

#include <cuda_runtime.h>
#include <stdio.h>

int pb_cuda_mem_available(pb_backend_t *be, uint64_t *bytes, int *per_node, char *what,
                          size_t len)
{
    (void)be;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    *bytes = (uint64_t)free_b;
    *per_node = 0;
    snprintf(what, len, "GPU memory (cudaMemGetInfo, of %.1f GiB)",
             (double)total_b / 1073741824.0);
    return 1;
}
