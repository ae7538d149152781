/* pb_pci_path.h - the PCIe class between two PCI devices (PIX, PXB, PHB,
 * NODE, SYS), from their ancestor chains.
 *
 * hwloc_get_common_ancestor_obj() walks by depth, and I/O objects have
 * negative depths (it misbehaves or crashes on them), so the chains are
 * compared here by hand. */
#ifndef PB_PCI_PATH_H
#define PB_PCI_PATH_H

#include <hwloc.h>

#include "../core/pb_link.h"

pb_link_class_t pb_pci_path_class(hwloc_obj_t a, hwloc_obj_t b);

#endif
