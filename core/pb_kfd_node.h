/* pb_kfd_node.h - the kernel's KFD topology nodes: AMD GPUs named and
 * counted from sysfs, the one reader every layer shares (topo/'s xGMI
 * links, collectives/' HIP runtime table, the launcher's GPU count).
 *
 * Why sysfs and not HIP: the KFD topology is the kernel's ABI, the same
 * under every ROCm and readable without one, and reading it cannot hang
 * on a broken device.  (hipGetDeviceProperties' gcnArchName is no
 * substitute: hipDeviceProp_t's layout changed in ROCm 6,
 * hipGetDevicePropertiesR0600, so a binary built against one version's
 * header would read another's struct at the wrong offset, and
 * hipDeviceGetAttribute has no string attribute.)
 *
 * The tree, under root (the sysfs mount, "/sys"; tests give a copy, as
 * HWLOC_FSROOT does for hwloc):
 *   class/kfd/kfd/topology/nodes/N/properties   "key value" lines.  A GPU
 *       node has a nonzero gfx_target_version (CPU nodes say 0) and its
 *       PCI address as domain + location_id, the kernel's pci_dev_id():
 *       bus << 8 | device << 3 | function (kfd_topology.c); simd_count is
 *       4 per compute unit on CDNA.
 * gfx_target_version packs the ISA as major*10000 + minor*100 + stepping
 * (kfd_topology.c), printed as gfx<major><minor hex><stepping hex>:
 * 90402 gfx942 (MI300X), 90010 gfx90a (MI250X), 90008 gfx908 (MI100),
 * 90500 gfx950, 100300 gfx1030. */
#ifndef PB_KFD_NODE_H
#define PB_KFD_NODE_H

#include <stddef.h>

#include "../util/pb_err.h"

#define PB_KFD_NODES "class/kfd/kfd/topology/nodes" /* under the sysfs root */
#define PB_KFD_MAX_NODES 256

/* One node's properties, as far as naming it goes. */
typedef struct pb_kfd_node {
    int id;                  /* N of nodes/N */
    long long gfx;           /* gfx_target_version; 0: a CPU node */
    unsigned domain;         /* PCI domain (0 where the kernel states none) */
    unsigned location;       /* location_id: bus << 8 | device << 3 | function */
    long long simd;          /* simd_count (0 where absent) */
    char busid[32];          /* "0000:c1:00.0"; "" for a CPU node */
    char arch[16];           /* "gfx942"; "" for a CPU node or an impossible version */
} pb_kfd_node_t;

/* The sysfs mount: PB_SYSFS_ROOT when set (tests), else "/sys". */
const char *pb_kfd_sysfs_root(void);

/* "gfx942" into buf for 90402: 0.  -1 with buf "" for 0 (a CPU node) or
 * a version no name encodes (a minor or stepping above one hex digit). */
int pb_kfd_gfx_name(long long version, char *buf, size_t len);

/* A properties file into buf (NUL-terminated, cut at len - 1): 1, or 0
 * when it cannot be read. */
int pb_kfd_props_read(const char *path, char *buf, size_t len);

/* The value of "key value" at a line start of text: 1, or 0 when absent
 * or not a number.  Values above 9e18 (hive_id is 64 bits) read -1. */
int pb_kfd_prop(const char *text, const char *key, long long *out);

/* Node `id` of root's topology into n.  PB_OK for a CPU node (n->gfx 0)
 * and a GPU node named whole; PB_EINPUT naming the file when it cannot be
 * read or a GPU node lacks a valid PCI address (n->gfx is still filled:
 * a count of GPUs need not trust the rest). */
int pb_kfd_node_read(const char *root, int id, pb_kfd_node_t *n, pb_err_t *err);

/* The node ids under root's topology, at most max of them, unsorted: how
 * many, or -1 when there is no topology (no AMD driver). */
int pb_kfd_node_ids(const char *root, int *ids, int max);

/* GPU nodes (nonzero gfx_target_version) under root; 0 without KFD. */
int pb_kfd_gpu_count(const char *root);

/* The architecture of the GPU at PCI `bus_id` ("0000:c1:00.0", as
 * hipDeviceGetPCIBusId writes it) under root: 0 with buf filled, -1 when
 * no GPU node matches or the files cannot be read. */
int pb_kfd_arch_of(const char *root, const char *bus_id, char *buf, size_t len);

#endif
