/* pb_predict.h - a prediction from a command's options: the hardware
 * and the step settings (pb_job.h), the calibration (--calib), the compute
 * rate (--tflops, else the kernel model, its GEMM share fitted to
 * --gemm-csv), and the likely range of a step from the model's record on
 * published runs (model/pb_band.h).  Shared by model and plan (one layout,
 * every layout), step and the main job (pb_model_predict). */
#ifndef PB_PREDICT_H
#define PB_PREDICT_H

#include "../../model/pb_band.h"
#include "../../model/pb_calib.h"
#include "pb_band_runs.h"
#include "pb_job.h"

/* what model and plan share: the hardware and the step settings (model
 * and layout are each command's own), the calibration, the compute rate
 * and where it came from (for the printout) */
typedef struct pb_predict_env {
    pb_job_t job;
    pb_calib_t calib;
    int have_calib;
    char rate_src[256];
} pb_predict_env_t;

/* e from the hardware and training options, the calibration read when
 * --calib names one (the caller frees e->calib).  Then the rate. */
int pb_predict_env_init(const pb_predict_opts_t *h, const pb_train_opts_t *t, pb_predict_env_t *e,
                        pb_err_t *err);
int pb_predict_env_rate(const pb_predict_opts_t *h, pb_predict_env_t *e, pb_err_t *err);

/* "hardware: ..." for model and plan. */
void pb_print_hw(const pb_hw_t *h);

/* The likely range of a step: the model's record on runs like it
 * (pb_band.h), widened by the ends of its measured collectives. */
typedef struct pb_step_band {
    pb_band_t band;
    double lo_s, hi_s;         /* the step with the collectives at their ends */
    double likely_lo, likely_hi;
} pb_step_band_t;

/* The band of step st (of m, l, c) from the runs; with a calibration its
 * collectives are also put at both ends of their measured ranges. */
int pb_step_band(const pb_predict_env_t *e, const pb_band_run_t *runs, size_t nruns,
                 const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c,
                 const pb_step_t *st, pb_step_band_t *b, pb_err_t *err);

/* The model's prediction of one step of (m, l) on the hardware `hw`
 * names (--hw, --hw-set, --gpus-per-node), with its calibration (--calib)
 * and compute settings, and the training settings, at a given compute
 * rate (TFLOP/s per GPU; 0: the hardware's) - what `parbench step`
 * prints beside its measurement and the main job's reference step.
 * *calibrated tells whether the collectives came from a calibration. */
int pb_model_predict(const pb_model_t *m, const pb_layout_t *l, const pb_predict_opts_t *hw,
                     const pb_train_opts_t *train, double tflops, pb_step_t *out,
                     int *calibrated, pb_err_t *err);

#endif
