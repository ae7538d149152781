/* pb_csv_records.c - the libcsv parsing driver shared by every reader. */
#include "pb_csv_records.h"

#include <csv.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------
 * Parsing driver: libcsv delivers fields one by one; consumers want whole
 * records together with the line they start on.
 * --------------------------------------------------------------------- */

typedef struct pb_csv_parse {
    const char *path;
    pb_csv_record_fn_t record;
    void *arg;
    pb_err_t *err;
    /* libcsv callbacks cannot abort csv_parse: they record the first
     * failure here and ignore everything after it */
    int rc;
    size_t line;   /* 1-based physical line being fed to libcsv */
    size_t rec_nl; /* newlines inside the current record's quoted fields */
    pb_csv_rec_t rec;
} pb_csv_parse_t;

static int pb_csv_rec_reserve(pb_csv_parse_t *ps, size_t bytes)
{
    pb_csv_rec_t *rec = &ps->rec;

    if (rec->cap - rec->len < bytes) {
        size_t cap = rec->cap ? rec->cap : 256;
        while (cap - rec->len < bytes) {
            if (cap > SIZE_MAX / 2)
                goto nomem;
            cap *= 2;
        }
        char *buf = realloc(rec->buf, cap);
        if (buf == NULL)
            goto nomem;
        rec->buf = buf;
        rec->cap = cap;
    }
    if (rec->nfields == rec->fcap) {
        size_t fcap = rec->fcap ? rec->fcap * 2 : 32;
        if (fcap > SIZE_MAX / sizeof(size_t))
            goto nomem;
        size_t *off = realloc(rec->off, fcap * sizeof *off);
        if (off == NULL)
            goto nomem;
        rec->off = off;
        size_t *flen = realloc(rec->flen, fcap * sizeof *flen);
        if (flen == NULL)
            goto nomem;
        rec->flen = flen;
        const char **field = realloc(rec->field, fcap * sizeof *field);
        if (field == NULL)
            goto nomem;
        rec->field = field;
        rec->fcap = fcap;
    }
    return PB_OK;

nomem:
    return pb_err_set(ps->err, PB_ERUNTIME, "%s:%zu: out of memory reading CSV",
                      ps->path, ps->line);
}

static void pb_csv_on_field(void *s, size_t len, void *data)
{
    pb_csv_parse_t *ps = data;
    pb_csv_rec_t *rec = &ps->rec;

    if (ps->rc != PB_OK)
        return;
    /* len + 1 cannot wrap: libcsv's own buffer already holds len bytes */
    ps->rc = pb_csv_rec_reserve(ps, len + 1);
    if (ps->rc != PB_OK)
        return;
    if (len > 0)
        memcpy(rec->buf + rec->len, s, len);
    rec->buf[rec->len + len] = '\0';
    rec->off[rec->nfields] = rec->len;
    rec->flen[rec->nfields] = len;
    rec->nfields++;
    rec->len += len + 1;

    /* An unquoted newline ends the record, so any newline in a field came
     * from quoting; counting them lets the record report the line it
     * starts on rather than the one it ends on. */
    const char *p = s, *end = (const char *)s + len;
    while (p != NULL && p < end) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (p != NULL) {
            ps->rec_nl++;
            p++;
        }
    }
}

static void pb_csv_on_record(int c, void *data)
{
    pb_csv_parse_t *ps = data;
    pb_csv_rec_t *rec = &ps->rec;

    (void)c;
    if (ps->rc != PB_OK)
        return;
    for (size_t i = 0; i < rec->nfields; i++)
        rec->field[i] = rec->buf + rec->off[i];
    /* This callback runs while libcsv consumes the record's terminator,
     * which lies on ps->line since input is fed one line at a time. */
    ps->rc = ps->record(ps->arg, ps->line - ps->rec_nl, rec, ps->err);
    rec->len = 0;
    rec->nfields = 0;
    ps->rec_nl = 0;
}

/* Feeds the whole of `f` to libcsv (strict: a stray quote is an error,
 * not silently kept as data) and hands each record to `record`. */
int pb_csv_parse_file(FILE *f, const char *path, pb_csv_record_fn_t record,
                             void *arg, pb_err_t *err)
{
    pb_csv_parse_t ps = {
        .path = path, .record = record, .arg = arg, .err = err,
        .rc = PB_OK, .line = 1, .rec_nl = 0,
    };
    struct csv_parser p;
    char block[16384];
    size_t n;

    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0)
        return pb_err_set(err, PB_ERUNTIME, "%s: cannot initialise libcsv", path);

    while (ps.rc == PB_OK && (n = fread(block, 1, sizeof block, f)) > 0) {
        size_t pos = 0;
        /* One line per csv_parse call: the line counter then says where
         * libcsv is when it calls back, blank lines and CRLF included. */
        while (ps.rc == PB_OK && pos < n) {
            const char *nl = memchr(block + pos, '\n', n - pos);
            size_t piece = nl ? (size_t)(nl - (block + pos)) + 1 : n - pos;

            if (csv_parse(&p, block + pos, piece, pb_csv_on_field, pb_csv_on_record,
                          &ps) != piece) {
                int e = csv_error(&p);
                if (e == CSV_EPARSE)
                    ps.rc = pb_err_set(err, PB_EINPUT,
                                       "%s:%zu: malformed CSV (a '\"' inside an unquoted "
                                       "field, or text after a closing quote)",
                                       path, ps.line);
                else
                    ps.rc = pb_err_set(err, PB_ERUNTIME, "%s:%zu: libcsv: %s", path,
                                       ps.line, csv_strerror(e));
                break;
            }
            pos += piece;
            if (nl != NULL)
                ps.line++;
        }
    }
    if (ps.rc == PB_OK && ferror(f)) {
        int e = errno;
        ps.rc = pb_err_set(err, PB_EINPUT, "cannot read CSV '%s': %s", path, strerror(e));
    }
    /* A file without a final newline still has its last record submitted
     * here.  A quote left open at the end means the file was cut short;
     * no line number, since libcsv does not say where that quote opened. */
    if (ps.rc == PB_OK &&
        csv_fini(&p, pb_csv_on_field, pb_csv_on_record, &ps) != 0 && ps.rc == PB_OK)
        ps.rc = pb_err_set(err, PB_EINPUT, "%s: file ends inside a quoted field (cut short?)",
                           path);
    csv_free(&p);
    free(ps.rec.buf);
    free(ps.rec.off);
    free(ps.rec.flen);
    free(ps.rec.field);
    return ps.rc;
}

int pb_csv_rec_find(const pb_csv_rec_t *rec, const char *name)
{
    size_t n = strlen(name);
    for (size_t j = 0; j < rec->nfields; j++)
        if (rec->flen[j] == n && memcmp(rec->field[j], name, n) == 0)
            return (int)j;
    return -1;
}

int pb_csv_parse_path(const char *path, pb_csv_record_fn_t record, void *arg, pb_err_t *err)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        int e = errno;
        return pb_err_set(err, PB_EINPUT, "cannot read CSV '%s': %s", path, strerror(e));
    }
    int rc = pb_csv_parse_file(f, path, record, arg, err);
    fclose(f);
    return rc;
}

int pb_csv_parse_table(const char *path, pb_csv_record_fn_t record, void *arg,
                       const size_t *nheader, pb_err_t *err)
{
    int rc = pb_csv_parse_path(path, record, arg, err);
    if (rc == PB_OK && *nheader == 0)
        rc = pb_err_set(err, PB_EINPUT, "%s: empty file, expected a header line", path);
    return rc;
}
