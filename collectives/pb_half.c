#include "pb_half.h"

#include <math.h>
#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float pb_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t man = h & 0x3ffu;
    if (exp == 0x1f) /* inf or nan */
        return float_of(sign | 0x7f800000u | (man << 13));
    if (exp == 0) {
        if (man == 0)
            return float_of(sign);
        /* subnormal: value = man * 2^-24, exact in float */
        float v = (float)man * (1.0f / 16777216.0f);
        return sign ? -v : v;
    }
    return float_of(sign | ((exp + 112u) << 23) | (man << 13));
}

uint16_t pb_float_to_half(float f)
{
    uint32_t u = bits_of(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xffu;
    uint32_t man = u & 0x7fffffu;
    if (exp == 0xff) /* keep nan a nan */
        return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0u));
    int e = (int)exp - 127 + 15;
    if (e >= 0x1f)
        return (uint16_t)(sign | 0x7c00u);
    if (e <= 0) {
        if (e < -10)
            return sign;
        /* subnormal half: shift the full mantissa, round to nearest even */
        man |= 0x800000u;
        uint32_t shift = (uint32_t)(14 - e);
        uint32_t half_man = man >> shift;
        uint32_t rem = man & ((1u << shift) - 1u);
        uint32_t mid = 1u << (shift - 1u);
        if (rem > mid || (rem == mid && (half_man & 1u)))
            half_man++;
        return (uint16_t)(sign | half_man);
    }
    uint32_t h = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
        h++; /* a carry into the exponent is the correct rounding */
    return (uint16_t)(sign | h);
}

/* A small float with `eb` exponent bits and `mb` mantissa bits (bias
 * 2^(eb-1) - 1): decode exactly, encode with round to nearest even. */
static float small_to_float(uint32_t v, int eb, int mb)
{
    uint32_t sign = v >> (eb + mb);
    uint32_t exp = (v >> mb) & ((1u << eb) - 1u);
    uint32_t man = v & ((1u << mb) - 1u);
    int bias = (1 << (eb - 1)) - 1;
    float mag;
    if (exp == 0)
        mag = ldexpf((float)man, 1 - bias - mb);
    else
        mag = ldexpf((float)(man | (1u << mb)), (int)exp - bias - mb);
    return sign ? -mag : mag;
}

/* Largest finite magnitude and the encoding of NaN are the format's. */
static uint32_t float_to_small(float f, int eb, int mb, float maxfin, uint32_t nan_bits,
                               uint32_t inf_bits)
{
    uint32_t sign = signbit(f) ? 1u << (eb + mb) : 0u;
    if (isnan(f))
        return sign | nan_bits;
    float a = fabsf(f);
    int bias = (1 << (eb - 1)) - 1;
    /* quantum at this magnitude: subnormal spacing below the normal range */
    int e;
    frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    int unbiased = e - 1;
    if (unbiased < 1 - bias)
        unbiased = 1 - bias;
    float quantum = ldexpf(1.0f, unbiased - mb);
    float q = a / quantum; /* exact: a power-of-two scale */
    float r = rintf(q);    /* default rounding mode: nearest even */
    float rounded = r * quantum;
    if (rounded > maxfin)
        return sign | inf_bits;
    /* re-encode the rounded value exactly */
    if (rounded == 0.0f)
        return sign;
    frexpf(rounded, &e);
    unbiased = e - 1;
    if (unbiased < 1 - bias) { /* subnormal */
        uint32_t man = (uint32_t)ldexpf(rounded, bias - 1 + mb);
        return sign | man;
    }
    uint32_t man = (uint32_t)ldexpf(rounded, mb - unbiased) - (1u << mb);
    return sign | ((uint32_t)(unbiased + bias) << mb) | man;
}

float pb_f8e4m3_to_float(uint8_t v)
{
    if ((v & 0x7fu) == 0x7fu)
        return NAN;
    return small_to_float(v, 4, 3);
}

uint8_t pb_float_to_f8e4m3(float f)
{
    /* max finite 448 = 1.75 * 2^8; no infinity: overflow becomes NaN */
    return (uint8_t)float_to_small(f, 4, 3, 448.0f, 0x7fu, 0x7fu);
}

float pb_f8e5m2_to_float(uint8_t v)
{
    uint32_t exp = (v >> 2) & 0x1fu;
    if (exp == 0x1f)
        return (v & 3u) ? NAN : (v & 0x80u) ? -INFINITY : INFINITY;
    return small_to_float(v, 5, 2);
}

uint8_t pb_float_to_f8e5m2(float f)
{
    /* max finite 57344 = 1.75 * 2^15 */
    if (isinf(f))
        return f > 0 ? 0x7cu : 0xfcu;
    return (uint8_t)float_to_small(f, 5, 2, 57344.0f, 0x7fu, 0x7cu);
}
