/* pb_tournament.h - the schedule of `parbench validate`: rounds of
 * disjoint rank pairs that run concurrently, so that checking every link
 * of a cluster takes O(W) rounds instead of O(W^2) pairs one by one.
 *
 * Two phases:
 *  - intra-node: within every node at once, a round-robin of its local
 *    ranks (every local pair exactly once; L-1 rounds for L even, L for L
 *    odd with one rank idle per round);
 *  - cross-node: a round-robin tournament of the nodes by the circle
 *    method (every node pair exactly once; N-1 rounds for N even, N for
 *    N odd, one node resting per round), rail-aligned: in each node pair,
 *    local rank i meets local rank i of the other node, so that every
 *    rail (GPU i's NIC) carries traffic in every round.  Local rank i
 *    stands for GPU i: one rank per GPU, in order, as launchers bind.
 *
 * O(1) per question, nothing stored: a rank asks for its partner in a
 * round, which at 16,384 nodes is cheaper than any table.  Pure. */
#ifndef PB_TOURNAMENT_H
#define PB_TOURNAMENT_H

/* which pairs a schedule holds */
typedef enum pb_tourn_pairs {
    PB_TOURN_ALL,    /* intra-node, then cross-node on every rail */
    PB_TOURN_LOCAL,  /* intra-node only */
    PB_TOURN_RAILS,  /* cross-node on every rail only */
    PB_TOURN_LEADERS /* cross-node on rail 0 only (one rank per node) */
} pb_tourn_pairs_t;

/* Rounds of a round-robin of n players: 0 for n < 2, n-1 for n even, n
 * for n odd. */
int pb_tourn_rounds(int n);

/* Player x's opponent in round r (0 <= r < pb_tourn_rounds(n)) of the
 * circle method, or -1 when x rests.  Symmetric: the opponent's opponent
 * is x. */
int pb_tourn_opponent(int n, int r, int x);

/* The schedule of a cluster: nnodes nodes of size[n] ranks each. */
typedef struct pb_tourn {
    pb_tourn_pairs_t pairs;
    int nnodes;
    const int *size; /* ranks per node, nnodes values */
    int intra;       /* intra-node rounds: the largest node's */
    int cross;       /* cross-node rounds */
} pb_tourn_t;

void pb_tourn_init(pb_tourn_t *t, pb_tourn_pairs_t pairs, int nnodes, const int *size);

/* Rounds in all: intra first, then cross. */
int pb_tourn_total(const pb_tourn_t *t);

/* Whether round r is a cross-node round. */
int pb_tourn_is_cross(const pb_tourn_t *t, int r);

/* Local rank `local` of node `node` in round r: its partner's node and
 * local rank (*pnode, *plocal), 1; or 0 when it rests this round. */
int pb_tourn_partner(const pb_tourn_t *t, int r, int node, int local, int *pnode, int *plocal);

#endif
