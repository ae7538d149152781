/* pb_step_mem.c - the memory model's settings of a step (pb_step.h):
 * which of the step's settings reach pb_memory, and how. */
#include <string.h>

#include "pb_step.h"

void pb_step_mem_cfg(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                     pb_mem_cfg_t *out)
{
    memset(out, 0, sizeof *out);
    out->micro = pb_traffic_micro(m, l);
    out->recomp = c->recomp, out->flash = c->flash, out->zero = c->traffic.zero;
    out->fp8 = c->fp8, out->framework = c->framework;
    out->optim_bytes = c->optim_bytes, out->loss_bytes = c->loss_bytes, out->loss_set = c->loss_set;
    out->fsdp2 = c->zero3_copies;
    out->dualpipe = c->dualpipe;
    pb_dtype_t pt = c->traffic.param_dtype >= 0 ? (pb_dtype_t)c->traffic.param_dtype : m->dtype;
    out->param_bytes = pt == PB_F32 ? PB_MEM_FP32_B : 2;
    /* the gradient type given (--grad-dtype, a grad_dtype column, the
     * model's own 16-bit type with the overlap letter h), else the stack's */
    if (c->grad_model_dtype)
        out->grad_bytes = (int)pb_dtype_size(m->dtype);
    else if (c->grad_dtype_set)
        out->grad_bytes = (int)pb_dtype_size(c->traffic.grad_dtype);
}
