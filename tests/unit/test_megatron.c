/* --megatron-args: a launch script written after Megatron-LM's examples
 * (tests/fixtures/megatron), and small texts for each reading rule.  The
 * expected values are the script's own numbers; vp = layers / (pp x
 * --num-layers-per-virtual-pipeline-stage) = 80 / (4 x 5) = 4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_test.h"
#include "patterns/pb_megatron.h"

static const char *kv(const pb_megatron_t *m, const char *key)
{
    for (int i = 0; i < m->nkv; i++)
        if (strcmp(m->key[i], key) == 0)
            return m->value[i];
    return "";
}

static void script(void)
{
    static char text[1 << 16];
    FILE *f = fopen(PB_SOURCE_DIR "/tests/fixtures/megatron/llama3-70b-1024.sh", "r");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    text[fread(text, 1, sizeof text - 1, f)] = '\0';
    fclose(f);
    pb_megatron_t m;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("s.sh", text, &m, &err) == PB_OK);
    CHECK(m.found_cmd && m.gpus == 1024 && m.gpus_per_node == 8); /* 128 x 8 */
    CHECK(strcmp(kv(&m, "layers"), "80") == 0 && strcmp(kv(&m, "hidden"), "8192") == 0);
    CHECK(strcmp(kv(&m, "ffn"), "28672") == 0 && strcmp(kv(&m, "heads"), "64") == 0);
    CHECK(strcmp(kv(&m, "kv-heads"), "8") == 0 && strcmp(kv(&m, "seq"), "8192") == 0);
    CHECK(strcmp(kv(&m, "gated"), "1") == 0 && strcmp(kv(&m, "dtype"), "bf16") == 0);
    CHECK(strcmp(kv(&m, "mbs"), "1") == 0 && strcmp(kv(&m, "gbs"), "1024") == 0);
    CHECK(m.tp == 8 && m.pp == 4 && m.vp == 4 && m.sp == 1 && m.cp == 0);
    CHECK(m.recompute == 2 && m.dist_opt == 1 && m.flash == 1); /* --recompute-activations */
    CHECK(m.overlap_grad == 1 && m.overlap_param == 0 && m.tp_comm_overlap == 1);
    CHECK(strcmp(m.grad_dtype, "bf16") == 0); /* no --accumulate-allreduce-grads-in-fp32 */
    /* --use-custom-fsdp is Megatron-FSDP, whose default sharding strategy
     * while the flag existed was no_shard (arguments.py before
     * Megatron-LM af28b5a): ZeRO-0, not the distributed optimizer's 1 */
    CHECK(m.unknown[0] == '\0' && m.fsdp == 1 && m.fsdp_zero == -1 && m.zero == 0);
    CHECK(strstr(m.notes, "--use-custom-fsdp (Megatron-FSDP) with sharding strategy no_shard") !=
          NULL);
    CHECK(strstr(m.notes, "modelled as --zero 0") != NULL);
    CHECK(strstr(m.no_counterpart, "--recompute-method") != NULL);
    /* nothing is gathered at ZeRO-0: no word on the parameter gather */
    CHECK(strstr(m.no_counterpart, "--overlap-param-gather absent") == NULL);
    CHECK(strcmp(m.unresolved, "$MASTER_ADDR") == 0);
}

static void rules(void)
{
    pb_megatron_t m;
    pb_err_t err;
    /* bare arguments; Megatron's defaults: MHA, GeLU, ffn 4h */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("a", "--num-layers 24 --hidden-size 2048 --num-attention-heads 16\n"
                                 "--num-query-groups 4 --num_experts=8 --moe-router-topk 2\n",
                            &m, &err) == PB_OK);
    CHECK(!m.found_cmd && strcmp(kv(&m, "kv-heads"), "16") == 0); /* no --group-query-attention */
    CHECK(strcmp(kv(&m, "gated"), "0") == 0 && strcmp(kv(&m, "ffn"), "8192") == 0);
    CHECK(strcmp(kv(&m, "experts"), "8") == 0 && strcmp(kv(&m, "topk"), "2") == 0);
    /* swiglu's default ffn: 8h/3 down to a multiple of 64: 8*4096/3 = 10922 -> 10880 */
    CHECK(pb_megatron_parse("b", "python pretrain_gpt.py --hidden-size 4096 --swiglu", &m, &err) ==
          PB_OK);
    CHECK(strcmp(kv(&m, "ffn"), "10880") == 0);
    /* quotes, ${X:-default}, a continuation, a comment */
    CHECK(pb_megatron_parse("c", "L=\"12\"\npython pretrain_gpt.py --num-layers $L \\\n"
                                 "  --seq-length ${SEQ:-2048} # --hidden-size 1\n",
                            &m, &err) == PB_OK);
    CHECK(strcmp(kv(&m, "layers"), "12") == 0 && strcmp(kv(&m, "seq"), "2048") == 0);
    CHECK(strcmp(kv(&m, "hidden"), "") == 0);
    /* refusals name the script and the argument */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("d.sh", "--num-layers twelve", &m, &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "d.sh: --num-layers needs a whole number, not 'twelve'") == 0);
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("e.sh", "--num-layers 10 --pipeline-model-parallel-size 4 "
                                    "--num-layers-per-virtual-pipeline-stage 2", &m, &err) ==
          PB_EINPUT);
    CHECK(strstr(err.msg, "does not divide 10 layers over 4 stages") != NULL);
    /* issue 32: unresolved variables are whole names, each listed once:
     * $TP is not $TP_SIZE (a name ends at a character that cannot be in
     * one), in either order */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("f.sh", "python pretrain_gpt.py --num-layers 4 "
                                    "--tensor-model-parallel-size $TP_SIZE "
                                    "--pipeline-model-parallel-size ${TP} --seq-length $TP_SIZE",
                            &m, &err) == PB_OK);
    CHECK(strcmp(m.unresolved, "$TP_SIZE, $TP") == 0);
    CHECK(pb_megatron_parse("g.sh", "python pretrain_gpt.py --num-layers 4 "
                                    "--pipeline-model-parallel-size $TP "
                                    "--tensor-model-parallel-size $TP_SIZE --seq-length ${TP}",
                            &m, &err) == PB_OK);
    CHECK(strcmp(m.unresolved, "$TP, $TP_SIZE") == 0);
    /* issue 32: --kv-channels is the width of one head (Megatron's
     * arguments.py: hidden_size // num_attention_heads when not given),
     * parbench's head_dim; Mistral-NeMo's 32 heads of 128 on 5120 */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("h.sh", "--num-layers 40 --hidden-size 5120 --num-attention-heads 32 "
                                    "--group-query-attention --num-query-groups 8 "
                                    "--kv-channels 128",
                            &m, &err) == PB_OK);
    CHECK(strcmp(kv(&m, "head_dim"), "128") == 0 && m.unknown[0] == '\0');
}

/* how often needle occurs in hay */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* issue 28: what Megatron would refuse or read otherwise */
static void refusals(void)
{
    pb_megatron_t m;
    pb_err_t err;
    /* no Megatron argument at all: an empty file, a config.json */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("/dev/null", "", &m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "/dev/null: no Megatron-LM argument found", 40) == 0);
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("c.json", "{\"hidden_size\": 4096}\n", &m, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "not a launch script") != NULL);
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("u.sh", "python pretrain_gpt.py --frobnicate 3\n", &m, &err) ==
          PB_EINPUT);
    /* no parallel sizes: unsaid (0); the merge takes Megatron's default 1 */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("p.sh", "python pretrain_gpt.py --num-layers 4\n", &m, &err) == PB_OK);
    CHECK(m.tp == 0 && m.pp == 0 && m.cp == 0 && m.ep == 0 && m.zero == 0);
    /* the model's bounds, said with the script's argument */
    CHECK(pb_megatron_parse("h.sh", "--hidden-size 8589934592", &m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "h.sh: --hidden-size: hidden 8589934592 is above the bound 1048576",
                  65) == 0);
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("t.sh", "--tensor-model-parallel-size 99999999", &m, &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "t.sh: --tensor-model-parallel-size 99999999 is above the bound 16777216") ==
          0);
    /* Megatron-FSDP: the strategy is the ZeRO stage (param_and_grad_buffer.py:
     * optim shards the main weights, optim_grads the gradients too,
     * optim_grads_params the weights too); --use-megatron-fsdp's default
     * is optim_grads_params since Megatron-LM 3499efef */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("f.sh", "--num-layers 4 --use-custom-fsdp --use-distributed-optimizer "
                                    "--data-parallel-sharding-strategy optim_grads",
                            &m, &err) == PB_OK);
    CHECK(m.dist_opt == 1 && m.fsdp == 1 && m.zero == 2);
    CHECK(pb_megatron_parse("g.sh", "--num-layers 4 --use-megatron-fsdp", &m, &err) == PB_OK);
    CHECK(m.fsdp == 2 && m.zero == 3 && strstr(m.notes, "(Megatron's default for that flag)"));
    CHECK(pb_megatron_parse("d.sh", "--num-layers 4 --use-distributed-optimizer", &m, &err) ==
          PB_OK);
    CHECK(m.fsdp == 0 && m.zero == 1 && m.notes[0] == '\0');
    CHECK(pb_megatron_parse("x.sh", "--use-custom-fsdp --data-parallel-sharding-strategy zero9", &m,
                            &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "--data-parallel-sharding-strategy takes no_shard, optim") != NULL);
    /* read but not modelled: named once each, however often given */
    pb_err_clear(&err);
    CHECK(pb_megatron_parse("o.sh", "python pretrain_gpt.py --num-layers 4 --fp8-format hybrid "
                                    "--fp8-format hybrid --fp8-param-gather --tp-comm-overlap "
                                    "--tp-comm-overlap --use-distributed-optimizer",
                            &m, &err) == PB_OK);
    CHECK(count(m.no_counterpart, "--fp8-format") == 1);
    CHECK(count(m.no_counterpart, "--fp8-param-gather") == 1);
    CHECK(count(m.no_counterpart, "--tp-comm-overlap") == 1);
    CHECK(count(m.no_counterpart, "--overlap-grad-reduce absent") == 1);
    CHECK(count(m.no_counterpart, "--overlap-param-gather absent") == 1);
    CHECK(m.unknown[0] == '\0');
}

int main(void)
{
    script();
    rules();
    refusals();
    PB_TEST_END("megatron");
}
