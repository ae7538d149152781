/* pb_exec.h - one operation on one group: issue it, fill its inputs with
 * checkable data, verify its outputs.
 *
 * This is where the backend-neutral pointer conventions of pb_backend.h
 * (in-place by pointer, NCCL's layout) are turned into calls, so the
 * timing harness, the pattern runner and the step runner all issue
 * operations the same way. */
#ifndef PB_EXEC_H
#define PB_EXEC_H

#include <stdint.h>

#include "../../collectives/pb_backend.h"
#include "../../patterns/pb_pat_op.h"

typedef struct pb_bufs {
    void *send;
    void *recv;
    uint64_t bytes; /* capacity of each */
    /* all-to-all-v counts and displacements, 4 arrays of group-size
     * entries: send counts, send displs, recv counts, recv displs */
    uint64_t *a2av;
} pb_bufs_t;

typedef struct pb_op {
    pb_coll_t coll;
    pb_dtype_t dtype;
    pb_redop_t redop;
    int root;
    int in_place;
    uint64_t bytes;
    pb_coll_geom_t geom;
    /* Send/recv partners (group ranks, -1 = none) when p2p is set; else
     * the ring of `coll` sweeps (send to rank+1, receive from rank-1).
     * Patterns need open chains (a pipeline's last stage sends nothing
     * forward) and both directions. */
    int p2p;
    int to, from;
    /* all-to-all-v: > 1 sends every rank's tokens to destination 0 at
     * this multiple of the mean share (a hot expert); 0 = the sweeps'
     * skewed matrix (pb_alltoallv_skewed). */
    double imbalance;
} pb_op_t;

/* Sets geometry (and all-to-all-v counts in b) for `bytes` on group g.
 * bytes must be a multiple of pb_coll_granule(). */
int pb_op_setup(pb_op_t *op, const pb_group_t *g, pb_bufs_t *b, pb_err_t *err);

/* A send/recv's partners on g (group ranks, -1 = none): the explicit
 * ones when op->p2p is set, else the ring's (send to rank+1, receive
 * from rank-1). */
void pb_op_partners(const pb_op_t *op, const pb_group_t *g, int *to, int *from);

/* Buffer bytes an operation needs: `bytes`, or for a hot-destination
 * all-to-all-v the hot rank's larger receive side. */
uint64_t pb_op_buffer_bytes(const pb_op_t *op, int n);

/* Allocates two buffers of `bytes` and the count arrays. */
int pb_bufs_alloc(pb_group_t *g, uint64_t bytes, pb_bufs_t *b, pb_err_t *err);
void pb_bufs_free(pb_group_t *g, pb_bufs_t *b);

/* Issues the operation once (asynchronously on device backends). */
int pb_op_run(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err);

/* Fills the inputs with the checkable data of this rank. */
int pb_op_fill(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err);

/* Poisons outputs, fills inputs, runs once, and counts this rank's wrong
 * elements.  With corrupt set, one received element is overwritten after
 * the run (a fault-injection switch: the checker must catch it). */
int pb_op_verify(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, int corrupt, uint64_t *wrong,
                 pb_err_t *err);

/* Does a second run leave the outputs as one run does (no input is
 * rewritten: out of place, or an in-place broadcast or all-gather)?
 * Then what the last timed run left can be checked as it is. */
int pb_op_repeatable(const pb_op_t *op);

/* Poisons the outputs (as pb_op_verify does), then fills the inputs: the
 * set-up before timing a repeatable operation, checked afterwards with
 * pb_op_check and no run of its own. */
int pb_op_prepare(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, pb_err_t *err);

/* Counts this rank's wrong elements in the outputs as they are (after
 * pb_op_prepare and any number of runs of a repeatable operation);
 * corrupt as in pb_op_verify. */
int pb_op_check(pb_group_t *g, const pb_op_t *op, pb_bufs_t *b, int corrupt, uint64_t *wrong,
                pb_err_t *err);

/* The backend operation of a pattern record on group g: its collective
 * and type, bytes rounded down to what the group can split (never below
 * one granule).  Returns 1 when it rounded, 0 when not.  Partners (p2p)
 * are the caller's.  The pattern runner and the executed step issue
 * their records through it. */
int pb_pattern_backend_op(const pb_pat_op_t *r, const pb_group_t *g, pb_op_t *op);

/* A point-to-point record's partners on a group of n (group ranks, -1 =
 * none): an open chain for the pipeline's next and previous stages, a
 * ring for the rest. */
void pb_pattern_peers(pb_p2p_t d, int me, int n, int *to, int *from);

#endif
