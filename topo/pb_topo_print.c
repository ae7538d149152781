#include "pb_topo_print.h"

#include <stdlib.h>
#include <string.h>

#include "pb_cluster.h"
#include "pb_pci_path.h"

static void cell(FILE *f, pb_link_t l)
{
    char buf[16];
    pb_link_format(l, buf, sizeof buf);
    fprintf(f, " %-6s", buf);
}

void pb_topo_print_matrix(FILE *f, const pb_topo_t *tp, const char *source)
{
    fprintf(f, "# topology of %s: %d GPU%s, %d NIC%s\n", source, tp->ngpus,
            tp->ngpus == 1 ? "" : "s", tp->nnics, tp->nnics == 1 ? "" : "s");
    if (tp->ngpus > 0) {
        if (tp->nvlink_source == PB_NVLINK_NONE)
            fprintf(f, "# %s\n", tp->nvlink_note);
        else
            fprintf(f, "# NVLink from %s\n", tp->nvlink_source == PB_NVLINK_DISTANCES
                                                 ? "the NVLinkBandwidth distances"
                                                 : "NVML");
        if (tp->has_xgmi)
            fprintf(f, "# xGMI (AMD Infinity Fabric) from the KFD topology in sysfs\n");
    }
    if (tp->ngpus == 0) {
        fprintf(f, "no GPUs%s\n", tp->nnics ? "" : " and no NICs");
        for (int n = 0; n < tp->nnics; n++)
            fprintf(f, "NIC%d: %s (%s)\n", n, tp->nics[n].name, tp->nics[n].busid);
        return;
    }
    fprintf(f, "%-7s", "");
    for (int g = 0; g < tp->ngpus; g++)
        fprintf(f, " %-6s", tp->gpus[g].name);
    for (int n = 0; n < tp->nnics; n++)
        fprintf(f, " NIC%-3d", n);
    fprintf(f, " %-14s %s\n", "CPU Affinity", "NUMA Affinity");
    for (int a = 0; a < tp->ngpus + tp->nnics; a++) {
        int ga = a < tp->ngpus;
        const pb_topo_dev_t *da = ga ? &tp->gpus[a] : &tp->nics[a - tp->ngpus];
        char name[16];
        snprintf(name, sizeof name, ga ? "GPU%d" : "NIC%d", ga ? a : a - tp->ngpus);
        fprintf(f, "%-7s", name);
        for (int b = 0; b < tp->ngpus + tp->nnics; b++) {
            int gb = b < tp->ngpus;
            pb_link_t l = {PB_LINK_SELF, 0};
            if (ga && gb)
                l = pb_topo_gpu_gpu(tp, a, b);
            else if (ga)
                l = pb_topo_gpu_nic(tp, a, b - tp->ngpus);
            else if (gb)
                l = pb_topo_gpu_nic(tp, b, a - tp->ngpus);
            else
                l.cls = pb_pci_path_class(da->pci, tp->nics[b - tp->ngpus].pci);
            cell(f, l);
        }
        char cpus[128], numa[64];
        pb_topo_affinity(tp, da->pci, cpus, sizeof cpus, numa, sizeof numa);
        fprintf(f, " %-14s %s\n", cpus, numa);
    }
    fprintf(f, "\n");
    for (int g = 0; g < tp->ngpus; g++)
        fprintf(f, "GPU%d: %s%s%s%s%s\n", g, tp->gpus[g].busid, tp->gpus[g].model[0] ? "  " : "",
                tp->gpus[g].model, tp->gpus[g].arch[0] ? "  " : "", tp->gpus[g].arch);
    if (tp->nnics == 0)
        fprintf(f, "no NICs in this topology\n");
    for (int n = 0; n < tp->nnics; n++)
        fprintf(f, "NIC%d: %s (%s)\n", n, tp->nics[n].name, tp->nics[n].busid);
    fprintf(f, "\nLegend: X = self; NV# = # NVLinks; PIX = at most one PCIe switch; PXB = several\n"
               "PCIe switches, no host bridge; PHB = one PCIe host bridge; NODE = across host\n"
               "bridges within a NUMA node; SYS = across NUMA nodes (SMP interconnect)\n");
    if (tp->has_xgmi) /* AMD only: NVIDIA's output stays as it was */
        fprintf(f, "XGMI# = # AMD Infinity Fabric (xGMI) links between GPUs\n");
}

static const char *warning(pb_group_kind_t k, pb_link_t l, int gpus)
{
    if (l.cls == PB_LINK_NET) {
        switch (k) {
        case PB_PK_TP:
            return "TP group crosses nodes: expect >30 % TP loss";
        case PB_PK_CP:
            return "CP group crosses nodes: its ring exchanges go over the network";
        case PB_PK_EP:
            return "EP group crosses nodes: every all-to-all goes over the network";
        default:
            return NULL; /* dp and pp span nodes by design */
        }
    }
    if (gpus && k == PB_PK_TP && !pb_link_counted(l.cls) && l.cls != PB_LINK_SELF)
        return "TP group leaves NVLink/xGMI: its all-reduces run at PCIe/SMP speed";
    return NULL;
}

void pb_topo_print_layout(FILE *f, const pb_place_layout_t *l, int world, pb_pair_link_fn fn,
                          const void *ctx, int gpus)
{
    fprintf(f, "\n# layout (Megatron order, tp fastest): tp %d, cp %d, ep %d, dp %d, pp %d = %d %s\n",
            l->size[PB_PK_TP], l->size[PB_PK_CP], l->size[PB_PK_EP], l->size[PB_PK_DP],
            l->size[PB_PK_PP], world, gpus ? "GPUs" : "host ranks");
    fprintf(f, "%-6s %-6s %s\n", "group", "size", "slowest link");
    pb_place_layout_t w = {{1, 1, 1, 1, 1}}; /* the world as one group */
    w.size[PB_PK_DP] = world;
    for (int k = 0; k < PB_PK_COUNT; k++) {
        pb_link_t s = pb_place_slowest(l, world, (pb_group_kind_t)k, fn, ctx);
        char buf[16];
        pb_link_format(s, buf, sizeof buf);
        fprintf(f, "%-6s %-6d %s\n", pb_group_kind_name((pb_group_kind_t)k), l->size[k],
                l->size[k] > 1 ? buf : "-");
        const char *why = l->size[k] > 1 ? warning((pb_group_kind_t)k, s, gpus) : NULL;
        if (why)
            fprintf(f, "warning: %s\n", why);
    }
    pb_link_t all = pb_place_slowest(&w, world, PB_PK_DP, fn, ctx);
    char buf[16];
    pb_link_format(all, buf, sizeof buf);
    fprintf(f, "%-6s %-6d %s\n", "world", world, world > 1 ? buf : "-");
}
