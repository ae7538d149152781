#include "pb_memory.h"

#include "../patterns/pb_stages.h"

#include "../patterns/pb_traffic.h"

double pb_mem_bytes_per_param(int zero, int d)
{
    double dd = d > 0 ? (double)d : 1.0;
    switch (zero) {
    case 1:
        return 6.0 + 12.0 / dd;
    case 2:
        return 2.0 + 16.0 / dd;
    case 3:
        return 18.0 / dd;
    default:
        return 18.0;
    }
}

/* torchtitan's op-level policy (activation_checkpoint.py, pb_flops.c):
 * a block keeps its input and the outputs of the ops it saves - the Q
 * and V projections (matmuls 1 and 3), the attention (and its fp32
 * log-sum-exp per head), the gate (plain MLP: up) and down projections
 * (5 and 7; the down one before TP's reduce-scatter: every TP rank holds
 * a whole partial sum), and with SP the two reduce-scatters' outputs.  An
 * MoE MLP keeps the shared expert's gate and down outputs and, with EP,
 * the two all-to-alls' (topk copies of each token each). */
static double act_op_sac(const pb_model_t *m, const pb_layout_t *l, int moe)
{
    double t = (double)l->size[PB_DIM_TP], h = (double)m->hidden;
    double hd = (double)pb_model_head_dim(m);
    double q = (double)m->heads * hd / h, kv = (double)m->kv_heads * hd / h;
    double per = 2.0 / (l->sp ? t : 1.0) + (2.0 * q + 2.0 * kv + 2.0 * q) / t +
                 4.0 * (double)m->heads / h / t;
    if (!moe)
        per += 2.0 * (double)m->ffn / h / t + 2.0;
    else
        per += (m->shared_ffn ? 2.0 * (double)m->shared_ffn / h / t + 2.0 : 0.0) +
               (l->size[PB_DIM_EP] > 1 ? 4.0 * (double)m->topk : 0.0);
    if (l->sp && t > 1)
        per += 2.0 * 2.0 / t;
    return per;
}

double pb_mem_act_fp8_saving(const pb_model_t *m, const pb_layout_t *l, int moe, int flash)
{
    double t = (double)l->size[PB_DIM_TP], h = (double)m->hidden;
    double sbh = (double)m->seq / (double)l->size[PB_DIM_CP] * (double)m->mbs * h;
    double q = (double)(m->heads * pb_model_head_dim(m)) / h;
    /* the norms' outputs (QKV's and FC1's inputs; an MoE layer's experts
     * are left to their own grouped GEMMs): replicated without SP */
    double rep = moe ? 1.0 : 2.0;
    double sh = (flash ? -1.0 : 1.0) * q + (moe ? 0.0 : (double)m->ffn / h);
    return sbh * (l->sp ? (rep + sh) / t : rep + sh / t);
}

double pb_mem_act_layer(const pb_model_t *m, const pb_layout_t *l, int moe, pb_recomp_t r,
                        int flash)
{
    double t = (double)l->size[PB_DIM_TP];
    double s = (double)m->seq / (double)l->size[PB_DIM_CP];
    double b = (double)m->mbs, h = (double)m->hidden, a = (double)m->heads;
    double sbh = s * b * h;
    if (r == PB_RECOMP_FULL)
        return 2.0 * sbh / (l->sp ? t : 1.0);
    if (r == PB_RECOMP_OP)
        return sbh * act_op_sac(m, l, moe);
    if (r > PB_RECOMP_LAYER) {
        double share = pb_recomp_full_share(r, m->layers);
        return share * pb_mem_act_layer(m, l, moe, PB_RECOMP_FULL, flash) +
               (1.0 - share) * pb_mem_act_layer(m, l, moe, PB_RECOMP_NONE, flash);
    }
    double g = (double)m->kv_heads / a;
    double f = (double)(moe && m->moe_ffn ? m->moe_ffn : m->ffn);
    /* an MoE layer's MLP keeps its topk routed copies' inner tensors and
     * the shared expert's (topk*moe_ffn + shared_ffn wide) */
    if (moe)
        f = (double)m->topk * f + (double)m->shared_ffn;
    double mlp_sharded = 4.0 * f / h * (m->gated ? 1.5 : 1.0);
    /* sharded by tp: Q, K, V, the projection's input, the MLP's inner
     * tensors; replicated without SP: norms' inputs 4, the two blocks'
     * inputs 4, two dropout masks 2 */
    double sharded = 2.0 + 4.0 * g + 2.0 + mlp_sharded;
    double replicated = 10.0;
    double scores = (r == PB_RECOMP_SELECTIVE || flash) ? 0.0 : 5.0 * a * s / h;
    double per = l->sp ? (replicated + sharded + scores) / t : replicated + (sharded + scores) / t;
    return sbh * per;
}

void pb_memory(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, pb_mem_t *out)
{
    pb_memory_fp8(m, l, c, 0, 0, out);
}

void pb_memory_fp8(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, int fp8,
                   int weight_cache, pb_mem_t *out)
{
    int tp = l->size[PB_DIM_TP], pp = l->size[PB_DIM_PP], ep = l->size[PB_DIM_EP];
    int d = l->size[PB_DIM_DP] * l->size[PB_DIM_CP];
    double h = (double)m->hidden, V = (double)m->vocab;
    pb_stages_t st; /* the layers of each stage */
    pb_stages_of(m, pp, &st);
    /* one layer's parameters on a GPU, the MoE share of the layers as in
     * the whole model */
    double moe_frac = m->layers ? (double)pb_model_moe_layers(m) / (double)m->layers : 0.0;
    double dense_layer = (double)pb_model_dense_layer_params(m);
    double moe_shared = (double)pb_model_attn_params(m) + 2.0 * h + h * (double)m->experts +
                        (double)pb_model_shared_params(m);
    double experts = (double)pb_model_expert_params(m);
    double per_layer = ((1.0 - moe_frac) * dense_layer + moe_frac * moe_shared) / tp +
                       moe_frac * experts / ((double)pb_layout_etp(l) * ep);
    /* the end stages hold the embedding and the output layer (+ final norm) */
    double first = (double)st.first * per_layer + V * h / tp;
    double last = (double)st.last * per_layer + (V * h + h) / tp;
    double mid = pp > 2 ? (double)st.mid * per_layer : 0.0;
    if (pp == 1)
        first = (double)st.first * per_layer + (2.0 * V * h + h) / tp;
    double params = first > last ? first : last;
    if (mid > params)
        params = mid;
    out->params = params;
    out->weights = params * pb_mem_bytes_per_param(c->zero, d);
    if (fp8 && weight_cache) { /* the busiest stage's layers' weights, 1 + 1 B */
        double L = (double)(st.first > st.last ? st.first : st.last);
        L = (double)st.mid > L && pp > 2 ? (double)st.mid : L;
        out->weights += 2.0 * L * per_layer;
    }

    uint64_t micro = pb_traffic_micro(m, l);
    double inflight = pp < (int)micro ? (double)pp : (double)micro;
    if (pp > 1 && l->vp > 1)
        inflight *= 1.0 + (double)(pp - 1) / ((double)pp * (double)l->vp);
    if (pp == 1)
        inflight = 1.0;
    out->inflight = inflight;
    out->act_layer = pb_mem_act_layer(m, l, 0, c->recomp, c->flash);
    double act_moe = pb_mem_act_layer(m, l, 1, c->recomp, c->flash);
    if (fp8) { /* fp8 inputs of the linear layers, in the layers that keep them */
        double keep = c->recomp == PB_RECOMP_NONE || c->recomp == PB_RECOMP_SELECTIVE ? 1.0
                      : c->recomp > PB_RECOMP_LAYER ? 1.0 - pb_recomp_full_share(c->recomp, m->layers)
                                                    : 0.0;
        out->act_layer -= keep * pb_mem_act_fp8_saving(m, l, 0, c->flash);
        act_moe -= keep * pb_mem_act_fp8_saving(m, l, 1, c->flash);
    }
    double Lfirst = (double)st.first; /* the first stage holds the most in flight */
    out->act_layers =
        inflight * (Lfirst * (1.0 - moe_frac) * out->act_layer + Lfirst * moe_frac * act_moe);
    double s = (double)m->seq / (double)l->size[PB_DIM_CP], b = (double)m->mbs;
    double sbh = s * b * h;
    out->act_extra = inflight * sbh / (l->sp ? tp : 1);
    if (pp == 1)
        out->act_extra += 4.0 * sbh * (1.0 + V / h) / tp;
    out->total = out->weights + out->act_layers + out->act_extra;
}
