#include "pb_job.h"

#include <string.h>

void pb_job_defaults(pb_job_t *j)
{
    memset(j, 0, sizeof *j);
    pb_layout_default(&j->layout);
    pb_step_cfg_default(&j->step);
    /* flash attention: Megatron-Core (Transformer Engine's fused
     * attention), NeMo and FSDP recipes all run a fused kernel, and for a
     * decoder it skips the masked half of the scores (FlashAttention-2,
     * Dao 2023, Sec. 3.1.1: "causal masking ... skip"), which Megatron's
     * FLOPs count has halved since 2025 (model/pb_flops.h) */
    j->step.flash = 1;
    j->step.causal = 1;
}

/* --hw-set key=value over the preset; --gpus-per-node with the NICs
 * scaled to the node unless --hw-set named their count */
static int hardware(const pb_predict_opts_t *h, pb_hw_t *hw, pb_err_t *err)
{
    if (pb_hw_preset(h->hw ? h->hw : "a100", hw, err))
        return err->code;
    for (int i = 0; i < h->nhw_set; i++)
        if (pb_hw_set_kv(hw, h->hw_set[i], err))
            return err->code;
    if (h->gpus_per_node) {
        int named = 0;
        for (int i = 0; i < h->nhw_set; i++)
            named |= strncmp(h->hw_set[i], "nics_per_node=", 14) == 0;
        pb_job_gpus_per_node(hw, h->gpus_per_node, named);
    }
    return pb_hw_check(hw, err);
}

void pb_job_gpus_per_node(pb_hw_t *hw, int gpus, int nics_named)
{
    if (nics_named)
        hw->gpus_per_node = gpus;
    else
        pb_hw_set_gpus_per_node(hw, gpus);
}

/* The stack's settings by name (pb_job_set), as a runs file's columns
 * give them: the framework first (its defaults), then the flags that
 * turn its defaults on or off, then the GEMMs' type, the TP overlap and
 * a recomputation mode. */
static int stack(const pb_predict_opts_t *h, const pb_train_opts_t *t, pb_job_t *j, pb_err_t *err)
{
    pb_step_cfg_t *s = &j->step;
    if (t->framework && pb_job_set(j, "framework", t->framework, err) != PB_OK)
        return err->code;
    if (h->overlap && pb_job_set(j, "overlap", h->overlap, err) != PB_OK)
        return err->code;
    if (h->fsdp2)
        s->zero3_copies = 1;
    if (h->unfused_accum)
        s->grad_accum_fused = 0;
    if (t->no_overlap_grad)
        s->overlap_grad = 0;
    if (t->no_overlap_tp_bwd)
        s->overlap_tp_bwd = 0;
    if (t->no_overlap_p2p)
        s->overlap_p2p = 0;
    if (h->gemm_dtype && pb_job_set(j, "dtype", h->gemm_dtype, err) != PB_OK)
        return err->code;
    if (h->tp_overlap && pb_job_set(j, "tp_overlap", h->tp_overlap, err) != PB_OK)
        return err->code;
    s->recomp = t->recompute ? PB_RECOMP_FULL : h->selective ? PB_RECOMP_SELECTIVE
                                                             : PB_RECOMP_NONE;
    if (h->recompute_mode && pb_job_set(j, "recompute", h->recompute_mode, err) != PB_OK)
        return err->code;
    if (h->moe_imbalance && pb_job_set(j, "moe_imbalance", h->moe_imbalance, err) != PB_OK)
        return err->code;
    if (h->moe_ep_overlap && pb_job_set(j, "moe_ep_overlap", "on", err) != PB_OK)
        return err->code;
    if (h->param_dtype && pb_job_set(j, "param_dtype", h->param_dtype, err) != PB_OK)
        return err->code;
    if (h->optim_dtype && pb_job_set(j, "optim_dtype", h->optim_dtype, err) != PB_OK)
        return err->code;
    if (h->loss && pb_job_set(j, "loss", h->loss, err) != PB_OK)
        return err->code;
    if (h->pp_schedule && pb_job_set(j, "pp_schedule", h->pp_schedule, err) != PB_OK)
        return err->code;
    if (h->fp8_recipe && pb_job_set(j, "fp8_recipe", h->fp8_recipe, err) != PB_OK)
        return err->code;
    return PB_OK;
}

int pb_job_settings(const pb_predict_opts_t *h, const pb_train_opts_t *t, pb_job_t *j,
                    pb_err_t *err)
{
    pb_job_defaults(j);
    if (hardware(h, &j->hw, err) != PB_OK)
        return err->code;
    pb_step_cfg_t *s = &j->step;
    if (stack(h, t, j, err) != PB_OK)
        return err->code;
    s->flash = !h->no_flash;
    /* causal counting follows the kernel: a fused one skips the masked
     * half, the materialised path computes every score and masks after */
    s->causal = h->no_causal ? 0 : h->causal ? 1 : s->flash;
    s->gpus_per_node = j->hw.gpus_per_node;
    if (t->dp_bucket)
        s->traffic.bucket = (pb_bucket_t)(t->dp_bucket - 1);
    s->traffic.zero = t->zero;
    s->traffic.imbalance = t->imbalance;
    if (h->ep_dispatcher && pb_ep_disp_parse(h->ep_dispatcher, &s->ep_disp) != 0)
        return pb_err_set(err, PB_EINPUT, "--ep-dispatcher takes alltoall, flex or auto, not '%s'",
                          h->ep_dispatcher);
    if (t->grad_dtype && pb_job_set(j, "grad_dtype", t->grad_dtype, err) != PB_OK)
        return pb_err_set(err, PB_EINPUT, "--grad-dtype takes fp32 or bf16, not '%s'",
                          t->grad_dtype);
    return PB_OK;
}

int pb_job_predict(const pb_job_t *j, const pb_calib_t *calib, int bound, pb_step_t *out,
                   pb_err_t *err)
{
    pb_cost_t cost = {&j->hw, calib, bound};
    return pb_step_model(&j->model, &j->layout, &j->step, &cost, out, err);
}
