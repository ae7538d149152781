/* pb_jp_kineto_priv.h - what the parts of the PyTorch trace reader share:
 * one trace's process groups and the events it uses, and the one place an
 * operation is made.  pb_jp_kineto.c reads the trace and the NCCL form
 * (record_param_comms), pb_jp_kineto_pg.c the process groups,
 * pb_jp_kineto_gloo.c the gloo form. */
#ifndef PB_JP_KINETO_PRIV_H
#define PB_JP_KINETO_PRIV_H

#include <jansson.h>
#include <stdint.h>

#include "pb_jobprof.h"

/* A process group of distributedInfo.pg_config (or one a
 * record_param_comms names that pg_config lacks). */
typedef struct pb_kgroup {
    char name[PB_JP_NAME];  /* pg_name: the group's name, the same on every rank */
    char desc[PB_JP_NAME];  /* pg_desc ("default_pg", "undefined", Megatron's names) */
    int size;
    int *ranks;             /* its global ranks; NULL not known */
    int gloo;               /* its backend_config names gloo: it has gloo worker threads */
    int comm;               /* its index in jp->comms, -1 until an operation uses it */
} pb_kgroup_t;

/* One complete ("ph": "X") event the reader uses. */
typedef struct pb_kev {
    json_t *args;           /* borrowed from the parsed trace; NULL when it has none */
    const char *name;
    int64_t tid;
    int64_t t0, t1;         /* start and end, ns since the epoch */
    int64_t ext;            /* "External id"; -1 none */
    int used;               /* claimed by an operation (gloo events) */
} pb_kev_t;

typedef struct pb_kevs {
    pb_kev_t *v;
    size_t n, cap;
} pb_kevs_t;

typedef struct pb_kt {
    const char *name;       /* the file, for messages */
    pb_jobprof_t *jp;
    int rank, world;
    pb_kgroup_t *groups;
    size_t ngroups;
    pb_kevs_t rpc;          /* record_param_comms, by start */
    pb_kevs_t c10d;         /* c10d::<op> CPU ops, by start */
    pb_kevs_t gloo;         /* gloo:<op> worker events, by start */
    pb_kevs_t kern;         /* GPU kernels carrying an External id */
    pb_jop_t *ops;          /* this trace's operations, before their seq */
    size_t nops, opscap;
} pb_kt_t;

/* obj[key] as an integer (a JSON integer, or a real holding one); 0 ok, -1
 * absent or not a whole number. */
int pb_kt_int(const json_t *obj, const char *key, int64_t *out);
/* obj[key] as a string, or NULL. */
const char *pb_kt_str(const json_t *obj, const char *key);

/* One entry of distributedInfo.pg_config into kt->groups.  A pg_size
 * that is not the ranks' count, a name listed twice, this rank not a
 * member: PB_EINPUT. */
int pb_kt_read_pg(pb_kt_t *kt, const json_t *pg, pb_err_t *err);
/* The group a record_param_comms (args a, its "Group size" size) names:
 * pg_config's, or one made from the record, its ranks when listed whole;
 * NULL with err set when it names none or its ranks disagree. */
pb_kgroup_t *pb_kt_rpc_group(pb_kt_t *kt, const json_t *a, int size, pb_err_t *err);
/* The group's communicator in kt->jp (added, members filled, on first
 * use); its index or -1 with err set. */
int pb_kt_comm(pb_kt_t *kt, pb_kgroup_t *g, pb_err_t *err);

/* op (rank, comm, count, peer and times set) completed from the
 * recorder's function and type names - kind, coll, dtype, known, bytes -
 * and appended to kt->ops.  A function parbench does not measure keeps
 * its name with known = 0 and bytes 0. */
int pb_kt_add(pb_kt_t *kt, pb_jop_t *op, const char *func, const char *dtype, pb_err_t *err);

/* The args of c10d:: and gloo: events (pb_jp_kineto_args.c). */
/* The function's family: the name folded (namespace, '_' and case gone)
 * down to the collective it runs, so "c10d::_allgather_base_" and
 * "gloo:all_gather" meet at "allgather". */
void pb_kt_family(const char *name, char *out, size_t len);
/* Elements of argument i of an event with shapes; -1 not a tensor
 * argument or not recorded. */
int64_t pb_kt_arg_numel(const json_t *args, size_t i);
/* Argument i's type when it is one tensor (not a list, not a scalar). */
const char *pb_kt_arg_type(const json_t *args, size_t i);
/* Entries of a "Concrete Inputs" int list, "[32, 32]": 0 empty or not
 * a list. */
int64_t pb_kt_list_len(const char *v);
/* Every "Input Dims" entry of event e (the at-th of the trace) within
 * PB_JP_MAX_COUNT elements and without a negative dimension; PB_EINPUT
 * naming the entry otherwise. */
int pb_kt_check_dims(const pb_kt_t *kt, const pb_kev_t *e, size_t at, pb_err_t *err);

/* The gloo form: every c10d:: op that holds no record_param_comms, put on
 * its group through the gloo worker thread that ran it.  An op whose
 * worker event is not in the trace is counted in jp->dropped. */
int pb_kt_gloo(pb_kt_t *kt, pb_err_t *err);

#endif
