/* ntopo_cls.h - the --nccl-topo tests' one helper: the class of a pair
 * as text.  Four rotating buffers, so that one CHECK can compare two. */
#ifndef PB_TEST_NTOPO_CLS_H
#define PB_TEST_NTOPO_CLS_H

#include "topo/pb_nccl_topo.h"

static const char *cls(const pb_ntopo_t *t, int a, int b, int nvlink)
{
    static char buf[4][16];
    static int k;
    k = (k + 1) % 4;
    pb_link_format(pb_ntopo_link(t, a, b, nvlink), buf[k], sizeof buf[k]);
    return buf[k];
}

#endif
