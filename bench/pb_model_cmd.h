/* pb_model_cmd.h - parbench calibrate, model and plan: pure computations
 * over files and presets (no MPI, nothing launched), printed by the one
 * process that runs them. */
#ifndef PB_MODEL_CMD_H
#define PB_MODEL_CMD_H

#include "pb_options.h"

int pb_calibrate_cmd(const pb_options_t *o, pb_err_t *err);
int pb_model_cmd(const pb_options_t *o, pb_err_t *err);
int pb_plan_cmd(const pb_options_t *o, pb_err_t *err);

/* parbench calibrate's work: the rows of the results files fitted,
 * printed, and written to `output` (NULL: printed only); a piece of 4+
 * sizes may miss by at most fit_tol (a fraction).  The main job calls it
 * on its own results.csv. */
#define PB_FIT_TOL_DEFAULT 0.05 /* --fit-tol 5 */
int pb_calibrate_files(const char *const *inputs, int ninputs, const char *output,
                       double fit_tol, pb_err_t *err);

/* The model's prediction of one step of (m, l) on the hardware `hw`
 * names (--hw, --hw-set, --gpus-per-node), with its calibration (--calib)
 * and compute settings, and the training settings, at a given compute
 * rate (TFLOP/s per GPU; 0: the hardware's) - what `parbench step`
 * prints beside its measurement and the main job's reference step.
 * *calibrated tells whether the collectives came from a calibration. */
#include "../model/pb_step.h"
#include "pb_job.h"
int pb_model_predict(const pb_model_t *m, const pb_layout_t *l, const pb_predict_opts_t *hw,
                     const pb_train_opts_t *train, double tflops, pb_step_t *out,
                     int *calibrated, pb_err_t *err);


/* The job `parbench model` predicts from its options (flags, --model-
 * file, --hf-config, a merged --megatron-args, presets): what a row of an
 * --against file fills too (pb_against.c), and what the flags-vs-file
 * test compares with it. */
int pb_model_job(const pb_options_t *o, pb_job_t *j, pb_err_t *err);

#endif
