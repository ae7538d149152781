/* pb_mem_cap.h - what of a GPU's memory a training process can fill, and
 * whether a step's peak fits in it.
 *
 * The allocator's peak (pb_memory.h, "allocated") is not what fills the
 * device.  PyTorch's caching allocator keeps freed blocks for reuse and
 * splits them, so what it reserves exceeds what is allocated by its
 * fragmentation (alloc_frag: reserved = allocated x (1 + alloc_frag), measured per
 * stack, pb_framework.h);
 * and beside the allocator the device holds the CUDA context with the
 * libraries' kernels and workspaces (cuda_ctx_gib) and NCCL's buffers,
 * allocated by NCCL itself for each communicator (nccl_comm_mib each,
 * nccl_nvls_mib more for NVLink SHARP within a node).  So the allocator can
 * reserve what CUDA reports as the device's memory (hbm_cuda_gib) less
 * those two.  Every term is a field of the preset (pb_hw.h), overridable
 * with --hw-set; doc/MODEL.md, "Memory", gives each one's source. */
#ifndef PB_MEM_CAP_H
#define PB_MEM_CAP_H

#include "../patterns/pb_layout.h"
#include "pb_framework.h"
#include "pb_hw.h"

typedef struct pb_mem_cap {
    double device;  /* bytes CUDA reports (hbm_cuda_gib) */
    double context; /* bytes of the CUDA context and libraries */
    double nccl;    /* bytes of NCCL's buffers, all communicators */
    int comms;      /* the communicators counted */
    double usable;  /* device - context - nccl: what the allocator can reserve */
    double frag;    /* reserved / allocated - 1 */
} pb_mem_cap_t;

/* The capacity of hw for layout l run by stack fw (its allocator's
 * fragmentation, unless hw->alloc_frag >= 0 overrides it); net[k]: 1
 * when a group of kind k spans nodes (pb_step_group_net), NULL: none
 * does; moe: the model has experts (else no EP or EDP groups exist).
 * Communicators: one per group kind of more than one rank, the
 * model-parallel group (tp x pp, Megatron's gradient-norm reduction) when
 * both are above 1, and the default process group of all ranks (PyTorch
 * creates it; barriers and the loss's reductions use it); each takes
 * nccl_comm_mib, and one within a node nccl_nvls_mib more where the GPU
 * has NVLink SHARP. */
void pb_mem_cap(const pb_hw_t *hw, const pb_layout_t *l, int moe, pb_fw_t fw, const int *net,
                pb_mem_cap_t *out);

/* What the allocator reserves for a peak of `allocated` bytes: with room
 * to spare it keeps its cache, allocated x (1 + frag); it cannot reserve
 * past what the device leaves it (c->usable), where it frees cached
 * blocks and retries (below), so the figure stops there, or at
 * pb_mem_needed (allocated) for a peak that does not fit.  PyTorch's own
 * report: pytorch/torchtitan PR #165's run without recomputation
 * reserved 90.28 GiB, 94.99 % of a 95.04 GiB card, where a run with room
 * to spare keeps +20-37 %. */
double pb_mem_reserved(const pb_mem_cap_t *c, double allocated);

/* What the allocator needs at least for a peak of `allocated` bytes: near
 * capacity it frees its unused cached blocks and retries before it
 * fails (PyTorch CUDACachingAllocator: release_cached_blocks on a failed
 * cudaMalloc), so what decides whether a run fits is its allocated peak
 * and the fragmentation left under that pressure, PB_FRAG_AT_LIMIT:
 * reserved / allocated of runs at the card's limit, 1.006 to 1.008
 * (doc/MODEL.md, "Memory"). */
#define PB_FRAG_AT_LIMIT 0.01
double pb_mem_needed(double allocated);

/* The three verdicts, on the band of what the run will really reserve. */
typedef enum pb_mem_fit { PB_FIT_YES, PB_FIT_TIGHT, PB_FIT_NO } pb_mem_fit_t;

/* "fits", "tight", "does not fit" */
const char *pb_mem_fit_name(pb_mem_fit_t f);

/* The verdict for `reserved` bytes predicted with the memory band's
 * errors err_lo <= 0 <= err_hi (predicted / measured - 1, pb_band.h):
 * the real figure is likely within [reserved / (1 + err_hi),
 * reserved / (1 + err_lo)] (*lo, *hi).  Fits when the whole band is
 * within usable, does not fit when its low end is over it, tight
 * between. */
pb_mem_fit_t pb_mem_fit(double reserved, double usable, double err_lo, double err_hi, double *lo,
                        double *hi);

#endif
