#include "pb_gpu_pick.h"

#include <stdio.h>
#include <string.h>

int pb_gpu_pick(int local, int ndev)
{
    if (ndev <= 0 || local < 0)
        return -1;
    return local % ndev;
}

int pb_gpu_check_node(const char *ids, int n, size_t stride, char *why, size_t len)
{
    for (int i = 0; i < n; i++)
        if (ids[(size_t)i * stride] == '\0') {
            snprintf(why, len, "local rank %d of this node has no GPU", i);
            return 1;
        }
    /* two ranks timing on one GPU would measure each other's work */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (strncmp(ids + (size_t)i * stride, ids + (size_t)j * stride, stride) == 0) {
                snprintf(why, len,
                         "local ranks %d and %d of this node share one GPU (%.*s): start one "
                         "rank per GPU",
                         i, j, (int)(stride < 100 ? stride : 100), ids + (size_t)i * stride);
                return 1;
            }
    return 0;
}
