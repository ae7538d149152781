/* Fault attribution (validate/pb_attrib.h) on made-up bandwidths: a cluster
 * of 4 nodes x 4 ranks (rank = 4 node + local) runs validate's schedule
 * (validate/pb_tournament.h: 3 intra-node rounds, then 3 cross-node rounds
 * on 4 rails); every pair moves 10 GB/s (intra) or 5 GB/s (cross) in
 * every vote, except where a fault slows it to a tenth.  Each round is
 * judged as validate judges it (validate/pb_outlier.h, the round's pairs of
 * one class against each other), then attributed.  The faults:
 *  - slow rank 6: every pair of 6 slowed, intra and cross: named as a
 *    rank, nothing else named;
 *  - slow pair 1-2 (intra-node): the pair alone;
 *  - slow NIC of rank 9 (node 2, rail 1): its 3 cross pairs slowed, its
 *    3 intra pairs not: named as a NIC;
 *  - slow rail 3: every cross pair on rail 3 slowed (6 pairs): the rail,
 *    not the 8 ranks on it;
 * and all four at once, each still named for what it is. */
#include <stdlib.h>
#include <string.h>

#include "validate/pb_attrib.h"
#include "validate/pb_outlier.h"
#include "validate/pb_tournament.h"
#include "pb_test.h"

enum { NODES = 4, PER = 4, W = NODES * PER, VOTES = 5 };

typedef struct fault {
    int rank;       /* every pair of it */
    int pa, pb;     /* that pair */
    int nic;        /* the cross pairs of this rank */
    int rail;       /* every cross pair on it */
} fault_t;

static int slowed(const fault_t *f, int a, int b, int cross)
{
    return a == f->rank || b == f->rank || (a == f->pa && b == f->pb) ||
           (b == f->pa && a == f->pb) || (cross && (a == f->nic || b == f->nic)) ||
           (cross && a % PER == f->rail);
}

/* Runs the schedule under f; fills t. */
static void run(const fault_t *f, pb_attrib_t *t)
{
    int size[NODES] = {PER, PER, PER, PER};
    pb_tourn_t s;
    pb_tourn_init(&s, PB_TOURN_ALL, NODES, size);
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_attrib_init(t, W, PER, &err) == PB_OK);
    for (int r = 0; r < pb_tourn_total(&s); r++) {
        int a[W], b[W], cls[W], n = 0, cross = pb_tourn_is_cross(&s, r);
        for (int x = 0; x < W; x++) {
            int pn, pl;
            if (pb_tourn_partner(&s, r, x / PER, x % PER, &pn, &pl) && pn * PER + pl > x) {
                a[n] = x;
                b[n] = pn * PER + pl;
                cls[n] = cross; /* one class per phase, as NV18 / NET */
                n++;
            }
        }
        double bw[VOTES * W];
        for (int v = 0; v < VOTES; v++)
            for (int i = 0; i < n; i++)
                bw[v * n + i] = (cross ? 5.0 : 10.0) * (slowed(f, a[i], b[i], cross) ? 0.1 : 1.0);
        pb_outlier_t o[W];
        CHECK(pb_outlier_judge(bw, (size_t)n, VOTES, cls, 0.5, o, &err) == PB_OK);
        for (int i = 0; i < n; i++) {
            pb_attrib_pair_t p = {a[i], b[i], cross ? a[i] % PER : -1, o[i].flagged, 0};
            CHECK(pb_attrib_add(t, &p, &err) == PB_OK);
        }
    }
}

/* The causes named over every flagged pair: counts per kind, and the one
 * named of each kind (-1 none, -2 several). */
typedef struct named {
    int n[5], who[5];
} named_t;

static named_t causes(const pb_attrib_t *t)
{
    named_t s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < 5; k++)
        s.who[k] = -1;
    for (size_t i = 0; i < t->nkept; i++) {
        int who;
        pb_attrib_cause_t c = pb_attrib_cause(t, &t->flagged[i], &who);
        s.n[c]++;
        if (c == PB_CAUSE_PAIR)
            who = t->flagged[i].a * W + t->flagged[i].b;
        s.who[c] = s.who[c] == -1 || s.who[c] == who ? who : -2;
    }
    return s;
}

int main(void)
{
    pb_attrib_t t;
    /* 4 nodes x 6 local pairs + 6 node pairs x 4 rails = 48 pairs */
    fault_t none = {-1, -1, -1, -1, -1};
    run(&none, &t);
    CHECK(t.njudged == 48 && t.nflagged == 0);
    pb_attrib_free(&t);

    /* rank 6 (node 1, rail 2): 3 intra pairs + 3 cross pairs, all slow */
    fault_t rank = none;
    rank.rank = 6;
    run(&rank, &t);
    named_t s = causes(&t);
    CHECK(t.nflagged == 6 && s.n[PB_CAUSE_RANK] == 6 && s.who[PB_CAUSE_RANK] == 6);
    CHECK(pb_attrib_rank_slow(&t, 6) && !pb_attrib_nic_slow(&t, 6) && !pb_attrib_rail_slow(&t, 2));
    pb_attrib_free(&t);

    /* pair 1-2 on node 0: flagged alone; ranks 1 and 2 have 5 good pairs */
    fault_t pair = none;
    pair.pa = 1;
    pair.pb = 2;
    run(&pair, &t);
    s = causes(&t);
    CHECK(t.nflagged == 1 && s.n[PB_CAUSE_PAIR] == 1 && s.who[PB_CAUSE_PAIR] == 1 * W + 2);
    pb_attrib_free(&t);

    /* the NIC of rank 9: its 3 cross pairs; its 3 intra pairs fine */
    fault_t nic = none;
    nic.nic = 9;
    run(&nic, &t);
    s = causes(&t);
    CHECK(t.nflagged == 3 && s.n[PB_CAUSE_NIC] == 3 && s.who[PB_CAUSE_NIC] == 9);
    CHECK(!pb_attrib_rank_slow(&t, 9));
    pb_attrib_free(&t);

    /* rail 3: its 6 cross pairs (one per node pair); the 3 other rails
     * carry the class median, so each of the 4 cross pairs of a round
     * has 3 others: 1 slow, 3 fine */
    fault_t rail = none;
    rail.rail = 3;
    run(&rail, &t);
    s = causes(&t);
    CHECK(t.nflagged == 6 && s.n[PB_CAUSE_RAIL] == 6 && s.who[PB_CAUSE_RAIL] == 3);
    pb_attrib_free(&t);

    /* all at once, on different ranks and rails: rank 6 (rail 2), pair
     * 1-2, NIC of 9 (rail 1), rail 3.  The NIC's partners on rail 1 are
     * 1, 5, 13; rank 6's are 4, 5, 7 and 2, 10, 14 */
    fault_t all = {6, 1, 2, 9, 3};
    run(&all, &t);
    s = causes(&t);
    CHECK(s.who[PB_CAUSE_RANK] == 6 && s.n[PB_CAUSE_RANK] == 6);
    CHECK(s.who[PB_CAUSE_PAIR] == 1 * W + 2 && s.n[PB_CAUSE_PAIR] == 1);
    CHECK(s.who[PB_CAUSE_NIC] == 9 && s.n[PB_CAUSE_NIC] == 3);
    CHECK(s.who[PB_CAUSE_RAIL] == 3 && s.n[PB_CAUSE_RAIL] == 6);
    CHECK(t.nflagged == 16);
    pb_attrib_free(&t);

    /* bad input */
    pb_err_t err;
    pb_err_clear(&err);
    CHECK(pb_attrib_init(&t, 4, 2, &err) == PB_OK);
    pb_attrib_pair_t out = {0, 4, -1, 1, 0}, rail9 = {0, 1, 2, 1, 0};
    CHECK(pb_attrib_add(&t, &out, &err) == PB_EINPUT);
    CHECK(pb_attrib_add(&t, &rail9, &err) == PB_EINPUT);
    pb_attrib_free(&t);
    return pb_test_failures ? 1 : 0;
}
