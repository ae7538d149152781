/* test_patterns_model.c - patterns/pb_model: presets against their
 * published sizes, overrides by name, and model files with errors that
 * name the file and line. */
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
    test_file();
    PB_TEST_END("unit_patterns_model");
}
