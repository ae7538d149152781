/* pb_topo_print.h - what `parbench topo` shows, shared by the live and
 * the dump (--topo-xml) forms: the device matrix and the layout's slowest
 * links with their warnings (the pairs CSV: bench/glue/pb_topo_pairs.h). */
#ifndef PB_TOPO_PRINT_H
#define PB_TOPO_PRINT_H

#include <stdio.h>

#include "pb_place.h"
#include "pb_topo.h"

/* GPUs and NICs like nvidia-smi topo -m, with CPU and NUMA affinity and
 * a legend; says plainly when there are no GPUs or no NICs. */
void pb_topo_print_matrix(FILE *f, const pb_topo_t *tp, const char *source);

/* Each group kind's slowest link, with warnings where a group leaves its
 * fast links.  gpus: the ranks are GPUs (else host ranks). */
void pb_topo_print_layout(FILE *f, const pb_place_layout_t *l, int world, pb_pair_link_fn fn,
                          const void *ctx, int gpus);

#endif
