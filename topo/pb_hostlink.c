#include "pb_hostlink.h"

static int has_type(hwloc_obj_t o, hwloc_obj_type_t type)
{
    for (; o != NULL; o = o->parent)
        if (o->type == type)
            return 1;
    return 0;
}

pb_link_class_t pb_hostlink_class(hwloc_topology_t t, hwloc_const_cpuset_t a,
                                  hwloc_const_cpuset_t b)
{
    hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(t);
    hwloc_bitmap_t u = hwloc_bitmap_alloc();
    if (u == NULL)
        return PB_LINK_SYS; /* out of memory: claim nothing better */
    hwloc_bitmap_or(u, hwloc_bitmap_iszero(a) ? all : a, hwloc_bitmap_iszero(b) ? all : b);
    hwloc_bitmap_and(u, u, all);
    hwloc_obj_t c = hwloc_bitmap_iszero(u) ? hwloc_get_root_obj(t)
                                           : hwloc_get_obj_covering_cpuset(t, u);
    hwloc_bitmap_free(u);
    if (c == NULL)
        c = hwloc_get_root_obj(t);
    if (c->type == HWLOC_OBJ_PU || has_type(c, HWLOC_OBJ_CORE))
        return PB_LINK_CORE;
    if (has_type(c, HWLOC_OBJ_L3CACHE))
        return PB_LINK_L3;
    /* NUMA nodes are memory children, not ancestors: ask the nodeset */
    if (c->nodeset != NULL && hwloc_bitmap_weight(c->nodeset) == 1)
        return PB_LINK_NODE;
    if (has_type(c, HWLOC_OBJ_PACKAGE))
        return PB_LINK_SOCKET;
    return PB_LINK_SYS;
}
