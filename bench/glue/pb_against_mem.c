/* pb_against_mem.c - the memory half of `model --against`: the model's
 * per-GPU memory against the measured peaks of a file's rows (mem_gib,
 * mem_kind), by split, and the memory band (pb_band.h, built from the fit
 * rows' errors alone) tried on the test rows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/pb_band.h"
#include "../../util/pb_grow.h"
#include "pb_against.h"

int pb_mem_recs_add(pb_mem_recs_t *m, const pb_against_run_t *run, pb_err_t *err)
{
    if (run->step == NULL || !(run->mem_measured > 0.0))
        return PB_OK;
    void *arr = m->r;
    if (pb_grow(&arr, &m->cap, m->n + 1, sizeof *m->r, 64) != 0)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the memory runs");
    m->r = arr;
    pb_mem_rec_t *r = &m->r[m->n++];
    r->split = run->split;
    r->mech = pb_band_mech(&run->job->model, &run->job->layout, &run->job->step);
    r->err = run->mem_predicted / run->mem_measured - 1.0;
    return PB_OK;
}

void pb_mem_recs_free(pb_mem_recs_t *m)
{
    free(m->r);
    memset(m, 0, sizeof *m);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* runs, within 15 %, the median, smallest and largest ratio of the rows
 * of split `sp` (PB_SPLIT_COUNT: all); ratios is scratch of m->n */
static void acc(const pb_mem_recs_t *m, int sp, double *ratios, pb_against_mem_acc_t *a)
{
    memset(a, 0, sizeof *a);
    for (size_t i = 0; i < m->n; i++) {
        if (sp != PB_SPLIT_COUNT && (int)m->r[i].split != sp)
            continue;
        ratios[a->runs++] = 1.0 + m->r[i].err;
        a->within += fabs(m->r[i].err) <= 0.15 + 1e-12;
    }
    if (a->runs == 0)
        return;
    qsort(ratios, (size_t)a->runs, sizeof *ratios, cmp_double);
    int n = a->runs;
    a->median = n % 2 ? ratios[n / 2] : 0.5 * (ratios[n / 2 - 1] + ratios[n / 2]);
    a->lo = ratios[0], a->hi = ratios[n - 1];
}

/* the test rows against the band the fit rows' errors give each */
static int coverage(const pb_mem_recs_t *m, pb_against_mem_acc_t *a, pb_err_t *err)
{
    pb_band_run_t *fit = malloc((m->n ? m->n : 1) * sizeof *fit);
    if (fit == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the memory band");
    size_t nf = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->r[i].split == PB_SPLIT_FIT)
            fit[nf].mech = m->r[i].mech, fit[nf++].err = m->r[i].err;
    for (size_t i = 0; i < m->n && nf > 0; i++) {
        if (m->r[i].split != PB_SPLIT_TEST)
            continue;
        pb_band_t b;
        pb_err_t e;
        pb_err_clear(&e);
        if (pb_band_from_runs(fit, nf, m->r[i].mech, &b, &e) != PB_OK)
            continue;
        a->banded++;
        a->in_band += m->r[i].err >= b.err_lo - 1e-12 && m->r[i].err <= b.err_hi + 1e-12;
    }
    free(fit);
    return PB_OK;
}

static void print_mem_acc(FILE *out, const char *what, const pb_against_mem_acc_t *a)
{
    if (a->runs == 0)
        return;
    fprintf(out,
            "memory (%s): %d runs, %d within +-15 %% (%.0f %%); predicted / measured: median "
            "%.3f, %.2f to %.2f\n",
            what, a->runs, a->within, 100.0 * a->within / a->runs, a->median, a->lo, a->hi);
}

int pb_mem_recs_sum(const pb_mem_recs_t *m, FILE *out, pb_against_sum_t *sum, pb_err_t *err)
{
    if (m->n == 0)
        return PB_OK;
    double *ratios = malloc(m->n * sizeof *ratios);
    if (ratios == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the memory summary");
    acc(m, PB_SPLIT_COUNT, ratios, &sum->mem_all);
    for (int sp = 0; sp < PB_SPLIT_COUNT; sp++)
        acc(m, sp, ratios, &sum->mem[sp]);
    free(ratios);
    if (coverage(m, &sum->mem[PB_SPLIT_TEST], err) != PB_OK)
        return err->code;
    if (out == NULL)
        return PB_OK;
    print_mem_acc(out, "all", &sum->mem_all);
    print_mem_acc(out, "fit", &sum->mem[PB_SPLIT_FIT]);
    print_mem_acc(out, "test", &sum->mem[PB_SPLIT_TEST]);
    const pb_against_mem_acc_t *t = &sum->mem[PB_SPLIT_TEST];
    if (t->banded)
        fprintf(out, "memory band: the band the fit runs' errors give held %d of %d test runs "
                     "(%.0f %%; it aims at about 4 in 5)\n",
                t->in_band, t->banded, 100.0 * t->in_band / t->banded);
    return PB_OK;
}
