/* pb_report_bw.c - bus bandwidth vs size, one plot per collective, and
 * under it the same lines' median time on log-log axes (small messages,
 * flat at zero on a linear bandwidth axis, are read there, as OSU's
 * latency tables are), with the calibrated model's curves over the
 * measured ones when calib.csv is given, and a table of each fitted piece
 * against the measurements. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_plot.h"
#include "pb_report.h"

enum { MAX_SERIES = 24 };

/* The fields that tell two lines of one collective apart. */
static int same_line(const pb_result_t *a, const pb_result_t *b)
{
    return strcmp(a->pattern, b->pattern) == 0 && a->group_size == b->group_size &&
           strcmp(a->link_class, b->link_class) == 0 && strcmp(a->dtype, b->dtype) == 0 &&
           strcmp(a->mode, b->mode) == 0 && a->in_place == b->in_place &&
           strcmp(a->redop, b->redop) == 0;
}

typedef struct varies {
    int pattern, link, dtype, mode, place, redop;
} varies_t;

static void what_varies(const pb_result_t *const *r, size_t n, varies_t *v)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 1; i < n; i++) {
        v->pattern |= strcmp(r[i]->pattern, r[0]->pattern) != 0;
        v->link |= strcmp(r[i]->link_class, r[0]->link_class) != 0;
        v->dtype |= strcmp(r[i]->dtype, r[0]->dtype) != 0;
        v->mode |= strcmp(r[i]->mode, r[0]->mode) != 0;
        v->place |= r[i]->in_place != r[0]->in_place;
        v->redop |= strcmp(r[i]->redop, r[0]->redop) != 0;
    }
}

static void line_name(const pb_result_t *r, const varies_t *v, char *s, size_t n)
{
    int k = snprintf(s, n, "%s%sn=%d", v->pattern ? r->pattern : "", v->pattern ? " " : "",
                     r->group_size);
    if (k >= 0 && (size_t)k < n && r->link_class[0])
        k += snprintf(s + k, n - (size_t)k, " %s", r->link_class);
    if (k >= 0 && (size_t)k < n && v->dtype)
        k += snprintf(s + k, n - (size_t)k, " %s", r->dtype);
    if (k >= 0 && (size_t)k < n && v->mode)
        k += snprintf(s + k, n - (size_t)k, " %s", r->mode);
    if (k >= 0 && (size_t)k < n && v->place)
        k += snprintf(s + k, n - (size_t)k, " %s", r->in_place ? "in-place" : "out-of-place");
    if (k >= 0 && (size_t)k < n && v->redop)
        snprintf(s + k, n - (size_t)k, " %s", r->redop);
}

/* A piece's link class against a row's: calibrate fits a row without a
 * class (an imported log that names one node, a row written before
 * classes existed) as within the node, LOCAL (bench/glue/pb_meas_rows.c),
 * so such a row is its piece's too. */
static int link_matches(const char *piece, const char *row)
{
    return piece[0] == '\0' || strcmp(piece, row) == 0 ||
           (row[0] == '\0' && strcmp(piece, "LOCAL") == 0);
}

static int calib_matches(const pb_calib_row_t *c, const pb_result_t *r)
{
    return strcmp(c->collective, r->collective) == 0 && c->group_size == r->group_size &&
           link_matches(c->link_class, r->link_class) && pb_calib_dtype_matches(c, r->dtype);
}

/* The piece of the model that covers this row's size, NULL if none. */
static const pb_calib_row_t *piece_for(const pb_report_in_t *in, const pb_result_t *r)
{
    for (size_t i = 0; i < in->ncalib; i++)
        if (calib_matches(&in->calib[i], r) && r->bytes >= in->calib[i].bytes_lo &&
            r->bytes <= in->calib[i].bytes_hi)
            return &in->calib[i];
    return NULL;
}

/* One curve of a plot: x = log2(bytes), y as the plot draws it. */
typedef struct curve {
    double *x, *y;
    size_t n;
} curve_t;

typedef struct line {
    const pb_result_t **pts; /* sorted by bytes, one per size (the last row wins) */
    size_t n;
    char name[96];
    char mname[104];
    /* measured, and the model at the same sizes: bus bandwidth (log10 of
     * it with --log-bw), and log10 of the median time */
    curve_t bw, bw_model, lat, lat_model;
    double *mem; /* the curves' arrays, one block */
} line_t;

static void add_point(line_t *l, const pb_result_t *r)
{
    size_t i = 0;
    while (i < l->n && l->pts[i]->bytes < r->bytes)
        i++;
    if (i < l->n && l->pts[i]->bytes == r->bytes) {
        l->pts[i] = r; /* a repeated size: the later row (a newer run) */
        return;
    }
    memmove(&l->pts[i + 1], &l->pts[i], (l->n - i) * sizeof *l->pts);
    l->pts[i] = r;
    l->n++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The piece against the rows it covers: the distinct sizes measured
 * (in-place and out-of-place rows of one size are one size) and the worst
 * |measured - model| / model over those rows; 0 sizes when none is here
 * (a piece of another run, file or placement).  sizes: room for nrows. */
static size_t piece_rows(const pb_calib_row_t *c, const pb_result_t *const *rows, size_t nrows,
                         uint64_t *sizes, double *worst)
{
    size_t n = 0;
    *worst = 0.0;
    for (size_t j = 0; j < nrows; j++) {
        const pb_result_t *r = rows[j];
        if (!calib_matches(c, r) || r->bytes < c->bytes_lo || r->bytes > c->bytes_hi ||
            strcmp(r->pattern, "coll") != 0)
            continue;
        double m = pb_calib_time_us(c, r->bytes);
        sizes[n++] = r->bytes;
        if (m > 0.0)
            *worst = fmax(*worst, fabs(r->time_us_median - m) / m);
    }
    qsort(sizes, n, sizeof *sizes, cmp_u64);
    size_t distinct = 0;
    for (size_t j = 0; j < n; j++)
        distinct += j == 0 || sizes[j] != sizes[j - 1];
    return distinct;
}

static void fit_table(const pb_report_in_t *in, const char *coll, const pb_result_t *const *rows,
                      size_t nrows, pb_sbuf_t *out)
{
    uint64_t *sizes = malloc((nrows ? nrows : 1) * sizeof *sizes);
    if (sizes == NULL) {
        pb_sbuf_puts(out, "<p class=\"note\">Out of memory for the fit table.</p>\n");
        return;
    }
    int any = 0;
    for (size_t i = 0; i < in->ncalib; i++) {
        const pb_calib_row_t *c = &in->calib[i];
        if (strcmp(c->collective, coll) != 0)
            continue;
        if (!any)
            pb_sbuf_puts(out, "<table>\n<tr><th>group size</th><th class=\"l\">link</th>"
                              "<th class=\"l\">type</th>"
                              "<th>sizes</th><th>latency (us)</th><th>bandwidth (GB/s)</th>"
                              "<th>fit error</th><th>measured sizes</th>"
                              "<th>worst |measured - model| / model</th></tr>\n");
        any = 1;
        double worst;
        size_t npts = piece_rows(c, rows, nrows, sizes, &worst);
        char lo[32], hi[32];
        pb_report_bytes(lo, sizeof lo, (double)c->bytes_lo);
        pb_report_bytes(hi, sizeof hi, (double)c->bytes_hi);
        pb_sbuf_printf(out, "<tr><td>%d</td><td class=\"l\">", c->group_size);
        pb_sbuf_xml(out, c->link_class[0] ? c->link_class : "any");
        pb_sbuf_puts(out, "</td><td class=\"l\">");
        pb_sbuf_xml(out, c->dtype[0] ? c->dtype : "any");
        pb_sbuf_printf(out, "</td><td>%s .. %s</td><td>%.3g</td><td>%.4g</td><td>%.1f %%</td>",
                       lo, hi, c->latency_us, c->bandwidth_gbps, c->fit_error * 100.0);
        /* no row of this page in the piece: nothing to count or compare
         * (not "0" and "n/a 0.0 %", which read as measured) */
        if (npts == 0)
            pb_sbuf_puts(out, "<td>none shown</td><td>-</td></tr>\n");
        else
            pb_sbuf_printf(out, "<td>%zu</td><td%s>%.1f %%</td></tr>\n", npts,
                           worst > 0.2 ? " class=\"bad\"" : "", worst * 100.0);
    }
    if (any)
        pb_sbuf_puts(out, "</table>\n");
    free(sizes);
}

static void put(curve_t *c, double x, double y)
{
    c->x[c->n] = x;
    c->y[c->n++] = y;
}

/* The line's curves from its points; a log axis leaves out what is not
 * above zero (a row without bandwidth, a model piece without time). */
static void fill_curves(const pb_report_in_t *in, line_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        const pb_result_t *r = l->pts[i];
        double x = log2((double)r->bytes);
        if (!in->log_bw || r->busbw_gbps > 0.0)
            put(&l->bw, x, in->log_bw ? log10(r->busbw_gbps) : r->busbw_gbps);
        if (r->time_us_median > 0.0)
            put(&l->lat, x, log10(r->time_us_median));
        const pb_calib_row_t *c = in->calib ? piece_for(in, r) : NULL;
        double t = c ? pb_calib_time_us(c, r->bytes) : 0.0;
        if (!(t > 0.0))
            continue;
        put(&l->lat_model, x, log10(t));
        /* the model's time as bus bandwidth: this row's own factor */
        double bw = r->algbw_gbps > 0.0
                        ? (double)r->bytes / (t * 1e3) * (r->busbw_gbps / r->algbw_gbps)
                        : -1.0;
        if (r->algbw_gbps > 0.0 && (!in->log_bw || bw > 0.0))
            put(&l->bw_model, x, in->log_bw ? log10(bw) : bw);
    }
}

/* Each line's measured curve and beside it the calibrated model's where
 * a curve covers the size: bandwidth's curves, or (latency) the times'.
 * Returns the number of series written (at most 2 per line). */
static size_t to_series(line_t *lines, size_t nlines, int latency, pb_series_t *series)
{
    size_t ns = 0;
    for (size_t k = 0; k < nlines; k++) {
        line_t *l = &lines[k];
        const curve_t *m = latency ? &l->lat : &l->bw;
        const curve_t *mm = latency ? &l->lat_model : &l->bw_model;
        if (m->n > 0)
            series[ns++] = (pb_series_t){l->name, m->x, m->y, m->n, 0, (int)k};
        if (mm->n > 0) {
            snprintf(l->mname, sizeof l->mname, "model %s", l->name);
            series[ns++] = (pb_series_t){l->mname, mm->x, mm->y, mm->n, 1, (int)k};
        }
    }
    return ns;
}

/* A new line for row r, with room for every row of the collective. */
static int new_line(line_t *l, const pb_result_t *r, const varies_t *v, size_t nrows)
{
    l->pts = malloc(nrows * sizeof *l->pts);
    l->mem = malloc(8 * nrows * sizeof *l->mem);
    if (l->pts == NULL || l->mem == NULL)
        return -1;
    curve_t *c[4] = {&l->bw, &l->bw_model, &l->lat, &l->lat_model};
    for (int i = 0; i < 4; i++) {
        c[i]->x = l->mem + (size_t)(2 * i) * nrows;
        c[i]->y = c[i]->x + nrows;
    }
    line_name(r, v, l->name, sizeof l->name);
    return 0;
}

/* The collective's rows into lines (at most MAX_SERIES; *dropped counts
 * the rows of further lines).  -1: out of memory. */
static int to_lines(const pb_result_t *const *rows, size_t nrows, line_t *lines,
                    size_t *nlines, size_t *dropped)
{
    varies_t v;
    what_varies(rows, nrows, &v);
    for (size_t i = 0; i < nrows; i++) {
        size_t k = 0;
        while (k < *nlines && !same_line(lines[k].pts[0], rows[i]))
            k++;
        if (k == *nlines) {
            if (*nlines == MAX_SERIES) {
                (*dropped)++;
                continue;
            }
            if (new_line(&lines[(*nlines)++], rows[i], &v, nrows) != 0)
                return -1;
        }
        add_point(&lines[k], rows[i]);
    }
    return 0;
}

/* One plot in its own <div class="plot" id="PREFIX-coll">, under the
 * collective's heading when `heading`. */
static int plot_div(const char *prefix, const char *coll, int heading, const pb_line_plot_t *p,
                    pb_sbuf_t *out, pb_err_t *err)
{
    pb_sbuf_printf(out, "<div class=\"plot\" id=\"%s-", prefix);
    pb_sbuf_xml(out, coll);
    pb_sbuf_puts(out, "\">\n");
    if (heading) {
        pb_sbuf_puts(out, "<h3>");
        pb_sbuf_xml(out, coll);
        pb_sbuf_puts(out, "</h3>\n");
    }
    int rc = pb_plot_lines(p, out, err);
    pb_sbuf_puts(out, "</div>\n");
    return rc;
}

/* Bus bandwidth, then latency on log-log axes, of the collective's lines
 * (the two plots share the lines' colours). */
static int two_plots(const pb_report_in_t *in, const char *coll, line_t *lines, size_t nlines,
                     pb_series_t *series, pb_sbuf_t *out, pb_err_t *err)
{
    for (size_t k = 0; k < nlines; k++)
        fill_curves(in, &lines[k]);
    char title[96];
    const char *xl = "size (largest per-rank buffer)";
    snprintf(title, sizeof title, "%s: bus bandwidth vs size", coll);
    pb_line_plot_t bw = {title, xl, "busbw (GB/s)", 1, in->log_bw, series,
                         to_series(lines, nlines, 0, series)};
    int rc = plot_div("busbw", coll, 1, &bw, out, err);
    if (rc != PB_OK)
        return rc;
    snprintf(title, sizeof title, "%s: latency vs size", coll);
    pb_line_plot_t lat = {title, xl, "median time (us)", 1, 1, series,
                          to_series(lines, nlines, 1, series)};
    return plot_div("latency", coll, 0, &lat, out, err);
}

static int one_collective(const pb_report_in_t *in, const char *coll, pb_sbuf_t *out,
                          pb_err_t *err)
{
    const pb_result_t **rows = malloc(in->nrows * sizeof *rows);
    line_t *lines = calloc(MAX_SERIES, sizeof *lines);
    pb_series_t *series = calloc(2 * MAX_SERIES, sizeof *series);
    size_t nrows = 0, nlines = 0, dropped = 0;
    int rc = PB_OK;
    if (rows == NULL || lines == NULL || series == NULL) {
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
        goto out;
    }
    for (size_t i = 0; i < in->nrows; i++)
        if (pb_report_is_comm(&in->rows[i]) && strcmp(in->rows[i].collective, coll) == 0 &&
            in->rows[i].bytes > 0)
            rows[nrows++] = &in->rows[i];
    if (to_lines(rows, nrows, lines, &nlines, &dropped) != 0) {
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
        goto out;
    }
    rc = two_plots(in, coll, lines, nlines, series, out, err);
    if (dropped)
        pb_sbuf_printf(out, "<p class=\"note\">%zu rows in more than %d lines not drawn.</p>\n",
                       dropped, MAX_SERIES);
    if (in->calib)
        fit_table(in, coll, rows, nrows, out);
out:
    for (size_t k = 0; lines && k < MAX_SERIES; k++) {
        free(lines[k].pts);
        free(lines[k].mem);
    }
    free(lines);
    free(series);
    free(rows);
    return rc;
}

int pb_report_bandwidth(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err)
{
    pb_sbuf_puts(out, "<h2 id=\"bandwidth\">Bus bandwidth vs message size</h2>\n");
    pb_sbuf_puts(out, "<p>One plot per collective, one line per group size and link class "
                      "(and per pattern, type, timing mode, placement or reduction where the "
                      "file has several); log-scale size axis");
    pb_sbuf_puts(out, in->log_bw ? ", log-scale bandwidth axis." : ".");
    pb_sbuf_puts(out, " Under each, the median time of one operation on log-log axes (the "
                      "latency view: small messages, where bandwidth lies near zero).");
    if (in->calib)
        pb_sbuf_puts(out, " Dashed: the calibrated model (latency + size / bandwidth per "
                          "fitted piece) at the measured sizes, in its line's colour; the "
                          "table under each plot compares every piece with the measurements.");
    else
        pb_sbuf_puts(out, " <span class=\"note\">No calibration given (calib.csv): measured "
                          "curves only.</span>");
    pb_sbuf_puts(out, "</p>\n");
    int rc = PB_OK, any = 0;
    for (size_t i = 0; i < in->nrows && rc == PB_OK; i++) {
        const pb_result_t *r = &in->rows[i];
        if (!pb_report_is_comm(r) || r->bytes == 0)
            continue;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = pb_report_is_comm(&in->rows[j]) && in->rows[j].bytes > 0 &&
                   strcmp(in->rows[j].collective, r->collective) == 0;
        if (!seen) {
            rc = one_collective(in, r->collective, out, err);
            any = 1;
        }
    }
    int validate = 0;
    for (size_t i = 0; i < in->nrows && !validate; i++)
        validate = strcmp(in->rows[i].pattern, "validate") == 0;
    /* validate's pairs are one size between two ranks, no curve: they
     * have their own section, and a page of them alone is not empty */
    if (!any && validate)
        pb_sbuf_puts(out, "<p class=\"note\">No collective rows: the send/recv pairs of "
                          "<code>parbench validate</code> are under <a href=\"#validate\">"
                          "Link validation</a>.</p>\n");
    else if (!any)
        pb_sbuf_puts(out, "<p class=\"note\">No communication rows.</p>\n");
    return rc;
}
