#include "pb_tune_csv.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pb_csv_table.h"

/* Strings go through libcsv (always quoted), numbers bare. */
static int put_str(FILE *f, const char *s, int last)
{
    return pb_csv_put_str(f, s, last ? '\n' : ',');
}

/* A number that was not measured is an empty field, not a 0 a reader
 * would take for a time; so is one that does not exist (NaN: the
 * interval of a setting with too few pairs for one). */
static int put_num(FILE *f, double v, int have)
{
    return (have && isfinite(v) ? fprintf(f, "%.6g,", v) : fprintf(f, ",")) < 0 ? -1 : 0;
}

static int put_row(FILE *f, const void *rows, size_t i)
{
    const pb_tune_row_t *r = &((const pb_tune_row_t *)rows)[i];
    int m = r->pairs > 0;
    if (put_str(f, r->run_id, 0) || put_str(f, r->backend, 0) || put_str(f, r->setting, 0) ||
        put_str(f, r->group, 0) ||
        fprintf(f, "%d,", r->group_size) < 0 || put_str(f, r->collective, 0) ||
        fprintf(f, "%" PRIu64 ",", r->bytes) < 0 || put_str(f, r->dtype, 0) ||
        fprintf(f, "%" PRIu64 ",%zu,", r->count, r->pairs) < 0)
        return -1;
    if (put_num(f, r->default_us, m) || put_num(f, r->candidate_us, m) ||
        put_num(f, r->ratio, m) || put_num(f, r->ratio_lo, m) || put_num(f, r->ratio_hi, m))
        return -1;
    if (put_str(f, r->verdict, 0))
        return -1;
    if ((r->wrong >= 0 ? fprintf(f, "%" PRId64 ",", r->wrong) : fprintf(f, ",")) < 0)
        return -1;
    return put_str(f, r->note, 1);
}

int pb_tune_csv_write(const char *path, const pb_tune_row_t *rows, size_t n, pb_err_t *err)
{
    return pb_csv_table_write(path,
                              "run_id,backend,setting,group,group_size,collective,bytes,dtype,"
                              "count_per_step,pairs,default_us,candidate_us,ratio,ratio_lo,"
                              "ratio_hi,verdict,wrong,note",
                              put_row, rows, n, err);
}
