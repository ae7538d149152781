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
    CHECK(pb_model_set(&m, "seq", "99999999999", &err) == PB_OK && m.seq == UINT64_C(99999999999));
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
    test_file();
    PB_TEST_END("unit_patterns_model");
}
