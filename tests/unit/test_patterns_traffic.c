/* test_patterns_traffic.c - patterns/pb_traffic: volumes per step computed
 * by hand from the formulas of Megatron-LM (Shoeybi et al. 2019;
 * Korthikanti et al. 2022), PyTorch DDP and Megatron's bucketing. */
#include "patterns/pb_traffic.h"

#include <string.h>

#include "pb_test.h"

#define MiB (UINT64_C(1) << 20)

static pb_model_t preset(const char *name)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    memset(&m, 0, sizeof m);
    if (pb_model_preset(name, &m, &err) != PB_OK)
        fprintf(stderr, "preset %s: %s\n", name, err.msg), pb_test_failures++;
    return m;
}

static pb_layout_t layout(int tp, int cp, int ep, int dp, int pp)
{
    pb_layout_t l;
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = tp;
    l.size[PB_DIM_CP] = cp;
    l.size[PB_DIM_EP] = ep;
    l.size[PB_DIM_DP] = dp;
    l.size[PB_DIM_PP] = pp;
    return l;
}

static pb_op_list_t gen(const pb_model_t *m, const pb_layout_t *l, const pb_traffic_cfg_t *c,
                        pb_strategy_t s)
{
    pb_op_list_t ops = {NULL, 0, 0};
    pb_err_t err;
    pb_err_clear(&err);
    if (pb_layout_check(l, m, 0, &err) != PB_OK ||
        pb_traffic_gen(m, l, c, 1u << s, &ops, &err) != PB_OK) {
        fprintf(stderr, "gen: %s\n", err.msg);
        pb_test_failures++;
    }
    return ops;
}

/* The n-th record of a collective in a phase (NULL if none). */
static const pb_pat_op_t *find(const pb_op_list_t *l, pb_coll_t c, pb_phase_t ph, int nth)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->ops[i].coll == c && l->ops[i].phase == ph && nth-- == 0)
            return &l->ops[i];
    return NULL;
}

/* The example-70b preset's shape: 80 layers, hidden 8192, s 4096, b 1, bf16,
 * tp 8, pp 4, dp 1; gbs 1 so one micro-batch per step. */
static void test_tp_70b(void)
{
    pb_model_t m = preset("example-70b");
    m.gbs = 1;
    pb_layout_t l = layout(8, 1, 1, 1, 4);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_TP);
    /* the layers' two, the embedding's, the output layer's, the loss's */
    CHECK(ops.n == 5);
    const pb_pat_op_t *f = find(&ops, PB_ALLREDUCE, PB_PH_FWD, 0);
    const pb_pat_op_t *b = find(&ops, PB_ALLREDUCE, PB_PH_BWD, 0);
    CHECK(f && b);
    if (f && b) {
        /* one all-reduce: b*s*h*2 B = 1*4096*8192*2 = 64 MiB */
        CHECK(f->bytes == 64 * MiB && b->bytes == 64 * MiB);
        /* 2 per layer each way, 80/4 = 20 layers on a stage: 40 + 40 = 4 per layer */
        CHECK(f->count == 40 && b->count == 40);
        CHECK(f->group == PB_GK_TP && f->group_size == 8 && f->strategy == PB_STRAT_TP);
        CHECK(f->dtype == PB_BF16 && !f->overlap && f->stage == PB_STAGE_EVERY);
    }
    /* outside the layers, once per micro-batch (Megatron-Core: the
     * vocab-parallel embedding's output forward, on the first stage; the
     * output layer's input gradient backward, on the last) */
    const pb_pat_op_t *emb = find(&ops, PB_ALLREDUCE, PB_PH_FWD, 1);
    const pb_pat_op_t *out = find(&ops, PB_ALLREDUCE, PB_PH_BWD, 1);
    CHECK(emb && out);
    if (emb && out) {
        CHECK(emb->bytes == 64 * MiB && emb->count == 1 && emb->stage == PB_STAGE_FIRST);
        CHECK(out->bytes == 64 * MiB && out->count == 1 && out->stage == PB_STAGE_LAST);
    }
    /* the vocab-parallel cross-entropy: 3 all-reduces of one fp32 per
     * token, b*s*4 = 1*4096*4 = 16 KiB, on the last stage */
    const pb_pat_op_t *ce = find(&ops, PB_ALLREDUCE, PB_PH_FWD, 2);
    CHECK(ce != NULL);
    if (ce)
        CHECK(ce->bytes == 16384 && ce->count == 3 && ce->dtype == PB_F32 &&
              ce->stage == PB_STAGE_LAST);
    /* the busiest rank: every stage's 80, and the last stage's 1 + 3
     * (its ring wire 112 MiB + 3 x 2 x 7/8 x 16 KiB = 84 KiB, over the
     * first stage's 112 MiB) */
    pb_traffic_total_t t = pb_traffic_total(&ops, PB_STRAT_TP);
    CHECK(t.ops == 84);
    CHECK(t.msg_bytes == 81 * 64 * MiB + 3 * 16384);
    /* ring all-reduce sends 2(n-1)/n: 2*7/8*64 MiB = 112 MiB per op */
    CHECK(t.wire_bytes == 81 * 112 * MiB + 3 * 28672);
    pb_op_list_free(&ops);

    /* recomputation repeats the 40 layers' forward all-reduces (not the
     * embedding's or the loss's, outside the recomputed layers) */
    c.recompute = 1;
    ops = gen(&m, &l, &c, PB_STRAT_TP);
    CHECK(pb_traffic_total(&ops, PB_STRAT_TP).ops == 124);
    pb_op_list_free(&ops);

    /* one stage holds both ends: everything is every rank's, 80 + 1 + 1 + 3 */
    c.recompute = 0;
    l = layout(8, 1, 1, 1, 1);
    ops = gen(&m, &l, &c, PB_STRAT_TP);
    for (size_t i = 0; i < ops.n; i++)
        CHECK(ops.ops[i].stage == PB_STAGE_EVERY);
    /* 80 layers on the stage: 160 + 160, and the ends' 5 */
    CHECK(pb_traffic_total(&ops, PB_STRAT_TP).ops == 325);
    pb_op_list_free(&ops);
}

/* SP: each all-reduce -> all-gather + reduce-scatter of the same 64 MiB
 * tensor (the wire is unchanged: 2 x 7/8 x 64 MiB = 112 MiB); the
 * backward gathers QKV's and the MLP's inputs again for their weight
 * gradients (Megatron-Core LinearWithGradAccumulationAndAsyncCommunication.
 * backward): 2 more all-gathers per layer, 7/8 x 64 MiB = 56 MiB each. */
static void test_sp_70b(void)
{
    pb_model_t m = preset("example-70b");
    m.gbs = 1;
    pb_layout_t l = layout(8, 1, 1, 1, 4);
    l.sp = 1;
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_SP);
    /* layers 4 + weight-gradient gathers 1 + embedding 2 + output layer 3
     * + loss 1 + the norms' gradients 1 */
    CHECK(ops.n == 12);
    for (int ph = PB_PH_FWD; ph <= PB_PH_BWD; ph++) {
        const pb_pat_op_t *ag = find(&ops, PB_ALLGATHER, (pb_phase_t)ph, 0);
        const pb_pat_op_t *rs = find(&ops, PB_REDUCESCATTER, (pb_phase_t)ph, 0);
        CHECK(ag && rs);
        if (ag && rs) {
            CHECK(ag->bytes == 64 * MiB && rs->bytes == 64 * MiB);
            CHECK(ag->count == 40 && rs->count == 40);
            CHECK(ag->strategy == PB_STRAT_SP);
        }
    }
    const pb_pat_op_t *wg = find(&ops, PB_ALLGATHER, PB_PH_BWD, 1);
    CHECK(wg != NULL);
    if (wg)
        CHECK(wg->count == 40 && wg->bytes == 64 * MiB && wg->stage == PB_STAGE_EVERY);
    /* Megatron-Core's one all-reduce of the stage's 2 x 20 norm weights'
     * fp32 gradients a step (finalize_model_grads.py): 40 x 8192 x 4 B =
     * 1.25 MiB */
    const pb_pat_op_t *ng = find(&ops, PB_ALLREDUCE, PB_PH_OPT, 0);
    CHECK(ng && ng->count == 1 && ng->bytes == 40 * 32768 && ng->dtype == PB_F32);
    /* every stage: 160 + 40 + 1 ops, wire 80 x 112 + 40 x 56 MiB + 2 x 7/8
     * x 1.25 MiB = 11200 MiB + 2293760 B; the last stage's own (output
     * layer: gather, scatter, gather again; the loss's 3) 3 x 56 MiB + 84
     * KiB, over the first's (embedding: scatter, gather) 2 x 56 MiB */
    pb_traffic_total_t t = pb_traffic_total(&ops, PB_STRAT_SP);
    CHECK(t.ops == 207);
    CHECK(t.wire_bytes == 11200 * MiB + 2293760 + 168 * MiB + 3 * 28672);
    pb_op_list_free(&ops);

    /* a stack that keeps the gathered input (torchtitan's DTensor), its
     * norms' gradients left out here (test_patterns_stacks.c has them) */
    c.sp_regather = 0;
    c.sp_norm = PB_SPNORM_NONE;
    ops = gen(&m, &l, &c, PB_STRAT_SP);
    CHECK(ops.n == 9);
    CHECK(pb_traffic_total(&ops, PB_STRAT_SP).ops == 160 + 5);
    pb_op_list_free(&ops);
}

/* PP of the same example: 64 MiB per boundary per micro-batch each way;
 * gbs 16 -> 16 micro-batches; SP cuts it by tp (8 MiB); vp 2 doubles the
 * count and closes the ring. */
static void test_pp_70b(void)
{
    pb_model_t m = preset("example-70b");
    m.gbs = 16;
    pb_layout_t l = layout(8, 1, 1, 1, 4);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_PP);
    const pb_pat_op_t *f = find(&ops, PB_SENDRECV, PB_PH_FWD, 0);
    const pb_pat_op_t *b = find(&ops, PB_SENDRECV, PB_PH_BWD, 0);
    CHECK(ops.n == 2 && f && b);
    if (f && b) {
        CHECK(f->bytes == 64 * MiB && f->count == 16 && f->p2p == PB_P2P_NEXT);
        CHECK(b->bytes == 64 * MiB && b->count == 16 && b->p2p == PB_P2P_PREV);
        CHECK(f->group == PB_GK_PP && f->group_size == 4);
    }
    pb_op_list_free(&ops);
    l.sp = 1;
    l.vp = 2; /* 80 % (4*2) == 0 */
    ops = gen(&m, &l, &c, PB_STRAT_PP);
    f = find(&ops, PB_SENDRECV, PB_PH_FWD, 0);
    CHECK(f != NULL);
    if (f)
        CHECK(f->bytes == 8 * MiB && f->count == 32 && f->p2p == PB_P2P_RING_NEXT);
    pb_op_list_free(&ops);
}

/* DP of Llama 2 7B, whose 6,738,415,616 parameters (the published count
 * of the released checkpoint) the model must reproduce first. */
static void test_dp_buckets(void)
{
    pb_model_t m = preset("llama2-7b");
    CHECK(pb_model_params(&m) == UINT64_C(6738415616));
    m.gbs = 8;
    pb_layout_t l = layout(1, 1, 1, 8, 1);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);

    /* PyTorch DDP, fp32 gradients: 25 MiB = 6,553,600 elements a bucket;
     * 6,738,415,616 = 1028 x 6,553,600 + 1,314,816 */
    c.bucket = PB_BUCKET_DDP;
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 2);
    if (ops.n == 2) {
        CHECK(ops.ops[0].coll == PB_ALLREDUCE && ops.ops[0].bytes == 25 * MiB &&
              ops.ops[0].count == 1028);
        CHECK(ops.ops[1].bytes == UINT64_C(1314816) * 4 && ops.ops[1].count == 1);
        CHECK(ops.ops[0].group == PB_GK_DP && ops.ops[0].group_size == 8 && ops.ops[0].overlap);
    }
    pb_op_list_free(&ops);

    /* Megatron: max(40M, 1M x 8) = 40,000,000 parameters a bucket;
     * 6,738,415,616 = 168 x 40,000,000 + 18,415,616 */
    c.bucket = PB_BUCKET_MEGATRON;
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 2);
    if (ops.n == 2) {
        CHECK(ops.ops[0].bytes == UINT64_C(160000000) && ops.ops[0].count == 168);
        CHECK(ops.ops[1].bytes == UINT64_C(18415616) * 4 && ops.ops[1].count == 1);
    }
    pb_op_list_free(&ops);

    /* at dp 64 the bucket is 1M x 64 = 64,000,000: 105 x 64M + 18,415,616 */
    m.gbs = 64;
    l = layout(1, 1, 1, 64, 1);
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 2 && ops.ops[0].bytes == UINT64_C(256000000) && ops.ops[0].count == 105);
    pb_op_list_free(&ops);

    /* distributed optimizer (ZeRO 1) at dp 8: fp32 gradients
     * reduce-scattered, bf16 parameters all-gathered; 18,415,616 is a
     * multiple of 8, so no padding */
    m.gbs = 8;
    l = layout(1, 1, 1, 8, 1);
    c.zero = 1;
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 4);
    const pb_pat_op_t *rs = find(&ops, PB_REDUCESCATTER, PB_PH_BWD, 0);
    const pb_pat_op_t *ag = find(&ops, PB_ALLGATHER, PB_PH_OPT, 0);
    const pb_pat_op_t *ag2 = find(&ops, PB_ALLGATHER, PB_PH_OPT, 1);
    CHECK(rs && ag && ag2);
    if (rs && ag && ag2) {
        CHECK(rs->bytes == UINT64_C(160000000) && rs->count == 168 && rs->dtype == PB_F32);
        CHECK(ag->bytes == UINT64_C(80000000) && ag->count == 168 && ag->dtype == PB_BF16);
        CHECK(ag2->bytes == UINT64_C(18415616) * 2 && ag2->count == 1);
    }
    pb_op_list_free(&ops);

    /* tp 2, pp 2: a rank holds 6,738,415,616 / 4 = 1,684,603,904 parameters */
    m.gbs = 8;
    l = layout(2, 1, 1, 2, 2);
    c.zero = 0;
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    pb_traffic_total_t t = pb_traffic_total(&ops, PB_STRAT_DP);
    CHECK(t.msg_bytes == UINT64_C(1684603904) * 4);
    pb_op_list_free(&ops);
}

/* ZeRO 3 on the 70B example at tp 8, dp 4: one dense layer has
 * 2*8192^2 + 2*8192*1024 + 3*8192*28672 + 2*8192 = 855,654,400
 * parameters; TP splits all but the two norms: (855,654,400 - 16,384) / 8
 * + 16,384 = 106,971,136 per rank (a multiple of 4); all-gathered in bf16
 * forward and backward and reduce-scattered in fp32 for each of the 80
 * layers and 4 micro-batches (gbs 16 / dp 4).  Megatron's: the layers
 * only. */
static void test_zero3(void)
{
    pb_model_t m = preset("example-70b");
    m.gbs = 16;
    pb_layout_t l = layout(8, 1, 1, 4, 1);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    c.zero = 3;
    CHECK(pb_model_dense_layer_params(&m) == UINT64_C(855654400));
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 3);
    const pb_pat_op_t *f = find(&ops, PB_ALLGATHER, PB_PH_FWD, 0);
    const pb_pat_op_t *rs = find(&ops, PB_REDUCESCATTER, PB_PH_BWD, 0);
    CHECK(f && rs);
    if (f && rs) {
        CHECK(f->bytes == UINT64_C(106971136) * 2 && f->count == 320);
        CHECK(rs->bytes == UINT64_C(106971136) * 4 && rs->count == 320);
    }
    pb_op_list_free(&ops);
}

/* HSDP: the same 70B layers at tp 8, dp 4 cut into shard groups of 2.
 * Each layer's gathers and reduce-scatter run over the shard group (2
 * ranks) with the same per-rank buffers as above (106,971,136 elements
 * pad to 2 as to 4); after each reduce-scatter the shard it leaves, half
 * of the fp32 input, 106,971,136 x 4 / 2 = 213,942,272 B, is all-reduced
 * over the replica group (dp 4 / 2 = 2 ranks), as often: 80 layers x 4
 * micro-batches.
 * With --zero 1 a shard group is Megatron's partial distributed
 * optimizer: the 70B's dense buckets (80 x 106,971,136 + embeddings,
 * whatever the bucket split) reduce-scattered over the instance of 2,
 * each bucket's shard (half its fp32 input) all-reduced over the 2
 * instances, the updated parameters gathered over the instance: per
 * bucket, the all-reduce's bytes are half the reduce-scatter's.  With
 * --zero 0 there is nothing to shard: refused. */
static void test_hsdp(void)
{
    pb_model_t m = preset("example-70b");
    m.gbs = 16;
    pb_layout_t l = layout(8, 1, 1, 4, 1);
    l.shard = 2;
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    c.zero = 3;
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_DP);
    CHECK(ops.n == 4);
    const pb_pat_op_t *f = find(&ops, PB_ALLGATHER, PB_PH_FWD, 0);
    const pb_pat_op_t *rs = find(&ops, PB_REDUCESCATTER, PB_PH_BWD, 0);
    const pb_pat_op_t *ar = find(&ops, PB_ALLREDUCE, PB_PH_BWD, 0);
    CHECK(f && rs && ar);
    if (f && rs && ar) {
        CHECK(f->group == PB_GK_SHARD && f->group_size == 2);
        CHECK(f->bytes == UINT64_C(106971136) * 2 && f->count == 320);
        CHECK(rs->group == PB_GK_SHARD && rs->bytes == UINT64_C(106971136) * 4);
        CHECK(ar->group == PB_GK_REPL && ar->group_size == 2 && ar->dtype == PB_F32);
        CHECK(ar->bytes == UINT64_C(213942272) && ar->count == 320);
    }
    pb_op_list_free(&ops);
    c.zero = 1;
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    int rs_n = 0, ar_n = 0, ag_n = 0;
    for (size_t i = 0; i < ops.n; i++) {
        const pb_pat_op_t *o = &ops.ops[i];
        if (o->coll == PB_REDUCESCATTER) {
            rs_n++;
            CHECK(o->group == PB_GK_SHARD && o->group_size == 2 && i + 1 < ops.n);
            const pb_pat_op_t *a = &ops.ops[i + 1]; /* right after it */
            CHECK(a->coll == PB_ALLREDUCE && a->group == PB_GK_REPL && a->group_size == 2 &&
                  2 * a->bytes == o->bytes && a->count == o->count);
        }
        ar_n += o->coll == PB_ALLREDUCE;
        ag_n += o->coll == PB_ALLGATHER && o->group == PB_GK_SHARD && o->phase == PB_PH_OPT;
    }
    CHECK(rs_n > 0 && ar_n == rs_n && ag_n == rs_n);
    pb_op_list_free(&ops);
    c.zero = 0;
    pb_err_t err;
    pb_err_clear(&err);
    ops = (pb_op_list_t){NULL, 0, 0};
    CHECK(pb_traffic_gen(&m, &l, &c, 1u << PB_STRAT_DP, &ops, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "--shard-group 2 shards the optimizer") && strstr(err.msg, "--zero 0"));
    pb_op_list_free(&ops);
}

/* EP: Mixtral 8x7B at ep 8 (dp 8), s 4096, b 1, bf16, 1 micro-batch:
 * a rank sends 4096 tokens x top-2 x 4096 x 2 B = 64 MiB per all-to-all,
 * dispatch + combine in 32 MoE layers: 64 forward, 64 backward. */
static void test_ep_mixtral(void)
{
    pb_model_t m = preset("mixtral-8x7b");
    m.gbs = 8;
    pb_layout_t l = layout(1, 1, 8, 8, 1);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_EP);
    const pb_pat_op_t *f = find(&ops, PB_ALLTOALL, PB_PH_FWD, 0);
    const pb_pat_op_t *b = find(&ops, PB_ALLTOALL, PB_PH_BWD, 0);
    CHECK(ops.n == 2 && f && b);
    if (f && b) {
        CHECK(f->bytes == 64 * MiB && f->count == 64 && b->count == 64);
        CHECK(f->group == PB_GK_EP && f->group_size == 8);
    }
    /* all-to-all keeps 1/8 at home: 7/8 x 64 MiB = 56 MiB on the wire */
    CHECK(pb_traffic_total(&ops, PB_STRAT_EP).wire_bytes == 128 * 56 * MiB);
    pb_op_list_free(&ops);

    /* a skewed router: all-to-all-v with the factor carried along */
    c.imbalance = 2.0;
    ops = gen(&m, &l, &c, PB_STRAT_EP);
    CHECK(ops.n == 2 && ops.ops[0].coll == PB_ALLTOALLV && ops.ops[0].imbalance == 2.0);
    pb_op_list_free(&ops);

    /* more than all tokens to one destination is refused */
    c.imbalance = 9.0;
    pb_err_t err;
    pb_err_clear(&err);
    ops = (pb_op_list_t){NULL, 0, 0};
    CHECK(pb_traffic_gen(&m, &l, &c, 1u << PB_STRAT_EP, &ops, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "--imbalance 9 is above ep 8") != NULL);
    pb_op_list_free(&ops);

    /* expert gradients: 32 layers x 8 experts x 3 x 4096 x 14336 =
     * 45,097,156,608 parameters, /ep 8 on an expert-data-parallel group
     * of dp/ep = 1 rank: no traffic; at dp 16 the group has 2 ranks */
    CHECK(pb_model_moe_layers(&m) * pb_model_expert_params(&m) == UINT64_C(45097156608));
    m.gbs = 16;
    l = layout(1, 1, 8, 16, 1);
    c.imbalance = 1.0;
    ops = gen(&m, &l, &c, PB_STRAT_DP);
    uint64_t edp = 0;
    for (size_t i = 0; i < ops.n; i++)
        if (ops.ops[i].group == PB_GK_EDP) {
            CHECK(ops.ops[i].group_size == 2);
            edp += ops.ops[i].bytes * ops.ops[i].count;
        }
    CHECK(edp == UINT64_C(45097156608) / 8 * 4);
    pb_op_list_free(&ops);
}

/* CP: Llama 3 8B at tp 2, cp 4, s 8192, b 1, bf16, 1 micro-batch.  K and
 * V on a rank: 2 x 2048 tokens x (8/2 heads) x 128 x 2 B = 4 MiB; cp-1 = 3
 * ring steps per layer x 32 layers = 96 forward, 96 + 96 backward (K,V
 * and dK,dV).  TP activations shrink to 2048 x 4096 x 2 B = 16 MiB. */
static void test_cp_llama3(void)
{
    pb_model_t m = preset("llama3-8b");
    m.gbs = 1;
    pb_layout_t l = layout(2, 4, 1, 1, 1);
    pb_traffic_cfg_t c;
    pb_traffic_cfg_default(&c);
    pb_op_list_t ops = gen(&m, &l, &c, PB_STRAT_CP);
    CHECK(ops.n == 3);
    const pb_pat_op_t *f = find(&ops, PB_SENDRECV, PB_PH_FWD, 0);
    CHECK(f != NULL);
    if (f) {
        CHECK(f->bytes == 4 * MiB && f->count == 96 && f->p2p == PB_P2P_RING_NEXT);
        CHECK(f->group == PB_GK_CP && f->group_size == 4 && f->overlap);
    }
    CHECK(pb_traffic_total(&ops, PB_STRAT_CP).ops == 288);
    pb_op_list_free(&ops);
    ops = gen(&m, &l, &c, PB_STRAT_TP);
    /* the layers' two, the embedding's, the output layer's and the loss's,
     * whose fp32 per token covers the rank's 8192 / 4 = 2048: 8 KiB */
    CHECK(ops.n == 5 && ops.ops[0].bytes == 16 * MiB);
    const pb_pat_op_t *ce = find(&ops, PB_ALLREDUCE, PB_PH_FWD, 2);
    CHECK(ce && ce->bytes == 2048 * 4 && ce->count == 3);
    pb_op_list_free(&ops);
}

/* Wire bytes: the nccl-tests factors, exactly, and 64-bit. */
static void test_wire(void)
{
    CHECK(pb_coll_wire_bytes(PB_ALLREDUCE, 8, 64 * MiB) == 112 * MiB);
    CHECK(pb_coll_wire_bytes(PB_ALLGATHER, 4, 4096) == 3072);
    CHECK(pb_coll_wire_bytes(PB_SENDRECV, 4, 4096) == 4096);
    CHECK(pb_coll_wire_bytes(PB_ALLREDUCE, 1, 4096) == 0);
    /* 1 TiB on 3 ranks: 2/3 TiB, no overflow */
    uint64_t tib = UINT64_C(1) << 40;
    CHECK(pb_coll_wire_bytes(PB_ALLGATHER, 3, 3 * tib) == 2 * tib);
}

int main(void)
{
    test_tp_70b();
    test_sp_70b();
    test_pp_70b();
    test_dp_buckets();
    test_zero3();
    test_hsdp();
    test_ep_mixtral();
    test_cp_llama3();
    test_wire();
    PB_TEST_END("unit_patterns_traffic");
}
