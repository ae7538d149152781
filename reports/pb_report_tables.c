/* pb_report_tables.c - the pattern tables (one per strategy), the compute
 * (gemm) table, and the step breakdown as stacked bars. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_plot.h"
#include "pb_report.h"

static void wrong_cell(const pb_result_t *r, pb_sbuf_t *out)
{
    if (r->wrong < 0)
        pb_sbuf_puts(out, "<td>" PB_RESULT_WRONG_NA "</td>");
    else
        pb_sbuf_printf(out, "<td%s>%" PRId64 "</td>", r->wrong ? " class=\"bad\"" : "", r->wrong);
}

static void pattern_table(const pb_report_in_t *in, const char *pat, pb_sbuf_t *out)
{
    int any = 0;
    for (size_t i = 0; i < in->nrows; i++) {
        const pb_result_t *r = &in->rows[i];
        if (strcmp(r->pattern, pat) != 0)
            continue;
        if (!any) {
            pb_sbuf_printf(out, "<h3 id=\"pattern-%s\">%s</h3>\n<table>\n", pat, pat);
            pb_sbuf_puts(out, "<tr><th class=\"l\">collective</th><th class=\"l\">group</th>"
                              "<th>ranks</th><th class=\"l\">link</th><th>bytes</th>"
                              "<th class=\"l\">dtype</th><th>median (us)</th><th>p99 (us)</th>"
                              "<th>busbw (GB/s)</th><th>wrong</th><th class=\"l\">label</th>"
                              "</tr>\n");
        }
        any = 1;
        char b[32];
        pb_report_bytes(b, sizeof b, (double)r->bytes);
        pb_sbuf_puts(out, "<tr><td class=\"l\">");
        pb_sbuf_xml(out, r->collective);
        pb_sbuf_puts(out, "</td><td class=\"l\">");
        pb_sbuf_xml(out, r->group);
        pb_sbuf_printf(out, "</td><td>%d</td><td class=\"l\">", r->group_size);
        pb_sbuf_xml(out, r->link_class);
        pb_sbuf_printf(out, "</td><td>%s</td><td class=\"l\">", b);
        pb_sbuf_xml(out, r->dtype);
        pb_sbuf_printf(out, "</td><td>%.2f</td><td>%.2f</td><td>%.3f</td>", r->time_us_median,
                       r->time_us_p99, r->busbw_gbps);
        wrong_cell(r, out);
        pb_sbuf_puts(out, "<td class=\"l\">");
        pb_sbuf_xml(out, r->label);
        pb_sbuf_puts(out, "</td></tr>\n");
    }
    if (any)
        pb_sbuf_puts(out, "</table>\n");
}

void pb_report_patterns(const pb_report_in_t *in, pb_sbuf_t *out)
{
    static const char *const pats[] = {"tp", "sp", "pp", "dp", "ep", "cp"};
    pb_sbuf_puts(out, "<h2 id=\"patterns\">Strategy patterns</h2>\n");
    int any = 0;
    for (size_t i = 0; i < in->nrows && !any; i++)
        for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++)
            any |= strcmp(in->rows[i].pattern, pats[k]) == 0;
    if (!any)
        pb_sbuf_puts(out, "<p class=\"note\">No pattern rows (run <code>parbench --pattern "
                          "all</code>).</p>\n");
    else
        pb_sbuf_puts(out, "<p>Each operation a strategy issues per training step, measured "
                          "with every group of its kind running at once.</p>\n");
    for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++)
        pattern_table(in, pats[k], out);
    any = 0;
    for (size_t i = 0; i < in->nrows; i++) {
        const pb_result_t *r = &in->rows[i];
        if (strcmp(r->pattern, "gemm") != 0)
            continue;
        if (!any)
            pb_sbuf_puts(out, "<h3 id=\"compute\">compute (cuBLAS GEMMs)</h3>\n<table>\n<tr>"
                              "<th class=\"l\">shape</th><th class=\"l\">dtype</th>"
                              "<th>median (us)</th><th>TFLOP/s</th><th class=\"l\">label</th>"
                              "</tr>\n");
        any = 1;
        pb_sbuf_puts(out, "<tr><td class=\"l\">");
        pb_sbuf_xml(out, r->collective);
        pb_sbuf_puts(out, "</td><td class=\"l\">");
        pb_sbuf_xml(out, r->dtype);
        pb_sbuf_printf(out, "</td><td>%.2f</td><td>%.1f</td><td class=\"l\">",
                       r->time_us_median, r->tflops);
        pb_sbuf_xml(out, r->label);
        pb_sbuf_puts(out, "</td></tr>\n");
    }
    if (any)
        pb_sbuf_puts(out, "</table>\n");
}

/* ------------------------------------------------------------------ */

enum { MAX_BARS = 32, MAX_PARTS = 16 };

typedef struct bars {
    char bar[MAX_BARS][2 * PB_RESULT_STR + 16]; /* "pattern predicted label" */
    const char *bar_p[MAX_BARS];
    const char *part[MAX_PARTS];
    size_t nbars, nparts;
    double v[MAX_BARS * MAX_PARTS];
} bars_t;

static int is_step(const pb_result_t *r)
{
    return strcmp(r->pattern, "step") == 0 || strcmp(r->pattern, "model") == 0;
}

/* Gathers the step rows of one kind (memory or time) into bars. */
static void collect(const pb_report_in_t *in, int memory, bars_t *b)
{
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < in->nrows; i++) {
        const pb_result_t *r = &in->rows[i];
        if (!is_step(r) || (strncmp(r->collective, "mem_", 4) == 0) != memory)
            continue;
        /* a bar stacks the parts: the total ("step") would count twice,
         * and parbench step's per-rank rows are not the step's parts */
        if (strcmp(r->collective, "step") == 0 || strcmp(r->group, "rank") == 0)
            continue;
        /* parbench step writes both what it measured and what the model
         * predicted for the same step: one bar each */
        const char *kind = strcmp(r->pattern, "step") != 0 ? ""
                           : strcmp(r->mode, "model") == 0 ? "predicted "
                                                           : "measured ";
        char name[sizeof b->bar[0]];
        snprintf(name, sizeof name, "%s %s%s", r->pattern, kind,
                 r->label[0] ? r->label : r->run_id);
        size_t k = 0, j = 0;
        while (k < b->nbars && strcmp(b->bar[k], name) != 0)
            k++;
        while (j < b->nparts && strcmp(b->part[j], r->collective) != 0)
            j++;
        if (k == MAX_BARS || j == MAX_PARTS)
            continue;
        if (k == b->nbars)
            snprintf(b->bar[b->nbars++], sizeof b->bar[0], "%s", name);
        if (j == b->nparts)
            b->part[b->nparts++] = r->collective;
        /* time in ms, memory in GiB */
        b->v[k * MAX_PARTS + j] =
            memory ? (double)r->bytes / (1024.0 * 1024.0 * 1024.0) : r->time_us_median / 1e3;
    }
    for (size_t k = 0; k < b->nbars; k++)
        b->bar_p[k] = b->bar[k];
}

static int draw(const bars_t *b, const char *title, const char *unit, pb_sbuf_t *out,
                pb_err_t *err)
{
    double *v = malloc((b->nbars * b->nparts + 1) * sizeof *v);
    if (v == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    for (size_t k = 0; k < b->nbars; k++)
        for (size_t j = 0; j < b->nparts; j++)
            v[k * b->nparts + j] = b->v[k * MAX_PARTS + j];
    pb_bar_plot_t p = {title, unit, b->bar_p, b->nbars, b->part, b->nparts, v};
    int rc = pb_plot_bars(&p, out, err);
    /* the numbers too: a plot is for the eye, the table for the record */
    pb_sbuf_puts(out, "<table>\n<tr><th class=\"l\"></th>");
    for (size_t j = 0; j < b->nparts; j++) {
        pb_sbuf_puts(out, "<th>");
        pb_sbuf_xml(out, b->part[j]);
        pb_sbuf_puts(out, "</th>");
    }
    pb_sbuf_printf(out, "<th>total (%s)</th></tr>\n", unit);
    for (size_t k = 0; k < b->nbars; k++) {
        double t = 0.0;
        pb_sbuf_puts(out, "<tr><th class=\"l\">");
        pb_sbuf_xml(out, b->bar[k]);
        pb_sbuf_puts(out, "</th>");
        for (size_t j = 0; j < b->nparts; j++) {
            pb_sbuf_printf(out, "<td>%.3f</td>", v[k * b->nparts + j]);
            t += v[k * b->nparts + j];
        }
        pb_sbuf_printf(out, "<td>%.3f</td></tr>\n", t);
    }
    pb_sbuf_puts(out, "</table>\n");
    free(v);
    return rc;
}

int pb_report_step(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err)
{
    pb_sbuf_puts(out, "<h2 id=\"step\">Training step</h2>\n");
    bars_t *b = malloc(sizeof *b);
    if (b == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    int rc = PB_OK;
    collect(in, 0, b);
    if (b->nbars == 0)
        pb_sbuf_puts(out, "<p class=\"note\">No step rows (pattern step or model): the "
                          "reference step prediction is not in this file.</p>\n");
    else
        rc = draw(b, "time per training step", "ms", out, err);
    collect(in, 1, b);
    if (rc == PB_OK && b->nbars > 0) {
        pb_sbuf_puts(out, "<h3>memory per GPU</h3>\n");
        rc = draw(b, "memory per GPU", "GiB", out, err);
    }
    free(b);
    return rc;
}
