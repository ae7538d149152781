/* gpu_present [N] - exit 0 when at least N (default 1) CUDA devices
 * answer, 77 (CTest's skip) otherwise: cudaGetDeviceCount failing with
 * 35 (no driver, or one too old) or 100 (no device), or finding fewer
 * than N devices (a multi-GPU test on a smaller machine). */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int need = argc > 1 ? atoi(argv[1]) : 1;
    if (need < 1)
        need = 1;
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n < need) {
        printf("%d CUDA device(s) of %d needed (cudaGetDeviceCount returned %d): skipped\n",
               rc == cudaSuccess ? n : 0, need, (int)rc);
        return 77;
    }
    printf("%d CUDA device(s)\n", n);
    return 0;
}
