/* pb_against's report: a line per run with its likely range, the record
 * of all, fit and test runs apart, the leave-one-family-out table and the
 * ranking (pb_against_rank.c). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../model/pb_band.h"
#include "pb_against.h"
#include "pb_band_runs.h"

static const char *const split_name[PB_SPLIT_COUNT] = {"-", "fit", "test"};

/* what the table needs of a predicted run once the file is read */
typedef struct kept {
    char family[64];
    pb_split_t split;
    unsigned mech;
    double err; /* predicted / published - 1 */
    int banded, held; /* given a likely range; the range held the published step */
} kept_t;

typedef struct printer {
    FILE *out;
    pb_against_sum_t *sum;
    kept_t *k;
    pb_rank_run_t *rank; /* as k, for the ranking */
    size_t n, cap;
    /* the model's record on the built-in runs, each with its source, and
     * room for the part of it a run is judged by */
    pb_band_src_t *rec;
    pb_band_run_t *others;
    size_t nrec;
    const pb_fit_grid_t *grid; /* the fit split at every share */
    pb_mem_recs_t mem;         /* the rows with a measured memory */
    int any_mem;               /* the file has a memory column: print it */
    int rows;
    const char *path;
} printer_t;

static void acc_add(pb_against_acc_t *a, double er, int banded, int held)
{
    a->predicted++;
    a->banded += banded, a->held += held;
    a->within += fabs(er) <= 0.10 + 1e-12;
    a->mean_abs += fabs(er); /* sums until acc_end */
    a->mean += er;
    a->max_abs = fabs(er) > a->max_abs ? fabs(er) : a->max_abs;
}

static void acc_end(pb_against_acc_t *a)
{
    if (a->predicted > 0)
        a->mean_abs /= a->predicted, a->mean /= a->predicted;
}

static int keep(printer_t *p, const pb_against_run_t *r, double er, const int band[2],
                pb_err_t *err)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        kept_t *k = realloc(p->k, cap * sizeof *k);
        if (k != NULL)
            p->k = k;
        pb_rank_run_t *rk = k ? realloc(p->rank, cap * sizeof *rk) : NULL;
        if (rk == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the runs");
        p->rank = rk, p->cap = cap;
    }
    pb_rank_run_of(r, &p->rank[p->n]);
    kept_t *k = &p->k[p->n++];
    snprintf(k->family, sizeof k->family, "%s", r->family ? r->family : r->name);
    k->split = r->split;
    k->mech = pb_band_mech(&r->job->model, &r->job->layout, &r->job->step);
    k->err = er;
    k->banded = band[0], k->held = band[1];
    return PB_OK;
}

/* A run's likely range (pb_band.h): the band of the model's record on
 * every source but the run's own, around its prediction.  band[0]: it
 * has one; band[1]: it held the published step. */
static void likely(printer_t *p, const pb_against_run_t *r, double *lo, double *hi, int band[2])
{
    const char *fam = r->family ? r->family : r->name;
    size_t no = 0;
    for (size_t i = 0; i < p->nrec; i++)
        if (strcmp(p->rec[i].family, fam) != 0)
            p->others[no++] = p->rec[i].run;
    pb_band_t b;
    pb_err_t e;
    pb_err_clear(&e);
    band[0] = band[1] = 0;
    if (no == 0 || pb_band_from_runs(p->others, no,
                                     pb_band_mech(&r->job->model, &r->job->layout,
                                                  &r->job->step),
                                     &b, &e) != PB_OK)
        return;
    pb_band_range(&b, r->predicted_s, r->predicted_s, lo, hi);
    band[0] = 1;
    band[1] = r->published_s >= *lo * (1.0 - 1e-12) && r->published_s <= *hi * (1.0 + 1e-12);
}

/* the memory columns of a run's line: measured, predicted GiB and the
 * error, like with like ("-" where the row has none) */
static void mem_cols(const printer_t *p, const pb_against_run_t *r)
{
    if (!p->any_mem)
        return;
    if (r->mem_measured > 0.0 && r->step)
        fprintf(p->out, " %7.1f %7.1f %+7.1f%% %-9s", r->mem_measured / PB_GIB,
                r->mem_predicted / PB_GIB, 100.0 * (r->mem_predicted / r->mem_measured - 1.0),
                r->mem_kind);
    else if (r->mem_measured > 0.0)
        fprintf(p->out, " %7.1f %7s %8s %-9s", r->mem_measured / PB_GIB, "-", "-", r->mem_kind);
    else
        fprintf(p->out, " %7s %7s %8s %-9s", "-", "-", "-", "-");
}

/* The table's head, before the first run: with the memory columns when
 * the file has them (known once its header is read). */
static void print_head(printer_t *p, const pb_against_run_t *r)
{
    p->any_mem = r->memory_file;
    fprintf(p->out,
            "# parbench model --against %s: each run with its GPU's preset, no calibration; "
            "error = predicted / published step time - 1; likely range: the band of the "
            "model's error on the other sources' runs (pb_band.h) around the prediction%s\n"
            "%-30s %-4s %-5s %6s %10s %10s %8s %21s %-4s",
            p->path,
            p->any_mem ? "; memory: measured and predicted GiB per GPU, like with like "
                         "(allocated, reserved, smi), error = predicted / measured - 1"
                       : "",
            "run", "set", "gpu", "gpus", "published", "predicted", "error", "likely range",
            "held");
    if (p->any_mem)
        fprintf(p->out, " %7s %7s %8s %-9s", "mem", "memPred", "memErr", "kind");
    fprintf(p->out, "  source\n");
}

static int print_run(void *arg, const pb_against_run_t *r, pb_err_t *err)
{
    printer_t *p = arg;
    if (p->rows == 0 && p->out)
        print_head(p, r);
    const char *sp = split_name[r->split];
    int timed = r->published_s > 0.0;
    p->rows++;
    if (timed) {
        p->sum->all.runs++;
        p->sum->split[r->split].runs++;
    }
    if (r->step == NULL) {
        if (p->out) {
            fprintf(p->out, "%-30s %-4s %-5s %6.0f %10.3f %10s %8s %21s %-4s", r->name, sp,
                    r->gpu, r->gpus, r->published_s, "-", "-", "-", "-");
            mem_cols(p, r);
            fprintf(p->out, "  not predicted: %s\n", r->why);
        }
        return PB_OK;
    }
    if (pb_mem_recs_add(&p->mem, r, err) != PB_OK)
        return err->code;
    double er = timed ? r->predicted_s / r->published_s - 1.0 : 0.0, lo = 0.0, hi = 0.0;
    int band[2] = {0, 0};
    if (timed) {
        likely(p, r, &lo, &hi, band);
        acc_add(&p->sum->all, er, band[0], band[1]);
        acc_add(&p->sum->split[r->split], er, band[0], band[1]);
    }
    if (p->out) {
        char range[32] = "-";
        if (band[0])
            snprintf(range, sizeof range, "%.3f-%.3f", lo, hi);
        if (timed)
            fprintf(p->out, "%-30s %-4s %-5s %6.0f %10.3f %10.3f %+7.1f%% %21s %-4s", r->name,
                    sp, r->gpu, r->gpus, r->published_s, r->predicted_s, 100.0 * er, range,
                    !band[0] ? "-" : band[1] ? "yes" : "no");
        else
            fprintf(p->out, "%-30s %-4s %-5s %6.0f %10s %10.3f %8s %21s %-4s", r->name, sp,
                    r->gpu, r->gpus, "-", r->predicted_s, "-", "-", "-");
        mem_cols(p, r);
        fprintf(p->out, "  %s\n", r->source);
    }
    return timed ? keep(p, r, er, band, err) : PB_OK;
}

static void print_acc(FILE *out, const char *what, const pb_against_acc_t *a)
{
    if (a->runs == 0)
        return;
    fprintf(out,
            "summary (%s): %d runs, %d predicted, %d within +-10 %% (%.0f %% of them); mean "
            "absolute error %.1f %%, mean error %+.1f %%, max %.1f %%",
            what, a->runs, a->predicted, a->within, 100.0 * a->within / a->runs,
            100.0 * a->mean_abs, 100.0 * a->mean, 100.0 * a->max_abs);
    if (a->banded)
        fprintf(out, "; the likely range held %d of %d (%.0f %%)", a->held, a->banded,
                100.0 * a->held / a->banded);
    fputc('\n', out);
}

/* One family's runs against what the others say.  Nothing in the model
 * is fitted per family, so its errors stand as they are; what the other
 * families do inform is the uncertainty band (pb_band.h): each run's
 * likely range comes from the model's record on every other source
 * (likely()), and the table counts the runs whose published step falls
 * inside it. */
static void family_row(const printer_t *p, size_t first, int *in_band, int *banded)
{
    const char *fam = p->k[first].family;
    int fit = 0, test = 0, in = 0, have = 0;
    for (size_t i = first; i < p->n; i++) {
        const kept_t *k = &p->k[i];
        if (strcmp(k->family, fam) != 0)
            continue;
        fit += k->split == PB_SPLIT_FIT, test += k->split == PB_SPLIT_TEST;
        have += k->banded, in += k->held;
    }
    const char *sp = fit && test ? "both" : fit ? "fit" : test ? "test" : "-";
    /* each of its runs at the share the other families' fit runs give its
     * chip, refitted without it (a test family: the presets' share) */
    char refit[16] = "-";
    int within = 0, k0 = -2, runs = 0;
    double mean = 0.0, mean_abs = 0.0;
    for (const pb_fit_row_t *r = p->grid->r; r < p->grid->r + p->grid->rows; r++) {
        int own, k = strcmp(r->family, fam) == 0
                         ? pb_fit_chip(p->grid, r->chip, fam, &own, NULL, NULL)
                         : -1;
        if (k < 0)
            continue;
        k0 = k0 == -2 || k0 == k ? k : -1;
        double e = exp(r->lerr[k]) - 1.0;
        within += fabs(e) <= 0.10 + 1e-12;
        mean += e, mean_abs += fabs(e), runs++;
    }
    if (runs == 0) {
        /* no fit run anywhere to refit on (a file of test runs): its
         * errors at the presets' share, refit "-" */
        for (size_t i = first; i < p->n; i++) {
            const kept_t *k = &p->k[i];
            if (strcmp(k->family, fam) != 0)
                continue;
            within += fabs(k->err) <= 0.10 + 1e-12;
            mean += k->err, mean_abs += fabs(k->err), runs++;
        }
        k0 = -2;
    }
    if (runs == 0)
        return;
    if (k0 >= 0)
        snprintf(refit, sizeof refit, "%.2f", pb_fit_share(k0));
    else if (k0 == -1)
        snprintf(refit, sizeof refit, "chips");
    fprintf(p->out, "  %-28s %4d %-4s %7s %6d %+9.1f%% %8.1f%% %5d of %d\n", fam, runs, sp, refit,
            within, 100.0 * mean / runs, 100.0 * mean_abs / runs, in, have);
    *in_band += in, *banded += have;
}

static void print_families(const printer_t *p)
{
    if (p->n == 0)
        return;
    fprintf(p->out,
            "leave-one-family-out: each source's runs predicted without it - at the "
            "sustained share the other sources' fit runs give (refit), and against the band "
            "the model's record on the other sources gives (pb_band.h; the built-in "
            "model/published_runs.csv)\n"
            "  %-28s %4s %-4s %7s %6s %10s %9s %10s\n",
            "family", "runs", "set", "refit", "<=10%", "mean err", "mean |e|", "in band");
    int in_band = 0, banded = 0;
    for (size_t i = 0; i < p->n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(p->k[j].family, p->k[i].family) == 0;
        if (!seen)
            family_row(p, i, &in_band, &banded);
    }
    fprintf(p->out, "  the band from the other sources held %d of %d runs (%.0f %%; it aims at "
                    "about 4 in 5)\n",
            in_band, banded, banded ? 100.0 * in_band / banded : 0.0);
}

/* the fit split's share for each chip against the presets' */
static int fit(FILE *f, const char *path, printer_t *p, pb_fit_grid_t *g, pb_err_t *err)
{
    int code = pb_fit_grid(f, path, g, err);
    if (code != PB_OK)
        return code;
    p->grid = g;
    pb_against_sum_t *sum = p->sum;
    double all_abs;
    int all_used, all = pb_fit_best(g, NULL, NULL, &all_abs, &all_used);
    if (all < 0)
        return PB_OK;
    if (p->out)
        fprintf(p->out,
                "fit: the sustained share (pb_hw.h) of all %d fit runs: %.2f (least mean |ln "
                "error|, %.3f); a chip with %d or more fit runs gets its own\n",
                all_used, pb_fit_share(all), all_abs, PB_FIT_MIN_CHIP_RUNS);
    for (int i = 0; pb_hw_preset_name(i) && sum->nchips < 8; i++) {
        pb_hw_t hw;
        if (pb_hw_preset(pb_hw_preset_name(i), &hw, err) != PB_OK)
            return err->code;
        int seen = 0;
        for (int c = 0; c < sum->nchips && !seen; c++)
            seen = strcmp(sum->chip[c].chip, hw.chip) == 0;
        if (seen)
            continue;
        double mabs;
        int own, used, k = pb_fit_chip(g, hw.chip, NULL, &own, &mabs, &used);
        int c = sum->nchips++;
        snprintf(sum->chip[c].chip, sizeof sum->chip[c].chip, "%s", hw.chip);
        sum->chip[c].fit = pb_fit_share(k);
        sum->chip[c].preset = hw.sustained;
        sum->chip[c].rows = used;
        if (p->out)
            fprintf(p->out,
                    "fit: %s chips, %d fit runs: %.2f (%s, mean |ln error| %.3f); the "
                    "presets carry %.2f\n",
                    hw.chip, used, sum->chip[c].fit,
                    own ? "their own" : "all runs'", mabs,
                    hw.sustained);
    }
    return PB_OK;
}

int pb_against(const char *path, FILE *out, pb_against_sum_t *sum, pb_err_t *err)
{
    memset(sum, 0, sizeof *sum);
    printer_t p = {out, sum, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, {NULL, 0, 0}, 0, 0, path};
    pb_fit_grid_t g;
    memset(&g, 0, sizeof g);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read CSV '%s': %s", path, strerror(errno));
    int code = pb_band_runs_src(&p.rec, &p.nrec, err);
    if (code == PB_OK && (p.others = malloc((p.nrec ? p.nrec : 1) * sizeof *p.others)) == NULL)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for the published runs");
    if (code == PB_OK)
        code = pb_against_each(f, path, NULL, print_run, &p, err);
    if (code == PB_OK && p.rows == 0)
        code = pb_err_set(err, PB_EINPUT, "%s has no runs", path);
    acc_end(&sum->all);
    for (int i = 0; i < PB_SPLIT_COUNT; i++)
        acc_end(&sum->split[i]);
    if (code == PB_OK && out) {
        print_acc(out, "all", &sum->all);
        print_acc(out, "fit: runs that may inform a choice", &sum->split[PB_SPLIT_FIT]);
        print_acc(out, "test: runs nothing was chosen on", &sum->split[PB_SPLIT_TEST]);
    }
    if (code == PB_OK)
        code = pb_mem_recs_sum(&p.mem, out, sum, err);
    if (code == PB_OK)
        code = fit(f, path, &p, &g, err);
    if (code == PB_OK && out)
        print_families(&p);
    if (code == PB_OK)
        pb_rank_sum(p.rank, p.n, out, sum);
    fclose(f);
    pb_fit_grid_free(&g);
    free(p.k);
    free(p.rank);
    free(p.rec);
    free(p.others);
    pb_mem_recs_free(&p.mem);
    return code;
}
