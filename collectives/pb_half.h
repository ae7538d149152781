/* pb_half.h - IEEE half, bfloat16 and fp8 <-> float, in portable C.
 *
 * MPI has no 2-byte float type, so the MPI backend reduces f16/bf16 with
 * user-defined operators that widen to float, combine, and narrow again
 * with round-to-nearest-even, as GPUs do. */
#ifndef PB_HALF_H
#define PB_HALF_H

#include <stdint.h>

float pb_half_to_float(uint16_t h);
uint16_t pb_float_to_half(float f);
float pb_bf16_to_float(uint16_t b);
uint16_t pb_float_to_bf16(float f);

/* OCP 8-bit floats (as on Hopper and later).  e4m3 has no infinity: out of
 * range values saturate to NaN as the OCP spec's non-saturating mode
 * does; e5m2 is IEEE-like with infinities.  Round to nearest even. */
float pb_f8e4m3_to_float(uint8_t v);
uint8_t pb_float_to_f8e4m3(float f);
float pb_f8e5m2_to_float(uint8_t v);
uint8_t pb_float_to_f8e5m2(float f);

#endif
