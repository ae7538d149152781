#include "pb_calib_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_calib_file.h"

const char *pb_calib_dtype_label(const pb_curve_t *c)
{
    return c->any_dtype ? "any" : pb_dtype_name(c->dtype);
}

/* writing: the curves as reports/' plain rows, one per piece, which
 * reports/ writes (pb_calib_write) */
int pb_calib_csv_write(const char *path, const pb_calib_t *k, pb_err_t *err)
{
    size_t n = 0;
    for (size_t i = 0; i < k->n; i++)
        n += (size_t)k->c[i].npieces;
    pb_calib_row_t *rows = calloc(n + 1, sizeof *rows);
    if (rows == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory writing '%s'", path);
    pb_calib_row_t *r = rows;
    for (size_t i = 0; i < k->n; i++) {
        const pb_curve_t *c = &k->c[i];
        for (int p = 0; p < c->npieces; p++, r++) {
            const pb_piece_t *q = &c->p[p];
            snprintf(r->collective, sizeof r->collective, "%s", pb_coll_name(c->coll));
            r->group_size = c->n;
            snprintf(r->link_class, sizeof r->link_class, "%s", c->link);
            /* the reader's convention: "" is any type */
            snprintf(r->dtype, sizeof r->dtype, "%s", c->any_dtype ? "" : pb_calib_dtype_label(c));
            r->piece = p;
            r->bytes_lo = q->lo;
            r->bytes_hi = q->hi;
            r->latency_us = q->alpha_us;
            r->us_per_byte = q->beta_us_b;
            r->bandwidth_gbps = q->beta_us_b > 0 ? 1e-3 / q->beta_us_b : 0.0;
            r->points = q->npts;
            r->max_err_pct = 100.0 * q->max_err;
            r->rms_err_pct = 100.0 * q->rms_err;
            r->fit_error = q->rms_err;
            r->per_node = c->per_node;
            r->fit_tol_pct = 100.0 * c->tol;
        }
    }
    int rc = pb_calib_write(path, rows, n, err);
    free(rows);
    return rc;
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
        nc.per_node = row->per_node;
        nc.tol = row->fit_tol_pct / 100.0;
        size_t ll = strlen(row->link_class);
        memcpy(nc.link, row->link_class, ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        int rc = pb_calib_add(k, &nc, err);
        if (rc != PB_OK)
            return rc;
        cur = &k->c[k->n - 1];
    } else if (cur == NULL || cur->npieces != row->piece || cur->coll != coll ||
               cur->n != row->group_size || cur->per_node != row->per_node ||
               cur->any_dtype != any ||
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
                          "int32, int8, f8e4m3, f8e5m2, int64 or any)",
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
