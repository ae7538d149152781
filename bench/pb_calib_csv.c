#include "pb_calib_csv.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/pb_calib.h"

enum { C_COLL, C_N, C_LINK, C_DTYPE, C_PIECE, C_LO, C_HI, C_ALPHA, C_BETA, C_BW, C_PTS, C_MAX,
       C_RMS, C_FITERR, NCOLS };
static const char *const cols[NCOLS] = {
    "collective", "group_size", "link_class", "dtype", "piece", "bytes_lo", "bytes_hi",
    "latency_us", "us_per_byte", "bandwidth_gbps", "points", "max_err_pct", "rms_err_pct",
    /* the report's name for rms_err_pct / 100 (reports/pb_calib.h) */
    "fit_error"};

const char *pb_calib_dtype_label(const pb_curve_t *c)
{
    return c->any_dtype ? "any" : pb_dtype_name(c->dtype);
}

int pb_calib_csv_write(const char *path, const pb_calib_t *k, pb_err_t *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(errno));
    int bad = 0;
    for (int i = 0; i < NCOLS; i++)
        bad |= fprintf(f, "%s%s", i ? "," : "", cols[i]) < 0;
    bad |= fputc('\n', f) == EOF;
    for (size_t i = 0; i < k->n && !bad; i++) {
        const pb_curve_t *c = &k->c[i];
        const char *dt = pb_calib_dtype_label(c);
        for (int p = 0; p < c->npieces && !bad; p++) {
            const pb_piece_t *q = &c->p[p];
            const char *name = pb_coll_name(c->coll);
            bad |= csv_fwrite(f, name, strlen(name)) != 0;
            bad |= fprintf(f, ",%d,", c->n) < 0;
            bad |= csv_fwrite(f, c->link, strlen(c->link)) != 0;
            bad |= fputc(',', f) == EOF;
            bad |= csv_fwrite(f, dt, strlen(dt)) != 0;
            bad |= fprintf(f, ",%d,%llu,%llu,%.17g,%.17g,%.6g,%d,%.3f,%.3f,%.5f\n", p,
                           (unsigned long long)q->lo, (unsigned long long)q->hi, q->alpha_us,
                           q->beta_us_b, q->beta_us_b > 0 ? 1e-3 / q->beta_us_b : 0.0, q->npts,
                           100.0 * q->max_err, 100.0 * q->rms_err, q->rms_err) < 0;
        }
    }
    if (fclose(f) != 0 || bad)
        return pb_err_set(err, PB_ERUNTIME, "writing CSV '%s' failed", path);
    return PB_OK;
}

/* reading: reports/ reads the file (the one calib.csv reader); the model
 * wants the exact columns calibrate writes, and names it knows */
static const unsigned model_cols = PB_CALIB_HAVE_PIECE | PB_CALIB_HAVE_US_PER_BYTE |
                                   PB_CALIB_HAVE_POINTS | PB_CALIB_HAVE_MAX_ERR |
                                   PB_CALIB_HAVE_RMS_ERR;

/* The curve a row names: a new one for piece 0, else the last one, which
 * the row must continue. */
static int curve_for(const char *path, const pb_calib_row_t *row, pb_coll_t coll, int any,
                     pb_dtype_t dt, pb_calib_t *k, pb_curve_t **out, pb_err_t *err)
{
    pb_curve_t *cur = k->n ? &k->c[k->n - 1] : NULL;
    if (row->piece == 0) {
        pb_curve_t nc;
        memset(&nc, 0, sizeof nc);
        nc.coll = coll;
        nc.n = row->group_size;
        nc.any_dtype = any;
        nc.dtype = dt;
        size_t ll = strlen(row->link_class);
        memcpy(nc.link, row->link_class, ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        int rc = pb_calib_add(k, &nc, err);
        if (rc != PB_OK)
            return rc;
        cur = &k->c[k->n - 1];
    } else if (cur == NULL || cur->npieces != row->piece || cur->coll != coll ||
               cur->n != row->group_size || cur->any_dtype != any ||
               (!any && cur->dtype != dt)) {
        return pb_err_set(err, PB_EINPUT, "%s:%zu: piece %d does not follow piece %d of its curve",
                          path, row->line, row->piece, row->piece - 1);
    }
    *out = cur;
    return PB_OK;
}

static int add_row(const char *path, const pb_calib_row_t *row, pb_calib_t *k, pb_err_t *err)
{
    pb_coll_t coll;
    if (pb_calib_coll_parse(row->collective, &coll) != 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: unknown collective '%.40s'", path, row->line,
                          row->collective);
    int any = row->dtype[0] == '\0'; /* the reader stores "any" as empty */
    pb_dtype_t dt = PB_F32;
    if (!any && pb_dtype_parse(row->dtype, &dt) != 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: unknown dtype '%.40s' (float, bfloat16, half, double, "
                          "int32, int8, f8e4m3, f8e5m2 or any)",
                          path, row->line, row->dtype);
    if (row->group_size > 1000000000 || row->piece >= PB_CURVE_PIECES ||
        row->bytes_hi > UINT64_C(18000000000000000000))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: group size, piece or size range out of range",
                          path, row->line);
    pb_curve_t *cur;
    int rc = curve_for(path, row, coll, any, dt, k, &cur, err);
    if (rc != PB_OK)
        return rc;
    pb_piece_t *q = &cur->p[cur->npieces++];
    q->lo = row->bytes_lo;
    q->hi = row->bytes_hi;
    q->alpha_us = row->latency_us;
    q->beta_us_b = row->us_per_byte;
    q->npts = row->points;
    q->max_err = row->max_err_pct / 100.0;
    q->rms_err = row->rms_err_pct / 100.0;
    return PB_OK;
}

int pb_calib_csv_read(const char *path, pb_calib_t *k, pb_err_t *err)
{
    pb_calib_row_t *rows;
    size_t n;
    unsigned have;
    int rc = pb_calib_read_cols(path, &rows, &n, &have, err);
    if (rc != PB_OK)
        return rc;
    const char *missing = pb_calib_missing(have, model_cols);
    if (missing)
        rc = pb_err_set(err, PB_EINPUT,
                        "%s: not a calibration file (expected the header written by "
                        "parbench calibrate -o; no column '%s')",
                        path, missing);
    for (size_t i = 0; i < n && rc == PB_OK; i++)
        rc = add_row(path, &rows[i], k, err);
    free(rows);
    return rc;
}
