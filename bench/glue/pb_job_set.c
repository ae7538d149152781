/* pb_job_set: a job's stack settings by name, the one way both a flag
 * (--framework, --overlap, --dtype, --tp-overlap, --recompute-mode, --moe-imbalance,
 * --moe-ep-overlap, --param-dtype) and a column of an --against file (the
 * same names with underscores) set them,
 * so the two mean the same.  One row of the table per key: its setter
 * and the values it takes, named in the refusal. */
#include "pb_job.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a setter: 0 done, -1 a value it does not take */
typedef int (*set_fn)(pb_job_t *j, const char *v);

/* the stack's defaults (pb_framework.c) over the step's settings:
 * what comes after (flags, columns) overrides them */
static int set_framework(pb_job_t *j, const char *v)
{
    pb_fw_t fw;
    if (pb_fw_parse(v, &fw) != 0)
        return -1;
    pb_step_cfg_framework(&j->step, fw);
    return 0;
}

/* the linear layers' GEMMs: bf16 or fp16 (the model's type, the same
 * tensor-core rate), or fp8 (Transformer Engine: the model, its
 * communication and its attention stay bf16) */
static int set_dtype(pb_job_t *j, const char *v)
{
    if (strcmp(v, "bf16") == 0 || strcmp(v, "fp8") == 0)
        j->model.dtype = PB_BF16;
    else if (strcmp(v, "fp16") == 0)
        j->model.dtype = PB_F16;
    else
        return -1;
    j->step.fp8 = strcmp(v, "fp8") == 0;
    return 0;
}

/* a fraction of the TP collectives hidden, or on (1) / off (0) */
static int set_tp_overlap(pb_job_t *j, const char *v)
{
    if (strcmp(v, "on") == 0 || strcmp(v, "off") == 0) {
        j->step.tp_overlap = v[1] == 'n' ? 1.0 : 0.0;
        return 0;
    }
    char *end;
    errno = 0;
    double f = strtod(v, &end);
    if (v[0] == '\0' || *end != '\0' || errno || !isfinite(f) || f < 0.0 || f > 1.0)
        return -1;
    j->step.tp_overlap = f;
    return 0;
}

static int set_recompute(pb_job_t *j, const char *v)
{
    return pb_recomp_parse(v, &j->step.recomp);
}

/* The letters of what a run overlapped, as an --against file's overlap
 * column has them: g gradient reduction during the backward, t the TP
 * backward collectives beside the weight-gradient GEMMs, p interleaved
 * send/recv beside compute; and how its gradients were kept: u added by a
 * separate pass per micro-batch (no gradient-accumulation fusion: 2021
 * Megatron, autograd, DeepSpeed), h kept and reduced in the model's 16
 * bits, c ZeRO-3 through PyTorch FSDP2's copies on the compute stream;
 * "-" none.  Every letter not given is off: the letters say it all. */
static int set_overlap(pb_job_t *j, const char *v)
{
    if (v[0] == '\0' || strspn(v, "gtpuhc-") != strlen(v))
        return -1;
    pb_step_cfg_t *c = &j->step;
    c->overlap_grad = strchr(v, 'g') != NULL;
    c->overlap_tp_bwd = strchr(v, 't') != NULL;
    c->overlap_p2p = strchr(v, 'p') != NULL;
    c->grad_accum_fused = strchr(v, 'u') == NULL;
    c->zero3_copies = strchr(v, 'c') != NULL;
    c->grad_model_dtype = strchr(v, 'h') != NULL;
    return 0;
}

/* the busiest EP rank's routed tokens / the mean, at least 1 */
static int set_moe_imbalance(pb_job_t *j, const char *v)
{
    char *end;
    errno = 0;
    double f = strtod(v, &end);
    if (v[0] == '\0' || *end != '\0' || errno || !isfinite(f) || f < 1.0)
        return -1;
    j->step.moe.imbalance = f;
    return 0;
}

static int on_off(const char *v, int *out)
{
    if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else
        return -1;
    return 0;
}

static int set_moe_ep_overlap(pb_job_t *j, const char *v)
{
    return on_off(v, &j->step.moe.ep_overlap);
}

/* the type ZeRO-3 gathers parameters in (pb_traffic_cfg.h) */
static int set_param_dtype(pb_job_t *j, const char *v)
{
    static const struct {
        const char *name;
        pb_dtype_t t;
    } tab[] = {{"fp32", PB_F32}, {"bf16", PB_BF16}, {"fp16", PB_F16}, {"fp8", PB_F8E4M3}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(v, tab[i].name) == 0) {
            j->step.traffic.param_dtype = (int)tab[i].t;
            return 0;
        }
    return -1;
}

/* the main gradients' type (pb_step.h, grad_dtype_set): the traffic's
 * reductions and the memory model's gradient buffer */
static int set_grad_dtype(pb_job_t *j, const char *v)
{
    if (pb_pat_dtype_parse(v, &j->step.traffic.grad_dtype) != 0)
        return -1;
    j->step.grad_dtype_set = 1;
    return 0;
}

/* Adam's state type: fp32 (an fp32 master beside 16-bit parameters) or
 * bf16 ("pure bf16": parameters, gradients and moments in bf16) */
static int set_optim_dtype(pb_job_t *j, const char *v)
{
    if (strcmp(v, "fp32") == 0)
        j->step.optim_bytes = 4;
    else if (strcmp(v, "bf16") == 0)
        j->step.optim_bytes = 2;
    else
        return -1;
    return 0;
}

/* The loss's bytes per logit at its peak (doc/MODEL.md, "Memory"):
 * vocab-parallel (Megatron-Core's: an fp32 copy beside the bf16 logits,
 * 6), compiled (torchtitan's loss under torch.compile: the bf16 logits and
 * their bf16 gradient, 4), fp32 (an eager upcast: log-softmax, its
 * gradient and the gradient's input, 12), hf (Hugging Face's fp32 logits kept by the
 * output: 16), chunked (torchtune's chunked loss: bf16 logits and one of
 * 8 chunks in fp32, 3.5), fused (a fused linear cross-entropy that never
 * holds the logits, Liger's: 0) */
static int set_loss(pb_job_t *j, const char *v)
{
    static const struct {
        const char *name;
        double bytes;
    } tab[] = {{"vocab-parallel", 6.0}, {"fused-ce", 4.0}, {"fp32", 12.0}, {"hf", 16.0},
               {"chunked", 3.5}, {"fused-linear", 0.0}};
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(v, tab[i].name) == 0) {
            j->step.loss_bytes = tab[i].bytes, j->step.loss_set = 1;
            return 0;
        }
    return -1;
}

/* torchao's float8 recipes by their names (float8/config.py,
 * Float8LinearRecipeName); Transformer Engine's delayed and current
 * scaling are per tensor, as tensorwise */
static int set_fp8_recipe(pb_job_t *j, const char *v)
{
    if (strcmp(v, "tensorwise") == 0)
        j->step.fp8_recipe = PB_FP8_TENSORWISE;
    else if (strcmp(v, "rowwise") == 0)
        j->step.fp8_recipe = PB_FP8_ROWWISE;
    else
        return -1;
    return 0;
}

/* DualPipe (pb_step.h dualpipe) overlaps the EP all-to-alls as
 * --moe-ep-overlap does (DeepSeek-V3 Sec. 3.2.1) */
static int set_pp_schedule(pb_job_t *j, const char *v)
{
    if (strcmp(v, "1f1b") == 0)
        j->step.dualpipe = 0;
    else if (strcmp(v, "dualpipe") == 0)
        j->step.dualpipe = 1, j->step.moe.ep_overlap = 1;
    else
        return -1;
    return 0;
}

static const struct {
    const char *key;
    set_fn set;
    const char *takes; /* for the refusal */
} keys[] = {
    {"framework", set_framework, "megatron, nemo, deepspeed, fsdp, torchtitan or maxtext"},
    {"dtype", set_dtype, "bf16, fp16 or fp8"},
    {"overlap", set_overlap, "letters of g, t, p, u, h, c, or '-'"},
    {"tp_overlap", set_tp_overlap, "a fraction from 0 to 1, on or off"},
    {"recompute", set_recompute, "none, selective, full, op or layer:N (N >= 1)"},
    {"moe_imbalance", set_moe_imbalance, "a number of at least 1"},
    {"moe_ep_overlap", set_moe_ep_overlap, "on, off, 1 or 0"},
    {"param_dtype", set_param_dtype, "fp32, bf16, fp16 or fp8"},
    {"grad_dtype", set_grad_dtype, "fp32 or bf16"},
    {"optim_dtype", set_optim_dtype, "fp32 or bf16"},
    {"loss", set_loss, "vocab-parallel, fused-ce, fp32, hf, chunked or fused-linear"},
    {"pp_schedule", set_pp_schedule, "1f1b or dualpipe"},
    {"fp8_recipe", set_fp8_recipe, "tensorwise or rowwise"},
};

int pb_job_set(pb_job_t *j, const char *key, const char *value, pb_err_t *err)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (strcmp(key, keys[i].key) != 0)
            continue;
        if (keys[i].set(j, value) != 0)
            return pb_err_set(err, PB_EINPUT, "%s '%s' is none of %s", key, value,
                              keys[i].takes);
        return PB_OK;
    }
    char names[256] = "";
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", keys[i].key);
    }
    return pb_err_set(err, PB_EINPUT, "unknown setting '%s' (%s)", key, names);
}
