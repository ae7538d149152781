/* pb_hip_clock.h - the real-time clock of an AMD GPU, for device code
 * (pb_hip_kernels.hip, and cmake/hip.cmake's probe of which targets the
 * installed hipcc builds, so that a target without such a clock is left
 * out rather than failing the build).
 *
 * Why not clock64(): it counts shader cycles, whose rate follows the
 * GPU's clock as power management moves it; a stall or a compute
 * stand-in must last real time.  s_memrealtime (gfx8, gfx9 - MI50 to
 * MI300 - and gfx10) reads a counter of constant rate, 100 MHz on those
 * parts (LLVM's AMDGPU usage notes; newer HIP reports it as
 * hipDeviceAttributeWallClockRate, pb_hip_kern.c asks); gfx11 and later
 * dropped the instruction and return the same counter through
 * s_sendmsg_rtn with GET_REALTIME (0x83).  HIP 5.2's own wall_clock64()
 * returns -1 there, so it is not used. */
#ifndef PB_HIP_CLOCK_H
#define PB_HIP_CLOCK_H

#include <hip/hip_runtime.h>

__device__ static inline unsigned long long pb_hip_now(void)
{
#if __has_builtin(__builtin_amdgcn_s_memrealtime)
    return __builtin_amdgcn_s_memrealtime();
#elif __has_builtin(__builtin_amdgcn_s_sendmsg_rtn_b64)
    return __builtin_amdgcn_s_sendmsg_rtn_b64(0x83);
#else
#error "pb_hip_clock.h: no real-time clock on this AMD target"
#endif
}

#endif
