/* pb_half.h - IEEE half, bfloat16 and fp8 <-> float, in portable C.
 *
 * MPI has no 2-byte float type, so the MPI backend reduces f16/bf16 with
 * user-defined operators that widen to float, combine, and narrow again
 * with round-to-nearest-even, as GPUs do. */
#ifndef PB_HALF_H
#define PB_HALF_H

#include <stdint.h>
#include <string.h>

float pb_half_to_float(uint16_t h);
uint16_t pb_float_to_half(float f);

/* bfloat16 is float's upper half: inline, so that the MPI operator's loop
 * over a bucket vectorises (out of line, a 256 KiB bf16 all-reduce on a
 * host took 6x the float one, all of it in these calls). */
static inline float pb_bf16_to_float(uint16_t b)
{
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* round to nearest even; a NaN stays a (quiet) NaN */
static inline uint16_t pb_float_to_bf16(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu))
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

/* OCP 8-bit floats (as on Hopper and later).  e4m3 has no infinity: out of
 * range values saturate to NaN as the OCP spec's non-saturating mode
 * does; e5m2 is IEEE-like with infinities.  Round to nearest even. */
float pb_f8e4m3_to_float(uint8_t v);
uint8_t pb_float_to_f8e4m3(float f);
float pb_f8e5m2_to_float(uint8_t v);
uint8_t pb_float_to_f8e5m2(float f);

#endif
