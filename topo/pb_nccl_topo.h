/* pb_nccl_topo.h - NCCL's own XML topology format (NCCL_TOPO_FILE, as the
 * clouds ship for their GPU VMs): GPUs and NICs, the PCI relation of every
 * pair, and NVLink where the file states it.
 *
 * Which attribute each class comes from (the file read with libxml2):
 *   a device  a <pci> leaf whose class attribute is 0x03xxxx (display: a
 *             GPU) or 0x02xxxx (network: a NIC), or a <pci> holding a
 *             <gpu> or <nic> element (NCCL's fuller dumps); busid names it;
 *   a switch  a <pci> element with <pci> children (NCCL models each as a
 *             PCIe switch; the clouds' class 0x0604 bridges);
 *   a NUMA    the <cpu> element above the device, numaid its node; NCCL
 *             takes the CPU as the host bridge of its PCI tree.
 * Classes, as NCCL computes paths and nvidia-smi topo -m names them:
 *   PIX   both under the same switch, no other switch between them;
 *   PXB   a common switch, more than one switch on the path;
 *   PHB   only the <cpu> in common: the path crosses the host bridge;
 *   NODE  different <cpu> elements with the same numaid (host bridges
 *         of one NUMA node);
 *   SYS   different numaid: across the SMP interconnect;
 *   NV#   GPU pairs joined by <nvlink target=busid count=#> under <gpu>
 *         (through an NVSwitch, tclass 0x068000: the smaller of the two
 *         GPUs' link counts), or every GPU pair when the user states
 *         --nvlink # (files that carry no nvlink elements, as Azure's,
 *         leave NVLink unknown: NCCL reads it from NVML at run time);
 *   XGMI# GPU pairs joined by <xgmi target=busid count=#> under <gpu>, as
 *         RCCL (AMD's NCCL) writes the same file for AMD GPUs; the
 *         <gpu>'s gcn attribute names the architecture ("gfx942", or
 *         the old numbers 906/908/910/940/941/942, which RCCL's
 *         src/misc/archinfo.cc maps to gfx906/gfx908/gfx90a/gfx94x).
 * GPUs and NICs are numbered by bus id, as nvidia-smi and
 * CUDA_DEVICE_ORDER=PCI_BUS_ID number them. */
#ifndef PB_NCCL_TOPO_H
#define PB_NCCL_TOPO_H

#include <stddef.h>

#include "../core/pb_link.h"
#include "../util/pb_err.h"

#define PB_NTOPO_DEPTH 16
#define PB_NTOPO_NV 8

typedef struct pb_ntopo_dev {
    char busid[32];
    int gpu;                     /* 1 GPU, 0 NIC */
    int cpu, numa;               /* index of its <cpu> element, its numaid */
    int path[PB_NTOPO_DEPTH];    /* switches from the CPU down, by element index */
    int depth;
    /* NVLink as the file states it: targets by bus id, counts */
    char nv_target[PB_NTOPO_NV][32];
    int nv_count[PB_NTOPO_NV];
    int nnv;
    int nvswitch_links;          /* links to NVSwitches (tclass 0x068000) */
    /* xGMI as the file states it (RCCL): targets by bus id, counts */
    char xg_target[PB_NTOPO_NV][32];
    int xg_count[PB_NTOPO_NV];
    int nxg;
    unsigned vendor;             /* PCI vendor: 0x10de, 0x1002 (AMD), 0 unknown */
    char arch[16];               /* AMD: "gfx942", "gfx90a" from gcn; else "" */
} pb_ntopo_dev_t;

typedef struct pb_ntopo {
    pb_ntopo_dev_t *dev; /* GPUs first, then NICs, each by bus id */
    int n, ngpus, nnics;
    int ncpus;
    int has_nvlink; /* the file has nvlink elements */
    int has_xgmi;   /* the file has xgmi elements (RCCL, AMD GPUs) */
} pb_ntopo_t;

/* PB_EINPUT naming the file: unreadable, not XML, no <system>, no GPU. */
int pb_ntopo_load(const char *path, pb_ntopo_t *t, pb_err_t *err);
void pb_ntopo_free(pb_ntopo_t *t);

/* The link between devices a and b (indices into dev).  nvlink > 0: the
 * user's per-pair NVLink count for GPU pairs the file says nothing of. */
pb_link_t pb_ntopo_link(const pb_ntopo_t *t, int a, int b, int nvlink);

/* Device i's name: GPU0.. then NIC0.., each numbered by bus id.  The
 * matrix and the pairs CSV both name devices so, so they agree. */
void pb_ntopo_name(const pb_ntopo_t *t, int i, char *buf, size_t len);

#endif
