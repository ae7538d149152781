/* pb_gemm_shapes.h - the GEMMs of one transformer layer on one tensor-
 * parallel rank, as plain (M, N, K) triples.
 *
 * Pure: no CUDA, no MPI, no I/O, so the shapes are unit-tested on any
 * machine and the model can reuse them.  (It lives in bench/ rather than
 * patterns/ only to stay out of that folder while it is being built; it
 * depends on nothing but util/.)
 *
 * Convention: a GEMM is Y[M, N] = X[M, K] . W[K, N] with M the tokens of
 * one micro-batch (T = b.s), as Megatron-LM's column- and row-parallel
 * linear layers issue them on one tp rank:
 *
 *   qkv        [T, h]   x [h, (h + 2.h.g/a)/t]   column-parallel: q heads
 *                                                 a/t, k and v groups g/t
 *   attn_out   [T, h/t] x [h/t, h]               row-parallel
 *   mlp_up     [T, h]   x [h, f/t]  (x 2: N = 2f/t with --gated, the gate
 *                                    and up projections fused, SwiGLU)
 *   mlp_down   [T, f/t] x [f/t, h]               row-parallel
 *
 * The backward pass of Y = X.W runs two GEMMs of the same FLOPs:
 *   dgrad  dX[T, K] = dY[T, N] . W^T  -> (M, N, K) = (T, K, N)
 *   wgrad  dW[K, N] = X^T . dY        -> (M, N, K) = (K, N, T)
 * Attention's own score and context products (Q.K^T, P.V) are batched
 * GEMMs per head and are not part of this list. */
#ifndef PB_GEMM_SHAPES_H
#define PB_GEMM_SHAPES_H

#include <stdint.h>

#include "../util/pb_err.h"

/* The layer, as the command line gives it. */
typedef struct pb_gemm_model {
    uint64_t hidden;   /* h */
    uint64_t seq;      /* s */
    uint64_t mbs;      /* b: micro-batch size */
    uint64_t tp;       /* t */
    uint64_t heads;    /* a: attention (query) heads */
    uint64_t kv_heads; /* g: key/value heads (groups); g = a is plain MHA;
                        * 0 until resolved: = a */
    uint64_t ffn;      /* f: MLP inner size (per projection when gated);
                        * 0 until resolved: = 4h */
    int gated;         /* SwiGLU-style: up projection is 2f wide */
} pb_gemm_model_t;

typedef enum pb_gemm_kind {
    PB_GEMM_QKV,
    PB_GEMM_ATTN_OUT,
    PB_GEMM_MLP_UP,
    PB_GEMM_MLP_DOWN,
    PB_GEMM_KIND_COUNT
} pb_gemm_kind_t;

typedef enum pb_gemm_pass {
    PB_GEMM_FWD,   /* Y = X.W */
    PB_GEMM_DGRAD, /* dX = dY.W^T */
    PB_GEMM_WGRAD, /* dW = X^T.dY */
    PB_GEMM_PASS_COUNT
} pb_gemm_pass_t;

#define PB_GEMM_MAX_SHAPES (PB_GEMM_KIND_COUNT * PB_GEMM_PASS_COUNT)

typedef struct pb_gemm_shape {
    pb_gemm_kind_t kind;
    pb_gemm_pass_t pass;
    char name[32]; /* the CSV collective: gemm_qkv, gemm_qkv_dgrad, ... */
    uint64_t m, n, k;
    uint64_t flops; /* 2.M.N.K: one multiply and one add per term */
} pb_gemm_shape_t;

/* Refuses (PB_EINPUT, one line) a layer that does not split evenly:
 * every size > 0, h divisible by a (head size), a divisible by g (query
 * groups), a, g, h and f divisible by t (Megatron-LM asserts the same for
 * heads and query groups), and sizes whose FLOPs overflow 64 bits. */
int pb_gemm_model_check(const pb_gemm_model_t *m, pb_err_t *err);

/* The forward GEMMs of one layer in the order above, then, with
 * `backward`, each one's dgrad and wgrad.  out holds PB_GEMM_MAX_SHAPES;
 * *n gets the count.  Checks the model first. */
int pb_gemm_layer_shapes(const pb_gemm_model_t *m, int backward, pb_gemm_shape_t *out,
                         int *n, pb_err_t *err);

/* Defaults of `parbench gemm`: a GPT-style layer of hidden size 4096 (32
 * heads of 128, MHA, MLP 4h, not gated), sequence 4096, micro-batch 1,
 * tp 1.  kv_heads and ffn are left 0 = "follow heads / hidden". */
void pb_gemm_model_defaults(pb_gemm_model_t *m);

/* Fills what was left 0: kv_heads = heads, ffn = 4.hidden. */
void pb_gemm_model_resolve(pb_gemm_model_t *m);

#endif
