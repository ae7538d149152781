/* A group's link class from the node map (pb_nodemap_groups_slowest): the
 * slowest link between two members of one group, over every group of the
 * partition, the one rule behind coll's and the patterns' link_class.
 * A hand-made map of 2 nodes x 2 ranks (no MPI): L3 inside a node, NET
 * across. */
#include <stdlib.h>

#include "bench/pb_nodemap.h"
#include "pb_test.h"

static int stride_of(const void *ctx, int rank)
{
    (void)ctx;
    return rank % 2; /* {0,2}, {1,3}: across the nodes */
}

static int alone(const void *ctx, int rank)
{
    (void)ctx;
    return rank;
}

int main(void)
{
    enum { N = 4 };
    int link[N * N];
    pb_nodemap_t m = {N, 2, NULL, link};
    pb_link_t l3 = {PB_LINK_L3, 0}, net = {PB_LINK_NET, 0}, self = {PB_LINK_SELF, 0};
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++)
            link[a * N + b] = pb_link_rank(a == b ? self : a / 2 == b / 2 ? l3 : net);
    /* consecutive blocks of 2 are the nodes: L3; the world crosses */
    CHECK(pb_nodemap_block_slowest(&m, 2).cls == PB_LINK_L3);
    CHECK(pb_nodemap_block_slowest(&m, N).cls == PB_LINK_NET);
    CHECK(pb_nodemap_block_slowest(&m, 0).cls == PB_LINK_NET); /* 0: the world */
    CHECK(pb_nodemap_block_slowest(&m, 1).cls == PB_LINK_SELF);
    /* strided groups (a DP group of tp 2) span the nodes */
    CHECK(pb_nodemap_groups_slowest(&m, stride_of, NULL).cls == PB_LINK_NET);
    /* groups of one rank: no pair, X */
    CHECK(pb_nodemap_groups_slowest(&m, alone, NULL).cls == PB_LINK_SELF);
    /* one slow pair inside one group decides for every group */
    link[0 * N + 1] = link[1 * N + 0] = pb_link_rank((pb_link_t){PB_LINK_SYS, 0});
    CHECK(pb_nodemap_block_slowest(&m, 2).cls == PB_LINK_SYS);
    return pb_test_failures ? 1 : 0;
}
