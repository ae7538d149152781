/* pb_import_fail.c - a failed nccl-tests run: the lines that say so, and
 * the one named (pb_import_priv.h). */
#include "pb_import_priv.h"

#include <stdio.h>
#include <string.h>

/* nccl-tests' failure lines (src/common.h, src/common.cu), which end a
 * run wherever they fall, even inside a row it had begun printing:
 *   "%s: Test NCCL failure %s:%d '%s'" ('%s / %s' from NCCL 2.13: with
 *       ncclGetLastError), "%s: Test CUDA failure %s:%d '%s'",
 *   "%s: Test timeout (%ds) %s:%d": the cause (2);
 *   " .. %s pid %d: Test failure %s:%d": TESTCHECK's trace as the error
 *       goes up, one per level (1). */
int pb_imp_nccl_failure_kind(const char *line)
{
    static const char *const cause[] = {": Test NCCL failure ", ": Test CUDA failure ",
                                        ": Test timeout ("};
    for (size_t i = 0; i < sizeof cause / sizeof cause[0]; i++)
        if (strstr(line, cause[i]) != NULL)
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
