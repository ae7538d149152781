/* pb_kfd.h - AMD GPUs and their xGMI (Infinity Fabric) links from the
 * kernel's KFD topology in sysfs, the source ROCm's own runtime reads.
 *
 * The tree, under root (the sysfs mount, "/sys"; tests give a copy, as
 * HWLOC_FSROOT does for hwloc):
 *   class/kfd/kfd/topology/nodes/N/properties   "key value" lines; a GPU
 *       node has a nonzero gfx_target_version (CPU nodes say 0) and its
 *       PCI address as domain + location_id, the kernel's pci_dev_id():
 *       bus << 8 | device << 3 | function (kfd_topology.c);
 *   nodes/N/io_links/M/properties, nodes/N/p2p_links/M/properties
 *       type (kfd_crat.h: 2 PCIe, 11 xGMI), node_from, node_to,
 *       min_bandwidth, max_bandwidth (MB/s).
 * A GPU-to-GPU xGMI link states max_bandwidth = the pair's direct links x
 * one link's rate and min_bandwidth = one link's rate (kfd_crat.c,
 * kfd_fill_gpu_xgmi_link_to_gpu with amdgpu_xgmi_get_bandwidth_mbytes:
 * 50000 MB/s per link on gfx90a, "x16 x 25Gbps"), so the link count is
 * max / min.  Pairs of a hive with no direct link state 0: they are left
 * to their PCI class, as are all pairs on kernels older than that
 * reporting (no bandwidth stated at all).
 *
 * gfx_target_version packs the ISA as major*10000 + minor*100 + stepping,
 * printed as gfx<major><minor hex><stepping hex>: 90402 gfx942, 90010
 * gfx90a, 90500 gfx950. */
#ifndef PB_KFD_H
#define PB_KFD_H

#include <stddef.h>

#include "../util/pb_err.h"

#include "pb_topo_data.h"

#define PB_KFD_MAX_NODES 256

typedef struct pb_kfd_gpu {
    int node;           /* KFD node id */
    char busid[32];     /* "0000:c1:00.0" */
    char arch[16];      /* "gfx942" */
    long long simd;     /* simd_count (4 per compute unit on CDNA) */
} pb_kfd_gpu_t;

typedef struct pb_kfd {
    pb_kfd_gpu_t *gpu; /* by KFD node id */
    int ngpus;
    int *links;        /* ngpus x ngpus direct xGMI link counts */
    double *max_mbps;  /* ngpus x ngpus max_bandwidth the kernel states, MB/s */
} pb_kfd_t;

/* The sysfs mount: PB_SYSFS_ROOT when set (tests), else "/sys". */
const char *pb_kfd_sysfs_root(void);

/* "gfx942" from 90402; "" for 0 (a CPU node) or an impossible value. */
void pb_kfd_arch(long long gfx_target_version, char *buf, size_t len);

/* Reads root's KFD topology.  No topology there (no AMD driver): PB_OK
 * with no GPUs.  PB_EINPUT naming the file when a GPU node's properties
 * lack what names it; PB_ERUNTIME out of memory. */
int pb_kfd_load(const char *root, pb_kfd_t *k, pb_err_t *err);
void pb_kfd_free(pb_kfd_t *k);

/* Gives the GPUs of tp their architecture and xGMI link counts from k,
 * GPU by bus id; returns how many of tp's GPUs KFD named. */
int pb_kfd_apply(pb_topo_t *tp, const pb_kfd_t *k);

/* pb_kfd_load + pb_kfd_apply: what the live topology load runs. */
int pb_kfd_topo(pb_topo_t *tp, const char *root, pb_err_t *err);

#endif
