/* pb_knob.h - the communication settings `parbench tune` searches, one
 * row per knob: its name as a job script sets it, how parbench applies it
 * to a candidate, the values tried, the operations it can change and the
 * library versions that honour it.  Pure data and look-ups: the backends
 * (collectives/) apply them, tune/pb_tplan.h orders them.
 *
 * How a knob reaches a candidate decides what a measurement can compare:
 *  - PB_APPLY_MPIT: an MPI_T control variable written in the running
 *    process, then a new communicator; Open MPI's tuned collectives read
 *    their forced algorithm when a communicator is created (coll_tuned's
 *    module enable), so the default and the candidate live side by side
 *    in one process and are timed in alternation;
 *  - PB_APPLY_COMM_ENV: an environment variable NCCL reads when a
 *    communicator is created (NCCL_ALGO, NCCL_PROTO: ncclGetEnv in
 *    graph/tuning.cc's ncclTopoTuneModel, not cached), set around
 *    ncclCommInitRank: side by side as above;
 *  - PB_APPLY_COMM_CONFIG: a ncclConfig_t field (minCTAs, maxCTAs: the
 *    channels of NCCL_MIN/MAX_NCHANNELS, NCCL 2.17+): side by side;
 *  - PB_APPLY_PROCESS_ENV: read once per process (NCCL_PARAM caches the
 *    first read: NCCL_BUFFSIZE, NCCL_NVLS_ENABLE, ...; CUDA reads
 *    CUDA_DEVICE_MAX_CONNECTIONS when its context starts): a launch per
 *    candidate, alternating launches of the default and the candidate.
 * doc/tuning.md has the table with its sources. */
#ifndef PB_KNOB_H
#define PB_KNOB_H

#include <stddef.h>

#include "../util/pb_err.h"

typedef enum pb_knob_lib { PB_KNOB_MPI, PB_KNOB_NCCL } pb_knob_lib_t;

typedef enum pb_knob_apply {
    PB_APPLY_MPIT,
    PB_APPLY_COMM_ENV,
    PB_APPLY_COMM_CONFIG,
    PB_APPLY_PROCESS_ENV
} pb_knob_apply_t;

#define PB_KNOB_VALUES 12

typedef struct pb_knob {
    const char *name;     /* NCCL_ALGO, coll_tuned_allreduce_algorithm */
    pb_knob_lib_t lib;
    pb_knob_apply_t apply;
    const char *ops;      /* the collectives it can change: "allreduce", "*" */
    const char *values;   /* comma-separated candidates, the library's spelling */
    const char *labels;   /* the same values as people read them, or NULL */
    const char *needs;    /* NAME=VALUE set with it (coll_tuned_use_dynamic_rules=1), or NULL */
    const char *since;    /* the versions that honour it */
    const char *what;
    /* Open MPI: the collective's index in coll/tuned's dynamic rules file
     * (COLLTYPE_T of ompi/mca/coll/base/coll_base_functions.h: allgather
     * 0, allreduce 2, alltoall 3, bcast 7, reduce_scatter_block 13), which
     * tune.env uses instead of the knob (tune/pb_trules.h); -1: none */
    int rules_coll;
    /* NCCL: 1 when its value can name the collectives it is for
     * ("allreduce:Tree;allgather:Ring", NCCL 2.24+: env.rst), 0 when one
     * value holds for every collective */
    int per_coll;
} pb_knob_t;

/* The table, NULL-terminated by name. */
const pb_knob_t *pb_knob_at(size_t i);
size_t pb_knob_count(void);
const pb_knob_t *pb_knob_find(const char *name);

/* Whether knob k can change collective `op` ("allreduce", ...). */
int pb_knob_affects(const pb_knob_t *k, const char *op);

/* The name NCCL's per-collective values give collective `op` (NCCL's
 * ncclFuncStr, matched without case: "allreduce" for AllReduce), or NULL
 * for one they cannot name (send/recv, all-to-all: NCCL's point-to-point
 * operations, which take no algorithm). */
const char *pb_knob_nccl_func(const char *op);

/* Value i of knob k (0-based) into buf; its count is the return of
 * pb_knob_nvalues. */
size_t pb_knob_nvalues(const pb_knob_t *k);
int pb_knob_value(const pb_knob_t *k, size_t i, char *buf, size_t len);
/* How people read value i ("ring" for 4), or the value itself. */
int pb_knob_label(const pb_knob_t *k, size_t i, char *buf, size_t len);

/* What knob k needs set with it (its `needs`, "NAME=VALUE"): NAME into
 * buf, VALUE returned; NULL (buf untouched) when it needs nothing. */
const char *pb_knob_need(const pb_knob_t *k, char *buf, size_t len);

/* The environment variable a job script sets: NCCL_* as it is, an Open
 * MPI parameter as OMPI_MCA_<name>. */
void pb_knob_env_name(const pb_knob_t *k, const char *name, char *buf, size_t len);

#endif
