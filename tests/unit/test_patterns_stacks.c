/* test_patterns_stacks.c - the operations each training stack's own
 * choices add or change (patterns/pb_fw_traffic.h), worked by hand on the
 * 70B example (80 layers, hidden 8192, FFN 28672, vocab 32000, 8 KV
 * heads, bf16): a layer holds 2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x
 * 28672 + 2 x 8192 = 855,654,400 parameters, the embedding and the output
 * layer 32000 x 8192 = 262,144,000 each, the final norm 8192.  The
 * sources: torchtitan's apply_fsdp_to_decoder, FSDP1's root, torch's
 * pipelining stage, Megatron-Core's finalize_model_grads and DTensor's
 * SequenceParallel (pb_fw_traffic.c names each). */
#include "patterns/pb_traffic.h"

#include <string.h>

#include "pb_test.h"

#define LAYER UINT64_C(855654400)
#define VH UINT64_C(262144000)

static pb_op_list_t gen(int tp, int dp, int pp, uint64_t gbs, pb_fw_t fw, int zero,
                        pb_strategy_t s)
{
    pb_model_t m;
    pb_layout_t l;
    pb_traffic_cfg_t c;
    pb_op_list_t ops = {NULL, 0, 0};
    pb_err_t err;
    pb_err_clear(&err);
    memset(&m, 0, sizeof m);
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = tp;
    l.size[PB_DIM_DP] = dp;
    l.size[PB_DIM_PP] = pp;
    l.sp = s == PB_STRAT_SP;
    pb_traffic_cfg_default(&c);
    pb_traffic_cfg_framework(&c, fw);
    c.zero = zero;
    if (pb_model_preset("example-70b", &m, &err) != PB_OK || (m.gbs = gbs, 0) ||
        pb_layout_check(&l, &m, 0, &err) != PB_OK ||
        pb_traffic_gen(&m, &l, &c, 1u << s, &ops, &err) != PB_OK) {
        fprintf(stderr, "gen: %s\n", err.msg);
        pb_test_failures++;
    }
    return ops;
}

/* The record whose description starts with `what` in phase ph. */
static const pb_pat_op_t *find(const pb_op_list_t *l, const char *what, pb_phase_t ph)
{
    for (size_t i = 0; i < l->n; i++)
        if (strncmp(l->ops[i].what, what, strlen(what)) == 0 && l->ops[i].phase == ph)
            return &l->ops[i];
    return NULL;
}

static int is(const pb_pat_op_t *o, pb_coll_t c, uint64_t bytes, uint64_t count,
              pb_pat_stage_t st)
{
    if (o == NULL)
        return 0;
    if (o->coll != c || o->bytes != bytes || o->count != count || o->stage != st)
        fprintf(stderr, "%s: coll %d bytes %llu count %llu stage %d\n", o->what, (int)o->coll,
                (unsigned long long)o->bytes, (unsigned long long)o->count, (int)o->stage);
    return o->coll == c && o->bytes == bytes && o->count == count && o->stage == st;
}

/* torchtitan on dp 4, gbs 8: 2 micro-batches.  A layer gathered in bf16
 * before its forward and again before its backward (80 x 2 each),
 * reduced in fp32; the embedding likewise (resharded after forward);
 * [norm, output], 262,144,000 + 8192 = 262,152,192, kept gathered for the
 * backward: once a micro-batch.  All multiples of 4: no padding. */
static void test_torchtitan_fsdp(void)
{
    pb_op_list_t o = gen(1, 4, 1, 8, PB_FW_TORCHTITAN, 3, PB_STRAT_DP);
    CHECK(o.n == 8);
    CHECK(is(find(&o, "layer parameters (", PB_PH_FWD), PB_ALLGATHER, LAYER * 2, 160,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "layer parameters again", PB_PH_BWD), PB_ALLGATHER, LAYER * 2, 160,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "layer gradients", PB_PH_BWD), PB_REDUCESCATTER, LAYER * 4, 160,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "embedding parameters (", PB_PH_FWD), PB_ALLGATHER, VH * 2, 2,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "embedding parameters again", PB_PH_BWD), PB_ALLGATHER, VH * 2, 2,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "embedding gradients", PB_PH_BWD), PB_REDUCESCATTER, VH * 4, 2,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "norm + output layer parameters", PB_PH_FWD), PB_ALLGATHER,
             (VH + 8192) * 2, 2, PB_STAGE_EVERY));
    CHECK(find(&o, "norm + output layer parameters", PB_PH_BWD) == NULL);
    CHECK(is(find(&o, "norm + output layer gradients", PB_PH_BWD), PB_REDUCESCATTER,
             (VH + 8192) * 4, 2, PB_STAGE_EVERY));
    pb_op_list_free(&o);
}

/* torchtitan under pp 2 (40 layers a stage): parameters gathered once a
 * step and kept, gradients reduced once after the last micro-batch; the
 * embedding on the first stage, [norm, output] on the last. */
static void test_torchtitan_pp(void)
{
    pb_op_list_t o = gen(1, 4, 2, 8, PB_FW_TORCHTITAN, 3, PB_STRAT_DP);
    CHECK(o.n == 6);
    const pb_pat_op_t *ag = find(&o, "layer parameters (", PB_PH_FWD);
    CHECK(is(ag, PB_ALLGATHER, LAYER * 2, 40, PB_STAGE_EVERY) && ag->per_pass == 0);
    CHECK(find(&o, "layer parameters again", PB_PH_BWD) == NULL);
    CHECK(is(find(&o, "layer gradients", PB_PH_BWD), PB_REDUCESCATTER, LAYER * 4, 40,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "embedding parameters (", PB_PH_FWD), PB_ALLGATHER, VH * 2, 1,
             PB_STAGE_FIRST));
    CHECK(is(find(&o, "embedding gradients", PB_PH_BWD), PB_REDUCESCATTER, VH * 4, 1,
             PB_STAGE_FIRST));
    CHECK(is(find(&o, "norm + output layer gradients", PB_PH_BWD), PB_REDUCESCATTER,
             (VH + 8192) * 4, 1, PB_STAGE_LAST));
    pb_op_list_free(&o);
}

/* FSDP1 wrapping the layers: the root's flat parameter, 2 x 262,144,000
 * + 8192 = 524,296,192, gathered once a micro-batch and kept for the
 * backward; Megatron's ZeRO-3 lists the layers only. */
static void test_fsdp1_root(void)
{
    pb_op_list_t o = gen(1, 4, 1, 8, PB_FW_FSDP, 3, PB_STRAT_DP);
    CHECK(o.n == 5);
    CHECK(is(find(&o, "root parameters", PB_PH_FWD), PB_ALLGATHER, (2 * VH + 8192) * 2, 2,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "root gradients", PB_PH_BWD), PB_REDUCESCATTER, (2 * VH + 8192) * 4, 2,
             PB_STAGE_EVERY));
    pb_op_list_free(&o);
    o = gen(1, 4, 1, 8, PB_FW_MEGATRON, 3, PB_STRAT_DP);
    CHECK(o.n == 3);
    pb_op_list_free(&o);
}

/* SP's norm weights: 2 a layer and the final norm, 8192 each.
 * Megatron on tp 8, one stage: one all-reduce a step of the 161 norms'
 * fp32 gradients, 161 x 8192 x 4 = 5,275,648 B.  torchtitan with FSDP2
 * (dp 2, gbs 8: 4 micro-batches): each norm's fp32 gradient, 32 KiB,
 * inside FSDP's reduction every micro-batch, 161 x 4 = 644; without FSDP
 * on pp 4 (20 layers a stage): once a step, 40 on every stage and the
 * final norm's on the last. */
static void test_sp_norms(void)
{
    pb_op_list_t o = gen(8, 1, 1, 1, PB_FW_MEGATRON, 0, PB_STRAT_SP);
    const pb_pat_op_t *c = find(&o, "sequence-parallel norm + router gradients", PB_PH_OPT);
    CHECK(is(c, PB_ALLREDUCE, UINT64_C(5275648), 1, PB_STAGE_EVERY) && c->group == PB_GK_TP);
    pb_op_list_free(&o);
    o = gen(8, 2, 1, 8, PB_FW_TORCHTITAN, 3, PB_STRAT_SP);
    const pb_pat_op_t *e = find(&o, "a sequence-parallel norm's", PB_PH_BWD);
    CHECK(is(e, PB_ALLREDUCE, 32768, 644, PB_STAGE_EVERY) && e->per_pass == 1);
    CHECK(find(&o, "the final norm's", PB_PH_BWD) == NULL);
    pb_op_list_free(&o);
    o = gen(8, 1, 4, 1, PB_FW_TORCHTITAN, 0, PB_STRAT_SP);
    CHECK(is(find(&o, "a sequence-parallel norm's", PB_PH_OPT), PB_ALLREDUCE, 32768, 40,
             PB_STAGE_EVERY));
    CHECK(is(find(&o, "the final norm's", PB_PH_OPT), PB_ALLREDUCE, 32768, 1, PB_STAGE_LAST));
    pb_op_list_free(&o);
    /* plain TP (no SP) sums no norm gradients: the weights saw every token */
    o = gen(8, 1, 1, 1, PB_FW_MEGATRON, 0, PB_STRAT_TP);
    CHECK(find(&o, "sequence-parallel norm", PB_PH_OPT) == NULL);
    pb_op_list_free(&o);
}

/* The MoE model tests/fixtures/pytorch/gloo-moe recorded: hidden 64, 4
 * heads (no GQA), SwiGLU, vocab 128, 4 layers, the first dense (FFN 256),
 * 3 MoE: 4 experts of 128, top 2, a shared expert of 128; [mbs, seq] =
 * [2, 16], gbs 16 (2 micro-batches on dp 4), bf16. */
static pb_op_list_t gen_moe(int tp, int dp, int ep, pb_fw_t fw, int zero, int sp)
{
    pb_model_t m = {"moe-tiny", 4,   64, 4,   4,     256, 128, 16, 2, 16, PB_BF16, 1, 4,
                    2,          1,   128, 0, 0, 0,   0,   128, 1};
    pb_layout_t l;
    pb_traffic_cfg_t c;
    pb_op_list_t ops = {NULL, 0, 0};
    pb_err_t err;
    pb_err_clear(&err);
    pb_layout_default(&l);
    l.size[PB_DIM_TP] = tp;
    l.size[PB_DIM_DP] = dp;
    l.size[PB_DIM_EP] = ep;
    l.sp = sp;
    pb_traffic_cfg_default(&c);
    pb_traffic_cfg_framework(&c, fw);
    c.zero = zero;
    if (pb_model_check(&m, &err) != PB_OK || pb_layout_check(&l, &m, 0, &err) != PB_OK ||
        pb_traffic_gen(&m, &l, &c, ~0u, &ops, &err) != PB_OK) {
        fprintf(stderr, "gen_moe: %s\n", err.msg);
        pb_test_failures++;
    }
    return ops;
}

/* torchtitan, dp 4 (FSDP2), ep 2: the expert-data-parallel group is 2.
 * A dense layer: 4 x 64^2 + 3 x 64 x 256 + 2 x 64 = 65,664, gathered in
 * bf16 (131,328 B) forward and backward of 2 micro-batches, reduced in
 * fp32 (262,656 B) twice.  An MoE layer's unit beside its experts:
 * attention 16,384 + norms 128 + router 64 x 4 + shared 3 x 64 x 128 =
 * 41,344 (82,688 B; 165,376 B), 3 layers x 2 = 6 each way.  Its experts:
 * 4 x 3 x 64 x 128 / ep 2 = 49,152 on the EDP group (98,304 B; 196,608
 * B), 6 each way.  EP per MoE layer per micro-batch: the 4 counts, int64,
 * 32 B, once (6); tokens 32 x top 2 x 64 x 2 B = 8 KiB, dispatch +
 * combine forward (12) and backward (12).  The expert bias: 3 layers x 4
 * fp32 = 48 B over dp, once a step.  The same values the recording has
 * (tests/cli/profile_pytorch_dtensor.sh). */
static void test_torchtitan_moe(void)
{
    pb_op_list_t o = gen_moe(1, 4, 2, PB_FW_TORCHTITAN, 3, 0);
    CHECK(is(find(&o, "layer parameters (", PB_PH_FWD), PB_ALLGATHER, 131328, 2, PB_STAGE_EVERY));
    CHECK(is(find(&o, "layer gradients", PB_PH_BWD), PB_REDUCESCATTER, 262656, 2, PB_STAGE_EVERY));
    const pb_pat_op_t *r = find(&o, "MoE layer parameters but the experts (", PB_PH_FWD);
    CHECK(is(r, PB_ALLGATHER, 82688, 6, PB_STAGE_EVERY) && r->group == PB_GK_DP);
    CHECK(is(find(&o, "MoE layer gradients", PB_PH_BWD), PB_REDUCESCATTER, 165376, 6,
             PB_STAGE_EVERY));
    const pb_pat_op_t *x = find(&o, "expert parameters again", PB_PH_BWD);
    CHECK(is(x, PB_ALLGATHER, 98304, 6, PB_STAGE_EVERY) && x->group == PB_GK_EDP &&
          x->group_size == 2 && x->per_pass == 1);
    CHECK(is(find(&o, "expert gradients", PB_PH_BWD), PB_REDUCESCATTER, 196608, 6,
             PB_STAGE_EVERY));
    const pb_pat_op_t *n = find(&o, "tokens per expert, before", PB_PH_FWD);
    CHECK(is(n, PB_ALLTOALL, 32, 6, PB_STAGE_EVERY) && n->dtype == PB_I64);
    CHECK(is(find(&o, "token dispatch", PB_PH_FWD), PB_ALLTOALL, 8192, 12, PB_STAGE_EVERY));
    CHECK(is(find(&o, "gradient dispatch", PB_PH_BWD), PB_ALLTOALL, 8192, 12, PB_STAGE_EVERY));
    const pb_pat_op_t *b = find(&o, "MoE tokens per expert", PB_PH_OPT);
    CHECK(is(b, PB_ALLREDUCE, 48, 1, PB_STAGE_EVERY) && b->group == PB_GK_DP &&
          b->group_size == 4);
    pb_op_list_free(&o);
    /* Megatron's dispatcher sends no counts this way, nor updates a bias
     * by default; its ZeRO-3 has no per-layer expert unit to lose */
    o = gen_moe(1, 4, 2, PB_FW_MEGATRON, 1, 0);
    CHECK(find(&o, "tokens per expert", PB_PH_FWD) == NULL);
    CHECK(find(&o, "MoE tokens per expert", PB_PH_OPT) == NULL);
    CHECK(find(&o, "expert gradient bucket", PB_PH_BWD) != NULL);
    pb_op_list_free(&o);
    /* EP beside TP 2 (dp 2, ep 2): torchtitan sums the counts over TP
     * too, 48 B */
    o = gen_moe(2, 2, 2, PB_FW_TORCHTITAN, 3, 1);
    const pb_pat_op_t *t = find(&o, "MoE tokens per expert", PB_PH_OPT);
    CHECK(is(t, PB_ALLREDUCE, 48, 1, PB_STAGE_EVERY) && t->group == PB_GK_TP);
    pb_op_list_free(&o);
}

/* Megatron-Core's coalesced SP all-reduce takes the routers' weights as
 * well (moe/router.py marks them sequence_parallel): tp 2 with SP, one
 * stage: (2 x 4 + 1) x 64 norms + 3 x 4 x 64 router = 1344 fp32 = 5376 B. */
static void test_megatron_router(void)
{
    pb_op_list_t o = gen_moe(2, 2, 1, PB_FW_MEGATRON, 0, 1);
    CHECK(is(find(&o, "sequence-parallel norm + router", PB_PH_OPT), PB_ALLREDUCE, 5376, 1,
             PB_STAGE_EVERY));
    pb_op_list_free(&o);
}

/* DeepSpeed ZeRO-1/2 on tp 8, dp 4, gbs 8 (2 micro-batches): the model's
 * 80 x 855,654,400 + 2 x 262,144,000 + 8192 = 68,976,648,192 parameters,
 * / 8 = 8,622,081,024 a rank, in reduce_bucket_size buckets of 5e8: 17 of
 * 5e8 and 122,081,024 (a multiple of 4: no padding).  Each bucket
 * all-reduced in fp32 (allreduce_and_scatter), not reduce-scattered:
 * 2e9 B and 488,324,096 B, once a step under ZeRO-1, every micro-batch
 * under ZeRO-2; the bf16 parameters gathered after the step, 1e9 B x 17
 * and 244,162,048 B; the step's global gradient norm, one fp32, 4 B. */
static void test_deepspeed_buckets(void)
{
    for (int zero = 1; zero <= 2; zero++) {
        pb_op_list_t o = gen(8, 4, 1, 8, PB_FW_DEEPSPEED, zero, PB_STRAT_DP);
        uint64_t k = zero == 2 ? 2 : 1;
        CHECK(o.n == 5);
        CHECK(o.n == 5 && is(&o.ops[0], PB_ALLREDUCE, UINT64_C(2000000000), 17 * k,
                             PB_STAGE_EVERY) && o.ops[0].per_pass == (zero == 2));
        CHECK(o.n == 5 && is(&o.ops[1], PB_ALLGATHER, UINT64_C(1000000000), 17, PB_STAGE_EVERY) &&
              o.ops[1].phase == PB_PH_OPT);
        CHECK(o.n == 5 && is(&o.ops[2], PB_ALLREDUCE, UINT64_C(488324096), k, PB_STAGE_EVERY));
        CHECK(o.n == 5 && is(&o.ops[3], PB_ALLGATHER, UINT64_C(244162048), 1, PB_STAGE_EVERY));
        CHECK(o.n == 5 && is(&o.ops[4], PB_ALLREDUCE, 4, 1, PB_STAGE_EVERY) &&
              o.ops[4].phase == PB_PH_OPT);
        pb_op_list_free(&o);
    }
    /* Megatron's distributed optimizer reduce-scatters its buckets (its
     * norm is not listed) */
    pb_op_list_t o = gen(8, 4, 1, 8, PB_FW_MEGATRON, 1, PB_STRAT_DP);
    CHECK(o.n == 4 && o.ops[0].coll == PB_REDUCESCATTER);
    pb_op_list_free(&o);
}

int main(void)
{
    test_deepspeed_buckets();
    test_torchtitan_moe();
    test_megatron_router();
    test_torchtitan_fsdp();
    test_torchtitan_pp();
    test_fsdp1_root();
    test_sp_norms();
    PB_TEST_END("unit_patterns_stacks");
}
