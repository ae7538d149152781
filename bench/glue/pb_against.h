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

/* A row's split (its `split` column): fit rows may inform a choice of
 * the model, test rows never do; NONE in a file without the column. */
typedef enum pb_split { PB_SPLIT_NONE, PB_SPLIT_FIT, PB_SPLIT_TEST, PB_SPLIT_COUNT } pb_split_t;

/* the record of a set of runs */
typedef struct pb_against_acc {
    int runs;      /* rows read */
    int predicted; /* rows the model accepted */
    int within;    /* |error| <= 10 % */
    double mean_abs, mean, max_abs; /* over the predicted rows, fractions */
} pb_against_acc_t;

typedef struct pb_against_sum {
    /* per chip (pb_hw.h): the sustained share its fit rows give
     * (pb_fit_best; 0 without any) and the one its presets carry */
    struct {
        char chip[16];
        double fit, preset;
        int rows;
    } chip[8];
    int nchips;
    pb_against_acc_t all;
    pb_against_acc_t split[PB_SPLIT_COUNT]; /* by split; [PB_SPLIT_NONE]: unsplit rows */
} pb_against_sum_t;

/* One run of the file as the model saw it. */
typedef struct pb_against_run {
    const char *name, *source, *gpu;
    pb_split_t split;
    const char *family;   /* the `family` column, or the name when absent */
    const char *inferred; /* the columns the row's author inferred, "" none */
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

/* How a pass over the file differs from the plain one (NULL: it does
 * not): the presets' sustained share replaced (> 0). */
typedef struct pb_against_opts {
    double sustained;
} pb_against_opts_t;

/* Reads the CSV of f (`path` names it in messages) and hands every run,
 * predicted with its GPU's preset, to fn.  PB_EINPUT naming the file and
 * line for a bad row. */
int pb_against_each(FILE *f, const char *path, const pb_against_opts_t *opts, pb_against_fn fn,
                    void *arg, pb_err_t *err);

/* The one constant of the model fitted to published runs: the presets'
 * sustained share (pb_hw.h), on the fit split alone.  Every row is
 * predicted at each share of a grid (PB_FIT_LO by PB_FIT_STEP, PB_FIT_POINTS
 * of them) once; the best share for any set of fit rows is then the grid
 * point of least mean |ln(predicted / published)|, and any row's error at
 * it is read off the grid (the leave-one-family-out table). */
#define PB_FIT_LO 0.50
#define PB_FIT_STEP 0.01
#define PB_FIT_POINTS 51
/* A chip with fewer fit runs than this takes the share of all fit runs:
 * a handful of runs of one or two models would fit their own errors. */
#define PB_FIT_MIN_CHIP_RUNS 20
typedef struct pb_fit_row {
    char family[64];
    char chip[16];    /* the row's GPU chip (pb_hw.h) */
    pb_split_t split; /* only fit rows inform a share; all are predicted */
    double lerr[PB_FIT_POINTS]; /* ln(predicted / published) at each share */
} pb_fit_row_t;
typedef struct pb_fit_grid {
    size_t rows, cap;
    pb_fit_row_t *r;
} pb_fit_grid_t;

/* f must be seekable: read once per grid point. */
int pb_fit_grid(FILE *f, const char *path, pb_fit_grid_t *g, pb_err_t *err);
void pb_fit_grid_free(pb_fit_grid_t *g);
/* The best grid index over the fit rows of chip `chip` (NULL: every
 * chip) not of family `skip` (NULL: none skipped); -1 when none is left.
 * *mean_abs: its mean |ln error|, *used: the rows. */
int pb_fit_best(const pb_fit_grid_t *g, const char *chip, const char *skip, double *mean_abs,
                int *used);
/* The share a chip gets, by the presets' rule: its own best when it has
 * PB_FIT_MIN_CHIP_RUNS fit rows or more (family `skip` left out), else
 * the best of all fit rows; -1 without any.  *own: which it was;
 * *mean_abs, *used as pb_fit_best's for the chip's own rows. */
int pb_fit_chip(const pb_fit_grid_t *g, const char *chip, const char *skip, int *own,
                double *mean_abs, int *used);
double pb_fit_share(int k); /* the share of grid index k */

/* Reads `path`, prints one line per run, the summaries of all, fit and
 * test runs, and the leave-one-family-out table (pb_against_print.c) to
 * `out` (NULL: nothing printed).  PB_EINPUT naming the file and line for
 * a bad row. */
int pb_against(const char *path, FILE *out, pb_against_sum_t *sum, pb_err_t *err);

#endif
