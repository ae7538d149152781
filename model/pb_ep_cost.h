/* pb_ep_cost.h - the MoE token dispatch and combine when the expert-
 * parallel group spans nodes, as Megatron-Core's two EP dispatchers move
 * the tokens.
 *
 *  - alltoall (--moe-token-dispatcher-type alltoall): one NCCL all-to-all
 *    of every routed copy (tokens x topk x h); the copies for GPUs of the
 *    same node go over NVLink, the rest through the GPU's own NIC - an
 *    all-to-all "cannot aggregate the bandwidth of multiple NICs"
 *    (NVIDIA/nccl-tests#267), so a GPU's network share is one NIC.
 *  - flex with DeepEP (--moe-token-dispatcher-type flex --moe-enable-
 *    deepep): a token crosses the network once per destination node,
 *    to the GPU of the same rail there, which forwards it over NVLink to
 *    the GPUs holding its experts (DeepEP README: kernels "optimized for
 *    asymmetric-domain bandwidth forwarding, such as forwarding data from
 *    NVLink domain to RDMA domain"; Megatron-Core token_dispatcher.py: the
 *    fused dispatch "removes redundant tokens during cross-node
 *    communication").  The RDMA and NVLink legs run in one kernel,
 *    pipelined: the slower sets the time.  DeepEP's normal kernels reach
 *    43-58 GB/s of RDMA per GPU on 400 Gb/s ConnectX-7 (DeepEP
 *    docs/legacy.md, EP 16-64), the preset's NIC x net_eff (46 GB/s).
 *
 * Megatron-Core recommends DeepEP for EP across nodes ("The primary
 * advantage of DeepEP is its cross-node token communication efficiency",
 * moe/README.md) and alltoall within a node, which is what AUTO picks. */
#ifndef PB_EP_COST_H
#define PB_EP_COST_H

#include <stdint.h>

#include "pb_hw.h"

typedef enum pb_ep_disp {
    PB_EP_DISP_AUTO = 0, /* flex when the EP group spans nodes, else alltoall */
    PB_EP_DISP_ALLTOALL,
    PB_EP_DISP_FLEX,
} pb_ep_disp_t;

/* "auto", "alltoall", "flex" (or "deepep"); -1 for anything else */
int pb_ep_disp_parse(const char *s, pb_ep_disp_t *out);
const char *pb_ep_disp_name(pb_ep_disp_t d);
/* AUTO resolved for an EP group that does (net = 1) or does not span nodes */
pb_ep_disp_t pb_ep_disp_resolve(pb_ep_disp_t d, int net);

/* Nodes other than its own that receive a copy of a token routed to
 * `topk` of `experts` experts spread evenly over `nodes` nodes, routing
 * uniform: (nodes - 1) x (1 - P(a node holds none of the k)), with
 * P = C(E - E/nodes, k) / C(E, k). */
double pb_ep_remote_nodes(int experts, int topk, int nodes);

/* Microseconds for one dispatch (or combine) of `bytes` = the rank's
 * routed copies (tokens x topk x h x e) over an EP group of `ep` ranks,
 * `per_node` of them in each node (ep > per_node), with the hottest
 * destination at `imbalance` x the mean. */
double pb_ep_net_us(const pb_hw_t *hw, pb_ep_disp_t d, int ep, int per_node, int experts,
                    int topk, uint64_t bytes, double imbalance);

#endif
