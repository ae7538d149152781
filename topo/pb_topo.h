/* pb_topo.h - one node's hardware as parbench needs it: the hwloc tree,
 * its GPUs and NICs in PCI order, and the NVLink and xGMI counts between
 * GPUs.
 *
 * Loaded from the live machine or from any machine's hwloc XML dump, so
 * classification is testable anywhere without MPI or a GPU.  Debian's
 * hwloc has no CUDA/NVML plugins, so GPUs are found as PCI devices and
 * NVLink comes from the dump's NVLinkBandwidth distances or from NVML
 * loaded at run time; on the live machine AMD GPUs' architecture and
 * xGMI links come from the kernel's KFD topology in sysfs (pb_kfd.h). */
#ifndef PB_TOPO_H
#define PB_TOPO_H

#include <hwloc.h>

#include "../util/pb_err.h"
#include "../core/pb_link.h"

#include "pb_topo_data.h"

/* Keeps hwloc from loading the plugins parbench never asks anything of:
 * display (gl: probes X servers), OpenCL (loads the vendor's OpenCL
 * driver into every rank), CUDA, NVML, ROCm SMI and Level Zero (GPU
 * runtimes: parbench pairs GPUs by PCI address and asks NVML itself,
 * pb_nvlink.h) and the libxml2 reader (hwloc reads and writes its XML
 * with its own parser just as well).  A plugin's libraries stay mapped
 * in the process, timed loop included: with these loaded, parbench's
 * 1 KiB all-reduce took 1.012x as long as with them skipped (150
 * alternating launches, 2 ranks; bench/perf/latency_vs_loop.sh's plain loop
 * loads none).  hwloc reads HWLOC_PLUGINS_BLACKLIST when it makes its
 * first topology, so call this first thing, before any thread: it sets
 * that variable to PB_TOPO_SKIPPED_PLUGINS, unless the user already did. */
#define PB_TOPO_SKIPPED_PLUGINS                                                   \
    "hwloc_gl,hwloc_opencl,hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero," \
    "hwloc_xml_libxml"
void pb_topo_skip_plugins(void);

/* Loads xml_path, or the live machine when NULL.  with_io = 0 skips PCI
 * discovery (enough for host-rank binding classes, and much faster).
 * PB_EINPUT for a missing or invalid file, naming it. */
int pb_topo_load(pb_topo_t *tp, const char *xml_path, int with_io, pb_err_t *err);
/* The same from an XML document in memory: xml[len] must be '\0'. */
int pb_topo_load_xmlbuffer(pb_topo_t *tp, const char *xml, size_t len, int with_io,
                           pb_err_t *err);
void pb_topo_free(pb_topo_t *tp);

/* Classes like nvidia-smi topo -m. */
pb_link_t pb_topo_gpu_gpu(const pb_topo_t *tp, int a, int b);
pb_link_t pb_topo_gpu_nic(const pb_topo_t *tp, int g, int n);

/* The NIC with the fastest class to GPU g (lowest index on ties); -1 when
 * the node has none. */
int pb_topo_nearest_nic(const pb_topo_t *tp, int g);

/* CPU and NUMA affinity of a PCI device as lists ("0-23", "0"), from the
 * nearest CPU-side ancestor. */
void pb_topo_affinity(const pb_topo_t *tp, hwloc_obj_t pci, char *cpus, size_t clen, char *numa,
                      size_t nlen);

/* Cores of the node (host ranks are placed one per core in hypothetical
 * layouts). */
int pb_topo_ncores(const pb_topo_t *tp);

#endif
