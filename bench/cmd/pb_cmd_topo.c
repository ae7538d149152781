#include "pb_cmd_topo.h"

#include <stdio.h>
#include <string.h>

#include "../../topo/pb_cluster.h"
#include "../../topo/pb_topo_print.h"
#include "../../topo/pb_nccl_topo.h"
#include "../glue/pb_topo_pairs.h"
#include "../cli/pb_opt_common.h"

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
    const char *csv = o->run.csv_path;
    if (csv && pb_ntopo_write_pairs(csv, &t, o->topo.nvlink, err) != PB_OK) {
        pb_ntopo_free(&t);
        return err->code;
    }
    printf("# NCCL topology %s: %d GPU%s, %d NIC%s, %d CPU%s\n", o->topo.nccl, t.ngpus,
           t.ngpus == 1 ? "" : "s", t.nnics, t.nnics == 1 ? "" : "s", t.ncpus,
           t.ncpus == 1 ? "" : "s");
    if (t.has_xgmi)
        printf("# xGMI (AMD Infinity Fabric) from the file's <xgmi> elements\n");
    if (t.has_nvlink)
        printf("# NVLink from the file's <nvlink> elements\n");
    else if (t.has_xgmi) /* AMD GPUs: --nvlink does not apply */
        printf("# no NVLink: the file's GPUs are AMD's\n");
    else if (o->topo.nvlink)
        printf("# NVLink: NV%d for every GPU pair, as --nvlink says (the file has none)\n",
               o->topo.nvlink);
    else
        printf("# NVLink unknown: the file has no <nvlink> elements (NCCL reads NVLink from "
               "NVML at run time); GPU pairs show their PCI path; --nvlink N states it\n");
    printf("%-7s", "");
    for (int a = 0; a < t.n; a++) {
        char name[16];
        pb_ntopo_name(&t, a, name, sizeof name);
        printf(" %-6s", name);
    }
    printf(" %-5s %s\n", "NUMA", "bus id");
    for (int a = 0; a < t.n; a++) {
        char name[16], cell[16];
        pb_ntopo_name(&t, a, name, sizeof name);
        printf("%-7s", name);
        for (int b = 0; b < t.n; b++) {
            pb_link_format(pb_ntopo_link(&t, a, b, o->topo.nvlink), cell, sizeof cell);
            printf(" %-6s", cell);
        }
        printf(" %-5d %s%s%s\n", t.dev[a].numa, t.dev[a].busid, t.dev[a].arch[0] ? "  " : "",
               t.dev[a].arch);
    }
    printf("\n# PIX one PCIe switch; PXB several; PHB through the CPU (NCCL's host bridge);\n"
           "# NODE another <cpu> of the same NUMA node; SYS another NUMA node; NV# NVLinks\n");
    if (t.has_xgmi)
        printf("# XGMI# AMD Infinity Fabric (xGMI) links\n");
    if (o->run.csv_path)
        printf("# pairs written to %s\n", o->run.csv_path);
    pb_ntopo_free(&t);
    return PB_OK;
}

/* ---- the command: its options and table row ----------------------- */

/* a dump describes another machine: no MPI, no launch, so a layout for
 * a thousand GPUs can be checked from a laptop */
static int topo_alone(const pb_options_t *o, int rank0, pb_err_t *err)
{
    if (o->topo.nccl)
        return rank0 ? pb_topo_cmd_nccl(o, err) : PB_OK;
    if (o->topo.xml == NULL)
        return PB_RUN_RANKS;
    return rank0 ? pb_topo_cmd_offline(o, err) : PB_OK;
}

static const pb_opt_spec_t topo_specs[] = {
    {"topo-xml", 0, "FILE", pb_opt_file, PB_OFF(topo.xml), 0,
     "describe an hwloc XML dump instead of this machine;\nruns no MPI and launches nothing",
     "@file", "--topo-xml is an option of parbench topo"},
    {"nodes", 0, "N", pb_opt_int, PB_OFF(topo.nodes), 1,
     "with --topo-xml: a hypothetical cluster of N such nodes,\n"
     "one rank per GPU (per core without GPUs)",
     NULL, "--nodes is an option of parbench topo (with --topo-xml)"},
    {"csv", 0, "FILE", pb_opt_file, PB_OFF(run.csv_path), 0,
     "write every pair: a, b, class, links (replaces FILE);\n"
     "live, or from --topo-xml or --nccl-topo", "@file", NULL},
    {"nccl-topo", 0, "FILE", pb_opt_file, PB_OFF(topo.nccl), 0,
     "describe an NCCL topology file (NCCL_TOPO_FILE, e.g. Azure\n"
     "ND v4/v5): PCI classes from its <cpu>/<pci> tree, NVLink\n"
     "from its <nvlink> elements; runs no MPI",
     "@file", "--nccl-topo is an option of parbench topo"},
    {"nvlink", 0, "N", pb_opt_int, PB_OFF(topo.nvlink), 1,
     "with --nccl-topo: GPU pairs have N NVLinks (files without\n"
     "<nvlink> elements leave NVLink unknown)",
     NULL, "--nvlink is an option of parbench topo (with --nccl-topo)"},
};
static const pb_opt_group_t topo_group = PB_GROUP("", topo_specs, NULL);

static void topo_defaults(pb_options_t *o)
{
    pb_run_defaults(o);
}

static int topo_finish(pb_options_t *o, pb_err_t *err)
{
    /* a file describes one node: no second description, no cluster of it */
    if (o->topo.nccl && (o->topo.xml || o->topo.nodes))
        return pb_err_set(err, PB_EINPUT, "--nccl-topo takes no --topo-xml or --nodes");
    if (o->topo.nvlink && o->topo.nccl == NULL)
        return pb_err_set(err, PB_EINPUT, "--nvlink needs --nccl-topo");
    if (o->topo.nodes && o->topo.xml == NULL)
        return pb_err_set(err, PB_EINPUT,
                          "--nodes needs --topo-xml: a live run has the nodes it runs on");
    return pb_run_finish(o, err);
}

static const char *topo_foreign(const pb_opt_spec_t *s, const pb_opt_group_t *g)
{
    (void)g;
    if (strcmp(s->lng, "json") == 0)
        return "--json writes result rows; parbench topo writes pairs (--csv)";
    return NULL;
}

const pb_cmd_desc_t pb_cmd_topo = {
    PB_CMD_TOPO, "topo", "GPU/NIC link matrix, node map, layout placement (parbench topo --help)",
    "usage: parbench topo [OPTIONS]\n"
    "\n"
    "The links between GPUs and NICs (as nvidia-smi topo -m prints them) with\n"
    "CPU and NUMA affinity, the node map of the launched ranks, and the slowest\n"
    "link each group of a layout crosses (--tp N --cp N --ep N --dp N --pp N, in\n"
    "Megatron order, tp fastest; dp defaults to what is left of the world).\n",
    {{&topo_group, NULL}, {&pb_grp_layout, NULL}, {&pb_grp_launch, NULL}, {&pb_grp_help, NULL}},
    "classes, fastest first: X same GPU; NV# NVLink (# links); XGMI# AMD\n"
    "Infinity Fabric (# links); PIX one PCIe switch; PXB several switches;\n"
    "PHB one host bridge; NODE one NUMA node; SYS across sockets; NET across\n"
    "nodes.  Host ranks: CORE, L3, NODE, SOCKET (one package, several NUMA\n"
    "nodes), SYS, NET.\n",
    0, topo_defaults, topo_finish, topo_foreign, topo_alone, pb_topo_cmd, 0, NULL};
