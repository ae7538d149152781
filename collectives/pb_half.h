/* pb_half.h - IEEE half and bfloat16 <-> float, in portable C.
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

#endif
