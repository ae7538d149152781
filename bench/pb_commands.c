/* The command table: the one place a command or an option is added.
 *
 * A command is one pb_cmd_desc_t below: its name, the one-line summary
 * `parbench --help` lists, its help text around the options, the option
 * groups it takes (in the order its --help shows them), its defaults, and
 * its finish (the checks and defaults that need the whole command line).
 * What it runs is pb_app.c's (ranks) or main.c's (no MPI) dispatch on the
 * id.  An option is one pb_opt_spec_t: its long and short name, the name
 * of its value, the setter that stores it (the plain ones of
 * pb_cmd_table.h take the field's offset), its help, the words that
 * complete its value, and the line a command without it prints.
 *
 * To add an option to one command: a line in that command's own group
 * below (and its field in that command's struct in pb_options.h).  To add
 * an option several commands share: a line in the group in
 * pb_opt_groups.c or pb_opt_model.c.  To add a command: an id in
 * pb_options.h, its struct, its own group and descriptor here, its entry
 * in pb_commands[], and its run call.  Help, the man page's OPTIONS and
 * the bash completion follow from the table (doc/pb_docgen.c); `cmake
 * --build build --target docs` rewrites doc/, and the cli_docs_agree test
 * fails until that was done.
 *
 * For example: `model --against FILE` is a line in model_own_specs below
 * (pb_opt_str into a new field of pb_options_t); `--hf-config FILE` for
 * every command that takes a model is a line in pb_opt_model.c's
 * model_specs (into pb_model_opts_t, read by pb_pattern_plan.c);
 * `validate --budget S` is a line in validate_specs; an `import` command
 * is a descriptor here with its own group, defaults, finish and
 * run_alone, and its name in pb_commands[]. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../collectives/pb_gemm.h"
#include "../patterns/pb_pat_op.h"
#include "pb_cmd_table.h"
#include "pb_coll_cmd.h"
#include "pb_gemm_cmd.h"
#include "pb_import_cmd.h"
#include "pb_main_job.h"
#include "pb_model_cmd.h"
#include "pb_pattern_cmd.h"
#include "pb_report_cmd.h"
#include "../util/pb_size.h"
#include "pb_step_cmd.h"
#include "../patterns/pb_step_sched.h"
#include "pb_topo_cmd.h"
#include "pb_validate_cmd.h"

#define OFF(f) offsetof(pb_options_t, f)
#define NSPECS(a) (sizeof(a) / sizeof((a)[0]))
#define GROUP(title, specs, elsewhere) {title, specs, NSPECS(specs), elsewhere}

static int main_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int main_ranks(struct pb_ctx *ctx, pb_err_t *err);
static int topo_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int calibrate_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int model_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int plan_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int report_alone(const pb_options_t *o, int rank0, pb_err_t *err);
static int compare_alone(const pb_options_t *o, int rank0, pb_err_t *err);

static const char o_elsewhere[] = "-o is an option of parbench calibrate, report and the main job";

/* ---- defaults and checks the groups share -------------------------- */

static void run_defaults(pb_options_t *o)
{
    snprintf(o->run.backend, sizeof o->run.backend, "auto");
    o->run.timeout_s = 300.0;
    o->run.fault_rank = -1;
    o->run.fault_peer = -1;
}

static void meas_defaults(pb_options_t *o)
{
    pb_meas_opts_t *m = &o->meas;
    m->out_of_place = 1;
    m->in_place = 1;
    m->size_min = 8;
    m->size_factor = 2.0;
    m->warmup = 5;
    m->min_iters = 10;
    m->max_iters = 1000;
    m->precision = 0.02;
    m->time_budget = 1.0;
}

static void model_defaults(pb_options_t *o)
{
    o->model.train.imbalance = 1.0;
}

/* a slow pair is what validate flags; no other command has pairs */
static int run_finish(const pb_options_t *o, pb_err_t *err)
{
    if (o->run.fault == PB_FAULT_SLOW && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault slow: is an option of parbench validate");
    if (o->run.fault == PB_FAULT_SLOW_RANK && o->cmd != PB_CMD_VALIDATE)
        return pb_err_set(err, PB_EINPUT, "--fault slow-rank: is an option of parbench validate");
    return PB_OK;
}

/* -G N: graph mode, beside any --mode given */
static void graph_mode(pb_meas_opts_t *m)
{
    if (m->graph_replays) {
        int have = 0;
        for (int i = 0; i < m->nmodes; i++)
            have |= m->modes[i] == PB_MODE_GRAPH;
        if (!(m->given & PB_GIVEN_MODE))
            m->nmodes = 0;
        if (!have)
            m->modes[m->nmodes++] = PB_MODE_GRAPH;
    } else {
        m->graph_replays = 10;
    }
}

/* The lists' defaults and the sizes and sample counts that must agree. */
static int meas_finish(pb_options_t *o, pb_err_t *err)
{
    pb_meas_opts_t *m = &o->meas;
    if (m->ncolls == 0)
        m->colls[m->ncolls++] = PB_ALLREDUCE;
    if (m->ndtypes == 0)
        m->dtypes[m->ndtypes++] = PB_F32;
    if (m->nredops == 0)
        m->redops[m->nredops++] = PB_SUM;
    if (m->nmodes == 0)
        m->modes[m->nmodes++] = PB_MODE_LATENCY;
    graph_mode(m);
    if ((m->sizes_given & 4) && (m->sizes_given & 3))
        return pb_err_set(err, PB_EINPUT, "give sizes either with -b/-e or with --sizes, not both");
    if (m->size_step && (m->given & PB_GIVEN_FACTOR))
        return pb_err_set(err, PB_EINPUT, "give either -f (factor) or -i (step), not both");
    if (!(m->sizes_given & 2))
        m->size_max = (m->sizes_given & 1) ? m->size_min : UINT64_C(64) << 20;
    if (!(m->sizes_given & 4) && m->size_min > m->size_max)
        return pb_err_set(err, PB_EINPUT, "minimum size %llu is above maximum size %llu",
                          (unsigned long long)m->size_min, (unsigned long long)m->size_max);
    if (!(m->given & PB_GIVEN_MIN_ITERS) && m->min_iters > m->max_iters)
        m->min_iters = m->max_iters; /* only the user's own numbers can clash */
    if (m->min_iters > m->max_iters)
        return pb_err_set(err, PB_EINPUT, "--min-iters %llu is above --max-iters %llu",
                          (unsigned long long)m->min_iters, (unsigned long long)m->max_iters);
    if (!m->out_of_place && !m->in_place)
        return pb_err_set(err, PB_EINPUT, "nothing to measure: --place excludes both");
    return run_finish(o, err);
}

static int predict_finish(const pb_options_t *o, pb_err_t *err)
{
    if (o->predict.selective && o->model.train.recompute)
        return pb_err_set(err, PB_EINPUT, "give --recompute (full) or --selective, not both");
    if (o->predict.flash && o->predict.no_flash)
        return pb_err_set(err, PB_EINPUT, "give --flash or --no-flash, not both");
    if (o->predict.causal && o->predict.no_causal)
        return pb_err_set(err, PB_EINPUT, "give --causal or --no-causal, not both");
    if (o->predict.fsdp2 && o->model.train.zero != 3)
        return pb_err_set(err, PB_EINPUT, "--fsdp2 is a way of running ZeRO-3: give --zero 3");
    return PB_OK;
}

static int p_dtype(const char *s, int *o)
{
    pb_dtype_t t;
    int rc = pb_dtype_parse(s, &t);
    *o = (int)t;
    return rc;
}
static const char *n_dtype(int i) { return pb_dtype_name((pb_dtype_t)i); }

/* the model's one type (model, plan) */
static int set_model_dtype(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                           const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_DTYPE_COUNT], n;
    if (pb_parse_list("dtype", v, p_dtype, n_dtype, PB_DTYPE_COUNT, PB_DTYPE_COUNT, tmp, &n, err))
        return err->code;
    if (n > 1)
        return pb_err_set(err, PB_EINPUT, "--dtype takes one type (the model's)");
    o->model.dtype = v;
    return PB_OK;
}

static const char *pure_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    if (strcmp(s->lng, "pattern") == 0 || strcmp(s->lng, "dry-run") == 0)
        return "--pattern and --dry-run are not options of calibrate, model or plan";
    return NULL;
}

/* ---- the main job (no command; --pattern) -------------------------- */

static int p_strategy(const char *s, int *o)
{
    pb_strategy_t t;
    int rc = pb_strategy_parse(s, &t);
    *o = (int)t;
    return rc;
}
static const char *n_strategy(int i) { return pb_strategy_name((pb_strategy_t)i); }

static int set_pattern(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                       pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_STRAT_COUNT], n;
    if (pb_parse_list("pattern", v, p_strategy, n_strategy, PB_STRAT_COUNT, PB_STRAT_COUNT, tmp,
                      &n, err))
        return err->code;
    o->main.pattern_mask = 0;
    for (int i = 0; i < n; i++)
        o->main.pattern_mask |= 1u << tmp[i];
    /* "all": every strategy once; tp and sp are one strategy */
    if (strcmp(v, "all") == 0)
        o->main.pattern_mask &= ~(1u << PB_STRAT_SP);
    return PB_OK;
}

static int set_output(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                      pb_err_t *err)
{
    if (v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "%s needs a name", shown);
    *PB_FIELD(o, s, const char *) = v;
    return PB_OK;
}

static const pb_opt_spec_t main_specs[] = {
    {"pattern", 0, "LIST", set_pattern, 0, 0,
     "run the traffic of strategies tp, sp, pp, dp, ep, cp or all", "tp sp pp dp ep cp all",
     NULL},
    {"dry-run", 0, NULL, pb_opt_flag, OFF(main.dry_run), 0,
     "print the operations per step and their totals; no MPI\n"
     "(world: --np N if given, else the layout's product; no\n"
     "layout and no --np: 8)",
     NULL, "--dry-run needs --pattern"},
    {"output", 'o', "DIR", set_output, OFF(main.output), 0,
     "the output folder (default parbench-out/<date-time>)", "@dir", o_elsewhere},
};
static const pb_opt_group_t main_group = GROUP("", main_specs, NULL);

static void main_defaults(pb_options_t *o)
{
    run_defaults(o);
    meas_defaults(o);
    model_defaults(o);
}

/* The main job's sweep: every collective, verified, 8 B to 64 MiB, in
 * well under a minute on a small machine - unless the user said
 * otherwise.  No --csv: results.csv in the output folder. */
static void main_job_defaults(pb_meas_opts_t *m)
{
    if (!(m->given & PB_GIVEN_OP)) {
        m->ncolls = 0;
        for (int c = 0; c < PB_COLL_COUNT; c++)
            m->colls[m->ncolls++] = (pb_coll_t)c;
    }
    if (!m->sizes_given) {
        m->size_min = 8;
        m->size_max = UINT64_C(64) << 20;
    }
    if (!(m->given & PB_GIVEN_CHECK))
        m->check = 1;
    if (!(m->given & PB_GIVEN_BUDGET))
        m->time_budget = 0.25;
    if (!(m->given & PB_GIVEN_MIN_ITERS) && m->max_iters >= 5)
        m->min_iters = 5;
}

static int main_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->main.pattern_mask)
        o->cmd = PB_CMD_PATTERN;
    if (o->main.dry_run && o->cmd != PB_CMD_PATTERN)
        return pb_err_set(err, PB_EINPUT, "--dry-run needs --pattern");
    if (o->cmd == PB_CMD_PATTERN && o->meas.ndtypes > 1)
        return pb_err_set(err, PB_EINPUT, "--dtype takes one type with --pattern (the model's)");
    if (o->cmd == PB_CMD_MAIN) {
        main_job_defaults(&o->meas);
        o->model.dtype = NULL; /* the sweep's types, not the model's */
    }
    return meas_finish(o, err);
}

static const pb_cmd_desc_t cmd_main = {
    PB_CMD_MAIN, "",
    "the main job: topology, a verified sweep of every collective (8 B to\n"
    "           64 MiB), the pattern suite of a small model, calibration and the\n"
    "           predicted reference step, then results.csv, topo-pairs.csv,\n"
    "           calib.csv and report.html in -o DIR (default\n"
    "           parbench-out/<date-time>)",
    "usage: parbench [COMMAND] [OPTIONS]\n"
    "\n"
    "Measures the communication of large-model training on this machine.\n"
    "\n"
    "Started from a plain shell, parbench re-executes itself under mpirun with\n"
    "--np N ranks (default: as many as a layout fixes, else one per local GPU, else\n"
    "2); under mpirun or srun it runs.  Ctrl-C stops the ranks cleanly (exit 130).\n"
    "\n"
    "PATTERNS: parbench --pattern tp|sp|pp|dp|ep|cp|all [model] [layout] [--dry-run]\n"
    "runs the traffic each strategy issues per training step on its real groups.\n"
    "Without a layout a single strategy gets all ranks; dp, when not given, is\n"
    "what the launched ranks leave.  --dtype is the model's type with --pattern.\n",
    {{&main_group, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_model, "model"},
     {&pb_grp_layout, "layout"},
     {&pb_grp_train, "training"},
     {&pb_grp_what, "what to measure (see parbench coll --help)"},
     {&pb_grp_sizes, "sizes"},
     {&pb_grp_timing, "timing"},
     {&pb_grp_check, "checking"},
     {&pb_grp_help, "help"}},
    "Every command has its own --help.\n"
    "exit codes: 0 ok, 1 verification failure, 2 bad input, 3 runtime failure\n",
    0, main_defaults, main_finish, NULL, main_alone, main_ranks, 0};

/* ---- coll ---------------------------------------------------------- */

static void coll_defaults(pb_options_t *o)
{
    run_defaults(o);
    meas_defaults(o);
}

static const pb_cmd_desc_t cmd_coll = {
    PB_CMD_COLL, "coll", "measure collectives (see parbench coll --help)",
    "usage: parbench coll [OPTIONS]\n",
    {{&pb_grp_what, NULL},
     {&pb_grp_sizes, NULL},
     {&pb_grp_timing, NULL},
     {&pb_grp_check, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_help, NULL}},
    "A size is the largest per-rank buffer (nccl-tests' convention): the message\n"
    "for allreduce, broadcast, reduce and sendrecv; the gathered output for\n"
    "allgather; the full input for reducescatter; one rank's send buffer for\n"
    "alltoall(v).  Range sizes are rounded down to what the collective needs.\n",
    0, coll_defaults, meas_finish, NULL, NULL, pb_coll_cmd, 0};

/* ---- gemm ---------------------------------------------------------- */

static int set_gemm_gated(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                          const char *shown, pb_err_t *err)
{
    (void)v, (void)shown, (void)err;
    o->gemm.layer.gated = strcmp(s->lng, "gated") == 0;
    return PB_OK;
}

static int set_gemm_dtype(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                          const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    int tmp[PB_DTYPE_COUNT], n;
    if (pb_parse_list("dtype", v, p_dtype, n_dtype, PB_DTYPE_COUNT, PB_DTYPE_COUNT, tmp, &n, err))
        return err->code;
    for (int i = 0; i < n; i++)
        o->gemm.dtypes[i] = (pb_dtype_t)tmp[i];
    o->gemm.ndtypes = n;
    o->gemm.dtype_given = 1;
    return PB_OK;
}

#define LAYER(name, arg, field, help) \
    {name, 0, arg, pb_opt_u64, OFF(gemm.layer.field), 1, help, NULL, NULL}

static const pb_opt_spec_t gemm_layer_specs[] = {
    LAYER("hidden", "H", hidden, "hidden size h (also --size)"),
    LAYER("size", "H", hidden, NULL),
    LAYER("seq", "S", seq, "sequence length"),
    LAYER("mbs", "B", mbs, "micro-batch size"),
    LAYER("tp", "T", tp, "tensor-parallel size (the shapes are one rank's share)"),
    LAYER("heads", "A", heads, "attention heads"),
    LAYER("kv-heads", "G", kv_heads, "key/value heads (GQA; default: = heads)"),
    LAYER("ffn", "F", ffn, "MLP inner size (default 4h)"),
    {"gated", 0, NULL, set_gemm_gated, 0, 0,
     "gated MLP (SwiGLU): up projection fused with the gate,\n2f wide", NULL, NULL},
    {"no-gated", 0, NULL, set_gemm_gated, 0, 0, NULL, NULL, NULL},
    {"backward", 0, NULL, pb_opt_flag, OFF(gemm.backward), 0,
     "also the backward GEMMs: dgrad [T,N]x[N,K],\nwgrad [K,T]x[T,N]", NULL,
     "--backward is an option of parbench gemm"},
};
static const pb_opt_group_t gemm_layer =
    GROUP("layer (default: h 4096, 32 heads, MHA, f = 4h, seq 4096, mbs 1, tp 1):",
          gemm_layer_specs, NULL);

static const pb_opt_spec_t gemm_timing_specs[] = {
    {"dtype", 'd', "LIST", set_gemm_dtype, 0, 0, "bf16 (default), fp16, fp32 (true fp32, no TF32)",
     "bf16 fp16 fp32", NULL},
    {"iters", 'n', "N", pb_opt_u64, OFF(gemm.iters), 1, "timed multiplies per shape (default 50)",
     NULL, NULL},
    {"warmup", 'w', "N", pb_opt_u64, OFF(gemm.warmup), 0, "untimed multiplies first (default 5)",
     NULL, NULL},
};
static const pb_opt_group_t gemm_timing = GROUP("timing:", gemm_timing_specs, NULL);

static void gemm_defaults(pb_options_t *o)
{
    run_defaults(o);
    pb_gemm_model_defaults(&o->gemm.layer);
    o->gemm.warmup = 5;
}

/* bf16 unless told, only the types the probe multiplies, the layer
 * checked here so bad shapes are refused before any GPU is asked */
static int gemm_finish(pb_options_t *o, pb_err_t *err)
{
    pb_gemm_opts_t *g = &o->gemm;
    if (!g->dtype_given) {
        g->dtypes[0] = PB_BF16;
        g->ndtypes = 1;
    }
    for (int i = 0; i < g->ndtypes; i++)
        if (!pb_gemm_dtype_ok(g->dtypes[i]))
            return pb_err_set(err, PB_EINPUT, "gemm multiplies bf16, fp16 or fp32, not %s",
                              pb_dtype_name(g->dtypes[i]));
    if (g->iters == 0)
        g->iters = 50; /* fixed: a GEMM's time hardly varies */
    if (g->iters > 1000000) /* one CUDA event per multiply, all alive at once */
        return pb_err_set(err, PB_EINPUT, "gemm times at most 1000000 multiplies per shape");
    pb_gemm_model_resolve(&g->layer);
    return pb_gemm_model_check(&g->layer, err);
}

/* gemm's layer options are its own; the rest of a model is not its */
static const char *gemm_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)s;
    return g == &pb_grp_model ? "" : NULL; /* "": the generic line */
}

static const pb_cmd_desc_t cmd_gemm = {
    PB_CMD_GEMM, "gemm", "cuBLAS TFLOP/s of a transformer layer's GEMMs (see parbench gemm --help)",
    "usage: parbench gemm [OPTIONS]\n"
    "\n"
    "Times the GEMMs of one transformer layer on one tensor-parallel rank with\n"
    "cuBLAS (cublasGemmEx, fp32 accumulation) and prints the achieved TFLOP/s,\n"
    "the compute rate the step model uses.  T = mbs * seq tokens, each GEMM\n"
    "X[M, K] x W[K, N]:\n"
    "  gemm_qkv       [T, h]   x [h, (h + 2h*g/a)/tp]\n"
    "  gemm_attn_out  [T, h/tp] x [h/tp, h]\n"
    "  gemm_mlp_up    [T, h]   x [h, f/tp]   (2f/tp with --gated)\n"
    "  gemm_mlp_down  [T, f/tp] x [f/tp, h]\n",
    {{&gemm_layer, NULL}, {&gemm_timing, NULL}, {&pb_grp_output, NULL}, {&pb_grp_help, NULL}},
    "--csv appends one row per shape: pattern gemm, collective gemm_<name>,\n"
    "label \"M=.. N=.. K=..\", flops, tflops; --label is appended to the label.\n"
    "\n"
    "Runs as one process on the first visible GPU (CUDA_VISIBLE_DEVICES applies);\n"
    "it never launches mpirun itself.  Under mpirun or srun, every rank times its\n"
    "own GPU (local rank -> device) and each row reports the slowest rank.\n",
    0, gemm_defaults, gemm_finish, gemm_foreign, NULL, pb_gemm_cmd, 1};

/* ---- topo ---------------------------------------------------------- */

static const pb_opt_spec_t topo_specs[] = {
    {"topo-xml", 0, "FILE", pb_opt_file, OFF(topo.xml), 0,
     "describe an hwloc XML dump instead of this machine;\nruns no MPI and launches nothing",
     "@file", "--topo-xml is an option of parbench topo"},
    {"nodes", 0, "N", pb_opt_int, OFF(topo.nodes), 1,
     "with --topo-xml: a hypothetical cluster of N such nodes,\n"
     "one rank per GPU (per core without GPUs)",
     NULL, "--nodes is an option of parbench topo (with --topo-xml)"},
    {"csv", 0, "FILE", pb_opt_file, OFF(run.csv_path), 0,
     "write every pair: a, b, class, links (replaces FILE)", "@file", NULL},
    {"nccl-topo", 0, "FILE", pb_opt_file, OFF(topo.nccl), 0,
     "describe an NCCL topology file (NCCL_TOPO_FILE, e.g. Azure\n"
     "ND v4/v5): PCI classes from its <cpu>/<pci> tree, NVLink\n"
     "from its <nvlink> elements; runs no MPI",
     "@file", "--nccl-topo is an option of parbench topo"},
    {"nvlink", 0, "N", pb_opt_int, OFF(topo.nvlink), 1,
     "with --nccl-topo: GPU pairs have N NVLinks (files without\n"
     "<nvlink> elements leave NVLink unknown)",
     NULL, "--nvlink is an option of parbench topo (with --nccl-topo)"},
};
static const pb_opt_group_t topo_group = GROUP("", topo_specs, NULL);

static void topo_defaults(pb_options_t *o)
{
    run_defaults(o);
}

static int topo_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->topo.nccl && (o->topo.xml || o->run.csv_path || o->topo.nodes))
        return pb_err_set(err, PB_EINPUT, "--nccl-topo takes no --topo-xml, --nodes or --csv");
    if (o->topo.nvlink && o->topo.nccl == NULL)
        return pb_err_set(err, PB_EINPUT, "--nvlink needs --nccl-topo");
    if (o->topo.nodes && o->topo.xml == NULL)
        return pb_err_set(err, PB_EINPUT,
                          "--nodes needs --topo-xml: a live run has the nodes it runs on");
    return run_finish(o, err);
}

static const char *topo_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    if (strcmp(s->lng, "json") == 0)
        return "--json writes result rows; parbench topo writes pairs (--csv)";
    return NULL;
}

static const pb_cmd_desc_t cmd_topo = {
    PB_CMD_TOPO, "topo", "GPU/NIC link matrix, node map, layout placement (parbench topo --help)",
    "usage: parbench topo [OPTIONS]\n"
    "\n"
    "The links between GPUs and NICs (as nvidia-smi topo -m prints them) with\n"
    "CPU and NUMA affinity, the node map of the launched ranks, and the slowest\n"
    "link each group of a layout crosses (--tp N --cp N --ep N --dp N --pp N, in\n"
    "Megatron order, tp fastest; dp defaults to what is left of the world).\n",
    {{&topo_group, NULL}, {&pb_grp_layout, NULL}, {&pb_grp_launch, NULL}, {&pb_grp_help, NULL}},
    "classes, fastest first: X same GPU; NV# NVLink (# links); PIX one PCIe\n"
    "switch; PXB several switches; PHB one host bridge; NODE one NUMA node;\n"
    "SYS across sockets; NET across nodes.  Host ranks: CORE, L3, NODE, SOCKET\n"
    "(one package, several NUMA nodes), SYS, NET.\n",
    0, topo_defaults, topo_finish, topo_foreign, topo_alone, pb_topo_cmd, 0};

/* ---- validate ------------------------------------------------------ */

/* --pairs all|local|rails|leaders: the order of pb_tourn_pairs_t */
static int set_pairs(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s, (void)shown;
    static const char *const modes[] = {"all", "local", "rails", "leaders"};
    for (int k = 0; k < 4; k++)
        if (strcmp(v, modes[k]) == 0) {
            o->validate.pairs = k;
            return PB_OK;
        }
    return pb_err_set(err, PB_EINPUT, "validate --pairs takes all, local, rails or leaders, "
                      "not '%s'", v);
}

static const pb_opt_spec_t validate_specs[] = {
    {"pairs", 0, "P", set_pairs, 0, 0,
     "all (default: intra-node rounds, then cross-node rounds\n"
     "on every rail), local (within nodes), rails (across nodes,\n"
     "every rail) or leaders (across nodes, rail 0 only)", "all local rails leaders", NULL},
    {"budget", 0, "S", pb_opt_pos, OFF(validate.budget_s), 0,
     "start no round after S seconds; report what was measured\n(the first round always runs)",
     NULL, NULL},
    {"max-pairs", 0, "N", pb_opt_u64, OFF(validate.max_pairs), 1,
     "stop before the round that would pass N pairs (default\n256; the first round always runs)",
     NULL, NULL},
    {"min-ratio", 0, "R", pb_opt_pos, OFF(validate.min_ratio), 0,
     "flag pairs below R x the median of their class in their\nround in most votes (default 0.8)",
     NULL, NULL},
    {"minbytes", 'b', "S", pb_opt_size, OFF(validate.bytes), 0, "message size (default 1M)", NULL,
     NULL},
};
static const pb_opt_group_t validate_group = GROUP("", validate_specs, NULL);

static void validate_defaults(pb_options_t *o)
{
    run_defaults(o);
    o->validate.max_pairs = 256;
    o->validate.min_ratio = 0.8;
    o->validate.bytes = UINT64_C(1) << 20;
}

static int validate_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->validate.min_ratio > 1.0)
        return pb_err_set(err, PB_EINPUT, "--min-ratio must be at most 1 (got %g)",
                          o->validate.min_ratio);
    return PB_OK;
}

static const pb_cmd_desc_t cmd_validate = {
    PB_CMD_VALIDATE, "validate", "send/recv bandwidth of rank pairs, in concurrent rounds, against their class",
    "usage: parbench validate [OPTIONS]\n"
    "\n"
    "Measures send/recv bandwidth of rank pairs in rounds of pairs that run at\n"
    "once: first every node's local pairs (a round-robin of its ranks), then a\n"
    "round-robin of the nodes, rail-aligned (local rank i with local rank i):\n"
    "N-1 rounds for N nodes.  Each round is timed in 7 votes; a pair below\n"
    "--min-ratio x the median of the other pairs of its class in its round in\n"
    "most votes is flagged, and the flags are named as slow ranks (slow with\n"
    "every partner), NICs, rails (slow on every node pair using it) or pairs.\n"
    "Exit 1 when any pair is flagged.  --csv appends one row per pair (pattern\n"
    "validate); --fault slow:A-B slows one pair, slow-rank:R every pair of a\n"
    "rank (tests the flagging and naming).\n",
    {{&validate_group, NULL}, {&pb_grp_output, NULL}, {&pb_grp_launch, NULL}, {&pb_grp_help, NULL}},
    "", 0, validate_defaults, validate_finish, NULL, NULL, pb_validate_cmd, 0};

/* ---- step ---------------------------------------------------------- */

static int set_schedule(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                        const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    pb_sched_kind_t k;
    if (pb_sched_parse(v, &k) != 0)
        return pb_err_set(err, PB_EINPUT, "--schedule takes 1f1b, gpipe or interleaved, not '%s'",
                          v);
    o->step.schedule = (int)k;
    return PB_OK;
}

static int set_steps(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                     pb_err_t *err)
{
    (void)s;
    if (pb_parse_u64(shown, v, 1, &o->step.steps, err) != PB_OK)
        return err->code;
    if (o->step.steps < 2) /* nothing would be timed */
        return pb_err_set(err, PB_EINPUT,
                          "--steps %s: the first step is a warm-up, so at least 2 are needed", v);
    return PB_OK;
}

static const pb_opt_spec_t step_specs[] = {
    {"schedule", 0, "S", set_schedule, 0, 0,
     "1f1b, gpipe or interleaved (Megatron's, with --vp chunks\n"
     "per stage; the default when --vp is above 1, else 1f1b)",
     "1f1b gpipe interleaved", NULL},
    {"compute-scale", 0, "X", pb_opt_pos, OFF(step.compute_scale), 0,
     "multiply the stand-in's durations by X (default 1): a\n"
     "70B-shaped step fits a small machine, communication exact",
     NULL, NULL},
    {"steps", 0, "N", set_steps, 0, 0,
     "steps to run, N >= 2: the first is a warm-up, the N - 1\nothers are timed (default 3)", NULL,
     NULL},
    {"check", 0, NULL, pb_opt_flag, OFF(step.check), 0,
     "verify every distinct operation after the timed steps", NULL, NULL},
    {"trace", 0, "FILE", pb_opt_file, OFF(step.trace_path), 0,
     "write the last step's timeline of every rank (passes,\n"
     "exchanges, DP waits) as a Chrome trace (chrome://tracing,\n"
     "ui.perfetto.dev)",
     "@file", NULL},
    {"no-comm", 0, NULL, pb_opt_flag, OFF(step.no_comm), 0,
     "test switch: no collectives, 4-byte pipeline exchanges:\n"
     "the measured idle time is the pipeline bubble alone",
     NULL, NULL},
};
static const pb_opt_group_t step_group = GROUP("step:", step_specs, NULL);

static void step_defaults(pb_options_t *o)
{
    run_defaults(o);
    model_defaults(o);
    o->step.schedule = -1; /* interleaved with --vp, else 1f1b */
    o->step.compute_scale = 1.0;
    o->step.steps = 3;
}

/* a step's rows are worth keeping even when no file was named: they
 * append to one file, each run under its own run_id */
static int step_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->run.csv_path == NULL && o->run.json_path == NULL)
        o->run.csv_path = PB_STEP_DEFAULT_CSV;
    if (predict_finish(o, err) != PB_OK)
        return err->code;
    return run_finish(o, err);
}

static const pb_cmd_desc_t cmd_step = {
    PB_CMD_STEP, "step", "one training step's communication schedule, executed (parbench step --help)",
    "usage: parbench step [model and layout options] [OPTIONS]\n"
    "\n"
    "Executes one training step's communication schedule on the launched ranks:\n"
    "each pipeline stage runs its micro-batches in schedule order, standing in for\n"
    "each layer's compute with a timed spin and issuing the layer's TP/SP, EP and\n"
    "CP operations on its real groups; pipeline exchanges happen where Megatron's\n"
    "schedule puts them; DP buckets go out during the last backward pass; the\n"
    "optimizer's collectives close the step.  Prints measured time per category\n"
    "(slowest rank) beside the prediction, and writes rows with pattern step\n"
    "(to --csv FILE, default " PB_STEP_DEFAULT_CSV ").\n",
    {{&step_group, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_predict, NULL},
     {&pb_grp_output, NULL},
     {&pb_grp_launch, NULL},
     {&pb_grp_help, NULL}},
    "", 0, step_defaults, step_finish, NULL, NULL, pb_step_cmd, 0};

/* ---- calibrate ----------------------------------------------------- */

static const pb_opt_spec_t calibrate_specs[] = {
    {"output", 'o', "FILE", set_output, OFF(calibrate.output), 0,
     "write the pieces as CSV (for --calib of model and plan)", "@file", o_elsewhere},
    {"fit-tol", 0, "P", pb_opt_percent, OFF(calibrate.fit_tol), 0,
     "a piece of 4+ sizes may miss by at most P percent\n(default 5)", NULL, NULL},
};
static const pb_opt_group_t calibrate_group = GROUP("", calibrate_specs, NULL);

static void calibrate_defaults(pb_options_t *o)
{
    o->calibrate.fit_tol = 0.05; /* PB_FIT_TOL_DEFAULT */
}

static int calibrate_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->calibrate.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench calibrate needs at least one results CSV");
    return PB_OK;
}

static const pb_cmd_desc_t cmd_calibrate = {
    PB_CMD_CALIBRATE, "calibrate", "fit collective times from results CSV (parbench calibrate --help)",
    "usage: parbench calibrate RESULTS.csv [MORE.csv ...] [-o calib.csv] [--fit-tol P]\n"
    "\n"
    "Fits, for every (collective, group size, link class) in the rows, and for\n"
    "reductions (allreduce, reducescatter) every data type too, time(bytes)\n"
    "piecewise by size range, each piece latency + bytes / bandwidth, and prints\n"
    "each piece with its worst and rms relative error.  A size measured several\n"
    "times (modes, runs; types, except for reductions) keeps its fastest median.\n"
    "Runs no MPI.\n",
    {{&calibrate_group, NULL}, {&pb_grp_help, NULL}},
    "", PB_MAX_INPUTS, calibrate_defaults, calibrate_finish, pure_foreign, calibrate_alone,
    NULL, 0};

/* ---- model and plan ------------------------------------------------ */

static const pb_opt_spec_t model_own_specs[] = {
    {"dtype", 'd', "T", set_model_dtype, 0, 0,
     "the model's type: bf16, fp16 or fp32 (default: the preset's)", "bf16 fp16 fp32", NULL},
    {"against", 0, "FILE", pb_opt_str, OFF(predict.against), 0,
     "predict every published run of FILE (model/published_runs.csv)\nand print predicted "
     "vs published step time and the summary",
     "@file", NULL},
};
static const pb_opt_group_t model_own = GROUP("", model_own_specs, NULL);

static void model_cmd_defaults(pb_options_t *o)
{
    model_defaults(o);
    o->top = 10;
}

static int model_finish(pb_options_t *o, pb_err_t *err)
{
    if (predict_finish(o, err) != PB_OK)
        return err->code;
    if (o->predict.against && o->model.layout_given)
        return pb_err_set(err, PB_EINPUT,
                          "--against takes every run's layout from its file: no --tp, --pp, ...");
    if (!o->model.layout_given && !o->model.megatron_args && !o->predict.against)
        return pb_err_set(err, PB_EINPUT, "parbench model needs a layout (--tp, --pp, ...)");
    return PB_OK;
}

static const pb_cmd_desc_t cmd_model = {
    PB_CMD_MODEL, "model", "predict a training step of a model and layout (parbench model --help)",
    "usage: parbench model [model] [layout] --gpus N --gpus-per-node G [--hw NAME]\n"
    "                      [--calib calib.csv] [--gemm-csv gemm.csv]\n"
    "\n"
    "Predicts one training step: compute, exposed TP, PP send/recv, pipeline\n"
    "bubble, DP gradient sync, EP all-to-all, CP exchange and optimizer, with\n"
    "tokens/s, TFLOP/s per GPU, MFU/HFU, TP/PP/DP efficiencies and memory per GPU.\n"
    "Communication times apply the calibration (else the hardware preset) to the\n"
    "operations the patterns generate.  Runs no MPI.  dp defaults to what --gpus\n"
    "leaves.\n",
    {{&pb_grp_predict, NULL},
     {&model_own, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_help, NULL}},
    "", 0, model_cmd_defaults, model_finish, pure_foreign, model_alone, NULL, 0};

static const pb_opt_spec_t plan_specs[] = {
    {"top", 0, "N", pb_opt_int, OFF(top), 1, "layouts printed (default 10)", NULL, NULL},
};
static const pb_opt_group_t plan_group = GROUP("", plan_specs, NULL);

static int plan_finish(pb_options_t *o, pb_err_t *err)
{
    if (predict_finish(o, err) != PB_OK)
        return err->code;
    if (o->predict.gpus == 0 && !o->model.megatron_args)
        return pb_err_set(err, PB_EINPUT, "parbench plan needs --gpus N");
    if (o->predict.against)
        return pb_err_set(err, PB_EINPUT,
                          "--against is an option of parbench model (it predicts a file's runs; "
                          "plan searches layouts)");
    return PB_OK;
}

static const char *plan_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    if (g == &pb_grp_layout)
        return "parbench plan searches the layout: no --tp, --pp, --vp, --sp, --cp, --ep or --dp";
    return pure_foreign(s, g);
}

static const pb_cmd_desc_t cmd_plan = {
    PB_CMD_PLAN, "plan", "rank every layout of a model on N GPUs (parbench plan --help)",
    "usage: parbench plan [model] --gpus N --gpus-per-node G [--hw NAME] [--calib F]\n"
    "\n"
    "Enumerates tp, pp, vp, dp, cp, ep, micro-batch, recomputation and optimizer\n"
    "sharding; drops layouts that break a constraint or do not fit in memory;\n"
    "ranks the rest by predicted step time and prints the best --top N (10), each\n"
    "with the reason it loses to the one above.\n",
    {{&plan_group, NULL},
     {&pb_grp_predict, NULL},
     {&model_own, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_help, NULL}},
    "", 0, model_cmd_defaults, plan_finish, plan_foreign, plan_alone, NULL, 0};

/* ---- report and compare -------------------------------------------- */

static int set_threshold(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || (*end != '\0' && strcmp(end, "%") != 0) || errno == ERANGE || !(x >= 0.0) ||
        !isfinite(x))
        return pb_err_set(err, PB_EINPUT, "%s takes a percentage such as 5%% (got '%s')", shown,
                          v);
    o->files.threshold = x / 100.0;
    return PB_OK;
}

static const pb_opt_spec_t report_specs[] = {
    {"output", 'o', "FILE", set_output, OFF(files.output), 0, "the page (default report.html)",
     "@file", o_elsewhere},
    {"pairs", 0, "FILE", pb_opt_str, OFF(files.pairs_path), 0,
     "topology pairs CSV (a, b, class, links)", "@file", "--pairs is an option of parbench report"},
    {"quiet", 'q', NULL, pb_opt_flag, OFF(run.quiet), 0, "no line saying where the page went",
     NULL, NULL},
};
static const pb_opt_group_t report_group = GROUP("", report_specs, NULL);

static const pb_opt_spec_t compare_specs[] = {
    {"threshold", 0, "T", set_threshold, 0, 0, "percent (5, 5% or 2.5%; default 5)", NULL,
     "--threshold is an option of parbench compare"},
};
static const pb_opt_group_t compare_group = GROUP("", compare_specs, NULL);

static void files_defaults(pb_options_t *o)
{
    o->files.threshold = 0.05;
}

static int report_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->files.nargs < 1)
        return pb_err_set(err, PB_EINPUT, "report needs a results file: RESULTS.csv [CALIB.csv]");
    if (o->files.output == NULL)
        o->files.output = "report.html";
    return PB_OK;
}

static int compare_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->files.nargs != 2)
        return pb_err_set(err, PB_EINPUT, "compare needs two files: BASE.csv NEW.csv");
    return PB_OK;
}

/* report and compare take files: another command's option is named as such */
static const char *files_foreign(const pb_opt_spec_t *s, int report)
{
    if (strcmp(s->lng, "csv") == 0 || strcmp(s->lng, "json") == 0)
        return report ? "--csv and --json are not options of parbench report"
                      : "--csv and --json are not options of parbench compare";
    if (s->elsewhere)
        return NULL;
    return report ? "parbench report takes files, -o, --pairs and --threshold only"
                  : "parbench compare takes files, -o, --pairs and --threshold only";
}
static const char *report_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    return files_foreign(s, 1);
}
static const char *compare_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    return files_foreign(s, 0);
}

static const pb_cmd_desc_t cmd_report = {
    PB_CMD_REPORT, "report", "results.csv [calib.csv] -o report.html (parbench report --help)",
    "usage: parbench report RESULTS.csv [CALIB.csv] [-o report.html] [--pairs PAIRS.csv]\n"
    "\n"
    "Writes one self-contained XHTML page (no scripts, no network; plots drawn\n"
    "by PLplot as inline SVG): run metadata, the topology matrix (from --pairs,\n"
    "written by parbench topo --csv), bus bandwidth vs size per collective (one\n"
    "line per group size and link class), the calibrated model's curves and fit\n"
    "error when CALIB.csv is given, pattern tables per strategy, and the step\n"
    "breakdown (rows with pattern step or model).  Runs no MPI.\n",
    {{&report_group, NULL}, {&pb_grp_help, NULL}},
    "CALIB.csv columns: collective, group_size, link_class, bytes_lo, bytes_hi,\n"
    "latency_us, bandwidth_gbps, fit_error; a piece predicts\n"
    "time_us = latency_us + size / (bandwidth_gbps * 1e3) for bytes_lo <= size <= bytes_hi.\n",
    2, files_defaults, report_finish, report_foreign, report_alone, NULL, 0};

static const pb_cmd_desc_t cmd_compare = {
    PB_CMD_COMPARE, "compare",
    "base.csv new.csv [--threshold 5%]: the regression gate\n"
    "           (parbench compare --help)",
    "usage: parbench compare BASE.csv NEW.csv [--threshold 5%]\n"
    "\n"
    "Matches rows on pattern, collective, group, group size, bytes, dtype,\n"
    "backend and world (and in-place, timing mode and reduction, which tell\n"
    "apart the measurements of one sweep), prints the change of median time\n"
    "and bus bandwidth, lists rows found in only one file, and exits 1 when a\n"
    "matched row's median time grew by more than the threshold.  Runs no MPI.\n",
    {{&compare_group, NULL}, {&pb_grp_help, NULL}},
    "exit codes: 0 no regression, 1 a regression, 2 bad input (a malformed file:\n"
    "file and line named)\n",
    2, files_defaults, compare_finish, compare_foreign, compare_alone, NULL, 0};

/* ---- import -------------------------------------------------------- */

static int set_tool(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    (void)s;
    (void)shown;
    if (strcmp(v, "auto") != 0 && strcmp(v, "nccl-tests") != 0 && strcmp(v, "osu") != 0 &&
        strcmp(v, "imb") != 0)
        return pb_err_set(err, PB_EINPUT, "--tool takes auto, nccl-tests, osu or imb, not '%s'", v);
    o->import.tool = v;
    return PB_OK;
}

static const pb_opt_spec_t import_specs[] = {
    {"csv", 0, "FILE", pb_opt_file, OFF(run.csv_path), 0, "append the rows here (required)",
     "@file", NULL},
    {"tool", 0, "T", set_tool, 0, 0,
     "auto (default: from the log's banner), nccl-tests, osu, imb", "auto nccl-tests osu imb",
     "--tool and --partial are options of parbench import"},
    {"partial", 0, NULL, pb_opt_flag, OFF(import.partial), 0,
     "keep the rows that parse and count the lines that do not\n"
     "(default: a bad line is an error naming file:line, exit 2)",
     NULL, "--tool and --partial are options of parbench import"},
    {"np", 0, "N", pb_opt_int, OFF(run.np), 1,
     "processes, for logs that do not say (OSU collectives)", NULL, NULL},
    {"output", 'o', "FILE", set_output, OFF(import.output), 0,
     "also fit the rows as parbench calibrate does and write the\n"
     "calibration (for model --calib and plan --calib)",
     "@file", o_elsewhere},
    {"fit-tol", 0, "P", pb_opt_percent, OFF(import.fit_tol), 0, "with -o: as for calibrate (default 5)",
     NULL, NULL},
};
static const pb_opt_group_t import_group = GROUP("", import_specs, NULL);

static void import_defaults(pb_options_t *o)
{
    o->import.fit_tol = 0.05; /* PB_FIT_TOL_DEFAULT */
}

static int import_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->import.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench import needs at least one log file");
    if (o->run.csv_path == NULL)
        return pb_err_set(err, PB_EINPUT, "parbench import needs --csv OUT.csv");
    return PB_OK;
}

static int import_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_import_cmd(o, err) : PB_OK;
}

static const pb_cmd_desc_t cmd_import = {
    PB_CMD_IMPORT, "import", "nccl-tests, OSU or IMB logs -> results CSV (parbench import --help)",
    "usage: parbench import LOG [LOG ...] --csv OUT.csv [--tool T] [--partial] [--np N]\n"
    "                       [-o calib.csv] [--fit-tol P]\n"
    "\n"
    "Turns benchmark logs into parbench result rows (backend = the tool, label =\n"
    "the file name), so calibrate, report, compare and model --calib read them.\n"
    "Reads nccl-tests (every *_perf table: out-of-place and in-place, with or\n"
    "without redop/root columns, #wrong or N/A, per-iteration columns; world,\n"
    "nodes and groups from the '#  Rank' lines), OSU 5.x-7.x (latency tables with\n"
    "and without -f, osu_latency, osu_bw, osu_bibw) and IMB-MPI1 (every\n"
    "'# Benchmarking' block with its '#processes').  Sizes follow parbench's\n"
    "convention: OSU's and IMB's per-rank blocks (allgather, alltoall) are\n"
    "multiplied by the process count.  Runs no MPI.\n",
    {{&import_group, NULL}, {&pb_grp_help, NULL}},
    "", PB_MAX_INPUTS, import_defaults, import_finish, pure_foreign, import_alone, NULL, 1};

/* ---- what the commands run without ranks ---------------------------- */

/* a plan needs no ranks: a 16,384-GPU layout prints on a laptop */
static int main_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    if (o->cmd == PB_CMD_PATTERN && o->main.dry_run)
        return pb_pattern_dry_run(o, rank0, err);
    return PB_RUN_RANKS;
}

static int main_ranks(struct pb_ctx *ctx, pb_err_t *err)
{
    return ctx->opt->cmd == PB_CMD_PATTERN ? pb_pattern_cmd(ctx, err) : pb_main_job_run(ctx, err);
}

/* a dump describes another machine: no MPI, no launch, so a layout for
 * a thousand GPUs can be checked from a laptop */
static int topo_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    if (o->topo.nccl)
        return rank0 ? pb_topo_cmd_nccl(o, err) : PB_OK;
    if (o->topo.xml == NULL)
        return PB_RUN_RANKS;
    return rank0 ? pb_topo_cmd_offline(o, err) : PB_OK;
}

/* calibrate, model and plan are arithmetic over files and presets: under
 * a launcher only rank 0 prints */
static int calibrate_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_calibrate_cmd(o, err) : PB_OK;
}
static int model_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_model_cmd(o, err) : PB_OK;
}
static int plan_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_plan_cmd(o, err) : PB_OK;
}

/* files in, a page or a verdict out */
static int report_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    (void)rank0;
    return pb_report_cmd(o, err);
}
static int compare_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    (void)rank0;
    return pb_compare_cmd(o, err);
}

/* ---- the table ----------------------------------------------------- */

const pb_cmd_desc_t *const pb_commands[] = {
    &cmd_main, &cmd_coll,  &cmd_gemm,  &cmd_step,   &cmd_topo,    &cmd_validate,
    &cmd_calibrate, &cmd_model, &cmd_plan, &cmd_report, &cmd_compare, &cmd_import,
};
const size_t pb_ncommands = sizeof pb_commands / sizeof pb_commands[0];

const pb_cmd_desc_t *pb_cmd_find(pb_command_t id)
{
    if (id == PB_CMD_PATTERN)
        id = PB_CMD_MAIN;
    for (size_t i = 0; i < pb_ncommands; i++)
        if (pb_commands[i]->id == id)
            return pb_commands[i];
    return &cmd_main;
}
