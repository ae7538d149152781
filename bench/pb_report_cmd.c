#include "pb_report_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../reports/pb_compare.h"
#include "../reports/pb_csv.h"
#include "../reports/pb_report.h"

int pb_report_files(const char *results, const char *calib, const char *pairs,
                    const char *out, const char *run_id, const char *note, pb_err_t *err)
{
    pb_result_t *rows = NULL;
    pb_calib_row_t *cal = NULL;
    pb_pair_row_t *pr = NULL;
    size_t nrows = 0, ncal = 0, npr = 0;
    int rc = pb_csv_read(results, &rows, &nrows, err);
    if (rc == PB_OK && calib)
        rc = pb_calib_read(calib, &cal, &ncal, err);
    if (rc == PB_OK && pairs)
        rc = pb_pairs_csv_read(pairs, &pr, &npr, err);
    if (rc == PB_OK && run_id) { /* an appended file: this run's rows only */
        size_t k = 0;
        for (size_t i = 0; i < nrows; i++)
            if (strcmp(rows[i].run_id, run_id) == 0)
                rows[k++] = rows[i];
        nrows = k;
    }
    if (rc == PB_OK) {
        pb_report_in_t in = {rows, nrows, cal, ncal, pr, npr, results, calib, pairs,
                             "parbench " PB_VERSION, note};
        rc = pb_report_write(out, &in, err);
    }
    free(rows);
    free(cal);
    free(pr);
    return rc;
}

int pb_report_cmd(const pb_options_t *o, pb_err_t *err)
{
    int rc = pb_report_files(o->files.args[0], o->files.nargs > 1 ? o->files.args[1] : NULL, o->files.pairs_path,
                             o->files.output, NULL, NULL, err);
    if (rc == PB_OK && !o->run.quiet)
        printf("# report written to %s\n", o->files.output);
    return rc;
}

int pb_compare_cmd(const pb_options_t *o, pb_err_t *err)
{
    pb_result_t *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    int rc = pb_csv_read(o->files.args[0], &a, &na, err);
    if (rc == PB_OK)
        rc = pb_csv_read(o->files.args[1], &b, &nb, err);
    pb_compare_sum_t sum;
    if (rc == PB_OK)
        rc = pb_compare_rows(a, na, o->files.args[0], b, nb, o->files.args[1], o->files.threshold, stdout, &sum,
                             err);
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
    if (sum.regressed > 0)
        return pb_err_set(err, PB_EVERIFY, "%zu of %zu matched rows regressed by more than %g %% "
                          "(worst %+.1f %%)", sum.regressed, sum.matched, o->files.threshold * 100.0,
                          sum.worst * 100.0);
    return PB_OK;
}
