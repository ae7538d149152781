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
    case PB_I64:
        ((int64_t *)buf)[i] = (int64_t)v;
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
    case PB_I64:
        d = (double)((const int64_t *)buf)[i];
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

/* Elements i .. i + len - 1 get v, v + 1, ...: one loop per common type
 * without a division or a type switch per element (the main job fills
 * and checks up to 64 MiB per measurement); the rest element by element.
 * The loops take values up to 2^24 (every q the checker picks is at most
 * 2^20), where each of these types is exact; larger ones (a test's own q)
 * go element by element as well. */
static void fill_run(void *buf, uint64_t i, uint64_t len, pb_dtype_t t, uint64_t v)
{
    int64_t x = (int64_t)v;
    switch (v + len <= pb_dtype_exact_max(PB_F32) ? t : PB_DTYPE_COUNT) {
    case PB_F32: { /* 32-bit integers convert 4 or 8 at a time (SSE2, AVX) */
        float *p = (float *)buf + i;
        int32_t x32 = (int32_t)v;
        uint64_t k = 0;
        for (; k + 8 <= len; k += 8) /* a fixed inner count: GCC -O2 vectorises it */
            for (int32_t u = 0; u < 8; u++)
                p[k + (uint64_t)u] = (float)(x32 + (int32_t)k + u);
        for (; k < len; k++)
            p[k] = (float)(x32 + (int32_t)k);
        return;
    }
    case PB_F64:
        for (uint64_t k = 0; k < len; k++)
            ((double *)buf)[i + k] = (double)(x + (int64_t)k);
        return;
    case PB_I32:
        for (uint64_t k = 0; k < len; k++)
            ((int32_t *)buf)[i + k] = (int32_t)(x + (int64_t)k);
        return;
    default:
        for (uint64_t k = 0; k < len; k++)
            pb_store_int(buf, i + k, t, v + k);
        return;
    }
}

void pb_fill_host(void *buf, uint64_t count, pb_dtype_t t, uint64_t base, uint64_t q)
{
    uint64_t v = base % q;
    /* runs from v up to q - 1, then from 0 again */
    for (uint64_t i = 0; i < count; v = 0) {
        uint64_t len = q - v < count - i ? q - v : count - i;
        fill_run(buf, i, len, t, v);
        i += len;
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

static int is_float_type(pb_dtype_t t) { return t != PB_I32 && t != PB_I8 && t != PB_I64; }

/* From element j on, the expected values rise by *step per element for
 * the returned number of elements (pb_cm_expect's closed forms are
 * affine between the wraps of (base + j) mod q); 0 where they are not
 * (the average: a quotient, checked element by element). */
static uint64_t affine_run(const pb_expect_t *e, uint64_t j, uint64_t *step)
{
    uint64_t q = e->q, s = (e->base + j) % q, m = (uint64_t)e->active;
    *step = 0;
    if (e->kind == PB_EXPECT_PATTERN) {
        *step = 1;
        return q - s;
    }
    switch (e->op) {
    case PB_SUM: {
        /* whole cycles of q add a constant; the partial cycle of
         * b = m mod q ranks adds b * s + b(b-1)/2 while s + b <= q */
        uint64_t b = m % q;
        if (s + b > q)
            return 1; /* the b - 1 elements where the partial cycle wraps */
        *step = b;
        return b ? q - b - s + 1 : q - s;
    }
    case PB_MAX:
    case PB_MIN: {
        int flat = m == 0 || m >= q || (e->op == PB_MIN && e->nranks > e->active);
        if (!flat && s + m - 1u < q) {
            *step = 1; /* max s + m - 1, min s */
            return q - m + 1u - s;
        }
        return q - s; /* q - 1 or 0 until s wraps */
    }
    default:
        return 0;
    }
}

/* float, every expected value exact (<= 2^24): the bits of each element
 * against those of its value (-0.0 and NaN differ from every whole
 * number's), 32-bit integers converted 8 at a time so that GCC -O2
 * vectorises the block (the main job checks 64 MiB per measurement). */
static uint64_t check_f32(const void *buf, uint64_t i, uint64_t len, int32_t first, int32_t step)
{
    const unsigned char *p = (const unsigned char *)buf + i * 4u;
    uint64_t wrong = 0, k = 0;
    for (; k + 8 <= len; k += 8) {
        uint32_t bad = 0;
        for (int32_t u = 0; u < 8; u++) {
            float want = (float)(first + step * ((int32_t)k + u));
            uint32_t wb, gb;
            memcpy(&wb, &want, 4);
            memcpy(&gb, p + (k + (uint64_t)u) * 4u, 4);
            bad += wb != gb;
        }
        wrong += bad;
    }
    for (; k < len; k++) {
        float want = (float)(first + step * (int32_t)k);
        uint32_t wb, gb;
        memcpy(&wb, &want, 4);
        memcpy(&gb, p + k * 4u, 4);
        wrong += wb != gb;
    }
    return wrong;
}

/* Wrong elements among i .. i + len - 1, expected first, first + step,
 * ...: a float must equal its whole number and not be -0.0 (NaN equals
 * nothing), an integer must equal it. */
static uint64_t check_run(const void *buf, uint64_t i, uint64_t len, pb_dtype_t t,
                          uint64_t first, uint64_t step)
{
    uint64_t wrong = 0;
    int64_t a = (int64_t)first, d = (int64_t)step;
    switch (t) {
    case PB_F32:
        if (first + step * len <= pb_dtype_exact_max(PB_F32))
            return check_f32(buf, i, len, (int32_t)first, (int32_t)step);
        for (uint64_t k = 0; k < len; k++) {
            float g = ((const float *)buf)[i + k]; /* compared in double: exact */
            wrong += !((double)g == (double)(a + d * (int64_t)k)) | (signbit(g) != 0);
        }
        return wrong;
    case PB_F64:
        for (uint64_t k = 0; k < len; k++) {
            double g = ((const double *)buf)[i + k];
            wrong += !(g == (double)(a + d * (int64_t)k)) | (signbit(g) != 0);
        }
        return wrong;
    case PB_I32:
        for (uint64_t k = 0; k < len; k++)
            wrong += ((const int32_t *)buf)[i + k] != a + d * (int64_t)k;
        return wrong;
    default:
        for (uint64_t k = 0; k < len; k++) {
            int exact;
            uint64_t got = pb_load_int(buf, i + k, t, &exact);
            wrong += !exact || got != first + step * k;
        }
        return wrong;
    }
}

uint64_t pb_check_host(const void *buf, uint64_t count, pb_dtype_t t, const pb_expect_t *e)
{
    uint64_t wrong = 0, step;
    int fl = is_float_type(t);
    double lim = (double)pb_dtype_exact_max(t);
    for (uint64_t i = 0; i < count;) {
        uint64_t len = affine_run(e, i, &step);
        if (len == 0) { /* averages need not be integers: the raw value */
            wrong += !pb_cm_matches(e, i, pb_load_double(buf, i, t), fl, lim);
            i++;
            continue;
        }
        len = len < count - i ? len : count - i;
        wrong += check_run(buf, i, len, t, (uint64_t)pb_cm_expect(e, i), step);
        i += len;
    }
    return wrong;
}
