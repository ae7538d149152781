/* pb_nvlink.h - NVLink counts between the GPUs of a pb_topo_t.
 *
 * Both sources reduce to the same two facts per GPU: links straight to
 * another GPU, and links into NVSwitches.  Through switches every GPU
 * pair gets as many links as the less connected GPU has into the fabric,
 * which is what nvidia-smi prints (NV6 on a DGX-2, NV18 on a DGX H100). */
#ifndef PB_NVLINK_H
#define PB_NVLINK_H

#include "../util/pb_err.h"

#include "pb_topo_data.h"

/* From the NVLinkBandwidth distances of the loaded XML.  Fills
 * tp->nvlinks and tp->nvlink_source, or leaves the source NONE with a
 * note.  Returns PB_OK or PB_ERUNTIME (out of memory). */
int pb_nvlink_from_distances(pb_topo_t *tp, pb_err_t *err);

/* From NVML, loaded with dlopen at run time (no build dependency). */
int pb_nvlink_from_nvml(pb_topo_t *tp, pb_err_t *err);

/* Fills tp->nvlinks from per-pair direct links (ngpus x ngpus) and each
 * GPU's links into NVSwitches. */
void pb_nvlink_combine(pb_topo_t *tp, const double *direct, const double *sw);

/* Bandwidth of one link in one direction (MB/s), as hwloc reports it,
 * by GPU generation: NVLink 1 (P100) 20 GB/s, NVLink 2-4 (V100, A100,
 * H100) 25 GB/s, NVLink 5 (B100/B200) 50 GB/s. */
double pb_nvlink_link_mbps(const char *gpu_model);

#endif
