/* parbench model: a step predicted for one layout (or, with --against,
 * every published run of a file).  A pure computation over files and
 * presets (no MPI, nothing launched), printed by the one process that
 * runs it. */
#include "pb_cmd_model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../patterns/pb_stages.h"
#include "../cli/pb_opt_common.h"
#include "../glue/pb_against.h"
#include "../glue/pb_pattern_plan.h"
#include "../glue/pb_pattern_print.h"
#include "../glue/pb_predict.h"
#include "../glue/pb_step_json.h"

/* The model as the prediction saw it, and what no flag gave where no
 * preset or file names it (pb_pattern_plan_t assumed) */
typedef struct model_said {
    char assumed[320];
    const char *from;
} model_said_t;

/* What was predicted: the model (and its assumed fields), the layout and
 * its settings, uneven stages. */
static void print_setup(const pb_model_t *m, const pb_layout_t *l, const pb_predict_env_t *e,
                        const pb_step_t *st, const model_said_t *said)
{
    printf("model: %s: %llu layers, hidden %llu, %llu heads (%llu KV), ffn %llu, vocab %llu, "
           "seq %llu, %.2f B parameters\n",
           m->name, (unsigned long long)m->layers, (unsigned long long)m->hidden,
           (unsigned long long)m->heads, (unsigned long long)m->kv_heads,
           (unsigned long long)m->ffn, (unsigned long long)m->vocab, (unsigned long long)m->seq,
           (double)pb_model_params(m) / 1e9);
    if (said->assumed[0])
        printf("assumed (%s): %s\n", said->from, said->assumed);
    char rc[24], stack[96] = "";
    pb_recomp_format(e->job.step.recomp, rc, sizeof rc);
    const pb_step_cfg_t *sc = &e->job.step;
    if (sc->framework != PB_FW_MEGATRON || sc->fp8 || sc->tp_overlap > 0)
        snprintf(stack, sizeof stack, "; %s%s", pb_fw_name(sc->framework),
                 !sc->fp8 ? "" : sc->fp8_recipe == PB_FP8_ROWWISE ? ", fp8 GEMMs (rowwise scales)"
                                                                   : ", fp8 GEMMs (tensorwise scales)");
    if (sc->tp_overlap > 0)
        snprintf(stack + strlen(stack), sizeof stack - strlen(stack), ", TP overlap %.2f",
                 sc->tp_overlap);
    uint64_t world = pb_layout_world(l);
    uint64_t nodes = (world + (uint64_t)e->job.hw.gpus_per_node - 1) / (uint64_t)e->job.hw.gpus_per_node;
    printf("layout: tp %d%s, pp %d, vp %d, dp %d, cp %d, ep %d on %llu GPU%s (%llu node%s of %d); "
           "mbs %llu, gbs %llu: %llu micro-batches; recompute %s%s%s%s%s%s\n",
           l->size[PB_DIM_TP], l->sp ? " (sp)" : "", l->size[PB_DIM_PP], l->vp,
           l->size[PB_DIM_DP],
           l->size[PB_DIM_CP], l->size[PB_DIM_EP], (unsigned long long)world,
           world == 1 ? "" : "s", (unsigned long long)nodes, nodes == 1 ? "" : "s",
           e->job.hw.gpus_per_node, (unsigned long long)m->mbs,
           (unsigned long long)(st->micro * m->mbs * (uint64_t)l->size[PB_DIM_DP]),
           (unsigned long long)st->micro, rc,
           e->job.step.flash ? ", flash attention" : ", materialised attention scores",
           e->job.step.causal ? " (causal)" : e->job.step.flash ? " (every score)" : "",
           e->job.step.zero3_copies ? ", FSDP2 copies" : "",
           e->job.step.grad_accum_fused ? "" : ", unfused gradient accumulation", stack);
    pb_stages_t sg; /* said only when uneven */
    pb_stages_of(m, l->size[PB_DIM_PP], &sg);
    if (l->size[PB_DIM_PP] > 1 && (sg.first != sg.last || (l->size[PB_DIM_PP] > 2 && sg.first != sg.mid)))
        printf("stages: %llu layers on the first, %llu on each between, %llu on the last\n",
               (unsigned long long)sg.first, (unsigned long long)sg.mid,
               (unsigned long long)sg.last);
}

/* Where the numbers come from: hardware, compute rate, collectives, and
 * which groups cross nodes. */
static void print_sources(const pb_layout_t *l, const pb_predict_env_t *e, const pb_step_t *st)
{
    pb_print_hw(&e->job.hw);
    printf("compute rate: %.1f TFLOP/s per GPU (%s)\n", st->rate_tflops, e->rate_src);
    printf("collectives: %d operation kinds from the calibration, %d from the %s preset%s\n",
           st->ops_calibrated, st->ops_preset, e->job.hw.name,
           e->have_calib ? "" : " (no --calib)");
    if (st->ops_other_dtype)
        printf("collectives: %d operation kinds are reductions calibrated with another data "
               "type (theirs was not measured, or not at that size, or the file predates the "
               "dtype column: see doc/prediction.md, Calibration)\n",
               st->ops_other_dtype);
    if (e->have_calib) {
        char note[512];
        pb_step_calib_note(st, e->job.hw.name, note, sizeof note);
        printf("%s\n", note);
    }
    printf("groups:");
    for (int k = 0; k < PB_GK_COUNT; k++) {
        int n = pb_layout_group_size(l, (pb_gkind_t)k);
        /* the expert view's data-parallel group exists for experts only */
        if (n <= 1 || (k == PB_GK_EDP && e->job.model.experts == 0))
            continue;
        char kind[48];
        snprintf(kind, sizeof kind, "%s", pb_gkind_name((pb_gkind_t)k));
        for (char *c = kind; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        /* the gradients are reduced over dp x cp (Megatron's dp-cp group):
         * said so, or "DP 128" reads as a dp the layout line calls 64 */
        if (k == PB_GK_DP && l->size[PB_DIM_CP] > 1)
            snprintf(kind, sizeof kind, "DP x CP %d (dp %d x cp %d)", n, l->size[PB_DIM_DP],
                     l->size[PB_DIM_CP]);
        else
            snprintf(kind + strlen(kind), sizeof kind - strlen(kind), " %d", n);
        printf(" %s %s", kind, st->net[k] ? "across nodes" : "within a node");
        if (k == PB_GK_EP) /* the dispatcher its all-to-alls are costed as */
            printf(" (%s dispatcher)",
                   pb_ep_disp_name(pb_ep_disp_resolve(e->job.step.ep_disp, st->net[k])));
        printf(";");
    }
    printf("\n");
    if (e->job.step.tp_overlap > 0.0 && l->size[PB_DIM_TP] > 1 &&
        !pb_step_tp_overlap_runs(l, e->job.step.gpus_per_node))
        printf("note: TP overlap is not counted: Transformer Engine's userbuffers run within "
               "a node (one NVLink domain) and TP %d spans nodes\n",
               l->size[PB_DIM_TP]);
}

/* The step by part, then what it yields: throughput, MFU, efficiencies,
 * memory. */
static void print_parts(const pb_predict_env_t *e, const pb_step_t *st)
{
    printf("\n%-10s %12s %9s %16s\n", "part", "seconds", "% step", "before overlap");
    for (int p = 0; p < PB_PART_COUNT; p++) {
        printf("%-10s %12.4f %8.1f%%", pb_part_name(p), st->part[p],
               100.0 * st->part[p] / st->total);
        int comm = p == PB_PART_TP || p == PB_PART_PP || p == PB_PART_DP || p == PB_PART_EP ||
                   p == PB_PART_CP;
        if (comm)
            printf(" %16.4f", st->comm_total[p]);
        printf("\n");
    }
    printf("%-10s %12.4f %8.1f%%\n\n", "step", st->total, 100.0);
    printf("throughput: %.0f tokens/s; %.1f TFLOP/s per GPU (model), %.1f (hardware, with "
           "recomputation)\n",
           st->tokens_per_s, st->tflops_model, st->tflops_hw);
    printf("MFU %.1f %%, HFU %.1f %% of %.0f TFLOP/s bf16\n", 100 * st->mfu, 100 * st->hfu,
           e->job.hw.bf16_tflops);
    printf("efficiency: TP %.1f %% (compute / (compute + exposed TP)), PP %.1f %% (work / "
           "(work + bubble + p2p)), DP %.1f %% (step without exposed DP / step)\n",
           100 * st->eff_tp, 100 * st->eff_pp, 100 * st->eff_dp);
}

/* Memory: the busiest stage term by term, what the allocator reserves
 * and the band, what the device leaves it, the verdict; every stage when
 * they differ. */
static void print_memory(const pb_predict_env_t *e, const pb_step_t *st, const pb_mem_band_t *mb)
{
    const pb_mem_stage_t *b = &st->mem.busiest;
    const pb_mem_cap_t *c = &st->cap;
    char like[96];
    pb_band_mech_words(mb->band.mech, mb->band.match, like, sizeof like);
    printf("memory per GPU, stage %d of %d (the busiest: %llu layers, %.2f B parameters, %.2f "
           "micro-batches in flight):",
           b->stage, st->mem.stages, (unsigned long long)b->layers, b->params / 1e9, b->inflight);
    for (int t = 0; t < PB_MEM_TERMS; t++)
        printf("%s %s %.2f", t ? "," : "", pb_mem_term_name(t), b->term[t] / PB_GIB);
    printf(" GiB\n");
    double reserved = pb_mem_reserved(c, st->mem.total);
    printf("memory: %.2f GiB allocated at the peak (with room to spare the %s allocator keeps "
           "+%.0f %%: %.2f GiB reserved%s); it needs %.2f GiB, likely %.2f-%.2f: the model's "
           "errors on the %d measured runs most like this one (%s%s) span %+.1f %% to %+.1f %% "
           "(doc/prediction.md, Memory)\n",
           st->mem.total / PB_GIB, pb_fw_name(e->job.step.framework), 100.0 * c->frag,
           reserved / PB_GIB,
           reserved >= st->mem.total * (1.0 + c->frag) ? ""
           : reserved > c->usable ? ", what it needs, more than the device leaves it"
                                  : ", all the device leaves it: it frees its cache there",
           pb_mem_needed(st->mem.total) / PB_GIB, mb->lo / PB_GIB,
           mb->hi / PB_GIB, mb->band.runs, mb->band.match == 0 ? "all of them" : like,
           mb->band.match != PB_MECH_ALL && mb->band.match != 0 ? ", the closest the file has"
                                                                 : "",
           100.0 * mb->band.err_lo, 100.0 * mb->band.err_hi);
    printf("capacity: %.2f GiB as CUDA reports it - %.2f GiB CUDA context - %.2f GiB NCCL (%d "
           "communicator%s x %.0f MiB) = %.2f GiB the allocator can reserve: %s\n",
           c->device / PB_GIB, c->context / PB_GIB, c->nccl / PB_GIB, c->comms,
           c->comms == 1 ? "" : "s", e->job.hw.nccl_comm_mib, c->usable / PB_GIB,
           mb->fit == PB_FIT_YES ? "fits"
           : mb->fit == PB_FIT_TIGHT ? "TIGHT (the band reaches capacity)"
                                     : "DOES NOT FIT (the band's low end is over capacity)");
    if (st->mem.stages <= 1)
        return;
    pb_mem_cfg_t mc;
    pb_step_mem_cfg(&e->job.model, &e->job.layout, &e->job.step, &mc);
    printf("memory by stage (GiB allocated):");
    for (int s = 0; s < st->mem.stages; s++) {
        pb_mem_stage_t ms;
        pb_memory_stage(&e->job.model, &e->job.layout, &mc, s, &ms);
        printf(" %d:%.1f", s, ms.total / PB_GIB);
    }
    printf("\n");
}

static void print_step(const pb_model_t *m, const pb_layout_t *l, const pb_predict_env_t *e,
                       const pb_step_t *st, const pb_mem_band_t *mb, const model_said_t *said)
{
    print_setup(m, l, e, st, said);
    print_sources(l, e, st);
    print_parts(e, st);
    print_memory(e, st, mb);
}

static void print_band(const pb_predict_env_t *e, const pb_step_t *st, const pb_step_band_t *b)
{
    char like[96];
    pb_band_mech_words(b->band.mech, b->band.match, like, sizeof like);
    printf("step %.3f s, likely %.3f-%.3f s: the model's errors on the %d published runs most "
           "like this one (%s%s) span %+.1f %% to %+.1f %%",
           st->total, b->likely_lo, b->likely_hi, b->band.runs,
           b->band.match == 0 ? "all of them" : like,
           b->band.match != PB_MECH_ALL && b->band.match != 0 ? ", the closest the file has" : "",
           100.0 * b->band.err_lo, 100.0 * b->band.err_hi);
    if (e->have_calib)
        printf("; measured collectives at the ends of their ranges: %.3f-%.3f s", b->lo_s,
               b->hi_s);
    printf(" (doc/prediction.md, Uncertainty)\n");
}

/* model's hardware, settings, compute rate, model and layout (the
 * calibration too, which the caller frees); said: the fields assumed */
static int model_env(const pb_options_t *o, pb_predict_env_t *e, model_said_t *said,
                     pb_err_t *err)
{
    said->assumed[0] = '\0';
    said->from = NULL;
    int code = pb_predict_env_init(&o->predict, &o->model.train, e, err);
    if (code == PB_OK)
        code = pb_predict_env_rate(&o->predict, e, err);
    if (code != PB_OK)
        return code;
    pb_model_opts_t mo = o->model;
    if (mo.sp && mo.layout[PB_DIM_TP] <= 1) {
        /* as Megatron: sequence parallelism without TP is switched off
         * with a warning, and the run goes on */
        fprintf(stderr, "parbench: warning: --sp needs --tp above 1; sequence parallelism "
                        "off\n");
        mo.sp = 0;
    }
    /* no layout flag: dp is what tp 1, cp 1 and pp 1 leave of --gpus, as
     * the help says (pb_pattern_plan's own default for no layout splits
     * the world over several strategies, the main job's) */
    if (!mo.layout_given && !mo.megatron_args && o->predict.gpus > 0)
        mo.layout[PB_LAYOUT_TP] = 1;
    pb_pattern_plan_t p;
    code = pb_pattern_plan(&mo, 0, o->predict.gpus, 0, &p, err);
    if (code == PB_OK) {
        e->job.model = p.model;
        e->job.layout = p.layout;
        snprintf(said->assumed, sizeof said->assumed, "%s", p.assumed);
        said->from = p.assumed_from;
    }
    if (code == PB_OK) /* on stderr: stdout is the prediction */
        pb_pattern_print_raised(stderr, &p, "note: ");
    pb_pattern_plan_free(&p);
    return code;
}

int pb_model_job(const pb_options_t *o, pb_job_t *j, pb_err_t *err)
{
    pb_predict_env_t e;
    model_said_t said;
    int code = model_env(o, &e, &said, err);
    if (code == PB_OK)
        *j = e.job;
    pb_calib_free(&e.calib);
    return code;
}

static int model_cmd(const pb_options_t *o, pb_err_t *err)
{
    if (o->predict.against) {
        pb_against_sum_t sum;
        return pb_against(o->predict.against, stdout, &sum, err);
    }
    pb_predict_env_t e;
    model_said_t said;
    int code = model_env(o, &e, &said, err);
    pb_step_t st;
    pb_step_band_t b;
    pb_mem_band_t mb;
    pb_band_run_t *runs = NULL, *mruns = NULL;
    size_t nruns = 0, nmruns = 0;
    if (code == PB_OK)
        code = pb_job_predict(&e.job, e.have_calib ? &e.calib : NULL, 0, &st, err);
    if (code == PB_OK)
        code = pb_band_runs(&runs, &nruns, err);
    if (code == PB_OK)
        code = pb_step_band(&e, runs, nruns, &e.job.model, &e.job.layout, &e.job.step, &st, &b, err);
    if (code == PB_OK)
        code = pb_band_mem_runs(&mruns, &nmruns, err);
    if (code == PB_OK)
        code = pb_mem_band(mruns, nmruns,
                           pb_band_mech(&e.job.model, &e.job.layout, &e.job.step), &st, &mb, err);
    if (code == PB_OK && o->predict.json) {
        json_t *root = pb_step_json(&e.job, &st, &b, &mb);
        code = pb_json_emit(root, o->predict.json, err);
        json_decref(root);
    }
    if (code == PB_OK) {
        if (!o->predict.json || strcmp(o->predict.json, "-") != 0) {
            print_step(&e.job.model, &e.job.layout, &e, &st, &mb, &said);
            print_band(&e, &st, &b);
        }
        /* a layout that cannot run fails like a wrong result: after its
         * report, exit 1 (a script that plans with it must notice); a
         * tight one, whose band reaches capacity, may run and is not
         * refused */
        if (mb.fit == PB_FIT_NO)
            code = pb_err_set(err, PB_EVERIFY,
                              "does not fit: needs likely %.1f-%.1f GiB per GPU of %.1f GiB the "
                              "allocator can have (more tp or pp, a sharded optimizer, "
                              "recomputation or a smaller micro-batch)",
                              mb.lo / PB_GIB, mb.hi / PB_GIB, st.cap.usable / PB_GIB);
    }
    free(runs);
    free(mruns);
    pb_calib_free(&e.calib);
    return code;
}

/* ---- the command: its options and table row ----------------------- */

static int model_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? model_cmd(o, err) : PB_OK;
}

/* the model's one type (model, plan) */
static int set_model_dtype(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                           const char *shown, pb_err_t *err)
{
    (void)s, (void)shown;
    if (strcmp(v, "fp8") == 0) { /* the GEMMs' (pb_job_set); the model stays bf16 */
        o->predict.gemm_dtype = v;
        return PB_OK;
    }
    pb_dtype_t tmp[PB_DTYPE_COUNT];
    int n;
    if (pb_parse_dtypes(v, tmp, &n, err))
        return err->code;
    if (n > 1)
        return pb_err_set(err, PB_EINPUT, "--dtype takes one type (the model's)");
    o->model.dtype = v;
    return PB_OK;
}


static const pb_opt_spec_t model_own_specs[] = {
    {"dtype", 'd', "T", set_model_dtype, 0, 0,
     "the model's type: bf16, fp16 or fp32 (default: the preset's);\n"
     "fp8: Transformer Engine FP8 GEMMs in the linear layers (the\n"
     "model, attention and communication stay bf16)",
     "bf16 fp16 fp32 fp8", NULL},
    {"json", 0, "FILE", pb_opt_str, PB_OFF(predict.json), 0,
     "also write the prediction as JSON to FILE (- for stdout,\n"
     "in place of the tables): the step, its parts and band,\n"
     "memory per stage and per term, the verdict",
     "@file", NULL},
    {"against", 0, "FILE", pb_opt_str, PB_OFF(predict.against), 0,
     "predict every published run of FILE (model/published_runs.csv)\nand print predicted "
     "vs published step time and the summary",
     "@file", NULL},
};
/* plan takes the group too (--dtype; --against it refuses) */
const pb_opt_group_t pb_grp_model_own = PB_GROUP("", model_own_specs, NULL);

void pb_model_cmd_defaults(pb_options_t *o)
{
    pb_model_defaults(o);
    o->top = 10;
}

static int model_finish(pb_options_t *o, pb_err_t *err)
{
    if (pb_predict_finish(o, err) != PB_OK)
        return err->code;
    if (o->predict.against && o->model.layout_given)
        return pb_err_set(err, PB_EINPUT,
                          "--against takes every run's layout from its file: no --tp, --pp, ...");
    if (!o->model.layout_given && !o->model.megatron_args && !o->predict.against &&
        o->predict.gpus == 0)
        return pb_err_set(err, PB_EINPUT,
                          "parbench model needs a layout (--tp, --pp, ...) or --gpus N (then dp "
                          "is N)");
    return PB_OK;
}

const pb_cmd_desc_t pb_cmd_model = {
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
     {&pb_grp_model_own, NULL},
     {&pb_grp_model, NULL},
     {&pb_grp_layout, NULL},
     {&pb_grp_train, NULL},
     {&pb_grp_help, NULL}},
    "", 0, pb_model_cmd_defaults, model_finish, pb_pure_foreign, model_alone, NULL, 0, NULL};
