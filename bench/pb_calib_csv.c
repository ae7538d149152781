#include "pb_calib_csv.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/pb_csv_records.h"

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

/* reading: the shared record driver (reports/pb_csv_records.h), columns
 * by header name */
typedef struct rd {
    const char *path;
    pb_calib_t *k;
    int map[NCOLS]; /* field index of each column; -1: absent (dtype only) */
    size_t nheader;
    int header_seen;
} rd_t;

static int num(const rd_t *r, size_t line, const pb_csv_rec_t *rec, int i, double *out,
               pb_err_t *err)
{
    const char *s = r->map[i] >= 0 ? rec->field[r->map[i]] : "";
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno || !isfinite(x) || x < 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bad %s '%.40s'", r->path, line, cols[i], s);
    *out = x;
    return PB_OK;
}

static int header(rd_t *r, const pb_csv_rec_t *rec, pb_err_t *err)
{
    for (int i = 0; i < NCOLS; i++) {
        r->map[i] = pb_csv_rec_find(rec, cols[i]);
        /* dtype came later: without it every curve serves any type;
         * bandwidth_gbps and fit_error are for people and the report */
        int optional = i == C_DTYPE || i == C_BW || i == C_FITERR;
        if (r->map[i] < 0 && !optional)
            return pb_err_set(err, PB_EINPUT,
                              "%s: not a calibration file (expected the header written by "
                              "parbench calibrate -o; no column '%s')",
                              r->path, cols[i]);
    }
    r->nheader = rec->nfields;
    r->header_seen = 1;
    return PB_OK;
}

static int on_record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    rd_t *r = arg;
    if (!r->header_seen)
        return header(r, rec, err);
    if (rec->nfields != r->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, expected %zu", r->path, line,
                          rec->nfields, r->nheader);
    const char *cname = rec->field[r->map[C_COLL]];
    pb_coll_t coll;
    if (pb_calib_coll_parse(cname, &coll) != 0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: unknown collective '%.40s'", r->path, line,
                          cname);
    int any = 1;
    pb_dtype_t dt = PB_F32;
    const char *dname = r->map[C_DTYPE] >= 0 ? rec->field[r->map[C_DTYPE]] : "";
    if (dname[0] != '\0' && strcmp(dname, "any") != 0) {
        if (pb_dtype_parse(dname, &dt) != 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s:%zu: unknown dtype '%.40s' (float, bfloat16, half, double, "
                              "int32, int8, f8e4m3, f8e5m2 or any)",
                              r->path, line, dname);
        any = 0;
    }
    double v[NCOLS];
    static const int numeric[] = {C_N, C_PIECE, C_LO, C_HI, C_ALPHA, C_BETA, C_PTS, C_MAX, C_RMS};
    for (size_t i = 0; i < sizeof numeric / sizeof numeric[0]; i++)
        if (num(r, line, rec, numeric[i], &v[numeric[i]], err))
            return PB_EINPUT;
    if (v[C_N] < 1 || v[C_N] > 1e9 || v[C_PIECE] >= PB_CURVE_PIECES || v[C_LO] > v[C_HI] ||
        v[C_HI] > 1.8e19)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: group size, piece or size range out of range",
                          r->path, line);
    const char *link = rec->field[r->map[C_LINK]];
    pb_curve_t *cur = r->k->n ? &r->k->c[r->k->n - 1] : NULL;
    int piece = (int)v[C_PIECE];
    if (piece == 0) {
        pb_curve_t nc;
        memset(&nc, 0, sizeof nc);
        nc.coll = coll;
        nc.n = (int)v[C_N];
        nc.any_dtype = any;
        nc.dtype = dt;
        size_t ll = strlen(link);
        memcpy(nc.link, link, ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        int rc = pb_calib_add(r->k, &nc, err);
        if (rc != PB_OK)
            return rc;
        cur = &r->k->c[r->k->n - 1];
    } else if (cur == NULL || cur->npieces != piece || cur->coll != coll ||
               cur->n != (int)v[C_N] || cur->any_dtype != any || (!any && cur->dtype != dt)) {
        return pb_err_set(err, PB_EINPUT, "%s:%zu: piece %d does not follow piece %d of its curve",
                          r->path, line, piece, piece - 1);
    }
    pb_piece_t *q = &cur->p[cur->npieces++];
    q->lo = (uint64_t)v[C_LO];
    q->hi = (uint64_t)v[C_HI];
    q->alpha_us = v[C_ALPHA];
    q->beta_us_b = v[C_BETA];
    q->npts = (int)v[C_PTS];
    q->max_err = v[C_MAX] / 100.0;
    q->rms_err = v[C_RMS] / 100.0;
    return PB_OK;
}

int pb_calib_csv_read(const char *path, pb_calib_t *k, pb_err_t *err)
{
    rd_t r;
    memset(&r, 0, sizeof r);
    r.path = path, r.k = k;
    int rc = pb_csv_parse_path(path, on_record, &r, err);
    if (rc == PB_OK && !r.header_seen)
        rc = pb_err_set(err, PB_EINPUT, "%s: empty calibration file", path);
    return rc;
}
