#include "pb_pci_path.h"

#define PB_MAX_CHAIN 64

static int is_host_bridge(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_BRIDGE &&
           o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

static int is_pci_bridge(hwloc_obj_t o)
{
    return o->type == HWLOC_OBJ_BRIDGE && o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

/* The object itself first, the root last. */
static int chain(hwloc_obj_t o, hwloc_obj_t *out)
{
    int n = 0;
    for (; o != NULL && n < PB_MAX_CHAIN; o = o->parent)
        out[n++] = o;
    return n;
}

/* PCI-PCI bridges strictly between device chain[0] and chain[upto]. */
static int bridges_below(hwloc_obj_t *c, int upto)
{
    int n = 0;
    for (int i = 1; i < upto; i++)
        n += is_pci_bridge(c[i]);
    return n;
}

/* The CPU-side (non-I/O) object a device hangs from: its locality. */
static hwloc_obj_t cpu_side(hwloc_obj_t o)
{
    while (o != NULL && o->cpuset == NULL)
        o = o->parent;
    return o;
}

pb_link_class_t pb_pci_path_class(hwloc_obj_t a, hwloc_obj_t b)
{
    if (a == b)
        return PB_LINK_SELF;
    hwloc_obj_t ca[PB_MAX_CHAIN], cb[PB_MAX_CHAIN];
    int na = chain(a, ca), nb = chain(b, cb);
    /* walk both chains from the root down while they agree: the last
     * shared object is the common ancestor */
    int i = na - 1, j = nb - 1;
    while (i > 0 && j > 0 && ca[i - 1] == cb[j - 1]) {
        i--;
        j--;
    }
    hwloc_obj_t common = ca[i];
    if (ca[i] != cb[j]) /* different roots: not one machine */
        return PB_LINK_SYS;
    if (is_pci_bridge(common)) {
        /* the common bridge is a switch (or root port): PIX when each
         * device sits right below one of its ports, PXB when another
         * switch lies between (the path crosses several switches) */
        return bridges_below(ca, i) <= 1 && bridges_below(cb, j) <= 1 ? PB_LINK_PIX : PB_LINK_PXB;
    }
    if (is_host_bridge(common) || common->type == HWLOC_OBJ_PCI_DEVICE)
        return PB_LINK_PHB;
    /* across host bridges: one NUMA node, or the SMP interconnect */
    hwloc_obj_t la = cpu_side(a), lb = cpu_side(b);
    if (la == NULL || lb == NULL || la->nodeset == NULL || lb->nodeset == NULL)
        return PB_LINK_SYS;
    if (hwloc_bitmap_isequal(la->nodeset, lb->nodeset) && hwloc_bitmap_weight(la->nodeset) == 1)
        return PB_LINK_NODE;
    return PB_LINK_SYS;
}
