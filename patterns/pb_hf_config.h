/* pb_hf_config.h - a Hugging Face config.json as model fields.
 *
 * The file becomes the same (key, value) pairs a model file or the
 * command line gives (pb_model_set), so a config, a model file and flags
 * are one path: preset, then --hf-config, then --model-file, then flags,
 * each over the one before (explicit flags win).
 *
 * Read (Llama, Mistral, Mixtral, Qwen2/3, Qwen2-MoE, DeepSeek-V2/V3,
 * Gemma 1-3):
 *   num_hidden_layers -> layers        hidden_size -> hidden
 *   num_attention_heads -> heads       num_key_value_heads -> kv_heads
 *       (absent: = heads, multi-head attention)
 *   head_dim -> head_dim: Q, K and V are heads (kv_heads) x head_dim
 *       wide (Qwen3, Mistral-NeMo, Gemma: not hidden / heads; absent:
 *       hidden / heads, head_dim 0)
 *   intermediate_size -> ffn           vocab_size -> vocab
 *   max_position_embeddings -> seq, at most 8192 (the long-context
 *       extensions, 32768 and more, are not the length pretraining runs
 *       at: give --seq for yours)
 *   model_type -> gated: Llama, Mistral, Mixtral, Qwen2/3, DeepSeek,
 *       Gemma (GeGLU), Phi-3 1; GPT-2, GPT-NeoX, Falcon, OPT, Phi,
 *       StarCoder2 0; another family by hidden_activation, else
 *       hidden_act: silu / swiglu 1 (gelu, relu: 0) - pb_hf_config.c
 *   num_local_experts (Mixtral) | n_routed_experts (DeepSeek) |
 *       num_experts (Qwen2-MoE) -> experts
 *   num_experts_per_tok -> topk
 *   moe_intermediate_size -> moe_ffn (Mixtral: its experts are
 *       intermediate_size wide)
 *   moe_layer_freq (DeepSeek) | decoder_sparse_step (Qwen2-MoE) -> moe_every
 *   shared_expert_intermediate_size (Qwen2-MoE) | n_shared_experts x
 *       moe_intermediate_size (DeepSeek) -> shared_ffn
 *   first_k_dense_replace (DeepSeek) -> dense_first
 *   torch_dtype bfloat16 / float16 / float32 -> dtype
 * Read and named as not modelled (parbench's model has no field for
 * them yet): tie_word_embeddings true, q_lora_rank / kv_lora_rank
 * (DeepSeek's latent attention), sliding_window. */
#ifndef PB_HF_CONFIG_H
#define PB_HF_CONFIG_H

#include "pb_model.h"

#define PB_HF_MAX_KV 24

typedef struct pb_hf_config {
    char key[PB_HF_MAX_KV][16];
    char value[PB_HF_MAX_KV][24];
    int n;
    char unmodelled[320]; /* "n_shared_experts 1, first_k_dense_replace 3" */
    /* the seq cap, and the defaults taken for absent keys: "assumed
     * (absent from the file): kv_heads = heads (num_key_value_heads)" */
    char notes[400];
} pb_hf_config_t;

/* PB_EINPUT naming the file: unreadable, not JSON (with line), not an
 * object, a field of the wrong type, none of the shape fields, or a
 * defining key missing: num_hidden_layers, hidden_size,
 * num_attention_heads, intermediate_size, vocab_size, and the MLP's kind
 * (model_type or hidden_act), every missing one named on one line.  Keys
 * with a default in transformers may be absent and are named in notes as
 * assumed: num_key_value_heads (= heads), head_dim (hidden / heads);
 * max_position_embeddings and torch_dtype leave the preset's seq and
 * dtype. */
int pb_hf_config_read(const char *path, pb_hf_config_t *out, pb_err_t *err);
/* Applies the pairs over *m (errors name the file's field). */
int pb_hf_config_apply(const pb_hf_config_t *c, const char *path, pb_model_t *m, pb_err_t *err);

#endif
