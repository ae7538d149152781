/* pb_attrib.h - what an operator fixes: from the pairs validate flagged
 * (validate/pb_outlier.h), name the slow GPUs, NICs and rails apart from the
 * slow pairs that none of them explains.  Pure: tested on made-up
 * verdicts and bandwidths.
 *
 * Every judged pair is added once with its two ranks, whether it crossed
 * nodes and on which rail (local rank i of both nodes; the schedule is
 * rail-aligned, validate/pb_tournament.h).  The rules, in this order, each
 * explaining the flagged pairs it covers:
 *  1. a rank is slow (its GPU, its host, its process) when it was in at
 *     least 2 judged pairs, one of them on its own node, and every one of
 *     them was flagged: slow with every partner, even without a NIC;
 *  2. a rail is slow when at least 2 cross-node pairs on it were judged,
 *     every one flagged: slow on every node pair that uses it (a rail
 *     switch, a rail's cabling);
 *  3. a rank's NIC is slow when the rank was in at least 2 judged
 *     cross-node pairs, every one flagged, and rule 1 does not name it:
 *     slow across nodes with every partner, on its own node fine (or not
 *     measured: then its GPU is as likely, and the report says so);
 *  4. any other flagged pair is a slow pair (a cable, a port, a path).
 * One partner cannot tell a rank from a pair: with a single judged pair
 * a slow rank shows as a slow pair, never as a slow rank.  Counters are
 * O(W) and O(rails); flagged pairs are kept up to PB_ATTRIB_KEEP (a
 * broken cluster flags more than anyone reads; the count stays exact). */
#ifndef PB_ATTRIB_H
#define PB_ATTRIB_H

#include <stddef.h>

#include "../util/pb_err.h"

#define PB_ATTRIB_KEEP 4096

typedef struct pb_attrib_pair {
    int a, b;
    int rail;    /* cross-node: the rail (local rank); intra-node: -1 */
    int flagged; /* validate/pb_outlier.h's verdict */
    int tag;     /* the caller's: e.g. where its row is */
} pb_attrib_pair_t;

typedef struct pb_attrib {
    int size, rails;
    int *pairs, *slow;             /* per rank: judged pairs, flagged ones */
    int *xpairs, *xslow;           /* per rank: the cross-node ones */
    int *rail_pairs, *rail_slow;   /* per rail */
    pb_attrib_pair_t *flagged;     /* kept, at most PB_ATTRIB_KEEP */
    size_t nkept, nflagged, njudged;
} pb_attrib_t;

int pb_attrib_init(pb_attrib_t *t, int size, int rails, pb_err_t *err);
void pb_attrib_free(pb_attrib_t *t);

/* One judged pair: PB_EINPUT for a rank or rail out of range. */
int pb_attrib_add(pb_attrib_t *t, const pb_attrib_pair_t *p, pb_err_t *err);

typedef enum pb_attrib_cause {
    PB_CAUSE_NONE, /* not flagged */
    PB_CAUSE_RANK, /* rule 1: the rank named */
    PB_CAUSE_RAIL, /* rule 2 */
    PB_CAUSE_NIC,  /* rule 3: the NIC of the rank named */
    PB_CAUSE_PAIR  /* rule 4 */
} pb_attrib_cause_t;

/* Rules 1 to 3 on the counters. */
int pb_attrib_rank_slow(const pb_attrib_t *t, int r);
int pb_attrib_rail_slow(const pb_attrib_t *t, int rail);
int pb_attrib_nic_slow(const pb_attrib_t *t, int r);

/* Why a pair was flagged; *who: the rank (RANK, NIC) or rail (RAIL)
 * blamed, -1 otherwise. */
pb_attrib_cause_t pb_attrib_cause(const pb_attrib_t *t, const pb_attrib_pair_t *p, int *who);

#endif
