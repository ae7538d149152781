/* test_check.c - collectives/pb_check, pb_dtype, pb_half: exact integer
 * limits of each type, IEEE half / bfloat16 conversions, the reduction
 * parameters and closed-form expectations, and the host fill/check pair,
 * including a simulated reduction in every order.
 *
 * IEEE 754-2008 binary16: 1 sign, 5 exponent (bias 15), 10 fraction bits
 * (11-bit significand); bfloat16: 1, 8 (bias 127), 7 (8-bit significand);
 * binary32 24-bit and binary64 53-bit significands.  Every integer in
 * [0, 2^p] is exact with a p-bit significand, 2^p + 1 is not. */
#include "collectives/pb_check.h"
#include "core/pb_dtype.h"
#include "collectives/pb_half.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"

static const pb_dtype_t all_types[] = {PB_F32, PB_F64, PB_F16, PB_BF16, PB_I32, PB_I8, PB_I64};
#define NTYPES (sizeof all_types / sizeof all_types[0])

/* ---------------------------------------------------------------- dtypes */

static void test_dtype(void)
{
    CHECK(pb_dtype_exact_max(PB_F32) == 16777216u);              /* 2^24 */
    CHECK(pb_dtype_exact_max(PB_F64) == UINT64_C(9007199254740992)); /* 2^53 */
    CHECK(pb_dtype_exact_max(PB_F16) == 2048u);                  /* 2^11 */
    CHECK(pb_dtype_exact_max(PB_BF16) == 256u);                  /* 2^8 */
    CHECK(pb_dtype_exact_max(PB_I32) == 2147483647u);            /* 2^31 - 1 */
    CHECK(pb_dtype_exact_max(PB_I8) == 127u);                    /* 2^7 - 1 */
    CHECK(pb_dtype_exact_max(PB_F8E4M3) == 16u);                 /* 3 mantissa bits: 2^4 */
    CHECK(pb_dtype_exact_max(PB_F8E5M2) == 8u);                  /* 2 mantissa bits: 2^3 */
    /* read back through a double: its 53 bits, not int64's 63 */
    CHECK(pb_dtype_exact_max(PB_I64) == UINT64_C(9007199254740992));

    /* the limits really are the limits: N exact, N + 1 not (floats) */
    CHECK((float)16777216.0 == 16777216.0f && (double)(float)16777217.0 != 16777217.0);
    CHECK(pb_half_to_float(pb_float_to_half(2048.0f)) == 2048.0f);
    CHECK(pb_half_to_float(pb_float_to_half(2049.0f)) != 2049.0f);
    CHECK(pb_bf16_to_float(pb_float_to_bf16(256.0f)) == 256.0f);
    CHECK(pb_bf16_to_float(pb_float_to_bf16(257.0f)) != 257.0f);

    CHECK(pb_dtype_size(PB_F32) == 4 && pb_dtype_size(PB_F64) == 8);
    CHECK(pb_dtype_size(PB_F16) == 2 && pb_dtype_size(PB_BF16) == 2);
    CHECK(pb_dtype_size(PB_I32) == 4 && pb_dtype_size(PB_I8) == 1);
    CHECK(pb_dtype_size(PB_I64) == 8);

    /* nccl-tests' printed names, and the short forms */
    static const struct {
        const char *s;
        pb_dtype_t t;
    } names[] = {{"float", PB_F32},   {"f32", PB_F32},     {"double", PB_F64},
                 {"f64", PB_F64},     {"half", PB_F16},    {"f16", PB_F16},
                 {"bfloat16", PB_BF16}, {"bf16", PB_BF16}, {"int32", PB_I32},
                 {"i32", PB_I32},     {"int8", PB_I8},     {"i8", PB_I8},
                 {"int64", PB_I64},   {"i64", PB_I64}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        pb_dtype_t t = PB_DTYPE_COUNT;
        CHECK(pb_dtype_parse(names[i].s, &t) == 0 && t == names[i].t);
    }
    pb_dtype_t t;
    CHECK(pb_dtype_parse("float16", &t) == -1);
    CHECK(pb_dtype_parse("", &t) == -1);
    CHECK(strcmp(pb_dtype_name(PB_BF16), "bfloat16") == 0);
    CHECK(strcmp(pb_dtype_name(PB_F16), "half") == 0);
    CHECK(strcmp(pb_dtype_name(PB_F32), "float") == 0);

    pb_redop_t op;
    CHECK(pb_redop_parse("sum", &op) == 0 && op == PB_SUM);
    CHECK(pb_redop_parse("max", &op) == 0 && op == PB_MAX);
    CHECK(pb_redop_parse("min", &op) == 0 && op == PB_MIN);
    CHECK(pb_redop_parse("avg", &op) == 0 && op == PB_AVG);
    CHECK(pb_redop_parse("prod", &op) == -1);
}

/* ------------------------------------------------------- half / bfloat16 */

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_half(void)
{
    CHECK(pb_float_to_half(1.0f) == 0x3C00);   /* exp 15 + 0 = 15 -> 15 << 10 */
    CHECK(pb_float_to_bf16(1.0f) == 0x3F80);   /* float 0x3F800000 >> 16 */
    CHECK(pb_float_to_half(0.0f) == 0x0000);
    CHECK(pb_float_to_half(-0.0f) == 0x8000);  /* sign kept */
    CHECK(pb_float_to_half(-2.0f) == 0xC000);  /* sign | (16 << 10) */
    CHECK(pb_float_to_half(2048.0f) == 0x6800); /* 2^11: exp 26 -> 26 << 10 */
    CHECK(pb_float_to_half(65504.0f) == 0x7BFF); /* max half (2 - 2^-10) * 2^15 */
    CHECK(pb_half_to_float(0x7BFF) == 65504.0f);
    CHECK(pb_float_to_half(65519.0f) == 0x7BFF); /* below the midpoint 65520 */
    CHECK(pb_float_to_half(65520.0f) == 0x7C00); /* midpoint to 2^16: ties to even = inf */
    CHECK(pb_float_to_half(1e6f) == 0x7C00);     /* overflow */
    CHECK(pb_float_to_half(-1e6f) == 0xFC00);
    CHECK(pb_float_to_half(2049.0f) == 0x6800);  /* tie 2048|2050 -> even 2048 */
    CHECK(pb_float_to_half(2051.0f) == 0x6802);  /* tie 2050|2052 -> even 2052 */
    CHECK(pb_float_to_half(2050.0f) == 0x6801);  /* exact, spacing 2 */
    CHECK(pb_float_to_bf16(257.0f) == 0x4380);   /* tie 256|258 -> even 256 */
    CHECK(pb_float_to_bf16(259.0f) == 0x4382);   /* tie 258|260 -> even 260 */
    CHECK(pb_float_to_bf16(256.0f) == 0x4380);   /* 2^8: exp 135 = 0x87 */
    CHECK(pb_bf16_to_float(0x4380) == 256.0f);
    CHECK(pb_half_to_float(0x3555) == 0.333251953125f); /* (1 + 341/1024) / 4 */

    /* subnormals: 0x0001 = 2^-24 = 5.9604644775390625e-08 */
    CHECK(pb_half_to_float(0x0001) == 5.9604644775390625e-08f);
    CHECK(pb_float_to_half(5.9604644775390625e-08f) == 0x0001);
    CHECK(pb_half_to_float(0x03FF) == 1023.0f * 5.9604644775390625e-08f); /* largest subnormal */
    CHECK(pb_half_to_float(0x0400) == 6.103515625e-05f);                  /* 2^-14 min normal */
    CHECK(pb_half_to_float(0x8001) == -5.9604644775390625e-08f);
    CHECK(pb_float_to_half(2.98023223876953125e-08f) == 0x0000);  /* 2^-25: tie -> even 0 */
    CHECK(pb_float_to_half(4.470348358154296875e-08f) == 0x0001); /* 1.5 * 2^-25 */
    CHECK(pb_float_to_half(8.940696716308594e-08f) == 0x0002);    /* 1.5 * 2^-24: tie -> 2 */
    CHECK(pb_float_to_half(1.0e-9f) == 0x0000);                   /* far below: zero */
    CHECK(pb_float_to_half(1023.5f * 5.9604644775390625e-08f) == 0x0400); /* tie -> 1024 */

    /* infinities and NaN */
    CHECK(pb_float_to_half(INFINITY) == 0x7C00);
    CHECK(pb_float_to_half(-INFINITY) == 0xFC00);
    uint16_t hn = pb_float_to_half(NAN);
    CHECK((hn & 0x7C00) == 0x7C00 && (hn & 0x03FF) != 0); /* still a NaN */
    CHECK(isnan(pb_half_to_float(0x7E00)));
    CHECK(isinf(pb_half_to_float(0x7C00)) && pb_half_to_float(0x7C00) > 0);
    uint16_t bn = pb_float_to_bf16(NAN);
    CHECK((bn & 0x7F80) == 0x7F80 && (bn & 0x007F) != 0);
    /* a signalling NaN whose payload sits in the low 16 bits stays a NaN */
    bn = pb_float_to_bf16(f_of(0x7F800001u));
    CHECK((bn & 0x7F80) == 0x7F80 && (bn & 0x007F) != 0);
    CHECK(pb_float_to_bf16(INFINITY) == 0x7F80);
    CHECK(pb_float_to_bf16(f_of(0x7F7FFFFFu)) == 0x7F80); /* FLT_MAX rounds up to inf */
    CHECK(pb_float_to_bf16(f_of(0x3F808000u)) == 0x3F80); /* tie, even stays */
    CHECK(pb_float_to_bf16(f_of(0x3F818000u)) == 0x3F82); /* tie, odd rounds up */
    CHECK(pb_float_to_bf16(f_of(0x3F808001u)) == 0x3F81); /* above the tie */

    /* every non-NaN half and bfloat16 survives the trip through float */
    int bad_h = 0, bad_b = 0;
    for (uint32_t u = 0; u < 65536u; u++) {
        uint16_t h = (uint16_t)u;
        int h_nan = (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
        int b_nan = (h & 0x7F80) == 0x7F80 && (h & 0x007F) != 0;
        if (!h_nan && pb_float_to_half(pb_half_to_float(h)) != h)
            bad_h++;
        if (h_nan && !isnan(pb_half_to_float(h)))
            bad_h++;
        if (!b_nan && pb_float_to_bf16(pb_bf16_to_float(h)) != h)
            bad_b++;
        if (b_nan && !isnan(pb_bf16_to_float(h)))
            bad_b++;
    }
    CHECK(bad_h == 0);
    CHECK(bad_b == 0);

    /* integers 0..2048 are exact in half, 0..256 in bfloat16 */
    int inexact = 0;
    for (int i = 0; i <= 2048; i++)
        inexact += pb_half_to_float(pb_float_to_half((float)i)) != (float)i;
    for (int i = 0; i <= 256; i++)
        inexact += pb_bf16_to_float(pb_float_to_bf16((float)i)) != (float)i;
    CHECK(inexact == 0);
}

/* ------------------------------------------------------------ redparams */

static void test_redparams(void)
{
    pb_redparams_t p;
    /* float sum n=4: 2^24 / 4 + 1 = 4194305, but q is capped at
     * PB_CHECK_QMAX = 2^20 = 1048576 (pb_check.c) */
    p = pb_check_redparams(PB_F32, PB_SUM, 4);
    CHECK(p.q == 1048576u && p.active == 4);
    /* float sum n=64: 2^24 / 64 + 1 = 262145 < 2^20 */
    p = pb_check_redparams(PB_F32, PB_SUM, 64);
    CHECK(p.q == 262145u && p.active == 64);
    p = pb_check_redparams(PB_BF16, PB_SUM, 4); /* 256 / 4 + 1 = 65 */
    CHECK(p.q == 65u && p.active == 4);
    p = pb_check_redparams(PB_BF16, PB_SUM, 300); /* 300 > 256: active 256, q = 1 + 1 */
    CHECK(p.q == 2u && p.active == 256);
    p = pb_check_redparams(PB_BF16, PB_SUM, 256); /* 256 / 256 + 1 = 2 */
    CHECK(p.q == 2u && p.active == 256);
    p = pb_check_redparams(PB_BF16, PB_SUM, 3); /* 256 / 3 = 85, + 1 = 86; 3 * 85 = 255 */
    CHECK(p.q == 86u && p.active == 3);
    p = pb_check_redparams(PB_I8, PB_SUM, 3); /* 127 / 3 = 42, + 1 = 43; 3 * 42 = 126 */
    CHECK(p.q == 43u && p.active == 3);
    p = pb_check_redparams(PB_I8, PB_SUM, 200); /* 200 > 127: active 127, q 2 */
    CHECK(p.q == 2u && p.active == 127);
    p = pb_check_redparams(PB_F16, PB_SUM, 3); /* 2048 / 3 = 682, + 1 = 683 */
    CHECK(p.q == 683u && p.active == 3);
    p = pb_check_redparams(PB_F16, PB_SUM, 1); /* 2049 */
    CHECK(p.q == 2049u && p.active == 1);
    p = pb_check_redparams(PB_I32, PB_SUM, 8); /* (2^31-1)/8 + 1 = 268435456 -> cap 2^20 */
    CHECK(p.q == 1048576u && p.active == 8);
    p = pb_check_redparams(PB_F64, PB_SUM, 1000); /* 2^53/1000 huge -> cap 2^20 */
    CHECK(p.q == 1048576u && p.active == 1000);

    /* max/min: q = min(L + 1, 2^20), every rank active */
    p = pb_check_redparams(PB_F32, PB_MAX, 4); /* min(2^24 + 1, 2^20) */
    CHECK(p.q == 1048576u && p.active == 4);
    p = pb_check_redparams(PB_F16, PB_MAX, 4); /* 2048 + 1 */
    CHECK(p.q == 2049u && p.active == 4);
    p = pb_check_redparams(PB_BF16, PB_MIN, 300); /* 256 + 1, all 300 active */
    CHECK(p.q == 257u && p.active == 300);
    p = pb_check_redparams(PB_I8, PB_MIN, 3); /* 127 + 1 */
    CHECK(p.q == 128u && p.active == 3);
    p = pb_check_redparams(PB_I32, PB_MAX, 3); /* min(2^31, 2^20) */
    CHECK(p.q == 1048576u);

    /* moved data: q = min(L + 1, 2^20) */
    CHECK(pb_check_move_q(PB_F32) == 1048576u);
    CHECK(pb_check_move_q(PB_F64) == 1048576u);
    CHECK(pb_check_move_q(PB_F16) == 2049u);
    CHECK(pb_check_move_q(PB_BF16) == 257u);
    CHECK(pb_check_move_q(PB_I32) == 1048576u);
    CHECK(pb_check_move_q(PB_I8) == 128u);

    /* reduction input: (rank + g) mod q for active ranks, else 0 */
    pb_redparams_t p5 = {5, 3};
    CHECK(pb_check_red_input(p5, 1, 4) == 0); /* (1 + 4) mod 5 */
    CHECK(pb_check_red_input(p5, 2, 4) == 1); /* 6 mod 5 */
    CHECK(pb_check_red_input(p5, 0, 7) == 2); /* 7 mod 5 */
    CHECK(pb_check_red_input(p5, 3, 1) == 0); /* rank 3 >= active 3 */

    /* move bases: (src * n + dst) * 977 + 1 */
    CHECK(pb_check_move_base(0, 0, 4) == 1);
    CHECK(pb_check_move_base(1, 2, 4) == 5863); /* 6 * 977 + 1 */
    /* distinct modulo q for every (src, dst) while src * n + dst < q */
    for (size_t ti = 0; ti < NTYPES; ti++) {
        uint64_t q = pb_check_move_q(all_types[ti]);
        int n = 1;
        while ((uint64_t)(n + 1) * (uint64_t)(n + 1) <= q && n < 64)
            n++;
        static unsigned char seen[1u << 20];
        memset(seen, 0, (size_t)q);
        int dup = 0;
        for (int s = 0; s < n; s++)
            for (int d = 0; d < n; d++) {
                uint64_t b = pb_check_move_base(s, d, n) % q;
                dup += seen[b];
                seen[b] = 1;
            }
        CHECK(dup == 0);
    }
}

/* --------------------------------------------------------- expectations */

static uint64_t reduced(uint64_t q, int nranks, int active, pb_redop_t op, uint64_t g)
{
    pb_expect_t e = {PB_EXPECT_REDUCED, g, q, op, nranks, active};
    return pb_expect_value(&e, 0);
}

static void test_expect_closed_form(void)
{
    /* q = 5, 3 ranks: rank r holds (r + g) mod 5 */
    CHECK(reduced(5, 3, 3, PB_SUM, 0) == 3); /* 0 + 1 + 2 */
    CHECK(reduced(5, 3, 3, PB_SUM, 1) == 6); /* 1 + 2 + 3 */
    CHECK(reduced(5, 3, 3, PB_SUM, 2) == 9); /* 2 + 3 + 4 */
    CHECK(reduced(5, 3, 3, PB_SUM, 3) == 7); /* 3 + 4 + 0 */
    CHECK(reduced(5, 3, 3, PB_SUM, 4) == 5); /* 4 + 0 + 1 */
    CHECK(reduced(5, 3, 3, PB_SUM, 8) == 7); /* g = 8 = 3 mod 5: as g = 3 */
    CHECK(reduced(5, 3, 3, PB_MAX, 0) == 2);
    CHECK(reduced(5, 3, 3, PB_MAX, 3) == 4);
    CHECK(reduced(5, 3, 3, PB_MAX, 4) == 4);
    CHECK(reduced(5, 3, 3, PB_MAX, 1) == 3);
    CHECK(reduced(5, 3, 3, PB_MIN, 0) == 0);
    CHECK(reduced(5, 3, 3, PB_MIN, 3) == 0);
    CHECK(reduced(5, 3, 3, PB_MIN, 4) == 0);
    CHECK(reduced(5, 3, 3, PB_MIN, 1) == 1); /* 1, 2, 3 */
    CHECK(reduced(5, 3, 3, PB_MIN, 2) == 2); /* 2, 3, 4 */
    /* q = 3, 7 ranks (more ranks than q): g = 0 gives 0,1,2,0,1,2,0 = 6 */
    CHECK(reduced(3, 7, 7, PB_SUM, 0) == 6);
    CHECK(reduced(3, 7, 7, PB_SUM, 1) == 7); /* 1,2,0,1,2,0,1 */
    CHECK(reduced(3, 7, 7, PB_SUM, 2) == 8); /* 2,0,1,2,0,1,2 */
    CHECK(reduced(3, 7, 7, PB_MAX, 0) == 2);
    CHECK(reduced(3, 7, 7, PB_MIN, 1) == 0);
    /* one rank: the input itself */
    CHECK(reduced(5, 1, 1, PB_SUM, 3) == 3);
    CHECK(reduced(5, 1, 1, PB_MAX, 3) == 3);
    CHECK(reduced(5, 1, 1, PB_MIN, 3) == 3);
    /* inactive ranks add 0: 4 ranks, 3 active, g = 1 -> 1,2,3,0 */
    CHECK(reduced(5, 4, 3, PB_SUM, 1) == 6);
    CHECK(reduced(5, 4, 3, PB_MAX, 1) == 3);
    CHECK(reduced(5, 4, 3, PB_MIN, 1) == 0);
    /* bfloat16 at 300 ranks: q 2, 256 active: 128 ones, 44 zeros -> 128 */
    CHECK(reduced(2, 300, 256, PB_SUM, 0) == 128);
    CHECK(reduced(2, 300, 256, PB_SUM, 1) == 128);
    /* the element index j shifts g: base 3, j = 1 -> g = 4 */
    pb_expect_t e = {PB_EXPECT_REDUCED, 3, 5, PB_SUM, 3, 3};
    CHECK(pb_expect_value(&e, 1) == 5);
    /* patterns: (base + j) mod q */
    pb_expect_t pat = {PB_EXPECT_PATTERN, 7, 5, PB_SUM, 0, 0};
    CHECK(pb_expect_value(&pat, 0) == 2); /* 7 mod 5 */
    CHECK(pb_expect_value(&pat, 3) == 0); /* 10 mod 5 */
    CHECK(pb_expect_value(&pat, 4) == 1); /* 11 mod 5 */
}

/* A loop over the ranks, compared with the closed forms. */
static void test_expect_brute_force(void)
{
    int bad = 0;
    for (uint64_t q = 2; q <= 13; q++)
        for (int active = 1; active <= 30; active++)
            for (int extra = 0; extra <= 2; extra += 2) {
                int nranks = active + extra;
                for (uint64_t g = 0; g < 3 * q + 2; g++) {
                    uint64_t sum = 0, mx = 0, mn = UINT64_MAX;
                    for (int r = 0; r < nranks; r++) {
                        uint64_t v = r < active ? ((uint64_t)r + g) % q : 0;
                        sum += v;
                        mx = v > mx ? v : mx;
                        mn = v < mn ? v : mn;
                    }
                    /* split g into base + j two ways */
                    pb_expect_t e = {PB_EXPECT_REDUCED, g, q, PB_SUM, nranks, active};
                    bad += pb_expect_value(&e, 0) != sum;
                    e.base = g / 2;
                    bad += pb_expect_value(&e, g - g / 2) != sum;
                    e.op = PB_MAX;
                    bad += pb_expect_value(&e, g - g / 2) != mx;
                    e.op = PB_MIN;
                    bad += pb_expect_value(&e, g - g / 2) != mn;
                }
            }
    CHECK(bad == 0);

    /* large q, as float uses: q = 2^20, 64 ranks, g near the wrap */
    const uint64_t q = UINT64_C(1) << 20;
    for (uint64_t g = q - 70; g < q + 5; g++) {
        uint64_t sum = 0, mx = 0, mn = UINT64_MAX;
        for (int r = 0; r < 64; r++) {
            uint64_t v = ((uint64_t)r + g) % q;
            sum += v;
            mx = v > mx ? v : mx;
            mn = v < mn ? v : mn;
        }
        pb_expect_t e = {PB_EXPECT_REDUCED, g, q, PB_SUM, 64, 64};
        bad += pb_expect_value(&e, 0) != sum;
        e.op = PB_MAX;
        bad += pb_expect_value(&e, 0) != mx;
        e.op = PB_MIN;
        bad += pb_expect_value(&e, 0) != mn;
    }
    CHECK(bad == 0);
}

/* ---------------------------------------------------- host fill / check */

static void test_fill_check(void)
{
    enum { COUNT = 3000 }; /* > every small q, so the patterns wrap */
    unsigned char *buf = malloc(COUNT * 8);
    CHECK(buf != NULL);
    if (buf == NULL)
        return;
    for (size_t ti = 0; ti < NTYPES; ti++) {
        pb_dtype_t t = all_types[ti];
        size_t es = pb_dtype_size(t);
        uint64_t qs[2] = {pb_check_move_q(t), 7};
        for (int qi = 0; qi < 2; qi++) {
            uint64_t q = qs[qi], base = 12345;
            pb_fill_host(buf, COUNT, t, base, q);
            pb_expect_t e = {PB_EXPECT_PATTERN, base, q, PB_SUM, 0, 0};
            CHECK(pb_check_host(buf, COUNT, t, &e) == 0);

            /* the stored values, read independently of pb_load_int */
            int exact;
            uint64_t want0 = 12345 % q; /* element 0 */
            CHECK(pb_load_int(buf, 0, t, &exact) == want0 && exact);
            if (t == PB_I8)
                CHECK(((int8_t *)buf)[10] == (int8_t)((12345 + 10) % q));
            if (t == PB_F32)
                CHECK(((float *)buf)[10] == (float)((12345 + 10) % q));
            if (t == PB_F16)
                CHECK(pb_half_to_float(((uint16_t *)buf)[10]) == (float)((12345 + 10) % q));

            /* the wrong pattern (another base) is all wrong */
            pb_expect_t other = e;
            other.base = base + 1;
            CHECK(pb_check_host(buf, COUNT, t, &other) == COUNT);

            /* one element changed: exactly one wrong */
            uint64_t v17 = (base + 17) % q;
            pb_store_int(buf, 17, t, (v17 + 1) % q);
            CHECK(pb_check_host(buf, COUNT, t, &e) == 1);
            pb_store_int(buf, 17, t, v17);
            CHECK(pb_check_host(buf, COUNT, t, &e) == 0);
            /* one low bit flipped in the raw bytes of the last element */
            buf[(COUNT - 1) * es] ^= 0x01;
            CHECK(pb_check_host(buf, COUNT, t, &e) == 1);
            buf[(COUNT - 1) * es] ^= 0x01;
        }
        /* poison (all bytes 0xFF: NaN for floats, -1 for integers) */
        memset(buf, 0xFF, COUNT * es);
        pb_expect_t e = {PB_EXPECT_PATTERN, 0, pb_check_move_q(t), PB_SUM, 0, 0};
        CHECK(pb_check_host(buf, COUNT, t, &e) == COUNT);
    }

    /* values that are not whole non-negative numbers are never "exact" */
    int exact = 1;
    float f[4] = {2.5f, -1.0f, INFINITY, NAN};
    for (int i = 0; i < 4; i++) {
        exact = 1;
        (void)pb_load_int(f, (uint64_t)i, PB_F32, &exact);
        CHECK(!exact);
    }
    int32_t neg = -3;
    (void)pb_load_int(&neg, 0, PB_I32, &exact);
    CHECK(!exact);
    free(buf);
}

/* -------------------------------------------------- simulated reduction */

/* dst[i] = dst[i] op src[i], in the type's own arithmetic, rounded back to
 * the type after every step as an MPI user operator would. */
static void combine(void *dst, const void *src, uint64_t count, pb_dtype_t t, pb_redop_t op)
{
    for (uint64_t i = 0; i < count; i++) {
        switch (t) {
        case PB_F32: {
            float a = ((float *)dst)[i], b = ((const float *)src)[i];
            ((float *)dst)[i] = op == PB_SUM ? a + b : op == PB_MAX ? fmaxf(a, b) : fminf(a, b);
            break;
        }
        case PB_F64: {
            double a = ((double *)dst)[i], b = ((const double *)src)[i];
            ((double *)dst)[i] = op == PB_SUM ? a + b : op == PB_MAX ? fmax(a, b) : fmin(a, b);
            break;
        }
        case PB_F16:
        case PB_BF16: {
            uint16_t ha = ((uint16_t *)dst)[i], hb = ((const uint16_t *)src)[i];
            float a = t == PB_F16 ? pb_half_to_float(ha) : pb_bf16_to_float(ha);
            float b = t == PB_F16 ? pb_half_to_float(hb) : pb_bf16_to_float(hb);
            float r = op == PB_SUM ? a + b : op == PB_MAX ? fmaxf(a, b) : fminf(a, b);
            ((uint16_t *)dst)[i] = t == PB_F16 ? pb_float_to_half(r) : pb_float_to_bf16(r);
            break;
        }
        case PB_F8E4M3:
        case PB_F8E5M2: {
            uint8_t ha = ((uint8_t *)dst)[i], hb = ((const uint8_t *)src)[i];
            float a = t == PB_F8E4M3 ? pb_f8e4m3_to_float(ha) : pb_f8e5m2_to_float(ha);
            float b = t == PB_F8E4M3 ? pb_f8e4m3_to_float(hb) : pb_f8e5m2_to_float(hb);
            float r = op == PB_SUM ? a + b : op == PB_MAX ? fmaxf(a, b) : fminf(a, b);
            ((uint8_t *)dst)[i] = t == PB_F8E4M3 ? pb_float_to_f8e4m3(r) : pb_float_to_f8e5m2(r);
            break;
        }
        case PB_I32: {
            int64_t a = ((int32_t *)dst)[i], b = ((const int32_t *)src)[i];
            int64_t r = op == PB_SUM ? a + b : op == PB_MAX ? (a > b ? a : b) : (a < b ? a : b);
            /* wrap like two's complement hardware would, so overflow shows */
            ((int32_t *)dst)[i] = (int32_t)(uint32_t)(uint64_t)r;
            break;
        }
        case PB_I64: {
            int64_t a = ((int64_t *)dst)[i], b = ((const int64_t *)src)[i];
            ((int64_t *)dst)[i] = op == PB_SUM ? (int64_t)((uint64_t)a + (uint64_t)b)
                                  : op == PB_MAX ? (a > b ? a : b)
                                                 : (a < b ? a : b);
            break;
        }
        case PB_I8: {
            int a = ((int8_t *)dst)[i], b = ((const int8_t *)src)[i];
            int r = op == PB_SUM ? a + b : op == PB_MAX ? (a > b ? a : b) : (a < b ? a : b);
            ((int8_t *)dst)[i] = (int8_t)(uint8_t)(unsigned)r;
            break;
        }
        case PB_DTYPE_COUNT:
            break;
        }
    }
}

/* reduce bufs[lo..hi) into out by halves (a tree, like recursive halving) */
static void reduce_tree(unsigned char **bufs, int lo, int hi, unsigned char *out,
                        unsigned char *tmp, uint64_t count, pb_dtype_t t, pb_redop_t op)
{
    size_t bytes = (size_t)count * pb_dtype_size(t);
    if (hi - lo == 1) {
        memcpy(out, bufs[lo], bytes);
        return;
    }
    int mid = lo + (hi - lo) / 2;
    unsigned char *right = malloc(bytes);
    if (right == NULL)
        return;
    reduce_tree(bufs, lo, mid, out, tmp, count, t, op);
    reduce_tree(bufs, mid, hi, right, tmp, count, t, op);
    combine(out, right, count, t, op);
    free(right);
}

/* Reduces n rank buffers filled by pb_fill_red_host in three orders and
 * returns the largest wrong count pb_check_host reports.  q_override
 * replaces the safe modulus (to show an unsafe one is caught). */
static uint64_t simulate(pb_dtype_t t, pb_redop_t op, int n, uint64_t q_override)
{
    enum { COUNT = 600 };
    const uint64_t first = 1000; /* the buffer's first global index */
    size_t bytes = COUNT * pb_dtype_size(t);
    pb_redparams_t p = pb_check_redparams(t, op, n);
    if (q_override)
        p.q = q_override;
    unsigned char **bufs = calloc((size_t)n, sizeof *bufs);
    unsigned char *acc = malloc(bytes), *tmp = malloc(bytes);
    uint64_t worst = 0;
    if (bufs == NULL || acc == NULL || tmp == NULL)
        goto out;
    for (int r = 0; r < n; r++) {
        bufs[r] = malloc(bytes);
        if (bufs[r] == NULL)
            goto out;
        pb_fill_red_host(bufs[r], COUNT, t, p, r, first);
    }
    /* spot-check the inputs: rank r holds (r + first + j) mod q, or 0 */
    for (int r = 0; r < n; r++) {
        int exact;
        uint64_t v = pb_load_int(bufs[r], 5, t, &exact);
        uint64_t want = r < p.active ? ((uint64_t)r + first + 5) % p.q : 0;
        if (!exact || v != want)
            worst = COUNT + 1;
    }
    pb_expect_t e = {PB_EXPECT_REDUCED, first, p.q, op, n, p.active};

    memcpy(acc, bufs[0], bytes); /* rank order 0, 1, ..., n-1 */
    for (int r = 1; r < n; r++)
        combine(acc, bufs[r], COUNT, t, op);
    uint64_t w = pb_check_host(acc, COUNT, t, &e);
    worst = w > worst ? w : worst;

    memcpy(acc, bufs[n - 1], bytes); /* reverse order */
    for (int r = n - 2; r >= 0; r--)
        combine(acc, bufs[r], COUNT, t, op);
    w = pb_check_host(acc, COUNT, t, &e);
    worst = w > worst ? w : worst;

    reduce_tree(bufs, 0, n, acc, tmp, COUNT, t, op); /* a tree */
    w = pb_check_host(acc, COUNT, t, &e);
    worst = w > worst ? w : worst;
out:
    if (bufs != NULL)
        for (int r = 0; r < n; r++)
            free(bufs[r]);
    free(bufs);
    free(acc);
    free(tmp);
    return worst;
}

static void test_simulated_reduction(void)
{
    static const int ns[] = {1, 2, 3, 4, 7, 16};
    static const pb_redop_t ops[] = {PB_SUM, PB_MAX, PB_MIN};
    for (size_t ti = 0; ti < NTYPES; ti++)
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
            for (size_t oi = 0; oi < 3; oi++) {
                uint64_t w = simulate(all_types[ti], ops[oi], ns[ni], 0);
                if (w != 0) {
                    fprintf(stderr, "simulated %s %s n=%d: %llu wrong\n",
                            pb_dtype_name(all_types[ti]), pb_redop_name(ops[oi]), ns[ni],
                            (unsigned long long)w);
                    pb_test_failures++;
                }
            }
    /* more ranks than the type can count: zero-filled inactive ranks */
    CHECK(simulate(PB_BF16, PB_SUM, 300, 0) == 0);
    CHECK(simulate(PB_I8, PB_SUM, 200, 0) == 0);
    CHECK(simulate(PB_F16, PB_SUM, 100, 0) == 0);
    CHECK(simulate(PB_BF16, PB_MIN, 300, 0) == 0);

    /* the checker is not blind: an unsafe modulus makes sums round or wrap.
     * bfloat16, 4 ranks, q = 257: sums up to 4 * 256 = 1024 with 8
     * significant bits; int8, 3 ranks, q = 128: sums up to 381 > 127 */
    CHECK(simulate(PB_BF16, PB_SUM, 4, 257) > 0);
    CHECK(simulate(PB_I8, PB_SUM, 3, 128) > 0);
    CHECK(simulate(PB_F16, PB_SUM, 4, 2049) > 0);
}

/* OCP 8-bit floats (OCP 8-bit Floating Point Specification, 2023):
 * e4m3 bias 7, max 448 = 0x7e, NaN 0x7f, no infinity; e5m2 bias 15,
 * max 57344 = 0x7b, infinity 0x7c. */
static void test_fp8(void)
{
    CHECK(pb_float_to_f8e4m3(1.0f) == 0x38);   /* exponent 7 -> 0 0111 000 */
    CHECK(pb_float_to_f8e4m3(16.0f) == 0x58);  /* 2^4: exponent 11 -> 0 1011 000 */
    CHECK(pb_float_to_f8e4m3(17.0f) == 0x58);  /* spacing 2 at 16: 17 ties to even 16 */
    CHECK(pb_float_to_f8e4m3(18.0f) == 0x59);  /* 16 + 2: mantissa 001 */
    CHECK(pb_float_to_f8e4m3(448.0f) == 0x7e); /* largest finite */
    CHECK(pb_float_to_f8e4m3(-2.0f) == 0xc0);  /* sign + exponent 8 */
    CHECK(pb_f8e4m3_to_float(0x01) == ldexpf(1.0f, -9)); /* smallest subnormal 2^-6 * 1/8 */
    CHECK(isnan(pb_f8e4m3_to_float(0x7f)));
    CHECK(pb_float_to_f8e5m2(1.0f) == 0x3c);   /* exponent 15 -> 0 01111 00 */
    CHECK(pb_float_to_f8e5m2(8.0f) == 0x48);   /* 2^3: exponent 18 -> 0 10010 00 */
    CHECK(pb_float_to_f8e5m2(9.0f) == 0x48);   /* spacing 2 at 8: 9 ties to even 8 */
    CHECK(pb_float_to_f8e5m2(57344.0f) == 0x7b);
    CHECK(pb_float_to_f8e5m2(1e6f) == 0x7c);   /* overflow: infinity */
    CHECK(pb_f8e5m2_to_float(0x01) == ldexpf(1.0f, -16)); /* 2^-14 * 1/4 */
    /* every non-NaN pattern survives a round trip */
    int bad = 0;
    for (unsigned v = 0; v < 256; v++) {
        float a = pb_f8e4m3_to_float((uint8_t)v), b = pb_f8e5m2_to_float((uint8_t)v);
        if (!isnan(a) && pb_float_to_f8e4m3(a) != v)
            bad++;
        if (!isnan(b) && pb_float_to_f8e5m2(b) != v)
            bad++;
    }
    CHECK(bad == 0);
}

/* NCCL's average: sum / n, floored for integers; for floats within
 * (n + 2) units in the last place (pb_check_math.h).  q = 5, 3 ranks:
 *   g = 0: (0 + 1 + 2) / 3 = 1;  g = 1: (1+2+3)/3 = 2;  g = 3: (3+4+0)/3 = 7/3. */
static void test_avg(void)
{
    pb_expect_t e = {PB_EXPECT_REDUCED, 0, 5, PB_AVG, 3, 3};
    float f[4] = {1.0f, 2.0f, 0.0f, 7.0f / 3.0f};
    CHECK(pb_check_host(f, 2, PB_F32, &e) == 0);
    pb_expect_t e3 = e;
    e3.base = 3;
    CHECK(pb_check_host(&f[3], 1, PB_F32, &e3) == 0);   /* 2.3333333f: nearest float */
    float off = 2.5f;                                    /* far outside the tolerance */
    CHECK(pb_check_host(&off, 1, PB_F32, &e3) == 1);
    /* bfloat16: 7/3 rounds to 2.328125 (0x4015), 0.005 away; tolerance
     * (3 + 2) * (7/3) / 256 = 0.0456 */
    uint16_t b = pb_float_to_bf16(7.0f / 3.0f);
    CHECK(pb_check_host(&b, 1, PB_BF16, &e3) == 0);
    /* int32: floor(7/3) = 2 exactly, 3 is wrong */
    int32_t i2 = 2, i3 = 3;
    CHECK(pb_check_host(&i2, 1, PB_I32, &e3) == 0);
    CHECK(pb_check_host(&i3, 1, PB_I32, &e3) == 1);
}

/* The host checker walks runs where the expected value rises by a fixed
 * step and jumps at the wraps of (base + j) mod q (issue 35: no division
 * per element).  Against the definition, element by element: a buffer
 * written from pb_expect_value is all right, and each planted error is
 * counted exactly once - planted on every element where a run starts
 * (s = 0, the last linear element, the first wrapped one), so a run cut
 * one element too long or too short shows.  q = 7 and 8 make runs short;
 * 3 and 5 ranks with q = 7 give sums and maxima with wrap zones. */
static void test_check_runs(void)
{
    enum { COUNT = 400 };
    unsigned char *buf = malloc(COUNT * 8);
    CHECK(buf != NULL);
    if (buf == NULL)
        return;
    static const pb_redop_t ops[] = {PB_SUM, PB_MAX, PB_MIN};
    static const int ranks[] = {1, 2, 3, 5, 7, 9};
    int bad = 0;
    for (size_t ti = 0; ti < NTYPES; ti++)
        for (uint64_t q = 7; q <= 8; q++)
            for (int kind = 0; kind < 1 + 3 * 6; kind++) {
                pb_dtype_t t = all_types[ti];
                pb_expect_t e = {PB_EXPECT_PATTERN, 11, q, PB_SUM, 0, 0};
                if (kind > 0) { /* 9 ranks, 7 active: MIN's zero ranks; sums <= 49 fit every type */
                    int n = ranks[(kind - 1) % 6];
                    e = (pb_expect_t){PB_EXPECT_REDUCED, 11, q, ops[(kind - 1) / 6], n,
                                      n > 7 ? 7 : n};
                }
                uint64_t planted = 0;
                for (uint64_t j = 0; j < COUNT; j++)
                    pb_store_int(buf, j, t, pb_expect_value(&e, j));
                bad += pb_check_host(buf, COUNT, t, &e) != 0;
                for (uint64_t j = 0; j < COUNT; j++) {
                    uint64_t s = (e.base + j) % q;
                    if (s != 0 && s != q - 1 && s != q - (uint64_t)e.active &&
                        s != q - (uint64_t)e.active + 1 && j % 37 != 0)
                        continue;
                    uint64_t v = pb_expect_value(&e, j);
                    pb_store_int(buf, j, t, v ? v - 1 : 1);
                    planted++;
                }
                bad += pb_check_host(buf, COUNT, t, &e) != planted;
            }
    /* -0.0 where 0 is expected is wrong in the fast float paths too */
    float z[3] = {0.0f, 1.0f, -0.0f};
    pb_expect_t e0 = {PB_EXPECT_PATTERN, 0, 2, PB_SUM, 0, 0};
    bad += pb_check_host(z, 3, PB_F32, &e0) != 1;
    double zd[3] = {-0.0, 1.0, 0.0};
    bad += pb_check_host(zd, 3, PB_F64, &e0) != 1;
    CHECK(bad == 0);
    free(buf);
}

int main(void)
{
    test_fp8();
    test_avg();
    test_dtype();
    test_half();
    test_redparams();
    test_expect_closed_form();
    test_expect_brute_force();
    test_fill_check();
    test_simulated_reduction();
    test_check_runs();
    PB_TEST_END("unit_check");
}
