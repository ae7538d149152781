/* Issue 51: the AMD Instinct presets and RCCL's latency constants in the
 * calibration transfer.  Every expected number is read from the cited
 * source or worked by hand here, not taken from the code's output.
 *
 * Presets (doc/MODEL.md, "Presets", [MI300X], [MI325X], [MI355X],
 * [MAMF-AMD], [NIC-AMD]):
 *  - MI300X data sheet: 1307.4 TFLOP/s bf16 dense, 2614.9 fp8 dense,
 *    192 GB HBM3 at 5.3 TB/s, 304 CUs, 7 Infinity Fabric links of 128
 *    GB/s both ways = 7 x 64 = 448 GB/s each way;
 *  - MI325X: the MI300X's compute, 256 GB HBM3E at 6.0 TB/s;
 *  - MI355X: 2.5 PFLOP/s bf16, 5 fp8 dense, 288 GB HBM3E at 8 TB/s, 256
 *    CUs, 7 links of 153.6 GB/s both ways = 7 x 76.8 = 537.6 each way;
 *  - ml-engineering's MAMF table (744d01e1): MI300X 668.4, MI325X 784.9,
 *    MI355X 1565.0 TFLOP/s, over the dense peaks above;
 *  - a node: 8 GPUs, 8 x 400 Gb/s NICs (Azure ND MI300X v5);
 *  - HIP's memory of an MI300X: 205822885888 B = 191.69 GiB.
 *
 * RCCL (ROCm/rccl 0cbce2a7 src/graph/tuning.cc): baseLat 12.0 (LL, tree
 * and ring, :58); tuning_model_5 (:224, MI300X's, rome_models.cc:559):
 * xGMI ("NVLINK" row) tree 0.9, ring 0.8; NET tree 10.5, ring 9.5.  NCCL:
 * 6.8 / 6.6 base, 0.6 NVLink, 5.0 / 2.7 network, the ring's network step
 * the tree's with one rank per node.  Network overhead per intra step
 * 1.0 on both. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_test.h"
#include "model/pb_calib.h"
#include "model/pb_cost.h"
#include "model/pb_hw.h"

#define MIB (UINT64_C(1) << 20)
#define X256 (UINT64_C(256) << 20)

static void presets(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_hw_t hw;
    CHECK(pb_hw_preset("mi300x", &hw, &err) == PB_OK);
    CHECK(pb_hw_check(&hw, &err) == PB_OK);
    CHECK(strcmp(hw.vendor, "amd") == 0 && pb_hw_is_amd(&hw) && strcmp(hw.chip, "mi300x") == 0);
    CHECK_NEAR(hw.bf16_tflops, 1307.4, 1e-12);
    CHECK_NEAR(hw.fp8_tflops, 2614.9, 1e-12);
    CHECK_NEAR(hw.hbm_gib, 192.0, 1e-12);
    CHECK_NEAR(hw.hbm_tbps, 5.3, 1e-12);
    CHECK_NEAR(hw.nvlink_gbps, 7 * 64.0, 1e-12);
    CHECK(hw.gpus_per_node == 8 && hw.nics_per_node == 8 && hw.sms == 304);
    CHECK_NEAR(hw.nic_gbitps, 400.0, 1e-12);
    CHECK_NEAR(hw.gemm_eff, 668.4 / 1307.4, 1e-3);
    CHECK_NEAR(hw.hbm_cuda_gib, 205822885888.0 / 1073741824.0, 1e-4);
    /* NICs per GPU: 8 x 400 / 8 bits / 8 GPUs = 50 GB/s */
    CHECK_NEAR(pb_hw_net_gbps_per_gpu(&hw), 50.0, 1e-12);

    pb_hw_t oam;
    CHECK(pb_hw_preset("MI300X-OAM", &oam, &err) == PB_OK && strcmp(oam.name, "mi300x") == 0);

    CHECK(pb_hw_preset("mi325x", &hw, &err) == PB_OK);
    CHECK(pb_hw_check(&hw, &err) == PB_OK);
    CHECK(pb_hw_is_amd(&hw) && strcmp(hw.chip, "mi300x") == 0);
    CHECK_NEAR(hw.bf16_tflops, 1307.4, 1e-12);
    CHECK_NEAR(hw.hbm_gib, 256.0, 1e-12);
    CHECK_NEAR(hw.hbm_tbps, 6.0, 1e-12);
    CHECK_NEAR(hw.gemm_eff, 784.9 / 1307.4, 1e-3);

    CHECK(pb_hw_preset("mi355x", &hw, &err) == PB_OK);
    CHECK(pb_hw_check(&hw, &err) == PB_OK);
    CHECK(pb_hw_is_amd(&hw) && strcmp(hw.chip, "mi355x") == 0 && hw.sms == 256);
    CHECK_NEAR(hw.bf16_tflops, 2500.0, 1e-12);
    CHECK_NEAR(hw.fp8_tflops, 5000.0, 1e-12);
    CHECK_NEAR(hw.hbm_gib, 288.0, 1e-12);
    CHECK_NEAR(hw.hbm_tbps, 8.0, 1e-12);
    CHECK_NEAR(hw.nvlink_gbps, 7 * 76.8, 1e-12);
    CHECK_NEAR(hw.gemm_eff, 1565.0 / 2500.0, 1e-3);

    CHECK(pb_hw_preset("h100", &hw, &err) == PB_OK);
    CHECK(strcmp(hw.vendor, "nvidia") == 0 && !pb_hw_is_amd(&hw));
}

/* The LL latency composition with each vendor's constants, by hand:
 *  - tree all-reduce, 2 nodes x 8: RCCL 12.0 + 2 (7 x 0.9 + 1 x 10.5) =
 *    45.6 us; NCCL 6.8 + 2 (7 x 0.6 + 5.0) = 25.2 us;
 *  - ring all-gather, 16 ranks on 2 nodes: RCCL 12.0 + 14 x max(0.8, 1.0)
 *    + 1 x 9.5 = 35.5; NCCL 6.6 + 14 x 1.0 + 2.7 = 23.3;
 *  - ring reduce-scatter, one rank on each of 4 nodes: RCCL 12.0 + 3 x
 *    9.5 = 40.5; NCCL 6.6 + 3 x 5.0 (the tree's) = 21.6. */
static void latencies(void)
{
    pb_err_t err;
    pb_err_clear(&err);
    pb_hw_t mi, h;
    CHECK(pb_hw_preset("mi300x", &mi, &err) == PB_OK);
    CHECK(pb_hw_preset("h100", &h, &err) == PB_OK);
    CHECK_NEAR(pb_cost_ll_latency_us(&mi, PB_ALLREDUCE, 16, 8, 2), 45.6, 1e-12);
    CHECK_NEAR(pb_cost_ll_latency_us(&h, PB_ALLREDUCE, 16, 8, 2), 25.2, 1e-12);
    CHECK_NEAR(pb_cost_ll_latency_us(&mi, PB_ALLGATHER, 16, 8, 2), 35.5, 1e-12);
    CHECK_NEAR(pb_cost_ll_latency_us(&h, PB_ALLGATHER, 16, 8, 2), 23.3, 1e-12);
    CHECK_NEAR(pb_cost_ll_latency_us(&mi, PB_REDUCESCATTER, 4, 1, 4), 40.5, 1e-12);
    CHECK_NEAR(pb_cost_ll_latency_us(&h, PB_REDUCESCATTER, 4, 1, 4), 21.6, 1e-12);
}

/* The transfer itself: tests/unit/test_calib_transfer.c's curve (an
 * all-reduce of 8 ranks on 2 nodes x 4, 16 MiB 179.9 us, 256 MiB 1948.7
 * us; alpha = 179.9 - 16777216 x 1768.8 / 251658240 us) moved to 32
 * ranks, one a node, at 256 MiB.  The bandwidth part is the same on both
 * presets (46 GB/s a NIC on each; no xGMI/NVLink leg with one rank a
 * node), so the two answers differ only by the latency ratio:
 * RCCL 12.0 + 2 (5 x 10.5) = 117.0 over 12.0 + 2 (3 x 0.9 + 10.5) = 38.4;
 * NCCL 6.8 + 2 (5 x 5.0) = 56.8 over 6.8 + 2 (3 x 0.6 + 5.0) = 20.4. */
static void transfer(void)
{
    static const uint64_t b[4] = {8, MIB, 16 * MIB, X256};
    static const double t[4][2] = {{30.12, 29.85}, {52.4, 52.1}, {180.5, 179.9}, {1950.3, 1948.7}};
    pb_meas_t p[8];
    memset(p, 0, sizeof p);
    for (int i = 0; i < 8; i++) {
        p[i].coll = PB_ALLREDUCE, p[i].n = 8, p[i].dtype = PB_F32, p[i].per_node = 4;
        snprintf(p[i].link, sizeof p[i].link, "NET");
        p[i].bytes = b[i / 2], p[i].time_us = t[i / 2][i % 2];
    }
    pb_err_t err;
    pb_err_clear(&err);
    pb_calib_t k;
    pb_calib_init(&k);
    CHECK(pb_calib_fit(p, 8, 0.05, &k, &err) == PB_OK && k.n == 1);
    pb_hw_t mi, h;
    CHECK(pb_hw_preset("mi300x", &mi, &err) == PB_OK);
    CHECK(pb_hw_preset("h100", &h, &err) == PB_OK);
    pb_cost_t cm = {&mi, &k, 0}, ch = {&h, &k, 0};
    double tm = pb_cost_place_us(&cm, PB_ALLREDUCE, PB_F32, 32, 1, 1, X256, 1.0, NULL);
    double th = pb_cost_place_us(&ch, PB_ALLREDUCE, PB_F32, 32, 1, 1, X256, 1.0, NULL);
    double alpha = 179.9 - 16777216.0 * (1948.7 - 179.9) / (268435456.0 - 16777216.0);
    CHECK_NEAR(alpha, 61.98, 1e-3);
    CHECK_NEAR(tm - th, alpha * (117.0 / 38.4 - 56.8 / 20.4), 1e-6);
    pb_calib_free(&k);
}

int main(void)
{
    presets();
    latencies();
    transfer();
    PB_TEST_END("unit_hw_amd");
}
