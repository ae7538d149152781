/* pb_check.h - data that makes every result exactly predictable.
 *
 * Every element ever stored is a small non-negative integer, chosen so
 * that every partial sum a reduction can form (in any order, on any
 * algorithm) is an integer that the element type represents exactly.
 * Then the expected output has a closed form, and a checker compares
 * bit-for-bit: any wrong element is a real error, never rounding.
 *
 * Values are v(j) = (base + j) mod q, for the j-th element of a buffer.
 * A reduction over the ranks r < m of v_r(j) = (r + g) mod q (g the
 * element's global index) has closed forms for sum, max and min; ranks
 * r >= m contribute 0 (used only when there are more ranks than the type
 * can count, e.g. bfloat16 above 256 ranks).
 *
 * This header is pure arithmetic, shared by the host checker below and the
 * device kernels of GPU backends, so both check the same thing. */
#ifndef PB_CHECK_H
#define PB_CHECK_H

#include <stdint.h>

#include "../core/pb_coll.h"
#include "../core/pb_dtype.h"

#include "pb_expect.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters of the reduction input for a group of n ranks. */
typedef struct pb_redparams {
    uint64_t q;
    int active;
} pb_redparams_t;

pb_redparams_t pb_check_redparams(pb_dtype_t t, pb_redop_t op, int n);

/* Modulus for data that is only moved, never combined. */
uint64_t pb_check_move_q(pb_dtype_t t);

/* The value a rank stores at global index g of a reduction input. */
uint64_t pb_check_red_input(pb_redparams_t p, int rank, uint64_t g);

/* Expected integer value of element j. */
uint64_t pb_expect_value(const pb_expect_t *e, uint64_t j);

/* Pattern bases for moved data, so that every block of every sender is
 * different and a block landing in the wrong place is caught. */
uint64_t pb_check_move_base(int src, int dst, int n);

/* Host fill and check (the MPI backend's, and the reference for GPU
 * kernels).  pb_check_host returns the number of wrong elements. */
void pb_fill_host(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q);
void pb_fill_red_host(void *buf, uint64_t count, pb_dtype_t t, pb_redparams_t p,
                      int rank, uint64_t first_global);
uint64_t pb_check_host(const void *buf, uint64_t count, pb_dtype_t t, const pb_expect_t *e);

/* Store / load one integer-valued element (exact by construction). */
void pb_store_int(void *buf, uint64_t i, pb_dtype_t t, uint64_t v);
uint64_t pb_load_int(const void *buf, uint64_t i, pb_dtype_t t, int *exact);
double pb_load_double(const void *buf, uint64_t i, pb_dtype_t t);

#ifdef __cplusplus
}
#endif

#endif
