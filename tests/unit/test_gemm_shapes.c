/* test_gemm_shapes.c - the GEMM shapes of one transformer layer, checked
 * against values computed by hand from the formulas in pb_gemm_shapes.h
 * (Megatron-LM's column/row-parallel linear layers). */
#include <string.h>

#include "model/pb_gemm_shapes.h"
#include "pb_test.h"

#define CHECK_SHAPE(s, nm, M, N, K)                                                  \
    do {                                                                             \
        CHECK(strcmp((s).name, nm) == 0);                                            \
        CHECK((s).m == (M) && (s).n == (N) && (s).k == (K));                         \
        CHECK((s).flops == 2 * (uint64_t)(M) * (N) * (K));                           \
    } while (0)

/* Llama-3-70B's layer (config.json: hidden_size 8192, num_attention_heads
 * 64, num_key_value_heads 8, intermediate_size 28672, SwiGLU) at seq 4096,
 * micro-batch 1, tp 8:
 *   T = b.s = 4096; head size h/a = 8192/64 = 128
 *   qkv:      N = (h + 2.h.g/a)/t = (8192 + 2.128.8)/8 = 10240/8 = 1280, K = h
 *   attn_out: K = h/t = 1024, N = h = 8192
 *   mlp_up:   N = 2.f/t = 2.28672/8 = 7168 (gated), K = h
 *   mlp_down: K = f/t = 3584, N = h
 * Cross-check: one tp rank's weights are the K.N sums, 8192.(1280 + 1024
 * + 7168 + 3584) = 8192.13056 = 106954752; times tp 8 and 80 layers =
 * 68451041280, plus embedding and output 2.128256.8192 = 2101346304,
 * makes 70.55e9: the model's published 70.6B parameters. */
static void test_llama70b(void)
{
    pb_gemm_model_t m = {.hidden = 8192, .seq = 4096, .mbs = 1, .tp = 8, .heads = 64,
                         .kv_heads = 8, .ffn = 28672, .gated = 1};
    pb_gemm_shape_t s[PB_GEMM_MAX_SHAPES];
    int n = -1;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_gemm_layer_shapes(&m, 0, s, &n, &err) == PB_OK);
    CHECK(n == 4);
    if (n != 4)
        return;
    CHECK_SHAPE(s[0], "gemm_qkv", 4096, 1280, 8192);
    CHECK_SHAPE(s[1], "gemm_attn_out", 4096, 8192, 1024);
    CHECK_SHAPE(s[2], "gemm_mlp_up", 4096, 7168, 8192);
    CHECK_SHAPE(s[3], "gemm_mlp_down", 4096, 8192, 3584);
    /* 2.4096.1280.8192, worked out separately */
    CHECK(s[0].flops == UINT64_C(85899345920));
    CHECK(s[2].flops == UINT64_C(481036337152));
    uint64_t weights = 0;
    for (int i = 0; i < 4; i++)
        weights += s[i].n * s[i].k;
    CHECK(weights == UINT64_C(106954752));

    /* not gated: the up projection is f/t = 3584 wide */
    m.gated = 0;
    CHECK(pb_gemm_layer_shapes(&m, 0, s, &n, &err) == PB_OK);
    CHECK_SHAPE(s[2], "gemm_mlp_up", 4096, 3584, 8192);

    /* backward of Y[T,N] = X[T,K].W[K,N]: dgrad (T, K, N), wgrad (K, N, T) */
    m.gated = 1;
    CHECK(pb_gemm_layer_shapes(&m, 1, s, &n, &err) == PB_OK);
    CHECK(n == 12);
    if (n != 12)
        return;
    CHECK_SHAPE(s[4], "gemm_qkv_dgrad", 4096, 8192, 1280);
    CHECK_SHAPE(s[5], "gemm_qkv_wgrad", 8192, 1280, 4096);
    CHECK_SHAPE(s[6], "gemm_attn_out_dgrad", 4096, 1024, 8192);
    CHECK_SHAPE(s[7], "gemm_attn_out_wgrad", 1024, 8192, 4096);
    CHECK_SHAPE(s[8], "gemm_mlp_up_dgrad", 4096, 8192, 7168);
    CHECK_SHAPE(s[9], "gemm_mlp_up_wgrad", 8192, 7168, 4096);
    CHECK_SHAPE(s[10], "gemm_mlp_down_dgrad", 4096, 3584, 8192);
    CHECK_SHAPE(s[11], "gemm_mlp_down_wgrad", 3584, 8192, 4096);
    /* each backward GEMM costs what its forward one does: 3x in all */
    for (int i = 0; i < 4; i++)
        CHECK(s[4 + 2 * i].flops == s[i].flops && s[5 + 2 * i].flops == s[i].flops);
    CHECK(s[0].kind == PB_GEMM_QKV && s[0].pass == PB_GEMM_FWD);
    CHECK(s[11].kind == PB_GEMM_MLP_DOWN && s[11].pass == PB_GEMM_WGRAD);
}

/* The command's defaults (usage text: h 4096, 32 heads, MHA, f = 4h, seq
 * 4096, mbs 1, tp 1): qkv N = 3h = 12288 (g = a: k and v as wide as q),
 * attn_out 4096^3, up N = f = 16384, down K = 16384. */
static void test_defaults(void)
{
    pb_gemm_model_t m;
    pb_gemm_model_defaults(&m);
    CHECK(m.kv_heads == 0 && m.ffn == 0); /* "follow heads / hidden" */
    pb_gemm_model_resolve(&m);
    CHECK(m.hidden == 4096 && m.seq == 4096 && m.mbs == 1 && m.tp == 1);
    CHECK(m.heads == 32 && m.kv_heads == 32 && m.ffn == 16384 && !m.gated);
    pb_gemm_shape_t s[PB_GEMM_MAX_SHAPES];
    int n = 0;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_gemm_layer_shapes(&m, 0, s, &n, &err) == PB_OK && n == 4);
    CHECK_SHAPE(s[0], "gemm_qkv", 4096, 12288, 4096);
    CHECK_SHAPE(s[1], "gemm_attn_out", 4096, 4096, 4096);
    CHECK_SHAPE(s[2], "gemm_mlp_up", 4096, 16384, 4096);
    CHECK_SHAPE(s[3], "gemm_mlp_down", 4096, 4096, 16384);
    CHECK(s[1].flops == UINT64_C(137438953472)); /* 2^37 = 2.2^12.2^12.2^12 */

    /* micro-batch 2 doubles M only; kv_heads/ffn given are kept */
    m.mbs = 2;
    m.kv_heads = 8;
    m.ffn = 11008;
    pb_gemm_model_resolve(&m);
    CHECK(m.kv_heads == 8 && m.ffn == 11008);
    CHECK(pb_gemm_layer_shapes(&m, 0, s, &n, &err) == PB_OK);
    /* qkv N = 4096 + 2.(4096/32).8 = 4096 + 2048 = 6144 */
    CHECK_SHAPE(s[0], "gemm_qkv", 8192, 6144, 4096);
    CHECK_SHAPE(s[3], "gemm_mlp_down", 8192, 4096, 11008);
}

static void expect_refusal(pb_gemm_model_t m, const char *want)
{
    pb_gemm_shape_t s[PB_GEMM_MAX_SHAPES];
    int n = 7;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_gemm_layer_shapes(&m, 1, s, &n, &err) == PB_EINPUT);
    CHECK(n == 0);
    if (strstr(err.msg, want) == NULL) {
        fprintf(stderr, "  message '%s' lacks '%s'\n", err.msg, want);
        pb_test_failures++;
    }
}

static void test_refusals(void)
{
    const pb_gemm_model_t ok = {.hidden = 8192, .seq = 4096, .mbs = 1, .tp = 8, .heads = 64,
                                .kv_heads = 8, .ffn = 28672, .gated = 1};
    pb_gemm_model_t m = ok;
    m.seq = 0;
    expect_refusal(m, "--seq must be above 0");
    m = ok;
    m.hidden = 8100; /* 8100 / 64 heads is no whole head size */
    expect_refusal(m, "--heads 64 does not divide --hidden 8100");
    m = ok;
    m.kv_heads = 6;
    expect_refusal(m, "--kv-heads 6 does not divide --heads 64");
    m = ok;
    m.tp = 16; /* 16 divides 64 heads but not the 8 query groups */
    expect_refusal(m, "--tp 16 does not divide --kv-heads 8");
    m = ok;
    m.tp = 3;
    expect_refusal(m, "--tp 3 does not divide --heads 64");
    m = ok;
    m.ffn = 28676; /* not a multiple of 8 */
    expect_refusal(m, "--tp 8 does not divide --ffn 28676");
    m = ok;
    m.seq = UINT64_C(1) << 40; /* 2.2^40.(3.2^15).2^15 >= 2^64 */
    m.ffn = UINT64_C(1) << 15;
    m.hidden = UINT64_C(1) << 15;
    expect_refusal(m, "do not fit 64 bits");
}

int main(void)
{
    test_llama70b();
    test_defaults();
    test_refusals();
    PB_TEST_END("test_gemm_shapes");
}
