#include "pb_pairs_csv.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Strings go through libcsv (always quoted), numbers bare. */
static int put_str(FILE *f, const char *s)
{
    return csv_fwrite(f, s, strlen(s)) == 0 ? 0 : -1;
}

int pb_pairs_csv_write(const char *path, const pb_pair_row_t *rows, size_t n, pb_err_t *err)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(errno));
    int bad = fputs("a,b,class,links\n", f) < 0;
    for (size_t i = 0; i < n && !bad; i++) {
        const pb_pair_row_t *r = &rows[i];
        bad = put_str(f, r->a) || fputc(',', f) == EOF || put_str(f, r->b) ||
              fputc(',', f) == EOF || put_str(f, r->cls) || fprintf(f, ",%d\n", r->links) < 0;
    }
    if (fclose(f) != 0 || bad)
        return pb_err_set(err, PB_ERUNTIME, "writing CSV '%s' failed", path);
    return PB_OK;
}
