/* pb_rankmap.h - where every rank of a job runs and how any two ranks are
 * linked, in memory that grows with the world size W, not with W^2.
 *
 * Two ranks on different nodes are NET by definition; two ranks on one
 * node are linked as that node's hardware says.  So the map keeps a few
 * facts per rank (node, local rank, GPU, the labels the tables print) and
 * one local link matrix (local ranks squared) per distinct node *shape*:
 * nodes whose matrices are equal share one copy (a cluster of identical
 * servers stores one 8 x 8 matrix).  At W = 16,384 ranks on 2,048 nodes
 * of 8 that is about 24 B per rank plus the labels (see pb_rankmap_bytes
 * and tests/unit/test_rankmap.c), against 1 GiB for a W x W matrix.
 *
 * Pure: built from facts the caller gathered (bench/run/pb_nodemap.c does it
 * over MPI), so it is tested on synthetic clusters of any size. */
#ifndef PB_RANKMAP_H
#define PB_RANKMAP_H

#include <stddef.h>

#include "../util/pb_err.h"
#include "../core/pb_link.h"

/* One rank's facts as the builder reads them. */
typedef struct pb_rank_fact {
    int first;      /* the lowest world rank on this rank's node: names the node */
    int local_rank; /* 0 .. local_size-1, in world-rank order within the node */
    int local_size;
    int gpu;        /* index into its node's GPU list, -1 none */
    /* local_size pb_link_rank() values: this rank to each local rank,
     * classified on the node (where its hardware is known) */
    const int *row;
    const char *host, *cpuset, *busid, *nic; /* labels; NULL = "" */
} pb_rank_fact_t;

/* Fills *f with rank r's facts; pointers must stay valid until the next
 * call. */
typedef void (*pb_rank_fact_fn)(const void *ctx, int r, pb_rank_fact_t *f);

typedef struct pb_rankmap {
    int size;   /* W */
    int nnodes; /* numbered 0.. in order of the nodes' first ranks */
    /* per rank */
    int *node, *local, *gpu;
    unsigned *label; /* offset into pool of "cpuset\0busid\0nic\0" */
    /* per node: its ranks by local rank are member[start[n] .. start[n+1]-1] */
    int *start, *member;
    int *shape;          /* index of the node's local matrix */
    unsigned *host;      /* offset into pool */
    /* distinct local matrices: matrix s is n x n ints at mat[off[s]] */
    int nshapes;
    int *shape_n;
    size_t *shape_off;
    int *mat;
    char *pool;
    size_t pool_len, mat_len;
} pb_rankmap_t;

/* Builds the map of `size` ranks from their facts.  PB_EINPUT when the
 * facts contradict each other (a node's sizes, local ranks or first rank
 * disagree, a class out of range), PB_ERUNTIME out of memory. */
int pb_rankmap_init(pb_rankmap_t *m, int size, pb_rank_fact_fn get, const void *ctx,
                    pb_err_t *err);
void pb_rankmap_free(pb_rankmap_t *m);

/* The link between any two ranks: O(1). */
pb_link_t pb_rankmap_link(const pb_rankmap_t *m, int a, int b);

/* Bytes the map holds (every allocation, exactly): what "memory per
 * rank" means for the node map. */
size_t pb_rankmap_bytes(const pb_rankmap_t *m);

/* Ranks on rank r's node; the world rank of local rank i of node n. */
int pb_rankmap_local_size(const pb_rankmap_t *m, int r);
int pb_rankmap_node_size(const pb_rankmap_t *m, int n);
int pb_rankmap_member(const pb_rankmap_t *m, int n, int i);

/* Labels ("" when not given). */
const char *pb_rankmap_host(const pb_rankmap_t *m, int r);
const char *pb_rankmap_cpuset(const pb_rankmap_t *m, int r);
const char *pb_rankmap_busid(const pb_rankmap_t *m, int r);
const char *pb_rankmap_nic(const pb_rankmap_t *m, int r);

/* A partition of the world ranks into groups: the group a rank is in,
 * the same number for every member of one group. */
typedef int (*pb_group_of_fn)(const void *ctx, int rank);

/* The slowest link between two members of one group, over every group of
 * the partition (X when every group has one rank).  O(W log W + W L) for
 * L ranks per node: a group that spans two nodes is NET, and pairs are
 * classified only within a node. */
pb_link_t pb_rankmap_groups_slowest(const pb_rankmap_t *m, pb_group_of_fn group_of,
                                    const void *ctx);

#endif
