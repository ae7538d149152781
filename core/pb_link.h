/* pb_link.h - how two ranks are connected: a link class, ordered by speed.
 *
 * The GPU classes are nvidia-smi topo -m's (NV#, PIX, PXB, PHB, NODE, SYS)
 * so a user's habits carry over, with XGMI# beside NV# for AMD's Infinity
 * Fabric (xGMI) links between GPUs, counted as NVLinks are; host ranks
 * (the MPI backend on CPU memory) reuse NODE and SYS with the same meaning and add what matters for CPU
 * placement: same core, same L3, same package.  NET is across nodes.
 *
 * One enum for both families keeps "slowest link of a group" a single
 * comparison; a group never mixes the families. */
#ifndef PB_LINK_H
#define PB_LINK_H

#include <stddef.h>

typedef enum pb_link_class {
    PB_LINK_SELF,   /* X: the same GPU */
    PB_LINK_NV,     /* NV#: NVLink, # links (directly or through NVSwitch) */
    PB_LINK_XGMI,   /* XGMI#: AMD Infinity Fabric between GPUs, # links */
    PB_LINK_CORE,   /* host ranks bound within one core */
    PB_LINK_L3,     /* host ranks sharing an L3 cache */
    PB_LINK_PIX,    /* at most one PCIe switch between them */
    PB_LINK_PXB,    /* several PCIe switches, no host bridge */
    PB_LINK_PHB,    /* through one PCIe host bridge */
    PB_LINK_NODE,   /* one NUMA node, across host bridges (or L3s) */
    PB_LINK_SOCKET, /* one package, across NUMA nodes (sub-NUMA clusters) */
    PB_LINK_SYS,    /* across packages / NUMA nodes: the SMP interconnect */
    PB_LINK_NET,    /* across nodes */
    PB_LINK_COUNT
} pb_link_class_t;

typedef struct pb_link {
    pb_link_class_t cls;
    int nvlinks; /* for PB_LINK_NV and PB_LINK_XGMI: links; fewer links = slower */
} pb_link_t;

/* Whether the class carries a link count (NV#, XGMI#). */
int pb_link_counted(pb_link_class_t c);

/* "NV", "XGMI", "PIX", ...; the class alone. */
const char *pb_link_class_name(pb_link_class_t c);

/* "NV18", "XGMI1", "PIX", "X": the form nvidia-smi prints (rocm-smi
 * says XGMI with a hop count; parbench counts links, as for NVLink). */
void pb_link_format(pb_link_t l, char *buf, size_t len);

/* A total order by speed as one integer, larger = slower: lets MPI find a
 * group's slowest link with one MPI_MAX reduction. */
int pb_link_rank(pb_link_t l);
pb_link_t pb_link_from_rank(int rank);

/* The slower of two links. */
pb_link_t pb_link_slower(pb_link_t a, pb_link_t b);

/* Whether a link class as written (pb_link_format: "NV12", "SYS", "NET")
 * is the network: the step model tells links within a node from links
 * between nodes by it. */
int pb_link_is_net(const char *link);

#endif
