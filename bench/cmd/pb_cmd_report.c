#include "pb_cmd_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_csv.h"
#include "../../reports/pb_report.h"
#include "../cli/pb_opt_common.h"

/* Which run a page shows.  A results file grows by appending (every
 * --csv run, every `step` run into parbench-step.csv), and a page that
 * drew two runs together would add up one breakdown from both and put two
 * runs' points on one curve.  So the newest run (the last row's: rows are
 * appended in time order) unless a run is named or every run is asked
 * for.  Returns how many runs the rows hold (distinct ids, by sorting). */
static int by_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int count_runs(const pb_result_t *rows, size_t n, size_t *runs, pb_err_t *err)
{
    const char **ids = malloc((n ? n : 1) * sizeof *ids);
    if (ids == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory counting the runs");
    for (size_t i = 0; i < n; i++)
        ids[i] = rows[i].run_id;
    qsort(ids, n, sizeof *ids, by_str);
    *runs = 0;
    for (size_t i = 0; i < n; i++)
        *runs += i == 0 || strcmp(ids[i], ids[i - 1]) != 0;
    free(ids);
    return PB_OK;
}

/* Keeps the rows of the run the request names (or the newest), saying so
 * in q->said when the file held several. */
static int keep_run(pb_report_req_t *q, pb_result_t *rows, size_t *nrows, pb_err_t *err)
{
    size_t n = *nrows, runs = 0, k = 0;
    if (q->run_id == NULL && (!q->newest || n == 0))
        return PB_OK;
    char run[PB_RESULT_STR];
    snprintf(run, sizeof run, "%s", q->run_id ? q->run_id : rows[n - 1].run_id);
    if (q->newest && count_runs(rows, n, &runs, err) != PB_OK)
        return err->code;
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].run_id, run) == 0)
            rows[k++] = rows[i];
    if (k == 0 && n > 0)
        return pb_err_set(err, PB_EINPUT, "%s has no row of run '%s'", q->results, run);
    *nrows = k;
    if (runs > 1)
        snprintf(q->said, sizeof q->said, "%s holds %zu runs: this page shows run %s only "
                 "(--all-runs shows them together)", q->results, runs, run);
    return PB_OK;
}

int pb_report_files(pb_report_req_t *q, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    pb_calib_row_t *cal = NULL;
    pb_pair_row_t *pr = NULL;
    size_t nrows = 0, ncal = 0, npr = 0;
    q->said[0] = '\0';
    int rc = pb_csv_read(q->results, &rows, &nrows, err);
    if (rc == PB_OK && q->calib)
        rc = pb_calib_read(q->calib, &cal, &ncal, err);
    if (rc == PB_OK && q->pairs)
        rc = pb_pairs_csv_read(q->pairs, &pr, &npr, err);
    if (rc == PB_OK)
        rc = keep_run(q, rows, &nrows, err);
    if (rc == PB_OK) {
        pb_report_in_t in = {rows,     nrows,    cal,      ncal,
                             pr,       npr,      q->results, q->calib,
                             q->pairs, "parbench " PB_VERSION,
                             q->said[0] ? q->said : q->note, q->log_bw};
        rc = pb_report_write(q->out, &in, err);
    }
    free(rows);
    free(cal);
    free(pr);
    return rc;
}

static int report_cmd(const pb_options_t *o, pb_err_t *err)
{
    pb_report_req_t q = {o->files.args[0], o->files.nargs > 1 ? o->files.args[1] : NULL,
                         o->files.pairs_path, o->files.output, o->files.run_id,
                         !o->files.all_runs, NULL, "", o->files.log_bw};
    int rc = pb_report_files(&q, err);
    if (rc == PB_OK && !o->run.quiet) {
        if (q.said[0])
            printf("# %s\n", q.said);
        printf("# report written to %s\n", o->files.output);
    }
    return rc;
}

/* ---- the command: its options and table row ----------------------- */

/* files in, a page or a verdict out */
static int report_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    (void)rank0;
    return report_cmd(o, err);
}

static const pb_opt_spec_t report_specs[] = {
    {"output", 'o', "FILE", pb_opt_output, PB_OFF(files.output), 0, "the page (default report.html)",
     "@file", pb_o_elsewhere},
    {"pairs", 0, "FILE", pb_opt_str, PB_OFF(files.pairs_path), 0,
     "topology pairs CSV (a, b, class, links)", "@file", "--pairs is an option of parbench report"},
    {"quiet", 'q', NULL, pb_opt_flag, PB_OFF(run.quiet), 0, "no line saying where the page went",
     NULL, NULL},
    {"run", 0, "ID", pb_opt_str, PB_OFF(files.run_id), 0,
     "the run to show (default: the newest, the last row's run id)", NULL,
     "--run is an option of parbench report"},
    {"all-runs", 0, NULL, pb_opt_flag, PB_OFF(files.all_runs), 0,
     "every run of the file on one page (a step breakdown then\nadds up the runs)", NULL,
     "--all-runs is an option of parbench report"},
    {"log-bw", 0, NULL, pb_opt_flag, PB_OFF(files.log_bw), 0,
     "bus bandwidth on a log axis (default linear from 0, where\n"
     "small messages lie flat); latency is always log-log", NULL,
     "--log-bw is an option of parbench report"},
};
static const pb_opt_group_t report_group = PB_GROUP("", report_specs, NULL);

static int report_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->files.run_id && o->files.all_runs)
        return pb_err_set(err, PB_EINPUT, "give --run ID or --all-runs, not both");
    if (o->files.nargs < 1)
        return pb_err_set(err, PB_EINPUT, "report needs a results file: RESULTS.csv [CALIB.csv]");
    if (o->files.output == NULL)
        o->files.output = "report.html";
    return PB_OK;
}

/* report takes files: another command's option is named as such */
static const char *report_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    return pb_files_foreign(s, "--csv and --json are not options of parbench report",
                            "parbench report takes files, -o, --pairs, --run, --all-runs "
                            "and --log-bw only");
}

const pb_cmd_desc_t pb_cmd_report = {
    PB_CMD_REPORT, "report", "results.csv [calib.csv] -o report.html (parbench report --help)",
    "usage: parbench report RESULTS.csv [CALIB.csv] [-o report.html] [--pairs PAIRS.csv]\n"
    "                       [--run ID | --all-runs] [--log-bw]\n"
    "\n"
    "Writes one self-contained XHTML page (no scripts, no network; plots drawn\n"
    "by PLplot as inline SVG): run metadata, the topology matrix (from --pairs,\n"
    "written by parbench topo --csv), parbench validate's pairs as a rank x rank\n"
    "matrix coloured by share of expectation with the pairs not ok listed, bus\n"
    "bandwidth vs size per collective (one line per group size and link class;\n"
    "a log bandwidth axis with --log-bw) and under it the median time on\n"
    "log-log axes, the calibrated model's curves and fit error when CALIB.csv\n"
    "is given, pattern tables per strategy, and the step\n"
    "breakdown (rows with pattern step or model).  A file that holds several\n"
    "runs (appended --csv runs) is shown one run at a time: the newest unless\n"
    "--run names another, all together with --all-runs.  Runs no MPI.\n",
    {{&report_group, NULL}, {&pb_grp_help, NULL}},
    "CALIB.csv columns: collective, group_size, link_class, bytes_lo, bytes_hi,\n"
    "latency_us, bandwidth_gbps, fit_error; a piece predicts\n"
    "time_us = latency_us + size / (bandwidth_gbps * 1e3) for bytes_lo <= size <= bytes_hi.\n",
    2, pb_files_defaults, report_finish, report_foreign, report_alone, NULL, 0, NULL};
