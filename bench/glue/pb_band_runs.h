/* pb_band_runs.h - the step model's record: its error on every published
 * run built into parbench (model/published_runs.csv, embedded at build
 * time), each with the mechanisms it used, for pb_band.h. */
#ifndef PB_BAND_RUNS_H
#define PB_BAND_RUNS_H

#include <stddef.h>

#include "../../model/pb_band.h"

/* The runs the model predicts (those it refuses carry no error), in
 * file order; *out is malloc'ed.  PB_ERUNTIME if the built-in file does
 * not read: a build error, never the user's input. */
int pb_band_runs(pb_band_run_t **out, size_t *n, pb_err_t *err);

/* The same runs, each with its source (the `family` column): a run of a
 * family is then judged by the others' record alone (pb_against). */
typedef struct pb_band_src {
    pb_band_run_t run;
    char family[64];
} pb_band_src_t;
int pb_band_runs_src(pb_band_src_t **out, size_t *n, pb_err_t *err);

/* The memory record: the model's memory error (predicted / measured - 1,
 * like with like) on every measured run of the built-in
 * model/memory_runs.csv, each with its mechanisms. */
int pb_band_mem_runs(pb_band_run_t **out, size_t *n, pb_err_t *err);

#endif
