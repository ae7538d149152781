#include "pb_traffic_cfg.h"

#include <string.h>

void pb_traffic_cfg_default(pb_traffic_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->bucket = PB_BUCKET_MEGATRON;
    c->zero = 0;
    /* gradients reduced in fp32: PyTorch AMP keeps fp32 gradients, and
     * Megatron with --accumulate-allreduce-grads-in-fp32 */
    c->grad_dtype = PB_F32;
    c->param_dtype = -1;
    c->imbalance = 1.0;
    pb_traffic_cfg_framework(c, PB_FW_MEGATRON);
}

void pb_traffic_cfg_framework(pb_traffic_cfg_t *c, pb_fw_t fw)
{
    const pb_fw_traffic_t *t = pb_fw_traffic(fw);
    c->sp_regather = t->sp_regather;
    c->z3_ends = t->z3_ends;
    c->z3_pp_once = t->z3_pp_once;
    c->sp_norm = t->sp_norm;
    c->ep_meta = t->ep_meta;
    c->moe_bias = t->moe_bias;
    c->bucket = t->bucket;
    c->dp_reduce = t->dp_reduce;
    c->grad_norm = t->grad_norm;
}

static const char *const bucket_names[] = {"megatron", "ddp", "deepspeed"};
#define NBUCKETS (int)(sizeof bucket_names / sizeof bucket_names[0])

int pb_bucket_parse(const char *s, pb_bucket_t *out)
{
    for (int k = 0; k < NBUCKETS; k++)
        if (strcmp(s, bucket_names[k]) == 0) {
            *out = (pb_bucket_t)k;
            return 0;
        }
    return -1;
}

uint64_t pb_bucket_elems(pb_bucket_t k, int dp_group, pb_dtype_t grad_dtype)
{
    if (k == PB_BUCKET_DDP)
        return PB_DDP_BUCKET_BYTES / pb_dtype_size(grad_dtype);
    if (k == PB_BUCKET_DEEPSPEED)
        return PB_DEEPSPEED_BUCKET_ELEMS;
    /* Megatron-LM distributed.DistributedDataParallel:
     * bucket_size = max(40000000, 1000000 * dp_size) parameters */
    uint64_t b = PB_MEGATRON_BUCKET_PER_DP * (uint64_t)dp_group;
    return b > PB_MEGATRON_BUCKET_MIN ? b : PB_MEGATRON_BUCKET_MIN;
}
