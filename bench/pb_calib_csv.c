#include "pb_calib_csv.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cols[] = {"collective", "group_size", "link_class", "piece",
                                   "bytes_lo", "bytes_hi", "latency_us", "us_per_byte",
                                   "bandwidth_gbps", "points", "max_err_pct", "rms_err_pct",
                                   /* the report's name for rms_err_pct / 100 (reports/pb_calib.h) */
                                   "fit_error"};
#define NCOLS ((int)(sizeof cols / sizeof cols[0]))

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
        for (int p = 0; p < c->npieces && !bad; p++) {
            const pb_piece_t *q = &c->p[p];
            const char *name = pb_pat_coll_name(c->coll);
            bad |= csv_fwrite(f, name, strlen(name)) != 0;
            bad |= fprintf(f, ",%d,", c->n) < 0;
            bad |= csv_fwrite(f, c->link, strlen(c->link)) != 0;
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

/* reading: libcsv calls back per field and per record */
typedef struct rd {
    const char *path;
    pb_calib_t *k;
    pb_err_t *err;
    int rc;
    size_t line;
    char field[NCOLS][64];
    int nf;
    int header_seen;
} rd_t;

static void on_field(void *s, size_t len, void *data)
{
    rd_t *r = data;
    if (r->rc)
        return;
    /* extra or over-long fields are counted, and refused per record */
    if (r->nf < NCOLS) {
        size_t n = len < sizeof r->field[0] - 1 ? len : sizeof r->field[0] - 1;
        memcpy(r->field[r->nf], s, n);
        r->field[r->nf][n] = '\0';
    }
    r->nf++;
}

static int num(rd_t *r, int i, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(r->field[i], &end);
    if (r->field[i][0] == '\0' || *end != '\0' || errno || !isfinite(x) || x < 0)
        return pb_err_set(r->err, PB_EINPUT, "%s:%zu: bad %s '%s'", r->path, r->line, cols[i],
                          r->field[i]);
    *out = x;
    return PB_OK;
}

static void on_record(int c, void *data)
{
    (void)c;
    rd_t *r = data;
    int nf = r->nf;
    r->nf = 0;
    if (r->rc)
        return;
    if (!r->header_seen) {
        for (int i = 0; i < NCOLS; i++)
            if (nf != NCOLS || strcmp(r->field[i], cols[i]) != 0) {
                r->rc = pb_err_set(r->err, PB_EINPUT,
                                   "%s: not a calibration file (expected the header written by "
                                   "parbench calibrate -o)",
                                   r->path);
                return;
            }
        r->header_seen = 1;
        return;
    }
    if (nf != NCOLS) {
        r->rc = pb_err_set(r->err, PB_EINPUT, "%s:%zu: %d fields, expected %d", r->path, r->line,
                           nf, NCOLS);
        return;
    }
    pb_pat_coll_t coll = PB_PAT_ALLREDUCE;
    int found = 0;
    for (int i = PB_PAT_ALLREDUCE; i <= PB_PAT_SENDRECV; i++)
        if (strcmp(r->field[0], pb_pat_coll_name((pb_pat_coll_t)i)) == 0)
            coll = (pb_pat_coll_t)i, found = 1;
    if (!found) {
        r->rc = pb_err_set(r->err, PB_EINPUT, "%s:%zu: unknown collective '%s'", r->path,
                           r->line, r->field[0]);
        return;
    }
    double v[NCOLS];
    for (int i = 1; i < NCOLS; i++)
        if (i != 2 && num(r, i, &v[i])) {
            r->rc = PB_EINPUT;
            return;
        }
    if (v[1] < 1 || v[1] > 1e9 || v[3] >= PB_CURVE_PIECES || v[4] > v[5]) {
        r->rc = pb_err_set(r->err, PB_EINPUT, "%s:%zu: group size, piece or size range out of range",
                           r->path, r->line);
        return;
    }
    pb_curve_t *cur = r->k->n ? &r->k->c[r->k->n - 1] : NULL;
    int piece = (int)v[3];
    if (piece == 0) {
        pb_curve_t nc;
        memset(&nc, 0, sizeof nc);
        nc.coll = coll;
        nc.n = (int)v[1];
        size_t ll = strlen(r->field[2]);
        memcpy(nc.link, r->field[2], ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        if ((r->rc = pb_calib_add(r->k, &nc, r->err)) != PB_OK)
            return;
        cur = &r->k->c[r->k->n - 1];
    } else if (cur == NULL || cur->npieces != piece || cur->coll != coll || cur->n != (int)v[1]) {
        r->rc = pb_err_set(r->err, PB_EINPUT, "%s:%zu: piece %d does not follow piece %d of its curve",
                           r->path, r->line, piece, piece - 1);
        return;
    }
    pb_piece_t *q = &cur->p[cur->npieces++];
    q->lo = (uint64_t)v[4];
    q->hi = (uint64_t)v[5];
    q->alpha_us = v[6];
    q->beta_us_b = v[7];
    q->npts = (int)v[9];
    q->max_err = v[10] / 100.0;
    q->rms_err = v[11] / 100.0;
}

int pb_calib_csv_read(const char *path, pb_calib_t *k, pb_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read calibration '%s': %s", path,
                          strerror(errno));
    rd_t *r = calloc(1, sizeof *r);
    struct csv_parser p;
    if (r == NULL || csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
        free(r);
        fclose(f);
        return pb_err_set(err, PB_ERUNTIME, "cannot initialise libcsv");
    }
    r->path = path, r->k = k, r->err = err, r->line = 1;
    char line[4096];
    while (r->rc == PB_OK && fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (csv_parse(&p, line, n, on_field, on_record, r) != n && r->rc == PB_OK)
            r->rc = pb_err_set(err, PB_EINPUT, "%s:%zu: malformed CSV", path, r->line);
        r->line++;
    }
    if (r->rc == PB_OK && csv_fini(&p, on_field, on_record, r) != 0 && r->rc == PB_OK)
        r->rc = pb_err_set(err, PB_EINPUT, "%s: file ends inside a quoted field", path);
    if (r->rc == PB_OK && !r->header_seen)
        r->rc = pb_err_set(err, PB_EINPUT, "%s: empty calibration file", path);
    csv_free(&p);
    fclose(f);
    int rc = r->rc;
    free(r);
    return rc;
}
