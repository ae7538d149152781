#include "pb_cluster.h"

#include <stdlib.h>

#include "pb_hostlink.h"

int pb_cluster_init(pb_cluster_t *c, const pb_topo_t *tp, int nodes, pb_err_t *err)
{
    c->nodes = nodes;
    c->gpus = tp->ngpus > 0;
    c->per_node = c->gpus ? tp->ngpus : pb_topo_ncores(tp);
    size_t n = (size_t)c->per_node;
    c->local = calloc(n * n + 1, sizeof *c->local);
    if (c->local == NULL)
        return pb_err_set(err, PB_ERUNTIME, "out of memory placing the layout");
    hwloc_obj_type_t unit =
        hwloc_get_nbobjs_by_type(tp->t, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
    for (int a = 0; a < c->per_node; a++)
        for (int b = 0; b < c->per_node; b++) {
            pb_link_t *l = &c->local[(size_t)a * n + (size_t)b];
            if (c->gpus) {
                *l = pb_topo_gpu_gpu(tp, a, b);
            } else {
                hwloc_obj_t ca = hwloc_get_obj_by_type(tp->t, unit, (unsigned)a);
                hwloc_obj_t cb = hwloc_get_obj_by_type(tp->t, unit, (unsigned)b);
                l->cls = pb_hostlink_class(tp->t, ca->cpuset, cb->cpuset);
                l->nvlinks = 0;
            }
        }
    return PB_OK;
}

void pb_cluster_free(pb_cluster_t *c)
{
    free(c->local);
    c->local = NULL;
}

pb_link_t pb_cluster_link(const void *cluster, int a, int b)
{
    const pb_cluster_t *c = cluster;
    if (a / c->per_node != b / c->per_node) {
        pb_link_t net = {PB_LINK_NET, 0};
        return net;
    }
    return c->local[(size_t)(a % c->per_node) * (size_t)c->per_node + (size_t)(b % c->per_node)];
}
