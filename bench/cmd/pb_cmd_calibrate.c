/* parbench calibrate: result rows fitted, per (collective, group size,
 * link class) and for reductions per data type, to piecewise latency +
 * bytes / bandwidth, printed and written as calib.csv.  No MPI. */
#include "pb_cmd_calibrate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_import_io.h"
#include "../glue/pb_calib_csv.h"
#include "../glue/pb_meas_rows.h"
#include "../cli/pb_opt_common.h"

/* The fit as a table, one line per piece, and what to make of its loose
 * pieces, one-size curves and GEMM rows. */
static void print_fit(const pb_calib_t *k, size_t npts, size_t skipped, double fit_tol,
                      size_t ngemm, double gemm)
{
    printf("# parbench calibrate: %zu points, %zu rows skipped, %zu curves; a piece of 4+ "
           "sizes misses by at most %.1f %%\n",
           npts, skipped, k->n, 100.0 * fit_tol);
    printf("# time(bytes) = latency + bytes / bandwidth per piece; err = |fit/measured - 1|\n");
    printf("# reductions have a curve per data type; the other collectives one for any type\n");
    printf("# per_node: the group's ranks per node (? unknown); fits are non-decreasing in "
           "bytes\n");
    printf("%-14s %5s %-8s %-9s %5s %12s %12s %12s %12s %6s %8s %8s %8s\n", "collective", "n",
           "link", "dtype", "piece", "bytes_lo", "bytes_hi", "latency_us", "bw_GB/s", "points",
           "max_err%", "rms_err%", "per_node");
    size_t single = 0, loose = 0;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        single += (size_t)pb_curve_single(c);
        char pn[16];
        if (c->per_node > 0)
            snprintf(pn, sizeof pn, "%d", c->per_node);
        else
            snprintf(pn, sizeof pn, "?");
        for (int p = 0; p < c->npieces; p++) {
            const pb_piece_t *q = &c->p[p];
            char bw[32];
            if (pb_curve_single(c))
                snprintf(bw, sizeof bw, "one-size"); /* no bandwidth from one size */
            else if (q->beta_us_b > 0)
                snprintf(bw, sizeof bw, "%.3f", 1e-3 / q->beta_us_b);
            else
                snprintf(bw, sizeof bw, "latency-only");
            int lz = pb_piece_loose(c, p);
            loose += (size_t)lz;
            printf("%-14s %5d %-8s %-9s %5d %12llu %12llu %12.3f %12s %6d %8.2f %8.2f %8s%s\n",
                   pb_coll_name(c->coll), c->n, c->link, pb_calib_dtype_label(c), p,
                   (unsigned long long)q->lo, (unsigned long long)q->hi, q->alpha_us, bw,
                   q->npts, 100 * q->max_err, 100 * q->rms_err, pn, lz ? "  loose" : "");
        }
    }
    if (loose)
        printf("# %zu piece%s marked loose miss%s the measured times by more than %.1f %%: the "
               "model uses %s only at %s own sizes (bytes_lo, bytes_hi), never between them\n",
               loose, loose == 1 ? "" : "s", loose == 1 ? "es" : "", 100.0 * fit_tol,
               loose == 1 ? "it" : "each", loose == 1 ? "its" : "their");
    if (single)
        printf("# %zu curve%s measured at one size only: no bandwidth from one size, so the "
               "model uses %s for that size alone, never for another\n",
               single, single == 1 ? "" : "s", single == 1 ? "it" : "each");
    if (ngemm)
        printf("# gemm rows: %zu, GEMM rate %.1f TFLOP/s (pass them to model/plan with "
               "--gemm-csv)\n",
               ngemm, gemm);
}

/* Rows whose placement nobody said (an OSU or IMB log imported without
 * --nodes or --per-node: link class PB_IMPORT_LINK_UNKNOWN) fit no curve:
 * a curve is within a node or across nodes, and taking them for either
 * would be a guess (a 16-node run fitted as one node's, issue 50). */
static int refuse_unplaced(const pb_result_t *rows, size_t n, pb_err_t *err)
{
    size_t k = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].link_class, PB_IMPORT_LINK_UNKNOWN) == 0 && k++ == 0)
            first = i;
    if (k == 0)
        return PB_OK;
    const pb_result_t *r = &rows[first];
    return pb_err_set(err, PB_EINPUT, "%zu rows (the first: %s, %s on %d processes) do not say "
                      "how their processes sat on nodes (link class '%s'): a curve within a "
                      "node or across nodes from them would be a guess; import the log again "
                      "with --nodes N or --per-node G", k, r->label[0] ? r->label : r->run_id,
                      r->collective, r->world, PB_IMPORT_LINK_UNKNOWN);
}

/* The curve of another type the model moves reduction curve d's type to
 * past d's sizes (pb_cost.h's order: the same element size first), of
 * d's key and reaching further than d; NULL when none. */
static const pb_curve_t *borrowed(const pb_calib_t *k, const pb_curve_t *d)
{
    const pb_curve_t *best = NULL;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        if (c == d || (!c->any_dtype && c->dtype == d->dtype) || c->coll != d->coll ||
            c->n != d->n || c->per_node != d->per_node || strcmp(c->link, d->link) != 0 ||
            (pb_curve_lo(c) >= pb_curve_lo(d) && pb_curve_hi(c) <= pb_curve_hi(d)))
            continue;
        int same = !c->any_dtype && pb_dtype_size(c->dtype) == pb_dtype_size(d->dtype);
        if (best == NULL || (same && pb_dtype_size(best->dtype) != pb_dtype_size(d->dtype)))
            best = c;
    }
    return best;
}

/* A reduction's type measured at fewer sizes than another's: past its own
 * sizes the model answers it with the other's curve times the ratio of
 * their times where both were measured (pb_calib_dtype_ratio); said here,
 * one line per such curve. */
static void print_ratios(const pb_calib_t *k)
{
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *d = &k->c[i];
        const pb_curve_t *c = pb_coll_reduces(d->coll) && !d->any_dtype ? borrowed(k, d) : NULL;
        uint64_t at = 0;
        double r = c ? pb_calib_dtype_ratio(k, c, d->dtype, pb_curve_lo(d), &at) : 1.0;
        if (at == 0)
            continue;
        char span[64];
        if (pb_curve_single(d))
            snprintf(span, sizeof span, "at %llu B only", (unsigned long long)pb_curve_lo(d));
        else
            snprintf(span, sizeof span, "from %llu to %llu B", (unsigned long long)pb_curve_lo(d),
                     (unsigned long long)pb_curve_hi(d));
        printf("# %s n=%d %s %s: measured %s; past that the model takes the %s curve x %.3f "
               "(%s's time over %s's at %llu B)\n",
               pb_coll_name(d->coll), d->n, d->link, pb_calib_dtype_label(d), span,
               pb_calib_dtype_label(c), r, pb_calib_dtype_label(d), pb_calib_dtype_label(c),
               (unsigned long long)at);
    }
}

int pb_calibrate_files(const char *const *inputs, int ninputs, const char *output,
                       double fit_tol, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    size_t nrows = 0, npts = 0, skipped = 0;
    pb_meas_t *pts = NULL;
    if (pb_meas_read_files(inputs, ninputs, &rows, &nrows, err) != PB_OK)
        return err->code;
    if (refuse_unplaced(rows, nrows, err) != PB_OK) {
        free(rows);
        return err->code;
    }
    int code = pb_meas_from_rows(rows, nrows, &pts, &npts, &skipped, err);
    size_t ngemm = 0;
    double gemm = pb_meas_gemm_tflops(rows, nrows, &ngemm);
    free(rows);
    if (code != PB_OK)
        return code;
    if (npts == 0) {
        free(pts);
        return pb_err_set(err, PB_EINPUT,
                          "no communication rows to fit in %s%s (%zu rows skipped)", inputs[0],
                          ninputs > 1 ? " ..." : "", skipped);
    }
    pb_calib_t k;
    pb_calib_init(&k);
    code = pb_calib_fit(pts, npts, fit_tol, &k, err);
    free(pts);
    if (code != PB_OK) {
        pb_calib_free(&k);
        return code;
    }
    print_fit(&k, npts, skipped, fit_tol, ngemm, gemm);
    print_ratios(&k);
    if (output) {
        code = pb_calib_csv_write(output, &k, err);
        if (code == PB_OK)
            printf("# written: %s\n", output);
    }
    pb_calib_free(&k);
    return code;
}

int pb_calibrate_cmd(const pb_options_t *o, pb_err_t *err)
{
    const pb_calibrate_opts_t *c = &o->calibrate;
    return pb_calibrate_files(c->inputs, c->ninputs, c->output, c->fit_tol, err);
}

/* ---- the command: its options and table row ----------------------- */

/* calibrate, model and plan are arithmetic over files and presets: under
 * a launcher only rank 0 prints */
static int calibrate_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    return rank0 ? pb_calibrate_cmd(o, err) : PB_OK;
}

static const pb_opt_spec_t calibrate_specs[] = {
    {"output", 'o', "FILE", pb_opt_output, PB_OFF(calibrate.output), 0,
     "write the pieces as CSV (for --calib of model and plan)", "@file", pb_o_elsewhere},
    {"fit-tol", 0, "P", pb_opt_percent, PB_OFF(calibrate.fit_tol), 0,
     "a piece of 4+ sizes may miss by at most P percent\n(default 5)", NULL, NULL},
};
static const pb_opt_group_t calibrate_group = PB_GROUP("", calibrate_specs, NULL);

static void calibrate_defaults(pb_options_t *o)
{
    o->calibrate.fit_tol = 0.05; /* PB_FIT_TOL_DEFAULT */
}

static int calibrate_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->calibrate.ninputs == 0)
        return pb_err_set(err, PB_EINPUT, "parbench calibrate needs at least one results CSV");
    return PB_OK;
}

const pb_cmd_desc_t pb_cmd_calibrate = {
    PB_CMD_CALIBRATE, "calibrate", "fit collective times from results CSV (parbench calibrate --help)",
    "usage: parbench calibrate RESULTS.csv [MORE.csv ...] [-o calib.csv] [--fit-tol P]\n"
    "\n"
    "Fits, for every (collective, group size, link class) in the rows, and for\n"
    "reductions (allreduce, reducescatter) every data type too, time(bytes)\n"
    "piecewise by size range, each piece latency + bytes / bandwidth, and prints\n"
    "each piece with its worst and rms relative error.  A size measured several\n"
    "times (modes, runs; types, except for reductions) keeps its fastest median.\n"
    "Runs no MPI.\n",
    {{&calibrate_group, NULL}, {&pb_grp_help, NULL}},
    "", PB_MAX_INPUTS, calibrate_defaults, calibrate_finish, pb_pure_foreign, calibrate_alone,
    NULL, 0, NULL};
