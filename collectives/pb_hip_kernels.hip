// pb_hip_kernels.hip - the fill, check, stall and busy kernels on AMD GPUs:
// pb_cuda_kernels.cu's kernels in HIP, built by hipcc as one code object
// per target (cmake/hip.cmake) and loaded by pb_hip_kern.c.
//
// Every kernel is extern "C" with plain C parameters: the loader finds it
// by name (hipModuleGetFunction) and passes its arguments as an array of
// pointers (hipModuleLaunchKernel), so the layout of each parameter list
// here and of the launch in pb_hip_kern.c must agree, in order and type.
// The launch side (grid sizes, the busy plan) is in C, pb_hip_kern.c.
//
// fp8 is not here: HIP 5.2 has no fp8 type, and pb_hip_kern.c fills and
// checks the two fp8 types through the host checker instead (copies).
#include <hip/hip_runtime.h>
#include <math.h>
#include <stdint.h>

#include "pb_check_math.h"
#include "pb_hip_clock.h"
#include "../core/pb_dtype.h"

namespace {

// bf16 by hand (hip_bfloat16.h is a C++ class whose device conversions
// changed between releases): the top half of a float, rounded to
// nearest even.  The values stored are integers the type holds exactly,
// so the rounding never acts; it is there so the function is right.
__device__ uint16_t to_bf16(float f)
{
    uint32_t u = __float_as_uint(f);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ float from_bf16(uint16_t h)
{
    return __uint_as_float((uint32_t)h << 16);
}

__device__ void store(void *buf, uint64_t i, int t, uint64_t v)
{
    float f = (float)v;
    switch (t) {
    case PB_F32: static_cast<float *>(buf)[i] = f; break;
    case PB_F64: static_cast<double *>(buf)[i] = (double)v; break;
    case PB_F16: static_cast<_Float16 *>(buf)[i] = (_Float16)f; break;
    case PB_BF16: static_cast<uint16_t *>(buf)[i] = to_bf16(f); break;
    case PB_I32: static_cast<int32_t *>(buf)[i] = (int32_t)v; break;
    case PB_I8: static_cast<int8_t *>(buf)[i] = (int8_t)v; break;
    case PB_I64: static_cast<int64_t *>(buf)[i] = (int64_t)v; break;
    default: break;
    }
}

// -1 (never a valid element: all are non-negative) for a type not here
__device__ double load(const void *buf, uint64_t i, int t)
{
    switch (t) {
    case PB_F32: return static_cast<const float *>(buf)[i];
    case PB_F64: return static_cast<const double *>(buf)[i];
    case PB_F16: return (float)static_cast<const _Float16 *>(buf)[i];
    case PB_BF16: return from_bf16(static_cast<const uint16_t *>(buf)[i]);
    case PB_I32: return static_cast<const int32_t *>(buf)[i];
    case PB_I8: return static_cast<const int8_t *>(buf)[i];
    case PB_I64: return (double)static_cast<const int64_t *>(buf)[i];
    default: return -1.0;
    }
}

__device__ uint64_t first_index()
{
    return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ uint64_t grid_stride()
{
    return (uint64_t)gridDim.x * blockDim.x;
}

} // namespace

// v(j) = (base + j) mod q (pb_check.h); grid-stride: counts are 64-bit
extern "C" __global__ void pb_hip_fill_kernel(void *buf, uint64_t count, int t, uint64_t base,
                                              uint64_t q)
{
    for (uint64_t i = first_index(); i < count; i += grid_stride())
        store(buf, i, t, (base + i) % q);
}

// A reduction input: rank r stores (r + g) mod q at global index g, or 0
// when it is beyond the ranks that contribute (r >= active)
extern "C" __global__ void pb_hip_fill_red_kernel(void *buf, uint64_t count, int t, uint64_t q,
                                                  int active, int rank, uint64_t first_global)
{
    for (uint64_t i = first_index(); i < count; i += grid_stride())
        store(buf, i, t, rank >= active ? 0u : ((uint64_t)rank + first_global + i) % q);
}

// Adds the elements not matching the expectation to *counter: one
// atomic per block into shared memory's sum, one global atomic per block.
// The expectation comes as its fields (pb_expect.h), not as the struct,
// so that no C/C++ struct layout crosses the launch.
extern "C" __global__ void pb_hip_check_kernel(const void *buf, uint64_t count, int t, int kind,
                                               uint64_t base, uint64_t q, int op, int nranks,
                                               int active, int is_float, double exact_max,
                                               unsigned long long *counter)
{
    __shared__ unsigned long long block_wrong;
    pb_expect_t e;
    e.kind = (pb_expect_kind_t)kind;
    e.base = base;
    e.q = q;
    e.op = (pb_redop_t)op;
    e.nranks = nranks;
    e.active = active;
    if (threadIdx.x == 0)
        block_wrong = 0;
    __syncthreads();
    unsigned long long mine = 0;
    for (uint64_t i = first_index(); i < count; i += grid_stride())
        mine += !pb_cm_matches(&e, i, load(buf, i, t), is_float, exact_max);
    if (mine)
        atomicAdd(&block_wrong, mine);
    __syncthreads();
    if (threadIdx.x == 0 && block_wrong)
        atomicAdd(counter, block_wrong);
}

// A GPU that stopped making progress (the watchdog's fault injection):
// sleeps for `ticks` of the real-time clock (pb_hip_clock.h), reading the
// host's release flag once per `poll` ticks (a millisecond) so that
// aborting the communicator is not held up behind it.  s_sleep 127 is
// 127 x 64 shader clocks, a few microseconds: the wave yields its SIMD.
extern "C" __global__ void pb_hip_stall_kernel(uint64_t ticks, uint64_t poll,
                                               const volatile int *release)
{
    uint64_t start = pb_hip_now(), last = start, now = start;
    while (now - start < ticks) {
        __builtin_amdgcn_s_sleep(127);
        now = pb_hip_now();
        if (now - last >= poll) {
            last = now;
            if (release != nullptr && *release != 0)
                break;
        }
    }
}

// The compute stand-in: every thread spins on the real-time clock for one
// slice (pb_busy_plan.h).  A busy loop, not s_sleep: a sleeping wave
// frees its SIMD, a spinning one takes issue slots as a GEMM does.
extern "C" __global__ void pb_hip_busy_kernel(uint64_t slice_ticks)
{
    uint64_t start = pb_hip_now();
    while (pb_hip_now() - start < slice_ticks) {
    }
}
