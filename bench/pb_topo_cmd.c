#include "pb_topo_cmd.h"

#include <stdio.h>
#include <string.h>

#include "../topo/pb_cluster.h"
#include "../topo/pb_topo_print.h"
#include "../topo/pb_nccl_topo.h"
#include "pb_topo_pairs.h"

static void layout_of(const pb_options_t *o, pb_place_layout_t *l)
{
    for (int k = 0; k < PB_PK_COUNT; k++)
        l->size[k] = o->model.layout[k];
}

int pb_topo_cmd_offline(const pb_options_t *o, pb_err_t *err)
{
    pb_topo_t tp;
    int code = pb_topo_load(&tp, o->topo.xml, 1, err);
    if (code != PB_OK)
        return code;
    pb_cluster_t c = {0, 0, 0, NULL};
    int nodes = o->topo.nodes ? o->topo.nodes : 1;
    code = pb_cluster_init(&c, &tp, nodes, err);
    long long world = (long long)nodes * c.per_node;
    pb_place_layout_t l;
    layout_of(o, &l);
    if (code == PB_OK && (world > 1 << 24 || c.per_node == 0))
        code = pb_err_set(err, PB_EINPUT, "%lld ranks are too many to place", world);
    if (code == PB_OK)
        code = pb_place_layout_fit(&l, (int)world, err);
    if (code == PB_OK && o->run.csv_path)
        code = pb_topo_write_pairs(o->run.csv_path, &tp, err);
    if (code == PB_OK) {
        pb_topo_print_matrix(stdout, &tp, o->topo.xml);
        printf("\n# %s cluster: %d node%s x %d %s = %lld ranks; node k holds ranks %d*k .. "
               "%d*k+%d (ranks fill a node first)\n",
               o->topo.nodes ? "hypothetical" : "one-node", nodes, nodes == 1 ? "" : "s",
               c.per_node, c.gpus ? "GPUs" : "cores", world, c.per_node, c.per_node,
               c.per_node - 1);
        pb_topo_print_layout(stdout, &l, (int)world, pb_cluster_link, &c, c.gpus);
        if (o->run.csv_path)
            printf("# pairs written to %s\n", o->run.csv_path);
    }
    pb_cluster_free(&c);
    pb_topo_free(&tp);
    return code;
}

static void print_nodes(const pb_ctx_t *ctx)
{
    const pb_nodemap_t *m = &ctx->map;
    printf("\n# node map: %d node%s, %d rank%s\n", m->nnodes, m->nnodes == 1 ? "" : "s",
           m->size, m->size == 1 ? "" : "s");
    printf("%-5s %-5s %-20s %-6s %-12s %-5s %-14s %s\n", "rank", "node", "host", "local",
           "binding", "GPU", "bus id", "NIC");
    for (int r = 0; r < m->size; r++) {
        char local[24], gpu[16];
        const char *cpuset = pb_rankmap_cpuset(m, r);
        snprintf(local, sizeof local, "%d/%d", m->local[r], pb_rankmap_local_size(m, r));
        snprintf(gpu, sizeof gpu, m->gpu[r] >= 0 ? "GPU%d" : "-", m->gpu[r]);
        printf("%-5d %-5d %-20s %-6s %-12s %-5s %-14s %s\n", r, m->node[r],
               pb_rankmap_host(m, r), local, cpuset[0] ? cpuset : "unbound", gpu,
               pb_rankmap_busid(m, r), pb_rankmap_nic(m, r));
    }
    if (m->size <= 16) { /* the pairs themselves, while they fit a screen */
        printf("\n# links between ranks\n%-5s", "");
        for (int b = 0; b < m->size; b++)
            printf(" r%-5d", b);
        printf("\n");
        for (int a = 0; a < m->size; a++) {
            printf("r%-4d", a);
            for (int b = 0; b < m->size; b++) {
                char buf[16];
                if (a == b)
                    snprintf(buf, sizeof buf, "X");
                else
                    pb_link_format(pb_nodemap_link(m, a, b), buf, sizeof buf);
                printf(" %-6s", buf);
            }
            printf("\n");
        }
    }
}

int pb_topo_cmd(pb_ctx_t *ctx, pb_err_t *err)
{
    const pb_options_t *o = ctx->opt;
    pb_place_layout_t l;
    layout_of(o, &l);
    /* the same inputs on every rank: the same answer, no agreement needed */
    int code = pb_place_layout_fit(&l, ctx->size, err);
    if (code != PB_OK)
        return code;
    if (ctx->rank == 0 && o->run.csv_path)
        code = pb_topo_write_pairs(o->run.csv_path, &ctx->topo, err);
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if (ctx->rank != 0)
        return PB_OK;
    char src[160];
    snprintf(src, sizeof src, "this node (%s, live)", pb_rankmap_host(&ctx->map, 0));
    pb_topo_print_matrix(stdout, &ctx->topo, src);
    if (ctx->topo.ngpus > 0 && ctx->map.gpu[0] < 0)
        printf("# the GPUs above do not answer CUDA here: ranks are host ranks\n");
    print_nodes(ctx);
    int gpus = ctx->map.gpu[0] >= 0;
    pb_topo_print_layout(stdout, &l, ctx->size, pb_nodemap_link, &ctx->map, gpus);
    if (o->run.csv_path)
        printf("# pairs written to %s\n", o->run.csv_path);
    return PB_OK;
}

/* The matrix nvidia-smi topo -m prints, from an NCCL topology file: GPUs,
 * then NICs, each by bus id, with its NUMA node. */
int pb_topo_cmd_nccl(const pb_options_t *o, pb_err_t *err)
{
    pb_ntopo_t t;
    if (pb_ntopo_load(o->topo.nccl, &t, err) != PB_OK)
        return err->code;
    printf("# NCCL topology %s: %d GPU%s, %d NIC%s, %d CPU%s\n", o->topo.nccl, t.ngpus,
           t.ngpus == 1 ? "" : "s", t.nnics, t.nnics == 1 ? "" : "s", t.ncpus,
           t.ncpus == 1 ? "" : "s");
    if (t.has_nvlink)
        printf("# NVLink from the file's <nvlink> elements\n");
    else if (o->topo.nvlink)
        printf("# NVLink: NV%d for every GPU pair, as --nvlink says (the file has none)\n",
               o->topo.nvlink);
    else
        printf("# NVLink unknown: the file has no <nvlink> elements (NCCL reads NVLink from "
               "NVML at run time); GPU pairs show their PCI path; --nvlink N states it\n");
    printf("%-7s", "");
    for (int a = 0; a < t.n; a++) {
        char name[16];
        snprintf(name, sizeof name, t.dev[a].gpu ? "GPU%d" : "NIC%d",
                 t.dev[a].gpu ? a : a - t.ngpus);
        printf(" %-6s", name);
    }
    printf(" %-5s %s\n", "NUMA", "bus id");
    for (int a = 0; a < t.n; a++) {
        char name[16], cell[16];
        snprintf(name, sizeof name, t.dev[a].gpu ? "GPU%d" : "NIC%d",
                 t.dev[a].gpu ? a : a - t.ngpus);
        printf("%-7s", name);
        for (int b = 0; b < t.n; b++) {
            pb_link_format(pb_ntopo_link(&t, a, b, o->topo.nvlink), cell, sizeof cell);
            printf(" %-6s", cell);
        }
        printf(" %-5d %s\n", t.dev[a].numa, t.dev[a].busid);
    }
    printf("\n# PIX one PCIe switch; PXB several; PHB through the CPU (NCCL's host bridge);\n"
           "# NODE another <cpu> of the same NUMA node; SYS another NUMA node; NV# NVLinks\n");
    pb_ntopo_free(&t);
    return PB_OK;
}
