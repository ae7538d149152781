#include "pb_json.h"

#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "pb_csv.h"

/* the CSV writes "%.9g": the same digits here, so the two files agree */
#define PB_JSON_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9))

struct pb_json_writer {
    FILE *f;
    char path[]; /* for messages */
};

int pb_json_open(const char *path, pb_json_writer_t **out, pb_err_t *err)
{
    size_t n = strlen(path);
    pb_json_writer_t *w = malloc(sizeof *w + n + 1);
    if (w == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory");
    memcpy(w->path, path, n + 1);
    w->f = fopen(path, "a");
    if (w->f == NULL) {
        int e = errno;
        free(w);
        return pb_err_set(err, PB_EINPUT, "cannot write JSON '%s': %s", path, strerror(e));
    }
    *out = w;
    return PB_OK;
}

static json_t *field_value(const pb_result_t *r, int i)
{
    const char *base = (const char *)r + pb_csv_column_offset(i);
    int iv;
    uint64_t u;
    int64_t s;
    double d;
    switch (pb_csv_column_type(i)) {
    case PB_CSV_STR:
        return json_string(base);
    case PB_CSV_INT:
        memcpy(&iv, base, sizeof iv);
        return json_integer(iv);
    case PB_CSV_U64:
        memcpy(&u, base, sizeof u);
        /* JSON integers are signed 64-bit in jansson; no size gets near */
        return json_integer(u > INT64_MAX ? INT64_MAX : (json_int_t)u);
    case PB_CSV_WRONG:
        memcpy(&s, base, sizeof s);
        return s == PB_RESULT_WRONG_UNCHECKED ? json_null() : json_integer(s);
    case PB_CSV_DBL:
        memcpy(&d, base, sizeof d);
        return json_real(d);
    }
    return NULL;
}

int pb_json_write(pb_json_writer_t *w, const pb_result_t *r, pb_err_t *err)
{
    json_t *o = json_object();
    int bad = o == NULL;
    for (int i = 0; i < pb_csv_ncolumns() && !bad; i++) {
        json_t *v = field_value(r, i);
        /* a NaN or infinite double is not JSON: refused, never written */
        bad = v == NULL || json_object_set_new(o, pb_csv_column(i), v) != 0;
    }
    char *line = bad ? NULL : json_dumps(o, PB_JSON_FLAGS);
    json_decref(o);
    if (line == NULL)
        return pb_err_set(err, PB_ERUNTIME, "%s: cannot encode a row as JSON (a number "
                          "that is not finite?)", w->path);
    /* one fputs of the whole line, then flush: a row is there or not */
    int ok = fputs(line, w->f) >= 0 && fputc('\n', w->f) != EOF && fflush(w->f) == 0;
    free(line);
    if (!ok)
        return pb_err_set(err, PB_ERUNTIME, "writing JSON '%s' failed: %s", w->path,
                          strerror(errno));
    return PB_OK;
}

void pb_json_close(pb_json_writer_t *w)
{
    if (w == NULL)
        return;
    fclose(w->f);
    free(w);
}

/* ------------------------------------------------------------------ */

static int set_field(pb_result_t *r, int i, json_t *v, const char *path, size_t line,
                     pb_err_t *err)
{
    char *base = (char *)r + pb_csv_column_offset(i);
    const char *name = pb_csv_column(i);
    pb_csv_type_t t = pb_csv_column_type(i);
    if (t == PB_CSV_STR) {
        if (!json_is_string(v))
            return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is not a string", path,
                              line, name);
        if (json_string_length(v) > PB_RESULT_STR - 1)
            return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is longer than %d bytes",
                              path, line, name, PB_RESULT_STR - 1);
        memcpy(base, json_string_value(v), json_string_length(v) + 1);
        return PB_OK;
    }
    if (t == PB_CSV_WRONG && json_is_null(v)) {
        int64_t s = PB_RESULT_WRONG_UNCHECKED;
        memcpy(base, &s, sizeof s);
        return PB_OK;
    }
    if (t == PB_CSV_DBL ? !json_is_number(v) : !json_is_integer(v))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is not %s", path, line, name,
                          t == PB_CSV_DBL ? "a number" : "an integer");
    json_int_t x = t == PB_CSV_DBL ? 0 : json_integer_value(v);
    if ((t == PB_CSV_U64 && x < 0) || (t == PB_CSV_INT && (x < INT32_MIN || x > INT32_MAX)))
        return pb_err_set(err, PB_EINPUT, "%s:%zu: field '%s' is out of range", path, line,
                          name);
    int iv = (int)x;
    uint64_t u = (uint64_t)x;
    int64_t s = (int64_t)x;
    double d = json_number_value(v);
    switch (t) {
    case PB_CSV_INT: memcpy(base, &iv, sizeof iv); break;
    case PB_CSV_U64: memcpy(base, &u, sizeof u); break;
    case PB_CSV_WRONG: memcpy(base, &s, sizeof s); break;
    case PB_CSV_DBL: memcpy(base, &d, sizeof d); break;
    case PB_CSV_STR: break;
    }
    return PB_OK;
}

static int parse_line(const char *text, const char *path, size_t line, pb_result_t *r,
                      pb_err_t *err)
{
    json_error_t je;
    json_t *o = json_loads(text, 0, &je);
    if (o == NULL)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: malformed JSON: %s", path, line, je.text);
    int rc = PB_OK;
    if (!json_is_object(o))
        rc = pb_err_set(err, PB_EINPUT, "%s:%zu: a row must be a JSON object", path, line);
    memset(r, 0, sizeof *r);
    r->slowest_rank = -1;
    r->wrong = PB_RESULT_WRONG_UNCHECKED;
    for (int i = 0; i < pb_csv_ncolumns() && rc == PB_OK; i++) {
        json_t *v = json_object_get(o, pb_csv_column(i));
        if (v != NULL)
            rc = set_field(r, i, v, path, line, err);
    }
    json_decref(o);
    return rc;
}

int pb_json_read(const char *path, pb_result_t **rows, size_t *nrows, pb_err_t *err)
{
    *rows = NULL;
    *nrows = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return pb_err_set(err, PB_EINPUT, "cannot read JSON '%s': %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, n = 0, have = 0, line = 0;
    ssize_t len;
    int rc = PB_OK;
    pb_result_t *out = NULL;
    while (rc == PB_OK && (len = getline(&buf, &cap, f)) >= 0) {
        line++;
        if (strspn(buf, " \t\r\n") == (size_t)len)
            continue;
        if (n == have) {
            size_t nc = have ? have * 2 : 64;
            pb_result_t *p = realloc(out, nc * sizeof *p);
            if (p == NULL) {
                rc = pb_err_set(err, PB_ERUNTIME, "out of memory reading '%s'", path);
                break;
            }
            out = p;
            have = nc;
        }
        rc = parse_line(buf, path, line, &out[n], err);
        if (rc == PB_OK)
            n++;
    }
    free(buf);
    fclose(f);
    if (rc != PB_OK) {
        free(out);
        return rc;
    }
    *rows = out;
    *nrows = n;
    return PB_OK;
}
