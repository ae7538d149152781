/* pb_report_meta.c - what was run where (from the rows themselves), and
 * the topology matrix from a pairs CSV. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pb_report.h"

/* The distinct values of one string field, comma separated, in order of
 * first appearance (a handful at most in practice: quadratic is fine). */
static void distinct(const pb_report_in_t *in, size_t off, pb_sbuf_t *out)
{
    int first = 1;
    for (size_t i = 0; i < in->nrows; i++) {
        const char *v = (const char *)&in->rows[i] + off;
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(v, (const char *)&in->rows[j] + off) == 0;
        if (seen || v[0] == '\0')
            continue;
        if (!first)
            pb_sbuf_puts(out, ", ");
        pb_sbuf_xml(out, v);
        first = 0;
    }
    if (first)
        pb_sbuf_puts(out, "-");
}

static void distinct_int(const pb_report_in_t *in, size_t off, pb_sbuf_t *out)
{
    int first = 1;
    for (size_t i = 0; i < in->nrows; i++) {
        int v, w, seen = 0;
        memcpy(&v, (const char *)&in->rows[i] + off, sizeof v);
        for (size_t j = 0; j < i && !seen; j++) {
            memcpy(&w, (const char *)&in->rows[j] + off, sizeof w);
            seen = v == w;
        }
        if (!seen) {
            pb_sbuf_printf(out, first ? "%d" : ", %d", v);
            first = 0;
        }
    }
    if (first)
        pb_sbuf_puts(out, "-");
}

enum { MAX_IMPORTED_NAMES = 8 };

/* The file an imported row came from: its run id "import:FILE" (what
 * parbench import writes), else its label, else its run id. */
static const char *imported_from(const pb_result_t *r)
{
    if (strncmp(r->run_id, "import:", 7) == 0 && r->run_id[7] != '\0')
        return r->run_id + 7;
    return r->label[0] ? r->label : r->run_id;
}

/* When the rows were measured: the earliest and latest timestamps (ISO
 * 8601 UTC, so they sort as text).  A row without one was imported from
 * a log, which carries no time: the files are named instead ("imported
 * from a.log, b.log"), where an empty range once read " .. ". */
static void measured_when(const pb_report_in_t *in, pb_sbuf_t *out)
{
    const char *first = NULL, *last = NULL, *names[MAX_IMPORTED_NAMES];
    size_t nnames = 0;
    int more = 0;
    for (size_t i = 0; i < in->nrows; i++) {
        const pb_result_t *r = &in->rows[i];
        if (r->timestamp[0] != '\0') {
            first = first == NULL || strcmp(r->timestamp, first) < 0 ? r->timestamp : first;
            last = last == NULL || strcmp(r->timestamp, last) > 0 ? r->timestamp : last;
            continue;
        }
        const char *f = imported_from(r);
        size_t k = 0;
        while (k < nnames && strcmp(names[k], f) != 0)
            k++;
        if (k == nnames && nnames < MAX_IMPORTED_NAMES)
            names[nnames++] = f;
        else if (k == nnames)
            more = 1;
    }
    if (first != NULL) {
        pb_sbuf_xml(out, first);
        if (strcmp(first, last) != 0) {
            pb_sbuf_puts(out, " .. ");
            pb_sbuf_xml(out, last);
        }
    }
    for (size_t k = 0; k < nnames; k++) {
        pb_sbuf_puts(out, k ? ", " : first ? "; imported from " : "imported from ");
        pb_sbuf_xml(out, names[k]);
    }
    if (more)
        pb_sbuf_puts(out, " and other files");
    if (first == NULL && nnames == 0)
        pb_sbuf_puts(out, "-");
}

static void row_head(pb_sbuf_t *out, const char *name)
{
    pb_sbuf_printf(out, "<tr><th class=\"l\">%s</th><td class=\"l\">", name);
}

void pb_report_meta(const pb_report_in_t *in, pb_sbuf_t *out)
{
    pb_sbuf_puts(out, "<h2 id=\"run\">Run</h2>\n<table>\n");
    row_head(out, "results");
    pb_sbuf_xml(out, in->source ? in->source : "-");
    pb_sbuf_printf(out, " (%zu rows)</td></tr>\n", in->nrows);
    row_head(out, "run ids");
    distinct(in, offsetof(pb_result_t, run_id), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "measured (UTC)");
    measured_when(in, out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "hosts (rank 0)");
    distinct(in, offsetof(pb_result_t, host), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "nodes");
    distinct_int(in, offsetof(pb_result_t, nodes), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "world (ranks)");
    distinct_int(in, offsetof(pb_result_t, world), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "backends");
    distinct(in, offsetof(pb_result_t, backend), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "timing modes");
    distinct(in, offsetof(pb_result_t, mode), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "patterns");
    distinct(in, offsetof(pb_result_t, pattern), out);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "calibration");
    pb_sbuf_xml(out, in->calib ? (in->calib_source ? in->calib_source : "given") : "none given");
    if (in->calib)
        pb_sbuf_printf(out, " (%zu fitted pieces)", in->ncalib);
    pb_sbuf_puts(out, "</td></tr>\n");
    row_head(out, "versions");
    pb_sbuf_xml(out, in->generator ? in->generator : "parbench");
    if (in->note) {
        pb_sbuf_puts(out, "; ");
        pb_sbuf_xml(out, in->note);
    }
    pb_sbuf_puts(out, "</td></tr>\n</table>\n"
                      "<p class=\"note\">Times are the slowest rank's, median over samples; "
                      "sizes follow nccl-tests (allgather: the gathered output, reducescatter: "
                      "the full input, alltoall: one rank's send buffer); GB = 1e9 B; busbw = "
                      "algbw x 2(n-1)/n (allreduce), (n-1)/n (allgather, reducescatter, "
                      "alltoall), 1 (broadcast, reduce, sendrecv).</p>\n");
}

static int name_index(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return (int)i;
    return -1;
}

enum { PB_REPORT_MAX_DEVICES = 64 };

void pb_report_topology(const pb_report_in_t *in, pb_sbuf_t *out)
{
    pb_sbuf_puts(out, "<h2 id=\"topology\">Topology</h2>\n");
    if (in->pairs == NULL || in->npairs == 0) {
        pb_sbuf_puts(out, "<p class=\"note\">No topology pairs given: write them with "
                          "<code>parbench topo --csv pairs.csv</code> and pass "
                          "<code>--pairs pairs.csv</code> (the main job does).</p>\n");
        return;
    }
    const char *names[PB_REPORT_MAX_DEVICES];
    size_t n = 0;
    for (size_t i = 0; i < in->npairs; i++) {
        const char *ab[2] = {in->pairs[i].a, in->pairs[i].b};
        for (int k = 0; k < 2; k++)
            if (name_index(names, n, ab[k]) < 0 && n < PB_REPORT_MAX_DEVICES)
                names[n++] = ab[k];
    }
    pb_sbuf_puts(out, "<p>Link between each pair of devices (from ");
    pb_sbuf_xml(out, in->pairs_source ? in->pairs_source : "the pairs file");
    pb_sbuf_puts(out, "; classes as <code>nvidia-smi topo -m</code>: NV# NVLink, PIX/PXB PCIe "
                      "switches, PHB host bridge, NODE one NUMA node, SYS across sockets, NET "
                      "across nodes).</p>\n<table>\n<tr><th></th>");
    for (size_t j = 0; j < n; j++) {
        pb_sbuf_puts(out, "<th>");
        pb_sbuf_xml(out, names[j]);
        pb_sbuf_puts(out, "</th>");
    }
    pb_sbuf_puts(out, "</tr>\n");
    for (size_t i = 0; i < n; i++) {
        pb_sbuf_puts(out, "<tr><th class=\"l\">");
        pb_sbuf_xml(out, names[i]);
        pb_sbuf_puts(out, "</th>");
        for (size_t j = 0; j < n; j++) {
            char cell[32] = "";
            if (i == j)
                snprintf(cell, sizeof cell, "X");
            for (size_t p = 0; p < in->npairs && cell[0] == '\0'; p++) {
                const pb_pair_row_t *r = &in->pairs[p];
                if ((strcmp(r->a, names[i]) == 0 && strcmp(r->b, names[j]) == 0) ||
                    (strcmp(r->b, names[i]) == 0 && strcmp(r->a, names[j]) == 0))
                    snprintf(cell, sizeof cell, r->links > 0 ? "%s%d" : "%s", r->cls, r->links);
            }
            pb_sbuf_puts(out, "<td>");
            pb_sbuf_xml(out, cell[0] ? cell : "-");
            pb_sbuf_puts(out, "</td>");
        }
        pb_sbuf_puts(out, "</tr>\n");
    }
    pb_sbuf_puts(out, "</table>\n");
    if (n == PB_REPORT_MAX_DEVICES)
        pb_sbuf_printf(out, "<p class=\"note\">Only the first %d devices are shown.</p>\n",
                       PB_REPORT_MAX_DEVICES);
}
