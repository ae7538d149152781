#include "pb_ep_cost.h"

#include <math.h>
#include <string.h>

int pb_ep_disp_parse(const char *s, pb_ep_disp_t *out)
{
    if (strcmp(s, "auto") == 0 || s[0] == '\0')
        *out = PB_EP_DISP_AUTO;
    else if (strcmp(s, "alltoall") == 0)
        *out = PB_EP_DISP_ALLTOALL;
    else if (strcmp(s, "flex") == 0 || strcmp(s, "deepep") == 0)
        *out = PB_EP_DISP_FLEX;
    else
        return -1;
    return 0;
}

const char *pb_ep_disp_name(pb_ep_disp_t d)
{
    return d == PB_EP_DISP_FLEX ? "flex" : d == PB_EP_DISP_ALLTOALL ? "alltoall" : "auto";
}

pb_ep_disp_t pb_ep_disp_resolve(pb_ep_disp_t d, int net)
{
    if (d != PB_EP_DISP_AUTO)
        return d;
    return net ? PB_EP_DISP_FLEX : PB_EP_DISP_ALLTOALL;
}

double pb_ep_remote_nodes(int experts, int topk, int nodes)
{
    if (nodes < 2 || experts < 1 || topk < 1)
        return 0.0;
    double E = experts, per = (double)experts / nodes, miss = 1.0;
    for (int i = 0; i < topk; i++) {
        double left = E - per - i;
        miss *= left > 0 ? left / (E - i) : 0.0;
    }
    return (nodes - 1) * (1.0 - miss);
}

double pb_ep_net_us(const pb_hw_t *hw, pb_ep_disp_t d, int ep, int per_node, int experts,
                    int topk, uint64_t bytes, double imbalance)
{
    if (ep < 2 || per_node < 1 || per_node >= ep)
        return 0.0;
    double x = (double)bytes * (imbalance > 1.0 ? imbalance : 1.0);
    double g = per_node, n = ep;
    double nic_b, nvl_b;
    if (d == PB_EP_DISP_FLEX && topk > 0) {
        /* one copy per remote node; each copy bound for another GPU of
         * a node crosses its NVLink once */
        nic_b = x / topk * pb_ep_remote_nodes(experts, topk, ep / per_node);
        nvl_b = x * (g - 1.0) / g;
    } else {
        nic_b = x * (n - g) / n;
        nvl_b = x * (g - 1.0) / n;
    }
    double nic = pb_hw_net_gbps_per_gpu(hw) * hw->net_eff * 1e3; /* bytes per us */
    double nvl = hw->nvlink_gbps * hw->nvlink_eff * 1e3;
    double t_nic = nic_b / nic, t_nvl = nvl_b / nvl;
    return hw->lat_net_us * pb_hw_lat_depth(n) + (t_nic > t_nvl ? t_nic : t_nvl);
}
