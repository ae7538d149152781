#include "pb_flops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pb_recomp_name(pb_recomp_t r)
{
    static const char *const n[] = {"none", "selective", "full", "op"};
    if (r >= PB_RECOMP_LAYER)
        return "layer";
    return r >= PB_RECOMP_NONE && r <= PB_RECOMP_OP ? n[r] : "?";
}

void pb_recomp_format(pb_recomp_t r, char *buf, unsigned long len)
{
    if (r > PB_RECOMP_LAYER)
        snprintf(buf, len, "layer:%d", pb_recomp_every(r));
    else
        snprintf(buf, len, "%s", pb_recomp_name(r));
}

int pb_recomp_parse(const char *s, pb_recomp_t *out)
{
    for (int i = 0; i <= PB_RECOMP_OP; i++)
        if (strcmp(s, pb_recomp_name((pb_recomp_t)i)) == 0) {
            *out = (pb_recomp_t)i;
            return 0;
        }
    const size_t k = sizeof "layer:" - 1;
    if (strncmp(s, "layer:", k) != 0 || s[k] < '1' || s[k] > '9')
        return -1;
    char *end;
    long n = strtol(s + k, &end, 10);
    if (*end != '\0' || n < 1 || n > PB_RECOMP_LAYER_MAX)
        return -1;
    *out = pb_recomp_layer_of((int)n);
    return 0;
}

pb_recomp_t pb_recomp_layer_of(int n)
{
    return (pb_recomp_t)(PB_RECOMP_LAYER + (n > 0 ? n : 1));
}

int pb_recomp_every(pb_recomp_t r)
{
    return r > PB_RECOMP_LAYER ? (int)r - PB_RECOMP_LAYER : 0;
}

double pb_recomp_full_share(pb_recomp_t r, uint64_t layers)
{
    if (r == PB_RECOMP_FULL)
        return 1.0;
    int n = pb_recomp_every(r);
    if (n <= 0 || layers == 0)
        return 0.0;
    return (double)(layers / (uint64_t)n) / (double)layers;
}

/* weights a token meets in one layer's matrices */
static double layer_weights(const pb_model_t *m, int moe)
{
    double h = (double)m->hidden;
    double attn = (double)pb_model_attn_params(m);
    double f = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    double mlp = (m->gated ? PB_MODEL_GATED_MATS : 2.0) * h * f;
    if (moe) /* + router, + the shared experts a token always meets */
        return attn + (double)m->topk * mlp + h * (double)m->experts +
               (double)pb_model_shared_params(m);
    return attn + mlp;
}

/* Weights whose matmuls torchtitan's op-level policy recomputes in one
 * layer: it counts a block's mm calls in forward order (Q 1, K 2, V 3,
 * O 4, then the MLP's: gate 5, up 6, down 7; plain: up 5, down 6) and
 * recomputes the even ones, K, O and the up (plain: the down)
 * projection, h*ffn either way.  In an MoE layer the router is always
 * recomputed (force_recompute_mm_shapes_by_fqns "moe.router.gate") and
 * the experts' grouped GEMMs are not in the save list, so the MLP is
 * repeated whole but for the shared expert's saved gate and down.
 * (pytorch/torchtitan torchtitan/distributed/activation_checkpoint.py,
 * SelectiveAC; save list as of 114151ad4^ models/llama3/parallelize.py) */
static double op_recompute_weights(const pb_model_t *m, int moe)
{
    double h = (double)m->hidden, hd = (double)pb_model_head_dim(m);
    double qd = (double)m->heads * hd, kvd = (double)m->kv_heads * hd;
    double attn = h * kvd + qd * h;
    if (!moe)
        return attn + h * (double)m->ffn;
    double f = (double)(m->moe_ffn ? m->moe_ffn : m->ffn);
    double expert = (m->gated ? PB_MODEL_GATED_MATS : 2.0) * h * f;
    return attn + h * (double)m->experts + (double)m->topk * expert + h * (double)m->shared_ffn;
}

double pb_flops_attn_core_fwd(const pb_model_t *m, uint64_t b, uint64_t s, int causal)
{
    /* Q.K^T and scores.V: 2*b*s*s*(heads*head_dim) each (= h when
     * head_dim is hidden/heads) */
    double qd = (double)(m->heads * pb_model_head_dim(m));
    double f = PB_FLOPS_ATTN_SCORE * (double)b * (double)s * (double)s * qd;
    return causal ? f / 2.0 : f;
}

double pb_flops_layer_fwd(const pb_model_t *m, uint64_t b, uint64_t s, int moe, int causal)
{
    return 2.0 * (double)b * (double)s * layer_weights(m, moe) +
           pb_flops_attn_core_fwd(m, b, s, causal);
}

double pb_flops_logits_fwd(const pb_model_t *m, uint64_t b, uint64_t s)
{
    return 2.0 * (double)b * (double)s * (double)m->hidden * (double)m->vocab;
}

double pb_flops_recompute(const pb_model_t *m, uint64_t b, uint64_t s, int moe, int causal,
                          pb_recomp_t r)
{
    if (r == PB_RECOMP_FULL)
        return pb_flops_layer_fwd(m, b, s, moe, causal);
    if (r == PB_RECOMP_SELECTIVE)
        return pb_flops_attn_core_fwd(m, b, s, causal);
    if (r == PB_RECOMP_OP)
        return 2.0 * (double)b * (double)s * op_recompute_weights(m, moe);
    /* layer:N: the layers it wraps repeat all; spread over every layer */
    return pb_recomp_full_share(r, m->layers) * pb_flops_layer_fwd(m, b, s, moe, causal);
}

pb_flops_step_t pb_flops_step(const pb_model_t *m, uint64_t batch, int causal, pb_recomp_t r)
{
    double fwd = 0, extra = 0;
    uint64_t moe = pb_model_moe_layers(m), dense = m->layers - moe;
    fwd += (double)dense * pb_flops_layer_fwd(m, batch, m->seq, 0, causal);
    fwd += (double)moe * pb_flops_layer_fwd(m, batch, m->seq, 1, causal);
    extra += (double)dense * pb_flops_recompute(m, batch, m->seq, 0, causal, r);
    extra += (double)moe * pb_flops_recompute(m, batch, m->seq, 1, causal, r);
    fwd += pb_flops_logits_fwd(m, batch, m->seq);
    pb_flops_step_t out = {PB_FLOPS_TRAIN_X_FWD * fwd, PB_FLOPS_TRAIN_X_FWD * fwd + extra};
    return out;
}
