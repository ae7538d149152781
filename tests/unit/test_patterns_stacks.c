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
    const pb_pat_op_t *c = find(&o, "sequence-parallel norm gradients", PB_PH_OPT);
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
    CHECK(find(&o, "sequence-parallel norm gradients", PB_PH_OPT) == NULL);
    pb_op_list_free(&o);
}

int main(void)
{
    test_torchtitan_fsdp();
    test_torchtitan_pp();
    test_fsdp1_root();
    test_sp_norms();
    PB_TEST_END("unit_patterns_stacks");
}
