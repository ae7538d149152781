/* pb_check_math.h - the expected value of every verified element, as
 * inline arithmetic that compiles both for the host (C) and inside CUDA
 * kernels, so the MPI backend's checker and the GPU's checker can never
 * disagree about what is right.  See pb_check.h for the scheme. */
#ifndef PB_CHECK_MATH_H
#define PB_CHECK_MATH_H

#include <math.h>
#include <stdint.h>

#include "pb_expect.h"

/* nvcc, and clang compiling HIP for the AMD kernels (pb_hip_kernels.hip):
 * __HIP__ is the compiler's own, which no header defines in a C file */
#if defined(__CUDACC__) || defined(__HIP__)
#define PB_HD __host__ __device__ static inline
#else
#define PB_HD static inline
#endif

/* sum of (s + j) mod q for j in [0, b), b <= q, s < q */
PB_HD uint64_t pb_cm_partial_cycle_sum(uint64_t s, uint64_t b, uint64_t q)
{
    if (s + b <= q)
        return b * s + b * (b - 1u) / 2u;
    uint64_t t = q - s; /* s .. q-1 */
    uint64_t rest = b - t; /* then 0 .. rest-1 */
    return (s + q - 1u) * t / 2u + rest * (rest - 1u) / 2u;
}

/* Sum over ranks r < m of (r + g) mod q. */
PB_HD uint64_t pb_cm_sum(uint64_t q, uint64_t m, uint64_t g)
{
    return (m / q) * (q * (q - 1u) / 2u) + pb_cm_partial_cycle_sum(g % q, m % q, q);
}

/* Expected value of element j as a real number (exact integers except
 * for the floating-point average). */
PB_HD double pb_cm_expect(const pb_expect_t *e, uint64_t j)
{
    if (e->kind == PB_EXPECT_PATTERN)
        return (double)((e->base + j) % e->q);
    uint64_t q = e->q, m = (uint64_t)e->active, g = e->base + j, s = g % q;
    int zero_ranks = e->nranks > e->active;
    switch (e->op) {
    case PB_MAX:
        if (m == 0)
            return 0.0;
        return (double)(m >= q || s + m - 1u >= q ? q - 1u : s + m - 1u);
    case PB_MIN:
        if (zero_ranks || m == 0 || m >= q || s + m - 1u >= q)
            return 0.0;
        return (double)s;
    case PB_AVG:
        return (double)pb_cm_sum(q, m, g) / (double)e->nranks;
    case PB_SUM:
    default:
        return (double)pb_cm_sum(q, m, g);
    }
}

/* Does a loaded element match?  Everything is compared exactly, except a
 * floating-point average: NCCL computes it as a sum of inputs each
 * pre-multiplied by a rounded 1/n, so it is allowed (n + 2) units in the
 * last place of the type (unit = 1 / exact_max, a relative bound valid
 * because every input is non-negative).  Integer averages are floored
 * sums, exact.  `is_float` and `exact_max` describe the element type. */
PB_HD int pb_cm_matches(const pb_expect_t *e, uint64_t j, double got, int is_float,
                        double exact_max)
{
    double want = pb_cm_expect(e, j);
    if (!(got == got) || got < 0.0 || signbit(got)) /* NaN, negative, -0.0 */
        return 0;
    if (e->kind == PB_EXPECT_REDUCED && e->op == PB_AVG) {
        if (!is_float)
            return got == floor(want);
        double tol = ((double)e->nranks + 2.0) * want / exact_max;
        return fabs(got - want) <= tol;
    }
    return got == want;
}

#endif
