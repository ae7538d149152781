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
    CHECK(strcmp(m.unknown, "--use-custom-fsdp") == 0);
    CHECK(strstr(m.no_counterpart, "--recompute-method") != NULL);
    CHECK(strstr(m.no_counterpart, "--overlap-param-gather absent") != NULL);
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
}

int main(void)
{
    script();
    rules();
    PB_TEST_END("megatron");
}
