#include "pb_tune_csv.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Strings go through libcsv (always quoted), numbers bare. */
static int put_str(FILE *f, const char *s, int last)
{
    return csv_fwrite(f, s, strlen(s)) == 0 && fputc(last ? '\n' : ',', f) != EOF ? 0 : -1;
}

/* A number that was not measured is an empty field, not a 0 a reader
 * would take for a time. */
static int put_num(FILE *f, double v, int have)
{
    return (have ? fprintf(f, "%.6g,", v) : fprintf(f, ",")) < 0 ? -1 : 0;
}

static int put_row(FILE *f, const pb_tune_row_t *r)
{
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
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(errno));
    int bad = fputs("run_id,backend,setting,group,group_size,collective,bytes,dtype,"
                    "count_per_step,pairs,default_us,candidate_us,ratio,ratio_lo,ratio_hi,"
                    "verdict,wrong,note\n",
                    f) < 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = put_row(f, &rows[i]) != 0;
    if (fclose(f) != 0 || bad)
        return pb_err_set(err, PB_ERUNTIME, "writing CSV '%s' failed", path);
    return PB_OK;
}
