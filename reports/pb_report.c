/* pb_report.c - the page: head, styles, the sections in order. */
#include "pb_report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int pb_report_is_comm(const pb_result_t *r)
{
    return strcmp(r->pattern, "gemm") != 0 && strcmp(r->pattern, "step") != 0 &&
           strcmp(r->pattern, "model") != 0 && strcmp(r->pattern, "validate") != 0;
}

void pb_report_bytes(char *s, size_t n, double b)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024.0 && u < 5) {
        b /= 1024.0;
        u++;
    }
    snprintf(s, n, u == 0 ? "%.0f %s" : "%.3g %s", b, unit[u]);
}

static const char style[] =
    "body{font-family:sans-serif;margin:2em;max-width:1100px;color:#1e1e1e}"
    "h1{border-bottom:2px solid #1f77b4}h2{margin-top:2em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:0.5em 0;font-size:0.9em}"
    "td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}"
    "th{background:#f0f0f0}td.l,th.l{text-align:left}"
    ".note{color:#555;font-style:italic}.bad{background:#fdd}"
    "svg{max-width:100%;height:auto;display:block}"
    ".plot{margin:1em 0}"
    /* the validate matrix's colour steps come after .bad so that a slow
     * cell keeps its step's colour and is marked by its outline instead */
    ".q4{background:#b7e1a1}.q3{background:#e3f2b5}.q2{background:#fff1a8}"
    ".q1{background:#fdc58c}.q0{background:#f4827a}"
    "table.vmatrix td{min-width:2.5em}"
    "table.vmatrix td.bad{outline:2px solid #a00;outline-offset:-3px;font-weight:bold}"
    "table.vmatrix td.clr{outline:1px dashed #444;outline-offset:-3px}";

void pb_report_head(pb_sbuf_t *out, const char *title)
{
    /* polyglot markup: well-formed XML that browsers also read as HTML */
    pb_sbuf_puts(out, "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" "
                      "lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>");
    pb_sbuf_xml(out, title);
    pb_sbuf_puts(out, "</title>\n<style>");
    pb_sbuf_puts(out, style);
    pb_sbuf_puts(out, "</style>\n</head>\n<body>\n<h1>");
    pb_sbuf_xml(out, title);
    pb_sbuf_puts(out, "</h1>\n");
}

int pb_report_build(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err)
{
    pb_report_head(out, "parbench report");
    pb_report_meta(in, out);
    pb_report_topology(in, out);
    int rc = pb_report_validate(in, out, err);
    if (rc == PB_OK)
        rc = pb_report_bandwidth(in, out, err);
    if (rc == PB_OK)
        pb_report_patterns(in, out);
    if (rc == PB_OK)
        rc = pb_report_step(in, out, err);
    pb_sbuf_puts(out, "</body>\n</html>\n");
    if (rc == PB_OK && out->oom)
        rc = pb_err_set(err, PB_ERUNTIME, "out of memory building the report");
    return rc;
}

int pb_report_save(const char *path, const pb_sbuf_t *b, pb_err_t *err)
{
    if (b->oom)
        return pb_err_set(err, PB_ERUNTIME, "out of memory building '%s'", path);
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write report '%s': %s", path, strerror(errno));
    int ok = fwrite(b->s, 1, b->len, f) == b->len;
    if (fclose(f) != 0 || !ok)
        return pb_err_set(err, PB_ERUNTIME, "writing report '%s' failed", path);
    return PB_OK;
}

int pb_report_write(const char *path, const pb_report_in_t *in, pb_err_t *err)
{
    pb_sbuf_t b;
    pb_sbuf_init(&b);
    int rc = pb_report_build(in, &b, err);
    if (rc == PB_OK)
        rc = pb_report_save(path, &b, err);
    pb_sbuf_free(&b);
    return rc;
}
