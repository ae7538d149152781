/* pb_jp_strag.h - stragglers: for every collective that all members of
 * its communicator recorded, which rank issued it last and by how much,
 * and the ranks that are last again and again.
 *
 * A collective cannot start before its last member has issued it, so the
 * last issue (t_issue, the CPU time the job called it) holds everyone
 * else.  The lag of an operation is the last issue minus the one before
 * it (second-to-last): what that one rank alone cost - had it come with
 * the others, the operation would have started that much sooner - and not
 * a spread that one early rank could make large.  Counted: collectives
 * on communicators of two or more ranks whose every member recorded that
 * (function, seq) with an issue time; sends and receives are matched
 * with no one (pb_jp_inst.h) and are left out.
 *
 * Jitter: a lag below min_lag_ns makes nobody last (every operation has a
 * last rank; a few microseconds of issue jitter say nothing).  Across
 * nodes the times are each host's CLOCK_REALTIME: lags below the clocks'
 * offset (NTP: up to milliseconds; PTP: microseconds) are the clocks'.
 *
 * Repeatedly last: a rank that was last (lag >= min_lag_ns) at least
 * twice and more often than chance explains - by at least 3 standard
 * deviations of the count a rank that is last at random would reach:
 * in an operation of n members it is last with probability 1/n, so over
 * the late operations (lag >= min_lag_ns) it took part in its count has
 * mean sum(1/n) and variance sum(1/n (1 - 1/n)) (a sum of independent
 * Bernoulli trials, here read with the normal approximation).  The count
 * and its chance are over the same set: the operations where someone was
 * late.  Over all matched operations instead, a rank last in every one of
 * the 20 late operations out of 100 on 2 ranks would be held to chance's
 * 50 +- 5 and missed; over the late ones chance is 10 +- sqrt(5), and 20
 * is past 10 + 3 sqrt(5) = 16.7.  A ratio to the mean alone cannot work
 * on 2-rank groups, where a rank last every time is only twice what
 * chance gives. */
#ifndef PB_JP_STRAG_H
#define PB_JP_STRAG_H

#include <stddef.h>
#include <stdint.h>

#include "pb_jobprof.h"
#include "pb_jp_inst.h"

#define PB_JP_STRAG_WORST 10

typedef struct pb_jp_late {
    size_t inst;     /* index into the instances */
    int rank;        /* the last to issue it */
    int64_t lag_ns;  /* last issue - second-to-last */
} pb_jp_late_t;

typedef struct pb_jp_rank_late {
    int rank;
    uint64_t ops;      /* late operations (lag >= min_lag_ns) it took part in */
    uint64_t last;     /* of them, those it was last in */
    double chance;     /* what chance would give: sum of 1 / members over them */
    double chance_var; /* its variance: sum of 1/n (1 - 1/n) */
    int64_t lag_sum_ns;
    double mean_lag_ns; /* lag_sum_ns / last */
    int repeated;       /* the rule above */
} pb_jp_rank_late_t;

typedef struct pb_jp_strag {
    uint64_t matched;     /* operations every member recorded */
    uint64_t unmatched;   /* collectives some member did not record (or without issue times) */
    uint64_t late;        /* matched operations with a lag >= min_lag_ns */
    int64_t min_lag_ns;
    pb_jp_late_t worst[PB_JP_STRAG_WORST]; /* the largest lags, largest first */
    int nworst;
    pb_jp_rank_late_t *ranks; /* ranks that were last at least once, most lag first */
    size_t nranks;
} pb_jp_strag_t;

int pb_jp_strag_find(const pb_jobprof_t *jp, const pb_jp_insts_t *in, int64_t min_lag_ns,
                     pb_jp_strag_t *out, pb_err_t *err);
void pb_jp_strag_free(pb_jp_strag_t *s);

#endif
