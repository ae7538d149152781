#include "pb_replay_csv.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pb_csv_table.h"

/* Strings go through libcsv (always quoted), numbers bare; a value not
 * known is an empty field, never a 0 a reader would take for a time. */
static int put_str(FILE *f, const char *s)
{
    return pb_csv_put_str(f, s, ',');
}

static int put_row(FILE *f, const void *rows, size_t i)
{
    const pb_replay_row_t *r = &((const pb_replay_row_t *)rows)[i];
    int rec = r->recorded_s >= 0.0;
    if (put_str(f, r->run_id) || put_str(f, r->backend) || put_str(f, r->comm) ||
        put_str(f, r->group) || fprintf(f, "%d,", r->ranks) < 0 || put_str(f, r->members) ||
        fprintf(f, "%" PRIu64 ",%" PRIu64 ",", r->ops, r->bytes) < 0)
        return -1;
    if ((rec ? fprintf(f, "%.9g,", r->recorded_s) : fprintf(f, ",")) < 0 ||
        fprintf(f, "%.9g,", r->replayed_s) < 0 ||
        (rec && r->recorded_s > 0.0 ? fprintf(f, "%.6g,", r->replayed_s / r->recorded_s)
                                    : fprintf(f, ",")) < 0)
        return -1;
    return (r->wrong >= 0 ? fprintf(f, "%" PRId64 "\n", r->wrong) : fprintf(f, "\n")) < 0 ? -1
                                                                                          : 0;
}

int pb_replay_csv_write(const char *path, const pb_replay_row_t *rows, size_t n, pb_err_t *err)
{
    return pb_csv_table_write(path,
                              "run_id,backend,comm,group,ranks,members,ops,bytes,recorded_s,"
                              "replayed_s,ratio,wrong",
                              put_row, rows, n, err);
}
