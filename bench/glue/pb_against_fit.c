/* pb_against_fit.c - the presets' sustained share fitted on the runs
 * file's fit split (pb_against.h).  One pass over the file per grid point
 * predicts every row there; any subset's best share (all fit rows, or
 * all but one family's for the leave-one-family-out table) and any row's
 * error at it are then read off the table without predicting again. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_against.h"

double pb_fit_share(int k)
{
    return PB_FIT_LO + PB_FIT_STEP * k;
}

typedef struct pass {
    pb_fit_grid_t *g;
    int k;      /* the grid point of this pass */
    size_t row; /* the fit row seen next */
} pass_t;

static int take(void *arg, const pb_against_run_t *r, pb_err_t *err)
{
    pass_t *p = arg;
    pb_fit_grid_t *g = p->g;
    if (r->step == NULL || !(r->published_s > 0.0))
        return PB_OK; /* refused rows inform nothing */
    if (p->k == 0) {
        if (g->rows == g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 32;
            pb_fit_row_t *rows = realloc(g->r, cap * sizeof *rows);
            if (rows == NULL)
                return pb_err_set(err, PB_ERUNTIME, "out of memory for the fit");
            g->r = rows, g->cap = cap;
        }
        pb_fit_row_t *row = &g->r[g->rows++];
        snprintf(row->family, sizeof row->family, "%s", r->family);
        snprintf(row->chip, sizeof row->chip, "%s", r->job->hw.chip);
        row->split = r->split;
    }
    /* every pass predicts the same rows in the same order: the share
     * changes times, never which rows the model accepts */
    if (p->row >= g->rows)
        return pb_err_set(err, PB_ERUNTIME, "the fit's passes saw different rows");
    g->r[p->row++].lerr[p->k] = log(r->predicted_s / r->published_s);
    return PB_OK;
}

int pb_fit_grid(FILE *f, const char *path, pb_fit_grid_t *g, pb_err_t *err)
{
    memset(g, 0, sizeof *g);
    for (int k = 0; k < PB_FIT_POINTS; k++) {
        pb_against_opts_t o = {pb_fit_share(k)};
        pass_t p = {g, k, 0};
        rewind(f);
        int code = pb_against_each(f, path, &o, take, &p, err);
        if (code != PB_OK)
            return code;
    }
    return PB_OK;
}

void pb_fit_grid_free(pb_fit_grid_t *g)
{
    free(g->r);
    memset(g, 0, sizeof *g);
}

int pb_fit_best(const pb_fit_grid_t *g, const char *chip, const char *skip, double *mean_abs,
                int *used)
{
    int best = -1, n = 0;
    double best_v = INFINITY;
    for (int k = 0; k < PB_FIT_POINTS; k++) {
        double sum = 0.0;
        n = 0;
        for (const pb_fit_row_t *r = g->r; r < g->r + g->rows; r++)
            if (r->split == PB_SPLIT_FIT && (skip == NULL || strcmp(r->family, skip) != 0) &&
                (chip == NULL || strcmp(r->chip, chip) == 0))
                sum += fabs(r->lerr[k]), n++;
        if (n > 0 && sum / n < best_v - 1e-12)
            best_v = sum / n, best = k;
    }
    if (mean_abs)
        *mean_abs = best >= 0 ? best_v : 0.0;
    if (used)
        *used = n;
    return best;
}

int pb_fit_chip(const pb_fit_grid_t *g, const char *chip, const char *skip, int *own,
                double *mean_abs, int *used)
{
    int n, k = pb_fit_best(g, chip, skip, mean_abs, &n);
    if (k < 0)
        n = 0;
    *own = n >= PB_FIT_MIN_CHIP_RUNS;
    if (!*own)
        k = pb_fit_best(g, NULL, skip, mean_abs, NULL);
    if (used)
        *used = n;
    return k;
}
