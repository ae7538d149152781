/* libFuzzer target: hwloc XML topologies (the parser is hwloc's; what is
 * ours is everything done with what it returns: GPUs, NICs, NVLink
 * counts from distances, PCI paths, link classes). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/pb_pci_path.h"
#include "topo/pb_topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *xml = malloc(size + 1);
    if (xml == NULL)
        return 0;
    memcpy(xml, data, size);
    xml[size] = '\0';
    pb_topo_t tp;
    pb_err_t err;
    pb_err_clear(&err); /* the first error set is kept: start clear */
    if (pb_topo_load_xmlbuffer(&tp, xml, size, 1, &err) == PB_OK) {
        for (int a = 0; a < tp.ngpus; a++) {
            for (int b = 0; b < tp.ngpus; b++)
                (void)pb_pci_path_class(tp.gpus[a].pci, tp.gpus[b].pci);
            for (int k = 0; k < tp.nnics; k++)
                (void)pb_pci_path_class(tp.gpus[a].pci, tp.nics[k].pci);
            (void)pb_topo_nearest_nic(&tp, a);
        }
        (void)pb_topo_ncores(&tp);
        pb_topo_free(&tp);
    }
    free(xml);
    return 0;
}
