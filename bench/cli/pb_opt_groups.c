/* The option groups several commands share: running and output, what a
 * measurement sweeps (what, sizes, timing, checking), the model, its
 * layout and training settings, and the hardware of a prediction.  A
 * command takes a group by naming it in its table (cmd/pb_cmd_*.c); the
 * help text here is what every such command prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../patterns/pb_pat_op.h"
#include "pb_opt_set.h"
#include "../../util/pb_size.h"


/* ---- help ---------------------------------------------------------- */

static int set_version(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                       pb_err_t *err)
{
    (void)s, (void)v, (void)shown, (void)err;
    o->cmd = PB_CMD_VERSION;
    return PB_OK;
}

static const pb_opt_spec_t help_specs[] = {
    {"help", 'h', NULL, pb_opt_flag, PB_OFF(help), 0, "this text", NULL, NULL},
    {"version", 'V', NULL, set_version, 0, 0, "the version", NULL, NULL},
};
const pb_opt_group_t pb_grp_help = {"", help_specs, PB_NSPECS(help_specs), NULL};

/* ---- run: launching, backend, faults ------------------------------- */

static int set_backend(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                       pb_err_t *err)
{
    (void)s, (void)shown;
    if (strlen(v) >= sizeof o->run.backend)
        return pb_err_set(err, PB_EINPUT, "unknown backend '%s'", v);
    snprintf(o->run.backend, sizeof o->run.backend, "%s", v);
    return PB_OK;
}

static int set_timeout(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                       pb_err_t *err)
{
    (void)s;
    if (strcmp(v, "0") == 0) { /* 0: never time out */
        o->run.timeout_s = 0.0;
        return PB_OK;
    }
    return pb_parse_double(shown, v, 0, &o->run.timeout_s, err);
}

static int set_memory(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s, (void)shown;
    if (strcmp(v, "host") == 0 || strcmp(v, "device") == 0) {
        o->run.memory_device = strcmp(v, "device") == 0;
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "--memory takes host or device, not '%s'", v);
}

static int set_chunk(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    if (pb_size_parse(v, &o->run.chunk_bytes, err) != PB_OK)
        return err->code;
    if (o->run.chunk_bytes == 0)
        return pb_err_set(err, PB_EINPUT, "--mpi-chunk must be above 0");
    return PB_OK;
}

static int set_fault(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    pb_run_opts_t *r = &o->run;
    int noisy = strncmp(v, "noisy:", 6) == 0;
    if (noisy || strncmp(v, "slow:", 5) == 0) {
        /* slow:A-B or noisy:A-B, two different ranks */
        const char *kind = noisy ? "noisy:" : "slow:", *ab = v + strlen(kind);
        char buf[64];
        snprintf(buf, sizeof buf, "%s", ab);
        char *dash = strchr(buf, '-');
        if (dash == NULL || strlen(ab) >= sizeof buf)
            return pb_err_set(err, PB_EINPUT, "bad --fault '%s': expected %sA-B", v, kind);
        *dash = '\0';
        char what[16];
        snprintf(what, sizeof what, "--fault %s", kind);
        if (pb_parse_int(what, buf, 0, &r->fault_rank, err) ||
            pb_parse_int(what, dash + 1, 0, &r->fault_peer, err))
            return err->code;
        if (r->fault_rank == r->fault_peer)
            return pb_err_set(err, PB_EINPUT, "bad --fault '%s': A and B must differ", v);
        r->fault = noisy ? PB_FAULT_NOISY : PB_FAULT_SLOW;
        return PB_OK;
    }
    if (strncmp(v, "slow-rank:", 10) == 0) {
        r->fault = PB_FAULT_SLOW_RANK;
        return pb_parse_int("--fault slow-rank:", v + 10, 0, &r->fault_rank, err);
    }
    if (strncmp(v, "stall:", 6) == 0) {
        r->fault = PB_FAULT_STALL;
        return pb_parse_int("--fault stall:", v + 6, 0, &r->fault_rank, err);
    }
    if (strncmp(v, "hang:", 5) == 0) {
        r->fault = PB_FAULT_HANG;
        return pb_parse_int("--fault hang:", v + 5, 0, &r->fault_rank, err);
    }
    if (strncmp(v, "corrupt:", 8) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "bad --fault '%s': expected corrupt:RANK, stall:RANK, hang:RANK, slow:A-B, "
                          "slow-rank:RANK or noisy:A-B",
                          v);
    r->fault = PB_FAULT_CORRUPT;
    return pb_parse_int("--fault corrupt:", v + 8, 0, &r->fault_rank, err);
}

static const pb_opt_spec_t launch_specs[] = {
    {"np", 0, "N", pb_opt_int, PB_OFF(run.np), 1,
     "ranks to launch when not started by a launcher (default:\n"
     "as many as a layout fixes, else one per local GPU, else 2)", NULL, NULL},
    {"gpus", 0, "N", pb_opt_int, PB_OFF(run.gpus), 1,
     "run N ranks as threads of this one process, one per local\n"
     "GPU, without MPI or mpirun (nccl backend; nccl-tests' -g N)", NULL, NULL},
    {"no-launch", 0, NULL, pb_opt_flag, PB_OFF(run.no_launch), 0,
     "run as a single MPI process instead of re-launching", NULL, NULL},
    {"backend", 0, "NAME", set_backend, 0, 0,
     "auto (default: nccl on NVIDIA GPUs, rccl on AMD GPUs,\n"
     "else mpi), nccl, rccl, mpi", "auto mpi nccl rccl", NULL},
    {"nccl-lib", 0, "FILE", pb_opt_file, PB_OFF(run.nccl_lib), 0,
     "the libnccl.so.2 the nccl backend loads (default:\n"
     "$PARBENCH_NCCL_LIB, else libnccl.so.2 on the loader's\n"
     "path, else the active Python environment's); with\n"
     "--backend rccl the librccl.so.1 (default: $PARBENCH_RCCL_LIB,\n"
     "else the loader's path, $ROCM_PATH/lib, /opt/rocm/lib)",
     "@file", NULL},
    {"timeout", 'T', "S", set_timeout, 0, 0,
     "an operation past S seconds is a hang: say where, exit 3\n(default 300; 0 = never)",
     NULL, NULL},
    {"memory", 0, "M", set_memory, 0, 0,
     "host or device buffers for the mpi backend (device needs a\nCUDA-aware MPI)",
     "host device", NULL},
    {"mpi-chunk", 0, "S", set_chunk, 0, 0, "largest single MPI call (default 1G; for tests)",
     NULL, NULL},
    {"fault", 0, "KIND:R", set_fault, 0, 0,
     "test switches: corrupt:R corrupts one received element\n"
     "on rank R (tests the checker); stall:R stalls rank R's\n"
     "device before its first operation (tests the hang\n"
     "detection of -T; nccl); hang:R: rank R stops before its\n"
     "first measurement (tests the watchdog of -T: it must name\n"
     "rank R); slow:A-B (validate) times 21 exchanges of ranks A\n"
     "and B for each one counted (tests the flagging);\n"
     "slow-rank:R (validate) the same for every pair of rank R\n"
     "(tests naming a slow rank); noisy:A-B (validate) as slow:A-B\n"
     "in the rounds only, not when re-measured alone (tests\n"
     "clearing noise)",
     NULL, NULL},
};
const pb_opt_group_t pb_grp_launch = {"running:", launch_specs, PB_NSPECS(launch_specs), NULL};

/* ---- output -------------------------------------------------------- */

static const pb_opt_spec_t output_specs[] = {
    {"csv", 0, "FILE", pb_opt_file, PB_OFF(run.csv_path), 0,
     "append one row per measurement (doc/design.md schema; a\nfile with another header is refused)",
     "@file", NULL},
    {"json", 0, "FILE", pb_opt_file, PB_OFF(run.json_path), 0,
     "append the same rows as JSON Lines (one object per line)", "@file", NULL},
    {"quiet", 'q', NULL, pb_opt_flag, PB_OFF(run.quiet), 0,
     "no tables and no progress line (on a terminal, a line on\n"
     "stderr shows done/total, the operation and the time left)", NULL, NULL},
    {"label", 0, "TEXT", pb_opt_str, PB_OFF(run.label), 0, "free text for the label column", NULL,
     NULL},
};
const pb_opt_group_t pb_grp_output = {"output:", output_specs, PB_NSPECS(output_specs), NULL};

/* ---- what a measurement sweeps ------------------------------------- */

static int p_coll(const char *s, int *o)
{
    pb_coll_t c;
    int rc = pb_coll_parse(s, &c);
    *o = (int)c;
    return rc;
}
static int p_redop(const char *s, int *o)
{
    pb_redop_t r;
    int rc = pb_redop_parse(s, &r);
    *o = (int)r;
    return rc;
}
static int p_mode(const char *s, int *o)
{
    if (strcmp(s, "latency") == 0)
        *o = PB_MODE_LATENCY;
    else if (strcmp(s, "throughput") == 0)
        *o = PB_MODE_THROUGHPUT;
    else if (strcmp(s, "graph") == 0)
        *o = PB_MODE_GRAPH;
    else
        return -1;
    return 0;
}
static const char *n_coll(int i) { return pb_coll_name((pb_coll_t)i); }
static const char *n_redop(int i) { return pb_redop_name((pb_redop_t)i); }
/* pb_harness.c's pb_mode_name, without linking the harness */
static const char *n_mode(int i)
{
    return i == PB_MODE_THROUGHPUT ? "throughput" : i == PB_MODE_GRAPH ? "graph" : "latency";
}

static int set_op(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                  pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_COLL_COUNT], n;
    if (pb_parse_list("collective", v, p_coll, n_coll, PB_COLL_COUNT, PB_COLL_COUNT, tmp, &n, err))
        return err->code;
    for (int i = 0; i < n; i++)
        o->meas.colls[i] = (pb_coll_t)tmp[i];
    o->meas.ncolls = n;
    o->meas.given |= PB_GIVEN_OP;
    return PB_OK;
}

/* the sweep's types; with --pattern the first is the model's too (the
 * main job's finish decides) */
static int set_dtype(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    o->model.dtype = v;
    o->meas.dtypes_all = strcmp(v, "all") == 0;
    if (pb_parse_dtypes(v, o->meas.dtypes, &o->meas.ndtypes, err))
        return err->code;
    o->meas.given |= PB_GIVEN_DTYPE;
    return PB_OK;
}

/* "all" means every reduction MPI has; avg must be asked for */
static int set_redop(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_REDOP_COUNT], n;
    if (pb_parse_list("redop", v, p_redop, n_redop, PB_REDOP_COUNT, PB_AVG, tmp, &n, err))
        return err->code;
    for (int i = 0; i < n; i++)
        o->meas.redops[i] = (pb_redop_t)tmp[i];
    o->meas.nredops = n;
    return PB_OK;
}

static int set_place(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    if (strcmp(v, "out") == 0 || strcmp(v, "both") == 0 || strcmp(v, "in") == 0) {
        o->meas.out_of_place = strcmp(v, "in") != 0;
        o->meas.in_place = strcmp(v, "out") != 0;
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "--place takes out, in or both, not '%s'", v);
}

static const pb_opt_spec_t what_specs[] = {
    {"op", 0, "LIST", set_op, 0, 0,
     "allreduce, allgather, reducescatter, alltoall, alltoallv,\n"
     "broadcast, reduce, sendrecv, or all (default allreduce)",
     "allreduce allgather reducescatter alltoall alltoallv broadcast reduce sendrecv all", NULL},
    {"dtype", 'd', "LIST", set_dtype, 0, 0,
     "float, double, half, bfloat16, int32, int8, f8e4m3, f8e5m2,\n"
     "int64 (f32, f64, f16, bf16, i32, i8, e4m3, e5m2, i64), or all\n"
     "(default float); with --pattern: the model's type, bf16,\n"
     "fp16 or fp32",
     "float double half bfloat16 int32 int8 f8e4m3 f8e5m2 int64 all bf16 fp16 fp32", NULL},
    {"redop", 0, "LIST", set_redop, 0, 0,
     "sum, max, min, avg (nccl only), or all = sum,max,min\n(default sum)", "sum max min avg all",
     NULL},
    {"root", 'r', "N", pb_opt_int, PB_OFF(meas.root), 0, "root of broadcast and reduce (default 0)",
     NULL, NULL},
    {"place", 0, "P", set_place, 0, 0,
     "out, in or both (default both): out-of-place / in-place", "out in both", NULL},
    {"group-size", 0, "K", pb_opt_int, PB_OFF(meas.group_size), 1,
     "run on groups of K consecutive ranks, all at once", NULL, NULL},
};
const pb_opt_group_t pb_grp_what = {"what:", what_specs, PB_NSPECS(what_specs), NULL};

/* ---- sizes --------------------------------------------------------- */

static int set_min(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                   pb_err_t *err)
{
    (void)s, (void)shown;
    o->meas.sizes_given |= 1;
    return pb_size_parse(v, &o->meas.size_min, err);
}

static int set_max(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                   pb_err_t *err)
{
    (void)s, (void)shown;
    o->meas.sizes_given |= 2;
    return pb_size_parse(v, &o->meas.size_max, err);
}

static int set_factor(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s;
    if (pb_parse_double(shown, v, 0, &o->meas.size_factor, err) != PB_OK)
        return err->code;
    o->meas.given |= PB_GIVEN_FACTOR;
    if (!(o->meas.size_factor > 1.0))
        return pb_err_set(err, PB_EINPUT, "%s must be above 1 (got %s)", shown, v);
    return PB_OK;
}

static int set_step(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s;
    if (pb_size_parse(v, &o->meas.size_step, err) != PB_OK)
        return err->code;
    if (o->meas.size_step == 0)
        return pb_err_set(err, PB_EINPUT, "%s must be above 0", shown);
    return PB_OK;
}

/* The list is parsed here once to refuse a bad one with the other
 * argument errors, before any launch (coll parses it again on the ranks,
 * where it needs the values). */
static int set_sizes(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    uint64_t *list = NULL;
    size_t n = 0;
    if (pb_size_list(v, &list, &n, err) != PB_OK)
        return err->code;
    free(list);
    o->meas.size_list = v;
    o->meas.sizes_given |= 4;
    return PB_OK;
}

static const pb_opt_spec_t sizes_specs[] = {
    {"minbytes", 'b', "S", set_min, 0, 0, "smallest size (default 8)", NULL, NULL},
    {"maxbytes", 'e', "S", set_max, 0, 0, "largest size (default: the smallest, or 64M with -b absent)",
     NULL, NULL},
    {"stepfactor", 'f', "F", set_factor, 0, 0, "multiply by F (default 2)", NULL, NULL},
    {"stepbytes", 'i', "S", set_step, 0, 0, "or add S", NULL, NULL},
    {"sizes", 0, "LIST", set_sizes, 0, 0,
     "explicit sizes, e.g. 8,1K,64M (each must divide as needed)", NULL, NULL},
};
const pb_opt_group_t pb_grp_sizes = {"sizes (K, M, G, T = powers of 1024):", sizes_specs,
                                     PB_NSPECS(sizes_specs), NULL};

/* ---- timing -------------------------------------------------------- */

/* both = latency and throughput, the two modes every backend has */
static int set_mode(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_MODE_COUNT], n;
    if (pb_parse_list("mode", v, p_mode, n_mode, PB_MODE_COUNT, PB_MODE_GRAPH, tmp, &n, err))
        return err->code;
    for (int i = 0; i < n; i++)
        o->meas.modes[i] = (pb_mode_t)tmp[i];
    o->meas.nmodes = n;
    o->meas.given |= PB_GIVEN_MODE;
    return PB_OK;
}

static int set_budget(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s;
    o->meas.given |= PB_GIVEN_BUDGET;
    return pb_parse_double(shown, v, 0, &o->meas.time_budget, err);
}

static int set_min_iters(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s;
    o->meas.given |= PB_GIVEN_MIN_ITERS;
    return pb_parse_u64(shown, v, 1, &o->meas.min_iters, err);
}

static int set_warmup(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    (void)s;
    o->meas.given |= PB_GIVEN_WARMUP;
    return pb_parse_u64(shown, v, 0, &o->meas.warmup, err);
}

static int set_buffers(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                       const char *shown, pb_err_t *err)
{
    (void)s;
    if (strcmp(v, "rotate") == 0 || strcmp(v, "fixed") == 0) {
        o->meas.rotate = strcmp(v, "rotate") == 0;
        return PB_OK;
    }
    return pb_err_set(err, PB_EINPUT, "%s: '%s' is not rotate or fixed", shown, v);
}

static const pb_opt_spec_t timing_specs[] = {
    {"mode", 0, "M", set_mode, 0, 0,
     "latency (barrier, time each op; OSU-like), throughput\n"
     "(time a batch of back-to-back ops; nccl-tests-like), or both\n"
     "(default latency); graph: the batch captured as a CUDA\n"
     "graph and replayed (nccl backend)",
     "latency throughput both graph", NULL},
    {"graph", 'G', "N", pb_opt_u64, PB_OFF(meas.graph_replays), 1,
     "graph mode with N replays per sample (nccl-tests' -G)", NULL, NULL},
    {"precision", 0, "P", pb_opt_percent, PB_OFF(meas.precision), 0,
     "sample until the median's 95% CI half-width is within P\npercent (default 2)", NULL, NULL},
    {"time-budget", 0, "S", set_budget, 0, 0,
     "seconds per measurement once --min-iters samples are in\n"
     "(default 1; slow operations take min-iters x their time)", NULL, NULL},
    {"min-iters", 0, "N", set_min_iters, 0, 0, "fewest samples (default 10)", NULL, NULL},
    {"max-iters", 0, "N", pb_opt_u64, PB_OFF(meas.max_iters), 1, "most samples (default 1000)",
     NULL, NULL},
    {"iters", 'n', "N", pb_opt_u64, PB_OFF(meas.iters), 1,
     "fixed number of timed samples instead (no adaptation)", NULL, NULL},
    {"warmup", 'w', "N", set_warmup, 0, 0, "untimed operations first (default 5)",
     NULL, NULL},
    {"batch", 0, "N", pb_opt_u64, PB_OFF(meas.batch), 1,
     "throughput mode: operations per sample (default: ~1 ms)", NULL, NULL},
    {"buffers", 0, "HOW", set_buffers, 0, 0,
     "rotate (each timed operation on the next slice of the\n"
     "buffers, as nccl-tests: memory, not cache) or fixed (the\n"
     "same buffers, as OSU); default: the backend's reference\n"
     "tool's way (nccl rotate, mpi fixed)",
     "rotate fixed", NULL},
    {"samples", 0, "FILE", pb_opt_file, PB_OFF(meas.samples_path), 0,
     "write every rank's time in every sample to FILE (CSV,\n"
     "replaced): the raw times behind each row, to find the\nslow rank", "@file", NULL},
};
const pb_opt_group_t pb_grp_timing = {"timing:", timing_specs, PB_NSPECS(timing_specs), NULL};

/* ---- checking ------------------------------------------------------ */

static int set_check(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)v, (void)shown, (void)err;
    o->meas.given |= PB_GIVEN_CHECK;
    o->meas.check = 1;
    return PB_OK;
}

static int set_check_num(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s;
    uint64_t u;
    if (pb_parse_u64(shown, v, 0, &u, err) != PB_OK)
        return err->code;
    o->meas.given |= PB_GIVEN_CHECK;
    o->meas.check = u != 0;
    return PB_OK;
}

static const pb_opt_spec_t check_specs[] = {
    {"check", 0, NULL, set_check, 0, 0,
     "verify every result exactly; wrong elements fail the run", NULL, NULL},
    {"", 'c', "N", set_check_num, 0, 0, "1: --check; 0: no check (nccl-tests' -c)", NULL, NULL},
};
const pb_opt_group_t pb_grp_check = {"checking:", check_specs, PB_NSPECS(check_specs), NULL};
