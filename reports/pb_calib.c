#include "pb_calib.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csv_records.h"

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

/* C_DTYPE, last, is optional: files written before it have none */
enum { C_COLL, C_GSIZE, C_LINK, C_LO, C_HI, C_LAT, C_BW, C_ERR, C_DTYPE, C_N };
static const char *const col_names[C_N] = {"collective", "group_size", "link_class",
                                           "bytes_lo",   "bytes_hi",   "latency_us",
                                           "bandwidth_gbps", "fit_error", "dtype"};

typedef struct reader {
    const char *path;
    int map[C_N];
    int have_header;
    size_t nheader;
    pb_calib_row_t *rows;
    size_t n, cap;
} reader_t;

static int bad(const reader_t *rd, size_t line, int k, const char *s, pb_err_t *err)
{
    return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is not a valid number: '%.40s'",
                      rd->path, line, col_names[k], s);
}

static int num(const reader_t *rd, size_t line, int k, const char *s, double *out,
               pb_err_t *err)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
        return bad(rd, line, k, s, err);
    *out = v;
    return PB_OK;
}

static int u64(const reader_t *rd, size_t line, int k, const char *s, uint64_t *out,
               pb_err_t *err)
{
    char *end;
    errno = 0;
    if (s[0] < '0' || s[0] > '9')
        return bad(rd, line, k, s, err);
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        return bad(rd, line, k, s, err);
    *out = v;
    return PB_OK;
}

static int on_record(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    reader_t *rd = arg;
    if (!rd->have_header) {
        for (int k = 0; k < C_N; k++) {
            rd->map[k] = pb_csv_rec_find(rec, col_names[k]);
            if (rd->map[k] < 0 && k != C_DTYPE)
                return pb_err_set(err, PB_EINPUT, "%s: missing column '%s' (calib.csv)",
                                  rd->path, col_names[k]);
        }
        rd->have_header = 1;
        rd->nheader = rec->nfields;
        return PB_OK;
    }
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
    uint64_t gs;
    int rc = u64(rd, line, C_GSIZE, f[C_GSIZE], &gs, err);
    if (rc == PB_OK && (gs < 1 || gs > 1u << 30))
        rc = bad(rd, line, C_GSIZE, f[C_GSIZE], err);
    c->group_size = (int)gs;
    if (rc == PB_OK)
        rc = u64(rd, line, C_LO, f[C_LO], &c->bytes_lo, err);
    if (rc == PB_OK)
        rc = u64(rd, line, C_HI, f[C_HI], &c->bytes_hi, err);
    if (rc == PB_OK)
        rc = num(rd, line, C_LAT, f[C_LAT], &c->latency_us, err);
    if (rc == PB_OK)
        rc = num(rd, line, C_BW, f[C_BW], &c->bandwidth_gbps, err);
    if (rc == PB_OK)
        rc = num(rd, line, C_ERR, f[C_ERR], &c->fit_error, err);
    if (rc != PB_OK)
        return rc;
    if (c->bytes_lo > c->bytes_hi)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: bytes_lo %llu is above bytes_hi %llu",
                          rd->path, line, (unsigned long long)c->bytes_lo,
                          (unsigned long long)c->bytes_hi);
    if (!(c->bandwidth_gbps >= 0.0) || c->latency_us < 0.0 || c->fit_error < 0.0)
        return pb_err_set(err, PB_EINPUT,
                          "%s:%zu: bandwidth, latency and fit error must not be negative",
                          rd->path, line);
    rd->n++;
    return PB_OK;
}

int pb_calib_read(const char *path, pb_calib_row_t **rows, size_t *nrows, pb_err_t *err)
{
    reader_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    *rows = NULL;
    *nrows = 0;
    int rc = pb_csv_parse_path(path, on_record, &rd, err);
    if (rc == PB_OK && !rd.have_header)
        rc = pb_err_set(err, PB_EINPUT, "%s: empty file, expected a header line", path);
    if (rc != PB_OK) {
        free(rd.rows);
        return rc;
    }
    *rows = rd.rows;
    *nrows = rd.n;
    return PB_OK;
}
