/* pb_opt_common.h - what the command descriptors share beyond the
 * option groups (pb_cmd_table.h's pb_grp_*): each shared group's defaults
 * and its checks over the whole command line, and the setters and
 * refusal lines that several commands' own options name. */
#ifndef PB_OPT_COMMON_H
#define PB_OPT_COMMON_H

#include "pb_opt_set.h"

/* The line a command without -o prints (-o is each command's own). */
extern const char pb_o_elsewhere[];

/* The defaults of the running, measurement and model groups. */
void pb_run_defaults(pb_options_t *o);
void pb_meas_defaults(pb_options_t *o);
void pb_model_defaults(pb_options_t *o);

/* Checks after the whole argv.  run: a fault that only validate has;
 * meas: the sweep's lists and defaults, sizes and sample counts that
 * must agree (then run's); predict: compute settings that exclude each
 * other. */
int pb_run_finish(const pb_options_t *o, pb_err_t *err);
int pb_meas_finish(pb_options_t *o, pb_err_t *err);
int pb_predict_finish(const pb_options_t *o, pb_err_t *err);

/* -o NAME of any command: a name, never empty (the field is s->off). */
int pb_opt_output(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                  pb_err_t *err);

/* calibrate, model, plan and import: the line for --pattern and --dry-run. */
const char *pb_pure_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g);

/* report and compare take files: the threshold's default, and the line
 * for another command's option (rows_line for --csv and --json, the
 * option's own line if it has one, else generic_line). */
void pb_files_defaults(pb_options_t *o);
const char *pb_files_foreign(const pb_opt_spec_t *s, const char *rows_line,
                             const char *generic_line);

#endif
