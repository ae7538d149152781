/* The step and memory model against published training runs, with the
 * A100 preset and no calibration.  Every expected number is quoted from
 * its paper; the model must land within 10 % of each. */
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "model/pb_step.h"

/* Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
 * Transformer Models", Table 3: the 22B model, 48 layers, hidden 6144, 64
 * heads, sequence 2048, vocabulary 51200 (Sec. 6), on 8 A100 with tp 8. */
static pb_model_t model_22b(void)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "22b");
    m.layers = 48, m.hidden = 6144, m.heads = 64, m.kv_heads = 64, m.ffn = 4 * 6144;
    m.vocab = 51200, m.seq = 2048, m.mbs = 4, m.gbs = 4, m.dtype = PB_F16, m.moe_every = 1;
    m.topk = 1;
    return m;
}

/* sc21: Megatron-LM as of Narayanan et al. 2021 - "local" DDP reducing
 * the fp16 gradients after the backward (DDP=local in the SC21 artifact's
 * examples/sc21/run_table_1.sh for every model above 18B), TP backward
 * all-reduces synchronous and interleaved send/recv not overlapped (both
 * came to Megatron later) */
static void run_era(const pb_model_t *m, const pb_layout_t *l, pb_recomp_t r, int sc21,
                    pb_step_t *st)
{
    pb_hw_t hw;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hw_preset("a100", &hw, &err) == PB_OK);
    pb_cost_t cost = {&hw, NULL, 0};
    pb_step_cfg_t c;
    pb_step_cfg_default(&c);
    c.recomp = r;
    if (sc21) {
        c.overlap_grad = c.overlap_tp_bwd = c.overlap_p2p = 0;
        c.traffic.grad_dtype = PB_F16;
    }
    CHECK(pb_layout_check(l, m, 0, &err) == PB_OK);
    CHECK(pb_step_model(m, l, &c, &cost, st, &err) == PB_OK);
    if (err.code)
        fprintf(stderr, "%s\n", err.msg);
}

static void run(const pb_model_t *m, const pb_layout_t *l, pb_recomp_t r, pb_step_t *st)
{
    run_era(m, l, r, 0, st);
}

static void korthikanti(void)
{
    pb_model_t m = model_22b();
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8;
    pb_step_t st;

    /* Table 3 (22B): 1.42 s per iteration with full recomputation (the
     * baseline, no SP) */
    run(&m, &l, PB_RECOMP_FULL, &st);
    printf("22B full recompute: %.3f s (published 1.42), compute %.3f TP %.3f\n", st.total,
           st.part[PB_PART_COMPUTE], st.part[PB_PART_TP]);
    CHECK_NEAR(st.total, 1.42, 0.10);
    /* Parameters + optimizer: 45.6 GiB per GPU (Sec. 6.3 / Table 3; 18 B
     * per parameter).  The paper counts the transformer layers; this model
     * adds untied input and output embeddings (+2.8 %). */
    printf("22B weights: %.2f GiB (published 45.6)\n", st.mem.weights / PB_GIB);
    CHECK_NEAR(st.mem.weights / PB_GIB, 45.6, 0.10);
    /* Activations without SP or selective recomputation: 59.25 GiB
     * (Table 3's 22B memory line: s*b*h*L*(10 + 24/t + 5as/ht)). */
    run(&m, &l, PB_RECOMP_NONE, &st);
    printf("22B activations (TP only): %.2f GiB layers, %.2f GiB with embedding/output "
           "(published 59.25)\n",
           st.mem.act_layers / PB_GIB, (st.mem.act_layers + st.mem.act_extra) / PB_GIB);
    CHECK_NEAR(st.mem.act_layers / PB_GIB, 59.25, 0.01);
    CHECK_NEAR((st.mem.act_layers + st.mem.act_extra) / PB_GIB, 59.25, 0.10);
    CHECK(!st.fits); /* 45.6 + 59.25 GiB > 80 GiB: why the baseline recomputes */

    /* With SP + selective: 1.10 s per iteration, activations 9.56 GiB */
    l.sp = 1;
    run(&m, &l, PB_RECOMP_SELECTIVE, &st);
    printf("22B SP + selective: %.3f s (published 1.10), activations %.2f GiB layers, %.2f "
           "total (published 9.56)\n",
           st.total, st.mem.act_layers / PB_GIB, (st.mem.act_layers + st.mem.act_extra) / PB_GIB);
    CHECK_NEAR(st.total, 1.10, 0.10);
    CHECK_NEAR(st.mem.act_layers / PB_GIB, 9.56, 0.01);
    CHECK_NEAR((st.mem.act_layers + st.mem.act_extra) / PB_GIB, 9.56, 0.10);
    CHECK(st.fits);
}

/* Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on
 * GPU Clusters Using Megatron-LM", Table 1, the 145.6B row: 80 layers,
 * hidden 12288, 96 heads, sequence 2048, vocabulary 51,200 (Sec. 5.1), on
 * 1,536 A100 with tp 8, pp 8 (dp 24), global batch 2304: 148 TFLOP/s per
 * GPU, counted with recomputation (their 96-form).  The layout is the
 * paper's artifact's, NVIDIA/Megatron-LM examples/sc21/run_table_1.sh
 * (MODEL_SIZE=145B): micro-batch 2, 5 layers per virtual stage (80 / 8 /
 * 5 = 2 model chunks per stage), DDP=local, no sequence parallelism (it
 * came in 2022; the scatter/gather of Sec. 4.1 is what the pipeline's
 * send/recv model does without SP).  The step is then 96 B s l h^2 (1 +
 * s/6h + V/16lh) / (148e12 x 1536):
 *   96 x 2304 x 2048 x 80 x 12288^2 = 5.472e18, times (1 + 2048/73728 +
 *   51200/(16 x 80 x 12288)) = 1.03103 gives 5.642e18 FLOPs, / 2.2733e17
 *   FLOP/s = 24.81 s.
 * The model must land within the project's 10 % target of it, and the
 * interleaved schedule must beat plain 1F1B on the same layout (it
 * divides the bubble by the chunks, Sec. 2.2). */
static void narayanan(void)
{
    pb_model_t m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "145.6b");
    m.layers = 80, m.hidden = 12288, m.heads = 96, m.kv_heads = 96, m.ffn = 4 * 12288;
    m.vocab = 51200, m.seq = 2048, m.mbs = 2, m.gbs = 2304, m.dtype = PB_F16, m.moe_every = 1;
    m.topk = 1;
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = 8, l.size[PB_DIM_PP] = 8, l.size[PB_DIM_DP] = 24;
    double t[3] = {0, 0, 0};
    for (int vp = 1; vp <= 2; vp++) {
        l.vp = vp;
        pb_step_t st;
        run_era(&m, &l, PB_RECOMP_FULL, 1, &st);
        t[vp] = st.total;
        printf("145.6B on 1536 A100, vp %d: %.2f s (published 24.81), %.1f TFLOP/s per GPU "
               "(published 148); compute %.2f TP %.2f PP %.2f bubble %.2f DP %.2f opt %.2f\n",
               vp, st.total, st.tflops_hw, st.part[PB_PART_COMPUTE], st.part[PB_PART_TP],
               st.part[PB_PART_PP], st.part[PB_PART_BUBBLE], st.part[PB_PART_DP],
               st.part[PB_PART_OPT]);
        CHECK_NEAR(st.mfu, st.tflops_model / 312.0, 1e-12);
        if (vp == 2) {
            CHECK_NEAR(st.total, 24.81, 0.10);
            CHECK_NEAR(st.tflops_hw, 148.0, 0.10);
        }
    }
    CHECK(t[2] < t[1]);
}

int main(void)
{
    korthikanti();
    narayanan();
    PB_TEST_END("model_published");
}
