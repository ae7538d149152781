/* pb_hw.h - what one GPU and its node can do, as the step model needs it:
 * dense peak rates, memory size and bandwidth, NVLink and network
 * bandwidth, GPUs per node.  Presets carry published numbers (sources in
 * pb_hw.c and doc/MODEL.md); every field can be overridden by name. */
#ifndef PB_HW_H
#define PB_HW_H

#include "../util/pb_err.h"

typedef struct pb_hw {
    char name[32];
    /* The silicon: presets of one chip (a100: A100 80 and 40 GB; h100:
     * H100 and H200, the same GH100 die; b200: B200 and GB200; mi300x:
     * MI300X and MI325X, one CDNA 3 die) share the sustained share fitted
     * on their runs. */
    char chip[16];
    /* "nvidia" or "amd": whose collective library (NCCL or RCCL) the
     * calibration transfer takes its latency constants from (pb_cost.c,
     * doc/MODEL.md "Collectives") */
    char vendor[8];
    double bf16_tflops;  /* dense (no sparsity) peak, 10^12 FLOP/s */
    double fp8_tflops;   /* dense peak; 0 = no fp8 tensor cores */
    double hbm_gib;      /* memory per GPU, GiB */
    double hbm_tbps;     /* memory bandwidth, 10^12 B/s */
    double nvlink_gbps;  /* NVLink bandwidth per GPU per direction, 10^9 B/s */
    int nics_per_node;   /* compute-fabric NICs */
    double nic_gbitps;   /* one NIC's line rate, 10^9 bit/s */
    int gpus_per_node;
    /* Fraction of the bf16 peak a whole transformer layer sustains
     * (GEMMs, attention, norms, element-wise kernels); see pb_hw.c. */
    double achievable;
    /* Efficiencies of the wire (what NCCL reaches / line rate) and
     * latencies of one collective step, used when no calibration exists. */
    double nvlink_eff, net_eff;
    double lat_intra_us, lat_net_us;
    /* The kernel-by-kernel compute model (pb_kernels.h): streaming
     * multiprocessors (informative: no formula reads them since wave
     * quantization left pb_gemm_rate.c), the share of the bf16 peak the
     * best-shaped GEMM reaches (the MAMF search's best / the dense peak,
     * the same method on every preset), the fused attention rate (forward
     * + backward, 10^12 FLOP/s counted as 3.5 x the forward, the
     * flash-attention benchmarks' convention) and the share of HBM
     * bandwidth a fused memory-bound kernel reaches.  doc/MODEL.md,
     * "Presets", gives every number's source. */
    int sms;
    double gemm_eff;
    /* the same for fp8 GEMMs: best-shape fp8 rate / dense fp8 peak (0: no
     * fp8 tensor cores) */
    double fp8_gemm_eff;
    double attn_tflops;
    /* the same for FlashAttention-2 (the flash-attn 2 package, PyTorch
     * SDPA's flash backend): the kernel PyTorch-native stacks run
     * (pb_framework.h attn_fa2), slower than cuDNN's on Hopper */
    double attn_fa2_tflops;
    double hbm_eff;
    /* Share of the isolated tensor-core rates above (GEMMs, fused
     * attention) a training step sustains: the one constant fitted to
     * published runs, on the runs file's fit split only (doc/MODEL.md,
     * "Sustained rate"); 1 gives the isolated kernels' rates. */
    double sustained;
    /* What a training process can fill (pb_mem_cap.h; doc/MODEL.md,
     * "Memory", sources each): the device's memory as CUDA reports it
     * (cudaMemGetInfo's total, below the datasheet's hbm_gib), the CUDA
     * context with the libraries' kernels and workspaces, NCCL's buffers
     * per communicator, and the caching allocator's fragmentation
     * (reserved / allocated - 1). */
    double hbm_cuda_gib;
    double cuda_ctx_gib;
    double nccl_comm_mib;
    double nccl_nvls_mib; /* NVLink SHARP buffers per communicator within a node (0: none) */
    double alloc_frag;
} pb_hw_t;

const char *pb_hw_preset_name(int i); /* NULL after the last */
/* Names are matched case-insensitively, with aliases (h100 = h100-sxm). */
int pb_hw_preset(const char *name, pb_hw_t *out, pb_err_t *err);
/* key = value override (keys: the field names above). */
int pb_hw_set(pb_hw_t *hw, const char *key, const char *value, pb_err_t *err);
/* The same from one "key=value" (--hw-set's form, a runs file's hw_set). */
int pb_hw_set_kv(pb_hw_t *hw, const char *kv, pb_err_t *err);
int pb_hw_check(const pb_hw_t *hw, pb_err_t *err);

/* Per-GPU network bandwidth when every GPU of a node talks at once
 * (NICs shared), 10^9 B/s, before efficiency. */
/* A node of g GPUs built like the preset's: the NICs keep their ratio to
 * the GPUs (a DGX's 8 NICs per 8 GPUs are 2 NICs for a 2-GPU node, at
 * least one), so the network bandwidth per GPU stays the preset's. */
void pb_hw_set_gpus_per_node(pb_hw_t *hw, int g);

/* How many latencies a preset collective of n ranks pays: 1 up to 8
 * ranks, then log2(n)/3 (a tree's depth grows with the log of the group;
 * 8 ranks, one level, are what the presets' latencies were read at). */
double pb_hw_lat_depth(double n);

double pb_hw_net_gbps_per_gpu(const pb_hw_t *hw);

/* 1 for an AMD GPU (vendor "amd": RCCL's tuning), 0 otherwise (NCCL's). */
int pb_hw_is_amd(const pb_hw_t *hw);

#endif
