#include "pb_calib_file.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csv_records.h"
#include "../util/pb_num.h"

double pb_calib_time_us(const pb_calib_row_t *c, uint64_t bytes)
{
    /* GB/s = 1e9 B/s = 1e3 B/us */
    /* bandwidth 0: a piece fitted to one size has no bytes term (the
     * model writes such pieces as latency only) */
    if (c->bandwidth_gbps == 0.0)
        return c->latency_us;
    return c->latency_us + (double)bytes / (c->bandwidth_gbps * 1e3);
}

int pb_calib_dtype_matches(const pb_calib_row_t *c, const char *dtype)
{
    return c->dtype[0] == '\0' || strcmp(c->dtype, dtype) == 0;
}

/* The required columns first, then the optional ones in the order of
 * their PB_CALIB_HAVE_* bits (bit k - C_DTYPE). */
enum { C_COLL, C_GSIZE, C_LINK, C_LO, C_HI, C_LAT,
       C_DTYPE, C_PIECE, C_UPB, C_BW, C_PTS, C_MAX, C_RMS, C_ERR, C_PN, C_TOL, C_N };
static const char *const col_names[C_N] = {
    "collective", "group_size", "link_class",  "bytes_lo", "bytes_hi",    "latency_us",
    "dtype",      "piece",      "us_per_byte", "bandwidth_gbps", "points", "max_err_pct",
    "rms_err_pct", "fit_error", "per_node",    "fit_tol_pct"};

#define HAVE(k) (1u << ((k) - C_DTYPE))

typedef struct reader {
    const char *path;
    int map[C_N]; /* field index of each column; -1: absent (optional ones) */
    int have_header;
    unsigned have; /* PB_CALIB_HAVE_* */
    size_t nheader;
    pb_calib_row_t *rows;
    size_t n, cap;
} reader_t;

static int bad(const reader_t *rd, size_t line, int k, const char *s, pb_err_t *err)
{
    return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is not a valid number: '%.40s'",
                      rd->path, line, col_names[k], s);
}

/* A finite number, not negative (every real column is a time, a rate or
 * an error). */
static int num(const reader_t *rd, size_t line, int k, const char *s, double *out,
               pb_err_t *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
        return bad(rd, line, k, s, err);
    if (v < 0.0)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' must not be negative: '%.40s'",
                          rd->path, line, col_names[k], s);
    *out = v;
    return PB_OK;
}

/* A whole number within 0 .. hi. */
static int u64_upto(const reader_t *rd, size_t line, int k, const char *s, uint64_t hi,
                    uint64_t *out, pb_err_t *err)
{
    if (pb_num_u64(s, 0, hi, out) != PB_NUM_OK)
        return bad(rd, line, k, s, err);
    return PB_OK;
}

static int u64(const reader_t *rd, size_t line, int k, const char *s, uint64_t *out,
               pb_err_t *err)
{
    return u64_upto(rd, line, k, s, UINT64_MAX, out, err);
}

/* A count (group size, piece, points): 0 .. 2^30. */
static int count(const reader_t *rd, size_t line, int k, const char *s, int *out, pb_err_t *err)
{
    uint64_t v = 0;
    int rc = u64_upto(rd, line, k, s, UINT64_C(1) << 30, &v, err);
    *out = rc == PB_OK ? (int)v : 0;
    return rc;
}

static int header(reader_t *rd, const pb_csv_rec_t *rec, pb_err_t *err)
{
    for (int k = 0; k < C_N; k++) {
        rd->map[k] = pb_csv_rec_find(rec, col_names[k]);
        if (rd->map[k] >= 0 && k >= C_DTYPE)
            rd->have |= HAVE(k);
        if (rd->map[k] < 0 && k < C_DTYPE)
            return pb_err_set(err, PB_EINPUT,
                              "%s: not a calibration file (expected the header written by "
                              "parbench calibrate -o; no column '%s')",
                              rd->path, col_names[k]);
    }
    if (rd->map[C_UPB] < 0 && rd->map[C_BW] < 0)
        return pb_err_set(err, PB_EINPUT,
                          "%s: not a calibration file (expected the header written by "
                          "parbench calibrate -o; no column 'us_per_byte' or 'bandwidth_gbps')",
                          rd->path);
    rd->have_header = 1;
    rd->nheader = rec->nfields;
    return PB_OK;
}

/* The numbers of one row; an absent optional column reads as "" and
 * leaves its value 0. */
static int numbers(const reader_t *rd, size_t line, const char *const *f, pb_calib_row_t *c,
                   pb_err_t *err)
{
    int rc = count(rd, line, C_GSIZE, f[C_GSIZE], &c->group_size, err);
    if (rc == PB_OK && c->group_size < 1)
        rc = bad(rd, line, C_GSIZE, f[C_GSIZE], err);
    if (rc == PB_OK)
        rc = u64(rd, line, C_LO, f[C_LO], &c->bytes_lo, err);
    if (rc == PB_OK)
        rc = u64(rd, line, C_HI, f[C_HI], &c->bytes_hi, err);
    if (rc == PB_OK)
        rc = num(rd, line, C_LAT, f[C_LAT], &c->latency_us, err);
    c->piece = -1;
    if (rc == PB_OK && rd->map[C_PIECE] >= 0)
        rc = count(rd, line, C_PIECE, f[C_PIECE], &c->piece, err);
    if (rc == PB_OK && rd->map[C_UPB] >= 0)
        rc = num(rd, line, C_UPB, f[C_UPB], &c->us_per_byte, err);
    if (rc == PB_OK && rd->map[C_BW] >= 0)
        rc = num(rd, line, C_BW, f[C_BW], &c->bandwidth_gbps, err);
    if (rc == PB_OK && rd->map[C_PTS] >= 0)
        rc = count(rd, line, C_PTS, f[C_PTS], &c->points, err);
    if (rc == PB_OK && rd->map[C_MAX] >= 0)
        rc = num(rd, line, C_MAX, f[C_MAX], &c->max_err_pct, err);
    if (rc == PB_OK && rd->map[C_RMS] >= 0)
        rc = num(rd, line, C_RMS, f[C_RMS], &c->rms_err_pct, err);
    if (rc == PB_OK && rd->map[C_ERR] >= 0)
        rc = num(rd, line, C_ERR, f[C_ERR], &c->fit_error, err);
    /* per_node: empty or 0 is unknown; fit_tol_pct: empty or 0 unknown */
    if (rc == PB_OK && rd->map[C_PN] >= 0 && f[C_PN][0] != '\0')
        rc = count(rd, line, C_PN, f[C_PN], &c->per_node, err);
    if (rc == PB_OK && rd->map[C_TOL] >= 0 && f[C_TOL][0] != '\0')
        rc = num(rd, line, C_TOL, f[C_TOL], &c->fit_tol_pct, err);
    if (rc != PB_OK)
        return rc;
    /* GB/s = 1e9 B/s = 1e3 B/us, so us/B = 1e-3 / (GB/s); 0 both ways for
     * a piece of one size (latency only) */
    if (rd->map[C_UPB] < 0)
        c->us_per_byte = c->bandwidth_gbps > 0.0 ? 1e-3 / c->bandwidth_gbps : 0.0;
    if (rd->map[C_BW] < 0)
        c->bandwidth_gbps = c->us_per_byte > 0.0 ? 1e-3 / c->us_per_byte : 0.0;
    if (rd->map[C_ERR] < 0)
        c->fit_error = c->rms_err_pct / 100.0;
    if (c->bytes_lo > c->bytes_hi)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bytes_lo %llu is above bytes_hi %llu",
                          rd->path, line, (unsigned long long)c->bytes_lo,
                          (unsigned long long)c->bytes_hi);
    return PB_OK;
}

static int on_record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    reader_t *rd = arg;
    if (!rd->have_header)
        return header(rd, rec, err);
    if (rec->nfields != rd->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, header has %zu", rd->path, line,
                          rec->nfields, rd->nheader);
    if (rd->n == rd->cap) {
        size_t nc = rd->cap ? rd->cap * 2 : 32;
        pb_calib_row_t *p = realloc(rd->rows, nc * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", rd->path);
        rd->rows = p;
        rd->cap = nc;
    }
    pb_calib_row_t *c = &rd->rows[rd->n];
    memset(c, 0, sizeof *c);
    c->line = line;
    const char *f[C_N];
    for (int k = 0; k < C_N; k++)
        f[k] = rd->map[k] >= 0 ? rec->field[rd->map[k]] : "";
    if (strlen(f[C_COLL]) >= sizeof c->collective || strlen(f[C_LINK]) >= sizeof c->link_class ||
        strlen(f[C_DTYPE]) >= sizeof c->dtype)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: a name longer than %d bytes", rd->path, line,
                          PB_RESULT_STR - 1);
    snprintf(c->collective, sizeof c->collective, "%s", f[C_COLL]);
    snprintf(c->link_class, sizeof c->link_class, "%s", f[C_LINK]);
    /* "any" is stored as empty: both mean every type */
    snprintf(c->dtype, sizeof c->dtype, "%s", strcmp(f[C_DTYPE], "any") == 0 ? "" : f[C_DTYPE]);
    int rc = numbers(rd, line, f, c, err);
    if (rc != PB_OK)
        return rc;
    rd->n++;
    return PB_OK;
}

int pb_calib_read_cols(const char *path, pb_calib_row_t **rows, size_t *nrows, unsigned *have,
                       pb_err_t *err)
{
    reader_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    *rows = NULL;
    *nrows = 0;
    int rc = pb_csv_parse_path(path, on_record, &rd, err);
    if (rc == PB_OK && !rd.have_header)
        rc = pb_err_set(err, PB_EINPUT, "%s: empty calibration file", path);
    if (rc != PB_OK) {
        free(rd.rows);
        return rc;
    }
    *rows = rd.rows;
    *nrows = rd.n;
    if (have)
        *have = rd.have;
    return PB_OK;
}

int pb_calib_read(const char *path, pb_calib_row_t **rows, size_t *nrows, pb_err_t *err)
{
    return pb_calib_read_cols(path, rows, nrows, NULL, err);
}

const char *pb_calib_missing(unsigned have, unsigned need)
{
    for (int k = C_DTYPE; k < C_N; k++)
        if ((need & HAVE(k)) && !(have & HAVE(k)))
            return col_names[k];
    return NULL;
}

int pb_calib_write(const char *path, const pb_calib_row_t *rows, size_t n, pb_err_t *err)
{
    /* calibrate's column order, the model's exact columns before the
     * report's rounded ones */
    static const int order[] = {C_COLL, C_GSIZE, C_LINK, C_DTYPE, C_PIECE, C_LO, C_HI, C_LAT,
                                C_UPB,  C_BW,    C_PTS,  C_MAX,   C_RMS,   C_ERR, C_PN, C_TOL};
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(errno));
    int bad = 0;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        bad |= fprintf(f, "%s%s", i ? "," : "", col_names[order[i]]) < 0;
    bad |= fputc('\n', f) == EOF;
    for (size_t i = 0; i < n && !bad; i++) {
        const pb_calib_row_t *c = &rows[i];
        const char *dt = c->dtype[0] ? c->dtype : "any";
        bad |= csv_fwrite(f, c->collective, strlen(c->collective)) != 0;
        bad |= fprintf(f, ",%d,", c->group_size) < 0;
        bad |= csv_fwrite(f, c->link_class, strlen(c->link_class)) != 0;
        bad |= fputc(',', f) == EOF;
        bad |= csv_fwrite(f, dt, strlen(dt)) != 0;
        bad |= fprintf(f, ",%d,%llu,%llu,%.17g,%.17g,%.6g,%d,%.3f,%.3f,%.5f,%d,%.6g\n",
                       c->piece, (unsigned long long)c->bytes_lo,
                       (unsigned long long)c->bytes_hi, c->latency_us, c->us_per_byte,
                       c->bandwidth_gbps, c->points, c->max_err_pct, c->rms_err_pct,
                       c->fit_error, c->per_node, c->fit_tol_pct) < 0;
    }
    if (fclose(f) != 0 || bad)
        return pb_err_set(err, PB_ERUNTIME, "writing CSV '%s' failed", path);
    return PB_OK;
}
