/* pb_memcpy_bw BYTES ITERS - device-to-device cudaMemcpy bandwidth, the
 * ceiling a one-GPU "collective" can be compared with.  Prints
 * "BYTES median_us GB/s" where GB/s counts bytes copied (read once,
 * written once), as nccl-tests' algbw counts a broadcast's bytes. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

#define OK(call)                                                                       \
    do {                                                                               \
        cudaError_t rc_ = (call);                                                      \
        if (rc_ != cudaSuccess) {                                                      \
            fprintf(stderr, "pb_memcpy_bw: %s: %s\n", #call, cudaGetErrorString(rc_)); \
            return rc_ == cudaErrorNoDevice || rc_ == cudaErrorInsufficientDriver ? 77 : 3; \
        }                                                                              \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pb_memcpy_bw BYTES ITERS\n");
        return 2;
    }
    size_t bytes = strtoull(argv[1], NULL, 10);
    int iters = atoi(argv[2]);
    if (bytes == 0 || iters < 1) {
        fprintf(stderr, "pb_memcpy_bw: BYTES and ITERS must be positive\n");
        return 2;
    }
    void *a = NULL, *b = NULL;
    float *ms = malloc((size_t)iters * sizeof *ms);
    cudaEvent_t e0, e1;
    if (ms == NULL)
        return 3;
    OK(cudaMalloc(&a, bytes));
    OK(cudaMalloc(&b, bytes));
    OK(cudaMemset(a, 1, bytes));
    OK(cudaEventCreate(&e0));
    OK(cudaEventCreate(&e1));
    OK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice)); /* warm-up */
    for (int i = 0; i < iters; i++) {
        OK(cudaEventRecord(e0, 0));
        OK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, 0));
        OK(cudaEventRecord(e1, 0));
        OK(cudaEventSynchronize(e1));
        OK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    qsort(ms, (size_t)iters, sizeof *ms, cmp);
    double med = ms[iters / 2] * 1e-3;
    printf("%zu %.2f %.1f\n", bytes, med * 1e6, (double)bytes / med / 1e9);
    cudaFree(a);
    cudaFree(b);
    free(ms);
    return 0;
}
