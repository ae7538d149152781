/* pb_against.h - `parbench model --against FILE`: the step model against
 * published training runs.  Each CSV row is one run (model shape, layout,
 * batch, recomputation, optimizer sharding, GPU type and count) and what
 * its source published: TFLOP/s per GPU, MFU, step time or tokens/s per
 * GPU, with the FLOPs convention the source counted (model/
 * published_runs.csv documents the columns).  Every run is predicted
 * with its GPU's preset and nothing else, and compared as step time. */
#ifndef PB_AGAINST_H
#define PB_AGAINST_H

#include <stdio.h>

#include "../../util/pb_err.h"
#include "pb_job.h"

typedef struct pb_against_sum {
    int runs;      /* rows read */
    int predicted; /* rows the model accepted */
    int within;    /* |error| <= 10 % */
    double mean_abs, max_abs; /* over the predicted rows, fractions */
} pb_against_sum_t;

/* One run of the file as the model saw it. */
typedef struct pb_against_run {
    const char *name, *source, *gpu;
    size_t line;
    double gpus;
    double published_s; /* the published figure as seconds per step */
    /* predicted: the job (model, layout, settings, GPU preset) and its
     * step; NULL when the model refused the row, `why` saying why */
    const pb_job_t *job;
    const pb_step_t *step;
    double predicted_s;
    const char *why;
} pb_against_run_t;

/* Called once per run; the pointers live for the call only. */
typedef int (*pb_against_fn)(void *arg, const pb_against_run_t *run, pb_err_t *err);

/* Reads the CSV of f (`path` names it in messages) and hands every run,
 * predicted with its GPU's preset, to fn.  PB_EINPUT naming the file and
 * line for a bad row. */
int pb_against_each(FILE *f, const char *path, pb_against_fn fn, void *arg, pb_err_t *err);

/* Reads `path`, prints one line per run and the summary to `out` (NULL:
 * nothing printed).  PB_EINPUT naming the file and line for a bad row. */
int pb_against(const char *path, FILE *out, pb_against_sum_t *sum, pb_err_t *err);

#endif
