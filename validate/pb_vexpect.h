/* pb_vexpect.h - what a rank pair's link should carry: the absolute side
 * of `parbench validate`.  Judging pairs only against each other passes a
 * cluster whose links all degraded together; judging each against its
 * link's line rate does not.  Pure: tested on made-up facts.
 *
 * The expectation is the link's line rate per direction, from physics:
 *  - NV#: links x the per-link rate of the NVLink generation, found from
 *    the GPU model (25 GB/s per link and direction for NVLink 2 to 4:
 *    V100 300, A100 600, H100 900 GB/s over 6, 12, 18 links both ways;
 *    50 GB/s for NVLink 5: B200 1.8 TB/s over 18 links; NVIDIA's
 *    datasheets);
 *  - XGMI#: links x the per-link rate of AMD's Infinity Fabric, found
 *    from the GPU architecture (50 GB/s per link and direction on gfx90a:
 *    MI250X; 64 on gfx942: MI300X, MI325X; 76.8 on gfx950: MI355X; AMD's
 *    data sheets, pb_vexpect_xgmi_per_link);
 *  - PIX, PXB (peer to peer under PCIe switches): the slower GPU's PCIe
 *    link, GT/s x lanes x encoding / 8 (8b/10b up to 5 GT/s, 128b/130b
 *    from 8 GT/s: Gen4 x16 31.5 GB/s, Gen5 x16 63.0 GB/s; PCI-SIG);
 *  - NET: the slower end's NIC line rate, divided among the ranks of its
 *    node that share that NIC and move data at the same moment;
 *  - PHB, NODE, SYS and the host classes (CORE ... SYS between host
 *    ranks): none from the topology.  Peer traffic through a host bridge
 *    or the CPUs' interconnect, and memory copies between processes, run
 *    at rates the topology does not state; an expectation claimed there
 *    would flag healthy machines.  `--expect CLASS=GB/s` gives one.
 * `--expect` wins over the topology for the class it names.
 *
 * A pair is slow for its link when its share (GB/s / expectation) is
 * below min_share in a strict majority of its votes.  The default
 * min_share, PB_VEXPECT_MIN_SHARE, is sourced in doc/topology-and-validate.md
 * ("Expected bandwidth"). */
#ifndef PB_VEXPECT_H
#define PB_VEXPECT_H

#include <stddef.h>

#include "../core/pb_link.h"
#include "../util/pb_err.h"

/* Healthy links reach 0.76 to 0.96 of their line rate in every source we
 * have: NCCL plans a PCIe Gen3 x16 path at 12 of 15.75 GB/s (0.76) and an
 * H100 NVLink at 20.6 of 25 GB/s (0.82); healthy H100 NVLink peer copies
 * reach 380 of 450 GB/s (0.84, CUDA's p2pBandwidthLatencyTest); Azure's
 * node health checks accept 52 of 63 GB/s on PCIe Gen5 (0.83) and 375 of
 * 400 Gb/s on NDR (0.94).  0.70 sits under the lowest of them, leaving
 * room for one pair's send/recv driving fewer channels than a collective,
 * and above 0.60: a link 40 % below its rate fails. */
#define PB_VEXPECT_MIN_SHARE 0.70

#define PB_VEXPECT_USER 16

/* --expect entries: a class as printed (NV18, XGMI1, PIX, NET, CORE) or a
 * class name alone (NV: every NVLink count; XGMI), and GB/s per direction. */
typedef struct pb_vexpect_user {
    char cls[16];
    double gbps;
} pb_vexpect_user_t;

typedef struct pb_vexpect_set {
    pb_vexpect_user_t e[PB_VEXPECT_USER];
    int n;
} pb_vexpect_set_t;

/* One rank's facts, found on its node (0 = unknown). */
typedef struct pb_vexpect_rank {
    double nvlink_gbps; /* one NVLink (NVIDIA) or xGMI link (AMD) of its GPU, per direction */
    double pcie_gbps;   /* its GPU's PCIe link, per direction */
    double nic_gbps;    /* its nearest NIC's line rate, 10^9 B/s */
} pb_vexpect_rank_t;

typedef struct pb_vexpect {
    double gbps;  /* 0: no expectation */
    char src[64]; /* where it comes from: "--expect", "18 NVLinks x 25 GB/s", ... */
} pb_vexpect_t;

/* Parses "CLASS=GB/s[,CLASS=GB/s...]" into s (appending; a class given
 * twice keeps the last).  PB_EINPUT with one line naming the problem. */
int pb_vexpect_parse(pb_vexpect_set_t *s, const char *spec, pb_err_t *err);

/* Per-link NVLink rate of a GPU model as hwloc/NVML name it ("NVIDIA
 * H100 80GB HBM3"), 0 when the model is not one this table knows. */
double pb_vexpect_nvlink_per_link(const char *model);

/* Per-link xGMI rate per direction (GB/s) of an AMD GPU architecture as
 * KFD or RCCL names it ("gfx942"), 0 when this table does not know it. */
double pb_vexpect_xgmi_per_link(const char *arch);

/* The expectation of a pair linked by l.  device: the backend moves
 * device memory (the GPU classes' rates apply only then); share_a,
 * share_b: ranks sharing each end's NIC at once (>= 1). */
void pb_vexpect_pair(const pb_vexpect_set_t *user, pb_link_t l, const pb_vexpect_rank_t *a,
                     const pb_vexpect_rank_t *b, int share_a, int share_b, int device,
                     pb_vexpect_t *out);

#endif
