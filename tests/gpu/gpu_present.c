/* gpu_present - exit 0 when a CUDA device answers, 77 (CTest's skip)
 * when none does: cudaGetDeviceCount failing with 35 (no driver, or one
 * too old) or 100 (no device), or finding zero devices. */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
    int n = 0;
    cudaError_t rc = cudaGetDeviceCount(&n);
    if (rc != cudaSuccess || n == 0) {
        printf("no CUDA device (cudaGetDeviceCount returned %d, %d devices): skipped\n", (int)rc, n);
        return 77;
    }
    printf("%d CUDA device(s)\n", n);
    return 0;
}
