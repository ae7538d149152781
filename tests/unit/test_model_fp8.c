/* FP8 GEMMs and Transformer Engine's casts (model/pb_kernels.c), and the
 * fp8 memory of a layer (model/pb_memory.c), each against arithmetic done
 * by hand here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "model/pb_kernels.h"
#include "model/pb_memory.h"

/* An H100-like GPU written out here, so the test does not follow the
 * presets: 989 bf16 / 1979 fp8 TFLOP/s, best-shape share 0.803, 3.35 TB/s. */
static pb_hw_t gpu(void)
{
    pb_hw_t h;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("h100", &h, &err) == PB_OK);
    h.bf16_tflops = 989.0, h.fp8_tflops = 1979.0, h.gemm_eff = 0.803, h.hbm_tbps = 3.35;
    h.fp8_gemm_eff = 0.709, h.sustained = 1.0; /* the kernels alone */
    return h;
}

/* fp8 against bf16 at one compute-bound shape, M = N = K = 8192: both pay
 * the same shape loss S = pb_gemm_eff / gemm_eff and a 4 us launch, so
 *   bf16: 2 x 8192^3 / (989e12 x 0.803 x S)
 *   fp8:  2 x 8192^3 / (1979e12 x 0.709 x S)
 * (0.709 = fp8_gemm_eff, the MAMF table's best fp8 shape on an H100)
 * 2 x 8192^3 = 1,099,511,627,776 FLOPs; with S = 1 (the best shape):
 * bf16 1.0995e12 / 794.167e12 = 1.384484 ms, fp8 1.0995e12 / 1403.111e12
 * = 0.783625 ms; their ratio 794.167 / 1403.111 = 0.566003 for any S.
 * HBM floors: bf16 2 x 3 x 8192^2 B = 402.65 MB = 0.141 ms, fp8
 * (2 + 2 x 1) x 8192^2 = 268.4 MB = 0.094 ms: both below the compute. */
static void gemm_rate(void)
{
    pb_hw_t h = gpu();
    double d = 8192.0, f = 2.0 * d * d * d, S = pb_gemm_eff(&h, d, d, d) / 0.803;
    double b16 = pb_gemm_s(&h, d, d, d, 1) - 4e-6;
    double f8 = pb_gemm_fp8_s(&h, d, d, d, 1) - 4e-6;
    CHECK_NEAR(f8, f / (1979e12 * 0.709 * S), 1e-9);
    CHECK_NEAR(f8 / b16, (989.0 * 0.803) / (1979.0 * 0.709), 1e-9);
    CHECK_NEAR((989.0 * 0.803) / (1979.0 * 0.709), 0.566003, 1e-5);
    /* a small-M GEMM sits on the HBM floor, where fp8 halves the weight
     * bytes: M = 16, N = 12288, K = 5376: (16 x 5376 + 5376 x 12288) x 1 B
     * (86,016 + 66,060,288) + 16 x 12288 x 2 B (393,216) = 66,539,520 B at
     * 3.35e12 x 0.85 = 23.3677 us */
    CHECK_NEAR(pb_gemm_fp8_s(&h, 16, 12288, 5376, 1), 66539520.0 / (3.35e12 * 0.85) + 4e-6, 1e-9);
}

/* The casts of one linear layer, x[M = 8192, K = 4096] w[K, N = 4096]
 * (Hopper: cast_transpose reads 2 B and writes 1 + 1 B):
 * delayed scaling, input from a fused norm (no SP: Ms = M):
 *   input  -1 x M K + 2 x M K = 33,554,432 B, 1 kernel (the transpose)
 *   weight  4 x K N = 67,108,864 B, 1 kernel
 *   grad    4 x M N = 134,217,728 B, 1 kernel
 * current scaling, input not from a norm: an amax pass of 2 B first:
 *   input   6 x M K = 201,326,592 B, 2 kernels; weight 6 x K N =
 *   100,663,296 B; grad 6 x M N = 201,326,592 B
 * current scaling, fused norm with SP over 8 (Ms = 1024): quantize the
 *   local rows 3 x Ms K = 12,582,912 B + transpose of the gathered rows
 *   2 x M K = 67,108,864 B: 79,691,776 B, 2 kernels */
static void casts(void)
{
    pb_fw_fp8_t te = {1, 1, 0, 0}, cur = {0, 0, 1, 0}, cur_fused = {1, 1, 1, 0};
    double M = 8192, K = 4096, N = 4096;
    pb_fp8_cast_t k = pb_fp8_cast_bytes(&te, M, M, N, K, 1);
    CHECK_NEAR(k.in_fwd, 33554432.0, 1e-12);
    CHECK_NEAR(k.w, 67108864.0, 1e-12);
    CHECK_NEAR(k.grad_bwd, 134217728.0, 1e-12);
    CHECK(k.k_fwd == 1.0 && k.k_w == 1.0 && k.k_bwd == 1.0);
    k = pb_fp8_cast_bytes(&cur, M, M, N, K, 0);
    CHECK_NEAR(k.in_fwd, 201326592.0, 1e-12);
    CHECK_NEAR(k.w, 100663296.0, 1e-12);
    CHECK_NEAR(k.grad_bwd, 201326592.0, 1e-12);
    CHECK(k.k_fwd == 2.0 && k.k_w == 2.0 && k.k_bwd == 2.0);
    k = pb_fp8_cast_bytes(&cur_fused, M, 1024, N, K, 1);
    CHECK_NEAR(k.in_fwd, 79691776.0, 1e-12);
    CHECK(k.k_fwd == 2.0);
}

static pb_model_t small(void)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "small");
    m.layers = 4, m.hidden = 1024, m.heads = 8, m.kv_heads = 8, m.ffn = 4096, m.vocab = 32000;
    m.seq = 1024, m.mbs = 1, m.gbs = 8, m.dtype = PB_BF16, m.moe_every = 1, m.gated = 1;
    return m;
}

/* A whole layer in fp8 (megatron's recipe) against bf16: the GEMMs at
 * fp8, plus the casts as memory-bound bytes in the pass, the weights'
 * casts once per step.  Layer: T = 1024 tokens, h = 1024, ffn 4096,
 * gated, tp 1.  Linear layers (M = T, K in, N out):
 *   QKV 1024 -> 3072 (norm-fed), proj 1024 -> 1024, FC1 1024 -> 8192
 *   (norm-fed), FC2 4096 -> 1024.
 * Forward input casts: QKV 1 x T x 1024 = 1,048,576; proj 4 x T x 1024 =
 *   4,194,304; FC1 1,048,576; FC2 4 x T x 4096 = 16,777,216: 23,068,672 B.
 * Backward gradient casts 4 x T x N: 12,582,912 + 4,194,304 + 33,554,432
 *   + 4,194,304 = 54,525,952 B.
 * Weight casts 4 x K x N per step: 12,582,912 + 4,194,304 + 33,554,432 +
 *   16,777,216 = 67,108,864 B, 4 kernels: once = 67,108,864 / (3.35e12 x
 *   hbm_eff) + 4 x 4 us.
 * With one launch floor per pass (megatron), the memory-bound forward
 * grows by 23,068,672 B / (3.35e12 x hbm_eff) and the backward by
 * 54,525,952 B / (3.35e12 x hbm_eff); the GEMMs change to fp8. */
static void layer(void)
{
    pb_hw_t h = gpu();
    pb_model_t m = small();
    pb_kern_cfg_t c = {.tp = 1, .cp = 1, .ep = 1, .etp = 1, .flash = 1, .causal = 1,
                       .fw = PB_FW_MEGATRON, .layers = 4};
    pb_layer_time_t b16, f8;
    pb_kern_layer(&m, &h, &c, 0, &b16);
    c.fp8 = 1;
    pb_kern_layer(&m, &h, &c, 0, &f8);
    double bw = 3.35e12 * h.hbm_eff, T = 1024;
    double lin[4][2] = {{3072, 1024}, {1024, 1024}, {8192, 1024}, {1024, 4096}}; /* N, K */
    double g16 = 0, g8 = 0, w16 = 0, w8 = 0;
    for (int i = 0; i < 4; i++) {
        pb_lin_t a = pb_kern_linear(&h, T, lin[i][0], lin[i][1], 1, 1);
        pb_lin_t b = pb_kern_linear_c(&h, &c, T, lin[i][0], lin[i][1], 1, 1);
        g16 += a.fwd, g8 += b.fwd;
        w16 += a.dgrad + a.wgrad, w8 += b.dgrad + b.wgrad;
    }
    CHECK_NEAR(f8.fwd - b16.fwd, (g8 - g16) + 23068672.0 / bw, 1e-9);
    CHECK_NEAR(f8.bwd - b16.bwd, (w8 - w16) + 54525952.0 / bw, 1e-9);
    CHECK_NEAR(f8.once, 67108864.0 / bw + 16e-6, 1e-9);
    CHECK(b16.once == 0.0);
    CHECK(f8.fwd < b16.fwd); /* the GEMMs' gain outweighs the casts */
}

/* The gradient GEMMs accumulate at full precision: at 0.945 of the fp8
 * rate (measured, model/data/h200-fp8-gemm-2026-12-04.csv: the median
 * of cuBLAS slow / fast accumulation over 48 layer GEMMs on an H200), the
 * forward at the full rate; the weight gradient keeps its 0.96 too.  At
 * 8192^3 (S = 1, compute-bound): forward 0.783625 ms + 4 us, dgrad
 * 0.787625 ms / 0.945 = 0.833466 ms, wgrad 0.787625 / (0.945 x 0.96) =
 * 0.868194 ms (the share divides the whole kernel, launch included, as
 * the weight gradient's 0.96 always has). */
static void split_acc(void)
{
    pb_hw_t h = gpu();
    pb_kern_cfg_t c = {.tp = 1, .cp = 1, .ep = 1, .etp = 1, .fp8 = 1, .fw = PB_FW_MEGATRON};
    pb_lin_t l = pb_kern_linear_c(&h, &c, 8192, 8192, 8192, 1, 1);
    double g = 1099511627776.0 / (1979e12 * 0.709);
    CHECK_NEAR(l.fwd, g + 4e-6, 1e-9);
    CHECK_NEAR(l.dgrad, (g + 4e-6) / 0.945, 1e-9);
    CHECK_NEAR(l.wgrad, (g + 4e-6) / (0.945 * 0.96), 1e-9);
    CHECK_NEAR(pb_fp8_split_acc(), 0.945, 0);
}

/* torchao's rowwise recipe on the layer of layer() (T = 1024 tokens;
 * linears N x K: QKV 3072 x 1024, proj 1024 x 1024, FC1 8192 x 1024,
 * FC2 1024 x 4096), over tensorwise, from torchao's cast roofline and its
 * post-GEMM scaling (pb_kernels.c):
 *   inputs, 2 B x T x K: 2 x (3 x 1,048,576 + 4,194,304) = 14,680,064 B
 *     forward;
 *   weights, 2 B x K x N: 2 x (3,145,728 + 1,048,576 + 8,388,608 +
 *     4,194,304) = 33,554,432 B, once a step (megatron caches them);
 *   output gradients, 2 B x T x N: 2 x (3,145,728 + 1,048,576 + 8,388,608
 *     + 1,048,576) = 27,262,976 B, and the scaling of dgrad's T x K and
 *     wgrad's K x N outputs, 4 B x (7,340,032 + 16,777,216) = 96,468,992
 *     B: 123,731,968 B backward.
 * The GEMMs are the same (the row-scaled forward runs at the per-tensor
 * rate); megatron pays one launch floor per pass, so only bytes move
 * the times (the weights' once has one floor per kernel, unchanged). */
static void rowwise(void)
{
    pb_hw_t h = gpu();
    pb_model_t m = small();
    pb_kern_cfg_t c = {.tp = 1, .cp = 1, .ep = 1, .etp = 1, .flash = 1, .causal = 1,
                       .fw = PB_FW_MEGATRON, .layers = 4, .fp8 = 1};
    pb_layer_time_t tw, rw;
    pb_kern_layer(&m, &h, &c, 0, &tw);
    c.fp8_recipe = PB_FP8_ROWWISE;
    pb_kern_layer(&m, &h, &c, 0, &rw);
    double bw = 3.35e12 * h.hbm_eff;
    CHECK_NEAR(rw.fwd - tw.fwd, 14680064.0 / bw, 1e-9);
    CHECK_NEAR(rw.bwd - tw.bwd, 123731968.0 / bw, 1e-9);
    CHECK_NEAR(rw.once - tw.once, 33554432.0 / bw, 1e-9);
}

/* Memory of the same layer (sbh = 1024 x 1 x 1024 = 1,048,576): fp8
 * keeps QKV's and FC1's inputs in 1 B (2 x sbh), FC2's in 1 B per inner
 * element (4096/1024 x sbh = 4 sbh), and with flash attention adds a
 * 1 B copy of the projection's input (-1 x sbh): saving 5 sbh =
 * 5,242,880 B per layer; without flash the projection's input is saved
 * too: 7 sbh = 7,340,032 B. */
static void memory(void)
{
    pb_model_t m = small();
    pb_layout_t l;
    pb_layout_default(&l);
    CHECK_NEAR(pb_mem_act_fp8_saving(&m, &l, 0, 1), 5242880.0, 1e-12);
    CHECK_NEAR(pb_mem_act_fp8_saving(&m, &l, 0, 0), 7340032.0, 1e-12);
}

int main(void)
{
    gemm_rate();
    casts();
    layer();
    split_acc();
    rowwise();
    memory();
    PB_TEST_END("model_fp8");
}
