/* pb_topo_print.h - what `parbench topo` shows, shared by the live and
 * the dump (--topo-xml) forms: the device matrix, the pairs CSV, and the
 * layout's slowest links with their warnings. */
#ifndef PB_TOPO_PRINT_H
#define PB_TOPO_PRINT_H

#include <stdio.h>

#include "../topo/pb_place.h"
#include "../topo/pb_topo.h"

/* GPUs and NICs like nvidia-smi topo -m, with CPU and NUMA affinity and
 * a legend; says plainly when there are no GPUs or no NICs. */
void pb_topo_print_matrix(FILE *f, const pb_topo_t *tp, const char *source);

/* Every GPU-GPU and GPU-NIC pair (cores when there is no GPU): a, b,
 * class, links.  PB_EINPUT when the file cannot be written. */
int pb_topo_write_pairs(const char *path, const pb_topo_t *tp, pb_err_t *err);

/* Each group kind's slowest link, with warnings where a group leaves its
 * fast links.  gpus: the ranks are GPUs (else host ranks). */
void pb_topo_print_layout(FILE *f, const pb_place_layout_t *l, int world, pb_pair_link_fn fn,
                          const void *ctx, int gpus);

#endif
