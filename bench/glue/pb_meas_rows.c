#include "pb_meas_rows.h"

#include <stdlib.h>
#include <string.h>

#include "../../core/pb_link.h"
#include "../../reports/pb_csv.h"

/* The row's group members per node (pb_meas_t.per_node): a group within
 * one node (any link but NET) has all of them there; a group of the whole
 * world spread over `nodes` nodes has world/nodes in each (nccl-tests'
 * logs: 2 nodes x 4 GPUs are nodes 2, world 8); a smaller group across
 * nodes (a pattern's DP group, say) was placed by a layout the row does
 * not carry: unknown (0), which the model reads conservatively. */
static int meas_per_node(const pb_result_t *r, const char *link)
{
    if (!pb_link_is_net(link))
        return r->group_size;
    if (r->group_size == r->world && r->nodes >= 2 && r->world % r->nodes == 0 &&
        r->world / r->nodes < r->group_size)
        return r->world / r->nodes;
    return 0;
}

int pb_meas_from_rows(const pb_result_t *rows, size_t n, pb_meas_t **pts, size_t *npts,
                      size_t *skipped, pb_err_t *err)
{
    *pts = malloc((n ? n : 1) * sizeof **pts);
    if (*pts == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory for measured points");
    size_t m = 0, skip = 0;
    for (size_t i = 0; i < n; i++) {
        const pb_result_t *r = &rows[i];
        pb_coll_t c;
        pb_dtype_t dt = PB_F32;
        if (strcmp(r->pattern, "gemm") == 0 || pb_calib_coll_parse(r->collective, &c) != 0 ||
            !(r->time_us_median > 0) || r->wrong > 0 || r->group_size < 1) {
            skip++;
            continue;
        }
        /* a reduction's time depends on its type: one of an unknown type
         * cannot be placed; the other collectives move bytes, whatever
         * the type (their curves merge every type's points) */
        if (pb_dtype_parse(r->dtype, &dt) != 0 && pb_coll_reduces(c)) {
            skip++;
            continue;
        }
        pb_meas_t *p = &(*pts)[m++];
        memset(p, 0, sizeof *p);
        p->coll = c;
        p->n = r->group_size;
        p->dtype = dt;
        size_t ll = strlen(r->link_class);
        /* a row written before link classes existed: within the node */
        const char *link = ll ? r->link_class : "LOCAL";
        ll = strlen(link);
        memcpy(p->link, link, ll < PB_LINK_STR - 1 ? ll : PB_LINK_STR - 1);
        p->bytes = r->bytes;
        p->time_us = r->time_us_median;
        p->per_node = meas_per_node(r, p->link);
    }
    *npts = m;
    if (skipped)
        *skipped = skip;
    return PB_OK;
}

double pb_meas_gemm_tflops(const pb_result_t *rows, size_t n, size_t *ngemm)
{
    double flops = 0, secs = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const pb_result_t *r = &rows[i];
        if (strcmp(r->pattern, "gemm") != 0 || r->flops == 0 || !(r->tflops > 0))
            continue;
        flops += (double)r->flops;
        secs += (double)r->flops / (r->tflops * 1e12);
        k++;
    }
    if (ngemm)
        *ngemm = k;
    return secs > 0 ? flops / secs / 1e12 : 0.0;
}

int pb_meas_read_files(const char *const *paths, int npaths, pb_result_t **rows, size_t *n,
                       pb_err_t *err)
{
    *rows = NULL;
    *n = 0;
    for (int f = 0; f < npaths; f++) {
        pb_result_t *r = NULL;
        size_t k = 0;
        if (pb_csv_read(paths[f], &r, &k, err) != PB_OK) {
            free(*rows);
            *rows = NULL;
            return err->code;
        }
        pb_result_t *all = realloc(*rows, (*n + k + 1) * sizeof *all);
        if (all == NULL) {
            free(r);
            return pb_err_set(err, PB_ERUNTIME, "out of memory reading results");
        }
        if (k)
            memcpy(all + *n, r, k * sizeof *r);
        *rows = all;
        *n += k;
        free(r);
    }
    return PB_OK;
}
