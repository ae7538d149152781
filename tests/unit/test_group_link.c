/* A group's link class from the node map (pb_nodemap_groups_slowest): the
 * slowest link between two members of one group, over every group of the
 * partition, the one rule behind coll's and the patterns' link_class.
 * A map of 2 nodes x 2 ranks built from hand-made facts (no MPI): L3
 * inside a node, NET across. */
#include <stdlib.h>

#include "bench/run/pb_nodemap.h"
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

/* 2 nodes x 2 ranks; rows[r] is rank r's row to its node's 2 ranks */
typedef struct facts {
    int rows[4][2];
} facts_t;

static void fact_of(const void *ctx, int r, pb_rank_fact_t *f)
{
    const facts_t *x = ctx;
    *f = (pb_rank_fact_t){r - r % 2, r % 2, 2, -1, x->rows[r], "h", "", "-", "-"};
}

static void build(pb_nodemap_t *m, const facts_t *x)
{
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_rankmap_init(m, 4, fact_of, x, &err) == PB_OK);
}

int main(void)
{
    enum { N = 4 };
    facts_t x;
    int l3 = pb_link_rank((pb_link_t){PB_LINK_L3, 0});
    int self = pb_link_rank((pb_link_t){PB_LINK_SELF, 0});
    for (int r = 0; r < N; r++)
        for (int j = 0; j < 2; j++)
            x.rows[r][j] = j == r % 2 ? self : l3;
    pb_nodemap_t m;
    build(&m, &x);
    /* consecutive blocks of 2 are the nodes: L3; the world crosses */
    CHECK(pb_nodemap_block_slowest(&m, 2).cls == PB_LINK_L3);
    CHECK(pb_nodemap_block_slowest(&m, N).cls == PB_LINK_NET);
    CHECK(pb_nodemap_block_slowest(&m, 0).cls == PB_LINK_NET); /* 0: the world */
    CHECK(pb_nodemap_block_slowest(&m, 1).cls == PB_LINK_SELF);
    /* strided groups (a DP group of tp 2) span the nodes */
    CHECK(pb_nodemap_groups_slowest(&m, stride_of, NULL).cls == PB_LINK_NET);
    /* groups of one rank: no pair, X */
    CHECK(pb_nodemap_groups_slowest(&m, alone, NULL).cls == PB_LINK_SELF);
    pb_nodemap_free(&m);
    /* one slow pair inside one group decides for every group */
    x.rows[0][1] = x.rows[1][0] = pb_link_rank((pb_link_t){PB_LINK_SYS, 0});
    build(&m, &x);
    CHECK(pb_nodemap_block_slowest(&m, 2).cls == PB_LINK_SYS);
    pb_nodemap_free(&m);
    return pb_test_failures ? 1 : 0;
}
