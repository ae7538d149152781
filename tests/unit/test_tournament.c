/* validate's schedule (validate/pb_tournament.h): rounds of disjoint pairs.
 *
 * The invariants, checked exhaustively where the sizes allow:
 *  - a round-robin of n players has n-1 rounds (n even) or n (n odd), in
 *    which every pair meets exactly once and nobody twice in a round;
 *  - the cluster schedule: every local pair once in the intra phase,
 *    every node pair once in the cross phase, rail i with rail i, no rank
 *    in two transfers of one round;
 *  - the number: 2,048 nodes take 2,047 cross-node rounds.
 * "No rank in two transfers" follows from the opponent function being an
 * involution (x's opponent's opponent is x, and x is not its own): each
 * round is then a set of disjoint pairs, which is what is checked per
 * rank below. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "validate/pb_tournament.h"
#include "pb_test.h"

/* Every pair of n players meets exactly once, nobody twice in a round;
 * returns the pairs seen.  Player by player: x's opponents over the
 * rounds are every other player once (a stamp per player: 64 KiB at
 * 16,384, where a bit per pair would be 16 MiB), and each opponent's
 * opponent in that round is x (the round's pairs are disjoint). */
static uint64_t round_robin(int n)
{
    int *stamp = malloc((size_t)n * sizeof *stamp);
    CHECK(stamp != NULL);
    if (stamp == NULL)
        return 0;
    for (int y = 0; y < n; y++)
        stamp[y] = -1;
    int rounds = pb_tourn_rounds(n), bad = 0;
    uint64_t seen = 0;
    for (int x = 0; x < n; x++) {
        int rest = 0;
        for (int r = 0; r < rounds; r++) {
            int y = pb_tourn_opponent(n, r, x);
            if (y < 0) {
                rest++;
                continue;
            }
            bad += y == x || y >= n || stamp[y] == x || pb_tourn_opponent(n, r, y) != x;
            stamp[y] = x;
            seen += y > x;
        }
        bad += rest != n % 2; /* with n odd, everyone rests once */
    }
    CHECK(bad == 0);
    free(stamp);
    return seen;
}

/* The cluster schedule of nnodes nodes of `per` ranks (node n's local
 * rank i is rank n * per + i), every round and every rank. */
static void cluster(pb_tourn_pairs_t mode, int nnodes, int per)
{
    int *size = malloc((size_t)nnodes * sizeof *size);
    for (int n = 0; n < nnodes; n++)
        size[n] = per;
    pb_tourn_t t;
    pb_tourn_init(&t, mode, nnodes, size);
    int local = mode == PB_TOURN_ALL || mode == PB_TOURN_LOCAL;
    CHECK(t.intra == (local ? pb_tourn_rounds(per) : 0));
    CHECK(t.cross == (mode == PB_TOURN_LOCAL ? 0 : pb_tourn_rounds(nnodes)));
    uint64_t intra = 0, cross = 0;
    int bad = 0;
    for (int r = 0; r < pb_tourn_total(&t); r++)
        for (int n = 0; n < nnodes; n++)
            for (int i = 0; i < per; i++) {
                int pn, pl, qn = -1, ql = -1;
                if (!pb_tourn_partner(&t, r, n, i, &pn, &pl))
                    continue;
                /* the partner's partner is this rank: disjoint pairs */
                bad += !pb_tourn_partner(&t, r, pn, pl, &qn, &ql) || qn != n || ql != i;
                bad += pn == n && pl == i;
                if (pb_tourn_is_cross(&t, r)) {
                    bad += pn == n || pl != i;               /* another node, same rail */
                    bad += mode == PB_TOURN_LEADERS && i != 0; /* leaders: rail 0 only */
                    cross += pn > n;
                } else {
                    bad += pn != n;
                    intra += pl > i;
                }
            }
    CHECK(bad == 0);
    /* every local pair once per node; every node pair once per rail (the
     * node pairs themselves are round_robin()'s) */
    CHECK(intra == (local ? (uint64_t)nnodes * (uint64_t)per * (uint64_t)(per - 1) / 2 : 0));
    uint64_t rails = mode == PB_TOURN_LEADERS ? 1 : (uint64_t)per;
    CHECK(cross == (mode == PB_TOURN_LOCAL
                        ? 0
                        : (uint64_t)nnodes * (uint64_t)(nnodes - 1) / 2 * rails));
    free(size);
}

int main(void)
{
    /* small round-robins by hand: 4 players, 3 rounds, 6 pairs; 5
     * players, 5 rounds, one rests each, 10 pairs */
    CHECK(pb_tourn_rounds(0) == 0 && pb_tourn_rounds(1) == 0 && pb_tourn_rounds(2) == 1);
    CHECK(pb_tourn_rounds(4) == 3 && pb_tourn_rounds(5) == 5);
    CHECK(round_robin(4) == 6 && round_robin(5) == 10);
    /* round 0 of 4 (circle method, 3 fixed): 3-0 and 1-2 */
    CHECK(pb_tourn_opponent(4, 0, 3) == 0 && pb_tourn_opponent(4, 0, 1) == 2);
    for (int n = 2; n <= 64; n++)
        CHECK(round_robin(n) == (uint64_t)n * (uint64_t)(n - 1) / 2);
    /* 2,048 nodes: 2,047 rounds, 2,096,128 node pairs each once; 16,384
     * nodes: 16,383 rounds, 134,209,536 pairs (a 16 MiB bit set) */
    CHECK(pb_tourn_rounds(2048) == 2047);
    CHECK(round_robin(2048) == UINT64_C(2096128));
    CHECK(pb_tourn_rounds(16384) == 16383);
    CHECK(round_robin(16384) == UINT64_C(134209536));
    CHECK(round_robin(2047) == UINT64_C(2094081)); /* odd: 2,047 rounds with a rest */
    /* W = 16,384 as 2,048 nodes x 8 GPUs, every mode: 7 intra rounds,
     * 2,047 cross rounds, every rank checked in every round */
    cluster(PB_TOURN_ALL, 2048, 8);
    cluster(PB_TOURN_LOCAL, 2048, 8);
    cluster(PB_TOURN_RAILS, 2048, 8);
    cluster(PB_TOURN_LEADERS, 2048, 8);
    pb_tourn_t t;
    int sizes[2048];
    for (int n = 0; n < 2048; n++)
        sizes[n] = 8;
    pb_tourn_init(&t, PB_TOURN_ALL, 2048, sizes);
    CHECK(t.intra == 7 && t.cross == 2047 && pb_tourn_total(&t) == 2054);
    /* odd sizes: 3 nodes of 3 ranks */
    cluster(PB_TOURN_ALL, 3, 3);
    /* uneven nodes: rail 2 exists on node 0 only, so node 0's local rank
     * 2 never crosses; node 1 (2 ranks) finishes its intra round-robin
     * after 1 round and rests while node 0 (3 ranks) plays 3 */
    int uneven[2] = {3, 2};
    pb_tourn_init(&t, PB_TOURN_ALL, 2, uneven);
    CHECK(t.intra == 3 && t.cross == 1);
    int pn, pl;
    CHECK(!pb_tourn_partner(&t, 3, 0, 2, &pn, &pl));
    CHECK(pb_tourn_partner(&t, 3, 0, 1, &pn, &pl) && pn == 1 && pl == 1);
    CHECK(!pb_tourn_partner(&t, 1, 1, 0, &pn, &pl) && !pb_tourn_partner(&t, 2, 1, 1, &pn, &pl));
    return pb_test_failures ? 1 : 0;
}
