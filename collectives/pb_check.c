#include "pb_check.h"

#include <math.h>
#include <string.h>

#include "pb_check_math.h"
#include "pb_half.h"

/* Wide enough that neighbouring elements and blocks differ, small enough
 * that a device kernel can do the arithmetic in 32 bits if it wants. */
#define PB_CHECK_QMAX (UINT64_C(1) << 20)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

pb_redparams_t pb_check_redparams(pb_dtype_t t, pb_redop_t op, int n)
{
    uint64_t lim = pb_dtype_exact_max(t);
    pb_redparams_t p;
    p.active = n;
    if (op == PB_MAX || op == PB_MIN) {
        /* nothing is ever added: any exact value will do */
        p.q = min_u64(lim + 1u, PB_CHECK_QMAX);
        return p;
    }
    /* sum: the largest partial sum is active * (q - 1) <= lim */
    if (n < 1)
        p.active = n = 1;
    if ((uint64_t)n > lim)
        p.active = (int)lim;
    p.q = min_u64(lim / (uint64_t)p.active + 1u, PB_CHECK_QMAX);
    if (p.q < 2u)
        p.q = 2u;
    return p;
}

uint64_t pb_check_move_q(pb_dtype_t t)
{
    return min_u64(pb_dtype_exact_max(t) + 1u, PB_CHECK_QMAX);
}

uint64_t pb_check_move_base(int src, int dst, int n)
{
    /* 977 is odd and prime: distinct (src, dst) give distinct bases modulo
     * any power of two and modulo 257 while src * n + dst < q. */
    return ((uint64_t)src * (uint64_t)n + (uint64_t)dst) * 977u + 1u;
}

uint64_t pb_check_red_input(pb_redparams_t p, int rank, uint64_t g)
{
    if (rank >= p.active)
        return 0;
    return ((uint64_t)rank + g) % p.q;
}

uint64_t pb_expect_value(const pb_expect_t *e, uint64_t j)
{
    return (uint64_t)pb_cm_expect(e, j);
}

void pb_store_int(void *buf, uint64_t i, pb_dtype_t t, uint64_t v)
{
    switch (t) {
    case PB_F32:
        ((float *)buf)[i] = (float)v;
        break;
    case PB_F64:
        ((double *)buf)[i] = (double)v;
        break;
    case PB_F16:
        ((uint16_t *)buf)[i] = pb_float_to_half((float)v);
        break;
    case PB_BF16:
        ((uint16_t *)buf)[i] = pb_float_to_bf16((float)v);
        break;
    case PB_I32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case PB_I8:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    case PB_F8E4M3:
        ((uint8_t *)buf)[i] = pb_float_to_f8e4m3((float)v);
        break;
    case PB_F8E5M2:
        ((uint8_t *)buf)[i] = pb_float_to_f8e5m2((float)v);
        break;
    case PB_DTYPE_COUNT:
        break;
    }
}

double pb_load_double(const void *buf, uint64_t i, pb_dtype_t t)
{
    double d = 0.0;
    switch (t) {
    case PB_F32:
        d = ((const float *)buf)[i];
        break;
    case PB_F64:
        d = ((const double *)buf)[i];
        break;
    case PB_F16:
        d = pb_half_to_float(((const uint16_t *)buf)[i]);
        break;
    case PB_BF16:
        d = pb_bf16_to_float(((const uint16_t *)buf)[i]);
        break;
    case PB_I32:
        d = ((const int32_t *)buf)[i];
        break;
    case PB_I8:
        d = ((const int8_t *)buf)[i];
        break;
    case PB_F8E4M3:
        d = pb_f8e4m3_to_float(((const uint8_t *)buf)[i]);
        break;
    case PB_F8E5M2:
        d = pb_f8e5m2_to_float(((const uint8_t *)buf)[i]);
        break;
    case PB_DTYPE_COUNT:
        break;
    }
    return d;
}

uint64_t pb_load_int(const void *buf, uint64_t i, pb_dtype_t t, int *exact)
{
    double d = pb_load_double(buf, i, t);
    /* -0.0 is never produced from +0 inputs: a flipped sign bit is an error */
    *exact = isfinite(d) && d >= 0.0 && !signbit(d) && d == floor(d) && d < 18446744073709551616.0;
    return *exact ? (uint64_t)d : 0;
}

void pb_fill_host(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q)
{
    uint64_t v = base % q;
    for (uint64_t i = 0; i < count; i++) {
        pb_store_int(buf, i, t, v);
        if (++v == q) /* the modulus without a division per element */
            v = 0;
    }
}

void pb_fill_red_host(void *buf, uint64_t count, pb_dtype_t t, pb_redparams_t p,
                      int rank, uint64_t first_global)
{
    if (rank >= p.active) {
        for (uint64_t i = 0; i < count; i++)
            pb_store_int(buf, i, t, 0);
        return;
    }
    pb_fill_host(buf, count, t, (uint64_t)rank + first_global, p.q);
}

static int is_float_type(pb_dtype_t t) { return t != PB_I32 && t != PB_I8; }

uint64_t pb_check_host(const void *buf, uint64_t count, pb_dtype_t t, const pb_expect_t *e)
{
    uint64_t wrong = 0;
    int fl = is_float_type(t);
    double lim = (double)pb_dtype_exact_max(t);
    for (uint64_t i = 0; i < count; i++) {
        int exact;
        uint64_t got = pb_load_int(buf, i, t, &exact);
        if (e->kind == PB_EXPECT_REDUCED && e->op == PB_AVG) {
            /* averages need not be integers: compare the raw value */
            if (!pb_cm_matches(e, i, pb_load_double(buf, i, t), fl, lim))
                wrong++;
        } else if (!exact || (double)got != pb_cm_expect(e, i)) {
            wrong++;
        }
    }
    return wrong;
}
