/* parbench compare: two results files, matched row by row, and the
 * regression gate: exit 1 when a matched row's median time grew by more
 * than the threshold and by more than the two rows' noise (the rule and
 * its source: reports/pb_compare.h; --ignore-noise: the threshold alone),
 * or when a row of either file has no match in the other (unless
 * --allow-missing): a new run that lost most of its rows (a crash, a
 * smaller sweep) has not shown that nothing regressed.  No MPI. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../reports/pb_compare.h"
#include "../../reports/pb_csv.h"
#include "../cli/pb_opt_common.h"

static int compare_cmd(const pb_options_t *o, pb_err_t *err)
{
    pb_result_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int rc = pb_csv_read(o->files.args[0], &a, &na, err);
    if (rc == PB_OK)
        rc = pb_csv_read(o->files.args[1], &b, &nb, err);
    pb_compare_sum_t sum;
    pb_compare_rule_t rule = {o->files.threshold, o->files.ignore_noise};
    if (rc == PB_OK)
        rc = pb_compare_rows(a, na, o->files.args[0], b, nb, o->files.args[1], &rule, stdout,
                             &sum, err);
    free(a);
    free(b);
    if (rc != PB_OK)
        return rc;
    /* a gate that compared nothing must not pass: the files measured
     * different things (another world size, sizes, collectives) */
    if (sum.matched == 0)
        return pb_err_set(err, PB_EINPUT,
                          "compare: no row of %s matches a row of %s (pattern, collective, group, "
                          "size, dtype, backend and world must agree): nothing was compared",
                          o->files.args[1], o->files.args[0]);
    char reg[160] = "", miss[400] = "";
    if (sum.regressed > 0)
        snprintf(reg, sizeof reg, "%zu of %zu matched rows regressed by more than %g %% (worst "
                 "%+.1f %%)", sum.regressed, sum.matched, o->files.threshold * 100.0,
                 sum.worst * 100.0);
    if ((sum.only_base > 0 || sum.only_new > 0) && !o->files.allow_missing)
        snprintf(miss, sizeof miss, "%zu row%s of %s %s no match in %s and %zu of %s none in %s "
                 "(--allow-missing accepts rows on one side only)", sum.only_base,
                 sum.only_base == 1 ? "" : "s", o->files.args[0],
                 sum.only_base == 1 ? "has" : "have", o->files.args[1], sum.only_new,
                 o->files.args[1], o->files.args[0]);
    if (reg[0] || miss[0])
        return pb_err_set(err, PB_EVERIFY, "%s%s%s", reg, reg[0] && miss[0] ? "; " : "", miss);
    return PB_OK;
}

/* ---- the command: its options and table row ----------------------- */

static int compare_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    (void)rank0;
    return compare_cmd(o, err);
}

static int set_threshold(pb_options_t *o, const pb_opt_spec_t *s, const char *v,
                         const char *shown, pb_err_t *err)
{
    (void)s;
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || (*end != '\0' && strcmp(end, "%") != 0) || errno == ERANGE || !(x >= 0.0) ||
        !isfinite(x))
        return pb_err_set(err, PB_EINPUT, "%s takes a percentage such as 5%% (got '%s')", shown,
                          v);
    o->files.threshold = x / 100.0;
    return PB_OK;
}

static const pb_opt_spec_t compare_specs[] = {
    {"threshold", 0, "T", set_threshold, 0, 0, "percent (5, 5% or 2.5%; default 5)", NULL,
     "--threshold is an option of parbench compare"},
    {"allow-missing", 0, NULL, pb_opt_flag, PB_OFF(files.allow_missing), 0,
     "rows found in one file only are listed but do not fail\nthe gate", NULL,
     "--allow-missing is an option of parbench compare"},
    {"ignore-noise", 0, NULL, pb_opt_flag, PB_OFF(files.ignore_noise), 0,
     "the threshold alone: a row regresses even when its\n"
     "change is within the noise of the two rows",
     NULL, "--ignore-noise is an option of parbench compare"},
};
static const pb_opt_group_t compare_group = PB_GROUP("", compare_specs, NULL);

static int compare_finish(pb_options_t *o, pb_err_t *err)
{
    if (o->files.nargs != 2)
        return pb_err_set(err, PB_EINPUT, "compare needs two files: BASE.csv NEW.csv");
    return PB_OK;
}

/* compare takes files: another command's option is named as such */
static const char *compare_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    return pb_files_foreign(s, "--csv and --json are not options of parbench compare",
                            "parbench compare takes files, -o, --pairs, --threshold, "
                            "--allow-missing and --ignore-noise only");
}

const pb_cmd_desc_t pb_cmd_compare = {
    PB_CMD_COMPARE, "compare",
    "base.csv new.csv [--threshold 5%]: the regression gate\n"
    "           (parbench compare --help)",
    "usage: parbench compare BASE.csv NEW.csv [--threshold 5%] [--allow-missing]\n"
    "                        [--ignore-noise]\n"
    "\n"
    "Matches rows on pattern, collective, group, group size, bytes, dtype,\n"
    "backend and world (and in-place, timing mode and reduction, which tell\n"
    "apart the measurements of one sweep), prints the change of median time\n"
    "and bus bandwidth, lists rows found in only one file, and exits 1 when a\n"
    "matched row's median time grew by more than the threshold and by more\n"
    "than the two rows' noise, or a row of either file has no match in the\n"
    "other (--allow-missing lets those pass).  Past the noise: the 95 %\n"
    "confidence intervals of the two medians do not overlap (Hoefler & Belli,\n"
    "SC'15, Rule 7), each estimated from the row's min, median, p99, max and\n"
    "iterations (the whole min..max range outside latency mode); a change\n"
    "past the threshold whose intervals overlap is 'within noise' and passes.\n"
    "A row without spread (min = median = p99 = max) has no noise;\n"
    "--ignore-noise applies the threshold alone.  The last line counts\n"
    "matched, missing, regressed, improved and within-noise rows.\n"
    "Runs no MPI.\n",
    {{&compare_group, NULL}, {&pb_grp_help, NULL}},
    "exit codes: 0 no regression and no row missing, 1 a regression or a missing\n"
    "row, 2 bad input (a malformed file: file and line named)\n",
    2, pb_files_defaults, compare_finish, compare_foreign, compare_alone, NULL, 0, NULL};
