/* pb_replay_run.h - a replay plan (glue/pb_replay_plan.h) run on the
 * launched ranks: one group per recorded communicator, split from the
 * world by its members' global ranks; this rank's units in the plan's
 * order, each issued through pb_exec as `coll` issues its operations -
 * verified (poisoned, filled, run, every output checked) or timed between
 * the backend's marks (host: the clock; device: events on the group's
 * stream), each unit completed before the next. */
#ifndef PB_REPLAY_RUN_H
#define PB_REPLAY_RUN_H

#include "../glue/pb_replay_plan.h"
#include "pb_ctx.h"
#include "pb_exec.h"

typedef struct pb_replay_exec {
    pb_ctx_t *ctx;
    const pb_replay_plan_t *plan;
    const pb_jobprof_t *jp;
    pb_group_t **groups;  /* per recorded communicator: this rank's (NULL: not a member) */
    pb_rp_step_t *steps;  /* this rank's units, in order */
    size_t nsteps;
    double scale;         /* sizes x scale (--scale) */
    int corrupt;          /* --fault corrupt on this rank: its outputs made wrong */
    pb_bufs_t bufs;       /* one pair of buffers, as large as this rank's largest unit */
    double *spent;        /* per communicator: this rank's seconds in the last timed pass */
    int64_t *wrong;       /* per communicator: this rank's wrong elements so far */
} pb_replay_exec_t;

/* Collective: this rank's units, the groups, the buffers; `gaps` asks for
 * the compute stand-in (refused on a backend without one).  Every rank
 * returns the same code (input refused, or a failure on some rank). */
int pb_replay_setup(pb_replay_exec_t *x, pb_ctx_t *ctx, const pb_replay_plan_t *p,
                    const pb_jobprof_t *jp, double scale, int gaps, pb_err_t *err);

/* Collective: one pass over every unit, from a common start (a world
 * barrier).  verify: each unit checked (untimed), wrong elements added to
 * x->wrong; else each unit timed into x->spent, after the recorded idle
 * time before it kept busy when `gaps` is set.  *wall: this rank's
 * seconds from the start to its last unit's end.  A failure here aborts
 * the job (the other ranks may be waiting in a collective). */
void pb_replay_pass(pb_replay_exec_t *x, int verify, int gaps, double *wall);

void pb_replay_release(pb_replay_exec_t *x);

#endif
