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
    /* the likely range (pb_band.h) each predicted run gets from the
     * model's record on the other sources (the built-in
     * model/published_runs.csv less the run's family), and how many of
     * those ranges held the published step */
    int banded, held;
} pb_against_acc_t;

/* Ranking: the runs of one sweep (one source's runs of one model shape
 * and sequence, on one GPU type and count, in one stack) are
 * configurations a user chooses between, as `plan` does; a pair of them
 * is in the published order when the model's time per sequence puts
 * them the same way round.  Pairs published as equally fast carry no
 * order and are not counted. */
typedef struct pb_against_rank {
    int sweeps;   /* sweeps of two or more predicted runs */
    int pairs;    /* their pairs with a published order */
    int in_order; /* ... that the model puts the same way round */
} pb_against_rank_t;

/* The memory record of a set of runs (rows with mem_gib): error =
 * predicted / measured - 1, like with like. */
typedef struct pb_against_mem_acc {
    int runs;          /* rows with a measured memory that were predicted */
    int within;        /* |error| <= 15 % */
    double median;     /* median predicted / measured */
    double lo, hi;     /* smallest and largest predicted / measured */
    int banded, in_band; /* test rows: inside the band the fit rows' errors give */
} pb_against_mem_acc_t;

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
    pb_against_mem_acc_t mem_all, mem[PB_SPLIT_COUNT];
    /* a sweep whose runs all share a split counts in rank[split] too */
    pb_against_rank_t rank_all, rank[PB_SPLIT_COUNT];
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
    /* memory (the optional columns mem_gib and mem_kind): the measured
     * peak per GPU in bytes (0: none published), its kind, and the
     * prediction of the same kind (pb_against_mem_like) */
    double mem_measured;
    const char *mem_kind;
    double mem_predicted;
    int memory_file; /* the file has a mem_gib column */
} pb_against_run_t;

/* 0 allocated (torch.cuda.max_memory_allocated, Megatron's "max
 * allocated"), 1 reserved (max_memory_reserved, torchtitan's "memory:"),
 * 2 smi (nvidia-smi: the process's whole use), 3 report (a source's
 * figure of unsaid kind: compared as reserved); -1 none of these. */
int pb_against_mem_kind(const char *kind);
/* The predicted figure of that kind: allocated, reserved, or reserved +
 * the CUDA context + NCCL's buffers for smi. */
double pb_against_mem_like(const pb_step_t *st, const char *kind);

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

/* Memory rows as pb_against reads them (pb_against_mem.c): kept, then
 * summed up by split with the band's coverage of the test rows. */
typedef struct pb_mem_rec {
    pb_split_t split;
    unsigned mech;
    double err; /* predicted / measured - 1 */
} pb_mem_rec_t;
typedef struct pb_mem_recs {
    pb_mem_rec_t *r;
    size_t n, cap;
} pb_mem_recs_t;
int pb_mem_recs_add(pb_mem_recs_t *m, const pb_against_run_t *run, pb_err_t *err);
/* Fills sum's mem_all and mem[] and prints them (out may be NULL). */
int pb_mem_recs_sum(const pb_mem_recs_t *m, FILE *out, pb_against_sum_t *sum, pb_err_t *err);
void pb_mem_recs_free(pb_mem_recs_t *m);

/* A predicted run as the ranking sees it (pb_against_rank.c). */
typedef struct pb_rank_run {
    char sweep[256]; /* the sweep's key: runs with equal keys are compared */
    char name[64], family[64], gpu[16];
    double gpus;
    pb_split_t split;
    double published, predicted; /* seconds per sequence */
} pb_rank_run_t;
/* Fills r from a predicted run with a published time. */
void pb_rank_run_of(const pb_against_run_t *run, pb_rank_run_t *r);
/* Counts the pairs of every sweep among the n runs into sum's rank_all
 * and rank[], and prints a line per sweep and the summaries (out may be
 * NULL). */
void pb_rank_sum(const pb_rank_run_t *r, size_t n, FILE *out, pb_against_sum_t *sum);

/* Reads `path`, prints one line per run with its likely range, the
 * summaries of all, fit and test runs with the ranges' coverage, the
 * leave-one-family-out table and the ranking over the file's sweeps
 * (pb_against_print.c, pb_against_rank.c) to `out` (NULL: nothing
 * printed).  PB_EINPUT naming the file and line for a bad row. */
int pb_against(const char *path, FILE *out, pb_against_sum_t *sum, pb_err_t *err);

#endif
