#include "pb_flops.h"

#include <string.h>

const char *pb_recomp_name(pb_recomp_t r)
{
    static const char *const n[] = {"none", "selective", "full"};
    return n[r];
}

int pb_recomp_parse(const char *s, pb_recomp_t *out)
{
    for (int i = 0; i <= PB_RECOMP_FULL; i++)
        if (strcmp(s, pb_recomp_name((pb_recomp_t)i)) == 0) {
            *out = (pb_recomp_t)i;
            return 0;
        }
    return -1;
}

/* weights a token meets in one layer's matrices */
static double layer_weights(const pb_model_t *m, int moe)
{
    double h = (double)m->hidden;
    double attn = (double)pb_model_attn_params(m);
    double f = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    double mlp = (m->gated ? 3.0 : 2.0) * h * f;
    if (moe)
        return attn + (double)m->topk * mlp + h * (double)m->experts; /* + router */
    return attn + mlp;
}

double pb_flops_attn_core_fwd(const pb_model_t *m, uint64_t b, uint64_t s, int causal)
{
    /* Q.K^T and scores.V: 2*b*s*s*(heads*head_dim) each (= h when
     * head_dim is hidden/heads) */
    double qd = (double)(m->heads * pb_model_head_dim(m));
    double f = 4.0 * (double)b * (double)s * (double)s * qd;
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
    return 0.0;
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
    pb_flops_step_t out = {3.0 * fwd, 3.0 * fwd + extra};
    return out;
}
