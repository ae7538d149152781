/* test_model_inputs.c - issue 50: model inputs read as meant.  A model
 * typed by its shape keeps every flag (no --size rule), a partial
 * config.json is refused by the names of its missing keys, a pipeline
 * that does not split says the real numbers and what would split it,
 * and `parbench model --gpus N` without a layout gives dp every GPU.
 * Every number is worked by hand in the comment beside it. */
#include "bench/cli/pb_options.h"
#include "bench/cmd/pb_cmd_model.h"
#include "bench/glue/pb_pattern_plan.h"
#include "patterns/pb_hf_config.h"
#include "patterns/pb_stages.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"

static int parse_v(char **argv, pb_options_t *o, pb_err_t *err)
{
    int argc = 0;
    while (argv[argc] != NULL)
        argc++;
    pb_err_clear(err);
    return pb_cli_parse(argc, argv, o, err);
}
#define PARSE(o, err, ...) parse_v((char *[]){"parbench", __VA_ARGS__, NULL}, o, err)

/* GPT-3 175B typed by its shape (Brown et al. 2020, Table 2.1: 96 layers,
 * d_model 12288, 96 heads, d_ff = 4 d_model = 49152, context 2048; vocab
 * 51200 as the issue types it).  GPT-3 has full attention and a plain
 * MLP, so by pb_model.h's count a layer is
 *   attention: Q, O, K, V each 12288 x (96 x 128) = h^2: 4h^2 = 603,979,776
 *   MLP: 2 x h x 4h = 8h^2 = 1,207,959,552;  norms 2h = 24,576
 *   = 1,811,963,904;  x 96 = 173,948,534,784
 * plus the untied embeddings 2 x 51200 x 12288 = 1,258,291,200 and the
 * final norm 12288: 175,206,838,272 = 175.21 B, 0.12 % above the paper's
 * 175.0 B (which ties the embeddings and counts biases).  The --size
 * rule's reading (8 KV heads, SwiGLU) made it 206.61 B. */
static void test_typed_gpt3(void)
{
    pb_options_t o;
    pb_err_t err;
    CHECK(PARSE(&o, &err, "model", "--layers", "96", "--hidden", "12288", "--heads", "96",
                "--ffn", "49152", "--vocab", "51200", "--seq", "2048", "--tp", "8", "--pp", "16",
                "--gpus", "1024", "--hw", "a100", "--gbs", "1536") == PB_OK);
    pb_pattern_plan_t p;
    CHECK(pb_pattern_plan(&o.model, 0, 1024, 0, &p, &err) == PB_OK);
    CHECK(p.size_rule == 0);
    CHECK(p.model.layers == 96 && p.model.hidden == 12288 && p.model.heads == 96);
    CHECK(p.model.kv_heads == 96 && p.model.gated == 0 && p.model.ffn == 49152);
    CHECK(p.model.vocab == 51200 && p.model.seq == 2048 && p.model.gbs == 1536);
    CHECK(pb_model_params(&p.model) == UINT64_C(175206838272));
    pb_pattern_plan_free(&p);

    /* --gated and --kv-heads are the user's to give: SwiGLU over the same
     * ffn, 8 KV heads.  A layer: Q and O h^2 each, K and V h x (8 x 128) =
     * 12,582,912 each: 327,155,712; MLP 3 x h x 49152 = 1,811,939,328;
     * norms 24,576: 2,139,119,616; x 96 = 205,355,483,136, + 1,258,303,488
     * = 206,613,786,624 (the old reading, now only when asked for) */
    CHECK(PARSE(&o, &err, "model", "--layers", "96", "--hidden", "12288", "--heads", "96",
                "--kv-heads", "8", "--gated", "--ffn", "49152", "--vocab", "51200", "--seq",
                "2048", "--tp", "8", "--gpus", "8") == PB_OK);
    CHECK(pb_pattern_plan(&o.model, 0, 8, 0, &p, &err) == PB_OK);
    CHECK(p.model.kv_heads == 8 && p.model.gated == 1);
    CHECK(pb_model_params(&p.model) == UINT64_C(206613786624));
    pb_pattern_plan_free(&p);

    /* --heads alone over the default model: full attention (kv = heads),
     * not tiny's 16 KV heads as a GQA of groups of 2 */
    CHECK(PARSE(&o, &err, "model", "--heads", "32", "--tp", "1", "--gpus", "1") == PB_OK);
    CHECK(pb_pattern_plan(&o.model, 0, 1, 0, &p, &err) == PB_OK);
    CHECK(p.model.heads == 32 && p.model.kv_heads == 32);
    pb_pattern_plan_free(&p);
}

/* `parbench model --gpus 64` with no layout flag: dp is what tp 1, cp 1
 * and pp 1 leave of 64, as the help says: 64 */
static void test_dp_default(void)
{
    pb_options_t o;
    pb_err_t err;
    CHECK(PARSE(&o, &err, "model", "--preset", "llama3-8b", "--gpus", "64") == PB_OK);
    pb_job_t j;
    memset(&j, 0, sizeof j);
    CHECK(pb_model_job(&o, &j, &err) == PB_OK);
    CHECK(j.layout.size[PB_DIM_DP] == 64 && j.layout.size[PB_DIM_TP] == 1 &&
          j.layout.size[PB_DIM_PP] == 1 && j.layout.size[PB_DIM_CP] == 1);
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* A config.json without the keys that define the model is refused by
 * their names; the tiny preset never fills them in. */
static void test_hf_partial(void)
{
    char path[64];
    snprintf(path, sizeof path, "hf-partial-%ld.json", (long)getpid());
    CHECK(write_file(path, "{\"hidden_size\": 4096}\n") == 0);
    pb_hf_config_t c;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_hf_config_read(path, &c, &err) == PB_EINPUT);
    char want[256];
    snprintf(want, sizeof want,
             "%s: the keys that define the model are missing: num_hidden_layers, "
             "num_attention_heads, intermediate_size, vocab_size, model_type (or hidden_act)",
             path);
    CHECK(strncmp(err.msg, want, strlen(want)) == 0);
    if (strncmp(err.msg, want, strlen(want)) != 0)
        fprintf(stderr, "got: %s\n", err.msg);
    /* the defining keys all there: read; num_key_value_heads (transformers:
     * = num_attention_heads), max_position_embeddings and torch_dtype
     * absent are named as assumed */
    CHECK(write_file(path, "{\"model_type\": \"llama\", \"num_hidden_layers\": 2, "
                           "\"hidden_size\": 256, \"num_attention_heads\": 4, "
                           "\"intermediate_size\": 512, \"vocab_size\": 1000}\n") == 0);
    pb_err_clear(&err);
    CHECK(pb_hf_config_read(path, &c, &err) == PB_OK);
    CHECK(strcmp(c.notes, "assumed (absent from the file): kv_heads = heads "
                          "(num_key_value_heads), head_dim = hidden / heads (head_dim), seq "
                          "and dtype the preset's (max_position_embeddings, torch_dtype)") == 0);
    remove(path);
}

static void refused_with(const pb_model_t *m, int pp, int vp, const char *want, int line)
{
    pb_stages_t st;
    pb_err_t err;
    pb_err_clear(&err);
    int rc = pb_stages_split(m, pp, vp, &st, &err);
    if (rc != PB_EINPUT || strcmp(err.msg, want) != 0) {
        fprintf(stderr, "line %d: want '%s'\n             got rc %d '%s'\n", line, want, rc,
                err.msg);
        pb_test_failures++;
    }
}

/* The stage split's refusals say the real numbers and what would split. */
static void test_stage_messages(void)
{
    pb_model_t m;
    pb_err_t err;
    /* Llama 3 405B's preset with --layers 128: the preset's pp_trim 2 makes
     * 128 + 2 = 130 layer slots, and 130 / 16 is not whole.  Without the
     * trim 128 / 16 = 8 a stage; keeping it, 126 + 2 = 128 = 16 x 8 and
     * 142 + 2 = 144 = 16 x 9 split */
    CHECK(pb_model_preset("llama3-405b", &m, &err) == PB_OK);
    m.layers = 128;
    refused_with(&m, 16, 1,
                 "128 layers + 2 (pp_trim: end stages lighter, the embedding and the loss "
                 "counted as layer slots) = 130 are not divisible by pp x vp = 16: --pp-trim 0 "
                 "splits the 128 evenly (8 a stage); --layers 126 or 142 keeps the lighter ends",
                 __LINE__);
    /* DeepSeek-V3's 61 layers on 16 stages: 61 is prime.  Uneven ends:
     * 4 on each of the 14 between = 56, the 5 left as 2 first (the
     * embedding's stage lighter, as pp_trim's rounding) and 3 last */
    CHECK(pb_model_preset("deepseek-v3", &m, &err) == PB_OK);
    refused_with(&m, 16, 1,
                 "layers 61 are not divisible by pp x vp = 16: give the end stages their own "
                 "counts, e.g. --pp-first 2 --pp-last 3 (4 on each stage between)",
                 __LINE__);
    /* and the suggestion splits: 2 + 14 x 4 + 3 = 61 */
    m.pp_first = 2, m.pp_last = 3;
    pb_stages_t st;
    CHECK(pb_stages_split(&m, 16, 1, &st, &err) == PB_OK && st.first == 2 && st.mid == 4 &&
          st.last == 3);
}

int main(void)
{
    test_typed_gpt3();
    test_dp_default();
    test_hf_partial();
    test_stage_messages();
    PB_TEST_END("unit_model_inputs");
}
