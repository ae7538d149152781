/* Memory per GPU, stage by stage and term by term (model/pb_memory.h,
 * model/pb_mem_cap.h), against arithmetic done by hand from the sources
 * each term cites.
 *
 * Model A, a GPT-style decoder: 8 layers, hidden 1024, 16 heads (MHA),
 * ffn 4096 (plain MLP), vocab 32000, seq 2048, mbs 1, bf16.
 *   a layer: attention 4 h^2 = 4,194,304, MLP 2 h ffn = 8,388,608, norms
 *     2h = 2,048: 12,584,960 parameters (pb_model.h);
 *   an embedding (input or output): V h = 32,768,000;
 *   s b h = 2048 x 1 x 1024 = 2,097,152;
 *   a layer's activations, tp 1, flash attention (Korthikanti et al.
 *     2022 Sec. 4 without the 5as/h scores): 34 s b h = 71,303,168 B.
 * Megatron's bytes per parameter: 2 + 4 + 12 = 18 (dist_optimizer.md).
 * Megatron's loss: 4 s b h (the final norm's input and output) + s b V x
 *   6 B (bf16 logits and their fp32 copy, cross_entropy.py) =
 *   8,388,608 + 393,216,000 = 401,604,608.
 * The first stage's embedding: in flight x (8 s b input ids + s b h
 *   dropout mask) = in flight x 2,113,536 (theoretical_memory_usage.py). */
#include <string.h>

#include "pb_test.h"
#include "model/pb_mem_cap.h"
#include "model/pb_memory.h"
#include "patterns/pb_stages.h"

#define LAYER_P 12584960.0
#define EMB_P 32768000.0
#define ACT 71303168.0
#define SBH 2097152.0
#define EMBED_MB 2113536.0
#define LOSS_MEG 401604608.0

static pb_model_t model_a(uint64_t gbs)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "a");
    m.layers = 8, m.hidden = 1024, m.heads = 16, m.kv_heads = 16, m.ffn = 4096;
    m.vocab = 32000, m.seq = 2048, m.mbs = 1, m.gbs = gbs, m.dtype = PB_BF16;
    m.moe_every = 1, m.topk = 1;
    return m;
}

static pb_mem_cfg_t cfg(pb_fw_t fw, int zero)
{
    pb_mem_cfg_t c;
    memset(&c, 0, sizeof c);
    c.recomp = PB_RECOMP_NONE, c.flash = 1, c.zero = zero, c.framework = fw;
    return c;
}

/* 1F1B, pp 4, 8 micro-batches: stage k holds pp - k of them (Megatron's
 * warm-up pp - k - 1, plus one), each its 2 layers. */
static void one_f_one_b(void)
{
    pb_model_t m = model_a(8);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 4;
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.inflight, 4.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_ACT], 4 * 2 * ACT, 1e-12);
    CHECK_NEAR(s.params, 2 * LAYER_P + EMB_P, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_PARAMS] + s.term[PB_MEM_GRADS] + s.term[PB_MEM_OPTIM],
               18 * (2 * LAYER_P + EMB_P), 1e-12);
    CHECK_NEAR(s.term[PB_MEM_EMBED], 4 * EMBED_MB, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_LOSS], 0.0, 1e-12);
    CHECK_NEAR(s.total, 1621762048.0, 1e-12); /* 1,042,882,560 + 570,425,344 + 8,454,144 */
    pb_memory_stage(&m, &l, &c, 1, &s);
    CHECK_NEAR(s.inflight, 3.0, 1e-12);
    CHECK_NEAR(s.total, 18 * 2 * LAYER_P + 3 * 2 * ACT, 1e-12); /* 880,877,568 */
    pb_memory_stage(&m, &l, &c, 3, &s);
    CHECK_NEAR(s.inflight, 1.0, 1e-12);
    /* the output layer and final norm, the loss of one micro-batch */
    CHECK_NEAR(s.params, 2 * LAYER_P + EMB_P + 1024, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_LOSS], LOSS_MEG, 1e-12);
    CHECK_NEAR(s.total, 1587111936.0, 1e-12); /* 1,042,900,992 + 142,606,336 + 401,604,608 */
    pb_mem_t mem;
    pb_memory(&m, &l, &c, &mem);
    CHECK(mem.busiest.stage == 0 && mem.stages == 4);
    CHECK_NEAR(mem.total, 1621762048.0, 1e-12);
    /* fewer micro-batches than stages: at most m in flight */
    m = model_a(2);
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.inflight, 2.0, 1e-12);
}

/* Interleaved, pp 4, vp 2, 8 micro-batches: stage k holds Megatron's
 * warm-up (pp - k - 1) x 2 + (vp - 1) x pp chunk micro-batches plus one,
 * each 1 layer (a chunk is half a stage): stage 0 11 chunks = 5.5 stages'
 * worth, Korthikanti et al.'s pp (1 + (pp - 1)/(pp vp)) = 4 x 11/8; stage
 * 3: 5 chunks, 2.5. */
static void interleaved(void)
{
    pb_model_t m = model_a(8);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 4, l.vp = 2;
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.inflight, 5.5, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_ACT], 5.5 * 2 * ACT, 1e-12);
    pb_memory_stage(&m, &l, &c, 3, &s);
    CHECK_NEAR(s.inflight, 2.5, 1e-12);
    CHECK_NEAR(pb_mem_inflight(4, 2, 0, 8), 4.0 * 11.0 / 8.0, 1e-12);
    CHECK_NEAR(pb_mem_inflight(4, 2, 0, 1), 1.0, 1e-12); /* 2 chunks there are, / vp */
}

/* --pp-first 1 --pp-last 1 over 4 stages: 1, 3, 3, 1 layers.  Stage 1
 * (3 layers x 3 in flight) outweighs stage 0 (1 layer x 4 in flight and
 * the embedding):
 *   stage 0: 18 x (12,584,960 + 32,768,000) + 4 x 71,303,168 + 8,454,144
 *            = 1,110,020,096
 *   stage 1: 18 x 37,754,880 + 9 x 71,303,168 = 1,321,316,352
 *   stage 2: 679,587,840 + 6 x 71,303,168 = 1,107,406,848
 *   stage 3: 18 x 45,353,984 + 71,303,168 + 401,604,608 = 1,289,279,488 */
static void uneven_ends(void)
{
    pb_model_t m = model_a(8);
    m.pp_first = 1, m.pp_last = 1;
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 4;
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    static const double want[4] = {1110020096.0, 1321316352.0, 1107406848.0, 1289279488.0};
    for (int k = 0; k < 4; k++) {
        pb_mem_stage_t s;
        pb_memory_stage(&m, &l, &c, k, &s);
        CHECK_NEAR(s.total, want[k], 1e-12);
    }
    pb_mem_t mem;
    pb_memory(&m, &l, &c, &mem);
    CHECK(mem.busiest.stage == 1);
    CHECK(mem.busiest.layers == 3);
}

/* torchtitan: FSDP2 over dp 4 with a pipeline of 2 stages, 2 micro-batches
 * (gbs 8 / (mbs 1 x dp 4)).  The fp32 shard is the master: 4 + 4 + 8 B
 * over 4 = 4 B a parameter; with a pipeline the stage stays gathered
 * (reshard_after_forward False: 2 B) and its gradients accumulate
 * unsharded in fp32 (torch.distributed.pipelining sets
 * set_requires_gradient_sync(False); FSDP2 keeps unsharded_accumulated_grad
 * in reduce_dtype: 4 B): 6 B a parameter.  The loss: torch.compile's, the
 * bf16 logits and their bf16 gradient, 4 B.
 *   stage 0 (4 layers + embedding, 83,107,840): 4 x P + 6 x P
 *     + 2 x 4 x 71,303,168 + 2 x 2,113,536 = 1,405,730,816
 *   stage 1 (83,108,864): 10 x P + 4 x 71,303,168 + 8,388,608
 *     + 2048 x 32000 x 4 = 1,386,833,920 */
static void fsdp_pipeline(void)
{
    pb_model_t m = model_a(8);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 2, l.size[PB_DIM_DP] = 4;
    pb_mem_cfg_t c = cfg(PB_FW_TORCHTITAN, 3);
    c.fsdp2 = 1;
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_PARAMS] + s.term[PB_MEM_GRADS] + s.term[PB_MEM_OPTIM],
               4 * 83107840.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_GATHERED], 6 * 83107840.0, 1e-12);
    CHECK_NEAR(s.total, 1405730816.0, 1e-12);
    pb_memory_stage(&m, &l, &c, 1, &s);
    CHECK_NEAR(s.term[PB_MEM_LOSS], 8388608.0 + 2048.0 * 32000 * 4, 1e-12);
    CHECK_NEAR(s.total, 1386833920.0, 1e-12);
    /* without a pipeline the units reshard: the unit being differentiated
     * is gathered in bf16 (2 B) with its unsharded bf16 gradient (2 B) and
     * the fp32 reduce-scatter input (4 B), and the next layer prefetched
     * (FSDP2: one unit ahead in backward).  The largest unit here is the
     * output layer, differentiated right after the loss: at the loss's
     * peak (4 B a logit) it is gathered, 2 x 32,768,000 + 2 x 12,584,960
     * = 90,705,920; once differentiated its gradients add 6 x 32,768,000
     * while the loss has left only the logits' bf16 gradient (2 B of its
     * 4 B a logit: 2048 x 32000 x 2 = 131,072,000 fewer).  The larger:
     * 287,313,920 - 131,072,000 = 156,241,920. */
    l.size[PB_DIM_PP] = 1, l.size[PB_DIM_DP] = 8;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_GATHERED], 156241920.0, 1e-12);
}

/* HSDP: FSDP2 shards its 16 B a parameter (fp32 shard, gradient, Adam's
 * two moments) over the shard group, not the data-parallel group: stage
 * 0 of pp 2 (83,107,840 parameters, above) at dp 8 holds 16/8 = 2 B a
 * parameter, and with shard groups of 4, 16/4 = 4 B, as at dp 4. */
static void hsdp_sharding(void)
{
    pb_model_t m = model_a(16);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 2, l.size[PB_DIM_DP] = 8;
    pb_mem_cfg_t c = cfg(PB_FW_TORCHTITAN, 3);
    c.fsdp2 = 1;
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_PARAMS] + s.term[PB_MEM_GRADS] + s.term[PB_MEM_OPTIM],
               2 * 83107840.0, 1e-12);
    l.shard = 4;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_PARAMS] + s.term[PB_MEM_GRADS] + s.term[PB_MEM_OPTIM],
               4 * 83107840.0, 1e-12);
}

/* DualPipe: rank 0 of pp 4 holds stage 0 (2 layers and the input
 * embedding) and stage 3 (2 layers, the output layer and the final
 * norm): 4 x 12,584,960 + 2 x 32,768,000 + 1,024 = 115,876,864
 * parameters, at Megatron's 2 B each without a distributed optimizer;
 * and pp + 1 = 5 micro-batches' activations of its 2 layers in flight
 * (the DualPipe README's table), where 1F1B's stage 0 holds pp = 4. */
static void dualpipe_memory(void)
{
    pb_model_t m = model_a(16);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_PP] = 4;
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    c.dualpipe = 1;
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.params, 115876864.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_PARAMS], 2 * 115876864.0, 1e-12);
    CHECK_NEAR(s.inflight, 5.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_ACT], 5.0 * 2 * ACT, 1e-12);
}

/* MoE: experts' states sharded over the expert-data-parallel group,
 * dp x cp x tp / (ep x etp) = 8 / 4 = 2, the rest over dp x cp = 8
 * (Megatron-Core parallel_state).  2 MoE layers of 8 experts (2 x 1024 x
 * 1024 each: 16,777,216 a layer, 4,194,304 a GPU over ep 4); dense: 2 x
 * (4,194,304 attention + 2,048 norms + 8,192 router) + 2 x 32,768,000 +
 * 1,024 = 73,946,112.  Distributed optimizer: 12/8 B dense, 12/2 B
 * experts: 110,919,168 + 50,331,648 = 161,250,816 (dividing the experts'
 * by dp x cp gave 123,502,080). */
static void moe_sharding(void)
{
    pb_model_t m = model_a(8);
    m.layers = 2, m.experts = 8, m.topk = 2, m.moe_ffn = 1024;
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_DP] = 8, l.size[PB_DIM_EP] = 4;
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 1);
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.params, 73946112.0 + 8388608.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_OPTIM], 161250816.0, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_PARAMS], 2 * (73946112.0 + 8388608.0), 1e-12);
}

/* Full recomputation keeps each layer's input, 2 s b h (8 x 4,194,304),
 * and while a layer is recomputed for its backward its whole activations
 * are live beside the checkpoints: 71,303,168 - 4,194,304 more. */
static void full_recompute(void)
{
    pb_model_t m = model_a(1);
    pb_layout_t l;
    pb_layout_default(&l);
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    c.recomp = PB_RECOMP_FULL;
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_ACT], 8 * 2 * SBH, 1e-12);
    CHECK_NEAR(s.term[PB_MEM_RECOMP], ACT - 2 * SBH, 1e-12);
}

/* The loss by stack, pp 1, tp 1: 4 s b h + s b V x bytes a logit:
 * Megatron 6, torchtitan 4, eager FSDP (Hugging Face's fp32 logits) 16, a
 * fused linear cross-entropy 0; over tp 2 the logits are vocab-parallel. */
static void loss_by_stack(void)
{
    pb_model_t m = model_a(1);
    pb_layout_t l;
    pb_layout_default(&l);
    static const struct {
        pb_fw_t fw;
        double bytes;
    } want[] = {{PB_FW_MEGATRON, 6}, {PB_FW_TORCHTITAN, 4}, {PB_FW_FSDP, 16}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        pb_mem_cfg_t c = cfg(want[i].fw, 0);
        pb_mem_stage_t s;
        pb_memory_stage(&m, &l, &c, 0, &s);
        CHECK_NEAR(s.term[PB_MEM_LOSS], 4 * SBH + 2048.0 * 32000 * want[i].bytes, 1e-12);
    }
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    c.loss_set = 1, c.loss_bytes = 0.0;
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_LOSS], 4 * SBH, 1e-12);
    l.size[PB_DIM_TP] = 2, l.sp = 1;
    c = cfg(PB_FW_MEGATRON, 0);
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_LOSS], 4 * SBH / 2 + 2048.0 * 16000 * 6, 1e-12);
}

/* The gradient type: --grad-dtype bf16 halves Megatron's main gradients
 * (4 B to 2, arguments.py --grad-reduce-in-bf16); "pure bf16" keeps no
 * master and bf16 moments: 2 + 2 + 4 = 8 B a parameter. */
static void gradient_type(void)
{
    pb_model_t m = model_a(1);
    pb_layout_t l;
    pb_layout_default(&l);
    pb_mem_cfg_t c = cfg(PB_FW_MEGATRON, 0);
    pb_mem_stage_t s;
    pb_memory_stage(&m, &l, &c, 0, &s);
    double p = s.params;
    CHECK_NEAR(s.term[PB_MEM_GRADS], 4 * p, 1e-12);
    c.grad_bytes = 2;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_GRADS], 2 * p, 1e-12);
    c.optim_bytes = 2;
    pb_memory_stage(&m, &l, &c, 0, &s);
    CHECK_NEAR(s.term[PB_MEM_PARAMS] + s.term[PB_MEM_GRADS] + s.term[PB_MEM_OPTIM], 8 * p,
               1e-12);
}

/* What the allocator can have on an H100 (CUDA's 81,082 MiB = 79.18 GiB,
 * torch.cuda.get_device_properties): tp 8 within a node, dp 2 across two
 * nodes: the TP communicator (294 MiB + NVLS 256 within the node), the DP
 * one (294, across nodes: no NVLS), the default process group (294):
 * 1,138 MiB; the CUDA context 0.267 GiB. */
static void capacity(void)
{
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8, l.size[PB_DIM_DP] = 2;
    int net[PB_GK_COUNT] = {0};
    net[PB_GK_DP] = 1;
    pb_mem_cap_t c;
    pb_mem_cap(&hw, &l, 0, PB_FW_MEGATRON, net, &c);
    CHECK(c.comms == 3);
    CHECK_NEAR(c.nccl, 1138.0 * 1048576.0, 1e-12);
    CHECK_NEAR(c.usable, 79.18 * PB_GIB - 0.267 * PB_GIB - 1138.0 * 1048576.0, 1e-12);
    CHECK_NEAR(c.frag, 0.06, 1e-12); /* Megatron's measured reserve */
    CHECK(pb_hw_set(&hw, "alloc_frag", "0.25", &err) == PB_OK);
    pb_mem_cap(&hw, &l, 0, PB_FW_MEGATRON, net, &c);
    CHECK_NEAR(c.frag, 0.25, 1e-12);
    CHECK_NEAR(pb_mem_reserved(&c, 100.0), 125.0, 1e-12);
    CHECK_NEAR(pb_mem_needed(100.0), 101.0, 1e-12);
    /* usable = 79.18 - 0.267 - 1138 MiB = 77.8017 GiB.  A 70 GiB peak would
     * keep 87.5 GiB with room to spare: the allocator stops at the 77.80
     * the device leaves it.  A 78 GiB peak needs 78 x 1.01 = 78.78 GiB,
     * more than it has: that figure, the one that does not fit. */
    double usable = (79.18 - 0.267) * PB_GIB - 1138.0 * 1048576.0;
    CHECK_NEAR(pb_mem_reserved(&c, 70.0 * PB_GIB), usable, 1e-3);
    CHECK_NEAR(pb_mem_reserved(&c, 78.0 * PB_GIB), 78.78 * PB_GIB, 1e-3);
    CHECK_NEAR(pb_mem_reserved(&c, 60.0 * PB_GIB), 75.0 * PB_GIB, 1e-3);
}

/* The verdict on a band of -10 % to +20 % errors (predicted / measured -
 * 1) around 100: the real need is likely 100/1.2 = 83.3 to 100/0.9 =
 * 111.1.  Under 120: fits; 90: tight; 80: does not fit. */
static void verdict(void)
{
    double lo, hi;
    CHECK(pb_mem_fit(100.0, 120.0, -0.1, 0.2, &lo, &hi) == PB_FIT_YES);
    CHECK_NEAR(lo, 100.0 / 1.2, 1e-12);
    CHECK_NEAR(hi, 100.0 / 0.9, 1e-12);
    CHECK(pb_mem_fit(100.0, 90.0, -0.1, 0.2, &lo, &hi) == PB_FIT_TIGHT);
    CHECK(pb_mem_fit(100.0, 80.0, -0.1, 0.2, &lo, &hi) == PB_FIT_NO);
    CHECK(strcmp(pb_mem_fit_name(PB_FIT_TIGHT), "tight") == 0);
}

int main(void)
{
    one_f_one_b();
    interleaved();
    uneven_ends();
    fsdp_pipeline();
    hsdp_sharding();
    dualpipe_memory();
    moe_sharding();
    full_recompute();
    loss_by_stack();
    gradient_type();
    capacity();
    verdict();
    PB_TEST_END("model_memory");
}
