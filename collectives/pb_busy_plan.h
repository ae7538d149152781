/* pb_busy_plan.h - how the GPU compute stand-in (pb_cuda_busy) cuts a
 * duration into kernel launches.  Pure, so it is tested without a GPU.
 *
 * Why launches of a few hundred microseconds: a grid's blocks are placed
 * before those of a kernel queued later on another stream, so one grid
 * of millions of blocks (a whole layer's compute) kept a DP bucket's
 * NCCL kernel waiting until its last wave was dispatched, and the
 * executed step overstated exposed DP.  A real layer is many GEMMs of
 * 0.1-1 ms each, between which the communication kernels get SMs; the
 * stand-in launches GEMM-sized chunks likewise.  Within a launch, waves
 * of blocks each spin one slice, so a communication kernel can also take
 * SMs as blocks retire.  The last launch and its slices take the
 * remainder, so a 13 us request spins 13 us, not a whole slice. */
#ifndef PB_BUSY_PLAN_H
#define PB_BUSY_PLAN_H

#include <stdint.h>

#define PB_BUSY_CHUNK_NS UINT64_C(250000) /* one launch: a GEMM's length */
#define PB_BUSY_SLICE_NS UINT64_C(20000)  /* one block's spin */

/* Inline: the CUDA C++ kernels' library and the C unit tests both use
 * it, and neither library may depend on the other. */

/* Launches for `ns` nanoseconds of compute (0 for none). */
static inline uint64_t pb_busy_launches(uint64_t ns)
{
    return (ns + PB_BUSY_CHUNK_NS - 1) / PB_BUSY_CHUNK_NS;
}

/* Launch i of those: *waves whole waves of blocks, each block spinning
 * *slice_ns.  waves x slice_ns is the launch's length, to the
 * nanosecond rounded down (under one nanosecond per wave). */
static inline void pb_busy_launch(uint64_t ns, uint64_t i, uint64_t *waves, uint64_t *slice_ns)
{
    uint64_t n = pb_busy_launches(ns);
    uint64_t len = i + 1 < n ? PB_BUSY_CHUNK_NS : ns - PB_BUSY_CHUNK_NS * (n - 1);
    *waves = (len + PB_BUSY_SLICE_NS - 1) / PB_BUSY_SLICE_NS;
    *slice_ns = *waves ? len / *waves : 0;
}

/* The spin put ahead of a timed GEMM series, so that the host has queued
 * every multiply before the GPU reaches the first: a short GEMM (tens of
 * microseconds) finishes before the host can launch the next one (a few
 * microseconds of cuBLAS and driver work), and the event pair around it
 * would then time the host's launch gap as well.  20 us per multiply is
 * far above a launch's cost; 1 ms covers the events' own set-up; at most
 * 1 s. */
static inline double pb_busy_hold_s(uint64_t launches)
{
    double s = 1e-3 + 20e-6 * (double)launches;
    return s < 1.0 ? s : 1.0;
}

#endif
