/* pb_cluster.h - a hypothetical cluster of N identical nodes, to place a
 * layout on hardware one only has a dump of (a 1,024-GPU layout checked
 * from a laptop).  One rank per GPU, or per core on a node without GPUs;
 * ranks fill node 0 first, like a block-mapped launcher. */
#ifndef PB_CLUSTER_H
#define PB_CLUSTER_H

#include "pb_topo.h"

typedef struct pb_cluster {
    int nodes;
    int per_node; /* ranks on each node */
    int gpus;     /* ranks are GPUs (1) or cores (0) */
    pb_link_t *local; /* per_node x per_node links inside one node */
} pb_cluster_t;

int pb_cluster_init(pb_cluster_t *c, const pb_topo_t *tp, int nodes, pb_err_t *err);
void pb_cluster_free(pb_cluster_t *c);

/* A pb_pair_link_fn: NET across nodes, the node's own link inside one. */
pb_link_t pb_cluster_link(const void *cluster, int a, int b);

#endif
