/* pb_validate_expect.c - the facts behind validate's expectations, found
 * on each rank's node and gathered on rank 0, and the expectation of a
 * pair in a round (validate/pb_vexpect.h has the physics). */
#include <stdlib.h>
#include <string.h>

#include "../../topo/pb_linkrate.h"
#include "pb_validate_judge.h"

/* This rank's facts: its GPU (the node map's, on this node's topology)
 * and its nearest NIC.  PB_SYSFS_ROOT points the readers at a copy of
 * sysfs, as HWLOC_FSROOT does for hwloc (tests). */
static void my_facts(const pb_ctx_t *ctx, pb_vexpect_rank_t *f)
{
    const char *root = getenv("PB_SYSFS_ROOT");
    if (root == NULL || root[0] == '\0')
        root = "/sys";
    memset(f, 0, sizeof *f);
    int g = ctx->map.gpu[ctx->rank];
    if (g >= 0 && g < ctx->topo.ngpus) {
        f->nvlink_gbps = ctx->topo.gpus[g].arch[0] /* AMD, named by KFD */
                             ? pb_vexpect_xgmi_per_link(ctx->topo.gpus[g].arch)
                             : pb_vexpect_nvlink_per_link(ctx->topo.gpus[g].model);
        f->pcie_gbps = pb_linkrate_pcie(root, ctx->topo.gpus[g].busid);
    }
    f->nic_gbps = pb_linkrate_nic(root, pb_rankmap_nic(&ctx->map, ctx->rank));
}

int pb_validate_facts(pb_ctx_t *ctx, pb_vexpect_rank_t **all, pb_err_t *err)
{
    pb_vexpect_rank_t mine;
    my_facts(ctx, &mine);
    *all = NULL;
    int code = PB_OK;
    if (ctx->rank == 0 && (*all = calloc((size_t)ctx->size, sizeof **all)) == NULL)
        code = pb_err_set(err, PB_ERUNTIME, "out of memory for validate's link facts");
    if (pb_ctx_agree(ctx, code, err) != PB_OK)
        return err->code;
    if (pb_ctl_gather(ctx->world, &mine, *all, sizeof mine, 0) != PB_OK)
        return pb_err_set(err, PB_ERUNTIME, "gathering validate's link facts failed");
    return PB_OK;
}

/* Ranks of r's node moving data at once through r's NIC (at least 1). */
static int nic_sharers(const pb_nodemap_t *m, int r, const int *active)
{
    const char *nic = pb_rankmap_nic(m, r);
    if (active == NULL || nic[0] == '\0')
        return 1;
    int n = 0, node = m->node[r], size = pb_rankmap_node_size(m, node);
    for (int i = 0; i < size; i++) {
        int x = pb_rankmap_member(m, node, i);
        n += active[x] && strcmp(pb_rankmap_nic(m, x), nic) == 0;
    }
    return n > 0 ? n : 1;
}

void pb_vjudge_expect(const pb_vjudge_t *j, int a, int b, const int *active, pb_vexpect_t *out)
{
    const pb_nodemap_t *m = &j->ctx->map;
    pb_link_t l = pb_nodemap_link(m, a, b);
    int sa = l.cls == PB_LINK_NET ? nic_sharers(m, a, active) : 1;
    int sb = l.cls == PB_LINK_NET ? nic_sharers(m, b, active) : 1;
    pb_vexpect_pair(&j->ctx->opt->validate.expect, l, &j->facts[a], &j->facts[b], sa, sb,
                    j->device, out);
}
