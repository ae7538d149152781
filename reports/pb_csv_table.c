#include "pb_csv_table.h"

#include <csv.h>
#include <errno.h>
#include <string.h>

int pb_csv_put_str(FILE *f, const char *s, char sep)
{
    if (csv_fwrite(f, s, strlen(s)) != 0)
        return -1;
    return sep && fputc(sep, f) == EOF ? -1 : 0;
}

int pb_csv_table_write(const char *path, const char *header, pb_csv_row_fn_t row,
                       const void *rows, size_t n, pb_err_t *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(errno));
    int bad = fputs(header, f) < 0 || fputc('\n', f) == EOF;
    for (size_t i = 0; i < n && !bad; i++)
        bad = row(f, rows, i) != 0;
    if (fclose(f) != 0 || bad)
        return pb_err_set(err, PB_ERUNTIME, "writing CSV '%s' failed", path);
    return PB_OK;
}
