/* pb_num.h - whole decimal numbers, one rule for every reader.
 *
 * A whole number is decimal digits only: no sign, no white space before
 * or after, no suffix, no "0x", no exponent, and at least one digit.
 * Leading zeros are fine ("007" is 7).  Each caller words its own
 * message; the digit rule and the range check live here alone. */
#ifndef PB_NUM_H
#define PB_NUM_H

#include <stddef.h>
#include <stdint.h>

enum {
    PB_NUM_OK = 0,
    PB_NUM_NAN = 1,   /* not a whole number: empty, a sign, a space, trailing text */
    PB_NUM_RANGE = 2, /* a whole number, but below lo, above hi or past 2^64 - 1 */
};

/* s, a whole number within [lo, hi], into *out.  Returns PB_NUM_OK,
 * PB_NUM_NAN (*out untouched) or PB_NUM_RANGE; on PB_NUM_RANGE *out holds
 * the number, saturated at UINT64_MAX when past 2^64 - 1, so a caller
 * tells which bound was crossed by *out < lo. */
int pb_num_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/* The same for the len bytes at s (not necessarily NUL-terminated; a NUL
 * byte among them is not a digit). */
int pb_num_u64n(const char *s, size_t len, uint64_t lo, uint64_t hi, uint64_t *out);

#endif
