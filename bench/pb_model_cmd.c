#include "pb_model_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_calib_csv.h"
#include "pb_meas_rows.h"

int pb_calibrate_files(const char *const *inputs, int ninputs, const char *output,
                       double fit_tol, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    size_t nrows = 0, npts = 0, skipped = 0;
    pb_meas_t *pts = NULL;
    if (pb_meas_read_files(inputs, ninputs, &rows, &nrows, err) != PB_OK)
        return err->code;
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
    printf("# parbench calibrate: %zu points, %zu rows skipped, %zu curves; a piece of 4+ "
           "sizes misses by at most %.1f %%\n",
           npts, skipped, k.n, 100.0 * fit_tol);
    printf("# time(bytes) = latency + bytes / bandwidth per piece; err = |fit/measured - 1|\n");
    printf("# reductions have a curve per data type; the other collectives one for any type\n");
    printf("# per_node: the group's ranks per node (? unknown); fits are non-decreasing in "
           "bytes\n");
    printf("%-14s %5s %-8s %-9s %5s %12s %12s %12s %12s %6s %8s %8s %8s\n", "collective", "n",
           "link", "dtype", "piece", "bytes_lo", "bytes_hi", "latency_us", "bw_GB/s", "points",
           "max_err%", "rms_err%", "per_node");
    size_t single = 0, loose = 0;
    for (size_t i = 0; i < k.n; i++) {
        const pb_curve_t *c = &k.c[i];
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
