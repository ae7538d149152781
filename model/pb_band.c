#include "pb_band.h"

#include "../util/pb_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned pb_band_mech(const pb_model_t *m, const pb_layout_t *l, const pb_step_cfg_t *c)
{
    unsigned k = 0;
    if (m->experts > 0)
        k |= PB_MECH_MOE;
    if (l->size[PB_DIM_PP] > 1)
        k |= PB_MECH_PIPE;
    if (c->traffic.zero >= 2)
        k |= PB_MECH_SHARD;
    if (l->size[PB_DIM_CP] > 1)
        k |= PB_MECH_CP;
    if (c->framework == PB_FW_FSDP || c->framework == PB_FW_TORCHTITAN ||
        c->framework == PB_FW_MAXTEXT)
        k |= PB_MECH_NATIVE;
    if (c->fp8)
        k |= PB_MECH_FP8;
    return k;
}

void pb_band_mech_words(unsigned mech, unsigned care, char *buf, size_t len)
{
    /* a mechanism let go is not named either way: the runs may or may
     * not have used it */
    snprintf(buf, len, "%s%s%s%s%s%s",
             !(care & PB_MECH_MOE) ? "" : mech & PB_MECH_MOE ? ", experts" : ", dense",
             !(care & PB_MECH_NATIVE)     ? ""
             : mech & PB_MECH_NATIVE ? ", a PyTorch-native or JAX stack"
                                     : ", Megatron-style kernels",
             care & mech & PB_MECH_FP8 ? ", fp8" : "",
             !(care & PB_MECH_PIPE) ? "" : mech & PB_MECH_PIPE ? ", a pipeline" : ", no pipeline",
             care & mech & PB_MECH_SHARD ? ", sharded parameters" : "",
             care & mech & PB_MECH_CP ? ", context parallelism" : "");
    size_t n = strlen(buf);
    if (n >= 2) /* the first item without its leading ", " */
        memmove(buf, buf + 2, n - 1);
}

int pb_band_from_runs(const pb_band_run_t *runs, size_t n, unsigned mech, pb_band_t *out,
                      pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    out->mech = mech & PB_MECH_ALL;
    if (n == 0)
        return pb_err_set(err, PB_EINPUT, "no published runs to derive a band from");
    double *e = malloc(n * sizeof *e);
    if (e == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for the band");
    /* the mechanisms compared, most telling first; the last let go first */
    static const unsigned order[] = {PB_MECH_MOE,  PB_MECH_NATIVE, PB_MECH_FP8,
                                     PB_MECH_PIPE, PB_MECH_SHARD,  PB_MECH_CP};
    const int norder = (int)(sizeof order / sizeof order[0]);
    size_t m = 0;
    unsigned care = PB_MECH_ALL;
    for (int keep = norder; keep >= 0; keep--) {
        care = 0;
        for (int i = 0; i < keep; i++)
            care |= order[i];
        m = 0;
        for (size_t i = 0; i < n; i++)
            if ((runs[i].mech & care) == (out->mech & care))
                e[m++] = runs[i].err;
        if (m >= PB_BAND_MIN_RUNS || (keep == 0 && m > 0))
            break;
    }
    pb_stats_sort(e, m);
    /* the j-th smallest and j-th largest of m errors hold a further run's
     * with probability (m + 1 - 2j) / (m + 1) (pb_band.h): the most
     * trimmed pair that keeps 4 in 5, j = floor((m + 1) / 10), at least
     * the smallest and largest */
    size_t j = (m + 1) / PB_BAND_TRIM_DIV;
    if (j < 1)
        j = 1;
    double lo = e[j - 1], hi = e[m - j];
    free(e);
    out->err_lo = lo < 0.0 ? lo : 0.0;
    out->err_hi = hi > 0.0 ? hi : 0.0;
    out->runs = (int)m;
    out->match = care;
    return PB_OK;
}

void pb_band_range(const pb_band_t *b, double lo_s, double hi_s, double *likely_lo,
                   double *likely_hi)
{
    /* a model that ran err too slow on runs like this one: the real step
     * is the prediction / (1 + err); err > -1 for any positive
     * prediction of a positive published time */
    double elo = b->err_lo > PB_BAND_ERR_FLOOR ? b->err_lo : PB_BAND_ERR_FLOOR;
    *likely_lo = lo_s / (1.0 + b->err_hi);
    *likely_hi = hi_s / (1.0 + elo);
}

int pb_mem_band(const pb_band_run_t *runs, size_t n, unsigned mech, const pb_step_t *st,
                pb_mem_band_t *out, pb_err_t *err)
{
    if (pb_band_from_runs(runs, n, mech, &out->band, err) != PB_OK)
        return err->code;
    out->fit = pb_mem_fit(pb_mem_needed(st->mem.total), st->cap.usable, out->band.err_lo, out->band.err_hi,
                          &out->lo, &out->hi);
    return PB_OK;
}
