/* --hf-config: config.json files of four families into the model.  The
 * expected fields are the files' own numbers (tests/fixtures/hf, written
 * after the published configs); Llama 3 70B must come out as the
 * llama3-70b preset, whose numbers come from the Llama 3 paper. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"
#include "patterns/pb_hf_config.h"

#define DIR PB_SOURCE_DIR "/tests/fixtures/hf/"

static int load(const char *path, pb_model_t *m, pb_hf_config_t *c, pb_err_t *err)
{
    pb_err_clear(err);
    if (pb_model_preset("tiny", m, err) != PB_OK || pb_hf_config_read(path, c, err) != PB_OK)
        return err->code;
    return pb_hf_config_apply(c, path, m, err);
}

int main(void)
{
    pb_model_t m, p;
    pb_hf_config_t c;
    pb_err_t err;

    CHECK(load(DIR "llama3-70b.json", &m, &c, &err) == PB_OK);
    CHECK(pb_model_preset("llama3-70b", &p, &err) == PB_OK);
    CHECK(m.layers == 80 && m.hidden == 8192 && m.heads == 64 && m.kv_heads == 8);
    CHECK(m.ffn == 28672 && m.vocab == 128256 && m.seq == 8192 && m.gated == 1);
    CHECK(m.experts == 0 && m.dtype == PB_BF16 && c.unmodelled[0] == '\0');
    CHECK(pb_model_params(&m) == pb_model_params(&p)); /* the preset's 70.6 B */

    CHECK(load(DIR "mixtral-8x7b.json", &m, &c, &err) == PB_OK);
    CHECK(m.experts == 8 && m.topk == 2 && m.moe_ffn == 14336 && m.kv_heads == 8);
    CHECK(m.seq == 8192); /* 32768 capped: not a pretraining length */
    CHECK(strstr(c.notes, "max_position_embeddings 32768 taken as seq 8192") != NULL);
    CHECK(pb_model_preset("mixtral-8x7b", &p, &err) == PB_OK);
    CHECK(m.layers == p.layers && m.hidden == p.hidden && m.ffn == p.ffn);

    CHECK(load(DIR "deepseek-v3.json", &m, &c, &err) == PB_OK);
    CHECK(m.experts == 256 && m.topk == 8 && m.moe_ffn == 2048 && m.moe_every == 1);
    CHECK(m.layers == 61 && m.hidden == 7168 && m.heads == 128 && m.vocab == 129280);
    /* the fixture's n_shared_experts 1 x moe_intermediate_size 2048 and
     * first_k_dense_replace 3 */
    CHECK(m.shared_ffn == 2048 && m.dense_first == 3);
    CHECK(strcmp(c.unmodelled, "q_lora_rank 1536, kv_lora_rank 512") == 0);

    CHECK(load(DIR "qwen2-moe.json", &m, &c, &err) == PB_OK);
    CHECK(m.experts == 64 && m.topk == 8 && m.moe_ffn == 2560 && m.kv_heads == 4);
    CHECK(m.shared_ffn == 20480 && m.dense_first == 0); /* shared_expert_intermediate_size */

    CHECK(load(DIR "bad-type.json", &m, &c, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "\"num_hidden_layers\" must be a whole number") != NULL);
    CHECK(load(DIR "truncated.json", &m, &c, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "truncated.json:4: not JSON") != NULL);
    /* the config's numbers reach the model through pb_model_set, whose
     * bounds name the file and the field */
    {
        char path[64];
        snprintf(path, sizeof path, "hf-big-%ld.json", (long)getpid());
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fputs("{\"num_hidden_layers\": 4, \"hidden_size\": 8589934592, "
                  "\"num_attention_heads\": 16}\n", f);
            fclose(f);
            CHECK(load(path, &m, &c, &err) == PB_EINPUT);
            CHECK(strstr(err.msg, ": hidden 8589934592 is above the bound 1048576") != NULL);
            remove(path);
        }
    }
    PB_TEST_END("hf_config");
}
