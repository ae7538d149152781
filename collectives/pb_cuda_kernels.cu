// Device fill and check kernels (the only CUDA C++ in parbench: a GPU
// kernel is unavoidable here, everything else is C).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "pb_check_math.h"
#include "pb_cuda_err.h"
#include "pb_cuda_kernels.h"
#include "pb_busy_plan.h"

namespace {

constexpr int kThreads = 256;

// Enough blocks to fill the GPU, few enough that grid-stride loops do the
// rest: sizes are 64-bit, grid dimensions are not.
unsigned blocks_for(uint64_t count)
{
    uint64_t b = (count + kThreads - 1) / kThreads;
    return b == 0 ? 1u : b > 65535u ? 65535u : (unsigned)b;
}

__device__ void store(void *buf, uint64_t i, pb_dtype_t t, uint64_t v)
{
    float f = (float)v;
    switch (t) {
    case PB_F32: static_cast<float *>(buf)[i] = f; break;
    case PB_F64: static_cast<double *>(buf)[i] = (double)v; break;
    case PB_F16: static_cast<__half *>(buf)[i] = __float2half_rn(f); break;
    case PB_BF16: static_cast<__nv_bfloat16 *>(buf)[i] = __float2bfloat16_rn(f); break;
    case PB_I32: static_cast<int32_t *>(buf)[i] = (int32_t)v; break;
    case PB_I8: static_cast<int8_t *>(buf)[i] = (int8_t)v; break;
    case PB_I64: static_cast<int64_t *>(buf)[i] = (int64_t)v; break;
    case PB_F8E4M3: static_cast<__nv_fp8_e4m3 *>(buf)[i] = __nv_fp8_e4m3(f); break;
    case PB_F8E5M2: static_cast<__nv_fp8_e5m2 *>(buf)[i] = __nv_fp8_e5m2(f); break;
    default: break;
    }
}

__device__ double load(const void *buf, uint64_t i, pb_dtype_t t)
{
    switch (t) {
    case PB_F32: return static_cast<const float *>(buf)[i];
    case PB_F64: return static_cast<const double *>(buf)[i];
    case PB_F16: return __half2float(static_cast<const __half *>(buf)[i]);
    case PB_BF16: return __bfloat162float(static_cast<const __nv_bfloat16 *>(buf)[i]);
    case PB_I32: return static_cast<const int32_t *>(buf)[i];
    case PB_I8: return static_cast<const int8_t *>(buf)[i];
    case PB_I64: return (double)static_cast<const int64_t *>(buf)[i];
    case PB_F8E4M3: return (float)static_cast<const __nv_fp8_e4m3 *>(buf)[i];
    case PB_F8E5M2: return (float)static_cast<const __nv_fp8_e5m2 *>(buf)[i];
    default: return -1.0;
    }
}

__global__ void fill_kernel(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q,
                            int zero)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        store(buf, i, t, zero ? 0u : (base + i) % q);
}

__global__ void check_kernel(const void *buf, uint64_t count, pb_dtype_t t, pb_expect_t e,
                             int is_float, double exact_max, unsigned long long *counter)
{
    __shared__ unsigned long long block_wrong;
    if (threadIdx.x == 0)
        block_wrong = 0;
    __syncthreads();
    unsigned long long mine = 0;
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride)
        mine += !pb_cm_matches(&e, i, load(buf, i, t), is_float, exact_max);
    if (mine)
        atomicAdd(&block_wrong, mine);
    __syncthreads();
    // one global atomic per block, not per element
    if (threadIdx.x == 0 && block_wrong)
        atomicAdd(counter, block_wrong);
}

// Spins on the device clock: a stand-in for a GPU that stopped making
// progress (fault injection for the hang watchdog).
// It also reads a flag in mapped host memory every millisecond and ends
// when the host sets it: ncclCommAbort synchronises the stream, which
// would otherwise wait behind this kernel for its whole duration.
__global__ void stall_kernel(uint64_t ns, const volatile int *release)
{
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(1000000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns && (release == nullptr || *release == 0));
}

// The compute stand-in of the executed step: every thread of the block
// spins on the device clock for one slice.  A busy loop, not
// __nanosleep: a sleeping warp frees its scheduler, a spinning one
// occupies issue slots as a GEMM's math does.
__global__ void busy_kernel(uint64_t slice_ns)
{
    uint64_t start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < slice_ns);
}

static_assert(PB_CUDA_NOT_READY == (int)cudaErrorNotReady, "pb_cuda_err.h codes are CUDA's");

// Clears what earlier calls left in the last-error slot (a poll's "not
// ready"), so that the read after the launch is the launch's own result.
int before_launch()
{
    return (int)cudaGetLastError();
}

// The launch's own result (pb_cuda_err.h).  A sticky error that predates
// the launch is still that launch's failure: the kernel cannot run.
int launched(int before)
{
    int stale = 0;
    return pb_cuda_launch_verdict(before, (int)cudaGetLastError(), &stale);
}

} // namespace

extern "C" int pb_cuda_fill(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q,
                            void *stream)
{
    if (count == 0)
        return 0;
    int before = before_launch();
    fill_kernel<<<blocks_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        buf, count, t, base, q, 0);
    return launched(before);
}

extern "C" int pb_cuda_fill_red(void *buf, uint64_t count, pb_dtype_t t, pb_redparams_t p,
                                int rank, uint64_t first_global, void *stream)
{
    if (count == 0)
        return 0;
    int before = before_launch();
    fill_kernel<<<blocks_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        buf, count, t, (uint64_t)rank + first_global, p.q, rank >= p.active);
    return launched(before);
}

extern "C" int pb_cuda_check(const void *buf, uint64_t count, pb_dtype_t t, const pb_expect_t *e,
                             unsigned long long *counter, void *stream)
{
    if (count == 0)
        return 0;
    int is_float = t != PB_I32 && t != PB_I8;
    int before = before_launch();
    check_kernel<<<blocks_for(count), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        buf, count, t, *e, is_float, (double)pb_dtype_exact_max(t), counter);
    return launched(before);
}

extern "C" int pb_cuda_busy(double seconds, void *stream, uint64_t *wave_cache)
{
    if (!(seconds > 0.0))
        return 0;
    if (!isfinite(seconds) || seconds > 1e6)
        return (int)cudaErrorInvalidValue;
    // Shaped like a layer's GEMMs: launches of a GEMM's length
    // (pb_busy_plan.h), each of waves of short blocks over every SM.
    // Each wave fills every resident-block slot of the GPU for one slice;
    // between waves and between launches the scheduler may place a
    // kernel of another stream (an NCCL collective), as between a real
    // layer's GEMMs and their tiles.  One wave's size (SMs x resident
    // blocks) is asked once per stream owner and cached by it.
    if (*wave_cache == 0) {
        int dev = 0, sms = 0, per_sm = 0;
        cudaError_t rc = cudaGetDevice(&dev);
        if (rc == cudaSuccess)
            rc = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
        if (rc == cudaSuccess)
            rc = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, busy_kernel, kThreads, 0);
        if (rc != cudaSuccess)
            return (int)rc;
        *wave_cache = (uint64_t)(sms > 0 ? sms : 1) * (uint64_t)(per_sm > 0 ? per_sm : 1);
    }
    uint64_t ns = (uint64_t)llround(seconds * 1e9);
    for (uint64_t i = 0; i < pb_busy_launches(ns); i++) {
        uint64_t waves = 0, slice = 0;
        pb_busy_launch(ns, i, &waves, &slice);
        int before = before_launch();
        busy_kernel<<<(unsigned)(waves * *wave_cache), kThreads, 0,
                      static_cast<cudaStream_t>(stream)>>>(slice);
        int code = launched(before);
        if (code != 0)
            return code;
    }
    return 0;
}

extern "C" int pb_cuda_stall(double seconds, void *stream, const volatile int *release)
{
    int before = before_launch();
    stall_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>((uint64_t)(seconds * 1e9),
                                                                 release);
    return launched(before);
}
