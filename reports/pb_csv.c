/* pb_csv.c - result rows to CSV, through libcsv (reading them back:
 * pb_csv_read.c; the columns: pb_csv_schema.h).
 *
 * All quoting and parsing is libcsv's: hand-rolled CSV code is where
 * labels with commas, quotes or newlines get mangled.  String fields are
 * always quoted (csv_write); numeric fields are written bare, since their
 * text cannot contain a delimiter, which also lets spreadsheet tools see
 * them as numbers.  `wrong` == PB_RESULT_WRONG_UNCHECKED is an empty field.
 *
 * Doubles (times, bandwidths) are written with "%.9g": nine significant
 * digits is finer than anything a timer measures (sub-nanosecond for any
 * time below a second) and keeps the file readable.  It is not a bit-exact
 * round trip; that would need "%.17g" and would print noise digits.
 *
 * Numbers are formatted and parsed in the C locale's notation; parbench
 * never calls setlocale(), and pb_csv_write refuses a number whose text
 * would break the row rather than write a corrupt file. */
#include "pb_csv.h"
#include "pb_csv_records.h"

#include <csv.h>

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

/* Worst case of one formatted row: a quoted string doubles every quote
 * and adds two, a number is far shorter, plus a separator per column. */
#define PB_CSV_ROW_MAX (PB_CSV_NCOLS * (2 * PB_RESULT_STR + 3))
#define PB_CSV_NUM_MAX 64

/* The stream buffer must hold a whole row, so that fflush hands each row
 * to the kernel in one write(2) rather than split across two. */
#define PB_CSV_IOBUF 8192
_Static_assert(PB_CSV_ROW_MAX <= PB_CSV_IOBUF, "a row must fit the stdio buffer");

struct pb_csv_writer {
    FILE *f;
    /* the header goes out with the first row, and a file this run made
     * but never wrote a row to is removed at close: a command that fails
     * before measuring leaves no header-only file behind */
    int need_header;
    int created;
    uint64_t rows;
    char iobuf[PB_CSV_IOBUF];
    char path[]; /* for messages */
};

/* ---------------------------------------------------------------------
 * Writing
 * --------------------------------------------------------------------- */

static int pb_csv_put_number(pb_csv_writer_t *w, char *row, size_t *len, const char *num,
                             const char *name, pb_err_t *err)
{
    size_t n = strlen(num);

    if (strpbrk(num, ",\"\r\n") != NULL)
        return pb_err_set(err, PB_ERUNTIME,
                          "%s: field '%s' formats as '%s', which would break the row "
                          "(a non-C numeric locale?)",
                          w->path, name, num);
    if (n > PB_CSV_ROW_MAX - *len)
        return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                          PB_CSV_ROW_MAX);
    memcpy(row + *len, num, n);
    *len += n;
    return PB_OK;
}

static int pb_csv_put_field(pb_csv_writer_t *w, const pb_csv_col_t *col, const pb_result_t *r,
                            char *row, size_t *len, pb_err_t *err)
{
    /* memcpy, not a cast: base is a char pointer, and this keeps the
     * compiler free of alignment and aliasing doubts */
    const char *base = (const char *)r + col->offset;
    char num[PB_CSV_NUM_MAX];
    int iv;
    uint64_t uv;
    int64_t wv;
    double dv;

    switch (col->type) {
    case PB_CSV_STR: {
        const char *nul = memchr(base, '\0', PB_RESULT_STR);
        if (nul == NULL)
            return pb_err_set(err, PB_EINPUT, "%s: field '%s' is not a terminated string",
                              w->path, col->name);
        size_t need = csv_write(row + *len, PB_CSV_ROW_MAX - *len, base, (size_t)(nul - base));
        if (need > PB_CSV_ROW_MAX - *len)
            return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                              PB_CSV_ROW_MAX);
        *len += need;
        return PB_OK;
    }
    case PB_CSV_INT:
        memcpy(&iv, base, sizeof iv);
        snprintf(num, sizeof num, "%d", iv);
        break;
    case PB_CSV_U64:
        memcpy(&uv, base, sizeof uv);
        snprintf(num, sizeof num, "%" PRIu64, uv);
        break;
    case PB_CSV_WRONG:
        memcpy(&wv, base, sizeof wv);
        if (wv == PB_RESULT_WRONG_UNCHECKED)
            return PB_OK;
        snprintf(num, sizeof num, "%" PRId64, wv);
        break;
    case PB_CSV_DBL:
        memcpy(&dv, base, sizeof dv);
        snprintf(num, sizeof num, "%.9g", dv);
        break;
    default:
        return pb_err_set(err, PB_ERUNTIME, "%s: column '%s' has no CSV type", w->path,
                          col->name);
    }
    return pb_csv_put_number(w, row, len, num, col->name, err);
}

static int pb_csv_write_header(pb_csv_writer_t *w, pb_err_t *err);

int pb_csv_write(pb_csv_writer_t *w, const pb_result_t *r, pb_err_t *err)
{
    char row[PB_CSV_ROW_MAX];
    size_t len = 0;
    int rc;

    if (w->need_header) {
        if ((rc = pb_csv_write_header(w, err)) != PB_OK)
            return rc;
        w->need_header = 0;
    }

    for (int k = 0; k < PB_CSV_NCOLS; k++) {
        if (k > 0)
            row[len++] = ','; /* in bounds: ROW_MAX counts a separator per column */
        rc = pb_csv_put_field(w, &pb_csv_cols[k], r, row, &len, err);
        if (rc != PB_OK)
            return rc;
    }
    if (len == PB_CSV_ROW_MAX)
        return pb_err_set(err, PB_ERUNTIME, "%s: row longer than %d bytes", w->path,
                          PB_CSV_ROW_MAX);
    row[len++] = '\n';

    if (fwrite(row, 1, len, w->f) != len || fflush(w->f) != 0) {
        int e = errno;
        return pb_err_set(err, PB_ERUNTIME, "cannot write CSV '%s': %s", w->path,
                          strerror(e));
    }
    w->rows++;
    return PB_OK;
}

/* Column names are plain identifiers (nothing libcsv would quote), so the
 * header goes out bare: a file starts with `run_id,` as people grep for. */
static int pb_csv_write_header(pb_csv_writer_t *w, pb_err_t *err)
{
    char line[PB_CSV_ROW_MAX];
    size_t len = 0;

    for (int k = 0; k < PB_CSV_NCOLS; k++) {
        size_t n = strlen(pb_csv_cols[k].name);
        if (k > 0)
            line[len++] = ',';
        memcpy(line + len, pb_csv_cols[k].name, n);
        len += n;
    }
    line[len++] = '\n';
    if (fwrite(line, 1, len, w->f) != len || fflush(w->f) != 0) {
        int e = errno;
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", w->path, strerror(e));
    }
    return PB_OK;
}

typedef struct pb_csv_hdrcheck {
    const char *path;
    int seen;
} pb_csv_hdrcheck_t;

/* Only the first record matters; later ones are still parsed so that a
 * quote left open by a torn row is caught before we append after it. */
static int pb_csv_on_existing_record(void *arg, size_t line, const pb_csv_rec_t *rec,
                                     pb_err_t *err)
{
    pb_csv_hdrcheck_t *hc = arg;
    size_t ncols = (size_t)PB_CSV_NCOLS;

    (void)line;
    if (hc->seen)
        return PB_OK;
    hc->seen = 1;

    for (size_t i = 0; i < rec->nfields && i < ncols; i++) {
        if (rec->flen[i] != strlen(pb_csv_cols[i].name) ||
            memcmp(rec->field[i], pb_csv_cols[i].name, rec->flen[i]) != 0)
            return pb_err_set(err, PB_EINPUT,
                              "%s: existing header differs from parbench's (column %zu is "
                              "'%.*s', expected '%s'); use another file",
                              hc->path, i + 1, PB_CSV_SHOW, rec->field[i],
                              pb_csv_cols[i].name);
    }
    if (rec->nfields < ncols)
        return pb_err_set(err, PB_EINPUT,
                          "%s: existing header differs from parbench's (it ends after "
                          "column %zu, expected '%s' next); use another file",
                          hc->path, rec->nfields, pb_csv_cols[rec->nfields].name);
    if (rec->nfields > ncols)
        return pb_err_set(err, PB_EINPUT,
                          "%s: existing header differs from parbench's (column %zu is "
                          "'%.*s', parbench's ends after column %zu); use another file",
                          hc->path, ncols + 1, PB_CSV_SHOW, rec->field[ncols], ncols);
    return PB_OK;
}

static int pb_csv_prepare(pb_csv_writer_t *w, pb_err_t *err)
{
    long size;
    int rc;

    if (fseek(w->f, 0, SEEK_END) != 0 || (size = ftell(w->f)) < 0) {
        int e = errno;
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", w->path, strerror(e));
    }
    if (size == 0) {
        w->need_header = 1;
        return PB_OK;
    }

    /* Rows go out whole, so a file not ending in a newline was cut short
     * (killed mid-write, disk full); appending would glue our first row
     * onto the torn one. */
    if (fseek(w->f, -1, SEEK_END) != 0 || getc(w->f) != '\n')
        return pb_err_set(err, PB_EINPUT,
                          "%s: does not end in a newline (its last row was cut short?); "
                          "use another file",
                          w->path);

    rewind(w->f);
    pb_csv_hdrcheck_t hc = {w->path, 0};
    rc = pb_csv_parse_file(w->f, w->path, pb_csv_on_existing_record, &hc, err);
    if (rc != PB_OK)
        return rc;
    if (!hc.seen) /* only blank lines: libcsv skips them, so treat as empty */
        w->need_header = 1;
    return rc;
}

int pb_csv_open(const char *path, pb_csv_writer_t **out, pb_err_t *err)
{
    size_t plen = strlen(path);
    pb_csv_writer_t *w;
    int rc;

    *out = NULL;
    w = malloc(sizeof *w + plen + 1);
    if (w == NULL)
        return pb_err_set(err, PB_ERUNTIME, "cannot write CSV '%s': out of memory", path);
    memcpy(w->path, path, plen + 1);
    w->need_header = 0;
    w->rows = 0;
    w->created = access(path, F_OK) != 0;

    /* "a+": every write lands at the end whatever the read position, and
     * one open both checks the existing content and appends. */
    w->f = fopen(path, "a+");
    if (w->f == NULL) {
        int e = errno;
        free(w);
        return pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(e));
    }
    setvbuf(w->f, w->iobuf, _IOFBF, sizeof w->iobuf);

    rc = pb_csv_prepare(w, err);
    /* C requires a seek between reading and writing an update stream */
    if (rc == PB_OK && fseek(w->f, 0, SEEK_END) != 0) {
        int e = errno;
        rc = pb_err_set(err, PB_EINPUT, "cannot write CSV '%s': %s", path, strerror(e));
    }
    if (rc != PB_OK) {
        fclose(w->f);
        free(w);
        return rc;
    }
    *out = w;
    return PB_OK;
}

void pb_csv_close(pb_csv_writer_t *w)
{
    if (w == NULL)
        return;
    /* every row was flushed by pb_csv_write, so nothing is lost here */
    fclose(w->f);
    if (w->created && w->rows == 0)
        remove(w->path);
    free(w);
}
