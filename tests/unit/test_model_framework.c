/* The training stacks (model/pb_framework.c), torchtitan's selective
 * recomputation modes and the settings by name (bench/glue/pb_job_set.c),
 * each against arithmetic done by hand here. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "bench/glue/pb_job.h"
#include "model/pb_kernels.h"

/* h 1024, 8 heads of 128 (8 KV heads), ffn 4096, gated (RMSNorm, SwiGLU,
 * RoPE), seq 1024, mbs 1: on tp 1 a layer sees T = 1024 tokens, so
 *   ah = T x h = 2^20 (norms, residuals), act = T x ffn = 4 x 2^20,
 *   q = k = T x 1024 = 2^20 (rotary). */
static pb_model_t small(uint64_t layers)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "small");
    m.layers = layers, m.hidden = 1024, m.heads = 8, m.kv_heads = 8, m.ffn = 4096;
    m.vocab = 32000, m.seq = 1024, m.mbs = 1, m.gbs = 8, m.dtype = PB_BF16, m.moe_every = 1;
    m.gated = 1;
    return m;
}

/* HBM at 2^20 x 1e6 B/s (1.048576 TB/s, hbm_eff 1): 2^20 bytes take 1 us,
 * so "n ah-bytes" below are n microseconds. */
static pb_hw_t gpu(void)
{
    pb_hw_t h;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("h100", &h, &err) == PB_OK);
    h.hbm_tbps = 1.048576, h.hbm_eff = 1.0;
    return h;
}

/* same_attn: FlashAttention-2 at the vendor kernel's rate, so that two
 * stacks differ in their memory-bound passes alone */
static pb_layer_time_t layer_on(pb_fw_t fw, pb_recomp_t r, uint64_t layers, int same_attn)
{
    pb_model_t m = small(layers);
    pb_hw_t h = gpu();
    if (same_attn)
        h.attn_fa2_tflops = h.attn_tflops;
    pb_kern_cfg_t c = {.tp = 1, .cp = 1, .ep = 1, .etp = 1, .flash = 1, .causal = 1,
                       .recomp = r, .fw = fw, .layers = layers};
    pb_layer_time_t t;
    pb_kern_layer(&m, &h, &c, 0, &t);
    return t;
}

static pb_layer_time_t layer(pb_fw_t fw, pb_recomp_t r, uint64_t layers)
{
    return layer_on(fw, r, layers, 1);
}

/* Memory-bound bytes of the layer per stack (bytes per element from
 * pb_framework.c's table; the GEMMs and attention are the same, so the
 * differences are the memory-bound passes alone):
 *   megatron fwd 2x4 ah + 2x7 ah + 6 act + 4 (q + k) = 8 + 14 + 24 + 8
 *            = 54 ah, one launch floor;  bwd 2x6 + 2x5 + 10x4 + 4x2 = 70 ah
 *   fsdp     fwd 2x36 + 2x6 + 10x4 + 20x2 = 72 + 12 + 40 + 40 = 164 ah,
 *            2x8 + 2x1 + 2 + 2x5 = 30 kernels;
 *            bwd 2x92 + 2x6 + 18x4 + 30x2 = 184 + 12 + 72 + 60 = 328 ah,
 *            2x15 + 2x1 + 3 + 2x8 = 51 kernels
 *   torchtitan fwd 2x4 + 2x5 + 6x4 + 4x2 = 50 ah, 2 + 1 + 1 + 2 = 6 kernels;
 *            bwd 2x6 + 2x2 + 10x4 + 4x2 = 64 ah, 4 + 0 + 1 + 2 = 7 kernels
 * At 1 us per ah and 4 us per launch beyond the first:
 *   fsdp - megatron:       fwd 110 + 29 x 4 = 226 us, bwd 258 + 50 x 4 = 458 us
 *   torchtitan - megatron: fwd -4 + 5 x 4 = 16 us,    bwd -6 + 6 x 4 = 18 us
 *   deepspeed and nemo run Megatron's kernels: 0. */
static void stacks(void)
{
    pb_layer_time_t mg = layer(PB_FW_MEGATRON, PB_RECOMP_NONE, 4);
    pb_layer_time_t fs = layer(PB_FW_FSDP, PB_RECOMP_NONE, 4);
    pb_layer_time_t tt = layer(PB_FW_TORCHTITAN, PB_RECOMP_NONE, 4);
    pb_layer_time_t ds = layer(PB_FW_DEEPSPEED, PB_RECOMP_NONE, 4);
    CHECK_NEAR(fs.fwd - mg.fwd, 226e-6, 1e-9);
    CHECK_NEAR(fs.bwd - mg.bwd, 458e-6, 1e-9);
    CHECK_NEAR(tt.fwd - mg.fwd, 16e-6, 1e-9);
    CHECK_NEAR(tt.bwd - mg.bwd, 18e-6, 1e-9);
    CHECK_NEAR(ds.fwd, mg.fwd, 1e-12);
    CHECK_NEAR(ds.bwd, mg.bwd, 1e-12);
}

/* The attention kernel is the stack's (pb_framework.c): the PyTorch-
 * native ones run FlashAttention-2, Megatron's cuDNN.  The causal
 * forward of the small layer: 4 b s^2 hd heads / 2 = 4 x 1024^2 x 128 x
 * 8 / 2 = 2,147,483,648 FLOPs, forward + backward 3.5 x that, at each
 * kernel's rate times the sustained share: torchtitan's core takes
 * 3.5 f / (sustained 1e12) x (1/attn_fa2_tflops - 1/attn_tflops) longer
 * (H100: 1/322 - 1/514), the rest of the layer the same as above. */
static void stack_attention(void)
{
    pb_hw_t h = gpu();
    double f = 2147483648.0, want = 3.5 * f / (h.sustained * 1e12) *
                                    (1.0 / h.attn_fa2_tflops - 1.0 / h.attn_tflops);
    CHECK(want > 0.0);
    pb_layer_time_t mg = layer_on(PB_FW_MEGATRON, PB_RECOMP_NONE, 4, 0);
    pb_layer_time_t tt = layer_on(PB_FW_TORCHTITAN, PB_RECOMP_NONE, 4, 0);
    pb_layer_time_t ttv = layer_on(PB_FW_TORCHTITAN, PB_RECOMP_NONE, 4, 1);
    CHECK_NEAR(tt.attn - mg.attn, want, 1e-12);
    CHECK_NEAR((tt.fwd + tt.bwd) - (ttv.fwd + ttv.bwd), want, 1e-12);
    /* maxtext runs cuDNN (attention: cudnn_flash_te): Megatron's core */
    pb_layer_time_t mx = layer_on(PB_FW_MAXTEXT, PB_RECOMP_NONE, 4, 0);
    CHECK_NEAR(mx.attn, mg.attn, 1e-15);
}

/* layer:2 on 4 layers: torchtitan wraps blocks 2 and 4 (count % 2 == 0):
 * 2 of 4 repeat their forward, so each layer's recomputation is half its
 * forward; on 5 layers floor(5/2) = 2 of 5, 0.4.  FLOPs: 2 layers'
 * forward more per step.  Memory: half the layers keep 2 sbh (full
 * recomputation's input), half keep everything. */
static void layer_recompute(void)
{
    pb_layer_time_t t = layer(PB_FW_MEGATRON, pb_recomp_layer_of(2), 4);
    CHECK_NEAR(t.recomp, 0.5 * t.fwd, 1e-12);
    t = layer(PB_FW_MEGATRON, pb_recomp_layer_of(2), 5);
    CHECK_NEAR(t.recomp, 0.4 * t.fwd, 1e-12);
    pb_model_t m = small(4);
    pb_flops_step_t f = pb_flops_step(&m, 8, 1, pb_recomp_layer_of(2));
    CHECK_NEAR(f.hw - f.model, 2.0 * pb_flops_layer_fwd(&m, 8, 1024, 0, 1), 1e-12);
    pb_layout_t l;
    pb_layout_default(&l);
    double full = pb_mem_act_layer(&m, &l, 0, PB_RECOMP_FULL, 1);
    double none = pb_mem_act_layer(&m, &l, 0, PB_RECOMP_NONE, 1);
    CHECK_NEAR(full, 2.0 * 1024 * 1024, 1e-12);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, pb_recomp_layer_of(2), 1), 0.5 * full + 0.5 * none,
               1e-12);
}

/* op: the K, output and up projections again: (h x kv + q x h + h x ffn)
 * = 1024 x 1024 + 1024 x 1024 + 1024 x 4096 = 6,291,456 weights, 2 x
 * b x s = 2048 FLOPs each: 12,884,901,888 FLOPs per layer.  Memory per
 * layer (tp 1, sbh = 2^20): input 2, Q 2, V 2, attention out 2 + its
 * log-sum-exp 4 x 8 heads / 1024 = 0.03125, gate 2 x 4 = 8, down 2:
 * 18.03125 sbh = 18,907,136 B. */
static void op_recompute(void)
{
    pb_model_t m = small(4);
    CHECK_NEAR(pb_flops_recompute(&m, 1, 1024, 0, 1, PB_RECOMP_OP), 12884901888.0, 1e-12);
    pb_layout_t l;
    pb_layout_default(&l);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_OP, 1), 18907136.0, 1e-12);
}

/* Settings by name: a bad value is refused naming the key and what it
 * takes; the framework sets its stack's defaults; a later key overrides. */
static void job_set(void)
{
    pb_job_t j;
    pb_job_defaults(&j);
    pb_err_t e;
    pb_err_clear(&e);
    CHECK(pb_job_set(&j, "framework", "jax", &e) == PB_EINPUT);
    CHECK(strstr(e.msg, "framework 'jax'") && strstr(e.msg, "torchtitan"));
    pb_err_clear(&e);
    CHECK(pb_job_set(&j, "dtype", "fp4", &e) == PB_EINPUT && strstr(e.msg, "bf16, fp16 or fp8"));
    pb_err_clear(&e);
    CHECK(pb_job_set(&j, "tp_overlap", "1.5", &e) == PB_EINPUT);
    pb_err_clear(&e);
    CHECK(pb_job_set(&j, "recompute", "layer:0", &e) == PB_EINPUT && strstr(e.msg, "layer:N"));
    pb_err_clear(&e);
    CHECK(pb_job_set(&j, "colour", "red", &e) == PB_EINPUT && strstr(e.msg, "recompute"));
    /* torchtitan: FSDP2 copies, autograd accumulation, no async TP */
    CHECK(pb_job_set(&j, "framework", "torchtitan", &e) == PB_OK);
    CHECK(j.step.framework == PB_FW_TORCHTITAN && j.step.zero3_copies && !j.step.grad_accum_fused);
    CHECK(j.step.tp_overlap == 0.0 && !j.step.overlap_tp_bwd);
    /* nemo: TP overlap on, then overridden by a later tp_overlap */
    CHECK(pb_job_set(&j, "framework", "nemo", &e) == PB_OK && j.step.tp_overlap == 1.0);
    CHECK(pb_job_set(&j, "tp_overlap", "0.25", &e) == PB_OK && j.step.tp_overlap == 0.25);
    CHECK(pb_job_set(&j, "tp_overlap", "off", &e) == PB_OK && j.step.tp_overlap == 0.0);
    CHECK(pb_job_set(&j, "dtype", "fp8", &e) == PB_OK && j.step.fp8 && j.model.dtype == PB_BF16);
    CHECK(pb_job_set(&j, "recompute", "layer:3", &e) == PB_OK &&
          pb_recomp_every(j.step.recomp) == 3);
    /* deepspeed: no overlapped reduction, unfused accumulation */
    CHECK(pb_job_set(&j, "framework", "deepspeed", &e) == PB_OK);
    CHECK(!j.step.overlap_grad && !j.step.grad_accum_fused && j.step.overlap_tp_bwd);
}

/* TP overlap's price: 16 of an H100's 132 SMs: u = 0.121212, hidden
 * seconds cost u / (1 - u) = 16 / 116 = 0.137931 of themselves. */
static void ub_cost(void)
{
    pb_hw_t h = gpu();
    h.sms = 132;
    CHECK_NEAR(pb_step_ub_cost(&h, 1.0), 16.0 / 116.0, 1e-12);
    h.sms = 148; /* B200: 16 / 132 */
    CHECK_NEAR(pb_step_ub_cost(&h, 1.0), 16.0 / 132.0, 1e-12);
}

int main(void)
{
    stacks();
    stack_attention();
    layer_recompute();
    op_recompute();
    job_set();
    ub_cost();
    PB_TEST_END("model_framework");
}
