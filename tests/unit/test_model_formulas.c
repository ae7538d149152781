/* Formulas of the model, each against a published formula evaluated by
 * hand here (the numbers in the comments are that arithmetic). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "model/pb_kernels.h"
#include "model/pb_step.h"

static pb_model_t gpt(uint64_t l, uint64_t h, uint64_t a, uint64_t V, uint64_t s, uint64_t b)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "gpt");
    m.layers = l, m.hidden = h, m.heads = a, m.kv_heads = a, m.ffn = 4 * h, m.vocab = V;
    m.seq = s, m.mbs = b, m.gbs = b, m.dtype = PB_BF16, m.moe_every = 1, m.topk = 1;
    return m;
}

/* Narayanan et al. 2021, Sec. 5.1 (Appendix): model FLOPs per iteration
 * 72*B*s*l*h^2*(1 + s/6h + V/12lh); with full recomputation
 * 96*B*s*l*h^2*(1 + s/6h + V/16lh). */
static void flops(void)
{
    pb_model_t m = gpt(96, 12288, 96, 51200, 2048, 1);
    double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
    double f72 = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
    double f96 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    pb_flops_step_t f = pb_flops_step(&m, 1536, 0, PB_RECOMP_NONE);
    CHECK_NEAR(f.model, f72, 1e-12);
    CHECK_NEAR(f.hw, f72, 1e-12);
    f = pb_flops_step(&m, 1536, 0, PB_RECOMP_FULL);
    CHECK_NEAR(f.model, f72, 1e-12);
    CHECK_NEAR(f.hw, f96, 1e-12);
    /* 4.511e18 FLOPs at 138 TFLOP/s on 1024 GPUs = 31.9 s: the paper's
     * own consistency check for "about 32 s" */
    CHECK_NEAR(f96 / (1024 * 138e12), 31.9, 0.01);
    /* selective (Korthikanti et al. 2022, Sec. 5): + 4*B*s^2*h per layer */
    f = pb_flops_step(&m, 1536, 0, PB_RECOMP_SELECTIVE);
    CHECK_NEAR(f.hw, f72 + l * 4 * B * s * s * h, 1e-12);
    /* causal: the attention-score part halves: 72Bslh^2 * s/6h -> /2 */
    f = pb_flops_step(&m, 1536, 1, PB_RECOMP_NONE);
    CHECK_NEAR(f.model, f72 - 72 * B * s * l * h * h * (s / (6 * h)) / 2, 1e-12);
}

/* Bubble: (p-1)/(v*m) of the ideal time (Narayanan et al. 2021, Sec.
 * 2.2.1-2.2.2); p = 8, m = 32: 7/32 = 0.21875; v = 2: 0.109375. */
static void bubble(void)
{
    pb_model_t m = gpt(32, 1024, 16, 32000, 1024, 1);
    m.gbs = 32;
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, NULL, 0};
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    for (int v = 1; v <= 2; v++) {
        pb_layout_t l;
        pb_layout_default(&l);
        l.size[PB_DIM_PP] = 8;
        l.vp = v;
        CHECK(pb_layout_check(&l, &m, 8, &err) == PB_OK);
        pb_step_t st;
        CHECK(pb_step_model(&m, &l, &c, &cost, &st, &err) == PB_OK);
        CHECK(st.micro == 32);
        double work = st.part[PB_PART_COMPUTE] + st.part[PB_PART_TP] + st.part[PB_PART_PP] +
                      st.part[PB_PART_EP] + st.part[PB_PART_CP];
        CHECK_NEAR(st.part[PB_PART_BUBBLE] / work, 7.0 / (32.0 * v), 1e-12);
    }
}

/* Activations (Korthikanti et al. 2022, Table 2, per layer, bytes):
 * s=2048, b=1, h=4096, a=32, t=8: sbh = 8,388,608; 5as/h = 80.
 *   no parallelism:   sbh*(34 + 80)          = 956,301,312
 *   TP:               sbh*(10 + 24/8 + 80/8) = 192,937,984
 *   TP + SP:          sbh*(34/8 + 80/8)      = 119,537,664
 *   TP + selective:   sbh*(10 + 24/8)        = 109,051,904
 *   TP + SP + sel.:   sbh*34/8               =  35,651,584
 *   full recompute:   2*sbh = 16,777,216; with SP 2*sbh/8 = 2,097,152 */
static void activations(void)
{
    pb_model_t m = gpt(32, 4096, 32, 32000, 2048, 1);
    pb_layout_t l;
    pb_layout_default(&l);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_NONE, 0), 956301312.0, 1e-12);
    l.size[PB_DIM_TP] = 8;
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_NONE, 0), 192937984.0, 1e-12);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_SELECTIVE, 0), 109051904.0, 1e-12);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_NONE, 1), 109051904.0, 1e-12); /* flash */
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_FULL, 0), 16777216.0, 1e-12);
    l.sp = 1;
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_NONE, 0), 119537664.0, 1e-12);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_SELECTIVE, 0), 35651584.0, 1e-12);
    CHECK_NEAR(pb_mem_act_layer(&m, &l, 0, PB_RECOMP_FULL, 0), 2097152.0, 1e-12);

    /* in flight on the first stage (Korthikanti Sec. 4.2.3): p micro-batches
     * under 1F1B, x (1 + (p-1)/(p*v)) interleaved: p = 4, v = 2: 4 * 11/8 */
    m.gbs = 64;
    l.size[PB_DIM_PP] = 4;
    pb_mem_cfg_t mc = {.recomp = PB_RECOMP_NONE};
    pb_mem_t mem;
    pb_memory(&m, &l, &mc, &mem);
    CHECK_NEAR(mem.inflight, 4.0, 1e-12);
    CHECK_NEAR(mem.act_layers, 4.0 * 8 * 119537664.0, 1e-12); /* 32/4 layers per stage */
    l.vp = 2;
    pb_memory(&m, &l, &mc, &mem);
    CHECK_NEAR(mem.inflight, 4.0 * 11.0 / 8.0, 1e-12);
}

/* Bytes per parameter (Rajbhandari et al. 2020, ZeRO, Sec. 3: 2 + 2 + 12
 * with fp16 gradients; Megatron keeps fp32 gradients: 2 + 4 + 12 = 18,
 * NVIDIA/Megatron-LM docs dist_optimizer.md).  Llama 2 7B (6,738,415,616
 * parameters, the preset) on tp 2, pp 1: every parameter / 2 x 18 bytes;
 * over d = 8: ZeRO-1 6 + 12/8 = 7.5; ZeRO-2 2 + 16/8 = 4; ZeRO-3 18/8 =
 * 2.25 (+ what ZeRO-3 gathers, test_model_memory.c). */
static void weights(void)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_model_preset("llama2-7b", &m, &err) == PB_OK);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 2;
    pb_mem_cfg_t mc = {.recomp = PB_RECOMP_NONE};
    pb_mem_t mem;
    pb_memory(&m, &l, &mc, &mem);
    double n = 6738415616.0 / 2;
    CHECK_NEAR(mem.params, n, 1e-12);
    CHECK_NEAR(mem.weights, n * 18, 1e-12);
    l.size[PB_DIM_DP] = 8;
    static const double per[] = {18.0, 7.5, 4.0};
    for (int z = 0; z < 3; z++) {
        mc.zero = z;
        pb_memory(&m, &l, &mc, &mem);
        CHECK_NEAR(mem.busiest.term[PB_MEM_PARAMS] + mem.busiest.term[PB_MEM_GRADS] +
                       mem.busiest.term[PB_MEM_OPTIM],
                   n * per[z], 1e-12);
    }
}

/* Hardware presets: the published numbers (datasheets, pb_hw.c). */
static void presets(void)
{
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("A100-80GB-SXM", &hw, &err) == PB_OK);
    CHECK(hw.bf16_tflops == 312.0 && hw.nvlink_gbps == 300.0 && hw.gpus_per_node == 8);
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    CHECK(hw.bf16_tflops == 989.0 && hw.fp8_tflops == 1979.0 && hw.hbm_tbps == 3.35);
    /* 8 NICs of 400 Gb/s for 8 GPUs: 50 GB/s per GPU */
    CHECK_NEAR(pb_hw_net_gbps_per_gpu(&hw), 50.0, 1e-12);
    CHECK(pb_hw_set(&hw, "nics_per_node", "4", &err) == PB_OK);
    CHECK_NEAR(pb_hw_net_gbps_per_gpu(&hw), 25.0, 1e-12);
    CHECK(pb_hw_set(&hw, "bogus", "1", &err) == PB_EINPUT);
    CHECK(pb_hw_preset("tpu", &hw, &err) == PB_EINPUT);
    CHECK(pb_hw_preset("h200", &hw, &err) == PB_OK && hw.hbm_gib == 141.0);
    CHECK(pb_hw_preset("b200", &hw, &err) == PB_OK && hw.bf16_tflops == 2250.0);
    /* H800: the H100 but NVLink 400 GB/s both ways = 200 each (doc/MODEL.md
     * [H800]); the same chip, so the same sustained share */
    pb_hw_t h100;
    CHECK(pb_hw_preset("h100", &h100, &err) == PB_OK);
    CHECK(pb_hw_preset("h800-sxm", &hw, &err) == PB_OK && hw.nvlink_gbps == 200.0 &&
          hw.bf16_tflops == h100.bf16_tflops && hw.hbm_tbps == h100.hbm_tbps &&
          hw.nic_gbitps == 400.0 && hw.nics_per_node == 8 && strcmp(hw.chip, "h100") == 0 &&
          hw.sustained == h100.sustained);
    /* a 2-GPU node built like the A100 preset's (8 NICs of 200 Gb/s per 8
     * GPUs = 25 GB/s per GPU) has 2 NICs, still 25 GB/s per GPU; before,
     * 8 NICs were shared by 2 GPUs: 100 GB/s, 4x too fast */
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    CHECK_NEAR(pb_hw_net_gbps_per_gpu(&hw), 25.0, 1e-12);
    pb_hw_set_gpus_per_node(&hw, 2);
    CHECK(hw.gpus_per_node == 2 && hw.nics_per_node == 2);
    CHECK_NEAR(pb_hw_net_gbps_per_gpu(&hw), 25.0, 1e-12);
    /* one GPU: 8/8 x 1 = 1 NIC; 3 GPUs: 8/8 x 3 = 3 */
    pb_hw_set_gpus_per_node(&hw, 1);
    CHECK(hw.nics_per_node == 1);
    pb_hw_set_gpus_per_node(&hw, 3);
    CHECK(hw.nics_per_node == 3 && hw.gpus_per_node == 3);
}

/* Which groups cross nodes: Megatron order tp fastest, 8 GPUs a node. */
static void placement(void)
{
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8, l.size[PB_DIM_PP] = 4, l.size[PB_DIM_DP] = 2;
    CHECK(!pb_step_group_net(&l, PB_GK_TP, 8));
    CHECK(pb_step_group_net(&l, PB_GK_DP, 8));
    CHECK(pb_step_group_net(&l, PB_GK_PP, 8));
    l.size[PB_DIM_TP] = 16;
    CHECK(pb_step_group_net(&l, PB_GK_TP, 8));
    l.size[PB_DIM_TP] = 2, l.size[PB_DIM_DP] = 4;
    CHECK(!pb_step_group_net(&l, PB_GK_DP, 8)); /* spans 2*4 = 8 ranks */
    /* HSDP, 8 GPUs a node: dp 64 at tp 1 puts 8 DP members in a node.
     * Shard groups of 8 fill a node, their replicas (every 8th member)
     * are one per node; shard groups of 16 span two nodes; at tp 2 a node
     * holds 4 DP members: shard groups of 4 stay inside, their 8 replicas
     * each in another node; one node of dp 8 keeps both inside. */
    pb_layout_default(&l);
    l.size[PB_DIM_DP] = 64, l.shard = 8;
    CHECK(!pb_step_group_net(&l, PB_GK_SHARD, 8) && pb_step_group_net(&l, PB_GK_REPL, 8));
    l.shard = 16;
    CHECK(pb_step_group_net(&l, PB_GK_SHARD, 8) && pb_step_group_net(&l, PB_GK_REPL, 8));
    l.size[PB_DIM_TP] = 2, l.size[PB_DIM_DP] = 32, l.shard = 4;
    CHECK(!pb_step_group_net(&l, PB_GK_SHARD, 8) && pb_step_group_net(&l, PB_GK_REPL, 8));
    pb_layout_default(&l);
    l.size[PB_DIM_DP] = 8, l.shard = 2;
    CHECK(!pb_step_group_net(&l, PB_GK_SHARD, 8) && !pb_step_group_net(&l, PB_GK_REPL, 8));
}

/* The GEMM efficiency function (model/pb_gemm_rate.c), by hand:
 * A100, 4096^3: 0.869 x ((4096/4246) / (8192/8342))^3 = 0.869 x
 * 0.9823363^3 = 0.869 x 0.9479395 = 0.8237594 (the MAMF best shape's
 * share less three short-dimension losses against the 8192 cube).
 * H100, M = 16, N = 12288, K = 5376: the HBM floor, 2*(16*5376 + 5376*12288
 * + 16*12288) = 132,685,824 B at 3.35 TB/s x 0.85 = 46.597 us, + 4 us
 * launch (vLLM's H100 sweep measures 46.5 TFLOP/s here, 45.5 us). */
static void gemm(void)
{
    pb_hw_t a, h;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &a, &err) == PB_OK && pb_hw_preset("h100", &h, &err) == PB_OK);
    CHECK_NEAR(pb_gemm_eff(&a, 4096, 4096, 4096), 0.8237594, 1e-6);
    CHECK_NEAR(pb_gemm_s(&h, 16, 12288, 5376, 1), 132685824.0 / (3.35e12 * 0.85) + 4e-6, 1e-9);
    /* 2 GEMMs batched share one launch floor: 2 x (t - 4 us) + 4 us */
    CHECK_NEAR(pb_gemm_s(&a, 1024, 1024, 4096, 2),
               2 * pb_gemm_s(&a, 1024, 1024, 4096, 1) - 4e-6, 1e-12);
}

/* TP exposure (Megatron-Core, doc/MODEL.md "Overlaps"): forward
 * collectives exposed; backward ones beside the weight-gradient GEMMs, so
 * with the overlap on the TP part is at most the forward's plus a little
 * interference, and turning the overlap off adds the backward whole. */
static void tp_exposure(void)
{
    pb_model_t m = gpt(8, 8192, 64, 51200, 2048, 4);
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, NULL, 0};
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8;
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    pb_step_t on, off;
    CHECK(pb_step_model(&m, &l, &c, &cost, &on, &err) == PB_OK);
    c.overlap_tp_bwd = 0;
    CHECK(pb_step_model(&m, &l, &c, &cost, &off, &err) == PB_OK);
    /* 2 forward and 2 backward all-reduces of one size per layer */
    CHECK_NEAR(off.part[PB_PART_TP], off.comm_total[PB_PART_TP], 1e-12);
    double fwd = off.comm_total[PB_PART_TP] / 2.0;
    CHECK(on.part[PB_PART_TP] >= fwd && on.part[PB_PART_TP] < fwd * 1.2);
}

/* What hidden communication still costs (Calculon's processor_usage,
 * calculon-ai/calculon's systems files, doc/MODEL.md): 0.02 of the GPU
 * over the network, 0.15
 * within a node, compute slowed by 1/(1 - usage). */
static void hidden_cost(void)
{
    CHECK_NEAR(pb_step_hidden_cost(1.0, 1), 0.02 / 0.98, 1e-12);
    CHECK_NEAR(pb_step_hidden_cost(2.0, 0), 2.0 * 0.15 / 0.85, 1e-12);
    CHECK(pb_step_hidden_cost(-1.0, 0) == 0.0); /* nothing hidden, nothing paid */
}

/* Unfused gradient accumulation (Megatron 2021 LocalDDP's hook
 * main_grad.add_(grad)): per micro-batch read the 16-bit gradient, read
 * and write the accumulator.  A100 preset, HBM 2.039 TB/s at 0.85:
 * 1e9 parameters into fp32 = 10e9 B / 1.73315e12 B/s = 5.770 ms; into
 * fp16 6e9 B = 3.462 ms.  On a step it adds that per micro-batch to the
 * busiest stage's compute (tp 8 gpt 8 x 8192: 8 micro-batches). */
static void grad_accum(void)
{
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    CHECK_NEAR(pb_step_accum_s(&hw, 1e9, 4.0), 10e9 / (2.039e12 * 0.85), 1e-12);
    CHECK_NEAR(pb_step_accum_s(&hw, 1e9, 2.0), 6e9 / (2.039e12 * 0.85), 1e-12);
    pb_model_t m = gpt(8, 8192, 64, 51200, 2048, 1);
    m.gbs = 8;
    pb_cost_t cost = {&hw, NULL, 0};
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8;
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    pb_step_t fused, sep;
    CHECK(pb_step_model(&m, &l, &c, &cost, &fused, &err) == PB_OK);
    c.grad_accum_fused = 0;
    CHECK(pb_step_model(&m, &l, &c, &cost, &sep, &err) == PB_OK);
    CHECK_NEAR(sep.part[PB_PART_COMPUTE] - fused.part[PB_PART_COMPUTE],
               8.0 * pb_step_accum_s(&hw, fused.mem.params, 4.0), 1e-9);
}

/* The ZeRO-3 cases below: an 8-layer, h 8192 model of 4096 tokens over
 * FSDP 64 (8 nodes), 4 micro-batches per rank, on `gpu`. */
typedef struct z3_case {
    pb_model_t m;
    pb_hw_t hw;
    pb_layout_t l;
    pb_step_cfg_t c;
    pb_cost_t cost; /* on hw */
    pb_err_t err;
} z3_case_t;

static void z3_case(const char *gpu, z3_case_t *z)
{
    z->m = gpt(8, 8192, 64, 51200, 4096, 1);
    z->m.gbs = 4 * 64;
    pb_err_clear(&z->err);
    CHECK(pb_hw_preset(gpu, &z->hw, &z->err) == PB_OK);
    pb_layout_default(&z->l);
    z->l.size[PB_DIM_DP] = 64;
    pb_step_cfg_default(&z->c);
    z->c.traffic.zero = 3;
    z->cost = (pb_cost_t){&z->hw, NULL, 0};
}

/* FSDP2's copies on the compute stream (pytorch/pytorch#157027): per
 * micro-batch the forward gather's copy-out reads and writes 2 bytes per
 * parameter (4); the backward's copy-out again (4) and the gradient's
 * copy-in, read 2 and written in fp32 (6): 10.  On a step they add
 * micro x memory-bound time of those bytes over the GPU's parameters. */
static void fsdp_copies(void)
{
    double f, b;
    pb_step_fsdp_copy_bytes(4.0, &f, &b);
    CHECK(f == 4.0 && b == 10.0);
    pb_step_fsdp_copy_bytes(2.0, &f, &b);
    CHECK(f == 4.0 && b == 8.0);
    z3_case_t z;
    z3_case("h100", &z);
    pb_step_t off, on;
    CHECK(pb_step_model(&z.m, &z.l, &z.c, &z.cost, &off, &z.err) == PB_OK);
    z.c.zero3_copies = 1;
    CHECK(pb_step_model(&z.m, &z.l, &z.c, &z.cost, &on, &z.err) == PB_OK);
    double p = off.mem.params;
    CHECK_NEAR(on.part[PB_PART_COMPUTE] - off.part[PB_PART_COMPUTE],
               4.0 * (pb_membound_s(&z.hw, p * 4.0) + pb_membound_s(&z.hw, p * 10.0)), 1e-9);
}

/* ZeRO-3 exposure, by hand: 4 micro-batches, a layer's gather 10 ms and
 * scatter 20 ms; forward gathers 4 s against 3 s of forward compute,
 * backward traffic 10 s against 12 s.  Shown: 4 x (0.01 + 0.02) = 0.12
 * s of first gathers and last scatters, plus the forward's excess
 * 4 - 4 x 0.01 - 3 = 0.96 s; the backward hides the rest. */
static void zero3_exposure(void)
{
    pb_z3_t z = {4.0, 10.0, 0.01, 0.02, 4.0, 3.0, 12.0};
    CHECK_NEAR(pb_step_z3_exposed(&z), 0.12 + 0.96, 1e-12);
    z.fwd_win = 100.0; /* all hidden but the ends of each pass */
    CHECK_NEAR(pb_step_z3_exposed(&z), 0.12, 1e-12);
    z.bwd_win = 1.0; /* backward: 10 - 4 x 0.02 - 1 = 8.92 s outlasts it */
    CHECK_NEAR(pb_step_z3_exposed(&z), 0.12 + 8.92, 1e-12);
}

/* ZeRO-3 on a step: FSDP over 64 A100s (8 nodes), 4 micro-batches of
 * 4096 tokens, so compute hides every layer's traffic but each pass's
 * ends.  A layer's parameters (padded to a multiple of 64) are gathered
 * in bf16 and scattered in fp32 over the 64-rank ring, whose traffic
 * leaves each node over its 8 NICs (pb_cost_preset_rail_us): DP shows
 * 4 x (gather + scatter) and the hidden rest's 0.02 / 0.98 share. */
static void zero3_step(void)
{
    z3_case_t z;
    z3_case("a100", &z);
    pb_step_t st;
    CHECK(pb_layout_check(&z.l, &z.m, 64, &z.err) == PB_OK);
    CHECK(pb_step_model(&z.m, &z.l, &z.c, &z.cost, &st, &z.err) == PB_OK);
    uint64_t unit = (pb_model_dense_layer_params(&z.m) + 63) / 64 * 64;
    double ag = pb_cost_preset_rail_us(&z.hw, PB_ALLGATHER, 64, 8, unit * 2, 0.0) * 1e-6;
    double rs = pb_cost_preset_rail_us(&z.hw, PB_REDUCESCATTER, 64, 8, unit * 4, 0.0) * 1e-6;
    CHECK_NEAR(st.comm_total[PB_PART_DP], 4.0 * 8 * (2 * ag + rs), 1e-9);
    double shown = 4.0 * (ag + rs);
    CHECK_NEAR(st.part[PB_PART_DP],
               shown + (st.comm_total[PB_PART_DP] - shown) * 0.02 / 0.98, 1e-9);
}

/* Megatron's scatter/gather pipeline sends (Narayanan et al. 2021, Sec.
 * 4.1): without SP each of the 8 TP ranks sends 1/8 of the b*s*h
 * activation and the receiving stage all-gathers it back over NVLink.
 * h 8192, s 2048, b 1, bf16: 32 MiB, 4 MiB per rank; tp 8 x pp 2 on two
 * A100 nodes, 8 micro-batches, one send forward and one backward each.
 * A100 preset: the send over one 200 Gb/s NIC at 0.92 = 23 GB/s, 20 us:
 * 20 + 4194304 / 23e3 = 202.36 us; the gather over NVLink at 300 x 0.8
 * = 240 GB/s, 10 us: 10 + 33554432 x 7/8 / 240e3 = 132.33 us.  With SP
 * the next stage takes the sequence-split tensor as it is: no gather. */
static void pp_regather(void)
{
    pb_model_t m = gpt(8, 8192, 64, 51200, 2048, 1);
    m.gbs = 8;
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, NULL, 0};
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8, l.size[PB_DIM_PP] = 2;
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    pb_step_t st;
    CHECK(pb_layout_check(&l, &m, 16, &err) == PB_OK);
    CHECK(pb_step_model(&m, &l, &c, &cost, &st, &err) == PB_OK);
    double send = 20.0 + 4194304.0 / 23e3, gather = 10.0 + 33554432.0 * 7.0 / 8.0 / 240e3;
    CHECK_NEAR(st.comm_total[PB_PART_PP], 16.0 * (send + gather) * 1e-6, 1e-9);
    l.sp = 1;
    CHECK(pb_step_model(&m, &l, &c, &cost, &st, &err) == PB_OK);
    CHECK_NEAR(st.comm_total[PB_PART_PP], 16.0 * send * 1e-6, 1e-9);
}

/* DualPipe's bubble, (pp/2 - 1)(F&B + B - 3W) with F&B = F + B (the
 * DualPipe README's table): pp 8, F 1, B 2, W 1 -> 3 x (3 + 2 - 3) = 6
 * chunk-seconds; over 20 micro-batches of work 60 = 20 x (1 + 2) that is
 * 6 s, and 12 s when exposed communication doubles the work to 120;
 * pp 2 pairs the only two stages: none.  What it asks: an even pp, no
 * vp, micro-batches even and at least 2 pp (dualpipe.py's asserts). */
static void dualpipe(void)
{
    CHECK_NEAR(pb_step_dualpipe_bubble(8, 1.0, 2.0, 1.0, 20.0, 60.0), 6.0, 1e-12);
    CHECK_NEAR(pb_step_dualpipe_bubble(8, 1.0, 2.0, 1.0, 20.0, 120.0), 12.0, 1e-12);
    CHECK_NEAR(pb_step_dualpipe_bubble(2, 1.0, 2.0, 1.0, 20.0, 60.0), 0.0, 1e-12);
    pb_layout_t l;
    pb_layout_default(&l);
    pb_err_t err;
    pb_err_clear(&err);
    l.size[PB_DIM_PP] = 8;
    CHECK(pb_step_dualpipe_check(&l, 16, &err) == PB_OK);
    CHECK(pb_step_dualpipe_check(&l, 14, &err) == PB_EINPUT && strstr(err.msg, "at least 2 x pp = 16"));
    CHECK(pb_step_dualpipe_check(&l, 17, &err) == PB_EINPUT);
    l.vp = 2;
    pb_err_clear(&err);
    CHECK(pb_step_dualpipe_check(&l, 16, &err) == PB_EINPUT && strstr(err.msg, "--vp"));
    l.vp = 1, l.size[PB_DIM_PP] = 3;
    pb_err_clear(&err);
    CHECK(pb_step_dualpipe_check(&l, 16, &err) == PB_EINPUT && strstr(err.msg, "even --pp"));
}

int main(void)
{
    dualpipe();
    hidden_cost();
    grad_accum();
    fsdp_copies();
    zero3_exposure();
    zero3_step();
    pp_regather();
    gemm();
    tp_exposure();
    flops();
    bubble();
    activations();
    weights();
    presets();
    placement();
    PB_TEST_END("model_formulas");
}
