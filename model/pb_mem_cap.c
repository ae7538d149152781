#include "pb_mem_cap.h"

#include "pb_memory.h"

void pb_mem_cap(const pb_hw_t *hw, const pb_layout_t *l, int moe, pb_fw_t fw, const int *net,
                pb_mem_cap_t *out)
{
    out->device = hw->hbm_cuda_gib * PB_GIB;
    out->context = hw->cuda_ctx_gib * PB_GIB;
    double mib = 0.0;
    out->comms = 0;
    for (int k = 0; k < PB_GK_COUNT; k++) {
        if (pb_layout_group_size(l, (pb_gkind_t)k) <= 1 ||
            (!moe && (k == PB_GK_EP || k == PB_GK_EDP)))
            continue;
        out->comms++;
        mib += hw->nccl_comm_mib + (net && net[k] ? 0.0 : hw->nccl_nvls_mib);
    }
    int tp = l->size[PB_DIM_TP], pp = l->size[PB_DIM_PP];
    if (tp > 1 && pp > 1) /* the model-parallel group, across nodes with the pipeline */
        out->comms++, mib += hw->nccl_comm_mib;
    if (pb_layout_world(l) > 1 && out->comms > 0) /* the default process group */
        out->comms++, mib += hw->nccl_comm_mib;
    out->nccl = mib * 1024.0 * 1024.0;
    out->usable = out->device - out->context - out->nccl;
    out->frag = hw->alloc_frag >= 0.0 ? hw->alloc_frag : pb_fw_desc(fw)->mem.alloc_frag;
}

double pb_mem_reserved(const pb_mem_cap_t *c, double allocated)
{
    double spare = allocated * (1.0 + c->frag), needed = pb_mem_needed(allocated);
    /* never past what the device leaves it: there it frees its cache */
    return spare <= c->usable ? spare : needed > c->usable ? needed : c->usable;
}

double pb_mem_needed(double allocated)
{
    return allocated * (1.0 + PB_FRAG_AT_LIMIT);
}

const char *pb_mem_fit_name(pb_mem_fit_t f)
{
    return f == PB_FIT_YES ? "fits" : f == PB_FIT_TIGHT ? "tight" : "does not fit";
}

pb_mem_fit_t pb_mem_fit(double reserved, double usable, double err_lo, double err_hi, double *lo,
                        double *hi)
{
    *lo = reserved / (1.0 + (err_hi > 0.0 ? err_hi : 0.0));
    *hi = reserved / (1.0 + (err_lo < 0.0 ? err_lo : 0.0));
    if (*hi <= usable)
        return PB_FIT_YES;
    return *lo > usable ? PB_FIT_NO : PB_FIT_TIGHT;
}
