/* pb_kfd.h - AMD GPUs and their xGMI (Infinity Fabric) links from the
 * kernel's KFD topology in sysfs, the source ROCm's own runtime reads.
 *
 * The GPU nodes themselves (where the tree is, what a node's properties
 * say, gfx_target_version's and location_id's encodings) are
 * core/pb_kfd_node.h's; this file adds their links:
 *   class/kfd/kfd/topology/nodes/N/io_links/M/properties, and
 *   nodes/N/p2p_links/M/properties: type (kfd_crat.h: 2 PCIe, 11 xGMI),
 *       node_from, node_to, min_bandwidth, max_bandwidth (MB/s).
 * A GPU-to-GPU xGMI link states max_bandwidth = the pair's direct links x
 * one link's rate and min_bandwidth = one link's rate (kfd_crat.c,
 * kfd_fill_gpu_xgmi_link_to_gpu with amdgpu_xgmi_get_bandwidth_mbytes:
 * 50000 MB/s per link on gfx90a, "x16 x 25Gbps"), so the link count is
 * max / min.  Pairs of a hive with no direct link state 0: they are left
 * to their PCI class, as are all pairs on kernels older than that
 * reporting (no bandwidth stated at all). */
#ifndef PB_KFD_H
#define PB_KFD_H

#include <stddef.h>

#include "../core/pb_kfd_node.h"
#include "../util/pb_err.h"

#include "pb_topo_data.h"

typedef struct pb_kfd {
    pb_kfd_node_t *gpu; /* the GPU nodes, in the directory's order */
    int ngpus;
    int *links;        /* ngpus x ngpus direct xGMI link counts */
    double *max_mbps;  /* ngpus x ngpus max_bandwidth the kernel states, MB/s */
} pb_kfd_t;

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
