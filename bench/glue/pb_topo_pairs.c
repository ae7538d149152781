#include "pb_topo_pairs.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../reports/pb_pairs_csv.h"
#include "../../topo/pb_cluster.h"

static void pair_row(pb_pair_row_t *r, const char *a, const char *b, pb_link_t l)
{
    snprintf(r->a, sizeof r->a, "%s", a);
    snprintf(r->b, sizeof r->b, "%s", b);
    snprintf(r->cls, sizeof r->cls, "%s", pb_link_class_name(l.cls));
    r->links = pb_link_counted(l.cls) ? l.nvlinks : 0;
}

int pb_topo_write_pairs(const char *path, const pb_topo_t *tp, pb_err_t *err)
{
    pb_cluster_t c = {0, 0, 0, NULL};
    size_t n = 0, cap;
    if (tp->ngpus > 0) {
        cap = (size_t)tp->ngpus * (size_t)(tp->ngpus + tp->nnics);
    } else {
        if (pb_cluster_init(&c, tp, 1, err) != PB_OK)
            return err->code;
        cap = (size_t)c.per_node * (size_t)c.per_node;
    }
    pb_pair_row_t *rows = calloc(cap + 1, sizeof *rows);
    if (rows == NULL) {
        pb_cluster_free(&c);
        return pb_err_set(err, PB_ERUNTIME, "out of memory writing pairs");
    }
    if (tp->ngpus > 0) {
        for (int a = 0; a < tp->ngpus; a++)
            for (int b = a + 1; b < tp->ngpus; b++)
                pair_row(&rows[n++], tp->gpus[a].name, tp->gpus[b].name, pb_topo_gpu_gpu(tp, a, b));
        for (int a = 0; a < tp->ngpus; a++)
            for (int b = 0; b < tp->nnics; b++)
                pair_row(&rows[n++], tp->gpus[a].name, tp->nics[b].name, pb_topo_gpu_nic(tp, a, b));
    } else {
        for (int a = 0; a < c.per_node; a++)
            for (int b = a + 1; b < c.per_node; b++) {
                char na[16], nb[16];
                snprintf(na, sizeof na, "core%d", a);
                snprintf(nb, sizeof nb, "core%d", b);
                pair_row(&rows[n++], na, nb, pb_cluster_link(&c, a, b));
            }
    }
    int code = pb_pairs_csv_write(path, rows, n, err);
    free(rows);
    pb_cluster_free(&c);
    return code;
}

int pb_ntopo_write_pairs(const char *path, const pb_ntopo_t *t, int nvlink, pb_err_t *err)
{
    /* GPU pairs, then GPU x NIC: the order of the hwloc file's rows */
    size_t cap = (size_t)t->ngpus * (size_t)t->n, n = 0;
    pb_pair_row_t *rows = calloc(cap + 1, sizeof *rows);
    if (rows == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory writing pairs");
    char na[16], nb[16];
    for (int a = 0; a < t->ngpus; a++)
        for (int b = a + 1; b < t->ngpus; b++) {
            pb_ntopo_name(t, a, na, sizeof na);
            pb_ntopo_name(t, b, nb, sizeof nb);
            pair_row(&rows[n++], na, nb, pb_ntopo_link(t, a, b, nvlink));
        }
    for (int a = 0; a < t->ngpus; a++)
        for (int b = t->ngpus; b < t->n; b++) {
            pb_ntopo_name(t, a, na, sizeof na);
            pb_ntopo_name(t, b, nb, sizeof nb);
            pair_row(&rows[n++], na, nb, pb_ntopo_link(t, a, b, nvlink));
        }
    int code = pb_pairs_csv_write(path, rows, n, err);
    free(rows);
    return code;
}
