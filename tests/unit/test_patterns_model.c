/* test_patterns_model.c - patterns/pb_model: presets against their
 * published sizes, overrides by name, the --size rule against the Llama 3
 * models it is drawn from, and model files with errors that name the file
 * and line. */
#include "patterns/pb_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pb_test.h"

static void test_presets(void)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    /* published totals: Llama 2 7B 6,738,415,616 (the checkpoint's count),
     * 70B 68,976,648,192; Llama 3 8B 8,030,261,248 */
    CHECK(pb_model_preset("llama2-7b", &m, &err) == PB_OK);
    CHECK(pb_model_params(&m) == UINT64_C(6738415616));
    CHECK(pb_model_preset("llama2-70b", &m, &err) == PB_OK);
    CHECK(pb_model_params(&m) == UINT64_C(68976648192));
    CHECK(pb_model_preset("llama3-8b", &m, &err) == PB_OK);
    CHECK(pb_model_params(&m) == UINT64_C(8030261248));
    /* the design notes' example */
    CHECK(pb_model_preset("example-70b", &m, &err) == PB_OK);
    CHECK(m.layers == 80 && m.hidden == 8192 && m.seq == 4096);
    for (int i = 0; pb_model_preset_name(i); i++) {
        CHECK(pb_model_preset(pb_model_preset_name(i), &m, &err) == PB_OK);
        CHECK(pb_model_check(&m, &err) == PB_OK);
    }
    CHECK(pb_model_preset("gpt-5", &m, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "unknown model preset 'gpt-5'") != NULL);
}

static void test_set(void)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    CHECK(pb_model_set(&m, "size", "2048", &err) == PB_OK && m.hidden == 2048);
    CHECK(pb_model_set(&m, "kv-heads", "4", &err) == PB_OK && m.kv_heads == 4);
    CHECK(pb_model_set(&m, "kv_heads", "8", &err) == PB_OK && m.kv_heads == 8);
    CHECK(pb_model_set(&m, "dtype", "fp32", &err) == PB_OK && m.dtype == PB_F32);
    /* every size has an upper bound (pb_model.c says why each): past it,
     * one line naming the field, the value and the bound */
    CHECK(pb_model_set(&m, "seq", "99999999999", &err) == PB_EINPUT && m.seq == 512);
    CHECK(strcmp(err.msg, "seq 99999999999 is above the bound 16777216 (2^24 = 16M tokens; the "
                          "longest real context: Llama 4 Scout's 10M)") == 0);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "hidden", "8589934592", &err) == PB_EINPUT && m.hidden == 2048);
    CHECK(strncmp(err.msg, "hidden 8589934592 is above the bound 1048576 (", 46) == 0);
    pb_err_clear(&err);
    /* past 2^64 (strtoull's ERANGE) is above the bound too, not "bad" */
    CHECK(pb_model_set(&m, "vocab", "99999999999999999999999", &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "vocab 99999999999999999999999 is above the bound 16777216", 57) == 0);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "topk", "1025", &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "topk 1025 is above the bound 1024", 33) == 0);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "seq", "16777216", &err) == PB_OK && m.seq == 16777216);
    CHECK(pb_model_set(&m, "seq", "512", &err) == PB_OK);
    CHECK(pb_model_set(&m, "layers", "0", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "bad value '0' for layers") != NULL);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "layers", "-4", &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "dtype", "fp8", &err) == PB_EINPUT);
    pb_err_clear(&err);
    CHECK(pb_model_set(&m, "hiden", "4", &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "unknown key 'hiden'") != NULL);
    pb_err_clear(&err);
    m.heads = 3;
    m.hidden = 2048;
    CHECK(pb_model_check(&m, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "hidden 2048 is not divisible by heads 3") != NULL);
}

/* A dense model at the width bounds: hidden 2^20 (1024 heads of 1024),
 * ffn 2^22, vocab 2^24, not gated.  By hand (pb_model.h's count): a
 * layer is 4h^2 + 2 h ffn + 2h = 2^42 + 2^43 + 2^21 = 13194141630464;
 * the embeddings 2 vocab h = 2^45 = 35184372088832 and the final norm
 * 2^20.  64 layers: 64 * 13194141630464 + 35184372088832 + 1048576 =
 * 879609437487104, under the 2^50 = 1125899906842624 parameter bound;
 * 128 layers, 1724034501836800, are above it. */
static void test_bounds(void)
{
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    m.hidden = UINT64_C(1) << 20;
    m.heads = m.kv_heads = 1024;
    m.ffn = UINT64_C(1) << 22;
    m.vocab = UINT64_C(1) << 24;
    m.gated = 0;
    m.layers = 64;
    CHECK(pb_model_check(&m, &err) == PB_OK);
    CHECK(pb_model_dense_layer_params(&m) == UINT64_C(13194141630464));
    CHECK(pb_model_params(&m) == UINT64_C(879609437487104));
    m.layers = 128;
    CHECK(pb_model_check(&m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "1.72e+15 parameters are above the bound 1125899906842624", 56) == 0);
    /* a size set directly (a preset, --size's derived ffn) is checked too */
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    m.ffn = UINT64_C(1) << 23;
    CHECK(pb_model_check(&m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "ffn 8388608 is outside 1..4194304 (", 35) == 0);
    /* tokens of a micro-batch: 4 x 2^24 = 2^26 is the bound, 8 x 2^24 past */
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    m.seq = UINT64_C(1) << 24;
    m.mbs = 4;
    CHECK(pb_model_check(&m, &err) == PB_OK);
    m.mbs = 8;
    CHECK(pb_model_check(&m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "a micro-batch of mbs 8 x seq 16777216 = 134217728 tokens is above "
                           "the bound 67108864", 84) == 0);
    /* the query width: 2^16 heads of 32 = 2^21, past hidden's 2^20 */
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    m.heads = m.kv_heads = UINT64_C(1) << 16;
    m.head_dim = 32;
    CHECK(pb_model_check(&m, &err) == PB_EINPUT);
    CHECK(strncmp(err.msg, "heads 65536 x head_dim 32 = 2097152 is above the bound 1048576", 62) == 0);
}

/* The --size rule against the models it is drawn from.  Meta-Llama-3-8B's
 * config.json (huggingface.co/meta-llama/Meta-Llama-3-8B): hidden_size
 * 4096, num_attention_heads 32, num_key_value_heads 8, intermediate_size
 * 14336, vocab_size 128256, max_position_embeddings 8192, 32 layers;
 * Meta-Llama-3-70B's: 8192, 64, 8, 28672, 128256, 8192, 80 layers (also
 * Dubey et al. 2024, arXiv 2407.21783, Table 3). */
static void test_family(void)
{
    pb_model_t m, preset;
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_model_family_llama(4096, 0, &m, &err) == PB_OK);
    CHECK(m.hidden == 4096 && m.heads == 32 && m.kv_heads == 8 && m.ffn == 14336);
    CHECK(m.vocab == 128256 && m.seq == 8192 && m.gated == 1 && m.dtype == PB_BF16);
    CHECK(m.layers == 4 && m.mbs == 1 && m.gbs == 0 && m.experts == 0);
    CHECK(strcmp(m.name, "llama-style") == 0 && pb_model_check(&m, &err) == PB_OK);
    /* at the real depth it is Llama 3 8B: 8,030,261,248 parameters, the
     * published count test_presets checks for the preset */
    m.layers = 32;
    CHECK(pb_model_params(&m) == UINT64_C(8030261248));
    CHECK(pb_model_family_llama(8192, 0, &m, &err) == PB_OK);
    CHECK(m.hidden == 8192 && m.heads == 64 && m.kv_heads == 8 && m.ffn == 28672);
    CHECK(m.vocab == 128256 && m.seq == 8192 && m.gated == 1);
    /* Llama 3 70B at 80 layers, by hand: a layer 2h^2 + 2h x 8 x 128 +
     * 3 h ffn + 2h = 134217728 + 16777216 + 704643072 + 16384 =
     * 855654400; x 80 = 68452352000; embeddings 2 x 128256 x 8192 =
     * 2101346304; final norm 8192: 70553706496 (the 70.6 B of the model
     * card), the preset's count too */
    m.layers = 80;
    CHECK(pb_model_params(&m) == UINT64_C(70553706496));
    CHECK(pb_model_preset("llama3-70b", &preset, &err) == PB_OK);
    CHECK(pb_model_params(&preset) == pb_model_params(&m));
    /* 405B is not on the rule: 3.5 x 16384 = 57344, its ffn 53248 (3.25 h) */
    CHECK(pb_model_family_llama(16384, 0, &m, &err) == PB_OK);
    CHECK(m.heads == 128 && m.kv_heads == 8 && m.ffn == 57344);
    /* an odd multiple of 128: 3 heads, gcd(3, 8) = 1 KV head, 3.5 x 384 =
     * 1344 rounded up to 1536; 10 heads: gcd 2, 4480 up to 4608 */
    CHECK(pb_model_family_llama(384, 0, &m, &err) == PB_OK);
    CHECK(m.heads == 3 && m.kv_heads == 1 && m.ffn == 1536);
    CHECK(pb_model_family_llama(1280, 0, &m, &err) == PB_OK);
    CHECK(m.heads == 10 && m.kv_heads == 2 && m.ffn == 4608);
    /* not a multiple of 128: refused, unless the heads are given (3.5 x
     * 1000 = 3500, up to 3584; gcd(8, 8) = 8 KV heads) */
    CHECK(pb_model_family_llama(1000, 0, &m, &err) == PB_EINPUT);
    CHECK(strcmp(err.msg, "hidden 1000 is not a multiple of the head size 128") == 0);
    pb_err_clear(&err);
    CHECK(pb_model_family_llama(1000, 8, &m, &err) == PB_OK);
    CHECK(m.heads == 8 && m.kv_heads == 8 && m.ffn == 3584 && pb_model_check(&m, &err) == PB_OK);
    CHECK(pb_model_family_llama(0, 0, &m, &err) == PB_EINPUT);
    pb_err_clear(&err);
    /* the real depths the header names (Table 3) */
    const char *name = "x";
    CHECK(pb_model_family_llama_layers(8192, &name) == 80 && strcmp(name, "Llama 3 70B") == 0);
    CHECK(pb_model_family_llama_layers(4096, &name) == 32 && strcmp(name, "Llama 3 8B") == 0);
    CHECK(pb_model_family_llama_layers(16384, &name) == 126);
    CHECK(pb_model_family_llama_layers(1024, &name) == 0 && name == NULL);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void load_refused(const char *text, const char *needle, int line)
{
    char path[64];
    snprintf(path, sizeof path, "model-%ld-%d.txt", (long)getpid(), line);
    write_file(path, text);
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    int rc = pb_model_load(path, &m, &err);
    char want[160];
    snprintf(want, sizeof want, "%s%s", path, needle);
    if (rc != PB_EINPUT || strstr(err.msg, want) == NULL) {
        fprintf(stderr, "line %d: want '%s', got rc %d '%s'\n", line, want, rc, err.msg);
        pb_test_failures++;
    }
    remove(path);
}

static void test_file(void)
{
    char path[64];
    snprintf(path, sizeof path, "model-%ld.txt", (long)getpid());
    write_file(path, "# a 1.3B-ish model\n\nlayers = 24\n  hidden=2048  # d_model\n"
                     "heads = 16\nkv_heads = 16\nffn = 8192\ndtype = fp16\nexperts = 0\n");
    pb_model_t m;
    pb_err_t err;
    pb_err_clear(&err);
    pb_model_preset("tiny", &m, &err);
    CHECK(pb_model_load(path, &m, &err) == PB_OK);
    CHECK(m.layers == 24 && m.hidden == 2048 && m.ffn == 8192 && m.dtype == PB_F16);
    CHECK(m.seq == 512); /* untouched: the preset's */
    remove(path);

    load_refused("layers = 4\nhidden = 64\nhiden = 3\n", ":3: unknown key 'hiden'", __LINE__);
    load_refused("\nlayers = four\n", ":2: bad value 'four' for layers", __LINE__);
    /* a model file's sizes go through the same bounds */
    load_refused("seq = 99999999999\n", ":1: seq 99999999999 is above the bound 16777216", __LINE__);
    load_refused("layers 4\n", ":1: expected 'key = value'", __LINE__);
    load_refused("layers =\n", ":1: expected 'key = value'", __LINE__);
    load_refused("# ok\ndtype = int3\n", ":2: bad value 'int3' for dtype", __LINE__);
    CHECK(pb_model_load("/nonexistent/model.txt", &m, &err) == PB_EINPUT);
    CHECK(strstr(err.msg, "cannot read model file '/nonexistent/model.txt'") != NULL);
}

int main(void)
{
    test_presets();
    test_set();
    test_bounds();
    test_family();
    test_file();
    PB_TEST_END("unit_patterns_model");
}
