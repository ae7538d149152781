/* pb_replay.h - parbench replay's run, shared by its two files:
 * pb_cmd_replay.c (the command: options, checks, the stages) and
 * pb_replay_out.c (the head, the table, --csv). */
#ifndef PB_REPLAY_H
#define PB_REPLAY_H

#include "../../jobprof/pb_jobprof.h"
#include "../../jobprof/pb_jp_infer.h"
#include "../glue/pb_replay_plan.h"
#include "../run/pb_replay_run.h"

typedef struct pb_replay {
    pb_ctx_t *ctx;
    const pb_options_t *o;
    pb_jobprof_t jp;
    pb_jp_shape_t shape;  /* the layout the communicators show */
    pb_replay_plan_t plan;
    pb_replay_exec_t x;
    int verified;         /* the verified pass ran */
    uint64_t timed;       /* timed passes done */
    /* [pass * ncomms + c]: the slowest member's seconds on communicator
     * c in that pass (this rank's until reduced over the world) */
    double *pass_s;
    /* [pass]: a rank's operations on every communicator summed (this
     * rank's until reduced: the slowest rank's) */
    double *rank_s;
    double rank_med;      /* the median pass's: the job's replayed communication */
    double *wall_s;       /* [pass]: the slowest rank's whole pass */
    double *replayed_s;   /* per communicator: the median over the passes */
    double wall_med;      /* the median pass */
    int64_t *wrong;       /* per communicator, summed over the world */
    int64_t wrong_total;
} pb_replay_t;

/* Rank 0: what is replayed and how (before the passes). */
void pb_replay_print_head(const pb_replay_t *r);
/* Rank 0: per communicator and in all, recorded against replayed. */
void pb_replay_print_table(const pb_replay_t *r);
/* Rank 0: the table as CSV (reports/pb_replay_csv.h). */
int pb_replay_write_csv(const pb_replay_t *r, const char *path, pb_err_t *err);

#endif
