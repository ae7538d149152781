/* pb_jp_html.h - parbench profile's findings as XHTML: a standalone page
 * in the report's style (reports/pb_report.h: its head and styles, the
 * same polyglot markup that xmllint reads), with one section per
 * finding - the recording, the communicators and their dimensions, the
 * traffic per communicator, operation and size bucket, the bandwidth
 * against the calibration, the stragglers and the traffic against the
 * model.  A page of its own rather than a section of `parbench report`:
 * the report is made from result rows (results.csv), and a recorded job
 * is no such row; the two pages share their look, not their input. */
#ifndef PB_JP_HTML_H
#define PB_JP_HTML_H

#include "pb_jobprof.h"
#include "pb_jp_calib.h"
#include "pb_jp_expect.h"
#include "pb_jp_infer.h"
#include "pb_jp_inst.h"
#include "pb_jp_stats.h"
#include "pb_jp_strag.h"
#include "../reports/pb_sbuf.h"

typedef struct pb_jp_html_in {
    const pb_jobprof_t *jp;
    const pb_jp_shape_t *shape;
    int layout_given;             /* the shape is the user's, not inferred */
    const pb_jp_insts_t *insts;
    const pb_jp_stats_t *stats;
    const pb_jp_strag_t *strag;
    const pb_jp_calcmp_t *cal;    /* NULL: no calibration given */
    const pb_jp_expect_t *expect; /* NULL: no model given */
    const char *source;           /* what was read, shown */
    const char *generator;        /* "parbench 0.1.0" */
} pb_jp_html_in_t;

/* The sections into out. */
void pb_jp_html_sections(const pb_jp_html_in_t *in, pb_sbuf_t *out);
/* The page, written to path in one go (PB_EINPUT: not writable). */
int pb_jp_html_write(const char *path, const pb_jp_html_in_t *in, pb_err_t *err);

#endif
