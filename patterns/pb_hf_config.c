/* pb_hf_config.c - config.json through jansson into model (key, value)
 * pairs; see pb_hf_config.h for the field map and its sources. */
#include "pb_hf_config.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* the longest sequence taken from max_position_embeddings (see .h) */
#define PB_HF_SEQ_CAP 8192

static void put(pb_hf_config_t *c, const char *key, const char *value)
{
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->key[i], key) == 0) {
            snprintf(c->value[i], sizeof c->value[i], "%s", value);
            return;
        }
    if (c->n == PB_HF_MAX_KV)
        return;
    snprintf(c->key[c->n], sizeof c->key[0], "%s", key);
    snprintf(c->value[c->n++], sizeof c->value[0], "%s", value);
}

/* A whole number field: 1 found, 0 absent or null, -1 of another type. */
static int get_u64(json_t *root, const char *name, unsigned long long *v)
{
    json_t *x = json_object_get(root, name);
    if (x == NULL || json_is_null(x))
        return 0;
    if (!json_is_integer(x) || json_integer_value(x) < 0)
        return -1;
    *v = (unsigned long long)json_integer_value(x);
    return 1;
}

/* one more item of a comma-separated list in buf */
static void list_add(char *buf, size_t len, const char *item)
{
    size_t at = strlen(buf);
    snprintf(buf + at, len - at, "%s%s", at ? ", " : "", item);
}

static void note_unmodelled(pb_hf_config_t *c, const char *name, const char *value)
{
    size_t len = strlen(c->unmodelled);
    snprintf(c->unmodelled + len, sizeof c->unmodelled - len, "%s%s %s", len ? ", " : "", name,
             value);
}

/* the whole-number fields, in the order they are applied; the defaults
 * taken for absent ones are listed in assumed */
static int numbers(json_t *root, const char *path, pb_hf_config_t *c, char *assumed,
                   size_t alen, pb_err_t *err)
{
    static const char *const map[][2] = {
        {"num_hidden_layers", "layers"}, {"hidden_size", "hidden"},
        {"num_attention_heads", "heads"}, {"num_key_value_heads", "kv_heads"},
        {"head_dim", "head_dim"},         {"intermediate_size", "ffn"},
        {"vocab_size", "vocab"},
        {"num_local_experts", "experts"}, {"n_routed_experts", "experts"},
        {"num_experts", "experts"},       {"num_experts_per_tok", "topk"},
        {"moe_intermediate_size", "moe_ffn"}, {"moe_layer_freq", "moe_every"},
        {"decoder_sparse_step", "moe_every"}, {"max_position_embeddings", "seq"},
    };
    char buf[24];
    unsigned long long v, heads = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        int got = get_u64(root, map[i][0], &v);
        if (got < 0)
            return pb_err_set(err, PB_EINPUT, "%s: \"%s\" must be a whole number", path,
                              map[i][0]);
        if (got == 0)
            continue;
        if (strcmp(map[i][1], "seq") == 0 && v > PB_HF_SEQ_CAP) {
            snprintf(c->notes, sizeof c->notes,
                     "max_position_embeddings %llu taken as seq %d (give --seq)", v,
                     PB_HF_SEQ_CAP);
            v = PB_HF_SEQ_CAP;
        }
        if (strcmp(map[i][0], "num_attention_heads") == 0)
            heads = v;
        snprintf(buf, sizeof buf, "%llu", v);
        put(c, map[i][1], buf);
    }
    /* no num_key_value_heads: every head has its own K and V, as
     * transformers' LlamaConfig and MistralConfig take it (None:
     * num_attention_heads) */
    if (heads && get_u64(root, "num_key_value_heads", &v) == 0) {
        snprintf(buf, sizeof buf, "%llu", heads);
        put(c, "kv_heads", buf);
        list_add(assumed, alen, "kv_heads = heads (num_key_value_heads)");
    }
    /* no head_dim: hidden_size / num_attention_heads, as transformers
     * derives it (LlamaConfig, Qwen3Config: head_dim if not None else
     * hidden_size // num_attention_heads), which head_dim 0 means - not
     * the width of the model this one is read over */
    if (heads && get_u64(root, "head_dim", &v) == 0) {
        put(c, "head_dim", "0");
        list_add(assumed, alen, "head_dim = hidden / heads (head_dim)");
    }
    /* Mixtral: no moe_intermediate_size, its experts are intermediate_size wide */
    if (get_u64(root, "num_local_experts", &v) == 1 && get_u64(root, "intermediate_size", &v) == 1 &&
        get_u64(root, "moe_intermediate_size", &heads) == 0) {
        snprintf(buf, sizeof buf, "%llu", v);
        put(c, "moe_ffn", buf);
    }
    return PB_OK;
}

/* DeepSeek-style MoE: the shared experts' total width (DeepSeek-V2/V3
 * n_shared_experts x moe_intermediate_size, modeling_deepseek.py's
 * DeepseekV3MoE builds them as one MLP of that width; Qwen2-MoE one
 * shared expert of shared_expert_intermediate_size) and the leading
 * dense layers (first_k_dense_replace) */
static int shared_and_dense(json_t *root, const char *path, pb_hf_config_t *c, pb_err_t *err)
{
    static const char *const names[] = {"shared_expert_intermediate_size", "n_shared_experts",
                                        "first_k_dense_replace"};
    unsigned long long v[3] = {0, 0, 0}, mi = 0;
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (get_u64(root, names[i], &v[i]) < 0)
            return pb_err_set(err, PB_EINPUT, "%s: \"%s\" must be a whole number", path,
                              names[i]);
    char buf[24];
    unsigned long long shared = v[0];
    if (shared == 0 && v[1] > 0 && get_u64(root, "moe_intermediate_size", &mi) == 1)
        shared = v[1] * mi;
    if (shared > 0) {
        snprintf(buf, sizeof buf, "%llu", shared);
        put(c, "shared_ffn", buf);
    }
    if (v[2] > 0) {
        snprintf(buf, sizeof buf, "%llu", v[2]);
        put(c, "dense_first", buf);
    }
    return PB_OK;
}

/* Whether the MLP is gated (gate, up and down matrices: three, not two),
 * by the family first, as transformers' modeling files build it:
 * LlamaMLP, MistralMLP, Qwen2MLP, Qwen3MLP, DeepseekV3MLP, GemmaMLP,
 * Gemma2MLP and Gemma3MLP have gate_proj, up_proj and down_proj (Gemma's
 * is GeGLU: gelu_pytorch_tanh on the gate), Mixtral's experts w1, w3 and
 * w2, Phi3MLP a fused gate_up_proj; GPT-2's, GPTBigCode's and
 * StarCoder2's (c_fc, c_proj), GPT-J's (fc_in, fc_out), GPT-NeoX's,
 * Falcon's and BLOOM's (dense_h_to_4h, dense_4h_to_h), OPT's and Phi's
 * (fc1, fc2) have two, whatever their activation.  A
 * family in neither list by its activation: silu (SwiGLU) gated, any
 * other not; hidden_activation (Gemma's name) before hidden_act.  NULL:
 * the config says neither. */
static const char *gated(json_t *root)
{
    static const char *const two[] = {"gpt2", "gpt_neox", "gptj", "falcon", "opt",
                                      "bloom", "phi", "starcoder2", "gpt_bigcode"};
    static const char *const three[] = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe",
                                        "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3",
                                        "gemma", "gemma2", "gemma3", "gemma3_text", "phi3"};
    const char *type = json_string_value(json_object_get(root, "model_type"));
    for (size_t i = 0; type && i < sizeof two / sizeof two[0]; i++)
        if (strcmp(type, two[i]) == 0)
            return "0";
    for (size_t i = 0; type && i < sizeof three / sizeof three[0]; i++)
        if (strcmp(type, three[i]) == 0)
            return "1";
    const char *act = json_string_value(json_object_get(root, "hidden_activation"));
    if (act == NULL)
        act = json_string_value(json_object_get(root, "hidden_act"));
    if (act == NULL)
        return NULL;
    return strcmp(act, "silu") == 0 || strcmp(act, "swiglu") == 0 ? "1" : "0";
}

/* strings and flags: activation, dtype, and what parbench does not model;
 * the sequence and the type a file does not give stay the preset's, and
 * are listed in assumed */
static void others(json_t *root, pb_hf_config_t *c, char *assumed, size_t alen)
{
    const char *g = gated(root);
    if (g)
        put(c, "gated", g);
    const char *dt = json_string_value(json_object_get(root, "torch_dtype"));
    int has_dt = dt && (strcmp(dt, "bfloat16") == 0 || strcmp(dt, "float16") == 0 ||
                        strcmp(dt, "float32") == 0);
    if (has_dt)
        put(c, "dtype", strcmp(dt, "bfloat16") == 0 ? "bf16" : strcmp(dt, "float16") == 0 ? "fp16"
                                                                                          : "fp32");
    unsigned long long v;
    int has_seq = get_u64(root, "max_position_embeddings", &v) == 1;
    if (!has_seq || !has_dt)
        list_add(assumed, alen,
                 !has_seq && !has_dt ? "seq and dtype the preset's (max_position_embeddings, "
                                       "torch_dtype)"
                 : !has_seq          ? "seq the preset's (max_position_embeddings)"
                                     : "dtype the preset's (torch_dtype)");
    static const char *const unmodelled[] = {"q_lora_rank", "kv_lora_rank", "sliding_window"};
    char buf[24];
    for (size_t i = 0; i < sizeof unmodelled / sizeof unmodelled[0]; i++)
        if (get_u64(root, unmodelled[i], &v) == 1 && v > 0) {
            snprintf(buf, sizeof buf, "%llu", v);
            note_unmodelled(c, unmodelled[i], buf);
        }
    /* absent, the family's own default: transformers' GemmaConfig,
     * Gemma2Config and Gemma3TextConfig tie (tie_word_embeddings=True),
     * PretrainedConfig and the others do not */
    json_t *tie = json_object_get(root, "tie_word_embeddings");
    const char *type = json_string_value(json_object_get(root, "model_type"));
    if (tie ? json_is_true(tie) : type != NULL && strncmp(type, "gemma", sizeof "gemma" - 1) == 0)
        note_unmodelled(c, "tie_word_embeddings", tie ? "true" : "true (the family's default)");
}

/* The keys that define the model (issue 50): the layers, the width, the
 * heads, the MLP's width and kind, the vocabulary.  A file without one of
 * them is not that model whatever preset it is read over, so it is
 * refused by their names rather than filled in. */
static int require(json_t *root, const char *path, pb_err_t *err)
{
    static const char *const need[] = {"num_hidden_layers", "hidden_size", "num_attention_heads",
                                       "intermediate_size", "vocab_size"};
    char miss[200] = "";
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        json_t *x = json_object_get(root, need[i]);
        if (x == NULL || json_is_null(x))
            list_add(miss, sizeof miss, need[i]);
    }
    if (gated(root) == NULL)
        list_add(miss, sizeof miss, "model_type (or hidden_act)");
    if (miss[0] == '\0')
        return PB_OK;
    return pb_err_set(err, PB_EINPUT,
                      "%s: the keys that define the model are missing: %s (parbench fills none "
                      "of them in: give a complete config.json, or the model as flags)",
                      path, miss);
}

int pb_hf_config_read(const char *path, pb_hf_config_t *c, pb_err_t *err)
{
    memset(c, 0, sizeof *c);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (root == NULL)
        return je.line > 0 ? pb_err_set(err, PB_EINPUT, "%s:%d: not JSON: %s", path, je.line,
                                        je.text)
                           : pb_err_set(err, PB_EINPUT, "cannot read '%s': %s", path, je.text);
    int code = PB_OK;
    char assumed[240] = "";
    if (!json_is_object(root))
        code = pb_err_set(err, PB_EINPUT, "%s: not a config.json (no JSON object)", path);
    if (code == PB_OK)
        code = numbers(root, path, c, assumed, sizeof assumed, err);
    if (code == PB_OK)
        code = shared_and_dense(root, path, c, err);
    if (code == PB_OK)
        others(root, c, assumed, sizeof assumed);
    if (code == PB_OK && c->n == 0)
        code = pb_err_set(err, PB_EINPUT, "%s: no model field found (num_hidden_layers, "
                          "hidden_size, ...): not a Hugging Face config.json?", path);
    if (code == PB_OK)
        code = require(root, path, err);
    json_decref(root);
    if (code == PB_OK && assumed[0]) {
        size_t at = strlen(c->notes);
        snprintf(c->notes + at, sizeof c->notes - at, "%sassumed (absent from the file): %s",
                 at ? "; " : "", assumed);
    }
    return code;
}

int pb_hf_config_apply(const pb_hf_config_t *c, const char *path, pb_model_t *m, pb_err_t *err)
{
    snprintf(m->name, sizeof m->name, "%.47s", path);
    for (int i = 0; i < c->n; i++) {
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_model_set(m, c->key[i], c->value[i], &e) != PB_OK)
            return pb_err_set(err, PB_EINPUT, "%s: %s", path, e.msg);
    }
    return PB_OK;
}
