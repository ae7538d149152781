/* pb_topo_data.h - what a loaded pb_topo_t holds: the hwloc tree, its
 * GPUs and NICs in PCI order, and the NVLink and xGMI counts between GPUs.
 *
 * A header of its own because two parts fill it: the loader (pb_topo.h)
 * finds the devices, the NVLink counters (pb_nvlink.h) the links between
 * them, and the loader runs the counters; the NVML counter looks GPUs up
 * by bus id.  With the type and that look-up here, neither part includes
 * the other's header. */
#ifndef PB_TOPO_DATA_H
#define PB_TOPO_DATA_H

#include <hwloc.h>

#define PB_TOPO_NAME 48

typedef struct pb_topo_dev {
    char name[PB_TOPO_NAME];  /* GPU0.. / NIC name (mlx5_0, eth0) */
    char busid[PB_TOPO_NAME]; /* 0000:17:00.0 */
    char model[PB_TOPO_NAME]; /* GPU model when the dump says, else "" */
    char arch[16];            /* AMD GPU architecture from KFD ("gfx942"), else "" */
    hwloc_obj_t pci;          /* the PCI device object */
} pb_topo_dev_t;

typedef enum pb_nvlink_source {
    PB_NVLINK_NONE,      /* no information: no NV# appears */
    PB_NVLINK_DISTANCES, /* the XML's NVLinkBandwidth matrix */
    PB_NVLINK_NVML       /* NVML on the live machine */
} pb_nvlink_source_t;

typedef struct pb_topo {
    hwloc_topology_t t;
    int ngpus, nnics;
    pb_topo_dev_t *gpus, *nics;
    int *nvlinks; /* ngpus x ngpus link counts (0 = none) */
    int *xgmi;    /* ngpus x ngpus xGMI link counts (AMD, from KFD; 0 = none) */
    int has_xgmi; /* the KFD topology was read and named xGMI links */
    pb_nvlink_source_t nvlink_source;
    char nvlink_note[160]; /* why there is no NVLink information */
} pb_topo_t;

/* The GPU of this topology at PCI bus id "dddd:bb:dd.f" (as CUDA and
 * NVML print it), -1 when none. */
int pb_topo_gpu_by_busid(const pb_topo_t *tp, const char *busid);

#endif
