/* pb_job.h - one prediction's inputs, whoever said them: the model, its
 * layout, the training settings and the hardware.
 *
 * Flags, --model-file, --hf-config and --megatron-args (merged into the
 * options before a command runs) fill it through pb_job_settings and
 * pb_pattern_plan; a row of an --against file fills the same struct
 * (pb_against.c).  Both start from pb_job_defaults and predict with
 * pb_job_predict, so a run typed as flags and the same run as a row give
 * one number (tests/unit/test_model_flags.c checks every published run). */
#ifndef PB_JOB_H
#define PB_JOB_H

#include "../../model/pb_calib.h"
#include "../../model/pb_hw.h"
#include "../../model/pb_step.h"
#include "../cli/pb_options.h"

typedef struct pb_job {
    pb_model_t model;
    pb_layout_t layout;
    pb_step_cfg_t step;
    pb_hw_t hw;
} pb_job_t;

/* What current training stacks run unless told otherwise (Megatron-Core
 * with Transformer Engine, NeMo, torchtitan): a fused attention kernel
 * (flash) that skips the masked half of a decoder's causal scores, and
 * Megatron's overlaps (pb_step_cfg_default).  The hardware is left for
 * the caller's preset. */
void pb_job_defaults(pb_job_t *j);

/* The hardware (--hw, --hw-set, --gpus-per-node) and the step settings
 * of the options, over pb_job_defaults.  Leaves model and layout. */
int pb_job_settings(const pb_predict_opts_t *h, const pb_train_opts_t *t, pb_job_t *j,
                    pb_err_t *err);

/* One stack setting by name, as a flag or an --against column gives it
 * (pb_job_set.c): framework (megatron, nemo, deepspeed, fsdp,
 * torchtitan: sets that stack's defaults, so give it first), dtype (the
 * GEMMs: bf16, fp16, fp8), tp_overlap (0..1, on, off), recompute (none,
 * selective, full, op, layer:N).  PB_EINPUT, one line naming the key and
 * what it takes, for a bad value or an unknown key. */
int pb_job_set(pb_job_t *j, const char *key, const char *value, pb_err_t *err);

/* A node of `gpus` GPUs (--gpus-per-node, a runs file's gpus_per_node):
 * the NICs scaled to it (pb_hw_set_gpus_per_node) unless the user named
 * their count (nics_named), which stands. */
void pb_job_gpus_per_node(pb_hw_t *hw, int gpus, int nics_named);

/* The step of j with the calibration (NULL: the preset alone); bound is
 * pb_cost_t's: 0 the central answer, -1 and +1 the optimistic and the
 * pessimistic end of what each measured or transferred collective may
 * take. */
int pb_job_predict(const pb_job_t *j, const pb_calib_t *calib, int bound, pb_step_t *out,
                   pb_err_t *err);

#endif
