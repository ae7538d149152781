/* pb_report.h - one self-contained XHTML page from result rows: run
 * metadata, the topology matrix, bus bandwidth vs size per collective
 * (PLplot SVG inline), measured vs calibrated curves with fit error,
 * pattern tables per strategy and the step breakdown.  No scripts, no
 * network: the file opens anywhere and is well-formed XML (xmllint).
 *
 * Which rows go where:
 *   bandwidth plots  every communication row (pattern not gemm, step,
 *                    model, validate), one plot per collective, one line
 *                    per (pattern, group size, link class[, dtype, mode,
 *                    in-place, redop where those vary]); under each, the
 *                    same lines' median time on log-log axes
 *   link validation  pattern validate (parbench validate: group "pair:A-B",
 *                    busbw = the pair's GB/s, expect_gbps, verdict): a rank x
 *                    rank matrix (up to 64 ranks) and the pairs not ok
 *   pattern tables   pattern tp, sp, pp, dp, ep, cp (one table each)
 *   compute table    pattern gemm
 *   step breakdown   pattern step or model: collective = the component
 *                    (compute, tp, pp, dp, ep, cp, bubble, ...), time_us_median
 *                    = its time per step, label = the layout/bar name;
 *                    components named mem_* (mem_params, mem_grads,
 *                    mem_optimizer, mem_activations) carry bytes per GPU
 *                    in `bytes` and make the memory bar. */
#ifndef PB_REPORT_H
#define PB_REPORT_H

#include <stddef.h>

#include "pb_calib_file.h"
#include "pb_pairs_csv.h"
#include "pb_result.h"
#include "pb_sbuf.h"
#include "../util/pb_err.h"

typedef struct pb_report_in {
    const pb_result_t *rows;
    size_t nrows;
    const pb_calib_row_t *calib; /* NULL: no model curves (and a note says so) */
    size_t ncalib;
    const pb_pair_row_t *pairs; /* NULL: no topology matrix (a note says so) */
    size_t npairs;
    const char *source;       /* where the rows came from, shown */
    const char *calib_source; /* may be NULL */
    const char *pairs_source; /* may be NULL */
    const char *generator;    /* e.g. "parbench 0.1.0" */
    const char *note;         /* an extra metadata line (backend version); may be NULL */
    int log_bw; /* bus bandwidth on a log axis (report --log-bw); 0: linear from 0 */
} pb_report_in_t;

/* The page's head (doctype, the styles every page shares, <body>, the
 * title as <h1>): the report's, and parbench profile's page
 * (jobprof/pb_jp_html.h), which ends it with "</body></html>". */
void pb_report_head(pb_sbuf_t *out, const char *title);
/* A built page written to path in one go (PB_EINPUT: not writable). */
int pb_report_save(const char *path, const pb_sbuf_t *b, pb_err_t *err);

/* The whole page into out. */
int pb_report_build(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err);
/* Built, then written to path in one go (PB_EINPUT: path not writable). */
int pb_report_write(const char *path, const pb_report_in_t *in, pb_err_t *err);

/* sections, one file each (pb_report_*.c) */
void pb_report_meta(const pb_report_in_t *in, pb_sbuf_t *out);
void pb_report_topology(const pb_report_in_t *in, pb_sbuf_t *out);
/* nothing at all when the rows hold no validate row */
int pb_report_validate(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err);
int pb_report_bandwidth(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err);
void pb_report_patterns(const pb_report_in_t *in, pb_sbuf_t *out);
int pb_report_step(const pb_report_in_t *in, pb_sbuf_t *out, pb_err_t *err);

/* helpers shared by the sections */
int pb_report_is_comm(const pb_result_t *r);
void pb_report_bytes(char *s, size_t n, double bytes);

#endif
