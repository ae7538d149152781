/* pb_import_fail.c - a failed nccl-tests run: the lines that say so, and
 * the one named; a run whose data check failed (pb_import_priv.h). */
#include "pb_import_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first nccl-tests (2017-2018, b188a15): "NCCL failure %s:%d '%s'",
 * "Cuda failure %s:%d '%s'" (src/common.h), no host, no "Test": the
 * words, then a source file:line and a quote, so a NCCL WARN line saying
 * "failure" is none. */
static int first_form(const char *line)
{
    static const char *const cause[] = {"NCCL failure ", "Cuda failure "};
    for (size_t i = 0; i < sizeof cause / sizeof cause[0]; i++)
        for (const char *p = strstr(line, cause[i]); p; p = strstr(p + 1, cause[i])) {
            const char *q = p + strlen(cause[i]), *colon = strchr(q, ':');
            size_t digits = colon ? strspn(colon + 1, "0123456789") : 0;
            if (colon && colon > q && memchr(q, ' ', (size_t)(colon - q)) == NULL && digits &&
                strncmp(colon + 1 + digits, " '", 2) == 0 && (p == line || p[-1] != ':'))
                return 1;
        }
    return 0;
}

/* nccl-tests' failure lines (src/common.h, src/common.cu), which end a
 * run wherever they fall, even inside a row it had begun printing:
 *   "%s: Test NCCL failure %s:%d '%s'" ('%s / %s' from NCCL 2.13: with
 *       ncclGetLastError), "%s: Test CUDA failure %s:%d '%s'",
 *   "%s: Test timeout (%ds) %s:%d", and the first version's forms
 *       (first_form): the cause (2);
 *   " .. %s pid %d: Test failure %s:%d": TESTCHECK's trace as the error
 *       goes up, one per level (1). */
int pb_imp_nccl_failure_kind(const char *line)
{
    static const char *const cause[] = {": Test NCCL failure ", ": Test CUDA failure ",
                                        ": Test timeout ("};
    for (size_t i = 0; i < sizeof cause / sizeof cause[0]; i++)
        if (strstr(line, cause[i]) != NULL)
            return 2;
    if (first_form(line))
        return 2;
    return strstr(line, ": Test failure ") != NULL;
}

/* The failure to name: the first cause, else the first trace line. */
int pb_imp_nccl_find_failure(const pb_imp_src_t *s, size_t *at)
{
    int best = 0;
    for (size_t i = 0; i < s->nlines && best < 2; i++) {
        int k = pb_imp_nccl_failure_kind(s->lines[i]);
        if (k > best) {
            best = k;
            *at = i;
        }
    }
    return best;
}

/* With err: the refusal; without: out->failure, for --partial's summary.
 * Blanks run together (a row's columns before a failure printed into it)
 * are shown as one; past 160 characters the line is shown cut, with "...". */
int pb_imp_nccl_name_failure(pb_imp_src_t *s, size_t at, pb_err_t *err)
{
    char text[168];
    size_t k = 0;
    const char *t = s->lines[at] + strspn(s->lines[at], " \t");
    for (; *t && k < 160; t++)
        if (!((*t == ' ' || *t == '\t') && (t[1] == ' ' || t[1] == '\t')))
            text[k++] = *t == '\t' ? ' ' : *t;
    snprintf(text + k, sizeof text - k, "%s", *t ? "..." : "");
    if (err != NULL)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: the run failed: %s (--partial keeps the rows "
                          "before it)", s->name, at + 1, text);
    snprintf(s->out->failure, sizeof s->out->failure, "%.60s:%zu: %s", s->name, at + 1, text);
    return PB_OK;
}

/* "# Out of bounds values : 7 FAILED" (src/util.cu writeResultFooter:
 * "# %-20s : %d %s"; before 2019 without '#': " Out of bounds values :
 * %d %s"): the count of (process, row block) pairs that saw wrong
 * elements, summed over the processes. */
int pb_imp_nccl_oob_line(const char *text, long *count)
{
    const char *p = text + strspn(text, " \t");
    if (*p == '#')
        p += 1 + strspn(p + 1, " \t");
    static const char key[] = "Out of bounds values";
    if (strncmp(p, key, sizeof key - 1) != 0)
        return 0;
    p += sizeof key - 1;
    p += strspn(p, " \t");
    if (*p != ':')
        return 0;
    char *end;
    long v = strtol(p + 1, &end, 10);
    if (end == p + 1 || v < 0)
        return 0;
    *count = v;
    return 1;
}

/* DeltaMaxValue (src/common.cu, 2017-2022): half and bfloat16 1e-2, float
 * 1e-5, double 1e-12, the integers 1e-200 (any deviation), times n - 1 */
double pb_imp_nccl_delta_max(const char *type, int n)
{
    double d = strcmp(type, "half") == 0 || strcmp(type, "bfloat16") == 0 ? 1e-2
               : strcmp(type, "float") == 0                               ? 1e-5
               : strcmp(type, "double") == 0                              ? 1e-12
                                                                          : 1e-200;
    return d * (n > 1 ? n - 1 : 1);
}

int pb_imp_check_wrong(pb_imp_check_t *ck, const char *x, size_t line, pb_result_t *r)
{
    double v;
    if (strcmp(x, "N/A") == 0)
        return 0;
    if (pb_imp_dbl(x, &v) != 0 || v < 0 || v > 9e18)
        return 1;
    r->wrong = (int64_t)v;
    if (r->wrong > 0 && ck->bad_row == 0) {
        ck->bad_row = line + 1;
        snprintf(ck->row_why, sizeof ck->row_why, "%llu B %s, %.32s wrong elements",
                 (unsigned long long)r->bytes, r->in_place ? "in-place" : "out-of-place", x);
    }
    return 0;
}

int pb_imp_check_delta(pb_imp_check_t *ck, size_t i, double delta, size_t line, pb_result_t *r)
{
    if (i >= ck->cap) {
        size_t cap = ck->cap ? ck->cap : 64;
        while (cap <= i)
            cap *= 2;
        pb_imp_check_row_t *p = realloc(ck->row, cap * sizeof *p);
        if (p == NULL)
            return -1;
        ck->row = p;
        ck->cap = cap;
    }
    ck->row[i].delta = delta;
    ck->row[i].line = line;
    if (delta == 0)
        r->wrong = 0;
    return 0;
}

/* a footer of 0 OK passed every deviation; else past DeltaMaxValue x
 * (n - 1) is wrong (how many elements: not printed, so 1) */
void pb_imp_check_judge(pb_imp_check_t *ck, pb_import_out_t *out, size_t from)
{
    for (size_t i = from; i < out->n && i < ck->cap; i++) {
        pb_result_t *r = &out->rows[i];
        double d = ck->row[i].delta, max = pb_imp_nccl_delta_max(r->dtype, r->world);
        if (!(d > 0))
            continue;
        r->wrong = ck->oob == 0 || d <= max ? 0 : 1;
        if (r->wrong && ck->bad_row == 0) {
            ck->bad_row = ck->row[i].line + 1;
            snprintf(ck->row_why, sizeof ck->row_why, "%llu B %s, error %.2g past the %.2g "
                     "%.16s allows on %d ranks", (unsigned long long)r->bytes,
                     r->in_place ? "in-place" : "out-of-place", d, max, r->dtype, r->world);
        }
    }
}

void pb_imp_check_footer(pb_imp_check_t *ck, long oob, size_t line)
{
    ck->oob = oob;
    if (oob > 0 && ck->bad_foot == 0) {
        ck->bad_foot = line + 1;
        snprintf(ck->foot_why, sizeof ck->foot_why, "Out of bounds values : %ld FAILED", oob);
    }
}

/* its first wrong row (else the footer), the footer's count beside it */
int pb_imp_check_name(pb_imp_src_t *s, const pb_imp_check_t *ck, pb_err_t *err)
{
    if (ck->bad_row == 0 && ck->bad_foot == 0)
        return PB_OK;
    char why[sizeof ck->row_why + sizeof ck->foot_why + 16];
    size_t at = (ck->bad_row ? ck->bad_row : ck->bad_foot) - 1;
    snprintf(why, sizeof why, "%s%s%s", ck->bad_row ? ck->row_why : "",
             ck->bad_row && ck->bad_foot ? "; the footer: " : "",
             ck->bad_foot ? ck->foot_why : "");
    if (!s->o->partial)
        return pb_err_set(err, PB_EINPUT, "%s:%zu: the run failed nccl-tests' data check: %s "
                          "(--partial keeps its rows, the wrong ones marked)", s->name, at + 1,
                          why);
    if (s->out->failure[0] == '\0') {
        snprintf(s->out->failure, sizeof s->out->failure, "%.60s:%zu: %.150s", s->name, at + 1,
                 why);
        s->out->failed_check = 1;
    }
    return PB_OK;
}

void pb_imp_check_free(pb_imp_check_t *ck)
{
    free(ck->row);
    memset(ck, 0, sizeof *ck);
}
