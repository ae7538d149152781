#include "pb_model_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../model/pb_gemm_fit.h"
#include "../model/pb_plan.h"
#include "../patterns/pb_stages.h"
#include "pb_against.h"
#include "pb_calib_csv.h"
#include "pb_meas_rows.h"
#include "pb_pattern_plan.h"

int pb_calibrate_files(const char *const *inputs, int ninputs, const char *output,
                       double fit_tol, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    size_t nrows = 0, npts = 0, skipped = 0;
    pb_meas_t *pts = NULL;
    if (pb_meas_read_files(inputs, ninputs, &rows, &nrows, err) != PB_OK)
        return err->code;
    int code = pb_meas_from_rows(rows, nrows, &pts, &npts, &skipped, err);
    size_t ngemm = 0;
    double gemm = pb_meas_gemm_tflops(rows, nrows, &ngemm);
    free(rows);
    if (code != PB_OK)
        return code;
    if (npts == 0) {
        free(pts);
        return pb_err_set(err, PB_EINPUT,
                          "no communication rows to fit in %s%s (%zu rows skipped)", inputs[0],
                          ninputs > 1 ? " ..." : "", skipped);
    }
    pb_calib_t k;
    pb_calib_init(&k);
    code = pb_calib_fit(pts, npts, fit_tol, &k, err);
    free(pts);
    if (code != PB_OK) {
        pb_calib_free(&k);
        return code;
    }
    printf("# parbench calibrate: %zu points, %zu rows skipped, %zu curves; a piece of 4+ "
           "sizes misses by at most %.1f %%\n",
           npts, skipped, k.n, 100.0 * fit_tol);
    printf("# time(bytes) = latency + bytes / bandwidth per piece; err = |fit/measured - 1|\n");
    printf("# reductions have a curve per data type; the other collectives one for any type\n");
    printf("%-14s %5s %-8s %-9s %5s %12s %12s %12s %12s %6s %8s %8s\n", "collective", "n",
           "link", "dtype", "piece", "bytes_lo", "bytes_hi", "latency_us", "bw_GB/s", "points",
           "max_err%", "rms_err%");
    size_t single = 0;
    for (size_t i = 0; i < k.n; i++) {
        const pb_curve_t *c = &k.c[i];
        single += (size_t)pb_curve_single(c);
        for (int p = 0; p < c->npieces; p++) {
            const pb_piece_t *q = &c->p[p];
            char bw[32];
            if (pb_curve_single(c))
                snprintf(bw, sizeof bw, "one-size"); /* no bandwidth from one size */
            else if (q->beta_us_b > 0)
                snprintf(bw, sizeof bw, "%.3f", 1e-3 / q->beta_us_b);
            else
                snprintf(bw, sizeof bw, "latency-only");
            printf("%-14s %5d %-8s %-9s %5d %12llu %12llu %12.3f %12s %6d %8.2f %8.2f\n",
                   pb_coll_name(c->coll), c->n, c->link, pb_calib_dtype_label(c), p,
                   (unsigned long long)q->lo,
                   (unsigned long long)q->hi, q->alpha_us, bw, q->npts, 100 * q->max_err,
                   100 * q->rms_err);
        }
    }
    if (single)
        printf("# %zu curve%s measured at one size only: no bandwidth from one size, so the "
               "model uses %s for that size alone, never for another\n",
               single, single == 1 ? "" : "s", single == 1 ? "it" : "each");
    if (ngemm)
        printf("# gemm rows: %zu, GEMM rate %.1f TFLOP/s (pass them to model/plan with "
               "--gemm-csv)\n",
               ngemm, gemm);
    if (output) {
        code = pb_calib_csv_write(output, &k, err);
        if (code == PB_OK)
            printf("# written: %s\n", output);
    }
    pb_calib_free(&k);
    return code;
}

int pb_calibrate_cmd(const pb_options_t *o, pb_err_t *err)
{
    const pb_calibrate_opts_t *c = &o->calibrate;
    return pb_calibrate_files(c->inputs, c->ninputs, c->output, c->fit_tol, err);
}

/* what model and plan share: hardware, calibration, compute rate */
typedef struct env {
    pb_hw_t hw;
    pb_calib_t calib;
    int have_calib;
    pb_step_cfg_t step;
    char rate_src[256];
} env_t;

static int env_init(const pb_predict_opts_t *h, const pb_train_opts_t *t, env_t *e, pb_err_t *err)
{
    memset(e, 0, sizeof *e);
    pb_calib_init(&e->calib);
    if (pb_hw_preset(h->hw ? h->hw : "a100", &e->hw, err))
        return err->code;
    for (int i = 0; i < h->nhw_set; i++) {
        char key[64];
        const char *eq = strchr(h->hw_set[i], '=');
        size_t kl = (size_t)(eq - h->hw_set[i]);
        if (kl >= sizeof key)
            return pb_err_set(err, PB_EINPUT, "--hw-set: key too long in '%s'", h->hw_set[i]);
        memcpy(key, h->hw_set[i], kl);
        key[kl] = '\0';
        if (pb_hw_set(&e->hw, key, eq + 1, err))
            return err->code;
    }
    if (h->gpus_per_node) {
        /* NICs scale with the node unless --hw-set named their count */
        int named = 0;
        for (int i = 0; i < h->nhw_set; i++)
            named |= strncmp(h->hw_set[i], "nics_per_node=", 14) == 0;
        if (named)
            e->hw.gpus_per_node = h->gpus_per_node;
        else
            pb_hw_set_gpus_per_node(&e->hw, h->gpus_per_node);
    }
    if (pb_hw_check(&e->hw, err))
        return err->code;
    if (h->calib) {
        if (pb_calib_csv_read(h->calib, &e->calib, err))
            return err->code;
        e->have_calib = 1;
    }
    pb_step_cfg_default(&e->step);
    e->step.recomp = t->recompute ? PB_RECOMP_FULL : h->selective ? PB_RECOMP_SELECTIVE
                                                                  : PB_RECOMP_NONE;
    /* flash attention unless refused: current Megatron-Core (Transformer
     * Engine), NeMo and FSDP recipes all run a fused attention kernel */
    e->step.flash = !h->no_flash;
    e->step.causal = h->causal;
    e->step.tp_overlap = h->tp_overlap;
    e->step.zero3_copies = h->fsdp2;
    e->step.grad_accum_fused = !h->unfused_accum;
    e->step.gpus_per_node = e->hw.gpus_per_node;
    e->step.traffic.bucket = t->dp_bucket_ddp ? PB_BUCKET_DDP : PB_BUCKET_MEGATRON;
    e->step.traffic.zero = t->zero;
    e->step.traffic.imbalance = t->imbalance;
    if (h->ep_dispatcher && pb_ep_disp_parse(h->ep_dispatcher, &e->step.ep_disp) != 0)
        return pb_err_set(err, PB_EINPUT, "--ep-dispatcher takes alltoall, flex or auto, not '%s'",
                          h->ep_dispatcher);
    if (t->grad_dtype && pb_pat_dtype_parse(t->grad_dtype, &e->step.traffic.grad_dtype) != 0)
        return pb_err_set(err, PB_EINPUT, "--grad-dtype takes fp32 or bf16, not '%s'",
                          t->grad_dtype);
    return PB_OK;
}

/* --gemm-csv: the shapes of parbench gemm's bf16 rows (their label
 * starts "M=.. N=.. K=..") with the rates measured */
static int gemm_rows(const char *path, pb_gemm_meas_t **out, size_t *n, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    size_t nr = 0;
    *out = NULL;
    *n = 0;
    if (pb_meas_read_files(&path, 1, &rows, &nr, err))
        return err->code;
    pb_gemm_meas_t *g = malloc((nr ? nr : 1) * sizeof *g);
    if (g == NULL) {
        free(rows);
        return pb_err_set(err, PB_ERUNTIME, "out of memory reading %s", path);
    }
    for (size_t i = 0; i < nr; i++) {
        const pb_result_t *r = &rows[i];
        unsigned long long m, nn, k;
        if (strcmp(r->pattern, "gemm") != 0 || strcmp(r->dtype, "bfloat16") != 0 ||
            !(r->tflops > 0) || sscanf(r->label, "M=%llu N=%llu K=%llu", &m, &nn, &k) != 3)
            continue;
        g[*n] = (pb_gemm_meas_t){(double)m, (double)nn, (double)k, r->tflops};
        (*n)++;
    }
    free(rows);
    if (*n == 0) {
        free(g);
        return pb_err_set(err, PB_EINPUT, "%s has no bf16 parbench gemm rows", path);
    }
    *out = g;
    return PB_OK;
}

/* model and plan: the compute rate, from --tflops (flat), else the kernel
 * model, its GEMM share fitted to --gemm-csv's rows where given */
static int env_rate(const pb_predict_opts_t *h, env_t *e, pb_err_t *err)
{
    snprintf(e->rate_src, sizeof e->rate_src,
             "kernel by kernel: GEMM efficiency, attention, memory-bound kernels");
    if (h->tflops > 0) {
        e->step.compute_tflops = h->tflops;
        snprintf(e->rate_src, sizeof e->rate_src, "--tflops");
    } else if (h->gemm_csv) {
        pb_gemm_meas_t *rows;
        size_t n;
        if (gemm_rows(h->gemm_csv, &rows, &n, err) != PB_OK)
            return err->code;
        pb_gemm_fit_t fit;
        pb_gemm_fit(&e->hw, rows, n, &fit);
        free(rows);
        if (fit.used == 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s: every GEMM row is bound by HBM, none measures the GEMM rate "
                              "(measure larger shapes)",
                              h->gemm_csv);
        snprintf(e->rate_src, sizeof e->rate_src,
                 "kernel by kernel, the GEMM share fitted to %zu measured GEMM%s: %.3f of the "
                 "peak at the best shape (preset %.3f)%s",
                 fit.used, fit.used == 1 ? "" : "s", fit.gemm_eff, e->hw.gemm_eff,
                 fit.above ? "; some rows beat the model's best, taken as 1" : "");
        e->hw.gemm_eff = fit.gemm_eff;
    }
    return PB_OK;
}

static void print_hw(const pb_hw_t *h)
{
    printf("hardware: %s: bf16 %.0f TFLOP/s dense, %.0f GiB HBM at %.2f TB/s, NVLink %.0f GB/s "
           "per direction, %d x %.0f Gb/s NIC%s per %d GPU%s\n",
           h->name, h->bf16_tflops, h->hbm_gib, h->hbm_tbps, h->nvlink_gbps, h->nics_per_node,
           h->nic_gbitps, h->nics_per_node == 1 ? "" : "s", h->gpus_per_node,
           h->gpus_per_node == 1 ? "" : "s");
}

static void print_step(const pb_model_t *m, const pb_layout_t *l, const env_t *e,
                       const pb_step_t *st)
{
    static const char *const kinds[] = {"TP", "CP", "DP", "PP", "EP", "EDP"};
    printf("model: %s: %llu layers, hidden %llu, %llu heads (%llu KV), ffn %llu, vocab %llu, "
           "seq %llu, %.2f B parameters\n",
           m->name, (unsigned long long)m->layers, (unsigned long long)m->hidden,
           (unsigned long long)m->heads, (unsigned long long)m->kv_heads,
           (unsigned long long)m->ffn, (unsigned long long)m->vocab, (unsigned long long)m->seq,
           (double)pb_model_params(m) / 1e9);
    uint64_t world = pb_layout_world(l);
    uint64_t nodes = (world + (uint64_t)e->hw.gpus_per_node - 1) / (uint64_t)e->hw.gpus_per_node;
    printf("layout: tp %d%s, pp %d, vp %d, dp %d, cp %d, ep %d on %llu GPU%s (%llu node%s of %d); "
           "mbs %llu, gbs %llu: %llu micro-batches; recompute %s%s%s%s\n",
           l->size[PB_DIM_TP], l->sp ? " (sp)" : "", l->size[PB_DIM_PP], l->vp,
           l->size[PB_DIM_DP],
           l->size[PB_DIM_CP], l->size[PB_DIM_EP], (unsigned long long)world,
           world == 1 ? "" : "s", (unsigned long long)nodes, nodes == 1 ? "" : "s",
           e->hw.gpus_per_node, (unsigned long long)m->mbs,
           (unsigned long long)(st->micro * m->mbs * (uint64_t)l->size[PB_DIM_DP]),
           (unsigned long long)st->micro, pb_recomp_name(e->step.recomp),
           e->step.flash ? ", flash attention" : "",
           e->step.zero3_copies ? ", FSDP2 copies" : "",
           e->step.grad_accum_fused ? "" : ", unfused gradient accumulation");
    pb_stages_t sg; /* said only when uneven */
    pb_stages_of(m, l->size[PB_DIM_PP], &sg);
    if (l->size[PB_DIM_PP] > 1 && (sg.first != sg.last || (l->size[PB_DIM_PP] > 2 && sg.first != sg.mid)))
        printf("stages: %llu layers on the first, %llu on each between, %llu on the last\n",
               (unsigned long long)sg.first, (unsigned long long)sg.mid,
               (unsigned long long)sg.last);
    print_hw(&e->hw);
    printf("compute rate: %.1f TFLOP/s per GPU (%s)\n", st->rate_tflops, e->rate_src);
    printf("collectives: %d operation kinds from the calibration, %d from the %s preset%s\n",
           st->ops_calibrated, st->ops_preset, e->hw.name,
           e->have_calib ? "" : " (no --calib)");
    if (st->ops_other_dtype)
        printf("collectives: %d operation kinds are reductions calibrated with another data "
               "type (theirs was not measured, or not at that size, or the file predates the "
               "dtype column: see README, Calibration)\n",
               st->ops_other_dtype);
    if (e->have_calib) {
        char note[512];
        pb_step_calib_note(st, e->hw.name, note, sizeof note);
        printf("%s\n", note);
    }
    printf("groups:");
    for (int k = 0; k < PB_GK_COUNT; k++) {
        int n = pb_layout_group_size(l, (pb_gkind_t)k);
        if (n <= 1)
            continue;
        printf(" %s %d %s", kinds[k], n, st->net[k] ? "across nodes" : "within a node");
        if (k == PB_GK_EP) /* the dispatcher its all-to-alls are costed as */
            printf(" (%s dispatcher)",
                   pb_ep_disp_name(pb_ep_disp_resolve(e->step.ep_disp, st->net[k])));
        printf(";");
    }
    printf("\n\n%-10s %12s %9s %16s\n", "part", "seconds", "% step", "before overlap");
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
           e->hw.bf16_tflops);
    printf("efficiency: TP %.1f %% (compute / (compute + exposed TP)), PP %.1f %% (work / "
           "(work + bubble + p2p)), DP %.1f %% (step without exposed DP / step)\n",
           100 * st->eff_tp, 100 * st->eff_pp, 100 * st->eff_dp);
    printf("memory per GPU: %.2f B parameters x %.2f B = %.2f GiB weights+grads+optimizer; "
           "activations %.2f GiB (%.2f micro-batches in flight) + %.2f GiB embedding/output; "
           "total %.2f GiB of %.1f GiB usable (%.0f GiB x %.2f): %s\n",
           st->mem.params / 1e9, st->mem.weights / st->mem.params, st->mem.weights / PB_GIB,
           st->mem.act_layers / PB_GIB, st->mem.inflight, st->mem.act_extra / PB_GIB,
           st->mem.total / PB_GIB, st->capacity / PB_GIB, e->hw.hbm_gib, PB_HBM_USABLE,
           st->fits ? "fits" : "DOES NOT FIT");
}

int pb_model_cmd(const pb_options_t *o, pb_err_t *err)
{
    if (o->predict.against) {
        pb_against_sum_t sum;
        return pb_against(o->predict.against, stdout, &sum, err);
    }
    env_t e;
    int code = env_init(&o->predict, &o->model.train, &e, err);
    if (code == PB_OK)
        code = env_rate(&o->predict, &e, err);
    pb_pattern_plan_t p;
    memset(&p, 0, sizeof p);
    if (code == PB_OK) {
        pb_model_opts_t mo = o->model;
        if (mo.sp && mo.layout[PB_DIM_TP] <= 1) {
            /* as Megatron: sequence parallelism without TP is switched off
             * with a warning, and the run goes on */
            fprintf(stderr, "parbench: warning: --sp needs --tp above 1; sequence parallelism "
                            "off\n");
            mo.sp = 0;
        }
        code = pb_pattern_plan(&mo, 0, o->predict.gpus, 0, &p, err);
    }
    pb_step_t st;
    if (code == PB_OK) {
        pb_cost_t cost = {&e.hw, e.have_calib ? &e.calib : NULL};
        code = pb_step_model(&p.model, &p.layout, &e.step, &cost, &st, err);
    }
    if (code == PB_OK)
        print_step(&p.model, &p.layout, &e, &st);
    pb_pattern_plan_free(&p);
    pb_calib_free(&e.calib);
    return code;
}

int pb_model_predict(const pb_model_t *m, const pb_layout_t *l, const pb_predict_opts_t *hw,
                     const pb_train_opts_t *train, double tflops, pb_step_t *out,
                     int *calibrated, pb_err_t *err)
{
    env_t e;
    int code = env_init(hw, train, &e, err);
    if (code == PB_OK) {
        e.step.compute_tflops = tflops;
        pb_cost_t cost = {&e.hw, e.have_calib ? &e.calib : NULL};
        code = pb_step_model(m, l, &e.step, &cost, out, err);
        *calibrated = e.have_calib;
    }
    pb_calib_free(&e.calib);
    return code;
}

int pb_plan_cmd(const pb_options_t *o, pb_err_t *err)
{
    env_t e;
    int code = env_init(&o->predict, &o->model.train, &e, err);
    if (code == PB_OK)
        code = env_rate(&o->predict, &e, err);
    pb_pattern_plan_t p;
    memset(&p, 0, sizeof p);
    pb_model_t m;
    if (code == PB_OK) {
        /* the model only (on a layout of one GPU): the layout is what the
         * search decides */
        pb_model_opts_t one = o->model;
        one.layout[PB_LAYOUT_DP] = 1;
        code = pb_pattern_plan(&one, 0, 1, 0, &p, err);
        m = p.model;
        pb_pattern_plan_free(&p);
    }
    if (code != PB_OK) {
        pb_calib_free(&e.calib);
        return code;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pb_cost_t cost = {&e.hw, e.have_calib ? &e.calib : NULL};
    pb_plan_cfg_t pc = {o->predict.gpus, e.step};
    pb_plan_result_t r;
    code = pb_plan(&m, &pc, &cost, &r, err);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (code == PB_OK) {
        printf("plan: %s (%.2f B parameters) on %d GPUs, %d per node; gbs %llu, seq %llu\n",
               m.name, (double)pb_model_params(&m) / 1e9, o->predict.gpus, e.hw.gpus_per_node,
               (unsigned long long)m.gbs, (unsigned long long)m.seq);
        print_hw(&e.hw);
        if (e.step.compute_tflops > 0)
            printf("compute rate %.1f TFLOP/s per GPU (%s); ", e.step.compute_tflops, e.rate_src);
        else
            printf("compute %s; ", e.rate_src);
        printf("collectives from %s\n", e.have_calib ? "the calibration where it covers them, else the preset"
                                        : "the preset");
        printf("searched %llu layouts in %.3f s: %llu break a constraint, %llu do not fit in "
               "%.0f GiB x %.2f, %zu ranked\n\n",
               (unsigned long long)r.considered, secs, (unsigned long long)r.invalid,
               (unsigned long long)r.oom, e.hw.hbm_gib, PB_HBM_USABLE, r.n);
        if (r.n == 0)
            code = pb_err_set(err, PB_EINPUT,
                              "no layout of %s fits %d GPUs of %.0f GiB (more GPUs, or a "
                              "smaller batch or sequence)",
                              m.name, o->predict.gpus, e.hw.hbm_gib);
        size_t top = r.n < (size_t)o->top ? r.n : (size_t)o->top;
        if (top)
            printf("%4s %9s %6s %6s %6s %8s  %-58s %s\n", "rank", "step_s", "MFU%", "bubbl%",
                   "memGiB", "tok/s/G", "layout", "why it loses to the one above");
        for (size_t i = 0; i < top; i++) {
            const pb_plan_entry_t *en = &r.e[i];
            char desc[160], why[256] = "fastest";
            pb_plan_describe(en, desc, sizeof desc);
            if (i > 0)
                pb_plan_reason(&r.e[i - 1], en, why, sizeof why);
            printf("%4zu %9.3f %6.1f %6.1f %6.1f %8.0f  %-58s %s\n", i + 1, en->st.total,
                   100 * en->st.mfu, 100 * en->st.bubble_frac, en->st.mem.total / PB_GIB,
                   en->st.tokens_per_s / o->predict.gpus, desc, why);
        }
    }
    pb_plan_free(&r);
    pb_calib_free(&e.calib);
    return code;
}
