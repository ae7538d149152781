/* parbench profile: a recorded job's communication (the NCCL profiler
 * plugin's files, PyTorch profiler traces or the ops CSV, read by
 * jobprof/pb_jobprof.h) analysed: what each communicator is in the
 * layout, what it carried, how fast against the calibration, who came
 * late, and what the model predicts against what ran.  The analysis is
 * jobprof/'s (pure); here the options become its inputs - the layout and
 * the patterns' traffic through the same model and layout options as
 * parbench model (glue/pb_pattern_plan.h), the calibration through
 * parbench model's reader - and its findings are printed and written.
 * No MPI. */
#include <stdio.h>
#include <string.h>

#include "../../jobprof/pb_jp_agree.h"
#include "../../jobprof/pb_jp_csv.h"
#include "../../jobprof/pb_jp_html.h"
#include "../../jobprof/pb_jp_ranks.h"
#include "../../jobprof/pb_jp_trace.h"
#include "../cli/pb_opt_common.h"
#include "../glue/pb_calib_csv.h"
#include "../glue/pb_job.h"
#include "../glue/pb_pattern_plan.h"
#include "pb_profile_print.h"

typedef struct prof {
    pb_jobprof_t jp;
    pb_jp_shape_t shape;
    int layout_given;
    pb_pattern_plan_t plan;
    int have_plan;
    pb_jp_insts_t insts;
    pb_jp_stats_t stats;
    pb_jp_strag_t strag;
    pb_jp_agree_t agree;
    pb_jp_calcmp_t cal;
    int have_cal;
    pb_jp_expect_t exp;
    int have_exp;
    char source[256];
} prof_t;

/* a model named by any of its options (the layout alone is no model) */
static int model_given(const pb_model_opts_t *m)
{
    return m->preset || m->model_file || m->hf_config || m->megatron_args || m->nmodel_kv > 0;
}

/* The layout the flags give, without a model: the sizes typed, dp what
 * the others leave of the recorded world (as Megatron), the order. */
static int flag_layout(const pb_model_opts_t *mo, int world, pb_layout_t *l, pb_err_t *err)
{
    pb_layout_default(l);
    if (mo->order && pb_layout_parse_order(l, mo->order, err))
        return err->code;
    /* a trace names its communicators by Megatron's and PyTorch's
     * dimensions (pb_jp_infer.c); HSDP's shard and replica groups are
     * none of them */
    if (mo->shard)
        return pb_err_set(err, PB_EINPUT,
                          "profile cannot compare HSDP's shard and replica groups with a "
                          "trace's yet: leave --shard-group out");
    l->etp = mo->etp;
    for (int d = 0; d < PB_DIM_COUNT; d++)
        if (mo->layout[d])
            l->size[d] = mo->layout[d];
    int other = l->size[PB_DIM_TP] * l->size[PB_DIM_CP] * l->size[PB_DIM_PP];
    if (mo->layout[PB_DIM_DP] == 0) {
        if (world % other != 0)
            return pb_err_set(err, PB_EINPUT,
                              "tp %d x cp %d x pp %d = %d does not divide the recorded world of "
                              "%d ranks",
                              l->size[PB_DIM_TP], l->size[PB_DIM_CP], l->size[PB_DIM_PP], other,
                              world);
        l->size[PB_DIM_DP] = world / other;
    }
    int ep = l->size[PB_DIM_EP], room = l->etp > 0 ? l->size[PB_DIM_TP] * l->size[PB_DIM_CP] *
                                                        l->size[PB_DIM_DP] / l->etp
                                                  : l->size[PB_DIM_CP] * l->size[PB_DIM_DP];
    if (room % ep != 0)
        return pb_err_set(err, PB_EINPUT, "--ep %d does not divide the %d ranks experts spread "
                          "over", ep, room);
    return PB_OK;
}

/* The model's plan on the recorded world: the layout typed, else the
 * one the communicators showed. */
static int plan_model(const pb_options_t *o, prof_t *p, pb_err_t *err)
{
    pb_model_opts_t mo = o->model;
    if (!mo.layout_given) {
        if (!p->shape.consistent)
            return pb_err_set(err, PB_EINPUT, "the layout could not be inferred from the "
                              "recording: give it with the model (--tp, --cp, --dp, --pp)");
        const int sz[] = {p->shape.tp, p->shape.cp, 0, p->shape.dp, p->shape.pp};
        for (int d = 0; d < PB_LAYOUT_DIMS; d++)
            if (sz[d] > 1) {
                mo.layout[d] = sz[d];
                mo.layout_given |= 1u << d;
            }
        if (mo.layout_given == 0) { /* one rank: dp 1 */
            mo.layout[PB_LAYOUT_DP] = 1;
            mo.layout_given = 1u << PB_LAYOUT_DP;
        }
    }
    int code = pb_pattern_plan(&mo, 0, p->shape.world, 0, &p->plan, err);
    p->have_plan = 1;
    return code;
}

/* Dimensions: by the layout given (with or without a model), else
 * inferred, then the model planned on them. */
static int layout(const pb_options_t *o, prof_t *p, pb_err_t *err)
{
    int world = pb_jp_world(&p->jp), code = PB_OK;
    p->shape.world = world;
    p->layout_given = o->model.layout_given != 0;
    if (p->layout_given) {
        pb_layout_t l;
        if (model_given(&o->model)) {
            code = plan_model(o, p, err);
            l = p->plan.layout;
        } else {
            code = flag_layout(&o->model, world, &l, err);
        }
        return code != PB_OK ? code : pb_jp_infer(&p->jp, &l, &p->shape, err);
    }
    code = pb_jp_infer(&p->jp, NULL, &p->shape, err);
    if (code == PB_OK && model_given(&o->model))
        code = plan_model(o, p, err);
    return code;
}

static int calibration(const pb_options_t *o, prof_t *p, pb_err_t *err)
{
    if (o->predict.calib == NULL)
        return PB_OK;
    pb_job_t job;
    pb_calib_t k;
    pb_calib_init(&k);
    int code = pb_job_settings(&o->predict, &o->model.train, &job, err);
    if (code == PB_OK)
        code = pb_calib_csv_read(o->predict.calib, &k, err);
    if (code == PB_OK) {
        pb_cost_t cost = {&job.hw, &k, 0};
        code = pb_jp_calib_cmp(&p->jp, &p->insts, &cost, o->predict.gpus_per_node,
                               o->profile.min_eff, &p->cal, err);
        p->have_cal = code == PB_OK;
    }
    pb_calib_free(&k);
    return code;
}

static int analyse(const pb_options_t *o, prof_t *p, pb_err_t *err)
{
    int code = pb_jp_load(o->profile.inputs, (size_t)o->profile.ninputs, &p->jp, err);
    if (code == PB_OK)
        code = layout(o, p, err);
    if (code == PB_OK)
        code = pb_jp_insts_build(&p->jp, &p->insts, err);
    if (code == PB_OK)
        pb_jp_agree_find(&p->jp, &p->insts, &p->agree);
    if (code == PB_OK)
        code = pb_jp_stats_build(&p->jp, &p->insts, &p->stats, err);
    if (code == PB_OK)
        code = pb_jp_strag_find(&p->jp, &p->insts, (int64_t)(o->profile.min_lag_us * 1e3),
                                &p->strag, err);
    if (code == PB_OK)
        code = calibration(o, p, err);
    if (code == PB_OK && p->have_plan) {
        code = pb_jp_expect(&p->jp, p->plan.ops.ops, p->plan.ops.n, p->shape.world,
                            o->profile.steps, o->profile.size_tol, &p->exp, err);
        p->have_exp = code == PB_OK;
    }
    return code;
}

/* What the recording holds that cannot be taken at face value, on
 * stderr: the tables stand, but these parts of them are in doubt. */
static void warnings(const prof_t *p)
{
    const pb_jobprof_t *jp = &p->jp;
    pb_jp_missing_warn(jp, "the tables hold the others only", stderr);
    if (jp->impossible)
        fprintf(stderr, "parbench: warning: %llu records end before they start (a clock "
                "stepped back, or a damaged file): left out\n",
                (unsigned long long)jp->impossible);
    if (jp->truncated)
        fprintf(stderr, "parbench: warning: %llu record files end inside a record (a job "
                "stopped while writing): their last record left out\n",
                (unsigned long long)jp->truncated);
    if (p->agree.differ == 0)
        return;
    const pb_jp_inst_t *x = &p->insts.v[p->agree.inst];
    const pb_jop_t *a = &jp->ops[p->agree.op_a], *b = &jp->ops[p->agree.op_b];
    fprintf(stderr, "parbench: warning: %llu collectives whose members recorded different "
            "sizes or types (the first: communicator %d %s number %llu, rank %d %llu x %s, "
            "rank %d %llu x %s): their sizes, times and lags mix operations\n",
            (unsigned long long)p->agree.differ, x->comm,
            pb_jp_op_name(x->known, x->kind, x->coll, x->func), (unsigned long long)x->seq,
            a->rank, (unsigned long long)a->count, a->dtype_name, b->rank,
            (unsigned long long)b->count, b->dtype_name);
}

static int outputs(const pb_options_t *o, prof_t *p, const pb_jp_html_in_t *in, pb_err_t *err)
{
    const pb_profile_opts_t *po = &o->profile;
    int code = PB_OK;
    if (po->csv_path && (code = pb_jp_csv_write(po->csv_path, &p->jp, err)) == PB_OK)
        printf("# written: %zu records to %s\n", p->jp.nops, po->csv_path);
    size_t drawn = 0;
    if (code == PB_OK && po->trace_path &&
        (code = pb_jp_trace_write(po->trace_path, &p->jp, &p->shape, &drawn, err)) == PB_OK)
        printf("# written: the trace of %zu operations to %s\n", drawn, po->trace_path);
    if (code == PB_OK && po->html_path && (code = pb_jp_html_write(po->html_path, in, err)) == PB_OK)
        printf("# written: %s\n", po->html_path);
    return code;
}

static void prof_free(prof_t *p)
{
    pb_jobprof_free(&p->jp);
    if (p->have_plan)
        pb_pattern_plan_free(&p->plan);
    pb_jp_insts_free(&p->insts);
    pb_jp_stats_free(&p->stats);
    pb_jp_strag_free(&p->strag);
    pb_jp_calcmp_free(&p->cal);
    pb_jp_expect_free(&p->exp);
}

static int profile_cmd(const pb_options_t *o, pb_err_t *err)
{
    prof_t p;
    memset(&p, 0, sizeof p);
    pb_jobprof_init(&p.jp);
    for (int i = 0; i < o->profile.ninputs; i++) {
        size_t at = strlen(p.source);
        snprintf(p.source + at, sizeof p.source - at, "%s%s", i ? " " : "", o->profile.inputs[i]);
    }
    int code = analyse(o, &p, err);
    if (code == PB_OK) {
        pb_jp_html_in_t in = {&p.jp, &p.shape, p.layout_given, &p.insts, &p.stats, &p.strag,
                              p.have_cal ? &p.cal : NULL, p.have_exp ? &p.exp : NULL, p.source,
                              "parbench " PB_VERSION};
        warnings(&p);
        pb_profile_print(&in);
        code = outputs(o, &p, &in, err);
    }
    prof_free(&p);
    return code;
}

/* ---- the command: its options and table row ----------------------- */

static int profile_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? profile_cmd(o, err) : PB_OK;
}

#define PROFILE_ELSEWHERE "is an option of parbench profile"

static const pb_opt_spec_t profile_specs[] = {
    {"calib", 0, "FILE", pb_opt_file, PB_OFF(predict.calib), 0,
     "parbench calibrate's CSV: achieved bus bandwidth against\n"
     "its curves, and the rows below --min-eff of them", "@file", NULL},
    {"min-eff", 0, "F", pb_opt_pos, PB_OFF(profile.min_eff), 0,
     "with --calib: list rows below this share of the curve\n(default 0.5)", NULL,
     "--min-eff " PROFILE_ELSEWHERE},
    {"hw", 0, "NAME", pb_opt_str, PB_OFF(predict.hw), 0,
     "with --calib: the hardware whose links cap the curves\n(a100, a100-40gb, h100, h200, h800, b200, gb200, mi300x,\nmi325x, mi355x; default a100)",
     "a100 a100-40gb h100 h200 h800 b200 gb200 mi300x mi325x mi355x", NULL},
    {"gpus-per-node", 0, "G", pb_opt_int, PB_OFF(predict.gpus_per_node), 1,
     "with --calib: ranks per node, where the recording does not\n"
     "say how a communicator is placed (default: the hardware's)", NULL, NULL},
    {"min-lag", 0, "US", pb_opt_pos, PB_OFF(profile.min_lag_us), 0,
     "a last rank less than this many microseconds behind the one\n"
     "before it is no straggler (default 100)", NULL, "--min-lag " PROFILE_ELSEWHERE},
    {"dtype", 0, "T", pb_opt_str, PB_OFF(model.dtype), 0,
     "with a model: the job's data type, bf16 (default), fp16 or\n"
     "fp32: the size of the activations and gradients predicted", "bf16 fp16 fp32", NULL},
    {"steps", 0, "N", pb_opt_u64, PB_OFF(profile.steps), 1,
     "with a model: training steps the recording holds (default:\n"
     "the count most predicted operations agree on)", NULL, NULL},
    {"size-tol", 0, "P", pb_opt_percent, PB_OFF(profile.size_tol), 0,
     "with a model: percent by which a recorded size may differ\nfrom the predicted one (default 1)",
     NULL, "--size-tol " PROFILE_ELSEWHERE},
    {"trace", 0, "FILE", pb_opt_file, PB_OFF(profile.trace_path), 0,
     "every rank's operations as a Chrome trace (ui.perfetto.dev)", "@file", NULL},
    {"csv", 0, "FILE", pb_opt_file, PB_OFF(profile.csv_path), 0,
     "every record as parbench's ops CSV (profile, replay read it)", "@file", NULL},
    {"html", 0, "FILE", pb_opt_file, PB_OFF(profile.html_path), 0,
     "the findings as a page in the report's style", "@file", "--html " PROFILE_ELSEWHERE},
};
static const pb_opt_group_t profile_group = PB_GROUP("", profile_specs, NULL);

static void profile_defaults(pb_options_t *o)
{
    pb_model_defaults(o);
    o->profile.min_eff = 0.5;
    o->profile.min_lag_us = 100.0;
    o->profile.size_tol = 0.01;
}

/* the main job's switches named as such */
static const char *profile_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    if (strcmp(s->lng, "pattern") == 0 || strcmp(s->lng, "dry-run") == 0)
        return "--pattern and --dry-run are not options of parbench profile";
    return NULL;
}

static int profile_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->profile.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench profile needs a recording: record files, "
                          "PyTorch traces, an ops CSV or their folder");
    return PB_OK;
}

const pb_cmd_desc_t pb_cmd_profile = {
    PB_CMD_PROFILE, "profile",
    "DIR|FILES: a recorded job's communicators, traffic and\n"
    "           stragglers (parbench profile --help)",
    "usage: parbench profile DIR|FILE... [--calib calib.csv] [--trace out.json]\n"
    "                        [--csv ops.csv] [--html out.html] [model] [layout]\n"
    "\n"
    "Joins every rank's records of a training job (the NCCL profiler plugin's\n"
    "files, doc/profiling.md; PyTorch profiler traces; parbench's ops CSV) and\n"
    "reports: each communicator's members and its dimension (tp, cp, dp, pp, ep,\n"
    "world, other: by the layout given, else inferred from the member sets in\n"
    "Megatron's rank order, unknown where they do not decide it); its\n"
    "operations per collective and size bucket with bytes, time, share and\n"
    "bus bandwidth; with --calib, the bandwidth against the calibrated curves\n"
    "and the rows far below them; the ranks that issue collectives last, and by\n"
    "how much; with a model (--preset, --hf-config, ...; the layout typed or\n"
    "inferred), the traffic the patterns predict per step against what was\n"
    "recorded: missing and extra operations, size and count mismatches.\n"
    "Runs no MPI.\n",
    {{&profile_group, NULL},
     {&pb_grp_model, "model (as parbench model)"},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, "training"},
     {&pb_grp_help, NULL}},
    "exit codes: 0 analysed, 2 bad input (no recording, a file that is none or is\n"
    "damaged, a layout the recording contradicts: another world size, a group it\n"
    "does not make, pipeline stages that send nothing; an unreadable calibration)\n",
    PB_MAX_INPUTS, profile_defaults, profile_finish, profile_foreign, profile_alone, NULL, 1,
    NULL};
