/* test_pattern_plan.c - bench/glue/pb_pattern_plan: the command line's model,
 * layout and operations, without MPI.  Expected layouts follow the rules
 * `parbench --help` states (dp fills the world; no layout: one strategy
 * gets every rank, several get tp 2, pp 2 where they fit). */
#include "bench/glue/pb_pattern_plan.h"

#include <string.h>

#include "pb_test.h"

static int plan_v(char **argv, int world, pb_pattern_plan_t *p, pb_err_t *err)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    pb_options_t o;
    pb_err_clear(err);
    memset(p, 0, sizeof *p);
    if (pb_cli_parse(argc, argv, &o, err) != PB_OK)
        return err->code;
    return pb_pattern_plan(&o.model, o.main.pattern_mask, world, o.run.np, p, err);
}
#define PLAN(p, err, world, ...) plan_v((char *[]){"parbench", __VA_ARGS__, NULL}, world, p, err)

static void test_parse_and_layout(void)
{
    pb_pattern_plan_t p;
    pb_err_t err;
    /* dp is what tp*pp leave of 8 ranks: 2 */
    CHECK(PLAN(&p, &err, 8, "--pattern", "all", "--tp", "2", "--pp", "2", "--size", "1024",
               "--layers", "4", "--seq", "512") == PB_OK);
    CHECK(p.layout.size[PB_DIM_TP] == 2 && p.layout.size[PB_DIM_PP] == 2 &&
          p.layout.size[PB_DIM_DP] == 2);
    CHECK(p.model.hidden == 1024 && p.model.layers == 4 && p.model.seq == 512);
    /* all = tp, pp, dp, ep, cp (sp is tp's variant) */
    CHECK(p.mask == (1u << PB_STRAT_TP | 1u << PB_STRAT_PP | 1u << PB_STRAT_DP |
                     1u << PB_STRAT_EP | 1u << PB_STRAT_CP));
    /* tp: 1 x 512 x 1024 x 2 B = 1 MiB, 2 x 2 layers x 4 micro-batches
     * (gbs unset: 2 x pp) = 16 each way */
    CHECK(p.ops.n >= 2 && p.ops.ops[0].bytes == 1048576 && p.ops.ops[0].count == 16);
    pb_pattern_plan_free(&p);

    /* one strategy, no layout: all 4 ranks in its group */
    CHECK(PLAN(&p, &err, 4, "--pattern", "tp") == PB_OK);
    CHECK(p.layout.size[PB_DIM_TP] == 4 && p.world == 4);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 4, "--pattern", "sp") == PB_OK);
    CHECK(p.layout.size[PB_DIM_TP] == 4 && p.layout.sp == 1);
    /* the layers' gathers and scatters each way, the weight-gradient
     * gathers, the embedding's 2, the output layer's 3, the loss's 1, the
     * norms' gradients' 1 */
    CHECK(p.ops.n == 12 && p.ops.ops[0].strategy == PB_STRAT_SP);
    pb_pattern_plan_free(&p);
    /* torchtitan's: no weight-gradient gathers, so the output layer's 2;
     * the norms' gradients one at a time, once a step (no FSDP), 1 record:
     * 4 + 2 + 2 + 1 + 1 */
    CHECK(PLAN(&p, &err, 4, "--pattern", "sp", "--framework", "torchtitan") == PB_OK);
    CHECK(p.ops.n == 10 && p.cfg.sp_regather == 0 && p.cfg.sp_norm == PB_SPNORM_EACH);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 4, "--pattern", "ep", "--experts", "8", "--topk", "2") == PB_OK);
    CHECK(p.layout.size[PB_DIM_EP] == 4 && p.layout.size[PB_DIM_DP] == 4);
    pb_pattern_plan_free(&p);

    /* the main job (no --pattern) on 8 ranks: tp 2, pp 2, dp 2 */
    CHECK(PLAN(&p, &err, 8, "-n", "2") == PB_OK);
    CHECK(p.layout.size[PB_DIM_TP] == 2 && p.layout.size[PB_DIM_PP] == 2 &&
          p.layout.size[PB_DIM_DP] == 2 && strcmp(p.model.name, "tiny") == 0);
    pb_pattern_plan_free(&p);

    /* model flags override the preset in command-line order */
    CHECK(PLAN(&p, &err, 8, "--pattern", "dp", "--preset", "llama2-7b", "--dtype", "fp16",
               "--kv-heads", "8", "--gbs", "16") == PB_OK);
    CHECK(p.model.hidden == 4096 && p.model.kv_heads == 8 && p.model.dtype == PB_F16);
    pb_pattern_plan_free(&p);

    /* the layout must fill the world */
    CHECK(PLAN(&p, &err, 8, "--pattern", "tp", "--tp", "2", "--dp", "2") == PB_EINPUT);
    CHECK(strstr(err.msg, "= 4 ranks, but the world has 8") != NULL);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 8, "--pattern", "tp", "--tp", "3") == PB_EINPUT);
    CHECK(strstr(err.msg, "tp 3 x cp 1 x pp 1 = 3 does not divide the world of 8 ranks") != NULL);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 8, "--pattern", "dp", "--grad-dtype", "int8") == PB_EINPUT);
    CHECK(strstr(err.msg, "--grad-dtype takes fp32 or bf16, not 'int8'") != NULL);
    pb_pattern_plan_free(&p);
}

static void test_cli_refusals(void)
{
    pb_pattern_plan_t p;
    pb_err_t err;
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--dtype", "bf16,float") == PB_EINPUT);
    CHECK(strstr(err.msg, "--dtype takes one type with --pattern") != NULL);
    CHECK(PLAN(&p, &err, 2, "--pattern", "ep", "--imbalance", "0.5") == PB_EINPUT);
    CHECK(strstr(err.msg, "--imbalance must be at least 1") != NULL);
    CHECK(PLAN(&p, &err, 2, "--pattern", "dp", "--zero", "4") == PB_EINPUT);
    CHECK(PLAN(&p, &err, 2, "--pattern", "dp", "--dp-bucket", "huge") == PB_EINPUT);
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--tp", "0") == PB_EINPUT);
}

/* --size alone: the --size rule (patterns/pb_model.h; its shapes against
 * Llama 3's configs are in test_patterns_model.c).  At 8192: 64 heads of
 * 128, 8 KV heads, ffn 3.5 x 8192 = 28672, vocab 128256, seq 8192, gated;
 * on tp 2 each TP all-reduce is b x s x h x 2 B = 1 x 8192 x 8192 x 2 =
 * 134217728 B (128 MiB), 2 per layer x 4 layers x 2 micro-batches (gbs
 * unset: 2 x pp) = 16 each way. */
static void test_size_rule(void)
{
    pb_pattern_plan_t p;
    pb_err_t err;
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--size", "8192") == PB_OK);
    CHECK(p.size_rule == 1 && strcmp(p.model.name, "llama-style") == 0);
    CHECK(p.model.hidden == 8192 && p.model.heads == 64 && p.model.kv_heads == 8 &&
          p.model.ffn == 28672 && p.model.vocab == 128256 && p.model.seq == 8192 &&
          p.model.layers == 4 && p.model.gated == 1 && p.model.dtype == PB_BF16);
    /* then, once per micro-batch (2): the embedding's output and the
     * output layer's input gradient, 128 MiB each, and the loss's 3
     * all-reduces of one fp32 per token, 8192 x 4 B = 32 KiB */
    CHECK(p.ops.n == 5 && p.ops.ops[0].bytes == UINT64_C(134217728) &&
          p.ops.ops[0].count == 16 && p.ops.ops[1].bytes == UINT64_C(134217728));
    CHECK(p.ops.n == 5 && p.ops.ops[2].count == 2 && p.ops.ops[3].count == 2 &&
          p.ops.ops[2].bytes == UINT64_C(134217728) && p.ops.ops[4].bytes == 32768 &&
          p.ops.ops[4].count == 6);
    pb_pattern_plan_free(&p);
    /* --hidden is the same flag */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--hidden", "4096") == PB_OK);
    CHECK(p.size_rule == 1 && p.model.heads == 32 && p.model.kv_heads == 8 &&
          p.model.ffn == 14336);
    pb_pattern_plan_free(&p);
    /* the run's flags win over the rule: seq 4096 halves the message
     * (64 MiB = 67108864 B), 2 per layer x 4 layers x 2 micro-batches =
     * 16 each way; the rule's 8 KV heads and 3.5 h SwiGLU stay */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--size", "8192", "--seq", "4096") == PB_OK);
    CHECK(p.size_rule == 1 && p.model.seq == 4096 && p.model.kv_heads == 8 &&
          p.model.ffn == 28672 && p.model.gated == 1);
    CHECK(p.ops.ops[0].bytes == UINT64_C(67108864) && p.ops.ops[0].count == 16);
    pb_pattern_plan_free(&p);
    /* a shape flag beside --size types a model of the user's own (issue
     * 50): no rule, but tiny's GPT-style widened under the flags: the 16
     * heads given with full attention (16 KV), ffn 4 x 8192 = 32768 plain;
     * 8 layers double the count (32); every field no flag gave is named */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--size", "8192", "--seq", "4096", "--layers",
               "8", "--heads", "16") == PB_OK);
    CHECK(p.size_rule == 0 && strcmp(p.model.name, "custom") == 0);
    CHECK(p.model.seq == 4096 && p.model.layers == 8 && p.model.heads == 16 &&
          p.model.kv_heads == 16 && p.model.ffn == 32768 && p.model.gated == 0);
    CHECK(p.ops.ops[0].bytes == UINT64_C(67108864) && p.ops.ops[0].count == 32);
    CHECK(strcmp(p.assumed, "kv_heads 16 = heads (full attention), ffn 32768 (4 h), plain MLP, "
                            "vocab 32000, dtype bf16") == 0);
    pb_pattern_plan_free(&p);
    /* with a preset, --size widens that preset, as before: tiny's 16 heads
     * of 64 and 4h MLP at 8192 are 128 heads and 32768; its seq 512 */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--preset", "tiny", "--size", "8192") == PB_OK);
    CHECK(p.size_rule == 0 && strcmp(p.model.name, "tiny") == 0 && p.model.heads == 128 &&
          p.model.ffn == 32768 && p.model.seq == 512);
    pb_pattern_plan_free(&p);
    /* a config file names the model: the rule stays out of it */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--hf-config",
               PB_SOURCE_DIR "/tests/fixtures/hf/llama3-70b.json", "--size", "4096") == PB_OK);
    CHECK(p.size_rule == 0 && p.model.layers == 80);
    pb_pattern_plan_free(&p);
    /* no flag naming the width: tiny, as before */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--seq", "1024") == PB_OK);
    CHECK(p.size_rule == 0 && strcmp(p.model.name, "tiny") == 0 && p.model.hidden == 1024);
    pb_pattern_plan_free(&p);
    /* a width 128 does not divide: refused, unless the heads are given
     * (then a model typed by its shape: 8 heads of 125, full attention,
     * tiny's 4h MLP = 4000) */
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--size", "1000") == PB_EINPUT);
    CHECK(strncmp(err.msg, "--size 1000: hidden 1000 is not a multiple of the head size 128 ",
                  63) == 0);
    CHECK(PLAN(&p, &err, 2, "--pattern", "tp", "--size", "1000", "--heads", "8") == PB_OK);
    CHECK(p.model.heads == 8 && p.model.kv_heads == 8 && p.model.ffn == 4000);
    pb_pattern_plan_free(&p);
}

/* The quick depth (tiny's 4 layers, the --size rule's 4) rises to the
 * next multiple of pp x vp where nothing set it: 3 stages -> 6, 4 stages
 * of 3 chunks -> 12, 2 stages keep 4; a depth given by flag, preset or
 * file is kept and refused where it does not split. */
static void test_quick_depth(void)
{
    pb_pattern_plan_t p;
    pb_err_t err;
    CHECK(PLAN(&p, &err, 3, "--pattern", "pp") == PB_OK);
    CHECK(p.model.layers == 6 && p.layers_from == 4 && p.layout.size[PB_DIM_PP] == 3);
    /* 2 x pp = 6 micro-batches, one send of 1 x 512 x 1024 x 2 B each way */
    CHECK(p.ops.n == 2 && p.ops.ops[0].bytes == 1048576 && p.ops.ops[0].count == 6);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 4, "--pattern", "pp", "--vp", "3") == PB_OK);
    CHECK(p.model.layers == 12 && p.layers_from == 4);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 8, "--pattern", "pp", "--size", "8192") == PB_OK);
    CHECK(p.size_rule == 1 && p.model.layers == 8 && p.layers_from == 4);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 2, "--pattern", "pp") == PB_OK);
    CHECK(p.model.layers == 4 && p.layers_from == 0);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 3, "--pattern", "pp", "--preset", "tiny") == PB_OK);
    CHECK(p.model.layers == 6 && p.layers_from == 4);
    pb_pattern_plan_free(&p);
    CHECK(PLAN(&p, &err, 3, "--pattern", "pp", "--layers", "4") == PB_EINPUT);
    /* and says what would split (issue 50): 1 + 2 + 1 = 4 */
    CHECK(strcmp(err.msg, "layers 4 are not divisible by pp x vp = 3: give the end stages "
                          "their own counts, e.g. --pp-first 1 --pp-last 1 (2 on the stage "
                          "between)") == 0);
    CHECK(PLAN(&p, &err, 3, "--pattern", "pp", "--preset", "llama3-70b") == PB_EINPUT);
    /* ceil(80 / 3) = 27 between, 53 left: 26 first, 27 last */
    CHECK(strcmp(err.msg, "layers 80 are not divisible by pp x vp = 3: give the end stages "
                          "their own counts, e.g. --pp-first 26 --pp-last 27 (27 on the stage "
                          "between)") == 0);
    /* --pp-trim 2 sets the split: (4 + 2) / 3 = 2 a stage, one fewer at
     * each end, and the 4 layers stay */
    CHECK(PLAN(&p, &err, 3, "--pattern", "pp", "--pp-trim", "2") == PB_OK);
    CHECK(p.model.layers == 4 && p.layers_from == 0);
    pb_pattern_plan_free(&p);
}

int main(void)
{
    test_parse_and_layout();
    test_cli_refusals();
    test_size_rule();
    test_quick_depth();
    PB_TEST_END("unit_pattern_plan");
}
