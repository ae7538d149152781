/* test_tune_plan.c - tune/pb_knob, pb_tplan and pb_tenv: the knob table's
 * look-ups, the search order, the budget, the combination of winners and
 * the env file, on made-up workloads.  Counts from the table
 * (tune/pb_knob.c): Open MPI allreduce 6 values, allgather 5. */
#include "tune/pb_knob.h"
#include "tune/pb_tenv.h"
#include "tune/pb_tplan.h"

#include <stdio.h>
#include <string.h>

#include "pb_test.h"

static void test_table(void)
{
    const pb_knob_t *k = pb_knob_find("coll_tuned_allreduce_algorithm");
    char v[32], env[96];
    CHECK(k != NULL && k->apply == PB_APPLY_MPIT && pb_knob_nvalues(k) == 6);
    CHECK(pb_knob_value(k, 3, v, sizeof v) && strcmp(v, "4") == 0);
    CHECK(pb_knob_label(k, 3, v, sizeof v) && strcmp(v, "ring") == 0);
    CHECK(!pb_knob_value(k, 6, v, sizeof v));
    CHECK(pb_knob_affects(k, "allreduce") && !pb_knob_affects(k, "allgather"));
    pb_knob_env_name(k, k->name, env, sizeof env);
    CHECK(strcmp(env, "OMPI_MCA_coll_tuned_allreduce_algorithm") == 0);
    k = pb_knob_find("NCCL_PROTO");
    CHECK(k != NULL && pb_knob_affects(k, "alltoall") && pb_knob_nvalues(k) == 3);
    pb_knob_env_name(k, k->name, env, sizeof env);
    CHECK(strcmp(env, "NCCL_PROTO") == 0);
    CHECK(pb_knob_find("NCCL_NOPE") == NULL);
    /* every row complete, every value with a label */
    for (size_t i = 0; i < pb_knob_count(); i++) {
        const pb_knob_t *r = pb_knob_at(i);
        CHECK(r->name && r->ops && r->values && r->since && r->what);
        for (size_t x = 0; x < pb_knob_nvalues(r); x++)
            CHECK(pb_knob_label(r, x, v, sizeof v) && v[0] != '\0');
    }
    CHECK(pb_knob_at(pb_knob_count()) == NULL);
}

/* allgather weighs more than allreduce: its knob first, 5 + 6 values;
 * knobs of collectives the job does not issue are left out */
static void test_singles(void)
{
    const pb_top_t ops[] = {{"allreduce", 3.0}, {"allgather", 5.0}};
    pb_tcand_t c[32];
    char s[128];
    CHECK(pb_tplan_singles(PB_KNOB_MPI, ops, 2, c, 32) == 11);
    CHECK(strcmp(c[0].set[0].knob->name, "coll_tuned_allgather_algorithm") == 0);
    CHECK(c[4].set[0].value == 4 && strcmp(c[5].set[0].knob->name, "coll_tuned_allreduce_algorithm") == 0);
    pb_tcand_format(&c[8], 1, s, sizeof s);
    CHECK(strcmp(s, "coll_tuned_allreduce_algorithm=ring") == 0);
    pb_tcand_format(&c[8], 0, s, sizeof s);
    CHECK(strcmp(s, "coll_tuned_allreduce_algorithm=4") == 0);
    CHECK(pb_tplan_singles(PB_KNOB_MPI, ops, 2, c, 3) == 11); /* the count, whatever the room */
    /* NCCL for an all-reduce: every knob but NCCL_P2P_NET_CHUNKSIZE
     * (send/recv, all-to-all): 7 + 3 + 5 + 5 + 4 + 2 + 2 + 3 + 3 = 34 */
    const pb_top_t ar[] = {{"allreduce", 1.0}};
    CHECK(pb_tplan_singles(PB_KNOB_NCCL, ar, 1, c, 32) == 34);
    pb_tcand_t none = {0};
    pb_tcand_format(&none, 1, s, sizeof s);
    CHECK(strcmp(s, "default") == 0);
}

static void test_budget_and_combo(void)
{
    CHECK(pb_tplan_fits(120.0, 100.0, 20.0) && !pb_tplan_fits(120.0, 100.0, 21.0));
    CHECK(pb_tplan_fits(0.0, 1e9, 1e9)); /* no budget: no limit */
    const pb_knob_t *algo = pb_knob_find("NCCL_ALGO"), *proto = pb_knob_find("NCCL_PROTO");
    const pb_knob_t *mpi = pb_knob_find("coll_tuned_allreduce_algorithm");
    pb_tcand_t s[5] = {{1, {{algo, 0}}}, {1, {{algo, 1}}}, {1, {{proto, 0}}}, {1, {{proto, 2}}},
                       {1, {{mpi, 3}}}};
    /* Ring 0.9, Tree 0.8: Tree; LL no gain, Simple 0.95: Simple; the MPI
     * knob's winner needs no combined measurement */
    const double score[5] = {0.9, 0.8, 0.0, 0.95, 0.5};
    pb_tcand_t c;
    char txt[128];
    CHECK(pb_tplan_combo(s, 5, score, &c) == 1 && c.n == 2);
    pb_tcand_format(&c, 0, txt, sizeof txt);
    CHECK(strcmp(txt, "NCCL_ALGO=Tree NCCL_PROTO=Simple") == 0);
    const double one[5] = {0.9, 0.0, 0.0, 0.0, 0.5};
    CHECK(pb_tplan_combo(s, 5, one, &c) == 0); /* one knob: nothing to combine */
}

static pb_tcell_t cell(pb_tcell_state_t st, pb_tv_t v, double ratio)
{
    pb_tcell_t c = {st, {10, ratio, ratio, ratio, v}};
    return c;
}

/* Three cases of weights 8, 1, 1 (the default's time x count): every
 * score below is sum(weight x ratio) / 10 worked by hand. */
static void test_score_and_choose(void)
{
    const double w[3] = {8.0, 1.0, 1.0};
    pb_tcell_t a[3] = {cell(PB_TCELL_DONE, PB_TV_FASTER, 0.5), cell(PB_TCELL_DONE, PB_TV_SAME, 0.9),
                       cell(PB_TCELL_NONE, PB_TV_SAME, 0.0)};
    CHECK_NEAR(pb_tplan_score(a, w, 3), 0.6, 1e-12); /* (8 x 0.5 + 1 + 1) / 10: no change counts 1 */
    pb_tcell_t b[3] = {cell(PB_TCELL_DONE, PB_TV_SLOWER, 1.5), cell(PB_TCELL_DONE, PB_TV_FASTER, 0.5),
                       cell(PB_TCELL_NONE, PB_TV_SAME, 0.0)};
    CHECK(pb_tplan_score(b, w, 3) == 0.0); /* (12 + 0.5 + 1) / 10 = 1.35: slower overall */
    pb_tcell_t c[3] = {cell(PB_TCELL_DONE, PB_TV_FASTER, 0.5), cell(PB_TCELL_WRONG, PB_TV_FASTER, 0.1),
                       cell(PB_TCELL_NONE, PB_TV_SAME, 0.0)};
    CHECK(pb_tplan_score(c, w, 3) == 0.0); /* wrong results anywhere: never chosen */
    pb_tcell_t d[3] = {cell(PB_TCELL_DONE, PB_TV_SAME, 0.7), cell(PB_TCELL_SKIPPED, PB_TV_SAME, 0.0),
                       cell(PB_TCELL_NONE, PB_TV_SAME, 0.0)};
    CHECK(pb_tplan_score(d, w, 3) == 0.0); /* 0.7 inside the noise is no gain */
    pb_tcell_t e[3] = {cell(PB_TCELL_NONE, PB_TV_SAME, 0.0), cell(PB_TCELL_NONE, PB_TV_SAME, 0.0),
                       cell(PB_TCELL_DONE, PB_TV_FASTER, 0.8)};
    CHECK_NEAR(pb_tplan_score(e, w, 3), 0.98, 1e-12); /* (8 + 1 + 0.8) / 10 */
    /* Open MPI: per knob its best value; both knobs' winners are kept */
    const pb_knob_t *ar = pb_knob_find("coll_tuned_allreduce_algorithm");
    const pb_knob_t *ag = pb_knob_find("coll_tuned_allgather_algorithm");
    pb_tcand_t m[4] = {{1, {{ar, 0}}}, {1, {{ar, 1}}}, {1, {{ag, 3}}}, {1, {{ar, 3}}}};
    const double ms[4] = {0.6, 0.0, 0.98, 0.55};
    size_t chosen[4];
    CHECK(pb_tplan_choose(PB_KNOB_MPI, m, ms, 4, chosen) == 2);
    CHECK(chosen[0] == 3 && chosen[1] == 2); /* ring 0.55 beats basic_linear 0.6 */
    /* NCCL: its knobs act together, one candidate wins (here the combined one) */
    const pb_knob_t *algo = pb_knob_find("NCCL_ALGO"), *proto = pb_knob_find("NCCL_PROTO");
    pb_tcand_t nc[3] = {{1, {{algo, 1}}}, {1, {{proto, 2}}}, {2, {{algo, 1}, {proto, 2}}}};
    const double ns[3] = {0.8, 0.9, 0.75};
    CHECK(pb_tplan_choose(PB_KNOB_NCCL, nc, ns, 3, chosen) == 1 && chosen[0] == 2);
    const double none[3] = {0.0, 0.0, 0.0};
    CHECK(pb_tplan_choose(PB_KNOB_NCCL, nc, none, 3, chosen) == 0);
}

static void test_env(void)
{
    pb_tenv_item_t it[3];
    memset(it, 0, sizeof it);
    pb_tenv_knob(&it[0], pb_knob_find("NCCL_ALGO"), "Tree", "NCCL_ALGO = Tree: x0.620");
    pb_tenv_knob(&it[1], pb_knob_find("NCCL_PROTO"), "allreduce:Simple;allgather:Simple", "");
    snprintf(it[2].why, sizeof it[2].why, "left out: NCCL_MAX_NCHANNELS=8");
    char buf[1024] = "";
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    pb_err_t err;
    memset(&err, 0, sizeof err);
    CHECK(f != NULL && pb_tenv_write(f, "parbench tune", it, 3, NULL, &err) == PB_OK);
    fclose(f);
    /* a value the shell would split at ';' is quoted; a comment alone
     * exports nothing */
    CHECK(strcmp(buf, "# parbench tune\n"
                      "# NCCL_ALGO = Tree: x0.620\n"
                      "export NCCL_ALGO=Tree\n"
                      "export NCCL_PROTO='allreduce:Simple;allgather:Simple'\n"
                      "# left out: NCCL_MAX_NCHANNELS=8\n") == 0);
    /* a path with a space and a quote comes back whole from sh */
    snprintf(it[0].name, sizeof it[0].name, "OMPI_MCA_coll_tuned_dynamic_rules_filename");
    snprintf(it[0].value, sizeof it[0].value, "/tmp/it's here/tune.rules");
    it[0].why[0] = '\0';
    f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL && pb_tenv_write(f, "h", it, 1, NULL, &err) == PB_OK);
    fclose(f);
    CHECK(strcmp(buf, "# h\nexport OMPI_MCA_coll_tuned_dynamic_rules_filename="
                      "'/tmp/it'\\''s here/tune.rules'\n") == 0);
    /* nothing exported: the file says why */
    f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL && pb_tenv_write(f, "none", &it[2], 1, NULL, &err) == PB_OK);
    fclose(f);
    CHECK(strstr(buf, "nothing to set") != NULL && strstr(buf, "export") == NULL);
    f = fmemopen(buf, sizeof buf - 1, "w");
    CHECK(f != NULL && pb_tenv_write(f, "none", it, 0, "nothing was measured", &err) == PB_OK);
    fclose(f);
    CHECK(strcmp(buf, "# none\n# nothing was measured\n") == 0);
}

/* Item 14: a verdict from fewer than 6 pairs ("not enough pairs") counts
 * as no change, whatever its median: 5 pairs at 0.5 on the heaviest
 * case give no score (else (8 x 0.5 + 2) / 10 = 0.6). */
static void test_few_pairs(void)
{
    const double w[3] = {8.0, 1.0, 1.0};
    pb_tcell_t few = {PB_TCELL_DONE, {5, 0.5, 0.4, 0.6, PB_TV_FEW}};
    CHECK(pb_tcell_ratio(&few) == 1.0);
    CHECK(!pb_tcell_holds(&few));
    pb_tcell_t a[3] = {few, cell(PB_TCELL_DONE, PB_TV_SAME, 0.9), cell(PB_TCELL_NONE, PB_TV_SAME, 0)};
    CHECK(pb_tplan_score(a, w, 3) == 0.0);
}

/* Item 15: a setting faster on the TP all-reduce (weight 8, 0.5) and
 * not measured on the DP bucket (weight 1, "not tuned": NONE) may not
 * reach the DP bucket.  Exported as is it would: score 0.  Held to the TP
 * case alone (Open MPI's rules file): (8 x 0.5 + 1 + 1) / 10 = 0.6. */
static void test_reach(void)
{
    const double w[3] = {8.0, 1.0, 1.0};
    pb_tcell_t row[3] = {cell(PB_TCELL_DONE, PB_TV_FASTER, 0.5), cell(PB_TCELL_NONE, PB_TV_SAME, 0),
                         cell(PB_TCELL_DONE, PB_TV_SAME, 0.95)};
    const int all[3] = {1, 1, 1}, tp[3] = {1, 0, 0}, tp_ag[3] = {1, 0, 1};
    CHECK(pb_tplan_score_reach(row, all, w, 3) == 0.0);
    CHECK_NEAR(pb_tplan_score_reach(row, tp, w, 3), 0.6, 1e-12);
    /* a tie counts as holding, at ratio 1: still (4 + 1 + 1) / 10 */
    CHECK_NEAR(pb_tplan_score_reach(row, tp_ag, w, 3), 0.6, 1e-12);
    row[2] = cell(PB_TCELL_DONE, PB_TV_SLOWER, 1.2); /* a loss in reach: never */
    CHECK(pb_tplan_score_reach(row, tp_ag, w, 3) == 0.0);
    row[2] = cell(PB_TCELL_WRONG, PB_TV_SAME, 1.0); /* wrong anywhere: never */
    CHECK(pb_tplan_score_reach(row, tp, w, 3) == 0.0);
    row[2] = cell(PB_TCELL_SKIPPED, PB_TV_SAME, 0); /* the budget left it: never */
    CHECK(pb_tplan_score_reach(row, tp_ag, w, 3) == 0.0);
}

/* Item 15, NCCL: NCCL_ALGO=Tree faster on the TP all-reduce, not
 * measured on the DP all-reduce (not tuned), no change on an all-gather
 * and faster on a send/recv.  One value for the job would reach the DP
 * bucket: left out.  NCCL 2.24+ scopes a value per collective, but the
 * all-reduce is refused (the DP case); the all-gather holds: scoped to
 * it.  A channel knob cannot be scoped: left out. */
static void test_nccl_scope(void)
{
    const pb_knob_t *algo = pb_knob_find("NCCL_ALGO"), *ch = pb_knob_find("NCCL_MAX_NCHANNELS");
    const pb_tcand_t tree = {1, {{algo, 1}}}, chan = {1, {{ch, 2}}};
    const char *ops[4] = {"allreduce", "allreduce", "allgather", "sendrecv"};
    pb_tcell_t row[4] = {cell(PB_TCELL_DONE, PB_TV_FASTER, 0.5), cell(PB_TCELL_NONE, PB_TV_SAME, 0),
                         cell(PB_TCELL_DONE, PB_TV_SAME, 1.0), cell(PB_TCELL_DONE, PB_TV_FASTER, 0.9)};
    int reach[4];
    char funcs[64];
    CHECK(pb_tplan_reach(&tree, ops, row, 4, 0, reach, funcs, sizeof funcs) == PB_TREACH_NONE);
    CHECK(reach[0] && reach[1] && reach[2] && reach[3] && funcs[0] == '\0');
    CHECK(pb_tplan_reach(&tree, ops, row, 4, 1, reach, funcs, sizeof funcs) == PB_TREACH_SCOPED);
    CHECK(strcmp(funcs, "allgather") == 0); /* send/recv: NCCL names no algorithm for it */
    CHECK(!reach[0] && !reach[1] && reach[2] && !reach[3]);
    CHECK(pb_tplan_reach(&chan, ops, row, 4, 1, reach, funcs, sizeof funcs) == PB_TREACH_NONE);
    /* measured on the DP bucket too and tied there: the whole all-reduce */
    row[1] = cell(PB_TCELL_DONE, PB_TV_SAME, 1.0);
    CHECK(pb_tplan_reach(&tree, ops, row, 4, 1, reach, funcs, sizeof funcs) == PB_TREACH_ALL);
    CHECK(reach[0] && reach[1] && reach[2] && reach[3]);
    CHECK(pb_knob_nccl_func("reducescatter") != NULL && pb_knob_nccl_func("alltoall") == NULL);
}

/* Item 16: the budget the search would have needed: 4.5 s before it,
 * then 10 pairs of three candidates at 0.2, 0.3 and 0.5 s a pair:
 * 4.5 + 10 x 1.0 = 14.5 s. */
static void test_budget_needed(void)
{
    const double per_pair[3] = {0.2, 0.3, 0.5};
    CHECK_NEAR(pb_tplan_budget(4.5, per_pair, 3, 10), 14.5, 1e-12);
    CHECK_NEAR(pb_tplan_budget(4.5, per_pair, 0, 10), 4.5, 1e-12);
}

int main(void)
{
    test_table();
    test_singles();
    test_budget_and_combo();
    test_score_and_choose();
    test_env();
    test_few_pairs();
    test_reach();
    test_nccl_scope();
    test_budget_needed();
    PB_TEST_END("unit_tune_plan");
}
