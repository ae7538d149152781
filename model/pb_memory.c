#include "pb_memory.h"

#include "../patterns/pb_stages.h"

#include "../patterns/pb_traffic.h"

#include <string.h>

/* Activation bytes per element (doc/MODEL.md, "Memory"; Korthikanti et
 * al. 2022, "Reducing Activation Recomputation in Large Transformer
 * Models", Sec. 4.1: sbh (34 + 5 a s / h) for f = 4h): K and V per KV
 * share (2 B each); the MLP's first GEMM and activation outputs per
 * inner width (2 B each), 1.5 x for a gated MLP (gate, up and their
 * product); replicated without SP: the norms' inputs 4, the two blocks'
 * inputs 4, two dropout masks 2; the scores' softmax output 2, dropout
 * mask 1 and output 2 per a s / h. */
#define PB_ACT_KV_B 4.0
#define PB_ACT_MLP_B 4.0
#define PB_ACT_GATED_X 1.5
#define PB_ACT_REPLICATED_B 10.0
#define PB_ACT_SCORES_B 5.0
/* op-level selective recomputation (act_op_sac): the fp32 log-sum-exp per
 * head, and with EP the two all-to-alls' outputs (2 B each) per topk copy */
#define PB_ACT_LSE_B 4.0
#define PB_ACT_A2A_B 4.0
/* the input ids (int64) beside the embedding's output; the final norm's
 * input and output (2 B each), at the loss */
#define PB_MEM_TOKEN_ID_B 8.0
#define PB_MEM_FINAL_NORM_B 4.0
/* fp8 weights beside the fp32 master and Adam's two moments */
#define PB_MEM_MASTER_MOMENTS 3.0

const char *pb_mem_term_name(int t)
{
    static const char *const names[PB_MEM_TERMS] = {"params",      "grads",     "optimizer",
                                                     "gathered",    "activations", "recompute",
                                                     "embedding",   "loss"};
    return t >= 0 && t < PB_MEM_TERMS ? names[t] : "?";
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
                 PB_ACT_LSE_B * (double)m->heads / h / t;
    if (!moe)
        per += 2.0 * (double)m->ffn / h / t + 2.0;
    else
        per += (m->shared_ffn ? 2.0 * (double)m->shared_ffn / h / t + 2.0 : 0.0) +
               (l->size[PB_DIM_EP] > 1 ? PB_ACT_A2A_B * (double)m->topk : 0.0);
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
    double mlp_sharded = PB_ACT_MLP_B * f / h * (m->gated ? PB_ACT_GATED_X : 1.0);
    /* sharded by tp: Q, K, V, the projection's input, the MLP's inner
     * tensors; replicated without SP: norms' inputs 4, the two blocks'
     * inputs 4, two dropout masks 2 */
    double sharded = 2.0 + PB_ACT_KV_B * g + 2.0 + mlp_sharded;
    double replicated = PB_ACT_REPLICATED_B;
    double scores = (r == PB_RECOMP_SELECTIVE || flash) ? 0.0 : PB_ACT_SCORES_B * a * s / h;
    double per = l->sp ? (replicated + sharded + scores) / t : replicated + (sharded + scores) / t;
    /* the routed tokens the experts' first GEMM keeps for its weight
     * gradient, topk copies in 2 B: with expert TP as wide as TP the
     * dispatcher gathers the TP group's tokens to every rank (Megatron-
     * Core's token dispatchers), etp/tp of them otherwise */
    if (moe)
        per += 2.0 * (double)m->topk * (double)pb_layout_etp(l) / t;
    return sbh * per;
}


double pb_mem_inflight(int pp, int vp, int s, uint64_t micro)
{
    if (pp <= 1)
        return 1.0;
    double m = (double)(micro ? micro : 1);
    if (vp <= 1) {
        double k = (double)(pp - s);
        return k < m ? k : m;
    }
    /* schedules.py, forward_backward_pipelining_with_interleaving:
     * num_warmup_microbatches = (pp - rank - 1) * 2 + (vp - 1) * pp
     * (microbatch_group_size_per_vp_stage = pp), at most the m*vp chunk
     * micro-batches there are; the steady state holds one more */
    double chunks = 2.0 * (double)(pp - s - 1) + (double)(vp - 1) * (double)pp + 1.0;
    double all = m * (double)vp;
    return (chunks < all ? chunks : all) / (double)vp;
}

/* The layers of stage s: [first layer, count) of each of its vp chunks,
 * virtual stage k*pp + s holding chunk k (Megatron's interleaving); the
 * MoE ones counted. */
static uint64_t stage_moe_layers(const pb_model_t *m, const pb_stages_t *st, int vp, int s)
{
    if (m->experts == 0)
        return 0;
    int pp = st->pp > 1 ? st->pp : 1;
    uint64_t v = (uint64_t)(vp > 1 ? vp : 1), round = 0, before = 0, moe = 0;
    for (int i = 0; i < pp; i++) {
        round += pb_stages_layers(st, i) / v;
        if (i < s)
            before += pb_stages_layers(st, i) / v;
    }
    uint64_t chunk = pb_stages_layers(st, s) / v;
    for (uint64_t k = 0; k < v; k++)
        for (uint64_t j = 0; j < chunk; j++)
            moe += (uint64_t)pb_model_is_moe_layer(m, k * round + before + j);
    return moe;
}

/* One stage's parameters on a GPU: dense (sharded by tp) and expert (by
 * etp*ep), and the largest single layer's (what ZeRO-3 gathers at once). */
typedef struct stage_params {
    double dense, expert, layer_max, unit_max; /* the largest layer; the largest unit (an embedding too) */
    double layers; /* of dense + expert, the layers' (no embedding, no output layer) */
    uint64_t moe;
} stage_params_t;

static void stage_params(const pb_model_t *m, const pb_layout_t *l, const pb_stages_t *st,
                         int s, stage_params_t *p)
{
    int pp = l->size[PB_DIM_PP];
    double tp = (double)l->size[PB_DIM_TP], h = (double)m->hidden, V = (double)m->vocab;
    double eshard = (double)pb_layout_etp(l) * (double)l->size[PB_DIM_EP];
    uint64_t L = pb_stages_layers(st, s);
    p->moe = stage_moe_layers(m, st, l->vp, s);
    double dense_layer = (double)pb_model_dense_layer_params(m) / tp;
    double moe_shared = ((double)pb_model_attn_params(m) + 2.0 * h + h * (double)m->experts +
                         (double)pb_model_shared_params(m)) / tp;
    double experts = (double)pb_model_expert_params(m) / eshard;
    p->dense = (double)(L - p->moe) * dense_layer + (double)p->moe * moe_shared;
    p->expert = (double)p->moe * experts;
    p->layers = p->dense + p->expert;
    p->layer_max = p->moe ? moe_shared + experts : dense_layer;
    if (p->moe < L && dense_layer > p->layer_max)
        p->layer_max = dense_layer;
    /* the input embedding on the first stage, the output layer and final
     * norm on the last: each its own unit that ZeRO-3 gathers whole
     * (torchtitan's and FSDP's wrapping) */
    double emb = V * h / tp;
    if (s == 0)
        p->dense += emb;
    if (s == pp - 1 || pp <= 1)
        p->dense += emb + h / tp;
    /* the output layer is differentiated right after the loss, with every
     * activation still held; the input embedding last, when they are gone */
    p->unit_max = p->layer_max;
    if ((s == pp - 1 || pp <= 1) && emb > p->unit_max)
        p->unit_max = emb;
}

/* Parameters, gradients and optimizer of n parameters sharded over d
 * data-parallel ranks (pb_memory.h); linear: the layers' weights, which
 * a stack that keeps fp8 weights keeps in 1 B (the embeddings stay 16-bit). */
static void states(double n, double d, const pb_mem_cfg_t *c, const pb_fw_mem_t *fm,
                   int grad_b, int linear, double *term)
{
    double pb = c->param_bytes == PB_MEM_FP32_B ? (double)PB_MEM_FP32_B : 2.0;
    double gb = (double)grad_b;
    double ob = c->optim_bytes == 2 ? 2.0 : (double)PB_MEM_FP32_B;
    /* Adam's two moments, and an fp32 master beside 16-bit parameters
     * (none when the parameters are the master: fp32 ones, or "pure
     * bf16" with 16-bit moments) */
    double opt = 2.0 * ob + (pb < ob ? ob : 0.0);
    if (linear && c->fp8 && pb_fw_desc(c->framework)->fp8.param)
        pb = 1.0, opt = PB_MEM_MASTER_MOMENTS * ob; /* fp8 weights beside the fp32 master */
    if (c->zero == PB_ZERO3 && (fm->shard_master || c->fsdp2)) {
        /* FSDP: the shard is the master, in the optimizer's type, its
         * gradient in the same type */
        pb = ob, gb = ob, opt = 2.0 * ob;
    }
    term[PB_MEM_PARAMS] += n * pb / (c->zero >= PB_ZERO3 ? d : 1.0);
    term[PB_MEM_GRADS] += n * gb / (c->zero >= 2 ? d : 1.0);
    term[PB_MEM_OPTIM] += n * opt / (c->zero >= 1 ? d : 1.0);
}

/* What a stage holds unsharded: ZeRO-3's gathers and gradients, and
 * FP8's cached weights (pb_memory.h, gathered). */
static double gathered(const pb_layout_t *l, const pb_mem_cfg_t *c, const pb_fw_mem_t *fm,
                       const stage_params_t *p, uint64_t micro, int grad_b)
{
    double all = p->dense + p->expert, g = 0.0;
    /* the gathered copy's type: the parameters' (fp32: FSDP without a
     * param_dtype gathers fp32) */
    double cb = c->param_bytes == PB_MEM_FP32_B ? (double)PB_MEM_FP32_B : 2.0;
    int layers = fm->gathered;
    if (c->zero == PB_ZERO3) {
        if (fm->pp_keep_gathered && l->size[PB_DIM_PP] > 1)
            /* the stage stays gathered; its gradients accumulate
             * unsharded in the reduce type over the micro-batches */
            g = all * (cb + (double)grad_b);
        else
            /* at the backward's peak: the unit being differentiated
             * (the largest: an embedding or a layer) gathered, its
             * unsharded 16-bit gradient and the reduce-scatter's input in
             * the reduce type, and the next layers prefetched */
            g = p->unit_max * (cb + 2.0 + (grad_b != 2 ? (double)grad_b : 0.0)) +
                (double)(layers - 1) * p->layer_max * cb;
        if (fm->accum_unsharded && micro > 1 && !(fm->pp_keep_gathered && l->size[PB_DIM_PP] > 1))
            g += all * (double)fm->accum_unsharded;
    }
    if (c->zero >= 2) /* DeepSpeed's IPG bucket */
        g += fm->zero_bucket;
    const pb_fw_fp8_t *f8 = &pb_fw_desc(c->framework)->fp8;
    if (c->fp8 && f8->weight_cached) /* each layer weight's fp8 transpose, and its
                                     * fp8 copy unless the weights are fp8 */
        g += (f8->param ? 1.0 : 2.0) * p->layers;
    return g;
}

/* ZeRO-3's gathered bytes on a stage whose largest unit is the output
 * layer: at the loss's peak that unit is gathered but not yet
 * differentiated; its gradient and reduce-scatter input come after, when
 * of the loss only the logits' 16-bit gradient is left.  The larger of
 * the two moments, less the loss's peak (its own term). */
static double output_unit(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c,
                          const pb_fw_mem_t *fm, const stage_params_t *p, int grad_b,
                          const pb_mem_stage_t *st)
{
    double g = st->term[PB_MEM_GATHERED];
    if (c->zero != PB_ZERO3 || p->unit_max <= p->layer_max ||
        (fm->pp_keep_gathered && l->size[PB_DIM_PP] > 1))
        return g;
    double grads = p->unit_max * (2.0 + (grad_b != 2 ? (double)grad_b : 0.0));
    double lb = c->loss_set ? c->loss_bytes : fm->loss_bytes;
    double count = (double)m->seq / (double)l->size[PB_DIM_CP] * (double)m->mbs *
                   (double)m->vocab / (double)l->size[PB_DIM_TP];
    double at_loss = g - grads;
    double later = g + count * (2.0 - lb); /* the logits' bf16 gradient for the loss's bytes */
    return at_loss > later ? at_loss : later;
}

/* Activations of stage s: its in-flight micro-batches' layers, the layer
 * being recomputed, the embedding's outputs, the loss. */
static void activations(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c,
                        const pb_fw_mem_t *fm, int s, uint64_t L, uint64_t moe, uint64_t micro,
                        pb_mem_stage_t *out)
{
    int pp = l->size[PB_DIM_PP], t = l->size[PB_DIM_TP];
    double dense = pb_mem_act_layer(m, l, 0, c->recomp, c->flash);
    double mo = pb_mem_act_layer(m, l, 1, c->recomp, c->flash);
    if (c->fp8) { /* fp8 inputs of the linear layers, in the layers that keep them */
        double keep = c->recomp == PB_RECOMP_NONE || c->recomp == PB_RECOMP_SELECTIVE ? 1.0
                      : c->recomp > PB_RECOMP_LAYER ? 1.0 - pb_recomp_full_share(c->recomp, m->layers)
                                                    : 0.0;
        dense -= keep * pb_mem_act_fp8_saving(m, l, 0, c->flash);
        mo -= keep * pb_mem_act_fp8_saving(m, l, 1, c->flash);
    }
    /* DualPipe: pp + 1 micro-batches' activations of a chunk on every
     * rank (the DualPipe README's table, "Activation PP+1") */
    out->inflight = c->dualpipe && pp > 1 ? (double)(pp + 1)
                                          : pb_mem_inflight(pp, l->vp, s, micro);
    out->term[PB_MEM_ACT] = out->inflight * ((double)(L - moe) * dense + (double)moe * mo);
    if (c->recomp == PB_RECOMP_FULL || c->recomp > PB_RECOMP_LAYER) {
        /* the recomputed layer, whole, beside its checkpoint */
        double full_d = pb_mem_act_layer(m, l, 0, PB_RECOMP_NONE, c->flash);
        double full_m = pb_mem_act_layer(m, l, 1, PB_RECOMP_NONE, c->flash);
        double ck = pb_mem_act_layer(m, l, 0, PB_RECOMP_FULL, c->flash);
        double live = moe ? full_m : full_d;
        if (moe < L && full_d > live)
            live = full_d;
        out->term[PB_MEM_RECOMP] = live - ck;
    }
    double sbh = (double)m->seq / (double)l->size[PB_DIM_CP] * (double)m->mbs * (double)m->hidden;
    double spt = l->sp ? (double)t : 1.0;
    if (s == 0) /* theoretical_memory_usage.py: the input ids (8 B) and the
                 * embedding's dropout mask (1 B an element) */
        out->term[PB_MEM_EMBED] =
            out->inflight * (PB_MEM_TOKEN_ID_B * sbh / (double)m->hidden + sbh / spt);
    if (s == pp - 1 || pp <= 1) {
        double tokens = sbh / (double)m->hidden;
        double lb = c->loss_set ? c->loss_bytes : fm->loss_bytes;
        out->term[PB_MEM_LOSS] = PB_MEM_FINAL_NORM_B * sbh / spt + tokens * (double)m->vocab / (double)t * lb;
    }
}

static uint64_t micro_of(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c)
{
    return c->micro ? c->micro : pb_traffic_micro(m, l);
}

/* Stage s of the split st. */
static void one_stage(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c,
                      const pb_stages_t *st, int s, pb_mem_stage_t *out)
{
    memset(out, 0, sizeof *out);
    const pb_fw_mem_t *fm = &pb_fw_desc(c->framework)->mem;
    int grad_b = c->grad_bytes ? c->grad_bytes : fm->grad_bytes;
    stage_params_t p;
    stage_params(m, l, st, s, &p);
    int pp = l->size[PB_DIM_PP];
    if (c->dualpipe && pp > 1 && pp - 1 - s != s) {
        /* DualPipe: the rank holds stage pp-1-s too, its parameters
         * ("Parameter 2x" of the DualPipe README's table) */
        stage_params_t q;
        stage_params(m, l, st, pp - 1 - s, &q);
        p.dense += q.dense, p.expert += q.expert, p.layers += q.layers;
        p.layer_max = q.layer_max > p.layer_max ? q.layer_max : p.layer_max;
        p.unit_max = q.unit_max > p.unit_max ? q.unit_max : p.unit_max;
    }
    uint64_t micro = micro_of(m, l, c);
    /* sharded over the data-parallel group, or HSDP's shard group */
    double d = (double)pb_layout_dp_shard(l);
    /* Megatron-Core: expert data parallel = tp*cp*dp / (ep*etp) */
    double de = (double)l->size[PB_DIM_DP] * (double)l->size[PB_DIM_CP] *
                (double)l->size[PB_DIM_TP] /
                ((double)l->size[PB_DIM_EP] * (double)pb_layout_etp(l));
    out->stage = s;
    out->layers = pb_stages_layers(st, s);
    out->params = p.dense + p.expert;
    double emb = p.dense + p.expert - p.layers; /* the embeddings and the final norm */
    states(p.dense - emb, d, c, fm, grad_b, 1, out->term);
    states(emb, d, c, fm, grad_b, 0, out->term);
    states(p.expert, de < 1.0 ? 1.0 : de, c, fm, grad_b, 1, out->term);
    out->term[PB_MEM_GATHERED] = gathered(l, c, fm, &p, micro, grad_b);
    activations(m, l, c, fm, s, out->layers, p.moe, micro, out);
    out->term[PB_MEM_GATHERED] = output_unit(m, l, c, fm, &p, grad_b, out);
    for (int t = 0; t < PB_MEM_TERMS; t++)
        out->total += out->term[t];
}

void pb_memory_stage(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, int s,
                     pb_mem_stage_t *out)
{
    pb_stages_t st;
    pb_stages_of(m, l->size[PB_DIM_PP], &st);
    one_stage(m, l, c, &st, s, out);
}

void pb_memory(const pb_model_t *m, const pb_layout_t *l, const pb_mem_cfg_t *c, pb_mem_t *out)
{
    memset(out, 0, sizeof *out);
    int pp = l->size[PB_DIM_PP] > 1 ? l->size[PB_DIM_PP] : 1;
    out->stages = pp;
    pb_stages_t split;
    pb_stages_of(m, l->size[PB_DIM_PP], &split);
    for (int s = 0; s < pp; s++) {
        pb_mem_stage_t st;
        one_stage(m, l, c, &split, s, &st);
        if (s == 0 || st.total > out->busiest.total)
            out->busiest = st;
        if (st.params > out->params_max)
            out->params_max = st.params;
    }
    const pb_mem_stage_t *b = &out->busiest;
    out->params = b->params;
    out->weights = b->term[PB_MEM_PARAMS] + b->term[PB_MEM_GRADS] + b->term[PB_MEM_OPTIM] +
                   b->term[PB_MEM_GATHERED];
    out->act_layer = pb_mem_act_layer(m, l, 0, c->recomp, c->flash);
    out->act_layers = b->term[PB_MEM_ACT] + b->term[PB_MEM_RECOMP];
    out->act_extra = b->term[PB_MEM_EMBED] + b->term[PB_MEM_LOSS];
    out->inflight = b->inflight;
    out->total = b->total;
}
