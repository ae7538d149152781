/* _POSIX_C_SOURCE: fmemopen (POSIX.1-2008) reads the built-in file as a
 * stream, the one way pb_against_each reads any file */
#define _POSIX_C_SOURCE 200809L
#include "pb_band_runs.h"

#include <stdio.h>
#include <stdlib.h>

#include "pb_against.h"

/* the generated pb_published_runs.c (CMakeLists.txt) */
extern const unsigned char pb_published_runs_csv[];
extern const size_t pb_published_runs_len;
extern const unsigned char pb_memory_runs_csv[];
extern const size_t pb_memory_runs_len;

typedef struct acc {
    pb_band_src_t *r;
    size_t n, cap;
    int memory; /* 1: memory errors, 0: step time errors */
} acc_t;

static int take(void *arg, const pb_against_run_t *run, pb_err_t *err)
{
    acc_t *a = arg;
    double pred = a->memory ? run->mem_predicted : run->predicted_s;
    double real = a->memory ? run->mem_measured : run->published_s;
    if (run->step == NULL || !(real > 0.0))
        return PB_OK;
    if (a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 32;
        pb_band_src_t *p = realloc(a->r, cap * sizeof *p);
        if (p == NULL)
            return pb_err_set(err, PB_ERUNTIME, "out of memory for the published runs");
        a->r = p, a->cap = cap;
    }
    pb_band_src_t *r = &a->r[a->n++];
    r->run.mech = pb_band_mech(&run->job->model, &run->job->layout, &run->job->step);
    r->run.err = pred / real - 1.0;
    snprintf(r->family, sizeof r->family, "%s", run->family ? run->family : run->name);
    return PB_OK;
}

static int built_in(const unsigned char *csv, size_t len, const char *name, int memory,
                    pb_band_src_t **out, size_t *n, pb_err_t *err)
{
    acc_t a = {NULL, 0, 0, memory};
    *out = NULL, *n = 0;
    FILE *f = fmemopen((void *)csv, len, "r");
    if (f == NULL)
        return pb_err_set(err, PB_ERUNTIME, "cannot open the built-in %s", name);
    pb_err_t e;
    pb_err_clear(&e);
    int code = pb_against_each(f, name, NULL, take, &a, &e);
    fclose(f);
    if (code != PB_OK) {
        free(a.r);
        return pb_err_set(err, PB_ERUNTIME, "the built-in %s: %s", name, e.msg);
    }
    *out = a.r, *n = a.n;
    return PB_OK;
}

/* the runs alone, without their families */
static int runs_only(int code, pb_band_src_t *src, size_t n, pb_band_run_t **out, pb_err_t *err)
{
    *out = NULL;
    if (code != PB_OK)
        return code;
    pb_band_run_t *r = malloc((n ? n : 1) * sizeof *r);
    if (r == NULL) {
        free(src);
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the published runs");
    }
    for (size_t i = 0; i < n; i++)
        r[i] = src[i].run;
    free(src);
    *out = r;
    return PB_OK;
}

int pb_band_runs_src(pb_band_src_t **out, size_t *n, pb_err_t *err)
{
    return built_in(pb_published_runs_csv, pb_published_runs_len,
                    "published_runs.csv (built in)", 0, out, n, err);
}

int pb_band_runs(pb_band_run_t **out, size_t *n, pb_err_t *err)
{
    pb_band_src_t *src = NULL;
    int code = pb_band_runs_src(&src, n, err);
    return runs_only(code, src, *n, out, err);
}

int pb_band_mem_runs(pb_band_run_t **out, size_t *n, pb_err_t *err)
{
    pb_band_src_t *src = NULL;
    int code = built_in(pb_memory_runs_csv, pb_memory_runs_len, "memory_runs.csv (built in)", 1,
                        &src, n, err);
    return runs_only(code, src, *n, out, err);
}
