/* pb_topo_pairs.h - the topology's device pairs as rows of the pairs CSV
 * (`parbench topo --csv`): topo/ knows the links, reports/ the file, and
 * only bench/ may join the two. */
#ifndef PB_TOPO_PAIRS_H
#define PB_TOPO_PAIRS_H

#include "../../topo/pb_nccl_topo.h"
#include "../../topo/pb_topo.h"

/* Every GPU-GPU and GPU-NIC pair (cores when there is no GPU): a, b,
 * class, links.  PB_EINPUT when the file cannot be written. */
int pb_topo_write_pairs(const char *path, const pb_topo_t *tp, pb_err_t *err);

/* The same file from an NCCL topology file (`topo --nccl-topo --csv`):
 * every GPU-GPU pair, then every GPU-NIC pair, named and classed as the
 * matrix shows them; nvlink as --nvlink gives it (0: none). */
int pb_ntopo_write_pairs(const char *path, const pb_ntopo_t *t, int nvlink, pb_err_t *err);

#endif
