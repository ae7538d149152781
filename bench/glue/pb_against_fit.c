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
            void *fam = realloc(g->family, cap * sizeof *g->family);
            if (fam)
                g->family = fam;
            void *chip = realloc(g->chip, cap * sizeof *g->chip);
            if (chip)
                g->chip = chip;
            void *split = realloc(g->split, cap * sizeof *g->split);
            if (split)
                g->split = split;
            void *le = realloc(g->lerr, cap * sizeof *g->lerr);
            if (le)
                g->lerr = le;
            if (fam == NULL || chip == NULL || split == NULL || le == NULL)
                return pb_err_set(err, PB_ERUNTIME, "out of memory for the fit");
            g->cap = cap;
        }
        snprintf(g->family[g->rows], sizeof g->family[0], "%s", r->family);
        snprintf(g->chip[g->rows], sizeof g->chip[0], "%s", r->job->hw.chip);
        g->split[g->rows] = r->split;
        g->rows++;
    }
    /* every pass predicts the same rows in the same order: the share
     * changes times, never which rows the model accepts */
    if (p->row >= g->rows)
        return pb_err_set(err, PB_ERUNTIME, "the fit's passes saw different rows");
    g->lerr[p->row++][p->k] = log(r->predicted_s / r->published_s);
    return PB_OK;
}

int pb_fit_grid(FILE *f, const char *path, pb_fit_grid_t *g, pb_err_t *err)
{
    memset(g, 0, sizeof *g);
    for (int k = 0; k < PB_FIT_POINTS; k++) {
        pb_against_opts_t o = {pb_fit_share(k), 0};
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
    free(g->family);
    free(g->chip);
    free(g->split);
    free(g->lerr);
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
        for (size_t i = 0; i < g->rows; i++)
            if (g->split[i] == PB_SPLIT_FIT &&
                (skip == NULL || strcmp(g->family[i], skip) != 0) &&
                (chip == NULL || strcmp(g->chip[i], chip) == 0))
                sum += fabs(g->lerr[i][k]), n++;
        if (n > 0 && sum / n < best_v - 1e-12)
            best_v = sum / n, best = k;
    }
    if (mean_abs)
        *mean_abs = best >= 0 ? best_v : 0.0;
    if (used)
        *used = n;
    return best;
}
