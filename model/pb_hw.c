#include "pb_hw.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Wire efficiencies and latencies shared by the presets (used only where
 * no calibration covers a collective), doc/MODEL.md "Collectives":
 *  - nvlink_eff 0.8: nccl-tests all-reduce bus bandwidth on 8 A100 is
 *    230-240 GB/s of 300 GB/s per direction, on 8 H100 ~370 GB/s (ring)
 *    of 450 (NCCL's maintainers, NVIDIA/nccl-tests#149 and #212);
 *  - net_eff 0.92: NDR 400 Gb/s NICs give 46-49 GB/s each through NCCL
 *    (NVIDIA/nccl-tests#267 and #290), 46/50 = 0.92;
 *  - latencies 10 us within a node, 20 us across nodes: nccl-tests'
 *    small-message all-reduce on 8 H100 is 13-17 us (NVIDIA/dgxc-
 *    benchmarking nccl/README.md, 8 B 13.67 us, 64 KiB 19.54 us); the
 *    network adds a few microseconds per hop.
 * achievable 0.50: the flat-rate fallback (--tflops unset and the kernel
 *    model off): the end-to-end transformer-layer rate as a fraction of
 *    the dense bf16 peak.  Megatron-LM on A100 sustains 44-52 % of peak
 *    including its communication (Narayanan et al. 2021, Table 1: 138 to
 *    163 TFLOP/s of 312); Llama 3 405B on H100 reports 38-43 % MFU with
 *    all its communication (Dubey et al. 2024, Table 4): the compute
 *    alone is at least the upper end of both.  One value for every
 *    preset. */
#define COMMON 0.50, 0.80, 0.92, 10.0, 20.0
/* hbm_eff 0.85: fused norm / softmax / cross-entropy kernels reach about
 * 90 % of H100 HBM bandwidth (Dao-AILab/quack membound-sol blog, NCU),
 * BabelStream 78-84 % on H100 NVL, Calculon uses 0.90 for >= 100 MB
 * accesses (calculon-ai/calculon systems/a100_80g.json, h100_80g.json,
 * mem1 efficiency table): 0.85 for all. */
#define HBM_EFF 0.85
/* sustained: fitted on model/published_runs.csv's fit split by `parbench
 * model --against model/published_runs.csv`, one value per chip with 20
 * or more fit runs, the value of all fit runs for the others (its "fit:"
 * lines print what the fit split gives; unit_model_against checks the
 * presets agree), doc/MODEL.md, "Sustained rate". */
#define PB_SUSTAINED_A100 0.84
#define PB_SUSTAINED_H100 0.72
#define PB_SUSTAINED_ALL 0.77
/* What beside the allocator's peak fills a GPU (pb_mem_cap.h), the same
 * on every preset; doc/MODEL.md, "Memory", sources each:
 * PB_CUDA_CTX_GIB the CUDA context, PB_NCCL_COMM_MIB NCCL's buffers per
 * communicator, PB_ALLOC_FRAG the caching allocator's reserve over its
 * peak allocation: -1, the stack's (pb_framework.h). */
#define PB_CUDA_CTX_GIB 0.267
#define PB_NCCL_COMM_MIB 294.0
#define PB_ALLOC_FRAG (-1.0)
/* NVLink SHARP (Hopper and Blackwell NVSwitch nodes): NCCL's NVLS buffers
 * per communicator within a node */
#define PB_NCCL_NVLS_MIB 256.0
#define MEMCAP PB_CUDA_CTX_GIB, PB_NCCL_COMM_MIB, 0.0, PB_ALLOC_FRAG
#define MEMCAP_NVLS PB_CUDA_CTX_GIB, PB_NCCL_COMM_MIB, PB_NCCL_NVLS_MIB, PB_ALLOC_FRAG

/* One row per GPU, every number from one kind of source for every GPU
 * (doc/MODEL.md, "Presets", has the table with a source per cell):
 * peaks, memory, NVLink and NICs from NVIDIA's datasheets; SMs from the
 * whitepapers or the device's own properties; gemm_eff = the best bf16
 * GEMM rate stas00/ml-engineering's MAMF search measured (compute/
 * accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison
 * table") / that table's dense peak: A100 SXM 271.2/312, H100 SXM (and
 * "H200 is the same") 794.5/989, B200 SXM 1745.0/2250, GB200 1822.0/2500
 * (a cuBLAS 8192^3 on this project's H200 gives 788, 0.797, within 1 %);
 * attention: FA2 on A100, cuDNN on H100/H200 (TransformerEngine
 * attention.ipynb, 514), the H100 rate x the bf16 peak ratio on
 * Blackwell [derived]; FlashAttention-2's: A100's the same kernel, H100's
 * from FlashAttention-3's benchmark figures (322), Blackwell's the H100
 * rate x the peak ratio [assumption].  Fields: name, chip, vendor, bf16, fp8, GiB, TB/s, NVLink GB/s
 * one way, NICs, Gb/s, GPUs per NVLink domain, COMMON, SMs, gemm_eff,
 * fp8_gemm_eff (the same method on the MAMF table's fp8 rows),
 * attention TFLOP/s, FlashAttention-2's, HBM_EFF, the chip's sustained share, the GiB CUDA
 * reports (hbm_cuda_gib), MEMCAP. */
static const pb_hw_t presets[] = {
    {"a100", "a100", "nvidia", 312.0, 0.0, 80.0, 2.039, 300.0, 8, 200.0, 8, COMMON, 108, 0.869, 0.0, 153.0, 153.0, HBM_EFF, PB_SUSTAINED_A100, 79.15, MEMCAP},
    {"a100-40gb", "a100", "nvidia", 312.0, 0.0, 40.0, 1.555, 300.0, 8, 200.0, 8, COMMON, 108, 0.869, 0.0, 153.0, 153.0, HBM_EFF, PB_SUSTAINED_A100, 39.39, MEMCAP},
    {"h100", "h100", "nvidia", 989.0, 1979.0, 80.0, 3.35, 450.0, 8, 400.0, 8, COMMON, 132, 0.803, 0.709, 514.0, 322.0, HBM_EFF, PB_SUSTAINED_H100, 79.18, MEMCAP_NVLS},
    {"h200", "h100", "nvidia", 989.0, 1979.0, 141.0, 4.8, 450.0, 8, 400.0, 8, COMMON, 132, 0.803, 0.734, 514.0, 322.0, HBM_EFF, PB_SUSTAINED_H100, 139.80, MEMCAP_NVLS},
    /* the H100's GH100 die with its NVLink cut to 400 GB/s both ways */
    {"h800", "h100", "nvidia", 989.0, 1979.0, 80.0, 3.35, 200.0, 8, 400.0, 8, COMMON, 132, 0.803, 0.709, 514.0, 322.0, HBM_EFF, PB_SUSTAINED_H100, 79.18, MEMCAP_NVLS},
    {"b200", "b200", "nvidia", 2250.0, 4500.0, 180.0, 8.0, 900.0, 8, 400.0, 8, COMMON, 148, 0.776, 0.763, 1170.0, 733.0, HBM_EFF, PB_SUSTAINED_ALL, 178.35, MEMCAP_NVLS},
    {"gb200", "b200", "nvidia", 2500.0, 5000.0, 186, 8.0, 900.0, 72, 400.0, 72, COMMON, 152, 0.729, 0.723, 1300.0, 814.0, HBM_EFF, PB_SUSTAINED_ALL, 184.3, MEMCAP_NVLS},
    /* AMD Instinct (doc/MODEL.md, "Presets", [MI300X] ... [MAMF-AMD]):
     * peaks, memory, xGMI (7 links of 64 GB/s each way) from AMD's data
     * sheets; NICs from the clouds' MI300X nodes; CUs in the SMs column;
     * gemm_eff = the MAMF table's AMD rows / the dense peak; fp8 share,
     * attention and the HIP-reported memory of the MI325X and MI355X by the
     * NVIDIA presets' method for a missing source [assumption]; the
     * sustained share of all fit runs (fewer than 20 of their own). */
    {"mi300x", "mi300x", "amd", 1307.4, 2614.9, 192.0, 5.3, 448.0, 8, 400.0, 8, COMMON, 304, 0.511, 0.511, 679.0, 426.0, HBM_EFF, PB_SUSTAINED_ALL, 191.69, MEMCAP},
    {"mi325x", "mi300x", "amd", 1307.4, 2614.9, 256.0, 6.0, 448.0, 8, 400.0, 8, COMMON, 304, 0.600, 0.600, 679.0, 426.0, HBM_EFF, PB_SUSTAINED_ALL, 255.58, MEMCAP},
    {"mi355x", "mi355x", "amd", 2500.0, 5000.0, 288.0, 8.0, 537.6, 8, 400.0, 8, COMMON, 256, 0.626, 0.626, 1300.0, 814.0, HBM_EFF, PB_SUSTAINED_ALL, 287.53, MEMCAP},
};
#define NPRESETS (sizeof presets / sizeof presets[0])

static const struct {
    const char *alias, *name;
} aliases[] = {
    {"a100-80gb", "a100"},          {"a100-sxm", "a100"},  {"a100-80gb-sxm", "a100"},
    {"a100-40gb-sxm", "a100-40gb"}, {"h100-80gb", "h100"}, {"h100-sxm", "h100"},
    {"h100-80gb-sxm", "h100"},      {"h200-sxm", "h200"},  {"b200-sxm", "b200"},
    {"gb200-nvl72", "gb200"},       {"h800-sxm", "h800"},  {"mi300x-oam", "mi300x"},
    {"mi325x-oam", "mi325x"},       {"mi355x-oam", "mi355x"},
};

const char *pb_hw_preset_name(int i)
{
    return i >= 0 && (size_t)i < NPRESETS ? presets[i].name : NULL;
}

int pb_hw_preset(const char *name, pb_hw_t *out, pb_err_t *err)
{
    const char *want = name;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(aliases[i].alias, name) == 0)
            want = aliases[i].name;
    for (size_t i = 0; i < NPRESETS; i++)
        if (strcasecmp(presets[i].name, want) == 0) {
            *out = presets[i];
            return PB_OK;
        }
    /* the names from the table itself, so the message never falls behind */
    char known[128] = "";
    size_t at = 0;
    for (size_t i = 0; i < NPRESETS && at < sizeof known; i++) {
        int w = snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "", presets[i].name);
        at += w > 0 ? (size_t)w : 0;
    }
    return pb_err_set(err, PB_EINPUT, "unknown hardware '%s' (known: %s)", name, known);
}

int pb_hw_set(pb_hw_t *hw, const char *key, const char *value, pb_err_t *err)
{
    static const struct {
        const char *key;
        size_t off;
        int is_int;
    } tab[] = {
        {"bf16_tflops", offsetof(pb_hw_t, bf16_tflops), 0},
        {"fp8_tflops", offsetof(pb_hw_t, fp8_tflops), 0},
        {"hbm_gib", offsetof(pb_hw_t, hbm_gib), 0},
        {"hbm_tbps", offsetof(pb_hw_t, hbm_tbps), 0},
        {"nvlink_gbps", offsetof(pb_hw_t, nvlink_gbps), 0},
        {"nics_per_node", offsetof(pb_hw_t, nics_per_node), 1},
        {"nic_gbitps", offsetof(pb_hw_t, nic_gbitps), 0},
        {"gpus_per_node", offsetof(pb_hw_t, gpus_per_node), 1},
        {"achievable", offsetof(pb_hw_t, achievable), 0},
        {"nvlink_eff", offsetof(pb_hw_t, nvlink_eff), 0},
        {"net_eff", offsetof(pb_hw_t, net_eff), 0},
        {"lat_intra_us", offsetof(pb_hw_t, lat_intra_us), 0},
        {"lat_net_us", offsetof(pb_hw_t, lat_net_us), 0},
        {"sms", offsetof(pb_hw_t, sms), 1},
        {"gemm_eff", offsetof(pb_hw_t, gemm_eff), 0},
        {"fp8_gemm_eff", offsetof(pb_hw_t, fp8_gemm_eff), 0},
        {"sustained", offsetof(pb_hw_t, sustained), 0},
        {"hbm_cuda_gib", offsetof(pb_hw_t, hbm_cuda_gib), 0},
        {"cuda_ctx_gib", offsetof(pb_hw_t, cuda_ctx_gib), 0},
        {"nccl_comm_mib", offsetof(pb_hw_t, nccl_comm_mib), 0},
        {"nccl_nvls_mib", offsetof(pb_hw_t, nccl_nvls_mib), 0},
        {"alloc_frag", offsetof(pb_hw_t, alloc_frag), 0},
        {"attn_tflops", offsetof(pb_hw_t, attn_tflops), 0},
        {"attn_fa2_tflops", offsetof(pb_hw_t, attn_fa2_tflops), 0},
        {"hbm_eff", offsetof(pb_hw_t, hbm_eff), 0},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(tab[i].key, key) != 0)
            continue;
        char *end;
        errno = 0;
        double x = strtod(value, &end);
        if (value[0] == '\0' || *end != '\0' || errno || !isfinite(x) || x < 0.0 ||
            (tab[i].is_int && (x != floor(x) || x < 1.0 || x > 1e6)))
            return pb_err_set(err, PB_EINPUT, "bad value '%s' for hardware field %s", value, key);
        char *p = (char *)hw + tab[i].off;
        if (tab[i].is_int)
            *(int *)(void *)p = (int)x;
        else
            *(double *)(void *)p = x;
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT,
                      "unknown hardware field '%s' (bf16_tflops, fp8_tflops, hbm_gib, hbm_tbps, "
                      "nvlink_gbps, nics_per_node, nic_gbitps, gpus_per_node, achievable, "
                      "nvlink_eff, net_eff, lat_intra_us, lat_net_us, sms, gemm_eff, fp8_gemm_eff, sustained, "
                      "attn_tflops, attn_fa2_tflops, hbm_eff, hbm_cuda_gib, cuda_ctx_gib, nccl_comm_mib, nccl_nvls_mib, "
                      "alloc_frag)",
                      key);
}

int pb_hw_set_kv(pb_hw_t *hw, const char *kv, pb_err_t *err)
{
    char key[64];
    const char *eq = strchr(kv, '=');
    size_t kl = eq ? (size_t)(eq - kv) : 0;
    if (eq == NULL || kl == 0)
        return pb_err_set(err, PB_EINPUT, "hardware settings take key=value, not '%s'", kv);
    if (kl >= sizeof key)
        return pb_err_set(err, PB_EINPUT, "hardware setting: key too long in '%s'", kv);
    memcpy(key, kv, kl);
    key[kl] = '\0';
    return pb_hw_set(hw, key, eq + 1, err);
}

int pb_hw_check(const pb_hw_t *hw, pb_err_t *err)
{
    if (!(hw->bf16_tflops > 0 && hw->hbm_gib > 0 && hw->hbm_tbps > 0 && hw->nvlink_gbps > 0 &&
          hw->nic_gbitps > 0))
        return pb_err_set(err, PB_EINPUT, "hardware '%s': rates and sizes must be above 0",
                          hw->name);
    if (!(hw->achievable > 0 && hw->achievable <= 1 && hw->nvlink_eff > 0 &&
          hw->nvlink_eff <= 1 && hw->net_eff > 0 && hw->net_eff <= 1 && hw->gemm_eff > 0 &&
          hw->gemm_eff <= 1 && hw->sustained > 0 && hw->sustained <= 1 && hw->hbm_eff > 0 && hw->hbm_eff <= 1 && hw->attn_tflops > 0 && hw->attn_fa2_tflops > 0))
        return pb_err_set(err, PB_EINPUT,
                          "hardware '%s': achievable, efficiencies and shares must be in (0, 1], "
                          "attn_tflops and attn_fa2_tflops above 0",
                          hw->name);
    if (!(hw->hbm_cuda_gib > 0 && hw->hbm_cuda_gib <= hw->hbm_gib && hw->alloc_frag < 1 &&
          hw->cuda_ctx_gib + hw->nccl_comm_mib / 1024.0 < hw->hbm_cuda_gib))
        return pb_err_set(err, PB_EINPUT,
                          "hardware '%s': hbm_cuda_gib must be above 0 and at most hbm_gib, "
                          "alloc_frag below 1, and the CUDA context and one communicator's NCCL "
                          "buffers below hbm_cuda_gib",
                          hw->name);
    return PB_OK;
}

void pb_hw_set_gpus_per_node(pb_hw_t *hw, int g)
{
    if (g <= 0 || hw->gpus_per_node <= 0)
        return;
    long nics = ((long)hw->nics_per_node * g + hw->gpus_per_node / 2) / hw->gpus_per_node;
    hw->nics_per_node = nics < 1 ? 1 : (int)nics;
    hw->gpus_per_node = g;
}

#define PB_BITS_PER_BYTE 8.0
/* log2 of the 8 ranks the preset latencies were read at (doc/MODEL.md,
 * pb_hw_lat_depth) */
#define PB_LAT_DEPTH_LOG2 3.0

double pb_hw_net_gbps_per_gpu(const pb_hw_t *hw)
{
    return hw->nics_per_node * hw->nic_gbitps / PB_BITS_PER_BYTE / hw->gpus_per_node;
}

int pb_hw_is_amd(const pb_hw_t *hw)
{
    return strcmp(hw->vendor, "amd") == 0;
}

double pb_hw_lat_depth(double n)
{
    double depth = log2(n) / PB_LAT_DEPTH_LOG2;
    return depth > 1.0 ? depth : 1.0;
}
