/* The value parsers and the plain setters every option table uses: a
 * number, a list of enum names, a percentage, a file name, stored at the
 * field the spec names.  Apart from the parser (pb_cli.c), so a command's
 * file that fills a table depends on these and on no parsing loop. */
#include "pb_opt_set.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/pb_duration.h"
#include "../../util/pb_num.h"
#include "../../util/pb_size.h"

/* ---- value parsers ------------------------------------------------ */

int pb_parse_u64(const char *name, const char *v, uint64_t lo, uint64_t *out, pb_err_t *err)
{
    uint64_t x = 0;
    int rc = pb_num_u64(v, lo, UINT64_MAX, &x);
    /* PB_NUM_RANGE with x >= lo is past 2^64 - 1: not a whole number we hold */
    if (rc == PB_NUM_NAN || (rc == PB_NUM_RANGE && x >= lo))
        return pb_err_set(err, PB_EINPUT, "%s needs a whole number, not '%s'", name, v);
    if (rc == PB_NUM_RANGE)
        return pb_err_set(err, PB_EINPUT, "%s must be at least %llu (got %s)", name,
                          (unsigned long long)lo, v);
    *out = x;
    return PB_OK;
}

int pb_parse_int(const char *name, const char *v, int lo, int *out, pb_err_t *err)
{
    uint64_t x = 0;
    if (pb_parse_u64(name, v, (uint64_t)lo, &x, err) != PB_OK)
        return err->code;
    if (x > INT_MAX)
        return pb_err_set(err, PB_EINPUT, "%s is too large: %s", name, v);
    *out = (int)x;
    return PB_OK;
}

int pb_parse_double(const char *name, const char *v, int percent_ok, double *out, pb_err_t *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (percent_ok && end != v && *end == '%' && end[1] == '\0')
        end++;
    if (errno != 0 || end == v || *end != '\0' || !isfinite(x) || x <= 0.0)
        return pb_err_set(err, PB_EINPUT, "%s needs a positive number, not '%s'", name, v);
    *out = x;
    return PB_OK;
}

static int unknown_value(const char *what, const char *tok, pb_enum_name_fn name, int nall,
                         pb_err_t *err)
{
    char list[200] = "";
    size_t used = 0;
    for (int i = 0; i < nall && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s, ", name(i));
    return pb_err_set(err, PB_EINPUT, "unknown %s '%s' (one of: %s%sall)", what, tok, list,
                      strcmp(what, "mode") == 0 ? "both, " : "");
}

/* "all" (and, for modes, "both") means the first all_count values */
int pb_parse_list(const char *what, const char *v, pb_enum_parse_fn fn, pb_enum_name_fn name,
                  int nall, int all_count, int *out, int *n, pb_err_t *err)
{
    *n = 0;
    if (strcmp(v, "all") == 0 || (strcmp(what, "mode") == 0 && strcmp(v, "both") == 0)) {
        for (int i = 0; i < all_count; i++)
            out[(*n)++] = i;
        return PB_OK;
    }
    char buf[256];
    if (strlen(v) >= sizeof buf || v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "bad %s list '%s'", what, v);
    snprintf(buf, sizeof buf, "%s", v);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int x;
        if (fn(tok, &x) != 0)
            return unknown_value(what, tok, name, nall, err);
        for (int i = 0; i < *n; i++)
            if (out[i] == x)
                return pb_err_set(err, PB_EINPUT, "%s '%s' given twice", what, tok);
        if (*n >= nall)
            return pb_err_set(err, PB_EINPUT, "too many %s values in '%s'", what, v);
        out[(*n)++] = x;
    }
    return PB_OK;
}

/* ---- the plain setters (the field is s->off in pb_options_t) ------ */

int pb_opt_flag(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err)
{
    (void)v, (void)shown, (void)err;
    *PB_FIELD(o, s, int) = 1;
    return PB_OK;
}

int pb_opt_str(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err)
{
    (void)shown, (void)err;
    *PB_FIELD(o, s, const char *) = v;
    return PB_OK;
}

int pb_opt_file(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err)
{
    if (v[0] == '\0')
        return pb_err_set(err, PB_EINPUT, "%s needs a file name", shown);
    *PB_FIELD(o, s, const char *) = v;
    return PB_OK;
}

int pb_opt_int(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err)
{
    return pb_parse_int(shown, v, (int)s->lo, PB_FIELD(o, s, int), err);
}

int pb_opt_u64(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err)
{
    return pb_parse_u64(shown, v, (uint64_t)s->lo, PB_FIELD(o, s, uint64_t), err);
}

/* a positive number, no percent sign */
int pb_opt_pos(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
               pb_err_t *err)
{
    return pb_parse_double(shown, v, 0, PB_FIELD(o, s, double), err);
}

/* "5", "5%" and "0.5" all mean percent; stored as a fraction */
int pb_opt_percent(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                   pb_err_t *err)
{
    double *d = PB_FIELD(o, s, double);
    if (pb_parse_double(shown, v, 1, d, err) != PB_OK)
        return err->code;
    *d /= 100.0;
    return PB_OK;
}

/* a time: "90", "90s", "2m", "1.5h", "250ms" (util/pb_duration.h), in seconds */
int pb_opt_duration(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                    pb_err_t *err)
{
    int rc = pb_duration(v, PB_FIELD(o, s, double));
    if (rc == PB_DURATION_BAD)
        return pb_err_set(err, PB_EINPUT, "%s takes a time such as 90s, 2m or 1.5h, not '%s'",
                          shown, v);
    if (rc == PB_DURATION_NOT_POS)
        return pb_err_set(err, PB_EINPUT, "%s must be a time above 0, not '%s'", shown, v);
    return PB_OK;
}

int pb_opt_size(pb_options_t *o, const pb_opt_spec_t *s, const char *v, const char *shown,
                pb_err_t *err)
{
    (void)shown;
    return pb_size_parse(v, PB_FIELD(o, s, uint64_t), err);
}

static int p_dtype(const char *s, int *o)
{
    pb_dtype_t t;
    int rc = pb_dtype_parse(s, &t);
    *o = (int)t;
    return rc;
}
static const char *n_dtype(int i) { return pb_dtype_name((pb_dtype_t)i); }

int pb_parse_dtypes(const char *v, pb_dtype_t *out, int *n, pb_err_t *err)
{
    int tmp[PB_DTYPE_COUNT];
    if (pb_parse_list("dtype", v, p_dtype, n_dtype, PB_DTYPE_COUNT, PB_DTYPE_COUNT, tmp, n, err))
        return err->code;
    for (int i = 0; i < *n; i++)
        out[i] = (pb_dtype_t)tmp[i];
    return PB_OK;
}
