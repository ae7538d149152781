/* pb_model.h - the shape of a transformer, as far as its communication
 * depends on it: presets with their published configurations, field
 * overrides by name (the same names on the command line and in model
 * files), and the parameter counts that gradients are made of. */
#ifndef PB_MODEL_H
#define PB_MODEL_H

#include <stdint.h>

#include "pb_pat_op.h"
#include "../util/pb_err.h"

typedef struct pb_model {
    char name[48];
    uint64_t layers;
    uint64_t hidden;
    uint64_t heads;
    uint64_t kv_heads; /* grouped-query attention: fewer K/V heads */
    uint64_t ffn;      /* MLP inner size (dense layers) */
    uint64_t vocab;
    uint64_t seq;
    uint64_t mbs; /* micro-batch, sequences */
    uint64_t gbs; /* global batch, sequences; 0 = 2*pp micro-batches per replica */
    pb_dtype_t dtype;
    int gated; /* SwiGLU MLP: three matrices instead of two */
    /* mixture of experts: experts = 0 is a dense model */
    uint64_t experts;
    uint64_t topk;
    uint64_t moe_every; /* every k-th layer is an MoE layer (Megatron --moe-layer-freq) */
    uint64_t moe_ffn;   /* one expert's MLP inner size; 0 = ffn */
    /* Layers the pipeline leaves out of its first and last stage together
     * (Llama 3 405B: 126 layers on 16 stages of 8, one fewer at each end). */
    uint64_t pp_trim;
    /* width of one attention head; 0 = hidden / heads.  Qwen3 235B-A22B:
     * 64 heads of 128 on a hidden of 4096 (its config.json) */
    uint64_t head_dim;
    /* Layers on the first and the last pipeline stage (Megatron's
     * --decoder-first/last-pipeline-num-layers); 0: as the stages between,
     * which share the rest evenly (patterns/pb_stages.h). */
    uint64_t pp_first, pp_last;
    /* DeepSeek-style MoE (DeepSeekMoE, arXiv 2401.06066; DeepSeek-V3,
     * arXiv 2412.19437 Sec. 2.1.2): shared_ffn is the total inner size of
     * the shared experts every token passes through beside its routed
     * ones (n_shared_experts x moe_intermediate_size; Megatron's
     * --moe-shared-expert-intermediate-size), a dense gated MLP split by
     * TP like the dense MLP, not by EP; 0 = none.  dense_first: the first
     * k layers are dense with the dense ffn (first_k_dense_replace;
     * DeepSeek-V3: 3). */
    uint64_t shared_ffn, dense_first;
} pb_model_t;

/* Known presets, by name (NULL after the last). */
const char *pb_model_preset_name(int i);
/* PB_EINPUT naming the presets when `name` is none of them. */
int pb_model_preset(const char *name, pb_model_t *out, pb_err_t *err);

/* The --size rule: the model `--size H` alone stands for (with no preset,
 * file, launch script or shape flag such as --layers, --heads or --ffn:
 * those type a model of the user's own, bench/glue/pb_pattern_plan.c), a
 * Llama 3-style
 * dense decoder at width H (Dubey et al. 2024, "The Llama 3 Herd of
 * Models", arXiv 2407.21783, Table 3; Meta-Llama-3-8B and -70B
 * config.json on huggingface.co/meta-llama):
 *  - heads of 128 (heads = H / 128), as every Llama 3 model;
 *  - 8 KV heads (GQA), as every Llama 3 model; below 8 heads, or where 8
 *    does not divide them, gcd(heads, 8), so that the groups stay whole;
 *  - MLP 3.5 H rounded up to a multiple of 256, SwiGLU (gated): Llama 3's
 *    own rule (llama/model.py: 8/3 H x ffn_dim_multiplier 1.3 rounded up
 *    to multiple_of) gives exactly 3.5 H at 8B (14336) and 70B (28672);
 *  - vocabulary 128256, sequence 8192 (Llama 3's pre-training context,
 *    Sec. 3.4.1 and the config's max_position_embeddings), bf16;
 *  - PB_FAMILY_LAYERS layers, for a run of seconds: the per-layer counts
 *    scale with a real depth (pb_model_family_llama_layers); mbs 1, gbs
 *    automatic (2 x pp micro-batches), as tiny.
 * `heads` 0 takes H / 128 and refuses (PB_EINPUT) an H that 128 does not
 * divide; a given `heads` is kept (the head size is then H / heads). */
#define PB_FAMILY_HEAD_DIM 128
#define PB_FAMILY_KV_HEADS 8
#define PB_FAMILY_VOCAB 128256
#define PB_FAMILY_SEQ 8192
#define PB_FAMILY_LAYERS 4
/* the MLP: 3.5 H, written 7H / 2, rounded up to a multiple of 256 */
#define PB_FAMILY_FFN_X2 7
#define PB_FAMILY_FFN_ROUND 256
int pb_model_family_llama(uint64_t hidden, uint64_t heads, pb_model_t *out, pb_err_t *err);
/* The layers of the Llama 3 model of width `hidden` (32 at 4096, 80 at
 * 8192, 126 at 16384: Table 3), its name in *name; 0 (and NULL) at any
 * other width. */
uint64_t pb_model_family_llama_layers(uint64_t hidden, const char **name);

/* Sets one field by its name (as in a model file: layers, hidden (or
 * size), heads, kv_heads (or kv-heads), ffn, vocab, seq, mbs, gbs, dtype,
 * gated, experts, topk, moe_every, moe_ffn, pp_trim, head_dim, pp_first,
 * pp_last, shared_ffn, dense_first).  PB_EINPUT: "unknown
 * key 'x'" or "bad value 'v' for key: ...", without any location; callers
 * add the file and line or the flag. */
int pb_model_set(pb_model_t *m, const char *key, const char *value, pb_err_t *err);

/* Reads `key = value` lines ('#' starts a comment; blank lines are fine)
 * over *m.  Errors name the file and line: "m.txt:3: unknown key 'x'". */
int pb_model_load(const char *path, pb_model_t *m, pb_err_t *err);

/* The model's own consistency (PB_EINPUT, one message per problem). */
int pb_model_check(const pb_model_t *m, pb_err_t *err);

/* A gated MLP's matrices (SwiGLU: gate, up and down; Shazeer 2020, "GLU
 * Variants Improve Transformer", FFN_SwiGLU) against a plain MLP's two. */
#define PB_MODEL_GATED_MATS 3

/* Parameters.  A layer: Q and O h*h each, K and V h*(kv_heads*h/heads)
 * each, the MLP (gated ? 3 : 2)*h*ffn (times the experts in an MoE
 * layer, which has its router h*experts and its shared experts
 * (gated ? 3 : 2)*h*shared_ffn too), two norms h each.  The
 * model: layers, input and output embeddings vocab*h each (untied) and a
 * final norm h.  Biases are not counted (Llama has none). */
uint64_t pb_model_attn_params(const pb_model_t *m);
/* head_dim, or hidden / heads when not given */
uint64_t pb_model_head_dim(const pb_model_t *m);
uint64_t pb_model_dense_layer_params(const pb_model_t *m);
/* expert weights of one MoE layer (all routed experts) */
uint64_t pb_model_expert_params(const pb_model_t *m);
/* the shared experts' weights of one MoE layer: (gated ? 3 : 2) * hidden *
 * shared_ffn (a token meets all of them, as a dense MLP) */
uint64_t pb_model_shared_params(const pb_model_t *m);
/* Layer l (from 0) is an MoE layer when the model has experts, l is not
 * among the first dense_first, and l % moe_every == 0: DeepSeek's
 * modeling_deepseek.py (layer_idx >= first_k_dense_replace and
 * layer_idx % moe_layer_freq == 0) and Megatron's integer
 * --moe-layer-freq (i % freq == 0). */
int pb_model_is_moe_layer(const pb_model_t *m, uint64_t layer);
uint64_t pb_model_moe_layers(const pb_model_t *m);
uint64_t pb_model_params(const pb_model_t *m);

#endif
