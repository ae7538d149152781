/* pb_validate_judge.h - rank 0's side of `parbench validate`: judges each
 * round of concurrent pairs as it ends, two ways: against the other pairs
 * of its class in its round (validate/pb_outlier.h: they ran at the same
 * moment) and against its link's expected bandwidth (validate/pb_vexpect.h:
 * all links slow together still fail).  A flagged pair is not a verdict
 * yet: it is re-measured alone, beside a reference pair of its class
 * (pb_validate_confirm.c), and only what holds again is called slow; the
 * rest is cleared as noise.  Then the verdicts go per rank and rail
 * (validate/pb_attrib.h), the rows are written, and the table names the
 * slow GPUs, NICs, rails and pairs.
 *
 * Memory is O(W): one round's times at a time, counters per rank, the
 * pairs printed (every pair up to PB_VJ_LISTED, past that the flagged
 * ones, as `step` summarises past 32 ranks). */
#ifndef PB_VALIDATE_JUDGE_H
#define PB_VALIDATE_JUDGE_H

#include <stdint.h>

#include "../../validate/pb_attrib.h"
#include "../../validate/pb_outlier.h"
#include "../../validate/pb_tournament.h"
#include "../../validate/pb_vexpect.h"
#include "../run/pb_ctx.h"
#include "../../util/pb_stats.h"

/* Many short trials, keeping the best of each vote: load from elsewhere
 * only ever slows a pair down, and a trial short enough to fit in one
 * scheduler time slice catches the pair running undisturbed at least
 * once.  Every vote's best is kept and the votes vote (model/
 * pb_outlier.h): a burst of load from elsewhere hits one vote of a pair,
 * not most of them. */
#define PB_VALIDATE_REPS 2   /* exchanges per trial */
#define PB_VALIDATE_TRIALS 8 /* per vote */
/* --fault slow:A-B (that pair) and slow-rank:R (every pair of R): every
 * timed exchange is followed by 20 more, timed with it, so the pair's
 * bandwidth is about 1/21 of its own, far below any sensible --min-ratio:
 * a test of the flagging proves detection, not luck.  Extra exchanges,
 * not a sleep: they slow down with the pair under load from elsewhere, so
 * the ratio stays near 1/21 on a busy machine too (a sleep of fixed
 * length does not: on 2 cores with spinning processes a healthy exchange
 * waited up to 8 ms for their time slices, which a 20 ms sleep beat by
 * only 2.5x), and they add no sleep whose wake-up skew between the two
 * ranks would slow the next exchange. */
#define PB_VALIDATE_SLOWDOWN 20

/* timed rounds per pair (votes); odd, so no vote ties and the median time
 * is one vote's */
#define PB_VALIDATE_VOTES 7
/* -b not given: the message is picked by the memory moved (pb_cmd_validate.c) */
#define PB_VALIDATE_AUTO_BYTES UINT64_MAX
/* every pair printed up to this many pairs measured; past it, flagged
 * pairs only */
#define PB_VJ_LISTED 64

/* flagged in its round by ... */
#define PB_VFLAG_REL 1 /* its ratio to its class (--min-ratio) */
#define PB_VFLAG_ABS 2 /* its share of its expectation (--min-share) */

typedef enum pb_vstate {
    PB_VS_OK,          /* judged, not flagged */
    PB_VS_NOT_JUDGED,  /* alone in its class and no expectation */
    PB_VS_SLOW,        /* flagged, and slow again alone: the verdict */
    PB_VS_CLEARED,     /* flagged, fast alone: load or contention in its round */
    PB_VS_UNCONFIRMED  /* flagged, not re-measured (past --confirm) */
} pb_vstate_t;

typedef struct pb_vpair {
    int a, b, rail, round;
    char cls[16];
    double gbps;   /* per direction, from the median time */
    pb_stats_t st; /* seconds per exchange over the votes */
    pb_outlier_t judged;
    int per; /* exchanges timed per one counted (21 under --fault) */
    pb_vexpect_t expect; /* in its round (a NIC shared by the round's pairs divided) */
    double share;        /* votes' upper median of GB/s / expectation; NAN: none */
    int share_slow;      /* votes below --min-share */
    int flags;           /* PB_VFLAG_* */
    int ref_a, ref_b;    /* its class's reference pair in its round, -1: none */
    pb_vstate_t state;
    /* the re-measurement alone: GB/s of the pair and of its reference,
     * and the ratio and share voted on (NAN where not measured) */
    double alone_gbps, alone_ref_gbps, alone_ratio, alone_share;
} pb_vpair_t;

typedef struct pb_vjudge {
    pb_ctx_t *ctx;
    const pb_tourn_t *t;
    uint64_t bytes;
    int device; /* the backend moves device memory: GPU link rates apply */
    const pb_vexpect_rank_t *facts; /* every rank's (pb_validate_facts) */
    pb_attrib_t at;
    pb_vpair_t *kept; /* printed at the end */
    size_t nkept, cap;
    pb_vpair_t *pending; /* flagged, awaiting re-measurement */
    size_t npending, pcap;
    size_t measured;    /* pairs measured */
    size_t judged;      /* of those, judged one way or the other */
    size_t flagged;     /* flagged in their rounds */
    size_t cleared, unconfirmed; /* the slow ones: at.nflagged (settled flagged = slow) */
    int rounds_done;
} pb_vjudge_t;

int pb_vjudge_init(pb_vjudge_t *j, pb_ctx_t *ctx, const pb_tourn_t *t, uint64_t bytes,
                   const pb_vexpect_rank_t *facts, pb_err_t *err);
void pb_vjudge_free(pb_vjudge_t *j);

/* ---- expectations (pb_validate_expect.c) ---- */

/* Collective: every rank's link facts (its GPU's NVLink generation and
 * PCIe link, its NIC's rate) to rank 0, which gets a calloc'ed array of
 * size entries in *all (NULL elsewhere). */
int pb_validate_facts(pb_ctx_t *ctx, pb_vexpect_rank_t **all, pb_err_t *err);

/* Pair a-b's expectation in a round where `active` says which ranks move
 * data (NULL: the pair alone): a NIC is shared by its node's active
 * ranks on it. */
void pb_vjudge_expect(const pb_vjudge_t *j, int a, int b, const int *active, pb_vexpect_t *out);

/* ---- re-measurement (pb_validate_confirm.c) ---- */

/* Collective: the flagged pairs, most suspicious first and at most
 * --confirm of them, re-measured alone; sets their states, then counts
 * them per rank and rail and writes their rows (rank 0). */
int pb_validate_confirm(pb_ctx_t *ctx, pb_vjudge_t *j, void *sbuf, void *rbuf, uint64_t bytes,
                        pb_err_t *err);

/* The rank side of a measurement, shared by the rounds and the
 * re-measurement (pb_cmd_validate.c): one vote with peer, this rank's
 * best seconds per exchange; and the quiet barrier between votes. */
#define PB_VM_FIRST 1 /* untimed exchanges first: connection set-up */
#define PB_VM_ALONE 2 /* the re-measurement alone */
int pb_validate_measure(pb_ctx_t *ctx, int peer, void *sbuf, void *rbuf, uint64_t bytes,
                        int how, double *best, pb_err_t *err);
void pb_validate_barrier(pb_ctx_t *ctx, pb_err_t *err);

/* Rank 0, after the re-measurement: a pair's verdict into the counters,
 * its row, and the printed copy (pb_validate_judge.c). */
int pb_vjudge_settle(pb_vjudge_t *j, pb_vpair_t *p, pb_err_t *err);

/* The verdict word of a state, as rows and the table carry it. */
const char *pb_vstate_name(pb_vstate_t s);

/* Exchanges timed for each one counted between ranks a and b: 1, or
 * 1 + PB_VALIDATE_SLOWDOWN where a --fault slows them (noisy:A-B only in
 * the rounds, not alone: load that came and went). */
int pb_validate_per_count(const pb_options_t *o, int a, int b, int alone);

/* World rank r's partner in round `round`, or -1. */
int pb_validate_partner(const pb_ctx_t *ctx, const pb_tourn_t *t, int round, int r);

/* One round on rank 0: sec[r * VOTES + v] is rank r's best seconds per
 * exchange in vote v (0 where it rested). */
int pb_vjudge_round(pb_vjudge_t *j, int round, const double *sec, pb_err_t *err);

/* The table and the verdict: PB_OK, or PB_EVERIFY naming what is slow.
 * total: pairs of the whole schedule; stopped: why rounds were left out
 * ("" when none were). */
int pb_vjudge_report(pb_vjudge_t *j, size_t total, const char *stopped, pb_err_t *err);

#endif
