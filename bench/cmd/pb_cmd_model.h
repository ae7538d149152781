/* pb_cmd_model.h - parbench model: the step of one layout predicted from
 * the options, what plan shares of it, and the job it predicts. */
#ifndef PB_CMD_MODEL_H
#define PB_CMD_MODEL_H

#include "../cli/pb_cmd_table.h"
#include "../glue/pb_job.h"

/* The job `parbench model` predicts from its options (flags, --model-
 * file, --hf-config, a merged --megatron-args, presets): what a row of an
 * --against file fills too (pb_against.c), and what the flags-vs-file
 * test compares with it. */
int pb_model_job(const pb_options_t *o, pb_job_t *j, pb_err_t *err);

/* model's own group (--dtype, --against) and defaults, which plan takes
 * too */
extern const pb_opt_group_t pb_grp_model_own;
void pb_model_cmd_defaults(pb_options_t *o);

#endif
