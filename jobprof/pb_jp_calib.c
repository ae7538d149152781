/* pb_jp_calib.c - achieved against calibrated (rules: pb_jp_calib.h). */
#include "pb_jp_calib.h"

#include <stdlib.h>
#include <string.h>

/* One timed instance under its row's key. */
typedef struct entry {
    int comm, kind, coll, dtype, n, net, per_node;
    uint64_t bytes;
    int64_t dur_ns;
} entry_t;

static int cmp_entry(const void *pa, const void *pb)
{
    const entry_t *a = pa, *b = pb;
    const int ka[] = {a->comm, a->kind, a->coll, a->dtype, a->n, a->net, a->per_node};
    const int kb[] = {b->comm, b->kind, b->coll, b->dtype, b->n, b->net, b->per_node};
    for (size_t i = 0; i < sizeof ka / sizeof ka[0]; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i] ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return (a->dur_ns > b->dur_ns) - (a->dur_ns < b->dur_ns);
}

static int same_key(const entry_t *a, const entry_t *b)
{
    return a->comm == b->comm && a->kind == b->kind && a->coll == b->coll &&
           a->dtype == b->dtype && a->n == b->n && a->net == b->net &&
           a->per_node == b->per_node && a->bytes == b->bytes;
}

/* Where a comm's members sit: across nodes or not, members per node
 * (0 not known). */
static void comm_shape(const pb_jcomm_t *c, int gpn, int *net, int *per_node)
{
    *net = 0;
    *per_node = 0;
    if (c->nnodes > 0) {
        *net = c->nnodes > 1;
        *per_node = (c->nranks + c->nnodes - 1) / c->nnodes;
        return;
    }
    if (gpn <= 0)
        return;
    int first = -1, most = 0;
    for (int k = 0; k < c->nranks; k++) {
        if (c->members[k] < 0)
            return;
        int node = c->members[k] / gpn, here = 0;
        for (int j = 0; j < c->nranks; j++)
            here += c->members[j] / gpn == node;
        if (first < 0)
            first = node;
        *net |= node != first;
        most = here > most ? here : most;
    }
    *per_node = most;
}

/* shape: every comm's net and per_node (comm_shape), two per comm */
static int fill_entry(const pb_jobprof_t *jp, const pb_jp_inst_t *x, int gpn, const int *shape,
                      entry_t *e)
{
    if (!x->known || x->dur_ns <= 0 || x->bytes == 0)
        return -1;
    const pb_jcomm_t *c = &jp->comms[x->comm];
    *e = (entry_t){x->comm, x->kind, x->coll, x->dtype, c->nranks, shape[2 * x->comm],
                   shape[2 * x->comm + 1], x->bytes, x->dur_ns};
    if (x->kind != PB_JK_COLL) { /* the pair */
        e->n = 2;
        if (x->peer >= 0 && x->rank >= 0 && gpn > 0 && c->nnodes == 0)
            e->net = x->rank / gpn != x->peer / gpn;
        e->per_node = e->net ? 1 : 2;
    }
    return e->n >= 2 ? 0 : -1;
}

static void judge(const pb_cost_t *cost, double threshold, pb_jp_eff_t *r)
{
    double factor = pb_busbw_factor(r->coll, r->n);
    r->achieved_busbw = (double)r->bytes / (r->achieved_us * 1e3) * factor;
    pb_cost_src_t src;
    double t = pb_cost_place_us(cost, r->coll, r->dtype, r->n, r->net, r->per_node, r->bytes, 1.0,
                                &src);
    r->covered = src.cal != PB_CAL_PRESET && t > 0;
    if (!r->covered)
        return;
    r->predicted_us = t;
    r->predicted_busbw = (double)r->bytes / (t * 1e3) * factor;
    r->eff = t / r->achieved_us;
    r->below = r->eff < threshold;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_eff(const pb_jp_calcmp_t *c)
{
    double *v = malloc((c->n ? c->n : 1) * sizeof *v);
    size_t k = 0;
    if (v == NULL)
        return 0.0;
    for (size_t i = 0; i < c->n; i++)
        if (c->rows[i].covered)
            v[k++] = c->rows[i].eff;
    if (k > 0) /* qsort wants a valid array even for none */
        qsort(v, k, sizeof *v, cmp_double);
    double m = k == 0 ? 0.0 : k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
    free(v);
    return m;
}

/* The sorted entries grouped into rows. */
static void rows_of(const entry_t *e, size_t ne, const pb_cost_t *cost, pb_jp_calcmp_t *out)
{
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        while (j < ne && same_key(&e[i], &e[j]))
            j++;
        size_t cnt = j - i, mid = i + cnt / 2;
        double med = cnt % 2 ? (double)e[mid].dur_ns
                             : 0.5 * ((double)e[mid - 1].dur_ns + (double)e[mid].dur_ns);
        pb_jp_eff_t *r = &out->rows[out->n++];
        *r = (pb_jp_eff_t){.comm = e[i].comm, .kind = (pb_jkind_t)e[i].kind,
                           .coll = (pb_coll_t)e[i].coll, .dtype = (pb_dtype_t)e[i].dtype,
                           .bytes = e[i].bytes, .n = e[i].n, .net = e[i].net,
                           .per_node = e[i].per_node, .count = cnt, .achieved_us = med / 1e3};
        judge(cost, out->threshold, r);
        out->covered += (size_t)r->covered;
        out->below += (size_t)r->below;
        i = j;
    }
}

int pb_jp_calib_cmp(const pb_jobprof_t *jp, const pb_jp_insts_t *in, const pb_cost_t *cost,
                    int gpus_per_node, double threshold, pb_jp_calcmp_t *out, pb_err_t *err)
{
    memset(out, 0, sizeof *out);
    out->threshold = threshold;
    int gpn = gpus_per_node > 0 ? gpus_per_node : cost->hw ? cost->hw->gpus_per_node : 0;
    entry_t *e = malloc((in->n ? in->n : 1) * sizeof *e);
    int *shape = malloc((2 * jp->ncomms + 2) * sizeof *shape);
    out->rows = malloc((in->n ? in->n : 1) * sizeof *out->rows);
    if (e == NULL || shape == NULL || out->rows == NULL) {
        free(e);
        free(shape);
        pb_jp_calcmp_free(out);
        return pb_err_set(err, PB_ERUNTIME, "out of memory comparing with the calibration");
    }
    for (size_t c = 0; c < jp->ncomms; c++)
        comm_shape(&jp->comms[c], gpn, &shape[2 * c], &shape[2 * c + 1]);
    size_t ne = 0;
    for (size_t i = 0; i < in->n; i++)
        if (fill_entry(jp, &in->v[i], gpn, shape, &e[ne]) == 0)
            ne++;
    if (ne > 0) /* qsort wants a valid array even for none */
        qsort(e, ne, sizeof *e, cmp_entry);
    rows_of(e, ne, cost, out);
    free(e);
    free(shape);
    out->median_eff = median_eff(out);
    return PB_OK;
}

void pb_jp_calcmp_free(pb_jp_calcmp_t *c)
{
    free(c->rows);
    memset(c, 0, sizeof *c);
}
