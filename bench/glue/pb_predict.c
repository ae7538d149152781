/* What model, plan, step and the main job need to predict from their
 * options: the hardware and step settings, the calibration, the compute
 * rate (--tflops, or the kernel model fitted to --gemm-csv), and the
 * likely range of a step. */
#include "pb_predict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/pb_gemm_fit.h"
#include "pb_calib_csv.h"
#include "pb_meas_rows.h"

int pb_predict_env_init(const pb_predict_opts_t *h, const pb_train_opts_t *t, pb_predict_env_t *e,
                        pb_err_t *err)
{
    memset(e, 0, sizeof *e);
    pb_calib_init(&e->calib);
    if (pb_job_settings(h, t, &e->job, err) != PB_OK)
        return err->code;
    if (h->calib) {
        if (pb_calib_csv_read(h->calib, &e->calib, err))
            return err->code;
        e->have_calib = 1;
    }
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
int pb_predict_env_rate(const pb_predict_opts_t *h, pb_predict_env_t *e, pb_err_t *err)
{
    snprintf(e->rate_src, sizeof e->rate_src,
             "kernel by kernel: GEMM efficiency, attention, memory-bound kernels");
    if (h->tflops > 0) {
        e->job.step.compute_tflops = h->tflops;
        snprintf(e->rate_src, sizeof e->rate_src, "--tflops");
    } else if (h->gemm_csv) {
        pb_gemm_meas_t *rows;
        size_t n;
        if (gemm_rows(h->gemm_csv, &rows, &n, err) != PB_OK)
            return err->code;
        pb_gemm_fit_t fit;
        int code = pb_gemm_fit(&e->job.hw, rows, n, &fit, err);
        free(rows);
        if (code != PB_OK)
            return code;
        if (fit.used == 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s: every GEMM row is bound by HBM, none measures the GEMM rate "
                              "(measure larger shapes)",
                              h->gemm_csv);
        snprintf(e->rate_src, sizeof e->rate_src,
                 "kernel by kernel, the GEMM share fitted to %zu measured GEMM%s: %.3f of the "
                 "peak at the best shape (preset %.3f)%s",
                 fit.used, fit.used == 1 ? "" : "s", fit.gemm_eff, e->job.hw.gemm_eff,
                 fit.above ? "; some rows beat the model's best, taken as 1" : "");
        e->job.hw.gemm_eff = fit.gemm_eff;
    }
    return PB_OK;
}

void pb_print_hw(const pb_hw_t *h)
{
    /* the GPUs' own links are NVLink on NVIDIA, Infinity Fabric (xGMI) on AMD */
    printf("hardware: %s: bf16 %.0f TFLOP/s dense, %.0f GiB HBM at %.2f TB/s, %s %.0f GB/s "
           "per direction, %d x %.0f Gb/s NIC%s per %d GPU%s\n",
           h->name, h->bf16_tflops, h->hbm_gib, h->hbm_tbps, pb_hw_is_amd(h) ? "xGMI" : "NVLink",
           h->nvlink_gbps, h->nics_per_node,
           h->nic_gbitps, h->nics_per_node == 1 ? "" : "s", h->gpus_per_node,
           h->gpus_per_node == 1 ? "" : "s");
}

int pb_step_band(const pb_predict_env_t *e, const pb_band_run_t *runs, size_t nruns,
                 const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                 const pb_step_t *st, pb_step_band_t *b, pb_err_t *err)
{
    memset(b, 0, sizeof *b);
    if (pb_band_from_runs(runs, nruns, pb_band_mech(m, l, c), &b->band, err) != PB_OK)
        return err->code;
    b->lo_s = b->hi_s = st->total;
    if (e->have_calib) {
        /* the step again with every measured collective at the optimistic
         * and at the pessimistic end of its range */
        for (int bound = -1; bound <= 1; bound += 2) {
            pb_cost_t cost = {&e->job.hw, &e->calib, bound};
            pb_step_t sb;
            if (pb_step_model(m, l, c, &cost, &sb, err) != PB_OK)
                return err->code;
            b->lo_s = sb.total < b->lo_s ? sb.total : b->lo_s;
            b->hi_s = sb.total > b->hi_s ? sb.total : b->hi_s;
        }
    }
    pb_band_range(&b->band, b->lo_s, b->hi_s, &b->likely_lo, &b->likely_hi);
    return PB_OK;
}

int pb_model_predict(const pb_model_t *m, const pb_layout_t *l, const pb_predict_opts_t *hw,
                     const pb_train_opts_t *train, double tflops, pb_step_t *out,
                     int *calibrated, pb_err_t *err)
{
    pb_predict_env_t e;
    int code = pb_predict_env_init(hw, train, &e, err);
    if (code == PB_OK) {
        e.job.step.compute_tflops = tflops;
        e.job.model = *m;
        e.job.layout = *l;
        code = pb_job_predict(&e.job, e.have_calib ? &e.calib : NULL, 0, out, err);
        *calibrated = e.have_calib;
    }
    pb_calib_free(&e.calib);
    return code;
}
