/* pb_nodemap.h - where every rank runs, built over MPI: its node (from a
 * shared-memory split, named by host), local rank, CPU binding, GPU, bus
 * id and nearest NIC, and the link class of every rank pair.
 *
 * topo/ classifies; this file only gathers the facts it needs from every
 * rank, so topo/ stays free of MPI. */
#ifndef PB_NODEMAP_H
#define PB_NODEMAP_H

#include <mpi.h>

#include "../topo/pb_topo.h"
#include "../util/pb_err.h"

typedef struct pb_rank_info {
    int node; /* 0.. in order of the nodes' first ranks */
    int local_rank;
    int local_size;
    int gpu;           /* index into its node's GPU list, -1 none */
    char host[64];
    char cpuset[256];  /* binding as an hwloc list ("0-3"); "" = unbound */
    char busid[PB_TOPO_NAME];
    char nic[PB_TOPO_NAME];
} pb_rank_info_t;

typedef struct pb_nodemap {
    int size;
    int nnodes;
    pb_rank_info_t *ranks;
    int *link; /* size x size pb_link_rank() values */
} pb_nodemap_t;

/* Collective over world.  local is this node's topology (with I/O for
 * GPUs; without, ranks are classified as host ranks). */
int pb_nodemap_build(MPI_Comm world, const pb_topo_t *local, pb_nodemap_t *m, pb_err_t *err);
void pb_nodemap_free(pb_nodemap_t *m);

/* A pb_pair_link_fn over world ranks. */
pb_link_t pb_nodemap_link(const void *map, int a, int b);

/* A partition of the world ranks into groups: the group a rank is in,
 * the same number for every member of one group. */
typedef int (*pb_group_of_fn)(const void *ctx, int rank);

/* A group's link class: the slowest link between two members of one
 * group, over every group of the partition (X when every group has one
 * rank).  The one rule behind every row's link_class. */
pb_link_t pb_nodemap_groups_slowest(const pb_nodemap_t *m, pb_group_of_fn group_of,
                                    const void *ctx);

/* The slowest link inside consecutive blocks of k ranks (k = size: the
 * world), e.g. the groups of `coll --group-size k`. */
pb_link_t pb_nodemap_block_slowest(const pb_nodemap_t *m, int k);

#endif
