/* Tensor parallelism (Shoeybi et al. 2019, Megatron-LM, Sec. 3): the
 * attention block and the MLP each end in an all-reduce of the b*s*h
 * output forward, and their inputs' gradients are all-reduced backward:
 * 4 per layer (2 for an MoE layer folded with --etp 1).  With sequence
 * parallelism (Korthikanti et al. 2022, Sec. 4.2.2) each all-reduce is
 * split into an all-gather (before the block) and a reduce-scatter (after
 * it) of the same full tensor.
 *
 * Outside the layers, as Megatron-Core's GPTModel issues it (each
 * function named in doc/patterns.md, "Tensor parallelism outside the
 * layers"): the vocab-parallel embedding's output is all-reduced
 * (reduce-scattered with SP, its gradient all-gathered back); the output
 * layer's input gradient is all-reduced (with SP its input is gathered
 * forward and its gradient reduce-scattered); the vocab-parallel
 * cross-entropy all-reduces three fp32 values per token forward (the
 * logits' max, the target's logit, the sum of exponentials).  And with
 * SP, the backward of every column-parallel linear that keeps only its
 * sequence shard gathers its input again for the weight gradient
 * (pb_traffic_cfg_t.sp_regather); and each TP rank's norm weights have
 * seen only their sequence shard, so their gradients are summed over TP
 * (pb_traffic_cfg_t.sp_norm). */
#include "pb_traffic_priv.h"

/* Megatron's _VocabParallelCrossEntropy.forward all-reduces three fp32
 * values per token over TP: the logits' max, the target's logit and the
 * sum of exponentials (megatron/core/tensor_parallel/cross_entropy.py) */
#define PB_XENT_ALLREDUCES 3

typedef struct tp_op {
    pb_coll_t coll;
    pb_phase_t phase;
    uint64_t count;
    pb_pat_stage_t stage;
    const char *what;
} tp_op_t;

static int push(const pb_tr_in_t *in, pb_op_list_t *out, const tp_op_t *t, uint64_t bytes,
                pb_dtype_t dtype, pb_err_t *err)
{
    if (t->count == 0)
        return PB_OK;
    pb_strategy_t s = in->tp_strategy;
    pb_pat_op_t o = pb_tr_op(s, t->coll, PB_GK_TP, in->l->size[PB_DIM_TP], bytes, dtype,
                             t->count, t->phase, 0, PB_P2P_NONE, t->what);
    o.stage = t->stage;
    return pb_op_list_push(out, &o, err);
}

/* the layers' own: 2 per layer per micro-batch (attention, MLP), each an
 * all-reduce, or with SP an all-gather and a reduce-scatter */
static int layers(const pb_tr_in_t *in, pb_op_list_t *out, pb_phase_t ph, uint64_t n,
                  const char *ar, const char *ag, const char *rs, pb_err_t *err)
{
    pb_dtype_t t = in->m->dtype;
    if (in->tp_strategy == PB_STRAT_TP) {
        tp_op_t a = {PB_ALLREDUCE, ph, n, PB_STAGE_EVERY, ar};
        return push(in, out, &a, in->act, t, err);
    }
    tp_op_t g = {PB_ALLGATHER, ph, n, PB_STAGE_EVERY, ag};
    tp_op_t r = {PB_REDUCESCATTER, ph, n, PB_STAGE_EVERY, rs};
    return push(in, out, &g, in->act, t, err) || push(in, out, &r, in->act, t, err)
               ? err->code
               : PB_OK;
}

/* The embedding (first stage), the output layer and the loss (last
 * stage), once per micro-batch; with one stage both ends are everyone's. */
static int ends(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    uint64_t m = in->micro;
    int piped = in->l->size[PB_DIM_PP] > 1;
    pb_pat_stage_t first = piped ? PB_STAGE_FIRST : PB_STAGE_EVERY;
    pb_pat_stage_t last = piped ? PB_STAGE_LAST : PB_STAGE_EVERY;
    int sp = in->tp_strategy == PB_STRAT_SP;
    pb_dtype_t t = in->m->dtype;
    const tp_op_t act[] = {
        /* VocabParallelEmbedding.forward: reduce_from_tensor_model_parallel_region,
         * or with SP reduce_scatter_to_sequence_parallel_region (its
         * backward all-gathers the gradient) */
        {sp ? PB_REDUCESCATTER : PB_ALLREDUCE, PB_PH_FWD, m, first,
         sp ? "scatter the embedding's output"
            : "the embedding's output"},
        {PB_ALLGATHER, PB_PH_BWD, sp ? m : 0, first,
         "gather the embedding's output gradient"},
        /* the output layer, a ColumnParallelLinear: with SP its input
         * gathered forward, its input gradient reduce-scattered backward;
         * without, copy_to_tensor_model_parallel_region's backward
         * all-reduces that gradient */
        {PB_ALLGATHER, PB_PH_FWD, sp ? m : 0, last,
         "gather the output layer's input"},
        {sp ? PB_REDUCESCATTER : PB_ALLREDUCE, PB_PH_BWD, m, last,
         sp ? "scatter the output layer's input gradient"
            : "the output layer's input gradient"},
        {PB_ALLGATHER, PB_PH_BWD, sp && in->cfg->sp_regather ? m : 0, last,
         "gather the output layer's input again for its weight gradient"},
    };
    for (size_t i = 0; i < sizeof act / sizeof act[0]; i++)
        if (push(in, out, &act[i], in->act, t, err))
            return err->code;
    /* _VocabParallelCrossEntropy.forward: all-reduces of the logits' max,
     * the target's logit and the sum of exponentials, one fp32 per token */
    tp_op_t ce = {PB_ALLREDUCE, PB_PH_FWD, PB_XENT_ALLREDUCES * m, last,
                  "cross-entropy max, target logit, sum of exponentials"};
    uint64_t tokens = in->m->mbs * (in->m->seq / (uint64_t)in->l->size[PB_DIM_CP]);
    return push(in, out, &ce, tokens * pb_dtype_size(PB_F32), PB_F32, err);
}

/* SP's norm-weight gradients (pb_fw_traffic.h): two norms a layer, the
 * final norm on the last stage (biases, as the model's parameters, not
 * counted).  Megatron's one coalesced buffer is the stage's layers' norms
 * under a pipeline (the last stage's holds one norm more); DTensor's one
 * per weight, inside FSDP2's reduction every micro-batch (once a step
 * where the pipeline keeps gradients unreduced), else once a step. */
static int norm_grads(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    uint64_t h = in->m->hidden, ge = pb_dtype_size(in->cfg->grad_dtype);
    int piped = in->l->size[PB_DIM_PP] > 1;
    if (in->cfg->sp_norm == PB_SPNORM_COALESCED) {
        /* with the MoE routers' weights, E x h each, which Megatron-Core
         * marks sequence_parallel too (moe/router.py Router.reset_parameters) */
        tp_op_t c = {PB_ALLREDUCE, PB_PH_OPT, 1, PB_STAGE_EVERY,
                     "sequence-parallel norm + router gradients, coalesced"};
        uint64_t elems = (2 * in->layers + !piped) * h + in->moe * in->m->experts * h;
        return push(in, out, &c, elems * ge, in->cfg->grad_dtype, err);
    }
    if (in->cfg->sp_norm != PB_SPNORM_EACH)
        return PB_OK;
    int fsdp = in->cfg->zero == PB_ZERO3 && in->l->size[PB_DIM_DP] * in->l->size[PB_DIM_CP] > 1;
    uint64_t passes = fsdp && !(piped && in->cfg->z3_pp_once) ? in->micro : 1;
    pb_phase_t ph = fsdp ? PB_PH_BWD : PB_PH_OPT;
    const tp_op_t each[] = {
        {PB_ALLREDUCE, ph, (2 * in->layers + !piped) * passes, PB_STAGE_EVERY,
         "a sequence-parallel norm's weight gradient"},
        {PB_ALLREDUCE, ph, piped ? passes : 0, PB_STAGE_LAST,
         "the final norm's weight gradient"},
    };
    for (size_t i = 0; i < sizeof each / sizeof each[0]; i++) {
        if (each[i].count == 0)
            continue;
        if (push(in, out, &each[i], h * ge, in->cfg->grad_dtype, err))
            return err->code;
        /* per pass only in each micro-batch's backward (push's TP rule
         * takes any backward op as one) */
        out->ops[out->n - 1].per_pass = fsdp && passes == in->micro;
    }
    return PB_OK;
}

int pb_traffic_tp(const pb_tr_in_t *in, pb_op_list_t *out, pb_err_t *err)
{
    if (in->l->size[PB_DIM_TP] < 2)
        return PB_OK;
    /* 2 per layer per micro-batch: attention and MLP.  An MoE layer whose
     * experts have no tensor parallelism of their own (--etp 1, parallel
     * folding) keeps only the attention's: its router and dispatcher work
     * on the rank's own sequence shard, and Megatron-Core's dispatchers
     * gather over the expert-TP group only when it is above 1
     * (token_dispatcher.py dispatch_postprocess, "if self.tp_size > 1") */
    uint64_t folded = in->l->etp == 1 ? in->moe : 0;
    uint64_t per_step = (2 * in->layers - folded) * in->micro;
    if (layers(in, out, PB_PH_FWD, per_step, "attention + MLP outputs",
               "gather sequence before attention + MLP", "scatter attention + MLP outputs", err) ||
        layers(in, out, PB_PH_BWD, per_step, "attention + MLP input gradients",
               "gather gradients (backward of scatter)", "scatter input gradients", err))
        return err->code;
    /* SP's weight-gradient gathers: the attention's QKV and a dense MLP's
     * first linear keep their sequence shard; an MoE layer's experts get
     * their tokens from the dispatcher, which keeps what it gathered */
    if (in->tp_strategy == PB_STRAT_SP && in->cfg->sp_regather) {
        tp_op_t w = {PB_ALLGATHER, PB_PH_BWD, (2 * in->layers - in->moe) * in->micro,
                     PB_STAGE_EVERY, "gather QKV's and MLP's inputs again for weight gradients"};
        if (push(in, out, &w, in->act, in->m->dtype, err))
            return err->code;
    }
    if (in->cfg->recompute &&
        layers(in, out, PB_PH_BWD, per_step, "recomputed forward (activation recompute)",
               "recomputed forward gather", "recomputed forward scatter", err))
        return err->code;
    if (ends(in, out, err))
        return err->code;
    return in->tp_strategy == PB_STRAT_SP ? norm_grads(in, out, err) : PB_OK;
}
