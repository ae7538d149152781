/* Look-ups on a loaded topology's device lists (pb_topo_data.h). */
#include "pb_topo_data.h"

#include <stdio.h>

int pb_topo_gpu_by_busid(const pb_topo_t *tp, const char *busid)
{
    unsigned dom, bus, dev, fn;
    if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
        return -1;
    for (int g = 0; g < tp->ngpus; g++) {
        const struct hwloc_pcidev_attr_s *p = &tp->gpus[g].pci->attr->pcidev;
        if (p->domain == dom && p->bus == bus && p->dev == dev && p->func == fn)
            return g;
    }
    return -1;
}
