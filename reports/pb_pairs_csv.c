#include "pb_pairs_csv.h"

#include <csv.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb_csv_records.h"
#include "pb_csv_table.h"
#include "../util/pb_num.h"

/* Strings go through libcsv (always quoted), numbers bare. */
static int put_row(FILE *f, const void *rows, size_t i)
{
    const pb_pair_row_t *r = &((const pb_pair_row_t *)rows)[i];
    return pb_csv_put_str(f, r->a, ',') || pb_csv_put_str(f, r->b, ',') ||
                   pb_csv_put_str(f, r->cls, ',') || fprintf(f, "%d\n", r->links) < 0
               ? -1
               : 0;
}

int pb_pairs_csv_write(const char *path, const pb_pair_row_t *rows, size_t n, pb_err_t *err)
{
    return pb_csv_table_write(path, "a,b,class,links", put_row, rows, n, err);
}

typedef struct pairs_reader {
    const char *path;
    int map[4]; /* a, b, class, links */
    size_t nheader;
    pb_pair_row_t *rows;
    size_t n, cap;
} pairs_reader_t;

static int on_pair(void *arg, size_t line, const pb_csv_rec_t *rec, pb_err_t *err)
{
    static const char *const names[4] = {"a", "b", "class", "links"};
    pairs_reader_t *rd = arg;
    if (rd->nheader == 0) {
        for (int k = 0; k < 4; k++)
            if ((rd->map[k] = pb_csv_rec_find(rec, names[k])) < 0)
                return pb_err_set(err, PB_EINPUT, "%s: missing column '%s' (pairs CSV)",
                                  rd->path, names[k]);
        rd->nheader = rec->nfields;
        return PB_OK;
    }
    if (rec->nfields != rd->nheader)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: %zu fields, header has %zu", rd->path, line,
                          rec->nfields, rd->nheader);
    if (rd->n == rd->cap) {
        size_t nc = rd->cap ? rd->cap * 2 : 64;
        pb_pair_row_t *p = realloc(rd->rows, nc * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", rd->path);
        rd->rows = p;
        rd->cap = nc;
    }
    pb_pair_row_t *r = &rd->rows[rd->n];
    const char *a = rec->field[rd->map[0]], *b = rec->field[rd->map[1]];
    const char *cls = rec->field[rd->map[2]], *links = rec->field[rd->map[3]];
    uint64_t l = 0;
    if (strlen(a) >= sizeof r->a || strlen(b) >= sizeof r->b || strlen(cls) >= sizeof r->cls ||
        pb_num_u64(links, 0, 1000, &l) != PB_NUM_OK)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: not a pair row (a, b, class, links)",
                          rd->path, line);
    snprintf(r->a, sizeof r->a, "%s", a);
    snprintf(r->b, sizeof r->b, "%s", b);
    snprintf(r->cls, sizeof r->cls, "%s", cls);
    r->links = (int)l;
    rd->n++;
    return PB_OK;
}

int pb_pairs_csv_read(const char *path, pb_pair_row_t **rows, size_t *n, pb_err_t *err)
{
    pairs_reader_t rd;
    memset(&rd, 0, sizeof rd);
    rd.path = path;
    *rows = NULL;
    *n = 0;
    int rc = pb_csv_parse_table(path, on_pair, &rd, &rd.nheader, err);
    if (rc != PB_OK) {
        free(rd.rows);
        return rc;
    }
    *rows = rd.rows;
    *n = rd.n;
    return PB_OK;
}
