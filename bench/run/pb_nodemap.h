/* pb_nodemap.h - where every rank runs, built over the control world (pb_ctl.h): its node (from a
 * shared-memory split, named by host), local rank, CPU binding, GPU, bus
 * id and nearest NIC, and the link class of every rank pair.
 *
 * Bytes exchanged per rank are O(W): a fixed header per rank, then each
 * rank's labels and its row of link classes to its own node's ranks
 * (local_size values, classified where the hardware is known).
 *
 * topo/ classifies; this file only gathers the facts it needs from every
 * rank, so topo/ stays free of MPI. */
#ifndef PB_NODEMAP_H
#define PB_NODEMAP_H

#include "../../collectives/pb_ctl.h"
#include "../../topo/pb_rankmap.h"
#include "../../topo/pb_topo.h"
#include "../../util/pb_err.h"

/* The map itself is topo/'s (pb_rankmap.h): O(W) facts and one local
 * link matrix per node shape, so that a 16,384-rank job holds well under
 * 10 MiB per rank rather than a W x W matrix (1 GiB). */
typedef pb_rankmap_t pb_nodemap_t;

/* Collective over world.  local is this node's topology (with I/O for
 * GPUs; without, ranks are classified as host ranks). */
int pb_nodemap_build(pb_ctl_t *world, const pb_topo_t *local, pb_nodemap_t *m, pb_err_t *err);
void pb_nodemap_free(pb_nodemap_t *m);

/* A pb_pair_link_fn over world ranks. */
pb_link_t pb_nodemap_link(const void *map, int a, int b);

/* A group's link class: the slowest link between two members of one
 * group, over every group of the partition (X when every group has one
 * rank).  The one rule behind every row's link_class. */
pb_link_t pb_nodemap_groups_slowest(const pb_nodemap_t *m, pb_group_of_fn group_of,
                                    const void *ctx);

/* The slowest link inside consecutive blocks of k ranks (k = size: the
 * world), e.g. the groups of `coll --group-size k`. */
pb_link_t pb_nodemap_block_slowest(const pb_nodemap_t *m, int k);

#endif
