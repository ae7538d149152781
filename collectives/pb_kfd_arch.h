/* pb_kfd_arch.h - an AMD GPU's architecture name ("gfx942") from the
 * kernel's KFD topology, for the HIP runtime table (pb_gpurt_hip.c).
 *
 * Why not hipGetDeviceProperties' gcnArchName: hipDeviceProp_t's layout
 * changed in ROCm 6 (hipGetDevicePropertiesR0600), so a binary built
 * against one version's header would read another's struct at the wrong
 * offset.  hipDeviceGetAttribute has no string attribute.  The KFD
 * topology (/sys/class/kfd/kfd/topology/nodes/N/properties) is the
 * kernel's ABI, the same under every ROCm: each GPU node has
 * "gfx_target_version" (major*10000 + minor*100 + stepping, the minor
 * and stepping being the hex digits of the name: 90402 is gfx942, 90010
 * gfx90a) and its PCI place as "domain" and "location_id" (bus << 8 |
 * device << 3 | function). */
#ifndef PB_KFD_ARCH_H
#define PB_KFD_ARCH_H

#include <stddef.h>

/* "gfx942" for 90402.  0, or -1 for a version that is no GPU's (0: the
 * CPU nodes) or out of range. */
int pb_kfd_gfx_name(unsigned version, char *buf, size_t len);

/* The architecture of the GPU at PCI `bus_id` ("0000:c1:00.0", as
 * hipDeviceGetPCIBusId writes it) under `topology` (the nodes' parent,
 * normally /sys/class/kfd/kfd/topology/nodes).  0 with buf filled, -1
 * when no node matches or the files cannot be read. */
int pb_kfd_arch_of(const char *topology, const char *bus_id, char *buf, size_t len);

#endif
