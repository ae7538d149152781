/* test_patterns_layout.c - patterns/pb_layout against Megatron-LM's
 * documented examples (megatron/core/parallel_state.py: the docstring of
 * initialize_model_parallel and RankGenerator's
 * generate_masked_orthogonal_rank_groups), and every constraint. */
#include "patterns/pb_layout.h"

#include <string.h>

#include "pb_test.h"

static pb_layout_t mk(int tp, int cp, int ep, int dp, int pp)
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

/* Every group of kind k must equal want[g] (ngroups lists of n). */
static void groups_are(const pb_layout_t *l, pb_gkind_t k, int ngroups, int n, const int *want,
                       int line)
{
    int world = (int)pb_layout_world(l);
    if (pb_layout_group_size(l, k) != n) {
        fprintf(stderr, "line %d: group size %d, want %d\n", line, pb_layout_group_size(l, k), n);
        pb_test_failures++;
        return;
    }
    int members[64];
    for (int r = 0; r < world; r++) {
        int gid, idx;
        pb_layout_group(l, k, r, &gid, &idx, members);
        int ok = gid >= 0 && gid < ngroups && members[idx] == r;
        for (int j = 0; ok && j < n; j++)
            ok = members[j] == want[gid * n + j];
        if (!ok) {
            fprintf(stderr, "line %d: %s group of rank %d (id %d) differs\n", line,
                    pb_gkind_name(k), r, gid);
            pb_test_failures++;
            return;
        }
    }
}
#define GROUPS(l, k, ng, n, ...) groups_are(l, k, ng, n, (const int[]){__VA_ARGS__}, __LINE__)

static void test_megatron_16(void)
{
    /* initialize_model_parallel's docstring: 16 GPUs, tp 2, pp 4 (dp 2):
     * 8 TP groups [g0,g1] ..., 8 DP groups [g0,g2],[g1,g3],[g4,g6] ...,
     * 4 PP groups [g0,g4,g8,g12],[g1,g5,g9,g13],[g2,g6,g10,g14],[g3,g7,g11,g15] */
    pb_layout_t l = mk(2, 1, 1, 2, 4);
    GROUPS(&l, PB_GK_TP, 8, 2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    GROUPS(&l, PB_GK_DP, 8, 2, 0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15);
    GROUPS(&l, PB_GK_PP, 4, 4, 0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
}

static void test_megatron_24(void)
{
    /* RankGenerator's example: order tp-dp-pp, sizes 2-3-4 (world 24):
     * dp groups [0,2,4],[1,3,5],[6,8,10],[7,9,11],[12,14,16],[13,15,17],
     * [18,20,22],[19,21,23]. */
    pb_layout_t l = mk(2, 1, 1, 3, 4);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_layout_parse_order(&l, "tp-cp-ep-dp-pp", &err) == PB_OK);
    GROUPS(&l, PB_GK_DP, 8, 3, 0, 2, 4, 1, 3, 5, 6, 8, 10, 7, 9, 11, 12, 14, 16, 13, 15, 17, 18,
           20, 22, 19, 21, 23);
    /* and its pp groups [0,6,12,18], [1,7,13,19], ... [5,11,17,23] */
    GROUPS(&l, PB_GK_PP, 6, 4, 0, 6, 12, 18, 1, 7, 13, 19, 2, 8, 14, 20, 3, 9, 15, 21, 4, 10, 16,
           22, 5, 11, 17, 23);
    CHECK(pb_layout_coord(&l, 23, PB_DIM_PP) == 3 && pb_layout_coord(&l, 23, PB_DIM_DP) == 2 &&
          pb_layout_coord(&l, 23, PB_DIM_TP) == 1);
}

static void test_order(void)
{
    /* dp fastest: rank = dp + 2 * tp, so TP groups are [0,2] and [1,3] */
    pb_layout_t l = mk(2, 1, 1, 2, 1);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_layout_parse_order(&l, "dp-tp-cp-ep-pp", &err) == PB_OK);
    GROUPS(&l, PB_GK_TP, 2, 2, 0, 2, 1, 3);
    GROUPS(&l, PB_GK_DP, 2, 2, 0, 1, 2, 3);
    char buf[40];
    pb_layout_order_str(&l, buf, sizeof buf);
    CHECK(strcmp(buf, "dp-tp-cp-ep-pp") == 0);
    const char *bad[] = {"tp-dp-pp", "tp-cp-ep-dp-pp-tp", "tp-cp-ep-dp-xx", "tp-tp-ep-dp-pp",
                         "tp-cp-ep-dp-pp-", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb_err_clear(&err);
        CHECK(pb_layout_parse_order(&l, bad[i], &err) == PB_EINPUT);
        CHECK(strstr(err.msg, "must name tp, cp, ep, dp and pp once each") != NULL);
    }
}

static void test_expert_groups(void)
{
    /* tp 1, dp 4, ep 2 (order tp-cp-ep-dp-pp): the expert view is
     * tp, ep, edp = 2: EP groups [0,1],[2,3]; expert-DP [0,2],[1,3];
     * the dense DP group is all four. */
    pb_layout_t l = mk(1, 1, 2, 4, 1);
    GROUPS(&l, PB_GK_EP, 2, 2, 0, 1, 2, 3);
    GROUPS(&l, PB_GK_EDP, 2, 2, 0, 2, 1, 3);
    GROUPS(&l, PB_GK_DP, 1, 4, 0, 1, 2, 3);
    /* tp 2, cp 2, dp 2, ep 2 (world 8): dense rank = tp + 2cp + 4dp, so
     * CP [0,2], DP (cp and dp) [0,2,4,6]; expert rank = tp + 2ep + 4edp,
     * edp = cp*dp/ep = 2: EP [0,2], EDP [0,4]. */
    l = mk(2, 2, 2, 2, 1);
    GROUPS(&l, PB_GK_CP, 4, 2, 0, 2, 1, 3, 4, 6, 5, 7);
    GROUPS(&l, PB_GK_DP, 2, 4, 0, 2, 4, 6, 1, 3, 5, 7);
    GROUPS(&l, PB_GK_EP, 4, 2, 0, 2, 1, 3, 4, 6, 5, 7);
    GROUPS(&l, PB_GK_EDP, 4, 2, 0, 4, 1, 5, 2, 6, 3, 7);
}

static pb_model_t model(void)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err); /* 4 layers, 16 heads, seq 512 */
    return m;
}

static void refused(const pb_layout_t *l, const pb_model_t *m, uint64_t world, const char *needle,
                    int line)
{
    pb_err_t err;
    pb_err_clear(&err);
    int rc = pb_layout_check(l, m, world, &err);
    if (rc != PB_EINPUT || strstr(err.msg, needle) == NULL) {
        fprintf(stderr, "line %d: want '%s', got rc %d '%s'\n", line, needle, rc, err.msg);
        pb_test_failures++;
    }
}
#define REFUSED(l, m, w, needle) refused(l, m, w, needle, __LINE__)

static void test_constraints(void)
{
    pb_model_t m = model(), moe = model();
    moe.experts = 8;
    moe.topk = 2;
    moe.moe_every = 1;
    pb_err_t err;
    pb_err_clear(&err);
    pb_layout_t l = mk(2, 1, 1, 2, 2);
    CHECK(pb_layout_check(&l, &m, 8, &err) == PB_OK);
    REFUSED(&l, &m, 16, "layout tp 2 x cp 1 x dp 2 x pp 2 = 8 ranks, but the world has 16");
    l = mk(1, 1, 3, 4, 1);
    REFUSED(&l, &moe, 0, "--ep 3 does not divide dp x cp = 4");
    l = mk(1, 1, 2, 4, 1);
    REFUSED(&l, &m, 0, "--ep 2 needs a mixture-of-experts model");
    pb_model_t moe6 = moe;
    moe6.experts = 6;
    l = mk(1, 1, 4, 4, 1);
    REFUSED(&l, &moe6, 0, "experts 6 are not divisible by --ep 4");
    l = mk(1, 1, 1, 2, 1);
    l.sp = 1;
    REFUSED(&l, &m, 0, "--sp (sequence parallelism) needs --tp above 1");
    /* Megatron-Core's MoELayer refuses tp > 1 without sequence
     * parallelism (megatron/core/transformer/moe/moe_layer.py, forward) */
    l = mk(2, 1, 1, 2, 1);
    REFUSED(&l, &moe, 0, "a mixture-of-experts model with --tp 2 needs --sp");
    l.sp = 1;
    CHECK(pb_layout_check(&l, &moe, 4, &err) == PB_OK);
    l.sp = 0;
    CHECK(pb_layout_check(&l, &m, 4, &err) == PB_OK); /* dense: tp without sp is fine */
    l = mk(1, 1, 2, 2, 1);
    CHECK(pb_layout_check(&l, &moe, 2, &err) == PB_OK); /* tp 1: nothing to say */
    l = mk(32, 1, 1, 1, 1); /* 16 heads */
    REFUSED(&l, &m, 0, "heads 16 are not divisible by --tp 32");
    pb_model_t gqa = m;
    gqa.kv_heads = 2;
    l = mk(4, 1, 1, 1, 1);
    REFUSED(&l, &gqa, 0, "kv_heads 2 are not divisible by --tp 4");
    l = mk(1, 1, 1, 1, 3);
    REFUSED(&l, &m, 0, "layers 4 are not divisible by pp x vp = 3");
    l = mk(1, 1, 1, 1, 2);
    l.vp = 4;
    REFUSED(&l, &m, 0, "layers 4 are not divisible by pp x vp = 8");
    l = mk(1, 1, 1, 2, 1);
    l.vp = 2;
    REFUSED(&l, &m, 0, "--vp 2 (interleaving) needs --pp above 1");
    pb_model_t odd = m;
    odd.seq = 500;
    l = mk(1, 4, 1, 1, 1);
    REFUSED(&l, &odd, 0, "sequence 500 is not divisible by 2 x cp = 8");
    odd.seq = 514;
    l = mk(4, 1, 1, 1, 1);
    l.sp = 1;
    REFUSED(&l, &odd, 0, "sequence 514 / cp 1 is not divisible by --tp 4");
    pb_model_t gb = m;
    gb.gbs = 12;
    l = mk(1, 1, 1, 8, 1);
    REFUSED(&l, &gb, 0, "global batch 12 is not divisible by micro-batch 1 x dp 8");
    /* Llama 3 405B's 126 layers fit 16 stages with pp_trim 2 (8 a stage,
     * one fewer at each end), but not 12 */
    pb_model_t l3;
    pb_model_preset("llama3-405b", &l3, &err);
    l = mk(8, 1, 1, 128, 16);
    CHECK(pb_layout_check(&l, &l3, 16384, &err) == PB_OK);
    l = mk(8, 1, 1, 128, 12);
    /* with the real numbers (issue 50): 126 + 2 = 128 slots; 126 % 12 = 6
     * so no even split without the trim either; ends of their own: 11 on
     * each of the 10 between = 110, 16 left as 8 + 8; depths that keep
     * the trim: 120 - 2 = 118 and 132 - 2 = 130 */
    REFUSED(&l, &l3, 0,
            "126 layers + 2 (pp_trim: end stages lighter, the embedding and the loss counted "
            "as layer slots) = 128 are not divisible by pp x vp = 12: give the end stages their "
            "own counts, e.g. --pp-trim 0 --pp-first 8 --pp-last 8 (11 on each stage between); "
            "--layers 118 or 130 keeps the lighter ends");
}

/* HSDP: FSDP's HYBRID_SHARD on init_device_mesh(("replicate", "shard"),
 * (2, 4)) over a data-parallel group of 8: the mesh's rows are the
 * shard groups, its columns the replica groups.  tp 2, dp 8 (16 ranks,
 * tp fastest): rank 0's DP group is [0 2 4 6 8 10 12 14], rank 1's
 * [1 3 ... 15]; shard groups of 4 consecutive members, ids DP group x 2
 * + block; replica groups of every 4th, ids DP group x 4 + position. */
static void test_hsdp_groups(void)
{
    pb_layout_t l = mk(2, 1, 1, 8, 1);
    /* no shard group: one rank each, ids DP group x 8 + index */
    GROUPS(&l, PB_GK_SHARD, 16, 1, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    GROUPS(&l, PB_GK_REPL, 16, 1, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    CHECK(pb_layout_dp_shard(&l) == 8);
    l.shard = 4;
    CHECK(pb_layout_dp_shard(&l) == 4);
    GROUPS(&l, PB_GK_SHARD, 4, 4, 0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    GROUPS(&l, PB_GK_REPL, 8, 2, 0, 8, 2, 10, 4, 12, 6, 14, 1, 9, 3, 11, 5, 13, 7, 15);
    /* with cp 2 the data-parallel group is cp x dp (cp fastest): rank 0's
     * [0 2 4 6] at tp 2, cp 2, dp 2; shard 2: [0 2] and [4 6] */
    l = mk(2, 2, 1, 2, 1);
    l.shard = 2;
    GROUPS(&l, PB_GK_SHARD, 4, 2, 0, 2, 4, 6, 1, 3, 5, 7);
    GROUPS(&l, PB_GK_REPL, 4, 2, 0, 4, 2, 6, 1, 5, 3, 7);
    pb_model_t m = model(), moe = model();
    moe.experts = 8, moe.topk = 2, moe.moe_every = 1;
    pb_err_t err;
    pb_err_clear(&err);
    l = mk(1, 1, 1, 8, 1);
    l.shard = 8; /* the whole group: plain FSDP */
    CHECK(pb_layout_check(&l, &m, 8, &err) == PB_OK);
    CHECK(pb_layout_group_size(&l, PB_GK_REPL) == 1);
    l.shard = 1;
    REFUSED(&l, &m, 0, "--shard-group 1 shards nothing");
    l.shard = 3;
    REFUSED(&l, &m, 0, "--shard-group 3 does not divide the data-parallel group (cp x dp = 8)");
    l.shard = 4;
    REFUSED(&l, &moe, 0, "--shard-group (HSDP) with a mixture-of-experts model is not modelled");
}

int main(void)
{
    test_megatron_16();
    test_megatron_24();
    test_order();
    test_expert_groups();
    test_constraints();
    test_hsdp_groups();
    PB_TEST_END("unit_patterns_layout");
}
