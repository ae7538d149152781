/* pb_model_cmd.h - parbench calibrate, model and plan: pure computations
 * over files and presets (no MPI, nothing launched), printed by the one
 * process that runs them. */
#ifndef PB_MODEL_CMD_H
#define PB_MODEL_CMD_H

#include "pb_options.h"

int pb_calibrate_cmd(const pb_options_t *o, pb_err_t *err);
int pb_model_cmd(const pb_options_t *o, pb_err_t *err);
int pb_plan_cmd(const pb_options_t *o, pb_err_t *err);

/* The model's prediction of one step of (m, l) with the options' hardware
 * (--hw, --hw-set), calibration (--calib) and settings, at a given
 * compute rate (TFLOP/s per GPU) - what `parbench step` prints beside its
 * measurement.  *calibrated tells whether the collectives came from a
 * calibration. */
#include "../model/pb_step.h"
int pb_model_predict(const pb_options_t *o, const pb_model_t *m, const pb_layout_t *l,
                     double tflops, pb_step_t *out, int *calibrated, pb_err_t *err);

/* A large GEMM's share of the dense peak that the presets' achievable
 * fraction assumes (cuBLAS bf16 on A100 reaches about 250 of 312
 * TFLOP/s): measured GEMM rows set the compute rate to
 * measured x achievable / PB_GEMM_PEAK_SHARE, keeping the non-GEMM
 * share of a layer (attention, norms, element-wise) of the preset. */
#define PB_GEMM_PEAK_SHARE 0.80

#endif
