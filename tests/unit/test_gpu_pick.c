/* The device choice shared by nccl, --memory device and gemm
 * (collectives/pb_gpu_pick.h): local rank modulo the visible devices,
 * and a refusal when two ranks of a node land on one physical GPU. */
#include <string.h>

#include "collectives/pb_gpu_pick.h"
#include "pb_test.h"

#define STRIDE 16

int main(void)
{
    /* every GPU visible to every rank: local rank i drives device i */
    CHECK(pb_gpu_pick(0, 8) == 0);
    CHECK(pb_gpu_pick(3, 8) == 3);
    CHECK(pb_gpu_pick(7, 8) == 7);
    /* per-rank binding (--gpus-per-task=1): each rank sees only device 0;
     * the old rule (device = local rank, refuse nlocal > ndev) failed here */
    CHECK(pb_gpu_pick(3, 1) == 0);
    CHECK(pb_gpu_pick(5, 2) == 1);
    /* no device */
    CHECK(pb_gpu_pick(0, 0) == -1);
    CHECK(pb_gpu_pick(2, -1) == -1);

    char why[200] = "";
    char ids[4 * STRIDE];
    memset(ids, 0, sizeof ids);
    /* four ranks bound one GPU each: four distinct bus ids, accepted */
    strcpy(ids + 0 * STRIDE, "0000:1B:00.0");
    strcpy(ids + 1 * STRIDE, "0000:43:00.0");
    strcpy(ids + 2 * STRIDE, "0000:52:00.0");
    strcpy(ids + 3 * STRIDE, "0000:61:00.0");
    CHECK(pb_gpu_check_node(ids, 4, STRIDE, why, sizeof why) == 0);
    /* 4 ranks, 2 GPUs visible to all: ranks 0 and 2 both pick device 0 */
    strcpy(ids + 2 * STRIDE, "0000:1B:00.0");
    CHECK(pb_gpu_check_node(ids, 4, STRIDE, why, sizeof why) == 1);
    CHECK(strstr(why, "local ranks 0 and 2") != NULL);
    CHECK(strstr(why, "0000:1B:00.0") != NULL);
    /* a rank that found no device is named before any sharing */
    memset(ids + 3 * STRIDE, 0, STRIDE);
    CHECK(pb_gpu_check_node(ids, 4, STRIDE, why, sizeof why) == 1);
    CHECK(strstr(why, "local rank 3") != NULL);
    /* one rank alone is always fine */
    CHECK(pb_gpu_check_node(ids, 1, STRIDE, why, sizeof why) == 0);
    PB_TEST_END("unit_gpu_pick");
}
