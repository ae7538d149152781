/* pb_cmd_topo.h - `parbench topo`.
 *
 * Live: under MPI, the node's devices, the node map of the launched ranks
 * and the layout placed on them.  With --topo-xml: a dump, placed on a
 * hypothetical cluster of --nodes such nodes, without MPI at all. */
#ifndef PB_CMD_TOPO_H
#define PB_CMD_TOPO_H

#include "../run/pb_ctx.h"

int pb_topo_cmd(pb_ctx_t *ctx, pb_err_t *err);

/* No MPI, no launch: safe from a laptop.  Returns the exit code. */
int pb_topo_cmd_offline(const pb_options_t *opt, pb_err_t *err);

/* parbench topo --nccl-topo FILE [--nvlink N]: the GPU/NIC matrix of an
 * NCCL topology file; no MPI. */
int pb_topo_cmd_nccl(const pb_options_t *o, pb_err_t *err);

#endif
